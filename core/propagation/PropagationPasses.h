// The propagation passes: basic, aggressive, op-priority, user-priority (SDY.md 3.4, 4.1).
#pragma once

#include <string>
#include <vector>

#include "core/ir/Module.h"
#include "core/propagation/PropagationDriver.h"

namespace shardx {

/// Options of the four propagation passes.
struct PropagationPassOptions {
    PropagationOptions base;
    /// Strategies run one after another by aggressive/op-priority/user-priority.
    std::vector<FactorStrategy> strategies = {FactorStrategy::Aggressive};
    bool runOpPriorityPropagation = true;
};

/// The direction of factor `f` of `op` under op-priority heuristics h0..`level` (SDY.md 4.6).
PropagationDirection opPriorityDirection(const ir::Op& op, const OpShardingRule& rule, int64_t f, int level);

/// `-sdy-basic-propagate`.
bool runBasicPropagation(ir::Module& module, const PropagationPassOptions& options, DiagnosticList& diags);
/// `-sdy-aggressive-propagate`.
bool runAggressivePropagation(ir::Module& module, const PropagationPassOptions& options, DiagnosticList& diags);
/// `-sdy-op-priority-propagate`.
bool runOpPriorityPropagation(ir::Module& module, const PropagationPassOptions& options, DiagnosticList& diags);
/// `-sdy-user-priority-propagate`.
bool runUserPriorityPropagation(ir::Module& module, const PropagationPassOptions& options, DiagnosticList& diags);

/// Op-priority rounds on an already prepared driver (used by user-priority propagation).
void opPriorityRounds(PropagationDriver& driver, const PropagationPassOptions& options);

} // namespace shardx
