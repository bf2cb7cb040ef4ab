// ValidationModel: the rows, cells, tool tips and sort keys of the compared values.
#include "views/models/ValidationModel.h"

#include <cmath>
#include <limits>

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QStringList>

namespace shardx::views {

QString validationErrorText(double v)
{
    if (std::isinf(v))
        return QStringLiteral("inf");
    if (v == 0)
        return QStringLiteral("0");
    return QString::number(v, 'g', 3);
}

QString validationToleranceText(const exec::Tolerance& t)
{
    if (t.exact())
        return QObject::tr("exact");
    return QStringLiteral("%1 + %2·max|x|").arg(validationErrorText(t.abs), validationErrorText(t.rel));
}

namespace {

QString devicesListText(const std::vector<int64_t>& ids)
{
    QStringList out;
    for (int64_t id : ids)
        out << QString::number(id);
    return out.join(QStringLiteral(", "));
}

/// The devices a row names: those outside the tolerance, else the first replica group that disagrees (the tool
/// tip has them all).
QString rowDevicesText(const exec::ValueComparison& c)
{
    if (!c.devices.empty())
        return devicesListText(c.devices);
    if (!c.replicaDisagreements.empty())
        return QObject::tr("replicas %1 disagree").arg(devicesListText(c.replicaDisagreements.front()));
    return {};
}

} // namespace

ValidationModel::ValidationModel(QObject* parent) : QAbstractTableModel(parent) {}

void ValidationModel::setReport(std::shared_ptr<const exec::ValidationReport> report)
{
    beginResetModel();
    m_report = std::move(report);
    m_rows.clear();
    if (m_report)
        for (const auto* list : {&m_report->arguments, &m_report->intermediates, &m_report->results})
            for (const exec::ValueComparison& c : *list)
                m_rows.push_back(&c);
    endResetModel();
}

const exec::ValueComparison* ValidationModel::comparison(int row) const
{
    return row >= 0 && static_cast<size_t>(row) < m_rows.size() ? m_rows[static_cast<size_t>(row)] : nullptr;
}

int ValidationModel::firstDivergenceRow() const
{
    // validate() names the earliest mismatching row in program order (its `order`).
    int best = -1;
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (!m_rows[i]->matches() && (best < 0 || m_rows[i]->order < m_rows[static_cast<size_t>(best)]->order))
            best = static_cast<int>(i);
    return best;
}

int ValidationModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ValidationModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NumColumns; }

QString ValidationModel::cellText(const exec::ValueComparison& c, int column) const
{
    switch (column) {
    case ValueColumn: return QString::fromStdString(c.name);
    case OpColumn: {
        // `stablehlo.` goes without saying (the tool tip has the whole name).
        QString op = QString::fromStdString(c.opName);
        if (op.startsWith(QStringLiteral("stablehlo.")))
            op = op.mid(10);
        if (op.isEmpty())
            op = c.kind == exec::ValueComparison::Kind::Argument ? tr("argument") : tr("result");
        if (c.pos.line > 0)
            op += tr(" (line %1)").arg(c.pos.line);
        return op;
    }
    case DeviceColumn: return rowDevicesText(c);
    case MaxAbsColumn: return validationErrorText(c.maxAbsError);
    case MaxRelColumn: return validationErrorText(c.maxRelError);
    case NmseColumn: return validationErrorText(c.nmse);
    case ToleranceColumn: return validationToleranceText(c.tolerance);
    case StatusColumn: return c.matches() ? tr("match") : tr("MISMATCH");
    }
    return {};
}

QVariant ValidationModel::data(const QModelIndex& index, int role) const
{
    const exec::ValueComparison* c = comparison(index.row());
    if (!c || index.column() < 0 || index.column() >= NumColumns)
        return {};
    switch (role) {
    case Qt::DisplayRole: return cellText(*c, index.column());
    case MatchRole: return c->matches();
    case SortRole:
        switch (index.column()) {
        case MaxAbsColumn: return c->maxAbsError;
        case MaxRelColumn: return c->maxRelError;
        case NmseColumn: return c->nmse;
        case ToleranceColumn: return c->tolerance.rel;
        case OpColumn:
        case ValueColumn: return static_cast<qlonglong>(c->order); // program order
        case DeviceColumn: return c->devices.empty() ? std::numeric_limits<qlonglong>::max() : c->devices.front();
        default: return cellText(*c, index.column());
        }
    case Qt::TextAlignmentRole:
        if (index.column() >= MaxAbsColumn && index.column() <= NmseColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ForegroundRole:
        // A mismatch reads in red in both palettes (a mid red, legible on white and on dark grey).
        if (!c->matches())
            return QBrush(QColor(0xd0, 0x30, 0x30));
        return {};
    case Qt::FontRole:
        if (!c->matches() && index.column() == StatusColumn) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ToolTipRole: {
        QStringList lines;
        lines << tr("%1 (global %2): %3, each device %4")
                     .arg(QString::fromStdString(c->name), QString::fromStdString(c->globalName),
                          QString::fromStdString(c->type), QString::fromStdString(c->localType));
        lines << tr("sharding %1").arg(QString::fromStdString(c->sharding));
        if (c->pos.line > 0)
            lines << tr("%1 at %2:%3:%4")
                         .arg(QString::fromStdString(c->opName.empty() ? std::string("defined") : c->opName),
                              QString::fromStdString(c->pos.file))
                         .arg(c->pos.line)
                         .arg(c->pos.col);
        lines << tr("%1 elements compared over every device, %2 outside the tolerance; largest |global| %3")
                     .arg(c->elements)
                     .arg(c->mismatches)
                     .arg(validationErrorText(c->scale));
        if (!c->devices.empty())
            lines << tr("devices outside the tolerance: %1").arg(devicesListText(c->devices));
        for (const auto& g : c->replicaDisagreements)
            lines << tr("replicas %1 hold different data").arg(devicesListText(g));
        return lines.join(QLatin1Char('\n'));
    }
    default: return {};
    }
}

QVariant ValidationModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case ValueColumn:
            return tr("The value as the program names it; an inserted collective after the value it moves");
        case OpColumn: return tr("The per-device program's op that computes it, and its line in the file");
        case DeviceColumn: return tr("Devices whose shard is outside the tolerance (or replicas that disagree)");
        case MaxAbsColumn: return tr("Largest |per-device − global| over every element of every device");
        case MaxRelColumn: return tr("Largest |per-device − global| / |global| over non-zero global elements");
        case NmseColumn: return tr("Sum of squared errors / sum of squared global values");
        case ToleranceColumn: return tr("An element passes when its error ≤ abs + rel · max|global value|");
        case StatusColumn: return tr("match, or MISMATCH (the tool tip says how many elements are off)");
        }
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ValueColumn: return tr("Value");
    case OpColumn: return tr("Op");
    case DeviceColumn: return tr("Devices off");
    case MaxAbsColumn: return tr("Max abs err");
    case MaxRelColumn: return tr("Max rel err");
    case NmseColumn: return tr("NMSE");
    case ToleranceColumn: return tr("Tolerance");
    case StatusColumn: return tr("Status");
    }
    return {};
}

} // namespace shardx::views
