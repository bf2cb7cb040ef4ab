// Tests of the JSON document format: round trips (samples, conformance units, every attribute kind) and errors.
#include <QtTest>

#include <functional>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/io/JsonAdapters.h"
#include "core/io/JsonDocument.h"
#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/ir/Equivalence.h"
#include "core/ir/Verifier.h"
#include "tests/io/IoTestSupport.h"

using namespace shardx;
using namespace shardx::ir;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using testing::blankComments;
using testing::readFile;
using testing::sharedDir;

/// MLIR -> JSON text -> module; returns an empty string on success, else what went wrong.
std::string jsonRoundTrip(const Module& m1, std::unique_ptr<Module>& m2)
{
    std::string text = io::writeJsonDocument(m1);
    DiagnosticList diags;
    m2 = io::parseJsonDocument(text, "doc.json", diags);
    if (!m2 || diags.hasErrors())
        return "JSON does not read back: " + diags.formatAll();
    io::PrintOptions debug;
    debug.printDebugInfo = true;
    if (io::printModule(*m2) != io::printModule(m1))
        return "printed module differs after the JSON round trip";
    if (io::printModule(*m2, debug) != io::printModule(m1, debug))
        return "printed module (with locations) differs after the JSON round trip";
    std::string why;
    if (!modulesEquivalent(m1, *m2, &why))
        return "modules differ: " + why;
    if (io::writeJsonDocument(*m2) != text)
        return "JSON is not stable";
    return {};
}

/// A small valid document: a mesh, a func with one sharded argument and an add.
json baseDocument()
{
    return json::parse(R"({
      "format": "shardx", "version": 1,
      "module": {
        "body": {"ops": [
          {"name": "sdy.mesh",
           "props": {"mesh": {"kind": "mesh", "axes": [{"name": "a", "size": 2}]},
                     "sym_name": {"kind": "string", "value": "m"}}},
          {"name": "func.func",
           "props": {"sym_name": {"kind": "string", "value": "main"},
                     "function_type": {"kind": "type", "type": {"kind": "function",
                        "inputs": [{"kind": "tensor", "shape": [8], "element": "f32"}],
                        "results": [{"kind": "tensor", "shape": [8], "element": "f32"}]}}},
           "regions": [{"blocks": [{"args": [{"id": 0, "type": {"kind": "tensor", "shape": [8], "element": "f32"}}],
             "ops": [
               {"name": "stablehlo.add", "operands": [0, 0],
                "results": [{"id": 1, "type": {"kind": "tensor", "shape": [8], "element": "f32"}}],
                "attrs": {"sdy.sharding": {"kind": "sharding_per_value", "shardings": [
                   {"mesh": {"symbol": "m"}, "dims": [{"axes": [{"name": "a"}], "closed": true}]}]}},
                "loc": {"kind": "name", "name": "jit(f)/add"}},
               {"name": "func.return", "operands": [1]}
             ]}]}]}
        ]}
      }
    })");
}

/// Reads `doc` and returns the single error message (empty if it read fine).
QString readError(const json& doc)
{
    DiagnosticList diags;
    auto m = io::moduleFromJson(doc, "bad.json", diags);
    if (m && !diags.hasErrors())
        return {};
    return QString::fromStdString(diags.formatAll()).trimmed();
}

AttrPtr loc(LocationAttr l) { return makeAttr(std::move(l)); }

} // namespace

class TestJsonDocument : public QObject {
    Q_OBJECT

private slots:
    void baseDocumentReads()
    {
        DiagnosticList diags;
        auto m = io::moduleFromJson(baseDocument(), "base.json", diags);
        QVERIFY2(m, qPrintable(QString::fromStdString(diags.formatAll())));
        QCOMPARE(m->meshes().size(), size_t(1));
        QVERIFY(m->findMesh("m"));
        Op* f = m->findFunc("main");
        QVERIFY(f);
        Op* add = f->region(0).front().ops().front().get();
        QCOMPARE(add->name(), std::string("stablehlo.add"));
        QCOMPARE(add->operand(0), f->region(0).front().arg(0));
        QCOMPARE(f->region(0).front().arg(0)->uses().size(), size_t(2));
        QVERIFY(add->loc && add->loc->as<LocationAttr>());
        QCOMPARE(add->loc->as<LocationAttr>()->text, std::string("jit(f)/add"));
        QCOMPARE(f->region(0).front().terminator()->operand(0), add->result(0));
    }

    void everyAttributeKindRoundTrips()
    {
        Module m;
        Op* op = m.body().push_back(std::make_unique<Op>("test.everything"));
        Mesh mesh({{"a", 2}, {"b", 4}}, {});
        Mesh withIds({{"a", 2}}, {1, 0});
        TensorSharding s;
        s.mesh.symbol = "m";
        s.dims = {DimSharding{{AxisRef("a"), AxisRef("b", 1, 2)}, false, 2}, DimSharding{{}, true, std::nullopt}};
        s.replicated = {AxisRef("b", 2, 2)};
        s.unreduced = {};
        TensorSharding inlineS;
        inlineS.mesh.inlineMesh = withIds;
        inlineS.dims = {DimSharding{{}, false, 0}};
        inlineS.unreduced = {AxisRef("a")};
        inlineS.unreducedKind = ReductionKind::Max;
        OpShardingRule rule;
        rule.factorSizes = {8, 16, 32};
        rule.operands = {{{0}, {2}}, {{2}, {1}}};
        rule.results = {{{0}, {1}}};
        rule.reductionFactors = {2};
        rule.needReplicationFactors = {1};
        rule.isCustom = true;
        DenseElementsAttr dense{Type::tensor({2}, "f32"), false, {0, 0, 128, 63, 0, 0, 0, 64}, {}};
        DenseArrayAttr darr{"f32", {}, {1.5, -0.0, std::numeric_limits<double>::infinity()}};
        auto location = [](LocationAttr::Kind kind, std::string text, uint32_t line, uint32_t col,
                           std::vector<std::shared_ptr<const LocationAttr>> children, AttrPtr metadata) {
            LocationAttr l;
            l.kind = kind;
            l.text = std::move(text);
            l.line = line;
            l.col = col;
            l.children = std::move(children);
            l.metadata = std::move(metadata);
            return l;
        };
        LocationAttr file = location(LocationAttr::Kind::FileLineCol, "a.py", 3, 7, {}, nullptr);
        LocationAttr name =
            location(LocationAttr::Kind::Name, "jit(f)/dot", 0, 0, {std::make_shared<LocationAttr>(file)}, nullptr);
        LocationAttr call =
            location(LocationAttr::Kind::CallSite, "", 0, 0,
                     {std::make_shared<LocationAttr>(name), std::make_shared<LocationAttr>(file)}, nullptr);
        LocationAttr fused = location(LocationAttr::Kind::Fused, "", 0, 0, {std::make_shared<LocationAttr>(call)},
                                      makeAttr(StringAttr{"meta"}));
        PropagationEdgesAttr edges{{PropagationEdgeStep{
            0, {PropagationEdgeEntry{AxisRef("a"), EdgeNode{false, 1}, {EdgeNode{true, 0}, EdgeNode{true, 2}}}}}}};
        Type tensorEnc = Type::tensor({Type::kDynamic, 4}, "bf16");
        tensorEnc.setEncoding(makeAttr(OpaqueAttr{"sparse", "", "x"}));

        NamedAttrList attrs;
        setAttr(attrs, "unit", makeAttr(UnitAttr{}));
        setAttr(attrs, "bool", makeAttr(BoolAttr{true}));
        setAttr(attrs, "int", makeAttr(IntegerAttr{-5, Type::scalar("i64")}));
        setAttr(attrs, "uint", makeAttr(IntegerAttr{-1, Type::scalar("ui64")}));
        setAttr(attrs, "float", makeAttr(FloatAttr{0.1, Type::scalar("f32")}));
        setAttr(attrs, "nan", makeAttr(FloatAttr{std::numeric_limits<double>::quiet_NaN(), Type::scalar("f32")}));
        setAttr(attrs, "str", makeAttr(StringAttr{"quote\" and \xff byte"}));
        setAttr(attrs, "type",
                makeAttr(TypeAttr{Type::tuple({tensorEnc, Type::token(), Type::unrankedTensor("i1"),
                                               Type::opaque("!quant.uniform<i8:f32, 1.0>"),
                                               Type::function({Type::scalar("index")}, {})})}));
        setAttr(attrs, "sym", makeAttr(SymbolRefAttr{{"root", "nested"}}));
        setAttr(attrs, "array", makeAttr(ArrayAttr{{makeAttr(UnitAttr{}), makeAttr(StringAttr{"x"})}}));
        setAttr(attrs, "darr_i", makeAttr(DenseArrayAttr{"i64", {1, -2, 3}, {}}));
        setAttr(attrs, "darr_f", makeAttr(darr));
        setAttr(attrs, "dense", makeAttr(dense));
        setAttr(attrs, "dense_str",
                makeAttr(DenseElementsAttr{Type::tensor({2}, "!tf.string"), false, {}, {"ab", "c\n"}}));
        setAttr(attrs, "resource", makeAttr(DenseResourceAttr{"blob1", Type::tensor({4}, "i32")}));
        setAttr(attrs, "dict", makeAttr(DictionaryAttr{{{"k", makeAttr(BoolAttr{false})}}}));
        setAttr(attrs, "opaque", makeAttr(OpaqueAttr{"stablehlo", "gather", "offset_dims = [1]"}));
        setAttr(attrs, "mesh", makeAttr(MeshAttr{mesh}));
        setAttr(attrs, "mesh_ids", makeAttr(MeshAttr{withIds}));
        setAttr(attrs, "mesh_maximal", makeAttr(MeshAttr{Mesh({}, {3})}));
        setAttr(attrs, "sharding", makeAttr(ShardingAttr{s}));
        setAttr(attrs, "per_value", makeAttr(ShardingPerValueAttr{ShardingPerValue{{s, inlineS}}}));
        setAttr(attrs, "rule", makeAttr(OpShardingRuleAttr{rule}));
        setAttr(attrs, "manual", makeAttr(ManualAxesAttr{{"a", "b"}}));
        setAttr(attrs, "axes", makeAttr(AxisRefListAttr{{AxisRef("a"), AxisRef("b", 2, 2)}}));
        setAttr(attrs, "axes_lists", makeAttr(ListOfAxisRefListsAttr{{{AxisRef("a")}, {}}}));
        setAttr(attrs, "a2a", makeAttr(AllToAllParamListAttr{{AllToAllParam{{AxisRef("b")}, 0, 1}}}));
        setAttr(attrs, "edges", makeAttr(edges));
        setAttr(attrs, "location", loc(fused));
        setAttr(attrs, "weird/key~", makeAttr(UnitAttr{}));
        op->attrs() = attrs;
        op->setProp("prop", makeAttr(IntegerAttr{7, Type::scalar("i32")}));
        op->loc = loc(call);
        Value* r = op->addResult(tensorEnc);
        // A region with two blocks, a forward use and a successor.
        Op* holder = m.body().push_back(std::make_unique<Op>("test.cfg"));
        Region* region = holder->addRegion();
        Block* b0 = region->addBlock();
        Block* b1 = region->addBlock();
        Value* arg = b1->addArgument(Type::tensor({}, "i32"));
        arg->setLoc(loc(name));
        Op* br = b0->push_back(std::make_unique<Op>("test.br"));
        br->addSuccessor(b1);
        Op* late = b1->push_back(std::make_unique<Op>("test.use"));
        late->addOperand(arg);
        late->addOperand(r);
        Value* lateResult = late->addResult(Type::tensor({}, "i32"));
        br->addOperand(lateResult); // used before its definition in block order
        m.resources["blob1"] = "0x04000000DEADBEEF";
        m.op().setProp("sym_name", makeAttr(StringAttr{"everything"}));

        DiagnosticList diags;
        std::string text = io::writeJsonDocument(m);
        auto back = io::parseJsonDocument(text, "all.json", diags);
        QVERIFY2(back, qPrintable(QString::fromStdString(diags.formatAll())));
        const Op& op2 = *back->body().ops().front();
        QCOMPARE(op2.attrs().size(), attrs.size());
        for (size_t i = 0; i < attrs.size(); ++i) {
            QCOMPARE(op2.attrs()[i].name, attrs[i].name);
            if (attrs[i].name == "nan") {
                const FloatAttr* f = op2.attrs()[i].value->as<FloatAttr>();
                QVERIFY(f && std::isnan(f->value));
                continue;
            }
            QVERIFY2(attrEquals(op2.attrs()[i].value, attrs[i].value), attrs[i].name.c_str());
        }
        QVERIFY(attrEquals(op2.loc, op->loc));
        QCOMPARE(op2.result(0)->type(), tensorEnc);
        QCOMPARE(back->resources, m.resources);
        QCOMPARE(back->symName(), std::string("everything"));
        const Op& holder2 = *back->body().ops().back();
        Block* nb0 = holder2.region(0).blocks()[0].get();
        Block* nb1 = holder2.region(0).blocks()[1].get();
        Op* nbr = nb0->ops().front().get();
        Op* nlate = nb1->ops().front().get();
        QCOMPARE(nbr->successors().size(), size_t(1));
        QCOMPARE(nbr->successors()[0], nb1);
        QCOMPARE(nbr->operand(0), nlate->result(0));
        QCOMPARE(nlate->operand(0), nb1->arg(0));
        QCOMPARE(nlate->operand(1), op2.result(0));
        QVERIFY(attrEquals(nb1->arg(0)->loc(), arg->loc()));
        // (modulesEquivalent expects definitions before uses, so the wiring is checked above.)
        // The writer is deterministic.
        QCOMPARE(io::writeJsonDocument(*back), text);
    }

    void shardingJsonIsStructured()
    {
        json j = baseDocument();
        DiagnosticList diags;
        auto m = io::moduleFromJson(j, "base.json", diags);
        QVERIFY(m);
        json out = io::moduleToJson(*m);
        QCOMPARE(out.at("format"), json("shardx"));
        QCOMPARE(out.at("version"), json(1));
        const json& sh = out.at("/module/body/ops/1/regions/0/blocks/0/ops/0/attrs/sdy.sharding"_json_pointer);
        QCOMPARE(sh.at("kind"), json("sharding_per_value"));
        QCOMPARE(sh.at("/shardings/0/mesh/symbol"_json_pointer), json("m"));
        QCOMPARE(sh.at("/shardings/0/dims/0/axes/0/name"_json_pointer), json("a"));
        QCOMPARE(out.at("/module/meshes/0/name"_json_pointer), json("m"));
        QCOMPARE(out.at("/module/meshes/0/axes/0/size"_json_pointer), json(2));
    }

    void samplesRoundTrip()
    {
        fs::path dir = fs::path(SHARDX_SOURCE_DIR) / "samples";
        int count = 0;
        for (const auto& e : fs::directory_iterator(dir)) {
            if (e.path().extension() != ".mlir")
                continue;
            DiagnosticList diags;
            auto m1 = io::parseMlir(readFile(e.path()), e.path().filename().string(), diags);
            QVERIFY2(m1, qPrintable(QString::fromStdString(diags.formatAll())));
            std::unique_ptr<Module> m2;
            std::string problem = jsonRoundTrip(*m1, m2);
            QVERIFY2(problem.empty(),
                     qPrintable(QString::fromStdString(e.path().filename().string() + ": " + problem)));
            ++count;
        }
        QVERIFY(count >= 3);
    }

    /// Every piece of every shared unit that parses (every group, not only ir/: propagation units carry rules,
    /// origins and edges) goes through JSON unchanged; every piece that expects no diagnostic parses, and each
    /// group keeps its floor of parsed units.
    void conformanceUnitsRoundTrip()
    {
        const std::vector<testing::ConformanceUnit> units = testing::conformanceUnits();
        if (units.empty())
            QSKIP("../shared/conformance is not present");
        int roundTrips = 0;
        QStringList failures;
        std::string summary;
        const QStringList parseProblems = testing::parseConformanceUnits(
            units,
            [&](const testing::UnitPiece& piece, Module& m1) {
                ++roundTrips;
                std::unique_ptr<Module> m2;
                std::string problem = jsonRoundTrip(m1, m2);
                if (!problem.empty())
                    failures << QString::fromStdString(piece.name + ": " + problem);
            },
            &summary);
        qInfo("%s; %d pieces went through JSON", summary.c_str(), roundTrips);
        for (const QString& p : parseProblems)
            qWarning("%s", qPrintable(p));
        for (int i = 0; i < std::min<qsizetype>(failures.size(), 10); ++i)
            qWarning("%s", qPrintable(failures[i]));
        QCOMPARE(parseProblems.size(), qsizetype(0));
        QCOMPARE(failures.size(), qsizetype(0));
    }

    void malformedDocuments_data()
    {
        QTest::addColumn<QString>("pointer");  // where to change the base document ("" = none)
        QTest::addColumn<QString>("value");    // the JSON put there ("DELETE" removes it)
        QTest::addColumn<QString>("expected"); // a part of the message

        QTest::newRow("format") << "/format"
                                << "\"onnx\""
                                << "bad.json: error: /format: unknown document format \"onnx\"";
        QTest::newRow("newer version") << "/version"
                                       << "2"
                                       << "/version: document version 2 is newer than this shardx reads (1)";
        QTest::newRow("no module") << "/module"
                                   << "DELETE"
                                   << "/: expected an object with \"module\"";
        QTest::newRow("no body") << "/module/body"
                                 << "DELETE"
                                 << "/module: expected an object with \"body\"";
        QTest::newRow("ops not array") << "/module/body/ops"
                                       << "{}"
                                       << "/module/body/ops: expected an array, got object";
        QTest::newRow("op without name") << "/module/body/ops/0/name"
                                         << "DELETE"
                                         << "/module/body/ops/0: expected an object with \"name\"";
        QTest::newRow("axis without name")
            << "/module/body/ops/1/regions/0/blocks/0/ops/0/attrs/sdy.sharding/shardings/0/dims/0/axes/0"
            << "{\"nam\": \"a\"}"
            << "/module/body/ops/1/regions/0/blocks/0/ops/0/attrs/sdy.sharding/shardings/0/dims/0/axes/0: expected "
               "an object with \"name\"";
        QTest::newRow("sub-axis without size")
            << "/module/body/ops/1/regions/0/blocks/0/ops/0/attrs/sdy.sharding/shardings/0/dims/0/axes/0"
            << "{\"name\": \"a\", \"pre\": 1}"
            << "/shardings/0/dims/0/axes/0: expected an object with \"size\"";
        QTest::newRow("closed not bool")
            << "/module/body/ops/1/regions/0/blocks/0/ops/0/attrs/sdy.sharding/shardings/0/dims/0/closed"
            << "1"
            << "/shardings/0/dims/0/closed: expected true or false, got integer";
        QTest::newRow("mesh size string")
            << "/module/body/ops/0/props/mesh/axes/0/size"
            << "\"2\""
            << "/module/body/ops/0/props/mesh/axes/0/size: expected an integer, got string";
        QTest::newRow("unknown value id")
            << "/module/body/ops/1/regions/0/blocks/0/ops/1/operands/0"
            << "7"
            << "/module/body/ops/1/regions/0/blocks/0/ops/1/operands/0: unknown value id 7";
        QTest::newRow("duplicate value id")
            << "/module/body/ops/1/regions/0/blocks/0/ops/0/results/0/id"
            << "0"
            << "/module/body/ops/1/regions/0/blocks/0/ops/0/results/0/id: duplicate value id 0";
        QTest::newRow("bad shape")
            << "/module/body/ops/1/regions/0/blocks/0/args/0/type/shape/0"
            << "-3"
            << "/module/body/ops/1/regions/0/blocks/0/args/0/type/shape/0: expected a dimension size";
        QTest::newRow("unknown attribute kind")
            << "/module/body/ops/0/props/sym_name/kind"
            << "\"strng\""
            << "/module/body/ops/0/props/sym_name: unknown attribute kind \"strng\"";
        QTest::newRow("unknown type kind")
            << "/module/body/ops/1/props/function_type/type/inputs/0/kind"
            << "\"vector\""
            << "/module/body/ops/1/props/function_type/type/inputs/0/kind: unknown type kind";
        // What the MLIR reader would not read back is refused (a verified `f31` tensor printed as unreadable text).
        QTest::newRow("unknown element type")
            << "/module/body/ops/1/props/function_type/type/inputs/0/element"
            << "\"f31\""
            << "/module/body/ops/1/props/function_type/type/inputs/0/element: expected an element type as MLIR "
               "spells it, got \"f31\"";
        QTest::newRow("element type spelled otherwise")
            << "/module/body/ops/1/regions/0/blocks/0/args/0/type/element"
            << "\"complex< f32>\""
            << "/module/body/ops/1/regions/0/blocks/0/args/0/type/element: expected an element type as MLIR spells "
               "it, got \"complex< f32>\"";
        QTest::newRow("unknown scalar type")
            << "/module/body/ops/1/regions/0/blocks/0/args/0/type"
            << R"({"kind": "scalar", "name": "!foo.bar"})"
            << "/module/body/ops/1/regions/0/blocks/0/args/0/type/name: expected a scalar type as MLIR spells it, "
               "got \"!foo.bar\"";
        QTest::newRow("opaque type that is not")
            << "/module/body/ops/1/regions/0/blocks/0/args/0/type"
            << R"({"kind": "opaque", "spelling": "f32"})"
            << "/module/body/ops/1/regions/0/blocks/0/args/0/type/spelling: expected an opaque type as MLIR spells it";
        QTest::newRow("element count overflow")
            << "/module/body/ops/1/regions/0/blocks/0/args/0/type/shape"
            << "[1099511627776, 1099511627776, 4]"
            << "/module/body/ops/1/regions/0/blocks/0/args/0/type/shape: tensor type has more elements than fit";
        QTest::newRow("bad location")
            << "/module/body/ops/1/regions/0/blocks/0/ops/0/loc"
            << "{\"kind\": \"name\"}"
            << "/module/body/ops/1/regions/0/blocks/0/ops/0/loc: expected an object with \"name\"";
        QTest::newRow("bad hex") << "/module/body/ops/0/attrs"
                                 << R"({"d": {"kind": "dense", "type": null, "splat": true, "data": "0G"}})"
                                 << "/module/body/ops/0/attrs/d/data: expected hex digits";
        // Dense data is one element (a splat) or one per element, as in MLIR text: 8 bytes for 2^40 f32 elements
        // printed as hex that did not read back.
        QTest::newRow("dense data short of its type")
            << "/module/body/ops/0/attrs"
            << R"({"d": {"kind": "dense", "type": {"kind": "tensor", "shape": [1048576, 1048576], "element": "f32"},
                         "splat": false, "data": "0000803F0000803F"}})"
            << "/module/body/ops/0/attrs/d/data: 8 bytes of f32 data for 1099511627776 elements (expected 4 for a "
               "splat or 4398046511104)";
        QTest::newRow("dense splat of two elements")
            << "/module/body/ops/0/attrs"
            << R"({"d": {"kind": "dense", "type": {"kind": "tensor", "shape": [2], "element": "complex<f32>"},
                         "splat": true, "data": "0000803F0000803F0000803F0000803F"}})"
            << "/module/body/ops/0/attrs/d/data: 16 bytes of complex<f32> data for 2 elements (expected 8 for a splat)";
        QTest::newRow("rule factor not an integer")
            << "/module/body/ops/0/attrs"
            << R"({"r": {"kind": "op_sharding_rule", "factors": [{"name": "i", "size": 8}], "operands": [[[0]]], "results": [[["i"]]]}})"
            << "/module/body/ops/0/attrs/r/results/0/0/0: expected an integer, got string";
        QTest::newRow("unknown reduction")
            << "/module/body/ops/1/regions/0/blocks/0/ops/0/attrs/sdy.sharding/shardings/0"
            << R"({"mesh": {"symbol": "m"}, "dims": [], "unreduced": [{"name": "a"}], "unreducedKind": "prod"})"
            << "/shardings/0/unreducedKind: expected \"sum\", \"max\" or \"min\"";
        QTest::newRow("edge node")
            << "/module/body/ops/0/attrs"
            << R"({"e": {"kind": "propagation_edges", "steps": [{"step": 0, "entries": [{"axis": {"name": "a"}, "source": "operand-x", "targets": []}]}]}})"
            << "/module/body/ops/0/attrs/e/steps/0/entries/0/source: expected \"operand-N\" or \"result-N\"";
        QTest::newRow("escaped key") << "/module/body/ops/0/attrs"
                                     << R"({"a/b~c": {"kind": "bool", "value": 1}})"
                                     << "/module/body/ops/0/attrs/a~1b~0c/value: expected true or false";
    }

    void malformedDocuments()
    {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, expected);
        json doc = baseDocument();
        json::json_pointer ptr(pointer.toStdString());
        if (value == "DELETE")
            doc.at(ptr.parent_pointer()).erase(ptr.back());
        else
            doc[ptr] = json::parse(value.toStdString());
        QString error = readError(doc);
        QVERIFY2(error.contains(expected), qPrintable("got: " + error));
        QVERIFY2(!error.contains('\n'), "one error per document");
    }

    void denseArrayElementTypes()
    {
        // Fuzz finding (fuzz_json): a dense array whose element type is not one MLIR's array<T: ...>
        // takes was accepted and printed as MLIR that does not read back.
        DiagnosticList diags;
        auto m = io::parseMlir("func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {\n"
                               "  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
                               "  return %0 : tensor<3x2xf32>\n}\n",
                               "t.mlir", diags);
        QVERIFY(m);
        json doc = json::parse(io::writeJsonDocument(*m));
        std::function<bool(json&)> retype = [&](json& j) {
            if (j.is_object() && j.value("kind", "") == "dense_array") {
                j["element"] = "qqi64";
                return true;
            }
            if (j.is_object() || j.is_array())
                for (auto& child : j)
                    if (retype(child))
                        return true;
            return false;
        };
        QVERIFY(retype(doc));
        const QString error = readError(doc);
        QVERIFY2(error.contains("element type is one of i1, i8, i16, i32, i64, f32, f64, not 'qqi64'"),
                 qPrintable(error));
    }

    void operandsMustBeVisibleAtTheirUse()
    {
        // Fuzz finding (fuzz_json): a document's operand ids named a value defined inside another
        // op's region; the module verified, and its MLIR text did not read back. Every operand must
        // be defined in its use's block or one around it, as SSA names are scoped in MLIR text (a
        // forward reference within the block reads in MLIR text, so it reads here too).
        DiagnosticList diags;
        auto m = io::parseMlir("func.func @f(%a: tensor<4xf32>, %i: tensor<i32>) -> tensor<4xf32> {\n"
                               "  %0 = \"stablehlo.case\"(%i) ({\n"
                               "    %in = stablehlo.abs %a : tensor<4xf32>\n"
                               "    stablehlo.return %in : tensor<4xf32>\n"
                               "  }) : (tensor<i32>) -> tensor<4xf32>\n"
                               "  %1 = stablehlo.negate %0 : tensor<4xf32>\n"
                               "  %2 = stablehlo.abs %1 : tensor<4xf32>\n"
                               "  return %2 : tensor<4xf32>\n}\n",
                               "t.mlir", diags);
        QVERIFY2(m, diags.formatAll().c_str());
        const json doc = json::parse(io::writeJsonDocument(*m));
        // Value ids by result name and the ops that use them.
        std::map<std::string, int64_t> ids;
        std::map<std::string, json*> users;
        std::function<void(json&)> index = [&](json& j) {
            if (j.is_object() && j.contains("name") && j["name"].is_string() && j.contains("results"))
                for (const json& r : j["results"])
                    if (r.contains("name"))
                        ids[r["name"]] = r["id"];
            if (j.is_object() && j.contains("name") && j["name"].is_string() && j.contains("operands")) {
                const std::string name = j["name"];
                users[name + "#" + std::to_string(users.count(name + "#0") + users.count(name + "#1"))] = &j;
            }
            if (j.is_object() || j.is_array())
                for (auto& child : j)
                    index(child);
        };
        auto expectRefused = [&](const char* user, int operand, const char* value) {
            json bad = doc;
            ids.clear();
            users.clear();
            index(bad);
            QVERIFY2(users.count(user) && ids.count(value), user);
            (*users[user])["operands"][operand] = ids[value];
            const QString error = readError(bad);
            QVERIFY2(error.contains("is not visible here"), qPrintable(QString::fromLatin1(user) + ": " + error));
        };
        expectRefused("func.return#0", 0, "in");      // defined in the case's branch
        expectRefused("stablehlo.negate#0", 0, "in"); // the same, from the next op
        // A value defined later in the block is in scope (MLIR text takes the forward reference).
        json later = doc;
        ids.clear();
        users.clear();
        index(later);
        (*users["stablehlo.negate#0"])["operands"][0] = ids["2"];
        DiagnosticList dl;
        QVERIFY2(io::parseJsonDocument(later.dump(), "later.json", dl), dl.formatAll().c_str());
        DiagnosticList d2;
        QVERIFY2(io::parseJsonDocument(doc.dump(), "t.json", d2), d2.formatAll().c_str()); // the original reads
    }

    void opaqueAttributesMustReadBack()
    {
        // Fuzz finding (fuzz_json): an fft_type body `fft_type FF-` was accepted, and printed as
        // `#stablehlo<fft_type FF->`, whose `->` the MLIR reader takes for an arrow.
        DiagnosticList diags;
        auto m = io::parseMlir("func.func @f(%a: tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>> {\n"
                               "  %0 = stablehlo.fft %a, type = FFT, length = [8] : (tensor<8xcomplex<f32>>) -> "
                               "tensor<8xcomplex<f32>>\n"
                               "  return %0 : tensor<8xcomplex<f32>>\n}\n",
                               "t.mlir", diags);
        QVERIFY2(m, diags.formatAll().c_str());
        json doc = json::parse(io::writeJsonDocument(*m));
        std::function<bool(json&, const std::string&)> rebody = [&](json& j, const std::string& body) {
            if (j.is_object() && j.value("kind", "") == "opaque" && j.value("body", "").rfind("fft_type", 0) == 0) {
                j["body"] = body;
                return true;
            }
            if (j.is_object() || j.is_array())
                for (auto& child : j)
                    if (rebody(child, body))
                        return true;
            return false;
        };
        for (const char* body : {"fft_type FF-", "fft_type <FFT", "fft_type \"FFT"}) {
            json bad = doc;
            QVERIFY(rebody(bad, body));
            const QString error = readError(bad);
            QVERIFY2(error.contains("/body: ") && error.contains("does not read back as MLIR"),
                     qPrintable(QString::fromLatin1(body) + ": " + error));
        }
        json good = doc;
        QVERIFY(rebody(good, "fft_type IFFT"));
        DiagnosticList d2;
        auto fromJson = io::parseJsonDocument(good.dump(), "t.json", d2);
        QVERIFY2(fromJson, d2.formatAll().c_str());
        const std::string printed = io::printModule(*fromJson);
        DiagnosticList d3;
        auto again = io::parseMlir(printed, "t2.mlir", d3);
        QVERIFY2(again, d3.formatAll().c_str());
        QCOMPARE(io::printModule(*again), printed);
    }

    void gatherDimensionNumbersPrintAsStablehloDoes()
    {
        // Fuzz finding (fuzz_json): a document whose #stablehlo.gather body says index_vector_dim = 0
        // printed it, but the MLIR read back dropped it (StableHLO prints no zero fields), so the
        // second print differed. Both readers now keep the body as StableHLO prints it.
        DiagnosticList diags;
        auto m = io::parseMlir(
            "func.func @f(%a: tensor<4x6xf32>, %i: tensor<2xi64>) -> tensor<1x6xf32> {\n"
            "  %0 = \"stablehlo.gather\"(%a, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], "
            "collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = "
            "array<i64: 1, 6>}> : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<1x6xf32>\n"
            "  return %0 : tensor<1x6xf32>\n}\n",
            "t.mlir", diags);
        QVERIFY2(m, diags.formatAll().c_str());
        json doc = json::parse(io::writeJsonDocument(*m));
        std::function<bool(json&)> zero = [&](json& j) {
            if (j.is_object() && j.value("mnemonic", "") == "gather") {
                std::string body = j["body"];
                body.replace(body.find("index_vector_dim = 1"), 20, "index_vector_dim = 0");
                j["body"] = body;
                return true;
            }
            if (j.is_object() || j.is_array())
                for (auto& child : j)
                    if (zero(child))
                        return true;
            return false;
        };
        QVERIFY(zero(doc));
        DiagnosticList d2;
        auto fromJson = io::parseJsonDocument(doc.dump(), "t.json", d2);
        QVERIFY2(fromJson, d2.formatAll().c_str());
        const std::string printed = io::printModule(*fromJson);
        QVERIFY2(printed.find("index_vector_dim") == std::string::npos, printed.c_str());
        DiagnosticList d3;
        auto again = io::parseMlir(printed, "t2.mlir", d3);
        QVERIFY2(again, d3.formatAll().c_str());
        QCOMPARE(io::printModule(*again), printed);
    }

    void syntaxErrorsHaveLineAndColumn()
    {
        DiagnosticList diags;
        auto m = io::parseJsonDocument("{\n  \"format\": \"shardx\",\n  \"version\": 1,,\n}", "broken.json", diags);
        QVERIFY(!m);
        QCOMPARE(diags.all().size(), size_t(1));
        QString msg = QString::fromStdString(diags.all()[0].format());
        QVERIFY2(msg.startsWith("broken.json:3:16: error: invalid JSON:"), qPrintable(msg));

        diags.clear();
        QVERIFY(!io::parseJsonDocument("", "empty.json", diags));
        QVERIFY(diags.hasErrors());
        QVERIFY(QString::fromStdString(diags.formatAll()).startsWith("empty.json:1:1: error: invalid JSON"));

        diags.clear();
        QVERIFY(!io::parseJsonDocument("[1, 2]", "array.json", diags));
        QVERIFY(QString::fromStdString(diags.formatAll()).contains("array.json: error: /: expected a shardx document"));
    }

    void textEncoding()
    {
        // JSON text is UTF-8 without raw control characters: a byte that is not UTF-8 and a raw NUL are syntax
        // errors at their line and column.
        const std::string doc = baseDocument().dump(1);
        const size_t at = doc.find("\"main\"") + 3; // inside the string, after "ma
        int line = 1, col = 1;
        for (size_t i = 0; i < at; ++i) {
            line += doc[i] == '\n' ? 1 : 0;
            col = doc[i] == '\n' ? 1 : col + 1;
        }
        for (const std::string& bytes : {std::string("\x80"), std::string("\xC0\xAF"), std::string(1, '\0')}) {
            DiagnosticList diags;
            QVERIFY(!io::parseJsonDocument(doc.substr(0, at) + bytes + doc.substr(at), "u.json", diags));
            QCOMPARE(diags.all().size(), size_t(1));
            const Diagnostic& d = diags.all().front();
            QVERIFY2(d.message.rfind("invalid JSON: ", 0) == 0, d.format().c_str());
            QVERIFY2(d.pos.line == line && d.pos.col == col, d.format().c_str());
        }
        // An escaped NUL is text: a string attribute and a location name that hold one read and round trip.
        json withNul = baseDocument();
        withNul["module"]["body"]["ops"][0]["attrs"] = json::parse(R"({"s": {"kind": "string", "value": "a\u0000b"}})");
        withNul["module"]["body"]["ops"][1]["regions"][0]["blocks"][0]["ops"][0]["loc"]["name"] =
            std::string("x\0y", 3);
        DiagnosticList diags;
        auto m = io::parseJsonDocument(withNul.dump(), "nul.json", diags);
        QVERIFY2(m, diags.formatAll().c_str());
        std::unique_ptr<Module> again;
        const std::string why = jsonRoundTrip(*m, again);
        QVERIFY2(why.empty(), why.c_str());
        io::PrintOptions withLocations;
        withLocations.printDebugInfo = true;
        const std::string printed = io::printModule(*m, withLocations);
        QVERIFY2(printed.find("\"a\\00b\"") != std::string::npos && printed.find("\"x\\00y\"") != std::string::npos,
                 printed.c_str());
        auto fromMlir = testing::parseOk(printed);
        QVERIFY(fromMlir);
        QCOMPARE(io::printModule(*fromMlir, withLocations), printed);
    }

    void deepNesting()
    {
        // Nesting is bounded twice: the JSON text (kMaxJsonTextDepth arrays and objects, checked before any tree
        // is built) and what the document holds (kMaxNestingDepth attributes, types, locations and ops, the MLIR
        // reader's limit). Both are errors with a position, never a stack overflow.
        auto nestedAttrs = [](int depth, const std::string& open, const std::string& close) {
            std::string text =
                R"({"format": "shardx", "version": 1, "module": {"body": {"ops": [{"name": "sdy.mesh", "attrs": {"x": )";
            for (int i = 0; i < depth; ++i)
                text += open;
            text += R"({"kind": "unit"})";
            for (int i = 0; i < depth; ++i)
                text += close;
            return text + "}}]}}}";
        };
        auto errorOf = [](const std::string& text) {
            DiagnosticList diags;
            auto m = io::parseJsonDocument(text, "deep.json", diags);
            return m ? Diagnostic{Severity::Note, {}, "<no error>", {}} : diags.all().front();
        };
        const std::string array = R"({"kind": "array", "elements": [)", arrayEnd = "]}";
        const std::string dict = R"({"kind": "dictionary", "entries": {"a": )", dictEnd = "}}";
        for (const auto& [open, close] : {std::pair(array, arrayEnd), std::pair(dict, dictEnd)}) {
            Diagnostic d = errorOf(nestedAttrs(10000, open, close));
            QVERIFY2(d.message.find("nested deeper than 2000 levels") != std::string::npos, d.format().c_str());
            QCOMPARE(d.pos.line, 1);
            d = errorOf(nestedAttrs(300, open, close));
            QVERIFY2(d.message.find("nesting too deep (more than 200 levels") != std::string::npos, d.format().c_str());
            QVERIFY2(d.message.rfind("/module/body/ops/0/attrs/x/", 0) == 0, d.format().c_str());
            QVERIFY2(errorOf(nestedAttrs(150, open, close)).message == "<no error>", "150 levels read");
        }
        // Regions: ops nested in ops.
        auto nestedOps = [](int depth) {
            std::string text = R"({"format": "shardx", "version": 1, "module": {"body": {"ops": [)";
            for (int i = 0; i < depth; ++i)
                text += R"({"name": "test.op", "regions": [{"blocks": [{"ops": [)";
            text += R"({"name": "test.leaf"})";
            for (int i = 0; i < depth; ++i)
                text += "]}]}]}";
            return text + "]}}}";
        };
        Diagnostic d = errorOf(nestedOps(10000));
        QVERIFY2(d.message.find("nested deeper than 2000 levels") != std::string::npos, d.format().c_str());
        d = errorOf(nestedOps(300));
        QVERIFY2(d.message.find("nesting too deep (more than 200 levels") != std::string::npos, d.format().c_str());
        QVERIFY2(errorOf(nestedOps(100)).message == "<no error>", "100 levels read");
    }

    void longLine()
    {
        // A document on one 10 MB line (one string attribute) reads and round trips.
        json doc = baseDocument();
        doc["module"]["body"]["ops"][0]["attrs"] = {
            {"big", {{"kind", "string"}, {"value", std::string(10 << 20, 'x')}}}};
        const std::string text = doc.dump();
        QVERIFY(text.size() > (10 << 20) && text.find('\n') == std::string::npos);
        DiagnosticList diags;
        auto m = io::parseJsonDocument(text, "long.json", diags);
        QVERIFY2(m, diags.formatAll().c_str());
        std::unique_ptr<Module> again;
        const std::string why = jsonRoundTrip(*m, again);
        QVERIFY2(why.empty(), why.c_str());
        // A 10 MB line that is not JSON is an error at its column.
        diags.clear();
        QVERIFY(!io::parseJsonDocument("[\"" + std::string(10 << 20, 'x') + "\" x]", "bad.json", diags));
        QCOMPARE(diags.all().front().pos.line, 1);
        QCOMPARE(diags.all().front().pos.col, (10 << 20) + 5);
        // So is a number no double holds (it has no position).
        diags.clear();
        QVERIFY(!io::parseJsonDocument("[" + std::string(400, '9') + "]", "big.json", diags));
        QVERIFY2(diags.all().front().message.find("number overflow") != std::string::npos, diags.formatAll().c_str());
    }

    void hugeTensors()
    {
        // 2^40 elements: types, a splat constant and an op on them go through a document and back without
        // allocating per element (the document stays small); a shape whose count does not fit in 64 bits is an
        // error (malformedDocuments, "element count overflow").
        const std::string huge = "tensor<1048576x1048576xf32>";
        auto m = testing::parseOk("func.func @f(%a: " + huge + ") -> " + huge +
                                  " {\n  %c = stablehlo.constant dense<1.0> : " + huge +
                                  "\n  %0 = stablehlo.add %a, %c : " + huge + "\n  return %0 : " + huge + "\n}\n");
        QVERIFY(m);
        const std::string text = io::writeJsonDocument(*m);
        QVERIFY2(text.size() < 16 * 1024, text.c_str());
        QVERIFY(json::parse(text).dump().find("[1048576,1048576]") != std::string::npos);
        std::unique_ptr<Module> again;
        const std::string why = jsonRoundTrip(*m, again);
        QVERIFY2(why.empty(), why.c_str());
        DiagnosticList diags;
        QVERIFY2(ir::verifyModule(*again, diags), diags.formatAll().c_str());
        QVERIFY(io::printModule(*again).find("dense<1.000000e+00> : " + huge) != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestJsonDocument)
#include "tst_jsondocument.moc"
