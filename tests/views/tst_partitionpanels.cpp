// The partitioning docks: collectives (row, totals, details, going to the op and cause step),
// devices (memory, one device's shards, the per-device program), why replicated, their empty
// and error states, partitioning only when a dock is shown, and the docks in the main window.
#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

#include "tests/TestSupport.h"
#include "views/app/MainWindow.h"
#include "views/app/StartupOptions.h"
#include "views/models/CollectivesModel.h"
#include "views/models/DeviceMemoryModel.h"
#include "views/models/ReplicatedModel.h"
#include "views/models/TensorShardModel.h"
#include "views/panels/CollectivesPanel.h"
#include "views/panels/DevicesPanel.h"
#include "views/panels/ReplicatedPanel.h"
#include "views/panels/SourcePanel.h"
#include "views/session/SessionContext.h"

using namespace shardx;
using namespace shardx::views;

namespace {

QString sample(const char* name) { return QStringLiteral(SHARDX_SOURCE_DIR "/samples/") + QLatin1String(name); }

// Data parallel only: both operands and the add are split on "x" along dimension 0, so every
// device adds its own rows and nothing is communicated.
const char* kDataParallel = R"(sdy.mesh @mesh = <["x"=2]>
func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
)";

// A function argument on a single-device (maximal) mesh: basic propagation leaves it alone, but
// the partitioner's first pass (-sdy-insert-explicit-reshards) refuses it, as Shardy does.
const char* kMaximalArgument = R"(sdy.mesh @mesh = <["x"=2]>
sdy.mesh @maximal = <[], device_ids=[0]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@maximal, []>}) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}
)";

// A loop carrying a value sharded on both axes of a 2x2 mesh whose condition and body read it whole (a reduce
// over all of it, a reverse): convert-global-to-local gathers it at the start of each (PARTITION.md 7.8.6 leaves
// loop-carried values global), two all-gathers that no sdy collective stands for.
/// tests/partition/data/loop_gathers.mlir (tst_shardxcli runs the CLI on the same module).
std::string shardedLoop()
{
    QFile f(QStringLiteral(SHARDX_SOURCE_DIR "/tests/partition/data/loop_gathers.mlir"));
    return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
}

/// Clicks the centre of `index` (of the view's model) as a user does.
void clickRow(QTableView* view, const QModelIndex& index)
{
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(index).center());
}

} // namespace

class TestPartitionPanels : public QObject {
    Q_OBJECT

    SessionContext* m_context = nullptr;

    int valueOf(const char* name)
    {
        Expected<int> v = m_context->session()->findValue(name);
        if (!v)
            qFatal("no value %s", name);
        return *v;
    }
    int opOf(const char* name)
    {
        Expected<int> op = m_context->session()->findOp(name);
        if (!op)
            qFatal("no op %s", name);
        return *op;
    }
    void open(const char* file)
    {
        m_context->open(sample(file));
        m_context->waitForIdle();
        QVERIFY(m_context->session() && m_context->session()->trace());
    }
    void openText(const char* text)
    {
        m_context->openText(QString::fromUtf8(text), QStringLiteral("test.mlir"));
        m_context->waitForIdle();
        QVERIFY(m_context->session() && m_context->session()->trace());
    }

private slots:
    void initTestCase()
    {
        // Digit groups as the C locale writes them with grouping on: 3,072.
        QLocale::setDefault(QLocale::c());
        QCoreApplication::setOrganizationName(QStringLiteral("shardx-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_partitionpanels"));
    }
    void init() { m_context = new SessionContext(this); }
    void cleanup()
    {
        delete m_context;
        m_context = nullptr;
    }

    void collectivesOfTheMlp()
    {
        CollectivesPanel panel(*m_context);
        QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.resize(1100, 500);
        panel.show();
        open("mlp_dp_tp.mlir");
        // Worked in the issue: layer 1 contracts its 256 hidden units, split 4 ways on "model", so
        // each device holds a partial 8x64 f32 sum (8 rows: "data" splits the 16). One all-reduce
        // over "model" (groups of the 4 devices sharing a "data" coordinate) adds them up:
        // payload 8*64*4 = 2,048 B, sent under a ring 2(n-1)/n * 2048 = 3,072 B.
        QCOMPARE(panel.model()->rowCount(), 1);
        const QModelIndex kind = panel.model()->index(0, CollectivesModel::KindColumn);
        QCOMPARE(kind.data().toString(), QStringLiteral("all-reduce"));
        QCOMPARE(panel.model()->index(0, CollectivesModel::AxesColumn).data().toString(), QStringLiteral("model"));
        QCOMPARE(panel.model()->index(0, CollectivesModel::GroupsColumn).data().toString(),
                 QStringLiteral("[0,1,2,3] [4,5,6,7]"));
        QCOMPARE(panel.model()->index(0, CollectivesModel::ShapeColumn).data().toString(),
                 QStringLiteral("8x64 → 8x64"));
        QCOMPARE(panel.model()->index(0, CollectivesModel::PayloadColumn).data(CollectivesModel::SortRole).toLongLong(),
                 2048);
        QCOMPARE(panel.model()->index(0, CollectivesModel::SentColumn).data(CollectivesModel::SortRole).toLongLong(),
                 3072);
        QCOMPARE(panel.model()->index(0, CollectivesModel::SentColumn).data().toString(), QStringLiteral("3,072"));
        QVERIFY(panel.model()->index(0, CollectivesModel::OpColumn).data().toString().startsWith(QStringLiteral("%6")));
        QVERIFY(panel.model()
                    ->index(0, CollectivesModel::CauseColumn)
                    .data()
                    .toString()
                    .contains(QStringLiteral("partial result")));
        QVERIFY2(panel.summaryText().contains(QStringLiteral("3,072 B</b> sent per device")),
                 qPrintable(panel.summaryText()));

        // A click selects the op that needs it (the second dot_general, line 11) and moves the
        // debugger to the cause step (the state after it).
        const CollectiveInfo* c = panel.model()->collective(0);
        QVERIFY(c && c->causeStep >= 0);
        QCOMPARE(c->causeStep, std::max(c->fromSide.steps.empty() ? -1 : c->fromSide.steps.back(),
                                        c->toSide.steps.empty() ? -1 : c->toSide.steps.back()));
        m_context->setStep(0);
        m_context->waitForIdle();
        QTableView* view = panel.view();
        clickRow(view, view->model()->index(0, CollectivesModel::KindColumn));
        m_context->waitForIdle();
        const int dot = opOf("%6");
        QCOMPARE(m_context->selectedOp(), dot);
        QCOMPARE(m_context->session()->ids()->ops()[static_cast<size_t>(dot)].opName,
                 std::string("stablehlo.dot_general"));
        QCOMPARE(m_context->session()->opPosition(dot).line, 11);
        QCOMPARE(m_context->selectedValue(), valueOf("%6"));
        QCOMPARE(m_context->selectedStep(), c->causeStep);
        QCOMPARE(m_context->step(), static_cast<size_t>(c->causeStep) + 1);

        // The details: the cause, both sides and every replica group; a step link goes there.
        const QString details = panel.detailsText();
        QVERIFY2(details.contains(QString::fromStdString(c->cause)), qPrintable(details));
        QVERIFY(details.contains(QStringLiteral("[[0, 1, 2, 3], [4, 5, 6, 7]]")));
        // From: the constraint's [data, model] (its own annotation); to: what the dot's result
        // needs, [data, {}], from the function's result.
        QVERIFY(details.contains(QStringLiteral("From\n%5 <@mesh, [{\"data\"}, {\"model\"}]>\naxes from %5")));
        QVERIFY(details.contains(QStringLiteral("To\n%6 <@mesh, [{\"data\"}, {}]>\naxes from result 0")));
        QVERIFY(details.contains(QStringLiteral("Cause step: #%1").arg(c->causeStep)));
        QVERIFY(details.contains(QStringLiteral("received 3,072 B")));
        panel.openLink(QStringLiteral("step:1"));
        m_context->waitForIdle();
        QCOMPARE(m_context->step(), size_t(2));
        QCOMPARE(m_context->selectedStep(), 1);
        panel.openLink(QStringLiteral("value:%1").arg(valueOf("%5")));
        QCOMPARE(m_context->selectedValue(), valueOf("%5"));
        panel.openLink(QStringLiteral("op:%1").arg(dot));
        QCOMPARE(m_context->selectedOp(), dot);
        QCOMPARE(m_context->selectedValue(), valueOf("%6"));

        // Selecting the op elsewhere (the graph) makes its row current without moving the cursor.
        view->selectionModel()->clearCurrentIndex();
        m_context->select(-1, -1);
        m_context->select(valueOf("%6"));
        m_context->waitForIdle();
        QCOMPARE(view->selectionModel()->currentIndex().row(), 0);
        QCOMPARE(m_context->step(), size_t(2));
    }

    void collectivesSortAsNumbers()
    {
        // loop_argmax partitions into an all-slice along "data" of the loop's replicated 16x64 f32
        // state (payload: all of it, 16*64*4 = 4,096 B; slicing sends nothing) and an all-gather
        // over "model" of the tanh's 8x16 f32 shard (payload 512 B; the result is 8x64 = 2,048 B,
        // of which a ring sends (4-1)/4 = 1,536 B). As text "512" sorts above "4096"; as numbers
        // below.
        CollectivesPanel panel(*m_context);
        panel.resize(1100, 500);
        panel.show();
        open("loop_argmax.mlir");
        QAbstractItemModel* rows = panel.view()->model();
        QCOMPARE(rows->rowCount(), 2);
        auto kindAt = [&](int row) { return rows->index(row, CollectivesModel::KindColumn).data().toString(); };
        panel.view()->sortByColumn(CollectivesModel::PayloadColumn, Qt::DescendingOrder);
        QCOMPARE(kindAt(0), QStringLiteral("all-slice"));
        QCOMPARE(rows->index(0, CollectivesModel::PayloadColumn).data().toString(), QStringLiteral("4,096"));
        panel.view()->sortByColumn(CollectivesModel::SentColumn, Qt::DescendingOrder);
        QCOMPARE(kindAt(0), QStringLiteral("all-gather"));
        QCOMPARE(rows->index(0, CollectivesModel::SentColumn).data().toString(), QStringLiteral("1,536"));
        // Back to program order (the header's third state).
        panel.view()->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
        QCOMPARE(kindAt(0), QStringLiteral("all-slice"));
        QVERIFY(panel.summaryText().contains(QStringLiteral("all-gather ×1, all-slice ×1")));
    }

    void devicesOfTheMlp()
    {
        DevicesPanel panel(*m_context);
        QAbstractItemModelTester devices(panel.deviceModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester shards(panel.shardModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.resize(1100, 500);
        panel.show();
        open("mlp_dp_tp.mlir");
        QCOMPARE(panel.deviceModel()->rowCount(), 8);
        QVERIFY2(panel.summaryText().contains(QStringLiteral("8 devices")), qPrintable(panel.summaryText()));
        // Row-major on ["data"=2, "model"=4]: device 5 is at data 1, model 1.
        const QModelIndex coords = panel.deviceModel()->index(5, DeviceMemoryModel::CoordsColumn);
        QCOMPARE(panel.deviceModel()->index(5, DeviceMemoryModel::DeviceColumn).data().toString(), QStringLiteral("5"));
        QCOMPARE(coords.data().toString(), QStringLiteral("(1, 1)"));
        QCOMPARE(panel.deviceModel()->headerData(DeviceMemoryModel::CoordsColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Coords (data, model)"));
        // The bar of each device: its share of the largest peak (every device holds as much here).
        for (int row = 0; row < 8; ++row) {
            const QModelIndex m = panel.deviceModel()->index(row, DeviceMemoryModel::MemoryColumn);
            QCOMPARE(m.data(DeviceMemoryModel::FractionRole).toDouble(), 1.0);
            QVERIFY(m.data(DeviceMemoryModel::SortRole).toLongLong() > 0);
        }

        // Device 5's shard of %arg1 (64x256 on [{}, {"model"}]): all rows, the second quarter of
        // the columns.
        QTableView* deviceView = panel.deviceView();
        clickRow(deviceView, deviceView->model()->index(5, DeviceMemoryModel::DeviceColumn));
        QCOMPARE(panel.chosenDevice(), int64_t(5));
        const int arg1 = valueOf("%arg1");
        const int row = panel.shardModel()->rowOfValue(arg1);
        QVERIFY(row >= 0);
        QCOMPARE(panel.shardModel()->index(row, TensorShardModel::TensorColumn).data().toString(),
                 QStringLiteral("%arg1"));
        QCOMPARE(panel.shardModel()->index(row, TensorShardModel::SliceColumn).data().toString(),
                 QStringLiteral("[0:64, 64:128]"));
        QCOMPARE(panel.shardModel()->index(row, TensorShardModel::GlobalShapeColumn).data().toString(),
                 QStringLiteral("64x256"));
        QCOMPARE(panel.shardModel()->index(row, TensorShardModel::LocalShapeColumn).data().toString(),
                 QStringLiteral("64x64"));
        // Clicking a tensor selects its value.
        m_context->select(-1);
        QTableView* shardView = panel.shardView();
        clickRow(shardView, qobject_cast<QSortFilterProxyModel*>(shardView->model())
                                ->mapFromSource(panel.shardModel()->index(row, TensorShardModel::TensorColumn)));
        QCOMPARE(m_context->selectedValue(), arg1);

        // The per-device program: one for every device, with the all-reduce; the caption names
        // the chosen device.
        QVERIFY(panel.programView()->toPlainText().contains(QStringLiteral("stablehlo.all_reduce")));
        QVERIFY(panel.programView()->isReadOnly());
        QVERIFY2(panel.programCaption().contains(QStringLiteral("<b>5</b> (data=1, model=1)")),
                 qPrintable(panel.programCaption()));
        QVERIFY(panel.programCaption().contains(QStringLiteral("partition_id</code> 5")));
    }

    void whyReplicatedOfTheMlp()
    {
        ReplicatedPanel panel(*m_context);
        QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.resize(1100, 500);
        panel.show();
        open("mlp_dp_tp.mlir");
        const int n = panel.view()->model()->rowCount();
        QVERIFY(n > 0);
        // Largest cost first.
        for (int row = 1; row < n; ++row)
            QVERIFY(panel.view()
                        ->model()
                        ->index(row - 1, ReplicatedModel::ExtraColumn)
                        .data(ReplicatedModel::SortRole)
                        .toLongLong() >= panel.view()
                                             ->model()
                                             ->index(row, ReplicatedModel::ExtraColumn)
                                             .data(ReplicatedModel::SortRole)
                                             .toLongLong());
        // %arg1 is split 4 ways of 8 ("data" never reaches it): 64*256*4 B / 4 = 16,384 B per
        // device, 8,192 B more than the 8,192 B of an even split.
        const int row = panel.model()->rowOfValue(valueOf("%arg1"));
        QVERIFY(row >= 0);
        const ReplicatedTensor* r = panel.model()->entry(row);
        QCOMPARE(r->extraBytesPerDevice, int64_t(8192));
        QCOMPARE(panel.model()->index(row, ReplicatedModel::PiecesColumn).data().toString(), QStringLiteral("4 of 8"));
        QCOMPARE(panel.model()->index(row, ReplicatedModel::ExtraColumn).data().toString(), QStringLiteral("8,192"));
        QVERIFY(!r->reasons.empty());
        QCOMPARE(panel.model()->index(row, ReplicatedModel::ReasonColumn).data().toString(),
                 QString::fromStdString(r->reasons.front()));
        QVERIFY(panel.model()
                    ->index(row, ReplicatedModel::ReasonColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QString::fromStdString(r->reasons.back())));

        // A click selects the value (the graph and the other panels follow), and the details list
        // every reason.
        m_context->select(-1);
        const QModelIndex first = panel.view()->model()->index(0, ReplicatedModel::ValueColumn);
        clickRow(panel.view(), first);
        const int value = first.data(ReplicatedModel::ValueRole).toInt();
        QVERIFY(value >= 0);
        QCOMPARE(m_context->selectedValue(), value);
        const ReplicatedTensor* top = panel.model()->entry(panel.model()->rowOfValue(value));
        for (const std::string& reason : top->reasons)
            QVERIFY2(panel.detailsText().contains(QString::fromStdString(reason)), qPrintable(panel.detailsText()));
        // Another row changes the selection again.
        clickRow(panel.view(), panel.view()->model()->index(1, ReplicatedModel::ValueColumn));
        QVERIFY(m_context->selectedValue() != value);
        QCOMPARE(m_context->selectedValue(),
                 panel.view()->model()->index(1, 0).data(ReplicatedModel::ValueRole).toInt());
    }

    void collectivesALoopNeeds()
    {
        CollectivesPanel panel(*m_context);
        panel.resize(1100, 500);
        panel.show();
        openText(shardedLoop().c_str());
        // Each device holds a 4x2 block of %v. The condition and the body each gather it whole over x and y (one
        // all-gather of a new leading dimension, groups of all 4 devices): payload 4*2*4 = 32 B, sent (4-1)*32 =
        // 96 B. They are listed with the loop as the op that needs them.
        QList<int> rows;
        for (int r = 0; r < panel.model()->rowCount(); ++r)
            if (panel.model()->collective(r)->opName == "stablehlo.while")
                rows << r;
        QCOMPARE(rows.size(), 2);
        QStringList regions;
        for (int r : rows) {
            auto cell = [&](int column) { return panel.model()->index(r, column).data().toString(); };
            QCOMPARE(cell(CollectivesModel::KindColumn), QStringLiteral("all-gather"));
            QCOMPARE(cell(CollectivesModel::AxesColumn), QStringLiteral("x, y"));
            QCOMPARE(cell(CollectivesModel::GroupsColumn), QStringLiteral("[0,1,2,3]"));
            QCOMPARE(
                panel.model()->index(r, CollectivesModel::PayloadColumn).data(CollectivesModel::SortRole).toLongLong(),
                32);
            QCOMPARE(
                panel.model()->index(r, CollectivesModel::SentColumn).data(CollectivesModel::SortRole).toLongLong(),
                96);
            QVERIFY2(cell(CollectivesModel::OpColumn).startsWith(QStringLiteral("%0")),
                     qPrintable(cell(CollectivesModel::OpColumn)));
            const QString cause = cell(CollectivesModel::CauseColumn);
            QVERIFY2(
                cause.contains(QStringLiteral("the while loop %0:2 (stablehlo.while) carries %v as <@mesh, [{\"x\"}, "
                                              "{\"y\"}]>")),
                qPrintable(cause));
            QVERIFY2(cause.contains(QStringLiteral("at the start of every iteration")), qPrintable(cause));
            regions << (cause.contains(QStringLiteral("of its condition")) ? QStringLiteral("condition")
                                                                           : QStringLiteral("body"));
        }
        regions.sort();
        QCOMPARE(regions, (QStringList{QStringLiteral("body"), QStringLiteral("condition")}));
        // A click selects the loop.
        QTableView* view = panel.view();
        QModelIndex index = panel.model()->index(rows.front(), CollectivesModel::KindColumn);
        if (auto* proxy = qobject_cast<QSortFilterProxyModel*>(view->model()))
            index = proxy->mapFromSource(index);
        clickRow(view, index);
        m_context->waitForIdle();
        QCOMPARE(m_context->selectedOp(), opOf("%0"));
    }

    void noCollectivesSaysWhy()
    {
        CollectivesPanel panel(*m_context);
        panel.show();
        openText(kDataParallel);
        QCOMPARE(panel.model()->rowCount(), 0);
        QVERIFY2(panel.summaryText().contains(QStringLiteral("No collectives")), qPrintable(panel.summaryText()));
        QVERIFY(!panel.view()->isVisible());
    }

    void emptyStatesBeforePropagation()
    {
        CollectivesPanel collectives(*m_context);
        DevicesPanel devices(*m_context);
        ReplicatedPanel replicated(*m_context);
        for (QWidget* w :
             {static_cast<QWidget*>(&collectives), static_cast<QWidget*>(&devices), static_cast<QWidget*>(&replicated)})
            w->show();
        QVERIFY(collectives.summaryText().contains(QStringLiteral("No program open")));
        m_context->open(sample("mlp_dp_tp.mlir"), {}, false);
        m_context->waitForIdle();
        QVERIFY(m_context->session() && !m_context->session()->trace());
        QVERIFY(!m_context->partitionResult());
        for (const QString& text : {collectives.summaryText(), devices.summaryText(), replicated.summaryText()})
            QVERIFY2(text.startsWith(QStringLiteral("Not propagated yet")), qPrintable(text));
        m_context->repropagate();
        m_context->waitForIdle();
        QVERIFY(m_context->partitionResult());
        QCOMPARE(collectives.model()->rowCount(), 1);
        QCOMPARE(devices.deviceModel()->rowCount(), 8);
        QVERIFY(replicated.model()->rowCount() > 0);
    }

    void partitionErrorIsShown()
    {
        CollectivesPanel collectives(*m_context);
        DevicesPanel devices(*m_context);
        collectives.show();
        devices.show();
        m_context->openText(QString::fromUtf8(kMaximalArgument), QStringLiteral("maximal.mlir"), {}, false);
        m_context->waitForIdle();
        PropagationRequest basic;
        basic.strategy = "basic";
        m_context->propagate(basic);
        m_context->waitForIdle();
        QVERIFY(m_context->session() && m_context->session()->trace());
        const std::shared_ptr<const PartitionResult>& result = m_context->partitionResult();
        QVERIFY(result && !result->model);
        // One diagnostic: the pass's position, then the stage and its message on the same line.
        const QString why = QStringLiteral("maximal.mlir:3:1: error: inserting explicit reshards failed: function "
                                           "argument 0 cannot have a single-device (maximal) sharding attribute");
        QVERIFY2(result->error.contains(why), qPrintable(result->error));
        for (const QString& text : {collectives.summaryText(), devices.summaryText()}) {
            QVERIFY2(text.startsWith(QStringLiteral("Partitioning failed:")), qPrintable(text));
            QVERIFY2(text.contains(why), qPrintable(text));
        }
        QCOMPARE(collectives.model()->rowCount(), 0);
        QCOMPARE(devices.deviceModel()->rowCount(), 0);
    }

    void partitionsOnlyWhenShownAndDropsStaleResults()
    {
        // A hidden panel asks for nothing: the program is not partitioned.
        CollectivesPanel panel(*m_context);
        open("mlp_dp_tp.mlir");
        QVERIFY(!m_context->partitionResult());
        QVERIFY(!m_context->isPartitioning());
        panel.show();
        m_context->waitForIdle();
        const std::shared_ptr<const PartitionResult> first = m_context->partitionResult();
        QVERIFY(first && first->model);
        QCOMPARE(panel.model()->rowCount(), 1);

        // An edit changes the module: the old result goes at once, and the new program is
        // partitioned after propagation: %arg3 made replicated (its dimensions closed) is held
        // whole, 256x64, by every device.
        QSignalSpy changed(m_context, &SessionContext::partitionChanged);
        const int arg3 = valueOf("%arg3");
        TensorSharding replicated = *m_context->session()->sourceSharding(arg3);
        replicated.dims[0].axes.clear();
        QVERIFY(m_context->editSharding(arg3, replicated));
        QCOMPARE(changed.count(), 1);
        QVERIFY(!m_context->partitionResult());
        m_context->waitForIdle();
        const std::shared_ptr<const PartitionResult> second = m_context->partitionResult();
        QVERIFY(second && second->model && second != first);
        for (const DeviceInfo& d : second->model->devices)
            for (const TensorShardInfo& t : d.shards)
                if (t.value == arg3)
                    QCOMPARE(QString::fromStdString(t.slice), QStringLiteral("[0:256, 0:64]"));
        QCOMPARE(panel.model()->rowCount(), static_cast<int>(second->model->collectives.size()));
    }

    void tabsBehindOthersDoNotPartition()
    {
        // The default layout shows Mesh and Shards in front of Collectives, Devices and Why Replicated?:
        // opening a program must not partition it (a 100k-op program took a second and hundreds of MB
        // for panels nobody looked at); bringing one of them to the front does.
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.resetLayout();
        QApplication::processEvents();
        w.openFile(sample("mlp_dp_tp.mlir"));
        SessionContext& c = w.context();
        for (int i = 0; i < 3; ++i) {
            c.waitForIdle();
            QApplication::processEvents();
        }
        QVERIFY(c.session() && c.session()->trace());
        QVERIFY(!c.partitionResult());
        auto* panel = qobject_cast<CollectivesPanel*>(w.dock(QStringLiteral("collectives"))->widget());
        QVERIFY(panel);
        QCOMPARE(panel->model()->rowCount(), 0);
        w.dock(QStringLiteral("collectives"))->raise();
        QApplication::processEvents();
        QTRY_VERIFY_WITH_TIMEOUT((c.waitForIdle(), c.partitionResult() != nullptr), 20000);
        QTRY_VERIFY(panel->model()->rowCount() > 0);
    }

    void docksInTheMainWindow()
    {
        StartupOptions o;
        QCOMPARE(parseStartupOptions({QStringLiteral("shardx"), QStringLiteral("--show"), QStringLiteral("devices"),
                                      QStringLiteral("--show"), QStringLiteral("collectives")},
                                     o),
                 -1);
        QCOMPARE(o.show, QStringList({QStringLiteral("devices"), QStringLiteral("collectives")}));
        MainWindow w;
        QVERIFY(qobject_cast<CollectivesPanel*>(w.dock(QStringLiteral("collectives"))->widget()));
        QVERIFY(qobject_cast<DevicesPanel*>(w.dock(QStringLiteral("devices"))->widget()));
        QVERIFY(qobject_cast<ReplicatedPanel*>(w.dock(QStringLiteral("whyReplicated"))->widget()));
        // --show takes the title as written in the tab too, case and punctuation aside.
        QCOMPARE(w.dock(QStringLiteral("Collectives")), w.dock(QStringLiteral("collectives")));
        QCOMPARE(w.dock(QStringLiteral("Why Replicated?")), w.dock(QStringLiteral("whyReplicated")));
        QCOMPARE(w.dock(QStringLiteral("why-replicated")), w.dock(QStringLiteral("whyReplicated")));
        QCOMPARE(w.dock(QStringLiteral("Mesh and Shards")), w.dock(QStringLiteral("mesh")));
        QVERIFY(!w.dock(QStringLiteral("nosuchpanel")));
        // In the View menu, as the other docks.
        QMenu* view = nullptr;
        for (QAction* a : w.menuBar()->actions())
            if (a->text() == QStringLiteral("&View"))
                view = a->menu();
        QVERIFY(view);
        for (const char* name : {"collectives", "devices", "whyReplicated"})
            QVERIFY2(view->actions().contains(w.dock(QString::fromLatin1(name))->toggleViewAction()), name);
    }
};

QTEST_MAIN(TestPartitionPanels)
#include "tst_partitionpanels.moc"
