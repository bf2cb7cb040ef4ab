// Helpers shared by the io tests: files, the shared conformance folder, parsing, op lookup.
#pragma once

#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "core/io/MlirReader.h"
#include "core/ir/Module.h"

namespace shardx::testing {

/// The whole file (empty when it cannot be read).
inline std::string readFile(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// ../shared next to the source tree, or $SHARDX_SHARED_DIR.
inline std::filesystem::path sharedDir()
{
    if (const char* env = std::getenv("SHARDX_SHARED_DIR"))
        return std::filesystem::path(env);
    return std::filesystem::path(SHARDX_SOURCE_DIR).parent_path() / "shared";
}

/// Blanks every `//` comment outside strings as the conformance runner does (line numbers kept).
inline std::string blankComments(const std::string& text)
{
    std::string out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        bool inString = false;
        for (size_t i = 0; i < line.size(); ++i) {
            if (line[i] == '"' && (i == 0 || line[i - 1] != '\\'))
                inString = !inString;
            if (!inString && line.compare(i, 2, "//") == 0) {
                line.resize(i);
                break;
            }
        }
        out += line + '\n';
    }
    return out;
}

/// Parses `text`, warning with the diagnostics when it fails.
inline std::unique_ptr<ir::Module> parseOk(const std::string& text, const io::ReadOptions& opts = {})
{
    DiagnosticList diags;
    auto m = io::parseMlir(text, "t.mlir", diags, opts);
    if (!m)
        qWarning("%s", diags.formatAll().c_str());
    return m;
}

/// The first op named `name` in a walk of the module, or nullptr.
inline ir::Op* firstOp(ir::Module& m, const std::string& name)
{
    ir::Op* found = nullptr;
    m.op().walk([&](ir::Op* op) {
        if (!found && op->name() == name)
            found = op;
    });
    return found;
}

} // namespace shardx::testing
