// Trace storage: pooled shardings/tables/decisions, takeTrace, compact JSON, seeking at scale.
#include <QtTest>

#include <random>
#include <sstream>

#include "core/generate/ModelGenerator.h"
#include "core/propagation/PropagationPasses.h"
#include "core/trace/Trace.h"

#include "core/trace/TraceCursor.h"
#include "core/trace/TraceInterner.h"
#include "core/trace/TracePrinter.h"
#include "core/trace/TraceRecorder.h"
#include "tests/trace/TraceTestSupport.h"
#include <nlohmann/json.hpp>

using namespace shardx;

namespace {

/// A recorded aggressive propagation of a generated fsdp+megatron transformer.
struct Recorded {
    std::unique_ptr<ir::Module> module;
    Trace trace;
};

std::unique_ptr<ir::Module> transformer(int layers)
{
    generate::TransformerSpec spec;
    spec.layers = layers;
    auto m = generate::generateTransformer(spec);
    if (!m) {
        qWarning("%s", m.error().message.c_str());
        return nullptr;
    }
    return std::move(*m);
}

Recorded record(int layers, bool take)
{
    Recorded r;
    r.module = transformer(layers);
    TraceRecorder rec(*r.module);
    PropagationPassOptions o;
    o.base.observer = &rec;
    DiagnosticList diags;
    runAggressivePropagation(*r.module, o, diags);
    r.trace = take ? rec.takeTrace() : rec.trace();
    return r;
}

} // namespace

class TestTraceStorage : public QObject {
    Q_OBJECT

private slots:
    void internerSharesEqualContents()
    {
        TraceData data;
        TraceInterner pool(data);
        TensorSharding a;
        a.mesh.symbol = "mesh";
        a.dims = {DimSharding{{AxisRef("x")}, false, std::nullopt}, DimSharding{{}, true, std::nullopt}};
        TensorSharding b = a;
        TensorSharding c = a;
        c.dims[0].axes = {AxisRef("x", 1, 2)};
        TensorSharding d = a;
        d.dims[1].priority = 0; // an explicit p0 differs from no priority
        QCOMPARE(pool.sharding(a), 0);
        QCOMPARE(pool.sharding(b), 0);
        QCOMPARE(pool.sharding(c), 1);
        QCOMPARE(pool.sharding(d), 2);
        QCOMPARE(data.shardings.size(), size_t(3));
        // A second interner over the same data finds the existing entries.
        TraceInterner again(data);
        QCOMPARE(again.sharding(c), 1);
        OpShardingRule rule;
        rule.operands = {{{0}, {1}}};
        rule.results = {{{0}, {1}}};
        rule.factorSizes = {4, 8};
        const int r = pool.rule(rule);
        TraceRule same{{{{0}, {1}}, {{0}, {1}}}, {4, 8}};
        QCOMPARE(pool.rule(same), r);
        QCOMPARE(traceHash(rule), traceHash(same));
        same.factorSizes = {8, 4};
        QVERIFY(pool.rule(same) != r);
    }

    void recordedPoolsStayFlatWithDepth()
    {
        // Layers repeat the same ops with the same shardings: the pools must not grow with the
        // number of layers once the pattern repeats, while the steps do.
        Recorded four = record(4, false);
        Recorded eight = record(8, false);
        const TraceData& a = four.trace.data();
        const TraceData& b = eight.trace.data();
        QVERIFY(b.steps.size() > a.steps.size() * 3 / 2);
        QCOMPARE(b.rules.size(), a.rules.size());
        QCOMPARE(b.tables.size(), a.tables.size());
        QCOMPARE(b.decisionSets.size(), a.decisionSets.size());
        QVERIFY(b.shardings.size() <= a.shardings.size() + 4);
        QVERIFY(a.tables.size() < a.steps.size() / 4);
        QVERIFY(Trace::validate(b).ok());
    }

    void takeTraceEqualsCopy()
    {
        Recorded copied = record(2, false);
        Recorded taken = record(2, true);
        QVERIFY(copied.trace == taken.trace);
        QCOMPARE(printTrace(copied.trace), printTrace(taken.trace));
    }

    void automaticKeyframeInterval()
    {
        TraceData d;
        d.values.resize(1000);
        d.initial.assign(1000, -1);
        d.steps.resize(100000);
        // 1e8 cells over a budget of 2^22 ids: keyframes every ceil(1e8 / 2^22) = 24 -> 256 steps.
        QCOMPARE(Trace(d).keyframeInterval(), 256);
        d.values.resize(200000);
        d.initial.assign(200000, -1);
        // 2e10 cells: every ceil(2e10 / 4194304) = 4769 steps.
        QCOMPARE(Trace(d).keyframeInterval(), 4769);
        // An explicit interval is raised to the budget's minimum, never lowered below it.
        QCOMPARE(Trace(d, 7).keyframeInterval(), 4769);
        QCOMPARE(Trace(d, 5000).keyframeInterval(), 5000);
        d.values.resize(10);
        d.initial.assign(10, -1);
        QCOMPARE(Trace(d, 7).keyframeInterval(), 7);
    }

    void seekMatchesReplayEverywhere()
    {
        Recorded r = record(3, true);
        const Trace& t = r.trace;
        QVERIFY(t.numSteps() > 300);
        const auto states = testing::replayStates(t);
        // Small keyframe intervals force every path: from here forwards and backwards, from the
        // keyframe below and from the one above.
        for (int interval : {0, 1, 5, 64}) {
            Trace k(t.data(), interval);
            TraceCursor cur(k);
            std::mt19937 rng(42);
            for (int i = 0; i < 400; ++i) {
                const size_t to = rng() % (k.numSteps() + 1);
                cur.seek(to);
                QCOMPARE(cur.position(), to);
                QVERIFY(cur.state() == states[to]);
            }
            for (size_t to = k.numSteps() + 1; to-- > 0;) {
                cur.seek(to);
                QVERIFY(cur.state() == states[to]);
            }
        }
        // Sharding pointers resolve through the pool.
        TraceCursor cur(t);
        cur.seek(t.numSteps());
        for (size_t v = 0; v < t.values().size(); ++v) {
            const int id = states.back()[v];
            QCOMPARE(cur.sharding(static_cast<int>(v)), id < 0 ? nullptr : &t.data().shardings[size_t(id)]);
        }
    }

    void compactJsonRoundTrips()
    {
        // One step per line, defaults left out, and the whole trace read back equal.
        Recorded r = record(2, true);
        const std::string text = r.trace.toJson();
        QVERIFY(text.find("\"funcResult\":-1") == std::string::npos);
        QVERIFY(text.find("\"note\":\"\"") == std::string::npos);
        QVERIFY(text.find("\n  {\"after\":") != std::string::npos);
        std::ostringstream streamed;
        r.trace.writeJson(streamed);
        QCOMPARE(streamed.str(), text);
        Expected<Trace> back = Trace::fromJson(text);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QVERIFY(*back == r.trace);
        QCOMPARE(back->toJson(), text);
    }

    void maxReductionsRoundTrip()
    {
        // Fuzz finding (fuzz_propagation): a reduce over "y" with max leaves "y" unreduced=max;
        // the reshard after it reduces it, and a sharding with no unreduced axes kept the kind
        // max, which its JSON text does not show: the trace read back was not equal. Shardings are
        // equal when they print the same (the kind counts only with unreduced axes).
        const Trace t = testing::recordTrace(R"(sdy.mesh @m = <["a"=2, "b"=2]>
func.func @f(%x: tensor<4x4x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {}, {"b"}]>})
    -> (tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}, {"b"}]>}) {
  %init = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %init) applies stablehlo.maximum across dimensions = [2]
    {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}], unreduced=max{"b"}>]>} :
    (tensor<4x4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %1 = sdy.reshard %0 <@m, [{"a"}, {"b"}]> : tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
})",
                                             "pipeline");
        QVERIFY(t.numSteps() > 0);
        Expected<Trace> back = Trace::fromJson(t.toJson());
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QVERIFY(*back == t);

        TensorSharding a, b;
        a.unreducedKind = ReductionKind::Max;
        QVERIFY(a == b);
        a.unreduced = {AxisRef("b")};
        b.unreduced = {AxisRef("b")};
        QVERIFY(!(a == b));
    }

    void nodeParentsMustComeFirst()
    {
        // Fuzz finding (fuzz_trace, a timeout): two nodes that were each other's parent made the
        // trace printer walk up forever. A parent must be -1 or an earlier node.
        Recorded r = record(1, true);
        nlohmann::json doc = nlohmann::json::parse(r.trace.toJson());
        QVERIFY(doc["nodes"].size() >= 2);
        doc["nodes"][0]["parent"] = 1;
        doc["nodes"][1]["parent"] = 0;
        Expected<Trace> back = Trace::fromJson(doc.dump());
        QVERIFY(!back.ok());
        QVERIFY2(back.error().message.find("/nodes/0/parent") != std::string::npos, back.error().message.c_str());
        QVERIFY2(back.error().message.find("must be -1 or an earlier node") != std::string::npos,
                 back.error().message.c_str());
    }

    void validateRejectsInconsistentChanges()
    {
        Recorded r = record(1, true);
        TraceData d = r.trace.data();
        QVERIFY(Trace::validate(d).ok());
        size_t withChange = 0;
        while (d.steps[withChange].changes.empty())
            ++withChange;
        TraceData bad = d;
        bad.steps[withChange].changes[0].before = bad.steps[withChange].changes[0].after;
        QVERIFY(!Trace::validate(bad).ok());
        QVERIFY(Trace::validate(bad).error().message.find("steps/" + std::to_string(withChange)) != std::string::npos);
        bad = d;
        bad.steps[withChange].before = static_cast<int>(bad.tables.size());
        QVERIFY(!Trace::validate(bad).ok());
        bad = d;
        bad.initial.pop_back();
        QVERIFY(!Trace::validate(bad).ok());
    }
};

QTEST_APPLESS_MAIN(TestTraceStorage)
#include "tst_tracestorage.moc"
