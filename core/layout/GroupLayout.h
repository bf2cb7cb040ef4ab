// GroupLayout: the laid-out contents of one DataflowGraph group (its children, expanded children
// drawn inside it or placed as boxes with their own GroupLayout, ports, and aggregated edges).
#pragma once

#include <memory>
#include <vector>

#include "core/layout/DataflowGraph.h"
#include "core/layout/GraphLayout.h"

namespace shardx::layout {

/// How an item of a group's layout is drawn.
enum class ItemShape {
    Node,           ///< an op or argument node
    CollapsedGroup, ///< a group shown as one box
    Cluster,        ///< an expanded group drawn inside this layout: a frame around its children
    Frame,          ///< an expanded group laid out on its own (`inner`), placed here as a box
};

struct GroupLayout;

struct PlacedItem {
    ItemRef ref;
    ItemShape shape = ItemShape::Node;
    Rect rect;                                ///< in the layout's frame (its top-left corner is (0, 0))
    int parent = -1;                          ///< the Cluster item holding it, -1 at the top of the layout
    std::shared_ptr<const GroupLayout> inner; ///< Frame: the group's own layout
};

/// Where edges cross the group's boundary: an in-port (top) per outside item feeding the group,
/// an out-port (bottom) per outside item it feeds. `key` is the item of the graph, seen from
/// the innermost group holding both ends (the child of that group on the outside end), so a
/// port lines up with the edge of the enclosing layout that it continues.
struct PlacedPort {
    bool in = true;
    ItemRef key;
    Point position;
};

/// An edge of the layout: between two items (index >= 0) or a port and an item (port p is -1 - p).
/// It stands for every DataflowEdge in `edges` (SSA uses between what its ends hold).
struct PlacedEdge {
    int from = -1;
    int to = -1;
    std::vector<Spline> splines;
    std::vector<int> edges;
    bool arrowhead = true; ///< false where the edge continues into a Frame or out of the group
};

struct GroupLayout {
    int group = -1;
    Size size;
    std::vector<PlacedItem> items; ///< clusters come before what they hold
    std::vector<PlacedPort> ports;
    std::vector<PlacedEdge> edges;
};

} // namespace shardx::layout
