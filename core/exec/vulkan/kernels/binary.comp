// binary.comp - element-wise binary ops on f32, i32 and u32 operands of one shape.
// params: [0] count, [1] op (SHARDX_VK_BIN_*), [2] dtype (SHARDX_VK_DT_*).
// Integer division and remainder follow XLA: x / 0 = -1 (all ones for u32), x % 0 = x, INT_MIN / -1 = INT_MIN.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;
#include "common/params.glsl"

layout(std430, set = 0, binding = 1) readonly buffer InA {
    uint inA[];
};
layout(std430, set = 0, binding = 2) readonly buffer InB {
    uint inB[];
};
layout(std430, set = 0, binding = 3) writeonly buffer Out {
    uint outV[];
};

uint binaryF32(uint op, float a, float b)
{
    precise float y = a;
    switch (op) {
    case SHARDX_VK_BIN_ADD: y = a + b; break;
    case SHARDX_VK_BIN_SUB: y = a - b; break;
    case SHARDX_VK_BIN_MUL: y = a * b; break;
    case SHARDX_VK_BIN_DIV: y = a / b; break;
    // NaN propagates, as in StableHLO's maximum/minimum.
    case SHARDX_VK_BIN_MAX: y = (isnan(a) || isnan(b)) ? a + b : (a > b ? a : b); break;
    case SHARDX_VK_BIN_MIN: y = (isnan(a) || isnan(b)) ? a + b : (a < b ? a : b); break;
    }
    return floatBitsToUint(y);
}

uint binaryI32(uint op, int a, int b)
{
    switch (op) {
    case SHARDX_VK_BIN_ADD: return uint(a + b);
    case SHARDX_VK_BIN_SUB: return uint(a - b);
    case SHARDX_VK_BIN_MUL: return uint(a * b);
    case SHARDX_VK_BIN_DIV:
        if (b == 0)
            return uint(-1);
        if (b == -1)
            return uint(-a); // INT_MIN / -1 wraps to INT_MIN
        return uint(a / b);
    case SHARDX_VK_BIN_REM:
        if (b == 0)
            return uint(a);
        if (b == -1)
            return 0u;
        return uint(a - (a / b) * b); // sign of the dividend, as C++ %
    case SHARDX_VK_BIN_MAX: return uint(max(a, b));
    case SHARDX_VK_BIN_MIN: return uint(min(a, b));
    case SHARDX_VK_BIN_AND: return uint(a & b);
    case SHARDX_VK_BIN_OR: return uint(a | b);
    case SHARDX_VK_BIN_XOR: return uint(a ^ b);
    }
    return uint(a);
}

uint binaryU32(uint op, uint a, uint b)
{
    switch (op) {
    case SHARDX_VK_BIN_ADD: return a + b;
    case SHARDX_VK_BIN_SUB: return a - b;
    case SHARDX_VK_BIN_MUL: return a * b;
    case SHARDX_VK_BIN_DIV: return b == 0u ? 0xffffffffu : a / b;
    case SHARDX_VK_BIN_REM: return b == 0u ? a : a % b;
    case SHARDX_VK_BIN_MAX: return max(a, b);
    case SHARDX_VK_BIN_MIN: return min(a, b);
    case SHARDX_VK_BIN_AND: return a & b;
    case SHARDX_VK_BIN_OR: return a | b;
    case SHARDX_VK_BIN_XOR: return a ^ b;
    }
    return a;
}

void main()
{
    uint i = flatInvocation();
    if (i >= P(0))
        return;
    uint op = P(1);
    uint dt = P(2);
    if (dt == SHARDX_VK_DT_F32)
        outV[i] = binaryF32(op, uintBitsToFloat(inA[i]), uintBitsToFloat(inB[i]));
    else if (dt == SHARDX_VK_DT_I32)
        outV[i] = binaryI32(op, int(inA[i]), int(inB[i]));
    else
        outV[i] = binaryU32(op, inA[i], inB[i]);
}
