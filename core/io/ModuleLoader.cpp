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

bool readFileText(const std::string& path, std::string& out)
{
    if (path == "-") {
        out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
        return true;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
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
