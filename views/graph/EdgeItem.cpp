// EdgeItem: spline, arrowhead, label and highlight painting with level of detail.
#include "views/graph/EdgeItem.h"

#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <cmath>

#include "views/graph/GraphTheme.h"
#include "views/graph/TileItem.h"

namespace shardx::views {

EdgeItem::EdgeItem(QPainterPath path, std::optional<QPointF> arrowTip, std::vector<int> edges, bool connector,
                   const GraphTheme* theme)
    : m_path(std::move(path)), m_arrowTip(arrowTip), m_edges(std::move(edges)), m_connector(connector), m_theme(theme)
{
    setZValue(connector ? 1.1 : 1);
    setAcceptedMouseButtons(Qt::NoButton);
    m_arrowBase = m_path.currentPosition();
    m_bounds = m_path.boundingRect();
    if (m_arrowTip)
        m_bounds = m_bounds.united(QRectF(*m_arrowTip, QSizeF(1, 1)));
    m_bounds.adjust(-6, -6, 6, 6);
}

QRectF EdgeItem::labelRect() const
{
    if (m_label.isEmpty() || !m_labelRect)
        return {};
    return *m_labelRect;
}

void EdgeItem::setLabelRect(const std::optional<QRectF>& rect)
{
    if (rect == m_labelRect)
        return;
    if (m_labelTile && rect && !m_label.isEmpty())
        m_labelTile->include(rect->adjusted(-2, -2, 2, 2));
    if (m_labelItem)
        m_labelItem->geometryWillChange();
    m_labelRect = rect;
    labelChanged();
}

void EdgeItem::labelChanged()
{
    if (!m_labelItem && scene() && !labelRect().isEmpty()) {
        m_labelItem = new EdgeLabelItem(this);
        if (m_labelTile) {
            m_labelTile->add(m_labelItem);
        } else {
            scene()->addItem(m_labelItem);
        }
    }
    if (m_labelItem)
        m_labelItem->update();
}

QRectF EdgeItem::boundingRect() const { return m_bounds; }

QPainterPath EdgeItem::shape() const
{
    QPainterPathStroker stroker;
    stroker.setWidth(6);
    return stroker.createStroke(m_path);
}

bool EdgeItem::setLabel(const QString& label)
{
    if (label == m_label)
        return false;
    if (m_labelItem)
        m_labelItem->geometryWillChange();
    m_label = label;
    if (!m_label.isEmpty()) {
        QFontMetricsF metrics(m_theme->labelFont);
        m_labelSize = QSizeF(metrics.horizontalAdvance(m_label) + 8, metrics.height() + 2);
    }
    labelChanged();
    return true;
}

void EdgeItem::setHighlight(Highlight h)
{
    if (h == m_highlight)
        return;
    m_highlight = h;
    setZValue(h == Highlight::None ? (m_connector ? 1.1 : 1) : 1.5);
    update();
    if (m_tile) {
        m_tile->lift(this, h != Highlight::None);
        update();
        TileItem::updateFar(this);
    }
    if (m_labelItem)
        m_labelItem->update();
}

void EdgeItem::setTiles(TileItem* home, TileItem* labels)
{
    m_tile = home;
    m_labelTile = labels;
    if (m_tile)
        m_tile->add(this);
}

void EdgeItem::refresh()
{
    if (!m_label.isEmpty()) {
        if (m_labelItem)
            m_labelItem->geometryWillChange();
        QFontMetricsF metrics(m_theme->labelFont);
        m_labelSize = QSizeF(metrics.horizontalAdvance(m_label) + 8, metrics.height() + 2);
    }
    update();
    labelChanged();
}

QColor EdgeItem::colour() const
{
    if (m_highlight == Highlight::Target)
        return m_theme->stepAccent;
    if (m_highlight == Highlight::Source)
        return m_theme->sourceAccent;
    return m_theme->edge;
}

QPen EdgeItem::farPen() const
{
    // A cosmetic hairline, no arrowhead, no label.
    QPen pen(colour(), m_highlight == Highlight::None ? 0 : 2);
    pen.setCosmetic(true);
    return pen;
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const QColor colour = this->colour();
    double width = 1.2;
    if (m_highlight == Highlight::Target)
        width = 3;
    else if (m_highlight == Highlight::Source)
        width = 2.5;
    if (lod < lod::kFar) {
        painter->setPen(farPen());
        painter->setBrush(Qt::NoBrush);
        painter->drawPath(m_path);
        return;
    }
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setPen(QPen(colour, width, Qt::SolidLine, Qt::RoundCap));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(m_path);
    if (m_arrowTip) {
        const QPointF tip = *m_arrowTip;
        QPointF dir = tip - m_arrowBase;
        const double len = std::hypot(dir.x(), dir.y());
        if (len > 0.01) {
            dir /= len;
            const double size = m_highlight == Highlight::None ? 8 : 10;
            const QPointF base = tip - dir * size;
            const QPointF normal(-dir.y(), dir.x());
            QPolygonF head({tip, base + normal * size * 0.4, base - normal * size * 0.4});
            painter->setPen(Qt::NoPen);
            painter->setBrush(colour);
            painter->drawPolygon(head);
        }
    }
}

void EdgeItem::paintLabel(QPainter* painter) const
{
    const QRectF r = labelRect();
    if (r.isEmpty())
        return;
    const GraphTheme& t = *m_theme;
    QColor colour = t.mutedText;
    if (m_highlight == Highlight::Target)
        colour = t.stepAccent;
    else if (m_highlight == Highlight::Source)
        colour = t.sourceAccent;
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setPen(Qt::NoPen);
    painter->setBrush(t.edgeLabelBackground);
    painter->drawRoundedRect(r, 3, 3);
    painter->setFont(t.labelFont);
    painter->setPen(colour);
    painter->drawText(r, Qt::AlignCenter, m_label);
}

// ---- EdgeLabelItem --------------------------------------------------------------------------------------

EdgeLabelItem::EdgeLabelItem(const EdgeItem* edge) : m_edge(edge)
{
    setZValue(1.8); // above edges (1 to 1.5), below nodes (2)
    setAcceptedMouseButtons(Qt::NoButton);
}

QRectF EdgeLabelItem::boundingRect() const
{
    const QRectF r = m_edge->labelRect();
    return r.isEmpty() ? QRectF() : r.adjusted(-2, -2, 2, 2);
}

void EdgeLabelItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    // Labels hide when zoomed out, as the edge's arrowhead detail does.
    if (option->levelOfDetailFromTransform(painter->worldTransform()) >= lod::kLabels)
        m_edge->paintLabel(painter);
}

} // namespace shardx::views
