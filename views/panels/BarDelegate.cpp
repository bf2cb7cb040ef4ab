// BarDelegate: the bar under the text of a cost cell.
#include "views/panels/BarDelegate.h"

#include <algorithm>

#include <QApplication>
#include <QPainter>

namespace shardx::views {

BarDelegate::BarDelegate(int fractionRole, QObject* parent) : QStyledItemDelegate(parent), m_role(fractionRole) {}

void BarDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    // The row's selection and background first, then the bar, then the text over both.
    QStyleOptionViewItem background = option;
    initStyleOption(&background, index);
    background.text.clear();
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &background, painter, widget);

    const double fraction = std::clamp(index.data(m_role).toDouble(), 0.0, 1.0);
    if (fraction > 0) {
        QRectF bar = QRectF(option.rect).adjusted(2, 3, -2, -3);
        bar.setWidth(bar.width() * fraction);
        QColor colour = option.palette.color(QPalette::Highlight);
        colour.setAlpha(option.state & QStyle::State_Selected ? 110 : 70);
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing);
        painter->setPen(Qt::NoPen);
        painter->setBrush(colour);
        painter->drawRoundedRect(bar, 2, 2);
        painter->restore();
    }

    // The text last, by hand: a second CE_ItemViewItem would paint an alternate row's
    // background over the bar.
    const QString text = index.data(Qt::DisplayRole).toString();
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 1;
    const QRect rect = option.rect.adjusted(margin, 0, -margin, 0);
    const bool selected = option.state & QStyle::State_Selected;
    auto alignment = index.data(Qt::TextAlignmentRole).value<Qt::Alignment>();
    if (!alignment)
        alignment = Qt::AlignLeft | Qt::AlignVCenter;
    painter->save();
    painter->setFont(option.font);
    painter->setPen(option.palette.color(selected ? QPalette::HighlightedText : QPalette::Text));
    painter->drawText(rect, static_cast<int>(alignment),
                      option.fontMetrics.elidedText(text, Qt::ElideRight, rect.width()));
    painter->restore();
}

} // namespace shardx::views
