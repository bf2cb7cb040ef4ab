// String spellings shared by every layer: MLIR string literals and symbol references.
#pragma once

#include <string>

namespace shardx {

/// Quote-escape a string as MLIR prints string literals ("..." with \\ and \XX escapes).
std::string quoteString(const std::string& s);
/// True for identifiers MLIR prints bare: `[A-Za-z_][A-Za-z0-9_$.]*`.
bool isBareIdentifier(const std::string& s);
/// A symbol reference as MLIR prints it: `@name` or `@"odd name"`.
std::string symbolRefString(const std::string& name);

} // namespace shardx
