// TileItem: the parent of the scene items of one square of the graph on one layer (edges, labels
// or nodes), so that Qt's per-change and per-frame passes walk tiles instead of every item, and
// far out one item paints a whole tile.
#pragma once

#include <QGraphicsItem>
#include <QList>
#include <QRectF>

namespace shardx::views {

/// Levels of detail (the view's scale) shared by the items and their tiles.
namespace lod {
/// Below it nodes are filled boxes and edges hairlines: tiles draw their items themselves.
constexpr double kFar = 0.3;
/// Below it edge labels are not drawn.
constexpr double kLabels = 0.75;
} // namespace lod

/// A tile's bounding rectangle holds every item's of the tile (ItemContainsChildrenInShape), which
/// tells Qt three things: a tile outside the exposed area is skipped with its items when drawing
/// and in item queries; the items stay out of the scene's BSP index (only tiles and the few
/// top-level items are in it); and a change marks one tile dirty, so that the dirty-item pass
/// after a step visits the tiles and the items of the changed tiles only.
///
/// The items hang from the tile's holder (an invisible child of the same size). Far out (setFar)
/// the holder is hidden and the tile paints its nodes as filled boxes or its edges as hairlines
/// in one paint() (what NodeItem and EdgeItem draw below lod::kFar), so that a frame costs one
/// item per tile instead of one per node and edge; a tile of labels then draws nothing.
///
/// A tile sits at the scene's origin with no transform: item coordinates are scene coordinates.
/// Its z value is its layer's (edges below labels below nodes); items keep their own z within
/// the tile.
class TileItem : public QGraphicsItem {
public:
    enum { Type = UserType + 6 };
    enum class Layer { Edges, Connectors, Labels, Nodes };

    explicit TileItem(Layer layer);

    int type() const override { return Type; }
    QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    Layer layer() const { return m_layer; }
    /// Adds `item` (at scene coordinates) to the tile.
    void add(QGraphicsItem* item);
    /// The tile's items (without those lifted out).
    QList<QGraphicsItem*> items() const;
    /// Lifts `item`, one of the tile's, out of it to the scene's top level (where its own z value
    /// orders it against whole tiles), or puts it back.
    void lift(QGraphicsItem* item, bool out);
    /// Grows the tile so that it holds `rect` (scene coordinates), before an item is added there
    /// or grows there.
    void include(const QRectF& rect);
    /// Far: the tile paints its items itself (they are hidden).
    void setFar(bool far);
    bool isFar() const { return m_far; }

    /// The tile holding `item`, nullptr for a top-level item.
    static TileItem* of(const QGraphicsItem* item);
    /// `item` looks different: when its tile paints it, repaints its area there (its own update()
    /// does nothing while it is hidden).
    static void updateFar(const QGraphicsItem* item);

private:
    class Holder;
    Layer m_layer;
    QRectF m_bounds;
    Holder* m_holder;
    bool m_far = false;
};

} // namespace shardx::views
