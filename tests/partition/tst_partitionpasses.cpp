// The partitioner passes (PARTITION.md 2 and 4-8) on hand-worked cases: replica groups and shard
// indices, permutation factors (replication, halo exchange of pad, slice and reverse, reshapes),
// padding for divisibility, single-device ops, the conversion to per-device code and the final
// drop of shardings and meshes.
#include <QtTest>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/partition/ExplicitReshards.h"
#include "core/partition/LocalOps.h"
#include "core/partition/PartitionPasses.h"
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

/// True if `needles` occur in `text` in this order (each after the end of the one before);
/// otherwise warns with the first one missing.
bool inOrder(const std::string& text, const std::vector<std::string>& needles)
{
    size_t at = 0;
    for (const std::string& n : needles) {
        const size_t found = text.find(n, at);
        if (found == std::string::npos) {
            qWarning("missing (in order): %s\nin:\n%s", n.c_str(), text.c_str());
            return false;
        }
        at = found + n.size();
    }
    return true;
}

/// True if `needle` does not occur in `text` (quiet, unlike `!has`).
bool lacks(const std::string& text, const std::string& needle) { return text.find(needle) == std::string::npos; }

const std::pair<std::string, PassOptions> kHalo = {"sdy-resolve-permutation-factors", {}};
const std::pair<std::string, PassOptions> kNoHalo = {"sdy-resolve-permutation-factors",
                                                     {{"enable-halo-exchange", "false"}}};

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

    void replicaGroupCacheAnswersPerMeshAndAxisList()
    {
        // The cache the passes keep gives what replicaGroups() gives, per mesh (device order
        // included) and axis list, and its answers stay valid while it grows.
        const Mesh permuted({{"x", 2}, {"y", 4}}, {0, 2, 4, 6, 1, 3, 5, 7});
        const Mesh iota({{"x", 2}, {"y", 4}});
        partition::ReplicaGroupCache cache;
        const auto& first = cache.get(permuted, {AxisRef("y", 1, 2)});
        const std::vector<std::vector<int64_t>> copy = first;
        QCOMPARE(groupsText(first), std::string("[0,4][2,6][1,5][3,7]"));
        QCOMPARE(groupsText(cache.get(iota, {AxisRef("y", 1, 2)})), std::string("[0,2][1,3][4,6][5,7]"));
        QCOMPARE(groupsText(cache.get(permuted, {AxisRef("x")})), std::string("[0,1][2,3][4,5][6,7]"));
        QCOMPARE(groupsText(cache.get(iota, {AxisRef("y")})),
                 groupsText(partition::replicaGroups(iota, {AxisRef("y")})));
        QCOMPARE(&cache.get(permuted, {AxisRef("y", 1, 2)}), &first);
        QCOMPARE(first, copy);
    }

    void explicitReshardsTellTheResolverWhichRulesHaveNoPermutationFactor()
    {
        // The partition model runs explicit reshards, then resolve-permutation-factors with the ops
        // the first found permutation-free: the pointwise add and the dot_general, not the slices or
        // the concatenate of slices (whose rule looks at the ops around it). The program is the same
        // as without that knowledge.
        const char* text = R"(sdy.mesh @m = <["a"=2, "b"=2]>
func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {"b"}]>}, %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"b"}, {}]>}) -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}]>}) {
  %0 = stablehlo.add %arg0, %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {"b"}]>]>} : tensor<8x8xf32>
  %1 = stablehlo.slice %0 [0:4, 0:8] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {"b"}]>]>} : (tensor<8x8xf32>) -> tensor<4x8xf32>
  %2 = stablehlo.slice %0 [4:8, 0:8] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {"b"}]>]>} : (tensor<8x8xf32>) -> tensor<4x8xf32>
  %3 = stablehlo.concatenate %2, %1, dim = 0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {"b"}]>]>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %4 = stablehlo.dot_general %3, %arg1, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %4 : tensor<8x8xf32>
})";
        auto partitioned = [&](bool shareRules, std::vector<std::string>* permutationFree) {
            DiagnosticList diags;
            auto module = io::parseMlir(text, "test.mlir", diags);
            if (!module)
                return "<parse error> " + diags.formatAll();
            PermutationFreeOps known;
            ExplicitReshardsOptions reshards;
            reshards.fullVersion = true;
            reshards.permutationFree = shareRules ? &known : nullptr;
            if (!insertExplicitReshards(*module, reshards, diags))
                return "<explicit reshards failed> " + diags.formatAll();
            if (permutationFree)
                module->op().walk([&](ir::Op* op) {
                    if (known.contains(*op))
                        permutationFree->push_back(op->name());
                });
            PermutationFactorOptions permutation;
            permutation.enableHaloExchange = false;
            permutation.permutationFree = shareRules ? &known : nullptr;
            if (!resolvePermutationFactors(*module, permutation, diags))
                return "<resolving failed> " + diags.formatAll();
            return io::printModule(*module);
        };
        std::vector<std::string> permutationFree;
        const std::string shared = partitioned(true, &permutationFree);
        const std::string alone = partitioned(false, nullptr);
        QCOMPARE(permutationFree, (std::vector<std::string>{"stablehlo.add", "stablehlo.dot_general"}));
        QCOMPARE(shared, alone);
        // The resolver still replicated the permutation factors of the slices and the concatenate.
        QVERIFY2(has(shared, "stablehlo.slice"), shared.c_str());
        QVERIFY2(has(shared, "sdy.reshard"), shared.c_str());
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

    void padGathersWhatTheCoarserShardingCutsDifferently()
    {
        // 10 rows: 2 shards of 5 under "x":(1)2, 4 shards of 3 (padded to 12) under "x". Two blocks of 3
        // are 6 rows, not 5: a pad or trim on the dimension while it stays 2-way sharded would move rows
        // between shards. So the 2-way value is gathered whole before it is padded and sliced 4 ways, and
        // the 4-way value is gathered whole, trimmed and sliced 2 ways again.
        const std::string out = run(R"(sdy.mesh @m = <["x"=4]>
func.func @f(%arg0: tensor<10xf32> {sdy.sharding = #sdy.sharding<@m, [{"x":(1)2}]>}) -> (tensor<10xf32> {sdy.sharding = #sdy.sharding<@m, [{"x":(1)2}]>}) {
  %0 = sdy.all_slice [{"x":(2)2}] %arg0 out_sharding=<@m, [{"x"}]> : tensor<10xf32>
  %1 = stablehlo.negate %0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}]>]>} : tensor<10xf32>
  %2 = sdy.all_gather [{"x":(2)2}] %1 out_sharding=<@m, [{"x":(1)2}]> : tensor<10xf32>
  return %2 : tensor<10xf32>
})",
                                    {{"sdy-pad-for-divisibility", {}}});
        QVERIFY(inOrder(
            out, {"sdy.all_gather [{\"x\":(1)2}] %arg0 out_sharding=<@m, [{}]> : tensor<10xf32>",
                  "stablehlo.pad %0, %cst, low = [0], high = [2], interior = [0] {sdy.sharding = "
                  "#sdy.sharding_per_value<[<@m, [{}]>]>} : (tensor<10xf32>, tensor<f32>) -> tensor<12xf32>",
                  "sdy.all_slice [{\"x\"}] %1 out_sharding=<@m, [{\"x\"}]> : tensor<12xf32>", "stablehlo.negate %2",
                  ": tensor<12xf32>", "sdy.all_gather [{\"x\"}] %3 out_sharding=<@m, [{}]> : tensor<12xf32>",
                  "stablehlo.slice %4 [0:10] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}]>]>}",
                  "sdy.all_slice [{\"x\":(1)2}] %5 out_sharding=<@m, [{\"x\":(1)2}]> : tensor<10xf32>",
                  "return %6 : tensor<10xf32>"}));
        // 7 rows line up (2 shards of 4, 4 shards of 2): Shardy's rules apply unchanged, the trim after the
        // gather widened back to an identity slice (PARTITION.md 5.3.5).
        const std::string aligned = run(R"(sdy.mesh @m = <["x"=4]>
func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) {
  %0 = stablehlo.slice %arg0 [0:7] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}]>]>} : (tensor<8xf32>) -> tensor<7xf32>
  %1 = sdy.all_gather [{"x":(2)2}] %0 out_sharding=<@m, [{"x":(1)2}]> : tensor<7xf32>
  %2 = sdy.all_slice [{"x":(2)2}] %1 out_sharding=<@m, [{"x"}]> : tensor<7xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %3 = stablehlo.pad %2, %c, low = [0], high = [1], interior = [0] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}]>]>} : (tensor<7xf32>, tensor<f32>) -> tensor<8xf32>
  return %3 : tensor<8xf32>
})",
                                        {{"sdy-pad-for-divisibility", {}}});
        QVERIFY2(has(aligned, "sdy.all_gather [{\"x\":(2)2}] %0 out_sharding=<@m, [{\"x\":(1)2}]> : tensor<8xf32>"),
                 aligned.c_str());
        QVERIFY2(has(aligned, "sdy.all_slice [{\"x\":(2)2}] %2 out_sharding=<@m, [{\"x\"}]> : tensor<8xf32>"),
                 aligned.c_str());
        QVERIFY2(lacks(aligned, "out_sharding=<@m, [{}]>"), aligned.c_str());
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

    void haloPadFetchesTheRightNeighbour()
    {
        // PARTITION.md 4.3, 4.5, 4.6 by hand. x=4, 8 elements (2 per device), pad low 1 high 3 -> 12
        // (3 per device). Output shard t covers outputs [3t, 3t+3), i.e. inputs [3t-1, 3t+1]:
        //   t=0: [-1,1] -> clamped [0,1], shard 0 only;  t=1: [2,4] -> shards 1..2 (one right hop);
        //   t=2: [5,7] -> shards 2..3 (one right hop);   t=3: [8,10] -> past the input (-1).
        // So leftHops = 0, rightHops = 1; 0+1+1 < 4: halo exchange. 8 and 12 divide by 4: no padHigh,
        // no trim. Shift h=-1 along "x": device i sends to i-1: pairs [[1,0],[2,1],[3,2]].
        // Buffer = pad 3 | local(2) | right(2) | pad 3 = 10. "x" spans the whole mesh, so the shard
        // index is the id itself (no divide, no remainder). diff = sOut - sIn = 1,
        // base = -low + 0 + sOut = 2: t=1 reads buffer[3..6) = its own 2 elements (inputs 2,3) then
        // the neighbour's first (input 4), which are outputs 3,4,5.
        const std::string text = R"(sdy.mesh @m = <["x"=4]>
func.func @f(%arg0: tensor<8xi32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> tensor<12xi32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.pad %arg0, %c, low = [1], high = [3], interior = [0] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}]>]>} : (tensor<8xi32>, tensor<i32>) -> tensor<12xi32>
  return %0 : tensor<12xi32>
})";
        const std::string out = run(text, {kHalo});
        QVERIFY(inOrder(
            out,
            {"sdy.manual_computation(%arg0, %c) in_shardings=[<@m, [{\"x\"}]>, <@m, []>] out_shardings=[<@m, "
             "[{\"x\"}]>] manual_axes={\"x\"} (%arg1: tensor<2xi32>, %arg2: tensor<i32>) {",
             "\"stablehlo.collective_permute\"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = "
             "1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2]]> : tensor<3x2xi64>}> : (tensor<2xi32>) -> "
             "tensor<2xi32>",
             "stablehlo.concatenate %arg1, %1, dim = 0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}]>]>} : "
             "(tensor<2xi32>, tensor<2xi32>) -> tensor<4xi32>",
             "stablehlo.pad %2, %arg2, low = [3], high = [3], interior = [0] {sdy.sharding = "
             "#sdy.sharding_per_value<[<@m, [{}]>]>} : (tensor<4xi32>, tensor<i32>) -> tensor<10xi32>",
             "stablehlo.partition_id : tensor<ui32>", "stablehlo.convert %4 : (tensor<ui32>) -> tensor<i64>",
             "stablehlo.constant dense<1> : tensor<i64>", "stablehlo.constant dense<2> : tensor<i64>",
             "stablehlo.multiply %5, %c_0 : tensor<i64>", "stablehlo.add %6, %c_1 : tensor<i64>",
             "stablehlo.constant dense<0> : tensor<i64>", "stablehlo.maximum %7, %c_2 : tensor<i64>",
             "stablehlo.dynamic_slice %3, %8, sizes = [3] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}]>]>} : "
             "(tensor<10xi32>, tensor<i64>) -> tensor<3xi32>",
             "sdy.return %9 : tensor<3xi32>", "} : (tensor<8xi32>, tensor<i32>) -> tensor<12xi32>",
             "return %0 : tensor<12xi32>"}));
        QVERIFY2(lacks(out, "stablehlo.slice"), out.c_str());
        // Without halo exchange the pad is replicated instead.
        const std::string repl = run(text, {kNoHalo});
        QVERIFY(inOrder(repl, {"sdy.reshard %arg0 <@m, [{}]> : tensor<8xi32>", "stablehlo.pad %0, %c",
                               "sdy.reshard %1 <@m, [{\"x\"}]> : tensor<12xi32>"}));
    }

    void haloSliceExchangesShardedAndSlicesUnshardedDimensions()
    {
        // x=2, y=2; 8x6 sharded [{"x"}, {}]; slice [3:7, 1:5] -> 4x4. Dimension 0: sIn=4, sOut=2,
        // padLow=-3. t=0 reads rows [3,4] (shards 0 and 1: one right hop), t=1 rows [5,6] (its own).
        // Dimension 1 is unsharded: sliced locally [1:5] after the exchange. Shift h=-1 along "x"
        // (stride 2 in the device ids because "y" follows): pairs [[2,0],[3,1]]. Buffer = pad 2 |
        // local 4 | right 4 | pad 2. Shard index along "x": divide(id, 2), remainder(.., 2).
        // diff = 2-4 = -2, base = 3+0+2 = 5: t=0 reads buffer[5..7) = local row 3 and the
        // neighbour's row 0 (global rows 3, 4); t=1 reads buffer[3..5) = its rows 1, 2 (global 5, 6).
        // The slice's padding operand is a new zero constant made before the manual computation.
        const std::string text = R"(sdy.mesh @m = <["x"=2, "y"=2]>
func.func @f(%arg0: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) -> tensor<4x4xf32> {
  %0 = stablehlo.slice %arg0 [3:7, 1:5] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}, {}]>]>} : (tensor<8x6xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
})";
        const std::string out = run(text, {kHalo});
        QVERIFY(inOrder(
            out,
            {"%cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>",
             "sdy.manual_computation(%arg0, %cst) in_shardings=[<@m, [{\"x\"}, {}]>, <@m, []>] out_shardings=[<@m, "
             "[{\"x\"}, {}]>] manual_axes={\"x\"} (%arg1: tensor<4x6xf32>, %arg2: tensor<f32>) {",
             "source_target_pairs = dense<[[2, 0], [3, 1]]> : tensor<2x2xi64>",
             "stablehlo.concatenate %arg1, %1, dim = 0",
             "-> tensor<8x6xf32>",
             "low = [2, 0], high = [2, 0], interior = [0, 0]",
             "-> tensor<12x6xf32>",
             "stablehlo.constant dense<2> : tensor<i64>",
             "stablehlo.divide",
             "stablehlo.constant dense<2> : tensor<i64>",
             "stablehlo.remainder",
             "stablehlo.constant dense<-2> : tensor<i64>",
             "stablehlo.constant dense<5> : tensor<i64>",
             "stablehlo.multiply",
             "stablehlo.add",
             "stablehlo.constant dense<0> : tensor<i64>",
             "stablehlo.maximum",
             "stablehlo.dynamic_slice",
             "sizes = [2, 6]",
             "stablehlo.slice %11 [0:2, 1:5] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {}]>]>} : "
             "(tensor<2x6xf32>) -> tensor<2x4xf32>",
             "sdy.return %12 : tensor<2x4xf32>",
             "} : (tensor<8x6xf32>, tensor<f32>) -> tensor<4x4xf32>"}));
    }

    void haloIsRefusedBeyondTheHopLimit()
    {
        // x=4, 4 elements (1 per device), slice [3:4]: output shard 0 needs input 3, three shards to
        // the right. 0 + 3 + 1 >= 4 with a hop count above 1: the slice is replicated even with halo
        // exchange on (PARTITION.md 4.3).
        const std::string out = run(R"(sdy.mesh @m = <["x"=4]>
func.func @f(%arg0: tensor<4xi32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> tensor<1xi32> {
  %0 = stablehlo.slice %arg0 [3:4] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}]>]>} : (tensor<4xi32>) -> tensor<1xi32>
  return %0 : tensor<1xi32>
})",
                                    {kHalo});
        QVERIFY(inOrder(out, {"sdy.reshard %arg0 <@m, [{}]> : tensor<4xi32>", "stablehlo.slice %0 [3:4]",
                              "sdy.reshard %1 <@m, [{\"x\"}]> : tensor<1xi32>"}));
        QVERIFY2(lacks(out, "manual_computation"), out.c_str());
    }

    void haloReverseOfAnEvenDimensionReversesTheDeviceOrder()
    {
        // a=2, b=2; reverse dims [1] of 4x4 [{"a"}, {"b"}]: 4 divides by 2, so no shift. The mesh
        // with "b" flipped puts at position (a, b) the device of (a, 1-b): ids [1, 0, 3, 2]. It is
        // created at the top of the module as @m_reversed; the reshard back to @m is a
        // collective_permute later.
        const std::string out = run(R"(sdy.mesh @m = <["a"=2, "b"=2]>
func.func @f(%arg0: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {"b"}]>}) -> tensor<4x4xf32> {
  %0 = stablehlo.reverse %arg0, dims = [1] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {"b"}]>]>} : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
})",
                                    {kHalo});
        QVERIFY(
            inOrder(out, {"sdy.mesh @m_reversed = <[\"a\"=2, \"b\"=2], device_ids=[1, 0, 3, 2]>",
                          "sdy.mesh @m = <[\"a\"=2, \"b\"=2]>",
                          "stablehlo.reverse %arg0, dims = [1] {sdy.sharding = #sdy.sharding_per_value<[<@m_reversed, "
                          "[{\"a\"}, {\"b\"}]>]>} : tensor<4x4xf32>",
                          "sdy.reshard %0 <@m, [{\"a\"}, {\"b\"}]> : tensor<4x4xf32>", "return %1"}));
    }

    void haloReverseOfAnUnevenDimensionMovesThePaddingFirst()
    {
        // x=4; reverse of 6 elements [{"x"}]: padded to 8 (2 per device), p = 2 padding elements,
        // s = 2: hops = 1, frac = 0. head = shift by 1 ([[0,1],[1,2],[2,3]]), tail = shift by 2
        // ([[0,2],[1,3]]); tail[2:2] (empty) ++ head[0:2]. Blocks before: d0 [a0 a1] d1 [a2 a3]
        // d2 [a4 a5] d3 [0 0]; after: d0 [0 0] (receives nothing) d1 [a0 a1] d2 [a2 a3] d3 [a4 a5],
        // padding first. Reversing those 8 on the mesh with reversed device order ([3, 2, 1, 0])
        // gives [a5 .. a0, 0, 0]; trimmed to [0:6] that is the reverse of the 6 elements.
        const std::string out = run(R"(sdy.mesh @m = <["x"=4]>
func.func @f(%arg0: tensor<6xi32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> tensor<6xi32> {
  %0 = stablehlo.reverse %arg0, dims = [0] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}]>]>} : tensor<6xi32>
  return %0 : tensor<6xi32>
})",
                                    {kHalo});
        QVERIFY(inOrder(
            out,
            {"sdy.mesh @m_reversed = <[\"x\"=4], device_ids=[3, 2, 1, 0]>",
             "%c = stablehlo.constant dense<0> : tensor<i32>",
             "stablehlo.pad %arg0, %c, low = [0], high = [2], interior = [0] {sdy.sharding = "
             "#sdy.sharding_per_value<[<@m, [{\"x\"}]>]>} : (tensor<6xi32>, tensor<i32>) -> tensor<8xi32>",
             "sdy.manual_computation(%0) in_shardings=[<@m, [{\"x\"}]>] out_shardings=[<@m, [{\"x\"}]>] "
             "manual_axes={\"x\"} (%arg1: tensor<2xi32>) {",
             "source_target_pairs = dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>",
             "source_target_pairs = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>", "stablehlo.slice %6 [2:2]",
             "stablehlo.slice %5 [0:2]", "stablehlo.concatenate %7, %8, dim = 0",
             "} : (tensor<8xi32>) -> tensor<8xi32>",
             "stablehlo.reverse %1, dims = [0] {sdy.sharding = #sdy.sharding_per_value<[<@m_reversed, [{\"x\"}]>]>} "
             ": tensor<8xi32>",
             "sdy.reshard %2 <@m, [{\"x\"}]> : tensor<8xi32>",
             "stablehlo.slice %3 [0:6] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{\"x\"}]>]>} : "
             "(tensor<8xi32>) -> tensor<6xi32>"}));
    }

    void haloOnAMeshWithDeviceIds()
    {
        // b=2, c=2 with device_ids [3, 2, 1, 0]: position p holds device 3-p; c is the minor axis.
        // Pad 8 [{"c"}] low 2 -> 10: sIn 4, sOut 5; shard 1 starts at input 3, in shard 0: one left
        // hop. Shift +1 along "c" pairs positions (b, 0) -> (b, 1): (pos 0, id 3) -> (pos 1, id 2) and
        // (pos 2, id 1) -> (pos 3, id 0), listed in position order: [[3, 2], [1, 0]]. The shard index
        // is read from a table by device id: id 0 is position 3 (c=1), id 1 position 2 (c=0), id 2
        // position 1 (c=1), id 3 position 0 (c=0): [1, 0, 1, 0]. diff = 5-4 = 1, base = -2+4+5 = 7.
        // A reverse of the same value flips "c": position p gets the device at (b, 1-c):
        // [2, 3, 0, 1].
        const std::string out = run(R"(sdy.mesh @mc = <["b"=2, "c"=2], device_ids=[3, 2, 1, 0]>
func.func @f(%arg0: tensor<8xi32> {sdy.sharding = #sdy.sharding<@mc, [{"c"}]>}) -> (tensor<10xi32>, tensor<8xi32>) {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.pad %arg0, %c, low = [2], high = [0], interior = [0] {sdy.sharding = #sdy.sharding_per_value<[<@mc, [{"c"}]>]>} : (tensor<8xi32>, tensor<i32>) -> tensor<10xi32>
  %1 = stablehlo.reverse %arg0, dims = [0] {sdy.sharding = #sdy.sharding_per_value<[<@mc, [{"c"}]>]>} : tensor<8xi32>
  return %0, %1 : tensor<10xi32>, tensor<8xi32>
})",
                                    {kHalo});
        QVERIFY(
            inOrder(out, {"sdy.mesh @mc_reversed = <[\"b\"=2, \"c\"=2], device_ids=[2, 3, 0, 1]>",
                          "source_target_pairs = dense<[[3, 2], [1, 0]]> : tensor<2x2xi64>",
                          "stablehlo.concatenate %3, %arg1, dim = 0", "low = [5], high = [5]",
                          "stablehlo.constant dense<[1, 0, 1, 0]> : tensor<4xi64>", "sizes = [1]", "stablehlo.reshape",
                          "stablehlo.constant dense<1> : tensor<i64>", "stablehlo.constant dense<7> : tensor<i64>",
                          "sizes = [5]", "} : (tensor<8xi32>, tensor<i32>) -> tensor<10xi32>",
                          "stablehlo.reverse %arg0, dims = [0] {sdy.sharding = "
                          "#sdy.sharding_per_value<[<@mc_reversed, [{\"c\"}]>]>}",
                          "sdy.reshard %1 <@mc, [{\"c\"}]> : tensor<8xi32>"}));
    }

    void reshapeThatPlacesElementsAlikeIsLeftAlone()
    {
        // x=4; 9x2 [{"x"}, {}] -> 3x3x2 [{"x"}, {}, {}]. Input tiles: ceil(9/4) = 3 rows of 2, so
        // device t holds flat elements [6t, 6t+6). Output tiles: ceil(3/4) = 1 row of 3x2 = 6, the
        // same [6t, 6t+6): communication-free in both modes, although 9 does not divide by 4.
        const std::string text = R"(sdy.mesh @m = <["x"=4]>
func.func @f(%arg0: tensor<9x2xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) -> tensor<3x3x2xf32> {
  %0 = stablehlo.reshape %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}, {}, {}]>]>} : (tensor<9x2xf32>) -> tensor<3x3x2xf32>
  return %0 : tensor<3x3x2xf32>
})";
        for (const auto& pass : {kHalo, kNoHalo}) {
            const std::string out = run(text, {pass});
            QVERIFY2(lacks(out, "sdy.reshard") && lacks(out, "manual_computation"), out.c_str());
        }
    }

    void reshapeAcrossUnevenDimensionsIsReplicated()
    {
        // x=4; 10x2 [{"x"}, {}] -> 4x5 [{"x"}, {}]. One group (10x2 | 4x5, two non-unit dimensions
        // on each side). Input tiles hold 3 rows = 6 elements, output tiles 1 row = 5: not the same
        // elements. 10 does not divide by 4, the group is neither a split nor a combine: replicated
        // in both modes, "x" removed from both sides.
        const std::string text = R"(sdy.mesh @m = <["x"=4]>
func.func @f(%arg0: tensor<10x2xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) -> tensor<4x5xf32> {
  %0 = stablehlo.reshape %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}, {}]>]>} : (tensor<10x2xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
})";
        for (const auto& pass : {kHalo, kNoHalo}) {
            const std::string out = run(text, {pass});
            QVERIFY(inOrder(out, {"sdy.reshard %arg0 <@m, [{}, {}]> : tensor<10x2xf32>",
                                  "stablehlo.reshape %0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {}]>]>} : "
                                  "(tensor<10x2xf32>) -> tensor<4x5xf32>",
                                  "sdy.reshard %1 <@m, [{\"x\"}, {}]> : tensor<4x5xf32>", "return %2"}));
        }
    }

    void reshapeSplitOfAnUnevenDimensionByHaloExchange()
    {
        // x=2, y=2; 10 [{"x", "y"}] -> 2x5 [{"x"}, {"y"}] (a split). Input: 4 shards of
        // ceil(10/4) = 3, padded to 12. Output: rows 1 per "x" shard, columns ceil(5/2) = 3 per "y"
        // shard, padded to 2x6. Target t = 2*tx + ty starts at flat 5*tx + 3*ty: 0, 3, 5, 8 and
        // reads 3 elements: sources 0, 1, 1, 2; last elements 2, 5, 7, 10 (past the data) in shards
        // 0, 1, 2, -. One left hop: pairs along ["x", "y"] [[0,1],[1,2],[2,3]]; buffer = pad 3 |
        // left 3 | local 3 | pad 3. Offsets sOut + (1 + src - t)*3 + (start - 3*src):
        // 3+3+0 = 6, 3+3+0 = 6, 3+0+2 = 5, 3+0+2 = 5. E.g. t=2 reads buffer[5..8) = element 2 of
        // shard 1 (flat 5) then its own 0, 1 (flat 6, 7): row 1, columns 0..2. Local result 1x3.
        const std::string text = R"(sdy.mesh @m = <["x"=2, "y"=2]>
func.func @f(%arg0: tensor<10xi32> {sdy.sharding = #sdy.sharding<@m, [{"x", "y"}]>}) -> tensor<2x5xi32> {
  %0 = stablehlo.reshape %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}, {"y"}]>]>} : (tensor<10xi32>) -> tensor<2x5xi32>
  return %0 : tensor<2x5xi32>
})";
        const std::string out = run(text, {kHalo});
        QVERIFY(inOrder(
            out,
            {"stablehlo.pad %arg0, %c_0, low = [0], high = [2], interior = [0] {sdy.sharding = "
             "#sdy.sharding_per_value<[<@m, [{\"x\", \"y\"}]>]>} : (tensor<10xi32>, tensor<i32>) -> tensor<12xi32>",
             "sdy.manual_computation(%0, %c) in_shardings=[<@m, [{\"x\", \"y\"}]>, <@m, []>] out_shardings=[<@m, "
             "[{\"x\"}, {\"y\"}]>] manual_axes={\"x\", \"y\"} (%arg1: tensor<3xi32>, %arg2: tensor<i32>) {",
             "source_target_pairs = dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>",
             "stablehlo.concatenate %3, %arg1, dim = 0",
             "low = [3], high = [3], interior = [0]",
             "stablehlo.partition_id",
             "stablehlo.divide",
             "stablehlo.remainder",
             "stablehlo.remainder",
             "stablehlo.multiply",
             "stablehlo.add",
             "stablehlo.constant dense<[6, 6, 5, 5]> : tensor<4xi64>",
             "stablehlo.dynamic_slice",
             "sizes = [1]",
             "stablehlo.reshape",
             "stablehlo.constant dense<0> : tensor<i64>",
             "stablehlo.dynamic_slice",
             "sizes = [3]",
             "stablehlo.reshape",
             "{sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {}]>]>} : (tensor<3xi32>) -> "
             "tensor<1x3xi32>",
             "sdy.return",
             "} : (tensor<12xi32>, tensor<i32>) -> tensor<2x6xi32>",
             "stablehlo.slice %1 [0:2, 0:5] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{\"x\"}, {\"y\"}]>]>} : "
             "(tensor<2x6xi32>) -> tensor<2x5xi32>"}));
        // Without halo exchange: both axes leave the uneven split group.
        const std::string repl = run(text, {kNoHalo});
        QVERIFY(inOrder(repl, {"sdy.reshard %arg0 <@m, [{}]> : tensor<10xi32>",
                               "stablehlo.reshape %0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {}]>]>}",
                               "sdy.reshard %1 <@m, [{\"x\"}, {\"y\"}]> : tensor<2x5xi32>"}));
    }

    void theSharedPaddedTypeRoundsUpShardedDimensions()
    {
        // LocalOps' padded type: each dimension rounded up to a multiple of its shard count
        // (7 over x=4 -> 8; 6 over "y"=2 stays; 5 unsharded stays).
        const Mesh mesh({{"x", 4}, {"y", 2}});
        TensorSharding s;
        s.mesh.symbol = "m";
        s.dims.resize(3);
        s.dims[0].axes = {AxisRef("x")};
        s.dims[1].axes = {AxisRef("y")};
        const ir::Type t = ir::Type::tensor({7, 6, 5}, "f32");
        QCOMPARE(partition::paddedType(t, &s, &mesh).toString(), std::string("tensor<8x6x5xf32>"));
        QCOMPARE(partition::paddedType(t, nullptr, &mesh).toString(), std::string("tensor<7x6x5xf32>"));
    }

    void gatherFromAShardedIndexedDimensionMasksOtherPieces()
    {
        // PARTITION.md 7.9.7 by hand. x=2; operand 8x4 sharded [{"x"}, {}]: device d holds rows
        // [4d, 4d+4). The gather reads whole rows (slice 1x4) at 3 row indices, so dimension 0 is
        // a trivial dim and R = {"x"}. Each index is clamped to [0, 7]; on device d it is local when
        // 4d <= i <= 4d+3 (offset table [0, 4], max = offset + 3) and becomes i - 4d. The mask per
        // index vector (across index_vector_dim 1) picks the rows of the gather kept; the others are
        // zero, and the all_reduce over "x" adds the two devices' rows.
        const std::string out = run(R"(sdy.mesh @m = <["x"=2]>
func.func @f(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}, %arg1: tensor<3x1xi64>) -> tensor<3x4xf32> {
  %0 = "stablehlo.gather"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>} : (tensor<8x4xf32>, tensor<3x1xi64>) -> tensor<3x4xf32>
  %1 = sdy.all_reduce {"x"} %0 out_sharding=<@m, [{}, {}]> : tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
})",
                                    {{"sdy-convert-global-to-local", {}}});
        QVERIFY(inOrder(out, {"stablehlo.constant dense<0> : tensor<3x1xi64>",
                              "stablehlo.constant dense<7> : tensor<3x1xi64>", "stablehlo.clamp",
                              "stablehlo.constant dense<[0, 4]> : tensor<2xi64>",
                              "stablehlo.constant dense<3> : tensor<i64>", "stablehlo.add", "stablehlo.subtract", "GE,",
                              "LE,", "stablehlo.and", "(tensor<4x4xf32>, tensor<3x1xi64>) -> tensor<3x4xf32>",
                              "applies stablehlo.and across dimensions = [1] : (tensor<3x1xi1>, tensor<i1>) -> "
                              "tensor<3xi1>",
                              "stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<3xi1>) -> tensor<3x4xi1>",
                              "stablehlo.constant dense<0.000000e+00> : tensor<3x4xf32>",
                              "stablehlo.select %15, %13, %cst", "replica_groups = dense<[[0, 1]]>"}));
    }

    void whileArgumentsTakeTheLoopsLocalType()
    {
        // The loop carries %v sharded [{"x"}, {}] on x=2 (4x2 per device): the operand and the body's result
        // are 4x2, so the cond and body arguments are too. The body's ops were partitioned reading the argument
        // as unsharded: the all_slice to the loop's own sharding takes the local argument as it is, the
        // reverse (which needs the whole value) reads an all-gather of it made at the start of the body.
        const std::string out = run(R"(sdy.mesh @m = <["x"=2]>
func.func @f(%arg0: tensor<8x2xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) -> (tensor<8x2xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c, %v = %arg0) : tensor<i32>, tensor<8x2xf32> attributes {sdy.sharding = #sdy.sharding_per_value<[<@m, []>, <@m, [{"x"}, {}]>]>}
   cond {
    %k = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %i, %k, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %s = sdy.all_slice [{"x"}, {}] %v out_sharding=<@m, [{"x"}, {}]> : tensor<8x2xf32>
    %n = stablehlo.negate %s {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}, {}]>]>} : tensor<8x2xf32>
    %r = stablehlo.reverse %v, dims = [0] : tensor<8x2xf32>
    %t = sdy.all_slice [{"x"}, {}] %r out_sharding=<@m, [{"x"}, {}]> : tensor<8x2xf32>
    %a = stablehlo.add %n, %t {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}, {}]>]>} : tensor<8x2xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %a : tensor<i32>, tensor<8x2xf32>
  }
  return %0#1 : tensor<8x2xf32>
})",
                                    {{"sdy-convert-global-to-local", {}}, {"sdy-drop-sharding-and-mesh", {}}});
        QVERIFY(
            inOrder(out, {"stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<4x2xf32>", "} do {",
                          "%1 = \"stablehlo.all_gather\"(%iterArg_0) <{all_gather_dim = 0 : i64",
                          "(tensor<4x2xf32>) -> tensor<8x2xf32>", "%2 = stablehlo.negate %iterArg_0 : tensor<4x2xf32>",
                          "%3 = stablehlo.reverse %1, dims = [0] : tensor<8x2xf32>",
                          "stablehlo.return %10, %9 : tensor<i32>, tensor<4x2xf32>"}));
        // Only the reversed value is sliced: the slice of the argument to its own sharding is gone.
        size_t slices = 0;
        for (const QString& line : QString::fromStdString(out).split('\n'))
            if (line.contains("stablehlo.dynamic_slice %") && line.endsWith("-> tensor<4x2xf32>"))
                ++slices;
        QCOMPARE(slices, size_t(1));
    }

    void branchResultsAreLaidOutAsTheOpsResults()
    {
        // The if's result is unsharded (propagation gives an if no data-flow edges), its then-branch returns a
        // value sharded [{"x"}, {}]: the branch gathers it, so both branches return the whole 8x2 the if's
        // local type is. The else-branch's all_gather was there already.
        const std::string out = run(R"(sdy.mesh @m = <["x"=2]>
func.func @f(%arg0: tensor<8x2xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}, %p: tensor<i1>, %c: tensor<i32>) -> (tensor<8x2xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) {
  %0 = "stablehlo.if"(%p) ({
    %a = stablehlo.abs %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}, {}]>]>} : tensor<8x2xf32>
    stablehlo.return %a : tensor<8x2xf32>
  }, {
    %g = sdy.all_gather [{"x"}, {}] %arg0 out_sharding=<@m, [{}, {}]> : tensor<8x2xf32>
    stablehlo.return %g : tensor<8x2xf32>
  }) : (tensor<i1>) -> tensor<8x2xf32>
  %1 = "stablehlo.case"(%c) ({
    stablehlo.return %0 : tensor<8x2xf32>
  }) {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}, {}]>]>} : (tensor<i32>) -> tensor<8x2xf32>
  return %1 : tensor<8x2xf32>
})",
                                    {{"sdy-convert-global-to-local", {}}, {"sdy-drop-sharding-and-mesh", {}}});
        QVERIFY(inOrder(out, {"%2 = stablehlo.abs %arg0 : tensor<4x2xf32>",
                              "%3 = \"stablehlo.all_gather\"(%2) <{all_gather_dim = 0 : i64",
                              "stablehlo.return %3 : tensor<8x2xf32>", "\"stablehlo.all_gather\"(%arg0)",
                              "}) : (tensor<i1>) -> tensor<8x2xf32>",
                              // The case's result is sharded, its branch returns the unsharded if: a slice.
                              "stablehlo.dynamic_slice %0, %", "sizes = [4, 2] : (tensor<8x2xf32>",
                              "}) : (tensor<i32>) -> tensor<4x2xf32>"}));
    }

    void inlinedManualComputationKeepsEachSidesView()
    {
        // PARTITION.md 7.8.4 and 7.9.3-7.9.4 by hand. x=2; %arg0 8x2 sharded [{"x"}, {}] is 4x2 per
        // device. Inside the manual computation over "x" the argument's sharding is in_shardings
        // minus "x" = [{}, {}], so concatenating it with itself along 0 is allowed (nothing is
        // sharded there) and stays 4x2 + 4x2 -> 8x2. Outside, the result (global 16x2) is
        // [{"x"}, {}] by out_shardings, which the slice's result shares: dimension 0 is sharded
        // alike and taken whole (0:16 -> 0:8 locally), dimension 1 unsharded keeps 0:1. Neither
        // check may read the other side's sharding of the value that replaces the argument or the
        // result once the body is inlined.
        const std::string out = run(R"(sdy.mesh @m = <["x"=2]>
func.func @f(%arg0: tensor<8x2xi32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) -> (tensor<16x1xi32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@m, [{"x"}, {}]>] out_shardings=[<@m, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<4x2xi32>) {
    %2 = stablehlo.concatenate %arg1, %arg1, dim = 0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {}]>]>} : (tensor<4x2xi32>, tensor<4x2xi32>) -> tensor<8x2xi32>
    sdy.return %2 : tensor<8x2xi32>
  } : (tensor<8x2xi32>) -> tensor<16x2xi32>
  %1 = stablehlo.slice %0 [0:16, 0:1] {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}, {}]>]>} : (tensor<16x2xi32>) -> tensor<16x1xi32>
  return %1 : tensor<16x1xi32>
})",
                                    {{"sdy-convert-global-to-local", {}}, {"sdy-drop-sharding-and-mesh", {}}});
        QVERIFY(inOrder(out, {"func.func @f(%arg0: tensor<4x2xi32>) -> tensor<8x1xi32> {",
                              "%0 = stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<4x2xi32>, tensor<4x2xi32>) "
                              "-> tensor<8x2xi32>",
                              "%1 = stablehlo.slice %0 [0:8, 0:1] : (tensor<8x2xi32>) -> tensor<8x1xi32>",
                              "return %1 : tensor<8x1xi32>"}));
    }
};

QTEST_GUILESS_MAIN(TestPartitionPasses)
#include "tst_partitionpasses.moc"
