// Explain: the why / why-not of every axis, checked against hand derivations (lookup: tst_tracelookup).
#include <QtTest>

#include <set>

#include <nlohmann/json.hpp>

#include "core/io/MlirReader.h"
#include "core/propagation/PropagationPasses.h"
#include "core/trace/Explain.h"
#include "core/trace/Trace.h"
#include "core/trace/TraceCursor.h"
#include "core/trace/TraceRecorder.h"
#include "tests/trace/TraceTestSupport.h"

using namespace shardx;

namespace {

Trace record(const std::string& text, const std::string& strategy, bool conservative = false)
{
    return testing::recordTrace(text, strategy, 0, conservative);
}

/// The explanation of the value `query` finds (fails the test when it finds none).
ValueExplanation explain(const Trace& t, const std::string& query, const std::optional<std::string>& axis = {})
{
    Expected<int> v = findTraceValue(t, query);
    if (!v.ok()) {
        qWarning("%s", v.error().message.c_str());
        return ValueExplanation{};
    }
    return explainValue(t, *v, axis);
}

/// The entry for `axis` (as AxisRef::toString() prints it) in `list`, or null.
const AxisExplanation* entry(const std::vector<AxisExplanation>& list, const std::string& axis)
{
    for (const AxisExplanation& x : list)
        if (x.axis.toString() == axis)
            return &x;
    return nullptr;
}

std::string axesOf(const std::vector<AxisExplanation>& list)
{
    std::string out;
    for (const AxisExplanation& x : list)
        out += (out.empty() ? "" : " ") + x.axis.toString();
    return out;
}

/// The step number a sentence names ("step #N"), -1 when it names none.
int sentenceStep(const std::string& sentence)
{
    const size_t p = sentence.find("step #");
    if (p == std::string::npos)
        return -1;
    return std::atoi(sentence.c_str() + p + 6);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// Checks that the step field is a real step and is the one the sentence names.
#define CHECK_STEP(t, x)                                                                                               \
    do {                                                                                                               \
        QVERIFY2((x).step >= 0 && static_cast<size_t>((x).step) < (t).numSteps(), (x).sentence.c_str());               \
        QCOMPARE(sentenceStep((x).sentence), (x).step);                                                                \
    } while (0)

// SDY.md 4.13 ex. 3 (mesh "a"=2, "b"=2).
const char* kFuncResult = R"(sdy.mesh @mesh = <["a"=2, "b"=2]>
func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", "b", ?}, {?}]>})
    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}, {?}]>}) {
  %0 = stablehlo.add %arg0, %arg0 : tensor<8x8xf32> loc("sum")
  return %0 : tensor<8x8xf32>
}
)";

// Three element-wise hops from %arg0.
const char* kHops = R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}]>}) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8xf32> loc("h1")
  %1 = stablehlo.abs %0 : tensor<8xf32> loc("h2")
  %2 = stablehlo.negate %1 : tensor<8xf32> loc("h3")
  return %2 : tensor<8xf32>
}
)";

// SDY.md 4.13 ex. 2 with the shapes of the CLI test: T-sizes lhs 8*16 = 128, rhs 16*32 = 512.
const char* kDot = R"(sdy.mesh @mesh = <["a"=2, "b"=2]>
func.func @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>},
                %arg1: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"a"}]>}) -> tensor<8x32xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32> loc("mm")
  return %0 : tensor<8x32xf32>
}
)";

// Sharding group {%0, %1} (4.10).
const char* kGroup = R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}]>}, %arg1: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = stablehlo.negate %arg0 : tensor<8xf32>
  %1 = stablehlo.abs %arg1 : tensor<8xf32> loc("absolute")
  sdy.sharding_group %0 group_id = 0 : tensor<8xf32>
  sdy.sharding_group %1 group_id = 0 : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
)";

// SDY.md 4.7 example.
const char* kUserPriority = R"(sdy.mesh @mesh = <["a"=2, "b"=2, "c"=2]>
func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}p0, {"b"}p1]>},
                %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}, {"c"}p0]>}) -> tensor<8x8xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<8x8xf32> loc("sum")
  return %0 : tensor<8x8xf32>
}
)";

} // namespace

class TestExplain : public QObject {
    Q_OBJECT
private slots:
    // ---- present axes -------------------------------------------------------------------------

    void presentFromAnnotation()
    {
        // %arg0 is annotated [{"a", ?}] and basic propagation never changes it: "a" is the user's.
        Trace t = record(kHops, "basic");
        ValueExplanation e = explain(t, "@main:%arg0");
        QCOMPARE(e.id, std::string("@main:%arg0"));
        QCOMPARE(e.displayName, std::string("%arg0"));
        QVERIFY(e.initial && e.final);
        QCOMPARE(e.initial->toString(), std::string("<@mesh, [{\"a\", ?}]>"));
        QCOMPARE(e.final->toString(), std::string("<@mesh, [{\"a\", ?}]>"));
        QCOMPARE(e.present.size(), size_t(1));
        const AxisExplanation& x = e.present[0];
        QCOMPARE(x.axis, AxisRef("a"));
        QCOMPARE(x.dim, 0);
        QVERIFY(x.present);
        QCOMPARE(x.step, -1);
        QVERIFY2(has(x.sentence, "annotation"), x.sentence.c_str());
        // No neighbour has an axis %arg0 lacks.
        QVERIFY(e.missing.empty());
    }

    void presentThroughHops()
    {
        // Basic: the worklist visits h1, h2, h3 in program order (4.8); each copies "a" one hop
        // (identity factor, compatible prefix ["a"], the result is open and empty -> expanded).
        // The step reported for a value is the hop that gave it the axis, naming the previous
        // value as the source.
        Trace t = record(kHops, "basic");
        int previous = -1;
        const char* hops[] = {"h1", "h2", "h3"};
        const char* sources[] = {"operand 0 (%arg0)", "operand 0 (%0)", "operand 0 (%1)"};
        for (int h = 0; h < 3; ++h) {
            ValueExplanation e = explain(t, hops[h]);
            QCOMPARE(e.displayName, "%" + std::to_string(h));
            QCOMPARE(e.scope, std::string(hops[h]));
            QVERIFY(!e.initial);
            QVERIFY(e.final);
            QCOMPARE(e.final->toString(), std::string("<@mesh, [{\"a\", ?}]>"));
            QCOMPARE(e.present.size(), size_t(1));
            const AxisExplanation& x = e.present[0];
            QCOMPARE(x.axis, AxisRef("a"));
            QCOMPARE(x.dim, 0);
            QVERIFY(x.present);
            CHECK_STEP(t, x);
            QVERIFY2(x.step > previous, x.sentence.c_str());
            previous = x.step;
            QVERIFY2(
                has(x.sentence, std::string("(op stablehlo.") + (h == 1 ? "abs" : "negate") + " at " + hops[h] + ")"),
                x.sentence.c_str());
            QVERIFY2(has(x.sentence, std::string("from ") + sources[h]), x.sentence.c_str());
            QVERIFY2(has(x.sentence, "factor i"), x.sentence.c_str());
            QVERIFY(e.missing.empty());
        }
    }

    void presentThroughFunctionResult()
    {
        // SDY.md 4.13 ex. 3, aggressive. Func-result step before the worklist: result 0 [{"a", ?}]
        // gives "a" to %0 (tensor 1 -> tensor 0). The add then gives %0 "b" from %arg0 (both
        // operands are %arg0). The func-result step after the worklist gives result 0 "b" from %0.
        Trace t = record(kFuncResult, "aggressive");
        ValueExplanation v = explain(t, "sum");
        QCOMPARE(v.id, std::string("@main:%0"));
        QCOMPARE(v.final->toString(), std::string("<@mesh, [{\"a\", \"b\", ?}, {?}]>"));
        QCOMPARE(axesOf(v.present), std::string("\"a\" \"b\""));
        const AxisExplanation* a = entry(v.present, "\"a\"");
        const AxisExplanation* b = entry(v.present, "\"b\"");
        QVERIFY(a && b);
        QCOMPARE(a->dim, 0);
        QCOMPARE(b->dim, 0);
        CHECK_STEP(t, *a);
        CHECK_STEP(t, *b);
        QVERIFY2(has(a->sentence, "(result 0 of @main)") &&
                     has(a->sentence, "copied from the result annotation of @main (result 0)"),
                 a->sentence.c_str());
        QVERIFY2(has(b->sentence, "(op stablehlo.add at sum)"), b->sentence.c_str());
        QVERIFY(a->step < b->step);
        QVERIFY(v.missing.empty());

        // The result attribute: "a" is its own annotation, "b" came back in the last step.
        ValueExplanation r = explain(t, "@main:result0");
        QCOMPARE(r.displayName, std::string("result 0"));
        QCOMPARE(r.initial->toString(), std::string("<@mesh, [{\"a\", ?}, {?}]>"));
        QCOMPARE(r.final->toString(), std::string("<@mesh, [{\"a\", \"b\", ?}, {?}]>"));
        const AxisExplanation* ra = entry(r.present, "\"a\"");
        const AxisExplanation* rb = entry(r.present, "\"b\"");
        QVERIFY(ra && rb);
        QCOMPARE(ra->step, -1);
        QVERIFY2(has(ra->sentence, "annotation"), ra->sentence.c_str());
        CHECK_STEP(t, *rb);
        QVERIFY(rb->step > b->step);
        QVERIFY2(has(rb->sentence, "(result 0 of @main)") && has(rb->sentence, "copied from the returned value (%0)"),
                 rb->sentence.c_str());

        // The argument: both axes annotated.
        ValueExplanation arg = explain(t, "@main:arg0");
        QCOMPARE(axesOf(arg.present), std::string("\"a\" \"b\""));
        for (const AxisExplanation& x : arg.present)
            QCOMPARE(x.step, -1);
    }

    void presentWithoutConflictIsNoChoice()
    {
        // Aggressive, 4.13 ex. 3: at the add only factor i has a candidate, ["a", "b"] (both
        // operands are %arg0, the result already has "a"). No factor competed for an axis, so "b"
        // is simply the compatible sharding of i, from both operands: no "aggressive choice", and
        // no "size 64 vs 64, the larger tensor wins" (equal sizes, and the same value twice).
        Trace t = record(kFuncResult, "aggressive");
        ValueExplanation e = explain(t, "sum");
        const AxisExplanation* b = entry(e.present, "\"b\"");
        QVERIFY(b);
        QVERIFY2(has(b->sentence, "from operand 0 (%arg0), operand 1 (%arg0)"), b->sentence.c_str());
        QVERIFY2(!has(b->sentence, "aggressive propagation preferred"), b->sentence.c_str());
    }

    void presentBackwards()
    {
        // Basic, sharding group {%0, %1} (4.10): the negate gives %0 "a" from %arg0, the group
        // copies it to %1, and the abs then gives %arg1 "a" backwards from its result %1.
        Trace t = record(kGroup, "basic");
        ValueExplanation m = explain(t, "@main:%1");
        QCOMPARE(m.final->toString(), std::string("<@mesh, [{\"a\", ?}]>"));
        QCOMPARE(m.present.size(), size_t(1));
        CHECK_STEP(t, m.present[0]);
        ValueExplanation a = explain(t, "@main:arg1");
        QCOMPARE(a.present.size(), size_t(1));
        const AxisExplanation& b = a.present[0];
        QCOMPARE(b.dim, 0);
        CHECK_STEP(t, b);
        QVERIFY(b.step > m.present[0].step);
        QVERIFY2(has(b.sentence, "(op stablehlo.abs at absolute)") && has(b.sentence, "from result 0 (%1)"),
                 b.sentence.c_str());
    }

    void presentGroupCopySentence()
    {
        // %1 got "a" as a copy from %0, the other member of sharding group 0: the sentence says so
        // in words, naming the member it came from.
        Trace t = record(kGroup, "basic");
        ValueExplanation m = explain(t, "@main:%1");
        QCOMPARE(m.present.size(), size_t(1));
        const AxisExplanation& g = m.present[0];
        QCOMPARE(g.dim, 0);
        CHECK_STEP(t, g);
        QVERIFY2(has(g.sentence, "sharding group") && has(g.sentence, "%0"), g.sentence.c_str());
    }

    void groupCopyAfterItsCause()
    {
        // 4.8: S(%0) := new, then every other member gets the same attribute. The copy to %1 is a
        // consequence of the negate's step, so its step comes after the negate's.
        Trace t = record(kGroup, "basic");
        ValueExplanation n = explain(t, "@main:%0");
        ValueExplanation m = explain(t, "@main:%1");
        QCOMPARE(n.present.size(), size_t(1));
        QCOMPARE(m.present.size(), size_t(1));
        QVERIFY2(has(n.present[0].sentence, "(op stablehlo.negate)"), n.present[0].sentence.c_str());
        QVERIFY2(m.present[0].step > n.present[0].step,
                 (n.present[0].sentence + " / " + m.present[0].sentence).c_str());
    }

    void presentAggressiveChoice()
    {
        // 4.5: cand[i] = cand[j] = ["a"]; source of i is lhs (T-size 128), of j rhs (512). Factors
        // ordered j, i. The result takes j = ["a"] first (dimension 1); i is then cut by the
        // across-factor rule. The sentence names the winner and the size comparison.
        Trace t = record(kDot, "aggressive");
        ValueExplanation e = explain(t, "mm");
        QCOMPARE(e.final->toString(), std::string("<@mesh, [{?}, {\"a\", ?}]>"));
        QCOMPARE(e.present.size(), size_t(1));
        const AxisExplanation& x = e.present[0];
        QCOMPARE(x.axis, AxisRef("a"));
        QCOMPARE(x.dim, 1);
        CHECK_STEP(t, x);
        QVERIFY2(has(x.sentence, "(op stablehlo.dot_general at mm)"), x.sentence.c_str());
        QVERIFY2(has(x.sentence, "aggressive propagation preferred the sharding of operand 1 (%arg1)"),
                 x.sentence.c_str());
        // The operands keep their (closed) annotations.
        QCOMPARE(explain(t, "@main:%arg1").present[0].step, -1);
        // The competitor is factor i, whose source lhs has T-size 128.
        QVERIFY2(has(x.sentence, "size 512 vs 128"), x.sentence.c_str());
    }

    void presentMergedSubAxes()
    {
        // Reshape 4x4 -> 16, rule ([i], [j]) -> ([ij]) {i=4, j=4}, "x"=8. The operand's factors
        // hold "x":(1)4 and "x":(4)2; basic propagation copies both into the open result and the
        // back-projection merges them into the full "x" (4.3). The step is the reshape and the
        // source is the operand.
        Trace t = record(R"(sdy.mesh @mesh = <["x"=8]>
func.func @main(%arg0: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)4}, {"x":(4)2}]>}) -> tensor<16xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<4x4xf32>) -> tensor<16xf32> loc("flat")
  return %0 : tensor<16xf32>
}
)",
                         "basic");
        ValueExplanation e = explain(t, "flat");
        QCOMPARE(e.final->toString(), std::string("<@mesh, [{\"x\", ?}]>"));
        QCOMPARE(e.present.size(), size_t(1));
        const AxisExplanation& x = e.present[0];
        QCOMPARE(x.axis, AxisRef("x"));
        QCOMPARE(x.dim, 0);
        CHECK_STEP(t, x);
        QVERIFY2(has(x.sentence, "(op stablehlo.reshape at flat)"), x.sentence.c_str());
        // The operand's sub-axes are its annotation.
        ValueExplanation a = explain(t, "@main:%arg0");
        QCOMPARE(axesOf(a.present), std::string("\"x\":(1)4 \"x\":(4)2"));
        QCOMPARE(a.present[1].dim, 1);
        QCOMPARE(a.present[1].step, -1);
        // The merged axis still came from the operand.
        QVERIFY2(has(x.sentence, "from operand 0 (%arg0)"), x.sentence.c_str());
    }

    void presentCutToSubAxis()
    {
        // Reshape 6x4 -> 24, "a"=4: factor i=6 is not minor-most in the result, gcd(6, 4) = 2, so
        // "a" is replaced by "a":(1)2 (4.4 step 2). The result holds "a":(1)2, and the sentence
        // says why not all of "a": its size does not divide the factor.
        Trace t = record(R"(sdy.mesh @mesh = <["a"=4]>
func.func @main(%arg0: tensor<6x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}, {?}]>}) -> tensor<24xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<6x4xf32>) -> tensor<24xf32> loc("flat")
  return %0 : tensor<24xf32>
}
)",
                         "basic");
        ValueExplanation e = explain(t, "flat");
        QCOMPARE(e.final->toString(), std::string("<@mesh, [{\"a\":(1)2, ?}]>"));
        QCOMPARE(e.present.size(), size_t(1));
        const AxisExplanation& x = e.present[0];
        QCOMPARE(x.axis, AxisRef("a", 1, 2));
        QCOMPARE(x.dim, 0);
        CHECK_STEP(t, x);
        QVERIFY2(has(x.sentence, "(op stablehlo.reshape at flat)"), x.sentence.c_str());
        QVERIFY2(has(x.sentence, "divide"), x.sentence.c_str());
    }

    // ---- missing axes -------------------------------------------------------------------------

    void missingConflictAcrossFactors()
    {
        // 4.13 ex. 2, basic: factor i (result dimension 0) gets acc ["a"] from lhs, but rhs uses
        // "a" for its factor j -> cut (conflict across factors, culprit operand 1). Factor j
        // (dimension 1) likewise against lhs's i. The result stays unsharded; the explanation is
        // the first cut found, factor i, so dim is 0.
        Trace t = record(kDot, "basic");
        ValueExplanation e = explain(t, "mm");
        QVERIFY(!e.initial && !e.final);
        QVERIFY(e.present.empty());
        QCOMPARE(e.missing.size(), size_t(1));
        const AxisExplanation& x = e.missing[0];
        QCOMPARE(x.axis, AxisRef("a"));
        QVERIFY(!x.present);
        CHECK_STEP(t, x);
        QVERIFY2(has(x.sentence, "(op stablehlo.dot_general at mm)"), x.sentence.c_str());
        QVERIFY2(has(x.sentence, "\"a\" was offered along factor i (dimension 0)"), x.sentence.c_str());
        QVERIFY2(has(x.sentence, "it is already used by factor j of operand 1 (%arg1)"), x.sentence.c_str());
        QCOMPARE(x.dim, 0); // the dimension the sentence names
    }

    void missingWithinFactorConflict()
    {
        // Basic: add(%arg0 [{"a"}], %arg1 [{"b"}]): step 1 merges ["a"] with ["b"], which differ at
        // the first element -> acc = [] (4.4); nothing reaches %0. "a" and "b" are both offered
        // along factor i (dimension 0) by the add and both lost to the other operand's axis.
        Trace t = record(R"(sdy.mesh @mesh = <["a"=2, "b"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>},
                %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"b"}]>}) -> tensor<8xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<8xf32> loc("sum")
  return %0 : tensor<8xf32>
}
)",
                         "basic");
        ValueExplanation e = explain(t, "sum");
        QVERIFY(!e.final);
        QCOMPARE(axesOf(e.missing), std::string("\"a\" \"b\""));
        const AxisExplanation& a = e.missing[0];
        QCOMPARE(a.dim, 0);
        CHECK_STEP(t, a);
        QVERIFY2(has(a.sentence, "(op stablehlo.add at sum)"), a.sentence.c_str());
        QVERIFY2(has(a.sentence, "\"b\"") && has(a.sentence, "operand 1 (%arg1)"), a.sentence.c_str());
    }

    void missingReplicated()
    {
        // Basic: "a" is explicitly replicated in %arg1, which has factor i: step 2 removes it for
        // everyone (culprit operand 1); %0 stays unsharded.
        Trace t = record(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}]>},
                %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}], replicated={"a"}>}) -> tensor<8xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<8xf32> loc("sum")
  return %0 : tensor<8xf32>
}
)",
                         "basic");
        ValueExplanation e = explain(t, "sum");
        QVERIFY(!e.final);
        QCOMPARE(e.missing.size(), size_t(1));
        const AxisExplanation& x = e.missing[0];
        QCOMPARE(x.axis, AxisRef("a"));
        QCOMPARE(x.dim, 0);
        CHECK_STEP(t, x);
        QVERIFY2(has(x.sentence, "(op stablehlo.add at sum)") && has(x.sentence, "factor i (dimension 0)"),
                 x.sentence.c_str());
        QVERIFY2(has(x.sentence, "it is explicitly replicated in operand 1 (%arg1)"), x.sentence.c_str());
    }

    void missingClosedDimension()
    {
        // Basic: %arg1 [{}] is closed and empty along i: the fall-through rule of step 2 finds no
        // last axis -> "a" is cut for everyone (culprit operand 1).
        Trace t = record(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}]>},
                %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> tensor<8xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<8xf32> loc("sum")
  return %0 : tensor<8xf32>
}
)",
                         "basic");
        ValueExplanation e = explain(t, "sum");
        QVERIFY(!e.final);
        QCOMPARE(e.missing.size(), size_t(1));
        const AxisExplanation& x = e.missing[0];
        QCOMPARE(x.dim, 0);
        CHECK_STEP(t, x);
        QVERIFY2(has(x.sentence, "the dimension is closed in operand 1 (%arg1)"), x.sentence.c_str());
        // %arg1 itself: the same cut.
        ValueExplanation c = explain(t, "@main:arg1");
        QCOMPARE(c.missing.size(), size_t(1));
        QVERIFY2(has(c.missing[0].sentence, "closed in operand 1 (%arg1)"), c.missing[0].sentence.c_str());
    }

    void missingClosedDimensionAggressive()
    {
        // Aggressive: cand[i] = ["a"]; the result is open -> %0 gets "a"; %arg1 is checked alone
        // (4.5 step 4): its factor i is closed and empty -> "a" is cut for %arg1 at the add.
        Trace t = record(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}]>},
                %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> tensor<8xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<8xf32> loc("sum")
  return %0 : tensor<8xf32>
}
)",
                         "aggressive");
        QCOMPARE(explain(t, "sum").final->toString(), std::string("<@mesh, [{\"a\", ?}]>"));
        ValueExplanation e = explain(t, "@main:arg1");
        QCOMPARE(e.missing.size(), size_t(1));
        const AxisExplanation& x = e.missing[0];
        QCOMPARE(x.axis, AxisRef("a"));
        QCOMPARE(x.dim, 0);
        CHECK_STEP(t, x);
        QVERIFY2(has(x.sentence, "(op stablehlo.add at sum)") && has(x.sentence, "closed in operand 1 (%arg1)"),
                 x.sentence.c_str());
    }

    void missingNonDivisible()
    {
        // Reshape 3x4 -> 12, "a"=2: factor i=3 is not minor-most in the result and
        // gcd(3 / 1, 2) = 1 -> fall-through, the result's axes are empty -> cut, culprit the
        // result (tensor 1).
        Trace t = record(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<3x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}, {?}]>}) -> tensor<12xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<3x4xf32>) -> tensor<12xf32> loc("flat")
  return %0 : tensor<12xf32>
}
)",
                         "basic");
        ValueExplanation e = explain(t, "flat");
        QVERIFY(!e.final);
        QCOMPARE(e.missing.size(), size_t(1));
        const AxisExplanation& x = e.missing[0];
        QCOMPARE(x.dim, 0);
        CHECK_STEP(t, x);
        QVERIFY2(has(x.sentence, "factor i (dimension 0)") &&
                     has(x.sentence, "its size does not divide the factor (in result 0 (%0))"),
                 x.sentence.c_str());
    }

    void missingConservativeSubAxis()
    {
        // 4.13 ex. 1 with conservative propagation: i would get "x":(1)4 and j "x":(4)2, both
        // sub-axes -> both cut. The first cut is factor i (dimension 0).
        Trace t = record(R"(sdy.mesh @mesh = <["x"=8]>
func.func @main(%arg0: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<4x4xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<16xf32>) -> tensor<4x4xf32> loc("split")
  return %0 : tensor<4x4xf32>
}
)",
                         "basic", true);
        ValueExplanation e = explain(t, "split");
        QVERIFY(!e.final);
        QCOMPARE(e.missing.size(), size_t(1));
        const AxisExplanation& x = e.missing[0];
        QCOMPARE(x.axis, AxisRef("x"));
        CHECK_STEP(t, x);
        QVERIFY2(has(x.sentence, "factor i (dimension 0)") &&
                     has(x.sentence, "conservative propagation does not split it into sub-axes"),
                 x.sentence.c_str());
        QCOMPARE(x.dim, 0);
    }

    void presentUserPriority()
    {
        // SDY.md 4.7: iteration p0 sees %arg0 as [{"a"}, {}] replicated={"b"}; the add gives %0
        // [{"a", ?}, {"c", ?}]. Iteration p1 restores %arg0 to [{"a"}, {"b"}]: along factor j
        // (dimension 1) "b" meets "c" of %arg1 and %0, step 1 gives no compatible axes, %0 keeps "c".
        Trace t = record(kUserPriority, "user-priority");
        ValueExplanation e = explain(t, "sum");
        QCOMPARE(e.final->toString(), std::string("<@mesh, [{\"a\", ?}, {\"c\", ?}]>"));
        QCOMPARE(axesOf(e.present), std::string("\"a\" \"c\""));
        for (const AxisExplanation& x : e.present) {
            CHECK_STEP(t, x);
            QVERIFY2(has(x.sentence, "(op stablehlo.add at sum, op-priority round 0, user priority p0)"),
                     x.sentence.c_str());
        }
    }

    void missingUserPriority()
    {
        // Iteration p1 restores %arg0 to [{"a"}, {"b"}]: along factor j (dimension 1) "b" meets "c"
        // of %arg1 and %0, step 1 merges ["b"] with ["c"] into [] and %0 keeps "c".
        Trace t = record(kUserPriority, "user-priority");
        ValueExplanation e = explain(t, "sum");
        QCOMPARE(axesOf(e.missing), std::string("\"b\""));
        const AxisExplanation& b = e.missing[0];
        QCOMPARE(b.dim, 1);
        CHECK_STEP(t, b);
        QVERIFY2(has(b.sentence, "stablehlo.add at sum") && has(b.sentence, "user priority p1"), b.sentence.c_str());
        QVERIFY2(has(b.sentence, "\"c\""), b.sentence.c_str());
    }

    void heldBackDimension()
    {
        // In iteration p0, %arg0 is [{"a"}, {}] replicated={"b"}: its dimension 1 is closed and
        // empty, so the add cannot give it "c" (4.5 step 4, closed: the fall-through finds no axis).
        Trace t = record(kUserPriority, "user-priority");
        ValueExplanation a = explain(t, "@main:arg0");
        QCOMPARE(a.final->toString(), std::string("<@mesh, [{\"a\"}, {\"b\"}]>"));
        QCOMPARE(entry(a.present, "\"a\"")->step, -1);
        QCOMPARE(axesOf(a.missing), std::string("\"c\""));
        const AxisExplanation& c = a.missing[0];
        QCOMPARE(c.dim, 1);
        CHECK_STEP(t, c);
        QVERIFY2(has(c.sentence, "stablehlo.add at sum") && has(c.sentence, "user priority p") &&
                     has(c.sentence, "closed"),
                 c.sentence.c_str());
    }

    void presentAfterHoldBack()
    {
        // %arg0's "b" is its own annotation (priority p1), held back and then restored (4.7): the
        // sentence says it is the annotation, not an internal decision name.
        Trace t = record(kUserPriority, "user-priority");
        ValueExplanation a = explain(t, "@main:arg0");
        const AxisExplanation* ab = entry(a.present, "\"b\"");
        QVERIFY(ab);
        QCOMPARE(ab->dim, 1);
        QVERIFY2(has(ab->sentence, "annotation"), ab->sentence.c_str());
        QVERIFY2(!has(ab->sentence, "(user-priority-restored)"), ab->sentence.c_str());
    }

    void axisFilter()
    {
        Trace t = record(kFuncResult, "aggressive");
        // Only "b" of %0 [{"a", "b", ?}, {?}].
        ValueExplanation b = explain(t, "sum", std::string("b"));
        QCOMPARE(axesOf(b.present), std::string("\"b\""));
        QVERIFY(b.missing.empty());
        QCOMPARE(b.present[0].sentence, explain(t, "sum").present[1].sentence);
        // An axis nobody offers: missing, no step, no dimension.
        Trace d = record(kDot, "basic");
        ValueExplanation none = explain(d, "mm", std::string("b"));
        QVERIFY(none.present.empty());
        QCOMPARE(none.missing.size(), size_t(1));
        QCOMPARE(none.missing[0].axis, AxisRef("b"));
        QCOMPARE(none.missing[0].step, -1);
        QVERIFY2(has(none.missing[0].sentence, "no step ever offered it"), none.missing[0].sentence.c_str());
        // The filter on an axis the value lacks and a neighbour has.
        ValueExplanation a = explain(d, "mm", std::string("a"));
        QCOMPARE(axesOf(a.missing), std::string("\"a\""));
        QVERIFY2(has(a.missing[0].sentence, "already used by factor j"), a.missing[0].sentence.c_str());
    }

    void neverOfferedHasNoDimension()
    {
        // "b" is on no tensor of the dot: no step cut it from any dimension, so dim is -1 as for
        // step (the header: "the one it was cut from").
        Trace d = record(kDot, "basic");
        ValueExplanation none = explain(d, "mm", std::string("b"));
        QCOMPARE(none.missing.size(), size_t(1));
        QCOMPARE(none.missing[0].step, -1);
        QCOMPARE(none.missing[0].dim, -1);
    }

    // ---- text and JSON ------------------------------------------------------------------------

    void textAndJsonShape()
    {
        Trace t = record(kFuncResult, "aggressive");
        ValueExplanation e = explain(t, "@main:result0");
        std::string expected = "result 0 (@main:result0) of @main\n"
                               "  before propagation: <@mesh, [{\"a\", ?}, {?}]>\n"
                               "  after propagation:  <@mesh, [{\"a\", \"b\", ?}, {?}]>\n";
        for (const AxisExplanation& x : e.present)
            expected += "  why " + x.axis.toString() + ": " + x.sentence + "\n";
        QCOMPARE(explanationText(e), expected);

        Trace d = record(kDot, "basic");
        ValueExplanation m = explain(d, "mm");
        const std::string text = explanationText(m);
        QVERIFY2(text.rfind("%0 (@main:%0) = stablehlo.dot_general at mm\n  before propagation: no sharding\n"
                            "  after propagation:  no sharding\n  why not \"a\": ",
                            0) == 0,
                 text.c_str());

        nlohmann::json j = explanationJson(e);
        std::set<std::string> keys;
        for (auto it = j.begin(); it != j.end(); ++it)
            keys.insert(it.key());
        QCOMPARE(keys, (std::set<std::string>{"value", "name", "op", "function", "scope", "insertedFor", "initial",
                                              "final", "present", "missing", "blockedBy"}));
        QCOMPARE(j["value"].get<std::string>(), std::string("@main:result0"));
        QCOMPARE(j["name"].get<std::string>(), std::string("result 0"));
        QCOMPARE(j["final"].get<std::string>(), e.final->toString());
        QCOMPARE(j["initial"].get<std::string>(), e.initial->toString());
        QCOMPARE(j["present"].size(), e.present.size());
        QVERIFY(j["missing"].is_array() && j["missing"].empty());
        for (size_t i = 0; i < e.present.size(); ++i) {
            const nlohmann::json& x = j["present"][i];
            QCOMPARE(x.size(), size_t(4));
            QCOMPARE(x["axis"].get<std::string>(), e.present[i].axis.toString());
            QCOMPARE(x["dim"].get<int>(), e.present[i].dim);
            QCOMPARE(x["step"].get<int>(), e.present[i].step);
            QCOMPARE(x["why"].get<std::string>(), e.present[i].sentence);
        }
        nlohmann::json jm = explanationJson(m);
        QCOMPARE(jm["scope"].get<std::string>(), std::string("mm"));
        QCOMPARE(jm["missing"].size(), size_t(1));
        QCOMPARE(jm["missing"][0]["axis"].get<std::string>(), std::string("\"a\""));
        QCOMPARE(jm["missing"][0]["step"].get<int>(), m.missing[0].step);
    }

    void deterministic()
    {
        // Two recordings of the same input explain every value identically.
        for (const char* text : {kFuncResult, kDot, kHops, kUserPriority}) {
            for (const char* s : {"basic", "aggressive", "user-priority"}) {
                Trace a = record(text, s);
                Trace b = record(text, s);
                QCOMPARE(a.values().size(), b.values().size());
                for (size_t v = 0; v < a.values().size(); ++v) {
                    ValueExplanation ea = explainValue(a, static_cast<int>(v));
                    ValueExplanation eb = explainValue(b, static_cast<int>(v));
                    QCOMPARE(explanationText(ea), explanationText(eb));
                    QCOMPARE(explanationJson(ea).dump(), explanationJson(eb).dump());
                    // Explaining twice from one trace changes nothing either.
                    QCOMPARE(explanationText(explainValue(a, static_cast<int>(v))), explanationText(ea));
                }
            }
        }
    }

    void valueIndexMatchesAFullScan()
    {
        // TraceValueIndex (what Session::partition and replicatedTensors use for many values) lists,
        // per value, exactly the steps a scan of the whole trace finds: those with a change of the
        // value and those whose tensors include it, ascending; the state after the last step; the
        // last step of each op. Explaining every value from one shared index gives what a fresh
        // index per value gives.
        size_t changes = 0;
        for (const char* text : {kFuncResult, kDot, kHops, kUserPriority}) {
            for (const char* s : {"basic", "aggressive", "user-priority"}) {
                Trace t = record(text, s);
                const TraceValueIndex index(t);
                TraceCursor cursor(t);
                cursor.seek(t.numSteps());
                for (size_t v = 0; v < t.values().size(); ++v) {
                    const int value = static_cast<int>(v);
                    std::vector<int> changing, involving;
                    std::string refs;
                    for (size_t si = 0; si < t.numSteps(); ++si) {
                        const TraceStep& step = t.steps()[si];
                        for (size_t ci = 0; ci < step.changes.size(); ++ci) {
                            if (step.changes[ci].value != value)
                                continue;
                            refs += std::to_string(si) + "." + std::to_string(ci) + " ";
                            if (changing.empty() || changing.back() != static_cast<int>(si))
                                changing.push_back(static_cast<int>(si));
                        }
                        if (std::find(step.tensorValues.begin(), step.tensorValues.end(), value) !=
                            step.tensorValues.end())
                            involving.push_back(static_cast<int>(si));
                    }
                    changes += changing.size();
                    QCOMPARE(index.stepsChanging(value), changing);
                    std::string indexed;
                    for (const TraceValueIndex::ChangeRef& r : index.changesOf(value))
                        indexed += std::to_string(r.step) + "." + std::to_string(r.change) + " ";
                    QCOMPARE(indexed, refs);
                    QCOMPARE(index.stepsInvolving(value), involving);
                    QCOMPARE(index.finalSharding(value), cursor.sharding(value));
                    QCOMPARE(explanationJson(explainValue(index, value)).dump(),
                             explanationJson(explainValue(t, value)).dump());
                    std::string shared, fresh;
                    for (const AxisOrigin& o : traceOrigins(index, value))
                        shared += o.axis.toString() + std::to_string(o.from) + std::to_string(o.steps.size()) + ";";
                    for (const AxisOrigin& o : traceOrigins(t, value))
                        fresh += o.axis.toString() + std::to_string(o.from) + std::to_string(o.steps.size()) + ";";
                    QCOMPARE(shared, fresh);
                }
                for (size_t op = 0; op < t.ops().size(); ++op) {
                    int last = -1;
                    for (size_t si = 0; si < t.numSteps(); ++si)
                        if (t.steps()[si].op == static_cast<int>(op))
                            last = static_cast<int>(si);
                    QCOMPARE(index.lastStepOfOp(static_cast<int>(op)), last);
                }
                QVERIFY(index.stepsChanging(-1).empty() &&
                        index.stepsInvolving(static_cast<int>(t.values().size())).empty());
                QVERIFY(!index.finalSharding(-1));
                QCOMPARE(index.lastStepOfOp(-1), -1);
            }
        }
        QVERIFY(changes > 0); // the programs do propagate something
    }

    void valueWithoutSharding()
    {
        // Nothing is sharded: %0 has no sharding before or after, no neighbour offers an axis.
        Trace t = record(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}
)",
                         "aggressive");
        ValueExplanation e = explain(t, "@main:%0");
        QCOMPARE(e.id, std::string("@main:%0"));
        QVERIFY(e.scope.empty());
        QVERIFY(!e.initial && !e.final);
        QVERIFY(e.present.empty() && e.missing.empty());
        QCOMPARE(explanationText(e), std::string("%0 (@main:%0) = stablehlo.negate\n"
                                                 "  before propagation: no sharding\n"
                                                 "  after propagation:  no sharding\n"
                                                 "  nothing to explain: the value ends unsharded and no neighbour "
                                                 "offers it an axis\n"));
        nlohmann::json j = explanationJson(e);
        QCOMPARE(j["initial"].get<std::string>(), std::string());
        QCOMPARE(j["final"].get<std::string>(), std::string());
        QVERIFY(j["present"].empty() && j["missing"].empty());
    }
};

QTEST_APPLESS_MAIN(TestExplain)
#include "tst_explain.moc"
