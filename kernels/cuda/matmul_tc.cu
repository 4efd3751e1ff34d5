/* matmul_tc.cu - f32 matrix product on tensor cores (sm_80 and later; the host selects it only there, and this
   module is compiled for compute_80 so the sm_75 PTX never contains it).

   Same contract as matmul_f32 in matmul.cu: C[z] = A[z] · B[z], row-major, broadcast batch dims through
   rlx_mm_batch, the linear epilogue rlx_epilogue. in: 0 A, 1 B, 2 bias, 3 gate. ia: 0 M, 1 N, 2 K, 3 batch
   count, 4 has bias, 5 activation, 7 has gate, 8 gate activation, 6 precision (0: three TF32 products per
   step, a·b ≈ a_hi·b_hi + a_hi·b_lo + a_lo·b_hi with x_hi = tf32(x), x_lo = tf32(x - x_hi); 1: one TF32
   product, 10-bit mantissas). The products of one k-step accumulate in a zeroed register tile that is then
   added to the running sum with ordinary f32 additions, because the tensor cores' accumulation truncates.
   With precision 0 the products measure at least as accurate as matmul_f32's plain f32 accumulation.

   Two tilings of one kernel body: matmul_tc, 64x64 tiles of C with k-steps of 16 and 4 warps of 32x32 each;
   matmul_tc_big, 128x128 tiles with k-steps of 32 and 8 warps of 64x32 each (for large products). A warp tile
   is a grid of mma.sync.m16n8k8 fragments (tf32 inputs, f32 accumulate). Each k-step is staged in shared
   memory (A as [BM][BK+4], B as [BK][BN+8]: the pads make the fragment reads conflict-free) while the next
   one is already loading into registers. Fragment layouts (lane = 4·g + t): A a0 (g, t), a1 (g+8, t),
   a2 (g, t+4), a3 (g+8, t+4); B b0 (k = t, n = g), b1 (k = t+4, n = g); C c0 (g, 2t), c1 (g, 2t+1),
   c2 (g+8, 2t), c3 (g+8, 2t+1).
*/
#include "common.cuh"

RLX_D unsigned rlx_tf32(float x) {
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}
RLX_D void rlx_mma_tf32(float* c, const unsigned* a, const unsigned* b) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* BM x BN tile of C per block, k-steps of BK, warps of WM x WN (MT x NT fragments). */
template <int BM, int BN, int BK, int WM, int WN>
RLX_D void rlx_tc_body(const rlx_kargs& a, float* smem) {
    enum { NWN = BN / WN, THREADS = (BM / WM) * NWN * 32, MT = WM / 16, NT = WN / 8 };
    enum { LA = BM * BK / THREADS, LB = BK * BN / THREADS, SA = BK + 4, SB = BN + 8 };
    enum { AR = THREADS / BK, BR = THREADS / BN };      /* THREADS is a multiple of BK and of BN */
    float* As = smem;                 /* [BM][SA] */
    float* Bs = smem + BM * SA;       /* [BK][SB] */
    const rlx_i64 M = a.ia[0], N = a.ia[1], K = a.ia[2], nb = a.ia[3];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t4 = lane & 3;
    const int wm = (warp / NWN) * WM, wn = (warp % NWN) * WN;
    const int ac = tid % BK, ar = tid / BK, bc = tid % BN, br = tid / BN;
    const int precise = a.ia[6] == 0;
    const rlx_i64 tm = (M + BM - 1) / BM, tn = (N + BN - 1) / BN;
    for (rlx_i64 z = blockIdx.z; z < nb; z += gridDim.z) {
        rlx_i64 ao, bo;
        rlx_mm_batch(a, z, &ao, &bo);
        const float* A = (const float*)a.in[0] + ao;
        const float* B = (const float*)a.in[1] + bo;
        float* C = (float*)a.out + z * M * N;
        for (rlx_i64 bm = blockIdx.y; bm < tm; bm += gridDim.y)
            for (rlx_i64 bn = blockIdx.x; bn < tn; bn += gridDim.x) {
                const rlx_i64 m0 = bm * BM, n0 = bn * BN;
                float acc[MT][NT][4];
                float ra[LA], rb[LB];
#pragma unroll
                for (int i = 0; i < MT; i++)
#pragma unroll
                    for (int j = 0; j < NT; j++)
#pragma unroll
                        for (int q = 0; q < 4; q++) acc[i][j][q] = 0.0f;
                /* loader: thread tid reads A rows ar + AR·i at column ac and B rows br + BR·i at column bc */
#define RLX_TC_LOAD(k0)                                                                                          \
    {                                                                                                            \
        const rlx_i64 c = (k0) + ac, nc = n0 + bc;                                                               \
        const float* p = A + (m0 + ar) * K + c;                                                                  \
        const float* q = B + ((k0) + br) * N + nc;                                                               \
        _Pragma("unroll") for (int i = 0; i < LA; i++) {                                                         \
            ra[i] = (m0 + ar + AR * i < M && c < K) ? *p : 0.0f;                                                 \
            p += AR * K;                                                                                         \
        }                                                                                                        \
        _Pragma("unroll") for (int i = 0; i < LB; i++) {                                                         \
            rb[i] = ((k0) + br + BR * i < K && nc < N) ? *q : 0.0f;                                              \
            q += BR * N;                                                                                         \
        }                                                                                                        \
    }
                RLX_TC_LOAD(0)
                for (rlx_i64 k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
                    for (int i = 0; i < LA; i++) As[(ar + AR * i) * SA + ac] = ra[i];
#pragma unroll
                    for (int i = 0; i < LB; i++) Bs[(br + BR * i) * SB + bc] = rb[i];
                    __syncthreads();
                    if (k0 + BK < K) { RLX_TC_LOAD(k0 + BK) }
                    /* this k-step's products go to a zeroed tile first and then into acc with f32 adds: the
                       tensor cores' own accumulation truncates, which over long K costs most of the precision */
                    float part[MT][NT][4];
#pragma unroll
                    for (int i = 0; i < MT; i++)
#pragma unroll
                        for (int j = 0; j < NT; j++)
#pragma unroll
                            for (int q = 0; q < 4; q++) part[i][j][q] = 0.0f;
#pragma unroll
                    for (int ks = 0; ks < BK; ks += 8) {
                        unsigned bhi[NT][2], blo[NT][2];
#pragma unroll
                        for (int ni = 0; ni < NT; ni++) {
                            const int c = wn + ni * 8 + g;
#pragma unroll
                            for (int q = 0; q < 2; q++) {
                                const float v = Bs[(ks + t4 + 4 * q) * SB + c];
                                bhi[ni][q] = rlx_tf32(v);
                                blo[ni][q] = precise ? rlx_tf32(v - rlx_u2f(bhi[ni][q])) : 0u;
                            }
                        }
#pragma unroll
                        for (int mi = 0; mi < MT; mi++) {
                            const int r = wm + mi * 16 + g;
                            unsigned ahi[4], alo[4];
#pragma unroll
                            for (int q = 0; q < 4; q++) {
                                const float v = As[(r + 8 * (q & 1)) * SA + ks + t4 + 4 * (q >> 1)];
                                ahi[q] = rlx_tf32(v);
                                alo[q] = precise ? rlx_tf32(v - rlx_u2f(ahi[q])) : 0u;
                            }
#pragma unroll
                            for (int ni = 0; ni < NT; ni++) {
                                if (precise) {
                                    rlx_mma_tf32(part[mi][ni], alo, bhi[ni]);
                                    rlx_mma_tf32(part[mi][ni], ahi, blo[ni]);
                                }
                                rlx_mma_tf32(part[mi][ni], ahi, bhi[ni]);
                            }
                        }
                    }
#pragma unroll
                    for (int i = 0; i < MT; i++)
#pragma unroll
                        for (int j = 0; j < NT; j++)
#pragma unroll
                            for (int q = 0; q < 4; q++) acc[i][j][q] += part[i][j][q];
                    __syncthreads();
                }
#undef RLX_TC_LOAD
#pragma unroll
                for (int mi = 0; mi < MT; mi++)
#pragma unroll
                    for (int ni = 0; ni < NT; ni++)
#pragma unroll
                        for (int q = 0; q < 4; q++) {
                            const rlx_i64 r = m0 + wm + mi * 16 + g + (q >> 1) * 8;
                            const rlx_i64 c = n0 + wn + ni * 8 + 2 * t4 + (q & 1);
                            if (r < M && c < N) C[r * N + c] = rlx_epilogue(a, acc[mi][ni][q], r, c, N);
                        }
            }
    }
}

/* matmul_tc: 128 threads, 64x64 tiles. */
extern "C" __global__ void __launch_bounds__(128) matmul_tc(rlx_kargs a) {
    __shared__ float smem[64 * (16 + 4) + 16 * (64 + 8)];
    rlx_tc_body<64, 64, 16, 32, 32>(a, smem);
}
/* matmul_tc_big: 256 threads, 128x128 tiles. */
extern "C" __global__ void __launch_bounds__(256) matmul_tc_big(rlx_kargs a) {
    __shared__ float smem[128 * (32 + 4) + 32 * (128 + 8)];
    rlx_tc_body<128, 128, 32, 64, 32>(a, smem);
}
