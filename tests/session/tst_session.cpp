// Session: opening (every problem reported), propagation requests (strategies, pass lists,
// recording, progress, cancellation), stepping, queries, edits and atomic saving.
#include <QtTest>

#include <QTemporaryDir>

#include <filesystem>
#include <fstream>

#include "core/propagation/ValueSharding.h"
#include "core/session/Session.h"
#include "tests/TestSupport.h"

using namespace shardx;
using testing::has;

namespace {

const std::string kMlp = SHARDX_SOURCE_DIR "/samples/mlp_dp_tp.mlir";

// dot(lhs [{"a"}, {}], rhs [{}, {"b"}]) then negate: the result gets ["a", "b"].
const char* kDot = R"(sdy.mesh @mesh = <["a"=2, "b"=2]>
func.func @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>},
                %arg1: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"b"}]>}) -> tensor<8x32xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32> loc("mm")
  %1 = stablehlo.negate %0 : tensor<8x32xf32> loc("neg")
  return %1 : tensor<8x32xf32>
}
)";

// 2^40 elements (4 TiB of f32) in every value: an argument, a splat constant, an add, a matmul, a reshape to one
// dimension. Nothing may allocate or loop per element.
const char* kHuge = R"(sdy.mesh @mesh = <["a"=2, "b"=2]>
func.func @main(%arg0: tensor<1048576x1048576xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>}) -> tensor<1099511627776xf32> {
  %cst = stablehlo.constant dense<1.000000e+00> : tensor<1048576x1048576xf32>
  %0 = stablehlo.add %arg0, %cst : tensor<1048576x1048576xf32>
  %1 = stablehlo.dot_general %0, %cst, contracting_dims = [1] x [0] : (tensor<1048576x1048576xf32>, tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32>
  %2 = stablehlo.reshape %1 : (tensor<1048576x1048576xf32>) -> tensor<1099511627776xf32>
  return %2 : tensor<1099511627776xf32>
}
)";

std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

PropagationRequest strategy(const std::string& name, bool record = true)
{
    PropagationRequest r;
    r.strategy = name;
    r.record = record;
    return r;
}

} // namespace

class TestSession : public QObject {
    Q_OBJECT

private slots:
    void opensFilesAndReportsEveryProblem()
    {
        Session s;
        QVERIFY2(s.open(kMlp), s.diagnostics().formatAll().c_str());
        QVERIFY(s.isOpen() && s.sourceModule() && s.module() == s.sourceModule());
        QVERIFY(s.diagnostics().empty());
        QVERIFY(!s.trace());
        QVERIFY(s.ids());

        // A syntax error: the file's position, nothing open.
        Session bad;
        QVERIFY(!bad.openText("func.func @f() {\n  %0 = stablehlo.add\n}\n", "bad.mlir"));
        QVERIFY(bad.diagnostics().hasErrors());
        QVERIFY2(has(bad.diagnostics().formatAll(), "bad.mlir:"), bad.diagnostics().formatAll().c_str());
        QVERIFY(!bad.isOpen());

        // Verification errors: every one reported; the module stays open for viewing.
        Session invalid;
        QVERIFY(!invalid.openText(R"(sdy.mesh @m = <["x"=2]>
func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"y"}]>}) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
}
func.func @g(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"z"}]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
)",
                                  "invalid.mlir"));
        const std::string all = invalid.diagnostics().formatAll();
        QVERIFY2(has(all, "invalid.mlir:2:") && has(all, "\"y\"") && has(all, "invalid.mlir:6:") && has(all, "\"z\""),
                 all.c_str());
        QVERIFY(invalid.sourceModule());

        // A missing file, and a JSON document.
        Session missing;
        QVERIFY(!missing.open("/nonexistent/model.mlir"));
        QVERIFY(has(missing.diagnostics().formatAll(), "/nonexistent/model.mlir"));
        Session json;
        QVERIFY2(json.openText(s.text(Session::Format::Json), "m.json"), json.diagnostics().formatAll().c_str());
        QCOMPARE(json.text(), s.text());
    }

    void propagatesEveryStrategyAndPassLists()
    {
        for (const PropagationStrategy& st : propagationStrategies()) {
            Session s;
            QVERIFY(s.openText(kDot, "dot.mlir"));
            PropagationResult r = s.propagate(strategy(st.name));
            QVERIFY2(r.ok, r.diagnostics.formatAll().c_str());
            QVERIFY(s.trace() && s.numSteps() > 0 && s.numSteps() == r.steps);
            QCOMPARE(s.position(), s.numSteps());
            QCOMPARE(r.passes, std::vector<std::string>{st.pass});
            QVERIFY(s.module() != s.sourceModule());
        }
        Session s;
        QVERIFY(s.openText(kDot, "dot.mlir"));
        PropagationRequest list;
        list.passes = {"sdy-add-data-flow-edges", "-sdy-aggressive-propagate=propagation-strategy=basic",
                       "--sdy-sink-data-flow-edges"};
        PropagationResult r = s.propagate(list);
        QVERIFY2(r.ok, r.diagnostics.formatAll().c_str());
        QCOMPARE(r.passes.size(), size_t(3));
        // Without recording: the module is propagated, there is no trace.
        PropagationResult plain = s.propagate(strategy("aggressive", false));
        QVERIFY(plain.ok && !s.trace());
        QVERIFY(has(s.text(), "<@mesh, [{\"a\", ?}, {\"b\", ?}]>"));
        // Bad requests change nothing.
        QVERIFY(!s.propagate(strategy("magic")).ok);
        QVERIFY(has(s.propagate(strategy("magic")).diagnostics.formatAll(), "unknown strategy 'magic'"));
        PropagationRequest badPass;
        badPass.passes = {"-no-such-pass"};
        PropagationResult bp = s.propagate(badPass);
        QVERIFY(!bp.ok && has(bp.diagnostics.formatAll(), "unknown pass or option '-no-such-pass'"));
        PropagationRequest badOption;
        badOption.passes = {"-sdy-aggressive-propagate=speed=fast"};
        QVERIFY(has(s.propagate(badOption).diagnostics.formatAll(), "unknown option 'speed'"));
        QVERIFY(has(s.text(), "<@mesh, [{\"a\", ?}, {\"b\", ?}]>"));
    }

    void reportsProgressAndCancels()
    {
        Session s;
        QVERIFY(s.open(kMlp));
        std::vector<Progress> seen;
        PropagationResult r = s.propagate(strategy("pipeline"), [&](const Progress& p) { seen.push_back(p); });
        QVERIFY(r.ok);
        QVERIFY(!seen.empty());
        QCOMPARE(seen.front().pass, std::string("sdy-propagation-pipeline"));
        QCOMPARE(seen.front().numPasses, size_t(1));
        QVERIFY(seen.front().opsInModule > 10);
        bool sawStage = false;
        for (const Progress& p : seen)
            sawStage = sawStage || p.stage == "lift inlined meshes";
        QVERIFY(sawStage);
        const std::string before = s.text();
        const size_t steps = s.numSteps();

        // Cancelled from the progress callback: the driver stops, the session is unchanged.
        PropagationResult c = s.propagate(strategy("aggressive"), [&](const Progress&) { s.requestCancel(); });
        QVERIFY(c.cancelled && !c.ok);
        QVERIFY(has(c.diagnostics.formatAll(), "propagation cancelled"));
        QCOMPARE(s.text(), before);
        QCOMPARE(s.numSteps(), steps);
        // The next request runs again.
        QVERIFY(s.propagate(strategy("aggressive")).ok);
    }

    void copiesTheSourceOnTheWorker()
    {
        // CopySource::Later: the run holds no copy until copyPropagationSource() makes it, and then
        // propagates as propagate() does.
        Session s;
        QVERIFY(s.openText(kDot, "dot.mlir"));
        const std::string source = s.text(Session::Format::Mlir, true);
        PropagationRunPtr run = s.startPropagation(strategy("aggressive"), Session::CopySource::Later);
        copyPropagationSource(*run);
        runPropagation(*run);
        PropagationResult r = s.finishPropagation(std::move(run));
        QVERIFY(r.ok);
        QVERIFY(s.numSteps() > 0);
        QCOMPARE(s.shardingAt(*s.findValue("neg"))->toString(), std::string("<@mesh, [{\"a\", ?}, {\"b\", ?}]>"));
        QCOMPARE(s.text(Session::Format::Mlir, true), source); // the source module is unchanged
        const std::string result = s.text();
        const size_t steps = s.numSteps();

        // Cancelled before its copy: nothing is copied or run, and the session keeps its result.
        PropagationRunPtr cancelled = s.startPropagation(strategy("basic"), Session::CopySource::Later);
        cancelPropagation(*cancelled);
        QVERIFY(propagationCancelled(*cancelled));
        copyPropagationSource(*cancelled);
        runPropagation(*cancelled);
        PropagationResult c = s.finishPropagation(std::move(cancelled));
        QVERIFY(c.cancelled && !c.ok);
        QCOMPARE(c.steps, size_t(0));
        QCOMPARE(s.text(), result);
        QCOMPARE(s.numSteps(), steps);

        // Run without its copy (a caller's bug): an error, not a read of the source module.
        PropagationRunPtr uncopied = s.startPropagation(strategy("basic"), Session::CopySource::Later);
        runPropagation(*uncopied);
        PropagationResult u = s.finishPropagation(std::move(uncopied));
        QVERIFY(!u.ok && !u.cancelled);
        QVERIFY(has(u.diagnostics.formatAll(), "before its copy of the module was made"));

        // finishPropagation() of a run never run copies and runs it on the session's thread.
        PropagationResult f = s.finishPropagation(s.startPropagation(strategy("basic"), Session::CopySource::Later));
        QVERIFY(f.ok);
        QVERIFY(s.numSteps() > 0);
    }

    void stepsForwardsAndBackwards()
    {
        Session s;
        QVERIFY(s.openText(kDot, "dot.mlir"));
        QVERIFY(s.propagate(strategy("aggressive")).ok);
        const int v0 = *s.findValue("%0");
        const int neg = *s.findValue("neg");
        s.seek(0);
        QCOMPARE(s.position(), size_t(0));
        QVERIFY(!s.shardingAt(v0));
        s.seek(s.numSteps() + 100); // clamped
        QCOMPARE(s.position(), s.numSteps());
        QVERIFY(s.shardingAt(neg));
        QCOMPARE(s.shardingAt(neg)->toString(), std::string("<@mesh, [{\"a\", ?}, {\"b\", ?}]>"));
        QCOMPARE(s.stateAt().size(), s.trace()->values().size());
        // The final state is the result module's.
        std::optional<TensorSharding> storage;
        const_cast<ir::Op&>(s.module()->op()).walk([&](ir::Op* op) {
            for (const auto& r : op->results()) {
                const TensorSharding* inModule = getShardingRef(r.get(), storage);
                const TensorSharding* inTrace = s.shardingAt(r->programId);
                QCOMPARE(bool(inModule), bool(inTrace));
                if (inModule)
                    QCOMPARE(inModule->toString(), inTrace->toString());
            }
        });
    }

    void answersQueries()
    {
        Session s;
        QVERIFY(s.open(kMlp));
        QVERIFY(s.propagate(strategy("pipeline")).ok);
        // Values by the names the file gives them.
        QCOMPARE(s.ids()->values()[static_cast<size_t>(*s.findValue("%5"))].id, std::string("@main:%5"));
        QCOMPARE(s.ids()->values()[static_cast<size_t>(*s.findValue("%cst"))].id, std::string("@main:%cst"));
        QCOMPARE(s.ids()->values()[static_cast<size_t>(*s.findValue("@main:arg1"))].id, std::string("@main:%arg1"));
        QVERIFY(has(s.findValue("layer_1/add").error().message, "matches 2 values"));
        QVERIFY(s.findOp("%5"));

        // Explain and origins: %4 (the ReLU output) gets both axes from the constraint %5.
        const int relu = *s.findValue("%4");
        Expected<ValueExplanation> e = s.explain(relu);
        QVERIFY(e);
        QCOMPARE(e->displayName, std::string("%4"));
        QCOMPARE(e->opName, std::string("stablehlo.maximum"));
        QCOMPARE(e->scope, std::string("jit(mlp)/jit(main)/layer_0/relu/max"));
        Expected<std::vector<AxisOrigin>> origins = s.origins(relu);
        QVERIFY(origins);
        QCOMPARE(origins->size(), size_t(2));
        const int constraint = *s.findValue("%5");
        for (const AxisOrigin& o : *origins) {
            QCOMPARE(o.from, constraint);
            QVERIFY(!o.steps.empty());
        }
        // %arg0's own annotation holds "data".
        Expected<std::vector<AxisOrigin>> own = s.origins(*s.findValue("%arg0"));
        QCOMPARE(own->size(), size_t(1));
        QCOMPARE(own->front().from, *s.findValue("%arg0"));
        QVERIFY(own->front().steps.empty());
    }

    void factorTablesAtAnyStep()
    {
        // DOMAIN/SDY worked example: dot (i, j, k=contracting): lhs i="a", rhs j="b".
        Session s;
        QVERIFY(s.openText(kDot, "dot.mlir"));
        QVERIFY(s.propagate(strategy("basic")).ok);
        const int dot = *s.findOp("%0");
        Expected<OpFactorTable> first = s.factorTable(dot, 0);
        QVERIFY2(first, first ? "" : first.error().message.c_str());
        QCOMPARE(first->text(), std::string("operand 0: i=\"a\" | j=N | k=-\n"
                                            "operand 1: i=N | j=\"b\" | k=-\n"
                                            "result 0: i=- | j=- | k=N\n"));
        Expected<OpFactorTable> last = s.factorTable(dot, s.numSteps());
        QCOMPARE(last->text(), std::string("operand 0: i=\"a\" | j=N | k=-\n"
                                           "operand 1: i=N | j=\"b\" | k=-\n"
                                           "result 0: i=\"a\" | j=\"b\" | k=N\n"));
        QCOMPARE(last->values.size(), size_t(3));
        QCOMPARE(last->values[2], *s.findValue("%0"));
        QCOMPARE(last->meshName, std::string("mesh"));
        // An op without a sharding rule.
        QVERIFY(!s.factorTable(*s.findOp("@main:func.return#0"), 0));
    }

    void editsAndRepropagates()
    {
        Session s;
        QVERIFY(s.openText(kDot, "dot.mlir"));
        QVERIFY(s.propagate(strategy("aggressive")).ok);
        const int arg1 = *s.findValue("%arg1");
        // Move rhs's "b" off: the result loses it after propagating again.
        TensorSharding none;
        none.mesh.symbol = "mesh";
        none.dims = {DimSharding{{}, true, std::nullopt}, DimSharding{{}, true, std::nullopt}};
        QVERIFY(s.setSharding(arg1, none));
        QVERIFY(!s.trace());
        QVERIFY(has(s.text(Session::Format::Mlir, true), "#sdy.sharding<@mesh, [{}, {}]>"));
        PropagationResult r = s.repropagate();
        QVERIFY(r.ok && s.trace());
        QCOMPARE(s.shardingAt(*s.findValue("neg"))->toString(), std::string("<@mesh, [{\"a\", ?}, {?}]>"));
        // An edit that does not verify changes nothing.
        TensorSharding bad = none;
        bad.dims[0].axes = {AxisRef("nope")};
        Status st = s.setSharding(arg1, bad);
        QVERIFY(!st);
        QVERIFY2(has(st.error().message, "nope"), st.error().message.c_str());
        QVERIFY(s.trace());
        // Removing an argument's sharding.
        QVERIFY(s.setSharding(*s.findValue("%arg0"), std::nullopt));
        QVERIFY(s.text(Session::Format::Mlir, true).find("[{\"a\"}, {}]") == std::string::npos);
    }

    void savesAtomically()
    {
        QTemporaryDir dir;
        Session s;
        QVERIFY(s.open(kMlp));
        QVERIFY(s.propagate(strategy("aggressive")).ok);
        const std::string mlir = dir.filePath("out.mlir").toStdString();
        const std::string json = dir.filePath("out.json").toStdString();
        const std::string trace = dir.filePath("trace.json").toStdString();
        QVERIFY(s.save(mlir));
        QVERIFY(s.save(json));
        QVERIFY(s.saveTrace(trace));
        QCOMPARE(readAll(mlir), s.text());
        QCOMPARE(readAll(json), s.text(Session::Format::Json));
        // Overwriting keeps one complete file and leaves no temporary behind.
        QVERIFY(s.save(mlir, Session::Format::Auto, true));
        QCOMPARE(readAll(mlir), s.text(Session::Format::Mlir, true));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 3);
        // A folder that does not exist: an error, nothing written.
        QVERIFY(!s.save(dir.filePath("no/such/dir/out.mlir").toStdString()));
        // The trace reads back whole.
        Session t;
        QVERIFY2(t.openTrace(trace), t.diagnostics().formatAll().c_str());
        QVERIFY(*t.trace() == *s.trace());
        QCOMPARE(t.position(), t.numSteps());
        QCOMPARE(t.findValue("%5").value(), s.findValue("%5").value());
        QVERIFY(!t.findOp("%5"));
    }

    void hugeTensors()
    {
        Session s;
        QVERIFY2(s.openText(kHuge, "huge.mlir"), s.diagnostics().formatAll().c_str());
        const PropagationResult r = s.propagate(strategy("pipeline"));
        QVERIFY2(r.ok, r.diagnostics.formatAll().c_str());
        // "a" reaches the add and the matmul's rows, and the reshape's one dimension as its major part.
        const TensorSharding* add = s.shardingAt(*s.findValue("%0"));
        QVERIFY(add);
        QCOMPARE(QString::fromStdString(add->toString()), QString("<@mesh, [{\"a\"}, {}]>"));
        Expected<ValueExplanation> e = s.explain(*s.findValue("%2"));
        QVERIFY(e);
        QVERIFY2(has(explanationText(*e), "\"a\""), explanationText(*e).c_str());
        const std::string mlir = s.text(Session::Format::Mlir);
        QVERIFY2(has(mlir, "dense<1.000000e+00> : tensor<1048576x1048576xf32>"), mlir.c_str());
        QVERIFY(mlir.size() < 4096 && s.text(Session::Format::Json).size() < 65536);
        Session again;
        QVERIFY2(again.openText(mlir, "again.mlir"), again.diagnostics().formatAll().c_str());
    }
};

QTEST_APPLESS_MAIN(TestSession)
#include "tst_session.moc"
