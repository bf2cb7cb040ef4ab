// MeshPanel: the device grid, shard map, legend and device table of hand-worked cases (device_ids,
// uneven padding, replicas, sub-axes, unreduced axes, a 3-D mesh and a 4-D tensor), read through
// the widgets' APIs and models, on programs opened through a SessionContext.
#include <QtTest>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QTableView>
#include <QToolButton>

#include "views/mesh/MeshGridView.h"
#include "views/mesh/MeshPanel.h"
#include "views/mesh/ShardLegend.h"
#include "views/mesh/ShardMapView.h"
#include "views/models/DeviceShardModel.h"
#include "views/session/SessionContext.h"

using namespace shardx;
using namespace shardx::views;
using V = std::vector<int64_t>;

namespace {

// Hand-worked layouts (device d of a mesh with device_ids [3, 1, 2, 0] sits at position p with
// ids[p] = d: 3 = (x0, y0), 1 = (x0, y1), 2 = (x1, y0), 0 = (x1, y1)):
// %0 5x4x6 [{"x"}, {}, {"y"}]: local ceil(5/2)=3 x 4 x 3; x=1 holds [3:5] + 1 padding (a
// constraint: propagation makes function arguments and results even, not inner values).
// %1 2x16 on "d"=8 [{"d":(1)2}, {"d":(2)4}]: device p holds row p/4, columns (p%4)*4.
// %arg2 4x8 [{}, {"x"}]: y is unused, so (x, 0) and (x, 1) are replicas: {3, 1} and {2, 0}.
// %arg3 4x8 [{"x"}, {}] unreduced={"y"}: 3 and 1 hold partial sums of rows 0:2.
// %arg4 2x8x3x6 on a 3-D mesh [{}, {"c", "a"}, {}, {"b"}].
const char* kProgram = R"(module @jit_maps {
  sdy.mesh @mesh = <["x"=2, "y"=2], device_ids=[3, 1, 2, 0]>
  sdy.mesh @flat = <["d"=8]>
  sdy.mesh @cube = <["a"=2, "b"=2, "c"=2]>
  func.func public @main(%arg0: tensor<5x4x6xf32>, %arg1: tensor<2x16xf32>, %arg2: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}, %arg3: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}], unreduced={"y"}>}, %arg4: tensor<2x8x3x6xf32> {sdy.sharding = #sdy.sharding<@cube, [{}, {"c", "a"}, {}, {"b"}]>}) -> (tensor<5x4x6xf32>, tensor<2x16xf32>, tensor<4x8xf32>, tensor<2x8x3x6xf32>) {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x"}, {}, {"y"}]> : tensor<5x4x6xf32>
    %1 = sdy.sharding_constraint %arg1 <@flat, [{"d":(1)2}, {"d":(2)4}]> : tensor<2x16xf32>
    return %0, %1, %arg2, %arg4 : tensor<5x4x6xf32>, tensor<2x16xf32>, tensor<4x8xf32>, tensor<2x8x3x6xf32>
  }
}
)";

QString cell(const DeviceShardModel& m, qint64 device, int column)
{
    return m.index(m.rowOfDevice(device), column).data().toString();
}

/// The mean colour of a widget as drawn.
QColor meanColour(QWidget* w)
{
    const QImage image = w->grab().toImage();
    double r = 0, g = 0, b = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            r += c.redF();
            g += c.greenF();
            b += c.blueF();
        }
    const double n = std::max(1, image.width() * image.height());
    return QColor::fromRgbF(r / n, g / n, b / n);
}

int distance(const QColor& a, const QColor& b)
{
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
}

const ShardMapView::Block* blockWithIndex(const ShardMapView& map, const V& index)
{
    for (const ShardMapView::Block& b : map.blocks())
        if (b.shardIndex == index)
            return &b;
    return nullptr;
}

} // namespace

class TestMeshPanel : public QObject {
    Q_OBJECT

    SessionContext* m_context = nullptr;
    MeshPanel* m_panel = nullptr;

    void select(const char* name)
    {
        Expected<int> v = m_context->session()->findValue(name);
        QVERIFY2(v, name);
        m_context->select(*v);
        QCoreApplication::processEvents();
    }

private slots:
    void initTestCase()
    {
        m_context = new SessionContext(this);
        m_panel = new MeshPanel(*m_context);
        m_panel->resize(1000, 500);
        m_panel->show();
        m_context->openText(QString::fromLatin1(kProgram), QStringLiteral("maps.mlir"));
        m_context->waitForIdle();
        QVERIFY(m_context->session());
        QVERIFY2(m_context->openDiagnostics().all().empty(), m_context->openDiagnostics().formatAll().c_str());
        QVERIFY(m_context->session()->trace());
    }
    void cleanupTestCase() { delete m_panel; }

    void nothingSelected()
    {
        m_context->select(-1);
        QVERIFY(!m_panel->shownLayout());
        QVERIFY(m_panel->summaryText().contains(QStringLiteral("Select a value")));
        // Every mesh of the module is listed.
        QCOMPARE(m_panel->meshList()->count(), 3);
        QCOMPARE(m_panel->meshList()->itemText(1), QStringLiteral("@flat"));
    }

    void deviceIdsAndPadding()
    {
        select("%0");
        const ShardedLayout* l = m_panel->shownLayout();
        QVERIFY(l);
        QCOMPARE(l->localShape, (V{3, 4, 3}));
        QCOMPARE(m_panel->meshList()->currentText(), QStringLiteral("@mesh"));
        // The grid follows device_ids: position 0 (x=0, y=0) is device 3, position 3 device 0.
        MeshGridView* grid = m_panel->meshView();
        const QRect first = grid->deviceRect(3), last = grid->deviceRect(0);
        QVERIFY(!first.isEmpty() && !last.isEmpty());
        QVERIFY(first.x() < last.x() && first.y() < last.y());
        QCOMPARE(grid->deviceAt(first.center()), qint64(3));
        QVERIFY(grid->deviceToolTip(0).contains(QStringLiteral("x=1, y=1")));
        QVERIFY(grid->deviceToolTip(0).contains(QStringLiteral("[3:5 (+1 padding), 0:4, 3:6]")));
        // Rows d0 (2 shards), columns d1 (not sharded), facets d2 (2 shards): 2 facets of 2x1.
        ShardMapView* map = m_panel->shardMap();
        QCOMPARE(map->rowDim(), 0);
        QCOMPARE(map->colDim(), 1);
        QCOMPARE(map->numFacets(), 2);
        QCOMPARE(map->blocks().size(), size_t(4));
        // Block (1, 0, 1) is device 0's: 2 real rows of 3, the third hatched.
        const ShardMapView::Block* b = blockWithIndex(*map, {1, 0, 1});
        QVERIFY(b);
        QCOMPARE(l->regionGroups[static_cast<size_t>(b->region)], V{0});
        QVERIFY(qAbs(b->realRect.height() - b->rect.height() * 2.0 / 3.0) < 0.01);
        QCOMPARE(b->realRect.width(), b->rect.width());
        QVERIFY(map->blockToolTip(*b).contains(QStringLiteral("padding")));
        const ShardMapView::Block* full = blockWithIndex(*map, {0, 0, 0});
        QCOMPARE(full->realRect, full->rect);
        QCOMPARE(l->regionGroups[static_cast<size_t>(full->region)], V{3});
        // The device table, hand-worked.
        DeviceShardModel* model = m_panel->deviceModel();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model->rowCount(), 4);
        QCOMPARE(model->index(0, DeviceShardModel::DeviceColumn).data().toString(), QStringLiteral("3"));
        QCOMPARE(cell(*model, 0, DeviceShardModel::CoordsColumn), QStringLiteral("x=1, y=1"));
        QCOMPARE(cell(*model, 0, DeviceShardModel::SliceColumn), QStringLiteral("[3:5 (+1 padding), 0:4, 3:6]"));
        QCOMPARE(cell(*model, 1, DeviceShardModel::SliceColumn), QStringLiteral("[0:3, 0:4, 3:6]"));
        QCOMPARE(cell(*model, 3, DeviceShardModel::LocalShapeColumn), QStringLiteral("3x4x3"));
        QCOMPARE(cell(*model, 3, DeviceShardModel::ReplicasColumn), QStringLiteral("none"));
        QVERIFY(m_panel->legend()->entries().join(QLatin1Char('|')).contains(QStringLiteral("padding")));
        QVERIFY(m_panel->summaryText().contains(QStringLiteral("local 3x4x3")));
    }

    void replicasAndClicks()
    {
        select("%arg2");
        const ShardedLayout* l = m_panel->shownLayout();
        QCOMPARE(l->regionGroups, (std::vector<V>{{3, 1}, {2, 0}}));
        DeviceShardModel* model = m_panel->deviceModel();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(cell(*model, 3, DeviceShardModel::ReplicasColumn), QStringLiteral("1"));
        QCOMPARE(cell(*model, 0, DeviceShardModel::SliceColumn), QStringLiteral("[0:4, 4:8]"));
        QVERIFY(m_panel->summaryText().contains(QStringLiteral("2 copies each")));
        // Clicking device 1 in the grid outlines its slice in the map.
        MeshGridView* grid = m_panel->meshView();
        ShardMapView* map = m_panel->shardMap();
        QTest::mouseClick(grid, Qt::LeftButton, {}, grid->deviceRect(1).center());
        QCOMPARE(grid->selectedDevice(), qint64(1));
        QCOMPARE(map->selectedDevice(), qint64(1));
        // Clicking the second column's block outlines its holders (2 and 0) in the grid.
        const ShardMapView::Block* b = blockWithIndex(*map, {0, 1});
        QVERIFY(b);
        QTest::mouseClick(map, Qt::LeftButton, {}, b->rect.center().toPoint());
        QCOMPARE(map->highlightedRegion(), 1);
        QCOMPARE(grid->highlightedRegion(), 1);
        QCOMPARE(grid->selectedDevice(), qint64(-1));
        // The device table: a click on a row selects that device in the grid and the map.
        m_panel->showTable(true);
        QVERIFY(m_panel->isTableShown());
        auto* table = m_panel->findChild<QTableView*>(QStringLiteral("deviceTable"));
        QVERIFY(table && table->isVisible());
        const QModelIndex two = model->index(model->rowOfDevice(2), DeviceShardModel::SliceColumn);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(two).center());
        QCOMPARE(grid->selectedDevice(), qint64(2));
        QCOMPARE(map->selectedDevice(), qint64(2));
        m_panel->showTable(false);
    }

    void subAxes()
    {
        select("%1");
        QCOMPARE(m_panel->meshList()->currentText(), QStringLiteral("@flat"));
        DeviceShardModel* model = m_panel->deviceModel();
        // Device 6: "d":(1)2 = 6 / 4 = 1, "d":(2)4 = 6 % 4 = 2 -> [1:2, 8:12].
        QCOMPARE(cell(*model, 6, DeviceShardModel::SliceColumn), QStringLiteral("[1:2, 8:12]"));
        QCOMPARE(cell(*model, 3, DeviceShardModel::SliceColumn), QStringLiteral("[0:1, 12:16]"));
        QCOMPARE(m_panel->shownLayout()->localShape, (V{1, 4}));
        QVERIFY(m_panel->meshView()->deviceToolTip(6).contains(QStringLiteral(":(2)4=2")));
        QCOMPARE(m_panel->shardMap()->blocks().size(), size_t(8));
    }

    void unreduced()
    {
        select("%arg3");
        const ShardedLayout* l = m_panel->shownLayout();
        QVERIFY(l);
        QCOMPARE(l->regionGroups, (std::vector<V>{{3, 1}, {2, 0}}));
        DeviceShardModel* model = m_panel->deviceModel();
        QCOMPARE(cell(*model, 1, DeviceShardModel::PartialColumn), QStringLiteral("y=1"));
        QCOMPARE(cell(*model, 1, DeviceShardModel::ReplicasColumn), QStringLiteral("none"));
        QVERIFY(
            m_panel->legend()->entries().join(QLatin1Char('|')).contains(QStringLiteral("partial sums over {\"y\"}")));
        QVERIFY(m_panel->summaryText().contains(QStringLiteral("2 partial results each")));
    }

    void gridFitsAShortDock()
    {
        // A 2x4x4 mesh: two 4x4 blocks side by side. Its natural size is taller than a short dock;
        // the cells shrink to fit instead of the grid scrolling, and never below a readable id.
        MeshGridView grid;
        grid.setMesh(Mesh({{"data", 2}, {"fsdp", 4}, {"tensor", 4}}), QStringLiteral("@mesh"));
        const QSize natural = grid.sizeHint();
        const QSize smallest = grid.minimumSizeHint();
        QVERIFY2(smallest.height() < natural.height() && smallest.width() < natural.width(),
                 qPrintable(QStringLiteral("%1x%2 vs %3x%4")
                                .arg(smallest.width())
                                .arg(smallest.height())
                                .arg(natural.width())
                                .arg(natural.height())));
        const QSize dock(natural.width(), (smallest.height() + natural.height()) / 2);
        grid.resize(dock);
        grid.show();
        QVERIFY(QTest::qWaitForWindowExposed(&grid));
        const QRect area = grid.rect();
        for (qint64 id = 0; id < 32; ++id) {
            const QRect cell = grid.deviceRect(id);
            QVERIFY2(area.contains(cell), qPrintable(QStringLiteral("device %1 outside the widget").arg(id)));
            QVERIFY(cell.height() >= QFontMetrics(grid.font()).height());
        }
        QVERIFY(grid.deviceRect(0).height() < 32); // smaller than the natural cell
        // Given room again, the cells grow back to their natural size.
        grid.resize(natural);
        QCOMPARE(grid.deviceRect(0).height(), std::max(32, QFontMetrics(grid.font()).height() * 2));
    }

    void threeDimMeshFourDimTensor()
    {
        select("%arg4");
        MeshGridView* grid = m_panel->meshView();
        // ["a", "b", "c"]: one 2x2 grid (b rows, c columns) per a, side by side.
        QVERIFY(grid->deviceRect(4).x() > grid->deviceRect(3).x());
        QCOMPARE(grid->deviceRect(4).y(), grid->deviceRect(0).y());
        QCOMPARE(grid->deviceRect(2).x(), grid->deviceRect(0).x());
        QVERIFY(grid->deviceRect(2).y() > grid->deviceRect(0).y());
        ShardMapView* map = m_panel->shardMap();
        // Rows d0 (not sharded), columns d1 (4 shards), facets d3 (2 shards).
        QCOMPARE(map->numFacets(), 2);
        QCOMPARE(map->blocks().size(), size_t(8));
        // Device 6 = (a1, b1, c0): d1 shard c*2+a = 1, d3 shard b = 1.
        DeviceShardModel* model = m_panel->deviceModel();
        QCOMPARE(cell(*model, 6, DeviceShardModel::SliceColumn), QStringLiteral("[0:2, 2:4, 0:3, 3:6]"));
        // Rows d1, columns d3: one facet of 4x2.
        map->setGridDims(1, 3);
        QCOMPARE(map->numFacets(), 1);
        QCOMPARE(map->blocks().size(), size_t(8));
        const ShardMapView::Block* b = blockWithIndex(*map, {0, 1, 0, 1});
        QVERIFY(b);
        QCOMPARE(m_panel->shownLayout()->regionGroups[static_cast<size_t>(b->region)], V{6});
    }

    void followsSteps()
    {
        // A value the program does not annotate has no sharding before step 1.
        Expected<int> result = m_context->session()->findValue("result 0");
        QVERIFY(result);
        m_context->select(*result);
        m_context->setStep(m_context->numSteps());
        m_context->waitForIdle();
        QVERIFY(m_panel->shownLayout());
        m_context->setStep(0);
        m_context->waitForIdle();
        QVERIFY(!m_panel->shownLayout());
        QVERIFY(m_panel->summaryText().contains(QStringLiteral("no sharding at step 0")));
        m_context->setStep(m_context->numSteps());
        m_context->waitForIdle();
        QVERIFY(m_panel->shownLayout());
    }

    void pageButtonsDarkPalette()
    {
        // The checked one of Map and Devices stands out in a dark palette too (Fusion alone draws
        // it a shade darker than an unchecked one: 3 or 4 levels of 255 on this palette).
        QPalette dark = m_panel->palette();
        const QColor window(0x2b, 0x2d, 0x31);
        for (QPalette::ColorRole role : {QPalette::Window, QPalette::Button})
            dark.setColor(role, window);
        dark.setColor(QPalette::Base, QColor(0x1e, 0x1f, 0x22));
        dark.setColor(QPalette::ButtonText, QColor(0xdf, 0xe1, 0xe5));
        dark.setColor(QPalette::Highlight, QColor(0x35, 0x74, 0xf0));
        const QPalette before = m_panel->palette();
        m_panel->setPalette(dark);
        auto* map = m_panel->findChild<QToolButton*>(QStringLiteral("mapButton"));
        auto* devices = m_panel->findChild<QToolButton*>(QStringLiteral("devicesButton"));
        QVERIFY(map && devices);
        QVERIFY(map->isChecked() && !devices->isChecked());
        QVERIFY2(distance(meanColour(map), meanColour(devices)) > 60,
                 qPrintable(meanColour(map).name() + QLatin1Char(' ') + meanColour(devices).name()));
        // The unchecked one keeps the panel's button colour; the checked one's text contrasts.
        QCOMPARE(devices->palette().color(QPalette::Button), window);
        QVERIFY(distance(map->palette().color(QPalette::ButtonText), map->palette().color(QPalette::Button)) > 300);
        m_panel->showTable(true);
        QCOMPARE(map->palette().color(QPalette::Button), window);
        QVERIFY(distance(meanColour(devices), meanColour(map)) > 60);
        m_panel->showTable(false);
        m_panel->setPalette(before);
    }

    void sample()
    {
        m_context->open(QStringLiteral(SHARDX_SOURCE_DIR "/samples/attention.mlir"));
        m_context->waitForIdle();
        select("%22");
        const ShardedLayout* l = m_panel->shownLayout();
        QVERIFY(l);
        // <@mesh, [{"data"}, {}, {"tensor"}]> on ["data"=2, "tensor"=4], 4x16x64: 2x16x16 each.
        QCOMPARE(l->localShape, (V{2, 16, 16}));
        QCOMPARE(l->regionGroups.size(), size_t(8));
        QCOMPARE(m_panel->meshList()->count(), 1);
        QCOMPARE(m_panel->shardMap()->numFacets(), 4);
    }
};

QTEST_MAIN(TestMeshPanel)
#include "tst_meshpanel.moc"
