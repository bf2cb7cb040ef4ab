// TileItem: a bounding rectangle that holds its items', and their far-out painting in one go.
#include "views/graph/TileItem.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include "views/graph/EdgeItem.h"
#include "views/graph/NodeItem.h"

namespace shardx::views {

namespace {

double layerZ(TileItem::Layer layer)
{
    switch (layer) {
    case TileItem::Layer::Edges: return 1;
    case TileItem::Layer::Connectors: return 1.1;
    case TileItem::Layer::Labels: return 1.8;
    case TileItem::Layer::Nodes: return 2;
    }
    return 0;
}

} // namespace

/// The parent of the tile's items: the tile's size, draws nothing, hidden far out. It holds its
/// children in its shape too, so that hiding it does not mark each item for repainting.
class TileItem::Holder : public QGraphicsItem {
public:
    explicit Holder(const TileItem* tile) : m_tile(tile)
    {
        setFlag(ItemContainsChildrenInShape);
        setAcceptedMouseButtons(Qt::NoButton);
    }
    QRectF boundingRect() const override { return m_tile->boundingRect(); }
    void paint(QPainter*, const QStyleOptionGraphicsItem*, QWidget*) override {}
    void willGrow() { prepareGeometryChange(); }

private:
    const TileItem* m_tile;
};

TileItem::TileItem(Layer layer) : m_layer(layer)
{
    setZValue(layerZ(layer));
    setFlag(ItemContainsChildrenInShape);
    setFlag(ItemUsesExtendedStyleOption); // paint() is told the exposed part
    setAcceptedMouseButtons(Qt::NoButton);
    m_holder = new Holder(this);
    m_holder->setParentItem(this);
}

void TileItem::add(QGraphicsItem* item)
{
    include(item->sceneBoundingRect());
    item->setParentItem(m_holder);
}

QList<QGraphicsItem*> TileItem::items() const { return m_holder->childItems(); }

void TileItem::lift(QGraphicsItem* item, bool out) { item->setParentItem(out ? nullptr : m_holder); }

void TileItem::include(const QRectF& rect)
{
    if (rect.isEmpty() || m_bounds.contains(rect))
        return;
    prepareGeometryChange();
    m_holder->willGrow();
    m_bounds = m_bounds.isEmpty() ? rect : m_bounds.united(rect);
}

void TileItem::setFar(bool far)
{
    if (far == m_far)
        return;
    m_far = far;
    m_holder->setVisible(!far);
    update();
}

TileItem* TileItem::of(const QGraphicsItem* item)
{
    const QGraphicsItem* holder = item->parentItem();
    return holder ? qgraphicsitem_cast<TileItem*>(holder->parentItem()) : nullptr;
}

void TileItem::updateFar(const QGraphicsItem* item)
{
    TileItem* tile = of(item);
    if (tile && tile->m_far)
        tile->update(item->mapRectToScene(item->boundingRect()));
}

void TileItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    if (!m_far || m_layer == Layer::Labels)
        return;
    const QRectF exposed = option->exposedRect;
    const QList<QGraphicsItem*> children = m_holder->childItems();
    if (m_layer == Layer::Nodes) {
        for (QGraphicsItem* child : children) {
            const auto* node = static_cast<const NodeItem*>(child);
            if (exposed.intersects(node->sceneBoundingRect()))
                node->paintFar(painter);
        }
        return;
    }
    bool penSet = false;
    for (QGraphicsItem* child : children) {
        const auto* edge = static_cast<const EdgeItem*>(child);
        if (!exposed.intersects(edge->boundingRect()))
            continue;
        if (!penSet) {
            // Every edge of a tile has the same hairline: highlighted ones are top-level items.
            painter->setPen(edge->farPen());
            painter->setBrush(Qt::NoBrush);
            penSet = true;
        }
        painter->drawPath(edge->path());
    }
}

} // namespace shardx::views
