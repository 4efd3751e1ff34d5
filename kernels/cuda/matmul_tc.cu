/* matmul_tc.cu - f32 matrix product on tensor cores (sm_80 and later; the host selects it only there, and this
   module is compiled for compute_80 so the sm_75 PTX never contains it).

   Same contract as matmul_f32 in matmul.cu: C[z] = A[z] · B[z], row-major, broadcast batch dims through
   rlx_mm_batch, the linear epilogue rlx_epilogue. in: 0 A, 1 B, 2 bias, 3 gate. ia: 0 M, 1 N, 2 K, 3 batch
   count, 4 has bias, 5 activation, 7 has gate, 8 gate activation, 6 precision (0: three TF32 products per
   step, a·b ≈ a_hi·b_hi + a_hi·b_lo + a_lo·b_hi with x_hi = tf32(x), x_lo = tf32(x - x_hi); 1: one TF32
   product, 10-bit mantissas). With precision 0 the products of one k-step (16) accumulate in a zeroed register
   tile that is then added to the running sum with ordinary f32 additions, because the tensor cores' own
   accumulation truncates; with precision 1 they accumulate in place. With precision 0 the products measure at
   least as accurate as matmul_f32's plain f32 accumulation.

   Two tilings of one kernel body: matmul_tc, 64x64 tiles of C with 4 warps of 32x32 each; matmul_tc_big,
   128x128 tiles with 8 warps of 64x32 each (for large products). Both take k-steps of 16 through a 3-stage
   cp.async pipeline in shared memory (48 KiB for the big tiling, the most a block may use without opting in).
   A warp tile is a grid of mma.sync.m16n8k8 fragments (tf32 inputs, f32 accumulate). Fragment layouts
   (lane = 4·g + t): A a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4); B b0 (k = t, n = g), b1 (k = t+4,
   n = g); C c0 (g, 2t), c1 (g, 2t+1), c2 (g+8, 2t), c3 (g+8, 2t+1).

   Shared layouts, in 16-byte chunks of 4 floats, unpadded and XOR-swizzled so that every read and write is
   free of bank conflicts: A [BM][16] with chunk c of row r at c ^ ((r >> 1) & 3), read with ldmatrix.x4 (one
   32-bit element per lane and 8x4 matrix: exactly the A fragment); B [16][BN] with chunk c of row k at
   c ^ ((k & 3) << 1), read with 16-byte loads. The columns of a warp's B tile are permuted: fragment ni, column
   g is column 4·g + ni of the warp tile, so one 16-byte load gives a lane its b-values of all 4 fragments and a
   lane's results of one row are 8 adjacent columns.

   Global loads are 16-byte cp.async (zero-filled past the edges) when K and N are multiples of 4 and both
   operands 16-byte aligned, and 4-byte cp.async otherwise; any M, N, K >= 1 is handled. ia[9] != 0: b is stored
   [N, K] (a transposed weight read in place). f16 and bf16 operands (dt_in[0], plain matmul only: no
   epilogue) are loaded with ordinary loads, converted to f32 in shared memory and multiplied with one TF32
   product per step, which is exact for them; the f32 sum is rounded to the output dtype once.

   K splits (ia 11 = splits > 1, ia 12 = k per split, a multiple of 32; one batch only; grid z = the split):
   when the tiles alone would leave most SMs idle (a prefill's M = 128), split s runs only the k-steps in
   [s·kc, (s+1)·kc) and stores its raw f32 sums to in[5] ([splits][M][N]); gemv_reduce (matmul.cu) adds the
   splits in order and applies the epilogue or the rounding to the output dtype.

   Row and column factors (ia 13 != 0; >>gpuquant's prefill): every result, and every split's raw sum, is
   multiplied by in[6][row] · in[7][column] (f32) before it is stored: the operands are f16 rows that quant.rows_h
   scaled by powers of two, and these are the inverse factors, so the rescaling is exact.
*/
#include "common.cuh"

RLX_D unsigned rlx_tf32(float x) {
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}
RLX_D void rlx_mma_tf32(float* c, const unsigned* a, unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
RLX_D unsigned rlx_smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
RLX_D void rlx_cp16(unsigned dst, const void* src, int bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
}
RLX_D void rlx_cp4(unsigned dst, const void* src, int bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
}
RLX_D void rlx_cp_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
RLX_D void rlx_cp_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }
RLX_D void rlx_ldsm4(unsigned* r, unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

enum { RLX_TC_BK = 16, RLX_TC_STAGES = 3 };

/* The k-steps of BK this block runs: all of them, or its split's (see the K splits above). */
RLX_D void rlx_tc_ksteps(const rlx_kargs& a, rlx_i64 K, int BK, rlx_i64* kt0, rlx_i64* kt1) {
    const rlx_i64 nk = (K + BK - 1) / BK;
    *kt0 = 0;
    *kt1 = nk;
    if (a.ia[11] > 1) {
        *kt0 = (rlx_i64)blockIdx.z * (a.ia[12] / BK);
        *kt1 = *kt0 + a.ia[12] / BK < nk ? *kt0 + a.ia[12] / BK : nk;
    }
}
/* Stores one result: the raw sum of this block's split, or the finished value. */
RLX_D void rlx_tc_store(const rlx_kargs& a, rlx_i64 co, rlx_i64 r, rlx_i64 c, rlx_i64 N, float v, bool half) {
    if (a.ia[13]) v = v * ((const float*)a.in[6])[r] * ((const float*)a.in[7])[c];   /* rows_h factors (exact) */
    if (a.ia[11] > 1) ((float*)a.in[5])[(rlx_i64)blockIdx.z * a.ia[0] * N + r * N + c] = v;
    else if (half) rlx_st_from_f((void*)a.out, a.dt_out, co + r * N + c, v);
    else ((float*)a.out)[co + r * N + c] = rlx_epilogue(a, v, r, c, N);
}

/* Writes a lane's MT x NT accumulator fragments: element q of fragment (mi, ni) belongs at row r0 + 16 mi +
   8 (q >> 1) and column c0 + 4 (q & 1) + ni (TF32 fragments) or c0 + 8 ni + (q & 1) (TCH: m16n8k16 fragments).
   Split-K partials and plain f32 results are stored straight from the unrolled registers; the general store
   (rlx_tc_store: bias, activation, gate, f16/bf16 rounding) runs in one loop over a local copy, because inlined at
   every accumulator of every tile variant it made this module's PTX 12 times larger and its build (nvcc + ptxas)
   15 times slower. */
template <bool TCH>
RLX_D void rlx_tc_rc(rlx_i64 r0, rlx_i64 c0, int mi, int ni, int q, rlx_i64* r, rlx_i64* c) {
    *r = r0 + 16 * mi + 8 * (q >> 1);
    *c = c0 + (TCH ? 8 * ni + (q & 1) : 4 * (q & 1) + ni);
}
template <int MT, int NT, bool TCH>
RLX_D void rlx_tc_write(const rlx_kargs& a, float (&acc)[MT][NT][4], rlx_i64 co, rlx_i64 M, rlx_i64 N, rlx_i64 r0,
                        rlx_i64 c0, bool half) {
    const bool split = a.ia[11] > 1;
    if (!a.ia[13] && (split || (!half && !a.ia[4] && a.ia[5] == RLX_ACT_NONE && !a.ia[7]))) {
        float* out = split ? (float*)a.in[5] + (rlx_i64)blockIdx.z * a.ia[0] * N : (float*)a.out + co;
#pragma unroll
        for (int mi = 0; mi < MT; mi++)
#pragma unroll
            for (int q = 0; q < 4; q++)
#pragma unroll
                for (int ni = 0; ni < NT; ni++) {
                    rlx_i64 r, c;
                    rlx_tc_rc<TCH>(r0, c0, mi, ni, q, &r, &c);
                    if (r < M && c < N) out[r * N + c] = acc[mi][ni][q];
                }
        return;
    }
    float res[MT * NT * 4];
#pragma unroll
    for (int mi = 0; mi < MT; mi++)
#pragma unroll
        for (int ni = 0; ni < NT; ni++)
#pragma unroll
            for (int q = 0; q < 4; q++) res[(mi * NT + ni) * 4 + q] = acc[mi][ni][q];
#pragma unroll 1
    for (int e = 0; e < MT * NT * 4; e++) {
        rlx_i64 r, c;
        rlx_tc_rc<TCH>(r0, c0, (e >> 2) / NT, (e >> 2) % NT, e & 3, &r, &c);
        if (r < M && c < N) rlx_tc_store(a, co, r, c, N, res[e], half);
    }
}

/* Load modes: how a k-step of A and B reaches shared memory.
     RLX_TC_V   f32, 16-byte cp.async for A and B (K and N multiples of 4, 16-byte aligned operands)
     RLX_TC_S   f32, 4-byte cp.async for A and B (any shape)
     RLX_TC_TV  f32, b stored [N, K] (ia[9]): A by 16-byte cp.async, B by 4-byte cp.async with k fastest
     RLX_TC_TS  f32, b stored [N, K]: A and B by 4-byte cp.async
     RLX_TC_H   f16 or bf16 (either layout of b): ordinary loads converted to f32 and stored to shared memory,
                so the f32 tiles and fragments are unchanged. f16 and bf16 values are exact in TF32, so one TF32
                product per step is exact and only the f32 accumulation rounds. */
enum { RLX_TC_V = 0, RLX_TC_S = 1, RLX_TC_TV = 2, RLX_TC_TS = 3, RLX_TC_H = 4 };

/* Loads k-step k0 of the BM x BN tile at (m0, n0) into stage buffers As / Bs (shared addresses; sA / sB are the
   same buffers as generic pointers). A and B are element pointers already offset to the batch (for RLX_TC_H
   element offsets ao / bo into the untyped bases instead). */
template <int BM, int BN, int THREADS, int MODE>
RLX_D void rlx_tc_load(unsigned As, unsigned Bs, float* sA, float* sB, const void* Av, const void* Bv,
                       rlx_i64 ao, rlx_i64 bo, int dt, bool tb, rlx_i64 M, rlx_i64 N, rlx_i64 K, rlx_i64 m0,
                       rlx_i64 n0, rlx_i64 k0, int tid) {
    enum { BK = RLX_TC_BK, BC = BN / 4 };
    const float* A = (const float*)Av;
    const float* B = (const float*)Bv;
    if (MODE == RLX_TC_H) {
#pragma unroll 1
        for (int j = 0; j < BM * BK / THREADS; j++) {
            const int i = tid + THREADS * j, r = i / BK, kk = i % BK, c = kk >> 2;
            const rlx_i64 gr = m0 + r, gk = k0 + kk;
            sA[r * BK + ((c ^ ((r >> 1) & 3)) << 2) + (kk & 3)] =
                gr < M && gk < K ? rlx_ld_f(Av, dt, ao + gr * K + gk) : 0.0f;
        }
#pragma unroll 1
        for (int j = 0; j < BK * BN / THREADS; j++) {
            const int i = tid + THREADS * j;
            const int r = tb ? i % BK : i / BN, n = tb ? i / BK : i % BN, c = n >> 2;
            const rlx_i64 gk = k0 + r, gn = n0 + n;
            sB[r * BN + ((c ^ ((r & 3) << 1)) << 2) + (n & 3)] =
                gk < K && gn < N ? rlx_ld_f(Bv, dt, bo + (tb ? gn * K + gk : gk * N + gn)) : 0.0f;
        }
        return;
    }
    if (MODE == RLX_TC_V || MODE == RLX_TC_TV) {
#pragma unroll
        for (int j = 0; j < BM * BK / 4 / THREADS; j++) {
            const int i = tid + THREADS * j, r = i >> 2, c = i & 3;
            const rlx_i64 gr = m0 + r, gk = k0 + 4 * c;
            const bool ok = gr < M && gk < K;
            const float* src = ok ? A + gr * K + gk : A;
            rlx_cp16(As + (unsigned)(r * BK + ((c ^ ((r >> 1) & 3)) << 2)) * 4u, src, ok ? 16 : 0);
        }
    } else {
#pragma unroll 1
        for (int j = 0; j < BM * BK / THREADS; j++) {
            const int i = tid + THREADS * j, r = i / BK, kk = i % BK, c = kk >> 2;
            const rlx_i64 gr = m0 + r, gk = k0 + kk;
            const bool ok = gr < M && gk < K;
            const float* src = ok ? A + gr * K + gk : A;
            rlx_cp4(As + (unsigned)(r * BK + ((c ^ ((r >> 1) & 3)) << 2) + (kk & 3)) * 4u, src, ok ? 4 : 0);
        }
    }
    if (MODE == RLX_TC_V) {
#pragma unroll
        for (int j = 0; j < BK * BC / THREADS; j++) {
            const int i = tid + THREADS * j, r = i / BC, c = i % BC;
            const rlx_i64 gk = k0 + r, gn = n0 + 4 * c;
            const bool ok = gk < K && gn < N;
            const float* src = ok ? B + gk * N + gn : B;
            rlx_cp16(Bs + (unsigned)(r * BN + ((c ^ ((r & 3) << 1)) << 2)) * 4u, src, ok ? 16 : 0);
        }
    } else if (MODE == RLX_TC_S) {
#pragma unroll 1
        for (int j = 0; j < BK * BN / THREADS; j++) {
            const int i = tid + THREADS * j, r = i / BN, n = i % BN, c = n >> 2;
            const rlx_i64 gk = k0 + r, gn = n0 + n;
            const bool ok = gk < K && gn < N;
            const float* src = ok ? B + gk * N + gn : B;
            rlx_cp4(Bs + (unsigned)(r * BN + ((c ^ ((r & 3) << 1)) << 2) + (n & 3)) * 4u, src, ok ? 4 : 0);
        }
    } else {   /* b [N, K]: consecutive threads take consecutive k of one row n (coalesced reads) */
#pragma unroll 1
        for (int j = 0; j < BK * BN / THREADS; j++) {
            const int i = tid + THREADS * j, r = i % BK, n = i / BK, c = n >> 2;
            const rlx_i64 gk = k0 + r, gn = n0 + n;
            const bool ok = gk < K && gn < N;
            const float* src = ok ? B + gn * K + gk : B;
            rlx_cp4(Bs + (unsigned)(r * BN + ((c ^ ((r & 3) << 1)) << 2) + (n & 3)) * 4u, src, ok ? 4 : 0);
        }
    }
}

/* One BM x BN tile of C: the pipelined main loop and the epilogue. */
template <int BM, int BN, int WM, int WN, bool PRECISE, int MODE>
RLX_D void rlx_tc_tile(const rlx_kargs& a, float* smem, const void* A, const void* B, rlx_i64 ao, rlx_i64 bo,
                       rlx_i64 co, rlx_i64 M, rlx_i64 N, rlx_i64 K, rlx_i64 m0, rlx_i64 n0) {
    enum { BK = RLX_TC_BK, ST = RLX_TC_STAGES, NWN = BN / WN, THREADS = (BM / WM) * NWN * 32 };
    enum { MT = WM / 16, NT = WN / 8, SA = BM * BK, SB = BK * BN };
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t4 = lane & 3;
    const int wm = (warp / NWN) * WM, wn = (warp % NWN) * WN;
    const unsigned sbase = rlx_smem_addr(smem);
    rlx_i64 kt0, nk;
    rlx_tc_ksteps(a, K, BK, &kt0, &nk);
    float acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int q = 0; q < 4; q++) acc[i][j][q] = 0.0f;
    /* per-lane ldmatrix offsets (floats, within a stage's A) for k-chunk pair 0 and 1 of each fragment row */
    const int lr = (lane & 7) + 8 * ((lane >> 3) & 1), lc = lane >> 4;
    int aoff[MT][2];
#pragma unroll
    for (int mi = 0; mi < MT; mi++) {
        const int r = wm + mi * 16 + lr;
#pragma unroll
        for (int s = 0; s < 2; s++) aoff[mi][s] = r * BK + (((2 * s + lc) ^ ((r >> 1) & 3)) << 2);
    }
    /* B: rows t4 + 4h (+8 s), chunk wn/4 + g swizzled with (t4 << 1) (k & 3 == t4 for all of them) */
    const int boff = t4 * BN + ((((wn >> 2) + g) ^ (t4 << 1)) << 2);

    __syncthreads();   /* the previous tile's readers are done with the buffers */
#pragma unroll
    for (int s = 0; s < ST - 1; s++) {
        if (kt0 + s < nk)
            rlx_tc_load<BM, BN, THREADS, MODE>(sbase + (unsigned)(s * (SA + SB)) * 4u,
                                               sbase + (unsigned)(s * (SA + SB) + SA) * 4u,
                                               smem + s * (SA + SB), smem + s * (SA + SB) + SA, A, B, ao, bo,
                                               a.dt_in[0], a.ia[9] != 0, M, N, K, m0, n0,
                                              (kt0 + s) * BK, tid);
        rlx_cp_commit();
    }
    int rs = 0, ws = ST - 1;
    for (rlx_i64 kt = kt0; kt < nk; kt++) {
        rlx_cp_wait<ST - 2>();
        __syncthreads();
        if (kt + ST - 1 < nk)
            rlx_tc_load<BM, BN, THREADS, MODE>(sbase + (unsigned)(ws * (SA + SB)) * 4u,
                                               sbase + (unsigned)(ws * (SA + SB) + SA) * 4u,
                                               smem + ws * (SA + SB), smem + ws * (SA + SB) + SA, A, B, ao, bo,
                                               a.dt_in[0], a.ia[9] != 0, M, N, K, m0, n0,
                                              (kt + ST - 1) * BK, tid);
        rlx_cp_commit();
        ws = ws + 1 == ST ? 0 : ws + 1;
        const unsigned as = sbase + (unsigned)(rs * (SA + SB)) * 4u;
        const float* bs = smem + rs * (SA + SB) + SA;
        rs = rs + 1 == ST ? 0 : rs + 1;
        float part[PRECISE ? MT : 1][PRECISE ? NT : 1][4];
        if (PRECISE) {
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++)
#pragma unroll
                    for (int q = 0; q < 4; q++) part[i][j][q] = 0.0f;
        }
#pragma unroll
        for (int s = 0; s < 2; s++) {
            unsigned bhi[NT][2], blo[NT][2];
#pragma unroll
            for (int h = 0; h < 2; h++) {
#pragma unroll
                for (int nq = 0; nq < NT / 4; nq++) {
                    const float4 v = *(const float4*)(bs + boff + (8 * s + 4 * h) * BN + 16 * nq);
                    const float e[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
                    for (int u = 0; u < 4; u++) {
                        const int ni = 4 * nq + u;
                        if (PRECISE) {
                            bhi[ni][h] = rlx_tf32(e[u]);
                            blo[ni][h] = rlx_tf32(e[u] - __uint_as_float(bhi[ni][h]));
                        } else {
                            bhi[ni][h] = __float_as_uint(e[u]);
                            blo[ni][h] = 0u;
                        }
                    }
                }
            }
            unsigned af[MT][4];
#pragma unroll
            for (int mi = 0; mi < MT; mi++) rlx_ldsm4(af[mi], as + (unsigned)aoff[mi][s] * 4u);
#pragma unroll
            for (int mi = 0; mi < MT; mi++) {
                if (PRECISE) {
                    unsigned ahi[4], alo[4];
#pragma unroll
                    for (int q = 0; q < 4; q++) {
                        const float v = __uint_as_float(af[mi][q]);
                        ahi[q] = rlx_tf32(v);
                        alo[q] = rlx_tf32(v - __uint_as_float(ahi[q]));
                    }
#pragma unroll
                    for (int ni = 0; ni < NT; ni++) {
                        rlx_mma_tf32(part[mi][ni], alo, bhi[ni][0], bhi[ni][1]);
                        rlx_mma_tf32(part[mi][ni], ahi, blo[ni][0], blo[ni][1]);
                        rlx_mma_tf32(part[mi][ni], ahi, bhi[ni][0], bhi[ni][1]);
                    }
                } else {
#pragma unroll
                    for (int ni = 0; ni < NT; ni++) rlx_mma_tf32(acc[mi][ni], af[mi], bhi[ni][0], bhi[ni][1]);
                }
            }
        }
        if (PRECISE) {
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++)
#pragma unroll
                    for (int q = 0; q < 4; q++) acc[i][j][q] += part[i][j][q];
        }
    }
    rlx_cp_wait<0>();
    /* lane's results: row wm + 16 mi + g + 8 (q >> 1), column wn + 8 t4 + 4 (q & 1) + ni; MODE == RLX_TC_H: a
       plain matmul, no epilogue; rounded to the output dtype */
    rlx_tc_write<MT, NT, false>(a, acc, co, M, N, m0 + wm + g, n0 + wn + 8 * t4, MODE == RLX_TC_H);
}

template <int BM, int BN, int WM, int WN, bool PRECISE>
RLX_D void rlx_tc_body2(const rlx_kargs& a, float* smem) {
    const rlx_i64 M = a.ia[0], N = a.ia[1], K = a.ia[2], nb = a.ia[3];
    const rlx_i64 tm = (M + BM - 1) / BM, tn = (N + BN - 1) / BN;
    const bool half = a.dt_in[0] != RLX_DT_F32, tb = a.ia[9] != 0, split = a.ia[11] > 1;
    for (rlx_i64 z = split ? 0 : blockIdx.z; z < nb; z += split ? nb : gridDim.z) {   /* splits: one batch */
        rlx_i64 ao, bo;
        rlx_mm_batch(a, z, &ao, &bo);
        const float* A = (const float*)a.in[0] + ao;
        const float* B = (const float*)a.in[1] + bo;
        const bool va = (K & 3) == 0 && ((rlx_u64)A & 15) == 0;
        const bool vec = va && (N & 3) == 0 && ((rlx_u64)B & 15) == 0;
        for (rlx_i64 bm = blockIdx.y; bm < tm; bm += gridDim.y)
            for (rlx_i64 bn = blockIdx.x; bn < tn; bn += gridDim.x) {
                const rlx_i64 m0 = bm * BM, n0 = bn * BN, co = z * M * N;
                if (half)
                    rlx_tc_tile<BM, BN, WM, WN, false, RLX_TC_H>(a, smem, (const void*)a.in[0], (const void*)a.in[1], ao, bo,
                                                                 co, M, N, K, m0, n0);
                else if (tb && va)
                    rlx_tc_tile<BM, BN, WM, WN, PRECISE, RLX_TC_TV>(a, smem, A, B, 0, 0, co, M, N, K, m0, n0);
                else if (tb)
                    rlx_tc_tile<BM, BN, WM, WN, PRECISE, RLX_TC_TS>(a, smem, A, B, 0, 0, co, M, N, K, m0, n0);
                else if (vec)
                    rlx_tc_tile<BM, BN, WM, WN, PRECISE, RLX_TC_V>(a, smem, A, B, 0, 0, co, M, N, K, m0, n0);
                else
                    rlx_tc_tile<BM, BN, WM, WN, PRECISE, RLX_TC_S>(a, smem, A, B, 0, 0, co, M, N, K, m0, n0);
            }
    }
}


/* ---- f16 / bf16 on their own tensor-core instruction (mma.sync.m16n8k16, f32 accumulation) ----------------
   Used when K is a multiple of 8, N too unless b is stored [N, K], and both operands are 16-byte aligned (the
   16-byte copies of 8 elements need it); other shapes take the converting TF32 path above. Tiles as above
   (64x64 with 4 warps of 32x32, 128x128 with 8 warps of 64x32), k-steps of 32 in two stages of shared memory
   (the f32 kernels' buffers), rows padded by 8 elements so that ldmatrix reads are free of bank conflicts.
   A fragments come from ldmatrix.x4, B fragments from ldmatrix.x4.trans (b [K, N]) or ldmatrix.x4 (b [N, K]). */
enum { RLX_TCH_BK = 32, RLX_TCH_LD = RLX_TCH_BK + 8 };

template <bool BF>
RLX_D void rlx_mma16(float* c, const unsigned* a, unsigned b0, unsigned b1) {
    if (BF)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
RLX_D void rlx_ldsm4t(unsigned* r, unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

/* k-step at k0 of the tile at (m0, n0) into the stage at shared addresses As / Bs (bytes). */
template <int BM, int BN, int THREADS, bool TB>
RLX_D void rlx_tch_load(unsigned As, unsigned Bs, const unsigned short* A, const unsigned short* B, rlx_i64 M,
                        rlx_i64 N, rlx_i64 K, rlx_i64 m0, rlx_i64 n0, rlx_i64 k0, int tid) {
    enum { LD = RLX_TCH_LD, BLD = BN + 8, CB = BN / 8 };
#pragma unroll
    for (int j = 0; j < BM * 4 / THREADS; j++) {
        const int i = tid + THREADS * j, r = i >> 2, c = i & 3;
        const rlx_i64 gr = m0 + r, gk = k0 + 8 * c;
        const bool ok = gr < M && gk < K;
        rlx_cp16(As + (unsigned)(r * LD + 8 * c) * 2u, ok ? A + gr * K + gk : A, ok ? 16 : 0);
    }
    if (TB) {
#pragma unroll
        for (int j = 0; j < BN * 4 / THREADS; j++) {
            const int i = tid + THREADS * j, r = i >> 2, c = i & 3;
            const rlx_i64 gn = n0 + r, gk = k0 + 8 * c;
            const bool ok = gn < N && gk < K;
            rlx_cp16(Bs + (unsigned)(r * LD + 8 * c) * 2u, ok ? B + gn * K + gk : B, ok ? 16 : 0);
        }
    } else {
#pragma unroll
        for (int j = 0; j < RLX_TCH_BK * CB / THREADS; j++) {
            const int i = tid + THREADS * j, r = i / CB, c = i % CB;
            const rlx_i64 gk = k0 + r, gn = n0 + 8 * c;
            const bool ok = gk < K && gn < N;
            rlx_cp16(Bs + (unsigned)(r * BLD + 8 * c) * 2u, ok ? B + gk * N + gn : B, ok ? 16 : 0);
        }
    }
}

template <int BM, int BN, int WM, int WN, bool TB, bool BF>
RLX_D void rlx_tch_tile(const rlx_kargs& a, float* smem, const unsigned short* A, const unsigned short* B, rlx_i64 co,
                        rlx_i64 M, rlx_i64 N, rlx_i64 K, rlx_i64 m0, rlx_i64 n0) {
    enum { BK = RLX_TCH_BK, LD = RLX_TCH_LD, BLD = BN + 8, NWN = BN / WN, THREADS = (BM / WM) * NWN * 32 };
    enum { MT = WM / 16, NT = WN / 8, SA = BM * LD, SB = TB ? BN * LD : BK * BLD, SS = SA + SB };
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t4 = lane & 3;
    const int wm = (warp / NWN) * WM, wn = (warp % NWN) * WN;
    const unsigned sbase = rlx_smem_addr(smem);
    rlx_i64 kt0, nk;
    rlx_tc_ksteps(a, K, BK, &kt0, &nk);
    float acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int q = 0; q < 4; q++) acc[i][j][q] = 0.0f;
    __syncthreads();   /* the previous tile's readers are done with the buffers */
    if (kt0 < nk) rlx_tch_load<BM, BN, THREADS, TB>(sbase, sbase + SA * 2u, A, B, M, N, K, m0, n0, kt0 * BK, tid);
    rlx_cp_commit();
    for (rlx_i64 kt = kt0; kt < nk; kt++) {
        const unsigned st = sbase + (unsigned)(((kt - kt0) & 1) * SS) * 2u;   /* stage 0 holds k-step kt0 */
        rlx_cp_wait<0>();
        __syncthreads();   /* stage kt is in; every warp is done with stage kt - 1, which the next load reuses */
        if (kt + 1 < nk) {
            const unsigned nx = sbase + (unsigned)(((kt + 1 - kt0) & 1) * SS) * 2u;
            rlx_tch_load<BM, BN, THREADS, TB>(nx, nx + SA * 2u, A, B, M, N, K, m0, n0, (kt + 1) * BK, tid);
        }
        rlx_cp_commit();
        const unsigned as = st, bs = st + SA * 2u;
#pragma unroll
        for (int ks = 0; ks < 2; ks++) {
            unsigned af[MT][4], bf[NT][2];
#pragma unroll
            for (int mi = 0; mi < MT; mi++)
                rlx_ldsm4(af[mi], as + (unsigned)((wm + mi * 16 + (lane & 15)) * LD + ks * 16 + (lane >> 4) * 8) * 2u);
#pragma unroll
            for (int nj = 0; nj < NT / 2; nj++) {
                unsigned r[4];
                if (TB)
                    rlx_ldsm4(r, bs + (unsigned)((wn + nj * 16 + (lane & 7) + ((lane >> 4) << 3)) * LD + ks * 16 +
                                                 ((lane >> 3) & 1) * 8) * 2u);
                else
                    rlx_ldsm4t(r, bs + (unsigned)((ks * 16 + (lane & 15)) * BLD + wn + nj * 16 + (lane >> 4) * 8) * 2u);
                bf[2 * nj][0] = r[0];
                bf[2 * nj][1] = r[1];
                bf[2 * nj + 1][0] = r[2];
                bf[2 * nj + 1][1] = r[3];
            }
#pragma unroll
            for (int mi = 0; mi < MT; mi++)
#pragma unroll
                for (int ni = 0; ni < NT; ni++) rlx_mma16<BF>(acc[mi][ni], af[mi], bf[ni][0], bf[ni][1]);
        }
    }
    rlx_cp_wait<0>();
    /* lane's results: row wm + 16 mi + g + 8 (q >> 1), column wn + 8 ni + 2 t4 + (q & 1) */
    rlx_tc_write<MT, NT, true>(a, acc, co, M, N, m0 + wm + g, n0 + wn + 2 * t4, true);
}

/* f16/bf16 operands: 1 if the m16n8k16 kernel ran the product, 0 if the shape or alignment needs the
   converting path. */
template <int BM, int BN, int WM, int WN>
RLX_D bool rlx_tch_body(const rlx_kargs& a, float* smem) {
    const rlx_i64 M = a.ia[0], N = a.ia[1], K = a.ia[2], nb = a.ia[3];
    const rlx_i64 tm = (M + BM - 1) / BM, tn = (N + BN - 1) / BN;
    const bool tb = a.ia[9] != 0, bf = a.dt_in[0] == RLX_DT_BF16;
    if ((K & 7) != 0 || (!tb && (N & 7) != 0) || ((a.in[0] | a.in[1]) & 15) != 0) return false;
    const bool split = a.ia[11] > 1;
    for (rlx_i64 z = split ? 0 : blockIdx.z; z < nb; z += split ? nb : gridDim.z) {   /* splits: one batch */
        rlx_i64 ao, bo;
        rlx_mm_batch(a, z, &ao, &bo);
        const unsigned short* A = (const unsigned short*)a.in[0] + ao;
        const unsigned short* B = (const unsigned short*)a.in[1] + bo;
        if (((rlx_u64)A | (rlx_u64)B) & 15) return false;   /* uniform: batch strides are multiples of 8 here */
        for (rlx_i64 bm = blockIdx.y; bm < tm; bm += gridDim.y)
            for (rlx_i64 bn = blockIdx.x; bn < tn; bn += gridDim.x) {
                const rlx_i64 m0 = bm * BM, n0 = bn * BN, co = z * M * N;
                if (tb && bf) rlx_tch_tile<BM, BN, WM, WN, true, true>(a, smem, A, B, co, M, N, K, m0, n0);
                else if (tb) rlx_tch_tile<BM, BN, WM, WN, true, false>(a, smem, A, B, co, M, N, K, m0, n0);
                else if (bf) rlx_tch_tile<BM, BN, WM, WN, false, true>(a, smem, A, B, co, M, N, K, m0, n0);
                else rlx_tch_tile<BM, BN, WM, WN, false, false>(a, smem, A, B, co, M, N, K, m0, n0);
            }
    }
    return true;
}

/* precision 0 (ia[6] == 0): three TF32 products per step; otherwise one */
template <int BM, int BN, int WM, int WN>
RLX_D void rlx_tc_body(const rlx_kargs& a, float* smem) {
    if ((a.dt_in[0] == RLX_DT_F16 || a.dt_in[0] == RLX_DT_BF16) && rlx_tch_body<BM, BN, WM, WN>(a, smem)) return;
    if (a.ia[6] == 0)
        rlx_tc_body2<BM, BN, WM, WN, true>(a, smem);
    else
        rlx_tc_body2<BM, BN, WM, WN, false>(a, smem);
}

/* matmul_tc: 128 threads, 64x64 tiles. */
extern "C" __global__ void __launch_bounds__(128) matmul_tc(rlx_kargs a) {
    __shared__ __align__(128) float smem[RLX_TC_STAGES * (64 * RLX_TC_BK + RLX_TC_BK * 64)];
    rlx_tc_body<64, 64, 32, 32>(a, smem);
}
/* matmul_tc_big: 256 threads, 128x128 tiles. */
extern "C" __global__ void __launch_bounds__(256) matmul_tc_big(rlx_kargs a) {
    __shared__ __align__(128) float smem[RLX_TC_STAGES * (128 * RLX_TC_BK + RLX_TC_BK * 128)];
    rlx_tc_body<128, 128, 64, 32>(a, smem);
}

/* ---- attention_tc: fused attention of many query rows (a prefill) on tensor cores, as accurate as f32 ----------
   The contract of attention.cu's kernel (same kargs: in 0 q, 1 k, 2 v, 5 kv_len; st[0..3] the strides of q, k, v,
   out; ia 0 H, 1 group, 4 Sq, 5 Sk, 6 causal, 7 window, 10 has kv_len, 13 B; fa 0 scale, 1 softcap) for f32
   operands with D = Dv = 64 or 128 and neither keep mask nor bias (the host picks it only then). A block of 4
   warps takes 64 consecutive queries of one head (16 rows per warp) and walks the union of their visible keys
   in tiles of 32, staged in shared memory as f32 (K rows padded to D + 4 floats and V rows to D + 8, so that
   the fragment reads below are free of bank conflicts). Per tile a warp computes its 16 x 32 scores
   S = Q Kᵀ with mma.m16n8k8 in three TF32 products per multiply (x ≈ x_hi + x_lo as in matmul_tc: f32
   accuracy), masks and scales them, updates the online softmax (row max, NaN flag and sum over the 4 lanes
   that share a row), and adds P V (P's fragments are the score accumulators themselves: the keys of a score
   tile are taken in the order t, t + 4 for accumulator columns 2t, 2t + 1, which is the A fragment's layout)
   into a zeroed register tile, added to the running output with f32 additions after its rescaling. The
   masking, NaN and empty-row rules are attention.cu's. With D = 64 each warp keeps its Q fragments in
   registers; with D = 128 it reads them from global memory (cached) per tile. */
template <int D>
RLX_D void rlx_att_tc(const rlx_kargs& a, float* smem) {
    enum { BC = 32, KLD = D + 4, VLD = D + 8, NK = D / 8, QREG = D <= 64 };
    const float* q = (const float*)a.in[0];
    const float* kp = (const float*)a.in[1];
    const float* vp = (const float*)a.in[2];
    float* out = (float*)a.out;
    const rlx_i64 H = a.ia[0], group = a.ia[1], Sq = a.ia[4], Sk = a.ia[5], window = a.ia[7], B = a.ia[13];
    const int causal = (int)a.ia[6];
    const float scale = (float)a.fa[0], softcap = (float)a.fa[1];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
    const int pg = (g >> 1) + 4 * (g & 1);   /* score column g of an 8-key tile is key pg */
    float* ks = smem;
    float* vs = smem + BC * KLD;
    const rlx_i64 nqb = (Sq + 63) / 64;
    const bool vec = (((a.in[1] | a.in[2]) & 15u) == 0) &&
                     (((a.st[1][0] | a.st[1][1] | a.st[1][2] | a.st[2][0] | a.st[2][1] | a.st[2][2]) & 3) == 0);
    for (rlx_i64 item = blockIdx.x; item < nqb * H * B; item += gridDim.x) {
        const rlx_i64 qb = item % nqb, h = (item / nqb) % H, b = item / (nqb * H), hk = h / group;
        rlx_i64 kv = Sk;
        if (a.ia[10]) {   /* 1: one kv_len, 2: one per batch row */
            const rlx_i64 kb = a.ia[10] == 2 ? b : 0;
            kv = a.dt_in[5] == RLX_DT_I32 ? (rlx_i64)((const int*)a.in[5])[kb] : ((const long long*)a.in[5])[kb];
            kv = kv < 0 ? 0 : (kv > Sk ? Sk : kv);
        }
        const rlx_i64 off = kv - Sq, q0 = qb * 64, qlast = q0 + 63 < Sq ? q0 + 63 : Sq - 1;
        rlx_i64 blo = 0, bhi = kv;
        if (causal) bhi = qlast + off + 1 < kv ? qlast + off + 1 : kv;
        if (window > 0) blo = q0 + off - window + 1 > 0 ? q0 + off - window + 1 : 0;
        /* this lane's two rows r[0] = row g and r[1] = row g + 8 of the warp's 16; their visible keys [lo, hi) */
        rlx_i64 r[2], lo[2], hi[2];
        for (int u = 0; u < 2; u++) {
            r[u] = q0 + 16 * warp + g + 8 * u;
            hi[u] = causal ? (r[u] + off + 1 < kv ? r[u] + off + 1 : kv) : kv;
            lo[u] = window > 0 ? (r[u] + off - window + 1 > 0 ? r[u] + off - window + 1 : 0) : 0;
        }
        const float* qr0 = q + b * a.st[0][0] + h * a.st[0][1] + r[0] * a.st[0][2];
        const float* qr1 = q + b * a.st[0][0] + h * a.st[0][1] + r[1] * a.st[0][2];
        const bool ok0 = r[0] < Sq, ok1 = r[1] < Sq;
        float qf[QREG ? NK : 1][4];
        if (QREG) {
#pragma unroll
            for (int kk = 0; kk < (QREG ? NK : 1); kk++) {
                qf[kk][0] = ok0 ? qr0[8 * kk + t] : 0.0f;
                qf[kk][1] = ok1 ? qr1[8 * kk + t] : 0.0f;
                qf[kk][2] = ok0 ? qr0[8 * kk + t + 4] : 0.0f;
                qf[kk][3] = ok1 ? qr1[8 * kk + t + 4] : 0.0f;
            }
        }
        const rlx_i64 koff = b * a.st[1][0] + hk * a.st[1][1], voff = b * a.st[2][0] + hk * a.st[2][1];
        float o[NK][4], m[2], l[2];
        int nan[2] = {0, 0};
#pragma unroll
        for (int dn = 0; dn < NK; dn++)
#pragma unroll
            for (int c = 0; c < 4; c++) o[dn][c] = 0.0f;
        m[0] = m[1] = -rlx_inf_f();
        l[0] = l[1] = 0.0f;
        for (rlx_i64 j0 = blo; j0 < bhi; j0 += BC) {
            const int nk = bhi - j0 < BC ? (int)(bhi - j0) : BC;
            __syncthreads();   /* every warp is done with the previous tile */
            if (vec) {
                for (int e = tid; e < BC * (D / 4); e += 128) {
                    const int kr = e / (D / 4), c4 = (e % (D / 4)) * 4;
                    float4 kq = make_float4(0.0f, 0.0f, 0.0f, 0.0f), vq = kq;
                    if (kr < nk) {
                        kq = *(const float4*)(kp + koff + (j0 + kr) * a.st[1][2] + c4);
                        vq = *(const float4*)(vp + voff + (j0 + kr) * a.st[2][2] + c4);
                    }
                    *(float4*)(ks + kr * KLD + c4) = kq;
                    *(float4*)(vs + kr * VLD + c4) = vq;
                }
            } else {
                for (int e = tid; e < BC * D; e += 128) {
                    const int kr = e / D, c = e % D;
                    ks[kr * KLD + c] = kr < nk ? kp[koff + (j0 + kr) * a.st[1][2] + c] : 0.0f;
                    vs[kr * VLD + c] = kr < nk ? vp[voff + (j0 + kr) * a.st[2][2] + c] : 0.0f;
                }
            }
            __syncthreads();
            float s[4][4];
#pragma unroll
            for (int nt = 0; nt < 4; nt++) {
#pragma unroll
                for (int c = 0; c < 4; c++) s[nt][c] = 0.0f;
#pragma unroll
                for (int kk = 0; kk < NK; kk++) {
                    float x[4];
                    unsigned ahi[4], alo[4];
                    if (QREG) {
#pragma unroll
                        for (int c = 0; c < 4; c++) x[c] = qf[QREG ? kk : 0][c];
                    } else {
                        x[0] = ok0 ? qr0[8 * kk + t] : 0.0f;
                        x[1] = ok1 ? qr1[8 * kk + t] : 0.0f;
                        x[2] = ok0 ? qr0[8 * kk + t + 4] : 0.0f;
                        x[3] = ok1 ? qr1[8 * kk + t + 4] : 0.0f;
                    }
#pragma unroll
                    for (int c = 0; c < 4; c++) {
                        ahi[c] = rlx_tf32(x[c]);
                        alo[c] = rlx_tf32(x[c] - __uint_as_float(ahi[c]));
                    }
                    const float kb0 = ks[(8 * nt + pg) * KLD + 8 * kk + t], kb1 = ks[(8 * nt + pg) * KLD + 8 * kk + t + 4];
                    const unsigned bh0 = rlx_tf32(kb0), bh1 = rlx_tf32(kb1);
                    const unsigned bl0 = rlx_tf32(kb0 - __uint_as_float(bh0)), bl1 = rlx_tf32(kb1 - __uint_as_float(bh1));
                    rlx_mma_tf32(s[nt], alo, bh0, bh1);
                    rlx_mma_tf32(s[nt], ahi, bl0, bl1);
                    rlx_mma_tf32(s[nt], ahi, bh0, bh1);
                }
            }
            /* mask, scale, softcap; the tile's row maxima (NaN never wins; it is remembered) */
            float mt[2] = {-rlx_inf_f(), -rlx_inf_f()};
            int isn[2] = {0, 0};
#pragma unroll
            for (int nt = 0; nt < 4; nt++)
#pragma unroll
                for (int c = 0; c < 4; c++) {
                    const int u = c >> 1;
                    const rlx_i64 key = j0 + 8 * nt + t + 4 * (c & 1);
                    float x = s[nt][c];
                    if ((u ? ok1 : ok0) && key < j0 + nk && key >= lo[u] && key < hi[u]) {
                        x *= scale;
                        if (softcap > 0.0f) x = softcap * tanhf(x / softcap);
                    } else {
                        x = -rlx_inf_f();
                    }
                    s[nt][c] = x;
                    if (x != x) isn[u] = 1;
                    else if (x > mt[u]) mt[u] = x;
                }
            float corr[2];
#pragma unroll
            for (int u = 0; u < 2; u++) {
#pragma unroll
                for (int o2 = 1; o2 < 4; o2 <<= 1) {
                    const float y = RLX_SHFL_XOR(mt[u], o2);
                    mt[u] = y > mt[u] ? y : mt[u];
                    isn[u] |= RLX_SHFL_XOR(isn[u], o2);
                }
                nan[u] |= isn[u];
                const float mn = mt[u] > m[u] ? mt[u] : m[u];
                corr[u] = mn == -rlx_inf_f() ? 1.0f : expf(m[u] - mn);
                m[u] = mn;
            }
            float ps[2] = {0.0f, 0.0f};
#pragma unroll
            for (int nt = 0; nt < 4; nt++)
#pragma unroll
                for (int c = 0; c < 4; c++) {
                    const int u = c >> 1;
                    const float p = s[nt][c] == -rlx_inf_f() ? 0.0f : expf(s[nt][c] - m[u]);
                    s[nt][c] = p;
                    ps[u] += p;
                }
#pragma unroll
            for (int u = 0; u < 2; u++) {
#pragma unroll
                for (int o2 = 1; o2 < 4; o2 <<= 1) ps[u] += RLX_SHFL_XOR(ps[u], o2);
                l[u] = l[u] * corr[u] + ps[u];
            }
            /* P V for this tile into a zeroed tile, then o = o * corr + it */
            float pv[NK][4];
#pragma unroll
            for (int dn = 0; dn < NK; dn++)
#pragma unroll
                for (int c = 0; c < 4; c++) pv[dn][c] = 0.0f;
#pragma unroll
            for (int kk = 0; kk < 4; kk++) {
                const float x[4] = {s[kk][0], s[kk][2], s[kk][1], s[kk][3]};   /* P(g, t) (g+8, t) (g, t+4) (g+8, t+4) */
                unsigned ahi[4], alo[4];
#pragma unroll
                for (int c = 0; c < 4; c++) {
                    ahi[c] = rlx_tf32(x[c]);
                    alo[c] = rlx_tf32(x[c] - __uint_as_float(ahi[c]));
                }
#pragma unroll
                for (int dn = 0; dn < NK; dn++) {
                    const float vb0 = vs[(8 * kk + t) * VLD + 8 * dn + g], vb1 = vs[(8 * kk + t + 4) * VLD + 8 * dn + g];
                    const unsigned bh0 = rlx_tf32(vb0), bh1 = rlx_tf32(vb1);
                    const unsigned bl0 = rlx_tf32(vb0 - __uint_as_float(bh0)), bl1 = rlx_tf32(vb1 - __uint_as_float(bh1));
                    rlx_mma_tf32(pv[dn], alo, bh0, bh1);
                    rlx_mma_tf32(pv[dn], ahi, bl0, bl1);
                    rlx_mma_tf32(pv[dn], ahi, bh0, bh1);
                }
            }
#pragma unroll
            for (int dn = 0; dn < NK; dn++)
#pragma unroll
                for (int c = 0; c < 4; c++) o[dn][c] = o[dn][c] * corr[c >> 1] + pv[dn][c];
        }
        /* lane's results: rows r[0] (c 0, 1) and r[1] (c 2, 3), dims 8 dn + 2t, + 1 */
#pragma unroll
        for (int u = 0; u < 2; u++) {
            if (!(u ? ok1 : ok0)) continue;
            float* orow = out + b * a.st[3][0] + h * a.st[3][1] + r[u] * a.st[3][2];
            const float inv = 1.0f / l[u];
#pragma unroll
            for (int dn = 0; dn < NK; dn++)
#pragma unroll
                for (int c = 0; c < 2; c++)
                    orow[8 * dn + 2 * t + c] =
                        m[u] == -rlx_inf_f() ? (nan[u] ? rlx_nan_f() : 0.0f) : o[dn][2 * u + c] * inv;
        }
    }
}
extern "C" __global__ void __launch_bounds__(128) attention_tc(rlx_kargs a) {
    extern __shared__ __align__(16) float rlx_att_smem[];
    if (a.ia[2] == 128) rlx_att_tc<128>(a, rlx_att_smem);
    else rlx_att_tc<64>(a, rlx_att_smem);
}
