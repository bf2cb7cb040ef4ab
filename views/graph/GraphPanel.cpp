// GraphPanel: building and laying out the graph on the core thread, adopting layouts, following
// the cursor and the selection, search, toolbar, context menus and tooltips.
#include "views/graph/GraphPanel.h"

#include <QAction>
#include <QApplication>
#include <QEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QScrollBar>
#include <QToolBar>
#include <QVBoxLayout>

#include "core/session/Session.h"
#include "core/trace/Breakpoints.h"
#include "views/app/Icons.h"
#include "views/graph/ClusterItem.h"
#include "views/graph/GraphLegend.h"
#include "views/graph/GraphMinimap.h"
#include "views/graph/GraphScene.h"
#include "views/graph/GraphStyler.h"
#include "views/graph/GraphView.h"
#include "views/graph/NodeItem.h"
#include "views/session/CoreRunner.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

using namespace layout;

/// What the build job hands back: the graph, its layouter and the first layout.
struct GraphPanel::BuildResult {
    std::shared_ptr<const DataflowGraph> graph;
    std::shared_ptr<DataflowLayouter> layouter;
    ExpandedSet expanded;
    std::shared_ptr<const FlatLayout> flat;
    QString error;
};

struct GraphPanel::LayoutResult {
    std::shared_ptr<const FlatLayout> flat;
    QString error;
};

GraphPanel::GraphPanel(SessionContext& context, QWidget* parent)
    : QWidget(parent), m_context(context), m_theme(GraphTheme::fromPalette(palette(), font()))
{
    m_scene = new GraphScene(&m_theme, this);
    m_canvas = new QWidget(this);
    m_view = new GraphView(m_scene, m_canvas);
    m_view->setBackgroundBrush(m_theme.background);
    m_styler = std::make_unique<GraphStyler>(context, *m_scene, m_theme);
    m_legend = new GraphLegend(&m_theme, m_canvas);
    m_minimap = new GraphMinimap(m_view, &m_theme, m_canvas);
    m_canvas->installEventFilter(this);

    m_toolbar = new QToolBar(this);
    m_toolbar->setIconSize(QSize(16, 16));
    m_toolbar->setToolButtonStyle(Qt::ToolButtonIconOnly);
    QAction* zoomIn =
        m_toolbar->addAction(themedIcon(QStringLiteral("zoom-in")), tr("Zoom In"), m_view, &GraphView::zoomIn);
    zoomIn->setToolTip(tr("Zoom in (+, wheel)"));
    QAction* zoomOut =
        m_toolbar->addAction(themedIcon(QStringLiteral("zoom-out")), tr("Zoom Out"), m_view, &GraphView::zoomOut);
    zoomOut->setToolTip(tr("Zoom out (-, wheel)"));
    QAction* fit = m_toolbar->addAction(themedIcon(QStringLiteral("zoom-fit")), tr("Fit"), m_view, &GraphView::fitAll);
    fit->setToolTip(tr("Fit the graph to the window (0)"));
    m_toolbar->addSeparator();
    QAction* expand =
        m_toolbar->addAction(themedIcon(QStringLiteral("expand")), tr("Open Groups"), this, &GraphPanel::expandVisible);
    expand->setToolTip(tr("Open every collapsed group on screen"));
    QAction* collapse = m_toolbar->addAction(themedIcon(QStringLiteral("collapse")), tr("Reset Groups"), this,
                                             &GraphPanel::resetExpansion);
    collapse->setToolTip(tr("Back to the groups open at first"));
    m_toolbar->addSeparator();
    m_search = new QLineEdit(m_toolbar);
    m_search->setPlaceholderText(tr("Find op, value or scope…"));
    m_search->setClearButtonEnabled(true);
    m_search->addAction(themedIcon(QStringLiteral("search")), QLineEdit::LeadingPosition);
    m_search->setMaximumWidth(260);
    m_search->setToolTip(
        tr("A value (%5, %arg0), an op (dot_general) or a loc scope (layer_3/mlp); Enter: next match"));
    connect(m_search, &QLineEdit::returnPressed, this, [this] { search(m_search->text()); });
    m_toolbar->addWidget(m_search);
    m_status = new QLabel(m_toolbar);
    m_status->setContentsMargins(8, 0, 8, 0);
    m_status->setForegroundRole(QPalette::PlaceholderText);
    auto* spacer = new QWidget(m_toolbar);
    spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_toolbar->addWidget(spacer);
    m_toolbar->addWidget(m_status);
    m_legendAction = m_toolbar->addAction(tr("Legend"));
    m_legendAction->setCheckable(true);
    m_legendAction->setChecked(true);
    m_legendAction->setToolTip(tr("Show what the colours mean"));
    connect(m_legendAction, &QAction::toggled, m_legend, &QWidget::setVisible);
    m_minimapAction = m_toolbar->addAction(tr("Overview"));
    m_minimapAction->setCheckable(true);
    m_minimapAction->setChecked(true);
    m_minimapAction->setToolTip(tr("Show the whole graph in miniature"));
    connect(m_minimapAction, &QAction::toggled, m_minimap, &QWidget::setVisible);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_toolbar);
    layout->addWidget(m_canvas, 1);

    m_view->tooltipProvider = [this](ItemRef item) { return tooltipFor(item); };
    connect(m_view, &GraphView::nodeClicked, this, &GraphPanel::onNodeClicked);
    connect(m_view, &GraphView::groupClicked, this, &GraphPanel::onGroupClicked);
    connect(m_view, &GraphView::groupToggled, this, &GraphPanel::setExpanded);
    connect(m_view, &GraphView::contextMenuAsked, this, &GraphPanel::showContextMenu);

    connect(&m_context, &SessionContext::opened, this, [this] { rebuild(); });
    connect(&m_context, &SessionContext::closed, this, [this] { clear(tr("No program open")); });
    connect(&m_context, &SessionContext::moduleChanged, this, &GraphPanel::onModuleChanged);
    connect(&m_context, &SessionContext::stepChanged, this, &GraphPanel::onStepChanged);
    connect(&m_context, &SessionContext::selectionChanged, this, &GraphPanel::onSelectionChanged);

    if (m_context.session())
        rebuild();
    else
        clear(tr("No program open"));
}

GraphPanel::~GraphPanel() = default;

// ---- building and layout ---------------------------------------------------------------------------

LayoutMetrics GraphPanel::measureMetrics() const
{
    LayoutMetrics m;
    const QFontMetricsF regular(m_theme.nodeFont), bold(m_theme.nodeBoldFont);
    for (int c = 32; c < 127; ++c) {
        m.advance[static_cast<size_t>(c)] = static_cast<float>(regular.horizontalAdvance(QChar(c)));
        m.boldAdvance[static_cast<size_t>(c)] = static_cast<float>(bold.horizontalAdvance(QChar(c)));
    }
    m.otherAdvance = regular.averageCharWidth() * 1.2;
    m.lineHeight = std::max(regular.height(), bold.height());
    m.groupTitleHeight = m_theme.titleHeight;
    return m;
}

void GraphPanel::clear(const QString& message)
{
    ++m_buildGeneration;
    ++m_layoutGeneration;
    ++m_conflictGeneration;
    m_pendingJobs = 0;
    m_scene->clearGraph();
    m_styler->setGraph(nullptr);
    m_graph.reset();
    m_layouter.reset();
    m_expanded.clear();
    m_marked = {};
    m_pendingReveal.reset();
    m_matches.clear();
    m_lastQuery.clear();
    m_firstLayout = true;
    m_legend->setAxes({}, {});
    m_minimap->invalidate(GraphMinimap::Change::Layout);
    setStatus(message);
}

void GraphPanel::rebuild()
{
    clear(QString());
    const Session* session = m_context.session();
    if (!session || !session->module()) {
        setStatus(tr("No program open"));
        return;
    }
    m_theme.titleHeight = QFontMetricsF(m_theme.titleFont).height() + 10;
    const LayoutMetrics metrics = measureMetrics();
    const int generation = m_buildGeneration;
    auto result = std::make_shared<BuildResult>();
    m_pendingJobs = 1;
    setStatus(tr("Building the graph…"));
    // The graph of the program as opened (its structure never changes with propagation or
    // edits), with the first layout in the same job: it runs before propagation starts.
    m_context.postRead(
        QStringLiteral("graph-build"),
        [result, metrics](const Session* s) {
            if (!s || !s->module() || !s->ids())
                return;
            result->graph = std::make_shared<const DataflowGraph>(DataflowGraph::build(*s->module(), *s->ids()));
            result->layouter = std::make_shared<DataflowLayouter>(result->graph, metrics);
            result->expanded = result->graph->defaultExpanded();
            auto laid = result->layouter->layout(0, result->expanded);
            if (laid)
                result->flat = std::make_shared<const FlatLayout>(flatten(**laid, result->layouter->frameOffset()));
            else
                result->error = QString::fromStdString(laid.error().message);
        },
        this,
        [this, generation, result] {
            if (generation != m_buildGeneration)
                return;
            m_pendingJobs = 0;
            adoptBuild(result);
        });
}

void GraphPanel::adoptBuild(const std::shared_ptr<BuildResult>& result)
{
    if (!result->graph) {
        setStatus(tr("No program open"));
        return;
    }
    m_graph = result->graph;
    m_layouter = result->layouter;
    m_expanded = result->expanded;
    m_theme.setAxes(m_graph->axisNames());
    m_legend->setAxes(m_graph->axisNames(), m_graph->axisSizes());
    placeOverlays();
    m_styler->setGraph(m_graph);
    m_lastStep = m_context.step();
    if (!result->flat) {
        setStatus(tr("Layout failed: %1").arg(result->error));
        return;
    }
    adoptLayout(result->flat, -1);
    computeConflicts();
}

void GraphPanel::requestLayout(int anchorGroup)
{
    if (!m_layouter)
        return;
    const int generation = ++m_layoutGeneration;
    ++m_pendingJobs;
    setStatus(tr("Laying out…"));
    auto layouter = m_layouter;
    auto out = std::make_shared<LayoutResult>();
    // Tagged per group: asking again for the same group replaces a request still queued.
    m_context.runner().post(
        QStringLiteral("graph-layout/%1").arg(anchorGroup),
        [layouter, expanded = m_expanded, out] {
            auto laid = layouter->layout(0, expanded);
            if (laid)
                out->flat = std::make_shared<const FlatLayout>(flatten(**laid, layouter->frameOffset()));
            else
                out->error = QString::fromStdString(laid.error().message);
        },
        this,
        [this, generation, out, anchorGroup] {
            if (generation != m_layoutGeneration)
                return; // a newer request is on its way
            m_pendingJobs = 0;
            if (!out->flat) {
                setStatus(tr("Layout failed: %1").arg(out->error));
                return;
            }
            adoptLayout(out->flat, anchorGroup);
        });
}

void GraphPanel::adoptLayout(std::shared_ptr<const FlatLayout> flat, int anchorGroup)
{
    // Keep the group that opened or closed where it was on screen.
    auto anchorItem = [&]() -> QGraphicsItem* {
        if (anchorGroup < 0)
            return nullptr;
        if (NodeItem* box = m_scene->groupBox(anchorGroup))
            return box;
        return m_scene->cluster(anchorGroup);
    };
    std::optional<QPointF> anchorAt;
    if (QGraphicsItem* before = anchorItem())
        anchorAt = m_view->mapFromScene(before->sceneBoundingRect().topLeft());

    m_scene->setLayout(m_graph, std::move(flat));
    m_lastStep = m_context.step();
    m_styler->restyleAll();
    markSelection(m_marked);

    if (m_firstLayout) {
        m_firstLayout = false;
        initialView();
    } else if (QGraphicsItem* after = anchorItem(); after && anchorAt) {
        const QPointF now = m_view->mapFromScene(after->sceneBoundingRect().topLeft());
        m_view->horizontalScrollBar()->setValue(m_view->horizontalScrollBar()->value() +
                                                static_cast<int>(now.x() - anchorAt->x()));
        m_view->verticalScrollBar()->setValue(m_view->verticalScrollBar()->value() +
                                              static_cast<int>(now.y() - anchorAt->y()));
    }
    if (m_pendingReveal) {
        const ItemRef item = *m_pendingReveal;
        m_pendingReveal.reset();
        centreOn(item);
    }
    m_minimap->invalidate(GraphMinimap::Change::Layout);
    int ops = 0;
    for (NodeItem* n : m_scene->nodeItems())
        ops += n->kind() == NodeItem::Kind::Op || n->kind() == NodeItem::Kind::Terminator;
    setStatus(tr("%1 of %2 ops shown").arg(QLocale().toString(ops)).arg(QLocale().toString(m_graph->numOps())));
    emit layoutShown();
}

void GraphPanel::initialView()
{
    // Fit the whole graph when it stays readable; else fit its width and start at the top, where
    // dataflow starts.
    const QRectF r = m_scene->contentRect().adjusted(-20, -20, 20, 20);
    const QRectF v = m_view->viewport()->rect();
    if (r.isEmpty() || v.isEmpty())
        return;
    const double all = std::min(v.width() / r.width(), v.height() / r.height());
    if (all >= 0.6) {
        m_view->fitAll();
        return;
    }
    const double z = std::clamp(v.width() / r.width(), 0.6, 1.0);
    m_view->setZoom(z);
    m_view->centerOn(QPointF(r.center().x(), r.top() + v.height() / z / 2));
}

void GraphPanel::computeConflicts()
{
    const Session* session = m_context.session();
    if (!m_graph || !session || !session->trace()) {
        m_styler->setConflicts({});
        return;
    }
    const int generation = ++m_conflictGeneration;
    auto first = std::make_shared<std::vector<int>>();
    m_context.postRead(
        QStringLiteral("graph-conflicts"),
        [first](const Session* s) {
            if (!s || !s->trace())
                return;
            const Trace& trace = *s->trace();
            first->assign(trace.ops().size(), -1);
            for (size_t i = 0; i < trace.numSteps(); ++i) {
                const int op = trace.steps()[i].op;
                if (op >= 0 && static_cast<size_t>(op) < first->size() && (*first)[static_cast<size_t>(op)] < 0 &&
                    stepHasConflict(trace, i))
                    (*first)[static_cast<size_t>(op)] = static_cast<int>(i);
            }
        },
        this,
        [this, generation, first] {
            if (generation != m_conflictGeneration)
                return;
            m_styler->setConflicts(std::move(*first));
            m_styler->restyleAll();
            m_minimap->invalidate();
        });
}

// ---- following the context ------------------------------------------------------------------------------

void GraphPanel::onModuleChanged()
{
    const Session* session = m_context.session();
    if (!session) {
        clear(tr("No program open"));
        return;
    }
    if (!m_graph) {
        if (m_pendingJobs == 0)
            rebuild(); // opened before this panel existed
        return;
    }
    // Propagation or an edit: the same structure, new shardings and trace.
    m_styler->setConflicts({});
    m_lastStep = m_context.step();
    m_styler->restyleAll();
    m_minimap->invalidate();
    computeConflicts();
}

void GraphPanel::onStepChanged(size_t step)
{
    if (!m_graph) {
        m_lastStep = step;
        return;
    }
    m_styler->stepChanged(m_lastStep, step);
    m_lastStep = step;
    m_minimap->invalidate();
}

void GraphPanel::onSelectionChanged(int value, int op)
{
    if (!m_graph)
        return;
    int node = m_graph->nodeOfValue(value);
    if (node < 0)
        node = m_graph->nodeOfOp(op);
    if (node < 0) {
        markSelection({});
        return;
    }
    markSelection(ItemRef::node(node));
    if (!m_selecting)
        reveal(ItemRef::node(node));
}

void GraphPanel::onNodeClicked(int node)
{
    if (!m_graph)
        return;
    const DataflowNode& n = m_graph->nodes()[static_cast<size_t>(node)];
    markSelection(ItemRef::node(node));
    m_selecting = true;
    m_context.select(n.value, n.op);
    m_selecting = false;
}

void GraphPanel::onGroupClicked(int group)
{
    if (!m_graph)
        return;
    const DataflowGroup& g = m_graph->groups()[static_cast<size_t>(group)];
    if (g.kind == GroupKind::Region && g.node >= 0) {
        onNodeClicked(g.node);
        markSelection(ItemRef::group(group));
        return;
    }
    markSelection(ItemRef::group(group));
}

void GraphPanel::markSelection(ItemRef item)
{
    for (NodeItem* n : m_scene->nodeItems())
        if (n->isMarked())
            n->setMarked(false);
    for (ClusterItem* c : m_scene->clusterItems())
        if (c->isMarked())
            c->setMarked(false);
    m_marked = item;
    if (!m_graph || item.index < 0)
        return;
    if (item.isNode()) {
        if (NodeItem* n = m_scene->visibleItemFor(item.index))
            n->setMarked(true);
    } else if (NodeItem* box = m_scene->groupBox(item.index)) {
        box->setMarked(true);
    } else if (ClusterItem* c = m_scene->cluster(item.index)) {
        c->setMarked(true);
    }
}

bool GraphPanel::centreOn(ItemRef item)
{
    QGraphicsItem* target = nullptr;
    if (item.isNode())
        target = m_scene->nodeItem(item.index);
    else if (item.index >= 0)
        target = m_scene->groupBox(item.index) ? static_cast<QGraphicsItem*>(m_scene->groupBox(item.index))
                                               : static_cast<QGraphicsItem*>(m_scene->cluster(item.index));
    if (!target)
        return false;
    m_view->reveal(target->sceneBoundingRect());
    return true;
}

void GraphPanel::reveal(ItemRef item)
{
    if (!m_graph || item.index < 0)
        return;
    bool opened = false;
    for (int g : m_graph->ancestors(item))
        if (!m_expanded[static_cast<size_t>(g)]) {
            m_expanded[static_cast<size_t>(g)] = 1;
            opened = true;
        }
    if (opened || m_pendingJobs > 0) {
        m_pendingReveal = item;
        if (opened)
            requestLayout(-1);
        return;
    }
    centreOn(item);
}

// ---- expansion -------------------------------------------------------------------------------------------

void GraphPanel::setExpanded(int group, bool expanded)
{
    if (!m_graph || group <= 0 || static_cast<size_t>(group) >= m_expanded.size())
        return;
    if ((m_expanded[static_cast<size_t>(group)] != 0) == expanded)
        return;
    m_expanded[static_cast<size_t>(group)] = expanded ? 1 : 0;
    requestLayout(group);
}

void GraphPanel::expandAll(int group)
{
    if (!m_graph || group < 0 || static_cast<size_t>(group) >= m_expanded.size())
        return;
    for (int g = group; g < m_graph->groups()[static_cast<size_t>(group)].groupEnd; ++g)
        m_expanded[static_cast<size_t>(g)] = 1;
    requestLayout(group);
}

void GraphPanel::expandVisible()
{
    if (!m_graph)
        return;
    bool any = false;
    for (NodeItem* n : m_scene->nodeItems())
        if (n->kind() == NodeItem::Kind::Group) {
            m_expanded[static_cast<size_t>(n->ref().index)] = 1;
            any = true;
        }
    if (any)
        requestLayout(-1);
}

void GraphPanel::resetExpansion()
{
    if (!m_graph)
        return;
    m_expanded = m_graph->defaultExpanded();
    requestLayout(-1);
}

// ---- search --------------------------------------------------------------------------------------------------

int GraphPanel::search(const QString& query)
{
    if (!m_graph)
        return 0;
    if (query != m_lastQuery) {
        m_lastQuery = query;
        m_matchIndex = 0;
        m_matches = m_graph->search(query.toStdString());
        // What the session resolves (ids like `@main:%5`, `result 0`) comes first.
        if (const Session* s = m_context.session()) {
            Expected<int> v = s->findValue(query.toStdString());
            const int node = v ? m_graph->nodeOfValue(*v) : -1;
            if (node >= 0) {
                const ItemRef r = ItemRef::node(node);
                m_matches.erase(std::remove(m_matches.begin(), m_matches.end(), r), m_matches.end());
                m_matches.insert(m_matches.begin(), r);
            }
        }
    } else if (!m_matches.empty()) {
        m_matchIndex = (m_matchIndex + 1) % m_matches.size();
    }
    if (m_matches.empty()) {
        setStatus(tr("No match for “%1”").arg(query));
        return 0;
    }
    const ItemRef item = m_matches[m_matchIndex];
    if (item.isNode()) {
        const DataflowNode& n = m_graph->nodes()[static_cast<size_t>(item.index)];
        m_selecting = true;
        m_context.select(n.value, n.op);
        m_selecting = false;
    }
    markSelection(item);
    reveal(item);
    setStatus(tr("Match %1 of %2").arg(m_matchIndex + 1).arg(m_matches.size()));
    return static_cast<int>(m_matches.size());
}

// ---- menus and tooltips --------------------------------------------------------------------------------------

void GraphPanel::showContextMenu(ItemRef item, const QPoint& globalPos)
{
    if (!m_graph)
        return;
    QMenu menu(this);
    if (item.isGroup() && item.index > 0) {
        const int g = item.index;
        const QString label = QString::fromStdString(m_graph->groups()[static_cast<size_t>(g)].label);
        if (m_scene->groupBox(g))
            menu.addAction(themedIcon(QStringLiteral("expand")), tr("Expand “%1”").arg(label), this,
                           [this, g] { setExpanded(g, true); });
        else
            menu.addAction(themedIcon(QStringLiteral("collapse")), tr("Collapse “%1”").arg(label), this,
                           [this, g] { setExpanded(g, false); });
        menu.addAction(tr("Expand Everything Inside"), this, [this, g] { expandAll(g); });
    } else if (item.isNode() && item.index >= 0) {
        const int node = item.index;
        menu.addAction(tr("Select"), this, [this, node] { onNodeClicked(node); });
        const int parent = m_graph->nodes()[static_cast<size_t>(node)].group;
        if (parent > 0 && m_graph->groups()[static_cast<size_t>(parent)].kind != GroupKind::Function)
            menu.addAction(
                themedIcon(QStringLiteral("collapse")),
                tr("Collapse “%1”").arg(QString::fromStdString(m_graph->groups()[static_cast<size_t>(parent)].label)),
                this, [this, parent] { setExpanded(parent, false); });
    }
    if (!menu.isEmpty())
        menu.addSeparator();
    menu.addAction(themedIcon(QStringLiteral("zoom-fit")), tr("Fit to Window"), m_view, &GraphView::fitAll);
    menu.addAction(themedIcon(QStringLiteral("expand")), tr("Open Groups on Screen"), this, &GraphPanel::expandVisible);
    menu.addAction(themedIcon(QStringLiteral("collapse")), tr("Reset Groups"), this, &GraphPanel::resetExpansion);
    menu.exec(globalPos);
}

QString GraphPanel::tooltipFor(ItemRef item) const
{
    if (!m_graph || item.index < 0)
        return {};
    const Session* s = m_context.session();
    if (item.isGroup()) {
        const DataflowGroup& g = m_graph->groups()[static_cast<size_t>(item.index)];
        QString text =
            QStringLiteral("<b>%1</b><br>%2 · %3 ops")
                .arg(QString::fromStdString(g.label).toHtmlEscaped(), QString::fromLatin1(groupKindName(g.kind)))
                .arg(g.numOps);
        if (!g.path.empty())
            text += QStringLiteral("<br><code>%1</code>").arg(QString::fromStdString(g.path).toHtmlEscaped());
        text += m_scene->groupBox(item.index) ? tr("<br><i>Double-click to expand</i>")
                                              : tr("<br><i>Double-click the title to collapse</i>");
        return text;
    }
    const DataflowNode& n = m_graph->nodes()[static_cast<size_t>(item.index)];
    QString text =
        n.kind == NodeKind::Argument
            ? tr("<b>%1</b> argument").arg(QString::fromStdString(n.name).toHtmlEscaped())
            : QStringLiteral("<b>%1</b> = %2")
                  .arg(QString::fromStdString(n.name).toHtmlEscaped(),
                       QString::fromUtf8(n.opName.data(), static_cast<qsizetype>(n.opName.size())).toHtmlEscaped());
    const std::string& scope = m_graph->scopeName(n.scope);
    if (!scope.empty())
        text += QStringLiteral("<br>loc: <code>%1</code>").arg(QString::fromStdString(scope).toHtmlEscaped());
    if (n.value >= 0) {
        const TensorSharding* sharding = m_styler->shardingOf(n.value);
        QString value = s && s->ids() && static_cast<size_t>(n.value) < s->ids()->values().size()
                            ? QString::fromStdString(s->ids()->values()[static_cast<size_t>(n.value)].name)
                            : QString::fromStdString(n.name);
        text += QStringLiteral("<br>%1: <code>%2</code>")
                    .arg(value.toHtmlEscaped(),
                         sharding ? QString::fromStdString(sharding->toString()).toHtmlEscaped() : tr("no sharding"));
    }
    return text;
}

// ---- looks ----------------------------------------------------------------------------------------------------

void GraphPanel::applyTheme()
{
    const double titleHeight = m_theme.titleHeight;
    m_theme = GraphTheme::fromPalette(palette(), font());
    m_theme.titleHeight = titleHeight;
    if (m_graph)
        m_theme.setAxes(m_graph->axisNames());
    m_view->setBackgroundBrush(m_theme.background);
    m_scene->refreshTheme();
    m_styler->restyleAll();
    m_legend->refresh();
    m_minimap->invalidate();
}

void GraphPanel::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyTheme();
}

bool GraphPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_canvas && event->type() == QEvent::Resize) {
        m_view->setGeometry(m_canvas->rect());
        placeOverlays();
    }
    return QWidget::eventFilter(watched, event);
}

void GraphPanel::placeOverlays()
{
    const QRect area = m_canvas->rect();
    const QSize legend = m_legend->sizeHint();
    const int scrollBarWidth = m_view->verticalScrollBar()->isVisible() ? m_view->verticalScrollBar()->width() : 0;
    m_legend->setGeometry(area.width() - legend.width() - 12 - scrollBarWidth, 12, legend.width(), legend.height());
    const int w = std::clamp(area.width() / 5, 140, 220);
    const int h = std::clamp(area.height() / 4, 100, 170);
    const int scrollBar = m_view->verticalScrollBar()->isVisible() ? m_view->verticalScrollBar()->width() : 0;
    const int hBar = m_view->horizontalScrollBar()->isVisible() ? m_view->horizontalScrollBar()->height() : 0;
    m_minimap->setGeometry(area.width() - w - 12 - scrollBar, area.height() - h - 12 - hBar, w, h);
    m_legend->raise();
    m_minimap->raise();
}

void GraphPanel::setStatus(const QString& text) { m_status->setText(text); }

} // namespace shardx::views
