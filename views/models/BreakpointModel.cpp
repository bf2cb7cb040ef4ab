// BreakpointModel: labels, hit counts and enabling of the breakpoints.
#include "views/models/BreakpointModel.h"

#include "views/app/Icons.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

BreakpointModel::BreakpointModel(SessionContext& context, QObject* parent)
    : QAbstractListModel(parent), m_context(context)
{
    connect(&m_context, &SessionContext::breakpointsChanged, this, &BreakpointModel::reload);
    connect(&m_context, &SessionContext::moduleChanged, this, &BreakpointModel::reload);
    reload();
}

void BreakpointModel::reload()
{
    beginResetModel();
    m_breakpoints = m_context.breakpoints();
    m_hits.assign(m_breakpoints.size(), 0);
    if (const Session* s = m_context.session(); s && s->trace())
        for (size_t b = 0; b < m_breakpoints.size(); ++b)
            for (size_t i = 0; i < s->trace()->numSteps(); ++i)
                m_hits[b] += stepHits(*s->trace(), i, m_breakpoints[b]) ? 1 : 0;
    endResetModel();
}

int BreakpointModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_breakpoints.size());
}

QVariant BreakpointModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Breakpoint& b = m_breakpoints[static_cast<size_t>(index.row())];
    const int hits = m_hits[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole: {
        const Session* s = m_context.session();
        const QString label = s && s->trace() ? QString::fromStdString(breakpointLabel(*s->trace(), b))
                                              : QString::fromLatin1(breakpointKindName(b.kind));
        return tr("%1  (%n step(s))", nullptr, hits).arg(label);
    }
    case Qt::CheckStateRole: return b.enabled ? Qt::Checked : Qt::Unchecked;
    case Qt::DecorationRole:
        return themedIcon(b.kind == BreakpointKind::AnyConflict ? QStringLiteral("conflict")
                                                                : QStringLiteral("breakpoint"));
    case HitsRole: return hits;
    default: return {};
    }
}

bool BreakpointModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || role != Qt::CheckStateRole)
        return false;
    std::vector<Breakpoint> bps = m_context.breakpoints();
    if (index.row() >= static_cast<int>(bps.size()))
        return false;
    bps[static_cast<size_t>(index.row())].enabled = value.toInt() == Qt::Checked;
    m_context.setBreakpoints(std::move(bps)); // reloads this model
    return true;
}

Qt::ItemFlags BreakpointModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable;
}

} // namespace shardx::views
