// HloShardingText: a Shardy sharding as XLA's GSPMD HloSharding, printed as XLA prints it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/mesh/Mesh.h"
#include "core/sharding/ConvertedSharding.h"
#include "core/sharding/TensorSharding.h"

namespace shardx {

/// A device list that is an iota reshaped and transposed: `<=[reshapeDims]T(perm)`, in XLA's
/// canonical form (no size-1 dims, adjacent dims that stay in order merged, so an identity
/// transpose is `<=[N]`).
struct IotaDevices {
    std::vector<int64_t> reshapeDims;
    std::vector<int64_t> perm; ///< empty or identity for `<=[N]`
    bool operator==(const IotaDevices& o) const = default;
    /// `<=[8]`, `<=[2,4]T(1,0)`.
    std::string toString() const;
};

/// Finds `devices` (a flat device list of N ids) as an iota of N reshaped and transposed, if it is
/// one: `[0, 4, 1, 5, 2, 6, 3, 7]` is `<=[2,4]T(1,0)`.
std::optional<IotaDevices> iotaOf(const std::vector<int64_t>& devices);

/// The tile assignment of an HloSharding: tile dims (one per tensor dim, then one per subgroup),
/// the devices in tile order, and what the subgroup dims are.
struct HloTileAssignment {
    enum class Kind { Replicated, Maximal, Tiled };
    enum class Subgroup { Unreduced, Replicated };
    Kind kind = Kind::Replicated;
    int64_t maximalDevice = 0;
    std::vector<int64_t> dims;       ///< tile dims: tensor dims, then subgroups
    std::vector<int64_t> devices;    ///< device ids in row-major order over `dims`
    std::vector<Subgroup> subgroups; ///< the trailing dims of `dims` that are subgroups
    std::optional<IotaDevices> iota; ///< `devices` as an iota, when it is one
};

/// The tile assignment XLA's Shardy export derives from `sharding` on `mesh` (convertToHloSharding):
/// the mesh axes are split into the sub-axes the sharding uses; the device array (the mesh's
/// device order, reshaped to those sub-axes) is transposed to put the axes of dimension 0 (major to
/// minor) first, then those of dimension 1..., then the unreduced axes, then the unused ones
/// (replicated, mesh order), and reshaped to the tile dims; devices of one replication group are
/// sorted (HloSharding::PartialTile). A mesh without axes is replicated, or maximal on its one
/// device id; so is a sharding on a one-device mesh, and one that shards nothing.
HloTileAssignment hloTileAssignmentOf(const TensorSharding& sharding, const Mesh& mesh);

/// The HloSharding text XLA prints: `{replicated}`, `{maximal device=3}`,
/// `{devices=[2,1,4]<=[8] last_tile_dim_replicate}`, `{devices=[4,2]<=[2,4]T(1,0)}`,
/// `{devices=[2,2]3,1,2,0}` (an explicit list when the tile order is no iota),
/// `{devices=[2,2,2]<=[8] last_tile_dims={unreduced, replicated}}`, `{unreduced}`.
/// Open dimensions, priorities and explicitly replicated axes have no HloSharding form (noted).
ConvertedSharding hloShardingOf(const TensorSharding& sharding, const Mesh& mesh);

/// The text of a tile assignment, as hloShardingOf() prints it.
std::string hloShardingText(const HloTileAssignment& tiles);

} // namespace shardx
