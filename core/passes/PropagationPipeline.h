// -sdy-propagation-pipeline (SDY.md 3.7): the propagation passes and partition's explicit
// reshards composed, so it sits with the pass registry above both.
#pragma once

#include <atomic>

#include "core/ir/Module.h"
#include "core/propagation/PropagationObserver.h"
#include "core/support/Diagnostic.h"

namespace shardx {

/// Options of the pipeline.
struct PropagationPipelineOptions {
    bool dedupFunctionsFully = false;
    PropagationObserver* observer = nullptr;   ///< sees the user-priority propagation
    const std::atomic<bool>* cancel = nullptr; ///< stops the propagation early (an error)
};

/// Runs the whole pipeline; false after reporting errors.
bool runPropagationPipeline(ir::Module& module, const PropagationPipelineOptions& options, DiagnosticList& diags);

} // namespace shardx
