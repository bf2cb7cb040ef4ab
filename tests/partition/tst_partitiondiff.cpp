// diffPartitions: two partitions of one program compared, with the expected changes derived by
// hand in the comments.
#include <QtTest>

#include <fstream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/partition/PartitionDiff.h"
#include "core/session/Session.h"
#include "tests/TestSupport.h"

using namespace shardx;

namespace {

using testing::has;

/// One side: a session with the program propagated (recording, for "why replicated?") and
/// partitioned.
struct Side {
    Session session;
    Expected<PartitionModel> model = Error{"not partitioned", {}};
    std::vector<ReplicatedTensor> replicated;
    std::string error;

    bool prepare(const std::string& text, const std::string& strategy)
    {
        if (!session.openText(text, "test.mlir")) {
            error = "open: " + session.diagnostics().formatAll();
            return false;
        }
        PropagationRequest r;
        r.strategy = strategy;
        if (!session.propagate(r).ok) {
            error = "propagate failed";
            return false;
        }
        model = session.partition();
        if (!model) {
            error = model.error().message;
            return false;
        }
        if (Expected<std::vector<ReplicatedTensor>> list = session.replicatedTensors())
            replicated = *list;
        return true;
    }

    PartitionDiffSide side(const std::string& label) const
    {
        PartitionDiffSide s;
        s.label = label;
        s.propagated = session.module();
        s.ids = session.ids();
        s.model = &*model;
        s.replicated = replicated;
        return s;
    }
};

/// Partitions `a` with `strategyA` and `b` with `strategyB` and compares them; `error` says what
/// failed.
std::optional<PartitionDiff> diffOf(const std::string& a, const std::string& b, std::string& error,
                                    const std::string& strategyA = "pipeline",
                                    const std::string& strategyB = "pipeline")
{
    auto x = std::make_unique<Side>(), y = std::make_unique<Side>();
    if (!x->prepare(a, strategyA)) {
        error = "A: " + x->error;
        return std::nullopt;
    }
    if (!y->prepare(b, strategyB)) {
        error = "B: " + y->error;
        return std::nullopt;
    }
    return diffPartitions(x->side("A"), y->side("B"));
}

std::string readSample(const std::string& name)
{
    std::ifstream f(std::string(SHARDX_SOURCE_DIR) + "/samples/" + name);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

/// `text` with the one occurrence of `from` replaced by `to` (empty when `from` is not there once).
std::string replaceOnce(const std::string& text, const std::string& from, const std::string& to)
{
    const size_t at = text.find(from);
    if (at == std::string::npos || text.find(from, at + 1) != std::string::npos)
        return {};
    return text.substr(0, at) + to + text.substr(at + from.size());
}

/// samples/mlp_dp_tp.mlir with W2 (`%arg3`, 256x64) replicated instead of `[{"model"}, {}]`.
std::string mlpWithReplicatedW2()
{
    return replaceOnce(readSample("mlp_dp_tp.mlir"),
                       R"(%arg3: tensor<256x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})",
                       R"(%arg3: tensor<256x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})");
}

/// FSDP: x 64x16 and the weight 16x32 both sharded on their first dimension over "fsdp"=4.
const char* const kFsdp = R"(sdy.mesh @mesh = <["fsdp"=4]>
func.func @main(%x: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>},
                %w: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>})
    -> (tensor<64x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>}) {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<64x16xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
})";

/// Data parallel: the same program with the weight replicated.
const char* const kDataParallel = R"(sdy.mesh @mesh = <["fsdp"=4]>
func.func @main(%x: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>},
                %w: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})
    -> (tensor<64x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>}) {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<64x16xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
})";

const TensorShardingChange* findChange(const PartitionDiff& d, const std::string& name)
{
    for (const TensorShardingChange& c : d.shardingChanges)
        if (c.name == name)
            return &c;
    return nullptr;
}

} // namespace

class TestPartitionDiff : public QObject {
    Q_OBJECT

private slots:
    void identicalProgramsHaveNoDifferences()
    {
        // The same file on both sides: every tensor matches by id with the same sharding, the one
        // all-reduce of tst_partitionmodel's mlp test (3,072 B sent per device) is on both sides.
        std::string error;
        const std::string mlp = readSample("mlp_dp_tp.mlir");
        std::optional<PartitionDiff> d = diffOf(mlp, mlp, error);
        QVERIFY2(d, error.c_str());
        QVERIFY(d->sameStructure);
        QVERIFY(d->identical());
        QVERIFY(d->shardingChanges.empty());
        QVERIFY(d->removed.empty() && d->added.empty() && d->changed.empty());
        QCOMPARE(d->unchangedCollectives, size_t(1));
        QCOMPARE(d->bytesSentPerDeviceA, int64_t(3072));
        QCOMPARE(d->bytesSentPerDeviceB, int64_t(3072));
        // 5 arguments, the 10 op results (%0..%8 and %cst; the pipeline's import stands a copy,
        // %3.copy, in for the broadcast of the constant, on both sides) and 1 function result.
        QCOMPARE(d->matchedValues, size_t(16));
        const std::string text = partitionDiffText(*d);
        QVERIFY(has(text, "no differences: both partitions run the same 1 collectives (3072 B sent per device)"));
        const nlohmann::json j = partitionDiffJson(*d);
        QCOMPARE(j["format"].get<std::string>(), std::string("shardx-partition-diff"));
        QCOMPARE(j["version"].get<int>(), 1);
        QCOMPARE(j["identical"].get<bool>(), true);
        QCOMPARE(j["bytes_sent_per_device"]["delta"].get<int64_t>(), int64_t(0));
    }

    void replicatingW2AddsAnAllSlice()
    {
        // A: samples/mlp_dp_tp.mlir. B: the same with W2 (%arg3, 256x64 f32) replicated instead of
        // [{"model"}, {}].
        // Tensors: only %arg3 changes. Its shard is 256/4 x 64 x 4 B = 16,384 B in A, the whole
        // 256 x 64 x 4 B = 65,536 B in B. Every other value keeps its sharding: %5 is pinned to
        // [{"data"}, {"model"}] by the constraint and W2's closed, empty annotation offers nothing.
        // Collectives: at %6 = dot(%5, W2) the factors are i (rows, "data" on %5 and %6), k (the
        // contraction, "model" on %5, nothing on W2) and j. The explicit-reshard heuristic takes
        // each candidate in turn by the size of the tensors that already have it; i="data" and
        // k="model" do not overlap, so both stay: nothing is all-gathered. W2 must then be cut
        // along k on "model": an all-slice (each device keeps its 64 rows; its payload is the local
        // operand, all of W2, 65,536 B; nothing is sent). The partial sums are all-reduced exactly
        // as in A (8x64 f32 = 2,048 B, 3,072 B sent): unchanged. Bytes sent per device: 3,072 on
        // both sides.
        // Peak live memory per device: A's peak is at its first op, %0 = dot(x, W1): the five
        // arguments (x 8x64 = 2,048, W1 64x64 = 16,384, b1 64 = 256, W2 64x64 = 16,384, b2 64 =
        // 256) plus %0 (8x64 = 2,048): 37,376 B. B holds the whole of W2 there: 49,152 B more,
        // 86,528 B (the 64x64 slice made later is smaller than x and W1, freed by then).
        std::string error;
        const std::string w2 = mlpWithReplicatedW2();
        QVERIFY(!w2.empty());
        std::optional<PartitionDiff> d = diffOf(readSample("mlp_dp_tp.mlir"), w2, error);
        QVERIFY2(d, error.c_str());
        QVERIFY(d->sameStructure);
        QVERIFY(!d->identical());
        QCOMPARE(d->shardingChanges.size(), size_t(1));
        const TensorShardingChange* c = findChange(*d, "%arg3");
        QVERIFY(c);
        QCOMPARE(c->id, std::string("@main:%arg3"));
        QCOMPARE(c->shardingA, std::string(R"(<@mesh, [{"model"}, {}]>)"));
        QCOMPARE(c->shardingB, std::string("<@mesh, [{}, {}]>"));
        QCOMPARE(c->bytesPerDeviceA, int64_t(16384));
        QCOMPARE(c->bytesPerDeviceB, int64_t(65536));
        QVERIFY(d->removed.empty());
        QVERIFY(d->changed.empty());
        QCOMPARE(d->unchangedCollectives, size_t(1));
        QCOMPARE(d->added.size(), size_t(1));
        const CollectiveInfo& slice = d->added.front().info;
        QCOMPARE(slice.kind, std::string("all-slice"));
        QCOMPARE(slice.axes.front().toString(), std::string("\"model\""));
        QCOMPARE(d->added.front().opId, std::string("@main:%6"));
        QCOMPARE(slice.payloadBytesPerDevice, int64_t(65536));
        QCOMPARE(slice.bytesSentPerDevice, int64_t(0));
        QCOMPARE(d->bytesSentPerDeviceA, int64_t(3072));
        QCOMPARE(d->bytesSentPerDeviceB, int64_t(3072));
        QCOMPARE(d->peakLiveBytesA, int64_t(37376));
        QCOMPARE(d->peakLiveBytesB, int64_t(86528));
        const std::string text = partitionDiffText(*d);
        QVERIFY(has(
            text,
            R"(%arg3 tensor<256x64xf32>: <@mesh, [{"model"}, {}]> -> <@mesh, [{}, {}]>, 16384 -> 65536 B per device)"));
        QVERIFY(has(text, "collectives: 1 -> 2 (0 removed, 1 added, 0 changed, 1 unchanged)"));
        QVERIFY(has(text, R"(+ all-slice over {"model"} (groups of 4) for %6 (stablehlo.dot_general) at line 11)"));
        QVERIFY(has(text, "peak live memory: 37376 -> 86528 B (+49152 B)"));
        const nlohmann::json j = partitionDiffJson(*d);
        QCOMPARE(j["identical"].get<bool>(), false);
        QCOMPARE(j["sharding_changes"][0]["value"].get<std::string>(), std::string("%arg3"));
        QCOMPARE(j["sharding_changes"][0]["bytes_per_device_b"].get<int64_t>(), int64_t(65536));
        QCOMPARE(j["collectives"]["added"][0]["kind"].get<std::string>(), std::string("all-slice"));
        QCOMPARE(j["collectives"]["unchanged"].get<int>(), 1);
        QCOMPARE(j["peak_live_bytes_per_device"]["delta"].get<int64_t>(), int64_t(49152));
    }

    void fsdpAgainstDataParallel()
    {
        // A: FSDP, x 64x16 and w 16x32 both on "fsdp"=4 (tst_partitionmodel: x keeps the axis on
        // its batch, w is all-gathered for the contraction: 4x32 f32 = 512 B payload, 3 x 512 =
        // 1,536 B sent). B: data parallel, w replicated: no collective at all.
        // Tensors: w's shard 4x32 x 4 B = 512 B -> 16x32 x 4 B = 2,048 B; x and the result keep
        // [{"fsdp"}, {}].
        // Peak live memory: A at the dot: x 16x16 (1,024 B) + gathered w 16x32 (2,048) + the result
        // 16x32 (2,048) = 5,120 B (w's 512 B shard dies at the all-gather). B at the dot: x 1,024 +
        // w 2,048 + result 2,048 = 5,120 B. The same: FSDP saves memory between uses of a weight,
        // not at the op that needs it whole.
        // Why replicated: B's w ends with 1 of 4 pieces: 2,048 - 2,048/4 = 1,536 B more per device
        // than an even split (gained).
        std::string error;
        std::optional<PartitionDiff> d = diffOf(kFsdp, kDataParallel, error);
        QVERIFY2(d, error.c_str());
        QVERIFY(d->sameStructure);
        QCOMPARE(d->shardingChanges.size(), size_t(1));
        const TensorShardingChange* w = findChange(*d, "%w");
        QVERIFY(w);
        QCOMPARE(w->bytesPerDeviceA, int64_t(512));
        QCOMPARE(w->bytesPerDeviceB, int64_t(2048));
        QCOMPARE(d->removed.size(), size_t(1));
        QCOMPARE(d->removed.front().info.kind, std::string("all-gather"));
        QCOMPARE(d->removed.front().opId, std::string("@main:%0"));
        QCOMPARE(d->removed.front().info.bytesSentPerDevice, int64_t(1536));
        QVERIFY(d->added.empty() && d->changed.empty());
        QCOMPARE(d->unchangedCollectives, size_t(0));
        QCOMPARE(d->bytesSentPerDeviceA, int64_t(1536));
        QCOMPARE(d->bytesSentPerDeviceB, int64_t(0));
        QCOMPARE(d->peakLiveBytesA, int64_t(5120));
        QCOMPARE(d->peakLiveBytesB, int64_t(5120));
        QCOMPARE(d->replicatedGained.size(), size_t(1));
        QCOMPARE(d->replicatedGained.front().displayName, std::string("%w"));
        QCOMPARE(d->replicatedGained.front().extraBytesPerDevice, int64_t(1536));
        QVERIFY(d->replicatedLost.empty());
        const std::string text = partitionDiffText(*d);
        QVERIFY(has(text, "bytes sent:       1536 -> 0 B (-1536 B)"));
        QVERIFY(has(text, R"(- all-gather over {"fsdp"} (groups of 4) for %0 (stablehlo.dot_general) at line 5)"));
        QVERIFY(has(text, "why replicated: 1 gained, 0 lost"));
    }

    void basicAgainstAggressiveOnOneFile()
    {
        // One file, two strategies. x 32x16 is sharded on "y"=4 along its rows (factor i of the
        // dot), w 16x256 along its columns (factor j): both factors of %0 want "y", which can
        // shard only one of them. Basic propagation keeps neither: %0, %1 (tanh) and the result
        // stay unsharded (32x256 f32 = 32,768 B on every device). Aggressive propagation gives
        // "y" to the factor of the larger tensor, w (4,096 elements against x's 512): %0, %1 and
        // the result become [{?}, {"y", ?}], 32x64 f32 = 8,192 B per device.
        // Collectives: on both sides the dot computes with j on "y" (the reshard heuristic also
        // prefers w's larger sharding) after all-gathering x (8x16 f32 = 512 B, 3 x 512 = 1,536 B
        // sent): unchanged. With basic, tanh needs its operand whole: the 32x64 result is
        // all-gathered (8,192 B payload, 3 x 8,192 = 24,576 B sent); aggressive has no such
        // collective. Bytes sent: 26,112 -> 1,536 B.
        // Peak live memory: basic at the tanh, the gathered 32x256 operand and the 32x256 result:
        // 65,536 B. Aggressive at the tanh: 8,192 + 8,192 = 16,384 B (earlier, at the dot: w 16x64
        // 4,096 + gathered x 2,048 + the dot's 8,192 = 14,336 B).
        const std::string text = R"(sdy.mesh @mesh = <["y"=4]>
func.func @main(%x: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>},
                %w: tensor<16x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) -> tensor<32x256xf32> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<32x16xf32>, tensor<16x256xf32>) -> tensor<32x256xf32>
  %1 = stablehlo.tanh %0 : tensor<32x256xf32>
  return %1 : tensor<32x256xf32>
})";
        std::string error;
        std::optional<PartitionDiff> d = diffOf(text, text, error, "basic", "aggressive");
        QVERIFY2(d, error.c_str());
        QVERIFY(d->sameStructure);
        QCOMPARE(d->matchedValues, size_t(5)); // %x, %w, %0, %1, result 0
        QCOMPARE(d->shardingChanges.size(), size_t(3));
        QCOMPARE(d->shardingChanges[0].name, std::string("%0"));
        QCOMPARE(d->shardingChanges[1].name, std::string("%1"));
        QCOMPARE(d->shardingChanges[2].name, std::string("result 0"));
        for (const TensorShardingChange& c : d->shardingChanges) {
            QCOMPARE(c.shardingA, std::string("<no sharding>"));
            QCOMPARE(c.bytesPerDeviceA, int64_t(32768));
            QCOMPARE(c.bytesPerDeviceB, int64_t(8192));
        }
        QCOMPARE(d->removed.size(), size_t(1));
        QCOMPARE(d->removed.front().info.kind, std::string("all-gather"));
        QCOMPARE(d->removed.front().opId, std::string("@main:%1"));
        QCOMPARE(d->removed.front().info.bytesSentPerDevice, int64_t(24576));
        QVERIFY(d->added.empty() && d->changed.empty());
        QCOMPARE(d->unchangedCollectives, size_t(1));
        QCOMPARE(d->bytesSentPerDeviceA, int64_t(26112));
        QCOMPARE(d->bytesSentPerDeviceB, int64_t(1536));
        QCOMPARE(d->peakLiveBytesA, int64_t(65536));
        QCOMPARE(d->peakLiveBytesB, int64_t(16384));
        // Why replicated: basic's %0 ends whole although x offered "y" for its rows (lost).
        QCOMPARE(d->replicatedLost.size(), size_t(1));
        QCOMPARE(d->replicatedLost.front().displayName, std::string("%0"));
    }

    void differentProgramsCompareTheirInterface()
    {
        // B applies one more op (a tanh) before returning: the programs differ, so only the five
        // arguments and the result are matched, by position; nothing about them changed and the
        // one all-reduce is found on both sides (its op %6 has the same id and op name).
        std::string error;
        const std::string mlp = readSample("mlp_dp_tp.mlir");
        const std::string extra = replaceOnce(mlp, "    return %8 : tensor<16x64xf32> loc(#loc)",
                                              "    %9 = stablehlo.tanh %8 : tensor<16x64xf32> loc(#loc17)\n"
                                              "    return %9 : tensor<16x64xf32> loc(#loc)");
        QVERIFY(!extra.empty());
        std::optional<PartitionDiff> d = diffOf(mlp, extra, error);
        QVERIFY2(d, error.c_str());
        QVERIFY(!d->sameStructure);
        QVERIFY(!d->identical());
        QCOMPARE(d->matchedValues, size_t(6));
        QVERIFY(d->shardingChanges.empty());
        QCOMPARE(d->unchangedCollectives, size_t(1));
        std::string all;
        for (const std::string& s : d->structure)
            all += s + "\n";
        QVERIFY(has(all, "@main:%9 is only in B"));
        QVERIFY(has(all, "A has 13, B has 14"));
        QVERIFY(has(partitionDiffText(*d), "A and B DIFFER IN STRUCTURE"));

        // Another function name and one argument fewer: nothing matches, and that is said.
        const std::string other = R"(sdy.mesh @mesh = <["fsdp"=4]>
func.func @f(%x: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>}) -> tensor<64x16xf32> {
  return %x : tensor<64x16xf32>
})";
        d = diffOf(kFsdp, other, error);
        QVERIFY2(d, error.c_str());
        QVERIFY(!d->sameStructure);
        QCOMPARE(d->matchedValues, size_t(0));
        all.clear();
        for (const std::string& s : d->structure)
            all += s + "\n";
        QVERIFY(has(all, "function @main is only in A"));
        QVERIFY(has(all, "function @f is only in B"));
        QCOMPARE(d->removed.size(), size_t(1)); // A's all-gather; B has none
    }

    void aSideWithoutAProgramIsReportedNotDereferenced()
    {
        PartitionDiffSide empty;
        empty.label = "nothing";
        const PartitionDiff d = diffPartitions(empty, empty);
        QVERIFY(!d.sameStructure);
        QVERIFY(!d.identical());
        QVERIFY(has(partitionDiffText(d), "no program or no partition"));
    }
};

QTEST_APPLESS_MAIN(TestPartitionDiff)
#include "tst_partitiondiff.moc"
