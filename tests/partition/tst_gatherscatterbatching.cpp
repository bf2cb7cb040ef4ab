// -sdy-explicit-gather-scatter-batching (PARTITION.md 11) on hand-worked cases: which gathers and
// scatters count as implicitly batched, the indices left once the iota component is dropped, and
// the new dimension numbers.
#include <QtTest>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/passes/PassRegistry.h"
#include "tests/TestSupport.h"

using namespace shardx;

namespace {

using testing::has;

/// `text` after -sdy-explicit-gather-scatter-batching, printed (or the diagnostics).
std::string batched(const std::string& text)
{
    DiagnosticList diags;
    auto module = io::parseMlir(text, "test.mlir", diags);
    if (!module)
        return "<parse error> " + diags.formatAll();
    const PassInfo* info = findPass("sdy-explicit-gather-scatter-batching");
    if (!info)
        return "<no pass>";
    if (!info->run(*module, PassOptions{}, diags))
        return "<failed> " + diags.formatAll();
    return io::printModule(*module);
}

/// The printed module of `text` without running anything (what "left alone" compares with).
std::string printed(const std::string& text)
{
    DiagnosticList diags;
    auto module = io::parseMlir(text, "test.mlir", diags);
    return module ? io::printModule(*module) : "<parse error> " + diags.formatAll();
}

bool lacks(const std::string& text, const std::string& needle) { return text.find(needle) == std::string::npos; }

/// A gather of `operand` (type `operandType`) at `indices` (built by `indexOps`), with dimension
/// numbers `dims` and slice sizes `sizes`, returning `resultType`.
std::string gatherFunc(const std::string& args, const std::string& indexOps, const std::string& dims,
                       const std::string& sizes, const std::string& operandType, const std::string& indicesType,
                       const std::string& resultType)
{
    return "func.func @f(" + args + ") -> " + resultType + " {\n" + indexOps +
           "  %r = \"stablehlo.gather\"(%op, %idx) {\n" + "    dimension_numbers = #stablehlo.gather<" + dims + ">,\n" +
           "    slice_sizes = array<i64: " + sizes + ">, indices_are_sorted = false\n" + "  } : (" + operandType +
           ", " + indicesType + ") -> " + resultType + "\n  return %r : " + resultType + "\n}";
}

} // namespace

class TestGatherScatterBatching : public QObject {
    Q_OBJECT

private slots:
    void iotaLastInATwoWayConcatenateLeavesTheOtherInput()
    {
        // Row r of the result reads op[r, a[r]]: indices = [a | iota], start_index_map = [1, 0], so
        // component k = 1 (the position of 0) addresses operand dimension 0 and is input 1 of the
        // concatenate, an iota along 0. 5 rows of indices and 5 of the operand; 0 is collapsed.
        // The concatenate has 2 inputs for a dimension of size 2, so input 1 is dropped and the
        // one left, %a, is used directly. New numbers: collapsed [0, 1] minus 0 = [1], batching
        // dims [0] / [0], start_index_map [1, 0] without position 1 = [1]; offset_dims (empty),
        // slice sizes, index_vector_dim, the result type and the sdy.sharding stay. The iota and
        // the concatenate are dead afterwards and erased.
        const std::string out = batched(R"(sdy.mesh @m = <["x"=2]>
func.func @f(%op: tensor<5x7xf32>, %a: tensor<5x1xi32>) -> tensor<5xf32> {
  %i = stablehlo.iota dim = 0 : tensor<5x1xi32>
  %idx = stablehlo.concatenate %a, %i, dim = 1 : (tensor<5x1xi32>, tensor<5x1xi32>) -> tensor<5x2xi32>
  %r = "stablehlo.gather"(%op, %idx) {
    dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [1, 0], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 1>, indices_are_sorted = false, sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}]>]>
  } : (tensor<5x7xf32>, tensor<5x2xi32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
})");
        QVERIFY2(has(out,
                     "\"stablehlo.gather\"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<"
                     "collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = "
                     "[0], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, "
                     "slice_sizes = array<i64: 1, 1>}> {sdy.sharding = #sdy.sharding_per_value<[<@m, [{\"x\"}]>]>} : "
                     "(tensor<5x7xf32>, tensor<5x1xi32>) -> tensor<5xf32>"),
                 out.c_str());
        QVERIFY2(lacks(out, "stablehlo.iota") && lacks(out, "stablehlo.concatenate"), out.c_str());
    }

    void iotaInTheMiddleOfAThreeWayConcatenateKeepsAConcatenateOfTheRest()
    {
        // start_index_map [2, 0, 1]: k = 1, input 1 of [a | iota | b] is a reshape of a rank-1 iota
        // along 0 (looked through). 3 inputs for size 3: drop input 1, concatenate a and b along the
        // index vector dimension (4x1 + 4x1 -> 4x2). start_index_map [2, 1]; collapsed [0, 2] minus
        // 0 = [2]; offset_dims [1] unchanged.
        const std::string out = batched(
            R"(func.func @f(%op: tensor<4x5x6xf32>, %a: tensor<4x1xi32>, %b: tensor<4x1xi32>) -> tensor<4x5xf32> {
  %i = stablehlo.iota dim = 0 : tensor<4xi32>
  %ir = stablehlo.reshape %i : (tensor<4xi32>) -> tensor<4x1xi32>
  %idx = stablehlo.concatenate %a, %ir, %b, dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x3xi32>
  %r = "stablehlo.gather"(%op, %idx) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0, 2], start_index_map = [2, 0, 1], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 5, 1>, indices_are_sorted = false
  } : (tensor<4x5x6xf32>, tensor<4x3xi32>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
})");
        QVERIFY2(has(out, "%0 = stablehlo.concatenate %arg1, %arg2, dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> "
                          "tensor<4x2xi32>"),
                 out.c_str());
        QVERIFY2(has(out, "\"stablehlo.gather\"(%arg0, %0) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], "
                          "collapsed_slice_dims = [2], operand_batching_dims = [0], start_indices_batching_dims = [0], "
                          "start_index_map = [2, 1], index_vector_dim = 1>"),
                 out.c_str());
        QVERIFY2(lacks(out, "stablehlo.iota") && lacks(out, "stablehlo.reshape"), out.c_str());
    }

    void indicesThatAreNoConcatenateAreSlicedAroundTheComponent()
    {
        // The diagonal-like gather: every component of a 4x3 index matrix is the row number
        // (broadcast of an iota along 0). start_index_map [2, 0, 1] -> k = 1. Not a concatenate:
        // slices [0:4, 0:1] and [0:4, 2:3] along the index vector dimension, concatenated -> 4x2.
        // The broadcast and the iota still feed the slices, so they stay.
        const std::string out = batched(R"(func.func @f(%op: tensor<4x6x6xf32>) -> tensor<4xf32> {
  %i = stablehlo.iota dim = 0 : tensor<4xi32>
  %idx = stablehlo.broadcast_in_dim %i, dims = [0] : (tensor<4xi32>) -> tensor<4x3xi32>
  %r = "stablehlo.gather"(%op, %idx) {
    dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1, 2], start_index_map = [2, 0, 1], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 1, 1>, indices_are_sorted = false
  } : (tensor<4x6x6xf32>, tensor<4x3xi32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
})");
        QVERIFY2(has(out, "%2 = stablehlo.slice %1 [0:4, 0:1] : (tensor<4x3xi32>) -> tensor<4x1xi32>"), out.c_str());
        QVERIFY2(has(out, "%3 = stablehlo.slice %1 [0:4, 2:3] : (tensor<4x3xi32>) -> tensor<4x1xi32>"), out.c_str());
        QVERIFY2(has(out, "%4 = stablehlo.concatenate %2, %3, dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> "
                          "tensor<4x2xi32>"),
                 out.c_str());
        QVERIFY2(has(out,
                     "\"stablehlo.gather\"(%arg0, %4) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims "
                     "= [1, 2], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = "
                     "[2, 1], index_vector_dim = 1>"),
                 out.c_str());

        // k = 0 of two components: only the part after it, one slice, no concatenate.
        const std::string first = batched(R"(func.func @f(%op: tensor<4x4xf32>) -> tensor<4xf32> {
  %i = stablehlo.iota dim = 0 : tensor<4xi32>
  %idx = stablehlo.broadcast_in_dim %i, dims = [0] : (tensor<4xi32>) -> tensor<4x2xi32>
  %r = "stablehlo.gather"(%op, %idx) {
    dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 1>, indices_are_sorted = false
  } : (tensor<4x4xf32>, tensor<4x2xi32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
})");
        QVERIFY2(has(first, "%2 = stablehlo.slice %1 [0:4, 1:2] : (tensor<4x2xi32>) -> tensor<4x1xi32>"),
                 first.c_str());
        QVERIFY2(has(first, "\"stablehlo.gather\"(%arg0, %2) <{dimension_numbers = #stablehlo.gather<"
                            "collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = "
                            "[0], start_index_map = [1], index_vector_dim = 1>"),
                 first.c_str());
        QVERIFY2(lacks(first, "stablehlo.concatenate"), first.c_str());
    }

    void scatterThroughAClampOfTheIota()
    {
        // The scatter rule: indices [clamp(iota) | col], scatter_dims_to_operand_dims [0, 1] -> k = 0,
        // looked through the clamp's middle operand to the iota. 4 index rows, 4 input rows, 0
        // inserted. Indices become %col; inserted [1], input_batching_dims [0],
        // scatter_indices_batching_dims [0], scatter_dims_to_operand_dims [1]. The update region and
        // the updates stay; the clamp, its bounds, the iota and the concatenate are erased.
        const std::string out = batched(
            R"(func.func @f(%in: tensor<4x6xf32>, %col: tensor<4x1xi32>, %upd: tensor<4xf32>) -> tensor<4x6xf32> {
  %lo = stablehlo.constant dense<0> : tensor<4x1xi32>
  %hi = stablehlo.constant dense<3> : tensor<4x1xi32>
  %i = stablehlo.iota dim = 0 : tensor<4x1xi32>
  %ic = stablehlo.clamp %lo, %i, %hi : tensor<4x1xi32>
  %idx = stablehlo.concatenate %ic, %col, dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
  %r = "stablehlo.scatter"(%in, %idx, %upd) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>,
    indices_are_sorted = false, unique_indices = false
  } : (tensor<4x6xf32>, tensor<4x2xi32>, tensor<4xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
})");
        QVERIFY2(has(out, "\"stablehlo.scatter\"(%arg0, %arg1, %arg2) <{indices_are_sorted = false, "
                          "scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], "
                          "input_batching_dims = [0], scatter_indices_batching_dims = [0], "
                          "scatter_dims_to_operand_dims = [1], index_vector_dim = 1>, unique_indices = false}>"),
                 out.c_str());
        QVERIFY2(has(out, "stablehlo.add"), out.c_str());
        QVERIFY2(lacks(out, "stablehlo.iota") && lacks(out, "stablehlo.clamp") && lacks(out, "stablehlo.constant") &&
                     lacks(out, "stablehlo.concatenate"),
                 out.c_str());
    }

    void selectIsLookedThroughAsShardyDoes()
    {
        // select(p, t, f): f when f is itself an iota, else t. Here f is a reshape of an iota (not
        // an iota itself), so t (%a, an argument) is inspected: no iota, the gather is left alone,
        // even though f leads to one.
        const std::string ops = R"(  %i = stablehlo.iota dim = 0 : tensor<4xi32>
  %ir = stablehlo.reshape %i : (tensor<4xi32>) -> tensor<4x1xi32>
  %s = stablehlo.select %p, %a, %ir : tensor<4x1xi1>, tensor<4x1xi32>
  %idx = stablehlo.concatenate %s, %b, dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
)";
        const std::string args = "%op: tensor<4x6xf32>, %p: tensor<4x1xi1>, %a: tensor<4x1xi32>, %b: tensor<4x1xi32>";
        const std::string dims = "collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1";
        const std::string text =
            gatherFunc(args, ops, dims, "1, 1", "tensor<4x6xf32>", "tensor<4x2xi32>", "tensor<4xf32>");
        QCOMPARE(batched(text), printed(text));

        // With the iota directly as the false operand it is taken.
        std::string direct = ops;
        direct.replace(direct.find("%p, %a, %ir"), 11, "%p, %a, %i2");
        direct = "  %i2 = stablehlo.iota dim = 0 : tensor<4x1xi32>\n" + direct;
        const std::string out =
            batched(gatherFunc(args, direct, dims, "1, 1", "tensor<4x6xf32>", "tensor<4x2xi32>", "tensor<4xf32>"));
        QVERIFY2(has(out, "\"stablehlo.gather\"(%arg0, %arg3) <{dimension_numbers = #stablehlo.gather<"
                          "collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = "
                          "[0], start_index_map = [1], index_vector_dim = 1>"),
                 out.c_str());
    }

    void gathersThatDoNotMatchAreLeftAlone()
    {
        const std::string args = "%op: tensor<4x6xf32>, %a: tensor<4x1xi32>";
        const std::string iota0 = "  %i = stablehlo.iota dim = 0 : tensor<4x1xi32>\n";
        const std::string cat = "  %idx = stablehlo.concatenate %i, %a, dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) "
                                "-> tensor<4x2xi32>\n";
        const std::string matching = "collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1";
        auto leftAlone = [](const std::string& text) { return batched(text) == printed(text); };
        // The matching case itself is rewritten (so what follows fails for the reason given).
        QVERIFY(!leftAlone(
            gatherFunc(args, iota0 + cat, matching, "1, 1", "tensor<4x6xf32>", "tensor<4x2xi32>", "tensor<4xf32>")));
        // An iota along dimension 1 is no row number.
        QVERIFY(leftAlone(gatherFunc("%op: tensor<4x6xf32>, %a: tensor<4x1xi32>",
                                     "  %i = stablehlo.iota dim = 1 : tensor<4x1xi32>\n" + cat, matching, "1, 1",
                                     "tensor<4x6xf32>", "tensor<4x2xi32>", "tensor<4xf32>")));
        // Operand dimension 0 not collapsed (a window of 1 row kept as an offset dimension).
        QVERIFY(leftAlone(gatherFunc(args, iota0 + cat,
                                     "offset_dims = [1], collapsed_slice_dims = [1], start_index_map = [0, 1], "
                                     "index_vector_dim = 1",
                                     "1, 1", "tensor<4x6xf32>", "tensor<4x2xi32>", "tensor<4x1xf32>")));
        // 0 collapsed but not in start_index_map: no component addresses operand dimension 0.
        QVERIFY(leftAlone(gatherFunc("%op: tensor<4x6x5xf32>, %a: tensor<4x1xi32>", iota0 + cat,
                                     "offset_dims = [1], collapsed_slice_dims = [0, 1], start_index_map = [1, 2], "
                                     "index_vector_dim = 1",
                                     "1, 1, 5", "tensor<4x6x5xf32>", "tensor<4x2xi32>", "tensor<4x5xf32>")));
        // 3 index rows for an operand of 4 rows.
        QVERIFY(leftAlone(gatherFunc("%op: tensor<4x6xf32>, %a: tensor<3x1xi32>",
                                     "  %i = stablehlo.iota dim = 0 : tensor<3x1xi32>\n  %idx = stablehlo.concatenate "
                                     "%i, %a, dim = 1 : (tensor<3x1xi32>, tensor<3x1xi32>) -> tensor<3x2xi32>\n",
                                     matching, "1, 1", "tensor<4x6xf32>", "tensor<3x2xi32>", "tensor<3xf32>")));
        // An index vector of one component (nothing would be left).
        QVERIFY(leftAlone(gatherFunc("%op: tensor<4x6xf32>",
                                     iota0 + "  %idx = stablehlo.reshape %i : "
                                             "(tensor<4x1xi32>) -> tensor<4x1xi32>\n",
                                     "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
                                     "index_vector_dim = 1",
                                     "1, 6", "tensor<4x6xf32>", "tensor<4x1xi32>", "tensor<4x6xf32>")));
        // A concatenate along another dimension than the index vector's: its input k is not the
        // component, so nothing is recognised.
        QVERIFY(leftAlone(gatherFunc(
            "%op: tensor<4x6xf32>, %a: tensor<2x2xi32>",
            "  %i = stablehlo.iota dim = 0 : tensor<2x2xi32>\n  %idx = stablehlo.concatenate %i, %a, dim = 0 : "
            "(tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<4x2xi32>\n",
            matching, "1, 1", "tensor<4x6xf32>", "tensor<4x2xi32>", "tensor<4xf32>")));
        // Already batched.
        QVERIFY(
            leftAlone(gatherFunc("%op: tensor<4x6x5xf32>, %a: tensor<4x1xi32>", iota0 + cat,
                                 "collapsed_slice_dims = [1, 2], operand_batching_dims = [0], "
                                 "start_indices_batching_dims = [0], start_index_map = [1, 2], index_vector_dim = 1",
                                 "1, 1, 1", "tensor<4x6x5xf32>", "tensor<4x2xi32>", "tensor<4xf32>")));
    }
};

QTEST_APPLESS_MAIN(TestGatherScatterBatching)
#include "tst_gatherscatterbatching.moc"
