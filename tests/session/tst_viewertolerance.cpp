// Viewer tolerance: programs in the shapes real exports have (tt-mlir dumps, JAX exports,
// Enzyme-JAX lit files) open unchanged through the Session, print back as written, propagate
// and explain; --strict keeps MLIR's behaviour.
#include <QtTest>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/session/Session.h"
#include "tests/TestSupport.h"

using namespace shardx;

namespace {

// A tt-mlir style dump: dialect attributes on arguments and the module, frontend attributes, an
// op of a dialect shardx does not know (generic form), location aliases at the end.
const char* kTtStyle =
    R"(module @SyncTensorsGraph.42 attributes {mhlo.cross_program_prefetches = [], mhlo.is_dynamic = false, ttcore.meshes = #ttcore.meshes<[<"mesh" = 1x8>]>} {
  sdy.mesh @mesh = <["_axis_0"=1, "_axis_1"=8]>
  func.func @main(%arg0: tensor<32x4096xbf16> {mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding<@mesh, [{}, {\22_axis_1\22}]>"}, mhlo.sharding = "{devices=[1,8]<=[8]}", sdy.sharding = #sdy.sharding<@mesh, [{"_axis_1"}, {}]>, ttcore.argument_type = #ttcore.argument_type<parameter>, ttcore.shard_status = #ttcore.shard_status<presharded>, ttir.name = "l__self___mlp_gate_proj_weight"} loc("p0.1"), %arg1: tensor<32x4096xbf16> {ttcore.argument_type = #ttcore.argument_type<input>, ttir.name = "args_0"} loc("p1.2")) -> (tensor<32x4096xbf16> {ttcore.shard_status = #ttcore.shard_status<unsharded>}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<32x4096xbf16> loc(#loc3)
    %1 = "ttir.gelu"(%0) {approximate = #ttcore.approx<tanh>} : (tensor<32x4096xbf16>) -> tensor<32x4096xbf16> loc(#loc4)
    %2 = stablehlo.multiply %1, %1 : tensor<32x4096xbf16> loc(#loc5)
    return %2 : tensor<32x4096xbf16> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc3 = loc("add.3")
#loc4 = loc("gelu.4")
#loc5 = loc("multiply.5")
)";

// Custom forms of ops shardx does not know, as Enzyme-JAX lit files and dialect mixes have them:
// one per line, with regions, multi-result, at the top level, and an unknown op of a known
// dialect. `%x` is renamed by the printer, so the kept text must follow.
const char* kCustomForms = R"(sdy.mesh @mesh = <["x"=4]>
llvm.func internal @helper(%arg0: !llvm.ptr<1>) {
  llvm.return
}
func.func @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x16xf32> {
  %x = stablehlo.negate %arg0 : tensor<8x16xf32>
  %1 = enzymexla.kernel_call @helper blocks in(%c, %c, %c) threads in(%c, %c, %c) (%x) {output_operand_aliases = []} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %2:2 = foo.split %1, %x : tensor<8x16xf32>
  %3 = scf.execute_region -> tensor<8x16xf32> {
    %inner = arith.addf %2#0, %2#1 : tensor<8x16xf32>
    scf.yield %inner : tensor<8x16xf32>
  }
  %4 = stablehlo.future_op %3 : tensor<8x16xf32>
  %5 = stablehlo.add %4, %x : tensor<8x16xf32>
  return %5 : tensor<8x16xf32>
}
)";

std::vector<std::string> warnings(const Session& s)
{
    std::vector<std::string> out;
    for (const Diagnostic& d : s.diagnostics().all())
        if (d.severity == Severity::Warning)
            out.push_back(std::to_string(d.pos.line) + ": " + d.message);
    return out;
}

} // namespace

class TestViewerTolerance : public QObject {
    Q_OBJECT

private slots:
    void unknownDialectAttributesAndGenericOpsOpen()
    {
        Session s;
        QVERIFY2(s.openText(kTtStyle, "tt.mlir"), s.diagnostics().formatAll().c_str());
        QVERIFY(!s.diagnostics().hasErrors());
        const std::vector<std::string> w = warnings(s);
        QCOMPARE(w.size(), size_t(1));
        QVERIFY(testing::has(w[0], "5: 'ttir.gelu' is an op shardx does not know"));
        // Printed back with every attribute as written (MLIR sorts dictionaries by name).
        const std::string text = s.text(Session::Format::Mlir, true);
        QVERIFY(testing::has(text, "ttcore.argument_type = #ttcore.argument_type<parameter>"));
        QVERIFY(testing::has(text, "ttcore.meshes = #ttcore.meshes<[<\"mesh\" = 1x8>]>"));
        QVERIFY(testing::has(text, "%1 = \"ttir.gelu\"(%0) {approximate = #ttcore.approx<tanh>}"));
        QVERIFY(testing::has(text, "mhlo.frontend_attributes = {xla.sdy.sharding = "));
    }

    void strictRefusesAsMlirDoes()
    {
        Session s;
        OpenOptions strict;
        strict.strict = true;
        QVERIFY(!s.openText(kTtStyle, "tt.mlir", strict));
        const Diagnostic& d = s.diagnostics().all().front();
        QCOMPARE(d.severity, Severity::Error);
        QCOMPARE(d.pos.line, 1);
        QVERIFY(testing::has(d.message, "unregistered dialect 'ttcore'"));
        // --strict --allow-unregistered-dialect: generic forms are kept, custom forms are not.
        strict.allowUnregisteredDialects = true;
        QVERIFY(s.openText(kTtStyle, "tt.mlir", strict));
        QVERIFY(!s.openText(kCustomForms, "custom.mlir", strict));
        QCOMPARE(s.diagnostics().all().front().pos.line, 2);
        QVERIFY(testing::has(s.diagnostics().all().front().message, "custom op 'llvm.func' is unknown"));
    }

    void customFormsKeptAsWritten()
    {
        Session s;
        QVERIFY2(s.openText(kCustomForms, "custom.mlir"), s.diagnostics().formatAll().c_str());
        const std::vector<std::string> w = warnings(s);
        QCOMPARE(w.size(), size_t(5));
        QVERIFY(testing::has(w[0], "2: 'llvm.func' is an op shardx does not know"));
        QVERIFY(testing::has(w[1], "7: 'enzymexla.kernel_call'"));
        QVERIFY(testing::has(w[2], "8: 'foo.split'"));
        QVERIFY(testing::has(w[3], "9: 'scf.execute_region'"));
        QVERIFY(testing::has(w[4], "13: 'stablehlo.future_op'"));

        const ir::Module& m = *s.sourceModule();
        const ir::Op* main = m.findFunc("main");
        QVERIFY(main);
        std::vector<const ir::Op*> ops;
        for (const auto& op : main->region(0).front().ops())
            ops.push_back(op.get());
        // Operands: the values the text names that are defined here (not %c, nor what the
        // region defines); result types from the trailing signature.
        const ir::Op& call = *ops[1];
        QVERIFY(call.opaqueSyntax());
        QCOMPARE(call.numOperands(), 1u);
        QCOMPARE(call.operand(0), ops[0]->result(0));
        QCOMPARE(call.result(0)->type().toString(), std::string("tensor<8x16xf32>"));
        const ir::Op& split = *ops[2];
        QCOMPARE(split.numOperands(), 2u);
        QCOMPARE(split.numResults(), 2u);
        QCOMPARE(split.result(1)->type().toString(), std::string("tensor<8x16xf32>"));
        const ir::Op& region = *ops[3];
        QCOMPARE(region.numOperands(), 2u); // %2#0 and %2#1, named inside its region
        QCOMPARE(region.operand(1), split.result(1));
        QCOMPARE(region.result(0)->type().toString(), std::string("tensor<8x16xf32>"));
        QCOMPARE(ops[4]->numOperands(), 1u);

        // Printed back unchanged but for the names the printer gives (%x is %0 there).
        const std::string text = s.text(Session::Format::Mlir, true);
        QVERIFY2(testing::has(text, "  llvm.func internal @helper(%arg0: !llvm.ptr<1>) {\n  llvm.return\n}\n"),
                 text.c_str());
        QVERIFY2(testing::has(text, "    %0 = stablehlo.negate %arg0 : tensor<8x16xf32>\n    %1 = "
                                    "enzymexla.kernel_call @helper blocks in(%c, %c, %c) threads in(%c, %c, %c) "
                                    "(%0) {output_operand_aliases = []} : (tensor<8x16xf32>) -> tensor<8x16xf32>\n"
                                    "    %2:2 = foo.split %1, %0 : tensor<8x16xf32>\n"
                                    "    %3 = scf.execute_region -> tensor<8x16xf32> {\n"
                                    "    %inner = arith.addf %2#0, %2#1 : tensor<8x16xf32>\n"
                                    "    scf.yield %inner : tensor<8x16xf32>\n  }\n"
                                    "    %4 = stablehlo.future_op %3 : tensor<8x16xf32>\n"
                                    "    %5 = stablehlo.add %4, %0 : tensor<8x16xf32>\n"),
                 text.c_str());
        // The printed text reads back to the same module.
        Session again;
        QVERIFY2(again.openText(text, "again.mlir"), again.diagnostics().formatAll().c_str());
        QCOMPARE(again.text(Session::Format::Mlir, true), text);
    }

    void keptOpsTravelThroughJson()
    {
        Session s;
        QVERIFY(s.openText(kCustomForms, "custom.mlir"));
        const std::string json = s.text(Session::Format::Json, true);
        QVERIFY(testing::has(json, "\"syntax\""));
        Session fromJson;
        QVERIFY2(fromJson.openText(json, "custom.json"), fromJson.diagnostics().formatAll().c_str());
        QCOMPARE(fromJson.text(Session::Format::Mlir, true), s.text(Session::Format::Mlir, true));
    }

    void propagationStopsAtKeptOpsAndExplainSaysSo()
    {
        Session s;
        QVERIFY(s.openText(kTtStyle, "tt.mlir"));
        PropagationRequest r;
        r.strategy = "aggressive";
        PropagationResult res = s.propagate(r);
        QVERIFY2(res.ok, res.diagnostics.formatAll().c_str());
        // %0 = add takes "_axis_1"... from %arg0; %1 (the unknown gelu) gets nothing; %2 neither.
        Expected<int> v0 = s.findValue("%0");
        Expected<int> v1 = s.findValue("%1");
        Expected<int> v2 = s.findValue("%2");
        QVERIFY(v0 && v1 && v2);
        QVERIFY(s.shardingAt(*v0));
        QCOMPARE(s.shardingAt(*v0)->toString(), std::string("<@mesh, [{\"_axis_1\", ?}, {?}]>"));
        QVERIFY(!s.shardingAt(*v1));
        QVERIFY(!s.shardingAt(*v2));
        // The trace records the skip with its reason.
        bool skipped = false;
        for (const TraceStep& st : s.trace()->steps())
            skipped = skipped || (st.kind == TraceStepKind::Skipped &&
                                  st.note == "no sharding rule: an op shardx does not know, kept as written");
        QVERIFY(skipped);
        Expected<ValueExplanation> e = s.explain(*v1);
        QVERIFY(e);
        QCOMPARE(e->blockedBy.size(), size_t(1));
        QVERIFY2(testing::has(e->blockedBy[0], "%1 = ttir.gelu defines it (result 0) but has no sharding rule (an op "
                                               "shardx does not know, kept as written)"),
                 e->blockedBy[0].c_str());
        const std::string text = explanationText(*e);
        QVERIFY(!testing::has(text, "nothing to explain"));
        // The value feeding it: the op uses it as operand 0, and "_axis_1" stays on it.
        Expected<ValueExplanation> e0 = s.explain(*v0);
        QVERIFY(e0);
        QCOMPARE(e0->blockedBy.size(), size_t(1));
        QVERIFY(testing::has(e0->blockedBy[0], "uses it as operand 0"));
    }

    void customFormsPropagate()
    {
        Session s;
        QVERIFY(s.openText(kCustomForms, "custom.mlir"));
        for (const char* strategy : {"basic", "aggressive", "op-priority", "user-priority", "pipeline"}) {
            PropagationRequest r;
            r.strategy = strategy;
            PropagationResult res = s.propagate(r);
            QVERIFY2(res.ok, (std::string(strategy) + ": " + res.diagnostics.formatAll()).c_str());
            // The kept text survives the pipeline's passes.
            QVERIFY(testing::has(s.text(), "enzymexla.kernel_call @helper blocks in(%c, %c, %c)"));
        }
    }

    void propagatedKeptOpsReadBackWithTolerance()
    {
        // Fuzz finding (fuzz_propagation, an execution-group seed): the interpreter's
        // `check.expect_eq %a, %b : type` is kept as written by a tolerant open, so the propagated
        // text reads back under the same tolerance -- and, as MLIR would, only under it.
        const char* text = R"(sdy.mesh @mesh = <["x"=2]>
func.func @main(%arg0: tensor<2x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = stablehlo.negate %arg0 : tensor<2x4xf32>
  check.expect_eq %0, %arg0 : tensor<2x4xf32>
  return
}
)";
        Session s;
        QVERIFY(s.openText(text, "checks.mlir"));
        QVERIFY(s.propagate(PropagationRequest{}).ok);
        const std::string printed = s.text(Session::Format::Mlir);
        QVERIFY2(testing::has(printed, "check.expect_eq %0, %arg0 : tensor<2x4xf32>"), printed.c_str());
        io::ReadOptions tolerant;
        tolerant.allowUnregisteredDialects = true;
        tolerant.keepUnknownOps = true;
        DiagnosticList diags;
        auto again = io::parseMlir(printed, "propagated.mlir", diags, tolerant);
        QVERIFY2(again, diags.formatAll().c_str());
        QCOMPARE(io::printModule(*again), printed);
        io::ReadOptions strict;
        strict.allowUnregisteredDialects = true;
        DiagnosticList strictDiags;
        QVERIFY(!io::parseMlir(printed, "propagated.mlir", strictDiags, strict));
        QVERIFY(testing::has(strictDiags.formatAll(), "custom op 'check.expect_eq' is unknown"));
    }
};

QTEST_APPLESS_MAIN(TestViewerTolerance)
#include "tst_viewertolerance.moc"
