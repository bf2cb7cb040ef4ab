// DataflowGraph::build, second part: scope groups, argument placement, dissolving and Range
// groups, then numbering everything depth first (DataflowGraphBuilder.h).
#include <algorithm>

#include "core/layout/DataflowGraphBuilder.h"

namespace shardx::layout {

using namespace detail;

void DataflowGraphBuilder::arrange(Container& c)
{
    Path base = c.base;
    Path path, rel; // reused for every member
    if (!c.region) {
        // A function: drop the prefix every op shares (`jit(f)/jit(main)`): a group holding
        // everything says nothing.
        bool first = true;
        for (const Member& m : c.members) {
            fillScopePath(m.scope, true, path);
            if (path.empty())
                continue;
            if (first) {
                base = path;
                first = false;
                continue;
            }
            size_t k = 0;
            while (k < base.size() && k < path.size() && base[k] == path[k])
                ++k;
            base.resize(k);
        }
    }
    struct Trie {
        std::string_view label;
        Path prefix;
        std::vector<std::pair<bool, int>> entries; ///< (is a trie child, index), in program order
        int items = 0;
    };
    std::vector<Trie> trie(1);
    for (const Member& m : c.members) {
        fillScopePath(m.scope, true, path);
        rel.clear();
        if (startsWith(path, base))
            rel.assign(path.begin() + static_cast<std::ptrdiff_t>(base.size()), path.end());
        else if (!startsWith(base, path))
            rel = path; // outside the container's own scope: keep its whole path
        int t = 0;
        for (size_t i = 0; i < rel.size(); ++i) {
            const std::string_view part = rel[i];
            // Continue the group of this scope only while nothing else came in between: a
            // scope JAX uses again later (a `residual` add after attention and after the MLP)
            // becomes a second group, so that every group is a run of consecutive ops and
            // the groups' dataflow stays acyclic (each group lies between its inputs and
            // its users in program order).
            int next = -1;
            const Trie& node = trie[static_cast<size_t>(t)];
            if (!node.entries.empty() && node.entries.back().first &&
                trie[static_cast<size_t>(node.entries.back().second)].label == part)
                next = node.entries.back().second;
            if (next < 0) {
                next = static_cast<int>(trie.size());
                Path prefix = base;
                prefix.insert(prefix.end(), rel.begin(), rel.begin() + static_cast<std::ptrdiff_t>(i) + 1);
                trie.push_back(Trie{part, std::move(prefix), {}, 0});
                trie[static_cast<size_t>(t)].entries.push_back({true, next});
            }
            t = next;
        }
        trie[static_cast<size_t>(t)].entries.push_back({false, static_cast<int>(&m - c.members.data())});
        ++trie[static_cast<size_t>(t)].items;
    }
    // Materialize, depth first.
    auto materialize = [&](auto& self, int t, int group) -> void {
        for (const auto& [isTrie, index] : trie[static_cast<size_t>(t)].entries) {
            if (!isTrie) {
                addChild(group, c.members[static_cast<size_t>(index)].item);
                continue;
            }
            int u = index;
            std::string label(trie[static_cast<size_t>(u)].label);
            while (trie[static_cast<size_t>(u)].items == 0 && trie[static_cast<size_t>(u)].entries.size() == 1) {
                u = trie[static_cast<size_t>(u)].entries.front().second;
                label += "/";
                label += trie[static_cast<size_t>(u)].label;
            }
            const int g = newGroup(GroupKind::Scope, group, label);
            std::string path;
            for (std::string_view part : trie[static_cast<size_t>(u)].prefix) {
                if (!path.empty())
                    path += '/';
                path += part;
            }
            m_groups[static_cast<size_t>(g)].path = std::move(path);
            m_groups[static_cast<size_t>(group)].children.push_back(ItemRef::group(g));
            self(self, u, g);
        }
    };
    materialize(materialize, 0, c.group);
    if (!c.region) {
        std::string path;
        for (std::string_view part : base) {
            if (!path.empty())
                path += '/';
            path += part;
        }
        m_groups[static_cast<size_t>(c.group)].path = std::move(path);
    }
}

void DataflowGraphBuilder::addChild(int group, ItemRef item)
{
    m_groups[static_cast<size_t>(group)].children.push_back(item);
    if (item.isNode())
        m_nodes[static_cast<size_t>(item.index)].node.group = group;
    else
        m_groups[static_cast<size_t>(item.index)].parent = group;
}

void DataflowGraphBuilder::buildEdges()
{
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        const ir::Op* op = m_nodes[i].op;
        if (!op)
            continue;
        for (const ir::Value* v : op->operands()) {
            if (!v || v->programId < 0)
                continue;
            const int from = m_nodeOfValue[static_cast<size_t>(v->programId)];
            if (from >= 0)
                m_tmpEdges.push_back(DataflowEdge{from, static_cast<int>(i), v->programId});
        }
    }
    for (const auto& [terminator, opNode] : m_yields)
        if (auto it = m_terminatorNodes.find(terminator); it != m_terminatorNodes.end())
            m_tmpEdges.push_back(DataflowEdge{it->second, opNode, -1});
}

int DataflowGraphBuilder::depthOf(int g) const
{
    int d = 0;
    for (; g > 0; g = m_groups[static_cast<size_t>(g)].parent)
        ++d;
    return d;
}

int DataflowGraphBuilder::lowestCommon(int a, int b) const
{
    int da = depthOf(a), db = depthOf(b);
    while (da > db) {
        a = m_groups[static_cast<size_t>(a)].parent;
        --da;
    }
    while (db > da) {
        b = m_groups[static_cast<size_t>(b)].parent;
        --db;
    }
    while (a != b) {
        a = m_groups[static_cast<size_t>(a)].parent;
        b = m_groups[static_cast<size_t>(b)].parent;
    }
    return a;
}

void DataflowGraphBuilder::placeArguments()
{
    // The innermost group holding every user of each argument (-1: unused).
    std::vector<int> target(m_nodes.size(), -1);
    for (const DataflowEdge& e : m_tmpEdges) {
        if (m_nodes[static_cast<size_t>(e.from)].node.kind != NodeKind::Argument)
            continue;
        int g = m_nodes[static_cast<size_t>(e.to)].node.group;
        // The op of a Region group takes its operands at the group's border: an argument it
        // uses belongs outside the group (a loop's initial value is not in the loop).
        if (g > 0 && m_groups[static_cast<size_t>(g)].node == e.to)
            g = m_groups[static_cast<size_t>(g)].parent;
        int& t = target[static_cast<size_t>(e.from)];
        t = t < 0 ? g : lowestCommon(t, g);
    }
    // Move them in one pass per group (a function may hold thousands of arguments).
    std::vector<char> moving(m_nodes.size(), 0);
    std::vector<std::vector<int>> arriving(m_groups.size());
    for (int a : m_arguments) {
        const int t = target[static_cast<size_t>(a)];
        if (t < 0 || t == m_nodes[static_cast<size_t>(a)].node.group)
            continue;
        moving[static_cast<size_t>(a)] = 1;
        arriving[static_cast<size_t>(t)].push_back(a);
    }
    for (size_t g = 0; g < m_groups.size(); ++g) {
        std::vector<ItemRef>& children = m_groups[g].children;
        std::erase_if(children, [&](ItemRef r) { return r.isNode() && moving[static_cast<size_t>(r.index)]; });
        if (arriving[g].empty())
            continue;
        auto pos = std::find_if(children.begin(), children.end(), [&](ItemRef r) {
            return !r.isNode() || m_nodes[static_cast<size_t>(r.index)].node.kind != NodeKind::Argument;
        });
        std::vector<ItemRef> args;
        for (int a : arriving[g]) {
            args.push_back(ItemRef::node(a));
            m_nodes[static_cast<size_t>(a)].node.group = static_cast<int>(g);
        }
        children.insert(pos, args.begin(), args.end());
    }
}

void DataflowGraphBuilder::dissolveGroups(int g)
{
    std::vector<ItemRef> children;
    for (ItemRef c : m_groups[static_cast<size_t>(g)].children) {
        if (!c.isGroup()) {
            children.push_back(c);
            continue;
        }
        dissolveGroups(c.index);
        TmpGroup& child = m_groups[static_cast<size_t>(c.index)];
        // One op (with the arguments only it uses) needs no box of its own.
        const bool single = std::count_if(child.children.begin(), child.children.end(), [&](ItemRef r) {
                                return r.isGroup() || m_nodes[static_cast<size_t>(r.index)].node.kind == NodeKind::Op;
                            }) <= 1;
        const bool echo = m_groups[static_cast<size_t>(g)].kind == GroupKind::RegionBody &&
                          child.label == m_groups[static_cast<size_t>(g)].label;
        if (child.kind == GroupKind::Scope && (single || echo)) {
            child.dissolved = true;
            for (ItemRef inner : child.children) {
                children.push_back(inner);
                if (inner.isNode())
                    m_nodes[static_cast<size_t>(inner.index)].node.group = g;
                else
                    m_groups[static_cast<size_t>(inner.index)].parent = g;
            }
            continue;
        }
        children.push_back(c);
    }
    m_groups[static_cast<size_t>(g)].children = std::move(children);
}

std::string DataflowGraphBuilder::itemLabel(ItemRef r, bool first) const
{
    if (r.isNode())
        return m_nodes[static_cast<size_t>(r.index)].node.name;
    const TmpGroup& g = m_groups[static_cast<size_t>(r.index)];
    if (g.kind == GroupKind::Range && !g.children.empty())
        return itemLabel(first ? g.children.front() : g.children.back(), first);
    return g.label;
}

void DataflowGraphBuilder::addRanges(int g)
{
    const size_t limit = static_cast<size_t>(std::max(2, m_graph.m_options.maxChildren));
    const size_t nodeLimit = limit * 16;
    std::vector<ItemRef> children = m_groups[static_cast<size_t>(g)].children;
    const bool manyNodes = children.size() > nodeLimit;
    std::vector<ItemRef> out;
    size_t i = 0;
    while (i < children.size()) {
        const bool isGroup = children[i].isGroup();
        size_t j = i;
        while (j < children.size() && (children[j].isGroup() == isGroup) &&
               (isGroup || m_nodes[static_cast<size_t>(children[j].index)].node.kind == NodeKind::Op))
            ++j;
        if (j == i)
            j = i + 1;
        std::vector<ItemRef> run(children.begin() + static_cast<std::ptrdiff_t>(i),
                                 children.begin() + static_cast<std::ptrdiff_t>(j));
        if ((isGroup && run.size() > limit) || (!isGroup && manyNodes && run.size() > limit))
            run = makeRanges(std::move(run), g, limit);
        out.insert(out.end(), run.begin(), run.end());
        i = j;
    }
    m_groups[static_cast<size_t>(g)].children = std::move(out);
    for (ItemRef c : m_groups[static_cast<size_t>(g)].children)
        if (c.isGroup())
            addRanges(c.index);
}

std::vector<ItemRef> DataflowGraphBuilder::makeRanges(std::vector<ItemRef> items, int parent, size_t limit)
{
    size_t levels = 1;
    size_t capacity = limit * limit; // what `levels` levels of ranges can hold with leaves of `limit`
    size_t perLeafLevel = limit;     // limit^levels
    while (capacity < items.size()) {
        ++levels;
        capacity *= limit;
        perLeafLevel *= limit;
    }
    const size_t size = std::max<size_t>(2, (items.size() + perLeafLevel - 1) / perLeafLevel);
    for (size_t level = 0; level < levels && items.size() > limit; ++level) {
        const size_t chunk = level == 0 ? size : limit;
        std::vector<ItemRef> grouped;
        for (size_t k = 0; k < items.size(); k += chunk) {
            const size_t e = std::min(items.size(), k + chunk);
            if (e - k == 1) {
                grouped.push_back(items[k]);
                continue;
            }
            const int r =
                newGroup(GroupKind::Range, parent, itemLabel(items[k], true) + " … " + itemLabel(items[e - 1], false));
            for (size_t m = k; m < e; ++m)
                addChild(r, items[m]);
            grouped.push_back(ItemRef::group(r));
        }
        items = std::move(grouped);
    }
    for (ItemRef r : items)
        if (r.isGroup())
            m_groups[static_cast<size_t>(r.index)].parent = parent;
    return items;
}

void DataflowGraphBuilder::number()
{
    std::vector<int> groupIndex(m_groups.size(), -1);
    std::vector<int> nodeIndex(m_nodes.size(), -1);
    auto& groups = m_graph.m_groups;
    auto& nodes = m_graph.m_nodes;
    auto visit = [&](auto& self, int g, int parent, int depth) -> int {
        const int index = static_cast<int>(groups.size());
        groupIndex[static_cast<size_t>(g)] = index;
        TmpGroup& t = m_groups[static_cast<size_t>(g)];
        DataflowGroup out;
        out.kind = t.kind;
        out.parent = parent;
        out.depth = depth;
        out.label = std::move(t.label);
        out.path = std::move(t.path);
        out.op = t.op;
        out.collapsedByDefault = t.collapsed;
        out.nodeBegin = static_cast<int>(nodes.size());
        groups.push_back(std::move(out));
        std::vector<ItemRef> children;
        int numOps = 0;
        for (ItemRef c : t.children) {
            if (c.isNode()) {
                const int n = static_cast<int>(nodes.size());
                nodeIndex[static_cast<size_t>(c.index)] = n;
                DataflowNode node = std::move(m_nodes[static_cast<size_t>(c.index)].node);
                node.group = index;
                if (node.kind == NodeKind::Op)
                    ++numOps;
                nodes.push_back(std::move(node));
                children.push_back(ItemRef::node(n));
            } else {
                const int child = self(self, c.index, index, depth + 1);
                numOps += groups[static_cast<size_t>(child)].numOps;
                children.push_back(ItemRef::group(child));
            }
        }
        DataflowGroup& done = groups[static_cast<size_t>(index)];
        done.children = std::move(children);
        done.nodeEnd = static_cast<int>(nodes.size());
        done.groupEnd = static_cast<int>(groups.size());
        done.numOps = numOps;
        return index;
    };
    visit(visit, 0, -1, 0);
    for (size_t g = 0; g < m_groups.size(); ++g) {
        const int i = groupIndex[g];
        if (i < 0 || m_groups[g].node < 0)
            continue;
        groups[static_cast<size_t>(i)].node = nodeIndex[static_cast<size_t>(m_groups[g].node)];
    }
    const int limit = m_graph.m_options.autoExpandOps;
    for (DataflowGroup& g : groups)
        if (g.kind != GroupKind::Module && g.kind != GroupKind::Function && g.numOps > limit)
            g.collapsedByDefault = true;

    auto& edges = m_graph.m_edges;
    edges.reserve(m_tmpEdges.size());
    for (const DataflowEdge& e : m_tmpEdges) {
        const int from = nodeIndex[static_cast<size_t>(e.from)];
        const int to = nodeIndex[static_cast<size_t>(e.to)];
        if (from >= 0 && to >= 0)
            edges.push_back(DataflowEdge{from, to, e.value});
    }
    const size_t n = nodes.size();
    auto fill = [&](std::vector<int>& offsets, std::vector<int>& list, bool outgoing) {
        offsets.assign(n + 1, 0);
        for (const DataflowEdge& e : edges)
            ++offsets[static_cast<size_t>(outgoing ? e.from : e.to) + 1];
        for (size_t i = 0; i < n; ++i)
            offsets[i + 1] += offsets[i];
        list.assign(edges.size(), 0);
        std::vector<int> at(offsets.begin(), offsets.end() - 1);
        for (size_t i = 0; i < edges.size(); ++i)
            list[static_cast<size_t>(at[static_cast<size_t>(outgoing ? edges[i].from : edges[i].to)]++)] =
                static_cast<int>(i);
    };
    fill(m_graph.m_outOffsets, m_graph.m_outEdges, true);
    fill(m_graph.m_inOffsets, m_graph.m_inEdges, false);

    m_graph.m_nodeOfValue.assign(m_nodeOfValue.size(), -1);
    for (size_t v = 0; v < m_nodeOfValue.size(); ++v)
        if (m_nodeOfValue[v] >= 0)
            m_graph.m_nodeOfValue[v] = nodeIndex[static_cast<size_t>(m_nodeOfValue[v])];
    m_graph.m_nodeOfOp.assign(m_ids.ops().size(), -1);
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].op >= 0 && static_cast<size_t>(nodes[i].op) < m_graph.m_nodeOfOp.size())
            m_graph.m_nodeOfOp[static_cast<size_t>(nodes[i].op)] = static_cast<int>(i);
}

} // namespace shardx::layout
