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
#include "common/round16.glsl"

layout(std430, set = 0, binding = 1) readonly buffer Lhs {
    uint lhs[];
};
layout(std430, set = 0, binding = 2) readonly buffer Rhs {
    uint rhs[];
};
layout(std430, set = 0, binding = 3) writeonly buffer Dst {
    uint dst[];
};

#define LOAD_LHS(i) lhs[i]
#define LOAD_RHS(i) rhs[i]
#include "common/dot_precise_body.glsl"
