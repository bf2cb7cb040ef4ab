// Tests of OpShardingRuleBuilder conventions and of the sdy-populate-op-sharding-rules pass.
#include <QtTest>

#include "RuleTestUtil.h"
#include "core/io/MlirPrinter.h"
#include "core/passes/PassRegistry.h"
#include "core/rules/OpShardingRuleBuilder.h"
#include "core/rules/PopulateRulesPass.h"

using namespace shardx;

namespace {

std::string ruleAttr(const ir::Op& op)
{
    const ir::Attribute* a = op.attr(kShardingRuleAttrName);
    if (!a || !a->as<ir::OpShardingRuleAttr>())
        return "none";
    return a->as<ir::OpShardingRuleAttr>()->rule.toString();
}

} // namespace

class TestRuleBuilder : public QObject {
    Q_OBJECT
private slots:
    void factorsInCreationOrderAndSizeOneFill()
    {
        OpShardingRuleBuilder b({{4, 1}, {}}, {{4, 3}});
        b.addFactor({0, kNullDim}, {0}, 4);
        b.addFactor({kNullDim, kNullDim}, {1}, 3, FactorKind::NeedReplication, true);
        OpShardingRule r = b.build();
        // Operand 0 dim 1 had no factor: it gets a fresh size-1 factor at the end.
        QCOMPARE(QString::fromStdString(r.toString()),
                 QString("<([i, k], [])->([i, j]) {i=4, j=3, k=1} need_replication={j} blocked_propagation={j}>"));
    }

    void sizeOneFactorNotAppendedToAnOccupiedDim()
    {
        OpShardingRuleBuilder b({{1}}, {{1}});
        b.addFactor({0}, {kNullDim}, 1);
        b.addFactor({0}, {0}, 1); // operand dim 0 already has a factor: only the result gets it
        OpShardingRule r = b.build();
        QCOMPARE(QString::fromStdString(r.toString()), QString("<([i])->([j]) {i=1, j=1}>"));
        // A size > 1 factor is appended (compound dim).
        OpShardingRuleBuilder c({{8}}, {{2, 4}});
        c.addFactor({0}, {0}, 2);
        c.addFactor({0}, {1}, 4);
        QCOMPARE(QString::fromStdString(c.build().toString()), QString("<([ij])->([i, j]) {i=2, j=4}>"));
    }

    void sameDimEverywhereSkipsScalars()
    {
        OpShardingRuleBuilder b({{}, {2, 5}, {}}, {{2, 5}});
        b.addPointwise({2, 5}, [](int64_t d) { return d == 1 ? FactorKind::Permutation : FactorKind::PassThrough; });
        QCOMPARE(QString::fromStdString(b.build().toString()),
                 QString("<([], [i, j], [])->([i, j]) {i=2, j=5} permutation={j}>"));
        OpShardingRuleBuilder m({{6, 3}}, {{4, 3}});
        m.addPointwiseWithMismatch({6, 3}, {4, 3}, FactorKind::Permutation, true);
        QCOMPARE(QString::fromStdString(m.build().toString()),
                 QString("<([i, j])->([i, j]) {i=6, j=3} permutation={i} blocked_propagation={i}>"));
    }

    void passAttachesRulesAndKeepsExistingOnes()
    {
        const char* text =
            "func.func @f(%a: tensor<8x4xf32>, %b: tensor<8x4xf32>) -> tensor<2x16xf32> {\n"
            "  %0 = stablehlo.add %a, %b {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, j])->([i, j]) "
            "{i=8, j=4}, custom>} : tensor<8x4xf32>\n"
            "  %1 = stablehlo.reshape %0 : (tensor<8x4xf32>) -> tensor<2x16xf32>\n"
            "  %2 = stablehlo.slice %1 [0:2, 0:8] : (tensor<2x16xf32>) -> tensor<2x8xf32>\n"
            "  %3 = \"mydialect.a\"(%2) : (tensor<2x8xf32>) -> tensor<2x8xf32>\n"
            "  %4 = \"mydialect.b\"(%3) : (tensor<2x8xf32>) -> tensor<2x8xf32>\n"
            "  return %1 : tensor<2x16xf32>\n"
            "}\n";
        auto p = testutil::parseOp(text, "stablehlo.add");
        QVERIFY2(p.op, p.error.c_str());
        const PassInfo* pass = findPass("sdy-populate-op-sharding-rules");
        QVERIFY(pass);
        QVERIFY(std::find(pass->options.begin(), pass->options.end(), "conservative-propagation") !=
                pass->options.end());
        DiagnosticList diags;
        QVERIFY(pass->run(*p.module, {{"conservative-propagation", "true"}}, diags));
        QCOMPARE(QString::fromStdString(ruleAttr(*p.op)), QString("<([i, j], [i, j])->([i, j]) {i=8, j=4}, custom>"));
        ir::Op* reshape = p.op->nextInBlock();
        QCOMPARE(QString::fromStdString(ruleAttr(*reshape)), QString("<([ij, k])->([i, jk]) {i=2, j=4, k=4}>"));
        ir::Op* slice = reshape->nextInBlock();
        QCOMPARE(QString::fromStdString(ruleAttr(*slice)),
                 QString("<([i, j])->([i, j]) {i=2, j=16} permutation={j} blocked_propagation={j}>"));
        QCOMPARE(QString::fromStdString(ruleAttr(*slice->nextInBlock())), QString("none"));
        // Two unknown ops: one warning, at the first one; the terminator never warns.
        QCOMPARE(diags.all().size(), size_t(1));
        QCOMPARE(int(diags.all().front().severity), int(Severity::Warning));
        QCOMPARE(diags.all().front().pos.line, 5);
        QVERIFY(diags.all().front().message.find("mydialect.a") != std::string::npos);
        // The attribute prints as Shardy prints it.
        std::string printed = io::printModule(*p.module);
        QVERIFY2(printed.find("sdy.sharding_rule = #sdy.op_sharding_rule<([ij, k])->([i, jk]) {i=2, j=4, k=4}>") !=
                     std::string::npos,
                 printed.c_str());
        // A bad option value is an error.
        DiagnosticList d2;
        QVERIFY(!pass->run(*p.module, {{"conservative-propagation", "maybe"}}, d2));
    }

    void passVisitsNestedOps()
    {
        const char* text = "func.func @f(%a: tensor<4x6xf32>, %c: tensor<f32>) -> tensor<6xf32> {\n"
                           "  %0 = stablehlo.reduce(%a init: %c) applies stablehlo.add across dimensions = [0] : "
                           "(tensor<4x6xf32>, tensor<f32>) -> tensor<6xf32>\n"
                           "  return %0 : tensor<6xf32>\n"
                           "}\n";
        auto p = testutil::parseOp(text, "stablehlo.reduce");
        QVERIFY2(p.op, p.error.c_str());
        DiagnosticList diags;
        QVERIFY(populateOpShardingRules(*p.module, RuleOptions{}, diags));
        QVERIFY(diags.empty());
        QCOMPARE(QString::fromStdString(ruleAttr(*p.op)), QString("<([i, j], [])->([j]) {i=4, j=6} reduction={i}>"));
        const ir::Op* inner = p.op->region(0).front().ops().front().get();
        QCOMPARE(QString::fromStdString(inner->name()), QString("stablehlo.add"));
        QCOMPARE(QString::fromStdString(ruleAttr(*inner)), QString("<([], [])->([])>"));
    }
};

QTEST_APPLESS_MAIN(TestRuleBuilder)
#include "tst_rule_builder.moc"
