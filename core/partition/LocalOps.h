// LocalOps: building blocks of the partitioner passes that emit per-device code (PARTITION.md 6
// and 7.5): the current device id, offset tables, constants and attributes written as MLIR text.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/Builder.h"
#include "core/mesh/Mesh.h"
#include "core/sharding/TensorSharding.h"
#include "core/support/Expected.h"

namespace shardx::partition {

/// The attribute MLIR text `text` denotes (`#stablehlo<comparison_direction EQ>`,
/// `dense<[1, 2]> : tensor<2xi64>`), as the reader makes it. The text is built by the passes, so
/// a parse failure is a bug: it aborts.
ir::AttrPtr attr(const std::string& text);

/// `tensor<i64>` and friends.
ir::Type scalarTensor(const std::string& elementType);

/// `%p = stablehlo.partition_id` (replica_id when `useReplicaId`), converted to `tensor<i64>`.
ir::Value* currentDeviceId(ir::Builder& b, bool useReplicaId);
/// `stablehlo.constant dense<value> : tensor<i64>`.
ir::Value* i64Scalar(ir::Builder& b, int64_t value);
/// `stablehlo.constant dense<[...]> : tensor<Nxi64>` (a splat when all entries are equal).
ir::Value* i64Table(ir::Builder& b, const std::vector<int64_t>& values);
/// `dense<...> : tensor<...xi64>` text of `values` with `shape` (a splat when all are equal).
std::string i64DenseText(const std::vector<int64_t>& values, const std::vector<int64_t>& shape);
/// A constant of zeros of `type` (`dense<0.000000e+00>`, `dense<0>`, `dense<false>`).
ir::Value* zeros(ir::Builder& b, const ir::Type& type);

/// The shard index of device `deviceId` along the axis list `axes` of `mesh` (PARTITION.md 2.3).
int64_t shardIndex(int64_t deviceId, const Mesh& mesh, const std::vector<AxisRef>& axes);
/// The replica groups of `axes` (PARTITION.md 2.4): (N/G) groups of G device ids.
std::vector<std::vector<int64_t>> replicaGroups(const Mesh& mesh, const std::vector<AxisRef>& axes);
/// The `source_target_pairs` of a collective_permute from `in` to `out` (PARTITION.md 7.6.6):
/// one (source, target) pair per device, in device id order; the target holds under `out` the
/// shard the source holds under `in`.
Expected<std::vector<std::pair<int64_t, int64_t>>> permutePairs(const TensorSharding& in, const Mesh& inMesh,
                                                                const TensorSharding& out, const Mesh& outMesh);

} // namespace shardx::partition
