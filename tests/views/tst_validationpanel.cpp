// The Validation panel: a run on a sample (verdict match, every value's row), an injected fault (mismatch, the
// first divergence current and selected in the graph, a row click selecting its value), cancel, results cleared
// when the program changes, settings reaching the run (mesh, seed, swap-shards), an error shown as such, and the
// dock in the main window (View menu, --show, --validate, --inject-fault).
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QLayout>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/TestSupport.h"
#ifdef SHARDX_HAVE_VULKAN
#include "tests/exec/VulkanTestSupport.h"
#endif
#include "views/app/MainWindow.h"
#include "views/app/StartupOptions.h"
#include "views/models/ValidationModel.h"
#include "views/panels/ValidationPanel.h"
#include "views/session/SessionContext.h"

using namespace shardx;
using namespace shardx::views;

namespace {

QString sample(const char* name) { return QStringLiteral(SHARDX_SOURCE_DIR "/samples/") + QLatin1String(name); }

void chooseData(QComboBox* box, const char* data) { box->setCurrentIndex(box->findData(QString::fromLatin1(data))); }

} // namespace

class TestValidationPanel : public QObject {
    Q_OBJECT

    SessionContext* m_context = nullptr;

    int valueOf(const char* name)
    {
        Expected<int> v = m_context->session()->findValue(name);
        if (!v)
            qFatal("no value %s", name);
        return *v;
    }
    void open(const char* file)
    {
        m_context->open(sample(file));
        m_context->waitForIdle();
        QVERIFY(m_context->session() && m_context->session()->trace());
    }
    /// Runs `panel` and waits for its verdict.
    static void runToEnd(SessionContext& context, ValidationPanel& panel)
    {
        QSignalSpy finished(&panel, &ValidationPanel::finished);
        QVERIFY(panel.run());
        QVERIFY(panel.isRunning());
        QVERIFY(!panel.run()); // one at a time
        context.waitForIdle();
        QCOMPARE(finished.size(), 1);
        QVERIFY(!panel.isRunning());
    }

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("shardx-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_validationpanel"));
#ifdef SHARDX_HAVE_VULKAN
        // A driver allocates a little when it loads and frees it never (lavapipe: 128 bytes); the panel's
        // executor unloads it with its instance, after which LeakSanitizer reports the block unnamed. Loaded
        // once here and kept resident, what it holds stays reachable. No driver: the test still runs.
        QString noVulkan;
        testing::createTestInstance(&noVulkan);
#endif
    }
    void init() { m_context = new SessionContext(this); }
    void cleanup()
    {
        delete m_context;
        m_context = nullptr;
    }

    void aSampleMatches()
    {
        ValidationPanel panel(*m_context);
        QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.resize(1000, 500);
        panel.show();
        QVERIFY(!panel.run()); // nothing open
        QVERIFY(panel.verdictText().contains(QStringLiteral("Open a program")));
        open("mlp_dp_tp.mlir");
        QVERIFY(panel.verdictText().startsWith(QStringLiteral("Run compares")));
        runToEnd(*m_context, panel);
        QVERIFY2(panel.verdictText().startsWith(QStringLiteral("Match: ")), qPrintable(panel.verdictText()));
        QVERIFY(panel.verdictText().contains(QStringLiteral("(8 devices) · reference back end · seed 0")));
        // Every value: 5 arguments, the intermediates, the result; all match, none is selected.
        const ValidationModel* model = panel.model();
        QVERIFY2(model->rowCount() > 10, qPrintable(QString::number(model->rowCount())));
        QCOMPARE(model->index(0, ValidationModel::ValueColumn).data().toString(), QStringLiteral("%arg0"));
        QCOMPARE(model->index(model->rowCount() - 1, ValidationModel::ValueColumn).data().toString(),
                 QStringLiteral("result 0"));
        for (int row = 0; row < model->rowCount(); ++row) {
            QVERIFY(model->index(row, 0).data(ValidationModel::MatchRole).toBool());
            QCOMPARE(model->index(row, ValidationModel::StatusColumn).data().toString(), QStringLiteral("match"));
            QVERIFY(model->index(row, ValidationModel::DeviceColumn).data().toString().isEmpty());
        }
        QCOMPARE(model->firstDivergenceRow(), -1);
        QCOMPARE(m_context->selectedValue(), -1);
        // f32 values: the tolerance of f32, and the numbers sort as numbers.
        QCOMPARE(model->index(0, ValidationModel::ToleranceColumn).data().toString(),
                 QStringLiteral("1e-05 + 0.0001·max|x|"));
        QCOMPARE(model->index(0, ValidationModel::MaxAbsColumn).data(ValidationModel::SortRole).typeId(),
                 QMetaType::Double);
        // The panel fits beside the factor table in a 1600-pixel window, and does not widen a narrower one.
        QVERIFY2(panel.layout()->minimumSize().width() <= 600,
                 qPrintable(QString::number(panel.layout()->minimumSize().width())));
        QVERIFY(panel.minimumWidth() <= 300);
    }

    void anInjectedFaultIsCaughtAndSelected()
    {
        ValidationPanel panel(*m_context);
        panel.resize(1000, 500);
        panel.show();
        open("mlp_dp_tp.mlir");
        chooseData(panel.faultBox(), "collective");
        runToEnd(*m_context, panel);
        // The all-reduce of layer 1's partial sums (%6, line 11) is the first collective; device 1's results are
        // corrupted: that is the first divergence, and it is selected in the graph.
        const QString verdict = panel.verdictText();
        QVERIFY2(verdict.startsWith(QStringLiteral("MISMATCH: first divergence %6.all_reduce (stablehlo.all_reduce, "
                                                   "mlp_dp_tp.mlir line 11) on device 1: ")),
                 qPrintable(verdict));
        QVERIFY2(verdict.contains(QStringLiteral("Injected fault: the results of stablehlo.all_reduce (mlp_dp_tp.mlir "
                                                 "line 11) corrupted on device 1")),
                 qPrintable(verdict));
        const ValidationModel* model = panel.model();
        const int first = model->firstDivergenceRow();
        QVERIFY(first >= 0);
        QCOMPARE(model->index(first, ValidationModel::ValueColumn).data().toString(), QStringLiteral("%6.all_reduce"));
        QCOMPARE(model->index(first, ValidationModel::StatusColumn).data().toString(), QStringLiteral("MISMATCH"));
        QVERIFY(model->index(first, ValidationModel::DeviceColumn).data().toString().startsWith(QStringLiteral("1")));
        QVERIFY(model->index(first, ValidationModel::OpColumn)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("all_reduce (line 11)")));
        QVERIFY(model->index(first, ValidationModel::MaxAbsColumn).data(ValidationModel::SortRole).toDouble() > 0.5);
        // Everything before it matches.
        for (int row = 0; row < first; ++row)
            QVERIFY(model->index(row, 0).data(ValidationModel::MatchRole).toBool());
        QTableView* view = panel.view();
        QCOMPARE(view->model()->data(view->selectionModel()->currentIndex()).toString(),
                 QStringLiteral("%6.all_reduce"));
        QCOMPARE(m_context->selectedValue(), valueOf("%6"));
        // A click on another row selects its value: the result is %8's.
        const QModelIndex last = view->model()->index(view->model()->rowCount() - 1, 0);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(last).center());
        QCOMPARE(m_context->selectedValue(), valueOf("%8"));

        // Swapped shards: the first argument sharded on "data" differs at once.
        chooseData(panel.faultBox(), "swap-shards");
        runToEnd(*m_context, panel);
        QVERIFY2(panel.verdictText().startsWith(QStringLiteral("MISMATCH: first divergence %arg0")),
                 qPrintable(panel.verdictText()));
        QCOMPARE(m_context->selectedValue(), valueOf("%arg0"));
    }

    void settingsReachTheRun()
    {
        ValidationPanel panel(*m_context);
        panel.show();
        open("mlp_dp_tp.mlir");
        panel.meshField()->setText(QStringLiteral("2x2"));
        panel.seedBox()->setValue(7);
        panel.intermediatesBox()->setChecked(false);
        runToEnd(*m_context, panel);
        QVERIFY2(panel.verdictText().startsWith(QStringLiteral("Match: 1 value agree")),
                 qPrintable(panel.verdictText()));
        QVERIFY(panel.verdictText().contains(QStringLiteral("(4 devices) · reference back end · seed 7")));
        QCOMPARE(panel.model()->rowCount(), 1); // the result only
        // A mesh that fits no mesh of the module: the run could not happen, and says why.
        panel.meshField()->setText(QStringLiteral("2x2x2"));
        runToEnd(*m_context, panel);
        QVERIFY2(panel.verdictText().startsWith(QStringLiteral("Validation could not run: ")) &&
                     panel.verdictText().contains(QStringLiteral("fits no mesh")),
                 qPrintable(panel.verdictText()));
        QCOMPARE(panel.model()->rowCount(), 0);
    }

    void theVulkanBackEndOrWhyNot()
    {
        // With a Vulkan driver (lavapipe in CI) the per-device programs run there and the summary says where ops
        // ran; without one the reference's verdict comes with a note saying why. Either way the sample matches.
        ValidationPanel panel(*m_context);
        panel.show();
        open("mlp_dp_tp.mlir");
        chooseData(panel.backendBox(), "vulkan");
        runToEnd(*m_context, panel);
        const QString verdict = panel.verdictText();
        QVERIFY2(verdict.startsWith(QStringLiteral("Match: ")), qPrintable(verdict));
        const bool ranOnVulkan = verdict.contains(QStringLiteral("vulkan back end"));
        if (ranOnVulkan)
            QVERIFY2(verdict.contains(QStringLiteral("\nvulkan: ")), qPrintable(verdict));
        else
            QVERIFY2(verdict.contains(QStringLiteral("the verdict is the reference's")), qPrintable(verdict));
    }

    void cancelAndChangesClearResults()
    {
        ValidationPanel panel(*m_context);
        panel.show();
        open("mlp_dp_tp.mlir");
        QSignalSpy finished(&panel, &ValidationPanel::finished);
        QVERIFY(panel.run());
        panel.cancel();
        m_context->waitForIdle();
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished.front().front().toBool(), false);
        QVERIFY2(panel.verdictText().startsWith(QStringLiteral("Cancelled")), qPrintable(panel.verdictText()));
        QCOMPARE(panel.model()->rowCount(), 0);
        // A result names values of the program it ran on: an edit (here propagation again) clears it.
        runToEnd(*m_context, panel);
        QVERIFY(panel.model()->rowCount() > 0);
        m_context->repropagate();
        m_context->waitForIdle();
        QCOMPARE(panel.model()->rowCount(), 0);
        QVERIFY(panel.verdictText().startsWith(QStringLiteral("Run compares")));
        m_context->close();
        QVERIFY(!panel.run());
        QVERIFY(panel.verdictText().contains(QStringLiteral("Open a program")));
    }

    void theDockInTheMainWindow()
    {
        StartupOptions o;
        QCOMPARE(parseStartupOptions({QStringLiteral("shardx"), QStringLiteral("--show"), QStringLiteral("Validation"),
                                      QStringLiteral("--validate"), QStringLiteral("--inject-fault"),
                                      QStringLiteral("collective")},
                                     o),
                 -1);
        QVERIFY(o.validate);
        QCOMPARE(o.injectFault, QStringLiteral("collective"));
        StartupOptions bad;
        QCOMPARE(
            parseStartupOptions({QStringLiteral("shardx"), QStringLiteral("--inject-fault"), QStringLiteral("x")}, bad),
            2);
        MainWindow w;
        auto* panel = qobject_cast<ValidationPanel*>(w.dock(QStringLiteral("Validation"))->widget());
        QVERIFY(panel);
        QMenu* view = nullptr;
        for (QAction* a : w.menuBar()->actions())
            if (a->text() == QStringLiteral("&View"))
                view = a->menu();
        QVERIFY(view && view->actions().contains(w.dock(QStringLiteral("validation"))->toggleViewAction()));
        // --validate runs it once the program is propagated, with --inject-fault's fault, and --screenshot waits
        // for the verdict.
        QTemporaryDir dir;
        o.file = sample("mlp_dp_tp.mlir");
        o.screenshot = dir.filePath(QStringLiteral("validation.png"));
        QSignalSpy finished(panel, &ValidationPanel::finished);
        QCOMPARE(w.start(o), 0);
        QCOMPARE(finished.size(), 1);
        QVERIFY2(panel->verdictText().startsWith(QStringLiteral("MISMATCH")), qPrintable(panel->verdictText()));
        QVERIFY(QFileInfo(o.screenshot).size() > 0);
    }
};

QTEST_MAIN(TestValidationPanel)
#include "tst_validationpanel.moc"
