// shardx-cli validate: propagates and partitions a program, runs the global program on the reference executor and
// the per-device programs on the chosen back end, and compares what they compute (core/exec/Validation.h).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/CliSupport.h"
#include "core/exec/ReferenceExecutor.h"
#include "core/exec/TensorIo.h"
#include "core/exec/Validation.h"
#ifdef SHARDX_HAVE_VULKAN
#include "core/exec/VulkanExecutor.h"
#endif

namespace shardx::cli {

namespace {

const char kValidateUsage[] =
    "usage: shardx-cli validate FILE [--strategy S] [--mesh 2x2 | --mesh AXIS=N,...] [--backend reference|vulkan]\n"
    "                           [--devices 0,1] [--seed N | --inputs A.npy,B.npy] [--intermediates] [--timings]\n"
    "                           [--json]\n"
    "                           [--inject-fault collective|swap-shards [--fault-device D] [--fault-collective K]]\n"
    "                           [--part N] [--entry NAME] [-o FILE]\n";

/// `file:line:col: error: message` when the error has a position, else `error: message` (never "error: error:").
std::string valErrorText(const Error& e) { return e.pos.isKnown() ? e.format() : "error: " + e.message; }

/// Prints `report` (text or --json, with `note` when there is one); the exit status (0 match, 1 mismatch, 2
/// could not write).
int printValidation(exec::ValidationReport& report, const Args& args, const std::string& note)
{
    std::string out;
    if (args.has("json")) {
        nlohmann::json j = exec::validationJson(report);
        if (!note.empty())
            j["note"] = note;
        out = j.dump(1) + "\n";
    } else {
        out = args.positional[0] + ": " + exec::validationText(report);
    }
    if (!writeOutput(args, out))
        return 2;
    return report.matches() ? 0 : 1;
}

} // namespace

/// `validate FILE`: see kValidateUsage and the README.
int cmdValidate(int argc, char** argv)
{
    Args args = parseArgs(argc, argv, 2,
                          {"strategy", "mesh", "backend", "devices", "seed", "inputs", "inject-fault", "fault-device",
                           "fault-collective", "part", "entry", "output", "o"});
    exec::ValidationOptions options;
    options.strategy = args.get("strategy", "pipeline");
    options.mesh = args.get("mesh");
    options.entry = args.get("entry", "main");
    options.intermediates = args.has("intermediates");
    options.timings = args.has("timings");
    std::string problem;
    int64_t seed = 0, faultDevice = -1, faultCollective = 0;
    const std::string backend = args.get("backend", "reference");
    if (!findPropagationStrategy(options.strategy))
        problem = "unknown strategy '" + options.strategy + "' (" + propagationStrategyList() + ")";
    else if (backend != "reference" && backend != "vulkan")
        problem = "unknown back end '" + backend + "' (reference or vulkan)";
    else if (args.has("devices") && backend != "vulkan")
        problem = "--devices needs --backend vulkan";
    else if (args.has("seed") && !parseInt(args.get("seed"), seed))
        problem = "--seed expects a non-negative integer";
    else if (args.has("fault-device") && !parseInt(args.get("fault-device"), faultDevice))
        problem = "--fault-device expects a non-negative integer";
    else if (args.has("fault-collective") && !parseInt(args.get("fault-collective"), faultCollective))
        problem = "--fault-collective expects a non-negative integer";
    else if (args.has("inject-fault") && !exec::parseInjectedFault(args.get("inject-fault")))
        problem = "--inject-fault expects collective or swap-shards";
    if (!args.error.empty() || args.positional.size() != 1 || !problem.empty()) {
        if (!args.error.empty())
            std::cerr << "shardx-cli validate: error: " << args.error << "\n";
        if (!problem.empty())
            std::cerr << "shardx-cli validate: error: " << problem << "\n";
        std::cerr << kValidateUsage;
        return 2;
    }
    options.seed = static_cast<uint64_t>(seed);
    options.faultDevice = faultDevice;
    options.faultCollective = faultCollective;
    if (args.has("inject-fault"))
        options.fault = *exec::parseInjectedFault(args.get("inject-fault"));
    if (args.has("inputs")) {
        const std::string list = args.get("inputs");
        for (size_t start = 0; start <= list.size();) {
            size_t comma = list.find(',', start);
            if (comma == std::string::npos)
                comma = list.size();
            auto t = exec::readNpy(list.substr(start, comma - start));
            if (!t) {
                std::cerr << t.error().format() << "\n";
                return 2;
            }
            options.inputs.push_back(std::move(*t));
            start = comma + 1;
        }
    }

    Session session;
    if (!openVerified(session, args.positional[0], args, "validate"))
        return 2;
    const ir::Module& module = *session.sourceModule();

    exec::ReferenceExecutor reference;
    if (backend == "reference") {
        Expected<exec::ValidationReport> report = exec::validate(module, reference, options);
        if (!report) {
            std::cerr << "shardx-cli validate: " << valErrorText(report.error()) << "\n";
            return 2;
        }
        return printValidation(*report, args, {});
    }
    // --backend vulkan. Without a loader or a driver, or when the run fails on the device (device lost, out of
    // device memory), the reference back end's verdict is given with a note, and the exit status is 2.
    std::string failure;
#ifdef SHARDX_HAVE_VULKAN
    exec::VulkanExecutorOptions vkOptions;
    vkOptions.deviceList = args.get("devices");
    auto vulkan = exec::VulkanExecutor::create(vkOptions);
    if (vulkan) {
        Expected<exec::ValidationReport> report = exec::validate(module, **vulkan, options);
        if (report) {
            report->backendSummary = "vulkan: " + (*vulkan)->stats().summary();
            return printValidation(*report, args, {});
        }
        failure = "the run on it failed: " +
                  (report.error().pos.isKnown() ? report.error().format() : report.error().message);
    } else {
        failure = "it is unavailable: " + vulkan.error().message;
    }
#else
    failure = "it is unavailable: this build has no Vulkan back end (configured without shardx_vulkan)";
#endif
    const std::string note = "--backend vulkan: " + failure + "; the verdict below is the reference back end's only";
    std::cerr << "shardx-cli validate: " << note << "\n";
    Expected<exec::ValidationReport> report = exec::validate(module, reference, options);
    if (!report) {
        std::cerr << "shardx-cli validate: " << valErrorText(report.error()) << "\n";
        return 2;
    }
    printValidation(*report, args, note);
    return 2;
}

} // namespace shardx::cli
