// PartitionModel: what partitioning a propagated program costs, for users (CLI, reports, GUI):
// the per-device program, every collective with its axes, replica groups, bytes and cause, and
// each device's peak live memory.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/ir/Module.h"
#include "core/mesh/Mesh.h"
#include "core/support/Diagnostic.h"
#include "core/support/Expected.h"

namespace shardx {

/// Latency and bandwidth of the links along one mesh axis (the alpha-beta model).
struct AxisLink {
    double latencySeconds = 5e-6;          ///< per ring step
    double bandwidthBytesPerSecond = 50e9; ///< per device and direction
};

/// The cost model: a default link and overrides per mesh axis name.
struct CostModel {
    AxisLink defaults;
    std::map<std::string, AxisLink> perAxis;
    const AxisLink& link(const std::string& axis) const;
};

/// Which tensors each DeviceInfo lists its shard of.
enum class ShardListing {
    None,
    Interface, ///< the arguments and results of every function (the default)
    All,       ///< every tensor value with a static shape
};

struct PartitionOptions {
    int64_t replicaCount = 1;
    int64_t partitionCount = 1;
    CostModel cost;
    ShardListing shards = ShardListing::Interface;
    /// Keep PartitionModel::global (validation maps the per-device program's values to the global ones).
    bool keepGlobalProgram = false;
};

/// One side of a collective's cause: a value of the propagated program, its sharding, and (filled
/// by Session::partition from the recorded trace) the steps and user annotations that gave it.
struct CauseSide {
    int value = -1;                   ///< ProgramIds value index in the propagated module, -1 if none
    std::string name;                 ///< as the file prints it (`%3`, `%arg0`, `@main:result0`)
    std::string sharding;             ///< what this side has or needs
    std::vector<int> steps;           ///< trace steps that carried its axes, ascending
    std::vector<std::string> origins; ///< the values whose annotations its axes came from
};

/// One collective of the per-device program.
struct CollectiveInfo {
    std::string kind; ///< `all-gather`, `all-slice`, `all-reduce`, `reduce-scatter`, `all-to-all`, `collective-permute`
    std::vector<AxisRef> axes;                       ///< the mesh axes it communicates over
    std::vector<std::vector<int64_t>> replicaGroups; ///< device ids; a permute: one [source, target] pair each
    std::vector<int64_t> shapeBefore, shapeAfter;    ///< local shapes of its operand and result
    std::string elementType;
    int64_t groupSize = 1;
    int64_t payloadBytesPerDevice = 0;  ///< bytes of the local operand
    int64_t bytesSentPerDevice = 0;     ///< under ring algorithms (see README)
    int64_t bytesReceivedPerDevice = 0; ///< the same
    double seconds = 0;                 ///< the cost model's time
    std::string op;                     ///< the user's name of the op that needs it (`%5`)
    std::string opName;                 ///< `stablehlo.dot_general`
    SourcePos position;                 ///< where that op is in the user's file
    std::string from, to;               ///< the shardings it converts between
    std::string cause;                  ///< why it is there, in a sentence
    int opIndex = -1;                   ///< ProgramIds op index of `op` in the propagated module
    CauseSide fromSide, toSide;         ///< the two shardings that disagreed
    /// The latest trace step behind either side: where the disagreement took its final form
    /// (what the GUI seeks to), -1 without a trace.
    int causeStep = -1;
};

/// One tensor's shard on one device.
struct TensorShardInfo {
    int value = -1;       ///< ProgramIds value index in the propagated module
    std::string name;     ///< `%arg0`, `%5`, `@main:result0`
    std::string sharding; ///< `<@mesh, [{"x"}, {}]>`, or `<replicated>`
    std::vector<int64_t> globalShape, localShape;
    std::vector<std::pair<int64_t, int64_t>> ranges; ///< per dimension: [begin, end) of real elements
    int64_t paddingElements = 0;                     ///< local elements that are padding
    std::string slice;                               ///< `[0:4, 6:7 (+1 padding)]`
};

/// One device of the mesh.
struct DeviceInfo {
    int64_t id = 0;
    std::vector<int64_t> coords;         ///< per mesh axis
    int64_t peakLiveBytes = 0;           ///< the largest sum of live local tensors along the program
    std::vector<TensorShardInfo> shards; ///< what it holds of each tensor PartitionOptions::shards lists
};

struct PartitionModel {
    std::unique_ptr<ir::Module> local; ///< the per-device program (SPMD: every device runs it)
    /// With PartitionOptions::keepGlobalProgram: the program just before convert-global-to-local (global
    /// shapes, padded for divisibility, every value's sharding, explicit sdy collectives). Its values and
    /// `local`'s carry the same ProgramIds indices (Value::programId) where `local` kept or replaced them.
    std::unique_ptr<ir::Module> global;
    std::string meshName;
    Mesh mesh;
    std::vector<DeviceInfo> devices;
    std::vector<CollectiveInfo> collectives;
    int64_t bytesSentPerDevice = 0; ///< all collectives together
    double seconds = 0;             ///< all collectives together, one after the other
};

/// One answer of Session::replicatedTensors ("why replicated?"): a tensor that ends less sharded than
/// a neighbour offered, what it costs each device and why.
struct ReplicatedTensor {
    int value = -1;
    std::string id;          ///< `@main:%5`
    std::string displayName; ///< `%5`
    std::string opName;      ///< its defining op
    SourcePos position;
    std::string sharding;            ///< its final sharding (or `<no sharding>`)
    int64_t shards = 1;              ///< pieces it is cut into
    int64_t devices = 1;             ///< devices of its mesh
    int64_t bytes = 0;               ///< the whole tensor
    int64_t bytesPerDevice = 0;      ///< what each device holds
    int64_t extraBytesPerDevice = 0; ///< over an even split across every device of the mesh
    std::vector<std::string> reasons;
};

/// Partitions a propagated module (which is not changed) with the executable sequence of
/// PARTITION.md 1.2 and describes the result. Fails with the first error of a pass.
Expected<PartitionModel> buildPartitionModel(const ir::Module& propagated, const PartitionOptions& options = {});

/// `{"format": "shardx-partition", "version": 1, "devices": [...], "collectives": [...], ...}`.
nlohmann::json partitionJson(const PartitionModel& model);
/// The collectives table and per-device summary as text.
std::string partitionText(const PartitionModel& model, bool withProgram = true);

} // namespace shardx
