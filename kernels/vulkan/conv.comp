#version 460
// kernels: conv_direct conv_gemm pool resize
/* conv.comp - convolution, transposed convolution, pooling and resize of the Vulkan backend (port of
   kernels/cuda/conv.cu; NCHW; 1D ops run as 2D with H = 1, KH = 1).

   Convolution geometry (ia): 0 N, 1 C, 2 H, 3 W, 4 O, 5 OH, 6 OW, 7 KH, 8 KW, 9 stride h, 10 stride w,
   11 dilation h, 12 dilation w, 13 pad_begin h, 14 pad_begin w, 15 groups, 16 transpose, 17 has bias.
   in: 0 x, 1 w, 2 bias. Weights: conv [O, C/G, KH, KW]; conv_transpose [C, O/G, KH, KW]. Output position
   (oh, ow) under tap (kh, kw) reads input (ih, iw) with ih = oh·s − p + kh·d (conv), or the ih with
   ih·s − p + kh·d = oh (conv_transpose); taps that fall outside the input contribute nothing. f32 accumulates
   in f32 (the CPU's GEMM path), f16/bf16/f64 in double (the CPU's direct path).
*/
#include "common.glsl"
#extension GL_EXT_control_flow_attributes : require

/* a / b for a >= 0, b > 0, in 32-bit arithmetic whenever both operands fit */
int64_t cv_div(int64_t a, int64_t b) {
    if ((a | b) <= int64_t(0x7FFFFFFF)) return int64_t(uint(a) / uint(b));
    return a / b;
}

/* convolution geometry (the ia[] fields above); Cg, Og: input / output channels per group */
struct CvGeo {
    int64_t N, C, H, W, O, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw, G, Cg, Og;
    int tr;
};
CvGeo cv_geo(RlxArgs a) {
    CvGeo v;
    v.N = a.ia[0]; v.C = a.ia[1]; v.H = a.ia[2]; v.W = a.ia[3]; v.O = a.ia[4]; v.OH = a.ia[5]; v.OW = a.ia[6];
    v.KH = a.ia[7]; v.KW = a.ia[8]; v.sh = a.ia[9]; v.sw = a.ia[10]; v.dh = a.ia[11]; v.dw = a.ia[12];
    v.ph = a.ia[13]; v.pw = a.ia[14]; v.G = a.ia[15]; v.tr = int(a.ia[16]);
    v.Cg = v.C / v.G; v.Og = v.O / v.G;
    return v;
}
/* input index along one axis for output o under tap k, or -1 (the CPU's rlx__conv_src) */
int64_t cv_src(int tr, int64_t o, int64_t k, int64_t s, int64_t d, int64_t p, int64_t n_in) {
    int64_t i;
    if (tr == 0) {
        i = o * s - p + k * d;
    } else {
        const int64_t t = o + p - k * d;
        if (t < 0) return -1;
        i = cv_div(t, s);
        if (i * s != t) return -1;
    }
    return i >= 0 && i < n_in ? i : -1;
}
/* weight offset of output channel o (global), group input channel ci, tap (kh, kw) */
int64_t cv_widx(CvGeo v, int64_t o, int64_t ci, int64_t kh, int64_t kw) {
    const int64_t g = cv_div(o, v.Og);
    const int64_t plane = v.tr != 0 ? (g * v.Cg + ci) * v.Og + (o - g * v.Og) : o * v.Cg + ci;
    return (plane * v.KH + kh) * v.KW + kw;
}

#if defined(RLX_K_conv_direct)
/* ---- conv_direct: one thread per output element (n, o, oh, ow) (grid-stride over a.n), summing over the
   group's input channels and the taps. Used for few output channels per group (depthwise convolutions) and
   small reductions. f32 accumulates in float, f16/bf16/f64 in double (f16/bf16 stored through float, as the
   CUDA kernel's T::st does). --------------------------------------------------------------------------------- */
void main() {
    RlxArgs a = rlx_pc.a;
    const CvGeo v = cv_geo(a);
    const uint64_t x = a.in_[0], w = a.in_[1], bias = a.in_[2];
    const bool hasb = a.ia[17] != 0;
    const int dt = a.dt_out;
    const bool f32 = dt == RLX_DT_F32;
    RLX_GRID_LOOP(idx, a.n) {
        const int64_t q = cv_div(idx, v.OW), ow = idx - q * v.OW;
        const int64_t q2 = cv_div(q, v.OH), oh = q - q2 * v.OH;
        const int64_t n = cv_div(q2, v.O), o = q2 - n * v.O, g = cv_div(o, v.Og);
        float accf = 0.0;
        double accd = 0.0lf;
        for (int64_t ci = 0; ci < v.Cg; ci++) {
            const int64_t xplane = (n * v.C + g * v.Cg + ci) * v.H;
            for (int64_t kh = 0; kh < v.KH; kh++) {
                const int64_t ih = cv_src(v.tr, oh, kh, v.sh, v.dh, v.ph, v.H);
                if (ih < 0) continue;
                for (int64_t kw = 0; kw < v.KW; kw++) {
                    const int64_t iw = cv_src(v.tr, ow, kw, v.sw, v.dw, v.pw, v.W);
                    if (iw < 0) continue;
                    const int64_t xi = (xplane + ih) * v.W + iw, wi = cv_widx(v, o, ci, kh, kw);
                    if (f32) accf += rlx_f32(x, xi) * rlx_f32(w, wi);
                    else accd += rlx_ld_d(x, dt, xi) * rlx_ld_d(w, dt, wi);
                }
            }
        }
        if (f32) {
            if (hasb) accf += rlx_f32(bias, o);
            rlx_f32(a.out_, idx) = accf;
        } else {
            if (hasb) accd += rlx_ld_d(bias, dt, o);
            if (dt == RLX_DT_F64) rlx_f64(a.out_, idx) = accd;
            else rlx_st_from_f(a.out_, dt, idx, float(accd));
        }
    }
}
#endif

#if defined(RLX_K_conv_gemm)
/* ---- conv_gemm: implicit GEMM per group g: C[m][p] = Σ_k A[m][k] · B[k][p] with m an output channel of the
   group, p = (n, oh, ow) an output pixel and k = (ci, kh, kw); A is the weight, B the input gathered on the fly
   (zero outside). 64x64 tiles, k-steps of 16, 256 threads each computing a 4x4 block (channels 4·ty + i,
   pixels 4·tx + j with tx = tid % 16, ty = tid / 16), every output adding its products in k order.
   Grid: x over pixel tiles, y over channel tiles, z over groups (all grid-stride).

   Shared memory: 16 KiB as uvec4, holding the A tile transposed ([k][m], m in groups of 4 XOR-swizzled with
   cg_swz(k) against bank conflicts of the transposing stores) and the B tile ([k][p]) as bits of the
   accumulator type: float for f32 (A in uvec4 0..255, B in 256..511), double otherwise (A in 0..511, B in
   512..1023). A thread reads its 4 channels and its 4 pixels of a k row as vectors.
   Loaders: thread tid fetches the weights of channel m0 + tid / 4 at k = k0 + 4·(tid % 4) .. +3 and the input
   of pixel n0 + tid % 64 at k = k0 + 4·(tid / 64) .. +3; the next k-step is fetched into registers while the
   current one is multiplied. ------------------------------------------------------------------------------- */
#define CG_BM 64
#define CG_BN 64
#define CG_BK 16
shared uvec4 cg_sm[1024];

int cg_swz(int k) { return (k >> 2) << 1; }

/* (ci, kh, kw) of reduction index k, and the step to k + 1 */
void cg_split(CvGeo v, int64_t k, out int64_t ci, out int64_t kh, out int64_t kw) {
    const int64_t KHW = v.KH * v.KW;
    ci = cv_div(k, KHW);
    const int64_t r = k - ci * KHW;
    kh = cv_div(r, v.KW);
    kw = r - kh * v.KW;
}
void cg_next(CvGeo v, inout int64_t ci, inout int64_t kh, inout int64_t kw) {
    if (++kw == v.KW) {
        kw = 0;
        if (++kh == v.KH) { kh = 0; ci++; }
    }
}

/* Element offsets of this thread's loads of the k-step at k0 (-1: zero). wi: weights of channel m (group
   local) at k0 + ak + c; xi: input of pixel (pn, poh, pow) (valid: pv) at k0 + bk + c. */
void cg_indices(CvGeo v, int64_t g, int64_t Kd, int64_t k0, int64_t m, int ak, bool pv, int64_t pn, int64_t poh,
                int64_t pw_, int bk, out int64_t wi[4], out int64_t xi[4]) {
    int64_t ci, kh, kw;
    int64_t k = k0 + ak;
    if (v.tr == 0) {   /* conv weights [O, Cg·KH·KW]: row o of the GEMM's A is contiguous */
        const int64_t wrow = (g * v.Og + m) * Kd + k;
        [[unroll]] for (int c = 0; c < 4; c++) wi[c] = (m < v.Og && k + c < Kd) ? wrow + c : -1;
    } else {
        cg_split(v, k, ci, kh, kw);
        [[unroll]] for (int c = 0; c < 4; c++) {
            wi[c] = (m < v.Og && k + c < Kd) ? cv_widx(v, g * v.Og + m, ci, kh, kw) : -1;
            cg_next(v, ci, kh, kw);
        }
    }
    k = k0 + bk;
    cg_split(v, k, ci, kh, kw);
    [[unroll]] for (int c = 0; c < 4; c++) {
        xi[c] = -1;
        if (pv && k + c < Kd) {
            const int64_t ih = cv_src(v.tr, poh, kh, v.sh, v.dh, v.ph, v.H);
            const int64_t iw = cv_src(v.tr, pw_, kw, v.sw, v.dw, v.pw, v.W);
            if (ih >= 0 && iw >= 0) xi[c] = ((pn * v.C + g * v.Cg + ci) * v.H + ih) * v.W + iw;
        }
        cg_next(v, ci, kh, kw);
    }
}

/* typed access: loads from device memory, shared stores of element (k, m) of A / (k, p) of B, shared reads
   of 4 consecutive m / p of row k, bias, output store */
float cg_ld_f(uint64_t p, int dt, int64_t i) { return rlx_f32(p, i); }
double cg_ld_d(uint64_t p, int dt, int64_t i) { return rlx_ld_d(p, dt, i); }
void cg_sha_f(int k, int m, float x) { cg_sm[k * 16 + ((m >> 2) ^ cg_swz(k))][m & 3] = floatBitsToUint(x); }
void cg_shb_f(int k, int p, float x) { cg_sm[256 + k * 16 + (p >> 2)][p & 3] = floatBitsToUint(x); }
vec4 cg_rda_f(int k, int g) { return uintBitsToFloat(cg_sm[k * 16 + (g ^ cg_swz(k))]); }
vec4 cg_rdb_f(int k, int g) { return uintBitsToFloat(cg_sm[256 + k * 16 + g]); }
void cg_sh_d(int e, double x) { /* double element e of the uvec4 array */
    if ((e & 1) == 0) cg_sm[e >> 1].xy = unpackDouble2x32(x);
    else cg_sm[e >> 1].zw = unpackDouble2x32(x);
}
void cg_sha_d(int k, int m, double x) { cg_sh_d(k * 64 + (((m >> 2) ^ cg_swz(k)) << 2) + (m & 3), x); }
void cg_shb_d(int k, int p, double x) { cg_sh_d(2048 + k * 64 + p, x); }
dvec4 cg_rd_d(int i) {
    const uvec4 u0 = cg_sm[i], u1 = cg_sm[i + 1];
    return dvec4(packDouble2x32(u0.xy), packDouble2x32(u0.zw), packDouble2x32(u1.xy), packDouble2x32(u1.zw));
}
dvec4 cg_rda_d(int k, int g) { return cg_rd_d(k * 32 + ((g ^ cg_swz(k)) << 1)); }
dvec4 cg_rdb_d(int k, int g) { return cg_rd_d(1024 + k * 32 + (g << 1)); }
void cg_st_f(uint64_t p, int dt, int64_t i, float x) { rlx_f32(p, i) = x; }
void cg_st_d(uint64_t p, int dt, int64_t i, double x) {
    if (dt == RLX_DT_F64) rlx_f64(p, i) = x;
    else rlx_st_from_f(p, dt, i, float(x));
}

/* The tile loop for accumulator type ACC (suffix S of the typed access functions, 4-vector VEC). */
#define CG_BODY(S, ACC, VEC)                                                                                        \
    void cg_body_##S() {                                                                                            \
        RlxArgs a = rlx_pc.a;                                                                                       \
        const CvGeo v = cv_geo(a);                                                                                  \
        const uint64_t x = a.in_[0], w = a.in_[1], bias = a.in_[2];                                                 \
        const bool hasb = a.ia[17] != 0;                                                                            \
        const int dt = a.dt_out;                                                                                    \
        const int64_t Kd = v.Cg * v.KH * v.KW, OHW = v.OH * v.OW, NP = v.N * OHW;                                   \
        const int64_t tm = (v.Og + CG_BM - 1) / CG_BM, tn = (NP + CG_BN - 1) / CG_BN;                               \
        const int tid = int(gl_LocalInvocationID.x), tx = tid & 15, ty = tid >> 4;                                  \
        const int ar = tid >> 2, ak = (tid & 3) * 4, bp = tid & 63, bk = (tid >> 6) * 4;                            \
        for (int64_t g = gl_WorkGroupID.z; g < v.G; g += gl_NumWorkGroups.z)                                        \
            for (int64_t bm = gl_WorkGroupID.y; bm < tm; bm += gl_NumWorkGroups.y)                                  \
                for (int64_t bn = gl_WorkGroupID.x; bn < tn; bn += gl_NumWorkGroups.x) {                            \
                    const int64_t m0 = bm * CG_BM, n0 = bn * CG_BN;                                                 \
                    /* this thread's B pixel is fixed for the whole k loop */                                       \
                    const int64_t p = n0 + bp, pn = cv_div(p, OHW), pr = p - pn * OHW;                              \
                    const int64_t poh = cv_div(pr, v.OW), pw_ = pr - poh * v.OW;                                    \
                    VEC acc[4] = VEC[4](VEC(0), VEC(0), VEC(0), VEC(0));                                            \
                    ACC ra[4], rb[4];                                                                               \
                    int64_t wi[4], xi[4];                                                                           \
                    cg_indices(v, g, Kd, 0, m0 + ar, ak, p < NP, pn, poh, pw_, bk, wi, xi);                         \
                    [[unroll]] for (int c = 0; c < 4; c++) {                                                        \
                        ra[c] = ACC(0);                                                                             \
                        rb[c] = ACC(0);                                                                             \
                        if (wi[c] >= 0) ra[c] = cg_ld_##S(w, dt, wi[c]);                                            \
                        if (xi[c] >= 0) rb[c] = cg_ld_##S(x, dt, xi[c]);                                            \
                    }                                                                                               \
                    for (int64_t k0 = 0; k0 < Kd; k0 += CG_BK) {                                                    \
                        [[unroll]] for (int c = 0; c < 4; c++) {                                                    \
                            cg_sha_##S(ak + c, ar, ra[c]);                                                          \
                            cg_shb_##S(bk + c, bp, rb[c]);                                                          \
                        }                                                                                           \
                        barrier();                                                                                  \
                        if (k0 + CG_BK < Kd) {                                                                      \
                            cg_indices(v, g, Kd, k0 + CG_BK, m0 + ar, ak, p < NP, pn, poh, pw_, bk, wi, xi);        \
                            [[unroll]] for (int c = 0; c < 4; c++) {                                                \
                                ra[c] = ACC(0);                                                                     \
                                rb[c] = ACC(0);                                                                     \
                                if (wi[c] >= 0) ra[c] = cg_ld_##S(w, dt, wi[c]);                                    \
                                if (xi[c] >= 0) rb[c] = cg_ld_##S(x, dt, xi[c]);                                    \
                            }                                                                                       \
                        }                                                                                           \
                        [[unroll]] for (int kk = 0; kk < CG_BK; kk++) {                                             \
                            const VEC av = cg_rda_##S(kk, ty), bv = cg_rdb_##S(kk, tx);                             \
                            acc[0] += av.x * bv;                                                                    \
                            acc[1] += av.y * bv;                                                                    \
                            acc[2] += av.z * bv;                                                                    \
                            acc[3] += av.w * bv;                                                                    \
                        }                                                                                           \
                        barrier();                                                                                  \
                    }                                                                                               \
                    /* output offsets of this thread's 4 pixels (-1: outside) */                                    \
                    int64_t qo[4];                                                                                  \
                    [[unroll]] for (int j = 0; j < 4; j++) {                                                        \
                        const int64_t q = n0 + tx * 4 + j, qn = cv_div(q, OHW);                                     \
                        qo[j] = q < NP ? qn * v.O * OHW + (q - qn * OHW) : -1;                                      \
                    }                                                                                               \
                    [[unroll]] for (int i = 0; i < 4; i++) {                                                        \
                        const int64_t m = m0 + ty * 4 + i;                                                          \
                        if (m >= v.Og) continue;                                                                    \
                        const int64_t o = g * v.Og + m;                                                             \
                        ACC bo = ACC(0);                                                                            \
                        if (hasb) bo = cg_ld_##S(bias, dt, o);                                                      \
                        [[unroll]] for (int j = 0; j < 4; j++) {                                                    \
                            if (qo[j] < 0) continue;                                                                \
                            ACC r = acc[i][j];                                                                      \
                            if (hasb) r += bo;                                                                      \
                            cg_st_##S(a.out_, dt, qo[j] + o * OHW, r);                                              \
                        }                                                                                           \
                    }                                                                                               \
                }                                                                                                   \
    }

CG_BODY(f, float, vec4)
CG_BODY(d, double, dvec4)

void main() {
    if (rlx_pc.a.dt_out == RLX_DT_F32) cg_body_f();
    else cg_body_d();
}
#endif

#if defined(RLX_K_pool)
/* ---- pool: one thread per output (plane, oh, ow) of x planes [H, W] (grid-stride over a.n). Max ignores the
   padding and propagates NaN; average divides by KH·KW with count_include_pad, else by the real elements of
   the window. Double math for every dtype (the CPU's rule). ia: 0 planes, 1 H, 2 W, 3 OH, 4 OW, 5 KH, 6 KW,
   7 stride h, 8 stride w, 9 pad h, 10 pad w, 11 max?, 12 count_include_pad. ---------------------------------- */
void main() {
    RlxArgs a = rlx_pc.a;
    const uint64_t x = a.in_[0];
    const int dt = a.dt_out;
    const bool ismax = a.ia[11] != 0, incl = a.ia[12] != 0;
    const int64_t H = a.ia[1], W = a.ia[2], OH = a.ia[3], OW = a.ia[4], KH = a.ia[5], KW = a.ia[6];
    const int64_t sh = a.ia[7], sw = a.ia[8], ph = a.ia[9], pw = a.ia[10];
    RLX_GRID_LOOP(idx, a.n) {
        const int64_t q = cv_div(idx, OW), ow = idx - q * OW;
        const int64_t u = cv_div(q, OH), oh = q - u * OH, xo = u * H * W;
        int64_t h0 = oh * sh - ph, w0 = ow * sw - pw;
        const int64_t h1 = min(h0 + KH, H), w1 = min(w0 + KW, W);
        h0 = max(h0, int64_t(0));
        w0 = max(w0, int64_t(0));
        double acc = ismax ? -rlx_inf_d() : 0.0lf;
        for (int64_t ih = h0; ih < h1; ih++)
            for (int64_t iw = w0; iw < w1; iw++) {
                const double e = rlx_ld_d(x, dt, xo + ih * W + iw);
                if (!ismax) acc += e;
                else if (e > acc || isnan(e)) acc = e;
            }
        if (!ismax) acc /= double(incl ? KH * KW : (h1 - h0) * (w1 - w0));
        rlx_st_from_d(a.out_, dt, idx, acc);
    }
}
#endif

#if defined(RLX_K_resize)
/* ---- resize: one thread per output (plane, oh, ow) of [H, W] planes to [OH, OW] (grid-stride over a.n).
   nearest: source floor(d·in/out) in integers; bilinear: source (d + 0.5)·in/out − 0.5 (half-pixel) or
   d·(in−1)/(out−1) (align_corners), clamped to [0, in − 1], blended in double with rounded products.
   ia: 0 planes, 1 H, 2 W, 3 OH, 4 OW, 5 bilinear?, 6 align. ----------------------------------------------- */
void rs_coord(int64_t d, int64_t n_in, int64_t n_out, bool align, out int64_t i0, out int64_t i1, out double t) {
    double s;
    if (align) s = n_out > 1 ? double(d) * double(n_in - 1) / double(n_out - 1) : 0.0lf;
    else s = (double(d) + 0.5lf) * double(n_in) / double(n_out) - 0.5lf;
    if (s < 0.0lf) s = 0.0lf;
    if (s > double(n_in - 1)) s = double(n_in - 1);
    i0 = int64_t(s);
    i1 = i0 + 1 < n_in - 1 ? i0 + 1 : n_in - 1;
    t = s - double(i0);
}
void main() {
    RlxArgs a = rlx_pc.a;
    const uint64_t x = a.in_[0];
    const int dt = a.dt_out;
    const bool bil = a.ia[5] != 0, align = a.ia[6] != 0;
    const int64_t H = a.ia[1], W = a.ia[2], OH = a.ia[3], OW = a.ia[4];
    RLX_GRID_LOOP(idx, a.n) {
        const int64_t q = cv_div(idx, OW), ow = idx - q * OW;
        const int64_t u = cv_div(q, OH), oh = q - u * OH, xo = u * H * W;
        double r;
        if (bil) {
            int64_t h0, h1, w0, w1;
            double th, tw;
            rs_coord(oh, H, OH, align, h0, h1, th);
            rs_coord(ow, W, OW, align, w0, w1, tw);
            const double x00 = rlx_ld_d(x, dt, xo + h0 * W + w0), x01 = rlx_ld_d(x, dt, xo + h0 * W + w1);
            const double x10 = rlx_ld_d(x, dt, xo + h1 * W + w0), x11 = rlx_ld_d(x, dt, xo + h1 * W + w1);
            precise const double p = x00 * (1.0lf - tw) + x01 * tw;
            precise const double pq = x10 * (1.0lf - tw) + x11 * tw;
            precise const double pr = p * (1.0lf - th) + pq * th;
            r = pr;
        } else {
            r = rlx_ld_d(x, dt, xo + cv_div(oh * H, OH) * W + cv_div(ow * W, OW));
        }
        rlx_st_from_d(a.out_, dt, idx, r);
    }
}
#endif
