// EdgeItem: one edge of the laid-out graph (the SSA uses it stands for), with its sharding label.
#pragma once

#include <QGraphicsItem>
#include <QPainterPath>
#include <QPen>
#include <QString>

#include <optional>
#include <vector>

namespace shardx::views {

struct GraphTheme;
class EdgeLabelItem;
class TileItem;

/// A spline from dot (or a connector through a group's border), an arrowhead where the use
/// ends, and a label: the sharding of the tensor it carries at the current step. Highlighted
/// when the current step propagated along it. Labels hide when zoomed out; far out the edge is
/// a thin line. The label is drawn by an EdgeLabelItem stacked above every edge (and below the
/// nodes), so that another edge crossing it never strikes through its text.
class EdgeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };
    enum class Highlight { None, Source, Target };

    /// `edges`: the DataflowEdge indices it carries. `arrowTip`: where an arrowhead ends (from the
    /// path's last point), none for edges that continue through a group border.
    EdgeItem(QPainterPath path, std::optional<QPointF> arrowTip, std::vector<int> edges, bool connector,
             const GraphTheme* theme);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    const std::vector<int>& edges() const { return m_edges; }
    bool isConnector() const { return m_connector; }
    const QString& label() const { return m_label; }
    /// Sets the label; returns true when it changed (its placement is then the scene's to redo).
    bool setLabel(const QString& label);
    /// The label's size in scene units.
    QSizeF labelSize() const { return m_labelSize; }
    /// Where the label is drawn (scene coordinates), or hidden when it fits nowhere
    /// (GraphScene::placeLabels).
    void setLabelRect(const std::optional<QRectF>& rect);
    /// The label's rectangle, empty when hidden or none.
    QRectF labelRect() const;
    const QPainterPath& path() const { return m_path; }
    Highlight highlight() const { return m_highlight; }
    /// Highlighted edges leave their tile for the top level of the scene, above every tile of
    /// edges (tiles stack as wholes: within its tile, a highlighted edge would still pass under
    /// the edges of the tiles drawn after it); they go back when the highlight ends.
    void setHighlight(Highlight h);
    void refresh();
    /// The tile holding this edge (its parent unless highlighted) and the tile its label goes to
    /// (GraphScene sets both before the edge is in a scene); none: the scene's top level.
    void setTiles(TileItem* home, TileItem* labels);
    /// Draws the label (background and text) at labelRect(), for EdgeLabelItem.
    void paintLabel(QPainter* painter) const;
    /// The hairline paint() draws the edge with far out (its tile draws it so then: TileItem).
    QPen farPen() const;

private:
    /// The label's item: made when the label is first placed in a scene; owned by the scene.
    void labelChanged();
    /// The colour of the edge, by its highlight.
    QColor colour() const;
    EdgeLabelItem* m_labelItem = nullptr;
    TileItem* m_tile = nullptr;
    TileItem* m_labelTile = nullptr;
    QPainterPath m_path;
    std::optional<QPointF> m_arrowTip;
    QPointF m_arrowBase;
    std::optional<QRectF> m_labelRect;
    std::vector<int> m_edges;
    bool m_connector;
    const GraphTheme* m_theme;
    QString m_label;
    QSizeF m_labelSize;
    Highlight m_highlight = Highlight::None;
    QRectF m_bounds;
};

/// The label of one EdgeItem, on its own layer (z between edges and nodes). The scene owns it.
class EdgeLabelItem : public QGraphicsItem {
public:
    enum { Type = UserType + 5 };
    explicit EdgeLabelItem(const EdgeItem* edge);
    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    const EdgeItem* edge() const { return m_edge; }
    /// The edge's label rectangle is about to change.
    void geometryWillChange() { prepareGeometryChange(); }

private:
    const EdgeItem* m_edge;
};

} // namespace shardx::views
