// sdy-populate-op-sharding-rules: attaches `sdy.sharding_rule` to every op that has a rule.
#pragma once

#include <string>

#include "core/ir/Module.h"
#include "core/rules/RuleRegistry.h"
#include "core/support/Diagnostic.h"

namespace shardx {

/// Walks every func.func (post-order, nested ops included); an op without a
/// `sdy.sharding_rule` gets the rule of `computeOpShardingRule` when there is one. Reports
/// at most one "unknown op" and one "unknown custom call" warning per run (SDY.md 3.3), and
/// a warning on each op whose rule could not be built. Returns false only on errors.
bool populateOpShardingRules(ir::Module& module, const RuleOptions& options, DiagnosticList& diags);

} // namespace shardx
