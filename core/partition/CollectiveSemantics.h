// Collective semantics: result sharding and per-device data movement of every sdy collective.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/mesh/Mesh.h"
#include "core/sharding/TensorSharding.h"
#include "core/support/Expected.h"

namespace shardx {

/// The eight sdy collectives (SDY.md 2.12-2.17).
enum class CollectiveKind {
    AllGather,
    AllSlice,
    AllReduce,
    ReduceScatter,
    AllToAll,
    CollectivePermute,
    ReplicatedToUnreduced,
    ShardedToUnreduced,
};
/// "all_gather", "all_slice", ... (the sdy op name without the dialect).
const char* collectiveKindName(CollectiveKind k);

/// One `{axes}: src->tgt` parameter of an all_to_all.
struct AllToAllSpec {
    std::vector<AxisRef> axes;
    int64_t srcDim = 0;
    int64_t tgtDim = 0;
};

/// What a collective does, independent of its MLIR form.
struct CollectiveParams {
    CollectiveKind kind = CollectiveKind::AllGather;
    /// all_gather / all_slice / reduce_scatter / sharded_to_unreduced: axes per dimension.
    std::vector<std::vector<AxisRef>> perDimAxes;
    /// all_reduce / replicated_to_unreduced: the axes.
    std::vector<AxisRef> axes;
    /// all_to_all parameters.
    std::vector<AllToAllSpec> allToAll;
    /// all_reduce / reduce_scatter: the reduction.
    ReductionKind reduction = ReductionKind::Sum;
    /// collective_permute: the result sharding (the only collective whose result is not derived).
    TensorSharding permuteTarget;
};

/// The sharding a collective produces from `operand` (dimension axes and unreduced axes as
/// SDY.md defines them: gathered axes removed as suffixes, sliced axes appended, reduced axes
/// leave `unreduced`...). Fails with a message naming the axis and dimension that do not fit
/// (e.g. a gathering axis that is not a suffix of the operand's dimension).
Expected<TensorSharding> collectiveResultSharding(const TensorSharding& operand, const CollectiveParams& params,
                                                  const Mesh& mesh);

/// One piece of data sent between two devices. The region is a box of the global tensor.
struct Transfer {
    int64_t srcDevice = 0;
    int64_t dstDevice = 0;
    std::vector<int64_t> offset; ///< first global element per dimension
    std::vector<int64_t> extent; ///< elements per dimension
    int64_t bytes = 0;
    bool reduce = false; ///< a partial value combined with the receiver's (all_reduce, reduce_scatter)
};

/// The data movement of one collective on one tensor.
struct CollectiveMovement {
    TensorSharding result;
    /// Devices that communicate with each other (device ids; singletons when nothing moves).
    std::vector<std::vector<int64_t>> groups;
    /// Every transfer, ordered by destination position, then source position.
    std::vector<Transfer> transfers;
    /// Per device (in mesh position order): bytes sent and received.
    std::vector<int64_t> bytesSent;
    std::vector<int64_t> bytesReceived;
    int64_t totalBytes = 0;
};

/// Computes the result sharding and, for a tensor of `globalShape` with elements of
/// `elementBytes` bytes, which device sends which box of the tensor to which device.
/// Reductions are counted as direct exchanges (each group member sends its partial of the
/// receiver's region to the receiver); padding of uneven shards is never counted.
Expected<CollectiveMovement> collectiveMovement(const TensorSharding& operand, const CollectiveParams& params,
                                                const Mesh& mesh, const std::vector<int64_t>& globalShape,
                                                int64_t elementBytes);

} // namespace shardx
