// DataflowGraph: nodes and edges of a module, grouping by function, region and `loc` name scope,
// argument placement, Range groups, default expansion, search, on hand-written modules and samples/.
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <set>

#include "core/generate/ModelGenerator.h"
#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/layout/DataflowGraph.h"

using namespace shardx;
using namespace shardx::layout;

namespace {

// Scopes as JAX writes them (the last part is the primitive):
//   layer_0 { attn { %0 dot, %1 tanh }, %2 add, mlp { %3 dot, %4 neg } }
//   layer_1/mlp { %5 add, %6 mul }          (one chain: merged into one group)
//   return
const char* kScoped = R"(sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>} loc("x"),
                %arg1: tensor<8x8xf32> loc("params/w0"), %arg2: tensor<8x8xf32> loc("params/w1")) -> tensor<8x8xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32> loc("jit(f)/jit(main)/layer_0/attn/dot_general")
  %1 = stablehlo.tanh %0 : tensor<8x8xf32> loc("jit(f)/jit(main)/layer_0/attn/tanh")
  %2 = stablehlo.add %1, %arg0 : tensor<8x8xf32> loc("jit(f)/jit(main)/layer_0/add")
  %3 = stablehlo.dot_general %2, %arg2, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32> loc("jit(f)/jit(main)/layer_0/mlp/dot_general")
  %4 = stablehlo.negate %3 : tensor<8x8xf32> loc("jit(f)/jit(main)/layer_0/mlp/neg")
  %5 = stablehlo.add %4, %2 : tensor<8x8xf32> loc("jit(f)/jit(main)/layer_1/mlp/add")
  %6 = stablehlo.multiply %5, %5 : tensor<8x8xf32> loc("jit(f)/jit(main)/layer_1/mlp/mul")
  return %6 : tensor<8x8xf32>
}
)";

struct Parsed {
    std::unique_ptr<ir::Module> module;
    DataflowGraph graph;
};

Parsed parse(const std::string& text, const DataflowOptions& options = {})
{
    DiagnosticList diags;
    Parsed p;
    p.module = io::parseMlir(text, "test.mlir", diags);
    if (!p.module) {
        qWarning("%s", diags.formatAll().c_str());
        return p;
    }
    p.graph = DataflowGraph::build(*p.module, p.module->programIds(), options);
    return p;
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> samples()
{
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(SHARDX_SOURCE_DIR "/samples"))
        if (e.path().extension() == ".mlir")
            out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

int findGroup(const DataflowGraph& g, const std::string& label)
{
    for (size_t i = 0; i < g.groups().size(); ++i)
        if (g.groups()[i].label == label)
            return static_cast<int>(i);
    return -1;
}

int findNode(const DataflowGraph& g, const std::string& name, int after = -1)
{
    for (size_t i = static_cast<size_t>(after + 1); i < g.nodes().size(); ++i)
        if (g.nodes()[i].name == name)
            return static_cast<int>(i);
    return -1;
}

/// The labels of a group's children, nodes by name: `{attn}`, `%2`.
QStringList childLabels(const DataflowGraph& g, int group)
{
    QStringList out;
    for (ItemRef c : g.groups()[static_cast<size_t>(group)].children)
        out << (c.isNode() ? QString::fromStdString(g.nodes()[static_cast<size_t>(c.index)].name)
                           : "{" + QString::fromStdString(g.groups()[static_cast<size_t>(c.index)].label) + "}");
    return out;
}

int countOps(const ir::Module& m)
{
    int n = 0;
    std::function<void(const ir::Op&)> walk = [&](const ir::Op& op) {
        for (const auto& r : op.regions())
            for (const auto& b : r->blocks())
                for (const auto& inner : b->ops()) {
                    ++n;
                    walk(*inner);
                }
    };
    for (const auto& op : m.body().ops())
        if (op->name() == "func.func")
            walk(*op);
    return n;
}

/// Every structural invariant: ranges nest, children cover their group, node groups agree.
void verifyStructure(const DataflowGraph& g)
{
    const auto& groups = g.groups();
    QVERIFY(!groups.empty());
    QCOMPARE(groups[0].kind, GroupKind::Module);
    QCOMPARE(groups[0].nodeBegin, 0);
    QCOMPARE(groups[0].nodeEnd, static_cast<int>(g.nodes().size()));
    for (size_t i = 0; i < groups.size(); ++i) {
        const DataflowGroup& gr = groups[i];
        int at = gr.nodeBegin;
        int ops = 0;
        for (ItemRef c : gr.children) {
            if (c.isNode()) {
                QCOMPARE(c.index, at);
                QCOMPARE(g.nodes()[static_cast<size_t>(c.index)].group, static_cast<int>(i));
                ops += g.nodes()[static_cast<size_t>(c.index)].kind == NodeKind::Op;
                ++at;
            } else {
                const DataflowGroup& child = groups[static_cast<size_t>(c.index)];
                QCOMPARE(child.parent, static_cast<int>(i));
                QCOMPARE(child.depth, gr.depth + 1);
                QCOMPARE(child.nodeBegin, at);
                QVERIFY(g.containsGroup(static_cast<int>(i), c.index));
                at = child.nodeEnd;
                ops += child.numOps;
            }
        }
        QCOMPARE(at, gr.nodeEnd);
        QCOMPARE(ops, gr.numOps);
        for (int n = gr.nodeBegin; n < gr.nodeEnd; ++n) {
            const ItemRef c = g.childContaining(static_cast<int>(i), n);
            QVERIFY(c.isNode() ? c.index == n : g.contains(c.index, n));
        }
    }
    for (size_t e = 0; e < g.edges().size(); ++e) {
        const DataflowEdge& edge = g.edges()[e];
        const auto out = g.outEdges(edge.from);
        const auto in = g.inEdges(edge.to);
        QVERIFY(std::find(out.begin(), out.end(), static_cast<int>(e)) != out.end());
        QVERIFY(std::find(in.begin(), in.end(), static_cast<int>(e)) != in.end());
    }
}

} // namespace

class TestDataflowGraph : public QObject {
    Q_OBJECT

private slots:
    void groupsByNameScope()
    {
        Parsed p = parse(kScoped);
        QVERIFY(p.module);
        const DataflowGraph& g = p.graph;
        verifyStructure(g);
        const int main = findGroup(g, "@main");
        QVERIFY(main > 0);
        QCOMPARE(g.groups()[static_cast<size_t>(main)].kind, GroupKind::Function);
        // The prefix every op shares says nothing and is dropped; the rest nests.
        QCOMPARE(QString::fromStdString(g.groups()[static_cast<size_t>(main)].path),
                 QStringLiteral("jit(f)/jit(main)"));
        // Arguments sit with their users: %arg0 in layer_0, the weights in attn and mlp.
        QCOMPARE(childLabels(g, main), (QStringList{"{layer_0}", "{layer_1/mlp}", "return"}));
        const int layer0 = findGroup(g, "layer_0");
        QCOMPARE(childLabels(g, layer0), (QStringList{"%arg0", "{attn}", "%2", "{mlp}"}));
        QCOMPARE(childLabels(g, findGroup(g, "attn")), (QStringList{"%arg1", "%0", "%1"}));
        QCOMPARE(childLabels(g, findGroup(g, "mlp")), (QStringList{"%arg2", "%3", "%4"}));
        QCOMPARE(childLabels(g, findGroup(g, "layer_1/mlp")), (QStringList{"%5", "%6"}));
        QCOMPARE(QString::fromStdString(g.groups()[static_cast<size_t>(findGroup(g, "mlp"))].path),
                 QStringLiteral("jit(f)/jit(main)/layer_0/mlp"));
        QCOMPARE(g.groups()[static_cast<size_t>(layer0)].numOps, 5);
        QCOMPARE(g.numOps(), 8);
    }

    void nodesShowNamesAndOps()
    {
        Parsed p = parse(kScoped);
        const DataflowGraph& g = p.graph;
        const DataflowNode& dot = g.nodes()[static_cast<size_t>(findNode(g, "%0"))];
        QCOMPARE(dot.kind, NodeKind::Op);
        QCOMPARE(std::string(dot.detail), std::string("dot_general"));
        QCOMPARE(std::string(dot.opName), std::string("stablehlo.dot_general"));
        QCOMPARE(QString::fromStdString(g.scopeName(dot.scope)),
                 QStringLiteral("jit(f)/jit(main)/layer_0/attn/dot_general"));
        const DataflowNode& arg = g.nodes()[static_cast<size_t>(findNode(g, "%arg1"))];
        QCOMPARE(arg.kind, NodeKind::Argument);
        QCOMPARE(std::string(arg.detail), std::string("params/w0"));
        const DataflowNode& ret = g.nodes()[static_cast<size_t>(findNode(g, "return"))];
        QVERIFY(ret.terminator);
        // The return stands for the function's result.
        QCOMPARE(QString::fromStdString(p.module->programIds().values()[static_cast<size_t>(ret.value)].name),
                 QStringLiteral("result 0"));
        QCOMPARE(g.nodeOfValue(ret.value), findNode(g, "return"));
        QCOMPARE(g.nodeOfOp(dot.op), findNode(g, "%0"));
        QCOMPARE(g.nodeOfValue(dot.value), findNode(g, "%0"));
    }

    void everySsaUseIsAnEdge()
    {
        Parsed p = parse(kScoped);
        const DataflowGraph& g = p.graph;
        // %0: 2, %1: 1, %2: 2, %3: 2, %4: 1, %5: 2, %6: 2 (%5 twice), return: 1.
        QCOMPARE(g.edges().size(), size_t(13));
        const int n5 = findNode(g, "%5"), n6 = findNode(g, "%6");
        int twice = 0;
        for (const DataflowEdge& e : g.edges())
            if (e.from == n5 && e.to == n6) {
                ++twice;
                QCOMPARE(e.value, g.nodes()[static_cast<size_t>(n5)].value);
            }
        QCOMPARE(twice, 2);
        QCOMPARE(g.commonGroup(findNode(g, "%0"), findNode(g, "%3")), findGroup(g, "layer_0"));
        QCOMPARE(g.commonGroup(findNode(g, "%0"), findNode(g, "%6")), findGroup(g, "@main"));
    }

    void initialShardingsAndAxes()
    {
        Parsed p = parse(kScoped);
        const DataflowGraph& g = p.graph;
        QCOMPARE(g.axisNames(), (std::vector<std::string>{"x", "y"}));
        const DataflowNode& arg0 = g.nodes()[static_cast<size_t>(findNode(g, "%arg0"))];
        const TensorSharding* s = g.initialSharding(arg0.value);
        QVERIFY(s);
        QCOMPARE(QString::fromStdString(s->dims[0].toString()), QStringLiteral("{\"x\"}"));
        QVERIFY(!g.initialSharding(g.nodes()[static_cast<size_t>(findNode(g, "%0"))].value));
    }

    void groupsByRegion()
    {
        // loop_argmax: a two-region while (cond, body) and a two-result reduce with a scalar body.
        Parsed p = parse(readFile(SHARDX_SOURCE_DIR "/samples/loop_argmax.mlir"));
        QVERIFY(p.module);
        const DataflowGraph& g = p.graph;
        verifyStructure(g);
        const int loop = findGroup(g, "%0:2 = while");
        QVERIFY(loop > 0);
        QCOMPARE(g.groups()[static_cast<size_t>(loop)].kind, GroupKind::Region);
        QCOMPARE(childLabels(g, loop), (QStringList{"{cond}", "{body}", "%0:2"}));
        QVERIFY(!g.groups()[static_cast<size_t>(loop)].collapsedByDefault);
        const int cond = g.groups()[static_cast<size_t>(loop)].children[0].index;
        const int body = g.groups()[static_cast<size_t>(loop)].children[1].index;
        QCOMPARE(g.groups()[static_cast<size_t>(cond)].kind, GroupKind::RegionBody);
        // Only used block arguments show; the loop weights (%arg1) sit with their only user. The
        // body's `body` scope echoes its region and is dissolved.
        QCOMPARE(childLabels(g, cond), (QStringList{"%iterArg", "%4", "return"}));
        QCOMPARE(childLabels(g, body),
                 (QStringList{"%iterArg", "%arg1", "%iterArg_2", "%4", "%5", "%6", "%c_3", "%7", "return"}));
        // The op node sits in its group and the region's results flow into it.
        const int whileNode = g.groups()[static_cast<size_t>(loop)].node;
        QCOMPARE(g.nodes()[static_cast<size_t>(whileNode)].name, std::string("%0:2"));
        int yields = 0;
        for (int e : g.inEdges(whileNode))
            yields += g.edges()[static_cast<size_t>(e)].value < 0;
        QCOMPARE(yields, 2);
        // A reducer's scalar body starts collapsed.
        const int reduce = findGroup(g, "%3:2 = reduce");
        QVERIFY(reduce > 0);
        QVERIFY(g.groups()[static_cast<size_t>(reduce)].collapsedByDefault);
        QCOMPARE(g.groups()[static_cast<size_t>(reduce)].numOps, 11); // 9 body ops, its return, the reduce
        const std::vector<char> open = g.defaultExpanded();
        QVERIFY(!open[static_cast<size_t>(reduce)]);
        QVERIFY(open[static_cast<size_t>(loop)]);
    }

    void everyOpOfEverySampleIsANode_data()
    {
        QTest::addColumn<QString>("path");
        for (const std::string& s : samples())
            QTest::addRow("%s", std::filesystem::path(s).filename().string().c_str()) << QString::fromStdString(s);
    }

    void everyOpOfEverySampleIsANode()
    {
        QFETCH(QString, path);
        Parsed p = parse(readFile(path.toStdString()));
        QVERIFY(p.module);
        const DataflowGraph& g = p.graph;
        verifyStructure(g);
        QCOMPARE(g.numOps(), countOps(*p.module));
        const ir::ProgramIds& ids = p.module->programIds();
        std::set<int> ops;
        for (const DataflowNode& n : g.nodes())
            if (n.kind == NodeKind::Op) {
                QVERIFY(n.op >= 0);
                QVERIFY(ops.insert(n.op).second);
                QCOMPARE(std::string(n.opName), ids.ops()[static_cast<size_t>(n.op)].opName);
            }
        // Every function is a group of the module; every use of a value with a node is an edge.
        QVERIFY(findGroup(g, "@main") > 0);
        size_t uses = 0;
        std::function<void(const ir::Op&)> walk = [&](const ir::Op& op) {
            for (const auto& r : op.regions())
                for (const auto& b : r->blocks())
                    for (const auto& inner : b->ops()) {
                        for (const ir::Value* v : inner->operands())
                            uses += g.nodeOfValue(v->programId) >= 0;
                        walk(*inner);
                    }
        };
        for (const auto& op : p.module->body().ops())
            walk(*op);
        size_t ssa = 0;
        for (const DataflowEdge& e : g.edges())
            ssa += e.value >= 0;
        QCOMPARE(ssa, uses);
    }

    void samplesKeepTheirScopes()
    {
        // attention: `jit(attention)/jit(main)/attn` is shared by all and dropped.
        Parsed p = parse(readFile(SHARDX_SOURCE_DIR "/samples/attention.mlir"));
        const DataflowGraph& g = p.graph;
        for (const char* label : {"split_heads", "scores", "softmax", "merge_heads"})
            QVERIFY2(findGroup(g, label) > 0, label);
        QCOMPARE(findGroup(g, "q_proj"), -1); // one op: no group
        QCOMPARE(childLabels(g, findGroup(g, "scores")), (QStringList{"%9", "%cst", "%10", "%11"}));
        QCOMPARE(g.groups()[static_cast<size_t>(findGroup(g, "softmax"))].numOps, 13);
    }

    void largeModulesGetRanges()
    {
        generate::TransformerSpec spec;
        spec.layers = 60;
        spec.hidden = 32;
        spec.heads = 2;
        spec.seq = 8;
        spec.batch = 4;
        auto module = generate::generateTransformer(spec);
        QVERIFY(module.ok());
        io::PrintOptions print;
        print.printDebugInfo = true;
        Parsed p = parse(io::printModule(**module, print));
        QVERIFY(p.module);
        const DataflowGraph& g = p.graph;
        verifyStructure(g);
        int ranges = 0;
        for (const DataflowGroup& gr : g.groups()) {
            int childGroups = 0;
            for (ItemRef c : gr.children)
                childGroups += c.isGroup();
            QVERIFY2(childGroups <= g.options().maxChildren + 2, gr.label.c_str());
            ranges += gr.kind == GroupKind::Range;
        }
        QVERIFY(ranges > 0);
        const int first = findGroup(g, "layer_0 … layer_2");
        QVERIFY(first > 0);
        QCOMPARE(g.groups()[static_cast<size_t>(first)].kind, GroupKind::Range);
        QCOMPARE(childLabels(g, first), (QStringList{"{layer_0}", "{layer_1}", "{layer_2}"}));
        // Large groups start collapsed; what opens by default stays within the budget.
        const std::vector<char> open = g.defaultExpanded();
        QVERIFY(!open[static_cast<size_t>(first)]);
        size_t visible = 0;
        std::function<void(int)> count = [&](int gr) {
            for (ItemRef c : g.groups()[static_cast<size_t>(gr)].children) {
                ++visible;
                if (c.isGroup() && open[static_cast<size_t>(c.index)])
                    count(c.index);
            }
        };
        count(0);
        QVERIFY(visible <= static_cast<size_t>(g.options().visibleBudget));
        // A layer's weights are arguments placed inside the layer.
        const int layer = findGroup(g, "layer_7");
        QVERIFY(layer > 0);
        int args = 0;
        for (int n = g.groups()[static_cast<size_t>(layer)].nodeBegin;
             n < g.groups()[static_cast<size_t>(layer)].nodeEnd; ++n)
            args += g.nodes()[static_cast<size_t>(n)].kind == NodeKind::Argument;
        QVERIFY(args > 0);
    }

    void search()
    {
        Parsed p = parse(kScoped);
        const DataflowGraph& g = p.graph;
        std::vector<ItemRef> r = g.search("%3");
        QVERIFY(!r.empty());
        QCOMPARE(r.front(), ItemRef::node(findNode(g, "%3")));
        r = g.search("mlp");
        QVERIFY(r.size() >= 2);
        QCOMPARE(r.front(), ItemRef::group(findGroup(g, "mlp")));
        r = g.search("layer_0/mlp");
        QCOMPARE(r.front(), ItemRef::group(findGroup(g, "mlp")));
        r = g.search("tanh");
        QVERIFY(std::find(r.begin(), r.end(), ItemRef::node(findNode(g, "%1"))) != r.end());
        r = g.search("  DOT_general ");
        QCOMPARE(r.size(), size_t(2));
        QVERIFY(g.search("nothing-like-this").empty());
        QVERIFY(g.search("").empty());
        // `%0#1` finds the op printed `%0:2`.
        Parsed loop = parse(readFile(SHARDX_SOURCE_DIR "/samples/loop_argmax.mlir"));
        r = loop.graph.search("%0#1");
        QVERIFY(!r.empty());
        QCOMPARE(loop.graph.nodes()[static_cast<size_t>(r.front().index)].name, std::string("%0:2"));
    }

    void deterministic()
    {
        const std::string text = readFile(SHARDX_SOURCE_DIR "/samples/attention.mlir");
        Parsed a = parse(text), b = parse(text);
        QCOMPARE(a.graph.nodes().size(), b.graph.nodes().size());
        for (size_t i = 0; i < a.graph.nodes().size(); ++i)
            QCOMPARE(a.graph.nodes()[i].name, b.graph.nodes()[i].name);
        for (size_t i = 0; i < a.graph.groups().size(); ++i)
            QCOMPARE(a.graph.groups()[i].label, b.graph.groups()[i].label);
    }
};

QTEST_APPLESS_MAIN(TestDataflowGraph)
#include "tst_dataflowgraph.moc"
