// ProgramIds: the names a file gives its values and ops, ids through passes, lookups.
#include <QtTest>

#include <map>

#include "core/io/JsonDocument.h"
#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/ir/Module.h"
#include "core/ir/ProgramIds.h"
#include "core/ir/SsaNames.h"
#include "core/passes/PassRegistry.h"
#include "tests/TestSupport.h"

using namespace shardx;
using testing::has;

namespace {

std::unique_ptr<ir::Module> parse(const std::string& text)
{
    DiagnosticList diags;
    auto m = io::parseMlir(text, "t.mlir", diags);
    if (!m)
        qWarning("%s", diags.formatAll().c_str());
    return m;
}

/// id -> name of every value.
std::map<std::string, std::string> valueNames(const ir::ProgramIds& ids)
{
    std::map<std::string, std::string> out;
    for (const ir::ProgramValue& v : ids.values())
        out[v.id] = v.name;
    return out;
}

std::string find(const ir::ProgramIds& ids, const std::string& query)
{
    Expected<int> v = ids.findValue(query);
    return v ? ids.values()[static_cast<size_t>(*v)].id : "error: " + v.error().message;
}

const char* kNamed = R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%x: tensor<8xf32> loc("inputs/x"), %arg1: tensor<8xf32>) -> (tensor<8xf32>, tensor<ui32>) {
  %cst = stablehlo.constant dense<1.0> : tensor<8xf32> loc("one")
  %sum = stablehlo.add %x, %cst : tensor<8xf32> loc("model/add")
  %pair:2 = stablehlo.optimization_barrier %sum, %arg1 : tensor<8xf32>, tensor<8xf32>
  %state, %bits = stablehlo.rng_bit_generator %c, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<ui32>)
  %c = stablehlo.constant dense<[1, 2]> : tensor<2xui64>
  sdy.sharding_group %sum group_id = 0 : tensor<8xf32>
  sdy.sharding_group %x group_id = 0 : tensor<8xf32>
  return %pair#1, %bits : tensor<8xf32>, tensor<ui32>
}
)";

} // namespace

class TestProgramIds : public QObject {
    Q_OBJECT

private slots:
    void namesAreWhatTheFileWrites()
    {
        // Names the printer would renumber (%x, %sum, %pair) stay as written; groups give #i.
        auto m = parse(kNamed);
        QVERIFY(m);
        const ir::ProgramIds& ids = m->programIds();
        std::map<std::string, std::string> names = valueNames(ids);
        QCOMPARE(names["@main:%x"], std::string("%x"));
        QCOMPARE(names["@main:%arg1"], std::string("%arg1"));
        QCOMPARE(names["@main:%cst"], std::string("%cst"));
        QCOMPARE(names["@main:%sum"], std::string("%sum"));
        QCOMPARE(names["@main:%pair#0"], std::string("%pair#0"));
        QCOMPARE(names["@main:%pair#1"], std::string("%pair#1"));
        QCOMPARE(names["@main:%state"], std::string("%state"));
        QCOMPARE(names["@main:%bits"], std::string("%bits"));
        QCOMPARE(names["@main:result0"], std::string("result 0"));
        QCOMPARE(names["@main:result1"], std::string("result 1"));
        QCOMPARE(names.size(), size_t(11));
        // Ops: by their result list, else by name and number; functions and meshes by symbol.
        std::map<std::string, std::string> ops;
        for (const ir::ProgramOp& o : ids.ops())
            ops[o.id] = o.name + " " + o.opName.str();
        QCOMPARE(ops["@main:%pair"], std::string("%pair:2 stablehlo.optimization_barrier"));
        QCOMPARE(ops["@main:%state"], std::string("%state, %bits stablehlo.rng_bit_generator"));
        QCOMPARE(ops["@main:sdy.sharding_group#0"], std::string("sdy.sharding_group sdy.sharding_group"));
        QCOMPARE(ops["@main:sdy.sharding_group#1"], std::string("sdy.sharding_group sdy.sharding_group"));
        QCOMPARE(ops["@main:func.return#0"], std::string("func.return func.return"));
        QCOMPARE(ops["@main"], std::string("@main func.func"));
        QCOMPARE(ops["@mesh"], std::string("@mesh sdy.mesh"));
        // Scopes of ops and arguments, and the defining op of each result.
        const ir::ProgramValue& sum = ids.values()[static_cast<size_t>(*ids.findValue("@main:%sum"))];
        QCOMPARE(ids.scopeName(sum.scope), std::string("model/add"));
        QCOMPARE(ids.ops()[static_cast<size_t>(sum.op)].opName, std::string("stablehlo.add"));
        QCOMPARE(ids.scopeName(ids.values()[static_cast<size_t>(*ids.findValue("%x"))].scope), std::string("inputs/x"));
        // Every IR object holds its index.
        m->op().walk([&](ir::Op* op) {
            if (op != &m->op())
                QVERIFY(op->programId >= 0);
            for (const auto& r : op->results())
                QVERIFY(r->programId >= 0);
        });
    }

    void printerNamesWhenTheSourceGaveNone()
    {
        // A module without source names (built in memory, or JSON without names) is named as
        // MLIR's printer prints it: %0, %cst, %c, %arg0, %0#1, with nested numbering.
        auto m = parse(R"(func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<8xf32>
  %p:2 = stablehlo.optimization_barrier %a, %one : tensor<8xf32>, tensor<8xf32>
  %w:2 = stablehlo.while(%i = %p#0, %j = %p#1) : tensor<8xf32>, tensor<8xf32>
    cond {
    %k = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %k : tensor<i1>
  } do {
    %n = stablehlo.negate %i : tensor<8xf32>
    stablehlo.return %n, %j : tensor<8xf32>, tensor<8xf32>
  }
  return %w#1 : tensor<8xf32>
}
)");
        QVERIFY(m);
        m->op().walk([](ir::Op* op) {
            for (const auto& r : op->results())
                r->sourceName.clear();
            for (const auto& region : op->regions())
                for (const auto& b : region->blocks())
                    for (const auto& a : b->args())
                        a->sourceName.clear();
        });
        std::map<std::string, std::string> names = valueNames(m->programIds());
        QCOMPARE(names["@main:%arg0"], std::string("%arg0"));
        QCOMPARE(names["@main:%cst"], std::string("%cst"));
        QCOMPARE(names["@main:%0#1"], std::string("%0#1"));
        QCOMPARE(names["@main:%1#0"], std::string("%1#0"));
        QCOMPARE(names["@main:%1/r0/%iterArg"], std::string("%iterArg"));
        QCOMPARE(names["@main:%1/r1/%iterArg_0"], std::string("%iterArg_0"));
        QCOMPARE(names["@main:%1/r1/%2"], std::string("%2"));
        QCOMPARE(names["@main:%1/r0/%c"], std::string("%c"));
        // Each of these names is how the printer refers to the value.
        const ir::SsaNames printed(m->op(), true);
        m->op().walk([&](ir::Op* op) {
            for (const auto& r : op->results())
                QCOMPARE(m->programIds().values()[static_cast<size_t>(r->programId)].name, printed.reference(r.get()));
        });
    }

    void countedNamesAreThePrintersNames()
    {
        // Values the file does not print (a reduce body in its `applies` form) are numbered as
        // MLIR's printer numbers them without running its naming: a nested region continues
        // the counters its parent region has at its end, siblings start from the same ones.
        // Names the file gives stay (%cst, %iterArg); every other name must be the printer's.
        auto m = parse(R"(func.func @main(%a: tensor<8x4xf32>, %b: tensor<f32>) -> (tensor<8xf32>, tensor<4xf32>) {
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
  %1:2 = stablehlo.while(%iterArg = %0, %iterArg_0 = %b) : tensor<8xf32>, tensor<f32>
    cond {
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %5 = stablehlo.reduce(%iterArg init: %iterArg_0) applies stablehlo.maximum across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<8xf32>
    stablehlo.return %6, %5 : tensor<8xf32>, tensor<f32>
  }
  %2 = stablehlo.reduce(%a init: %1#1) applies stablehlo.maximum across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = "stablehlo.reduce"(%a, %b) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = stablehlo.minimum %x, %y : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
  %4 = stablehlo.add %2, %3 : tensor<4xf32>
  return %1#0, %4 : tensor<8xf32>, tensor<4xf32>
}
)");
        QVERIFY(m);
        // Drop the names the counters can give (not those ops ask for, nor a while's).
        m->op().walk([](ir::Op* op) {
            if (!ir::hasAsmResultNameHints(*op))
                for (const auto& r : op->results())
                    r->sourceName.clear();
            for (const auto& region : op->regions())
                if (ir::ssaNumbersEntryArgs(*region))
                    for (const auto& b : region->blocks())
                        for (const auto& a : b->args())
                            a->sourceName.clear();
        });
        const ir::ProgramIds& ids = m->programIds();
        const ir::SsaNames printed(m->op(), true);
        int compared = 0;
        m->op().walk([&](ir::Op* op) {
            for (const auto& r : op->results()) {
                QCOMPARE(ids.values()[static_cast<size_t>(r->programId)].name, printed.reference(r.get()));
                ++compared;
            }
            for (const auto& region : op->regions())
                for (const auto& b : region->blocks())
                    for (const auto& a : b->args()) {
                        QCOMPARE(ids.values()[static_cast<size_t>(a->programId)].name, printed.reference(a.get()));
                        ++compared;
                    }
        });
        QCOMPARE(compared, 28);
        std::map<std::string, std::string> names = valueNames(ids);
        QCOMPARE(names["@main:%0/%arg2"], std::string("%arg2"));       // after @main's %arg0, %arg1
        QCOMPARE(names["@main:%0/%5"], std::string("%5"));             // after @main's %0 ... %4
        QCOMPARE(names["@main:%1/r1/%5/%7"], std::string("%7"));       // after the while body's %5, %6
        QCOMPARE(names["@main:%1/r1/%5/%arg2"], std::string("%arg2")); // a while's are %iterArg
    }

    void siblingRegionsAreQualifiedAndLookupsTiered()
    {
        auto m = parse(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> loc("in")) -> tensor<8xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{?}]>] out_shardings=[<@mesh, [{?}]>] manual_axes={} (%arg1: tensor<8xf32>) {
    %3 = stablehlo.abs %arg1 : tensor<8xf32> loc("block/abs")
    sdy.return %3 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  %1 = sdy.manual_computation(%0) in_shardings=[<@mesh, [{?}]>] out_shardings=[<@mesh, [{?}]>] manual_axes={} (%arg1: tensor<8xf32>) {
    %3 = stablehlo.abs %arg1 : tensor<8xf32> loc("block/abs")
    sdy.return %3 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %1 : tensor<8xf32>
}
func.func @other(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
}
)");
        QVERIFY(m);
        const ir::ProgramIds& ids = m->programIds();
        // Exact ids first, then names (alone or after their function), then scopes.
        QCOMPARE(find(ids, "@main:%0/%3"), std::string("@main:%0/%3"));
        QCOMPARE(find(ids, "@main:%1/%arg1"), std::string("@main:%1/%arg1"));
        QVERIFY(has(find(ids, "%3"), "matches 2 values: @main:%0/%3, @main:%1/%3"));
        QVERIFY(has(find(ids, "%arg0"), "matches 2 values"));
        QCOMPARE(find(ids, "@other:%arg0"), std::string("@other:%arg0"));
        QCOMPARE(find(ids, "@other:arg0"), std::string("@other:%arg0"));
        QCOMPARE(find(ids, "@main:0"), std::string("@main:%0"));
        QCOMPARE(find(ids, "in"), std::string("@main:%arg0"));
        QVERIFY(has(find(ids, "abs"), "matches 2 values"));
        QVERIFY(has(find(ids, ""), "empty value query"));
        const std::string unknown = find(ids, "@other:%9");
        QVERIFY2(has(unknown, "no value '@other:%9'; candidates: @other:result0") && has(unknown, "@other:%arg0"),
                 unknown.c_str());
        // Ops by id, by the head of their result list, by scope.
        Expected<int> op = ids.findOp("%0");
        QVERIFY(op);
        QCOMPARE(ids.ops()[static_cast<size_t>(*op)].opName, std::string("sdy.manual_computation"));
        QVERIFY(ids.findOp("@main:%1/%3"));
    }

    void namesSurviveJsonAndModuleCopies()
    {
        auto m = parse(kNamed);
        QVERIFY(m);
        DiagnosticList diags;
        auto j = io::parseJsonDocument(io::writeJsonDocument(*m), "t.json", diags);
        QVERIFY2(j, diags.formatAll().c_str());
        QCOMPARE(valueNames(j->programIds()), valueNames(m->programIds()));
        // A copy is the same program: the same ids on the same objects.
        std::unique_ptr<ir::Module> copy = m->clone();
        QVERIFY(copy->programIdsIfBuilt());
        QCOMPARE(valueNames(*copy->programIdsIfBuilt()), valueNames(m->programIds()));
        std::vector<int> a, b;
        m->op().walk([&](ir::Op* op) { a.push_back(op->programId); });
        copy->op().walk([&](ir::Op* op) { b.push_back(op->programId); });
        QCOMPARE(a, b);
        QCOMPARE(io::printModule(*copy), io::printModule(*m));
    }

    void textsAreHeldCompactly()
    {
        // Two names per value and op: a ProgramText is one pointer into its store's chunks.
        QCOMPARE(sizeof(ir::ProgramText), sizeof(void*));
        QVERIFY(sizeof(ir::ProgramValue) <= 40);
        QVERIFY(sizeof(ir::ProgramOp) <= 40);
        ir::ProgramTextStore store;
        const ir::ProgramText empty = store.add("");
        const ir::ProgramText shortText = store.add("@main:%5");
        const std::string longText(300, 'x'); // over the one-byte size
        const ir::ProgramText big = store.add(longText);
        const ir::ProgramText huge = store.add(std::string(70000, 'y')); // a chunk of its own
        QVERIFY(empty.empty() && ir::ProgramText().empty());
        QCOMPARE(shortText.view(), std::string_view("@main:%5"));
        QCOMPARE(big.view(), std::string_view(longText));
        QCOMPARE(huge.size(), size_t(70000));
        QCOMPARE(std::string(shortText.data()), std::string("@main:%5")); // NUL-terminated
        // A text equal to one just stored is that one (an op and its result share their id).
        QCOMPARE(store.add("@main:%5").data(), store.add(std::string("@main:%") + "5").data());
        QVERIFY(shortText == "@main:%5" && shortText == std::string("@main:%5") && "@main:%5" == shortText);
        QCOMPARE(shortText + "/r1", std::string("@main:%5/r1"));
        QCOMPARE(shortText.substr(shortText.rfind(':') + 1), std::string("%5"));
        // A copy shares what is stored and stores on its own: both read every text.
        ir::ProgramTextStore copy = store;
        const ir::ProgramText mine = copy.add("@main:%6");
        const ir::ProgramText theirs = store.add("@main:%7");
        for (int i = 0; i < 20000; ++i) // fill several chunks on both sides
            QCOMPARE(copy.add("%" + std::to_string(i)).view(), std::string_view("%" + std::to_string(i)));
        QCOMPARE(mine.view(), std::string_view("@main:%6"));
        QCOMPARE(theirs.view(), std::string_view("@main:%7"));
        QCOMPARE(big.view(), std::string_view(longText));
        QVERIFY(copy.bytes() > store.bytes());
    }

    void insertedOpsAreNamedAfterTheUsersValues()
    {
        // The pipeline splits %cst per use (copies), adds an edge on the while result, and
        // inserts a reshard where the callee's result sharding differs from the call's.
        auto m = parse(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>}) -> tensor<8xf32> {
  %cst = stablehlo.constant dense<1.0> : tensor<8xf32>
  %0 = stablehlo.add %arg0, %cst : tensor<8xf32>
  %1 = stablehlo.multiply %0, %cst : tensor<8xf32>
  %2:2 = stablehlo.while(%i = %1, %j = %cst) : tensor<8xf32>, tensor<8xf32>
    cond {
    %t = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    %n = stablehlo.negate %i : tensor<8xf32>
    stablehlo.return %n, %j : tensor<8xf32>, tensor<8xf32>
  }
  return %2#0 : tensor<8xf32>
}
)");
        QVERIFY(m);
        ir::ProgramIds& ids = m->programIds();
        const size_t before = ids.values().size();
        const PassInfo* pass = findPass("sdy-add-data-flow-edges");
        DiagnosticList diags;
        QVERIFY(pass->run(*m, {}, diags));
        QVERIFY(findPass("sdy-propagation-pipeline"));
        ids.nameAll(*m);
        std::map<std::string, std::string> names = valueNames(ids);
        // Edges on both while results, named after the value they stand for, derived from it.
        QCOMPARE(names["@main:%2#0.edge"], std::string("%2#0.edge"));
        QCOMPARE(names["@main:%2#1.edge"], std::string("%2#1.edge"));
        const ir::ProgramValue& edge = ids.values()[static_cast<size_t>(*ids.findValue("%2#0.edge"))];
        QCOMPARE(ids.values()[static_cast<size_t>(edge.derivedFrom)].id, std::string("@main:%2#0"));
        QCOMPARE(edge.derivation, ir::Derivation::Edge);
        QVERIFY(ids.values().size() > before);

        // Copies of a user op: %cst.copy, %cst.copy2, ... in the same scope.
        auto c = parse(R"(func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %cst = stablehlo.constant dense<1.0> : tensor<8xf32> loc("one")
  %0 = stablehlo.add %arg0, %cst : tensor<8xf32>
  %1 = stablehlo.multiply %0, %cst : tensor<8xf32>
  return %1 : tensor<8xf32>
}
)");
        ir::ProgramIds& cids = c->programIds();
        ir::Op* cst = c->findFunc("main")->region(0).front().ops().front().get();
        for (int k = 0; k < 2; ++k) {
            auto copy = std::make_unique<ir::Op>("stablehlo.constant");
            copy->addResult(cst->result(0)->type());
            copy->props() = cst->props();
            ir::Op* raw = cst->parentBlock()->insertAfter(cst, std::move(copy));
            c->noteDerived(*raw, *cst, ir::Derivation::Copy);
        }
        names = valueNames(cids);
        QCOMPARE(names["@main:%cst.copy"], std::string("%cst.copy"));
        QCOMPARE(names["@main:%cst.copy2"], std::string("%cst.copy2"));
        const ir::ProgramValue& copy = cids.values()[static_cast<size_t>(*cids.findValue("%cst.copy2"))];
        QCOMPARE(cids.scopeName(copy.scope), std::string("one"));
        QCOMPARE(cids.values()[static_cast<size_t>(copy.derivedFrom)].name, std::string("%cst"));

        // An op a pass made without saying what for: named after its first named operand.
        ir::Op* add = std::next(c->findFunc("main")->region(0).front().ops().begin(), 3)->get();
        auto reshard = std::make_unique<ir::Op>("sdy.reshard");
        reshard->addOperand(add->result(0));
        reshard->addResult(add->result(0)->type());
        ir::Op* raw = add->parentBlock()->insertAfter(add, std::move(reshard));
        QCOMPARE(cids.values()[static_cast<size_t>(cids.valueOf(raw->result(0)))].name, std::string("%0.reshard"));
    }

    void replacedOpsKeepTheUsersIdentity()
    {
        // The pipeline turns the call into a named computation and back into a call: %0 stays
        // the call's result throughout, and @callee its function.
        auto m = parse(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>}) -> tensor<8xf32> {
  %0 = func.call @callee(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = stablehlo.negate %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}
func.func private @callee(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.abs %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}
)");
        QVERIFY(m);
        ir::ProgramIds& ids = m->programIds();
        const int call = *ids.findValue("@main:%0");
        const int inner = *ids.findValue("@callee:%0");
        DiagnosticList diags;
        QVERIFY2(findPass("sdy-propagation-pipeline")->run(*m, {}, diags), diags.formatAll().c_str());
        ir::Op* main = m->findFunc("main");
        ir::Op* callOp = main->region(0).front().ops().front().get();
        QCOMPARE(callOp->name(), std::string("func.call"));
        QCOMPARE(callOp->result(0)->programId, call);
        ir::Op* callee = m->findFunc("callee");
        QVERIFY(callee);
        QCOMPARE(ids.ops()[static_cast<size_t>(callee->programId)].id, std::string("@callee"));
        QCOMPARE(callee->region(0).front().ops().front()->result(0)->programId, inner);
        QCOMPARE(callee->region(0).front().arg(0)->programId, *ids.findValue("@callee:%arg0"));
    }
};

QTEST_APPLESS_MAIN(TestProgramIds)
#include "tst_programids.moc"
