// Shardy's debugging outputs (SDY.md 5): sharding origins and propagation edges, derived from a Trace.
#pragma once

#include <functional>

#include "core/ir/Module.h"
#include "core/propagation/PropagationObserver.h"
#include "core/support/Diagnostic.h"
#include "core/trace/Trace.h"
#include "core/trace/TraceRecorder.h"

namespace shardx {

/// Which debugging outputs a pass writes.
struct DebugOutputOptions {
    bool origins = false; ///< `debug-sharding-origins` / `sink-debug-sharding-origins`
    bool edges = false;   ///< `debug-propagation-edge-sharding` / `sink-debug-propagation-edge-sharding`
    bool any() const { return origins || edges; }
};

/// Writes `sdy.sharding_origins` (+ `sdy.sharding_origin_name`) and `sdy.propagation_edges`
/// computed from `trace`, recorded by `recorder` over `module` (which must be unchanged since).
void writeDebugAttributes(ir::Module& module, const TraceRecorder& recorder, const Trace& trace,
                          const DebugOutputOptions& options);

/// Runs `body` (a pass) with a TraceRecorder observing it when `options` asks for debug output,
/// then writes the attributes; `outer` (may be null) observes the pass as well. Without debug
/// output `body` gets `outer`. Returns what `body` returned.
bool runWithDebugOutputs(ir::Module& module, const DebugOutputOptions& options, PropagationObserver* outer,
                         const std::function<bool(PropagationObserver*)>& body);

/// `-sdy-sink-data-flow-edges` with sink options: copies the edge ops' debug attributes onto
/// their data-flow ops (`sdy.block_arg_*` / `sdy.result_*`). Call before the edges are removed.
void sinkDebugAttributes(ir::Module& module, const DebugOutputOptions& options);

} // namespace shardx
