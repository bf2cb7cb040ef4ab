// DataflowGraph::build, first part: walking the module into nodes, groups for functions and
// regions, and the members of each container (DataflowGraphBuilder.h).
#include <algorithm>

#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/layout/DataflowGraphBuilder.h"

namespace shardx::layout {

namespace detail {

/// `stablehlo.dot_general` -> `dot_general`.
std::string shortOpName(const std::string& name)
{
    const size_t dot = name.find('.');
    return dot == std::string::npos ? name : name.substr(dot + 1);
}

/// `jit(f)/jit(main)/layer_0/mlp/dot_general` -> {jit(f), jit(main), layer_0, mlp, dot_general}.
void splitScope(std::string_view scope, Path& parts)
{
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

} // namespace detail

using namespace detail;

DataflowGraph DataflowGraphBuilder::build()
{
    m_graph.m_scopes.reserve(m_ids.numScopes());
    for (size_t i = 0; i < m_ids.numScopes(); ++i)
        m_graph.m_scopes.push_back(m_ids.scopeName(static_cast<int>(i)));
    collectAxes();
    m_nodeOfValue.assign(m_ids.values().size(), -1);
    m_nodes.reserve(m_ids.ops().size() + m_ids.values().size() / 8);
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

void DataflowGraphBuilder::collectAxes()
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

void DataflowGraphBuilder::indexFunctionResults()
{
    const auto& values = m_ids.values();
    for (size_t i = 0; i < values.size(); ++i)
        if (values[i].funcResult >= 0)
            m_funcResults[{values[i].func, values[i].funcResult}] = static_cast<int>(i);
}

int DataflowGraphBuilder::funcResultValue(int func, int index) const
{
    auto it = m_funcResults.find({func, index});
    return it == m_funcResults.end() ? -1 : it->second;
}

Path DataflowGraphBuilder::scopePath(int scope, bool dropLast) const
{
    Path p;
    fillScopePath(scope, dropLast, p);
    return p;
}

void DataflowGraphBuilder::fillScopePath(int scope, bool dropLast, Path& out) const
{
    out.clear();
    if (scope < 0)
        return;
    splitScope(m_ids.scopeName(scope), out);
    if (dropLast && !out.empty())
        out.pop_back();
}

int DataflowGraphBuilder::opScope(const ir::Op& op) const
{
    return op.programId >= 0 ? m_ids.ops()[static_cast<size_t>(op.programId)].scope : -1;
}

int DataflowGraphBuilder::newGroup(GroupKind kind, int parent, std::string label)
{
    TmpGroup g;
    g.kind = kind;
    g.parent = parent;
    g.label = std::move(label);
    m_groups.push_back(std::move(g));
    return static_cast<int>(m_groups.size()) - 1;
}

int DataflowGraphBuilder::newContainer(int group, bool region, Path base)
{
    m_containers.push_back(Container{group, region, std::move(base), {}});
    return static_cast<int>(m_containers.size()) - 1;
}

int DataflowGraphBuilder::newArgument(const ir::Value& v, int container)
{
    TmpNode n;
    n.node.kind = NodeKind::Argument;
    n.node.value = v.programId;
    n.container = container;
    if (v.programId >= 0) {
        const ir::ProgramValue& pv = m_ids.values()[static_cast<size_t>(v.programId)];
        n.node.name = pv.name;
        n.node.scope = pv.scope;
        if (pv.scope >= 0 && static_cast<size_t>(pv.scope) < m_graph.m_scopes.size())
            n.node.detail = m_graph.m_scopes[static_cast<size_t>(pv.scope)];
        m_nodeOfValue[static_cast<size_t>(v.programId)] = static_cast<int>(m_nodes.size());
        recordInitial(v.programId, ir::shardingOfValue(&v));
    } else {
        n.node.name = "%arg" + std::to_string(v.index());
    }
    m_nodes.push_back(std::move(n));
    const int index = static_cast<int>(m_nodes.size()) - 1;
    m_containers[static_cast<size_t>(container)].members.push_back(Member{ItemRef::node(index), -1});
    m_arguments.push_back(index);
    return index;
}

const std::pair<std::string_view, std::string_view>& DataflowGraphBuilder::opNames(const ir::Op& op)
{
    auto it = m_opNames.find(op.name());
    if (it != m_opNames.end())
        return it->second;
    const std::string& full = m_graph.m_strings.emplace_back(op.name());
    const std::string& brief = m_graph.m_strings.emplace_back(shortOpName(op.name()));
    return m_opNames.emplace(std::string_view(op.name()), std::pair{std::string_view(full), std::string_view(brief)})
        .first->second;
}

int DataflowGraphBuilder::newOpNode(const ir::Op& op, int func)
{
    TmpNode n;
    n.op = &op;
    n.node.op = op.programId;
    const auto& [fullName, shortName] = opNames(op);
    n.node.opName = fullName;
    n.node.scope = opScope(op);
    n.node.terminator = isTerminator(op);
    if (n.node.terminator) {
        n.node.name = "return";
    } else if (op.numResults() == 0) {
        n.node.name = shortName;
    } else {
        n.node.name = op.programId >= 0 ? m_ids.ops()[static_cast<size_t>(op.programId)].name : std::string(shortName);
        n.node.detail = shortName;
    }
    const int index = static_cast<int>(m_nodes.size());
    for (const auto& r : op.results()) {
        if (n.node.value < 0)
            n.node.value = r->programId;
        if (r->programId >= 0) {
            m_nodeOfValue[static_cast<size_t>(r->programId)] = index;
            recordInitial(r->programId, ir::shardingOfValue(r.get()));
        }
    }
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

void DataflowGraphBuilder::recordInitial(int value, const TensorSharding* s)
{
    if (value >= 0 && s)
        m_graph.m_initialShardings.emplace(value, *s);
}

void DataflowGraphBuilder::walkFunction(const ir::Op& func)
{
    const int funcId = func.programId;
    std::string label = funcId >= 0 ? m_ids.ops()[static_cast<size_t>(funcId)].name : std::string("func");
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

void DataflowGraphBuilder::walkBlock(const ir::Block& block, int container, int func, bool withArguments)
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
            m_containers[static_cast<size_t>(container)].members.push_back(Member{ItemRef::node(n), opScope(*op)});
            continue;
        }
        walkRegionOp(*op, container, func);
    }
}

void DataflowGraphBuilder::walkRegionOp(const ir::Op& op, int container, int func)
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
    m_containers[static_cast<size_t>(container)].members.push_back(Member{ItemRef::group(g), scope});

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

DataflowGraph DataflowGraph::build(const ir::Module& module, const ir::ProgramIds& ids, const DataflowOptions& options)
{
    return DataflowGraphBuilder(module, ids, options).build();
}

} // namespace shardx::layout
