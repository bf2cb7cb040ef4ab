// matmul_shared_256x128.comp - matmul_shared.comp with 256 x 128 tiles of C per workgroup of 256 invocations, 8-deep slices of A and B,
// and a 16 x 8 block of C per invocation. The 128 x 256 kernel's shape turned: more rows per invocation, reads of A twice as wide.
// params: [0] M, [1] N, [2] K. Workgroups: (ceil(N / 128), ceil(M / 256), batch).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 256) in;
#include "common/params.glsl"

#define BM 256u
#define BN 128u
#define BK 8u
#define TM 16u
#define TN 8u
#include "common/matmul_shared_body.glsl"
