// TensorShardModel: cells and sort keys of one device's shards.
#include "views/models/TensorShardModel.h"

#include "views/models/DeviceShardModel.h"
#include "views/models/Units.h"

namespace shardx::views {

TensorShardModel::TensorShardModel(QObject* parent) : QAbstractTableModel(parent) {}

void TensorShardModel::setDevice(std::shared_ptr<const PartitionResult> result, int deviceIndex)
{
    beginResetModel();
    m_result = std::move(result);
    m_device = deviceIndex;
    endResetModel();
}

const std::vector<TensorShardInfo>* TensorShardModel::shards() const
{
    if (!m_result || !m_result->model || m_device < 0 || m_device >= static_cast<int>(m_result->model->devices.size()))
        return nullptr;
    return &m_result->model->devices[static_cast<size_t>(m_device)].shards;
}

int TensorShardModel::rowOfValue(int value) const
{
    if (const auto* list = shards())
        for (size_t i = 0; i < list->size(); ++i)
            if (value >= 0 && (*list)[i].value == value)
                return static_cast<int>(i);
    return -1;
}

int TensorShardModel::rowCount(const QModelIndex& parent) const
{
    const auto* list = shards();
    return parent.isValid() || !list ? 0 : static_cast<int>(list->size());
}

int TensorShardModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NumColumns; }

QVariant TensorShardModel::data(const QModelIndex& index, int role) const
{
    const auto* list = shards();
    if (!list || !index.isValid() || index.row() >= static_cast<int>(list->size()))
        return {};
    const TensorShardInfo& t = (*list)[static_cast<size_t>(index.row())];
    auto text = [&]() -> QString {
        switch (index.column()) {
        case TensorColumn: return QString::fromStdString(t.name);
        case ShardingColumn: return QString::fromStdString(t.sharding);
        case GlobalShapeColumn: return shapeText(t.globalShape);
        case LocalShapeColumn: return shapeText(t.localShape);
        case SliceColumn: return QString::fromStdString(t.slice);
        case PaddingColumn: return t.paddingElements == 0 ? QString() : countText(t.paddingElements);
        default: return {};
        }
    };
    switch (role) {
    case Qt::DisplayRole: return text();
    case Qt::ToolTipRole:
        if (index.column() == PaddingColumn)
            return t.paddingElements == 0 ? tr("No padding: the shard is all real elements")
                                          : tr("%1 of the local elements are padding (the dimension does not divide "
                                               "evenly)")
                                                .arg(countText(t.paddingElements));
        if (index.column() == SliceColumn)
            return tr("The global index ranges [begin:end) this device holds");
        return text();
    case Qt::TextAlignmentRole:
        return QVariant((index.column() == PaddingColumn ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    case SortRole:
        if (index.column() == PaddingColumn)
            return static_cast<qlonglong>(t.paddingElements);
        if (index.column() == TensorColumn)
            return t.value;
        return text();
    case ValueRole: return t.value;
    default: return {};
    }
}

QVariant TensorShardModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole && section == SliceColumn)
        return tr("The [begin:end) index ranges of the global tensor this device holds, per dimension");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TensorColumn: return tr("Tensor");
    case ShardingColumn: return tr("Sharding");
    case GlobalShapeColumn: return tr("Global shape");
    case LocalShapeColumn: return tr("Local shape");
    case SliceColumn: return tr("Slice");
    case PaddingColumn: return tr("Padding");
    default: return {};
    }
}

} // namespace shardx::views
