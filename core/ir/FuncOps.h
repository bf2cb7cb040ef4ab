// FuncOps: typed accessors of the attributes of func.func, func.call and other symbol ops.
#pragma once

#include <optional>
#include <string>

#include "core/ir/Operation.h"

namespace shardx::ir {

// Attribute names, for code that needs the name itself (presence checks, printers' elided lists).
inline constexpr char kSymNameAttr[] = "sym_name";
inline constexpr char kSymVisibilityAttr[] = "sym_visibility";
inline constexpr char kFunctionTypeAttr[] = "function_type";
inline constexpr char kArgAttrsAttr[] = "arg_attrs";
inline constexpr char kResAttrsAttr[] = "res_attrs";
inline constexpr char kCalleeAttr[] = "callee";

/// `sym_name` of a func.func, sdy.mesh or builtin.module (any symbol op); empty when absent or
/// not a StringAttr.
std::string symbolName(const Op& op);
/// Sets `sym_name` to a StringAttr `name`.
void setSymbolName(Op& op, const std::string& name);

/// `sym_visibility` ("private", "public", "nested"), or nullopt when absent or not a StringAttr.
std::optional<std::string> symbolVisibility(const Op& op);
/// Sets `sym_visibility` to a StringAttr `visibility`.
void setSymbolVisibility(Op& op, const std::string& visibility);
/// True when `sym_visibility` is "private".
bool isPrivateSymbol(const Op& op);

/// The function type of a func.func (`function_type`); a default Type when absent or malformed.
Type funcType(const Op& func);
/// Sets `function_type` of a func.func.
void setFuncType(Op& func, Type type);

/// Argument / result attribute dictionary of a func.func (empty list when none).
NamedAttrList funcArgAttrs(const Op& func, unsigned i);
NamedAttrList funcResultAttrs(const Op& func, unsigned i);
/// Sets / removes entry `name` of the dictionary of argument (result) `i`; the array is dropped
/// when every dictionary becomes empty.
void setFuncArgAttr(Op& func, unsigned i, const std::string& name, AttrPtr value);
void setFuncResultAttr(Op& func, unsigned i, const std::string& name, AttrPtr value);
void removeFuncArgAttr(Op& func, unsigned i, const std::string& name);
void removeFuncResultAttr(Op& func, unsigned i, const std::string& name);
/// removeFuncArgAttr (removeFuncResultAttr) of every argument (result) at once: one rewrite of
/// the array, where a call per argument rewrites it once per argument.
void removeEveryFuncArgAttr(Op& func, const std::string& name);
void removeEveryFuncResultAttr(Op& func, const std::string& name);
/// Entry `name` of the dictionary of argument (result) `i`, without copying the dictionary;
/// nullptr when absent or when `arg_attrs` (`res_attrs`) is malformed.
const Attribute* funcArgAttr(const Op& func, unsigned i, std::string_view name);
const Attribute* funcResultAttr(const Op& func, unsigned i, std::string_view name);

/// The `callee` of a func.call, as written (`@f` or `@a::@b`); nullptr when absent, not a
/// SymbolRefAttr or empty.
const SymbolRefAttr* calleeRef(const Op& call);
/// The called function's name (the leaf of `callee`), or nullopt when calleeRef is null.
std::optional<std::string> calleeName(const Op& call);
/// Makes a func.call call the top-level function `name`.
void setCalleeName(Op& call, const std::string& name);

} // namespace shardx::ir
