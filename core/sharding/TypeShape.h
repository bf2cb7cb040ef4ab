// TypeShape: what the sharding and rule verifiers know of a value's type (ir::Type sits above).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace shardx {

/// The size of a dynamic dimension (`?`); ir::Type::kDynamic has the same value.
constexpr int64_t kDynamicSize = std::numeric_limits<int64_t>::min();

/// The shape facts of a value's type that sharding and op-sharding-rule verification check:
/// whether it is a tensor, ranked or not, its dimension sizes, and a tuple's elements.
struct TypeShape {
    enum class Kind {
        RankedTensor,   ///< `tensor<4x?xf32>`: `dims` holds the sizes
        UnrankedTensor, ///< `tensor<*xf32>`
        NotShaped,      ///< a token, a scalar or another non-tensor type
        Tuple,          ///< `tuple<...>`: `elements` holds the element shapes
    };
    Kind kind = Kind::NotShaped;
    std::vector<int64_t> dims;
    std::vector<TypeShape> elements;

    static TypeShape ranked(std::vector<int64_t> dims) { return TypeShape{Kind::RankedTensor, std::move(dims), {}}; }
    bool isTensor() const { return kind == Kind::RankedTensor || kind == Kind::UnrankedTensor; }
    bool isRanked() const { return kind == Kind::RankedTensor; }
    int rank() const { return static_cast<int>(dims.size()); }
    /// A ranked tensor without dynamic dimensions.
    bool hasStaticShape() const
    {
        if (kind != Kind::RankedTensor)
            return false;
        for (int64_t d : dims)
            if (d == kDynamicSize)
                return false;
        return true;
    }
};

} // namespace shardx
