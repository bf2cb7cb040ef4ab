// NodeItem: painting of op, argument and collapsed-group boxes with level of detail.
#include "views/graph/NodeItem.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include "views/graph/GraphTheme.h"
#include "views/graph/TileItem.h"

namespace shardx::views {

namespace {

constexpr double kMarkerMargin = 5; // room around the box for the step ring and markers

} // namespace

NodeItem::NodeItem(layout::ItemRef ref, Kind kind, const QRectF& sceneRect, QString title, QString detail,
                   const GraphTheme* theme)
    : m_ref(ref),
      m_kind(kind),
      m_size(sceneRect.size()),
      m_title(std::move(title)),
      m_detail(std::move(detail)),
      m_theme(theme)
{
    setPos(sceneRect.center());
    setZValue(2);
    setCacheMode(DeviceCoordinateCache);
    setAcceptHoverEvents(false);
}

QRectF NodeItem::boxRect() const
{
    return QRectF(-m_size.width() / 2, -m_size.height() / 2, m_size.width(), m_size.height());
}

QRectF NodeItem::boundingRect() const
{
    return boxRect().adjusted(-kMarkerMargin, -kMarkerMargin, kMarkerMargin, kMarkerMargin);
}

QPainterPath NodeItem::shape() const
{
    QPainterPath p;
    p.addRect(boxRect());
    return p;
}

void NodeItem::setStyle(const Style& style)
{
    if (style == m_style)
        return;
    m_style = style;
    update();
    TileItem::updateFar(this);
}

void NodeItem::setMarked(bool marked)
{
    if (marked == m_marked)
        return;
    m_marked = marked;
    update();
    TileItem::updateFar(this);
}

void NodeItem::refresh()
{
    update();
    TileItem::updateFar(this);
}

std::pair<QRectF, QColor> NodeItem::farBox() const
{
    const GraphTheme& t = *m_theme;
    QRectF box = boxRect();
    if (m_kind == Kind::Group)
        box.adjust(0, 0, -4, -4); // the stack below-right
    QColor fill = m_style.fills.isEmpty() ? (m_style.hasSharding ? t.replicated : t.nodeFill) : m_style.fills.front();
    if (m_kind == Kind::Group)
        fill = t.groupFill;
    if (m_style.currentStep)
        fill = t.stepAccent;
    else if (m_marked)
        fill = t.selection;
    return {box, fill};
}

void NodeItem::paintFar(QPainter* painter) const
{
    const auto [box, fill] = farBox();
    painter->fillRect(box.translated(pos()), fill);
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const GraphTheme& t = *m_theme;
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    QRectF box = boxRect();
    const bool group = m_kind == Kind::Group;
    if (group)
        box.adjust(0, 0, -4, -4); // the stack below-right
    const double radius = m_kind == Kind::Argument ? std::min(box.height() / 2, 12.0) : 4.0;

    QPainterPath outline;
    outline.addRoundedRect(box, radius, radius);

    // Far out: a filled box, no text or markers (the chip example's level of detail).
    if (lod < lod::kFar) {
        const auto [farRect, fill] = farBox();
        painter->fillRect(farRect, fill);
        return;
    }

    painter->setRenderHint(QPainter::Antialiasing, true);
    if (group) {
        // Two sheets under the box say "more inside".
        QPainterPath stack;
        stack.addRoundedRect(box.translated(4, 4), radius, radius);
        painter->setPen(QPen(t.nodeBorder, 1));
        painter->setBrush(t.groupFill.darker(t.dark ? 80 : 104));
        painter->drawPath(stack);
    }
    if (m_style.currentStep) {
        // A halo around the op the current step visited.
        QPainterPath halo;
        const QRectF r = box.adjusted(-3.5, -3.5, 3.5, 3.5);
        halo.addRoundedRect(r, radius + 3, radius + 3);
        painter->setPen(QPen(t.stepAccent, 3));
        painter->setBrush(Qt::NoBrush);
        painter->drawPath(halo);
    }

    // Fill: axis stripes, grey when replicated, plain when no sharding is known.
    painter->save();
    painter->setClipPath(outline);
    if (group) {
        painter->fillRect(box, t.groupFill);
    } else if (!m_style.fills.isEmpty()) {
        const int n = static_cast<int>(m_style.fills.size());
        for (int i = 0; i < n; ++i) {
            const double x0 = box.left() + box.width() * i / n;
            const double x1 = box.left() + box.width() * (i + 1) / n;
            painter->fillRect(QRectF(x0, box.top(), x1 - x0, box.height()), m_style.fills[i]);
        }
    } else {
        painter->fillRect(box, m_style.hasSharding ? t.replicated
                                                   : (m_kind == Kind::Argument ? t.argumentFill : t.nodeFill));
    }
    painter->restore();

    QPen border(t.nodeBorder, 1);
    if (m_kind == Kind::Terminator)
        border.setStyle(Qt::DashLine);
    if (m_style.conflictNow)
        border = QPen(t.conflict, 2.5);
    if (m_marked)
        border = QPen(t.selection, 2.5);
    painter->setPen(border);
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(outline);

    // Text.
    if (lod >= 0.45) {
        const QRectF textBox = box.adjusted(8, 3, -8, -3);
        const bool twoLines = !m_detail.isEmpty() || group;
        QFontMetricsF boldMetrics(t.nodeBoldFont);
        const double line = boldMetrics.height();
        const double top = twoLines ? box.center().y() - line : box.center().y() - line / 2;
        painter->setPen(t.text);
        painter->setFont(t.nodeBoldFont);
        QRectF first(textBox.left(), top, textBox.width(), line);
        if (group)
            first.setRight(first.right() - 12);
        painter->drawText(first, Qt::AlignHCenter | Qt::AlignVCenter,
                          boldMetrics.elidedText(m_title, Qt::ElideMiddle, first.width()));
        if (twoLines) {
            painter->setFont(t.nodeFont);
            // Muted text reads on the plain fills only: on axis colours (dark mode's above all)
            // the second line takes the full text colour, the regular font setting it apart.
            const bool coloured = !group && (!m_style.fills.isEmpty() || m_style.hasSharding);
            painter->setPen(coloured ? t.text : t.mutedText);
            QFontMetricsF metrics(t.nodeFont);
            const QRectF second(textBox.left(), top + line, textBox.width(), line);
            painter->drawText(second, Qt::AlignHCenter | Qt::AlignVCenter,
                              metrics.elidedText(m_detail, Qt::ElideRight, second.width()));
        }
        if (group) {
            // An expander glyph: "+" in a small circle at the right.
            const QRectF glyph(box.right() - 16, box.top() + 5, 11, 11);
            painter->setPen(QPen(t.mutedText, 1.2));
            painter->drawEllipse(glyph);
            painter->drawLine(QPointF(glyph.left() + 3, glyph.center().y()),
                              QPointF(glyph.right() - 3, glyph.center().y()));
            painter->drawLine(QPointF(glyph.center().x(), glyph.top() + 3),
                              QPointF(glyph.center().x(), glyph.bottom() - 3));
        }
    }

    // Markers: a dot for "changed now", a red triangle for conflicts (filled: now; outline: before).
    if (m_style.changed) {
        painter->setPen(Qt::NoPen);
        painter->setBrush(t.stepAccent);
        painter->drawEllipse(QPointF(box.left() + 1, box.top() + 1), 4, 4);
    }
    if (m_style.conflictNow || m_style.conflictBefore) {
        const QPointF c(box.right() - 1, box.top() + 1);
        QPolygonF tri({QPointF(c.x(), c.y() - 5), QPointF(c.x() + 5, c.y() + 4), QPointF(c.x() - 5, c.y() + 4)});
        painter->setPen(QPen(t.conflict, 1.2));
        painter->setBrush(m_style.conflictNow ? QBrush(t.conflict) : QBrush(t.background));
        painter->drawPolygon(tri);
    }
}

} // namespace shardx::views
