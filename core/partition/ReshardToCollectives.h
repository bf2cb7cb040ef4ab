// ReshardToCollectives: the `sdy-reshard-to-collectives` pass (PARTITION.md 3): every sdy.reshard
// becomes a chain of sdy.all_slice, sdy.collective_permute, sdy.all_to_all and sdy.all_gather on
// global shapes, or its operand when it changes nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/Module.h"
#include "core/mesh/Mesh.h"
#include "core/sharding/TensorSharding.h"
#include "core/support/Diagnostic.h"

namespace shardx {

/// One collective of a reshard's decomposition.
struct ReshardStep {
    enum class Kind { AllSlice, CollectivePermute, AllToAll, AllGather };
    Kind kind = Kind::AllSlice;
    /// all_slice / all_gather: the axes sliced or gathered per dimension.
    std::vector<std::vector<AxisRef>> perDimAxes;
    /// all_to_all: the axes moved from `srcDim` to `tgtDim`.
    std::vector<AxisRef> axes;
    int64_t srcDim = 0;
    int64_t tgtDim = 0;
    /// The sharding after this step (closed, no replicated axes, the target's unreduced axes).
    TensorSharding out;

    /// `all_slice [{}, {"x"}]`, `collective_permute`, `all_to_all [{"y"}: 1->0]`.
    std::string toString() const;
};

/// The decomposition of one reshard from `in` to `out` of a tensor of `shape`; `mesh` is the mesh
/// both refer to (they must be equal up to device order; `in`'s mesh gives every size).
struct ReshardPlan {
    std::vector<ReshardStep> steps;
    /// False when two rounds did not reach `out` (only possible with axis sizes that are not powers
    /// of two; Shardy stops with an internal check there). The plan then ends with an all_gather of
    /// every remaining axis and an all_slice to `out`, which is correct but not what Shardy emits.
    bool finishedInTwoRounds = true;
};
ReshardPlan planReshard(const TensorSharding& in, const TensorSharding& out, const Mesh& mesh,
                        const std::vector<int64_t>& shape);

/// Options of `sdy-reshard-to-collectives`.
struct ReshardToCollectivesOptions {
    /// `keep-redundant-reshards`: keep a reshard whose operand already has an equivalent sharding.
    bool keepRedundantReshards = false;
};

/// Rewrites every sdy.reshard of every function. Reshards from or to a single-device mesh and
/// reshards between meshes with different axes are kept. Returns false after reporting errors.
bool reshardToCollectives(ir::Module& module, const ReshardToCollectivesOptions& options, DiagnosticList& diags);

} // namespace shardx
