// Tests of the MLIR text reader on valid input: constructs, large modules and the conformance corpus (errors and
// robustness: tst_mlirreadererrors.cpp).
#include <QtTest/QtTest>

#include <algorithm>
#include <iterator>

#include "core/io/MlirReader.h"
#include "core/ir/Module.h"
#include "core/ir/OpRegistry.h"
#include "tests/io/IoTestSupport.h"
#include "tests/io/LargeModuleText.h"

using namespace shardx;
using namespace shardx::ir;

namespace {

using testing::firstOp;
using testing::parseFail;
using testing::parseOk;

} // namespace

class TestMlirReader : public QObject {
    Q_OBJECT
private slots:
    void implicitAndExplicitModule();
    void funcSignature();
    void jaxExportWithLocations();
    void resourcesAndAliases();
    void genericForm();
    void unregisteredDialect();
    void sdyOps();
    void sdyAttributes();
    void stablehloForms();
    void reduceAndWhile();
    void denseLiterals();
    void types();
    void registry();
    void largeModule();
    void conformanceSplitting();
    void conformanceCorpus();
    void commentsInDialectAttributeBodies();
};

void TestMlirReader::implicitAndExplicitModule()
{
    auto m = parseOk("sdy.mesh @m = <[\"a\"=2]>\nfunc.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                     "  return %arg0 : tensor<8xf32>\n}\n");
    QVERIFY(m);
    QCOMPARE(m->body().ops().size(), size_t(2));
    QVERIFY(m->findMesh("m"));
    QCOMPARE(m->findMesh("m")->axes().size(), size_t(1));
    Op* f = m->findFunc("f");
    QVERIFY(f);
    Op* ret = f->region(0).front().terminator();
    QCOMPARE(ret->name(), std::string("func.return"));
    QCOMPARE(ret->operand(0), f->region(0).front().arg(0));
    QCOMPARE(ret->pos.line, 3);
    QCOMPARE(ret->pos.col, 3);

    auto m2 = parseOk("module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {\n"
                      "  func.func @g() {\n    return\n  }\n}\n");
    QVERIFY(m2);
    QCOMPARE(m2->symName(), std::string("jit_f"));
    const Attribute* np = findAttr(m2->op().attrs(), "mhlo.num_partitions");
    QVERIFY(np && np->as<IntegerAttr>());
    QCOMPARE(np->as<IntegerAttr>()->value, int64_t(8));
    QCOMPARE(np->as<IntegerAttr>()->type, Type::scalar("i32"));
    QVERIFY(m2->findFunc("g"));
}

void TestMlirReader::funcSignature()
{
    auto m = parseOk(
        "sdy.mesh @m = <[\"a\"=2]>\n"
        "func.func public @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{\"a\"}]>}, %arg1: "
        "tensor<4xi32>)"
        " -> (tensor<8xf32> {jax.result_info = \"\"}, tensor<4xi32>) attributes {sdy.original_func_name = \"f\"} {\n"
        "  %0:2 = call @g(%arg0, %arg1) {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}]>, <@m, [{}]>]>} : "
        "(tensor<8xf32>, tensor<4xi32>) -> (tensor<8xf32>, tensor<4xi32>)\n"
        "  return %0#0, %0#1 : tensor<8xf32>, tensor<4xi32>\n}\n"
        "func.func private @g(%a: tensor<8xf32>, %b: tensor<4xi32>) -> (tensor<8xf32>, tensor<4xi32>) {\n"
        "  func.return %a, %b : tensor<8xf32>, tensor<4xi32>\n}\n"
        "func.func nested @decl(tensor<2xf32>) -> tensor<2xf32>\n");
    QVERIFY(m);
    Op* f = m->findFunc("main");
    QVERIFY(f);
    const auto* vis = f->attr("sym_visibility")->as<StringAttr>();
    QCOMPARE(vis->value, std::string("public"));
    Type ft = funcType(*f);
    QCOMPARE(ft.elements().size(), size_t(2));
    QCOMPARE(ft.results().size(), size_t(2));
    QVERIFY(findAttr(f->props(), "arg_attrs"));
    QVERIFY(findAttr(f->props(), "res_attrs"));
    NamedAttrList a0 = funcArgAttrs(*f, 0);
    QVERIFY(findAttr(a0, "sdy.sharding") && findAttr(a0, "sdy.sharding")->as<ShardingAttr>());
    QVERIFY(funcArgAttrs(*f, 1).empty());
    QVERIFY(findAttr(f->attrs(), "sdy.original_func_name"));
    Op* call = firstOp(*m, "func.call");
    QVERIFY(call);
    QCOMPARE(call->attr("callee")->as<SymbolRefAttr>()->path.front(), std::string("g"));
    QCOMPARE(call->numResults(), 2u);
    Op* ret = f->region(0).front().terminator();
    QCOMPARE(ret->operand(1), call->result(1));
    Op* g = m->findFunc("g");
    QVERIFY(!findAttr(g->props(), "arg_attrs"));
    Op* decl = m->findFunc("decl");
    QVERIFY(decl && decl->region(0).empty());
    QCOMPARE(decl->attr("sym_visibility")->as<StringAttr>()->value, std::string("nested"));
}

void TestMlirReader::jaxExportWithLocations()
{
    const std::string text =
        "#loc1 = loc(\"x\")\n"
        "module @jit_f attributes {mhlo.num_partitions = 8 : i32} {\n"
        "  func.func public @main(%arg0: tensor<8xf32> {mhlo.sharding = \"{devices=[2,1]<=[2]}\"} loc(\"x\")) -> "
        "(tensor<8xf32> {jax.result_info = \"\"}) {\n"
        "    %0 = stablehlo.multiply %arg0, %arg0 : tensor<8xf32> loc(#loc3)\n"
        "    %1 = stablehlo.add %0, %0 : tensor<8xf32> loc(fused[#loc1, \"y\"])\n"
        "    %2 = stablehlo.negate %1 : tensor<8xf32> loc(callsite(#loc1 at \"f.py\":3:4))\n"
        "    %3 = stablehlo.abs %2 : tensor<8xf32> loc(unknown)\n"
        "    return %3 : tensor<8xf32> loc(#loc)\n"
        "  } loc(#loc)\n"
        "} loc(#loc)\n"
        "#loc = loc(unknown)\n"
        "#loc2 = loc(\"f.py\":3:4)\n"
        "#loc3 = loc(\"jit(f)/mul\"(#loc2))\n";
    auto m = parseOk(text);
    QVERIFY(m);
    Op* f = m->findFunc("main");
    QVERIFY(f->region(0).front().arg(0)->loc());
    QCOMPARE(f->region(0).front().arg(0)->loc()->as<LocationAttr>()->text, std::string("x"));
    Op* mul = firstOp(*m, "stablehlo.multiply");
    const auto* l = mul->loc->as<LocationAttr>();
    QVERIFY(l);
    QCOMPARE(l->kind, LocationAttr::Kind::Name);
    QCOMPARE(l->text, std::string("jit(f)/mul"));
    QCOMPARE(l->children.size(), size_t(1));
    QCOMPARE(l->children[0]->kind, LocationAttr::Kind::FileLineCol);
    QCOMPARE(l->children[0]->line, int64_t(3));
    QCOMPARE(l->children[0]->col, int64_t(4));
    QCOMPARE(firstOp(*m, "stablehlo.add")->loc->as<LocationAttr>()->kind, LocationAttr::Kind::Fused);
    QCOMPARE(firstOp(*m, "stablehlo.add")->loc->as<LocationAttr>()->children.size(), size_t(2));
    QCOMPARE(firstOp(*m, "stablehlo.negate")->loc->as<LocationAttr>()->kind, LocationAttr::Kind::CallSite);
    QCOMPARE(firstOp(*m, "stablehlo.abs")->loc->as<LocationAttr>()->kind, LocationAttr::Kind::Unknown);
    QCOMPARE(mul->pos.line, 4);
    QCOMPARE(mul->pos.col, 5);
}

void TestMlirReader::resourcesAndAliases()
{
    auto m = parseOk(
        "#sh = #sdy.sharding<@m, [{\"a\"}]>\n"
        "sdy.mesh @m = <[\"a\"=2]>\n"
        "func.func @f(%arg0: tensor<2xf32> {sdy.sharding = #sh}) -> tensor<2xf32> {\n"
        "  %0 = stablehlo.constant dense_resource<blob1> : tensor<2xf32>\n"
        "  return %0 : tensor<2xf32>\n}\n"
        "{-#\n  dialect_resources: {\n    builtin: {\n      blob1: \"0x040000000000803F00000040\"\n    }\n  }\n#-}\n");
    QVERIFY(m);
    QCOMPARE(m->resources.size(), size_t(1));
    QCOMPARE(m->resources.at("blob1"), std::string("0x040000000000803F00000040"));
    Op* c = firstOp(*m, "stablehlo.constant");
    QCOMPARE(c->attr("value")->as<DenseResourceAttr>()->name, std::string("blob1"));
    NamedAttrList a0 = funcArgAttrs(*m->findFunc("f"), 0);
    QVERIFY(findAttr(a0, "sdy.sharding")->as<ShardingAttr>());
}

void TestMlirReader::genericForm()
{
    auto m = parseOk(
        "func.func @f(%arg0: tensor<64xi32>, %arg1: tensor<4x2x3xf32>, %arg2: tensor<4x2x2x1xi32>) -> tensor<64xi32> "
        "{\n"
        "  %0 = \"stablehlo.sort\"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({\n"
        "  ^bb0(%a: tensor<i32> loc(\"a\"), %b: tensor<i32>):\n"
        "    %1 = stablehlo.compare  GT, %a, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "    stablehlo.return %1 : tensor<i1>\n"
        "  }) {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}]>]>} : (tensor<64xi32>) -> tensor<64xi32>\n"
        "  %2 = \"stablehlo.gather\"(%arg1, %arg2) {dimension_numbers = #stablehlo.gather<offset_dims = [3], "
        "collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 3>, indices_are_sorted = false, "
        "slice_sizes = array<i64: 1, 1, 3>} : (tensor<4x2x3xf32>, tensor<4x2x2x1xi32>) -> tensor<4x2x2x3xf32>\n"
        "  %3:2 = \"stablehlo.case\"(%arg0) ({\n    stablehlo.return %arg0, %arg0 : tensor<64xi32>, tensor<64xi32>\n"
        "  }, {\n    stablehlo.return %arg0, %arg0 : tensor<64xi32>, tensor<64xi32>\n"
        "  }) : (tensor<64xi32>) -> (tensor<64xi32>, tensor<64xi32>)\n"
        "  \"func.return\"(%3#1) : (tensor<64xi32>) -> ()\n}\n");
    QVERIFY(m);
    Op* sort = firstOp(*m, "stablehlo.sort");
    QVERIFY(findAttr(sort->props(), "dimension"));
    QVERIFY(findAttr(sort->attrs(), "sdy.sharding"));
    QCOMPARE(sort->region(0).front().numArgs(), 2u);
    QCOMPARE(sort->region(0).front().arg(0)->loc()->as<LocationAttr>()->text, std::string("a"));
    Op* cmp = firstOp(*m, "stablehlo.compare");
    QCOMPARE(cmp->operand(0), sort->region(0).front().arg(0));
    Op* gather = firstOp(*m, "stablehlo.gather");
    // Inherent attributes given in the discardable dictionary move to props.
    QVERIFY(findAttr(gather->props(), "dimension_numbers"));
    QVERIFY(findAttr(gather->props(), "slice_sizes"));
    QVERIFY(gather->attrs().empty());
    const auto* dn = gather->attr("dimension_numbers")->as<OpaqueAttr>();
    QCOMPARE(dn->dialect, std::string("stablehlo"));
    QCOMPARE(dn->mnemonic, std::string("gather"));
    QVERIFY(dn->body.rfind("offset_dims = [3]", 0) == 0);
    const auto* ss = gather->attr("slice_sizes")->as<DenseArrayAttr>();
    QCOMPARE(ss->ints, (std::vector<int64_t>{1, 1, 3}));
    Op* cs = firstOp(*m, "stablehlo.case");
    QCOMPARE(cs->numRegions(), 2u);
    QCOMPARE(cs->numResults(), 2u);
    Op* ret = m->findFunc("f")->region(0).front().terminator();
    QCOMPARE(ret->operand(0), cs->result(1));
}

void TestMlirReader::unregisteredDialect()
{
    const std::string text = "func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n"
                             "  %0 = \"foo.bar\"(%arg0) {x = 1} : (tensor<2xf32>) -> tensor<2xf32>\n"
                             "  return %0 : tensor<2xf32>\n}\n";
    Diagnostic d = parseFail(text);
    QCOMPARE(d.pos.line, 2);
    QCOMPARE(d.pos.col, 3);
    QVERIFY(d.message.find("unregistered operation 'foo.bar' found") != std::string::npos);
    io::ReadOptions opts;
    opts.allowUnregisteredDialects = true;
    auto m = parseOk(text, opts);
    QVERIFY(m);
    QVERIFY(firstOp(*m, "foo.bar"));
}

void TestMlirReader::sdyOps()
{
    auto m = parseOk(
        "sdy.mesh @m = <[\"a\"=2, \"b\"=2]>\n"
        "func.func @f(%arg0: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {\n"
        "  %0 = sdy.sharding_constraint %arg0 <@m, [{\"a\", ?}, {?}]> {sdy.sharding_origin_name = \"c\"} : "
        "tensor<8x8xf32>\n"
        "  %1 = sdy.reshard %0 <@m, [{}, {\"b\"}]> : tensor<8x8xf32>\n"
        "  %2 = sdy.propagation_barrier %1 allowed_direction=FORWARD : tensor<8x8xf32>\n"
        "  sdy.sharding_group %2 group_id=7 : tensor<8x8xf32>\n"
        "  %3 = sdy.data_flow_edge %w sharding=<@m, [{\"a\"}, {}]> : tensor<8x8xf32>\n"
        "  %4 = sdy.func_data_flow_edge %arg0 : tensor<8x8xf32>\n"
        "  %k = sdy.constant dense<0.000000e+00> : tensor<8x8xf32>\n"
        "  %5 = sdy.all_gather [{}, {\"b\"}] %1 out_sharding=<@m, [{}, {}]> : tensor<8x8xf32>\n"
        "  %6 = sdy.all_slice [{\"a\"}, {}] %5 out_sharding=<@m, [{\"a\"}, {}]> : tensor<8x8xf32>\n"
        "  %7 = sdy.all_reduce max {\"b\"} %6 out_sharding=<@m, [{\"a\"}, {}]> : tensor<8x8xf32>\n"
        "  %8 = sdy.reduce_scatter [{}, {\"b\"}] %7 out_sharding=<@m, [{\"a\"}, {\"b\"}]> : tensor<8x8xf32>\n"
        "  %9 = sdy.all_to_all [{\"a\"}: 0->1] %8 out_sharding=<@m, [{}, {\"b\", \"a\"}]> : tensor<8x8xf32>\n"
        "  %10 = sdy.collective_permute %9 out_sharding=<@m, [{}, {\"a\", \"b\"}]> : tensor<8x8xf32>\n"
        "  %11 = sdy.replicated_to_unreduced {\"a\"} %10 out_sharding=<@m, [{}, {}], unreduced={\"a\"}> : "
        "tensor<8x8xf32>\n"
        "  %12 = sdy.sharded_to_unreduced [{\"a\"}, {}] %11 out_sharding=<@m, [{}, {}], unreduced={\"a\"}> : "
        "tensor<8x8xf32>\n"
        "  %13 = sdy.manual_computation(%12) in_shardings=[<@m, [{\"a\"}, {}]>] out_shardings=[<@m, [{\"a\"}, {}]>] "
        "manual_axes={\"a\"} (%arg1: tensor<4x8xf32>) {\n"
        "    sdy.return %arg1 : tensor<4x8xf32>\n"
        "  } : (tensor<8x8xf32>) -> tensor<8x8xf32>\n"
        "  %14 = sdy.named_computation<\"foo\">(%13) out_shardings=[<@m, [{}, {}]>] (%arg1: tensor<8x8xf32>) {\n"
        "    sdy.return %arg1 : tensor<8x8xf32>\n"
        "  } {x = 1} : (tensor<8x8xf32>) -> tensor<8x8xf32>\n"
        "  sdy.manual_computation() in_shardings=[] out_shardings=[] manual_axes={\"a\", \"b\"} () {\n"
        "  } : () -> ()\n"
        "  return %14 : tensor<8x8xf32>\n}\n");
    QVERIFY(m);
    auto prop = [&](const char* op, const char* name) { return firstOp(*m, op)->attr(name); };
    QCOMPARE(prop("sdy.sharding_constraint", "sharding")->as<ShardingAttr>()->sharding.dims.size(), size_t(2));
    QVERIFY(!prop("sdy.sharding_constraint", "sharding")->as<ShardingAttr>()->sharding.dims[0].closed);
    QVERIFY(findAttr(firstOp(*m, "sdy.sharding_constraint")->attrs(), "sdy.sharding_origin_name"));
    QCOMPARE(prop("sdy.propagation_barrier", "allowed_direction")->as<OpaqueAttr>()->body,
             std::string("propagation_direction FORWARD"));
    QCOMPARE(prop("sdy.sharding_group", "group_id")->as<IntegerAttr>()->value, int64_t(7));
    QCOMPARE(firstOp(*m, "sdy.sharding_group")->numResults(), 0u);
    QVERIFY(prop("sdy.data_flow_edge", "sharding")->as<ShardingAttr>());
    QVERIFY(prop("sdy.constant", "value")->as<DenseElementsAttr>()->splat);
    QCOMPARE(prop("sdy.all_gather", "gathering_axes")->as<ListOfAxisRefListsAttr>()->lists.size(), size_t(2));
    QVERIFY(prop("sdy.all_slice", "slicing_axes"));
    QCOMPARE(prop("sdy.all_reduce", "reduction_axes")->as<AxisRefListAttr>()->axes.size(), size_t(1));
    QCOMPARE(prop("sdy.all_reduce", "reduction_kind")->as<OpaqueAttr>()->body, std::string("reduction_kind max"));
    QVERIFY(!prop("sdy.reduce_scatter", "reduction_kind"));
    QVERIFY(prop("sdy.reduce_scatter", "reduce_scatter_axes"));
    const auto& params = prop("sdy.all_to_all", "params")->as<AllToAllParamListAttr>()->params;
    QCOMPARE(params.size(), size_t(1));
    QCOMPARE(params[0].srcDim, int64_t(0));
    QCOMPARE(params[0].tgtDim, int64_t(1));
    QVERIFY(prop("sdy.collective_permute", "out_sharding")->as<ShardingAttr>());
    QCOMPARE(prop("sdy.replicated_to_unreduced", "out_sharding")->as<ShardingAttr>()->sharding.unreduced.size(),
             size_t(1));
    QVERIFY(prop("sdy.sharded_to_unreduced", "axes")->as<ListOfAxisRefListsAttr>());
    Op* mc = firstOp(*m, "sdy.manual_computation");
    QCOMPARE(mc->attr("manual_axes")->as<ManualAxesAttr>()->axes, std::vector<std::string>{"a"});
    QCOMPARE(mc->attr("in_shardings")->as<ShardingPerValueAttr>()->value.shardings.size(), size_t(1));
    QCOMPARE(mc->region(0).front().arg(0)->type(), Type::tensor({4, 8}, "f32"));
    Op* nc = firstOp(*m, "sdy.named_computation");
    QCOMPARE(nc->attr("name")->as<StringAttr>()->value, std::string("foo"));
    QVERIFY(!nc->attr("in_shardings"));
    QVERIFY(findAttr(nc->attrs(), "x"));
    // Empty body gets the implicit terminator.
    Op* empty = nullptr;
    m->op().walk([&](Op* op) {
        if (op->name() == "sdy.manual_computation" && op->numOperands() == 0)
            empty = op;
    });
    QVERIFY(empty);
    QCOMPARE(empty->region(0).front().terminator()->name(), std::string("sdy.return"));
}

void TestMlirReader::sdyAttributes()
{
    DiagnosticList diags;
    AttrPtr a = io::parseAttribute(
        "#sdy.sharding<mesh<[\"x\"=2, \"y\"=4], device_ids=[0, 1, 2, 3, 4, 5, 6, 7]>, [{\"x\":(1)2, ?}p1, {}p0], "
        "unreduced=max{\"y\"}, replicated={\"x\"}>",
        diags);
    QVERIFY2(a, diags.formatAll().c_str());
    const TensorSharding& s = a->as<ShardingAttr>()->sharding;
    QVERIFY(s.mesh.isInline());
    QVERIFY(s.mesh.inlineMesh->deviceIds().empty()); // iota ids dropped
    QCOMPARE(s.dims[0].axes[0], AxisRef("x", 1, 2));
    QCOMPARE(*s.dims[0].priority, int64_t(1));
    QCOMPARE(*s.dims[1].priority, int64_t(0));
    QCOMPARE(s.unreducedKind, ReductionKind::Max);
    QCOMPARE(s.replicated.size(), size_t(1));

    a = io::parseAttribute("#sdy.op_sharding_rule<([i, j], [j, k])->([i, k]) {i=8, j=4, k=8589934592} "
                           "reduction={j} need_replication={i} permutation={k} blocked_propagation={i}, custom>",
                           diags);
    QVERIFY2(a, diags.formatAll().c_str());
    const OpShardingRule& r = a->as<OpShardingRuleAttr>()->rule;
    QCOMPARE(r.factorSizes, (std::vector<int64_t>{8, 4, 8589934592}));
    QCOMPARE(r.operands.size(), size_t(2));
    QCOMPARE(r.reductionFactors, std::vector<int64_t>{1});
    QVERIFY(r.isCustom);
    a = io::parseAttribute("#sdy.op_sharding_rule<([z_8z_9z_10, i])->([])>", diags);
    QVERIFY(a);
    QCOMPARE(a->as<OpShardingRuleAttr>()->rule.operands[0][0], (DimFactors{25, 26, 27}));

    a = io::parseAttribute("#sdy.propagation_edges<[{step-0 = [{\"a\" = result-0 -> [operand-0, operand-1]}]}, "
                           "{step-2 = [{\"b\":(2)2 = operand-0 -> [result-0]}]}]>",
                           diags);
    QVERIFY2(a, diags.formatAll().c_str());
    const auto& e = *a->as<PropagationEdgesAttr>();
    QCOMPARE(e.steps.size(), size_t(2));
    QCOMPARE(e.steps[0].entries[0].targets.size(), size_t(2));
    QVERIFY(e.steps[0].entries[0].source.isResult);
    QCOMPARE(e.steps[1].step, int64_t(2));

    a = io::parseAttribute("#sdy.sharding_per_value<[<@m, []>, #sdy.sharding<@\"odd name\", [{\"a\"}]>]>", diags);
    QVERIFY2(a, diags.formatAll().c_str());
    QCOMPARE(a->as<ShardingPerValueAttr>()->value.shardings[1].mesh.symbol, std::string("odd name"));

    a = io::parseAttribute("#stablehlo<comparison_direction GT>", diags);
    QVERIFY(a);
    QCOMPARE(a->as<OpaqueAttr>()->mnemonic, std::string());
    QCOMPARE(a->as<OpaqueAttr>()->body, std::string("comparison_direction GT"));
    a = io::parseAttribute("{b = 1, a = \"x\\22y\", c, d = [1.5, -2 : i32, 0x7FC00000 : f32], e = @a::@b, f = i32, "
                           "g = array<i1: true, false>, h = array<f32: 1.0>}",
                           diags);
    QVERIFY2(a, diags.formatAll().c_str());
    const auto& d = a->as<DictionaryAttr>()->entries;
    QCOMPARE(d.front().name, std::string("a")); // sorted
    QCOMPARE(d.front().value->as<StringAttr>()->value, std::string("x\"y"));
    QCOMPARE(findAttr(d, "b")->as<IntegerAttr>()->type, Type::scalar("i64"));
    QVERIFY(findAttr(d, "c")->is<UnitAttr>());
    const auto& arr = findAttr(d, "d")->as<ArrayAttr>()->elements;
    QCOMPARE(arr[0]->as<FloatAttr>()->type, Type::scalar("f64"));
    QCOMPARE(arr[1]->as<IntegerAttr>()->value, int64_t(-2));
    QVERIFY(std::isnan(arr[2]->as<FloatAttr>()->value));
    QCOMPARE(findAttr(d, "e")->as<SymbolRefAttr>()->path, (std::vector<std::string>{"a", "b"}));
    QCOMPARE(findAttr(d, "f")->as<TypeAttr>()->type, Type::scalar("i32"));
    QCOMPARE(findAttr(d, "g")->as<DenseArrayAttr>()->ints, (std::vector<int64_t>{1, 0}));
    QCOMPARE(findAttr(d, "h")->as<DenseArrayAttr>()->floats, std::vector<double>{1.0});
}

void TestMlirReader::stablehloForms()
{
    auto m = parseOk(
        "func.func @f(%x: tensor<2x4x4xf32>, %i: tensor<i32>, %p: tensor<4x8xi1>, %a: tensor<4x8xf32>, "
        "%s: tensor<f32>, %c: tensor<8x32x64xcomplex<f32>>, %u: tensor<2xui64>, %t: tuple<tensor<f32>, tensor<i32>>, "
        "%l: tensor<8x16xf32>, %r: tensor<16x8xf32>, %img: tensor<1x8x8x3xf32>, %ker: tensor<3x3x3x16xf32>) {\n"
        "  %0 = stablehlo.iota dim = 1 : tensor<4x8xi32>\n"
        "  %1 = stablehlo.compare  LT, %i, %i, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "  %2 = stablehlo.transpose %x, dims = [2, 1, 0] : (tensor<2x4x4xf32>) -> tensor<4x4x2xf32>\n"
        "  %3 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4x8xf32>\n"
        "  %4 = stablehlo.slice %x [0:2, 1:2, 0:4:2] : (tensor<2x4x4xf32>) -> tensor<2x1x2xf32>\n"
        "  %5 = stablehlo.dynamic_slice %a, %i, %i, sizes = [2, 4] : (tensor<4x8xf32>, tensor<i32>, tensor<i32>) -> "
        "tensor<2x4xf32>\n"
        "  %6 = stablehlo.dynamic_update_slice %a, %5, %i, %i : (tensor<4x8xf32>, tensor<2x4xf32>, tensor<i32>, "
        "tensor<i32>) -> tensor<4x8xf32>\n"
        "  %7 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>\n"
        "  %8 = stablehlo.pad %a, %s, low = [1, 0], high = [1, 0], interior = [0, 1] : (tensor<4x8xf32>, tensor<f32>) "
        "-> tensor<6x15xf32>\n"
        "  %9 = stablehlo.reverse %a, dims = [1] : tensor<4x8xf32>\n"
        "  %10 = stablehlo.dot %l, %r, precision = [DEFAULT, HIGHEST] : (tensor<8x16xf32>, tensor<16x8xf32>) -> "
        "tensor<8x8xf32>\n"
        "  %11 = stablehlo.dot_general %x, %x, batching_dims = [0] x [0], contracting_dims = [2] x [1], "
        "precision = [DEFAULT, DEFAULT] : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>\n"
        "  %12 = stablehlo.custom_call @\"weird target\"(%a) {backend_config = \"\", api_version = 2 : i32, "
        "has_side_effect = true, sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {}]>]>} : (tensor<4x8xf32>) -> "
        "tensor<4x8xf32>\n"
        "  stablehlo.custom_call @mhlo.erf (%a) : (tensor<4x8xf32>) -> ()\n"
        "  %13 = stablehlo.fft %c, type =  FFT, length = [32, 64] : (tensor<8x32x64xcomplex<f32>>) -> "
        "tensor<8x32x64xcomplex<f32>>\n"
        "  %14 = stablehlo.cholesky %a, lower = true : tensor<4x8xf32>\n"
        "  %15 = stablehlo.clamp %s, %a, %s : (tensor<f32>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>\n"
        "  %16 = stablehlo.select %p, %a, %a : tensor<4x8xi1>, tensor<4x8xf32>\n"
        "  %17 = stablehlo.bitcast_convert %u : (tensor<2xui64>) -> tensor<2x2xui32>\n"
        "  %18:2 = stablehlo.rng_bit_generator %u, algorithm =  DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, "
        "tensor<4x8xui32>)\n"
        "  %19 = stablehlo.reduce_precision %a, format = e5m10 : tensor<4x8xf32>\n"
        "  %20:2 = stablehlo.optimization_barrier %a, %i : tensor<4x8xf32>, tensor<i32>\n"
        "  %21 = stablehlo.get_tuple_element %t[1] : (tuple<tensor<f32>, tensor<i32>>) -> tensor<i32>\n"
        "  %22 = stablehlo.tuple %s, %i : tuple<tensor<f32>, tensor<i32>>\n"
        "  %23 = stablehlo.create_token : !stablehlo.token\n"
        "  %24 = stablehlo.after_all %23, %23 : !stablehlo.token\n"
        "  %25 = stablehlo.partition_id : tensor<ui32>\n"
        "  %26 = stablehlo.convert %a : (tensor<4x8xf32>) -> tensor<4x8xi32>\n"
        "  %27 = stablehlo.convolution(%img, %ker) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = "
        "{stride = [2, 2], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} "
        "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> "
        "tensor<1x4x4x16xf32>\n"
        "  %28 = stablehlo.composite \"my.op\" %a {composite_attributes = {k = 1 : i64}, decomposition = @dec} : "
        "(tensor<4x8xf32>) -> tensor<4x8xf32>\n"
        "  %29 = chlo.erf %a : tensor<4x8xf32> -> tensor<4x8xf32>\n"
        "  %cst = stablehlo.constant {foo} dense<1.0> : tensor<f32>\n"
        "  return\n}\n");
    QVERIFY(m);
    auto prop = [&](const char* op, const char* name) {
        Op* o = firstOp(*m, op);
        return o ? o->attr(name) : nullptr;
    };
    auto ints = [&](const char* op, const char* name) { return prop(op, name)->as<DenseArrayAttr>()->ints; };
    QCOMPARE(prop("stablehlo.iota", "iota_dimension")->as<IntegerAttr>()->value, int64_t(1));
    QCOMPARE(prop("stablehlo.compare", "comparison_direction")->as<OpaqueAttr>()->body,
             std::string("comparison_direction LT"));
    QCOMPARE(prop("stablehlo.compare", "compare_type")->as<OpaqueAttr>()->body, std::string("comparison_type SIGNED"));
    QCOMPARE(ints("stablehlo.transpose", "permutation"), (std::vector<int64_t>{2, 1, 0}));
    QVERIFY(ints("stablehlo.broadcast_in_dim", "broadcast_dimensions").empty());
    QCOMPARE(ints("stablehlo.slice", "strides"), (std::vector<int64_t>{1, 1, 2}));
    QCOMPARE(ints("stablehlo.slice", "limit_indices"), (std::vector<int64_t>{2, 2, 4}));
    QCOMPARE(ints("stablehlo.dynamic_slice", "slice_sizes"), (std::vector<int64_t>{2, 4}));
    QCOMPARE(firstOp(*m, "stablehlo.dynamic_update_slice")->numOperands(), 4u);
    QCOMPARE(prop("stablehlo.concatenate", "dimension")->as<IntegerAttr>()->value, int64_t(0));
    QCOMPARE(ints("stablehlo.pad", "interior_padding"), (std::vector<int64_t>{0, 1}));
    QCOMPARE(ints("stablehlo.reverse", "dimensions"), std::vector<int64_t>{1});
    QCOMPARE(prop("stablehlo.dot", "precision_config")->as<ArrayAttr>()->elements[1]->as<OpaqueAttr>()->body,
             std::string("precision HIGHEST"));
    QCOMPARE(prop("stablehlo.dot_general", "dot_dimension_numbers")->as<OpaqueAttr>()->body,
             std::string("lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
                         "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]"));
    Op* cc = firstOp(*m, "stablehlo.custom_call");
    QCOMPARE(cc->attr("call_target_name")->as<StringAttr>()->value, std::string("weird target"));
    QVERIFY(findAttr(cc->props(), "api_version"));
    QVERIFY(findAttr(cc->props(), "has_side_effect"));
    QVERIFY(findAttr(cc->props(), "backend_config"));
    QVERIFY(findAttr(cc->attrs(), "sdy.sharding"));
    QCOMPARE(prop("stablehlo.fft", "fft_type")->as<OpaqueAttr>()->body, std::string("fft_type FFT"));
    QCOMPARE(ints("stablehlo.fft", "fft_length"), (std::vector<int64_t>{32, 64}));
    QVERIFY(prop("stablehlo.cholesky", "lower")->as<BoolAttr>()->value);
    QCOMPARE(firstOp(*m, "stablehlo.clamp")->operand(0)->type(), Type::tensor({}, "f32"));
    QCOMPARE(firstOp(*m, "stablehlo.select")->operand(0)->type(), Type::tensor({4, 8}, "i1"));
    QCOMPARE(firstOp(*m, "stablehlo.rng_bit_generator")->numResults(), 2u);
    QCOMPARE(prop("stablehlo.reduce_precision", "exponent_bits")->as<IntegerAttr>()->value, int64_t(5));
    QCOMPARE(prop("stablehlo.reduce_precision", "mantissa_bits")->as<IntegerAttr>()->value, int64_t(10));
    QCOMPARE(firstOp(*m, "stablehlo.optimization_barrier")->numResults(), 2u);
    QCOMPARE(prop("stablehlo.get_tuple_element", "index")->as<IntegerAttr>()->value, int64_t(1));
    QCOMPARE(firstOp(*m, "stablehlo.tuple")->numOperands(), 2u);
    QVERIFY(firstOp(*m, "stablehlo.create_token")->result(0)->type().isToken());
    QCOMPARE(firstOp(*m, "stablehlo.convert")->result(0)->type(), Type::tensor({4, 8}, "i32"));
    Op* conv = firstOp(*m, "stablehlo.convolution");
    QCOMPARE(conv->attr("dimension_numbers")->as<OpaqueAttr>()->body,
             std::string("[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]"));
    QCOMPARE(conv->attr("window_strides")->as<DenseArrayAttr>()->ints, (std::vector<int64_t>{2, 2}));
    QCOMPARE(conv->attr("padding")->as<DenseElementsAttr>()->type, Type::tensor({2, 2}, "i64"));
    QCOMPARE(conv->attr("window_reversal")->as<DenseArrayAttr>()->elementType, std::string("i1"));
    QVERIFY(findAttr(conv->props(), "feature_group_count"));
    QVERIFY(findAttr(firstOp(*m, "stablehlo.composite")->props(), "decomposition"));
    QCOMPARE(firstOp(*m, "chlo.erf")->result(0)->type(), Type::tensor({4, 8}, "f32"));
    Op* cst = firstOp(*m, "stablehlo.constant");
    QVERIFY(findAttr(cst->attrs(), "foo"));
    QCOMPARE(cst->result(0)->type(), Type::tensor({}, "f32"));
}

void TestMlirReader::reduceAndWhile()
{
    auto m = parseOk("func.func @f(%arg0: tensor<8x8xf32>, %arg1: tensor<8xi32>) -> tensor<8xf32> {\n"
                     "  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
                     "  %c = stablehlo.constant dense<0> : tensor<i32>\n"
                     "  %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : "
                     "(tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>\n"
                     "  %1:2 = stablehlo.reduce(%arg0 init: %cst), (%arg1 init: %c) across dimensions = [0] : "
                     "(tensor<8x8xf32>, tensor<8xi32>, tensor<f32>, tensor<i32>) -> (tensor<8xf32>, tensor<i32>)\n"
                     "    reducer(%arg2: tensor<f32>, %arg4: tensor<f32>) (%arg3: tensor<i32>, %arg5: tensor<i32>)  {\n"
                     "    %5 = stablehlo.add %arg2, %arg4 : tensor<f32>\n"
                     "    %6 = stablehlo.add %arg3, %arg5 : tensor<i32>\n"
                     "    stablehlo.return %5, %6 : tensor<f32>, tensor<i32>\n"
                     "  }\n"
                     "  %2:2 = stablehlo.while(%iterArg = %0, %iterArg_2 = %c) : tensor<8xf32>, tensor<i32> "
                     "attributes {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}]>, <@m, []>]>}\n"
                     "    cond {\n"
                     "    %3 = stablehlo.compare  LT, %iterArg_2, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
                     "    stablehlo.return %3 : tensor<i1>\n"
                     "  } do {\n"
                     "    %3 = stablehlo.negate %iterArg : tensor<8xf32>\n"
                     "    stablehlo.return %3, %iterArg_2 : tensor<8xf32>, tensor<i32>\n"
                     "  }\n"
                     "  return %2#0 : tensor<8xf32>\n}\n");
    QVERIFY(m);
    Op* r = firstOp(*m, "stablehlo.reduce");
    QCOMPARE(r->numOperands(), 2u);
    QCOMPARE(r->attr("dimensions")->as<DenseArrayAttr>()->ints, std::vector<int64_t>{1});
    Block& b = r->region(0).front();
    QCOMPARE(b.numArgs(), 2u);
    QCOMPARE(b.arg(0)->type(), Type::tensor({}, "f32"));
    Op* body = b.ops().front().get();
    QCOMPARE(body->name(), std::string("stablehlo.add"));
    QCOMPARE(body->operand(0), b.arg(0));
    QCOMPARE(body->operand(1), b.arg(1));
    QCOMPARE(b.terminator()->name(), std::string("stablehlo.return"));
    QCOMPARE(b.terminator()->operand(0), body->result(0));
    // Full form: pairs are block args k and k+N.
    Op* r2 = r->nextInBlock();
    QCOMPARE(r2->numOperands(), 4u);
    Block& b2 = r2->region(0).front();
    QCOMPARE(b2.numArgs(), 4u);
    QCOMPARE(b2.arg(1)->type(), Type::tensor({}, "i32"));
    QCOMPARE(b2.arg(2)->type(), Type::tensor({}, "f32"));
    Op* add0 = b2.ops().front().get();
    QCOMPARE(add0->operand(0), b2.arg(0));
    QCOMPARE(add0->operand(1), b2.arg(2));
    Op* w = firstOp(*m, "stablehlo.while");
    QCOMPARE(w->numRegions(), 2u);
    QCOMPARE(w->numResults(), 2u);
    QVERIFY(findAttr(w->attrs(), "sdy.sharding"));
    QCOMPARE(w->region(0).front().numArgs(), 2u);
    QCOMPARE(w->region(1).front().ops().front()->operand(0), w->region(1).front().arg(0));
    Op* cmp = w->region(0).front().ops().front().get();
    QCOMPARE(cmp->operand(1), firstOp(*m, "stablehlo.constant")->nextInBlock()->result(0));
}

void TestMlirReader::denseLiterals()
{
    DiagnosticList diags;
    auto dense = [&](const std::string& text) -> DenseElementsAttr {
        AttrPtr a = io::parseAttribute(text, diags);
        if (!a || !a->as<DenseElementsAttr>()) {
            qWarning("%s: %s", text.c_str(), diags.formatAll().c_str());
            return {};
        }
        return *a->as<DenseElementsAttr>();
    };
    auto d = dense("dense<[[1, 2], [3, -4]]> : tensor<2x2xi32>");
    QCOMPARE(d.data.size(), size_t(16));
    QVERIFY(!d.splat);
    QCOMPARE(d.data[12], uint8_t(0xFC));
    QCOMPARE(d.data[15], uint8_t(0xFF));
    d = dense("dense<1.000000e+00> : tensor<4xf32>");
    QVERIFY(d.splat);
    QCOMPARE(d.data, (std::vector<uint8_t>{0x00, 0x00, 0x80, 0x3F}));
    d = dense("dense<[1.0, 1.0]> : tensor<2xbf16>"); // all-equal literal is stored as a splat
    QVERIFY(d.splat);
    QCOMPARE(d.data, (std::vector<uint8_t>{0x80, 0x3F}));
    d = dense("dense<[1.5, -2.0]> : tensor<2xf16>");
    QCOMPARE(d.data, (std::vector<uint8_t>{0x00, 0x3E, 0x00, 0xC0}));
    d = dense("dense<[true, false]> : tensor<2xi1>");
    QCOMPARE(d.data, (std::vector<uint8_t>{1, 0}));
    d = dense("dense<18446744073709551615> : tensor<ui64>");
    QCOMPARE(d.data, std::vector<uint8_t>(8, 0xFF));
    d = dense("dense<(1.0, 2.0)> : tensor<complex<f32>>");
    QCOMPARE(d.data.size(), size_t(8));
    QCOMPARE(d.data[7], uint8_t(0x40));
    d = dense("dense<\"0x0000803F00000040\"> : tensor<2xf32>");
    QCOMPARE(d.data.size(), size_t(8));
    QVERIFY(!d.splat);
    d = dense("dense<[0x7FC00000, 1.0]> : tensor<2xf32>");
    QCOMPARE(d.data[3], uint8_t(0x7F));
    d = dense("dense<[1.0, 448.0]> : tensor<2xf8E4M3FN>");
    QCOMPARE(d.data, (std::vector<uint8_t>{0x38, 0x7E}));
    d = dense("dense<> : tensor<0xf32>");
    QVERIFY(d.data.empty());
    AttrPtr bad = io::parseAttribute("dense<[1, 2, 3]> : tensor<2xi32>", diags);
    QVERIFY(!bad);
    QVERIFY(diags.formatAll().find("does not match type") != std::string::npos);
    diags.clear();
    QVERIFY(!io::parseAttribute("dense<256> : tensor<ui8>", diags));
    QVERIFY(diags.formatAll().find("out of range") != std::string::npos);
}

void TestMlirReader::types()
{
    DiagnosticList diags;
    Type t;
    QVERIFY(io::parseType("tensor<8x?xf32>", t, diags));
    QCOMPARE(t.rank(), 2);
    QVERIFY(t.isDynamicDim(1));
    QVERIFY(io::parseType("tensor<*xbf16>", t, diags));
    QVERIFY(t.isTensor() && !t.isRankedTensor());
    QVERIFY(io::parseType("tensor<f32>", t, diags));
    QCOMPARE(t.rank(), 0);
    QVERIFY(io::parseType("tensor<0x4xi8>", t, diags));
    QCOMPARE(t.numElements(), int64_t(0));
    QVERIFY(io::parseType("tensor<4xcomplex<f64>>", t, diags));
    QCOMPARE(t.elementType(), std::string("complex<f64>"));
    QVERIFY(io::parseType("tensor<8xf32, #stablehlo.bounds<?>>", t, diags));
    QVERIFY(t.encoding());
    QVERIFY(io::parseType("!stablehlo.token", t, diags));
    QVERIFY(t.isToken());
    QVERIFY(io::parseType("tuple<tensor<8xf32>, !stablehlo.token>", t, diags));
    QCOMPARE(t.elements().size(), size_t(2));
    QVERIFY(io::parseType("(tensor<8xf32>, i32) -> (tensor<8xf32>, tensor<i1>)", t, diags));
    QCOMPARE(t.kind(), Type::Kind::Function);
    QVERIFY(io::parseType("() -> ()", t, diags));
    QVERIFY(io::parseType("!quant.uniform<i8:f32, 1.000000e+00>", t, diags));
    QCOMPARE(t.kind(), Type::Kind::Opaque);
    QVERIFY(io::parseType("tensor<4x!quant.uniform<i8:f32, 2.0:3>>", t, diags));
    QVERIFY(t.elementType().rfind("!quant.uniform<", 0) == 0);
    QVERIFY(!io::parseType("tensor<8xfoo>", t, diags));
    QVERIFY(!io::parseType("tensor<8x16>", t, diags));
}

void TestMlirReader::registry()
{
    const OpRegistry& reg = OpRegistry::instance();
    QVERIFY(reg.lookup("stablehlo.add")->isPure);
    QVERIFY(reg.lookup("func.return")->isTerminator);
    QVERIFY(reg.lookup("sdy.manual_computation")->isolatedFromAbove);
    QVERIFY(!reg.lookup("sdy.sharding_constraint")->isPure);
    QVERIFY(reg.lookup("sdy.reshard")->isPure);
    QVERIFY(reg.isInherent("stablehlo.custom_call", "backend_config"));
    QVERIFY(!reg.isInherent("stablehlo.custom_call", "sdy.sharding"));
    QVERIFY(reg.isRegisteredDialect("chlo"));
    QVERIFY(!reg.isRegisteredDialect("foo"));
    QVERIFY(!reg.lookup("foo.bar"));
}

void TestMlirReader::largeModule()
{
    // 10 MB, one block of about 76k ops: every value still resolves. (Speed: BM_ParseTextMB in bench_core.)
    int adds = 0;
    const std::string text = testing::chainedAddModule(10u * 1024 * 1024, &adds);
    auto m = parseOk(text);
    QVERIFY(m);
    Block& body = m->findFunc("f")->region(0).front();
    QCOMPARE(body.ops().size(), size_t(adds) + 1);
    Op* ret = body.terminator();
    QCOMPARE(ret->operand(0)->definingOp(), std::prev(body.ops().end(), 2)->get());
    Op* last = ret->operand(0)->definingOp();
    QCOMPARE(last->operand(0)->definingOp(), std::prev(body.ops().end(), 3)->get());
    QCOMPARE(last->operand(1), body.arg(0));
    const Attribute* sharding = findAttr(last->attrs(), "sdy.sharding");
    QVERIFY(sharding && sharding->as<ShardingPerValueAttr>());
}

void TestMlirReader::conformanceSplitting()
{
    // split-file: the text before the first marker belongs to no part; parts are numbered from their own line 1.
    const std::string exec = "// RUN: %S/run_sdy_interpreter_test.sh %s %t\n\n//--- part1.mlir\nsdy.mesh @m = "
                             "<[\"x\"=2]>\n//--- part2.mlir\nfunc.func @main() {\n  return\n}\n";
    const std::vector<testing::SplitFilePart> parts = testing::splitFileParts(exec);
    QCOMPARE(parts.size(), size_t(2));
    QCOMPARE(parts[0].name, std::string("part1.mlir"));
    QCOMPARE(parts[0].text, std::string("sdy.mesh @m = <[\"x\"=2]>\n"));
    QCOMPARE(parts[1].name, std::string("part2.mlir"));
    QCOMPARE(parts[1].text, std::string("func.func @main() {\n  return\n}\n"));
    QVERIFY(testing::splitFileParts("func.func @f() {\n}\n").empty());

    // -split-input-file: pieces between `// -----` lines keep the unit's line numbers.
    const std::string split = "a\n// -----\nb\n  // -----\nc\n";
    QCOMPARE(testing::splitInputFile(split), (std::vector<std::string>{"a\n", "\n\nb\n", "\n\n\n\nc\n"}));
    QCOMPARE(testing::splitInputFile("a\n"), (std::vector<std::string>{"a\n"}));

    // part1 allows unregistered dialects as its recipe says, part2 always; without split-input-file no cut.
    testing::ConformanceUnit unit{"u.mlir", "execution", exec + "// -----\n", {}};
    std::vector<testing::UnitPiece> pieces = testing::unitPieces(unit);
    QCOMPARE(pieces.size(), size_t(2));
    QCOMPARE(pieces[0].name, std::string("u.mlir/part1.mlir"));
    QVERIFY(!pieces[0].options.allowUnregisteredDialects);
    QCOMPARE(pieces[1].name, std::string("u.mlir/part2.mlir"));
    QVERIFY(pieces[1].options.allowUnregisteredDialects);
    unit.recipeFlags = {"-sdy-drop-sharding-and-mesh", "-allow-unregistered-dialect"};
    QVERIFY(testing::unitPieces(unit)[0].options.allowUnregisteredDialects);

    // A unit whose RUN line splits: one piece per case, only the second expecting a diagnostic.
    const std::string cases = "// RUN: sdy_opt %s -split-input-file -verify-diagnostics\nsdy.mesh @a = <[\"x\"=2]>\n"
                              "// -----\n// expected-error @+1 {{bad}}\nsdy.mesh @b = <[\"x\"=0]>\n";
    pieces = testing::unitPieces({"v.mlir", "ir", cases, {}});
    QCOMPARE(pieces.size(), size_t(2));
    QVERIFY(!pieces[0].expectsDiagnostics);
    QVERIFY(pieces[1].expectsDiagnostics);
    QVERIFY(!pieces[1].options.allowUnregisteredDialects);
    const std::vector<testing::ExpectedDiagnostic> expected = testing::expectedDiagnostics(pieces[1].text);
    QCOMPARE(expected.size(), size_t(1));
    QCOMPARE(expected[0].line, 5);
    QCOMPARE(expected[0].severity, std::string("error"));
    QCOMPARE(expected[0].message, std::string("bad"));
    QCOMPARE(testing::runLines(cases), (std::vector<std::string>{" sdy_opt %s -split-input-file -verify-diagnostics"}));
}

void TestMlirReader::conformanceCorpus()
{
    const std::vector<testing::ConformanceUnit> units = testing::conformanceUnits();
    if (units.empty())
        QSKIP("../shared/conformance is not present");
    QStringList problems;
    for (const testing::ConformanceUnit& unit : units) {
        if (unit.group != "execution")
            continue;
        const std::vector<testing::SplitFilePart> parts = testing::splitFileParts(unit.text);
        for (const char* name : {"part1.mlir", "part2.mlir"})
            if (std::none_of(parts.begin(), parts.end(),
                             [&](const testing::SplitFilePart& p) { return p.name == name; }))
                problems << QString::fromStdString(unit.file.filename().string() + ": no " + name);
    }
    std::string summary;
    problems += testing::parseConformanceUnits(units, nullptr, &summary);
    qInfo("conformance corpus: %s", summary.c_str());
    for (const QString& s : problems)
        qWarning("%s", qPrintable(s));
    QCOMPARE(problems.size(), qsizetype(0));
}

void TestMlirReader::commentsInDialectAttributeBodies()
{
    // MLIR's lexer skips `//` comments everywhere, also inside `#dialect.mnemonic<...>`: the body keeps
    // no trace of them, and brackets inside them do not count.
    auto m =
        parseOk("func.func @f(%a: tensor<4x2xf32>, %i: tensor<2x1xi64>, %u: tensor<2x2xf32>) -> tensor<4x2xf32> {\n"
                "  %0 = \"stablehlo.scatter\"(%a, %i, %u) ({\n"
                "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
                "    stablehlo.return %y : tensor<f32>\n"
                "  }) {\n"
                "    scatter_dimension_numbers = #stablehlo.scatter<\n"
                "      update_window_dims = [1],\n"
                "      inserted_window_dims = [0], // the row is inserted > (\n"
                "      scatter_dims_to_operand_dims = [0],\n"
                "      index_vector_dim = 1>\n"
                "  } : (tensor<4x2xf32>, tensor<2x1xi64>, tensor<2x2xf32>) -> tensor<4x2xf32>\n"
                "  return %0 : tensor<4x2xf32>\n"
                "}\n");
    QVERIFY(m);
    const auto* dn = firstOp(*m, "stablehlo.scatter")->attr("scatter_dimension_numbers")->as<OpaqueAttr>();
    QVERIFY(dn);
    QCOMPARE(dn->body, std::string("update_window_dims = [1], inserted_window_dims = [0], "
                                   "scatter_dims_to_operand_dims = [0], index_vector_dim = 1"));
}

QTEST_APPLESS_MAIN(TestMlirReader)
#include "tst_mlirreader.moc"
