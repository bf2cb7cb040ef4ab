// Overflow-checked arithmetic on sizes (dimensions, axis sizes, element and device counts).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace shardx {

/// a * b, or nullopt when the product does not fit in int64.
inline std::optional<int64_t> checkedMul(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

/// a * b for sizes (a, b >= 0), INT64_MAX when the product does not fit.
inline int64_t saturatingMul(int64_t a, int64_t b)
{
    return checkedMul(a, b).value_or(std::numeric_limits<int64_t>::max());
}

} // namespace shardx
