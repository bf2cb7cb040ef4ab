// DeviceMemoryModel: the devices of the partitioned program, one row each: id, mesh coordinates,
// peak live memory.
#pragma once

#include <memory>

#include <QAbstractTableModel>

#include "views/session/PartitionResult.h"

namespace shardx::views {

/// One row per device of a PartitionResult, in mesh order: its id, its coordinates along the mesh
/// axes, and its peak live memory (the largest sum of its live local tensors along the program).
/// FractionRole of the memory column is the device's share of the largest peak, for a bar.
class DeviceMemoryModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { DeviceColumn, CoordsColumn, MemoryColumn, NumColumns };
    enum Role {
        SortRole = Qt::UserRole + 1, ///< numbers (the memory column: bytes)
        DeviceRole,                  ///< int: index of the row's device in model->devices
        FractionRole,                ///< double in [0, 1]: peak live bytes over the largest peak
    };

    explicit DeviceMemoryModel(QObject* parent = nullptr);

    void setResult(std::shared_ptr<const PartitionResult> result);
    /// The device of `row`, or nullptr.
    const DeviceInfo* device(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const PartitionResult> m_result;
    int64_t m_maxPeak = 0;
};

/// `(1, 1)`.
QString coordsText(const std::vector<int64_t>& coords);
/// `data=1, model=1`, or the bare coordinates when `mesh` does not name as many axes.
QString namedCoordsText(const std::vector<int64_t>& coords, const Mesh& mesh);

} // namespace shardx::views
