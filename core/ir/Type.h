// Type: tensor, token, tuple, scalar and opaque dialect types of the IR.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/sharding/TypeShape.h"

namespace shardx::ir {

class Attribute;

/// A value type. Value semantics; cheap enough to copy for the sizes we see.
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

    Type() = default;
    static Type tensor(std::vector<int64_t> shape, std::string elementType);
    static Type unrankedTensor(std::string elementType);
    static Type token();
    static Type tuple(std::vector<Type> elements);
    static Type scalar(std::string name);
    static Type function(std::vector<Type> inputs, std::vector<Type> results);
    static Type opaque(std::string spelling);

    Kind kind() const { return m_kind; }
    bool isNone() const { return m_kind == Kind::None; }
    bool isTensor() const { return m_kind == Kind::Tensor; }
    bool isRankedTensor() const { return m_kind == Kind::Tensor && m_ranked; }
    bool isToken() const { return m_kind == Kind::Token; }
    bool isTuple() const { return m_kind == Kind::Tuple; }
    /// Ranked tensor with no dynamic dimension.
    bool hasStaticShape() const;
    /// What the sharding and rule verifiers check of this type.
    TypeShape typeShape() const;

    // Tensor
    int rank() const { return static_cast<int>(m_shape.size()); }
    const std::vector<int64_t>& shape() const { return m_shape; }
    int64_t dim(int i) const { return m_shape[static_cast<size_t>(i)]; }
    bool isDynamicDim(int i) const { return dim(i) == kDynamic; }
    /// Element type spelling: "f32", "i1", "ui32", "bf16", "complex<f32>", "!quant.uniform<...>".
    const std::string& elementType() const { return m_name; }
    /// Number of elements (-1 when not static); INT64_MAX when the product of the dimensions does not fit,
    /// which the readers refuse (hasElementCountOverflow).
    int64_t numElements() const;
    /// True when the product of the static dimensions does not fit in 64 bits (`tensor<2^40 x 2^40 x f32>`).
    bool hasElementCountOverflow() const;
    /// Encoding attribute of a tensor (`tensor<8xf32, #enc>`), may be null.
    const std::shared_ptr<const Attribute>& encoding() const { return m_encoding; }
    void setEncoding(std::shared_ptr<const Attribute> e) { m_encoding = std::move(e); }
    /// Same kind of tensor with another shape.
    Type withShape(std::vector<int64_t> shape) const;

    // Tuple / Function
    const std::vector<Type>& elements() const { return m_elements; } ///< tuple elements / function inputs
    const std::vector<Type>& results() const { return m_results; }   ///< function results

    // Scalar / Opaque
    const std::string& name() const { return m_name; }

    bool operator==(const Type& o) const;
    bool operator!=(const Type& o) const { return !(*this == o); }

    /// MLIR spelling: `tensor<8x?xf32>`, `!stablehlo.token`, `tuple<...>`, `(a) -> b`.
    std::string toString() const;

private:
    Kind m_kind = Kind::None;
    bool m_ranked = true;
    std::vector<int64_t> m_shape;
    std::string m_name;
    std::vector<Type> m_elements;
    std::vector<Type> m_results;
    std::shared_ptr<const Attribute> m_encoding;
};

/// Bit width of a scalar element type spelling (f32 -> 32, i1 -> 1, bf16 -> 16), 0 if unknown.
int elementBitWidth(const std::string& elementType);
/// True for f16, bf16, f32, f64 and the f8 family.
bool isFloatElementType(const std::string& elementType);
/// True for iN / siN / uiN.
bool isIntegerElementType(const std::string& elementType);
/// True for uiN.
bool isUnsignedElementType(const std::string& elementType);

} // namespace shardx::ir
