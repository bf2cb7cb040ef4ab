// RuleRegistry: dispatch by op name, the no-rule list, and the shared helpers of the rule files.
#include "core/rules/RuleRegistry.h"

#include <map>
#include <set>

#include "core/ir/OpRegistry.h"
#include "core/rules/CustomRules.h"
#include "core/rules/RulesInternal.h"

namespace shardx {

namespace rules {

std::optional<std::vector<int64_t>> intListAttr(const RuleContext& c, const std::string& name, int64_t count)
{
    return stablehlo::intList(c.op.attr(name), count);
}

std::optional<int64_t> intAttr(const RuleContext& c, const std::string& name)
{
    return stablehlo::intValue(c.op.attr(name));
}

bool inRange(int64_t d, const Shape& s) { return d >= 0 && d < static_cast<int64_t>(s.size()); }

} // namespace rules

namespace {

using namespace rules;

const std::map<std::string, RuleFn>& ruleTable()
{
    static const std::map<std::string, RuleFn> table = [] {
        std::map<std::string, RuleFn> t;
        // The pointwise ops are the OpRegistry's `hasPointwiseRule` ops.
        for (const ir::OpInfo& info : ir::OpRegistry::instance().ops())
            if (info.hasPointwiseRule)
                t[info.name] = pointwiseRule;
        t["stablehlo.select"] = selectRule;
        t["stablehlo.clamp"] = clampRule;
        t["stablehlo.bitcast_convert"] = bitcastConvertRule;
        t["stablehlo.batch_norm_inference"] = batchNormInferenceRule;
        t["stablehlo.broadcast_in_dim"] = broadcastInDimRule;
        t["stablehlo.transpose"] = transposeRule;
        t["stablehlo.cholesky"] = choleskyRule;
        t["stablehlo.reverse"] = reverseRule;
        t["stablehlo.all_gather"] = allGatherRule;
        t["stablehlo.all_to_all"] = allToAllRule;
        t["stablehlo.reduce_scatter"] = reduceScatterRule;
        t["stablehlo.rng_bit_generator"] = rngBitGeneratorRule;
        t["stablehlo.dot"] = dotRule;
        t["stablehlo.dot_general"] = dotGeneralRule;
        t["stablehlo.convolution"] = convolutionRule;
        t["stablehlo.reshape"] = reshapeRule;
        t["stablehlo.gather"] = gatherRule;
        t["stablehlo.scatter"] = scatterRule;
        t["stablehlo.concatenate"] = concatenateRule;
        t["stablehlo.slice"] = sliceRule;
        t["stablehlo.dynamic_slice"] = dynamicSliceRule;
        t["stablehlo.dynamic_update_slice"] = dynamicUpdateSliceRule;
        t["stablehlo.pad"] = padRule;
        t["stablehlo.reduce"] = reduceRule;
        t["stablehlo.reduce_window"] = reduceWindowRule;
        t["stablehlo.select_and_scatter"] = selectAndScatterRule;
        t["stablehlo.sort"] = sortRule;
        t["stablehlo.fft"] = fftRule;
        t["stablehlo.triangular_solve"] = triangularSolveRule;
        t["stablehlo.custom_call"] = customCallRule;
        return t;
    }();
    return table;
}

/// Ops that never get a rule and are never warned about (SDY.md 4.12 "No rule"), plus a few
/// value-less or structural StableHLO ops where a factor mapping makes no sense.
const std::set<std::string>& noRuleOps()
{
    static const std::set<std::string> ops = {
        "builtin.module",
        "func.func",
        "func.call",
        "func.return",
        "sdy.constant",
        "sdy.data_flow_edge",
        "sdy.func_data_flow_edge",
        "sdy.manual_computation",
        "sdy.mesh",
        "sdy.propagation_barrier",
        "sdy.sharding_group",
        "sdy.reshard",
        "sdy.named_computation",
        "sdy.return",
        "stablehlo.while",
        "stablehlo.case",
        "stablehlo.if",
        "stablehlo.optimization_barrier",
        "stablehlo.after_all",
        "stablehlo.constant",
        "stablehlo.create_token",
        "stablehlo.get_tuple_element",
        "stablehlo.tuple",
        "stablehlo.infeed",
        "stablehlo.outfeed",
        "stablehlo.iota",
        "stablehlo.partition_id",
        "stablehlo.replica_id",
        "stablehlo.recv",
        "stablehlo.send",
        "stablehlo.return",
        "stablehlo.composite",
    };
    return ops;
}

bool isStaticTensor(const ir::Type& t) { return t.isRankedTensor() && t.hasStaticShape(); }

} // namespace

RuleResult computeOpShardingRule(const ir::Op& op, const RuleOptions& options)
{
    if (options.customRules)
        if (auto r = options.customRules->apply(op))
            return *r;
    const std::string& name = op.name();
    if (noRuleOps().count(name))
        return RuleResult::none("op '" + name + "' has no sharding rule by design");
    if (const ir::OpInfo* info = ir::OpRegistry::instance().lookup(name); info && info->isTerminator)
        return RuleResult::none("terminators have no sharding rule");
    const auto& table = ruleTable();
    auto it = table.find(name);
    if (it == table.end())
        return RuleResult::unknown("op '" + name + "' is unknown to SDY sharding rule registry");

    if (name == "stablehlo.custom_call")
        if (auto r = customCallWithoutRule(op))
            return *r;
    if (name != "stablehlo.custom_call" && (op.numOperands() == 0 || op.numResults() == 0))
        return RuleResult::invalid("'" + name + "' needs at least one operand and one result for a sharding rule");
    RuleContext ctx{op, options.conservativePropagation, {}, {}};
    for (unsigned i = 0; i < op.numOperands(); ++i) {
        const ir::Type& t = op.operand(i)->type();
        if (!isStaticTensor(t))
            return RuleResult::invalid("operand " + std::to_string(i) + " of '" + name +
                                       "' is not a statically shaped ranked tensor (" + t.toString() + ")");
        ctx.operandShapes.push_back(t.shape());
    }
    for (unsigned i = 0; i < op.numResults(); ++i) {
        const ir::Type& t = op.result(i)->type();
        if (!isStaticTensor(t)) {
            if (i == 0 && it->second == pointwiseRule)
                return RuleResult::none("the first result of '" + name + "' is not a shaped tensor");
            return RuleResult::invalid("result " + std::to_string(i) + " of '" + name +
                                       "' is not a statically shaped ranked tensor (" + t.toString() + ")");
        }
        ctx.resultShapes.push_back(t.shape());
    }
    return it->second(ctx);
}

RuleNameClass ruleNameClass(std::string_view name)
{
    // As computeOpShardingRule() decides before it reads anything but the name.
    const std::string key(name);
    if (noRuleOps().count(key))
        return RuleNameClass::None;
    if (const ir::OpInfo* info = ir::OpRegistry::instance().lookup(name); info && info->isTerminator)
        return RuleNameClass::None;
    const auto& table = ruleTable();
    auto it = table.find(key);
    if (it == table.end())
        return RuleNameClass::None;
    if (key != "stablehlo.custom_call" && it->second == pointwiseRule)
        return RuleNameClass::ShapesOnly;
    return RuleNameClass::Other;
}

std::optional<OpShardingRule> createOpShardingRule(const ir::Op& op, bool conservativePropagation, std::string* whyNot)
{
    RuleOptions options;
    options.conservativePropagation = conservativePropagation;
    RuleResult r = computeOpShardingRule(op, options);
    if (r.outcome == RuleOutcome::Created)
        return std::move(r.rule); // a member is not moved from implicitly
    if (whyNot)
        *whyNot = r.reason;
    return std::nullopt;
}

const ir::AttrName& shardingRuleAttrName()
{
    static const ir::AttrName name(kShardingRuleAttrName);
    return name;
}

std::optional<OpShardingRule> getOrCreateOpShardingRule(const ir::Op& op, bool conservativePropagation)
{
    if (const ir::AttrPtr* a = op.findInterned(shardingRuleAttrName()); a && *a)
        if (const auto* r = (*a)->as<ir::OpShardingRuleAttr>())
            return r->rule;
    return createOpShardingRule(op, conservativePropagation);
}

} // namespace shardx
