// dot_precise.comp - dot_general that the reference interpreter reproduces bit for bit: every output element is
// summed from zero over the contracting indices in row-major order (of the contracting dimensions as listed),
// each product rounded to f32 before the add (`precise` = NoContraction: no FMA, no reassociation).
// params: [0] count (outputs), [1] dtype, [2] result rank R, [3] contracting rank C, then [4] resultDims[R],
// lhsStrides[R], rhsStrides[R] (0 where the result dimension is not the operand's), contractDims[C],
// lhsContractStrides[C], rhsContractStrides[C].
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common/params.glsl"

layout(std430, set = 0, binding = 1) readonly buffer Lhs {
    uint lhs[];
};
layout(std430, set = 0, binding = 2) readonly buffer Rhs {
    uint rhs[];
};
layout(std430, set = 0, binding = 3) writeonly buffer Dst {
    uint dst[];
};

void main()
{
    uint i = flatInvocation();
    if (i >= p[0])
        return;
    uint dt = p[1];
    uint R = p[2];
    uint C = p[3];
    uint resDims = 4u;
    uint lhsStr = resDims + R;
    uint rhsStr = lhsStr + R;
    uint cDims = rhsStr + R;
    uint lhsCStr = cDims + C;
    uint rhsCStr = lhsCStr + C;

    uint lo = 0u;
    uint ro = 0u;
    uint rem = i;
    for (int d = int(R) - 1; d >= 0; --d) {
        uint dim = p[resDims + d];
        uint o = rem % dim;
        rem /= dim;
        lo += o * p[lhsStr + d];
        ro += o * p[rhsStr + d];
    }
    uint total = 1u;
    for (uint d = 0u; d < C; ++d)
        total *= p[cDims + d];

    uint idx[SHARDX_VK_MAX_RANK];
    for (uint d = 0u; d < C; ++d)
        idx[d] = 0u;
    precise float accF = 0.0;
    int accI = 0;
    for (uint n = 0u; n < total; ++n) {
        if (dt == SHARDX_VK_DT_F32) {
            precise float prod = uintBitsToFloat(lhs[lo]) * uintBitsToFloat(rhs[ro]);
            accF = accF + prod;
        } else {
            accI += int(lhs[lo]) * int(rhs[ro]);
        }
        for (int d = int(C) - 1; d >= 0; --d) {
            idx[d] += 1u;
            lo += p[lhsCStr + d];
            ro += p[rhsCStr + d];
            if (idx[d] < p[cDims + d])
                break;
            lo -= idx[d] * p[lhsCStr + d];
            ro -= idx[d] * p[rhsCStr + d];
            idx[d] = 0u;
        }
    }
    dst[i] = dt == SHARDX_VK_DT_F32 ? floatBitsToUint(accF) : uint(accI);
}
