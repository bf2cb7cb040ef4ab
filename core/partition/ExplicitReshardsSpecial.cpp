// ExplicitReshards (ExplicitReshards.h): special cases (reshape with overflow axes, the non-full dot) (SDY.md 3.8).
#include <algorithm>
#include <map>
#include <numeric>

#include "core/partition/ExplicitReshardsInternal.h"

namespace shardx::reshards {

namespace {

int64_t sideProduct(const TensorFactorShardings& t, const Mesh& mesh)
{
    int64_t p = 1;
    for (const auto& [f, fs] : t.factors)
        p *= axesProduct(fs.axes, mesh) * axesProduct(fs.overflowAxes, mesh);
    return p;
}

bool hasOverflow(const TensorFactorShardings& t)
{
    for (const auto& [f, fs] : t.factors)
        if (!fs.overflowAxes.empty())
            return true;
    return false;
}

/// Distributes `axes` over the factors of `mapping` in order (SDY.md 3.8 reshape).
TensorFactorShardings redistribute(const std::vector<AxisRef>& axes, const TensorFactorMapping& mapping,
                                   const OpShardingRule& rule, const TensorFactorShardings& original, const Mesh& mesh)
{
    TensorFactorShardings table = original;
    std::vector<int64_t> order;
    for (const DimFactors& d : mapping)
        for (int64_t f : d) {
            order.push_back(f);
            table.factors[f].axes.clear();
            table.factors[f].overflowAxes.clear();
        }
    if (order.empty())
        return table;
    std::map<int64_t, int64_t> remaining;
    for (int64_t f : order)
        remaining[f] = rule.factorSizes[static_cast<size_t>(f)];
    for (size_t i = 0; i < axes.size(); ++i) {
        // Each axis is offered from the first factor on; the rest of a split axis goes on to
        // the later factors.
        size_t cur = 0;
        AxisRef a = axes[i];
        bool placed = false;
        while (cur < order.size()) {
            const int64_t f = order[cur];
            const int64_t size = a.size(mesh);
            const int64_t g = std::gcd(remaining[f], size);
            if (remaining[f] <= 1 || g <= 1) {
                ++cur;
                continue;
            }
            if (g == size) {
                addAxisOrMerge(table.factors[f].axes, a, mesh);
                remaining[f] /= g;
                placed = true;
                break;
            }
            table.factors[f].axes.push_back(AxisRef(a.name, a.preSize(), g));
            remaining[f] /= g;
            a = AxisRef(a.name, a.preSize() * g, size / g);
            ++cur;
        }
        if (!placed) {
            std::vector<AxisRef>& overflow = table.factors[order.back()].overflowAxes;
            addAxisOrMerge(overflow, a, mesh);
            for (size_t j = i + 1; j < axes.size(); ++j)
                addAxisOrMerge(overflow, axes[j], mesh);
            break;
        }
    }
    return table;
}

std::vector<AxisRef> commonPrefix(const std::vector<AxisRef>& a, const std::vector<AxisRef>& b, const Mesh& mesh)
{
    std::vector<AxisRef> out;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        if (a[i] == b[i]) {
            out.push_back(a[i]);
            continue;
        }
        if (auto p = greatestCommonPrefix(a[i], b[i], mesh))
            out.push_back(*p);
        break;
    }
    return out;
}

} // namespace

bool reshapeOverflowCommonAxes(const FactorProblem& problem, std::vector<std::vector<AxisRef>>& common)
{
    const ShardingProjection& proj = *problem.projection;
    const OpShardingRule& rule = *problem.rule;
    const Mesh& mesh = *problem.mesh;
    if (proj.numOperands() != 1 || proj.numResults() != 1)
        return false;
    if (!hasOverflow(proj.operands[0]) && !hasOverflow(proj.results[0]))
        return false;
    const bool fromResult = sideProduct(proj.results[0], mesh) > sideProduct(proj.operands[0], mesh);
    const TensorFactorShardings& src = fromResult ? proj.results[0] : proj.operands[0];
    const TensorFactorMapping& srcMapping = fromResult ? rule.results[0] : rule.operands[0];
    std::vector<AxisRef> axes;
    for (const DimFactors& d : srcMapping)
        for (int64_t f : d)
            if (const FactorSharding* fs = src.find(f)) {
                axes.insert(axes.end(), fs->axes.begin(), fs->axes.end());
                axes.insert(axes.end(), fs->overflowAxes.begin(), fs->overflowAxes.end());
            }
    std::vector<TensorFactorShardings> sides;
    for (int t = 0; t < 2; ++t) {
        const TensorFactorMapping& mapping = t == 0 ? rule.operands[0] : rule.results[0];
        TensorFactorShardings table = redistribute(axes, mapping, rule, proj.tensor(t), mesh);
        TensorSharding dims = backProject(table, mapping, rule.factorSizes, "", mesh);
        sides.push_back(projectTensor(&dims, mapping, rule.factorSizes, mesh, true));
    }
    common.assign(static_cast<size_t>(rule.numFactors()), {});
    for (int64_t f = 0; f < rule.numFactors(); ++f) {
        const FactorSharding* a = sides[0].find(f);
        const FactorSharding* b = sides[1].find(f);
        if (a && b)
            common[static_cast<size_t>(f)] = commonPrefix(a->axes, b->axes, mesh);
        else if (a || b)
            common[static_cast<size_t>(f)] = (a ? a : b)->axes;
    }
    return true;
}

bool dotSpecialCase(const FactorProblem& problem, ShardingProjection& projection, bool)
{
    if (projection.numOperands() != 2 || projection.numResults() != 1)
        return false;
    const OpShardingRule& rule = *problem.rule;
    const TensorFactorShardings& lhs = projection.operands[0];
    const TensorFactorShardings& rhs = projection.operands[1];
    TensorFactorShardings& res = projection.results[0];
    std::vector<AxisRef> lhsOnly, rhsOnly;
    for (const auto& [f, fs] : lhs.factors) {
        if (const FactorSharding* o = rhs.find(f)) {
            if (o->axes != fs.axes)
                return false;
        } else {
            lhsOnly.insert(lhsOnly.end(), fs.axes.begin(), fs.axes.end());
        }
    }
    for (const auto& [f, fs] : rhs.factors)
        if (!lhs.hasFactor(f))
            rhsOnly.insert(rhsOnly.end(), fs.axes.begin(), fs.axes.end());
    for (const AxisRef& a : lhsOnly)
        for (const AxisRef& b : rhsOnly)
            if (overlaps(a, b))
                return false;
    std::vector<AxisRef> contracting;
    for (int64_t f : rule.reductionFactors)
        if (const FactorSharding* fs = lhs.find(f))
            contracting.insert(contracting.end(), fs->axes.begin(), fs->axes.end());
    int64_t differing = -1;
    const std::vector<AxisRef>* operandAxes = nullptr;
    int64_t operandSize = 0;
    for (const auto& [f, fs] : res.factors) {
        const FactorSharding* l = lhs.find(f);
        const FactorSharding* r = rhs.find(f);
        const FactorSharding* o = l ? l : r;
        if (!o || o->axes == fs.axes)
            continue;
        if (differing >= 0)
            return false;
        differing = f;
        operandAxes = &o->axes;
        if (l && r)
            operandSize = std::max(problem.tensorSizes[0], problem.tensorSizes[1]);
        else
            operandSize = problem.tensorSizes[l ? 0 : 1];
    }
    if (differing < 0 || operandAxes->empty())
        return false;
    if (problem.tensorSizes[2] > operandSize)
        return false;
    FactorSharding* target = res.find(differing);
    if (target->axes != contracting)
        return false;
    target->axes = *operandAxes;
    target->overflowAxes.clear();
    return true;
}

} // namespace shardx::reshards
