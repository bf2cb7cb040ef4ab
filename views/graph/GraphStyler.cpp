// GraphStyler: node fills, edge labels, step highlights and conflict marks per step.
#include "views/graph/GraphStyler.h"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "core/session/Session.h"
#include "core/trace/Breakpoints.h"
#include "views/graph/EdgeItem.h"
#include "views/graph/GraphScene.h"
#include "views/graph/GraphTheme.h"
#include "views/graph/NodeItem.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

using namespace layout;

namespace {

/// Beyond this many steps between two positions, restyling every item is cheaper.
constexpr size_t kIncrementalSteps = 4096;
/// A step without an op that changes more values than this marks none of them.
constexpr size_t kMaxMarkedValues = 32;

} // namespace

GraphStyler::GraphStyler(SessionContext& context, GraphScene& scene, const GraphTheme& theme)
    : m_context(context), m_scene(scene), m_theme(theme)
{}

void GraphStyler::setGraph(std::shared_ptr<const DataflowGraph> graph)
{
    m_graph = std::move(graph);
    m_firstConflict.clear();
    m_conflictOrder.clear();
    m_highlighted.clear();
    m_changedNodes.clear();
    m_stepNode = -1;
}

void GraphStyler::setConflicts(std::vector<int> firstConflictByOp)
{
    m_firstConflict = std::move(firstConflictByOp);
    m_conflictOrder.clear();
    for (size_t op = 0; op < m_firstConflict.size(); ++op)
        if (m_firstConflict[op] >= 0)
            m_conflictOrder.push_back({m_firstConflict[op], static_cast<int>(op)});
    std::sort(m_conflictOrder.begin(), m_conflictOrder.end());
}

const TensorSharding* GraphStyler::shardingOf(int value) const
{
    const Session* s = m_context.session();
    if (!s || value < 0)
        return nullptr;
    if (s->trace() && static_cast<size_t>(value) < s->trace()->values().size())
        return s->shardingAt(value);
    return m_graph ? m_graph->initialSharding(value) : nullptr;
}

QString GraphStyler::shardingText(int value) const
{
    const TensorSharding* s = shardingOf(value);
    if (!s)
        return {};
    QString text = QStringLiteral("[");
    for (size_t i = 0; i < s->dims.size(); ++i) {
        if (i)
            text += QStringLiteral(", ");
        text += QString::fromStdString(s->dims[i].toString());
    }
    text += QLatin1Char(']');
    if (!s->unreduced.empty())
        text += QStringLiteral(" unreduced");
    return text;
}

QStringList GraphStyler::axesOf(int value) const
{
    QStringList out;
    const TensorSharding* s = shardingOf(value);
    if (!s)
        return out;
    for (const DimSharding& d : s->dims)
        for (const AxisRef& a : d.axes) {
            const QString name = QString::fromStdString(a.name);
            if (!out.contains(name))
                out << name;
        }
    return out;
}

int GraphStyler::currentStepIndex() const
{
    const Session* s = m_context.session();
    if (!s || !s->trace() || m_context.step() == 0)
        return -1;
    return static_cast<int>(std::min(m_context.step(), s->trace()->numSteps())) - 1;
}

int GraphStyler::graphValue(int traceValue) const
{
    if (!m_graph || traceValue < 0)
        return -1;
    if (m_graph->nodeOfValue(traceValue) >= 0)
        return traceValue;
    const Session* s = m_context.session();
    if (s && s->trace() && static_cast<size_t>(traceValue) < s->trace()->values().size()) {
        const int from = s->trace()->values()[static_cast<size_t>(traceValue)].derivedFrom;
        if (from >= 0 && from != traceValue)
            return graphValue(from);
    }
    return -1;
}

bool GraphStyler::isOpAtStep(int op) const
{
    const int step = currentStepIndex();
    return step >= 0 && op >= 0 && m_context.session()->trace()->steps()[static_cast<size_t>(step)].op == op;
}

void GraphStyler::styleNode(NodeItem* item)
{
    if (!m_graph)
        return;
    ++m_lastRestyled;
    NodeItem::Style style;
    const ItemRef ref = item->ref();
    const int step = currentStepIndex();
    if (ref.isGroup()) {
        // A collapsed box carries the step's marks when the step's op is inside it.
        if (m_stepNode >= 0 && m_graph->contains(ref.index, m_stepNode)) {
            style.currentStep = true;
            style.conflictNow = m_stepConflict;
        }
        item->setStyle(style);
        return;
    }
    const DataflowNode& n = m_graph->nodes()[static_cast<size_t>(ref.index)];
    if (shardingOf(n.value)) {
        style.hasSharding = true;
        for (const QString& axis : axesOf(n.value))
            style.fills << m_theme.axisFill(axis);
    }
    if (n.op >= 0) {
        style.currentStep = ref.index == m_stepNode;
        style.conflictNow = style.currentStep && m_stepConflict;
        const int first =
            static_cast<size_t>(n.op) < m_firstConflict.size() ? m_firstConflict[static_cast<size_t>(n.op)] : -1;
        style.conflictBefore = first >= 0 && first <= step;
    }
    style.changed = std::find(m_changedNodes.begin(), m_changedNodes.end(), ref.index) != m_changedNodes.end();
    item->setStyle(style);
}

void GraphStyler::styleEdgeLabel(EdgeItem* item)
{
    const int value = m_scene.labelValue(item);
    if (value < 0)
        return;
    ++m_lastRestyled;
    if (item->setLabel(shardingText(value)))
        m_changedLabels.push_back(item);
}

void GraphStyler::clearStepMarks()
{
    for (EdgeItem* e : m_highlighted)
        e->setHighlight(EdgeItem::Highlight::None);
    m_highlighted.clear();
    std::vector<int> old = std::move(m_changedNodes);
    m_changedNodes.clear();
    const int oldStep = m_stepNode;
    m_stepNode = -1;
    m_stepConflict = false;
    for (int n : old)
        if (NodeItem* item = m_scene.visibleItemFor(n))
            styleNode(item);
    if (oldStep >= 0)
        if (NodeItem* item = m_scene.visibleItemFor(oldStep))
            styleNode(item);
}

void GraphStyler::markStep()
{
    const int step = currentStepIndex();
    if (step < 0 || !m_graph)
        return;
    const Trace& trace = *m_context.session()->trace();
    const TraceStep& s = trace.steps()[static_cast<size_t>(step)];
    m_stepNode = m_graph->nodeOfOp(s.op);
    m_stepConflict = stepHasConflict(trace, static_cast<size_t>(step));

    // Sources -> targets of the step's changes, as graph values.
    std::unordered_set<int> targets, sources;
    for (const TraceChange& c : s.changes) {
        const int v = graphValue(c.value);
        if (v >= 0)
            targets.insert(v);
        for (const TraceFactorChange& fc : trace.factorChanges(c))
            for (int t : fc.sources)
                if (t >= 0 && static_cast<size_t>(t) < s.tensorValues.size()) {
                    const int sv = graphValue(s.tensorValues[static_cast<size_t>(t)]);
                    if (sv >= 0 && !targets.count(sv))
                        sources.insert(sv);
                }
    }
    // A stage (the pipeline's import or export, a pass without steps) rewrites shardings
    // wholesale: marking everything it touched would mark the whole graph.
    if (s.kind == TraceStepKind::Stage || (m_stepNode < 0 && targets.size() > kMaxMarkedValues))
        return;
    for (int v : targets) {
        const int n = m_graph->nodeOfValue(v);
        if (n >= 0)
            m_changedNodes.push_back(n);
    }
    // Edges along which the step propagated: the uses at its op of the values involved (or, for
    // steps without an op, every use of a changed value).
    auto mark = [&](int edge, EdgeItem::Highlight h) {
        for (EdgeItem* item : m_scene.edgeItemsOf(edge)) {
            if (item->highlight() == EdgeItem::Highlight::Target)
                continue;
            item->setHighlight(h);
            m_highlighted.push_back(item);
        }
    };
    auto consider = [&](int e) {
        const int v = m_graph->edges()[static_cast<size_t>(e)].value;
        if (targets.count(v))
            mark(e, EdgeItem::Highlight::Target);
        else if (sources.count(v))
            mark(e, EdgeItem::Highlight::Source);
    };
    if (m_stepNode >= 0) {
        for (int e : m_graph->inEdges(m_stepNode))
            consider(e);
        for (int e : m_graph->outEdges(m_stepNode))
            consider(e);
    } else {
        for (int v : targets) {
            const int n = m_graph->nodeOfValue(v);
            if (n >= 0)
                for (int e : m_graph->outEdges(n))
                    consider(e);
        }
    }
    for (int n : m_changedNodes)
        if (NodeItem* item = m_scene.visibleItemFor(n))
            styleNode(item);
    if (m_stepNode >= 0)
        if (NodeItem* item = m_scene.visibleItemFor(m_stepNode))
            styleNode(item);
}

void GraphStyler::restyleAll()
{
    m_lastRestyled = 0;
    for (EdgeItem* e : m_highlighted)
        e->setHighlight(EdgeItem::Highlight::None);
    m_highlighted.clear();
    m_changedNodes.clear();
    m_stepNode = -1;
    m_stepConflict = false;
    markStep();
    for (NodeItem* n : m_scene.nodeItems())
        styleNode(n);
    for (EdgeItem* e : m_scene.edgeItems())
        styleEdgeLabel(e);
    m_scene.placeLabels();
    m_changedLabels.clear();
}

void GraphStyler::stepChanged(size_t from, size_t to)
{
    const Session* session = m_context.session();
    if (!m_graph || !session || !session->trace()) {
        restyleAll();
        return;
    }
    const Trace& trace = *session->trace();
    const size_t lo = std::min({from, to, trace.numSteps()});
    const size_t hi = std::min(std::max(from, to), trace.numSteps());
    if (hi - lo > kIncrementalSteps) {
        restyleAll();
        return;
    }
    m_lastRestyled = 0;
    clearStepMarks();
    // Values whose sharding the steps between the two positions changed.
    std::set<int> values;
    for (size_t i = lo; i < hi; ++i)
        for (const TraceChange& c : trace.steps()[i].changes) {
            const int v = graphValue(c.value);
            if (v >= 0)
                values.insert(v);
        }
    for (int v : values) {
        if (NodeItem* item = m_scene.nodeItem(m_graph->nodeOfValue(v)))
            styleNode(item);
        for (EdgeItem* e : m_scene.edgeItemsOfValue(v))
            styleEdgeLabel(e);
    }
    // Ops whose first conflict lies between the two positions gain or lose their mark.
    auto it = std::lower_bound(m_conflictOrder.begin(), m_conflictOrder.end(), std::pair{static_cast<int>(lo), -1});
    for (; it != m_conflictOrder.end() && it->first < static_cast<int>(hi); ++it)
        if (NodeItem* item = m_scene.nodeItem(m_graph->nodeOfOp(it->second)))
            styleNode(item);
    markStep();
    if (!m_changedLabels.isEmpty())
        m_scene.replaceLabels(m_changedLabels);
    m_changedLabels.clear();
}

} // namespace shardx::views
