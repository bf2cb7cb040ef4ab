// DataflowLayouter: the visible items of a group, its aggregated edges and ports, one dot run.
#include "core/layout/DataflowLayouter.h"

#include <algorithm>
#include <map>
#include <optional>

#include "core/layout/GraphvizLayouter.h"

namespace shardx::layout {

DataflowLayouter::DataflowLayouter(std::shared_ptr<const DataflowGraph> graph, LayoutMetrics metrics)
    : m_graph(std::move(graph)), m_metrics(metrics)
{}

Size DataflowLayouter::nodeSize(int node) const
{
    const DataflowNode& n = m_graph->nodes()[static_cast<size_t>(node)];
    const LayoutMetrics& m = m_metrics;
    double w = std::max(m.textWidth(n.name, true), m.textWidth(n.detail));
    w = std::clamp(w + 2 * m.nodePaddingX, m.minNodeWidth, m.maxNodeWidth);
    if (n.terminator)
        w = std::max(m.minNodeWidth * 0.8, m.textWidth(n.name, true) + 2 * m.nodePaddingX);
    const int lines = n.detail.empty() ? 1 : 2;
    return {w, lines * m.lineHeight + 2 * m.nodePaddingY};
}

Size DataflowLayouter::collapsedSize(int group) const
{
    const DataflowGroup& g = m_graph->groups()[static_cast<size_t>(group)];
    const LayoutMetrics& m = m_metrics;
    std::string title = g.label;
    std::string detail = std::to_string(g.numOps) + (g.numOps == 1 ? " op" : " ops");
    if (g.kind == GroupKind::Range)
        detail = std::to_string(g.children.size()) + " groups · " + detail;
    if (g.kind == GroupKind::Region && g.node >= 0) {
        // Drawn as its op: results on the first line, op name and size on the second.
        const DataflowNode& op = m_graph->nodes()[static_cast<size_t>(g.node)];
        title = op.name;
        detail = std::string(op.detail) + " · " + detail;
    }
    // Room for the expander glyph on the right and the stack below.
    double w = std::max(m.textWidth(title, true) + m.expanderWidth, m.textWidth(detail));
    w = std::clamp(w + 2 * m.nodePaddingX, m.minNodeWidth, m.maxGroupWidth);
    return {w, 2 * m.lineHeight + 2 * m.nodePaddingY + m.collapsedExtra};
}

Size DataflowLayouter::frameSize(Size inner) const
{
    const LayoutMetrics& m = m_metrics;
    return {inner.width + 2 * m.groupPadding, inner.height + m.groupTitleHeight + m.groupPadding};
}

Point DataflowLayouter::frameOffset() const { return {m_metrics.groupPadding, m_metrics.groupTitleHeight}; }

ItemRef DataflowLayouter::portKey(int group, int outside) const
{
    const DataflowGraph& g = *m_graph;
    int common = g.groups()[static_cast<size_t>(group)].parent;
    while (common > 0 && !g.contains(common, outside))
        common = g.groups()[static_cast<size_t>(common)].parent;
    if (common < 0)
        common = 0;
    return g.childContaining(common, outside);
}

std::string DataflowLayouter::cacheKey(int group, const ExpandedSet& expanded) const
{
    std::string key = std::to_string(group);
    const int end = m_graph->groups()[static_cast<size_t>(group)].groupEnd;
    for (int g = group + 1; g < end; ++g)
        if (static_cast<size_t>(g) < expanded.size() && expanded[static_cast<size_t>(g)]) {
            key += ',';
            key += std::to_string(g);
        }
    return key;
}

int DataflowLayouter::inlineCount(int group, const ExpandedSet& expanded) const
{
    int count = 0;
    for (ItemRef c : m_graph->groups()[static_cast<size_t>(group)].children) {
        ++count;
        if (c.isGroup() && static_cast<size_t>(c.index) < expanded.size() && expanded[static_cast<size_t>(c.index)])
            count += inlineCount(c.index, expanded);
    }
    return count;
}

Expected<std::shared_ptr<const GroupLayout>> DataflowLayouter::layout(int group, const ExpandedSet& expanded)
{
    if (group < 0 || static_cast<size_t>(group) >= m_graph->groups().size())
        return Error{"no group " + std::to_string(group), {}};
    const std::string key = cacheKey(group, expanded);
    if (auto it = m_cache.find(key); it != m_cache.end())
        return it->second;
    Expected<std::shared_ptr<const GroupLayout>> result = compute(group, expanded);
    if (result)
        m_cache.emplace(key, *result);
    return result;
}

Expected<std::shared_ptr<const GroupLayout>> DataflowLayouter::compute(int group, const ExpandedSet& expanded)
{
    ++m_computed;
    const DataflowGraph& graph = *m_graph;
    const DataflowGroup& self = graph.groups()[static_cast<size_t>(group)];
    auto out = std::make_shared<GroupLayout>();
    out->group = group;

    // 1. What shows: children, expanded children inline (clusters) within the budget, else as
    // Frames with their own layout. Leaves cover consecutive node ranges, in order.
    struct Leaf {
        int nodeBegin, nodeEnd, item;
    };
    std::vector<Leaf> leaves;
    int shown = 0;
    const auto isExpanded = [&](int g) {
        return static_cast<size_t>(g) < expanded.size() && expanded[static_cast<size_t>(g)] != 0;
    };
    std::optional<Error> failure;
    auto visit = [&](auto& self_, int g, int parentItem) -> void {
        for (ItemRef c : graph.groups()[static_cast<size_t>(g)].children) {
            if (failure)
                return;
            PlacedItem item;
            item.ref = c;
            item.parent = parentItem;
            const int index = static_cast<int>(out->items.size());
            if (c.isNode()) {
                item.shape = ItemShape::Node;
                item.rect.width = nodeSize(c.index).width;
                item.rect.height = nodeSize(c.index).height;
                leaves.push_back({c.index, c.index + 1, index});
                out->items.push_back(std::move(item));
                ++shown;
                continue;
            }
            const DataflowGroup& cg = graph.groups()[static_cast<size_t>(c.index)];
            if (!isExpanded(c.index)) {
                item.shape = ItemShape::CollapsedGroup;
                const Size s = collapsedSize(c.index);
                item.rect.width = s.width;
                item.rect.height = s.height;
                leaves.push_back({cg.nodeBegin, cg.nodeEnd, index});
                out->items.push_back(std::move(item));
                ++shown;
                continue;
            }
            const int more = inlineCount(c.index, expanded);
            if (shown + 1 + more <= m_metrics.inlineBudget) {
                item.shape = ItemShape::Cluster;
                out->items.push_back(std::move(item));
                ++shown;
                self_(self_, c.index, index);
                continue;
            }
            Expected<std::shared_ptr<const GroupLayout>> inner = layout(c.index, expanded);
            if (!inner) {
                failure = inner.error();
                return;
            }
            item.shape = ItemShape::Frame;
            item.inner = *inner;
            const Size s = frameSize((*inner)->size);
            item.rect.width = s.width;
            item.rect.height = s.height;
            leaves.push_back({cg.nodeBegin, cg.nodeEnd, index});
            out->items.push_back(std::move(item));
            ++shown;
        }
    };
    visit(visit, group, -1);
    if (failure)
        return *failure;
    // Empty groups cover no node: keep only leaves that hold some, sorted by their first node.
    std::vector<Leaf> ranges;
    for (const Leaf& l : leaves)
        if (l.nodeEnd > l.nodeBegin)
            ranges.push_back(l);
    std::sort(ranges.begin(), ranges.end(), [](const Leaf& a, const Leaf& b) { return a.nodeBegin < b.nodeBegin; });
    auto itemOf = [&](int node) {
        auto it =
            std::upper_bound(ranges.begin(), ranges.end(), node, [](int n, const Leaf& l) { return n < l.nodeBegin; });
        return it == ranges.begin() ? -1 : std::prev(it)->item;
    };

    // 2. Edges: SSA uses between different items, aggregated; uses crossing the boundary go to
    // the ports, one per outside item.
    std::map<std::pair<bool, ItemRef>, int> portIndex;
    auto port = [&](bool in, ItemRef key) {
        auto [it, added] = portIndex.emplace(std::pair{in, key}, static_cast<int>(out->ports.size()));
        if (added)
            out->ports.push_back(PlacedPort{in, key, {}});
        return -1 - it->second;
    };
    std::map<std::pair<int, int>, int> edgeIndex;
    auto addEdge = [&](int from, int to, int edge) {
        auto [it, added] = edgeIndex.emplace(std::pair{from, to}, static_cast<int>(out->edges.size()));
        if (added) {
            PlacedEdge e;
            e.from = from;
            e.to = to;
            out->edges.push_back(std::move(e));
        }
        out->edges[static_cast<size_t>(it->second)].edges.push_back(edge);
    };
    for (int x = self.nodeBegin; x < self.nodeEnd; ++x) {
        const int a = itemOf(x);
        if (a < 0)
            continue;
        for (int e : graph.outEdges(x)) {
            const int y = graph.edges()[static_cast<size_t>(e)].to;
            if (graph.contains(group, y)) {
                const int b = itemOf(y);
                if (b >= 0 && b != a)
                    addEdge(a, b, e);
            } else {
                addEdge(a, port(false, portKey(group, y)), e);
            }
        }
        for (int e : graph.inEdges(x)) {
            const int w = graph.edges()[static_cast<size_t>(e)].from;
            if (!graph.contains(group, w))
                addEdge(port(true, portKey(group, w)), a, e);
        }
    }

    // 3. One dot run: leaves and ports are nodes, clusters are clusters.
    LayoutGraph lg;
    std::vector<int> dotNode(out->items.size(), -1), dotCluster(out->items.size(), -1);
    for (size_t i = 0; i < out->items.size(); ++i) {
        const PlacedItem& it = out->items[i];
        const int parentCluster = it.parent >= 0 ? dotCluster[static_cast<size_t>(it.parent)] : -1;
        if (it.shape == ItemShape::Cluster) {
            dotCluster[i] = static_cast<int>(lg.clusters.size());
            LayoutCluster c;
            c.parent = parentCluster;
            c.titleHeight = m_metrics.groupTitleHeight;
            c.padding = m_metrics.groupPadding;
            c.name = graph.groups()[static_cast<size_t>(it.ref.index)].label;
            lg.clusters.push_back(std::move(c));
            continue;
        }
        dotNode[i] = static_cast<int>(lg.nodes.size());
        LayoutNode n;
        n.size = {it.rect.width, it.rect.height};
        n.cluster = parentCluster;
        n.name = it.ref.isNode() ? graph.nodes()[static_cast<size_t>(it.ref.index)].name
                                 : graph.groups()[static_cast<size_t>(it.ref.index)].label;
        lg.nodes.push_back(std::move(n));
    }
    const int firstPort = static_cast<int>(lg.nodes.size());
    for (const PlacedPort& p : out->ports) {
        LayoutNode n;
        n.size = {m_metrics.portSize, m_metrics.portSize};
        n.rank = p.in ? RankHint::Source : RankHint::Sink;
        n.name = p.in ? "in" : "out";
        lg.nodes.push_back(std::move(n));
    }
    auto dotOf = [&](int end) { return end >= 0 ? dotNode[static_cast<size_t>(end)] : firstPort + (-1 - end); };
    for (PlacedEdge& e : out->edges) {
        LayoutEdge le;
        le.from = dotOf(e.from);
        le.to = dotOf(e.to);
        const bool intoFrame = e.to >= 0 && out->items[static_cast<size_t>(e.to)].shape == ItemShape::Frame;
        e.arrowhead = e.to >= 0 && !intoFrame;
        le.arrowhead = e.arrowhead;
        // Many uses between the same two items pull them closer.
        le.weight = static_cast<int>(std::min<size_t>(e.edges.size(), 4));
        lg.edges.push_back(le);
    }
    LayoutOptions options;
    options.nodeSeparation = m_metrics.nodeSeparation;
    options.rankSeparation = m_metrics.rankSeparation;
    options.debugName = std::string(groupKindName(self.kind)) + "-" + self.label;
    Expected<GraphLayout> laid = GraphvizLayouter::layout(lg, options);
    if (!laid)
        return laid.error();

    // 4. Read it back.
    out->size = laid->size;
    for (size_t i = 0; i < out->items.size(); ++i) {
        PlacedItem& it = out->items[i];
        if (dotCluster[i] >= 0)
            it.rect = laid->clusters[static_cast<size_t>(dotCluster[i])].box;
        else
            it.rect = laid->nodes[static_cast<size_t>(dotNode[i])].rect();
    }
    for (size_t p = 0; p < out->ports.size(); ++p)
        out->ports[p].position = laid->nodes[static_cast<size_t>(firstPort) + p].centre;
    for (size_t i = 0; i < out->edges.size(); ++i)
        out->edges[i].splines = std::move(laid->edges[i].splines);
    return std::shared_ptr<const GroupLayout>(std::move(out));
}

} // namespace shardx::layout
