// DiagnosticsModel: problems of opening and propagating, one row each (severity, location, message).
#pragma once

#include <QAbstractTableModel>

#include "core/support/Diagnostic.h"

namespace shardx::views {

class DiagnosticsModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { SeverityColumn = 0, LocationColumn, MessageColumn, ColumnCount };
    enum Role { FileRole = Qt::UserRole, LineRole, ColumnRole };

    explicit DiagnosticsModel(QObject* parent = nullptr);
    void setDiagnostics(std::vector<Diagnostic> diagnostics);
    const std::vector<Diagnostic>& diagnostics() const { return m_diags; }
    int errorCount() const;
    int warningCount() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<Diagnostic> m_diags;
};

} // namespace shardx::views
