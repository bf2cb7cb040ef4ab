// JaxSharding: a Shardy sharding as JAX writes it: a PartitionSpec and the typed form of jax.typeof.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/mesh/Mesh.h"
#include "core/sharding/ConvertedSharding.h"
#include "core/sharding/TensorSharding.h"

namespace shardx {

/// JAX's short dtype name for an MLIR element type, as jax.typeof prints it in its short form:
/// `f32`, `bf16`, `i32`, `u8` (ui8), `bool` (i1), `c64` (complex<f32>), `f8_e4m3fn` (f8E4M3FN).
/// Unknown spellings are returned unchanged.
std::string jaxDtypeName(const std::string& mlirElementType);

/// The sharding as a `jax.sharding.PartitionSpec` (with `from jax.sharding import PartitionSpec
/// as P`): one entry per dimension, `None` for an unsharded one, `'x'` for one axis, `('x', 'y')`
/// for several (major to minor), `P.UNCONSTRAINED` for an open dimension without axes, and
/// `unreduced={'z'}` for unreduced axes: `P('data', ('fsdp', 'tensor'), None)`.
///
/// Not expressible (explanation only): a sub-axis, or unreduced axes reduced by max or min (JAX's
/// unreduced axes are sums). Noted: an open dimension with axes (written closed), priorities, and
/// explicitly replicated axes (a PartitionSpec replicates every axis it does not name but cannot
/// forbid sharding on them). `meshText` builds the mesh with the same axes and device order.
ConvertedSharding partitionSpecOf(const TensorSharding& sharding, const Mesh& mesh);

/// The typed form `jax.typeof` prints for a tensor of `shape` and `elementType` (MLIR spelling)
/// when every mesh axis is Explicit: `f32[8@x,4]`, `f32[8@(x,y),4]`, unreduced axes as
/// `{U:z}` (several: `{U:(z,w)}`) after the brackets. Shardy has no reduced axes, so `{R:...}` is
/// never written. Sub-axes (and max/min unreduced axes) are not expressible; open dimensions are
/// noted (types have none).
ConvertedSharding jaxTypeOf(const TensorSharding& sharding, const Mesh& mesh, const std::vector<int64_t>& shape,
                            const std::string& elementType);

/// Python that builds `mesh` in JAX with the same axes and device order:
/// `jax.sharding.Mesh(np.array(jax.devices()).reshape(2, 4), ('x', 'y'))`, with device ids
/// `...np.array(jax.devices())[[3, 1, 2, 0]].reshape(2, 2)...`; empty for an axis-less mesh.
std::string jaxMeshText(const Mesh& mesh);

/// `s` as a Python string literal: `'data'`.
std::string pythonString(const std::string& s);

} // namespace shardx
