/* quant.cu - ggml's block-quantized dtypes (rlx.h >>quant) on the CUDA and HIP backends.

   One device function, rlx_dq(t, block, j), gives element j of one block of dtype t with exactly the CPU's
   arithmetic (rlx__dequant_block): f16 scales widened exactly, products rounded where the CPU rounds them
   (__fmul_rn / __fadd_rn / __fsub_rn: never contracted into an fma), so every kernel below sees the floats the
   CPU's dequantization gives, bit for bit. The weight dtype is a runtime argument (ia 0 = rlx_dtype).

     dequant   cast block -> f32 / f16 (dt_out). Grid-stride over the n output elements; element i is element
               i % be of block i / be (blocks run along the last axis in memory order).
               ia: 0 dtype, 1 elements per block (be), 2 bytes per block (bb).
     qgemv     y [M, N] = x [M, K] (f32) · w [N, K]ᵀ for M <= 8 (decode). Blocks of 256 threads, one warp per
               output column n (8 per block, grid-stride over the column groups). Lane l decodes the 32-element
               chunks c = l, l + 32, ... of row n (each block's scales once per chunk; fast paths for q4_0,
               q8_0, q4_K, q6_K), multiplies them with x[m, 32c ..] for every m and sums in f32; the 32 partial
               sums of a row are reduced by shuffles.
     qgemv4    M = 1, q4_0, q8_0, q4_K and q6_K: 8 weight rows per block, the 8 warps splitting K, x read once per 8 rows,
               weights made floats by a byte permute under 2^23 and one subtraction, d applied per block.
     qgemm     the same product for any M: 64x64 output tiles, k-steps of 16 (inside one block: be is 32 or
               256), 256 threads each computing 4x4 outputs. Each step stages x's tile and the dequantized
               w tile in shared memory (f32), then multiplies in f32.
     rows_h    rows of x or w to f16 with a power-of-two factor per row (below), for the f16 tensor-core
               product of a prefill (matmul_tc with ia 13).
   ia (qgemv, qgemm): 0 dtype, 1 be, 2 bb, 3 M, 4 N, 5 K, 6 bytes per row of w. in: 0 x, 1 w. */
#include "common.cuh"

/* the dtype codes of the block formats (the rlx_dtype values, after RLX_BOOL in this order) */
enum {
    RLX_DT_Q4_0 = 12, RLX_DT_Q4_1, RLX_DT_Q5_0, RLX_DT_Q5_1, RLX_DT_Q8_0, RLX_DT_Q2_K, RLX_DT_Q3_K, RLX_DT_Q4_K,
    RLX_DT_Q5_K, RLX_DT_Q6_K, RLX_DT_IQ4_NL, RLX_DT_IQ4_XS
};

/* iq4_nl's non-linear 4-bit values (ggml's kvalues_iq4nl) */
RLX_D int rlx_kv_iq4nl(int i) {
    switch (i & 15) {
    case 0: return -127; case 1: return -104; case 2: return -83; case 3: return -65;
    case 4: return -49; case 5: return -35; case 6: return -22; case 7: return -10;
    case 8: return 1; case 9: return 13; case 10: return 25; case 11: return 38;
    case 12: return 53; case 13: return 69; case 14: return 89; default: return 113;
    }
}
RLX_D float rlx_qh2f(const unsigned char* p) { return rlx_h2f((unsigned short)(p[0] | (p[1] << 8))); }
RLX_D unsigned rlx_qu32(const unsigned char* p) {
    return (unsigned)p[0] | ((unsigned)p[1] << 8) | ((unsigned)p[2] << 16) | ((unsigned)p[3] << 24);
}

/* Element j of the block of dtype t at b: the CPU's rlx__dequant_block, one element. */
RLX_D float rlx_dq(int t, const unsigned char* b, int j) {
    switch (t) {
    case RLX_DT_Q4_0: {
        const int q = j < 16 ? (b[2 + j] & 15) : (b[2 + j - 16] >> 4);
        return rlx_mul_rn((float)(q - 8), rlx_qh2f(b));
    }
    case RLX_DT_Q4_1: {
        const int q = j < 16 ? (b[4 + j] & 15) : (b[4 + j - 16] >> 4);
        return __fadd_rn(rlx_mul_rn((float)q, rlx_qh2f(b)), rlx_qh2f(b + 2));
    }
    case RLX_DT_Q5_0: case RLX_DT_Q5_1: {
        const int one = t == RLX_DT_Q5_1, jj = j & 15;
        const unsigned qh = rlx_qu32(b + (one ? 4 : 2));
        const unsigned char* qs = b + (one ? 8 : 6);
        const int x = j < 16 ? ((qs[jj] & 15) | (int)(((qh >> jj) << 4) & 0x10u))
                             : ((qs[jj] >> 4) | (int)((qh >> (jj + 12)) & 0x10u));
        if (one) return __fadd_rn(rlx_mul_rn((float)x, rlx_qh2f(b)), rlx_qh2f(b + 2));
        return rlx_mul_rn((float)(x - 16), rlx_qh2f(b));
    }
    case RLX_DT_Q8_0:
        return rlx_mul_rn((float)(signed char)b[2 + j], rlx_qh2f(b));
    case RLX_DT_IQ4_NL: {
        const int q = j < 16 ? (b[2 + j] & 15) : (b[2 + j - 16] >> 4);
        return rlx_mul_rn(rlx_qh2f(b), (float)rlx_kv_iq4nl(q));
    }
    case RLX_DT_IQ4_XS: {
        const int ib = j >> 5, r = j & 31;
        const unsigned sh = (unsigned)(b[2] | (b[3] << 8));
        const int ls = ((b[4 + ib / 2] >> (4 * (ib % 2))) & 15) | (int)(((sh >> (2 * ib)) & 3u) << 4);
        const float dl = rlx_mul_rn(rlx_qh2f(b), (float)(ls - 32));
        const unsigned char* qs = b + 8 + 16 * ib;
        const int q = r < 16 ? (qs[r] & 15) : (qs[r - 16] >> 4);
        return rlx_mul_rn(dl, (float)rlx_kv_iq4nl(q));
    }
    case RLX_DT_Q2_K: {
        const int n = j >> 7, r = j & 127, s2 = r >> 5, h = (r >> 4) & 1, l = r & 15;
        const unsigned char s = b[n * 8 + s2 * 2 + h];
        const float dl = rlx_mul_rn(rlx_qh2f(b + 80), (float)(s & 15));
        const float ml = rlx_mul_rn(rlx_qh2f(b + 82), (float)(s >> 4));
        const int q = (b[16 + n * 32 + l + 16 * h] >> (2 * s2)) & 3;
        return __fsub_rn(rlx_mul_rn(dl, (float)q), ml);
    }
    case RLX_DT_Q3_K: {
        const int n = j >> 7, r = j & 127, s2 = r >> 5, h = (r >> 4) & 1, l = r & 15, is = n * 8 + s2 * 2 + h;
        const unsigned char* s12 = b + 96;
        const int lo = is < 8 ? (s12[is] & 15) : (s12[is - 8] >> 4);
        const int hi = (s12[8 + is % 4] >> (2 * (is / 4))) & 3;
        const float dl = rlx_mul_rn(rlx_qh2f(b + 108), (float)((lo | (hi << 4)) - 32));
        const int q = (b[32 + n * 32 + l + 16 * h] >> (2 * s2)) & 3;
        const int m = (b[l + 16 * h] >> (n * 4 + s2)) & 1;
        return rlx_mul_rn(dl, (float)(q - (m ? 0 : 4)));
    }
    case RLX_DT_Q4_K: case RLX_DT_Q5_K: {
        const int five = t == RLX_DT_Q5_K, c = j >> 6, hi = (j >> 5) & 1, l = j & 31, is = 2 * c + hi;
        const unsigned char* q = b + 4;
        int sc, mm, v;
        if (is < 4) {
            sc = q[is] & 63; mm = q[is + 4] & 63;
        } else {
            sc = (q[is + 4] & 15) | ((q[is - 4] >> 6) << 4);
            mm = (q[is + 4] >> 4) | ((q[is] >> 6) << 4);
        }
        {
            const unsigned char qb = b[(five ? 48 : 16) + c * 32 + l];
            const float d1 = rlx_mul_rn(rlx_qh2f(b), (float)sc), m1 = rlx_mul_rn(rlx_qh2f(b + 2), (float)mm);
            v = hi ? (qb >> 4) : (qb & 15);
            if (five && ((b[16 + l] >> is) & 1)) v += 16;
            return __fsub_rn(rlx_mul_rn(d1, (float)v), m1);
        }
    }
    case RLX_DT_Q6_K: {
        const int n = j >> 7, r = j & 127, qr = r >> 5, l = r & 31;
        const unsigned char byte = b[n * 64 + l + 32 * (qr & 1)];
        const int nib = qr >= 2 ? (byte >> 4) : (byte & 15);
        const int q = (nib | (((b[128 + n * 32 + l] >> (2 * qr)) & 3) << 4)) - 32;
        const int sc = (signed char)b[192 + n * 8 + (l >> 4) + 2 * qr];
        return rlx_mul_rn(rlx_mul_rn(rlx_qh2f(b + 208), (float)sc), (float)q);
    }
    default:
        return 0.0f;
    }
}

extern "C" __global__ void dequant(rlx_kargs a) {
    const int t = (int)a.ia[0];
    const rlx_i64 be = a.ia[1], bb = a.ia[2];
    const unsigned char* w = (const unsigned char*)a.in[0];
    RLX_GRID_LOOP(i, a.n) {
        const rlx_i64 blk = i / be;
        const float v = rlx_dq(t, w + blk * bb, (int)(i - blk * be));
        if (a.dt_out == RLX_DT_F16) ((unsigned short*)a.out)[i] = rlx_f2h(v);
        else ((float*)a.out)[i] = v;
    }
}

/* q4_K's sub-block is (0..7) of the super-block at b: d · scale and dmin · min, rounded as rlx_dq rounds them */
RLX_D void rlx_q4k_dm(const unsigned char* b, int is, float* d1, float* m1) {
    const unsigned char* q = b + 4;
    int sc, mm;
    if (is < 4) {
        sc = q[is] & 63; mm = q[is + 4] & 63;
    } else {
        sc = (q[is + 4] & 15) | ((q[is - 4] >> 6) << 4);
        mm = (q[is + 4] >> 4) | ((q[is] >> 6) << 4);
    }
    *d1 = rlx_mul_rn(rlx_qh2f(b), (float)sc);
    *m1 = rlx_mul_rn(rlx_qh2f(b + 2), (float)mm);
}

/* w element k of the row at `row` */
RLX_D float rlx_dq_at(int t, const unsigned char* row, rlx_i64 be, rlx_i64 bb, rlx_i64 k) {
    const int sh = be == 32 ? 5 : 8;   /* every block format holds 32 or 256 elements */
    return rlx_dq(t, row + (k >> sh) * bb, (int)(k & (be - 1)));
}

/* The 32 weights of chunk c (elements 32c .. 32c + 31) of the row at `row`, as rlx_dq gives them (the same
   roundings), with each block's scales decoded once per chunk. Fast paths for q4_0, q8_0, q4_K and q6_K; the
   other formats go element by element through rlx_dq. Blocks hold 32 or 256 elements, so a chunk lies in one
   block. */
RLX_D unsigned rlx_qu16(const unsigned char* p) { return (unsigned)*(const unsigned short*)p; }
RLX_D void rlx_qchunk(int t, const unsigned char* row, rlx_i64 c, float* wv) {
    switch (t) {
    case RLX_DT_Q4_0: {   /* 18-byte blocks: 2-byte aligned */
        const unsigned char* b = row + c * 18;
        const float d = rlx_qh2f(b);
#pragma unroll
        for (int j = 0; j < 16; j += 2) {
            const unsigned q = rlx_qu16(b + 2 + j);
            wv[j] = rlx_mul_rn((float)((int)(q & 15u) - 8), d);
            wv[j + 1] = rlx_mul_rn((float)((int)((q >> 8) & 15u) - 8), d);
            wv[j + 16] = rlx_mul_rn((float)((int)((q >> 4) & 15u) - 8), d);
            wv[j + 17] = rlx_mul_rn((float)((int)((q >> 12) & 15u) - 8), d);
        }
        return;
    }
    case RLX_DT_Q8_0: {   /* 34-byte blocks */
        const unsigned char* b = row + c * 34;
        const float d = rlx_qh2f(b);
#pragma unroll
        for (int j = 0; j < 32; j += 2) {
            const unsigned q = rlx_qu16(b + 2 + j);
            wv[j] = rlx_mul_rn((float)(signed char)(q & 255u), d);
            wv[j + 1] = rlx_mul_rn((float)(signed char)(q >> 8), d);
        }
        return;
    }
    case RLX_DT_Q4_K: {   /* 144-byte blocks of 8 chunks; sub-block is = c % 8 */
        const unsigned char* b = row + (c >> 3) * 144;
        const int is = (int)(c & 7), hi = is & 1;
        float d1, m1;
        rlx_q4k_dm(b, is, &d1, &m1);
        const unsigned* qs = (const unsigned*)(b + 16 + (is >> 1) * 32);   /* 16-byte aligned */
#pragma unroll
        for (int j = 0; j < 32; j += 4) {
            const unsigned u = qs[j >> 2] >> (hi ? 4 : 0);
#pragma unroll
            for (int e = 0; e < 4; e++)
                wv[j + e] = __fsub_rn(rlx_mul_rn(d1, (float)((u >> (8 * e)) & 15u)), m1);
        }
        return;
    }
    case RLX_DT_Q6_K: {   /* 210-byte blocks: 2-byte aligned; chunk = (half n, quarter qr) */
        const unsigned char* b = row + (c >> 3) * 210;
        const int n = (int)((c >> 2) & 1), qr = (int)(c & 3);
        const float d = rlx_qh2f(b + 208);
        const float s0 = rlx_mul_rn(d, (float)(signed char)b[192 + n * 8 + 2 * qr]);
        const float s1 = rlx_mul_rn(d, (float)(signed char)b[192 + n * 8 + 1 + 2 * qr]);
        const unsigned char* ql = b + n * 64 + 32 * (qr & 1);
        const unsigned char* qh = b + 128 + n * 32;
#pragma unroll
        for (int l = 0; l < 32; l += 2) {
            const unsigned lo = rlx_qu16(ql + l), hb = rlx_qu16(qh + l);
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const unsigned byte = (lo >> (8 * e)) & 255u;
                const int nib = (int)(qr >= 2 ? (byte >> 4) : (byte & 15u));
                const int qv = (nib | (int)((((hb >> (8 * e)) >> (2 * qr)) & 3u) << 4)) - 32;
                wv[l + e] = rlx_mul_rn(l + e < 16 ? s0 : s1, (float)qv);
            }
        }
        return;
    }
    default:   /* not reached: the caller takes the element path for the other formats */
        return;
    }
}

/* rows_h: R rows of K values, each row rounded to f16 after scaling it by a power of two 2^(14 - e), e the
   exponent of the row's largest finite magnitude (clamped to [-100, 100]): the row's values land below 2^15,
   inside f16's range whatever their magnitude, and keep f16's 11 significant bits down to 2^-29 of the row's
   largest. The inverse factor 2^(e - 14) of row r goes to ((float*)in[1])[r] (1 for a row of zeros), so the
   product of two such operands is rescaled exactly. Infinities and NaNs stay what they are. Rows are f32 (ia 0
   = 0: the activations x of a prefill) or block dtype ia 0 (rows of a weight: rlx_qchunk / rlx_dq, the CPU's
   floats). Weight rows: one warp per row, lane l taking the 32-element chunks l, l + 32, ... twice (the largest
   magnitude, then the rounded values, stored 16 bytes at a time). f32 rows: one block per row (a prefill has
   few rows), 4 values per thread and step, the largest magnitude a block reduction.
   ia: 0 dtype (0 = f32), 1 be, 2 bb, 3 R, 4 K (a multiple of 32), 5 bytes per row. in: 0 rows, 1 the factors.
   out: f16 [R, K]. */
RLX_D unsigned short rlx_f2h_rn(float f) {   /* rlx_f2h's value (round to nearest even; NaN's payload aside) */
#if defined(RLX_HIP)
    return rlx_f2h(f);
#else
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
#endif
}
RLX_D void rlx_rows_h_scale(float amax, float* s, float* inv) {
    int e = amax > 0.0f ? ilogbf(amax) : 14;
    e = e < -100 ? -100 : e > 100 ? 100 : e;
    *s = ldexpf(1.0f, 14 - e);
    *inv = ldexpf(1.0f, e - 14);
}
/* f32 rows (x): one block of 256 threads per row, 4 values (a float4 where aligned) per thread and step */
RLX_D void rlx_rows_h_f32(const rlx_kargs& a) {
    __shared__ float red[8];
    const rlx_i64 R = a.ia[3], K = a.ia[4];
    const int tid = threadIdx.x;
    const bool vec = (a.in[0] & 15u) == 0;   /* K is a multiple of 32 */
    for (rlx_i64 r = blockIdx.x; r < R; r += gridDim.x) {
        const float* row = (const float*)a.in[0] + r * K;
        uint2* out = (uint2*)((unsigned short*)a.out + r * K);
        float amax = 0.0f, s, inv;
        for (rlx_i64 e = tid; e < K / 4; e += 256) {
            const float4 v = vec ? ((const float4*)row)[e] : make_float4(row[4 * e], row[4 * e + 1], row[4 * e + 2], row[4 * e + 3]);
            const float m[4] = {fabsf(v.x), fabsf(v.y), fabsf(v.z), fabsf(v.w)};
#pragma unroll
            for (int i = 0; i < 4; i++)
                if (m[i] <= 3.402823466e38f) amax = fmaxf(amax, m[i]);   /* finite */
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) amax = fmaxf(amax, RLX_SHFL_XOR(amax, o));
        __syncthreads();   /* the previous row's readers of red are done */
        if ((tid & 31) == 0) red[tid >> 5] = amax;
        __syncthreads();
        amax = red[0];
#pragma unroll
        for (int w = 1; w < 8; w++) amax = fmaxf(amax, red[w]);
        rlx_rows_h_scale(amax, &s, &inv);
        for (rlx_i64 e = tid; e < K / 4; e += 256) {
            const float4 v = vec ? ((const float4*)row)[e] : make_float4(row[4 * e], row[4 * e + 1], row[4 * e + 2], row[4 * e + 3]);
            out[e] = make_uint2((unsigned)rlx_f2h_rn(v.x * s) | ((unsigned)rlx_f2h_rn(v.y * s) << 16),
                                (unsigned)rlx_f2h_rn(v.z * s) | ((unsigned)rlx_f2h_rn(v.w * s) << 16));
        }
        if (tid == 0) ((float*)a.in[1])[r] = inv;
    }
}
extern "C" __global__ void __launch_bounds__(256) rows_h(rlx_kargs a) {
    const int t = (int)a.ia[0], be = (int)a.ia[1], bb = (int)a.ia[2];
    const rlx_i64 R = a.ia[3], K = a.ia[4], rb = a.ia[5], nc = K / 32;
    const int lane = threadIdx.x & 31;
    if (t == 0) {
        rlx_rows_h_f32(a);
        return;
    }
    if (t != RLX_DT_Q4_0 && t != RLX_DT_Q8_0 && t != RLX_DT_Q4_K && t != RLX_DT_Q6_K) {   /* element by element */
        for (rlx_i64 r = ((rlx_i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < R;
             r += ((rlx_i64)gridDim.x * blockDim.x) >> 5) {
            const unsigned char* row = (const unsigned char*)a.in[0] + r * rb;
            unsigned short* out = (unsigned short*)a.out + r * K;
            float amax = 0.0f, s, inv;
            for (rlx_i64 k = lane; k < K; k += 32) {
                const float m = fabsf(rlx_dq(t, row + (k / be) * bb, (int)(k % be)));
                if (m <= 3.402823466e38f) amax = fmaxf(amax, m);   /* finite */
            }
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) amax = fmaxf(amax, RLX_SHFL_XOR(amax, o));
            rlx_rows_h_scale(amax, &s, &inv);
            for (rlx_i64 k = lane; k < K; k += 32) out[k] = rlx_f2h_rn(rlx_dq(t, row + (k / be) * bb, (int)(k % be)) * s);
            if (lane == 0) ((float*)a.in[1])[r] = inv;
        }
        return;
    }
    const rlx_i64 nw = ((rlx_i64)gridDim.x * blockDim.x) >> 5;
    for (rlx_i64 r = ((rlx_i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < R; r += nw) {
        const unsigned char* row = (const unsigned char*)a.in[0] + r * rb;
        uint4* out = (uint4*)((unsigned short*)a.out + r * K);
        float amax = 0.0f, s, inv, v[32];
        for (rlx_i64 c = lane; c < nc; c += 32) {
            rlx_qchunk(t, row, c, v);
#pragma unroll
            for (int i = 0; i < 32; i++) {
                const float m = fabsf(v[i]);
                if (m <= 3.402823466e38f) amax = fmaxf(amax, m);   /* finite */
            }
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) amax = fmaxf(amax, RLX_SHFL_XOR(amax, o));
        rlx_rows_h_scale(amax, &s, &inv);
        for (rlx_i64 c = lane; c < nc; c += 32) {
            unsigned h[16];
            rlx_qchunk(t, row, c, v);
#pragma unroll
            for (int i = 0; i < 16; i++)
                h[i] = (unsigned)rlx_f2h_rn(v[2 * i] * s) | ((unsigned)rlx_f2h_rn(v[2 * i + 1] * s) << 16);
#pragma unroll
            for (int i = 0; i < 4; i++) out[c * 4 + i] = make_uint4(h[4 * i], h[4 * i + 1], h[4 * i + 2], h[4 * i + 3]);
        }
        if (lane == 0) ((float*)a.in[1])[r] = inv;
    }
}

/* qgemv: one warp per output column n; lane l takes the chunks c = l, l + 32, ... of row n (a q4_0 warp reads
   32 consecutive blocks at a time), decodes each chunk's 32 weights once and multiplies them with x[m, 32c ..]
   for every m <= M (x in float4 loads where x is 16-byte aligned). The 32 partial sums are reduced by shuffles. */
#define RLX_QGEMV_MAXM 8
extern "C" __global__ void __launch_bounds__(256) qgemv(rlx_kargs a) {
    const int t = (int)a.ia[0];
    const rlx_i64 be = a.ia[1], bb = a.ia[2], M = a.ia[3], N = a.ia[4], K = a.ia[5], rb = a.ia[6];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const float* x = (const float*)a.in[0];
    const unsigned char* w = (const unsigned char*)a.in[1];
    float* y = (float*)a.out;
    const rlx_i64 nch = K >> 5;
    const int fast = t == RLX_DT_Q4_0 || t == RLX_DT_Q8_0 || t == RLX_DT_Q4_K || t == RLX_DT_Q6_K;
    const int vec = ((unsigned long long)x & 15u) == 0;
    for (rlx_i64 n0 = (rlx_i64)blockIdx.x * 8; n0 < N; n0 += (rlx_i64)gridDim.x * 8) {
        const rlx_i64 n = n0 + wid;
        float acc[RLX_QGEMV_MAXM];
#pragma unroll
        for (int m = 0; m < RLX_QGEMV_MAXM; m++) acc[m] = 0.0f;
        if (n < N) {
            const unsigned char* row = w + n * rb;
            for (rlx_i64 c = lane; c < nch; c += 32) {
                float wv[32];
                if (!fast) {   /* the other formats: element by element (not unrolled: rlx_dq is long) */
                    const unsigned char* blk = row + (be == 32 ? c : (c >> 3)) * bb;
                    const int j0 = be == 32 ? 0 : (int)(c & 7) * 32;
#pragma unroll 1
                    for (int j = 0; j < 32; j++) {
                        const float wj = rlx_dq(t, blk, j0 + j);
#pragma unroll
                        for (int m = 0; m < RLX_QGEMV_MAXM; m++)
                            if (m < M) acc[m] += wj * x[m * K + c * 32 + j];
                    }
                    continue;
                }
                rlx_qchunk(t, row, c, wv);
#pragma unroll
                for (int m = 0; m < RLX_QGEMV_MAXM; m++) {
                    if (m >= M) break;
                    const float* xr = x + m * K + c * 32;
                    float s = 0.0f;
                    if (vec) {
#pragma unroll
                        for (int j = 0; j < 32; j += 4) {
                            const float4 v = *(const float4*)(xr + j);
                            s += wv[j] * v.x + wv[j + 1] * v.y + wv[j + 2] * v.z + wv[j + 3] * v.w;
                        }
                    } else {
#pragma unroll
                        for (int j = 0; j < 32; j++) s += wv[j] * xr[j];
                    }
                    acc[m] += s;
                }
            }
        }
#pragma unroll
        for (int m = 0; m < RLX_QGEMV_MAXM; m++) {
            float v = acc[m];
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) v += RLX_SHFL_XOR(v, o);
            if (lane == 0 && n < N && m < M) y[m * N + n] = v;
        }
    }
}

/* a float4 of x (16-byte aligned when vec) */
RLX_D float4 rlx_qx4(const float* p, int vec) {
    if (vec) return *(const float4*)p;
    return make_float4(p[0], p[1], p[2], p[3]);
}

/* qgemv4: one row of x (M = 1), q4_0, q8_0, q4_K and q6_K, 8 weight rows per block of 256 threads. The 8 warps split K
   into steps of 256 values (warp w takes steps w, w + 8, ...); within a step lane l takes quarter l % 4 of
   chunk l / 4 (q4_0: 4 bytes, weights 4q .. 4q + 3 and 16 + 4q ..; the others: weights 8q .. 8q + 7), so
   a warp reads 8 consecutive blocks of each row and 1 KB of x in one coalesced pass, and each float4 of x
   feeds the 8 rows. A weight becomes a float without a conversion instruction: its byte placed under the
   exponent of 2^23 (one byte permute) is 2^23 + q, and one subtraction gives q − 8 (q4_0), q − 128 (q8_0,
   stored as q ^ 0x80) or q − 32 (q6_K's 6 bits assembled in the byte). Per block and row the products are summed in f32 (Σ (q − z) · x) and scaled by d
   once (q4_K: d · sc times Σ q · x, minus dmin · m times the lane's Σ x, shared by the 8 rows); the 8 warps' sums meet in shared memory. */
RLX_D float rlx_qb2f(unsigned u, unsigned sel) { return __int_as_float((int)__byte_perm(u, 0x4B000000u, sel)); }
/* f16 bits -> f32 in one instruction where the hardware has it (exact, like rlx_h2f) */
RLX_D float rlx_qh2f_hw(const unsigned char* p) {
#if defined(RLX_HIP)
    return rlx_qh2f(p);
#else
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(*(const unsigned short*)p));
    return f;
#endif
}
/* Σ (q − z) · x over one lane's 8 weights: the 4 bytes of lo (low nibbles or bytes 0..3) against a, of hi
   against b */
RLX_D float rlx_q8dot(unsigned lo, unsigned hi, float4 a, float4 b, float z) {
    float s = (rlx_qb2f(lo, 0x7540u) - z) * a.x;
    s = fmaf(rlx_qb2f(lo, 0x7541u) - z, a.y, s);
    s = fmaf(rlx_qb2f(lo, 0x7542u) - z, a.z, s);
    s = fmaf(rlx_qb2f(lo, 0x7543u) - z, a.w, s);
    s = fmaf(rlx_qb2f(hi, 0x7540u) - z, b.x, s);
    s = fmaf(rlx_qb2f(hi, 0x7541u) - z, b.y, s);
    s = fmaf(rlx_qb2f(hi, 0x7542u) - z, b.z, s);
    return fmaf(rlx_qb2f(hi, 0x7543u) - z, b.w, s);
}
/* Σ (a·q − b) · x over one lane's 8 q4_K weights (each weight as the CPU dequantizes it) */
RLX_D float rlx_q4kdot(unsigned lo, unsigned hi, float4 va, float4 vb, float a, float b) {
    const float x[8] = {va.x, va.y, va.z, va.w, vb.x, vb.y, vb.z, vb.w};
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < 8; i++)
        s = fmaf(__fsub_rn(__fmul_rn(a, (float)(((i < 4 ? lo : hi) >> (8 * (i & 3))) & 15u)), b), x[i], s);
    return s;
}
#define RLX_QG4_R 8   /* weight rows per block */
/* T: 0 q4_0, 1 q8_0, 2 q4_K, 3 q6_K */
template <int T>
RLX_D void rlx_qgemv4_rows(const unsigned char* w, const float* x, float* y, rlx_i64 N, rlx_i64 K, rlx_i64 rb, int vec,
                           float (*part)[RLX_QG4_R]) {
    const int Q8 = T != 0;                       /* 8 weights of a chunk per lane (q8_0, q4_K, q6_K) */
    const int BB = T == 1 ? 34 : 18;             /* bytes per block (q4_0, q8_0) */
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, q = lane & 3;
    const int nch = (int)(K >> 5);
    const int c0 = wid * 8 + (lane >> 2);         /* this lane's first chunk; then every 64th */
    const int qo = 2 + (Q8 ? 8 : 4) * q, xo = (Q8 ? 8 : 4) * q;
    const float z = T == 2 ? 8388608.0f : T == 3 ? 8388640.0f : Q8 ? 8388736.0f : 8388616.0f;   /* 2^23 (+ 32, 128, 8) */
    for (rlx_i64 n0 = (rlx_i64)blockIdx.x * RLX_QG4_R; n0 < N; n0 += (rlx_i64)gridDim.x * RLX_QG4_R) {
        const unsigned char* r0 = w + n0 * rb;
        int rs[RLX_QG4_R];
        float acc[RLX_QG4_R];
#pragma unroll
        for (int r = 0; r < RLX_QG4_R; r++) {
            rs[r] = n0 + r < N ? r * (int)rb : 0;   /* rows past N read row n0 again; not written */
            acc[r] = 0.0f;
        }
#if !defined(RLX_HIP)   /* hipcc cannot honour it here and warns */
#pragma unroll 2
#endif
        for (int c = c0; c < nch; c += 64) {
            const float* xc = x + c * 32 + xo;
            const float4 va = rlx_qx4(xc, vec), vb = rlx_qx4(xc + (Q8 ? 4 : 16), vec);
            if (T == 2) {   /* q4_K: Σ w·x = d·sc · Σ q·x − dmin·m · Σ x over the lane's 8 weights */
                const float sx = ((va.x + va.y) + (va.z + va.w)) + ((vb.x + vb.y) + (vb.z + vb.w));
                const int is = c & 7, sh = (is & 1) * 4;
                const unsigned char* b = r0 + (c >> 3) * 144;
#pragma unroll
                for (int r = 0; r < RLX_QG4_R; r++) {
                    const unsigned char* bl = b + rs[r];
                    const uint2 u = *(const uint2*)(bl + 16 + (is >> 1) * 32 + 8 * q);   /* 8-byte aligned */
                    const unsigned char* sq = bl + 4;
                    int sc, mm;
                    if (is < 4) {
                        sc = sq[is] & 63; mm = sq[is + 4] & 63;
                    } else {
                        sc = (sq[is + 4] & 15) | ((sq[is - 4] >> 6) << 4);
                        mm = (sq[is + 4] >> 4) | ((sq[is] >> 6) << 4);
                    }
                    if (!(fabsf(sx) <= 3.402823466e38f)) {   /* x holds an infinity or NaN (or Σ x overflows): the
                                                                 split form would give inf − inf; Σ w · x itself */
                        acc[r] += rlx_q4kdot((u.x >> sh) & 0x0F0F0F0Fu, (u.y >> sh) & 0x0F0F0F0Fu, va, vb,
                                             __fmul_rn(rlx_qh2f_hw(bl), (float)sc), __fmul_rn(rlx_qh2f_hw(bl + 2), (float)mm));
                        continue;
                    }
                    const float sm = rlx_q8dot((u.x >> sh) & 0x0F0F0F0Fu, (u.y >> sh) & 0x0F0F0F0Fu, va, vb, z);
                    acc[r] = fmaf(__fmul_rn(rlx_qh2f_hw(bl), (float)sc), sm, acc[r]);
                    acc[r] = fmaf(-__fmul_rn(rlx_qh2f_hw(bl + 2), (float)mm), sx, acc[r]);
                }
                continue;
            }
            if (T == 3) {   /* q6_K: chunk c = (half n, quarter qr) of its 256; weights 8q .. 8q + 7 share a scale */
                const int n = (c >> 2) & 1, qr = c & 3, lsh = qr >= 2 ? 4 : 0, hsh = 2 * qr;
                const unsigned char* b = r0 + (c >> 3) * 210;
#pragma unroll
                for (int r = 0; r < RLX_QG4_R; r++) {
                    const unsigned char* bl = b + rs[r];
                    const unsigned char* ql = bl + n * 64 + 32 * (qr & 1) + 8 * q;
                    const unsigned char* qh = bl + 128 + n * 32 + 8 * q;
                    const unsigned l0 = rlx_qu16(ql) | (rlx_qu16(ql + 2) << 16), l1 = rlx_qu16(ql + 4) | (rlx_qu16(ql + 6) << 16);
                    const unsigned h0 = rlx_qu16(qh) | (rlx_qu16(qh + 2) << 16), h1 = rlx_qu16(qh + 4) | (rlx_qu16(qh + 6) << 16);
                    const unsigned v0 = ((l0 >> lsh) & 0x0F0F0F0Fu) | (((h0 >> hsh) & 0x03030303u) << 4);
                    const unsigned v1 = ((l1 >> lsh) & 0x0F0F0F0Fu) | (((h1 >> hsh) & 0x03030303u) << 4);
                    const float sm = rlx_q8dot(v0, v1, va, vb, z);
                    const float sc = __fmul_rn(rlx_qh2f_hw(bl + 208), (float)(signed char)bl[192 + n * 8 + 2 * qr + (q >> 1)]);
                    acc[r] = fmaf(sc, sm, acc[r]);
                }
                continue;
            }
            const unsigned char* b = r0 + c * BB;
#pragma unroll
            for (int r = 0; r < RLX_QG4_R; r++) {
                const unsigned char* bl = b + rs[r];
                const unsigned u = rlx_qu16(bl + qo) | (rlx_qu16(bl + qo + 2) << 16);
                float sm;
                if (Q8) {
                    const unsigned u1 = rlx_qu16(bl + qo + 4) | (rlx_qu16(bl + qo + 6) << 16);
                    sm = rlx_q8dot(u ^ 0x80808080u, u1 ^ 0x80808080u, va, vb, z);
                } else {
                    sm = rlx_q8dot(u & 0x0F0F0F0Fu, (u >> 4) & 0x0F0F0F0Fu, va, vb, z);
                }
                acc[r] = fmaf(rlx_qh2f_hw(bl), sm, acc[r]);
            }
        }
#pragma unroll
        for (int r = 0; r < RLX_QG4_R; r++) {
            float v = acc[r];
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) v += RLX_SHFL_XOR(v, o);
            if (lane == 0) part[wid][r] = v;
        }
        __syncthreads();
        if (threadIdx.x < RLX_QG4_R && n0 + threadIdx.x < N) {
            float v = 0.0f;
#pragma unroll
            for (int i = 0; i < 8; i++) v += part[i][threadIdx.x];
            y[n0 + threadIdx.x] = v;
        }
        __syncthreads();
    }
}
extern "C" __global__ void __launch_bounds__(256) qgemv4(rlx_kargs a) {
    __shared__ float part[8][RLX_QG4_R];
    const float* x = (const float*)a.in[0];
    const int vec = ((unsigned long long)x & 15u) == 0;
    if ((int)a.ia[0] == RLX_DT_Q8_0)
        rlx_qgemv4_rows<1>((const unsigned char*)a.in[1], x, (float*)a.out, a.ia[4], a.ia[5], a.ia[6], vec, part);
    else if ((int)a.ia[0] == RLX_DT_Q4_K)
        rlx_qgemv4_rows<2>((const unsigned char*)a.in[1], x, (float*)a.out, a.ia[4], a.ia[5], a.ia[6], vec, part);
    else if ((int)a.ia[0] == RLX_DT_Q6_K)
        rlx_qgemv4_rows<3>((const unsigned char*)a.in[1], x, (float*)a.out, a.ia[4], a.ia[5], a.ia[6], vec, part);
    else
        rlx_qgemv4_rows<0>((const unsigned char*)a.in[1], x, (float*)a.out, a.ia[4], a.ia[5], a.ia[6], vec, part);
}

#define RLX_QMM_T 64
#define RLX_QMM_BK 16
extern "C" __global__ void __launch_bounds__(256) qgemm(rlx_kargs a) {
    __shared__ float As[RLX_QMM_BK][RLX_QMM_T + 4];
    __shared__ float Bs[RLX_QMM_BK][RLX_QMM_T + 4];
    const int t = (int)a.ia[0];
    const rlx_i64 be = a.ia[1], bb = a.ia[2], M = a.ia[3], N = a.ia[4], K = a.ia[5], rb = a.ia[6];
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4, lc = tid & 15, lr = tid >> 4;
    const rlx_i64 tm = (M + RLX_QMM_T - 1) / RLX_QMM_T, tn = (N + RLX_QMM_T - 1) / RLX_QMM_T;
    const float* x = (const float*)a.in[0];
    const unsigned char* w = (const unsigned char*)a.in[1];
    float* y = (float*)a.out;
    for (rlx_i64 bm = blockIdx.y; bm < tm; bm += gridDim.y)
        for (rlx_i64 bn = blockIdx.x; bn < tn; bn += gridDim.x) {
            const rlx_i64 m0 = bm * RLX_QMM_T, n0 = bn * RLX_QMM_T;
            float acc[4][4];
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] = 0.0f;
            for (rlx_i64 k0 = 0; k0 < K; k0 += RLX_QMM_BK) {
                const rlx_i64 k = k0 + lc;   /* K is a multiple of the block, so of 16: k < K */
#pragma unroll
                for (int i = 0; i < 4; i++) {
                    const rlx_i64 r = m0 + lr + 16 * i, c = n0 + lr + 16 * i;
                    As[lc][lr + 16 * i] = r < M ? x[r * K + k] : 0.0f;
                    Bs[lc][lr + 16 * i] = c < N ? rlx_dq_at(t, w + c * rb, be, bb, k) : 0.0f;
                }
                __syncthreads();
#pragma unroll
                for (int kk = 0; kk < RLX_QMM_BK; kk++) {
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
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const rlx_i64 r = m0 + ty + 16 * i;
                if (r >= M) continue;
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    const rlx_i64 c = n0 + tx + 16 * j;
                    if (c < N) y[r * N + c] = acc[i][j];
                }
            }
        }
}
