// matmul_shared_128x256.comp - matmul_shared.comp with 128 x 256 tiles of C per workgroup of 256 invocations, 8-deep slices of A and B,
// and a 8 x 16 block of C per invocation. Twice the multiply-adds per shared-memory read of the 128 x 128 tile, at 128 accumulators per invocation (fewer workgroups per multiprocessor).
// params: [0] M, [1] N, [2] K. Workgroups: (ceil(N / 256), ceil(M / 128), batch).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 256) in;
#include "common/params.glsl"

#define BM 128u
#define BN 256u
#define BK 8u
#define TM 8u
#define TN 16u
#include "common/matmul_shared_body.glsl"
