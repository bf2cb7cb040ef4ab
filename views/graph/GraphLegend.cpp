// GraphLegend: swatches for axes, fills and marks.
#include "views/graph/GraphLegend.h"

#include <QEvent>
#include <QPainter>
#include <QPainterPath>

#include <functional>

#include "views/graph/GraphTheme.h"

namespace shardx::views {

namespace {
constexpr int kRow = 18;
constexpr int kPad = 8;
constexpr int kSwatch = 22;
constexpr int kMarkRows = 5; // replicated, no sharding, step op, propagated along, conflict
} // namespace

GraphLegend::GraphLegend(const GraphTheme* theme, QWidget* parent) : QWidget(parent), m_theme(theme)
{
    setAttribute(Qt::WA_TransparentForMouseEvents, false);
    setToolTip(tr("Node colours: the mesh axes of the result's sharding at the current step"));
}

void GraphLegend::setAxes(const std::vector<std::string>& names, const std::vector<int64_t>& sizes)
{
    m_axes.clear();
    for (size_t i = 0; i < names.size(); ++i)
        m_axes.push_back(Axis{QString::fromStdString(names[i]), i < sizes.size() ? sizes[i] : 0});
    resize(sizeHint());
    refresh();
}

void GraphLegend::refresh()
{
    m_picture = QPixmap();
    update();
}

void GraphLegend::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange)
        refresh();
}

QSize GraphLegend::sizeHint() const
{
    QFontMetrics fm(font());
    int width = fm.horizontalAdvance(tr("propagated along")) + kSwatch + 3 * kPad;
    for (const Axis& a : m_axes)
        width = std::max(width, fm.horizontalAdvance(QStringLiteral("\"%1\" = %2").arg(a.name).arg(a.size)) + kSwatch +
                                    3 * kPad);
    const int rows = static_cast<int>(m_axes.size()) + kMarkRows;
    return QSize(width, kPad * 2 + fm.height() + 4 + rows * kRow);
}

void GraphLegend::paintEvent(QPaintEvent*)
{
    const qreal dpr = devicePixelRatioF();
    if (m_picture.isNull() || m_picture.size() != size() * dpr || m_picture.devicePixelRatio() != dpr) {
        m_picture = QPixmap(size() * dpr);
        m_picture.setDevicePixelRatio(dpr);
        m_picture.fill(Qt::transparent);
        QPainter p(&m_picture);
        p.setFont(font());
        draw(p);
    }
    QPainter p(this);
    p.drawPixmap(0, 0, m_picture);
}

void GraphLegend::draw(QPainter& p) const
{
    const GraphTheme& t = *m_theme;
    paintOverlayPanel(p, QRectF(rect()), t);

    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(t.text);
    QFontMetrics fm(font());
    int y = kPad;
    p.drawText(QRect(kPad, y, width() - 2 * kPad, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, tr("Mesh axes"));
    y += fm.height() + 4;
    p.setFont(font());
    auto row = [&](const QString& text, const std::function<void(const QRectF&)>& swatch) {
        const QRectF s(kPad, y + 3, kSwatch, kRow - 6);
        swatch(s);
        p.setPen(t.text);
        p.drawText(QRect(kPad * 2 + kSwatch, y, width() - 3 * kPad - kSwatch, kRow), Qt::AlignLeft | Qt::AlignVCenter,
                   text);
        y += kRow;
    };
    auto box = [&](const QColor& fill, const QColor& border, Qt::PenStyle style = Qt::SolidLine) {
        return [&, fill, border, style](const QRectF& s) {
            p.setPen(QPen(border, 1, style));
            p.setBrush(fill);
            p.drawRoundedRect(s, 3, 3);
        };
    };
    for (const Axis& a : m_axes)
        row(a.size ? QStringLiteral("\"%1\" = %2").arg(a.name).arg(a.size) : QStringLiteral("\"%1\"").arg(a.name),
            box(t.axisFill(a.name), t.axisColour(a.name)));
    row(tr("replicated"), box(t.replicated, t.nodeBorder));
    row(tr("no sharding"), box(t.nodeFill, t.nodeBorder));
    row(tr("current step's op"), [&](const QRectF& s) {
        p.setPen(QPen(t.stepAccent, 2.5));
        p.setBrush(t.nodeFill);
        p.drawRoundedRect(s.adjusted(1, 1, -1, -1), 3, 3);
    });
    row(tr("propagated along"), [&](const QRectF& s) {
        p.setPen(QPen(t.sourceAccent, 2.5));
        p.drawLine(QPointF(s.left(), s.center().y() - 2), QPointF(s.center().x() - 1, s.center().y() - 2));
        p.setPen(QPen(t.stepAccent, 2.5));
        p.drawLine(QPointF(s.center().x() + 1, s.center().y() + 2), QPointF(s.right(), s.center().y() + 2));
    });
    row(tr("conflict"), [&](const QRectF& s) {
        const QPointF c = s.center();
        QPolygonF tri({QPointF(c.x(), c.y() - 6), QPointF(c.x() + 6, c.y() + 5), QPointF(c.x() - 6, c.y() + 5)});
        p.setPen(QPen(t.conflict, 1.2));
        p.setBrush(t.conflict);
        p.drawPolygon(tri);
    });
}

} // namespace shardx::views
