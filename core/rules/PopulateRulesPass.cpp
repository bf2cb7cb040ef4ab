// sdy-populate-op-sharding-rules: the pass and its registry entry.
#include "core/rules/PopulateRulesPass.h"

#include <functional>

#include "core/rules/CustomRules.h"
#include "core/sharding/RuleVerifier.h"

namespace shardx {

namespace {

void walkPostOrder(ir::Op& op, const std::function<void(ir::Op&)>& fn)
{
    for (const auto& region : op.regions())
        for (const auto& block : region->blocks())
            for (const auto& child : block->ops())
                walkPostOrder(*child, fn);
    fn(op);
}

SourcePos posOf(const ir::Op& op, const ir::Module& module)
{
    SourcePos p = op.pos;
    if (p.file.empty())
        p.file = module.fileName;
    return p;
}

} // namespace

bool populateOpShardingRules(ir::Module& module, const RuleOptions& options, DiagnosticList& diags)
{
    bool warnedUnknownOp = false, warnedUnknownCustomCall = false;
    for (ir::Op* func : module.funcs()) {
        walkPostOrder(*func, [&](ir::Op& op) {
            if (op.attr(kShardingRuleAttrName))
                return;
            RuleResult r = computeOpShardingRule(op, options);
            switch (r.outcome) {
            case RuleOutcome::Created: {
                if (auto err = verifyOpShardingRule(*r.rule, ir::operandTypeShapes(op), ir::resultTypeShapes(op))) {
                    diags.warning(posOf(op, module), "cannot attach the sharding rule of '" + op.name() + "': " + *err +
                                                         " (rule " + r.rule->toAttrString() + ")");
                    return;
                }
                op.setDiscardable(kShardingRuleAttrName, ir::makeAttr(ir::OpShardingRuleAttr{std::move(*r.rule)}));
                return;
            }
            case RuleOutcome::NoRule: return;
            case RuleOutcome::UnknownOp:
                if (!warnedUnknownOp) {
                    warnedUnknownOp = true;
                    diags.warning(posOf(op, module), "op '" + op.name() + "' is unknown to SDY sharding rule registry");
                }
                return;
            case RuleOutcome::UnknownCustomCall:
                if (!warnedUnknownCustomCall) {
                    warnedUnknownCustomCall = true;
                    diags.warning(posOf(op, module), r.reason);
                }
                return;
            case RuleOutcome::Invalid:
                diags.warning(posOf(op, module), "no sharding rule for '" + op.name() + "': " + r.reason);
                return;
            }
        });
    }
    return !diags.hasErrors();
}

} // namespace shardx
