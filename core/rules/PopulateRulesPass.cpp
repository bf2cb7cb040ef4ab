// sdy-populate-op-sharding-rules: the pass and its registry entry.
#include "core/rules/PopulateRulesPass.h"

#include <functional>

#include "core/rules/CustomRules.h"
#include "core/rules/RuleVerifier.h"

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
                std::vector<ir::Type> ops, res;
                for (const ir::Value* v : op.operands())
                    ops.push_back(v->type());
                for (const auto& v : op.results())
                    res.push_back(v->type());
                if (auto err = verifyOpShardingRule(*r.rule, ops, res)) {
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

ir::PassInfo populateOpShardingRulesPassInfo()
{
    return ir::PassInfo{"sdy-populate-op-sharding-rules",
                        "attach the sharding rule of every op that has one as `sdy.sharding_rule`",
                        {"conservative-propagation", "custom-rules"},
                        [](ir::Module& m, const ir::PassOptions& opts, DiagnosticList& diags) {
                            RuleOptions options;
                            if (auto it = opts.find("conservative-propagation"); it != opts.end()) {
                                if (!ir::parseBoolOption(it->second, options.conservativePropagation)) {
                                    diags.error(SourcePos{m.fileName, 0, 0},
                                                "invalid value '" + it->second +
                                                    "' for option conservative-propagation");
                                    return false;
                                }
                            }
                            std::optional<CustomRuleSet> custom;
                            if (auto it = opts.find("custom-rules"); it != opts.end() && !it->second.empty()) {
                                auto loaded = CustomRuleSet::loadFile(it->second);
                                if (!loaded) {
                                    diags.error(loaded.error().pos, loaded.error().message);
                                    return false;
                                }
                                custom = std::move(*loaded);
                                options.customRules = &*custom;
                            }
                            return populateOpShardingRules(m, options, diags);
                        }};
}

} // namespace shardx
