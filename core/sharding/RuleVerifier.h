// Verification of an OpShardingRule against the op's operand and result type shapes (SDY.md 1.8).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/sharding/OpShardingRule.h"
#include "core/sharding/TypeShape.h"

namespace shardx {

/// Runs the checks of SDY.md 1.8 in order (operands, results, unused factors, special
/// factor lists, blocked factors, reduction factors in results). Returns the first error.
std::optional<std::string> verifyOpShardingRule(const OpShardingRule& rule, const std::vector<TypeShape>& operandTypes,
                                                const std::vector<TypeShape>& resultTypes);

} // namespace shardx
