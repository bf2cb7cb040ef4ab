// SessionContext: opening, propagation and partitioning on the core thread, adopted on the UI
// thread; the cursor (coalesced), breakpoints, the selection, and undoable sharding edits.
#include "views/session/SessionContext.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QPointer>
#include <QTimer>
#include <QUndoCommand>
#include <QUndoStack>

#include "core/io/MlirPrinter.h"
#include "core/ir/SdyOps.h"
#include "views/session/CoreRunner.h"

namespace shardx::views {

/// An edit of one value's sharding in the user's program; undo puts the old one back. Both
/// propagate again with the last request.
class EditShardingCommand : public QUndoCommand {
public:
    EditShardingCommand(SessionContext& context, int value, std::optional<TensorSharding> before,
                        std::optional<TensorSharding> after, const QString& text)
        : QUndoCommand(text), m_context(context), m_value(value), m_before(std::move(before)), m_after(std::move(after))
    {}
    void redo() override { apply(m_after); }
    void undo() override { apply(m_before); }

private:
    void apply(const std::optional<TensorSharding>& s)
    {
        if (m_context.applySharding(m_value, s))
            m_context.repropagate();
    }
    SessionContext& m_context;
    int m_value;
    std::optional<TensorSharding> m_before;
    std::optional<TensorSharding> m_after;
};

SessionContext::SessionContext(QObject* parent)
    : QObject(parent), m_runner(new CoreRunner(this)), m_undo(new QUndoStack(this))
{
    m_request.strategy = "pipeline";
    m_request.record = true;
}

SessionContext::~SessionContext()
{
    cancel();
    // The runner's destructor (a child) joins its thread before the session goes.
    delete m_runner;
    m_runner = nullptr;
}

void SessionContext::setBusy(bool busy, const QString& what)
{
    m_busy = busy;
    emit busyChanged(busy, what);
}

// ---- opening --------------------------------------------------------------------------------------

void SessionContext::open(const QString& path, const OpenOptions& options, bool propagateAfter)
{
    cancel();
    const int generation = ++m_generation;
    setBusy(true, tr("Opening %1").arg(QFileInfo(path).fileName()));
    auto opened = std::make_shared<std::unique_ptr<Session>>();
    const std::string file = path.toStdString();
    m_runner->post(
        QStringLiteral("open"),
        [opened, file, options] {
            auto s = std::make_unique<Session>();
            s->open(file, options);
            *opened = std::move(s);
        },
        this,
        [this, opened, path, propagateAfter, generation] {
            adoptOpened(std::move(*opened), path, propagateAfter, generation);
        });
}

void SessionContext::openText(const QString& text, const QString& name, const OpenOptions& options, bool propagateAfter)
{
    cancel();
    const int generation = ++m_generation;
    setBusy(true, tr("Opening %1").arg(name));
    auto opened = std::make_shared<std::unique_ptr<Session>>();
    m_runner->post(
        QStringLiteral("open"),
        [opened, t = text.toStdString(), n = name.toStdString(), options] {
            auto s = std::make_unique<Session>();
            s->openText(t, n, options);
            *opened = std::move(s);
        },
        this,
        [this, opened, name, propagateAfter, generation] {
            adoptOpened(std::move(*opened), name, propagateAfter, generation);
        });
}

void SessionContext::adoptOpened(std::unique_ptr<Session> session, const QString& path, bool propagateAfter,
                                 int generation)
{
    if (generation != m_generation)
        return; // a newer open or a close came first
    m_path = path;
    m_openDiagnostics = session->diagnostics();
    m_propagationDiagnostics.clear();
    const bool ok = session->sourceModule() != nullptr && !m_openDiagnostics.hasErrors();
    m_undo->clear();
    m_value = -1;
    m_op = -1;
    m_selectedStep = -1;
    m_step = 0;
    m_breakpoints.clear();
    cancel(); // a run still to copy the old session's module must not copy it once it goes
    {
        std::unique_lock lock(m_sessionMutex);
        if (session->sourceModule())
            m_session = std::move(session);
        else
            m_session.reset();
    }
    dropPartition();
    setBusy(false, {});
    emit opened(ok);
    emit moduleChanged();
    emit selectionChanged(m_value, m_op);
    emit stepChanged(m_step);
    emit breakpointsChanged();
    if (ok && propagateAfter)
        propagate(m_request);
}

void SessionContext::close()
{
    cancel();
    ++m_generation;
    {
        std::unique_lock lock(m_sessionMutex);
        m_session.reset();
    }
    dropPartition();
    m_path.clear();
    m_openDiagnostics.clear();
    m_propagationDiagnostics.clear();
    m_undo->clear();
    m_step = 0;
    m_value = -1;
    m_op = -1;
    m_selectedStep = -1;
    m_breakpoints.clear();
    setBusy(false, {});
    emit closed();
    emit moduleChanged();
    emit selectionChanged(-1, -1);
    emit stepChanged(0);
}

// ---- propagation ------------------------------------------------------------------------------------

void SessionContext::propagate(const PropagationRequest& request)
{
    if (!m_session || !m_session->sourceModule())
        return;
    cancel();
    m_request = request;
    const int generation = ++m_generation;
    // Started here (the session's thread: it checks the request), copied and run on the core
    // thread, finished here again. The copy of the source module (a third of a second at 100k
    // ops) is made under the reader lock, so that the graph's first frame never waits for it:
    // every writer of the session (an edit, an open, a close) cancels this run first, and a
    // cancelled run copies nothing. The holder frees the run if its result is never adopted.
    auto holder = std::make_shared<PropagationRunPtr>(m_session->startPropagation(request, Session::CopySource::Later));
    m_running = holder->get();
    setBusy(true, tr("Propagating"));
    QPointer<SessionContext> self(this);
    m_runner->post(
        QStringLiteral("propagate"),
        [this, holder, self] {
            {
                // The runner's thread is joined before this context goes, so `this` outlives the job.
                std::shared_lock lock(m_sessionMutex);
                copyPropagationSource(**holder);
            }
            runPropagation(**holder, [self](const Progress& p) {
                const QString what = QString::fromStdString(p.stage.empty() ? p.pass : p.pass + ": " + p.stage);
                const int done = static_cast<int>(p.passIndex);
                const int total = static_cast<int>(p.numPasses);
                const qulonglong steps = p.steps;
                QMetaObject::invokeMethod(
                    self.data(),
                    [self, what, done, total, steps] {
                        if (self)
                            emit self->progressed(what, done, total, steps);
                    },
                    Qt::QueuedConnection);
            });
        },
        this,
        [this, holder, generation] {
            if (m_running == holder->get())
                m_running = nullptr;
            if (generation != m_generation || !m_session)
                return; // replaced by a newer request, an edit, an open or a close
            PropagationResult result;
            {
                std::unique_lock lock(m_sessionMutex);
                result = m_session->finishPropagation(std::move(*holder));
            }
            dropPartition();
            m_propagationDiagnostics = result.diagnostics;
            setBusy(false, {});
            if (result.ok)
                m_step = numSteps();
            emit propagated(result.ok, result.cancelled);
            emit moduleChanged();
            emit stepChanged(m_step);
        });
}

void SessionContext::repropagate() { propagate(m_request); }

void SessionContext::cancel()
{
    if (m_running)
        cancelPropagation(*m_running);
}

// ---- cursor -------------------------------------------------------------------------------------------

size_t SessionContext::numSteps() const { return m_session ? m_session->numSteps() : 0; }

void SessionContext::setStep(size_t step)
{
    m_pendingStep = std::min(step, numSteps());
    if (m_stepQueued)
        return;
    m_stepQueued = true;
    QTimer::singleShot(0, this, [this] { flushStep(); });
}

void SessionContext::flushStep()
{
    m_stepQueued = false;
    if (!m_session || m_pendingStep == m_step)
        return;
    m_step = m_pendingStep;
    m_session->seek(m_step);
    emit stepChanged(m_step);
}

// ---- partitioning ----------------------------------------------------------------------------------

namespace {

/// Each device lists its shard of every tensor up to this many (tensor, device) pairs; a larger
/// program lists the functions' arguments and results only.
constexpr size_t kMaxListedShards = 200000;

/// Partitions `s` and finds its "why replicated?" list (on the core thread).
void computePartition(const Session& s, PartitionResult& out)
{
    PartitionOptions options;
    int64_t devices = 1;
    for (ir::Op* meshOp : s.module()->meshes())
        if (const Mesh* mesh = ir::meshOpMesh(*meshOp))
            devices = std::max(devices, mesh->totalSize());
    const size_t values = s.ids() ? s.ids()->values().size() : 0;
    out.everyTensor = values * static_cast<size_t>(devices) <= kMaxListedShards;
    options.shards = out.everyTensor ? ShardListing::All : ShardListing::Interface;
    Expected<PartitionModel> model = s.partition(options);
    if (model) {
        if (model->local)
            out.programText = QString::fromStdString(io::printModule(*model->local));
        out.model = std::move(*model);
        out.error.clear();
    } else {
        // With its position when it has one (a partitioner pass's first error): `file:line:col: error: ...`.
        const Error& e = model.error();
        out.error = QString::fromStdString(e.pos.isKnown() ? e.format() : e.message);
    }
    Expected<std::vector<ReplicatedTensor>> replicated = s.replicatedTensors();
    if (replicated) {
        out.replicated = std::move(*replicated);
        out.replicatedError.clear();
    } else {
        out.replicatedError = QString::fromStdString(replicated.error().message);
    }
}

} // namespace

void SessionContext::requestPartition()
{
    // While propagation (or an open) runs, the module is about to change: its end asks again.
    if (m_partition || m_partitioning || m_busy || !m_session || !m_session->trace())
        return;
    m_partitioning = true;
    const int generation = m_partitionGeneration;
    auto result = std::make_shared<PartitionResult>();
    // Stays when the job never finishes its work (a bug in core, caught by the runner).
    result->error = result->replicatedError = tr("Partitioning stopped with an internal error.");
    postRead(
        QStringLiteral("partition"),
        [result](const Session* s) {
            if (s && s->module())
                computePartition(*s, *result);
        },
        this,
        [this, result, generation] {
            if (generation != m_partitionGeneration)
                return; // the module changed meanwhile
            m_partitioning = false;
            m_partition = result;
            emit partitionChanged();
        });
}

void SessionContext::dropPartition()
{
    ++m_partitionGeneration;
    const bool had = m_partition || m_partitioning;
    m_partition.reset();
    m_partitioning = false;
    if (had)
        emit partitionChanged();
}

// ---- breakpoints --------------------------------------------------------------------------------------

void SessionContext::setBreakpoints(std::vector<Breakpoint> breakpoints)
{
    m_breakpoints = std::move(breakpoints);
    emit breakpointsChanged();
}

void SessionContext::addBreakpoint(const Breakpoint& b)
{
    if (std::find(m_breakpoints.begin(), m_breakpoints.end(), b) != m_breakpoints.end())
        return;
    m_breakpoints.push_back(b);
    emit breakpointsChanged();
}

bool SessionContext::runToBreakpoint(bool forward)
{
    if (!m_session || !m_session->trace())
        return false;
    const size_t from = m_stepQueued ? m_pendingStep : m_step;
    std::optional<size_t> hit = nextBreakpointPosition(*m_session->trace(), from, m_breakpoints, forward);
    setStep(hit ? *hit : (forward ? numSteps() : 0));
    return hit.has_value();
}

// ---- selection ------------------------------------------------------------------------------------------

void SessionContext::select(int value, int op)
{
    if (value >= 0 && op < 0 && m_session && m_session->ids()) {
        const ir::ProgramIds& ids = *m_session->ids();
        if (static_cast<size_t>(value) < ids.values().size())
            op = ids.values()[static_cast<size_t>(value)].op;
    }
    if (value == m_value && op == m_op)
        return;
    m_value = value;
    m_op = op;
    emit selectionChanged(m_value, m_op);
}

void SessionContext::selectStep(int stepIndex)
{
    if (stepIndex == m_selectedStep)
        return;
    m_selectedStep = stepIndex;
    emit selectedStepChanged(stepIndex);
}

// ---- edits -----------------------------------------------------------------------------------------------

Status SessionContext::applySharding(int value, const std::optional<TensorSharding>& sharding)
{
    if (!m_session)
        return Error{"no program is open", {}};
    cancel();
    ++m_generation; // a propagation still running describes the old program
    Status s;
    {
        std::unique_lock lock(m_sessionMutex);
        s = m_session->setSharding(value, sharding);
    }
    if (s) {
        dropPartition();
        emit moduleChanged();
    }
    return s;
}

Status SessionContext::editSharding(int value, const std::optional<TensorSharding>& sharding)
{
    if (!m_session || !m_session->sourceModule())
        return Error{"no program is open", {}};
    std::optional<TensorSharding> before;
    before = m_session->sourceSharding(value);
    // Check first, so that a refused edit leaves no command on the stack.
    if (Status s = m_session->checkSharding(value, sharding); !s)
        return s;
    const ir::ProgramIds* ids = m_session->ids();
    const QString name = ids && value >= 0 && static_cast<size_t>(value) < ids->values().size()
                             ? QString::fromStdString(ids->values()[static_cast<size_t>(value)].name)
                             : QString::number(value);
    m_undo->push(new EditShardingCommand(*this, value, before, sharding, tr("Edit sharding of %1").arg(name)));
    return {};
}

void SessionContext::postRead(const QString& tag, std::function<void(const Session*)> read, QObject* receiver,
                              std::function<void()> done)
{
    m_runner->post(
        tag,
        [this, read = std::move(read)] {
            // The runner's thread is joined before this context goes, so `this` outlives the job.
            std::shared_lock lock(m_sessionMutex);
            read(m_session.get());
        },
        receiver, std::move(done));
}

void SessionContext::waitForIdle()
{
    // Jobs may post results that post more jobs (open, then propagate): drain until quiet.
    for (int round = 0; round < 100; ++round) {
        m_runner->waitForIdle();
        QCoreApplication::processEvents(QEventLoop::AllEvents);
        QCoreApplication::sendPostedEvents();
        if (m_runner->pending() == 0 && !m_stepQueued) {
            // A job may have finished between the events above and the check (a small module
            // propagates in a millisecond): its result is posted, so deliver it, and go on when
            // that posted more work.
            QCoreApplication::sendPostedEvents();
            QCoreApplication::processEvents(QEventLoop::AllEvents);
            if (m_runner->pending() == 0 && !m_stepQueued)
                return;
        }
        QCoreApplication::processEvents(QEventLoop::AllEvents);
    }
}

} // namespace shardx::views
