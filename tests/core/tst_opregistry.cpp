// OpRegistry traits, and that the rule registry and the propagation driver follow them.
#include <QtTest>

#include <memory>

#include "core/ir/OpRegistry.h"
#include "core/ir/Operation.h"
#include "core/propagation/PropagationDriver.h"
#include "core/rules/RuleRegistry.h"

using namespace shardx;
using ir::OpInfo;
using ir::OpRegistry;

namespace {

/// Owns a block whose arguments serve as operands of free-standing test ops.
struct OperandSource {
    ir::Op holder{"func.func"};
    ir::Block* block = holder.addRegion()->addBlock();
    ir::Value* arg(const ir::Type& t) { return block->addArgument(t); }
};

/// `name` with operands `operandTypes` and one result of type `resultType`.
std::unique_ptr<ir::Op> makeOp(OperandSource& src, const std::string& name, const std::vector<ir::Type>& operandTypes,
                               const ir::Type& resultType)
{
    auto op = std::make_unique<ir::Op>(name);
    for (const ir::Type& t : operandTypes)
        op->addOperand(src.arg(t));
    op->addResult(resultType);
    return op;
}

const OpInfo& info(const char* name)
{
    const OpInfo* i = OpRegistry::instance().lookup(name);
    if (!i)
        qFatal("op %s is not in the registry", name);
    return *i;
}

} // namespace

class TestOpRegistry : public QObject {
    Q_OBJECT
private slots:
    void traits();
    void ruleRegistryFollowsPointwiseTrait();
    void driverFollowsElementwiseTrait();
};

void TestOpRegistry::traits()
{
    QVERIFY(info("stablehlo.add").isElementwise);
    QVERIFY(info("stablehlo.add").hasPointwiseRule);
    QVERIFY(info("stablehlo.add").isPure);
    QVERIFY(info("stablehlo.add").hasCustomForm);
    QVERIFY(info("stablehlo.atan2").isElementwise);
    // Element-wise, but with their own rule (select/clamp) or none (uniform_quantize).
    for (const char* n : {"stablehlo.select", "stablehlo.clamp", "stablehlo.uniform_quantize"}) {
        QVERIFY2(info(n).isElementwise, n);
        QVERIFY2(!info(n).hasPointwiseRule, n);
    }
    // Pointwise rule, not element-wise.
    for (const char* n : {"stablehlo.all_reduce", "stablehlo.collective_permute", "stablehlo.cross-replica-sum"}) {
        QVERIFY2(info(n).hasPointwiseRule, n);
        QVERIFY2(!info(n).isElementwise, n);
    }
    QVERIFY(info("sdy.sharding_constraint").isElementwise);
    QVERIFY(info("sdy.sharding_constraint").hasPointwiseRule);
    QVERIFY(info("sdy.reshard").isElementwise);
    QVERIFY(!info("sdy.reshard").hasPointwiseRule);
    QVERIFY(info("sdy.propagation_barrier").isElementwise);
    // Custom form without being element-wise.
    for (const char* n : {"stablehlo.reshape", "stablehlo.bitcast_convert", "stablehlo.dot_general", "func.call"}) {
        QVERIFY2(!info(n).isElementwise, n);
        QVERIFY2(!info(n).hasPointwiseRule, n);
        QVERIFY2(info(n).hasCustomForm, n);
    }
}

void TestOpRegistry::ruleRegistryFollowsPointwiseTrait()
{
    OperandSource src;
    const ir::Type t = ir::Type::tensor({2, 4}, "f32");
    auto reference = makeOp(src, "stablehlo.add", {t, t}, t);
    const RuleResult expected = computeOpShardingRule(*reference, {});
    QCOMPARE(int(expected.outcome), int(RuleOutcome::Created));
    int pointwise = 0;
    for (const OpInfo& i : OpRegistry::instance().ops()) {
        if (!i.hasPointwiseRule && !i.isElementwise)
            continue; // other ops' rules need their attributes
        auto op = makeOp(src, i.name, {t, t}, t);
        const RuleResult r = computeOpShardingRule(*op, {});
        if (i.hasPointwiseRule) {
            ++pointwise;
            QVERIFY2(r.outcome == RuleOutcome::Created, i.name.c_str());
            QVERIFY2(r.rule == expected.rule, i.name.c_str());
        } else if (i.isElementwise && i.name.rfind("stablehlo.", 0) == 0 && i.name != "stablehlo.select" &&
                   i.name != "stablehlo.clamp") {
            // The other element-wise StableHLO ops have no pointwise rule entry.
            QVERIFY2(r.outcome != RuleOutcome::Created, i.name.c_str());
        }
    }
    QCOMPARE(pointwise, 49);
}

void TestOpRegistry::driverFollowsElementwiseTrait()
{
    OperandSource src;
    const ir::Type t = ir::Type::tensor({2, 4}, "f32");
    int elementwise = 0;
    for (const OpInfo& i : OpRegistry::instance().ops()) {
        auto op = makeOp(src, i.name, {t}, t);
        QVERIFY2(isElementwiseOp(*op) == (i.isElementwise || i.name == "stablehlo.bitcast_convert"), i.name.c_str());
        elementwise += i.isElementwise ? 1 : 0;
    }
    QCOMPARE(elementwise, 51);
    // bitcast_convert is element-wise only between equal shapes.
    auto widening = makeOp(src, "stablehlo.bitcast_convert", {t}, ir::Type::tensor({2, 4, 2}, "f16"));
    QVERIFY(!isElementwiseOp(*widening));
    auto unknown = makeOp(src, "foo.add", {t}, t);
    QVERIFY(!isElementwiseOp(*unknown));
}

QTEST_APPLESS_MAIN(TestOpRegistry)
#include "tst_opregistry.moc"
