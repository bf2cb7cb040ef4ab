// Internal helpers shared by the ExplicitReshards*.cpp files (SDY.md 3.8); not a public API.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/Module.h"
#include "core/partition/PartitionPasses.h"
#include "core/rules/ShardingProjection.h"
#include "core/sharding/OpShardingRule.h"
#include "core/sharding/TensorSharding.h"
#include "core/support/Diagnostic.h"

namespace shardx::reshards {

/// State of one pass run.
struct Context {
    ir::Module& module;
    bool fullVersion = false;
    DiagnosticList& diags;
    bool failed = false;
    PermutationFreeOps* permutationFree = nullptr;
};

// ---- building ops ------------------------------------------------------------------------

/// `sdy.reshard %in <s>` (not inserted).
std::unique_ptr<ir::Op> makeReshard(ir::Value* in, const TensorSharding& s);
/// `sdy.all_reduce {axes} %in out_sharding=<out>` of reduction `kind` (not inserted).
std::unique_ptr<ir::Op> makeAllReduce(ir::Value* in, const std::vector<AxisRef>& axes, const TensorSharding& out,
                                      ReductionKind kind);
/// Inserts `op` right before `before`; returns its first result.
ir::Value* insertBefore(ir::Op* before, std::unique_ptr<ir::Op> op);
/// Inserts `op` right after `after`; returns its first result.
ir::Value* insertAfter(ir::Op* after, std::unique_ptr<ir::Op> op);
/// Inserts `op` right after the definition of `v` (block start for a block argument).
ir::Value* insertAfterDef(ir::Value* v, std::unique_ptr<ir::Op> op);

/// Where new ops go: before `before` (when set), else right after the definition of `afterDefOf`.
struct InsertPoint {
    ir::Op* before = nullptr;
    ir::Value* afterDefOf = nullptr;
    /// Inserts `op` here and moves the point past it; returns its first result.
    ir::Value* insert(std::unique_ptr<ir::Op> op);
    ir::Op* lastInserted = nullptr;
};

// ---- shardings ---------------------------------------------------------------------------

/// Same mesh and same dimension axes and unreduced axes (missing = fully replicated).
bool equivalentShardings(const Context& ctx, const std::optional<TensorSharding>& a,
                         const std::optional<TensorSharding>& b);
/// `s` with every dimension closed.
TensorSharding closedVersion(TensorSharding s);

// ---- unreduced handling (ExplicitReshardsUnreduced.cpp) ----------------------------------

/// Step 4 / reshard-to-target step 1: if `S(value)` has unreduced axes not in `keepUnreduced`,
/// inserts an `sdy.all_reduce` of those axes at `ip` and returns it; else returns `value`.
ir::Value* allReducePending(Context& ctx, ir::Value* value, const std::vector<AxisRef>& keepUnreduced, InsertPoint& ip);
/// Unreduced collectives from `in` to `out` for `value` at `ip` (SDY.md 3.8); returns the
/// final value (or `value` when nothing was inserted).
ir::Value* insertUnreducedCollectives(Context& ctx, ir::Value* value, const TensorSharding& in,
                                      const TensorSharding& out, InsertPoint& ip, ir::Op* errorOp);
/// Reshard-to-target for operand `index` of `user` (data-flow, call and return handling).
void reshardToTarget(Context& ctx, ir::Op* user, unsigned index, const std::optional<TensorSharding>& target, bool full,
                     InsertPoint ip);
/// Handles an op with a result on a maximal mesh (SDY.md 3.8 "single device").
void handleSingleDeviceOp(Context& ctx, ir::Op* op, const std::vector<std::optional<TensorSharding>>& results);

// ---- factor shardings (ExplicitReshardsFactors.cpp) --------------------------------------

/// Input of the common-axes computation of one op.
struct FactorProblem {
    const OpShardingRule* rule = nullptr;
    const ShardingProjection* projection = nullptr;
    const Mesh* mesh = nullptr;
    std::vector<int64_t> tensorSizes; ///< element counts, operands then results (0 if dynamic)
};

/// The common axes of every factor (SDY.md 3.8 "common axes per factor").
std::vector<std::vector<AxisRef>> computeCommonAxes(const FactorProblem& problem);

/// Reshape with overflow axes: fills `common` and returns true when it applies.
bool reshapeOverflowCommonAxes(const FactorProblem& problem, std::vector<std::vector<AxisRef>>& common);

/// The non-full dot special case: updates the result's factor shardings in `projection`.
/// Returns true when it applied.
bool dotSpecialCase(const FactorProblem& problem, ShardingProjection& projection, bool isDotGeneral);

} // namespace shardx::reshards
