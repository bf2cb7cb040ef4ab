// InspectorPanel: the notations of a selected value of the samples, origins and their links, and
// editing through the inspector (validation, apply, undo, redo, the changed-values list).
#include <QtTest>

#include <QAbstractItemModelTester>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QTextEdit>
#include <QUndoStack>

#include "views/models/ChangedValuesModel.h"
#include "views/panels/InspectorPanel.h"
#include "views/panels/NotationField.h"
#include "views/panels/ShardingEditor.h"
#include "views/session/SessionContext.h"

using namespace shardx;
using namespace shardx::views;

namespace {

QString sample(const char* name) { return QStringLiteral(SHARDX_SOURCE_DIR "/samples/") + QLatin1String(name); }

std::string shardingText(const std::optional<TensorSharding>& s) { return s ? s->toString() : "none"; }

} // namespace

class TestInspectorPanel : public QObject {
    Q_OBJECT

    SessionContext* m_context = nullptr;
    InspectorPanel* m_panel = nullptr;

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

private slots:
    void init()
    {
        m_context = new SessionContext(this);
        m_panel = new InspectorPanel(*m_context);
        m_panel->resize(420, 900);
        m_panel->show();
    }
    void cleanup()
    {
        delete m_panel;
        delete m_context;
    }

    void conversionsOfASample()
    {
        open("attention.mlir");
        m_context->select(valueOf("%22"));
        // The constraint's own sharding, kept by propagation: on ["data"=2, "tensor"=4], dim 0 on
        // data, dim 2 on tensor; tile [2,1,4] in device order (data, tensor) = iota, nothing left
        // to replicate; DTensor: data shards dim 0, tensor dim 2.
        const std::string expected = R"(<@mesh, [{"data"}, {}, {"tensor"}]>)";
        QCOMPARE(m_panel->shardingAtStep()->text().toStdString(), expected);
        QCOMPARE(m_panel->shardingBefore()->text().toStdString(), expected);
        QCOMPARE(m_panel->partitionSpec()->text(), QStringLiteral("P('data', None, 'tensor')"));
        QCOMPARE(m_panel->jaxType()->text(), QStringLiteral("f32[4@data,16,64@tensor]"));
        QCOMPARE(m_panel->hloSharding()->text(), QStringLiteral("{devices=[2,1,4]<=[8]}"));
        QCOMPARE(m_panel->dtensor()->text(), QStringLiteral("[Shard(0), Shard(2)]"));
        QVERIFY(m_panel->dtensor()->notesText().contains(QStringLiteral("init_device_mesh(\"cuda\", (2, 4)")));
        QVERIFY(m_panel->headerText().contains(QStringLiteral("%22")));
        // Selectable and copyable: read-only line edits.
        QVERIFY(m_panel->hloSharding()->textBox()->isReadOnly());

        // %arg1 (wq) [{}, {"tensor"}]: dim 1 on tensor, data replicated: [1,4] + 2 in order
        // (tensor, data) = transpose of the (data, tensor) iota.
        m_context->select(valueOf("%arg1"));
        QCOMPARE(m_panel->hloSharding()->text(),
                 QStringLiteral("{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"));
        QCOMPARE(m_panel->partitionSpec()->text(), QStringLiteral("P(None, 'tensor')"));
        QCOMPARE(m_panel->dtensor()->text(), QStringLiteral("[Replicate(), Shard(1)]"));
    }

    void subAxesAreExplained()
    {
        open("reshape_subaxes.mlir");
        m_context->select(valueOf("%1"));
        QCOMPARE(m_panel->shardingAtStep()->text(), QStringLiteral(R"(<@mesh, [{"x":(1)2}, {"x":(2)2}, {"y"}]>)"));
        QVERIFY(m_panel->partitionSpec()->text().isEmpty());
        QVERIFY(m_panel->partitionSpec()->notesText().contains(QStringLiteral("sub-axis \"x\":(1)2")));
        QVERIFY(m_panel->dtensor()->text().isEmpty());
        QVERIFY(m_panel->jaxType()->text().isEmpty());
        // GSPMD reshapes the device iota instead: (x:(1)2, x:(2)2, y) in mesh order.
        QCOMPARE(m_panel->hloSharding()->text(), QStringLiteral("{devices=[2,2,2]<=[8]}"));
    }

    void originsLinkToValues()
    {
        open("mlp_dp_tp.mlir");
        // %0 = dot(%arg0, %arg1) feeds add (%2), maximum (%4) and the constraint %5 [data, model].
        // The pipeline propagates element-wise ops first: the constraint's axes reach %2 through
        // the maximum (step 9) and %0 through the add (step 13), so both come from %5.
        m_context->select(valueOf("%0"));
        const QString origins = m_panel->originsText();
        const int constraint = valueOf("%5");
        const QString from = QStringLiteral("from <a href=\"value:%1\">%5</a>").arg(constraint);
        QVERIFY2(origins.contains(QStringLiteral("d0 <code>&quot;data&quot;</code> ← ") + from), qPrintable(origins));
        QVERIFY2(origins.contains(QStringLiteral("d1 <code>&quot;model&quot;</code> ← ") + from), qPrintable(origins));
        QVERIFY(origins.contains(QStringLiteral("<a href=\"step:13\">13</a>, <a href=\"step:9\">9</a>")));
        m_panel->openLink(QStringLiteral("value:%1").arg(constraint));
        QCOMPARE(m_context->selectedValue(), constraint);
        QCOMPARE(m_panel->shardingBefore()->text(), QStringLiteral(R"(<@mesh, [{"data"}, {"model"}]>)"));
        QVERIFY(m_panel->originsText().contains(QStringLiteral("its own annotation")));
        // A step link moves the cursor to the state after that step.
        m_panel->openLink(QStringLiteral("step:9"));
        m_context->waitForIdle();
        QCOMPARE(m_context->step(), size_t(10));
        QCOMPARE(m_context->selectedStep(), 9);
    }

    void editorValidatesAsYouType()
    {
        open("mlp_dp_tp.mlir");
        m_context->select(valueOf("%arg1"));
        ShardingEditor* editor = m_panel->editor();
        QCOMPARE(editor->text(), QStringLiteral(R"(<@mesh, [{}, {"model"}]>)"));
        QVERIFY(editor->applyButton()->isEnabled());
        editor->lineEdit()->setText(QStringLiteral(R"(<@mesh, [{"model"}, {"data"])"));
        QVERIFY2(editor->status().startsWith(QStringLiteral("✗ column")), qPrintable(editor->status()));
        QVERIFY(!editor->applyButton()->isEnabled());
        editor->lineEdit()->setText(QStringLiteral(R"(<@mesh, [{"model"}]>)"));
        QVERIFY2(editor->status().startsWith(QStringLiteral("✗")), qPrintable(editor->status()));
        editor->lineEdit()->setText(QStringLiteral(R"(<@nomesh, [{}, {}]>)"));
        QVERIFY(editor->status().contains(QStringLiteral("unknown mesh")));
        editor->lineEdit()->setText(QStringLiteral(R"(<@mesh, [{"model"}, {"model"}]>)"));
        QVERIFY2(editor->status().startsWith(QStringLiteral("✗")), qPrintable(editor->status()));
        editor->lineEdit()->setText(QStringLiteral(R"(<@mesh, [{"model"}, {}]>)"));
        QVERIFY2(editor->status().contains(QStringLiteral("local shape 16x256")), qPrintable(editor->status()));
        QVERIFY(editor->applyButton()->isEnabled());
        // The chips: "data" on d1 appends it; clicking "model" on d1 moves it there.
        QTest::mouseClick(editor->chip(1, QStringLiteral("data")), Qt::LeftButton);
        QCOMPARE(editor->text(), QStringLiteral(R"(<@mesh, [{"model"}, {"data"}]>)"));
        QTest::mouseClick(editor->chip(1, QStringLiteral("model")), Qt::LeftButton);
        QCOMPARE(editor->text(), QStringLiteral(R"(<@mesh, [{}, {"data", "model"}]>)"));
        QTest::mouseClick(editor->chip(0, QStringLiteral("?")), Qt::LeftButton);
        QCOMPARE(editor->text(), QStringLiteral(R"(<@mesh, [{?}, {"data", "model"}]>)"));
    }

    void editUndoRedo()
    {
        open("mlp_dp_tp.mlir");
        const int arg1 = valueOf("%arg1");
        m_context->select(arg1);
        // The oracle: the final shardings of the program before and after the same edit, through
        // a Session of its own.
        Session oracle;
        QVERIFY(oracle.open(sample("mlp_dp_tp.mlir").toStdString()));
        QVERIFY(oracle.propagate(m_context->propagationRequest()).ok);
        std::vector<std::optional<TensorSharding>> before;
        for (size_t v = 0; v < oracle.ids()->values().size(); ++v)
            before.push_back(oracle.shardingAt(static_cast<int>(v)) ? std::optional(*oracle.shardingAt(int(v)))
                                                                    : std::nullopt);

        ShardingEditor* editor = m_panel->editor();
        editor->lineEdit()->setText(QStringLiteral(R"(<@mesh, [{"model"}, {}]>)"));
        QTest::mouseClick(editor->applyButton(), Qt::LeftButton);
        m_context->waitForIdle();
        QCOMPARE(m_context->undoStack()->count(), 1);
        QCOMPARE(shardingText(m_context->session()->sourceSharding(arg1)), std::string(R"(<@mesh, [{"model"}, {}]>)"));

        TensorSharding edited = *m_context->session()->sourceSharding(arg1);
        QVERIFY(oracle.setSharding(arg1, edited));
        QVERIFY(oracle.repropagate().ok);
        std::vector<int> expected;
        for (size_t v = 0; v < oracle.ids()->values().size(); ++v) {
            const ir::ProgramValue& pv = oracle.ids()->values()[v];
            const TensorSharding* now = oracle.shardingAt(static_cast<int>(v));
            const std::optional<TensorSharding> after = now ? std::optional(*now) : std::nullopt;
            if (pv.derivedFrom < 0 && (v >= before.size() || before[v] != after))
                expected.push_back(static_cast<int>(v));
        }
        ChangedValuesModel* changed = m_panel->changedValues();
        QAbstractItemModelTester tester(changed, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(changed->values(), expected);
        // By hand: %arg1 itself changed from [{}, {"model"}] to [{"model"}, {}].
        QVERIFY(std::find(expected.begin(), expected.end(), arg1) != expected.end());
        const int row = static_cast<int>(std::find(expected.begin(), expected.end(), arg1) - expected.begin());
        QCOMPARE(changed->index(row, ChangedValuesModel::BeforeColumn).data().toString(),
                 QStringLiteral(R"(<@mesh, [{}, {"model"}]>)"));
        QCOMPARE(changed->index(row, ChangedValuesModel::AfterColumn).data().toString(),
                 QStringLiteral(R"(<@mesh, [{"model"}, {}]>)"));
        // A click selects.
        QTableView* view = m_panel->changedView();
        QVERIFY(view->isVisible());
        const int other = expected.front() == arg1 && expected.size() > 1 ? 1 : 0;
        view->scrollTo(changed->index(other, 0));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(changed->index(other, 0)).center());
        QCOMPARE(m_context->selectedValue(), expected[static_cast<size_t>(other)]);

        // Undo: the program's annotation is back and the same values change back.
        m_context->select(arg1);
        m_context->undoStack()->undo();
        m_context->waitForIdle();
        QCOMPARE(shardingText(m_context->session()->sourceSharding(arg1)), std::string(R"(<@mesh, [{}, {"model"}]>)"));
        QCOMPARE(changed->values(), expected);
        QCOMPARE(changed->index(row, ChangedValuesModel::AfterColumn).data().toString(),
                 QStringLiteral(R"(<@mesh, [{}, {"model"}]>)"));
        QCOMPARE(m_panel->shardingBefore()->text(), QStringLiteral(R"(<@mesh, [{}, {"model"}]>)"));
        // Redo.
        m_context->undoStack()->redo();
        m_context->waitForIdle();
        QCOMPARE(shardingText(m_context->session()->sourceSharding(arg1)), std::string(R"(<@mesh, [{"model"}, {}]>)"));
        QCOMPARE(changed->values(), expected);
        QCOMPARE(m_panel->partitionSpec()->text(), QStringLiteral("P('model', None)"));
    }

    void refusedEditLeavesNothing()
    {
        open("mlp_dp_tp.mlir");
        m_context->select(valueOf("%arg1"));
        // Verifies on its own but not in the program? An open dimension on a function argument is
        // fine; a sharding on another mesh's axis is not: the editor refuses it before Apply.
        ShardingEditor* editor = m_panel->editor();
        editor->lineEdit()->setText(QStringLiteral(R"(<@mesh, [{"nope"}, {}]>)"));
        QVERIFY(!editor->applyButton()->isEnabled());
        QTest::keyClick(editor->lineEdit(), Qt::Key_Return);
        m_context->waitForIdle();
        QCOMPARE(m_context->undoStack()->count(), 0);
    }
};

QTEST_MAIN(TestInspectorPanel)
#include "tst_inspectorpanel.moc"
