// ShardLegend: the key of the mesh view and shard map (slice colours, padding, partial sums, selection).
#pragma once

#include <memory>

#include <QWidget>

#include "core/sharding/LocalShape.h"

namespace shardx::views {

/// One line (wrapping when narrow) of swatches and words: the slice colours, and, when the layout
/// has them, the padding hatch, the Σ of unreduced axes, and the selection outline.
class ShardLegend : public QWidget {
    Q_OBJECT

public:
    explicit ShardLegend(QWidget* parent = nullptr);
    void setShardedLayout(std::shared_ptr<const ShardedLayout> layout);
    /// The entries shown, in order (for tests and accessibility).
    QStringList entries() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    enum class Swatch { Slices, Padding, Partial, Selected };
    struct Entry {
        Swatch swatch;
        QString text;
    };
    std::vector<Entry> currentEntries() const;
    /// Lays the entries out in `width`; returns the height used (and the rects when `out`).
    int flow(int width, std::vector<QRect>* out) const;

    std::shared_ptr<const ShardedLayout> m_layout;
};

} // namespace shardx::views
