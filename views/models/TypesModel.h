// TypesModel: JAX's explicit-mode type of every value of the open program beside the sharding
// Shardy's propagation gave it, one row each, as the Types panel computes them on the core thread.
#pragma once

#include <vector>

#include <QAbstractTableModel>
#include <QString>

namespace shardx::views {

/// One value: what the table shows, copied out of the core's result (which points into a module
/// that may change under the UI thread).
struct TypeRow {
    QString func;       ///< `@main`
    QString name;       ///< `%0`, `%arg0`, `result 0`
    QString op;         ///< `stablehlo.add`; empty for arguments and results
    QString type;       ///< `f32[16@X,256]`; empty for a value that is no ranked tensor
    QString how;        ///< `out sharding`, `recovered after an error`, ...
    QString propagated; ///< the propagated sharding in the same notation; empty before propagation
    QString sharding;   ///< the propagated sharding as Shardy prints it (only where it differs)
    QString reason;     ///< why type and propagated sharding differ; empty when they agree
    bool differs = false;
    bool moreSpecific = false; ///< differs only by axes that are not Explicit (consistent)
    bool error = false;        ///< its op has an explicit-mode error
    int value = -1;            ///< ProgramIds index, -1 when unnamed
    QString file;
    int line = 0;
    int col = 0;
};

/// The rows of TypeRow, in program order.
class TypesModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { ValueColumn, OpColumn, TypeColumn, PropagatedColumn, DifferenceColumn, NumColumns };
    enum Role {
        SortRole = Qt::UserRole + 1, ///< the row's position for the value column, else the text
        ValueRole,                   ///< int: ProgramIds value index
        DiffersRole,                 ///< bool
        ErrorRole,                   ///< bool
        NotableRole,                 ///< `true` for a row that differs or has an error, else `false`
    };

    explicit TypesModel(QObject* parent = nullptr);

    void setRows(std::vector<TypeRow> rows);
    const std::vector<TypeRow>& rows() const { return m_rows; }
    /// The first row of value `value`, or -1.
    int rowOfValue(int value) const;
    /// Rows whose type differs from the propagated sharding / that have an error.
    int differenceCount() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<TypeRow> m_rows;
};

} // namespace shardx::views
