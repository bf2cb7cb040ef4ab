// The export pipeline `-sdy-export-pipeline` (PARTITION.md 1.1): from a propagated module to
// closed shardings and, with explicit collectives, sdy collectives on global shapes.
#pragma once

#include <cstdint>
#include <string>

#include "core/ir/Module.h"
#include "core/support/Diagnostic.h"

namespace shardx {

/// The options of PARTITION.md 1.1.1.
struct ExportOptions {
    int64_t replicaCount = 1;
    int64_t partitionCount = 1;
    std::string dumpDirectory;
    bool avoidExportForPartitioning = false;
    bool enableInsertExplicitCollectives = false;
    bool removeAllGatherReduceScatterForCmv1 = false;
    bool enablePerInstructionPartitioning = false;
    std::string perInstructionPartitioningFilter;
    bool keepShardingRules = false;
    bool dumpShardingOrigins = false;
    bool dumpPropagationEdges = false;
    bool avoidReshardsOnCalls = false;
    bool updateNonDivisibleInputOutputShardings = true;
    bool inlineMeshes = true;
};

/// Runs the pipeline; false after reporting errors (the debug sinks, dump-sharding-origins and
/// dump-propagation-edges, are not written yet and are reported as such).
bool runExportPipeline(ir::Module& module, const ExportOptions& options, DiagnosticList& diags);

} // namespace shardx
