// Tests of module verification (SDY.md 1.5-1.9, 2): modules built with the IR API and parsed text.
#include <QtTest>

#include <set>

#include "core/io/MlirReader.h"
#include "core/ir/Verifier.h"
#include "tests/io/IoTestSupport.h"

using namespace shardx;
using namespace shardx::ir;

namespace {

Type t8x8() { return Type::tensor({8, 8}, "f32"); }

TensorSharding shard(const char* mesh, std::vector<std::vector<AxisRef>> dims, std::vector<AxisRef> replicated = {},
                     std::vector<AxisRef> unreduced = {}, ReductionKind kind = ReductionKind::Sum)
{
    TensorSharding s;
    s.mesh = MeshRef{mesh, std::nullopt};
    for (auto& d : dims)
        s.dims.push_back(DimSharding{std::move(d), true, std::nullopt});
    s.replicated = std::move(replicated);
    s.unreduced = std::move(unreduced);
    s.unreducedKind = kind;
    return s;
}

/// A module with `sdy.mesh @m = <["a"=2, "b"=4]>` and `func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32>`
/// whose body is filled by the test; `ret` is appended by finish().
struct Builder {
    Module module;
    Op* mesh = nullptr;
    Op* func = nullptr;
    Block* body = nullptr;
    Value* arg = nullptr;
    int line = 1;

    Builder()
    {
        mesh = module.body().push_back(std::make_unique<Op>("sdy.mesh"));
        mesh->setProp("sym_name", makeAttr(StringAttr{"m"}));
        mesh->setProp("mesh", makeAttr(MeshAttr{Mesh({{"a", 2}, {"b", 4}})}));
        mesh->pos = SourcePos{"t.mlir", line++, 1};
        func = module.body().push_back(std::make_unique<Op>("func.func"));
        func->setProp("sym_name", makeAttr(StringAttr{"main"}));
        func->setProp("function_type", makeAttr(TypeAttr{Type::function({t8x8()}, {t8x8()})}));
        func->pos = SourcePos{"t.mlir", line++, 1};
        body = &func->addRegion()->front();
        arg = body->addArgument(t8x8());
    }
    Op* add(const std::string& name, std::vector<Value*> operands, std::vector<Type> results)
    {
        auto op = std::make_unique<Op>(name);
        for (Value* v : operands)
            op->addOperand(v);
        for (Type& t : results)
            op->addResult(t);
        op->pos = SourcePos{"t.mlir", line++, 3};
        return body->push_back(std::move(op));
    }
    void finish(Value* v) { add("func.return", {v}, {}); }
    /// Line of the first error, 0 when the module verifies.
    int verify(QString* message = nullptr)
    {
        DiagnosticList diags;
        bool ok = verifyModule(module, diags);
        if (ok != diags.empty())
            return -1;
        if (ok)
            return 0;
        if (message)
            *message = QString::fromStdString(diags.all().front().message);
        return diags.all().front().pos.line;
    }
};

int verifyText(const char* text, QString* message = nullptr)
{
    DiagnosticList diags;
    auto module = io::parseMlir(text, "t.mlir", diags);
    if (!module) {
        if (message)
            *message = QString::fromStdString(diags.formatAll());
        return -2;
    }
    if (verifyModule(*module, diags))
        return 0;
    if (message)
        *message = QString::fromStdString(diags.all().front().message);
    return diags.all().front().pos.line;
}

/// True if `message`, an expected diagnostic of a verification unit, is one MLIR reports while parsing
/// the text (so that the case never reaches the verifier): the parser's own errors and the attribute
/// verifiers it runs on what it builds, such as the mesh's (`custom op 'sdy.mesh' ...`).
bool parseTimeDiagnostic(const std::string& message)
{
    static const char* const phrases[] = {
        "custom op '",                                  // any op's custom parser or its attributes' verifiers
        "elements literal type must have static shape", // dense literal of a dynamic type
        "cannot specify `BOTH` as the direction",       // sdy.propagation_barrier's parser
        "total product of axis sizes must match total number of device ids", // mesh attribute
    };
    return std::any_of(std::begin(phrases), std::end(phrases),
                       [&](const char* p) { return message.find(p) != std::string::npos; });
}

} // namespace

class TestVerifier : public QObject {
    Q_OBJECT
private slots:
    void validModule()
    {
        Builder b;
        setFuncArgAttr(*b.func, 0, "sdy.sharding", makeAttr(ShardingAttr{shard("m", {{AxisRef("a")}, {}})}));
        Op* add = b.add("stablehlo.add", {b.arg, b.arg}, {t8x8()});
        add->setDiscardable("sdy.sharding",
                            makeAttr(ShardingPerValueAttr{ShardingPerValue{{shard("m", {{}, {AxisRef("b")}})}}}));
        b.finish(add->result(0));
        QCOMPARE(b.verify(), 0);
    }
    void funcArgErrorsAtFunc()
    {
        Builder b;
        setFuncArgAttr(*b.func, 0, "sdy.sharding", makeAttr(ShardingAttr{shard("other", {{}, {}})}));
        b.finish(b.arg);
        QString msg;
        QCOMPARE(b.verify(&msg), 2);
        QCOMPARE(msg, QStringLiteral("'func.func' op arg 0 - unknown mesh: @other"));
    }
    void funcResultWrongKind()
    {
        Builder b;
        setFuncResultAttr(*b.func, 0, "sdy.sharding", makeAttr(IntegerAttr{1, Type::scalar("i64")}));
        b.finish(b.arg);
        QString msg;
        QCOMPARE(b.verify(&msg), 2);
        QVERIFY(msg.contains("result 0 - should have a sharding attribute of type TensorShardingAttr"));
    }
    void opShardingCountAndKind()
    {
        Builder b;
        Op* add = b.add("stablehlo.add", {b.arg, b.arg}, {t8x8()});
        auto s = shard("m", {{}, {}});
        add->setDiscardable("sdy.sharding", makeAttr(ShardingPerValueAttr{ShardingPerValue{{s, s}}}));
        b.finish(add->result(0));
        QString msg;
        QCOMPARE(b.verify(&msg), 3);
        QCOMPARE(msg, QStringLiteral(
                          "'stablehlo.add' op result shardings don't match number of values: 2 shardings vs 1 values"));
        add->setDiscardable("sdy.sharding", makeAttr(ShardingAttr{s}));
        QCOMPARE(b.verify(&msg), 3);
        QVERIFY(msg.contains("TensorShardingPerValueAttr"));
        add->setDiscardable("sdy.sharding",
                            makeAttr(ShardingPerValueAttr{ShardingPerValue{{shard("m", {{AxisRef("c")}, {}})}}}));
        QCOMPARE(b.verify(&msg), 3);
        QCOMPARE(msg, QStringLiteral("'stablehlo.add' op result - unknown axis name: \"c\""));
    }
    void zeroResultOpException()
    {
        Builder b;
        Op* call = b.add("stablehlo.custom_call", {b.arg}, {});
        call->setDiscardable("sdy.sharding", makeAttr(ShardingPerValueAttr{ShardingPerValue{{shard("m", {})}}}));
        b.finish(b.arg);
        QCOMPARE(b.verify(), 0);
        call->setDiscardable("sdy.sharding",
                             makeAttr(ShardingPerValueAttr{ShardingPerValue{{shard("m", {{AxisRef("a")}})}}}));
        QCOMPARE(b.verify(), 3);
    }
    void shardingRuleAttr()
    {
        Builder b;
        Op* add = b.add("stablehlo.add", {b.arg, b.arg}, {t8x8()});
        OpShardingRule r;
        r.factorSizes = {8, 8};
        r.operands = {{{0}, {1}}, {{0}, {1}}};
        r.results = {{{0}, {1}}};
        add->setDiscardable("sdy.sharding_rule", makeAttr(OpShardingRuleAttr{r}));
        b.finish(add->result(0));
        QCOMPARE(b.verify(), 0);
        r.operands.pop_back();
        add->setDiscardable("sdy.sharding_rule", makeAttr(OpShardingRuleAttr{r}));
        QString msg;
        QCOMPARE(b.verify(&msg), 3);
        QVERIFY(msg.contains("number of operands and mappings must match: 2 != 1"));
    }
    void manualAxisNesting()
    {
        Builder b;
        Op* mc = b.add("sdy.manual_computation", {b.arg}, {t8x8()});
        mc->setProp("in_shardings",
                    makeAttr(ShardingPerValueAttr{ShardingPerValue{{shard("m", {{AxisRef("a")}, {}})}}}));
        mc->setProp("out_shardings",
                    makeAttr(ShardingPerValueAttr{ShardingPerValue{{shard("m", {{AxisRef("a")}, {}})}}}));
        mc->setProp("manual_axes", makeAttr(ManualAxesAttr{{"a"}}));
        Block& inner = mc->addRegion()->front();
        Value* local = inner.addArgument(Type::tensor({4, 8}, "f32"));
        auto add = std::make_unique<Op>("stablehlo.add");
        add->addOperand(local);
        add->addOperand(local);
        add->addResult(Type::tensor({4, 8}, "f32"));
        add->pos = SourcePos{"t.mlir", 10, 5};
        Op* addOp = inner.push_back(std::move(add));
        auto ret = std::make_unique<Op>("sdy.return");
        ret->addOperand(addOp->result(0));
        inner.push_back(std::move(ret));
        b.finish(mc->result(0));
        QCOMPARE(b.verify(), 0);
        addOp->setDiscardable("sdy.sharding",
                              makeAttr(ShardingPerValueAttr{ShardingPerValue{{shard("m", {{AxisRef("a")}, {}})}}}));
        QString msg;
        QCOMPARE(b.verify(&msg), 10);
        QVERIFY(msg.contains("already bound by a parent sdy.manual_computation op"));
        addOp->removeAttribute("sdy.sharding");
        // wrong local type
        inner.arg(0)->setType(t8x8());
        addOp->result(0)->setType(t8x8());
        QCOMPARE(b.verify(&msg), 3);
        QVERIFY(msg.contains("Expected local shape 'tensor<4x8xf32>'"));
    }
    void reshardUnreducedTransition()
    {
        Builder b;
        setFuncArgAttr(*b.func, 0, "sdy.sharding",
                       makeAttr(ShardingAttr{shard("m", {{}, {}}, {}, {AxisRef("a")}, ReductionKind::Max)}));
        Op* r = b.add("sdy.reshard", {b.arg}, {t8x8()});
        r->setProp("sharding", makeAttr(ShardingAttr{shard("m", {{}, {}}, {}, {AxisRef("a")})}));
        b.finish(r->result(0));
        QString msg;
        QCOMPARE(b.verify(&msg), 3);
        QCOMPARE(msg,
                 QStringLiteral(
                     "'sdy.reshard' op cannot change the reduction operator of kept unreduced axes from max to sum."));
        r->setProp("sharding", makeAttr(ShardingAttr{shard("m", {{}, {}}, {}, {AxisRef("a")}, ReductionKind::Max)}));
        QCOMPARE(b.verify(), 0);
    }
    void duplicateMeshAndStop()
    {
        Builder b;
        Op* m2 = b.module.body().insertAfter(b.mesh, std::make_unique<Op>("sdy.mesh"));
        m2->setProp("sym_name", makeAttr(StringAttr{"m"}));
        m2->setProp("mesh", makeAttr(MeshAttr{Mesh({{"x", 2}})}));
        m2->pos = SourcePos{"t.mlir", 7, 1};
        b.finish(b.arg);
        QString msg;
        QCOMPARE(b.verify(&msg), 7);
        QVERIFY(msg.contains("redefinition"));
    }
    void returnAndCall()
    {
        Builder b;
        Op* c = b.add("func.call", {b.arg}, {t8x8()});
        c->setProp("callee", makeAttr(SymbolRefAttr{{"nope"}}));
        b.finish(c->result(0));
        QString msg;
        QCOMPARE(b.verify(&msg), 3);
        c->setProp("callee", makeAttr(SymbolRefAttr{{"main"}}));
        QCOMPARE(b.verify(), 0);
        Builder b2;
        b2.add("func.return", {b2.arg, b2.arg}, {});
        QCOMPARE(b2.verify(&msg), 3);
    }
    void textCases_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("line"); // 0 = valid
        QTest::addColumn<QString>("part");
        const QString mesh = "sdy.mesh @mesh = <[\"x\"=2, \"y\"=2, \"z\"=4]>\n";
        QTest::newRow("valid gather")
            << mesh +
                   R"(func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {"z"}]>}) -> tensor<8x8xf32> {
  %0 = sdy.all_gather [{"y"}, {"z"}] %arg0 out_sharding=<@mesh, [{"x"}, {}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})" << 0 << "";
        QTest::newRow("gather mismatch")
            << mesh +
                   R"(func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {"z"}]>}) -> tensor<8x8xf32> {
  %0 = sdy.all_gather [{"y"}, {"z"}] %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})" << 3 << "doesn't match expected sharding [\"x\"] on dimension 0";
        QTest::newRow("gather bad suffix")
            << mesh +
                   R"(func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {"z"}]>}) -> tensor<8x8xf32> {
  %0 = sdy.all_gather [{"x"}, {}] %arg0 out_sharding=<@mesh, [{"y"}, {"z"}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})" << 3 << "can't apply gathering axis \"x\" to operand sharding on dimension 0";
        QTest::newRow("gather without operand sharding")
            << mesh + R"(func.func @f(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = sdy.all_gather [{}, {}] %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})" << 3 << "collective on operand without sharding";
        QTest::newRow("slice valid") << mesh + R"(func.func @f(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = sdy.all_slice [{"x"}, {"y", "z"}] %arg0 out_sharding=<@mesh, [{"x"}, {"y", "z"}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})" << 0 << "";
        QTest::newRow("all_to_all valid")
            << mesh +
                   R"(func.func @f(%arg0: tensor<8x8x8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {"z"}, {}, {}]>}) -> tensor<8x8x8x8xf32> {
  %0 = sdy.all_to_all [{"y"}: 0->3, {"z"}: 1->2] %arg0 out_sharding=<@mesh, [{"x"}, {}, {"z"}, {"y"}]> : tensor<8x8x8x8xf32>
  return %0 : tensor<8x8x8x8xf32>
})" << 0 << "";
        QTest::newRow("all_to_all unsorted")
            << mesh +
                   R"(func.func @f(%arg0: tensor<8x8x8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}, {"y"}, {}]>}) -> tensor<8x8x8x8xf32> {
  %0 = sdy.all_to_all [{"y"}: 2->1, {"x"}: 0->3] %arg0 out_sharding=<@mesh, [{}, {"y"}, {}, {"x"}]> : tensor<8x8x8x8xf32>
  return %0 : tensor<8x8x8x8xf32>
})" << 3 << "not sorted in ascending order: 0 appears after 2";
        QTest::newRow("permute valid")
            << mesh +
                   R"(func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {"z"}]>}) -> tensor<8x8xf32> {
  %0 = sdy.collective_permute %arg0 out_sharding=<@mesh, [{"z":(1)2, "y"}, {"x", "z":(2)2}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})" << 0 << "";
        QTest::newRow("permute size")
            << mesh +
                   R"(func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {"z"}]>}) -> tensor<8x8xf32> {
  %0 = sdy.collective_permute %arg0 out_sharding=<@mesh, [{"z"}, {"x"}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})" << 3 << "sharded size of result doesn't match operand on dimension 1";
        QTest::newRow("all_reduce valid")
            << mesh +
                   R"(func.func @f(%arg0: tensor<16x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}) -> tensor<16x2xf32> {
  %0 = sdy.all_reduce max {"y"} %arg0 out_sharding=<@mesh, [{}, {"x"}]> : tensor<16x2xf32>
  return %0 : tensor<16x2xf32>
})" << 0 << "";
        QTest::newRow("all_reduce overlap")
            << mesh +
                   R"(func.func @f(%arg0: tensor<16x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) -> tensor<16x2xf32> {
  %0 = sdy.all_reduce {"y"} %arg0 out_sharding=<@mesh, [{}, {"y"}]> : tensor<16x2xf32>
  return %0 : tensor<16x2xf32>
})" << 3 << "reduction axis \"y\" overlaps";
        QTest::newRow("all_reduce kind")
            << mesh +
                   R"(func.func @f(%arg0: tensor<16x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}], unreduced=max{"y"}>}) -> tensor<16x2xf32> {
  %0 = sdy.all_reduce {"x"} %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x2xf32>
  return %0 : tensor<16x2xf32>
})" << 3 << "cannot reduce 'max' unreduced axes. Expected 'sum'.";
        QTest::newRow("reduce_scatter valid")
            << mesh +
                   R"(func.func @f(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<16x8xf32> {
  %0 = sdy.reduce_scatter min [{"z"}, {"y"}] %arg0 out_sharding=<@mesh, [{"x", "z"}, {"y"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
})" << 0 << "";
        QTest::newRow("s2u valid")
            << mesh +
                   R"(func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {"z"}]>}) -> tensor<8x8xf32> {
  %0 = sdy.sharded_to_unreduced [{"y"}, {}] %arg0 out_sharding=<@mesh, [{"x"}, {"z"}], unreduced={"y"}> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})" << 0 << "";
        QTest::newRow("s2u unreduced")
            << mesh +
                   R"(func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {"z"}]>}) -> tensor<8x8xf32> {
  %0 = sdy.sharded_to_unreduced [{"y"}, {}] %arg0 out_sharding=<@mesh, [{"x"}, {"z"}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})" << 3 << "out_unreduced_axes should be in_unreduced_axes + sharded_to_unreduced_axes";
        QTest::newRow("r2u valid")
            << mesh +
                   R"(func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  %0 = sdy.replicated_to_unreduced {"y", "z"} %arg0 out_sharding=<@mesh, [{"x"}, {}], unreduced={"y", "z"}> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})" << 0 << "";
        QTest::newRow("r2u overlap")
            << mesh +
                   R"(func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  %0 = sdy.replicated_to_unreduced {"x"} %arg0 out_sharding=<@mesh, [{"x"}, {}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})" << 3 << "r2u axis \"x\" overlaps with operand dimension sharding";
        QTest::newRow("edges no sharding") << mesh + R"(func.func @f(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = stablehlo.add %arg0, %arg0 {sdy.propagation_edges = #sdy.propagation_edges<[{step-1 = [{"z" = operand-1 -> [operand-0, result-0]}]}]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})" << 3 << "expected propagation edges attr to reference a sharding";
        QTest::newRow("edges out of range")
            << mesh +
                   R"(func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"z"}]>}) -> tensor<8x8xf32> {
  %0 = stablehlo.add %arg0, %arg0 {sdy.propagation_edges = #sdy.propagation_edges<[{step-1 = [{"z" = operand-1 -> [result-1]}]}]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})" << 3 << "result index in range [0, 1), got: 1";
        QTest::newRow("named computation count") << mesh + R"(func.func @f(%arg0: tensor<8x2xi32>) -> tensor<8x2xi32> {
  %0 = sdy.named_computation<"foo">(%arg0) in_shardings=[<@mesh, [{"y"}, {}]>, <@mesh, [{"x"}, {}]>] (%arg1: tensor<8x2xi32>) {
    sdy.return %arg1 : tensor<8x2xi32>
  } : (tensor<8x2xi32>) -> tensor<8x2xi32>
  return %0 : tensor<8x2xi32>
})" << 3 << "in_shardings shardings don't match number of values: 2 shardings vs 1 values";
        QTest::newRow("manual order") << mesh + R"(func.func @f(%arg0: tensor<16x32xf32>) -> tensor<16x16xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {"x", "y"}]>] out_shardings=[<@mesh, [{}, {}], replicated={"y"}>] manual_axes={"y"} (%arg1: tensor<16x16xf32>) {
    sdy.return %arg1 : tensor<16x16xf32>
  } : (tensor<16x32xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
})" << 3 << "Saw manual axis \"y\" after free axis \"x\"";
        QTest::newRow("dfe multiple users") << R"(func.func @f(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = sdy.data_flow_edge %arg0 : tensor<8xf32>
  return %arg0, %0 : tensor<8xf32>, tensor<8xf32>
})" << 2 << "single user";
    }
    void textCases()
    {
        QFETCH(QString, text);
        QFETCH(int, line);
        QFETCH(QString, part);
        QString msg;
        const QByteArray utf8 = text.toUtf8();
        int got = verifyText(utf8.constData(), &msg);
        QVERIFY2(got != -2, qPrintable("the reader rejects a case meant for the verifier: " + msg));
        QVERIFY2(got == line, qPrintable(QString("line %1, message: %2").arg(got).arg(msg)));
        if (!part.isEmpty())
            QVERIFY2(msg.contains(part), qPrintable(msg));
    }
    /// Shardy's verification units (`ir/*verification*` of the shared conformance set, cut as the runner cuts
    /// them), checked as `-verify-diagnostics` does: every expected error or warning is reported on its line and
    /// no other line gets one. A case must reach the verifier: the reader may reject its text only when the case
    /// expects a diagnostic MLIR reports while parsing (see parseTimeDiagnostic), and then on that line.
    void conformanceVerificationUnits()
    {
        const std::vector<testing::ConformanceUnit> units = testing::conformanceUnits();
        if (units.empty())
            QSKIP("../shared/conformance is not present");
        int checked = 0;
        QStringList failures;
        for (const testing::ConformanceUnit& unit : units) {
            if (unit.group != "ir" || unit.file.filename().string().find("verification") == std::string::npos)
                continue;
            for (const testing::UnitPiece& piece : testing::unitPieces(unit)) {
                ++checked;
                const std::vector<testing::ExpectedDiagnostic> expected = testing::expectedDiagnostics(piece.text);
                DiagnosticList diags;
                auto module = io::parseMlir(testing::blankComments(piece.text), piece.name, diags, piece.options);
                if (!module) {
                    const Diagnostic* first = diags.all().empty() ? nullptr : &diags.all().front();
                    auto parseTimeAt = [&](int line) {
                        return std::any_of(expected.begin(), expected.end(), [&](const auto& e) {
                            return e.severity == "error" && (line == 0 || e.line == line) &&
                                   parseTimeDiagnostic(e.message);
                        });
                    };
                    if (!first || !parseTimeAt(first->pos.line))
                        failures << QString::fromStdString(
                            piece.name +
                            (parseTimeAt(0) ? ": the parse error is not on the line that expects it: "
                                            : ": the reader rejects a case expected to reach the verifier: ") +
                            (first ? first->format() : std::string("(no diagnostic)")));
                    continue;
                }
                verifyModule(*module, diags);
                std::set<std::pair<std::string, int>> want, got;
                for (const testing::ExpectedDiagnostic& e : expected)
                    want.insert({e.severity, e.line});
                for (const Diagnostic& d : diags.all())
                    if (d.severity == Severity::Error || d.severity == Severity::Warning)
                        got.insert({severityName(d.severity), d.pos.line});
                for (const auto& [severity, line] : want)
                    if (!got.count({severity, line}))
                        failures << QString::fromStdString(piece.name + ": expected " + severity + " on line " +
                                                           std::to_string(line) + " not reported; got:\n" +
                                                           diags.formatAll());
                for (const auto& [severity, line] : got)
                    if (!want.count({severity, line}))
                        failures << QString::fromStdString(piece.name + ": unexpected " + severity + " on line " +
                                                           std::to_string(line) + ":\n" + diags.formatAll());
            }
        }
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join('\n')));
        QVERIFY(checked > 0);
    }
};

QTEST_APPLESS_MAIN(TestVerifier)
#include "tst_verifier.moc"
