// ShardMapView: a tensor of any rank drawn as blocks (its shards), each coloured by the slice it is and
// labelled with the devices that hold it.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include <QWidget>

#include "core/sharding/LocalShape.h"

namespace shardx::views {

/// Draws the layout of one sharded tensor. Two of its dimensions (rows and columns, the first two
/// by default; setGridDims() picks others) form a grid of blocks, one per shard along each; every
/// other sharded dimension multiplies the grid into small multiples (facets), one per shard index
/// combination, captioned with the index ranges they stand for. A rank-1 tensor is one row of
/// blocks, a scalar one block. Blocks have the padded (per-device) size: the padding of the last
/// shards of an uneven dimension is hatched, and axis ticks give the global index at each block
/// boundary. A block's colour is its slice (the same colours as MeshGridView), its label the
/// devices holding it (replicas); unreduced layouts mark each block Σ (its holders hold partial
/// results). Clicking a block emits regionClicked; a selected device outlines its block.
class ShardMapView : public QWidget {
    Q_OBJECT

public:
    /// One drawn block.
    struct Block {
        QRectF rect;                     ///< the padded block
        QRectF realRect;                 ///< the part holding real elements (empty: all padding)
        int region = -1;                 ///< ShardedLayout::regionGroups index
        int facet = 0;                   ///< which small multiple
        std::vector<int64_t> shardIndex; ///< per tensor dimension
    };
    /// Facets beyond this many are not drawn (the caption says how many are left out).
    static constexpr int kMaxFacets = 48;

    explicit ShardMapView(QWidget* parent = nullptr);

    /// Shows `layout` (nullptr: `message` instead).
    void setShardedLayout(std::shared_ptr<const ShardedLayout> layout, const QString& message = {});
    /// The dimensions drawn as rows and columns (-1: none); out-of-range values fall back to the
    /// defaults (0 and 1, or the only dimension as columns).
    void setGridDims(int rowDim, int colDim);
    int rowDim() const { return m_rowDim; }
    int colDim() const { return m_colDim; }

    void setSelectedDevice(qint64 deviceId);
    qint64 selectedDevice() const { return m_selected; }
    void setHighlightedRegion(int region);
    int highlightedRegion() const { return m_region; }

    const std::vector<Block>& blocks() const { return m_blocks; }
    /// Small multiples in all (drawn: at most kMaxFacets).
    int numFacets() const { return m_numFacets; }
    /// The block under `pos`, or nullptr.
    const Block* blockAt(const QPointF& pos) const;
    /// The text of a block's tooltip.
    QString blockToolTip(const Block& block) const;
    const QString& message() const { return m_message; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;

signals:
    void regionClicked(int region);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Text {
        QRectF rect;
        QString text;
        int flags = 0;
        bool title = false;
    };
    /// What the layout needs before it places anything: grid and facet counts, titles, margins.
    struct Frame {
        int rows = 1, cols = 1, numFacets = 0, shown = 0;
        std::vector<int> facetDims;
        std::vector<std::pair<QString, bool>> titles; ///< text, emphasised
        int lineH = 0, titleH = 0, titleW = 0, rowTickW = 0, colTickH = 0, captionH = 0;
    };
    Frame frame() const;
    /// The most facets per row that fit `width` with the smallest blocks (at least 1).
    int columnsFor(const Frame& f, int width) const;
    /// The height of the map with `facetColumns` facets per row and the smallest blocks.
    int heightFor(const Frame& f, int facetColumns) const;
    void relayout();
    QString dimTitle(int dim) const;
    QString facetCaption(const std::vector<int64_t>& index) const;
    int64_t validExtent(int dim, int64_t shard) const;
    int regionOfIndex(const std::vector<int64_t>& index) const;

    std::shared_ptr<const ShardedLayout> m_layout;
    QString m_message;
    int m_rowDim = -1, m_colDim = -1;
    qint64 m_selected = -1;
    int m_region = -1;
    std::map<std::vector<int64_t>, int> m_regionOfIndex;
    std::vector<Block> m_blocks;
    std::vector<Text> m_texts;
    std::vector<std::pair<QPointF, QPointF>> m_ticks;
    int m_numFacets = 0;
    QSize m_minSize;
};

} // namespace shardx::views
