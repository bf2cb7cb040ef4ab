// Tensor: a dense, row-major host tensor of one StableHLO element type (the executors' data).
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/Attribute.h"
#include "core/ir/Type.h"
#include "core/support/Float16.h"

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

// IEEE half and bfloat16 conversions: core/support/Float16.h (halfToFloat, floatToHalf, bf16ToFloat, floatToBf16).

/// A copy of a tensor's elements kept somewhere else than host memory: a device buffer (the Vulkan back end
/// keeps the values an op computes on its device, so that the next op on that device reads them there instead
/// of a download and an upload). Immutable once made, and shared by the copies of the tensors that hold it.
class TensorStorage {
public:
    virtual ~TensorStorage() = default;
    /// Copies the elements into `out`, which has the tensor's byte size (the layout of Tensor::bytes). Throws
    /// std::runtime_error when they cannot be read (a lost device).
    virtual void fetch(std::vector<uint8_t>& out) const = 0;
};

/// A dense tensor: element type, static shape and the elements as little-endian bytes, row-major
/// (the layout of `dense<"0x...">`: i1 one byte per element, 0 or 1; complex as real, imaginary).
/// Elements are read and written as double (floats), int64_t (integers and i1: the value, wrapped
/// to the type's width on write) or complex<double>. An element position outside the tensor throws
/// std::out_of_range (a program whose attributes do not match its shapes is an error, not a crash).
///
/// A tensor may also hold a TensorStorage with a copy of its elements (`storage()`), or only that: a tensor made
/// by `onStorage` fetches its elements into host memory on its first read. Reading a tensor whose elements are
/// not fetched yet is not thread-safe (the fetch writes the host copy): the interpreter fetches an op's operands
/// on the thread that owns them before a handler (or a collective's peers) reads them. Any write to the elements
/// (the non-const `bytes()`, the setters) fetches them and drops the storage, whose copy is then stale.
class Tensor {
public:
    Tensor() = default;
    /// A zero-filled tensor.
    Tensor(ElementType type, std::vector<int64_t> shape);
    /// A tensor whose elements are in `storage` only (fetched on the first read).
    static Tensor onStorage(ElementType type, std::vector<int64_t> shape, std::shared_ptr<const TensorStorage> storage);

    const ElementType& elementType() const { return m_type; }
    const std::vector<int64_t>& shape() const { return m_shape; }
    int rank() const { return static_cast<int>(m_shape.size()); }
    int64_t dim(int i) const { return m_shape[static_cast<size_t>(i)]; }
    int64_t numElements() const { return m_count; }
    const std::vector<uint8_t>& bytes() const
    {
        fetch();
        return m_data;
    }
    /// For writing: the storage, if any, is dropped.
    std::vector<uint8_t>& bytes()
    {
        beforeWrite();
        return m_data;
    }

    /// The copy of the elements kept elsewhere (null: none).
    const std::shared_ptr<const TensorStorage>& storage() const { return m_storage; }
    /// Records that `storage` holds a copy of these (host) elements, so that a back end finds them there next
    /// time. Ignored when the tensor has a storage already.
    void attachStorage(std::shared_ptr<const TensorStorage> storage) const;
    /// False while the elements are in the storage only.
    bool onHost() const { return !m_pending; }
    /// Fetches the elements into host memory if they are not there yet (keeps the storage).
    void fetch() const
    {
        if (m_pending) [[unlikely]]
            fetchFromStorage();
    }
    /// Fetches the elements and drops the storage: the tensor is a plain host tensor afterwards.
    void dropStorage();

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
    void fetchFromStorage() const;
    void beforeWrite()
    {
        if (m_storage) [[unlikely]]
            dropStorage();
    }
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
    /// The elements in host memory (empty while `m_pending`).
    mutable std::vector<uint8_t> m_data;
    /// A copy of the elements elsewhere; `m_pending`: the only one so far.
    mutable std::shared_ptr<const TensorStorage> m_storage;
    mutable bool m_pending = false;
};

/// The tensor of a `dense<...>` attribute (splat expanded) with the attribute's shape and element
/// type. nullopt and `error` set when the element type is not one a tensor holds.
std::optional<Tensor> tensorFromDense(const ir::DenseElementsAttr& dense, std::string& error);
/// A zero tensor of a tensor type; nullopt for a type that is no static tensor of a supported element
/// type. `!stablehlo.token` gives a scalar placeholder (element type named `!stablehlo.token`).
std::optional<Tensor> zeroTensorOfType(const ir::Type& type, std::string& error);

} // namespace shardx::exec
