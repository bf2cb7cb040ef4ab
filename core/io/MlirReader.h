// MLIR text reader: func / stablehlo / sdy text (conformance units and real exports) into ir::Module.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/ir/Module.h"
#include "core/support/Diagnostic.h"

namespace shardx::io {

/// The deepest nesting of regions, ops, attributes, types and locations the readers accept (MLIR text and
/// JSON documents); deeper input is an error, not a stack overflow.
constexpr int kMaxNestingDepth = 200;

struct ReadOptions {
    /// Keep ops of unknown dialects (printed generically) instead of rejecting them.
    bool allowUnregisteredDialects = false;
    /// Viewer tolerance (shardx-cli, the GUI): what allowUnregisteredDialects keeps, and besides
    /// every op written in a custom form shardx does not know (an op of a dialect it does not
    /// know, or an op its dialect does not define) is kept as written (ir::OpaqueSyntax): its
    /// text is printed back unchanged, the values it names are its operands, its result types
    /// come from its trailing `: type` signature (else from the first use that names them).
    /// Each such op gets a warning. mlir-opt and shardx-opt are strict: this is off there.
    bool keepUnknownOps = false;
    /// Line of the file on which the text starts (a part of a split file, SplitInput.h, starts
    /// further down): every position, in diagnostics and in the ops read, is a line of the file.
    int firstLine = 1;
};

/// Parses `text` (the contents of `fileName`). Stops at the first syntax error, which is
/// reported in `diags` as `fileName:line:col` with what was expected and what was found.
/// Returns nullptr on error. Never crashes or hangs on malformed input.
std::unique_ptr<ir::Module> parseMlir(std::string_view text, const std::string& fileName, DiagnosticList& diags,
                                      const ReadOptions& options = {});

/// Parses one attribute written alone (e.g. `#sdy.sharding<@m, [{"a"}]>`), for tests and tools.
ir::AttrPtr parseAttribute(std::string_view text, DiagnosticList& diags, const ReadOptions& options = {});
/// Parses one type written alone (e.g. `tensor<8x?xf32>`).
bool parseType(std::string_view text, ir::Type& out, DiagnosticList& diags, const ReadOptions& options = {});

} // namespace shardx::io
