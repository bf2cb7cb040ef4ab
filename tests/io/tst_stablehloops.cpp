// Every StableHLO and func op with a custom form: printed exactly as MLIR prints it, read back
// from the custom and the generic form; malformed uses rejected at MLIR's line:col.
#include <QtTest/QtTest>

#include <set>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/ir/Module.h"
#include "core/ir/OpRegistry.h"
#include "core/ir/Verifier.h"

using namespace shardx;
using namespace shardx::ir;

namespace {

const char* const kElementwise = R"mlir(module {
  func.func @elementwise(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>) -> tensor<4xf32> {
    %0 = stablehlo.abs %arg0 : tensor<4xf32>
    %1 = stablehlo.cbrt %arg0 : tensor<4xf32>
    %2 = stablehlo.ceil %arg0 : tensor<4xf32>
    %3 = stablehlo.cosine %arg0 : tensor<4xf32>
    %4 = stablehlo.exponential %arg0 : tensor<4xf32>
    %5 = stablehlo.exponential_minus_one %arg0 : tensor<4xf32>
    %6 = stablehlo.floor %arg0 : tensor<4xf32>
    %7 = stablehlo.log %arg0 : tensor<4xf32>
    %8 = stablehlo.log_plus_one %arg0 : tensor<4xf32>
    %9 = stablehlo.logistic %arg0 : tensor<4xf32>
    %10 = stablehlo.negate %arg0 : tensor<4xf32>
    %11 = stablehlo.round_nearest_afz %arg0 : tensor<4xf32>
    %12 = stablehlo.round_nearest_even %arg0 : tensor<4xf32>
    %13 = stablehlo.rsqrt %arg0 : tensor<4xf32>
    %14 = stablehlo.sign %arg0 : tensor<4xf32>
    %15 = stablehlo.sine %arg0 : tensor<4xf32>
    %16 = stablehlo.sqrt %arg0 : tensor<4xf32>
    %17 = stablehlo.tan %arg0 : tensor<4xf32>
    %18 = stablehlo.tanh %arg0 : tensor<4xf32>
    %19 = stablehlo.count_leading_zeros %arg1 : tensor<4xi32>
    %20 = stablehlo.not %arg1 : tensor<4xi32>
    %21 = stablehlo.popcnt %arg1 : tensor<4xi32>
    %22 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
    %23 = stablehlo.atan2 %arg0, %arg0 : tensor<4xf32>
    %24 = stablehlo.divide %arg0, %arg0 : tensor<4xf32>
    %25 = stablehlo.maximum %arg0, %arg0 : tensor<4xf32>
    %26 = stablehlo.minimum %arg0, %arg0 : tensor<4xf32>
    %27 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
    %28 = stablehlo.power %arg0, %arg0 : tensor<4xf32>
    %29 = stablehlo.remainder %arg0, %arg0 : tensor<4xf32>
    %30 = stablehlo.subtract %arg0, %arg0 : tensor<4xf32>
    %31 = stablehlo.and %arg1, %arg1 : tensor<4xi32>
    %32 = stablehlo.or %arg1, %arg1 : tensor<4xi32>
    %33 = stablehlo.xor %arg1, %arg1 : tensor<4xi32>
    %34 = stablehlo.shift_left %arg1, %arg1 : tensor<4xi32>
    %35 = stablehlo.shift_right_arithmetic %arg1, %arg1 : tensor<4xi32>
    %36 = stablehlo.shift_right_logical %arg1, %arg1 : tensor<4xi32>
    %37 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xi32>
    %38 = stablehlo.is_finite %arg0 : (tensor<4xf32>) -> tensor<4xi1>
    %39 = stablehlo.complex %arg0, %arg0 : tensor<4xcomplex<f32>>
    %40 = stablehlo.real %39 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %41 = stablehlo.imag %39 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %42 = stablehlo.clamp %arg0, %arg0, %arg0 : tensor<4xf32>
    %43 = stablehlo.compare  LT, %arg0, %arg0,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %44 = stablehlo.select %43, %arg0, %arg0 : tensor<4xi1>, tensor<4xf32>
    %45 = stablehlo.reduce_precision %arg0, format = e5m10 {mhlo.frontend_attributes = {a = "b"}} : tensor<4xf32>
    %46 = stablehlo.bitcast_convert %arg0 : (tensor<4xf32>) -> tensor<4xi32>
    return %arg0 : tensor<4xf32>
  }
}
)mlir";

const char* const kShapes = R"mlir(module {
  func.func @shapes(%arg0: tensor<4x8xf32>, %arg1: tensor<i32>, %arg2: tensor<f32>) -> tensor<4x8xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<4x8xf32>
    %0 = stablehlo.iota dim = 1 : tensor<4x8xi32>
    %1 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %2 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<2x4x8xf32>
    %3 = stablehlo.slice %arg0 [0:2, 0:8:2] : (tensor<4x8xf32>) -> tensor<2x4xf32>
    %4 = stablehlo.dynamic_slice %arg0, %arg1, %arg1, sizes = [2, 4] : (tensor<4x8xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
    %5 = stablehlo.dynamic_update_slice %arg0, %4, %arg1, %arg1 : (tensor<4x8xf32>, tensor<2x4xf32>, tensor<i32>, tensor<i32>) -> tensor<4x8xf32>
    %6 = stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
    %7 = stablehlo.pad %arg0, %arg2, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<4x8xf32>, tensor<f32>) -> tensor<5x9xf32>
    %8 = stablehlo.reverse %arg0, dims = [1] : tensor<4x8xf32>
    %9 = stablehlo.reshape %arg0 : (tensor<4x8xf32>) -> tensor<32xf32>
    %10 = stablehlo.broadcast %arg0, sizes = [2] : (tensor<4x8xf32>) -> tensor<2x4x8xf32>
    %11 = stablehlo.dot %arg0, %1 : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    %12 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [1] x [1] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
    %13 = stablehlo.einsum %arg0, %arg0, config = "ab,cb->ac" : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
    %14 = stablehlo.unary_einsum %arg0, config = "ab->a" : (tensor<4x8xf32>) -> tensor<4xf32>
    %15 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<4x8xf32>) -> tensor<i32>
    %16 = stablehlo.set_dimension_size %arg0, %15, dim = 1 : (tensor<4x8xf32>, tensor<i32>) -> tensor<4x?xf32>
    %17 = stablehlo.reduce(%arg0 init: %arg2) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    %18 = stablehlo.fft %arg0, type =  RFFT, length = [8] : (tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>>
    %19 = stablehlo.cholesky %11, lower = true : tensor<4x4xf32>
    %20 = stablehlo.custom_call @foo(%arg0) {backend_config = ""} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %21 = stablehlo.composite "my.op" %arg0 {decomposition = @shapes_decomp} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %arg0 : tensor<4x8xf32>
  }
  func.func private @shapes_decomp(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
    return %arg0 : tensor<4x8xf32>
  }
  func.func @dynamic(%arg0: tensor<?x?xf32>, %arg1: tensor<2xindex>, %arg2: tensor<f32>, %arg3: tensor<1xindex>, %arg4: tensor<4xf32>, %arg5: tensor<3xi64>) -> tensor<?x?xf32> {
    %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [0, 1] : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
    %1 = stablehlo.dynamic_iota %arg3, dim = 0 : (tensor<1xindex>) -> tensor<?xi32>
    %2 = stablehlo.dynamic_reshape %arg4, %arg1 : (tensor<4xf32>, tensor<2xindex>) -> tensor<?x?xf32>
    %3 = stablehlo.dynamic_pad %arg4, %arg2, %arg3, %arg3, %arg3 : (tensor<4xf32>, tensor<f32>, tensor<1xindex>, tensor<1xindex>, tensor<1xindex>) -> tensor<?xf32>
    %4 = stablehlo.real_dynamic_slice %arg4, %arg3, %arg3, %arg3 : (tensor<4xf32>, tensor<1xindex>, tensor<1xindex>, tensor<1xindex>) -> tensor<?xf32>
    %5 = stablehlo.rng %arg2, %arg2, %arg5, distribution =  NORMAL : (tensor<f32>, tensor<f32>, tensor<3xi64>) -> tensor<2x3x5xf32>
    %6 = stablehlo.uniform_quantize %arg4 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 1.000000e+00>>
    %7 = stablehlo.uniform_dequantize %6 : (tensor<4x!quant.uniform<i8:f32, 1.000000e+00>>) -> tensor<4xf32>
    return %0 : tensor<?x?xf32>
  }
  func.func @tokens(%arg0: tensor<2xui64>, %arg1: tensor<f32>, %arg2: !stablehlo.token) -> tensor<f32> {
    %0 = stablehlo.create_token : !stablehlo.token
    %1 = stablehlo.after_all %0, %arg2 : !stablehlo.token
    %2 = stablehlo.tuple %arg1, %1 : tuple<tensor<f32>, !stablehlo.token>
    %3 = stablehlo.get_tuple_element %2[0] : (tuple<tensor<f32>, !stablehlo.token>) -> tensor<f32>
    %4:2 = stablehlo.optimization_barrier %3, %arg1 : tensor<f32>, tensor<f32>
    %5 = stablehlo.partition_id : tensor<ui32>
    %6 = stablehlo.replica_id : tensor<ui32>
    %output_state, %output = stablehlo.rng_bit_generator %arg0, algorithm =  DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
    %7 = stablehlo.while(%iterArg = %3) : tensor<f32>
     cond {
      %8 = stablehlo.compare  LT, %iterArg, %iterArg : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %8 : tensor<i1>
    } do {
      stablehlo.return %iterArg : tensor<f32>
    }
    return %7 : tensor<f32>
  }
  func.func private @callee(tensor<f32>) -> tensor<f32>
  func.func @calls(%arg0: tensor<f32>) -> tensor<f32> {
    %0 = constant @callee : (tensor<f32>) -> tensor<f32>
    %1 = call_indirect %0(%arg0) : (tensor<f32>) -> tensor<f32>
    %2 = call @callee(%1) : (tensor<f32>) -> tensor<f32>
    return %2 : tensor<f32>
  }
  func.func @conv(%arg0: tensor<1x8x8x3xf32>, %arg1: tensor<3x3x3x16xf32>) -> tensor<1x8x8x16xf32> {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x8x8x16xf32>
    return %0 : tensor<1x8x8x16xf32>
  }
}
)mlir";

const char* const kGenericOnly = R"mlir(module {
  func.func @generic(%arg0: tensor<4x8xf32>, %arg1: tensor<3x8x8xf32>, %arg2: tensor<1x2xi64>, %arg3: tensor<2x1xi32>, %arg4: tensor<2xi32>) -> tensor<4x8xf32> {
    %0 = "stablehlo.cross-replica-sum"(%arg0) <{replica_groups = dense<0> : tensor<1x1xi64>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = "stablehlo.dynamic_conv"(%arg1, %arg1, %arg2) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64}> : (tensor<3x8x8xf32>, tensor<3x8x8xf32>, tensor<1x2xi64>) -> tensor<3x1x8xf32>
    %2 = "stablehlo.dynamic_gather"(%arg0, %arg3, %arg4) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>}> : (tensor<4x8xf32>, tensor<2x1xi32>, tensor<2xi32>) -> tensor<2x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
)mlir";

/// Parses and verifies `text`; nullptr (with a warning) on any diagnostic.
std::unique_ptr<Module> readVerified(const std::string& text)
{
    DiagnosticList diags;
    auto m = io::parseMlir(text, "t.mlir", diags);
    if (m && !verifyModule(*m, diags))
        m.reset();
    if (!m || diags.hasErrors())
        qWarning("%s", diags.formatAll().c_str());
    return diags.hasErrors() ? nullptr : std::move(m);
}

/// The first diagnostic of parsing `text`, then (when it parsed) of verifying it.
Diagnostic firstError(const std::string& text)
{
    DiagnosticList diags;
    auto m = io::parseMlir(text, "t.mlir", diags);
    if (m)
        verifyModule(*m, diags);
    if (diags.all().empty())
        return Diagnostic{Severity::Note, {}, "<no error>", {}};
    return diags.all().front();
}

std::string print(const Module& m, bool generic)
{
    io::PrintOptions po;
    po.genericForm = generic;
    return io::printModule(m, po);
}

} // namespace

class TestStablehloOps : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data();
    void roundTrip();
    void everyCustomFormOpIsCovered();
    void customFormsInGenericText();
    void dimensionNumbersPrintWithoutDefaults();
    void rejected_data();
    void rejected();
};

void TestStablehloOps::roundTrip_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("element-wise") << kElementwise;
    QTest::newRow("shapes, dynamic, tokens, calls") << kShapes;
    QTest::newRow("generic-only ops") << kGenericOnly;
}

void TestStablehloOps::roundTrip()
{
    QFETCH(QString, text);
    const std::string in = text.toStdString();
    auto m = readVerified(in);
    QVERIFY(m);
    // Byte-identical custom form.
    QCOMPARE(QString::fromStdString(print(*m, false)), text);
    // The generic form reads back to the same module.
    const std::string generic = print(*m, true);
    auto g = readVerified(generic);
    QVERIFY2(g, generic.c_str());
    QCOMPARE(QString::fromStdString(print(*g, false)), text);
    QCOMPARE(QString::fromStdString(print(*g, true)), QString::fromStdString(generic));
}

void TestStablehloOps::everyCustomFormOpIsCovered()
{
    // The audit: every registered func/stablehlo op with a custom form appears in the texts above.
    std::set<std::string> seen;
    for (const char* text : {kElementwise, kShapes, kGenericOnly}) {
        auto m = readVerified(text);
        QVERIFY(m);
        m->op().walk([&](Op* op) { seen.insert(op->name()); });
    }
    QStringList missing;
    for (const OpInfo& info : OpRegistry::instance().ops()) {
        const bool ours = info.name.rfind("stablehlo.", 0) == 0 || info.name.rfind("func.", 0) == 0;
        if (ours && info.hasCustomForm && !seen.count(info.name))
            missing << QString::fromStdString(info.name);
    }
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(", ")));
    for (const char* op : {"stablehlo.cross-replica-sum", "stablehlo.dynamic_conv", "stablehlo.dynamic_gather"}) {
        QVERIFY(seen.count(op));
        QVERIFY(!OpRegistry::instance().lookup(op)->hasCustomForm);
    }
}

void TestStablehloOps::dimensionNumbersPrintWithoutDefaults()
{
    // StableHLO prints gather/scatter dimension numbers without empty lists and zero integers.
    const std::string text =
        "func.func @f(%a: tensor<8xi32>, %i: tensor<i64>, %u: tensor<i32>) -> tensor<8xi32> {\n"
        "  %0 = \"stablehlo.scatter\"(%a, %i, %u) ({\n"
        "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
        "    stablehlo.return %y : tensor<i32>\n"
        "  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [], inserted_window_dims = [0], "
        "scatter_dims_to_operand_dims = [0], index_vector_dim = 0>} : (tensor<8xi32>, tensor<i64>, tensor<i32>) -> "
        "tensor<8xi32>\n"
        "  return %0 : tensor<8xi32>\n}\n";
    auto m = readVerified(text);
    QVERIFY(m);
    const std::string out = print(*m, false);
    QVERIFY2(out.find("#stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>") !=
                 std::string::npos,
             out.c_str());
}

void TestStablehloOps::customFormsInGenericText()
{
    // Written generically, the new ops print in their custom form.
    const std::string text =
        "func.func @f(%a: tensor<3xf32>, %s: tensor<2xindex>) -> tensor<2x3xf32> {\n"
        "  %0 = \"stablehlo.broadcast\"(%a) <{broadcast_sizes = array<i64: 2>}> : (tensor<3xf32>) -> "
        "tensor<2x3xf32>\n"
        "  %1 = \"stablehlo.dynamic_reshape\"(%0, %s) : (tensor<2x3xf32>, tensor<2xindex>) -> tensor<?x?xf32>\n"
        "  %2 = \"stablehlo.rng\"(%a, %a, %s) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : "
        "(tensor<3xf32>, tensor<3xf32>, tensor<2xindex>) -> tensor<2x3xf32>\n"
        "  return %0 : tensor<2x3xf32>\n}\n";
    auto m = readVerified(text);
    QVERIFY(m);
    const std::string out = print(*m, false);
    for (const char* line : {"%0 = stablehlo.broadcast %arg0, sizes = [2] : (tensor<3xf32>) -> tensor<2x3xf32>",
                             "%1 = stablehlo.dynamic_reshape %0, %arg1 : (tensor<2x3xf32>, tensor<2xindex>) -> "
                             "tensor<?x?xf32>",
                             "%2 = stablehlo.rng %arg0, %arg0, %arg1, distribution =  UNIFORM : (tensor<3xf32>, "
                             "tensor<3xf32>, tensor<2xindex>) -> tensor<2x3xf32>"})
        QVERIFY2(out.find(line) != std::string::npos, out.c_str());
}

void TestStablehloOps::rejected_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("col");
    QTest::addColumn<QString>("phrase");
    const std::string f = "func.func @f(%a: tensor<3xf32>, %s: tensor<2xindex>) -> tensor<3xf32> {\n";
    const std::string ret = "  return %a : tensor<3xf32>\n}\n";
    auto row = [](const char* name, const std::string& text, int line, int col, const char* phrase) {
        QTest::newRow(name) << QString::fromStdString(text) << line << col << phrase;
    };
    // Verifier gaps: blocks and declarations.
    row("empty body with arguments", "func.func @f(%a: tensor<f32>) {}\n", 1, 1,
        "empty block: expect at least a terminator");
    row("empty body, second function", "func.func private @g()\nfunc.func @f(%a: tensor<f32>) {\n}\n", 2, 1,
        "empty block: expect at least a terminator");
    row("public declaration", "func.func @f(tensor<f32>)\n", 1, 1, "symbol declaration cannot have public visibility");
    row("explicitly public declaration", "func.func private @g()\n  func.func public @f(tensor<f32>)\n", 2, 3,
        "symbol declaration cannot have public visibility");
    row("block without terminator", f + "  %0 = stablehlo.abs %a : tensor<3xf32>\n}\n", 2, 3,
        "block with no terminator");
    row("while body without terminator",
        f +
            "  %0 = stablehlo.while(%i = %a) : tensor<3xf32>\n  cond {\n    %c = stablehlo.constant dense<true> : "
            "tensor<i1>\n  } do {\n    stablehlo.return %i : tensor<3xf32>\n  }\n" +
            ret,
        4, 5, "block with no terminator");
    // Custom forms.
    row("broadcast without sizes", f + "  %0 = stablehlo.broadcast %a : (tensor<3xf32>) -> tensor<3xf32>\n" + ret, 2,
        31, "expected ','");
    row("broadcast, wrong keyword",
        f + "  %0 = stablehlo.broadcast %a, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>\n" + ret, 2, 32, "sizes");
    row("dynamic_iota non-functional type", f + "  %0 = stablehlo.dynamic_iota %s, dim = 0 : tensor<3xf32>\n" + ret, 2,
        45, "invalid kind of type specified");
    row("reshape non-functional type", f + "  %0 = stablehlo.reshape %a : tensor<3xf32>\n" + ret, 2, 31,
        "invalid kind of type specified");
    row("rng bad distribution",
        f +
            "  %0 = stablehlo.rng %a, %a, %s, distribution = GAUSS : (tensor<3xf32>, tensor<3xf32>, "
            "tensor<2xindex>) -> tensor<3xf32>\n" +
            ret,
        2, 49, "rng_distribution");
    row("einsum config not a string",
        f + "  %0 = stablehlo.einsum %a, %a, config = a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>\n" + ret, 2,
        42, "expected string");
    row("generic-only op in custom form", f + "  %0 = stablehlo.dynamic_gather %a : tensor<3xf32>\n" + ret, 2, 8,
        "has no custom assembly form");
    row("call_indirect with a non-function type", f + "  %0 = func.call_indirect %a(%a) : tensor<3xf32>\n" + ret, 2, 36,
        "invalid kind of type specified");
    // Signatures.
    row("dynamic_reshape with one operand",
        f + "  %0 = stablehlo.dynamic_reshape %a : (tensor<3xf32>) -> tensor<3xf32>\n" + ret, 2, 3,
        "'stablehlo.dynamic_reshape' op expected 2 operands, but found 1");
    row("unary_einsum with two operands",
        f +
            "  %0 = stablehlo.unary_einsum %a, %a, config = \"a->a\" : (tensor<3xf32>, tensor<3xf32>) -> "
            "tensor<3xf32>\n" +
            ret,
        2, 3, "'stablehlo.unary_einsum' op requires a single operand");
    row("uniform_quantize with two results",
        f + "  %0:2 = \"stablehlo.uniform_quantize\"(%a) : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)\n" + ret,
        2, 3, "'stablehlo.uniform_quantize' op requires one result");
    row("generic broadcast without sizes",
        f + "  %0 = \"stablehlo.broadcast\"(%a) : (tensor<3xf32>) -> tensor<3xf32>\n" + ret, 2, 3,
        "'stablehlo.broadcast' op requires attribute 'broadcast_sizes'");
    row("generic rng without distribution",
        f +
            "  %0 = \"stablehlo.rng\"(%a, %a, %s) : (tensor<3xf32>, tensor<3xf32>, tensor<2xindex>) -> "
            "tensor<3xf32>\n" +
            ret,
        2, 3, "'stablehlo.rng' op requires attribute 'rng_distribution'");
    row("cross-replica-sum without groups",
        f + "  %0 = \"stablehlo.cross-replica-sum\"(%a) : (tensor<3xf32>) -> tensor<3xf32>\n" + ret, 2, 3,
        "requires attribute 'replica_groups'");
    row("dynamic_conv operand count",
        f + "  %0 = \"stablehlo.dynamic_conv\"(%a, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>\n" + ret, 2, 3,
        "expected 3 operands, but found 2");
    row("broadcast inferred type",
        f + "  %0 = stablehlo.broadcast %a, sizes = [2] : (tensor<3xf32>) -> tensor<3x2xf32>\n" + ret, 2, 3,
        "'stablehlo.broadcast' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of "
        "operation 'tensor<3x2xf32>'");
    row("func.constant of an unknown function",
        f + "  %0 = func.constant @nope : (tensor<3xf32>) -> tensor<3xf32>\n" + ret, 2, 3,
        "'func.constant' op reference to undefined function 'nope'");
    row("func.constant of a mismatched type", f + "  %0 = constant @f : (tensor<3xf32>) -> tensor<3xf32>\n" + ret, 2, 3,
        "'func.constant' op reference to function with mismatched type");
    row("call_indirect on a tensor",
        f + "  %0 = \"func.call_indirect\"(%a, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>\n" + ret, 2, 3,
        "'func.call_indirect' op operand #0 must be function type, but got 'tensor<3xf32>'");
    row("call_indirect argument types",
        f +
            "  %c = func.constant @f : (tensor<3xf32>, tensor<2xindex>) -> tensor<3xf32>\n"
            "  %0 = \"func.call_indirect\"(%c, %a, %a) : ((tensor<3xf32>, tensor<2xindex>) -> tensor<3xf32>, "
            "tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>\n" +
            ret,
        3, 3, "failed to verify that callee input types match argument types");
}

void TestStablehloOps::rejected()
{
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(int, col);
    QFETCH(QString, phrase);
    Diagnostic d = firstError(text.toStdString());
    QVERIFY2(d.severity == Severity::Error, "expected an error");
    QVERIFY2(d.message.find(phrase.toStdString()) != std::string::npos, d.format().c_str());
    QVERIFY2(d.pos.line == line && d.pos.col == col, d.format().c_str());
}

QTEST_APPLESS_MAIN(TestStablehloOps)
#include "tst_stablehloops.moc"
