// Tests of rule-based annotation (core/annotate): seed 003's mesh helper, FSDP, tree-path and
// policy rules, each result worked out by hand, malformed rule files, and a module annotated.
#include <QtTest>

#include <string>

#include "core/annotate/ModuleAnnotator.h"
#include "core/io/MlirPrinter.h"
#include "core/io/ModuleLoader.h"
#include "tests/TestSupport.h"

using namespace shardx;
using namespace shardx::annotate;
using shardx::testing::has;

namespace {

RuleSet rulesOf(const std::string& text)
{
    Expected<RuleSet> r = parseRuleSet(text, "rules.json");
    if (!r) {
        qWarning("%s", r.error().format().c_str());
        return {};
    }
    return *r;
}

std::string errorOf(const std::string& text)
{
    Expected<RuleSet> r = parseRuleSet(text, "rules.json");
    return r ? std::string("<parsed>") : r.error().format();
}

/// The spec (or error) the rules give a leaf on the mesh data=2, fsdp=4.
std::string specOf(const RuleSet& rules, const std::string& path, std::vector<int64_t> shape,
                   const std::string& dtype = "f32")
{
    const Mesh mesh({MeshAxis{"data", 2}, MeshAxis{"fsdp", 4}});
    LeafSharding s = applyRules(rules, mesh, Leaf{path, std::move(shape), dtype});
    return s.error.empty() ? partitionSpecText(s.spec) : "error: " + s.error;
}

const std::string kMesh = R"("mesh": {"axis_dims": [2, -1], "axis_names": ["data", "fsdp"]})";

} // namespace

class TestAnnotate : public QObject {
    Q_OBJECT

private slots:
    void meshHelperInfersMinusOne()
    {
        // axis_dims [2, -1] on 8 devices: -1 = 8 / 2 = 4.
        Expected<Mesh> m = buildMesh(MeshSpec{{2, -1}, {"data", "fsdp"}, false}, 8);
        QVERIFY(m.ok());
        QCOMPARE(m->toString(), std::string("<[\"data\"=2, \"fsdp\"=4]>"));
        // 3 does not divide 8; [2, 2] is 4 devices, not 8; -1 without a device count.
        QVERIFY(has(buildMesh(MeshSpec{{3, -1}, {"a", "b"}, false}, 8).error().message, "cannot be split"));
        QVERIFY(has(buildMesh(MeshSpec{{2, 2}, {"a", "b"}, false}, 8).error().message, "multiply to 4"));
        QVERIFY(has(buildMesh(MeshSpec{{2, -1}, {"a", "b"}, false}, 0).error().message, "--devices"));
    }

    void fsdpWithAxisSize()
    {
        // fsdp_axis_size 4, every tensor (min 0). Dimensions by decreasing size, the first
        // divisible by 4 is sharded:
        //   [6, 8]  -> 8 (dim 1) % 4 == 0: P(None, 'fsdp')
        //   [12, 6] -> 12 (dim 0): P('fsdp')
        //   [6, 6]  -> no dimension divisible: the rule gives nothing, replicated P()
        //   [8, 8]  -> equal sizes keep their order: dim 0, P('fsdp')
        RuleSet r = rulesOf(
            "{" + kMesh +
            R"(, "rules": [{"kind": "fsdp", "fsdp_axis_name": "fsdp", "fsdp_axis_size": 4, "min_fsdp_size": 0}]})");
        QCOMPARE(specOf(r, "w", {6, 8}), std::string("P(None, 'fsdp')"));
        QCOMPARE(specOf(r, "w", {12, 6}), std::string("P('fsdp')"));
        QCOMPARE(specOf(r, "w", {6, 6}), std::string("P()"));
        QCOMPARE(specOf(r, "w", {8, 8}), std::string("P('fsdp')"));
    }

    void fsdpWithoutAxisSize()
    {
        // The dimension with the largest power-of-two divisor (dimensions by decreasing size, a
        // later one only wins with a strictly larger divisor):
        //   [24, 64] -> 64 has 64, 24 has 8: dim 1, P(None, 'fsdp')
        //   [48, 40] -> 48 has 16, 40 has 8: dim 0, P('fsdp')
        //   [12, 20] -> 20 (dim 1) has 4, 12 has 4 too (not larger): dim 1, P(None, 'fsdp')
        //   [3, 5]   -> both odd (1): the larger, dim 1: P(None, 'fsdp'); 5 % 4 != 0, so the
        //               spec does not divide its dimension on this mesh: an error
        RuleSet r =
            rulesOf("{" + kMesh + R"(, "rules": [{"kind": "fsdp", "fsdp_axis_name": "fsdp", "min_fsdp_size": 0}]})");
        QCOMPARE(specOf(r, "w", {24, 64}), std::string("P(None, 'fsdp')"));
        QCOMPARE(specOf(r, "w", {48, 40}), std::string("P('fsdp')"));
        QCOMPARE(specOf(r, "w", {12, 20}), std::string("P(None, 'fsdp')"));
        QVERIFY(has(specOf(r, "w", {3, 5}), "splits dimension 1 of size 5 into 4 shards"));
        QCOMPARE(largestPowerOfTwoDivisor(48), int64_t(16));
    }

    void minFsdpSize()
    {
        // min_fsdp_size 1024: [16, 32] has 512 elements (not sharded, replicated); [32, 64] has
        // 2048 (dim 1: 64 has 64 > 32's 32): P(None, 'fsdp'). The default, 2^20 elements, leaves
        // [64, 64] (4096) alone and shards [1024, 2048] (2^21) on dim 1.
        RuleSet r =
            rulesOf("{" + kMesh + R"(, "rules": [{"kind": "fsdp", "fsdp_axis_name": "fsdp", "min_fsdp_size": 1024}]})");
        QCOMPARE(specOf(r, "w", {16, 32}), std::string("P()"));
        QCOMPARE(specOf(r, "w", {32, 64}), std::string("P(None, 'fsdp')"));
        RuleSet d = rulesOf("{" + kMesh + R"(, "rules": [{"kind": "fsdp", "fsdp_axis_name": "fsdp"}]})");
        QCOMPARE(specOf(d, "w", {64, 64}), std::string("P()"));
        QCOMPARE(specOf(d, "w", {1024, 2048}), std::string("P(None, 'fsdp')"));
    }

    void treePathStrictAndNonStrict()
    {
        // Patterns searched in order in the path (re.search): 'mlp/wi' -> P(None, 'fsdp'),
        // 'mlp' -> P('fsdp'). params/layers_3/mlp/wi matches the first; .../mlp/wo only the
        // second. params/layers_3/attn/wq matches none: the strict rule errors, the non-strict
        // one leaves it replicated.
        const std::string patterns = R"("patterns": [["mlp/wi", [null, "fsdp"]], ["mlp", ["fsdp"]]])";
        RuleSet strict = rulesOf("{" + kMesh + R"(, "rules": [{"kind": "tree_path", )" + patterns + "}]}");
        QCOMPARE(specOf(strict, "params/layers_3/mlp/wi", {16, 64}), std::string("P(None, 'fsdp')"));
        QCOMPARE(specOf(strict, "params/layers_3/mlp/wo", {64, 16}), std::string("P('fsdp')"));
        QVERIFY(has(specOf(strict, "params/layers_3/attn/wq", {16, 16}),
                    "'params/layers_3/attn/wq' matches no pattern of the strict tree_path rule /rules/0"));
        RuleSet lax =
            rulesOf("{" + kMesh + R"(, "rules": [{"kind": "tree_path", "strict": false, )" + patterns + "}]}");
        QCOMPARE(specOf(lax, "params/layers_3/attn/wq", {16, 16}), std::string("P()"));
    }

    void firstRuleThatGivesAShardingWins()
    {
        // FSDP (min 1024) first, then a non-strict tree_path: a big tensor is FSDP's, a small
        // one falls through to the path rule, a small unmatched one is replicated.
        RuleSet r =
            rulesOf("{" + kMesh + R"(, "rules": [{"kind": "fsdp", "fsdp_axis_name": "fsdp", "min_fsdp_size": 1024},
            {"kind": "tree_path", "strict": false, "patterns": [["scale$", ["data"]]]}]})");
        const Mesh mesh({MeshAxis{"data", 2}, MeshAxis{"fsdp", 4}});
        LeafSharding big = applyRules(r, mesh, Leaf{"ln/scale", {64, 64}, "f32"});
        QCOMPARE(big.rule, 0);
        QCOMPARE(big.matched, std::string("fsdp rule /rules/0: dimension 0"));
        LeafSharding small = applyRules(r, mesh, Leaf{"ln/scale", {64}, "f32"});
        QCOMPARE(small.rule, 1);
        QCOMPARE(partitionSpecText(small.spec), std::string("P('data')"));
        QCOMPARE(applyRules(r, mesh, Leaf{"ln/bias", {64}, "f32"}).rule, -1);
    }

    void policyRules()
    {
        // Rank 1 -> P(); f32 matrices whose second dimension is 256 -> P('data', 'fsdp'); bf16
        // (any shape) -> P(('data', 'fsdp')).
        RuleSet r = rulesOf("{" + kMesh + R"(, "rules": [{"kind": "policy", "policies": [
            {"if": {"rank": 1}, "spec": []},
            {"if": {"dtype": "f32", "shape": [null, 256]}, "spec": ["data", "fsdp"]},
            {"if": {"dtype": "bf16"}, "spec": [["data", "fsdp"]]}]}]})");
        QCOMPARE(specOf(r, "b", {256}), std::string("P()"));
        QCOMPARE(specOf(r, "w", {64, 256}), std::string("P('data', 'fsdp')"));
        QCOMPARE(specOf(r, "w", {64, 128}), std::string("P()"));
        QCOMPARE(specOf(r, "e", {64, 128}, "bf16"), std::string("P(('data', 'fsdp'))"));
    }

    void specsUnfitForTheLeafAreErrors()
    {
        RuleSet r = rulesOf(
            "{" + kMesh +
            R"(, "rules": [{"kind": "tree_path", "patterns": [["twice", ["fsdp", "fsdp"]], ["long", [null, null, null]], [".", [null, "fsdp"]]]}]})");
        QVERIFY(has(specOf(r, "twice", {8, 8}), "names axis 'fsdp' twice"));
        QVERIFY(has(specOf(r, "long", {8, 8}), "has 3 entries for a tensor of rank 2"));
        QVERIFY(has(specOf(r, "w", {8, 6}), "splits dimension 1 of size 6 into 4 shards"));
    }

    void malformedRuleFilesGiveJsonPointers()
    {
        QCOMPARE(
            errorOf(
                "{" + kMesh +
                R"(, "rules": [{"kind": "fsdp", "fsdp_axis_name": "fsdp"}, {"kind": "tree_path", "patterns": [["w", [3]]]}]})"),
            std::string("rules.json: error: /rules/1/patterns/0/1/0: expected null, an axis name or a list of axis "
                        "names, got 3"));
        QCOMPARE(
            errorOf("{" + kMesh + R"(, "rules": [{"kind": "fdsp"}]})"),
            std::string("rules.json: error: /rules/0/kind: unknown rule kind \"fdsp\" (expected fsdp, tree_path or "
                        "policy)"));
        QCOMPARE(errorOf("{" + kMesh + R"(, "rules": [{"kind": "fsdp", "fsdp_axis_name": "x"}]})"),
                 std::string("rules.json: error: /rules/0/fsdp_axis_name: axis \"x\" is not in mesh.axis_names"));
        QVERIFY(has(errorOf("{" + kMesh + ", \"rules\": [{\"kind\": \"tree_path\", \"patterns\": [[\"(\", []]]}]}"),
                    "/rules/0/patterns/0/0: invalid regular expression '('"));
        QCOMPARE(errorOf(R"({"mesh": {"axis_dims": [2, -1, -1], "axis_names": ["a", "b", "c"]}, "rules": []})"),
                 std::string("rules.json: error: /mesh/axis_dims: only one axis size may be -1"));
        QCOMPARE(errorOf(R"({"mesh": {"axis_dims": [2], "axis_names": ["a"]}})"),
                 std::string("rules.json: error: /: missing \"rules\""));
        QCOMPARE(errorOf("{" + kMesh + R"(, "rules": [{"kind": "tree_path", "patterns": [], "strict": 1}]})"),
                 std::string("rules.json: error: /rules/0/strict: expected true or false, got 1"));
        QVERIFY(has(errorOf("{\n  \"mesh\": {,\n}"), "rules.json:2:12: error: invalid JSON"));
    }

    void keyStringsBecomeTreePaths()
    {
        QCOMPARE(treePathOfKeyString("params['layer_0']['w']"), std::string("params/layer_0/w"));
        QCOMPARE(treePathOfKeyString("x[0].kernel"), std::string("x/0/kernel"));
        QCOMPARE(treePathOfKeyString("x"), std::string("x"));
    }

    void annotateTheMlpSample()
    {
        // samples/mlp_dp_tp.mlir has 8 partitions and a mesh data=2, model=4; the rules build
        // [2, -1] = data=2, model=4 and reuse it. Paths from the arguments' loc names: x,
        // params/layer_0/w [64, 256], params/layer_0/b [256], params/layer_1/w [256, 64],
        // params/layer_1/b [64]. Rules: tree_path (non-strict) 'layer_0/w' -> P(None, 'model'),
        // 'layer_1/w' -> P('model'), '^x$' -> P('data'); then FSDP on data (min 0, size 2) for the
        // rest: the biases: [256] -> P('data'), [64] -> P('data').
        DiagnosticList diags;
        auto module = io::loadModuleFile(SHARDX_SOURCE_DIR "/samples/mlp_dp_tp.mlir", diags);
        QVERIFY(module);
        RuleSet r = rulesOf(R"({"mesh": {"axis_dims": [2, -1], "axis_names": ["data", "model"]}, "rules": [
            {"kind": "tree_path", "strict": false, "patterns": [["layer_0/w", [null, "model"]], ["layer_1/w", ["model"]], ["^x$", ["data"]]]},
            {"kind": "fsdp", "fsdp_axis_name": "data", "fsdp_axis_size": 2, "min_fsdp_size": 0}]})");
        AnnotateResult a = annotateModule(*module, r);
        QVERIFY2(a.ok(), a.diagnostics.formatAll().c_str());
        QCOMPARE(a.meshName, std::string("mesh"));
        QVERIFY(!a.meshAdded);
        const std::string text = printAnnotations(a);
        QVERIFY(has(text, "@main %arg0 x tensor<16x64xf32>: P('data') <@mesh, [{\"data\"}, {}]> (tree_path rule "
                          "/rules/0: pattern 2 '^x$')"));
        QVERIFY(
            has(text, "@main %arg1 params/layer_0/w tensor<64x256xf32>: P(None, 'model') <@mesh, [{}, {\"model\"}]>"));
        QVERIFY(has(text, "@main %arg2 params/layer_0/b tensor<256xf32>: P('data') <@mesh, [{\"data\"}]> (fsdp rule "
                          "/rules/1: dimension 0)"));
        QVERIFY(has(text, "@main %arg3 params/layer_1/w tensor<256x64xf32>: P('model') <@mesh, [{\"model\"}, {}]>"));
        const std::string printed = io::printModule(*module);
        QVERIFY(has(printed, "%arg2: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"data\"}]>}"));
    }

    void annotateAddsTheMeshWhenTheModuleHasNone()
    {
        // No mesh and no mhlo.num_partitions: --devices 8 gives [2, -1] = a=2, b=4, added as
        // @mesh first in the module; the strict rule matching nothing is an error at the argument.
        const std::string text =
            R"(func.func @main(%arg0: tensor<8x8xf32> loc("w"), %arg1: tensor<8xf32> loc("v")) -> tensor<8x8xf32> {
  return %arg0 : tensor<8x8xf32>
})";
        DiagnosticList diags;
        auto module = io::loadModuleText(text, "m.mlir", diags);
        QVERIFY(module);
        RuleSet r = rulesOf(
            R"({"mesh": {"axis_dims": [2, -1], "axis_names": ["a", "b"]}, "rules": [{"kind": "tree_path", "patterns": [["^w$", ["a", "b"]]]}]})");
        AnnotateResult none = annotateModule(*module, r);
        QVERIFY(has(none.diagnostics.formatAll(), "--devices"));
        AnnotateOptions options;
        options.devices = 8;
        AnnotateResult a = annotateModule(*module, r, options);
        QVERIFY(a.meshAdded);
        QVERIFY(has(io::printModule(*module), "sdy.mesh @mesh = <[\"a\"=2, \"b\"=4]>"));
        QVERIFY(has(a.diagnostics.formatAll(),
                    "error: argument 1 of @main ('v'): 'v' matches no pattern of the strict tree_path rule /rules/0"));
        QCOMPARE(a.arguments[0].sharding, std::string("<@mesh, [{\"a\"}, {\"b\"}]>"));
    }
};

QTEST_APPLESS_MAIN(TestAnnotate)
#include "tst_annotate.moc"
