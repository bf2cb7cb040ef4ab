// unary.comp - element-wise unary ops and conversions on f32, i32 and u32, and rounding of f32 to bf16 and f16.
// params: [0] count, [1] op (SHARDX_VK_UN_*), [2] dtype of the operand (SHARDX_VK_DT_*).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;
#include "common/params.glsl"
#include "common/round16.glsl"

layout(std430, set = 0, binding = 1) readonly buffer InA {
    uint inA[];
};
layout(std430, set = 0, binding = 2) writeonly buffer Out {
    uint outV[];
};

uint unaryF32(uint op, float x)
{
    // `precise`: no reassociation or contraction, so results match an f32 evaluation op by op.
    precise float y = x;
    switch (op) {
    case SHARDX_VK_UN_NEG: y = -x; break;
    case SHARDX_VK_UN_ABS: y = abs(x); break;
    case SHARDX_VK_UN_EXP: y = exp(x); break;
    case SHARDX_VK_UN_LOG: y = log(x); break;
    case SHARDX_VK_UN_TANH: y = tanh(x); break;
    case SHARDX_VK_UN_SQRT: y = sqrt(x); break;
    // 1 / sqrt(x) rather than inversesqrt (2 ULP in Vulkan): two correctly rounded steps, like the reference.
    case SHARDX_VK_UN_RSQRT: y = 1.0 / sqrt(x); break;
    case SHARDX_VK_UN_FLOOR: y = floor(x); break;
    case SHARDX_VK_UN_CEIL: y = ceil(x); break;
    case SHARDX_VK_UN_SIGN: y = isnan(x) ? x : sign(x); break;
    case SHARDX_VK_UN_TO_F32: y = x; break;
    case SHARDX_VK_UN_TO_I32: return uint(int(x));
    case SHARDX_VK_UN_TO_U32: return x <= 0.0 ? 0u : uint(x);
    }
    return floatBitsToUint(y);
}

uint unaryI32(uint op, int x)
{
    switch (op) {
    case SHARDX_VK_UN_NEG: return uint(-x);
    case SHARDX_VK_UN_ABS: return uint(x < 0 ? -x : x);
    case SHARDX_VK_UN_SIGN: return uint(x > 0 ? 1 : (x < 0 ? -1 : 0));
    case SHARDX_VK_UN_NOT: return uint(~x);
    case SHARDX_VK_UN_TO_F32: return floatBitsToUint(float(x));
    case SHARDX_VK_UN_TO_I32: return uint(x);
    case SHARDX_VK_UN_TO_U32: return uint(x);
    }
    return uint(x);
}

uint unaryU32(uint op, uint x)
{
    switch (op) {
    case SHARDX_VK_UN_NEG: return 0u - x;
    case SHARDX_VK_UN_SIGN: return x > 0u ? 1u : 0u;
    case SHARDX_VK_UN_NOT: return ~x;
    case SHARDX_VK_UN_TO_F32: return floatBitsToUint(float(x));
    }
    return x;
}

void main()
{
    uint i = flatInvocation();
    if (i >= P(0))
        return;
    uint op = P(1);
    uint dt = P(2);
    uint x = inA[i];
    // The roundings read the bits (a NaN's payload included).
    if (dt == SHARDX_VK_DT_F32 && op == SHARDX_VK_UN_ROUND_BF16)
        outV[i] = roundToBf16(x);
    else if (dt == SHARDX_VK_DT_F32 && op == SHARDX_VK_UN_ROUND_F16)
        outV[i] = roundToF16(x);
    else if (dt == SHARDX_VK_DT_F32)
        outV[i] = unaryF32(op, uintBitsToFloat(x));
    else if (dt == SHARDX_VK_DT_I32)
        outV[i] = unaryI32(op, int(x));
    else
        outV[i] = unaryU32(op, x);
}
