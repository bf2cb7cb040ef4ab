// TensorShardModel: what one device holds of each tensor (its index ranges and padding).
#pragma once

#include <memory>

#include <QAbstractTableModel>

#include "views/session/PartitionResult.h"

namespace shardx::views {

/// One row per tensor of one device of a PartitionResult (DeviceInfo::shards): its name, the
/// [begin:end) index ranges it holds, its padding elements, local and global shapes and sharding.
class TensorShardModel : public QAbstractTableModel {
    Q_OBJECT

public:
    /// What differs between devices first; the sharding, the same on every device, last.
    enum Column {
        TensorColumn,
        SliceColumn,
        PaddingColumn,
        LocalShapeColumn,
        GlobalShapeColumn,
        ShardingColumn,
        NumColumns
    };
    enum Role {
        SortRole = Qt::UserRole + 1, ///< numbers for the padding column, else the text
        ValueRole,                   ///< int: the ProgramIds value index of the row's tensor (-1: none)
    };

    explicit TensorShardModel(QObject* parent = nullptr);

    /// Shows the shards of device `deviceIndex` (an index into model->devices; -1: none).
    void setDevice(std::shared_ptr<const PartitionResult> result, int deviceIndex);
    int deviceIndex() const { return m_device; }
    /// The row of value `value`, or -1.
    int rowOfValue(int value) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const std::vector<TensorShardInfo>* shards() const;

    std::shared_ptr<const PartitionResult> m_result;
    int m_device = -1;
};

} // namespace shardx::views
