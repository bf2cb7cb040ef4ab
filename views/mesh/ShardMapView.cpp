// ShardMapView: layout and painting of a tensor's shards.
#include "views/mesh/ShardMapView.h"

#include <algorithm>
#include <cmath>

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include "core/sharding/TypeShape.h"
#include "views/mesh/ShardColors.h"
#include "views/models/DeviceShardModel.h"

namespace shardx::views {

namespace {

constexpr int kMapMargin = 10;
constexpr int kFacetGap = 16;
constexpr int kMinBlockW = 30, kMaxBlockW = 130;
constexpr int kMinBlockH = 24, kMaxBlockH = 72;

QColor blend(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(a.redF() * (1 - t) + b.redF() * t, a.greenF() * (1 - t) + b.greenF() * t,
                            a.blueF() * (1 - t) + b.blueF() * t);
}

} // namespace

ShardMapView::ShardMapView(QWidget* parent) : QWidget(parent)
{
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

void ShardMapView::setShardedLayout(std::shared_ptr<const ShardedLayout> layout, const QString& message)
{
    m_layout = std::move(layout);
    m_message = message;
    m_selected = -1;
    m_region = -1;
    m_regionOfIndex.clear();
    if (m_layout)
        for (const DeviceShard& d : m_layout->devices)
            m_regionOfIndex.emplace(d.shardIndex, static_cast<int>(d.regionGroup));
    setGridDims(m_rowDim, m_colDim);
}

void ShardMapView::setGridDims(int rowDim, int colDim)
{
    const int rank = m_layout ? static_cast<int>(m_layout->globalShape.size()) : 0;
    if (rank >= 2 && rowDim >= 0 && colDim >= 0 && rowDim < rank && colDim < rank && rowDim != colDim) {
        m_rowDim = rowDim;
        m_colDim = colDim;
    } else if (rank >= 2 && rowDim < 0 && colDim >= 0 && colDim < rank) {
        m_rowDim = -1;
        m_colDim = colDim;
    } else {
        m_rowDim = rank >= 2 ? 0 : -1;
        m_colDim = rank >= 2 ? 1 : (rank == 1 ? 0 : -1);
    }
    relayout();
}

void ShardMapView::setSelectedDevice(qint64 deviceId)
{
    m_selected = deviceId;
    m_region = -1;
    update();
}

void ShardMapView::setHighlightedRegion(int region)
{
    m_region = region;
    m_selected = -1;
    update();
}

int64_t ShardMapView::validExtent(int dim, int64_t shard) const
{
    const int64_t n = m_layout->globalShape[static_cast<size_t>(dim)];
    const int64_t local = m_layout->localShape[static_cast<size_t>(dim)];
    if (n == kDynamicSize)
        return 1;
    return std::clamp<int64_t>(n - shard * local, 0, local);
}

int ShardMapView::regionOfIndex(const std::vector<int64_t>& index) const
{
    auto it = m_regionOfIndex.find(index);
    return it == m_regionOfIndex.end() ? -1 : it->second;
}

QString ShardMapView::dimTitle(int dim) const
{
    const auto d = static_cast<size_t>(dim);
    const int64_t n = m_layout->globalShape[d];
    QString text = tr("d%1 · %2").arg(dim).arg(n == kDynamicSize ? QStringLiteral("?") : QString::number(n));
    if (m_layout->dimAxes[d].empty())
        return text + tr(" · not sharded");
    QStringList axes;
    for (const AxisRef& a : m_layout->dimAxes[d])
        axes << QString::fromStdString(a.toString());
    text += tr(" · %1 shards on %2").arg(m_layout->shardsPerDim[d]).arg(axes.join(QStringLiteral(", ")));
    if (n != kDynamicSize && m_layout->shardsPerDim[d] > 0 && n % m_layout->shardsPerDim[d] != 0)
        text += tr(" (uneven: %1 each, padded)").arg(m_layout->localShape[d]);
    return text;
}

QString ShardMapView::facetCaption(const std::vector<int64_t>& index) const
{
    QStringList parts;
    for (size_t d = 0; d < index.size(); ++d) {
        if (static_cast<int>(d) == m_rowDim || static_cast<int>(d) == m_colDim || m_layout->shardsPerDim[d] <= 1)
            continue;
        const int64_t local = m_layout->localShape[d];
        const int64_t begin = index[d] * local;
        const int64_t real = validExtent(static_cast<int>(d), index[d]);
        QString part = QStringLiteral("d%1 %2:%3").arg(d).arg(begin).arg(begin + real);
        if (real < local)
            part += tr(" +%1 pad").arg(local - real);
        parts << part;
    }
    return parts.join(QStringLiteral(" · "));
}

ShardMapView::Frame ShardMapView::frame() const
{
    Frame f;
    const QFontMetrics fm(font());
    f.lineH = fm.height() + 2;
    if (!m_layout)
        return f;
    const ShardedLayout& L = *m_layout;
    const int rank = static_cast<int>(L.globalShape.size());
    f.rows = m_rowDim >= 0 ? static_cast<int>(L.shardsPerDim[static_cast<size_t>(m_rowDim)]) : 1;
    f.cols = m_colDim >= 0 ? static_cast<int>(L.shardsPerDim[static_cast<size_t>(m_colDim)]) : 1;
    f.numFacets = 1;
    for (int d = 0; d < rank; ++d)
        if (d != m_rowDim && d != m_colDim && L.shardsPerDim[static_cast<size_t>(d)] > 1) {
            f.facetDims.push_back(d);
            f.numFacets = static_cast<int>(
                std::min<int64_t>(int64_t(f.numFacets) * L.shardsPerDim[static_cast<size_t>(d)], 1 << 20));
        }
    f.shown = std::min(f.numFacets, kMaxFacets);
    // Titles: rows and columns are named by the ticks and the panel's lists; the rest needs a line.
    if (rank == 0)
        f.titles.emplace_back(tr("A scalar: every device holds it"), true);
    QStringList others;
    for (int d : f.facetDims)
        others << tr("facets: %1").arg(dimTitle(d));
    for (int d = 0; d < rank; ++d)
        if (d != m_rowDim && d != m_colDim && L.shardsPerDim[static_cast<size_t>(d)] <= 1)
            others << tr("whole: %1").arg(dimTitle(d));
    if (!others.isEmpty())
        f.titles.emplace_back(others.join(QStringLiteral("     ")), false);
    if (f.shown < f.numFacets)
        f.titles.emplace_back(tr("Showing %1 of %2 facets: pick other row and column dimensions to see the rest")
                                  .arg(f.shown)
                                  .arg(f.numFacets),
                              true);
    f.titleH = kMapMargin + static_cast<int>(f.titles.size()) * f.lineH + (f.titles.empty() ? 0 : 6);
    for (const auto& t : f.titles)
        f.titleW = std::max(f.titleW, fm.horizontalAdvance(t.first) + 8);
    if (m_rowDim >= 0) {
        const int64_t n = L.globalShape[static_cast<size_t>(m_rowDim)];
        f.rowTickW = fm.horizontalAdvance(QString::number(n == kDynamicSize ? 0 : n)) + 10;
    }
    f.colTickH = m_colDim >= 0 ? f.lineH : 0;
    f.captionH = f.facetDims.empty() ? 0 : f.lineH + 2;
    return f;
}

int ShardMapView::columnsFor(const Frame& f, int width) const
{
    int fc = 1;
    for (int c = 2; c <= f.shown; ++c)
        if (c * (f.rowTickW + f.cols * kMinBlockW) + (c - 1) * kFacetGap + 2 * kMapMargin <= width)
            fc = c;
    return fc;
}

int ShardMapView::heightFor(const Frame& f, int facetColumns) const
{
    if (!m_layout)
        return 3 * f.lineH;
    const int fr = (f.shown + facetColumns - 1) / facetColumns;
    return f.titleH + fr * (f.captionH + f.colTickH + f.rows * kMinBlockH) + (fr - 1) * kFacetGap + kMapMargin;
}

bool ShardMapView::hasHeightForWidth() const { return true; }

int ShardMapView::heightForWidth(int width) const
{
    const Frame f = frame();
    return heightFor(f, columnsFor(f, width));
}

void ShardMapView::relayout()
{
    m_blocks.clear();
    m_texts.clear();
    m_ticks.clear();
    const QFontMetrics fm(font());
    const Frame f = frame();
    const int lineH = f.lineH;
    m_numFacets = m_layout ? f.numFacets : 0;
    if (!m_layout) {
        m_minSize = QSize(fm.horizontalAdvance(m_message) / 2 + 2 * kMapMargin, 3 * lineH);
        updateGeometry();
        update();
        return;
    }
    const ShardedLayout& L = *m_layout;
    const int rank = static_cast<int>(L.globalShape.size());
    const int rows = f.rows, cols = f.cols, shown = f.shown;
    const std::vector<int>& facetDims = f.facetDims;
    qreal y = kMapMargin;
    for (const auto& [text, emphasis] : f.titles) {
        m_texts.push_back({QRectF(kMapMargin, y, fm.horizontalAdvance(text) + 8, lineH), text,
                           Qt::AlignLeft | Qt::AlignVCenter, emphasis});
        y += lineH;
    }
    y = f.titleH;
    const int rowTickW = f.rowTickW, colTickH = f.colTickH, captionH = f.captionH;

    // Facet columns: of the counts that fit the width, the one that gives the largest blocks.
    const int availW = width() - 2 * kMapMargin;
    const int availH = height() - static_cast<int>(y) - kMapMargin;
    const int maxColumns = columnsFor(f, width());
    int fc = maxColumns;
    double best = -1;
    for (int c = 1; c <= maxColumns; ++c) {
        const int r = (shown + c - 1) / c;
        const double bw = double(availW - c * rowTickW - (c - 1) * kFacetGap) / (c * cols);
        const double bh = double(availH - r * (captionH + colTickH) - (r - 1) * kFacetGap) / (r * rows);
        if (bw < kMinBlockW || bh < kMinBlockH)
            continue;
        const double score = std::min(std::min(bw, double(kMaxBlockW)), 1.6 * std::min(bh, double(kMaxBlockH)));
        if (score > best + 0.5) {
            best = score;
            fc = c;
        }
    }
    const int fr = (shown + fc - 1) / fc;
    const double bw = std::clamp(double(availW - fc * rowTickW - (fc - 1) * kFacetGap) / (fc * cols),
                                 double(kMinBlockW), double(kMaxBlockW));
    const double bh = std::clamp(double(availH - fr * (captionH + colTickH) - (fr - 1) * kFacetGap) / (fr * rows),
                                 double(kMinBlockH), double(kMaxBlockH));
    const double facetW = rowTickW + cols * bw, facetH = captionH + colTickH + rows * bh;

    std::vector<int64_t> index(static_cast<size_t>(rank), 0);
    for (int f = 0; f < shown; ++f) {
        int rest = f;
        for (auto it = facetDims.rbegin(); it != facetDims.rend(); ++it) {
            const int n = static_cast<int>(L.shardsPerDim[static_cast<size_t>(*it)]);
            index[static_cast<size_t>(*it)] = rest % n;
            rest /= n;
        }
        const double fx = kMapMargin + (f % fc) * (facetW + kFacetGap);
        const double fy = y + (f / fc) * (facetH + kFacetGap);
        if (captionH)
            m_texts.push_back({QRectF(fx + rowTickW, fy, facetW - rowTickW, lineH), facetCaption(index),
                               Qt::AlignLeft | Qt::AlignVCenter, true});
        const double gx = fx + rowTickW, gy = fy + captionH + colTickH;
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) {
                if (m_rowDim >= 0)
                    index[static_cast<size_t>(m_rowDim)] = r;
                if (m_colDim >= 0)
                    index[static_cast<size_t>(m_colDim)] = c;
                Block b;
                b.rect = QRectF(gx + c * bw, gy + r * bh, bw, bh);
                b.realRect = b.rect;
                if (m_colDim >= 0) {
                    const int64_t local = L.localShape[static_cast<size_t>(m_colDim)];
                    if (local > 0 && local != kDynamicSize)
                        b.realRect.setWidth(bw * double(validExtent(m_colDim, c)) / double(local));
                }
                if (m_rowDim >= 0) {
                    const int64_t local = L.localShape[static_cast<size_t>(m_rowDim)];
                    if (local > 0 && local != kDynamicSize)
                        b.realRect.setHeight(bh * double(validExtent(m_rowDim, r)) / double(local));
                }
                for (int d : facetDims)
                    if (validExtent(d, index[static_cast<size_t>(d)]) == 0)
                        b.realRect = QRectF();
                b.region = regionOfIndex(index);
                b.facet = f;
                b.shardIndex = index;
                m_blocks.push_back(std::move(b));
            }
        // Ticks: the global index at each block start, and the real end.
        auto addTicks = [&](int dim, int count, bool horizontal) {
            if (dim < 0)
                return;
            const int64_t n = L.globalShape[static_cast<size_t>(dim)];
            const int64_t local = L.localShape[static_cast<size_t>(dim)];
            if (n == kDynamicSize)
                return;
            const double step = horizontal ? bw : bh;
            std::vector<std::pair<double, int64_t>> marks;
            for (int s = 0; s < count; ++s)
                if (s * local < n)
                    marks.emplace_back(s * step, s * local);
            const int64_t lastReal = (n - 1) / std::max<int64_t>(local, 1);
            marks.emplace_back(lastReal * step + step * double(n - lastReal * local) / double(local), n);
            double lastEdge = -1e9;
            for (const auto& [offset, value] : marks) {
                const QString text = QString::number(value);
                if (horizontal) {
                    const double x = gx + offset;
                    const double w = fm.horizontalAdvance(text) + 4;
                    m_ticks.emplace_back(QPointF(x, gy - 3), QPointF(x, gy));
                    if (x - w / 2 < lastEdge && value != n)
                        continue;
                    m_texts.push_back(
                        {QRectF(x - w / 2, gy - colTickH - 1, w, lineH - 2), text, Qt::AlignCenter, false});
                    lastEdge = x + w / 2 + 2;
                } else {
                    const double yy = gy + offset;
                    m_ticks.emplace_back(QPointF(gx - 3, yy), QPointF(gx, yy));
                    if (yy - lineH / 2.0 < lastEdge && value != n)
                        continue;
                    m_texts.push_back({QRectF(fx, yy - lineH / 2.0, rowTickW - 5, lineH), text,
                                       Qt::AlignRight | Qt::AlignVCenter, false});
                    lastEdge = yy + lineH / 2.0;
                }
            }
        };
        addTicks(m_colDim, cols, true);
        addTicks(m_rowDim, rows, false);
    }
    // The minimum size: one column of facets wide, all facets in a row high (heightForWidth
    // gives the height a width needs).
    m_minSize = QSize(std::max(f.titleW, rowTickW + cols * kMinBlockW) + 2 * kMapMargin, heightFor(f, shown));
    updateGeometry();
    update();
}

QSize ShardMapView::sizeHint() const { return m_minSize.expandedTo(QSize(360, 220)); }
QSize ShardMapView::minimumSizeHint() const { return m_minSize; }

void ShardMapView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    relayout();
}

const ShardMapView::Block* ShardMapView::blockAt(const QPointF& pos) const
{
    for (const Block& b : m_blocks)
        if (b.rect.contains(pos))
            return &b;
    return nullptr;
}

QString ShardMapView::blockToolTip(const Block& b) const
{
    if (!m_layout || b.region < 0)
        return {};
    const std::vector<int64_t>& holders = m_layout->regionGroups[static_cast<size_t>(b.region)];
    const DeviceShard* s = m_layout->shardOfDevice(holders.front());
    QStringList lines;
    lines << tr("<b>Slice %1</b>").arg(QString::fromStdString(m_layout->sliceText(*s)));
    lines << tr("local shape %1 per device").arg(shapeText(m_layout->localShape));
    if (m_layout->unreducedAxes.empty())
        lines << (holders.size() == 1
                      ? tr("held by device %1").arg(holders.front())
                      : tr("held by %1 devices (replicas): %2").arg(holders.size()).arg(deviceListText(holders, 12)));
    else
        lines << tr("held by %1 as partial %2s over %3 (unreduced)")
                     .arg(deviceListText(holders, 12), QString::fromLatin1(reductionKindName(m_layout->unreducedKind)),
                          QString::fromStdString(axisListString(m_layout->unreducedAxes)).toHtmlEscaped());
    if (m_layout->holdsPadding(*s))
        lines << tr("the hatched part is padding: the last shards of an uneven dimension are padded at the end");
    return lines.join(QStringLiteral("<br>"));
}

void ShardMapView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette& pal = palette();
    const QColor secondary = pal.color(QPalette::PlaceholderText);
    const QFontMetrics fm(font());
    if (!m_layout) {
        p.setPen(secondary);
        p.drawText(rect().adjusted(kMapMargin, kMapMargin, -kMapMargin, -kMapMargin),
                   Qt::AlignCenter | Qt::TextWordWrap, m_message);
        return;
    }
    QFont bold = font();
    bold.setBold(true);
    for (const Text& t : m_texts) {
        p.setFont(t.title ? bold : font());
        p.setPen(t.title ? pal.color(QPalette::WindowText) : secondary);
        p.drawText(t.rect, t.flags, t.text);
    }
    p.setPen(QPen(secondary, 1));
    for (const auto& [a, b] : m_ticks)
        p.drawLine(a, b);

    const int regions = static_cast<int>(m_layout->regionGroups.size());
    const DeviceShard* selected = m_selected >= 0 ? m_layout->shardOfDevice(m_selected) : nullptr;
    const int focusRegion = selected ? static_cast<int>(selected->regionGroup) : m_region;
    const bool partial = !m_layout->unreducedAxes.empty();
    const QColor window = pal.color(QPalette::Window);
    QFont small = font();
    small.setPointSizeF(std::max(6.0, font().pointSizeF() * 0.85));
    const QFontMetrics smallFm(small);
    for (const Block& b : m_blocks) {
        QColor fill = b.region >= 0 ? sliceColor(b.region, regions, pal) : pal.color(QPalette::Button);
        const bool inFocus = focusRegion < 0 || b.region == focusRegion;
        if (!inFocus)
            fill = blend(fill, window, 0.65);
        // Padding: the block's colour faded and hatched; the real part in full colour.
        p.setPen(Qt::NoPen);
        p.setBrush(blend(fill, window, 0.55));
        p.drawRect(b.rect);
        QPainterPath pad;
        pad.addRect(b.rect);
        if (!b.realRect.isEmpty()) {
            QPainterPath real;
            real.addRect(b.realRect);
            pad = pad.subtracted(real);
            p.setBrush(fill);
            p.drawRect(b.realRect);
        }
        if (!pad.isEmpty()) {
            QColor hatch = textOn(fill);
            hatch.setAlpha(110);
            p.setBrush(QBrush(hatch, Qt::BDiagPattern));
            p.drawPath(pad);
        }
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(blend(pal.color(QPalette::Mid), window, 0.2), 1));
        p.drawRect(b.rect.adjusted(0.5, 0.5, -0.5, -0.5));
        if (b.region < 0)
            continue;
        // Label: who holds it, as much as fits.
        const QRectF textRect = (b.realRect.isEmpty() ? b.rect : b.realRect).adjusted(3, 2, -3, -2);
        const std::vector<int64_t>& holders = m_layout->regionGroups[static_cast<size_t>(b.region)];
        QStringList ids;
        for (int64_t id : holders)
            ids << QString::number(id);
        QStringList candidates{ids.join(QStringLiteral(", ")), ids.join(QLatin1Char(',')),
                               tr("%1 devices").arg(holders.size()), QStringLiteral("×%1").arg(holders.size())};
        if (holders.size() == 1)
            candidates = {ids.front()};
        if (b.realRect.isEmpty())
            candidates = {tr("padding"), QString()};
        p.setFont(font());
        p.setPen(inFocus ? textOn(fill) : secondary);
        for (const QString& c : candidates)
            if (fm.horizontalAdvance(c) <= textRect.width() && fm.height() <= textRect.height() + 2) {
                p.drawText(textRect, Qt::AlignCenter, c);
                break;
            }
        if (partial && b.rect.width() > 22 && b.rect.height() > smallFm.height() + 2) {
            p.setFont(small);
            p.drawText(b.rect.adjusted(2, 1, -3, 0), Qt::AlignRight | Qt::AlignTop, QStringLiteral("Σ"));
        }
    }
    // Outline the focused blocks last, over their neighbours' borders.
    if (focusRegion >= 0) {
        p.setPen(QPen(pal.color(QPalette::Highlight), 2.5));
        p.setBrush(Qt::NoBrush);
        for (const Block& b : m_blocks)
            if (b.region == focusRegion)
                p.drawRect(b.rect.adjusted(1, 1, -1, -1));
    }
}

void ShardMapView::mousePressEvent(QMouseEvent* event)
{
    const Block* b = blockAt(event->position());
    if (!b || b->region < 0) {
        QWidget::mousePressEvent(event);
        return;
    }
    const int region = b->region == m_region ? -1 : b->region;
    setHighlightedRegion(region);
    emit regionClicked(region);
}

bool ShardMapView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        if (const Block* b = blockAt(help->pos()); b && b->region >= 0)
            QToolTip::showText(help->globalPos(), blockToolTip(*b), this, b->rect.toRect());
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace shardx::views
