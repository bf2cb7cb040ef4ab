// shardx-cli: the headless front end (generate, check, convert, propagate, explain, partition, lint, diff,
// trace, interpret, explicit, annotate), on the Session API and the executors.
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

#include "core/annotate/ModuleAnnotator.h"
#include "core/exec/ReferenceExecutor.h"
#include "core/exec/TensorIo.h"
#ifdef SHARDX_HAVE_VULKAN
#include "core/exec/VulkanExecutor.h"
#endif
#include "core/explicit/ExplicitComparison.h"
#include "core/explicit/ExplicitTyper.h"
#include "core/generate/ModelGenerator.h"
#include "core/io/MlirPrinter.h"
#include "core/io/ModuleLoader.h"
#include "core/io/SplitInput.h"
#include "core/partition/PartitionDiff.h"
#include "core/session/Session.h"
#include "core/trace/TracePrinter.h"

#include <nlohmann/json.hpp>

using namespace shardx;

namespace {

/// Command-line arguments of one subcommand: positional values and `--name value` options.
struct Args {
    std::vector<std::string> positional;
    std::map<std::string, std::string> options;
    std::string error;

    bool has(const std::string& k) const { return options.count(k) != 0; }
    std::string get(const std::string& k, const std::string& def = {}) const
    {
        auto it = options.find(k);
        return it == options.end() ? def : it->second;
    }
};

Args parseArgs(int argc, char** argv, int first, const std::vector<std::string>& valueOptions)
{
    Args a;
    for (int i = first; i < argc; ++i) {
        std::string s = argv[i];
        if (s.size() > 1 && s[0] == '-' && s != "-") {
            std::string key = s.substr(s.find_first_not_of('-'));
            std::string value;
            size_t eq = key.find('=');
            if (eq != std::string::npos) {
                value = key.substr(eq + 1);
                key = key.substr(0, eq);
            } else if (std::find(valueOptions.begin(), valueOptions.end(), key) != valueOptions.end()) {
                if (i + 1 >= argc) {
                    a.error = "option --" + key + " needs a value";
                    return a;
                }
                value = argv[++i];
            } else {
                value = "true";
            }
            if (key == "o")
                key = "output";
            a.options[key] = value;
        } else {
            a.positional.push_back(s);
        }
    }
    return a;
}

bool writeOutput(const Args& args, const std::string& text)
{
    std::string path = args.get("output", "-");
    if (path == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        return true;
    }
    std::ofstream f(path, std::ios::binary);
    if (!f || !f.write(text.data(), static_cast<std::streamsize>(text.size()))) {
        std::cerr << "shardx-cli: error: cannot write '" << path << "'\n";
        return false;
    }
    return true;
}

bool parseInt(const std::string& text, int64_t& out)
{
    if (text.empty() || text.size() > 12)
        return false;
    out = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            return false;
        out = out * 10 + (c - '0');
    }
    return true;
}

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

/// A file as shardx-cli reads it: MLIR text with `// -----` lines is cut into parts (as mlir-opt's
/// -split-input-file cuts it), each opened on its own; any other file is one part.
/// `--no-split-input-file` reads such a file whole (the markers are then comments).
struct InputFile {
    std::string path;
    std::string text;
    std::vector<io::InputPart> parts;
    bool split = false; ///< the file was cut on marker lines

    /// The file name diagnostics use.
    std::string name() const { return path == "-" ? std::string("<stdin>") : path; }
    /// How a part is named in messages: `FILE (part N, line L)`, or `FILE` for a file read whole.
    std::string partName(size_t index) const
    {
        if (!split)
            return path;
        return path + " (part " + std::to_string(index + 1) + ", line " + std::to_string(parts[index].firstLine) + ")";
    }
};

/// Reads `path` into `file`; prints the error and returns false when it cannot be read.
bool readInput(const std::string& path, const Args& args, InputFile& file)
{
    file.path = path;
    if (!io::readFileText(path, file.text)) {
        std::cerr << path << ": error: cannot open input file '" << path << "'\n";
        return false;
    }
    file.split = !args.has("no-split-input-file") && io::detectFormat(file.text) == io::DocumentFormat::Mlir &&
                 io::hasSplitMarker(file.text);
    file.parts = file.split ? io::splitInputFile(file.text) : std::vector<io::InputPart>{io::InputPart{file.text, 1}};
    return true;
}

/// Opens part `index` of `file` in `session`, printing every problem found (at lines of the whole
/// file); false when it did not open cleanly.
bool openPart(Session& session, const InputFile& file, size_t index, const Args& args)
{
    OpenOptions options;
    options.strict = args.has("strict");
    options.allowUnregisteredDialects = args.has("allow-unregistered-dialect");
    options.firstLine = file.parts[index].firstLine;
    const bool ok = session.openText(file.parts[index].text, file.name(), options);
    std::cerr << session.diagnostics().formatAll();
    return ok;
}

/// Opens the one module a command works on: the whole file, or with `--part N` part N (1-based)
/// of a split file. A split file of several parts needs `--part`.
bool openVerified(Session& session, const std::string& path, const Args& args, const char* command)
{
    InputFile file;
    if (!readInput(path, args, file))
        return false;
    size_t index = 0;
    if (args.has("part")) {
        int64_t n = 0;
        if (!parseInt(args.get("part"), n) || n < 1 || static_cast<size_t>(n) > file.parts.size()) {
            std::cerr << "shardx-cli " << command << ": error: --part must be between 1 and " << file.parts.size()
                      << " for " << path << "\n";
            return false;
        }
        index = static_cast<size_t>(n - 1);
    } else if (file.parts.size() > 1) {
        std::cerr << "shardx-cli " << command << ": error: " << path << " holds " << file.parts.size()
                  << " parts split by `// -----` lines: choose one with --part N (or read the file whole with "
                     "--no-split-input-file)\n";
        return false;
    }
    return openPart(session, file, index, args);
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
            Session session;
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
    Session session;
    if (!openVerified(session, args.positional[0], args, "convert"))
        return 1;
    return writeOutput(args, session.text(args.get("to") == "json" ? Session::Format::Json : Session::Format::Mlir))
               ? 0
               : 1;
}

/// Runs `strategy` in `session`, printing the diagnostics; false on failure.
bool propagate(Session& session, const std::string& strategy, bool record)
{
    PropagationRequest request;
    request.strategy = strategy;
    request.record = record;
    PropagationResult result = session.propagate(request);
    std::cerr << result.diagnostics.formatAll();
    return result.ok;
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
                  << "] [--trace TRACE.json] [-o FILE] [--no-split-input-file]\n";
        if (!known)
            std::cerr << "shardx-cli propagate: error: unknown strategy '" << strategy << "'\n";
        return 2;
    }
    InputFile file;
    if (!readInput(args.positional[0], args, file))
        return 1;
    // As shardx-opt -split-input-file: every part is propagated on its own, a part that fails
    // prints nothing (its markers stay), and the exit status is 1 when any part failed.
    std::vector<std::string> outputs(file.parts.size());
    bool ok = true;
    for (size_t i = 0; i < file.parts.size(); ++i) {
        Session session;
        if (!openPart(session, file, i, args) || !propagate(session, strategy, args.has("trace"))) {
            ok = false;
            continue;
        }
        if (args.has("trace")) {
            const std::string tracePath = partTracePath(args.get("trace"), i, file.parts.size());
            if (Status s = session.saveTrace(tracePath); !s) {
                std::cerr << "shardx-cli: error: " << s.error().message << "\n";
                ok = false;
                continue;
            }
        }
        outputs[i] = session.text();
    }
    if (!file.split) {
        if (!ok)
            return 1;
        return writeOutput(args, outputs[0]) ? 0 : 1;
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
    Session session;
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
        std::cerr << "shardx-cli " << command << ": error: " << model.error().message << "\n";
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
    Session session;
    Expected<PartitionModel> model = Error{};
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
    Session session;
    Expected<PartitionModel> model = Error{};
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
    Session sessionA, sessionB;
    Expected<PartitionModel> modelA = Error{}, modelB = Error{};
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

/// `trace print TRACE.json` and `trace seek TRACE.json STEP [--value ID]`.
int cmdTrace(int argc, char** argv)
{
    Args args = parseArgs(argc, argv, 2, {"value", "output", "o"});
    const std::string verb = args.positional.empty() ? std::string() : args.positional[0];
    if (!args.error.empty() ||
        !((verb == "print" && args.positional.size() == 2) || (verb == "seek" && args.positional.size() == 3))) {
        std::cerr << "usage: shardx-cli trace print TRACE.json [-o FILE]\n"
                     "       shardx-cli trace seek TRACE.json STEP [--value ID]\n";
        return 2;
    }
    Session session;
    if (!session.openTrace(args.positional[1])) {
        std::cerr << session.diagnostics().formatAll();
        return 1;
    }
    const Trace& trace = *session.trace();
    if (verb == "print")
        return writeOutput(args, printTrace(trace)) ? 0 : 1;

    int64_t step = 0;
    if (!parseInt(args.positional[2], step) || static_cast<size_t>(step) > trace.numSteps()) {
        std::cerr << "shardx-cli trace seek: error: STEP must be between 0 and " << trace.numSteps() << "\n";
        return 2;
    }
    session.seek(static_cast<size_t>(step));
    std::string out = "after step " + std::to_string(step) + " of " + std::to_string(trace.numSteps()) + "\n";
    std::vector<int> values;
    if (args.has("value")) {
        Expected<int> v = session.findValue(args.get("value"));
        if (!v) {
            std::cerr << "shardx-cli trace seek: error: " << v.error().message << "\n";
            return 1;
        }
        values.push_back(*v);
    } else {
        for (size_t v = 0; v < trace.values().size(); ++v)
            values.push_back(static_cast<int>(v));
    }
    for (int v : values) {
        const TraceValue& tv = trace.values()[static_cast<size_t>(v)];
        const TensorSharding* s = session.shardingAt(v);
        out += tv.id + " (" + tv.displayName + "): " + (s ? s->toString() : std::string("<no sharding>")) + "\n";
    }
    return writeOutput(args, out) ? 0 : 1;
}

/// Runs `entry`, a function with parameters or results, on inputs from .npy files or a seed; prints
/// each result (and writes it as RESULTS/result<i>.npy on request).
int interpretFunction(const ir::Module& module, const ir::Op& entry, const Args& args, exec::Executor& executor)
{
    const std::string name = args.get("entry", "main");
    const ir::Type type = ir::funcType(entry);
    std::vector<std::string> files;
    if (args.has("inputs")) {
        std::string list = args.get("inputs");
        for (size_t start = 0; start <= list.size();) {
            size_t comma = list.find(',', start);
            if (comma == std::string::npos)
                comma = list.size();
            files.push_back(list.substr(start, comma - start));
            start = comma + 1;
        }
        if (files.size() != type.elements().size()) {
            std::cerr << "shardx-cli interpret: error: @" << name << " takes " << type.elements().size()
                      << " arguments, --inputs names " << files.size() << " files\n";
            return 2;
        }
    }
    int64_t seed = 0;
    if (args.has("seed") && !parseInt(args.get("seed"), seed)) {
        std::cerr << "shardx-cli interpret: error: --seed expects a non-negative integer\n";
        return 2;
    }
    std::vector<exec::Tensor> inputs;
    for (size_t i = 0; i < type.elements().size(); ++i) {
        std::string error;
        auto zero = exec::zeroTensorOfType(type.elements()[i], error);
        if (!zero) {
            std::cerr << "shardx-cli interpret: error: argument " << i << " of @" << name << ": " << error << "\n";
            return 1;
        }
        if (files.empty()) {
            inputs.push_back(exec::randomTensor(zero->elementType(), zero->shape(), static_cast<uint64_t>(seed) + i));
            continue;
        }
        auto t = exec::readNpy(files[i]);
        if (!t) {
            std::cerr << t.error().format() << "\n";
            return 1;
        }
        if (!t->sameShapeAndType(*zero)) {
            std::cerr << files[i] << ": error: holds " << t->typeString() << ", argument " << i << " of @" << name
                      << " is " << zero->typeString() << "\n";
            return 1;
        }
        inputs.push_back(std::move(*t));
    }
    auto results = executor.runFunction(module, name, inputs);
    if (!results) {
        std::cerr << results.error().format() << "\n";
        return 1;
    }
    const std::string dir = args.get("save-results");
    for (size_t i = 0; i < results->size(); ++i) {
        const exec::Tensor& t = (*results)[i];
        std::cout << "result " << i << ": " << t.typeString() << " " << t.toString(16) << "\n";
        if (!dir.empty()) {
            const std::string file = dir + "/result" + std::to_string(i) + ".npy";
            if (Status st = exec::writeNpy(file, t); !st) {
                std::cerr << st.error().format() << "\n";
                return 1;
            }
        }
    }
    return 0;
}

int interpretWith(exec::Executor& executor, const Args& args);

/// `interpret FILE`: runs @main of a file of functions with the interpreter conventions of Shardy's
/// executable tests (interpreter.run_parallel, check.*); exit 0 iff it ran and every check held. An
/// entry with parameters or results runs on inputs from .npy files or a seed and prints its results.
int cmdInterpret(int argc, char** argv)
{
    Args args = parseArgs(argc, argv, 2, {"backend", "devices", "entry", "seed", "inputs", "save-results"});
    if (!args.error.empty() || args.positional.size() != 1) {
        if (!args.error.empty())
            std::cerr << "shardx-cli interpret: error: " << args.error << "\n";
        std::cerr << "usage: shardx-cli interpret FILE [--entry NAME] [--seed N | --inputs A.npy,B.npy]\n"
                     "                            [--save-results DIR] [--backend reference|vulkan] [--devices 0,1]\n";
        return 2;
    }
    const std::string backend = args.get("backend", "reference");
    std::unique_ptr<exec::Executor> executor;
    if (backend == "reference") {
        executor = std::make_unique<exec::ReferenceExecutor>();
    } else if (backend == "vulkan") {
#ifdef SHARDX_HAVE_VULKAN
        exec::VulkanExecutorOptions options;
        options.deviceList = args.get("devices");
        auto vulkan = exec::VulkanExecutor::create(options);
        if (!vulkan) {
            std::cerr << "shardx-cli interpret: error: --backend vulkan: " << vulkan.error().message << "\n";
            return 2;
        }
        executor = std::move(*vulkan);
#else
        std::cerr << "shardx-cli interpret: error: --backend vulkan: this build has no Vulkan back end "
                     "(configured without shardx_vulkan)\n";
        return 2;
#endif
    } else {
        std::cerr << "shardx-cli interpret: error: unknown back end '" << backend << "' (reference or vulkan)\n";
        return 2;
    }
    if (args.has("devices") && backend != "vulkan") {
        std::cerr << "shardx-cli interpret: error: --devices needs --backend vulkan\n";
        return 2;
    }
    const int rc = interpretWith(*executor, args);
#ifdef SHARDX_HAVE_VULKAN
    if (auto* vulkan = dynamic_cast<exec::VulkanExecutor*>(executor.get()))
        std::cerr << "vulkan: " << vulkan->stats().summary() << "\n";
#endif
    return rc;
}

/// The rest of `interpret`, on the chosen executor.
int interpretWith(exec::Executor& executor, const Args& args)
{
    const std::string path = args.positional[0];
    std::string text;
    if (!io::readFileText(path, text)) {
        std::cerr << path << ": error: cannot open input file '" << path << "'\n";
        return 2;
    }
    // Ops of the interpreter's own dialects (interpreter.*, check.*) are unknown to the reader: it
    // keeps them, in generic or custom form, as a viewer does; only errors are reported.
    io::ReadOptions read;
    read.allowUnregisteredDialects = true;
    read.keepUnknownOps = true;
    DiagnosticList diags;
    auto module = io::parseMlir(text, path == "-" ? std::string("<stdin>") : path, diags, read);
    for (const Diagnostic& d : diags.all())
        if (d.severity == Severity::Error)
            std::cerr << d.format() << "\n";
    if (!module)
        return 1;
    const std::string entry = args.get("entry", "main");
    const ir::Op* func = module->findFunc(entry);
    if (!func) {
        std::cerr << module->fileName << ": error: no function @" << entry << " to run\n";
        return 1;
    }
    const ir::Type type = ir::funcType(*func);
    if (!type.elements().empty() || !type.results().empty())
        return interpretFunction(*module, *func, args, executor);
    auto report = executor.interpret(*module, entry);
    if (!report) {
        std::cerr << report.error().format() << "\n";
        return 1;
    }
    for (const Diagnostic& d : report->failures)
        std::cerr << d.format() << "\n";
    if (!report->passed()) {
        std::cerr << report->failures.size() << " of " << report->checksRun << " checks failed\n";
        return 1;
    }
    std::cout << report->checksRun << " checks passed\n";
    return 0;
}

/// `explicit FILE [--axes X=explicit,Y=auto] [--mesh M] [--compare [--strategy S]] [--json]`: every
/// value's type in JAX's explicit sharding mode and every trace-time error.
int cmdExplicit(int argc, char** argv)
{
    Args args = parseArgs(argc, argv, 2, {"axes", "mesh", "strategy", "output", "o", "part"});
    const std::string strategy = args.get("strategy", "pipeline");
    if (!args.error.empty() || args.positional.size() != 1 || !findPropagationStrategy(strategy)) {
        std::cerr << "usage: shardx-cli explicit FILE [--axes X=explicit,Y=auto,Z=manual] [--mesh NAME] [--compare "
                     "[--strategy S]] [--json] [--part N] [-o FILE]\n";
        if (!args.error.empty())
            std::cerr << "shardx-cli explicit: error: " << args.error << "\n";
        return 2;
    }
    explicit_::ExplicitOptions options;
    if (args.has("axes")) {
        Expected<explicit_::AxisTypeOverrides> axes = explicit_::parseAxisTypeOverrides(args.get("axes"));
        if (!axes) {
            std::cerr << "shardx-cli explicit: error: --axes: " << axes.error().message << "\n";
            return 2;
        }
        options.axisTypes = *axes;
    }
    options.meshName = args.get("mesh");
    Session session;
    if (!openVerified(session, args.positional[0], args, "explicit"))
        return 1;
    if (!options.meshName.empty() && !session.sourceModule()->findMesh(options.meshName)) {
        std::cerr << "shardx-cli explicit: error: the module has no mesh @" << options.meshName << "\n";
        return 2;
    }
    options.ids = session.ids();
    const explicit_::ExplicitResult result = explicit_::typeModule(*session.sourceModule(), options);
    std::cerr << result.diagnostics.formatAll();
    std::vector<explicit_::TypeDifference> differences;
    if (args.has("compare")) {
        if (!propagate(session, strategy, false))
            return 1;
        differences = explicit_::compareWithPropagated(result, *session.module());
    }
    std::string out;
    if (args.has("json")) {
        nlohmann::json j;
        j["mesh"] = result.meshName;
        j["abstract_mesh"] = result.axisTypes.toString(result.mesh);
        j["axis_types"] = nlohmann::json::array();
        for (size_t i = 0; i < result.axisTypes.axes.size(); ++i)
            j["axis_types"].push_back({{"axis", result.axisTypes.axes[i]},
                                       {"type", explicit_::axisTypeName(result.axisTypes.types[i])},
                                       {"source", result.axisTypes.sources[i]}});
        j["values"] = nlohmann::json::array();
        for (const explicit_::TypedValue& v : result.values)
            j["values"].push_back({{"func", v.func},
                                   {"name", v.name},
                                   {"op", v.opName},
                                   {"type", v.type ? nlohmann::json(v.type->toString()) : nlohmann::json()},
                                   {"how", v.how},
                                   {"line", v.pos.line},
                                   {"col", v.pos.col}});
        j["errors"] = nlohmann::json::array();
        for (const Diagnostic& d : result.diagnostics.all())
            j["errors"].push_back({{"severity", severityName(d.severity)},
                                   {"file", d.pos.file},
                                   {"line", d.pos.line},
                                   {"col", d.pos.col},
                                   {"message", d.message}});
        if (args.has("compare")) {
            j["differences"] = nlohmann::json::array();
            for (const explicit_::TypeDifference& d : differences)
                j["differences"].push_back({{"func", d.func},
                                            {"name", d.name},
                                            {"type", d.type.toString()},
                                            {"propagated", d.concrete},
                                            {"sharding", d.sharding},
                                            {"more_specific", d.moreSpecific},
                                            {"reason", d.reason}});
        }
        out = j.dump(1) + "\n";
    } else {
        out = explicit_::printTypes(result);
        if (args.has("compare")) {
            out += differences.empty() ? "Shardy's propagation (" + strategy + ") agrees with every type\n"
                                       : "differences from Shardy's propagation (" + strategy + "):\n";
            for (const explicit_::TypeDifference& d : differences)
                out += d.func + " " + d.name + ": type " + d.type.toString() + ", propagated " + d.concrete + " (" +
                       d.sharding + "): " + d.reason + "\n";
        }
    }
    if (!writeOutput(args, out))
        return 1;
    return result.ok() ? 0 : 1;
}

/// `annotate FILE --rules RULES.json [--devices N] [--propagate [--strategy S]] [-o FILE]`: shardings
/// of the public functions' arguments from scalax-style rules.
int cmdAnnotate(int argc, char** argv)
{
    Args args = parseArgs(argc, argv, 2, {"rules", "devices", "strategy", "output", "o", "part"});
    const std::string strategy = args.get("strategy", "pipeline");
    int64_t devices = 0;
    const bool devicesOk = !args.has("devices") || (parseInt(args.get("devices"), devices) && devices > 0);
    if (!args.error.empty() || args.positional.size() != 1 || !args.has("rules") || !devicesOk ||
        !findPropagationStrategy(strategy)) {
        std::cerr << "usage: shardx-cli annotate FILE --rules RULES.json [--devices N] [--propagate [--strategy S]] "
                     "[-o FILE]\n";
        if (!devicesOk)
            std::cerr << "shardx-cli annotate: error: --devices expects a positive integer\n";
        return 2;
    }
    std::string rulesText;
    if (!io::readFileText(args.get("rules"), rulesText)) {
        std::cerr << args.get("rules") << ": error: cannot open rule file '" << args.get("rules") << "'\n";
        return 1;
    }
    Expected<annotate::RuleSet> rules = annotate::parseRuleSet(rulesText, args.get("rules"));
    if (!rules) {
        std::cerr << rules.error().format() << "\n";
        return 1;
    }
    Session session;
    if (!openVerified(session, args.positional[0], args, "annotate"))
        return 1;
    std::unique_ptr<ir::Module> module = session.sourceModule()->clone();
    annotate::AnnotateOptions options;
    options.devices = devices;
    const annotate::AnnotateResult result = annotate::annotateModule(*module, *rules, options);
    std::cerr << result.diagnostics.formatAll();
    if (!result.mesh.axes().empty())
        std::cerr << annotate::printAnnotations(result);
    if (!result.ok())
        return 1;
    io::PrintOptions print;
    print.printDebugInfo = true;
    std::string text = io::printModule(*module, print);
    if (args.has("propagate")) {
        Session annotated;
        if (!annotated.openText(text, session.path())) {
            std::cerr << annotated.diagnostics().formatAll();
            return 1;
        }
        if (!propagate(annotated, strategy, false))
            return 1;
        text = annotated.text();
    }
    return writeOutput(args, text) ? 0 : 1;
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
          "           [--trace TRACE.json] [-o FILE]\n"
          "                     propagate shardings as Shardy does, optionally recording the trace\n"
          "                     (each part of a split file on its own: one trace per part, TRACE.partN.json)\n"
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
          "  annotate FILE --rules RULES.json [--devices N] [--propagate [--strategy S]] [-o FILE]\n"
          "                     shard the arguments by scalax-style rules (mesh helper, fsdp, tree_path,\n"
          "                     policy) matched on the names JAX gives them; lists which rule matched each\n"
          "  trace print TRACE.json            every step and decision of a recorded trace\n"
          "  trace seek TRACE.json STEP [--value VALUE]\n"
          "                     the sharding of every value (or one) after STEP steps\n"
          "  check FILE...      parse and verify MLIR or shardx JSON files, reporting every problem\n"
          "                     (one line per part of a split file)\n"
          "  convert FILE --to json|mlir [--part N] [-o FILE]\n"
          "                     convert between MLIR text and shardx's JSON document format\n"
          "  interpret FILE [--entry NAME] [--seed N | --inputs A.npy,...] [--save-results DIR]\n"
          "                   [--backend reference|vulkan] [--devices 0,1]\n"
          "                     run @main (no module wrapper needed) with StableHLO semantics on the CPU:\n"
          "                     interpreter.run_parallel runs a grid of processes with collectives between\n"
          "                     them, check.expect_eq compares exactly; exit 0 iff every check held. An\n"
          "                     entry with parameters runs on seeded or .npy inputs and prints its results\n\n"
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
        {"interpret", cmdInterpret}, {"explicit", cmdExplicit}, {"annotate", cmdAnnotate}};
    auto it = commands.find(cmd);
    if (it == commands.end()) {
        std::cerr << "shardx-cli: error: unknown command '" << cmd << "'\n";
        printUsage(std::cerr);
        return 2;
    }
    return it->second(argc, argv);
}
