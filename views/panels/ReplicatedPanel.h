// ReplicatedPanel: "why replicated?": the tensors that end less sharded than they could be, by cost.
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

class ReplicatedModel;
class SessionContext;

/// The "Why Replicated?" panel: every tensor that ends replicated or less sharded than its
/// neighbours offered (Session::replicatedTensors), largest cost per device first: the value, its
/// op, sharding, pieces, the bytes it costs each device over an even split and its first reason;
/// the details below list every reason, with links to the steps they name. Clicking a row selects
/// the value (the graph and the other panels follow). Asks SessionContext to partition when shown
/// and redraws on partitionChanged.
class ReplicatedPanel : public QWidget {
    Q_OBJECT

public:
    explicit ReplicatedPanel(SessionContext& context, QWidget* parent = nullptr);
    ~ReplicatedPanel() override;

    ReplicatedModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    /// The line above the table, or why nothing is shown.
    QString summaryText() const;
    /// Every reason of the current row (plain text).
    QString detailsText() const;

    /// Whether the panel's dock is the one shown among its tabs (QDockWidget::visibilityChanged: a dock
    /// behind another tab is still a visible widget). Partitioning is asked for only while it is.
    void setDockShown(bool shown);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refresh();
    void showDetails(const ReplicatedTensor* r);
    void followSelection(int value);

    SessionContext& m_context;
    ReplicatedModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QLabel* m_summary;
    QLabel* m_message;
    QSplitter* m_splitter;
    QTableView* m_view;
    QTextBrowser* m_details;
    std::shared_ptr<const PartitionResult> m_shown;
    bool m_dockShown = true; ///< outside a dock, shown whenever visible
};

} // namespace shardx::views
