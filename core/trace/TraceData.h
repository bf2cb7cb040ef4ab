// TraceData: what a trace records: values, ops, the tree of nodes, steps, their changes and
// decisions, and the pools steps refer to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/propagation/FactorPropagation.h"
#include "core/rules/ShardingProjection.h"
#include "core/sharding/OpShardingRule.h"
#include "core/sharding/TensorSharding.h"

namespace shardx {

/// Field-wise equality of the decisions (FactorPropagation.h declares none).
bool operator==(const AxisTruncation& a, const AxisTruncation& b);
bool operator==(const FactorDecision& a, const FactorDecision& b);

/// A value seen by the recorder (an SSA value or a function result attribute).
struct TraceValue {
    std::string id;          ///< ir::ProgramValue::id: `@f:%arg0`, `@f:%3`, `@f:%3/%arg1`, `@f:result0`
    std::string displayName; ///< as the file prints it: `%arg0`, `%3`, `%1#2`, `result 0`
    int scope = -1;          ///< TraceData::scopes: name scope of the op's / argument's `loc("...")`
    int op = -1;             ///< index in Trace::ops() of the defining op, -1 for arguments and results
    int derivedFrom = -1;    ///< for a value a pass inserted: the user's value it stands for, else -1
    bool operator==(const TraceValue& o) const = default;
};

/// An op seen by the recorder.
struct TraceOp {
    std::string id;          ///< ir::ProgramOp::id: `@f:%3`, `@f:sdy.sharding_group#0`, `@f` for a function
    std::string name;        ///< `stablehlo.add`
    int scope = -1;          ///< TraceData::scopes: name scope of its `loc("...")`, -1 for none
    std::string displayName; ///< its result list as the file prints it (`%3`, `%0:2`), or its symbol
    bool operator==(const TraceOp& o) const = default;
};

/// Structural levels of the trace tree, outermost first (a stage sits at the level of a pass,
/// or inside one).
enum class TraceNodeKind { Pass, Stage, UserPriority, OpPriorityRound, Run };
const char* traceNodeKindName(TraceNodeKind k);

/// A node of the tree pass -> user-priority iteration -> op-priority round -> run, or a stage.
struct TraceNode {
    TraceNodeKind kind = TraceNodeKind::Pass;
    int parent = -1;    ///< index of the enclosing node, -1 at the top
    std::string label;  ///< pass name / strategy / stage name
    int64_t number = 0; ///< user priority / round level
    int firstStep = 0;  ///< steps [firstStep, endStep) happened inside this node
    int endStep = 0;
    bool operator==(const TraceNode& o) const = default;
};

/// What a step was.
enum class TraceStepKind {
    Op,
    Barrier,
    DataFlowEdge,
    FuncDataFlowEdge,
    FuncResult,
    ApplyConstraint,
    GroupCopy, ///< a sharding copied to another member of a sharding group
    GroupSync, ///< a sharding group synchronised (no factor tables)
    Skipped,   ///< an op visited but no step taken (see `note`)
    Erased,    ///< a dead op erased
    Stage,     ///< the shardings a stage changed: a pipeline import/export step, a pass without
               ///< steps, user-priority parking/restoring (`note`: the stage's name)
};
const char* traceStepKindName(TraceStepKind k);

/// Which rule decided the new axes of a factor (SDY.md 4.4-4.7, 4.10).
enum class DecisionKind {
    CompatiblePrefix,      ///< the compatible prefix of all tensors was kept whole
    ConflictAcrossFactors, ///< an axis was cut: used by factor `otherFactor` of tensor `culpritTensor`
    ExplicitlyReplicated,  ///< an axis was cut: explicitly replicated in `culpritTensor`
    ExplicitlyUnreduced,   ///< an axis was cut: unreduced in `culpritTensor`
    ClosedDimension,       ///< an axis was cut: the factor is closed in `culpritTensor`
    Overflow,              ///< an axis was cut: the factor overflows in `culpritTensor`
    NonDivisible,          ///< an axis was cut: it does not divide the factor
    SubAxisConservative,   ///< an axis was cut: conservative propagation forbids sub-axes
    AggressiveChoice,      ///< aggressive: the sharding of `sourceTensor` (T-size `sourceSize`) won
    FuncResultStep,        ///< returned value <-> function result attribute
    ShardingConstraint,    ///< sdy-apply-sharding-constraints copied a constraint to its input
    ShardingGroupCopy,     ///< copied from another member of sharding group `group`
    UserPriorityHeldBack,  ///< axes of a higher user priority parked (replicated) for now
    UserPriorityRestored,  ///< axes of user priority `userPriority` restored
    ShardingGroupSync,     ///< made equal to the other members of sharding group `group`
    Import,                ///< set by an import stage of the pipeline (the step's `note`)
    Export,                ///< set by an export stage of the pipeline (the step's `note`)
    PassStage,             ///< set by a pass that reports no propagation steps (the step's `note`)
    External,              ///< changed where no stage was reported (the step's `note` says where)
};
const char* decisionKindName(DecisionKind k);
std::optional<DecisionKind> decisionKindFromName(const std::string& name);

/// The decision behind one factor change.
struct TraceDecision {
    DecisionKind kind = DecisionKind::CompatiblePrefix;
    std::optional<AxisRef> axis;       ///< the cut axis (truncations)
    std::optional<AxisRef> replacedBy; ///< the sub-axis kept instead of `axis`
    int culpritTensor = -1;            ///< tensor that caused the cut
    int64_t otherFactor = -1;          ///< ConflictAcrossFactors: the factor using the axis
    int sourceTensor = -1;             ///< AggressiveChoice: the winning tensor
    int64_t sourceSize = -1;           ///< AggressiveChoice: its T-size
    int64_t runnerUpSize = -1;         ///< AggressiveChoice: largest T-size of another candidate
    bool operator==(const TraceDecision& o) const = default;
};

/// A factor whose axes changed in one tensor of a step.
struct TraceFactorChange {
    int dim = -1; ///< dimension of the tensor holding the factor
    int64_t factor = -1;
    std::vector<AxisRef> before, after;
    std::vector<int> sources; ///< tensors whose old axes already started with `after`
    std::vector<int> targets; ///< tensors of the step whose axes for this factor changed
    TraceDecision decision;
    bool operator==(const TraceFactorChange& o) const = default;
};

/// One value whose sharding a step changed. Shardings are ids in TraceData::shardings.
struct TraceChange {
    int value = -1;   ///< index in Trace::values()
    int tensor = -1;  ///< tensor index in the step (operands first), -1 outside steps
    int before = -1;  ///< sharding id before the step, -1 for none
    int after = -1;   ///< sharding id after the step, -1 for none
    int factors = -1; ///< TraceData::factorChangeSets: the factors whose axes changed, -1 for none
    DecisionKind kind = DecisionKind::CompatiblePrefix; ///< of the whole change (non-factor steps)
    bool operator==(const TraceChange& o) const = default;
};

/// One observed step (op visit, edge, func result, group copy, ...).
struct TraceStep {
    TraceStepKind kind = TraceStepKind::Op;
    int node = -1;       ///< innermost enclosing TraceNode
    int op = -1;         ///< index in Trace::ops(), -1 when none
    int funcResult = -1; ///< FuncResult steps
    std::string meshName;
    bool aggressive = false;
    int round = -1;            ///< op-priority round level, -1 outside rounds
    int64_t userPriority = -1; ///< user priority iteration, -1 outside
    int64_t group = -1;        ///< GroupCopy / GroupSync
    std::string note;          ///< Skipped: reason; GroupSync: "conflict" or ""; Stage: its name
    int numOperands = 0;
    std::vector<int> tensorValues; ///< value index per tensor (operands first), -1 for none
    int rule = -1;                 ///< TraceData::rules: dims -> factors per tensor, factor sizes
    int before = -1;               ///< TraceData::tables: the factor tables before the step
    int after = -1;                ///< TraceData::tables: and after
    int decisions = -1;            ///< TraceData::decisionSets: per-factor decisions
    std::vector<TraceChange> changes;
    bool operator==(const TraceStep& o) const = default;
};

/// The sharding rule of a step: factors per dimension of every tensor (operands first) and
/// the factor sizes.
struct TraceRule {
    std::vector<TensorFactorMapping> mappings;
    std::vector<int64_t> factorSizes;
    bool operator==(const TraceRule& o) const = default;
};

/// Everything recorded; the payload of a Trace. Shardings, rules, factor tables and decision
/// sets are pooled: a step refers to them by index, and equal contents share one entry (a
/// 100-layer model repeats the same few hundred tables), which keeps a step to a few hundred
/// bytes.
struct TraceData {
    std::vector<TraceValue> values;
    std::vector<TraceOp> ops;
    std::vector<TraceNode> nodes;
    std::vector<TraceStep> steps;
    std::vector<std::string> scopes;                              ///< pool: TraceValue::scope, TraceOp::scope
    std::vector<TensorSharding> shardings;                        ///< pool: TraceChange::before/after, initial
    std::vector<TraceRule> rules;                                 ///< pool: TraceStep::rule
    std::vector<ShardingProjection> tables;                       ///< pool: TraceStep::before/after
    std::vector<std::vector<FactorDecision>> decisionSets;        ///< pool: TraceStep::decisions
    std::vector<std::vector<TraceFactorChange>> factorChangeSets; ///< pool: TraceChange::factors
    std::vector<int> initial;                                     ///< sharding id per value before step 0, -1 for none
    bool operator==(const TraceData& o) const = default;

    /// The pooled sharding `id`, nullptr for -1 (no sharding).
    const TensorSharding* sharding(int id) const;
    /// The name scope `id`, empty for -1.
    const std::string& scopeName(int id) const;
    /// The pooled parts of a step; empty when the step has none.
    const TraceRule& rule(const TraceStep& s) const;
    const ShardingProjection& tablesBefore(const TraceStep& s) const;
    const ShardingProjection& tablesAfter(const TraceStep& s) const;
    const std::vector<FactorDecision>& decisions(const TraceStep& s) const;
    /// The factor changes of a change (empty when it has none).
    const std::vector<TraceFactorChange>& factorChanges(const TraceChange& c) const;
};

/// `"a"`, `"c":(1)4` without quotes (`a`, `c:(1)4`), and back.
std::string axisKeyText(const AxisRef& a);
std::optional<AxisRef> parseAxisKeyText(const std::string& text);

} // namespace shardx
