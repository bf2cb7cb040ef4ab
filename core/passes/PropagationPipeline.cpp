// -sdy-propagation-pipeline: import, call graph, user-priority propagation, export (SDY.md 3.7).
#include "core/passes/PropagationPipeline.h"

#include "core/partition/ExplicitReshards.h"
#include "core/propagation/CallGraphPasses.h"
#include "core/propagation/DataFlowEdgePasses.h"
#include "core/propagation/PipelineSteps.h"
#include "core/propagation/PropagationPasses.h"

namespace shardx {

bool runPropagationPipeline(ir::Module& module, const PropagationPipelineOptions& options, DiagnosticList& diags)
{
    // Import.
    symbolDce(module);
    liftInlinedMeshes(module);
    removeSizeOneAxes(module);
    propagateShardingFromFuncToCall(module);
    constantOrScalarSplitter(module);
    symbolDce(module);
    if (!manualAxesCleanup(module, diags))
        return false;
    addDataFlowEdges(module);
    if (options.dedupFunctionsFully) {
        applyShardingConstraints(module);
        if (!shardingGroupImport(module, diags))
            return false;
        addFuncDataFlowEdges(module);
    } else {
        flattenCallGraph(module);
        symbolDce(module);
        importFuncCalls(module);
        symbolDce(module);
        applyShardingConstraints(module);
        if (!shardingGroupImport(module, diags))
            return false;
    }
    preOrderFuncs(module);

    // Propagation.
    PropagationPassOptions prop;
    prop.base.keepShardingRules = true;
    prop.base.observer = options.observer;
    prop.base.cancel = options.cancel;
    if (!runUserPriorityPropagation(module, prop, diags))
        return false;

    // Call graph back.
    if (options.dedupFunctionsFully) {
        propagateToFuncResults(module);
        sinkFuncDataFlowEdges(module);
    } else {
        exportNamedComputations(module);
        propagateToFuncResults(module);
    }
    unflattenCallGraph(module, options.dedupFunctionsFully);
    symbolDce(module);
    insertFuncCallReshards(module);

    // Export.
    constantOrScalarMerger(module);
    sinkDataFlowEdges(module);
    removeShardingGroups(module);
    shardingConstraintToReshard(module);
    updateNonDivisibleInputOutputShardings(module);
    removeSubAxesInInputOutputShardings(module);
    closeShardings(module);
    if (!verifyUnreducedAxes(module, diags))
        return false;
    if (!insertExplicitReshards(module, ExplicitReshardsOptions{/*fullVersion=*/false}, diags))
        return false;
    canonicalizeCollectives(module);
    dropShardingRules(module);
    return !diags.hasErrors();
}

} // namespace shardx
