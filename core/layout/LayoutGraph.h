// LayoutGraph: what GraphvizLayouter lays out: sized nodes, edges and nested clusters (Qt-free).
#pragma once

#include <string>
#include <vector>

#include "core/layout/GraphLayout.h"

namespace shardx::layout {

/// Where a node must go among the ranks.
enum class RankHint {
    Free,   ///< wherever its edges put it
    Source, ///< on the first rank, alone with the other Source nodes
    Sink,   ///< on the last rank, alone with the other Sink nodes
};

struct LayoutNode {
    Size size;        ///< pixels; the node is exactly this size (no text is measured)
    int cluster = -1; ///< the innermost cluster holding it, -1 for none
    RankHint rank = RankHint::Free;
    std::string name; ///< shown in the debug `.dot` files only
};

struct LayoutEdge {
    int from = -1;
    int to = -1;
    int weight = 1;        ///< heavier edges are kept shorter and straighter
    bool arrowhead = true; ///< leave room for an arrowhead at `to`
};

struct LayoutCluster {
    int parent = -1;        ///< the enclosing cluster, -1 for none
    double titleHeight = 0; ///< pixels kept free at the top of the box for a title
    double padding = 8;     ///< pixels between the box and what it holds
    std::string name;       ///< shown in the debug `.dot` files only
};

/// A directed graph to lay out top to bottom. Clusters must be listed before their children
/// clusters (parent index < own index).
struct LayoutGraph {
    std::vector<LayoutNode> nodes;
    std::vector<LayoutEdge> edges;
    std::vector<LayoutCluster> clusters;
};

struct LayoutOptions {
    double nodeSeparation = 18; ///< pixels between neighbours on a rank
    double rankSeparation = 30; ///< pixels between ranks
    /// Names the `.dot` file written when SHARDX_DEBUG_GRAPHVIZ is set.
    std::string debugName = "graph";
};

} // namespace shardx::layout
