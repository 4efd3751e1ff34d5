/* matmul.cu - matrix products of the CUDA backend (SIMT kernels; the tensor-core kernel for sm_80+ is in
   matmul_tc.cu).

   All kernels compute C[z] = A[z] · B[z] for row-major A [M, K], B [K, N], C [M, N] with broadcast batch dims:
   batch z starts A at rlx_mm_batch's offset (a.dims / a.st[0]), B at a.st[1], and C at z · M · N.
   in: 0 A, 1 B, 2 bias [N], 3 gate [M, N] (linear only).
   ia: 0 M, 1 N, 2 K, 3 batch count, 4 has bias, 5 activation (rlx_activation), 7 has gate, 8 gate activation:
   the linear epilogue act(acc + bias[n]) · act_gate(gate[m, n]) (rlx_epilogue) applied by the f32 kernels.
   The *_t kernels (matmul_f32_t, gemv_t_f32) read B stored transposed, [N, K] row-major (ia 9 = 1): a weight
   W [N, K] used as transpose(W) is read in place, never copied.
   Tiles are walked with grid-stride loops in every grid dimension, so any shape fits the grid limits.
*/
#include "common.cuh"

/* ---- matmul_f32: 64x64 tiles, k-steps of 16, 256 threads each computing a 4x4 block of C (rows ty + 16i,
   columns tx + 16j). A is staged transposed in shared memory; the next k-step is prefetched into registers
   while the current one is multiplied. f32 accumulation. TB (matmul_f32_t): B is stored [N, K] and its tile is
   loaded like A's (rows n0 + tid / 16 + 16i, column k0 + tid % 16) and staged transposed the same way. ------- */
#define RLX_MM_BM 64
#define RLX_MM_BN 64
#define RLX_MM_BK 16
template <bool TB>
RLX_D void rlx_matmul_f32_body(const rlx_kargs& a) {
    __shared__ float As[RLX_MM_BK][RLX_MM_BM + 4];
    __shared__ float Bs[RLX_MM_BK][RLX_MM_BN + 4];
    const rlx_i64 M = a.ia[0], N = a.ia[1], K = a.ia[2], nb = a.ia[3];
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    const rlx_i64 tm = (M + RLX_MM_BM - 1) / RLX_MM_BM, tn = (N + RLX_MM_BN - 1) / RLX_MM_BN;
    for (rlx_i64 z = blockIdx.z; z < nb; z += gridDim.z) {
        rlx_i64 ao, bo;
        rlx_mm_batch(a, z, &ao, &bo);
        const float* A = (const float*)a.in[0] + ao;
        const float* B = (const float*)a.in[1] + bo;
        float* C = (float*)a.out + z * M * N;
        for (rlx_i64 bm = blockIdx.y; bm < tm; bm += gridDim.y)
            for (rlx_i64 bn = blockIdx.x; bn < tn; bn += gridDim.x) {
                const rlx_i64 m0 = bm * RLX_MM_BM, n0 = bn * RLX_MM_BN;
                float acc[4][4];
                float ra[4], rb[4];
#pragma unroll
                for (int i = 0; i < 4; i++)
#pragma unroll
                    for (int j = 0; j < 4; j++) acc[i][j] = 0.0f;
                /* loader coordinates: A rows (tid / 16) + 16i, column tid % 16; B rows (tid / 64) + 4i,
                   column tid % 64 */
                const int ac = tid & 15, ar = tid >> 4, bc = tid & 63, br = tid >> 6;
#define RLX_MM_LOAD(k0)                                                                                          \
    for (int i = 0; i < 4; i++) {                                                                                \
        const rlx_i64 r = m0 + ar + 16 * i, c = (k0) + ac;                                                       \
        ra[i] = (r < M && c < K) ? A[r * K + c] : 0.0f;                                                          \
        if (TB) {                                                                                                \
            const rlx_i64 nr = n0 + ar + 16 * i;                                                                 \
            rb[i] = (nr < N && c < K) ? B[nr * K + c] : 0.0f;                                                    \
        } else {                                                                                                 \
            const rlx_i64 kr = (k0) + br + 4 * i, nc = n0 + bc;                                                  \
            rb[i] = (kr < K && nc < N) ? B[kr * N + nc] : 0.0f;                                                  \
        }                                                                                                        \
    }
                RLX_MM_LOAD(0)
                for (rlx_i64 k0 = 0; k0 < K; k0 += RLX_MM_BK) {
#pragma unroll
                    for (int i = 0; i < 4; i++) {
                        As[ac][ar + 16 * i] = ra[i];
                        if (TB) Bs[ac][ar + 16 * i] = rb[i];
                        else Bs[br + 4 * i][bc] = rb[i];
                    }
                    __syncthreads();
                    if (k0 + RLX_MM_BK < K) { RLX_MM_LOAD(k0 + RLX_MM_BK) }
#pragma unroll
                    for (int kk = 0; kk < RLX_MM_BK; kk++) {
                        float av[4], bv[4];
#pragma unroll
                        for (int i = 0; i < 4; i++) { av[i] = As[kk][ty + 16 * i]; bv[i] = Bs[kk][tx + 16 * i]; }
#pragma unroll
                        for (int i = 0; i < 4; i++)
#pragma unroll
                            for (int j = 0; j < 4; j++) acc[i][j] += av[i] * bv[j];
                    }
                    __syncthreads();
                }
#undef RLX_MM_LOAD
#pragma unroll
                for (int i = 0; i < 4; i++) {
                    const rlx_i64 r = m0 + ty + 16 * i;
                    if (r >= M) continue;
#pragma unroll
                    for (int j = 0; j < 4; j++) {
                        const rlx_i64 c = n0 + tx + 16 * j;
                        if (c >= N) continue;
                        C[r * N + c] = rlx_epilogue(a, acc[i][j], r, c, N);
                    }
                }
            }
    }
}
extern "C" __global__ void __launch_bounds__(256) matmul_f32(rlx_kargs a) { rlx_matmul_f32_body<false>(a); }
extern "C" __global__ void __launch_bounds__(256) matmul_f32_t(rlx_kargs a) { rlx_matmul_f32_body<true>(a); }

/* ---- gemv_f32: few rows (M <= 8). A block of 256 threads owns 32 columns: thread (tx = tid % 32, ty =
   tid / 32) accumulates rows 0..M-1 over k = ty, ty + 8, ...; the 8 partial sums of a column are added in
   order through shared memory. Reads of B are coalesced 128-byte rows.
   K splits (ia 11 = splits > 1, ia 12 = k per split; grid y = the split): when the column blocks alone would
   leave most SMs idle, split s covers k in [s·kc, (s+1)·kc) and stores its sums, without the epilogue, to
   in[5] (f32, [splits][batches][M][N]); gemv_reduce adds the splits in order and applies the epilogue. ---- */
#define RLX_GEMV_MAXM 8
RLX_D void rlx_gemv_krange(const rlx_kargs& a, rlx_i64 K, rlx_i64* k0, rlx_i64* k1) {
    *k0 = 0;
    *k1 = K;
    if (a.ia[11] > 1) {
        *k0 = (rlx_i64)blockIdx.y * a.ia[12];
        *k1 = *k0 + a.ia[12] < K ? *k0 + a.ia[12] : K;
    }
}
extern "C" __global__ void __launch_bounds__(256) gemv_f32(rlx_kargs a) {
    __shared__ float part[RLX_GEMV_MAXM][8][33];
    const rlx_i64 M = a.ia[0], N = a.ia[1], K = a.ia[2], nb = a.ia[3];
    const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    const rlx_i64 tn = (N + 31) / 32;
    rlx_i64 k0, k1;
    rlx_gemv_krange(a, K, &k0, &k1);
    for (rlx_i64 z = blockIdx.z; z < nb; z += gridDim.z) {
        rlx_i64 ao, bo;
        rlx_mm_batch(a, z, &ao, &bo);
        const float* A = (const float*)a.in[0] + ao;
        const float* B = (const float*)a.in[1] + bo;
        float* C = (float*)a.out + z * M * N;
        for (rlx_i64 bn = blockIdx.x; bn < tn; bn += gridDim.x) {
            const rlx_i64 col = bn * 32 + tx;
            float acc[RLX_GEMV_MAXM];
#pragma unroll
            for (int m = 0; m < RLX_GEMV_MAXM; m++) acc[m] = 0.0f;
            if (col < N) {
                for (rlx_i64 k = k0 + ty; k < k1; k += 8) {
                    const float bv = B[k * N + col];
#pragma unroll
                    for (int m = 0; m < RLX_GEMV_MAXM; m++)
                        if (m < M) acc[m] += A[m * K + k] * bv;
                }
            }
#pragma unroll
            for (int m = 0; m < RLX_GEMV_MAXM; m++) part[m][ty][tx] = acc[m];
            __syncthreads();
            if (ty == 0 && col < N) {
                for (int m = 0; m < M; m++) {
                    float v = 0.0f;
                    for (int q = 0; q < 8; q++) v += part[m][q][tx];
                    if (a.ia[11] > 1) ((float*)a.in[5])[((rlx_i64)blockIdx.y * nb + z) * M * N + m * N + col] = v;
                    else C[m * N + col] = rlx_epilogue(a, v, m, col, N);
                }
            }
            __syncthreads();
        }
    }
}

/* ---- gemv_t_f32: few rows (M <= 8), B stored [N, K]. A block of 256 threads owns 8 columns, one warp each:
   lane l accumulates rows 0..M-1 over k = l, l + 32, ... (row n of B and the rows of A are contiguous in k, so
   every read of a warp is one 128-byte line), then the 32 partial sums are added by a butterfly of shuffles.
   Grid: x over column blocks, y over K splits (as gemv_f32), z over batches (grid-stride). ------------------ */
extern "C" __global__ void __launch_bounds__(256) gemv_t_f32(rlx_kargs a) {
    const rlx_i64 M = a.ia[0], N = a.ia[1], K = a.ia[2], nb = a.ia[3];
    const int lane = threadIdx.x & 31, wy = threadIdx.x >> 5;
    const rlx_i64 tn = (N + 7) / 8;
    rlx_i64 k0, k1;
    rlx_gemv_krange(a, K, &k0, &k1);
    for (rlx_i64 z = blockIdx.z; z < nb; z += gridDim.z) {
        rlx_i64 ao, bo;
        rlx_mm_batch(a, z, &ao, &bo);
        const float* A = (const float*)a.in[0] + ao;
        const float* B = (const float*)a.in[1] + bo;
        float* C = (float*)a.out + z * M * N;
        for (rlx_i64 bn = blockIdx.x; bn < tn; bn += gridDim.x) {
            const rlx_i64 col = bn * 8 + wy;
            float acc[RLX_GEMV_MAXM];
#pragma unroll
            for (int m = 0; m < RLX_GEMV_MAXM; m++) acc[m] = 0.0f;
            if (col < N) {
                const float* Bn = B + col * K;
                for (rlx_i64 k = k0 + lane; k < k1; k += 32) {
                    const float bv = Bn[k];
#pragma unroll
                    for (int m = 0; m < RLX_GEMV_MAXM; m++)
                        if (m < M) acc[m] += A[m * K + k] * bv;
                }
            }
#pragma unroll
            for (int m = 0; m < RLX_GEMV_MAXM; m++) {
                float v = acc[m];
#pragma unroll
                for (int o = 16; o > 0; o >>= 1) v += RLX_SHFL_XOR(v, o);
                acc[m] = v;
            }
            if (lane == 0 && col < N)
                for (int m = 0; m < M; m++) {
                    if (a.ia[11] > 1) ((float*)a.in[5])[((rlx_i64)blockIdx.y * nb + z) * M * N + m * N + col] = acc[m];
                    else C[m * N + col] = rlx_epilogue(a, acc[m], m, col, N);
                }
        }
    }
}

/* ---- gemv_reduce: C = epilogue(sum over the K splits of gemv_f32 / gemv_t_f32 / matmul_tc, in split order),
   or the sum rounded to the output dtype (f16/bf16), one thread per output element (grid-stride). ------- */
extern "C" __global__ void __launch_bounds__(256) gemv_reduce(rlx_kargs a) {
    const rlx_i64 M = a.ia[0], N = a.ia[1], nb = a.ia[3], splits = a.ia[11], n = nb * M * N;
    const float* P = (const float*)a.in[5];
    for (rlx_i64 e = (rlx_i64)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += (rlx_i64)gridDim.x * blockDim.x) {
        const rlx_i64 r = e % (M * N);
        float v = 0.0f;
        for (rlx_i64 s = 0; s < splits; s++) v += P[s * n + e];
        if (a.dt_out == RLX_DT_F32) ((float*)a.out)[e] = rlx_epilogue(a, v, r / N, r % N, N);
        else rlx_st_from_f((void*)a.out, a.dt_out, e, v);   /* f16/bf16 tensor-core splits: plain matmul */
    }
}

/* ---- matmul_generic: every other dtype. 16x16 output tiles, one output per thread, k-steps of 16 staged in
   shared memory in the accumulator type. Each output adds its products in k order like the CPU: f64 in
   double, f16/bf16 in f32 (stored rounded), integers in uint64 with wrap-around (stored wrapped). ia 9 = 1: B is
   stored [N, K]. ------------------------------------------------------------------------------------------- */
template <class ACC>
RLX_D ACC rlx_mm_ld(const void* p, int dt, rlx_i64 i);
template <> RLX_D double rlx_mm_ld<double>(const void* p, int dt, rlx_i64 i) { (void)dt; return ((const double*)p)[i]; }
template <> RLX_D float rlx_mm_ld<float>(const void* p, int dt, rlx_i64 i) { return rlx_ld_f(p, dt, i); }
template <> RLX_D rlx_u64 rlx_mm_ld<rlx_u64>(const void* p, int dt, rlx_i64 i) { return (rlx_u64)rlx_ld_i(p, dt, i); }
RLX_D void rlx_mm_st(void* p, int dt, rlx_i64 i, double v) { ((double*)p)[i] = v; (void)dt; }
RLX_D void rlx_mm_st(void* p, int dt, rlx_i64 i, float v) { rlx_st_from_f(p, dt, i, v); }
RLX_D void rlx_mm_st(void* p, int dt, rlx_i64 i, rlx_u64 v) { rlx_st_from_i(p, dt, i, (rlx_i64)v, 0); }

template <class ACC>
RLX_D void rlx_mm_generic_body(const rlx_kargs& a) {
    __shared__ ACC As[16][17];
    __shared__ ACC Bs[16][17];
    const rlx_i64 M = a.ia[0], N = a.ia[1], K = a.ia[2], nb = a.ia[3];
    const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4, dt = a.dt_in[0];
    const bool tb = a.ia[9] != 0;   /* B stored [N, K] */
    const rlx_i64 tm = (M + 15) / 16, tn = (N + 15) / 16;
    for (rlx_i64 z = blockIdx.z; z < nb; z += gridDim.z) {
        rlx_i64 ao, bo;
        rlx_mm_batch(a, z, &ao, &bo);
        const void* A = (const void*)a.in[0];
        const void* B = (const void*)a.in[1];
        for (rlx_i64 bm = blockIdx.y; bm < tm; bm += gridDim.y)
            for (rlx_i64 bn = blockIdx.x; bn < tn; bn += gridDim.x) {
                const rlx_i64 r = bm * 16 + ty, c = bn * 16 + tx;
                ACC acc = ACC(0);
                for (rlx_i64 k0 = 0; k0 < K; k0 += 16) {
                    As[ty][tx] = (r < M && k0 + tx < K) ? rlx_mm_ld<ACC>(A, dt, ao + r * K + k0 + tx) : ACC(0);
                    Bs[ty][tx] = (k0 + ty < K && c < N)
                                     ? rlx_mm_ld<ACC>(B, dt, bo + (tb ? c * K + k0 + ty : (k0 + ty) * N + c))
                                     : ACC(0);
                    __syncthreads();
                    const int kn = K - k0 < 16 ? (int)(K - k0) : 16;
                    for (int kk = 0; kk < kn; kk++) acc += As[ty][kk] * Bs[kk][tx];
                    __syncthreads();
                }
                if (r < M && c < N) rlx_mm_st((void*)a.out, a.dt_out, z * M * N + r * N + c, acc);
            }
    }
}
extern "C" __global__ void __launch_bounds__(256) matmul_generic(rlx_kargs a) {
    switch (a.dt_in[0]) {
    case RLX_DT_F64: rlx_mm_generic_body<double>(a); break;
    case RLX_DT_F32: case RLX_DT_F16: case RLX_DT_BF16: rlx_mm_generic_body<float>(a); break;
    default: rlx_mm_generic_body<rlx_u64>(a); break;
    }
}
