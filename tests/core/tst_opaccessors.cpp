// The typed op accessors of core/ir (FuncOps, ShardingAccess, SdyOps, StablehloAttrs) over parsed snippets.
#include <QtTest>

#include <memory>
#include <optional>
#include <string>

#include "core/io/MlirReader.h"
#include "core/ir/FuncOps.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/ir/StablehloAttrs.h"
#include "tests/io/IoTestSupport.h"

using namespace shardx;
using testing::firstOp;
using testing::parseOk;

namespace {

/// A module with mesh @m = <["a"=2, "b"=2]> and `body` as the body of @main(%arg0: tensor<8x8xf32>).
std::string inMain(const std::string& body, const std::string& extra = {})
{
    return "sdy.mesh @m = <[\"a\"=2, \"b\"=2]>\n" + extra +
           "func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {\n" + body + "\n}\n";
}

/// Parses `text` and returns the first op named `opName` (the module stays alive in `holder`).
ir::Op* parseAndFind(const std::string& text, const std::string& opName, std::unique_ptr<ir::Module>& holder)
{
    holder = parseOk(text);
    if (!holder)
        return nullptr;
    return firstOp(*holder, opName);
}

/// "none" for nullopt, else the value.
QString orNone(const std::optional<std::string>& s) { return s ? QString::fromStdString(*s) : QStringLiteral("none"); }

QString axesString(const std::vector<std::vector<AxisRef>>* lists)
{
    if (!lists)
        return QStringLiteral("none");
    std::string s;
    for (const auto& l : *lists)
        s += axisListString(l);
    return QString::fromStdString(s);
}

QString axesString(const std::vector<AxisRef>* axes)
{
    return axes ? QString::fromStdString(axisListString(*axes)) : QStringLiteral("none");
}

const char* kIdentity = "  return %arg0 : tensor<8x8xf32>";

/// `pattern` with `@A@` replaced by `attr` (QString::arg would also replace `%0`).
QString withAttr(QString pattern, const QString& attr) { return pattern.replace(QStringLiteral("@A@"), attr); }

} // namespace

class TestOpAccessors : public QObject {
    Q_OBJECT
private slots:
    void callee_data();
    void callee();
    void setCallee();
    void symbols_data();
    void symbols();
    void funcShardings_data();
    void funcShardings();
    void opShardings_data();
    void opShardings();
    void shardingSetters();
    void meshes();
    void barrierDirection_data();
    void barrierDirection();
    void reductionKind_data();
    void reductionKind();
    void collectiveAxes_data();
    void collectiveAxes();
    void collectiveSetters();
    void computations_data();
    void computations();
    void shardingGroup_data();
    void shardingGroup();
    void stablehlo_data();
    void stablehlo();
};

// ---- func.call ---------------------------------------------------------------------------

void TestOpAccessors::callee_data()
{
    QTest::addColumn<QString>("call");
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("pathLength");
    QTest::addColumn<bool>("resolves");
    QTest::newRow("present") << "%0 = func.call @g(%arg0) : (tensor<8x8xf32>) -> tensor<8x8xf32>"
                             << "g" << 1 << true;
    QTest::newRow("nested") << "%0 = \"func.call\"(%arg0) {callee = @g::@h} : (tensor<8x8xf32>) -> tensor<8x8xf32>"
                            << "h" << 2 << false;
    QTest::newRow("absent") << "%0 = \"func.call\"(%arg0) : (tensor<8x8xf32>) -> tensor<8x8xf32>"
                            << "none" << 0 << false;
    QTest::newRow("malformed") << "%0 = \"func.call\"(%arg0) {callee = \"g\"} : (tensor<8x8xf32>) -> tensor<8x8xf32>"
                               << "none" << 0 << false;
}

void TestOpAccessors::callee()
{
    QFETCH(QString, call);
    QFETCH(QString, name);
    QFETCH(int, pathLength);
    QFETCH(bool, resolves);
    const std::string g =
        "func.func private @g(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {\n" + std::string(kIdentity) + "\n}\n";
    std::unique_ptr<ir::Module> m;
    ir::Op* op = parseAndFind(inMain(call.toStdString() + "\n  return %0 : tensor<8x8xf32>", g), "func.call", m);
    QVERIFY(op);
    QCOMPARE(orNone(ir::calleeName(*op)), name);
    const ir::SymbolRefAttr* ref = ir::calleeRef(*op);
    QCOMPARE(ref ? static_cast<int>(ref->path.size()) : 0, pathLength);
    QCOMPARE(m->findCallee(*op) == m->findFunc("g"), resolves);
    QCOMPARE(m->findCallee(*op) != nullptr, resolves);
}

void TestOpAccessors::setCallee()
{
    std::unique_ptr<ir::Module> m;
    ir::Op* op =
        parseAndFind(inMain("%0 = \"func.call\"(%arg0) {callee = 3 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>\n"
                            "  return %0 : tensor<8x8xf32>"),
                     "func.call", m);
    QVERIFY(op);
    QVERIFY(!ir::calleeName(*op));
    ir::setCalleeName(*op, "main");
    QCOMPARE(orNone(ir::calleeName(*op)), QStringLiteral("main"));
    QCOMPARE(m->findCallee(*op), m->findFunc("main"));
}

// ---- symbols and func.func ---------------------------------------------------------------

void TestOpAccessors::symbols_data()
{
    QTest::addColumn<QString>("func");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("visibility");
    QTest::addColumn<bool>("isPrivate");
    QTest::addColumn<int>("numInputs");
    QTest::newRow("public") << "func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
                               "  return %arg0 : tensor<4xf32>\n}"
                            << "f"
                            << "none" << false << 1;
    QTest::newRow("private") << "func.func private @p(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {\n"
                                "  return %arg0 : tensor<4xf32>\n}"
                             << "p"
                             << "private" << true << 2;
    QTest::newRow("malformed") << "\"func.func\"() <{function_type = 3 : i64, sym_name = 7 : i64, "
                                  "sym_visibility = 1 : i64}> ({\n}) : () -> ()"
                               << ""
                               << "none" << false << -1;
}

void TestOpAccessors::symbols()
{
    QFETCH(QString, func);
    QFETCH(QString, name);
    QFETCH(QString, visibility);
    QFETCH(bool, isPrivate);
    QFETCH(int, numInputs);
    std::unique_ptr<ir::Module> m;
    ir::Op* op = parseAndFind(func.toStdString() + "\n", "func.func", m);
    QVERIFY(op);
    QCOMPARE(QString::fromStdString(ir::symbolName(*op)), name);
    QCOMPARE(orNone(ir::symbolVisibility(*op)), visibility);
    QCOMPARE(ir::isPrivateSymbol(*op), isPrivate);
    const ir::Type ft = ir::funcType(*op);
    QCOMPARE(ft.kind() == ir::Type::Kind::Function ? static_cast<int>(ft.elements().size()) : -1, numInputs);

    ir::setSymbolName(*op, "renamed");
    ir::setSymbolVisibility(*op, "nested");
    ir::setFuncType(*op, ir::Type::function({}, {}));
    QCOMPARE(QString::fromStdString(ir::symbolName(*op)), QStringLiteral("renamed"));
    QCOMPARE(orNone(ir::symbolVisibility(*op)), QStringLiteral("nested"));
    QVERIFY(!ir::isPrivateSymbol(*op));
    QCOMPARE(ir::funcType(*op).kind(), ir::Type::Kind::Function);
    QCOMPARE(ir::funcType(*op).elements().size(), size_t(0));
}

void TestOpAccessors::funcShardings_data()
{
    QTest::addColumn<QString>("argAttr");
    QTest::addColumn<QString>("expected");
    QTest::newRow("present") << "{sdy.sharding = #sdy.sharding<@m, [{\"a\"}, {}]>}"
                             << "<@m, [{\"a\"}, {}]>";
    QTest::newRow("absent") << "{other = 1 : i64}"
                            << "none";
    QTest::newRow("no dictionary") << ""
                                   << "none";
    QTest::newRow("malformed") << "{sdy.sharding = \"a\"}"
                               << "none";
}

void TestOpAccessors::funcShardings()
{
    QFETCH(QString, argAttr);
    QFETCH(QString, expected);
    const std::string text = "sdy.mesh @m = <[\"a\"=2, \"b\"=2]>\nfunc.func @main(%arg0: tensor<8x8xf32> " +
                             argAttr.toStdString() + ") -> (tensor<8x8xf32> " + argAttr.toStdString() + ") {\n" +
                             kIdentity + "\n}\n";
    std::unique_ptr<ir::Module> m = parseOk(text);
    QVERIFY(m);
    ir::Op* func = m->findFunc("main");
    QVERIFY(func);
    auto str = [](const TensorSharding* s) {
        return s ? QString::fromStdString(s->toString()) : QStringLiteral("none");
    };
    QCOMPARE(str(ir::funcArgSharding(*func, 0)), expected);
    QCOMPARE(str(ir::funcResultSharding(*func, 0)), expected);
    QCOMPARE(str(ir::funcArgSharding(*func, 5)), QStringLiteral("none"));
    QCOMPARE(str(ir::shardingOfValue(func->region(0).front().arg(0))), expected);

    const TensorSharding s = TensorSharding::open(MeshRef{"m", std::nullopt}, 2);
    ir::setFuncArgSharding(*func, 0, s);
    ir::setFuncResultSharding(*func, 0, s);
    QCOMPARE(str(ir::funcArgSharding(*func, 0)), QString::fromStdString(s.toString()));
    QCOMPARE(str(ir::funcResultSharding(*func, 0)), QString::fromStdString(s.toString()));
    ir::removeFuncResultSharding(*func, 0);
    QCOMPARE(str(ir::funcResultSharding(*func, 0)), QStringLiteral("none"));
    QCOMPARE(str(ir::funcArgSharding(*func, 0)), QString::fromStdString(s.toString()));
}

// ---- shardings of sdy ops ----------------------------------------------------------------

void TestOpAccessors::opShardings_data()
{
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("opName");
    QTest::addColumn<QString>("own");
    QTest::addColumn<QString>("out");
    QTest::addColumn<QString>("results");
    const QString ret = "\n  return %0 : tensor<8x8xf32>";
    QTest::newRow("constraint") << "%0 = sdy.sharding_constraint %arg0 <@m, [{\"a\"}, {}]> : tensor<8x8xf32>" + ret
                                << "sdy.sharding_constraint"
                                << "<@m, [{\"a\"}, {}]>"
                                << "none"
                                << "none";
    QTest::newRow("reshard") << "%0 = sdy.reshard %arg0 <@m, [{}, {\"b\"}]> : tensor<8x8xf32>" + ret << "sdy.reshard"
                             << "<@m, [{}, {\"b\"}]>"
                             << "none"
                             << "none";
    QTest::newRow("edge without sharding")
        << "%0 = sdy.data_flow_edge %arg0 : tensor<8x8xf32>" + ret << "sdy.data_flow_edge"
        << "none"
        << "none"
        << "none";
    QTest::newRow("collective") << "%0 = sdy.all_slice [{\"a\"}, {}] %arg0 out_sharding=<@m, [{\"a\"}, {}]> : "
                                   "tensor<8x8xf32>" +
                                       ret
                                << "sdy.all_slice"
                                << "none"
                                << "<@m, [{\"a\"}, {}]>"
                                << "none";
    QTest::newRow("result shardings")
        << "%0 = stablehlo.add %arg0, %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{\"b\"}, {}]>]>} : "
           "tensor<8x8xf32>" +
               ret
        << "stablehlo.add"
        << "none"
        << "none"
        << "<[<@m, [{\"b\"}, {}]>]>";
    QTest::newRow("malformed") << "%0 = \"sdy.reshard\"(%arg0) <{sharding = 1 : i64}> {sdy.sharding = \"x\"} : "
                                  "(tensor<8x8xf32>) -> tensor<8x8xf32>" +
                                      ret
                               << "sdy.reshard"
                               << "none"
                               << "none"
                               << "none";
}

void TestOpAccessors::opShardings()
{
    QFETCH(QString, body);
    QFETCH(QString, opName);
    QFETCH(QString, own);
    QFETCH(QString, out);
    QFETCH(QString, results);
    std::unique_ptr<ir::Module> m;
    ir::Op* op = parseAndFind(inMain(body.toStdString()), opName.toStdString(), m);
    QVERIFY(op);
    auto str = [](const TensorSharding* s) {
        return s ? QString::fromStdString(s->toString()) : QStringLiteral("none");
    };
    QCOMPARE(str(ir::opSharding(*op)), own);
    QCOMPARE(str(ir::outSharding(*op)), out);
    const ShardingPerValue* list = ir::resultShardings(*op);
    QCOMPARE(list ? QString::fromStdString(list->toString()) : QStringLiteral("none"), results);
    QVERIFY(!ir::inShardings(*op));
    QVERIFY(!ir::outShardings(*op));
}

void TestOpAccessors::shardingSetters()
{
    std::unique_ptr<ir::Module> m;
    ir::Op* op = parseAndFind(inMain("%0 = stablehlo.add %arg0, %arg0 : tensor<8x8xf32>\n"
                                     "  return %0 : tensor<8x8xf32>"),
                              "stablehlo.add", m);
    QVERIFY(op);
    const TensorSharding s = TensorSharding::open(MeshRef{"m", std::nullopt}, 2);
    ir::setResultShardings(*op, ShardingPerValue{{s}});
    QVERIFY(ir::findAttr(op->attrs(), ir::kSdyShardingAttr));
    QVERIFY(!ir::findAttr(op->props(), ir::kSdyShardingAttr));
    QCOMPARE(ir::resultShardings(*op)->shardings.size(), size_t(1));
    QVERIFY(*ir::shardingOfValue(op->result(0)) == s);
    ir::removeResultShardings(*op);
    QVERIFY(!ir::resultShardings(*op));

    ir::setOpSharding(*op, s);
    ir::setOutSharding(*op, s);
    ir::setInShardings(*op, ShardingPerValue{{s, s}});
    ir::setOutShardings(*op, ShardingPerValue{{s}});
    QVERIFY(ir::findAttr(op->props(), ir::kShardingAttr));
    QVERIFY(*ir::opSharding(*op) == s);
    QVERIFY(*ir::outSharding(*op) == s);
    QCOMPARE(ir::inShardings(*op)->shardings.size(), size_t(2));
    QCOMPARE(ir::outShardings(*op)->shardings.size(), size_t(1));

    // A sharding stored as a discardable attribute is replaced where it is.
    op->removeAttribute(ir::kShardingAttr);
    op->setDiscardable(ir::kShardingAttr, ir::makeAttr(ir::StringAttr{"old"}));
    ir::setOpSharding(*op, s);
    QVERIFY(!ir::findAttr(op->props(), ir::kShardingAttr));
    QVERIFY(*ir::opSharding(*op) == s);
}

void TestOpAccessors::meshes()
{
    std::unique_ptr<ir::Module> m = parseOk("sdy.mesh @m = <[\"a\"=2, \"b\"=4]>\n"
                                            "\"sdy.mesh\"() <{mesh = 3 : i64, sym_name = \"bad\"}> : () -> ()\n");
    QVERIFY(m);
    const Mesh* mesh = ir::meshOpMesh(*m->findMeshOp("m"));
    QVERIFY(mesh);
    QCOMPARE(mesh->axisSize("b").value_or(0), int64_t(4));
    QVERIFY(!ir::meshOpMesh(*m->findMeshOp("bad")));
    QVERIFY(!m->findMesh("bad"));

    const TensorSharding bySymbol = TensorSharding::open(MeshRef{"m", std::nullopt}, 1);
    const TensorSharding unknown = TensorSharding::open(MeshRef{"nope", std::nullopt}, 1);
    QCOMPARE(ir::meshOf(*m, bySymbol), mesh);
    QVERIFY(!ir::meshOf(*m, unknown));
    TensorSharding inlineMesh = bySymbol;
    inlineMesh.mesh = MeshRef{"", *mesh};
    QVERIFY(ir::meshOf(*m, inlineMesh) && *ir::meshOf(*m, inlineMesh) == *mesh);

    ir::setMeshOpMesh(*m->findMeshOp("bad"), *mesh);
    QVERIFY(m->findMesh("bad") && *m->findMesh("bad") == *mesh);
}

// ---- sdy.propagation_barrier --------------------------------------------------------------

void TestOpAccessors::barrierDirection_data()
{
    QTest::addColumn<QString>("barrier");
    QTest::addColumn<int>("direction"); // -1: nullopt
    const QString generic = "%0 = \"sdy.propagation_barrier\"(%arg0) <{allowed_direction = @A@}> : "
                            "(tensor<8x8xf32>) -> tensor<8x8xf32>";
    QTest::newRow("forward") << "%0 = sdy.propagation_barrier %arg0 allowed_direction=FORWARD : tensor<8x8xf32>" << 1;
    QTest::newRow("backward") << "%0 = sdy.propagation_barrier %arg0 allowed_direction=BACKWARD : tensor<8x8xf32>" << 2;
    QTest::newRow("none") << "%0 = sdy.propagation_barrier %arg0 allowed_direction=NONE : tensor<8x8xf32>" << 0;
    QTest::newRow("generic both") << withAttr(generic, "#sdy<propagation_direction BOTH>") << 3;
    QTest::newRow("integer") << withAttr(generic, "2 : i32") << 2;
    QTest::newRow("integer both") << withAttr(generic, "3 : i32") << 3;
    QTest::newRow("string") << withAttr(generic, "\"FORWARD\"") << 1;
    QTest::newRow("absent") << "%0 = \"sdy.propagation_barrier\"(%arg0) : (tensor<8x8xf32>) -> tensor<8x8xf32>" << -1;
    QTest::newRow("unknown keyword") << withAttr(generic, "#sdy<propagation_direction SIDEWAYS>") << -1;
    QTest::newRow("integer out of range") << withAttr(generic, "7 : i32") << -1;
    QTest::newRow("malformed") << withAttr(generic, "[1, 2]") << -1;
}

void TestOpAccessors::barrierDirection()
{
    QFETCH(QString, barrier);
    QFETCH(int, direction);
    std::unique_ptr<ir::Module> m;
    ir::Op* op =
        parseAndFind(inMain(barrier.toStdString() + "\n  return %0 : tensor<8x8xf32>"), "sdy.propagation_barrier", m);
    QVERIFY(op);
    const std::optional<ir::PropagationDirection> d = ir::barrierDirection(*op);
    QCOMPARE(d ? static_cast<int>(*d) : -1, direction);
    ir::setBarrierDirection(*op, ir::PropagationDirection::Backward);
    QCOMPARE(ir::barrierDirection(*op), std::optional(ir::PropagationDirection::Backward));
    for (ir::PropagationDirection x : {ir::PropagationDirection::None, ir::PropagationDirection::Forward,
                                       ir::PropagationDirection::Backward, ir::PropagationDirection::Both})
        QCOMPARE(ir::parseDirection(ir::directionName(x)), std::optional(x));
    QVERIFY(!ir::parseDirection("forward"));
}

// ---- collectives -------------------------------------------------------------------------

void TestOpAccessors::reductionKind_data()
{
    QTest::addColumn<QString>("reduce");
    QTest::addColumn<int>("kind"); // -1: nullopt
    const QString out = " %arg0 out_sharding=<@m, [{}, {}]> : tensor<8x8xf32>";
    const QString generic = "%0 = \"sdy.all_reduce\"(%arg0) <{out_sharding = #sdy.sharding<@m, [{}, {}]>, "
                            "reduction_axes = #sdy.axis_ref_list<{\"a\"}>, reduction_kind = @A@}> : "
                            "(tensor<8x8xf32>) -> tensor<8x8xf32>";
    QTest::newRow("max") << "%0 = sdy.all_reduce max {\"a\"}" + out << 1;
    QTest::newRow("min") << "%0 = sdy.all_reduce min {\"a\"}" + out << 2;
    QTest::newRow("sum written") << "%0 = sdy.all_reduce sum {\"a\"}" + out << -1;
    QTest::newRow("absent") << "%0 = sdy.all_reduce {\"a\"}" + out << -1;
    QTest::newRow("generic sum") << withAttr(generic, "#sdy<reduction_kind sum>") << 0;
    QTest::newRow("integer") << withAttr(generic, "2 : i32") << 2;
    QTest::newRow("string") << withAttr(generic, "\"max\"") << 1;
    QTest::newRow("unknown keyword") << withAttr(generic, "#sdy<reduction_kind prod>") << -1;
    QTest::newRow("malformed") << withAttr(generic, "[1]") << -1;
}

void TestOpAccessors::reductionKind()
{
    QFETCH(QString, reduce);
    QFETCH(int, kind);
    std::unique_ptr<ir::Module> m;
    ir::Op* op = parseAndFind(inMain(reduce.toStdString() + "\n  return %0 : tensor<8x8xf32>"), "sdy.all_reduce", m);
    QVERIFY(op);
    const std::optional<ReductionKind> k = ir::reductionKindOf(*op);
    QCOMPARE(k ? static_cast<int>(*k) : -1, kind);
    QCOMPARE(axesString(ir::collectiveAxisList(*op)), QStringLiteral("{\"a\"}"));
    ir::setReductionKind(*op, ReductionKind::Min);
    QCOMPARE(ir::reductionKindOf(*op), std::optional(ReductionKind::Min));
    for (ReductionKind x : {ReductionKind::Sum, ReductionKind::Max, ReductionKind::Min})
        QCOMPARE(parseReductionKind(reductionKindName(x)), std::optional(x));
    QVERIFY(!parseReductionKind("MAX"));
}

void TestOpAccessors::collectiveAxes_data()
{
    QTest::addColumn<QString>("collective");
    QTest::addColumn<QString>("opName");
    QTest::addColumn<QString>("attrName");
    QTest::addColumn<QString>("perDim");
    QTest::addColumn<QString>("list");
    QTest::addColumn<QString>("params");
    const QString out = " %arg0 out_sharding=<@m, [{\"a\"}, {}]> : tensor<8x8xf32>";
    QTest::newRow("all_gather") << "%0 = sdy.all_gather [{\"b\"}, {}]" + out << "sdy.all_gather"
                                << "gathering_axes"
                                << "{\"b\"}{}"
                                << "none"
                                << "none";
    QTest::newRow("all_slice") << "%0 = sdy.all_slice [{\"a\"}, {}]" + out << "sdy.all_slice"
                               << "slicing_axes"
                               << "{\"a\"}{}"
                               << "none"
                               << "none";
    QTest::newRow("reduce_scatter") << "%0 = sdy.reduce_scatter [{\"a\"}, {}]" + out << "sdy.reduce_scatter"
                                    << "reduce_scatter_axes"
                                    << "{\"a\"}{}"
                                    << "none"
                                    << "none";
    QTest::newRow("sharded_to_unreduced")
        << "%0 = sdy.sharded_to_unreduced [{\"a\"}, {}]" + out << "sdy.sharded_to_unreduced"
        << "axes"
        << "{\"a\"}{}"
        << "none"
        << "none";
    QTest::newRow("all_reduce") << "%0 = sdy.all_reduce {\"b\"}" + out << "sdy.all_reduce"
                                << "reduction_axes"
                                << "none"
                                << "{\"b\"}"
                                << "none";
    QTest::newRow("replicated_to_unreduced")
        << "%0 = sdy.replicated_to_unreduced {\"b\"}" + out << "sdy.replicated_to_unreduced"
        << "axes"
        << "none"
        << "{\"b\"}"
        << "none";
    QTest::newRow("all_to_all") << "%0 = sdy.all_to_all [{\"a\"}: 0->1]" + out << "sdy.all_to_all"
                                << "params"
                                << "none"
                                << "none"
                                << "{\"a\"}:0->1";
    QTest::newRow("collective_permute") << "%0 = sdy.collective_permute" + out << "sdy.collective_permute"
                                        << ""
                                        << "none"
                                        << "none"
                                        << "none";
    QTest::newRow("absent") << "%0 = \"sdy.all_gather\"(%arg0) <{out_sharding = #sdy.sharding<@m, [{}, {}]>}> : "
                               "(tensor<8x8xf32>) -> tensor<8x8xf32>"
                            << "sdy.all_gather"
                            << "gathering_axes"
                            << "none"
                            << "none"
                            << "none";
    QTest::newRow("malformed") << "%0 = \"sdy.all_reduce\"(%arg0) <{out_sharding = #sdy.sharding<@m, [{}, {}]>, "
                                  "reduction_axes = [1, 2]}> : (tensor<8x8xf32>) -> tensor<8x8xf32>"
                               << "sdy.all_reduce"
                               << "reduction_axes"
                               << "none"
                               << "none"
                               << "none";
    QTest::newRow("not a collective") << "%0 = stablehlo.add %arg0, %arg0 : tensor<8x8xf32>"
                                      << "stablehlo.add"
                                      << "null"
                                      << "none"
                                      << "none"
                                      << "none";
}

void TestOpAccessors::collectiveAxes()
{
    QFETCH(QString, collective);
    QFETCH(QString, opName);
    QFETCH(QString, attrName);
    QFETCH(QString, perDim);
    QFETCH(QString, list);
    QFETCH(QString, params);
    std::unique_ptr<ir::Module> m;
    ir::Op* op =
        parseAndFind(inMain(collective.toStdString() + "\n  return %0 : tensor<8x8xf32>"), opName.toStdString(), m);
    QVERIFY(op);
    const char* name = ir::collectiveAxesAttrName(op->name());
    QCOMPARE(name ? QString(name) : QStringLiteral("null"), attrName);
    QCOMPARE(axesString(ir::perDimCollectiveAxes(*op)), perDim);
    QCOMPARE(ir::hasPerDimAxes(op->name()), perDim != "none" || attrName == "gathering_axes");
    QCOMPARE(axesString(ir::collectiveAxisList(*op)), list);
    const std::vector<ir::AllToAllParam>* p = ir::allToAllParams(*op);
    QString ps = QStringLiteral("none");
    if (p) {
        ps.clear();
        for (const ir::AllToAllParam& x : *p)
            ps += QString::fromStdString(axisListString(x.axes)) + ":" + QString::number(x.srcDim) + "->" +
                  QString::number(x.tgtDim);
    }
    QCOMPARE(ps, params);
}

void TestOpAccessors::collectiveSetters()
{
    const std::vector<std::vector<AxisRef>> lists = {{AxisRef("a")}, {}};
    const std::vector<AxisRef> axes = {AxisRef("b")};
    ir::Op gather("sdy.all_gather");
    ir::setPerDimCollectiveAxes(gather, lists);
    ir::setCollectiveAxisList(gather, axes); // not an axis-list collective: ignored
    QVERIFY(ir::findAttr(gather.props(), "gathering_axes"));
    QCOMPARE(gather.props().size(), size_t(1));
    QVERIFY(*ir::perDimCollectiveAxes(gather) == lists);
    QVERIFY(!ir::collectiveAxisList(gather));

    ir::Op r2u("sdy.replicated_to_unreduced");
    ir::setCollectiveAxisList(r2u, axes);
    ir::setPerDimCollectiveAxes(r2u, lists); // not a per-dimension collective: ignored
    QCOMPARE(r2u.props().size(), size_t(1));
    QVERIFY(*ir::collectiveAxisList(r2u) == axes);
    QVERIFY(!ir::perDimCollectiveAxes(r2u));

    ir::Op a2a("sdy.all_to_all");
    ir::setAllToAllParams(a2a, {ir::AllToAllParam{axes, 1, 0}});
    QVERIFY(ir::findAttr(a2a.props(), "params"));
    QCOMPARE(ir::allToAllParams(a2a)->size(), size_t(1));
    QCOMPARE(ir::allToAllParams(a2a)->front().srcDim, int64_t(1));
}

// ---- manual / named computations, sharding groups ------------------------------------------

void TestOpAccessors::computations_data()
{
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("opName");
    QTest::addColumn<QString>("manual");
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("numIn");
    QTest::addColumn<int>("numOut");
    QTest::newRow("manual") << "%0 = sdy.manual_computation(%arg0) in_shardings=[<@m, [{\"a\"}, {}]>] "
                               "out_shardings=[<@m, [{\"a\"}, {}]>] manual_axes={\"a\"} (%arg1: tensor<4x8xf32>) {\n"
                               "    sdy.return %arg1 : tensor<4x8xf32>\n  } : (tensor<8x8xf32>) -> tensor<8x8xf32>"
                            << "sdy.manual_computation"
                            << "a"
                            << "none" << 1 << 1;
    QTest::newRow("named") << "%0 = sdy.named_computation<\"foo\">(%arg0) out_shardings=[<@m, [{\"b\"}, {}]>] "
                              "(%arg1: tensor<8x8xf32>) {\n    sdy.return %arg1 : tensor<8x8xf32>\n  } : "
                              "(tensor<8x8xf32>) -> tensor<8x8xf32>"
                           << "sdy.named_computation"
                           << "none"
                           << "foo" << -1 << 1;
    QTest::newRow("malformed") << "%0 = \"sdy.named_computation\"(%arg0) <{in_shardings = 1 : i64, name = 2 : i64, "
                                  "out_shardings = \"x\"}> ({\n  ^bb0(%arg1: tensor<8x8xf32>):\n"
                                  "    sdy.return %arg1 : tensor<8x8xf32>\n  }) : (tensor<8x8xf32>) -> tensor<8x8xf32>"
                               << "sdy.named_computation"
                               << "none"
                               << "none" << -1 << -1;
}

void TestOpAccessors::computations()
{
    QFETCH(QString, body);
    QFETCH(QString, opName);
    QFETCH(QString, manual);
    QFETCH(QString, name);
    QFETCH(int, numIn);
    QFETCH(int, numOut);
    std::unique_ptr<ir::Module> m;
    ir::Op* op = parseAndFind(inMain(body.toStdString() + "\n  return %0 : tensor<8x8xf32>"), opName.toStdString(), m);
    QVERIFY(op);
    const std::vector<std::string>* axes = ir::manualAxes(*op);
    QString joined = axes ? QString() : QStringLiteral("none");
    if (axes)
        for (const std::string& a : *axes)
            joined += QString::fromStdString(a);
    QCOMPARE(joined, manual);
    QCOMPARE(orNone(ir::computationName(*op)), name);
    const ShardingPerValue* in = ir::inShardings(*op);
    const ShardingPerValue* out = ir::outShardings(*op);
    QCOMPARE(in ? static_cast<int>(in->shardings.size()) : -1, numIn);
    QCOMPARE(out ? static_cast<int>(out->shardings.size()) : -1, numOut);
    if (out)
        QVERIFY(ir::shardingOfValue(op->result(0)) == &out->shardings[0]);

    ir::setManualAxes(*op, {"b", "a"});
    ir::setComputationName(*op, "bar");
    QCOMPARE(ir::manualAxes(*op)->size(), size_t(2));
    QCOMPARE(orNone(ir::computationName(*op)), QStringLiteral("bar"));
}

void TestOpAccessors::shardingGroup_data()
{
    QTest::addColumn<QString>("group");
    QTest::addColumn<int>("id"); // -1: nullopt
    QTest::newRow("present") << "sdy.sharding_group %arg0 group_id=7 : tensor<8x8xf32>" << 7;
    QTest::newRow("absent") << "\"sdy.sharding_group\"(%arg0) : (tensor<8x8xf32>) -> ()" << -1;
    QTest::newRow("malformed") << "\"sdy.sharding_group\"(%arg0) <{group_id = \"7\"}> : (tensor<8x8xf32>) -> ()" << -1;
}

void TestOpAccessors::shardingGroup()
{
    QFETCH(QString, group);
    QFETCH(int, id);
    std::unique_ptr<ir::Module> m;
    ir::Op* op = parseAndFind(inMain(group.toStdString() + "\n" + kIdentity), "sdy.sharding_group", m);
    QVERIFY(op);
    const std::optional<int64_t> got = ir::shardingGroupId(*op);
    QCOMPARE(got ? static_cast<int>(*got) : -1, id);
    ir::setShardingGroupId(*op, 3);
    QCOMPARE(ir::shardingGroupId(*op), std::optional<int64_t>(3));
}

// ---- stablehlo ---------------------------------------------------------------------------

void TestOpAccessors::stablehlo_data()
{
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("opName");
    QTest::addColumn<QString>("result"); // what the op's accessor reads
    const QString ret = "\n  return %0 : tensor<8x8xf32>";
    QTest::newRow("custom_call") << "%0 = stablehlo.custom_call @Sharding(%arg0) : (tensor<8x8xf32>) -> "
                                    "tensor<8x8xf32>" +
                                        ret
                                 << "stablehlo.custom_call"
                                 << "Sharding";
    QTest::newRow("custom_call malformed") << "%0 = \"stablehlo.custom_call\"(%arg0) <{call_target_name = @Sharding}> "
                                              ": (tensor<8x8xf32>) -> tensor<8x8xf32>" +
                                                  ret
                                           << "stablehlo.custom_call"
                                           << "none";
    QTest::newRow("custom_call absent") << "%0 = \"stablehlo.custom_call\"(%arg0) : (tensor<8x8xf32>) -> "
                                           "tensor<8x8xf32>" +
                                               ret
                                        << "stablehlo.custom_call"
                                        << "none";
    QTest::newRow("not a custom_call") << "%0 = stablehlo.add %arg0, %arg0 {call_target_name = \"x\"} : "
                                          "tensor<8x8xf32>" +
                                              ret
                                       << "stablehlo.add"
                                       << "none";
    QTest::newRow("transpose") << "%0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<8x8xf32>) -> "
                                  "tensor<8x8xf32>" +
                                      ret
                               << "stablehlo.transpose"
                               << "1,0";
    QTest::newRow("transpose malformed") << "%0 = \"stablehlo.transpose\"(%arg0) <{permutation = \"x\"}> : "
                                            "(tensor<8x8xf32>) -> tensor<8x8xf32>" +
                                                ret
                                         << "stablehlo.transpose"
                                         << "none";
    QTest::newRow("dot_general") << "%0 = stablehlo.dot_general %arg0, %arg0, batching_dims = [0] x [0], "
                                    "contracting_dims = [1] x [1] : (tensor<8x8xf32>, tensor<8x8xf32>) -> "
                                    "tensor<8xf32>\n  return %arg0 : tensor<8x8xf32>"
                                 << "stablehlo.dot_general"
                                 << "0|0|1|1";
    QTest::newRow("dot_general absent") << "%0 = \"stablehlo.dot_general\"(%arg0, %arg0) : (tensor<8x8xf32>, "
                                           "tensor<8x8xf32>) -> tensor<8x8xf32>" +
                                               ret
                                        << "stablehlo.dot_general"
                                        << "|||";
    QTest::newRow("dot_general malformed")
        << "%0 = \"stablehlo.dot_general\"(%arg0, %arg0) <{dot_dimension_numbers = #stablehlo.dot<"
           "lhs_batching_dimensions = [0]>}> : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>" +
               ret
        << "stablehlo.dot_general"
        << "none";
    QTest::newRow("gather") << "%0 = \"stablehlo.gather\"(%arg0, %arg0) {dimension_numbers = #stablehlo.gather<"
                               "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
                               "index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>} : (tensor<8x8xf32>, "
                               "tensor<8x8xf32>) -> tensor<8x8xf32>" +
                                   ret
                            << "stablehlo.gather"
                            << "1|0|0|1";
    QTest::newRow("gather malformed") << "%0 = \"stablehlo.gather\"(%arg0, %arg0) {dimension_numbers = "
                                         "#stablehlo.gather<offset_dims = [x]>} : (tensor<8x8xf32>, "
                                         "tensor<8x8xf32>) -> tensor<8x8xf32>" +
                                             ret
                                      << "stablehlo.gather"
                                      << "none";
    QTest::newRow("convolution") << "%0 = \"stablehlo.convolution\"(%arg0, %arg0) {dimension_numbers = "
                                    "#stablehlo.conv<[b, f]x[i, o]->[b, f]>} : (tensor<8x8xf32>, tensor<8x8xf32>) "
                                    "-> tensor<8x8xf32>" +
                                        ret
                                 << "stablehlo.convolution"
                                 << "0,1|0,1|0,1";
    // An absent attribute reads as the empty body: every dimension 0.
    QTest::newRow("convolution absent") << "%0 = \"stablehlo.convolution\"(%arg0, %arg0) : (tensor<8x8xf32>, "
                                           "tensor<8x8xf32>) -> tensor<8x8xf32>" +
                                               ret
                                        << "stablehlo.convolution"
                                        << "0,0|0,0|0,0";
    QTest::newRow("convolution malformed") << "%0 = \"stablehlo.convolution\"(%arg0, %arg0) {dimension_numbers = "
                                              "#stablehlo.conv<raw input_batch_dimension = q>} : (tensor<8x8xf32>, "
                                              "tensor<8x8xf32>) -> tensor<8x8xf32>" +
                                                  ret
                                           << "stablehlo.convolution"
                                           << "none";
    QTest::newRow("scatter") << "%0 = \"stablehlo.scatter\"(%arg0, %arg0, %arg0) ({\n"
                                "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
                                "    stablehlo.return %b : tensor<f32>\n"
                                "  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], "
                                "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
                                "index_vector_dim = 1>} : (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> "
                                "tensor<8x8xf32>" +
                                    ret
                             << "stablehlo.scatter"
                             << "1|0|0|1";
    QTest::newRow("scatter malformed") << "%0 = \"stablehlo.scatter\"(%arg0, %arg0, %arg0) ({\n"
                                          "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
                                          "    stablehlo.return %b : tensor<f32>\n"
                                          "  }) {scatter_dimension_numbers = #stablehlo.scatter<bogus>} : "
                                          "(tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>" +
                                              ret
                                       << "stablehlo.scatter"
                                       << "none";
}

void TestOpAccessors::stablehlo()
{
    QFETCH(QString, body);
    QFETCH(QString, opName);
    QFETCH(QString, result);
    std::unique_ptr<ir::Module> m;
    ir::Op* op = parseAndFind(inMain(body.toStdString()), opName.toStdString(), m);
    QVERIFY(op);
    auto ints = [](const std::vector<int64_t>& v) {
        QStringList parts;
        for (int64_t x : v)
            parts << QString::number(x);
        return parts.join(',');
    };
    QString got = QStringLiteral("none");
    if (opName == "stablehlo.transpose") {
        if (auto p = stablehlo::transposePermutation(*op))
            got = ints(*p);
    } else if (opName == "stablehlo.dot_general") {
        std::string err;
        if (auto d = stablehlo::dotDimensionNumbers(*op, &err))
            got = ints(d->lhsBatching) + "|" + ints(d->rhsBatching) + "|" + ints(d->lhsContracting) + "|" +
                  ints(d->rhsContracting);
        else
            QVERIFY(!err.empty());
    } else if (opName == "stablehlo.gather") {
        if (auto g = stablehlo::gatherDimensionNumbers(*op))
            got = ints(g->offsetDims) + "|" + ints(g->collapsedSliceDims) + "|" + ints(g->startIndexMap) + "|" +
                  QString::number(g->indexVectorDim);
    } else if (opName == "stablehlo.scatter") {
        if (auto d = stablehlo::scatterDimensionNumbers(*op))
            got = ints(d->updateWindowDims) + "|" + ints(d->insertedWindowDims) + "|" +
                  ints(d->scatterDimsToOperandDims) + "|" + QString::number(d->indexVectorDim);
    } else if (opName == "stablehlo.convolution") {
        if (auto c = stablehlo::convDimensionNumbers(*op))
            got = ints({c->inputBatch, c->inputFeature}) + "|" + ints({c->kernelInputFeature, c->kernelOutputFeature}) +
                  "|" + ints({c->outputBatch, c->outputFeature});
    } else {
        got = orNone(stablehlo::customCallTarget(*op));
    }
    QCOMPARE(got, result);
}

QTEST_APPLESS_MAIN(TestOpAccessors)
#include "tst_opaccessors.moc"
