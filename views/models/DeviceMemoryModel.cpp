// DeviceMemoryModel: cells, sort keys and bar fractions of the devices table.
#include "views/models/DeviceMemoryModel.h"

#include "views/models/Units.h"

namespace shardx::views {

QString coordsText(const std::vector<int64_t>& coords)
{
    QStringList parts;
    for (int64_t c : coords)
        parts << QString::number(c);
    return QLatin1Char('(') + parts.join(QStringLiteral(", ")) + QLatin1Char(')');
}

QString namedCoordsText(const std::vector<int64_t>& coords, const Mesh& mesh)
{
    if (mesh.axes().size() != coords.size())
        return coordsText(coords);
    QStringList parts;
    for (size_t i = 0; i < coords.size(); ++i)
        parts << QStringLiteral("%1=%2").arg(QString::fromStdString(mesh.axes()[i].name)).arg(coords[i]);
    return parts.join(QStringLiteral(", "));
}

DeviceMemoryModel::DeviceMemoryModel(QObject* parent) : QAbstractTableModel(parent) {}

void DeviceMemoryModel::setResult(std::shared_ptr<const PartitionResult> result)
{
    beginResetModel();
    m_result = std::move(result);
    m_maxPeak = 0;
    if (m_result && m_result->model)
        for (const DeviceInfo& d : m_result->model->devices)
            m_maxPeak = std::max(m_maxPeak, d.peakLiveBytes);
    endResetModel();
}

const DeviceInfo* DeviceMemoryModel::device(int row) const
{
    if (!m_result || !m_result->model || row < 0 || row >= static_cast<int>(m_result->model->devices.size()))
        return nullptr;
    return &m_result->model->devices[static_cast<size_t>(row)];
}

int DeviceMemoryModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !m_result || !m_result->model)
        return 0;
    return static_cast<int>(m_result->model->devices.size());
}

int DeviceMemoryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NumColumns; }

QVariant DeviceMemoryModel::data(const QModelIndex& index, int role) const
{
    const DeviceInfo* d = index.isValid() ? device(index.row()) : nullptr;
    if (!d)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case DeviceColumn: return QString::number(d->id);
        case CoordsColumn: return coordsText(d->coords);
        case MemoryColumn: return shortBytesText(d->peakLiveBytes);
        default: return {};
        }
    case Qt::ToolTipRole:
        return tr("Device %1 at %2: at most %3 of local tensors live at once")
            .arg(d->id)
            .arg(namedCoordsText(d->coords, m_result->model->mesh), bytesText(d->peakLiveBytes));
    case Qt::TextAlignmentRole:
        return QVariant((index.column() == CoordsColumn ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    case SortRole:
        switch (index.column()) {
        case DeviceColumn: return static_cast<qlonglong>(d->id);
        case CoordsColumn: return index.row(); // mesh order
        case MemoryColumn: return static_cast<qlonglong>(d->peakLiveBytes);
        default: return {};
        }
    case DeviceRole: return index.row();
    case FractionRole:
        return m_maxPeak > 0 ? static_cast<double>(d->peakLiveBytes) / static_cast<double>(m_maxPeak) : 0.0;
    default: return {};
    }
}

QVariant DeviceMemoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case DeviceColumn: return tr("Device");
        case CoordsColumn: {
            if (!m_result || !m_result->model || m_result->model->mesh.axes().empty())
                return tr("Coords");
            QStringList axes;
            for (const MeshAxis& a : m_result->model->mesh.axes())
                axes << QString::fromStdString(a.name);
            return tr("Coords (%1)").arg(axes.join(QStringLiteral(", ")));
        }
        case MemoryColumn: return tr("Peak live memory");
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole && section == MemoryColumn)
        return tr("The largest sum of the device's live local tensors along the program order");
    return {};
}

} // namespace shardx::views
