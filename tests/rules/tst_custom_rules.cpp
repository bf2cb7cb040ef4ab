// Tests of user-defined rules (seed 004): the einsum-like syntax, rules files and their errors.
#include <QtTest>

#include <QTemporaryDir>

#include <fstream>

#include "RuleTestUtil.h"
#include "core/passes/PassRegistry.h"
#include "core/rules/CustomRules.h"
#include "core/rules/PopulateRulesPass.h"

using namespace shardx;

namespace {

std::string writeFile(const QTemporaryDir& dir, const char* name, const std::string& content)
{
    std::string path = dir.filePath(name).toStdString();
    std::ofstream(path) << content;
    return path;
}

const char* kMatmulModule =
    "func.func @f(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>) -> tensor<8x16xf32> {\n"
    "  %0 = \"mydialect.matmul\"(%a, %b) : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>\n"
    "  %1 = stablehlo.custom_call @my_kernel(%0) : (tensor<8x16xf32>) -> tensor<128xf32>\n"
    "  %2 = stablehlo.reshape %1 : (tensor<128xf32>) -> tensor<8x16xf32>\n"
    "  return %2 : tensor<8x16xf32>\n"
    "}\n";

std::string ruleAttr(const ir::Op& op)
{
    const ir::Attribute* a = op.attr(kShardingRuleAttrName);
    if (!a || !a->as<ir::OpShardingRuleAttr>())
        return "none";
    return a->as<ir::OpShardingRuleAttr>()->rule.toString();
}

} // namespace

class TestCustomRules : public QObject {
    Q_OBJECT
private slots:
    void parseAndInstantiate_data()
    {
        QTest::addColumn<QString>("rule");
        QTest::addColumn<QString>("expected");
        // shapes: operands 8x32, 32x16; result 8x16 (or as each rule needs, see below)
        QTest::newRow("matmul") << "(i,k),(k,j)->(i,j) {reduction: k}"
                                << "<([i, j], [j, k])->([i, k]) {i=8, j=32, k=16} reduction={j}, custom>";
        QTest::newRow("brackets and spaces") << "[ i , k ] , [k,j] -> [i, j] {reduction: [k], blocked: i}"
                                             << "<([i, j], [j, k])->([i, k]) {i=8, j=32, k=16} reduction={j} "
                                                "blocked_propagation={i}, custom>";
        QTest::newRow("kinds") << "(a,b),(b,c)->(a,c) {need_replication: a, permutation: [c], reduction: b}"
                               << "<([i, j], [j, k])->([i, k]) {i=8, j=32, k=16} reduction={j} "
                                  "need_replication={i} permutation={k}, custom>";
    }
    void parseAndInstantiate()
    {
        QFETCH(QString, rule);
        QFETCH(QString, expected);
        auto spec = parseCustomRule(rule.toStdString());
        QVERIFY2(spec, spec ? "" : spec.error().message.c_str());
        auto r = instantiateCustomRule(*spec, {{8, 32}, {32, 16}}, {{8, 16}});
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QCOMPARE(QString::fromStdString(r->toString()), expected);
    }

    void compoundFactors()
    {
        // 8x4 -> 2x16 written by hand: sizes of i, j, k follow from the shapes.
        auto spec = parseCustomRule("((ij), k) -> (i, (j k))");
        QVERIFY2(spec, spec ? "" : spec.error().message.c_str());
        auto r = instantiateCustomRule(*spec, {{8, 4}}, {{2, 16}});
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QCOMPARE(QString::fromStdString(r->toString()), QString("<([ij, k])->([i, jk]) {i=2, j=4, k=4}, custom>"));
        // A split whose sizes the shapes cannot fix needs `sizes`.
        auto split = parseCustomRule("(ij) -> (ij)");
        QVERIFY(split);
        auto bad = instantiateCustomRule(*split, {{8}}, {{8}});
        QVERIFY(!bad);
        QVERIFY(bad.error().message.find("cannot infer the size") != std::string::npos);
        auto sized = parseCustomRule("(ij) -> (ij) {sizes: [i=2]}");
        QVERIFY(sized);
        auto ok = instantiateCustomRule(*sized, {{8}}, {{8}});
        QVERIFY(ok);
        QCOMPARE(QString::fromStdString(ok->toString()), QString("<([ij])->([ij]) {i=2, j=4}, custom>"));
        // Scalars and a shape the rule does not fit.
        auto scalar = parseCustomRule("(i), () -> (i)");
        QVERIFY(scalar);
        QVERIFY(instantiateCustomRule(*scalar, {{4}, {}}, {{4}}));
        auto rank = instantiateCustomRule(*scalar, {{4, 2}, {}}, {{4}});
        QVERIFY(!rank);
        QVERIFY(rank.error().message.find("operand 0 has rank 2") != std::string::npos);
    }

    void parseErrorsHaveColumns()
    {
        auto e1 = parseCustomRule("(i,k),(k,j)->(i,j {reduction: k}");
        QVERIFY(!e1);
        QCOMPARE(e1.error().pos.col, 19); // the `{` where `)` was expected
        auto e2 = parseCustomRule("(i)->(i) {reduction: q}");
        QVERIFY(!e2);
        QCOMPARE(e2.error().pos.col, 22);
        QVERIFY(e2.error().message.find("unknown factor 'q'") != std::string::npos);
        auto e3 = parseCustomRule("(i)(i)");
        QVERIFY(!e3);
        QVERIFY(e3.error().message.find("'->'") != std::string::npos);
    }

    void sizesPast64Bits()
    {
        // A size with more digits than int64 holds is an error at its column (std::stoll threw out of the parser).
        auto big = parseCustomRule("() -> (i, j) {sizes: [i=10400000010248191152577, j=1048576]}");
        QVERIFY(!big);
        QCOMPARE(big.error().message, std::string("factor size does not fit in 64 bits"));
        QCOMPARE(big.error().pos.col, 25);
        QVERIFY(parseCustomRule("() -> (i) {sizes: [i=9223372036854775807]}"));
        QVERIFY(!parseCustomRule("() -> (i) {sizes: [i=9223372036854775808]}"));
        // Sizes whose product does not fit are an error, not a signed overflow.
        auto spec = parseCustomRule("((i j)) -> ((i j)) {sizes: [i=4294967296, j=4294967296]}");
        QVERIFY(spec);
        auto r = instantiateCustomRule(*spec, {{4}}, {{4}});
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("multiply to more than fits in 64 bits") != std::string::npos,
                 r.error().message.c_str());
    }

    void customOpThroughThePass()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        std::string path =
            writeFile(dir, "rules.json",
                      "{\"rules\": [\n"
                      "  {\"op\": \"mydialect.matmul\", \"rule\": \"(i,k),(k,j)->(i,j) {reduction: k}\"},\n"
                      "  {\"custom_call\": \"my_kernel\", \"rule\": \"(i, j) -> ((ij))\"},\n"
                      "  {\"op\": \"stablehlo.reshape\", \"rule\": \"((ij)) -> (i, j)\"}\n"
                      "]}\n");
        auto set = CustomRuleSet::loadFile(path);
        QVERIFY2(set, set ? "" : set.error().format().c_str());
        QCOMPARE(set->size(), size_t(3));

        auto p = testutil::parseOp(kMatmulModule, "mydialect.matmul");
        QVERIFY2(p.op, p.error.c_str());
        RuleOptions options;
        options.customRules = &*set;
        DiagnosticList diags;
        QVERIFY(populateOpShardingRules(*p.module, options, diags));
        QVERIFY2(diags.empty(), diags.formatAll().c_str());
        QCOMPARE(QString::fromStdString(ruleAttr(*p.op)),
                 QString("<([i, j], [j, k])->([i, k]) {i=8, j=32, k=16} reduction={j}, custom>"));
        ir::Op* call = p.op->nextInBlock();
        QCOMPARE(QString::fromStdString(ruleAttr(*call)), QString("<([i, j])->([ij]) {i=8, j=16}, custom>"));
        // The user rule replaces the registry's rule for reshape too.
        QCOMPARE(QString::fromStdString(ruleAttr(*call->nextInBlock())),
                 QString("<([ij])->([i, j]) {i=8, j=16}, custom>"));

        // Without the rules file the custom op is unknown (one warning) and the call too.
        auto q = testutil::parseOp(kMatmulModule, "mydialect.matmul");
        DiagnosticList d2;
        QVERIFY(populateOpShardingRules(*q.module, RuleOptions{}, d2));
        QCOMPARE(d2.all().size(), size_t(2));
        QCOMPARE(QString::fromStdString(ruleAttr(*q.op)), QString("none"));
    }

    void textRulesFileAndPassOption()
    {
        QTemporaryDir dir;
        std::string path = writeFile(dir, "rules.txt",
                                     "# user rules\n"
                                     "mydialect.matmul: (i,k),(k,j)->(i,j) {reduction: k}\n"
                                     "\n"
                                     "@my_kernel: (i, j) -> (ij)\n");
        auto p = testutil::parseOp(kMatmulModule, "mydialect.matmul");
        QVERIFY2(p.op, p.error.c_str());
        const PassInfo* pass = findPass("sdy-populate-op-sharding-rules");
        QVERIFY(pass);
        DiagnosticList diags;
        QVERIFY(pass->run(*p.module, {{"custom-rules", path}}, diags));
        QCOMPARE(QString::fromStdString(ruleAttr(*p.op)),
                 QString("<([i, j], [j, k])->([i, k]) {i=8, j=32, k=16} reduction={j}, custom>"));
        // A missing file is an error.
        DiagnosticList d2;
        QVERIFY(!pass->run(*p.module, {{"custom-rules", path + ".missing"}}, d2));
        QVERIFY(d2.hasErrors());
    }

    void malformedJsonSyntax()
    {
        QTemporaryDir dir;
        std::string path =
            writeFile(dir, "bad1.json", "{\"rules\": [\n  {\"op\": \"a.b\", \"rule\": \"(i)->(i)\"}\n  {\"op\"}\n]}\n");
        auto set = CustomRuleSet::loadFile(path);
        QVERIFY(!set);
        QCOMPARE(QString::fromStdString(set.error().pos.file), QString::fromStdString(path));
        QCOMPARE(set.error().pos.line, 3);
        QVERIFY(set.error().pos.col > 0);
    }

    void malformedJsonValues()
    {
        // A number no double holds is not a syntax error but must be an error too (it threw out of the reader).
        auto big = CustomRuleSet::fromJson("{\"rules\": [{\"op\": \"a.b\", \"rule\": \"(i)->(i)\", \"n\": 9e9999}]}",
                                           "big.json");
        QVERIFY(!big);
        QVERIFY2(big.error().message.find("invalid JSON in rules file: number overflow") != std::string::npos,
                 big.error().message.c_str());
        QCOMPARE(big.error().pos.file, std::string("big.json"));
        // 10,000 nested arrays: an error where the nesting passes the limit.
        auto deep = CustomRuleSet::fromJson("{\"rules\": " + std::string(10000, '[') + std::string(10000, ']') + "}",
                                            "deep.json");
        QVERIFY(!deep);
        QVERIFY2(deep.error().message.find("nested deeper than") != std::string::npos, deep.error().message.c_str());
        QCOMPARE(deep.error().pos.line, 1);
        QCOMPARE(deep.error().pos.col, 10 + 2000); // the 2,000th `[` is the 2,001st level
    }

    void malformedJsonRule()
    {
        QTemporaryDir dir;
        std::string path =
            writeFile(dir, "bad2.json",
                      "{\"rules\": [{\"op\": \"a.b\", \"rule\": \"(i)->(i)\"},\n"
                      "            {\"custom_call\": \"k\", \"rule\": \"(i,k),(k,j)->(i,j {reduction: k}\"}]}");
        auto set = CustomRuleSet::loadFile(path);
        QVERIFY(!set);
        const std::string& msg = set.error().message;
        QVERIFY2(msg.find(path) != std::string::npos, msg.c_str());
        QVERIFY2(msg.find("rule 2 ('@k')") != std::string::npos, msg.c_str());
        QVERIFY2(msg.find("column 19") != std::string::npos, msg.c_str());
        // Missing fields are named too.
        auto s2 = CustomRuleSet::fromJson("[{\"rule\": \"(i)->(i)\"}]", "x.json");
        QVERIFY(!s2);
        QVERIFY(s2.error().message.find("rule 1") != std::string::npos);
    }

    void malformedTextRule()
    {
        QTemporaryDir dir;
        std::string path = writeFile(dir, "bad3.txt",
                                     "# comment\n"
                                     "a.ok: (i)->(i)\n"
                                     "a.bad: (i,j)->(i) {reduction: q}\n");
        auto set = CustomRuleSet::loadFile(path);
        QVERIFY(!set);
        QCOMPARE(set.error().pos.line, 3);
        // "a.bad: " is 7 characters; `q` is at column 24 of the rule -> column 31 of the line.
        QCOMPARE(set.error().pos.col, 31);
        QVERIFY(set.error().message.find("a.bad") != std::string::npos);
        auto s2 = CustomRuleSet::fromText("no colon here\n", "y.txt");
        QVERIFY(!s2);
        QCOMPARE(s2.error().pos.line, 1);
    }

    void ruleThatDoesNotFitTheOp()
    {
        CustomRuleSet set;
        QVERIFY(set.add("mydialect.matmul", "(i,k)->(i,k)", "inline"));
        auto p = testutil::parseOp(kMatmulModule, "mydialect.matmul");
        auto r = set.apply(*p.op);
        QVERIFY(r);
        QCOMPARE(int(r->outcome), int(RuleOutcome::Invalid));
        QVERIFY2(r->reason.find("inline") != std::string::npos, r->reason.c_str());
        QVERIFY2(r->reason.find("operand") != std::string::npos, r->reason.c_str());
        // The pass reports it on the op instead of guessing.
        RuleOptions options;
        options.customRules = &set;
        DiagnosticList diags;
        QVERIFY(populateOpShardingRules(*p.module, options, diags));
        QVERIFY(!diags.empty());
        QCOMPARE(diags.all().front().pos.line, 2);
        QCOMPARE(QString::fromStdString(ruleAttr(*p.op)), QString("none"));
    }
};

QTEST_APPLESS_MAIN(TestCustomRules)
#include "tst_custom_rules.moc"
