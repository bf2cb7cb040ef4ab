// ClusterItem: an expanded group (function, region, name scope, range) drawn as a titled frame.
#pragma once

#include <QGraphicsItem>
#include <QList>
#include <QString>

namespace shardx::views {

struct GraphTheme;

/// A rounded frame behind a group's contents, with a title bar (the group's label and what it
/// holds) and a collapse button at its right end. Deeper groups alternate their fill.
class ClusterItem : public QGraphicsItem {
public:
    enum { Type = UserType + 3 };

    ClusterItem(int group, const QRectF& sceneRect, QString title, QString subtitle, int depth, bool collapsible,
                const GraphTheme* theme);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    int group() const { return m_group; }
    const QString& title() const { return m_title; }
    /// The title bar, in item coordinates.
    QRectF titleRect() const;
    /// The part of the title bar its text and button cover, in item coordinates.
    QRectF titleTextRect() const;
    /// The collapse button, in item coordinates (empty when the group cannot collapse).
    QRectF collapseButtonRect() const;
    void setMarked(bool marked);
    bool isMarked() const { return m_marked; }
    void refresh() { update(); }
    /// The frame of a group inside this one is at `sceneRect` (GraphScene tells each frame its
    /// inner frames): where an inner frame's opaque fill covers the exposed part of this frame,
    /// this frame paints nothing (nested open groups would each fill the whole view again).
    void addInnerFrame(const QRectF& sceneRect);
    /// True when `sceneRect` lies where this frame's fill is opaque (inside its rounded corners).
    bool coversOpaquely(const QRectF& sceneRect) const;

private:
    int m_group;
    QRectF m_rect;
    QString m_title;
    QString m_subtitle;
    int m_depth;
    bool m_collapsible;
    const GraphTheme* m_theme;
    bool m_marked = false;
    QList<QRectF> m_innerFrames; ///< where inner frames cover this one, in item coordinates
};

} // namespace shardx::views
