// ChangedValuesModel: the diff of two sets of final shardings.
#include "views/models/ChangedValuesModel.h"

namespace shardx::views {

namespace {

QString shardingText(const std::optional<TensorSharding>& s)
{
    return s ? QString::fromStdString(s->toString()) : QObject::tr("none");
}

} // namespace

ChangedValuesModel::ChangedValuesModel(QObject* parent) : QAbstractTableModel(parent) {}

void ChangedValuesModel::setChanges(const FinalShardings& before, const FinalShardings& after)
{
    beginResetModel();
    m_rows.clear();
    for (size_t v = 0; v < after.byValue.size() && v < after.names.size(); ++v) {
        if (after.names[v].isEmpty())
            continue;
        const std::optional<TensorSharding> old = v < before.byValue.size() ? before.byValue[v] : std::nullopt;
        if (old == after.byValue[v])
            continue;
        m_rows.push_back({static_cast<int>(v), after.names[v], shardingText(old), shardingText(after.byValue[v])});
    }
    endResetModel();
}

void ChangedValuesModel::clear()
{
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

std::vector<int> ChangedValuesModel::values() const
{
    std::vector<int> out;
    for (const Row& r : m_rows)
        out.push_back(r.value);
    return out;
}

int ChangedValuesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ChangedValuesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NumColumns; }

QVariant ChangedValuesModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= NumColumns)
        return {};
    const Row& r = m_rows[static_cast<size_t>(index.row())];
    if (role == ValueIndexRole)
        return r.value;
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case ValueColumn: return role == Qt::ToolTipRole ? tr("Select %1").arg(r.name) : r.name;
    case BeforeColumn: return r.before;
    case AfterColumn: return r.after;
    default: return {};
    }
}

QVariant ChangedValuesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case ValueColumn: return tr("Value");
    case BeforeColumn: return tr("Before the edit");
    case AfterColumn: return tr("After");
    default: return {};
    }
}

} // namespace shardx::views
