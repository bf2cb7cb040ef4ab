// String spellings shared by every layer: MLIR string literals and symbol references.
#pragma once

#include <string>
#include <string_view>

namespace shardx {

/// Quote-escape a string as MLIR prints string literals ("..." with \\ and \XX escapes).
std::string quoteString(const std::string& s);
/// True for identifiers MLIR prints bare: `[A-Za-z_][A-Za-z0-9_$.]*`.
bool isBareIdentifier(const std::string& s);
/// A symbol reference as MLIR prints it: `@name` or `@"odd name"`.
std::string symbolRefString(const std::string& name);
/// Byte offset of the first byte of `s` that does not begin a well-formed UTF-8 sequence (overlong forms,
/// surrogates and code points above U+10FFFF are ill-formed, as in Unicode's table 3-7), or npos when all of
/// `s` is UTF-8.
size_t invalidUtf8Offset(std::string_view s);
/// True if all of `s` is well-formed UTF-8.
inline bool isValidUtf8(std::string_view s) { return invalidUtf8Offset(s) == std::string_view::npos; }

} // namespace shardx
