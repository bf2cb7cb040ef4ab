// Tests that the reader is exactly as strict as MLIR: unknown ops, block arguments, aliases, locations.
#include <QtTest/QtTest>

#include <functional>

#include <nlohmann/json.hpp>

#include "core/io/JsonDocument.h"
#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/ir/Module.h"
#include "core/ir/Verifier.h"
#include "tests/io/IoTestSupport.h"

using namespace shardx;
using namespace shardx::ir;

namespace {

using testing::firstOp;
using testing::parseOk;

/// The first diagnostic of parsing `text`, then (when it parsed) of verifying it.
Diagnostic firstError(const std::string& text, const io::ReadOptions& opts = {})
{
    DiagnosticList diags;
    auto m = io::parseMlir(text, "t.mlir", diags, opts);
    if (m)
        verifyModule(*m, diags);
    if (diags.all().empty())
        return Diagnostic{Severity::Note, {}, "<no error>", {}};
    return diags.all().front();
}

const LocationAttr* locOf(const AttrPtr& a) { return a ? a->as<LocationAttr>() : nullptr; }

const char* const kFn = "func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n";

} // namespace

class TestMlirStrictness : public QObject {
    Q_OBJECT
private slots:
    void rejected_data();
    void rejected();
    void unknownGenericOpFailsVerification();
    void chloTakesAnyOp();
    void blockArgumentLocations();
    void locationRanges();
    void locationRangesInJson();
    void aliases();
};

void TestMlirStrictness::rejected_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("allowUnregistered");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("col");
    QTest::addColumn<QString>("phrase");
    auto row = [&](const char* name, const std::string& text, int line, int col, const char* phrase,
                   bool allow = false) {
        QTest::newRow(name) << QString::fromStdString(text) << allow << line << col << QString(phrase);
    };
    const std::string f = kFn;
    const std::string end = "  return %arg0 : tensor<8xf32>\n}\n";
    // Custom form of an op its (registered) dialect does not define: a parse error at the name.
    row("unknown stablehlo custom op", f + "  %0 = stablehlo.foo %arg0 : tensor<8xf32>\n" + end, 2, 8,
        "custom op 'stablehlo.foo' is unknown");
    row("unknown sdy custom op", f + "  %0 = sdy.foo %arg0 : tensor<8xf32>\n" + end, 2, 8,
        "custom op 'sdy.foo' is unknown");
    row("unknown func custom op", f + "  func.foo\n" + end, 2, 3, "custom op 'func.foo' is unknown");
    row("unknown even when unregistered allowed", f + "  %0 = stablehlo.foo %arg0 : tensor<8xf32>\n" + end, 2, 8,
        "custom op 'stablehlo.foo' is unknown", true);
    // Generic form of such an op: MLIR parses it and its verifier rejects it at the op.
    row("unknown stablehlo generic op",
        f + "  %0 = \"stablehlo.foo\"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n" + end, 2, 3,
        "unregistered operation 'stablehlo.foo' found in dialect ('stablehlo')");
    row("unknown generic op, unregistered allowed",
        f + "  %0 = \"stablehlo.foo\"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n" + end, 2, 3,
        "does not allow unknown operations", true);
    row("unknown sdy generic op", f + "  \"sdy.foo\"() : () -> ()\n" + end, 2, 3,
        "unregistered operation 'sdy.foo' found in dialect ('sdy')");
    row("unknown builtin generic op", "\"builtin.foo\"() : () -> ()\n", 1, 1, "unregistered operation 'builtin.foo'");
    // A name without a dialect prefix resolves in the default dialect of the enclosing op only.
    row("bare func at top level", "func @f() {\n  return\n}\n", 1, 1, "custom op 'func' is unknown");
    row("bare return at top level", "return\n", 1, 1, "custom op 'return' is unknown");
    row("bare module in a function", "func.func @f() {\n  module {\n  }\n  return\n}\n", 2, 3,
        "custom op 'module' is unknown (tried 'func.module' as well)");
    row("bare return in a manual computation",
        "sdy.mesh @m = <[\"a\"=2]>\n" + f +
            "  %0 = sdy.manual_computation(%arg0) in_shardings=[<@m, [{\"a\"}]>] out_shardings=[<@m, [{\"a\"}]>] "
            "manual_axes={\"a\"} (%a: tensor<4xf32>) {\n    return %a : tensor<4xf32>\n"
            "  } : (tensor<8xf32>) -> tensor<8xf32>\n" +
            end,
        4, 5, "custom op 'return' is unknown");
    row("empty function body", "func.func @f() {\n}\n", 1, 16, "expected non-empty function body");
    // Block and region arguments take `loc(...)` but no attribute dictionary (functions only).
    row("block arg attributes",
        f +
            "  %0 = \"stablehlo.sort\"(%arg0) ({\n  ^bb0(%a: tensor<f32> {x = 1}, %b: tensor<f32>):\n"
            "    %1 = stablehlo.compare  GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
            "    stablehlo.return %1 : tensor<i1>\n  }) : (tensor<8xf32>) -> tensor<8xf32>\n" +
            end,
        3, 24, "in argument list");
    row("manual computation arg attributes",
        "sdy.mesh @m = <[\"a\"=2]>\n" + f +
            "  %0 = sdy.manual_computation(%arg0) in_shardings=[<@m, [{\"a\"}]>] out_shardings=[<@m, [{\"a\"}]>] "
            "manual_axes={\"a\"} (%a: tensor<4xf32> {x = 1}) {\n    sdy.return %a : tensor<4xf32>\n"
            "  } : (tensor<8xf32>) -> tensor<8xf32>\n" +
            end,
        3, 134, "in argument list");
    row("named computation arg attributes",
        f +
            "  %0 = sdy.named_computation<\"g\">(%arg0) (%a: tensor<8xf32> {x = 1}) {\n"
            "    sdy.return %a : tensor<8xf32>\n  } : (tensor<8xf32>) -> tensor<8xf32>\n" +
            end,
        2, 61, "in argument list");
    // Location ranges.
    row("range without end", f + "  return %arg0 : tensor<8xf32> loc(\"a\":1:2 to)\n}\n", 2, 46,
        "after 'to' in a location range");
    row("range end line without column", f + "  return %arg0 : tensor<8xf32> loc(\"a\":1:2 to 3)\n}\n", 2, 48,
        "expected ':'");
    row("negative location line", f + "  return %arg0 : tensor<8xf32> loc(\"a\":-1:2)\n}\n", 2, 40,
        "expected integer line number");
    row("location column too large", f + "  return %arg0 : tensor<8xf32> loc(\"a\":1:4294967296)\n}\n", 2, 42,
        "expected integer column number");
    row("empty attribute name", "func.func @f() attributes {\"\" = 1} {\n  return\n}\n", 1, 28,
        "expected valid attribute name");
    // Attributes and types of dialects that are not loaded.
    row("unregistered dialect attribute", "func.func @f() attributes {x = #foo.bar<1>} {\n  return\n}\n", 1, 32,
        "unregistered dialect 'foo'");
    row("unregistered dialect type", "func.func @f(%arg0: tensor<2x!foo.t>) {\n  return\n}\n", 1, 30,
        "unregistered dialect 'foo'");
    // Aliases: defined once, no '.', used only after the definition (locations excepted).
    row("attribute alias used before its definition",
        "func.func @f() attributes {x = #a} {\n  return\n}\n#a = 1 : i32\n", 1, 32, "undefined symbol alias id");
    row("type alias used before its definition", "func.func @f(%arg0: !t) {\n  return\n}\n!t = tensor<8xf32>\n", 1, 21,
        "undefined symbol alias id");
    row("attribute alias redefined", "#a = 1 : i32\n#a = 2 : i32\n", 2, 1, "redefinition of attribute alias id 'a'");
    row("type alias redefined", "!t = i32\n!t = f32\n", 2, 1, "redefinition of type alias id 't'");
    row("attribute alias with a dot", "#a.b = 1 : i32\n", 1, 1, "reserved for dialect-defined names");
    row("attribute alias used in its own definition", "#a = [#a]\n", 1, 7, "undefined symbol alias id");
    row("location alias never defined", f + "  return %arg0 : tensor<8xf32> loc(#nope)\n}\n", 2, 36,
        "undefined symbol alias id");
    row("location alias not a location", "#a = 1 : i32\n" + f + "  return %arg0 : tensor<8xf32> loc(#a)\n}\n", 3, 36,
        "is not a location");
    row("dialect attribute as location", f + "  return %arg0 : tensor<8xf32> loc(#sdy.x)\n}\n", 2, 36,
        "expected location, but found dialect attribute");
}

void TestMlirStrictness::rejected()
{
    QFETCH(QString, text);
    QFETCH(bool, allowUnregistered);
    QFETCH(int, line);
    QFETCH(int, col);
    QFETCH(QString, phrase);
    io::ReadOptions opts;
    opts.allowUnregisteredDialects = allowUnregistered;
    Diagnostic d = firstError(text.toStdString(), opts);
    QVERIFY2(d.severity == Severity::Error, "expected an error");
    QVERIFY2(d.message.find(phrase.toStdString()) != std::string::npos, d.format().c_str());
    QVERIFY2(d.pos.line == line && d.pos.col == col, d.format().c_str());
}

void TestMlirStrictness::unknownGenericOpFailsVerification()
{
    // It parses (like MLIR, whose verifier reports it), so a later syntax error wins.
    const std::string text =
        std::string(kFn) +
        "  %0 = \"stablehlo.foo\"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n  return %0 : tensor<8xf32>\n}\n";
    auto m = parseOk(text);
    QVERIFY(m);
    QVERIFY(firstOp(*m, "stablehlo.foo"));
    Diagnostic d = firstError(text + "func.func @g( {\n}\n");
    QCOMPARE(d.pos.line, 5);
    // Registered ops in generic form still verify and print in their custom form.
    auto ok = parseOk(std::string(kFn) +
                      "  %0 = \"stablehlo.add\"(%arg0, %arg0) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>\n"
                      "  \"func.return\"(%0) : (tensor<8xf32>) -> ()\n}\n");
    QVERIFY(ok);
    DiagnosticList diags;
    QVERIFY(verifyModule(*ok, diags));
    std::string out = io::printModule(*ok);
    QVERIFY2(out.find("%0 = stablehlo.add %arg0, %arg0 : tensor<8xf32>") != std::string::npos, out.c_str());
    QVERIFY2(out.find("    return %0 : tensor<8xf32>") != std::string::npos, out.c_str());
}

void TestMlirStrictness::chloTakesAnyOp()
{
    // chlo's op set is not modelled: its ops are kept in the element-wise form.
    auto m = parseOk(std::string(kFn) +
                     "  %0 = chlo.erf %arg0 : tensor<8xf32> -> tensor<8xf32>\n  return %0 : tensor<8xf32>\n}\n");
    QVERIFY(m);
    QVERIFY(firstOp(*m, "chlo.erf"));
    DiagnosticList diags;
    QVERIFY(verifyModule(*m, diags));
}

void TestMlirStrictness::blockArgumentLocations()
{
    const std::string text =
        "sdy.mesh @m = <[\"a\"=2]>\n"
        "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{\"a\"}]>} loc(\"p\")) -> tensor<8xf32> "
        "{\n"
        "  %0 = sdy.manual_computation(%arg0) in_shardings=[<@m, [{\"a\"}]>] out_shardings=[<@m, [{\"a\"}]>] "
        "manual_axes={\"a\"} (%a: tensor<4xf32> loc(\"q\":3:4 to :9)) {\n"
        "    sdy.return %a : tensor<4xf32>\n"
        "  } : (tensor<8xf32>) -> tensor<8xf32>\n"
        "  %1 = stablehlo.reduce(%0 init: %0) across dimensions = [] : (tensor<8xf32>, tensor<8xf32>) -> "
        "tensor<8xf32>\n"
        "   reducer(%x: tensor<8xf32> loc(\"x\"), %y: tensor<8xf32>)  {\n"
        "    %2 = stablehlo.add %x, %y : tensor<8xf32>\n"
        "    stablehlo.return %2 : tensor<8xf32>\n"
        "  }\n"
        "  return %1 : tensor<8xf32>\n}\n";
    auto m = parseOk(text);
    QVERIFY(m);
    Op* mc = firstOp(*m, "sdy.manual_computation");
    const LocationAttr* l = locOf(mc->region(0).front().arg(0)->loc());
    QVERIFY(l);
    QCOMPARE(l->text, std::string("q"));
    QCOMPARE(l->rangeEndCol(), int64_t(9));
    Op* red = firstOp(*m, "stablehlo.reduce");
    QVERIFY(locOf(red->region(0).front().arg(0)->loc()));
    QCOMPARE(locOf(red->region(0).front().arg(0)->loc())->text, std::string("x"));
    io::PrintOptions po;
    po.printDebugInfo = true;
    std::string out = io::printModule(*m, po);
    QVERIFY2(out.find("(%arg1: tensor<4xf32> loc(\"q\":3:4 to :9))") != std::string::npos, out.c_str());
    QVERIFY2(out.find("{sdy.sharding = #sdy.sharding<@m, [{\"a\"}]>} loc(\"p\")") != std::string::npos, out.c_str());
    // Without debug info nothing of it shows.
    QVERIFY(io::printModule(*m).find("loc(") == std::string::npos);
}

void TestMlirStrictness::locationRanges()
{
    struct Case {
        const char* written;
        const char* printed;
        int64_t endLine, endCol;
    };
    const Case cases[] = {
        {"\"f\":1:2", "\"f\":1:2", 1, 2},
        {"\"f\":7", "\"f\":7:0", 7, 0},
        {"\"f\":1:2 to :7", "\"f\":1:2 to :7", 1, 7},
        {"\"f\":1:2 to 3:4", "\"f\":1:2 to 3:4", 3, 4},
        {"\"f\":1:2 to 1:2", "\"f\":1:2", 1, 2},
        {"\"f\":1:2 to 1:5", "\"f\":1:2 to :5", 1, 5},
        {"\"n\"(\"f\":1:2 to 2:1)", "\"n\"(\"f\":1:2 to 2:1)", -1, -1},
        {"fused[\"f\":1:2 to :3, \"g\":4:5]", "fused[\"f\":1:2 to :3, \"g\":4:5]", -1, -1},
    };
    for (const Case& c : cases) {
        const std::string text = std::string(kFn) + "  return %arg0 : tensor<8xf32> loc(" + c.written + ")\n}\n";
        auto m = parseOk(text);
        QVERIFY2(m, c.written);
        Op* ret = firstOp(*m, "func.return");
        const LocationAttr* l = locOf(ret->loc);
        QVERIFY(l);
        if (c.endLine >= 0) {
            QCOMPARE(l->rangeEndLine(), c.endLine);
            QCOMPARE(l->rangeEndCol(), c.endCol);
        }
        io::PrintOptions po;
        po.printDebugInfo = true;
        std::string out = io::printModule(*m, po);
        std::string want = std::string("return %arg0 : tensor<8xf32> loc(") + c.printed + ")";
        QVERIFY2(out.find(want) != std::string::npos, (want + "\n" + out).c_str());
    }
    // A range equal to its start is the plain location; ranges with different ends differ.
    auto a = parseOk(std::string(kFn) + "  return %arg0 : tensor<8xf32> loc(\"f\":1:2 to 1:2)\n}\n");
    auto b = parseOk(std::string(kFn) + "  return %arg0 : tensor<8xf32> loc(\"f\":1:2)\n}\n");
    auto c = parseOk(std::string(kFn) + "  return %arg0 : tensor<8xf32> loc(\"f\":1:2 to :3)\n}\n");
    QVERIFY(attrEquals(firstOp(*a, "func.return")->loc, firstOp(*b, "func.return")->loc));
    QVERIFY(!attrEquals(firstOp(*a, "func.return")->loc, firstOp(*c, "func.return")->loc));
}

void TestMlirStrictness::locationRangesInJson()
{
    auto m = parseOk(std::string(kFn) + "  %0 = stablehlo.abs %arg0 : tensor<8xf32> loc(\"f\":1:2 to 3:4)\n"
                                        "  return %0 : tensor<8xf32> loc(\"f\":5:6)\n}\n");
    QVERIFY(m);
    nlohmann::json doc = io::moduleToJson(*m);
    std::string text = doc.dump();
    QVERIFY2(text.find("\"end_col\":4") != std::string::npos, text.c_str());
    QVERIFY2(text.find("\"end_line\":3") != std::string::npos, text.c_str());
    DiagnosticList diags;
    auto back = io::moduleFromJson(doc, "t.json", diags);
    QVERIFY2(back, diags.formatAll().c_str());
    const LocationAttr* l = locOf(firstOp(*back, "stablehlo.abs")->loc);
    QVERIFY(l);
    QCOMPARE(l->rangeEndLine(), int64_t(3));
    QCOMPARE(l->rangeEndCol(), int64_t(4));
    const LocationAttr* r = locOf(firstOp(*back, "func.return")->loc);
    QVERIFY(r);
    QVERIFY(!r->hasRangeEnd);
    QVERIFY(attrEquals(firstOp(*back, "stablehlo.abs")->loc, firstOp(*m, "stablehlo.abs")->loc));

    // Lines and columns are unsigned 32-bit numbers, in JSON as in MLIR's text.
    for (const char* field : {"line", "end_col"}) {
        for (int64_t bad : {int64_t(-1), int64_t(1) << 32}) {
            nlohmann::json broken = doc;
            bool changed = false;
            std::function<void(nlohmann::json&)> visit = [&](nlohmann::json& j) {
                if (changed)
                    return;
                if (j.is_object() && j.value("kind", "") == "file" && j.contains(field)) {
                    j[field] = bad;
                    changed = true;
                    return;
                }
                if (j.is_structured())
                    for (auto& child : j)
                        visit(child);
            };
            visit(broken);
            QVERIFY(changed);
            DiagnosticList badDiags;
            QVERIFY(!io::moduleFromJson(broken, "t.json", badDiags));
            QVERIFY2(badDiags.formatAll().find("line or column number") != std::string::npos,
                     badDiags.formatAll().c_str());
        }
    }
}

void TestMlirStrictness::aliases()
{
    // Attribute and type aliases defined before use; location aliases anywhere in the file.
    auto m = parseOk("#sh = #sdy.sharding<@m, [{\"a\"}]>\n"
                     "!t = tensor<8xf32>\n"
                     "sdy.mesh @m = <[\"a\"=2]>\n"
                     "func.func @f(%arg0: !t {sdy.sharding = #sh}) -> !t {\n"
                     "  return %arg0 : !t loc(#loc1)\n"
                     "} loc(#loc)\n"
                     "#loc = loc(\"f.py\":1:1 to :9)\n"
                     "#loc1 = loc(\"r\"(#loc))\n");
    QVERIFY(m);
    Op* ret = firstOp(*m, "func.return");
    const LocationAttr* l = locOf(ret->loc);
    QVERIFY(l);
    QCOMPARE(l->kind, LocationAttr::Kind::Name);
    QCOMPARE(l->children.at(0)->rangeEndCol(), int64_t(9));
    QCOMPARE(ret->operand(0)->type().toString(), std::string("tensor<8xf32>"));
    // Unregistered dialects' attributes and types are kept when allowed; quant is loaded.
    io::ReadOptions allow;
    allow.allowUnregisteredDialects = true;
    QVERIFY(parseOk("func.func @f(%arg0: tensor<2x!foo.t>) attributes {x = #foo.bar<1>} {\n  return\n}\n", allow));
    QVERIFY(parseOk("func.func @f(%arg0: tensor<2x!quant.uniform<i8:f32, 1.0>>) {\n  return\n}\n"));
}

QTEST_APPLESS_MAIN(TestMlirStrictness)
#include "tst_mlirstrictness.moc"
