// DTensorPlacements: a Shardy sharding as PyTorch DTensor placements on a DeviceMesh of the same axes.
#pragma once

#include <string>

#include "core/mesh/Mesh.h"
#include "core/sharding/ConvertedSharding.h"
#include "core/sharding/TensorSharding.h"

namespace shardx {

/// The DTensor placements, one per mesh dim, for a DeviceMesh whose dims are the mesh's axes in
/// order (mesh_dim_names = the axis names): `Shard(d)` for an axis sharding tensor dim d,
/// `Replicate()` for an unused axis, `Partial()` for an unreduced one (`Partial("max")`, `"min"`
/// for those reductions): `[Shard(0), Replicate()]`.
///
/// DTensor applies placements left to right over the mesh dims, so several axes on one tensor
/// dim are major to minor in mesh order. A dim whose axes are in another order needs
/// `_StridedShard(d, split_factor=f)` on each axis that a later mesh dim precedes in the
/// sharding, f being the product of the sizes of those later axes: on mesh (x=2, y=4),
/// `[{"y", "x"}]` is `[_StridedShard(0, split_factor=4), Shard(0)]` (explained in the notes).
/// Sub-axes are not expressible (a DeviceMesh dim cannot be split); open dimensions, priorities
/// and explicitly replicated axes are noted. `meshText` builds the DeviceMesh.
ConvertedSharding dtensorPlacementsOf(const TensorSharding& sharding, const Mesh& mesh);

/// Python that builds `mesh` as a DeviceMesh with the same dims and device order:
/// `init_device_mesh("cuda", (2, 4), mesh_dim_names=("x", "y"))`, or with device ids
/// `DeviceMesh("cuda", torch.tensor([3, 1, 2, 0]).reshape(2, 2), mesh_dim_names=("a", "b"))`;
/// empty for an axis-less mesh.
std::string dtensorMeshText(const Mesh& mesh);

} // namespace shardx
