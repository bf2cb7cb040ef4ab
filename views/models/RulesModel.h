// RulesModel: what a scalax-style rule file gives each function argument, result and named
// sharding constraint of the open program, one row each.
#pragma once

#include <vector>

#include <QAbstractTableModel>
#include <QString>

namespace shardx::views {

/// One argument, result or named sharding constraint, copied out of annotate::AnnotateResult.
struct RuleRow {
    enum class Kind { Argument, Result, Annotation };
    Kind kind = Kind::Argument;
    QString func;     ///< `@main`
    QString name;     ///< `%arg1`, `result 0`, `%5`
    QString path;     ///< the tree path the rules saw (`params/layer_0/w`), or the annotation name
    QString type;     ///< `tensor<64x256xf32>`
    QString spec;     ///< `P(None, 'model')`; empty when none was given
    QString sharding; ///< the sharding written, `<@mesh, [{}, {"model"}]>`
    QString rule;     ///< `tree_path rule /rules/0: pattern 1 'w$'`, `no rule matched: replicated`
    QString pointer;  ///< JSON pointer of the rule that matched (`/rules/0`), empty for none
    QString had;      ///< the sharding it had (`mhlo.sharding {devices=[2,1]0,1} = P('data')`)
    QString error;
    bool kept = false; ///< kept what it had (keep existing shardings)
    int value = -1;    ///< ProgramIds index
};

class RulesModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { ValueColumn, PathColumn, TypeColumn, SpecColumn, RuleColumn, HadColumn, NumColumns };
    enum Role {
        SortRole = Qt::UserRole + 1, ///< the row's position for the value column, else the text
        ValueRole,                   ///< int: ProgramIds value index
        PointerRole,                 ///< QString: JSON pointer of the rule that matched
    };

    explicit RulesModel(QObject* parent = nullptr);
    void setRows(std::vector<RuleRow> rows);
    const std::vector<RuleRow>& rows() const { return m_rows; }
    /// The row of value `value`, or -1.
    int rowOfValue(int value) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<RuleRow> m_rows;
};

} // namespace shardx::views
