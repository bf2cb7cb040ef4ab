// FactorTable: dimension <-> factor projection of tensor shardings.
#include "core/rules/FactorTable.h"

#include <numeric>

namespace shardx {

namespace {

/// The part of an axis not yet assigned while walking a dimension's axes.
struct Piece {
    AxisRef original;
    std::string name;
    int64_t pre = 1;
    int64_t size = 1;
    int64_t fullSize = 1; ///< size of the whole mesh axis
    bool untouched = true;

    AxisRef ref() const
    {
        if (untouched)
            return original;
        if (pre == 1 && size == fullSize)
            return AxisRef(name);
        return AxisRef(name, pre, size);
    }
};

Piece pieceOf(const AxisRef& a, const Mesh& mesh)
{
    Piece p;
    p.original = a;
    p.name = a.name;
    p.pre = a.preSize();
    p.size = a.size(mesh);
    if (p.size <= 0)
        p.size = 1; // unknown axis: never divide by it
    p.fullSize = mesh.axisSize(a.name).value_or(p.size);
    return p;
}

} // namespace

std::vector<FactorCell> projectToFactors(const TensorFactorMapping& mapping, const std::vector<int64_t>& factorSizes,
                                         const TensorSharding* sharding, const Mesh& mesh, bool missingIsClosed)
{
    std::vector<FactorCell> cells(factorSizes.size());
    for (size_t d = 0; d < mapping.size(); ++d) {
        const DimFactors& factors = mapping[d];
        const DimSharding* dim = sharding && d < sharding->dims.size() ? &sharding->dims[d] : nullptr;
        const bool dimClosed = dim ? dim->closed : missingIsClosed;
        const std::vector<AxisRef> noAxes;
        const std::vector<AxisRef>& axes = dim ? dim->axes : noAxes;
        size_t next = 0; // next axis of `axes` not yet turned into a piece
        std::optional<Piece> piece;
        auto advance = [&] {
            piece.reset();
            if (next < axes.size())
                piece = pieceOf(axes[next++], mesh);
        };
        advance();
        bool overflowed = false;
        for (size_t j = 0; j < factors.size(); ++j) {
            const int64_t f = factors[j];
            if (f < 0 || static_cast<size_t>(f) >= cells.size())
                continue;
            FactorCell& cell = cells[static_cast<size_t>(f)];
            cell.present = true;
            cell.minorMost = j + 1 == factors.size();
            if (overflowed) {
                cell.closed = true;
                continue;
            }
            cell.closed = dimClosed;
            if (cell.minorMost) {
                while (piece) {
                    addAxisOrMerge(cell.axes, piece->ref(), mesh);
                    advance();
                }
                break;
            }
            int64_t r = factorSizes[static_cast<size_t>(f)];
            while (piece) {
                int64_t g = std::gcd(r, piece->size);
                if (piece->size != 1 && g <= 1)
                    break;
                if (piece->size > g) {
                    cell.axes.push_back(g == piece->fullSize && piece->pre == 1 ? AxisRef(piece->name)
                                                                                : AxisRef(piece->name, piece->pre, g));
                    piece->pre *= g;
                    piece->size /= g;
                    piece->untouched = false;
                    r /= g;
                } else {
                    addAxisOrMerge(cell.axes, piece->ref(), mesh);
                    r /= piece->size;
                    advance();
                }
            }
            if (r > 1 && piece) {
                while (piece) {
                    addAxisOrMerge(cell.overflow, piece->ref(), mesh);
                    advance();
                }
                overflowed = true;
            }
        }
    }
    return cells;
}

TensorSharding projectToTensor(const TensorFactorMapping& mapping, const std::vector<int64_t>& factorSizes,
                               const std::vector<FactorCell>& cells, const MeshRef& meshRef, const Mesh& mesh,
                               std::vector<AxisRef> replicated, std::vector<AxisRef> unreduced,
                               ReductionKind unreducedKind)
{
    TensorSharding out;
    out.mesh = meshRef;
    out.replicated = std::move(replicated);
    out.unreduced = std::move(unreduced);
    out.unreducedKind = unreducedKind;
    for (const DimFactors& factors : mapping) {
        DimSharding dim;
        dim.closed = false;
        for (int64_t f : factors) {
            if (f < 0 || static_cast<size_t>(f) >= cells.size())
                break;
            const FactorCell& cell = cells[static_cast<size_t>(f)];
            if (cell.closed)
                dim.closed = true;
            for (size_t k = 0; k < cell.axes.size(); ++k) {
                if (k == 0)
                    addAxisOrMerge(dim.axes, cell.axes[k], mesh);
                else
                    dim.axes.push_back(cell.axes[k]);
            }
            if (!cell.overflow.empty()) {
                for (size_t k = 0; k < cell.overflow.size(); ++k) {
                    if (k == 0)
                        addAxisOrMerge(dim.axes, cell.overflow[k], mesh);
                    else
                        dim.axes.push_back(cell.overflow[k]);
                }
                break;
            }
            if (axesProduct(cell.axes, mesh) < factorSizes[static_cast<size_t>(f)])
                break;
        }
        out.dims.push_back(std::move(dim));
    }
    return out;
}

FactorTable FactorTable::build(const OpShardingRule& rule,
                               const std::vector<std::optional<TensorSharding>>& operandShardings,
                               const std::vector<std::optional<TensorSharding>>& resultShardings, const Mesh& mesh,
                               bool missingIsClosed)
{
    FactorTable t;
    t.m_rule = rule;
    t.m_mesh = mesh;
    auto addRows = [&](const std::vector<TensorFactorMapping>& maps,
                       const std::vector<std::optional<TensorSharding>>& shardings, bool isResult) {
        for (size_t i = 0; i < maps.size(); ++i) {
            FactorTableRow row;
            row.isResult = isResult;
            row.index = static_cast<int64_t>(i);
            const TensorSharding* s = i < shardings.size() && shardings[i] ? &*shardings[i] : nullptr;
            row.hasSharding = s != nullptr;
            row.cells = projectToFactors(maps[i], rule.factorSizes, s, mesh, missingIsClosed);
            if (s) {
                row.replicated = s->replicated;
                row.unreduced = s->unreduced;
                row.unreducedKind = s->unreducedKind;
            }
            t.m_rows.push_back(std::move(row));
        }
    };
    addRows(rule.operands, operandShardings, false);
    addRows(rule.results, resultShardings, true);
    return t;
}

std::string FactorTable::cellString(const FactorCell& cell)
{
    if (!cell.present)
        return "N";
    if (cell.axes.empty() && cell.overflow.empty())
        return "-";
    std::string s;
    for (size_t i = 0; i < cell.axes.size(); ++i)
        s += (i ? ", " : "") + cell.axes[i].toString();
    if (!cell.overflow.empty()) {
        s += " | ";
        for (size_t i = 0; i < cell.overflow.size(); ++i)
            s += (i ? ", " : "") + cell.overflow[i].toString();
    }
    return s;
}

std::string FactorTable::toString() const
{
    std::string out;
    for (const FactorTableRow& row : m_rows) {
        out += (row.isResult ? "result " : "operand ") + std::to_string(row.index) + ":";
        for (size_t f = 0; f < row.cells.size(); ++f)
            out +=
                std::string(f ? " |" : "") + " " + factorName(static_cast<int64_t>(f)) + "=" + cellString(row.cells[f]);
        if (!row.replicated.empty())
            out += " | replicated=" + axisListString(row.replicated);
        out += "\n";
    }
    return out;
}

TensorSharding FactorTable::rowSharding(size_t row, const MeshRef& meshRef) const
{
    const FactorTableRow& r = m_rows[row];
    const TensorFactorMapping& mapping =
        r.isResult ? m_rule.results[static_cast<size_t>(r.index)] : m_rule.operands[static_cast<size_t>(r.index)];
    return projectToTensor(mapping, m_rule.factorSizes, r.cells, meshRef, m_mesh, r.replicated, r.unreduced,
                           r.unreducedKind);
}

} // namespace shardx
