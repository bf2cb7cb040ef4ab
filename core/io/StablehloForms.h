// StablehloForms: the `operands, key = value : functional-type` StableHLO op forms, shared by the
// reader (ReaderStablehloForms.cpp) and the printer (PrinterStablehloForms.cpp).
#pragma once

#include <string>
#include <vector>

namespace shardx::io::detail {

/// How the value after `key =` is written.
enum class FormValue {
    I64List, ///< `[1, 2]`, a DenseArrayAttr i64
    I64,     ///< `3`, an IntegerAttr i64
    Enum,    ///< ` NORMAL` (printed after two spaces), an OpaqueAttr "<enumName> NORMAL"
    String,  ///< `"ab->a"`, a StringAttr
};

/// One `%a, %b, key = value {attrs} : (T..) -> R` op form.
struct KeywordForm {
    const char* op;   ///< full op name
    const char* key;  ///< keyword written after the operands
    const char* prop; ///< inherent attribute it holds
    FormValue value;
    const char* enumName = nullptr;           ///< enum mnemonic (FormValue::Enum)
    std::vector<const char*> enumValues = {}; ///< accepted keywords (FormValue::Enum)
};

/// The keyword form of op `name`, or nullptr.
const KeywordForm* keywordFormOf(const std::string& name);

/// True for StableHLO ops printed `%a, %b {attrs} : (T..) -> R` with nothing else (dynamic_pad,
/// dynamic_reshape, real_dynamic_slice, uniform_quantize, uniform_dequantize).
bool isOperandsOnlyFunctionalForm(const std::string& name);

/// True for StableHLO ops whose custom form only takes a functional type `(T..) -> R`.
bool requiresFunctionalType(const std::string& name);

} // namespace shardx::io::detail
