// Tests of the MLIR printer: value naming, op forms, attributes, floats and dense literals.
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "tests/io/LargeModuleText.h"

using namespace shardx;
using namespace shardx::ir;

namespace {

Type t(std::vector<int64_t> shape, const char* elt) { return Type::tensor(std::move(shape), elt); }

AttrPtr splatI32(int32_t v, const Type& type)
{
    DenseElementsAttr d;
    d.type = type;
    d.splat = true;
    d.data.resize(4);
    std::memcpy(d.data.data(), &v, 4);
    return makeAttr(d);
}

AttrPtr splatF32(float v, const Type& type)
{
    DenseElementsAttr d;
    d.type = type;
    d.splat = true;
    d.data.resize(4);
    std::memcpy(d.data.data(), &v, 4);
    return makeAttr(d);
}

Op* addOp(Block& b, const char* name, std::vector<Value*> operands, std::vector<Type> results)
{
    auto op = std::make_unique<Op>(name);
    for (Value* v : operands)
        op->addOperand(v);
    for (Type& r : results)
        op->addResult(r);
    return b.push_back(std::move(op));
}

Op* addFunc(Module& m, const char* name, std::vector<Type> ins, std::vector<Type> outs)
{
    auto f = std::make_unique<Op>("func.func");
    f->setProp("sym_name", makeAttr(StringAttr{name}));
    f->setProp("function_type", makeAttr(TypeAttr{Type::function(ins, outs)}));
    Block& body = f->addRegion()->front();
    for (Type& in : ins)
        body.addArgument(in);
    return m.body().push_back(std::move(f));
}

std::vector<std::string> lines(const std::string& s)
{
    std::vector<std::string> out;
    std::istringstream in(s);
    std::string line;
    while (std::getline(in, line))
        out.push_back(line);
    return out;
}

/// Compares line by line so a failure names the first differing line.
void compareLines(const std::string& actual, const std::string& expected)
{
    auto a = lines(actual), e = lines(expected);
    for (size_t i = 0; i < std::min(a.size(), e.size()); ++i)
        QCOMPARE(QString::fromStdString(a[i]), QString::fromStdString(e[i]));
    QCOMPARE(a.size(), e.size());
}

std::unique_ptr<Module> parse(const std::string& text)
{
    DiagnosticList diags;
    io::ReadOptions opts;
    opts.allowUnregisteredDialects = true;
    auto m = io::parseMlir(text, "test.mlir", diags, opts);
    return m;
}

/// Parses `input`, prints it and compares with `expected`; then checks that the output is a
/// fixed point of read+print.
void checkPrint(const std::string& input, const std::string& expected)
{
    auto m = parse(input);
    QVERIFY2(m, "input does not parse");
    std::string printed = io::printModule(*m);
    compareLines(printed, expected);
    auto again = parse(printed);
    QVERIFY2(again, "printed output does not parse");
    compareLines(io::printModule(*again), expected);
}

} // namespace

class TestMlirPrinter : public QObject {
    Q_OBJECT

private slots:
    /// printModule to a stream writes the text as it goes (a few hundred kilobytes at a time) and
    /// writes exactly what the string form holds: on every sample and on a module of several
    /// megabytes whose functions hold custom forms with regions (a while whose body alone passes the
    /// chunk size, printed while its own form could still be rolled back), in each print mode.
    void streamedEqualsWhole()
    {
        std::vector<std::pair<std::string, std::string>> inputs;
        for (const auto& e :
             std::filesystem::directory_iterator(std::filesystem::path(SHARDX_SOURCE_DIR) / "samples")) {
            if (e.path().extension() != ".mlir")
                continue;
            std::ifstream in(e.path(), std::ios::binary);
            inputs.emplace_back(e.path().filename().string(), std::string(std::istreambuf_iterator<char>(in), {}));
        }
        std::string big = testing::chainedAddModule(3u << 20);
        big += "func.func @g(%arg0: tensor<i32>) -> tensor<i32> {\n"
               "  %c = stablehlo.constant dense<1> : tensor<i32>\n"
               "  %0 = stablehlo.while(%iter = %arg0) : tensor<i32>\n"
               "    cond {\n"
               "      %1 = stablehlo.compare LT, %iter, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
               "      stablehlo.return %1 : tensor<i1>\n"
               "    } do {\n"
               "      %b0 = stablehlo.add %iter, %c : tensor<i32> loc(\"body\")\n";
        for (int i = 1; i < 12000; ++i)
            big += "      %b" + std::to_string(i) + " = stablehlo.add %b" + std::to_string(i - 1) +
                   ", %c : tensor<i32> loc(\"body\")\n";
        big += "      stablehlo.return %b11999 : tensor<i32>\n"
               "    }\n"
               "  return %0 : tensor<i32>\n"
               "}\n";
        inputs.emplace_back("generated", big);
        for (const auto& [name, text] : inputs) {
            DiagnosticList diags;
            auto m = io::parseMlir(text, name, diags);
            if (!m)
                continue; // samples of errors
            for (int mode = 0; mode < 3; ++mode) {
                io::PrintOptions opts;
                opts.printDebugInfo = mode == 1;
                opts.genericForm = mode == 2;
                const std::string whole = io::printModule(*m, opts);
                std::ostringstream streamed;
                io::printModule(*m, opts, streamed);
                QVERIFY2(streamed.str() == whole, (name + " mode " + std::to_string(mode)).c_str());
                if (name == "generated")
                    QVERIFY(whole.size() > (3u << 20));
            }
        }
    }

    void valueNamesWithConstantsAndWhile()
    {
        Module m;
        Type f32 = t({}, "f32"), i32 = t({}, "i32"), i1 = t({}, "i1");
        Op* f = addFunc(m, "main", {f32, i32}, {f32});
        Block& b = f->region(0).front();
        Op* c1 = addOp(b, "stablehlo.constant", {}, {i32});
        c1->setProp("value", splatI32(1, i32));
        Op* c2 = addOp(b, "stablehlo.constant", {}, {i32});
        c2->setProp("value", splatI32(2, i32));
        Op* cst = addOp(b, "stablehlo.constant", {}, {f32});
        cst->setProp("value", splatF32(1.0f, f32));
        Op* add = addOp(b, "stablehlo.add", {b.arg(0), cst->result(0)}, {f32});
        Op* w = addOp(b, "stablehlo.while", {add->result(0), c1->result(0)}, {f32, i32});
        Block& cond = w->addRegion()->front();
        Value* ca = cond.addArgument(f32);
        Value* cb = cond.addArgument(i32);
        (void)ca;
        Op* c3 = addOp(cond, "stablehlo.constant", {}, {i32});
        c3->setProp("value", splatI32(3, i32));
        Op* cmp = addOp(cond, "stablehlo.compare", {cb, c3->result(0)}, {i1});
        cmp->setProp("comparison_direction", makeAttr(OpaqueAttr{"stablehlo", "", "comparison_direction LT"}));
        addOp(cond, "stablehlo.return", {cmp->result(0)}, {});
        Block& body = w->addRegion()->front();
        Value* ba = body.addArgument(f32);
        Value* bb = body.addArgument(i32);
        Op* neg = addOp(body, "stablehlo.negate", {ba}, {f32});
        addOp(body, "stablehlo.return", {neg->result(0), bb}, {});
        addOp(b, "func.return", {w->result(0)}, {});

        const std::string expected = R"(module {
  func.func @main(%arg0: tensor<f32>, %arg1: tensor<i32>) -> tensor<f32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<2> : tensor<i32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.add %arg0, %cst : tensor<f32>
    %1:2 = stablehlo.while(%iterArg = %0, %iterArg_1 = %c) : tensor<f32>, tensor<i32>
     cond {
      %c_2 = stablehlo.constant dense<3> : tensor<i32>
      %2 = stablehlo.compare  LT, %iterArg_1, %c_2 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = stablehlo.negate %iterArg : tensor<f32>
      stablehlo.return %2, %iterArg_1 : tensor<f32>, tensor<i32>
    }
    return %1#0 : tensor<f32>
  }
}
)";
        compareLines(io::printModule(m), expected);
    }

    void nestedRegionsContinueArgumentNumbers()
    {
        Module m;
        Type v = t({8}, "f32"), s = t({}, "f32");
        Op* f = addFunc(m, "f", {v, s}, {t({}, "f32")});
        Block& b = f->region(0).front();
        Op* r = addOp(b, "stablehlo.reduce", {b.arg(0), b.arg(1)}, {s});
        DenseArrayAttr dims{"i64", {0}, {}};
        r->setProp("dimensions", makeAttr(dims));
        Block& body = r->addRegion()->front();
        Value* x = body.addArgument(s);
        Value* y = body.addArgument(s);
        Op* sub = addOp(body, "stablehlo.subtract", {x, y}, {s});
        addOp(body, "stablehlo.return", {sub->result(0)}, {});
        addOp(b, "func.return", {r->result(0)}, {});
        // Not commutative: the full `reducer` form, block args continue at %arg2.
        const std::string expected = R"(module {
  func.func @f(%arg0: tensor<8xf32>, %arg1: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
     reducer(%arg2: tensor<f32>, %arg3: tensor<f32>)  {
      %1 = stablehlo.subtract %arg2, %arg3 : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }
    return %0 : tensor<f32>
  }
}
)";
        compareLines(io::printModule(m), expected);
    }

    void genericFormOfUnknownOpsAndRegions()
    {
        Module m;
        Type i32 = Type::scalar("i32");
        Op* f = addFunc(m, "g", {}, {});
        Block& b = f->region(0).front();
        Op* x = addOp(b, "x.multi", {}, {i32, i32});
        x->setProp("p", makeAttr(IntegerAttr{3, Type::scalar("i32")}));
        x->setDiscardable("z.b", makeAttr(UnitAttr{}));
        x->setDiscardable("a-b", makeAttr(StringAttr{"q\"\\"}));
        Block& rb = x->addRegion()->front();
        Value* a0 = rb.addArgument(i32);
        addOp(rb, "x.yield", {a0}, {});
        x->addRegion();
        addOp(b, "x.use", {x->result(1)}, {});
        addOp(b, "func.return", {}, {});
        const std::string expected = R"(module {
  func.func @g() {
    %0:2 = "x.multi"() <{p = 3 : i32}> ({
    ^bb0(%arg0: i32):
      "x.yield"(%arg0) : (i32) -> ()
    }, {
    }) {"a-b" = "q\22\\", z.b} : () -> (i32, i32)
    "x.use"(%0#1) : (i32) -> ()
    return
  }
}
)";
        compareLines(io::printModule(m), expected);

        io::PrintOptions generic;
        generic.genericForm = true;
        std::string g = io::printModule(m, generic);
        QVERIFY(
            g.rfind("\"builtin.module\"() ({\n  \"func.func\"() <{function_type = () -> (), sym_name = \"g\"}> ({\n",
                    0) == 0);
        QVERIFY(g.find("    \"func.return\"() : () -> ()\n") != std::string::npos);
    }

    void attributesAndFloats()
    {
        using io::printAttribute;
        auto f32 = Type::scalar("f32");
        QCOMPARE(printAttribute(Attribute(FloatAttr{1.0, f32})), std::string("1.000000e+00 : f32"));
        QCOMPARE(printAttribute(Attribute(FloatAttr{0.5, Type::scalar("f64")})), std::string("5.000000e-01 : f64"));
        QCOMPARE(printAttribute(Attribute(FloatAttr{-0.0, f32})), std::string("-0.000000e+00 : f32"));
        QCOMPARE(printAttribute(Attribute(FloatAttr{static_cast<double>(3.14159274f), f32})),
                 std::string("3.14159274 : f32"));
        // 7 significant digits do not survive APFloat's 6-digit exponent form.
        QCOMPARE(printAttribute(Attribute(FloatAttr{static_cast<double>(1.234567f), f32})),
                 std::string("1.23456705 : f32"));
        QCOMPARE(printAttribute(Attribute(FloatAttr{static_cast<double>(1234567.5f), f32})),
                 std::string("1234567.5 : f32"));
        QCOMPARE(printAttribute(Attribute(FloatAttr{16777217.0, Type::scalar("f64")})),
                 std::string("0x4170000010000000 : f64"));
        QCOMPARE(printAttribute(Attribute(FloatAttr{static_cast<double>(std::nanf("")), f32})),
                 std::string("0x7FC00000 : f32"));
        QCOMPARE(printAttribute(Attribute(FloatAttr{static_cast<double>(1e20f), f32})).substr(0, 12),
                 std::string("1.000000e+20"));
        QCOMPARE(printAttribute(Attribute(FloatAttr{0.0999755859375, Type::scalar("f16")})),
                 std::string("9.997550e-02 : f16"));
        QCOMPARE(printAttribute(Attribute(FloatAttr{1.5, Type::scalar("bf16")})), std::string("1.500000e+00 : bf16"));

        QCOMPARE(printAttribute(Attribute(IntegerAttr{2, Type::scalar("i64")})), std::string("2 : i64"));
        QCOMPARE(printAttribute(Attribute(IntegerAttr{-1, Type::scalar("ui8")})), std::string("255 : ui8"));
        QCOMPARE(printAttribute(Attribute(IntegerAttr{1, Type::scalar("i1")})), std::string("true"));
        QCOMPARE(printAttribute(Attribute(BoolAttr{false})), std::string("false"));
        ArrayAttr arr{{makeAttr(IntegerAttr{1, Type::scalar("i64")}), makeAttr(IntegerAttr{2, Type::scalar("i32")}),
                       makeAttr(FloatAttr{1.0, Type::scalar("f64")}), makeAttr(UnitAttr{})}};
        QCOMPARE(printAttribute(Attribute(arr)), std::string("[1, 2 : i32, 1.000000e+00, unit]"));
        QCOMPARE(printAttribute(Attribute(DenseArrayAttr{"i64", {1, 2}, {}})), std::string("array<i64: 1, 2>"));
        QCOMPARE(printAttribute(Attribute(DenseArrayAttr{"i64", {}, {}})), std::string("array<i64>"));
        QCOMPARE(printAttribute(Attribute(DenseArrayAttr{"f32", {}, {2.5}})), std::string("array<f32: 2.500000e+00>"));
        QCOMPARE(printAttribute(Attribute(StringAttr{"a\\b\"c\n"})), std::string("\"a\\\\b\\22c\\0A\""));
        QCOMPARE(printAttribute(Attribute(SymbolRefAttr{{"a", "b c"}})), std::string("@a::@\"b c\""));
        DictionaryAttr dict{{{"a.b", makeAttr(UnitAttr{})}, {"q-x", makeAttr(BoolAttr{true})}}};
        QCOMPARE(printAttribute(Attribute(dict)), std::string("{a.b, \"q-x\" = true}"));
        QCOMPARE(printAttribute(Attribute(DictionaryAttr{})), std::string("{}"));
        QCOMPARE(printAttribute(Attribute(TypeAttr{Type::function({}, {})})), std::string("() -> ()"));
    }

    void denseLiterals()
    {
        using io::printAttribute;
        auto dense = [](Type type, std::vector<uint8_t> data, bool splat = false) {
            DenseElementsAttr d;
            d.type = std::move(type);
            d.data = std::move(data);
            d.splat = splat;
            return Attribute(d);
        };
        QCOMPARE(printAttribute(dense(t({2, 2}, "i8"), {0, 1, 2, 3})),
                 std::string("dense<[[0, 1], [2, 3]]> : tensor<2x2xi8>"));
        QCOMPARE(printAttribute(dense(t({2}, "i8"), {5, 5})), std::string("dense<5> : tensor<2xi8>"));
        QCOMPARE(printAttribute(dense(t({1, 2}, "i1"), {1, 0})),
                 std::string("dense<[[true, false]]> : tensor<1x2xi1>"));
        QCOMPARE(printAttribute(dense(t({3}, "i1"), {1}, true)), std::string("dense<true> : tensor<3xi1>"));
        QCOMPARE(printAttribute(dense(t({0}, "f32"), {})), std::string("dense<> : tensor<0xf32>"));
        QCOMPARE(printAttribute(dense(t({2}, "i8"), {0xff, 1})), std::string("dense<[-1, 1]> : tensor<2xi8>"));
        QCOMPARE(printAttribute(dense(t({2}, "ui8"), {0xff, 1})), std::string("dense<[255, 1]> : tensor<2xui8>"));
        // Above 100 elements: raw little-endian hex (i1 bit-packed).
        std::vector<uint8_t> big;
        for (int i = 0; i < 101; ++i) {
            big.push_back(static_cast<uint8_t>(i));
            big.push_back(0);
        }
        std::string hex = "dense<\"0x";
        const char* digits = "0123456789ABCDEF";
        for (int i = 0; i < 101; ++i) {
            hex += digits[i >> 4];
            hex += digits[i & 15];
            hex += "00";
        }
        hex += "\"> : tensor<101xi16>";
        QCOMPARE(printAttribute(dense(t({101}, "i16"), big)), hex);
        std::vector<uint8_t> bools;
        for (int i = 0; i < 101; ++i)
            bools.push_back(i % 2 == 0);
        QCOMPARE(printAttribute(dense(t({101}, "i1"), bools)),
                 std::string("dense<\"0x55555555555555555555555515\"> : tensor<101xi1>"));
        float c[4] = {1, 2, 3, 4};
        std::vector<uint8_t> cd(16);
        std::memcpy(cd.data(), c, 16);
        QCOMPARE(
            printAttribute(dense(t({2}, "complex<f32>"), cd)),
            std::string("dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,4.000000e+00)]> : tensor<2xcomplex<f32>>"));
    }

    void types()
    {
        QCOMPARE(io::printType(t({8, 16}, "f32")), std::string("tensor<8x16xf32>"));
        QCOMPARE(io::printType(t({}, "f32")), std::string("tensor<f32>"));
        QCOMPARE(io::printType(t({Type::kDynamic, 4}, "f32")), std::string("tensor<?x4xf32>"));
        QCOMPARE(io::printType(Type::unrankedTensor("f32")), std::string("tensor<*xf32>"));
        QCOMPARE(io::printType(Type::token()), std::string("!stablehlo.token"));
        QCOMPARE(io::printType(Type::tuple({t({8}, "f32")})), std::string("tuple<tensor<8xf32>>"));
        QCOMPARE(io::printType(Type::function({t({}, "i32")}, {Type::scalar("f32"), Type::scalar("f32")})),
                 std::string("(tensor<i32>) -> (f32, f32)"));
        QCOMPARE(io::printType(Type::function({Type::scalar("i32")}, {Type::scalar("f32")})),
                 std::string("(i32) -> f32"));
    }

    void funcSignatures()
    {
        checkPrint(R"(module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @m = <["a"=2, "b"=2]>
  func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}]>}, %arg1: tensor<4xi32>) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a", ?}]>}, tensor<4xi32>) {
    %0:2 = call @g(%arg0, %arg1) : (tensor<8xf32>, tensor<4xi32>) -> (tensor<8xf32>, tensor<4xi32>)
    return %0#0, %0#1 : tensor<8xf32>, tensor<4xi32>
  }
  func.func private @g(%arg0: tensor<8xf32>, %arg1: tensor<4xi32>) -> (tensor<8xf32>, tensor<4xi32>) attributes {sdy.original_func_name = "g"} {
    return %arg0, %arg1 : tensor<8xf32>, tensor<4xi32>
  }
  func.func @h() {
    return
  }
  func.func private @decl(tensor<2xf32> {x.y}) -> tensor<2xf32>
}
)",
                   R"(module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @m = <["a"=2, "b"=2]>
  func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}]>}, %arg1: tensor<4xi32>) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a", ?}]>}, tensor<4xi32>) {
    %0:2 = call @g(%arg0, %arg1) : (tensor<8xf32>, tensor<4xi32>) -> (tensor<8xf32>, tensor<4xi32>)
    return %0#0, %0#1 : tensor<8xf32>, tensor<4xi32>
  }
  func.func private @g(%arg0: tensor<8xf32>, %arg1: tensor<4xi32>) -> (tensor<8xf32>, tensor<4xi32>) attributes {sdy.original_func_name = "g"} {
    return %arg0, %arg1 : tensor<8xf32>, tensor<4xi32>
  }
  func.func @h() {
    return
  }
  func.func private @decl(tensor<2xf32> {x.y}) -> tensor<2xf32>
}
)");
    }

    void inputNamesAndDictsAreNormalized()
    {
        // Input names are not kept; dictionaries are sorted; a missing module is added.
        checkPrint(R"(func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = stablehlo.abs %x {z.q = 1 : i64, sdy.sharding_origins = {a = "self"}, sdy.sharding = #sdy.sharding_per_value<[<@m, [{}]>]>} : tensor<8xf32>
  %b = "stablehlo.negate"(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return %b : tensor<8xf32>
}
)",
                   R"(module {
  func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.abs %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}]>]>, sdy.sharding_origins = {a = "self"}, z.q = 1 : i64} : tensor<8xf32>
    %1 = stablehlo.negate %0 : tensor<8xf32>
    return %1 : tensor<8xf32>
  }
}
)");
    }

    void sdyOps()
    {
        const std::string text = R"(module {
  sdy.mesh @m = <["a"=2, "b"=2]>
  sdy.mesh @perm = <["a"=2, "b"=2], device_ids=[3, 1, 2, 0]>
  sdy.mesh @dev = <[], device_ids=[5]>
  func.func @f(%arg0: tensor<8x8xf32>, %arg1: tensor<8x8xf32>) -> tensor<8x8xf32> {
    %0 = sdy.sharding_constraint %arg0 <@m, [{"a", ?}, {?}]> : tensor<8x8xf32>
    %1 = sdy.reshard %0 <@m, [{}, {"b"}]> {sdy.sharding_origin_name = "constraint_0"} : tensor<8x8xf32>
    %2 = sdy.propagation_barrier %1 allowed_direction=FORWARD : tensor<8x8xf32>
    sdy.sharding_group %2 group_id=0 : tensor<8x8xf32>
    %3 = sdy.all_gather [{}, {"b"}] %1 out_sharding=<@m, [{}, {}]> : tensor<8x8xf32>
    %4 = sdy.all_slice [{"a"}, {}] %3 out_sharding=<@m, [{"a"}, {}]> : tensor<8x8xf32>
    %5 = sdy.all_reduce {"b"} %4 out_sharding=<@m, [{"a"}, {}]> : tensor<8x8xf32>
    %6 = sdy.all_reduce max {"b"} %4 out_sharding=<@m, [{"a"}, {}]> : tensor<8x8xf32>
    %7 = sdy.reduce_scatter [{}, {"b"}] %6 out_sharding=<@m, [{"a"}, {"b"}]> : tensor<8x8xf32>
    %8 = sdy.all_to_all [{"a"}: 0->1] %7 out_sharding=<@m, [{}, {"b", "a"}]> : tensor<8x8xf32>
    %9 = sdy.collective_permute %8 out_sharding=<@m, [{}, {"a", "b"}]> : tensor<8x8xf32>
    %10 = sdy.replicated_to_unreduced {"a"} %arg1 out_sharding=<@m, [{}, {}], unreduced={"a"}> : tensor<8x8xf32>
    %11 = sdy.sharded_to_unreduced [{"a"}, {}] %4 out_sharding=<@m, [{}, {}], unreduced={"a"}> : tensor<8x8xf32>
    %12 = sdy.constant dense<0.000000e+00> : tensor<8x8xf32>
    %13 = sdy.constant {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>} dense<1.000000e+00> : tensor<8x8xf32>
    %14 = sdy.manual_computation(%9) in_shardings=[<@m, [{"a"}, {}]>] out_shardings=[<@m, [{"a"}, {}]>] manual_axes={"a"} (%arg2: tensor<4x8xf32>) {
      %17 = stablehlo.add %arg2, %arg2 : tensor<4x8xf32>
      sdy.return %17 : tensor<4x8xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %15 = sdy.named_computation<"foo">(%14) out_shardings=[<@m, [{}, {"b"}]>] (%arg2: tensor<8x8xf32>) {
      sdy.return %arg2 : tensor<8x8xf32>
    } {x.y} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %16 = sdy.data_flow_edge %15 sharding=<@m, [{"a", ?}, {?}p1]> : tensor<8x8xf32>
    sdy.manual_computation() in_shardings=[] out_shardings=[] manual_axes={"a", "b"} () {
      sdy.return
    } : () -> ()
    return %16 : tensor<8x8xf32>
  }
}
)";
        checkPrint(text, text);
    }

    void stablehloCustomForms()
    {
        const std::string text = R"(module {
  func.func @f(%arg0: tensor<8x16xf32>, %arg1: tensor<16x8xf32>, %arg2: tensor<i32>, %arg3: tensor<2x4x4xf32>) -> tensor<8x16xf32> {
    %c = stablehlo.constant dense<[[0, 1], [2, 3]]> : tensor<2x2xi32>
    %0 = stablehlo.iota dim = 0 : tensor<4xi32>
    %1 = stablehlo.convert %arg0 : (tensor<8x16xf32>) -> tensor<8x16xi32>
    %2 = stablehlo.reshape %arg0 : (tensor<8x16xf32>) -> tensor<2x4x16xf32>
    %3 = stablehlo.transpose %arg3, dims = [2, 1, 0] : (tensor<2x4x4xf32>) -> tensor<4x4x2xf32>
    %4 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<i32>) -> tensor<4x2xi32>
    %5 = stablehlo.slice %arg0 [0:8, 1:9:2] : (tensor<8x16xf32>) -> tensor<8x4xf32>
    %6 = stablehlo.dynamic_slice %arg0, %arg2, %arg2, sizes = [2, 4] : (tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
    %7 = stablehlo.dynamic_update_slice %arg0, %6, %arg2, %arg2 : (tensor<8x16xf32>, tensor<2x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x16xf32>
    %8 = stablehlo.concatenate %arg0, %arg0, dim = 1 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x32xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.pad %arg0, %cst, low = [1, 0], high = [1, 0], interior = [0, 0] : (tensor<8x16xf32>, tensor<f32>) -> tensor<10x16xf32>
    %10 = stablehlo.reverse %arg0, dims = [1] : tensor<8x16xf32>
    %11 = stablehlo.dot %arg0, %arg1 : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
    %12 = stablehlo.dot %arg0, %arg1, precision = [DEFAULT, HIGHEST] : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
    %13 = stablehlo.dot_general %arg3, %arg3, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %14 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
    %15 = stablehlo.custom_call @foo(%arg0) {has_side_effect = true} : (tensor<8x16xf32>) -> tensor<8x16xf32>
    stablehlo.custom_call @"odd name"(%arg0) {backend_config = ""} : (tensor<8x16xf32>) -> ()
    %16 = stablehlo.compare  LT, %arg2, %arg2 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %17 = stablehlo.compare  GT, %arg2, %arg2,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %18 = stablehlo.select %16, %arg2, %arg2 : tensor<i1>, tensor<i32>
    %19 = stablehlo.clamp %cst, %arg0, %cst : (tensor<f32>, tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
    %20 = stablehlo.cholesky %arg3, lower = true : tensor<2x4x4xf32>
    %21 = stablehlo.bitcast_convert %arg2 : (tensor<i32>) -> tensor<f32>
    %22:2 = stablehlo.optimization_barrier %arg0, %arg2 : tensor<8x16xf32>, tensor<i32>
    %23 = stablehlo.tuple %arg0, %arg2 : tuple<tensor<8x16xf32>, tensor<i32>>
    %24 = stablehlo.get_tuple_element %23[1] : (tuple<tensor<8x16xf32>, tensor<i32>>) -> tensor<i32>
    %25 = stablehlo.create_token : !stablehlo.token
    %26 = stablehlo.after_all %25, %25 : !stablehlo.token
    %27 = stablehlo.partition_id : tensor<ui32>
    %28 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<8x16xf32>
    %29 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %30 = stablehlo.add %19, %arg0 : tensor<8x16xf32>
    return %30 : tensor<8x16xf32>
  }
}
)";
        checkPrint(text, text);
    }

    void genericStablehloOps()
    {
        const std::string text = R"(module {
  func.func @f(%arg0: tensor<64xi32>, %arg1: tensor<i32>) -> tensor<64xi32> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
      %3 = stablehlo.compare  GT, %arg2, %arg3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    }) : (tensor<64xi32>) -> tensor<64xi32>
    %1:2 = "stablehlo.case"(%arg1) ({
      stablehlo.return %0, %0 : tensor<64xi32>, tensor<64xi32>
    }, {
      stablehlo.return %arg0, %arg0 : tensor<64xi32>, tensor<64xi32>
    }) : (tensor<i32>) -> (tensor<64xi32>, tensor<64xi32>)
    %output_state, %output = stablehlo.rng_bit_generator %arg0, algorithm =  DEFAULT : (tensor<64xi32>) -> (tensor<64xi32>, tensor<4xui32>)
    %2 = stablehlo.add %1#1, %output_state : tensor<64xi32>
    return %2 : tensor<64xi32>
  }
}
)";
        checkPrint(text, text);
    }
    void sdyAttributesInDictionaries()
    {
        const std::string text = R"(module {
  sdy.mesh @m = <["x"=2, "y"=4, "z"=2]>
  func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x", ?}, {}p1], replicated={"y"}, unreduced=min{"z"}>}, %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<mesh<["q"=2]>, [{"q"}, {?}]>}) -> tensor<8x8xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] {sdy.propagation_edges = #sdy.propagation_edges<[{step-0 = [{"x" = operand-0 -> [result-0]}]}, {step-2 = [{"y":(2)2 = result-0 -> [operand-0, operand-1]}]}]>, sdy.sharding = #sdy.sharding_per_value<[<@m, [{"y":(1)2}, {}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, k], [k, j])->([i, j]) {i=8, j=8, k=8} reduction={k}>} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %1 = stablehlo.custom_call @foo(%0) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=8, j=8}, custom>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %1 : tensor<8x8xf32>
  }
}
)";
        checkPrint(text, text);
    }

    void reduceReducerFormWithSeveralInputs()
    {
        const std::string text = R"(module {
  func.func @f(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0:2 = stablehlo.reduce(%arg0 init: %cst), (%arg1 init: %cst) across dimensions = [1] : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
     reducer(%arg2: tensor<f32>, %arg4: tensor<f32>) (%arg3: tensor<f32>, %arg5: tensor<f32>)  {
      %1 = stablehlo.add %arg2, %arg4 : tensor<f32>
      %2 = stablehlo.add %arg3, %arg5 : tensor<f32>
      stablehlo.return %1, %2 : tensor<f32>, tensor<f32>
    }
    return %0#1 : tensor<4xf32>
  }
}
)";
        checkPrint(text, text);
    }

    void debugInfoLocations()
    {
        auto m = parse(R"(module {
  func.func @f(%arg0: tensor<8xf32> loc("x.py":3:4)) -> tensor<8xf32> {
    %0 = stablehlo.abs %arg0 : tensor<8xf32> loc("foo"("a.py":1:2))
    %1 = stablehlo.negate %0 : tensor<8xf32> loc(callsite("g" at fused["a":1:1, unknown]))
    return %1 : tensor<8xf32> loc(unknown)
  } loc("m.py":7:1)
} loc(unknown)
)");
        QVERIFY(m);
        io::PrintOptions opts;
        opts.printDebugInfo = true;
        compareLines(io::printModule(*m, opts), R"(module {
  func.func @f(%arg0: tensor<8xf32> loc("x.py":3:4)) -> tensor<8xf32> {
    %0 = stablehlo.abs %arg0 : tensor<8xf32> loc("foo"("a.py":1:2))
    %1 = stablehlo.negate %0 : tensor<8xf32> loc(callsite("g" at fused["a":1:1, unknown]))
    return %1 : tensor<8xf32> loc(unknown)
  } loc("m.py":7:1)
} loc(unknown)
)");
        // Without the option no location is printed.
        QVERIFY(io::printModule(*m).find("loc(") == std::string::npos);
    }

    void multiBlockGenericRegion()
    {
        Module m;
        Type i32 = Type::scalar("i32");
        Op* f = addFunc(m, "f", {}, {});
        Block& b = f->region(0).front();
        Op* x = addOp(b, "x.loop", {}, {});
        Region* r = x->addRegion();
        Block* b0 = r->addBlock();
        Block* b1 = r->addBlock();
        Block* b2 = r->addBlock();
        Value* a = b1->addArgument(i32);
        Op* k = addOp(*b0, "x.const", {}, {i32});
        Op* br0 = addOp(*b0, "x.br", {k->result(0)}, {});
        br0->addSuccessor(b1);
        Op* br1 = addOp(*b1, "x.cond_br", {a}, {});
        br1->addSuccessor(b1);
        br1->addSuccessor(b2);
        addOp(*b2, "x.end", {}, {});
        addOp(b, "func.return", {}, {});
        compareLines(io::printModule(m), R"(module {
  func.func @f() {
    "x.loop"() ({
      %0 = "x.const"() : () -> i32
      "x.br"(%0)[^bb1] : (i32) -> ()
    ^bb1(%1: i32):  // 2 preds: ^bb0, ^bb1
      "x.cond_br"(%1)[^bb1, ^bb2] : (i32) -> ()
    ^bb2:  // pred: ^bb1
      "x.end"() : () -> ()
    }) : () -> ()
    return
  }
}
)");
    }
    void malformedPropsFallBackToGeneric()
    {
        Module m;
        Type v = t({2, 4}, "f32");
        Op* f = addFunc(m, "f", {v}, {});
        Block& b = f->region(0).front();
        Op* tr = addOp(b, "stablehlo.transpose", {b.arg(0)}, {t({4, 2}, "f32")});
        tr->setProp("permutation", makeAttr(StringAttr{"oops"}));
        addOp(b, "sdy.sharding_constraint", {b.arg(0)}, {v});
        Op* c = addOp(b, "stablehlo.constant", {}, {v});
        c->setProp("value", splatI32(1, t({}, "i32"))); // literal type differs from the result
        addOp(b, "func.return", {}, {});
        compareLines(io::printModule(m), R"(module {
  func.func @f(%arg0: tensor<2x4xf32>) {
    %0 = "stablehlo.transpose"(%arg0) <{permutation = "oops"}> : (tensor<2x4xf32>) -> tensor<4x2xf32>
    %1 = "sdy.sharding_constraint"(%arg0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %cst = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<2x4xf32>
    return
  }
}
)");
    }
};

QTEST_APPLESS_MAIN(TestMlirPrinter)
#include "tst_mlirprinter.moc"
