// -sdy-propagation-pipeline (SDY.md 3.7).
#pragma once

#include "core/ir/Module.h"
#include "core/ir/Pass.h"
#include "core/propagation/PropagationObserver.h"
#include "core/support/Diagnostic.h"

namespace shardx {

/// Options of the pipeline.
struct PropagationPipelineOptions {
    bool dedupFunctionsFully = false;
    PropagationObserver* observer = nullptr; ///< sees the user-priority propagation
};

/// Runs the whole pipeline; false after reporting errors.
bool runPropagationPipeline(ir::Module& module, const PropagationPipelineOptions& options, DiagnosticList& diags);

/// The registry entry `sdy-propagation-pipeline` (option `dedup-functions-fully`).
ir::PassInfo propagationPipelinePassInfo();

} // namespace shardx
