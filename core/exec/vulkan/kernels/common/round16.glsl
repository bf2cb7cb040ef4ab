// round16.glsl - f32 values rounded to bf16 and f16 (to nearest, ties to even), kept as f32: how f16 and bf16
// tensors are computed on the device (widened to f32 words, rounded after each op as the reference rounds).

// `bits` (an f32) rounded to bf16, ties to even, as f32 bits; NaN stays NaN (quiet), as exec::floatToBf16.
uint roundToBf16(uint bits)
{
    if ((bits & 0x7fffffffu) > 0x7f800000u)
        return ((bits >> 16) | 0x40u) << 16;
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return bits & 0xffff0000u;
}

// `bits` (an f32) rounded to f16, ties to even, as f32 bits: subnormal halves, overflow to infinity, NaN as the
// quiet NaN exec::floatToHalf and exec::halfToFloat make of it.
uint roundToF16(uint bits)
{
    uint sign = bits & 0x80000000u;
    uint absBits = bits & 0x7fffffffu;
    if (absBits >= 0x7f800000u)
        return sign | (absBits > 0x7f800000u ? 0x7fc00000u : 0x7f800000u);
    if (absBits < 0x38800000u) { // under 2^-14: a multiple of 2^-24 (exact scalings by powers of two)
        precise float r = roundEven(uintBitsToFloat(absBits) * 16777216.0);
        precise float y = r * (1.0 / 16777216.0);
        return sign | floatBitsToUint(y);
    }
    uint value = (((absBits >> 23) - 112u) << 10) | ((absBits & 0x7fffffu) >> 13);
    uint rest = absBits & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (value & 1u) != 0u))
        ++value;
    if (value >= 0x7c00u)
        return sign | 0x7f800000u;
    return sign | ((((value >> 10) + 112u) << 23) | ((value & 0x3ffu) << 13));
}
