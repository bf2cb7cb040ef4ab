// DeviceShardModel: the shard map as a table, one row per device (mesh order).
#pragma once

#include <memory>

#include <QAbstractTableModel>

#include "core/mesh/Mesh.h"
#include "core/sharding/LocalShape.h"

namespace shardx::views {

/// One row per device of a ShardedLayout, in mesh position order: its id, mesh coordinates, the
/// index ranges it holds (with padding), its local shape, the devices holding the same data,
/// and its coordinates along unreduced axes. The decoration of the first column is the colour of
/// the slice it holds (as in the shard map).
class DeviceShardModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        DeviceColumn,
        CoordsColumn,
        SliceColumn,
        LocalShapeColumn,
        ReplicasColumn,
        PartialColumn,
        NumColumns
    };
    enum Role {
        DeviceIdRole = Qt::UserRole + 1, ///< qlonglong: the device id of the row
        RegionRole,                      ///< int: the slice (region group) the device holds
    };

    explicit DeviceShardModel(QObject* parent = nullptr);

    /// Shows `layout` of a tensor on `mesh` (nullptr: empty).
    void setLayout(std::shared_ptr<const ShardedLayout> layout, const Mesh& mesh);
    const ShardedLayout* layout() const { return m_layout.get(); }
    /// The row of `deviceId`, or -1.
    int rowOfDevice(qint64 deviceId) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString coordsText(const DeviceShard& d) const;
    QString cellText(const DeviceShard& d, int column) const;

    std::shared_ptr<const ShardedLayout> m_layout;
    Mesh m_mesh;
};

/// A mesh axis as the views label it: `x` for a full axis, `"x":(2)2` for a sub-axis.
QString axisLabel(const AxisRef& axis);
/// `2x16x4` (a scalar: `scalar`; a dynamic dimension: `?`).
QString shapeText(const std::vector<int64_t>& shape);
/// An op name without the `stablehlo.` prefix (`dot_general`); other dialects keep theirs.
QString shortOpName(const std::string& opName);
/// `0, 4` for a few devices, `0, 1, 2 … 7 (8 devices)` for many.
QString deviceListText(const std::vector<int64_t>& devices, int maxShown = 6);

} // namespace shardx::views
