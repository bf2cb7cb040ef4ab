// ShardLegend: painting the key.
#include "views/mesh/ShardLegend.h"

#include <algorithm>

#include <QPainter>

#include "views/mesh/ShardColors.h"

namespace shardx::views {

namespace {

constexpr int kSwatchW = 34, kSwatchH = 12, kGap = 18, kPad = 6;

} // namespace

ShardLegend::ShardLegend(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void ShardLegend::setShardedLayout(std::shared_ptr<const ShardedLayout> layout)
{
    m_layout = std::move(layout);
    setVisible(m_layout != nullptr);
    updateGeometry();
    update();
}

std::vector<ShardLegend::Entry> ShardLegend::currentEntries() const
{
    std::vector<Entry> out;
    if (!m_layout)
        return out;
    out.push_back({Swatch::Slices, m_layout->unreducedAxes.empty()
                                       ? tr("colour = slice held; one colour on several devices = replicas")
                                       : tr("colour = slice held (by the devices that hold its partial results)")});
    if (!m_layout->isEven)
        out.push_back({Swatch::Padding, tr("padding (uneven dimension)")});
    if (!m_layout->unreducedAxes.empty())
        out.push_back({Swatch::Partial, tr("partial %1s over %2 (unreduced)")
                                            .arg(QString::fromLatin1(reductionKindName(m_layout->unreducedKind)),
                                                 QString::fromStdString(axisListString(m_layout->unreducedAxes)))});
    out.push_back({Swatch::Selected, tr("selected: click a device or a block")});
    return out;
}

QStringList ShardLegend::entries() const
{
    QStringList out;
    for (const Entry& e : currentEntries())
        out << e.text;
    return out;
}

int ShardLegend::flow(int width, std::vector<QRect>* out) const
{
    const QFontMetrics fm(font());
    const int lineH = std::max(fm.height(), kSwatchH) + 4;
    int x = kPad, y = kPad;
    for (const Entry& e : currentEntries()) {
        const int w = kSwatchW + 6 + fm.horizontalAdvance(e.text);
        if (x > kPad && x + w > width - kPad) {
            x = kPad;
            y += lineH;
        }
        if (out)
            out->push_back(QRect(x, y, w, lineH));
        x += w + kGap;
    }
    return y + lineH + kPad;
}

QSize ShardLegend::sizeHint() const { return {400, flow(width() > 0 ? width() : 400, nullptr)}; }
QSize ShardLegend::minimumSizeHint() const { return {100, flow(width() > 0 ? width() : 400, nullptr)}; }

void ShardLegend::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const int h = flow(width(), nullptr);
    if (h != height())
        updateGeometry();
}

void ShardLegend::paintEvent(QPaintEvent*)
{
    if (!m_layout)
        return;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette& pal = palette();
    const std::vector<Entry> entries = currentEntries();
    std::vector<QRect> rects;
    flow(width(), &rects);
    const int regions = static_cast<int>(m_layout->regionGroups.size());
    for (size_t i = 0; i < entries.size(); ++i) {
        const QRect r = rects[i];
        const QRect sw(r.x(), r.center().y() - kSwatchH / 2, kSwatchW, kSwatchH);
        p.setPen(QPen(pal.color(QPalette::Mid), 1));
        switch (entries[i].swatch) {
        case Swatch::Slices: {
            const int n = std::clamp(regions, 1, 4);
            for (int k = 0; k < n; ++k) {
                p.setBrush(sliceColor(k, regions, pal));
                p.drawRect(QRectF(sw.x() + k * sw.width() / double(n), sw.y(), sw.width() / double(n), sw.height()));
            }
            break;
        }
        case Swatch::Padding: {
            const QColor fill = sliceColor(0, regions, pal);
            p.setBrush(fill);
            p.drawRect(sw);
            QColor hatch = textOn(fill);
            hatch.setAlpha(110);
            p.setBrush(QBrush(hatch, Qt::BDiagPattern));
            p.drawRect(sw);
            break;
        }
        case Swatch::Partial: {
            QFont f = font();
            f.setBold(true);
            p.setFont(f);
            p.setPen(pal.color(QPalette::WindowText));
            p.drawText(sw, Qt::AlignCenter, QStringLiteral("Σ"));
            p.setFont(font());
            break;
        }
        case Swatch::Selected:
            p.setPen(QPen(pal.color(QPalette::Highlight), 2.5));
            p.setBrush(Qt::NoBrush);
            p.drawRect(sw.adjusted(1, 1, -1, -1));
            break;
        }
        p.setPen(pal.color(QPalette::WindowText));
        p.drawText(QRect(sw.right() + 7, r.y(), r.width() - kSwatchW - 6, r.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   entries[i].text);
    }
}

} // namespace shardx::views
