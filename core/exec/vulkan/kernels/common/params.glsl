// params.glsl - the parameter words every kernel reads at binding 0, and the flat invocation index.
#include "common/codes.h"

// A uniform buffer: on GPUs parameters belong in the constant path, and on lavapipe a uniform-buffer read at a
// uniform offset is one plain load, where a storage-buffer read costs a loop over the lanes. std140 pads array
// elements to 16 bytes, so the words are packed four to a uvec4; the runtime binds SHARDX_VK_PARAM_BLOCK_BYTES.
layout(std140, set = 0, binding = 0) uniform Params {
    uvec4 paramWords[SHARDX_VK_PARAM_BLOCK_BYTES / 16];
};

/// Parameter word `i`.
uint P(uint i)
{
    return paramWords[i >> 2u][i & 3u];
}

// Kernels over N elements dispatch (min(groups, 65535), ceil(groups / 65535)) workgroups of 256.
uint flatInvocation()
{
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
}
