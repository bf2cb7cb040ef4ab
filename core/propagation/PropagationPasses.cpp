// The propagation passes, op-priority heuristics and pass registration.
#include "core/propagation/PropagationPasses.h"

#include <algorithm>

#include "core/ir/StablehloAttrs.h"
#include "core/rules/RuleRegistry.h"

namespace shardx {

namespace {

bool contains(const std::vector<int64_t>& list, int64_t f)
{
    return std::find(list.begin(), list.end(), f) != list.end();
}

bool isPassThroughFactor(const OpShardingRule& rule, int64_t f)
{
    return !contains(rule.reductionFactors, f) && !contains(rule.needReplicationFactors, f) &&
           !contains(rule.permutationFactors, f) && !contains(rule.blockedPropagationFactors, f);
}

bool isMoveCustomCall(const ir::Op& op)
{
    const std::optional<std::string> target = stablehlo::customCallTarget(op);
    return target == "MoveToDevice" || target == "MoveToHost";
}

bool operandsSingleUse(const ir::Op& op)
{
    for (const ir::Value* v : op.operands()) {
        const bool scalar = !v->type().isRankedTensor() || v->type().rank() == 0;
        if (!scalar && v->uses().size() > 1)
            return false;
    }
    return true;
}

PropagationDirection passThroughHeuristic(const ir::Op& op, bool checkUses)
{
    // Asked for every factor of every step: names are compared as interned pointers.
    static const ir::OperationName kCustomCall("stablehlo.custom_call"), kReshape("stablehlo.reshape"),
        kTranspose("stablehlo.transpose"), kEdge("sdy.data_flow_edge"), kFuncEdge("sdy.func_data_flow_edge"),
        kDynamicSlice("stablehlo.dynamic_slice"), kDynamicUpdateSlice("stablehlo.dynamic_update_slice");
    const ir::OperationName n = op.opName();
    const bool passThrough = n == kReshape || n == kTranspose || n == kEdge || n == kFuncEdge ||
                             (n == kCustomCall && isMoveCustomCall(op)) || isElementwiseOp(op);
    const bool forwardOnly = n == kDynamicSlice || n == kDynamicUpdateSlice;
    if (!passThrough && !forwardOnly)
        return PropagationDirection::None;
    if (checkUses && !operandsSingleUse(op))
        return PropagationDirection::None;
    return passThrough ? PropagationDirection::Both : PropagationDirection::Forward;
}

PropagationDirection heuristic(int level, const ir::Op& op, const OpShardingRule& rule, int64_t f)
{
    static const ir::OperationName kBroadcastInDim("stablehlo.broadcast_in_dim");
    switch (level) {
    case 0: return passThroughHeuristic(op, true);
    case 1: return passThroughHeuristic(op, false);
    case 2:
        if (op.findInterned(shardingRuleAttrName()) && !isPassThroughFactor(rule, f))
            return PropagationDirection::None;
        return op.opName() == kBroadcastInDim ? PropagationDirection::Backward : PropagationDirection::Both;
    case 3: return op.opName() == kBroadcastInDim ? PropagationDirection::Backward : PropagationDirection::Both;
    default: return PropagationDirection::Both;
    }
}

void runStrategies(PropagationDriver& driver, const PropagationPassOptions& options, const OpDirectionFn& dir)
{
    for (FactorStrategy s : options.strategies)
        driver.run(s, dir);
}

std::string strategyName(const PropagationPassOptions& options)
{
    std::string s;
    for (FactorStrategy st : options.strategies)
        s += std::string(s.empty() ? "" : "-then-") + (st == FactorStrategy::Basic ? "basic" : "aggressive");
    return s;
}

template <typename Body>
bool runPass(ir::Module& module, const PropagationPassOptions& options, DiagnosticList& diags, const char* name,
             const std::string& strategy, Body&& body)
{
    PropagationDriver driver(module, options.base, diags);
    if (options.base.observer)
        options.base.observer->passBegin(name, strategy);
    if (!driver.prepare())
        return false;
    body(driver);
    driver.finish();
    if (options.base.observer)
        options.base.observer->passEnd(name);
    return !diags.hasErrors();
}

} // namespace

PropagationDirection opPriorityDirection(const ir::Op& op, const OpShardingRule& rule, int64_t f, int level)
{
    // The union of heuristics 0..level, highest first, stopping once it is BOTH. Heuristic 0 is
    // heuristic 1 restricted to single-use operands (NONE or the same direction), so it only
    // matters at level 0.
    PropagationDirection d = PropagationDirection::None;
    for (int h = level; h >= (level >= 1 ? 1 : 0) && d != PropagationDirection::Both; --h)
        d = unionOf(d, heuristic(h, op, rule, f));
    return intersectionOf(d, PropagationDirection::Both);
}

void opPriorityRounds(PropagationDriver& driver, const PropagationPassOptions& options)
{
    if (!options.runOpPriorityPropagation) {
        runStrategies(driver, options, {});
        return;
    }
    for (int level = 0; level <= 4; ++level) {
        if (options.base.observer)
            options.base.observer->opPriorityRoundBegin(level);
        runStrategies(driver, options, [level](const ir::Op& op, const OpShardingRule& rule, int64_t f) {
            return opPriorityDirection(op, rule, f, level);
        });
    }
}

bool runBasicPropagation(ir::Module& module, const PropagationPassOptions& options, DiagnosticList& diags)
{
    return runPass(module, options, diags, "sdy-basic-propagate", "basic",
                   [](PropagationDriver& d) { d.run(FactorStrategy::Basic); });
}

bool runAggressivePropagation(ir::Module& module, const PropagationPassOptions& options, DiagnosticList& diags)
{
    return runPass(module, options, diags, "sdy-aggressive-propagate", strategyName(options),
                   [&](PropagationDriver& d) { runStrategies(d, options, {}); });
}

bool runOpPriorityPropagation(ir::Module& module, const PropagationPassOptions& options, DiagnosticList& diags)
{
    return runPass(module, options, diags, "sdy-op-priority-propagate", strategyName(options),
                   [&](PropagationDriver& d) { opPriorityRounds(d, options); });
}

} // namespace shardx
