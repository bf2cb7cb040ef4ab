// Tests of JAX's explicit sharding mode (core/explicit): every example of seed 001, worked out by
// hand from its rules, and the rules of DOMAIN.md section 4 op by op.
#include <QtTest>

#include <memory>
#include <string>

#include "core/explicit/ExplicitComparison.h"
#include "core/explicit/ExplicitTyper.h"
#include "core/session/Session.h"
#include "tests/TestSupport.h"

using namespace shardx;
using namespace shardx::explicit_;
using shardx::testing::has;

namespace {

/// A module opened in a session and typed.
struct Typed {
    std::unique_ptr<Session> session = std::make_unique<Session>();
    ExplicitResult result;

    /// The printed type of the value named `name` (`%0`, `%arg0`, `result 0`) in `func`, or
    /// `<missing>`.
    std::string type(const std::string& name, const std::string& func = "@main") const
    {
        for (const TypedValue& t : result.values)
            if (t.name == name && t.func == func)
                return t.type ? t.type->toString() : std::string("<untyped>");
        return "<missing>";
    }
    std::string errors() const { return result.diagnostics.formatAll(); }
    size_t errorCount() const
    {
        size_t n = 0;
        for (const Diagnostic& d : result.diagnostics.all())
            n += d.severity == Severity::Error;
        return n;
    }
};

Typed typeText(const std::string& text, const AxisTypeOverrides& axes = {})
{
    Typed t;
    if (!t.session->openText(text, "seed.mlir"))
        qWarning("%s", t.session->diagnostics().formatAll().c_str());
    ExplicitOptions options;
    options.axisTypes = axes;
    options.ids = t.session->ids();
    if (t.session->sourceModule())
        t.result = typeModule(*t.session->sourceModule(), options);
    return t;
}

// The seed's mesh: jax.make_mesh((2, 4), ("X", "Y"), axis_types=(Explicit, Explicit)). Every
// sharding below is closed, as JAX writes them on an all-Explicit mesh.
const std::string kMesh = "sdy.mesh @mesh = <[\"X\"=2, \"Y\"=4]>\n";

} // namespace

class TestExplicit : public QObject {
    Q_OBJECT

private slots:
    void typeOfAnUnshardedArray()
    {
        // `jax.typeof(np.arange(8))` is `int32[8]`; under jit `foo(x) = x + x` keeps it: the
        // zipped dimension is None on both sides, so None.
        Typed t = typeText(kMesh + R"(func.func @main(%arg0: tensor<8xi32>) -> tensor<8xi32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<8xi32>
  return %0 : tensor<8xi32>
})");
        QCOMPARE(t.type("%arg0"), std::string("i32[8]"));
        QCOMPARE(t.type("%0"), std::string("i32[8]"));
        QCOMPARE(t.type("result 0"), std::string("i32[8]"));
        QVERIFY2(t.result.ok(), t.errors().c_str());
    }

    void meshPrintsAsJaxAbstractMesh()
    {
        // `get_abstract_mesh()` of the seed: AbstractMesh('X': 2, 'Y': 4, axis_types=(Explicit,
        // Explicit)); no sharding of the module is open, so both axes read as Explicit.
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<8xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> tensor<8xi32> {
  return %arg0 : tensor<8xi32>
})");
        QCOMPARE(t.result.axisTypes.toString(t.result.mesh),
                 std::string("AbstractMesh('X': 2, 'Y': 4, axis_types=(Explicit, Explicit))"));
    }

    void reshardGivesTheType()
    {
        // `reshard(np.arange(8).reshape(4, 2), P("X", None))`: int32[4,2] -> int32[4@X,2]. JAX
        // lowers reshard as a sharding constraint.
        Typed t = typeText(kMesh + R"(func.func @main(%arg0: tensor<4x2xi32>) -> tensor<4x2xi32> {
  %0 = sdy.sharding_constraint %arg0 <@mesh, [{"X"}, {}]> : tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
})");
        QCOMPARE(t.type("%arg0"), std::string("i32[4,2]"));
        QCOMPARE(t.type("%0"), std::string("i32[4@X,2]"));
        QVERIFY2(t.result.ok(), t.errors().c_str());
    }

    void addArraysBroadcastsOuterDimensions()
    {
        // arg0: int32[4@X,1], arg1: int32[1,8@Y]; `arg0 + arg1` broadcasts both to [4,8] (jnp's
        // broadcast_in_dim): arg0's dim 0 (4) keeps X, its size-1 dim 1 becomes 8 and None ->
        // i32[4@X,8]; arg1 -> i32[4,8@Y]. add zips: dim 0 {X, None} -> X, dim 1 {None, Y} -> Y:
        // i32[4@X,8@Y], the seed's `ans sharding`.
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<4x1xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}, %arg1: tensor<1x8xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"Y"}]>}) -> tensor<4x8xi32> {
  %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<4x1xi32>) -> tensor<4x8xi32>
  %1 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<1x8xi32>) -> tensor<4x8xi32>
  %2 = stablehlo.add %0, %1 : tensor<4x8xi32>
  return %2 : tensor<4x8xi32>
})");
        QCOMPARE(t.type("%arg0"), std::string("i32[4@X,1]"));
        QCOMPARE(t.type("%arg1"), std::string("i32[1,8@Y]"));
        QCOMPARE(t.type("%0"), std::string("i32[4@X,8]"));
        QCOMPARE(t.type("%1"), std::string("i32[4,8@Y]"));
        QCOMPARE(t.type("%2"), std::string("i32[4@X,8@Y]"));
        QVERIFY2(t.result.ok(), t.errors().c_str());
    }

    void addUsingAnAxisTwiceIsAnError()
    {
        // some_x: i32[4@X,4], some_y: i32[4,4@X]. add zips dim 0 {X, None} -> X and dim 1
        // {None, X} -> X: i32[4@X,4@X] names X twice, which is illegal. The seed's message:
        // "add operation with inputs: i32[4@X,4], i32[4,4@X] produces an illegally sharded
        // result: i32[4@X,4@X]", at the op (line 3 of the text, column 3).
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}, %arg1: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"X"}]>}) -> tensor<4x4xi32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
})");
        QCOMPARE(t.errorCount(), size_t(1));
        const std::string e = t.errors();
        QVERIFY(has(e, "seed.mlir:3:3: error: add operation with inputs: i32[4@X,4], i32[4,4@X] produces an illegally "
                       "sharded result: i32[4@X,4@X]"));
        QVERIFY(has(e, "out sharding"));
        // Typing goes on with X kept at its first use.
        QCOMPARE(t.type("%0"), std::string("i32[4@X,4]"));
    }

    void autoAxesWithOutShardingsFixesTheAdd()
    {
        // `auto_axes(add)(some_x, some_y, out_shardings=P("X", None))`: inside, every axis is
        // Auto, so the operands' types are i32[4,4] and the add is i32[4,4] (no error); the result
        // takes out_shardings: i32[4@X,4], the seed's `Result type`.
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}, %arg1: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"X"}]>}) -> tensor<4x4xi32> {
  %0 = sdy.named_computation<"auto_axes">(%arg0, %arg1) out_shardings=[<@mesh, [{"X"}, {}]>] (%arg2: tensor<4x4xi32>, %arg3: tensor<4x4xi32>) {
    %1 = stablehlo.add %arg2, %arg3 : tensor<4x4xi32>
    sdy.return %1 : tensor<4x4xi32>
  } : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
})");
        QVERIFY2(t.result.ok(), t.errors().c_str());
        QCOMPARE(t.type("%arg2"), std::string("i32[4,4]"));
        QCOMPARE(t.type("%1"), std::string("i32[4,4]"));
        QCOMPARE(t.type("%0"), std::string("i32[4@X,4]"));
    }

    void autoAxesNeedsOutShardings()
    {
        // Results leave the Auto region: without out_shardings their type is unknown.
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}) -> tensor<4x4xi32> {
  %0 = sdy.named_computation<"auto_axes">(%arg0) (%arg1: tensor<4x4xi32>) {
    sdy.return %arg1 : tensor<4x4xi32>
  } : (tensor<4x4xi32>) -> tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
})");
        QVERIFY(has(t.errors(), "seed.mlir:3:3: error: auto_axes needs out_shardings"));
    }

    void autoAxesOnOneAxisMixesModes()
    {
        // f(arr1) with arr1 = reshard(arange(16).reshape(4, 4), P("X", "Y")): x = sin(arr1) keeps
        // float32[4@X,4@Y]. g = auto_axes(axes='X'): inside, X is Auto and Y Explicit, so y is
        // float32[4,4@Y] (the seed's `y.sharding inside g`), and y * 2 zips {Y, None} ->
        // f32[4,4@Y] (the 2 is a constant broadcast: unsharded). z = g(x, out_shardings=P("X",
        // "Y")) is f32[4@X,4@Y]; z + 1 keeps it.
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {"Y"}]>}) -> tensor<4x4xf32> {
  %0 = stablehlo.sine %arg0 : tensor<4x4xf32>
  %1 = sdy.named_computation<"auto_axes">(%0) out_shardings=[<@mesh, [{"X"}, {"Y"}]>] (%arg1: tensor<4x4xf32>) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %4 = stablehlo.multiply %arg1, %3 : tensor<4x4xf32>
    sdy.return %4 : tensor<4x4xf32>
  } {axes = ["X"]} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
  %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
  %5 = stablehlo.add %1, %2 : tensor<4x4xf32>
  return %5 : tensor<4x4xf32>
})");
        QVERIFY2(t.result.ok(), t.errors().c_str());
        QCOMPARE(t.type("%0"), std::string("f32[4@X,4@Y]"));
        QCOMPARE(t.type("%arg1"), std::string("f32[4,4@Y]"));
        QCOMPARE(t.type("%3"), std::string("f32[4,4]"));
        QCOMPARE(t.type("%4"), std::string("f32[4,4@Y]"));
        QCOMPARE(t.type("%1"), std::string("f32[4@X,4@Y]"));
        QCOMPARE(t.type("%5"), std::string("f32[4@X,4@Y]"));
    }

    void explicitAxesOnAnAutoMesh()
    {
        // auto_mesh: X and Y Auto. The function's result is left open ({?}): JAX leaves the
        // dimensions of an Auto mesh open, so both axes read as Auto (no `replicated` list names
        // an Explicit one). x = sin(arr1) has no sharding in its type: f32[4,4]. explicit_g =
        // explicit_axes(axes=('X', 'Y')) with in_shardings=P("X", "Y"): y is float32[4@X,4@Y] and
        // z = y * 2 float32[4@X,4@Y] (the seed's two lines inside g). z leaves the region for an
        // Auto context: its type there is f32[4,4], and z + 1 too.
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {"Y"}]>}) -> (tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}, {?}]>}) {
  %0 = stablehlo.sine %arg0 : tensor<4x4xf32>
  %1 = sdy.named_computation<"explicit_axes">(%0) in_shardings=[<@mesh, [{"X"}, {"Y"}]>] (%arg1: tensor<4x4xf32>) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %4 = stablehlo.multiply %arg1, %3 : tensor<4x4xf32>
    sdy.return %4 : tensor<4x4xf32>
  } {axes = ["X", "Y"]} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
  %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
  %5 = stablehlo.add %1, %2 : tensor<4x4xf32>
  return %5 : tensor<4x4xf32>
})");
        QVERIFY2(t.result.ok(), t.errors().c_str());
        QCOMPARE(t.result.axisTypes.toString(t.result.mesh),
                 std::string("AbstractMesh('X': 2, 'Y': 4, axis_types=(Auto, Auto))"));
        QCOMPARE(t.type("%arg0"), std::string("f32[4,4]"));
        QCOMPARE(t.type("%0"), std::string("f32[4,4]"));
        QCOMPARE(t.type("%arg1"), std::string("f32[4@X,4@Y]"));
        QCOMPARE(t.type("%4"), std::string("f32[4@X,4@Y]"));
        QCOMPARE(t.type("%1"), std::string("f32[4,4]"));
        QCOMPARE(t.type("%5"), std::string("f32[4,4]"));
    }

    void concreteShardingMayBeMoreSpecific()
    {
        // my_array = sin(reshard(arange(8), P("X"))). On the Explicit mesh the concrete and the
        // type-specified sharding agree: P('X'). In an Auto context (both axes Auto, set by the
        // user here) the type is f32[8] while Shardy's propagation shards sin's result on X from
        // the argument: the concrete sharding f32[8@X] is more specific, not a contradiction.
        const std::string text =
            kMesh +
            R"(func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}]>}) -> tensor<8xf32> {
  %0 = stablehlo.sine %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
})";
        Typed explicitMode = typeText(text);
        QCOMPARE(explicitMode.type("%0"), std::string("f32[8@X]"));
        PropagationRequest request;
        QVERIFY(explicitMode.session->propagate(request).ok);
        QVERIFY(compareWithPropagated(explicitMode.result, *explicitMode.session->module()).empty());

        Typed autoMode = typeText(text, {{"X", AxisType::Auto}, {"Y", AxisType::Auto}});
        QCOMPARE(autoMode.type("%0"), std::string("f32[8]"));
        QVERIFY(autoMode.session->propagate(request).ok);
        std::vector<TypeDifference> diffs = compareWithPropagated(autoMode.result, *autoMode.session->module());
        QCOMPARE(diffs.size(), size_t(2)); // %arg0 and %0
        QCOMPARE(diffs[1].name, std::string("%0"));
        QCOMPARE(diffs[1].type.toString(), std::string("f32[8]"));
        QCOMPARE(diffs[1].concrete, std::string("f32[8@X]"));
        QVERIFY(diffs[1].moreSpecific);
        QVERIFY(has(diffs[1].reason, "more specific"));
    }

    void propagationDisagreeingOnAnExplicitAxisIsExplained()
    {
        // x: f32[8] (closed, Explicit), sin(x): f32[8] by the unary rule, then a reshard to
        // P("X"): f32[8@X]. Shardy's propagation works backwards from the constraint too and
        // shards sin's result on X (the argument is closed, so it keeps {}): %0's concrete
        // sharding f32[8@X] differs from its type on the Explicit axis X, and the reason says
        // that propagation shards it further than JAX's rules do.
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> tensor<8xf32> {
  %0 = stablehlo.sine %arg0 : tensor<8xf32>
  %1 = sdy.sharding_constraint %0 <@mesh, [{"X"}]> : tensor<8xf32>
  return %1 : tensor<8xf32>
})");
        QVERIFY2(t.result.ok(), t.errors().c_str());
        QCOMPARE(t.type("%0"), std::string("f32[8]"));
        QCOMPARE(t.type("%1"), std::string("f32[8@X]"));
        PropagationRequest request;
        QVERIFY(t.session->propagate(request).ok);
        std::vector<TypeDifference> diffs = compareWithPropagated(t.result, *t.session->module());
        QCOMPARE(diffs.size(), size_t(1));
        QCOMPARE(diffs[0].name, std::string("%0"));
        QCOMPARE(diffs[0].concrete, std::string("f32[8@X]"));
        QVERIFY(!diffs[0].moreSpecific);
        QVERIFY(has(diffs[0].reason, "Shardy's propagation shards it further, on Explicit axes, than JAX's rule"));
    }

    void nullaryOpsAreUnshardedUnlessGivenAnOutSharding()
    {
        // jnp.zeros / arange: constant and iota are unsharded; `out_sharding=P("X")` (an
        // sdy.sharding on the op) gives f32[8@X].
        Typed t = typeText(kMesh + R"(func.func @main() -> (tensor<8xf32>, tensor<8xi32>, tensor<8xi32>) {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<8xf32>
  %0 = stablehlo.iota dim = 0 : tensor<8xi32>
  %1 = stablehlo.iota dim = 0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"X"}]>]>} : tensor<8xi32>
  return %cst, %0, %1 : tensor<8xf32>, tensor<8xi32>, tensor<8xi32>
})");
        QVERIFY2(t.result.ok(), t.errors().c_str());
        QCOMPARE(t.type("%cst"), std::string("f32[8]"));
        QCOMPARE(t.type("%0"), std::string("i32[8]"));
        QCOMPARE(t.type("%1"), std::string("i32[8@X]"));
    }

    void unaryElementwiseKeepsTheInput()
    {
        // sin, exp: the output is sharded as the input: f32[8@X,4@Y].
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {"Y"}]>}) -> tensor<8x4xf32> {
  %0 = stablehlo.sine %arg0 : tensor<8x4xf32>
  %1 = stablehlo.exponential %0 : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
})");
        QCOMPARE(t.type("%0"), std::string("f32[8@X,4@Y]"));
        QCOMPARE(t.type("%1"), std::string("f32[8@X,4@Y]"));
    }

    void binaryZippedDimensionsMustMatch()
    {
        // f32[8@X] * f32[8@Y]: dim 0 {X, Y} has no consensus: an error; recovered unsharded.
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}]>}, %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"Y"}]>}) -> tensor<8xf32> {
  %0 = stablehlo.multiply %arg0, %arg1 : tensor<8xf32>
  return %0 : tensor<8xf32>
})");
        QVERIFY(has(t.errors(), "seed.mlir:3:3: error: multiply operation with inputs: f32[8@X], f32[8@Y] has "
                                "incompatible shardings on the zipped dimension 0 (X and Y)"));
        QCOMPARE(t.type("%0"), std::string("f32[8]"));
    }

    void reshapeSplitsAndMerges()
    {
        // Input f32[8,4@Y] (4 % 4 = 0).
        // %0 [8,4] -> [2,4,4]: 8 splits into 2x4 (unsharded: both None), 4@Y keeps Y:
        //    f32[2,4,4@Y].
        // %1 [2,4,4] -> [8,4]: the merge of 2 and 4 (unsharded) gives None: f32[8,4@Y].
        // %2 [8,4] -> [8,1,4]: after dropping the size-1 dimension the shapes are equal: each
        //    dimension keeps its sharding, the new one None: f32[8,1,4@Y].
        // %3 [8,1,4] -> [8,4]: f32[8,4@Y].
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"Y"}]>}) -> tensor<8x4xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<8x4xf32>) -> tensor<2x4x4xf32>
  %1 = stablehlo.reshape %0 : (tensor<2x4x4xf32>) -> tensor<8x4xf32>
  %2 = stablehlo.reshape %1 : (tensor<8x4xf32>) -> tensor<8x1x4xf32>
  %3 = stablehlo.reshape %2 : (tensor<8x1x4xf32>) -> tensor<8x4xf32>
  return %3 : tensor<8x4xf32>
})");
        QVERIFY2(t.result.ok(), t.errors().c_str());
        QCOMPARE(t.type("%0"), std::string("f32[2,4,4@Y]"));
        QCOMPARE(t.type("%1"), std::string("f32[8,4@Y]"));
        QCOMPARE(t.type("%2"), std::string("f32[8,1,4@Y]"));
        QCOMPARE(t.type("%3"), std::string("f32[8,4@Y]"));
    }

    void reshapeOfShardedSplitOrMergeIsAnError()
    {
        // %0: [8@X,4] -> [2,4,4] splits dimension 0, sharded on X: error.
        // %1: [8,4@Y] -> [32] merges dimensions 0 and 1, dimension 1 sharded on Y: error.
        // %2: [6,4] -> [4,6] (unsharded) is neither one split nor one merge: error as well
        //     (seed: "in all other cases, we throw an error").
        // %3: [4,6] -> [2,2,2,3] splits two dimensions: neither a single split nor a merge.
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}, %arg1: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"Y"}]>}, %arg2: tensor<6x4xf32>, %arg3: tensor<4x6xf32>) -> (tensor<2x4x4xf32>, tensor<32xf32>, tensor<4x6xf32>, tensor<2x2x2x3xf32>) {
  %0 = stablehlo.reshape %arg0 : (tensor<8x4xf32>) -> tensor<2x4x4xf32>
  %1 = stablehlo.reshape %arg1 : (tensor<8x4xf32>) -> tensor<32xf32>
  %2 = stablehlo.reshape %arg2 : (tensor<6x4xf32>) -> tensor<4x6xf32>
  %3 = stablehlo.reshape %arg3 : (tensor<4x6xf32>) -> tensor<2x2x2x3xf32>
  return %0, %1, %2, %3 : tensor<2x4x4xf32>, tensor<32xf32>, tensor<4x6xf32>, tensor<2x2x2x3xf32>
})");
        QCOMPARE(t.errorCount(), size_t(4));
        const std::string e = t.errors();
        QVERIFY(has(e, "seed.mlir:3:3: error: reshape operation from f32[8@X,4] to shape [2,4,4] splits dimension 0 "
                       "(size 8), which is sharded on X"));
        QVERIFY(has(e, "seed.mlir:4:3: error: reshape operation from f32[8,4@Y] to shape [32] merges dimensions 0 "
                       "and 1, of which dimension 1 is sharded on Y"));
        QVERIFY(has(e, "seed.mlir:5:3: error: reshape operation from f32[6,4] to shape [4,6] is neither a split"));
        QVERIFY(has(e, "seed.mlir:6:3: error: reshape operation from f32[4,6] to shape [2,2,2,3] is neither"));
    }

    void dotGeneralKeepsBatchAndFreeDimensions()
    {
        // lhs f32[2@X,8,4] (batch 0, free 1, contracting 2), rhs f32[2@X,4,16@Y] (batch 0,
        // contracting 1, free 2): batch {X, X} -> X, lhs free 8 None, rhs free 16 Y:
        // f32[2@X,8,16@Y]. Contracting dimensions unsharded on both sides: no ambiguity.
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<2x8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}, {}]>}, %arg1: tensor<2x4x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}, {"Y"}]>}) -> tensor<2x8x16xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x8x4xf32>, tensor<2x4x16xf32>) -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
})");
        QVERIFY2(t.result.ok(), t.errors().c_str());
        QCOMPARE(t.type("%0"), std::string("f32[2@X,8,16@Y]"));
    }

    void dotGeneralContractingShardedOnBothSidesIsAmbiguous()
    {
        // f32[8,4@X] . f32[4@X,16]: the contracting dimension is X on both sides; the result
        // could be replicated or unreduced: JAX asks for out_sharding. With out_sharding
        // P(None, "Y") on the op (%1) or as the constraint JAX lowers it to (%2 -> %3), no error.
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"X"}]>}, %arg1: tensor<4x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %1 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {"Y"}]>]>} : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %2 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %3 = sdy.sharding_constraint %2 <@mesh, [{}, {"Y"}]> : tensor<8x16xf32>
  return %0, %1, %3 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
})");
        QCOMPARE(t.errorCount(), size_t(1));
        QVERIFY(has(t.errors(), "seed.mlir:3:3: error: dot_general operation with inputs: f32[8,4@X], f32[4@X,16] "
                                "contracts dimensions sharded on both sides (lhs dimension 1 on X, rhs dimension 0 on "
                                "X): it is ambiguous how the output should be sharded; give it an explicit out "
                                "sharding"));
        QCOMPARE(t.type("%0"), std::string("f32[8,16]"));
        QCOMPARE(t.type("%1"), std::string("f32[8,16@Y]"));
        QCOMPARE(t.type("%2"), std::string("f32[8,16@Y]"));
        QCOMPARE(t.type("%3"), std::string("f32[8,16@Y]"));
    }

    void dotGeneralUsingAnAxisTwiceIsAnError()
    {
        // f32[8@X,4] . f32[4,16@X]: lhs free 8@X, rhs free 16@X: f32[8@X,16@X] is illegal.
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}, %arg1: tensor<4x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"X"}]>}) -> tensor<8x16xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
})");
        QVERIFY(has(t.errors(), "dot_general operation with inputs: f32[8@X,4], f32[4,16@X] produces an illegally "
                                "sharded result: f32[8@X,16@X]"));
    }

    void transposeAndReduce()
    {
        // transpose [8@X,4@Y] by [1, 0]: f32[4@Y,8@X]. Summing dimension 0 of it drops Y:
        // f32[8@X] (the compiler reduces over Y).
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {"Y"}]>}) -> tensor<8xf32> {
  %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
  return %1 : tensor<8xf32>
})");
        QVERIFY2(t.result.ok(), t.errors().c_str());
        QCOMPARE(t.type("%0"), std::string("f32[4@Y,8@X]"));
        QCOMPARE(t.type("%1"), std::string("f32[8@X]"));
    }

    void condBranchesMustMatch()
    {
        // lax.cond: both sides need matching shardings. Branch 0 returns f32[8@X], branch 1
        // f32[8]: an error; with both f32[8@X] the result is f32[8@X].
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<i1>, %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}]>}, %arg2: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = "stablehlo.if"(%arg0) ({
    stablehlo.return %arg1 : tensor<8xf32>
  }, {
    stablehlo.return %arg2 : tensor<8xf32>
  }) : (tensor<i1>) -> tensor<8xf32>
  %1 = "stablehlo.if"(%arg0) ({
    stablehlo.return %arg1 : tensor<8xf32>
  }, {
    %2 = stablehlo.negate %arg1 : tensor<8xf32>
    stablehlo.return %2 : tensor<8xf32>
  }) : (tensor<i1>) -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
})");
        QCOMPARE(t.errorCount(), size_t(1));
        QVERIFY(has(t.errors(), "seed.mlir:3:3: error: if operation's branches return different types for result 0: "
                                "f32[8@X] (branch 0) and f32[8] (branch 1)"));
        QCOMPARE(t.type("%1"), std::string("f32[8@X]"));
    }

    void loopCarryKeepsItsSharding()
    {
        // lax.scan / while: the carry f32[8@X] must leave the body as it entered. %2 (negate)
        // keeps it; %3 reshards to None: an error at the body's return.
        const std::string loop =
            kMesh +
            R"(func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}]>}) -> tensor<8xf32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %c) : tensor<8xf32>, tensor<i32>
   cond {
    %1 = stablehlo.compare LT, %iterArg_0, %iterArg_0 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %2 = stablehlo.negate %iterArg : tensor<8xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}]> : tensor<8xf32>
    stablehlo.return BODY, %iterArg_0 : tensor<8xf32>, tensor<i32>
  }
  return %0#0 : tensor<8xf32>
})";
        auto with = [&](const std::string& returned) {
            std::string text = loop;
            text.replace(text.find("BODY"), 4, returned);
            return typeText(text);
        };
        Typed good = with("%2");
        QVERIFY2(good.result.ok(), good.errors().c_str());
        QCOMPARE(good.type("%iterArg"), std::string("f32[8@X]"));
        QCOMPARE(good.type("%0#0"), std::string("f32[8@X]"));
        Typed bad = with("%3");
        QVERIFY(has(bad.errors(), "seed.mlir:11:5: error: while operation's loop carry 0 enters the body as f32[8@X] "
                                  "and leaves it as f32[8]"));
    }

    void shardMapMakesItsAxesManual()
    {
        // shard_map over X: inside, X is Manual and not in the types; Y stays Explicit. The
        // body's argument is the local f32[4,8@Y] (in_shardings [{X}, {Y}]).
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {"Y"}]>}) -> tensor<8x8xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"X"}, {"Y"}]>] out_shardings=[<@mesh, [{"X"}, {"Y"}]>] manual_axes={"X"} (%arg1: tensor<4x8xf32>) {
    %1 = stablehlo.negate %arg1 : tensor<4x8xf32>
    sdy.return %1 : tensor<4x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})");
        QVERIFY2(t.result.ok(), t.errors().c_str());
        QCOMPARE(t.type("%arg1"), std::string("f32[4,8@Y]"));
        QCOMPARE(t.type("%1"), std::string("f32[4,8@Y]"));
        QCOMPARE(t.type("%0"), std::string("f32[8@X,8@Y]"));
    }

    void axisTypesReadFromTheModuleAndSetByTheUser()
    {
        // A mixed mesh as JAX writes it: open dimensions, and the Explicit axis Y that does not
        // shard the value listed in `replicated`: X Auto, Y Explicit. The type of %arg0 leaves
        // X out: f32[8,4].
        const std::string text =
            kMesh +
            R"(func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X", ?}, {?}], replicated={"Y"}>}) -> tensor<8x4xf32> {
  return %arg0 : tensor<8x4xf32>
})";
        Typed mixed = typeText(text);
        QCOMPARE(mixed.result.axisTypes.toString(mixed.result.mesh),
                 std::string("AbstractMesh('X': 2, 'Y': 4, axis_types=(Auto, Explicit))"));
        QCOMPARE(mixed.type("%arg0"), std::string("f32[8,4]"));
        // `--axes X=explicit`: X is then in the type.
        Typed user = typeText(text, {{"X", AxisType::Explicit}});
        QCOMPARE(user.type("%arg0"), std::string("f32[8@X,4]"));
        QCOMPARE(user.result.axisTypes.sources[0], std::string("set by the user"));

        Expected<AxisTypeOverrides> parsed = parseAxisTypeOverrides("X=explicit,Y=AUTO,Z=manual");
        QVERIFY(parsed.ok());
        QCOMPARE(parsed->at("X"), AxisType::Explicit);
        QCOMPARE(parsed->at("Y"), AxisType::Auto);
        QCOMPARE(parsed->at("Z"), AxisType::Manual);
        QVERIFY(!parseAxisTypeOverrides("X=typed").ok());
        QVERIFY(!parseAxisTypeOverrides("X").ok());
    }

    void unreducedAndReducedPrint()
    {
        // `{U:X}` / `{R:X}` after the brackets; several axes in parentheses.
        ExplicitType t = unshardedType("f32", {8, 4});
        t.sharding.dims[0] = {"Y"};
        t.sharding.unreduced = {"X"};
        QCOMPARE(t.toString(), std::string("f32[8@Y,4]{U:X}"));
        t.sharding.unreduced = {"X", "Z"};
        t.sharding.reduced = {"W"};
        QCOMPARE(t.toString(), std::string("f32[8@Y,4]{U:(X,Z)}{R:W}"));
        t.sharding.dims[1] = {"X", "Z"};
        QCOMPARE(t.toString(), std::string("f32[8@Y,4@(X,Z)]{U:(X,Z)}{R:W}"));
        QCOMPARE(t.sharding.repeatedAxis(), std::string("X"));
        // An unreduced annotation is read into the type.
        Typed typed = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"Y"}], unreduced={"X"}>}) -> tensor<8xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
})");
        QCOMPARE(typed.type("%arg0"), std::string("f32[8@Y]{U:X}"));
        QCOMPARE(typed.type("%0"), std::string("f32[8@Y]{U:X}"));
    }

    void annotationsAJaxTypeCannotHoldAreErrors()
    {
        // A sub-axis has no JAX notation; 6 is not divisible by |Y| = 4 (JAX: "should be
        // divisible"). Each is reported at the function, the dimension then unsharded / kept.
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"Y":(1)2}]>}, %arg1: tensor<6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"Y"}]>}) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
})");
        QCOMPARE(t.errorCount(), size_t(2));
        QVERIFY(has(t.errors(), "the sharding of argument 0 shards dimension 0 on the sub-axis \"Y\":(1)2"));
        QVERIFY(has(t.errors(), "the sharding of argument 1 shards dimension 0 of size 6 on Y (4 shards): the size "
                                "must be divisible"));
        QCOMPARE(t.type("%arg0"), std::string("f32[8]"));
    }

    void callsAreTypedFromTheCaller()
    {
        // A private function called with f32[8@X] is typed from its caller: its argument and the
        // negate in it are f32[8@X], and so is the call's result.
        Typed t = typeText(
            kMesh +
            R"(func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}]>}) -> tensor<8xf32> {
  %0 = func.call @neg(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
func.func private @neg(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
})");
        QVERIFY2(t.result.ok(), t.errors().c_str());
        QCOMPARE(t.type("%arg0", "@neg"), std::string("f32[8@X]"));
        QCOMPARE(t.type("%0", "@neg"), std::string("f32[8@X]"));
        QCOMPARE(t.type("%0"), std::string("f32[8@X]"));
    }

    void deterministic()
    {
        const std::string text =
            kMesh +
            R"(func.func @main(%arg0: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}, %arg1: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"X"}]>}) -> tensor<4x4xi32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
})";
        Typed a = typeText(text);
        Typed b = typeText(text);
        QCOMPARE(printTypes(a.result), printTypes(b.result));
        QCOMPARE(a.errors(), b.errors());
    }
};

QTEST_APPLESS_MAIN(TestExplicit)
#include "tst_explicit.moc"
