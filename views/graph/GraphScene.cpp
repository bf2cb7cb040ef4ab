// GraphScene: FlatLayout -> NodeItem / ClusterItem / EdgeItem, with lookups by node, group, edge, value.
#include "views/graph/GraphScene.h"

#include <QSet>

#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "views/graph/ClusterItem.h"
#include "views/graph/EdgeItem.h"
#include "views/graph/GraphTheme.h"
#include "views/graph/NodeItem.h"
#include "views/graph/TileItem.h"

namespace shardx::views {

using namespace layout;

namespace {

QPainterPath pathOf(const std::vector<Spline>& splines)
{
    QPainterPath path;
    for (const Spline& s : splines) {
        if (s.points.empty())
            continue;
        const QPointF start(s.tailArrow ? s.tailArrow->x : s.points[0].x, s.tailArrow ? s.tailArrow->y : s.points[0].y);
        path.moveTo(start);
        if (s.tailArrow)
            path.lineTo(s.points[0].x, s.points[0].y);
        for (size_t i = 1; i + 2 < s.points.size(); i += 3)
            path.cubicTo(s.points[i].x, s.points[i].y, s.points[i + 1].x, s.points[i + 1].y, s.points[i + 2].x,
                         s.points[i + 2].y);
    }
    return path;
}

QString opCount(int n) { return n == 1 ? QStringLiteral("1 op") : QStringLiteral("%1 ops").arg(n); }

/// The side of a tile in scene units: about a window at 100 % (a view then meets a few tiles of a
/// layer), and a few hundred items per tile in a dense graph.
constexpr double kTileSize = 1024;
/// How far from its edge a label may be placed (LabelPlacer: beside points along the edge), so
/// that a label tile rarely has to grow after a step re-places a label.
constexpr double kLabelReachX = 320;
constexpr double kLabelReachY = 16;

} // namespace

GraphScene::GraphScene(const GraphTheme* theme, QObject* parent) : QGraphicsScene(parent), m_theme(theme) {}

void GraphScene::clearGraph()
{
    clear();
    m_graph.reset();
    m_flat.reset();
    m_nodeItems.clear();
    m_edgeItems.clear();
    m_clusterItems.clear();
    m_byNode.clear();
    m_groupBoxes.clear();
    m_clusters.clear();
    m_byEdge.clear();
    m_byValue.clear();
    m_labelValue.clear();
    m_labels.clear();
    m_tiles.clear();
    m_nodeTiles.clear();
    m_outerFrames.clear();
    setSceneRect(QRectF());
}

NodeItem* GraphScene::nodeItem(int node) const
{
    return node >= 0 && static_cast<size_t>(node) < m_byNode.size() ? m_byNode[static_cast<size_t>(node)] : nullptr;
}

NodeItem* GraphScene::visibleItemFor(int node) const
{
    if (NodeItem* n = nodeItem(node))
        return n;
    if (!m_graph || node < 0)
        return nullptr;
    for (int g : m_graph->ancestors(ItemRef::node(node)))
        if (NodeItem* box = m_groupBoxes.value(g))
            return box;
    return nullptr;
}

void GraphScene::applyScale(TileItem* tile) const
{
    tile->setFar(m_viewScale < (tile->layer() == TileItem::Layer::Labels ? lod::kLabels : lod::kFar));
}

void GraphScene::setViewScale(double scale)
{
    if (scale == m_viewScale)
        return;
    m_viewScale = scale;
    for (TileItem* tile : m_tiles)
        applyScale(tile);
}

bool GraphScene::coversBackground(const QRectF& sceneRect) const
{
    for (const ClusterItem* c : m_outerFrames)
        if (c->coversOpaquely(sceneRect))
            return true;
    return false;
}

QRectF GraphScene::contentRect() const
{
    QRectF r;
    for (const ClusterItem* c : m_clusterItems)
        r |= c->sceneBoundingRect();
    for (const TileItem* tile : m_tiles)
        if (tile->layer() != TileItem::Layer::Labels)
            r |= tile->boundingRect(); // the union of its items'
    for (const EdgeItem* e : m_edgeItems)
        if (!e->labelRect().isEmpty())
            r |= e->labelRect().adjusted(-2, -2, 2, 2); // EdgeLabelItem::boundingRect()
    return r;
}

NodeItem* GraphScene::nodeItemAt(const QPointF& scenePos) const
{
    for (TileItem* tile : m_nodeTiles) {
        if (!tile->boundingRect().contains(scenePos))
            continue;
        for (QGraphicsItem* item : tile->items())
            if (item->sceneBoundingRect().contains(scenePos) && item->contains(item->mapFromScene(scenePos)))
                return static_cast<NodeItem*>(item);
    }
    return nullptr;
}

void GraphScene::setLayout(std::shared_ptr<const DataflowGraph> graph, std::shared_ptr<const FlatLayout> flat)
{
    clearGraph();
    m_graph = std::move(graph);
    m_flat = std::move(flat);
    if (!m_graph || !m_flat)
        return;
    const DataflowGraph& g = *m_graph;
    m_byNode.assign(g.nodes().size(), nullptr);
    // Nodes, edges and labels go under tiles (TileItem), the tiles into the scene at the end.
    using Layer = TileItem::Layer;
    std::map<std::tuple<Layer, qint64, qint64>, TileItem*> tiles;
    auto tileAt = [&](Layer layer, const QPointF& p) {
        TileItem*& tile = tiles[{layer, static_cast<qint64>(std::floor(p.x() / kTileSize)),
                                 static_cast<qint64>(std::floor(p.y() / kTileSize))}];
        if (!tile)
            tile = new TileItem(layer);
        return tile;
    };
    auto addToTile = [&](QGraphicsItem* item, Layer layer) {
        tileAt(layer, item->sceneBoundingRect().center())->add(item);
    };
    for (const FlatItem& it : m_flat->items) {
        const QRectF r(it.rect.x, it.rect.y, it.rect.width, it.rect.height);
        if (it.shape == ItemShape::Node) {
            const DataflowNode& n = g.nodes()[static_cast<size_t>(it.ref.index)];
            NodeItem::Kind kind = NodeItem::Kind::Op;
            if (n.kind == NodeKind::Argument)
                kind = NodeItem::Kind::Argument;
            else if (n.terminator)
                kind = NodeItem::Kind::Terminator;
            auto* item =
                new NodeItem(it.ref, kind, r, QString::fromStdString(n.name),
                             QString::fromUtf8(n.detail.data(), static_cast<qsizetype>(n.detail.size())), m_theme);
            addToTile(item, Layer::Nodes);
            m_nodeItems.push_back(item);
            m_byNode[static_cast<size_t>(it.ref.index)] = item;
            continue;
        }
        const DataflowGroup& group = g.groups()[static_cast<size_t>(it.ref.index)];
        if (it.shape == ItemShape::CollapsedGroup) {
            QString title = QString::fromStdString(group.label);
            QString detail = opCount(group.numOps);
            if (group.kind == GroupKind::Range) {
                detail = QStringLiteral("%1 groups · %2").arg(group.children.size()).arg(detail);
            } else if (group.kind == GroupKind::Region && group.node >= 0) {
                // An op with regions reads as the op: its results, then its name and size.
                const DataflowNode& op = g.nodes()[static_cast<size_t>(group.node)];
                title = QString::fromStdString(op.name);
                detail = QString::fromUtf8(op.detail.data(), static_cast<qsizetype>(op.detail.size())) +
                         QStringLiteral(" · ") + detail;
            }
            auto* item = new NodeItem(it.ref, NodeItem::Kind::Group, r, title, detail, m_theme);
            addToTile(item, Layer::Nodes);
            m_nodeItems.push_back(item);
            m_groupBoxes.insert(it.ref.index, item);
            continue;
        }
        QString subtitle = opCount(group.numOps);
        if (group.kind == GroupKind::Function && !group.path.empty())
            subtitle = QString::fromStdString(group.path) + QStringLiteral(" · ") + subtitle;
        else if (group.kind == GroupKind::Range)
            subtitle = QStringLiteral("%1 groups · %2").arg(group.children.size()).arg(subtitle);
        auto* item = new ClusterItem(it.ref.index, r, QString::fromStdString(group.label), subtitle, group.depth,
                                     group.kind != GroupKind::Module, m_theme);
        addItem(item);
        m_clusterItems.push_back(item);
        m_clusters.insert(it.ref.index, item);
    }
    QSet<int> labelled;
    for (const FlatEdge& e : m_flat->edges) {
        std::optional<QPointF> tip;
        if (!e.splines.empty() && e.splines.back().headArrow && e.arrowhead)
            tip = QPointF(e.splines.back().headArrow->x, e.splines.back().headArrow->y);
        auto* item = new EdgeItem(pathOf(e.splines), tip, e.edges, e.connector, m_theme);
        const QRectF bounds = item->boundingRect();
        TileItem* labels = tileAt(Layer::Labels, bounds.center());
        labels->include(bounds.adjusted(-kLabelReachX, -kLabelReachY, kLabelReachX, kLabelReachY));
        item->setTiles(tileAt(e.connector ? Layer::Connectors : Layer::Edges, bounds.center()), labels);
        m_edgeItems.push_back(item);
        std::set<int> values;
        for (int d : e.edges) {
            m_byEdge[d].push_back(item);
            values.insert(g.edges()[static_cast<size_t>(d)].value);
        }
        if (e.connector)
            continue;
        if (values.size() == 1 && *values.begin() >= 0) {
            // One label per value, on its first edge out of the node that defines it (right
            // below that node): the fan-out of a value repeats no label.
            const int value = *values.begin();
            const int definer = g.nodeOfValue(value);
            bool fromDefiner = false;
            if (e.from >= 0 && definer >= 0) {
                const ItemRef from = m_flat->items[static_cast<size_t>(e.from)].ref;
                fromDefiner = from.isNode() ? from.index == definer : g.contains(from.index, definer);
            }
            if (!labelled.contains(value) && (fromDefiner || e.from < 0)) {
                labelled.insert(value);
                m_byValue[value].push_back(item);
                m_labelValue.insert(item, value);
            }
        } else if (values.size() > 1) {
            values.erase(-1);
            if (values.size() > 1)
                item->setLabel(QStringLiteral("%1 tensors").arg(values.size()));
        }
    }
    // Each frame learns where the frames of the groups inside it cover it, the outermost frames
    // where they cover the background (ClusterItem::paint, GraphView::drawBackground).
    for (ClusterItem* c : m_clusterItems) {
        int parent = g.groups()[static_cast<size_t>(c->group())].parent;
        while (parent >= 0 && !m_clusters.contains(parent))
            parent = g.groups()[static_cast<size_t>(parent)].parent;
        if (parent >= 0)
            m_clusters.value(parent)->addInnerFrame(c->sceneBoundingRect().adjusted(2, 2, -2, -2));
        else
            m_outerFrames.push_back(c);
    }
    for (const auto& [key, tile] : tiles) {
        applyScale(tile);
        addItem(tile);
        m_tiles.push_back(tile);
        if (tile->layer() == Layer::Nodes)
            m_nodeTiles.push_back(tile);
    }
    const double margin = 40;
    setSceneRect(QRectF(-margin, -margin, m_flat->size.width + 2 * margin, m_flat->size.height + 2 * margin));
}

void GraphScene::placeLabels()
{
    m_labels.clear();
    for (NodeItem* n : m_nodeItems)
        m_labels.addObstacle(n->sceneBoundingRect().adjusted(3, 3, -3, -3));
    for (ClusterItem* c : m_clusterItems)
        m_labels.addObstacle(c->mapRectToScene(c->titleTextRect()));
    QList<EdgeItem*> labelled;
    for (EdgeItem* e : m_edgeItems)
        if (!e->label().isEmpty())
            labelled.push_back(e);
    // The current step's edges first: their labels matter most.
    std::stable_sort(labelled.begin(), labelled.end(), [](const EdgeItem* a, const EdgeItem* b) {
        return (a->highlight() != EdgeItem::Highlight::None) > (b->highlight() != EdgeItem::Highlight::None);
    });
    for (EdgeItem* e : labelled)
        m_labels.place(e);
}

void GraphScene::replaceLabels(const QList<EdgeItem*>& edges)
{
    for (EdgeItem* e : edges)
        m_labels.remove(e);
    for (EdgeItem* e : edges)
        m_labels.place(e);
}

void GraphScene::refreshTheme()
{
    for (NodeItem* n : m_nodeItems)
        n->refresh();
    for (EdgeItem* e : m_edgeItems)
        e->refresh();
    for (ClusterItem* c : m_clusterItems)
        c->refresh();
    placeLabels();
    update();
}

} // namespace shardx::views
