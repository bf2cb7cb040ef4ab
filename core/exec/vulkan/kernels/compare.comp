// compare.comp - element-wise comparison into 0/1 words (StableHLO compare; i1 results as u32).
// params: [0] count, [1] direction (SHARDX_VK_CMP_*), [2] dtype (SHARDX_VK_DT_*).
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

void main()
{
    uint i = flatInvocation();
    if (i >= P(0))
        return;
    uint dir = P(1);
    uint dt = P(2);
    // lt / eq of the operands in their type; every direction is built from these two.
    bool lt;
    bool gt;
    bool eq;
    if (dt == SHARDX_VK_DT_F32) {
        float a = uintBitsToFloat(inA[i]);
        float b = uintBitsToFloat(inB[i]);
        lt = a < b;
        gt = a > b;
        eq = a == b;
    } else if (dt == SHARDX_VK_DT_I32) {
        int a = int(inA[i]);
        int b = int(inB[i]);
        lt = a < b;
        gt = a > b;
        eq = a == b;
    } else {
        lt = inA[i] < inB[i];
        gt = inA[i] > inB[i];
        eq = inA[i] == inB[i];
    }
    bool r = false;
    switch (dir) {
    case SHARDX_VK_CMP_EQ: r = eq; break;
    case SHARDX_VK_CMP_NE: r = !eq; break; // NaN != NaN is true
    case SHARDX_VK_CMP_LT: r = lt; break;
    case SHARDX_VK_CMP_LE: r = lt || eq; break;
    case SHARDX_VK_CMP_GT: r = gt; break;
    case SHARDX_VK_CMP_GE: r = gt || eq; break;
    }
    outV[i] = r ? 1u : 0u;
}
