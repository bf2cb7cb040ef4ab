// matmul_texel.comp - fast f32 batched matmul for K and N multiples of 4, reading A and B through RGBA32F uniform
// texel buffers: C[b] = A[b] (MxK) * B[b] (KxN), all row-major and contiguous.
//
// Each invocation computes 8 rows x 8 columns of C (two texels, 16 columns apart so that neighbouring lanes read
// neighbouring texels). Per four k it fetches one texel (4 k) of A per row and two texels of B per k: 16 fetches
// for 256 multiply-adds. Texel fetches go through the driver's sampling path, which lavapipe vectorises (a gather
// per fetch), whereas a storage-buffer load of a per-lane address is a scalar loop over the lanes there (the
// storage-buffer kernel runs at about 1 GFLOP/s, this one at 6-9). A 16x16 workgroup covers 128 x 128 of C.
// FMA contraction is allowed: not bit-exact (dot_precise.comp is).
// params: [0] M, [1] N, [2] K. Workgroups: (ceil(N / 128), ceil(M / 128), batch).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 16, local_size_y = 16) in;
#include "common/params.glsl"

#define ROWS 8

layout(set = 0, binding = 1) uniform samplerBuffer A;
layout(set = 0, binding = 2) uniform samplerBuffer B;
layout(std430, set = 0, binding = 3) writeonly buffer C4 {
    vec4 c4[];
};

void main()
{
    uint M = P(0);
    uint N = P(1);
    uint K = P(2);
    uint K4 = K / 4u;
    uint N4 = N / 4u;
    uint batch = gl_WorkGroupID.z;
    uint row0 = gl_WorkGroupID.y * (16u * ROWS) + gl_LocalInvocationID.y * ROWS;
    uint col4 = gl_WorkGroupID.x * 32u + gl_LocalInvocationID.x; // column of C in texels; the second is col4 + 16

    // In texels. Rows and columns past the edge read the last ones and are not stored.
    int aRow[ROWS];
    [[unroll]] for (uint r = 0u; r < ROWS; ++r)
        aRow[r] = int(batch * M * K4 + min(row0 + r, M - 1u) * K4);
    int bAt = int(batch * K * N4 + min(col4, N4 - 1u));
    int bAt2 = int(batch * K * N4 + min(col4 + 16u, N4 - 1u));
    int bStep = int(N4);

    vec4 acc[ROWS];
    vec4 acc2[ROWS];
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
        acc[r] = vec4(0.0);
        acc2[r] = vec4(0.0);
    }
    for (uint k4 = 0u; k4 < K4; ++k4) {
        vec4 b0 = texelFetch(B, bAt);
        vec4 b1 = texelFetch(B, bAt + bStep);
        vec4 b2 = texelFetch(B, bAt + 2 * bStep);
        vec4 b3 = texelFetch(B, bAt + 3 * bStep);
        vec4 e0 = texelFetch(B, bAt2);
        vec4 e1 = texelFetch(B, bAt2 + bStep);
        vec4 e2 = texelFetch(B, bAt2 + 2 * bStep);
        vec4 e3 = texelFetch(B, bAt2 + 3 * bStep);
        bAt += 4 * bStep;
        bAt2 += 4 * bStep;
        [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
            vec4 a = texelFetch(A, aRow[r] + int(k4));
            acc[r] += a.x * b0 + a.y * b1 + a.z * b2 + a.w * b3;
            acc2[r] += a.x * e0 + a.y * e1 + a.z * e2 + a.w * e3;
        }
    }
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
        if (row0 + r < M && col4 < N4)
            c4[batch * M * N4 + (row0 + r) * N4 + col4] = acc[r];
        if (row0 + r < M && col4 + 16u < N4)
            c4[batch * M * N4 + (row0 + r) * N4 + col4 + 16u] = acc2[r];
    }
}
