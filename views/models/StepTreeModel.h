// StepTreeModel: the recorded trace as a tree (pass > stage / user priority / op-priority round >
// run > step > change), filtered, with the cursor and breakpoint hits marked.
#pragma once

#include <cstdint>
#include <vector>

#include <QAbstractItemModel>
#include <QString>

#include "core/trace/Breakpoints.h"
#include "core/trace/Trace.h"

namespace shardx::views {

/// What the step tree shows.
struct StepFilter {
    QString text;               ///< matched in op names, result names, loc scopes, changed values
    bool changesOnly = false;   ///< hide steps that changed nothing
    bool hideSkipped = false;   ///< hide ops visited without a step (constants, terminators, no mesh)
    bool conflictsOnly = false; ///< only steps where tensors disagreed (Breakpoints.h stepHasConflict)
    bool operator==(const StepFilter& o) const = default;
};

class StepTreeModel : public QAbstractItemModel {
    Q_OBJECT

public:
    enum Column { StepColumn = 0, WhatColumn, ChangeColumn, DecisionColumn, ColumnCount };
    enum Role {
        StepIndexRole = Qt::UserRole, ///< int: the step index of a step or change row, -1 for nodes
        NodeIndexRole,                ///< int: the trace node of a node row, -1 otherwise
        OpRole,                       ///< int: the trace op of a step, -1 for none
        ValueRole,                    ///< int: the value of a change row (else the step's first change), -1
        IsCurrentRole,                ///< bool: the step the cursor is after
    };

    explicit StepTreeModel(QObject* parent = nullptr);

    /// Shows `trace` (nullptr: nothing); resets the model.
    void setTrace(const Trace* trace);
    void setFilter(const StepFilter& filter);
    const StepFilter& filter() const { return m_filter; }
    /// The cursor position (steps applied): the step before it is "current", later ones "ahead".
    void setPosition(size_t position);
    void setBreakpoints(const std::vector<Breakpoint>& breakpoints);

    /// The row of step `stepIndex`, invalid when it is filtered out.
    QModelIndex indexOfStep(size_t stepIndex) const;
    /// Steps shown (after the filter).
    size_t visibleSteps() const { return m_visibleSteps; }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    /// A row: a trace node, a step, or a change of a step (kind in the top bits of internalId).
    enum class Kind : quint64 { Node = 1, Step = 2, Change = 3 };
    static quintptr pack(Kind kind, quint64 index) { return static_cast<quintptr>((quint64(kind) << 60) | index); }
    static Kind kindOf(quintptr id) { return static_cast<Kind>(quint64(id) >> 60); }
    static quint64 indexOf(quintptr id) { return quint64(id) & ((quint64(1) << 60) - 1); }
    static quint64 changeId(size_t step, size_t change) { return (quint64(step) << 20) | quint64(change); }

    void rebuild();
    bool stepVisible(size_t stepIndex) const;
    QString stepWhat(const TraceStep& s) const;
    QString stepChange(const TraceStep& s) const;
    QString decisionText(const TraceStep& s, size_t stepIndex) const;
    QString changeText(const TraceChange& c) const;
    bool hitsBreakpoint(size_t stepIndex) const;

    const Trace* m_trace = nullptr;
    StepFilter m_filter;
    size_t m_position = 0;
    std::vector<Breakpoint> m_breakpoints;
    /// Children of each node and of the root (last entry): packed node / step ids, in step order.
    std::vector<std::vector<quintptr>> m_children;
    std::vector<int> m_rowOfNode; ///< row of each node under its parent, -1 when hidden
    std::vector<int> m_rowOfStep; ///< row of each step under its node, -1 when hidden
    size_t m_visibleSteps = 0;
};

} // namespace shardx::views
