// PartitionDiff: what changes between two partitions of one program (two files of it, or two
// propagation strategies): tensor shardings, collectives, bytes, time and peak memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/ir/Module.h"
#include "core/partition/PartitionModel.h"

namespace shardx {

/// One side of a comparison: a propagated program, its names, its partition and (optionally) its
/// "why replicated?" list. The pointers must outlive diffPartitions().
struct PartitionDiffSide {
    std::string label; ///< how reports name it: `mlp.mlir (pipeline)`
    const ir::Module* propagated = nullptr;
    const ir::ProgramIds* ids = nullptr; ///< the names of `propagated`'s values and ops
    const PartitionModel* model = nullptr;
    /// Session::replicatedTensors() of this side; empty when not known.
    std::vector<ReplicatedTensor> replicated;
};

/// A tensor whose final sharding differs between the two sides.
struct TensorShardingChange {
    std::string id;                   ///< A's id: `@main:%5`, `@main:%arg0`, `@main:result0`
    std::string name;                 ///< A's name as its file prints it: `%5`
    std::string nameB;                ///< B's name, when it differs (matched by position)
    std::string type;                 ///< A's type: `tensor<16x64xf32>`
    std::string shardingA, shardingB; ///< `<@mesh, [{"x"}, {}]>`, or `<no sharding>`
    int64_t bytesPerDeviceA = 0;      ///< the local shard, padding included
    int64_t bytesPerDeviceB = 0;
    /// True when the two shardings cut the tensor the same way and differ only in how they are
    /// written (open or closed dimensions, priorities, explicitly replicated axes, no sharding
    /// against a replicated one): no effect on the partition.
    bool notationOnly = false;
};

/// A collective of one side, with the key it is matched by.
struct DiffCollective {
    std::string opId; ///< ProgramIds id of the op that needs it (`@main:%6`), empty when unknown
    size_t index = 0; ///< its index in its side's PartitionModel::collectives
    CollectiveInfo info;
};

/// A collective found on both sides whose bytes, shapes or shardings changed.
struct ChangedCollective {
    DiffCollective a, b;
};

struct PartitionDiff {
    std::string labelA, labelB;
    /// Both programs have the same ops (ids and op names) and values (ids and types): every
    /// value is matched by its id. Otherwise only function arguments and results are matched,
    /// by function name and position, and `structure` says what differs.
    bool sameStructure = true;
    std::vector<std::string> structure;                ///< the structural differences, one sentence each
    size_t matchedValues = 0;                          ///< tensors compared
    std::string meshA, meshB;                          ///< `@mesh ["data"=2, "model"=4] (8 devices)`
    std::vector<TensorShardingChange> shardingChanges; ///< layout changes, in A's value order
    std::vector<TensorShardingChange> notationChanges; ///< notation-only differences
    std::vector<DiffCollective> removed;               ///< in A only
    std::vector<DiffCollective> added;                 ///< in B only
    std::vector<ChangedCollective> changed;            ///< on both sides, different
    size_t unchangedCollectives = 0;
    size_t collectivesA = 0, collectivesB = 0;
    int64_t bytesSentPerDeviceA = 0, bytesSentPerDeviceB = 0;
    double secondsA = 0, secondsB = 0;
    int64_t peakLiveBytesA = 0, peakLiveBytesB = 0; ///< per device
    /// "Why replicated?" entries in B's list and not A's (gained) and the reverse (lost), by id.
    std::vector<ReplicatedTensor> replicatedGained, replicatedLost;

    /// Nothing a report lists differs (notation-only differences aside).
    bool identical() const;
};

/// Compares two partitions of one program. Values are matched by their ProgramIds id when the
/// two programs have the same structure, else function arguments and results by function name
/// and position. Collectives are matched by the id and name of the op that needs them, kind and
/// mesh axes (the k-th of A with the k-th of B when several share a key). Never fails: what
/// cannot be matched is reported.
PartitionDiff diffPartitions(const PartitionDiffSide& a, const PartitionDiffSide& b);

/// `{"format": "shardx-partition-diff", "version": 1, "a": {...}, "b": {...}, ...}`.
nlohmann::json partitionDiffJson(const PartitionDiff& diff);
/// The comparison as text, A -> B.
std::string partitionDiffText(const PartitionDiff& diff);

} // namespace shardx
