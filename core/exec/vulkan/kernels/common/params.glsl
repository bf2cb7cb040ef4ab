// params.glsl - the parameter words every kernel reads at binding 0, and the flat invocation index.
#include "common/codes.h"

layout(std430, set = 0, binding = 0) readonly buffer Params {
    uint p[];
};

// Kernels over N elements dispatch (min(groups, 65535), ceil(groups / 65535)) workgroups of 256.
uint flatInvocation()
{
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
}
