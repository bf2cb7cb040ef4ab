// Tests of rule-based annotation (core/annotate): seed 003's mesh helper, FSDP, tree-path and
// policy rules, each result worked out by hand, malformed rule files, and a module annotated.
#include <QtTest>

#include <string>

#include "core/annotate/HloSharding.h"
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

/// The spec of an mhlo.sharding string on data=2, model=4 for a tensor of `rank`, or the error.
std::string hloSpec(const std::string& text, int rank = 2)
{
    Expected<HloSharding> h = parseHloSharding(text);
    if (!h)
        return "parse error: " + h.error().message;
    const Mesh mesh({MeshAxis{"data", 2}, MeshAxis{"model", 4}});
    Expected<PartitionSpec> spec = hloShardingToSpec(*h, mesh, rank);
    return spec ? partitionSpecText(*spec) : "error: " + spec.error().message;
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
        QCOMPARE(errorOf("{" + kMesh + R"(, "rules": [{"kind": "fdsp"}]})"),
                 std::string("rules.json: error: /rules/0/kind: unknown rule kind \"fdsp\" (expected fsdp, tree_path, "
                             "policy or named)"));
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

    void namedRules()
    {
        // annotations hidden -> P('data', 'fsdp'), logits -> P(None, 'fsdp'). A named rule gives
        // annotation sites their spec and never parameters; the tree_path rule before it gives
        // parameters theirs and never annotation sites.
        RuleSet r = rulesOf("{" + kMesh + R"(, "rules": [
            {"kind": "tree_path", "strict": false, "patterns": [[".", ["data"]]]},
            {"kind": "named", "annotations": {"logits": [null, "fsdp"], "hidden": ["data", "fsdp"]}}]})");
        QCOMPARE(r.rules[1].kind, ShardingRule::Kind::Named);
        QCOMPARE(r.rules[1].named.entries.size(), size_t(2));
        // Sorted by name, as the file's keys are read.
        QCOMPARE(r.rules[1].named.entries[0].pointer, std::string("/rules/1/annotations/hidden"));
        const Mesh mesh({MeshAxis{"data", 2}, MeshAxis{"fsdp", 4}});
        LeafSharding hidden = applyRules(r, mesh, Leaf{"jit(f)/hidden/sharding_constraint", {8, 8}, "f32", "hidden"});
        QCOMPARE(partitionSpecText(hidden.spec), std::string("P('data', 'fsdp')"));
        QCOMPARE(hidden.rule, 1);
        QCOMPARE(hidden.matched, std::string("named rule /rules/1: annotation 'hidden'"));
        LeafSharding logits = applyRules(r, mesh, Leaf{"logits", {8, 8}, "f32", "logits"});
        QCOMPARE(partitionSpecText(logits.spec), std::string("P(None, 'fsdp')"));
        // An annotation no rule names: nothing (rule -1); a parameter named like an annotation:
        // the tree_path rule, not the named one.
        QCOMPARE(applyRules(r, mesh, Leaf{"other", {8, 8}, "f32", "other"}).rule, -1);
        LeafSharding param = applyRules(r, mesh, Leaf{"hidden", {8, 8}, "f32", std::nullopt});
        QCOMPARE(param.rule, 0);
        QCOMPARE(partitionSpecText(param.spec), std::string("P('data')"));
        // The spec must fit the annotated value: 4 shards of a dimension of 6.
        QVERIFY(has(applyRules(r, mesh, Leaf{"l", {8, 6}, "f32", "logits"}).error, "splits dimension 1 of size 6"));
    }

    void malformedNamedRulesGiveJsonPointers()
    {
        QCOMPARE(errorOf("{" + kMesh + R"(, "rules": [{"kind": "named", "annotations": [["h", []]]}]})"),
                 std::string("rules.json: error: /rules/0/annotations: expected an object mapping annotation names to "
                             "specs ({\"hidden\": [\"data\", null]}), got [[\"h\",[]]]"));
        QCOMPARE(errorOf("{" + kMesh + R"(, "rules": [{"kind": "named"}]})"),
                 std::string("rules.json: error: /rules/0: missing \"annotations\""));
        // A key with '/' and '~' is escaped in the pointer (RFC 6901).
        QCOMPARE(errorOf("{" + kMesh + R"(, "rules": [{"kind": "named", "annotations": {"a/b~c": [3]}}]})"),
                 std::string("rules.json: error: /rules/0/annotations/a~1b~0c/0: expected null, an axis name or a "
                             "list of axis names, got 3"));
        QCOMPARE(errorOf("{" + kMesh + R"(, "rules": [{"kind": "named", "annotations": {"h": [null, "x"]}}]})"),
                 std::string("rules.json: error: /rules/0/annotations/h/1: axis \"x\" is not in mesh.axis_names"));
        QCOMPARE(
            errorOf("{" + kMesh + R"(, "rules": [{"kind": "named", "annotations": {}, "strict": true}]})"),
            std::string("rules.json: error: /rules/0/strict: unknown key \"strict\" (expected: kind, annotations)"));
    }

    void annotationNamesOfShardingConstraints()
    {
        // The frontend attribute wins over the loc name; the innermost scope before the op's own
        // name; jit(...) is no scope; a one-part loc name is the name.
        const std::string text = R"(module {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{}, {}]> {mhlo.frontend_attributes = {sharding_annotation = "fa"}} : tensor<8x8xf32> loc("jit(f)/jit(main)/scope/sharding_constraint")
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<8x8xf32> loc("jit(f)/jit(main)/outer/inner/sharding_constraint")
    %2 = sdy.sharding_constraint %1 <@mesh, [{}, {}]> : tensor<8x8xf32> loc("jit(f)/jit(main)/sharding_constraint")
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<8x8xf32> loc("alone")
    %4 = sdy.sharding_constraint %3 <@mesh, [{}, {}]> : tensor<8x8xf32>
    return %4 : tensor<8x8xf32>
  }
})";
        DiagnosticList diags;
        auto module = io::loadModuleText(text, "m.mlir", diags);
        QVERIFY2(module, diags.formatAll().c_str());
        std::vector<std::string> names;
        module->funcs().front()->walk([&](ir::Op* op) {
            if (op->name() == "sdy.sharding_constraint")
                names.push_back(annotationNameOf(*op));
        });
        QCOMPARE(names, (std::vector<std::string>{"fa", "inner", "", "alone", ""}));
    }

    void annotateNamedConstraintsAndExistingShardings()
    {
        // mesh data=2, model=4 (8 partitions). %arg0 x has mhlo.sharding [2,1,4]<=[8] with the last
        // tile dimension replicated: dim 0 in 2 tiles of devices {0..3}, {4..7} = data
        // (device = data*4 + model), P('data'); the rules give it P('data') too: no warning.
        // %arg1 w: [1,4,2]<=[2,4]T(1,0): devices 0,4,1,5,2,6,3,7: dim 1 in 4 tiles over model,
        // data replicating: P(None, 'model'); the rules give P('model'): replaced, with a warning.
        // result 0 ('out' from jax.result_info ['out']) matches '^out$': P('data'). The
        // constraint in scope 'hidden' gets P('data', 'model'), the unnamed one stays.
        const std::string text = R"(module attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func public @main(%arg0: tensor<16x64xf32> {mhlo.sharding = "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"} loc("x"), %arg1: tensor<64x256xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"} loc("params['w']")) -> (tensor<16x256xf32> {jax.result_info = "['out']"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<16x64xf32>, tensor<64x256xf32>) -> tensor<16x256xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x256xf32> loc("jit(f)/jit(main)/hidden/sharding_constraint")
    %2 = sdy.sharding_constraint %1 <@mesh, [{}, {}]> : tensor<16x256xf32> loc("jit(f)/jit(main)/sharding_constraint")
    return %2 : tensor<16x256xf32>
  }
})";
        const std::string rules = R"({"mesh": {"axis_dims": [2, -1], "axis_names": ["data", "model"]}, "rules": [
            {"kind": "named", "annotations": {"hidden": ["data", "model"], "gone": []}},
            {"kind": "tree_path", "patterns": [["^x$", ["data"]], ["w$", ["model"]], ["^out$", ["data"]]]}]})";
        DiagnosticList diags;
        auto module = io::loadModuleText(text, "m.mlir", diags);
        QVERIFY2(module, diags.formatAll().c_str());
        AnnotateResult a = annotateModule(*module, rulesOf(rules));
        QVERIFY2(a.ok(), a.diagnostics.formatAll().c_str());
        const std::string out = printAnnotations(a);
        QVERIFY2(has(out,
                     "@main %arg0 x tensor<16x64xf32>: P('data') <@mesh, [{\"data\"}, {}]> (tree_path rule /rules/1: "
                     "pattern 0 '^x$'); had mhlo.sharding {devices=[2,1,4]<=[8] last_tile_dim_replicate} = "
                     "P('data')"),
                 out.c_str());
        QVERIFY(has(out, "@main result 0 out tensor<16x256xf32>: P('data') <@mesh, [{\"data\"}, {}]>"));
        QVERIFY(has(out, "@main %1 annotation 'hidden' tensor<16x256xf32>: P('data', 'model') <@mesh, [{\"data\"}, "
                         "{\"model\"}]> (named rule /rules/0: annotation 'hidden')"));
        QCOMPARE(a.sites.size(), size_t(1));
        const std::string warnings = a.diagnostics.formatAll();
        QVERIFY2(has(warnings, "warning: argument 1 of @main ('params/w'): the rules replace its mhlo.sharding "
                               "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate} (P(None, 'model')) with "
                               "P('model')"),
                 warnings.c_str());
        QVERIFY(!has(warnings, "argument 0"));
        QVERIFY(has(warnings, "named rule /rules/0/annotations/gone: no sharding constraint of the module is annotated "
                              "'gone'"));
        const std::string printed = io::printModule(*module);
        QVERIFY(!has(printed, "mhlo.sharding"));
        QVERIFY(has(printed, "sdy.sharding_constraint %0 <@mesh, [{\"data\"}, {\"model\"}]>"));
        QVERIFY(has(printed, "sdy.sharding_constraint %1 <@mesh, [{}, {}]>"));

        // --keep-existing: the mhlo.shardings become the sdy.shardings of their specs.
        auto again = io::loadModuleText(text, "m.mlir", diags);
        AnnotateOptions keep;
        keep.keepExisting = true;
        AnnotateResult k = annotateModule(*again, rulesOf(rules), keep);
        QVERIFY(k.ok());
        QVERIFY(k.arguments[1].kept);
        QCOMPARE(k.arguments[1].sharding, std::string("<@mesh, [{}, {\"model\"}]>"));
        QVERIFY(!has(k.diagnostics.formatAll(), "replace"));
    }

    void hloShardingStringsToSpecs()
    {
        // Mesh data=2, model=4: device = data * 4 + model.
        QCOMPARE(hloSpec("{replicated}"), std::string("P()"));
        // Listed devices in mesh order: dim 0 over data, dim 1 over model.
        QCOMPARE(hloSpec("{devices=[2,4]0,1,2,3,4,5,6,7}"), std::string("P('data', 'model')"));
        // 0,4,1,5,...: the first 4 tiles step through model, then data: dim 0 model, dim 1 data.
        QCOMPARE(hloSpec("{devices=[4,2]0,4,1,5,2,6,3,7}"), std::string("P('model', 'data')"));
        // 8 tiles of dim 0 over the iota: data major, model minor; transposed: model major.
        QCOMPARE(hloSpec("{devices=[8,1]<=[8]}"), std::string("P(('data', 'model'))"));
        QCOMPARE(hloSpec("{devices=[8,1]<=[2,4]T(1,0)}"), std::string("P(('model', 'data'))"));
        // The last tile dimension replicates: [1,2,4]<=[8] is dim 1 in 2 tiles over data (the
        // major axis of the iota), model replicating; [1,4,2]<=[2,4]T(1,0) lists 0,4,1,5,...:
        // dim 1 over model, data replicating.
        QCOMPARE(hloSpec("{devices=[1,2,4]<=[8] last_tile_dim_replicate}"), std::string("P(None, 'data')"));
        QCOMPARE(hloSpec("{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dims={replicated}}"),
                 std::string("P(None, 'model')"));
        QCOMPARE(hloSpec("{devices=[2,1,4]<=[8] last_tile_dim_replicate metadata={op_name=\"x\"}}"),
                 std::string("P('data')"));
        // Not a spec: one device, manual, 3 devices, an order no spec gives, a bad rank.
        QVERIFY(has(hloSpec("{maximal device=3}"), "error: all of it on device 3 (maximal)"));
        QVERIFY(has(hloSpec("{manual}"), "error: manual"));
        QVERIFY(has(hloSpec("{devices=[3,1]0,1,2}"), "error: it spans 3 devices"));
        QVERIFY(has(hloSpec("{devices=[2,4]0,2,1,3,4,6,5,7}"), "error: no PartitionSpec on"));
        QVERIFY(has(hloSpec("{devices=[2,4]<=[8]}", 3), "the tile assignment has 2 dimensions for a tensor of rank 3"));
        // Malformed strings.
        QVERIFY(has(hloSpec("{devices=[2,2]0,1,2}"),
                    "parse error: '{devices=[2,2]0,1,2}' at offset 19: 3 devices listed "
                    "for 4 tiles"));
        QVERIFY(has(hloSpec("{{replicated}, {manual}}"), "tuple sharding"));
        QVERIFY(has(hloSpec("{devices=[8]<=[4,2]T(0,0)}", 1), "not a permutation"));
        QVERIFY(has(hloSpec("{devices=[2,4]<=[8] extra}"), "expected '}'"));
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
