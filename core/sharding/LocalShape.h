// LocalShape: per-device shards of a tensor sharded on a mesh (indices, offsets, padding).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/mesh/Mesh.h"
#include "core/sharding/TensorSharding.h"
#include "core/sharding/TypeShape.h"
#include "core/support/Expected.h"

namespace shardx {

/// What one device holds of a sharded tensor.
struct DeviceShard {
    int64_t deviceId = 0;
    int64_t position = 0;                ///< linear position of the device in the mesh
    std::vector<int64_t> shardIndex;     ///< per dimension: which shard (0..shardsPerDim-1)
    std::vector<int64_t> offset;         ///< per dimension: first global element = shardIndex * localShape
    std::vector<int64_t> validExtent;    ///< per dimension: real elements held (0..localShape); the rest is padding
    std::vector<int64_t> unreducedIndex; ///< per unreduced axis: the device's coordinate along it (empty if none)
    int64_t replicaGroup = 0;            ///< index into ShardedLayout::replicationGroups
    int64_t regionGroup = 0;             ///< index into ShardedLayout::regionGroups
    std::vector<int64_t> meshCoords;     ///< per mesh axis (major to minor): the device's coordinate

    /// First global index held in dimension `dim`.
    int64_t begin(size_t dim) const { return offset[dim]; }
    /// One past the last real (not padding) global index held in dimension `dim`: the shard holds
    /// the half-open range [begin, end) and `localShape[dim] - (end - begin)` elements of padding.
    int64_t end(size_t dim) const { return offset[dim] + validExtent[dim]; }
};

/// The layout of a tensor sharded on a mesh: global and local shapes and each device's shard.
///
/// A dimension of size `n` sharded by axes of total size `k` has `k` shards of
/// `ceil(n / k)` elements (the local size); shard `i` starts at `i * ceil(n / k)` and holds
/// `clamp(n - offset, 0, ceil(n / k))` real elements, so the last shards of a non-divisible
/// dimension are partly or wholly padding. Dynamic dimensions stay dynamic (kDynamicSize)
/// and report offset/extent kDynamicSize.
struct ShardedLayout {
    std::vector<int64_t> globalShape;
    std::vector<int64_t> shardsPerDim; ///< product of the axis sizes of each dimension
    std::vector<int64_t> localShape;   ///< ceil(global / shards) per dimension
    bool isEven = true;                ///< every static dimension divisible by its shard count
    std::vector<DeviceShard> devices;  ///< one per device, in mesh position order
    /// Devices holding identical data (same shard index and same unreduced coordinate),
    /// as device ids; groups in order of their first device's position.
    std::vector<std::vector<int64_t>> replicationGroups;
    /// Devices holding the same region of the tensor (same shard index; partial values along
    /// unreduced axes are not distinguished), as device ids.
    std::vector<std::vector<int64_t>> regionGroups;
    /// The axes sharding each dimension (major to minor), as the sharding gives them.
    std::vector<std::vector<AxisRef>> dimAxes;
    /// The unreduced axes (mesh order) and their reduction: devices that differ only in their
    /// coordinates along them hold partial results of the same region.
    std::vector<AxisRef> unreducedAxes;
    ReductionKind unreducedKind = ReductionKind::Sum;

    /// The shard of `deviceId`, or nullptr when the device is not in the mesh.
    const DeviceShard* shardOfDevice(int64_t deviceId) const;
    /// Elements of padding `shard` holds at the end of dimension `dim` (0 for a dynamic one).
    int64_t paddingOf(const DeviceShard& shard, size_t dim) const;
    /// True when `shard` holds padding in some dimension.
    bool holdsPadding(const DeviceShard& shard) const;
    /// The devices holding the same data as `deviceId` (its replication group), itself included;
    /// empty when the device is not in the mesh.
    std::vector<int64_t> replicasOf(int64_t deviceId) const;
    /// The index ranges of `shard` as numpy slices, padding in parentheses:
    /// `[0:4, 6:7 (+1 padding), 0:8]`; `[]` for a scalar, `?` for a dynamic dimension.
    std::string sliceText(const DeviceShard& shard) const;
};

/// Computes the layout of a tensor of `globalShape` with `sharding` on `mesh`.
/// Fails when the sharding's rank differs from the shape's, or an axis is unknown.
Expected<ShardedLayout> computeShardedLayout(const TensorSharding& sharding, const Mesh& mesh,
                                             const std::vector<int64_t>& globalShape);

/// Number of shards of each dimension (product of its axis sizes in `mesh`).
std::vector<int64_t> shardsPerDimension(const TensorSharding& sharding, const Mesh& mesh);

/// The local (per-device) shape for `globalShape`: ceil(dim / shards) per dimension.
std::vector<int64_t> localShapeOf(const TensorSharding& sharding, const Mesh& mesh,
                                  const std::vector<int64_t>& globalShape);

/// The body shape inside a manual computation: each static dimension of `globalShape` divided
/// by the product of the manual axes sharding it (free axes do not count). A shape whose rank
/// differs from the sharding's is returned unchanged. Assumes divisibility (checked by the
/// verifier); rounds up otherwise.
std::vector<int64_t> manualLocalShape(std::vector<int64_t> globalShape, const TensorSharding& sharding,
                                      const Mesh& mesh, const std::vector<std::string>& manualAxes);

} // namespace shardx
