// ReferenceExecutor, op by op: small cases whose expected values are worked out by hand in the comments.
#include <QtTest>

#include <cmath>

#include "tests/exec/ExecTestSupport.h"

using namespace shardx;
using namespace shardx::testing;

class TestReferenceExecutor : public QObject {
    Q_OBJECT

private slots:
    void elementwiseF32()
    {
        // [1.5, -2, 3] + [0.25, 2, -1] = [1.75, 0, 2]; * = [0.375, -4, -3]; max = [1.5, 2, 3].
        const char* text = R"(
func.func @f(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = stablehlo.add %a, %b : tensor<3xf32>
  %1 = stablehlo.multiply %a, %b : tensor<3xf32>
  %2 = stablehlo.maximum %a, %b : tensor<3xf32>
  %3 = stablehlo.subtract %a, %b : tensor<3xf32>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
})";
        auto r = runFunc(text, "f", {tensorOf("f32", {3}, {1.5, -2, 3}), tensorOf("f32", {3}, {0.25, 2, -1})});
        QCOMPARE(r.size(), size_t(4));
        QCOMPARE(valuesOf(r[0]), (Values{1.75, 0, 2}));
        QCOMPARE(valuesOf(r[1]), (Values{0.375, -4, -3}));
        QCOMPARE(valuesOf(r[2]), (Values{1.5, 2, 3}));
        // 1.5 - 0.25 = 1.25; -2 - 2 = -4; 3 - (-1) = 4.
        QCOMPARE(valuesOf(r[3]), (Values{1.25, -4, 4}));
    }

    void f32IsEvaluatedInF32()
    {
        // 16777216 + 1 is not a float (spacing 2 at 2^24): rounds to even, 16777216. In double it
        // would be 16777217.
        const char* text = R"(
func.func @f(%a: tensor<1xf32>, %b: tensor<1xf32>) -> tensor<1xf32> {
  %0 = stablehlo.add %a, %b : tensor<1xf32>
  return %0 : tensor<1xf32>
})";
        QCOMPARE(runValues(text, {tensorOf("f32", {1}, {16777216}), tensorOf("f32", {1}, {1})}), (Values{16777216}));
    }

    void integerDivisionAndRemainder()
    {
        // Truncating: 7/2 = 3, -7/2 = -3, 7/-2 = -3, 5/0 = -1 (all bits set); remainders 1, -1, 1, 5 (x % 0 = x).
        const char* text = R"(
func.func @f(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %0 = stablehlo.divide %a, %b : tensor<4xi32>
  %1 = stablehlo.remainder %a, %b : tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
})";
        auto r = runFunc(text, "f", {tensorOf("i32", {4}, {7, -7, 7, 5}), tensorOf("i32", {4}, {2, 2, -2, 0})});
        QCOMPARE(r.size(), size_t(2));
        QCOMPARE(valuesOf(r[0]), (Values{3, -3, -3, -1}));
        QCOMPARE(valuesOf(r[1]), (Values{1, -1, 1, 5}));
    }

    void integerWrapsAtItsWidth()
    {
        // i32: 2147483647 + 1 wraps to -2147483648; ui32: 0 - 1 = 4294967295.
        const char* text = R"(
func.func @f(%a: tensor<i32>, %b: tensor<ui32>) -> (tensor<i32>, tensor<ui32>) {
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %u1 = stablehlo.constant dense<1> : tensor<ui32>
  %0 = stablehlo.add %a, %c1 : tensor<i32>
  %1 = stablehlo.subtract %b, %u1 : tensor<ui32>
  return %0, %1 : tensor<i32>, tensor<ui32>
})";
        auto r = runFunc(text, "f", {tensorOf("i32", {}, {2147483647}), tensorOf("ui32", {}, {0})});
        QCOMPARE(r.size(), size_t(2));
        QCOMPARE(r[0].getInt(0), int64_t(-2147483648LL));
        QCOMPARE(r[1].getInt(0), int64_t(4294967295LL));
    }

    void unaryMath()
    {
        // abs(-2) = 2, negate(3) = -3, sqrt(16) = 4, exp(0) = 1, tanh(0) = 0.
        const char* text = R"(
func.func @f(%a: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %m2 = stablehlo.constant dense<-2.0> : tensor<f32>
  %c3 = stablehlo.constant dense<3.0> : tensor<f32>
  %c16 = stablehlo.constant dense<16.0> : tensor<f32>
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.abs %m2 : tensor<f32>
  %1 = stablehlo.negate %c3 : tensor<f32>
  %2 = stablehlo.sqrt %c16 : tensor<f32>
  %3 = stablehlo.exponential %c0 : tensor<f32>
  %4 = stablehlo.tanh %c0 : tensor<f32>
  return %0, %1, %2, %3, %4 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
})";
        auto r = runFunc(text, "f", {tensorOf("f32", {}, {0})});
        QCOMPARE(r.size(), size_t(5));
        QCOMPARE(r[0].getFloat(0), 2.0);
        QCOMPARE(r[1].getFloat(0), -3.0);
        QCOMPARE(r[2].getFloat(0), 4.0);
        QCOMPARE(r[3].getFloat(0), 1.0);
        QCOMPARE(r[4].getFloat(0), 0.0);
    }

    void compareSelectClamp()
    {
        // a = [1, 5, 3], b = [2, 2, 3]: a < b = [T, F, F]; select(a<b, a, b) = [1, 2, 3];
        // clamp(2, a, 4) = [2, 4, 3].
        const char* text = R"(
func.func @f(%a: tensor<3xi32>, %b: tensor<3xi32>) -> (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) {
  %lo = stablehlo.constant dense<2> : tensor<i32>
  %hi = stablehlo.constant dense<4> : tensor<i32>
  %0 = stablehlo.compare  LT, %a, %b,  SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  %1 = stablehlo.select %0, %a, %b : tensor<3xi1>, tensor<3xi32>
  %2 = stablehlo.clamp %lo, %a, %hi : (tensor<i32>, tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  return %0, %1, %2 : tensor<3xi1>, tensor<3xi32>, tensor<3xi32>
})";
        auto r = runFunc(text, "f", {tensorOf("i32", {3}, {1, 5, 3}), tensorOf("i32", {3}, {2, 2, 3})});
        QCOMPARE(r.size(), size_t(3));
        QCOMPARE(valuesOf(r[0]), (Values{1, 0, 0}));
        QCOMPARE(valuesOf(r[1]), (Values{1, 2, 3}));
        QCOMPARE(valuesOf(r[2]), (Values{2, 4, 3}));
    }

    void convertAndBitcast()
    {
        // f32 -> i32 truncates toward zero: [2.7, -2.7] -> [2, -2]; i32 -> f32: [2, -2] -> [2.0, -2.0].
        // bitcast f32 1.0 -> i32 0x3F800000 = 1065353216.
        const char* text = R"(
func.func @f(%a: tensor<2xf32>) -> (tensor<2xi32>, tensor<2xf32>, tensor<i32>) {
  %0 = stablehlo.convert %a : (tensor<2xf32>) -> tensor<2xi32>
  %1 = stablehlo.convert %0 : (tensor<2xi32>) -> tensor<2xf32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %2 = stablehlo.bitcast_convert %one : (tensor<f32>) -> tensor<i32>
  return %0, %1, %2 : tensor<2xi32>, tensor<2xf32>, tensor<i32>
})";
        auto r = runFunc(text, "f", {tensorOf("f32", {2}, {2.7, -2.7})});
        QCOMPARE(r.size(), size_t(3));
        QCOMPARE(valuesOf(r[0]), (Values{2, -2}));
        QCOMPARE(valuesOf(r[1]), (Values{2, -2}));
        QCOMPARE(r[2].getInt(0), int64_t(1065353216));
    }

    void halfAndBfloat16Rounding()
    {
        // 1/3 in f32 is 0x3EAAAAAB. f16: 1/3 = 1.0101...b x 2^-2, the 10-bit mantissa 0101010101 and
        // the rest 0101... < half: 0x3555 = 0.333251953125. bf16 keeps the top 16 bits 0x3EAA, the
        // dropped 0xAAAB > 0x8000 rounds up: 0x3EAB = 0.333984375.
        const char* text = R"(
func.func @f(%a: tensor<f32>) -> (tensor<f16>, tensor<bf16>) {
  %0 = stablehlo.convert %a : (tensor<f32>) -> tensor<f16>
  %1 = stablehlo.convert %a : (tensor<f32>) -> tensor<bf16>
  return %0, %1 : tensor<f16>, tensor<bf16>
})";
        auto r = runFunc(text, "f", {tensorOf("f32", {}, {1.0 / 3.0})});
        QCOMPARE(r.size(), size_t(2));
        QCOMPARE(r[0].getFloat(0), 0.333251953125);
        QCOMPARE(r[1].getFloat(0), 0.333984375);
    }

    void constantIotaReshapeTranspose()
    {
        // iota dim 1 of 2x3: [[0,1,2],[0,1,2]]; + constant [[10,20,30],[40,50,60]] = [[10,21,32],[40,51,62]];
        // transpose [1,0] -> [[10,40],[21,51],[32,62]]; reshape to 6 keeps row-major order.
        const char* text = R"(
func.func @f() -> tensor<6xi32> {
  %0 = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %c = stablehlo.constant dense<[[10, 20, 30], [40, 50, 60]]> : tensor<2x3xi32>
  %1 = stablehlo.add %0, %c : tensor<2x3xi32>
  %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %3 = stablehlo.reshape %2 : (tensor<3x2xi32>) -> tensor<6xi32>
  return %3 : tensor<6xi32>
})";
        QCOMPARE(runValues(text), (Values{10, 40, 21, 51, 32, 62}));
    }

    void sliceConcatReverseBroadcast()
    {
        // a = [0..5]: slice [1:6:2] = [1, 3, 5]; reverse = [5, 3, 1]; concat = [1,3,5,5,3,1];
        // broadcast_in_dim of [7, 8] into 2x2 along dim 1: [[7,8],[7,8]].
        const char* text = R"(
func.func @f(%a: tensor<6xi32>) -> (tensor<6xi32>, tensor<2x2xi32>) {
  %0 = stablehlo.slice %a [1:6:2] : (tensor<6xi32>) -> tensor<3xi32>
  %1 = stablehlo.reverse %0, dims = [0] : tensor<3xi32>
  %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<3xi32>, tensor<3xi32>) -> tensor<6xi32>
  %c = stablehlo.constant dense<[7, 8]> : tensor<2xi32>
  %3 = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<2xi32>) -> tensor<2x2xi32>
  return %2, %3 : tensor<6xi32>, tensor<2x2xi32>
})";
        auto r = runFunc(text, "f", {tensorOf("i32", {6}, {0, 1, 2, 3, 4, 5})});
        QCOMPARE(r.size(), size_t(2));
        QCOMPARE(valuesOf(r[0]), (Values{1, 3, 5, 5, 3, 1}));
        QCOMPARE(valuesOf(r[1]), (Values{7, 8, 7, 8}));
    }

    void padWithNegativeAndInteriorPadding()
    {
        // [1, 2, 3] with low -1, interior 1, high 2, value 0: interior gives [1,0,2,0,3], low -1 drops
        // the first: [0,2,0,3], high 2 appends [0,0]: [0,2,0,3,0,0].
        const char* text = R"(
func.func @f(%a: tensor<3xi32>) -> tensor<6xi32> {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.pad %a, %z, low = [-1], high = [2], interior = [1] : (tensor<3xi32>, tensor<i32>) -> tensor<6xi32>
  return %0 : tensor<6xi32>
})";
        QCOMPARE(runValues(text, {tensorOf("i32", {3}, {1, 2, 3})}), (Values{0, 2, 0, 3, 0, 0}));
    }

    void dynamicSliceClampsAndUpdateSlice()
    {
        // dynamic_slice of [0..4] at 4 with size 2 clamps the start to 3: [3, 4];
        // dynamic_update_slice of [0..4] with [9, 9] at 1: [0, 9, 9, 3, 4].
        const char* text = R"(
func.func @f(%a: tensor<5xi32>) -> (tensor<2xi32>, tensor<5xi32>) {
  %i4 = stablehlo.constant dense<4> : tensor<i32>
  %i1 = stablehlo.constant dense<1> : tensor<i32>
  %u = stablehlo.constant dense<9> : tensor<2xi32>
  %0 = stablehlo.dynamic_slice %a, %i4, sizes = [2] : (tensor<5xi32>, tensor<i32>) -> tensor<2xi32>
  %1 = stablehlo.dynamic_update_slice %a, %u, %i1 : (tensor<5xi32>, tensor<2xi32>, tensor<i32>) -> tensor<5xi32>
  return %0, %1 : tensor<2xi32>, tensor<5xi32>
})";
        auto r = runFunc(text, "f", {tensorOf("i32", {5}, {0, 1, 2, 3, 4})});
        QCOMPARE(r.size(), size_t(2));
        QCOMPARE(valuesOf(r[0]), (Values{3, 4}));
        QCOMPARE(valuesOf(r[1]), (Values{0, 9, 9, 3, 4}));
    }

    void dotGeneralSumsInRowMajorOrderFromZero()
    {
        // In f32: 1e8 + (-1e8) + 1 = 1 but 1e8 + 1 + (-1e8) = 0 (1e8 + 1 rounds to 1e8: float spacing
        // at 1e8 is 8). The contracting index runs in row-major order from 0.
        const char* text = R"(
func.func @f(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
})";
        const auto ones = tensorOf("f32", {3}, {1, 1, 1});
        QCOMPARE(runValues(text, {tensorOf("f32", {3}, {1e8, -1e8, 1}), ones}), (Values{1}));
        QCOMPARE(runValues(text, {tensorOf("f32", {3}, {1e8, 1, -1e8}), ones}), (Values{0}));
    }

    void dotGeneralWithBatching()
    {
        // Batch 2 of [1x2] . [2x1]: batch 0: [1,2].[3,4] = 11; batch 1: [5,6].[7,8] = 83.
        const char* text = R"(
func.func @f(%a: tensor<2x1x2xi32>, %b: tensor<2x2x1xi32>) -> tensor<2x1x1xi32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x1x2xi32>, tensor<2x2x1xi32>) -> tensor<2x1x1xi32>
  return %0 : tensor<2x1x1xi32>
})";
        QCOMPARE(runValues(text, {tensorOf("i32", {2, 1, 2}, {1, 2, 5, 6}), tensorOf("i32", {2, 2, 1}, {3, 4, 7, 8})}),
                 (Values{11, 83}));
        // dot of [2x2] and [2]: [[1,2],[3,4]] . [5,6] = [17, 39].
        const char* dot = R"(
func.func @f(%a: tensor<2x2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.dot %a, %b : (tensor<2x2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
})";
        QCOMPARE(runValues(dot, {tensorOf("i32", {2, 2}, {1, 2, 3, 4}), tensorOf("i32", {2}, {5, 6})}),
                 (Values{17, 39}));
    }

    void convolution1d()
    {
        // Input [1,2,3,4] (batch 1, feature 1), kernel [1,0,-1], no padding: out[i] = x[i] - x[i+2]
        // = [1-3, 2-4] = [-2, -2]. With padding 1 on both sides: [0-2, 1-3, 2-4, 3-0] = [-2,-2,-2,3].
        const char* text = R"(
func.func @f(%x: tensor<1x1x4xf32>, %k: tensor<1x1x3xf32>) -> (tensor<1x1x2xf32>, tensor<1x1x4xf32>) {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = [[0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x4xf32>, tensor<1x1x3xf32>) -> tensor<1x1x2xf32>
  %1 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = [[1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x4xf32>, tensor<1x1x3xf32>) -> tensor<1x1x4xf32>
  return %0, %1 : tensor<1x1x2xf32>, tensor<1x1x4xf32>
})";
        auto r = runFunc(text, "f", {tensorOf("f32", {1, 1, 4}, {1, 2, 3, 4}), tensorOf("f32", {1, 1, 3}, {1, 0, -1})});
        QCOMPARE(r.size(), size_t(2));
        QCOMPARE(valuesOf(r[0]), (Values{-2, -2}));
        QCOMPARE(valuesOf(r[1]), (Values{-2, -2, -2, 3}));
    }

    void reduceFoldsFromInit()
    {
        // Sum over dim 1 of [[1,2,3],[4,5,6]] from 10: [16, 25]. Max over dim 0: [4, 5, 6] (init -100).
        const char* text = R"(
func.func @f(%a: tensor<2x3xi32>) -> (tensor<2xi32>, tensor<3xi32>) {
  %init = stablehlo.constant dense<10> : tensor<i32>
  %low = stablehlo.constant dense<-100> : tensor<i32>
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.add across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
  %1 = stablehlo.reduce(%a init: %low) applies stablehlo.maximum across dimensions = [0] : (tensor<2x3xi32>, tensor<i32>) -> tensor<3xi32>
  return %0, %1 : tensor<2xi32>, tensor<3xi32>
})";
        auto r = runFunc(text, "f", {tensorOf("i32", {2, 3}, {1, 2, 3, 4, 5, 6})});
        QCOMPARE(r.size(), size_t(2));
        QCOMPARE(valuesOf(r[0]), (Values{16, 25}));
        QCOMPARE(valuesOf(r[1]), (Values{4, 5, 6}));
    }

    void reduceWithGeneralBody()
    {
        // A body that is no single binary op: acc * 2 + x over [1, 2, 3] from 0: ((0*2+1)*2+2)*2+3 = 11.
        const char* text = R"(
func.func @f(%a: tensor<3xi32>) -> tensor<i32> {
  %init = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.reduce(%a init: %init) across dimensions = [0] : (tensor<3xi32>, tensor<i32>) -> tensor<i32>
   reducer(%acc: tensor<i32>, %x: tensor<i32>) {
    %two = stablehlo.constant dense<2> : tensor<i32>
    %m = stablehlo.multiply %acc, %two : tensor<i32>
    %s = stablehlo.add %m, %x : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }
  return %0 : tensor<i32>
})";
        QCOMPARE(runValues(text, {tensorOf("i32", {3}, {1, 2, 3})}), (Values{11}));
    }

    void reduceWindowAndSelectAndScatter()
    {
        // Max over windows of 2, stride 1, of [1, 3, 2, 5]: [3, 3, 5].
        const char* rw = R"(
func.func @f(%a: tensor<4xi32>) -> tensor<3xi32> {
  %init = stablehlo.constant dense<-100> : tensor<i32>
  %0 = "stablehlo.reduce_window"(%a, %init) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 1>}> ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %m = stablehlo.maximum %x, %y : tensor<i32>
    stablehlo.return %m : tensor<i32>
  }) : (tensor<4xi32>, tensor<i32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
})";
        QCOMPARE(runValues(rw, {tensorOf("i32", {4}, {1, 3, 2, 5})}), (Values{3, 3, 5}));
        // Windows [1,5] and [2,8] (size 2, stride 2) select their maximum (GE): positions 1 and 3 get
        // the sources 10 and 20 added to the init 0: [0, 10, 0, 20].
        const char* sas = R"(
func.func @f(%a: tensor<4xi32>, %s: tensor<2xi32>) -> tensor<4xi32> {
  %init = stablehlo.constant dense<0> : tensor<i32>
  %0 = "stablehlo.select_and_scatter"(%a, %s, %init) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %c = stablehlo.compare  GE, %x, %y,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %m = stablehlo.add %x, %y : tensor<i32>
    stablehlo.return %m : tensor<i32>
  }) : (tensor<4xi32>, tensor<2xi32>, tensor<i32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
})";
        QCOMPARE(runValues(sas, {tensorOf("i32", {4}, {1, 5, 2, 8}), tensorOf("i32", {2}, {10, 20})}),
                 (Values{0, 10, 0, 20}));
    }

    void gatherAndScatter()
    {
        // Gather rows 3 and 0 of [10, 20, 30, 40]: [40, 10].
        const char* gather = R"(
func.func @f(%a: tensor<4xi32>, %i: tensor<2x1xi32>) -> tensor<2xi32> {
  %0 = "stablehlo.gather"(%a, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>}> : (tensor<4xi32>, tensor<2x1xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
})";
        QCOMPARE(runValues(gather, {tensorOf("i32", {4}, {10, 20, 30, 40}), tensorOf("i32", {2, 1}, {3, 0})}),
                 (Values{40, 10}));
        // Scatter-add 5 at index 1 and 7 at index 1 into [1, 1, 1]: [1, 13, 1].
        const char* scatter = R"(
func.func @f(%a: tensor<3xi32>, %i: tensor<2x1xi32>, %u: tensor<2xi32>) -> tensor<3xi32> {
  %0 = "stablehlo.scatter"(%a, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %s = stablehlo.add %x, %y : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) : (tensor<3xi32>, tensor<2x1xi32>, tensor<2xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
})";
        QCOMPARE(runValues(scatter, {tensorOf("i32", {3}, {1, 1, 1}), tensorOf("i32", {2, 1}, {1, 1}),
                                     tensorOf("i32", {2}, {5, 7})}),
                 (Values{1, 13, 1}));
    }

    void gatherAndScatterWithBatchingDimensions()
    {
        // operand[r][c] = 8r + c (4x8), offsets [1, 3, 5, 9]: row i takes operand[i][offset[i]], the last
        // clamped to column 7: [1, 11, 21, 31].
        const char* gather = R"(
func.func @f(%a: tensor<4x8xi32>, %o: tensor<4x1xi32>) -> tensor<4x1xi32> {
  %0 = "stablehlo.gather"(%a, %o) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>}> : (tensor<4x8xi32>, tensor<4x1xi32>) -> tensor<4x1xi32>
  return %0 : tensor<4x1xi32>
})";
        std::vector<double> values;
        for (int i = 0; i < 32; ++i)
            values.push_back(i);
        QCOMPARE(runValues(gather, {tensorOf("i32", {4, 8}, values), tensorOf("i32", {4, 1}, {1, 3, 5, 9})}),
                 (Values{1, 11, 21, 31}));
        // Scatter-add 1 into row i at column offset[i] of a 2x3 zero tensor, offsets [2, 0]:
        // [[0, 0, 1], [1, 0, 0]].
        const char* scatter = R"(
func.func @f(%a: tensor<2x3xi32>, %o: tensor<2x1xi32>, %u: tensor<2x1xi32>) -> tensor<2x3xi32> {
  %0 = "stablehlo.scatter"(%a, %o, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>}> ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %s = stablehlo.add %x, %y : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) : (tensor<2x3xi32>, tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
})";
        QCOMPARE(runValues(scatter, {tensorOf("i32", {2, 3}, {0, 0, 0, 0, 0, 0}), tensorOf("i32", {2, 1}, {2, 0}),
                                     tensorOf("i32", {2, 1}, {1, 1})}),
                 (Values{0, 0, 1, 1, 0, 0}));
    }

    void sortAscending()
    {
        // [3, 1, 2] with LT: [1, 2, 3].
        const char* text = R"(
func.func @f(%a: tensor<3xi32>) -> tensor<3xi32> {
  %0 = "stablehlo.sort"(%a) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %c = stablehlo.compare  LT, %x, %y,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) : (tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
})";
        QCOMPARE(runValues(text, {tensorOf("i32", {3}, {3, 1, 2})}), (Values{1, 2, 3}));
    }

    void controlFlowAndCalls()
    {
        // while i < 5: i = i + 1, from 0: 5. if (true) 1 else 2: 1. case 7 (out of range, 2 branches):
        // the last branch, 20. call @g(4) = 4 * 4 = 16.
        const char* text = R"(
func.func @g(%x: tensor<i32>) -> tensor<i32> {
  %0 = stablehlo.multiply %x, %x : tensor<i32>
  return %0 : tensor<i32>
}
func.func @f() -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c5 = stablehlo.constant dense<5> : tensor<i32>
  %w = stablehlo.while(%i = %c0) : tensor<i32>
   cond {
    %lt = stablehlo.compare  LT, %i, %c5,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %n = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %n : tensor<i32>
  }
  %t = stablehlo.constant dense<true> : tensor<i1>
  %if = "stablehlo.if"(%t) ({
    %a = stablehlo.constant dense<1> : tensor<i32>
    stablehlo.return %a : tensor<i32>
  }, {
    %b = stablehlo.constant dense<2> : tensor<i32>
    stablehlo.return %b : tensor<i32>
  }) : (tensor<i1>) -> tensor<i32>
  %idx = stablehlo.constant dense<7> : tensor<i32>
  %case = "stablehlo.case"(%idx) ({
    %a = stablehlo.constant dense<10> : tensor<i32>
    stablehlo.return %a : tensor<i32>
  }, {
    %b = stablehlo.constant dense<20> : tensor<i32>
    stablehlo.return %b : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  %c4 = stablehlo.constant dense<4> : tensor<i32>
  %call = func.call @g(%c4) : (tensor<i32>) -> tensor<i32>
  return %w, %if, %case, %call : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
})";
        auto r = runFunc(text, "f", {});
        QCOMPARE(r.size(), size_t(4));
        QCOMPARE(r[0].getInt(0), int64_t(5));
        QCOMPARE(r[1].getInt(0), int64_t(1));
        QCOMPARE(r[2].getInt(0), int64_t(20));
        QCOMPARE(r[3].getInt(0), int64_t(16));
    }

    void fftByDirectDft()
    {
        // RFFT of [1, 2, 3, 4]: X0 = 10, X1 = 1 - 2i - 3 + 4i = -2 + 2i, X2 = 1 - 2 + 3 - 4 = -2.
        // FFT of that complex row [10, -2+2i, -2] (n = 3) then IFFT gives it back.
        const char* text = R"(
func.func @f(%a: tensor<4xf64>) -> (tensor<3xcomplex<f64>>, tensor<3xcomplex<f64>>, tensor<4xf64>) {
  %0 = stablehlo.fft %a, type =  RFFT, length = [4] : (tensor<4xf64>) -> tensor<3xcomplex<f64>>
  %1 = stablehlo.fft %0, type =  FFT, length = [3] : (tensor<3xcomplex<f64>>) -> tensor<3xcomplex<f64>>
  %2 = stablehlo.fft %1, type =  IFFT, length = [3] : (tensor<3xcomplex<f64>>) -> tensor<3xcomplex<f64>>
  %3 = stablehlo.fft %2, type =  IRFFT, length = [4] : (tensor<3xcomplex<f64>>) -> tensor<4xf64>
  return %0, %2, %3 : tensor<3xcomplex<f64>>, tensor<3xcomplex<f64>>, tensor<4xf64>
})";
        auto r = runFunc(text, "f", {tensorOf("f64", {4}, {1, 2, 3, 4})});
        QCOMPARE(r.size(), size_t(3));
        const std::complex<double> expected[] = {{10, 0}, {-2, 2}, {-2, 0}};
        for (int k = 0; k < 3; ++k) {
            QVERIFY(std::abs(r[0].getComplex(k) - expected[k]) < 1e-12);
            QVERIFY(std::abs(r[1].getComplex(k) - expected[k]) < 1e-12);
        }
        // IRFFT of the spectrum is the input again.
        for (int t = 0; t < 4; ++t)
            QVERIFY(std::fabs(r[2].getFloat(t) - (t + 1)) < 1e-12);
    }

    void tokensOrderNothing()
    {
        // create_token and after_all give tokens; the data flows on unchanged.
        const char* text = R"(
func.func @f(%a: tensor<2xi32>) -> tensor<2xi32> {
  %t = stablehlo.create_token : !stablehlo.token
  %u = stablehlo.after_all %t, %t : !stablehlo.token
  return %a : tensor<2xi32>
})";
        QCOMPARE(runValues(text, {tensorOf("i32", {2}, {4, 5})}), (Values{4, 5}));
    }

    void attributesThatDoNotFitTheShapesAreAnError()
    {
        // A slice of elements 5..6 of a 4-element tensor reads outside it: an error at the op, no crash.
        const char* text = "func.func @f(%a: tensor<4xi32>) -> tensor<2xi32> {\n"
                           "  %0 = \"stablehlo.slice\"(%a) {start_indices = array<i64: 5>, limit_indices = "
                           "array<i64: 7>, strides = array<i64: 1>} : (tensor<4xi32>) -> tensor<2xi32>\n"
                           "  return %0 : tensor<2xi32>\n"
                           "}\n";
        auto m = parseProgram(text);
        QVERIFY(m);
        exec::ReferenceExecutor ex;
        auto r = ex.runFunction(*m, "f", {tensorOf("i32", {4}, {1, 2, 3, 4})});
        QVERIFY(!r);
        QVERIFY(has(r.error().format(), "test.mlir:2:"));
        QVERIFY(has(r.error().message, "stablehlo.slice"));
        QVERIFY(has(r.error().message, "outside tensor<4xi32>"));
    }

    void unsupportedOpIsAClearError()
    {
        const char* text = "func.func @f(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
                           "  %0 = \"stablehlo.cholesky\"(%a) : (tensor<2x2xf32>) -> tensor<2x2xf32>\n"
                           "  return %0 : tensor<2x2xf32>\n"
                           "}\n";
        auto m = parseProgram(text);
        QVERIFY(m);
        exec::ReferenceExecutor ex;
        auto r = ex.runFunction(*m, "f", {tensorOf("f32", {2, 2}, {1, 0, 0, 1})});
        QVERIFY(!r);
        const std::string msg = r.error().format();
        QVERIFY2(has(msg, "test.mlir:2:"), msg.c_str());
        QVERIFY(has(msg, "error:"));
        QVERIFY(has(msg, "stablehlo.cholesky"));
    }
};

QTEST_APPLESS_MAIN(TestReferenceExecutor)
#include "tst_referenceexecutor.moc"
