// -sdy-propagation-pipeline and its sub-steps on MLIR text, expectations from SDY.md 3.7.
#include <QtTest>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/passes/PassRegistry.h"
#include "core/propagation/PipelineSteps.h"
#include "tests/TestSupport.h"

using namespace shardx;

namespace {

std::unique_ptr<ir::Module> parse(const std::string& text)
{
    DiagnosticList diags;
    auto m = io::parseMlir(text, "test.mlir", diags);
    if (!m)
        qWarning("%s", diags.formatAll().c_str());
    return m;
}

std::string pipeline(const std::string& text, const PassOptions& opts = {})
{
    auto m = parse(text);
    if (!m)
        return "<parse error>";
    DiagnosticList diags;
    if (!findPass("sdy-propagation-pipeline")->run(*m, opts, diags))
        return "<failed> " + diags.formatAll();
    return io::printModule(*m);
}

using testing::has;

} // namespace

class TestPipeline : public QObject {
    Q_OBJECT

private slots:
    void constraintBecomesReshardAndShardingsClose()
    {
        std::string out =
            pipeline("sdy.mesh @mesh = <[\"a\"=2, \"b\"=2]>\n"
                     "func.func @f(%arg0: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {\n"
                     "  %0 = sdy.sharding_constraint %arg0 <@mesh, [{\"a\", ?}, {\"b\"}]> : tensor<8x8xf32>\n"
                     "  %1 = stablehlo.abs %0 : tensor<8x8xf32>\n"
                     "  return %arg0, %1 : tensor<8x8xf32>, tensor<8x8xf32>\n}\n");
        QVERIFY(has(out, "%0 = sdy.reshard %arg0 <@mesh, [{\"a\"}, {\"b\"}]> : tensor<8x8xf32>"));
        QVERIFY(has(out, "stablehlo.abs %0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"a\"}, {\"b\"}]>]>}"));
        QVERIFY(out.find("?") == std::string::npos);
        QVERIFY(out.find("sdy.sharding_rule") == std::string::npos);
    }

    void inlineMeshIsLifted()
    {
        std::string out = pipeline("func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<mesh<[\"a\"=2]>, "
                                   "[{\"a\"}]>}) -> tensor<8xf32> {\n"
                                   "  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n"
                                   "  return %0 : tensor<8xf32>\n}\n");
        QVERIFY(has(out, "sdy.mesh @mesh = <[\"a\"=2]>"));
        QVERIFY(has(out, "stablehlo.abs %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"a\"}]>]>}"));
    }

    // A duplicate mesh is removed and every reference to it renamed: shardings, and the mesh a collective names
    // in a dialect attribute shardx keeps as text (JAX's shard_map writes this for a psum inside it).
    void duplicateMeshReferencesAreRenamed()
    {
        std::string out = pipeline(
            "sdy.mesh @mesh = <[\"a\"=2, \"b\"=2]>\n"
            "sdy.mesh @mesh_0 = <[\"a\"=2, \"b\"=2]>\n"
            "sdy.mesh @mesh_01 = <[\"a\"=4]>\n"
            "func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh_0, [{\"a\"}, {}]>}, "
            "%arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh_01, [{\"a\"}]>}) -> "
            "tensor<8x8xf32> {\n"
            "  %0 = \"stablehlo.all_reduce\"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = "
            "1>, "
            "replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "
            "\"b\">]>, use_global_device_ids}> ({\n"
            "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
            "    %s = stablehlo.add %x, %y : tensor<f32>\n"
            "    stablehlo.return %s : tensor<f32>\n"
            "  }) : (tensor<8x8xf32>) -> tensor<8x8xf32>\n"
            "  return %0 : tensor<8x8xf32>\n}\n");
        QVERIFY2(has(out, "replica_group_mesh_axes<mesh = @mesh, axes"), out.c_str());
        QVERIFY2(out.find("@mesh_0 ") == std::string::npos && out.find("@mesh_0,") == std::string::npos, out.c_str());
        QVERIFY2(has(out, "sdy.mesh @mesh_01 = <[\"a\"=4]>"), out.c_str()); // another mesh, a longer name: kept
        QVERIFY2(has(out, "#sdy.sharding<@mesh, [{\"a\"}, {}]>"), out.c_str());
    }

    void sizeOneAxesRemoved()
    {
        std::string out =
            pipeline("sdy.mesh @mesh = <[\"a\"=1, \"b\"=2]>\n"
                     "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\", \"b\"}]>}) "
                     "-> tensor<8xf32> {\n"
                     "  return %arg0 : tensor<8xf32>\n}\n");
        QVERIFY(has(out, "%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"b\"}]>}"));
        QVERIFY(has(out, "sdy.mesh @mesh = <[\"a\"=1, \"b\"=2]>"));
    }

    void constantsAreSplitPerUse()
    {
        // Each user gets its own copy of the constant, so "a" on one add does not reach the other.
        std::string out = pipeline(
            "sdy.mesh @mesh = <[\"a\"=2]>\n"
            "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}]>}, %arg1: tensor<8xf32> "
            "{sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> (tensor<8xf32>, tensor<8xf32>) {\n"
            "  %c = stablehlo.constant dense<1.0> : tensor<8xf32>\n"
            "  %0 = stablehlo.add %arg0, %c : tensor<8xf32>\n"
            "  %1 = stablehlo.add %arg1, %c : tensor<8xf32>\n"
            "  return %0, %1 : tensor<8xf32>, tensor<8xf32>\n}\n");
        QVERIFY(has(out, "%0 = sdy.constant {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"a\"}]>]>} "
                         "dense<1.000000e+00> : tensor<8xf32>"));
        QVERIFY(has(out, "%1 = sdy.constant dense<1.000000e+00> : tensor<8xf32>"));
        QVERIFY(has(out, "%3 = stablehlo.add %arg1, %1 : tensor<8xf32>"));
    }

    void callsAreDedupedAfterPropagation()
    {
        // Two calls to @foo: flattened into two named computations, propagated, exported as
        // @foo and @foo_0, then unflattened back to one function.
        std::string out = pipeline("sdy.mesh @mesh = <[\"a\"=2]>\n"
                                   "func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, "
                                   "[{\"a\"}]>}) -> tensor<8xf32> {\n"
                                   "  %0 = call @foo(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n"
                                   "  %1 = call @foo(%0) : (tensor<8xf32>) -> tensor<8xf32>\n"
                                   "  return %1 : tensor<8xf32>\n}\n"
                                   "func.func private @foo(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                                   "  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n"
                                   "  return %0 : tensor<8xf32>\n}\n");
        QVERIFY(has(out, "%0 = call @foo(%arg0) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"a\"}]>]>}"));
        QVERIFY(has(out, "%1 = call @foo(%0) {sdy.sharding"));
        QVERIFY(has(out,
                    "func.func private @foo(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}]>}) "
                    "-> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}]>})"));
        QVERIFY(out.find("@foo_0") == std::string::npos);
        QVERIFY(out.find("original_func_name") == std::string::npos);
    }

    void nonDivisibleAndSubAxesAtTheBoundary()
    {
        // 3.7.9: [{"x"}] on a dimension of 2 with x=4 becomes [{"x":(1)2}]; 3.7.10 then drops
        // the sub-axis only in open dimensions of main's arguments/results (none here: closed).
        auto m = parse(
            "sdy.mesh @mesh = <[\"x\"=4, \"y\"=2]>\n"
            "func.func @main(%arg0: tensor<2x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {\"y\", ?}]>}, "
            "%arg1: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"y\", \"x\", ?}]>}) -> tensor<2x4xf32> {\n"
            "  return %arg0 : tensor<2x4xf32>\n}\n");
        QVERIFY(m);
        updateNonDivisibleInputOutputShardings(*m);
        std::string out = io::printModule(*m);
        QVERIFY(has(out, "#sdy.sharding<@mesh, [{\"x\":(1)2}, {\"y\", ?}]>"));
        QVERIFY(has(out, "#sdy.sharding<@mesh, [{\"y\", \"x\":(1)2, ?}]>"));
        removeSubAxesInInputOutputShardings(*m);
        out = io::printModule(*m);
        QVERIFY(has(out, "#sdy.sharding<@mesh, [{\"x\":(1)2}, {\"y\", ?}]>"));
        QVERIFY(has(out, "#sdy.sharding<@mesh, [{\"y\", ?}]>"));
    }

    void verifyUnreducedAxes()
    {
        // An element-wise op may not drop unreduced axes; a reshard operand counts as unsharded.
        const std::string head = "sdy.mesh @mesh = <[\"a\"=2]>\n"
                                 "func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}], "
                                 "unreduced={\"a\"}>}) -> tensor<8xf32> {\n";
        auto bad = parse(head + "  %0 = stablehlo.abs %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}]>]>} "
                                ": tensor<8xf32>\n  return %0 : tensor<8xf32>\n}\n");
        QVERIFY(bad);
        DiagnosticList diags;
        QVERIFY(!shardx::verifyUnreducedAxes(*bad, diags));
        QVERIFY(has(diags.formatAll(), "dropped unreduced axis"));
        auto good = parse(head + "  %0 = sdy.reshard %arg0 <@mesh, [{}]> : tensor<8xf32>\n"
                                 "  %1 = stablehlo.abs %0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}], "
                                 "unreduced={\"a\"}>]>} : tensor<8xf32>\n  return %1 : tensor<8xf32>\n}\n");
        QVERIFY(good);
        DiagnosticList ok;
        QVERIFY(shardx::verifyUnreducedAxes(*good, ok));
    }

    void shardingGroupImportUnifiesAndRenumbers()
    {
        auto m = parse("sdy.mesh @mesh = <[\"a\"=2]>\n"
                       "func.func @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> tensor<8xf32> {\n"
                       "  sdy.sharding_group %arg0 group_id=7 : tensor<8xf32>\n"
                       "  sdy.sharding_group %arg0 group_id=3 : tensor<8xf32>\n"
                       "  sdy.sharding_group %arg1 group_id=7 : tensor<8xf32>\n"
                       "  sdy.sharding_group %arg1 group_id=9 : tensor<8xf32>\n"
                       "  return %arg0 : tensor<8xf32>\n}\n");
        QVERIFY(m);
        DiagnosticList diags;
        QVERIFY(shardingGroupImport(*m, diags));
        std::string out = io::printModule(*m);
        // 3, 7 and 9 are one group (represented by 3) -> id 0; duplicates on a value removed.
        QVERIFY(has(out, "sdy.sharding_group %arg0 group_id=0 : tensor<8xf32>\n"
                         "    sdy.sharding_group %arg1 group_id=0 : tensor<8xf32>\n"
                         "    return"));
    }
};

QTEST_APPLESS_MAIN(TestPipeline)
#include "tst_pipeline.moc"
