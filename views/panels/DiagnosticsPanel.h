// DiagnosticsPanel: every problem of opening and propagating, each clickable into the source.
#pragma once

#include <QWidget>

class QLabel;
class QTableView;

namespace shardx::views {

class DiagnosticsModel;
class SessionContext;

class DiagnosticsPanel : public QWidget {
    Q_OBJECT

public:
    explicit DiagnosticsPanel(SessionContext& context, QWidget* parent = nullptr);

    DiagnosticsModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }

private:
    void refresh();

    SessionContext& m_context;
    DiagnosticsModel* m_model;
    QTableView* m_view;
    QLabel* m_summary;
};

} // namespace shardx::views
