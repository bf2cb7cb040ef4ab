// BarDelegate: a table cell with a bar behind its text, as long as the row's share of the largest.
#pragma once

#include <QStyledItemDelegate>

namespace shardx::views {

/// Draws the cell as usual over a bar that fills `fractionRole`'s share (a double in [0, 1]) of
/// the cell's width, for columns of costs where the eye should find the largest at a glance
/// (hotspot's cost delegate).
class BarDelegate : public QStyledItemDelegate {
    Q_OBJECT

public:
    BarDelegate(int fractionRole, QObject* parent = nullptr);
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;

private:
    int m_role;
};

} // namespace shardx::views
