// matmul_shared_body.glsl - the body of the shared-memory f32 matmuls (matmul_shared*.comp; matmul_shared.comp
// describes the algorithm): a workgroup of NT invocations computes a BM x BN tile of C from BK-deep slices of A and
// B, double buffered in shared memory; each invocation keeps a TM x TN block of C in registers. The including file
// defines BM, BN, BK, TM and TN (TM and TN multiples of 4, BK a multiple of 4) and declares local_size_x = NT,
// where NT = (BM / TM) * (BN / TN) and NT divides both BM * BK / 4 and BK * BN / 4.

#define TX (BN / TN)            // invocations across a row of the tile
#define TY (BM / TM)            // ... and down a column
#define NT (TX * TY)            // invocations in the workgroup
#define GM (TM / 4u)            // groups of four rows per invocation
#define GN (TN / 4u)            // groups of four columns per invocation
#define LA (BM * BK / 4u / NT)  // vec4 loads of the A slice per invocation and step
#define LB (BK * BN / 4u / NT)  // ... of the B slice

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

    // Load l of A: row aRow[l], k aK[l] .. +3. Load l of B: row bRow[l], columns bCol4[l] * 4 .. +3.
    uint aRow[LA], aK[LA], aAddr[LA];
    bool aRowIn[LA];
    [[unroll]] for (uint l = 0u; l < LA; ++l) {
        uint e = tid + l * NT;
        aRow[l] = e / (BK / 4u);
        aK[l] = (e % (BK / 4u)) * 4u;
        aRowIn[l] = row0 + aRow[l] < M;
        aAddr[l] = aBase4 + min(row0 + aRow[l], M - 1u) * K4 + aK[l] / 4u;
    }
    uint bRow[LB], bCol4[LB], bAddr[LB];
    bool bColIn[LB];
    [[unroll]] for (uint l = 0u; l < LB; ++l) {
        uint e = tid + l * NT;
        bRow[l] = e / (BN / 4u);
        bCol4[l] = e % (BN / 4u);
        bColIn[l] = col0 / 4u + bCol4[l] < N4;
        bAddr[l] = bBase4 + bRow[l] * N4 + col0 / 4u + bCol4[l];
    }

    uint ty = tid / TX;
    uint tx = tid % TX;

    // acc[g * 4 + i][h]: row g * TY * 4 + ty * 4 + i, columns (h * TX + tx) * 4 .. +3 of the tile.
    vec4 acc[TM][GN];
    [[unroll]] for (uint i = 0u; i < TM; ++i)
        [[unroll]] for (uint h = 0u; h < GN; ++h)
            acc[i][h] = vec4(0.0);

    uint steps = (K + BK - 1u) / BK;
    vec4 av[LA], bv[LB];
    [[unroll]] for (uint l = 0u; l < LA; ++l) {
        av[l] = (aRowIn[l] && aK[l] < K) ? a4[aAddr[l]] : vec4(0.0);
        As[0][aK[l] + 0u][aRow[l] >> 2u][aRow[l] & 3u] = av[l].x;
        As[0][aK[l] + 1u][aRow[l] >> 2u][aRow[l] & 3u] = av[l].y;
        As[0][aK[l] + 2u][aRow[l] >> 2u][aRow[l] & 3u] = av[l].z;
        As[0][aK[l] + 3u][aRow[l] >> 2u][aRow[l] & 3u] = av[l].w;
    }
    [[unroll]] for (uint l = 0u; l < LB; ++l) {
        bv[l] = (bColIn[l] && bRow[l] < K) ? b4[bAddr[l]] : vec4(0.0);
        Bs[0][bRow[l]][bCol4[l]] = bv[l];
    }
    barrier();

    for (uint s = 0u; s < steps; ++s) {
        uint cur = s & 1u;
        bool more = s + 1u < steps;
        if (more) {
            uint k0 = (s + 1u) * BK;
            [[unroll]] for (uint l = 0u; l < LA; ++l)
                av[l] = (aRowIn[l] && k0 + aK[l] < K) ? a4[aAddr[l] + k0 / 4u] : vec4(0.0);
            [[unroll]] for (uint l = 0u; l < LB; ++l)
                bv[l] = (bColIn[l] && k0 + bRow[l] < K) ? b4[bAddr[l] + k0 * N4] : vec4(0.0);
        }
        [[unroll]] for (uint k = 0u; k < BK; ++k) {
            vec4 a[GM], b[GN];
            [[unroll]] for (uint g = 0u; g < GM; ++g)
                a[g] = As[cur][k][g * TY + ty];
            [[unroll]] for (uint h = 0u; h < GN; ++h)
                b[h] = Bs[cur][k][h * TX + tx];
            [[unroll]] for (uint g = 0u; g < GM; ++g)
                [[unroll]] for (uint h = 0u; h < GN; ++h) {
                    acc[g * 4u + 0u][h] += a[g].x * b[h];
                    acc[g * 4u + 1u][h] += a[g].y * b[h];
                    acc[g * 4u + 2u][h] += a[g].z * b[h];
                    acc[g * 4u + 3u][h] += a[g].w * b[h];
                }
        }
        if (more) {
            uint nxt = cur ^ 1u;
            [[unroll]] for (uint l = 0u; l < LA; ++l) {
                As[nxt][aK[l] + 0u][aRow[l] >> 2u][aRow[l] & 3u] = av[l].x;
                As[nxt][aK[l] + 1u][aRow[l] >> 2u][aRow[l] & 3u] = av[l].y;
                As[nxt][aK[l] + 2u][aRow[l] >> 2u][aRow[l] & 3u] = av[l].z;
                As[nxt][aK[l] + 3u][aRow[l] >> 2u][aRow[l] & 3u] = av[l].w;
            }
            [[unroll]] for (uint l = 0u; l < LB; ++l)
                Bs[nxt][bRow[l]][bCol4[l]] = bv[l];
        }
        barrier();
    }

    uint cBase4 = batch * M * N4;
    [[unroll]] for (uint g = 0u; g < GM; ++g)
        [[unroll]] for (uint i = 0u; i < 4u; ++i) {
            uint row = row0 + g * TY * 4u + ty * 4u + i;
            if (row >= M)
                continue;
            [[unroll]] for (uint h = 0u; h < GN; ++h) {
                uint c = col0 / 4u + h * TX + tx;
                if (c < N4)
                    c4[cBase4 + row * N4 + c] = acc[g * 4u + i][h];
            }
        }
}
