// Tensor: a dense, row-major host tensor of one StableHLO element type (the executors' data).
#pragma once

#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/Attribute.h"
#include "core/ir/Type.h"

namespace shardx::exec {

/// The element types a tensor holds. Integers of any width 8..64 (signed or not) and i1; the four
/// float formats; complex of f32 and f64.
enum class ElementKind { Bool, Int, Float, Complex };

/// An element type: its kind, bit width and signedness. `name` is the MLIR spelling.
struct ElementType {
    ElementKind kind = ElementKind::Float;
    int bits = 32; ///< storage bits of one element (i1: 8, complex<f64>: 128)
    bool isUnsigned = false;
    bool isBf16 = false; ///< a 16-bit float in bfloat16 format (else IEEE half)
    std::string name = "f32";

    /// Bytes one element takes in a tensor's data.
    int byteSize() const { return bits / 8; }
    bool isFloat() const { return kind == ElementKind::Float; }
    bool isInteger() const { return kind == ElementKind::Int; }
    bool isBool() const { return kind == ElementKind::Bool; }
    bool isComplex() const { return kind == ElementKind::Complex; }
    bool operator==(const ElementType& o) const { return name == o.name; }
};

/// The element type of an MLIR spelling ("f32", "ui32", "i1", "bf16", "complex<f64>"), or nullopt
/// for one the executors do not hold (f8 family, index, quantized types...).
std::optional<ElementType> elementTypeFromName(const std::string& name);

/// Row-major strides of `shape` (in elements).
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape);
/// Number of elements of `shape` (1 for a scalar).
int64_t elementCount(const std::vector<int64_t>& shape);
/// Advances the multi-index `index` within `shape` in row-major order; false after the last one.
bool nextIndex(std::vector<int64_t>& index, const std::vector<int64_t>& shape);

/// IEEE half and bfloat16 conversions (round to nearest even on the way in).
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float bf16ToFloat(uint16_t b);
uint16_t floatToBf16(float f);

/// A dense tensor: element type, static shape and the elements as little-endian bytes, row-major
/// (the layout of `dense<"0x...">`: i1 one byte per element, 0 or 1; complex as real, imaginary).
/// Elements are read and written as double (floats), int64_t (integers and i1: the value, wrapped
/// to the type's width on write) or complex<double>. An element position outside the tensor throws
/// std::out_of_range (a program whose attributes do not match its shapes is an error, not a crash).
class Tensor {
public:
    Tensor() = default;
    /// A zero-filled tensor.
    Tensor(ElementType type, std::vector<int64_t> shape);

    const ElementType& elementType() const { return m_type; }
    const std::vector<int64_t>& shape() const { return m_shape; }
    int rank() const { return static_cast<int>(m_shape.size()); }
    int64_t dim(int i) const { return m_shape[static_cast<size_t>(i)]; }
    int64_t numElements() const { return m_count; }
    const std::vector<uint8_t>& bytes() const { return m_data; }
    std::vector<uint8_t>& bytes() { return m_data; }

    /// Element `i` (row-major position) as a double: exact for every float format, and the value
    /// of an integer.
    double getFloat(int64_t i) const;
    /// Stores `v` at `i`, rounded to the element type (f32: to float, f16/bf16: to nearest even).
    void setFloat(int64_t i, double v);
    /// Element `i` as an integer (i1: 0 or 1; unsigned types zero-extended; ui64 as its bit pattern).
    int64_t getInt(int64_t i) const;
    /// Stores the low bits of `v` at `i` (i1: v != 0).
    void setInt(int64_t i, int64_t v);
    std::complex<double> getComplex(int64_t i) const;
    void setComplex(int64_t i, std::complex<double> v);
    /// Copies element `src` of `from` (same element type) to element `dst` of this tensor.
    void copyElement(int64_t dst, const Tensor& from, int64_t src);

    /// Row-major position of a multi-index.
    int64_t linearIndex(const std::vector<int64_t>& index) const;

    /// Same element type and shape.
    bool sameShapeAndType(const Tensor& o) const { return m_type == o.m_type && m_shape == o.m_shape; }
    /// `tensor<2x3xf32>`.
    std::string typeString() const;
    /// Element `i` as text (`1.5`, `-3`, `true`, `(1,2)`).
    std::string elementString(int64_t i) const;
    /// The elements as `[[1, 2], [3, 4]]` (at most `limit` elements, then `...`).
    std::string toString(int64_t limit = 64) const;

private:
    /// Byte offset of element `i`; throws std::out_of_range outside the tensor.
    size_t offsetOf(int64_t i) const
    {
        if (i < 0 || i >= m_count)
            throwOutOfRange(i);
        return static_cast<size_t>(i) * static_cast<size_t>(m_type.byteSize());
    }
    [[noreturn]] void throwOutOfRange(int64_t i) const;

    ElementType m_type;
    std::vector<int64_t> m_shape;
    int64_t m_count = 1;
    std::vector<uint8_t> m_data;
};

/// The tensor of a `dense<...>` attribute (splat expanded) with the attribute's shape and element
/// type. nullopt and `error` set when the element type is not one a tensor holds.
std::optional<Tensor> tensorFromDense(const ir::DenseElementsAttr& dense, std::string& error);
/// A zero tensor of a tensor type; nullopt for a type that is no static tensor of a supported element
/// type. `!stablehlo.token` gives a scalar placeholder (element type named `!stablehlo.token`).
std::optional<Tensor> zeroTensorOfType(const ir::Type& type, std::string& error);

} // namespace shardx::exec
