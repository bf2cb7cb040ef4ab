// The pass registry: every pass the tools know. It sits above the layers that define passes
// (ir, rules, propagation, partition) and implements the registry functions of core/ir/Pass.h.
#include "core/ir/Canonicalizer.h"
#include "core/ir/Pass.h"
#include "core/partition/ExplicitReshards.h"
#include "core/propagation/DataFlowEdgePasses.h"
#include "core/propagation/PropagationPasses.h"
#include "core/propagation/PropagationPipeline.h"
#include "core/rules/PopulateRulesPass.h"

namespace shardx::ir {

const std::vector<PassInfo>& registeredPasses()
{
    static const std::vector<PassInfo> passes = [] {
        std::vector<PassInfo> list;
        list.push_back(PassInfo{"canonicalize",
                                "fold and simplify reshards and collectives, inline trivial manual "
                                "computations, remove dead pure ops, unique constants",
                                {},
                                [](Module& m, const PassOptions&, DiagnosticList&) { return canonicalize(m); }});
        list.push_back(populateOpShardingRulesPassInfo());
        for (PassInfo& p : propagationPassInfos())
            list.push_back(std::move(p));
        for (PassInfo& p : dataFlowEdgePassInfos())
            list.push_back(std::move(p));
        list.push_back(propagationPipelinePassInfo());
        list.push_back(insertExplicitReshardsPassInfo());
        return list;
    }();
    return passes;
}

const PassInfo* findPass(const std::string& name)
{
    for (const PassInfo& p : registeredPasses())
        if (p.name == name)
            return &p;
    return nullptr;
}

} // namespace shardx::ir
