// The partitioner passes that turn a propagated global program into the per-device one
// (PARTITION.md 1.2), besides sdy-reshard-to-collectives (ReshardToCollectives.h).
#pragma once

#include <cstdint>

#include "core/ir/Module.h"
#include "core/support/Diagnostic.h"

namespace shardx {

/// The device counts of `-sdy-resolve-single-device-sharding` and `-sdy-convert-global-to-local`.
struct DeviceCountOptions {
    int64_t replicaCount = 1;   ///< `replica-count`: > 1 reads the device id with stablehlo.replica_id
    int64_t partitionCount = 1; ///< `partition-count`
};

/// `-sdy-resolve-single-device-sharding` (PARTITION.md 6): an op whose results live on one device
/// (a maximal mesh) runs inside a stablehlo.if on that device; the other devices contribute zeros
/// to an sdy.all_reduce over every axis of the module's first mesh with axes.
bool resolveSingleDeviceSharding(ir::Module& module, const DeviceCountOptions& options, DiagnosticList& diags);

/// Options of `-sdy-convert-global-to-local` (PARTITION.md 7.1).
struct GlobalToLocalOptions {
    bool perDimAllGather = false;                    ///< `per-dim-all-gather`
    bool combineMultiDimensionReduceScatter = false; ///< `combine-multi-dimension-reduce-scatter`
    bool enableRgv3 = false;                         ///< `enable-rgv3`: replica groups as mesh axes
    int64_t replicaCount = 1;                        ///< `replica-count`
    int64_t partitionCount = 1;                      ///< `partition-count`
};

/// `-sdy-convert-global-to-local` (PARTITION.md 7): the global program with shardings becomes the
/// program every device runs: local types, StableHLO collectives with replica groups for the sdy
/// collectives, device-dependent offsets from partition_id, manual computations inlined.
bool convertGlobalToLocal(ir::Module& module, const GlobalToLocalOptions& options, DiagnosticList& diags);

/// `-sdy-drop-sharding-and-mesh` (PARTITION.md 8): removes `sdy.sharding` from every op, function
/// argument and result, and erases every sdy.mesh.
void dropShardingAndMesh(ir::Module& module);

} // namespace shardx
