// matmul_shared16.comp - matmul_shared.comp with 16-deep slices of A and B (two vec4 loads of each per invocation
// and step, half the barriers, 32 KiB of shared memory). Which depth is faster depends on the GPU: bench_vulkan's
// BM_VulkanMatmulShared rows measure both.
// params: [0] M, [1] N, [2] K. Workgroups: (ceil(N / 128), ceil(M / 128), batch).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 256) in;
#include "common/params.glsl"

#define BM 128u
#define BN 128u
#define BK 16u
#define TM 8u
#define TN 8u
#include "common/matmul_shared_body.glsl"
