// The export pipeline (PARTITION.md 1.1.2).
#include "core/passes/ExportPipeline.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/io/MlirPrinter.h"
#include "core/partition/ExplicitReshards.h"
#include "core/partition/PartitionPasses.h"
#include "core/partition/ReshardToCollectives.h"
#include "core/propagation/DataFlowEdgePasses.h"
#include "core/propagation/PipelineSteps.h"

namespace shardx {

namespace {

/// Writes `<dir>/<NN>.<name>.mlir` (PARTITION.md 1.1.4); nothing without a directory.
class Dumper {
public:
    explicit Dumper(std::string dir) : m_dir(std::move(dir)) {}
    void dump(const ir::Module& module, const std::string& name)
    {
        if (m_dir.empty())
            return;
        char index[8];
        std::snprintf(index, sizeof index, "%02d", m_next++);
        const std::filesystem::path path = std::filesystem::path(m_dir) / (std::string(index) + "." + name + ".mlir");
        std::ofstream out(path);
        if (!out) {
            std::fprintf(stderr, "shardx: cannot write the dump file %s\n", path.string().c_str());
            return;
        }
        out << io::printModule(module);
    }

private:
    std::string m_dir;
    int m_next = 0;
};

} // namespace

bool runExportPipeline(ir::Module& module, const ExportOptions& o, DiagnosticList& diags)
{
    if (o.dumpShardingOrigins || o.dumpPropagationEdges) {
        diags.error(SourcePos{module.fileName, 0, 0},
                    "dump-sharding-origins and dump-propagation-edges are not supported by -sdy-export-pipeline yet; "
                    "use shardx-cli propagate --trace and explain, which record both");
        return false;
    }
    Dumper dumper(o.dumpDirectory);
    constantOrScalarMerger(module);
    sinkDataFlowEdges(module);
    if (!o.avoidExportForPartitioning) {
        removeShardingGroups(module);
        shardingConstraintToReshard(module);
    }
    if (o.updateNonDivisibleInputOutputShardings) {
        updateNonDivisibleInputOutputShardings(module);
        removeSubAxesInInputOutputShardings(module);
    }
    closeShardings(module);
    dumper.dump(module, "after_propagation");
    if (!o.avoidExportForPartitioning) {
        if (!verifyUnreducedAxes(module, diags))
            return false;
        const bool full = o.enableInsertExplicitCollectives || o.enablePerInstructionPartitioning;
        if (!insertExplicitReshards(module, ExplicitReshardsOptions{full}, diags))
            return false;
        if (o.enablePerInstructionPartitioning) {
            dumper.dump(module, "before_per_instruction_partitioning");
            PerInstructionOptions p;
            p.filter = o.perInstructionPartitioningFilter;
            p.counts = {o.replicaCount, o.partitionCount};
            if (!perInstructionPartitioning(module, p, diags))
                return false;
            dumper.dump(module, "after_per_instruction_partitioning");
        } else if (o.enableInsertExplicitCollectives) {
            dumper.dump(module, "after_explicit_reshards");
            canonicalizeReshards(module);
            if (!reshardToCollectives(module, ReshardToCollectivesOptions{}, diags))
                return false;
        }
        canonicalizeCollectives(module);
        if (o.enableInsertExplicitCollectives && o.removeAllGatherReduceScatterForCmv1)
            removeAllGatherReduceScatterForCmv1(module);
        dumper.dump(module, o.enableInsertExplicitCollectives ? "after_partitioner_with_global_shapes"
                                                              : "after_minimal_partitioner_with_global_shapes");
    }
    if (!o.keepShardingRules)
        dropShardingRules(module);
    if (!o.avoidExportForPartitioning && o.inlineMeshes)
        inlineMeshes(module);
    return !diags.hasErrors();
}

} // namespace shardx
