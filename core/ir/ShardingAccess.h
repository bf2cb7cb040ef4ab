// Reading and writing the sharding attributes of ops, func arguments and results (SDY.md 4.2).
#pragma once

#include "core/ir/Module.h"

namespace shardx::ir {

// Attribute names, for code that needs the name itself (presence checks, printers' elided lists).
inline constexpr char kShardingAttr[] = "sharding";          ///< sharding_constraint, reshard, data_flow_edge
inline constexpr char kOutShardingAttr[] = "out_sharding";   ///< the sdy collectives
inline constexpr char kInShardingsAttr[] = "in_shardings";   ///< manual_computation, named_computation
inline constexpr char kOutShardingsAttr[] = "out_shardings"; ///< manual_computation, named_computation
inline constexpr char kSdyShardingAttr[] = "sdy.sharding";   ///< op results; func arguments and results

/// The attribute holding `s` (`#sdy.sharding<...>`) / `shardings` (`#sdy.sharding_per_value<...>`),
/// shared with every other live one of equal content: a propagated module writes the same few shardings
/// on thousands of ops, and each would otherwise hold its own copy. Thread-safe; every setter below
/// goes through these.
AttrPtr sharedShardingAttr(const TensorSharding& s);
AttrPtr sharedShardingsAttr(ShardingPerValue shardings);

/// The sharding of `v` as SDY.md 4.2 reads it: a func argument's `sdy.sharding`, the
/// in_shardings of a manual/named computation for its block arguments, the own sharding of
/// sdy.sharding_constraint / reshard / data_flow_edge, the out_sharding of a collective, the
/// out_shardings of a manual/named computation, else the defining op's `sdy.sharding` entry.
/// nullptr when the value has none.
const TensorSharding* shardingOfValue(const Value* v);

/// The mesh `s` refers to (inline or an sdy.mesh of `module`), or nullptr.
const Mesh* meshOf(const Module& module, const TensorSharding& s);

/// True for the eight sdy collective ops.
bool isCollectiveOp(const std::string& opName);

// Each getter returns nullptr when the attribute is absent or of another kind. Each setter
// replaces the attribute where it is (property or discardable), else adds it as a property
// (`sdy.sharding`: discardable).

/// `sharding` of sdy.sharding_constraint, sdy.reshard and sdy.data_flow_edge.
const TensorSharding* opSharding(const Op& op);
void setOpSharding(Op& op, const TensorSharding& s);
/// `out_sharding` of an sdy collective.
const TensorSharding* outSharding(const Op& collective);
void setOutSharding(Op& collective, const TensorSharding& s);
/// `in_shardings` / `out_shardings` of sdy.manual_computation and sdy.named_computation.
const ShardingPerValue* inShardings(const Op& op);
const ShardingPerValue* outShardings(const Op& op);
void setInShardings(Op& op, ShardingPerValue shardings);
void setOutShardings(Op& op, ShardingPerValue shardings);
/// `sdy.sharding` of any other op: one sharding per result.
const ShardingPerValue* resultShardings(const Op& op);
void setResultShardings(Op& op, ShardingPerValue shardings);
void removeResultShardings(Op& op);

/// `sdy.sharding` of argument (result) `i` of a func.func, or nullptr.
const TensorSharding* funcArgSharding(const Op& func, unsigned i);
const TensorSharding* funcResultSharding(const Op& func, unsigned i);
void setFuncArgSharding(Op& func, unsigned i, const TensorSharding& s);
void setFuncResultSharding(Op& func, unsigned i, const TensorSharding& s);
void removeFuncResultSharding(Op& func, unsigned i);

} // namespace shardx::ir
