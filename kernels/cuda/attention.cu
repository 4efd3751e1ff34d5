/* attention.cu - fused attention and rotary embeddings of the CUDA backend.

   attention: one kernel for every mask combination, computed in f32 with an online softmax.
     Work item = (query block, head, batch); a block of W warps handles W consecutive queries of one head, one
     query per warp (grid-stride over the work items). Keys are walked in tiles of TK (1..32) that the block
     stages in shared memory as f32 (8 loads in flight per thread): the K tile [TK][D] (rows D + 1 floats apart,
     so lanes scoring different keys read different banks), the V tile [TK][DVC] for the current chunk of value
     dims (DVC = min(Dv, 256)), next to the W query rows [W][D]. Within a warp, lane l scores key l % TK over
     the dims d = l / TK (mod 32 / TK) and the partial dots are added with shuffles; every lane then owns value
     dims lane + 32i of the chunk (i < 8) in registers. Value chunks beyond the first recompute the scores.
     When even TK = W = 1 does not fit in shared memory (D around 6000), q, K and V are read from global memory.
     Query head h reads kv head h / group (grouped-query attention without copies).
     Masks (all combined): keys j >= kv_len (kv_len clamped to [0, Sk], read from in[5] at run time, one value
     or, with ia[10] = 2, one per batch row); causal
     with offset off = kv_len - Sq: key j visible to query i iff j <= i + off; window w > 0: also
     j > i + off - w; keep_mask false hides a key; bias (q's dtype, broadcast strides) is added after the
     scale and the softcap. A query that sees no key writes zeros (NaN when a visible logit was NaN).
     in: 0 q, 1 k, 2 v, 3 keep_mask (bool), 4 bias, 5 kv_len (i32/i64, dt_in[5]).
     st[0..3]: element strides (batch, head, sequence) of q, k, v and the output; the last dim is contiguous.
     dims: 0..3 bias strides over (b, h, i, j), 4..5 keep_mask strides over (b, i) (the key stride is 1).
     ia: 0 H, 1 group, 2 D, 3 Dv, 4 Sq, 5 Sk, 6 causal, 7 window, 8 has keep, 9 has bias, 10 has kv_len,
         11 TK, 12 W, 13 B, 14 query blocks, 15 global (no shared staging), 16 key splits (0/1: none),
         17 keys per split.   fa: 0 scale, 1 softcap.
     attention_gq (grouped-query rows, decode): the same kernel, where a work item is (query block, kv head, batch) and its rows are the group's
     query heads times the queries, row r = (head hk·group + r / Sq, query r % Sq), so the warps of a block
     share each staged K/V tile instead of every query head reading it again; query blocks then count
     group·Sq rows.
     Dynamic shared memory: (W·D + TK·(D + 1) + TK·DVC) floats (0 when global).
     Key splits (decode, flash-decoding style: few query rows, so the (query block, head, batch) items alone
     would leave most SMs idle): work item = (split, query block, head, batch); split s sees only keys
     [s·chunk, (s+1)·chunk) and writes, per query row, its running max m, its sum l, a NaN flag and the
     unnormalised value sums to in[6] (f32, [B][H][Sq][splits][Dv + 3]); attention_merge then combines the
     splits of each row: out = sum_s e^(m_s - M) acc_s / sum_s e^(m_s - M) l_s with M = max_s m_s (zeros, or
     NaN where a split saw a NaN logit, when no split saw a visible key).
   rope: see the kernel.
*/
#include "common.cuh"

extern __shared__ rlx_u64 rlx_smem[];

#define RLX_ATT_NACC 8                  /* value dims per lane and chunk */
#define RLX_ATT_DVC (32 * RLX_ATT_NACC) /* value dims per chunk */
#define RLX_ATT_LDS 8                   /* loads in flight per thread while staging a tile */

template <int DT, int GQ>
RLX_D void rlx_attention_body(const rlx_kargs& a) {
    typedef rlx_dt<DT> T;
    const void* q = (const void*)a.in[0];
    const void* kp = (const void*)a.in[1];
    const void* vp = (const void*)a.in[2];
    const unsigned char* keep = (const unsigned char*)a.in[3];
    const void* bias = (const void*)a.in[4];
    void* out = (void*)a.out;
    const rlx_i64 H = a.ia[0], group = a.ia[1], D = a.ia[2], Dv = a.ia[3], Sq = a.ia[4], Sk = a.ia[5];
    const int causal = (int)a.ia[6], TK = (int)a.ia[11], W = (int)a.ia[12], global = (int)a.ia[15];
    const rlx_i64 window = a.ia[7], B = a.ia[13], nqb = a.ia[14];
    const rlx_i64 nsplit = a.ia[16] > 1 ? a.ia[16] : 1, chunk = a.ia[17];
    float* splitp = (float*)a.in[6];
    const float scale = (float)a.fa[0], softcap = (float)a.fa[1];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, P = 32 / TK, key = lane % TK, part = lane / TK;
    const int dvc = Dv < RLX_ATT_DVC ? (int)Dv : RLX_ATT_DVC;
    float* qs = (float*)rlx_smem;         /* [W][D]    */
    float* ks = qs + (rlx_i64)W * D;      /* [TK][D + 1] */
    float* vs = ks + (rlx_i64)TK * (D + 1); /* [TK][dvc] */
    /* rows of a work item: the queries of one head, or (gq) the group's heads x queries of one kv head */
    const int gq = GQ;   /* a separate entry: the plain kernel keeps its registers (and 2 blocks per SM) */
    const rlx_i64 HH = gq ? H / group : H, R = gq ? group * Sq : Sq;
    for (rlx_i64 item2 = blockIdx.x; item2 < nqb * HH * B * nsplit; item2 += gridDim.x) {
        const rlx_i64 split = item2 % nsplit, item = item2 / nsplit;
        const rlx_i64 qb = item % nqb, hh = (item / nqb) % HH, b = item / (nqb * HH);
        const rlx_i64 r0 = qb * W, r = r0 + warp, rlast = (r0 + W < R ? r0 + W : R) - 1;
        const int valid = r < R;
        /* this warp's head and query; the smallest and largest query of the block's rows */
        const rlx_i64 h = gq ? hh * group + (valid ? r / Sq : 0) : hh, hk = gq ? hh : h / group;
        const rlx_i64 i = gq ? r % Sq : r;
        rlx_i64 i0 = r0, ilast = rlast;
        if (gq) {
            const int wraps = rlast - r0 + 1 >= Sq || r0 % Sq > rlast % Sq;
            i0 = wraps ? 0 : r0 % Sq;
            ilast = wraps ? Sq - 1 : rlast % Sq;
        }
        rlx_i64 kv = Sk;
        if (a.ia[10]) {   /* 1: one kv_len, 2: one per batch row */
            const rlx_i64 kb = a.ia[10] == 2 ? b : 0;
            kv = a.dt_in[5] == RLX_DT_I32 ? (rlx_i64)((const int*)a.in[5])[kb] : ((const long long*)a.in[5])[kb];
            kv = kv < 0 ? 0 : (kv > Sk ? Sk : kv);
        }
        const rlx_i64 off = kv - Sq;
        /* visible key range of query i: [lo, hi); the block walks the union over its queries */
        rlx_i64 lo = 0, hi = kv, blo = 0, bhi = kv;
        if (causal) {
            hi = i + off + 1 < kv ? i + off + 1 : kv;
            bhi = ilast + off + 1 < kv ? ilast + off + 1 : kv;
        }
        if (window > 0) {
            lo = i + off - window + 1 > 0 ? i + off - window + 1 : 0;
            blo = i0 + off - window + 1 > 0 ? i0 + off - window + 1 : 0;
        }
        if (nsplit > 1) {   /* this split's keys only */
            const rlx_i64 s0 = split * chunk, s1 = s0 + chunk;
            lo = lo > s0 ? lo : s0;
            blo = blo > s0 ? blo : s0;
            hi = hi < s1 ? hi : s1;
            bhi = bhi < s1 ? bhi : s1;
        }
        const rlx_i64 qoff = b * a.st[0][0] + h * a.st[0][1] + i * a.st[0][2];
        const rlx_i64 koff = b * a.st[1][0] + hk * a.st[1][1], voff = b * a.st[2][0] + hk * a.st[2][1];
        __syncthreads(); /* the previous item's readers of the shared rows are done */
        if (!global && valid)
            for (rlx_i64 d = lane; d < D; d += 32) qs[warp * D + d] = (float)T::ld(q, qoff + d);
        for (int dv0 = 0; dv0 < Dv; dv0 += RLX_ATT_DVC) {
            float m = -rlx_inf_f(), l = 0.0f, acc[RLX_ATT_NACC];
            int nan = 0;
#pragma unroll
            for (int t = 0; t < RLX_ATT_NACC; t++) acc[t] = 0.0f;
            for (rlx_i64 j0 = blo; j0 < bhi; j0 += TK) {
                const int nk = bhi - j0 < TK ? (int)(bhi - j0) : TK;
                __syncthreads();
                if (!global) {   /* shared tiles fit in 32-bit indices; RLX_ATT_LDS loads in flight per thread */
                    const unsigned nkd = (unsigned)nk * (unsigned)D, nkv = (unsigned)nk * (unsigned)dvc;
                    const unsigned Du = (unsigned)D, Vu = (unsigned)dvc, nt = blockDim.x;
                    for (unsigned e0 = threadIdx.x; e0 < nkd; e0 += RLX_ATT_LDS * nt) {
                        float r[RLX_ATT_LDS];
#pragma unroll
                        for (int u = 0; u < RLX_ATT_LDS; u++) {
                            const unsigned e = e0 + (unsigned)u * nt, t = e / Du, d = e - t * Du;
                            if (e < nkd) r[u] = (float)T::ld(kp, koff + (j0 + t) * a.st[1][2] + d);
                        }
#pragma unroll
                        for (int u = 0; u < RLX_ATT_LDS; u++) {
                            const unsigned e = e0 + (unsigned)u * nt, t = e / Du, d = e - t * Du;
                            if (e < nkd) ks[t * (Du + 1u) + d] = r[u];
                        }
                    }
                    for (unsigned e0 = threadIdx.x; e0 < nkv; e0 += RLX_ATT_LDS * nt) {
                        float r[RLX_ATT_LDS];
#pragma unroll
                        for (int u = 0; u < RLX_ATT_LDS; u++) {
                            const unsigned e = e0 + (unsigned)u * nt, t = e / Vu, d = e - t * Vu;
                            if (e < nkv) r[u] = dv0 + d < Dv ? (float)T::ld(vp, voff + (j0 + t) * a.st[2][2] + dv0 + d) : 0.0f;
                        }
#pragma unroll
                        for (int u = 0; u < RLX_ATT_LDS; u++)
                            if (e0 + (unsigned)u * nt < nkv) vs[e0 + (unsigned)u * nt] = r[u];
                    }
                }
                __syncthreads();
                /* score of key j = j0 + key: partial dot over d = part, part + P, ...; then across parts */
                const rlx_i64 j = j0 + key;
                float s = 0.0f;
                if (key < nk) {
                    if (global) {   /* (a row past the queries reads nothing) */
                        if (valid)
                            for (rlx_i64 d = part; d < D; d += P)
                                s += (float)T::ld(q, qoff + d) * (float)T::ld(kp, koff + j * a.st[1][2] + d);
                    } else {
                        for (rlx_i64 d = part; d < D; d += P) s += qs[warp * D + d] * ks[key * (D + 1) + d];
                    }
                }
                for (int o = TK; o < 32; o <<= 1) s += RLX_SHFL_XOR(s, o);
                int vis = valid && key < nk && j >= lo && j < hi && (!keep || keep[b * a.dims[4] + i * a.dims[5] + j]);
                if (vis) {
                    s *= scale;
                    if (softcap > 0.0f) s = softcap * tanhf(s / softcap);
                    if (bias) s += (float)T::ld(bias, b * a.dims[0] + h * a.dims[1] + i * a.dims[2] + j * a.dims[3]);
                } else {
                    s = -rlx_inf_f();
                }
                /* online softmax over the tile (NaN never wins the max; it is remembered) */
                float mt = s == s ? s : -rlx_inf_f();
                int isnan = s != s;
                for (int o = 16; o > 0; o >>= 1) {
                    const float x = RLX_SHFL_XOR(mt, o);
                    mt = x > mt ? x : mt;
                    isnan |= RLX_SHFL_XOR(isnan, o);
                }
                nan |= isnan;
                const float mn = mt > m ? mt : m;
                const float corr = mn == -rlx_inf_f() ? 1.0f : expf(m - mn);
                const float p = s == -rlx_inf_f() ? 0.0f : expf(s - mn);
                float ps = part == 0 ? p : 0.0f;
                for (int o = 16; o > 0; o >>= 1) ps += RLX_SHFL_XOR(ps, o);
                l = l * corr + ps;
#pragma unroll
                for (int t = 0; t < RLX_ATT_NACC; t++) acc[t] *= corr;
                for (int kk = 0; kk < nk; kk++) {
                    const float pk = RLX_SHFL(p, kk);
                    if (global) {
#pragma unroll
                        for (int t = 0; t < RLX_ATT_NACC; t++) {
                            const int d = lane + 32 * t;
                            if (d < dvc && dv0 + d < Dv)
                                acc[t] += pk * (float)T::ld(vp, voff + (j0 + kk) * a.st[2][2] + dv0 + d);
                        }
                    } else {
#pragma unroll
                        for (int t = 0; t < RLX_ATT_NACC; t++) {
                            const int d = lane + 32 * t;
                            if (d < dvc) acc[t] += pk * vs[kk * dvc + d];
                        }
                    }
                }
                m = mn;
            }
            if (valid && nsplit > 1) {   /* the split's partial state (see above) */
                float* pp = splitp + (((b * H + h) * Sq + i) * nsplit + split) * (Dv + 3);
                if (lane == 0) { pp[0] = m; pp[1] = l; pp[2] = nan ? 1.0f : 0.0f; }
#pragma unroll
                for (int t = 0; t < RLX_ATT_NACC; t++) {
                    const int d = lane + 32 * t;
                    if (d < dvc && dv0 + d < Dv) pp[3 + dv0 + d] = acc[t];
                }
            } else if (valid) {
                const float inv = 1.0f / l;
                const rlx_i64 ooff = b * a.st[3][0] + h * a.st[3][1] + i * a.st[3][2];
#pragma unroll
                for (int t = 0; t < RLX_ATT_NACC; t++) {
                    const int d = lane + 32 * t;
                    if (d < dvc && dv0 + d < Dv) {
                        const float r = m == -rlx_inf_f() ? (nan ? rlx_nan_f() : 0.0f) : acc[t] * inv;
                        T::st(out, ooff + dv0 + d, (typename T::C)r);
                    }
                }
            }
        }
    }
}
template <int DT> RLX_D void rlx_attention_plain(const rlx_kargs& a) { rlx_attention_body<DT, 0>(a); }
template <int DT> RLX_D void rlx_attention_gqrows(const rlx_kargs& a) { rlx_attention_body<DT, 1>(a); }
extern "C" __global__ void attention(rlx_kargs a) { RLX_SWITCH_FLOAT(a.dt_out, rlx_attention_plain, a) }
extern "C" __global__ void attention_gq(rlx_kargs a) { RLX_SWITCH_FLOAT(a.dt_out, rlx_attention_gqrows, a) }

/* attention_merge: one block of 256 threads per query row (b, h, i) combines the key splits of `attention`
   (in[6], see there): the maximum, NaN flag and weighted sum l over the splits are block reductions; then
   G = 256 / min(Dv, 256) groups of threads each sum the splits s = g, g + G, ... of every value dim (loads of
   several splits in flight), and the G partial sums are added through shared memory.
   ia as attention's; st[3] the output strides. */
template <int DT>
RLX_D void rlx_attention_merge_body(const rlx_kargs& a) {
    typedef rlx_dt<DT> T;
    __shared__ float red[256];
    __shared__ float fsh[33];
    __shared__ int ish[33];
    const rlx_i64 H = a.ia[0], Dv = a.ia[3], Sq = a.ia[4], B = a.ia[13], nsplit = a.ia[16];
    const float* part = (const float*)a.in[6];
    const int tid = threadIdx.x, nt = blockDim.x;
    const int DV = Dv < nt ? (int)Dv : nt, G = nt / DV;
    for (rlx_i64 row = blockIdx.x; row < B * H * Sq; row += gridDim.x) {
        const rlx_i64 i = row % Sq, h = (row / Sq) % H, b = row / (Sq * H);
        const float* pr = part + row * nsplit * (Dv + 3);
        float M = -rlx_inf_f(), l = 0.0f;
        int nan = 0;
        for (rlx_i64 s = tid; s < nsplit; s += nt) {
            const float ms = pr[s * (Dv + 3)];
            M = ms > M ? ms : M;
            nan |= pr[s * (Dv + 3) + 2] != 0.0f;
        }
        M = rlx_block_reduce(M, rlx_op_max(), -rlx_inf_f(), fsh);
        nan = rlx_block_reduce(nan, rlx_op_or(), 0, ish);
        if (M != -rlx_inf_f())
            for (rlx_i64 s = tid; s < nsplit; s += nt) {
                const float ms = pr[s * (Dv + 3)];
                if (ms != -rlx_inf_f() || pr[s * (Dv + 3) + 1] != 0.0f) l += expf(ms - M) * pr[s * (Dv + 3) + 1];
            }
        l = rlx_block_reduce(l, rlx_op_sum(), 0.0f, fsh);
        const float inv = 1.0f / l;
        const rlx_i64 ooff = b * a.st[3][0] + h * a.st[3][1] + i * a.st[3][2];
        const int dl = tid % DV, g = tid / DV;
        for (rlx_i64 d0 = 0; d0 < Dv; d0 += DV) {
            const rlx_i64 d = d0 + dl;
            float acc = 0.0f;
            if (g < G && d < Dv && M != -rlx_inf_f()) {
                for (rlx_i64 s = g; s < nsplit; s += G) {
                    const float ms = pr[s * (Dv + 3)], v = pr[s * (Dv + 3) + 3 + d];
                    if (ms != -rlx_inf_f() || v != 0.0f) acc += expf(ms - M) * v;   /* 0·NaN stays NaN */
                }
            }
            __syncthreads();   /* the previous dims' readers of red are done */
            red[tid] = acc;
            __syncthreads();
            if (g == 0 && d < Dv) {
                float r;
                if (M == -rlx_inf_f()) {
                    r = nan ? rlx_nan_f() : 0.0f;
                } else {
                    float t = 0.0f;
                    for (int k = 0; k < G; k++) t += red[k * DV + dl];
                    r = t * inv;
                }
                T::st((void*)a.out, ooff + d, (typename T::C)r);
            }
        }
    }
}
extern "C" __global__ void attention_merge(rlx_kargs a) { RLX_SWITCH_FLOAT(a.dt_out, rlx_attention_merge_body, a) }

/* rope: rotary embedding. One thread per (row, j): a row is one head of one token (D contiguous elements, row
   r = (b, s, h) for BSHD or (b, h, s) for BHSD); j < n_rot/2 rotates pair p = j ((p, p + n_rot/2) for NeoX,
   (2p, 2p + 1) for GPT-J): (a, b) -> (a·cos − b·sin, b·cos + a·sin) with cos/sin [P, n_rot/2] at row t; the
   other j copy the dims past n_rot. The position t comes from positions (i32/i64 [S] or [B, S]) or is
   position_offset + s; a position outside [0, P) copies the row unrotated. f32 computes in f32 (products
   rounded before the add, as on the CPU), the other dtypes in double.
   in: 0 x, 1 cos, 2 sin, 3 positions (dt_in[3]). ia: 0 kind (0 NeoX, 1 GPT-J), 1 layout (0 BSHD, 1 BHSD), 2 H,
   3 n_rot, 4 has positions, 5 position_offset, 6 D, 7 B, 8 S, 9 P, 10 positions rank. n = rows * (n_rot/2 +
   D − n_rot). */
template <int DT>
RLX_D void rlx_rope_body(const rlx_kargs& a) {
    typedef rlx_dt<DT> T;
    const void* x = (const void*)a.in[0];
    const void* cs = (const void*)a.in[1];
    const void* sn = (const void*)a.in[2];
    const void* pos = (const void*)a.in[3];
    void* y = (void*)a.out;
    const int neox = a.ia[0] == 0, bshd = a.ia[1] == 0;
    const rlx_i64 H = a.ia[2], nrot = a.ia[3], half = nrot / 2, offset = a.ia[5], D = a.ia[6], S = a.ia[8], P = a.ia[9];
    const rlx_i64 J = half + D - nrot;
    RLX_GRID_LOOP(idx, a.n) {
        const rlx_i64 r = idx / J, j = idx - r * J, base = r * D;
        rlx_i64 s, b, t;
        int ok;
        if (bshd) { s = (r / H) % S; b = r / (H * S); }
        else { s = r % S; b = r / (S * H); }
        if (a.ia[4]) {
            const rlx_i64 pi = a.ia[10] == 2 ? b * S + s : s;
            t = a.dt_in[3] == RLX_DT_I32 ? (rlx_i64)((const int*)pos)[pi] : ((const long long*)pos)[pi];
            ok = t >= 0 && t < P;
        } else {
            ok = offset >= -s && offset < P - s;
            t = ok ? offset + s : 0;
        }
        if (j >= half) {
            const rlx_i64 d = base + nrot + (j - half);
            ((typename T::S*)y)[d] = ((const typename T::S*)x)[d];
            continue;
        }
        const rlx_i64 ia_ = base + (neox ? j : 2 * j), ib = base + (neox ? j + half : 2 * j + 1);
        if (!ok) {
            ((typename T::S*)y)[ia_] = ((const typename T::S*)x)[ia_];
            ((typename T::S*)y)[ib] = ((const typename T::S*)x)[ib];
            continue;
        }
        const rlx_i64 it = t * half + j;
        if (DT == RLX_DT_F32) {
            const float av = ((const float*)x)[ia_], bv = ((const float*)x)[ib];
            const float c = ((const float*)cs)[it], sv = ((const float*)sn)[it];
            ((float*)y)[ia_] = rlx_mul_rn(av, c) - rlx_mul_rn(bv, sv);
            ((float*)y)[ib] = rlx_mul_rn(bv, c) + rlx_mul_rn(av, sv);
        } else {
            const double av = rlx_ld_d(x, DT, ia_), bv = rlx_ld_d(x, DT, ib);
            const double c = rlx_ld_d(cs, DT, it), sv = rlx_ld_d(sn, DT, it);
            rlx_st_from_d(y, DT, ia_, rlx_dmul_rn(av, c) - rlx_dmul_rn(bv, sv));
            rlx_st_from_d(y, DT, ib, rlx_dmul_rn(bv, c) + rlx_dmul_rn(av, sv));
        }
    }
}
extern "C" __global__ void rope(rlx_kargs a) { RLX_SWITCH_FLOAT(a.dt_out, rlx_rope_body, a) }
