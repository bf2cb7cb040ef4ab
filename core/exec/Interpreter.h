// Interpreter: the ReferenceExecutor's evaluator of ir functions (internal to core/exec).
//
// Errors inside the evaluator are thrown as ExecError (an op that cannot run, a malformed
// attribute, a collective whose peers failed) and caught at the ReferenceExecutor boundary,
// which returns them as shardx::Error; no exception leaves core/exec.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/exec/Tensor.h"
#include "core/ir/Module.h"
#include "core/mesh/Mesh.h"
#include "core/support/Diagnostic.h"

namespace shardx::exec {

class Rendezvous;
class TimingRecorder;

/// A failure while evaluating: message and the op's position.
struct ExecError {
    std::string message;
    SourcePos pos;
    /// A consequence of another process's failure (a collective released by an abort), not a cause.
    bool secondary = false;
};

/// The body instances of an `sdy.manual_computation` of a global program (JAX's shard_map): one process per
/// device along its manual axes, the other (free) axes at the coordinates of the device that runs the op. A
/// process is partition `device id` of one replica of `mesh.totalSize()` partitions, so that the device ids
/// in the collectives of the body (replica groups, source/target pairs) are process ids.
struct ManualScope {
    const ir::Op* op = nullptr;          ///< the sdy.manual_computation
    const ManualScope* parent = nullptr; ///< the manual computation around this one, if any
    Mesh mesh;
    /// The axes manual in the body: this computation's and those of the ones around it.
    std::vector<std::string> manualAxes;
    /// Per device id: 1 when a body instance runs on that device.
    std::vector<char> runs;

    bool runsOn(int64_t device) const
    {
        return device >= 0 && device < static_cast<int64_t>(runs.size()) && runs[static_cast<size_t>(device)];
    }
};

/// Where a process sits in a run_parallel grid, and how it meets its peers.
struct ProcessInfo {
    int64_t replica = 0;
    int64_t partition = 0;
    int64_t numReplicas = 1;
    int64_t numPartitions = 1;
    Rendezvous* rendezvous = nullptr; ///< null outside a grid (collectives then see a grid of one)
    /// Set in the body of a manual computation: the process is one device's instance of it (see ManualScope).
    const ManualScope* manual = nullptr;
};

/// Values bound in a region (and, through `parent`, in the regions around it).
struct Frame {
    const Frame* parent = nullptr;
    std::unordered_map<const ir::Value*, Tensor> values;

    const Tensor* find(const ir::Value* v) const
    {
        for (const Frame* f = this; f; f = f->parent) {
            auto it = f->values.find(v);
            if (it != f->values.end())
                return &it->second;
        }
        return nullptr;
    }
};

class Interpreter;

/// What an op handler sees: the op, its operand tensors and helpers to read its attributes.
struct OpContext {
    Interpreter& interp;
    const ir::Op& op;
    std::vector<const Tensor*> operands;
    const ProcessInfo& proc;
    const Frame& frame;

    const Tensor& in(unsigned i) const { return *operands[i]; }
    unsigned numIn() const { return static_cast<unsigned>(operands.size()); }
    /// A zero tensor of result `i`'s type.
    Tensor result(unsigned i) const;
    [[noreturn]] void fail(const std::string& message) const;
    /// A required integer-list attribute (dense array, array or dense elements).
    std::vector<int64_t> ints(const char* name) const;
    /// An optional integer-list attribute; `fallback` when absent.
    std::vector<int64_t> intsOr(const char* name, std::vector<int64_t> fallback) const;
    /// A required integer attribute.
    int64_t integer(const char* name) const;
    int64_t integerOr(const char* name, int64_t fallback) const;
    /// Runs region `i` of the op with `args` bound to its entry block's arguments.
    std::vector<Tensor> runRegion(unsigned i, std::vector<Tensor> args) const;
};

using OpHandler = std::vector<Tensor> (*)(OpContext&);
using HandlerMap = std::unordered_map<std::string, OpHandler>;

// Each file of the evaluator registers its ops.
void registerElementwiseOps(HandlerMap& map);
void registerShapeOps(HandlerMap& map);
void registerIndexingOps(HandlerMap& map);
void registerReductionOps(HandlerMap& map);
void registerLinalgOps(HandlerMap& map);
void registerControlOps(HandlerMap& map);
void registerCollectiveOps(HandlerMap& map);
void registerFftOps(HandlerMap& map);
void registerManualOps(HandlerMap& map);

/// Runs some ops somewhere else than the interpreter's own handlers (a device back end). The interpreter
/// still drives every function, region, grid and check; before running an op's handler it offers the op
/// to the offload. Called concurrently by the processes of a grid.
class OpOffload {
public:
    virtual ~OpOffload() = default;
    /// Runs `ctx.op` and stores its results in `out`, returning true; false leaves the op to the
    /// interpreter's handler. Errors are thrown as ExecError (as handlers do).
    virtual bool run(OpContext& ctx, std::vector<Tensor>& out) = 0;
};

/// Sees the results of the ops a run evaluates (validation: every intermediate of a program). Only ops
/// directly in a function's body are shown, not those of nested regions (a reduce body runs per element), and
/// those directly in the body of a manual computation, once per device that runs it (`proc.manual` set).
/// Called concurrently by the processes of a grid (and the devices of a manual computation), each with its
/// own `proc`.
class OpObserver {
public:
    virtual ~OpObserver() = default;
    /// `op` (directly in a func.func body, or in the body of `proc.manual->op`) ran on process `proc` and
    /// produced `results`.
    virtual void opEvaluated(const ir::Op& op, const ProcessInfo& proc, const std::vector<Tensor>& results) = 0;
};

/// A fault to inject, for validation tests and diagnostics only (off unless set): the results of the
/// `collective`-th StableHLO collective (0-based, in the order process `process` runs them) are corrupted on
/// that process after the collective ran (every float element x becomes x + 1 + |x|, every integer i + 1, every
/// bool flipped), as a broken link or a wrong replica group would corrupt them.
struct CollectiveFault {
    int64_t process = 0;
    int64_t collective = 0;
};

/// Where a CollectiveFault struck, once it did.
struct InjectedFault {
    bool struck = false;
    std::string opName; ///< `stablehlo.all_gather`
    SourcePos pos;
    int64_t process = -1;
    const ir::Op* op = nullptr;
};

/// What an Interpreter does besides evaluating: observe, inject a fault, stop when asked. All off by default.
struct RunHooks {
    OpObserver* observer = nullptr;
    std::optional<CollectiveFault> fault;
    /// When set and true, every process stops before its next op with the ExecError "cancelled" (the GUI's
    /// cancel button; the flag is read, never written, by the run).
    const std::atomic<bool>* cancel = nullptr;
    /// When set, every op outside the bodies of reductions, sorts and scatters is timed on the host and
    /// recorded there (see TimingRecorder); a back end adds its kernels' device times.
    TimingRecorder* timings = nullptr;
    /// Where `#stablehlo.replica_group_mesh_axes<mesh = @m, ...>` finds mesh @m when the module run has no
    /// sdy.mesh of that name: a per-device program's meshes are dropped by the partitioner, and validation runs
    /// it with the module it was partitioned from. Null: the module run only.
    const ir::Module* meshSource = nullptr;
};

/// A failed check of the interpreter conventions (`check.expect_eq` and kin).
struct CheckFailure {
    SourcePos pos;
    std::string message;
};

/// Evaluates functions of one module with StableHLO semantics. Thread-safe: processes of a grid
/// call it concurrently (the module is only read).
class Interpreter {
public:
    explicit Interpreter(const ir::Module& module);

    const ir::Module& module() const { return m_module; }

    /// Calls `func` (a func.func) with `args`; returns its results.
    std::vector<Tensor> callFunction(const ir::Op& func, std::vector<Tensor> args, const ProcessInfo& proc);
    /// Runs the entry block of `region` with `args` bound to its arguments, inside `parent`;
    /// returns the operands of its terminator.
    std::vector<Tensor> runRegion(const ir::Region& region, std::vector<Tensor> args, const Frame* parent,
                                  const ProcessInfo& proc);
    /// Runs a grid of `replicas` x `partitions` processes concurrently (one thread each), process
    /// p = replica * partitions + partition calling `funcs[p]` on `args[p]`, with collectives
    /// between them; returns each process's results. The first failure (in time) is rethrown,
    /// naming the process.
    std::vector<std::vector<Tensor>> runGrid(const std::vector<const ir::Op*>& funcs, int64_t replicas,
                                             int64_t partitions, std::vector<std::vector<Tensor>> args);
    /// What a process of runProcesses runs: process `p` (its ProcessInfo, rendezvous set) returns its results.
    using ProcessBody = std::function<std::vector<Tensor>(size_t p, const ProcessInfo& proc)>;
    /// Runs `procs.size()` processes concurrently (one thread each) with collectives between them through one
    /// new Rendezvous (set in each ProcessInfo); returns each process's results. The first failure is rethrown
    /// (a cause before a peer released by it, then the lowest process), its message prefixed with
    /// `describe(proc)` (`in process (replica 0, partition 1)`). runGrid and manual computations run on it.
    std::vector<std::vector<Tensor>> runProcesses(std::vector<ProcessInfo> procs, const ProcessBody& body,
                                                  const std::function<std::string(const ProcessInfo&)>& describe);

    /// Records a failed check (kept in the order recorded).
    void addCheckFailure(CheckFailure f);
    std::vector<CheckFailure> checkFailures() const;
    /// Counts a check that ran.
    void countCheck();
    int64_t checksRun() const;

    /// Offers every op to `offload` before running its handler (null: none). Set before running.
    void setOffload(OpOffload* offload) { m_offload = offload; }
    /// Observer and fault injection (see RunHooks). Set before running.
    void setHooks(const RunHooks& hooks) { m_hooks = hooks; }
    const RunHooks& hooks() const { return m_hooks; }
    /// Where the fault of the hooks struck (struck false when it did not, or none was set).
    InjectedFault injectedFault() const;

    /// Position for diagnostics of `op` (its source position, with the module's file name).
    SourcePos posOf(const ir::Op& op) const;

private:
    std::vector<Tensor> evalOp(const ir::Op& op, const Frame& frame, const ProcessInfo& proc);
    /// The hooks' part of evaluating `op`: the fault (when it is this op's turn), then the observer.
    void afterOp(const ir::Op& op, const ProcessInfo& proc, std::vector<Tensor>& results);

    const ir::Module& m_module;
    HandlerMap m_handlers;
    OpOffload* m_offload = nullptr;
    RunHooks m_hooks;
    mutable std::mutex m_mutex;
    std::map<int64_t, int64_t> m_collectivesRun; ///< per process, while a fault is armed
    InjectedFault m_injected;
    std::vector<CheckFailure> m_failures;
    int64_t m_checks = 0;
};

/// The binary element-wise operations (also what simple reduction bodies compute).
enum class BinaryKind {
    Add,
    Subtract,
    Multiply,
    Divide,
    Remainder,
    Maximum,
    Minimum,
    Power,
    And,
    Or,
    Xor,
    ShiftLeft,
    ShiftRightArithmetic,
    ShiftRightLogical,
    Atan2
};
/// The kind of a `stablehlo.*` binary op name, or nullopt.
std::optional<BinaryKind> binaryKindOf(const std::string& opName);
/// out[io] = a[ia] OP b[ib], in the element type of `out` (f32 in float, no wider intermediate).
void applyBinary(BinaryKind kind, const Tensor& a, int64_t ia, const Tensor& b, int64_t ib, Tensor& out, int64_t io);

/// A reduction body: a region (acc..., x...) -> (acc'...) run per element, with a fast path for
/// a body that is one binary op of its two arguments.
class Combiner {
public:
    Combiner(const OpContext& ctx, unsigned region);
    /// Number of values combined (the reduce's input count).
    size_t arity() const { return m_arity; }
    /// accs[k][ia] = body(accs..[ia], xs..[ix]) for every k.
    void combine(std::vector<Tensor*>& accs, int64_t ia, const std::vector<const Tensor*>& xs, int64_t ix) const;

private:
    const OpContext& m_ctx;
    unsigned m_region;
    size_t m_arity = 1;
    std::optional<BinaryKind> m_fast;
    bool m_swapped = false;
};

/// A rank-0 tensor holding element `i` of `t`.
Tensor scalarOf(const Tensor& t, int64_t i);

} // namespace shardx::exec
