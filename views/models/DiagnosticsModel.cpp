// DiagnosticsModel: rows, icons and `file:line:col` of every problem.
#include "views/models/DiagnosticsModel.h"

#include <QFileInfo>

#include "views/app/Icons.h"

namespace shardx::views {

DiagnosticsModel::DiagnosticsModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiagnosticsModel::setDiagnostics(std::vector<Diagnostic> diagnostics)
{
    beginResetModel();
    m_diags = std::move(diagnostics);
    endResetModel();
}

int DiagnosticsModel::errorCount() const
{
    return static_cast<int>(std::count_if(m_diags.begin(), m_diags.end(),
                                          [](const Diagnostic& d) { return d.severity == Severity::Error; }));
}

int DiagnosticsModel::warningCount() const
{
    return static_cast<int>(std::count_if(m_diags.begin(), m_diags.end(),
                                          [](const Diagnostic& d) { return d.severity == Severity::Warning; }));
}

int DiagnosticsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_diags.size());
}

int DiagnosticsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DiagnosticsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= static_cast<int>(m_diags.size()))
        return {};
    const Diagnostic& d = m_diags[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case SeverityColumn: return QString::fromLatin1(severityName(d.severity));
        case LocationColumn:
            if (!d.pos.isKnown())
                return QString::fromStdString(d.pos.file);
            return QStringLiteral("%1:%2:%3")
                .arg(QFileInfo(QString::fromStdString(d.pos.file)).fileName())
                .arg(d.pos.line)
                .arg(d.pos.col);
        case MessageColumn: return QString::fromStdString(d.message);
        default: return {};
        }
    case Qt::DecorationRole:
        if (index.column() != SeverityColumn)
            return {};
        return themedIcon(d.severity == Severity::Error     ? QStringLiteral("error")
                          : d.severity == Severity::Warning ? QStringLiteral("warning")
                                                            : QStringLiteral("note"));
    case Qt::ToolTipRole:
        return QStringLiteral("%1:%2:%3: %4")
            .arg(QString::fromStdString(d.pos.file))
            .arg(d.pos.line)
            .arg(d.pos.col)
            .arg(QString::fromStdString(d.message));
    case FileRole: return QString::fromStdString(d.pos.file);
    case LineRole: return d.pos.line;
    case ColumnRole: return d.pos.col;
    default: return {};
    }
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SeverityColumn: return tr("Severity");
    case LocationColumn: return tr("Location");
    case MessageColumn: return tr("Message");
    default: return {};
    }
}

} // namespace shardx::views
