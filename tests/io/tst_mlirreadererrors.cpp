// Tests of the MLIR text reader on bad input: each syntax error at its line and column with what was expected, and
// no crash or hang on random bytes, token soup, truncations, deep nesting or huge literals.
#include <QtTest/QtTest>

#include <random>

#include "core/io/JsonDocument.h"
#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/ir/Attribute.h"
#include "core/ir/Verifier.h"
#include "core/rules/RuleRegistry.h"
#include "tests/io/IoTestSupport.h"

using namespace shardx;

namespace {

using testing::parseFail;
using testing::parseOk;

} // namespace

class TestMlirReaderErrors : public QObject {
    Q_OBJECT
private slots:
    void malformed_data();
    void malformed();
    void robustness();
    void textEncoding_data();
    void textEncoding();
    void bytesAndNames();
    void limits();
    void hugeTensors();
};

void TestMlirReaderErrors::malformed_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("col");
    QTest::addColumn<QString>("phrase");
    const char* fn = "func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n";
    auto row = [&](const char* name, std::string text, int line, int col, const char* phrase) {
        QTest::newRow(name) << QString::fromStdString(text) << line << col << QString(phrase);
    };
    std::string f = fn;
    row("tensor shape", f + "  %0 = stablehlo.abs %arg0 : tensor<8x16>\n}", 2, 41, "expected 'x'");
    row("tensor end", f + "  %0 = stablehlo.abs %arg0 : tensor<8xf32\n}", 3, 1, "expected '>'");
    row("unknown type", f + "  %0 = stablehlo.abs %arg0 : tensor<8xfoo>\n}", 2, 39, "expected type");
    row("undefined value", f + "  %0 = stablehlo.abs %nope : tensor<8xf32>\n  return %0 : tensor<8xf32>\n}", 2, 22,
        "undeclared SSA value name '%nope'");
    row("redefinition", f + "  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n}",
        3, 3, "redefinition of SSA value '%0'");
    row("result count", f + "  %0:2 = stablehlo.abs %arg0 : tensor<8xf32>\n}", 2, 3,
        "defines 1 results but was provided 2");
    row("unknown custom op", f + "  %0 = stablehlo2.abs %arg0 : tensor<8xf32>\n}", 2, 8,
        "custom op 'stablehlo2.abs' is unknown");
    // Fuzz finding (fuzz_mlir): array<i26: ...> was read, but MLIR's dense arrays take only these
    // element types (and a JSON document of the module did not read back).
    row("dense array element type", "func.func @f() attributes {k = array<i26: 1, 2>} {\n  return\n}\n", 1, 38,
        "element type is one of i1, i8, i16, i32, i64, f32, f64, not 'i26'");
    row("unregistered generic", f + "  %0 = \"foo.bar\"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n}", 2, 3,
        "unregistered operation 'foo.bar'");
    // Fuzz finding (fuzz_mlir): the reduce body of `applies stablehi32lo.add` was made without the
    // check the generic form has, so the printed module did not read back.
    row("unregistered reduce body",
        "func.func @f(%a: tensor<4x8xf32>, %z: tensor<f32>) -> tensor<4xf32> {\n"
        "  %0 = stablehlo.reduce(%a init: %z) applies stablehi32lo.add across dimensions = [1] : "
        "(tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>\n}",
        2, 46, "unregistered operation 'stablehi32lo.add'");
    row("missing colon", f + "  %0 = stablehlo.abs %arg0 tensor<8xf32>\n}", 2, 28, "expected ':'");
    row("unterminated region", f + "  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n", 3, 1, "expected '}'");
    row("unterminated string", "sdy.mesh @m = <[\"a=2]>\n", 1, 17, "terminate string");
    row("bad character", "sdy.mesh @m = <[\"a\"=2]> `\n", 1, 25, "unexpected character");
    row("mesh axis size", "sdy.mesh @m = <[\"a\"=2, \"b\"=0]>\n", 1, 1, "");
    row("mesh device ids", "\n\nsdy.mesh @m = <[\"a\"=2], device_ids=[1, 1]>\n", 3, 1, "");
    row("mesh duplicate axis", "sdy.mesh @m = <[\"a\"=2, \"a\"=4]>\n", 1, 1, "");
    row("mesh missing bracket", "sdy.mesh @m = <\"a\"=2>\n", 1, 16, "expected '['");
    row("mesh device_ids keyword", "sdy.mesh @m = <[\"a\"=2], ids=[0, 1]>\n", 1, 25, "expected 'device_ids'");
    std::string sh =
        "sdy.mesh @m = <[\"a\"=2, \"b\"=4]>\nfunc.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, ";
    row("priority phigh", sh + "[{\"a\"}phigh, {}]>}) {\n  return\n}", 2, 77,
        "expecting priority in format 'p<number>', got: phigh");
    row("priority leading zero", sh + "[{\"a\"}p01, {}]>}) {\n  return\n}", 2, 77, "leading zeros");
    row("priority overflow", sh + "[{\"a\"}p9999999999999999999, {}]>}) {\n  return\n}", 2, 77,
        "expecting integer priority");
    row("trailing comma", sh + "[{}, {}],>}) {\n  return\n}", 2, 80, "expected valid named axis list after comma");
    row("unknown clause", sh + "[{}, {}], replicate={\"a\"}>}) {\n  return\n}", 2, 81,
        "expected valid named axis list after comma");
    row("repeated clause", sh + "[{}, {}], replicated={\"a\"}, replicated={\"b\"}>}) {\n  return\n}", 2, 99,
        "expected valid named axis list after comma");
    row("replicated without =", sh + "[{}, {}], replicated{\"a\"}>}) {\n  return\n}", 2, 91, "expected '='");
    row("unreduced with [", sh + "[{}, {}], unreduced=[\"a\"]>}) {\n  return\n}", 2, 91, "expected '{'");
    row("axis not a string", sh + "[{}, {}], replicated={\"a\", b}>}) {\n  return\n}", 2, 98, "expected string");
    row("missing brace in unreduced", sh + "[{}, {}], unreduced={\"a\", \"b\"[]}>}) {\n  return\n}", 2, 100,
        "expected '}'");
    row("open not last", sh + "[{?, \"a\"}, {}]>}) {\n  return\n}", 2, 74, "expected '}'");
    row("bad mesh ref", sh.substr(0, sh.size() - 4) + "m, [{}, {}]>}) {\n  return\n}", 2, 67, "expected mesh symbol");
    std::string rule = "func.func @f(%arg0: tensor<2x4xf32>) -> tensor<8xf32> {\n  %0 = stablehlo.reshape %arg0 "
                       "{sdy.sharding_rule = #sdy.op_sharding_rule<";
    std::string rend = "} : (tensor<2x4xf32>) -> tensor<8xf32>\n  return %0 : tensor<8xf32>\n}";
    row("rule space between factors", rule + "([i, j])->([i j]) {i=2, j=4}>" + rend, 2, 89, "expected ']'");
    row("rule factors reversed", rule + "([i, j])->([ij]) {j=4, i=2}>" + rend, 2, 93,
        "Expecting factor index symbol 'i', received: 'j'");
    row("rule z_", rule + "([z_, j])->([i]) {z_=2, j=4}>" + rend, 2, 77, "expecting integer after 'z_'");
    row("rule z_0", rule + "([z_0z_, j])->([i]) {z_0=2, j=4}>" + rend, 2, 77, "without leading zeros");
    row("rule bad letter", rule + "([a])->([a]) {i=2}>" + rend, 2, 77, "expecting symbol from 'i' to 'z'");
    row("rule no operands", rule + "()->([i]) {i=2}>" + rend, 2, 76, "expected '['");
    row("rule reduction colon", rule + "([i, j])->([i]) {i=2, j=4} reduction: {j}>" + rend, 2, 111, "expected '='");
    row("rule list order", rule + "([i, j])->([i]) {i=2, j=4} need_replication={i} reduction={j}>" + rend, 2, 123,
        "expected '>'");
    row("rule custom keyword", rule + "([i, j])->([i]) {i=2, j=4}, custom_rule>" + rend, 2, 103, "expected 'custom'");
    row("barrier BOTH", f + "  %0 = sdy.propagation_barrier %arg0 allowed_direction=BOTH : tensor<8xf32>\n}", 2, 56,
        "cannot specify `BOTH` as the direction");
    row("bad comparison",
        f + "  %0 = stablehlo.compare  XX, %arg0, %arg0 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>\n}", 2, 3,
        "invalid comparison direction");
    row("integer overflow", "func.func @f() attributes {x = 99999999999999999999} {\n  return\n}", 1, 32,
        "out of range");
    row("i8 overflow", "func.func @f() attributes {x = 300 : i8} {\n  return\n}", 1, 32, "out of range");
    row("dense shape", f + "  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<3xf32>\n}", 2, 33,
        "does not match type");
    row("dense dynamic", "func.func @f() {\n  %0 = sdy.constant dense<1.0> : tensor<?xf32>\n  return\n}", 2, 34,
        "static shape");
    row("undefined alias", "func.func @f() attributes {x = #nope} {\n  return\n}", 1, 32,
        "undefined symbol alias id '#nope'");
    row("missing function type", f + "  %0 = \"stablehlo.abs\"(%arg0) : tensor<8xf32>\n}", 2, 33,
        "expected function type");
    row("operand count", f + "  %0 = stablehlo.add %arg0 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>\n}", 2, 3,
        "1 operands present, but expected 2");
    row("invalid result number", f + "  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n  return %0#3 : tensor<8xf32>\n}", 3,
        10, "invalid result number");
    row("type mismatch", f + "  %0 = stablehlo.abs %arg0 : tensor<4xf32>\n}", 2, 22, "expects different type");
    row("undefined block", f + "  \"stablehlo.foo\"()[^bb9] : () -> ()\n}", 2, 21, "undefined block '^bb9'");
    row("trailing garbage after module", "module {\n}\nfunc.func @f() {\n  return\n}", 3, 1, "expected end of file");
    row("bad location", f + "  return %arg0 : tensor<8xf32> loc(\"a\":x)\n}", 2, 40, "expected integer");
    row("bad func name", "func.func f() {\n}", 1, 11, "expected function name");
    row("block arg syntax",
        f + "  %0 = \"stablehlo.sort\"(%arg0) ({\n  ^bb0(%a tensor<f32>):\n  }) : (tensor<8xf32>) -> tensor<8xf32>\n}",
        3, 11, "expected ':'");
    row("manual axes",
        f + "  %0 = sdy.manual_computation(%arg0) in_shardings=[] out_shardings=[] manual_axes=[\"a\"] () {\n  } : () "
            "-> ()\n}",
        2, 83, "expected '{'");
}

void TestMlirReaderErrors::malformed()
{
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(int, col);
    QFETCH(QString, phrase);
    Diagnostic d = parseFail(text.toStdString());
    QVERIFY2(d.severity == Severity::Error, "expected a parse error");
    QVERIFY2(d.message.find(phrase.toStdString()) != std::string::npos, d.format().c_str());
    QVERIFY2(d.pos.line == line && d.pos.col == col, d.format().c_str());
    QCOMPARE(d.pos.file, std::string("t.mlir"));
}

void TestMlirReaderErrors::robustness()
{
    // Random bytes, random token soup.
    std::mt19937 rng(1234);
    for (int iter = 0; iter < 300; ++iter) {
        std::string s(static_cast<size_t>(rng() % 400), '\0');
        for (char& c : s)
            c = static_cast<char>(rng() % 256);
        DiagnosticList diags;
        io::parseMlir(s, "r.mlir", diags);
    }
    const char* pieces[] = {"%0",
                            "=",
                            "stablehlo.add",
                            "(",
                            ")",
                            "{",
                            "}",
                            "[",
                            "]",
                            "<",
                            ">",
                            ",",
                            ":",
                            "tensor<8xf32>",
                            "#sdy.sharding<@m, [{\"a\"}]>",
                            "func.func",
                            "@f",
                            "->",
                            "\"",
                            "dense<",
                            "loc(",
                            "^bb0",
                            "sdy.mesh",
                            "module",
                            "#loc1",
                            "0x",
                            "-",
                            "?",
                            "sdy.manual_computation"};
    for (int iter = 0; iter < 500; ++iter) {
        std::string s;
        int n = static_cast<int>(rng() % 60);
        for (int k = 0; k < n; ++k)
            s += std::string(pieces[rng() % (sizeof(pieces) / sizeof(pieces[0]))]) + (rng() % 2 ? " " : "");
        DiagnosticList diags;
        io::parseMlir(s, "r.mlir", diags);
    }
    // Truncations of a real unit at every 37th byte.
    const std::string unit =
        "#loc1 = loc(\"f.py\":1:2)\nsdy.mesh @m = <[\"a\"=2, \"b\"=2]>\n"
        "func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{\"a\"}, {}]>}) -> tensor<8x8xf32> {\n"
        "  %c = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>\n"
        "  %0 = sdy.manual_computation(%arg0) in_shardings=[<@m, [{\"a\"}, {}]>] out_shardings=[<@m, [{\"a\"}, {}]>] "
        "manual_axes={\"a\"} (%arg1: tensor<4x8xf32>) {\n"
        "    %1 = stablehlo.reduce(%arg1 init: %arg1) applies stablehlo.add across dimensions = [1] : "
        "(tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4xf32>\n"
        "    sdy.return %arg1 : tensor<4x8xf32>\n"
        "  } : (tensor<8x8xf32>) -> tensor<8x8xf32> loc(#loc1)\n"
        "  %2 = \"stablehlo.sort\"(%0) <{dimension = 0 : i64}> ({\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
        "    %3 = stablehlo.compare  GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    stablehlo.return %3 : tensor<i1>\n  }) : (tensor<8x8xf32>) -> tensor<8x8xf32>\n"
        "  return %2 : tensor<8x8xf32>\n}\n";
    QVERIFY(parseOk(unit));
    for (size_t cut = 0; cut < unit.size(); cut += 37) {
        DiagnosticList diags;
        auto m = io::parseMlir(unit.substr(0, cut), "cut.mlir", diags);
        QVERIFY(m || diags.hasErrors());
    }
    // Deep nesting is an error, not a crash.
    std::string deep = "func.func @f() attributes {x = " + std::string(100000, '[') + "} {\n}";
    Diagnostic d = parseFail(deep);
    QVERIFY(d.message.find("nesting too deep") != std::string::npos);
    std::string deepTypes = "func.func @f(%a: " + std::string(5000, '(') + ") {\n}";
    parseFail(deepTypes);
    std::string deepRegions;
    for (int i = 0; i < 5000; ++i)
        deepRegions += "\"stablehlo.case\"() ({\n";
    parseFail(deepRegions);
    // A 1 MB line.
    std::string longLine = "func.func @f() attributes {x = \"" + std::string(1 << 20, 'a') + "\"} {\n  return\n}\n";
    QVERIFY(parseOk(longLine));
    std::string longBad = "func.func @f() attributes {x = [" + std::string(1 << 20, '1') + "]} {\n}";
    QVERIFY(parseFail(longBad).message.find("out of range") != std::string::npos);
}

void TestMlirReaderErrors::textEncoding_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("col");
    QTest::addColumn<QString>("phrase");
    // What a string literal holds is text: NULs and bytes that are not UTF-8 are errors at the byte (`\XX`
    // escapes write bytes). Column 19 is the byte after `sdy.mesh @m = <["a`.
    auto row = [](const char* name, const std::string& text, int line, int col, const char* phrase) {
        QTest::newRow(name) << QByteArray(text.data(), static_cast<qsizetype>(text.size())) << line << col
                            << QString(phrase);
    };
    const std::string mesh = "sdy.mesh @m = <[\"a";
    row("NUL in string", mesh + std::string(1, '\0') + "\"=2]>\n", 1, 19, "NUL byte in string literal");
    row("lone continuation byte", mesh + "\x80\"=2]>\n", 1, 19, "invalid UTF-8 in string literal (byte 0x80");
    row("overlong slash", mesh + "\xC0\xAF\"=2]>\n", 1, 19, "(byte 0xC0");
    row("surrogate", mesh + "\xED\xA0\x80\"=2]>\n", 1, 19, "(byte 0xED");
    row("above U+10FFFF", mesh + "\xF4\x90\x80\x80\"=2]>\n", 1, 19, "(byte 0xF4");
    row("truncated sequence", mesh + "\xE2\x82\"=2]>\n", 1, 19, "(byte 0xE2");
    row("Latin-1 in a location", "func.func @f() {\n  return loc(\"caf\xE9.py\":1:2)\n}\n", 2, 18,
        "invalid UTF-8 in string literal (byte 0xE9");
    row("in a quoted symbol", "func.func @\"f\xFF\"() {\n  return\n}\n", 1, 14, "(byte 0xFF");
    row("NUL outside strings", "func.func @f() {\n" + std::string(1, '\0') + "}\n", 2, 1,
        "unexpected character '\\x00'");
    row("byte outside strings", "func.func @f() {\n  \xC3\xA9\n}\n", 2, 3, "unexpected character '\\xC3'");
    // Dialect attributes and types kept as written hold text too (one held NULs and 0xFF bytes).
    row("byte in a dialect attribute", "func.func @f() attributes {x = #foo.bar<a\x80>} {\n  return\n}\n", 1, 42,
        "invalid UTF-8 in a dialect attribute or type (byte 0x80");
    row("NUL in a dialect type", "func.func @f(%a: !foo.t<" + std::string(1, '\0') + ">) {\n  return\n}\n", 1, 25,
        "NUL byte in a dialect attribute or type");
    row("bad string in a dialect type", "func.func @f(%a: !foo.t<\"\xFF\">) {\n  return\n}\n", 1, 26,
        "invalid UTF-8 in string literal (byte 0xFF");
    // Escapes may write any byte, but names (axes, symbols, op names, attribute names, locations) are text.
    row("escaped byte in an axis name", "sdy.mesh @m = <[\"a\\80\"=2]>\n", 1, 17, "name is not valid UTF-8");
    row("escaped byte in a symbol", "func.func @\"f\\FF\"() {\n  return\n}\n", 1, 11, "name is not valid UTF-8");
    row("escaped byte in an attribute name", "func.func @f() attributes {\"k\\C0\" = 1} {\n  return\n}\n", 1, 28,
        "name is not valid UTF-8");
    row("escaped byte in an op name", "\"x\\80.y\"() : () -> ()\n", 1, 1, "name is not valid UTF-8");
}

void TestMlirReaderErrors::textEncoding()
{
    QFETCH(QByteArray, text);
    QFETCH(int, line);
    QFETCH(int, col);
    QFETCH(QString, phrase);
    DiagnosticList diags;
    io::ReadOptions options;
    options.allowUnregisteredDialects = true;
    auto m =
        io::parseMlir(std::string_view(text.constData(), static_cast<size_t>(text.size())), "t.mlir", diags, options);
    QVERIFY(!m);
    QCOMPARE(diags.all().size(), size_t(1));
    const Diagnostic& d = diags.all().front();
    QVERIFY2(d.message.find(phrase.toStdString()) != std::string::npos, d.format().c_str());
    QVERIFY2(d.pos.line == line && d.pos.col == col, d.format().c_str());
}

void TestMlirReaderErrors::bytesAndNames()
{
    // A string attribute holds any bytes, written as escapes; they print back as escapes and survive the JSON
    // document (as hex), overlong and surrogate forms included (nlohmann cannot write them as text).
    const std::string text = "func.func @f() attributes {s = \"\\00\\80\\FF\\C0\\AF\\ED\\A0\\80\"} {\n  return\n}\n";
    auto m = parseOk(text);
    QVERIFY(m);
    const ir::Op* f = m->findFunc("f");
    QVERIFY(f && f->attr("s") && f->attr("s")->as<ir::StringAttr>());
    const std::string bytes("\0\x80\xFF\xC0\xAF\xED\xA0\x80", 8);
    QCOMPARE(f->attr("s")->as<ir::StringAttr>()->value, bytes);
    const std::string printed = io::printModule(*m);
    QVERIFY2(printed.find("\"\\00\\80\\FF\\C0\\AF\\ED\\A0\\80\"") != std::string::npos, printed.c_str());
    DiagnosticList diags;
    auto fromJson = io::parseJsonDocument(io::writeJsonDocument(*m), "t.json", diags);
    QVERIFY2(fromJson, diags.formatAll().c_str());
    QCOMPARE(io::printModule(*fromJson), printed);

    // UTF-8 names are text: they read, print as escapes and read back, and keep their bytes through JSON.
    auto named = parseOk("sdy.mesh @m = <[\"caf\xC3\xA9\"=2, \"\\E2\\82\\AC\"=2]>\n");
    QVERIFY(named);
    const Mesh* mesh = named->findMesh("m");
    QVERIFY(mesh && mesh->axes().size() == 2);
    QCOMPARE(mesh->axes()[0].name, std::string("caf\xC3\xA9"));
    QCOMPARE(mesh->axes()[1].name, std::string("\xE2\x82\xAC"));
    const std::string namedText = io::printModule(*named);
    QVERIFY(parseOk(namedText));
    diags.clear();
    auto namedJson = io::parseJsonDocument(io::writeJsonDocument(*named), "n.json", diags);
    QVERIFY2(namedJson, diags.formatAll().c_str());
    QCOMPARE(io::printModule(*namedJson), namedText);

    // Comments are not read: bytes that are not UTF-8 there are no error.
    QVERIFY(parseOk("// caf\xE9 \x80\xFF\nfunc.func @f() {\n  return\n}\n"));
}

void TestMlirReaderErrors::limits()
{
    // 10,000 levels of regions, arrays, dictionaries, types, locations and dense literals: an error where the
    // nesting passes the limit, not a stack overflow.
    auto tooDeep = [](const std::string& text, int line) {
        Diagnostic d = parseFail(text);
        QVERIFY2(d.message.find("nesting too deep (more than 200 levels)") != std::string::npos, d.format().c_str());
        QVERIFY2(d.pos.line == line, d.format().c_str());
    };
    std::string regions = "func.func @f() {\n";
    for (int i = 0; i < 10000; ++i)
        regions += "  \"stablehlo.case\"() ({\n";
    tooDeep(regions, 101); // an op and its region are two levels
    auto wrapped = [](int n, const std::string& open, const std::string& inner, const std::string& close) {
        std::string s;
        for (int i = 0; i < n; ++i)
            s += open;
        s += inner;
        for (int i = 0; i < n; ++i)
            s += close;
        return s;
    };
    const std::string head = "func.func @f() attributes {x = ", tail = "} {\n  return\n}\n";
    tooDeep(head + wrapped(10000, "[", "1", "]") + tail, 1);
    tooDeep(head + wrapped(10000, "{a = ", "1", "}") + tail, 1);
    tooDeep("func.func @f(%a: " + wrapped(10000, "tuple<", "f32", ">") + ") {\n  return\n}\n", 1);
    tooDeep("func.func @f() {\n  return loc(" + wrapped(10000, "fused[", "unknown", "]") + ")\n}\n", 2);
    tooDeep("func.func @f() {\n  %0 = stablehlo.constant dense<" + wrapped(10000, "[", "1", "]") +
                "> : tensor<1xi32>\n  return\n}\n",
            2);
    // Nesting within the limit reads.
    QVERIFY(parseOk(head + wrapped(150, "[", "1", "]") + tail));
    QVERIFY(parseOk(head + wrapped(90, "{a = ", "1", "}") + tail)); // a dictionary and its value: two levels

    // A 10 MB line: a string attribute of 10 MB reads and prints back; 10 MB of digits is an integer out of range
    // and 10 MB of an unknown keyword an error at its column.
    const std::string big(10 << 20, 'a');
    auto m = parseOk(head + "\"" + big + "\"" + tail);
    QVERIFY(m);
    QVERIFY(io::printModule(*m).find(big) != std::string::npos);
    QVERIFY(parseFail(head + "[" + std::string(10 << 20, '1') + "]" + tail).message.find("out of range") !=
            std::string::npos);
    Diagnostic d = parseFail(head + "[1, " + big + "]" + tail);
    QVERIFY2(d.pos.line == 1 && d.pos.col == static_cast<int>(head.size()) + 5, d.format().c_str());
}

void TestMlirReaderErrors::hugeTensors()
{
    // 2^40 elements: a type, an op using it and a splat constant read, verify and print back without allocating
    // per element; literals that do not fit the type are errors that say so.
    const std::string huge = "tensor<1048576x1048576xf32>";
    const std::string text = "func.func @f(%a: " + huge + ") -> " + huge +
                             " {\n  %c = stablehlo.constant dense<1.0> : " + huge +
                             "\n  %0 = stablehlo.add %a, %c : " + huge + "\n  return %0 : " + huge + "\n}\n";
    auto m = parseOk(text);
    QVERIFY(m);
    DiagnosticList diags;
    QVERIFY2(ir::verifyModule(*m, diags), diags.formatAll().c_str());
    const std::string printed = io::printModule(*m);
    QVERIFY2(printed.find("dense<1.000000e+00> : " + huge) != std::string::npos, printed.c_str());
    QVERIFY(printed.size() < 1024);
    auto again = parseOk(printed);
    QVERIFY(again);
    QCOMPARE(io::printModule(*again), printed);

    const std::string head = "func.func @f() {\n  %c = stablehlo.constant ";
    Diagnostic d = parseFail(head + "dense<[1.0, 2.0]> : " + huge + "\n  return\n}\n");
    QVERIFY2(d.message.find("inferred shape of elements literal ([2]) does not match type ([1048576, 1048576])") !=
                 std::string::npos,
             d.format().c_str());
    d = parseFail(head + "dense<\"0x0000803F0000803F\"> : " + huge + "\n  return\n}\n");
    QVERIFY2(d.message.find("8 bytes for 1099511627776 elements of f32") != std::string::npos, d.format().c_str());
    // 2^62 elements of f32 are 2^64 bytes: no byte count wraps around to match an empty literal.
    d = parseFail(head + "dense<\"0x\"> : tensor<4611686018427387904xf32>\n  return\n}\n");
    QVERIFY2(d.message.find("elements hex data size is invalid") != std::string::npos, d.format().c_str());

    // Element and device counts are int64 throughout: a type or a mesh whose count does not fit is an error (it
    // was a signed overflow in Type::numElements and the mesh verifier).
    d = parseFail("func.func @f(%a: tensor<1099511627776x1099511627776x4xf32>) {\n  return\n}\n");
    QVERIFY2(d.message == "tensor type has more elements than fit in 64 bits" && d.pos.col == 18, d.format().c_str());
    d = parseFail("sdy.mesh @m = <[\"a\"=4611686018427387904, \"b\"=4]>\n");
    QVERIFY2(d.message == "total product of axis sizes does not fit in 64 bits (at axis \"b\")", d.format().c_str());

    // A splat of 2^40 elements where a list of integers is expected is not expanded (it ran out of memory).
    auto splatList = parseOk("func.func @f(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
                             "  %0 = \"stablehlo.transpose\"(%a) {permutation = dense<0> : tensor<1048576x1048576xi64>}"
                             " : (tensor<2x2xf32>) -> tensor<2x2xf32>\n  return %0 : tensor<2x2xf32>\n}\n");
    QVERIFY(splatList);
    // Not as the permutation of the transpose's sharding rule (stablehlo::intList), nor as the `dims` of its
    // custom form (the printer's intList): it prints in the generic form.
    const ir::Op& transpose = *splatList->findFunc("f")->region(0).front().ops().front();
    std::string whyNot;
    QVERIFY(!createOpShardingRule(transpose, false, &whyNot));
    QVERIFY2(whyNot.find("transpose: missing or malformed permutation") != std::string::npos, whyNot.c_str());
    QVERIFY(io::printModule(*splatList).find("dense<0> : tensor<1048576x1048576xi64>") != std::string::npos);
}

QTEST_APPLESS_MAIN(TestMlirReaderErrors)
#include "tst_mlirreadererrors.moc"
