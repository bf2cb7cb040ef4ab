// End-to-end propagation passes on MLIR text, with expectations derived by hand from SDY.md 4.
#include <QtTest>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/passes/PassRegistry.h"
#include "core/propagation/PropagationPasses.h"
#include "tests/TestSupport.h"

using namespace shardx;

namespace {

const char* kMesh = "sdy.mesh @mesh = <[\"a\"=2, \"b\"=2, \"c\"=2]>\n";

/// Parses `body`, runs the passes (`name` or `name=opts`), returns the printed module.
std::string runPasses(const std::string& body, const std::vector<std::pair<std::string, PassOptions>>& passes,
                      DiagnosticList* diagsOut = nullptr)
{
    DiagnosticList diags;
    auto module = io::parseMlir(std::string(kMesh) + body, "test.mlir", diags);
    if (!module)
        return "<parse error> " + diags.formatAll();
    for (const auto& [name, opts] : passes) {
        const PassInfo* info = findPass(name);
        if (!info)
            return "<no pass " + name + ">";
        if (!info->run(*module, opts, diags))
            return "<pass failed> " + diags.formatAll();
    }
    if (diagsOut)
        *diagsOut = diags;
    return io::printModule(*module);
}

using testing::has;

/// Records step kinds and changed values.
class Recorder : public PropagationObserver {
public:
    std::vector<std::string> events;
    int steps = 0;
    int changes = 0;
    void passBegin(const std::string& name, const std::string& strategy) override
    {
        events.push_back("begin " + name + " " + strategy);
    }
    void passEnd(const std::string& name) override { events.push_back("end " + name); }
    void opPriorityRoundBegin(int level) override { events.push_back("round " + std::to_string(level)); }
    void userPriorityBegin(int64_t p) override { events.push_back("priority " + std::to_string(p)); }
    void step(const PropagationStep& s) override
    {
        ++steps;
        changes += static_cast<int>(s.changes.size());
        if (!s.changes.empty())
            events.push_back(std::string(s.kind == StepKind::FuncResult ? "func-result" : s.op->name()) + " " +
                             std::to_string(s.changes.size()));
    }
};

} // namespace

class TestPropagationPasses : public QObject {
    Q_OBJECT

private slots:
    void basicForwardAndFuncResults()
    {
        // add gets %arg0's axes (open); the dot's result gets "a" through factor i; the main
        // function's result attribute gets the returned value's sharding at the end.
        std::string out = runPasses(
            "func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}, {\"b\"}]>}, "
            "%arg1: tensor<8x16xf32>) -> tensor<8x16xf32> {\n"
            "  %0 = stablehlo.add %arg0, %arg0 : tensor<8x8xf32>\n"
            "  %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [1] x [0] : (tensor<8x8xf32>, "
            "tensor<8x16xf32>) -> tensor<8x16xf32>\n"
            "  return %1 : tensor<8x16xf32>\n}\n",
            {{"sdy-basic-propagate", {}}});
        QVERIFY(has(out, "stablehlo.add %arg0, %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"a\", ?}, "
                         "{\"b\", ?}]>]>}"));
        QVERIFY(has(out, "%arg1: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"b\", ?}, {?}]>}"));
        QVERIFY(has(out, "-> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\", ?}, {?}]>})"));
        QVERIFY(out.find("sdy.sharding_rule") == std::string::npos);
    }

    void keepShardingRules()
    {
        std::string out = runPasses("func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                                    "  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n"
                                    "  return %0 : tensor<8xf32>\n}\n",
                                    {{"sdy-basic-propagate", {{"keep-sharding-rules", "true"}}}});
        QVERIFY(has(out, "sdy.sharding_rule = #sdy.op_sharding_rule<([i])->([i]) {i=8}>"));
    }

    void deadPureOpsAreErased()
    {
        std::string out = runPasses("func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                                    "  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n"
                                    "  return %arg0 : tensor<8xf32>\n}\n",
                                    {{"sdy-basic-propagate", {}}});
        QVERIFY(out.find("stablehlo.abs") == std::string::npos);
    }

    void barrierRestrictsDirection()
    {
        // FORWARD barrier: the operand's sharding crosses, the result's does not go back.
        std::string out =
            runPasses("func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\", ?}]>}, "
                      "%arg1: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {\n"
                      "  %0 = sdy.propagation_barrier %arg0 allowed_direction=FORWARD : tensor<8xf32>\n"
                      "  %1 = sdy.propagation_barrier %arg1 allowed_direction=FORWARD : tensor<8xf32>\n"
                      "  %2 = stablehlo.negate %1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"b\"}]>]>} : "
                      "tensor<8xf32>\n"
                      "  return %0, %2 : tensor<8xf32>, tensor<8xf32>\n}\n",
                      {{"sdy-basic-propagate", {}}});
        QVERIFY(has(out, "sdy.propagation_barrier %arg0 allowed_direction=FORWARD {sdy.sharding = "
                         "#sdy.sharding_per_value<[<@mesh, [{\"a\", ?}]>]>}"));
        QVERIFY(has(out, "%arg1: tensor<8xf32>)"));
    }

    void aggressiveResolvesDotConflict()
    {
        const std::string body =
            "func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}, {}]>}, "
            "%arg1: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"a\"}]>}) -> tensor<8x16xf32> {\n"
            "  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x8xf32>, "
            "tensor<8x16xf32>) -> tensor<8x16xf32>\n"
            "  return %0 : tensor<8x16xf32>\n}\n";
        std::string basic = runPasses(body, {{"sdy-basic-propagate", {}}});
        QVERIFY(has(basic, "stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : "));
        // rhs (8x16) is the larger source: factor j wins.
        std::string aggressive = runPasses(body, {{"sdy-aggressive-propagate", {}}});
        QVERIFY(has(aggressive, "sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{?}, {\"a\", ?}]>]>"));
        std::string asBasic = runPasses(body, {{"sdy-aggressive-propagate", {{"propagation-strategy", "basic"}}}});
        QCOMPARE(asBasic, basic);
    }

    void userPriorities()
    {
        // SDY.md 4.7: round 0 sees %arg0 as [{"a"}, {}] replicated={"b"}; the add result gets
        // [{"a", ?}, {"c", ?}]; round 1 cannot put "b" on dimension 1 any more.
        Recorder rec;
        PropagationPassOptions options;
        options.base.observer = &rec;
        DiagnosticList diags;
        auto module = io::parseMlir(
            std::string(kMesh) +
                "func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}p0, {\"b\"}p1]>}, "
                "%arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}, {\"c\"}p0]>}) -> tensor<8x8xf32> {\n"
                "  %0 = stablehlo.add %arg0, %arg1 : tensor<8x8xf32>\n"
                "  return %0 : tensor<8x8xf32>\n}\n",
            "test.mlir", diags);
        QVERIFY(module);
        QVERIFY(runUserPriorityPropagation(*module, options, diags));
        std::string out = io::printModule(*module);
        QVERIFY(has(out, "%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}, {\"b\"}]>}"));
        QVERIFY(has(out, "stablehlo.add %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"a\", ?}, "
                         "{\"c\", ?}]>]>}"));
        QVERIFY(out.find("p0") == std::string::npos && out.find("p1") == std::string::npos);
        // Observer: one pass, two user priorities, five op-priority rounds each.
        QCOMPARE(rec.events.front(), std::string("begin sdy-user-priority-propagate user-priority"));
        QCOMPARE(rec.events.back(), std::string("end sdy-user-priority-propagate"));
        QCOMPARE(std::count(rec.events.begin(), rec.events.end(), std::string("round 4")), 2L);
        QVERIFY(std::find(rec.events.begin(), rec.events.end(), std::string("priority 1")) != rec.events.end());
        QVERIFY(std::any_of(rec.events.begin(), rec.events.end(),
                            [](const std::string& e) { return e.rfind("stablehlo.add ", 0) == 0; }));
        QVERIFY(rec.changes > 0 && rec.steps > rec.changes);
    }

    void observerSeesTablesAndChanges()
    {
        class StepLog : public PropagationObserver {
        public:
            std::vector<PropagationStep> steps;
            std::vector<std::string> skipped;
            void step(const PropagationStep& s) override { steps.push_back(s); }
            void opSkipped(ir::Op* op, const std::string& reason) override
            {
                skipped.push_back(op->name() + ": " + reason);
            }
        } log;
        DiagnosticList diags;
        auto module = io::parseMlir(std::string(kMesh) +
                                        "func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, "
                                        "[{\"a\", ?}]>}) -> tensor<8xf32> {\n"
                                        "  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n"
                                        "  return %0 : tensor<8xf32>\n}\n",
                                    "test.mlir", diags);
        QVERIFY(module);
        PropagationPassOptions options;
        options.base.observer = &log;
        QVERIFY(runBasicPropagation(*module, options, diags));
        // The first func-result step has no mesh (no step); then abs (result gets "a") and the
        // final func-result step (attribute gets "a").
        QCOMPARE(log.steps.size(), size_t(2));
        const PropagationStep& abs = log.steps[0];
        QCOMPARE(abs.kind, StepKind::Op);
        QCOMPARE(abs.op->name(), std::string("stablehlo.abs"));
        QCOMPARE(abs.meshName, std::string("mesh"));
        QVERIFY(abs.before.results[0].find(0)->axes.empty());
        QCOMPARE(abs.after.results[0].find(0)->axes, std::vector<AxisRef>{AxisRef("a")});
        QCOMPARE(abs.changes.size(), size_t(1));
        QCOMPARE(abs.changes[0].tensor, 1);
        QVERIFY(!abs.changes[0].before);
        QCOMPARE(abs.changes[0].after.toString(), std::string("<@mesh, [{\"a\", ?}]>"));
        QCOMPARE(abs.decisions.factors.size(), size_t(1));
        const PropagationStep& last = log.steps[1];
        QCOMPARE(last.kind, StepKind::FuncResult);
        QCOMPARE(last.funcResultIndex, 0);
        QCOMPARE(last.changes.size(), size_t(1));
        QCOMPARE(last.changes[0].funcResult, 0);
        QVERIFY(std::find(log.skipped.begin(), log.skipped.end(), "func.return: no sharding rule") !=
                log.skipped.end());
    }

    void shardingGroupsConflictInsertsOpenConstraints()
    {
        DiagnosticList diags;
        std::string out =
            runPasses("func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}, {}]>}) -> "
                      "tensor<8x8xf32> {\n"
                      "  %0 = sdy.sharding_constraint %arg0 <@mesh, [{}, {\"b\"}]> : tensor<8x8xf32>\n"
                      "  sdy.sharding_group %arg0 group_id=0 : tensor<8x8xf32>\n"
                      "  sdy.sharding_group %0 group_id=0 : tensor<8x8xf32>\n"
                      "  return %0 : tensor<8x8xf32>\n}\n",
                      {{"sdy-basic-propagate", {}}}, &diags);
        QVERIFY(has(diags.formatAll(), "warning"));
        // Both open constraints end up [{"a", ?}, {"b", ?}].
        QVERIFY(has(out, "sdy.sharding_constraint %arg0 <@mesh, [{\"a\", ?}, {\"b\", ?}]>"));
        QVERIFY(has(out, "%1 = sdy.sharding_constraint %0 <@mesh, [{}, {\"b\"}]>"));
        QVERIFY(has(out, "sdy.sharding_constraint %1 <@mesh, [{\"a\", ?}, {\"b\", ?}]>"));
    }

    void opPriorityHeuristics()
    {
        DiagnosticList diags;
        auto module = io::parseMlir(std::string(kMesh) +
                                        "func.func @main(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {\n"
                                        "  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n"
                                        "  %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<8xf32>) -> "
                                        "tensor<8xf32>\n"
                                        "  return %0, %0 : tensor<8xf32>, tensor<8xf32>\n}\n",
                                    "test.mlir", diags);
        QVERIFY(module);
        ir::Op* func = module->funcs().front();
        ir::Op* abs = func->region(0).front().ops().front().get();
        ir::Op* bcast = abs->nextInBlock();
        OpShardingRule rule;
        rule.factorSizes = {8};
        using D = PropagationDirection;
        // abs's operand %arg0 has one use: pass-through at level 0.
        QCOMPARE(opPriorityDirection(*abs, rule, 0, 0), D::Both);
        QCOMPARE(opPriorityDirection(*bcast, rule, 0, 0), D::None);
        QCOMPARE(opPriorityDirection(*bcast, rule, 0, 1), D::None);
        QCOMPARE(opPriorityDirection(*bcast, rule, 0, 2), D::Backward);
        QCOMPARE(opPriorityDirection(*bcast, rule, 0, 4), D::Both);
    }
};

QTEST_APPLESS_MAIN(TestPropagationPasses)
#include "tst_propagationpasses.moc"
