// MeshPanel: mesh list, device grid, shard map, legend and device table of the selected value.
#include "views/mesh/MeshPanel.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QEvent>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/ir/FuncOps.h"
#include "core/ir/SdyOps.h"
#include "core/sharding/ShardingVerifier.h"
#include "views/mesh/MeshGridView.h"
#include "views/mesh/ShardColors.h"
#include "views/mesh/ShardLegend.h"
#include "views/mesh/ShardMapView.h"
#include "views/models/DeviceShardModel.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

namespace {

QScrollArea* scrolled(QWidget* w)
{
    auto* area = new QScrollArea;
    area->setWidget(w);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setBackgroundRole(QPalette::Base);
    return area;
}

QString code(const std::string& text)
{
    return QStringLiteral("<code>%1</code>").arg(QString::fromStdString(text).toHtmlEscaped());
}

} // namespace

MeshPanel::MeshPanel(SessionContext& context, QWidget* parent)
    : QWidget(parent),
      m_context(context),
      m_meshCombo(new QComboBox(this)),
      m_meshText(new QLabel(this)),
      m_summary(new QLabel(this)),
      m_rowDims(new QComboBox(this)),
      m_colDims(new QComboBox(this)),
      m_pages(new QStackedWidget(this)),
      m_mapButton(new QToolButton(this)),
      m_tableButton(new QToolButton(this)),
      m_grid(new MeshGridView),
      m_map(new ShardMapView),
      m_legend(new ShardLegend(this)),
      m_model(new DeviceShardModel(this)),
      m_table(new QTableView(this))
{
    m_meshCombo->setObjectName(QStringLiteral("meshList"));
    m_meshCombo->setToolTip(tr("The meshes of the program; the selected value's mesh is chosen for you"));
    m_meshCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_meshText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_meshText->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_rowDims->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_colDims->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_rowDims->setToolTip(tr("The tensor dimension drawn as rows of blocks"));
    m_colDims->setToolTip(tr("The tensor dimension drawn as columns of blocks; other sharded dimensions become "
                             "small multiples"));
    m_summary->setObjectName(QStringLiteral("shardSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(new QLabel(tr("Mesh"), this));
    top->addWidget(m_meshCombo);
    top->addWidget(m_meshText, 1);
    top->addSpacing(12);
    top->addWidget(new QLabel(tr("Rows"), this));
    top->addWidget(m_rowDims);
    top->addWidget(new QLabel(tr("Columns"), this));
    top->addWidget(m_colDims);
    top->addSpacing(12);
    m_mapButton->setObjectName(QStringLiteral("mapButton"));
    m_tableButton->setObjectName(QStringLiteral("devicesButton"));
    m_mapButton->setText(tr("Map"));
    m_mapButton->setToolTip(tr("The shard map and the device grid"));
    m_tableButton->setText(tr("Devices"));
    m_tableButton->setToolTip(tr("One row per device: coordinates, index ranges, local shape, replicas"));
    auto* pageGroup = new QButtonGroup(this);
    for (QToolButton* b : {m_mapButton, m_tableButton}) {
        b->setCheckable(true);
        pageGroup->addButton(b);
        top->addWidget(b);
    }
    m_mapButton->setChecked(true);
    updatePageButtons();

    m_grid->setObjectName(QStringLiteral("meshGrid"));
    m_map->setObjectName(QStringLiteral("shardMap"));
    m_splitter = new QSplitter(Qt::Horizontal);
    m_splitter->addWidget(scrolled(m_grid));
    m_splitter->addWidget(scrolled(m_map));
    m_splitter->setStretchFactor(0, 2);
    m_splitter->setStretchFactor(1, 3);
    auto* mapPage = new QWidget;
    auto* mapLayout = new QVBoxLayout(mapPage);
    mapLayout->setContentsMargins(0, 0, 0, 0);
    mapLayout->setSpacing(0);
    mapLayout->addWidget(m_splitter, 1);
    mapLayout->addWidget(m_legend);

    m_table->setObjectName(QStringLiteral("deviceTable"));
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->setAlternatingRowColors(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);

    m_pages->addWidget(mapPage);
    m_pages->addWidget(m_table);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 4);
    layout->setSpacing(4);
    layout->addLayout(top);
    layout->addWidget(m_summary);
    layout->addWidget(m_pages, 1);

    connect(&m_context, &SessionContext::moduleChanged, this, [this] {
        m_typeOf = -1;
        rebuildMeshList();
        refresh();
    });
    connect(&m_context, &SessionContext::stepChanged, this, &MeshPanel::refresh);
    connect(&m_context, &SessionContext::selectionChanged, this, &MeshPanel::refresh);
    connect(m_mapButton, &QToolButton::clicked, this, [this] { showTable(false); });
    connect(m_tableButton, &QToolButton::clicked, this, [this] { showTable(true); });
    connect(m_meshCombo, &QComboBox::activated, this, [this](int index) { showMesh(index); });
    connect(m_rowDims, &QComboBox::activated, this, &MeshPanel::onDimsChosen);
    connect(m_colDims, &QComboBox::activated, this, &MeshPanel::onDimsChosen);
    connect(m_grid, &MeshGridView::deviceClicked, this, [this](qint64 id) { selectDevice(id); });
    connect(m_map, &ShardMapView::regionClicked, this, [this](int region) {
        m_grid->setHighlightedRegion(region);
        m_table->clearSelection();
    });
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        selectDevice(index.data(DeviceShardModel::DeviceIdRole).toLongLong());
    });
    rebuildMeshList();
    refresh();
}

MeshPanel::~MeshPanel() = default;

QString MeshPanel::summaryText() const { return m_summary->text(); }

void MeshPanel::showTable(bool table)
{
    m_pages->setCurrentIndex(table ? 1 : 0);
    m_mapButton->setChecked(!table);
    m_tableButton->setChecked(table);
    updatePageButtons();
}

void MeshPanel::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        updatePageButtons();
}

void MeshPanel::updatePageButtons()
{
    const QPalette& pal = palette();
    const QColor button = pal.color(QPalette::Button), highlight = pal.color(QPalette::Highlight);
    const double t = 0.55;
    const QColor tint = QColor::fromRgbF(button.redF() * (1 - t) + highlight.redF() * t,
                                         button.greenF() * (1 - t) + highlight.greenF() * t,
                                         button.blueF() * (1 - t) + highlight.blueF() * t);
    for (QToolButton* b : {m_mapButton, m_tableButton}) {
        // Only these two roles are set: the rest follows the panel's palette.
        QPalette own;
        if (b->isChecked()) {
            own.setColor(QPalette::Button, tint);
            own.setColor(QPalette::ButtonText, textOn(tint));
        }
        b->setPalette(own);
    }
}

bool MeshPanel::isTableShown() const { return m_pages->currentIndex() == 1; }

void MeshPanel::selectDevice(qint64 deviceId)
{
    m_grid->setSelectedDevice(deviceId);
    m_map->setSelectedDevice(deviceId);
    const int row = m_model->rowOfDevice(deviceId);
    if (row >= 0)
        m_table->selectRow(row);
    else
        m_table->clearSelection();
}

const std::optional<ir::Type>& MeshPanel::typeOf(int value)
{
    if (value != m_typeOf) {
        m_typeOf = value;
        m_type = m_context.session() ? m_context.session()->valueType(value) : std::nullopt;
    }
    return m_type;
}

void MeshPanel::rebuildMeshList()
{
    m_meshes.clear();
    m_meshCombo->clear();
    const Session* s = m_context.session();
    if (!s || !s->module())
        return;
    for (ir::Op* op : s->module()->meshes())
        if (const Mesh* mesh = ir::meshOpMesh(*op)) {
            const QString name = QStringLiteral("@") + QString::fromStdString(ir::symbolName(*op));
            m_meshes.push_back({name, *mesh});
            m_meshCombo->addItem(name);
        }
}

void MeshPanel::showMesh(int index)
{
    if (index < 0 || index >= static_cast<int>(m_meshes.size())) {
        m_meshText->clear();
        m_grid->setMesh(Mesh(), {});
        return;
    }
    const NamedMesh& m = m_meshes[static_cast<size_t>(index)];
    m_meshText->setText(QString::fromStdString(m.mesh.toString()));
    m_meshText->setToolTip(tr("%1 = %2: %3 devices")
                               .arg(m.name, QString::fromStdString(m.mesh.toString()))
                               .arg(m.mesh.axes().empty() ? int64_t(1) : m.mesh.totalSize()));
    if (m_meshCombo->currentIndex() != index)
        m_meshCombo->setCurrentIndex(index);
    // Another mesh than the selected value's: its devices, uncoloured.
    m_grid->setMesh(m.mesh, m.name);
    if (m_layout && m_grid->mesh() == m.mesh && !m_updating)
        refresh();
}

void MeshPanel::fillDimLists(int rank)
{
    // Keep the user's choice while the rank stays (stepping, or another value of the same rank).
    const int row = rank == m_rank && m_rowDims->count() ? m_rowDims->currentData().toInt() : 0;
    const int col = rank == m_rank && m_colDims->count() ? m_colDims->currentData().toInt() : 1;
    m_rank = rank;
    m_rowDims->clear();
    m_colDims->clear();
    for (int d = 0; d < rank; ++d) {
        // `d0 · 4 · data`: the size and the axes, so that the lists say what the map shows.
        QString text = QStringLiteral("d%1 · %2").arg(d).arg(m_layout ? m_layout->globalShape[size_t(d)] : 0);
        if (m_layout && !m_layout->dimAxes[size_t(d)].empty()) {
            QStringList axes;
            for (const AxisRef& a : m_layout->dimAxes[size_t(d)])
                axes << axisLabel(a);
            text += QStringLiteral(" · ") + axes.join(QLatin1Char(','));
        }
        m_rowDims->addItem(text, d);
        m_colDims->addItem(text, d);
    }
    if (rank >= 2) {
        m_rowDims->addItem(tr("none"), -1);
        m_rowDims->setCurrentIndex(std::max(0, m_rowDims->findData(row)));
        m_colDims->setCurrentIndex(std::max(0, m_colDims->findData(col)));
    }
    m_rowDims->setEnabled(rank >= 2);
    m_colDims->setEnabled(rank >= 2);
}

void MeshPanel::onDimsChosen()
{
    int row = m_rowDims->currentData().toInt();
    int col = m_colDims->currentData().toInt();
    if (row == col && row >= 0) {
        // The same dimension twice: move the other list off it.
        QComboBox* other = sender() == m_rowDims ? m_colDims : m_rowDims;
        const int taken = row;
        for (int i = 0; i < other->count(); ++i)
            if (other->itemData(i).toInt() != taken && other->itemData(i).toInt() >= 0) {
                other->setCurrentIndex(i);
                break;
            }
        row = m_rowDims->currentData().toInt();
        col = m_colDims->currentData().toInt();
    }
    m_map->setGridDims(row, col);
}

void MeshPanel::refresh()
{
    m_updating = true;
    const Session* session = m_context.session();
    m_layout.reset();
    auto showNothing = [&](const QString& summary, const QString& mapMessage) {
        m_summary->setText(summary);
        m_map->setShardedLayout(nullptr, mapMessage);
        m_legend->setShardedLayout(nullptr);
        m_model->setLayout(nullptr, Mesh());
        fillDimLists(0);
    };
    if (!session || !session->module()) {
        showNothing(tr("Open a program to see its meshes and shard maps."), tr("No program is open"));
        showMesh(-1);
        m_updating = false;
        return;
    }
    const ir::ProgramIds* ids = session->ids();
    const int v = m_context.selectedValue();
    if (!ids || v < 0 || static_cast<size_t>(v) >= ids->values().size()) {
        showNothing(tr("Select a value to see which slice of it each device holds."),
                    tr("Select a value (in the graph, the inspector, or with --select) to see its shard map"));
        showMesh(m_meshCombo->currentIndex() >= 0 ? m_meshCombo->currentIndex() : 0);
        m_updating = false;
        return;
    }
    const QString name =
        QStringLiteral("<b>%1</b>").arg(QString::fromStdString(ids->values()[size_t(v)].name).toHtmlEscaped());
    const std::optional<ir::Type>& type = typeOf(v);
    // Before propagation there is no cursor: the value's own sharding is what there is.
    std::optional<TensorSharding> own;
    const TensorSharding* sharding = session->shardingAt(v);
    if (!sharding && !session->trace() && (own = session->sourceSharding(v)))
        sharding = &*own;
    const QString when = session->trace() ? tr("at step %1 of %2").arg(m_context.step()).arg(m_context.numSteps())
                                          : tr("before propagation");
    if (!type || !type->isRankedTensor()) {
        showNothing(tr("%1 is %2: only ranked tensors have a shard map.")
                        .arg(name, type ? code(type->toString()) : tr("not in the program")),
                    tr("No shard map for this value"));
        m_updating = false;
        return;
    }
    const QString typeText = code(type->toString());
    if (!sharding) {
        showNothing(tr("%1 · %2 · no sharding %3: every device holds all of it, or propagation has not decided yet.")
                        .arg(name, typeText, when),
                    tr("Not sharded %1").arg(when));
        m_updating = false;
        return;
    }
    const Mesh* mesh = session->module()->resolveMesh(sharding->mesh);
    if (!mesh) {
        showNothing(tr("%1 · %2 · %3: its mesh %4 is not in the program.")
                        .arg(name, typeText, code(sharding->toString()), code(sharding->mesh.toString())),
                    tr("Unknown mesh"));
        m_updating = false;
        return;
    }
    Expected<ShardedLayout> layout = computeShardedLayout(*sharding, *mesh, type->shape());
    if (!layout) {
        showNothing(tr("%1 · %2 · %3: %4")
                        .arg(name, typeText, code(sharding->toString()),
                             QString::fromStdString(layout.error().message).toHtmlEscaped()),
                    tr("No shard map"));
        m_updating = false;
        return;
    }
    m_layout = std::make_shared<const ShardedLayout>(std::move(*layout));

    // The value's mesh in the list (an inline mesh is added for as long as it is shown).
    const QString meshName = sharding->mesh.isInline()
                                 ? tr("inline mesh")
                                 : QStringLiteral("@") + QString::fromStdString(sharding->mesh.symbol);
    int index = -1;
    for (size_t i = 0; i < m_meshes.size(); ++i)
        if (m_meshes[i].name == meshName && m_meshes[i].mesh == *mesh)
            index = static_cast<int>(i);
    if (index < 0) {
        m_meshes.push_back({meshName, *mesh});
        m_meshCombo->addItem(meshName);
        index = static_cast<int>(m_meshes.size()) - 1;
    }
    showMesh(index);
    m_grid->setLayout(m_layout, allAxesOf(*sharding));
    // The grid gets the width it needs (up to half), the map the rest.
    const int total = m_splitter->width();
    if (total > 0) {
        const int grid = std::min(m_grid->sizeHint().width() + 24, total / 2);
        m_splitter->setSizes({grid, total - grid});
    }
    fillDimLists(static_cast<int>(type->rank()));
    m_map->setShardedLayout(m_layout);
    m_map->setGridDims(m_rowDims->currentData().isValid() ? m_rowDims->currentData().toInt() : -1,
                       m_colDims->currentData().isValid() ? m_colDims->currentData().toInt() : -1);
    m_legend->setShardedLayout(m_layout);
    m_model->setLayout(m_layout, *mesh);
    m_table->resizeColumnsToContents();

    const size_t devices = m_layout->devices.size();
    const size_t slices = m_layout->regionGroups.size();
    QString holds = slices == devices ? tr("%1 devices, each a different slice").arg(devices)
                                      : tr("%1 devices hold %2 slices").arg(devices).arg(slices);
    if (slices < devices && devices % slices == 0)
        holds += m_layout->unreducedAxes.empty() ? tr(" (%1 copies each)").arg(devices / slices)
                                                 : tr(" (%1 partial results each)").arg(devices / slices);
    m_summary->setText(
        tr("%1 · %2 · %3 %4 · local %5 · %6")
            .arg(name, typeText, code(sharding->toString()), when, shapeText(m_layout->localShape), holds));
    m_updating = false;
}

} // namespace shardx::views
