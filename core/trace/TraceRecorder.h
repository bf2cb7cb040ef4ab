// TraceRecorder: a PropagationObserver that records a Trace of the passes it watches.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/ir/Module.h"
#include "core/propagation/PropagationObserver.h"
#include "core/support/PointerMap.h"
#include "core/trace/Trace.h"
#include "core/trace/TraceInterner.h"

namespace shardx {

struct StepTables;

/// The pooled inputs a change's factor changes are computed from.
struct FactorChangeKey {
    int rule, before, after, decisions, kind, aggressive, tensor;
    bool operator==(const FactorChangeKey& o) const = default;
};
struct FactorChangeKeyHash {
    size_t operator()(const FactorChangeKey& k) const;
};

/// The decision kind that names a truncation reason of factor propagation.
DecisionKind decisionForTruncation(TruncationReason r);

/// Records every event of the passes it observes. The initial state is the module's shardings
/// when the recorder is constructed. Recording never changes the module.
class TraceRecorder : public PropagationObserver {
public:
    explicit TraceRecorder(ir::Module& module);

    void passBegin(const std::string& passName, const std::string& strategy) override;
    void passEnd(const std::string& passName) override;
    void userPriorityBegin(int64_t priority) override;
    void opPriorityRoundBegin(int level) override;
    void runBegin(const std::string& strategy) override;
    void shardingGroupSync(int64_t groupId, bool conflict) override;
    void shardingGroupCopy(int64_t groupId, ir::Value* from, ir::Value* to) override;
    void opErased(ir::Op* op) override;
    void opSkipped(ir::Op* op, const std::string& reason) override;
    void step(const PropagationStep& step) override;

    /// What was recorded so far.
    const TraceData& data() const { return m_data; }
    /// The immutable trace of everything recorded so far (open nodes end at the last step);
    /// `keyframeInterval` 0 lets the trace choose.
    Trace trace(int keyframeInterval = 0) const;
    /// The same without a copy: the recorder's data moves into the trace. The recorder is spent
    /// afterwards: it must not observe further passes, and data() is empty.
    Trace takeTrace(int keyframeInterval = 0);

    // Live handles, valid while the module is unchanged (for DebugAttributes).
    /// Index of `v` in the trace values (-1 if unknown).
    int valueIndex(const ir::Value* v) const;
    /// Index of result `i` of function `func` (-1 if unknown).
    int funcResultIndex(const ir::Op* func, int i) const;
    /// Index of `op` in the trace ops (-1 if unknown).
    int opIndex(const ir::Op* op) const;
    ir::Op* liveOp(int op) const;
    ir::Value* liveValue(int value) const;
    /// For a function-result value: the function and result index.
    std::pair<ir::Op*, int> liveFuncResult(int value) const;

private:
    int internValue(ir::Value* v);
    int internFuncResult(ir::Op* func, int i);
    int internOp(ir::Op* op);
    /// Assigns ids to every value/op of the module not seen yet; with `live`, appends the index
    /// of every value the walk meets (the values still in the module).
    void indexModule(std::vector<int>* live = nullptr);
    std::optional<TensorSharding> currentSharding(int value) const;
    /// The same without a copy where possible (see getShardingRef).
    const TensorSharding* currentShardingRef(int value, std::optional<TensorSharding>& storage) const;
    /// Pool id of the factor changes of tensor `tensor` of step `s` (-1 for none).
    int factorChangeSet(const TraceStep& s, const StepTables& tables, int tensor);
    /// Pool id of the name scope of `loc` (-1 for none).
    int scopeId(const ir::AttrPtr& loc);
    /// Pool id of `s` (-1 for none).
    int shardingId(const std::optional<TensorSharding>& s);
    /// Records shardings changed outside the observed steps as an Untracked step.
    void rescan(DecisionKind kind);
    void beginNode(TraceNodeKind kind, const std::string& label, int64_t number);
    TraceStep newStep(TraceStepKind kind);
    void pushStep(TraceStep step);

    ir::Module& m_module;
    TraceData m_data;
    TraceInterner m_pool;    ///< pools of m_data
    std::vector<int> m_open; ///< stack of open nodes
    bool m_started = false;  ///< the initial state is taken
    int m_round = -1;
    int64_t m_priority = -1;
    std::unordered_set<std::string> m_usedIds;
    std::unordered_map<std::string, int> m_scopeIndex; ///< scope name -> TraceData::scopes
    PointerMap<ir::Attribute, int> m_scopeByLoc;       ///< location attribute -> scope id (-1 none)
    std::unordered_map<FactorChangeKey, int, FactorChangeKeyHash> m_factorChangeIndex;
    PointerMap<ir::Value, int> m_valueIndex;
    std::map<std::pair<const ir::Op*, int>, int> m_funcResultIndex;
    PointerMap<ir::Op, int> m_opIndex;
    std::vector<ir::Value*> m_liveValues;
    std::vector<std::pair<ir::Op*, int>> m_liveFuncResults;
    std::vector<ir::Op*> m_liveOps;
    std::vector<int> m_state; ///< sharding id per value as recorded so far
};

} // namespace shardx
