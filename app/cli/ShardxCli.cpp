// shardx-cli: the headless front end (generate, check, convert, propagate, explain, partition, lint, diff,
// trace, interpret, explicit, annotate, validate), on the Session API and the executors.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/generate/ModelGenerator.h"
#include "core/io/MlirPrinter.h"
#include "core/io/ModuleLoader.h"
#include "core/io/SplitInput.h"
#include "core/partition/PartitionDiff.h"
#include "core/session/Session.h"
#include "core/trace/TraceBinary.h"
#include "core/trace/TracePrinter.h"

#include <nlohmann/json.hpp>

#include "app/cli/CliSupport.h"

using namespace shardx;
using namespace shardx::cli;

namespace {

int cmdGenerate(int argc, char** argv)
{
    Args args = parseArgs(argc, argv, 2, {"layers", "hidden", "heads", "seq", "batch", "mesh", "style", "output", "o"});
    if (!args.error.empty()) {
        std::cerr << "shardx-cli generate: error: " << args.error << "\n";
        return 2;
    }
    if (args.positional.size() != 1 || args.positional[0] != "transformer") {
        std::cerr << "usage: shardx-cli generate transformer [--layers L] [--hidden H] [--heads A] [--seq S] "
                     "[--batch B] [--mesh data=2,fsdp=4,tensor=4] [--style dp|fsdp|megatron|fsdp+megatron] [-o FILE]\n";
        return 2;
    }
    generate::TransformerSpec spec;
    struct IntOpt {
        const char* name;
        int64_t* target;
    };
    int64_t layers = spec.layers;
    for (IntOpt o : {IntOpt{"layers", &layers}, IntOpt{"hidden", &spec.hidden}, IntOpt{"heads", &spec.heads},
                     IntOpt{"seq", &spec.seq}, IntOpt{"batch", &spec.batch}}) {
        if (!args.has(o.name))
            continue;
        if (!parseInt(args.get(o.name), *o.target)) {
            std::cerr << "shardx-cli generate: error: --" << o.name << " expects a positive integer, got '"
                      << args.get(o.name) << "'\n";
            return 2;
        }
    }
    spec.layers = static_cast<int>(layers);
    if (args.has("mesh")) {
        auto mesh = generate::parseMeshSpec(args.get("mesh"));
        if (!mesh) {
            std::cerr << "shardx-cli generate: error: " << mesh.error().message << "\n";
            return 2;
        }
        spec.mesh = *mesh;
    }
    if (args.has("style")) {
        auto style = generate::parseShardingStyle(args.get("style"));
        if (!style) {
            std::cerr << "shardx-cli generate: error: " << style.error().message << "\n";
            return 2;
        }
        spec.style = *style;
    }
    auto module = generate::generateTransformer(spec);
    if (!module) {
        std::cerr << "shardx-cli generate: error: " << module.error().message << "\n";
        return 2;
    }
    // With debug info: the locations hold the parameter names and JAX name scopes.
    io::PrintOptions print;
    print.printDebugInfo = true;
    return writeOutput(args, io::printModule(**module, print)) ? 0 : 1;
}

int cmdCheck(int argc, char** argv)
{
    Args args = parseArgs(argc, argv, 2, {});
    if (args.positional.empty()) {
        std::cerr
            << "usage: shardx-cli check FILE... [--strict [--allow-unregistered-dialect]] [--no-split-input-file]\n";
        return 2;
    }
    int failures = 0;
    for (const std::string& path : args.positional) {
        InputFile file;
        if (!readInput(path, args, file)) {
            ++failures;
            continue;
        }
        for (size_t i = 0; i < file.parts.size(); ++i) {
            Session& session = freshSession();
            if (!openPart(session, file, i, args)) {
                ++failures;
                continue;
            }
            const ir::Module& module = *session.module();
            size_t ops = 0;
            const_cast<ir::Op&>(module.op()).walk([&](ir::Op*) { ++ops; });
            std::cout << file.partName(i) << ": ok (" << module.meshes().size() << " meshes, " << module.funcs().size()
                      << " functions, " << ops - 1 << " ops)\n";
        }
    }
    return failures ? 1 : 0;
}

int cmdConvert(int argc, char** argv)
{
    Args args = parseArgs(argc, argv, 2, {"to", "output", "o", "part"});
    if (args.positional.size() != 1 || (args.get("to") != "json" && args.get("to") != "mlir")) {
        std::cerr << "usage: shardx-cli convert FILE --to json|mlir [--part N] [-o FILE]\n";
        return 2;
    }
    Session& session = freshSession();
    if (!openVerified(session, args.positional[0], args, "convert"))
        return 1;
    return writeOutput(args, session.text(args.get("to") == "json" ? Session::Format::Json : Session::Format::Mlir))
               ? 0
               : 1;
}

/// The trace file of part `index` (0-based) of `parts`: `path` itself for a file of one part, else
/// `.partN` (1-based) inserted before the extension: `t.json` -> `t.part2.json`, `t` -> `t.part2`.
std::string partTracePath(const std::string& path, size_t index, size_t parts)
{
    if (parts <= 1)
        return path;
    const size_t slash = path.find_last_of('/');
    size_t dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == slash + 1)
        dot = path.size();
    return path.substr(0, dot) + ".part" + std::to_string(index + 1) + path.substr(dot);
}

int cmdPropagate(int argc, char** argv)
{
    Args args = parseArgs(argc, argv, 2, {"strategy", "output", "o", "trace"});
    const std::string strategy = args.get("strategy", "pipeline");
    const bool known = findPropagationStrategy(strategy) != nullptr;
    if (!args.error.empty() || args.positional.size() != 1 || !known) {
        std::cerr << "usage: shardx-cli propagate FILE [--strategy " << propagationStrategyList()
                  << "] [--trace TRACE] [-o FILE] [--no-split-input-file]\n";
        if (!known)
            std::cerr << "shardx-cli propagate: error: unknown strategy '" << strategy << "'\n";
        return 2;
    }
    InputFile file;
    if (!readInput(args.positional[0], args, file))
        return 1;
    // As shardx-opt -split-input-file: every part is propagated on its own, a part that fails
    // prints nothing (its markers stay), and the exit status is 1 when any part failed.
    // A trace whose name ends in .json is written from memory after propagation; any other is
    // the binary trace, streamed to its file while propagation runs.
    const bool record = args.has("trace");
    const bool json = record && isJsonTracePath(args.get("trace"));
    std::vector<std::string> outputs(file.parts.size());
    bool ok = true;
    Session* last = nullptr;
    for (size_t i = 0; i < file.parts.size(); ++i) {
        Session& session = freshSession();
        last = &session;
        const std::string tracePath = record ? partTracePath(args.get("trace"), i, file.parts.size()) : "";
        const bool opened = openPart(session, file, i, args);
        if (!file.split)
            std::string().swap(file.text); // the module read holds what it needs: free the text
        // Only the result is printed: the module read is propagated without a copy.
        if (!opened || !propagate(session, strategy, record, json ? "" : tracePath, /*consumeSource=*/true)) {
            ok = false;
            continue;
        }
        if (json) {
            if (Status s = session.saveTrace(tracePath); !s) {
                std::cerr << "shardx-cli: error: " << s.error().message << "\n";
                ok = false;
                continue;
            }
        }
        if (file.split)
            outputs[i] = session.text();
    }
    if (!file.split) {
        if (!ok)
            return 1;
        // Printed straight to the output: the text of a large module is never held whole.
        return writeOutput(args, [last](std::ostream& out) { last->writeText(out); }) ? 0 : 1;
    }
    return writeOutput(args, io::joinSplitOutputs(outputs)) && ok ? 0 : 1;
}

/// `explain FILE VALUE [--axis A] [--strategy S] [--json] [--part N]`: why each axis of VALUE is there.
int cmdExplain(int argc, char** argv)
{
    Args args = parseArgs(argc, argv, 2, {"axis", "strategy", "output", "o", "part"});
    const std::string strategy = args.get("strategy", "pipeline");
    if (!args.error.empty() || args.positional.size() != 2 || !findPropagationStrategy(strategy)) {
        std::cerr << "usage: shardx-cli explain FILE VALUE [--axis A] [--strategy S] [--json] [--part N]\n"
                     "  VALUE: a name as the file prints it (%5, @main:%cst_0, @main:%arg0, result 0), an id\n"
                     "         (@main:%3/%arg1 inside a region), or a loc name scope (layer_0/add)\n";
        return 2;
    }
    Session& session = freshSession();
    if (!openVerified(session, args.positional[0], args, "explain") || !propagate(session, strategy, true))
        return 1;
    Expected<int> value = session.findValue(args.positional[1]);
    if (!value) {
        std::cerr << "shardx-cli explain: error: " << value.error().message << "\n";
        return 1;
    }
    std::optional<std::string> axis;
    if (args.has("axis"))
        axis = args.get("axis");
    Expected<ValueExplanation> e = session.explain(*value, axis);
    if (!e) {
        std::cerr << "shardx-cli explain: error: " << e.error().message << "\n";
        return 1;
    }
    std::string out = args.has("json") ? explanationJson(*e).dump(1) + "\n" : explanationText(*e);
    return writeOutput(args, out) ? 0 : 1;
}

/// Reads `--cost "*=5/50,model=1/400"`: per mesh axis (or `*` for every other axis) the latency in
/// microseconds and the bandwidth in GB/s of the alpha-beta model.
bool parseCost(const std::string& text, CostModel& cost, std::string& error)
{
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(',', start);
        if (end == std::string::npos)
            end = text.size();
        const std::string item = text.substr(start, end - start);
        const size_t eq = item.find('='), slash = item.find('/');
        if (eq == std::string::npos || slash == std::string::npos || slash < eq) {
            error = "'" + item + "' is not AXIS=LATENCY_US/BANDWIDTH_GBPS";
            return false;
        }
        AxisLink link;
        try {
            size_t used = 0;
            const std::string lat = item.substr(eq + 1, slash - eq - 1), bw = item.substr(slash + 1);
            link.latencySeconds = std::stod(lat, &used) * 1e-6;
            if (used != lat.size())
                throw std::invalid_argument(lat);
            link.bandwidthBytesPerSecond = std::stod(bw, &used) * 1e9;
            if (used != bw.size() || link.bandwidthBytesPerSecond <= 0 || link.latencySeconds < 0)
                throw std::invalid_argument(bw);
        } catch (const std::exception&) {
            error = "'" + item + "' is not AXIS=LATENCY_US/BANDWIDTH_GBPS with positive numbers";
            return false;
        }
        const std::string axis = item.substr(0, eq);
        if (axis == "*")
            cost.defaults = link;
        else
            cost.perAxis[axis] = link;
        start = end + 1;
    }
    return true;
}

nlohmann::json replicatedJson(const std::vector<ReplicatedTensor>& list)
{
    nlohmann::json out = nlohmann::json::array();
    for (const ReplicatedTensor& r : list)
        out.push_back({{"value", r.displayName},
                       {"id", r.id},
                       {"op_name", r.opName},
                       {"line", r.position.line},
                       {"sharding", r.sharding},
                       {"shards", r.shards},
                       {"devices", r.devices},
                       {"bytes", r.bytes},
                       {"bytes_per_device", r.bytesPerDevice},
                       {"extra_bytes_per_device", r.extraBytesPerDevice},
                       {"reasons", r.reasons}});
    return out;
}

std::string replicatedText(const std::vector<ReplicatedTensor>& list, size_t limit)
{
    if (list.empty())
        return "why replicated: no tensor ends less sharded than its neighbours offered\n";
    std::string out = "why replicated (" + std::to_string(list.size()) + " tensors, largest cost first):\n";
    for (size_t i = 0; i < list.size() && i < limit; ++i) {
        const ReplicatedTensor& r = list[i];
        out += "  " + r.displayName + (r.opName.empty() ? "" : " (" + r.opName + ")") +
               (r.position.line > 0 ? " at line " + std::to_string(r.position.line) : "") + ": " + r.sharding + ", " +
               std::to_string(r.shards) + " of " + std::to_string(r.devices) + " pieces, " +
               std::to_string(r.extraBytesPerDevice) + " B more per device than an even split\n";
        for (const std::string& reason : r.reasons)
            out += "    - " + reason + "\n";
    }
    if (list.size() > limit)
        out += "  ... " + std::to_string(list.size() - limit) + " more (--json lists all)\n";
    return out;
}

/// Opens `path`, propagates it with `strategy`, recording, and partitions it: the common part of
/// partition, lint and diff.
/// Wall-clock time of each stage of a command, printed to stderr with `--timings`.
class StageTimer {
public:
    explicit StageTimer(bool enabled) : m_enabled(enabled), m_last(std::chrono::steady_clock::now()) {}
    /// Ends the stage that ran since the last call (or since construction).
    void stage(const char* name)
    {
        const auto now = std::chrono::steady_clock::now();
        if (m_enabled)
            std::fprintf(stderr, "timing: %-16s %9.1f ms\n", name,
                         std::chrono::duration<double, std::milli>(now - m_last).count());
        m_last = now;
    }

private:
    bool m_enabled;
    std::chrono::steady_clock::time_point m_last;
};

bool partitionFile(Session& session, const std::string& path, const std::string& strategy, const Args& args,
                   const char* command, const PartitionOptions& options, Expected<PartitionModel>& model,
                   std::vector<ReplicatedTensor>& replicated)
{
    StageTimer timer(args.has("timings"));
    if (!openVerified(session, path, args, command))
        return false;
    timer.stage("open");
    if (!propagate(session, strategy, true))
        return false;
    timer.stage("propagate");
    model = session.partition(options);
    if (!model) {
        const Error& e = model.error();
        std::cerr << "shardx-cli " << command << ": " << (e.pos.isKnown() ? e.format() : "error: " + e.message) << "\n";
        return false;
    }
    timer.stage("partition");
    Expected<std::vector<ReplicatedTensor>> r = session.replicatedTensors();
    if (r)
        replicated = std::move(*r);
    timer.stage("why-replicated");
    return true;
}

/// `partition FILE [--strategy S] [--json] [--no-program] [--cost ...] [--part N] [-o FILE]`.
int cmdPartition(int argc, char** argv)
{
    Args args = parseArgs(argc, argv, 2, {"strategy", "output", "o", "part", "cost", "shards"});
    const std::string strategy = args.get("strategy", "pipeline");
    PartitionOptions options;
    std::string costError;
    const bool costOk = !args.has("cost") || parseCost(args.get("cost"), options.cost, costError);
    const std::string shards = args.get("shards", "interface");
    const bool shardsOk = shards == "none" || shards == "interface" || shards == "all";
    options.shards = shards == "none"  ? ShardListing::None
                     : shards == "all" ? ShardListing::All
                                       : ShardListing::Interface;
    if (!args.error.empty() || args.positional.size() != 1 || !findPropagationStrategy(strategy) || !costOk ||
        !shardsOk) {
        std::cerr << "usage: shardx-cli partition FILE [--strategy S] [--json] [--no-program] [--part N] [-o FILE]\n"
                     "                              [--cost \"*=5/50,AXIS=LATENCY_US/BANDWIDTH_GBPS,...\"]\n"
                     "                              [--shards none|interface|all] [--timings]\n";
        if (!costOk)
            std::cerr << "shardx-cli partition: error: --cost: " << costError << "\n";
        return 2;
    }
    Session& session = freshSession();
    Expected<PartitionModel>& model = keepUntilExit(Expected<PartitionModel>(Error{}));
    std::vector<ReplicatedTensor> replicated;
    if (!partitionFile(session, args.positional[0], strategy, args, "partition", options, model, replicated))
        return 1;
    std::string out;
    if (args.has("json")) {
        nlohmann::json j = partitionJson(*model);
        j["replicated"] = replicatedJson(replicated);
        out = j.dump(1) + "\n";
    } else {
        out = partitionText(*model, false) + replicatedText(replicated, 10);
        if (!args.has("no-program") && model->local)
            out += "\nper-device program (every device runs it; partition_id selects its shard):\n" +
                   io::printModule(*model->local);
    }
    return writeOutput(args, out) ? 0 : 1;
}

/// `lint FILE [--strategy S] [--max-collective-bytes N] [--max-replicated-bytes N] [--forbid KINDS]`:
/// exit 1 with the list of what exceeds a budget, for CI.
int cmdLint(int argc, char** argv)
{
    Args args = parseArgs(
        argc, argv, 2, {"strategy", "part", "max-collective-bytes", "max-replicated-bytes", "forbid", "output", "o"});
    int64_t maxCollective = -1, maxReplicated = -1;
    bool ok = args.error.empty() && args.positional.size() == 1 &&
              findPropagationStrategy(args.get("strategy", "pipeline")) != nullptr;
    if (args.has("max-collective-bytes"))
        ok = ok && parseInt(args.get("max-collective-bytes"), maxCollective);
    if (args.has("max-replicated-bytes"))
        ok = ok && parseInt(args.get("max-replicated-bytes"), maxReplicated);
    std::vector<std::string> forbidden;
    static const std::vector<std::string> kKinds = {"all-gather",     "all-slice",  "all-reduce",
                                                    "reduce-scatter", "all-to-all", "collective-permute"};
    if (args.has("forbid")) {
        std::string list = args.get("forbid");
        size_t start = 0;
        while (start <= list.size()) {
            size_t end = list.find(',', start);
            if (end == std::string::npos)
                end = list.size();
            const std::string kind = list.substr(start, end - start);
            if (std::find(kKinds.begin(), kKinds.end(), kind) == kKinds.end()) {
                std::cerr << "shardx-cli lint: error: --forbid: unknown collective '" << kind
                          << "' (all-gather, all-slice, all-reduce, reduce-scatter, all-to-all, collective-permute)\n";
                ok = false;
            }
            forbidden.push_back(kind);
            start = end + 1;
        }
    }
    if (!ok) {
        std::cerr
            << "usage: shardx-cli lint FILE [--strategy S] [--max-collective-bytes N] [--max-replicated-bytes N]\n"
               "                          [--forbid all-gather,all-to-all,...]\n";
        return 2;
    }
    Session& session = freshSession();
    Expected<PartitionModel>& model = keepUntilExit(Expected<PartitionModel>(Error{}));
    std::vector<ReplicatedTensor> replicated;
    if (!partitionFile(session, args.positional[0], args.get("strategy", "pipeline"), args, "lint", PartitionOptions{},
                       model, replicated))
        return 1;
    std::string problems;
    for (const CollectiveInfo& c : model->collectives) {
        const std::string where = c.op.empty()
                                      ? std::string()
                                      : " for " + c.op + " (" + c.opName + ")" +
                                            (c.position.line > 0 ? " at line " + std::to_string(c.position.line) : "");
        if (std::find(forbidden.begin(), forbidden.end(), c.kind) != forbidden.end())
            problems += "forbidden " + c.kind + where + ": " + c.cause + "\n";
        if (maxCollective >= 0 && c.bytesSentPerDevice > maxCollective)
            problems += c.kind + where + " sends " + std::to_string(c.bytesSentPerDevice) +
                        " B per device, over the budget of " + std::to_string(maxCollective) + " B\n";
    }
    for (const ReplicatedTensor& r : replicated)
        if (maxReplicated >= 0 && r.extraBytesPerDevice > maxReplicated)
            problems += r.displayName + (r.position.line > 0 ? " at line " + std::to_string(r.position.line) : "") +
                        " is " + r.sharding + ": " + std::to_string(r.extraBytesPerDevice) +
                        " B more per device than an even split, over the budget of " + std::to_string(maxReplicated) +
                        " B" + (r.reasons.empty() ? "" : " (" + r.reasons.front() + ")") + "\n";
    if (problems.empty()) {
        std::cout << args.positional[0] << ": " << model->collectives.size() << " collectives, "
                  << model->bytesSentPerDevice << " B sent per device: within every budget\n";
        return 0;
    }
    std::cout << args.positional[0] << ": over budget:\n" << problems;
    return 1;
}

/// `diff A B [--strategy S] [--strategy-a S] [--strategy-b S] [--json] [--cost ...] [--part N] [-o FILE]`:
/// what changes from A's partition to B's (two files of one program, or one file and two strategies).
int cmdDiff(int argc, char** argv)
{
    Args args = parseArgs(argc, argv, 2, {"strategy", "strategy-a", "strategy-b", "output", "o", "part", "cost"});
    const std::string strategy = args.get("strategy", "pipeline");
    const std::string strategyA = args.get("strategy-a", strategy), strategyB = args.get("strategy-b", strategy);
    PartitionOptions options;
    options.shards = ShardListing::None; // the diff reads each tensor's shard from its sharding
    std::string costError;
    const bool costOk = !args.has("cost") || parseCost(args.get("cost"), options.cost, costError);
    std::string unknown;
    for (const std::string& s : {strategy, strategyA, strategyB})
        if (!findPropagationStrategy(s) && unknown.empty())
            unknown = s;
    if (!args.error.empty() || args.positional.size() != 2 || !unknown.empty() || !costOk) {
        std::cerr
            << "usage: shardx-cli diff A B [--strategy S | --strategy-a S --strategy-b S] [--json] [-o FILE]\n"
               "                        [--cost \"*=5/50,AXIS=LATENCY_US/BANDWIDTH_GBPS,...\"] [--part N (of both)]\n"
               "  A, B: two files of one program (or the same file twice with two strategies)\n";
        if (!args.error.empty())
            std::cerr << "shardx-cli diff: error: " << args.error << "\n";
        if (!unknown.empty())
            std::cerr << "shardx-cli diff: error: unknown strategy '" << unknown << "' (" << propagationStrategyList()
                      << ")\n";
        if (!costOk)
            std::cerr << "shardx-cli diff: error: --cost: " << costError << "\n";
        return 2;
    }
    Session& sessionA = freshSession(0);
    Session& sessionB = freshSession(1);
    Expected<PartitionModel>& modelA = keepUntilExit(Expected<PartitionModel>(Error{}));
    Expected<PartitionModel>& modelB = keepUntilExit(Expected<PartitionModel>(Error{}));
    PartitionDiffSide a, b;
    if (!partitionFile(sessionA, args.positional[0], strategyA, args, "diff", options, modelA, a.replicated) ||
        !partitionFile(sessionB, args.positional[1], strategyB, args, "diff", options, modelB, b.replicated))
        return 1;
    a.label = args.positional[0] + " (" + strategyA + ")";
    b.label = args.positional[1] + " (" + strategyB + ")";
    a.propagated = sessionA.module();
    b.propagated = sessionB.module();
    a.ids = sessionA.ids();
    b.ids = sessionB.ids();
    a.model = &*modelA;
    b.model = &*modelB;
    const PartitionDiff diff = diffPartitions(a, b);
    const std::string out = args.has("json") ? partitionDiffJson(diff).dump(1) + "\n" : partitionDiffText(diff);
    return writeOutput(args, out) ? 0 : 1;
}

/// `trace seek`'s report: every value's sharding (or only --value's) in `state`, the sharding ids after
/// `step` of `numSteps` steps of `trace`.
int printSeek(const Args& args, const Trace& trace, const std::vector<int>& state, int64_t step, size_t numSteps)
{
    std::string& out = keepUntilExit(std::string()); // 9 MB for 100k values: not freed at exit
    out = "after step " + std::to_string(step) + " of " + std::to_string(numSteps) + "\n";
    std::vector<int> values;
    if (args.has("value")) {
        Expected<int> v = findTraceValue(trace, args.get("value"));
        if (!v) {
            std::cerr << "shardx-cli trace seek: error: " << v.error().message << "\n";
            return 1;
        }
        values.push_back(*v);
    } else {
        for (size_t v = 0; v < trace.values().size(); ++v)
            values.push_back(static_cast<int>(v));
    }
    // A program's values share a few hundred shardings (the trace pools them): each is formatted once.
    std::vector<std::string> formatted;
    out.reserve(out.size() + values.size() * 64);
    for (int v : values) {
        const TraceValue& tv = trace.values()[static_cast<size_t>(v)];
        const int id = static_cast<size_t>(v) < state.size() ? state[static_cast<size_t>(v)] : -1;
        out.append(tv.id).append(" (").append(tv.displayName).append("): ");
        const TensorSharding* s = trace.sharding(id);
        if (!s) {
            out.append("<no sharding>\n");
            continue;
        }
        if (static_cast<size_t>(id) >= formatted.size())
            formatted.resize(static_cast<size_t>(id) + 1);
        std::string& text = formatted[static_cast<size_t>(id)];
        if (text.empty())
            text = s->toString();
        out.append(text).push_back('\n');
    }
    return writeOutput(args, out) ? 0 : 1;
}

/// `trace seek` on a binary trace: the state from the nearest keyframe of the mapped file, and
/// only the names and shardings read (the steps are never loaded).
int seekBinaryTrace(const Args& args, const std::string& path, int64_t step)
{
    Expected<TraceFile> file = TraceFile::open(path);
    if (!file) {
        std::cerr << file.error().format() << "\n";
        return 1;
    }
    if (step < 0 || static_cast<size_t>(step) > file->numSteps()) {
        std::cerr << "shardx-cli trace seek: error: STEP must be between 0 and " << file->numSteps() << "\n";
        return 2;
    }
    Expected<TraceData> names = file->loadNames();
    Expected<std::vector<int>> state =
        names ? file->stateAfter(static_cast<size_t>(step)) : Expected<std::vector<int>>(names.error());
    if (!state) {
        std::cerr << state.error().format() << "\n";
        return 1;
    }
    // The names of 100k values are not torn down at exit either.
    const Trace& trace = keepUntilExit(Trace(std::move(*names)));
    return printSeek(args, trace, *state, step, file->numSteps());
}

/// `trace export --json|--binary TRACE OUT`: the trace in the other (or the same) format.
int exportTrace(const Args& args)
{
    Expected<Trace> trace = readTraceFile(args.positional[1]);
    if (!trace) {
        std::cerr << trace.error().format() << "\n";
        return 1;
    }
    const bool json = args.has("json");
    Status s = writeFileAtomically(args.positional[2], [&](std::ostream& out) {
        if (json)
            trace->writeJson(out);
        else
            writeTraceBinary(*trace, out);
    });
    if (!s) {
        std::cerr << "shardx-cli: error: " << s.error().message << "\n";
        return 1;
    }
    return 0;
}

/// `trace print TRACE`, `trace seek TRACE STEP [--value ID]` and `trace export --json|--binary
/// TRACE OUT`; TRACE in either format.
int cmdTrace(int argc, char** argv)
{
    Args args = parseArgs(argc, argv, 2, {"value", "output", "o"});
    const std::string verb = args.positional.empty() ? std::string() : args.positional[0];
    if (!args.error.empty() ||
        !((verb == "print" && args.positional.size() == 2) || (verb == "seek" && args.positional.size() == 3) ||
          (verb == "export" && args.positional.size() == 3 && args.has("json") != args.has("binary")))) {
        std::cerr << "usage: shardx-cli trace print TRACE [-o FILE]\n"
                     "       shardx-cli trace seek TRACE STEP [--value ID]\n"
                     "       shardx-cli trace export --json|--binary TRACE OUT\n";
        return 2;
    }
    if (verb == "export")
        return exportTrace(args);
    int64_t step = 0;
    if (verb == "seek" && !parseInt(args.positional[2], step)) {
        std::cerr << "shardx-cli trace seek: error: STEP must be a number\n";
        return 2;
    }
    if (verb == "seek") {
        std::string head;
        if (std::ifstream f(args.positional[1], std::ios::binary); f) {
            head.resize(8);
            f.read(head.data(), 8);
            head.resize(static_cast<size_t>(f.gcount()));
        }
        if (isBinaryTrace(head))
            return seekBinaryTrace(args, args.positional[1], step);
    }
    Session& session = freshSession();
    if (!session.openTrace(args.positional[1])) {
        std::cerr << session.diagnostics().formatAll();
        return 1;
    }
    const Trace& trace = *session.trace();
    if (verb == "print")
        return writeOutput(args, printTrace(trace)) ? 0 : 1;

    if (step < 0 || static_cast<size_t>(step) > trace.numSteps()) {
        std::cerr << "shardx-cli trace seek: error: STEP must be between 0 and " << trace.numSteps() << "\n";
        return 2;
    }
    session.seek(static_cast<size_t>(step));
    return printSeek(args, trace, session.stateAt(), step, trace.numSteps());
}

void printUsage(std::ostream& os)
{
    os << "usage: shardx-cli COMMAND [ARGS]\n\n"
          "commands:\n"
          "  generate transformer [--layers L --hidden H --heads A --seq S --batch B\n"
          "           --mesh data=2,fsdp=4,tensor=4 --style dp|fsdp|megatron|fsdp+megatron] [-o FILE]\n"
          "                     write a JAX-style decoder stack with Shardy annotations\n"
          "  propagate FILE [--strategy "
       << propagationStrategyList()
       << "]\n"
          "           [--trace TRACE] [-o FILE]\n"
          "                     propagate shardings as Shardy does, optionally recording the trace:\n"
          "                     binary (streamed as it runs) unless TRACE ends in .json (each part of a\n"
          "                     split file on its own: one trace per part, TRACE.partN.json)\n"
          "  explain FILE VALUE [--axis A] [--strategy S] [--json] [--part N]\n"
          "                     why each axis of VALUE's sharding is there, and why a neighbour's is not\n"
          "                     (VALUE as the file names it: %5, @main:%cst_0, result 0, or a loc name)\n"
          "  partition FILE [--strategy S] [--json] [--no-program] [--cost \"*=5/50,AXIS=US/GBPS\"]\n"
          "                 [--shards none|interface|all] [--timings]\n"
          "                     the per-device program and every collective it runs: axes, replica groups,\n"
          "                     bytes per device, time under the alpha-beta model, and why it is there\n"
          "                     (--timings: each stage's wall-clock time on stderr)\n"
          "  lint FILE [--max-collective-bytes N] [--max-replicated-bytes N] [--forbid all-gather,...]\n"
          "                     for CI: exit 1 and list each collective or replicated tensor over a budget\n"
          "  diff A B [--strategy S | --strategy-a S --strategy-b S] [--json] [--cost ...]\n"
          "                     compare two partitions of one program (two files, or one file and two\n"
          "                     strategies): tensor sharding changes, collectives removed, added and changed,\n"
          "                     bytes sent, collective time and peak memory per device A -> B; exit 0 when\n"
          "                     the comparison ran, whether or not they differ\n"
          "  explicit FILE [--axes X=explicit,Y=auto] [--mesh NAME] [--compare [--strategy S]] [--json]\n"
          "                     JAX's explicit (typed) sharding mode: every value's type (f32[4@X,8@Y]) by\n"
          "                     JAX's per-op rules and every trace-time error (exit 1); axis types are read\n"
          "                     from the module (open dimensions: Auto axes) or set with --axes; --compare\n"
          "                     runs Shardy's propagation and says where and why its shardings differ\n"
          "  annotate FILE --rules RULES.json [--devices N] [--keep-existing] [--propagate [--strategy S]]\n"
          "                   [-o FILE]\n"
          "                     shard the arguments by scalax-style rules (mesh helper, fsdp, tree_path,\n"
          "                     policy) matched on the names JAX gives them (results by jax.result_info,\n"
          "                     named sharding constraints by named rules); lists which rule matched each\n"
          "                     and the mhlo.sharding each had; --keep-existing keeps existing shardings\n"
          "  trace print TRACE                 every step and decision of a recorded trace\n"
          "  trace seek TRACE STEP [--value VALUE]\n"
          "                     the sharding of every value (or one) after STEP steps\n"
          "  trace export --json|--binary TRACE OUT\n"
          "                     convert a trace (TRACE in either format; binary is read memory-mapped)\n"
          "  check FILE...      parse and verify MLIR or shardx JSON files, reporting every problem\n"
          "                     (one line per part of a split file)\n"
          "  convert FILE --to json|mlir [--part N] [-o FILE]\n"
          "                     convert between MLIR text and shardx's JSON document format\n"
          "  interpret FILE [--entry NAME] [--seed N | --inputs A.npy,...] [--save-results DIR]\n"
          "                   [--backend reference|vulkan] [--devices 0,1]\n"
          "                     run @main (no module wrapper needed) with StableHLO semantics on the CPU:\n"
          "                     interpreter.run_parallel runs a grid of processes with collectives between\n"
          "                     them, check.expect_eq compares exactly; exit 0 iff every check held. An\n"
          "                     entry with parameters runs on seeded or .npy inputs and prints its results\n"
          "  validate FILE [--strategy S] [--mesh 2x2] [--backend reference|vulkan] [--seed N]\n"
          "                [--intermediates] [--inject-fault collective|swap-shards] [--json]\n"
          "                     propagate and partition, run the global program (reference) and the\n"
          "                     per-device programs (the back end), gather each sharded result and compare\n"
          "                     under a tolerance per dtype; --intermediates names the first op or collective\n"
          "                     that diverges and on which device. Exit 0 match, 1 mismatch, 2 could not run\n\n"
          "An MLIR file with `// -----` lines is cut into parts there, as mlir-opt -split-input-file cuts it;\n"
          "each part is read on its own (--part N picks one for explain and convert; --no-split-input-file\n"
          "reads the file whole). Lines in messages are lines of the whole file.\n\n"
          "Ops and attributes of dialects shardx does not know are kept as written (one warning per op name),\n"
          "and shardings do not propagate through such ops. --strict refuses them as MLIR does\n"
          "(--strict --allow-unregistered-dialect keeps them in generic form, as mlir-opt does).\n";
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        printUsage(std::cerr);
        return 2;
    }
    std::string cmd = argv[1];
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
        printUsage(std::cout);
        return 0;
    }
    static const std::map<std::string, std::function<int(int, char**)>> commands = {
        {"generate", cmdGenerate},   {"check", cmdCheck},       {"convert", cmdConvert},
        {"propagate", cmdPropagate}, {"trace", cmdTrace},       {"explain", cmdExplain},
        {"partition", cmdPartition}, {"lint", cmdLint},         {"diff", cmdDiff},
        {"interpret", cmdInterpret}, {"explicit", cmdExplicit}, {"annotate", cmdAnnotate},
        {"validate", cmdValidate}};
    auto it = commands.find(cmd);
    if (it == commands.end()) {
        std::cerr << "shardx-cli: error: unknown command '" << cmd << "'\n";
        printUsage(std::cerr);
        return 2;
    }
    return it->second(argc, argv);
}
