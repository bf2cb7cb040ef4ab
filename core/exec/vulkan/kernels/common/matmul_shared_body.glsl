// matmul_shared_body.glsl - the body of matmul_shared.comp and matmul_shared16.comp (see the former for the
// algorithm): a 256-invocation workgroup computes a 128 x 128 tile of C from BK-deep slices of A and B, double
// buffered in shared memory. The including file defines BK (8 or 16) and declares local_size_x = 256.

#define BM 128u
#define BN 128u
// vec4 loads of each slice per invocation: A is 128 x BK (BK / 4 vec4 per row), B is BK x 128 (32 vec4 per row).
#define LOADS (BK / 8u)

layout(std430, set = 0, binding = 1) readonly buffer A4 {
    vec4 a4[];
};
layout(std430, set = 0, binding = 2) readonly buffer B4 {
    vec4 b4[];
};
layout(std430, set = 0, binding = 3) writeonly buffer C4 {
    vec4 c4[];
};

shared vec4 As[2][BK][BM / 4u]; // As[.][k][r / 4] holds rows r..r+3 of column k of the A slice
shared vec4 Bs[2][BK][BN / 4u]; // Bs[.][k][c / 4] holds columns c..c+3 of row k of the B slice

void main()
{
    uint M = P(0);
    uint N = P(1);
    uint K = P(2);
    uint K4 = K / 4u;
    uint N4 = N / 4u;
    uint tid = gl_LocalInvocationID.x;
    uint batch = gl_WorkGroupID.z;
    uint row0 = gl_WorkGroupID.y * BM;
    uint col0 = gl_WorkGroupID.x * BN;
    uint aBase4 = batch * M * K4;
    uint bBase4 = batch * K * N4;

    // Load l of this invocation: A row aRow[l], k aK[l] .. +3; B row bRow[l], columns bCol4[l] * 4 .. +3.
    uint aRow[LOADS], aK[LOADS], bRow[LOADS], aAddr[LOADS], bAddr[LOADS];
    bool aRowIn[LOADS], bColIn[LOADS];
    [[unroll]] for (uint l = 0u; l < LOADS; ++l) {
        uint e = tid + l * 256u;
        aRow[l] = e / (BK / 4u);
        aK[l] = (e % (BK / 4u)) * 4u;
        bRow[l] = e >> 5u;
        uint bCol4 = e & 31u;
        aRowIn[l] = row0 + aRow[l] < M;
        bColIn[l] = col0 / 4u + bCol4 < N4;
        aAddr[l] = aBase4 + min(row0 + aRow[l], M - 1u) * K4 + aK[l] / 4u;
        bAddr[l] = bBase4 + bRow[l] * N4 + col0 / 4u + bCol4;
    }

    uint ty = tid >> 4u;
    uint tx = tid & 15u;

    vec4 acc[8][2];
    [[unroll]] for (uint i = 0u; i < 8u; ++i) {
        acc[i][0] = vec4(0.0);
        acc[i][1] = vec4(0.0);
    }

    uint steps = (K + BK - 1u) / BK;
    vec4 av[LOADS], bv[LOADS];
    [[unroll]] for (uint l = 0u; l < LOADS; ++l) {
        av[l] = (aRowIn[l] && aK[l] < K) ? a4[aAddr[l]] : vec4(0.0);
        bv[l] = (bColIn[l] && bRow[l] < K) ? b4[bAddr[l]] : vec4(0.0);
        As[0][aK[l] + 0u][aRow[l] >> 2u][aRow[l] & 3u] = av[l].x;
        As[0][aK[l] + 1u][aRow[l] >> 2u][aRow[l] & 3u] = av[l].y;
        As[0][aK[l] + 2u][aRow[l] >> 2u][aRow[l] & 3u] = av[l].z;
        As[0][aK[l] + 3u][aRow[l] >> 2u][aRow[l] & 3u] = av[l].w;
        Bs[0][bRow[l]][(tid + l * 256u) & 31u] = bv[l];
    }
    barrier();

    for (uint s = 0u; s < steps; ++s) {
        uint cur = s & 1u;
        bool more = s + 1u < steps;
        if (more) {
            uint k0 = (s + 1u) * BK;
            [[unroll]] for (uint l = 0u; l < LOADS; ++l) {
                av[l] = (aRowIn[l] && k0 + aK[l] < K) ? a4[aAddr[l] + k0 / 4u] : vec4(0.0);
                bv[l] = (bColIn[l] && k0 + bRow[l] < K) ? b4[bAddr[l] + k0 * N4] : vec4(0.0);
            }
        }
        [[unroll]] for (uint k = 0u; k < BK; ++k) {
            vec4 a0 = As[cur][k][ty];
            vec4 a1 = As[cur][k][16u + ty];
            vec4 b0 = Bs[cur][k][tx];
            vec4 b1 = Bs[cur][k][16u + tx];
            acc[0][0] += a0.x * b0;
            acc[0][1] += a0.x * b1;
            acc[1][0] += a0.y * b0;
            acc[1][1] += a0.y * b1;
            acc[2][0] += a0.z * b0;
            acc[2][1] += a0.z * b1;
            acc[3][0] += a0.w * b0;
            acc[3][1] += a0.w * b1;
            acc[4][0] += a1.x * b0;
            acc[4][1] += a1.x * b1;
            acc[5][0] += a1.y * b0;
            acc[5][1] += a1.y * b1;
            acc[6][0] += a1.z * b0;
            acc[6][1] += a1.z * b1;
            acc[7][0] += a1.w * b0;
            acc[7][1] += a1.w * b1;
        }
        if (more) {
            uint nxt = cur ^ 1u;
            [[unroll]] for (uint l = 0u; l < LOADS; ++l) {
                As[nxt][aK[l] + 0u][aRow[l] >> 2u][aRow[l] & 3u] = av[l].x;
                As[nxt][aK[l] + 1u][aRow[l] >> 2u][aRow[l] & 3u] = av[l].y;
                As[nxt][aK[l] + 2u][aRow[l] >> 2u][aRow[l] & 3u] = av[l].z;
                As[nxt][aK[l] + 3u][aRow[l] >> 2u][aRow[l] & 3u] = av[l].w;
                Bs[nxt][bRow[l]][(tid + l * 256u) & 31u] = bv[l];
            }
        }
        barrier();
    }

    uint cBase4 = batch * M * N4;
    [[unroll]] for (uint i = 0u; i < 8u; ++i) {
        uint row = row0 + (i < 4u ? ty * 4u + i : 64u + ty * 4u + (i - 4u));
        if (row >= M)
            continue;
        uint c0 = col0 / 4u + tx;
        uint c1 = col0 / 4u + 16u + tx;
        if (c0 < N4)
            c4[cBase4 + row * N4 + c0] = acc[i][0];
        if (c1 < N4)
            c4[cBase4 + row * N4 + c1] = acc[i][1];
    }
}
