// GraphvizLayouter: geometric relations of dot layouts (ranks, overlaps, clusters, ports), never
// exact coordinates; determinism, locale independence and concurrent callers.
#include <QtTest>

#include <clocale>
#include <future>
#include <vector>

#include "core/layout/GraphvizLayouter.h"

using namespace shardx;
using namespace shardx::layout;

namespace {

LayoutNode box(double w = 80, double h = 30, int cluster = -1)
{
    LayoutNode n;
    n.size = {w, h};
    n.cluster = cluster;
    return n;
}

LayoutGraph chainWithDiamond()
{
    //    a
    //   / |
    //  b  c
    //   | /
    //    d -> e   (a -> b, a -> c, b -> d, c -> d, d -> e)
    LayoutGraph g;
    for (int i = 0; i < 5; ++i)
        g.nodes.push_back(box(60 + 10 * i, 30));
    g.edges = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}};
    return g;
}

/// A transformer-like DAG: a residual chain with side branches (fan-in 2).
LayoutGraph residualGraph(int blocks)
{
    LayoutGraph g;
    int prev = 0;
    g.nodes.push_back(box());
    for (int b = 0; b < blocks; ++b) {
        const int x = static_cast<int>(g.nodes.size());
        g.nodes.push_back(box(70, 30));
        g.nodes.push_back(box(90, 30));
        g.nodes.push_back(box(60, 30));
        g.edges.push_back({prev, x});
        g.edges.push_back({x, x + 1});
        g.edges.push_back({x + 1, x + 2});
        g.edges.push_back({prev, x + 2});
        prev = x + 2;
    }
    return g;
}

void verifyRanksGoDown(const LayoutGraph& g, const GraphLayout& l)
{
    for (const LayoutEdge& e : g.edges) {
        const NodeGeometry& from = l.nodes[static_cast<size_t>(e.from)];
        const NodeGeometry& to = l.nodes[static_cast<size_t>(e.to)];
        QVERIFY2(to.rect().top() >= from.rect().bottom(),
                 qPrintable(QStringLiteral("edge %1 -> %2 goes up").arg(e.from).arg(e.to)));
    }
}

void verifyNoOverlaps(const GraphLayout& l)
{
    for (size_t i = 0; i < l.nodes.size(); ++i)
        for (size_t j = i + 1; j < l.nodes.size(); ++j)
            QVERIFY2(!l.nodes[i].rect().overlaps(l.nodes[j].rect(), 0.5),
                     qPrintable(QStringLiteral("nodes %1 and %2 overlap").arg(i).arg(j)));
}

} // namespace

class TestGraphvizLayouter : public QObject {
    Q_OBJECT

private slots:
    void emptyGraph()
    {
        Expected<GraphLayout> l = GraphvizLayouter::layout(LayoutGraph{});
        QVERIFY(l.ok());
        QVERIFY(l->nodes.empty());
    }

    void badInputIsAnError()
    {
        LayoutGraph g;
        g.nodes.push_back(box());
        g.edges.push_back({0, 3});
        QVERIFY(!GraphvizLayouter::layout(g).ok());
        LayoutGraph c;
        LayoutCluster child;
        child.parent = 1;
        c.clusters.push_back(child);
        c.clusters.push_back(LayoutCluster{});
        QVERIFY(!GraphvizLayouter::layout(c).ok());
    }

    void ranksGoDownAlongEdges()
    {
        const LayoutGraph g = chainWithDiamond();
        Expected<GraphLayout> l = GraphvizLayouter::layout(g);
        QVERIFY2(l.ok(), l ? "" : l.error().message.c_str());
        verifyRanksGoDown(g, *l);
        // b and c share a rank: horizontally apart, vertically aligned.
        QCOMPARE(l->nodes[1].centre.y, l->nodes[2].centre.y);
        QVERIFY(l->nodes[1].centre.x != l->nodes[2].centre.x);
    }

    void sizesAreKeptAndEverythingIsInside()
    {
        const LayoutGraph g = residualGraph(6);
        Expected<GraphLayout> l = GraphvizLayouter::layout(g);
        QVERIFY(l.ok());
        const Rect all{0, 0, l->size.width, l->size.height};
        for (size_t i = 0; i < g.nodes.size(); ++i) {
            QVERIFY(std::abs(l->nodes[i].size.width - g.nodes[i].size.width) < 0.5);
            QVERIFY(std::abs(l->nodes[i].size.height - g.nodes[i].size.height) < 0.5);
            QVERIFY(all.contains(l->nodes[i].rect(), 0.5));
        }
        verifyRanksGoDown(g, *l);
        verifyNoOverlaps(*l);
    }

    void edgesAreWholeSplinesBetweenTheirNodes()
    {
        const LayoutGraph g = residualGraph(3);
        Expected<GraphLayout> l = GraphvizLayouter::layout(g);
        QVERIFY(l.ok());
        for (size_t i = 0; i < g.edges.size(); ++i) {
            const EdgeGeometry& e = l->edges[i];
            QCOMPARE(e.from, g.edges[i].from);
            QCOMPARE(e.to, g.edges[i].to);
            QVERIFY(!e.splines.empty());
            for (const Spline& s : e.splines)
                QCOMPARE(s.points.size() % 3, size_t(1));
            // The edge leaves its tail's box and reaches its head's (the arrow tip touches it).
            QVERIFY(l->nodes[static_cast<size_t>(e.from)].rect().contains(e.start(), 2));
            QVERIFY(l->nodes[static_cast<size_t>(e.to)].rect().contains(e.end(), 2));
            QVERIFY(e.splines.back().headArrow.has_value());
        }
    }

    void noArrowheadWhenAsked()
    {
        LayoutGraph g = chainWithDiamond();
        g.edges[0].arrowhead = false;
        Expected<GraphLayout> l = GraphvizLayouter::layout(g);
        QVERIFY(l.ok());
        QVERIFY(!l->edges[0].splines.back().headArrow.has_value());
        QVERIFY(l->edges[1].splines.back().headArrow.has_value());
    }

    void clustersContainTheirNodesBelowTheTitle()
    {
        // cluster 0 { a, b, cluster 1 { c, d } }  e
        LayoutGraph g;
        g.clusters.push_back(LayoutCluster{-1, 24, 10, "outer"});
        g.clusters.push_back(LayoutCluster{0, 20, 8, "inner"});
        g.nodes = {box(80, 30, 0), box(80, 30, 0), box(60, 30, 1), box(60, 30, 1), box(70, 30)};
        g.edges = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 4}};
        Expected<GraphLayout> l = GraphvizLayouter::layout(g);
        QVERIFY(l.ok());
        const Rect outer = l->clusters[0].box;
        const Rect inner = l->clusters[1].box;
        QVERIFY(outer.contains(inner));
        for (int n : {0, 1, 2, 3}) {
            const Rect r = l->nodes[static_cast<size_t>(n)].rect();
            QVERIFY(outer.contains(r));
            QVERIFY2(r.top() >= outer.top() + 24 - 1, "a node sits in the outer title bar");
        }
        for (int n : {2, 3}) {
            const Rect r = l->nodes[static_cast<size_t>(n)].rect();
            QVERIFY(inner.contains(r));
            QVERIFY(r.top() >= inner.top() + 20 - 1);
        }
        QVERIFY(!outer.overlaps(l->nodes[4].rect()));
        verifyRanksGoDown(g, *l);
        verifyNoOverlaps(*l);
    }

    void sourceAndSinkRanks()
    {
        LayoutGraph g = residualGraph(2);
        LayoutNode in = box(4, 4);
        in.rank = RankHint::Source;
        LayoutNode out = box(4, 4);
        out.rank = RankHint::Sink;
        const int first = static_cast<int>(g.nodes.size());
        g.nodes.push_back(in);
        g.nodes.push_back(out);
        g.edges.push_back({first, 4});
        g.edges.push_back({3, first + 1});
        Expected<GraphLayout> l = GraphvizLayouter::layout(g);
        QVERIFY(l.ok());
        for (int n = 0; n < first; ++n) {
            QVERIFY(l->nodes[static_cast<size_t>(first)].centre.y < l->nodes[static_cast<size_t>(n)].rect().top());
            QVERIFY(l->nodes[static_cast<size_t>(first + 1)].centre.y >
                    l->nodes[static_cast<size_t>(n)].rect().bottom());
        }
    }

    void deterministic()
    {
        const LayoutGraph g = residualGraph(8);
        Expected<GraphLayout> a = GraphvizLayouter::layout(g);
        Expected<GraphLayout> b = GraphvizLayouter::layout(g);
        QVERIFY(a.ok() && b.ok());
        QVERIFY(*a == *b);
    }

    void numbersDoNotDependOnTheLocale()
    {
        const LayoutGraph g = chainWithDiamond();
        Expected<GraphLayout> reference = GraphvizLayouter::layout(g);
        QVERIFY(reference.ok());
        const std::string previous = std::setlocale(LC_NUMERIC, nullptr);
        const char* comma = nullptr;
        for (const char* name : {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "de_DE"})
            if (std::setlocale(LC_NUMERIC, name)) {
                comma = name;
                break;
            }
        if (!comma)
            QSKIP("no locale with a decimal comma is installed");
        Expected<GraphLayout> l = GraphvizLayouter::layout(g);
        std::setlocale(LC_NUMERIC, previous.c_str());
        QVERIFY(l.ok());
        QVERIFY(*l == *reference);
    }

    void concurrentCallersAreSerialised()
    {
        const LayoutGraph g = residualGraph(10);
        Expected<GraphLayout> reference = GraphvizLayouter::layout(g);
        QVERIFY(reference.ok());
        std::vector<std::future<bool>> runs;
        for (int t = 0; t < 4; ++t)
            runs.push_back(std::async(std::launch::async, [&] {
                for (int k = 0; k < 3; ++k) {
                    Expected<GraphLayout> l = GraphvizLayouter::layout(g);
                    if (!l || !(*l == *reference))
                        return false;
                }
                return true;
            }));
        for (auto& r : runs)
            QVERIFY(r.get());
    }
};

QTEST_APPLESS_MAIN(TestGraphvizLayouter)
#include "tst_graphvizlayouter.moc"
