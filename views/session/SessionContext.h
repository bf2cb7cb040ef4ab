// SessionContext: the open program as every panel sees it (RenderDoc's CaptureContext): the Session,
// the cursor, the selection and edits, with core work on the CoreRunner.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <shared_mutex>

#include <QObject>
#include <QString>

#include "core/session/Session.h"
#include "core/trace/Breakpoints.h"
#include "views/session/PartitionResult.h"

class QUndoStack;

namespace shardx::views {

class CoreRunner;

/// Owns the open Session and tells panels what changed. Panels read it on the UI thread and
/// never run core work themselves: opening and propagation run on runner() and their results are
/// adopted here, so the session a panel reads never changes under it.
///
/// Ids are ProgramIds indices: the same for the source module, the propagated module and the
/// trace (-1 for none).
class SessionContext : public QObject {
    Q_OBJECT

public:
    explicit SessionContext(QObject* parent = nullptr);
    ~SessionContext() override;

    CoreRunner& runner() { return *m_runner; }

    // ---- the program ----------------------------------------------------------------------------
    /// The open session, nullptr when none (or while the first open runs).
    const Session* session() const { return m_session.get(); }
    /// The file of the session (or of the last open that failed).
    const QString& filePath() const { return m_path; }
    /// Every problem of the last open, also when it failed.
    const DiagnosticList& openDiagnostics() const { return m_openDiagnostics; }
    /// Problems of the last propagation.
    const DiagnosticList& propagationDiagnostics() const { return m_propagationDiagnostics; }
    /// Opening or propagation is running.
    bool isBusy() const { return m_busy; }

    /// Opens `path` on the core thread; opened() follows. With `propagateAfter`, the request
    /// of propagationRequest() runs next (propagated() follows).
    void open(const QString& path, const OpenOptions& options = {}, bool propagateAfter = true);
    /// The same for text in memory (`name` stands for the file).
    void openText(const QString& text, const QString& name, const OpenOptions& options = {},
                  bool propagateAfter = true);
    void close();
    /// Runs `request` on the core thread (the result is adopted when it finishes, unless a newer
    /// request or an edit came first).
    void propagate(const PropagationRequest& request);
    /// Runs the last request again.
    void repropagate();
    /// Stops a running propagation at its next step.
    void cancel();
    /// The request propagate() ran last, or the default one (the whole pipeline, recorded).
    const PropagationRequest& propagationRequest() const { return m_request; }

    // ---- the cursor -------------------------------------------------------------------------------
    size_t numSteps() const;
    /// Steps applied (the state shown is the state after them).
    size_t step() const { return m_step; }
    /// Moves the cursor; stepChanged() follows once the event loop runs, so that many calls in a
    /// row (a held key) cost one update.
    void setStep(size_t step);

    // ---- partitioning -----------------------------------------------------------------------------
    /// The partitioned program of module() once requestPartition() computed it for the module as it
    /// is now, else nullptr. Dropped (partitionChanged()) whenever the module changes.
    const std::shared_ptr<const PartitionResult>& partitionResult() const { return m_partition; }
    /// Partitions the propagated program on the core thread, unless that is done or running for
    /// the module as it is now; partitionChanged() follows. Nothing happens before propagation
    /// recorded a trace or while core work that changes the module runs. Panels ask when they are
    /// shown, so a program nobody looks at is never partitioned.
    void requestPartition();
    /// A partition requested for the module as it is now has not finished yet.
    bool isPartitioning() const { return m_partitioning; }

    // ---- breakpoints -----------------------------------------------------------------------------
    const std::vector<Breakpoint>& breakpoints() const { return m_breakpoints; }
    void setBreakpoints(std::vector<Breakpoint> breakpoints);
    void addBreakpoint(const Breakpoint& b);
    /// Runs forwards (or backwards) from the cursor to the next step that hits an enabled
    /// breakpoint, else to the end (start). Returns true when a breakpoint stopped it.
    bool runToBreakpoint(bool forward = true);

    // ---- selection --------------------------------------------------------------------------------
    /// The step chosen in the step tree (its index, -1 for none): "run to cursor" goes past it.
    int selectedStep() const { return m_selectedStep; }
    void selectStep(int stepIndex);
    int selectedValue() const { return m_value; }
    int selectedOp() const { return m_op; }
    /// Selects a value and the op that defines it (or just an op, with value -1).
    void select(int value, int op = -1);

    // ---- edits --------------------------------------------------------------------------------------
    QUndoStack* undoStack() const { return m_undo; }
    /// Sets (or with nullopt removes) the sharding of a value of the user's program, as an undoable
    /// command, and propagates again. Fails without changing anything when the module would not
    /// verify.
    Status editSharding(int value, const std::optional<TensorSharding>& sharding);

    /// Asks the source panel to show `line`:`col` of `file` (a diagnostic, an op).
    void showSource(const QString& file, int line, int col) { emit sourceRequested(file, line, col); }

    /// Blocks until the core thread is idle and its results are adopted (tests, --screenshot).
    void waitForIdle();

    /// Runs `read` on the core thread, in order with the other core work, with the session as it
    /// is then (nullptr when none is open): for work too slow for the UI thread that reads the
    /// program (the graph panel builds its graph this way). While `read` runs, the UI thread
    /// waits before it replaces, closes, edits or adopts a propagation into the session, so
    /// `read` sees one consistent module, ProgramIds and trace; it must not use the cursor
    /// (shardingAt, stateAt), which the UI thread moves. `done` then runs on the UI thread,
    /// unless `receiver` was destroyed. A `tag` replaces queued jobs with the same tag.
    void postRead(const QString& tag, std::function<void(const Session*)> read, QObject* receiver,
                  std::function<void()> done);

signals:
    /// An open finished: `ok` when the module read and verified (openDiagnostics() lists the rest).
    void opened(bool ok);
    void closed();
    /// session()->module() or the trace changed (open, propagation, edit): rebuild what depends on them.
    void moduleChanged();
    /// A propagation finished (ok or not; not emitted when a newer request replaced it).
    void propagated(bool ok, bool cancelled);
    void stepChanged(size_t step);
    void selectionChanged(int value, int op);
    void selectedStepChanged(int stepIndex);
    /// partitionResult() changed: computed, or dropped because the module changed.
    void partitionChanged();
    void breakpointsChanged();
    void sourceRequested(const QString& file, int line, int col);
    /// Core work started or ended; `what` says what runs ("Opening model.mlir").
    void busyChanged(bool busy, const QString& what);
    /// Progress of the running propagation: `done` of `total` (passes), and steps so far.
    void progressed(const QString& what, int done, int total, qulonglong steps);

private:
    friend class EditShardingCommand;
    void adoptOpened(std::unique_ptr<Session> session, const QString& path, bool propagateAfter, int generation);
    void setBusy(bool busy, const QString& what);
    Status applySharding(int value, const std::optional<TensorSharding>& sharding);
    void flushStep();
    /// The module changed: the partition of the old one is dropped, and one running is ignored.
    void dropPartition();

    CoreRunner* m_runner;
    QUndoStack* m_undo;
    /// Held shared by postRead() jobs on the core thread, exclusively by the UI thread while it
    /// changes what m_session holds.
    std::shared_mutex m_sessionMutex;
    std::unique_ptr<Session> m_session;
    QString m_path;
    DiagnosticList m_openDiagnostics;
    DiagnosticList m_propagationDiagnostics;
    PropagationRequest m_request;
    PropagationRun* m_running = nullptr; ///< the run on the core thread, for cancel()
    int m_generation = 0;                ///< bumped by every open, close and propagation request
    bool m_busy = false;
    size_t m_step = 0;
    size_t m_pendingStep = 0;
    bool m_stepQueued = false;
    int m_value = -1;
    int m_op = -1;
    int m_selectedStep = -1;
    std::vector<Breakpoint> m_breakpoints;
    std::shared_ptr<const PartitionResult> m_partition;
    int m_partitionGeneration = 0; ///< bumped by dropPartition()
    bool m_partitioning = false;
};

} // namespace shardx::views
