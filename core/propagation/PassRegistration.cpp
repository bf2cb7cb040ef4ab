// Registry entries of the propagation passes and their option parsing.
#include "core/propagation/PropagationPasses.h"

#include "core/propagation/DebugAttributes.h"

namespace shardx {

namespace {

bool boolOption(const ir::PassOptions& opts, const std::string& name, bool& out, const ir::Module& m,
                DiagnosticList& diags)
{
    auto it = opts.find(name);
    if (it == opts.end())
        return true;
    if (!ir::parseBoolOption(it->second, out)) {
        diags.error(SourcePos{m.fileName, 0, 0}, "invalid value '" + it->second + "' for option " + name);
        return false;
    }
    return true;
}

bool parseOptions(const ir::PassOptions& opts, PropagationPassOptions& out, const ir::Module& m, DiagnosticList& diags)
{
    bool ignored = false;
    if (!boolOption(opts, "keep-sharding-rules", out.base.keepShardingRules, m, diags) ||
        !boolOption(opts, "conservative-propagation", out.base.conservative, m, diags) ||
        !boolOption(opts, "run-op-priority-propagation", out.runOpPriorityPropagation, m, diags) ||
        !boolOption(opts, "debug-sharding-origins", ignored, m, diags) ||
        !boolOption(opts, "debug-propagation-edge-sharding", ignored, m, diags))
        return false;
    if (auto it = opts.find("propagation-strategy"); it != opts.end()) {
        if (it->second == "basic")
            out.strategies = {FactorStrategy::Basic};
        else if (it->second == "aggressive")
            out.strategies = {FactorStrategy::Aggressive};
        else if (it->second == "basic-then-aggressive")
            out.strategies = {FactorStrategy::Basic, FactorStrategy::Aggressive};
        else {
            diags.error(SourcePos{m.fileName, 0, 0}, "invalid propagation-strategy '" + it->second + "'");
            return false;
        }
    }
    return true;
}

using RunFn = bool (*)(ir::Module&, const PropagationPassOptions&, DiagnosticList&);

ir::PassInfo makeInfo(const char* name, const char* description, std::vector<std::string> options, RunFn fn)
{
    return ir::PassInfo{name, description, std::move(options),
                        [fn](ir::Module& m, const ir::PassOptions& opts, DiagnosticList& diags) {
                            PropagationPassOptions o;
                            DebugOutputOptions debug;
                            if (!parseOptions(opts, o, m, diags) || !parseDebugOutputOptions(opts, "", debug, m, diags))
                                return false;
                            return runWithDebugOutputs(m, debug, [&](PropagationObserver* obs) {
                                if (obs)
                                    o.base.observer = obs;
                                return fn(m, o, diags);
                            });
                        }};
}

} // namespace

std::vector<ir::PassInfo> propagationPassInfos()
{
    const std::vector<std::string> base = {"keep-sharding-rules", "conservative-propagation", "debug-sharding-origins",
                                           "debug-propagation-edge-sharding", "module-dump-directory"};
    std::vector<std::string> withStrategy = base;
    withStrategy.push_back("propagation-strategy");
    std::vector<std::string> withOpPriority = withStrategy;
    withOpPriority.push_back("run-op-priority-propagation");
    std::vector<ir::PassInfo> list;
    list.push_back(makeInfo("sdy-basic-propagate", "basic sharding propagation (no conflict resolution)", base,
                            &runBasicPropagation));
    list.push_back(makeInfo("sdy-aggressive-propagate", "aggressive sharding propagation (resolves conflicts)",
                            withStrategy, &runAggressivePropagation));
    list.push_back(makeInfo("sdy-op-priority-propagate", "op-priority sharding propagation", withOpPriority,
                            &runOpPriorityPropagation));
    list.push_back(makeInfo("sdy-user-priority-propagate", "user-priority sharding propagation", withOpPriority,
                            &runUserPriorityPropagation));
    return list;
}

} // namespace shardx
