// iota.comp - out[i] = the index of element i along one dimension, as f32, i32 or u32.
// params: [0] count, [1] dtype, [2] stride of the iota dimension (elements), [3] its size.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;
#include "common/params.glsl"

layout(std430, set = 0, binding = 1) writeonly buffer Dst {
    uint dst[];
};

void main()
{
    uint i = flatInvocation();
    if (i >= P(0))
        return;
    uint v = (i / P(2)) % P(3);
    dst[i] = P(1) == SHARDX_VK_DT_F32 ? floatBitsToUint(float(v)) : v;
}
