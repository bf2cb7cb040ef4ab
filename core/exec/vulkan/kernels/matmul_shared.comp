// matmul_shared.comp - f32 batched matmul for GPUs, K and N multiples of 4: C[b] = A[b] (MxK) * B[b] (KxN), all
// row-major and contiguous.
//
// The classic shared-memory SGEMM: a workgroup of 256 invocations owns a 128 x 128 tile of C and walks K in steps
// of 8 (matmul_shared16.comp: 16). Each step its invocations load the 128 x 8 slice of A (one vec4 along K each, stored transposed so that a
// row of the slice is contiguous in shared memory) and the 8 x 128 slice of B (one vec4 along N each) into one of
// two shared buffers, while the other buffer feeds the arithmetic: the loads of step s + 1 are issued before the
// multiply-adds of step s, and one barrier per step separates them. Invocation (ty, tx) of the 16 x 16 grid keeps
// an 8 x 8 block of C in registers: rows ty*4 + {0..3} and 64 + ty*4 + {0..3}, columns tx*4 + {0..3} and
// 64 + tx*4 + {0..3}, so that its shared-memory reads are four vec4 per k (64 multiply-adds) and neighbouring
// invocations read neighbouring words. Slices past the edge of A or B are zero-filled; rows and columns past the
// edge of C are not stored.
//
// Slow on lavapipe (shared memory and barriers cost a lot on a CPU); the runtime picks it on GPUs only (see
// Ops.cpp). FMA contraction is allowed: not bit-exact (dot_precise.comp is).
// params: [0] M, [1] N, [2] K. Workgroups: (ceil(N / 128), ceil(M / 128), batch).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 256) in;
#include "common/params.glsl"

#define BM 128u
#define BN 128u
#define BK 8u
#define TM 8u
#define TN 8u
#include "common/matmul_shared_body.glsl"
