// DataflowLayouter and flatten(): aggregated edges, ports, clusters and frames, connectors, the
// cache, and layouts of samples/ and a generated 10k-op module (relations, not coordinates).
#include <QtTest>

#include <QElapsedTimer>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>

#include "core/generate/ModelGenerator.h"
#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/layout/DataflowLayouter.h"
#include "core/layout/FlatLayout.h"

using namespace shardx;
using namespace shardx::layout;

namespace {

// Two scopes, three uses from a to b:
//   a { %arg0 -> %0 neg -> %1 tanh }      b { %2 = add %0, %1 ; %3 = mul %2, %1 }    return %3
const char* kTwoGroups = R"(func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8xf32> loc("jit(f)/jit(main)/a/neg")
  %1 = stablehlo.tanh %0 : tensor<8xf32> loc("jit(f)/jit(main)/a/tanh")
  %2 = stablehlo.add %0, %1 : tensor<8xf32> loc("jit(f)/jit(main)/b/add")
  %3 = stablehlo.multiply %2, %1 : tensor<8xf32> loc("jit(f)/jit(main)/b/mul")
  return %3 : tensor<8xf32>
}
)";

struct Fixture {
    std::unique_ptr<ir::Module> module;
    std::shared_ptr<const DataflowGraph> graph;
};

Fixture load(const std::string& text)
{
    DiagnosticList diags;
    Fixture f;
    f.module = io::parseMlir(text, "test.mlir", diags);
    if (f.module)
        f.graph = std::make_shared<const DataflowGraph>(DataflowGraph::build(*f.module, f.module->programIds()));
    return f;
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

int findGroup(const DataflowGraph& g, const std::string& label)
{
    for (size_t i = 0; i < g.groups().size(); ++i)
        if (g.groups()[i].label == label)
            return static_cast<int>(i);
    return -1;
}

int itemOf(const GroupLayout& l, ItemRef ref)
{
    for (size_t i = 0; i < l.items.size(); ++i)
        if (l.items[i].ref == ref)
            return static_cast<int>(i);
    return -1;
}

ExpandedSet allExpanded(const DataflowGraph& g) { return ExpandedSet(g.groups().size(), 1); }

/// Items of one parent never overlap; clusters and frames hold their children; edges between
/// items run downwards (the graphs here are acyclic).
void verifyFlat(const FlatLayout& flat)
{
    const Rect all{0, 0, flat.size.width, flat.size.height};
    for (size_t i = 0; i < flat.items.size(); ++i) {
        const FlatItem& a = flat.items[i];
        if (a.parent < 0)
            QVERIFY(all.contains(a.rect, 1));
        else
            QVERIFY2(flat.items[static_cast<size_t>(a.parent)].rect.contains(a.rect, 1),
                     "a child sticks out of its group");
        for (size_t j = i + 1; j < flat.items.size(); ++j)
            if (flat.items[j].parent == a.parent)
                QVERIFY2(!a.rect.overlaps(flat.items[j].rect, 0.5), "two items overlap");
    }
    for (const FlatEdge& e : flat.edges) {
        QVERIFY(!e.splines.empty());
        if (e.connector || e.from < 0 || e.to < 0)
            continue;
        const FlatItem& from = flat.items[static_cast<size_t>(e.from)];
        const FlatItem& to = flat.items[static_cast<size_t>(e.to)];
        QVERIFY2(to.rect.top() >= from.rect.bottom() - 1, qPrintable(QStringLiteral("an edge goes up: %1 %2 -> %3 %4")
                                                                         .arg(from.ref.isNode() ? "node" : "group")
                                                                         .arg(from.ref.index)
                                                                         .arg(to.ref.isNode() ? "node" : "group")
                                                                         .arg(to.ref.index)));
    }
}

} // namespace

class TestDataflowLayouter : public QObject {
    Q_OBJECT

private slots:
    void usesBetweenCollapsedGroupsAreOneEdge()
    {
        Fixture f = load(kTwoGroups);
        QVERIFY(f.graph);
        const DataflowGraph& g = *f.graph;
        const int a = findGroup(g, "a"), b = findGroup(g, "b");
        QVERIFY(a > 0 && b > 0);
        DataflowLayouter layouter(f.graph);
        ExpandedSet open = g.defaultExpanded();
        open[static_cast<size_t>(a)] = 0;
        open[static_cast<size_t>(b)] = 0;
        auto l = layouter.layout(0, open);
        QVERIFY2(l.ok(), l ? "" : l.error().message.c_str());
        const GroupLayout& root = **l;
        const int ia = itemOf(root, ItemRef::group(a)), ib = itemOf(root, ItemRef::group(b));
        QCOMPARE(root.items[static_cast<size_t>(ia)].shape, ItemShape::CollapsedGroup);
        int between = 0;
        for (const PlacedEdge& e : root.edges)
            if (e.from == ia && e.to == ib) {
                ++between;
                QCOMPARE(e.edges.size(), size_t(3)); // %0 -> %2, %1 -> %2, %1 -> %3
                for (int d : e.edges) {
                    QVERIFY(g.contains(a, g.edges()[static_cast<size_t>(d)].from));
                    QVERIFY(g.contains(b, g.edges()[static_cast<size_t>(d)].to));
                }
            }
        QCOMPARE(between, 1);
        QVERIFY(root.ports.empty()); // nothing outside the module
        // The function is drawn inline, as a cluster around its children.
        const int main = itemOf(root, ItemRef::group(findGroup(g, "@main")));
        QCOMPARE(root.items[static_cast<size_t>(main)].shape, ItemShape::Cluster);
        QCOMPARE(root.items[static_cast<size_t>(ia)].parent, main);
        QVERIFY(root.items[static_cast<size_t>(main)].rect.contains(root.items[static_cast<size_t>(ia)].rect));
        QVERIFY(root.items[static_cast<size_t>(ib)].rect.top() > root.items[static_cast<size_t>(ia)].rect.bottom());
    }

    void crossingUsesGoThroughPorts()
    {
        Fixture f = load(kTwoGroups);
        const DataflowGraph& g = *f.graph;
        const int a = findGroup(g, "a"), b = findGroup(g, "b");
        DataflowLayouter layouter(f.graph);
        auto la = layouter.layout(a, allExpanded(g));
        QVERIFY(la.ok());
        // a feeds b through one out-port keyed by b; nothing comes in (%arg0 sits inside a).
        QCOMPARE((*la)->ports.size(), size_t(1));
        QVERIFY(!(*la)->ports[0].in);
        QCOMPARE((*la)->ports[0].key, ItemRef::group(b));
        size_t carried = 0;
        for (const PlacedEdge& e : (*la)->edges)
            if (e.to == -1) {
                carried += e.edges.size();
                QVERIFY(!e.arrowhead);
            }
        QCOMPARE(carried, size_t(3));
        // b: one in-port (from a), one out-port (to the return, an item of @main).
        auto lb = layouter.layout(b, allExpanded(g));
        QVERIFY(lb.ok());
        QCOMPARE((*lb)->ports.size(), size_t(2));
        int ins = 0;
        for (const PlacedPort& p : (*lb)->ports) {
            ins += p.in;
            if (p.in)
                QCOMPARE(p.key, ItemRef::group(a));
            else
                QVERIFY(p.key.isNode() && g.nodes()[static_cast<size_t>(p.key.index)].terminator);
        }
        QCOMPARE(ins, 1);
        // In-ports sit above every item, out-ports below.
        for (const PlacedPort& p : (*lb)->ports)
            for (const PlacedItem& it : (*lb)->items)
                QVERIFY(p.in ? p.position.y < it.rect.top() : p.position.y > it.rect.bottom());
    }

    void framesAndConnectors()
    {
        Fixture f = load(kTwoGroups);
        const DataflowGraph& g = *f.graph;
        const int a = findGroup(g, "a"), b = findGroup(g, "b"), main = findGroup(g, "@main");
        LayoutMetrics metrics;
        metrics.inlineBudget = 1; // every expanded group is laid out on its own
        DataflowLayouter layouter(f.graph, metrics);
        auto l = layouter.layout(0, allExpanded(g));
        QVERIFY(l.ok());
        QCOMPARE((*l)->items.size(), size_t(1));
        QCOMPARE((*l)->items[0].shape, ItemShape::Frame);
        const GroupLayout& inner = *(*l)->items[0].inner;
        QCOMPARE(inner.group, main);
        QCOMPARE(inner.items[static_cast<size_t>(itemOf(inner, ItemRef::group(a)))].shape, ItemShape::Frame);
        const FlatLayout flat = flatten(**l, layouter.frameOffset());
        verifyFlat(flat);
        // Every node of the graph is drawn once.
        int nodes = 0;
        for (const FlatItem& it : flat.items)
            nodes += it.shape == ItemShape::Node;
        QCOMPARE(nodes, static_cast<int>(g.nodes().size()));
        // Connectors: out of a (3 uses), into b (3 uses), out of b to the return (1 use); each
        // starts or ends where the edge it continues ends or starts.
        int connectors = 0;
        size_t carried = 0;
        for (const FlatEdge& c : flat.edges) {
            if (!c.connector)
                continue;
            ++connectors;
            carried += c.edges.size();
            const Point from = c.splines.front().points.front();
            const Point to = c.splines.back().points.back();
            bool joined = false;
            for (const FlatEdge& e : flat.edges) {
                if (e.connector || e.splines.empty())
                    continue;
                const Point s = e.splines.front().points.front();
                const Point t = e.splines.back().points.back();
                auto near = [](Point p, Point q) { return std::abs(p.x - q.x) < 0.01 && std::abs(p.y - q.y) < 0.01; };
                joined |= near(from, t) || near(to, s);
            }
            QVERIFY2(joined, "a connector is not attached to the edge it continues");
        }
        QCOMPARE(connectors, 3);
        QCOMPARE(carried, size_t(7));
        (void)b;
    }

    void cachedPerGroupAndExpandedSet()
    {
        Fixture f = load(readFile(SHARDX_SOURCE_DIR "/samples/attention.mlir"));
        const DataflowGraph& g = *f.graph;
        LayoutMetrics metrics;
        metrics.inlineBudget = 4;
        DataflowLayouter layouter(f.graph, metrics);
        ExpandedSet open = g.defaultExpanded();
        QVERIFY(layouter.layout(0, open).ok());
        const size_t first = layouter.layoutsComputed();
        QVERIFY(first > 1);
        QVERIFY(layouter.layout(0, open).ok());
        QCOMPARE(layouter.layoutsComputed(), first);
        // Collapsing softmax lays out softmax's enclosing groups again (module, @main), nothing else.
        const int softmax = findGroup(g, "softmax");
        open[static_cast<size_t>(softmax)] = 0;
        QVERIFY(layouter.layout(0, open).ok());
        QCOMPARE(layouter.layoutsComputed(), first + 2);
        open[static_cast<size_t>(softmax)] = 1;
        QVERIFY(layouter.layout(0, open).ok());
        QCOMPARE(layouter.layoutsComputed(), first + 2);
    }

    void samplesLayOutCleanly_data()
    {
        QTest::addColumn<QString>("path");
        for (const auto& e : std::filesystem::directory_iterator(SHARDX_SOURCE_DIR "/samples"))
            if (e.path().extension() == ".mlir")
                QTest::addRow("%s", e.path().filename().string().c_str()) << QString::fromStdString(e.path().string());
    }

    void samplesLayOutCleanly()
    {
        QFETCH(QString, path);
        Fixture f = load(readFile(path.toStdString()));
        QVERIFY(f.graph);
        for (int budget : {160, 3}) {
            LayoutMetrics metrics;
            metrics.inlineBudget = budget;
            DataflowLayouter layouter(f.graph, metrics);
            for (const ExpandedSet& open : {f.graph->defaultExpanded(), allExpanded(*f.graph)}) {
                auto l = layouter.layout(0, open);
                QVERIFY2(l.ok(), l ? "" : l.error().message.c_str());
                verifyFlat(flatten(**l, layouter.frameOffset()));
            }
        }
    }

    void deterministic()
    {
        Fixture f = load(readFile(SHARDX_SOURCE_DIR "/samples/loop_argmax.mlir"));
        DataflowLayouter one(f.graph), two(f.graph);
        auto a = one.layout(0, allExpanded(*f.graph));
        auto b = two.layout(0, allExpanded(*f.graph));
        QVERIFY(a.ok() && b.ok());
        const FlatLayout fa = flatten(**a, one.frameOffset()), fb = flatten(**b, two.frameOffset());
        QCOMPARE(fa.items.size(), fb.items.size());
        for (size_t i = 0; i < fa.items.size(); ++i)
            QVERIFY(fa.items[i].rect == fb.items[i].rect);
        QCOMPARE(fa.edges.size(), fb.edges.size());
        for (size_t i = 0; i < fa.edges.size(); ++i)
            QVERIFY(fa.edges[i].splines == fb.edges[i].splines);
    }

    void generatedModuleLaysOutByGroups()
    {
        // ~10k ops: the default view shows ranges of layers; opening one range and everything in
        // it lays out each layer on its own.
        generate::TransformerSpec spec;
        spec.layers = 102;
        spec.hidden = 64;
        spec.heads = 4;
        spec.seq = 16;
        spec.batch = 8;
        auto module = generate::generateTransformer(spec);
        QVERIFY(module.ok());
        io::PrintOptions print;
        print.printDebugInfo = true;
        Fixture f = load(io::printModule(**module, print));
        QVERIFY(f.graph);
        const DataflowGraph& g = *f.graph;
        QVERIFY(g.numOps() > 9000);
        DataflowLayouter layouter(f.graph);
        QElapsedTimer timer;
        timer.start();
        ExpandedSet open = g.defaultExpanded();
        auto l = layouter.layout(0, open);
        QVERIFY(l.ok());
        const FlatLayout flat = flatten(**l, layouter.frameOffset());
        qInfo("default view: %zu items in %lld ms", flat.items.size(), static_cast<long long>(timer.elapsed()));
        QVERIFY(flat.items.size() < 300);
        verifyFlat(flat);
        int range = -1;
        for (size_t i = 0; i < g.groups().size(); ++i)
            if (g.groups()[i].kind == GroupKind::Range) {
                range = static_cast<int>(i);
                break;
            }
        QVERIFY(range > 0);
        for (int gr = range; gr < g.groups()[static_cast<size_t>(range)].groupEnd; ++gr)
            open[static_cast<size_t>(gr)] = 1;
        timer.restart();
        auto expanded = layouter.layout(0, open);
        QVERIFY(expanded.ok());
        const FlatLayout big = flatten(**expanded, layouter.frameOffset());
        qInfo("range of %d ops opened: %zu items in %lld ms", g.groups()[static_cast<size_t>(range)].numOps,
              big.items.size(), static_cast<long long>(timer.elapsed()));
        verifyFlat(big);
        int shownOps = 0;
        for (const FlatItem& it : big.items)
            shownOps += it.shape == ItemShape::Node && g.contains(range, it.ref.index) &&
                        g.nodes()[static_cast<size_t>(it.ref.index)].kind == NodeKind::Op;
        QCOMPARE(shownOps, g.groups()[static_cast<size_t>(range)].numOps);
    }
};

QTEST_APPLESS_MAIN(TestDataflowLayouter)
#include "tst_dataflowlayouter.moc"
