// LabelPlacer: where edge labels go so that they cover no node, group title or other label.
#pragma once

#include <QHash>
#include <QList>
#include <QRectF>
#include <QVector>

#include <optional>

namespace shardx::views {

class EdgeItem;

/// Keeps obstacles and placed labels in a grid of cells, so that placing one label costs a few
/// cell lookups: a step that changes two labels re-places two labels, whatever the scene's size.
class LabelPlacer {
public:
    /// Forgets everything.
    void clear();
    /// Something labels must not cover (a node, a group's title).
    void addObstacle(const QRectF& rect);
    /// Places `edge`'s label: near the start of its edge, else further along or on the other
    /// side; hidden when it fits nowhere. Its previous place is freed first.
    void place(EdgeItem* edge);
    /// Frees `edge`'s place (its item goes away or its label empties).
    void remove(const EdgeItem* edge);

private:
    struct Entry {
        QRectF rect;
        const EdgeItem* owner = nullptr; ///< null for obstacles
    };
    template <typename F> void forCells(const QRectF& r, F&& fn) const;
    bool isFree(const QRectF& r) const;
    void insert(const QRectF& r, const EdgeItem* owner);

    QHash<quint64, QVector<Entry>> m_cells;
    QHash<const EdgeItem*, QRectF> m_placed;
};

} // namespace shardx::views
