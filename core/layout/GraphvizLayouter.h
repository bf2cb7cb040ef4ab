// GraphvizLayouter: lays out a LayoutGraph with Graphviz `dot` (top to bottom) into a GraphLayout.
#pragma once

#include "core/layout/GraphLayout.h"
#include "core/layout/LayoutGraph.h"
#include "core/support/Expected.h"

namespace shardx::layout {

/// Lays graphs out with Graphviz's `dot`, ranks top to bottom. Safe to call from any thread:
/// every Graphviz call runs under one process-wide mutex, in the "C" numeric locale, with the
/// process's one context. Nothing of Graphviz outlives a call: the layout is read whole (node
/// centres, every spline piece, cluster boxes; points converted to pixels at 96 dpi with y
/// pointing down), then freed with the same context, then the graph is closed.
///
/// Setting the environment variable SHARDX_DEBUG_GRAPHVIZ (to anything but `0`) writes each
/// laid-out graph as `<temp>/shardx-graphviz/<n>-<debugName>.dot`.
class GraphvizLayouter {
public:
    /// Lays `graph` out. Cost: dot's, roughly quadratic in the nodes (1k nodes ~0.3 s, 3k ~2.5 s
    /// here), so callers lay large graphs out in parts. Fails when Graphviz does.
    static Expected<GraphLayout> layout(const LayoutGraph& graph, const LayoutOptions& options = {});
};

} // namespace shardx::layout
