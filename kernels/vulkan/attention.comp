#version 460
// kernels: attention attention_gq attention_merge rope
/* attention.comp - fused attention and rotary embeddings of the Vulkan backend (port of kernels/cuda/attention.cu).

   attention: one kernel for every mask combination, computed in f32 with an online softmax.
     Work item = (query block, head, batch); a workgroup of W groups of 32 invocations handles W consecutive
     queries of one head, one query per 32-invocation group (the CUDA warp; "lane" = invocation index within the
     group). The workgroup strides over the work items by gl_NumWorkGroups.x. Keys are walked in tiles of TK
     (1..32) that the workgroup stages in shared memory as f32: the K tile [TK][D], the V tile [TK][DVC] for the
     current chunk of value dims (DVC = min(Dv, 256)), next to the W query rows [W][D]. Within a group, lane l
     scores key l % TK over the dims d = l / TK (mod 32 / TK); the partial dots are exchanged through shared
     memory and added in the order of the CUDA kernel's xor butterfly; every lane then owns value dims
     lane + 32i of the chunk (i < 8) in registers. Value chunks beyond the first recompute the scores.
     When even TK = W = 1 does not fit in shared memory (D around 6000), q, K and V are read from device memory.
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
   attention_gq: the same kernel with grouped-query rows (decode; see attention.cu): a work item is (query
     block, kv head, batch) and its rows are the group's query heads times the queries.
     Key splits (decode): as in attention.cu, work item = (split, query block, head, batch), partial state per
     query row to in[6] ([B][H][Sq][splits][Dv + 3]: m, l, NaN flag, value sums), combined by attention_merge.
     Dynamic shared memory: (W·D + TK·(D + 1) + TK·DVC) floats (none when global); K rows are D + 1 words
     apart, so invocations scoring different keys read different banks.
   rope: see the kernel.
*/
#include "common.glsl"
#extension GL_EXT_control_flow_attributes : require

#if defined(RLX_K_attention) || defined(RLX_K_attention_gq)
#define RLX_ATT_NACC 8                  /* value dims per lane and chunk */
#define RLX_ATT_DVC (32 * RLX_ATT_NACC) /* value dims per chunk */

shared uint rlx_smem[RLX_SMEM_WORDS]; /* f32 bits: q rows [W][D], K tile [TK][D], V tile [TK][DVC] */
/* per invocation: the partial dot of its key over its dims; then, at lanes < TK of each group, the final
   logit of key lane (the slot of lane holds only that key's values, so the in-place sum is race-free) */
shared float rlx_att_score[gl_WorkGroupSize.x];
shared float rlx_att_prob[gl_WorkGroupSize.x]; /* lanes < TK of each group: exp(logit - running max) */

float rlx_att_sh(uint i) { return uintBitsToFloat(rlx_smem[i]); }

void main() {
    RlxArgs a = rlx_pc.a;
    const int dt = a.dt_out;
    const uint64_t q = a.in_[0], kp = a.in_[1], vp = a.in_[2], keep = a.in_[3], bias = a.in_[4], outp = a.out_;
    const int64_t H = a.ia[0], group = a.ia[1], D = a.ia[2], Dv = a.ia[3], Sq = a.ia[4], Sk = a.ia[5];
    const bool causal = a.ia[6] != 0, global_ = a.ia[15] != 0;
    const int TK = int(a.ia[11]), W = int(a.ia[12]);
    const int64_t window = a.ia[7], B = a.ia[13], nqb = a.ia[14];
    const int64_t nsplit = a.ia[16] > 1 ? a.ia[16] : 1L, chunk = a.ia[17];
    const float scale = float(a.fa[0]), softcap = float(a.fa[1]);
    const float NEG_INF = -rlx_inf_f();
    const uint tid = gl_LocalInvocationID.x, nthr = gl_WorkGroupSize.x;
    const int lane = int(tid & 31u), warp = int(tid >> 5u), P = 32 / TK, key = lane % TK, part = lane / TK;
    const uint wbase = tid & ~31u;   /* first invocation of this query's group */
    const int dvc = Dv < RLX_ATT_DVC ? int(Dv) : RLX_ATT_DVC;
    /* shared rows (used only when !global_, where they fit in 32-bit word indices) */
    const uint Du = uint(D), udvc = uint(dvc);
    const uint qs = uint(warp) * Du;          /* this group's query row */
    const uint ks = uint(W) * Du;             /* [TK][D + 1] */
    const uint vs = ks + uint(TK) * (Du + 1u); /* [TK][dvc] */
    /* rows of a work item: the queries of one head, or (gq) the group's heads x queries of one kv head */
#if defined(RLX_K_attention_gq)
    const bool gq = true;
#else
    const bool gq = false;
#endif
    const int64_t HH = gq ? H / group : H, R = gq ? group * Sq : Sq;
    const int64_t nitems = nqb * HH * B * nsplit;
    for (int64_t item2 = int64_t(gl_WorkGroupID.x); item2 < nitems; item2 += int64_t(gl_NumWorkGroups.x)) {
        const int64_t split = item2 % nsplit, item = item2 / nsplit;
        const int64_t qb = item % nqb, hh = (item / nqb) % HH, b = item / (nqb * HH);
        const int64_t r0 = qb * W, r = r0 + warp, rlast = (r0 + W < R ? r0 + W : R) - 1;
        const bool valid = r < R;
        /* this group's head and query; the smallest and largest query of the workgroup's rows */
        const int64_t h = gq ? hh * group + (valid ? r / Sq : 0L) : hh, hk = gq ? hh : h / group;
        const int64_t i = gq ? r % Sq : r;
        int64_t i0 = r0, ilast = rlast;
        if (gq) {
            const bool wraps = rlast - r0 + 1 >= Sq || r0 % Sq > rlast % Sq;
            i0 = wraps ? 0L : r0 % Sq;
            ilast = wraps ? Sq - 1 : rlast % Sq;
        }
        int64_t kv = Sk;
        if (a.ia[10] != 0) {   /* 1: one kv_len, 2: one per batch row */
            const int64_t kb = a.ia[10] == 2 ? b : 0L;
            kv = a.dt_in[5] == RLX_DT_I32 ? int64_t(rlx_i32(a.in_[5], kb)) : rlx_i64(a.in_[5], kb);
            kv = kv < 0 ? 0 : (kv > Sk ? Sk : kv);
        }
        const int64_t off = kv - Sq;
        /* visible key range of query i: [lo, hi); the workgroup walks the union over its queries */
        int64_t lo = 0, hi = kv, blo = 0, bhi = kv;
        if (causal) {
            hi = i + off + 1 < kv ? i + off + 1 : kv;
            bhi = ilast + off + 1 < kv ? ilast + off + 1 : kv;
        }
        if (window > 0) {
            lo = i + off - window + 1 > 0 ? i + off - window + 1 : 0;
            blo = i0 + off - window + 1 > 0 ? i0 + off - window + 1 : 0;
        }
        if (nsplit > 1) {   /* this split's keys only */
            const int64_t s0 = split * chunk, s1 = s0 + chunk;
            lo = max(lo, s0);
            blo = max(blo, s0);
            hi = min(hi, s1);
            bhi = min(bhi, s1);
        }
        const int64_t qoff = b * a.st[0][0] + h * a.st[0][1] + i * a.st[0][2];
        const int64_t koff = b * a.st[1][0] + hk * a.st[1][1], voff = b * a.st[2][0] + hk * a.st[2][1];
        const int64_t kst = a.st[1][2], vst = a.st[2][2];
        barrier(); /* the previous item's readers of the shared rows are done */
        if (!global_ && valid)
            for (uint d = uint(lane); d < Du; d += 32u) rlx_smem[qs + d] = floatBitsToUint(rlx_ld_f(q, dt, qoff + d));
        for (int dv0 = 0; dv0 < Dv; dv0 += RLX_ATT_DVC) {
            float m = NEG_INF, l = 0.0;
            float acc[RLX_ATT_NACC];
            bool nan_ = false;
            [[unroll]] for (int t = 0; t < RLX_ATT_NACC; t++) acc[t] = 0.0;
            for (int64_t j0 = blo; j0 < bhi; j0 += TK) {
                const int nk = bhi - j0 < TK ? int(bhi - j0) : TK;
                barrier();
                if (!global_) {
                    for (uint e = tid; e < uint(nk) * Du; e += nthr) {
                        const uint t = e / Du, d = e - t * Du;
                        rlx_smem[ks + t * (Du + 1u) + d] = floatBitsToUint(rlx_ld_f(kp, dt, koff + (j0 + t) * kst + d));
                    }
                    for (uint e = tid; e < uint(nk) * udvc; e += nthr) {
                        const uint t = e / udvc, d = e - t * udvc;
                        rlx_smem[vs + e] =
                            floatBitsToUint(dv0 + d < Dv ? rlx_ld_f(vp, dt, voff + (j0 + t) * vst + dv0 + d) : 0.0);
                    }
                }
                barrier();
                /* score of key j = j0 + key: partial dot over d = part, part + P, ...; then across parts */
                const int64_t j = j0 + key;
                float s = 0.0;
                if (valid && key < nk) {
                    if (global_) {
                        for (int64_t d = part; d < D; d += P)
                            s += rlx_ld_f(q, dt, qoff + d) * rlx_ld_f(kp, dt, koff + j * kst + d);
                    } else {
                        const uint kr = ks + uint(key) * (Du + 1u); /* this key's row */
                        for (uint d = uint(part); d < Du; d += uint(P)) s += rlx_att_sh(qs + d) * rlx_att_sh(kr + d);
                    }
                }
                rlx_att_score[tid] = s;
                barrier();
                if (lane < TK) {
                    /* lane == key, part 0: the full dot. The partials of this key sit at lane + p·TK (p < P); they
                       are added in place in the order of the CUDA kernel's xor butterfly (parts p and p + o for
                       o = 1, 2, ...); no other lane touches this key's entries. */
                    for (int o = 1; o < P; o <<= 1)
                        for (int p = 0; p < P; p += 2 * o)
                            rlx_att_score[tid + uint(p * TK)] += rlx_att_score[tid + uint((p + o) * TK)];
                    s = rlx_att_score[tid];
                    /* then scale, softcap, bias and the masks */
                    const bool vis = valid && key < nk && j >= lo && j < hi &&
                                     (keep == 0 || uint(rlx_u8(keep, b * a.dims[4] + i * a.dims[5] + j)) != 0u);
                    if (vis) {
                        s *= scale;
                        if (softcap > 0.0) s = softcap * rlx_tanh_f(s / softcap);
                        if (bias != 0)
                            s += rlx_ld_f(bias, dt, b * a.dims[0] + h * a.dims[1] + i * a.dims[2] + j * a.dims[3]);
                    } else {
                        s = NEG_INF;
                    }
                    rlx_att_score[tid] = s;
                }
                barrier();
                /* online softmax over the tile (NaN never wins the max; it is remembered) */
                float mt = NEG_INF;
                [[unroll]] for (int k = 0; k < 32; k++) {
                    if (k < TK) {
                        const float x = rlx_att_score[wbase + uint(k)];
                        if (rlx_isnan(x)) nan_ = true;
                        else if (x > mt) mt = x;
                    }
                }
                const float mn = mt > m ? mt : m;
                const float corr = mn == NEG_INF ? 1.0 : (m == NEG_INF ? 0.0 : rlx_exp_f(m - mn));
                if (lane < TK) {
                    const float x = rlx_att_score[tid];
                    rlx_att_prob[tid] = x == NEG_INF ? 0.0 : rlx_exp_f(x - mn);
                }
                barrier();
                /* sum of the tile's weights, computed by every lane with the CUDA kernel's xor butterfly over 32
                   lanes (entries k and k + o for o = 16 .. 1; the entries from TK on are zero there too) */
                float u[32];
                [[unroll]] for (int k = 0; k < 32; k++) u[k] = k < TK ? rlx_att_prob[wbase + uint(k)] : 0.0;
                [[unroll]] for (int k = 0; k < 16; k++) u[k] += u[k + 16];
                [[unroll]] for (int k = 0; k < 8; k++) u[k] += u[k + 8];
                [[unroll]] for (int k = 0; k < 4; k++) u[k] += u[k + 4];
                [[unroll]] for (int k = 0; k < 2; k++) u[k] += u[k + 2];
                u[0] += u[1];
                l = l * corr + u[0];
                [[unroll]] for (int t = 0; t < RLX_ATT_NACC; t++) acc[t] *= corr;
                for (int kk = 0; kk < nk; kk++) {
                    const float pk = rlx_att_prob[wbase + uint(kk)];
                    if (global_) {
                        [[unroll]] for (int t = 0; t < RLX_ATT_NACC; t++) {
                            const int d = lane + 32 * t;
                            if (d < dvc && dv0 + d < Dv)
                                acc[t] += pk * rlx_ld_f(vp, dt, voff + (j0 + kk) * vst + dv0 + d);
                        }
                    } else {
                        [[unroll]] for (int t = 0; t < RLX_ATT_NACC; t++) {
                            const int d = lane + 32 * t;
                            if (d < dvc) acc[t] += pk * rlx_att_sh(vs + uint(kk) * udvc + uint(d));
                        }
                    }
                }
                m = mn;
            }
            if (valid && nsplit > 1) {   /* the split's partial state (see above) */
                const int64_t pp = (((b * H + h) * Sq + i) * nsplit + split) * (Dv + 3);
                if (lane == 0) {
                    rlx_f32(a.in_[6], pp) = m;
                    rlx_f32(a.in_[6], pp + 1) = l;
                    rlx_f32(a.in_[6], pp + 2) = nan_ ? 1.0 : 0.0;
                }
                [[unroll]] for (int t = 0; t < RLX_ATT_NACC; t++) {
                    const int d = lane + 32 * t;
                    if (d < dvc && dv0 + d < Dv) rlx_f32(a.in_[6], pp + 3 + dv0 + d) = acc[t];
                }
            } else if (valid) {
                const float inv = 1.0 / l;
                const int64_t ooff = b * a.st[3][0] + h * a.st[3][1] + i * a.st[3][2];
                [[unroll]] for (int t = 0; t < RLX_ATT_NACC; t++) {
                    const int d = lane + 32 * t;
                    if (d < dvc && dv0 + d < Dv) {
                        const float r = m == NEG_INF ? (nan_ ? rlx_nan_f() : 0.0) : acc[t] * inv;
                        rlx_st_from_f(outp, dt, ooff + dv0 + d, r);
                    }
                }
            }
        }
    }
}
#endif

#if defined(RLX_K_attention_merge)
/* attention_merge: one workgroup of 256 invocations (the host's launch) per query row (b, h, i) combines the key
   splits of `attention` (in[6]): the maximum, NaN flag and weighted sum l over the splits are pairwise
   reductions in shared memory; then G = 256 / min(Dv, 256) groups of invocations each sum the splits
   s = g, g + G, ... of every value dim, and the G partial sums are added in order. ia as attention's; st[3] the
   output strides. */
shared float am_f[256];
shared int am_i[256];
void main() {
    RlxArgs a = rlx_pc.a;
    const int dt = a.dt_out;
    const int64_t H = a.ia[0], Dv = a.ia[3], Sq = a.ia[4], B = a.ia[13], nsplit = a.ia[16];
    const float NEG_INF = -rlx_inf_f();
    const int tid = int(gl_LocalInvocationID.x), nt = int(rlx_bdim());   /* 256, or a smaller power of two */
    const int DV = Dv < int64_t(nt) ? int(Dv) : nt, G = nt / DV;
    for (int64_t row = int64_t(gl_WorkGroupID.x); row < B * H * Sq; row += int64_t(gl_NumWorkGroups.x)) {
        const int64_t i = row % Sq, h = (row / Sq) % H, b = row / (Sq * H);
        const int64_t pr = row * nsplit * (Dv + 3);
        float M = NEG_INF, l = 0.0;
        int nan_ = 0;
        for (int64_t s = tid; s < nsplit; s += nt) {
            const float ms = rlx_f32(a.in_[6], pr + s * (Dv + 3));
            M = ms > M ? ms : M;
            if (rlx_f32(a.in_[6], pr + s * (Dv + 3) + 2) != 0.0) nan_ = 1;
        }
        am_f[tid] = M; am_i[tid] = nan_;
        barrier();
        for (int k = nt >> 1; k > 0; k >>= 1) {
            if (tid < k) {
                const float o = am_f[tid + k];
                if (o > am_f[tid]) am_f[tid] = o;
                am_i[tid] |= am_i[tid + k];
            }
            barrier();
        }
        M = am_f[0]; nan_ = am_i[0];
        barrier();
        if (M != NEG_INF)
            for (int64_t s = tid; s < nsplit; s += nt) {
                const float ms = rlx_f32(a.in_[6], pr + s * (Dv + 3)), ls = rlx_f32(a.in_[6], pr + s * (Dv + 3) + 1);
                if (ms != NEG_INF || ls != 0.0) l += rlx_exp_f(ms - M) * ls;
            }
        am_f[tid] = l;
        barrier();
        for (int k = nt >> 1; k > 0; k >>= 1) {
            if (tid < k) am_f[tid] += am_f[tid + k];
            barrier();
        }
        l = am_f[0];
        barrier();
        const float inv = 1.0 / l;
        const int64_t ooff = b * a.st[3][0] + h * a.st[3][1] + i * a.st[3][2];
        const int dl = tid % DV, g = tid / DV;
        for (int64_t d0 = 0; d0 < Dv; d0 += DV) {
            const int64_t d = d0 + dl;
            float acc = 0.0;
            if (g < G && d < Dv && M != NEG_INF)
                for (int64_t s = g; s < nsplit; s += G) {
                    const float ms = rlx_f32(a.in_[6], pr + s * (Dv + 3)), x = rlx_f32(a.in_[6], pr + s * (Dv + 3) + 3 + d);
                    if (ms != NEG_INF || x != 0.0) acc += rlx_exp_f(ms - M) * x;   /* 0 * NaN stays NaN */
                }
            am_f[tid] = acc;
            barrier();
            if (g == 0 && d < Dv) {
                float r;
                if (M == NEG_INF) {
                    r = nan_ != 0 ? rlx_nan_f() : 0.0;
                } else {
                    float t = 0.0;
                    for (int k = 0; k < G; k++) t += am_f[k * DV + dl];
                    r = t * inv;
                }
                rlx_st_from_f(a.out_, dt, ooff + d, r);
            }
            barrier();
        }
    }
}
#endif

#if defined(RLX_K_rope)
/* rope: rotary embedding. One invocation per (row, j), grid-stride over n: a row is one head of one token
   (D contiguous elements, row r = (b, s, h) for BSHD or (b, h, s) for BHSD); j < n_rot/2 rotates pair p = j
   ((p, p + n_rot/2) for NeoX, (2p, 2p + 1) for GPT-J): (a, b) -> (a·cos − b·sin, b·cos + a·sin) with cos/sin
   [P, n_rot/2] at row t; the other j copy the dims past n_rot. The position t comes from positions (i32/i64 [S]
   or [B, S]) or is position_offset + s; a position outside [0, P) copies the row unrotated. f32 computes in f32
   (products rounded before the add, as on the CPU), the other dtypes in double.
   in: 0 x, 1 cos, 2 sin, 3 positions (dt_in[3]). ia: 0 kind (0 NeoX, 1 GPT-J), 1 layout (0 BSHD, 1 BHSD), 2 H,
   3 n_rot, 4 has positions, 5 position_offset, 6 D, 7 B, 8 S, 9 P, 10 positions rank. n = rows * (n_rot/2 +
   D − n_rot). */

/* copy element i of x to y bit for bit (x, y of float dtype dt) */
void rlx_rope_copy(uint64_t y, uint64_t x, int dt, int64_t i) {
    if (dt == RLX_DT_F64) rlx_u64(y, i) = rlx_u64(x, i);
    else if (dt == RLX_DT_F32) rlx_u32(y, i) = rlx_u32(x, i);
    else rlx_u16(y, i) = rlx_u16(x, i);
}

void main() {
    RlxArgs a = rlx_pc.a;
    const int dt = a.dt_out;
    const uint64_t x = a.in_[0], cs = a.in_[1], sn = a.in_[2], pos = a.in_[3], y = a.out_;
    const bool neox = a.ia[0] == 0, bshd = a.ia[1] == 0, has_pos = a.ia[4] != 0;
    const bool pos_rows = a.ia[10] == 2, pos_i32 = a.dt_in[3] == RLX_DT_I32;
    const int64_t H = a.ia[2], nrot = a.ia[3], hn = nrot / 2, offset = a.ia[5], D = a.ia[6], S = a.ia[8], P = a.ia[9];
    const int64_t J = hn + D - nrot, n = a.n;
    RLX_GRID_LOOP(idx, n) {
        const int64_t r = idx / J, j = idx - r * J, base = r * D;
        int64_t s, b, t;
        bool ok;
        if (bshd) { s = (r / H) % S; b = r / (H * S); }
        else { s = r % S; b = r / (S * H); }
        if (has_pos) {
            const int64_t pi = pos_rows ? b * S + s : s;
            t = pos_i32 ? int64_t(rlx_i32(pos, pi)) : rlx_i64(pos, pi);
            ok = t >= 0 && t < P;
        } else {
            ok = offset >= -s && offset < P - s;
            t = ok ? offset + s : 0;
        }
        if (j >= hn) {
            rlx_rope_copy(y, x, dt, base + nrot + (j - hn));
            continue;
        }
        const int64_t ia_ = base + (neox ? j : 2 * j), ib = base + (neox ? j + hn : 2 * j + 1);
        if (!ok) {
            rlx_rope_copy(y, x, dt, ia_);
            rlx_rope_copy(y, x, dt, ib);
            continue;
        }
        const int64_t it = t * hn + j;
        if (dt == RLX_DT_F32) {
            const float av = rlx_f32(x, ia_), bv = rlx_f32(x, ib);
            const float c = rlx_f32(cs, it), sv = rlx_f32(sn, it);
            precise float ra = av * c - bv * sv;
            precise float rb = bv * c + av * sv;
            rlx_f32(y, ia_) = ra;
            rlx_f32(y, ib) = rb;
        } else {
            const double av = rlx_ld_d(x, dt, ia_), bv = rlx_ld_d(x, dt, ib);
            const double c = rlx_ld_d(cs, dt, it), sv = rlx_ld_d(sn, dt, it);
            precise double ra = av * c - bv * sv;
            precise double rb = bv * c + av * sv;
            rlx_st_from_d(y, dt, ia_, ra);
            rlx_st_from_d(y, dt, ib, rb);
        }
    }
}
#endif
