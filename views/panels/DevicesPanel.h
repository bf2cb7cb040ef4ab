// DevicesPanel: the devices of the partitioned program with their peak memory, the shards the
// chosen device holds, and the per-device program every device runs.
#pragma once

#include <memory>

#include <QWidget>

#include "views/session/PartitionResult.h"

class QLabel;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;
class QTabWidget;

namespace shardx::views {

class DeviceMemoryModel;
class SessionContext;
class SourceView;
class TensorShardModel;

/// The "Devices" panel: a table of every device of the mesh (id, mesh coordinates, peak live
/// memory with a bar in proportion to the largest); for the chosen device, the shard it holds of
/// each tensor (sharding, global and local shapes, index ranges, padding), whose rows select the
/// value; and the per-device program, read-only, which every device runs (SPMD) on its own
/// shards. Asks SessionContext to partition when shown and redraws on partitionChanged.
class DevicesPanel : public QWidget {
    Q_OBJECT

public:
    explicit DevicesPanel(SessionContext& context, QWidget* parent = nullptr);
    ~DevicesPanel() override;

    DeviceMemoryModel* deviceModel() const { return m_devices; }
    TensorShardModel* shardModel() const { return m_shards; }
    QTableView* deviceView() const { return m_deviceView; }
    QTableView* shardView() const { return m_shardView; }
    QTabWidget* tabs() const { return m_tabs; }
    SourceView* programView() const { return m_program; }
    /// The line above the tables, or why nothing is shown.
    QString summaryText() const;
    /// The caption of the program view (names the chosen device).
    QString programCaption() const;
    /// Chooses the device with id `deviceId` (as a click on its row does).
    void chooseDevice(int64_t deviceId);
    /// The id of the chosen device, -1 for none.
    int64_t chosenDevice() const { return m_deviceId; }

    /// Whether the panel's dock is the one shown among its tabs (QDockWidget::visibilityChanged: a dock
    /// behind another tab is still a visible widget). Partitioning is asked for only while it is.
    void setDockShown(bool shown);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refresh();
    void showDevice(int deviceIndex);
    void followSelection(int value);
    void fitDeviceTable();

    SessionContext& m_context;
    DeviceMemoryModel* m_devices;
    QSortFilterProxyModel* m_deviceProxy;
    TensorShardModel* m_shards;
    QSortFilterProxyModel* m_shardProxy;
    QLabel* m_summary;
    QLabel* m_message;
    QSplitter* m_splitter;
    QTableView* m_deviceView;
    QTabWidget* m_tabs;
    QLabel* m_shardCaption;
    QTableView* m_shardView;
    QLabel* m_programCaption;
    SourceView* m_program;
    std::shared_ptr<const PartitionResult> m_shown;
    bool m_dockShown = true; ///< outside a dock, shown whenever visible
    int64_t m_deviceId = -1;
    bool m_sized = false; ///< the splitter was sized to the device table once
};

} // namespace shardx::views
