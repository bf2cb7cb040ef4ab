// Type: the uniquing table, constructors, queries and MLIR spelling.
#include "core/ir/Type.h"

#include <mutex>

#include "core/ir/Attribute.h"
#include "core/support/Arithmetic.h"

namespace shardx::ir {

namespace detail {
constinit const TypeStorage kNoneTypeStorage{};
} // namespace detail

namespace {

/// What a type is made of, viewed (no copy) while it is looked up in the table.
struct TypeKey {
    Type::Kind kind = Type::Kind::None;
    bool ranked = true;
    const std::vector<int64_t>* shape = nullptr;
    std::string_view name;
    const std::vector<Type>* elements = nullptr;
    const std::vector<Type>* results = nullptr;
    const std::shared_ptr<const Attribute>* encoding = nullptr;
};

constinit const std::vector<int64_t> kNoTypeDims;
constinit const std::vector<Type> kNoTypeList;
constinit const std::shared_ptr<const Attribute> kNoTypeEncoding;

inline size_t typeMixHash(size_t h, size_t v) { return (h ^ v) * 0x100000001b3ull + (h >> 29); }

/// The encoding takes no part in the hash (Attribute has none; encodings are rare): types that differ
/// only in their encoding share a bucket and are told apart by attrEquals.
size_t typeKeyHash(const TypeKey& k)
{
    size_t h = 0xcbf29ce484222325ull;
    h = typeMixHash(h, static_cast<size_t>(k.kind) * 2 + (k.ranked ? 1 : 0));
    for (int64_t d : *k.shape)
        h = typeMixHash(h, static_cast<size_t>(d));
    h = typeMixHash(h, std::hash<std::string_view>()(k.name));
    for (const Type& t : *k.elements)
        h = typeMixHash(h, reinterpret_cast<uintptr_t>(t.impl()));
    h = typeMixHash(h, 0x9e3779b97f4a7c15ull);
    for (const Type& t : *k.results)
        h = typeMixHash(h, reinterpret_cast<uintptr_t>(t.impl()));
    return h;
}

bool typeKeyMatches(const detail::TypeStorage& s, size_t hash, const TypeKey& k)
{
    return s.hash == hash && s.kind == k.kind && s.ranked == k.ranked && s.shape == *k.shape && s.name == k.name &&
           s.elements == *k.elements && s.results == *k.results && attrEquals(s.encoding, *k.encoding);
}

} // namespace

/// The process-wide table of type storages: open addressing over pointers, linear probing, under one
/// mutex. Storages are never freed (the table is reachable until exit, so leak checkers do not report it).
struct TypeUniquer {
    std::mutex mutex;
    std::vector<const detail::TypeStorage*> slots = std::vector<const detail::TypeStorage*>(1024, nullptr);
    size_t count = 0;

    static TypeUniquer& instance()
    {
        static TypeUniquer* table = new TypeUniquer; // never destroyed: Types may outlive static destructors
        return *table;
    }

    static Type get(const TypeKey& k)
    {
        if (k.kind == Type::Kind::None && !*k.encoding)
            return Type();
        const size_t hash = typeKeyHash(k);
        TypeUniquer& u = instance();
        std::lock_guard lock(u.mutex);
        size_t mask = u.slots.size() - 1;
        size_t i = hash & mask;
        while (const detail::TypeStorage* s = u.slots[i]) {
            if (typeKeyMatches(*s, hash, k))
                return Type(s);
            i = (i + 1) & mask;
        }
        auto* s = new detail::TypeStorage;
        s->kind = k.kind;
        s->ranked = k.ranked;
        s->hash = hash;
        s->shape = *k.shape;
        s->name = std::string(k.name);
        s->elements = *k.elements;
        s->results = *k.results;
        s->encoding = *k.encoding;
        if (s->kind == Type::Kind::Tensor && s->ranked) {
            s->staticShape = true;
            int64_t n = 1, checked = 1;
            for (int64_t d : s->shape) {
                if (d == Type::kDynamic) {
                    s->staticShape = false;
                    continue;
                }
                n = saturatingMul(n, d);
                if (!s->elementCountOverflow) {
                    const std::optional<int64_t> product = checkedMul(checked, d);
                    if (!product)
                        s->elementCountOverflow = true;
                    else
                        checked = *product;
                }
            }
            s->numElements = s->staticShape ? n : -1;
        }
        u.slots[i] = s;
        if (++u.count * 2 > u.slots.size())
            u.grow();
        return Type(s);
    }

    void grow()
    {
        std::vector<const detail::TypeStorage*> bigger(slots.size() * 2, nullptr);
        const size_t mask = bigger.size() - 1;
        for (const detail::TypeStorage* s : slots) {
            if (!s)
                continue;
            size_t i = s->hash & mask;
            while (bigger[i])
                i = (i + 1) & mask;
            bigger[i] = s;
        }
        slots.swap(bigger);
    }
};

namespace {

TypeKey typeKeyOf(Type::Kind kind)
{
    TypeKey k;
    k.kind = kind;
    k.shape = &kNoTypeDims;
    k.elements = &kNoTypeList;
    k.results = &kNoTypeList;
    k.encoding = &kNoTypeEncoding;
    return k;
}

TypeKey typeKeyOf(const detail::TypeStorage& s)
{
    TypeKey k;
    k.kind = s.kind;
    k.ranked = s.ranked;
    k.shape = &s.shape;
    k.name = s.name;
    k.elements = &s.elements;
    k.results = &s.results;
    k.encoding = &s.encoding;
    return k;
}

} // namespace

Type Type::tensor(const std::vector<int64_t>& shape, std::string_view elementType)
{
    TypeKey k = typeKeyOf(Kind::Tensor);
    k.shape = &shape;
    k.name = elementType;
    return TypeUniquer::get(k);
}

Type Type::unrankedTensor(std::string_view elementType)
{
    TypeKey k = typeKeyOf(Kind::Tensor);
    k.ranked = false;
    k.name = elementType;
    return TypeUniquer::get(k);
}

Type Type::token() { return TypeUniquer::get(typeKeyOf(Kind::Token)); }

Type Type::tuple(const std::vector<Type>& elements)
{
    TypeKey k = typeKeyOf(Kind::Tuple);
    k.elements = &elements;
    return TypeUniquer::get(k);
}

Type Type::scalar(std::string_view name)
{
    TypeKey k = typeKeyOf(Kind::Scalar);
    k.name = name;
    return TypeUniquer::get(k);
}

Type Type::function(const std::vector<Type>& inputs, const std::vector<Type>& results)
{
    TypeKey k = typeKeyOf(Kind::Function);
    k.elements = &inputs;
    k.results = &results;
    return TypeUniquer::get(k);
}

Type Type::opaque(std::string_view spelling)
{
    TypeKey k = typeKeyOf(Kind::Opaque);
    k.name = spelling;
    return TypeUniquer::get(k);
}

void Type::setEncoding(std::shared_ptr<const Attribute> e)
{
    TypeKey k = typeKeyOf(*m_impl);
    k.encoding = &e;
    m_impl = TypeUniquer::get(k).m_impl;
}

Type Type::withShape(const std::vector<int64_t>& shape) const
{
    TypeKey k = typeKeyOf(*m_impl);
    k.ranked = true;
    k.shape = &shape;
    return TypeUniquer::get(k);
}

TypeShape Type::typeShape() const
{
    TypeShape t;
    if (isRankedTensor()) {
        t.kind = TypeShape::Kind::RankedTensor;
        t.dims = shape();
    } else if (isTensor()) {
        t.kind = TypeShape::Kind::UnrankedTensor;
    } else if (isTuple()) {
        t.kind = TypeShape::Kind::Tuple;
        for (const Type& e : elements())
            t.elements.push_back(e.typeShape());
    }
    return t;
}

static std::string joinTypes(const std::vector<Type>& types)
{
    std::string s;
    for (size_t i = 0; i < types.size(); ++i) {
        if (i)
            s += ", ";
        s += types[i].toString();
    }
    return s;
}

std::string Type::toString() const
{
    switch (kind()) {
    case Kind::None: return "none";
    case Kind::Tensor: {
        std::string s = "tensor<";
        if (!m_impl->ranked) {
            s += "*x";
        } else {
            for (int64_t d : shape()) {
                s += d == kDynamic ? std::string("?") : std::to_string(d);
                s += 'x';
            }
        }
        s += m_impl->name;
        // Encodings are printed by the MLIR printer, which knows every attribute kind.
        s += '>';
        return s;
    }
    case Kind::Token: return "!stablehlo.token";
    case Kind::Tuple: return "tuple<" + joinTypes(elements()) + ">";
    case Kind::Scalar: return m_impl->name;
    case Kind::Function: {
        std::string s = "(" + joinTypes(elements()) + ") -> ";
        const std::vector<Type>& res = results();
        if (res.size() == 1 && res[0].kind() != Kind::Function)
            return s + res[0].toString();
        return s + "(" + joinTypes(res) + ")";
    }
    case Kind::Opaque: return m_impl->name;
    }
    return "none";
}
int elementBitWidth(const std::string& t)
{
    if (t == "i1")
        return 1;
    if (t == "bf16" || t == "f16")
        return 16;
    if (t == "f32" || t == "tf32")
        return t == "tf32" ? 19 : 32;
    if (t == "f64")
        return 64;
    if (t.rfind("f8", 0) == 0)
        return 8;
    if (t.rfind("f4", 0) == 0)
        return 4;
    if (t.rfind("f6", 0) == 0)
        return 6;
    size_t p = 0;
    if (t.rfind("ui", 0) == 0 || t.rfind("si", 0) == 0)
        p = 2;
    else if (t.rfind("i", 0) == 0)
        p = 1;
    else if (t.rfind("complex<", 0) == 0 && t.back() == '>')
        return 2 * elementBitWidth(t.substr(8, t.size() - 9));
    else
        return 0;
    if (p >= t.size())
        return 0;
    int w = 0;
    for (size_t i = p; i < t.size(); ++i) {
        if (t[i] < '0' || t[i] > '9' || w > 100000)
            return 0;
        w = w * 10 + (t[i] - '0');
    }
    return w;
}

bool isFloatElementType(const std::string& t)
{
    return t == "f16" || t == "bf16" || t == "f32" || t == "f64" || t == "tf32" || t.rfind("f8", 0) == 0 ||
           t.rfind("f4", 0) == 0 || t.rfind("f6", 0) == 0;
}

bool isIntegerElementType(const std::string& t)
{
    if (t.empty() || isFloatElementType(t) || t.rfind("complex", 0) == 0 || t == "index")
        return false;
    return elementBitWidth(t) > 0;
}

bool isUnsignedElementType(const std::string& t) { return t.rfind("ui", 0) == 0 && isIntegerElementType(t); }

} // namespace shardx::ir
