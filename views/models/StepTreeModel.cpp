// StepTreeModel: the trace tree, its filter, the cursor marks and breakpoint hits.
#include "views/models/StepTreeModel.h"

#include <QApplication>
#include <QFont>
#include <QPalette>

#include "core/trace/Explain.h"
#include "views/app/Icons.h"

namespace shardx::views {

namespace {

QString nodeLabel(const TraceNode& n)
{
    const QString label = QString::fromStdString(n.label);
    switch (n.kind) {
    case TraceNodeKind::Pass: return QObject::tr("pass %1").arg(label);
    case TraceNodeKind::Stage: return QObject::tr("stage %1").arg(label);
    case TraceNodeKind::UserPriority: return QObject::tr("user priority p%1").arg(n.number);
    case TraceNodeKind::OpPriorityRound: return QObject::tr("op-priority round %1").arg(n.number);
    case TraceNodeKind::Run: return QObject::tr("run (%1)").arg(label);
    }
    return label;
}

QString shardingText(const Trace& t, int id)
{
    const TensorSharding* s = t.sharding(id);
    return s ? QString::fromStdString(s->toString()) : QObject::tr("none");
}

} // namespace

StepTreeModel::StepTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

void StepTreeModel::setTrace(const Trace* trace)
{
    beginResetModel();
    m_trace = trace;
    m_position = trace ? std::min(m_position, trace->numSteps()) : 0;
    rebuild();
    endResetModel();
}

void StepTreeModel::setFilter(const StepFilter& filter)
{
    if (filter == m_filter)
        return;
    beginResetModel();
    m_filter = filter;
    rebuild();
    endResetModel();
}

void StepTreeModel::setPosition(size_t position)
{
    const size_t old = m_position;
    m_position = position;
    if (!m_trace || old == position)
        return;
    // Rows between the two positions change colour (applied / ahead) and the current mark moves.
    const size_t lo = std::min(old, position) > 0 ? std::min(old, position) - 1 : 0;
    const size_t hi = std::min(std::max(old, position), m_trace->numSteps());
    if (hi - lo > 2000) {
        // A long jump: one repaint of everything rather than a signal per row.
        emit layoutAboutToBeChanged();
        emit layoutChanged();
        return;
    }
    for (size_t i = lo; i < hi; ++i) {
        const QModelIndex idx = indexOfStep(i);
        if (idx.isValid())
            emit dataChanged(idx, idx.siblingAtColumn(ColumnCount - 1));
    }
}

void StepTreeModel::setBreakpoints(const std::vector<Breakpoint>& breakpoints)
{
    m_breakpoints = breakpoints;
    // Decorations of any row may change; no row moves.
    emit layoutAboutToBeChanged();
    emit layoutChanged();
}

bool StepTreeModel::hitsBreakpoint(size_t stepIndex) const
{
    for (const Breakpoint& b : m_breakpoints)
        if (b.enabled && stepHits(*m_trace, stepIndex, b))
            return true;
    return false;
}

bool StepTreeModel::stepVisible(size_t stepIndex) const
{
    const TraceStep& s = m_trace->steps()[stepIndex];
    if (m_filter.changesOnly && s.changes.empty())
        return false;
    if (m_filter.hideSkipped && s.kind == TraceStepKind::Skipped)
        return false;
    if (m_filter.conflictsOnly && !stepHasConflict(*m_trace, stepIndex))
        return false;
    if (m_filter.text.isEmpty())
        return true;
    const std::string needle = m_filter.text.toLower().toStdString();
    auto has = [&](const std::string& hay) {
        std::string low = hay;
        for (char& c : low)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return low.find(needle) != std::string::npos;
    };
    if (s.op >= 0) {
        const TraceOp& op = m_trace->ops()[static_cast<size_t>(s.op)];
        if (has(op.name) || has(op.displayName) || has(op.id) || has(m_trace->scopeName(op.scope)))
            return true;
    }
    if (has(s.note))
        return true;
    for (const TraceChange& c : s.changes) {
        const TraceValue& v = m_trace->values()[static_cast<size_t>(c.value)];
        if (has(v.displayName) || has(v.id) || has(m_trace->scopeName(v.scope)))
            return true;
    }
    return false;
}

void StepTreeModel::rebuild()
{
    m_children.clear();
    m_rowOfNode.clear();
    m_rowOfStep.clear();
    m_visibleSteps = 0;
    if (!m_trace)
        return;
    const auto& nodes = m_trace->nodes();
    const size_t root = nodes.size();
    m_children.assign(nodes.size() + 1, {});
    m_rowOfNode.assign(nodes.size(), -1);
    m_rowOfStep.assign(m_trace->numSteps(), -1);
    // Which nodes have a visible step below them (children come after parents in the list).
    std::vector<char> nodeVisible(nodes.size(), 0);
    std::vector<char> stepShown(m_trace->numSteps(), 0);
    for (size_t i = 0; i < m_trace->numSteps(); ++i) {
        if (!stepVisible(i))
            continue;
        stepShown[i] = 1;
        ++m_visibleSteps;
        for (int n = m_trace->steps()[i].node; n >= 0 && !nodeVisible[static_cast<size_t>(n)];
             n = nodes[static_cast<size_t>(n)].parent)
            nodeVisible[static_cast<size_t>(n)] = 1;
    }
    // Children in step order: a child node stands where its first step is, before that step.
    std::vector<std::vector<std::pair<size_t, quintptr>>> ordered(nodes.size() + 1);
    for (size_t n = 0; n < nodes.size(); ++n)
        if (nodeVisible[n]) {
            const int p = nodes[n].parent;
            ordered[p < 0 ? root : static_cast<size_t>(p)].push_back(
                {static_cast<size_t>(nodes[n].firstStep) * 2, pack(Kind::Node, n)});
        }
    for (size_t i = 0; i < m_trace->numSteps(); ++i)
        if (stepShown[i]) {
            const int n = m_trace->steps()[i].node;
            ordered[n < 0 ? root : static_cast<size_t>(n)].push_back({i * 2 + 1, pack(Kind::Step, i)});
        }
    for (size_t n = 0; n <= nodes.size(); ++n) {
        std::stable_sort(ordered[n].begin(), ordered[n].end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        m_children[n].reserve(ordered[n].size());
        for (const auto& [key, id] : ordered[n]) {
            const int row = static_cast<int>(m_children[n].size());
            m_children[n].push_back(id);
            if (kindOf(id) == Kind::Node)
                m_rowOfNode[indexOf(id)] = row;
            else
                m_rowOfStep[indexOf(id)] = row;
        }
    }
}

QModelIndex StepTreeModel::indexOfStep(size_t stepIndex) const
{
    if (!m_trace || stepIndex >= m_rowOfStep.size() || m_rowOfStep[stepIndex] < 0)
        return {};
    return createIndex(m_rowOfStep[stepIndex], 0, pack(Kind::Step, stepIndex));
}

QModelIndex StepTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!m_trace || row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid()) {
        const auto& kids = m_children.back();
        return row < static_cast<int>(kids.size()) ? createIndex(row, column, kids[static_cast<size_t>(row)])
                                                   : QModelIndex();
    }
    const quintptr pid = parent.internalId();
    switch (kindOf(pid)) {
    case Kind::Node: {
        const auto& kids = m_children[indexOf(pid)];
        return row < static_cast<int>(kids.size()) ? createIndex(row, column, kids[static_cast<size_t>(row)])
                                                   : QModelIndex();
    }
    case Kind::Step: {
        const size_t step = indexOf(pid);
        if (row >= static_cast<int>(m_trace->steps()[step].changes.size()))
            return {};
        return createIndex(row, column, pack(Kind::Change, changeId(step, static_cast<size_t>(row))));
    }
    case Kind::Change: return {};
    }
    return {};
}

QModelIndex StepTreeModel::parent(const QModelIndex& child) const
{
    if (!m_trace || !child.isValid())
        return {};
    const quintptr id = child.internalId();
    auto nodeIndex = [&](int n) -> QModelIndex {
        if (n < 0)
            return {};
        return createIndex(m_rowOfNode[static_cast<size_t>(n)], 0, pack(Kind::Node, static_cast<quint64>(n)));
    };
    switch (kindOf(id)) {
    case Kind::Node: return nodeIndex(m_trace->nodes()[indexOf(id)].parent);
    case Kind::Step: return nodeIndex(m_trace->steps()[indexOf(id)].node);
    case Kind::Change: return indexOfStep(static_cast<size_t>(indexOf(id) >> 20));
    }
    return {};
}

int StepTreeModel::rowCount(const QModelIndex& parent) const
{
    if (!m_trace)
        return 0;
    if (!parent.isValid())
        return static_cast<int>(m_children.back().size());
    if (parent.column() != 0)
        return 0;
    const quintptr id = parent.internalId();
    switch (kindOf(id)) {
    case Kind::Node: return static_cast<int>(m_children[indexOf(id)].size());
    case Kind::Step: return static_cast<int>(m_trace->steps()[indexOf(id)].changes.size());
    case Kind::Change: return 0;
    }
    return 0;
}

int StepTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant StepTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case StepColumn: return tr("Step");
    case WhatColumn: return tr("Op / value");
    case ChangeColumn: return tr("Sharding");
    case DecisionColumn: return tr("Decision");
    default: return {};
    }
}

QString StepTreeModel::stepWhat(const TraceStep& s) const
{
    if (s.kind == TraceStepKind::Stage)
        return tr("stage %1").arg(QString::fromStdString(s.note));
    if (s.kind == TraceStepKind::FuncResult && !s.tensorValues.empty())
        return tr("func result %1").arg(s.funcResult);
    if (s.op < 0)
        return QString::fromLatin1(traceStepKindName(s.kind));
    const TraceOp& op = m_trace->ops()[static_cast<size_t>(s.op)];
    QString text = QString::fromStdString(op.displayName);
    if (!op.name.empty() && op.displayName != op.name)
        text += QStringLiteral(" = ") + QString::fromStdString(op.name);
    if (s.kind != TraceStepKind::Op)
        text += QStringLiteral("  [%1]").arg(QString::fromLatin1(traceStepKindName(s.kind)));
    return text;
}

QString StepTreeModel::changeText(const TraceChange& c) const
{
    const TraceValue& v = m_trace->values()[static_cast<size_t>(c.value)];
    return QStringLiteral("%1: %2 → %3")
        .arg(QString::fromStdString(v.displayName), shardingText(*m_trace, c.before), shardingText(*m_trace, c.after));
}

QString StepTreeModel::stepChange(const TraceStep& s) const
{
    if (s.changes.empty())
        return s.kind == TraceStepKind::Skipped ? tr("skipped: %1").arg(QString::fromStdString(s.note)) : QString();
    QString text = changeText(s.changes.front());
    if (s.changes.size() > 1)
        text += tr("  (+%1 more)").arg(s.changes.size() - 1);
    return text;
}

QString StepTreeModel::decisionText(const TraceStep& s, size_t stepIndex) const
{
    // The decision kinds of its changes, cut kinds first.
    QStringList kinds;
    for (const TraceChange& c : s.changes) {
        const auto& fcs = m_trace->factorChanges(c);
        if (fcs.empty()) {
            kinds << QString::fromLatin1(decisionKindName(c.kind));
            continue;
        }
        for (const TraceFactorChange& fc : fcs)
            kinds << QString::fromLatin1(decisionKindName(fc.decision.kind));
    }
    kinds.removeDuplicates();
    if (kinds.isEmpty() && stepHasConflict(*m_trace, stepIndex))
        kinds << tr("conflict");
    return kinds.join(QStringLiteral(", "));
}

QVariant StepTreeModel::data(const QModelIndex& index, int role) const
{
    if (!m_trace || !index.isValid())
        return {};
    const quintptr id = index.internalId();
    const Kind kind = kindOf(id);
    if (kind == Kind::Node) {
        const TraceNode& n = m_trace->nodes()[indexOf(id)];
        switch (role) {
        case Qt::DisplayRole:
            if (index.column() == StepColumn)
                return tr("%1   (steps #%2 – #%3)")
                    .arg(nodeLabel(n))
                    .arg(n.firstStep)
                    .arg(std::max(n.firstStep, n.endStep - 1));
            return {};
        case StepIndexRole: return -1;
        case NodeIndexRole: return static_cast<int>(indexOf(id));
        case OpRole:
        case ValueRole: return -1;
        case IsCurrentRole: return false;
        case Qt::FontRole: {
            QFont f;
            f.setBold(m_position > static_cast<size_t>(n.firstStep) && m_position <= static_cast<size_t>(n.endStep));
            return f;
        }
        default: return {};
        }
    }
    const size_t stepIndex = kind == Kind::Step ? indexOf(id) : static_cast<size_t>(indexOf(id) >> 20);
    const TraceStep& s = m_trace->steps()[stepIndex];
    const bool current = stepIndex + 1 == m_position;
    const bool ahead = stepIndex >= m_position;
    switch (role) {
    case StepIndexRole: return static_cast<int>(stepIndex);
    case NodeIndexRole: return -1;
    case OpRole: return s.op;
    case ValueRole:
        if (kind == Kind::Change)
            return s.changes[indexOf(id) & 0xFFFFF].value;
        return s.changes.empty() ? -1 : s.changes.front().value;
    case IsCurrentRole: return current;
    case Qt::ForegroundRole:
        if (ahead)
            return QApplication::palette().color(QPalette::Disabled, QPalette::Text);
        return {};
    case Qt::FontRole:
        if (current) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::BackgroundRole:
        if (current)
            return QApplication::palette().color(QPalette::AlternateBase);
        return {};
    default: break;
    }
    if (kind == Kind::Change) {
        const TraceChange& c = s.changes[indexOf(id) & 0xFFFFF];
        if (role == Qt::DisplayRole) {
            switch (index.column()) {
            case WhatColumn: return QString::fromStdString(m_trace->values()[static_cast<size_t>(c.value)].displayName);
            case ChangeColumn:
                return QStringLiteral("%1 → %2").arg(shardingText(*m_trace, c.before), shardingText(*m_trace, c.after));
            case DecisionColumn: {
                QStringList kinds;
                for (const TraceFactorChange& fc : m_trace->factorChanges(c))
                    kinds << QString::fromLatin1(decisionKindName(fc.decision.kind));
                if (kinds.isEmpty())
                    kinds << QString::fromLatin1(decisionKindName(c.kind));
                kinds.removeDuplicates();
                return kinds.join(QStringLiteral(", "));
            }
            default: return {};
            }
        }
        if (role == Qt::ToolTipRole)
            return QString::fromStdString(m_trace->values()[static_cast<size_t>(c.value)].id);
        return {};
    }
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case StepColumn: return QStringLiteral("#%1").arg(stepIndex);
        case WhatColumn: return stepWhat(s);
        case ChangeColumn: return stepChange(s);
        case DecisionColumn: return decisionText(s, stepIndex);
        default: return {};
        }
    case Qt::DecorationRole:
        if (index.column() == StepColumn) {
            if (hitsBreakpoint(stepIndex))
                return themedIcon(QStringLiteral("breakpoint"));
            if (!s.changes.empty() && stepHasConflict(*m_trace, stepIndex))
                return themedIcon(QStringLiteral("conflict"));
        }
        return {};
    case Qt::ToolTipRole: {
        QString tip = QString::fromStdString(describeStepHeader(*m_trace, stepIndex));
        for (const std::string& line : describeStep(*m_trace, stepIndex))
            tip += QStringLiteral("\n• ") + QString::fromStdString(line);
        return tip;
    }
    default: return {};
    }
}

} // namespace shardx::views
