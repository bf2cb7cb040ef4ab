// MeshGridView: layout and painting of a mesh's device grid.
#include "views/mesh/MeshGridView.h"

#include <QEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QToolTip>

#include "core/mesh/DeviceLayout.h"
#include "views/mesh/ShardColors.h"
#include "views/models/DeviceShardModel.h"

namespace shardx::views {

namespace {

constexpr int kMargin = 10;
constexpr int kCellGap = 4;
constexpr int kBlockGap = 18;

QString axisName(const MeshAxis& a) { return QString::fromStdString(a.name); }

} // namespace

MeshGridView::MeshGridView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(false);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void MeshGridView::setMesh(const Mesh& mesh, const QString& name)
{
    m_mesh = mesh;
    m_name = name;
    m_layout.reset();
    m_used.clear();
    m_selected = -1;
    m_region = -1;
    relayout();
}

void MeshGridView::setLayout(std::shared_ptr<const ShardedLayout> layout, std::vector<AxisRef> usedAxes)
{
    m_layout = std::move(layout);
    m_used = std::move(usedAxes);
    if (m_selected >= 0 && !shardOf(m_selected))
        m_selected = -1;
    m_region = -1;
    relayout();
}

void MeshGridView::setSelectedDevice(qint64 deviceId)
{
    if (deviceId == m_selected)
        return;
    m_selected = deviceId;
    m_region = -1;
    update();
}

void MeshGridView::setHighlightedRegion(int region)
{
    if (region == m_region)
        return;
    m_region = region;
    m_selected = -1;
    update();
}

const DeviceShard* MeshGridView::shardOf(qint64 deviceId) const
{
    return m_layout ? m_layout->shardOfDevice(deviceId) : nullptr;
}

QRect MeshGridView::deviceRect(qint64 deviceId) const
{
    for (const Cell& c : m_cells)
        if (c.device == deviceId)
            return c.rect;
    return {};
}

qint64 MeshGridView::deviceAt(const QPoint& pos) const
{
    for (const Cell& c : m_cells)
        if (c.rect.contains(pos))
            return c.device;
    return -1;
}

QSize MeshGridView::sizeHint() const { return m_naturalSize.expandedTo(QSize(200, 120)); }
QSize MeshGridView::minimumSizeHint() const { return m_minimumSize; }

// ---- layout ---------------------------------------------------------------------------------------------

void MeshGridView::addSubAxisSpans(int axis, QPoint start, bool horizontal, int cellExtent, int gap, int& extent)
{
    // One line per sub-axis of `axis` the sharding uses that spans several cells: spans of cells
    // with one sub-axis coordinate, labelled `"x":(1)2=0` (horizontal axes only; rows get gaps).
    const MeshAxis& a = m_mesh.axes()[static_cast<size_t>(axis)];
    const QFontMetrics fm(font());
    const int lineH = fm.height() + 2;
    for (const AxisRef& used : m_used) {
        if (used.name != a.name || !used.sub || !horizontal)
            continue;
        // The minor-most part (stride 1) changes every cell: the tooltip names it.
        const int64_t stride = a.size / used.sub->nextPreSize();
        if (stride == 1)
            continue;
        const int64_t size = used.sub->size;
        const QString name = QString::fromStdString(used.toString());
        int64_t from = 0;
        for (int64_t c = 1; c <= a.size; ++c) {
            if (c < a.size && (c / stride) % size == ((c - 1) / stride) % size)
                continue;
            const int64_t coord = (from / stride) % size;
            const int x0 = start.x() + static_cast<int>(from) * (cellExtent + gap);
            const int x1 = start.x() + static_cast<int>(c) * (cellExtent + gap) - gap;
            QString text = QStringLiteral("%1=%2").arg(name).arg(coord);
            if (fm.horizontalAdvance(text) > x1 - x0)
                text = QString::number(coord);
            m_labels.push_back(
                {QRect(x0, start.y() + extent, x1 - x0, lineH), text, Qt::AlignHCenter | Qt::AlignVCenter, false});
            m_spanLines.emplace_back(x0 + 2, start.y() + extent + lineH, x1 - 2, start.y() + extent + lineH);
            from = c;
        }
        extent += lineH + 3;
    }
}

QSize MeshGridView::layoutBlock(QPoint origin, int64_t basePosition, const QString& caption)
{
    const auto& axes = m_mesh.axes();
    const int k = static_cast<int>(axes.size());
    const QFontMetrics fm(font());
    const int lineH = fm.height() + 2;
    const int cw = m_cellSize.width(), ch = m_cellSize.height();
    const int colAxis = k - 1, rowAxis = k - 2;
    const int nCols = static_cast<int>(axes[static_cast<size_t>(colAxis)].size);
    const int nRows = rowAxis >= 0 ? static_cast<int>(axes[static_cast<size_t>(rowAxis)].size) : 1;
    const DeviceLayout dl(m_mesh);
    std::vector<int64_t> strides(static_cast<size_t>(k), 1);
    for (int i = k - 2; i >= 0; --i)
        strides[static_cast<size_t>(i)] = strides[static_cast<size_t>(i + 1)] * axes[static_cast<size_t>(i + 1)].size;

    int y = origin.y();
    if (!caption.isEmpty()) {
        m_labels.push_back({QRect(origin.x(), y, 10, lineH), caption, Qt::AlignLeft | Qt::AlignVCenter, true});
        y += lineH + 2;
    }
    // Row header: the axis name, then the index of each row.
    int rowHeaderW = 0;
    if (rowAxis >= 0) {
        const QString name = axisName(axes[static_cast<size_t>(rowAxis)]);
        rowHeaderW = fm.horizontalAdvance(name) + 10 + fm.horizontalAdvance(QString::number(nRows - 1)) + 8;
    }
    const int cellsX = origin.x() + rowHeaderW;
    // Column header: axis name, sub-axis spans, indices.
    int header = 0;
    m_labels.push_back({QRect(cellsX, y, nCols * (cw + kCellGap) - kCellGap, lineH),
                        axisName(axes[static_cast<size_t>(colAxis)]), Qt::AlignHCenter | Qt::AlignVCenter, true});
    header += lineH;
    addSubAxisSpans(colAxis, QPoint(cellsX, y), true, cw, kCellGap, header);
    for (int c = 0; c < nCols; ++c)
        m_labels.push_back({QRect(cellsX + c * (cw + kCellGap), y + header, cw, lineH), QString::number(c),
                            Qt::AlignHCenter | Qt::AlignVCenter, false});
    header += lineH + 2;
    const int cellsY = y + header;

    // Rows: an extra gap where a used sub-axis of the row axis starts a new coordinate.
    std::vector<int> rowY(static_cast<size_t>(nRows));
    int yy = cellsY;
    for (int r = 0; r < nRows; ++r) {
        if (r > 0 && rowAxis >= 0)
            for (const AxisRef& used : m_used)
                if (used.name == axes[static_cast<size_t>(rowAxis)].name && used.sub) {
                    const int64_t stride = axes[static_cast<size_t>(rowAxis)].size / used.sub->nextPreSize();
                    if (stride > 1 && r % stride == 0)
                        yy += 5;
                }
        rowY[static_cast<size_t>(r)] = yy;
        yy += ch + kCellGap;
    }
    if (rowAxis >= 0) {
        const QString name = axisName(axes[static_cast<size_t>(rowAxis)]);
        const int nameW = fm.horizontalAdvance(name) + 10;
        m_labels.push_back({QRect(origin.x(), cellsY, nameW - 6, yy - kCellGap - cellsY), name,
                            Qt::AlignRight | Qt::AlignVCenter, true});
        for (int r = 0; r < nRows; ++r)
            m_labels.push_back({QRect(origin.x() + nameW, rowY[static_cast<size_t>(r)], rowHeaderW - nameW - 6, ch),
                                QString::number(r), Qt::AlignRight | Qt::AlignVCenter, false});
    }
    for (int r = 0; r < nRows; ++r)
        for (int c = 0; c < nCols; ++c) {
            const int64_t pos = basePosition + (rowAxis >= 0 ? r * strides[static_cast<size_t>(rowAxis)] : 0) +
                                c * strides[static_cast<size_t>(colAxis)];
            m_cells.push_back(
                {QRect(cellsX + c * (cw + kCellGap), rowY[static_cast<size_t>(r)], cw, ch), dl.deviceAt(pos), pos});
        }
    const int w = rowHeaderW + nCols * (cw + kCellGap) - kCellGap;
    return {std::max(w, caption.isEmpty() ? 0 : fm.horizontalAdvance(caption)), yy - kCellGap - origin.y()};
}

void MeshGridView::relayout()
{
    const QFontMetrics fm(font());
    const QSize natural(std::max(44, fm.horizontalAdvance(QStringLiteral("0000")) + 16), std::max(32, fm.height() * 2));
    // The smallest cell still shows the widest device id, and the partial-result line under it when
    // a sharding has unreduced axes.
    int64_t largestId = std::max<int64_t>(m_mesh.totalSize() - 1, 0);
    for (int64_t id : m_mesh.deviceIds())
        largestId = std::max(largestId, id);
    const QString widest = QString::number(largestId);
    QFont bold = font();
    bold.setBold(true);
    const bool twoLines = m_layout && !m_layout->unreducedAxes.empty();
    const QSize smallest(std::min(natural.width(), QFontMetrics(bold).horizontalAdvance(widest) + 10),
                         std::min(natural.height(), twoLines ? fm.height() * 2 : fm.height() + 8));
    const QSize hintBefore = m_naturalSize, minimumBefore = m_minimumSize;
    layoutCells(smallest);
    m_minimumSize = m_contentSize;
    layoutCells(natural);
    m_naturalSize = m_contentSize;
    const QSize avail = size();
    const auto fits = [&] {
        return m_contentSize.width() <= avail.width() && m_contentSize.height() <= avail.height();
    };
    if (!avail.isEmpty() && !fits() && natural != smallest) {
        // The largest cell between the two that fits (cells grow content monotonically).
        double lo = 0.0, hi = 1.0;
        const auto cellAt = [&](double t) {
            return QSize(smallest.width() + static_cast<int>(t * (natural.width() - smallest.width())),
                         smallest.height() + static_cast<int>(t * (natural.height() - smallest.height())));
        };
        for (int i = 0; i < 7; ++i) {
            const double t = (lo + hi) / 2;
            layoutCells(cellAt(t));
            (fits() ? lo : hi) = t;
        }
        layoutCells(cellAt(lo));
    }
    if (m_naturalSize != hintBefore || m_minimumSize != minimumBefore)
        updateGeometry();
    update();
}

void MeshGridView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    relayout();
}

void MeshGridView::layoutCells(QSize cell)
{
    m_cells.clear();
    m_labels.clear();
    m_spanLines.clear();
    m_frames.clear();
    const QFontMetrics fm(font());
    const int lineH = fm.height() + 2;
    m_cellSize = cell;
    const auto& axes = m_mesh.axes();
    const int k = static_cast<int>(axes.size());
    int y = kMargin;
    int right = kMargin;
    if (k == 0) {
        const DeviceLayout dl(m_mesh);
        const QString text = m_mesh.isMaximal() ? tr("One device (a maximal mesh)") : tr("No axes: one device");
        m_labels.push_back(
            {QRect(kMargin, y, fm.horizontalAdvance(text), lineH), text, Qt::AlignLeft | Qt::AlignVCenter, true});
        y += lineH + 4;
        m_cells.push_back({QRect(kMargin, y, m_cellSize.width(), m_cellSize.height()), dl.deviceAt(0), 0});
        m_contentSize = QSize(std::max(kMargin + fm.horizontalAdvance(text), kMargin + m_cellSize.width()) + kMargin,
                              y + m_cellSize.height() + kMargin);
        return;
    }
    // Outer axes (all but the last two) alternate across and down, the innermost across.
    std::vector<int> across, down; // major first
    for (int o = k - 3; o >= 0; --o) {
        std::vector<int>& list = (k - 3 - o) % 2 == 0 ? across : down;
        list.insert(list.begin(), o);
    }
    auto count = [&](const std::vector<int>& list) {
        int64_t n = 1;
        for (int a : list)
            n *= axes[static_cast<size_t>(a)].size;
        return n;
    };
    std::vector<int64_t> strides(static_cast<size_t>(k), 1);
    for (int i = k - 2; i >= 0; --i)
        strides[static_cast<size_t>(i)] = strides[static_cast<size_t>(i + 1)] * axes[static_cast<size_t>(i + 1)].size;
    const int64_t nAcross = count(across), nDown = count(down);
    const int framePad = k > 2 ? 8 : 0;
    QSize block;
    for (int64_t d = 0; d < nDown; ++d)
        for (int64_t a = 0; a < nAcross; ++a) {
            // Coordinates of the outer axes: mixed radix over `across` and `down` (major first).
            std::vector<int64_t> coord(static_cast<size_t>(k), 0);
            int64_t rest = a;
            for (auto it = across.rbegin(); it != across.rend(); ++it) {
                coord[static_cast<size_t>(*it)] = rest % axes[static_cast<size_t>(*it)].size;
                rest /= axes[static_cast<size_t>(*it)].size;
            }
            rest = d;
            for (auto it = down.rbegin(); it != down.rend(); ++it) {
                coord[static_cast<size_t>(*it)] = rest % axes[static_cast<size_t>(*it)].size;
                rest /= axes[static_cast<size_t>(*it)].size;
            }
            int64_t base = 0;
            QStringList caption;
            for (int o = 0; o < k - 2; ++o) {
                base += coord[static_cast<size_t>(o)] * strides[static_cast<size_t>(o)];
                caption << QStringLiteral("%1 = %2").arg(axisName(axes[static_cast<size_t>(o)])).arg(coord[o]);
            }
            const QPoint origin(kMargin + framePad + static_cast<int>(a) * (block.width() + 2 * framePad + kBlockGap),
                                y + framePad + static_cast<int>(d) * (block.height() + 2 * framePad + kBlockGap));
            const QSize s = layoutBlock(origin, base, caption.join(QStringLiteral("  ·  ")));
            if (block.isEmpty())
                block = s;
            if (k > 2)
                m_frames.push_back(QRect(origin - QPoint(framePad, framePad), s + QSize(2 * framePad, 2 * framePad)));
            right = std::max(right, origin.x() + s.width() + framePad);
        }
    y += static_cast<int>(nDown) * (block.height() + 2 * framePad + kBlockGap) - kBlockGap;
    // The axes the sharding splits into sub-axes, named under the grid.
    for (const MeshAxis& a : axes) {
        QStringList parts;
        for (const AxisRef& used : m_used)
            if (used.name == a.name && used.sub)
                parts << QString::fromStdString(used.toString());
        if (parts.isEmpty())
            continue;
        const QString text = tr("\"%1\" is split into sub-axes %2").arg(axisName(a), parts.join(QStringLiteral(", ")));
        y += 6;
        m_labels.push_back(
            {QRect(kMargin, y, fm.horizontalAdvance(text) + 4, lineH), text, Qt::AlignLeft | Qt::AlignVCenter, false});
        right = std::max(right, kMargin + fm.horizontalAdvance(text) + 4);
        y += lineH;
    }
    // Labels with a width of 10 (captions) take the width of their text.
    for (Label& l : m_labels)
        if (l.rect.width() == 10)
            l.rect.setWidth(fm.horizontalAdvance(l.text) + 4);
    m_contentSize = QSize(right + kMargin, y + kMargin);
}

// ---- painting and input -----------------------------------------------------------------------------------

void MeshGridView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette& pal = palette();
    const bool dark = isDarkPalette(pal);
    const QColor secondary = pal.color(QPalette::PlaceholderText);
    for (const QRect& f : m_frames) {
        p.setPen(QPen(pal.color(QPalette::Mid), 1));
        p.setBrush(pal.color(QPalette::AlternateBase));
        p.drawRoundedRect(QRectF(f).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);
    }
    QFont bold = font();
    bold.setBold(true);
    for (const Label& l : m_labels) {
        p.setFont(l.title ? bold : font());
        p.setPen(l.title ? pal.color(QPalette::WindowText) : secondary);
        p.drawText(l.rect, l.flags, l.text);
    }
    p.setPen(QPen(secondary, 1));
    for (const QLine& line : m_spanLines)
        p.drawLine(line);

    const int regions = m_layout ? static_cast<int>(m_layout->regionGroups.size()) : 0;
    const DeviceShard* selected = m_selected >= 0 ? shardOf(m_selected) : nullptr;
    const bool focus = selected || m_region >= 0;
    QFont small = font();
    small.setPointSizeF(std::max(6.0, font().pointSizeF() * 0.8));
    for (const Cell& c : m_cells) {
        const DeviceShard* s = shardOf(c.device);
        QColor fill = s ? sliceColor(static_cast<int>(s->regionGroup), regions, pal)
                        : (dark ? pal.color(QPalette::Button).lighter(130) : pal.color(QPalette::Base));
        const bool inFocus = !focus || (s && selected && s->regionGroup == selected->regionGroup) ||
                             (s && m_region >= 0 && s->regionGroup == m_region);
        if (!inFocus)
            fill = QColor::fromRgbF(fill.redF() * 0.35 + pal.color(QPalette::Window).redF() * 0.65,
                                    fill.greenF() * 0.35 + pal.color(QPalette::Window).greenF() * 0.65,
                                    fill.blueF() * 0.35 + pal.color(QPalette::Window).blueF() * 0.65);
        const bool outlined = c.device == m_selected || (m_region >= 0 && s && s->regionGroup == m_region);
        p.setPen(outlined ? QPen(pal.color(QPalette::Highlight), 2.5) : QPen(pal.color(QPalette::Mid), 1));
        p.setBrush(fill);
        p.drawRoundedRect(QRectF(c.rect).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
        p.setPen(inFocus ? textOn(fill) : secondary);
        p.setFont(bold);
        const bool partial = s && !s->unreducedIndex.empty();
        QRect idRect = c.rect;
        if (partial)
            idRect.setBottom(c.rect.center().y() + 2);
        p.drawText(idRect, Qt::AlignCenter, QString::number(c.device));
        if (partial) {
            QStringList coords;
            for (int64_t u : s->unreducedIndex)
                coords << QString::number(u);
            p.setFont(small);
            p.drawText(c.rect.adjusted(0, c.rect.height() / 2, 0, -1), Qt::AlignHCenter | Qt::AlignTop,
                       QStringLiteral("Σ%1").arg(coords.join(QLatin1Char(','))));
        }
    }
}

void MeshGridView::mousePressEvent(QMouseEvent* event)
{
    const qint64 id = deviceAt(event->position().toPoint());
    if (id < 0) {
        QWidget::mousePressEvent(event);
        return;
    }
    const qint64 next = id == m_selected ? -1 : id;
    setSelectedDevice(next);
    emit deviceClicked(next);
}

QString MeshGridView::deviceToolTip(qint64 deviceId) const
{
    const DeviceLayout dl(m_mesh);
    QStringList lines;
    lines << tr("<b>Device %1</b>").arg(deviceId);
    if (std::optional<std::vector<int64_t>> coords = dl.coordsOfDevice(deviceId); coords && !coords->empty()) {
        QStringList parts;
        for (size_t i = 0; i < coords->size(); ++i)
            parts << QStringLiteral("%1=%2").arg(axisName(m_mesh.axes()[i])).arg((*coords)[i]);
        for (const AxisRef& used : m_used)
            if (used.sub)
                parts << QStringLiteral("%1=%2")
                             .arg(QString::fromStdString(used.toString()).toHtmlEscaped())
                             .arg(dl.axisCoord(*dl.positionOf(deviceId), used));
        lines << tr("mesh coordinates: %1").arg(parts.join(QStringLiteral(", ")));
    }
    if (const DeviceShard* s = shardOf(deviceId)) {
        lines << tr("holds %1").arg(QString::fromStdString(m_layout->sliceText(*s)));
        lines << tr("local shape %1").arg(shapeText(m_layout->localShape));
        std::vector<int64_t> others;
        for (int64_t id : m_layout->replicasOf(deviceId))
            if (id != deviceId)
                others.push_back(id);
        lines << (others.empty() ? tr("no other device holds the same data")
                                 : tr("same data on %1").arg(deviceListText(others)));
        if (!s->unreducedIndex.empty()) {
            QStringList parts;
            for (size_t i = 0; i < s->unreducedIndex.size(); ++i)
                parts << QStringLiteral("%1=%2")
                             .arg(axisLabel(m_layout->unreducedAxes[i]).toHtmlEscaped())
                             .arg(s->unreducedIndex[i]);
            lines << tr("partial %1 #%2 (unreduced)")
                         .arg(QString::fromLatin1(reductionKindName(m_layout->unreducedKind)),
                              parts.join(QStringLiteral(", ")));
        }
    }
    return lines.join(QStringLiteral("<br>"));
}

bool MeshGridView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const qint64 id = deviceAt(help->pos());
        if (id >= 0)
            QToolTip::showText(help->globalPos(), deviceToolTip(id), this, deviceRect(id));
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void MeshGridView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        relayout();
    QWidget::changeEvent(event);
}

} // namespace shardx::views
