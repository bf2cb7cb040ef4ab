// select.comp - out[i] = pred[i] != 0 ? onTrue[i] : onFalse[i], for elements of 1 or 2 words.
// params: [0] count, [1] words per element.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;
#include "common/params.glsl"

layout(std430, set = 0, binding = 1) readonly buffer Pred {
    uint pred[];
};
layout(std430, set = 0, binding = 2) readonly buffer OnTrue {
    uint onTrue[];
};
layout(std430, set = 0, binding = 3) readonly buffer OnFalse {
    uint onFalse[];
};
layout(std430, set = 0, binding = 4) writeonly buffer Out {
    uint outV[];
};

void main()
{
    uint i = flatInvocation();
    if (i >= P(0))
        return;
    uint words = P(1);
    bool t = pred[i] != 0u;
    for (uint w = 0u; w < words; ++w)
        outV[i * words + w] = t ? onTrue[i * words + w] : onFalse[i * words + w];
}
