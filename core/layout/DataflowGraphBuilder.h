// DataflowGraphBuilder: the passes of DataflowGraph::build (internal to core/layout): walking the
// module (DataflowGraphBuild.cpp), then grouping, placing, numbering (DataflowGraphGrouping.cpp).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/ir/Module.h"
#include "core/ir/ProgramIds.h"
#include "core/layout/DataflowGraph.h"

namespace shardx::layout {

/// A `loc` name scope split at its `/`s, viewing the scope's text.
using Path = std::vector<std::string_view>;

namespace detail {
/// `stablehlo.dot_general` -> `dot_general`.
std::string shortOpName(const std::string& name);
/// `jit(f)/jit(main)/layer_0/mlp/dot_general` -> {jit(f), jit(main), layer_0, mlp, dot_general},
/// appended to `parts`.
void splitScope(std::string_view scope, Path& parts);
bool startsWith(const Path& path, const Path& prefix);
/// Ops whose regions hold scalar code applied per element (a reducer): shown collapsed at first.
bool hasScalarBody(const std::string& opName);
bool isTerminator(const ir::Op& op);
/// `cond` / `body` of a while, `branch 2` of a case, ...
std::string regionLabel(const std::string& opName, unsigned region, unsigned numRegions);
} // namespace detail

/// Builds a DataflowGraph in passes (see DataflowGraph::build).
class DataflowGraphBuilder {
public:
    DataflowGraphBuilder(const ir::Module& module, const ir::ProgramIds& ids, const DataflowOptions& options)
        : m_module(module), m_ids(ids)
    {
        m_graph.m_options = options;
    }

    /// Runs every pass; call once.
    DataflowGraph build();

private:
    struct TmpNode {
        DataflowNode node;
        const ir::Op* op = nullptr;
        int container = -1; ///< the container it was walked in (arguments)
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
        int scope = -1; ///< ProgramIds scope; its path without the last part (the op's own name)
    };
    /// A function body or a region: its members are arranged into scope groups inside `group`.
    struct Container {
        int group = -1;
        bool region = false;
        Path base; ///< region: the scope of the op holding it
        std::vector<Member> members;
    };

    void collectAxes();

    void indexFunctionResults();

    int funcResultValue(int func, int index) const;

    Path scopePath(int scope, bool dropLast) const;

    /// The same into `out`, reusing its storage.
    void fillScopePath(int scope, bool dropLast, Path& out) const;

    int opScope(const ir::Op& op) const;

    int newGroup(GroupKind kind, int parent, std::string label);

    int newContainer(int group, bool region, Path base);

    int newArgument(const ir::Value& v, int container);

    /// The op name and its short form, held by the graph once per name.
    const std::pair<std::string_view, std::string_view>& opNames(const ir::Op& op);

    int newOpNode(const ir::Op& op, int func);

    void recordInitial(int value, const TensorSharding* s);

    void walkFunction(const ir::Op& func);

    void walkBlock(const ir::Block& block, int container, int func, bool withArguments);

    void walkRegionOp(const ir::Op& op, int container, int func);

    /// Arranges a container's members into scope groups: a trie of their scope paths (relative
    /// to the container's own scope), chains of single-child levels merged (`layer_0/mlp`).
    void arrange(Container& c);

    void addChild(int group, ItemRef item);

    void buildEdges();

    /// Group nesting depth in the temporary tree.
    int depthOf(int g) const;

    int lowestCommon(int a, int b) const;

    /// An argument sits in the innermost group holding all its users (a layer's weights inside
    /// the layer), after the arguments already there.
    void placeArguments();

    /// Removes Scope groups that say nothing: those holding a single item, and those named as the
    /// region that holds them (a while's `body` scope inside its `body` region).
    void dissolveGroups(int g);

    /// The first (or last) label a Range over `r` names: a range of ranges names the layers.
    std::string itemLabel(ItemRef r, bool first) const;

    /// Puts Range groups over runs of more than options.maxChildren consecutive child groups (a
    /// 1000-layer stack becomes ranges of layers), and over plain nodes where a group holds
    /// very many: each layout then stays small.
    void addRanges(int g);

    /// `items` under Range groups, balanced: leaves of `size` items, then groups of `limit`, so
    /// that at most `limit` remain at the top (102 layers: 21 ranges of 5; 1020: 22 of 24 x 2).
    std::vector<ItemRef> makeRanges(std::vector<ItemRef> items, int parent, size_t limit);

    /// Numbers groups in pre-order and nodes in the order they are met, and fills the graph.
    void number();

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
    std::unordered_map<std::string_view, std::pair<std::string_view, std::string_view>> m_opNames;
    std::vector<int> m_nodeOfValue;
    std::unordered_map<std::pair<int, int>, int, PairHash> m_funcResults;
};

} // namespace shardx::layout
