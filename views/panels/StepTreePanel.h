// StepTreePanel: the propagation steps as a tree with filters; picks steps for the debugger.
#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QTreeView;

namespace shardx::views {

class SessionContext;
class StepTreeModel;

/// The step tree (pass > user priority > op-priority round > run > step > change). Clicking a step
/// selects it (and its op) for "run to cursor"; double-clicking runs to just after it; the cursor's
/// step is kept in view. Filters: text (op, value, loc), steps with changes only, conflicts only.
class StepTreePanel : public QWidget {
    Q_OBJECT

public:
    explicit StepTreePanel(SessionContext& context, QWidget* parent = nullptr);

    QTreeView* view() const { return m_view; }
    StepTreeModel* model() const { return m_model; }

private:
    void reload();
    void applyFilter();
    void showCurrent();
    void showContextMenu(const QPoint& pos);
    void spanNodeRows(const QModelIndex& parent);

    SessionContext& m_context;
    StepTreeModel* m_model;
    QTreeView* m_view;
    QLineEdit* m_search;
    QCheckBox* m_changesOnly;
    QCheckBox* m_conflictsOnly;
    QCheckBox* m_skipped;
    QLabel* m_count;
};

} // namespace shardx::views
