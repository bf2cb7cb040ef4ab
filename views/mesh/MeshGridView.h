// MeshGridView: the devices of a mesh as a grid (any rank: nested grids), coloured by the slice each holds.
#pragma once

#include <memory>
#include <vector>

#include <QWidget>

#include "core/mesh/AxisRef.h"
#include "core/mesh/Mesh.h"
#include "core/sharding/LocalShape.h"

namespace shardx::views {

/// Draws a mesh's devices: a 1-D mesh as a row, a 2-D mesh as a grid (rows: the first axis,
/// columns: the second), and higher ranks as a grid of such grids, the outer axes alternating
/// across and down, each grid captioned with its outer coordinates. Cells show the device id in
/// the mesh's device order (device_ids honoured). With a layout (the sharding of the selected
/// tensor) each cell takes the colour of the slice the device holds, so replicas share a colour;
/// sub-axes the sharding uses are marked over the axis they split. Clicking a device selects
/// it (deviceClicked); the tooltip gives its coordinates, index ranges and local shape.
class MeshGridView : public QWidget {
    Q_OBJECT

public:
    explicit MeshGridView(QWidget* parent = nullptr);

    /// Shows `mesh` (named `name`) without a layout.
    void setMesh(const Mesh& mesh, const QString& name);
    /// Colours the devices by `layout` (of a tensor on the mesh set last; nullptr: none); `usedAxes`
    /// are the axes and sub-axes its sharding uses (for the sub-axis marks).
    void setLayout(std::shared_ptr<const ShardedLayout> layout, std::vector<AxisRef> usedAxes);
    const Mesh& mesh() const { return m_mesh; }

    /// Outlines `deviceId` (-1: none) and dims the devices that do not hold its slice.
    void setSelectedDevice(qint64 deviceId);
    qint64 selectedDevice() const { return m_selected; }
    /// Outlines the devices holding slice `region` (-1: none).
    void setHighlightedRegion(int region);
    int highlightedRegion() const { return m_region; }

    /// The cell of `deviceId` (empty when not shown), in widget coordinates.
    QRect deviceRect(qint64 deviceId) const;
    /// The device under `pos`, or -1.
    qint64 deviceAt(const QPoint& pos) const;
    /// The text of a device's tooltip.
    QString deviceToolTip(qint64 deviceId) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void deviceClicked(qint64 deviceId);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Cell {
        QRect rect;
        qint64 device = 0;
        int64_t position = 0;
    };
    struct Label {
        QRect rect;
        QString text;
        int flags = 0;
        bool title = false; ///< an axis name (emphasised) rather than an index
    };
    /// Lays the grid out again with cells as large as the widget's size allows, between the smallest
    /// cell that still shows a device id and the natural one (the size hint): a mesh of 4 rows fits a
    /// short dock instead of scrolling.
    void relayout();
    /// Lays out every cell, label and frame with cells of `cell`; sets m_contentSize.
    void layoutCells(QSize cell);
    /// Lays out one inner grid at `origin`; returns its size.
    QSize layoutBlock(QPoint origin, int64_t basePosition, const QString& caption);
    /// Index labels and sub-axis spans of inner axis `axis` along `count` cells from `start`.
    void addSubAxisSpans(int axis, QPoint start, bool horizontal, int cellExtent, int gap, int& extent);
    const DeviceShard* shardOf(qint64 deviceId) const;

    Mesh m_mesh;
    QString m_name;
    std::shared_ptr<const ShardedLayout> m_layout;
    std::vector<AxisRef> m_used;
    qint64 m_selected = -1;
    int m_region = -1;
    std::vector<Cell> m_cells;
    std::vector<Label> m_labels;
    std::vector<QLine> m_spanLines;
    std::vector<QRect> m_frames;
    QSize m_contentSize;
    QSize m_cellSize;
    QSize m_naturalSize; ///< content with the natural cell size (sizeHint)
    QSize m_minimumSize; ///< content with the smallest cell size (minimumSizeHint)
};

} // namespace shardx::views
