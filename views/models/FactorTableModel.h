// FactorTableModel: the factor table of one op at one step: a row per operand and result, a column
// per factor (size and kind in the header), then the replicated and unreduced axes.
#pragma once

#include <optional>

#include <QAbstractTableModel>

#include "core/session/Session.h"

namespace shardx::views {

class FactorTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Role {
        ChangedRole = Qt::UserRole, ///< bool: the cell differs from the table one step earlier
        ValueRole,                  ///< int: the value of the row, -1 for none
        FactorRole,                 ///< int: the factor of the column, -1 for the axes columns
    };

    explicit FactorTableModel(QObject* parent = nullptr);

    /// Shows `table` and marks the cells that differ from `previous` (the table one step earlier);
    /// `names` labels the rows' values (the file's names). nullopt: empty.
    void setTable(std::optional<OpFactorTable> table, std::optional<OpFactorTable> previous,
                  std::vector<QString> valueNames);
    const std::optional<OpFactorTable>& table() const { return m_table; }
    int numFactors() const;
    /// Columns after the factors.
    int replicatedColumn() const { return numFactors(); }
    int unreducedColumn() const { return numFactors() + 1; }
    /// The text of a cell, as Shardy's factor tables print it (`"x"`, `-` for none, `N` not mapped).
    QString cellText(int row, int column) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString cell(const OpFactorTable& t, int row, int column) const;
    QString factorKinds(int64_t f) const;

    std::optional<OpFactorTable> m_table;
    std::optional<OpFactorTable> m_previous;
    std::vector<QString> m_valueNames;
};

} // namespace shardx::views
