// GraphvizLayouter: LayoutGraph -> cgraph -> dot -> GraphLayout, all under GvWrap's lock.
#include "core/layout/GraphvizLayouter.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "core/layout/GvWrap.h"

namespace shardx::layout {

namespace {

// Graphviz works in points (72 per inch) and takes node sizes in inches; we work in pixels at
// 96 dpi (KDStateMachineEditor's DOT_DEFAULT_DPI / DISPLAY_DPI).
constexpr double kPointsPerInch = 72.0;
constexpr double kPixelsPerInch = 96.0;
constexpr double kPixelsPerPoint = kPixelsPerInch / kPointsPerInch;

double inches(double pixels) { return pixels / kPixelsPerInch; }
double points(double pixels) { return pixels / kPixelsPerPoint; }

bool debugEnabled()
{
    const char* v = std::getenv("SHARDX_DEBUG_GRAPHVIZ");
    return v && *v && std::string(v) != "0";
}

/// Frees the graph when the scope ends (after its layout, which is freed first when made).
struct GraphCloser {
    GVC_t* context = nullptr;
    Agraph_t* graph = nullptr;
    bool laidOut = false;
    ~GraphCloser()
    {
        if (!graph)
            return;
        if (laidOut)
            gvFreeLayout(context, graph); // the same context that made the layout
        agclose(graph);
    }
};

void writeDebugFile(GVC_t* context, Agraph_t* graph, const std::string& name)
{
    static std::atomic<int> counter{0};
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::temp_directory_path(ec) / "shardx-graphviz";
    if (ec)
        return;
    std::filesystem::create_directories(dir, ec);
    std::string safe;
    for (char c : name)
        safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
    const std::string file = (dir / (std::to_string(counter++) + "-" + safe + ".dot")).string();
    gvRenderFilename(context, graph, "dot", file.c_str());
}

} // namespace

Expected<GraphLayout> GraphvizLayouter::layout(const LayoutGraph& graph, const LayoutOptions& options)
{
    for (size_t i = 0; i < graph.clusters.size(); ++i)
        if (graph.clusters[i].parent >= static_cast<int>(i))
            return Error{"cluster " + std::to_string(i) + " is listed before its parent", {}};
    for (const LayoutEdge& e : graph.edges)
        if (e.from < 0 || e.to < 0 || e.from >= static_cast<int>(graph.nodes.size()) ||
            e.to >= static_cast<int>(graph.nodes.size()))
            return Error{"an edge names a node that does not exist", {}};

    GraphLayout result;
    result.nodes.resize(graph.nodes.size());
    result.edges.resize(graph.edges.size());
    result.clusters.resize(graph.clusters.size());
    if (graph.nodes.empty())
        return result;

    gv::Lock lock;
    GraphCloser closer;
    closer.context = lock.context();
    if (!closer.context)
        return Error{"Graphviz has no layout context (is the dot layout plugin installed?)", {}};
    Agraph_t* g = gv::openGraph("shardx");
    if (!g)
        return Error{"Graphviz could not create a graph: " + gv::lastError(), {}};
    closer.graph = g;

    gv::set(g, "rankdir", "TB");
    gv::set(g, "nodesep", gv::number(inches(options.nodeSeparation)));
    gv::set(g, "ranksep", gv::number(inches(options.rankSeparation)));
    gv::set(g, "splines", "spline");
    // Keep the order nodes and edges were given in where ranks allow: a stable, readable order.
    gv::set(g, "ordering", "out");

    // Clusters (parents first, as the graph lists them).
    std::vector<Agraph_t*> clusters(graph.clusters.size(), nullptr);
    for (size_t i = 0; i < graph.clusters.size(); ++i) {
        const LayoutCluster& c = graph.clusters[i];
        Agraph_t* parent = c.parent >= 0 ? clusters[static_cast<size_t>(c.parent)] : g;
        Agraph_t* sub = gv::subgraph(parent, "cluster_" + std::to_string(i));
        clusters[i] = sub;
        gv::set(sub, "margin", gv::number(points(c.padding)));
        if (c.titleHeight > 0) {
            // An empty-looking label reserves the title's height at the top of the box; the
            // viewer draws the real title there. dot makes a label fontsize * 1.2 + 2 points high.
            const double fontSize = std::max(1.0, (points(c.titleHeight) - 2) / 1.2);
            gv::set(sub, "label", " ");
            gv::set(sub, "labelloc", "t");
            gv::set(sub, "fontsize", gv::number(fontSize));
        }
        if (!c.name.empty())
            gv::set(sub, "tooltip", c.name);
    }

    // Nodes: fixed-size boxes without labels (sizes come from the caller, no fonts involved).
    Agraph_t* sources = nullptr;
    Agraph_t* sinks = nullptr;
    std::vector<Agnode_t*> nodes(graph.nodes.size(), nullptr);
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const LayoutNode& n = graph.nodes[i];
        Agraph_t* owner = n.cluster >= 0 && n.cluster < static_cast<int>(clusters.size())
                              ? clusters[static_cast<size_t>(n.cluster)]
                              : g;
        Agnode_t* node = gv::node(owner, "n" + std::to_string(i));
        nodes[i] = node;
        gv::set(node, "shape", "box", "ellipse");
        gv::set(node, "fixedsize", "true", "false");
        gv::set(node, "label", "", "\\N");
        gv::set(node, "width", gv::number(inches(std::max(1.0, n.size.width))), "0.75");
        gv::set(node, "height", gv::number(inches(std::max(1.0, n.size.height))), "0.5");
        if (!n.name.empty())
            gv::set(node, "tooltip", n.name);
        if (n.rank != RankHint::Free) {
            Agraph_t*& rankGraph = n.rank == RankHint::Source ? sources : sinks;
            if (!rankGraph) {
                rankGraph = gv::subgraph(g, n.rank == RankHint::Source ? "ranks_source" : "ranks_sink");
                gv::set(rankGraph, "rank", n.rank == RankHint::Source ? "source" : "sink");
            }
            agsubnode(rankGraph, node, 1);
        }
    }

    std::vector<Agedge_t*> edges(graph.edges.size(), nullptr);
    for (size_t i = 0; i < graph.edges.size(); ++i) {
        const LayoutEdge& e = graph.edges[i];
        Agedge_t* edge = gv::edge(g, nodes[static_cast<size_t>(e.from)], nodes[static_cast<size_t>(e.to)]);
        edges[i] = edge;
        if (e.weight != 1)
            gv::set(edge, "weight", std::to_string(std::max(0, e.weight)), "1");
        if (!e.arrowhead)
            gv::set(edge, "arrowhead", "none", "normal");
    }

    if (gvLayout(closer.context, g, "dot") != 0)
        return Error{"Graphviz dot failed: " + gv::lastError(), {}};
    closer.laidOut = true;
    if (debugEnabled())
        writeDebugFile(closer.context, g, options.debugName);

    // Read everything now; nothing of Graphviz is kept. Points -> pixels, y flipped.
    const boxf bb = GD_bb(g);
    auto toPixels = [&](pointf p) {
        return Point{(p.x - bb.LL.x) * kPixelsPerPoint, (bb.UR.y - p.y) * kPixelsPerPoint};
    };
    result.size = {(bb.UR.x - bb.LL.x) * kPixelsPerPoint, (bb.UR.y - bb.LL.y) * kPixelsPerPoint};
    for (size_t i = 0; i < nodes.size(); ++i) {
        result.nodes[i].centre = toPixels(ND_coord(nodes[i]));
        // The size asked for (dot rounds its own to whole points).
        result.nodes[i].size = {std::max(1.0, graph.nodes[i].size.width), std::max(1.0, graph.nodes[i].size.height)};
    }
    for (size_t i = 0; i < edges.size(); ++i) {
        EdgeGeometry& out = result.edges[i];
        out.from = graph.edges[i].from;
        out.to = graph.edges[i].to;
        const splines* spl = ED_spl(edges[i]);
        if (!spl)
            continue;
        for (int k = 0; k < spl->size; ++k) {
            const bezier& bz = spl->list[k];
            Spline s;
            s.points.reserve(static_cast<size_t>(bz.size));
            for (int j = 0; j < bz.size; ++j)
                s.points.push_back(toPixels(bz.list[j]));
            if (bz.sflag)
                s.tailArrow = toPixels(bz.sp);
            if (bz.eflag)
                s.headArrow = toPixels(bz.ep);
            out.splines.push_back(std::move(s));
        }
    }
    for (size_t i = 0; i < clusters.size(); ++i) {
        const boxf cb = GD_bb(clusters[i]);
        const Point topLeft = toPixels(pointf{cb.LL.x, cb.UR.y});
        result.clusters[i].box = {topLeft.x, topLeft.y, (cb.UR.x - cb.LL.x) * kPixelsPerPoint,
                                  (cb.UR.y - cb.LL.y) * kPixelsPerPoint};
    }
    return result;
}

} // namespace shardx::layout
