// Tests of the factor table: projection of tensor shardings onto rule factors and back (SDY.md 4.3).
#include <QtTest>

#include "core/rules/FactorTable.h"

using namespace shardx;

namespace {

DimSharding dim(std::vector<AxisRef> axes, bool closed = true)
{
    DimSharding d;
    d.axes = std::move(axes);
    d.closed = closed;
    return d;
}

TensorSharding sharding(std::vector<DimSharding> dims, std::vector<AxisRef> replicated = {})
{
    TensorSharding s;
    s.mesh.symbol.assign(1, 'm');
    s.dims = std::move(dims);
    s.replicated = std::move(replicated);
    return s;
}

QString cells(const FactorTable& t, size_t row)
{
    QStringList parts;
    for (const FactorCell& c : t.rows()[row].cells)
        parts << QString::fromStdString(FactorTable::cellString(c));
    return parts.join(" ; ");
}

} // namespace

class TestFactorTable : public QObject {
    Q_OBJECT
private slots:
    void splitAxisAcrossCompoundFactors()
    {
        // 16 -> 2x8 reshape rule, operand sharded on x*y (4*4): i takes "x":(1)2, j the rest.
        OpShardingRule rule;
        rule.factorSizes = {2, 8};
        rule.operands = {{{0, 1}}};
        rule.results = {{{0}, {1}}};
        Mesh mesh({{"x", 4}, {"y", 4}});
        FactorTable t = FactorTable::build(rule, {sharding({dim({AxisRef("x"), AxisRef("y")})})}, {}, mesh);
        QCOMPARE(cells(t, 0), QString("\"x\":(1)2 ; \"x\":(2)2, \"y\""));
        QVERIFY(t.operandRow(0).hasSharding);
        QVERIFY(t.cell(0, 0).closed);
        QVERIFY(!t.cell(0, 0).minorMost);
        QVERIFY(t.cell(0, 1).minorMost);
        // The result has no sharding: present, empty and open.
        QCOMPARE(cells(t, 1), QString("- ; -"));
        QVERIFY(!t.resultRow(0).hasSharding);
        QVERIFY(!t.cell(1, 0).closed);
        QVERIFY(t.cell(1, 0).minorMost && t.cell(1, 1).minorMost);
        // Back-projection of the operand row restores the merged axis.
        QCOMPARE(QString::fromStdString(t.rowSharding(0, MeshRef{"m", {}}).toString()),
                 QString("<@m, [{\"x\", \"y\"}]>"));
        // The result dims take the operand's factor axes.
        TensorSharding res =
            projectToTensor(rule.results[0], rule.factorSizes, t.operandRow(0).cells, MeshRef{"m", {}}, mesh);
        QCOMPARE(QString::fromStdString(res.toString()), QString("<@m, [{\"x\":(1)2}, {\"x\":(2)2, \"y\"}]>"));
    }

    void overflowClosesLaterFactors()
    {
        // Factor sizes i=6, j=2 on a dim sharded x*y (4*2): gcd(6,4)=2, then gcd(3,2)=1 -> overflow.
        Mesh mesh({{"x", 4}, {"y", 2}});
        TensorSharding s = sharding({dim({AxisRef("x"), AxisRef("y")}, false)});
        std::vector<FactorCell> c = projectToFactors({{0, 1}}, {6, 2}, &s, mesh);
        QCOMPARE(c[0].axes, std::vector<AxisRef>{AxisRef("x", 1, 2)});
        QCOMPARE(c[0].overflow, (std::vector<AxisRef>{AxisRef("x", 2, 2), AxisRef("y")}));
        QVERIFY(!c[0].closed);
        QVERIFY(c[1].present && c[1].closed && c[1].axes.empty());
        QCOMPARE(QString::fromStdString(FactorTable::cellString(c[0])), QString("\"x\":(1)2 | \"x\":(2)2, \"y\""));
        // Back-projection appends the overflow and stops.
        TensorSharding back = projectToTensor({{0, 1}}, {6, 2}, c, MeshRef{"m", {}}, mesh);
        QCOMPARE(QString::fromStdString(back.toString()), QString("<@m, [{\"x\", \"y\", ?}]>"));
    }

    void matmulTable()
    {
        OpShardingRule rule;
        rule.factorSizes = {8, 16, 32};
        rule.operands = {{{0}, {2}}, {{2}, {1}}};
        rule.results = {{{0}, {1}}};
        rule.reductionFactors = {2};
        Mesh mesh({{"a", 2}, {"b", 2}, {"c", 2}});
        FactorTable t =
            FactorTable::build(rule, {sharding({dim({AxisRef("a")}), dim({AxisRef("b")})}), std::nullopt},
                               {sharding({dim({AxisRef("a")}, false), dim({}, false)}, {AxisRef("c")})}, mesh);
        QCOMPARE(t.rows().size(), size_t(3));
        QCOMPARE(cells(t, 0), QString("\"a\" ; N ; \"b\""));
        QCOMPARE(cells(t, 1), QString("N ; - ; -"));
        QCOMPARE(cells(t, 2), QString("\"a\" ; - ; N"));
        QCOMPARE(t.resultRow(0).replicated, std::vector<AxisRef>{AxisRef("c")});
        QVERIFY(t.resultRow(0).isResult);
        QCOMPARE(t.resultRow(0).index, int64_t(0));
        QCOMPARE(QString::fromStdString(t.toString()), QString("operand 0: i=\"a\" | j=N | k=\"b\"\n"
                                                               "operand 1: i=N | j=- | k=-\n"
                                                               "result 0: i=\"a\" | j=- | k=N | replicated={\"c\"}\n"));
        // Missing shardings as closed (explicit-reshard mode).
        FactorTable closed = FactorTable::build(rule, {std::nullopt, std::nullopt}, {}, mesh, true);
        QVERIFY(closed.cell(0, 0).closed && closed.cell(2, 1).closed);
    }

    void subAxisInputAndSmallFactorStop()
    {
        Mesh mesh({{"x", 8}});
        // A dim sharded on "x":(2)4 with factors i=2, j=4: i takes "x":(2)2, j takes "x":(4)2.
        TensorSharding s = sharding({dim({AxisRef("x", 2, 4)})});
        std::vector<FactorCell> c = projectToFactors({{0, 1}}, {2, 4}, &s, mesh);
        QCOMPARE(c[0].axes, std::vector<AxisRef>{AxisRef("x", 2, 2)});
        QCOMPARE(c[1].axes, std::vector<AxisRef>{AxisRef("x", 4, 2)});
        // Back-projection: i is only 2 of 4 -> stop after i, j's axes are dropped.
        std::vector<FactorCell> cells2(2);
        cells2[0].present = cells2[1].present = true;
        cells2[0].axes = {AxisRef("x", 1, 2)};
        cells2[1].axes = {AxisRef("x", 2, 2)};
        TensorSharding back = projectToTensor({{0, 1}}, {4, 2}, cells2, MeshRef{"m", {}}, mesh);
        QCOMPARE(QString::fromStdString(back.toString()), QString("<@m, [{\"x\":(1)2, ?}]>"));
    }

    void unknownAxisDoesNotCrash()
    {
        Mesh mesh({{"x", 2}});
        TensorSharding s = sharding({dim({AxisRef("nope"), AxisRef("x")})});
        std::vector<FactorCell> c = projectToFactors({{0, 1}}, {2, 2}, &s, mesh);
        QVERIFY(c[0].present && c[1].present);
    }
};

QTEST_APPLESS_MAIN(TestFactorTable)
#include "tst_factor_table.moc"
