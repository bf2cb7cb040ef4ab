// Data-flow edges, manual computations and sdy-apply-sharding-constraints, derived from SDY.md 3.5, 3.6, 4.9.
#include <QtTest>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/passes/PassRegistry.h"
#include "tests/TestSupport.h"

using namespace shardx;

namespace {

std::string runPasses(const std::string& body, const std::vector<std::string>& passes)
{
    DiagnosticList diags;
    auto module = io::parseMlir("sdy.mesh @mesh = <[\"a\"=2, \"b\"=2, \"c\"=2, \"d\"=2]>\n" + body, "test.mlir", diags);
    if (!module)
        return "<parse error> " + diags.formatAll();
    for (const std::string& name : passes) {
        const PassInfo* info = findPass(name);
        if (!info)
            return "<no pass " + name + ">";
        if (!info->run(*module, {}, diags))
            return "<pass failed> " + diags.formatAll();
    }
    return io::printModule(*module);
}

using testing::has;

const char* kWhile =
    "func.func @main(%arg0: tensor<32x96xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\", ?}, {?}]>}) -> "
    "tensor<32x96xf32> {\n"
    "  %c = stablehlo.constant dense<0> : tensor<i32>\n"
    "  %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %c) : tensor<32x96xf32>, tensor<i32>\n"
    "   cond {\n"
    "    %1 = stablehlo.compare LT, %iterArg_0, %iterArg_0 : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
    "    stablehlo.return %1 : tensor<i1>\n"
    "  } do {\n"
    "    %1 = stablehlo.negate %iterArg : tensor<32x96xf32>\n"
    "    stablehlo.return %1, %iterArg_0 : tensor<32x96xf32>, tensor<i32>\n"
    "  }\n"
    "  return %0#0 : tensor<32x96xf32>\n}\n";

} // namespace

class TestDataFlowEdges : public QObject {
    Q_OBJECT

private slots:
    void addEdgesInOwnerOrder()
    {
        std::string out = runPasses(kWhile, {"sdy-add-data-flow-edges"});
        QVERIFY(has(out, "%1 = sdy.data_flow_edge %0#0 : tensor<32x96xf32>\n"
                         "    %2 = sdy.data_flow_edge %0#1 : tensor<i32>\n"
                         "    return %1 : tensor<32x96xf32>"));
    }

    void whilePropagatesThroughEdgeAndSinks()
    {
        // The edge of result 0 has sources %arg0 and the body's negate; its targets include the
        // body argument, so the negate gets "a" too; sinking writes the while's sdy.sharding,
        // with a fully open sharding for the scalar edge that got none.
        std::string out =
            runPasses(kWhile, {"sdy-add-data-flow-edges", "sdy-basic-propagate", "sdy-sink-data-flow-edges"});
        QVERIFY(has(out, "stablehlo.negate %iterArg {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"a\", ?}, "
                         "{?}]>]>}"));
        QVERIFY(has(out, "sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"a\", ?}, {?}]>, <@mesh, []>]>"));
        QVERIFY(out.find("sdy.data_flow_edge") == std::string::npos);
    }

    void withoutEdgesNothingCrossesAWhile()
    {
        std::string out = runPasses(kWhile, {"sdy-basic-propagate"});
        QVERIFY(has(out, "stablehlo.negate %iterArg : tensor<32x96xf32>"));
    }

    void manualComputationWorkedExample()
    {
        // SDY.md 4.9: in [{"a", ?}, {"c", ?}], out [{"a", "b", ?}, {"d", ?}], body returns its argument.
        std::string out = runPasses(
            "func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {\n"
            "  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"a\", ?}, {\"c\", ?}]>] "
            "out_shardings=[<@mesh, [{\"a\", \"b\", ?}, {\"d\", ?}]>] manual_axes={} (%arg1: tensor<8x8xf32>) {\n"
            "    sdy.return %arg1 : tensor<8x8xf32>\n"
            "  } : (tensor<8x8xf32>) -> tensor<8x8xf32>\n"
            "  return %0 : tensor<8x8xf32>\n}\n",
            {"sdy-add-data-flow-edges", "sdy-basic-propagate", "sdy-sink-data-flow-edges"});
        QVERIFY(
            has(out, "%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\", \"b\", ?}, {\"c\", ?}]>}"));
        QVERIFY(
            has(out, "-> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\", \"b\", ?}, {\"d\", ?}]>})"));
        QVERIFY(has(out, "in_shardings=[<@mesh, [{\"a\", \"b\", ?}, {\"c\", ?}]>] out_shardings=[<@mesh, [{\"a\", "
                         "\"b\", ?}, {\"d\", ?}]>]"));
    }

    void manualAxesDoNotCrossTheBoundary()
    {
        // "a" is manual: the body only sees "b"; the operand outside gets the global sharding.
        std::string out =
            runPasses("func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {\n"
                      "  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"a\", \"b\"}, {}]>] "
                      "out_shardings=[<@mesh, [{\"a\"}, {}]>] manual_axes={\"a\"} (%arg1: tensor<4x8xf32>) {\n"
                      "    %1 = stablehlo.abs %arg1 : tensor<4x8xf32>\n"
                      "    sdy.return %1 : tensor<4x8xf32>\n"
                      "  } : (tensor<8x8xf32>) -> tensor<8x8xf32>\n"
                      "  return %0 : tensor<8x8xf32>\n}\n",
                      {"sdy-add-data-flow-edges", "sdy-basic-propagate", "sdy-sink-data-flow-edges"});
        QVERIFY(has(out, "stablehlo.abs %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"b\", ?}, {?}]>]>}"));
        QVERIFY(has(out, "%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\", \"b\", ?}, {?}]>}"));
        QVERIFY(has(out, "in_shardings=[<@mesh, [{\"a\", \"b\"}, {}]>] out_shardings=[<@mesh, [{\"a\"}, {}]>]"));
    }

    void applyShardingConstraints()
    {
        // A fully closed constraint is copied to its unsharded input; an open one is not.
        std::string out = runPasses("func.func @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> (tensor<8xf32>, "
                                    "tensor<8xf32>) {\n"
                                    "  %0 = sdy.sharding_constraint %arg0 <@mesh, [{\"a\"}]> : tensor<8xf32>\n"
                                    "  %1 = sdy.sharding_constraint %arg1 <@mesh, [{\"a\", ?}]> : tensor<8xf32>\n"
                                    "  return %0, %1 : tensor<8xf32>, tensor<8xf32>\n}\n",
                                    {"sdy-apply-sharding-constraints"});
        QVERIFY(
            has(out, "%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}]>}, %arg1: tensor<8xf32>)"));
    }

    void applyConstraintOnEdgeMovesIt()
    {
        // The constraint's input is a data-flow edge: it moves right after the edge instead.
        std::string out = runPasses("func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                                    "  %0 = stablehlo.optimization_barrier %arg0 : tensor<8xf32>\n"
                                    "  %1 = stablehlo.abs %0 : tensor<8xf32>\n"
                                    "  %2 = sdy.sharding_constraint %0 <@mesh, [{\"b\"}]> : tensor<8xf32>\n"
                                    "  return %2 : tensor<8xf32>\n}\n",
                                    {"sdy-add-data-flow-edges", "sdy-apply-sharding-constraints"});
        QVERIFY(has(out, "%1 = sdy.data_flow_edge %0 : tensor<8xf32>\n"
                         "    %2 = sdy.sharding_constraint %1 <@mesh, [{\"b\"}]> : tensor<8xf32>\n"
                         "    %3 = stablehlo.abs %2 : tensor<8xf32>"));
    }
};

QTEST_APPLESS_MAIN(TestDataFlowEdges)
#include "tst_dataflowedges.moc"
