// Tests of tensor sharding verification (SDY.md 1.2-1.5), rule verification (1.8) and isEquivalent.
#include <QtTest>

#include "core/ir/Type.h"
#include "core/sharding/RuleVerifier.h"
#include "core/sharding/ShardingVerifier.h"

using namespace shardx;
using ir::Type;

namespace {

MeshRef ref(const char* name) { return MeshRef{name, std::nullopt}; }

DimSharding dim(std::vector<AxisRef> axes, bool closed = true, std::optional<int64_t> prio = std::nullopt)
{
    return DimSharding{std::move(axes), closed, prio};
}

TensorSharding sharding(std::vector<DimSharding> dims, std::vector<AxisRef> replicated = {},
                        std::vector<AxisRef> unreduced = {}, const char* mesh = "m")
{
    TensorSharding s;
    s.mesh = ref(mesh);
    s.dims = std::move(dims);
    s.replicated = std::move(replicated);
    s.unreduced = std::move(unreduced);
    return s;
}

const Mesh kMesh({{"a", 8}, {"b", 2}, {"c", 4}});
const Mesh kMaximal({}, {3});

const Mesh* lookup(const MeshRef& r)
{
    if (r.symbol == "m")
        return &kMesh;
    if (r.symbol == "max")
        return &kMaximal;
    return nullptr;
}

QString verify(const TensorSharding& s, const Type* t, const std::vector<std::string>& manual = {})
{
    const std::optional<TypeShape> shape = t ? std::optional<TypeShape>(t->typeShape()) : std::nullopt;
    auto err = verifyTensorSharding(s, shape ? &*shape : nullptr, MeshLookup(lookup), manual);
    return err ? QString::fromStdString(*err) : QString();
}

AxisRef A(const char* n) { return AxisRef(n); }
AxisRef S(const char* n, int64_t pre, int64_t size) { return AxisRef(n, pre, size); }

} // namespace

class TestShardingVerifier : public QObject {
    Q_OBJECT
private slots:
    void validShardings()
    {
        Type t = Type::tensor({8, 8}, "f32");
        QCOMPARE(verify(sharding({dim({A("a")}), dim({})}), &t), QString());
        QCOMPARE(verify(sharding({dim({A("b"), S("a", 1, 2)}, false, 1), dim({S("a", 2, 4)})}, {A("c")}), &t),
                 QString());
        // non-divisible dims are legal
        Type odd = Type::tensor({7, 3}, "f32");
        QCOMPARE(verify(sharding({dim({A("a")}), dim({A("c")})}), &odd), QString());
        // dynamic dims are fine
        Type dyn = Type::tensor({Type::kDynamic, 4}, "f32");
        QCOMPARE(verify(sharding({dim({A("a")}), dim({})}), &dyn), QString());
        // open dim with priority is legal
        QCOMPARE(verify(sharding({dim({}, false, 2), dim({})}), &t), QString());
        // explicit p0 on a non-empty closed dim
        QCOMPARE(verify(sharding({dim({A("a")}, true, 0), dim({})}), &t), QString());
    }
    void unknownMesh()
    {
        Type t = Type::tensor({8}, "f32");
        QCOMPARE(verify(sharding({dim({})}, {}, {}, "other"), &t), QStringLiteral("unknown mesh: @other"));
        TensorSharding inl = sharding({dim({A("x")})});
        inl.mesh = MeshRef{"", Mesh({{"x", 2}})};
        QCOMPARE(verify(inl, &t), QString());
    }
    void maximalMesh()
    {
        Type t = Type::tensor({8, 8}, "f32");
        QCOMPARE(verify(sharding({}, {}, {}, "max"), &t), QString()); // type not compared
        QVERIFY(verify(sharding({dim({}), dim({})}, {}, {}, "max"), &t).contains("maximal sharding"));
        // no type (op without results) and no dim axes: rank 0 required
        QCOMPARE(verify(sharding({}), nullptr), QString());
        QVERIFY(verify(sharding({}, {A("a")}), nullptr).contains("rank 0"));
    }
    void tuplesTokensUnranked()
    {
        Type tup1 = Type::tuple({Type::tensor({8}, "f32")});
        QCOMPARE(verify(sharding({dim({A("a")})}), &tup1), QString());
        Type tup2 = Type::tuple({Type::tensor({8}, "f32"), Type::tensor({8}, "f32")});
        QVERIFY(verify(sharding({dim({A("a")})}), &tup2).contains("tuple"));
        Type tok = Type::token();
        QCOMPARE(verify(sharding({}), &tok), QString());
        QCOMPARE(verify(sharding({dim({})}), &tok),
                 QStringLiteral(
                     "non-shaped tensors can only have a sharding with rank 0 and no replicated or unreduced axes"));
        Type unr = Type::unrankedTensor("f32");
        QCOMPARE(verify(sharding({}), &unr), QStringLiteral("only ranked tensors can have a sharding"));
    }
    void rank()
    {
        Type t = Type::tensor({8}, "f32");
        QCOMPARE(verify(sharding({dim({}), dim({A("a")})}), &t),
                 QStringLiteral("sharding doesn't match tensor rank: 2 != 1"));
    }
    void priorities()
    {
        Type t = Type::tensor({8, 8}, "f32");
        QCOMPARE(verify(sharding({dim({A("a")}), dim({}, true, 3)}), &t),
                 QStringLiteral("dim 1 is empty and closed but has a priority"));
        QCOMPARE(verify(sharding({dim({A("a")}, true, -1), dim({})}), &t),
                 QStringLiteral("dim 0 has a negative priority"));
    }
    void axisLists()
    {
        Type t = Type::tensor({8, 8}, "f32");
        QCOMPARE(verify(sharding({dim({A("z")}), dim({})}), &t), QStringLiteral("unknown axis name: \"z\""));
        QCOMPARE(verify(sharding({dim({A("a"), A("a")}), dim({})}), &t), QStringLiteral("duplicate axis ref: \"a\""));
        QCOMPARE(verify(sharding({dim({A("a")}), dim({A("a")})}), &t), QStringLiteral("duplicate axis ref: \"a\""));
        QCOMPARE(verify(sharding({dim({A("a")}), dim({})}, {A("a")}), &t), QStringLiteral("duplicate axis ref: \"a\""));
        QCOMPARE(verify(sharding({dim({S("a", 2, 2), S("a", 4, 2)}), dim({})}), &t),
                 QStringLiteral("two consecutive sub-axes can be merged: \"a\":(2)2, \"a\":(4)2"));
        // non-adjacent mergeable sub-axes are fine as far as rule 3 goes
        QCOMPARE(verify(sharding({dim({S("a", 1, 2), A("b"), S("a", 2, 2)}), dim({})}), &t), QString());
    }
    void orderedLists()
    {
        Type t = Type::tensor({8}, "f32");
        QCOMPARE(verify(sharding({dim({})}, {A("c"), A("b")}), &t),
                 QStringLiteral("replicated axes are not ordered w.r.t. mesh"));
        QCOMPARE(verify(sharding({dim({})}, {}, {A("c"), A("a")}), &t),
                 QStringLiteral("unreduced axes are not ordered w.r.t. mesh"));
        QCOMPARE(verify(sharding({dim({})}, {A("b"), A("c")}, {A("a")}), &t), QString());
        QCOMPARE(verify(sharding({dim({})}, {S("a", 1, 2), S("a", 4, 2)}), &t), QString());
        QCOMPARE(verify(sharding({dim({})}, {S("a", 4, 2), S("a", 1, 2)}), &t),
                 QStringLiteral("replicated axes are not ordered w.r.t. mesh"));
    }
    void subAxes()
    {
        Type t = Type::tensor({8, 8}, "f32");
        QCOMPARE(verify(sharding({dim({S("a", -1, 2)}), dim({})}), &t),
                 QStringLiteral("sub-axis pre-size must be at least 1: \"a\":(-1)2"));
        QCOMPARE(verify(sharding({dim({S("a", 2, 1)}), dim({})}), &t),
                 QStringLiteral("sub-axis size must be greater than 1: \"a\":(2)1"));
        QCOMPARE(verify(sharding({dim({S("a", 2, 3)}), dim({})}), &t),
                 QStringLiteral("sub-axis next pre-size 6 doesn't divide the size of the full axis 8: \"a\":(2)3"));
        QVERIFY(verify(sharding({dim({S("a", 4, 4)}), dim({})}), &t).contains("next pre-size 16"));
        QVERIFY(verify(sharding({dim({S("a", 1, 8)}), dim({})}), &t).contains("equal to the full axis size"));
        QCOMPARE(verify(sharding({dim({S("a", 1, 2)}), dim({})}, {A("a")}), &t),
                 QStringLiteral("both sub-axis and full-axis are used for axis name: \"a\""));
        QCOMPARE(verify(sharding({dim({S("a", 1, 4)}), dim({S("a", 2, 4)})}), &t),
                 QStringLiteral("overlapping sub-axes: \"a\":(1)4, \"a\":(2)4"));
        QCOMPARE(verify(sharding({dim({S("a", 1, 2)}), dim({S("a", 2, 4)})}), &t), QString());
    }
    void manualAxes()
    {
        Type t = Type::tensor({8, 8}, "f32");
        QCOMPARE(verify(sharding({dim({}), dim({})}, {A("a")}), &t, {"a"}),
                 QStringLiteral("operates on axis \"a\" which is already bound by a parent sdy.manual_computation op"));
        QCOMPARE(verify(sharding({dim({S("a", 1, 2)}), dim({})}), &t, {"a"}),
                 QStringLiteral("operates on axis \"a\" which is already bound by a parent sdy.manual_computation op"));
        QCOMPARE(verify(sharding({dim({A("b")}), dim({})}), &t, {"a"}), QString());
    }
    void equivalence()
    {
        TensorSharding s1 = sharding({dim({A("a")}, false), dim({})}, {A("b")});
        TensorSharding s2 = sharding({dim({A("a")}, true, 2), dim({})});
        QVERIFY(isEquivalent(&s1, &s2));
        TensorSharding s3 = sharding({dim({}), dim({A("a")})});
        QVERIFY(!isEquivalent(&s1, &s3));
        TensorSharding empty = sharding({dim({}), dim({}, false)}, {A("a")});
        QVERIFY(isEquivalent(&empty, nullptr));
        QVERIFY(isEquivalent(nullptr, &empty));
        QVERIFY(!isEquivalent(&s1, nullptr));
        TensorSharding u = sharding({dim({}), dim({})}, {}, {A("a")});
        QVERIFY(!isEquivalent(&u, nullptr));
        QVERIFY(isEquivalent(&u, nullptr, true));
        TensorSharding other = s2;
        other.mesh = ref("n");
        QVERIFY(!isEquivalent(&s1, &other));
        TensorSharding su1 = sharding({dim({A("b")})}, {}, {A("a")});
        TensorSharding su2 = sharding({dim({A("b")})}, {}, {A("c")});
        QVERIFY(!isEquivalent(&su1, &su2));
        QVERIFY(isEquivalent(&su1, &su2, true));
    }
    void ruleVerification()
    {
        auto t = [](std::vector<int64_t> s) { return TypeShape::ranked(std::move(s)); };
        OpShardingRule r;
        r.factorSizes = {8, 16, 32};
        r.operands = {{{0}, {2}}, {{2}, {1}}};
        r.results = {{{0}, {1}}};
        r.reductionFactors = {2};
        auto ok = verifyOpShardingRule(r, {t({8, 32}), t({32, 16})}, {t({8, 16})});
        QVERIFY2(!ok, ok ? ok->c_str() : "");
        auto msg = [&](const OpShardingRule& rule, std::vector<TypeShape> ops, std::vector<TypeShape> res) {
            auto e = verifyOpShardingRule(rule, ops, res);
            return e ? QString::fromStdString(*e) : QString();
        };
        QCOMPARE(msg(r, {t({8, 32})}, {t({8, 16})}),
                 QStringLiteral("number of operands and mappings must match: 1 != 2"));
        QCOMPARE(msg(r, {t({8, 32}), t({kDynamicSize, 16})}, {t({8, 16})}),
                 QStringLiteral("operand 1 - expected a ranked tensor with a static shape"));
        QCOMPARE(msg(r, {t({8, 32}), t({32})}, {t({8, 16})}),
                 QStringLiteral("operand 1 - mapping rank must match: 2 != 1"));
        QCOMPARE(msg(r, {t({8, 32}), t({32, 16})}, {t({8, 16}), t({8})}),
                 QStringLiteral("number of results and mappings must match: 2 != 1"));
        OpShardingRule bad = r;
        bad.operands[0][1] = {};
        QCOMPARE(msg(bad, {t({8, 32}), t({32, 16})}, {t({8, 16})}),
                 QStringLiteral("operand 0 - dim mapping must have at least one factor"));
        bad = r;
        bad.operands[0][1] = {12};
        QCOMPARE(
            msg(bad, {t({8, 32}), t({32, 16})}, {t({8, 16})}),
            QStringLiteral(
                "operand 0 - expecting factor indices to be within 0<=...<num_factors; received: 12, num_factors: 3"));
        bad = r;
        bad.results[0][1] = {0};
        QCOMPARE(msg(bad, {t({8, 32}), t({32, 16})}, {t({8, 16})}),
                 QStringLiteral("result 0 - cannot reuse factors for the same tensor value"));
        bad = r;
        bad.factorSizes.push_back(1);
        bad.operands[0][1] = {2, 3};
        QCOMPARE(msg(bad, {t({8, 32}), t({32, 16})}, {t({8, 16})}),
                 QStringLiteral("operand 0 - dim mapping can't have a factor of size 1 if there are multiple factors"));
        bad = r;
        bad.factorSizes.push_back(2);
        QCOMPARE(msg(bad, {t({8, 32}), t({32, 16})}, {t({8, 16})}),
                 QStringLiteral("has factor l=2 that isn't used in operand and result mappings"));
        bad = r;
        bad.reductionFactors = {17};
        QCOMPARE(msg(bad, {t({8, 32}), t({32, 16})}, {t({8, 16})}),
                 QStringLiteral("index must be less than 3, got: 17"));
        bad = r;
        bad.needReplicationFactors = {1, 0};
        QCOMPARE(msg(bad, {t({8, 32}), t({32, 16})}, {t({8, 16})}),
                 QStringLiteral("indices of special factors must be sorted"));
        bad = r;
        bad.permutationFactors = {1, 1};
        QCOMPARE(msg(bad, {t({8, 32}), t({32, 16})}, {t({8, 16})}),
                 QStringLiteral("indices of special factors must be unique"));
        bad = r;
        bad.permutationFactors = {2};
        QCOMPARE(msg(bad, {t({8, 32}), t({32, 16})}, {t({8, 16})}),
                 QStringLiteral(
                     "a factor can only be in one of the reduction, need replication, or permutation factor sets"));
        bad = r;
        bad.blockedPropagationFactors = {2}; // may overlap the others
        QCOMPARE(msg(bad, {t({8, 32}), t({32, 16})}, {t({8, 16})}), QString());
        bad.blockedPropagationFactors = {3};
        QCOMPARE(msg(bad, {t({8, 32}), t({32, 16})}, {t({8, 16})}),
                 QStringLiteral("index must be less than 3, got: 3"));
        bad = r;
        bad.reductionFactors = {1};
        QCOMPARE(msg(bad, {t({8, 32}), t({32, 16})}, {t({8, 16})}),
                 QStringLiteral("reduction factor j appears in a result mapping"));
    }
};

QTEST_APPLESS_MAIN(TestShardingVerifier)
#include "tst_shardingverifier.moc"
