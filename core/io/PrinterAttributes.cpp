// MLIR printer (MlirPrinter.h, PrinterInternal.h): attributes, types, floats (APFloat-exact) and dense literals.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/io/PrinterInternal.h"
#include "core/support/Arithmetic.h"

namespace shardx::io::detail {

using namespace ir;

// ---- strings and symbols ------------------------------------------------------------------

void appendQuoted(std::string& out, const std::string& s)
{
    static const char* hex = "0123456789ABCDEF";
    out += '"';
    for (unsigned char c : s) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '"' || c < 0x20 || c >= 0x7f) {
            out += '\\';
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    out += '"';
}

void appendSymbol(std::string& out, const std::string& name)
{
    out += '@';
    if (isBareIdentifier(name))
        out += name;
    else
        appendQuoted(out, name);
}

// ---- integers -----------------------------------------------------------------------------

void appendInteger(std::string& out, int64_t value, const std::string& elementType)
{
    int width = elementBitWidth(elementType);
    if (elementType == "i1") {
        out += (value & 1) ? "true" : "false";
        return;
    }
    if (elementType == "index")
        width = 64;
    if (width <= 0 || width > 64)
        width = 64;
    if (isUnsignedElementType(elementType)) {
        uint64_t u = static_cast<uint64_t>(value);
        if (width < 64)
            u &= (1ull << width) - 1;
        out += std::to_string(u);
        return;
    }
    if (width < 64) {
        uint64_t u = static_cast<uint64_t>(value) & ((1ull << width) - 1);
        if (u & (1ull << (width - 1)))
            u |= ~((1ull << width) - 1);
        value = static_cast<int64_t>(u);
    }
    out += std::to_string(value);
}

// ---- types --------------------------------------------------------------------------------

static void appendTypeList(std::string& out, const std::vector<Type>& types)
{
    for (size_t i = 0; i < types.size(); ++i) {
        if (i)
            out += ", ";
        appendType(out, types[i]);
    }
}

void appendType(std::string& out, const Type& type)
{
    switch (type.kind()) {
    case Type::Kind::None: out += "none"; return;
    case Type::Kind::Tensor:
        out += "tensor<";
        if (!type.isRankedTensor()) {
            out += "*x";
        } else {
            for (int64_t d : type.shape()) {
                if (d == Type::kDynamic)
                    out += '?';
                else
                    out += std::to_string(d);
                out += 'x';
            }
        }
        out += type.elementType();
        if (type.encoding()) {
            out += ", ";
            appendAttribute(out, *type.encoding());
        }
        out += '>';
        return;
    case Type::Kind::Token: out += "!stablehlo.token"; return;
    case Type::Kind::Tuple:
        out += "tuple<";
        appendTypeList(out, type.elements());
        out += '>';
        return;
    case Type::Kind::Scalar:
    case Type::Kind::Opaque: out += type.name(); return;
    case Type::Kind::Function: {
        out += '(';
        appendTypeList(out, type.elements());
        out += ") -> ";
        const auto& res = type.results();
        if (res.size() == 1 && res[0].kind() != Type::Kind::Function) {
            appendType(out, res[0]);
        } else {
            out += '(';
            appendTypeList(out, res);
            out += ')';
        }
        return;
    }
    }
}

// ---- dense literals -----------------------------------------------------------------------

namespace {

int64_t readInt(const uint8_t* p, int bytes, bool isUnsigned, int width)
{
    uint64_t u = 0;
    for (int i = 0; i < bytes && i < 8; ++i)
        u |= static_cast<uint64_t>(p[i]) << (8 * i);
    if (width > 0 && width < 64) {
        u &= (1ull << width) - 1;
        if (!isUnsigned && (u & (1ull << (width - 1))))
            u |= ~((1ull << width) - 1);
    }
    return static_cast<int64_t>(u);
}

double decodeHalf(uint64_t bits, int expBits, int mantBits)
{
    uint64_t sign = bits >> (expBits + mantBits);
    uint64_t e = (bits >> mantBits) & ((1u << expBits) - 1);
    uint64_t m = bits & ((1ull << mantBits) - 1);
    int bias = (1 << (expBits - 1)) - 1;
    double v;
    if (e == (1u << expBits) - 1)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = std::ldexp(static_cast<double>(m), 1 - bias - mantBits);
    else
        v = std::ldexp(static_cast<double>(m | (1ull << mantBits)), static_cast<int>(e) - bias - mantBits);
    return sign ? -v : v;
}

double readFloat(const uint8_t* p, const std::string& type)
{
    if (type == "f64") {
        double d;
        std::memcpy(&d, p, 8);
        return d;
    }
    if (type == "f32") {
        float f;
        std::memcpy(&f, p, 4);
        return static_cast<double>(f);
    }
    if (type == "bf16") {
        uint32_t b = static_cast<uint32_t>(p[0] | (p[1] << 8)) << 16;
        float f;
        std::memcpy(&f, &b, 4);
        return static_cast<double>(f);
    }
    if (type == "f16")
        return decodeHalf(static_cast<uint64_t>(p[0] | (p[1] << 8)), 5, 10);
    if (type == "f8E5M2")
        return decodeHalf(p[0], 5, 2);
    return decodeHalf(p[0], 4, 3);
}

/// Storage bytes per element (complex: both parts); 1 for i1.
int elementBytes(const std::string& type)
{
    if (type.rfind("complex<", 0) == 0)
        return 2 * elementBytes(type.substr(8, type.size() - 9));
    if (type == "index")
        return 8;
    int w = elementBitWidth(type);
    return w <= 0 ? 1 : (w + 7) / 8;
}

void appendScalarElement(std::string& out, const uint8_t* p, const std::string& type)
{
    if (type.rfind("complex<", 0) == 0) {
        std::string inner = type.substr(8, type.size() - 9);
        int half = elementBytes(inner);
        out += '(';
        appendScalarElement(out, p, inner);
        out += ',';
        appendScalarElement(out, p + half, inner);
        out += ')';
        return;
    }
    if (isFloatElementType(type)) {
        appendFloat(out, readFloat(p, type), type);
        return;
    }
    if (type == "i1") {
        out += p[0] ? "true" : "false";
        return;
    }
    int width = type == "index" ? 64 : elementBitWidth(type);
    bool isUnsigned = isUnsignedElementType(type);
    int64_t v = readInt(p, elementBytes(type), isUnsigned, width);
    if (isUnsigned)
        out += std::to_string(static_cast<uint64_t>(v));
    else
        out += std::to_string(v);
}

/// Prints `count` elements with MLIR's nested-bracket layout for `shape`.
template <typename Fn> void appendNested(std::string& out, const std::vector<int64_t>& shape, int64_t count, Fn&& elt)
{
    size_t rank = shape.size();
    if (count == 0)
        return;
    if (rank == 0) {
        elt(0);
        return;
    }
    std::vector<int64_t> counter(rank, 0);
    size_t open = 0;
    for (int64_t idx = 0; idx < count; ++idx) {
        if (idx)
            out += ", ";
        while (open < rank) {
            out += '[';
            ++open;
        }
        elt(idx);
        ++counter[rank - 1];
        for (size_t i = rank - 1; i > 0; --i) {
            if (counter[i] >= shape[i]) {
                counter[i] = 0;
                ++counter[i - 1];
                --open;
                out += ']';
            }
        }
    }
    while (open-- > 0)
        out += ']';
}

} // namespace

void appendDenseLiteral(std::string& out, const DenseElementsAttr& dense)
{
    const Type& type = dense.type;
    std::string elt = type.isTensor() ? type.elementType() : type.name();
    std::vector<int64_t> shape = type.isRankedTensor() ? type.shape() : std::vector<int64_t>{};
    int64_t numElements = 1;
    for (int64_t d : shape)
        numElements = saturatingMul(numElements, d < 0 ? 0 : d);
    out += "dense<";

    if (!dense.strings.empty()) {
        bool splat = dense.splat || dense.strings.size() == 1;
        if (splat) {
            appendQuoted(out, dense.strings[0]);
        } else {
            appendNested(out, shape, static_cast<int64_t>(dense.strings.size()),
                         [&](int64_t i) { appendQuoted(out, dense.strings[static_cast<size_t>(i)]); });
        }
        out += '>';
        return;
    }

    const size_t eb = static_cast<size_t>(elementBytes(elt));
    size_t stored = eb ? dense.data.size() / eb : 0;
    bool splat = dense.splat || stored == 1;
    if (!splat && stored > 1) {
        // MLIR detects splats when building from element values and from raw buffers.
        splat = true;
        for (size_t i = 1; i < stored && splat; ++i)
            splat = std::memcmp(&dense.data[0], &dense.data[i * eb], eb) == 0;
    }
    if (stored == 0 || numElements == 0) {
        out += '>';
        return;
    }
    if (splat) {
        appendScalarElement(out, dense.data.data(), elt);
        out += '>';
        return;
    }
    if (numElements > 100) {
        static const char* hex = "0123456789ABCDEF";
        out += "\"0x";
        // MLIR prints its raw data: i1 bit-packed (least significant bit first), as it stores it.
        for (uint8_t b : elt == "i1" ? i1RawData(dense.data) : dense.data) {
            out += hex[b >> 4];
            out += hex[b & 15];
        }
        out += "\">";
        return;
    }
    appendNested(out, shape, static_cast<int64_t>(stored),
                 [&](int64_t i) { appendScalarElement(out, &dense.data[static_cast<size_t>(i) * eb], elt); });
    out += '>';
}

// ---- locations ----------------------------------------------------------------------------

static void appendLocationBody(std::string& out, const LocationAttr& loc)
{
    switch (loc.kind) {
    case LocationAttr::Kind::Unknown: out += "unknown"; return;
    case LocationAttr::Kind::FileLineCol:
        // As MLIR prints a FileLineColRange: the end only when it differs from the start,
        // `to :C` when it is on the same line.
        appendQuoted(out, loc.text);
        out += ':' + std::to_string(loc.line) + ':' + std::to_string(loc.col);
        if (loc.rangeEndLine() != loc.line)
            out += " to " + std::to_string(loc.rangeEndLine()) + ':' + std::to_string(loc.rangeEndCol());
        else if (loc.rangeEndCol() != loc.col)
            out += " to :" + std::to_string(loc.rangeEndCol());
        return;
    case LocationAttr::Kind::Name:
        appendQuoted(out, loc.text);
        if (!loc.children.empty() && loc.children[0] && loc.children[0]->kind != LocationAttr::Kind::Unknown) {
            out += '(';
            appendLocationBody(out, *loc.children[0]);
            out += ')';
        }
        return;
    case LocationAttr::Kind::CallSite:
        out += "callsite(";
        if (loc.children.size() >= 1 && loc.children[0])
            appendLocationBody(out, *loc.children[0]);
        else
            out += "unknown";
        out += " at ";
        if (loc.children.size() >= 2 && loc.children[1])
            appendLocationBody(out, *loc.children[1]);
        else
            out += "unknown";
        out += ')';
        return;
    case LocationAttr::Kind::Fused:
        out += "fused";
        if (loc.metadata) {
            out += '<';
            appendAttribute(out, *loc.metadata);
            out += '>';
        }
        out += '[';
        for (size_t i = 0; i < loc.children.size(); ++i) {
            if (i)
                out += ", ";
            if (loc.children[i])
                appendLocationBody(out, *loc.children[i]);
            else
                out += "unknown";
        }
        out += ']';
        return;
    }
}

void appendLocation(std::string& out, const LocationAttr& loc)
{
    out += "loc(";
    appendLocationBody(out, loc);
    out += ')';
}

// ---- attributes ---------------------------------------------------------------------------

void appendNamedAttribute(std::string& out, const NamedAttribute& attr)
{
    if (isBareIdentifier(attr.name))
        out += attr.name;
    else
        appendQuoted(out, attr.name);
    if (!attr.value || attr.value->is<UnitAttr>())
        return;
    out += " = ";
    appendAttribute(out, *attr.value);
}

static void appendAxisRef(std::string& out, const AxisRef& a)
{
    appendQuoted(out, a.name);
    if (a.sub)
        out += ":(" + std::to_string(a.sub->preSize) + ")" + std::to_string(a.sub->size);
}

static void appendAxisList(std::string& out, const std::vector<AxisRef>& axes)
{
    out += '{';
    for (size_t i = 0; i < axes.size(); ++i) {
        if (i)
            out += ", ";
        appendAxisRef(out, axes[i]);
    }
    out += '}';
}

static void appendEdgeNode(std::string& out, const EdgeNode& n)
{
    out += n.isResult ? "result-" : "operand-";
    out += std::to_string(n.index);
}

namespace {
struct AttrVisitor {
    std::string& out;
    TypeElision elision;

    void operator()(const UnitAttr&) { out += "unit"; }
    void operator()(const BoolAttr& a) { out += a.value ? "true" : "false"; }
    void operator()(const IntegerAttr& a)
    {
        std::string t = a.type.isNone() ? "i64" : a.type.name();
        if (t == "i1") {
            out += (a.value & 1) ? "true" : "false";
            return;
        }
        appendInteger(out, a.value, t);
        if (elision == TypeElision::May && t == "i64")
            return;
        out += " : ";
        out += t;
    }
    void operator()(const FloatAttr& a)
    {
        std::string t = a.type.isNone() ? "f64" : a.type.name();
        appendFloat(out, a.value, t);
        if (elision == TypeElision::May && t == "f64")
            return;
        out += " : ";
        out += t;
    }
    void operator()(const StringAttr& a) { appendQuoted(out, a.value); }
    void operator()(const TypeAttr& a) { appendType(out, a.type); }
    void operator()(const SymbolRefAttr& a)
    {
        for (size_t i = 0; i < a.path.size(); ++i) {
            if (i)
                out += "::";
            appendSymbol(out, a.path[i]);
        }
    }
    void operator()(const ArrayAttr& a)
    {
        out += '[';
        for (size_t i = 0; i < a.elements.size(); ++i) {
            if (i)
                out += ", ";
            if (a.elements[i])
                appendAttribute(out, *a.elements[i], TypeElision::May);
        }
        out += ']';
    }
    void operator()(const DenseArrayAttr& a)
    {
        out += "array<" + a.elementType;
        bool isFloat = isFloatElementType(a.elementType);
        size_t n = isFloat ? a.floats.size() : a.ints.size();
        if (n)
            out += ": ";
        for (size_t i = 0; i < n; ++i) {
            if (i)
                out += ", ";
            if (isFloat)
                appendFloat(out, a.floats[i], a.elementType);
            else
                appendInteger(out, a.ints[i], a.elementType);
        }
        out += '>';
    }
    void operator()(const DenseElementsAttr& a)
    {
        appendDenseLiteral(out, a);
        out += " : ";
        appendType(out, a.type);
    }
    void operator()(const DenseResourceAttr& a)
    {
        out += "dense_resource<" + a.name + "> : ";
        appendType(out, a.type);
    }
    void operator()(const DictionaryAttr& a)
    {
        auto byName = [](const NamedAttribute& x, const NamedAttribute& y) { return x.name < y.name; };
        const NamedAttrList* entries = &a.entries;
        NamedAttrList sorted;
        if (!std::is_sorted(entries->begin(), entries->end(), byName)) {
            sorted = *entries;
            std::stable_sort(sorted.begin(), sorted.end(), byName);
            entries = &sorted;
        }
        out += '{';
        for (size_t i = 0; i < entries->size(); ++i) {
            if (i)
                out += ", ";
            appendNamedAttribute(out, (*entries)[i]);
        }
        out += '}';
    }
    void operator()(const OpaqueAttr& a)
    {
        out += '#' + a.dialect;
        if (!a.mnemonic.empty())
            out += '.' + a.mnemonic;
        if (!a.body.empty() || a.mnemonic.empty())
            out += '<' + a.body + '>';
    }
    void operator()(const MeshAttr& a) { out += "#sdy.mesh" + a.mesh.toString(); }
    template <typename T> void operator()(const Boxed<T>& a) { (*this)(a.get()); }
    void operator()(const ShardingAttr& a) { out += a.sharding.toAttrString(); }
    void operator()(const ShardingPerValueAttr& a) { out += a.value.toAttrString(); }
    void operator()(const OpShardingRuleAttr& a) { out += a.rule.toAttrString(); }
    void operator()(const ManualAxesAttr& a)
    {
        out += "#sdy<manual_axes{";
        for (size_t i = 0; i < a.axes.size(); ++i) {
            if (i)
                out += ", ";
            appendQuoted(out, a.axes[i]);
        }
        out += "}>";
    }
    void operator()(const AxisRefListAttr& a)
    {
        out += "#sdy<axis_ref_list";
        appendAxisList(out, a.axes);
        out += '>';
    }
    void operator()(const ListOfAxisRefListsAttr& a)
    {
        out += "#sdy<list_of_axis_ref_lists[";
        for (size_t i = 0; i < a.lists.size(); ++i) {
            if (i)
                out += ", ";
            appendAxisList(out, a.lists[i]);
        }
        out += "]>";
    }
    void operator()(const AllToAllParamListAttr& a)
    {
        out += "#sdy<all_to_all_param_list[";
        for (size_t i = 0; i < a.params.size(); ++i) {
            if (i)
                out += ", ";
            appendAxisList(out, a.params[i].axes);
            out += ": " + std::to_string(a.params[i].srcDim) + "->" + std::to_string(a.params[i].tgtDim);
        }
        out += "]>";
    }
    void operator()(const PropagationEdgesAttr& a)
    {
        out += "#sdy.propagation_edges<[";
        for (size_t s = 0; s < a.steps.size(); ++s) {
            if (s)
                out += ", ";
            const PropagationEdgeStep& step = a.steps[s];
            out += "{step-" + std::to_string(step.step) + " = [";
            for (size_t e = 0; e < step.entries.size(); ++e) {
                if (e)
                    out += ", ";
                const PropagationEdgeEntry& entry = step.entries[e];
                out += '{';
                appendAxisRef(out, entry.axis);
                out += " = ";
                appendEdgeNode(out, entry.source);
                out += " -> [";
                for (size_t t = 0; t < entry.targets.size(); ++t) {
                    if (t)
                        out += ", ";
                    appendEdgeNode(out, entry.targets[t]);
                }
                out += "]}";
            }
            out += "]}";
        }
        out += "]>";
    }
    void operator()(const LocationAttr& a) { appendLocation(out, a); }
};
} // namespace

void appendAttribute(std::string& out, const Attribute& attr, TypeElision elision)
{
    std::visit(AttrVisitor{out, elision}, attr.payload());
}

// ---- small accessors used by the custom forms ----------------------------------------------

const Attribute* findProp(const Op& op, const std::string& name) { return op.attr(name); }

bool intList(const Attribute* a, std::vector<int64_t>& out)
{
    out.clear();
    if (!a)
        return false;
    if (auto* d = a->as<DenseArrayAttr>()) {
        if (isFloatElementType(d->elementType))
            return false;
        out = d->ints;
        return true;
    }
    if (auto* arr = a->as<ArrayAttr>()) {
        for (const auto& e : arr->elements) {
            int64_t v;
            if (!e || !intValue(e.get(), v))
                return false;
            out.push_back(v);
        }
        return true;
    }
    if (auto* de = a->as<DenseElementsAttr>()) {
        std::string elt = de->type.elementType();
        if (!isIntegerElementType(elt) && elt != "index")
            return false;
        int eb = elementBytes(elt);
        int64_t n = de->type.numElements();
        if (n < 0 || (de->splat && n > kMaxSplatListLength))
            return false;
        size_t stored = de->data.size() / static_cast<size_t>(eb);
        for (int64_t i = 0; i < n; ++i) {
            size_t k = de->splat ? 0 : static_cast<size_t>(i);
            if (k >= stored)
                return false;
            out.push_back(readInt(&de->data[k * static_cast<size_t>(eb)], eb, isUnsignedElementType(elt),
                                  elt == "index" ? 64 : elementBitWidth(elt)));
        }
        return true;
    }
    return false;
}

bool intValue(const Attribute* a, int64_t& out)
{
    if (!a)
        return false;
    if (auto* i = a->as<IntegerAttr>()) {
        out = i->value;
        return true;
    }
    return false;
}

bool boolValue(const Attribute* a, bool& out)
{
    if (!a)
        return false;
    if (auto* b = a->as<BoolAttr>()) {
        out = b->value;
        return true;
    }
    if (auto* i = a->as<IntegerAttr>(); i && i->type.name() == "i1") {
        out = i->value != 0;
        return true;
    }
    return false;
}

bool enumKeyword(const Attribute* a, std::string& out)
{
    if (!a)
        return false;
    if (auto* s = a->as<StringAttr>()) {
        out = s->value;
        return isBareIdentifier(out);
    }
    if (auto* o = a->as<OpaqueAttr>()) {
        // `#stablehlo<comparison_direction GT>` or `#stablehlo.comparison_direction<GT>`
        std::string body = o->body;
        size_t sp = body.rfind(' ');
        out = sp == std::string::npos ? body : body.substr(sp + 1);
        return isBareIdentifier(out);
    }
    return false;
}

} // namespace shardx::io::detail
