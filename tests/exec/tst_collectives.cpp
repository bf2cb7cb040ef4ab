// ReferenceExecutor's grids: run_parallel layout, every StableHLO collective on 2- and 4-process grids
// (expected values worked out by hand), group formation by channel and ids, checks and deadlocks.
#include <QtTest>

#include "tests/exec/ExecTestSupport.h"

using namespace shardx;
using namespace shardx::testing;

namespace {

/// Runs a grid of `programs` (by name) on `args`; the results, or empty with a warning.
std::vector<exec::Tensor> runGrid(const std::string& text, const std::vector<std::vector<std::string>>& programs,
                                  const std::vector<exec::Tensor>& args)
{
    auto m = parseProgram(text);
    if (!m)
        return {};
    exec::ReferenceExecutor ex;
    auto r = ex.runParallel(*m, programs, args);
    if (!r) {
        qWarning("run failed: %s", r.error().format().c_str());
        return {};
    }
    return *r;
}

exec::Tensor i32(std::vector<int64_t> shape, const std::vector<double>& v)
{
    return tensorOf("i32", std::move(shape), v);
}

} // namespace

class TestCollectives : public QObject {
    Q_OBJECT

private slots:
    void runParallelLaysOutTheGrid()
    {
        // Each process returns replica * 10 + partition + its argument; 2x2 grid, arguments 100..103
        // in grid order: (0,0) 100, (0,1) 1 + 101, (1,0) 10 + 102, (1,1) 11 + 103.
        const char* text = R"(
func.func @f(%a: tensor<i32>) -> tensor<i32> {
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  %ri = stablehlo.convert %r : (tensor<ui32>) -> tensor<i32>
  %pi = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>
  %ten = stablehlo.constant dense<10> : tensor<i32>
  %0 = stablehlo.multiply %ri, %ten : tensor<i32>
  %1 = stablehlo.add %0, %pi : tensor<i32>
  %2 = stablehlo.add %1, %a : tensor<i32>
  return %2 : tensor<i32>
})";
        auto r =
            runGrid(text, {{"f", "f"}, {"f", "f"}}, {i32({}, {100}), i32({}, {101}), i32({}, {102}), i32({}, {103})});
        QCOMPARE(r.size(), size_t(4));
        QCOMPARE(r[0].getInt(0), int64_t(100));
        QCOMPARE(r[1].getInt(0), int64_t(102));
        QCOMPARE(r[2].getInt(0), int64_t(112));
        QCOMPARE(r[3].getInt(0), int64_t(114));
    }

    void allGather()
    {
        // Global ids, group [0, 1]: [0, 1] and [10, 11] gathered on dim 0 in group order.
        const char* two = R"(
func.func @f(%a: tensor<2xi32>) -> tensor<4xi32> {
  %0 = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<2xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
})";
        auto r = runGrid(two, {{"f", "f"}}, {i32({2}, {0, 1}), i32({2}, {10, 11})});
        QCOMPARE(r.size(), size_t(2));
        QCOMPARE(valuesOf(r[0]), (Values{0, 1, 10, 11}));
        QCOMPARE(valuesOf(r[1]), (Values{0, 1, 10, 11}));
        // Four processes, groups [3, 1] and [0, 2] (the listed order, not sorted): processes 1 and 3
        // get [3's, 1's] = [3, 1], processes 0 and 2 get [0, 2].
        const char* four = R"(
func.func @f(%a: tensor<1xi32>) -> tensor<2xi32> {
  %0 = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[3, 1], [0, 2]]> : tensor<2x2xi64>, use_global_device_ids}> : (tensor<1xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
})";
        r = runGrid(four, {{"f", "f", "f", "f"}}, {i32({1}, {0}), i32({1}, {1}), i32({1}, {2}), i32({1}, {3})});
        QCOMPARE(r.size(), size_t(4));
        QCOMPARE(valuesOf(r[0]), (Values{0, 2}));
        QCOMPARE(valuesOf(r[1]), (Values{3, 1}));
        QCOMPARE(valuesOf(r[2]), (Values{0, 2}));
        QCOMPARE(valuesOf(r[3]), (Values{3, 1}));
    }

    void allReduce()
    {
        const char* body = R"(
func.func @f(%a: tensor<2xi32>) -> tensor<2xi32> {
  %0 = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = GROUPS, use_global_device_ids}> ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %s = stablehlo.add %x, %y : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
})";
        auto withGroups = [&](const std::string& groups) {
            std::string t = body;
            t.replace(t.find("GROUPS"), 6, groups);
            return t;
        };
        // Two processes: [1, 2] + [10, 20] = [11, 22] on both.
        auto r = runGrid(withGroups("dense<[[0, 1]]> : tensor<1x2xi64>"), {{"f", "f"}},
                         {i32({2}, {1, 2}), i32({2}, {10, 20})});
        QCOMPARE(r.size(), size_t(2));
        QCOMPARE(valuesOf(r[0]), (Values{11, 22}));
        QCOMPARE(valuesOf(r[1]), (Values{11, 22}));
        // Four processes in groups [0, 1] and [2, 3], process p brings [p, 1]: [1, 2] and [5, 2].
        r = runGrid(withGroups("dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>"), {{"f", "f", "f", "f"}},
                    {i32({2}, {0, 1}), i32({2}, {1, 1}), i32({2}, {2, 1}), i32({2}, {3, 1})});
        QCOMPARE(r.size(), size_t(4));
        QCOMPARE(valuesOf(r[0]), (Values{1, 2}));
        QCOMPARE(valuesOf(r[1]), (Values{1, 2}));
        QCOMPARE(valuesOf(r[2]), (Values{5, 2}));
        QCOMPARE(valuesOf(r[3]), (Values{5, 2}));
    }

    void allReduceFoldsInIncreasingProcessOrder()
    {
        // f32, processes 0: 1e8, 1: -1e8, 2: 1 in one group listed [2, 1, 0]. In increasing process
        // order: (1e8 + -1e8) + 1 = 1. In the listed order it would be (1 + -1e8) + 1e8 = 0, since
        // 1 - 1e8 rounds to -1e8 in f32 (spacing 8 there).
        const char* text = R"(
func.func @f(%a: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[2, 1, 0]]> : tensor<1x3xi64>, use_global_device_ids}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
})";
        auto r = runGrid(text, {{"f", "f", "f"}},
                         {tensorOf("f32", {}, {1e8}), tensorOf("f32", {}, {-1e8}), tensorOf("f32", {}, {1})});
        QCOMPARE(r.size(), size_t(3));
        for (const auto& t : r)
            QCOMPARE(t.getFloat(0), 1.0);
    }

    void reduceScatter()
    {
        // Two processes: [1,2,3,4] + [10,20,30,40] = [11,22,33,44]; process k keeps block k of 2.
        const char* text = R"(
func.func @f(%a: tensor<4xi32>) -> tensor<SIZExi32> {
  %0 = "stablehlo.reduce_scatter"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = GROUPS, scatter_dimension = 0 : i64, use_global_device_ids}> ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %s = stablehlo.add %x, %y : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) : (tensor<4xi32>) -> tensor<SIZExi32>
  return %0 : tensor<SIZExi32>
})";
        auto make = [&](const std::string& groups, const std::string& size) {
            std::string t = text;
            t.replace(t.find("GROUPS"), 6, groups);
            for (size_t at; (at = t.find("SIZE")) != std::string::npos;)
                t.replace(at, 4, size);
            return t;
        };
        auto r = runGrid(make("dense<[[0, 1]]> : tensor<1x2xi64>", "2"), {{"f", "f"}},
                         {i32({4}, {1, 2, 3, 4}), i32({4}, {10, 20, 30, 40})});
        QCOMPARE(r.size(), size_t(2));
        QCOMPARE(valuesOf(r[0]), (Values{11, 22}));
        QCOMPARE(valuesOf(r[1]), (Values{33, 44}));
        // Four processes, each [1,2,3,4] * (p+1): the sum is [10,20,30,40]; process k keeps element k.
        r = runGrid(
            make("dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>", "1"), {{"f", "f", "f", "f"}},
            {i32({4}, {1, 2, 3, 4}), i32({4}, {2, 4, 6, 8}), i32({4}, {3, 6, 9, 12}), i32({4}, {4, 8, 12, 16})});
        QCOMPARE(r.size(), size_t(4));
        for (int k = 0; k < 4; ++k)
            QCOMPARE(valuesOf(r[static_cast<size_t>(k)]), (Values{10.0 * (k + 1)}));
    }

    void allToAll()
    {
        // Two processes, [0, 1] and [10, 11], split dim 0 in 2, concat dim 0: process k gets block k of
        // each sender in increasing order: 0 -> [0, 10], 1 -> [1, 11].
        const char* two = R"(
func.func @f(%a: tensor<2xi32>) -> tensor<2xi32> {
  %0 = "stablehlo.all_to_all"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
})";
        auto r = runGrid(two, {{"f", "f"}}, {i32({2}, {0, 1}), i32({2}, {10, 11})});
        QCOMPARE(r.size(), size_t(2));
        QCOMPARE(valuesOf(r[0]), (Values{0, 10}));
        QCOMPARE(valuesOf(r[1]), (Values{1, 11}));
        // Four processes, process p brings [4p, 4p+1, 4p+2, 4p+3] as 1x4, split dim 1, concat dim 0:
        // process k gets column k of every sender: [[k], [4+k], [8+k], [12+k]].
        const char* four = R"(
func.func @f(%a: tensor<1x4xi32>) -> tensor<4x1xi32> {
  %0 = "stablehlo.all_to_all"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, split_count = 4 : i64, split_dimension = 1 : i64}> : (tensor<1x4xi32>) -> tensor<4x1xi32>
  return %0 : tensor<4x1xi32>
})";
        std::vector<exec::Tensor> args;
        for (int p = 0; p < 4; ++p)
            args.push_back(i32({1, 4}, {4.0 * p, 4.0 * p + 1, 4.0 * p + 2, 4.0 * p + 3}));
        r = runGrid(four, {{"f", "f", "f", "f"}}, args);
        QCOMPARE(r.size(), size_t(4));
        for (int k = 0; k < 4; ++k)
            QCOMPARE(valuesOf(r[static_cast<size_t>(k)]), (Values{double(k), 4.0 + k, 8.0 + k, 12.0 + k}));
    }

    void collectivePermute()
    {
        // Two processes swap: 0 -> 1, 1 -> 0.
        const char* two = R"(
func.func @f(%a: tensor<1xi32>) -> tensor<1xi32> {
  %0 = "stablehlo.collective_permute"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<1xi32>) -> tensor<1xi32>
  return %0 : tensor<1xi32>
})";
        auto r = runGrid(two, {{"f", "f"}}, {i32({1}, {5}), i32({1}, {7})});
        QCOMPARE(r.size(), size_t(2));
        QCOMPARE(valuesOf(r[0]), (Values{7}));
        QCOMPARE(valuesOf(r[1]), (Values{5}));
        // Four processes shift right without wrapping: process 0 is no target and gets zeros.
        const char* four = R"(
func.func @f(%a: tensor<1xi32>) -> tensor<1xi32> {
  %0 = "stablehlo.collective_permute"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>}> : (tensor<1xi32>) -> tensor<1xi32>
  return %0 : tensor<1xi32>
})";
        r = runGrid(four, {{"f", "f", "f", "f"}}, {i32({1}, {1}), i32({1}, {2}), i32({1}, {3}), i32({1}, {4})});
        QCOMPARE(r.size(), size_t(4));
        QCOMPARE(valuesOf(r[0]), (Values{0}));
        QCOMPARE(valuesOf(r[1]), (Values{1}));
        QCOMPARE(valuesOf(r[2]), (Values{2}));
        QCOMPARE(valuesOf(r[3]), (Values{3}));
    }

    void collectiveBroadcast()
    {
        // Groups [1, 0] and [2, 3] of partitions: the first listed sends: processes 0, 1 get 1's
        // operand (11), processes 2, 3 get 2's (12).
        const char* text = R"(
func.func @f(%a: tensor<i32>) -> tensor<i32> {
  %0 = "stablehlo.collective_broadcast"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[1, 0], [2, 3]]> : tensor<2x2xi64>}> : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
})";
        auto r = runGrid(text, {{"f", "f", "f", "f"}}, {i32({}, {10}), i32({}, {11}), i32({}, {12}), i32({}, {13})});
        QCOMPARE(r.size(), size_t(4));
        QCOMPARE(r[0].getInt(0), int64_t(11));
        QCOMPARE(r[1].getInt(0), int64_t(11));
        QCOMPARE(r[2].getInt(0), int64_t(12));
        QCOMPARE(r[3].getInt(0), int64_t(12));
    }

    void channelZeroGroupsReplicasWithinEachPartition()
    {
        // 2x2 grid, all_reduce without channel or global ids: ids are replica ids, one group per
        // partition. Process (r, p) brings 10r + p: partition 0 sums 0 + 10, partition 1 sums 1 + 11.
        const char* text = R"(
func.func @f(%a: tensor<i32>) -> tensor<i32> {
  %0 = "stablehlo.all_reduce"(%a) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %s = stablehlo.add %x, %y : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
})";
        auto r = runGrid(text, {{"f", "f"}, {"f", "f"}}, {i32({}, {0}), i32({}, {1}), i32({}, {10}), i32({}, {11})});
        QCOMPARE(r.size(), size_t(4));
        QCOMPARE(r[0].getInt(0), int64_t(10));
        QCOMPARE(r[1].getInt(0), int64_t(12));
        QCOMPARE(r[2].getInt(0), int64_t(10));
        QCOMPARE(r[3].getInt(0), int64_t(12));
        // With a channel but no global ids, the group takes those replicas in every partition: all four,
        // 0 + 1 + 10 + 11 = 22.
        std::string withChannel = text;
        withChannel.replace(withChannel.find("<{replica_groups"), 16,
                            "<{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups");
        r = runGrid(withChannel, {{"f", "f"}, {"f", "f"}}, {i32({}, {0}), i32({}, {1}), i32({}, {10}), i32({}, {11})});
        QCOMPARE(r.size(), size_t(4));
        for (const auto& t : r)
            QCOMPARE(t.getInt(0), int64_t(22));
    }

    void interpretRunsMainWithChecks()
    {
        // A grid of two adds its operands with an all_reduce: 3 + 4 = 7 on both; the second check is
        // wrong on purpose and must fail at its own line (15) and column (3).
        const char* text = "func.func @sum(%a: tensor<i32>) -> tensor<i32> {\n"
                           "  %0 = \"stablehlo.all_reduce\"(%a) <{replica_groups = dense<[[0, 1]]> : "
                           "tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, "
                           "use_global_device_ids}> ({\n"
                           "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
                           "    %s = stablehlo.add %x, %y : tensor<i32>\n"
                           "    stablehlo.return %s : tensor<i32>\n"
                           "  }) : (tensor<i32>) -> tensor<i32>\n"
                           "  return %0 : tensor<i32>\n"
                           "}\n"
                           "func.func @main() {\n"
                           "  %a = stablehlo.constant dense<3> : tensor<i32>\n"
                           "  %b = stablehlo.constant dense<4> : tensor<i32>\n"
                           "  %e = stablehlo.constant dense<7> : tensor<i32>\n"
                           "  %r:2 = \"interpreter.run_parallel\"(%a, %b) {programs = [[@sum, @sum]]} : "
                           "(tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)\n"
                           "  check.expect_eq %r#0, %e : tensor<i32>\n"
                           "  \"check.expect_eq\"(%r#1, %a) : (tensor<i32>, tensor<i32>) -> ()\n"
                           "  return\n"
                           "}\n";
        auto m = parseProgram(text);
        QVERIFY(m);
        exec::ReferenceExecutor ex;
        auto report = ex.interpret(*m);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().format().c_str());
        QCOMPARE(report->checksRun, int64_t(2));
        QCOMPARE(report->failures.size(), size_t(1));
        const Diagnostic& d = report->failures[0];
        QCOMPARE(d.pos.line, 15);
        QCOMPARE(d.pos.col, 3);
        QVERIFY(has(d.format(), "test.mlir:15:3: error:"));
        QVERIFY(has(d.message, "7 vs 3"));
    }

    void aCollectiveNoPeerReachesIsADeadlockError()
    {
        // @lonely's all_reduce waits for process 1, which runs @idle and never comes: an error, no hang.
        const char* text = R"(
func.func @lonely(%a: tensor<i32>) -> tensor<i32> {
  %0 = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %s = stablehlo.add %x, %y : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
func.func @idle(%a: tensor<i32>) -> tensor<i32> {
  return %a : tensor<i32>
})";
        auto m = parseProgram(text);
        QVERIFY(m);
        exec::ReferenceExecutor ex;
        auto r = ex.runParallel(*m, {{"lonely", "idle"}}, {i32({}, {1}), i32({}, {2})});
        QVERIFY(!r);
        QVERIFY(has(r.error().message, "deadlock"));
        QVERIFY(has(r.error().message, "in process (replica 0, partition 0)"));
        QVERIFY(has(r.error().format(), "test.mlir:3:"));
    }

    void aFailingProcessReleasesItsPeers()
    {
        // Process 1 fails before the collective (an unsupported op); process 0's wait ends with an error.
        const char* text = R"(
func.func @good(%a: tensor<i32>) -> tensor<i32> {
  %0 = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %s = stablehlo.add %x, %y : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
func.func @bad(%a: tensor<i32>) -> tensor<i32> {
  %0 = "stablehlo.no_such_op"(%a) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
})";
        auto m = parseProgram(text);
        QVERIFY(m);
        exec::ReferenceExecutor ex;
        auto r = ex.runParallel(*m, {{"good", "bad"}}, {i32({}, {1}), i32({}, {2})});
        QVERIFY(!r);
        // The cause is reported (process 1's op), not process 0's released wait, whatever the timing.
        QVERIFY(has(r.error().format(), "stablehlo.no_such_op"));
        QVERIFY(has(r.error().format(), "test.mlir:11:"));
        QVERIFY(has(r.error().message, "in process (replica 0, partition 1)"));
    }
};

QTEST_APPLESS_MAIN(TestCollectives)
#include "tst_collectives.moc"
