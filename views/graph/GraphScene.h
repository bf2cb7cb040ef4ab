// GraphScene: the items of a laid-out DataflowGraph (nodes, collapsed groups, frames, edges) and
// the lookups the styler and the panel need.
#pragma once

#include <QGraphicsScene>
#include <QHash>
#include <QList>

#include <memory>
#include <vector>

#include "core/layout/FlatLayout.h"
#include "views/graph/LabelPlacer.h"

namespace shardx::views {

class ClusterItem;
class EdgeItem;
class NodeItem;
class TileItem;
struct GraphTheme;

/// Holds the drawing of one layout; setLayout() replaces it whole (a layout changes only when a
/// group opens or closes, never when stepping). Nodes, edges and edge labels are children of
/// tiles (TileItem: one per square of the scene and layer), the frames of open groups and
/// highlighted edges top-level items: the scene's BSP index holds those few hundred items, and
/// what Qt does per change and per frame is bounded by the tiles changed or on screen, not by the
/// tens of thousands of items of a graph with every group open.
class GraphScene : public QGraphicsScene {
    Q_OBJECT

public:
    explicit GraphScene(const GraphTheme* theme, QObject* parent = nullptr);

    /// Replaces every item by those of `flat`, a layout of `graph`.
    void setLayout(std::shared_ptr<const layout::DataflowGraph> graph, std::shared_ptr<const layout::FlatLayout> flat);
    void clearGraph();

    const layout::DataflowGraph* graph() const { return m_graph.get(); }
    const layout::FlatLayout* flatLayout() const { return m_flat.get(); }

    const QList<NodeItem*>& nodeItems() const { return m_nodeItems; }
    const QList<EdgeItem*>& edgeItems() const { return m_edgeItems; }
    const QList<ClusterItem*>& clusterItems() const { return m_clusterItems; }
    const QList<TileItem*>& tiles() const { return m_tiles; }
    /// The item of op or argument node `node`, nullptr when it is inside a collapsed group.
    NodeItem* nodeItem(int node) const;
    /// The box of collapsed group `group`, nullptr when it is open or hidden.
    NodeItem* groupBox(int group) const { return m_groupBoxes.value(group); }
    /// The frame of expanded group `group`, nullptr when it is closed or hidden.
    ClusterItem* cluster(int group) const { return m_clusters.value(group); }
    /// True when the opaque fill of a group's frame covers `sceneRect` (the view's background
    /// there need not be drawn).
    bool coversBackground(const QRectF& sceneRect) const;
    /// What the graph covers: its nodes, edges, frames and placed labels (itemsBoundingRect()
    /// would count the room tiles of labels keep for labels to move).
    QRectF contentRect() const;
    /// The node or collapsed group's box at `scenePos`, nullptr for none (from the tiles of nodes:
    /// far out their items are hidden, and QGraphicsScene::items() leaves hidden items out).
    NodeItem* nodeItemAt(const QPointF& scenePos) const;
    /// The scale the view shows the scene at: below lod::kFar tiles paint their nodes and edges
    /// themselves (TileItem::setFar), below lod::kLabels edge labels are left out.
    void setViewScale(double scale);
    /// What shows node `node`: its own item, else the box of the collapsed group holding it.
    NodeItem* visibleItemFor(int node) const;
    /// The edges carrying DataflowEdge `edge` (one per layout it crosses, with connectors).
    QList<EdgeItem*> edgeItemsOf(int edge) const { return m_byEdge.value(edge); }
    /// The labelled edges that carry value `value` alone.
    QList<EdgeItem*> edgeItemsOfValue(int value) const { return m_byValue.value(value); }
    /// The value an edge item is labelled with, -1 for none (several values, a connector).
    int labelValue(const EdgeItem* item) const { return m_labelValue.value(item, -1); }

    /// Repaints everything after a theme change.
    void refreshTheme();
    /// Places every edge label where it covers no node, group title or other label: near the
    /// start of its edge, else further along or on its other side; hides those that fit
    /// nowhere. Highlighted edges' labels go first.
    void placeLabels();
    /// Places the labels of `edges` again (their text changed), leaving the others where they are.
    void replaceLabels(const QList<EdgeItem*>& edges);

private:
    void applyScale(TileItem* tile) const;

    const GraphTheme* m_theme;
    double m_viewScale = 1;
    std::shared_ptr<const layout::DataflowGraph> m_graph;
    std::shared_ptr<const layout::FlatLayout> m_flat;
    QList<NodeItem*> m_nodeItems;
    QList<EdgeItem*> m_edgeItems;
    QList<ClusterItem*> m_clusterItems;
    QList<TileItem*> m_tiles;
    QList<TileItem*> m_nodeTiles;
    QList<ClusterItem*> m_outerFrames; ///< frames inside no other frame
    std::vector<NodeItem*> m_byNode;
    QHash<int, NodeItem*> m_groupBoxes;
    QHash<int, ClusterItem*> m_clusters;
    QHash<int, QList<EdgeItem*>> m_byEdge;
    QHash<int, QList<EdgeItem*>> m_byValue;
    QHash<const EdgeItem*, int> m_labelValue;
    LabelPlacer m_labels;
};

} // namespace shardx::views
