// Session: the one API every front end uses (open, verify, propagate with a trace, step, query,
// edit, save). Qt-free; the GUI, shardx-cli, shardx-opt, the tests and the benchmarks use it.
#pragma once

#include <atomic>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/Module.h"
#include "core/ir/ProgramIds.h"
#include "core/ir/Verifier.h"
#include "core/partition/PartitionModel.h"
#include "core/passes/PassRegistry.h"
#include "core/rules/ShardingProjection.h"
#include "core/support/Diagnostic.h"
#include "core/support/Expected.h"
#include "core/trace/Explain.h"
#include "core/trace/Trace.h"
#include "core/trace/TraceCursor.h"

namespace shardx {

/// How a file is read.
struct OpenOptions {
    /// MLIR's strictness (`shardx-cli --strict`): ops and attributes of dialects shardx does not
    /// know are errors (unless allowUnregisteredDialects), and so is an op in a custom form it
    /// cannot read. Off (the default, viewer tolerance), they are kept as written, printed back
    /// unchanged and reported as warnings; shardings do not propagate through such ops (they
    /// have no sharding rule, as in Shardy) and the trace says so.
    bool strict = false;
    /// With `strict`: keep ops of dialects shardx does not know in generic form, as mlir-opt's
    /// `-allow-unregistered-dialect`.
    bool allowUnregisteredDialects = false;
    /// Verify the module after reading it.
    bool verify = true;
    /// Line of the file on which the text opened starts: openText() of a part of a split file
    /// (io::splitInputFile) passes the part's first line, so that every position is a line of the file.
    int firstLine = 1;
};

/// What propagation to run: a strategy, or a pass list.
struct PropagationRequest {
    /// `basic`, `aggressive`, `op-priority`, `user-priority` or `pipeline` (propagationStrategies());
    /// used when `passes` is empty.
    std::string strategy = "pipeline";
    /// Options of the strategy's pass, as on shardx-opt's command line (`conservative-propagation`
    /// = `true`).
    PassOptions strategyOptions;
    /// A pass list instead, each entry as shardx-opt spells a flag: `sdy-add-data-flow-edges`,
    /// `-sdy-aggressive-propagate=propagation-strategy=basic`.
    std::vector<std::string> passes;
    /// Record the trace of every step and decision.
    bool record = true;
    /// Keyframe interval of the trace (0: chosen by the trace).
    int keyframeInterval = 0;
    /// With `record`: the trace is also streamed to this file in the binary format
    /// (TraceBinary.h) while propagation runs; the file appears, atomically, only when
    /// propagation succeeds.
    std::string traceFile;
    /// With `traceFile`: keep the trace in memory as well (trace()). Off, memory does not grow
    /// with the trace, and trace() is null after propagation: the file is the trace.
    bool keepTrace = true;
    /// Verify the module after each pass (as shardx-opt does).
    bool verifyAfterEachPass = true;
    /// Propagate the open module itself instead of a copy, for a caller that propagates once
    /// and then reads only the result (the CLI): no copy's time and memory. The session holds no
    /// source afterwards, whatever came of the request (text(..., source) is empty, edits and
    /// repropagate() report that no module is open).
    bool consumeSource = false;
};

/// Where a running request is; reported at each pass and stage and every few thousand steps.
struct Progress {
    std::string pass;       ///< the pass running, `sdy-user-priority-propagate`
    std::string stage;      ///< the stage of a pipeline being run, when one is
    size_t passIndex = 0;   ///< 0-based index of `pass` in the request
    size_t numPasses = 0;   ///< passes in the request
    size_t steps = 0;       ///< propagation steps observed so far
    size_t opsInModule = 0; ///< ops of the module propagated (counted when a ProgressFn is given)
};
using ProgressFn = std::function<void(const Progress&)>;

/// What came of a request.
struct PropagationResult {
    bool ok = false;
    bool cancelled = false;          ///< requestCancel() stopped it; the session is unchanged
    DiagnosticList diagnostics;      ///< every error and warning, `file:line:col` where known
    size_t steps = 0;                ///< steps recorded
    std::vector<std::string> passes; ///< the passes that ran, in order
};

/// A propagation request running on its own copy of the source module (Session::startPropagation).
class PropagationRun;
struct PropagationRunDeleter {
    void operator()(PropagationRun* run) const;
};
using PropagationRunPtr = std::unique_ptr<PropagationRun, PropagationRunDeleter>;
/// Makes the copy of the source module that a run started with CopySource::Later works on (any
/// thread). The session's source module must neither change nor go while it runs: hold off the
/// session's writers (a reader lock) around it. A cancelled run copies nothing; a run that has
/// its copy is left alone.
void copyPropagationSource(PropagationRun& run);
/// True once cancelPropagation() asked `run` to stop (any thread).
bool propagationCancelled(const PropagationRun& run);
/// Runs `run` (any thread; it touches only its own copy of the module, made by
/// copyPropagationSource() first where it was deferred). `progress` is called on that thread.
void runPropagation(PropagationRun& run, const ProgressFn& progress = {});
/// Asks `run` to stop at its next step (any thread, while runPropagation runs).
void cancelPropagation(PropagationRun& run);

/// The factor table of one op at one position of the trace: its sharding rule, the shardings of
/// its operands and results there projected onto the rule's factors (SDY.md 4.3), and the value
/// index of each row.
struct OpFactorTable {
    int op = -1;
    size_t position = 0;  ///< steps applied
    OpShardingRule rule;  ///< factors per dimension of every tensor and their sizes
    std::string meshName; ///< the mesh the table is projected on
    ShardingProjection table;
    std::vector<int> values; ///< value index of each row (operands first), -1 for none
    /// The table as text, one row per line (`operand 0: i="a" | j=N`).
    std::string text() const { return factorTableString(table, rule.numFactors()); }
};

/// One open program: the module as read (the user's program, with their edits), the result of
/// the last propagation, its trace and a cursor on it, and the names users know for every value
/// and op (ir::ProgramIds). Values and ops are identified by their ProgramIds index, which is
/// the same in the source module, the result and the trace.
///
/// A session is used from one thread at a time, except requestCancel(), which any thread may
/// call while propagate() runs on another.
class Session {
public:
    Session();
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // ---- opening ------------------------------------------------------------------------------
    /// Reads `path` (MLIR text or a shardx JSON document, told apart by content) and verifies it.
    /// Every problem found goes to diagnostics(), never thrown. Returns true when a module was
    /// read and verified; a module that reads but does not verify stays open (for viewing) and
    /// false is returned. Closes what was open before.
    bool open(const std::string& path, const OpenOptions& options = {});
    /// The same for text in memory; `name` stands for the file in diagnostics.
    bool openText(std::string_view text, const std::string& name, const OpenOptions& options = {});
    /// Opens a trace file written by saveTrace() (or `shardx-cli propagate --trace`) without its
    /// module: stepping and trace queries work, module queries do not.
    bool openTrace(const std::string& path);
    void close();
    /// The problems of the last open (all of them).
    const DiagnosticList& diagnostics() const { return m_diagnostics; }
    /// A module (or a trace) is open.
    bool isOpen() const { return m_source != nullptr || m_trace != nullptr; }
    /// The file opened, as given.
    const std::string& path() const { return m_path; }
    /// Verifies module(); problems are appended to `out`.
    bool verify(DiagnosticList& out) const;

    // ---- propagation --------------------------------------------------------------------------
    /// Runs `request` on a copy of the source module. On success the copy becomes module(), its
    /// trace trace() (when recorded) and the cursor moves to the last step. On failure or
    /// cancellation the session is left as it was.
    PropagationResult propagate(const PropagationRequest& request, const ProgressFn& progress = {});
    /// propagate() in three parts, for front ends that run propagation on a worker thread while
    /// the session stays readable: startPropagation() (the session's thread) checks the request
    /// and copies the source module, runPropagation() (any thread) runs it on the copy, and
    /// finishPropagation() (the session's thread) adopts the result as propagate() does.
    /// With CopySource::Later the copy (a third of a second at 100k ops) is left to
    /// copyPropagationSource() on the worker, so that the session's thread does not wait for it.
    enum class CopySource { Now, Later };
    PropagationRunPtr startPropagation(const PropagationRequest& request, CopySource copy = CopySource::Now);
    PropagationResult finishPropagation(PropagationRunPtr run);
    /// Runs the last request again (after setSharding()).
    PropagationResult repropagate(const ProgressFn& progress = {});
    /// Asks a running propagate() to stop at its next step (any thread).
    void requestCancel() { m_cancel.store(true); }
    /// The last request propagate() ran, if any.
    const std::optional<PropagationRequest>& lastRequest() const { return m_lastRequest; }

    // ---- state --------------------------------------------------------------------------------
    /// The user's program as read, with their edits; nullptr when none is open.
    const ir::Module* sourceModule() const { return m_source.get(); }
    /// The result of the last propagation, else the source module.
    const ir::Module* module() const { return m_result ? m_result.get() : m_source.get(); }
    /// The trace of the last propagation (or the trace file opened), nullptr when none.
    const Trace* trace() const { return m_trace.get(); }
    /// The names of module()'s values and ops; nullptr without a module.
    const ir::ProgramIds* ids() const;

    // ---- stepping -----------------------------------------------------------------------------
    size_t numSteps() const { return m_trace ? m_trace->numSteps() : 0; }
    /// Moves the cursor to the state after the first `step` steps (clamped to numSteps()).
    void seek(size_t step);
    /// The cursor: steps applied.
    size_t position() const;
    /// The sharding of value `value` at the cursor; without a trace its sharding in module().
    /// nullptr when it has none.
    const TensorSharding* shardingAt(int value) const;
    /// The type of value `value` in module() (a function result: its declared type); nullopt for
    /// an index that names no value there. Walks the module (for one selection, not a loop).
    std::optional<ir::Type> valueType(int value) const;
    /// The sharding id of every value at the cursor (ids of trace()->data().shardings, -1 for
    /// none); empty without a trace.
    const std::vector<int>& stateAt() const;

    // ---- queries ------------------------------------------------------------------------------
    /// A value by what users type: its id (`@main:%5`), its name as the file prints it (`%5`,
    /// `@main:%cst_0`, `@main:arg0`, `result 0`), or its `loc` name scope (ir::findByUserName).
    Expected<int> findValue(const std::string& query) const;
    /// An op by its id, the head of its result list or its name scope.
    Expected<int> findOp(const std::string& query) const;
    /// Why each axis of `value`'s final sharding is there and why a neighbour's is not.
    Expected<ValueExplanation> explain(int value, const std::optional<std::string>& axis = std::nullopt) const;
    /// The factor table of op `op` after `step` steps (clamped to numSteps()), from the op's
    /// rule as its steps recorded it, or as the rule registry gives it for an op propagation
    /// never visited, and the shardings of its tensors at that position. Fails for ops without
    /// a sharding rule or a mesh.
    Expected<OpFactorTable> factorTable(int op, size_t step) const;

    /// Partitions the program (propagated if it was, else as written) into the per-device
    /// program with explicit collectives (PARTITION.md 1.2) and describes what it costs; the
    /// session is not changed.
    Expected<PartitionModel> partition(const PartitionOptions& options = {}) const;

    /// "Why replicated?": every value that ends less sharded than a neighbour offered (an axis a
    /// neighbour had and it lacks) or next to an op propagation could not cross, with the reasons
    /// from explain and what it costs each device (needs a recorded trace). Values of fewer than
    /// `minBytes` bytes are left out. Largest cost first.
    Expected<std::vector<ReplicatedTensor>> replicatedTensors(int64_t minBytes = 0) const;
    /// Where op `op` (or the op defining value `value`, for valuePosition) is written in the file
    /// opened; unknown (line 0) for what passes made.
    SourcePos opPosition(int op) const;
    SourcePos valuePosition(int value) const;
    /// Where each axis of `value`'s final sharding came from.
    Expected<std::vector<AxisOrigin>> origins(int value) const;

    // ---- editing ------------------------------------------------------------------------------
    /// Sets the sharding of the user's value `value` in the source module (removes it with
    /// nullopt). The module must still verify, else nothing changes and the error is returned.
    /// The last result and trace are dropped: propagate again to see the effect.
    Status setSharding(int value, const std::optional<TensorSharding>& sharding);
    /// What setSharding() would say, changing nothing.
    Status checkSharding(int value, const std::optional<TensorSharding>& sharding) const;
    /// The sharding the user's program gives value `value` itself (its own annotation in the
    /// source module, with edits), nullopt for none.
    std::optional<TensorSharding> sourceSharding(int value) const;

    // ---- saving -------------------------------------------------------------------------------
    enum class Format { Auto, Mlir, Json };
    /// module() (or the source module with `source`) as MLIR text or a JSON document.
    std::string text(Format format = Format::Mlir, bool source = false) const;
    /// The same written to `out`; MLIR is written as it is printed, without holding the whole
    /// text (a large module's text is tens of megabytes).
    void writeText(std::ostream& out, Format format = Format::Mlir, bool source = false) const;
    /// Writes text() to `path` atomically (a temporary file next to it, renamed over it). `Auto`
    /// picks JSON for a `.json` path, else MLIR.
    Status save(const std::string& path, Format format = Format::Auto, bool source = false) const;
    /// Writes trace() atomically: a JSON trace document when `path` ends in `.json`, else the
    /// binary trace (TraceBinary.h).
    Status saveTrace(const std::string& path) const;

private:
    bool adopt(std::unique_ptr<ir::Module> module, const OpenOptions& options);

    ir::VerifyOptions verifyOptions(ir::VerifyScope scope) const;
    /// A copy of the source module with `value`'s sharding set (or removed), verified.
    Expected<std::unique_ptr<ir::Module>> editedWith(int value, const std::optional<TensorSharding>& sharding) const;

    std::string m_path;
    OpenOptions m_openOptions;
    DiagnosticList m_diagnostics;
    std::unique_ptr<ir::Module> m_source;
    std::unique_ptr<ir::Module> m_result;
    std::unique_ptr<Trace> m_trace;
    std::unique_ptr<TraceCursor> m_cursor;
    std::optional<PropagationRequest> m_lastRequest;
    std::atomic<bool> m_cancel{false};
};

/// Writes `text` to `path` atomically: a temporary file in the same folder, renamed over `path`
/// (a reader sees the old file or the new one, never a part).
Status writeFileAtomically(const std::string& path, std::string_view text);
/// A trace path that names a JSON trace (it ends in `.json`); any other is a binary trace.
bool isJsonTracePath(const std::string& path);

/// The same with what `write` writes.
Status writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

} // namespace shardx
