// strided_copy.comp - the one data-movement kernel: transpose, broadcast_in_dim, slice, pad, concatenate,
// reverse, dynamic_slice and dynamic_update_slice are all strided copies of an index space.
//
// For each point o of the region (row-major over dims), in every dimension d:
//   t = o[d] - lo[d]; the point reads the source iff t >= 0, t % (interior[d] + 1) == 0 and
//   t / (interior[d] + 1) < srcDim[d]; otherwise it is padding and gets the pad value.
// Source element: srcBase + sum(t / (interior[d] + 1) * srcStride[d]) (strides may be 0 or negative);
// destination element: dstBase + sum(o[d] * dstStride[d]). Offsets count elements of `words` words.
//
// params: [0] count, [1] rank, [2] words per element (1 or 2), [3] srcBase, [4] dstBase, [5] pad value low word,
// [6] pad value high word, then per dimension (rank entries each): [7] dims, srcStride (as int), dstStride,
// lo (as int), interior, srcDim.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;
#include "common/params.glsl"

layout(std430, set = 0, binding = 1) readonly buffer Src {
    uint src[];
};
layout(std430, set = 0, binding = 2) buffer Dst {
    uint dst[];
};

void main()
{
    uint i = flatInvocation();
    if (i >= P(0))
        return;
    uint rank = P(1);
    uint words = P(2);
    int srcOff = int(P(3));
    uint dstOff = P(4);
    bool pad = false;
    uint rem = i;
    for (int d = int(rank) - 1; d >= 0; --d) {
        uint dim = P(7 + d);
        uint o = rem % dim;
        rem /= dim;
        dstOff += o * P(7 + 2 * rank + d);
        int t = int(o) - int(P(7 + 3 * rank + d));
        int step = int(P(7 + 4 * rank + d)) + 1;
        if (t < 0 || t % step != 0 || t / step >= int(P(7 + 5 * rank + d))) {
            pad = true;
        } else {
            srcOff += (t / step) * int(P(7 + rank + d));
        }
    }
    if (words == 1u) {
        dst[dstOff] = pad ? P(5) : src[srcOff];
    } else {
        dst[dstOff * 2u] = pad ? P(5) : src[srcOff * 2];
        dst[dstOff * 2u + 1u] = pad ? P(6) : src[srcOff * 2 + 1];
    }
}
