// matmul_tiled.comp - fast f32 batched matmul C[b] = A[b] (MxK) * B[b] (KxN), all row-major and contiguous.
//
// Register-blocked for drivers that run invocations as SIMD lanes (lavapipe): a workgroup of 64 invocations owns
// 16 rows x 128 columns of C; invocation l accumulates rows row0..row0+15 at columns col0 + l and col0 + 64 + l.
// The A elements it reads depend only on the workgroup and k, so they are uniform: one scalar load serves every
// lane. Only B is read per lane (2 words per k for 32 multiply-adds). On lavapipe a per-lane storage-buffer load
// costs tens of instructions while a uniform one is a plain load, and this layout is what made the kernel fast
// there (4x4 blocks per invocation, with 8 per-lane loads per 16 multiply-adds, ran at 0.3 GFLOP/s). On GPUs the
// B reads of a workgroup are coalesced (neighbouring lanes, neighbouring columns) and A comes through the scalar
// or constant cache; a shared-memory tiled kernel would be faster there.
// FMA contraction is allowed, so results are not bit-exact with the reference (dot_precise.comp is).
// params: [0] M, [1] N, [2] K. Workgroups: (ceil(N / 128), ceil(M / 16), batch).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 64) in;
#include "common/params.glsl"

#define ROWS 16

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
    uint M = P(0);
    uint N = P(1);
    uint K = P(2);
    uint batch = gl_WorkGroupID.z;
    uint row0 = gl_WorkGroupID.y * ROWS;
    uint colA = gl_WorkGroupID.x * 128u + gl_LocalInvocationID.x;
    uint colB = colA + 64u;
    uint aBase = batch * M * K;
    uint bBase = batch * K * N;
    uint cBase = batch * M * N;

    // Rows and columns past the edge read the last row / column (always valid) and are not stored.
    uint rowStart[ROWS];
    [[unroll]] for (uint r = 0u; r < ROWS; ++r)
        rowStart[r] = aBase + min(row0 + r, M - 1u) * K;
    uint bA = bBase + min(colA, N - 1u);
    uint bB = bBase + min(colB, N - 1u);

    float accA[ROWS];
    float accB[ROWS];
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
        accA[r] = 0.0;
        accB[r] = 0.0;
    }
    uint kN = 0u;
    for (uint k = 0u; k < K; ++k) {
        float xA = b[bA + kN];
        float xB = b[bB + kN];
        [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
            float ar = a[rowStart[r] + k];
            accA[r] += ar * xA;
            accB[r] += ar * xB;
        }
        kN += N;
    }
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
        if (row0 + r < M) {
            if (colA < N)
                cm[cBase + (row0 + r) * N + colA] = accA[r];
            if (colB < N)
                cm[cBase + (row0 + r) * N + colB] = accB[r];
        }
    }
}
