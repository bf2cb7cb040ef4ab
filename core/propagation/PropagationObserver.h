// PropagationObserver: the hook through which a recorder / step-through debugger sees propagation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/Operation.h"
#include "core/propagation/FactorPropagation.h"
#include "core/rules/ShardingProjection.h"
#include "core/sharding/OpShardingRule.h"
#include "core/sharding/TensorSharding.h"

namespace shardx {

/// What kind of propagation step was taken.
enum class StepKind {
    Op,               ///< an op with a sharding rule
    Barrier,          ///< an sdy.propagation_barrier (identity with a restricted direction)
    DataFlowEdge,     ///< an sdy.data_flow_edge (sources -> edge)
    FuncDataFlowEdge, ///< an sdy.func_data_flow_edge
    FuncResult,       ///< returned value <-> function result attribute
    ApplyConstraint,  ///< sdy-apply-sharding-constraints copied a constraint onto its input
};

/// One sharding that a step changed.
struct ShardingChange {
    int tensor = -1;            ///< index in the step's tensors (operands first)
    ir::Value* value = nullptr; ///< the value (nullptr for a function result attribute)
    int funcResult = -1;        ///< result index for a function result attribute
    std::optional<TensorSharding> before;
    TensorSharding after;
};

/// What a stage of a pipeline that changes shardings outside propagation steps is.
enum class StageKind {
    Import, ///< an import step of the propagation pipeline (mesh lifting, constant splitting, ...)
    Export, ///< an export step of the propagation pipeline (sinking edges, closing shardings, ...)
    Pass,   ///< a whole pass that reports no propagation steps (-canonicalize, explicit reshards, ...)
};
const char* stageKindName(StageKind k);

/// Everything about one propagation step (one call of the factor propagation). `rule` (and the
/// ops/values) are only guaranteed valid during the observer call: copy what must be kept.
struct PropagationStep {
    StepKind kind = StepKind::Op;
    ir::Op* op = nullptr;     ///< the op, edge op, or func.func (func-result steps)
    int funcResultIndex = -1; ///< FuncResult steps: the function result involved
    const OpShardingRule* rule = nullptr;
    std::string meshName;
    bool aggressive = false;
    int numOperands = 0;                   ///< operands of the step (the rest are results)
    std::vector<ir::Value*> operandValues; ///< null entries for non-value tensors
    std::vector<ir::Value*> resultValues;
    ShardingProjection before;           ///< factor tables before the factor propagation
    ShardingProjection after;            ///< and after
    PropagationDecisions decisions;      ///< per-factor decisions
    std::vector<ShardingChange> changes; ///< every value whose sharding changed
    /// Nonzero where the driver gave several steps one factor-propagation outcome: steps with the
    /// same id (unique in the process) have equal `rule` (by content), `meshName`, `aggressive`,
    /// `numOperands`, `before`, `after` and `decisions`, so that an observer may key what it derives
    /// from those on the id instead of comparing them again.
    uint64_t outcomeId = 0;
};

/// Receives the events of a propagation pass. Every method has an empty default.
class PropagationObserver {
public:
    virtual ~PropagationObserver() = default;

    /// Start / end of a propagation pass (`strategy`: "basic", "aggressive", ...).
    virtual void passBegin(const std::string& passName, const std::string& strategy) { (void)passName, (void)strategy; }
    virtual void passEnd(const std::string& passName) { (void)passName; }
    /// Start of the iteration of user priority `priority` (0 first).
    virtual void userPriorityBegin(int64_t priority) { (void)priority; }
    /// Start of op-priority round `level` (0..4).
    virtual void opPriorityRoundBegin(int level) { (void)level; }
    /// Start of one run (a complete fixpoint) with the strategy "basic" or "aggressive".
    virtual void runBegin(const std::string& strategy) { (void)strategy; }
    /// Sharding group `groupId` was synchronised before propagation: its `members` now hold one
    /// sharding, or with `conflict` (members disagreed) they are the open sharding constraints
    /// inserted on each member.
    virtual void shardingGroupSync(int64_t groupId, bool conflict, const std::vector<ir::Value*>& members)
    {
        (void)groupId, (void)conflict, (void)members;
    }
    /// A stage that changes shardings outside propagation steps begins (`name`: what it does,
    /// such as "lift inlined meshes" or "-canonicalize") / ends. Stages do not nest. Between the
    /// end of a stage or pass and the next event no code changes shardings (a recorder that
    /// compared the module at the end does not compare it again before the next stage).
    virtual void stageBegin(const std::string& name, StageKind kind) { (void)name, (void)kind; }
    virtual void stageEnd() {}
    /// A value's sharding was copied to another member of its sharding group.
    virtual void shardingGroupCopy(int64_t groupId, ir::Value* from, ir::Value* to)
    {
        (void)groupId, (void)from, (void)to;
    }
    /// A dead pure op is about to be erased by the driver.
    virtual void opErased(ir::Op* op) { (void)op; }
    /// The driver visited `op` but took no step: `reason` is "no sharding rule", "no common
    /// mesh" (different meshes, maximal or none), "rank mismatch" or "rule/operand mismatch".
    virtual void opSkipped(ir::Op* op, const std::string& reason) { (void)op, (void)reason; }
    /// A propagation step was evaluated (also when it changed nothing: `changes` is empty).
    /// Func-result steps have kind FuncResult.
    virtual void step(const PropagationStep& step) { (void)step; }
};

/// Reports a stage to `observer` (may be null) for as long as it lives.
class StageScope {
public:
    StageScope(PropagationObserver* observer, const std::string& name, StageKind kind) : m_observer(observer)
    {
        if (m_observer)
            m_observer->stageBegin(name, kind);
    }
    ~StageScope()
    {
        if (m_observer)
            m_observer->stageEnd();
    }
    StageScope(const StageScope&) = delete;
    StageScope& operator=(const StageScope&) = delete;

private:
    PropagationObserver* m_observer;
};

/// Forwards every event to each of its observers, in order (null entries are skipped).
class ObserverFanOut : public PropagationObserver {
public:
    explicit ObserverFanOut(std::vector<PropagationObserver*> targets);

    void passBegin(const std::string& passName, const std::string& strategy) override;
    void passEnd(const std::string& passName) override;
    void userPriorityBegin(int64_t priority) override;
    void opPriorityRoundBegin(int level) override;
    void runBegin(const std::string& strategy) override;
    void shardingGroupSync(int64_t groupId, bool conflict, const std::vector<ir::Value*>& members) override;
    void stageBegin(const std::string& name, StageKind kind) override;
    void stageEnd() override;
    void shardingGroupCopy(int64_t groupId, ir::Value* from, ir::Value* to) override;
    void opErased(ir::Op* op) override;
    void opSkipped(ir::Op* op, const std::string& reason) override;
    void step(const PropagationStep& step) override;

private:
    std::vector<PropagationObserver*> m_targets;
};

} // namespace shardx
