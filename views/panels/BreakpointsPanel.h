// BreakpointsPanel: the breakpoints (op, value, axis, decision kind, any conflict), added, enabled,
// removed, and the next hit of one found by double-click.
#pragma once

#include <QWidget>

class QListView;
class QToolButton;

namespace shardx::views {

class BreakpointModel;
class SessionContext;

class BreakpointsPanel : public QWidget {
    Q_OBJECT

public:
    explicit BreakpointsPanel(SessionContext& context, QWidget* parent = nullptr);
    BreakpointModel* model() const { return m_model; }
    QListView* view() const { return m_view; }

private:
    void addAxisBreakpoint();
    void removeSelected();

    SessionContext& m_context;
    BreakpointModel* m_model;
    QListView* m_view;
};

} // namespace shardx::views
