// JsonDocument: shardx's own JSON format for a whole module (every op, generically).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/ir/Module.h"
#include "core/support/Diagnostic.h"

namespace shardx::io {

/// The document format version this build writes and the newest it reads.
constexpr int kJsonDocumentVersion = 1;

/// The whole module as `{"format": "shardx", "version": 1, "module": {...}}`.
///
/// `module` holds the `builtin.module` op's `props`, `attrs` and `loc`, its `body` block
/// (`{"args": [...], "ops": [...]}`), `resources` (dialect resource blobs) and `meshes` (a
/// summary of the sdy.mesh ops for consumers; ignored on reading). Each op is
/// `{"name", "operands": [value ids], "results": [{"id", "type", "name"}], "props": {...}, "attrs": {...},
/// "regions": [{"blocks": [{"id", "args": [{"id", "type", "name", "loc"}], "ops": [...]}]}],
/// "successors": [block ids], "loc": <location>}`; empty members are omitted. Value ids are
/// unique integers over the whole module; a value's optional `name` is the SSA name its source
/// gave it (Value::sourceName: `5`, `cst_0`, `x#1`), kept so that users find their own names.
/// Types, attributes and locations use the structured forms of JsonAdapters.h.
nlohmann::json moduleToJson(const ir::Module& module);

/// Reads a document written by moduleToJson. Problems are reported to `diags` as
/// `fileName: error: /json/pointer: what is wrong` and nullptr is returned. Never throws.
std::unique_ptr<ir::Module> moduleFromJson(const nlohmann::json& document, const std::string& fileName,
                                           DiagnosticList& diags);

/// Parses JSON text and reads the document. Syntax errors are reported as
/// `fileName:line:col: error: ...`, the text starting on line `firstLine` of the file. Never throws.
std::unique_ptr<ir::Module> parseJsonDocument(std::string_view text, const std::string& fileName, DiagnosticList& diags,
                                              int firstLine = 1);

/// moduleToJson(module) as text, indented by `indent` spaces (-1: one line), newline-terminated.
/// Invalid UTF-8 outside string attributes (which are hex-encoded) is replaced by U+FFFD.
std::string writeJsonDocument(const ir::Module& module, int indent = 1);

} // namespace shardx::io
