// matmul_tiled.comp - fast f32 batched matmul C[b] = A[b] (MxK) * B[b] (KxN), all row-major and contiguous.
// Register-blocked: each invocation accumulates a 4x4 block of C in registers; a 16x16 workgroup covers a 64x64
// tile. No shared memory (barriers are expensive on lavapipe, see ENV.md). The summation order is the natural
// one but FMA contraction is allowed, so results are not bit-exact with the reference (dot_precise.comp is).
// Columns of one invocation are 16 apart so that neighbouring invocations read neighbouring words of B and C.
// params: [0] M, [1] N, [2] K. Workgroups: (ceil(N / 64), ceil(M / 64), batch).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 16, local_size_y = 16) in;
#include "common/params.glsl"

layout(std430, set = 0, binding = 1) readonly buffer A {
    float a[];
};
layout(std430, set = 0, binding = 2) readonly buffer B {
    float b[];
};
layout(std430, set = 0, binding = 3) writeonly buffer Cm {
    float cm[];
};

void main()
{
    uint M = p[0];
    uint N = p[1];
    uint K = p[2];
    uint batch = gl_WorkGroupID.z;
    uint row0 = gl_WorkGroupID.y * 64u + gl_LocalInvocationID.y * 4u;
    uint col0 = gl_WorkGroupID.x * 64u + gl_LocalInvocationID.x;
    uint aBase = batch * M * K;
    uint bBase = batch * K * N;
    uint cBase = batch * M * N;

    float acc[4][4];
    for (uint r = 0u; r < 4u; ++r)
        for (uint c = 0u; c < 4u; ++c)
            acc[r][c] = 0.0;

    // Rows and columns past the edge read row / column 0 (always valid) and are not stored.
    uint rows[4];
    uint cols[4];
    for (uint r = 0u; r < 4u; ++r)
        rows[r] = (row0 + r < M) ? row0 + r : 0u;
    for (uint c = 0u; c < 4u; ++c)
        cols[c] = (col0 + 16u * c < N) ? col0 + 16u * c : 0u;

    for (uint k = 0u; k < K; ++k) {
        float av[4];
        float bv[4];
        for (uint r = 0u; r < 4u; ++r)
            av[r] = a[aBase + rows[r] * K + k];
        for (uint c = 0u; c < 4u; ++c)
            bv[c] = b[bBase + k * N + cols[c]];
        for (uint r = 0u; r < 4u; ++r)
            for (uint c = 0u; c < 4u; ++c)
                acc[r][c] += av[r] * bv[c];
    }
    for (uint r = 0u; r < 4u; ++r) {
        if (row0 + r >= M)
            continue;
        for (uint c = 0u; c < 4u; ++c) {
            if (col0 + 16u * c < N)
                cm[cBase + (row0 + r) * N + col0 + 16u * c] = acc[r][c];
        }
    }
}
