// The partitioner passes that turn a propagated global program into the per-device one
// (PARTITION.md 1.2), besides sdy-reshard-to-collectives (ReshardToCollectives.h).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/ir/Module.h"
#include "core/mesh/Mesh.h"
#include "core/sharding/OpShardingRule.h"
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

/// What `-sdy-insert-explicit-reshards` learnt of the sharding rules of a module's ops, for the
/// `-sdy-resolve-permutation-factors` that runs right after it on the same module (the partition
/// model runs both, and each would build the rule of every op): the ops whose rule has no
/// permutation factor, so that the second pass need not build their rules again. Only ops whose
/// rule the registry computes from the op alone are noted (the pointwise ops, broadcast_in_dim,
/// transpose, dot, dot_general, reduce): the reshards inserted around them leave it as it was.
class PermutationFreeOps {
public:
    /// Notes the rule `rule` (nullptr: none) built for `op`.
    void note(const ir::Op& op, const OpShardingRule* rule);
    /// True when `op` (the same op: same name) was noted with a rule without permutation factors.
    bool contains(const ir::Op& op) const;

private:
    std::unordered_map<const ir::Op*, ir::OperationName> m_ops;
};

/// Options of `-sdy-resolve-permutation-factors`.
struct PermutationFactorOptions {
    /// `enable-halo-exchange`: exchange neighbour data for pad, slice, reverse and uneven reshape
    /// splits instead of replicating.
    bool enableHaloExchange = true;
    DeviceCountOptions counts;
    /// Ops known to need nothing (from the explicit reshards run just before), or null.
    const PermutationFreeOps* permutationFree = nullptr;
};

/// `-sdy-resolve-permutation-factors` (PARTITION.md 4): every StableHLO op whose sharding rule
/// has a sharded permutation factor (pad and slice unless communication-free, reverse, windowed
/// ops, convolution windows, concatenates of slices) is made locally computable: pad, slice and
/// reverse by halo exchange when enabled (neighbour blocks fetched with collective_permutes in an
/// sdy.manual_computation; a reversed mesh), the others by reshards that replicate the factor
/// before and after it. Reshapes whose shardings do not place the elements alike are computed by
/// halo exchange (uneven splits) or replicated on their uneven groups (PARTITION.md 4.9).
bool resolvePermutationFactors(ir::Module& module, const PermutationFactorOptions& options, DiagnosticList& diags);

/// `-sdy-pad-for-divisibility` (PARTITION.md 5): values whose sharded dimensions do not divide
/// among their shards are enlarged at the high end (collectives get padded inputs and trimmed
/// outputs, contractions mask the padding). Function inputs and outputs must already divide.
bool padForDivisibility(ir::Module& module, DiagnosticList& diags);

/// Options of `-sdy-convert-global-to-local` (PARTITION.md 7.1).
/// A collective convert-global-to-local makes of its own (not the lowering of an sdy collective): a while loop's
/// carried value gathered whole at the start of its condition or body, or a region's return operand gathered to
/// the layout of its op's result (PARTITION.md 7.8.6 leaves loops to the partitioner).
struct AddedCollective {
    enum class Reason {
        LoopArgument, ///< a region of `owner` (a while) reads its carried value `index` whole
        RegionReturn, ///< operand `index` of the return of a region of `owner` is laid out unlike its result
    };
    ir::Op* op = nullptr;    ///< the stablehlo.all_gather, in the per-device program
    ir::Op* owner = nullptr; ///< the while, case or if
    Reason reason = Reason::LoopArgument;
    unsigned region = 0;                             ///< the region of `owner` it is in (a while: 0 condition, 1 body)
    unsigned index = 0;                              ///< the carried value or return operand
    std::vector<AxisRef> axes;                       ///< gathered over
    std::vector<std::vector<int64_t>> replicaGroups; ///< device ids
    std::string from, to;                            ///< the shardings it converts between
};

struct GlobalToLocalOptions {
    /// When set, receives every AddedCollective (the partition model lists them with the sdy collectives).
    std::vector<AddedCollective>* added = nullptr;
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

/// Options of `-sdy-per-instruction-partitioning` (PARTITION.md 9).
struct PerInstructionOptions {
    /// `filter`: op-name substrings and `selectLow=N` / `selectHigh=N` bounds on the candidates'
    /// sequence numbers, comma-separated; empty selects every candidate.
    std::string filter;
    bool enableHaloExchange = true; ///< `enable-halo-exchange`
    DeviceCountOptions counts;      ///< `replica-count`, `partition-count`
};

/// `-sdy-per-instruction-partitioning` (PARTITION.md 9): each selected op (an op directly in a
/// function body with a sharded operand or result) is outlined, partitioned alone and put back as
/// an sdy.manual_computation over the axes it uses, padded where its shapes do not divide; the
/// rest of the program stays global. For bisecting which op a partitioner gets wrong.
bool perInstructionPartitioning(ir::Module& module, const PerInstructionOptions& options, DiagnosticList& diags);

/// `-sdy-remove-all-gather-reduce-scatter-for-cmv1` (PARTITION.md 10): for XLA's collective
/// matmul, a single-use all_gather feeding a dot is removed, and so is a reduce_scatter that is a
/// dot's only user (the dot takes its out sharding). The result is meant for XLA, not for further
/// partitioning.
void removeAllGatherReduceScatterForCmv1(ir::Module& module);

/// `-sdy-drop-sharding-and-mesh` (PARTITION.md 8): removes `sdy.sharding` from every op, function
/// argument and result, and erases every sdy.mesh. `alsoDrop` (when set) names another discardable
/// attribute removed from every op in the same walk.
void dropShardingAndMesh(ir::Module& module, const char* alsoDrop = nullptr);

} // namespace shardx
