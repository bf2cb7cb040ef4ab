// NodeItem: an op or argument node of the dataflow graph, or a collapsed group shown as one box.
#pragma once

#include <QGraphicsItem>
#include <QList>
#include <QString>

#include "core/layout/DataflowGraph.h"

namespace shardx::views {

struct GraphTheme;

/// A node drawn as a box: its result name (bold) and op name, filled with the colours of the
/// mesh axes its sharding uses (stripes for several, grey when unsharded). Markers show the
/// current step's op, a conflict at this step or earlier, and a sharding the step changed.
/// Collapsed groups draw as a stacked box with their op count. Paints with level of detail:
/// far out, only the filled box.
class NodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };
    enum class Kind { Op, Argument, Terminator, Group };

    /// How the node looks at the current step (GraphStyler sets it).
    struct Style {
        QList<QColor> fills;         ///< one per mesh axis of the sharding; empty: unsharded
        bool hasSharding = false;    ///< false: no sharding at all (not even replicated)
        bool currentStep = false;    ///< the op of the current step
        bool conflictNow = false;    ///< the current step had a conflict on this op
        bool conflictBefore = false; ///< an earlier step on this op had a conflict
        bool changed = false;        ///< the current step changed this node's sharding
        bool operator==(const Style& o) const = default;
    };

    NodeItem(layout::ItemRef ref, Kind kind, const QRectF& sceneRect, QString title, QString detail,
             const GraphTheme* theme);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    layout::ItemRef ref() const { return m_ref; }
    Kind kind() const { return m_kind; }
    const QString& title() const { return m_title; }
    const Style& style() const { return m_style; }
    /// Repaints only when the style differs.
    void setStyle(const Style& style);
    bool isMarked() const { return m_marked; }
    /// The selection frame (not QGraphicsItem's selection: clicks are the view's).
    void setMarked(bool marked);
    /// Drops the cached rendering after a theme change.
    void refresh();
    /// Draws the node as paint() does far out (a filled box), in scene coordinates: for its tile,
    /// which paints its nodes itself then (TileItem).
    void paintFar(QPainter* painter) const;

private:
    QRectF boxRect() const;
    /// The box and its colour far out.
    std::pair<QRectF, QColor> farBox() const;

    layout::ItemRef m_ref;
    Kind m_kind;
    QSizeF m_size;
    QString m_title;
    QString m_detail;
    const GraphTheme* m_theme;
    Style m_style;
    bool m_marked = false;
};

} // namespace shardx::views
