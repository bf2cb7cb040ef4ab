// The propagation debugger in the main window: opening, stepping both ways, every kind of
// breakpoint, the step tree and factor table models, the why panel, problems, edits and undo.
#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QUndoStack>
#include <QtTest>

#include "tests/TestSupport.h"
#include "views/app/DebuggerActions.h"
#include "views/app/MainWindow.h"
#include "views/graph/GraphPanel.h"
#include "views/graph/GraphScene.h"
#include "views/graph/GraphView.h"
#include "views/graph/NodeItem.h"
#include "views/models/BreakpointModel.h"
#include "views/models/DiagnosticsModel.h"
#include "views/models/FactorTableModel.h"
#include "views/models/StepTreeModel.h"
#include "views/panels/BreakpointsPanel.h"
#include "views/panels/DiagnosticsPanel.h"
#include "views/panels/FactorTablePanel.h"
#include "views/panels/InspectorPanel.h"
#include "views/panels/NotationField.h"
#include "views/panels/SourcePanel.h"
#include "views/panels/StepTreePanel.h"
#include "views/panels/WhyPanel.h"
#include "views/session/SessionContext.h"

using namespace shardx;
using namespace shardx::views;

namespace {

// Worked by hand (basic propagation, SDY.md 4.4): the add's factors are i (dim 0) and j (dim 1);
// %arg0 offers "x" on i and %arg1 "y" on j (the other dimensions are open: a closed `{}` would
// block them), so in the add's step %0 becomes [{"x", ?}, {"y", ?}] and each argument takes the
// other's axis on its open dimension;
// the negate then gives %1 the same, and the return hands it to the function result.
const char* kTwoOps = R"(sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {?}]>}, %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}, {"y"}]>}) -> tensor<8x8xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<8x8xf32>
  %1 = stablehlo.negate %0 : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}
)";

// "x" on dimension 0 of %arg0 and on dimension 1 of %arg1 meet in the add's two factors: the
// axis can shard only one of them, so the step has a conflict (SDY.md 4.4: conflicts across factors).
const char* kConflict = R"(sdy.mesh @mesh = <["x"=2]>
func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {?}]>}, %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}, {"x"}]>}) -> tensor<8x8xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
)";

template <typename Panel> Panel* panel(MainWindow& w, const char* dock)
{
    QDockWidget* d = w.dock(QString::fromLatin1(dock));
    return d ? qobject_cast<Panel*>(d->widget()) : nullptr;
}

/// Opens `text` in the window's context with `strategy` and waits for propagation.
bool openAndPropagate(MainWindow& w, const char* text, const char* name, const char* strategy)
{
    SessionContext& c = w.context();
    PropagationRequest r;
    r.strategy = strategy;
    c.openText(QString::fromUtf8(text), QString::fromLatin1(name), {}, false);
    c.waitForIdle();
    if (!c.session())
        return false;
    c.propagate(r);
    c.waitForIdle();
    return c.session()->trace() != nullptr;
}

int valueOf(SessionContext& c, const char* name)
{
    Expected<int> v = c.session()->findValue(name);
    return v ? *v : -1;
}

int opOf(SessionContext& c, const char* name)
{
    Expected<int> v = c.session()->findOp(name);
    return v ? *v : -1;
}

void settle(SessionContext& c)
{
    c.waitForIdle();
    QCoreApplication::processEvents();
}

} // namespace

class TestDebugger : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("shardx-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_debugger"));
    }

    void opensEverySampleAndSteps_data()
    {
        QTest::addColumn<QString>("path");
        for (const QString& f :
             QDir(QStringLiteral(SHARDX_SOURCE_DIR "/samples")).entryList({QStringLiteral("*.mlir")}))
            QTest::addRow("%s", qPrintable(f)) << QStringLiteral(SHARDX_SOURCE_DIR "/samples/") + f;
    }

    void opensEverySampleAndSteps()
    {
        QFETCH(QString, path);
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openFile(path);
        settle(w.context());
        settle(w.context());
        SessionContext& c = w.context();
        QVERIFY(c.session());
        QVERIFY(c.session()->trace());
        const size_t n = c.numSteps();
        QVERIFY(n > 0);
        QCOMPARE(c.step(), n); // a fresh propagation shows its result
        DebuggerActions& d = w.debugger();
        QVERIFY(!d.stepForward()->isEnabled());
        d.restart()->trigger();
        settle(c);
        QCOMPARE(c.step(), size_t(0));
        QVERIFY(!d.stepBack()->isEnabled());
        // Forwards to the end one step at a time, then back to the start; the state after every
        // step equals a fresh seek there.
        for (size_t i = 1; i <= n; ++i) {
            d.stepForward()->trigger();
            settle(c);
            QCOMPARE(c.step(), i);
        }
        QVERIFY(!d.stepForward()->isEnabled());
        for (size_t i = n; i-- > 0;) {
            d.stepBack()->trigger();
            settle(c);
            QCOMPARE(c.step(), i);
        }
        // The step tree follows the cursor, and passes the model tester.
        StepTreePanel* steps = panel<StepTreePanel>(w, "steps");
        QVERIFY(steps);
        QAbstractItemModelTester tester(steps->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        d.runToEnd()->trigger();
        settle(c);
        QCOMPARE(c.step(), n);
        // Skipped visits are hidden until asked for.
        size_t shown = 0;
        for (const TraceStep& st : c.session()->trace()->steps())
            shown += st.kind == TraceStepKind::Skipped ? 0 : 1;
        QCOMPARE(steps->model()->visibleSteps(), shown);
    }

    void stepTreeShowsTheHandDerivedSteps()
    {
        MainWindow w;
        QVERIFY(openAndPropagate(w, kTwoOps, "two.mlir", "basic"));
        SessionContext& c = w.context();
        StepTreeModel* m = panel<StepTreePanel>(w, "steps")->model();
        QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const Trace& t = *c.session()->trace();
        // The add's step gives %0 "x" and "y"; the negate's step gives %1 the same.
        const int add = opOf(c, "%0");
        const int neg = opOf(c, "%1");
        std::optional<size_t> addStep, negStep;
        for (size_t i = 0; i < t.numSteps(); ++i) {
            if (t.steps()[i].op == add && !t.steps()[i].changes.empty() && !addStep)
                addStep = i;
            if (t.steps()[i].op == neg && !t.steps()[i].changes.empty() && !negStep)
                negStep = i;
        }
        QVERIFY(addStep && negStep && *addStep < *negStep);
        const QModelIndex addRow = m->indexOfStep(*addStep);
        QVERIFY(addRow.isValid());
        QCOMPARE(addRow.siblingAtColumn(StepTreeModel::WhatColumn).data().toString(),
                 QStringLiteral("%0 = stablehlo.add"));
        QCOMPARE(addRow.siblingAtColumn(StepTreeModel::ChangeColumn).data().toString(),
                 QStringLiteral("%arg0: <@mesh, [{\"x\"}, {?}]> → <@mesh, [{\"x\"}, {\"y\", ?}]>  (+2 more)"));
        // Three changes: %arg0, %arg1 and %0.
        QCOMPARE(m->rowCount(addRow), 3);
        QCOMPARE(m->index(2, StepTreeModel::ChangeColumn, addRow).data().toString(),
                 QStringLiteral("none → <@mesh, [{\"x\", ?}, {\"y\", ?}]>"));
        QCOMPARE(m->index(2, StepTreeModel::WhatColumn, addRow).data().toString(), QStringLiteral("%0"));
        // The filter keeps only steps naming the negate.
        StepFilter f;
        f.text = QStringLiteral("negate");
        m->setFilter(f);
        QVERIFY(m->indexOfStep(*negStep).isValid());
        QVERIFY(!m->indexOfStep(*addStep).isValid());
        f = {};
        f.changesOnly = true;
        m->setFilter(f);
        for (size_t i = 0; i < t.numSteps(); ++i)
            QCOMPARE(m->indexOfStep(i).isValid(), !t.steps()[i].changes.empty());
        // Double-clicking the add's row runs to just after it.
        m->setFilter({});
        StepTreePanel* p = panel<StepTreePanel>(w, "steps");
        p->view()->expandAll();
        emit p->view()->doubleClicked(m->indexOfStep(*addStep));
        settle(c);
        QCOMPARE(c.step(), *addStep + 1);
        QVERIFY(m->indexOfStep(*addStep).data(StepTreeModel::IsCurrentRole).toBool());
    }

    void everyKindOfBreakpointStops()
    {
        MainWindow w;
        QVERIFY(openAndPropagate(w, kTwoOps, "two.mlir", "basic"));
        SessionContext& c = w.context();
        const Trace& t = *c.session()->trace();
        const int add = opOf(c, "%0");
        const int neg = opOf(c, "%1");
        const int v1 = valueOf(c, "%1");
        size_t firstAdd = 0, firstV1 = 0, firstY = 0;
        for (size_t i = t.numSteps(); i-- > 0;) {
            if (t.steps()[i].op == add)
                firstAdd = i;
            for (const TraceChange& ch : t.steps()[i].changes) {
                if (ch.value == v1)
                    firstV1 = i;
                const TensorSharding* after = t.sharding(ch.after);
                if (after && after->toString().find("\"y\"") != std::string::npos &&
                    !(t.sharding(ch.before) && t.sharding(ch.before)->toString().find("\"y\"") != std::string::npos))
                    firstY = i;
            }
        }
        QVERIFY(neg >= 0 && v1 >= 0);
        DebuggerActions& d = w.debugger();
        auto runFromStart = [&](const Breakpoint& b) {
            c.setBreakpoints({b});
            d.restart()->trigger();
            settle(c);
            d.continueForward()->trigger();
            settle(c);
            return c.step();
        };
        Breakpoint op;
        op.kind = BreakpointKind::Op;
        op.op = add;
        QCOMPARE(runFromStart(op), firstAdd + 1);
        Breakpoint value;
        value.kind = BreakpointKind::Value;
        value.value = v1;
        QCOMPARE(runFromStart(value), firstV1 + 1);
        Breakpoint axis;
        axis.kind = BreakpointKind::Axis;
        axis.axis = "y";
        QCOMPARE(runFromStart(axis), firstY + 1);
        // The add's step is where "y" first appears (on %0), and it is a compatible prefix.
        QCOMPARE(firstY, firstAdd);
        Breakpoint decision;
        decision.kind = BreakpointKind::Decision;
        decision.decision = DecisionKind::CompatiblePrefix;
        QCOMPARE(runFromStart(decision), firstAdd + 1);
        // Reverse continue from the end comes back to the last hit.
        c.setBreakpoints({op});
        d.runToEnd()->trigger();
        settle(c);
        d.continueBackward()->trigger();
        settle(c);
        size_t lastAdd = 0;
        for (size_t i = 0; i < t.numSteps(); ++i)
            if (t.steps()[i].op == add)
                lastAdd = i;
        QCOMPARE(c.step(), lastAdd + 1);
        // No conflict in this program: "any conflict" runs to the end.
        QCOMPARE(runFromStart(Breakpoint{}), c.numSteps());
        // F9 on the selected op toggles an op breakpoint, shown in the breakpoints panel.
        c.setBreakpoints({});
        c.select(-1, neg);
        d.toggleBreakpoint()->trigger();
        QCOMPARE(c.breakpoints().size(), size_t(1));
        QCOMPARE(c.breakpoints()[0].kind, BreakpointKind::Op);
        BreakpointModel* bm = panel<BreakpointsPanel>(w, "breakpoints")->model();
        QAbstractItemModelTester tester(bm, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(bm->rowCount(), 1);
        QVERIFY(bm->index(0).data().toString().contains(QStringLiteral("stablehlo.negate")));
        QVERIFY(bm->setData(bm->index(0), Qt::Unchecked, Qt::CheckStateRole));
        QVERIFY(!c.breakpoints()[0].enabled);
        d.toggleBreakpoint()->trigger();
        QVERIFY(c.breakpoints().empty());
    }

    void anyConflictStopsAtTheConflict()
    {
        MainWindow w;
        QVERIFY(openAndPropagate(w, kConflict, "conflict.mlir", "basic"));
        SessionContext& c = w.context();
        const Trace& t = *c.session()->trace();
        const int add = opOf(c, "%0");
        c.setBreakpoints({Breakpoint{}});
        w.debugger().restart()->trigger();
        settle(c);
        w.debugger().continueForward()->trigger();
        settle(c);
        QVERIFY(c.step() > 0 && c.step() < c.numSteps() + 1);
        QCOMPARE(t.steps()[c.step() - 1].op, add);
        QVERIFY(stepHasConflict(t, c.step() - 1));
        // The step tree's conflict filter shows that step.
        StepTreeModel* m = panel<StepTreePanel>(w, "steps")->model();
        StepFilter f;
        f.conflictsOnly = true;
        m->setFilter(f);
        QVERIFY(m->indexOfStep(c.step() - 1).isValid());
        QVERIFY(m->visibleSteps() >= 1);
    }

    void factorTableOfTheSelectedOp()
    {
        MainWindow w;
        QVERIFY(openAndPropagate(w, kTwoOps, "two.mlir", "basic"));
        SessionContext& c = w.context();
        const Trace& t = *c.session()->trace();
        const int add = opOf(c, "%0");
        size_t addStep = 0;
        for (size_t i = 0; i < t.numSteps(); ++i)
            if (t.steps()[i].op == add && !t.steps()[i].changes.empty()) {
                addStep = i;
                break;
            }
        FactorTablePanel* p = panel<FactorTablePanel>(w, "factorTable");
        FactorTableModel* m = p->model();
        QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        c.select(-1, add);
        c.setStep(addStep); // just before the add's step
        settle(c);
        // Rows: operand 0 (%arg0), operand 1 (%arg1), result 0 (%0); columns i, j, replicated, unreduced.
        QCOMPARE(m->rowCount(), 3);
        QCOMPARE(m->columnCount(), 4);
        QVERIFY(m->headerData(0, Qt::Horizontal).toString().startsWith(QStringLiteral("i = 8")));
        QVERIFY(m->headerData(1, Qt::Horizontal).toString().startsWith(QStringLiteral("j = 8")));
        QCOMPARE(m->index(0, 0).data().toString(), QStringLiteral("\"x\""));
        QCOMPARE(m->index(1, 1).data().toString(), QStringLiteral("\"y\""));
        QCOMPARE(m->index(2, 0).data().toString(), QStringLiteral("?"));
        // After the add's step: the result row has "x" and "y", and those two cells are marked.
        c.setStep(addStep + 1);
        settle(c);
        QCOMPARE(m->index(2, 0).data().toString(), QStringLiteral("\"x\", ?"));
        QCOMPARE(m->index(2, 1).data().toString(), QStringLiteral("\"y\", ?"));
        QVERIFY(m->index(2, 0).data(FactorTableModel::ChangedRole).toBool());
        QVERIFY(m->index(2, 1).data(FactorTableModel::ChangedRole).toBool());
        QVERIFY(!m->index(0, 0).data(FactorTableModel::ChangedRole).toBool());
        QCOMPARE(m->index(0, 1).data().toString(), QStringLiteral("\"y\", ?")); // %arg0 took "y"
        QVERIFY(m->index(0, 1).data(FactorTableModel::ChangedRole).toBool());
        QVERIFY(p->explanation().contains(QStringLiteral("compatible sharding of factor i from operand 0")));
        QVERIFY(p->explanation().contains(QStringLiteral("compatible sharding of factor j from operand 1")));
    }

    void whyPanelAnswers()
    {
        MainWindow w;
        QVERIFY(openAndPropagate(w, kTwoOps, "two.mlir", "basic"));
        SessionContext& c = w.context();
        WhyPanel* why = panel<WhyPanel>(w, "why");
        c.select(valueOf(c, "%1"));
        settle(c);
        const QString text = why->text();
        // %1 takes "x" and "y" from %0 in the negate's step.
        QVERIFY2(text.contains(QStringLiteral("\"x\": \"x\" shards dimension 0 since step #")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("op stablehlo.negate")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("from operand 0 (%0)")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("\"y\": \"y\" shards dimension 1")));
        // One axis only.
        why->axisBox()->setCurrentIndex(why->axisBox()->findText(QStringLiteral("y")));
        QVERIFY(!why->text().contains(QStringLiteral("\"x\" shards")));
        QVERIFY(why->text().contains(QStringLiteral("\"y\" shards")));
    }

    void clickingAGraphNodeMovesThePanels()
    {
        // A click on an op in the dataflow graph selects its value and op; the why panel and the
        // factor table follow (the worked steps of kTwoOps: the add gives %0 "x" and "y" from its
        // operands, the negate hands them on to %1).
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(openAndPropagate(w, kTwoOps, "two.mlir", "basic"));
        SessionContext& c = w.context();
        GraphPanel* graph = panel<GraphPanel>(w, "graph");
        QVERIFY(graph);
        QTRY_VERIFY(graph->graph() && !graph->isLayingOut() && !graph->scene()->nodeItems().isEmpty());
        WhyPanel* why = panel<WhyPanel>(w, "why");
        FactorTableModel* factors = panel<FactorTablePanel>(w, "factorTable")->model();
        InspectorPanel* inspector = panel<InspectorPanel>(w, "inspector");
        QVERIFY(inspector);
        c.setStep(c.numSteps());
        settle(c);
        auto click = [&](const char* name) {
            const auto& nodes = graph->graph()->nodes();
            for (size_t i = 0; i < nodes.size(); ++i)
                if (nodes[i].name == name) {
                    NodeItem* item = graph->scene()->nodeItem(static_cast<int>(i));
                    if (!item)
                        return false;
                    graph->view()->centerOn(item);
                    const QPoint at = graph->view()->mapFromScene(item->sceneBoundingRect().center());
                    QTest::mouseClick(graph->view()->viewport(), Qt::LeftButton, {}, at);
                    settle(c);
                    return true;
                }
            return false;
        };
        QVERIFY(click("%0"));
        QCOMPARE(c.selectedValue(), valueOf(c, "%0"));
        QCOMPARE(c.selectedOp(), opOf(c, "%0"));
        QVERIFY2(why->text().contains(QStringLiteral("op stablehlo.add")), qPrintable(why->text()));
        // The inspector follows: %0's sharding after the last step, in Shardy's notation.
        QVERIFY2(inspector->headerText().contains(QStringLiteral("%0")), qPrintable(inspector->headerText()));
        QVERIFY2(inspector->shardingAtStep()->text().contains(QStringLiteral("\"x\"")),
                 qPrintable(inspector->shardingAtStep()->text()));
        // The add: operands %arg0, %arg1 and result %0; after its step %0 has "x" on i, "y" on j.
        QCOMPARE(factors->rowCount(), 3);
        QCOMPARE(factors->index(2, 0).data().toString(), QStringLiteral("\"x\", ?"));
        QCOMPARE(factors->index(2, 1).data().toString(), QStringLiteral("\"y\", ?"));
        QVERIFY(click("%1"));
        QCOMPARE(c.selectedValue(), valueOf(c, "%1"));
        QCOMPARE(c.selectedOp(), opOf(c, "%1"));
        QVERIFY2(why->text().contains(QStringLiteral("op stablehlo.negate")), qPrintable(why->text()));
        QVERIFY2(inspector->headerText().contains(QStringLiteral("%1")), qPrintable(inspector->headerText()));
        QVERIFY(why->text().contains(QStringLiteral("from operand 0 (%0)")));
        QCOMPARE(factors->rowCount(), 2); // the negate: %0 in, %1 out
    }

    void malformedFileShowsItsErrors()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.mlir"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
                "  %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>\n"
                "  return %1 : tensor<4xf32>\n"
                "}\n");
        f.close();
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy opened(&w.context(), &SessionContext::opened);
        w.openFile(path);
        settle(w.context());
        QCOMPARE(opened.count(), 1);
        QCOMPARE(opened.front().front().toBool(), false);
        DiagnosticsPanel* problems = panel<DiagnosticsPanel>(w, "problems");
        DiagnosticsModel* m = problems->model();
        QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(m->errorCount(), 1);
        QCOMPARE(m->index(0, DiagnosticsModel::LocationColumn).data().toString(), QStringLiteral("bad.mlir:3:10"));
        QVERIFY(m->index(0, DiagnosticsModel::MessageColumn).data().toString().contains(QStringLiteral("%1")));
        // Clicking it shows line 3 in the source panel.
        QTableView* view = problems->view();
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(m->index(0, 2)).center());
        SourcePanel* source = panel<SourcePanel>(w, "source");
        QCOMPARE(source->view()->highlightedLine(), 3);
        QCOMPARE(source->view()->textCursor().blockNumber(), 2);
    }

    /// The source panel reads the program's text (as large as the file, with a layout per line) only
    /// when it is shown: opening a large program with the panel behind another tab costs nothing.
    void sourceLoadsWhenShown()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("two.mlir"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kTwoOps);
        f.close();
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        SourcePanel* source = panel<SourcePanel>(w, "source");
        QVERIFY(source);
        QDockWidget* sourceDock = w.dock(QStringLiteral("source"));
        // Behind another tab (the default layout: the mesh panel in front).
        w.dock(QStringLiteral("mesh"))->raise();
        QCoreApplication::processEvents();
        w.openFile(path);
        settle(w.context());
        QVERIFY(w.context().session());
        QVERIFY(source->view()->document()->isEmpty());
        QCOMPARE(source->pendingFile(), path);
        // Brought to the front, it reads the file.
        sourceDock->raise();
        QTRY_VERIFY(!source->view()->document()->isEmpty());
        QVERIFY(source->view()->toPlainText().contains(QStringLiteral("stablehlo.add")));
        QVERIFY(source->pendingFile().isEmpty());
        // Closed (as a user closes a panel), then opened again: the same.
        sourceDock->hide();
        w.context().close();
        settle(w.context());
        w.openFile(path);
        settle(w.context());
        QVERIFY(source->view()->document()->isEmpty());
        sourceDock->show();
        sourceDock->raise();
        QTRY_VERIFY(!source->view()->document()->isEmpty());
    }

    /// Closing a propagated program lets every panel go of its trace before the panels redraw (the step
    /// tree moved its position over the freed trace: a use after free under the sanitizers).
    void closeAfterPropagation()
    {
        MainWindow w;
        QVERIFY(openAndPropagate(w, kTwoOps, "two.mlir", "basic"));
        w.context().setStep(w.context().session()->trace()->numSteps());
        settle(w.context());
        w.context().close();
        settle(w.context());
        QVERIFY(!w.context().session());
        QCOMPARE(w.context().step(), size_t(0));
        // And open again.
        QVERIFY(openAndPropagate(w, kTwoOps, "two.mlir", "basic"));
    }

    void editAndUndo()
    {
        MainWindow w;
        QVERIFY(openAndPropagate(w, kTwoOps, "two.mlir", "basic"));
        SessionContext& c = w.context();
        const int arg1 = valueOf(c, "%arg1");
        const int v0 = valueOf(c, "%0");
        QCOMPARE(c.session()->shardingAt(v0)->toString(), std::string("<@mesh, [{\"x\", ?}, {\"y\", ?}]>"));
        // %arg1 loses "y": after propagating again %0 has only "x".
        DiagnosticList diags;
        TensorSharding replicated = *c.session()->sourceSharding(arg1);
        replicated.dims[1].axes.clear();
        QVERIFY(c.editSharding(arg1, replicated));
        settle(c);
        QCOMPARE(c.undoStack()->count(), 1);
        QCOMPARE(c.session()->shardingAt(v0)->toString(), std::string("<@mesh, [{\"x\", ?}, {?}]>"));
        c.undoStack()->undo();
        settle(c);
        QCOMPARE(c.session()->shardingAt(v0)->toString(), std::string("<@mesh, [{\"x\", ?}, {\"y\", ?}]>"));
        c.undoStack()->redo();
        settle(c);
        QCOMPARE(c.session()->shardingAt(v0)->toString(), std::string("<@mesh, [{\"x\", ?}, {?}]>"));
        // A sharding that does not verify is refused and leaves no command.
        TensorSharding bad = replicated;
        bad.dims[0].axes = {AxisRef("nope")};
        QVERIFY(!c.editSharding(arg1, bad));
        QCOMPARE(c.undoStack()->count(), 1);
    }

    void screenshotOption()
    {
        // `shardx FILE --screenshot OUT.png` through MainWindow::start (the option parser is tested too).
        QTemporaryDir dir;
        StartupOptions o;
        const QStringList args{
            QStringLiteral("shardx"),       QStringLiteral(SHARDX_SOURCE_DIR "/samples/mlp_dp_tp.mlir"),
            QStringLiteral("--step"),       QStringLiteral("3"),
            QStringLiteral("--select"),     QStringLiteral("%4"),
            QStringLiteral("--screenshot"), dir.filePath(QStringLiteral("s.png")),
            QStringLiteral("--size"),       QStringLiteral("1200x800")};
        QCOMPARE(parseStartupOptions(args, o), -1);
        QCOMPARE(*o.step, qulonglong(3));
        QCOMPARE(o.select, QStringLiteral("%4"));
        MainWindow w;
        QCOMPARE(w.start(o), 0);
        QCOMPARE(w.context().step(), size_t(3));
        QCOMPARE(w.context().selectedValue(), valueOf(w.context(), "%4"));
        QImage shot(dir.filePath(QStringLiteral("s.png")));
        QCOMPARE(shot.size(), QSize(1200, 800));
        StartupOptions bad;
        QCOMPARE(parseStartupOptions({QStringLiteral("shardx"), QStringLiteral("--step"), QStringLiteral("x")}, bad),
                 2);
    }
};

QTEST_MAIN(TestDebugger)
#include "tst_debugger.moc"
