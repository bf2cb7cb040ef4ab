// matmul_shared_64x64.comp - matmul_shared.comp with 64 x 64 tiles of C per workgroup of 256 invocations, 16-deep slices of A and B,
// and a 4 x 4 block of C per invocation. For matrices too small to fill a GPU with 128 x 128 tiles (a 1024 x 1024 result is 64 of them).
// params: [0] M, [1] N, [2] K. Workgroups: (ceil(N / 64), ceil(M / 64), batch).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 256) in;
#include "common/params.glsl"

#define BM 64u
#define BN 64u
#define BK 16u
#define TM 4u
#define TN 4u
#include "common/matmul_shared_body.glsl"
