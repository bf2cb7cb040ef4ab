// SdyOps: typed accessors of the sdy ops' attributes other than shardings (SDY.md 2): meshes,
// barrier directions, collective axes and reduction kinds, manual axes, groups, computation names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/Operation.h"

namespace shardx::ir {

// Attribute names, for code that needs the name itself (presence checks, printers' elided lists).
inline constexpr char kMeshAttr[] = "mesh";                          ///< sdy.mesh
inline constexpr char kAllowedDirectionAttr[] = "allowed_direction"; ///< sdy.propagation_barrier
inline constexpr char kReductionKindAttr[] = "reduction_kind";       ///< sdy.all_reduce, sdy.reduce_scatter
inline constexpr char kManualAxesAttr[] = "manual_axes";             ///< sdy.manual_computation
inline constexpr char kGroupIdAttr[] = "group_id";                   ///< sdy.sharding_group
inline constexpr char kComputationNameAttr[] = "name";               ///< sdy.named_computation
// Discardable sdy attributes of any op (SDY.md 1.6, 1.9).
inline constexpr char kShardingRuleAttr[] = "sdy.sharding_rule";         ///< an OpShardingRuleAttr
inline constexpr char kPropagationEdgesAttr[] = "sdy.propagation_edges"; ///< a PropagationEdgesAttr
inline constexpr char kResultPropagationEdgesAttr[] = "sdy.result_propagation_edges";
inline constexpr char kBlockArgPropagationEdgesAttr[] = "sdy.block_arg_propagation_edges";

// ---- sdy.mesh ------------------------------------------------------------------------------

/// The mesh of an sdy.mesh op (`mesh`), or nullptr when absent or not a MeshAttr.
const Mesh* meshOpMesh(const Op& meshOp);
/// Sets the `mesh` of an sdy.mesh op.
void setMeshOpMesh(Op& meshOp, const Mesh& mesh);

// ---- sdy.propagation_barrier ---------------------------------------------------------------

/// Shardy's PropagationDirection: the `allowed_direction` of a barrier, and the direction
/// propagation may take along one factor.
enum class PropagationDirection { None = 0, Forward = 1, Backward = 2, Both = 3 };
/// "NONE", "FORWARD", "BACKWARD", "BOTH".
const char* directionName(PropagationDirection d);
/// The direction spelled `keyword` ("NONE", "FORWARD", "BACKWARD", "BOTH"), or nullopt.
std::optional<PropagationDirection> parseDirection(std::string_view keyword);
/// `allowed_direction` of an sdy.propagation_barrier: `#sdy<propagation_direction K>` (an
/// OpaqueAttr whose last word is K), a StringAttr K, or MLIR's integer value 0-3. nullopt when
/// absent or not one of those.
std::optional<PropagationDirection> barrierDirection(const Op& barrier);
/// Sets `allowed_direction` to `#sdy<propagation_direction K>`.
void setBarrierDirection(Op& barrier, PropagationDirection d);

// ---- collectives (SDY.md 2.12-2.17) --------------------------------------------------------

/// `reduction_kind` of sdy.all_reduce / sdy.reduce_scatter: `#sdy<reduction_kind K>` (an
/// OpaqueAttr whose last word is sum, max or min), a StringAttr K, or MLIR's integer value 0-2.
/// nullopt when absent (which means sum) or not one of those.
std::optional<ReductionKind> reductionKindOf(const Op& collective);
/// Sets `reduction_kind` to `#sdy<reduction_kind K>`.
void setReductionKind(Op& collective, ReductionKind kind);

/// Name of the axes attribute of collective `opName`: `gathering_axes`, `slicing_axes`,
/// `reduce_scatter_axes`, `axes` (sharded_to_unreduced, replicated_to_unreduced),
/// `reduction_axes`, `params` (all_to_all); "" for sdy.collective_permute (no axes); nullptr
/// for any other op.
const char* collectiveAxesAttrName(std::string_view opName);
/// True when the axes of collective `opName` are per dimension (all_gather, all_slice,
/// reduce_scatter, sharded_to_unreduced).
bool hasPerDimAxes(std::string_view opName);
/// The per-dimension axes of sdy.all_gather / all_slice / reduce_scatter / sharded_to_unreduced;
/// nullptr for other ops or when absent or not a ListOfAxisRefListsAttr.
const std::vector<std::vector<AxisRef>>* perDimCollectiveAxes(const Op& collective);
/// Sets the per-dimension axes of one of those ops (no-op for other ops).
void setPerDimCollectiveAxes(Op& collective, std::vector<std::vector<AxisRef>> axes);
/// The axis list of sdy.all_reduce (`reduction_axes`) / replicated_to_unreduced (`axes`);
/// nullptr for other ops or when absent or not an AxisRefListAttr.
const std::vector<AxisRef>* collectiveAxisList(const Op& collective);
/// Sets the axis list of one of those ops (no-op for other ops).
void setCollectiveAxisList(Op& collective, std::vector<AxisRef> axes);
/// `params` of sdy.all_to_all; nullptr when absent or not an AllToAllParamListAttr.
const std::vector<AllToAllParam>* allToAllParams(const Op& allToAll);
/// Sets `params` of sdy.all_to_all.
void setAllToAllParams(Op& allToAll, std::vector<AllToAllParam> params);

// ---- sdy.manual_computation, sdy.named_computation, sdy.sharding_group -----------------------

/// `manual_axes` of sdy.manual_computation; nullptr when absent or not a ManualAxesAttr.
const std::vector<std::string>* manualAxes(const Op& manualComputation);
/// Sets `manual_axes`.
void setManualAxes(Op& manualComputation, std::vector<std::string> axes);

/// The `name` of sdy.named_computation, or nullopt when absent or not a StringAttr.
std::optional<std::string> computationName(const Op& namedComputation);
/// Sets the `name` of sdy.named_computation.
void setComputationName(Op& namedComputation, const std::string& name);

/// `group_id` of sdy.sharding_group, or nullopt when absent or not an IntegerAttr.
std::optional<int64_t> shardingGroupId(const Op& group);
/// Sets `group_id` (an i64 IntegerAttr).
void setShardingGroupId(Op& group, int64_t id);

} // namespace shardx::ir
