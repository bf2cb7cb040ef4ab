// GraphPanel: the dataflow graph of the open program: groups laid out on the core thread, items
// restyled per step, search, zoom, minimap and legend.
#pragma once

#include <QPointer>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

#include "core/layout/DataflowGraph.h"
#include "core/layout/DataflowLayouter.h"
#include "core/layout/FlatLayout.h"
#include "views/graph/GraphTheme.h"

class QLabel;
class QLineEdit;
class QToolBar;
class QAction;

namespace shardx::views {

class GraphLegend;
class GraphMinimap;
class GraphScene;
class GraphStyler;
class GraphView;
class SessionContext;

/// Shows the DataflowGraph of the SessionContext's program. The graph is built and its groups
/// laid out on the context's core thread (never on the UI thread, never per step); the first
/// layout is posted before propagation, so the graph draws while propagation runs. Stepping
/// only restyles items (GraphStyler). Clicking a node selects its value in the context, and a
/// selection made elsewhere opens the node's groups and centres it.
class GraphPanel : public QWidget {
    Q_OBJECT

public:
    explicit GraphPanel(SessionContext& context, QWidget* parent = nullptr);
    ~GraphPanel() override;

    // For tests, benchmarks and the main window.
    GraphView* view() const { return m_view; }
    GraphScene* scene() const { return m_scene; }
    GraphStyler* styler() const { return m_styler.get(); }
    QLineEdit* searchField() const { return m_search; }
    const layout::DataflowGraph* graph() const { return m_graph.get(); }
    const layout::ExpandedSet& expanded() const { return m_expanded; }
    /// True while a build or layout job is queued or running.
    bool isLayingOut() const { return m_pendingJobs > 0; }

    /// Opens (or closes) group `group` and lays the graph out again on the core thread.
    void setExpanded(int group, bool expanded);
    /// Opens `group` and every group inside it.
    void expandAll(int group);
    /// Opens every collapsed group that shows now.
    void expandVisible();
    /// Back to the groups open at first.
    void resetExpansion();
    /// Opens the groups holding `item` and centres it (once laid out); marks it.
    void reveal(layout::ItemRef item);
    /// Runs a search (as Enter in the search field does): the next match of `query` is revealed,
    /// and selected when it is a node. Returns the number of matches.
    int search(const QString& query);

signals:
    /// A new layout is on screen (after a build, an expansion or a collapse).
    void layoutShown();

protected:
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct BuildResult;
    struct LayoutResult;

    void rebuild();
    void clear(const QString& message);
    void adoptBuild(const std::shared_ptr<BuildResult>& result);
    void requestLayout(int anchorGroup);
    void adoptLayout(std::shared_ptr<const layout::FlatLayout> flat, int anchorGroup);
    void computeConflicts();
    void onModuleChanged();
    void onStepChanged(size_t step);
    void onSelectionChanged(int value, int op);
    void onNodeClicked(int node);
    void onGroupClicked(int group);
    void showContextMenu(layout::ItemRef item, const QPoint& globalPos);
    QString tooltipFor(layout::ItemRef item) const;
    void markSelection(layout::ItemRef item);
    /// Centres `item` when it shows; returns false when a group holding it is closed.
    bool centreOn(layout::ItemRef item);
    layout::LayoutMetrics measureMetrics() const;
    void applyTheme();
    void placeOverlays();
    void initialView();
    void setStatus(const QString& text);

    SessionContext& m_context;
    GraphTheme m_theme;
    GraphScene* m_scene;
    GraphView* m_view;
    std::unique_ptr<GraphStyler> m_styler;
    QWidget* m_canvas;
    GraphLegend* m_legend;
    GraphMinimap* m_minimap;
    QToolBar* m_toolbar;
    QLineEdit* m_search;
    QLabel* m_status;
    QAction* m_legendAction;
    QAction* m_minimapAction;

    std::shared_ptr<const layout::DataflowGraph> m_graph;
    std::shared_ptr<layout::DataflowLayouter> m_layouter; ///< used on the core thread only
    layout::ExpandedSet m_expanded;
    int m_buildGeneration = 0;
    int m_layoutGeneration = 0;
    int m_conflictGeneration = 0;
    int m_pendingJobs = 0;
    size_t m_lastStep = 0;
    bool m_selecting = false; ///< the selection comes from a click here: do not scroll
    bool m_firstLayout = true;
    std::optional<layout::ItemRef> m_pendingReveal;
    layout::ItemRef m_marked;
    QString m_lastQuery;
    std::vector<layout::ItemRef> m_matches;
    size_t m_matchIndex = 0;
};

} // namespace shardx::views
