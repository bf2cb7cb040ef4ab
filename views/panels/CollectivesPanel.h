// CollectivesPanel: the collectives of the partitioned program, with bytes, time and cause; a row
// selects the op that needs it and goes to the step that caused it.
#pragma once

#include <memory>

#include <QWidget>

#include "views/session/PartitionResult.h"

class QLabel;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;
class QTextBrowser;

namespace shardx::views {

class CollectivesModel;
class SessionContext;

/// The "Collectives" panel: a sortable table of every collective of the per-device program (kind,
/// mesh axes, replica groups, local shapes, payload and bytes sent per device, the cost model's
/// time, the op that needs it, the cause) under a line with the totals. Choosing a row selects
/// the op in the graph (SessionContext::select) and moves the debugger to the collective's cause
/// step; the details below it give the cause sentence, both sides (value, sharding, origins, the
/// steps behind them as links) and every replica group. Asks SessionContext to partition when
/// shown (nothing is computed here) and redraws on partitionChanged.
class CollectivesPanel : public QWidget {
    Q_OBJECT

public:
    explicit CollectivesPanel(SessionContext& context, QWidget* parent = nullptr);
    ~CollectivesPanel() override;

    CollectivesModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    /// The totals line, or why nothing is shown.
    QString summaryText() const;
    /// The details of the current row (plain text).
    QString detailsText() const;
    /// Follows a link of the details (`step:N` goes to the state after step N, `value:N` and
    /// `op:N` select).
    void openLink(const QString& link);

    /// Whether the panel's dock is the one shown among its tabs (QDockWidget::visibilityChanged: a dock
    /// behind another tab is still a visible widget). Partitioning is asked for only while it is.
    void setDockShown(bool shown);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refresh();
    void onCurrentChanged(const QModelIndex& current);
    /// Selects the op of `c` and seeks to its cause step.
    void goTo(const CollectiveInfo& c);
    void showDetails(const CollectiveInfo* c);
    /// Makes the row of the selected op current (without acting on it).
    void followSelection(int op);
    const CollectiveInfo* currentCollective() const;
    /// The value index of op `op`'s first result, -1 for none.
    int firstResultOf(int op) const;

    SessionContext& m_context;
    CollectivesModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QLabel* m_summary;
    QLabel* m_message;
    QSplitter* m_splitter;
    QTableView* m_view;
    QTextBrowser* m_details;
    std::shared_ptr<const PartitionResult> m_shown;
    bool m_dockShown = true;  ///< outside a dock, shown whenever visible
    bool m_following = false; ///< the current row is being set to follow the selection
};

} // namespace shardx::views
