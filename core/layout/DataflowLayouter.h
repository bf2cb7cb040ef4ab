// DataflowLayouter: lays out a DataflowGraph group by group (each with its own dot run), with the
// groups the user expanded, and caches every group's layout.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/layout/DataflowGraph.h"
#include "core/layout/GroupLayout.h"
#include "core/layout/LayoutMetrics.h"
#include "core/support/Expected.h"

namespace shardx::layout {

/// Which groups are expanded: one flag per group of the graph (DataflowGraph::defaultExpanded()).
using ExpandedSet = std::vector<char>;

/// Lays a DataflowGraph out hierarchically, so that the cost follows the groups shown, never dot
/// on the whole graph: a group's layout holds its children (ops, arguments, collapsed groups as
/// one box each); an expanded child is drawn inside it as a cluster while the layout stays
/// within LayoutMetrics::inlineBudget items, else laid out on its own and placed as a box
/// (ItemShape::Frame). SSA uses between the same two items become one edge; uses that cross
/// the group's boundary go to its ports. Layouts are cached per (group, expanded groups inside
/// it): expanding a group lays out that group and its enclosing groups again, nothing else.
///
/// Not thread-safe: use one layouter from one thread at a time (the GUI's core thread). The
/// graph must outlive it; the layouts it returns are immutable and may be read anywhere.
class DataflowLayouter {
public:
    DataflowLayouter(std::shared_ptr<const DataflowGraph> graph, LayoutMetrics metrics = {});

    const DataflowGraph& graph() const { return *m_graph; }
    const LayoutMetrics& metrics() const { return m_metrics; }

    /// The layout of group `group` with the groups flagged in `expanded` open (flags of groups
    /// outside `group` are ignored; `group` itself is laid out open). Cached.
    Expected<std::shared_ptr<const GroupLayout>> layout(int group, const ExpandedSet& expanded);

    /// The size of the box of an item as drawn (nodes, collapsed groups), in pixels.
    Size nodeSize(int node) const;
    Size collapsedSize(int group) const;
    /// The size of a Frame holding a layout of size `inner` (title bar and padding added).
    Size frameSize(Size inner) const;
    /// Where a Frame's inner layout starts, from the Frame's top-left corner.
    Point frameOffset() const;

    /// The key of the port of group `group` that an edge to or from `outside` (a node outside it)
    /// crosses: the child, of the innermost group holding both, that holds `outside`.
    ItemRef portKey(int group, int outside) const;

    /// Layouts computed (not found in the cache) since construction: for tests and benchmarks.
    size_t layoutsComputed() const { return m_computed; }
    void clearCache() { m_cache.clear(); }

private:
    Expected<std::shared_ptr<const GroupLayout>> compute(int group, const ExpandedSet& expanded);
    std::string cacheKey(int group, const ExpandedSet& expanded) const;
    /// Items shown when `group` is drawn inline with its expanded descendants.
    int inlineCount(int group, const ExpandedSet& expanded) const;

    std::shared_ptr<const DataflowGraph> m_graph;
    LayoutMetrics m_metrics;
    std::unordered_map<std::string, std::shared_ptr<const GroupLayout>> m_cache;
    size_t m_computed = 0;
};

} // namespace shardx::layout
