// GraphStyler: restyles the graph's items for the current step (node colours by mesh axes, edge
// labels, the step's propagation highlighted, conflicts marked), touching only what changed.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <memory>
#include <utility>
#include <vector>

#include "core/layout/DataflowGraph.h"

namespace shardx {
struct TensorSharding;
}

namespace shardx::views {

class EdgeItem;
class GraphScene;
class NodeItem;
class SessionContext;
struct GraphTheme;

/// Reads the SessionContext (the cursor's shardings, the trace's steps) and sets the style of
/// the scene's items; never lays anything out. Stepping from `a` to `b` restyles the nodes and
/// edges of the values the steps between them changed, the previous and the new step's
/// highlights, and the ops whose first conflict lies between them: a handful of items per
/// step whatever the size of the graph. Long jumps restyle every item (bounded by what shows).
class GraphStyler {
public:
    GraphStyler(SessionContext& context, GraphScene& scene, const GraphTheme& theme);

    void setGraph(std::shared_ptr<const layout::DataflowGraph> graph);
    /// The step index of each op's first conflict (indexed by op, -1 for none), from the trace.
    void setConflicts(std::vector<int> firstConflictByOp);
    /// Every item, at the context's step (after a new layout, a new trace or a theme change).
    void restyleAll();
    /// The cursor moved from `from` to `to` (steps applied): restyles what changed between them.
    void stepChanged(size_t from, size_t to);

    /// The sharding of `value` shown now: at the cursor, or as the module gives it when no
    /// trace exists yet. nullptr when none.
    const TensorSharding* shardingOf(int value) const;
    /// `[{"x"}, {}]`: the dimensions of `value`'s sharding now, empty when it has none.
    QString shardingText(int value) const;
    /// The mesh axes `value`'s sharding uses, major to minor over its dimensions, each once.
    QStringList axesOf(int value) const;
    /// The step index whose propagation is shown (the last applied), -1 for none.
    int currentStepIndex() const;

    /// Items restyled by the last restyleAll() or stepChanged() (tests and benchmarks).
    size_t lastRestyled() const { return m_lastRestyled; }

private:
    void styleNode(NodeItem* item);
    void styleEdgeLabel(EdgeItem* item);
    /// The graph's value for a trace value (a value a pass inserted stands for its source).
    int graphValue(int traceValue) const;
    void clearStepMarks();
    void markStep();
    bool isOpAtStep(int op) const;

    SessionContext& m_context;
    GraphScene& m_scene;
    const GraphTheme& m_theme;
    std::shared_ptr<const layout::DataflowGraph> m_graph;
    std::vector<int> m_firstConflict;
    std::vector<std::pair<int, int>> m_conflictOrder; ///< (first conflict step, op), sorted
    /// What the current step marks, to clear it at the next one.
    QList<EdgeItem*> m_highlighted;
    std::vector<int> m_changedNodes;
    int m_stepNode = -1;
    bool m_stepConflict = false;
    size_t m_lastRestyled = 0;
    QList<EdgeItem*> m_changedLabels; ///< labels whose text changed since they were placed
};

} // namespace shardx::views
