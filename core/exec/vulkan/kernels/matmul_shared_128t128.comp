// matmul_shared_128t128.comp - matmul_shared.comp with 128 x 128 tiles of C per workgroup of 128 invocations, 8-deep slices of A and B,
// and a 8 x 16 block of C per invocation. Half the invocations of matmul_shared.comp, each with twice its block of C.
// params: [0] M, [1] N, [2] K. Workgroups: (ceil(N / 128), ceil(M / 128), batch).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 128) in;
#include "common/params.glsl"

#define BM 128u
#define BN 128u
#define BK 8u
#define TM 8u
#define TN 16u
#include "common/matmul_shared_body.glsl"
