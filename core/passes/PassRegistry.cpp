// The pass registry: every pass the tools know, with its options. It sits above every layer
// that contributes passes (ir, rules, propagation, trace, partition).
#include "core/passes/PassRegistry.h"

#include <optional>
#include <sstream>

#include "core/ir/Canonicalizer.h"
#include "core/partition/ExplicitReshards.h"
#include "core/partition/PartitionPasses.h"
#include "core/partition/ReshardToCollectives.h"
#include "core/passes/ExportPipeline.h"
#include "core/passes/PropagationPipeline.h"
#include "core/propagation/DataFlowEdgePasses.h"
#include "core/propagation/PipelineSteps.h"
#include "core/propagation/PropagationPasses.h"
#include "core/rules/CustomRules.h"
#include "core/rules/PopulateRulesPass.h"
#include "core/trace/DebugAttributes.h"

namespace shardx {

namespace {

/// `<prefix>debug-sharding-origins` and `<prefix>debug-propagation-edge-sharding`.
bool readDebugOutputOptions(PassOptionReader& reader, const std::string& prefix, DebugOutputOptions& out)
{
    return reader.flag(prefix + "debug-sharding-origins", out.origins)
        .flag(prefix + "debug-propagation-edge-sharding", out.edges)
        .ok();
}

/// The debug output options of a pass that takes no others: null (with the diagnostics
/// reported) when an option is malformed.
std::optional<DebugOutputOptions> debugOutputOptionsOf(const PassOptions& opts, ir::Module& m, PassContext& ctx,
                                                       const std::string& prefix)
{
    PassOptionReader reader(opts, m, ctx.diags);
    DebugOutputOptions debug;
    if (!readDebugOutputOptions(reader, prefix, debug))
        return std::nullopt;
    return debug;
}

using PropagationFn = bool (*)(ir::Module&, const PropagationPassOptions&, DiagnosticList&);

/// One of the four propagation passes: its options, debug outputs, observer and cancellation.
PassInfo propagationPass(const char* name, const char* description, std::vector<std::string> options, PropagationFn fn)
{
    return PassInfo{name, description, std::move(options),
                    [fn](ir::Module& m, const PassOptions& opts, PassContext& ctx) {
                        PropagationPassOptions o;
                        DebugOutputOptions debug;
                        PassOptionReader reader(opts, m, ctx.diags);
                        reader.flag("keep-sharding-rules", o.base.keepShardingRules)
                            .flag("conservative-propagation", o.base.conservative)
                            .flag("run-op-priority-propagation", o.runOpPriorityPropagation)
                            .choice<std::vector<FactorStrategy>>(
                                "propagation-strategy",
                                {{"basic", {FactorStrategy::Basic}},
                                 {"aggressive", {FactorStrategy::Aggressive}},
                                 {"basic-then-aggressive", {FactorStrategy::Basic, FactorStrategy::Aggressive}}},
                                o.strategies);
                        if (!readDebugOutputOptions(reader, "", debug))
                            return false;
                        o.base.cancel = ctx.cancel;
                        return runWithDebugOutputs(m, debug, ctx.observer, [&](PropagationObserver* obs) {
                            o.base.observer = obs;
                            return fn(m, o, ctx.diags);
                        });
                    },
                    /*reportsSteps=*/true};
}

std::vector<PassInfo> buildRegistry()
{
    std::vector<PassInfo> list;
    list.push_back(PassInfo{"canonicalize",
                            "fold and simplify reshards and collectives, inline trivial manual computations, remove "
                            "dead pure ops, unique constants",
                            {},
                            [](ir::Module& m, const PassOptions&, PassContext&) { return ir::canonicalize(m); }});
    list.push_back(PassInfo{"sdy-populate-op-sharding-rules",
                            "attach the sharding rule of every op that has one as `sdy.sharding_rule`",
                            {"conservative-propagation", "custom-rules"},
                            [](ir::Module& m, const PassOptions& opts, PassContext& ctx) {
                                RuleOptions options;
                                std::string rulesFile;
                                if (!PassOptionReader(opts, m, ctx.diags)
                                         .flag("conservative-propagation", options.conservativePropagation)
                                         .text("custom-rules", rulesFile)
                                         .ok())
                                    return false;
                                std::optional<CustomRuleSet> custom;
                                if (!rulesFile.empty()) {
                                    auto loaded = CustomRuleSet::loadFile(rulesFile);
                                    if (!loaded) {
                                        ctx.diags.error(loaded.error().pos, loaded.error().message);
                                        return false;
                                    }
                                    custom = std::move(*loaded);
                                    options.customRules = &*custom;
                                }
                                return populateOpShardingRules(m, options, ctx.diags);
                            }});

    const std::vector<std::string> base = {"keep-sharding-rules", "conservative-propagation", "debug-sharding-origins",
                                           "debug-propagation-edge-sharding", "module-dump-directory"};
    std::vector<std::string> withStrategy = base;
    withStrategy.push_back("propagation-strategy");
    std::vector<std::string> withOpPriority = withStrategy;
    withOpPriority.push_back("run-op-priority-propagation");
    list.push_back(propagationPass("sdy-basic-propagate", "basic sharding propagation (no conflict resolution)", base,
                                   &runBasicPropagation));
    list.push_back(propagationPass("sdy-aggressive-propagate", "aggressive sharding propagation (resolves conflicts)",
                                   withStrategy, &runAggressivePropagation));
    list.push_back(propagationPass("sdy-op-priority-propagate", "op-priority sharding propagation", withOpPriority,
                                   &runOpPriorityPropagation));
    list.push_back(propagationPass("sdy-user-priority-propagate", "user-priority sharding propagation", withOpPriority,
                                   &runUserPriorityPropagation));

    list.push_back(PassInfo{"sdy-add-data-flow-edges",
                            "insert sdy.data_flow_edge on every data-flow edge owner",
                            {},
                            [](ir::Module& m, const PassOptions&, PassContext&) { return addDataFlowEdges(m); }});
    list.push_back(PassInfo{"sdy-sink-data-flow-edges",
                            "move data-flow edge shardings back onto their ops and remove the edges",
                            {"sink-debug-sharding-origins", "sink-debug-propagation-edge-sharding"},
                            [](ir::Module& m, const PassOptions& opts, PassContext& ctx) {
                                const auto debug = debugOutputOptionsOf(opts, m, ctx, "sink-");
                                if (!debug)
                                    return false;
                                sinkDebugAttributes(m, *debug);
                                return sinkDataFlowEdges(m);
                            }});
    list.push_back(PassInfo{"sdy-apply-sharding-constraints",
                            "copy fully closed sharding constraints onto their unsharded inputs",
                            {"debug-sharding-origins", "debug-propagation-edge-sharding"},
                            [](ir::Module& m, const PassOptions& opts, PassContext& ctx) {
                                const auto debug = debugOutputOptionsOf(opts, m, ctx, "");
                                if (!debug)
                                    return false;
                                return runWithDebugOutputs(m, *debug, ctx.observer, [&](PropagationObserver* obs) {
                                    return applyShardingConstraints(m, obs);
                                });
                            },
                            /*reportsSteps=*/true});
    list.push_back(PassInfo{
        "sdy-propagation-pipeline",
        "the full propagation pipeline: import, user-priority propagation, export",
        {"dedup-functions-fully"},
        [](ir::Module& m, const PassOptions& opts, PassContext& ctx) {
            PropagationPipelineOptions o;
            if (!PassOptionReader(opts, m, ctx.diags).flag("dedup-functions-fully", o.dedupFunctionsFully).ok())
                return false;
            o.observer = ctx.observer;
            o.cancel = ctx.cancel;
            return runPropagationPipeline(m, o, ctx.diags);
        },
        /*reportsSteps=*/true});
    list.push_back(
        PassInfo{"sdy-insert-explicit-reshards",
                 "insert sdy.reshard ops and unreduced collectives so every op's shardings match its rule",
                 {"enable-full-version"},
                 [](ir::Module& m, const PassOptions& opts, PassContext& ctx) {
                     ExplicitReshardsOptions o;
                     if (!PassOptionReader(opts, m, ctx.diags).flag("enable-full-version", o.fullVersion).ok())
                         return false;
                     return insertExplicitReshards(m, o, ctx.diags);
                 }});
    list.push_back(PassInfo{
        "sdy-reshard-to-collectives",
        "lower every sdy.reshard to sdy.all_slice, collective_permute, all_to_all and all_gather (global shapes)",
        {"keep-redundant-reshards"},
        [](ir::Module& m, const PassOptions& opts, PassContext& ctx) {
            ReshardToCollectivesOptions o;
            if (!PassOptionReader(opts, m, ctx.diags).flag("keep-redundant-reshards", o.keepRedundantReshards).ok())
                return false;
            return reshardToCollectives(m, o, ctx.diags);
        }});
    list.push_back(PassInfo{
        "sdy-export-pipeline",
        "the export pipeline: closed shardings, explicit reshards and (with enable-insert-explicit-collectives) sdy "
        "collectives on global shapes, meshes inlined",
        {"replica-count", "partition-count", "dump-directory", "avoid-export-for-partitioning",
         "enable-insert-explicit-collectives", "remove-all-gather-reduce-scatter-for-cmv1",
         "enable-per-instruction-partitioning", "per-instruction-partitioning-filter", "keep-sharding-rules",
         "dump-sharding-origins", "dump-propagation-edges", "avoid-reshards-on-calls",
         "update-non-divisible-input-output-shardings", "inline-meshes"},
        [](ir::Module& m, const PassOptions& opts, PassContext& ctx) {
            ExportOptions o;
            if (!PassOptionReader(opts, m, ctx.diags)
                     .integer("replica-count", o.replicaCount)
                     .integer("partition-count", o.partitionCount)
                     .text("dump-directory", o.dumpDirectory)
                     .flag("avoid-export-for-partitioning", o.avoidExportForPartitioning)
                     .flag("enable-insert-explicit-collectives", o.enableInsertExplicitCollectives)
                     .flag("remove-all-gather-reduce-scatter-for-cmv1", o.removeAllGatherReduceScatterForCmv1)
                     .flag("enable-per-instruction-partitioning", o.enablePerInstructionPartitioning)
                     .text("per-instruction-partitioning-filter", o.perInstructionPartitioningFilter)
                     .flag("keep-sharding-rules", o.keepShardingRules)
                     .flag("dump-sharding-origins", o.dumpShardingOrigins)
                     .flag("dump-propagation-edges", o.dumpPropagationEdges)
                     .flag("avoid-reshards-on-calls", o.avoidReshardsOnCalls)
                     .flag("update-non-divisible-input-output-shardings", o.updateNonDivisibleInputOutputShardings)
                     .flag("inline-meshes", o.inlineMeshes)
                     .ok())
                return false;
            return runExportPipeline(m, o, ctx.diags);
        }});
    list.push_back(PassInfo{
        "sdy-resolve-permutation-factors",
        "replicate sharded permutation factors (pad, slice, reverse, windows) around their ops; halo exchange is not "
        "written yet, so enable-halo-exchange replicates too",
        {"enable-halo-exchange", "replica-count", "partition-count"},
        [](ir::Module& m, const PassOptions& opts, PassContext& ctx) {
            PermutationFactorOptions o;
            if (!PassOptionReader(opts, m, ctx.diags)
                     .flag("enable-halo-exchange", o.enableHaloExchange)
                     .integer("replica-count", o.counts.replicaCount)
                     .integer("partition-count", o.counts.partitionCount)
                     .ok())
                return false;
            return resolvePermutationFactors(m, o, ctx.diags);
        }});
    list.push_back(
        PassInfo{"sdy-per-instruction-partitioning",
                 "partition each selected op alone into an sdy.manual_computation of per-device code (filter: op-name "
                 "substrings, selectLow=N, selectHigh=N)",
                 {"filter", "enable-halo-exchange", "replica-count", "partition-count"},
                 [](ir::Module& m, const PassOptions& opts, PassContext& ctx) {
                     PerInstructionOptions o;
                     if (!PassOptionReader(opts, m, ctx.diags)
                              .text("filter", o.filter)
                              .flag("enable-halo-exchange", o.enableHaloExchange)
                              .integer("replica-count", o.counts.replicaCount)
                              .integer("partition-count", o.counts.partitionCount)
                              .ok())
                         return false;
                     return perInstructionPartitioning(m, o, ctx.diags);
                 }});
    list.push_back(
        PassInfo{"sdy-pad-for-divisibility",
                 "enlarge values whose sharded dimensions do not divide among their shards (global shapes)",
                 {},
                 [](ir::Module& m, const PassOptions&, PassContext& ctx) { return padForDivisibility(m, ctx.diags); }});
    list.push_back(PassInfo{
        "sdy-resolve-single-device-sharding",
        "run each op whose results live on one device in a stablehlo.if on that device, then all-reduce its results",
        {"replica-count", "partition-count"},
        [](ir::Module& m, const PassOptions& opts, PassContext& ctx) {
            DeviceCountOptions o;
            if (!PassOptionReader(opts, m, ctx.diags)
                     .integer("replica-count", o.replicaCount)
                     .integer("partition-count", o.partitionCount)
                     .ok())
                return false;
            return resolveSingleDeviceSharding(m, o, ctx.diags);
        }});
    list.push_back(
        PassInfo{"sdy-convert-global-to-local",
                 "turn the global program into the per-device one: local types, StableHLO collectives, device offsets",
                 {"per-dim-all-gather", "combine-multi-dimension-reduce-scatter", "enable-rgv3", "replica-count",
                  "partition-count"},
                 [](ir::Module& m, const PassOptions& opts, PassContext& ctx) {
                     GlobalToLocalOptions o;
                     if (!PassOptionReader(opts, m, ctx.diags)
                              .flag("per-dim-all-gather", o.perDimAllGather)
                              .flag("combine-multi-dimension-reduce-scatter", o.combineMultiDimensionReduceScatter)
                              .flag("enable-rgv3", o.enableRgv3)
                              .integer("replica-count", o.replicaCount)
                              .integer("partition-count", o.partitionCount)
                              .ok())
                         return false;
                     return convertGlobalToLocal(m, o, ctx.diags);
                 }});
    list.push_back(
        PassInfo{"sdy-remove-all-gather-reduce-scatter-for-cmv1",
                 "remove single-use all_gathers into dots and reduce_scatters of dots (XLA collective matmul)",
                 {},
                 [](ir::Module& m, const PassOptions&, PassContext&) {
                     removeAllGatherReduceScatterForCmv1(m);
                     return true;
                 }});
    list.push_back(PassInfo{"sdy-explicit-gather-scatter-batching",
                            "turn gathers and scatters that index dimension 0 with an iota into ones with explicit "
                            "batching dimensions",
                            {},
                            [](ir::Module& m, const PassOptions&, PassContext&) {
                                explicitGatherScatterBatching(m);
                                return true;
                            }});
    list.push_back(PassInfo{"sdy-drop-sharding-and-mesh",
                            "remove every sdy.sharding attribute and every sdy.mesh (the per-device program stays)",
                            {},
                            [](ir::Module& m, const PassOptions&, PassContext&) {
                                dropShardingAndMesh(m);
                                return true;
                            }});
    return list;
}

} // namespace

bool PassInfo::run(ir::Module& module, const PassOptions& options, PassContext& context) const
{
    if (reportsSteps || !context.observer)
        return body(module, options, context);
    StageScope stage(context.observer, "-" + name, StageKind::Pass);
    return body(module, options, context);
}

bool PassInfo::run(ir::Module& module, const PassOptions& options, DiagnosticList& diags) const
{
    PassContext context{diags};
    return run(module, options, context);
}

const std::vector<PassInfo>& registeredPasses()
{
    static const std::vector<PassInfo> passes = buildRegistry();
    return passes;
}

const PassInfo* findPass(std::string_view name)
{
    for (const PassInfo& p : registeredPasses())
        if (p.name == name)
            return &p;
    return nullptr;
}

const std::vector<PropagationStrategy>& propagationStrategies()
{
    static const std::vector<PropagationStrategy> strategies = {
        {"basic", "sdy-basic-propagate", "basic propagation: compatible axes only, no conflict resolution"},
        {"aggressive", "sdy-aggressive-propagate", "aggressive propagation: conflicts resolved by tensor size"},
        {"op-priority", "sdy-op-priority-propagate", "op-priority propagation: op-based directions, round by round"},
        {"user-priority", "sdy-user-priority-propagate", "user-priority propagation: priorities p0, p1, ... in turn"},
        {"pipeline", "sdy-propagation-pipeline", "Shardy's whole propagation pipeline: import, propagate, export"},
    };
    return strategies;
}

const PropagationStrategy* findPropagationStrategy(std::string_view name)
{
    for (const PropagationStrategy& s : propagationStrategies())
        if (name == s.name)
            return &s;
    return nullptr;
}

std::string propagationStrategyList()
{
    std::string s;
    for (const PropagationStrategy& st : propagationStrategies())
        s += (s.empty() ? "" : "|") + std::string(st.name);
    return s;
}

std::string knownPassList()
{
    std::string s;
    for (const PassInfo& p : registeredPasses())
        s += (s.empty() ? "-" : ", -") + p.name;
    return s.empty() ? std::string("(none)") : s;
}

Expected<PassInvocation> parsePassInvocation(const std::string& text)
{
    const size_t start = text.find_first_not_of('-');
    const std::string body = start == std::string::npos ? std::string() : text.substr(start);
    const size_t eq = body.find('=');
    const std::string name = body.substr(0, eq);
    PassInvocation inv;
    inv.pass = findPass(name);
    if (!inv.pass)
        return Error{"unknown pass or option '" + text + "'; known passes: " + knownPassList(), {}};
    if (eq == std::string::npos)
        return inv;
    std::string opts = body.substr(eq + 1);
    if (opts.size() >= 2 && (opts.front() == '\'' || opts.front() == '"') && opts.back() == opts.front())
        opts = opts.substr(1, opts.size() - 2);
    // Items are separated by spaces outside quotes and brackets, as MLIR's option parser splits
    // them (`filter='selectLow=0, selectHigh=0'` is one item); one pair of quotes around a value
    // is removed.
    std::vector<std::string> items;
    {
        std::string cur;
        char quote = 0;
        int depth = 0;
        for (char c : opts) {
            if (quote) {
                quote = c == quote ? 0 : quote;
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '{' || c == '[' || c == '(') {
                ++depth;
            } else if ((c == '}' || c == ']' || c == ')') && depth > 0) {
                --depth;
            } else if ((c == ' ' || c == '\t') && depth == 0) {
                if (!cur.empty())
                    items.push_back(cur);
                cur.clear();
                continue;
            }
            cur += c;
        }
        if (!cur.empty())
            items.push_back(cur);
    }
    for (std::string item : items) {
        const size_t e = item.find('=');
        const std::string key = item.substr(0, e);
        std::string value = e == std::string::npos ? std::string("true") : item.substr(e + 1);
        if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') && value.back() == value.front())
            value = value.substr(1, value.size() - 2);
        bool known = false;
        for (const std::string& o : inv.pass->options)
            known |= o == key;
        if (!known) {
            std::string list;
            for (const std::string& o : inv.pass->options)
                list += (list.empty() ? "" : ", ") + o;
            return Error{"unknown option '" + key + "' of pass -" + name +
                             "; known options: " + (list.empty() ? std::string("(none)") : list),
                         {}};
        }
        inv.options[key] = value;
    }
    return inv;
}

PassOptionReader& PassOptionReader::flag(const std::string& name, bool& out)
{
    auto it = m_options.find(name);
    if (it == m_options.end() || !m_ok)
        return *this;
    if (it->second == "true" || it->second == "1")
        out = true;
    else if (it->second == "false" || it->second == "0")
        out = false;
    else
        fail(name, it->second);
    return *this;
}

PassOptionReader& PassOptionReader::integer(const std::string& name, int64_t& out)
{
    auto it = m_options.find(name);
    if (it == m_options.end() || !m_ok)
        return *this;
    const std::string& v = it->second;
    size_t digits = (!v.empty() && v[0] == '-') ? 1 : 0;
    bool valid = v.size() > digits && v.size() - digits <= 18;
    for (size_t i = digits; valid && i < v.size(); ++i)
        valid = v[i] >= '0' && v[i] <= '9';
    if (valid)
        out = std::stoll(v);
    else
        fail(name, v);
    return *this;
}

PassOptionReader& PassOptionReader::text(const std::string& name, std::string& out)
{
    auto it = m_options.find(name);
    if (it != m_options.end() && m_ok)
        out = it->second;
    return *this;
}

void PassOptionReader::fail(const std::string& name, const std::string& value)
{
    m_diags.error(SourcePos{m_module.fileName, 0, 0}, "invalid value '" + value + "' for option " + name);
    m_ok = false;
}

} // namespace shardx
