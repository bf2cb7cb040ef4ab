// Internal interface shared by the MLIR printer's files (not part of the public API).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/io/MlirPrinter.h"
#include "core/ir/Module.h"
#include "core/ir/SsaNames.h"
#include "core/support/StringUtil.h"

namespace shardx::io::detail {

/// Appends `"..."` with MLIR's escapes (`\\`, `\22`, `\0A`...).
void appendQuoted(std::string& out, const std::string& s);
/// Appends a symbol reference `@name` / `@"odd name"`.
void appendSymbol(std::string& out, const std::string& name);

/// How much of an attribute's type may be left out (MLIR's AttrTypeElision).
enum class TypeElision { Never, May };
void appendAttribute(std::string& out, const ir::Attribute& attr, TypeElision elision = TypeElision::Never);
void appendType(std::string& out, const ir::Type& type);
/// A float as MLIR prints an APFloat of `elementType` (f16, bf16, f32, f64).
void appendFloat(std::string& out, double value, const std::string& elementType);
/// An integer of `elementType` (unsigned types print unsigned, i1 as true/false).
void appendInteger(std::string& out, int64_t value, const std::string& elementType);
/// `dense<...>` without the trailing type.
void appendDenseLiteral(std::string& out, const ir::DenseElementsAttr& dense);
/// `name = value` (or just `name` for a unit attribute).
void appendNamedAttribute(std::string& out, const ir::NamedAttribute& attr);
/// `loc(...)`.
void appendLocation(std::string& out, const ir::LocationAttr& loc);

/// The op printer: SSA naming state plus the output buffer.
class Printer {
public:
    /// `sink`: where text goes as it is printed (null: it all stays in `out`).
    explicit Printer(const PrintOptions& options, std::ostream* sink = nullptr) : m_options(options), m_sink(sink) {}

    /// The text printed so far.
    std::string out;
    /// Current indentation (spaces) of ops in the block being printed.
    int indent = 0;

    void printModule(const ir::Module& module);

    // ---- helpers used by the custom op forms (PrinterOps.cpp) ----
    const PrintOptions& options() const { return m_options; }
    void appendValue(const ir::Value* v);
    void appendValues(const std::vector<ir::Value*>& vs);
    /// `t1, t2` for the given values.
    void appendValueTypes(const std::vector<ir::Value*>& vs);
    /// `(operand types) -> result types` (a single non-function result printed bare).
    void appendFunctionalType(const ir::Op& op);
    void appendFunctionalType(const std::vector<ir::Type>& ins, const std::vector<ir::Type>& outs);
    /// ` {a = 1, b}` over props+attrs minus `elided`; nothing when empty.
    void appendAttrDict(const ir::Op& op, const std::vector<std::string>& elided, bool withKeyword = false);
    /// Prints `{` newline body `}` at the current indent.
    void appendRegion(const ir::Region& region, bool printEntryBlockArgs, bool printBlockTerminators = true,
                      bool printEmptyBlock = false);
    /// `%arg: type {attrs} loc(..)` (a block argument declaration).
    void appendBlockArgDecl(const ir::Value* arg, const ir::NamedAttrList* attrs = nullptr);
    /// The op's trailing location (when printing debug info).
    void appendTrailingLoc(const ir::AttrPtr& loc, const SourcePos& pos = {});

    /// Called by a custom form that can no longer fail (the caller will not roll the text back):
    /// what it prints from now on may be written to the sink as it goes (a function's body).
    void commitCustomForm();
    /// Writes what the sink may have of `out` when enough is pending (after each op).
    void flushToSink();
    /// Writes the rest of `out` to the sink.
    void finishSink();

    /// Custom form of `op` (PrinterOps.cpp); false when it has none or its props do not fit
    /// (the caller then rolls the output back and prints the generic form).
    bool printCustomOp(const ir::Op& op, bool inFuncBody);
    /// Custom forms of sdy ops (PrinterSdyOps.cpp).
    bool printSdyOp(const ir::Op& op);
    /// `module @name attributes {..} {..}`; false when the op does not fit that form.
    bool printModuleOp(const ir::Op& op);
    /// Custom forms of func ops (PrinterFuncOps.cpp).
    bool printFuncOp(const ir::Op& op, bool inFuncBody);
    /// `func.constant` and `func.call_indirect` (PrinterFuncOps.cpp); `prefix` is "func." or ""
    /// inside a function body.
    bool printFuncConstantOrCallIndirect(const ir::Op& op, const std::string& prefix);
    /// The `%a, key = value {attrs} : (T..) -> R` StableHLO forms of io/StablehloForms.h
    /// (PrinterStablehloForms.cpp).
    bool printFunctionalFormOp(const ir::Op& op);

private:
    void printOp(const ir::Op& op, bool inFuncBody);
    void printGenericOp(const ir::Op& op);
    void printBlock(const ir::Block& block, bool printHeader, bool printTerminator, bool inFuncBody);
    void appendBlockName(const ir::Block* b);
    void appendResultList(const ir::Op& op);

    const PrintOptions& m_options;
    std::ostream* m_sink = nullptr;
    uint64_t m_flushed = 0; ///< bytes of text written to the sink (cut from the front of `out`)
    /// Where each custom form being tried began (stream offsets): text from there on may still be
    /// rolled back, so it stays in `out`; kNoRollback once the form is committed.
    std::vector<uint64_t> m_rollbackMarks;
    static constexpr uint64_t kNoRollback = UINT64_MAX;
    /// The SSA and block names of the module being printed.
    std::optional<ir::SsaNames> m_names;
};

/// Attribute helpers for custom forms.
const ir::Attribute* findProp(const ir::Op& op, const std::string& name);
/// Integer list of a DenseArrayAttr / ArrayAttr of ints / DenseElementsAttr of ints.
bool intList(const ir::Attribute* a, std::vector<int64_t>& out);
bool intValue(const ir::Attribute* a, int64_t& out);
bool boolValue(const ir::Attribute* a, bool& out);
/// Keyword of an enum attribute: `#stablehlo<comparison_direction GT>` -> "GT"; a string attr's value.
bool enumKeyword(const ir::Attribute* a, std::string& out);

} // namespace shardx::io::detail
