// ReplicatedModel: the "why replicated?" list, one row per tensor less sharded than it could be.
#pragma once

#include <memory>

#include <QAbstractTableModel>

#include "views/session/PartitionResult.h"

namespace shardx::views {

/// One row per ReplicatedTensor of a PartitionResult (largest cost first): the value, its defining
/// op, its final sharding, the pieces it is cut into of the mesh's devices, the bytes it costs each
/// device over an even split, and its first reason (the tool tip lists all of them).
class ReplicatedModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { ValueColumn, OpColumn, ShardingColumn, PiecesColumn, ExtraColumn, ReasonColumn, NumColumns };
    enum Role {
        SortRole = Qt::UserRole + 1, ///< numbers for the numeric columns, else the text
        ValueRole,                   ///< int: the ProgramIds value index of the row's tensor
        EntryRole,                   ///< int: index of the row in result->replicated
    };

    explicit ReplicatedModel(QObject* parent = nullptr);

    void setResult(std::shared_ptr<const PartitionResult> result);
    /// The tensor of `row`, or nullptr.
    const ReplicatedTensor* entry(int row) const;
    /// The row of value `value`, or -1.
    int rowOfValue(int value) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const PartitionResult> m_result;
};

} // namespace shardx::views
