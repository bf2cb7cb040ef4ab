// Factor propagation (FactorPropagation.h): the basic propagation of one op (SDY.md 4.4), the shared conflict rules.
#include <algorithm>
#include <numeric>

#include "core/propagation/FactorPropagation.h"

namespace shardx {

PropagationDirection unionOf(PropagationDirection a, PropagationDirection b)
{
    if ((a == PropagationDirection::Forward && b == PropagationDirection::Backward) ||
        (a == PropagationDirection::Backward && b == PropagationDirection::Forward))
        return PropagationDirection::Both;
    return static_cast<int>(a) > static_cast<int>(b) ? a : b;
}

PropagationDirection intersectionOf(PropagationDirection a, PropagationDirection b)
{
    if ((a == PropagationDirection::Forward && b == PropagationDirection::Backward) ||
        (a == PropagationDirection::Backward && b == PropagationDirection::Forward))
        return PropagationDirection::None;
    return static_cast<int>(a) < static_cast<int>(b) ? a : b;
}

const char* truncationReasonName(TruncationReason r)
{
    switch (r) {
    case TruncationReason::ConflictAcrossFactors: return "conflict with another factor";
    case TruncationReason::Replicated: return "explicitly replicated";
    case TruncationReason::Unreduced: return "unreduced";
    case TruncationReason::Closed: return "closed";
    case TruncationReason::Overflow: return "overflow";
    case TruncationReason::NonDivisible: return "non-divisible";
    case TruncationReason::SubAxisConservative: return "sub-axis (conservative)";
    }
    return "";
}

bool UpdatedTensors::any() const
{
    return std::find(operands.begin(), operands.end(), true) != operands.end() ||
           std::find(results.begin(), results.end(), true) != results.end();
}

std::vector<AxisRef> mergeCompatibleAxes(const std::vector<AxisRef>& acc, const std::vector<AxisRef>& axes,
                                         bool& canExpand, const Mesh& mesh)
{
    std::vector<AxisRef> out;
    const size_t n = std::min(acc.size(), axes.size());
    for (size_t i = 0; i < n; ++i) {
        const AxisRef& oldAxis = acc[i];
        const AxisRef& newAxis = axes[i];
        if (oldAxis == newAxis) {
            out.push_back(oldAxis);
            continue;
        }
        if (isPrefixOf(newAxis, oldAxis, mesh)) {
            if (axes.size() > acc.size()) {
                out.push_back(newAxis);
                canExpand = false;
                return out;
            }
            out.push_back(oldAxis);
            continue;
        }
        if (isPrefixOf(oldAxis, newAxis, mesh)) {
            if (!canExpand || acc.size() > axes.size()) {
                out.push_back(oldAxis);
                canExpand = false;
                return out;
            }
            out.push_back(newAxis);
            continue;
        }
        canExpand = false;
        return out;
    }
    for (size_t i = n; i < acc.size(); ++i)
        out.push_back(acc[i]);
    if (canExpand)
        for (size_t i = n; i < axes.size(); ++i)
            out.push_back(axes[i]);
    return out;
}

std::vector<AxisRef> compatibleMajorAxes(const ShardingProjection& p, int64_t f, PropagationDirection dir,
                                         const Mesh& mesh)
{
    std::vector<AxisRef> acc;
    if (dir == PropagationDirection::None)
        return acc;
    bool canExpand = true;
    auto fold = [&](const std::vector<TensorFactorShardings>& tensors) {
        for (const TensorFactorShardings& t : tensors)
            if (const FactorSharding* fs = t.find(f))
                acc = mergeCompatibleAxes(acc, fs->axes, canExpand, mesh);
    };
    const bool backward = dir == PropagationDirection::Backward;
    fold(backward ? p.results : p.operands);
    if (dir != PropagationDirection::Both)
        canExpand = false;
    fold(backward ? p.operands : p.results);
    return acc;
}

namespace {

std::optional<AxisRef> prefixWithoutOverlapList(std::optional<AxisRef> axis, const std::vector<AxisRef>& list)
{
    for (const AxisRef& other : list) {
        if (!axis || !canCoexist(*axis, other))
            return std::nullopt;
        axis = prefixWithoutOverlap(*axis, other);
    }
    return axis;
}

} // namespace

std::optional<AxisRef> prefixNoConflictAcrossFactors(const AxisRef& axis, const TensorFactorShardings& t, int64_t f,
                                                     int64_t* otherFactor)
{
    std::optional<AxisRef> y = axis;
    for (const auto& [g, fs] : t.factors) {
        if (g == f)
            continue;
        std::optional<AxisRef> before = y;
        y = prefixWithoutOverlapList(y, fs.overflowAxes);
        y = prefixWithoutOverlapList(y, fs.axes);
        if (otherFactor && !(y == before))
            *otherFactor = g;
        if (!y)
            return std::nullopt;
    }
    return y;
}

std::optional<AxisRef> prefixNoConflictWithinFactor(const AxisRef& axis, const TensorFactorShardings& t, int64_t f,
                                                    int64_t prevShardedSize, int64_t factorSize, const Mesh& mesh,
                                                    TruncationReason* reason)
{
    std::optional<AxisRef> y = prefixWithoutOverlapList(axis, t.replicated);
    if (!(y == std::optional<AxisRef>(axis))) {
        if (reason)
            *reason = TruncationReason::Replicated;
        if (!y)
            return std::nullopt;
    }
    std::optional<AxisRef> before = y;
    y = prefixWithoutOverlapList(y, t.unreduced);
    if (!(y == before)) {
        if (reason)
            *reason = TruncationReason::Unreduced;
        if (!y)
            return std::nullopt;
    }
    const FactorSharding* fs = t.find(f);
    if (!fs)
        return y;
    for (const AxisRef& a : fs->axes)
        if (contains(a, *y, mesh))
            return y;
    if (!fs->closed && fs->overflowAxes.empty()) {
        if (fs->minorMost)
            return y;
        if (prevShardedSize > 0 && factorSize % prevShardedSize == 0) {
            const int64_t ySize = y->size(mesh);
            const int64_t g = std::gcd(factorSize / prevShardedSize, ySize);
            if (g == ySize)
                return y;
            if (g > 1) {
                if (reason)
                    *reason = TruncationReason::NonDivisible;
                return AxisRef(y->name, y->preSize(), g);
            }
        }
    }
    if (reason)
        *reason = !fs->overflowAxes.empty() ? TruncationReason::Overflow
                  : fs->closed              ? TruncationReason::Closed
                                            : TruncationReason::NonDivisible;
    if (!fs->axes.empty() && isPrefixOf(fs->axes.back(), *y, mesh))
        return fs->axes.back();
    return std::nullopt;
}

namespace {

/// Step 2 of 4.4: cuts `acc` at the first axis that conflicts somewhere.
void removeConflicts(std::vector<AxisRef>& acc, const ShardingProjection& p, int64_t f,
                     const FactorPropagationInput& in, FactorDecision* decision)
{
    const Mesh& mesh = *in.mesh;
    const int64_t factorSize = in.rule->factorSizes[static_cast<size_t>(f)];
    int64_t prev = 1;
    for (size_t i = 0; i < acc.size(); ++i) {
        const AxisRef x = acc[i];
        std::optional<AxisRef> y = x;
        AxisTruncation trunc;
        trunc.axis = x;
        bool recorded = false;
        for (int t = 0; t < p.numTensors() && y; ++t) {
            const TensorFactorShardings& table = p.tensor(t);
            std::optional<AxisRef> before = y;
            int64_t other = -1;
            y = prefixNoConflictAcrossFactors(*y, table, f, &other);
            if (!(y == before) && !recorded) {
                trunc.reason = TruncationReason::ConflictAcrossFactors;
                trunc.tensor = t;
                trunc.otherFactor = other;
                recorded = true;
            }
            if (!y || !table.hasFactor(f))
                continue;
            before = y;
            TruncationReason reason = TruncationReason::Closed;
            y = prefixNoConflictWithinFactor(*y, table, f, prev, factorSize, mesh, &reason);
            if (!(y == before) && !recorded) {
                trunc.reason = reason;
                trunc.tensor = t;
                recorded = true;
            }
        }
        if (!y || (in.conservative && y->isSubAxis())) {
            if (decision) {
                if (y && !recorded)
                    trunc.reason = TruncationReason::SubAxisConservative;
                trunc.replacedBy.reset();
                decision->truncations.push_back(trunc);
            }
            acc.resize(i);
            return;
        }
        if (!(*y == x)) {
            if (decision) {
                trunc.replacedBy = y;
                decision->truncations.push_back(trunc);
            }
            acc[i] = *y;
            acc.resize(i + 1);
            return;
        }
        prev *= y->size(mesh);
    }
}

bool isBlocked(const OpShardingRule& rule, int64_t f)
{
    return std::find(rule.blockedPropagationFactors.begin(), rule.blockedPropagationFactors.end(), f) !=
           rule.blockedPropagationFactors.end();
}

} // namespace

PropagationDirection factorDirection(const FactorPropagationInput& in, int64_t f)
{
    if (isBlocked(*in.rule, f))
        return PropagationDirection::None;
    return in.direction ? in.direction(f) : PropagationDirection::Both;
}

UpdatedTensors propagateBasic(ShardingProjection& p, const FactorPropagationInput& in, PropagationDecisions* decisions)
{
    UpdatedTensors updated;
    updated.operands.assign(p.operands.size(), false);
    updated.results.assign(p.results.size(), false);
    const Mesh& mesh = *in.mesh;
    for (int64_t f = 0; f < in.rule->numFactors(); ++f) {
        FactorDecision decision;
        decision.factor = f;
        decision.direction = factorDirection(in, f);
        std::vector<AxisRef> acc = compatibleMajorAxes(p, f, decision.direction, mesh);
        decision.compatible = acc;
        if (!acc.empty())
            removeConflicts(acc, p, f, in, decisions ? &decision : nullptr);
        decision.result = acc;
        for (int t = 0; t < p.numTensors(); ++t) {
            FactorSharding* fs = p.tensor(t).find(f);
            if (!fs || !isStrictPrefix(fs->axes, acc, mesh))
                continue;
            fs->axes = acc;
            if (t < p.numOperands())
                updated.operands[static_cast<size_t>(t)] = true;
            else
                updated.results[static_cast<size_t>(t - p.numOperands())] = true;
            decision.expandedTensors.push_back(t);
        }
        if (decisions)
            decisions->factors.push_back(std::move(decision));
    }
    return updated;
}

} // namespace shardx
