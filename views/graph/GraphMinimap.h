// GraphMinimap: the whole graph in miniature with the visible part framed; click or drag to move.
#pragma once

#include <QPixmap>
#include <QTimer>
#include <QWidget>

namespace shardx::views {

class GraphView;
struct GraphTheme;

/// Draws every node as a dot of its colour (from a cached pixmap, redrawn at most every 150 ms
/// after the colours change) and the view's visible rectangle on top. Pressing or dragging in it
/// centres the view there.
class GraphMinimap : public QWidget {
    Q_OBJECT

public:
    GraphMinimap(GraphView* view, const GraphTheme* theme, QWidget* parent = nullptr);

    /// The graph changed: redraw the miniature soon. A new layout is drawn before the next frame
    /// (a frame never shows the miniature of the previous layout, or none); new colours (a step)
    /// within the timer's interval, so that stepping through a large graph does not redraw
    /// every node of the miniature each step.
    enum class Change { Colours, Layout };
    void invalidate(Change change = Change::Colours);
    /// Draws a pending change now (before a grab of the window).
    void flush();

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
    bool m_layoutChanged = false; ///< a new layout waits for the timer
    double m_scale = 1;
    QPointF m_offset;
};

} // namespace shardx::views
