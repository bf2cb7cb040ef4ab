// Attribute: equality, sorted named-attribute lists and the raw data forms of i1 dense literals.
#include "core/ir/Attribute.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <mutex>
#include <ostream>

#include "core/support/StringInterner.h"

namespace shardx::ir {

// ---- AttrName ------------------------------------------------------------------------------------

namespace {

/// The process-wide table of attribute names (never destroyed: see StringInterner).
StringInterner& attrNameTable()
{
    static StringInterner* table = new StringInterner;
    return *table;
}

const std::string* emptyAttrName()
{
    static const std::string* empty = attrNameTable().intern({});
    return empty;
}

} // namespace

AttrName::AttrName() : m_name(emptyAttrName()) {}

AttrName::AttrName(std::string_view name) : m_name(attrNameTable().intern(name)) {}

std::ostream& operator<<(std::ostream& os, const AttrName& n) { return os << *n.m_name; }

namespace {

bool ptrEq(const AttrPtr& a, const AttrPtr& b) { return attrEquals(a, b); }

bool listEq(const std::vector<AttrPtr>& a, const std::vector<AttrPtr>& b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!ptrEq(a[i], b[i]))
            return false;
    return true;
}

bool namedEq(const NamedAttrList& a, const NamedAttrList& b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].name != b[i].name || !ptrEq(a[i].value, b[i].value))
            return false;
    return true;
}

bool locEq(const LocationAttr& a, const LocationAttr& b);

bool locPtrEq(const std::shared_ptr<const LocationAttr>& a, const std::shared_ptr<const LocationAttr>& b)
{
    if (!a || !b)
        return !a && !b;
    return locEq(*a, *b);
}

bool locEq(const LocationAttr& a, const LocationAttr& b)
{
    if (a.kind != b.kind || a.text != b.text || a.line != b.line || a.col != b.col ||
        a.rangeEndLine() != b.rangeEndLine() || a.rangeEndCol() != b.rangeEndCol() ||
        a.children.size() != b.children.size() || !ptrEq(a.metadata, b.metadata))
        return false;
    for (size_t i = 0; i < a.children.size(); ++i)
        if (!locPtrEq(a.children[i], b.children[i]))
            return false;
    return true;
}

struct EqVisitor {
    const Attribute::Payload& other;

    template <typename T> const T& o() const { return *Attribute::payloadAs<T>(other); }
    template <typename T> bool operator()(const Boxed<T>& a) const { return (*this)(a.get()); }

    bool operator()(const UnitAttr&) const { return true; }
    bool operator()(const BoolAttr& a) const { return a.value == o<BoolAttr>().value; }
    bool operator()(const IntegerAttr& a) const
    {
        return a.value == o<IntegerAttr>().value && a.type == o<IntegerAttr>().type;
    }
    bool operator()(const FloatAttr& a) const
    {
        const FloatAttr& b = o<FloatAttr>();
        // Compare bit patterns so that NaN == NaN and -0 != +0, as MLIR's APFloat equality.
        return std::memcmp(&a.value, &b.value, sizeof(double)) == 0 && a.type == b.type;
    }
    bool operator()(const StringAttr& a) const { return a.value == o<StringAttr>().value; }
    bool operator()(const TypeAttr& a) const { return a.type == o<TypeAttr>().type; }
    bool operator()(const SymbolRefAttr& a) const { return a.path == o<SymbolRefAttr>().path; }
    bool operator()(const ArrayAttr& a) const { return listEq(a.elements, o<ArrayAttr>().elements); }
    bool operator()(const DenseArrayAttr& a) const
    {
        const DenseArrayAttr& b = o<DenseArrayAttr>();
        return a.elementType == b.elementType && a.ints == b.ints && a.floats == b.floats;
    }
    bool operator()(const DenseElementsAttr& a) const
    {
        const DenseElementsAttr& b = o<DenseElementsAttr>();
        return a.type == b.type && a.splat == b.splat && a.data == b.data && a.strings == b.strings;
    }
    bool operator()(const DenseResourceAttr& a) const
    {
        return a.name == o<DenseResourceAttr>().name && a.type == o<DenseResourceAttr>().type;
    }
    bool operator()(const DictionaryAttr& a) const { return namedEq(a.entries, o<DictionaryAttr>().entries); }
    bool operator()(const OpaqueAttr& a) const
    {
        const OpaqueAttr& b = o<OpaqueAttr>();
        return a.dialect == b.dialect && a.mnemonic == b.mnemonic && a.body == b.body;
    }
    bool operator()(const MeshAttr& a) const { return a.mesh == o<MeshAttr>().mesh; }
    bool operator()(const ShardingAttr& a) const { return a.sharding == o<ShardingAttr>().sharding; }
    bool operator()(const ShardingPerValueAttr& a) const { return a.value == o<ShardingPerValueAttr>().value; }
    bool operator()(const OpShardingRuleAttr& a) const { return a.rule == o<OpShardingRuleAttr>().rule; }
    bool operator()(const ManualAxesAttr& a) const { return a.axes == o<ManualAxesAttr>().axes; }
    bool operator()(const AxisRefListAttr& a) const { return a.axes == o<AxisRefListAttr>().axes; }
    bool operator()(const ListOfAxisRefListsAttr& a) const { return a.lists == o<ListOfAxisRefListsAttr>().lists; }
    bool operator()(const AllToAllParamListAttr& a) const
    {
        const auto& b = o<AllToAllParamListAttr>().params;
        if (a.params.size() != b.size())
            return false;
        for (size_t i = 0; i < b.size(); ++i)
            if (a.params[i].axes != b[i].axes || a.params[i].srcDim != b[i].srcDim || a.params[i].tgtDim != b[i].tgtDim)
                return false;
        return true;
    }
    bool operator()(const PropagationEdgesAttr& a) const
    {
        const auto& b = o<PropagationEdgesAttr>().steps;
        if (a.steps.size() != b.size())
            return false;
        for (size_t i = 0; i < b.size(); ++i) {
            if (a.steps[i].step != b[i].step || a.steps[i].entries.size() != b[i].entries.size())
                return false;
            for (size_t j = 0; j < b[i].entries.size(); ++j) {
                const auto& x = a.steps[i].entries[j];
                const auto& y = b[i].entries[j];
                if (!(x.axis == y.axis) || !(x.source == y.source) || x.targets != y.targets)
                    return false;
            }
        }
        return true;
    }
    bool operator()(const LocationAttr& a) const { return locEq(a, o<LocationAttr>()); }
};

} // namespace

bool Attribute::operator==(const Attribute& o) const
{
    if (m_payload.index() != o.m_payload.index())
        return false;
    return std::visit(EqVisitor{o.m_payload}, m_payload);
}

bool attrEquals(const AttrPtr& a, const AttrPtr& b)
{
    if (a == b)
        return true;
    if (!a || !b)
        return false;
    return *a == *b;
}

static NamedAttrList::const_iterator lowerBound(const NamedAttrList& list, std::string_view name)
{
    return std::lower_bound(list.begin(), list.end(), name,
                            [](const NamedAttribute& a, std::string_view n) { return std::string_view(a.name) < n; });
}

const Attribute* findAttr(const NamedAttrList& list, std::string_view name)
{
    // Most lists hold a handful of entries: a scan that compares lengths first beats a binary search
    // whose every step compares strings.
    if (list.size() <= 8) {
        for (const NamedAttribute& a : list)
            if (a.name.size() == name.size() && std::memcmp(a.name.data(), name.data(), name.size()) == 0)
                return a.value.get();
        return nullptr;
    }
    auto it = lowerBound(list, name);
    if (it != list.end() && it->name == name)
        return it->value.get();
    return nullptr;
}

void setAttr(NamedAttrList& list, AttrName name, AttrPtr value)
{
    auto cit = lowerBound(list, name);
    auto it = list.begin() + (cit - list.cbegin());
    if (it != list.end() && it->name == name) {
        it->value = std::move(value);
        return;
    }
    if (list.size() == list.capacity()) {
        // Lists are short and every op holds two: grown to the size needed, not doubled (the
        // slack of doubling was a twentieth of a large module's memory).
        const size_t at = static_cast<size_t>(it - list.begin());
        NamedAttrList grown;
        grown.reserve(list.size() + 1);
        std::move(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(at), std::back_inserter(grown));
        grown.push_back(NamedAttribute{name, std::move(value)});
        std::move(list.begin() + static_cast<std::ptrdiff_t>(at), list.end(), std::back_inserter(grown));
        list = std::move(grown);
        return;
    }
    list.insert(it, NamedAttribute{name, std::move(value)});
}

bool removeAttr(NamedAttrList& list, std::string_view name)
{
    auto cit = lowerBound(list, name);
    if (cit == list.end() || cit->name != name)
        return false;
    list.erase(list.begin() + (cit - list.cbegin()));
    return true;
}

std::optional<std::vector<uint8_t>> i1ElementsFromRawData(const std::vector<uint8_t>& raw, int64_t numElements,
                                                          bool& splat, std::string& error)
{
    splat = false;
    const size_t n = numElements < 0 ? 0 : static_cast<size_t>(numElements);
    if (raw.size() == 1 && (raw[0] == 0x00 || raw[0] == 0xFF)) {
        splat = true;
        return std::vector<uint8_t>{static_cast<uint8_t>(raw[0] ? 1 : 0)};
    }
    if (raw.size() == (n + 7) / 8) {
        std::vector<uint8_t> elements(n);
        for (size_t i = 0; i < n; ++i)
            elements[i] = (raw[i / 8] >> (i % 8)) & 1;
        return elements;
    }
    if (raw.size() == n) {
        for (size_t i = 0; i < n; ++i) {
            if (raw[i] > 1) {
                error = "i1 element " + std::to_string(i) +
                        " of hex data with one byte per element is neither 0x00 "
                        "nor 0x01";
                return std::nullopt;
            }
        }
        return raw;
    }
    error = "elements hex data size is invalid for provided type: " + std::to_string(raw.size()) + " bytes for " +
            std::to_string(n) + " elements of i1 (expected " + std::to_string((n + 7) / 8) +
            " bit-packed, a single 0x00 or 0xFF for a splat, or " + std::to_string(n) + " with one per element)";
    return std::nullopt;
}

std::vector<uint8_t> i1RawData(const std::vector<uint8_t>& elements)
{
    std::vector<uint8_t> raw((elements.size() + 7) / 8, 0);
    for (size_t i = 0; i < elements.size(); ++i)
        if (elements[i])
            raw[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    return raw;
}

std::string denseI1DataProblem(const DenseElementsAttr& dense)
{
    if (!dense.type.isTensor() || dense.type.elementType() != "i1" || !dense.strings.empty())
        return {};
    for (size_t i = 0; i < dense.data.size(); ++i)
        if (dense.data[i] > 1)
            return "i1 element " + std::to_string(i) + " is stored as " + std::to_string(dense.data[i]) +
                   " (expected 0 or 1, one byte per element)";
    if (dense.type.hasStaticShape()) {
        const int64_t n = dense.type.numElements();
        const bool sizeOk = dense.splat ? dense.data.size() == 1 || (n == 0 && dense.data.empty())
                                        : dense.data.size() == static_cast<size_t>(n) || dense.data.size() == 1;
        if (!sizeOk)
            return std::to_string(dense.data.size()) + " bytes of i1 data for " + std::to_string(n) +
                   " elements (expected one byte per element, or one for a splat)";
    }
    return {};
}

namespace {

/// Live shared attributes by content hash, held weakly: an attribute no op holds any more dies as
/// before, and its entry is swept when the table has doubled since the last sweep. The attributes are
/// allocated apart from their control blocks (not make_shared), so a dead one's storage is freed at
/// once, not when its weak entry is swept. One table for the
/// process (attributes are immutable and shared across modules: clones share them already).
class SharedAttrTable {
public:
    AttrPtr get(uint64_t hash, const std::function<bool(const Attribute&)>& equal,
                const std::function<Attribute::Payload()>& make)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto [lo, hi] = m_table.equal_range(hash);
        for (auto it = lo; it != hi; ++it)
            if (AttrPtr a = it->second.lock(); a && equal(*a))
                return a;
        AttrPtr made(new Attribute(make()));
        m_table.emplace(hash, made);
        if (m_table.size() >= m_sweepAt) {
            std::erase_if(m_table, [](const auto& entry) { return entry.second.expired(); });
            m_sweepAt = std::max<size_t>(kMinSweep, 2 * m_table.size());
        }
        return made;
    }

private:
    static constexpr size_t kMinSweep = 4096;
    std::mutex m_mutex;
    std::unordered_multimap<uint64_t, std::weak_ptr<const Attribute>> m_table;
    size_t m_sweepAt = kMinSweep;
};

SharedAttrTable& sharedAttrTable()
{
    // Never destroyed: attributes may be made from other threads until exit.
    static SharedAttrTable* table = new SharedAttrTable;
    return *table;
}

} // namespace

AttrPtr sharedAttr(uint64_t hash, const std::function<bool(const Attribute&)>& equal,
                   const std::function<Attribute::Payload()>& make)
{
    return sharedAttrTable().get(hash, equal, make);
}

namespace {

void attrHashMix(uint64_t& h, uint64_t v) { h = (h ^ v) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull; }
void attrHashMix(uint64_t& h, std::string_view s) { attrHashMix(h, std::hash<std::string_view>{}(s)); }
void attrHashMix(uint64_t& h, const Type& t) { attrHashMix(h, reinterpret_cast<uintptr_t>(t.impl())); }
/// Nested attributes by address: equal ones are mostly one shared attribute already (a miss only
/// costs the sharing, not the equality).
void attrHashMix(uint64_t& h, const AttrPtr& a) { attrHashMix(h, reinterpret_cast<uintptr_t>(a.get())); }
void attrHashMixAxes(uint64_t& h, const std::vector<AxisRef>& axes)
{
    attrHashMix(h, axes.size());
    for (const AxisRef& a : axes)
        attrHashMix(h, hashAxisRef(a));
}

/// A hash of a payload of a kind makeAttr shares, equal for payloads EqVisitor finds equal.
struct AttrHashVisitor {
    uint64_t h;

    template <typename T> void operator()(const Boxed<T>& a) { (*this)(a.get()); }
    void operator()(const UnitAttr&) {}
    void operator()(const BoolAttr& a) { attrHashMix(h, a.value ? 1u : 0u); }
    void operator()(const IntegerAttr& a)
    {
        attrHashMix(h, static_cast<uint64_t>(a.value));
        attrHashMix(h, a.type);
    }
    void operator()(const FloatAttr& a)
    {
        uint64_t bits = 0;
        std::memcpy(&bits, &a.value, sizeof bits);
        attrHashMix(h, bits);
        attrHashMix(h, a.type);
    }
    void operator()(const StringAttr& a) { attrHashMix(h, a.value); }
    void operator()(const TypeAttr& a) { attrHashMix(h, a.type); }
    void operator()(const SymbolRefAttr& a)
    {
        for (const std::string& p : a.path)
            attrHashMix(h, p);
    }
    void operator()(const ArrayAttr& a)
    {
        attrHashMix(h, a.elements.size());
        for (const AttrPtr& e : a.elements)
            attrHashMix(h, e);
    }
    void operator()(const DenseArrayAttr& a)
    {
        attrHashMix(h, a.elementType);
        attrHashMix(h, a.ints.size());
        for (int64_t v : a.ints)
            attrHashMix(h, static_cast<uint64_t>(v));
        attrHashMix(h, a.floats.size());
        for (double v : a.floats) {
            uint64_t bits = 0;
            std::memcpy(&bits, &v, sizeof bits);
            attrHashMix(h, bits);
        }
    }
    void operator()(const DenseElementsAttr& a)
    {
        attrHashMix(h, a.type);
        attrHashMix(h, a.splat ? 1u : 0u);
        attrHashMix(h, std::string_view(reinterpret_cast<const char*>(a.data.data()), a.data.size()));
        attrHashMix(h, a.strings.size());
        for (const std::string& e : a.strings)
            attrHashMix(h, e);
    }
    void operator()(const DenseResourceAttr& a)
    {
        attrHashMix(h, a.name);
        attrHashMix(h, a.type);
    }
    void operator()(const DictionaryAttr& a)
    {
        attrHashMix(h, a.entries.size());
        for (const NamedAttribute& e : a.entries) {
            attrHashMix(h, std::string_view(e.name));
            attrHashMix(h, e.value);
        }
    }
    void operator()(const OpaqueAttr& a)
    {
        attrHashMix(h, a.dialect);
        attrHashMix(h, a.mnemonic);
        attrHashMix(h, a.body);
    }
    void operator()(const ShardingAttr& a) { attrHashMix(h, hashSharding(a.sharding)); }
    void operator()(const ShardingPerValueAttr& a)
    {
        attrHashMix(h, a.value.shardings.size());
        for (const TensorSharding& s : a.value.shardings)
            attrHashMix(h, hashSharding(s));
    }
    void operator()(const ManualAxesAttr& a)
    {
        for (const std::string& x : a.axes)
            attrHashMix(h, x);
    }
    void operator()(const AxisRefListAttr& a) { attrHashMixAxes(h, a.axes); }
    void operator()(const ListOfAxisRefListsAttr& a)
    {
        attrHashMix(h, a.lists.size());
        for (const auto& l : a.lists)
            attrHashMixAxes(h, l);
    }
    // Kinds makeAttr does not share: hashed by kind alone.
    void operator()(const MeshAttr&) {}
    void operator()(const OpShardingRuleAttr&) {}
    void operator()(const AllToAllParamListAttr&) {}
    void operator()(const PropagationEdgesAttr&) {}
    void operator()(const LocationAttr&) {}
};

} // namespace

AttrPtr detail::makeSharedAttr(Attribute::Payload payload)
{
    AttrHashVisitor hasher{0xcbf29ce484222325ull + payload.index()};
    std::visit(hasher, payload);
    return sharedAttr(
        hasher.h,
        [&payload](const Attribute& a) {
            if (a.payload().index() != payload.index() || !std::visit(EqVisitor{a.payload()}, payload))
                return false;
            // Floats of a dense array compare as numbers (0.0 == -0.0); one shared for the other
            // must print the same.
            const DenseArrayAttr* x = a.as<DenseArrayAttr>();
            const DenseArrayAttr* y = Attribute::payloadAs<DenseArrayAttr>(payload);
            return !x || x->floats.empty() ||
                   std::memcmp(x->floats.data(), y->floats.data(), x->floats.size() * sizeof(double)) == 0;
        },
        [&payload] { return std::move(payload); });
}

} // namespace shardx::ir
