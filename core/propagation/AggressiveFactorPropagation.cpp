// Factor propagation (FactorPropagation.h): the aggressive propagation of one op (SDY.md 4.5).
#include <algorithm>
#include <numeric>

#include "core/propagation/FactorPropagation.h"

namespace shardx {

namespace {

/// `prefix` equals the first elements of `axes`.
bool isListPrefix(const std::vector<AxisRef>& prefix, const std::vector<AxisRef>& axes)
{
    if (prefix.size() > axes.size())
        return false;
    return std::equal(prefix.begin(), prefix.end(), axes.begin());
}

int64_t tensorSize(const TensorFactorShardings& t, const OpShardingRule& rule)
{
    int64_t size = 1;
    for (const auto& entry : t.factors)
        size *= rule.factorSizes[static_cast<size_t>(entry.first)];
    return size;
}

/// Truncation loop of 4.4 step 2 with a per-axis rule. `cut(axis, kept, conservative)` is told
/// where the list was cut: `kept` is the sub-axis kept in place of `axis` (none: dropped), and
/// `conservative` is set when only conservative propagation's ban on sub-axes dropped it.
template <typename Fn, typename Cut>
void truncateAxes(std::vector<AxisRef>& axes, const Mesh& mesh, bool conservative, Fn&& rule, Cut&& cut)
{
    int64_t prev = 1;
    for (size_t i = 0; i < axes.size(); ++i) {
        std::optional<AxisRef> y = rule(axes[i], prev);
        if (!y || (conservative && y->isSubAxis())) {
            cut(axes[i], std::optional<AxisRef>(), y.has_value());
            axes.resize(i);
            return;
        }
        prev *= y->size(mesh);
        if (!(*y == axes[i])) {
            cut(axes[i], y, false);
            axes[i] = *y;
            axes.resize(i + 1);
            return;
        }
    }
}

} // namespace

UpdatedTensors propagateAggressive(ShardingProjection& p, const FactorPropagationInput& in,
                                   PropagationDecisions* decisions)
{
    UpdatedTensors updated;
    updated.operands.assign(p.operands.size(), false);
    updated.results.assign(p.results.size(), false);
    const Mesh& mesh = *in.mesh;
    const OpShardingRule& rule = *in.rule;
    const int64_t numFactors = rule.numFactors();

    std::vector<FactorDecision> decs(static_cast<size_t>(numFactors));
    std::vector<std::vector<AxisRef>> cand(static_cast<size_t>(numFactors));
    bool anyCandidate = false;
    for (int64_t f = 0; f < numFactors; ++f) {
        FactorDecision& d = decs[static_cast<size_t>(f)];
        d.factor = f;
        d.direction = factorDirection(in, f);
        cand[static_cast<size_t>(f)] = compatibleMajorAxes(p, f, d.direction, mesh);
        if (decisions) // the decision record is only kept for an observer
            d.compatible = cand[static_cast<size_t>(f)];
        anyCandidate = anyCandidate || !cand[static_cast<size_t>(f)].empty();
    }
    auto finish = [&] {
        if (decisions)
            for (FactorDecision& d : decs)
                decisions->factors.push_back(std::move(d));
    };
    if (!anyCandidate) {
        finish();
        return updated;
    }

    // Source tensor of each factor: the largest tensor whose axes start with the candidate.
    for (int64_t f = 0; f < numFactors; ++f) {
        FactorDecision& d = decs[static_cast<size_t>(f)];
        const std::vector<AxisRef>& c = cand[static_cast<size_t>(f)];
        if (c.empty())
            continue;
        for (int t = 0; t < p.numTensors(); ++t) {
            const FactorSharding* fs = p.tensor(t).find(f);
            if (!fs || !isListPrefix(c, fs->axes))
                continue;
            const int64_t size = tensorSize(p.tensor(t), rule);
            if (size > d.sourceSize) {
                d.sourceSize = size;
                d.sourceTensor = t;
            }
        }
    }

    std::vector<int64_t> order(static_cast<size_t>(numFactors));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        const FactorDecision& da = decs[static_cast<size_t>(a)];
        const FactorDecision& db = decs[static_cast<size_t>(b)];
        if (da.sourceSize != db.sourceSize)
            return da.sourceSize > db.sourceSize;
        if (in.elementwise) {
            const int64_t sa = axesProduct(cand[static_cast<size_t>(a)], mesh);
            const int64_t sb = axesProduct(cand[static_cast<size_t>(b)], mesh);
            if (sa != sb)
                return sa > sb;
        }
        if (da.sourceTensor != db.sourceTensor)
            return da.sourceTensor < db.sourceTensor;
        return a < b;
    });
    for (size_t i = 0; i < order.size(); ++i)
        decs[static_cast<size_t>(order[i])].order = static_cast<int>(i);

    auto visitTensor = [&](int t) {
        TensorFactorShardings& table = p.tensor(t);
        const bool isOperand = t < p.numOperands();
        for (int64_t f : order) {
            FactorSharding* fs = table.find(f);
            if (!fs)
                continue;
            const int64_t factorSize = rule.factorSizes[static_cast<size_t>(f)];
            std::vector<AxisRef> axes = cand[static_cast<size_t>(f)];
            // Cuts are recorded (for the trace) against this tensor, which caused them.
            std::vector<AxisTruncation> cuts;
            TruncationReason reason = TruncationReason::Closed;
            int64_t other = -1;
            auto record = [&](const AxisRef& axis, const std::optional<AxisRef>& kept, bool conservativeOnly) {
                if (!decisions)
                    return;
                AxisTruncation tr;
                tr.axis = axis;
                tr.replacedBy = kept;
                tr.reason = conservativeOnly ? TruncationReason::SubAxisConservative : reason;
                tr.tensor = t;
                tr.otherFactor = tr.reason == TruncationReason::ConflictAcrossFactors ? other : -1;
                cuts.push_back(tr);
            };
            truncateAxes(
                axes, mesh, in.conservative,
                [&](const AxisRef& a, int64_t prev) {
                    return prefixNoConflictWithinFactor(a, table, f, prev, factorSize, mesh, &reason);
                },
                record);
            auto keepCuts = [&] {
                for (AxisTruncation& tr : cuts)
                    decs[static_cast<size_t>(f)].truncations.push_back(std::move(tr));
                cuts.clear();
            };
            if (!isStrictPrefix(fs->axes, axes, mesh)) {
                keepCuts();
                continue;
            }
            reason = TruncationReason::ConflictAcrossFactors;
            truncateAxes(
                axes, mesh, in.conservative,
                [&](const AxisRef& a, int64_t) { return prefixNoConflictAcrossFactors(a, table, f, &other); }, record);
            keepCuts();
            if (isOperand && in.elementwise) {
                for (const TensorFactorShardings& r : p.results) {
                    const FactorSharding* rf = r.find(f);
                    if (rf && isStrictPrefix(rf->axes, axes, mesh))
                        axes = rf->axes;
                }
            }
            if (axes.empty() || !isStrictPrefix(fs->axes, axes, mesh))
                continue;
            fs->axes = axes;
            if (isOperand)
                updated.operands[static_cast<size_t>(t)] = true;
            else
                updated.results[static_cast<size_t>(t - p.numOperands())] = true;
            if (decisions) {
                FactorDecision& d = decs[static_cast<size_t>(f)];
                d.expandedTensors.push_back(t);
                d.result = axes;
            }
        }
    };
    for (int r = 0; r < p.numResults(); ++r)
        visitTensor(p.numOperands() + r);
    for (int o = 0; o < p.numOperands(); ++o)
        visitTensor(o);
    finish();
    return updated;
}

} // namespace shardx
