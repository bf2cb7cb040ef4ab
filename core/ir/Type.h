// Type: tensor, token, tuple, scalar and opaque dialect types of the IR.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/sharding/TypeShape.h"

namespace shardx::ir {

class Attribute;

namespace detail {
struct TypeStorage;
}

/// A value type. Types are uniqued (as MLIR's): every Type made from the same kind, shape, element
/// type, encoding and elements points at one immutable storage in a process-wide table, so a Type is
/// one pointer, copying it copies the pointer, and two Types compare equal exactly when they hold the
/// same storage. Values and attributes share their type's shape rather than each holding a copy. The
/// table only grows (a program uses few distinct types); it is safe to make types from several threads.
class Type {
public:
    enum class Kind {
        None,     ///< no type (default-constructed)
        Tensor,   ///< ranked or unranked tensor
        Token,    ///< !stablehlo.token
        Tuple,    ///< tuple<...>
        Scalar,   ///< a builtin scalar type used on its own: f32, i64, index, complex<f32>, none
        Function, ///< (inputs) -> results, used in type attributes
        Opaque,   ///< any other dialect type `!dialect.name<...>`, kept as its normalized spelling
    };

    static constexpr int64_t kDynamic = kDynamicSize;

    Type() noexcept;
    static Type tensor(const std::vector<int64_t>& shape, std::string_view elementType);
    static Type unrankedTensor(std::string_view elementType);
    static Type token();
    static Type tuple(const std::vector<Type>& elements);
    static Type scalar(std::string_view name);
    static Type function(const std::vector<Type>& inputs, const std::vector<Type>& results);
    static Type opaque(std::string_view spelling);

    Kind kind() const;
    bool isNone() const { return kind() == Kind::None; }
    bool isTensor() const { return kind() == Kind::Tensor; }
    bool isRankedTensor() const;
    bool isToken() const { return kind() == Kind::Token; }
    bool isTuple() const { return kind() == Kind::Tuple; }
    /// Ranked tensor with no dynamic dimension.
    bool hasStaticShape() const;
    /// What the sharding and rule verifiers check of this type.
    TypeShape typeShape() const;

    // Tensor
    int rank() const { return static_cast<int>(shape().size()); }
    const std::vector<int64_t>& shape() const;
    int64_t dim(int i) const { return shape()[static_cast<size_t>(i)]; }
    bool isDynamicDim(int i) const { return dim(i) == kDynamic; }
    /// Element type spelling: "f32", "i1", "ui32", "bf16", "complex<f32>", "!quant.uniform<...>".
    const std::string& elementType() const;
    /// Number of elements (-1 when not static); INT64_MAX when the product of the dimensions does not fit,
    /// which the readers refuse (hasElementCountOverflow).
    int64_t numElements() const;
    /// True when the product of the static dimensions does not fit in 64 bits (`tensor<2^40 x 2^40 x f32>`).
    bool hasElementCountOverflow() const;
    /// Encoding attribute of a tensor (`tensor<8xf32, #enc>`), may be null.
    const std::shared_ptr<const Attribute>& encoding() const;
    /// Makes this the same type with encoding `e` (another uniqued type).
    void setEncoding(std::shared_ptr<const Attribute> e);
    /// Same kind of tensor with another shape.
    Type withShape(const std::vector<int64_t>& shape) const;

    // Tuple / Function
    const std::vector<Type>& elements() const; ///< tuple elements / function inputs
    const std::vector<Type>& results() const;  ///< function results

    // Scalar / Opaque
    const std::string& name() const { return elementType(); }

    /// One pointer comparison: equal types share their storage.
    bool operator==(const Type& o) const { return m_impl == o.m_impl; }
    bool operator!=(const Type& o) const { return m_impl != o.m_impl; }

    /// MLIR spelling: `tensor<8x?xf32>`, `!stablehlo.token`, `tuple<...>`, `(a) -> b`.
    std::string toString() const;

    /// The uniqued storage (an identity for hashing a type).
    const detail::TypeStorage* impl() const { return m_impl; }

private:
    explicit Type(const detail::TypeStorage* s) : m_impl(s) {}
    friend struct TypeUniquer;
    const detail::TypeStorage* m_impl;
};

namespace detail {

/// The uniqued data of one Type (immutable once made; see Type).
struct TypeStorage {
    Type::Kind kind = Type::Kind::None;
    bool ranked = true;
    bool staticShape = false; ///< ranked tensor without a dynamic dimension
    bool elementCountOverflow = false;
    int64_t numElements = -1; ///< -1 when not static, INT64_MAX on overflow (Type::numElements)
    size_t hash = 0;
    std::vector<int64_t> shape;
    std::string name; ///< element type (tensor), name (scalar), spelling (opaque)
    std::vector<Type> elements;
    std::vector<Type> results;
    std::shared_ptr<const Attribute> encoding;
};

/// The storage of the default-constructed (None) type.
extern const TypeStorage kNoneTypeStorage;

} // namespace detail

inline Type::Type() noexcept : m_impl(&detail::kNoneTypeStorage) {}
inline Type::Kind Type::kind() const { return m_impl->kind; }
inline bool Type::isRankedTensor() const { return m_impl->kind == Kind::Tensor && m_impl->ranked; }
inline bool Type::hasStaticShape() const { return m_impl->staticShape; }
inline const std::vector<int64_t>& Type::shape() const { return m_impl->shape; }
inline const std::string& Type::elementType() const { return m_impl->name; }
inline int64_t Type::numElements() const { return m_impl->numElements; }
inline bool Type::hasElementCountOverflow() const { return m_impl->elementCountOverflow; }
inline const std::shared_ptr<const Attribute>& Type::encoding() const { return m_impl->encoding; }
inline const std::vector<Type>& Type::elements() const { return m_impl->elements; }
inline const std::vector<Type>& Type::results() const { return m_impl->results; }

/// Bit width of a scalar element type spelling (f32 -> 32, i1 -> 1, bf16 -> 16), 0 if unknown.
int elementBitWidth(const std::string& elementType);
/// True for f16, bf16, f32, f64 and the f8 family.
bool isFloatElementType(const std::string& elementType);
/// True for iN / siN / uiN.
bool isIntegerElementType(const std::string& elementType);
/// True for uiN.
bool isUnsignedElementType(const std::string& elementType);

} // namespace shardx::ir
