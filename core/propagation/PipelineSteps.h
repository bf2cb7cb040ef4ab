// The import/export sub-steps of -sdy-propagation-pipeline (SDY.md 3.7).
#pragma once

#include <functional>

#include "core/ir/Module.h"
#include "core/support/Diagnostic.h"

namespace shardx {

/// Applies `fn` to every sharding stored anywhere in the module (func argument/result
/// attributes, op attributes holding a sharding or a list of shardings). `fn` returns true
/// when it changed the sharding. `mayChange`, when given, is false for the shardings that `fn`
/// would leave as they are: those are not copied for it.
void forEachSharding(ir::Module& module, const std::function<bool(TensorSharding&)>& fn,
                     const std::function<bool(const TensorSharding&)>& mayChange = {});

/// MLIR's symbol DCE: erases private functions nobody calls (repeatedly).
void symbolDce(ir::Module& module);
/// 3.7.1 `sdy-lift-inlined-meshes`.
void liftInlinedMeshes(ir::Module& module);
/// 3.7.2 `sdy-remove-size-one-axes`.
void removeSizeOneAxes(ir::Module& module);
/// 3.7.3 `sdy-propagate-sharding-from-func-to-call`.
void propagateShardingFromFuncToCall(ir::Module& module);
/// 3.7.5 `sdy-constant-or-scalar-splitter`.
void constantOrScalarSplitter(ir::Module& module);
/// `sdy-explicit-gather-scatter-batching` (PARTITION.md 11; an import step behind an option): a
/// gather or scatter whose index component for operand dimension 0 (collapsed / inserted) is an
/// iota along dimension 0 of the indices gets operand and indices batching dimension 0 instead,
/// the component dropped from the indices; run with MLIR's greedy driver (dead ops erased,
/// constants uniqued and hoisted).
void explicitGatherScatterBatching(ir::Module& module);
/// Step 16 `sdy-constant-or-scalar-merger`.
void constantOrScalarMerger(ir::Module& module);
/// 3.7.6 `sdy-sharding-group-import`; false after reporting errors.
bool shardingGroupImport(ir::Module& module, DiagnosticList& diags);
/// 3.7.7 `sdy-manual-axes-cleanup`; false after reporting errors.
bool manualAxesCleanup(ir::Module& module, DiagnosticList& diags);
/// Step 18: erases every `sdy.sharding_group`.
void removeShardingGroups(ir::Module& module);
/// Step 19: every `sdy.sharding_constraint` becomes an `sdy.reshard`.
void shardingConstraintToReshard(ir::Module& module);
/// 3.7.9 `sdy-update-non-divisible-input-output-shardings`.
void updateNonDivisibleInputOutputShardings(ir::Module& module);
/// 3.7.10 `sdy-remove-sub-axes-in-input-output-shardings` (main function only).
void removeSubAxesInInputOutputShardings(ir::Module& module);
/// Step 22 `sdy-close-shardings`.
void closeShardings(ir::Module& module);
/// 3.7.11 `sdy-verify-unreduced-axes`: false after reporting the first error.
bool verifyUnreducedAxes(ir::Module& module, DiagnosticList& diags);
/// Step 26 `sdy-drop-sharding-rules`.
void dropShardingRules(ir::Module& module);
/// Step 25: the canonicalizer restricted to the collective patterns, plus dead-code removal.
void canonicalizeCollectives(ir::Module& module);
/// The canonicalizer restricted to the `sdy-reshard` pattern (reshard of a single-use reshard),
/// plus dead-code removal.
void canonicalizeReshards(ir::Module& module);
/// `sdy-inline-meshes`: every mesh symbol in a sharding is replaced by the mesh itself, then every
/// sdy.mesh is erased.
void inlineMeshes(ir::Module& module);

} // namespace shardx
