// CollectivesModel: cells, tool tips and sort keys of the collectives table.
#include "views/models/CollectivesModel.h"

#include "views/models/DeviceShardModel.h"
#include "views/models/Units.h"

namespace shardx::views {

namespace {

/// `[0,1,2,3]`; a long group as `[0,1,2 … 127]`.
QString groupText(const std::vector<int64_t>& group)
{
    constexpr size_t kMaxIds = 8;
    QStringList ids;
    for (size_t i = 0; i < group.size() && (group.size() <= kMaxIds || i < kMaxIds - 2); ++i)
        ids << QString::number(group[i]);
    QString text = ids.join(QLatin1Char(','));
    if (group.size() > kMaxIds)
        text += QStringLiteral(" … %1").arg(group.back());
    return QLatin1Char('[') + text + QLatin1Char(']');
}

} // namespace

QString axesText(const std::vector<AxisRef>& axes)
{
    QStringList names;
    for (const AxisRef& a : axes)
        names << axisLabel(a);
    return names.join(QStringLiteral(", "));
}

QString replicaGroupsText(const CollectiveInfo& c, int maxGroups)
{
    const auto& groups = c.replicaGroups;
    const int n = static_cast<int>(groups.size());
    const bool permute = c.kind == "collective-permute";
    QStringList parts;
    for (int i = 0; i < n && i < maxGroups; ++i) {
        const auto& g = groups[static_cast<size_t>(i)];
        parts << (permute && g.size() == 2 ? QStringLiteral("%1→%2").arg(g[0]).arg(g[1]) : groupText(g));
    }
    QString text = parts.join(permute ? QStringLiteral(", ") : QStringLiteral(" "));
    if (n > maxGroups) {
        if (permute)
            text += QObject::tr(" … (%1 pairs)").arg(n);
        else
            text += QObject::tr(" … (%1 groups of %2)").arg(n).arg(groups.front().size());
    }
    return text;
}

QString fullReplicaGroupsText(const std::vector<std::vector<int64_t>>& groups)
{
    QStringList parts;
    for (const auto& g : groups) {
        QStringList ids;
        for (int64_t id : g)
            ids << QString::number(id);
        parts << QLatin1Char('[') + ids.join(QStringLiteral(", ")) + QLatin1Char(']');
    }
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

CollectivesModel::CollectivesModel(QObject* parent) : QAbstractTableModel(parent) {}

void CollectivesModel::setResult(std::shared_ptr<const PartitionResult> result)
{
    beginResetModel();
    m_result = std::move(result);
    endResetModel();
}

const CollectiveInfo* CollectivesModel::collective(int row) const
{
    if (!m_result || !m_result->model || row < 0 || row >= static_cast<int>(m_result->model->collectives.size()))
        return nullptr;
    return &m_result->model->collectives[static_cast<size_t>(row)];
}

int CollectivesModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !m_result || !m_result->model)
        return 0;
    return static_cast<int>(m_result->model->collectives.size());
}

int CollectivesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NumColumns; }

QString CollectivesModel::cellText(const CollectiveInfo& c, int column) const
{
    switch (column) {
    case KindColumn: return QString::fromStdString(c.kind);
    case AxesColumn: return axesText(c.axes);
    case GroupsColumn: return replicaGroupsText(c);
    case ShapeColumn: return QStringLiteral("%1 → %2").arg(shapeText(c.shapeBefore), shapeText(c.shapeAfter));
    case PayloadColumn: return countText(c.payloadBytesPerDevice);
    case SentColumn: return countText(c.bytesSentPerDevice);
    case TimeColumn: return microsecondsText(c.seconds);
    case OpColumn: {
        QString op = QString::fromStdString(c.op);
        if (!c.opName.empty())
            op += QStringLiteral("  ") + shortOpName(c.opName);
        return op;
    }
    case CauseColumn: return QString::fromStdString(c.cause);
    default: return {};
    }
}

QVariant CollectivesModel::data(const QModelIndex& index, int role) const
{
    const CollectiveInfo* c = index.isValid() ? collective(index.row()) : nullptr;
    if (!c)
        return {};
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole: return cellText(*c, column);
    case Qt::ToolTipRole:
        switch (column) {
        case GroupsColumn:
            return tr("%1 replica groups (device ids):\n%2")
                .arg(c->replicaGroups.size())
                .arg(fullReplicaGroupsText(c->replicaGroups));
        case ShapeColumn:
            return tr("Each device's %1 operand %2 becomes %3")
                .arg(QString::fromStdString(c->elementType), shapeText(c->shapeBefore), shapeText(c->shapeAfter));
        case PayloadColumn:
        case SentColumn:
            return tr("Payload %1 (%2), sent %3, received %4 per device")
                .arg(bytesText(c->payloadBytesPerDevice), shortBytesText(c->payloadBytesPerDevice),
                     bytesText(c->bytesSentPerDevice), bytesText(c->bytesReceivedPerDevice));
        case TimeColumn: return tr("The cost model's time (alpha-beta per mesh axis), in microseconds");
        default: return cellText(*c, column);
        }
    case Qt::TextAlignmentRole:
        if (column == PayloadColumn || column == SentColumn || column == TimeColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case SortRole:
        switch (column) {
        case PayloadColumn: return static_cast<qlonglong>(c->payloadBytesPerDevice);
        case SentColumn: return static_cast<qlonglong>(c->bytesSentPerDevice);
        case TimeColumn: return c->seconds;
        case OpColumn: return c->opIndex;
        default: return cellText(*c, column);
        }
    case CollectiveRole: return index.row();
    default: return {};
    }
}

QVariant CollectivesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case KindColumn: return tr("Kind");
        case AxesColumn: return tr("Mesh axes");
        case GroupsColumn: return tr("Replica groups");
        case ShapeColumn: return tr("Local shape");
        case PayloadColumn: return tr("Payload B");
        case SentColumn: return tr("Sent B/dev");
        case TimeColumn: return tr("Time µs");
        case OpColumn: return tr("Op");
        case CauseColumn: return tr("Cause");
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case ShapeColumn: return tr("Each device's local shape before → after the collective");
        case PayloadColumn: return tr("Bytes of each device's local operand");
        case SentColumn: return tr("Bytes each device sends, under ring algorithms (see the README)");
        case TimeColumn: return tr("The cost model's time: latency and bandwidth per mesh axis");
        case OpColumn: return tr("The op of your program that needs the collective");
        default: return {};
        }
    }
    return {};
}

} // namespace shardx::views
