// GraphLayout: Qt-free geometry of a laid-out graph (pixels at 96 dpi, y pointing down).
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

namespace shardx::layout {

/// A point in pixels (96 dpi), y down.
struct Point {
    double x = 0;
    double y = 0;
    bool operator==(const Point& o) const = default;
};

struct Size {
    double width = 0;
    double height = 0;
    bool operator==(const Size& o) const = default;
};

/// An axis-aligned rectangle: top-left corner and size.
struct Rect {
    double x = 0;
    double y = 0;
    double width = 0;
    double height = 0;

    double left() const { return x; }
    double top() const { return y; }
    double right() const { return x + width; }
    double bottom() const { return y + height; }
    Point centre() const { return {x + width / 2, y + height / 2}; }
    Size size() const { return {width, height}; }
    static Rect fromCentre(Point c, Size s) { return {c.x - s.width / 2, c.y - s.height / 2, s.width, s.height}; }
    /// True when `r` lies inside this rectangle, allowing `epsilon` of slack on every side.
    bool contains(const Rect& r, double epsilon = 0) const
    {
        return r.left() >= left() - epsilon && r.right() <= right() + epsilon && r.top() >= top() - epsilon &&
               r.bottom() <= bottom() + epsilon;
    }
    bool contains(Point p, double epsilon = 0) const
    {
        return p.x >= left() - epsilon && p.x <= right() + epsilon && p.y >= top() - epsilon &&
               p.y <= bottom() + epsilon;
    }
    /// True when the interiors overlap by more than `epsilon` in both directions.
    bool overlaps(const Rect& r, double epsilon = 0) const
    {
        return std::min(right(), r.right()) - std::max(left(), r.left()) > epsilon &&
               std::min(bottom(), r.bottom()) - std::max(top(), r.top()) > epsilon;
    }
    Rect translated(double dx, double dy) const { return {x + dx, y + dy, width, height}; }
    bool operator==(const Rect& o) const = default;
};

/// One piece of an edge: a cubic Bézier spline, `points[0]` then three points (two control
/// points and an end point) per segment, so `points.size() == 1 + 3k`. When the edge has an
/// arrowhead at an end, the spline stops short of the node and the arrow's tip is given.
struct Spline {
    std::vector<Point> points;
    std::optional<Point> tailArrow; ///< tip of an arrowhead at the tail (dot's `sflag`/`sp`)
    std::optional<Point> headArrow; ///< tip of an arrowhead at the head (dot's `eflag`/`ep`)
    bool operator==(const Spline& o) const = default;
};

/// A laid-out node: centre and size.
struct NodeGeometry {
    Point centre;
    Size size;
    Rect rect() const { return Rect::fromCentre(centre, size); }
    bool operator==(const NodeGeometry& o) const = default;
};

/// A laid-out edge: every piece of its spline (usually one).
struct EdgeGeometry {
    int from = -1; ///< node index
    int to = -1;
    std::vector<Spline> splines;
    /// The first point of the first piece and the last point of the last piece (or the arrow tip).
    Point start() const;
    Point end() const;
    bool operator==(const EdgeGeometry& o) const = default;
};

/// A laid-out cluster: its bounding box (title area included).
struct ClusterGeometry {
    Rect box;
    bool operator==(const ClusterGeometry& o) const = default;
};

/// The result of a layout, index-aligned with the LayoutGraph it came from: `nodes[i]` is node
/// i, `edges[i]` edge i, `clusters[i]` cluster i. The drawing spans (0, 0) to `size`.
struct GraphLayout {
    Size size;
    std::vector<NodeGeometry> nodes;
    std::vector<EdgeGeometry> edges;
    std::vector<ClusterGeometry> clusters;
    bool operator==(const GraphLayout& o) const = default;
};

inline Point EdgeGeometry::start() const
{
    if (splines.empty() || splines.front().points.empty())
        return {};
    const Spline& s = splines.front();
    return s.tailArrow ? *s.tailArrow : s.points.front();
}

inline Point EdgeGeometry::end() const
{
    if (splines.empty() || splines.back().points.empty())
        return {};
    const Spline& s = splines.back();
    return s.headArrow ? *s.headArrow : s.points.back();
}

} // namespace shardx::layout
