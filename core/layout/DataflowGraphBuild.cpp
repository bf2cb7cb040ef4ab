// DataflowGraph::build: walks a module into nodes and edges, groups them by function, region and
// `loc` name scope, places arguments with their users, adds Range groups, and numbers it all.
#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "core/ir/Module.h"
#include "core/ir/ProgramIds.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/layout/DataflowGraph.h"

namespace shardx::layout {

namespace {

using Path = std::vector<std::string_view>;

/// `stablehlo.dot_general` -> `dot_general`.
std::string shortOpName(const std::string& name)
{
    const size_t dot = name.find('.');
    return dot == std::string::npos ? name : name.substr(dot + 1);
}

/// `jit(f)/jit(main)/layer_0/mlp/dot_general` -> {jit(f), jit(main), layer_0, mlp, dot_general}.
Path splitScope(std::string_view scope)
{
    Path parts;
    size_t start = 0;
    int depth = 0; // a '/' inside parentheses does not split: `jit(a/b)`
    for (size_t i = 0; i < scope.size(); ++i) {
        const char c = scope[i];
        if (c == '(' || c == '[')
            ++depth;
        else if ((c == ')' || c == ']') && depth > 0)
            --depth;
        else if (c == '/' && depth == 0) {
            if (i > start)
                parts.push_back(scope.substr(start, i - start));
            start = i + 1;
        }
    }
    if (start < scope.size())
        parts.push_back(scope.substr(start));
    return parts;
}

bool startsWith(const Path& path, const Path& prefix)
{
    return prefix.size() <= path.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

/// Ops whose regions hold scalar code applied per element (a reducer): shown collapsed at first.
bool hasScalarBody(const std::string& opName)
{
    static const char* const kNames[] = {
        "stablehlo.reduce", "stablehlo.reduce_window", "stablehlo.scatter",        "stablehlo.select_and_scatter",
        "stablehlo.sort",   "stablehlo.all_reduce",    "stablehlo.reduce_scatter", "stablehlo.map",
        "sdy.all_reduce",   "sdy.reduce_scatter"};
    return std::any_of(std::begin(kNames), std::end(kNames), [&](const char* n) { return opName == n; });
}

bool isTerminator(const ir::Op& op)
{
    if (op.numResults() != 0 || !op.parentBlock() || op.parentBlock()->terminator() != &op)
        return false;
    const std::string& n = op.name();
    return n.ends_with(".return") || n.ends_with(".yield") || n == "return";
}

std::string regionLabel(const std::string& opName, unsigned region, unsigned numRegions)
{
    if (opName == "stablehlo.while")
        return region == 0 ? "cond" : "body";
    if (opName == "stablehlo.if")
        return region == 0 ? "true branch" : "false branch";
    if (opName == "stablehlo.case")
        return "branch " + std::to_string(region);
    return numRegions > 1 ? "region " + std::to_string(region) : "body";
}

} // namespace

/// Builds a DataflowGraph in passes (see DataflowGraph::build).
class DataflowGraphBuilder {
public:
    DataflowGraphBuilder(const ir::Module& module, const ir::ProgramIds& ids, const DataflowOptions& options)
        : m_module(module), m_ids(ids)
    {
        m_graph.m_options = options;
    }

    DataflowGraph build()
    {
        m_graph.m_scopes.reserve(m_ids.numScopes());
        for (size_t i = 0; i < m_ids.numScopes(); ++i)
            m_graph.m_scopes.push_back(m_ids.scopeName(static_cast<int>(i)));
        collectAxes();
        m_nodeOfValue.assign(m_ids.values().size(), -1);
        m_groups.emplace_back();
        m_groups[0].kind = GroupKind::Module;
        m_groups[0].label = m_module.symName().empty() ? "module" : "@" + m_module.symName();
        indexFunctionResults();
        for (const auto& op : m_module.body().ops())
            if (op->name() == "func.func")
                walkFunction(*op);
        for (Container& c : m_containers)
            arrange(c);
        for (size_t g = 0; g < m_groups.size(); ++g)
            if (m_groups[g].trailing.index >= 0)
                addChild(static_cast<int>(g), m_groups[g].trailing);
        buildEdges();
        placeArguments();
        dissolveGroups(0);
        addRanges(0);
        number();
        return std::move(m_graph);
    }

private:
    struct TmpNode {
        DataflowNode node;
        const ir::Op* op = nullptr;
        std::vector<int> results; ///< ProgramIds values of its results
        int container = -1;       ///< the container it was walked in (arguments)
    };
    struct TmpGroup {
        GroupKind kind = GroupKind::Scope;
        int parent = -1;
        std::string label, path;
        int op = -1;
        int node = -1;
        std::vector<ItemRef> children;
        ItemRef trailing{ItemRef::Kind::Node, -1}; ///< appended after the arranged members (a region's op)
        bool collapsed = false;
        bool dissolved = false;
    };
    struct Member {
        ItemRef item;
        Path path;
    };
    /// A function body or a region: its members are arranged into scope groups inside `group`.
    struct Container {
        int group = -1;
        bool region = false;
        Path base; ///< region: the scope of the op holding it
        std::vector<Member> members;
    };

    void collectAxes()
    {
        for (const ir::Op* meshOp : m_module.meshes())
            if (const Mesh* mesh = ir::meshOpMesh(*meshOp))
                for (const MeshAxis& a : mesh->axes())
                    if (std::find(m_graph.m_axisNames.begin(), m_graph.m_axisNames.end(), a.name) ==
                        m_graph.m_axisNames.end()) {
                        m_graph.m_axisNames.push_back(a.name);
                        m_graph.m_axisSizes.push_back(a.size);
                    }
    }

    void indexFunctionResults()
    {
        const auto& values = m_ids.values();
        for (size_t i = 0; i < values.size(); ++i)
            if (values[i].funcResult >= 0)
                m_funcResults[{values[i].func, values[i].funcResult}] = static_cast<int>(i);
    }

    int funcResultValue(int func, int index) const
    {
        auto it = m_funcResults.find({func, index});
        return it == m_funcResults.end() ? -1 : it->second;
    }

    Path scopePath(int scope, bool dropLast) const
    {
        if (scope < 0)
            return {};
        Path p = splitScope(m_ids.scopeName(scope));
        if (dropLast && !p.empty())
            p.pop_back();
        return p;
    }

    int opScope(const ir::Op& op) const
    {
        return op.programId >= 0 ? m_ids.ops()[static_cast<size_t>(op.programId)].scope : -1;
    }

    int newGroup(GroupKind kind, int parent, std::string label)
    {
        TmpGroup g;
        g.kind = kind;
        g.parent = parent;
        g.label = std::move(label);
        m_groups.push_back(std::move(g));
        return static_cast<int>(m_groups.size()) - 1;
    }

    int newContainer(int group, bool region, Path base)
    {
        m_containers.push_back(Container{group, region, std::move(base), {}});
        return static_cast<int>(m_containers.size()) - 1;
    }

    int newArgument(const ir::Value& v, int container)
    {
        TmpNode n;
        n.node.kind = NodeKind::Argument;
        n.node.value = v.programId;
        n.container = container;
        if (v.programId >= 0) {
            const ir::ProgramValue& pv = m_ids.values()[static_cast<size_t>(v.programId)];
            n.node.name = pv.name;
            n.node.scope = pv.scope;
            n.node.detail = m_ids.scopeName(pv.scope);
            m_nodeOfValue[static_cast<size_t>(v.programId)] = static_cast<int>(m_nodes.size());
            recordInitial(v.programId, ir::shardingOfValue(&v));
        } else {
            n.node.name = "%arg" + std::to_string(v.index());
        }
        m_nodes.push_back(std::move(n));
        const int index = static_cast<int>(m_nodes.size()) - 1;
        m_containers[static_cast<size_t>(container)].members.push_back(Member{ItemRef::node(index), {}});
        m_arguments.push_back(index);
        return index;
    }

    int newOpNode(const ir::Op& op, int func)
    {
        TmpNode n;
        n.op = &op;
        n.node.op = op.programId;
        n.node.opName = op.name();
        n.node.scope = opScope(op);
        n.node.terminator = isTerminator(op);
        const std::string shortName = shortOpName(op.name());
        if (n.node.terminator) {
            n.node.name = "return";
        } else if (op.numResults() == 0) {
            n.node.name = shortName;
        } else {
            n.node.name = op.programId >= 0 ? m_ids.ops()[static_cast<size_t>(op.programId)].name : shortName;
            n.node.detail = shortName;
        }
        const int index = static_cast<int>(m_nodes.size());
        for (const auto& r : op.results()) {
            n.results.push_back(r->programId);
            if (r->programId >= 0) {
                m_nodeOfValue[static_cast<size_t>(r->programId)] = index;
                recordInitial(r->programId, ir::shardingOfValue(r.get()));
            }
        }
        if (!n.results.empty())
            n.node.value = n.results.front();
        if (op.name() == "func.return" && func >= 0) {
            // The return stands for the function's results: selecting it selects `result 0`.
            const ir::Op* funcOp = op.parentOp();
            for (unsigned i = 0; i < op.numOperands(); ++i) {
                const int v = funcResultValue(func, static_cast<int>(i));
                if (v < 0)
                    continue;
                if (n.node.value < 0)
                    n.node.value = v;
                m_nodeOfValue[static_cast<size_t>(v)] = index;
                if (funcOp)
                    recordInitial(v, ir::funcResultSharding(*funcOp, i));
            }
        }
        m_nodes.push_back(std::move(n));
        return index;
    }

    void recordInitial(int value, const TensorSharding* s)
    {
        if (value >= 0 && s)
            m_graph.m_initialShardings.emplace(value, *s);
    }

    void walkFunction(const ir::Op& func)
    {
        const int funcId = func.programId;
        std::string label = funcId >= 0 ? m_ids.ops()[static_cast<size_t>(funcId)].name : "func";
        const int g = newGroup(GroupKind::Function, 0, std::move(label));
        m_groups[static_cast<size_t>(g)].op = funcId;
        m_groups[0].children.push_back(ItemRef::group(g));
        const int c = newContainer(g, false, {});
        if (func.numRegions() == 0 || func.region(0).empty())
            return; // a declaration
        const ir::Block& entry = *func.region(0).blocks().front();
        for (const auto& arg : entry.args())
            newArgument(*arg, c);
        for (const auto& block : func.region(0).blocks())
            walkBlock(*block, c, funcId, block.get() != &entry);
    }

    void walkBlock(const ir::Block& block, int container, int func, bool withArguments)
    {
        if (withArguments)
            for (const auto& arg : block.args())
                if (!arg->useEmpty())
                    newArgument(*arg, container);
        for (const auto& op : block.ops()) {
            if (op->numRegions() == 0 ||
                std::all_of(op->regions().begin(), op->regions().end(), [](const auto& r) { return r->empty(); })) {
                const int n = newOpNode(*op, func);
                m_nodes[static_cast<size_t>(n)].container = container;
                if (m_nodes[static_cast<size_t>(n)].node.terminator)
                    m_terminatorNodes[op.get()] = n;
                m_containers[static_cast<size_t>(container)].members.push_back(
                    Member{ItemRef::node(n), scopePath(opScope(*op), true)});
                continue;
            }
            walkRegionOp(*op, container, func);
        }
    }

    void walkRegionOp(const ir::Op& op, int container, int func)
    {
        const int scope = opScope(op);
        const std::string shortName = shortOpName(op.name());
        const int n = newOpNode(op, func);
        m_nodes[static_cast<size_t>(n)].container = container;
        const std::string& nodeName = m_nodes[static_cast<size_t>(n)].node.name;
        const int g = newGroup(GroupKind::Region, -1, op.numResults() ? nodeName + " = " + shortName : shortName);
        TmpGroup& group = m_groups[static_cast<size_t>(g)];
        group.op = op.programId;
        group.node = n;
        group.trailing = ItemRef::node(n);
        group.collapsed = hasScalarBody(op.name());
        m_containers[static_cast<size_t>(container)].members.push_back(
            Member{ItemRef::group(g), scopePath(scope, true)});

        const Path base = scopePath(scope, false);
        const unsigned numRegions = op.numRegions();
        for (unsigned r = 0; r < numRegions; ++r) {
            const ir::Region& region = op.region(r);
            if (region.empty())
                continue;
            int holder = g;
            if (numRegions > 1) {
                holder = newGroup(GroupKind::RegionBody, g, regionLabel(op.name(), r, numRegions));
                m_groups[static_cast<size_t>(g)].children.push_back(ItemRef::group(holder));
            }
            const int c = newContainer(holder, true, base);
            for (const auto& block : region.blocks())
                walkBlock(*block, c, func, true);
            // The region's result flows into the op: a yield edge from its terminator.
            const ir::Block& last = *region.blocks().back();
            if (const ir::Op* t = last.terminator(); t && isTerminator(*t))
                m_yields.push_back({t, n});
        }
    }

    /// Arranges a container's members into scope groups: a trie of their scope paths (relative
    /// to the container's own scope), chains of single-child levels merged (`layer_0/mlp`).
    void arrange(Container& c)
    {
        Path base = c.base;
        if (!c.region) {
            // A function: drop the prefix every op shares (`jit(f)/jit(main)`): a group holding
            // everything says nothing.
            bool first = true;
            for (const Member& m : c.members) {
                if (m.path.empty())
                    continue;
                if (first) {
                    base = m.path;
                    first = false;
                    continue;
                }
                size_t k = 0;
                while (k < base.size() && k < m.path.size() && base[k] == m.path[k])
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
            Path rel;
            if (startsWith(m.path, base))
                rel.assign(m.path.begin() + static_cast<std::ptrdiff_t>(base.size()), m.path.end());
            else if (!startsWith(base, m.path))
                rel = m.path; // outside the container's own scope: keep its whole path
            int t = 0;
            Path prefix = base;
            for (std::string_view part : rel) {
                prefix.push_back(part);
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
                    trie.push_back(Trie{part, prefix, {}, 0});
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

    void addChild(int group, ItemRef item)
    {
        m_groups[static_cast<size_t>(group)].children.push_back(item);
        if (item.isNode())
            m_nodes[static_cast<size_t>(item.index)].node.group = group;
        else
            m_groups[static_cast<size_t>(item.index)].parent = group;
    }

    void buildEdges()
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

    /// Group nesting depth in the temporary tree.
    int depthOf(int g) const
    {
        int d = 0;
        for (; g > 0; g = m_groups[static_cast<size_t>(g)].parent)
            ++d;
        return d;
    }

    int lowestCommon(int a, int b) const
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

    /// An argument sits in the innermost group holding all its users (a layer's weights inside
    /// the layer), after the arguments already there.
    void placeArguments()
    {
        std::vector<std::vector<int>> users(m_nodes.size());
        for (const DataflowEdge& e : m_tmpEdges) {
            int g = m_nodes[static_cast<size_t>(e.to)].node.group;
            // The op of a Region group takes its operands at the group's border: an argument it
            // uses belongs outside the group (a loop's initial value is not in the loop).
            if (g > 0 && m_groups[static_cast<size_t>(g)].node == e.to)
                g = m_groups[static_cast<size_t>(g)].parent;
            users[static_cast<size_t>(e.from)].push_back(g);
        }
        for (int a : m_arguments) {
            const std::vector<int>& u = users[static_cast<size_t>(a)];
            if (u.empty())
                continue;
            int target = u.front();
            for (int g : u)
                target = lowestCommon(target, g);
            const int current = m_nodes[static_cast<size_t>(a)].node.group;
            if (target == current)
                continue;
            auto& from = m_groups[static_cast<size_t>(current)].children;
            from.erase(std::find(from.begin(), from.end(), ItemRef::node(a)));
            auto& to = m_groups[static_cast<size_t>(target)].children;
            auto pos = std::find_if(to.begin(), to.end(), [&](ItemRef r) {
                return !r.isNode() || m_nodes[static_cast<size_t>(r.index)].node.kind != NodeKind::Argument;
            });
            to.insert(pos, ItemRef::node(a));
            m_nodes[static_cast<size_t>(a)].node.group = target;
        }
    }

    /// Removes Scope groups that say nothing: those holding a single item, and those named as the
    /// region that holds them (a while's `body` scope inside its `body` region).
    void dissolveGroups(int g)
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
            const bool single =
                std::count_if(child.children.begin(), child.children.end(), [&](ItemRef r) {
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

    /// The first (or last) label a Range over `r` names: a range of ranges names the layers.
    std::string itemLabel(ItemRef r, bool first) const
    {
        if (r.isNode())
            return m_nodes[static_cast<size_t>(r.index)].node.name;
        const TmpGroup& g = m_groups[static_cast<size_t>(r.index)];
        if (g.kind == GroupKind::Range && !g.children.empty())
            return itemLabel(first ? g.children.front() : g.children.back(), first);
        return g.label;
    }

    /// Puts Range groups over runs of more than options.maxChildren consecutive child groups (a
    /// 1000-layer stack becomes ranges of layers), and over plain nodes where a group holds
    /// very many: each layout then stays small.
    void addRanges(int g)
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

    /// `items` under Range groups, balanced: leaves of `size` items, then groups of `limit`, so
    /// that at most `limit` remain at the top (102 layers: 21 ranges of 5; 1020: 22 of 24 x 2).
    std::vector<ItemRef> makeRanges(std::vector<ItemRef> items, int parent, size_t limit)
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
                const int r = newGroup(GroupKind::Range, parent,
                                       itemLabel(items[k], true) + " … " + itemLabel(items[e - 1], false));
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

    /// Numbers groups in pre-order and nodes in the order they are met, and fills the graph.
    void number()
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

    struct PairHash {
        size_t operator()(const std::pair<int, int>& p) const
        {
            return std::hash<int64_t>()((static_cast<int64_t>(p.first) << 32) ^ static_cast<uint32_t>(p.second));
        }
    };

    const ir::Module& m_module;
    const ir::ProgramIds& m_ids;
    DataflowGraph m_graph;
    std::vector<TmpNode> m_nodes;
    std::vector<TmpGroup> m_groups;
    std::vector<Container> m_containers;
    std::vector<DataflowEdge> m_tmpEdges;
    std::vector<int> m_arguments;
    std::vector<std::pair<const ir::Op*, int>> m_yields; ///< (terminator, node of its region's op)
    std::unordered_map<const ir::Op*, int> m_terminatorNodes;
    std::vector<int> m_nodeOfValue;
    std::unordered_map<std::pair<int, int>, int, PairHash> m_funcResults;
};

DataflowGraph DataflowGraph::build(const ir::Module& module, const ir::ProgramIds& ids, const DataflowOptions& options)
{
    return DataflowGraphBuilder(module, ids, options).build();
}

} // namespace shardx::layout
