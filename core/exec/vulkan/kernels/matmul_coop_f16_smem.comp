// matmul_coop_f16_smem.comp - matmul_coop_f16.comp with its slices of A and B staged in shared memory: the same
// product (f16 A and B, f32 C, row-major, M, N and K multiples of 16), 128 x 128 tiles of C per workgroup.
//
// A workgroup of eight subgroups (256 invocations) walks K in 32-deep steps. Each step its invocations copy the
// 128 x 32 slice of A and the 32 x 128 slice of B into shared memory (two 16-byte loads of each per invocation,
// issued a step ahead so that they are in flight during the multiply-adds), then each subgroup multiplies its
// 32 x 64 part of the tile as 2 x 4 cooperative matrices of 16 x 16 f32, reading its fragments from shared memory.
// Rows of A, columns of B and steps of K past the edges are zero-filled; fragments of C past the edges are neither
// computed nor stored. Rows of the shared slices are padded by 8 halves against bank conflicts.
// params: [0] M, [1] N, [2] K. Workgroups: (ceil(N / 128), ceil(M / 128), batch).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 256) in;
#include "common/params.glsl"

// The f16 matrices read 8 halves (16 bytes) at a time.
layout(std430, set = 0, binding = 1) readonly buffer A8 {
    uvec4 a8[];
};
layout(std430, set = 0, binding = 2) readonly buffer B8 {
    uvec4 b8[];
};
layout(std430, set = 0, binding = 3) writeonly buffer C32 {
    float c32[];
};

#define BK 32u
#define AS (BK + 8u)   // halves per row of the A slice
#define BS (128u + 8u) // halves per row of the B slice
shared float16_t As[128u * AS];
shared float16_t Bs[BK * BS];

void storeHalves(uvec4 v, uint base, bool toA)
{
    f16vec2 h0 = unpackFloat2x16(v.x), h1 = unpackFloat2x16(v.y), h2 = unpackFloat2x16(v.z), h3 = unpackFloat2x16(v.w);
    if (toA) {
        As[base + 0u] = h0.x; As[base + 1u] = h0.y; As[base + 2u] = h1.x; As[base + 3u] = h1.y;
        As[base + 4u] = h2.x; As[base + 5u] = h2.y; As[base + 6u] = h3.x; As[base + 7u] = h3.y;
    } else {
        Bs[base + 0u] = h0.x; Bs[base + 1u] = h0.y; Bs[base + 2u] = h1.x; Bs[base + 3u] = h1.y;
        Bs[base + 4u] = h2.x; Bs[base + 5u] = h2.y; Bs[base + 6u] = h3.x; Bs[base + 7u] = h3.y;
    }
}

void main()
{
    uint M = P(0);
    uint N = P(1);
    uint K = P(2);
    uint K8 = K / 8u;
    uint N8 = N / 8u;
    uint tid = gl_LocalInvocationID.x;
    uint sg = gl_SubgroupID;
    uint tileRow = gl_WorkGroupID.y * 128u;
    uint tileCol = gl_WorkGroupID.x * 128u;
    uint batch = gl_WorkGroupID.z;
    uint aBase8 = batch * M * K8;
    uint bBase8 = batch * K * N8;
    uint cBase = batch * M * N;

    // Copies of this invocation, l = 0, 1: A slice row aRow, halves aK8 * 8 .. +7 (4 per row of 32); B slice row
    // bRow, columns bCol8 * 8 .. +7 (16 per row of 128).
    uint aRow[2], aK8[2], bRow[2], bCol8[2];
    [[unroll]] for (uint l = 0u; l < 2u; ++l) {
        uint e = tid + l * 256u;
        aRow[l] = e >> 2u;
        aK8[l] = e & 3u;
        bRow[l] = e >> 4u;
        bCol8[l] = e & 15u;
    }

    // This subgroup's part of the tile: rows sgRow0 + 16 i (i < 2), columns sgCol0 + 16 j (j < 4).
    uint sgRow0 = (sg >> 1u) * 32u;
    uint sgCol0 = (sg & 1u) * 64u;
    uint fm = tileRow + sgRow0 < M ? min(2u, (M - tileRow - sgRow0) / 16u) : 0u;
    uint fn = tileCol + sgCol0 < N ? min(4u, (N - tileCol - sgCol0) / 16u) : 0u;

    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc[2][4];
    [[unroll]] for (uint i = 0u; i < 2u; ++i)
        [[unroll]] for (uint j = 0u; j < 4u; ++j)
            acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);

    uint steps = (K + BK - 1u) / BK;
    uvec4 ra[2], rb[2];
    [[unroll]] for (uint l = 0u; l < 2u; ++l) {
        uint row = tileRow + aRow[l];
        uint k8 = aK8[l];
        ra[l] = row < M && k8 < K8 ? a8[aBase8 + row * K8 + k8] : uvec4(0u);
        uint col8 = tileCol / 8u + bCol8[l];
        rb[l] = bRow[l] < K && col8 < N8 ? b8[bBase8 + bRow[l] * N8 + col8] : uvec4(0u);
    }
    for (uint s = 0u; s < steps; ++s) {
        barrier(); // the previous step's fragments are read
        [[unroll]] for (uint l = 0u; l < 2u; ++l) {
            storeHalves(ra[l], aRow[l] * AS + aK8[l] * 8u, true);
            storeHalves(rb[l], bRow[l] * BS + bCol8[l] * 8u, false);
        }
        barrier();
        if (s + 1u < steps) {
            uint k0 = (s + 1u) * BK;
            [[unroll]] for (uint l = 0u; l < 2u; ++l) {
                uint row = tileRow + aRow[l];
                uint k8 = k0 / 8u + aK8[l];
                ra[l] = row < M && k8 < K8 ? a8[aBase8 + row * K8 + k8] : uvec4(0u);
                uint krow = k0 + bRow[l];
                uint col8 = tileCol / 8u + bCol8[l];
                rb[l] = krow < K && col8 < N8 ? b8[bBase8 + krow * N8 + col8] : uvec4(0u);
            }
        }
        [[unroll]] for (uint kk = 0u; kk < BK; kk += 16u) {
            fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> af[2];
            fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> bf[4];
            [[unroll]] for (uint i = 0u; i < 2u; ++i)
                coopMatLoadNV(af[i], As, (sgRow0 + 16u * i) * AS + kk, AS, false);
            [[unroll]] for (uint j = 0u; j < 4u; ++j)
                coopMatLoadNV(bf[j], Bs, kk * BS + sgCol0 + 16u * j, BS, false);
            [[unroll]] for (uint i = 0u; i < 2u; ++i)
                [[unroll]] for (uint j = 0u; j < 4u; ++j)
                    if (i < fm && j < fn)
                        acc[i][j] = coopMatMulAddNV(af[i], bf[j], acc[i][j]);
        }
    }

    [[unroll]] for (uint i = 0u; i < 2u; ++i)
        [[unroll]] for (uint j = 0u; j < 4u; ++j)
            if (i < fm && j < fn)
                coopMatStoreNV(acc[i][j], c32, cBase + (tileRow + sgRow0 + 16u * i) * N + tileCol + sgCol0 + 16u * j,
                               N, false);
}
