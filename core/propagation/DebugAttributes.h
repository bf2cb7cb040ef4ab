// Shardy's debugging outputs (SDY.md 5): sharding origins and propagation edges, from a Trace.
#pragma once

#include <functional>

#include "core/ir/Module.h"
#include "core/ir/Pass.h"
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

/// Reads `<prefix>debug-sharding-origins` and `<prefix>debug-propagation-edge-sharding` from
/// `opts` (prefix "" or "sink-"). False after reporting an invalid value.
bool parseDebugOutputOptions(const ir::PassOptions& opts, const std::string& prefix, DebugOutputOptions& out,
                             const ir::Module& module, DiagnosticList& diags);

/// Writes `sdy.sharding_origins` (+ `sdy.sharding_origin_name`) and `sdy.propagation_edges`
/// computed from `trace`, recorded by `recorder` over `module` (which must be unchanged since).
void writeDebugAttributes(ir::Module& module, const TraceRecorder& recorder, const Trace& trace,
                          const DebugOutputOptions& options);

/// Runs `body` (a pass) with a TraceRecorder as observer when `options` asks for debug output,
/// then writes the attributes; otherwise runs `body(nullptr)`. Returns what `body` returned.
bool runWithDebugOutputs(ir::Module& module, const DebugOutputOptions& options,
                         const std::function<bool(PropagationObserver*)>& body);

/// `-sdy-sink-data-flow-edges` with sink options: copies the edge ops' debug attributes onto
/// their data-flow ops (`sdy.block_arg_*` / `sdy.result_*`). Call before the edges are removed.
void sinkDebugAttributes(ir::Module& module, const DebugOutputOptions& options);

} // namespace shardx
