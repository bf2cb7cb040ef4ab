// FactorTableModel: cells, headers with factor sizes and kinds, and the cells the last step changed.
#include "views/models/FactorTableModel.h"

#include <QApplication>
#include <QFont>
#include <QPalette>

namespace shardx::views {

namespace {

bool contains(const std::vector<int64_t>& v, int64_t f) { return std::find(v.begin(), v.end(), f) != v.end(); }

QString axesText(const std::vector<AxisRef>& axes)
{
    QStringList parts;
    for (const AxisRef& a : axes)
        parts << QString::fromStdString(a.toString());
    return parts.join(QStringLiteral(", "));
}

} // namespace

FactorTableModel::FactorTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void FactorTableModel::setTable(std::optional<OpFactorTable> table, std::optional<OpFactorTable> previous,
                                std::vector<QString> valueNames)
{
    beginResetModel();
    m_table = std::move(table);
    m_previous = std::move(previous);
    m_valueNames = std::move(valueNames);
    // A previous table of another shape (another rule) cannot be compared cell by cell.
    if (m_previous && m_table &&
        (m_previous->rule.numFactors() != m_table->rule.numFactors() ||
         m_previous->table.numTensors() != m_table->table.numTensors()))
        m_previous.reset();
    endResetModel();
}

int FactorTableModel::numFactors() const { return m_table ? static_cast<int>(m_table->rule.numFactors()) : 0; }

int FactorTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_table ? 0 : m_table->table.numTensors();
}

int FactorTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_table ? 0 : numFactors() + 2;
}

QString FactorTableModel::cell(const OpFactorTable& t, int row, int column) const
{
    const TensorFactorShardings& tensor = t.table.tensor(row);
    if (column < numFactors())
        return QString::fromStdString(factorCellString(tensor.find(column)));
    if (column == replicatedColumn())
        return axesText(tensor.replicated);
    QString text = axesText(tensor.unreduced);
    if (!text.isEmpty() && tensor.unreducedKind != ReductionKind::Sum)
        text = QString::fromLatin1(reductionKindName(tensor.unreducedKind)) + QStringLiteral(" ") + text;
    return text;
}

QString FactorTableModel::cellText(int row, int column) const
{
    return m_table && row < m_table->table.numTensors() ? cell(*m_table, row, column) : QString();
}

QString FactorTableModel::factorKinds(int64_t f) const
{
    QStringList kinds;
    const OpShardingRule& r = m_table->rule;
    if (contains(r.reductionFactors, f))
        kinds << tr("reduction");
    if (contains(r.needReplicationFactors, f))
        kinds << tr("need replication");
    if (contains(r.permutationFactors, f))
        kinds << tr("permutation");
    if (contains(r.blockedPropagationFactors, f))
        kinds << tr("blocked");
    return kinds.join(QStringLiteral(", "));
}

QVariant FactorTableModel::data(const QModelIndex& index, int role) const
{
    if (!m_table || !index.isValid())
        return {};
    const int row = index.row();
    const int col = index.column();
    const bool changed = m_previous && cell(*m_table, row, col) != cell(*m_previous, row, col);
    switch (role) {
    case Qt::DisplayRole: {
        if (col >= numFactors())
            return cell(*m_table, row, col);
        // As Shardy writes dimension shardings: `"x", ?` open, `"x"` closed; `·` not mapped.
        const FactorSharding* fs = m_table->table.tensor(row).find(col);
        if (!fs)
            return QStringLiteral("·");
        QString text = axesText(fs->axes);
        if (!fs->closed)
            text += text.isEmpty() ? QStringLiteral("?") : QStringLiteral(", ?");
        if (!fs->overflowAxes.empty())
            text += QStringLiteral(" | ") + axesText(fs->overflowAxes);
        return text;
    }
    case Qt::ToolTipRole: {
        if (col >= numFactors())
            return col == replicatedColumn() ? tr("Explicitly replicated axes")
                                             : tr("Unreduced axes (partial results)");
        const FactorSharding* fs = m_table->table.tensor(row).find(col);
        if (!fs)
            return tr("Factor %1 does not map to this tensor").arg(QString::fromStdString(factorName(col)));
        QString tip =
            tr("Factor %1: %2")
                .arg(QString::fromStdString(factorName(col)), fs->axes.empty() ? tr("no axes") : axesText(fs->axes));
        if (!fs->overflowAxes.empty())
            tip += tr("\nOverflow axes: %1").arg(axesText(fs->overflowAxes));
        tip += fs->closed ? tr("\nClosed: propagation may not add axes") : tr("\nOpen: propagation may add axes");
        if (changed)
            tip += tr("\nWas: %1").arg(cell(*m_previous, row, col));
        return tip;
    }
    case Qt::BackgroundRole:
        if (changed) {
            QColor c = QApplication::palette().color(QPalette::Highlight);
            c.setAlpha(70);
            return c;
        }
        return {};
    case Qt::FontRole:
        if (changed) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::TextAlignmentRole: return QVariant::fromValue(Qt::AlignCenter);
    case ChangedRole: return changed;
    case ValueRole:
        return row < static_cast<int>(m_table->values.size()) ? m_table->values[static_cast<size_t>(row)] : -1;
    case FactorRole: return col < numFactors() ? col : -1;
    default: return {};
    }
}

QVariant FactorTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (!m_table)
        return {};
    if (orientation == Qt::Vertical) {
        if (section < 0 || section >= m_table->table.numTensors())
            return {};
        if (role == Qt::DisplayRole) {
            QString name = QString::fromStdString(m_table->table.rowName(section));
            if (section < static_cast<int>(m_valueNames.size()) &&
                !m_valueNames[static_cast<size_t>(section)].isEmpty())
                name += QStringLiteral("  ") + m_valueNames[static_cast<size_t>(section)];
            return name;
        }
        return {};
    }
    if (section < 0 || section >= numFactors() + 2)
        return {};
    if (section == replicatedColumn())
        return role == Qt::DisplayRole ? QVariant(tr("replicated")) : QVariant();
    if (section == unreducedColumn())
        return role == Qt::DisplayRole ? QVariant(tr("unreduced")) : QVariant();
    const QString kinds = factorKinds(section);
    switch (role) {
    case Qt::DisplayRole:
        return QStringLiteral("%1 = %2%3")
            .arg(QString::fromStdString(factorName(section)))
            .arg(m_table->rule.factorSizes[static_cast<size_t>(section)])
            .arg(kinds.isEmpty() ? QString() : QStringLiteral("\n") + kinds);
    case Qt::ToolTipRole:
        return tr("Factor %1 of size %2%3")
            .arg(QString::fromStdString(factorName(section)))
            .arg(m_table->rule.factorSizes[static_cast<size_t>(section)])
            .arg(kinds.isEmpty() ? QString() : QStringLiteral(" (") + kinds + QStringLiteral(")"));
    default: return {};
    }
}

} // namespace shardx::views
