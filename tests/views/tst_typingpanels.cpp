// The Types and Rules docks: JAX's explicit-mode types of the samples beside Shardy's propagation
// (errors at their ops, axis types set from the panel), scalax-style rules matched to each
// argument (errors at JSON pointers, Apply annotating, reopening and propagating), and both docks
// in the main window's View menu and --show.
#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/TestSupport.h"
#include "views/app/MainWindow.h"
#include "views/models/DiagnosticsModel.h"
#include "views/models/RulesModel.h"
#include "views/models/TypesModel.h"
#include "views/panels/RulesPanel.h"
#include "views/panels/TypesPanel.h"
#include "views/session/SessionContext.h"

using namespace shardx;
using namespace shardx::views;

namespace {

QString sample(const char* name) { return QStringLiteral(SHARDX_SOURCE_DIR "/samples/") + QLatin1String(name); }

/// The row of `name` (`%0`, `%arg1`, `result 0`) in a TypesModel, -1 for none.
int typeRow(const TypesModel* m, const char* name)
{
    for (size_t i = 0; i < m->rows().size(); ++i)
        if (m->rows()[i].name == QLatin1String(name))
            return static_cast<int>(i);
    return -1;
}

const TypeRow& typeOf(const TypesModel* m, const char* name)
{
    const int row = typeRow(m, name);
    if (row < 0)
        qFatal("no row %s", name);
    return m->rows()[static_cast<size_t>(row)];
}

void writeFile(const QString& path, const QByteArray& text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

} // namespace

class TestTypingPanels : public QObject {
    Q_OBJECT

    SessionContext* m_context = nullptr;

    int valueOf(const char* name)
    {
        Expected<int> v = m_context->session()->findValue(name);
        if (!v)
            qFatal("no value %s", name);
        return *v;
    }
    void open(const QString& file)
    {
        m_context->open(file);
        m_context->waitForIdle();
        QVERIFY(m_context->session() && m_context->session()->trace());
    }

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("shardx-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_typingpanels"));
    }
    void init() { m_context = new SessionContext(this); }
    void cleanup()
    {
        delete m_context;
        m_context = nullptr;
    }

    void typesOfTheIllegalAdd()
    {
        // Seed 001: i32[4@X,4] + i32[4,4@X] would be i32[4@X,4@X]: an error at %0 (line 4), which
        // goes on typed as its first operand's type; %1 has its out sharding P('X', None).
        TypesPanel panel(*m_context);
        QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.resize(1000, 500);
        panel.show();
        open(sample("explicit_illegal_add.mlir"));
        const TypesModel* m = panel.model();
        QCOMPARE(m->rowCount(), 6); // 2 arguments, 2 adds, 2 results
        QCOMPARE(typeOf(m, "%arg0").type, QStringLiteral("i32[4@X,4]"));
        QCOMPARE(typeOf(m, "%arg1").type, QStringLiteral("i32[4,4@X]"));
        QCOMPARE(typeOf(m, "%0").type, QStringLiteral("i32[4@X,4]"));
        QVERIFY(typeOf(m, "%0").error);
        QCOMPARE(typeOf(m, "%0").how, QStringLiteral("recovered after an error"));
        QVERIFY(!typeOf(m, "%1").error);
        QCOMPARE(typeOf(m, "%1").how, QStringLiteral("out sharding"));
        QCOMPARE(panel.errorsModel()->errorCount(), 1);
        const Diagnostic& e = panel.errorsModel()->diagnostics().front();
        QCOMPARE(e.pos.line, 4);
        QVERIFY(QString::fromStdString(e.message).contains(QStringLiteral("illegally sharded result: i32[4@X,4@X]")));
        QVERIFY2(panel.summaryText().contains(QStringLiteral("1 error(s)")), qPrintable(panel.summaryText()));
        QCOMPARE(panel.axisTypesText(), QStringLiteral("X=Explicit,Y=Explicit"));
        // A click on the error selects the add and shows its line.
        QSignalSpy source(m_context, &SessionContext::sourceRequested);
        panel.activateError(0);
        QCOMPARE(m_context->selectedValue(), valueOf("%0"));
        QCOMPARE(source.count(), 1);
        QCOMPARE(source.front().at(1).toInt(), 4);
        // The selection shows in the table.
        QCOMPARE(panel.view()->selectionModel()->currentIndex().data(TypesModel::ValueRole).toInt(), valueOf("%0"));
    }

    void typesOfTheMlpAgainstPropagationAndAxisTypes()
    {
        TypesPanel panel(*m_context);
        panel.resize(1000, 500);
        panel.show();
        open(sample("explicit_mlp.mlir"));
        const TypesModel* m = panel.model();
        // Both axes Explicit: %1 = broadcast of %arg2 f32[256@Y] is typed f32[16,256@Y] by JAX's
        // rule (a new dimension is unsharded); Shardy's propagation also shards dim 0 on X (from
        // the add it feeds): a difference on an Explicit axis. Everything else agrees.
        QCOMPARE(m->differenceCount(), 1);
        const TypeRow& b = typeOf(m, "%1");
        QVERIFY(b.differs && !b.moreSpecific);
        QCOMPARE(b.type, QStringLiteral("f32[16,256@Y]"));
        QCOMPARE(b.propagated, QStringLiteral("f32[16@X,256@Y]"));
        QCOMPARE(typeOf(m, "%0").propagated, typeOf(m, "%0").type);
        // Y Auto: Y leaves every type; where propagation put Y the concrete sharding is only more
        // specific (%arg1-%arg3, %0, %2, %4), and %1 still differs on X: 7 differences.
        panel.setAxisType(QStringLiteral("Y"), explicit_::AxisType::Auto);
        m_context->waitForIdle();
        QCOMPARE(panel.axisTypesText(), QStringLiteral("X=Explicit,Y=Auto"));
        QCOMPARE(m->differenceCount(), 7);
        const TypeRow& w = typeOf(m, "%arg1");
        QCOMPARE(w.type, QStringLiteral("f32[64,256]"));
        QCOMPARE(w.propagated, QStringLiteral("f32[64,256@Y]"));
        QVERIFY(w.moreSpecific);
        QVERIFY(w.reason.contains(QStringLiteral("more specific")));
        // Only the notable rows: the 7.
        panel.setOnlyNotable(true);
        QCOMPARE(panel.view()->model()->rowCount(), 7);
        // Selecting a row's value in the session shows why in the details.
        m_context->select(valueOf("%arg1"));
        QVERIFY2(panel.detailsText().contains(QStringLiteral("more specific")), qPrintable(panel.detailsText()));
        panel.resetAxisTypes();
        m_context->waitForIdle();
        QCOMPARE(panel.axisTypesText(), QStringLiteral("X=Explicit,Y=Explicit"));
        QCOMPARE(m->differenceCount(), 1);
    }

    void rulesOfTheMlp()
    {
        // samples/mlp_rules.json on samples/mlp_dp_tp.mlir: the tree_path rule /rules/0 gives x and
        // the weights and the first bias their specs, the policy /rules/1 the last bias; the
        // result matches nothing and is left to propagation.
        RulesPanel panel(*m_context);
        QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.resize(1100, 500);
        panel.show();
        open(sample("mlp_dp_tp.mlir"));
        panel.loadRules(sample("mlp_rules.json"));
        m_context->waitForIdle();
        const RulesModel* m = panel.model();
        QCOMPARE(m->rowCount(), 6);
        auto cell = [&](int row, int col) { return m->index(row, col).data().toString(); };
        QCOMPARE(cell(0, RulesModel::ValueColumn), QStringLiteral("%arg0"));
        QCOMPARE(cell(0, RulesModel::PathColumn), QStringLiteral("x"));
        QCOMPARE(cell(0, RulesModel::SpecColumn), QStringLiteral("P('data')"));
        QCOMPARE(m->index(0, 0).data(RulesModel::PointerRole).toString(), QStringLiteral("/rules/0"));
        QCOMPARE(cell(1, RulesModel::PathColumn), QStringLiteral("params/layer_0/w"));
        QCOMPARE(cell(1, RulesModel::SpecColumn), QStringLiteral("P(None, 'model')"));
        QCOMPARE(cell(4, RulesModel::PathColumn), QStringLiteral("params/layer_1/b"));
        QCOMPARE(cell(4, RulesModel::RuleColumn), QStringLiteral("policy rule /rules/1: entry 0"));
        QCOMPARE(m->index(4, 0).data(RulesModel::PointerRole).toString(), QStringLiteral("/rules/1"));
        QCOMPARE(cell(5, RulesModel::ValueColumn), QStringLiteral("result 0"));
        QCOMPARE(m->index(5, 0).data(RulesModel::PointerRole).toString(), QString());
        QCOMPARE(cell(1, RulesModel::HadColumn), QStringLiteral("sdy.sharding <@mesh, [{}, {\"model\"}]>"));
        QVERIFY2(panel.summaryText().contains(QStringLiteral("5 of 6 values matched a rule")),
                 qPrintable(panel.summaryText()));
        // A row selects its argument.
        QCOMPARE(m->index(2, 0).data(RulesModel::ValueRole).toInt(), valueOf("%arg2"));
    }

    void malformedRulesShowTheirPointer()
    {
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("bad.json"));
        writeFile(bad, R"({"mesh": {"axis_dims": [2, -1], "axis_names": ["data", "model"]},
                          "rules": [{"kind": "named", "annotations": {"h": [null, "x"]}}]})");
        RulesPanel panel(*m_context);
        panel.show();
        open(sample("mlp_dp_tp.mlir"));
        panel.loadRules(bad);
        m_context->waitForIdle();
        QCOMPARE(panel.model()->rowCount(), 0);
        QCOMPARE(panel.problemsModel()->errorCount(), 1);
        QCOMPARE(panel.problemsModel()->index(0, DiagnosticsModel::MessageColumn).data().toString(),
                 QStringLiteral("/rules/0/annotations/h/1: axis \"x\" is not in mesh.axis_names"));
        QVERIFY(panel.summaryText().contains(QStringLiteral("error")));
        QVERIFY(!panel.apply());
    }

    void applyAnnotatesReopensAndPropagates()
    {
        // A module without shardings; the rules shard w on model (dim 1) and x on data. Apply
        // writes m.annotated.mlir beside it, opens it and propagates: the add of x and w @ ...
        QTemporaryDir dir;
        const QString module = dir.filePath(QStringLiteral("m.mlir"));
        writeFile(module, R"(module attributes {mhlo.num_partitions = 8 : i32} {
  func.func public @main(%arg0: tensor<16x64xf32> loc("x"), %arg1: tensor<64x256xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} loc("params['w']")) -> (tensor<16x256xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<16x64xf32>, tensor<64x256xf32>) -> tensor<16x256xf32>
    return %0 : tensor<16x256xf32>
  }
})");
        const QString rules = dir.filePath(QStringLiteral("r.json"));
        writeFile(rules, R"({"mesh": {"axis_dims": [2, -1], "axis_names": ["data", "model"]},
                            "rules": [{"kind": "tree_path", "patterns": [["^x$", ["data"]], ["w$", [null, "model"]]]}]})");
        RulesPanel panel(*m_context);
        panel.show();
        open(module);
        panel.loadRules(rules);
        m_context->waitForIdle();
        QCOMPARE(panel.model()->rowCount(), 2); // the result matches nothing and had nothing
        QCOMPARE(panel.model()->index(1, RulesModel::HadColumn).data().toString(),
                 QStringLiteral("mhlo.sharding {devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate} = "
                                "P(None, 'model')"));
        QCOMPARE(panel.defaultOutputPath(), dir.filePath(QStringLiteral("m.annotated.mlir")));
        QSignalSpy applied(&panel, &RulesPanel::applied);
        QVERIFY(panel.apply());
        m_context->waitForIdle();
        QCOMPARE(applied.count(), 1);
        QVERIFY(applied.front().at(0).toBool());
        QCOMPARE(m_context->filePath(), dir.filePath(QStringLiteral("m.annotated.mlir")));
        QVERIFY(m_context->session() && m_context->session()->trace());
        const std::optional<TensorSharding> w = m_context->session()->sourceSharding(valueOf("%arg1"));
        QVERIFY(w);
        QCOMPARE(w->toString(), std::string("<@mesh, [{}, {\"model\"}]>"));
        // Propagated: the product is sharded on data and model.
        const TensorSharding* out = m_context->session()->shardingAt(valueOf("%0"));
        QVERIFY(out);
        QCOMPARE(out->toString(), std::string("<@mesh, [{\"data\"}, {\"model\"}]>"));
        // Applying the same rules to the annotated file writes the same name, not *.annotated.annotated.
        QCOMPARE(panel.defaultOutputPath(), dir.filePath(QStringLiteral("m.annotated.mlir")));
    }

    void docksInTheMainWindow()
    {
        MainWindow w;
        for (const char* name : {"types", "Rules"}) {
            QDockWidget* d = w.dock(QString::fromLatin1(name));
            QVERIFY2(d, name);
            bool inViewMenu = false;
            for (QAction* menu : w.menuBar()->actions())
                if (menu->menu() && menu->text().remove(QLatin1Char('&')) == QStringLiteral("View"))
                    inViewMenu = menu->menu()->actions().contains(d->toggleViewAction());
            QVERIFY2(inViewMenu, name);
        }
        QVERIFY(qobject_cast<TypesPanel*>(w.dock(QStringLiteral("types"))->widget()));
        // The docks do not widen the window, and --show's raise types the program once it opens.
        w.resize(1200, 800);
        w.show();
        w.dock(QStringLiteral("types"))->raise();
        w.openFile(sample("explicit_mlp.mlir"));
        w.context().waitForIdle();
        w.context().waitForIdle();
        QCOMPARE(w.width(), 1200);
        auto* types = qobject_cast<TypesPanel*>(w.dock(QStringLiteral("types"))->widget());
        QCOMPARE(types->model()->rowCount(), 19);
    }

    void rulesBehindAnotherTabWaitForIt()
    {
        // Rules loaded while the Rules tab sits behind another (as --rules does) are previewed when the
        // tab comes to the front, not at once: a dock behind a tab is still a visible widget.
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.resetLayout();
        w.openFile(sample("mlp_dp_tp.mlir"));
        w.context().waitForIdle();
        w.context().waitForIdle();
        auto* rules = qobject_cast<RulesPanel*>(w.dock(QStringLiteral("rules"))->widget());
        QVERIFY(rules);
        QSignalSpy previewed(rules, &RulesPanel::previewed);
        rules->loadRules(sample("mlp_rules.json"));
        w.context().waitForIdle();
        QApplication::processEvents();
        QCOMPARE(previewed.count(), 0);
        QCOMPARE(rules->model()->rowCount(), 0);
        w.dock(QStringLiteral("rules"))->raise();
        QApplication::processEvents();
        QTRY_VERIFY_WITH_TIMEOUT((w.context().waitForIdle(), previewed.count() == 1), 20000);
        QCOMPARE(rules->model()->rowCount(), 6);
    }
};

QTEST_MAIN(TestTypingPanels)
#include "tst_typingpanels.moc"
