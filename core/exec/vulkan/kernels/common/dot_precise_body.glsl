// dot_precise_body.glsl - main() of dot_precise.comp and dot_precise_texel.comp; the including kernel defines
// LOAD_LHS(i) and LOAD_RHS(i) (element i of an operand as a uint) and the result buffer `dst`, and includes
// common/round16.glsl.

// `x` rounded to bf16 (dt SHARDX_VK_DT_F32_BF16) or f16, as f32.
float roundDot16(float x, uint dt)
{
    uint b = floatBitsToUint(x);
    return uintBitsToFloat(dt == SHARDX_VK_DT_F32_BF16 ? roundToBf16(b) : roundToF16(b));
}

void main()
{
    uint i = flatInvocation();
    if (i >= P(0))
        return;
    uint dt = P(1);
    uint R = P(2);
    uint C = P(3);
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
        uint dim = P(resDims + d);
        uint o = rem % dim;
        rem /= dim;
        lo += o * P(lhsStr + d);
        ro += o * P(rhsStr + d);
    }
    uint total = 1u;
    for (uint d = 0u; d < C; ++d)
        total *= P(cDims + d);

    // The contracting strides are read from the parameters once: inside the loop every storage-buffer read costs
    // a lane loop on lavapipe. One contracting dimension (the common case) is a plain strided loop.
    uint dims[SHARDX_VK_MAX_RANK];
    uint lStep[SHARDX_VK_MAX_RANK];
    uint rStep[SHARDX_VK_MAX_RANK];
    uint idx[SHARDX_VK_MAX_RANK];
    for (uint d = 0u; d < C; ++d) {
        dims[d] = P(cDims + d);
        lStep[d] = P(lhsCStr + d);
        rStep[d] = P(rhsCStr + d);
        idx[d] = 0u;
    }
    precise float accF = 0.0;
    int accI = 0;
    bool narrow = dt == SHARDX_VK_DT_F32_BF16 || dt == SHARDX_VK_DT_F32_F16;
    if (C == 1u) {
        uint ls = lStep[0];
        uint rs = rStep[0];
        if (narrow) {
            for (uint n = 0u; n < total; ++n) {
                precise float prod = roundDot16(uintBitsToFloat(LOAD_LHS(lo)) * uintBitsToFloat(LOAD_RHS(ro)), dt);
                accF = roundDot16(accF + prod, dt);
                lo += ls;
                ro += rs;
            }
        } else if (dt == SHARDX_VK_DT_F32) {
            for (uint n = 0u; n < total; ++n) {
                precise float prod = uintBitsToFloat(LOAD_LHS(lo)) * uintBitsToFloat(LOAD_RHS(ro));
                accF = accF + prod;
                lo += ls;
                ro += rs;
            }
        } else {
            for (uint n = 0u; n < total; ++n) {
                accI += int(LOAD_LHS(lo)) * int(LOAD_RHS(ro));
                lo += ls;
                ro += rs;
            }
        }
    } else {
        for (uint n = 0u; n < total; ++n) {
            if (narrow) {
                precise float prod = roundDot16(uintBitsToFloat(LOAD_LHS(lo)) * uintBitsToFloat(LOAD_RHS(ro)), dt);
                accF = roundDot16(accF + prod, dt);
            } else if (dt == SHARDX_VK_DT_F32) {
                precise float prod = uintBitsToFloat(LOAD_LHS(lo)) * uintBitsToFloat(LOAD_RHS(ro));
                accF = accF + prod;
            } else {
                accI += int(LOAD_LHS(lo)) * int(LOAD_RHS(ro));
            }
            for (int d = int(C) - 1; d >= 0; --d) {
                idx[d] += 1u;
                lo += lStep[d];
                ro += rStep[d];
                if (idx[d] < dims[d])
                    break;
                lo -= idx[d] * lStep[d];
                ro -= idx[d] * rStep[d];
                idx[d] = 0u;
            }
        }
    }
    dst[i] = dt == SHARDX_VK_DT_F32 || narrow ? floatBitsToUint(accF) : uint(accI);
}
