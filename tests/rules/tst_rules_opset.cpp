// Sharding rules of the whole StableHLO/func op set (SDY.md 4.12): the pointwise ops get the
// pointwise rule (hand-derived below); ops Shardy has no rule for get none, with the registry's
// "unknown" warning unless they are in the explicit no-rule list.
#include <QtTest>

#include "RuleTestUtil.h"

using namespace shardx;

namespace {

std::string fn(const std::string& args, const std::string& res, const std::string& body)
{
    return "func.func @f(" + args + ") -> " + res + " {\n  " + body + "\n  return %0 : " + res + "\n}\n";
}

} // namespace

class TestRulesOpSet : public QObject {
    Q_OBJECT
private slots:
    void pointwise_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("expected");
        // One factor per dimension of the first result, on every operand and result (scalar `[]`).
        const std::string f23 = "%a: tensor<2x3xf32>, %i: tensor<2x3xi32>, %c: tensor<2x3xcomplex<f32>>";
        const char* k23 = "<([i, j])->([i, j]) {i=2, j=3}>";
        const char* k23bin = "<([i, j], [i, j])->([i, j]) {i=2, j=3}>";
        auto unary = [&](const char* op, const char* arg, const char* in, const char* out) {
            QTest::newRow(op) << QString::fromStdString(fn(f23, out,
                                                           std::string("%0 = \"stablehlo.") + op + "\"(" + arg +
                                                               ") : (" + in + ") -> " + out))
                              << QString("stablehlo.") + op << k23;
        };
        for (const char* op : {"tan", "cbrt", "exponential_minus_one", "log_plus_one", "logistic", "rsqrt", "sign",
                               "round_nearest_afz", "round_nearest_even"})
            unary(op, "%a", "tensor<2x3xf32>", "tensor<2x3xf32>");
        for (const char* op : {"count_leading_zeros", "not", "popcnt"})
            unary(op, "%i", "tensor<2x3xi32>", "tensor<2x3xi32>");
        unary("is_finite", "%a", "tensor<2x3xf32>", "tensor<2x3xi1>");
        unary("convert", "%a", "tensor<2x3xf32>", "tensor<2x3xi32>");
        unary("real", "%c", "tensor<2x3xcomplex<f32>>", "tensor<2x3xf32>");
        unary("imag", "%c", "tensor<2x3xcomplex<f32>>", "tensor<2x3xf32>");
        unary("cross-replica-sum", "%a", "tensor<2x3xf32>", "tensor<2x3xf32>");
        for (const char* op : {"atan2", "remainder"})
            QTest::newRow(op) << QString::fromStdString(fn(f23, "tensor<2x3xf32>",
                                                           std::string("%0 = \"stablehlo.") + op +
                                                               "\"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> "
                                                               "tensor<2x3xf32>"))
                              << QString("stablehlo.") + op << k23bin;
        for (const char* op : {"shift_left", "shift_right_arithmetic", "shift_right_logical"})
            QTest::newRow(op) << QString::fromStdString(fn(f23, "tensor<2x3xi32>",
                                                           std::string("%0 = \"stablehlo.") + op +
                                                               "\"(%i, %i) : (tensor<2x3xi32>, tensor<2x3xi32>) -> "
                                                               "tensor<2x3xi32>"))
                              << QString("stablehlo.") + op << k23bin;
        QTest::newRow("complex") << QString::fromStdString(
                                        fn(f23, "tensor<2x3xcomplex<f32>>",
                                           "%0 = stablehlo.complex %a, %a : tensor<2x3xcomplex<f32>>"))
                                 << "stablehlo.complex" << k23bin;
        QTest::newRow("reduce_precision")
            << QString::fromStdString(
                   fn(f23, "tensor<2x3xf32>", "%0 = stablehlo.reduce_precision %a, format = e5m2 : tensor<2x3xf32>"))
            << "stablehlo.reduce_precision" << k23;
    }
    void pointwise()
    {
        QFETCH(QString, text);
        QFETCH(QString, op);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(testutil::ruleOf(text.toStdString(), op.toStdString())), expected);
    }

    void noRule_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("op");
        QTest::addColumn<bool>("warns");
        const std::string args = "%a: tensor<4xf32>, %s: tensor<1xindex>, %e: tensor<f32>, %k: tensor<1xi64>";
        auto row = [&](const char* name, const char* body, const char* op, bool warns = true) {
            QTest::newRow(name) << QString::fromStdString(fn(args, "tensor<4xf32>", body)) << op << warns;
        };
        // Shardy's registry has no rule for these: none, with the once-per-process warning.
        row("broadcast",
            "%b = stablehlo.broadcast %a, sizes = [1] : (tensor<4xf32>) -> tensor<1x4xf32>\n  %0 = stablehlo.abs %a : "
            "tensor<4xf32>",
            "stablehlo.broadcast");
        row("dynamic_broadcast_in_dim",
            "%0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [0] : (tensor<4xf32>, tensor<1xindex>) -> "
            "tensor<4xf32>",
            "stablehlo.dynamic_broadcast_in_dim");
        row("dynamic_iota", "%0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xindex>) -> tensor<4xf32>",
            "stablehlo.dynamic_iota");
        row("dynamic_reshape",
            "%0 = stablehlo.dynamic_reshape %a, %s : (tensor<4xf32>, tensor<1xindex>) -> tensor<4xf32>",
            "stablehlo.dynamic_reshape");
        row("dynamic_pad",
            "%0 = stablehlo.dynamic_pad %a, %e, %s, %s, %s : (tensor<4xf32>, tensor<f32>, tensor<1xindex>, "
            "tensor<1xindex>, tensor<1xindex>) -> tensor<4xf32>",
            "stablehlo.dynamic_pad");
        row("real_dynamic_slice",
            "%0 = stablehlo.real_dynamic_slice %a, %s, %s, %s : (tensor<4xf32>, tensor<1xindex>, tensor<1xindex>, "
            "tensor<1xindex>) -> tensor<4xf32>",
            "stablehlo.real_dynamic_slice");
        row("rng",
            "%0 = stablehlo.rng %e, %e, %k, distribution =  UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> "
            "tensor<4xf32>",
            "stablehlo.rng");
        row("einsum",
            "%0 = stablehlo.einsum %a, %a, config = \"a,a->a\" : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>",
            "stablehlo.einsum");
        row("unary_einsum", "%0 = stablehlo.unary_einsum %a, config = \"a->a\" : (tensor<4xf32>) -> tensor<4xf32>",
            "stablehlo.unary_einsum");
        // Element-wise (SDY.md 4.11) but not in the pointwise list of 4.12.
        row("uniform_quantize",
            "%q = stablehlo.uniform_quantize %a : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 1.0>>\n  %0 = "
            "stablehlo.uniform_dequantize %q : (tensor<4x!quant.uniform<i8:f32, 1.0>>) -> tensor<4xf32>",
            "stablehlo.uniform_quantize");
        row("uniform_dequantize",
            "%q = stablehlo.uniform_quantize %a : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 1.0>>\n  %0 = "
            "stablehlo.uniform_dequantize %q : (tensor<4x!quant.uniform<i8:f32, 1.0>>) -> tensor<4xf32>",
            "stablehlo.uniform_dequantize");
        row("set_dimension_size",
            "%d = stablehlo.constant dense<4> : tensor<i32>\n  %0 = stablehlo.set_dimension_size %a, %d, dim = 0 : "
            "(tensor<4xf32>, tensor<i32>) -> tensor<4xf32>",
            "stablehlo.set_dimension_size");
        row("func.constant",
            "%c = func.constant @f : (tensor<4xf32>) -> tensor<4xf32>\n  %0 = call_indirect %c(%a) : "
            "(tensor<4xf32>) -> tensor<4xf32>",
            "func.constant");
        // In the explicit no-rule list: none, silently.
        row("create_token", "%t = stablehlo.create_token : !stablehlo.token\n  %0 = stablehlo.abs %a : tensor<4xf32>",
            "stablehlo.create_token", false);
        row("func.call",
            "%0 = call @f(%a, %s, %e, %k) : (tensor<4xf32>, tensor<1xindex>, tensor<f32>, tensor<1xi64>) -> "
            "tensor<4xf32>",
            "func.call", false);
    }
    void noRule()
    {
        QFETCH(QString, text);
        QFETCH(QString, op);
        QFETCH(bool, warns);
        testutil::ParsedOp p = testutil::parseOp(text.toStdString(), op.toStdString());
        QVERIFY2(p.op, p.error.c_str());
        RuleResult r = computeOpShardingRule(*p.op, RuleOptions{});
        QVERIFY(r.outcome != RuleOutcome::Created);
        QCOMPARE(r.outcome == RuleOutcome::UnknownOp, warns);
        if (warns)
            QCOMPARE(QString::fromStdString(r.reason), "op '" + op + "' is unknown to SDY sharding rule registry");
    }
};

QTEST_APPLESS_MAIN(TestRulesOpSet)
#include "tst_rules_opset.moc"
