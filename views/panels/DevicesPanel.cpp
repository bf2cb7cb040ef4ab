// DevicesPanel: devices and their memory, one device's shards, and the per-device program.
#include "views/panels/DevicesPanel.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "views/models/DeviceMemoryModel.h"
#include "views/models/TensorShardModel.h"
#include "views/models/Units.h"
#include "views/panels/BarDelegate.h"
#include "views/panels/PartitionStatus.h"
#include "views/panels/SourcePanel.h"
#include "views/panels/TableViews.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

namespace {

QTableView* makeTable(QAbstractItemModel* model, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setModel(model);
    setUpListTable(view);
    return view;
}

QLabel* caption(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setContentsMargins(2, 2, 2, 2);
    return label;
}

} // namespace

DevicesPanel::DevicesPanel(SessionContext& context, QWidget* parent)
    : QWidget(parent),
      m_context(context),
      m_devices(new DeviceMemoryModel(this)),
      m_deviceProxy(new QSortFilterProxyModel(this)),
      m_shards(new TensorShardModel(this)),
      m_shardProxy(new QSortFilterProxyModel(this)),
      m_summary(new QLabel(this)),
      m_message(new QLabel(this)),
      m_splitter(new QSplitter(Qt::Horizontal, this)),
      m_deviceView(makeTable(m_deviceProxy, this)),
      m_tabs(new QTabWidget(this)),
      m_shardCaption(caption(this)),
      m_shardView(makeTable(m_shardProxy, this)),
      m_programCaption(caption(this)),
      m_program(new SourceView(this))
{
    m_deviceProxy->setSourceModel(m_devices);
    m_deviceProxy->setSortRole(DeviceMemoryModel::SortRole);
    m_shardProxy->setSourceModel(m_shards);
    m_shardProxy->setSortRole(TensorShardModel::SortRole);
    m_deviceView->setObjectName(QStringLiteral("devicesTable"));
    m_shardView->setObjectName(QStringLiteral("shardsTable"));
    m_program->setObjectName(QStringLiteral("localProgram"));
    m_deviceView->setItemDelegateForColumn(DeviceMemoryModel::MemoryColumn,
                                           new BarDelegate(DeviceMemoryModel::FractionRole, this));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setWordWrap(true);
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setForegroundRole(QPalette::PlaceholderText);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* shardsPage = new QWidget;
    auto* shardsLayout = new QVBoxLayout(shardsPage);
    shardsLayout->setContentsMargins(0, 4, 0, 0);
    shardsLayout->setSpacing(2);
    shardsLayout->addWidget(m_shardCaption);
    shardsLayout->addWidget(m_shardView, 1);
    auto* programPage = new QWidget;
    auto* programLayout = new QVBoxLayout(programPage);
    programLayout->setContentsMargins(0, 4, 0, 0);
    programLayout->setSpacing(2);
    programLayout->addWidget(m_programCaption);
    programLayout->addWidget(m_program, 1);
    m_tabs->addTab(shardsPage, tr("Shards"));
    m_tabs->addTab(programPage, tr("Per-Device Program"));
    m_tabs->setDocumentMode(true);

    m_splitter->addWidget(m_deviceView);
    m_splitter->addWidget(m_tabs);
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 3);
    m_splitter->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(m_message, 1);
    layout->addWidget(m_splitter, 1);

    connect(m_deviceView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid())
                    showDevice(m_deviceProxy->mapToSource(current).row());
            });
    auto selectValue = [this](const QModelIndex& index) {
        const int value = index.data(TensorShardModel::ValueRole).toInt();
        if (value >= 0)
            m_context.select(value);
    };
    connect(m_shardView, &QTableView::clicked, this, selectValue);
    connect(m_shardView, &QTableView::activated, this, selectValue);
    connect(&m_context, &SessionContext::partitionChanged, this, &DevicesPanel::refresh);
    connect(&m_context, &SessionContext::moduleChanged, this, &DevicesPanel::refresh);
    connect(&m_context, &SessionContext::busyChanged, this, &DevicesPanel::refresh);
    connect(&m_context, &SessionContext::selectionChanged, this, [this](int value) { followSelection(value); });
    refresh();
}

DevicesPanel::~DevicesPanel() = default;

QString DevicesPanel::summaryText() const { return m_message->isVisible() ? m_message->text() : m_summary->text(); }

QString DevicesPanel::programCaption() const { return m_programCaption->text(); }

void DevicesPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refresh();
    fitDeviceTable();
}

void DevicesPanel::fitDeviceTable()
{
    // Once, when first shown with devices: as wide as the device table's columns; the shards and
    // the program take the rest.
    if (m_sized || !isVisible() || m_devices->rowCount() == 0)
        return;
    m_sized = true;
    int width = 2 * m_deviceView->frameWidth() + m_deviceView->verticalScrollBar()->sizeHint().width() + 2;
    for (int col = 0; col < DeviceMemoryModel::NumColumns; ++col)
        width += m_deviceView->columnWidth(col);
    const int total = std::max(m_splitter->width(), 2 * width);
    m_splitter->setSizes({width, total - width});
}

void DevicesPanel::setDockShown(bool shown)
{
    m_dockShown = shown;
    if (shown) {
        refresh();
        fitDeviceTable();
    }
}

void DevicesPanel::refresh()
{
    if (m_dockShown && isVisible())
        m_context.requestPartition();
    const std::shared_ptr<const PartitionResult>& result = m_context.partitionResult();
    if (result && result == m_shown)
        return;
    m_shown = result;
    const bool ok = result && result->model;
    m_devices->setResult(ok ? result : nullptr);
    QString message;
    if (!result)
        message = partitionWaitingText(m_context);
    else if (!result->model)
        message = tr("Partitioning failed:\n%1").arg(result->error);
    else if (result->model->devices.empty())
        message = tr("The program has no mesh: it runs on one device.");
    m_message->setText(message);
    m_message->setAlignment(result && !result->model ? Qt::AlignLeft | Qt::AlignTop : Qt::AlignCenter);
    m_message->setVisible(!message.isEmpty());
    m_splitter->setVisible(message.isEmpty());
    m_summary->setVisible(message.isEmpty());
    if (!message.isEmpty()) {
        m_shards->setDevice(nullptr, -1);
        m_program->clear();
        return;
    }

    const PartitionModel& model = *result->model;
    int64_t low = model.devices.front().peakLiveBytes, high = low;
    for (const DeviceInfo& d : model.devices) {
        low = std::min(low, d.peakLiveBytes);
        high = std::max(high, d.peakLiveBytes);
    }
    const QString mesh = QStringLiteral("@%1 %2").arg(QString::fromStdString(model.meshName),
                                                      QString::fromStdString(model.mesh.toString()));
    const QString memory =
        low == high ? tr("peak live memory %1 on every device").arg(shortBytesText(high))
                    : tr("peak live memory %1 to %2 per device").arg(shortBytesText(low), shortBytesText(high));
    m_summary->setText(
        tr("<b>%1 devices</b> of <code>%2</code> · %3").arg(model.devices.size()).arg(mesh.toHtmlEscaped(), memory));
    m_program->setPlainText(result->programText);
    m_shards->setDevice(nullptr, -1); // the device's shards of the new result follow
    m_deviceView->resizeColumnsToContents();
    m_deviceView->setColumnWidth(DeviceMemoryModel::MemoryColumn,
                                 std::max(m_deviceView->columnWidth(DeviceMemoryModel::MemoryColumn), 140));
    fitDeviceTable();
    // Keep the chosen device across results (an edit, propagating again), else the first.
    int row = 0;
    for (int r = 0; r < m_deviceProxy->rowCount(); ++r)
        if (const DeviceInfo* d = m_devices->device(m_deviceProxy->mapToSource(m_deviceProxy->index(r, 0)).row());
            d && d->id == m_deviceId)
            row = r;
    m_deviceView->selectionModel()->setCurrentIndex(m_deviceProxy->index(row, 0),
                                                    QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    showDevice(m_deviceProxy->mapToSource(m_deviceProxy->index(row, 0)).row());
}

void DevicesPanel::chooseDevice(int64_t deviceId)
{
    for (int r = 0; r < m_deviceProxy->rowCount(); ++r) {
        const QModelIndex index = m_deviceProxy->index(r, 0);
        const DeviceInfo* d = m_devices->device(m_deviceProxy->mapToSource(index).row());
        if (d && d->id == deviceId) {
            m_deviceView->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                                       QItemSelectionModel::Rows);
            m_deviceView->scrollTo(index);
            return;
        }
    }
}

void DevicesPanel::showDevice(int deviceIndex)
{
    const DeviceInfo* d = m_devices->device(deviceIndex);
    if (!d || !m_shown || !m_shown->model)
        return;
    const bool shown = m_shards->deviceIndex() == deviceIndex;
    m_deviceId = d->id;
    const Mesh& mesh = m_shown->model->mesh;
    const QString where = namedCoordsText(d->coords, mesh);
    if (!shown) {
        m_shards->setDevice(m_shown, deviceIndex);
        m_shardView->resizeColumnsToContents();
        for (int col = 0; col < TensorShardModel::ShardingColumn; ++col)
            m_shardView->setColumnWidth(col, std::min(m_shardView->columnWidth(col), 320));
        followSelection(m_context.selectedValue());
    }
    m_shardCaption->setText((m_shown->everyTensor
                                 ? tr("What device <b>%1</b> (%2) holds of each tensor; click one to select it.")
                                 : tr("What device <b>%1</b> (%2) holds of each argument and result of the program "
                                      "(the program is too large to list every tensor); click one to select it."))
                                .arg(d->id)
                                .arg(where.toHtmlEscaped()));
    m_programCaption->setText(tr("Every device runs this one program (SPMD) on its own shards; device <b>%1</b> (%2) "
                                 "runs it as <code>partition_id</code> %1.")
                                  .arg(d->id)
                                  .arg(where.toHtmlEscaped()));
}

void DevicesPanel::followSelection(int value)
{
    const int row = m_shards->rowOfValue(value);
    if (row < 0) {
        m_shardView->clearSelection();
        return;
    }
    const QModelIndex index = m_shardProxy->mapFromSource(m_shards->index(row, 0));
    m_shardView->selectionModel()->setCurrentIndex(index,
                                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_shardView->scrollTo(index);
}

} // namespace shardx::views
