// The propagation pipeline's stages report what they write, insert and erase: a trace recorded
// from those reports equals one that compares the whole module after every stage, and the
// verification of the notifications finds nothing they missed.
#include <QtTest>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/ir/ShardingAccess.h"
#include "core/passes/PropagationPipeline.h"
#include "core/trace/Trace.h"
#include "core/trace/TraceRecorder.h"
#include "tests/trace/TraceTestSupport.h"

using namespace shardx;

namespace {

/// A call graph (a private function called twice: flattened, imported as named computations and
/// exported again), sharding groups, a constraint, a sharded constant split per use and a manual
/// computation: every import and export stage has something to do.
const char* kCallGraph = R"(sdy.mesh @mesh = <["a"=2, "b"=2, "c"=2]>
func.func private @layer(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}, {?}]>}) -> tensor<8x8xf32> {
  %cst = stablehlo.constant dense<1.0> : tensor<8x8xf32>
  %0 = stablehlo.add %arg0, %cst : tensor<8x8xf32>
  %1 = sdy.sharding_constraint %0 <@mesh, [{"a"}, {"b"}]> : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}
func.func @main(%arg0: tensor<8x8xf32>, %arg1: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %cst = stablehlo.constant {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a"}, {}]>]>} dense<2.0> : tensor<8x8xf32>
  %0 = stablehlo.multiply %arg0, %cst : tensor<8x8xf32>
  %1 = stablehlo.add %arg1, %cst : tensor<8x8xf32>
  sdy.sharding_group %0 group_id = 0 : tensor<8x8xf32>
  sdy.sharding_group %1 group_id = 0 : tensor<8x8xf32>
  %2 = func.call @layer(%0) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %3 = func.call @layer(%2) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %4 = sdy.manual_computation(%3) in_shardings=[<@mesh, [{"b", ?}, {?}], replicated={"c"}>] out_shardings=[<@mesh, [{"b", ?}, {?}], replicated={"c"}>] manual_axes={"b", "c"} (%arg2: tensor<4x8xf32>) {
    %5 = stablehlo.add %arg2, %arg2 : tensor<4x8xf32>
    sdy.return %5 : tensor<4x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %6 = stablehlo.dot_general %4, %1, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %6, %3 : tensor<8x8xf32>, tensor<8x8xf32>
}
)";

/// A while loop: data-flow edges added and sunk.
const char* kLoop = R"(sdy.mesh @mesh = <["a"=2, "b"=2]>
func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>}, %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>}) -> tensor<8x8xf32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%iterArg = %c, %iterArg_1 = %arg0) : tensor<i32>, tensor<8x8xf32>
   cond {
    %c_2 = stablehlo.constant dense<4> : tensor<i32>
    %2 = stablehlo.compare LT, %iterArg, %c_2 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %2 : tensor<i1>
  } do {
    %c_2 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.add %iterArg, %c_2 : tensor<i32>
    %3 = stablehlo.tanh %iterArg_1 : tensor<8x8xf32>
    stablehlo.return %2, %3 : tensor<i32>, tensor<8x8xf32>
  }
  %1 = stablehlo.dot_general %0#1, %arg1, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}
)";

/// A concatenation along a sharded dimension: reshards inserted before and after it at export.
const char* kConcat = R"(sdy.mesh @mesh = <["p"=2, "q"=2]>
func.func @main(%arg0: tensor<4x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"p"}, {"q"}]>}, %arg1: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"q"}]>}) -> (tensor<4x24xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"p"}, {"q"}]>}) {
  %0 = stablehlo.concatenate %arg0, %arg1, dim = 1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"p"}, {"q"}]>]>} : (tensor<4x16xf32>, tensor<4x8xf32>) -> tensor<4x24xf32>
  return %0 : tensor<4x24xf32>
}
)";

/// Every sample of the repository and the modules above, by name.
std::vector<std::pair<std::string, std::string>> pipelineInputs()
{
    std::vector<std::pair<std::string, std::string>> out = shardx::testing::sampleTexts();
    out.emplace_back("kCallGraph", kCallGraph);
    out.emplace_back("kLoop", kLoop);
    out.emplace_back("kConcat", kConcat);
    return out;
}

/// What a pipeline run recorded, and the module it left.
struct Recorded {
    bool ok = false;
    TraceData data;
    std::string printed;
    size_t missed = 0;
    size_t fullScans = 0;
    size_t namingWalks = 0;
};

/// Parses `text` and runs the pipeline on it with a recorder (`wholeStages`: comparing the whole
/// module after every stage; `verify`: checking the notifications). `observerOf` may put an
/// observer between the pipeline and the recorder.
template <typename Wrap>
Recorded recordPipeline(const std::string& name, const std::string& text, bool dedup, bool wholeStages, bool verify,
                        Wrap&& observerOf)
{
    Recorded out;
    DiagnosticList diags;
    auto module = io::parseMlir(text, name, diags);
    if (!module)
        return out;
    TraceRecorder recorder(*module);
    recorder.setVerifyNotifications(verify);
    recorder.setCompareWholeStages(wholeStages);
    PropagationPipelineOptions options;
    options.dedupFunctionsFully = dedup;
    auto observer = observerOf(recorder, *module);
    options.observer = observer.get();
    out.ok = runPropagationPipeline(*module, options, diags);
    out.missed = recorder.missedChanges();
    out.fullScans = recorder.fullScans();
    out.namingWalks = recorder.namingWalks();
    out.data = recorder.takeTrace().data();
    out.printed = io::printModule(*module);
    return out;
}

/// Passes every event on to the recorder.
class PassOn : public ObserverFanOut {
public:
    explicit PassOn(PropagationObserver* target) : ObserverFanOut({target}) {}
};

/// Passes every event on, and at the end of stage `stage` (before the recorder hears of it)
/// writes a function argument's sharding without notifying anyone: a stage that forgot one.
class ForgetfulStage : public ObserverFanOut {
public:
    ForgetfulStage(PropagationObserver* target, ir::Module& module, std::string stage, bool& written)
        : ObserverFanOut({target}), m_module(module), m_stage(std::move(stage)), m_written(written)
    {}
    void stageBegin(const std::string& name, StageKind kind) override
    {
        m_current = name;
        ObserverFanOut::stageBegin(name, kind);
    }
    void stageEnd() override
    {
        if (m_current == m_stage && !m_module.funcs().empty()) {
            ir::Op& func = *m_module.funcs().front();
            ir::setFuncArgSharding(func, 0, TensorSharding::closedReplicated(MeshRef{"mesh", std::nullopt}, 2));
            m_written = true;
        }
        ObserverFanOut::stageEnd();
    }

private:
    ir::Module& m_module;
    std::string m_stage;
    std::string m_current;
    bool& m_written;
};

} // namespace

class TestPipelineWrites : public QObject {
    Q_OBJECT
private slots:
    void reportsRecordWhatWholeComparisonsRecord()
    {
        // Every stage reports what it changed: the trace recorded from the reports is the one
        // recorded by comparing the whole module after each stage (the same changes, the same
        // values named in the same order), the module is the same, nothing was missed, and no
        // stage needed a whole comparison (no canonicalizer pattern fires on these inputs).
        const auto passOn = [](TraceRecorder& r, ir::Module&) { return std::make_unique<PassOn>(&r); };
        const std::vector<std::pair<std::string, std::string>> inputs = pipelineInputs();
        QVERIFY(inputs.size() >= 9);
        for (const auto& [name, text] : inputs)
            for (bool dedup : {false, true}) {
                const std::string what = name + (dedup ? " (dedup functions fully)" : "");
                const Recorded reported = recordPipeline(name, text, dedup, false, true, passOn);
                const Recorded whole = recordPipeline(name, text, dedup, true, false, passOn);
                QVERIFY2(reported.ok && whole.ok, what.c_str());
                QVERIFY2(reported.missed == 0, what.c_str());
                QVERIFY2(reported.fullScans == 0, what.c_str());
                // Only inserting explicit reshards makes values that no pass named: one walk names them.
                QVERIFY2(reported.namingWalks <= 1, what.c_str());
                QVERIFY2(whole.fullScans > 20, what.c_str());
                QVERIFY2(reported.data == whole.data, what.c_str());
                QCOMPARE(reported.printed, whole.printed);
                QVERIFY2(!reported.data.steps.empty(), what.c_str());
            }
    }

    void unreportedWriteIsFound()
    {
        // A write that no notification reports, at the end of a stage that reports its writes,
        // is what the verification counts (and so what the test above would catch).
        for (const char* stage : {"split constants and scalar expansions per use", "add data-flow edges",
                                  "insert reshards at function calls", "insert explicit reshards"}) {
            bool written = false;
            const Recorded r =
                recordPipeline("kCallGraph", kCallGraph, false, false, true, [&](TraceRecorder& rec, ir::Module& m) {
                    return std::make_unique<ForgetfulStage>(&rec, m, stage, written);
                });
            QVERIFY2(written && r.ok, stage);
            QVERIFY2(r.missed > 0, stage);
        }
    }
};

QTEST_APPLESS_MAIN(TestPipelineWrites)
#include "tst_pipelinewrites.moc"
