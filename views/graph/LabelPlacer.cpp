// LabelPlacer: a grid of cells holding obstacles and labels; candidates along each edge.
#include "views/graph/LabelPlacer.h"

#include <cmath>

#include "views/graph/EdgeItem.h"

namespace shardx::views {

namespace {
constexpr double kCell = 96;
constexpr double kGap = 6; ///< free space left and right of a label
} // namespace

template <typename F> void LabelPlacer::forCells(const QRectF& r, F&& fn) const
{
    const qint64 x0 = static_cast<qint64>(std::floor(r.left() / kCell));
    const qint64 x1 = static_cast<qint64>(std::floor(r.right() / kCell));
    const qint64 y0 = static_cast<qint64>(std::floor(r.top() / kCell));
    const qint64 y1 = static_cast<qint64>(std::floor(r.bottom() / kCell));
    for (qint64 x = x0; x <= x1; ++x)
        for (qint64 y = y0; y <= y1; ++y)
            if (!fn((static_cast<quint64>(static_cast<quint32>(x)) << 32) | static_cast<quint32>(y)))
                return;
}

void LabelPlacer::clear()
{
    m_cells.clear();
    m_placed.clear();
}

void LabelPlacer::insert(const QRectF& r, const EdgeItem* owner)
{
    forCells(r, [&](quint64 c) {
        m_cells[c].push_back(Entry{r, owner});
        return true;
    });
}

void LabelPlacer::addObstacle(const QRectF& rect) { insert(rect, nullptr); }

bool LabelPlacer::isFree(const QRectF& r) const
{
    bool free = true;
    forCells(r, [&](quint64 c) {
        auto it = m_cells.find(c);
        if (it == m_cells.end())
            return true;
        for (const Entry& e : *it)
            if (e.rect.intersects(r)) {
                free = false;
                return false;
            }
        return true;
    });
    return free;
}

void LabelPlacer::remove(const EdgeItem* edge)
{
    auto it = m_placed.find(edge);
    if (it == m_placed.end())
        return;
    forCells(*it, [&](quint64 c) {
        auto cell = m_cells.find(c);
        if (cell != m_cells.end())
            cell->removeIf([&](const Entry& e) { return e.owner == edge; });
        return true;
    });
    m_placed.erase(it);
}

void LabelPlacer::place(EdgeItem* edge)
{
    remove(edge);
    if (edge->label().isEmpty()) {
        edge->setLabelRect(std::nullopt);
        return;
    }
    const QPainterPath& path = edge->path();
    const double length = path.length();
    const QSizeF size = edge->labelSize();
    std::optional<QRectF> placed;
    for (double at : {16.0, length * 0.35, length * 0.55, length * 0.75}) {
        if (length <= 0 || at > length)
            continue;
        const QPointF p = path.pointAtPercent(path.percentAtLength(at));
        for (bool right : {true, false}) {
            const QRectF r(right ? p.x() + 5 : p.x() - 5 - size.width(), p.y() - size.height() / 2, size.width(),
                           size.height());
            // A gap around the label: two labels side by side would read as one.
            if (isFree(r.adjusted(-kGap, -1, kGap, 1))) {
                placed = r;
                break;
            }
        }
        if (placed)
            break;
    }
    if (placed) {
        insert(*placed, edge);
        m_placed.insert(edge, *placed);
    }
    edge->setLabelRect(placed);
}

} // namespace shardx::views
