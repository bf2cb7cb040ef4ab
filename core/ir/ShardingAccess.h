// Reading the sharding of a value, wherever Shardy stores it (SDY.md 4.2).
#pragma once

#include "core/ir/Module.h"

namespace shardx::ir {

/// The sharding of `v` as SDY.md 4.2 reads it: a func argument's `sdy.sharding`, the
/// in_shardings of a manual/named computation for its block arguments, the own sharding of
/// sdy.sharding_constraint / reshard / data_flow_edge, the out_sharding of a collective, the
/// out_shardings of a manual/named computation, else the defining op's `sdy.sharding` entry.
/// nullptr when the value has none.
const TensorSharding* shardingOfValue(const Value* v);

/// The TensorSharding held by attribute `name` of `op` (a ShardingAttr), or nullptr.
const TensorSharding* shardingAttrOf(const Op& op, const std::string& name);
/// The ShardingPerValue held by attribute `name` of `op`, or nullptr.
const ShardingPerValue* shardingsAttrOf(const Op& op, const std::string& name);

/// True for the eight sdy collective ops.
bool isCollectiveOp(const std::string& opName);

} // namespace shardx::ir
