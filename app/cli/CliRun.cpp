// shardx-cli interpret: runs a program's @main (or another entry) on the reference executor or the
// Vulkan back end with the conventions of Shardy's executable tests.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/CliSupport.h"
#include "core/exec/ReferenceExecutor.h"
#include "core/exec/TensorIo.h"
#include "core/exec/Timings.h"
#ifdef SHARDX_HAVE_VULKAN
#include "core/exec/VulkanExecutor.h"
#endif
#include "core/io/ModuleLoader.h"

namespace shardx::cli {

namespace {

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

/// interpretWith, timing every op when --timings asks (a table per device on stdout, after the run's output).
int interpretTimed(exec::ReferenceExecutor& executor, const Args& args)
{
    if (!args.has("timings"))
        return interpretWith(executor, args);
    exec::TimingRecorder timings;
    timings.setDefault(executor.name(), "cpu");
    exec::RunHooks hooks;
    hooks.timings = &timings;
    executor.setHooks(hooks);
    const int rc = interpretWith(executor, args);
    executor.setHooks(exec::RunHooks{});
    const std::vector<exec::DeviceTimings> result = timings.result();
    if (!result.empty())
        std::cout << exec::timingsText(result, 0);
    return rc;
}

} // namespace

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
                     "                            [--save-results DIR] [--backend reference|vulkan] [--devices 0,1]\n"
                     "                            [--timings]\n";
        return 2;
    }
    const std::string backend = args.get("backend", "reference");
    std::unique_ptr<exec::ReferenceExecutor> executor;
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
    const int rc = interpretTimed(*executor, args);
#ifdef SHARDX_HAVE_VULKAN
    // Where the ops ran, once any did (a file that does not open runs nothing).
    if (auto* vulkan = dynamic_cast<exec::VulkanExecutor*>(executor.get());
        vulkan && vulkan->stats().deviceCount() + vulkan->stats().fallbackCount() > 0)
        std::cerr << "vulkan: " << vulkan->stats().summary() << "\n";
#endif
    return rc;
}

} // namespace shardx::cli
