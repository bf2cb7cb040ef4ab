// DebuggerActions: the propagation debugger's commands (step, step back, step over op, step out,
// continue, reverse continue, restart, run to end, run to cursor, toggle breakpoint) as QActions.
#pragma once

#include <QObject>

class QAction;
class QMenu;
class QToolBar;

namespace shardx::views {

class SessionContext;

/// Owns the debugger's actions with their shortcuts (F10 step, Shift+F10 step back, F11 step over
/// op, Shift+F11 step out, F5 continue, Shift+F5 reverse continue, Ctrl+F5 restart, F9 toggle
/// breakpoint, Ctrl+F10 run to cursor) and keeps them enabled as the cursor allows.
class DebuggerActions : public QObject {
    Q_OBJECT

public:
    explicit DebuggerActions(SessionContext& context, QObject* parent = nullptr);

    QAction* stepForward() const { return m_step; }
    QAction* stepBack() const { return m_back; }
    QAction* stepOverOp() const { return m_over; }
    QAction* stepOut() const { return m_out; }
    QAction* continueForward() const { return m_continue; }
    QAction* continueBackward() const { return m_reverse; }
    QAction* restart() const { return m_restart; }
    QAction* runToEnd() const { return m_end; }
    QAction* runToCursor() const { return m_toCursor; }
    QAction* toggleBreakpoint() const { return m_toggle; }
    QAction* breakOnConflicts() const { return m_conflicts; }

    void addTo(QMenu* menu) const;
    void addTo(QToolBar* toolBar) const;

private:
    void updateEnabled();
    void toggleBreakpointAtSelection();
    void setBreakOnConflicts(bool on);

    SessionContext& m_context;
    QAction* m_step;
    QAction* m_back;
    QAction* m_over;
    QAction* m_out;
    QAction* m_continue;
    QAction* m_reverse;
    QAction* m_restart;
    QAction* m_end;
    QAction* m_toCursor;
    QAction* m_toggle;
    QAction* m_conflicts;
};

} // namespace shardx::views
