// Tensor: element access, float format conversions and dense-attribute decoding.
#include "core/exec/Tensor.h"

#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace shardx::exec {

std::optional<ElementType> elementTypeFromName(const std::string& name)
{
    ElementType t;
    t.name = name;
    if (name == "i1") {
        t.kind = ElementKind::Bool;
        t.bits = 8;
        return t;
    }
    if (name == "f32" || name == "f64" || name == "f16" || name == "bf16") {
        t.kind = ElementKind::Float;
        t.bits = name == "f64" ? 64 : name == "f32" ? 32 : 16;
        t.isBf16 = name == "bf16";
        return t;
    }
    if (name == "complex<f32>" || name == "complex<f64>") {
        t.kind = ElementKind::Complex;
        t.bits = name == "complex<f64>" ? 128 : 64;
        return t;
    }
    std::string digits;
    if (name.rfind("ui", 0) == 0) {
        t.isUnsigned = true;
        digits = name.substr(2);
    } else if (name.rfind("si", 0) == 0) {
        digits = name.substr(2);
    } else if (name.rfind("i", 0) == 0) {
        digits = name.substr(1);
    } else {
        return std::nullopt;
    }
    if (digits != "8" && digits != "16" && digits != "32" && digits != "64")
        return std::nullopt;
    t.kind = ElementKind::Int;
    t.bits = std::stoi(digits);
    return t;
}

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape)
{
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t i = shape.size(); i > 1; --i)
        strides[i - 2] = strides[i - 1] * shape[i - 1];
    return strides;
}

int64_t elementCount(const std::vector<int64_t>& shape)
{
    int64_t n = 1;
    for (int64_t d : shape)
        n *= d;
    return n;
}

bool nextIndex(std::vector<int64_t>& index, const std::vector<int64_t>& shape)
{
    for (size_t i = index.size(); i > 0; --i) {
        if (++index[i - 1] < shape[i - 1])
            return true;
        index[i - 1] = 0;
    }
    return false;
}

Tensor::Tensor(ElementType type, std::vector<int64_t> shape)
    : m_type(std::move(type)),
      m_shape(std::move(shape)),
      m_count(elementCount(m_shape)),
      m_data(static_cast<size_t>(m_count * m_type.byteSize()), 0)
{}

Tensor Tensor::onStorage(ElementType type, std::vector<int64_t> shape, std::shared_ptr<const TensorStorage> storage)
{
    Tensor t;
    t.m_type = std::move(type);
    t.m_shape = std::move(shape);
    t.m_count = elementCount(t.m_shape);
    t.m_storage = std::move(storage);
    t.m_pending = t.m_storage != nullptr;
    if (!t.m_pending)
        t.m_data.assign(static_cast<size_t>(t.m_count * t.m_type.byteSize()), 0);
    return t;
}

void Tensor::attachStorage(std::shared_ptr<const TensorStorage> storage) const
{
    if (!m_storage)
        m_storage = std::move(storage);
}

void Tensor::fetchFromStorage() const
{
    std::vector<uint8_t> data(static_cast<size_t>(m_count * m_type.byteSize()));
    m_storage->fetch(data);
    m_data = std::move(data);
    m_pending = false;
}

void Tensor::dropStorage()
{
    fetch();
    m_storage.reset();
}

double Tensor::getFloat(int64_t i) const
{
    fetch();
    const uint8_t* p = m_data.data() + offsetOf(i);
    switch (m_type.kind) {
    case ElementKind::Float:
        if (m_type.bits == 32) {
            float f;
            std::memcpy(&f, p, 4);
            return f;
        }
        if (m_type.bits == 64) {
            double d;
            std::memcpy(&d, p, 8);
            return d;
        }
        {
            uint16_t h;
            std::memcpy(&h, p, 2);
            return m_type.isBf16 ? bf16ToFloat(h) : halfToFloat(h);
        }
    case ElementKind::Complex: return getComplex(i).real();
    default: {
        const int64_t v = getInt(i);
        return m_type.isUnsigned && m_type.bits == 64 ? static_cast<double>(static_cast<uint64_t>(v))
                                                      : static_cast<double>(v);
    }
    }
}

void Tensor::setFloat(int64_t i, double v)
{
    beforeWrite();
    uint8_t* p = m_data.data() + offsetOf(i);
    switch (m_type.kind) {
    case ElementKind::Float:
        if (m_type.bits == 32) {
            const float f = static_cast<float>(v);
            std::memcpy(p, &f, 4);
        } else if (m_type.bits == 64) {
            std::memcpy(p, &v, 8);
        } else {
            // v is a float value here (computed in float), so one rounding to 16 bits.
            const uint16_t h = m_type.isBf16 ? floatToBf16(static_cast<float>(v)) : floatToHalf(static_cast<float>(v));
            std::memcpy(p, &h, 2);
        }
        return;
    case ElementKind::Complex: setComplex(i, {v, 0.0}); return;
    default: setInt(i, static_cast<int64_t>(v)); return;
    }
}

int64_t Tensor::getInt(int64_t i) const
{
    fetch();
    const uint8_t* p = m_data.data() + offsetOf(i);
    if (m_type.kind == ElementKind::Float || m_type.kind == ElementKind::Complex)
        return static_cast<int64_t>(getFloat(i));
    switch (m_type.bits) {
    case 8: return m_type.isUnsigned || m_type.isBool() ? static_cast<int64_t>(*p) : static_cast<int64_t>(int8_t(*p));
    case 16: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return m_type.isUnsigned ? static_cast<int64_t>(v) : static_cast<int64_t>(static_cast<int16_t>(v));
    }
    case 32: {
        uint32_t v;
        std::memcpy(&v, p, 4);
        return m_type.isUnsigned ? static_cast<int64_t>(v) : static_cast<int64_t>(static_cast<int32_t>(v));
    }
    default: {
        int64_t v;
        std::memcpy(&v, p, 8);
        return v;
    }
    }
}

void Tensor::setInt(int64_t i, int64_t v)
{
    beforeWrite();
    uint8_t* p = m_data.data() + offsetOf(i);
    if (m_type.kind == ElementKind::Bool) {
        *p = v != 0 ? 1 : 0;
        return;
    }
    if (m_type.kind == ElementKind::Float || m_type.kind == ElementKind::Complex) {
        setFloat(i, static_cast<double>(v));
        return;
    }
    const uint64_t u = static_cast<uint64_t>(v);
    std::memcpy(p, &u, static_cast<size_t>(m_type.byteSize())); // little-endian: the low bytes
}

std::complex<double> Tensor::getComplex(int64_t i) const
{
    if (m_type.kind != ElementKind::Complex)
        return {getFloat(i), 0.0};
    fetch();
    const uint8_t* p = m_data.data() + offsetOf(i);
    if (m_type.bits == 128) {
        double d[2];
        std::memcpy(d, p, 16);
        return {d[0], d[1]};
    }
    float f[2];
    std::memcpy(f, p, 8);
    return {f[0], f[1]};
}

void Tensor::setComplex(int64_t i, std::complex<double> v)
{
    if (m_type.kind != ElementKind::Complex) {
        setFloat(i, v.real());
        return;
    }
    beforeWrite();
    uint8_t* p = m_data.data() + offsetOf(i);
    if (m_type.bits == 128) {
        double d[2] = {v.real(), v.imag()};
        std::memcpy(p, d, 16);
    } else {
        float f[2] = {static_cast<float>(v.real()), static_cast<float>(v.imag())};
        std::memcpy(p, f, 8);
    }
}

void Tensor::copyElement(int64_t dst, const Tensor& from, int64_t src)
{
    if (from.m_type.bits != m_type.bits)
        throw std::invalid_argument("cannot copy an element of " + from.m_type.name + " into " + m_type.name);
    beforeWrite();
    from.fetch();
    std::memcpy(m_data.data() + offsetOf(dst), from.m_data.data() + from.offsetOf(src),
                static_cast<size_t>(m_type.byteSize()));
}

void Tensor::throwOutOfRange(int64_t i) const
{
    throw std::out_of_range("element " + std::to_string(i) + " is outside " + typeString());
}

int64_t Tensor::linearIndex(const std::vector<int64_t>& index) const
{
    int64_t pos = 0;
    for (size_t d = 0; d < index.size(); ++d)
        pos = pos * m_shape[d] + index[d];
    return pos;
}

std::string Tensor::typeString() const
{
    std::string s = "tensor<";
    for (int64_t d : m_shape)
        s += std::to_string(d) + "x";
    return s + m_type.name + ">";
}

std::string Tensor::elementString(int64_t i) const
{
    std::ostringstream os;
    os.precision(m_type.bits == 64 ? 17 : 9);
    switch (m_type.kind) {
    case ElementKind::Bool: os << (getInt(i) ? "true" : "false"); break;
    case ElementKind::Float: os << getFloat(i); break;
    case ElementKind::Complex: {
        auto c = getComplex(i);
        os << "(" << c.real() << "," << c.imag() << ")";
        break;
    }
    default:
        if (m_type.isUnsigned && m_type.bits == 64)
            os << static_cast<uint64_t>(getInt(i));
        else
            os << getInt(i);
    }
    return os.str();
}

std::string Tensor::toString(int64_t limit) const
{
    if (m_shape.empty())
        return elementString(0);
    std::string out;
    std::vector<int64_t> index(m_shape.size(), 0);
    if (m_count == 0)
        return "[]";
    int64_t printed = 0;
    for (int64_t i = 0; i < m_count; ++i) {
        // Open a bracket for every dimension whose index is 0 from the innermost that restarted.
        size_t opened = 0;
        for (size_t d = m_shape.size(); d > 0 && index[d - 1] == 0; --d)
            ++opened;
        if (i > 0)
            out += ", ";
        out += std::string(opened, '[');
        if (printed++ >= limit) {
            out += "...";
            break;
        }
        out += elementString(i);
        size_t closed = 0;
        for (size_t d = m_shape.size(); d > 0 && index[d - 1] == m_shape[d - 1] - 1; --d)
            ++closed;
        out += std::string(closed, ']');
        nextIndex(index, m_shape);
    }
    return out;
}

std::optional<Tensor> zeroTensorOfType(const ir::Type& type, std::string& error)
{
    if (type.isToken()) {
        // A token carries no data: a scalar placeholder that orders side effects.
        ElementType token;
        token.kind = ElementKind::Bool;
        token.bits = 8;
        token.name = "!stablehlo.token";
        return Tensor(token, {});
    }
    if (!type.isRankedTensor() || !type.hasStaticShape()) {
        error = "expected a tensor of static shape, got " + type.toString();
        return std::nullopt;
    }
    auto et = elementTypeFromName(type.elementType());
    if (!et) {
        error = "element type " + type.elementType() + " is not supported";
        return std::nullopt;
    }
    return Tensor(*et, type.shape());
}

std::optional<Tensor> tensorFromDense(const ir::DenseElementsAttr& dense, std::string& error)
{
    auto t = zeroTensorOfType(dense.type, error);
    if (!t)
        return std::nullopt;
    const size_t elem = static_cast<size_t>(t->elementType().byteSize());
    auto& out = t->bytes();
    if (dense.splat) {
        if (dense.data.size() < elem) {
            error = "malformed splat data";
            return std::nullopt;
        }
        for (size_t i = 0; i < out.size(); i += elem)
            std::memcpy(out.data() + i, dense.data.data(), elem);
    } else {
        if (dense.data.size() != out.size()) {
            error = "dense data holds " + std::to_string(dense.data.size()) + " bytes, expected " +
                    std::to_string(out.size());
            return std::nullopt;
        }
        out = dense.data;
    }
    if (t->elementType().isBool())
        for (auto& b : out)
            b = b ? 1 : 0;
    return t;
}

} // namespace shardx::exec
