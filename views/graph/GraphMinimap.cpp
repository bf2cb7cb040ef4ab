// GraphMinimap: miniature rendering and navigation.
#include "views/graph/GraphMinimap.h"

#include <QMouseEvent>
#include <QPainter>

#include "views/graph/ClusterItem.h"
#include "views/graph/GraphScene.h"
#include "views/graph/GraphTheme.h"
#include "views/graph/GraphView.h"
#include "views/graph/NodeItem.h"

namespace shardx::views {

GraphMinimap::GraphMinimap(GraphView* view, const GraphTheme* theme, QWidget* parent)
    : QWidget(parent), m_view(view), m_theme(theme)
{
    m_timer.setSingleShot(true);
    m_timer.setInterval(150);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        render();
        update();
    });
    connect(view, &GraphView::viewportMoved, this, qOverload<>(&QWidget::update));
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("Overview: click or drag to move the view"));
}

void GraphMinimap::invalidate(Change change)
{
    if (change == Change::Layout)
        m_layoutChanged = true;
    if (!m_timer.isActive())
        m_timer.start();
}

void GraphMinimap::flush()
{
    if (!m_timer.isActive())
        return;
    m_timer.stop();
    render();
    update();
}

QRectF GraphMinimap::sceneArea() const { return m_view->graphScene()->sceneRect(); }

void GraphMinimap::resizeEvent(QResizeEvent*) { invalidate(Change::Layout); }

QPointF GraphMinimap::toScene(const QPointF& p) const { return (p - m_offset) / m_scale + sceneArea().topLeft(); }

QRectF GraphMinimap::toWidget(const QRectF& r) const
{
    const QPointF tl = (r.topLeft() - sceneArea().topLeft()) * m_scale + m_offset;
    return QRectF(tl, r.size() * m_scale);
}

void GraphMinimap::render()
{
    m_layoutChanged = false;
    const QRectF area = sceneArea();
    const QRectF inner = QRectF(rect()).adjusted(4, 4, -4, -4);
    m_pixmap = QPixmap(size() * devicePixelRatioF());
    m_pixmap.setDevicePixelRatio(devicePixelRatioF());
    m_pixmap.fill(Qt::transparent);
    if (area.isEmpty() || inner.isEmpty())
        return;
    m_scale = std::min(inner.width() / area.width(), inner.height() / area.height());
    m_offset = inner.topLeft() +
               QPointF((inner.width() - area.width() * m_scale) / 2, (inner.height() - area.height() * m_scale) / 2);
    const GraphTheme& t = *m_theme;
    QPainter p(&m_pixmap);
    GraphScene* scene = m_view->graphScene();
    p.setPen(Qt::NoPen);
    for (ClusterItem* c : scene->clusterItems()) {
        p.setBrush(t.clusterFill[1]);
        p.drawRect(toWidget(c->sceneBoundingRect()));
    }
    for (NodeItem* n : scene->nodeItems()) {
        const NodeItem::Style& s = n->style();
        QColor fill = s.fills.isEmpty() ? (s.hasSharding ? t.replicated.darker(110) : t.nodeBorder) : s.fills.front();
        if (n->kind() == NodeItem::Kind::Group)
            fill = t.nodeBorder;
        if (s.currentStep)
            fill = t.stepAccent;
        QRectF r = toWidget(n->sceneBoundingRect());
        if (r.width() < 1.5)
            r.setWidth(1.5);
        if (r.height() < 1.5)
            r.setHeight(1.5);
        p.fillRect(r, fill);
    }
}

void GraphMinimap::paintEvent(QPaintEvent*)
{
    // A new layout waiting for the timer is rendered now: a frame never shows the miniature of
    // the previous layout, or none. New colours wait for the timer.
    if (m_layoutChanged && m_timer.isActive()) {
        m_timer.stop();
        render();
    }
    const GraphTheme& t = *m_theme;
    QPainter p(this);
    paintOverlayPanel(p, QRectF(rect()), t);
    if (m_pixmap.isNull())
        return;
    p.drawPixmap(0, 0, m_pixmap);
    const QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
    QRectF frame = toWidget(visible).intersected(QRectF(rect()).adjusted(1, 1, -1, -1));
    QColor fill = t.selection;
    fill.setAlphaF(0.15f);
    p.setBrush(fill);
    p.setPen(QPen(t.selection, 1.5));
    p.drawRect(frame);
}

void GraphMinimap::mousePressEvent(QMouseEvent* event)
{
    m_view->centerOn(toScene(event->position()));
    update();
}

void GraphMinimap::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() & Qt::LeftButton) {
        m_view->centerOn(toScene(event->position()));
        update();
    }
}

} // namespace shardx::views
