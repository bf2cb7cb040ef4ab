// GraphView: the dataflow graph's viewport: zoom (wheel, +/-), pan (drag), fit, clicks on nodes
// and groups, context menus and tooltips.
#pragma once

#include <QGraphicsView>
#include <QPoint>

#include <functional>

#include "core/layout/DataflowGraph.h"

namespace shardx::views {

class GraphScene;

/// Panning is a drag anywhere (also on a node); a press and release without moving is a click.
/// The wheel zooms around the cursor; `+`, `-`, `0` (fit) work from the keyboard.
class GraphView : public QGraphicsView {
    Q_OBJECT

public:
    explicit GraphView(GraphScene* scene, QWidget* parent = nullptr);

    GraphScene* graphScene() const { return m_scene; }
    /// Scale of the view (1 = 100 %).
    double zoom() const;
    /// Sets the zoom, clamped to [0.02, 4], keeping `anchor` (viewport coordinates) still, or the
    /// centre when none is given.
    void setZoom(double zoom, const QPoint* anchor = nullptr);
    void zoomIn();
    void zoomOut();
    /// Fits the whole graph (never zooming in past 100 %).
    void fitAll();
    /// Centres `rect` (scene coordinates), zooming out if needed so that it fits.
    void reveal(const QRectF& rect);

    /// Text for the tooltip of an item (set by the panel).
    std::function<QString(layout::ItemRef)> tooltipProvider;

signals:
    /// A node (op or argument) was clicked.
    void nodeClicked(int node);
    /// A collapsed group's box was clicked.
    void groupClicked(int group);
    /// A collapsed group was double-clicked (expand), or an expanded group's collapse button
    /// clicked or its title double-clicked (collapse).
    void groupToggled(int group, bool expand);
    /// Empty space was clicked.
    void backgroundClicked();
    /// A context menu was asked for on `item` (or on the background: an invalid ItemRef).
    void contextMenuAsked(layout::ItemRef item, const QPoint& globalPos);
    void zoomChanged(double zoom);
    /// The visible part of the scene changed (scroll, zoom, resize).
    void viewportMoved();

protected:
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void resizeEvent(QResizeEvent* event) override;
    void drawBackground(QPainter* painter, const QRectF& rect) override;

private:
    /// What is under viewport point `pos`: a node, a collapsed group, or a group's frame (with
    /// `onCollapseButton` set when on its button, `onTitle` when on its title bar).
    layout::ItemRef itemAt(const QPoint& pos, bool* onCollapseButton = nullptr, bool* onTitle = nullptr) const;

    GraphScene* m_scene;
    QPoint m_pressPos;
    QPoint m_lastPos;
    bool m_pressed = false;
    bool m_dragging = false;
};

} // namespace shardx::views
