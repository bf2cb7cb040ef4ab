// sdy-insert-explicit-reshards on hand-derived cases (SDY.md 3.8).
#include <QtTest>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/passes/PassRegistry.h"
#include "tests/TestSupport.h"

using namespace shardx;

namespace {

std::string runReshards(const std::string& body, bool full, bool* ok = nullptr)
{
    DiagnosticList diags;
    auto module = io::parseMlir("sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n" + body, "test.mlir", diags);
    if (!module)
        return "<parse error> " + diags.formatAll();
    const PassInfo* info = findPass("sdy-insert-explicit-reshards");
    if (!info)
        return "<no pass>";
    const bool passed = info->run(*module, {{"enable-full-version", full ? "true" : "false"}}, diags);
    if (ok)
        *ok = passed;
    if (!passed)
        return "<pass failed> " + diags.formatAll();
    return io::printModule(*module);
}

using testing::has;

size_t count(const std::string& text, const std::string& needle)
{
    size_t n = 0;
    for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1))
        ++n;
    return n;
}

} // namespace

class TestExplicitReshards : public QObject {
    Q_OBJECT

private slots:
    void passIsRegistered()
    {
        const PassInfo* info = findPass("sdy-insert-explicit-reshards");
        QVERIFY(info);
        QCOMPARE(info->options.size(), size_t(1));
    }

    void badOptionValueFails()
    {
        DiagnosticList diags;
        auto module = io::parseMlir("sdy.mesh @mesh = <[\"x\"=2]>\n", "t.mlir", diags);
        QVERIFY(module);
        QVERIFY(!findPass("sdy-insert-explicit-reshards")->run(*module, {{"enable-full-version", "maybe"}}, diags));
    }

    // add: ([i, j], [i, j])->([i, j]). Candidates (i,["x"]) covers arg0 and the result (128
    // elements), (j,["y"]) only arg1 (64): i takes "x", then j takes "y" (no overlap). Every
    // tensor becomes [{"x"}, {"y"}]: both operands are resharded, the result too (and a reshard
    // back to its old sharding follows the op).
    void elementwiseMismatchedOperands()
    {
        const std::string out = runReshards(
            "func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>},\n"
            "             %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"y\"}]>})\n"
            "    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>}) {\n"
            "  %0 = stablehlo.add %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}, {}]>]>} : "
            "tensor<8x8xf32>\n"
            "  return %0 : tensor<8x8xf32>\n}\n",
            true);
        QVERIFY(has(out, "%0 = sdy.reshard %arg0 <@mesh, [{\"x\"}, {\"y\"}]> : tensor<8x8xf32>\n"
                         "    %1 = sdy.reshard %arg1 <@mesh, [{\"x\"}, {\"y\"}]> : tensor<8x8xf32>\n"
                         "    %2 = stablehlo.add %0, %1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}, "
                         "{\"y\"}]>]>} : tensor<8x8xf32>\n"
                         "    %3 = sdy.reshard %2 <@mesh, [{\"x\"}, {}]> : tensor<8x8xf32>\n"
                         "    return %3 : tensor<8x8xf32>"));
    }

    // The non-full version leaves the same add alone.
    // Ops alike (name, attributes, types, shardings) are left alone once one of them was; one that
    // differs in its shardings or in an attribute is still worked through.
    void alikeOpsAreEachChecked()
    {
        const std::string x = "#sdy.sharding_per_value<[<@mesh, [{\"x\"}, {}]>]>";
        const std::string out =
            runReshards("func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>},\n"
                        "             %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"y\"}]>})\n"
                        "    -> (tensor<8x8xf32>) {\n"
                        "  %0 = stablehlo.add %arg0, %arg0 {sdy.sharding = " +
                            x +
                            "} : tensor<8x8xf32>\n"
                            "  %1 = stablehlo.add %0, %arg0 {sdy.sharding = " +
                            x +
                            "} : tensor<8x8xf32>\n"
                            "  %2 = stablehlo.add %1, %arg1 {sdy.sharding = " +
                            x +
                            "} : tensor<8x8xf32>\n"
                            "  %3 = stablehlo.transpose %2, dims = [0, 1] {sdy.sharding = " +
                            x +
                            "} : (tensor<8x8xf32>) -> "
                            "tensor<8x8xf32>\n"
                            "  %4 = stablehlo.transpose %3, dims = [0, 1] {sdy.sharding = " +
                            x +
                            "} : (tensor<8x8xf32>) -> "
                            "tensor<8x8xf32>\n"
                            "  %5 = stablehlo.transpose %4, dims = [1, 0] {sdy.sharding = " +
                            x +
                            "} : (tensor<8x8xf32>) -> "
                            "tensor<8x8xf32>\n"
                            "  return %5 : tensor<8x8xf32>\n}\n",
                        true);
        // The third add (%arg1 is sharded on "y": both operands and the result are resharded) and
        // the last transpose (its result's "x" is its operand's dimension 1: the result takes
        // [{}, {"x"}] and is resharded back) need reshards; the ops alike before them do not. The
        // unsharded function result adds the last one.
        QVERIFY2(has(out, "sdy.reshard %arg1"), out.c_str());
        QVERIFY2(has(out, "stablehlo.transpose %7, dims = [1, 0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, "
                          "[{}, {\"x\"}]>]>}"),
                 out.c_str());
        QCOMPARE(count(out, "sdy.reshard"), size_t(5));
        QVERIFY2(has(out, "%0 = stablehlo.add %arg0, %arg0"), out.c_str());
        QVERIFY2(has(out, "%1 = stablehlo.add %0, %arg0"), out.c_str());
    }

    void elementwiseUntouchedWhenNotFull()
    {
        const std::string out = runReshards(
            "func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>},\n"
            "             %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"y\"}]>})\n"
            "    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>}) {\n"
            "  %0 = stablehlo.add %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}, {}]>]>} : "
            "tensor<8x8xf32>\n"
            "  return %0 : tensor<8x8xf32>\n}\n",
            false);
        QCOMPARE(count(out, "sdy.reshard"), size_t(0));
    }

    // dot ([i, k], [k, j])->([i, j]) {i=8, j=8, k=16} reduction={k}; lhs [{"x"}, {"y"}], rhs
    // [{"x"}, {}], result replicated. (i,["x"]), (k,["y"]) and (k,["x"]) all cover 128 elements;
    // i wins on kind (pass-through). (k,["x"]) is then cut to [] and dropped; k takes "y".
    // rhs is resharded to [{"y"}, {}], the result becomes [{"x"}, {}] and is all-reduced over "y"
    // (between the dot and the reshard back to replicated).
    void dotConflictingOperands()
    {
        const std::string out = runReshards(
            "func.func @f(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {\"y\"}]>},\n"
            "             %arg1: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>})\n"
            "    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {\n"
            "  %0 = stablehlo.dot %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>} : "
            "(tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>\n"
            "  return %0 : tensor<8x8xf32>\n}\n",
            true);
        QVERIFY(has(out, "%0 = sdy.reshard %arg1 <@mesh, [{\"y\"}, {}]> : tensor<16x8xf32>\n"
                         "    %1 = stablehlo.dot %arg0, %0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, "
                         "[{\"x\"}, {}]>]>} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>\n"
                         "    %2 = sdy.all_reduce {\"y\"} %1 out_sharding=<@mesh, [{\"x\"}, {}]> : tensor<8x8xf32>\n"
                         "    %3 = sdy.reshard %2 <@mesh, [{}, {}]> : tensor<8x8xf32>\n"
                         "    return %3 : tensor<8x8xf32>"));
    }

    // A dot_general whose contracting dimension is sharded the same way on both sides is already
    // compatible: no reshard, only an all-reduce of the contracting axis "x".
    void reductionNeedsAllReduce()
    {
        const std::string out = runReshards(
            "func.func @f(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"y\"}, {\"x\"}]>},\n"
            "             %arg1: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>})\n"
            "    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"y\"}, {}]>}) {\n"
            "  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] {sdy.sharding = "
            "#sdy.sharding_per_value<[<@mesh, [{\"y\"}, {}]>]>} : (tensor<8x16xf32>, tensor<16x8xf32>) -> "
            "tensor<8x8xf32>\n"
            "  return %0 : tensor<8x8xf32>\n}\n",
            true);
        QCOMPARE(count(out, "sdy.reshard"), size_t(0));
        QVERIFY(has(out, "%1 = sdy.all_reduce {\"x\"} %0 out_sharding=<@mesh, [{\"y\"}, {}]> : tensor<8x8xf32>\n"
                         "    return %1 : tensor<8x8xf32>"));
    }

    // Non-full version: the add's operand is unreduced over "x" and "y" but its result only
    // over "y", so "x" is all-reduced before the add; the return then all-reduces "y" (the
    // function result has no unreduced axes).
    void pendingReductionBeforeOp()
    {
        const std::string out = runReshards(
            "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}], unreduced={\"x\", "
            "\"y\"}>})\n"
            "    -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {\n"
            "  %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}], "
            "unreduced={\"y\"}>]>} : tensor<8xf32>\n"
            "  return %0 : tensor<8xf32>\n}\n",
            false);
        QVERIFY(has(out, "%0 = sdy.all_reduce {\"x\"} %arg0 out_sharding=<@mesh, [{}], unreduced={\"y\"}> : "
                         "tensor<8xf32>\n"
                         "    %1 = stablehlo.negate %0"));
        QVERIFY(has(out, "%2 = sdy.all_reduce {\"y\"} %1 out_sharding=<@mesh, [{}]> : tensor<8xf32>\n"
                         "    return %2 : tensor<8xf32>"));
    }

    // A reshard that adds unreduced axes becomes replicated_to_unreduced (for "y", replicated
    // in the input) and sharded_to_unreduced (for "x", dropped from dimension 0).
    void reshardToUnreducedCollectives()
    {
        const std::string out = runReshards(
            "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}]>}) -> tensor<8xf32> "
            "{\n"
            "  %0 = sdy.reshard %arg0 <@mesh, [{}], unreduced={\"x\", \"y\"}> : tensor<8xf32>\n"
            "  return %0 : tensor<8xf32>\n}\n",
            false);
        QVERIFY(has(out, "%0 = sdy.replicated_to_unreduced {\"y\"} %arg0 out_sharding=<@mesh, [{\"x\"}], "
                         "unreduced={\"y\"}> : tensor<8xf32>\n"
                         "    %1 = sdy.sharded_to_unreduced [{\"x\"}] %0 out_sharding=<@mesh, [{}], "
                         "unreduced={\"x\", \"y\"}> : tensor<8xf32>"));
        QCOMPARE(count(out, "sdy.reshard"), size_t(0));
    }

    // Non-full dot special case: lhs and rhs agree on the contracting factor k (["y"]); only
    // i differs between the result (["y"], equal to the contracting axes) and lhs (["x"]), and
    // the result (64 elements) is not larger than lhs (128). The result's i takes "x"; a reshard
    // back to the original result sharding follows. No all-reduce: the result is not unreduced.
    void dotSpecialCaseWhenNotFull()
    {
        const std::string out = runReshards(
            "func.func @f(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {\"y\"}]>},\n"
            "             %arg1: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"y\"}, {}]>})\n"
            "    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"y\"}, {}]>}) {\n"
            "  %0 = stablehlo.dot %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"y\"}, {}]>]>} : "
            "(tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>\n"
            "  return %0 : tensor<8x8xf32>\n}\n",
            false);
        QVERIFY(has(out, "%0 = stablehlo.dot %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, "
                         "[{\"x\"}, {}]>]>} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>\n"
                         "    %1 = sdy.reshard %0 <@mesh, [{\"y\"}, {}]> : tensor<8x8xf32>\n"
                         "    return %1 : tensor<8x8xf32>"));
        QCOMPARE(count(out, "all_reduce"), size_t(0));
    }

    // A need-replication factor j sharded on "x" everywhere: the heuristic assigns j = ["x"],
    // then j's axes move to the batching factor i (size 8, capacity 8). Every tensor becomes
    // [{"x"}, {}].
    void needReplicationAxesMoveToBatchingFactor()
    {
        const std::string out = runReshards(
            "func.func @f(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"x\"}]>},\n"
            "             %arg1: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"x\"}]>})\n"
            "    -> tensor<8x16xf32> {\n"
            "  %0 = stablehlo.add %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {\"x\"}]>]>, "
            "sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=8, j=16} need_replication={j}>} "
            ": tensor<8x16xf32>\n"
            "  return %0 : tensor<8x16xf32>\n}\n",
            true);
        QVERIFY(has(out, "%0 = sdy.reshard %arg0 <@mesh, [{\"x\"}, {}]> : tensor<8x16xf32>\n"
                         "    %1 = sdy.reshard %arg1 <@mesh, [{\"x\"}, {}]> : tensor<8x16xf32>\n"
                         "    %2 = stablehlo.add %0, %1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}, "
                         "{}]>]>"));
        QVERIFY(has(out, "%3 = sdy.reshard %2 <@mesh, [{}, {\"x\"}]> : tensor<8x16xf32>\n"));
        // The function result has no sharding: the return gets a reshard to fully replicated.
        QVERIFY(has(out, "%4 = sdy.reshard %3 <@mesh, [{}, {}]> : tensor<8x16xf32>\n"
                         "    return %4 : tensor<8x16xf32>"));
    }

    // Data-flow op (full version): the barrier's operand is resharded to the barrier's result
    // sharding right after the operand's definition (the block start for an argument); the
    // return is resharded to the function result sharding just before `return`.
    void dataFlowAndReturnReshards()
    {
        const std::string out = runReshards(
            "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}]>})\n"
            "    -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {\n"
            "  %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}]>]>} : "
            "tensor<8xf32>\n"
            "  %1 = stablehlo.optimization_barrier {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"y\"}]>]>} "
            "%arg0 : tensor<8xf32>\n"
            "  return %1 : tensor<8xf32>\n}\n",
            true);
        QVERIFY(has(out, "%0 = sdy.reshard %arg0 <@mesh, [{\"y\"}]> : tensor<8xf32>\n"
                         "    %1 = stablehlo.negate %arg0"));
        QVERIFY(has(out, "stablehlo.optimization_barrier {sdy.sharding = #sdy.sharding_per_value<[<@mesh, "
                         "[{\"y\"}]>]>} %0 : tensor<8xf32>\n"
                         "    %3 = sdy.reshard %2 <@mesh, [{}]> : tensor<8xf32>\n"
                         "    return %3 : tensor<8xf32>"));
    }

    // Ops with a custom rule are left alone.
    void customRuleIsSkipped()
    {
        const std::string out = runReshards(
            "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}]>}) -> tensor<8xf32> {\n"
            "  %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"y\"}]>]>, "
            "sdy.sharding_rule = #sdy.op_sharding_rule<([i])->([i]) {i=8}, custom>} : tensor<8xf32>\n"
            "  return %0 : tensor<8xf32>\n}\n",
            true);
        QVERIFY(has(out, "%0 = stablehlo.negate %arg0 "));
        // Only the return reshard (to replicated) is inserted.
        QCOMPARE(count(out, "sdy.reshard"), size_t(1));
    }

    // reshape 8x4 -> 32: ([i, j])->([ij]) {i=8, j=4}. The only candidate (j,["x"]) depends on i
    // (i precedes j in the result dimension) and i is not fully sharded, so nothing is
    // assigned: the operand is resharded to replicated and the result stays as it is.
    void reshapeAvoidsStridedLayout()
    {
        const std::string out =
            runReshards("func.func @f(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"x\"}]>}) -> "
                        "tensor<32xf32> {\n"
                        "  %0 = stablehlo.reshape %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}]>]>} : "
                        "(tensor<8x4xf32>) -> tensor<32xf32>\n"
                        "  return %0 : tensor<32xf32>\n}\n",
                        true);
        QVERIFY(has(out, "%0 = sdy.reshard %arg0 <@mesh, [{}, {}]> : tensor<8x4xf32>\n"
                         "    %1 = stablehlo.reshape %0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}]>]>}"));
        QCOMPARE(count(out, "sdy.reshard"), size_t(1));
    }

    // An op on a maximal mesh: its operand goes through the fully replicated sharding of the
    // global mesh (the first mesh with axes) to the maximal sharding; its result is resharded
    // back to the replicated global sharding for its users.
    void singleDeviceOp()
    {
        const std::string out = runReshards(
            "sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>\n"
            "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}]>}) -> tensor<8xf32> {\n"
            "  %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : "
            "tensor<8xf32>\n"
            "  return %0 : tensor<8xf32>\n}\n",
            true);
        QVERIFY(has(out, "%0 = sdy.reshard %arg0 <@mesh, [{}]> : tensor<8xf32>\n"
                         "    %1 = sdy.reshard %0 <@maximal_mesh_0, []> : tensor<8xf32>\n"
                         "    %2 = stablehlo.negate %1 {sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, "
                         "[]>]>} : tensor<8xf32>\n"
                         "    %3 = sdy.reshard %2 <@mesh, [{}]> : tensor<8xf32>\n"
                         "    return %3 : tensor<8xf32>"));
    }

    // Function arguments may not be on a maximal mesh.
    void maximalArgumentIsAnError()
    {
        bool ok = true;
        const std::string out =
            runReshards("sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>\n"
                        "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@maximal_mesh_0, []>}) -> "
                        "tensor<8xf32> {\n"
                        "  return %arg0 : tensor<8xf32>\n}\n",
                        true, &ok);
        QVERIFY(!ok);
        QVERIFY(has(out, "single-device"));
    }
};

QTEST_APPLESS_MAIN(TestExplicitReshards)
#include "tst_explicitreshards.moc"
