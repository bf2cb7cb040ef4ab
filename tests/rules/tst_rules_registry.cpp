// Table-driven tests of the op sharding rule registry; every expected rule is derived by hand
// from the op's definition (SDY.md 4.12), with shapes unlike the conformance units'.
#include <QtTest>

#include "RuleTestUtil.h"

using namespace shardx;

namespace {

/// `func.func @f(ARGS) -> RES { BODY  return %0 : RES }`.
std::string fn(const std::string& args, const std::string& res, const std::string& body)
{
    return "func.func @f(" + args + ") -> " + res + " {\n" + body + "\n  return %0 : " + res + "\n}\n";
}

void addRow(const char* name, const std::string& text, const char* op, const char* expected, bool conservative = false)
{
    QTest::newRow(name) << QString::fromStdString(text) << QString(op) << conservative << QString(expected);
}

void columns()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("op");
    QTest::addColumn<bool>("conservative");
    QTest::addColumn<QString>("expected");
}

void check()
{
    QFETCH(QString, text);
    QFETCH(QString, op);
    QFETCH(bool, conservative);
    QFETCH(QString, expected);
    std::string got = testutil::ruleOf(text.toStdString(), op.toStdString(), conservative);
    if (expected.startsWith("none"))
        QVERIFY2(QString::fromStdString(got).startsWith("none"), got.c_str());
    else
        QCOMPARE(QString::fromStdString(got), expected);
}

} // namespace

class TestRulesRegistry : public QObject {
    Q_OBJECT
private slots:
    void elementwise_data()
    {
        columns();
        addRow("add",
               fn("%a: tensor<3x5xf32>, %b: tensor<3x5xf32>", "tensor<3x5xf32>",
                  "%0 = \"stablehlo.add\"(%a, %b) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>"),
               "stablehlo.add", "<([i, j], [i, j])->([i, j]) {i=3, j=5}>");
        addRow("scalar add",
               fn("%a: tensor<f32>, %b: tensor<f32>", "tensor<f32>",
                  "%0 = \"stablehlo.add\"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>"),
               "stablehlo.add", "<([], [])->([])>");
        addRow("compare",
               fn("%a: tensor<7xf32>, %b: tensor<7xf32>", "tensor<7xi1>",
                  "%0 = stablehlo.compare GT, %a, %b : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xi1>"),
               "stablehlo.compare", "<([i], [i])->([i]) {i=7}>");
        addRow("convert",
               fn("%a: tensor<2x9xf32>", "tensor<2x9xi32>",
                  "%0 = \"stablehlo.convert\"(%a) : (tensor<2x9xf32>) -> tensor<2x9xi32>"),
               "stablehlo.convert", "<([i, j])->([i, j]) {i=2, j=9}>");
        addRow("select tensor pred",
               fn("%p: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<2x3xf32>", "tensor<2x3xf32>",
                  "%0 = \"stablehlo.select\"(%p, %a, %b) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> "
                  "tensor<2x3xf32>"),
               "stablehlo.select", "<([i, j], [i, j], [i, j])->([i, j]) {i=2, j=3}>");
        addRow("clamp scalar bounds",
               fn("%lo: tensor<f32>, %x: tensor<4x6xf32>, %hi: tensor<f32>", "tensor<4x6xf32>",
                  "%0 = \"stablehlo.clamp\"(%lo, %x, %hi) : (tensor<f32>, tensor<4x6xf32>, tensor<f32>) -> "
                  "tensor<4x6xf32>"),
               "stablehlo.clamp", "<([], [i, j], [])->([i, j]) {i=4, j=6}>");
        addRow("bitcast upcast",
               fn("%a: tensor<4x3x2xui32>", "tensor<4x3xui64>",
                  "%0 = \"stablehlo.bitcast_convert\"(%a) : (tensor<4x3x2xui32>) -> tensor<4x3xui64>"),
               "stablehlo.bitcast_convert", "<([i, j, k])->([i, j]) {i=4, j=3, k=2} need_replication={k}>");
        addRow("bitcast downcast",
               fn("%a: tensor<5xf64>", "tensor<5x4xi16>",
                  "%0 = \"stablehlo.bitcast_convert\"(%a) : (tensor<5xf64>) -> tensor<5x4xi16>"),
               "stablehlo.bitcast_convert", "<([i])->([i, j]) {i=5, j=4} need_replication={j}>");
        addRow("bitcast same width",
               fn("%a: tensor<6x2xf32>", "tensor<6x2xi32>",
                  "%0 = \"stablehlo.bitcast_convert\"(%a) : (tensor<6x2xf32>) -> tensor<6x2xi32>"),
               "stablehlo.bitcast_convert", "<([i, j])->([i, j]) {i=6, j=2}>");
        addRow("all_reduce",
               fn("%a: tensor<6x4xf32>", "tensor<6x4xf32>",
                  "%0 = \"stablehlo.all_reduce\"(%a) ({\n ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
                  "  %s = stablehlo.add %x, %y : tensor<f32>\n  stablehlo.return %s : tensor<f32>\n"
                  "}) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<6x4xf32>) -> "
                  "tensor<6x4xf32>"),
               "stablehlo.all_reduce", "<([i, j])->([i, j]) {i=6, j=4}>");
        addRow("all_gather dim 0",
               fn("%a: tensor<2x4xf32>", "tensor<8x4xf32>",
                  "%0 = \"stablehlo.all_gather\"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, "
                  "3]]> : tensor<1x4xi64>} : (tensor<2x4xf32>) -> tensor<8x4xf32>"),
               "stablehlo.all_gather", "<([j, i])->([k, i]) {i=4, j=2, k=8} need_replication={j, k}>");
        addRow("iota has none", fn("", "tensor<4xi32>", "%0 = stablehlo.iota dim = 0 : tensor<4xi32>"),
               "stablehlo.iota", "none");
        addRow("constant has none", fn("", "tensor<2xf32>", "%0 = stablehlo.constant dense<1.0> : tensor<2xf32>"),
               "stablehlo.constant", "none");
    }
    void elementwise() { check(); }

    void layout_data()
    {
        columns();
        addRow("transpose",
               fn("%a: tensor<2x3x5xf32>", "tensor<5x2x3xf32>",
                  "%0 = stablehlo.transpose %a, dims = [2, 0, 1] : (tensor<2x3x5xf32>) -> tensor<5x2x3xf32>"),
               "stablehlo.transpose", "<([j, k, i])->([i, j, k]) {i=5, j=2, k=3}>");
        addRow("broadcast expanded size-1 dim",
               fn("%a: tensor<1x5xf32>", "tensor<4x3x5xf32>",
                  "%0 = stablehlo.broadcast_in_dim %a, dims = [1, 2] : (tensor<1x5xf32>) -> tensor<4x3x5xf32>"),
               "stablehlo.broadcast_in_dim", "<([j, l])->([i, k, l]) {i=4, j=1, k=3, l=5}>");
        addRow("broadcast new size-1 dim",
               fn("%a: tensor<3xf32>", "tensor<3x1xf32>",
                  "%0 = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<3xf32>) -> tensor<3x1xf32>"),
               "stablehlo.broadcast_in_dim", "<([i])->([i, j]) {i=3, j=1}>");
        addRow("broadcast size-1 kept",
               fn("%a: tensor<1xf32>", "tensor<1xf32>",
                  "%0 = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<1xf32>) -> tensor<1xf32>"),
               "stablehlo.broadcast_in_dim", "<([i])->([i]) {i=1}>");
        addRow("reverse",
               fn("%a: tensor<6x4xf32>", "tensor<6x4xf32>", "%0 = stablehlo.reverse %a, dims = [0] : tensor<6x4xf32>"),
               "stablehlo.reverse", "<([i, j])->([i, j]) {i=6, j=4} permutation={i}>");
        addRow("cholesky",
               fn("%a: tensor<3x4x4xf32>", "tensor<3x4x4xf32>",
                  "%0 = \"stablehlo.cholesky\"(%a) {lower = true} : (tensor<3x4x4xf32>) -> tensor<3x4x4xf32>"),
               "stablehlo.cholesky", "<([i, j, k])->([i, j, k]) {i=3, j=4, k=4} need_replication={j, k}>");
    }
    void layout() { check(); }

    void dot_data()
    {
        columns();
        addRow("dot matrix matrix",
               fn("%a: tensor<3x4xf32>, %b: tensor<4x5xf32>", "tensor<3x5xf32>",
                  "%0 = stablehlo.dot %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>"),
               "stablehlo.dot", "<([i, k], [k, j])->([i, j]) {i=3, j=5, k=4} reduction={k}>");
        addRow("dot matrix vector",
               fn("%a: tensor<3x4xf32>, %b: tensor<4xf32>", "tensor<3xf32>",
                  "%0 = stablehlo.dot %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>"),
               "stablehlo.dot", "<([i, j], [j])->([i]) {i=3, j=4} reduction={j}>");
        addRow("dot vector matrix",
               fn("%a: tensor<4xf32>, %b: tensor<4x5xf32>", "tensor<5xf32>",
                  "%0 = stablehlo.dot %a, %b : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<5xf32>"),
               "stablehlo.dot", "<([j], [j, i])->([i]) {i=5, j=4} reduction={j}>");
        addRow("dot_general two batching two contracting",
               fn("%a: tensor<2x3x4x5x6xf32>, %b: tensor<3x2x6x5x7xf32>", "tensor<2x3x4x7xf32>",
                  "%0 = \"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<"
                  "lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [1, 0], lhs_contracting_dimensions "
                  "= [3, 4], rhs_contracting_dimensions = [3, 2]>} : (tensor<2x3x4x5x6xf32>, "
                  "tensor<3x2x6x5x7xf32>) -> tensor<2x3x4x7xf32>"),
               "stablehlo.dot_general",
               "<([i, j, k, m, n], [j, i, n, m, l])->([i, j, k, l]) {i=2, j=3, k=4, l=7, m=5, n=6} reduction={m, n}>");
        addRow("dot_general no batching",
               fn("%a: tensor<8x16xf32>, %b: tensor<16x4xf32>", "tensor<8x4xf32>",
                  "%0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x16xf32>, "
                  "tensor<16x4xf32>) -> tensor<8x4xf32>"),
               "stablehlo.dot_general", "<([i, k], [k, j])->([i, j]) {i=8, j=4, k=16} reduction={k}>");
        addRow("dot_general several free dims",
               fn("%a: tensor<2x3x4xf32>, %b: tensor<2x4x5x6xf32>", "tensor<2x3x5x6xf32>",
                  "%0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : "
                  "(tensor<2x3x4xf32>, tensor<2x4x5x6xf32>) -> tensor<2x3x5x6xf32>"),
               "stablehlo.dot_general",
               "<([i, j, m], [i, m, k, l])->([i, j, k, l]) {i=2, j=3, k=5, l=6, m=4} reduction={m}>");
        const std::string conv1d =
            fn("%a: tensor<2x16x8xf32>, %k: tensor<4x8x32xf32>", "tensor<2x4x32xf32>",
               "%0 = stablehlo.convolution(%a, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = "
               "[4]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x16x8xf32>, "
               "tensor<4x8x32xf32>) -> tensor<2x4x32xf32>");
        addRow("conv 1d stride 4", conv1d, "stablehlo.convolution",
               "<([i, jk, l], [k, l, m])->([i, j, m]) {i=2, j=4, k=4, l=8, m=32} reduction={k, l} permutation={j}>");
        addRow("conv 1d conservative", conv1d, "stablehlo.convolution",
               "<([i, l, j], [m, j, k])->([i, n, k]) {i=2, j=8, k=32, l=1, m=1, n=1} reduction={j}>", true);
        addRow("conv batch groups",
               fn("%a: tensor<8x6x4xf32>, %k: tensor<3x4x6xf32>", "tensor<2x4x6xf32>",
                  "%0 = stablehlo.convolution(%a, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = "
                  "{stride = [1]} {batch_group_count = 4 : i64, feature_group_count = 1 : i64} : "
                  "(tensor<8x6x4xf32>, tensor<3x4x6xf32>) -> tensor<2x4x6xf32>"),
               "stablehlo.convolution",
               "<([ij, k, l], [m, l, i])->([j, k, i]) {i=4, j=2, k=4, l=4, m=1} reduction={l} permutation={k}>");
    }
    void dot() { check(); }

    void reshape_data()
    {
        columns();
        auto r = [](const char* in, const char* out) {
            return fn(std::string("%a: ") + in, out, std::string("%0 = stablehlo.reshape %a : (") + in + ") -> " + out);
        };
        addRow("split", r("tensor<12xf32>", "tensor<3x4xf32>"), "stablehlo.reshape", "<([ij])->([i, j]) {i=3, j=4}>");
        addRow("merge", r("tensor<2x3x4xf32>", "tensor<24xf32>"), "stablehlo.reshape",
               "<([i, j, k])->([ijk]) {i=2, j=3, k=4}>");
        addRow("mixed 8x4 -> 2x16", r("tensor<8x4xf32>", "tensor<2x16xf32>"), "stablehlo.reshape",
               "<([ij, k])->([i, jk]) {i=2, j=4, k=4}>");
        addRow("size-1 dims", r("tensor<1x6x1xf32>", "tensor<6x1xf32>"), "stablehlo.reshape",
               "<([i, j, k])->([j, l]) {i=1, j=6, k=1, l=1}>");
        addRow("non-divisible 2x3 -> 3x2", r("tensor<2x3xf32>", "tensor<3x2xf32>"), "stablehlo.reshape",
               "<([i, k])->([j, l]) {i=2, j=3, k=3, l=2}>");
        addRow("4x6 -> 6x4", r("tensor<4x6xf32>", "tensor<6x4xf32>"), "stablehlo.reshape",
               "<([ij, ln])->([ik, mn]) {i=2, j=2, k=3, l=3, m=2, n=2}>");
        addRow("scalar -> 1x1", r("tensor<f32>", "tensor<1x1xf32>"), "stablehlo.reshape",
               "<([])->([i, j]) {i=1, j=1}>");
        addRow("identity", r("tensor<5x7xf32>", "tensor<5x7xf32>"), "stablehlo.reshape",
               "<([i, j])->([i, j]) {i=5, j=7}>");
        addRow("zero elements", r("tensor<0x4xf32>", "tensor<4x0xf32>"), "stablehlo.reshape", "none");
    }
    void reshape() { check(); }

    void gatherScatter_data()
    {
        columns();
        addRow("gather take rows",
               fn("%a: tensor<10x8xf32>, %i: tensor<5x1xi32>", "tensor<5x8xf32>",
                  "%0 = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], "
                  "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = "
                  "array<i64: 1, 8>} : (tensor<10x8xf32>, tensor<5x1xi32>) -> tensor<5x8xf32>"),
               "stablehlo.gather",
               "<([k, j], [i, l])->([i, j]) {i=5, j=8, k=10, l=1} reduction={k} need_replication={l}>");
        addRow("gather partial slice",
               fn("%a: tensor<10x8xf32>, %i: tensor<5x1xi32>", "tensor<5x4xf32>",
                  "%0 = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], "
                  "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = "
                  "array<i64: 1, 4>} : (tensor<10x8xf32>, tensor<5x1xi32>) -> tensor<5x4xf32>"),
               "stablehlo.gather",
               "<([k, j], [i, l])->([i, j]) {i=5, j=8, k=10, l=1} reduction={k} need_replication={j, l} "
               "blocked_propagation={j}>");
        const char* scatterAttrs =
            "{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [1], "
            "input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], "
            "index_vector_dim = 2>} : (tensor<2x10x8xf32>, tensor<2x5x1xi32>, tensor<2x5x8xf32>) -> "
            "tensor<2x10x8xf32>";
        addRow("scatter batching add",
               fn("%a: tensor<2x10x8xf32>, %i: tensor<2x5x1xi32>, %u: tensor<2x5x8xf32>", "tensor<2x10x8xf32>",
                  std::string("%0 = \"stablehlo.scatter\"(%a, %i, %u) ({\n ^bb0(%x: tensor<f32>, %y: "
                              "tensor<f32>):\n  %s = stablehlo.add %x, %y : tensor<f32>\n  stablehlo.return %s : "
                              "tensor<f32>\n}) ") +
                      scatterAttrs),
               "stablehlo.scatter",
               "<([i, l, k], [i, j, m], [i, j, k])->([i, l, k]) {i=2, j=5, k=8, l=10, m=1} reduction={j} "
               "need_replication={m}>");
        addRow("scatter batching overwrite",
               fn("%a: tensor<2x10x8xf32>, %i: tensor<2x5x1xi32>, %u: tensor<2x5x8xf32>", "tensor<2x10x8xf32>",
                  std::string("%0 = \"stablehlo.scatter\"(%a, %i, %u) ({\n ^bb0(%x: tensor<f32>, %y: "
                              "tensor<f32>):\n  stablehlo.return %y : tensor<f32>\n}) ") +
                      scatterAttrs),
               "stablehlo.scatter",
               "<([i, l, k], [i, j, m], [i, j, k])->([i, l, k]) {i=2, j=5, k=8, l=10, m=1} need_replication={j, m}>");
    }
    void gatherScatter() { check(); }

    void misc_data()
    {
        columns();
        const std::string concat =
            fn("%a: tensor<2x3xf32>, %b: tensor<2x5xf32>", "tensor<2x8xf32>",
               "%0 = stablehlo.concatenate %a, %b, dim = 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>");
        addRow("concat", concat, "stablehlo.concatenate",
               "<([i, j], [i, j])->([i, j]) {i=2, j=8} need_replication={j}>");
        addRow("concat conservative", concat, "stablehlo.concatenate",
               "<([i, j], [i, k])->([i, l]) {i=2, j=1, k=1, l=1}>", true);
        addRow("concat of slices",
               fn("%a: tensor<6x4xf32>", "tensor<5x4xf32>",
                  "%s = stablehlo.slice %a [0:2, 0:4] : (tensor<6x4xf32>) -> tensor<2x4xf32>\n"
                  "%t = stablehlo.slice %a [3:6, 0:4] : (tensor<6x4xf32>) -> tensor<3x4xf32>\n"
                  "%0 = stablehlo.concatenate %s, %t, dim = 0 : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>"),
               "stablehlo.concatenate", "<([i, j], [i, j])->([i, j]) {i=5, j=4} permutation={i}>");
        const std::string slice = fn("%a: tensor<8x6xf32>", "tensor<4x6xf32>",
                                     "%0 = stablehlo.slice %a [2:6, 0:6] : (tensor<8x6xf32>) -> tensor<4x6xf32>");
        addRow("slice", slice, "stablehlo.slice", "<([i, j])->([i, j]) {i=8, j=6} permutation={i}>");
        addRow("slice conservative", slice, "stablehlo.slice",
               "<([i, j])->([i, j]) {i=8, j=6} permutation={i} blocked_propagation={i}>", true);
        addRow("pad",
               fn("%a: tensor<5x5xf32>, %v: tensor<f32>", "tensor<7x5xf32>",
                  "%0 = stablehlo.pad %a, %v, low = [1, 0], high = [1, 0], interior = [0, 0] : "
                  "(tensor<5x5xf32>, tensor<f32>) -> tensor<7x5xf32>"),
               "stablehlo.pad", "<([i, j], [])->([i, j]) {i=5, j=5} permutation={i}>");
        addRow("dynamic_slice",
               fn("%a: tensor<16x8xf32>, %x: tensor<i32>, %y: tensor<i32>", "tensor<4x8xf32>",
                  "%0 = stablehlo.dynamic_slice %a, %x, %y, sizes = [4, 8] : (tensor<16x8xf32>, tensor<i32>, "
                  "tensor<i32>) -> tensor<4x8xf32>"),
               "stablehlo.dynamic_slice",
               "<([i, j], [], [])->([i, j]) {i=16, j=8} need_replication={i} blocked_propagation={i}>");
        addRow("dynamic_update_slice constant indices",
               fn("%a: tensor<16x8xf32>, %u: tensor<4x8xf32>", "tensor<16x8xf32>",
                  "%c = stablehlo.constant dense<0> : tensor<i32>\n"
                  "%0 = stablehlo.dynamic_update_slice %a, %u, %c, %c : (tensor<16x8xf32>, tensor<4x8xf32>, "
                  "tensor<i32>, tensor<i32>) -> tensor<16x8xf32>"),
               "stablehlo.dynamic_update_slice", "<([i, k], [j, k], [], [])->([i, k]) {i=16, j=4, k=8}>");
        addRow("reduce two inputs",
               "func.func @f(%a: tensor<4x5x6xf32>, %b: tensor<4x5x6xi32>, %c: tensor<f32>, %d: tensor<i32>) -> "
               "tensor<5xf32> {\n  %0:2 = stablehlo.reduce(%a init: %c), (%b init: %d) across dimensions = [0, 2] "
               ": (tensor<4x5x6xf32>, tensor<4x5x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<5xf32>, "
               "tensor<5xi32>)\n   reducer(%x: tensor<f32>, %y: tensor<f32>) (%z: tensor<i32>, %w: tensor<i32>) {\n"
               "    %s = stablehlo.add %x, %y : tensor<f32>\n    %t = stablehlo.add %z, %w : tensor<i32>\n"
               "    stablehlo.return %s, %t : tensor<f32>, tensor<i32>\n  }\n  return %0#0 : tensor<5xf32>\n}\n",
               "stablehlo.reduce", "<([i, j, k], [i, j, k], [], [])->([j], [j]) {i=4, j=5, k=6} reduction={i, k}>");
        addRow("reduce_window",
               fn("%a: tensor<8x6xf32>, %v: tensor<f32>", "tensor<4x6xf32>",
                  "%0 = \"stablehlo.reduce_window\"(%a, %v) ({\n ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
                  "  %m = stablehlo.maximum %x, %y : tensor<f32>\n  stablehlo.return %m : tensor<f32>\n"
                  "}) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 2, 1>} : "
                  "(tensor<8x6xf32>, tensor<f32>) -> tensor<4x6xf32>"),
               "stablehlo.reduce_window", "<([i, j], [])->([i, j]) {i=4, j=6} permutation={i}>");
        addRow("select_and_scatter",
               fn("%a: tensor<8x6xf32>, %s: tensor<4x6xf32>, %v: tensor<f32>", "tensor<8x6xf32>",
                  "%0 = \"stablehlo.select_and_scatter\"(%a, %s, %v) ({\n ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
                  "  %c = stablehlo.compare GE, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
                  "  stablehlo.return %c : tensor<i1>\n}, {\n ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
                  "  %t = stablehlo.add %x, %y : tensor<f32>\n  stablehlo.return %t : tensor<f32>\n"
                  "}) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 2, 1>} : "
                  "(tensor<8x6xf32>, tensor<4x6xf32>, tensor<f32>) -> tensor<8x6xf32>"),
               "stablehlo.select_and_scatter",
               "<([j, k], [i, k], [])->([j, k]) {i=4, j=8, k=6} need_replication={i} permutation={j}>");
        const char* sortBody = "({\n ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n  %c = stablehlo.compare GT, %x, %y "
                               ": (tensor<f32>, tensor<f32>) -> tensor<i1>\n  stablehlo.return %c : tensor<i1>\n}) ";
        addRow("sort last dim",
               fn("%a: tensor<5x3xf32>", "tensor<5x3xf32>",
                  std::string("%0 = \"stablehlo.sort\"(%a) ") + sortBody +
                      "{dimension = 1 : i64} : (tensor<5x3xf32>) -> tensor<5x3xf32>"),
               "stablehlo.sort", "<([i, j])->([i, j]) {i=5, j=3} need_replication={j}>");
        addRow("sort others size one",
               fn("%a: tensor<1x1x7xf32>", "tensor<1x1x7xf32>",
                  std::string("%0 = \"stablehlo.sort\"(%a) ") + sortBody +
                      "{dimension = 2 : i64} : (tensor<1x1x7xf32>) -> tensor<1x1x7xf32>"),
               "stablehlo.sort",
               "<([i, j, k])->([i, j, k]) {i=1, j=1, k=7} need_replication={k} blocked_propagation={k}>");
        addRow("rfft",
               fn("%a: tensor<4x16xf32>", "tensor<4x9xcomplex<f32>>",
                  "%0 = stablehlo.fft %a, type = RFFT, length = [16] : (tensor<4x16xf32>) -> "
                  "tensor<4x9xcomplex<f32>>"),
               "stablehlo.fft", "<([i, j])->([i, j]) {i=4, j=16} need_replication={j} blocked_propagation={j}>");
        addRow("triangular_solve right transposed",
               fn("%a: tensor<2x4x4xf32>, %b: tensor<2x3x4xf32>", "tensor<2x3x4xf32>",
                  "%0 = \"stablehlo.triangular_solve\"(%a, %b) {left_side = false, lower = true, unit_diagonal = "
                  "false, transpose_a = #stablehlo<transpose TRANSPOSE>} : (tensor<2x4x4xf32>, tensor<2x3x4xf32>) "
                  "-> tensor<2x3x4xf32>"),
               "stablehlo.triangular_solve",
               "<([i, k, l], [i, j, k])->([i, j, l]) {i=2, j=3, k=4, l=4} need_replication={j, k, l}>");
        addRow("custom_call Eigh",
               "func.func @f(%a: tensor<3x4x4xf32>) -> tensor<3x4xf32> {\n  %0:2 = stablehlo.custom_call "
               "@Eigh(%a) : (tensor<3x4x4xf32>) -> (tensor<3x4x4xf32>, tensor<3x4xf32>)\n  return %0#1 : "
               "tensor<3x4xf32>\n}\n",
               "stablehlo.custom_call", "<([i, j, k])->([i, j, k], [i, k]) {i=3, j=4, k=4}>");
        addRow("custom_call unknown target",
               fn("%a: tensor<4xf32>", "tensor<4xf32>",
                  "%0 = stablehlo.custom_call @my_kernel(%a) : (tensor<4xf32>) -> tensor<4xf32>"),
               "stablehlo.custom_call", "none");
    }
    void misc() { check(); }

    void outcomes()
    {
        auto p = testutil::parseOp(fn("%a: tensor<4xf32>", "tensor<4xf32>",
                                      "%0 = stablehlo.custom_call @my_kernel(%a) : (tensor<4xf32>) -> tensor<4xf32>"),
                                   "stablehlo.custom_call");
        QVERIFY2(p.op, p.error.c_str());
        QCOMPARE(int(computeOpShardingRule(*p.op).outcome), int(RuleOutcome::UnknownCustomCall));
        auto q = testutil::parseOp(
            fn("%a: tensor<4xf32>", "tensor<4xf32>", "%0 = \"mydialect.frob\"(%a) : (tensor<4xf32>) -> tensor<4xf32>"),
            "mydialect.frob");
        QVERIFY2(q.op, q.error.c_str());
        RuleResult r = computeOpShardingRule(*q.op);
        QCOMPARE(int(r.outcome), int(RuleOutcome::UnknownOp));
        QVERIFY(r.reason.find("mydialect.frob") != std::string::npos);
        std::string why;
        QVERIFY(!createOpShardingRule(*q.op, false, &why));
        QVERIFY(!why.empty());
        auto t = testutil::parseOp(fn("%a: tensor<4xf32>", "tensor<4xf32>", "%0 = stablehlo.negate %a : tensor<4xf32>"),
                                   "func.return");
        QVERIFY2(t.op, t.error.c_str());
        QCOMPARE(int(computeOpShardingRule(*t.op).outcome), int(RuleOutcome::NoRule));
    }

    void nameClasses()
    {
        QCOMPARE(int(ruleNameClass("func.return")), int(RuleNameClass::None));
        QCOMPARE(int(ruleNameClass("stablehlo.return")), int(RuleNameClass::None));
        QCOMPARE(int(ruleNameClass("sdy.mesh")), int(RuleNameClass::None));
        QCOMPARE(int(ruleNameClass("mydialect.frob")), int(RuleNameClass::None));
        QCOMPARE(int(ruleNameClass("stablehlo.add")), int(RuleNameClass::ShapesOnly));
        QCOMPARE(int(ruleNameClass("stablehlo.negate")), int(RuleNameClass::ShapesOnly));
        QCOMPARE(int(ruleNameClass("stablehlo.select")), int(RuleNameClass::Other));
        QCOMPARE(int(ruleNameClass("stablehlo.dot_general")), int(RuleNameClass::Other));
        QCOMPARE(int(ruleNameClass("stablehlo.custom_call")), int(RuleNameClass::Other));
        // ShapesOnly ops of equal shapes get equal rules.
        auto a = testutil::parseOp(
            fn("%a: tensor<4x8xf32>", "tensor<4x8xf32>", "%0 = stablehlo.negate %a : tensor<4x8xf32>"),
            "stablehlo.negate");
        auto b = testutil::parseOp(
            fn("%a: tensor<4x8xf32>", "tensor<4x8xf32>", "%0 = stablehlo.exponential %a : tensor<4x8xf32>"),
            "stablehlo.exponential");
        QVERIFY2(a.op && b.op, (a.error + b.error).c_str());
        std::optional<OpShardingRule> ra = createOpShardingRule(*a.op, false);
        std::optional<OpShardingRule> rb = createOpShardingRule(*b.op, false);
        QVERIFY(ra && rb);
        QVERIFY(*ra == *rb);
    }
};

QTEST_APPLESS_MAIN(TestRulesRegistry)
#include "tst_rules_registry.moc"
