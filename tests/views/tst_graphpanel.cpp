// GraphPanel through a SessionContext: every op of the samples drawn with its clusters, clicks
// select values, selections reveal nodes, stepping restyles exactly what the trace changed,
// search, expand and collapse, and a generated 10k-op module; the tiles the items live in: a
// step repaints exactly what it restyled, far out a tile paints what its items would, clicks
// find the items of tiles.
#include <QtTest>

#include <QElapsedTimer>
#include <QLineEdit>
#include <QScrollBar>

#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "core/generate/ModelGenerator.h"
#include "core/io/MlirPrinter.h"
#include "core/session/Session.h"
#include "core/trace/Breakpoints.h"
#include "views/graph/ClusterItem.h"
#include "views/graph/EdgeItem.h"
#include "views/graph/GraphLegend.h"
#include "views/graph/GraphMinimap.h"
#include "views/graph/GraphPanel.h"
#include "views/graph/GraphScene.h"
#include "views/graph/GraphStyler.h"
#include "views/graph/GraphView.h"
#include "views/graph/NodeItem.h"
#include "views/graph/TileItem.h"
#include "views/session/SessionContext.h"

using namespace shardx;
using namespace shardx::views;
using layout::DataflowGraph;
using layout::ItemRef;

namespace {

const QString kSamples = QStringLiteral(SHARDX_SOURCE_DIR "/samples/");

/// A context and a shown panel on it.
struct Fixture {
    SessionContext context;
    GraphPanel panel{context};
    Fixture()
    {
        panel.resize(1200, 800);
        panel.show();
    }
    /// Opens `path`, waits for propagation and the first layout.
    bool open(const QString& path)
    {
        context.open(path);
        return settle();
    }
    bool settle()
    {
        context.waitForIdle();
        QElapsedTimer t;
        t.start();
        while ((panel.isLayingOut() || !panel.graph()) && t.elapsed() < 20000) {
            context.waitForIdle();
            QCoreApplication::processEvents();
        }
        return panel.graph() && !panel.isLayingOut();
    }
    const DataflowGraph& graph() const { return *panel.graph(); }
    int node(const std::string& name) const
    {
        for (size_t i = 0; i < graph().nodes().size(); ++i)
            if (graph().nodes()[i].name == name)
                return static_cast<int>(i);
        return -1;
    }
    int group(const std::string& label) const
    {
        for (size_t i = 0; i < graph().groups().size(); ++i)
            if (graph().groups()[i].label == label)
                return static_cast<int>(i);
        return -1;
    }
    /// Every node's style, by node index (hidden nodes left out).
    std::map<int, NodeItem::Style> styles() const
    {
        std::map<int, NodeItem::Style> out;
        for (NodeItem* n : panel.scene()->nodeItems())
            if (n->ref().isNode())
                out[n->ref().index] = n->style();
        return out;
    }
    bool inViewport(QGraphicsItem* item) const
    {
        const QRect shown = panel.view()->viewport()->rect();
        return shown.contains(panel.view()->mapFromScene(item->sceneBoundingRect().center()));
    }
};

/// Collects the regions the graph's viewport repaints.
class PaintRecorder : public QObject {
public:
    explicit PaintRecorder(QWidget* widget) { widget->installEventFilter(this); }
    QRegion region;
    bool eventFilter(QObject*, QEvent* event) override
    {
        if (event->type() == QEvent::Paint)
            region += static_cast<QPaintEvent*>(event)->region();
        return false;
    }
};

/// How an item looks: what a step may change of it.
struct Look {
    NodeItem::Style style;
    bool marked = false;
    EdgeItem::Highlight highlight = EdgeItem::Highlight::None;
    QString label;
    QRectF labelRect;
    bool operator==(const Look& o) const = default;
};

/// `tile`'s rectangle holds `item`'s (to rounding: a tile's rectangle is a union of its items').
bool holds(const TileItem* tile, const QGraphicsItem* item)
{
    return tile->boundingRect().adjusted(-1e-6, -1e-6, 1e-6, 1e-6).contains(item->sceneBoundingRect());
}

std::map<const QGraphicsItem*, Look> looks(const GraphScene& scene)
{
    std::map<const QGraphicsItem*, Look> out;
    for (const NodeItem* n : scene.nodeItems())
        out[n] = Look{n->style(), n->isMarked()};
    for (const EdgeItem* e : scene.edgeItems())
        out[e] = Look{{}, false, e->highlight(), e->label(), e->labelRect()};
    return out;
}

QStringList samplePaths()
{
    QStringList out;
    for (const auto& e : std::filesystem::directory_iterator(SHARDX_SOURCE_DIR "/samples"))
        if (e.path().extension() == ".mlir")
            out << QString::fromStdString(e.path().string());
    out.sort();
    return out;
}

} // namespace

class TestGraphPanel : public QObject {
    Q_OBJECT

private slots:
    void everyOpIsANodeInItsClusters_data()
    {
        QTest::addColumn<QString>("path");
        for (const QString& p : samplePaths())
            QTest::addRow("%s", qPrintable(QFileInfo(p).fileName())) << p;
    }

    void everyOpIsANodeInItsClusters()
    {
        QFETCH(QString, path);
        Fixture f;
        QVERIFY(f.open(path));
        // Open everything: every node of the graph is an item, every group a frame holding its items.
        f.panel.expandAll(0);
        QVERIFY(f.settle());
        const DataflowGraph& g = f.graph();
        GraphScene* scene = f.panel.scene();
        int ops = 0;
        for (size_t n = 0; n < g.nodes().size(); ++n) {
            NodeItem* item = scene->nodeItem(static_cast<int>(n));
            QVERIFY2(item, g.nodes()[n].name.c_str());
            ops += g.nodes()[n].kind == layout::NodeKind::Op;
            for (int a : g.ancestors(ItemRef::node(static_cast<int>(n)))) {
                if (a == 0)
                    continue;
                ClusterItem* frame = scene->cluster(a);
                QVERIFY2(frame, g.groups()[static_cast<size_t>(a)].label.c_str());
                QVERIFY(frame->sceneBoundingRect().contains(item->sceneBoundingRect().adjusted(4, 4, -4, -4)));
            }
        }
        QCOMPARE(ops, g.numOps());
        // ... and every op of the program as read is one of them.
        int programOps = 0;
        std::function<void(const ir::Op&)> walk = [&](const ir::Op& op) {
            for (const auto& r : op.regions())
                for (const auto& b : r->blocks())
                    for (const auto& inner : b->ops()) {
                        ++programOps;
                        QVERIFY(scene->nodeItem(g.nodeOfOp(inner->programId)));
                        walk(*inner);
                    }
        };
        for (const auto& op : f.context.session()->sourceModule()->body().ops())
            if (op->name() == "func.func")
                walk(*op);
        QCOMPARE(programOps, ops);
        QVERIFY(f.group("@main") > 0);
        QCOMPARE(scene->cluster(f.group("@main"))->title(), QStringLiteral("@main"));
    }

    void defaultViewOfAttention()
    {
        Fixture f;
        QVERIFY(f.open(kSamples + "attention.mlir"));
        GraphScene* scene = f.panel.scene();
        // Scope groups open, reducer bodies closed, into boxes that read as their op.
        for (const char* label : {"split_heads", "scores", "softmax", "merge_heads"})
            QVERIFY2(scene->cluster(f.group(label)), label);
        const int reduce = f.group("%12 = reduce");
        QVERIFY(scene->groupBox(reduce));
        QCOMPARE(scene->groupBox(reduce)->title(), QStringLiteral("%12"));
        QVERIFY(!scene->nodeItem(f.node("%12")));
        QCOMPARE(scene->visibleItemFor(f.node("%12")), scene->groupBox(reduce));
        // Edges carry sharding labels at the last step.
        int labelled = 0;
        for (EdgeItem* e : scene->edgeItems())
            labelled += e->label().startsWith('[');
        QVERIFY2(labelled > 10, qPrintable(QStringLiteral("%1 labels, trace %2, busy %3, step %4")
                                               .arg(labelled)
                                               .arg(f.context.session()->trace() != nullptr)
                                               .arg(f.context.isBusy())
                                               .arg(f.context.step())));
        // A placed label is drawn above every edge (so that no edge strikes through its text) and
        // below every node: the topmost item at its centre is the label or a node, never an edge.
        double highestEdge = 0;
        for (EdgeItem* e : scene->edgeItems())
            highestEdge = std::max(highestEdge, e->zValue());
        int placed = 0;
        for (EdgeItem* e : scene->edgeItems()) {
            const QRectF r = e->labelRect();
            if (r.isEmpty())
                continue;
            ++placed;
            // (The tiles holding the items and the tiles' holders are not part of the drawing.)
            QList<QGraphicsItem*> at = scene->items(r.center(), Qt::IntersectsItemBoundingRect, Qt::DescendingOrder);
            at.removeIf([](const QGraphicsItem* item) {
                return item->type() <= TileItem::UserType || item->type() == TileItem::Type;
            });
            QVERIFY(!at.isEmpty());
            QVERIFY2(at.front()->type() != EdgeItem::Type, qPrintable(e->label()));
            auto* label = qgraphicsitem_cast<EdgeLabelItem*>(at.front());
            if (label) {
                QVERIFY(label->zValue() > highestEdge);
                QVERIFY(label->boundingRect().contains(r));
            }
        }
        QVERIFY(placed > 10);
    }

    void clickingANodeSelectsItsValue()
    {
        Fixture f;
        QVERIFY(f.open(kSamples + "attention.mlir"));
        QSignalSpy spy(&f.context, &SessionContext::selectionChanged);
        for (const char* name : {"%9", "%arg1", "%22"}) {
            NodeItem* item = f.panel.scene()->nodeItem(f.node(name));
            QVERIFY(item);
            f.panel.view()->centerOn(item);
            const QPoint at = f.panel.view()->mapFromScene(item->sceneBoundingRect().center());
            QTest::mouseClick(f.panel.view()->viewport(), Qt::LeftButton, {}, at);
            const layout::DataflowNode& n = f.graph().nodes()[static_cast<size_t>(f.node(name))];
            QCOMPARE(f.context.selectedValue(), n.value);
            QVERIFY(item->isMarked());
            QCOMPARE(QString::fromStdString(f.context.session()->ids()->values()[static_cast<size_t>(n.value)].name),
                     QString::fromLatin1(name));
        }
        QCOMPARE(spy.count(), 3);
        // A click on empty space selects nothing new.
        QTest::mouseClick(f.panel.view()->viewport(), Qt::LeftButton, {}, QPoint(3, 3));
        QCOMPARE(spy.count(), 3);
    }

    void selectingAValueRevealsItsNode()
    {
        Fixture f;
        QVERIFY(f.open(kSamples + "attention.mlir"));
        // %24 is the max inside the collapsed %12 reduce; %23 is far down the graph.
        for (const char* name : {"%23", "%24"}) {
            const int node = f.node(name);
            QVERIFY(node >= 0);
            const layout::DataflowNode& n = f.graph().nodes()[static_cast<size_t>(node)];
            f.panel.view()->verticalScrollBar()->setValue(f.panel.view()->verticalScrollBar()->minimum());
            f.context.select(n.value, n.op);
            QVERIFY(f.settle());
            NodeItem* item = f.panel.scene()->nodeItem(node);
            QVERIFY2(item, name);
            QVERIFY(item->isMarked());
            QVERIFY2(f.inViewport(item), name);
        }
    }

    void steppingRestylesExactlyWhatTheTraceChanged()
    {
        Fixture f;
        QVERIFY(f.open(kSamples + "mlp_dp_tp.mlir"));
        f.panel.expandAll(0);
        QVERIFY(f.settle());
        const Session* s = f.context.session();
        QVERIFY(s->trace());
        const Trace& trace = *s->trace();
        const size_t steps = trace.numSteps();
        QVERIFY(steps > 3);
        f.context.setStep(0);
        f.settle();
        std::vector<std::map<int, NodeItem::Style>> seen{f.styles()};
        int colourChanges = 0;
        for (size_t k = 1; k <= steps; ++k) {
            f.context.setStep(k);
            QCoreApplication::processEvents();
            QCOMPARE(f.context.step(), k);
            std::map<int, NodeItem::Style> now = f.styles();
            // Values step k-1 changed, as nodes.
            std::set<int> changed;
            for (const TraceChange& c : trace.steps()[k - 1].changes) {
                int v = c.value;
                if (f.graph().nodeOfValue(v) < 0 && trace.values()[static_cast<size_t>(v)].derivedFrom >= 0)
                    v = trace.values()[static_cast<size_t>(v)].derivedFrom;
                changed.insert(f.graph().nodeOfValue(v));
            }
            for (const auto& [node, style] : now) {
                const NodeItem::Style& before = seen.back().at(node);
                const int value = f.graph().nodes()[static_cast<size_t>(node)].value;
                // A colour changes exactly where the trace changed that value's axes.
                const bool recoloured = style.fills != before.fills;
                const TensorSharding* after = s->shardingAt(value);
                if (recoloured) {
                    ++colourChanges;
                    QVERIFY2(changed.count(node),
                             qPrintable(QStringLiteral("step %1 recoloured node %2").arg(k).arg(node)));
                }
                QStringList axes = f.panel.styler()->axesOf(value);
                QCOMPARE(style.fills.size(), axes.size());
                QCOMPARE(style.hasSharding, after != nullptr);
            }
            QVERIFY2(f.panel.styler()->lastRestyled() < 40, "stepping one step restyled too much");
            seen.push_back(std::move(now));
        }
        QVERIFY(colourChanges > 0);
        // Backwards, every step looks as it did forwards.
        for (size_t k = steps; k-- > 0;) {
            f.context.setStep(k);
            QCoreApplication::processEvents();
            const std::map<int, NodeItem::Style> now = f.styles();
            for (const auto& [node, style] : now)
                QVERIFY2(style.fills == seen[k].at(node).fills,
                         qPrintable(QStringLiteral("step %1 node %2").arg(k).arg(node)));
        }
        // A jump restyles the same as walking there.
        f.context.setStep(steps);
        QCoreApplication::processEvents();
        f.context.setStep(2);
        QCoreApplication::processEvents();
        for (const auto& [node, style] : f.styles())
            QVERIFY(style.fills == seen[2].at(node).fills);
    }

    void theCurrentStepIsMarked()
    {
        Fixture f;
        QVERIFY(f.open(kSamples + "mlp_dp_tp.mlir"));
        const Trace& trace = *f.context.session()->trace();
        for (size_t k = 1; k <= trace.numSteps(); ++k) {
            const int op = trace.steps()[k - 1].op;
            const int node = f.graph().nodeOfOp(op);
            if (node < 0 || !f.panel.scene()->nodeItem(node) || trace.steps()[k - 1].changes.empty())
                continue;
            f.context.setStep(k);
            QCoreApplication::processEvents();
            QVERIFY(f.panel.scene()->nodeItem(node)->style().currentStep);
            int highlighted = 0;
            for (EdgeItem* e : f.panel.scene()->edgeItems())
                highlighted += e->highlight() != EdgeItem::Highlight::None;
            QVERIFY(highlighted > 0);
            int marked = 0;
            for (NodeItem* n : f.panel.scene()->nodeItems())
                marked += n->style().currentStep;
            QCOMPARE(marked, 1);
            return;
        }
        QFAIL("no op step found");
    }

    void conflictsAreMarked()
    {
        Fixture f;
        QVERIFY(f.open(kSamples + "loop_argmax.mlir"));
        f.panel.expandAll(0);
        QVERIFY(f.settle());
        const Trace& trace = *f.context.session()->trace();
        for (size_t k = 0; k < trace.numSteps(); ++k) {
            if (!stepHasConflict(trace, k) || f.graph().nodeOfOp(trace.steps()[k].op) < 0)
                continue;
            const int node = f.graph().nodeOfOp(trace.steps()[k].op);
            f.context.setStep(k + 1);
            QCoreApplication::processEvents();
            QVERIFY(f.panel.scene()->nodeItem(node)->style().conflictNow);
            f.context.setStep(trace.numSteps());
            QCoreApplication::processEvents();
            QVERIFY(f.panel.scene()->nodeItem(node)->style().conflictBefore);
            f.context.setStep(k);
            QCoreApplication::processEvents();
            QVERIFY(!f.panel.scene()->nodeItem(node)->style().conflictNow);
            return;
        }
        QSKIP("the sample has no conflict on an op");
    }

    void searchFindsNamesOpsAndScopes()
    {
        Fixture f;
        QVERIFY(f.open(kSamples + "attention.mlir"));
        // By value name: selects it.
        QVERIFY(f.panel.search(QStringLiteral("%13")) >= 1);
        QCOMPARE(f.context.selectedValue(), f.graph().nodes()[static_cast<size_t>(f.node("%13"))].value);
        // By loc scope: the exp of softmax.
        QVERIFY(f.panel.search(QStringLiteral("softmax/exp")) >= 1);
        QCOMPARE(f.context.selectedValue(), f.graph().nodes()[static_cast<size_t>(f.node("%15"))].value);
        // By op name inside a collapsed reducer: its group opens.
        QVERIFY(f.panel.search(QStringLiteral("maximum")) >= 1);
        QVERIFY(f.settle());
        NodeItem* max = f.panel.scene()->nodeItem(f.node("%24"));
        QVERIFY(max);
        QVERIFY(f.inViewport(max));
        // Enter again: the next match.
        const int dots = f.panel.search(QStringLiteral("dot_general"));
        QCOMPARE(dots, 6);
        const int first = f.context.selectedValue();
        f.panel.search(QStringLiteral("dot_general"));
        QVERIFY(f.context.selectedValue() != first);
        // Typing in the field and pressing Enter does the same.
        f.panel.searchField()->setText(QStringLiteral("%arg4"));
        QTest::keyClick(f.panel.searchField(), Qt::Key_Return);
        QCOMPARE(f.context.selectedValue(), f.graph().nodes()[static_cast<size_t>(f.node("%arg4"))].value);
        QCOMPARE(f.panel.search(QStringLiteral("no such thing")), 0);
    }

    void expandAndCollapse()
    {
        Fixture f;
        QVERIFY(f.open(kSamples + "attention.mlir"));
        GraphScene* scene = f.panel.scene();
        const int reduce = f.group("%16 = reduce");
        NodeItem* box = scene->groupBox(reduce);
        QVERIFY(box);
        // Double-click the box: it opens.
        f.panel.view()->centerOn(box);
        QTest::mouseDClick(f.panel.view()->viewport(), Qt::LeftButton, {},
                           f.panel.view()->mapFromScene(box->sceneBoundingRect().center()));
        QVERIFY(f.settle());
        ClusterItem* frame = scene->cluster(reduce);
        QVERIFY(frame);
        QVERIFY(scene->nodeItem(f.node("%16")));
        QVERIFY(!scene->groupBox(reduce));
        // Its collapse button closes it again.
        f.panel.view()->centerOn(frame);
        const QPointF button = frame->mapToScene(frame->collapseButtonRect().center());
        QTest::mouseClick(f.panel.view()->viewport(), Qt::LeftButton, {}, f.panel.view()->mapFromScene(button));
        QVERIFY(f.settle());
        QVERIFY(scene->groupBox(reduce));
        QVERIFY(!scene->nodeItem(f.node("%16")));
        // Collapsing a scope group turns its ops into one box with their count.
        const int softmax = f.group("softmax");
        f.panel.setExpanded(softmax, false);
        QVERIFY(f.settle());
        QVERIFY(scene->groupBox(softmax));
        QVERIFY(scene->groupBox(softmax)->title() == QStringLiteral("softmax"));
        QVERIFY(!scene->nodeItem(f.node("%15")));
    }

    void itemsLiveInTilesAndAStepRepaintsWhatItRestyled_data()
    {
        QTest::addColumn<double>("zoom");
        QTest::addRow("100%") << 1.0;
        QTest::addRow("far out, tiles paint") << 0.2;
    }

    void itemsLiveInTilesAndAStepRepaintsWhatItRestyled()
    {
        QFETCH(double, zoom);
        Fixture f;
        QVERIFY(f.open(kSamples + "mlp_dp_tp.mlir"));
        GraphScene* scene = f.panel.scene();
        GraphView* view = f.panel.view();
        // The overlays repaint the graph under them on their own schedule.
        f.panel.findChild<GraphMinimap*>()->hide();
        f.panel.findChild<GraphLegend*>()->hide();
        // Zoomed before the items are made: an item hidden since then has no rectangle painted at
        // another zoom, which Qt would repaint once (harmlessly) when the item shows.
        view->setZoom(zoom);
        f.panel.expandAll(0);
        QVERIFY(f.settle());
        view->centerOn(scene->contentRect().center());
        f.context.setStep(0);
        f.settle();

        // Nodes, edges and labels are items of tiles that hold them; the top level is tiles and frames.
        QVERIFY(!scene->tiles().isEmpty());
        for (const NodeItem* n : scene->nodeItems()) {
            const TileItem* tile = TileItem::of(n);
            QVERIFY(tile && tile->layer() == TileItem::Layer::Nodes);
            QVERIFY(holds(tile, n));
            QCOMPARE(tile->isFar(), zoom < lod::kFar);
            QCOMPARE(n->isVisible(), zoom >= lod::kFar);
        }
        for (const EdgeItem* e : scene->edgeItems()) {
            const TileItem* tile = TileItem::of(e);
            QVERIFY(tile && tile->layer() != TileItem::Layer::Nodes && tile->layer() != TileItem::Layer::Labels);
            QVERIFY(holds(tile, e));
        }
        for (const QGraphicsItem* item : scene->items())
            if (!item->parentItem())
                QVERIFY(item->type() == TileItem::Type || item->type() == ClusterItem::Type);

        // Each step repaints the items whose looks it changed (drawn by their tiles far out), and
        // nothing else.
        PaintRecorder painted(view->viewport());
        const QRect shown = view->viewport()->rect();
        const size_t steps = f.context.session()->trace()->numSteps();
        int repaintedSteps = 0, highlights = 0;
        for (size_t k = 1; k <= steps; ++k) {
            const auto before = looks(*scene);
            QRegion expected;
            auto expect = [&](const QRectF& sceneRect) {
                if (!sceneRect.isEmpty())
                    expected += view->mapFromScene(sceneRect).boundingRect().adjusted(-1, -1, 1, 1) & shown;
            };
            painted.region = QRegion();
            f.context.setStep(k);
            for (int i = 0; i < 5; ++i)
                QCoreApplication::processEvents();
            for (const auto& [item, look] : looks(*scene)) {
                const Look& old = before.at(item);
                if (look == old)
                    continue;
                if (look.style != old.style || look.marked != old.marked || look.highlight != old.highlight)
                    expect(item->sceneBoundingRect());
                highlights += look.highlight != old.highlight;
                if (zoom < lod::kLabels)
                    continue; // labels are not drawn
                if (!old.labelRect.isEmpty())
                    expect(old.labelRect.adjusted(-2, -2, 2, 2)); // EdgeLabelItem::boundingRect()
                if (!look.labelRect.isEmpty())
                    expect(look.labelRect.adjusted(-2, -2, 2, 2));
            }
            for (const QRect& r : expected)
                QVERIFY2(painted.region.contains(r),
                         qPrintable(QStringLiteral("step %1: a restyled item was not repainted").arg(k)));
            for (const QRect& r : painted.region)
                QVERIFY2(expected.intersects(r.adjusted(-3, -3, 3, 3)),
                         qPrintable(QStringLiteral("step %1 repainted what it did not restyle").arg(k)));
            repaintedSteps += !painted.region.isEmpty();
        }
        QVERIFY(repaintedSteps > 3);
        QVERIFY(highlights > 0);
    }

    void clickingANodeInsideATileSelectsIt_data()
    {
        QTest::addColumn<double>("zoom");
        QTest::addRow("100%") << 1.0;
        QTest::addRow("far out, tiles paint") << 0.1;
    }

    void clickingANodeInsideATileSelectsIt()
    {
        QFETCH(double, zoom);
        Fixture f;
        QVERIFY(f.open(kSamples + "attention.mlir"));
        f.panel.expandAll(0);
        QVERIFY(f.settle());
        GraphView* view = f.panel.view();
        view->setZoom(zoom);
        for (const char* name : {"%9", "%arg1", "%24"}) {
            NodeItem* item = f.panel.scene()->nodeItem(f.node(name));
            QVERIFY(item);
            const TileItem* tile = TileItem::of(item);
            QVERIFY(tile);
            // Far out the tile draws the node, which is hidden (not found by QGraphicsScene::items()).
            QCOMPARE(tile->isFar(), zoom < lod::kFar);
            QCOMPARE(item->isVisible(), !tile->isFar());
            view->centerOn(item);
            const QPoint at = view->mapFromScene(item->sceneBoundingRect().center());
            QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
            const layout::DataflowNode& n = f.graph().nodes()[static_cast<size_t>(f.node(name))];
            QCOMPARE(f.context.selectedValue(), n.value);
            QVERIFY(item->isMarked());
        }
    }

    void farOutATilePaintsWhatItsItemsWould()
    {
        Fixture f;
        QVERIFY(f.open(kSamples + "mlp_dp_tp.mlir"));
        f.panel.expandAll(0);
        QVERIFY(f.settle());
        GraphScene* scene = f.panel.scene();
        GraphView* view = f.panel.view();
        // A step with highlighted edges and a current op, and a selected node.
        const Trace& trace = *f.context.session()->trace();
        size_t step = 0;
        for (size_t k = 1; k <= trace.numSteps() && !step; ++k)
            if (trace.steps()[k - 1].op >= 0 && !trace.steps()[k - 1].changes.empty())
                step = k;
        QVERIFY(step > 0);
        f.context.setStep(step);
        QCoreApplication::processEvents();
        const int node = f.node("%2");
        f.context.select(f.graph().nodes()[static_cast<size_t>(node)].value, -1);
        QCoreApplication::processEvents();
        QVERIFY(scene->nodeItem(node)->isMarked());
        int highlighted = 0;
        for (const EdgeItem* e : scene->edgeItems())
            highlighted += e->highlight() != EdgeItem::Highlight::None;
        QVERIFY(highlighted > 0);

        view->setZoom(0.15);
        view->centerOn(scene->contentRect().center());
        int far = 0;
        for (const TileItem* tile : scene->tiles())
            far += tile->isFar();
        QCOMPARE(far, static_cast<int>(scene->tiles().size()));
        const QImage tiles = view->viewport()->grab().toImage();
        // The same view with every item painting itself (at the same scale: their far branch).
        scene->setViewScale(1);
        for (const TileItem* tile : scene->tiles())
            QVERIFY(!tile->isFar());
        const QImage items = view->viewport()->grab().toImage();
        QCOMPARE(tiles.size(), items.size());
        int differing = 0, inked = 0;
        const QRgb background = items.pixel(0, 0);
        for (int y = 0; y < items.height(); ++y)
            for (int x = 0; x < items.width(); ++x) {
                differing += tiles.pixel(x, y) != items.pixel(x, y);
                inked += items.pixel(x, y) != background;
            }
        QVERIFY2(inked > 1000, "nothing drawn");
        QVERIFY2(differing == 0, qPrintable(QStringLiteral("%1 pixels differ").arg(differing)));
    }

    void generatedModuleOpensCollapsedAndQuickly()
    {
        generate::TransformerSpec spec;
        spec.layers = 102;
        spec.hidden = 256;
        spec.heads = 8;
        spec.seq = 128;
        spec.batch = 16;
        auto module = generate::generateTransformer(spec);
        QVERIFY(module.ok());
        io::PrintOptions print;
        print.printDebugInfo = true;
        const QString text = QString::fromStdString(io::printModule(**module, print));
        Fixture f;
        QSignalSpy shown(&f.panel, &GraphPanel::layoutShown);
        QElapsedTimer timer;
        timer.start();
        f.context.openText(text, QStringLiteral("generated.mlir"));
        QVERIFY(shown.wait(30000));
        const qint64 firstFrame = timer.elapsed();
        qInfo("~10k ops: first layout shown after %lld ms (propagation still running: %s)",
              static_cast<long long>(firstFrame), f.context.isBusy() ? "yes" : "no");
        QVERIFY(f.graph().numOps() > 9000);
        QVERIFY(f.panel.scene()->nodeItems().size() < 300);
        int boxes = 0;
        for (NodeItem* n : f.panel.scene()->nodeItems())
            boxes += n->kind() == NodeItem::Kind::Group;
        QVERIFY(boxes > 10);
        QVERIFY(firstFrame < 15000);
        // Opening a range of layers lays out only that part.
        QVERIFY(f.settle());
        int range = -1;
        for (size_t g = 0; g < f.graph().groups().size(); ++g)
            if (f.graph().groups()[g].kind == layout::GroupKind::Range) {
                range = static_cast<int>(g);
                break;
            }
        timer.restart();
        f.panel.setExpanded(range, true);
        QVERIFY(f.settle());
        qInfo("range of %d ops opened in %lld ms", f.graph().groups()[static_cast<size_t>(range)].numOps,
              static_cast<long long>(timer.elapsed()));
        QVERIFY(f.panel.scene()->cluster(range));
    }
};

QTEST_MAIN(TestGraphPanel)
#include "tst_graphpanel.moc"
