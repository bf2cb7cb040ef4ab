// Session: opening, propagation requests with recording, cancellation and progress, stepping,
// queries, edits and atomic saving.
#include "core/session/Session.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/io/JsonDocument.h"
#include "core/io/MlirPrinter.h"
#include "core/io/ModuleLoader.h"
#include "core/ir/FuncOps.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/ir/Verifier.h"
#include "core/propagation/PropagationObserver.h"
#include "core/propagation/ValueSharding.h"
#include "core/rules/RuleRegistry.h"
#include "core/trace/Explain.h"
#include "core/trace/TraceBinary.h"
#include "core/trace/TraceRecorder.h"

namespace shardx {

/// A file written under a temporary name beside `path` and renamed over it by commit(); removed
/// when destroyed uncommitted.
class SessionAtomicFile {
public:
    explicit SessionAtomicFile(const std::string& path);
    ~SessionAtomicFile();
    SessionAtomicFile(const SessionAtomicFile&) = delete;
    SessionAtomicFile& operator=(const SessionAtomicFile&) = delete;
    std::ostream& stream() { return m_out; }
    Status commit();

private:
    std::string m_path, m_temp;
    std::ofstream m_out;
    bool m_committed = false;
};

namespace {

/// Counts steps and reports progress at passes, stages and every few thousand steps.
class ProgressObserver : public PropagationObserver {
public:
    ProgressObserver(const ProgressFn& fn, Progress& progress) : m_fn(fn), m_progress(progress) {}

    void stageBegin(const std::string& name, StageKind) override
    {
        m_progress.stage = name;
        report();
    }
    void stageEnd() override { m_progress.stage.clear(); }
    void passBegin(const std::string&, const std::string&) override { report(); }
    void step(const PropagationStep&) override
    {
        if (++m_progress.steps % 4096 == 0)
            report();
    }
    void report()
    {
        if (m_fn)
            m_fn(m_progress);
    }

private:
    const ProgressFn& m_fn;
    Progress& m_progress;
};

/// The value of `module` whose ProgramIds index is `id`, or nullptr.
ir::Value* valueById(ir::Module& module, int id)
{
    ir::Value* found = nullptr;
    module.op().walkPreOrder([&](ir::Op* op) {
        for (const auto& r : op->results())
            if (r->programId == id)
                found = r.get();
        for (const auto& region : op->regions())
            for (const auto& block : region->blocks())
                for (const auto& a : block->args())
                    if (a->programId == id)
                        found = a.get();
        return found == nullptr;
    });
    return found;
}

/// Every value of `module` by its program id (the first in pre-order, as valueById finds it);
/// null where no value has the id.
std::vector<const ir::Value*> valuesById(const ir::Module& module)
{
    std::vector<const ir::Value*> out;
    auto add = [&](const ir::Value* v) {
        if (v->programId < 0)
            return;
        if (static_cast<size_t>(v->programId) >= out.size())
            out.resize(static_cast<size_t>(v->programId) + 1, nullptr);
        if (!out[static_cast<size_t>(v->programId)])
            out[static_cast<size_t>(v->programId)] = v;
    };
    const_cast<ir::Op&>(module.op()).walkPreOrder([&](ir::Op* op) {
        for (const auto& r : op->results())
            add(r.get());
        for (const auto& region : op->regions())
            for (const auto& block : region->blocks())
                for (const auto& a : block->args())
                    add(a.get());
        return true;
    });
    return out;
}

size_t countOps(const ir::Module& module)
{
    size_t n = 0;
    const_cast<ir::Op&>(module.op()).walk([&](ir::Op*) { ++n; });
    return n - 1;
}

} // namespace

Session::Session() = default;
Session::~Session() = default;

// ---- opening ----------------------------------------------------------------------------------

void Session::close()
{
    m_cursor.reset();
    m_trace.reset();
    m_result.reset();
    m_source.reset();
    m_lastRequest.reset();
    m_diagnostics.clear();
    m_path.clear();
}

namespace {

io::ReadOptions readOptions(const OpenOptions& options)
{
    io::ReadOptions read;
    read.allowUnregisteredDialects = options.allowUnregisteredDialects;
    read.keepUnknownOps = !options.strict;
    read.firstLine = options.firstLine;
    return read;
}

} // namespace

ir::VerifyOptions Session::verifyOptions(ir::VerifyScope scope) const
{
    ir::VerifyOptions v;
    v.scope = scope;
    v.allowUnknownOps = !m_openOptions.strict;
    return v;
}

bool Session::adopt(std::unique_ptr<ir::Module> module, const OpenOptions& options)
{
    if (!module || m_diagnostics.hasErrors())
        return false;
    m_source = std::move(module);
    // The names users know are taken from the module as read, before any pass renames it.
    m_source->programIds();
    if (options.verify && !ir::verifyModule(*m_source, m_diagnostics, verifyOptions(ir::VerifyScope::EveryOp)))
        return false;
    return !m_diagnostics.hasErrors();
}

bool Session::open(const std::string& path, const OpenOptions& options)
{
    close();
    m_path = path;
    m_openOptions = options;
    return adopt(io::loadModuleFile(path, m_diagnostics, readOptions(options)), options);
}

bool Session::openText(std::string_view text, const std::string& name, const OpenOptions& options)
{
    close();
    m_path = name;
    m_openOptions = options;
    return adopt(io::loadModuleText(text, name, m_diagnostics, readOptions(options)), options);
}

bool Session::openTrace(const std::string& path)
{
    close();
    m_path = path;
    Expected<Trace> trace = readTraceFile(path);
    if (!trace) {
        m_diagnostics.error(trace.error().pos, trace.error().message);
        return false;
    }
    m_trace = std::make_unique<Trace>(std::move(*trace));
    m_cursor = std::make_unique<TraceCursor>(*m_trace);
    m_cursor->seek(m_trace->numSteps());
    return true;
}

bool Session::verify(DiagnosticList& out) const
{
    const ir::Module* m = module();
    return m && ir::verifyModule(*m, out, verifyOptions(ir::VerifyScope::EveryOp));
}

const ir::ProgramIds* Session::ids() const
{
    ir::Module* m = m_result ? m_result.get() : m_source.get();
    return m ? m->programIdsIfBuilt() : nullptr;
}

// ---- propagation --------------------------------------------------------------------------------

/// One propagation request on its own copy of the source module (see Session::startPropagation).
class PropagationRun {
public:
    PropagationRequest request;
    std::vector<PassInvocation> passes;
    std::unique_ptr<ir::Module> work;
    ir::VerifyOptions verify;
    PropagationResult result;
    std::unique_ptr<Trace> trace;
    std::unique_ptr<SessionAtomicFile> traceFile; ///< request.traceFile while it is written
    std::unique_ptr<TraceBinaryWriter> traceWriter;
    std::atomic<bool> cancel{false};
    std::atomic<bool>* cancelFlag = &cancel; ///< Session::propagate points it at the session's flag
    /// The module `work` copies, while that copy is deferred (CopySource::Later); null once made.
    const ir::Module* source = nullptr;
    bool ran = false;
};

void PropagationRunDeleter::operator()(PropagationRun* run) const { delete run; }

PropagationRunPtr Session::startPropagation(const PropagationRequest& request, CopySource copy)
{
    PropagationRunPtr run(new PropagationRun);
    run->request = request;
    run->verify = verifyOptions(ir::VerifyScope::FirstFailure);
    m_lastRequest = request;
    PropagationResult& result = run->result;
    if (!m_source) {
        result.diagnostics.error(SourcePos{m_path, 0, 0}, "no module is open");
        return run;
    }
    if (request.passes.empty()) {
        const PropagationStrategy* strategy = findPropagationStrategy(request.strategy);
        if (!strategy) {
            result.diagnostics.error(SourcePos{}, "unknown strategy '" + request.strategy +
                                                      "' (known: " + propagationStrategyList() + ")");
            return run;
        }
        run->passes.push_back(PassInvocation{findPass(strategy->pass), request.strategyOptions});
    } else {
        for (const std::string& text : request.passes) {
            Expected<PassInvocation> pass = parsePassInvocation(text);
            if (!pass) {
                result.diagnostics.error(SourcePos{}, pass.error().message);
                return run;
            }
            run->passes.push_back(std::move(*pass));
        }
    }
    if (request.consumeSource)
        run->work = std::move(m_source); // the caller reads only the result (the CLI)
    else if (copy == CopySource::Later)
        run->source = m_source.get();
    else
        run->work = m_source->clone();
    return run;
}

void copyPropagationSource(PropagationRun& run)
{
    if (run.source && !run.work && !run.cancelFlag->load())
        run.work = run.source->clone();
    run.source = nullptr; // never read again: the session may change or go from here on
}

bool propagationCancelled(const PropagationRun& run) { return run.cancelFlag->load(); }

void runPropagation(PropagationRun& run, const ProgressFn& progress)
{
    run.ran = true;
    if (run.source) {
        // Deferred and never copied: the caller broke copyPropagationSource()'s contract.
        run.result.diagnostics.error(SourcePos{}, "propagation ran before its copy of the module was made");
        run.source = nullptr;
        return;
    }
    if (!run.work) {
        // A run cancelled before its copy was made.
        run.result.cancelled = run.cancelFlag->load();
        return;
    }
    PropagationResult& result = run.result;
    std::unique_ptr<TraceRecorder> recorder;
    if (run.request.record) {
        recorder = std::make_unique<TraceRecorder>(*run.work);
        if (!run.request.traceFile.empty()) {
            run.traceFile = std::make_unique<SessionAtomicFile>(run.request.traceFile);
            if (!run.traceFile->stream()) {
                result.diagnostics.error(SourcePos{}, "cannot write '" + run.request.traceFile + "'");
                return;
            }
            run.traceWriter = std::make_unique<TraceBinaryWriter>(run.traceFile->stream(), recorder->data().initial);
            recorder->streamTo(run.traceWriter.get(), run.request.keepTrace);
        }
    }
    Progress state;
    state.numPasses = run.passes.size();
    state.opsInModule = progress ? countOps(*run.work) : 0; // a walk only for whom it reports to
    ProgressObserver counter(progress, state);
    ObserverFanOut observers({recorder.get(), &counter});
    PassContext context{result.diagnostics, &observers, run.cancelFlag};
    bool ok = true;
    for (size_t i = 0; ok && i < run.passes.size(); ++i) {
        state.pass = run.passes[i].pass->name;
        state.passIndex = i;
        counter.report();
        ok = run.passes[i].pass->run(*run.work, run.passes[i].options, context) && !result.diagnostics.hasErrors();
        if (ok && run.request.verifyAfterEachPass)
            ok = ir::verifyModule(*run.work, result.diagnostics, run.verify);
        result.passes.push_back(run.passes[i].pass->name);
    }
    result.cancelled = run.cancelFlag->load();
    result.steps = state.steps;
    result.ok = ok && !result.cancelled;
    if (result.ok && recorder && run.traceWriter) {
        // The file is complete only once propagation succeeded: otherwise it is removed.
        Status written = recorder->finishStream(run.request.keyframeInterval)
                             ? run.traceFile->commit()
                             : Status(Error{"cannot write '" + run.request.traceFile + "'", {}});
        if (!written) {
            result.diagnostics.error(SourcePos{}, written.error().message);
            result.ok = false;
        }
    }
    if (result.ok && recorder) {
        result.steps = recorder->numSteps();
        if (!run.traceWriter || run.request.keepTrace)
            run.trace = std::make_unique<Trace>(recorder->takeTrace(run.request.keyframeInterval));
    }
    run.traceWriter.reset();
    run.traceFile.reset();
}

void cancelPropagation(PropagationRun& run) { run.cancelFlag->store(true); }

PropagationResult Session::finishPropagation(PropagationRunPtr run)
{
    if (!run->ran) {
        copyPropagationSource(*run); // the session's thread: its source cannot change meanwhile
        runPropagation(*run, {});
    }
    PropagationResult result = std::move(run->result);
    if (!result.ok)
        return result;
    m_result = std::move(run->work);
    m_cursor.reset();
    m_trace = std::move(run->trace);
    if (m_trace) {
        m_cursor = std::make_unique<TraceCursor>(*m_trace);
        m_cursor->seek(m_trace->numSteps());
    }
    return result;
}

PropagationResult Session::propagate(const PropagationRequest& request, const ProgressFn& progress)
{
    m_cancel.store(false);
    PropagationRunPtr run = startPropagation(request);
    run->cancelFlag = &m_cancel;
    runPropagation(*run, progress);
    return finishPropagation(std::move(run));
}

PropagationResult Session::repropagate(const ProgressFn& progress)
{
    if (!m_lastRequest) {
        PropagationResult r;
        r.diagnostics.error(SourcePos{m_path, 0, 0}, "nothing was propagated yet");
        return r;
    }
    const PropagationRequest request = *m_lastRequest;
    return propagate(request, progress);
}

// ---- stepping ---------------------------------------------------------------------------------

void Session::seek(size_t step)
{
    if (m_cursor)
        m_cursor->seek(std::min(step, m_trace->numSteps()));
}

size_t Session::position() const { return m_cursor ? m_cursor->position() : 0; }

const TensorSharding* Session::shardingAt(int value) const
{
    if (m_cursor)
        return m_cursor->sharding(value);
    return nullptr;
}

std::optional<ir::Type> Session::valueType(int value) const
{
    const ir::Module* m = module();
    const ir::ProgramIds* names = ids();
    if (!m || !names || value < 0 || static_cast<size_t>(value) >= names->values().size())
        return std::nullopt;
    const ir::ProgramValue& pv = names->values()[static_cast<size_t>(value)];
    if (pv.funcResult >= 0) {
        for (ir::Op* f : m->funcs())
            if (f->programId == pv.func) {
                const ir::Type fn = ir::funcType(*f);
                if (static_cast<size_t>(pv.funcResult) < fn.results().size())
                    return fn.results()[static_cast<size_t>(pv.funcResult)];
            }
        return std::nullopt;
    }
    const ir::Value* v = valueById(const_cast<ir::Module&>(*m), value);
    return v ? std::optional<ir::Type>(v->type()) : std::nullopt;
}

const std::vector<int>& Session::stateAt() const
{
    static const std::vector<int> kNone;
    return m_cursor ? m_cursor->state() : kNone;
}

// ---- queries -------------------------------------------------------------------------------------

Expected<int> Session::findValue(const std::string& query) const
{
    if (const ir::ProgramIds* names = ids())
        return names->findValue(query);
    if (m_trace)
        return findTraceValue(*m_trace, query);
    return Error{"no module is open", {}};
}

Expected<int> Session::findOp(const std::string& query) const
{
    if (const ir::ProgramIds* names = ids())
        return names->findOp(query);
    return Error{"no module is open", {}};
}

Expected<ValueExplanation> Session::explain(int value, const std::optional<std::string>& axis) const
{
    if (!m_trace)
        return Error{"no trace: propagate with recording first", {}};
    if (value < 0 || static_cast<size_t>(value) >= m_trace->values().size())
        return Error{"value " + std::to_string(value) + " is not in the trace", {}};
    return explainValue(*m_trace, value, axis);
}

Expected<PartitionModel> Session::partition(const PartitionOptions& options) const
{
    const ir::Module* m = module();
    if (!m)
        return Error{"no program is open", {}};
    Expected<PartitionModel> model = buildPartitionModel(*m, options);
    if (!model || !m_trace)
        return model;
    // Each side of a collective's cause: the steps that carried its axes and the annotations they
    // came from; the cause step is the latest of them, else the last step of the op itself.
    const Trace& trace = *m_trace;
    const TraceValueIndex index(trace); // one pass over the trace for every collective
    auto fill = [&](CauseSide& side) {
        if (side.value < 0 || static_cast<size_t>(side.value) >= trace.values().size())
            return;
        std::vector<int> steps;
        std::vector<std::string> origins;
        for (const AxisOrigin& o : traceOrigins(index, side.value)) {
            steps.insert(steps.end(), o.steps.begin(), o.steps.end());
            if (o.from >= 0 && static_cast<size_t>(o.from) < trace.values().size())
                origins.push_back(trace.values()[static_cast<size_t>(o.from)].displayName);
        }
        std::sort(steps.begin(), steps.end());
        steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
        std::sort(origins.begin(), origins.end());
        origins.erase(std::unique(origins.begin(), origins.end()), origins.end());
        side.steps = std::move(steps);
        side.origins = std::move(origins);
    };
    for (CollectiveInfo& c : model->collectives) {
        fill(c.fromSide);
        fill(c.toSide);
        for (const CauseSide* side : {&c.fromSide, &c.toSide})
            if (!side->steps.empty())
                c.causeStep = std::max(c.causeStep, side->steps.back());
        if (c.causeStep < 0 && c.opIndex >= 0)
            c.causeStep = index.lastStepOfOp(c.opIndex);
    }
    return model;
}

namespace {

/// True when `v` lives in the body of an sdy.manual_computation whose manual axes are every axis of size > 1 of
/// the module's meshes: its type is already one device's piece (JAX's shard_map), so "replicated" means nothing.
bool insideFullyManualComputation(const ir::Value* v, const ir::Module* module)
{
    if (!v || !module)
        return false;
    const ir::Op* op =
        v->definingOp() ? v->definingOp()->parentOp() : (v->ownerBlock() ? v->ownerBlock()->parentOp() : nullptr);
    for (; op; op = op->parentOp()) {
        if (op->name() != "sdy.manual_computation")
            continue;
        const ir::Attribute* attr = op->attr("manual_axes");
        const ir::ManualAxesAttr* manual = attr ? attr->as<ir::ManualAxesAttr>() : nullptr;
        if (!manual)
            return false;
        for (const ir::Op* meshOp : module->meshes()) {
            const Mesh* mesh = ir::meshOpMesh(*meshOp);
            if (!mesh)
                continue;
            for (const MeshAxis& axis : mesh->axes())
                if (axis.size > 1 &&
                    std::find(manual->axes.begin(), manual->axes.end(), axis.name) == manual->axes.end())
                    return false;
        }
        return true;
    }
    return false;
}

} // namespace

Expected<std::vector<ReplicatedTensor>> Session::replicatedTensors(int64_t minBytes) const
{
    if (!m_trace)
        return Error{"no trace: propagate with recording first", {}};
    const ir::Module* m = module();
    std::vector<ReplicatedTensor> out;
    // valueType() and valuePosition() walk the module for one value: here every value's type and
    // position are read once, and the trace is indexed once for every explanation.
    const std::vector<const ir::Value*> values = m && ids() ? valuesById(*m) : std::vector<const ir::Value*>{};
    const std::vector<const ir::Value*> sourceValues =
        m_source ? valuesById(*m_source) : std::vector<const ir::Value*>{};
    auto typeOf = [&](int value) -> std::optional<ir::Type> {
        const ir::ProgramIds* names = ids();
        if (!m || !names || static_cast<size_t>(value) >= names->values().size())
            return std::nullopt;
        if (names->values()[static_cast<size_t>(value)].funcResult >= 0)
            return valueType(value); // a function result: read from its function's type
        const ir::Value* v = static_cast<size_t>(value) < values.size() ? values[static_cast<size_t>(value)] : nullptr;
        return v ? std::optional<ir::Type>(v->type()) : std::nullopt;
    };
    auto positionOf = [&](int value) {
        const ir::Value* v =
            static_cast<size_t>(value) < sourceValues.size() ? sourceValues[static_cast<size_t>(value)] : nullptr;
        return !v ? SourcePos{} : v->definingOp() ? v->definingOp()->pos : v->pos();
    };
    const TraceValueIndex index(*m_trace);
    for (size_t v = 0; v < m_trace->values().size(); ++v) {
        const int value = static_cast<int>(v);
        std::optional<ir::Type> type = typeOf(value);
        if (!type || !type->isRankedTensor() || !type->hasStaticShape())
            continue;
        const int bits = ir::elementBitWidth(type->elementType());
        const int64_t bytes = type->numElements() * std::max(1, (bits + 7) / 8);
        if (bytes < minBytes)
            continue;
        if (insideFullyManualComputation(static_cast<size_t>(value) < values.size() ? values[value] : nullptr, m))
            continue; // a per-device value (shard_map's body): not replicated, manual
        ValueExplanation e = explainValue(index, value);
        if (e.missing.empty() && e.blockedBy.empty())
            continue;
        ReplicatedTensor r;
        r.value = value;
        r.id = e.id;
        r.displayName = e.displayName;
        r.opName = e.opName;
        r.position = positionOf(value);
        r.bytes = bytes;
        r.sharding = e.final ? e.final->toString() : std::string("<no sharding>");
        const Mesh* mesh = nullptr;
        if (e.final && m)
            mesh = ir::meshOf(*m, *e.final);
        if (!mesh && m)
            for (ir::Op* meshOp : m->meshes())
                if ((mesh = ir::meshOpMesh(*meshOp)) && !mesh->axes().empty())
                    break;
        r.devices = mesh ? std::max<int64_t>(1, mesh->totalSize()) : 1;
        r.shards = 1;
        if (e.final && mesh)
            for (const DimSharding& d : e.final->dims)
                r.shards *= std::max<int64_t>(1, axesProduct(d.axes, *mesh));
        r.bytesPerDevice = bytes / r.shards;
        r.extraBytesPerDevice = std::max<int64_t>(0, r.bytesPerDevice - bytes / r.devices);
        if (r.shards >= r.devices)
            continue; // as sharded as the mesh allows
        for (const AxisExplanation& a : e.missing)
            r.reasons.push_back(a.sentence);
        r.reasons.insert(r.reasons.end(), e.blockedBy.begin(), e.blockedBy.end());
        out.push_back(std::move(r));
    }
    std::stable_sort(out.begin(), out.end(), [](const ReplicatedTensor& a, const ReplicatedTensor& b) {
        return a.extraBytesPerDevice > b.extraBytesPerDevice;
    });
    return out;
}

Expected<OpFactorTable> Session::factorTable(int op, size_t step) const
{
    if (!m_trace)
        return Error{"no trace: propagate with recording first", {}};
    if (op < 0 || static_cast<size_t>(op) >= m_trace->ops().size())
        return Error{"op " + std::to_string(op) + " is not in the trace", {}};
    OpFactorTable out;
    out.op = op;
    out.position = std::min(step, m_trace->numSteps());
    // The rule and tensors as the op's steps recorded them (the latest step at or before the
    // position, else the first one after it).
    const TraceStep* found = nullptr;
    for (size_t si = 0; si < m_trace->numSteps(); ++si) {
        const TraceStep& s = m_trace->steps()[si];
        if (s.op != op || s.rule < 0 || (s.kind != TraceStepKind::Op && s.kind != TraceStepKind::Barrier))
            continue;
        if (!found || si < out.position)
            found = &s;
        if (si >= out.position)
            break;
    }
    if (found) {
        const TraceRule& rule = m_trace->rule(*found);
        out.rule.factorSizes = rule.factorSizes;
        const size_t numOperands = static_cast<size_t>(found->numOperands);
        out.rule.operands.assign(rule.mappings.begin(),
                                 rule.mappings.begin() +
                                     static_cast<std::ptrdiff_t>(std::min(numOperands, rule.mappings.size())));
        if (numOperands < rule.mappings.size())
            out.rule.results.assign(rule.mappings.begin() + static_cast<std::ptrdiff_t>(numOperands),
                                    rule.mappings.end());
        out.meshName = found->meshName;
        out.values = found->tensorValues;
    } else {
        // Never visited: the rule the registry gives the op of module().
        ir::Module* m = m_result ? m_result.get() : m_source.get();
        ir::Op* live = nullptr;
        if (m)
            m->op().walkPreOrder([&](ir::Op* o) {
                if (o->programId == op)
                    live = o;
                return live == nullptr;
            });
        if (!live)
            return Error{m_trace->ops()[static_cast<size_t>(op)].id + " has no sharding rule in the trace", {}};
        RuleResult r = computeOpShardingRule(*live, RuleOptions{});
        if (r.outcome != RuleOutcome::Created)
            return Error{m_trace->ops()[static_cast<size_t>(op)].id + " has no sharding rule: " + r.reason, {}};
        out.rule = *r.rule;
        for (ir::Value* v : live->operands())
            out.values.push_back(v ? v->programId : -1);
        for (const auto& v : live->results())
            out.values.push_back(v->programId);
    }
    // The shardings at the position, on the mesh of the first sharded tensor.
    TraceCursor cursor(*m_trace);
    cursor.seek(out.position);
    std::vector<const TensorSharding*> operands, results;
    for (size_t t = 0; t < out.values.size(); ++t) {
        const TensorSharding* s = out.values[t] >= 0 ? cursor.sharding(out.values[t]) : nullptr;
        (t < out.rule.operands.size() ? operands : results).push_back(s);
        if (s && out.meshName.empty())
            out.meshName = s->mesh.symbol;
    }
    const ir::Module* m = module();
    const Mesh* mesh = m ? m->findMesh(out.meshName) : nullptr;
    for (const TensorSharding* s : operands)
        if (!mesh && s && s->mesh.inlineMesh)
            mesh = &*s->mesh.inlineMesh;
    if (!mesh)
        return Error{"no mesh to project " + m_trace->ops()[static_cast<size_t>(op)].id + " on", {}};
    out.table = buildProjection(operands, results, out.rule, *mesh);
    return out;
}

Expected<std::vector<AxisOrigin>> Session::origins(int value) const
{
    if (!m_trace)
        return Error{"no trace: propagate with recording first", {}};
    if (value < 0 || static_cast<size_t>(value) >= m_trace->values().size())
        return Error{"value " + std::to_string(value) + " is not in the trace", {}};
    return traceOrigins(*m_trace, value);
}

SourcePos Session::opPosition(int op) const
{
    SourcePos pos;
    if (!m_source || op < 0)
        return pos;
    const_cast<ir::Op&>(m_source->op()).walkPreOrder([&](ir::Op* o) {
        if (o->programId == op)
            pos = o->pos;
        return pos.line == 0;
    });
    return pos;
}

SourcePos Session::valuePosition(int value) const
{
    if (!m_source || value < 0)
        return {};
    const ir::Value* v = valueById(*m_source, value);
    if (!v)
        return {};
    return v->definingOp() ? v->definingOp()->pos : v->pos();
}

// ---- editing -------------------------------------------------------------------------------------

std::optional<TensorSharding> Session::sourceSharding(int value) const
{
    if (!m_source)
        return std::nullopt;
    const ir::ProgramIds& names = *m_source->programIdsIfBuilt();
    if (value < 0 || static_cast<size_t>(value) >= names.values().size())
        return std::nullopt;
    const ir::ProgramValue& pv = names.values()[static_cast<size_t>(value)];
    if (pv.funcResult >= 0) {
        for (ir::Op* f : m_source->funcs())
            if (f->programId == pv.func) {
                const TensorSharding* r = ir::funcResultSharding(*f, static_cast<unsigned>(pv.funcResult));
                return r ? std::optional<TensorSharding>(*r) : std::nullopt;
            }
        return std::nullopt;
    }
    const ir::Value* v = valueById(*m_source, value);
    return v ? getOwnSharding(v) : std::nullopt;
}

Status Session::checkSharding(int value, const std::optional<TensorSharding>& sharding) const
{
    Expected<std::unique_ptr<ir::Module>> edited = editedWith(value, sharding);
    if (!edited)
        return edited.error();
    return Status::success();
}

Status Session::setSharding(int value, const std::optional<TensorSharding>& sharding)
{
    Expected<std::unique_ptr<ir::Module>> edited = editedWith(value, sharding);
    if (!edited)
        return edited.error();
    m_source = std::move(*edited);
    m_result.reset();
    m_cursor.reset();
    m_trace.reset();
    return Status::success();
}

Expected<std::unique_ptr<ir::Module>> Session::editedWith(int value,
                                                          const std::optional<TensorSharding>& sharding) const
{
    if (!m_source)
        return Error{"no module is open", {}};
    const ir::ProgramIds& names = *m_source->programIdsIfBuilt();
    if (value < 0 || static_cast<size_t>(value) >= names.values().size())
        return Error{"no value " + std::to_string(value) + " in the program", {}};
    const ir::ProgramValue& pv = names.values()[static_cast<size_t>(value)];
    // Edit a copy, so that a sharding that does not verify changes nothing.
    std::unique_ptr<ir::Module> edited = m_source->clone();
    if (pv.funcResult >= 0) {
        ir::Op* func = nullptr;
        for (ir::Op* f : edited->funcs())
            if (f->programId == pv.func)
                func = f;
        if (!func)
            return Error{pv.id + " is not in the program", {}};
        if (sharding)
            ir::setFuncResultAttr(*func, static_cast<unsigned>(pv.funcResult), "sdy.sharding",
                                  ir::makeAttr(ir::ShardingAttr{*sharding}));
        else
            ir::removeFuncResultAttr(*func, static_cast<unsigned>(pv.funcResult), "sdy.sharding");
    } else {
        ir::Value* v = valueById(*edited, value);
        if (!v)
            return Error{pv.id + " is not in the program (a pass made it)", {}};
        if (!canHoldSharding(v))
            return Error{pv.name + " cannot hold a sharding of its own", {}};
        if (sharding) {
            setOwnSharding(v, *sharding);
        } else if (getOwnSharding(v)) {
            // Removing: func arguments and op results store shardings as attributes.
            if (ir::Op* def = v->definingOp()) {
                if (def->numResults() == 1)
                    def->removeAttribute("sdy.sharding");
                else
                    return Error{"removing the sharding of one result of a multi-result op is not supported; set "
                                 "an open sharding instead",
                                 {}};
            } else if (ir::Op* owner = v->ownerBlock()->parentOp(); owner && owner->name() == "func.func") {
                ir::removeFuncArgAttr(*owner, v->index(), "sdy.sharding");
            } else {
                return Error{pv.name + ": only argument and result shardings can be removed", {}};
            }
        }
    }
    DiagnosticList diags;
    if (!ir::verifyModule(*edited, diags, verifyOptions(ir::VerifyScope::FirstFailure))) {
        const Diagnostic& d = diags.all().front();
        return Error{d.message, d.pos};
    }
    return edited;
}

// ---- saving -------------------------------------------------------------------------------------

std::string Session::text(Format format, bool source) const
{
    const ir::Module* m = source ? m_source.get() : module();
    if (!m)
        return {};
    return format == Format::Json ? io::writeJsonDocument(*m, 1) : io::printModule(*m);
}

void Session::writeText(std::ostream& out, Format format, bool source) const
{
    const ir::Module* m = source ? m_source.get() : module();
    if (!m)
        return;
    if (format == Format::Json)
        out << io::writeJsonDocument(*m, 1);
    else
        io::printModule(*m, {}, out);
}

Status Session::save(const std::string& path, Format format, bool source) const
{
    if (!(source ? m_source.get() : module()))
        return Error{"no module is open", {}};
    if (format == Format::Auto)
        format = std::filesystem::path(path).extension() == ".json" ? Format::Json : Format::Mlir;
    return writeFileAtomically(path, [&](std::ostream& out) { writeText(out, format, source); });
}

Status Session::saveTrace(const std::string& path) const
{
    if (!m_trace)
        return Error{"no trace to save: propagate with recording first", {}};
    if (isJsonTracePath(path))
        return writeFileAtomically(path, [&](std::ostream& out) { m_trace->writeJson(out); });
    return writeFileAtomically(path, [&](std::ostream& out) { writeTraceBinary(*m_trace, out); });
}

bool isJsonTracePath(const std::string& path) { return std::filesystem::path(path).extension() == ".json"; }

Status writeFileAtomically(const std::string& path, std::string_view text)
{
    return writeFileAtomically(
        path, [&](std::ostream& out) { out.write(text.data(), static_cast<std::streamsize>(text.size())); });
}

SessionAtomicFile::SessionAtomicFile(const std::string& path) : m_path(path)
{
    namespace fs = std::filesystem;
    const fs::path target(path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    m_temp = (dir / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()))).string();
    m_out.open(m_temp, std::ios::binary | std::ios::trunc);
}

SessionAtomicFile::~SessionAtomicFile()
{
    if (!m_committed) {
        m_out.close();
        std::error_code ignored;
        std::filesystem::remove(m_temp, ignored);
    }
}

Status SessionAtomicFile::commit()
{
    namespace fs = std::filesystem;
    if (!m_out || !m_out.flush())
        return Error{"cannot write '" + m_path + "'", {}};
    m_out.close();
    std::error_code ec;
    fs::rename(m_temp, m_path, ec);
    if (ec)
        return Error{"cannot write '" + m_path + "': " + ec.message(), {}};
    m_committed = true;
    return Status::success();
}

Status writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write)
{
    SessionAtomicFile f(path);
    if (f.stream())
        write(f.stream());
    return f.commit();
}

} // namespace shardx
