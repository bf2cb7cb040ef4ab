// dot_precise_texel.comp - dot_precise.comp reading the operands through R32_UINT uniform texel buffers, which
// lavapipe fetches with vector gathers instead of a scalar loop over the lanes (see matmul_texel.comp). Same
// parameters, same order of evaluation, same results bit for bit.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common/params.glsl"
#include "common/round16.glsl"

layout(set = 0, binding = 1) uniform usamplerBuffer lhsTexels;
layout(set = 0, binding = 2) uniform usamplerBuffer rhsTexels;
layout(std430, set = 0, binding = 3) writeonly buffer Dst {
    uint dst[];
};

#define LOAD_LHS(i) texelFetch(lhsTexels, int(i)).x
#define LOAD_RHS(i) texelFetch(rhsTexels, int(i)).x
#include "common/dot_precise_body.glsl"
