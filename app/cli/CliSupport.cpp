// The pieces every shardx-cli subcommand shares (CliSupport.h).
#include "app/cli/CliSupport.h"

#include <fstream>
#include <iostream>

#include "core/io/ModuleLoader.h"

namespace shardx::cli {

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

bool writeOutput(const Args& args, const std::function<void(std::ostream&)>& write)
{
    std::string path = args.get("output", "-");
    if (path == "-") {
        write(std::cout);
        std::cout.flush();
        return true;
    }
    std::ofstream f(path, std::ios::binary);
    if (f)
        write(f);
    if (!f || !f.flush()) {
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

std::vector<void*>& objectsKeptUntilExit()
{
    static auto* kept = new std::vector<void*>;
    return *kept;
}

Session& freshSession(int slot)
{
    static Session* sessions[2] = {};
    delete sessions[slot];
    sessions[slot] = new Session;
    return *sessions[slot];
}

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

bool propagate(Session& session, const std::string& strategy, bool record, const std::string& traceFile,
               bool consumeSource)
{
    PropagationRequest request;
    request.strategy = strategy;
    request.record = record;
    // A binary trace is streamed to its file as propagation runs and not kept in memory.
    request.traceFile = traceFile;
    request.keepTrace = traceFile.empty();
    request.consumeSource = consumeSource;
    PropagationResult result = session.propagate(request);
    std::cerr << result.diagnostics.formatAll();
    return result.ok;
}

} // namespace shardx::cli
