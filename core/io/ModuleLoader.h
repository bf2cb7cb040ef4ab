// ModuleLoader: reads a module from a file or text in either format (MLIR text or shardx JSON).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/io/MlirReader.h"
#include "core/ir/Module.h"
#include "core/support/Diagnostic.h"

namespace shardx::io {

enum class DocumentFormat { Mlir, Json };

/// JSON when the first non-blank character is '{' and the text names the shardx format;
/// MLIR text otherwise (an MLIR module starts with `module`, an op, or `#alias =`).
DocumentFormat detectFormat(std::string_view text);

/// Parses `text` in its detected format. Problems go to `diags`; nullptr on failure.
std::unique_ptr<ir::Module> loadModuleText(std::string_view text, const std::string& fileName, DiagnosticList& diags,
                                           const ReadOptions& options = {});

/// Reads and parses `path` ("-" reads standard input). A file that cannot be read is reported
/// as `path: error: cannot open ...`.
std::unique_ptr<ir::Module> loadModuleFile(const std::string& path, DiagnosticList& diags,
                                           const ReadOptions& options = {});

/// Reads a whole file (or standard input for "-") into `out`; false if it cannot be read.
bool readFileText(const std::string& path, std::string& out);

} // namespace shardx::io
