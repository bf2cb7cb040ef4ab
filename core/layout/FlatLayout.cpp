// FlatLayout: nested layouts into absolute coordinates, with connectors through Frame borders.
#include "core/layout/FlatLayout.h"

#include <cmath>
#include <map>
#include <unordered_map>

namespace shardx::layout {

namespace {

Spline translated(const Spline& s, double dx, double dy)
{
    Spline out = s;
    for (Point& p : out.points)
        p = {p.x + dx, p.y + dy};
    if (out.tailArrow)
        out.tailArrow = Point{out.tailArrow->x + dx, out.tailArrow->y + dy};
    if (out.headArrow)
        out.headArrow = Point{out.headArrow->x + dx, out.headArrow->y + dy};
    return out;
}

/// A vertical S-curve from `a` to `b`.
Spline connectorCurve(Point a, Point b)
{
    const double d = std::max(4.0, std::abs(b.y - a.y) / 2);
    const double dir = b.y >= a.y ? 1.0 : -1.0;
    Spline s;
    s.points = {a, {a.x, a.y + dir * d}, {b.x, b.y - dir * d}, b};
    return s;
}

Point startOf(const std::vector<Spline>& splines)
{
    return splines.empty() || splines.front().points.empty() ? Point{} : splines.front().points.front();
}

Point endOf(const std::vector<Spline>& splines)
{
    return splines.empty() || splines.back().points.empty() ? Point{} : splines.back().points.back();
}

class Flattener {
public:
    explicit Flattener(Point offset) : m_offset(offset) {}

    /// Adds `layout` at (dx, dy) under flat item `parent`.
    void add(const GroupLayout& layout, double dx, double dy, int parent, FlatLayout& out)
    {
        std::vector<int> flatIndex(layout.items.size(), -1);
        for (size_t i = 0; i < layout.items.size(); ++i) {
            const PlacedItem& it = layout.items[i];
            FlatItem f;
            f.ref = it.ref;
            f.shape = it.shape;
            f.rect = it.rect.translated(dx, dy);
            f.parent = it.parent >= 0 ? flatIndex[static_cast<size_t>(it.parent)] : parent;
            flatIndex[i] = static_cast<int>(out.items.size());
            out.items.push_back(f);
        }
        std::vector<int> flatEdge(layout.edges.size(), -1);
        for (size_t i = 0; i < layout.edges.size(); ++i) {
            const PlacedEdge& e = layout.edges[i];
            FlatEdge f;
            for (const Spline& s : e.splines)
                f.splines.push_back(translated(s, dx, dy));
            f.edges = e.edges;
            f.from = e.from >= 0 ? flatIndex[static_cast<size_t>(e.from)] : -1;
            f.to = e.to >= 0 ? flatIndex[static_cast<size_t>(e.to)] : -1;
            f.arrowhead = e.arrowhead;
            flatEdge[i] = static_cast<int>(out.edges.size());
            out.edges.push_back(std::move(f));
        }
        // Frames: their inner layouts, then the connectors across their borders.
        for (size_t i = 0; i < layout.items.size(); ++i) {
            const PlacedItem& it = layout.items[i];
            if (it.shape != ItemShape::Frame || !it.inner)
                continue;
            const GroupLayout& inner = *it.inner;
            const double ix = dx + it.rect.x + m_offset.x;
            const double iy = dy + it.rect.y + m_offset.y;
            add(inner, ix, iy, flatIndex[i], out);
            // Which port of the inner layout each carried SSA edge uses: the port of the edge
            // inside that starts (ends) at a port and carries it.
            std::unordered_map<int, int> inPortOf, outPortOf; // SSA edge -> inner port
            for (const PlacedEdge& e : inner.edges) {
                if (e.from < 0)
                    for (int d : e.edges)
                        inPortOf[d] = -1 - e.from;
                if (e.to < 0)
                    for (int d : e.edges)
                        outPortOf[d] = -1 - e.to;
            }
            for (size_t k = 0; k < layout.edges.size(); ++k) {
                const PlacedEdge& e = layout.edges[k];
                const bool into = e.to == static_cast<int>(i);
                const bool outOf = e.from == static_cast<int>(i);
                if (!into && !outOf)
                    continue;
                std::map<int, std::vector<int>> byPort;
                for (int d : e.edges) {
                    const auto& table = into ? inPortOf : outPortOf;
                    if (auto p = table.find(d); p != table.end())
                        byPort[p->second].push_back(d);
                }
                const FlatEdge& outer = out.edges[static_cast<size_t>(flatEdge[k])];
                const Point border = into ? endOf(outer.splines) : startOf(outer.splines);
                for (auto& [p, carried] : byPort) {
                    const Point portAt{inner.ports[static_cast<size_t>(p)].position.x + ix,
                                       inner.ports[static_cast<size_t>(p)].position.y + iy};
                    FlatEdge c;
                    c.connector = true;
                    c.arrowhead = false;
                    c.edges = std::move(carried);
                    c.splines.push_back(into ? connectorCurve(border, portAt) : connectorCurve(portAt, border));
                    out.edges.push_back(std::move(c));
                }
            }
        }
    }

private:
    Point m_offset;
};

} // namespace

FlatLayout flatten(const GroupLayout& root, Point frameOffset)
{
    FlatLayout out;
    out.size = root.size;
    Flattener(frameOffset).add(root, 0, 0, -1, out);
    return out;
}

} // namespace shardx::layout
