// Type: constructors, queries and MLIR spelling.
#include "core/ir/Type.h"

#include "core/ir/Attribute.h"
#include "core/support/Arithmetic.h"

namespace shardx::ir {

Type Type::tensor(std::vector<int64_t> shape, std::string elementType)
{
    Type t;
    t.m_kind = Kind::Tensor;
    t.m_shape = std::move(shape);
    t.m_name = std::move(elementType);
    return t;
}

Type Type::unrankedTensor(std::string elementType)
{
    Type t;
    t.m_kind = Kind::Tensor;
    t.m_ranked = false;
    t.m_name = std::move(elementType);
    return t;
}

Type Type::token()
{
    Type t;
    t.m_kind = Kind::Token;
    return t;
}

Type Type::tuple(std::vector<Type> elements)
{
    Type t;
    t.m_kind = Kind::Tuple;
    t.m_elements = std::move(elements);
    return t;
}

Type Type::scalar(std::string name)
{
    Type t;
    t.m_kind = Kind::Scalar;
    t.m_name = std::move(name);
    return t;
}

Type Type::function(std::vector<Type> inputs, std::vector<Type> results)
{
    Type t;
    t.m_kind = Kind::Function;
    t.m_elements = std::move(inputs);
    t.m_results = std::move(results);
    return t;
}

Type Type::opaque(std::string spelling)
{
    Type t;
    t.m_kind = Kind::Opaque;
    t.m_name = std::move(spelling);
    return t;
}

TypeShape Type::typeShape() const
{
    TypeShape t;
    if (isRankedTensor()) {
        t.kind = TypeShape::Kind::RankedTensor;
        t.dims = m_shape;
    } else if (isTensor()) {
        t.kind = TypeShape::Kind::UnrankedTensor;
    } else if (isTuple()) {
        t.kind = TypeShape::Kind::Tuple;
        for (const Type& e : m_elements)
            t.elements.push_back(e.typeShape());
    }
    return t;
}

bool Type::hasStaticShape() const
{
    if (!isRankedTensor())
        return false;
    for (int64_t d : m_shape)
        if (d == kDynamic)
            return false;
    return true;
}

int64_t Type::numElements() const
{
    if (!hasStaticShape())
        return -1;
    int64_t n = 1;
    for (int64_t d : m_shape)
        n = saturatingMul(n, d);
    return n;
}

bool Type::hasElementCountOverflow() const
{
    if (!isRankedTensor())
        return false;
    int64_t n = 1;
    for (int64_t d : m_shape) {
        if (d == kDynamic)
            continue;
        const std::optional<int64_t> product = checkedMul(n, d);
        if (!product)
            return true;
        n = *product;
    }
    return false;
}

Type Type::withShape(std::vector<int64_t> shape) const
{
    Type t = *this;
    t.m_ranked = true;
    t.m_shape = std::move(shape);
    return t;
}

bool Type::operator==(const Type& o) const
{
    if (m_kind != o.m_kind || m_ranked != o.m_ranked || m_shape != o.m_shape || m_name != o.m_name ||
        m_elements != o.m_elements || m_results != o.m_results)
        return false;
    if (!m_encoding || !o.m_encoding)
        return !m_encoding && !o.m_encoding;
    return *m_encoding == *o.m_encoding;
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
    switch (m_kind) {
    case Kind::None: return "none";
    case Kind::Tensor: {
        std::string s = "tensor<";
        if (!m_ranked) {
            s += "*x";
        } else {
            for (int64_t d : m_shape) {
                s += d == kDynamic ? std::string("?") : std::to_string(d);
                s += 'x';
            }
        }
        s += m_name;
        // Encodings are printed by the MLIR printer, which knows every attribute kind.
        s += '>';
        return s;
    }
    case Kind::Token: return "!stablehlo.token";
    case Kind::Tuple: return "tuple<" + joinTypes(m_elements) + ">";
    case Kind::Scalar: return m_name;
    case Kind::Function: {
        std::string s = "(" + joinTypes(m_elements) + ") -> ";
        if (m_results.size() == 1 && m_results[0].kind() != Kind::Function)
            return s + m_results[0].toString();
        return s + "(" + joinTypes(m_results) + ")";
    }
    case Kind::Opaque: return m_name;
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
