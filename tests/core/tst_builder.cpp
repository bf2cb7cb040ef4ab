// Tests of ir::Builder: insertion points, op creation, func/mesh/constant helpers, attributes.
#include <QtTest>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/ir/Builder.h"
#include "core/ir/Equivalence.h"
#include "tests/io/IoTestSupport.h"

using namespace shardx;
using namespace shardx::ir;

namespace {

std::vector<std::string> opNames(const Block& block)
{
    std::vector<std::string> names;
    for (const auto& op : block.ops())
        names.push_back(op->name());
    return names;
}

/// True if `text` (the print of `m`) reads back as the same program; otherwise warns why.
bool readsBackAs(const Module& m, const std::string& text)
{
    auto back = testing::parseOk(text);
    std::string why = "it does not parse";
    if (back && modulesEquivalent(m, *back, &why))
        return true;
    qWarning("%s", why.c_str());
    return false;
}

} // namespace

class TestBuilder : public QObject {
    Q_OBJECT

private slots:
    void insertionPointsKeepCreationOrder()
    {
        Module m;
        Builder b(m);
        Op* a = b.create("test.a", {}, {});
        Op* c = b.create("test.c", {}, {});
        QCOMPARE(b.insertionOp(), nullptr);
        b.setInsertionPoint(*c);
        b.create("test.b1", {}, {});
        b.create("test.b2", {}, {});
        b.setInsertionPointToStart(m.body());
        b.create("test.0", {}, {});
        b.setInsertionPointAfter(*c);
        b.create("test.d", {}, {});
        b.setInsertionPointAfter(*a);
        {
            Builder::InsertionGuard guard(b);
            b.setInsertionPointToEnd(m.body());
            b.setLoc(nameLoc("inner"));
            b.create("test.e", {}, {});
        }
        QCOMPARE(b.insertionBlock(), &m.body());
        QCOMPARE(b.insertionOp(), a->nextInBlock());
        QVERIFY(!b.loc());
        b.create("test.a2", {}, {});
        const std::vector<std::string> expected = {"test.0",  "test.a", "test.a2", "test.b1",
                                                   "test.b2", "test.c", "test.d",  "test.e"};
        QCOMPARE(opNames(m.body()), expected);
        QVERIFY(m.body().ops().back()->loc);
        QVERIFY(!a->loc);
    }

    void createFilesAttributesOperandsAndLocations()
    {
        Module m;
        Builder b(m);
        const Type t = Type::tensor({4, 8}, "f32");
        Op* func = b.createFunc({"f", "", {{t, {}, nullptr}}, {{t, {}}}});
        b.setInsertionPointToEnd(funcBody(*func));
        Value* arg = funcBody(*func).arg(0);
        b.setLoc(nameLoc("scope/op"));
        OperationState state("stablehlo.transpose");
        state.operands = {arg};
        state.resultTypes = {Type::tensor({8, 4}, "f32")};
        state.addAttribute("permutation", denseI64ArrayAttr({1, 0}));
        state.addAttribute("mhlo.frontend_attributes", makeAttr(DictionaryAttr{}));
        state.loc = nameLoc("explicit");
        Op* tr = b.create(std::move(state));
        // Inherent attributes are props, the others discardable, as the reader files them.
        QVERIFY(findAttr(tr->props(), "permutation"));
        QVERIFY(!findAttr(tr->attrs(), "permutation"));
        QVERIFY(findAttr(tr->attrs(), "mhlo.frontend_attributes"));
        QCOMPARE(tr->loc->as<LocationAttr>()->text, std::string("explicit"));
        QCOMPARE(tr->operand(0), arg);
        QCOMPARE(arg->uses().size(), size_t(1));
        QCOMPARE(arg->uses()[0].user, tr);

        Value* back =
            b.createValue("stablehlo.transpose", {tr->result(0)}, t, {{"permutation", denseI64ArrayAttr({1, 0})}});
        QCOMPARE(back->definingOp()->loc->as<LocationAttr>()->text, std::string("scope/op"));
        Op* sum = b.create("stablehlo.add", {back, arg}, {t});
        QCOMPARE(sum->numResults(), 1u);
        QCOMPARE(sum->result(0)->type(), t);
        Op* ret = b.createReturn({sum->result(0)});
        QCOMPARE(funcBody(*func).terminator(), ret);
        QCOMPARE(ret->name(), std::string("func.return"));
    }

    void regionsAndBlocks()
    {
        Module m;
        Builder b(m);
        const Type scalar = Type::tensor({}, "f32"), vec = Type::tensor({8}, "f32");
        Op* func = b.createFunc({"main", "", {{vec, {}, nullptr}}, {{scalar, {}}}});
        b.setInsertionPointToEnd(funcBody(*func));
        Value* zero = b.createConstant(floatSplatAttr(scalar, 0.0));
        OperationState reduce("stablehlo.reduce");
        reduce.operands = {funcBody(*func).arg(0), zero};
        reduce.resultTypes = {scalar};
        reduce.addAttribute("dimensions", denseI64ArrayAttr({0}));
        reduce.numRegions = 1;
        Op* red = b.create(std::move(reduce));
        {
            Builder::InsertionGuard guard(b);
            Block& body = b.createBlock(red->region(0), {scalar, scalar});
            QCOMPARE(b.insertionBlock(), &body);
            QCOMPARE(body.numArgs(), 2u);
            Value* s = b.createValue("stablehlo.add", {body.arg(0), body.arg(1)}, scalar);
            b.create("stablehlo.return", {s}, {});
        }
        QCOMPARE(b.insertionBlock(), &funcBody(*func));
        b.createReturn({red->result(0)});
        // The body is one op on the block arguments in order: printed in the compact form.
        const std::string text = io::printModule(m);
        QCOMPARE(text, std::string("module {\n"
                                   "  func.func @main(%arg0: tensor<8xf32>) -> tensor<f32> {\n"
                                   "    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
                                   "    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across "
                                   "dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>\n"
                                   "    return %0 : tensor<f32>\n"
                                   "  }\n"
                                   "}\n"));
        QVERIFY(readsBackAs(m, text));
    }

    void funcMeshAndShardingHelpersPrintAsJaxWrites()
    {
        Module m;
        m.op().setProp("sym_name", stringAttr("jit_f"));
        m.op().setDiscardable("mhlo.num_partitions", integerAttr(8, "i32"));
        Builder b(m);
        b.createMesh("mesh", Mesh({{"data", 2}, {"model", 4}}));
        const Type t = Type::tensor({8, 16}, "f32");
        FuncSignature sig;
        sig.name = "main";
        sig.visibility = "public";
        sig.arguments.push_back(
            {t, {{"sdy.sharding", shardingAttr(shardingOnAxes("mesh", {{"data"}, {}}))}}, nameLoc("x")});
        sig.arguments.push_back({t, {}, nameLoc("y")});
        sig.results.push_back({t, {{"jax.result_info", stringAttr("")}}});
        Op* func = b.createFunc(sig);
        QVERIFY(func->attr("arg_attrs"));
        QVERIFY(func->attr("res_attrs"));
        QCOMPARE(funcType(*func), Type::function({t, t}, {t}));
        QCOMPARE(funcBody(*func).arg(1)->loc()->as<LocationAttr>()->text, std::string("y"));
        b.setInsertionPointToEnd(funcBody(*func));
        b.setLoc(nameLoc("jit(f)/jit(main)/add"));
        Value* sum = b.createValue("stablehlo.add", {funcBody(*func).arg(0), funcBody(*func).arg(1)}, t);
        Value* c = b.createShardingConstraint(sum, shardingOnAxes("mesh", {{"data"}, {"model"}}));
        b.setLoc(nameLoc("jit(f)/jit(main)/return"));
        b.createReturn({c});

        io::PrintOptions debug;
        debug.printDebugInfo = true;
        const std::string text = io::printModule(m, debug);
        QCOMPARE(text, std::string(
                           "module @jit_f attributes {mhlo.num_partitions = 8 : i32} {\n"
                           "  sdy.mesh @mesh = <[\"data\"=2, \"model\"=4]> loc(unknown)\n"
                           "  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, "
                           "[{\"data\"}, {}]>} loc(\"x\"), %arg1: tensor<8x16xf32> loc(\"y\")) -> (tensor<8x16xf32> "
                           "{jax.result_info = \"\"}) {\n"
                           "    %0 = stablehlo.add %arg0, %arg1 : tensor<8x16xf32> loc(\"jit(f)/jit(main)/add\")\n"
                           "    %1 = sdy.sharding_constraint %0 <@mesh, [{\"data\"}, {\"model\"}]> : tensor<8x16xf32> "
                           "loc(\"jit(f)/jit(main)/add\")\n"
                           "    return %1 : tensor<8x16xf32> loc(\"jit(f)/jit(main)/return\")\n"
                           "  } loc(unknown)\n"
                           "} loc(unknown)\n"));
        QVERIFY(readsBackAs(m, text));
    }

    void argAndResultAttrsAreOmittedWhenAllEmpty()
    {
        Module m;
        Builder b(m);
        const Type t = Type::tensor({2}, "f32");
        Op* func = b.createFunc({"g", "private", {{t, {}, nullptr}, {t, {}, nullptr}}, {{t, {}}}});
        QVERIFY(!func->attr("arg_attrs"));
        QVERIFY(!func->attr("res_attrs"));
        QCOMPARE(symbolName(*func), std::string("g"));
        QCOMPARE(funcBody(*func).numArgs(), 2u);
        QVERIFY(funcBody(*func).empty());
    }

    void floatSplatsRoundAsTheReaderDoes()
    {
        for (const char* type : {"f32", "f64"}) {
            const Type t = Type::tensor({2, 3}, type);
            for (double v : {0.0, 9.99999997E-7, 0.797884583, -1.5, -std::numeric_limits<double>::infinity()}) {
                DiagnosticList diags;
                std::string spelling = io::printAttribute(*floatSplatAttr(t, v));
                AttrPtr parsed = io::parseAttribute(spelling, diags);
                QVERIFY2(parsed, diags.formatAll().c_str());
                QVERIFY2(attrEquals(parsed, floatSplatAttr(t, v)), spelling.c_str());
            }
        }
        // 0.9 is 0.899999976 in f32, as MLIR's APFloat rounds it.
        DiagnosticList diags;
        AttrPtr parsed = io::parseAttribute("dense<0.9> : tensor<f32>", diags);
        QVERIFY(attrEquals(parsed, floatSplatAttr(Type::tensor({}, "f32"), 0.9)));
        QCOMPARE(io::printAttribute(*floatSplatAttr(Type::tensor({}, "f32"), 0.9)),
                 std::string("dense<0.899999976> : tensor<f32>"));
    }

    void attributeHelpers()
    {
        QCOMPARE(io::printAttribute(*integerAttr(3)), std::string("3 : i64"));
        QCOMPARE(io::printAttribute(*integerAttr(3, "i32")), std::string("3 : i32"));
        QCOMPARE(io::printAttribute(*stringAttr("a\"b")), std::string("\"a\\22b\""));
        QCOMPARE(io::printAttribute(*denseI64ArrayAttr({0, 2, 1})), std::string("array<i64: 0, 2, 1>"));
        QCOMPARE(io::printAttribute(*shardingAttr(shardingOnAxes("m", {{"a", "b"}, {}, {"c"}}))),
                 std::string("#sdy.sharding<@m, [{\"a\", \"b\"}, {}, {\"c\"}]>"));
        const AttrPtr loc = nameLoc("params/w"); // keeps the attribute alive while it is read
        const LocationAttr* l = loc->as<LocationAttr>();
        QVERIFY(l);
        QCOMPARE(l->kind, LocationAttr::Kind::Name);
        QVERIFY(l->children.empty());
    }
};

QTEST_APPLESS_MAIN(TestBuilder)
#include "tst_builder.moc"
