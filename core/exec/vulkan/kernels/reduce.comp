// reduce.comp - reduce over any set of dimensions: each output element folds its reduced elements into the init
// value one by one in row-major order of the reduced dimensions (StableHLO's reference order), in f32 / i32 / u32.
// params: [0] count (outputs), [1] dtype, [2] op (SHARDX_VK_RED_*), [3] init value bits, [4] kept rank K,
// [5] reduced rank R, then [6] keptDims[K], keptStrides[K], reducedDims[R], reducedStrides[R] (input strides).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;
#include "common/params.glsl"

layout(std430, set = 0, binding = 1) readonly buffer Src {
    uint src[];
};
layout(std430, set = 0, binding = 2) writeonly buffer Dst {
    uint dst[];
};

float foldF32(uint op, float acc, float x)
{
    precise float r;
    switch (op) {
    case SHARDX_VK_RED_SUM: r = acc + x; break;
    case SHARDX_VK_RED_PROD: r = acc * x; break;
    case SHARDX_VK_RED_MAX: r = (isnan(acc) || isnan(x)) ? acc + x : (acc > x ? acc : x); break;
    default: r = (isnan(acc) || isnan(x)) ? acc + x : (acc < x ? acc : x); break;
    }
    return r;
}

int foldI32(uint op, int acc, int x)
{
    switch (op) {
    case SHARDX_VK_RED_SUM: return acc + x;
    case SHARDX_VK_RED_PROD: return acc * x;
    case SHARDX_VK_RED_MAX: return max(acc, x);
    }
    return min(acc, x);
}

uint foldU32(uint op, uint acc, uint x)
{
    switch (op) {
    case SHARDX_VK_RED_SUM: return acc + x;
    case SHARDX_VK_RED_PROD: return acc * x;
    case SHARDX_VK_RED_MAX: return max(acc, x);
    }
    return min(acc, x);
}

void main()
{
    uint i = flatInvocation();
    if (i >= P(0))
        return;
    uint dt = P(1);
    uint op = P(2);
    uint kept = P(4);
    uint red = P(5);
    uint keptDims = 6u;
    uint keptStrides = keptDims + kept;
    uint redDims = keptStrides + kept;
    uint redStrides = redDims + red;

    uint base = 0u;
    uint rem = i;
    for (int d = int(kept) - 1; d >= 0; --d) {
        uint dim = P(keptDims + d);
        base += (rem % dim) * P(keptStrides + d);
        rem /= dim;
    }
    uint total = 1u;
    for (uint d = 0u; d < red; ++d)
        total *= P(redDims + d);

    // A row-major counter over the reduced dimensions, moved by strides (no division per element). Sizes and
    // strides are read from the parameters once: on lavapipe every storage-buffer read costs a loop over the lanes.
    uint dims[SHARDX_VK_MAX_RANK];
    uint steps[SHARDX_VK_MAX_RANK];
    uint idx[SHARDX_VK_MAX_RANK];
    for (uint d = 0u; d < red; ++d) {
        dims[d] = P(redDims + d);
        steps[d] = P(redStrides + d);
        idx[d] = 0u;
    }
    uint off = base;
    uint accBits = P(3);
    float accF = uintBitsToFloat(accBits);
    int accI = int(accBits);
    uint accU = accBits;
    for (uint n = 0u; n < total; ++n) {
        uint x = src[off];
        if (dt == SHARDX_VK_DT_F32)
            accF = foldF32(op, accF, uintBitsToFloat(x));
        else if (dt == SHARDX_VK_DT_I32)
            accI = foldI32(op, accI, int(x));
        else
            accU = foldU32(op, accU, x);
        for (int d = int(red) - 1; d >= 0; --d) {
            idx[d] += 1u;
            off += steps[d];
            if (idx[d] < dims[d])
                break;
            off -= idx[d] * steps[d];
            idx[d] = 0u;
        }
    }
    if (dt == SHARDX_VK_DT_F32)
        dst[i] = floatBitsToUint(accF);
    else if (dt == SHARDX_VK_DT_I32)
        dst[i] = uint(accI);
    else
        dst[i] = accU;
}
