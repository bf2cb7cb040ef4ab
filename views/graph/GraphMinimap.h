// GraphMinimap: the whole graph in miniature with the visible part framed; click or drag to move.
#pragma once

#include <QPixmap>
#include <QTimer>
#include <QWidget>

namespace shardx::views {

class GraphView;
struct GraphTheme;

/// Draws every node as a dot of its colour (from a cached pixmap, redrawn at most every 150 ms
/// after the graph changes) and the view's visible rectangle on top. Pressing or dragging in it
/// centres the view there.
class GraphMinimap : public QWidget {
    Q_OBJECT

public:
    GraphMinimap(GraphView* view, const GraphTheme* theme, QWidget* parent = nullptr);

    /// The graph changed (layout or colours): redraw the miniature soon.
    void invalidate();

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void render();
    QRectF sceneArea() const;
    /// Scene point for a point of this widget.
    QPointF toScene(const QPointF& p) const;
    QRectF toWidget(const QRectF& sceneRect) const;

    GraphView* m_view;
    const GraphTheme* m_theme;
    QPixmap m_pixmap;
    QTimer m_timer;
    double m_scale = 1;
    QPointF m_offset;
};

} // namespace shardx::views
