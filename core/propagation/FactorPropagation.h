// Factor propagation of one op: directions, decisions, basic (SDY.md 4.4) and aggressive (4.5).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/SdyOps.h"
#include "core/rules/ShardingProjection.h"

namespace shardx {

/// Direction of propagation along one factor: the IR's barrier direction enum.
using ir::directionName;
using ir::PropagationDirection;

/// `FORWARD ∪ BACKWARD = BOTH`, otherwise the larger (NONE < FORWARD < BACKWARD < BOTH).
PropagationDirection unionOf(PropagationDirection a, PropagationDirection b);
/// `FORWARD ∩ BACKWARD = NONE`, otherwise the smaller.
PropagationDirection intersectionOf(PropagationDirection a, PropagationDirection b);

/// The direction of each factor.
using FactorDirectionFn = std::function<PropagationDirection(int64_t factor)>;

/// Why an axis of the compatible list was cut while removing conflicts (4.4 step 2).
enum class TruncationReason {
    ConflictAcrossFactors, ///< used by another factor (axes or overflow) of some tensor
    Replicated,            ///< explicitly replicated in some tensor
    Unreduced,             ///< unreduced in some tensor
    Closed,                ///< the factor is closed in some tensor
    Overflow,              ///< the factor has overflow axes in some tensor
    NonDivisible,          ///< does not (fully) divide a non-minor-most factor
    SubAxisConservative,   ///< conservative propagation forbids sub-axes
};
const char* truncationReasonName(TruncationReason r);

/// One truncation of the compatible axes of a factor.
struct AxisTruncation {
    AxisRef axis;                      ///< the axis of the candidate list that was cut
    std::optional<AxisRef> replacedBy; ///< the shorter sub-axis kept instead (none: dropped)
    TruncationReason reason = TruncationReason::ConflictAcrossFactors;
    int tensor = -1;          ///< tensor index (operands first) that caused it
    int64_t otherFactor = -1; ///< for ConflictAcrossFactors: the conflicting factor
};

/// What factor propagation decided for one factor.
struct FactorDecision {
    int64_t factor = 0;
    PropagationDirection direction = PropagationDirection::Both;
    std::vector<AxisRef> compatible; ///< step 1 (basic) / candidate (aggressive)
    std::vector<AxisRef> result;     ///< after conflict removal (basic) / the candidate kept
    std::vector<AxisTruncation> truncations;
    std::vector<int> expandedTensors; ///< tensors whose axes were expanded
    // aggressive only
    int sourceTensor = -1;   ///< tensor chosen as source (-1 none)
    int64_t sourceSize = -1; ///< its T-size (product of its factor sizes)
    int order = -1;          ///< position of the factor in the aggressive order
};

/// Every factor decision of one propagation step.
struct PropagationDecisions {
    std::vector<FactorDecision> factors;
};

/// Which tensors were updated (operands first, then results).
struct UpdatedTensors {
    std::vector<bool> operands;
    std::vector<bool> results;
    bool any() const;
};

/// Inputs shared by both strategies.
struct FactorPropagationInput {
    const OpShardingRule* rule = nullptr;
    const Mesh* mesh = nullptr;
    FactorDirectionFn direction; ///< null = BOTH for every factor
    bool conservative = false;
    bool elementwise = false; ///< the op is element-wise (4.11; aggressive only)
};

/// Direction of factor `f`: NONE for blocked-propagation factors, else `in.direction(f)`.
PropagationDirection factorDirection(const FactorPropagationInput& in, int64_t f);

/// Step 1 of 4.4: merge `axes` into `acc` (both major to minor), updating `canExpand`.
std::vector<AxisRef> mergeCompatibleAxes(const std::vector<AxisRef>& acc, const std::vector<AxisRef>& axes,
                                         bool& canExpand, const Mesh& mesh);
/// Step 1 of 4.4 for factor `f` over every tensor of `p`.
std::vector<AxisRef> compatibleMajorAxes(const ShardingProjection& p, int64_t f, PropagationDirection dir,
                                         const Mesh& mesh);

/// The *across-factor* rule: the prefix of `axis` that overlaps no axis or overflow axis of
/// any factor of `t` other than `f`; nullopt when none. `otherFactor` gets the culprit.
std::optional<AxisRef> prefixNoConflictAcrossFactors(const AxisRef& axis, const TensorFactorShardings& t, int64_t f,
                                                     int64_t* otherFactor = nullptr);
/// The *within-factor* rule on tensor `t` that has factor `f`; `reason` gets why it was cut.
std::optional<AxisRef> prefixNoConflictWithinFactor(const AxisRef& axis, const TensorFactorShardings& t, int64_t f,
                                                    int64_t prevShardedSize, int64_t factorSize, const Mesh& mesh,
                                                    TruncationReason* reason = nullptr);

/// Basic factor propagation (SDY.md 4.4) on `p` in place. Fills `decisions` when given.
UpdatedTensors propagateBasic(ShardingProjection& p, const FactorPropagationInput& in,
                              PropagationDecisions* decisions = nullptr);

/// Aggressive factor propagation (SDY.md 4.5) on `p` in place. Fills `decisions` when given.
UpdatedTensors propagateAggressive(ShardingProjection& p, const FactorPropagationInput& in,
                                   PropagationDecisions* decisions = nullptr);

} // namespace shardx
