// Internal: the MLIR text parser shared by MlirReader.cpp and the Reader*.cpp files (not a public API).
#pragma once

#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/io/MlirLexer.h"
#include "core/io/MlirReader.h"
#include "core/ir/Module.h"
#include "core/support/TaggedSlotIndex.h"

namespace shardx::io::detail {

using ir::AttrPtr;
using ir::Op;
using ir::Type;
using ir::Value;
using Kind = Token::Kind;

/// Thrown after the first diagnostic has been recorded; caught at the API boundary.
struct ParseFailure {};
struct KeywordForm;

/// `%name` or `%name#3` as written at a use. `name` views the source text (alive for the parse).
struct OperandRef {
    std::string_view name;
    unsigned index = 0;
    size_t offset = 0; ///< where it is written (posOf gives the SourcePos when a diagnostic needs it)
};

/// One entry of a result list `%a, %b:2 =`. `name` views the source text (alive for the parse).
struct ResultDef {
    std::string_view name;
    unsigned count = 1;
    size_t offset = 0; ///< where it is written (posOf gives the SourcePos)
};

/// A parsed `dense<...>` literal before its type is known.
struct DenseLiteral {
    struct Elem {
        enum class K { Int, Float, Bool, Complex, String } k = K::Int;
        bool neg = false;
        uint64_t mag = 0;    ///< Int magnitude
        bool hexInt = false; ///< written as 0x... (bit pattern for floats)
        double f = 0;        ///< Float
        bool b = false;
        double re = 0, im = 0; ///< Complex (parts as doubles)
        bool complexInt = false;
        int64_t reI = 0, imI = 0;
        std::string s;
        size_t tokBegin = 0;
    };
    std::vector<Elem> elems;
    std::vector<int64_t> shape; ///< nesting shape of the literal (empty for a scalar)
    bool isHex = false;
    std::vector<uint8_t> hexBytes;
    size_t begin = 0;
};

/// A table keyed by names that view the source text (alive for the parse): open addressing with
/// linear probing over entries kept in insertion order. A function of 100k ops defines 100k SSA names
/// and names as many locations; an unordered_map spent a node allocation on each and a cache miss
/// on each lookup.
template <typename V> class SourceNameTable {
public:
    const V* find(std::string_view name) const
    {
        if (m_index.empty())
            return nullptr;
        const size_t hash = hashName(name);
        const TaggedSlotIndex::Probe p = m_index.find(hash, [&](uint32_t k) {
            const Entry& e = m_entries[k];
            return e.hash == hash && e.name == name;
        });
        return p.entry == TaggedSlotIndex::kAbsent ? nullptr : &m_entries[p.entry].value;
    }
    /// Adds `name`, which must not be there yet.
    void insert(std::string_view name, V value)
    {
        if ((m_entries.size() + 1) * 2 > m_index.slotCount()) {
            m_index.reset(m_index.empty() ? 16 : m_index.slotCount() * 2);
            for (size_t k = 0; k < m_entries.size(); ++k)
                m_index.place(m_entries[k].hash, static_cast<uint32_t>(k));
        }
        const size_t hash = hashName(name);
        m_entries.push_back(Entry{name, hash, std::move(value)});
        m_index.place(hash, static_cast<uint32_t>(m_entries.size() - 1));
    }

private:
    struct Entry {
        std::string_view name;
        size_t hash = 0;
        V value;
    };
    static size_t hashName(std::string_view name)
    {
        // Eight bytes at a time (location names run to 60 and more), then folded.
        uint64_t h = 0x9e3779b97f4a7c15ull ^ name.size();
        size_t i = 0;
        for (; i + 8 <= name.size(); i += 8) {
            uint64_t w;
            std::memcpy(&w, name.data() + i, 8);
            h = (h ^ w) * 0xff51afd7ed558ccdull;
            h ^= h >> 32;
        }
        uint64_t tail = 0;
        std::memcpy(&tail, name.data() + i, name.size() - i);
        h = (h ^ tail) * 0xc4ceb9fe1a85ec53ull;
        return static_cast<size_t>(h ^ (h >> 29));
    }
    std::vector<Entry> m_entries;
    TaggedSlotIndex m_index; ///< over m_entries
};

class Parser {
public:
    Parser(std::string_view text, std::string fileName, DiagnosticList& diags, const ReadOptions& opts);
    ~Parser();

    std::unique_ptr<ir::Module> parseModuleTop();
    AttrPtr parseStandaloneAttr();
    bool parseStandaloneType(Type& out);

    // ---- token stream (ReaderTokens.cpp) -----------------------------------------------
    const Token& tok() const { return m_tok; }
    void next();
    void resetTo(size_t pos);
    Token peek() const; ///< the token after the current one
    bool at(Kind k) const { return m_tok.kind == k; }
    bool atKeyword(std::string_view kw) const { return m_tok.isKeyword(kw); }
    bool consumeIf(Kind k);
    bool consumeKeyword(std::string_view kw);
    void expect(Kind k, std::string_view context);
    void expectKeyword(std::string_view kw, std::string_view context);
    std::string expectBareId(std::string_view context);
    /// A string literal's bytes (a string attribute's value, dense string elements, resource blobs).
    std::string expectString(std::string_view context);
    /// A string literal used as a name (axis, computation, composite): its text must be UTF-8.
    std::string expectName(std::string_view context);
    /// A name spelled bare or quoted (`foo`, `"odd name"`, the part after `@`), decoded; an error at
    /// `offset` when it is not UTF-8 after its escapes.
    std::string nameText(std::string_view token, size_t offset);
    /// Reports an error token (an unexpected character, an unterminated or non-text string).
    [[noreturn]] void errorInToken(const Token& token);
    /// Reports the NUL or non-UTF-8 byte at `offset`, found `where` ("in string literal").
    [[noreturn]] void errorAtByte(size_t offset, const std::string& where);
    SourcePos posOf(size_t offset) const;
    SourcePos pos() const { return posOf(m_tok.begin); }
    [[noreturn]] void error(const SourcePos& p, const std::string& msg);
    [[noreturn]] void errorHere(const std::string& msg) { error(pos(), msg); }
    [[noreturn]] void errorExpected(std::string_view what, std::string_view context = {});
    /// Recursion guard (throws past the limit).
    struct DepthGuard {
        Parser& p;
        explicit DepthGuard(Parser& parser);
        ~DepthGuard() { --p.m_depth; }
    };

    // ---- numbers (ReaderNumbers.cpp) ------------------------------------------------------
    /// Parses an optionally negative integer literal into int64 (overflow is an error).
    int64_t parseInt64(std::string_view context);
    uint64_t parseUInt(const Token& t, bool& overflow) const;

    // ---- types (ReaderTypes.cpp) --------------------------------------------------------
    Type parseType();
    std::optional<Type> parseOptionalType();
    std::vector<Type> parseTypeListParens();  ///< `(t, t)` or `()`
    Type parseFunctionType();                 ///< `(ins) -> outs`
    std::vector<Type> parseFunctionResults(); ///< after `->`: `t` or `(t, ...)`
    std::string parseElementTypeSpelling();
    std::string captureBalanced(char open, char close); ///< text from current `<` to the matching `>`
    bool atTypeStart() const;

    // ---- attributes (ReaderAttributes.cpp) ----------------------------------------------
    AttrPtr parseAttr();
    std::optional<AttrPtr> parseOptionalAttr();
    ir::NamedAttrList parseAttrDict(); ///< `{a = 1, b}` (current token must be `{`)
    AttrPtr parseDialectAttr(const Token& hashTok);
    /// Rejects an attribute or type of a dialect that is not loaded (unless unregistered
    /// dialects are allowed), as MLIR does.
    void checkDialectLoaded(const std::string& dialect, const SourcePos& p, std::string_view what);
    AttrPtr parseSdyAttr(const std::string& mnemonic, const SourcePos& p);
    /// `#sdy<manual_axes{...}>` and the other kinds printed in the dialect's short form, from the `<` at
    /// `angle`; nullptr (nothing consumed) for any other `#sdy<...>`.
    AttrPtr parseSdyShortFormAttr(size_t angle);
    std::string normalizedBody(size_t begin, size_t end) const;
    // numeric attributes (ReaderNumbers.cpp)
    AttrPtr parseDenseAttrAfterKeyword();
    DenseLiteral parseDenseLiteral();
    ir::DenseElementsAttr buildDense(const DenseLiteral& lit, const Type& type, const SourcePos& typePos);
    AttrPtr parseDenseArray();
    AttrPtr parseIntegerOrFloatAttr();
    // sdy payloads, stripped forms (ReaderSdyAttributes.cpp)
    Mesh parseMeshBody(const SourcePos& errPos);
    MeshRef parseMeshOrRef();
    TensorSharding parseShardingBody();   ///< `<@m, [...], ...>`
    ShardingPerValue parseShardingList(); ///< `[<...>, ...]`
    AxisRef parseAxisRef();
    std::vector<AxisRef> parseAxisList();                  ///< `{...}`
    std::vector<std::vector<AxisRef>> parseAxisListList(); ///< `[{...}, ...]`
    std::vector<ir::AllToAllParam> parseAllToAllParams();
    std::vector<std::string> parseManualAxes();
    OpShardingRule parseRuleBody();
    ir::PropagationEdgesAttr parseEdgesBody();
    DimSharding parseDimSharding();
    // locations (ReaderLocations.cpp)
    /// `#name` used as a location: a location alias, possibly defined further down the file.
    AttrPtr parseAliasRef(const Token& t);
    AttrPtr parseLocation(); ///< `loc(...)` (current token `loc`)
    AttrPtr parseLocationInner();
    int64_t parseLocationNumber(std::string_view what); ///< unsigned 32-bit line or column
    void parseOptionalTrailingLoc(AttrPtr& out);

    // ---- SSA scopes and values (ReaderValues.cpp) ---------------------------------------
    OperandRef parseOperandRef();
    std::vector<OperandRef> parseOperandRefs(); ///< comma list; empty if none
    Value* resolve(const OperandRef& ref, const Type* type);
    void addOperands(Op& op, const std::vector<OperandRef>& refs, const std::vector<Type>& types, const SourcePos& p);
    void defineValues(const ResultDef& def, const std::vector<Value*>& values)
    {
        defineValues(def, values.data(), values.size());
    }
    void defineValues(const ResultDef& def, Value* const* values, size_t count);
    void pushScope(bool isolated);
    void popScope();

    // ---- ops and regions (MlirReader.cpp) -----------------------------------------------
    void adoptSingleGenericModule();
    void parseTopLevel();
    void parseOperation(ir::Block& block);
    std::unique_ptr<Op> parseGenericOp(const SourcePos& p);
    std::unique_ptr<Op> parseCustomOp(const std::string& name, const SourcePos& p, unsigned numResults);
    /// An op in a custom form shardx does not know, kept as written (ReadOptions::keepUnknownOps;
    /// ReaderOpaqueOps.cpp). Current token: the op name.
    std::unique_ptr<Op> parseOpaqueOp(const std::string& name, const SourcePos& p, unsigned numResults);
    /// Result types of an op kept as written, from the types after `typesAt` (the offset after
    /// its last top-level `:` or `->`) up to `end`; empty when they cannot be read.
    std::vector<Type> opaqueResultTypes(size_t typesAt, size_t end, bool afterArrow, unsigned numOperands,
                                        unsigned numResults);
    /// Counts an op of an unknown dialect (or an op its dialect does not define) kept in tolerant
    /// mode; reportUnknownOps() warns once per op name, at its first occurrence.
    void noteUnknownOp(const std::string& name, const SourcePos& p);
    void reportUnknownOps();
    /// The value `%name` (or `%name#i`) names here, if one is defined in scope (no forward
    /// reference is made).
    Value* lookupDefined(const std::string& name, unsigned index) const;
    void parseRegion(ir::Region& region, bool isolated, std::vector<std::pair<ResultDef, Type>>* entryArgs,
                     std::vector<ir::Value*>* entryValues = nullptr);
    void parseRegionBody(ir::Region& region, ir::Block* entry);
    void parseBlockArgList(std::vector<std::pair<ResultDef, Type>>& args, std::vector<AttrPtr>* locs);
    void moveInherentAttrs(Op& op, ir::NamedAttrList& dict);
    void parseOptionalAttrDictInto(Op& op);
    ir::Block* blockForLabel(const std::string& label, const SourcePos& p);
    std::string resolveOpName(const std::string& name) const;
    void parseResources();

    // custom forms shared by the dialects, and the StableHLO ones (ReaderOps.cpp)
    std::unique_ptr<Op> parseStablehloOp(const std::string& name, const SourcePos& p);
    std::unique_ptr<Op> parseReturnLike(std::unique_ptr<Op> op, const SourcePos& p);
    std::unique_ptr<Op> parseElementwise(std::unique_ptr<Op> op, const SourcePos& p, bool attrsFirst = false);
    void parseTrailingTypes(Op& op, const std::vector<OperandRef>& refs, const SourcePos& p);
    AttrPtr parseI64ListAsArray(); ///< `[1, 2]` -> array<i64>
    std::vector<int64_t> parseI64List();
    // builtin.module and the func dialect (ReaderFuncOps.cpp)
    std::unique_ptr<Op> parseModuleOp(const SourcePos& p, bool& isTopModule);
    std::unique_ptr<Op> parseFuncOp(const SourcePos& p);
    /// func.call, func.return, func.constant, func.call_indirect (current token: the op name).
    std::unique_ptr<Op> parseFuncDialectOp(const std::string& name, const SourcePos& p);
    std::unique_ptr<Op> parseFuncConstant(std::unique_ptr<Op> op, const SourcePos& p);
    std::unique_ptr<Op> parseCallIndirect(std::unique_ptr<Op> op, const SourcePos& p);
    // StableHLO ops with regions (ReaderRegionOps.cpp), convolution (ReaderConvolution.cpp)
    std::unique_ptr<Op> parseReduce(std::unique_ptr<Op> op, const SourcePos& p);
    std::unique_ptr<Op> parseWhile(std::unique_ptr<Op> op, const SourcePos& p);
    std::unique_ptr<Op> parseConvolution(std::unique_ptr<Op> op, const SourcePos& p);
    // the keyword forms of io/StablehloForms.h (ReaderStablehloForms.cpp)
    Type parseOpFunctionalType(); ///< `(ins) -> outs`, "invalid kind of type specified" otherwise
    /// `operands, key = value {attrs} : (T..) -> R` (io/StablehloForms.h).
    std::unique_ptr<Op> parseKeywordFormOp(std::unique_ptr<Op> op, const SourcePos& p);
    /// What io/StablehloForms.h says of an op name, remembered by the interned name (a parse reads
    /// few kinds of op, and the tables are lists of spellings).
    struct OpFormFacts {
        const KeywordForm* keywordForm = nullptr; ///< keywordFormOf(name)
        bool functionalType = false;              ///< requiresFunctionalType(name)
    };
    const OpFormFacts& formFactsOf(const ir::Op& op);
    // sdy ops (ReaderSdyOps.cpp)
    std::unique_ptr<Op> parseSdyOp(const std::string& name, const SourcePos& p);
    std::unique_ptr<Op> parseRegionSdyOp(std::unique_ptr<Op> op, const SourcePos& p, bool named);

    // ---- state ------------------------------------------------------------------------------
    /// The values one `%name` defines: one for most (kept inline, no allocation), several for `%name:N`.
    struct DefinedValues {
        Value* one = nullptr;
        std::vector<Value*> many;
        size_t size() const { return one ? 1 : many.size(); }
        Value* operator[](size_t i) const { return one ? one : many[i]; }
    };
    struct Scope {
        bool isolated = false;
        SourceNameTable<DefinedValues> values;
        std::unordered_map<std::string, std::pair<Op*, SourcePos>> forwardRefs; ///< placeholders
        std::map<std::string, ir::Block*> labels;
        std::map<std::string, SourcePos> pendingLabels;
    };

    MlirLexer m_lex;
    Token m_tok;
    /// The token after m_tok once peek() has lexed it (lexing is a function of the offset alone), so
    /// that next() does not lex it again; valid while m_peekTok.begin's search started at m_tok.end.
    mutable Token m_peekTok;
    mutable size_t m_peekFrom = SIZE_MAX;
    FileName m_file; ///< interned once: every position of the parse shares it
    DiagnosticList& m_diags;
    ReadOptions m_opts;
    int m_depth = 0;
    struct UnknownOp {
        std::string name;
        SourcePos first;
        int count = 0;
    };
    std::vector<UnknownOp> m_unknownOps;
    std::unordered_map<std::string, size_t> m_unknownOpIndex;
    /// Dialect tried for op names written without a prefix (MLIR's default dialect): "builtin"
    /// at the top level and in module bodies, "func" in function bodies, none elsewhere.
    std::string m_defaultDialect = "builtin";
    std::vector<std::unique_ptr<Op>> m_placeholders; // destroyed after m_module (declared first)
    std::unique_ptr<ir::Module> m_module;
    std::vector<Scope> m_scopes;
    std::vector<ir::Region*> m_regionStack;
    std::map<std::string, size_t> m_aliasOffsets; ///< pre-scanned `#name = ` definitions
    std::map<std::string, AttrPtr> m_aliasValues; ///< parsed aliases (locations may be parsed early)
    std::set<std::string> m_aliasDefined;         ///< aliases whose definition has been passed
    std::set<std::string> m_aliasInProgress;
    std::map<std::string, Type> m_typeAliasValues; ///< `!name = type` definitions passed so far
    /// Plain name locations (`loc("name")`) and `loc(unknown)` read so far, by their token's text: the
    /// ops of one name scope share one immutable attribute rather than each holding a copy.
    SourceNameTable<AttrPtr> m_nameLocs;
    /// The dimensions of the tensor type being read (its capacity kept from one type to the next).
    std::vector<int64_t> m_shapeScratch;
    /// Dotted op names read so far, by their token's text, as interned names.
    SourceNameTable<ir::OperationName> m_opNames;
    /// The result lists of the ops being read, innermost last (parseOperation).
    std::vector<ResultDef> m_resultDefs;
    /// formFactsOf's answers so far, by interned op name (compared as one pointer).
    std::vector<std::pair<ir::OperationName, OpFormFacts>> m_opFormFacts;
    /// Tensor types written compactly (`tensor<8x16xf32>`: dimensions and a builtin element type, no
    /// space, no encoding) read so far, by their text from `<` to `>`: a module names the same few
    /// types on every op, and the same text reads the same type.
    SourceNameTable<Type> m_tensorTypes;
    AttrPtr m_unknownLoc;
};

/// Builds an OpaqueAttr payload.
AttrPtr opaque(std::string dialect, std::string mnemonic, std::string body);
AttrPtr i64Attr(int64_t v);
AttrPtr i32Attr(int64_t v);
AttrPtr denseI64(std::vector<int64_t> v);

constexpr int kMaxDepth = kMaxNestingDepth;

} // namespace shardx::io::detail
