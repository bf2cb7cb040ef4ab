// ShardingProjection: projection of dimension shardings onto factors and back, and the table text.
#include "core/rules/ShardingProjection.h"

#include <algorithm>
#include <numeric>

namespace shardx {

const FactorSharding* TensorFactorShardings::find(int64_t f) const
{
    auto it = factors.find(f);
    return it == factors.end() ? nullptr : &it->second;
}

FactorSharding* TensorFactorShardings::find(int64_t f)
{
    auto it = factors.find(f);
    return it == factors.end() ? nullptr : &it->second;
}

std::string ShardingProjection::rowName(int t) const
{
    return (isResult(t) ? "result " : "operand ") + std::to_string(indexOf(t));
}

namespace {

/// Cursor over the axes of one dimension; the current element may be a remaining piece of
/// an axis that earlier factors split.
struct AxisCursor {
    const std::vector<AxisRef>& axes;
    size_t index = 0;
    AxisRef piece; ///< axes[index], or what earlier factors left of it

    explicit AxisCursor(const std::vector<AxisRef>& a) : axes(a)
    {
        if (!axes.empty())
            piece = axes[0];
    }
    bool hasPiece() const { return index < axes.size(); }
    void advance()
    {
        ++index;
        if (hasPiece())
            piece = axes[index];
    }
};

} // namespace

TensorFactorShardings projectTensor(const TensorSharding* sharding, const TensorFactorMapping& mapping,
                                    const std::vector<int64_t>& factorSizes, const Mesh& mesh, bool closedIfMissing)
{
    TensorFactorShardings out;
    out.hasSharding = sharding != nullptr;
    for (const DimFactors& dim : mapping) {
        for (int64_t f : dim)
            out.factors[f].closed = closedIfMissing;
        if (!dim.empty())
            out.factors[dim.back()].minorMost = true;
    }
    if (!sharding)
        return out;
    out.replicated = sharding->replicated;
    out.unreduced = sharding->unreduced;
    out.unreducedKind = sharding->unreducedKind;

    const size_t rank = std::min(mapping.size(), sharding->dims.size());
    for (size_t d = 0; d < rank; ++d) {
        const DimSharding& dimSharding = sharding->dims[d];
        const DimFactors& factors = mapping[d];
        AxisCursor cur(dimSharding.axes);
        bool overflowSeen = false;
        for (size_t j = 0; j < factors.size(); ++j) {
            FactorSharding& fs = out.factors[factors[j]];
            if (overflowSeen) {
                // Every factor after one with overflow axes is closed and empty.
                fs.closed = true;
                continue;
            }
            fs.closed = dimSharding.closed;
            if (j + 1 == factors.size()) {
                // The minor-most factor takes every remaining axis.
                while (cur.hasPiece()) {
                    addAxisOrMerge(fs.axes, cur.piece, mesh);
                    cur.advance();
                }
                break;
            }
            int64_t r = factorSizes[static_cast<size_t>(factors[j])];
            while (cur.hasPiece()) {
                // An axis unknown to the mesh (size 0) counts as size 1: never divide by it.
                const int64_t pieceSize = std::max<int64_t>(cur.piece.size(mesh), 1);
                const int64_t g = std::gcd(r, pieceSize);
                if (pieceSize != 1 && g <= 1)
                    break;
                if (pieceSize > g) {
                    // Split: the factor gets the major sub-axis, the piece keeps the rest; both stay
                    // sub-axes (SDY.md 4.3).
                    const int64_t pre = cur.piece.preSize();
                    fs.axes.push_back(AxisRef(cur.piece.name, pre, g));
                    cur.piece = AxisRef(cur.piece.name, pre * g, pieceSize / g);
                    r /= g;
                } else {
                    // A whole piece is taken as it is, not merged with the factor's previous axis.
                    fs.axes.push_back(cur.piece);
                    r /= pieceSize;
                    cur.advance();
                }
            }
            if (r > 1 && cur.hasPiece()) {
                while (cur.hasPiece()) {
                    addAxisOrMerge(fs.overflowAxes, cur.piece, mesh);
                    cur.advance();
                }
                overflowSeen = true;
            }
        }
    }
    return out;
}

ShardingProjection buildProjection(const std::vector<const TensorSharding*>& operandShardings,
                                   const std::vector<const TensorSharding*>& resultShardings,
                                   const OpShardingRule& rule, const Mesh& mesh, bool closedIfMissing)
{
    ShardingProjection p;
    for (size_t i = 0; i < rule.operands.size(); ++i)
        p.operands.push_back(projectTensor(i < operandShardings.size() ? operandShardings[i] : nullptr,
                                           rule.operands[i], rule.factorSizes, mesh, closedIfMissing));
    for (size_t i = 0; i < rule.results.size(); ++i)
        p.results.push_back(projectTensor(i < resultShardings.size() ? resultShardings[i] : nullptr, rule.results[i],
                                          rule.factorSizes, mesh, closedIfMissing));
    return p;
}

namespace {

void appendAxes(std::vector<AxisRef>& dim, const std::vector<AxisRef>& axes, const Mesh& mesh)
{
    for (size_t i = 0; i < axes.size(); ++i) {
        if (i == 0)
            addAxisOrMerge(dim, axes[i], mesh);
        else
            dim.push_back(axes[i]);
    }
}

} // namespace

TensorSharding backProject(const TensorFactorShardings& table, const TensorFactorMapping& mapping,
                           const std::vector<int64_t>& factorSizes, const std::string& meshName, const Mesh& mesh)
{
    TensorSharding s;
    s.mesh.symbol = meshName;
    for (const DimFactors& factors : mapping) {
        DimSharding dim;
        dim.closed = false;
        for (int64_t f : factors) {
            const FactorSharding* fs = table.find(f);
            if (!fs)
                break;
            dim.closed = dim.closed || fs->closed;
            appendAxes(dim.axes, fs->axes, mesh);
            if (!fs->overflowAxes.empty()) {
                appendAxes(dim.axes, fs->overflowAxes, mesh);
                break;
            }
            if (axesProduct(fs->axes, mesh) < factorSizes[static_cast<size_t>(f)])
                break;
        }
        s.dims.push_back(std::move(dim));
    }
    s.replicated = table.replicated;
    s.unreduced = table.unreduced;
    s.unreducedKind = table.unreducedKind;
    return s;
}

OpShardingRule identityRule(const std::vector<int64_t>& shape, int numOperands, int numResults)
{
    OpShardingRule rule;
    TensorFactorMapping mapping;
    for (size_t d = 0; d < shape.size(); ++d) {
        rule.factorSizes.push_back(shape[d]);
        mapping.push_back({static_cast<int64_t>(d)});
    }
    rule.operands.assign(static_cast<size_t>(numOperands), mapping);
    rule.results.assign(static_cast<size_t>(numResults), mapping);
    return rule;
}

bool isStrictPrefix(const std::vector<AxisRef>& prefix, const std::vector<AxisRef>& full, const Mesh& mesh)
{
    if (full.empty() || prefix.size() > full.size())
        return false;
    if (prefix.empty())
        return true;
    const size_t k = prefix.size();
    for (size_t i = 0; i + 1 < k; ++i)
        if (!(prefix[i] == full[i]))
            return false;
    const AxisRef& last = prefix[k - 1];
    const AxisRef& other = full[k - 1];
    if (last == other)
        return full.size() > k;
    return isPrefixOf(last, other, mesh);
}

namespace {

/// `"a", "b":(1)2` (no braces).
void appendJoined(std::string& out, const std::vector<AxisRef>& axes)
{
    for (size_t i = 0; i < axes.size(); ++i)
        out += (i ? ", " : "") + axes[i].toString();
}

} // namespace

std::string factorCellString(const FactorSharding* fs)
{
    if (!fs)
        return "N";
    if (fs->axes.empty() && fs->overflowAxes.empty())
        return "-";
    std::string s;
    appendJoined(s, fs->axes);
    if (!fs->overflowAxes.empty()) {
        s += " | ";
        appendJoined(s, fs->overflowAxes);
    }
    return s;
}

std::string factorRowString(const ShardingProjection& p, int t, int64_t numFactors)
{
    const TensorFactorShardings& row = p.tensor(t);
    std::string out = p.rowName(t) + ":";
    for (int64_t f = 0; f < numFactors; ++f)
        out += std::string(f ? " |" : "") + " " + factorName(f) + "=" + factorCellString(row.find(f));
    if (!row.replicated.empty())
        out += " | replicated=" + axisListString(row.replicated);
    if (!row.unreduced.empty()) {
        out += " | unreduced=";
        if (row.unreducedKind != ReductionKind::Sum)
            out += reductionKindName(row.unreducedKind);
        out += axisListString(row.unreduced);
    }
    return out;
}

std::string factorTableString(const ShardingProjection& p, int64_t numFactors)
{
    std::string out;
    for (int t = 0; t < p.numTensors(); ++t)
        out += factorRowString(p, t, numFactors) + "\n";
    return out;
}

} // namespace shardx
