// ExplicitReshards: the `sdy-insert-explicit-reshards` pass (SDY.md 3.8).
#pragma once

#include "core/ir/Module.h"
#include "core/partition/PartitionPasses.h"
#include "core/support/Diagnostic.h"

namespace shardx {

/// Options of `sdy-insert-explicit-reshards`.
struct ExplicitReshardsOptions {
    /// `enable-full-version`: resolve every op's factor conflicts (false: only reductions,
    /// data-flow/call/return unreduced handling and the dot special case).
    bool fullVersion = false;
    /// When set, receives the ops whose sharding rule has no permutation factor (for a
    /// resolve-permutation-factors run right after, PartitionPasses.h).
    PermutationFreeOps* permutationFree = nullptr;
};

/// Inserts `sdy.reshard` ops and unreduced collectives so that every op's operand and result
/// shardings are compatible with its sharding rule. Returns false after reporting errors.
bool insertExplicitReshards(ir::Module& module, const ExplicitReshardsOptions& options, DiagnosticList& diags);

} // namespace shardx
