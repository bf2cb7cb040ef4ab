// ValidationModel: the values a validation compared, one row each, in program order.
#pragma once

#include <memory>
#include <vector>

#include <QAbstractTableModel>

#include "core/exec/Validation.h"

namespace shardx::views {

/// One row per value an exec::ValidationReport compared (arguments, intermediates, results, in the per-device
/// program's order): its name, the op computing it, the devices whose shard is off, the largest absolute and
/// relative errors, the NMSE, the tolerance and match / MISMATCH. The tool tip has the types, the sharding and
/// where the op is. SortRole gives numbers for the numeric columns.
class ValidationModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        ValueColumn,
        OpColumn,
        DeviceColumn,
        MaxAbsColumn,
        MaxRelColumn,
        NmseColumn,
        ToleranceColumn,
        StatusColumn,
        NumColumns
    };
    enum Role {
        SortRole = Qt::UserRole + 1, ///< a number for numeric columns, else the text
        MatchRole,                   ///< bool: the row's value matches
    };

    explicit ValidationModel(QObject* parent = nullptr);

    /// Shows the values of `report` (nullptr: none).
    void setReport(std::shared_ptr<const exec::ValidationReport> report);
    const std::shared_ptr<const exec::ValidationReport>& report() const { return m_report; }
    /// The comparison of `row`, or nullptr.
    const exec::ValueComparison* comparison(int row) const;
    /// The row of the report's first divergence (the earliest mismatching value in program order), or -1.
    int firstDivergenceRow() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString cellText(const exec::ValueComparison& c, int column) const;

    std::shared_ptr<const exec::ValidationReport> m_report;
    std::vector<const exec::ValueComparison*> m_rows;
};

/// `2.1`, `3.05e-07`, `0`, `inf`: three significant digits, as the CLI's table writes errors.
QString validationErrorText(double v);
/// `exact`, `1e-05 + 0.0001·max|x|`.
QString validationToleranceText(const exec::Tolerance& t);

} // namespace shardx::views
