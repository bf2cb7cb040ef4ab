// shardx-opt: sdy_opt-compatible driver (parse, verify, run passes, print).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/io/ModuleLoader.h"
#include "core/io/SplitInput.h"
#include "core/ir/Verifier.h"
#include "core/passes/PassRegistry.h"

using namespace shardx;

namespace {

void printUsage(std::ostream& os)
{
    os << "usage: shardx-opt [FILE|-] [flags...]\n"
          "Reads MLIR text (func, stablehlo, sdy) or a shardx JSON document, verifies it, runs the passes named by "
          "the\n"
          "flags in order and prints the module to stdout.\n\n"
          "flags:\n"
          "  -o FILE                      write the output to FILE\n"
          "  -allow-unregistered-dialect  keep ops of unknown dialects (printed generically)\n"
          "  -mlir-print-debuginfo        print loc(...) locations\n"
          "  -mlir-print-op-generic       print every op in the generic form\n"
          "  -split-input-file            split the input on `// -----` lines; each part is read, verified and\n"
          "                               run on its own, the outputs joined with `// -----` lines\n"
          "  -verify-diagnostics          accepted and ignored\n"
          "  -h, --help                   this text\n\n";
    os << "passes (options as -pass=opt=value or \"-pass=opt1=v1 opt2=v2\"):\n";
    if (registeredPasses().empty())
        os << "  (none yet)\n";
    for (const PassInfo& p : registeredPasses()) {
        os << "  -" << p.name << "  " << p.description << "\n";
        for (const std::string& o : p.options)
            os << "      " << o << "=...\n";
    }
}

/// What the driver does with one module's text.
struct Driver {
    io::ReadOptions readOptions;
    io::PrintOptions printOptions;
    std::vector<PassInvocation> passes;

    /// Reads `text` (starting on line `firstLine` of `fileName`), verifies it, runs the passes and
    /// prints the module into `out`. Diagnostics go to stderr; false on error, `out` then empty.
    bool process(std::string_view text, const std::string& fileName, int firstLine, std::string& out) const
    {
        DiagnosticList diags;
        io::ReadOptions read = readOptions;
        read.firstLine = firstLine;
        std::unique_ptr<ir::Module> module = io::loadModuleText(text, fileName, diags, read);
        bool ok = module && !diags.hasErrors();
        if (ok)
            ok = ir::verifyModule(*module, diags);
        for (size_t p = 0; ok && p < passes.size(); ++p) {
            ok = passes[p].pass->run(*module, passes[p].options, diags) && !diags.hasErrors();
            if (ok)
                ok = ir::verifyModule(*module, diags);
        }
        std::cerr << diags.formatAll();
        if (ok)
            out = io::printModule(*module, printOptions);
        // The last part's module is never destroyed: the process exits after printing it, and tearing
        // a 100k-op program down op by op takes a tenth of a second. The part before is freed when the
        // next one is read; the last stays reachable (a static pointer), so leak checkers are content.
        static ir::Module* lastModule = nullptr;
        delete lastModule;
        lastModule = module.release();
        return ok;
    }
};

} // namespace

int main(int argc, char** argv)
{
    std::string inputPath;
    std::string outputPath;
    Driver driver;
    bool splitInput = false;
    bool endOfOptions = false;

    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (!endOfOptions && a == "--") {
            endOfOptions = true;
            continue;
        }
        if (endOfOptions || a.empty() || a[0] != '-' || a == "-") {
            if (!inputPath.empty()) {
                std::cerr << "shardx-opt: error: more than one input file ('" << inputPath << "' and '" << a << "')\n";
                return 2;
            }
            inputPath = a;
            continue;
        }
        std::string flag = a.substr(a.find_first_not_of('-'));
        if (flag == "h" || flag == "help") {
            printUsage(std::cout);
            return 0;
        }
        if (flag == "o") {
            if (i + 1 >= argc) {
                std::cerr << "shardx-opt: error: -o needs a file name\n";
                return 2;
            }
            outputPath = argv[++i];
            continue;
        }
        if (flag == "allow-unregistered-dialect") {
            driver.readOptions.allowUnregisteredDialects = true;
            continue;
        }
        if (flag == "mlir-print-debuginfo") {
            driver.printOptions.printDebugInfo = true;
            continue;
        }
        if (flag == "mlir-print-op-generic") {
            driver.printOptions.genericForm = true;
            continue;
        }
        if (flag == "split-input-file") {
            splitInput = true;
            continue;
        }
        if (flag == "verify-diagnostics")
            continue;
        Expected<PassInvocation> pass = parsePassInvocation(a);
        if (!pass) {
            std::cerr << "shardx-opt: error: " << pass.error().message << " (see --help for the driver flags)\n";
            return 2;
        }
        driver.passes.push_back(std::move(*pass));
    }

    if (inputPath.empty())
        inputPath = "-";
    const std::string fileName = inputPath == "-" ? std::string("<stdin>") : inputPath;
    std::string text;
    if (!io::readFileText(inputPath, text)) {
        std::cerr << inputPath << ": error: cannot open input file '" << inputPath << "'\n";
        return 1;
    }
    // As mlir-opt: with -split-input-file every part is processed, a failed part prints nothing
    // (its markers stay), and the exit status is 1 when any part failed. Without it the whole
    // file is one part, and an error prints nothing.
    std::vector<io::InputPart> parts =
        splitInput ? io::splitInputFile(text) : std::vector<io::InputPart>{io::InputPart{text, 1}};
    std::vector<std::string> modules(parts.size());
    bool ok = true;
    for (size_t i = 0; i < parts.size(); ++i)
        ok = driver.process(parts[i].text, fileName, parts[i].firstLine, modules[i]) && ok;
    if (!ok && !splitInput)
        return 1;
    const std::string out = io::joinSplitOutputs(modules);
    if (outputPath.empty() || outputPath == "-") {
        std::fwrite(out.data(), 1, out.size(), stdout);
    } else {
        std::ofstream f(outputPath, std::ios::binary);
        if (!f || !f.write(out.data(), static_cast<std::streamsize>(out.size()))) {
            std::cerr << "shardx-opt: error: cannot write '" << outputPath << "'\n";
            return 1;
        }
    }
    return ok ? 0 : 1;
}
