/* Conv epilogues (>>convepi): an f32 conv whose only reader is elementwise (a fused_ew, a unary op, or a binary op
   with a single value or one value per output channel) takes that reader into its CPU kernel.
   Oracle: a float64 convolution and epilogue written here. Also checked: the fused CPU program has one step
   where the whole chain was absorbed (and more where it must not be: a conv that is also an output, a reader
   needing a per-width operand), its results are bit for bit those of the unfused program (RLX_COMPILE_NO_FUSION),
   1 and 2 threads, every conv kernel path (GEMM with im2col into packed panels, over several K blocks and pixel
   chunks, the wide form of stride-1 convs, 1x1 without it, depthwise, grouped, conv_transpose), and Vulkan
   (where available) gives the reference too, with the readers left as separate steps. */
#include <stdlib.h>
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

/* what follows the conv */
enum { CH_BN_HSWISH = 1, CH_RELU, CH_SIGMOID, CH_BN3_RELU, CH_SE_TANH, CH_OUT_TOO, CH_WIDTH_OP, CH_LONG, CH_FORMS };

typedef struct ecase {
    const char* name;
    int N, C, H, W, O, K, stride, pad, groups, bias, chain;
    int transpose;   /* conv_transpose (weight [C, O / groups, K, K]) */
} ecase;

static int64_t out_hw(int in, const ecase* c) {
    return c->transpose ? (int64_t)(in - 1) * c->stride - 2 * c->pad + c->K : (in + 2 * c->pad - c->K) / c->stride + 1;
}

static float* rnd(int64_t n, double scale) {
    float* v = (float*)malloc(sizeof(float) * (size_t)n);
    int64_t i;
    for (i = 0; i < n; i++) v[i] = (float)(th_uniform(-1.0, 1.0) * scale);
    return v;
}

static double hswish(double v) { double t = v * (1.0 / 6.0) + 0.5; return v * (t < 0 ? 0 : t > 1 ? 1 : t); }

/* CH_FORMS: twelve instructions that reach every operand form of the AVX2 register epilogue (the accumulator,
   constants and saved results on either side, the conv result read again, NaN from sqrt through max and min,
   infinities from rsqrt of 0). NaN propagates through max and min as in rlx. */
static double forms(double y) {
    double a = y * 1.5, b = 2.0 / a, d = sqrt(y - b), e, f, t, q;
    e = (d != d) ? d : (d > a ? d : a);
    f = (e != e) ? e : (0.75 < e ? 0.75 : e);
    t = fabs(0.5 - y);
    q = 1.0 / sqrt(t);
    return f + -(q * q);
}

/* float64 reference of conv + chain */
static void reference(const ecase* c, const float* x, const float* w, const float* b, const float* mu, const float* rs,
                      const float* sc, const float* bi, double* y) {
    int64_t OH = out_hw(c->H, c), OW = out_hw(c->W, c), Cg = c->C / c->groups, Og = c->O / c->groups;
    int64_t n, o, oh, ow, ci, kh, kw;
    for (n = 0; n < c->N; n++)
        for (o = 0; o < c->O; o++)
            for (oh = 0; oh < OH; oh++)
                for (ow = 0; ow < OW; ow++) {
                    double acc = c->bias ? b[o] : 0.0, v;
                    for (ci = 0; ci < Cg; ci++)
                        for (kh = 0; kh < c->K; kh++)
                            for (kw = 0; kw < c->K; kw++) {
                                int64_t ih = oh * c->stride - c->pad + kh, iw = ow * c->stride - c->pad + kw;
                                int64_t ch = (o / Og) * Cg + ci;
                                if (c->transpose) {   /* output (oh, ow) gathers input (ih, iw) with ih·s − p + kh = oh */
                                    int64_t th = oh + c->pad - kh, tw = ow + c->pad - kw;
                                    if (th < 0 || tw < 0 || th % c->stride || tw % c->stride) continue;
                                    ih = th / c->stride; iw = tw / c->stride;
                                    if (ih >= c->H || iw >= c->W) continue;
                                    acc += (double)x[((n * c->C + ch) * c->H + ih) * c->W + iw] *
                                           (double)w[((ch * Og + o % Og) * c->K + kh) * c->K + kw];
                                    continue;
                                }
                                if (ih < 0 || ih >= c->H || iw < 0 || iw >= c->W) continue;
                                acc += (double)x[((n * c->C + ch) * c->H + ih) * c->W + iw] *
                                       (double)w[((o * Cg + ci) * c->K + kh) * c->K + kw];
                            }
                    v = acc;
                    switch (c->chain) {
                    case CH_BN_HSWISH: v = hswish((v - mu[o]) * rs[o] * sc[o] + bi[o]); break;
                    case CH_RELU: case CH_OUT_TOO: v = v > 0 ? v : 0; break;
                    case CH_SIGMOID: v = 1.0 / (1.0 + exp(-v)); break;
                    case CH_BN3_RELU: v = (mu[o] - v) * rs[o] + bi[o]; v = v > 0 ? v : 0; break;
                    case CH_SE_TANH: v = tanh(v * sc[o]); break;
                    case CH_WIDTH_OP: v = v * sc[ow]; break;
                    case CH_LONG: { int r; for (r = 0; r < 4; r++) v = hswish(v * 0.5 + 0.25); break; }
                    case CH_FORMS: v = forms((double)(float)v); break;
                    default: break;
                    }
                    y[((n * c->O + o) * OH + oh) * OW + ow] = v;
                }
}

/* Builds the graph of case c (for CH_OUT_TOO the conv is an output too). */
static rlx_graph* build(const ecase* c) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t xs[4], ws[4], bs[1], ps4[4] = {1, 0, 1, 1}, ps3[3] = {0, 1, 1}, pw[4] = {1, 1, 1, 0};
    rlx_tensor x, w, b, y, t, none;
    rlx_conv_desc d;
    int r;
    none.id = 0;
    xs[0] = c->N; xs[1] = c->C; xs[2] = c->H; xs[3] = c->W;
    ws[0] = c->O; ws[1] = c->C / c->groups; ws[2] = c->K; ws[3] = c->K;
    if (c->transpose) { ws[0] = c->C; ws[1] = c->O / c->groups; }
    bs[0] = c->O; ps4[1] = c->O; ps3[0] = c->O; pw[3] = out_hw(c->W, c);
    memset(&d, 0, sizeof d);
    d.stride[0] = d.stride[1] = c->stride;
    d.pad_begin[0] = d.pad_begin[1] = d.pad_end[0] = d.pad_end[1] = c->pad;
    d.groups = c->groups;
    x = rlx_input(g, "x", RLX_F32, 4, xs);
    w = rlx_param(g, "w", RLX_F32, 4, ws);
    b = c->bias ? rlx_param(g, "b", RLX_F32, 1, bs) : none;
    y = c->transpose ? rlx_conv_transpose(g, x, w, b, &d) : rlx_conv(g, x, w, b, &d);
    switch (c->chain) {
    case CH_BN_HSWISH:   /* batch norm as the ONNX importer writes it, then HardSwish (scalars) */
        y = rlx_add(g, rlx_mul(g, rlx_mul(g, rlx_sub(g, y, rlx_param(g, "mu", RLX_F32, 4, ps4)),
                                          rlx_param(g, "rs", RLX_F32, 4, ps4)), rlx_param(g, "sc", RLX_F32, 4, ps4)),
                    rlx_param(g, "bi", RLX_F32, 4, ps4));
        t = rlx_add(g, rlx_mul(g, y, rlx_scalar(g, RLX_F32, 1.0 / 6.0)), rlx_scalar(g, RLX_F32, 0.5));
        t = rlx_max(g, rlx_scalar(g, RLX_F32, 0.0), rlx_min(g, rlx_scalar(g, RLX_F32, 1.0), t));
        y = rlx_mul(g, y, t);
        break;
    case CH_RELU: y = rlx_relu(g, y); break;
    case CH_SIGMOID: y = rlx_sigmoid(g, y); break;
    case CH_BN3_RELU:    /* [O, 1, 1] operands, the conv as the second operand of sub */
        y = rlx_relu(g, rlx_add(g, rlx_mul(g, rlx_sub(g, rlx_param(g, "mu", RLX_F32, 3, ps3), y),
                                           rlx_param(g, "rs", RLX_F32, 3, ps3)), rlx_param(g, "bi", RLX_F32, 3, ps3)));
        break;
    case CH_SE_TANH: y = rlx_tanh(g, rlx_mul(g, y, rlx_param(g, "sc", RLX_F32, 4, ps4))); break;
    case CH_OUT_TOO: rlx_output(g, "conv", y); y = rlx_relu(g, y); break;
    case CH_WIDTH_OP: y = rlx_mul(g, y, rlx_param(g, "sc", RLX_F32, 4, pw)); break;   /* numel O, along the width */
    case CH_LONG:
        for (r = 0; r < 4; r++) {
            t = rlx_add(g, rlx_mul(g, y, rlx_scalar(g, RLX_F32, 0.5)), rlx_scalar(g, RLX_F32, 0.25));
            y = rlx_mul(g, t, rlx_max(g, rlx_scalar(g, RLX_F32, 0.0),
                                      rlx_min(g, rlx_scalar(g, RLX_F32, 1.0),
                                              rlx_add(g, rlx_mul(g, t, rlx_scalar(g, RLX_F32, 1.0 / 6.0)),
                                                      rlx_scalar(g, RLX_F32, 0.5)))));
        }
        break;
    case CH_FORMS: {
        rlx_tensor a = rlx_mul(g, y, rlx_scalar(g, RLX_F32, 1.5)), f, q;
        f = rlx_sub(g, y, rlx_div(g, rlx_scalar(g, RLX_F32, 2.0), a));
        f = rlx_min(g, rlx_scalar(g, RLX_F32, 0.75), rlx_max(g, rlx_sqrt(g, f), a));
        q = rlx_rsqrt(g, rlx_abs(g, rlx_sub(g, rlx_scalar(g, RLX_F32, 0.5), y)));
        y = rlx_add(g, f, rlx_neg(g, rlx_mul(g, q, q)));
        break;
    }
    default: break;
    }
    rlx_output(g, "y", y);
    return g;
}

static int count_steps(const rlx_program* p) {
    static char rep[1 << 16];
    const char* s = rep;
    int n = 0;
    rlx_program_report(p, rep, sizeof rep);
    while ((s = strstr(s, "step ")) != NULL) { n++; s += 5; }
    return n;
}

/* Compiles and runs g on dev; fills y (ny floats). Returns the step count, or -1 when it did not run. */
static int run(rlx_graph* g, rlx_device dev, uint32_t flags, int threads, const ecase* c, const float* x,
               const float* w, const float* b, const float* mu, const float* rs, const float* sc, const float* bi,
               float* y, int64_t ny) {
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    int steps = -1, Cg = c->C / c->groups;
    int64_t nw = (int64_t)c->O * Cg * c->K * c->K, OW = out_hw(c->W, c);
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    cd.flags = flags;
    cd.num_threads = threads;
    if (rlx_compile(g, &cd, &p) != RLX_OK) { TH_CHECK(0, "%s: compile: %s", c->name, rlx_graph_error(g)); return -1; }
    rlx_set_input_f32(p, "x", x, (size_t)c->N * c->C * c->H * c->W);
    rlx_set_param_f32(p, "w", w, (size_t)nw);
    if (c->bias) rlx_set_param_f32(p, "b", b, (size_t)c->O);
    if (c->chain == CH_BN_HSWISH || c->chain == CH_BN3_RELU) {
        rlx_set_param_f32(p, "mu", mu, (size_t)c->O);
        rlx_set_param_f32(p, "rs", rs, (size_t)c->O);
        rlx_set_param_f32(p, "bi", bi, (size_t)c->O);
    }
    if (c->chain == CH_BN_HSWISH || c->chain == CH_SE_TANH) rlx_set_param_f32(p, "sc", sc, (size_t)c->O);
    if (c->chain == CH_WIDTH_OP) rlx_set_param_f32(p, "sc", sc, (size_t)OW);
    if (rlx_run(p) != RLX_OK || rlx_get_output_f32(p, "y", y, (size_t)ny) != RLX_OK)
        TH_CHECK(0, "%s: run: %s", c->name, rlx_program_error(p));
    else
        steps = count_steps(p);
    rlx_program_destroy(p);
    return steps;
}

static void check_case(const ecase* c, int vulkan) {
    int64_t OH = out_hw(c->H, c), OW = out_hw(c->W, c), ny = (int64_t)c->N * c->O * OH * OW, i;
    int64_t nw = (int64_t)c->O * (c->C / c->groups) * c->K * c->K, bad = 0, diff = 0, ncw = c->O > OW ? c->O : OW;
    float *x = rnd((int64_t)c->N * c->C * c->H * c->W, 1.0), *w = rnd(nw, 0.5), *b = rnd(c->O, 0.5);
    float *mu = rnd(c->O, 0.3), *rs = rnd(c->O, 1.0), *sc = rnd(ncw, 1.5), *bi = rnd(c->O, 0.5);
    float *y1 = (float*)malloc(sizeof(float) * (size_t)ny), *y2 = (float*)malloc(sizeof(float) * (size_t)ny);
    float* yu = (float*)malloc(sizeof(float) * (size_t)ny);
    double* ref = (double*)malloc(sizeof(double) * (size_t)ny);
    double worst = 0;
    rlx_graph* g = build(c);
    int s1, s2, su;
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "%s: build: %s", c->name, rlx_graph_error(g));
    reference(c, x, w, b, mu, rs, sc, bi, ref);
    s1 = run(g, RLX_DEVICE_CPU, 0, 1, c, x, w, b, mu, rs, sc, bi, y1, ny);
    s2 = run(g, RLX_DEVICE_CPU, 0, 2, c, x, w, b, mu, rs, sc, bi, y2, ny);
    su = run(g, RLX_DEVICE_CPU, RLX_COMPILE_NO_FUSION, 1, c, x, w, b, mu, rs, sc, bi, yu, ny);
    if (s1 >= 0 && s2 >= 0 && su >= 0) {
        for (i = 0; i < ny; i++) {
            double e = fabs((double)y1[i] - ref[i]);
            if (e > worst) worst = e;
            if (!th_close(y1[i], ref[i], 2e-5, 2e-5) || !th_close(y2[i], ref[i], 2e-5, 2e-5)) bad++;
            if (memcmp(&y1[i], &yu[i], sizeof(float)) || memcmp(&y2[i], &yu[i], sizeof(float))) diff++;
        }
        TH_CHECK(bad == 0, "%s: %lld of %lld values off the float64 reference (worst %.3g)", c->name, (long long)bad,
                 (long long)ny, worst);
        TH_CHECK(diff == 0, "%s: %lld values differ from the unfused program's", c->name, (long long)diff);
        if (c->chain == CH_OUT_TOO || c->chain == CH_WIDTH_OP)
            TH_CHECK(s1 >= 2, "%s: the reader must stay a separate step (%d steps)", c->name, s1);
        else if (c->chain == CH_LONG)
            TH_CHECK(s1 >= 2 && s1 < su, "%s: a chain past the epilogue's length is split (%d steps, unfused %d)",
                     c->name, s1, su);
        else
            TH_CHECK(s1 == 1, "%s: conv and its readers should be one step, got %d", c->name, s1);
    }
    if (vulkan) {
        int sv = run(g, RLX_DEVICE_VULKAN, 0, 1, c, x, w, b, mu, rs, sc, bi, y1, ny);
        if (sv >= 0) {
            for (i = 0, bad = 0; i < ny; i++)
                if (!th_close(y1[i], ref[i], 1e-4, 1e-4)) bad++;
            TH_CHECK(bad == 0, "%s on vulkan: %lld of %lld values off the reference", c->name, (long long)bad, (long long)ny);
            TH_CHECK(sv >= 2, "%s on vulkan: expected the readers as separate steps (%d steps)", c->name, sv);
        }
    }
    rlx_graph_destroy(g);
    free(x); free(w); free(b); free(mu); free(rs); free(sc); free(bi); free(y1); free(y2); free(yu); free(ref);
}

int main(void) {
    static const ecase cases[] = {
        /* name                                 N  C   H   W   O  K st pad grp bias chain transpose */
        {"3x3 GEMM + batch norm + hardswish",   1, 6, 13, 11, 24, 3, 1, 1, 1, 1, CH_BN_HSWISH, 0},
        {"3x3 GEMM batch 2 + relu",             2, 5,  9, 10, 7, 3, 1, 1, 1, 0, CH_RELU, 0},
        {"1x1 (no im2col) + sigmoid",           1, 16, 12, 12, 20, 1, 1, 0, 1, 1, CH_SIGMOID, 0},
        {"stride 2 + [O,1,1] batch norm + relu",1, 8, 17, 15, 12, 3, 2, 1, 1, 1, CH_BN3_RELU, 0},
        {"depthwise 3x3 + batch norm + hswish", 1, 16, 20, 18, 16, 3, 1, 1, 16, 1, CH_BN_HSWISH, 0},
        {"depthwise 5x5 s2 + channel scale",    1, 12, 21, 19, 12, 5, 2, 2, 12, 0, CH_SE_TANH, 0},
        {"grouped 3x3 + channel scale + tanh",  2, 8, 11, 9, 12, 3, 1, 1, 4, 1, CH_SE_TANH, 0},
        {"conv is an output too",               1, 4,  8,  8, 6, 3, 1, 1, 1, 1, CH_OUT_TOO, 0},
        {"operand along the width",             1, 3,  8, 10, 10, 3, 1, 1, 1, 1, CH_WIDTH_OP, 0},
        {"chain longer than the epilogue",      1, 4, 10,  9, 8, 3, 1, 1, 1, 1, CH_LONG, 0},
        {"large 3x3 GEMM (many chunks)",        1, 32, 40, 48, 24, 3, 1, 1, 1, 1, CH_BN_HSWISH, 0},
        {"3x3 GEMM, K past one K block",        1, 50, 23, 37, 19, 3, 1, 1, 1, 1, CH_RELU, 0},
        {"3x3 GEMM, no epilogue (bias only)",   1, 7, 30, 35, 13, 3, 1, 0, 1, 1, CH_OUT_TOO, 0},
        {"conv_transpose s2 + [O,1,1] bn + relu", 1, 6, 9, 11, 5, 2, 2, 0, 1, 1, CH_BN3_RELU, 1},
        {"3x3 GEMM + every operand form",       1, 5, 13, 29, 9, 3, 1, 1, 1, 1, CH_FORMS, 0},
        {"3x3 wide form, batch 2, 2 groups",    2, 16, 19, 23, 10, 3, 1, 1, 2, 1, CH_BN_HSWISH, 0},
        {"5x5 wide form, pad 2",                1, 3, 17, 40, 7, 5, 1, 2, 1, 1, CH_RELU, 0},
        {"3x3 wide form, no padding",           1, 9, 12, 70, 5, 3, 1, 0, 1, 0, CH_FORMS, 0},
        {"depthwise 3x3 + every operand form",  1, 6, 9, 70, 6, 3, 1, 1, 6, 1, CH_FORMS, 0},
        {"conv_transpose 3x3 grouped + sigmoid", 2, 8, 7, 6, 6, 3, 1, 1, 2, 0, CH_SIGMOID, 1},
        /* few pixels: with no per-channel operand the epilogue runs over all planes at once */
        {"1x1 over 5x6 pixels + relu (merged)", 1, 16, 5, 6, 40, 1, 1, 0, 1, 1, CH_RELU, 0},
        {"3x3 over one row + every form",      1, 8, 1, 9, 12, 3, 1, 1, 1, 1, CH_FORMS, 0},
        /* AVX-512: depthwise 16 channels at a time, the 24-row wide-form tile */
        {"depthwise 5x5 10x10, 16-ch form",    1, 20, 10, 10, 20, 5, 1, 2, 20, 1, CH_BN_HSWISH, 0},
        {"depthwise 3x3 s2, 16-ch form",       1, 17, 14, 16, 17, 3, 2, 1, 17, 1, CH_FORMS, 0},
        {"3x3 wide form, 20 output channels",  1, 12, 15, 30, 20, 3, 1, 1, 1, 1, CH_BN_HSWISH, 0},
    };
    rlx_device_info info[RLX_DEVICE_COUNT];
    int nd = rlx_devices(info, RLX_DEVICE_COUNT), vk = 0, i;
    const char* why = "rlx_devices does not list it";
    th_seed(7);
    for (i = 0; i < nd && i < RLX_DEVICE_COUNT; i++)
        if (info[i].device == RLX_DEVICE_VULKAN) { vk = info[i].available; why = info[i].reason; }
    if (!vk) th_skip("vulkan: every conv epilogue case (%s)", why);
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) check_case(&cases[i], vk);
    return th_summary("conv_epilogue");
}
