// Attribute: the values of op attributes (builtin, dialect-opaque and sdy kinds).
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/ir/Type.h"
#include "core/mesh/Mesh.h"
#include "core/sharding/OpShardingRule.h"
#include "core/sharding/TensorSharding.h"

namespace shardx::ir {

class Attribute;

/// An interned attribute name (`sdy.sharding`, a dictionary key): every AttrName made from the same
/// spelling holds the same pointer into a process-wide table (as OperationName), so the attribute
/// lists of a program's ops share their names' storage (a name is 8 bytes, not a string each).
/// Reads as a `const std::string&` or a string_view; two names compare equal as one pointer, and
/// order by their spelling. The table only grows (a program uses few names); it is safe to intern
/// from several threads.
class AttrName {
public:
    /// The empty name.
    AttrName();
    AttrName(std::string_view name);
    AttrName(const std::string& name) : AttrName(std::string_view(name)) {}
    AttrName(const char* name) : AttrName(std::string_view(name)) {}

    const std::string& str() const { return *m_name; }
    operator const std::string&() const { return *m_name; }
    operator std::string_view() const { return *m_name; }
    size_t size() const { return m_name->size(); }
    bool empty() const { return m_name->empty(); }
    const char* data() const { return m_name->data(); }
    const char* c_str() const { return m_name->c_str(); }

    bool operator==(const AttrName& o) const { return m_name == o.m_name; }
    bool operator==(std::string_view s) const { return *m_name == s; }
    bool operator==(const std::string& s) const { return *m_name == s; }
    bool operator==(const char* s) const { return *m_name == s; }
    friend std::strong_ordering operator<=>(const AttrName& a, const AttrName& b) { return *a.m_name <=> *b.m_name; }
    friend std::strong_ordering operator<=>(const AttrName& a, std::string_view b) { return *a.m_name <=> b; }
    friend std::string operator+(const AttrName& a, std::string_view b) { return *a.m_name + std::string(b); }
    friend std::string operator+(std::string_view a, const AttrName& b) { return std::string(a) + *b.m_name; }
    friend std::string operator+(const AttrName& a, const char* b) { return *a.m_name + b; }
    friend std::string operator+(const char* a, const AttrName& b) { return a + *b.m_name; }
    friend std::string operator+(const AttrName& a, const std::string& b) { return *a.m_name + b; }
    friend std::string operator+(const std::string& a, const AttrName& b) { return a + *b.m_name; }
    friend std::ostream& operator<<(std::ostream& os, const AttrName& n);

private:
    const std::string* m_name;
};

/// A named attribute of an op or of a dictionary.
struct NamedAttribute {
    AttrName name;
    std::shared_ptr<const Attribute> value;
};
/// Attribute list kept sorted by name (as MLIR's DictionaryAttr).
using NamedAttrList = std::vector<NamedAttribute>;

// ---- payloads, one per kind ------------------------------------------------------------

struct UnitAttr {};
struct BoolAttr {
    bool value = false;
};
/// Integer of the given type (i64, i32, index, ui32...). Stored as the two's-complement bits.
struct IntegerAttr {
    int64_t value = 0;
    Type type;
};
/// Float of the given type (f32, f64, bf16...).
struct FloatAttr {
    double value = 0;
    Type type;
};
struct StringAttr {
    std::string value;
};
struct TypeAttr {
    Type type;
};
/// `@root::@nested`
struct SymbolRefAttr {
    std::vector<std::string> path;
};
struct ArrayAttr {
    std::vector<std::shared_ptr<const Attribute>> elements;
};
/// True for the element types MLIR's `array<T: ...>` takes: i1, i8, i16, i32, i64, f32, f64.
inline bool isDenseArrayElementType(std::string_view t)
{
    return t == "i1" || t == "i8" || t == "i16" || t == "i32" || t == "i64" || t == "f32" || t == "f64";
}

/// `array<i64: 1, 2>`; ints for integer/i1 element types, floats otherwise.
struct DenseArrayAttr {
    std::string elementType;
    std::vector<int64_t> ints;
    std::vector<double> floats;
};
/// `dense<...>`: element data as raw little-endian bytes of the element type
/// (i1 as one byte per element, 0 or 1; complex as two parts). `splat` holds one element.
struct DenseElementsAttr {
    Type type;
    bool splat = false;
    std::vector<uint8_t> data;
    std::vector<std::string> strings; ///< for !string-like element types (rare)
};
/// The most elements a splat DenseElementsAttr is expanded to when read as a list of integers (dimension
/// and index lists are far shorter; `dense<1> : tensor<1048576x1048576xi64>` is no list).
constexpr int64_t kMaxSplatListLength = int64_t(1) << 20;

/// The i1 elements (one byte each, 0 or 1) of the raw data of `dense<"0x...">` with `numElements`
/// elements, in every form MLIR's DenseElementsAttr takes for i1: a single byte 0x00 or 0xFF (a
/// splat: `splat` is set and one element returned), ceil(n/8) bytes bit-packed (bit i % 8 of byte
/// i / 8 is element i, least significant bit first; how MLIR stores and prints i1), or n bytes,
/// one per element, each 0x00 or 0x01. The single byte and the bit-packed form are tried first,
/// as MLIR does (a tensor of up to 8 elements takes one byte, bit-packed). nullopt with `error`
/// set when the data fits none of them.
std::optional<std::vector<uint8_t>> i1ElementsFromRawData(const std::vector<uint8_t>& raw, int64_t numElements,
                                                          bool& splat, std::string& error);
/// The bit-packed raw data of i1 elements (one byte each, 0 or 1) as MLIR stores and prints it:
/// ceil(n/8) bytes, element i in bit i % 8 of byte i / 8, unused bits 0.
std::vector<uint8_t> i1RawData(const std::vector<uint8_t>& elements);
/// What is wrong with the data of an i1 `dense` (empty when nothing, or when not i1): one byte per
/// element (or one for a splat), each 0 or 1. For readers of stored documents.
std::string denseI1DataProblem(const DenseElementsAttr& dense);
/// `dense_resource<name> : type`; the blob (if any) lives in the Module's resources.
struct DenseResourceAttr {
    std::string name;
    Type type;
};
struct DictionaryAttr {
    NamedAttrList entries;
};
/// A dialect attribute we do not model: `#stablehlo.gather<...>`, `#stablehlo<comparison_direction GT>`.
/// `dialect` is "stablehlo", `mnemonic` "gather" (may be empty for `#d<...>`), `body` the
/// normalized text between the outer `<` `>` (empty with no body).
struct OpaqueAttr {
    std::string dialect;
    std::string mnemonic;
    std::string body;
};

// sdy-specific kinds
struct MeshAttr {
    Mesh mesh;
};
struct ShardingAttr {
    TensorSharding sharding;
};
struct ShardingPerValueAttr {
    ShardingPerValue value;
};
struct OpShardingRuleAttr {
    OpShardingRule rule;
};
struct ManualAxesAttr {
    std::vector<std::string> axes;
};
struct AxisRefListAttr {
    std::vector<AxisRef> axes;
};
struct ListOfAxisRefListsAttr {
    std::vector<std::vector<AxisRef>> lists;
};
struct AllToAllParam {
    std::vector<AxisRef> axes;
    int64_t srcDim = 0;
    int64_t tgtDim = 0;
};
struct AllToAllParamListAttr {
    std::vector<AllToAllParam> params;
};
/// One node of a propagation edge: `operand-3` / `result-0`.
struct EdgeNode {
    bool isResult = false;
    int64_t index = 0;
    bool operator==(const EdgeNode& o) const = default;
};
struct PropagationEdgeEntry {
    AxisRef axis;
    EdgeNode source;
    std::vector<EdgeNode> targets;
};
struct PropagationEdgeStep {
    int64_t step = 0;
    std::vector<PropagationEdgeEntry> entries;
};
struct PropagationEdgesAttr {
    std::vector<PropagationEdgeStep> steps;
};

/// Location info (`loc(...)`): kept for name scopes and diagnostics, printed only on request.
/// FileLineCol is MLIR's FileLineColRange: `"f":1:2`, `"f":1:2 to :7` or `"f":1:2 to 3:4`.
/// Lines and columns are unsigned 32-bit numbers, as MLIR's (the fields are laid out so that a
/// location, the most numerous attribute of a program, stays small).
struct LocationAttr {
    enum class Kind : uint8_t { Unknown, FileLineCol, Name, CallSite, Fused };
    Kind kind = Kind::Unknown;
    bool hasRangeEnd = false; ///< FileLineCol: endLine and endCol were given (and differ from the start)
    uint32_t line = 0, col = 0;
    uint32_t endLine = 0, endCol = 0;                          ///< FileLineCol range end when hasRangeEnd
    std::string text;                                          ///< file name (FileLineCol) or name (Name)
    std::vector<std::shared_ptr<const LocationAttr>> children; ///< Name: child; CallSite: callee, caller; Fused: parts
    std::shared_ptr<const Attribute> metadata;                 ///< Fused `<metadata>`

    /// Sets the end of a FileLineCol range; an end equal to the start is no range.
    void setRangeEnd(uint32_t lastLine, uint32_t lastCol)
    {
        hasRangeEnd = lastLine != line || lastCol != col;
        endLine = hasRangeEnd ? lastLine : 0;
        endCol = hasRangeEnd ? lastCol : 0;
    }
    /// End line of a FileLineCol range (the start line when no end was given).
    int64_t rangeEndLine() const { return hasRangeEnd ? endLine : line; }
    /// End column of a FileLineCol range (the start column when no end was given).
    int64_t rangeEndCol() const { return hasRangeEnd ? endCol : col; }
};

/// A payload kind far larger than the others, held behind a pointer in Attribute's variant so that
/// every attribute stays small (a variant is as large as its largest kind: tensor shardings and
/// sharding rules are shared by content anyway, locations and dense arrays are per op). Copies deep;
/// Attribute::as<T>() reaches the payload itself.
template <typename T> class Boxed {
public:
    Boxed(T value) : m_value(std::make_unique<T>(std::move(value))) {}
    Boxed(const Boxed& o) : m_value(std::make_unique<T>(*o.m_value)) {}
    Boxed(Boxed&&) noexcept = default;
    Boxed& operator=(const Boxed& o)
    {
        m_value = std::make_unique<T>(*o.m_value);
        return *this;
    }
    Boxed& operator=(Boxed&&) noexcept = default;

    const T& get() const { return *m_value; }

private:
    std::unique_ptr<T> m_value;
};

/// An immutable attribute value. Share with `std::shared_ptr<const Attribute>`.
class Attribute {
public:
    using Payload = std::variant<UnitAttr, BoolAttr, IntegerAttr, FloatAttr, StringAttr, TypeAttr, SymbolRefAttr,
                                 ArrayAttr, DenseArrayAttr, DenseElementsAttr, DenseResourceAttr, DictionaryAttr,
                                 OpaqueAttr, MeshAttr, Boxed<ShardingAttr>, ShardingPerValueAttr,
                                 Boxed<OpShardingRuleAttr>, ManualAxesAttr, AxisRefListAttr, ListOfAxisRefListsAttr,
                                 AllToAllParamListAttr, PropagationEdgesAttr, LocationAttr>;
    /// The variant's alternative that holds a payload of kind T: T, or Boxed<T>.
    template <typename T>
    using Slot =
        std::conditional_t<std::is_same_v<T, ShardingAttr> || std::is_same_v<T, OpShardingRuleAttr>, Boxed<T>, T>;

    explicit Attribute(Payload p) : m_payload(std::move(p)) {}

    /// The variant (visitors see the large kinds as Boxed<T>).
    const Payload& payload() const { return m_payload; }
    template <typename T> bool is() const { return std::holds_alternative<Slot<T>>(m_payload); }
    template <typename T> const T* as() const { return payloadAs<T>(m_payload); }
    /// The payload of kind T in `p`, or nullptr.
    template <typename T> static const T* payloadAs(const Payload& p)
    {
        const Slot<T>* slot = std::get_if<Slot<T>>(&p);
        if constexpr (std::is_same_v<Slot<T>, T>)
            return slot;
        else
            return slot ? &slot->get() : nullptr;
    }

    bool operator==(const Attribute& o) const;

private:
    Payload m_payload;
};

using AttrPtr = std::shared_ptr<const Attribute>;

namespace detail {
/// The kinds that makeAttr shares by content: small values written on many ops alike (dimension
/// lists, constants, comparison directions, shardings of arguments). Locations are not (they name
/// one op each, and scopes are found by their address); nor are the kinds few programs hold.
template <typename T>
inline constexpr bool kSharedByContent =
    std::is_same_v<T, UnitAttr> || std::is_same_v<T, BoolAttr> || std::is_same_v<T, IntegerAttr> ||
    std::is_same_v<T, FloatAttr> || std::is_same_v<T, StringAttr> || std::is_same_v<T, TypeAttr> ||
    std::is_same_v<T, SymbolRefAttr> || std::is_same_v<T, ArrayAttr> || std::is_same_v<T, DenseArrayAttr> ||
    std::is_same_v<T, DenseElementsAttr> || std::is_same_v<T, DenseResourceAttr> || std::is_same_v<T, DictionaryAttr> ||
    std::is_same_v<T, OpaqueAttr> || std::is_same_v<T, ShardingAttr> || std::is_same_v<T, ShardingPerValueAttr> ||
    std::is_same_v<T, ManualAxesAttr> || std::is_same_v<T, AxisRefListAttr> ||
    std::is_same_v<T, ListOfAxisRefListsAttr>;
/// The live attribute equal to `payload` (sharedAttr), else a new one made from it.
AttrPtr makeSharedAttr(Attribute::Payload payload);
} // namespace detail

/// Builds a shared attribute from a payload: `makeAttr(IntegerAttr{2, Type::scalar("i64")})`. The kinds
/// ops hold alike by the thousand (detail::kSharedByContent) are held once per content: an attribute
/// equal to one alive is that one (attributes are immutable; equality is by content throughout).
template <typename T> AttrPtr makeAttr(T payload)
{
    if constexpr (detail::kSharedByContent<T>)
        return detail::makeSharedAttr(Attribute::Payload(std::move(payload)));
    else
        return std::make_shared<const Attribute>(Attribute::Payload(std::move(payload)));
}

/// The live attribute of content equal to one about to be made, or a new one made from `make()`: the
/// same content written on thousands of ops (propagated shardings, sharding rules) is held once.
/// `hash` must be equal for attributes that `equal` finds equal. The table holds its attributes weakly
/// (one that no op holds any more dies as before), is shared by the whole process (attributes are
/// immutable and shared across modules already) and is thread-safe.
AttrPtr sharedAttr(uint64_t hash, const std::function<bool(const Attribute&)>& equal,
                   const std::function<Attribute::Payload()>& make);

/// Deep equality of two possibly-null attributes.
bool attrEquals(const AttrPtr& a, const AttrPtr& b);

/// Finds `name` in a sorted list (nullptr if absent).
const Attribute* findAttr(const NamedAttrList& list, std::string_view name);
/// Inserts or replaces `name`, keeping the list sorted.
void setAttr(NamedAttrList& list, AttrName name, AttrPtr value);
/// Removes `name`; returns whether it was there.
bool removeAttr(NamedAttrList& list, std::string_view name);

} // namespace shardx::ir
