// HloSharding: the `mhlo.sharding` strings JAX exports may carry on arguments and results
// (`{devices=[2,1]0,1}`), read and turned into a PartitionSpec on a mesh where one gives them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/annotate/ShardingRules.h"
#include "core/mesh/Mesh.h"
#include "core/support/Expected.h"

namespace shardx::annotate {

/// An HloSharding as XLA prints it (xla/hlo/ir/hlo_sharding.cc, HloSharding::ToString) in the
/// forms JAX exports: `{replicated}`, `{maximal device=N}`, `{manual}`, and the tiled form
/// `{devices=[a,b,...]D0,D1,...}` with the devices listed or as an iota
/// (`<=[8]`, `<=[4,2]T(1,0)`), optionally `last_tile_dim_replicate` or `last_tile_dims={...}`.
/// `metadata={...}` is skipped; tuple shardings (`{{...}, {...}}`) are not read.
struct HloSharding {
    enum class Kind { Replicated, Maximal, Manual, Tiled };
    Kind kind = Kind::Replicated;
    int64_t device = -1;                   ///< Maximal: the one device
    std::vector<int64_t> tileDims;         ///< Tiled: the tile assignment's shape, trailing subgroup dims included
    std::vector<int64_t> devices;          ///< Tiled: the tile assignment, row-major (an iota expanded)
    bool lastTileDimReplicate = false;     ///< the last tile dimension replicates
    std::vector<std::string> lastTileDims; ///< `last_tile_dims={manual, replicated}`: subgroup kinds
};

/// Parses the text of an `mhlo.sharding` attribute. Errors name what is wrong and where
/// (`at offset 12: expected ']'`).
Expected<HloSharding> parseHloSharding(std::string_view text);

/// The PartitionSpec of `sharding` for a tensor of rank `rank` on `mesh` (devices laid out
/// row-major in the axis shape, as sdy.mesh without device_ids): the spec whose NamedSharding
/// JAX would print as `sharding`. Each tensor dimension's tile count is made of mesh axes (in
/// order, size-1 axes never used), the other axes replicate; the spec is the one whose device
/// order equals the tile assignment (the first in a search by tensor dimension, mesh order).
/// Errors say why none does: a maximal or manual sharding, a device count that differs from the
/// mesh's, tile counts no product of axes gives, or devices in an order no spec gives.
Expected<PartitionSpec> hloShardingToSpec(const HloSharding& sharding, const Mesh& mesh, int rank);

} // namespace shardx::annotate
