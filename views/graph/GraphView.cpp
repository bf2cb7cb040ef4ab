// GraphView: zoom, pan, fit, clicks and menus on the graph.
#include "views/graph/GraphView.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <cmath>

#include "views/graph/ClusterItem.h"
#include "views/graph/GraphScene.h"
#include "views/graph/NodeItem.h"

namespace shardx::views {

using layout::ItemRef;

namespace {
constexpr double kMinZoom = 0.02;
constexpr double kMaxZoom = 4.0;
constexpr double kStep = 1.25;
} // namespace

GraphView::GraphView(GraphScene* scene, QWidget* parent) : QGraphicsView(scene, parent), m_scene(scene)
{
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setOptimizationFlags(QGraphicsView::DontAdjustForAntialiasing);
    setDragMode(QGraphicsView::NoDrag);
    setFrameShape(QFrame::NoFrame);
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    viewport()->setCursor(Qt::ArrowCursor);
    // Every frame paints each pixel of what it exposes (the background brush, or a group's opaque
    // frame over it): the viewport's own fill of its background before each frame is not needed.
    // Opaque, the viewport still scrolls by moving its pixels.
    viewport()->setAutoFillBackground(false);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
}

double GraphView::zoom() const { return transform().m11(); }

void GraphView::setZoom(double z, const QPoint* anchor)
{
    z = std::clamp(z, kMinZoom, kMaxZoom);
    const double factor = z / zoom();
    if (std::abs(factor - 1) < 1e-9)
        return;
    const ViewportAnchor old = transformationAnchor();
    if (anchor) {
        // Keep the scene point under `anchor` where it is.
        const QPointF before = mapToScene(*anchor);
        setTransformationAnchor(QGraphicsView::NoAnchor);
        scale(factor, factor);
        const QPointF delta = mapFromScene(before) - QPointF(*anchor);
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() + static_cast<int>(std::lround(delta.x())));
        verticalScrollBar()->setValue(verticalScrollBar()->value() + static_cast<int>(std::lround(delta.y())));
    } else {
        setTransformationAnchor(QGraphicsView::AnchorViewCenter);
        scale(factor, factor);
    }
    setTransformationAnchor(old);
    m_scene->setViewScale(zoom());
    emit zoomChanged(zoom());
    emit viewportMoved();
}

void GraphView::zoomIn() { setZoom(zoom() * kStep); }
void GraphView::zoomOut() { setZoom(zoom() / kStep); }

void GraphView::fitAll()
{
    const QRectF r = m_scene->contentRect().adjusted(-20, -20, 20, 20);
    if (r.isEmpty())
        return;
    const QRectF v = viewport()->rect();
    const double z = std::min({v.width() / r.width(), v.height() / r.height(), 1.0});
    setZoom(z);
    centerOn(r.center());
    emit viewportMoved();
}

void GraphView::reveal(const QRectF& rect)
{
    const QRectF v = viewport()->rect();
    const QRectF r = rect.adjusted(-40, -40, 40, 40);
    const double fit = std::min(v.width() / r.width(), v.height() / r.height());
    if (fit < zoom())
        setZoom(fit);
    else if (zoom() < 0.5)
        setZoom(std::min(1.0, fit)); // close enough to read it
    centerOn(rect.center());
    emit viewportMoved();
}

ItemRef GraphView::itemAt(const QPoint& pos, bool* onCollapseButton, bool* onTitle) const
{
    if (onCollapseButton)
        *onCollapseButton = false;
    if (onTitle)
        *onTitle = false;
    const QPointF scenePos = mapToScene(pos);
    // Nodes sit above frames.
    if (NodeItem* node = m_scene->nodeItemAt(scenePos))
        return node->ref();
    for (QGraphicsItem* item : scene()->items(scenePos, Qt::IntersectsItemShape, Qt::DescendingOrder, transform())) {
        if (auto* cluster = qgraphicsitem_cast<ClusterItem*>(item)) {
            const QPointF local = cluster->mapFromScene(scenePos);
            if (onCollapseButton)
                *onCollapseButton = cluster->collapseButtonRect().adjusted(-3, -3, 3, 3).contains(local);
            if (onTitle)
                *onTitle = cluster->titleRect().contains(local);
            return ItemRef::group(cluster->group());
        }
    }
    return {};
}

void GraphView::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0) {
        QGraphicsView::wheelEvent(event);
        return;
    }
    const QPoint at = event->position().toPoint();
    setZoom(zoom() * std::pow(kStep, steps), &at);
    event->accept();
}

void GraphView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton && event->button() != Qt::MiddleButton) {
        QGraphicsView::mousePressEvent(event);
        return;
    }
    m_pressed = true;
    m_dragging = false;
    m_pressPos = m_lastPos = event->position().toPoint();
    event->accept();
}

void GraphView::mouseMoveEvent(QMouseEvent* event)
{
    if (!m_pressed) {
        QGraphicsView::mouseMoveEvent(event);
        return;
    }
    const QPoint pos = event->position().toPoint();
    if (!m_dragging && (pos - m_pressPos).manhattanLength() >= QApplication::startDragDistance()) {
        m_dragging = true;
        viewport()->setCursor(Qt::ClosedHandCursor);
    }
    if (m_dragging) {
        const QPoint delta = pos - m_lastPos;
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
    }
    m_lastPos = pos;
    event->accept();
}

void GraphView::mouseReleaseEvent(QMouseEvent* event)
{
    if (!m_pressed) {
        QGraphicsView::mouseReleaseEvent(event);
        return;
    }
    m_pressed = false;
    viewport()->setCursor(Qt::ArrowCursor);
    if (m_dragging) {
        m_dragging = false;
        event->accept();
        return;
    }
    if (event->button() != Qt::LeftButton)
        return;
    bool onButton = false;
    const ItemRef item = itemAt(event->position().toPoint(), &onButton);
    if (item.index < 0)
        emit backgroundClicked();
    else if (item.isNode())
        emit nodeClicked(item.index);
    else if (onButton)
        emit groupToggled(item.index, false);
    else if (m_scene->groupBox(item.index))
        emit groupClicked(item.index);
    else
        emit backgroundClicked();
    event->accept();
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) {
        QGraphicsView::mouseDoubleClickEvent(event);
        return;
    }
    bool onTitle = false;
    const ItemRef item = itemAt(event->position().toPoint(), nullptr, &onTitle);
    if (item.isGroup() && item.index >= 0) {
        if (m_scene->groupBox(item.index))
            emit groupToggled(item.index, true);
        else if (onTitle)
            emit groupToggled(item.index, false);
    }
    event->accept();
}

void GraphView::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomIn(); return;
    case Qt::Key_Minus: zoomOut(); return;
    case Qt::Key_0:
    case Qt::Key_F: fitAll(); return;
    default: QGraphicsView::keyPressEvent(event);
    }
}

void GraphView::contextMenuEvent(QContextMenuEvent* event)
{
    emit contextMenuAsked(itemAt(event->pos()), event->globalPos());
    event->accept();
}

bool GraphView::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && tooltipProvider) {
        auto* help = static_cast<QHelpEvent*>(event);
        const ItemRef item = itemAt(help->pos());
        const QString text = item.index >= 0 ? tooltipProvider(item) : QString();
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, viewport());
        return true;
    }
    return QGraphicsView::viewportEvent(event);
}

void GraphView::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    emit viewportMoved();
}

void GraphView::drawBackground(QPainter* painter, const QRectF& rect)
{
    if (m_scene->coversBackground(rect))
        return; // a frame drawn over it fills all of it
    QGraphicsView::drawBackground(painter, rect);
}

void GraphView::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    emit viewportMoved();
}

} // namespace shardx::views
