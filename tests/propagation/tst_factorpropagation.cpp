// Basic (SDY.md 4.4) and aggressive (4.5) factor propagation, worked by hand (projection: tests/rules).
#include <QtTest>

#include "core/io/MlirReader.h"
#include "core/propagation/FactorPropagation.h"
#include "core/propagation/StepCache.h"
#include "core/rules/ShardingProjection.h"

using namespace shardx;

namespace {

TensorSharding sharding(const std::string& body)
{
    DiagnosticList diags;
    ir::AttrPtr a = io::parseAttribute("#sdy.sharding<" + body + ">", diags);
    const ir::ShardingAttr* s = a ? a->as<ir::ShardingAttr>() : nullptr;
    if (!s)
        qFatal("bad sharding %s: %s", body.c_str(), diags.formatAll().c_str());
    return s->sharding;
}

std::string text(const TensorSharding& s) { return s.toString(); }

Mesh mesh(std::vector<std::pair<std::string, int64_t>> axes)
{
    std::vector<MeshAxis> list;
    for (auto& [n, sz] : axes)
        list.push_back(MeshAxis{n, sz});
    return Mesh(list);
}

AxisRef ax(const std::string& n) { return AxisRef(n); }
AxisRef sub(const std::string& n, int64_t pre, int64_t size) { return AxisRef(n, pre, size); }

/// A dot rule `([i, k], [k, j])->([i, j])`.
OpShardingRule dotRule(int64_t i, int64_t k, int64_t j)
{
    OpShardingRule r;
    r.factorSizes = {i, j, k};
    r.operands = {{{0}, {2}}, {{2}, {1}}};
    r.results = {{{0}, {1}}};
    r.reductionFactors = {2};
    return r;
}

} // namespace

class TestFactorPropagation : public QObject {
    Q_OBJECT

private slots:
    void reshapeSplitWorkedExample()
    {
        // SDY.md 4.13 (1): reshape 16 -> 4x4 with [{"x"}] on x=8.
        Mesh m = mesh({{"x", 8}});
        OpShardingRule rule;
        rule.factorSizes = {4, 4};
        rule.operands = {{{0, 1}}};
        rule.results = {{{0}, {1}}};
        TensorSharding op = sharding("@m, [{\"x\"}]");
        ShardingProjection p = buildProjection({&op}, {nullptr}, rule, m);
        QCOMPARE(p.operands[0].find(0)->axes, std::vector<AxisRef>{sub("x", 1, 4)});
        QCOMPARE(p.operands[0].find(1)->axes, std::vector<AxisRef>{sub("x", 4, 2)});
        FactorPropagationInput in;
        in.rule = &rule;
        in.mesh = &m;
        UpdatedTensors u = propagateBasic(p, in);
        QVERIFY(!u.operands[0] && u.results[0]);
        QCOMPARE(text(backProject(p.results[0], rule.results[0], rule.factorSizes, "m", m)),
                 std::string("<@m, [{\"x\":(1)4, ?}, {\"x\":(4)2, ?}]>"));
    }

    void mergeCompatibleAxesExamples()
    {
        Mesh m = mesh({{"a", 8}, {"b", 2}, {"c", 2}, {"d", 2}});
        bool canExpand = true;
        QCOMPARE(mergeCompatibleAxes({ax("a"), ax("b")}, {ax("a"), ax("c")}, canExpand, m),
                 std::vector<AxisRef>{ax("a")});
        QVERIFY(!canExpand);
        canExpand = true;
        std::vector<AxisRef> acc;
        for (const std::vector<AxisRef>& l :
             std::vector<std::vector<AxisRef>>{{ax("a")}, {}, {ax("a"), ax("b"), ax("c")}, {ax("a"), ax("b"), ax("d")}})
            acc = mergeCompatibleAxes(acc, l, canExpand, m);
        QCOMPARE(acc, (std::vector<AxisRef>{ax("a"), ax("b")}));
        canExpand = true;
        QCOMPARE(mergeCompatibleAxes({sub("a", 1, 2)}, {sub("a", 1, 4)}, canExpand, m),
                 std::vector<AxisRef>{sub("a", 1, 4)});
        canExpand = true;
        QCOMPARE(mergeCompatibleAxes({sub("a", 1, 2), ax("b")}, {sub("a", 1, 4)}, canExpand, m),
                 std::vector<AxisRef>{sub("a", 1, 2)});
    }

    void domainFactorTableExample()
    {
        // DOMAIN.md §2 / SDY.md 4.4: three tensors, each with F0..F2 (one per dimension).
        Mesh m = mesh({{"a", 2}, {"b", 2}, {"c", 2}, {"d", 2}, {"e", 2}, {"f", 2}, {"g", 2}});
        OpShardingRule rule;
        rule.factorSizes = {16, 16, 16};
        rule.operands = {{{0}, {1}, {2}}, {{0}, {1}, {2}}};
        rule.results = {{{0}, {1}, {2}}};
        TensorSharding t0 = sharding("@m, [{\"a\", ?}, {?}, {\"f\", ?}]");
        TensorSharding t1 = sharding("@m, [{\"a\", \"b\", ?}, {\"c\", \"d\", ?}, {\"g\", ?}]");
        TensorSharding t2 = sharding("@m, [{?}, {\"c\", \"e\", ?}, {?}]");
        ShardingProjection p = buildProjection({&t0, &t1}, {&t2}, rule, m);
        FactorPropagationInput in;
        in.rule = &rule;
        in.mesh = &m;
        PropagationDecisions decisions;
        UpdatedTensors u = propagateBasic(p, in, &decisions);
        QVERIFY(u.operands[0] && !u.operands[1] && u.results[0]);
        QCOMPARE(text(backProject(p.operands[0], rule.operands[0], rule.factorSizes, "m", m)),
                 std::string("<@m, [{\"a\", \"b\", ?}, {\"c\", ?}, {\"f\", ?}]>"));
        QCOMPARE(text(backProject(p.operands[1], rule.operands[1], rule.factorSizes, "m", m)), text(t1));
        QCOMPARE(text(backProject(p.results[0], rule.results[0], rule.factorSizes, "m", m)),
                 std::string("<@m, [{\"a\", \"b\", ?}, {\"c\", \"e\", ?}, {?}]>"));
        QCOMPARE(decisions.factors.size(), size_t(3));
        QCOMPARE(decisions.factors[0].compatible, (std::vector<AxisRef>{ax("a"), ax("b")}));
        QCOMPARE(decisions.factors[0].expandedTensors, (std::vector<int>{0, 2}));
        QCOMPARE(decisions.factors[1].result, std::vector<AxisRef>{ax("c")});
        QVERIFY(decisions.factors[2].compatible.empty());
    }

    void basicConflictAcrossFactorsAndDecision()
    {
        // SDY.md 4.13 (2): lhs [{"a"}, {}], rhs [{}, {"a"}]: basic shards nothing.
        Mesh m = mesh({{"a", 2}});
        OpShardingRule rule = dotRule(8, 8, 8);
        TensorSharding lhs = sharding("@m, [{\"a\"}, {}]");
        TensorSharding rhs = sharding("@m, [{}, {\"a\"}]");
        ShardingProjection p = buildProjection({&lhs, &rhs}, {nullptr}, rule, m);
        FactorPropagationInput in;
        in.rule = &rule;
        in.mesh = &m;
        PropagationDecisions decisions;
        QVERIFY(!propagateBasic(p, in, &decisions).any());
        const FactorDecision& i = decisions.factors[0];
        QCOMPARE(i.compatible, std::vector<AxisRef>{ax("a")});
        QVERIFY(i.result.empty());
        QCOMPARE(i.truncations.size(), size_t(1));
        QCOMPARE(i.truncations[0].reason, TruncationReason::ConflictAcrossFactors);
        QCOMPARE(i.truncations[0].tensor, 1);
        QCOMPARE(i.truncations[0].otherFactor, int64_t(1));
    }

    void basicClosedAndReplicatedBlock()
    {
        Mesh m = mesh({{"a", 2}, {"b", 2}});
        OpShardingRule rule;
        rule.factorSizes = {8};
        rule.operands = {{{0}}};
        rule.results = {{{0}}, {{0}}};
        TensorSharding op = sharding("@m, [{\"a\", \"b\"}]");
        TensorSharding closed = sharding("@m, [{\"a\"}]");
        ShardingProjection p = buildProjection({&op}, {&closed, nullptr}, rule, m);
        FactorPropagationInput in;
        in.rule = &rule;
        in.mesh = &m;
        PropagationDecisions d;
        propagateBasic(p, in, &d);
        // The closed result caps the factor at "a" for everybody.
        QCOMPARE(p.results[1].find(0)->axes, std::vector<AxisRef>{ax("a")});
        QCOMPARE(d.factors[0].truncations.at(0).reason, TruncationReason::Closed);
        // Replicated "a" on a result blocks "a" (and everything after it).
        TensorSharding rep = sharding("@m, [{?}], replicated={\"a\"}");
        p = buildProjection({&op}, {&rep, nullptr}, rule, m);
        QVERIFY(!propagateBasic(p, in).any());
    }

    void basicNonDivisibleSplitsSubAxis()
    {
        // Non-minor-most factor of size 2 accepts only "x":(1)2 of x=4.
        Mesh m = mesh({{"x", 4}});
        OpShardingRule rule;
        rule.factorSizes = {2, 4};
        rule.operands = {{{0}, {1}}};
        rule.results = {{{0, 1}}};
        TensorSharding op = sharding("@m, [{\"x\"}, {}]");
        ShardingProjection p = buildProjection({&op}, {nullptr}, rule, m);
        FactorPropagationInput in;
        in.rule = &rule;
        in.mesh = &m;
        propagateBasic(p, in);
        QCOMPARE(p.results[0].find(0)->axes, std::vector<AxisRef>{sub("x", 1, 2)});
        in.conservative = true;
        p = buildProjection({&op}, {nullptr}, rule, m);
        QVERIFY(!propagateBasic(p, in).any());
    }

    void aggressiveTieBreaksOnSourceIndex()
    {
        Mesh m = mesh({{"a", 2}});
        OpShardingRule rule = dotRule(8, 8, 8);
        TensorSharding lhs = sharding("@m, [{\"a\"}, {}]");
        TensorSharding rhs = sharding("@m, [{}, {\"a\"}]");
        ShardingProjection p = buildProjection({&lhs, &rhs}, {nullptr}, rule, m);
        FactorPropagationInput in;
        in.rule = &rule;
        in.mesh = &m;
        PropagationDecisions d;
        UpdatedTensors u = propagateAggressive(p, in, &d);
        QVERIFY(u.results[0]);
        QCOMPARE(text(backProject(p.results[0], rule.results[0], rule.factorSizes, "m", m)),
                 std::string("<@m, [{\"a\", ?}, {?}]>"));
        QCOMPARE(d.factors[0].sourceTensor, 0);
        QCOMPARE(d.factors[1].sourceTensor, 1);
        QCOMPARE(d.factors[0].order, 0);
    }

    void aggressivePrefersLargerSource()
    {
        // rhs 8x16 is larger than lhs 8x8: factor j wins.
        Mesh m = mesh({{"a", 2}});
        OpShardingRule rule = dotRule(8, 8, 16);
        TensorSharding lhs = sharding("@m, [{\"a\"}, {}]");
        TensorSharding rhs = sharding("@m, [{}, {\"a\"}]");
        ShardingProjection p = buildProjection({&lhs, &rhs}, {nullptr}, rule, m);
        FactorPropagationInput in;
        in.rule = &rule;
        in.mesh = &m;
        propagateAggressive(p, in);
        QCOMPARE(text(backProject(p.results[0], rule.results[0], rule.factorSizes, "m", m)),
                 std::string("<@m, [{?}, {\"a\", ?}]>"));
    }

    void aggressiveElementwiseOperandNotMoreShardedThanResult()
    {
        // add(%x [{"a", ?}], %y [{?}]) with a closed empty result does not shard %y.
        Mesh m = mesh({{"a", 2}});
        OpShardingRule rule;
        rule.factorSizes = {8};
        rule.operands = {{{0}}, {{0}}};
        rule.results = {{{0}}};
        TensorSharding x = sharding("@m, [{\"a\", ?}]");
        TensorSharding y = sharding("@m, [{?}]");
        TensorSharding r = sharding("@m, [{}]");
        ShardingProjection p = buildProjection({&x, &y}, {&r}, rule, m);
        FactorPropagationInput in;
        in.rule = &rule;
        in.mesh = &m;
        in.elementwise = true;
        QVERIFY(!propagateAggressive(p, in).any());
        in.elementwise = false;
        p = buildProjection({&x, &y}, {&r}, rule, m);
        UpdatedTensors u = propagateAggressive(p, in);
        QVERIFY(u.operands[1] && !u.results[0]);
    }

    void directions()
    {
        using D = PropagationDirection;
        QCOMPARE(unionOf(D::Forward, D::Backward), D::Both);
        QCOMPARE(unionOf(D::None, D::Forward), D::Forward);
        QCOMPARE(intersectionOf(D::Forward, D::Backward), D::None);
        QCOMPARE(intersectionOf(D::Both, D::Backward), D::Backward);
        // FORWARD: results cannot extend what operands agree on.
        Mesh m = mesh({{"a", 2}, {"b", 2}});
        OpShardingRule rule;
        rule.factorSizes = {8};
        rule.operands = {{{0}}};
        rule.results = {{{0}}};
        TensorSharding op = sharding("@m, [{\"a\", ?}]");
        TensorSharding res = sharding("@m, [{\"a\", \"b\", ?}]");
        ShardingProjection p = buildProjection({&op}, {&res}, rule, m);
        FactorPropagationInput in;
        in.rule = &rule;
        in.mesh = &m;
        in.direction = [](int64_t) { return D::Forward; };
        QVERIFY(!propagateBasic(p, in).any());
        in.direction = [](int64_t) { return D::Backward; };
        QVERIFY(propagateBasic(p, in).operands[0]);
    }

    void stepCacheComparesInputsByContent()
    {
        using D = PropagationDirection;
        Mesh m = mesh({{"a", 2}, {"b", 2}});
        const std::string meshName = "m";
        OpShardingRule rule = dotRule(8, 4, 8);
        TensorSharding x = sharding("@m, [{\"a\"}, {}]");
        TensorSharding y = sharding("@m, [{}, {\"b\"}]");
        std::vector<const TensorSharding*> shardings = {&x, &y, nullptr};
        std::vector<D> dirs = {D::Both, D::Both, D::Both};
        StepCache::Key key;
        key.rule = &rule;
        key.mesh = &m;
        key.meshName = &meshName;
        key.shardings = &shardings;
        key.directions = &dirs;
        key.aggressive = true;
        StepCache cache;
        QVERIFY(!cache.find(key, StepCache::hashOf(key)));
        StepOutcome outcome;
        outcome.updated = {0, 0, 1};
        const uint64_t id = cache.insert(key, StepCache::hashOf(key), std::move(outcome)).record.outcomeId;
        QVERIFY(id != 0);

        // Equal shardings at other addresses find the outcome (rules are hashed by address).
        TensorSharding x2 = sharding("@m, [{\"a\"}, {}]");
        TensorSharding y2 = sharding("@m, [{}, {\"b\"}]");
        std::vector<const TensorSharding*> shardings2 = {&x2, &y2, nullptr};
        StepCache::Key same = key;
        same.shardings = &shardings2;
        StepOutcome* found = cache.find(same, StepCache::hashOf(same));
        QVERIFY(found);
        QCOMPARE(found->record.outcomeId, id);
        QCOMPARE(found->updated[2], char(1));

        // Any input that differs misses: a sharding, a missing one, a direction, the strategy.
        TensorSharding y3 = sharding("@m, [{}, {\"a\"}]");
        std::vector<const TensorSharding*> shardings3 = {&x, &y3, nullptr};
        StepCache::Key other = key;
        other.shardings = &shardings3;
        QVERIFY(!cache.find(other, StepCache::hashOf(other)));
        std::vector<const TensorSharding*> shardings4 = {&x, nullptr, nullptr};
        other.shardings = &shardings4;
        QVERIFY(!cache.find(other, StepCache::hashOf(other)));
        std::vector<D> dirs2 = {D::Both, D::Forward, D::Both};
        other = key;
        other.directions = &dirs2;
        QVERIFY(!cache.find(other, StepCache::hashOf(other)));
        other = key;
        other.aggressive = false;
        QVERIFY(!cache.find(other, StepCache::hashOf(other)));
        OpShardingRule rule3 = dotRule(8, 4, 8);
        rule3.reductionFactors.clear();
        other = key;
        other.rule = &rule3;
        QVERIFY(!cache.find(other, StepCache::hashOf(other)));
        QCOMPARE(cache.size(), size_t(1));
    }
};

QTEST_APPLESS_MAIN(TestFactorPropagation)
#include "tst_factorpropagation.moc"
