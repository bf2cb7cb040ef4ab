// Trace recording, decisions, seeking, text/JSON determinism and the JSON reader.
#include <QtTest>

#include <optional>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/ir/ShardingAccess.h"
#include "core/passes/PassRegistry.h"
#include "core/propagation/DataFlowEdgePasses.h"
#include "core/propagation/PropagationPasses.h"
#include "core/propagation/ValueSharding.h"
#include "core/trace/DebugAttributes.h"
#include "core/trace/Trace.h"
#include "core/trace/TraceCursor.h"
#include "core/trace/TracePrinter.h"
#include "core/trace/TraceRecorder.h"
#include "tests/trace/TraceTestSupport.h"

using namespace shardx;

namespace {

Trace record(const std::string& text, const std::string& strategy, int keyframeInterval = 256,
             bool conservative = false)
{
    return testing::recordTrace(text, strategy, keyframeInterval, conservative);
}

/// Steps on ops named `opName` that changed something.
std::vector<const TraceStep*> changingSteps(const Trace& t, const std::string& opName)
{
    std::vector<const TraceStep*> out;
    for (const TraceStep& s : t.steps())
        if (s.op >= 0 && t.ops()[static_cast<size_t>(s.op)].name == opName && !s.changes.empty())
            out.push_back(&s);
    return out;
}

bool anyTruncation(const Trace& t, TruncationReason reason)
{
    for (const TraceStep& s : t.steps())
        for (const FactorDecision& d : t.decisions(s))
            for (const AxisTruncation& tr : d.truncations)
                if (tr.reason == reason)
                    return true;
    return false;
}

bool anyChangeKind(const Trace& t, DecisionKind k)
{
    for (const TraceStep& s : t.steps())
        for (const TraceChange& c : s.changes) {
            if (c.kind == k && t.factorChanges(c).empty())
                return true;
            for (const TraceFactorChange& f : t.factorChanges(c))
                if (f.decision.kind == k)
                    return true;
        }
    return false;
}

const char* kReshape = R"(sdy.mesh @mesh = <["x"=8]>
func.func @main(%arg0: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<4x4xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<16xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
)";

const char* kDot = R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>},
                %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"a"}]>}) -> tensor<8x8xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
)";

const char* kFuncResult = R"(sdy.mesh @mesh = <["a"=2, "b"=2]>
func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", "b", ?}, {?}]>})
    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}, {?}]>}) {
  %0 = stablehlo.add %arg0, %arg0 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
)";

const char* kChain = R"(sdy.mesh @mesh = <["a"=2, "b"=2, "c"=2]>
func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}, {?}]>},
                %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}, {"b", ?}]>}) -> tensor<8x8xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<8x8xf32>
  %1 = stablehlo.multiply %0, %0 : tensor<8x8xf32>
  %2 = stablehlo.negate %1 : tensor<8x8xf32>
  %3 = stablehlo.abs %2 : tensor<8x8xf32>
  %4 = stablehlo.add %3, %1 : tensor<8x8xf32>
  return %4 : tensor<8x8xf32>
}
)";

/// Runs strategy `strategy` on `module` with `recorder` observing (as Session::propagate does).
bool runStrategy(ir::Module& module, const std::string& strategy, TraceRecorder& recorder)
{
    const PropagationStrategy* s = findPropagationStrategy(strategy);
    const PassInfo* pass = s ? findPass(s->pass) : nullptr;
    if (!pass)
        return false;
    DiagnosticList diags;
    PassContext context{diags, &recorder, nullptr};
    return pass->body(module, {}, context) && !diags.hasErrors();
}

/// Runs strategy `strategy` on `module` with `observer` observing.
bool runStrategyWith(ir::Module& module, const std::string& strategy, PropagationObserver& observer)
{
    const PropagationStrategy* s = findPropagationStrategy(strategy);
    const PassInfo* pass = s ? findPass(s->pass) : nullptr;
    if (!pass)
        return false;
    DiagnosticList diags;
    PassContext context{diags, &observer, nullptr};
    return pass->body(module, {}, context) && !diags.hasErrors();
}

/// Passes every event on to one observer, counting the steps whose outcome id was seen before;
/// with `strip` the steps are passed on without their outcome id.
class OutcomeIdCounter : public ObserverFanOut {
public:
    OutcomeIdCounter(PropagationObserver* target, bool strip)
        : ObserverFanOut({target}), m_target(target), m_strip(strip)
    {}
    void step(const PropagationStep& step) override
    {
        if (step.outcomeId != 0 && !m_seen.insert(step.outcomeId).second)
            ++repeats;
        if (!m_strip) {
            m_target->step(step);
            return;
        }
        PropagationStep copy = step;
        copy.outcomeId = 0;
        m_target->step(copy);
    }
    size_t repeats = 0;

private:
    PropagationObserver* m_target;
    bool m_strip;
    std::unordered_set<uint64_t> m_seen;
};

} // namespace

class TestTrace : public QObject {
    Q_OBJECT
private slots:
    void reshapeSplitsAxis()
    {
        // SDY.md 4.13 ex. 1: rule ([ij])->([i, j]) {i=4, j=4}; operand i: ["x":(1)4], j: ["x":(4)2].
        Trace t = record(kReshape, "basic");
        auto steps = changingSteps(t, "stablehlo.reshape");
        QCOMPARE(steps.size(), size_t(1));
        const TraceStep& s = *steps[0];
        QCOMPARE(s.changes.size(), size_t(1));
        const TraceChange& c = s.changes[0];
        QCOMPARE(c.tensor, 1); // the result
        QCOMPARE(t.values()[static_cast<size_t>(c.value)].id, std::string("@main:%0"));
        QCOMPARE(t.values()[static_cast<size_t>(c.value)].displayName, std::string("%0"));
        QCOMPARE(c.before, -1);
        QCOMPARE(t.factorChanges(c).size(), size_t(2));
        QCOMPARE(t.factorChanges(c)[0].dim, 0);
        QVERIFY(t.factorChanges(c)[0].before.empty());
        QCOMPARE(t.factorChanges(c)[0].after, (std::vector<AxisRef>{AxisRef("x", 1, 4)}));
        QCOMPARE(t.factorChanges(c)[0].sources, std::vector<int>{0});
        QCOMPARE(t.factorChanges(c)[0].decision.kind, DecisionKind::CompatiblePrefix);
        QCOMPARE(t.factorChanges(c)[1].dim, 1);
        QCOMPARE(t.factorChanges(c)[1].after, (std::vector<AxisRef>{AxisRef("x", 4, 2)}));
        QCOMPARE(t.factorChanges(c)[1].sources, std::vector<int>{0});
        QCOMPARE(t.sharding(c.after)->toString(), std::string("<@mesh, [{\"x\":(1)4, ?}, {\"x\":(4)2, ?}]>"));
        // Tree: pass -> run.
        QVERIFY(t.nodes().size() >= 2);
        QCOMPARE(t.nodes()[0].kind, TraceNodeKind::Pass);
        QCOMPARE(t.nodes()[1].kind, TraceNodeKind::Run);
        QCOMPARE(t.nodes()[1].parent, 0);
    }

    void dotConflictAcrossFactors()
    {
        // SDY.md 4.13 ex. 2: basic drops "a" for both i and j (used by the other factor).
        Trace basic = record(kDot, "basic");
        QVERIFY(changingSteps(basic, "stablehlo.dot_general").empty());
        QVERIFY(anyTruncation(basic, TruncationReason::ConflictAcrossFactors));
        // Aggressive shards one of them; equal T-sizes -> lhs (tensor 0) wins.
        Trace aggr = record(kDot, "aggressive");
        auto steps = changingSteps(aggr, "stablehlo.dot_general");
        QCOMPARE(steps.size(), size_t(1));
        const TraceChange& c = steps[0]->changes[0];
        QCOMPARE(c.tensor, 2);
        QCOMPARE(aggr.factorChanges(c).size(), size_t(1));
        QCOMPARE(aggr.factorChanges(c)[0].after, std::vector<AxisRef>{AxisRef("a")});
        QCOMPARE(aggr.factorChanges(c)[0].dim, 0);
        QCOMPARE(aggr.factorChanges(c)[0].decision.kind, DecisionKind::AggressiveChoice);
        QCOMPARE(aggr.factorChanges(c)[0].decision.sourceTensor, 0);
        QCOMPARE(aggr.factorChanges(c)[0].decision.sourceSize, int64_t(64)); // T-size of lhs: i=8 * k=8
    }

    void opPriorityDirections()
    {
        // 4.6: a dot_general is no pass-through op, so h0 and h1 give NONE: rounds 0 and 1 leave it
        // alone; from round 2 on (h2 = BOTH, no sharding_rule attribute of its own) it propagates.
        Trace t = record(kDot, "op-priority");
        int firstChangeRound = -1;
        for (const TraceStep& s : t.steps()) {
            if (s.op < 0 || t.ops()[static_cast<size_t>(s.op)].name != "stablehlo.dot_general")
                continue;
            if (s.kind == TraceStepKind::Op && (s.round == 0 || s.round == 1))
                for (const FactorDecision& d : t.decisions(s))
                    QCOMPARE(d.direction, PropagationDirection::None);
            if (!s.changes.empty() && firstChangeRound < 0)
                firstChangeRound = s.round;
        }
        QCOMPARE(firstChangeRound, 2);
        QVERIFY(printTrace(t).find(":NONE") != std::string::npos);
    }

    void funcResultSteps()
    {
        // SDY.md 4.13 ex. 3: result attr gives "a" to %0, the add gives "b", the result attr gets ["a","b"].
        Trace t = record(kFuncResult, "aggressive");
        std::vector<const TraceStep*> fr;
        for (const TraceStep& s : t.steps())
            if (s.kind == TraceStepKind::FuncResult && !s.changes.empty())
                fr.push_back(&s);
        QCOMPARE(fr.size(), size_t(2));
        QCOMPARE(fr[0]->changes[0].tensor, 0); // the returned value
        QCOMPARE(t.factorChanges(fr[0]->changes[0])[0].after, std::vector<AxisRef>{AxisRef("a")});
        QCOMPARE(t.factorChanges(fr[0]->changes[0])[0].sources, std::vector<int>{1});
        QCOMPARE(t.factorChanges(fr[0]->changes[0])[0].decision.kind, DecisionKind::FuncResultStep);
        QCOMPARE(fr[1]->changes[0].tensor, 1); // the result attribute
        QCOMPARE(t.values()[static_cast<size_t>(fr[1]->changes[0].value)].id, std::string("@main:result0"));
        QCOMPARE(t.factorChanges(fr[1]->changes[0])[0].after, (std::vector<AxisRef>{AxisRef("a"), AxisRef("b")}));
        auto adds = changingSteps(t, "stablehlo.add");
        QCOMPARE(adds.size(), size_t(1));
        QCOMPARE(t.factorChanges(adds[0]->changes[0])[0].before, std::vector<AxisRef>{AxisRef("a")});
        QCOMPARE(t.factorChanges(adds[0]->changes[0])[0].sources, (std::vector<int>{0, 1}));
    }

    void replicatedAndConstraintAndPriority()
    {
        // "a" is explicitly replicated in %arg1: the add cannot take it (4.4 step 2).
        Trace rep = record(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}]>},
                %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}], replicated={"a"}>}) -> tensor<8xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<8xf32>
  return %0 : tensor<8xf32>
}
)",
                           "basic");
        QVERIFY(anyTruncation(rep, TruncationReason::Replicated));
        QCOMPARE(decisionForTruncation(TruncationReason::Replicated), DecisionKind::ExplicitlyReplicated);
        QCOMPARE(decisionForTruncation(TruncationReason::ConflictAcrossFactors), DecisionKind::ConflictAcrossFactors);
        QCOMPARE(decisionForTruncation(TruncationReason::Overflow), DecisionKind::Overflow);
        // A closed constraint is copied onto its unsharded input (3.6).
        Trace con = record(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8xf32>
  %1 = sdy.sharding_constraint %0 <@mesh, [{"a"}]> : tensor<8xf32>
  return %1 : tensor<8xf32>
}
)",
                           "-sdy-apply-sharding-constraints");
        QVERIFY(anyChangeKind(con, DecisionKind::ShardingConstraint));
        // User priorities: p1 axes are held back in iteration 0 and restored at 1 (4.7).
        Trace up = record(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}p1]>}) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}
)",
                          "user-priority");
        QVERIFY(anyChangeKind(up, DecisionKind::UserPriorityHeldBack));
        QVERIFY(anyChangeKind(up, DecisionKind::UserPriorityRestored));
        bool rounds = false;
        for (const TraceNode& n : up.nodes())
            rounds = rounds || n.kind == TraceNodeKind::OpPriorityRound;
        QVERIFY(rounds);
    }

    void truncationDecisions_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("reason");
        QTest::addColumn<int>("kind");
        QTest::addColumn<bool>("conservative");
        // 4.4 step 2: "a" is unreduced in %arg1, so no tensor of the add may take it.
        QTest::newRow("unreduced") << QString(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}]>},
                %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}], unreduced={"a"}>}) -> tensor<8xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<8xf32>
  return %0 : tensor<8xf32>
}
)") << int(TruncationReason::Unreduced)
                                   << int(DecisionKind::ExplicitlyUnreduced) << false;
        // The factor is closed (and empty) in %arg1: the compatible "a" is cut.
        QTest::newRow("closed") << QString(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}]>},
                %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> tensor<8xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<8xf32>
  return %0 : tensor<8xf32>
}
)") << int(TruncationReason::Closed)
                                << int(DecisionKind::ClosedDimension) << false;
        // Conservative propagation may not split "x" into sub-axes for the reshape (4.13 ex. 1).
        QTest::newRow("conservative") << QString(kReshape) << int(TruncationReason::SubAxisConservative)
                                      << int(DecisionKind::SubAxisConservative) << true;
        // Overflow: the mapping is checked below; no small module producing it is known here.
        // Factor i=6 is minor-most in %arg0 but not in the reshape's result: "a"=4 does not divide it.
        QTest::newRow("non-divisible") << QString(R"(sdy.mesh @mesh = <["a"=4]>
func.func @main(%arg0: tensor<6x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}, {?}]>}) -> tensor<24xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<6x4xf32>) -> tensor<24xf32>
  return %0 : tensor<24xf32>
}
)") << int(TruncationReason::NonDivisible)
                                       << int(DecisionKind::NonDivisible) << false;
    }

    void truncationDecisions()
    {
        QFETCH(QString, text);
        QFETCH(int, reason);
        QFETCH(int, kind);
        QFETCH(bool, conservative);
        Trace t = record(text.toStdString(), "basic", 256, conservative);
        QVERIFY2(anyTruncation(t, static_cast<TruncationReason>(reason)), printTrace(t).c_str());
        // The recorder names the decision after the truncation reason.
        QCOMPARE(decisionForTruncation(static_cast<TruncationReason>(reason)), static_cast<DecisionKind>(kind));
        QVERIFY(decisionKindFromName(decisionKindName(static_cast<DecisionKind>(kind))) ==
                static_cast<DecisionKind>(kind));
    }

    void groupsAndNoSideEffects()
    {
        // Sharding groups: %0 gets "a" from %arg0 and the group copies it to %1 (4.10).
        const char* text = R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}]>}, %arg1: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = stablehlo.negate %arg0 : tensor<8xf32>
  %1 = stablehlo.abs %arg1 : tensor<8xf32>
  sdy.sharding_group %0 group_id = 0 : tensor<8xf32>
  sdy.sharding_group %1 group_id = 0 : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
)";
        Trace t = record(text, "basic");
        QVERIFY2(anyChangeKind(t, DecisionKind::ShardingGroupCopy), printTrace(t).c_str());
        // A member sharded before the pass: the preparation synchronises the group, a step of its
        // own; nothing changes where no step or stage was reported.
        Trace pre = record(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}]>}, %arg1: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  sdy.sharding_group %arg0 group_id = 0 : tensor<8xf32>
  sdy.sharding_group %arg1 group_id = 0 : tensor<8xf32>
  return %arg0, %arg1 : tensor<8xf32>, tensor<8xf32>
}
)",
                           "basic");
        QVERIFY2(anyChangeKind(pre, DecisionKind::ShardingGroupSync), printTrace(pre).c_str());
        QVERIFY2(!anyChangeKind(pre, DecisionKind::External), printTrace(pre).c_str());

        // Recording changes nothing: same printed module with and without a recorder.
        for (const char* m : {text, kChain, kDot, kFuncResult}) {
            DiagnosticList diags;
            auto a = io::parseMlir(m, "a.mlir", diags);
            auto b = io::parseMlir(m, "b.mlir", diags);
            PropagationPassOptions o;
            runAggressivePropagation(*a, o, diags);
            TraceRecorder rec(*b);
            o.base.observer = &rec;
            runAggressivePropagation(*b, o, diags);
            QCOMPARE(io::printModule(*a), io::printModule(*b));
        }
    }

    void notificationsCoverEveryChange()
    {
        // The recorder compares only the values of the ops whose shardings were written (the
        // "sharding written" notification), inserted or moved.
        // Verifying, it also compares the whole module there: nothing may differ unreported.
        std::vector<std::pair<std::string, std::string>> inputs = shardx::testing::sampleTexts();
        QVERIFY(inputs.size() >= 5);
        inputs.emplace_back("kDot", kDot);
        inputs.emplace_back("kFuncResult", kFuncResult);
        inputs.emplace_back("kChain", kChain);
        for (const auto& [name, text] : inputs)
            for (const PropagationStrategy& strategy : propagationStrategies()) {
                DiagnosticList diags;
                auto m = io::parseMlir(text, name, diags);
                QVERIFY2(m, diags.formatAll().c_str());
                TraceRecorder recorder(*m);
                recorder.setVerifyNotifications(true);
                const std::string what = name + " " + strategy.name;
                QVERIFY2(runStrategy(*m, strategy.name, recorder), what.c_str());
                QVERIFY2(recorder.missedChanges() == 0, what.c_str());
                // Nothing is compared whole: a single pass reports its steps and writes, and every
                // stage of the pipeline what it writes, inserts and erases (only a canonicalizer
                // pattern, which none of these inputs fires, would make the pipeline compare whole).
                QVERIFY2(recorder.fullScans() == 0, what.c_str());
            }
    }

    void sharedOutcomesRecordAlike()
    {
        // The recorder keeps the pooled rule, tables and decisions of a step by its outcome id:
        // a trace recorded from steps that carry no outcome id (every step pooled by content)
        // is the same, and the repeats did reach the recorder with an id seen before.
        std::vector<std::pair<std::string, std::string>> inputs = shardx::testing::sampleTexts();
        inputs.emplace_back("kChain", kChain);
        size_t repeats = 0;
        for (const auto& [name, text] : inputs)
            for (const PropagationStrategy& strategy : propagationStrategies()) {
                const std::string what = name + " " + strategy.name;
                DiagnosticList diags;
                auto a = io::parseMlir(text, name, diags);
                auto b = io::parseMlir(text, name, diags);
                QVERIFY2(a && b, diags.formatAll().c_str());
                std::optional<Trace> withIds, withoutIds;
                {
                    TraceRecorder recorder(*a);
                    OutcomeIdCounter counter(&recorder, false);
                    QVERIFY2(runStrategyWith(*a, strategy.name, counter), what.c_str());
                    repeats += counter.repeats;
                    withIds = recorder.takeTrace();
                }
                {
                    TraceRecorder recorder(*b);
                    OutcomeIdCounter stripper(&recorder, true);
                    QVERIFY2(runStrategyWith(*b, strategy.name, stripper), what.c_str());
                    withoutIds = recorder.takeTrace();
                }
                QVERIFY2(withIds->data() == withoutIds->data(), what.c_str());
            }
        QVERIFY(repeats > 0);
    }

    void writesOutsideStepsAreRecorded()
    {
        // A sharding written through ValueSharding's setter before the pass is recorded as an
        // External change at the pass's start; one written behind the notification's back is
        // what the verification reports.
        DiagnosticList diags;
        auto m = io::parseMlir(kDot, "dot.mlir", diags);
        QVERIFY(m);
        TraceRecorder recorder(*m);
        recorder.setVerifyNotifications(true);
        ir::Op* func = m->funcs().front();
        ir::Value* arg1 = func->region(0).front().args()[1].get();
        TensorSharding s = TensorSharding::open(MeshRef{"mesh", std::nullopt}, valueRank(arg1));
        s.dims[0].axes.push_back(AxisRef("a"));
        setSharding(arg1, s);
        QVERIFY(runStrategy(*m, "aggressive", recorder));
        QCOMPARE(recorder.missedChanges(), size_t(0));
        const Trace t = recorder.trace();
        QVERIFY2(anyChangeKind(t, DecisionKind::External), printTrace(t).c_str());

        auto quiet = io::parseMlir(kDot, "dot.mlir", diags);
        QVERIFY(quiet);
        TraceRecorder unaware(*quiet);
        unaware.setVerifyNotifications(true);
        ir::Op* qf = quiet->funcs().front();
        ir::setFuncArgSharding(*qf, 1, s); // not notified
        QVERIFY(runStrategy(*quiet, "aggressive", unaware));
        QVERIFY(unaware.missedChanges() > 0);
    }

    void debugAttributesFromTrace()
    {
        // SDY.md 5.3 example: step 0 (func result), 1 (add), 2 (func result).
        DiagnosticList diags;
        auto m = io::parseMlir(R"(sdy.mesh @mesh = <["a"=2, "b"=2]>
func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", "b", ?}, {?}]>})
    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}, {?}]>}) {
  %0 = stablehlo.add %arg0, %arg0 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
)",
                               "t.mlir", diags);
        DebugOutputOptions debug;
        debug.edges = true;
        debug.origins = true;
        runWithDebugOutputs(*m, debug, nullptr, [&](PropagationObserver* obs) {
            PropagationPassOptions o;
            o.base.observer = obs;
            return runAggressivePropagation(*m, o, diags);
        });
        const std::string out = io::printModule(*m);
        QVERIFY2(
            out.find(
                R"(sdy.propagation_edges = #sdy.propagation_edges<[{step-0 = [{"a" = result-0 -> [operand-0]}]}, {step-2 = [{"b" = operand-0 -> [result-0]}]}]>)") !=
                std::string::npos,
            out.c_str());
        QVERIFY2(out.find(R"({step-1 = [{"b" = operand-0 -> [result-0]}]})") != std::string::npos, out.c_str());
        // Origins: the argument keeps its axes ("self"); %0 has "a" from the result, "b" from the argument.
        QVERIFY2(out.find(R"(sdy.sharding_origins = [{a = "output: 0", b = "input: 0"}])") != std::string::npos,
                 out.c_str());
        QVERIFY2(out.find(R"(sdy.sharding_origins = {a = "self", b = "self"})") != std::string::npos, out.c_str());
    }

    void valueIdsAndNames()
    {
        Trace t = record(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}]>}) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8xf32> loc("layer1/neg")
  %1 = sdy.manual_computation(%0) in_shardings=[<@mesh, [{?}]>] out_shardings=[<@mesh, [{?}]>] manual_axes={} (%arg1: tensor<8xf32>) {
    %3 = stablehlo.abs %arg1 : tensor<8xf32>
    sdy.return %3 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  %2 = stablehlo.negate %1 : tensor<8xf32>
  return %2 : tensor<8xf32>
}
)",
                         "aggressive");
        std::map<std::string, TraceValue> byId;
        for (const TraceValue& v : t.values())
            byId[v.id] = v;
        QCOMPARE(byId.count("@main:%arg0"), size_t(1));
        // The names the file gives, even where MLIR's printer would renumber (%3 prints as %2);
        // values in a region are qualified by the op that holds it.
        QCOMPARE(byId["@main:%0"].displayName, std::string("%0"));
        QCOMPARE(t.scopeName(byId["@main:%0"].scope), std::string("layer1/neg"));
        QCOMPARE(byId["@main:%1"].displayName, std::string("%1"));
        QCOMPARE(byId["@main:%1/%arg1"].displayName, std::string("%arg1"));
        QCOMPARE(byId["@main:%1/%3"].displayName, std::string("%3"));
        QCOMPARE(byId["@main:%2"].displayName, std::string("%2"));
        QCOMPARE(byId["@main:result0"].displayName, std::string("result 0"));
        QCOMPARE(byId.size(), size_t(7));
        // The defining op of each value is recorded.
        const TraceValue& v0 = byId["@main:%0"];
        QVERIFY(v0.op >= 0);
        QCOMPARE(t.ops()[static_cast<size_t>(v0.op)].name, std::string("stablehlo.negate"));
        QCOMPARE(t.ops()[static_cast<size_t>(v0.op)].id, std::string("@main:%0"));
        QCOMPARE(byId["@main:%arg0"].op, -1);
        bool meshOp = false;
        for (const TraceOp& o : t.ops())
            meshOp = meshOp || (o.id == "@mesh" && o.name == "sdy.mesh");
        QVERIFY(meshOp);
    }

    void seekForwardsAndBackwards()
    {
        Trace t = record(kChain, "aggressive", 3);
        QVERIFY(t.numSteps() > 6);
        // Full replay states.
        const std::vector<std::vector<int>> states = testing::replayStates(t);
        TraceCursor cur(t);
        for (size_t k = 0; k <= t.numSteps(); ++k) {
            cur.seek(k);
            QCOMPARE(cur.position(), k);
            QVERIFY(cur.state() == states[k]);
        }
        for (size_t k = t.numSteps() + 1; k-- > 0;) {
            cur.seek(k);
            QVERIFY(cur.state() == states[k]);
        }
        cur.seek(2);
        cur.seek(t.numSteps());
        QVERIFY(cur.state() == states.back());
        cur.seek(1);
        QVERIFY(cur.state() == states[1]);
    }

    void deterministicTextAndJson()
    {
        Trace a = record(kChain, "aggressive");
        Trace b = record(kChain, "aggressive");
        QCOMPARE(printTrace(a), printTrace(b));
        QCOMPARE(a.toJson(), b.toJson());
        QVERIFY(printTrace(a).find("run aggressive") != std::string::npos);
        QVERIFY(a.toJson().rfind("{\n \"format\": \"shardx-trace\"", 0) == 0 ||
                a.toJson().find("\"format\": \"shardx-trace\"") != std::string::npos);
    }

    void jsonRoundTrip()
    {
        for (const char* text : {kChain, kDot, kFuncResult, kReshape}) {
            Trace t = record(text, "aggressive");
            Expected<Trace> back = Trace::fromJson(t.toJson());
            QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
            QVERIFY(*back == t);
            QCOMPARE(printTrace(*back), printTrace(t));
            QCOMPARE(back->toJson(), t.toJson());
        }
    }

    void tablesKnowMissingShardings()
    {
        // The dot's result has no sharding when the dot is first visited: its table row says so
        // (the operands' rows do have one), and the JSON keeps it.
        Trace t = record(kDot, "aggressive");
        bool sawMissing = false;
        for (const TraceStep& s : t.steps()) {
            if (s.kind != TraceStepKind::Op || s.before < 0)
                continue;
            const ShardingProjection& before = t.tablesBefore(s);
            if (before.numResults() == 1 && !before.results[0].hasSharding && before.operands[0].hasSharding)
                sawMissing = true;
        }
        QVERIFY(sawMissing);
        Expected<Trace> back = Trace::fromJson(t.toJson());
        QVERIFY(back.ok() && back->data().tables == t.data().tables);
        // The reader is strict: a table row without the field is rejected.
        nlohmann::json j = nlohmann::json::parse(t.toJson());
        j["tables"][0]["operands"][0].erase("hasSharding");
        Expected<Trace> r = Trace::fromJson(j.dump());
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.rfind("/tables/0/operands/0", 0) == 0, r.error().message.c_str());
    }

    void malformedJson()
    {
        Trace t = record(kFuncResult, "aggressive");
        const std::string good = t.toJson();
        auto errorOf = [](const std::string& text) {
            Expected<Trace> r = Trace::fromJson(text);
            return r.ok() ? std::string("<ok>") : r.error().message;
        };
        QVERIFY(errorOf("{").find("invalid JSON") != std::string::npos);
        QVERIFY(errorOf("[]").find("expected an object") != std::string::npos);
        // Numbers no double holds and deep nesting are errors, not exceptions or stack overflows.
        QVERIFY2(errorOf("{\"format\": 1e999}").rfind("invalid JSON: line 1, column 1: number overflow", 0) == 0,
                 errorOf("{\"format\": 1e999}").c_str());
        const std::string deep = "{\"format\": " + std::string(10000, '[') + std::string(10000, ']') + "}";
        QVERIFY2(errorOf(deep).find("line 1, column 2011: arrays and objects nested deeper than 2000 levels") !=
                     std::string::npos,
                 errorOf(deep).c_str());
        nlohmann::json j = nlohmann::json::parse(good);
        j["format"] = "other";
        QVERIFY(errorOf(j.dump()).rfind("/format:", 0) == 0);
        j = nlohmann::json::parse(good);
        j["version"] = 1;
        QVERIFY(errorOf(j.dump()).rfind("/version:", 0) == 0);
        j = nlohmann::json::parse(good);
        j.erase("steps");
        QVERIFY(errorOf(j.dump()).find("steps") != std::string::npos);
        j = nlohmann::json::parse(good);
        j["steps"][0]["kind"] = "teleport";
        QVERIFY(errorOf(j.dump()).rfind("/steps/0/kind:", 0) == 0);
        j = nlohmann::json::parse(good);
        size_t withChange = 0;
        while (j["steps"][withChange]["changes"].empty())
            ++withChange;
        j["steps"][withChange]["changes"][0]["value"] = 999;
        QCOMPARE(errorOf(j.dump()).rfind("/steps/" + std::to_string(withChange) + "/changes/0/value:", 0), size_t(0));
        j = nlohmann::json::parse(good);
        j["steps"][0]["op"] = 1000;
        QVERIFY(errorOf(j.dump()).rfind("/steps/0/op:", 0) == 0);
        j = nlohmann::json::parse(good);
        j["steps"][withChange]["changes"][0]["after"] = 1000;
        QVERIFY(errorOf(j.dump()).rfind("/steps/" + std::to_string(withChange) + "/changes/0/after", 0) == 0);
        j = nlohmann::json::parse(good);
        j["shardings"][0]["dims"] = "x";
        QVERIFY(errorOf(j.dump()).rfind("/shardings/0/dims", 0) == 0);
        j = nlohmann::json::parse(good);
        j["steps"][withChange]["rule"] = 1000;
        QVERIFY(errorOf(j.dump()).rfind("/steps/" + std::to_string(withChange) + "/rule:", 0) == 0);
        j = nlohmann::json::parse(good);
        j["initial"].push_back(-1);
        QVERIFY(errorOf(j.dump()).rfind("/initial:", 0) == 0);
        j = nlohmann::json::parse(good);
        j["initial"][0] = 1000;
        QVERIFY(errorOf(j.dump()).rfind("/initial/0:", 0) == 0);
        // A change whose `before` is not the state it replaces would break seeking backwards.
        j = nlohmann::json::parse(good);
        j["steps"][withChange]["changes"][0]["before"] = j["steps"][withChange]["changes"][0]["after"];
        QVERIFY(errorOf(j.dump()).find("/changes/0/before: does not match") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestTrace)
#include "tst_trace.moc"
