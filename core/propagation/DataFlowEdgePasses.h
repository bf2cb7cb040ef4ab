// Data-flow edge passes (SDY.md 3.5) and sdy-apply-sharding-constraints (3.6).
#pragma once

#include <vector>

#include "core/ir/Module.h"

namespace shardx {

class PropagationObserver;

/// `-sdy-add-data-flow-edges`: an `sdy.data_flow_edge` on every static tensor edge owner.
bool addDataFlowEdges(ir::Module& module);
/// `-sdy-sink-data-flow-edges`: edge shardings back onto the data-flow ops; edges removed.
bool sinkDataFlowEdges(ir::Module& module);
/// `-sdy-apply-sharding-constraints`. Each copied sharding is reported to `observer` as a step
/// of kind ApplyConstraint (operand-0 = the constrained value, result-0 = the constraint).
bool applyShardingConstraints(ir::Module& module, PropagationObserver* observer = nullptr);

} // namespace shardx
