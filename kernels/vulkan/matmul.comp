#version 460
// kernels: matmul_f32 matmul_f32_t matmul_f32_big gemv_f32 gemv_t_f32 gemv_reduce matmul_generic
/* matmul.comp - matrix products of the Vulkan backend (port of kernels/cuda/matmul.cu).

   All kernels compute C[z] = A[z] · B[z] for row-major A [M, K], B [K, N], C [M, N] with broadcast batch dims:
   batch z starts A at rlx_mm_batch's offset (a.dims / a.st[0]), B at a.st[1], and C at z · M · N.
   in: 0 A, 1 B, 2 bias [N], 3 gate [M, N] (linear only).
   ia: 0 M, 1 N, 2 K, 3 batch count, 4 has bias, 5 activation (rlx_activation), 7 has gate, 8 gate activation:
   the linear epilogue act(acc + bias[n]) · act_gate(gate[m, n]) (rlx_epilogue) applied by the f32 kernels.
   The *_t kernels (matmul_f32_t, gemv_t_f32) read B stored transposed, [N, K] row-major (ia 9 = 1): a weight
   W [N, K] used as transpose(W) is read in place, never copied.
   Tiles are walked with grid-stride loops in every grid dimension, so any shape fits the grid limits.
*/
#include "common.glsl"
#extension GL_EXT_control_flow_attributes : require

/* 16-byte vector views of device memory (used only where the address is 16-byte aligned) */
layout(buffer_reference, std430, buffer_reference_align = 16) buffer MmVec4 { vec4 v; };

#if defined(RLX_K_matmul_f32) || defined(RLX_K_matmul_f32_t)
#if defined(RLX_K_matmul_f32_t)
#define MM_TB 1
#endif
/* ---- matmul_f32: 64x64 tiles of C, k-steps of 16, 256 threads each computing a 4x4 block of C (rows
   4·ty + i, columns 4·tx + j with tx = tid % 16, ty = tid / 16). Grid: x over column tiles, y over row tiles,
   z over batches (all grid-stride). f32 accumulation, every output adds its products in k order.

   Shared memory (16 KiB, two stages so that one barrier per k-step suffices):
     mm_as[stage][k][g]  the A tile transposed: vec4 g holds rows 4g..4g+3 of column k. The vec4 index is
                         XOR-swizzled with mm_swz(k) so that the transposing stores of a warp hit distinct
                         banks; a thread reads its 4 rows as one vec4.
     mm_bs[stage][k][g]  the B tile: vec4 g holds columns 4g..4g+3 of row k.
   Loaders: thread tid reads A row tid / 4, columns 4·(tid % 4) .. +3 and B row tid / 16, columns
   4·(tid % 16) .. +3 of the k-step, as one 16-byte load when the rows are 16-byte aligned (K resp. N a multiple
   of 4), else element by element. The next k-step is loaded into registers while the current one is
   multiplied.
   matmul_f32_t (MM_TB): B is stored [N, K]; its tile is loaded like A's (row n0 + tid / 4, columns
   k0 + 4·(tid % 4) .. +3, 16-byte loads when K is a multiple of 4) and stored transposed into mm_bs (unswizzled:
   the stores of a warp may share banks, the reads stay as in matmul_f32). */
#define MM_BM 64
#define MM_BN 64
#define MM_BK 16
shared vec4 mm_as[2][MM_BK][MM_BM / 4];
shared vec4 mm_bs[2][MM_BK][MM_BN / 4];

int mm_swz(int k) { return (k >> 2) << 1; }

void main() {
    RlxArgs a = rlx_pc.a;
    const int64_t M = a.ia[0], N = a.ia[1], K = a.ia[2], nb = a.ia[3];
    const int tid = int(gl_LocalInvocationID.x), tx = tid & 15, ty = tid >> 4;
    const int64_t tm = (M + MM_BM - 1) / MM_BM, tn = (N + MM_BN - 1) / MM_BN;
    /* loader coordinates */
    const int ar = tid >> 2, ak = (tid & 3) * 4, br = tid >> 4, bc = (tid & 15) * 4;
    for (int64_t z = gl_WorkGroupID.z; z < nb; z += gl_NumWorkGroups.z) {
        int64_t ao, bo;
        rlx_mm_batch(z, ao, bo);
        const uint64_t Ab = a.in_[0] + uint64_t(ao) * 4ul, Bb = a.in_[1] + uint64_t(bo) * 4ul;
        const uint64_t Cb = a.out_ + uint64_t(z * M * N) * 4ul;
        const bool vecA = (K & 3) == 0 && (Ab & 15ul) == 0ul;
#if defined(MM_TB)
        const bool vecB = (K & 3) == 0 && (Bb & 15ul) == 0ul;
#else
        const bool vecB = (N & 3) == 0 && (Bb & 15ul) == 0ul;
#endif
        const bool vecC = (N & 3) == 0 && (Cb & 15ul) == 0ul;
        for (int64_t bm = gl_WorkGroupID.y; bm < tm; bm += gl_NumWorkGroups.y) {
            for (int64_t bn = gl_WorkGroupID.x; bn < tn; bn += gl_NumWorkGroups.x) {
                const int64_t m0 = bm * MM_BM, n0 = bn * MM_BN;
                const int64_t arow = m0 + ar, bcol = n0 + bc;
                /* addresses of this thread's first A and B elements at k0 = 0 */
                uint64_t pa = Ab + uint64_t(arow * K + ak) * 4ul;
#if defined(MM_TB)
                const int64_t brow = n0 + ar;   /* row of B [N, K] */
                uint64_t pb = Bb + uint64_t(brow * K + ak) * 4ul;
                const uint64_t pb_step = uint64_t(MM_BK * 4);
#else
                uint64_t pb = Bb + uint64_t(int64_t(br) * N + bcol) * 4ul;
                const uint64_t pb_step = uint64_t(MM_BK * N) * 4ul;
#endif
                vec4 ra, rb;
                vec4 acc[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));

/* registers ra / rb <- the k-step at k0 (zero outside A and B) */
#define MM_LOAD(k0)                                                                                                 \
    {                                                                                                               \
        const int64_t ka = (k0) + ak, kb = (k0) + br;                                                               \
        ra = vec4(0.0);                                                                                             \
        rb = vec4(0.0);                                                                                             \
        if (vecA) {                                                                                                 \
            if (arow < M && ka < K) ra = MmVec4(pa).v;                                                              \
        } else {                                                                                                    \
            [[unroll]] for (int c = 0; c < 4; c++)                                                                  \
                if (arow < M && ka + c < K) ra[c] = rlx_f32(pa, c);                                                 \
        }                                                                                                           \
        MM_LOAD_B(kb)                                                                                               \
    }
#if defined(MM_TB)
/* B [N, K]: row brow, columns ka .. ka + 3 (the same k as A's loader) */
#define MM_LOAD_B(kb)                                                                                               \
        if (vecB) {                                                                                                 \
            if (brow < N && ka < K) rb = MmVec4(pb).v;                                                              \
        } else {                                                                                                    \
            [[unroll]] for (int c = 0; c < 4; c++)                                                                  \
                if (brow < N && ka + c < K) rb[c] = rlx_f32(pb, c);                                                 \
        }
#define MM_STORE_B(s) [[unroll]] for (int c = 0; c < 4; c++) mm_bs[s][ak + c][ar >> 2][ar & 3] = rb[c];
#else
#define MM_LOAD_B(kb)                                                                                               \
        if (vecB) {                                                                                                 \
            if (kb < K && bcol < N) rb = MmVec4(pb).v;                                                              \
        } else {                                                                                                    \
            [[unroll]] for (int c = 0; c < 4; c++)                                                                  \
                if (kb < K && bcol + c < N) rb[c] = rlx_f32(pb, c);                                                 \
        }
#define MM_STORE_B(s) mm_bs[s][br][bc >> 2] = rb;
#endif
/* registers -> shared stage s */
#define MM_STORE(s)                                                                                                 \
    {                                                                                                               \
        [[unroll]] for (int c = 0; c < 4; c++) mm_as[s][ak + c][(ar >> 2) ^ mm_swz(ak + c)][ar & 3] = ra[c];        \
        MM_STORE_B(s)                                                                                               \
    }

                MM_LOAD(0)
                MM_STORE(0)
                barrier();
                int s = 0;
                for (int64_t k0 = 0; k0 < K; k0 += MM_BK) {
                    const bool more = k0 + MM_BK < K;
                    if (more) {
                        pa += uint64_t(MM_BK * 4);
                        pb += pb_step;
                        MM_LOAD(k0 + MM_BK)
                    }
                    [[unroll]] for (int kk = 0; kk < MM_BK; kk++) {
                        const vec4 av = mm_as[s][kk][ty ^ mm_swz(kk)];
                        const vec4 bv = mm_bs[s][kk][tx];
                        acc[0] += av.x * bv;
                        acc[1] += av.y * bv;
                        acc[2] += av.z * bv;
                        acc[3] += av.w * bv;
                    }
                    if (more) MM_STORE(s ^ 1)
                    barrier();
                    s ^= 1;
                }
#undef MM_LOAD
#undef MM_STORE
#undef MM_LOAD_B
#undef MM_STORE_B
                const int64_t c0 = n0 + tx * 4;
                const bool bias = a.ia[4] != 0L, act = a.ia[5] != 0L || a.ia[7] != 0L;
                [[unroll]] for (int i = 0; i < 4; i++) {
                    const int64_t r = m0 + ty * 4 + i;
                    if (r >= M || c0 >= N) continue;
                    vec4 v = acc[i];
                    if (bias)
                        [[unroll]] for (int j = 0; j < 4; j++)
                            if (c0 + j < N) v[j] += rlx_f32(a.in_[2], c0 + j);
                    const uint64_t pc = Cb + uint64_t(r * N + c0) * 4ul;
                    if (vecC) {
                        MmVec4(pc).v = v;   /* N % 4 == 0: the 4 columns are all inside */
                    } else {
                        [[unroll]] for (int j = 0; j < 4; j++)
                            if (c0 + j < N) rlx_f32(pc, j) = v[j];
                    }
                }
                /* activation / gate: read back this invocation's own outputs and finish them in a loop with a
                   run-time trip count (one inlined copy of the activation math instead of sixteen) */
                const int nq = act ? 16 : 0;
                for (int q = 0; q < nq; q++) {
                    const int64_t r = m0 + ty * 4 + (q >> 2), c = c0 + (q & 3);
                    if (r < M && c < N) {
                        const uint64_t pc = Cb + uint64_t(r * N + c) * 4ul;
                        rlx_f32(pc, 0) = rlx_epilogue_act(rlx_f32(pc, 0), r, c, N);
                    }
                }
            }
        }
    }
}
#endif

#if defined(RLX_K_matmul_f32_big)
/* ---- matmul_f32_big: 128x128 tiles of C, k-steps of MB_BK, 256 threads each computing an 8x8 block of C: rows
   4·ty + i and 64 + 4·ty + i, columns 4·tx + j and 64 + 4·tx + j (i, j < 4, tx = tid % 16, ty = tid / 16), so
   that the shared-memory reads of a warp are consecutive vec4s. Grid: x over column tiles, y over row tiles,
   z over batches (all grid-stride). f32 accumulation, every output adds its products in k order.

   Shared memory (32 KiB static with MB_BK = 16; two stages so that one barrier per k-step suffices):
     mb_as[stage][k][g]  the A tile transposed: vec4 g holds rows 4g..4g+3 of column k. The vec4 index is
                         XOR-swizzled with mb_swz(k) so that the transposing stores of a warp hit distinct
                         banks; a thread reads its 4 + 4 rows as two vec4s.
     mb_bs[stage][k][g]  the B tile: vec4 g holds columns 4g..4g+3 of row k.
   Loaders: per pass p < MB_BK / 8, thread tid reads A row tid / (MB_BK / 4) + p · 1024 / MB_BK, columns
   4·(tid % (MB_BK / 4)) .. +3, and B row tid / 32 + 8p, columns 4·(tid % 32) .. +3 of the k-step, as one 16-byte
   load when the rows are 16-byte aligned (K resp. N a multiple of 4), else element by element. The next k-step
   is loaded into registers while the current one is multiplied. */
#define MB_BK 16
#define MB_NP (MB_BK / 8)
shared vec4 mb_as[2][MB_BK][32];
shared vec4 mb_bs[2][MB_BK][32];

int mb_swz(int k) { return (k >> 2) * (32 / MB_BK); }

void main() {
    RlxArgs a = rlx_pc.a;
    const int64_t M = a.ia[0], N = a.ia[1], K = a.ia[2], nb = a.ia[3];
    const int tid = int(gl_LocalInvocationID.x), tx = tid & 15, ty = tid >> 4;
    const int64_t tm = (M + 127) / 128, tn = (N + 127) / 128;
    /* loader coordinates (pass 0) */
    const int ar = tid / (MB_BK / 4), ak = (tid % (MB_BK / 4)) * 4, br = tid >> 5, bc = (tid & 31) * 4;
    for (int64_t z = gl_WorkGroupID.z; z < nb; z += gl_NumWorkGroups.z) {
        int64_t ao, bo;
        rlx_mm_batch(z, ao, bo);
        const uint64_t Ab = a.in_[0] + uint64_t(ao) * 4ul, Bb = a.in_[1] + uint64_t(bo) * 4ul;
        const uint64_t Cb = a.out_ + uint64_t(z * M * N) * 4ul;
        const bool vecA = (K & 3) == 0 && (Ab & 15ul) == 0ul;
        const bool vecB = (N & 3) == 0 && (Bb & 15ul) == 0ul;
        const bool vecC = (N & 3) == 0 && (Cb & 15ul) == 0ul;
        for (int64_t bm = gl_WorkGroupID.y; bm < tm; bm += gl_NumWorkGroups.y) {
            for (int64_t bn = gl_WorkGroupID.x; bn < tn; bn += gl_NumWorkGroups.x) {
                const int64_t m0 = bm * 128, n0 = bn * 128;
                const int64_t arow = m0 + ar, bcol = n0 + bc;
                /* addresses of this thread's first A and B elements at k0 = 0 (pass 0) */
                uint64_t pa = Ab + uint64_t(arow * K + ak) * 4ul;
                uint64_t pb = Bb + uint64_t(int64_t(br) * N + bcol) * 4ul;
                const uint64_t pa_pass = uint64_t(int64_t(1024 / MB_BK) * K) * 4ul;
                const uint64_t pb_pass = uint64_t(8 * N) * 4ul, pb_step = uint64_t(MB_BK * N) * 4ul;
                vec4 ra[MB_NP], rb[MB_NP];
                vec4 acc[16];
                [[unroll]] for (int i = 0; i < 16; i++) acc[i] = vec4(0.0);

/* registers ra / rb <- the k-step at k0 (zero outside A and B) */
#define MB_LOAD(k0)                                                                                                 \
    {                                                                                                               \
        [[unroll]] for (int p = 0; p < MB_NP; p++) {                                                                \
            const int64_t ka = (k0) + ak, kb = (k0) + br + 8 * p, row = arow + p * (1024 / MB_BK);                  \
            const uint64_t qa = pa + uint64_t(p) * pa_pass, qb = pb + uint64_t(p) * pb_pass;                        \
            ra[p] = vec4(0.0);                                                                                      \
            rb[p] = vec4(0.0);                                                                                      \
            if (vecA) {                                                                                             \
                if (row < M && ka < K) ra[p] = MmVec4(qa).v;                                                        \
            } else {                                                                                                \
                [[unroll]] for (int c = 0; c < 4; c++)                                                              \
                    if (row < M && ka + c < K) ra[p][c] = rlx_f32(qa, c);                                           \
            }                                                                                                       \
            if (vecB) {                                                                                             \
                if (kb < K && bcol < N) rb[p] = MmVec4(qb).v;                                                       \
            } else {                                                                                                \
                [[unroll]] for (int c = 0; c < 4; c++)                                                              \
                    if (kb < K && bcol + c < N) rb[p][c] = rlx_f32(qb, c);                                          \
            }                                                                                                       \
        }                                                                                                           \
    }
/* registers -> shared stage s */
#define MB_STORE(s)                                                                                                 \
    {                                                                                                               \
        [[unroll]] for (int p = 0; p < MB_NP; p++) {                                                                \
            const int row = ar + p * (1024 / MB_BK);                                                                \
            [[unroll]] for (int c = 0; c < 4; c++)                                                                  \
                mb_as[s][ak + c][(row >> 2) ^ mb_swz(ak + c)][row & 3] = ra[p][c];                                  \
            mb_bs[s][br + 8 * p][bc >> 2] = rb[p];                                                                  \
        }                                                                                                           \
    }

                MB_LOAD(0)
                MB_STORE(0)
                barrier();
                int s = 0;
                for (int64_t k0 = 0; k0 < K; k0 += MB_BK) {
                    const bool more = k0 + MB_BK < K;
                    if (more) {
                        pa += uint64_t(MB_BK * 4);
                        pb += pb_step;
                        MB_LOAD(k0 + MB_BK)
                    }
                    [[unroll]] for (int kk = 0; kk < MB_BK; kk++) {
                        const int sw = mb_swz(kk);
                        const vec4 a0 = mb_as[s][kk][ty ^ sw], a1 = mb_as[s][kk][(ty + 16) ^ sw];
                        const vec4 b0 = mb_bs[s][kk][tx], b1 = mb_bs[s][kk][tx + 16];
                        [[unroll]] for (int i = 0; i < 4; i++) {
                            acc[2 * i] += a0[i] * b0;
                            acc[2 * i + 1] += a0[i] * b1;
                            acc[8 + 2 * i] += a1[i] * b0;
                            acc[8 + 2 * i + 1] += a1[i] * b1;
                        }
                    }
                    if (more) MB_STORE(s ^ 1)
                    barrier();
                    s ^= 1;
                }
#undef MB_LOAD
#undef MB_STORE
                /* acc[2i + h]: row m0 + 64·(i / 4) + 4·ty + i % 4, columns n0 + 64·h + 4·tx .. +3 */
                const bool bias = a.ia[4] != 0L, act = a.ia[5] != 0L || a.ia[7] != 0L;
                [[unroll]] for (int q = 0; q < 16; q++) {
                    const int i = q >> 1, h = q & 1;
                    const int64_t r = m0 + 64 * (i >> 2) + ty * 4 + (i & 3), c0 = n0 + 64 * h + tx * 4;
                    if (r >= M || c0 >= N) continue;
                    vec4 v = acc[q];
                    if (bias)
                        [[unroll]] for (int j = 0; j < 4; j++)
                            if (c0 + j < N) v[j] += rlx_f32(a.in_[2], c0 + j);
                    const uint64_t pc = Cb + uint64_t(r * N + c0) * 4ul;
                    if (vecC) {
                        MmVec4(pc).v = v;   /* N % 4 == 0: the 4 columns are all inside */
                    } else {
                        [[unroll]] for (int j = 0; j < 4; j++)
                            if (c0 + j < N) rlx_f32(pc, j) = v[j];
                    }
                }
                /* activation / gate: read back this invocation's own outputs and finish them in a loop with a
                   run-time trip count (one inlined copy of the activation math instead of 64) */
                const int nq = act ? 64 : 0;
                for (int q = 0; q < nq; q++) {
                    const int i = q >> 3, j = q & 7;
                    const int64_t r = m0 + 64 * (i >> 2) + ty * 4 + (i & 3), c = n0 + 64 * (j >> 2) + tx * 4 + (j & 3);
                    if (r < M && c < N) {
                        const uint64_t pc = Cb + uint64_t(r * N + c) * 4ul;
                        rlx_f32(pc, 0) = rlx_epilogue_act(rlx_f32(pc, 0), r, c, N);
                    }
                }
            }
        }
    }
}
#endif

#if defined(RLX_K_gemv_f32)
/* ---- gemv_f32: few rows (M <= 8). A workgroup of 256 threads owns 32 columns: thread (tx = tid % 32,
   ty = tid / 32) accumulates rows 0..M-1 over k = ty, ty + 8, ...; the 8 partial sums of a column are added in
   order through shared memory. Grid: x over column blocks, y over K splits, z over batches (grid-stride).
   K splits (ia 11 = splits > 1, ia 12 = k per split): split y covers k in [y·kc, (y+1)·kc) and stores its sums,
   without the epilogue, to in[5] (f32, [splits][batches][M][N]); gemv_reduce adds them in order. ---------- */
#define GEMV_MAXM 8
shared float gv_part[GEMV_MAXM][8][33];

void main() {
    RlxArgs a = rlx_pc.a;
    const int64_t M = a.ia[0], N = a.ia[1], K = a.ia[2], nb = a.ia[3];
    const int tx = int(gl_LocalInvocationID.x) & 31, ty = int(gl_LocalInvocationID.x) >> 5;
    const int mrows = int(min(M, int64_t(GEMV_MAXM)));
    const int64_t tn = (N + 31) / 32, splits = a.ia[11];
    const int64_t k0 = splits > 1 ? int64_t(gl_WorkGroupID.y) * a.ia[12] : 0L;
    const int64_t k1 = splits > 1 ? min(K, k0 + a.ia[12]) : K;
    for (int64_t z = gl_WorkGroupID.z; z < nb; z += gl_NumWorkGroups.z) {
        int64_t ao, bo;
        rlx_mm_batch(z, ao, bo);
        const uint64_t A = a.in_[0] + uint64_t(ao) * 4ul, B = a.in_[1] + uint64_t(bo) * 4ul;
        const uint64_t C = a.out_ + uint64_t(z * M * N) * 4ul;
        for (int64_t bn = gl_WorkGroupID.x; bn < tn; bn += gl_NumWorkGroups.x) {
            const int64_t col = bn * 32 + tx;
            float acc[GEMV_MAXM];
            [[unroll]] for (int m = 0; m < GEMV_MAXM; m++) acc[m] = 0.0;
            if (col < N) {
                for (int64_t k = k0 + ty; k < k1; k += 8) {
                    const float bv = rlx_f32(B, k * N + col);
                    [[unroll]] for (int m = 0; m < GEMV_MAXM; m++)
                        if (m < mrows) acc[m] += rlx_f32(A, int64_t(m) * K + k) * bv;
                }
            }
            [[unroll]] for (int m = 0; m < GEMV_MAXM; m++) gv_part[m][ty][tx] = acc[m];
            barrier();
            if (ty == 0 && col < N) {
                for (int m = 0; m < mrows; m++) {
                    float v = 0.0;
                    for (int q = 0; q < 8; q++) v += gv_part[m][q][tx];
                    if (splits > 1)
                        rlx_f32(a.in_[5], (int64_t(gl_WorkGroupID.y) * nb + z) * M * N + int64_t(m) * N + col) = v;
                    else
                        rlx_f32(C, int64_t(m) * N + col) = rlx_epilogue(v, int64_t(m), col, N);
                }
            }
            barrier();
        }
    }
}
#endif

#if defined(RLX_K_gemv_t_f32)
/* ---- gemv_t_f32: few rows (M <= 8), B stored [N, K]. A workgroup of 256 threads owns 8 columns, 32 threads
   each: thread (l = tid % 32, q = tid / 32) accumulates rows 0..M-1 of column 8·bn + q over k = l, l + 32, ...
   (row n of B and the rows of A are contiguous in k); the 32 partial sums of a (column, row) are added in order
   through shared memory. Grid: x over column blocks, y over K splits (as gemv_f32), z over batches. -------- */
#define GEMV_MAXM 8
shared float gt_part[8][GEMV_MAXM][33];

void main() {
    RlxArgs a = rlx_pc.a;
    const int64_t M = a.ia[0], N = a.ia[1], K = a.ia[2], nb = a.ia[3];
    const int tid = int(gl_LocalInvocationID.x), l = tid & 31, q = tid >> 5;
    const int mrows = int(min(M, int64_t(GEMV_MAXM)));
    const int64_t tn = (N + 7) / 8, splits = a.ia[11];
    const int64_t k0 = splits > 1 ? int64_t(gl_WorkGroupID.y) * a.ia[12] : 0L;
    const int64_t k1 = splits > 1 ? min(K, k0 + a.ia[12]) : K;
    for (int64_t z = gl_WorkGroupID.z; z < nb; z += gl_NumWorkGroups.z) {
        int64_t ao, bo;
        rlx_mm_batch(z, ao, bo);
        const uint64_t A = a.in_[0] + uint64_t(ao) * 4ul, B = a.in_[1] + uint64_t(bo) * 4ul;
        const uint64_t C = a.out_ + uint64_t(z * M * N) * 4ul;
        for (int64_t bn = gl_WorkGroupID.x; bn < tn; bn += gl_NumWorkGroups.x) {
            const int64_t col = bn * 8 + q;
            float acc[GEMV_MAXM];
            [[unroll]] for (int m = 0; m < GEMV_MAXM; m++) acc[m] = 0.0;
            if (col < N) {
                for (int64_t k = k0 + l; k < k1; k += 32) {
                    const float bv = rlx_f32(B, col * K + k);
                    [[unroll]] for (int m = 0; m < GEMV_MAXM; m++)
                        if (m < mrows) acc[m] += rlx_f32(A, int64_t(m) * K + k) * bv;
                }
            }
            [[unroll]] for (int m = 0; m < GEMV_MAXM; m++) gt_part[q][m][l] = acc[m];
            barrier();
            if (tid < 8 * GEMV_MAXM) {   /* thread (column c = tid / 8, row m = tid % 8) */
                const int c = tid >> 3, m = tid & 7;
                const int64_t cc = bn * 8 + c;
                if (m < mrows && cc < N) {
                    float v = 0.0;
                    for (int j = 0; j < 32; j++) v += gt_part[c][m][j];
                    if (splits > 1)
                        rlx_f32(a.in_[5], (int64_t(gl_WorkGroupID.y) * nb + z) * M * N + int64_t(m) * N + cc) = v;
                    else
                        rlx_f32(C, int64_t(m) * N + cc) = rlx_epilogue(v, int64_t(m), cc, N);
                }
            }
            barrier();
        }
    }
}
#endif

#if defined(RLX_K_gemv_reduce)
/* ---- gemv_reduce: C = epilogue(sum over the K splits of gemv_f32 / gemv_t_f32, in split order), one
   invocation per output element (grid-stride). ------------------------------------------------------------- */
void main() {
    RlxArgs a = rlx_pc.a;
    const int64_t M = a.ia[0], N = a.ia[1], nb = a.ia[3], splits = a.ia[11], n = nb * M * N;
    RLX_GRID_LOOP(e, n) {
        const int64_t r = e % (M * N);
        float v = 0.0;
        for (int64_t s = 0; s < splits; s++) v += rlx_f32(a.in_[5], s * n + e);
        rlx_f32(a.out_, e) = rlx_epilogue(v, r / N, r % N, N);
    }
}
#endif

#if defined(RLX_K_matmul_generic)
/* ---- matmul_generic: every other dtype. 16x16 output tiles, one output per thread (tx = tid % 16 the
   column, ty = tid / 16 the row), k-steps of 16 staged in shared memory in the accumulator type. Each output
   adds its products in k order like the CPU: f64 in double, f16/bf16 in f32 (stored rounded), integers in
   uint64 with wrap-around (stored wrapped). ia 9 = 1: B is stored [N, K]. Grid: x over column tiles, y over row
   tiles, z over batches (grid-stride). -------------------------------------------------------------------- */

/* loads and stores in the accumulator type */
double mg_ld_d(uint64_t p, int dt, int64_t i) { return rlx_f64(p, i); }
float mg_ld_f(uint64_t p, int dt, int64_t i) { return rlx_ld_f(p, dt, i); }
uint64_t mg_ld_u(uint64_t p, int dt, int64_t i) { return uint64_t(rlx_ld_i(p, dt, i)); }
void mg_st_d(uint64_t p, int dt, int64_t i, double v) { rlx_f64(p, i) = v; }
void mg_st_f(uint64_t p, int dt, int64_t i, float v) { rlx_st_from_f(p, dt, i, v); }
void mg_st_u(uint64_t p, int dt, int64_t i, uint64_t v) { rlx_st_from_i(p, dt, i, int64_t(v), 0); }

/* The tile loop for one accumulator type ACC (shared tiles AS / BS, zero Z, load LD, store ST). */
#define MG_BODY(NAME, ACC, AS, BS, Z, LD, ST)                                                                       \
    shared ACC AS[16][17];                                                                                          \
    shared ACC BS[16][17];                                                                                          \
    void NAME() {                                                                                                   \
        RlxArgs a = rlx_pc.a;                                                                                       \
        const int64_t M = a.ia[0], N = a.ia[1], K = a.ia[2], nb = a.ia[3];                                          \
        const int tx = int(gl_LocalInvocationID.x) & 15, ty = int(gl_LocalInvocationID.x) >> 4;                     \
        const int dt = a.dt_in[0];                                                                                  \
        const bool tb = a.ia[9] != 0L; /* B stored [N, K] */                                                        \
        const int64_t tm = (M + 15) / 16, tn = (N + 15) / 16;                                                       \
        const uint64_t A = a.in_[0], B = a.in_[1];                                                                  \
        for (int64_t z = gl_WorkGroupID.z; z < nb; z += gl_NumWorkGroups.z) {                                       \
            int64_t ao, bo;                                                                                         \
            rlx_mm_batch(z, ao, bo);                                                                                \
            for (int64_t bm = gl_WorkGroupID.y; bm < tm; bm += gl_NumWorkGroups.y)                                  \
                for (int64_t bn = gl_WorkGroupID.x; bn < tn; bn += gl_NumWorkGroups.x) {                            \
                    const int64_t r = bm * 16 + ty, c = bn * 16 + tx;                                               \
                    ACC acc = Z;                                                                                    \
                    for (int64_t k0 = 0; k0 < K; k0 += 16) {                                                        \
                        ACC av = Z, bv = Z;                                                                         \
                        if (r < M && k0 + tx < K) av = LD(A, dt, ao + r * K + k0 + tx);                             \
                        if (k0 + ty < K && c < N) bv = LD(B, dt, bo + (tb ? c * K + k0 + ty : (k0 + ty) * N + c)); \
                        AS[ty][tx] = av;                                                                            \
                        BS[ty][tx] = bv;                                                                            \
                        barrier();                                                                                  \
                        const int kn = K - k0 < 16 ? int(K - k0) : 16;                                              \
                        for (int kk = 0; kk < kn; kk++) acc += AS[ty][kk] * BS[kk][tx];                             \
                        barrier();                                                                                  \
                    }                                                                                               \
                    if (r < M && c < N) ST(a.out_, a.dt_out, z * M * N + r * N + c, acc);                           \
                }                                                                                                   \
        }                                                                                                           \
    }

MG_BODY(mg_body_d, double, mg_ad, mg_bd, 0.0lf, mg_ld_d, mg_st_d)
MG_BODY(mg_body_f, float, mg_af, mg_bf, 0.0, mg_ld_f, mg_st_f)
MG_BODY(mg_body_u, uint64_t, mg_au, mg_bu, 0ul, mg_ld_u, mg_st_u)

void main() {
    switch (rlx_pc.a.dt_in[0]) {
    case RLX_DT_F64: mg_body_d(); break;
    case RLX_DT_F32: case RLX_DT_F16: case RLX_DT_BF16: mg_body_f(); break;
    default: mg_body_u(); break;
    }
}
#endif
