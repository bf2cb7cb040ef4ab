// LocalOps: building blocks of the partitioner passes that emit per-device code (PARTITION.md 4.5,
// 5, 6 and 7.5): the current device id, shard indices, offset tables, neighbour shifts, high-end
// padding and trimming, constants and attributes written as MLIR text.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/Builder.h"
#include "core/ir/Module.h"
#include "core/mesh/Mesh.h"
#include "core/sharding/TensorSharding.h"
#include "core/support/Expected.h"

namespace shardx::partition {

/// Module::resolveMesh with each symbol's answer remembered (a symbol lookup walks the module's
/// top-level ops), for a pass that adds, changes and removes no mesh while it asks.
class MeshLookup {
public:
    explicit MeshLookup(const ir::Module& module) : m_module(module) {}
    /// The mesh `s` names, or null when the module has none of that name.
    const Mesh* operator()(const TensorSharding& s) const { return (*this)(s.mesh); }
    const Mesh* operator()(const MeshRef& ref) const
    {
        if (ref.inlineMesh)
            return &*ref.inlineMesh;
        for (const auto& [symbol, mesh] : m_symbols)
            if (symbol == ref.symbol)
                return mesh;
        const Mesh* mesh = m_module.resolveMesh(ref);
        m_symbols.emplace_back(ref.symbol, mesh);
        return mesh;
    }

private:
    const ir::Module& m_module;
    mutable std::vector<std::pair<std::string, const Mesh*>> m_symbols;
};

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
/// replicaGroups() remembered per mesh and axis list: a pass asks for the groups of the same few axis
/// lists once per collective, and each answer walks every device of the mesh.
class ReplicaGroupCache {
public:
    const std::vector<std::vector<int64_t>>& get(const Mesh& mesh, const std::vector<AxisRef>& axes);

private:
    struct Entry {
        Mesh mesh;
        std::vector<AxisRef> axes;
        std::vector<std::vector<int64_t>> groups;
    };
    std::deque<Entry> m_entries; // few (the distinct axis lists of a module's collectives); stable references
};
/// The `source_target_pairs` of a collective_permute from `in` to `out` (PARTITION.md 7.6.6):
/// one (source, target) pair per device, in device id order; the target holds under `out` the
/// shard the source holds under `in`.
Expected<std::vector<std::pair<int64_t, int64_t>>> permutePairs(const TensorSharding& in, const Mesh& inMesh,
                                                                const TensorSharding& out, const Mesh& outMesh);

/// `t` enlarged at the high end so that each dimension that `s` shards divides among its shards
/// (PARTITION.md 5.1); `t` itself when `s` or `mesh` is null.
ir::Type paddedType(const ir::Type& t, const TensorSharding* s, const Mesh* mesh);
/// `stablehlo.pad` of `v` with `value` on the high edges only (low and interior 0) up to `target`,
/// carrying `s` as its sharding when `s` is given (PARTITION.md 4.3 "padHigh").
ir::Value* padHigh(ir::Builder& b, ir::Value* v, ir::Value* value, const ir::Type& target, const TensorSharding* s);
/// `stablehlo.slice v [0:limit]` with stride 1, carrying `s` as its sharding when given (the trim
/// back to an unpadded type).
ir::Value* trim(ir::Builder& b, ir::Value* v, const std::vector<int64_t>& limit, const TensorSharding* s);

/// The largest `handle = N` of a `#stablehlo.channel_handle` anywhere under `root`, or 0.
int64_t largestChannelHandle(ir::Op& root);
/// The `handle = N` of `op`'s own `#stablehlo.channel_handle`, or 0.
int64_t channelHandleOf(const ir::Op& op);
/// `s` without the axes named in `manual` (the view from inside a manual computation's body).
TensorSharding withoutManualAxes(TensorSharding s, const std::vector<std::string>& manual);

/// The shard index along `axes` of the device whose id is `deviceId` (a `tensor<i64>`), computed
/// at run time (PARTITION.md 4.5.2 step 3): divide/remainder arithmetic on an iota mesh, a table
/// indexed by the id on a mesh with device ids, `constant 0` for no axes.
ir::Value* runtimeShardIndex(ir::Builder& b, ir::Value* deviceId, const Mesh& mesh, const std::vector<AxisRef>& axes);
/// The `source_target_pairs` that shift every device's block by `shift` shards along `axes`
/// (PARTITION.md 4.5.2 step 1): device `i` sends to the device whose shard index along `axes` is
/// its own plus `shift`, other coordinates equal; devices shifted off the end send nothing.
/// Pairs in mesh position order of the sender.
std::vector<std::pair<int64_t, int64_t>> shiftPairs(const Mesh& mesh, const std::vector<AxisRef>& axes, int64_t shift);

} // namespace shardx::partition
