// FlatLayout: a group's layout with every nested Frame placed, in one coordinate system, and the
// connectors that join an edge of one layout to the port it continues at in the next.
#pragma once

#include <vector>

#include "core/layout/GroupLayout.h"

namespace shardx::layout {

struct FlatItem {
    ItemRef ref;
    ItemShape shape = ItemShape::Node;
    Rect rect;       ///< absolute: the root layout's frame
    int parent = -1; ///< the Cluster or Frame item holding it (index into FlatLayout::items), -1 at the top
};

struct FlatEdge {
    std::vector<Spline> splines; ///< absolute
    std::vector<int> edges;      ///< the DataflowEdges it carries
    int from = -1;               ///< the items it joins (FlatLayout::items), -1 at a port or connector end
    int to = -1;
    bool arrowhead = true;
    bool connector = false; ///< joins an edge at a Frame's border to the port inside (or back out)
};

struct FlatLayout {
    Size size;
    std::vector<FlatItem> items; ///< enclosing items before what they hold
    std::vector<FlatEdge> edges;
};

/// Places `root` at (0, 0) and every Frame's inner layout at the Frame's position plus
/// `frameOffset` (DataflowLayouter::frameOffset()), recursively. For each edge ending at a
/// Frame's border, a connector runs from there to the Frame's port for the same outside item
/// (one per port reached), and likewise from an out-port to the edge leaving the Frame, so
/// every SSA use reads as one line through the nested layouts.
FlatLayout flatten(const GroupLayout& root, Point frameOffset);

} // namespace shardx::layout
