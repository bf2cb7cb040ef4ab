// -canonicalize: dead code, constants and sdy patterns, checked on printed text.
#include <QtTest>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/ir/Canonicalizer.h"
#include "core/ir/Verifier.h"

using namespace shardx;

namespace {

/// Parses `body` (after a fixed mesh header), canonicalizes, and returns the printed function
/// body lines (between the func line and its closing brace), trimmed.
QStringList canonicalizeBody(const std::string& body)
{
    std::string text = "sdy.mesh @mesh = <[\"a\"=2, \"b\"=2]>\n"
                       "sdy.mesh @mesh1 = <[\"a\"=2, \"b\"=1]>\n" +
                       body;
    DiagnosticList diags;
    auto module = io::parseMlir(text, "test.mlir", diags);
    if (!module || diags.hasErrors()) {
        qWarning("%s", diags.formatAll().c_str());
        return {"<parse error>"};
    }
    if (!ir::verifyModule(*module, diags))
        return {"<invalid input>"};
    ir::canonicalize(*module);
    if (!ir::verifyModule(*module, diags)) {
        qWarning("%s", diags.formatAll().c_str());
        return {"<invalid output>"};
    }
    QStringList lines = QString::fromStdString(io::printModule(*module)).split('\n');
    QStringList out;
    bool in = false;
    for (const QString& l : lines) {
        QString t = l.trimmed();
        if (t.startsWith("func.func")) {
            in = true;
            continue;
        }
        if (in && l.startsWith("  }"))
            break;
        if (in)
            out << t;
    }
    return out;
}

} // namespace

class TestCanonicalizer : public QObject {
    Q_OBJECT

private slots:
    void unusedPureOpsAreErasedSideEffectsStay()
    {
        // The add and the reshard are Pure and unused: erased. The sharding constraint and the
        // custom call are not Pure: kept even without uses.
        QStringList out = canonicalizeBody(
            "func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
            "  %0 = stablehlo.add %arg0, %arg0 : tensor<8xf32>\n"
            "  %1 = sdy.reshard %0 <@mesh, [{\"a\"}]> : tensor<8xf32>\n"
            "  %2 = sdy.sharding_constraint %arg0 <@mesh, [{\"b\"}]> : tensor<8xf32>\n"
            "  %3 = stablehlo.custom_call @foo(%arg0) {has_side_effect = true} : (tensor<8xf32>) -> tensor<8xf32>\n"
            "  return %arg0 : tensor<8xf32>\n"
            "}\n");
        QStringList expected = {
            "%0 = sdy.sharding_constraint %arg0 <@mesh, [{\"b\"}]> : tensor<8xf32>",
            "%1 = stablehlo.custom_call @foo(%arg0) {has_side_effect = true} : (tensor<8xf32>) -> tensor<8xf32>",
            "return %arg0 : tensor<8xf32>"};
        QCOMPARE(out, expected);
    }

    void identicalConstantsAreMerged()
    {
        QStringList out = canonicalizeBody("func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
                                           "  %0 = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>\n"
                                           "  %1 = stablehlo.add %arg0, %0 : tensor<4xf32>\n"
                                           "  %2 = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>\n"
                                           "  %3 = stablehlo.add %1, %2 : tensor<4xf32>\n"
                                           "  return %3 : tensor<4xf32>\n"
                                           "}\n");
        QStringList expected = {"%cst = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>",
                                "%0 = stablehlo.add %arg0, %cst : tensor<4xf32>",
                                "%1 = stablehlo.add %0, %cst : tensor<4xf32>", "return %1 : tensor<4xf32>"};
        QCOMPARE(out, expected);
    }

    void reshardOfReshardNeedsASingleUse()
    {
        // The inner reshard has two uses: nothing folds (but the outer reshard is kept because it
        // is returned).
        QStringList out = canonicalizeBody("func.func @f(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {\n"
                                           "  %0 = sdy.reshard %arg0 <@mesh, [{\"a\"}]> : tensor<8xf32>\n"
                                           "  %1 = sdy.reshard %0 <@mesh, [{\"b\"}]> : tensor<8xf32>\n"
                                           "  return %0, %1 : tensor<8xf32>, tensor<8xf32>\n"
                                           "}\n");
        QStringList expected = {"%0 = sdy.reshard %arg0 <@mesh, [{\"a\"}]> : tensor<8xf32>",
                                "%1 = sdy.reshard %0 <@mesh, [{\"b\"}]> : tensor<8xf32>",
                                "return %0, %1 : tensor<8xf32>, tensor<8xf32>"};
        QCOMPARE(out, expected);
    }

    void emptyCollectivesFoldToTheirOperand()
    {
        QStringList out = canonicalizeBody(
            "func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}, {}]>}) -> "
            "tensor<8x8xf32> {\n"
            "  %0 = sdy.all_gather [{}, {}] %arg0 out_sharding=<@mesh, [{\"a\"}, {}]> : tensor<8x8xf32>\n"
            "  %1 = sdy.all_reduce {} %0 out_sharding=<@mesh, [{\"a\"}, {}]> : tensor<8x8xf32>\n"
            "  %2 = sdy.all_slice [{}, {}] %1 out_sharding=<@mesh, [{\"a\"}, {}]> : tensor<8x8xf32>\n"
            "  return %2 : tensor<8x8xf32>\n"
            "}\n");
        QStringList expected = {"return %arg0 : tensor<8x8xf32>"};
        QCOMPARE(out, expected);
    }

    void collectivePermuteToAnEquivalentShardingFolds()
    {
        // Same mesh symbol and the same axes (open/closed differ): equivalent, folded.
        QStringList out = canonicalizeBody(
            "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\", ?}]>}) -> "
            "tensor<8xf32> {\n"
            "  %0 = sdy.collective_permute %arg0 out_sharding=<@mesh, [{\"a\"}]> : tensor<8xf32>\n"
            "  return %0 : tensor<8xf32>\n"
            "}\n");
        QCOMPARE(out, QStringList{"return %arg0 : tensor<8xf32>"});
    }

    void manualComputationDropsUnusedArgumentsAndInlinesSizeOneAxes()
    {
        // Manual axis "b" has size 1 in @mesh1: the body is inlined. The unused second argument
        // disappears first (with its operand and in-sharding).
        QStringList out = canonicalizeBody(
            "func.func @f(%arg0: tensor<8xf32>, %arg1: tensor<4xf32>) -> tensor<8xf32> {\n"
            "  %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh1, [{\"b\"}]>, <@mesh1, [{}]>] "
            "out_shardings=[<@mesh1, [{\"b\"}]>] manual_axes={\"b\"} (%arg2: tensor<8xf32>, %arg3: tensor<4xf32>) {\n"
            "    %1 = stablehlo.negate %arg2 : tensor<8xf32>\n"
            "    sdy.return %1 : tensor<8xf32>\n"
            "  } : (tensor<8xf32>, tensor<4xf32>) -> tensor<8xf32>\n"
            "  return %0 : tensor<8xf32>\n"
            "}\n");
        QStringList expected = {"%0 = stablehlo.negate %arg0 : tensor<8xf32>", "return %0 : tensor<8xf32>"};
        QCOMPARE(out, expected);
    }

    void manualComputationOnARealAxisKeepsItsBodyButLosesUnusedArguments()
    {
        QStringList out = canonicalizeBody(
            "func.func @f(%arg0: tensor<8xf32>, %arg1: tensor<4xf32>) -> tensor<8xf32> {\n"
            "  %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{\"a\"}]>, <@mesh, [{}]>] "
            "out_shardings=[<@mesh, [{\"a\"}]>] manual_axes={\"a\"} (%arg2: tensor<4xf32>, %arg3: tensor<4xf32>) {\n"
            "    sdy.return %arg2 : tensor<4xf32>\n"
            "  } : (tensor<8xf32>, tensor<4xf32>) -> tensor<8xf32>\n"
            "  return %0 : tensor<8xf32>\n"
            "}\n");
        QStringList expected = {
            "%0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"a\"}]>] out_shardings=[<@mesh, "
            "[{\"a\"}]>] manual_axes={\"a\"} (%arg2: tensor<4xf32>) {",
            "sdy.return %arg2 : tensor<4xf32>", "} : (tensor<8xf32>) -> tensor<8xf32>", "return %0 : tensor<8xf32>"};
        QCOMPARE(out, expected);
    }

    void allReduceOfShardedToUnreducedBecomesAllGather()
    {
        QStringList out = canonicalizeBody(
            "func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}, {\"b\"}]>}) -> "
            "tensor<8x8xf32> {\n"
            "  %0 = sdy.sharded_to_unreduced [{}, {\"b\"}] %arg0 out_sharding=<@mesh, [{\"a\"}, {}], "
            "unreduced={\"b\"}> : tensor<8x8xf32>\n"
            "  %1 = sdy.all_reduce {\"b\"} %0 out_sharding=<@mesh, [{\"a\"}, {}]> : tensor<8x8xf32>\n"
            "  return %1 : tensor<8x8xf32>\n"
            "}\n");
        QStringList expected = {"%0 = sdy.sharded_to_unreduced [{}, {\"b\"}] %arg0 out_sharding=<@mesh, [{\"a\"}, "
                                "{}], unreduced={\"b\"}> : tensor<8x8xf32>",
                                "%1 = sdy.all_gather [{}, {\"b\"}] %arg0 out_sharding=<@mesh, [{\"a\"}, {}]> : "
                                "tensor<8x8xf32>",
                                "return %1 : tensor<8x8xf32>"};
        QCOMPARE(out, expected);
    }
};

QTEST_APPLESS_MAIN(TestCanonicalizer)
#include "tst_canonicalizer.moc"
