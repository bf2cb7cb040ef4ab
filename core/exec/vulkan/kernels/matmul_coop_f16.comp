// matmul_coop_f16.comp - f16 batched matmul with f32 results on the GPU's matrix units, through
// VK_NV_cooperative_matrix: C[b] = A[b] (MxK, f16) * B[b] (KxN, f16), C in f32; all row-major and contiguous; M, N
// and K multiples of 16.
//
// A workgroup of four subgroups (of 32 invocations) owns a 128 x 128 tile of C; each subgroup a 64 x 64 quarter of
// it, held as 4 x 4 cooperative matrices of 16 x 16 f32. Each 16-deep step a subgroup loads four 16 x 16 fragments
// of A and four of B straight from the buffers (the two subgroups that share a row or a column of fragments read
// them through the same L1) and issues 16 multiply-accumulates. Fragments past the edge of C (a partial tile) are
// skipped; the choice is the same for the whole subgroup, as cooperative-matrix operations require.
//
// Built always, run only where the device offers the extension with 16 x 16 x 16 f16 x f16 + f32 on subgroups
// (PhysicalDeviceInfo::coopMatF16); lavapipe does not. bf16 would need GL_EXT_bfloat16 and
// GL_KHR_cooperative_matrix, which Debian 12's glslang (11.13) lacks.
// params: [0] M, [1] N, [2] K. Workgroups: (ceil(N / 128), ceil(M / 128), batch).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 128) in;
#include "common/params.glsl"

layout(std430, set = 0, binding = 1) readonly buffer A16 {
    float16_t a16[];
};
layout(std430, set = 0, binding = 2) readonly buffer B16 {
    float16_t b16[];
};
layout(std430, set = 0, binding = 3) writeonly buffer C32 {
    float c32[];
};

#define FM 4u // fragments of C down a subgroup's quarter
#define FN 4u // ... and across it

void main()
{
    uint M = P(0);
    uint N = P(1);
    uint K = P(2);
    uint sg = gl_SubgroupID;
    uint row0 = gl_WorkGroupID.y * 128u + (sg >> 1u) * 64u;
    uint col0 = gl_WorkGroupID.x * 128u + (sg & 1u) * 64u;
    uint batch = gl_WorkGroupID.z;
    uint aBase = batch * M * K;
    uint bBase = batch * K * N;
    uint cBase = batch * M * N;
    // Fragments of this subgroup inside C: rows row0 + 16 i for i < fm, columns col0 + 16 j for j < fn.
    uint fm = row0 < M ? min(FM, (M - row0) / 16u) : 0u;
    uint fn = col0 < N ? min(FN, (N - col0) / 16u) : 0u;

    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc[FM][FN];
    [[unroll]] for (uint i = 0u; i < FM; ++i)
        [[unroll]] for (uint j = 0u; j < FN; ++j)
            acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);

    for (uint k = 0u; k < K; k += 16u) {
        fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> af[FM];
        fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> bf[FN];
        [[unroll]] for (uint i = 0u; i < FM; ++i)
            if (i < fm)
                coopMatLoadNV(af[i], a16, aBase + (row0 + 16u * i) * K + k, K, false);
        [[unroll]] for (uint j = 0u; j < FN; ++j)
            if (j < fn)
                coopMatLoadNV(bf[j], b16, bBase + k * N + col0 + 16u * j, N, false);
        [[unroll]] for (uint i = 0u; i < FM; ++i)
            [[unroll]] for (uint j = 0u; j < FN; ++j)
                if (i < fm && j < fn)
                    acc[i][j] = coopMatMulAddNV(af[i], bf[j], acc[i][j]);
    }

    [[unroll]] for (uint i = 0u; i < FM; ++i)
        [[unroll]] for (uint j = 0u; j < FN; ++j)
            if (i < fm && j < fn)
                coopMatStoreNV(acc[i][j], c32, cBase + (row0 + 16u * i) * N + col0 + 16u * j, N, false);
}
