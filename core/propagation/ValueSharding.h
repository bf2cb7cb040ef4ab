// Reading and writing the sharding of a value for propagation (SDY.md 4.2, 4.9).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/ir/Module.h"
#include "core/sharding/TensorSharding.h"

namespace shardx {

/// True for the ops with data-flow edges: while, case, optimization_barrier,
/// named_computation, manual_computation.
bool isDataFlowOp(const ir::Op& op);

/// The edge owners of a data-flow op: block-argument owners first, then result owners.
std::vector<ir::Value*> blockArgOwners(const ir::Op& op);
std::vector<ir::Value*> resultOwners(const ir::Op& op);

/// The owner of the data-flow edge `v` is a target of (itself for owners), or nullptr.
ir::Value* edgeOwnerOf(const ir::Value* v);
/// The `sdy.data_flow_edge` op attached to `owner` (its user), or nullptr.
ir::Op* dataFlowEdgeOpOf(const ir::Value* owner);
/// The sources of the edge owned by `owner` (operand / terminator operands).
std::vector<ir::Value*> edgeSources(const ir::Value* owner);
/// The targets of the edge other than its owner (while cond/body arguments).
std::vector<ir::Value*> edgeNonOwnerTargets(const ir::Value* owner);
/// The data-flow edge ops fed by operand `index` of `user` (a data-flow op or the
/// terminator of one of its bodies); empty when `user` is neither.
std::vector<ir::Op*> edgeOpsOfSourceUse(const ir::Op& user, unsigned index);
/// True if `user` is a data-flow op or a terminator of one's body.
bool isDataFlowSourceUser(const ir::Op& user);

/// Manual axes of an `sdy.manual_computation` (empty for other ops).
std::vector<std::string> manualAxesOf(const ir::Op& op);
/// Drops the leading manual axes of each dimension and manual axes from replicated/unreduced.
TensorSharding eraseManualAxes(const TensorSharding& s, const std::vector<std::string>& manual);
/// The manual prefix of each dimension of `outer`, then `s`'s axes (with `s`'s open flag and
/// priority); replicated/unreduced from `outer`; mesh from `s`.
TensorSharding addManualAxes(const TensorSharding& outer, const TensorSharding& s,
                             const std::vector<std::string>& manual);

/// The sharding of `v` (SDY.md 4.2), following data-flow edge ops; nullopt when none.
std::optional<TensorSharding> getSharding(const ir::Value* v);
/// The same as getSharding() without a copy where the IR holds it as is: a pointer into the IR
/// (valid until it changes), or into `storage` when it had to be computed; nullptr when none.
const TensorSharding* getShardingRef(const ir::Value* v, std::optional<TensorSharding>& storage);
/// True if a sharding can be stored for `v`.
bool canHoldSharding(const ir::Value* v);
/// `S(v) := s` (SDY.md 4.2); ignored where no sharding can be stored.
void setSharding(ir::Value* v, const TensorSharding& s);

/// The sharding of `v` itself, ignoring edge redirection (func argument attribute, own
/// storage of an owner, op result `sdy.sharding`). Manual block arguments give local shardings.
std::optional<TensorSharding> getOwnSharding(const ir::Value* v);
void setOwnSharding(ir::Value* v, const TensorSharding& s);

/// Makes every use of `from` except those by `except` use `to`, visiting the uses in MLIR's
/// use-list order (newest first) so that the resulting use order matches MLIR's.
void replaceUses(ir::Value* from, ir::Value* to, const ir::Op* except = nullptr);

/// Rank used for fully open shardings of `v` (0 for non-tensors).
int valueRank(const ir::Value* v);

} // namespace shardx
