/* conv.cu - convolution, transposed convolution, pooling and resize of the CUDA backend (NCHW; 1D ops run as
   2D with H = 1, KH = 1).

   Convolution geometry (ia): 0 N, 1 C, 2 H, 3 W, 4 O, 5 OH, 6 OW, 7 KH, 8 KW, 9 stride h, 10 stride w,
   11 dilation h, 12 dilation w, 13 pad_begin h, 14 pad_begin w, 15 groups, 16 transpose, 17 has bias.
   in: 0 x, 1 w, 2 bias. Weights: conv [O, C/G, KH, KW]; conv_transpose [C, O/G, KH, KW]. Output position
   (oh, ow) under tap (kh, kw) reads input (ih, iw) with ih = oh·s − p + kh·d (conv), or the ih with
   ih·s − p + kh·d = oh (conv_transpose); taps that fall outside the input contribute nothing. f32 accumulates
   in f32 (the CPU's GEMM path), f16/bf16/f64 in double (the CPU's direct path).
*/
#include "common.cuh"

struct rlx_convg {
    rlx_i64 N, C, H, W, O, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw, G, Cg, Og;
    int tr;
    RLX_D void init(const rlx_kargs& a) {
        N = a.ia[0]; C = a.ia[1]; H = a.ia[2]; W = a.ia[3]; O = a.ia[4]; OH = a.ia[5]; OW = a.ia[6];
        KH = a.ia[7]; KW = a.ia[8]; sh = a.ia[9]; sw = a.ia[10]; dh = a.ia[11]; dw = a.ia[12];
        ph = a.ia[13]; pw = a.ia[14]; G = a.ia[15]; tr = (int)a.ia[16];
        Cg = C / G; Og = O / G;
    }
    /* input index along one axis for output o under tap k, or -1 (the CPU's rlx__conv_src) */
    static RLX_D rlx_i64 src(int tr, rlx_i64 o, rlx_i64 k, rlx_i64 s, rlx_i64 d, rlx_i64 p, rlx_i64 n_in) {
        rlx_i64 i;
        if (!tr) {
            i = o * s - p + k * d;
        } else {
            const rlx_i64 t = o + p - k * d;
            if (t < 0 || t % s) return -1;
            i = t / s;
        }
        return i >= 0 && i < n_in ? i : -1;
    }
    /* weight offset of output channel o (global), group input channel ci, tap (kh, kw) */
    RLX_D rlx_i64 widx(rlx_i64 o, rlx_i64 ci, rlx_i64 kh, rlx_i64 kw) const {
        const rlx_i64 g = o / Og;
        const rlx_i64 plane = tr ? (g * Cg + ci) * Og + (o - g * Og) : o * Cg + ci;
        return (plane * KH + kh) * KW + kw;
    }
};

/* accumulator: f32 for f32, double otherwise */
template <int DT> struct rlx_conv_acc { typedef double A; };
template <> struct rlx_conv_acc<RLX_DT_F32> { typedef float A; };

/* conv_direct: one thread per output element (n, o, oh, ow), summing over the group's input channels and the
   taps. Used for few output channels per group (depthwise convolutions) and small reductions. */
template <int DT>
RLX_D void rlx_conv_direct_body(const rlx_kargs& a) {
    typedef rlx_dt<DT> T;
    typedef typename rlx_conv_acc<DT>::A ACC;
    rlx_convg v;
    v.init(a);
    const void* x = (const void*)a.in[0];
    const void* w = (const void*)a.in[1];
    const void* bias = a.ia[17] ? (const void*)a.in[2] : 0;
    RLX_GRID_LOOP(idx, a.n) {
        const rlx_i64 ow = idx % v.OW, oh = (idx / v.OW) % v.OH, o = (idx / (v.OW * v.OH)) % v.O;
        const rlx_i64 n = idx / (v.OW * v.OH * v.O), g = o / v.Og;
        ACC acc = ACC(0);
        for (rlx_i64 ci = 0; ci < v.Cg; ci++) {
            const rlx_i64 xplane = (n * v.C + g * v.Cg + ci) * v.H;
            for (rlx_i64 kh = 0; kh < v.KH; kh++) {
                const rlx_i64 ih = rlx_convg::src(v.tr, oh, kh, v.sh, v.dh, v.ph, v.H);
                if (ih < 0) continue;
                for (rlx_i64 kw = 0; kw < v.KW; kw++) {
                    const rlx_i64 iw = rlx_convg::src(v.tr, ow, kw, v.sw, v.dw, v.pw, v.W);
                    if (iw < 0) continue;
                    acc += (ACC)T::ld(x, (xplane + ih) * v.W + iw) * (ACC)T::ld(w, v.widx(o, ci, kh, kw));
                }
            }
        }
        if (bias) acc += (ACC)T::ld(bias, o);
        T::st((void*)a.out, idx, (typename T::C)acc);
    }
}
extern "C" __global__ void conv_direct(rlx_kargs a) { RLX_SWITCH_FLOAT(a.dt_out, rlx_conv_direct_body, a) }

/* conv_gemm: implicit GEMM per group g: C[m][p] = Σ_k A[m][k] · B[k][p] with m an output channel of the group,
   p = (n, oh, ow) an output pixel and k = (ci, kh, kw); A is the weight, B the input gathered on the fly
   (zero outside). 64x64 tiles, k-steps of 16, 256 threads with 4x4 outputs each (the matmul_f32 scheme).
   Grid: x over pixel tiles, y over channel tiles, z over groups (all grid-stride). */
#define RLX_CG_BM 64
#define RLX_CG_BN 64
#define RLX_CG_BK 16
template <int DT>
RLX_D void rlx_conv_gemm_body(const rlx_kargs& a, double* smem) {
    typedef rlx_dt<DT> T;
    typedef typename rlx_conv_acc<DT>::A ACC;
    ACC (*As)[RLX_CG_BM + 1] = (ACC (*)[RLX_CG_BM + 1])smem;
    ACC (*Bs)[RLX_CG_BN + 1] = (ACC (*)[RLX_CG_BN + 1])(smem + RLX_CG_BK * (RLX_CG_BM + 1));
    rlx_convg v;
    v.init(a);
    const void* x = (const void*)a.in[0];
    const void* w = (const void*)a.in[1];
    const void* bias = a.ia[17] ? (const void*)a.in[2] : 0;
    const rlx_i64 KHW = v.KH * v.KW, Kd = v.Cg * KHW, OHW = v.OH * v.OW, NP = v.N * OHW;
    const rlx_i64 tm = (v.Og + RLX_CG_BM - 1) / RLX_CG_BM, tn = (NP + RLX_CG_BN - 1) / RLX_CG_BN;
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    const int ac = tid & 15, ar = tid >> 4, bc = tid & 63, br = tid >> 6;
    for (rlx_i64 g = blockIdx.z; g < v.G; g += gridDim.z)
        for (rlx_i64 bm = blockIdx.y; bm < tm; bm += gridDim.y)
            for (rlx_i64 bn = blockIdx.x; bn < tn; bn += gridDim.x) {
                const rlx_i64 m0 = bm * RLX_CG_BM, n0 = bn * RLX_CG_BN;
                /* this thread's B column (pixel) is fixed for the whole k loop */
                const rlx_i64 p = n0 + bc, pn = p / OHW, poh = (p % OHW) / v.OW, pow_ = p % v.OW;
                ACC acc[4][4];
#pragma unroll
                for (int i = 0; i < 4; i++)
#pragma unroll
                    for (int j = 0; j < 4; j++) acc[i][j] = ACC(0);
                for (rlx_i64 k0 = 0; k0 < Kd; k0 += RLX_CG_BK) {
#pragma unroll
                    for (int i = 0; i < 4; i++) {
                        const rlx_i64 m = m0 + ar + 16 * i, k = k0 + ac;
                        ACC av = ACC(0);
                        if (m < v.Og && k < Kd) {
                            const rlx_i64 ci = k / KHW, r = k - ci * KHW;
                            av = (ACC)T::ld(w, v.widx(g * v.Og + m, ci, r / v.KW, r % v.KW));
                        }
                        As[ac][ar + 16 * i] = av;
                        const rlx_i64 kb = k0 + br + 4 * i;
                        ACC bv = ACC(0);
                        if (kb < Kd && p < NP) {
                            const rlx_i64 ci = kb / KHW, r = kb - ci * KHW, kh = r / v.KW, kw = r - kh * v.KW;
                            const rlx_i64 ih = rlx_convg::src(v.tr, poh, kh, v.sh, v.dh, v.ph, v.H);
                            const rlx_i64 iw = rlx_convg::src(v.tr, pow_, kw, v.sw, v.dw, v.pw, v.W);
                            if (ih >= 0 && iw >= 0) bv = (ACC)T::ld(x, ((pn * v.C + g * v.Cg + ci) * v.H + ih) * v.W + iw);
                        }
                        Bs[br + 4 * i][bc] = bv;
                    }
                    __syncthreads();
#pragma unroll
                    for (int kk = 0; kk < RLX_CG_BK; kk++) {
                        ACC av[4], bv[4];
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
                    const rlx_i64 m = m0 + ty + 16 * i;
                    if (m >= v.Og) continue;
                    const rlx_i64 o = g * v.Og + m;
#pragma unroll
                    for (int j = 0; j < 4; j++) {
                        const rlx_i64 q = n0 + tx + 16 * j;
                        if (q >= NP) continue;
                        const rlx_i64 qn = q / OHW, qr = q - qn * OHW;
                        ACC r = acc[i][j];
                        if (bias) r += (ACC)T::ld(bias, o);
                        T::st((void*)a.out, (qn * v.O + o) * OHW + qr, (typename T::C)r);
                    }
                }
            }
}
extern "C" __global__ void __launch_bounds__(256) conv_gemm(rlx_kargs a) {
    __shared__ double smem[RLX_CG_BK * (RLX_CG_BM + 1) + RLX_CG_BK * (RLX_CG_BN + 1)]; /* A and B tiles */
    RLX_SWITCH_FLOAT(a.dt_out, rlx_conv_gemm_body, a, smem)
}

/* pool: one thread per output (plane, oh, ow) of x planes [H, W]. Max ignores the padding and propagates NaN;
   average divides by KH·KW with count_include_pad, else by the real elements of the window. Double math for
   every dtype (the CPU's rule). ia: 0 planes, 1 H, 2 W, 3 OH, 4 OW, 5 KH, 6 KW, 7 stride h, 8 stride w,
   9 pad h, 10 pad w, 11 max?, 12 count_include_pad. */
extern "C" __global__ void pool(rlx_kargs a) {
    const void* x = (const void*)a.in[0];
    const int dt = a.dt_out, ismax = (int)a.ia[11], incl = (int)a.ia[12];
    const rlx_i64 H = a.ia[1], W = a.ia[2], OH = a.ia[3], OW = a.ia[4], KH = a.ia[5], KW = a.ia[6];
    const rlx_i64 sh = a.ia[7], sw = a.ia[8], ph = a.ia[9], pw = a.ia[10];
    RLX_GRID_LOOP(idx, a.n) {
        const rlx_i64 ow = idx % OW, oh = (idx / OW) % OH, u = idx / (OW * OH), xo = u * H * W;
        rlx_i64 h0 = oh * sh - ph, h1 = h0 + KH < H ? h0 + KH : H, w0 = ow * sw - pw, w1 = w0 + KW < W ? w0 + KW : W;
        h0 = h0 > 0 ? h0 : 0;
        w0 = w0 > 0 ? w0 : 0;
        double acc = ismax ? -rlx_inf_d() : 0.0;
        for (rlx_i64 ih = h0; ih < h1; ih++)
            for (rlx_i64 iw = w0; iw < w1; iw++) {
                const double e = rlx_ld_d(x, dt, xo + ih * W + iw);
                if (!ismax) acc += e;
                else if (e > acc || e != e) acc = e;
            }
        if (!ismax) acc /= (double)(incl ? KH * KW : (h1 - h0) * (w1 - w0));
        rlx_st_from_d((void*)a.out, dt, idx, acc);
    }
}

/* resize: one thread per output (plane, oh, ow) of [H, W] planes to [OH, OW]. nearest: source floor(d·in/out)
   in integers; bilinear: source (d + 0.5)·in/out − 0.5 (half-pixel) or d·(in−1)/(out−1) (align_corners),
   clamped to [0, in − 1], blended in double. ia: 0 planes, 1 H, 2 W, 3 OH, 4 OW, 5 bilinear?, 6 align. */
RLX_D void rlx_rs_coord(rlx_i64 d, rlx_i64 in, rlx_i64 out, int align, rlx_i64* i0, rlx_i64* i1, double* t) {
    double s;
    if (align) s = out > 1 ? (double)d * (double)(in - 1) / (double)(out - 1) : 0.0;
    else s = ((double)d + 0.5) * (double)in / (double)out - 0.5;
    if (s < 0.0) s = 0.0;
    if (s > (double)(in - 1)) s = (double)(in - 1);
    *i0 = (rlx_i64)s;
    *i1 = *i0 + 1 < in - 1 ? *i0 + 1 : in - 1;
    *t = s - (double)*i0;
}
extern "C" __global__ void resize(rlx_kargs a) {
    const void* x = (const void*)a.in[0];
    const int dt = a.dt_out, bil = (int)a.ia[5], align = (int)a.ia[6];
    const rlx_i64 H = a.ia[1], W = a.ia[2], OH = a.ia[3], OW = a.ia[4];
    RLX_GRID_LOOP(idx, a.n) {
        const rlx_i64 ow = idx % OW, oh = (idx / OW) % OH, u = idx / (OW * OH), xo = u * H * W;
        double r;
        if (bil) {
            rlx_i64 h0, h1, w0, w1;
            double th, tw;
            rlx_rs_coord(oh, H, OH, align, &h0, &h1, &th);
            rlx_rs_coord(ow, W, OW, align, &w0, &w1, &tw);
            const double p = rlx_dmul_rn(rlx_ld_d(x, dt, xo + h0 * W + w0), 1.0 - tw) + rlx_dmul_rn(rlx_ld_d(x, dt, xo + h0 * W + w1), tw);
            const double q = rlx_dmul_rn(rlx_ld_d(x, dt, xo + h1 * W + w0), 1.0 - tw) + rlx_dmul_rn(rlx_ld_d(x, dt, xo + h1 * W + w1), tw);
            r = rlx_dmul_rn(p, 1.0 - th) + rlx_dmul_rn(q, th);
        } else {
            r = rlx_ld_d(x, dt, xo + (oh * H / OH) * W + ow * W / OW);
        }
        rlx_st_from_d((void*)a.out, dt, idx, r);
    }
}
