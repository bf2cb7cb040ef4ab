// RulesModel: rows, icons and tool tips of the rule matches.
#include "views/models/RulesModel.h"

#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include "views/app/Icons.h"

namespace shardx::views {

RulesModel::RulesModel(QObject* parent) : QAbstractTableModel(parent) {}

void RulesModel::setRows(std::vector<RuleRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int RulesModel::rowOfValue(int value) const
{
    if (value < 0)
        return -1;
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].value == value)
            return static_cast<int>(i);
    return -1;
}

int RulesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RulesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NumColumns; }

QVariant RulesModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= static_cast<int>(m_rows.size()))
        return {};
    const RuleRow& r = m_rows[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case ValueColumn: {
            const QString name = r.func == QStringLiteral("@main") ? r.name : r.func + QLatin1Char(' ') + r.name;
            return r.kind == RuleRow::Kind::Annotation ? tr("%1 (constraint)").arg(name) : name;
        }
        case PathColumn: return r.kind == RuleRow::Kind::Annotation ? tr("annotation '%1'").arg(r.path) : r.path;
        case TypeColumn: return r.type;
        case SpecColumn:
            if (!r.error.isEmpty())
                return tr("error");
            if (r.kept)
                return tr("kept");
            return r.spec.isEmpty() ? tr("(left as it is)") : r.spec;
        case RuleColumn: return r.error.isEmpty() ? r.rule : r.error;
        case HadColumn: return r.had;
        default: return {};
        }
    case Qt::DecorationRole:
        if (index.column() != RuleColumn)
            return {};
        if (!r.error.isEmpty())
            return themedIcon(QStringLiteral("error"));
        return {};
    case Qt::ForegroundRole:
        // A leaf no rule matched is replicated by default: quieter than a match.
        if (index.column() == RuleColumn && r.error.isEmpty() && r.pointer.isEmpty())
            return QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text);
        return {};
    case Qt::FontRole:
        if (index.column() == SpecColumn) {
            QFont f(QStringLiteral("monospace"));
            f.setStyleHint(QFont::Monospace);
            return f;
        }
        return {};
    case Qt::ToolTipRole: {
        QString tip = QStringLiteral("%1 %2 (%3): %4").arg(r.func, r.name, r.path, r.type);
        if (!r.sharding.isEmpty())
            tip += QStringLiteral("\n") + tr("written: %1").arg(r.sharding);
        tip += QStringLiteral("\n") + (r.error.isEmpty() ? r.rule : r.error);
        if (!r.had.isEmpty())
            tip += QStringLiteral("\n") + tr("had: %1").arg(r.had);
        return tip;
    }
    case SortRole: return index.column() == ValueColumn ? QVariant(index.row()) : data(index, Qt::DisplayRole);
    case ValueRole: return r.value;
    case PointerRole: return r.pointer;
    default: return {};
    }
}

QVariant RulesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ValueColumn: return tr("Value");
    case PathColumn: return tr("Tree path");
    case TypeColumn: return tr("Type");
    case SpecColumn: return tr("Spec");
    case RuleColumn: return tr("Rule that matched");
    case HadColumn: return tr("Had before");
    default: return {};
    }
}

} // namespace shardx::views
