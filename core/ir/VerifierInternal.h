// Internal helpers shared by the module verifier's source files (not a public API).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/Module.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/sharding/ShardingVerifier.h"
#include "core/support/Diagnostic.h"

namespace shardx::ir::verifier {

/// State of one verifyModule run.
struct Context {
    const Module& module;
    DiagnosticList& diags;
    bool everyOp = false;         ///< go on after an op fails (VerifyScope::EveryOp)
    bool allowUnknownOps = false; ///< VerifyOptions::allowUnknownOps

    const Mesh* resolve(const MeshRef& ref) const { return module.resolveMesh(ref); }
    MeshLookup lookup() const
    {
        return [this](const MeshRef& r) { return module.resolveMesh(r); };
    }
};

/// Reports `'op.name' op MESSAGE` at the op; with a note at `noteOp` when given. Returns false.
bool opError(Context& ctx, const Op& op, const std::string& message, const Op* noteOp = nullptr,
             const std::string& note = {});

/// Manual axes bound by the `sdy.manual_computation` ops enclosing `op` (not `op` itself),
/// each with the op that binds it.
std::vector<std::pair<std::string, const Op*>> enclosingManualAxes(const Op& op);
/// Just the axis names of enclosingManualAxes.
std::vector<std::string> manualAxisNames(const std::vector<std::pair<std::string, const Op*>>& bound);
/// The op of `bound` binding `axis`, or nullptr.
const Op* binderOf(const std::vector<std::pair<std::string, const Op*>>& bound, const std::string& axis);

// The accessors of shardings and sdy attributes: core/ir/ShardingAccess.h, core/ir/SdyOps.h.

/// Verifies `s` for `type` and reports "PREFIXmessage" at `op` on failure (with the manual
/// computation note for rule 11). `bound`: manual axes of enclosing manual computations.
bool verifyShardingAt(Context& ctx, const Op& op, const TensorSharding& s, const Type* type,
                      const std::vector<std::pair<std::string, const Op*>>& bound, const std::string& prefix);

/// How an unreduced transition may remove axes.
struct RemovePolicy {
    bool allowed = false;
    std::optional<ReductionKind> kind; ///< required kind of removed axes (none = any)
};
/// The unreduced transition check T of SDY.md 2.16 (`in` may be null). nullopt when valid.
std::optional<std::string> checkUnreducedTransition(Context& ctx, const TensorSharding* in, const TensorSharding& out,
                                                    std::optional<ReductionKind> introduce, RemovePolicy remove);

/// Verification of the sdy ops other than collectives (SDY.md 2.1-2.11). True when valid.
bool verifySdyOp(Context& ctx, const Op& op);
/// Verification of the collectives (SDY.md 2.12-2.17). True when valid.
bool verifyCollective(Context& ctx, const Op& op);

/// Signature checks of StableHLO / func ops (VerifierStablehlo.cpp). True when valid.
bool verifyOpSignature(Context& ctx, const Op& op);
/// "empty block: expect at least a terminator" (at `parent`), as MLIR on entering a block.
bool verifyBlockEntry(Context& ctx, const Op& parent, const Region& region, const Block& block);
/// "block with no terminator" (at the last op), as MLIR on leaving a block.
bool verifyBlockExit(Context& ctx, const Op& parent, const Region& region, const Block& block);

} // namespace shardx::ir::verifier
