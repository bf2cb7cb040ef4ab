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

/// One step of the pipeline that is not propagation: its name and what it does. `reportsWrites`:
/// it writes shardings only through the notifying setters (ShardingWrites.h) and makes no value,
/// so that a recorder compares only what it reported instead of the whole module.
struct PipelineStage {
    const char* name;
    std::function<bool()> run;
    bool reportsWrites = false;
};

/// Runs `stages` in order, each reported to `observer` as a stage of `kind`; false when one fails.
bool runStages(const std::vector<PipelineStage>& stages, StageKind kind, PropagationObserver* observer)
{
    for (const PipelineStage& stage : stages) {
        StageScope scope(observer, stage.name, kind);
        if (stage.reportsWrites)
            notifyStageWritesReported();
        if (!stage.run())
            return false;
    }
    return true;
}

} // namespace

bool runPropagationPipeline(ir::Module& module, const PropagationPipelineOptions& options, DiagnosticList& diags)
{
    PropagationObserver* obs = options.observer;
    auto always = [](auto&& fn) {
        return [fn]() {
            fn();
            return true;
        };
    };
    // Import.
    std::vector<PipelineStage> import = {
        {"symbol DCE", always([&] { symbolDce(module); }), true},
        {"lift inlined meshes", always([&] { liftInlinedMeshes(module); }), true},
        {"remove size-one axes", always([&] { removeSizeOneAxes(module); }), true},
        {"propagate shardings from functions to calls", always([&] { propagateShardingFromFuncToCall(module); }), true},
        {"split constants and scalar expansions per use", always([&] { constantOrScalarSplitter(module); })},
        {"symbol DCE", always([&] { symbolDce(module); }), true},
        {"clean up manual axes", [&] { return manualAxesCleanup(module, diags); }},
        {"add data-flow edges", always([&] { addDataFlowEdges(module); })},
    };
    auto applyConstraints = always([&] { applyShardingConstraints(module, obs); });
    if (options.dedupFunctionsFully) {
        import.push_back({"apply sharding constraints", applyConstraints});
        import.push_back({"import sharding groups", [&] { return shardingGroupImport(module, diags);
    }
});
        import.push_back({"add function data-flow edges", always([&] { addFuncDataFlowEdges(module);
        } // namespace shardx
)
});
}
else
{
        import.push_back({"flatten the call graph", always([&] { flattenCallGraph(module);
})
});
        import.push_back({"symbol DCE", always([&] { symbolDce(module);
        })
        , true
        });
        import.push_back({"import function calls as named computations", always([&] { importFuncCalls(module);
        })
        });
        import.push_back({"symbol DCE", always([&] { symbolDce(module);
        })
        , true
        });
        import.push_back({"apply sharding constraints", applyConstraints});
        import.push_back({"import sharding groups", [&] { return shardingGroupImport(module, diags);
        }
        });
        }
    import.push_back({"order functions callers first", always([&] { preOrderFuncs(module);
    })
    , true
    });
    if (!runStages(import, StageKind::Import, obs))
        return false;

    // Propagation.
    PropagationPassOptions prop;
    prop.base.keepShardingRules = true;
    prop.base.observer = obs;
    prop.base.cancel = options.cancel;
    if (!runUserPriorityPropagation(module, prop, diags))
        return false;

    // Call graph back, then export.
    std::vector<PipelineStage> exportStages;
    if (options.dedupFunctionsFully) {
        exportStages.push_back(
            {"propagate to function results", always([&] { propagateToFuncResults(module); }), true});
        exportStages.push_back({"sink function data-flow edges", always([&] { sinkFuncDataFlowEdges(module); })});
    } else {
        exportStages.push_back({"export named computations", always([&] { exportNamedComputations(module); })});
        exportStages.push_back(
            {"propagate to function results", always([&] { propagateToFuncResults(module); }), true});
    }
    const bool dedup = options.dedupFunctionsFully;
    const std::vector<PipelineStage> rest = {
        {"unflatten the call graph", always([&] { unflattenCallGraph(module, dedup); })},
        {"symbol DCE", always([&] { symbolDce(module); }), true},
        {"insert reshards at function calls", always([&] { insertFuncCallReshards(module); })},
        {"merge constants and scalar expansions", always([&] { constantOrScalarMerger(module); })},
        {"sink data-flow edges", always([&] { sinkDataFlowEdges(module); })},
        {"remove sharding groups", always([&] { removeShardingGroups(module); }), true},
        {"sharding constraints to reshards", always([&] { shardingConstraintToReshard(module); }), true},
        {"update non-divisible input/output shardings", always([&] { updateNonDivisibleInputOutputShardings(module); }),
         true},
        {"remove sub-axes in input/output shardings", always([&] { removeSubAxesInInputOutputShardings(module); }),
         true},
        {"close shardings", always([&] { closeShardings(module); }), true},
        {"verify unreduced axes", [&] { return verifyUnreducedAxes(module, diags); }, true},
        {"insert explicit reshards",
         [&] { return insertExplicitReshards(module, ExplicitReshardsOptions{/*fullVersion=*/false}, diags); }},
        {"canonicalize collectives", always([&] { canonicalizeCollectives(module); })},
        {"drop sharding rules", always([&] { dropShardingRules(module); }), true},
    };
    exportStages.insert(exportStages.end(), rest.begin(), rest.end());
    if (!runStages(exportStages, StageKind::Export, obs))
        return false;
    return !diags.hasErrors();
    }

    } // namespace shardx
