// DataflowGraph: queries over the built graph (containment, lookups, default expansion, search).
#include "core/layout/DataflowGraph.h"

#include <algorithm>
#include <cctype>
#include <queue>

namespace shardx::layout {

const char* groupKindName(GroupKind k)
{
    switch (k) {
    case GroupKind::Module: return "module";
    case GroupKind::Function: return "function";
    case GroupKind::Region: return "region";
    case GroupKind::RegionBody: return "region-body";
    case GroupKind::Scope: return "scope";
    case GroupKind::Range: return "range";
    }
    return "?";
}

std::span<const int> DataflowGraph::outEdges(int n) const
{
    const size_t b = static_cast<size_t>(m_outOffsets[static_cast<size_t>(n)]);
    const size_t e = static_cast<size_t>(m_outOffsets[static_cast<size_t>(n) + 1]);
    return std::span<const int>(m_outEdges.data() + b, e - b);
}

std::span<const int> DataflowGraph::inEdges(int n) const
{
    const size_t b = static_cast<size_t>(m_inOffsets[static_cast<size_t>(n)]);
    const size_t e = static_cast<size_t>(m_inOffsets[static_cast<size_t>(n) + 1]);
    return std::span<const int>(m_inEdges.data() + b, e - b);
}

int DataflowGraph::nodeOfValue(int value) const
{
    return value >= 0 && static_cast<size_t>(value) < m_nodeOfValue.size() ? m_nodeOfValue[static_cast<size_t>(value)]
                                                                           : -1;
}

int DataflowGraph::nodeOfOp(int op) const
{
    return op >= 0 && static_cast<size_t>(op) < m_nodeOfOp.size() ? m_nodeOfOp[static_cast<size_t>(op)] : -1;
}

const std::string& DataflowGraph::scopeName(int scope) const
{
    static const std::string kNone;
    return scope >= 0 && static_cast<size_t>(scope) < m_scopes.size() ? m_scopes[static_cast<size_t>(scope)] : kNone;
}

ItemRef DataflowGraph::childContaining(int g, int n) const
{
    const std::vector<ItemRef>& children = m_groups[static_cast<size_t>(g)].children;
    // Children cover consecutive node ranges in order: find the last one starting at or before n.
    auto begin = [&](ItemRef r) { return r.isNode() ? r.index : m_groups[static_cast<size_t>(r.index)].nodeBegin; };
    auto it = std::upper_bound(children.begin(), children.end(), n, [&](int x, ItemRef r) { return x < begin(r); });
    // Empty groups start where the next child starts: step back over them.
    while (it != children.begin()) {
        --it;
        if (it->isNode() ? it->index == n : contains(it->index, n))
            return *it;
        if (begin(*it) < n)
            break;
    }
    return ItemRef::node(n);
}

std::vector<int> DataflowGraph::ancestors(ItemRef item) const
{
    std::vector<int> out;
    int g = item.isNode() ? m_nodes[static_cast<size_t>(item.index)].group
                          : m_groups[static_cast<size_t>(item.index)].parent;
    for (; g >= 0; g = m_groups[static_cast<size_t>(g)].parent)
        out.push_back(g);
    return out;
}

int DataflowGraph::commonGroup(int a, int b) const
{
    int g = m_nodes[static_cast<size_t>(a)].group;
    while (g > 0 && !contains(g, b))
        g = m_groups[static_cast<size_t>(g)].parent;
    return std::max(g, 0);
}

const TensorSharding* DataflowGraph::initialSharding(int value) const
{
    auto it = m_initialShardings.find(value);
    return it == m_initialShardings.end() ? nullptr : &it->second;
}

std::vector<char> DataflowGraph::defaultExpanded() const
{
    std::vector<char> expanded(m_groups.size(), 0);
    if (m_groups.empty())
        return expanded;
    expanded[0] = 1;
    size_t visible = m_groups[0].children.size();
    // Candidates: smallest first (by ops, then by position), so that many small groups open
    // before one big one.
    using Candidate = std::pair<int, int>; // (ops, group)
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
    auto offer = [&](int g) {
        for (ItemRef c : m_groups[static_cast<size_t>(g)].children)
            if (c.isGroup() && !m_groups[static_cast<size_t>(c.index)].collapsedByDefault)
                queue.push({m_groups[static_cast<size_t>(c.index)].numOps, c.index});
    };
    // Functions: the first one always opens (the entry point, whatever its size).
    bool first = true;
    for (ItemRef c : m_groups[0].children) {
        if (!c.isGroup())
            continue;
        const DataflowGroup& f = m_groups[static_cast<size_t>(c.index)];
        if (first || visible + f.children.size() <= static_cast<size_t>(m_options.visibleBudget)) {
            expanded[static_cast<size_t>(c.index)] = 1;
            visible += f.children.size() - 1;
            offer(c.index);
        }
        first = false;
    }
    while (!queue.empty()) {
        const int g = queue.top().second;
        queue.pop();
        const size_t more = m_groups[static_cast<size_t>(g)].children.size();
        if (visible + more - 1 > static_cast<size_t>(m_options.visibleBudget))
            continue;
        expanded[static_cast<size_t>(g)] = 1;
        visible += more - 1;
        offer(g);
    }
    return expanded;
}

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool endsWithPart(const std::string& text, const std::string& part)
{
    return text == part ||
           (text.size() > part.size() && text.ends_with(part) && text[text.size() - part.size() - 1] == '/');
}

} // namespace

std::vector<ItemRef> DataflowGraph::search(const std::string& query, size_t limit) const
{
    std::vector<ItemRef> out;
    std::string q = lower(query);
    while (!q.empty() && std::isspace(static_cast<unsigned char>(q.back())))
        q.pop_back();
    while (!q.empty() && std::isspace(static_cast<unsigned char>(q.front())))
        q.erase(q.begin());
    if (q.empty())
        return out;
    std::vector<char> taken(m_nodes.size() + m_groups.size(), 0);
    auto add = [&](ItemRef r) {
        const size_t key = r.isNode() ? static_cast<size_t>(r.index) : m_nodes.size() + static_cast<size_t>(r.index);
        if (taken[key] || out.size() >= limit)
            return;
        taken[key] = 1;
        out.push_back(r);
    };
    // `%0#1` names result 1 of the op printed `%0:2`.
    std::string base = q;
    if (const size_t hash = base.find('#'); hash != std::string::npos && base.starts_with("%"))
        base = base.substr(0, hash);
    // 1. Groups named exactly (or whose scope path ends with the query).
    for (size_t g = 1; g < m_groups.size(); ++g)
        if (lower(m_groups[g].label) == q || endsWithPart(lower(m_groups[g].path), q))
            add(ItemRef::group(static_cast<int>(g)));
    // 2. Nodes named exactly.
    for (size_t n = 0; n < m_nodes.size(); ++n) {
        const std::string name = lower(m_nodes[n].name);
        if (name == q || name == base || (name.starts_with(base + ":") && base.starts_with("%")))
            add(ItemRef::node(static_cast<int>(n)));
    }
    // 3. Anything containing the query: labels, names, op names, scopes.
    for (size_t g = 1; g < m_groups.size(); ++g)
        if (lower(m_groups[g].label).find(q) != std::string::npos)
            add(ItemRef::group(static_cast<int>(g)));
    std::vector<char> scopeMatches(m_scopes.size(), 0);
    for (size_t s = 0; s < m_scopes.size(); ++s)
        scopeMatches[s] = lower(m_scopes[s]).find(q) != std::string::npos;
    for (size_t n = 0; n < m_nodes.size() && out.size() < limit; ++n) {
        const DataflowNode& node = m_nodes[n];
        const bool scope = node.scope >= 0 && static_cast<size_t>(node.scope) < scopeMatches.size() &&
                           scopeMatches[static_cast<size_t>(node.scope)];
        if (scope || lower(node.name).find(q) != std::string::npos || lower(node.opName).find(q) != std::string::npos)
            add(ItemRef::node(static_cast<int>(n)));
    }
    return out;
}

} // namespace shardx::layout
