// TypesModel: rows, colours and tool tips of the explicit-mode types.
#include "views/models/TypesModel.h"

#include <QBrush>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include "views/app/Icons.h"

namespace shardx::views {

TypesModel::TypesModel(QObject* parent) : QAbstractTableModel(parent) {}

void TypesModel::setRows(std::vector<TypeRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int TypesModel::rowOfValue(int value) const
{
    if (value < 0)
        return -1;
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].value == value)
            return static_cast<int>(i);
    return -1;
}

int TypesModel::differenceCount() const
{
    return static_cast<int>(std::count_if(m_rows.begin(), m_rows.end(), [](const TypeRow& r) { return r.differs; }));
}

int TypesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int TypesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NumColumns; }

QVariant TypesModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= static_cast<int>(m_rows.size()))
        return {};
    const TypeRow& r = m_rows[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case ValueColumn: return r.func == QStringLiteral("@main") ? r.name : r.func + QLatin1Char(' ') + r.name;
        case OpColumn:
            return r.op.isEmpty() ? (r.name.startsWith(QStringLiteral("result")) ? tr("(result)") : tr("(argument)"))
                                  : r.op;
        case TypeColumn: return r.type.isEmpty() ? tr("(no array)") : r.type;
        case PropagatedColumn:
            if (r.propagated.isEmpty())
                return {};
            return r.differs ? r.propagated : tr("same");
        case DifferenceColumn:
            if (r.error)
                return tr("error at this op (see below)");
            if (!r.differs)
                return {};
            return r.moreSpecific ? tr("more specific (non-Explicit axes)") : tr("differs on an Explicit axis");
        default: return {};
        }
    case Qt::DecorationRole:
        if (index.column() != DifferenceColumn)
            return {};
        if (r.error)
            return themedIcon(QStringLiteral("error"));
        if (r.differs && !r.moreSpecific)
            return themedIcon(QStringLiteral("warning"));
        return {};
    case Qt::ForegroundRole:
        // "same" and the kind of an argument are there to be skipped over.
        if ((index.column() == PropagatedColumn && !r.differs) || (index.column() == OpColumn && r.op.isEmpty()))
            return QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text);
        return {};
    case Qt::FontRole:
        if (index.column() == TypeColumn || (index.column() == PropagatedColumn && r.differs)) {
            QFont f = QFont(QStringLiteral("monospace"));
            f.setStyleHint(QFont::Monospace);
            return f;
        }
        return {};
    case Qt::ToolTipRole: {
        QString tip = QStringLiteral("%1 %2").arg(r.func, r.name);
        if (!r.op.isEmpty())
            tip += QStringLiteral(" = ") + r.op;
        tip += QStringLiteral("\n") + tr("type: %1").arg(r.type);
        if (!r.how.isEmpty())
            tip += QStringLiteral(" (%1)").arg(r.how);
        if (!r.propagated.isEmpty())
            tip +=
                QStringLiteral("\n") +
                tr("propagated: %1").arg(r.differs ? r.propagated + QStringLiteral(" ") + r.sharding : tr("the same"));
        if (!r.reason.isEmpty())
            tip += QStringLiteral("\n") + r.reason;
        return tip;
    }
    case SortRole: return index.column() == ValueColumn ? QVariant(index.row()) : data(index, Qt::DisplayRole);
    case ValueRole: return r.value;
    case DiffersRole: return r.differs;
    case ErrorRole: return r.error;
    case NotableRole: return (r.differs || r.error) ? QStringLiteral("true") : QStringLiteral("false");
    default: return {};
    }
}

QVariant TypesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ValueColumn: return tr("Value");
    case OpColumn: return tr("Op");
    case TypeColumn: return tr("Explicit type");
    case PropagatedColumn: return tr("Propagated (Shardy)");
    case DifferenceColumn: return tr("Difference");
    default: return {};
    }
}

} // namespace shardx::views
