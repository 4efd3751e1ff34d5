#version 460
// kernels: dequant qgemv qgemv4 qgemm
/* quant.comp - ggml's block-quantized dtypes (rlx.h >>quant) on the Vulkan backend (port of
   kernels/cuda/quant.cu: same kernels, same arguments).

   rlx_dq(t, block, j) gives element j of one block of dtype t with exactly the CPU's arithmetic
   (rlx__dequant_block): f16 scales widened exactly, every product and sum the CPU rounds computed into a
   `precise` value (never contracted into an fma), so the kernels see the CPU's floats bit for bit. Bytes are
   read through 8-bit storage (storageBuffer8BitAccess); f16 outputs through 16-bit storage.

     dequant   cast block -> f32 / f16 (dt_out); element i is element i % be of block i / be.
               ia: 0 dtype, 1 elements per block (be), 2 bytes per block (bb).
     qgemv     y [M, N] = x [M, K] (f32) · w [N, K]ᵀ for M <= 8: 256 invocations, TPR (ia 7) per output
               column (256 / TPR columns per workgroup, grid-stride); q4_0, q8_0, q4_K, q6_K: 8 invocations
               share a 32-weight chunk, 4 weights each; the other formats a chunk per invocation, element by
               element. Sums in f32; the partial sums of a column are added pairwise in shared memory.
     qgemv4    M = 1, q4_0, q8_0, q4_K and q6_K (kernels/cuda/quant.cu's qgemv4): 8 weight rows per workgroup of 256,
               groups of 32 invocations splitting K into steps of 8 chunks, 4 invocations per chunk; x read
               once per 8 rows; a weight's byte under the exponent of 2^23 minus 2^23 (+ 8, + 128) is its
               integer (q6_K: 6 bits assembled in the byte, minus 32); Σ q·x per block in f32, scaled once
               by d (q4_K: d·sc, minus dmin·m · Σ x).
     qgemm     any M: 64x64 output tiles, k-steps of 16, 256 invocations each computing 4x4 outputs from x's tile
               and the dequantized w tile staged in shared memory (f32).
   ia (qgemv, qgemm): 0 dtype, 1 be, 2 bb, 3 M, 4 N, 5 K, 6 bytes per row of w, 7 TPR (qgemv). in: 0 x, 1 w. */
#include "common.glsl"

/* the dtype codes of the block formats (the rlx_dtype values, after RLX_BOOL in this order) */
#define RLX_DT_Q4_0 12
#define RLX_DT_Q4_1 13
#define RLX_DT_Q5_0 14
#define RLX_DT_Q5_1 15
#define RLX_DT_Q8_0 16
#define RLX_DT_Q2_K 17
#define RLX_DT_Q3_K 18
#define RLX_DT_Q4_K 19
#define RLX_DT_Q5_K 20
#define RLX_DT_Q6_K 21
#define RLX_DT_IQ4_NL 22
#define RLX_DT_IQ4_XS 23

#define QB(o) uint(rlx_u8(b, (o)))

/* iq4_nl's non-linear 4-bit values (ggml's kvalues_iq4nl), as a switch: no constant array */
int rlx_kv_iq4nl(uint i) {
    switch (i & 15u) {
    case 0u: return -127; case 1u: return -104; case 2u: return -83; case 3u: return -65;
    case 4u: return -49; case 5u: return -35; case 6u: return -22; case 7u: return -10;
    case 8u: return 1; case 9u: return 13; case 10u: return 25; case 11u: return 38;
    case 12u: return 53; case 13u: return 69; case 14u: return 89; default: return 113;
    }
}
float rlx_qh2f(uint64_t b, int o) { return rlx_h2f(QB(o) | (QB(o + 1) << 8)); }
/* a·b + c and a·b - c with the product rounded first (the CPU's order) */
float rlx_qmad(float a, float b, float c) {
    precise float p = a * b;
    precise float r = p + c;
    return r;
}
float rlx_qmsub(float a, float b, float c) {
    precise float p = a * b;
    precise float r = p - c;
    return r;
}

/* Element j of the block of dtype t at byte address b: the CPU's rlx__dequant_block, one element. */
float rlx_dq(int t, uint64_t b, int j) {
    switch (t) {
    case RLX_DT_Q4_0: {
        const uint q = j < 16 ? (QB(2 + j) & 15u) : (QB(2 + j - 16) >> 4);
        return rlx_mul_rn(float(int(q) - 8), rlx_qh2f(b, 0));
    }
    case RLX_DT_Q4_1: {
        const uint q = j < 16 ? (QB(4 + j) & 15u) : (QB(4 + j - 16) >> 4);
        return rlx_qmad(float(q), rlx_qh2f(b, 0), rlx_qh2f(b, 2));
    }
    case RLX_DT_Q5_0: case RLX_DT_Q5_1: {
        const bool one = t == RLX_DT_Q5_1;
        const int jj = j & 15, ho = one ? 4 : 2, so = one ? 8 : 6;
        const uint qh = QB(ho) | (QB(ho + 1) << 8) | (QB(ho + 2) << 16) | (QB(ho + 3) << 24);
        const uint x = j < 16 ? ((QB(so + jj) & 15u) | (((qh >> uint(jj)) << 4) & 0x10u))
                              : ((QB(so + jj) >> 4) | ((qh >> uint(jj + 12)) & 0x10u));
        if (one) return rlx_qmad(float(x), rlx_qh2f(b, 0), rlx_qh2f(b, 2));
        return rlx_mul_rn(float(int(x) - 16), rlx_qh2f(b, 0));
    }
    case RLX_DT_Q8_0: {
        const int q = int(QB(2 + j)) - (QB(2 + j) >= 128u ? 256 : 0);
        return rlx_mul_rn(float(q), rlx_qh2f(b, 0));
    }
    case RLX_DT_IQ4_NL: {
        const uint q = j < 16 ? (QB(2 + j) & 15u) : (QB(2 + j - 16) >> 4);
        return rlx_mul_rn(rlx_qh2f(b, 0), float(rlx_kv_iq4nl(q)));
    }
    case RLX_DT_IQ4_XS: {
        const int ib = j >> 5, r = j & 31;
        const uint sh = QB(2) | (QB(3) << 8);
        const int ls = int(((QB(4 + ib / 2) >> uint(4 * (ib % 2))) & 15u) | (((sh >> uint(2 * ib)) & 3u) << 4));
        const float dl = rlx_mul_rn(rlx_qh2f(b, 0), float(ls - 32));
        const int qs = 8 + 16 * ib;
        const uint q = r < 16 ? (QB(qs + r) & 15u) : (QB(qs + r - 16) >> 4);
        return rlx_mul_rn(dl, float(rlx_kv_iq4nl(q)));
    }
    case RLX_DT_Q2_K: {
        const int n = j >> 7, r = j & 127, s2 = r >> 5, h = (r >> 4) & 1, l = r & 15;
        const uint s = QB(n * 8 + s2 * 2 + h);
        const float dl = rlx_mul_rn(rlx_qh2f(b, 80), float(s & 15u));
        const float ml = rlx_mul_rn(rlx_qh2f(b, 82), float(s >> 4));
        const uint q = (QB(16 + n * 32 + l + 16 * h) >> uint(2 * s2)) & 3u;
        return rlx_qmsub(dl, float(q), ml);
    }
    case RLX_DT_Q3_K: {
        const int n = j >> 7, r = j & 127, s2 = r >> 5, h = (r >> 4) & 1, l = r & 15, is = n * 8 + s2 * 2 + h;
        const uint lo = is < 8 ? (QB(96 + is) & 15u) : (QB(96 + is - 8) >> 4);
        const uint hi = (QB(104 + is % 4) >> uint(2 * (is / 4))) & 3u;
        const float dl = rlx_mul_rn(rlx_qh2f(b, 108), float(int(lo | (hi << 4)) - 32));
        const int q = int((QB(32 + n * 32 + l + 16 * h) >> uint(2 * s2)) & 3u);
        const uint m = (QB(l + 16 * h) >> uint(n * 4 + s2)) & 1u;
        return rlx_mul_rn(dl, float(q - (m != 0u ? 0 : 4)));
    }
    case RLX_DT_Q4_K: case RLX_DT_Q5_K: {
        const bool five = t == RLX_DT_Q5_K;
        const int c = j >> 6, hi = (j >> 5) & 1, l = j & 31, is = 2 * c + hi;
        uint sc, mm, v;
        if (is < 4) {
            sc = QB(4 + is) & 63u; mm = QB(8 + is) & 63u;
        } else {
            sc = (QB(8 + is) & 15u) | ((QB(is) >> 6) << 4);
            mm = (QB(8 + is) >> 4) | ((QB(4 + is) >> 6) << 4);
        }
        {
            const uint qb = QB((five ? 48 : 16) + c * 32 + l);
            const float d1 = rlx_mul_rn(rlx_qh2f(b, 0), float(sc)), m1 = rlx_mul_rn(rlx_qh2f(b, 2), float(mm));
            v = hi != 0 ? (qb >> 4) : (qb & 15u);
            if (five && ((QB(16 + l) >> uint(is)) & 1u) != 0u) v += 16u;
            return rlx_qmsub(d1, float(v), m1);
        }
    }
    case RLX_DT_Q6_K: {
        const int n = j >> 7, r = j & 127, qr = r >> 5, l = r & 31;
        const uint by = QB(n * 64 + l + 32 * (qr & 1));
        const uint nib = qr >= 2 ? (by >> 4) : (by & 15u);
        const int q = int(nib | (((QB(128 + n * 32 + l) >> uint(2 * qr)) & 3u) << 4)) - 32;
        const uint su = QB(192 + n * 8 + (l >> 4) + 2 * qr);
        const int sc = int(su) - (su >= 128u ? 256 : 0);
        return rlx_mul_rn(rlx_mul_rn(rlx_qh2f(b, 208), float(sc)), float(q));
    }
    default:
        return 0.0;
    }
}

/* w element k of the row at byte address row */
float rlx_dq_at(int t, uint64_t row, int64_t be, int64_t bb, int64_t k) {
    const int64_t blk = k / be;
    return rlx_dq(t, row + uint64_t(blk * bb), int(k - blk * be));
}

#if defined(RLX_K_dequant)
void main() {
    RlxArgs a = rlx_pc.a;
    const int t = int(a.ia[0]);
    const int64_t be = a.ia[1], bb = a.ia[2];
    const uint64_t w = a.in_[0], y = a.out_;
    const bool f16 = a.dt_out == RLX_DT_F16;
    RLX_GRID_LOOP(i, a.n) {
        const float v = rlx_dq_at(t, w, be, bb, i);
        if (f16) rlx_u16(y, i) = uint16_t(rlx_f2h(v));
        else rlx_f32(y, i) = v;
    }
}
#endif

#if defined(RLX_K_qgemv)
layout(buffer_reference, std430, buffer_reference_align = 16) buffer RlxF32x4 { vec4 v[]; };

/* Weights 4e .. 4e + 3 of chunk c (e < 8) of the row at byte address row, as rlx_dq gives them (the same
   roundings), for q4_0, q8_0, q4_K and q6_K: the weights' bits in 16/32-bit loads, each block's scales decoded
   per call. */
void rlx_qquad(int t, uint64_t row, int64_t c, int e, out float wv[4]) {
    const int j = 4 * e;
    if (t == RLX_DT_Q4_0) {   /* 18-byte blocks: 2-byte aligned */
        const uint64_t b = row + uint64_t(c * 18L);
        const float d = rlx_h2f(uint(RlxU16(b).v[0]));
        RlxU16 q = RlxU16(b + uint64_t(2 + (j & 15)));
        const uint u = (uint(q.v[0]) | (uint(q.v[1]) << 16)) >> (j >= 16 ? 4u : 0u);
        for (int i = 0; i < 4; i++) wv[i] = rlx_mul_rn(float(int((u >> uint(8 * i)) & 15u) - 8), d);
    } else if (t == RLX_DT_Q8_0) {   /* 34-byte blocks */
        const uint64_t b = row + uint64_t(c * 34L);
        const float d = rlx_h2f(uint(RlxU16(b).v[0]));
        RlxU16 q = RlxU16(b + uint64_t(2 + j));
        const uint u = uint(q.v[0]) | (uint(q.v[1]) << 16);
        for (int i = 0; i < 4; i++) {
            const uint by = (u >> uint(8 * i)) & 255u;
            wv[i] = rlx_mul_rn(float(int(by) - (by >= 128u ? 256 : 0)), d);
        }
    } else if (t == RLX_DT_Q4_K) {   /* 144-byte blocks of 8 chunks; sub-block is = c % 8 */
        const uint64_t b = row + uint64_t((c >> 3) * 144L);
        const int is = int(c & 7L);
        uint sc, mm;
        if (is < 4) {
            sc = QB(4 + is) & 63u; mm = QB(8 + is) & 63u;
        } else {
            sc = (QB(8 + is) & 15u) | ((QB(is) >> 6) << 4);
            mm = (QB(8 + is) >> 4) | ((QB(4 + is) >> 6) << 4);
        }
        const float d1 = rlx_mul_rn(rlx_h2f(uint(RlxU16(b).v[0])), float(sc));
        const float m1 = rlx_mul_rn(rlx_h2f(uint(RlxU16(b).v[1])), float(mm));
        const uint u = RlxU32(b + uint64_t(16 + (is >> 1) * 32 + j)).v[0] >> uint((is & 1) * 4);   /* 4-byte aligned */
        for (int i = 0; i < 4; i++) wv[i] = rlx_qmsub(d1, float((u >> uint(8 * i)) & 15u), m1);
    } else {   /* q6_K: 210-byte blocks, 2-byte aligned; chunk = (half n, quarter qr) */
        const uint64_t b = row + uint64_t((c >> 3) * 210L);
        const int n = int((c >> 2) & 1L), qr = int(c & 3L);
        const uint su = QB(192 + n * 8 + (j >> 4) + 2 * qr);
        const float s = rlx_mul_rn(rlx_h2f(uint(RlxU16(b).v[104])), float(int(su) - (su >= 128u ? 256 : 0)));
        RlxU16 ql = RlxU16(b + uint64_t(n * 64 + 32 * (qr & 1) + j));
        RlxU16 qh = RlxU16(b + uint64_t(128 + n * 32 + j));
        const uint lo = uint(ql.v[0]) | (uint(ql.v[1]) << 16), hb = uint(qh.v[0]) | (uint(qh.v[1]) << 16);
        for (int i = 0; i < 4; i++) {
            const uint by = (lo >> uint(8 * i)) & 255u;
            const uint nib = qr >= 2 ? (by >> 4) : (by & 15u);
            const int qv = int(nib | ((((hb >> uint(8 * i)) >> uint(2 * qr)) & 3u) << 4)) - 32;
            wv[i] = rlx_mul_rn(s, float(qv));
        }
    }
}

/* TPR (ia 7) invocations per output column, 256 / TPR columns per workgroup (grid-stride over the groups).
   q4_0, q8_0, q4_K, q6_K: 8 invocations share a 32-weight chunk, invocation r taking weights 4(r % 8) .. + 3
   of the chunks r / 8, r / 8 + TPR / 8, ... (neighbouring invocations read neighbouring bytes of w and x);
   the other formats: invocation r takes the chunks r, r + TPR, ... element by element. Sums in f32; the TPR
   partial sums of a column are added pairwise through shared memory. */
shared float qv_part[8 * 256];
void main() {
    RlxArgs a = rlx_pc.a;
    const int t = int(a.ia[0]);
    const int64_t be = a.ia[1], bb = a.ia[2], M = a.ia[3], N = a.ia[4], K = a.ia[5], rb = a.ia[6];
    const int TPR = int(a.ia[7]), RPB = 256 / TPR;
    const uint tid = gl_LocalInvocationID.x;
    const int tr = int(tid) % TPR, rib = int(tid) / TPR;
    const uint64_t x = a.in_[0], w = a.in_[1], y = a.out_;
    const int64_t nch = K >> 5;
    const bool fast = t == RLX_DT_Q4_0 || t == RLX_DT_Q8_0 || t == RLX_DT_Q4_K || t == RLX_DT_Q6_K;
    const bool vec = (x & 15ul) == 0ul;
    for (int64_t n0 = int64_t(gl_WorkGroupID.x) * int64_t(RPB); n0 < N; n0 += int64_t(gl_NumWorkGroups.x) * int64_t(RPB)) {
        const int64_t n = n0 + int64_t(rib);
        float acc[8] = float[8](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        if (n < N) {
            const uint64_t row = w + uint64_t(n * rb);
            if (fast) {
                const int e = tr & 7;
                for (int64_t c = int64_t(tr >> 3); c < nch; c += int64_t(TPR >> 3)) {
                    float wv[4];
                    rlx_qquad(t, row, c, e, wv);
                    for (int m = 0; m < 8; m++) {
                        if (int64_t(m) >= M) break;
                        const uint64_t xa = x + uint64_t((int64_t(m) * K + c * 32L + int64_t(4 * e)) * 4L);
                        vec4 v;
                        if (vec) {
                            v = RlxF32x4(xa).v[0];
                        } else {
                            RlxF32 xr = RlxF32(xa);
                            v = vec4(xr.v[0], xr.v[1], xr.v[2], xr.v[3]);
                        }
                        acc[m] += wv[0] * v.x + wv[1] * v.y + wv[2] * v.z + wv[3] * v.w;
                    }
                }
            } else {   /* the other formats: element by element */
                for (int64_t c = int64_t(tr); c < nch; c += int64_t(TPR)) {
                    const uint64_t blk = row + uint64_t((be == 32L ? c : (c >> 3)) * bb);
                    const int j0 = be == 32L ? 0 : int(c & 7L) * 32;
                    for (int j = 0; j < 32; j++) {
                        const float wj = rlx_dq(t, blk, j0 + j);
                        for (int m = 0; m < 8; m++)
                            if (int64_t(m) < M) acc[m] += rlx_f32(x, int64_t(m) * K + c * 32L + int64_t(j)) * wj;
                    }
                }
            }
        }
        for (int m = 0; m < 8; m++) qv_part[m * 256 + int(tid)] = acc[m];
        barrier();
        for (int s = TPR >> 1; s > 0; s >>= 1) {
            if (tr < s)
                for (int m = 0; m < 8; m++)
                    if (int64_t(m) < M) qv_part[m * 256 + int(tid)] += qv_part[m * 256 + int(tid) + s];
            barrier();
        }
        if (tr == 0 && n < N)
            for (int m = 0; m < 8; m++)
                if (int64_t(m) < M) rlx_f32(y, int64_t(m) * N + n) = qv_part[m * 256 + int(tid)];
        barrier();
    }
}
#endif

#if defined(RLX_K_qgemv4)
layout(buffer_reference, std430, buffer_reference_align = 16) buffer RlxF32x4 { vec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer RlxU32x2 { uvec2 v[]; };
float rlx_qb(uint u, int i, float z) { return uintBitsToFloat(0x4B000000u | ((u >> uint(8 * i)) & 255u)) - z; }
/* Σ (q − z) · x over 8 weights: the 4 bytes of lo against a, of hi against b */
float rlx_q8dot(uint lo, uint hi, vec4 a, vec4 b, float z) {
    float s = rlx_qb(lo, 0, z) * a.x;
    s = fma(rlx_qb(lo, 1, z), a.y, s);
    s = fma(rlx_qb(lo, 2, z), a.z, s);
    s = fma(rlx_qb(lo, 3, z), a.w, s);
    s = fma(rlx_qb(hi, 0, z), b.x, s);
    s = fma(rlx_qb(hi, 1, z), b.y, s);
    s = fma(rlx_qb(hi, 2, z), b.z, s);
    return fma(rlx_qb(hi, 3, z), b.w, s);
}
vec4 rlx_qx4(uint64_t p, bool vec) {
    if (vec) return RlxF32x4(p).v[0];
    RlxF32 r = RlxF32(p);
    return vec4(r.v[0], r.v[1], r.v[2], r.v[3]);
}
shared float q4_part[8 * 256];
void main() {
    RlxArgs a = rlx_pc.a;
    const int t = int(a.ia[0]);
    const int64_t N = a.ia[4], K = a.ia[5], rb = a.ia[6];
    const uint tid = gl_LocalInvocationID.x;
    const int q = int(tid & 3u), wid = int(tid >> 5);
    const int nch = int(K >> 5), c0 = wid * 8 + int((tid >> 2) & 7u);
    const bool q8 = t != RLX_DT_Q4_0, k4 = t == RLX_DT_Q4_K, k6 = t == RLX_DT_Q6_K;
    const int bb = t == RLX_DT_Q8_0 ? 34 : 18, xo = q8 ? 8 * q : 4 * q, qo = 2 + (q8 ? 8 : 4) * q;
    const float z = k4 ? 8388608.0 : k6 ? 8388640.0 : q8 ? 8388736.0 : 8388616.0;   /* 2^23 (+ 32, 128, 8) */
    const uint64_t x = a.in_[0], w = a.in_[1], y = a.out_;
    const bool vec = (x & 15ul) == 0ul;
    for (int64_t n0 = int64_t(gl_WorkGroupID.x) * 8L; n0 < N; n0 += int64_t(gl_NumWorkGroups.x) * 8L) {
        const uint64_t r0 = w + uint64_t(n0 * rb);
        float acc[8];
        int64_t rs[8];
        for (int r = 0; r < 8; r++) {
            rs[r] = n0 + int64_t(r) < N ? int64_t(r) * rb : 0L;   /* rows past N read row n0; not written */
            acc[r] = 0.0;
        }
        for (int c = c0; c < nch; c += 64) {
            const uint64_t xa = x + uint64_t((c * 32 + xo) * 4);
            const vec4 va = rlx_qx4(xa, vec), vb = rlx_qx4(xa + uint64_t(q8 ? 16 : 64), vec);
            if (k4) {
                const float sx = ((va.x + va.y) + (va.z + va.w)) + ((vb.x + vb.y) + (vb.z + vb.w));
                const int is = c & 7;
                const uint sh = uint((is & 1) * 4);
                for (int r = 0; r < 8; r++) {
                    const uint64_t b = r0 + uint64_t(rs[r]) + uint64_t((c >> 3) * 144);
                    const uvec2 u = RlxU32x2(b + uint64_t(16 + (is >> 1) * 32 + 8 * q)).v[0];   /* 8-byte aligned */
                    uint sc, mm;
                    if (is < 4) {
                        sc = QB(4 + is) & 63u; mm = QB(8 + is) & 63u;
                    } else {
                        sc = (QB(8 + is) & 15u) | ((QB(is) >> 6) << 4);
                        mm = (QB(8 + is) >> 4) | ((QB(4 + is) >> 6) << 4);
                    }
                    RlxU16 hd = RlxU16(b);
                    if (!(abs(sx) <= 3.402823466e38)) {   /* x holds an infinity or NaN (or Σ x overflows): the split
                                                             form would give inf − inf; Σ w · x itself */
                        const uint lo = (u.x >> sh) & 0x0F0F0F0Fu, hi = (u.y >> sh) & 0x0F0F0F0Fu;
                        const float da = rlx_mul_rn(rlx_h2f(uint(hd.v[0])), float(sc));
                        const float db = rlx_mul_rn(rlx_h2f(uint(hd.v[1])), float(mm));
                        const float xv[8] = float[8](va.x, va.y, va.z, va.w, vb.x, vb.y, vb.z, vb.w);
                        float s = 0.0;
                        for (int i = 0; i < 8; i++)
                            s = fma(rlx_mul_rn(da, float(((i < 4 ? lo : hi) >> uint(8 * (i & 3))) & 15u)) - db, xv[i], s);
                        acc[r] += s;
                        continue;
                    }
                    const float sm = rlx_q8dot((u.x >> sh) & 0x0F0F0F0Fu, (u.y >> sh) & 0x0F0F0F0Fu, va, vb, z);
                    acc[r] = fma(rlx_mul_rn(rlx_h2f(uint(hd.v[0])), float(sc)), sm, acc[r]);
                    acc[r] = fma(-rlx_mul_rn(rlx_h2f(uint(hd.v[1])), float(mm)), sx, acc[r]);
                }
            } else if (k6) {   /* q6_K: chunk c = (half n, quarter qr); weights 8q .. 8q + 7 share a scale */
                const int n = (c >> 2) & 1, qr = c & 3;
                const uint lsh = qr >= 2 ? 4u : 0u, hsh = uint(2 * qr);
                for (int r = 0; r < 8; r++) {
                    const uint64_t b = r0 + uint64_t(rs[r]) + uint64_t((c >> 3) * 210);
                    RlxU16 ql = RlxU16(b + uint64_t(n * 64 + 32 * (qr & 1) + 8 * q));
                    RlxU16 qh = RlxU16(b + uint64_t(128 + n * 32 + 8 * q));
                    const uint l0 = uint(ql.v[0]) | (uint(ql.v[1]) << 16), l1 = uint(ql.v[2]) | (uint(ql.v[3]) << 16);
                    const uint h0 = uint(qh.v[0]) | (uint(qh.v[1]) << 16), h1 = uint(qh.v[2]) | (uint(qh.v[3]) << 16);
                    const uint v0 = ((l0 >> lsh) & 0x0F0F0F0Fu) | (((h0 >> hsh) & 0x03030303u) << 4);
                    const uint v1 = ((l1 >> lsh) & 0x0F0F0F0Fu) | (((h1 >> hsh) & 0x03030303u) << 4);
                    const float sm = rlx_q8dot(v0, v1, va, vb, z);
                    const uint su = QB(192 + n * 8 + 2 * qr + (q >> 1));
                    const float sc = rlx_mul_rn(rlx_h2f(uint(RlxU16(b).v[104])), float(int(su) - (su >= 128u ? 256 : 0)));
                    acc[r] = fma(sc, sm, acc[r]);
                }
            } else {
                for (int r = 0; r < 8; r++) {
                    const uint64_t b = r0 + uint64_t(rs[r]) + uint64_t(c * bb);
                    RlxU16 h = RlxU16(b);
                    RlxU16 qs = RlxU16(b + uint64_t(qo));
                    const uint u = uint(qs.v[0]) | (uint(qs.v[1]) << 16);
                    float sm;
                    if (q8) {
                        const uint u1 = uint(qs.v[2]) | (uint(qs.v[3]) << 16);
                        sm = rlx_q8dot(u ^ 0x80808080u, u1 ^ 0x80808080u, va, vb, z);
                    } else {
                        sm = rlx_q8dot(u & 0x0F0F0F0Fu, (u >> 4) & 0x0F0F0F0Fu, va, vb, z);
                    }
                    acc[r] = fma(rlx_h2f(uint(h.v[0])), sm, acc[r]);
                }
            }
        }
        /* the 256 partial sums of each row: 32 slices of 8, then 32 per row */
        for (int r = 0; r < 8; r++) q4_part[r * 256 + int(tid)] = acc[r];
        barrier();
        {
            const int r = int(tid >> 5), j = int(tid & 31u);
            float v = 0.0;
            for (int i = 0; i < 8; i++) v += q4_part[r * 256 + j * 8 + i];
            barrier();
            q4_part[r * 32 + j] = v;
        }
        barrier();
        if (tid < 8u && n0 + int64_t(tid) < N) {
            float v = 0.0;
            for (int i = 0; i < 32; i++) v += q4_part[int(tid) * 32 + i];
            rlx_f32(y, n0 + int64_t(tid)) = v;
        }
        barrier();
    }
}
#endif

#if defined(RLX_K_qgemm)
shared float qm_as[16][68];
shared float qm_bs[16][68];
void main() {
    RlxArgs a = rlx_pc.a;
    const int t = int(a.ia[0]);
    const int64_t be = a.ia[1], bb = a.ia[2], M = a.ia[3], N = a.ia[4], K = a.ia[5], rb = a.ia[6];
    const int tid = int(gl_LocalInvocationID.x), tx = tid & 15, ty = tid >> 4;
    const int64_t tm = (M + 63L) / 64L, tn = (N + 63L) / 64L;
    const uint64_t x = a.in_[0], w = a.in_[1], y = a.out_;
    for (int64_t bm = int64_t(gl_WorkGroupID.y); bm < tm; bm += int64_t(gl_NumWorkGroups.y))
        for (int64_t bn = int64_t(gl_WorkGroupID.x); bn < tn; bn += int64_t(gl_NumWorkGroups.x)) {
            const int64_t m0 = bm * 64L, n0 = bn * 64L;
            float acc[4][4];
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) acc[i][j] = 0.0;
            for (int64_t k0 = 0; k0 < K; k0 += 16L) {
                const int64_t k = k0 + int64_t(tx);   /* K is a multiple of the block, so of 16 */
                for (int i = 0; i < 4; i++) {
                    const int64_t r = m0 + int64_t(ty + 16 * i), c = n0 + int64_t(ty + 16 * i);
                    qm_as[tx][ty + 16 * i] = r < M ? rlx_f32(x, r * K + k) : 0.0;
                    qm_bs[tx][ty + 16 * i] = c < N ? rlx_dq_at(t, w + uint64_t(c * rb), be, bb, k) : 0.0;
                }
                barrier();
                for (int kk = 0; kk < 16; kk++) {
                    float av[4], bv[4];
                    for (int i = 0; i < 4; i++) { av[i] = qm_as[kk][ty + 16 * i]; bv[i] = qm_bs[kk][tx + 16 * i]; }
                    for (int i = 0; i < 4; i++)
                        for (int j = 0; j < 4; j++) acc[i][j] += av[i] * bv[j];
                }
                barrier();
            }
            for (int i = 0; i < 4; i++) {
                const int64_t r = m0 + int64_t(ty + 16 * i);
                if (r >= M) continue;
                for (int j = 0; j < 4; j++) {
                    const int64_t c = n0 + int64_t(tx + 16 * j);
                    if (c < N) rlx_f32(y, r * N + c) = acc[i][j];
                }
            }
        }
}
#endif
