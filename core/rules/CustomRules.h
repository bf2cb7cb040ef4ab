// CustomRules: user-defined sharding rules (seed 004), loaded from a JSON or text rules file.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/Operation.h"
#include "core/rules/RuleRegistry.h"
#include "core/sharding/OpShardingRule.h"
#include "core/support/Expected.h"

namespace shardx {

/// One user rule in einsum-like syntax, before factor sizes are known:
/// `(i,k),(k,j)->(i,j) {reduction: k}`; a dimension with several factors is written as
/// concatenated names `ij` or `(i j)` (major to minor), a scalar as `()`. Options in braces:
/// `reduction`, `need_replication`, `permutation`, `blocked` (a name or `[a, b]`) and
/// `sizes: [i=2, j=4]` (needed only for factors whose size the shapes do not fix).
/// Factor names are one letter optionally followed by digits (`i`, `k2`).
struct CustomRuleSpec {
    std::string key;                                         ///< op name, or `@target` for a custom_call
    std::string text;                                        ///< the rule as written
    std::string origin;                                      ///< "FILE:LINE" or "FILE: rule N" for diagnostics
    std::vector<std::string> factorNames;                    ///< in order of first appearance
    std::vector<std::vector<std::vector<int64_t>>> operands; ///< tensor -> dim -> factor ids
    std::vector<std::vector<std::vector<int64_t>>> results;
    std::map<int64_t, int64_t> explicitSizes;
    std::vector<int64_t> reduction, needReplication, permutation, blocked;
};

/// Parses one rule line. On error, `Error::pos.col` is the 1-based column in `text`.
Expected<CustomRuleSpec> parseCustomRule(const std::string& text);

/// Turns a parsed rule into an OpShardingRule for tensors of the given shapes (factor sizes
/// from the shapes and `sizes`); the result is marked custom.
Expected<OpShardingRule> instantiateCustomRule(const CustomRuleSpec& spec,
                                               const std::vector<std::vector<int64_t>>& operandShapes,
                                               const std::vector<std::vector<int64_t>>& resultShapes);

/// A set of user rules keyed by op name or `@custom_call_target`.
class CustomRuleSet {
public:
    /// Loads a rules file: JSON (`{"rules": [{"op": "my.op", "rule": "..."},
    /// {"custom_call": "Target", "rule": "..."}]}`) when it starts with `{` or `[`, otherwise
    /// text with one `KEY: RULE` per line (`#` comments; KEY = op name or `@target`).
    static Expected<CustomRuleSet> loadFile(const std::string& path);
    static Expected<CustomRuleSet> fromJson(const std::string& text, const std::string& fileName);
    static Expected<CustomRuleSet> fromText(const std::string& text, const std::string& fileName);

    /// Adds (or replaces) the rule for `key`; `origin` names it in diagnostics.
    Status add(const std::string& key, const std::string& ruleText, const std::string& origin);

    /// The rule spec that applies to `op`, or nullptr.
    const CustomRuleSpec* find(const ir::Op& op) const;
    /// The user rule for `op` (Created or Invalid with where and why), or nullopt when no user
    /// rule matches the op.
    std::optional<RuleResult> apply(const ir::Op& op) const;

    size_t size() const { return m_rules.size(); }
    bool empty() const { return m_rules.empty(); }

private:
    std::map<std::string, CustomRuleSpec> m_rules;
};

} // namespace shardx
