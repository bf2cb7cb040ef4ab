// ReplicatedModel: cells, tool tips and sort keys of the "why replicated?" list.
#include "views/models/ReplicatedModel.h"

#include "views/models/DeviceShardModel.h"
#include "views/models/Units.h"

namespace shardx::views {

ReplicatedModel::ReplicatedModel(QObject* parent) : QAbstractTableModel(parent) {}

void ReplicatedModel::setResult(std::shared_ptr<const PartitionResult> result)
{
    beginResetModel();
    m_result = std::move(result);
    endResetModel();
}

const ReplicatedTensor* ReplicatedModel::entry(int row) const
{
    if (!m_result || row < 0 || row >= static_cast<int>(m_result->replicated.size()))
        return nullptr;
    return &m_result->replicated[static_cast<size_t>(row)];
}

int ReplicatedModel::rowOfValue(int value) const
{
    if (m_result && value >= 0)
        for (size_t i = 0; i < m_result->replicated.size(); ++i)
            if (m_result->replicated[i].value == value)
                return static_cast<int>(i);
    return -1;
}

int ReplicatedModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_result ? 0 : static_cast<int>(m_result->replicated.size());
}

int ReplicatedModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NumColumns; }

QVariant ReplicatedModel::data(const QModelIndex& index, int role) const
{
    const ReplicatedTensor* r = index.isValid() ? entry(index.row()) : nullptr;
    if (!r)
        return {};
    auto text = [&]() -> QString {
        switch (index.column()) {
        case ValueColumn: return QString::fromStdString(r->displayName);
        case OpColumn: return r->opName.empty() ? QStringLiteral("–") : shortOpName(r->opName);
        case ShardingColumn: return QString::fromStdString(r->sharding);
        case PiecesColumn: return tr("%1 of %2").arg(r->shards).arg(r->devices);
        case ExtraColumn: return countText(r->extraBytesPerDevice);
        case ReasonColumn: return r->reasons.empty() ? QString() : QString::fromStdString(r->reasons.front());
        default: return {};
        }
    };
    switch (role) {
    case Qt::DisplayRole: return text();
    case Qt::ToolTipRole: {
        if (index.column() == OpColumn)
            return r->opName.empty() ? tr("No op defines it: a function argument or result")
                                     : QString::fromStdString(r->opName);
        if (index.column() == ExtraColumn)
            return tr("%1 per device as it is; %2 more than an even split over all %3 devices")
                .arg(bytesText(r->bytesPerDevice), bytesText(r->extraBytesPerDevice))
                .arg(r->devices);
        QStringList reasons;
        for (const std::string& reason : r->reasons)
            reasons << QStringLiteral("• ") + QString::fromStdString(reason);
        return reasons.join(QLatin1Char('\n'));
    }
    case Qt::TextAlignmentRole:
        return QVariant((index.column() == ExtraColumn ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    case SortRole:
        switch (index.column()) {
        case ValueColumn: return r->value;
        case PiecesColumn: return static_cast<qlonglong>(r->shards);
        case ExtraColumn: return static_cast<qlonglong>(r->extraBytesPerDevice);
        default: return text();
        }
    case ValueRole: return r->value;
    case EntryRole: return index.row();
    default: return {};
    }
}

QVariant ReplicatedModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case ValueColumn: return tr("Value");
        case OpColumn: return tr("Op");
        case ShardingColumn: return tr("Sharding");
        case PiecesColumn: return tr("Pieces");
        case ExtraColumn: return tr("Extra B/device");
        case ReasonColumn: return tr("Why");
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case PiecesColumn: return tr("The pieces its sharding cuts it into, of the mesh's devices");
        case ExtraColumn: return tr("Bytes each device holds over an even split across every device of the mesh");
        case ReasonColumn: return tr("The first reason; hover or select the row for all of them");
        default: return {};
        }
    }
    return {};
}

} // namespace shardx::views
