// Call-graph steps of the propagation pipeline (SDY.md 3.7.4, 3.7.8).
#pragma once

#include "core/ir/Module.h"

namespace shardx {

/// `sdy-flatten-call-graph`: every call after the first to a function gets its own clone.
void flattenCallGraph(ir::Module& module);
/// `sdy-import-func-calls`: `func.call` -> `sdy.named_computation` (callees erased), with edges.
void importFuncCalls(ir::Module& module);
/// `sdy-export-named-computations`: named computations -> private functions and calls.
void exportNamedComputations(ir::Module& module);
/// `sdy-propagate-to-func-results`: non-main result shardings from the returned values.
void propagateToFuncResults(ir::Module& module);
/// `sdy-unflatten-call-graph`: calls to equivalent clones share one function.
void unflattenCallGraph(ir::Module& module, bool dedupFunctionsFully);
/// `sdy-insert-func-call-reshards`.
void insertFuncCallReshards(ir::Module& module);
/// `sdy-pre-order-funcs`: functions in call-graph pre-order (callers before callees).
void preOrderFuncs(ir::Module& module);
/// `sdy-add-func-data-flow-edges` / `sdy-sink-func-data-flow-edges` (dedup mode).
void addFuncDataFlowEdges(ir::Module& module);
void sinkFuncDataFlowEdges(ir::Module& module);

} // namespace shardx
