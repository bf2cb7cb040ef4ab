// Float16.h - IEEE binary16 and bfloat16 to and from float (round to nearest, ties to even, on the way in).
// Header-only: the interpreter's tensors and the Vulkan layer's host code (tests, benchmarks) share them.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace shardx {

inline float halfToFloat(uint16_t h)
{
    const uint32_t sign = (h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1f;
    const uint32_t mant = h & 0x3ff;
    float f;
    if (exp == 0) {
        // Zero or subnormal: mant * 2^-24.
        f = std::ldexp(static_cast<float>(mant), -24);
        if (sign)
            f = -f;
        return f;
    }
    uint32_t bits;
    if (exp == 31)
        bits = sign | 0x7f800000u | (mant << 13);
    else
        bits = sign | ((exp + 112) << 23) | (mant << 13);
    std::memcpy(&f, &bits, 4);
    return f;
}

inline uint16_t floatToHalf(float f)
{
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t absBits = bits & 0x7fffffffu;
    if (absBits >= 0x7f800000u) // inf or NaN
        return sign | 0x7c00u | (absBits > 0x7f800000u ? 0x200u : 0u);
    float a = std::fabs(f);
    if (a < std::ldexp(1.0f, -14)) {
        // Subnormal half: round a / 2^-24 to the nearest integer, ties to even (exact in float).
        float scaled = std::ldexp(a, 24);
        float r = std::nearbyint(scaled);
        return sign | static_cast<uint16_t>(r);
    }
    // Normal: round the 23-bit mantissa to 10 bits, ties to even; an overflow carries into the exponent.
    uint32_t exp = (absBits >> 23) - 112;
    uint32_t mant = absBits & 0x7fffffu;
    uint32_t value = (exp << 10) | (mant >> 13);
    const uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (value & 1u)))
        ++value;
    if (value >= 0x7c00u)
        return sign | 0x7c00u;
    return sign | static_cast<uint16_t>(value);
}

inline float bf16ToFloat(uint16_t b)
{
    uint32_t bits = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

inline uint16_t floatToBf16(float f)
{
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if ((bits & 0x7fffffffu) > 0x7f800000u)
        return static_cast<uint16_t>((bits >> 16) | 0x40u); // quiet NaN
    const uint32_t lsb = (bits >> 16) & 1u;
    bits += 0x7fffu + lsb;
    return static_cast<uint16_t>(bits >> 16);
}

} // namespace shardx
