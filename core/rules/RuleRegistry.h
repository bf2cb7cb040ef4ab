// RuleRegistry: the sharding rule of every supported op, derived from its semantics (SDY.md 4.12).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/ir/Operation.h"
#include "core/ir/SdyOps.h"
#include "core/sharding/OpShardingRule.h"

namespace shardx {

class CustomRuleSet;

/// Why an op did or did not get a rule.
enum class RuleOutcome {
    Created,           ///< `rule` holds the op's rule
    NoRule,            ///< the op is known to have no rule (func.func, constants, terminators...)
    UnknownOp,         ///< the registry does not know the op (Shardy warns once per process)
    UnknownCustomCall, ///< a custom_call whose target has no rule (warns once per process)
    Invalid,           ///< the op should have a rule but its types/attributes do not allow one
};

/// The result of asking the registry for one op's rule.
struct RuleResult {
    RuleOutcome outcome = RuleOutcome::NoRule;
    std::optional<OpShardingRule> rule;
    std::string reason; ///< human-readable why (for every outcome but Created)

    static RuleResult created(OpShardingRule r) { return {RuleOutcome::Created, std::move(r), {}}; }
    static RuleResult none(std::string why) { return {RuleOutcome::NoRule, std::nullopt, std::move(why)}; }
    static RuleResult unknown(std::string why) { return {RuleOutcome::UnknownOp, std::nullopt, std::move(why)}; }
    static RuleResult invalid(std::string why) { return {RuleOutcome::Invalid, std::nullopt, std::move(why)}; }
};

/// Options of rule creation.
struct RuleOptions {
    /// `conservative-propagation`: no propagation along sliced/padded/windowed dims.
    bool conservativePropagation = false;
    /// User-defined rules consulted before the registry (may be null).
    const CustomRuleSet* customRules = nullptr;
};

/// Computes the rule of `op`: a user rule from `options.customRules` when one matches,
/// otherwise the registry's. Does not look at an attached `sdy.sharding_rule`.
RuleResult computeOpShardingRule(const ir::Op& op, const RuleOptions& options = {});

/// The registry's rule of `op`, or nullopt with `*whyNot` set to the reason.
std::optional<OpShardingRule> createOpShardingRule(const ir::Op& op, bool conservativePropagation,
                                                   std::string* whyNot = nullptr);

/// The rule that applies to `op`: its attached `sdy.sharding_rule` if any, else the
/// registry's (nullopt when none).
std::optional<OpShardingRule> getOrCreateOpShardingRule(const ir::Op& op, bool conservativePropagation = false);

/// What the registry's rule of an op depends on, by the op's name alone (no user rules).
enum class RuleNameClass {
    None,       ///< createOpShardingRule() never gives ops of this name a rule (no rule by design,
                ///< terminators, ops the registry does not know)
    ShapesOnly, ///< the rule is a function of the operand and result shapes alone (the pointwise
                ///< rule): ops of this name and others of this class with equal shapes get equal rules
    Other,      ///< the rule also reads the op's attributes or regions
};
RuleNameClass ruleNameClass(std::string_view name);

/// Name of the discardable attribute carrying a rule.
inline constexpr const char* kShardingRuleAttrName = ir::kShardingRuleAttr;
/// The same interned (Op::findInterned: for lookups at every step).
const ir::AttrName& shardingRuleAttrName();

} // namespace shardx
