// ClusterItem: frame, title bar and collapse button painting.
#include "views/graph/ClusterItem.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

#include "views/graph/GraphTheme.h"

namespace shardx::views {

namespace {

constexpr double kFrameRadius = 6;

/// The part of a frame at `rect` (item coordinates) that its fill covers whole: the body without
/// its rounded corners and antialiased edge.
QRectF filledFrameArea(const QRectF& rect)
{
    return rect.adjusted(kFrameRadius + 1, kFrameRadius + 1, -kFrameRadius - 1, -kFrameRadius - 1);
}

} // namespace

ClusterItem::ClusterItem(int group, const QRectF& sceneRect, QString title, QString subtitle, int depth,
                         bool collapsible, const GraphTheme* theme)
    : m_group(group),
      m_rect(QPointF(0, 0), sceneRect.size()),
      m_title(std::move(title)),
      m_subtitle(std::move(subtitle)),
      m_depth(depth),
      m_collapsible(collapsible),
      m_theme(theme)
{
    setPos(sceneRect.topLeft());
    setZValue(-100 + depth);
    // paint() is told the part on screen: a frame larger than the view fills that part only.
    setFlag(ItemUsesExtendedStyleOption);
}

QRectF ClusterItem::boundingRect() const { return m_rect.adjusted(-2, -2, 2, 2); }

QRectF ClusterItem::titleRect() const
{
    return QRectF(m_rect.left(), m_rect.top(), m_rect.width(), std::min(m_theme->titleHeight, m_rect.height()));
}

QRectF ClusterItem::titleTextRect() const
{
    const QRectF t = titleRect();
    QFontMetricsF bold(m_theme->titleFont), regular(m_theme->nodeFont);
    double width = 10 + bold.horizontalAdvance(m_title) + 10 + regular.horizontalAdvance(m_subtitle) + 10;
    QRectF text(t.left(), t.top(), std::min(width, t.width()), t.height());
    if (m_collapsible)
        text = text.united(collapseButtonRect().adjusted(-4, -4, 4, 4));
    return text;
}

QRectF ClusterItem::collapseButtonRect() const
{
    if (!m_collapsible)
        return {};
    const QRectF t = titleRect();
    const double s = 13;
    return QRectF(t.right() - s - 6, t.center().y() - s / 2, s, s);
}

void ClusterItem::setMarked(bool marked)
{
    if (marked == m_marked)
        return;
    m_marked = marked;
    update();
}

void ClusterItem::addInnerFrame(const QRectF& sceneRect)
{
    const QRectF inner = filledFrameArea(sceneRect.translated(-pos()));
    if (!inner.isEmpty())
        m_innerFrames.push_back(inner);
}

bool ClusterItem::coversOpaquely(const QRectF& sceneRect) const
{
    return filledFrameArea(m_rect).contains(sceneRect.translated(-pos()));
}

void ClusterItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    // Hidden under an inner frame (drawn above this one, opaque): nothing of this one shows.
    for (const QRectF& inner : m_innerFrames)
        if (inner.contains(option->exposedRect))
            return;
    const GraphTheme& t = *m_theme;
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const QColor fill = t.clusterFill[m_depth % 2];
    if (lod < 0.3) {
        painter->fillRect(m_rect, fill);
        painter->setPen(QPen(m_marked ? t.selection : t.clusterBorder, 0));
        painter->drawRect(m_rect);
        return;
    }
    const QRectF body = m_rect.adjusted(0.5, 0.5, -0.5, -0.5);
    constexpr double radius = kFrameRadius;
    const QPen border(m_marked ? t.selection : t.clusterBorder, m_marked ? 2 : 1);
    // Frames of open groups cover the view many times over when zoomed in: an antialiased rounded
    // fill of each costs milliseconds a frame. Where no rounded corner is on screen, the part on
    // screen is filled as a plain rectangle (the fill is opaque) and the outline stroked alone.
    const QRectF exposed = option->exposedRect.adjusted(-1, -1, 1, 1);
    const double c = radius + 2;
    const bool cornerShown = exposed.intersects(QRectF(body.left(), body.top(), c, c)) ||
                             exposed.intersects(QRectF(body.right() - c, body.top(), c, c)) ||
                             exposed.intersects(QRectF(body.left(), body.bottom() - c, c, c)) ||
                             exposed.intersects(QRectF(body.right() - c, body.bottom() - c, c, c));
    if (cornerShown) {
        painter->setRenderHint(QPainter::Antialiasing, true);
        painter->setPen(border);
        painter->setBrush(fill);
        painter->drawRoundedRect(body, radius, radius);
    } else {
        painter->fillRect(body.intersected(exposed), fill);
        // No corner on screen: what shows of the outline is straight, the sides that cross the
        // exposed part (stroking the whole rounded outline of a frame many views long costs more).
        painter->setRenderHint(QPainter::Antialiasing, true);
        painter->setPen(border);
        const double reach = border.widthF() + 1;
        const double top = std::max(body.top() + radius, exposed.top() - reach);
        const double bottom = std::min(body.bottom() - radius, exposed.bottom() + reach);
        const double left = std::max(body.left() + radius, exposed.left() - reach);
        const double right = std::min(body.right() - radius, exposed.right() + reach);
        if (top < bottom) {
            if (std::abs(body.left() - exposed.center().x()) <= exposed.width() / 2 + reach)
                painter->drawLine(QPointF(body.left(), top), QPointF(body.left(), bottom));
            if (std::abs(body.right() - exposed.center().x()) <= exposed.width() / 2 + reach)
                painter->drawLine(QPointF(body.right(), top), QPointF(body.right(), bottom));
        }
        if (left < right) {
            if (std::abs(body.top() - exposed.center().y()) <= exposed.height() / 2 + reach)
                painter->drawLine(QPointF(left, body.top()), QPointF(right, body.top()));
            if (std::abs(body.bottom() - exposed.center().y()) <= exposed.height() / 2 + reach)
                painter->drawLine(QPointF(left, body.bottom()), QPointF(right, body.bottom()));
        }
    }
    if (lod < 0.45 || !exposed.intersects(titleRect()))
        return;
    const QRectF title = titleRect();
    QRectF text = title.adjusted(10, 0, -(m_collapsible ? 26 : 10), 0);
    painter->setFont(t.titleFont);
    QFontMetricsF bold(t.titleFont);
    const QString elided = bold.elidedText(m_title, Qt::ElideMiddle, text.width());
    painter->setPen(t.titleText);
    painter->drawText(text, Qt::AlignLeft | Qt::AlignVCenter, elided);
    const double used = bold.horizontalAdvance(elided);
    if (!m_subtitle.isEmpty() && used + 30 < text.width()) {
        QFont small = t.nodeFont;
        painter->setFont(small);
        painter->setPen(t.mutedText);
        QFontMetricsF metrics(small);
        const QRectF rest = text.adjusted(used + 10, 0, 0, 0);
        painter->drawText(rest, Qt::AlignLeft | Qt::AlignVCenter,
                          metrics.elidedText(m_subtitle, Qt::ElideRight, rest.width()));
    }
    if (m_collapsible) {
        const QRectF b = collapseButtonRect();
        painter->setPen(QPen(t.mutedText, 1.2));
        painter->setBrush(Qt::NoBrush);
        painter->drawEllipse(b);
        painter->drawLine(QPointF(b.left() + 3.5, b.center().y()), QPointF(b.right() - 3.5, b.center().y()));
    }
}

} // namespace shardx::views
