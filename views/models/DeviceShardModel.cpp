// DeviceShardModel: the per-device table of the shard map.
#include "views/models/DeviceShardModel.h"

#include <string_view>

#include <QApplication>
#include <QPalette>

#include "core/sharding/TypeShape.h"
#include "views/mesh/ShardColors.h"

namespace shardx::views {

QString shapeText(const std::vector<int64_t>& shape)
{
    if (shape.empty())
        return QObject::tr("scalar");
    QStringList parts;
    for (int64_t d : shape)
        parts << (d == kDynamicSize ? QStringLiteral("?") : QString::number(d));
    return parts.join(QLatin1Char('x'));
}

QString deviceListText(const std::vector<int64_t>& devices, int maxShown)
{
    QStringList parts;
    const int n = static_cast<int>(devices.size());
    for (int i = 0; i < n && i < maxShown; ++i)
        parts << QString::number(devices[static_cast<size_t>(i)]);
    QString text = parts.join(QStringLiteral(", "));
    if (n > maxShown)
        text += QStringLiteral(" … %1 (%2 devices)").arg(devices.back()).arg(n);
    return text;
}

QString shortOpName(const std::string& opName)
{
    constexpr std::string_view kPrefix = "stablehlo.";
    const std::string_view name = opName;
    return QString::fromStdString(std::string(name.substr(name.rfind(kPrefix, 0) == 0 ? kPrefix.size() : 0)));
}

QString axisLabel(const AxisRef& axis) { return QString::fromStdString(axis.sub ? axis.toString() : axis.name); }

DeviceShardModel::DeviceShardModel(QObject* parent) : QAbstractTableModel(parent) {}

void DeviceShardModel::setLayout(std::shared_ptr<const ShardedLayout> layout, const Mesh& mesh)
{
    beginResetModel();
    m_layout = std::move(layout);
    m_mesh = mesh;
    endResetModel();
}

int DeviceShardModel::rowOfDevice(qint64 deviceId) const
{
    if (!m_layout)
        return -1;
    for (size_t i = 0; i < m_layout->devices.size(); ++i)
        if (m_layout->devices[i].deviceId == deviceId)
            return static_cast<int>(i);
    return -1;
}

int DeviceShardModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_layout ? 0 : static_cast<int>(m_layout->devices.size());
}

int DeviceShardModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NumColumns; }

QString DeviceShardModel::coordsText(const DeviceShard& d) const
{
    QStringList parts;
    for (size_t i = 0; i < d.meshCoords.size() && i < m_mesh.axes().size(); ++i)
        parts << QStringLiteral("%1=%2").arg(QString::fromStdString(m_mesh.axes()[i].name)).arg(d.meshCoords[i]);
    return parts.join(QStringLiteral(", "));
}

QString DeviceShardModel::cellText(const DeviceShard& d, int column) const
{
    switch (column) {
    case DeviceColumn: return QString::number(d.deviceId);
    case CoordsColumn: return coordsText(d);
    case SliceColumn: return QString::fromStdString(m_layout->sliceText(d));
    case LocalShapeColumn: return shapeText(m_layout->localShape);
    case ReplicasColumn: {
        std::vector<int64_t> others;
        for (int64_t id : m_layout->replicasOf(d.deviceId))
            if (id != d.deviceId)
                others.push_back(id);
        return others.empty() ? tr("none") : deviceListText(others);
    }
    case PartialColumn: {
        QStringList parts;
        for (size_t i = 0; i < d.unreducedIndex.size() && i < m_layout->unreducedAxes.size(); ++i)
            parts << QStringLiteral("%1=%2").arg(axisLabel(m_layout->unreducedAxes[i])).arg(d.unreducedIndex[i]);
        return parts.join(QStringLiteral(", "));
    }
    default: return {};
    }
}

QVariant DeviceShardModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_layout || index.row() >= rowCount() || index.column() >= NumColumns)
        return {};
    const DeviceShard& d = m_layout->devices[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole: return cellText(d, index.column());
    case Qt::ToolTipRole:
        if (index.column() == SliceColumn && m_layout->holdsPadding(d))
            return tr("Half-open index ranges; the last shard of an uneven dimension is padded at the end");
        if (index.column() == PartialColumn && !d.unreducedIndex.empty())
            return tr("A partial %1 along these unreduced axes: the devices that differ only here hold parts of "
                      "one sum")
                .arg(QString::fromLatin1(reductionKindName(m_layout->unreducedKind)));
        return cellText(d, index.column());
    case Qt::DecorationRole:
        if (index.column() == DeviceColumn)
            return sliceColor(static_cast<int>(d.regionGroup), static_cast<int>(m_layout->regionGroups.size()),
                              QApplication::palette());
        return {};
    case DeviceIdRole: return QVariant::fromValue<qlonglong>(d.deviceId);
    case RegionRole: return static_cast<int>(d.regionGroup);
    default: return {};
    }
}

QVariant DeviceShardModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case DeviceColumn: return tr("Device");
    case CoordsColumn: return tr("Mesh coordinates");
    case SliceColumn: return tr("Index ranges");
    case LocalShapeColumn: return tr("Local shape");
    case ReplicasColumn: return tr("Same data on");
    case PartialColumn: return tr("Partial (unreduced)");
    default: return {};
    }
}

} // namespace shardx::views
