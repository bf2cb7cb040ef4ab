// -sdy-propagation-pipeline: import, call graph, user-priority propagation, export (SDY.md 3.7).
#include "core/passes/PropagationPipeline.h"

#include <functional>
#include <vector>

#include "core/partition/ExplicitReshards.h"
#include "core/propagation/CallGraphPasses.h"
#include "core/propagation/DataFlowEdgePasses.h"
#include "core/propagation/PipelineSteps.h"
#include "core/propagation/PropagationPasses.h"
#include "core/propagation/ShardingWrites.h"

namespace shardx {

namespace {

/// One step of the pipeline that is not propagation: its name and what it does (false when it
/// failed). Every stage reports what it writes, inserts and erases (ShardingWrites.h), so that a
/// recorder compares only that instead of the whole module.
struct PipelineStage {
    const char* name;
    std::function<bool()> run;
};

/// A stage that cannot fail.
PipelineStage infallibleStage(const char* name, std::function<void()> fn)
{
    return {name, [fn = std::move(fn)] {
                fn();
                return true;
            }};
}

/// Runs `stages` in order, each reported to `observer` as a stage of `kind`; false when one fails.
bool runStages(const std::vector<PipelineStage>& stages, StageKind kind, PropagationObserver* observer)
{
    for (const PipelineStage& stage : stages) {
        StageScope scope(observer, stage.name, kind);
        notifyStageWritesReported();
        if (!stage.run())
            return false;
    }
    return true;
}

/// The import stages (SDY.md 3.7.1-3.7.8), up to the user-priority propagation.
std::vector<PipelineStage> importStages(ir::Module& module, const PropagationPipelineOptions& options,
                                        DiagnosticList& diags)
{
    PropagationObserver* obs = options.observer;
    const PipelineStage dce = infallibleStage("symbol DCE", [&module] { symbolDce(module); });
    const PipelineStage applyConstraints =
        infallibleStage("apply sharding constraints", [&module, obs] { applyShardingConstraints(module, obs); });
    const PipelineStage importGroups = {"import sharding groups",
                                        [&module, &diags] { return shardingGroupImport(module, diags); }};

    std::vector<PipelineStage> stages = {
        dce,
        infallibleStage("lift inlined meshes", [&module] { liftInlinedMeshes(module); }),
        infallibleStage("remove size-one axes", [&module] { removeSizeOneAxes(module); }),
        infallibleStage("propagate shardings from functions to calls",
                        [&module] { propagateShardingFromFuncToCall(module); }),
        infallibleStage("split constants and scalar expansions per use",
                        [&module] { constantOrScalarSplitter(module); }),
        dce,
        {"clean up manual axes", [&module, &diags] { return manualAxesCleanup(module, diags); }},
        infallibleStage("add data-flow edges", [&module] { addDataFlowEdges(module); }),
    };
    if (options.dedupFunctionsFully) {
        // The call graph stays: function data-flow edges stand for the calls.
        stages.push_back(applyConstraints);
        stages.push_back(importGroups);
        stages.push_back(infallibleStage("add function data-flow edges", [&module] { addFuncDataFlowEdges(module); }));
    } else {
        // The call graph is flattened: every call becomes a named computation.
        stages.push_back(infallibleStage("flatten the call graph", [&module] { flattenCallGraph(module); }));
        stages.push_back(dce);
        stages.push_back(
            infallibleStage("import function calls as named computations", [&module] { importFuncCalls(module); }));
        stages.push_back(dce);
        stages.push_back(applyConstraints);
        stages.push_back(importGroups);
    }
    stages.push_back(infallibleStage("order functions callers first", [&module] { preOrderFuncs(module); }));
    return stages;
}

/// The export stages (SDY.md 3.7.9-3.7.11), after the user-priority propagation.
std::vector<PipelineStage> exportStages(ir::Module& module, const PropagationPipelineOptions& options,
                                        DiagnosticList& diags)
{
    const bool dedup = options.dedupFunctionsFully;
    const PipelineStage toFuncResults =
        infallibleStage("propagate to function results", [&module] { propagateToFuncResults(module); });

    std::vector<PipelineStage> stages;
    if (dedup) {
        stages.push_back(toFuncResults);
        stages.push_back(
            infallibleStage("sink function data-flow edges", [&module] { sinkFuncDataFlowEdges(module); }));
    } else {
        stages.push_back(infallibleStage("export named computations", [&module] { exportNamedComputations(module); }));
        stages.push_back(toFuncResults);
    }
    const std::vector<PipelineStage> rest = {
        infallibleStage("unflatten the call graph", [&module, dedup] { unflattenCallGraph(module, dedup); }),
        infallibleStage("symbol DCE", [&module] { symbolDce(module); }),
        infallibleStage("insert reshards at function calls", [&module] { insertFuncCallReshards(module); }),
        infallibleStage("merge constants and scalar expansions", [&module] { constantOrScalarMerger(module); }),
        infallibleStage("sink data-flow edges", [&module] { sinkDataFlowEdges(module); }),
        infallibleStage("remove sharding groups", [&module] { removeShardingGroups(module); }),
        infallibleStage("sharding constraints to reshards", [&module] { shardingConstraintToReshard(module); }),
        infallibleStage("update non-divisible input/output shardings",
                        [&module] { updateNonDivisibleInputOutputShardings(module); }),
        infallibleStage("remove sub-axes in input/output shardings",
                        [&module] { removeSubAxesInInputOutputShardings(module); }),
        infallibleStage("close shardings", [&module] { closeShardings(module); }),
        {"verify unreduced axes", [&module, &diags] { return verifyUnreducedAxes(module, diags); }},
        {"insert explicit reshards",
         [&module, &diags] {
             return insertExplicitReshards(module, ExplicitReshardsOptions{/*fullVersion=*/false}, diags);
         }},
        infallibleStage("canonicalize collectives", [&module] { canonicalizeCollectives(module); }),
        infallibleStage("drop sharding rules", [&module] { dropShardingRules(module); }),
    };
    stages.insert(stages.end(), rest.begin(), rest.end());
    return stages;
}

} // namespace

bool runPropagationPipeline(ir::Module& module, const PropagationPipelineOptions& options, DiagnosticList& diags)
{
    PropagationObserver* obs = options.observer;
    if (!runStages(importStages(module, options, diags), StageKind::Import, obs))
        return false;

    PropagationPassOptions prop;
    prop.base.keepShardingRules = true;
    prop.base.observer = obs;
    prop.base.cancel = options.cancel;
    if (!runUserPriorityPropagation(module, prop, diags))
        return false;

    // The call graph back, then export.
    if (!runStages(exportStages(module, options, diags), StageKind::Export, obs))
        return false;
    return !diags.hasErrors();
}

} // namespace shardx
