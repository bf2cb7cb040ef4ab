// JsonText: JSON text into nlohmann::json for every reader of the core (documents, traces, rules files).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/support/Expected.h"

namespace shardx {

/// The deepest nesting of arrays and objects parseJsonText() accepts. Far more than any shardx document holds
/// (the readers' own limits on nested attributes, types and regions come first); it keeps a hostile text from
/// being built into a tree whose copies, printing or destruction could exhaust the stack or the memory.
constexpr int kMaxJsonTextDepth = 2000;

/// 1-based line and column of byte offset `offset` (0-based) in `text`, as a position in `fileName`.
SourcePos textPosition(std::string_view text, size_t offset, const std::string& fileName);

/// Parses JSON text. Never throws: a syntax error, a number the parser cannot hold, or nesting deeper than
/// kMaxJsonTextDepth comes back as an Error whose message says what is wrong (nlohmann's explanation without
/// its exception id) at the line and column in `text` where it was found.
Expected<nlohmann::json> parseJsonText(std::string_view text, const std::string& fileName);

} // namespace shardx
