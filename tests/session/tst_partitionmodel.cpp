// Session::partition: the collectives of partitioned programs, their replica groups, bytes and
// causes, derived by hand in the comments.
#include <QtTest>
#include <set>

#include <nlohmann/json.hpp>

#include "core/session/Session.h"
#include "tests/TestSupport.h"

using namespace shardx;

namespace {

using testing::has;

/// Opens `text`, propagates it with the whole pipeline (recording the trace when `record`) and
/// partitions it.
Expected<PartitionModel> partitionOf(const std::string& text, const PartitionOptions& options = {}, bool record = false)
{
    Session s;
    if (!s.openText(text, "test.mlir"))
        return Error{"open: " + s.diagnostics().formatAll(), {}};
    PropagationRequest r;
    r.record = record;
    if (!s.propagate(r).ok)
        return Error{"propagate failed", {}};
    return s.partition(options);
}

/// FSDP: x 64x16 and the weight 16x32 both sharded on their first dimension over "fsdp"=4.
const char* const kFsdp = R"(sdy.mesh @mesh = <["fsdp"=4]>
func.func @main(%x: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>},
                %w: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>})
    -> (tensor<64x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>}) {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<64x16xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
})";

/// Opens samples/NAME, propagates it with the whole pipeline (recording the trace when `record`)
/// and partitions it.
Expected<PartitionModel> partitionSample(const std::string& name, bool record = false)
{
    Session s;
    if (!s.open(std::string(SHARDX_SOURCE_DIR) + "/samples/" + name))
        return Error{"open: " + s.diagnostics().formatAll(), {}};
    PropagationRequest r;
    r.record = record;
    if (!s.propagate(r).ok)
        return Error{"propagate failed", {}};
    return s.partition();
}

std::string groups(const std::vector<std::vector<int64_t>>& g)
{
    std::string s;
    for (const auto& group : g) {
        s += "[";
        for (size_t i = 0; i < group.size(); ++i)
            s += (i ? "," : "") + std::to_string(group[i]);
        s += "]";
    }
    return s;
}

} // namespace

class TestPartitionModel : public QObject {
    Q_OBJECT

private slots:
    void mlpSampleHasOneAllReduce()
    {
        // samples/mlp_dp_tp.mlir: x 16x64 on "data"=2, W1 [{}, {"model"}], W2 [{"model"}, {}] on
        // "model"=4. The first layer needs nothing; the second contracts over "model", so every
        // device holds a partial 8x64 f32 sum (16/2 rows, 64 columns): 2,048 bytes. A ring
        // all-reduce over groups of 4 sends 2(4-1)/4 of it: 3,072 bytes per device.
        Expected<PartitionModel> m = partitionSample("mlp_dp_tp.mlir");
        QVERIFY2(m, m ? "" : m.error().message.c_str());
        QCOMPARE(m->collectives.size(), size_t(1));
        const CollectiveInfo& c = m->collectives.front();
        QCOMPARE(c.kind, std::string("all-reduce"));
        QCOMPARE(c.axes.size(), size_t(1));
        QCOMPARE(c.axes.front().toString(), std::string("\"model\""));
        // Devices sharing "data" coordinate d form a group: [0..3] and [4..7].
        QCOMPARE(groups(c.replicaGroups), std::string("[0,1,2,3][4,5,6,7]"));
        QCOMPARE(c.shapeBefore, (std::vector<int64_t>{8, 64}));
        QCOMPARE(c.payloadBytesPerDevice, int64_t(2048));
        QCOMPARE(c.bytesSentPerDevice, int64_t(3072));
        QCOMPARE(c.bytesReceivedPerDevice, int64_t(3072));
        QCOMPARE(c.opName, std::string("stablehlo.dot_general"));
        QVERIFY2(has(c.cause, "partial"), c.cause.c_str());
        QCOMPARE(m->devices.size(), size_t(8));
        QVERIFY(m->local);
    }

    void fsdpGathersTheWeight()
    {
        // FSDP: x 64x16 and the weight 16x32 are both sharded on their first dimension over
        // "fsdp"=4, so the axis is wanted both by x's batch and by the contraction. x (1,024
        // elements) is the larger tensor, so its batch keeps the axis and the weight's contracting
        // dimension must be whole on every device: the weight is all-gathered. Local piece 4x32 f32
        // = 512 bytes; each device receives the three other pieces: (4-1) x 512 = 1,536 bytes.
        Expected<PartitionModel> m = partitionOf(kFsdp);
        QVERIFY2(m, m ? "" : m.error().message.c_str());
        QCOMPARE(m->collectives.size(), size_t(1));
        const CollectiveInfo& c = m->collectives.front();
        QCOMPARE(c.kind, std::string("all-gather"));
        QCOMPARE(groups(c.replicaGroups), std::string("[0,1,2,3]"));
        QCOMPARE(c.shapeBefore, (std::vector<int64_t>{4, 32}));
        QCOMPARE(c.shapeAfter, (std::vector<int64_t>{16, 32}));
        QCOMPARE(c.payloadBytesPerDevice, int64_t(512));
        QCOMPARE(c.bytesSentPerDevice, int64_t(1536));
        QCOMPARE(c.op, std::string("%0"));
        QVERIFY2(has(c.cause, "operand 1 of %0"), c.cause.c_str());
    }

    void smallBatchMovesTheActivations()
    {
        // The same with x 8x16 (128 elements), smaller than the weight (512): now the weight keeps
        // "fsdp" on the contraction. x is moved from rows to columns by an all-to-all (local 2x16
        // f32 = 128 bytes, (4-1)/4 of it sent: 96 bytes), the dot gives partial 8x32 sums that are
        // all-reduced (1,024 bytes, 2(4-1)/4 x 1,024 = 1,536 sent), and the result is sliced back
        // to rows for the return (no communication).
        Expected<PartitionModel> m = partitionOf(R"(sdy.mesh @mesh = <["fsdp"=4]>
func.func @main(%x: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>},
                %w: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>})
    -> (tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>}) {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
})");
        QVERIFY2(m, m ? "" : m.error().message.c_str());
        QCOMPARE(m->collectives.size(), size_t(3));
        QCOMPARE(m->collectives[0].kind, std::string("all-to-all"));
        QCOMPARE(m->collectives[0].payloadBytesPerDevice, int64_t(128));
        QCOMPARE(m->collectives[0].bytesSentPerDevice, int64_t(96));
        QCOMPARE(m->collectives[1].kind, std::string("all-reduce"));
        QCOMPARE(m->collectives[1].payloadBytesPerDevice, int64_t(1024));
        QCOMPARE(m->collectives[1].bytesSentPerDevice, int64_t(1536));
        QCOMPARE(m->collectives[2].kind, std::string("all-slice"));
        QCOMPARE(m->collectives[2].bytesSentPerDevice, int64_t(0));
        QVERIFY2(has(m->collectives[2].cause, "the function returns"), m->collectives[2].cause.c_str());
        QCOMPARE(m->bytesSentPerDevice, int64_t(96 + 1536));
    }

    void megatronMlpReducesOnce()
    {
        // Megatron MLP on "tp"=2: W1 column-sharded, W2 row-sharded. h = x.W1 is sharded on its
        // columns, y = h.W2 contracts over "tp": one all-reduce of the 4x8 f32 output (128 bytes),
        // 2(2-1)/2 x 128 = 128 bytes sent per device, between devices 0 and 1.
        Expected<PartitionModel> m = partitionOf(R"(sdy.mesh @mesh = <["tp"=2]>
func.func @main(%x: tensor<4x8xf32>,
                %w1: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"tp"}]>},
                %w2: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"tp"}, {}]>}) -> tensor<4x8xf32> {
  %0 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = stablehlo.dot_general %0, %w2, contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
})");
        QVERIFY2(m, m ? "" : m.error().message.c_str());
        QCOMPARE(m->collectives.size(), size_t(1));
        const CollectiveInfo& c = m->collectives.front();
        QCOMPARE(c.kind, std::string("all-reduce"));
        QCOMPARE(groups(c.replicaGroups), std::string("[0,1]"));
        QCOMPARE(c.payloadBytesPerDevice, int64_t(128));
        QCOMPARE(c.bytesSentPerDevice, int64_t(128));
        QCOMPARE(c.op, std::string("%1"));
    }

    void mlpSampleListsEachDevicesShards()
    {
        // Device 5 sits at ("data" 1, "model" 1) of the 2x4 mesh: it holds rows 8..16 of x
        // (16 rows / 2), columns 64..128 of W1 (256 / 4 = 64 per device), the same slice of b1 and
        // rows 64..128 of W2; b2 is replicated; the 16x64 result is row-sharded like x.
        Expected<PartitionModel> m = partitionSample("mlp_dp_tp.mlir");
        QVERIFY(m);
        const DeviceInfo& d = m->devices[5];
        QCOMPARE(d.id, int64_t(5));
        QCOMPARE(d.coords, (std::vector<int64_t>{1, 1}));
        std::string all;
        for (const TensorShardInfo& t : d.shards)
            all += t.name + " " + t.slice + "\n";
        QCOMPARE(all, std::string("%arg0 [8:16, 0:64]\n%arg1 [0:64, 64:128]\n%arg2 [64:128]\n%arg3 [64:128, 0:64]\n"
                                  "%arg4 [0:64]\nresult 0 [8:16, 0:64]\n"));
        QCOMPARE(d.shards[1].localShape, (std::vector<int64_t>{64, 64}));
        QCOMPARE(d.shards[1].ranges[1], (std::pair<int64_t, int64_t>{64, 128}));
        const nlohmann::json j = partitionJson(*m);
        QCOMPARE(j["devices"][5]["shards"][1]["ranges"].dump(), std::string("[[0,64],[64,128]]"));
        // Every tensor of the program, when asked.
        PartitionOptions all_;
        all_.shards = ShardListing::All;
        Session s;
        QVERIFY(s.open(std::string(SHARDX_SOURCE_DIR) + "/samples/mlp_dp_tp.mlir"));
        QVERIFY(s.propagate(PropagationRequest{}).ok);
        Expected<PartitionModel> every = s.partition(all_);
        QVERIFY(every);
        QVERIFY(every->devices[5].shards.size() > d.shards.size());
    }

    // Every function has its own %arg0 and results: a tensor of a function other than @main is named with the
    // function in front, so that no two tensors of a device share a name.
    void tensorsOfOtherFunctionsNameTheirFunction()
    {
        Expected<PartitionModel> m = partitionSample("mlp_bf16.mlir");
        QVERIFY(m);
        const DeviceInfo& d = m->devices[1];
        std::set<std::string> names;
        std::string all;
        for (const TensorShardInfo& t : d.shards) {
            QVERIFY2(names.insert(t.name).second, t.name.c_str());
            all += t.name + " " + t.slice + "\n";
        }
        QCOMPARE(all,
                 std::string("%arg0 [0:8, 0:256]\n%arg1 [0:256, 128:256]\n%arg2 [128:256]\n%arg3 [128:256, 0:128]\n"
                             "result 0 [0:8, 0:128]\n@relu:%arg0 [0:8, 128:256]\n@relu:result 0 [0:8, 128:256]\n"));
    }

    void unevenShardsShowTheirPadding()
    {
        // The constraint shards 10 rows on "x"=4: shards of ceil(10/4) = 3 rows: [0:3], [3:6],
        // [6:9], [9:10] with two rows of padding on the last device (2 rows x 4 columns = 8
        // padding elements). The function's own input and output stay whole.
        PartitionOptions o;
        o.shards = ShardListing::All;
        Expected<PartitionModel> m = partitionOf(R"(sdy.mesh @mesh = <["x"=4]>
func.func @main(%a: tensor<10x4xf32>) -> tensor<10x4xf32> {
  %0 = stablehlo.negate %a : tensor<10x4xf32>
  %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}, {}]> : tensor<10x4xf32>
  %2 = stablehlo.abs %1 : tensor<10x4xf32>
  return %2 : tensor<10x4xf32>
})",
                                                 o);
        QVERIFY2(m, m ? "" : m.error().message.c_str());
        std::string device3;
        for (const TensorShardInfo& t : m->devices[3].shards)
            device3 += t.name + " " + t.slice + "; ";
        QCOMPARE(device3, std::string("%a [0:10, 0:4]; %0 [9:10 (+2 padding), 0:4]; %1 [9:10 (+2 padding), 0:4]; "
                                      "%2 [9:10 (+2 padding), 0:4]; result 0 [0:10, 0:4]; "));
        QCOMPARE(m->devices[3].shards[1].paddingElements, int64_t(8));
        QCOMPARE(m->devices[3].shards[1].localShape, (std::vector<int64_t>{3, 4}));
        QCOMPARE(m->devices[1].shards[1].ranges[0], (std::pair<int64_t, int64_t>{3, 6}));
        QCOMPARE(m->devices[1].shards[1].paddingElements, int64_t(0));
    }

    void causeSidesComeFromTheTrace()
    {
        // samples/mlp_dp_tp.mlir's all-reduce: %6 contracts %5 (sharded [{"data"}, {"model"}] by
        // the sharding constraint %5 itself) with W2; its result's "data" came from the function's
        // result annotation through propagation steps, the latest of which is the cause step.
        Expected<PartitionModel> m = partitionSample("mlp_dp_tp.mlir", true);
        QVERIFY(m);
        const CollectiveInfo& c = m->collectives.front();
        QCOMPARE(c.fromSide.name, std::string("%5"));
        QCOMPARE(c.fromSide.sharding, std::string("<@mesh, [{\"data\"}, {\"model\"}]>"));
        QCOMPARE(c.fromSide.origins, (std::vector<std::string>{"%5"}));
        QCOMPARE(c.toSide.name, std::string("%6"));
        QVERIFY(!c.toSide.steps.empty());
        QCOMPARE(c.causeStep, c.toSide.steps.back());
        QVERIFY(c.opIndex >= 0);
        const nlohmann::json j = partitionJson(*m);
        QCOMPARE(j["collectives"][0]["cause_step"].get<int>(), c.causeStep);
        QCOMPARE(j["collectives"][0]["cause_from"]["value"].get<std::string>(), std::string("%5"));
        // Without a trace there are no steps.
        Expected<PartitionModel> plain = partitionSample("mlp_dp_tp.mlir", false);
        QVERIFY(plain);
        QCOMPARE(plain->collectives.front().causeStep, -1);
    }

    void sequenceShardedAttentionGathersKeysAndValues()
    {
        // Sequence-sharded attention on "seq"=4: q, k, v are 16x8 f32 sharded on their sequence
        // dimension. scores = q.k^T is [s, t]; s keeps "seq" from q, so t (k's rows) cannot use it
        // too: k is all-gathered. Local k piece 4x8 f32 = 128 bytes; each device receives the three
        // others: (4-1) x 128 = 384 bytes. out = e.v contracts t; e has "seq" on s, so v's rows
        // (t) are all-gathered the same way: 128 bytes of payload, 384 sent. Both over the whole
        // mesh: replica group [0,1,2,3].
        Expected<PartitionModel> m = partitionOf(R"(sdy.mesh @mesh = <["seq"=4]>
func.func @main(%q: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"seq"}, {}]>},
                %k: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"seq"}, {}]>},
                %v: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"seq"}, {}]>})
    -> (tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"seq"}, {}]>}) {
  %s = stablehlo.dot_general %q, %k, contracting_dims = [1] x [1] : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x16xf32>
  %e = stablehlo.exponential %s : tensor<16x16xf32>
  %o = stablehlo.dot_general %e, %v, contracting_dims = [1] x [0] : (tensor<16x16xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  return %o : tensor<16x8xf32>
})",
                                                 {}, true);
        QVERIFY2(m, m ? "" : m.error().message.c_str());
        QCOMPARE(m->collectives.size(), size_t(2));
        for (size_t i = 0; i < 2; ++i) {
            const CollectiveInfo& c = m->collectives[i];
            QCOMPARE(c.kind, std::string("all-gather"));
            QCOMPARE(groups(c.replicaGroups), std::string("[0,1,2,3]"));
            QCOMPARE(c.shapeBefore, (std::vector<int64_t>{4, 8}));
            QCOMPARE(c.shapeAfter, (std::vector<int64_t>{16, 8}));
            QCOMPARE(c.payloadBytesPerDevice, int64_t(128));
            QCOMPARE(c.bytesSentPerDevice, int64_t(384));
        }
        QCOMPARE(m->collectives[0].op, std::string("%s"));
        QCOMPARE(m->collectives[0].fromSide.name, std::string("%k"));
        QCOMPARE(m->collectives[1].op, std::string("%o"));
        QCOMPARE(m->collectives[1].fromSide.name, std::string("%v"));
        QCOMPARE(m->bytesSentPerDevice, int64_t(768));
    }

    void permuteListsItsDevicePairs()
    {
        // %a is row-sharded on "x", %b on "y" (mesh 2x2: device d at (d/2, d%2)). The add takes
        // %b's sharding for %a: device 1 holds rows 0..32 of %a but needs rows 32..64 (its "y"
        // coordinate is 1), which device 2 holds, and the other way round; devices 0 and 3
        // already hold what they need. So the permute's pairs are 1->2 and 2->1.
        Expected<PartitionModel> m = partitionOf(R"(sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%a: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %b: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}) -> tensor<64x16xf32> {
  %0 = stablehlo.add %a, %b : tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
})");
        QVERIFY(m);
        QVERIFY(!m->collectives.empty());
        QCOMPARE(m->collectives[0].kind, std::string("collective-permute"));
        QCOMPARE(groups(m->collectives[0].replicaGroups), std::string("[1,2][2,1]"));
        // 32x16 f32 = 2,048 bytes move.
        QCOMPARE(m->collectives[0].bytesSentPerDevice, int64_t(2048));
    }

    void shardMapListsTheCollectivesItWrites()
    {
        // tests/exec/data/shard_map_matmul.mlir: a JAX shard_map over "data"=2 x "model"=4 whose body holds
        // 8x8 f32 partial products summed by a psum: stablehlo.all_reduce with mesh-axes replica groups over
        // "model". Nothing is inserted by the partitioner; the psum runs as written: groups of "model" on the
        // iota mesh are {0,1,2,3} and {4,5,6,7}; payload 8*8*4 = 256 bytes; a ring all-reduce of 4 sends
        // 2*(4-1)/4 of it: 384 bytes.
        Session s;
        QVERIFY(s.open(std::string(SHARDX_SOURCE_DIR) + "/tests/exec/data/shard_map_matmul.mlir"));
        QVERIFY(s.propagate(PropagationRequest{}).ok);
        Expected<PartitionModel> m = s.partition();
        QVERIFY2(m, m ? "" : m.error().message.c_str());
        QCOMPARE(m->collectives.size(), size_t(1));
        const CollectiveInfo& c = m->collectives[0];
        QCOMPARE(c.kind, std::string("all-reduce"));
        QCOMPARE(c.opName, std::string("stablehlo.all_reduce"));
        QCOMPARE(groups(c.replicaGroups), std::string("[0,1,2,3][4,5,6,7]"));
        QCOMPARE(c.axes.size(), size_t(1));
        QCOMPARE(c.axes[0].name, std::string("model"));
        QCOMPARE(c.payloadBytesPerDevice, int64_t(256));
        QCOMPARE(c.bytesSentPerDevice, int64_t(384));
        QVERIFY2(c.cause.find("shard_map") != std::string::npos, c.cause.c_str());
        QCOMPARE(c.position.line, 10);
    }

    void costModelUsesTheSlowestAxis()
    {
        // The all-gather of the FSDP case: 3 ring steps of 2 us plus 1,536 bytes at 1 GB/s.
        PartitionOptions o;
        o.cost.perAxis["fsdp"] = AxisLink{2e-6, 1e9};
        Expected<PartitionModel> m = partitionOf(kFsdp, o);
        QVERIFY(m);
        QVERIFY(qAbs(m->collectives.front().seconds - (3 * 2e-6 + 1536 / 1e9)) < 1e-12);
        QVERIFY(qAbs(m->seconds - m->collectives.front().seconds) < 1e-15);
    }

    void jsonHasTheDocumentedFields()
    {
        Expected<PartitionModel> m = partitionSample("mlp_dp_tp.mlir");
        QVERIFY(m);
        const nlohmann::json j = partitionJson(*m);
        QCOMPARE(j["format"].get<std::string>(), std::string("shardx-partition"));
        QCOMPARE(j["version"].get<int>(), 1);
        QCOMPARE(j["devices"].size(), size_t(8));
        const nlohmann::json& c = j["collectives"][0];
        QCOMPARE(c["kind"].get<std::string>(), std::string("all-reduce"));
        QCOMPARE(c["axes"][0].get<std::string>(), std::string("model"));
        QCOMPARE(c["payload_bytes_per_device"].get<int64_t>(), int64_t(2048));
        QCOMPARE(c["bytes_sent_per_device"].get<int64_t>(), int64_t(3072));
        QCOMPARE(c["bytes_received_per_device"].get<int64_t>(), int64_t(3072));
        QVERIFY(c["replica_groups"].is_array() && c["op"].is_string() && c["cause"].is_string());
        QVERIFY(j["replicated"].is_array());
    }

    void whyReplicatedNamesEachReason_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("reason");
        const char* mesh = "sdy.mesh @mesh = <[\"x\"=4]>\n";
        // %0's result is closed and empty: nothing may be added to it.
        QTest::newRow("closed dimension")
            << QString(mesh) +
                   R"(func.func @main(%a: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<64x16xf32> {
  %0 = stablehlo.negate %a {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<64x16xf32>
  %1 = stablehlo.abs %0 : tensor<64x16xf32>
  return %1 : tensor<64x16xf32>
})"
            << "%0"
            << "closed";
        // %0 says "x" is replicated on purpose.
        QTest::newRow("explicitly replicated axis")
            << QString(mesh) +
                   R"(func.func @main(%a: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<64x16xf32> {
  %0 = stablehlo.negate %a {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{?}, {?}], replicated={"x"}>]>} : tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
})"
            << "%0"
            << "explicitly replicated";
        // A custom call without a sharding rule stops propagation.
        QTest::newRow("rule-less custom call")
            << QString(mesh) +
                   R"(func.func @main(%a: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<64x16xf32> {
  %0 = stablehlo.custom_call @my_kernel(%a) : (tensor<64x16xf32>) -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
})"
            << "%0"
            << "no sharding rule";
        // 3 rows cannot be split 4 ways evenly: the export pipeline drops "x" from the argument.
        QTest::newRow("non-divisible dimension")
            << QString(mesh) +
                   R"(func.func @main(%a: tensor<3x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<3x8xf32> {
  %0 = stablehlo.negate %a : tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
})"
            << "%a"
            << "not divisible";
        // Two operands offer different axes for one factor: neither wins.
        QTest::newRow("conflict at a step") << QString(R"(sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%a: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %b: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}) -> tensor<64x16xf32> {
  %0 = stablehlo.add %a, %b : tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
})") << "%0"
                                            << "disagree on that factor";
        // "x" shards the contracted dimension of both operands: the dot's result has no factor
        // that could take it.
        QTest::newRow("axis on a contracted factor")
            << QString(mesh) +
                   R"(func.func @main(%a: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %b: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<16x16xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
})"
            << "%0"
            << "no step ever offered it";
    }

    // A value in the body of a manual computation over every axis (JAX's shard_map) is one device's piece:
    // never listed as replicated, while the same all-reduce outside one is.
    void manualValuesAreNotReplicated()
    {
        const std::string text = R"(sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%a: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<16x8xf32> {
  %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x", "y"} (%l: tensor<8x4xf32>) {
    %1 = "stablehlo.all_gather"(%l) <{all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>}> : (tensor<8x4xf32>) -> tensor<8x8xf32>
    %2 = stablehlo.abs %1 : tensor<8x8xf32>
    sdy.return %2 : tensor<8x8xf32>
  } : (tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
})";
        Session s;
        QVERIFY2(s.openText(text, "test.mlir"), s.diagnostics().formatAll().c_str());
        QVERIFY(s.propagate(PropagationRequest{}).ok);
        Expected<std::vector<ReplicatedTensor>> list = s.replicatedTensors();
        QVERIFY(list);
        for (const ReplicatedTensor& r : *list)
            QVERIFY2(r.displayName != "%1" && r.displayName != "%2", (r.displayName + " " + r.sharding).c_str());
    }

    void whyReplicatedNamesEachReason()
    {
        QFETCH(QString, text);
        QFETCH(QString, value);
        QFETCH(QString, reason);
        Session s;
        QVERIFY2(s.openText(text.toStdString(), "test.mlir"), s.diagnostics().formatAll().c_str());
        QVERIFY(s.propagate(PropagationRequest{}).ok);
        Expected<std::vector<ReplicatedTensor>> list = s.replicatedTensors();
        QVERIFY(list);
        std::string all;
        const ReplicatedTensor* found = nullptr;
        for (const ReplicatedTensor& r : *list) {
            all += r.displayName + ":";
            for (const std::string& why : r.reasons)
                all += " " + why;
            all += "\n";
            if (r.displayName == value.toStdString())
                found = &r;
        }
        QVERIFY2(found, all.c_str());
        // 64x16 f32 = 4,096 bytes held whole by each of 4 devices: 3,072 more than an even split.
        if (found->shards == 1)
            QCOMPARE(found->extraBytesPerDevice, int64_t(found->bytes - found->bytes / 4));
        std::string reasons;
        for (const std::string& why : found->reasons)
            reasons += why + "\n";
        QVERIFY2(has(reasons, reason.toStdString()), all.c_str());
        QVERIFY(!found->reasons.empty());
    }

    void aReplicatedProgramNeedsNothing()
    {
        Expected<PartitionModel> m = partitionOf(R"(sdy.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %a : tensor<4xf32>
  return %0 : tensor<4xf32>
})");
        QVERIFY(m);
        QVERIFY(m->collectives.empty());
        // Argument and result live together: 2 x 16 bytes.
        QCOMPARE(m->devices.front().peakLiveBytes, int64_t(32));
        QVERIFY(has(partitionText(*m), "no collectives"));
    }
};

QTEST_GUILESS_MAIN(TestPartitionModel)
#include "tst_partitionmodel.moc"
