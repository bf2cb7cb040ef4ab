// The partitioner passes after reshard-to-collectives (PARTITION.md 2 and 5-8) on hand-worked
// cases: replica groups and shard indices, padding for divisibility, single-device ops, the
// conversion to per-device code and the final drop of shardings and meshes.
#include <QtTest>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/partition/LocalOps.h"
#include "core/passes/PassRegistry.h"
#include "tests/TestSupport.h"

using namespace shardx;

namespace {

using testing::has;

/// Runs `passes` (name and options) in order on `text`; the printed module, or the diagnostics.
std::string run(const std::string& text, const std::vector<std::pair<std::string, PassOptions>>& passes,
                std::string* diagnostics = nullptr)
{
    DiagnosticList diags;
    auto module = io::parseMlir(text, "test.mlir", diags);
    if (!module)
        return "<parse error> " + diags.formatAll();
    for (const auto& [name, options] : passes) {
        const PassInfo* info = findPass(name);
        if (!info)
            return "<no pass " + name + ">";
        if (!info->run(*module, options, diags)) {
            if (diagnostics)
                *diagnostics = diags.formatAll();
            return "<failed> " + diags.formatAll();
        }
    }
    return io::printModule(*module);
}

std::string groupsText(const std::vector<std::vector<int64_t>>& groups)
{
    std::string s;
    for (const auto& g : groups) {
        s += "[";
        for (size_t i = 0; i < g.size(); ++i)
            s += (i ? "," : "") + std::to_string(g[i]);
        s += "]";
    }
    return s;
}

} // namespace

class TestPartitionPasses : public QObject {
    Q_OBJECT

private slots:
    void replicaGroupsOnANonIotaMesh()
    {
        // PARTITION.md 2.5: x=2, y=4 with device_ids [0,2,4,6,1,3,5,7]. "y":(1)2 is the major half
        // of y, "y":(2)2 the minor half.
        Mesh mesh({{"x", 2}, {"y", 4}}, {0, 2, 4, 6, 1, 3, 5, 7});
        QCOMPARE(groupsText(partition::replicaGroups(mesh, {AxisRef("y", 2, 2), AxisRef("x")})),
                 std::string("[0,1,2,3][4,5,6,7]"));
        // Groups follow mesh coordinates, not their smallest id.
        QCOMPARE(groupsText(partition::replicaGroups(mesh, {AxisRef("y", 1, 2)})), std::string("[0,4][2,6][1,5][3,7]"));
        QCOMPARE(groupsText(partition::replicaGroups(mesh, {AxisRef("x")})), std::string("[0,1][2,3][4,5][6,7]"));
        // Shard index along ["y":(2)2, "x"] = 2*y2 + x.
        std::vector<int64_t> index;
        for (int64_t d = 0; d < 8; ++d)
            index.push_back(partition::shardIndex(d, mesh, {AxisRef("y", 2, 2), AxisRef("x")}));
        QCOMPARE(index, (std::vector<int64_t>{0, 1, 2, 3, 0, 1, 2, 3}));
    }

    void replicaGroupsOnIotaMeshes()
    {
        Mesh m3({{"x", 2}, {"y", 4}, {"z", 2}});
        QCOMPARE(groupsText(partition::replicaGroups(m3, {AxisRef("x"), AxisRef("y", 2, 2)})),
                 std::string("[0,2,8,10][1,3,9,11][4,6,12,14][5,7,13,15]"));
        QCOMPARE(groupsText(partition::replicaGroups(m3, {AxisRef("y", 2, 2), AxisRef("z"), AxisRef("x")})),
                 std::string("[0,8,1,9,2,10,3,11][4,12,5,13,6,14,7,15]"));
        QCOMPARE(groupsText(partition::replicaGroups(m3, {})),
                 std::string("[0][1][2][3][4][5][6][7][8][9][10][11][12][13][14][15]"));
    }

    void i64TablesPrintAsMlirDoes()
    {
        QCOMPARE(partition::i64DenseText({0, 4, 0, 4}, {4}), std::string("dense<[0, 4, 0, 4]> : tensor<4xi64>"));
        QCOMPARE(partition::i64DenseText({0, 0, 0}, {3}), std::string("dense<0> : tensor<3xi64>"));
        QCOMPARE(partition::i64DenseText({0, 1, 2, 3}, {2, 2}),
                 std::string("dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>"));
    }

    void permutationFactorsAreReplicatedWhereShardsWouldNeedNeighbours()
    {
        // PARTITION.md 4.10 R2: pad low [2, 1], high [0, 1] of 8x8 on a=2, b=2. Dimension 0 shifts by
        // 2 (shard 1 would read rows of shard 0); dimension 1 pads 1 on each side, so each output
        // shard reads only its own input shard. Only dimension 0 is replicated.
        const std::string out = run(R"(sdy.mesh @m = <["a"=2, "b"=2]>
func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {"b"}]>}) -> (tensor<10x10xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {"b"}]>}) {
  %c = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.pad %arg0, %c, low = [2, 1], high = [0, 1], interior = [0, 0] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {"b"}]>]>} : (tensor<8x8xf32>, tensor<f32>) -> tensor<10x10xf32>
  return %0 : tensor<10x10xf32>
})",
                                    {{"sdy-resolve-permutation-factors", {{"enable-halo-exchange", "false"}}}});
        QVERIFY2(has(out, "sdy.reshard %arg0 <@m, [{}, {\"b\"}]> : tensor<8x8xf32>"), out.c_str());
        QVERIFY2(has(out, "{sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {\"b\"}]>]>} : (tensor<8x8xf32>, "
                          "tensor<f32>) -> tensor<10x10xf32>"),
                 out.c_str());
        QVERIFY2(has(out, "sdy.reshard %1 <@m, [{\"a\"}, {\"b\"}]> : tensor<10x10xf32>"), out.c_str());
        // A pad that needs no neighbour data is left alone.
        const std::string free = run(R"(sdy.mesh @m = <["a"=2]>
func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}]>}) -> (tensor<10xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}]>}) {
  %c = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.pad %arg0, %c, low = [1], high = [1], interior = [0] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}]>]>} : (tensor<8xf32>, tensor<f32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
})",
                                     {{"sdy-resolve-permutation-factors", {}}});
        QVERIFY2(!has(free, "sdy.reshard"), free.c_str());
    }

    void padMasksWhatItNoLongerPads()
    {
        // PARTITION.md 5.6 (c): the slice to 7 elements is widened to the padded 8; the pad's high
        // padding shrinks from 1 to 0, so the 8th element is overwritten with the pad value first.
        const std::string out = run(R"(sdy.mesh @m = <["x"=4]>
func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) {
  %0 = stablehlo.slice %arg0 [0:7] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}]>]>} : (tensor<8xf32>) -> tensor<7xf32>
  %one = stablehlo.constant dense<1.000000e+00> : tensor<f32>
  %1 = stablehlo.pad %0, %one, low = [0], high = [1], interior = [0] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}]>]>} : (tensor<7xf32>, tensor<f32>) -> tensor<8xf32>
  return %1 : tensor<8xf32>
})",
                                    {{"sdy-pad-for-divisibility", {}}});
        QVERIFY2(has(out, "stablehlo.slice %arg0 [0:8]"), out.c_str());
        QVERIFY2(has(out, "stablehlo.iota dim = 0"), out.c_str());
        QVERIFY2(has(out, "stablehlo.constant dense<7> : tensor<i32>"), out.c_str());
        QVERIFY2(has(out, "stablehlo.compare") && has(out, "LT, %"), out.c_str());
        QVERIFY2(has(out, "low = [0], high = [0], interior = [0]"), out.c_str());
        QVERIFY2(has(out, "stablehlo.select"), out.c_str());
    }

    void padRejectsAFunctionThatDoesNotDivide()
    {
        std::string diags;
        run(R"(sdy.mesh @m = <["x"=4]>
func.func @f(%arg0: tensor<7xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> tensor<7xf32> {
  return %arg0 : tensor<7xf32>
})",
            {{"sdy-pad-for-divisibility", {}}}, &diags);
        QVERIFY2(has(diags, "test.mlir:2:") && has(diags, "argument 0"), diags.c_str());
    }

    void perDeviceProgramOfASlicedArgument()
    {
        // x=2, y=2 with device_ids [3,2,1,0]: the device at position p holds rows [4*x(p), 4*x(p)+4).
        // Device 3 is at position 0 (x=0), device 0 at position 3 (x=1), so the offset table
        // indexed by device id is [4, 4, 0, 0].
        const std::string out = run(R"(sdy.mesh @m = <["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>
func.func @f(%arg0: tensor<8x6xf32>) -> (tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {}]>}) {
  %0 = sdy.all_slice [{"x"}, {}] %arg0 out_sharding=<@m, [{"x"}, {}]> : tensor<8x6xf32>
  %1 = stablehlo.negate %0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}, {}]>]>} : tensor<8x6xf32>
  %2 = sdy.all_gather [{"x"}, {}] %1 out_sharding=<@m, [{}, {}]> : tensor<8x6xf32>
  return %2 : tensor<8x6xf32>
})",
                                    {{"sdy-convert-global-to-local", {}}, {"sdy-drop-sharding-and-mesh", {}}});
        QVERIFY2(has(out, "stablehlo.constant dense<[4, 4, 0, 0]> : tensor<4xi64>"), out.c_str());
        QVERIFY2(has(out, "stablehlo.dynamic_slice %arg0, %"), out.c_str());
        QVERIFY2(has(out, "sizes = [4, 6] : (tensor<8x6xf32>, tensor<i64>, tensor<i64>) -> tensor<4x6xf32>"),
                 out.c_str());
        QVERIFY2(has(out, "stablehlo.negate %") && has(out, ": tensor<4x6xf32>"), out.c_str());
        // Groups along x: positions (x=0,y) and (x=1,y): ids [3,1] and [2,0].
        QVERIFY2(has(out, "replica_groups = dense<[[3, 1], [2, 0]]> : tensor<2x2xi64>"), out.c_str());
        QVERIFY2(has(out, "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>"), out.c_str());
        // Nothing of Shardy's is left.
        QVERIFY2(!has(out, "sdy."), out.c_str());
    }

    void conversionStopsAtWhatItCannotConvert()
    {
        std::string diags;
        run(R"(sdy.mesh @m = <["x"=2]>
func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> tensor<8xf32> {
  %0 = sdy.reshard %arg0 <@m, [{}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
})",
            {{"sdy-convert-global-to-local", {}}}, &diags);
        QVERIFY2(has(diags, "test.mlir:3:") && has(diags, "sdy.reshard"), diags.c_str());
        // A dimension that does not divide is an error, not a crash.
        run(R"(sdy.mesh @m = <["x"=4]>
func.func @f(%arg0: tensor<6xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> tensor<6xf32> {
  return %arg0 : tensor<6xf32>
})",
            {{"sdy-convert-global-to-local", {}}}, &diags);
        QVERIFY2(has(diags, "not divisible"), diags.c_str());
    }

    void singleDeviceOpRunsOnItsDevice()
    {
        const std::string out = run(R"(sdy.mesh @m = <["x"=2]>
sdy.mesh @dev1 = <[], device_ids=[1]>
func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = sdy.reshard %arg0 <@dev1, []> : tensor<4xf32>
  %1 = stablehlo.exponential %0 {sdy.sharding = #sdy.sharding_per_value<[<@dev1, []>]>} : tensor<4xf32>
  %2 = sdy.reshard %1 <@m, [{}]> : tensor<4xf32>
  return %2 : tensor<4xf32>
})",
                                    {{"sdy-resolve-single-device-sharding", {}}});
        QVERIFY2(has(out, "stablehlo.constant dense<1> : tensor<i64>"), out.c_str());
        QVERIFY2(has(out, "\"stablehlo.if\""), out.c_str());
        QVERIFY2(has(out, "stablehlo.exponential %arg0"), out.c_str());
        QVERIFY2(has(out, "sdy.all_reduce {\"x\"}"), out.c_str());
        QVERIFY2(!has(out, "sdy.reshard"), out.c_str());
    }

    void perInstructionPartitioningWrapsTheSelectedOps()
    {
        // The mesh a=2, b=3. The multiply's operands are [{"a"}, {}] and [{}, {"b"}] of 4x6 and
        // the result [{"a"}, {"b"}]: each device computes a 2x2 block, so the multiply runs in a
        // manual computation over a and b on 2x2 locals (the operands are resharded inside it
        // first). The negate is not selected ("mul" filters), stays global and reads the result.
        const char* text = R"(sdy.mesh @m = <["a"=2, "b"=3]>
func.func @f(%x: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}, %y: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"b"}]>}) -> tensor<4x6xf32> {
  %0 = stablehlo.multiply %x, %y {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {"b"}]>]>} : tensor<4x6xf32>
  %1 = stablehlo.negate %0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {"b"}]>]>} : tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
})";
        const std::string out = run(text, {{"sdy-per-instruction-partitioning", {{"filter", "mul"}}}});
        QVERIFY2(has(out, "sdy.manual_computation(%arg0, %arg1) in_shardings=[<@m, [{\"a\"}, {}]>, <@m, [{}, "
                          "{\"b\"}]>] out_shardings=[<@m, [{\"a\"}, {\"b\"}]>] manual_axes={\"a\", \"b\"} "
                          "(%arg2: tensor<2x6xf32>, %arg3: tensor<4x2xf32>)"),
                 out.c_str());
        QVERIFY2(has(out, "stablehlo.multiply") && has(out, ": tensor<2x2xf32>"), out.c_str());
        QVERIFY2(has(out, "sdy.return"), out.c_str());
        QVERIFY2(has(out, "stablehlo.negate %0 {sdy.sharding"), out.c_str());
        // Nothing global is left of the multiply.
        QVERIFY2(!has(out, "stablehlo.multiply %arg0"), out.c_str());

        // Candidates are numbered 0 (the multiply) and 1 (the negate): a range selects by number,
        // quoted or not, in any order; a bound that is not a number is ignored.
        const std::string second = run(text, {{"sdy-per-instruction-partitioning", {{"filter", "'selectLow=1'"}}}});
        QVERIFY2(has(second, "stablehlo.multiply %arg0, %arg1"), second.c_str());
        QVERIFY2(has(second, "stablehlo.negate %arg2"), second.c_str());
        const std::string both =
            run(text, {{"sdy-per-instruction-partitioning", {{"filter", " selectHigh=1 ,selectLow=x, "}}}});
        QVERIFY2(!has(both, "stablehlo.multiply %arg0") && !has(both, "stablehlo.negate %0"), both.c_str());
        const std::string none = run(text, {{"sdy-per-instruction-partitioning", {{"filter", "selectLow=2"}}}});
        QCOMPARE(none, run(text, {}));
    }

    void perInstructionPartitioningPadsWhatDoesNotDivide()
    {
        // 5 rows on a=2 do not divide: the operand is padded to 6 rows before the manual
        // computation (locals of 3 rows) and its result is sliced back to 5 rows after it.
        const std::string out = run(R"(sdy.mesh @m = <["a"=2]>
func.func @f(%x: tensor<5x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) -> tensor<5x4xf32> {
  %0 = stablehlo.abs %x {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>} : tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
})",
                                    {{"sdy-per-instruction-partitioning", {}}});
        QVERIFY2(has(out, "stablehlo.pad %arg0, %cst, low = [0, 0], high = [1, 0], interior = [0, 0]"), out.c_str());
        QVERIFY2(has(out, "(%arg1: tensor<3x4xf32>)"), out.c_str());
        QVERIFY2(has(out, "} : (tensor<6x4xf32>) -> tensor<6x4xf32>"), out.c_str());
        QVERIFY2(has(out, "stablehlo.slice %1 [0:5, 0:4]"), out.c_str());
    }

    void passOptionsKeepQuotedValuesWhole()
    {
        Expected<PassInvocation> inv =
            parsePassInvocation("-sdy-per-instruction-partitioning=filter='selectLow=0, selectHigh=0' replica-count=1");
        QVERIFY(inv);
        QCOMPARE(inv->options.at("filter"), std::string("selectLow=0, selectHigh=0"));
        QCOMPARE(inv->options.at("replica-count"), std::string("1"));
    }

    void theWholeSequenceGivesAPlainProgram()
    {
        // PARTITION.md 1.2 on a small matmul: the output is plain StableHLO with local shapes.
        const std::string out = run(R"(sdy.mesh @m = <["x"=2, "y"=2]>
func.func @f(%arg0: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {"y"}]>}, %arg1: tensor<6x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"y"}, {}]>}) -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}, {}]>]>} : (tensor<8x6xf32>, tensor<6x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
})",
                                    {{"sdy-insert-explicit-reshards", {{"enable-full-version", "true"}}},
                                     {"sdy-reshard-to-collectives", {}},
                                     {"sdy-pad-for-divisibility", {}},
                                     {"sdy-resolve-single-device-sharding", {}},
                                     {"sdy-convert-global-to-local", {}},
                                     {"sdy-drop-sharding-and-mesh", {}}});
        QVERIFY2(has(out, "(tensor<4x3xf32>, tensor<3x4xf32>) -> tensor<4x4xf32>"), out.c_str());
        QVERIFY2(has(out, "\"stablehlo.all_reduce\""), out.c_str());
        QVERIFY2(!has(out, "sdy."), out.c_str());
    }
};

QTEST_GUILESS_MAIN(TestPartitionPasses)
#include "tst_partitionpasses.moc"
