// MeshPanel: the meshes of the program and the N-D shard map of the selected value at the current step.
#pragma once

#include <memory>
#include <optional>

#include <QWidget>

#include "core/ir/Type.h"
#include "core/mesh/Mesh.h"
#include "core/sharding/LocalShape.h"
#include "core/sharding/TensorSharding.h"

class QComboBox;
class QLabel;
class QStackedWidget;
class QToolButton;
class QSplitter;
class QTableView;

namespace shardx::views {

class DeviceShardModel;
class MeshGridView;
class SessionContext;
class ShardLegend;
class ShardMapView;

/// The "Mesh and Shards" panel. Its mesh list holds every sdy.mesh of the module (and the inline
/// mesh of the selected value's sharding); the device grid shows the mesh of the selected value's
/// sharding at the current step (else the one chosen in the list). For the selected tensor it
/// shows which slice each device holds: the shard map (rows, columns and facets chosen with the
/// dimension lists), the device grid coloured by slice, a legend, and a per-device table.
/// Clicking a device outlines its slice in the map and its replicas in the grid; clicking a
/// block outlines the devices that hold it. Redraws on moduleChanged, stepChanged and
/// selectionChanged; computes nothing but the layout of one tensor (core's computeShardedLayout).
class MeshPanel : public QWidget {
    Q_OBJECT

public:
    explicit MeshPanel(SessionContext& context, QWidget* parent = nullptr);
    ~MeshPanel() override;

    MeshGridView* meshView() const { return m_grid; }
    ShardMapView* shardMap() const { return m_map; }
    DeviceShardModel* deviceModel() const { return m_model; }
    ShardLegend* legend() const { return m_legend; }
    QComboBox* meshList() const { return m_meshCombo; }
    /// The layout shown (nullptr when no sharded tensor is selected).
    const ShardedLayout* shownLayout() const { return m_layout.get(); }
    /// The line above the views: the value, its type and sharding, or why nothing is shown.
    QString summaryText() const;
    /// Selects a device as a click on it does (-1: none).
    void selectDevice(qint64 deviceId);
    /// Shows the per-device table instead of the map (or back).
    void showTable(bool table);
    bool isTableShown() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuildMeshList();
    void refresh();
    void showMesh(int meshIndex);
    void fillDimLists(int rank);
    void onDimsChosen();
    /// Tints the checked one of Map and Devices with the highlight colour: Fusion draws a checked
    /// tool button a shade darker than its button colour, which a dark palette hides.
    void updatePageButtons();
    /// The type of `value`, looked up once per selection (Session::valueType walks the module).
    const std::optional<ir::Type>& typeOf(int value);

    SessionContext& m_context;
    struct NamedMesh {
        QString name;
        Mesh mesh;
    };
    std::vector<NamedMesh> m_meshes;
    std::shared_ptr<const ShardedLayout> m_layout;
    QComboBox* m_meshCombo;
    QLabel* m_meshText;
    QLabel* m_summary;
    QComboBox* m_rowDims;
    QComboBox* m_colDims;
    QStackedWidget* m_pages;
    QToolButton* m_mapButton;
    QToolButton* m_tableButton;
    MeshGridView* m_grid;
    ShardMapView* m_map;
    ShardLegend* m_legend;
    DeviceShardModel* m_model;
    QTableView* m_table;
    QSplitter* m_splitter = nullptr;
    int m_rank = -1;
    int m_typeOf = -1; ///< the value m_type is of (-1: none looked up)
    std::optional<ir::Type> m_type;
    bool m_updating = false;
};

} // namespace shardx::views
