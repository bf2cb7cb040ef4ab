// Benchmarks of the desktop app's dataflow graph on generated transformer modules (~10k and ~100k
// ops): open to the first drawn frame, a step, expanding a ~500-op group, panning a 10k-item view.
// Runs offscreen; build with -DSHARDX_BUILD_BENCHMARKS=ON on a Release build.
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QScrollBar>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>
#include <string>

#include "core/generate/ModelGenerator.h"
#include "core/io/MlirPrinter.h"
#include "core/session/Session.h"
#include "views/graph/GraphPanel.h"
#include "views/graph/GraphScene.h"
#include "views/graph/GraphStyler.h"
#include "views/graph/GraphView.h"
#include "views/graph/NodeItem.h"
#include "views/graph/TileItem.h"
#include "views/session/SessionContext.h"

using namespace shardx;
using namespace shardx::views;

namespace {

/// The modules of bench_core: `fsdp+megatron` decoder stacks on a 2x4x4 mesh with locations,
/// about 98 ops per layer (102 layers ~10k ops, 1020 ~100k).
const QString& moduleText(int layers)
{
    static std::map<int, QString> cache;
    auto it = cache.find(layers);
    if (it != cache.end())
        return it->second;
    generate::TransformerSpec spec;
    spec.layers = layers;
    spec.hidden = 256;
    spec.heads = 8;
    spec.seq = 128;
    spec.batch = 16;
    spec.mesh = {{"data", 2}, {"fsdp", 4}, {"tensor", 4}};
    spec.style = generate::ShardingStyle::FsdpMegatron;
    io::PrintOptions print;
    print.printDebugInfo = true;
    return cache.emplace(layers, QString::fromStdString(io::printModule(**generate::generateTransformer(spec), print)))
        .first->second;
}

double seconds(const QElapsedTimer& t) { return static_cast<double>(t.nsecsElapsed()) / 1e9; }

/// CPU seconds the calling thread has used.
double threadCpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

/// The graph's items (nodes, group boxes and frames, edges, edge labels: not the tiles holding
/// them) in the scene, or those whose bounding rectangle meets `rect`, shown or not (far out the
/// tiles paint their items, which are hidden then).
int graphItems(const QGraphicsScene& scene, const QRectF* rect = nullptr)
{
    int n = 0;
    for (const QGraphicsItem* item : scene.items())
        if (item->type() > QGraphicsItem::UserType && item->type() != TileItem::Type &&
            (!rect || rect->intersects(item->sceneBoundingRect())))
            ++n;
    return n;
}

/// The graph's items in `view`'s viewport.
int graphItemsInView(const GraphView& view)
{
    const QRectF shown = view.mapToScene(view.viewport()->rect()).boundingRect();
    return graphItems(*view.scene(), &shown);
}

/// A main window's worth of graph: a context and a shown panel.
struct Window {
    SessionContext context;
    GraphPanel panel{context};
    Window()
    {
        panel.resize(1400, 900);
        panel.show();
        QApplication::processEvents();
    }
    ~Window() { context.cancel(); }
    /// Until no core work is left and the last layout is on screen.
    void settle()
    {
        do {
            context.waitForIdle();
            QApplication::processEvents();
        } while (panel.isLayingOut() || context.isBusy());
    }
    /// Paints the graph's viewport now (what the user sees next).
    void paint() { panel.view()->viewport()->repaint(); }
    int groupNear(int ops) const
    {
        const auto& groups = panel.graph()->groups();
        int best = -1;
        for (size_t g = 1; g < groups.size(); ++g)
            if (best < 0 || std::abs(groups[g].numOps - ops) < std::abs(groups[static_cast<size_t>(best)].numOps - ops))
                best = static_cast<int>(g);
        return best;
    }
};

/// Open to the first drawn frame of the graph (parse, verify, build the graph, lay out the
/// default groups, draw); propagation starts after the graph job and is still running then.
void BM_OpenToFirstFrame(benchmark::State& state)
{
    const QString& text = moduleText(static_cast<int>(state.range(0)));
    int propagating = 0;
    int items = 0;
    int ops = 0;
    double opened = 0;
    double uiCpu = 0;
    for (auto _ : state) {
        auto window = std::make_unique<Window>();
        QElapsedTimer t;
        // An event loop that sleeps between events, as the app's does (a loop of processEvents()
        // would spin and take a core from the worker thread).
        QEventLoop loop;
        QObject::connect(&window->panel, &GraphPanel::layoutShown, &loop, &QEventLoop::quit);
        QObject::connect(&window->context, &SessionContext::opened, [&] { opened += seconds(t); });
        const double cpu0 = threadCpuSeconds();
        t.start();
        window->context.openText(text, QStringLiteral("generated.mlir"));
        loop.exec();
        window->paint();
        state.SetIterationTime(seconds(t));
        uiCpu += threadCpuSeconds() - cpu0;
        propagating += window->context.isBusy();
        items = graphItems(*window->panel.scene());
        ops = window->panel.graph()->numOps();
        window->context.cancel();
        window.reset();
    }
    state.counters["ops"] = ops;
    state.counters["items_drawn"] = items;
    // The part of the time the session's open (parse, verify, names) took: the rest is the graph.
    state.counters["opened_s"] = opened / static_cast<double>(state.iterations());
    // What the UI thread was busy with meanwhile (it answers no input while busy).
    state.counters["ui_cpu_s"] = uiCpu / static_cast<double>(state.iterations());
    state.counters["propagating_at_first_frame"] =
        static_cast<double>(propagating) / static_cast<double>(state.iterations());
}

/// The core-thread part of the first frame after the open: the graph of the module and the layout
/// of the groups open at first (what GraphPanel's build job runs), on a session opened beforehand.
void BM_GraphBuild(benchmark::State& state)
{
    Session session;
    session.openText(moduleText(static_cast<int>(state.range(0))).toStdString(), "generated.mlir");
    double build = 0;
    for (auto _ : state) {
        QElapsedTimer t;
        t.start();
        auto graph = std::make_shared<const layout::DataflowGraph>(
            layout::DataflowGraph::build(*session.module(), *session.ids()));
        build += seconds(t);
        layout::DataflowLayouter layouter(graph);
        auto laid = layouter.layout(0, graph->defaultExpanded());
        if (!laid)
            state.SkipWithError(laid.error().message.c_str());
        else
            benchmark::DoNotOptimize(layout::flatten(**laid, layouter.frameOffset()));
        state.SetIterationTime(seconds(t));
    }
    state.counters["graph_build_s"] = build / static_cast<double>(state.iterations());
}

/// One module opened and propagated, shared by the benchmarks that step or pan.
Window& propagated(int layers, bool expandEverything)
{
    static std::map<std::pair<int, bool>, std::unique_ptr<Window>> windows;
    auto& w = windows[{layers, expandEverything}];
    if (!w) {
        w = std::make_unique<Window>();
        w->context.openText(moduleText(layers), QStringLiteral("generated.mlir"));
        w->settle();
        if (expandEverything) {
            w->panel.expandAll(0);
            w->settle();
        }
    }
    return *w;
}

/// A step forwards or backwards (alternating, around the middle of the trace): the cursor moves,
/// the graph restyles what changed, and the viewport is drawn. range(1): 0 = the default view
/// (collapsed groups), 1 = every group open (every op drawn).
void BM_Step(benchmark::State& state)
{
    Window& w = propagated(static_cast<int>(state.range(0)), state.range(1) != 0);
    const size_t steps = w.context.numSteps();
    const size_t mid = steps / 2;
    w.context.setStep(mid);
    w.settle();
    size_t k = 0;
    size_t restyled = 0;
    double tProc = 0, tPaint = 0, cpuProc = 0, cpuPaint = 0;
    for (auto _ : state) {
        const size_t target = mid + (k % 400 < 200 ? k % 200 : 200 - k % 200); // 200 forwards, 200 back
        ++k;
        QElapsedTimer t;
        const double cpu0 = threadCpuSeconds();
        t.start();
        w.context.setStep(target);
        QApplication::processEvents(); // the coalesced cursor move: stepChanged, restyle
        const double a = seconds(t);
        const double cpu1 = threadCpuSeconds();
        w.paint();
        state.SetIterationTime(seconds(t));
        tProc += a;
        tPaint += seconds(t) - a;
        cpuProc += cpu1 - cpu0;
        cpuPaint += threadCpuSeconds() - cpu1;
        restyled += w.panel.styler()->lastRestyled();
    }
    state.counters["steps"] = static_cast<double>(steps);
    state.counters["items"] = graphItems(*w.panel.scene());
    state.counters["restyled_per_step"] = static_cast<double>(restyled) / static_cast<double>(state.iterations());
    GraphView* view = w.panel.view();
    state.counters["items_in_view"] = graphItemsInView(*view);
    state.counters["zoom"] = view->zoom();
    state.counters["proc_ms"] = tProc * 1000 / state.iterations();
    state.counters["paint_ms"] = tPaint * 1000 / state.iterations();
    // The UI thread's CPU time of each part (wall time on a shared machine includes waiting for a core).
    state.counters["proc_cpu_ms"] = cpuProc * 1000 / state.iterations();
    state.counters["paint_cpu_ms"] = cpuPaint * 1000 / state.iterations();
}

/// Opening a group of about range(1) ops and everything in it: layout on the core thread, the new
/// scene, its first frame. A fresh window each time (no layout cached). The group is the one
/// whose size is nearest (the ~100k-op module groups layers by 2 (194 ops), 12 (1164) and 48).
void BM_ExpandGroup(benchmark::State& state)
{
    const QString& text = moduleText(static_cast<int>(state.range(0)));
    int ops = 0;
    int items = 0;
    for (auto _ : state) {
        auto window = std::make_unique<Window>();
        window->context.openText(text, QStringLiteral("generated.mlir"), {}, false);
        window->settle();
        const int group = window->groupNear(static_cast<int>(state.range(1)));
        const auto& groups = window->panel.graph()->groups();
        ops = groups[static_cast<size_t>(group)].numOps;
        // The groups around it open first (untimed), so that the group shows as a box.
        for (int g = groups[static_cast<size_t>(group)].parent; g > 0; g = groups[static_cast<size_t>(g)].parent)
            if (!window->panel.expanded()[static_cast<size_t>(g)])
                window->panel.setExpanded(g, true);
        window->settle();
        const int itemsBefore = graphItems(*window->panel.scene());
        QElapsedTimer t;
        t.start();
        window->panel.expandAll(group);
        window->settle();
        window->paint();
        state.SetIterationTime(seconds(t));
        items = graphItems(*window->panel.scene()) - itemsBefore;
        window.reset();
    }
    state.counters["group_ops"] = ops;
    state.counters["items_added"] = items;
}

/// Scrolls `w`'s view by 40 px per iteration (down, then right, then back) and repaints.
void panFrames(benchmark::State& state, Window& w)
{
    GraphView* view = w.panel.view();
    int k = 0;
    double cpu = 0;
    for (auto _ : state) {
        QScrollBar* bar = (k / 20) % 2 ? view->horizontalScrollBar() : view->verticalScrollBar();
        const int delta = (k / 40) % 2 ? -40 : 40;
        ++k;
        QElapsedTimer t;
        const double cpu0 = threadCpuSeconds();
        t.start();
        bar->setValue(bar->value() + delta);
        w.paint();
        state.SetIterationTime(seconds(t));
        cpu += threadCpuSeconds() - cpu0;
    }
    state.counters["frame_cpu_ms"] = cpu * 1000 / state.iterations();
    state.counters["items_in_scene"] = graphItems(*w.panel.scene());
    state.counters["items_in_view"] = graphItemsInView(*view);
    state.counters["zoom"] = view->zoom();
}

/// Frame time while panning a view of the ~10k-op module with every group open. range(0): zoom
/// in percent (100: reading size; 5: the whole graph in view, drawn at the lowest level of detail).
void BM_PanFrame(benchmark::State& state)
{
    Window& w = propagated(102, true);
    GraphView* view = w.panel.view();
    view->setZoom(static_cast<double>(state.range(0)) / 100.0);
    // On the middle op (the middle of the scene's bounding box may be empty space between frames).
    const auto& nodes = w.panel.scene()->nodeItems();
    view->centerOn(nodes[nodes.size() / 2]);
    w.paint();
    panFrames(state, w);
}

/// The same with about range(0) items in view: the view is zoomed out (from the middle op) until
/// that many items of the scene intersect it.
void BM_PanFrameItems(benchmark::State& state)
{
    Window& w = propagated(102, true);
    GraphView* view = w.panel.view();
    const auto& nodes = w.panel.scene()->nodeItems();
    const auto inView = [&] { return static_cast<double>(graphItemsInView(*view)); };
    double lo = 0.02, hi = 1.0; // fewer items in view at higher zoom
    for (int i = 0; i < 20; ++i) {
        const double z = std::sqrt(lo * hi);
        view->setZoom(z);
        view->centerOn(nodes[nodes.size() / 2]);
        (inView() > static_cast<double>(state.range(0)) ? lo : hi) = z;
    }
    view->setZoom(hi);
    view->centerOn(nodes[nodes.size() / 2]);
    w.paint();
    panFrames(state, w);
}

} // namespace

BENCHMARK(BM_OpenToFirstFrame)->Arg(102)->Arg(1020)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_GraphBuild)->Arg(102)->Arg(1020)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Step)
    ->Args({102, 0})
    ->Args({102, 1})
    ->Args({1020, 0})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(400);
BENCHMARK(BM_ExpandGroup)
    ->Args({102, 500})
    ->Args({1020, 500})
    ->Args({1020, 1000})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK(BM_PanFrame)->Arg(100)->Arg(5)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(200);
BENCHMARK(BM_PanFrameItems)->Arg(10000)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(200);

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    // Windows kept for the step and pan benchmarks go with the process (no teardown timed).
    std::fflush(nullptr);
    std::_Exit(0);
}
