// Verification of an OpShardingRule against the op's operand and result types (SDY.md 1.8).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/ir/Type.h"
#include "core/rules/OpShardingRule.h"

namespace shardx {

/// Runs the checks of SDY.md 1.8 in order (operands, results, unused factors, special
/// factor lists, blocked factors, reduction factors in results). Returns the first error.
std::optional<std::string> verifyOpShardingRule(const OpShardingRule& rule, const std::vector<ir::Type>& operandTypes,
                                                const std::vector<ir::Type>& resultTypes);

} // namespace shardx
