// The factor table: projection of tensor shardings onto rule factors and back (SDY.md 4.3), and its text.
#include <QtTest>

#include "core/rules/ShardingProjection.h"

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
    s.mesh.symbol = "m";
    s.dims = std::move(dims);
    s.replicated = std::move(replicated);
    return s;
}

AxisRef ax(const std::string& n) { return AxisRef(n); }
AxisRef sub(const std::string& n, int64_t pre, int64_t size) { return AxisRef(n, pre, size); }

/// The cells of row `t` for factors 0..numFactors-1, joined by " ; ".
QString cells(const ShardingProjection& p, int t, int64_t numFactors)
{
    QStringList parts;
    for (int64_t f = 0; f < numFactors; ++f)
        parts << QString::fromStdString(factorCellString(p.tensor(t).find(f)));
    return parts.join(" ; ");
}

QString text(const TensorSharding& s) { return QString::fromStdString(s.toString()); }

} // namespace

class TestShardingProjection : public QObject {
    Q_OBJECT
private slots:
    void splitAxisAcrossCompoundFactors()
    {
        // SDY.md 4.3: ([ij])->([i, j]) {i=2, j=8}, mesh x=4, y=4, operand [{"x", "y"}]: i is not
        // minor-most and gcd(2, 4) = 2 < 4, so i takes "x":(1)2; j takes the rest.
        OpShardingRule rule;
        rule.factorSizes = {2, 8};
        rule.operands = {{{0, 1}}};
        rule.results = {{{0}, {1}}};
        Mesh mesh({{"x", 4}, {"y", 4}});
        TensorSharding op = sharding({dim({ax("x"), ax("y")})});
        ShardingProjection p = buildProjection({&op}, {nullptr}, rule, mesh);
        const TensorFactorShardings& t = p.operands[0];
        QCOMPARE(t.find(0)->axes, std::vector<AxisRef>{sub("x", 1, 2)});
        QCOMPARE(t.find(1)->axes, (std::vector<AxisRef>{sub("x", 2, 2), ax("y")}));
        QCOMPARE(cells(p, 0, 2), QString("\"x\":(1)2 ; \"x\":(2)2, \"y\""));
        QVERIFY(t.hasSharding);
        QVERIFY(t.find(0)->closed && t.find(1)->closed);
        QVERIFY(!t.find(0)->minorMost && t.find(1)->minorMost);
        // The result has no sharding: both factors present, empty and open.
        const TensorFactorShardings& r = p.results[0];
        QCOMPARE(cells(p, 1, 2), QString("- ; -"));
        QVERIFY(!r.hasSharding);
        QVERIFY(r.find(0)->axes.empty() && !r.find(0)->closed);
        QVERIFY(r.find(1)->axes.empty() && !r.find(1)->closed);
        QVERIFY(r.find(0)->minorMost && r.find(1)->minorMost);
        // Back-projection merges "x":(1)2 and "x":(2)2 into "x".
        QCOMPARE(text(backProject(t, rule.operands[0], rule.factorSizes, "m", mesh)),
                 QString("<@m, [{\"x\", \"y\"}]>"));
        // The result dims take the operand's factor axes.
        QCOMPARE(text(backProject(t, rule.results[0], rule.factorSizes, "m", mesh)),
                 QString("<@m, [{\"x\":(1)2}, {\"x\":(2)2, \"y\"}]>"));
    }

    void overflowClosesLaterFactors()
    {
        // SDY.md 4.3: factors i=6, j=2 on [{"x", "y", ?}], x=4, y=2: i takes "x":(1)2
        // (gcd(6, 4) = 2), then gcd(3, 2) = 1 with r = 3: overflow; j is closed and empty.
        Mesh mesh({{"x", 4}, {"y", 2}});
        TensorSharding s = sharding({dim({ax("x"), ax("y")}, false)});
        TensorFactorShardings t = projectTensor(&s, {{0, 1}}, {6, 2}, mesh);
        QCOMPARE(t.find(0)->axes, std::vector<AxisRef>{sub("x", 1, 2)});
        QCOMPARE(t.find(0)->overflowAxes, (std::vector<AxisRef>{sub("x", 2, 2), ax("y")}));
        QVERIFY(!t.find(0)->closed);
        QVERIFY(t.find(1)->closed && t.find(1)->axes.empty());
        QCOMPARE(QString::fromStdString(factorCellString(t.find(0))), QString("\"x\":(1)2 | \"x\":(2)2, \"y\""));
        // Back-projection appends the overflow and stops: the dimension is unchanged.
        QCOMPARE(text(backProject(t, {{0, 1}}, {6, 2}, "m", mesh)), QString("<@m, [{\"x\", \"y\", ?}]>"));
        // Every factor after the overflowing one is closed, not just the next one.
        TensorFactorShardings three = projectTensor(&s, {{0, 1, 2}}, {6, 2, 2}, mesh);
        QVERIFY(!three.find(0)->closed && three.find(1)->closed && three.find(2)->closed);
    }

    void matmulTableText()
    {
        OpShardingRule rule;
        rule.factorSizes = {8, 16, 32};
        rule.operands = {{{0}, {2}}, {{2}, {1}}};
        rule.results = {{{0}, {1}}};
        rule.reductionFactors = {2};
        Mesh mesh({{"a", 2}, {"b", 2}, {"c", 2}});
        TensorSharding lhs = sharding({dim({ax("a")}), dim({ax("b")})});
        TensorSharding res = sharding({dim({ax("a")}, false), dim({}, false)}, {ax("c")});
        ShardingProjection p = buildProjection({&lhs, nullptr}, {&res}, rule, mesh);
        QCOMPARE(p.numTensors(), 3);
        QCOMPARE(cells(p, 0, 3), QString("\"a\" ; N ; \"b\""));
        QCOMPARE(cells(p, 1, 3), QString("N ; - ; -"));
        QCOMPARE(cells(p, 2, 3), QString("\"a\" ; - ; N"));
        QCOMPARE(p.results[0].replicated, std::vector<AxisRef>{ax("c")});
        QVERIFY(!p.isResult(1) && p.isResult(2));
        QCOMPARE(p.indexOf(1), 1);
        QCOMPARE(p.indexOf(2), 0);
        QCOMPARE(p.rowName(2), std::string("result 0"));
        QVERIFY(p.operands[0].hasSharding && !p.operands[1].hasSharding && p.results[0].hasSharding);
        QCOMPARE(QString::fromStdString(factorTableString(p, rule.numFactors())),
                 QString("operand 0: i=\"a\" | j=N | k=\"b\"\n"
                         "operand 1: i=N | j=- | k=-\n"
                         "result 0: i=\"a\" | j=- | k=N | replicated={\"c\"}\n"));
        // Unreduced axes follow, with their kind when it is not sum.
        p.results[0].unreduced = {ax("b")};
        p.results[0].unreducedKind = ReductionKind::Max;
        QCOMPARE(QString::fromStdString(factorRowString(p, 2, rule.numFactors())),
                 QString("result 0: i=\"a\" | j=- | k=N | replicated={\"c\"} | unreduced=max{\"b\"}"));
        // Missing shardings as closed (explicit-reshard mode).
        ShardingProjection closed = buildProjection({nullptr, nullptr}, {}, rule, mesh, true);
        QCOMPARE(closed.numTensors(), 3);
        QVERIFY(closed.tensor(0).find(0)->closed && closed.tensor(2).find(1)->closed);
        QVERIFY(!closed.tensor(2).hasSharding);
    }

    void subAxisInputAndSmallFactorStop()
    {
        Mesh mesh({{"x", 8}});
        // A dim sharded on "x":(2)4 with factors i=2, j=4: i takes "x":(2)2, j takes "x":(4)2.
        TensorSharding s = sharding({dim({sub("x", 2, 4)})});
        TensorFactorShardings t = projectTensor(&s, {{0, 1}}, {2, 4}, mesh);
        QCOMPARE(t.find(0)->axes, std::vector<AxisRef>{sub("x", 2, 2)});
        QCOMPARE(t.find(1)->axes, std::vector<AxisRef>{sub("x", 4, 2)});
        // Back-projection: i holds only 2 of 4, so it stops after i and j's axes are dropped.
        TensorFactorShardings cells2;
        cells2.factors[0] = FactorSharding{{sub("x", 1, 2)}, {}, false, false};
        cells2.factors[1] = FactorSharding{{sub("x", 2, 2)}, {}, false, true};
        QCOMPARE(text(backProject(cells2, {{0, 1}}, {4, 2}, "m", mesh)), QString("<@m, [{\"x\":(1)2, ?}]>"));
    }

    void backProjectionStopsAtPartialFactor()
    {
        // i=4 holds only "x" (2 < 4): j's axes would need a strided layout and are dropped.
        Mesh mesh({{"x", 2}, {"y", 2}});
        TensorFactorShardings t;
        t.factors[0] = FactorSharding{{ax("x")}, {}, false, false};
        t.factors[1] = FactorSharding{{ax("y")}, {}, false, true};
        QCOMPARE(text(backProject(t, {{0, 1}}, {4, 2}, "m", mesh)), QString("<@m, [{\"x\", ?}]>"));
        t.factors[0].axes = {ax("x"), ax("y")};
        t.factors[1].axes = {};
        t.factors[1].closed = true;
        QCOMPARE(text(backProject(t, {{0, 1}}, {4, 2}, "m", mesh)), QString("<@m, [{\"x\", \"y\"}]>"));
    }

    void nonMinorFactorTakesWholePiecesAsTheyAre()
    {
        // SDY.md 4.3: a factor that is not minor-most takes a whole piece "as the original axis
        // ref"; only the minor-most factor merges consecutive sub-axes. Derived by hand for
        // i=4, j=2 on [{"x":(1)2, "x":(2)2}] (x=8; a list the verifier rejects, but projection
        // must not rewrite it): i: gcd(4, 2) = 2 = |"x":(1)2| takes it whole, r = 2; gcd(2, 2) = 2
        // takes "x":(2)2 whole, r = 1; j is minor-most and gets nothing. So i holds both
        // sub-axes unmerged (not "x":(1)4), and back-projection gives the dimension back as it was.
        Mesh mesh({{"x", 8}});
        TensorSharding s = sharding({dim({sub("x", 1, 2), sub("x", 2, 2)})});
        TensorFactorShardings t = projectTensor(&s, {{0, 1}}, {4, 2}, mesh);
        QCOMPARE(t.find(0)->axes, (std::vector<AxisRef>{sub("x", 1, 2), sub("x", 2, 2)}));
        QVERIFY(t.find(1)->axes.empty() && t.find(1)->overflowAxes.empty());
        QCOMPARE(text(backProject(t, {{0, 1}}, {4, 2}, "m", mesh)), QString("<@m, [{\"x\":(1)2, \"x\":(2)2}]>"));
        // The same pieces on the minor-most factor are merged: j=8 alone takes "x":(1)4.
        TensorFactorShardings minor = projectTensor(&s, {{0}}, {8}, mesh);
        QCOMPARE(minor.find(0)->axes, std::vector<AxisRef>{sub("x", 1, 4)});
        // A split leaves the rest of the axis as the sub-axis "x":(pre*g)(|piece|/g): with
        // i=2, j=2, k=2 on [{"x"}], i takes "x":(1)2, j the split-off "x":(2)2 and k the
        // remaining piece "x":(4)2, none of them written as the full axis.
        TensorSharding full = sharding({dim({ax("x")})});
        TensorFactorShardings three = projectTensor(&full, {{0, 1, 2}}, {2, 2, 2}, mesh);
        QCOMPARE(three.find(0)->axes, std::vector<AxisRef>{sub("x", 1, 2)});
        QCOMPARE(three.find(1)->axes, std::vector<AxisRef>{sub("x", 2, 2)});
        QCOMPARE(three.find(2)->axes, std::vector<AxisRef>{sub("x", 4, 2)});
        QCOMPARE(text(backProject(three, {{0, 1, 2}}, {2, 2, 2}, "m", mesh)), QString("<@m, [{\"x\"}]>"));
    }

    void strictPrefix()
    {
        Mesh mesh({{"a", 8}, {"b", 2}});
        QVERIFY(isStrictPrefix({}, {ax("a")}, mesh));
        QVERIFY(!isStrictPrefix({}, {}, mesh));
        QVERIFY(isStrictPrefix({ax("a")}, {ax("a"), ax("b")}, mesh));
        QVERIFY(!isStrictPrefix({ax("a"), ax("b")}, {ax("a"), ax("b")}, mesh));
        QVERIFY(!isStrictPrefix({ax("a"), ax("b")}, {ax("a")}, mesh));
        QVERIFY(isStrictPrefix({sub("a", 1, 2)}, {ax("a")}, mesh));
        QVERIFY(isStrictPrefix({ax("b"), sub("a", 1, 2)}, {ax("b"), sub("a", 1, 4)}, mesh));
        QVERIFY(!isStrictPrefix({sub("a", 2, 2)}, {ax("a")}, mesh));
        QVERIFY(!isStrictPrefix({ax("b")}, {ax("a"), ax("b")}, mesh));
    }

    void identityRuleShape()
    {
        OpShardingRule r = identityRule({4, 6}, 2, 1);
        QCOMPARE(r.factorSizes, (std::vector<int64_t>{4, 6}));
        QCOMPARE(r.operands.size(), size_t(2));
        QCOMPARE(r.results.size(), size_t(1));
        QCOMPARE(r.results[0], (TensorFactorMapping{{0}, {1}}));
    }

    void unknownAxisDoesNotCrash()
    {
        // An axis missing from the mesh counts as size 1: i keeps it and then takes "x" whole.
        Mesh mesh({{"x", 2}});
        TensorSharding s = sharding({dim({ax("nope"), ax("x")})});
        TensorFactorShardings t = projectTensor(&s, {{0, 1}}, {2, 2}, mesh);
        QVERIFY(t.hasFactor(0) && t.hasFactor(1));
        QCOMPARE(t.find(0)->axes, (std::vector<AxisRef>{ax("nope"), ax("x")}));
    }
};

QTEST_APPLESS_MAIN(TestShardingProjection)
#include "tst_sharding_projection.moc"
