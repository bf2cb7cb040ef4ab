// CollectivesModel: the collectives of the partitioned program, one row each, in program order.
#pragma once

#include <memory>

#include <QAbstractTableModel>

#include "views/session/PartitionResult.h"

namespace shardx::views {

/// One row per collective of a PartitionResult: its kind, mesh axes, replica groups (shortened;
/// the tool tip has them all), local shapes before and after, bytes of payload and bytes sent per
/// device, the cost model's time, the op that needs it and the cause. SortRole gives numbers for
/// the numeric columns, so that a QSortFilterProxyModel sorts them as numbers.
class CollectivesModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        KindColumn,
        AxesColumn,
        GroupsColumn,
        ShapeColumn,
        PayloadColumn,
        SentColumn,
        TimeColumn,
        OpColumn,
        CauseColumn,
        NumColumns
    };
    enum Role {
        SortRole = Qt::UserRole + 1, ///< a number for numeric columns, else the text
        CollectiveRole,              ///< int: index of the row's collective in model->collectives
    };

    explicit CollectivesModel(QObject* parent = nullptr);

    /// Shows the collectives of `result` (nullptr, or a failed partition: none).
    void setResult(std::shared_ptr<const PartitionResult> result);
    /// The collective of `row`, or nullptr.
    const CollectiveInfo* collective(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString cellText(const CollectiveInfo& c, int column) const;

    std::shared_ptr<const PartitionResult> m_result;
};

/// `model`, `data, model` (sub-axes as `"x":(1)2`, as axisLabel writes them).
QString axesText(const std::vector<AxisRef>& axes);
/// The replica groups of `c`, shortened to about `maxGroups` groups: `[0,1,2,3] [4,5,6,7]`,
/// `[0,1] [2,3] … (64 groups of 2)`; a collective-permute's pairs as `0→1, 1→2 …`.
QString replicaGroupsText(const CollectiveInfo& c, int maxGroups = 3);
/// Every group in full: `[[0, 1, 2, 3], [4, 5, 6, 7]]`.
QString fullReplicaGroupsText(const std::vector<std::vector<int64_t>>& groups);

} // namespace shardx::views
