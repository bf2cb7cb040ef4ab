// ChangedValuesModel: the values whose final sharding an edit changed (before and after re-propagation).
#pragma once

#include <optional>
#include <vector>

#include <QAbstractTableModel>

#include "core/sharding/TensorSharding.h"

namespace shardx::views {

/// The final sharding of every value of the user's program, by ProgramIds index (nullopt: none).
struct FinalShardings {
    std::vector<std::optional<TensorSharding>> byValue;
    std::vector<QString> names; ///< the user's name of each value (`%5`), empty for inserted ones
};

/// One row per value whose final sharding differs between two FinalShardings: its name, the
/// sharding before and after. Rows in value order.
class ChangedValuesModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { ValueColumn, BeforeColumn, AfterColumn, NumColumns };
    static constexpr int ValueIndexRole = Qt::UserRole + 1; ///< int: the ProgramIds index of the row

    explicit ChangedValuesModel(QObject* parent = nullptr);

    /// Compares `before` and `after` (values named in `after`, inserted ones left out).
    void setChanges(const FinalShardings& before, const FinalShardings& after);
    void clear();
    /// The ProgramIds index of each row.
    std::vector<int> values() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        int value = -1;
        QString name;
        QString before, after;
    };
    std::vector<Row> m_rows;
};

} // namespace shardx::views
