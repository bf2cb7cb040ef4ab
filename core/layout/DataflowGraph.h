// DataflowGraph: a module's dataflow as nested groups (functions, regions, `loc` name scopes) of op
// and argument nodes joined by one edge per SSA use; Qt-free, immutable once built.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/sharding/TensorSharding.h"

namespace shardx::ir {
class Module;
class ProgramIds;
} // namespace shardx::ir

namespace shardx::layout {

enum class NodeKind {
    Op,       ///< an op of the program (also a terminator, and an op holding regions)
    Argument, ///< a function argument or a block argument of a region
};

/// One node: an op or an argument.
struct DataflowNode {
    NodeKind kind = NodeKind::Op;
    int op = -1;    ///< ProgramIds op index (Op nodes), else -1
    int value = -1; ///< ProgramIds value it shows: an op's first result, the argument, for a
                    ///< `func.return` the function's result 0; -1 for none
    int group = -1; ///< the innermost group holding it
    int scope = -1; ///< ProgramIds scope (DataflowGraph::scopeName)
    bool terminator = false;
    std::string name;        ///< as the file prints it: `%5`, `%0:2`, `%arg0`; `return` for terminators
    std::string_view detail; ///< second line: the op name without its dialect (`dot_general`), an
                             ///< argument's `loc` name (`params['wq']`); may be empty. Held by the graph.
    std::string_view opName; ///< `stablehlo.dot_general`; empty for arguments. Held by the graph.
};

/// One SSA use (or a region's yield into the op that holds it).
struct DataflowEdge {
    int from = -1;  ///< node defining the value
    int to = -1;    ///< node using it
    int value = -1; ///< ProgramIds value carried; -1 for a yield (terminator -> its region op)
};

enum class GroupKind {
    Module,     ///< the root: holds the functions
    Function,   ///< a func.func
    Region,     ///< an op with regions (while, case, reduce, manual_computation, ...) and its node
    RegionBody, ///< one region of an op with several (`cond`, `body`, `branch 1`)
    Scope,      ///< ops sharing a `loc` name scope prefix (`layer_3/mlp`)
    Range,      ///< a run of consecutive sibling groups, made where a group had too many children
};
const char* groupKindName(GroupKind k);

/// A node or a group.
struct ItemRef {
    enum class Kind : uint8_t { Node, Group };
    Kind kind = Kind::Node;
    int index = -1;

    static ItemRef node(int i) { return {Kind::Node, i}; }
    static ItemRef group(int i) { return {Kind::Group, i}; }
    bool isNode() const { return kind == Kind::Node; }
    bool isGroup() const { return kind == Kind::Group; }
    bool operator==(const ItemRef& o) const = default;
    auto operator<=>(const ItemRef& o) const = default;
};

struct DataflowGroup {
    GroupKind kind = GroupKind::Scope;
    int parent = -1;
    int depth = 0;
    std::string label;             ///< `@main`, `%0:2 = while`, `body`, `layer_3/mlp`, `layer_0 … layer_4`
    std::string path;              ///< Scope: the full scope prefix (`jit(f)/jit(main)/layer_3/mlp`), else empty
    int op = -1;                   ///< Function: the func.func; Region: the op holding the regions (ProgramIds)
    int node = -1;                 ///< Region: the node of that op
    std::vector<ItemRef> children; ///< in program order
    int nodeBegin = 0;             ///< the nodes inside at any depth are [nodeBegin, nodeEnd)
    int nodeEnd = 0;
    int groupEnd = 0; ///< the groups inside at any depth (and itself) are [own index, groupEnd)
    int numOps = 0;   ///< op nodes inside at any depth
    /// Shown as one box at first: large, or a region of scalar code (a reducer's body).
    bool collapsedByDefault = false;
};

/// What DataflowGraph::build groups and how.
struct DataflowOptions {
    /// A group with more consecutive child groups than this gets Range groups above them.
    int maxChildren = 24;
    /// Groups with more ops than this start collapsed.
    int autoExpandOps = 60;
    /// defaultExpanded() stops expanding once about this many items would be visible.
    int visibleBudget = 220;
};

/// The dataflow graph of a module, built once per program (DESIGN.md §4: laid out once, restyled
/// per step). Nodes are numbered in depth-first order of the groups, so every group holds a
/// contiguous range of nodes (and of groups). Group 0 is the module. Holds no IR pointers: it
/// may outlive the module and be read from any thread.
class DataflowGraph {
public:
    DataflowGraph() = default;
    // Nodes view strings the graph holds: moves keep them, copies would not.
    DataflowGraph(DataflowGraph&&) = default;
    DataflowGraph& operator=(DataflowGraph&&) = default;
    DataflowGraph(const DataflowGraph&) = delete;
    DataflowGraph& operator=(const DataflowGraph&) = delete;
    /// Builds the graph of `module`, named by `ids` (its ProgramIds). Reads the module only.
    /// Linear in the size of the module.
    static DataflowGraph build(const ir::Module& module, const ir::ProgramIds& ids,
                               const DataflowOptions& options = {});

    const std::vector<DataflowNode>& nodes() const { return m_nodes; }
    const std::vector<DataflowEdge>& edges() const { return m_edges; }
    const std::vector<DataflowGroup>& groups() const { return m_groups; }
    const DataflowOptions& options() const { return m_options; }
    bool empty() const { return m_nodes.empty(); }
    int numOps() const { return m_groups.empty() ? 0 : m_groups.front().numOps; }

    /// Edges leaving / entering node `n` (indices into edges()).
    std::span<const int> outEdges(int n) const;
    std::span<const int> inEdges(int n) const;

    /// The node showing ProgramIds value `value` (its defining op, the argument, the return of a
    /// function result), -1 when none.
    int nodeOfValue(int value) const;
    /// The node of ProgramIds op `op`, -1 when none.
    int nodeOfOp(int op) const;
    /// The ProgramIds scope `scope` as the file writes it, empty for -1.
    const std::string& scopeName(int scope) const;

    /// True when node `n` is inside group `g` at any depth.
    bool contains(int g, int n) const { return n >= m_groups[g].nodeBegin && n < m_groups[g].nodeEnd; }
    /// True when group `inner` is `g` or inside it.
    bool containsGroup(int g, int inner) const { return inner >= g && inner < m_groups[g].groupEnd; }
    /// The child of group `g` holding node `n` (the node itself or a group); `n` must be in `g`.
    ItemRef childContaining(int g, int n) const;
    /// The groups holding `item`, innermost first (the group of a group item excluded).
    std::vector<int> ancestors(ItemRef item) const;
    /// The innermost group holding both nodes.
    int commonGroup(int a, int b) const;

    /// The sharding the module itself gives value `value` (annotations, constraints), nullptr
    /// when none: what is shown before any propagation ran.
    const TensorSharding* initialSharding(int value) const;
    /// The axis names of every mesh of the module, in declaration order, each once, and their
    /// sizes (the first mesh declaring a name gives its size).
    const std::vector<std::string>& axisNames() const { return m_axisNames; }
    const std::vector<int64_t>& axisSizes() const { return m_axisSizes; }

    /// The groups shown expanded at first (a flag per group): the module and its functions, then
    /// the smallest groups first while about options().visibleBudget items stay visible; a
    /// group that starts collapsed is never expanded here.
    std::vector<char> defaultExpanded() const;

    /// Nodes and groups matching `query` (case-insensitive), best first: groups whose label or
    /// scope path is `query` or ends with `/query`, nodes named `query` (`%5`, `%arg0`, `%0#1`
    /// finds `%0:2`), then groups and nodes whose label, name, op name or scope contains it.
    /// At most `limit` results.
    std::vector<ItemRef> search(const std::string& query, size_t limit = 200) const;

private:
    friend class DataflowGraphBuilder;

    DataflowOptions m_options;
    std::vector<DataflowNode> m_nodes;
    std::vector<DataflowEdge> m_edges;
    std::vector<DataflowGroup> m_groups;
    std::vector<int> m_outOffsets, m_outEdges; ///< CSR: out edges of node n are
                                               ///< m_outEdges[m_outOffsets[n] .. m_outOffsets[n+1])
    std::vector<int> m_inOffsets, m_inEdges;
    std::vector<int> m_nodeOfValue;
    std::vector<int> m_nodeOfOp;
    std::vector<std::string> m_scopes; ///< filled once, never grows: nodes view its strings
    std::deque<std::string> m_strings; ///< op names and their short forms, viewed by nodes
    std::unordered_map<int, TensorSharding> m_initialShardings;
    std::vector<std::string> m_axisNames;
    std::vector<int64_t> m_axisSizes;
};

} // namespace shardx::layout
