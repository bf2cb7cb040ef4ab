// ModuleLoader: format detection and file reading.
#include "core/io/ModuleLoader.h"

#include <fstream>
#include <iostream>
#include <iterator>

#include "core/io/JsonDocument.h"

namespace shardx::io {

DocumentFormat detectFormat(std::string_view text)
{
    size_t i = text.find_first_not_of(" \t\r\n");
    if (i == std::string_view::npos || text[i] != '{')
        return DocumentFormat::Mlir;
    // `{-# dialect_resources ... #-}` blocks start with '{' too but are MLIR.
    if (i + 1 < text.size() && text[i + 1] == '-')
        return DocumentFormat::Mlir;
    return DocumentFormat::Json;
}

std::unique_ptr<ir::Module> loadModuleText(std::string_view text, const std::string& fileName, DiagnosticList& diags,
                                           const ReadOptions& options)
{
    if (detectFormat(text) == DocumentFormat::Json)
        return parseJsonDocument(text, fileName, diags, options.firstLine);
    return parseMlir(text, fileName, diags, options);
}

namespace {

/// Reads `in` to its end in blocks (a character at a time through istreambuf_iterator cost a tenth
/// of the time of reading a large module); `sizeHint` reserves the string up front when known.
void readStreamBlocks(std::istream& in, std::string& out, std::streamoff sizeHint)
{
    out.clear();
    if (sizeHint > 0)
        out.reserve(static_cast<size_t>(sizeHint));
    char buffer[1 << 16];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0)
        out.append(buffer, static_cast<size_t>(in.gcount()));
}

} // namespace

bool readFileText(const std::string& path, std::string& out)
{
    if (path == "-") {
        readStreamBlocks(std::cin, out, 0);
        return true;
    }
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        return false;
    // The size is a hint only (0 for a pipe or a /proc file): the loop reads to the end either way.
    std::streamoff size = in.tellg();
    in.seekg(0);
    if (!in) {
        in.clear();
        size = 0;
    }
    readStreamBlocks(in, out, size);
    return !in.bad();
}

std::unique_ptr<ir::Module> loadModuleFile(const std::string& path, DiagnosticList& diags, const ReadOptions& options)
{
    std::string text;
    if (!readFileText(path, text)) {
        diags.add(Diagnostic{Severity::Error, SourcePos{path, 0, 0}, "cannot open input file '" + path + "'", {}});
        return nullptr;
    }
    return loadModuleText(text, path == "-" ? std::string("<stdin>") : path, diags, options);
}

} // namespace shardx::io
