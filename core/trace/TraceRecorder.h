// TraceRecorder: a PropagationObserver that records a Trace of the passes it watches.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/ir/Module.h"
#include "core/propagation/PropagationObserver.h"
#include "core/propagation/ShardingWrites.h"
#include "core/trace/Trace.h"
#include "core/trace/TraceBinary.h"
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
/// when the recorder is constructed. Values and ops are the module's ir::ProgramIds (built when
/// the module has none yet): a trace value's index is its ProgramIds index, and its id and name
/// are the ones users know. Recording never changes the module's shardings.
///
/// What changed outside the steps (the stages of a pipeline, a pass's work besides its steps) is
/// found from the "sharding written" notifications of the code that writes shardings
/// (ShardingWrites.h, heard on the constructing thread while the recorder lives: construct and
/// destroy it on the thread that runs the passes): only the values
/// of the ops written, inserted or moved are compared with the recorded state. A stage that does
/// not report its writes, or says it rewrote the module without details, is compared whole at its
/// end. Values that passes made without naming them are named in the order a walk meets them.
class TraceRecorder : public PropagationObserver, private ShardingWriteListener {
public:
    explicit TraceRecorder(ir::Module& module);
    TraceRecorder(const TraceRecorder&) = delete;
    TraceRecorder& operator=(const TraceRecorder&) = delete;

    void passBegin(const std::string& passName, const std::string& strategy) override;
    void passEnd(const std::string& passName) override;
    void userPriorityBegin(int64_t priority) override;
    void opPriorityRoundBegin(int level) override;
    void runBegin(const std::string& strategy) override;
    void shardingGroupSync(int64_t groupId, bool conflict, const std::vector<ir::Value*>& members) override;
    void shardingGroupCopy(int64_t groupId, ir::Value* from, ir::Value* to) override;
    void stageBegin(const std::string& name, StageKind kind) override;
    void stageEnd() override;
    void opErased(ir::Op* op) override;
    void opSkipped(ir::Op* op, const std::string& reason) override;
    void step(const PropagationStep& step) override;

    /// Streams every step to `writer` as it is recorded (a binary trace written while
    /// propagation runs); with `keepSteps` false the recorder keeps no step itself, so that
    /// memory does not grow with the trace (trace() and takeTrace() then hold no steps). Call
    /// before the first event; `writer` must outlive the recording and be made with data().initial.
    void streamTo(TraceBinaryWriter* writer, bool keepSteps);
    /// Ends the stream: writes the values, ops, nodes and pools of everything recorded so far
    /// (`keyframeInterval` as for trace()). False when the stream failed.
    bool finishStream(int keyframeInterval = 0);
    /// Steps recorded so far (kept or streamed).
    size_t numSteps() const { return m_numSteps; }

    /// Checks the notifications: wherever the recorder compared only notified values it also
    /// compares the whole module (without recording), and counts the values whose change it
    /// would have missed. Off by default; on when the environment sets SHARDX_TRACE_VERIFY=1.
    void setVerifyNotifications(bool on) { m_verify = on; }
    /// Compares the whole module at the end of every stage, whatever the stage reports (the
    /// reference that a recording from the reports must equal). Off by default.
    void setCompareWholeStages(bool on) { m_compareWholeStages = on; }
    /// Values found changed (or unnamed) by the verifying comparison but not notified.
    size_t missedChanges() const { return m_missed; }
    /// Whole-module comparisons made so far (the constructor's reading not counted).
    size_t fullScans() const { return m_fullScans; }
    /// Walks of the whole module that only named what a pass made (see recheckWritten()).
    size_t namingWalks() const { return m_namingWalks; }

    /// What was recorded so far (values and ops are filled in by trace() / takeTrace()).
    const TraceData& data() const { return m_data; }
    /// The immutable trace of everything recorded so far (open nodes end at the last step);
    /// `keyframeInterval` 0 lets the trace choose.
    Trace trace(int keyframeInterval = 0) const;
    /// The same without a copy: the recorder's data moves into the trace. The recorder is spent
    /// afterwards: it must not observe further passes, and data() is empty.
    Trace takeTrace(int keyframeInterval = 0);

    // Live handles, valid while the module is unchanged (for DebugAttributes).
    /// Index of `v` in the trace values (its ProgramIds index; -1 for null).
    int valueIndex(const ir::Value* v) const;
    /// Index of result `i` of function `func` (-1 if unknown).
    int funcResultIndex(const ir::Op* func, int i) const;
    /// Index of `op` in the trace ops (-1 for null).
    int opIndex(const ir::Op* op) const;
    /// The op of trace op `op` seen in an event and not erased since, else nullptr.
    ir::Op* liveOp(int op) const;

private:
    int internValue(ir::Value* v) const;
    int internFuncResult(ir::Op* func, int i) const;
    int internOp(ir::Op* op);
    /// The state entry of value `idx` (the state grows with the ProgramIds).
    int& stateOf(int idx);
    /// Appends a change of value `idx` (skipped when < 0) to `now` when its recorded sharding differs.
    /// Records `changes` (sorted by value here) as one stage step with `note`; nothing when empty.
    void pushStageChanges(std::vector<TraceChange> changes, const std::string& note);
    void noteIfChanged(int idx, const TensorSharding* now, DecisionKind kind, std::vector<TraceChange>& changes);
    /// Adds to `s` a change like `like` for every value that reads its sharding through the same
    /// data-flow edge as `changed` (its owner, the edge, a while's region arguments) and now
    /// differs from the recorded state.
    void recordEdgeFamily(TraceStep& s, ir::Value* changed, TraceChange like);
    /// Pool id of the factor changes of tensor `tensor` of step `s` (-1 for none).
    int factorChangeSet(const TraceStep& s, const StepTables& tables, int tensor);
    /// Pool id of `s` (-1 for none).
    int shardingId(const TensorSharding* s);
    /// Records every sharding that differs from the recorded state as one Stage step (`note`:
    /// what changed them, each change of kind `kind`). Walks the module.
    void rescan(DecisionKind kind, const std::string& note);
    /// Records, as rescan() does, what differs from the recorded state among the values of the
    /// ops notified since the last comparison. When one of them is not named, everything not
    /// named is named first, in the order a rescan() meets it (nameAsRescanWould()).
    void recheckWritten(DecisionKind kind, const std::string& note);
    /// Names every value of the module not named yet, as rescan() does and in its order, without
    /// comparing anything.
    void nameAsRescanWould();
    /// The recorded state of the values of `changes`/the notified ops compared with the module
    /// (verification of the notifications, setVerifyNotifications()).
    void verifyAgainstModule(const std::string& note);
    /// True when `op` is in the recorded module (not in another one written meanwhile).
    bool inModule(const ir::Op* op) const;
    /// The candidates of a write to `op`: its values, and their data-flow edge families.
    void collectWritten(ir::Op* op, std::vector<ir::Value*>& values,
                        std::vector<std::pair<ir::Op*, unsigned>>& funcResults) const;
    /// Drops the ops notified since the last event whose values hold what was recorded.
    void settleWritten();
    /// So many ops were notified since the last comparison that the next one walks the module.
    bool manyWritten() const;
    void forgetWritten();
    void shardingsWritten(ir::Op& op) override;
    void stageWritesReported() override;
    void opsInserted(ir::Op& op) override;
    void opsErasing(ir::Op& op) override;
    void moduleRewritten() override;
    void beginNode(TraceNodeKind kind, const std::string& label, int64_t number);
    void endNodesFrom(TraceNodeKind kind);
    TraceStep newStep(TraceStepKind kind);
    void pushStep(TraceStep step);
    /// The values and ops of the ProgramIds, copied into `data` with their scopes pooled in the
    /// order a trace document lists them.
    void fillNames(TraceData& data) const;

    ir::Module& m_module;
    ir::ProgramIds& m_ids;
    TraceData m_data;
    TraceInterner m_pool;    ///< pools of m_data
    std::vector<int> m_open; ///< stack of open nodes
    int m_round = -1;
    int64_t m_priority = -1;
    std::string m_pass;                                       ///< the pass being observed, for External notes
    std::optional<std::pair<std::string, StageKind>> m_stage; ///< the open stage
    std::unordered_map<FactorChangeKey, int, FactorChangeKeyHash> m_factorChangeIndex;
    /// The pooled ids of a step's outcome (PropagationStep::outcomeId).
    struct OutcomeIds {
        int rule, before, after, decisions;
    };
    std::unordered_map<uint64_t, OutcomeIds> m_outcomeIds; ///< by outcome id, steps with a rule
    std::vector<ir::Op*> m_liveOps;                        ///< by op index: ops seen in events, null once erased
    std::vector<int> m_state;                              ///< sharding id per value index as recorded so far
    size_t m_numSteps = 0;
    std::vector<ir::Op*> m_written;                 ///< ops notified since the last comparison
    std::unordered_set<const ir::Op*> m_writtenSet; ///< the same, as a set (erased ops leave it)
    size_t m_settledUpTo = 0;                       ///< m_written before it was settled
    bool m_manyWritten = false;                     ///< the next comparison walks the module (m_written not kept)
    bool m_stageReportsWrites = false;              ///< the open stage reports its writes
    bool m_stageRewritten = false;                  ///< ... but rewrote the module without details
    bool m_verify = false;
    bool m_compareWholeStages = false;
    size_t m_missed = 0;
    size_t m_fullScans = 0;
    size_t m_namingWalks = 0;
    ShardingWriteScope m_writeScope{this};
    TraceBinaryWriter* m_writer = nullptr;
    TraceStep m_spareStep; ///< the last streamed step not kept, whose lists newStep() reuses
    bool m_keepSteps = true;
};

} // namespace shardx
