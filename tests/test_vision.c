/* test_vision.c - conv, conv_transpose, pool, group_norm, resize and pad checked against double-precision
   references written in this file, plus the builders' argument checks.

   Every tensor of a case is a graph input fed as doubles (rlx converts them to the tensor's dtype). The data is
   chosen to be exact in that dtype (f32-rounded, or multiples of 1/64 for f16/bf16), so the reference sees the
   values rlx sees. Each case counts as one check and prints its first mismatch. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../rlx.h"
#include "harness.h"

#include <stdlib.h>

/* =============================================================================================================
   Helpers
   ============================================================================================================= */

/* n random non-zero values in [-1, 1), exact in dtype dt. */
static double* rnd(int64_t n, rlx_dtype dt) {
    double* v = (double*)malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    int64_t i;
    for (i = 0; i < n; i++) {
        double u = th_uniform(-1.0, 1.0);
        if (fabs(u) < 1e-3) u = 0.5;
        if (dt == RLX_F16 || dt == RLX_BF16) {
            double k = floor(u * 64.0 + 0.5);
            v[i] = (k == 0.0 ? 1.0 : k) / 64.0;
        } else if (dt == RLX_F32) {
            v[i] = (double)(float)u;
        } else {
            v[i] = u;
        }
    }
    return v;
}

static int64_t tnumel(rlx_graph* g, rlx_tensor t) {
    int rank, i;
    int64_t s[RLX_MAX_RANK], n = 1;
    if (rlx_tensor_info(g, t, &rank, s) == RLX_DTYPE_INVALID) return -1;
    for (i = 0; i < rank; i++) n *= s[i];
    return n;
}

typedef struct tin { const char* name; rlx_tensor t; const double* data; } tin;

/* Compiles g (output "y") with `threads` threads, feeds the inputs as doubles, runs once and reads "y" as n
   doubles into out. Returns 1 on success (else prints why). */
static int run_graph(rlx_graph* g, int nin, const tin* ins, int threads, double* out, int64_t n) {
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    int i, ok = 1;
    memset(&cd, 0, sizeof cd);
    cd.num_threads = threads;
    if (rlx_compile(g, &cd, &p) != RLX_OK) {
        printf("compile failed: %s\n", rlx_graph_error(g));
        return 0;
    }
    for (i = 0; i < nin && ok; i++)
        if (rlx_set_input(p, ins[i].name, RLX_F64, ins[i].data, (size_t)tnumel(g, ins[i].t) * sizeof(double)) != RLX_OK)
            ok = 0;
    if (ok && rlx_run(p) != RLX_OK) ok = 0;
    if (ok && rlx_get_output(p, "y", RLX_F64, out, (size_t)n * sizeof(double)) != RLX_OK) ok = 0;
    if (!ok) printf("run failed: %s\n", rlx_program_error(p));
    rlx_program_destroy(p);
    return ok;
}

/* One check: every got[i] within atol + rtol·|ref[i]|. */
static void check_close(const char* what, const double* got, const double* ref, int64_t n, double atol, double rtol) {
    int64_t i, bad = 0, first = -1;
    for (i = 0; i < n; i++)
        if (!th_close(got[i], ref[i], atol, rtol)) {
            if (first < 0) first = i;
            bad++;
        }
    TH_CHECK(bad == 0, "%s: %lld of %lld values differ (first [%lld]: got %.9g, want %.9g)", what, (long long)bad,
             (long long)n, (long long)first, first >= 0 ? got[first] : 0.0, first >= 0 ? ref[first] : 0.0);
}

static double tol_atol(rlx_dtype dt) { return dt == RLX_F64 ? 1e-11 : dt == RLX_F32 ? 2e-5 : 2e-2; }
static double tol_rtol(rlx_dtype dt) { return dt == RLX_F64 ? 1e-11 : dt == RLX_F32 ? 2e-5 : 1e-2; }

static int shape_is(rlx_graph* g, rlx_tensor t, int rank, const int64_t* want) {
    int r, i;
    int64_t s[RLX_MAX_RANK];
    if (rlx_tensor_info(g, t, &r, s) == RLX_DTYPE_INVALID || r != rank) return 0;
    for (i = 0; i < rank; i++)
        if (s[i] != want[i]) return 0;
    return 1;
}

/* =============================================================================================================
   conv and conv_transpose
   ============================================================================================================= */

/* Spatial parameters are (h, w); 1D cases use only the w ones (H = KH = 1). Zero stride/dilation/groups mean
   the default, as in rlx_conv_desc. */
typedef struct conv_case {
    int ns, transpose;
    int64_t N, C, H, W, O, KH, KW;
    int sh, sw, dh, dw, pt, pl, pb, pr, oph, opw;
    int groups, bias;
} conv_case;

static conv_case cc_make(int ns, int transpose, int64_t N, int64_t C, int64_t H, int64_t W, int64_t O, int64_t KH, int64_t KW) {
    conv_case c;
    memset(&c, 0, sizeof c);
    c.ns = ns; c.transpose = transpose;
    c.N = N; c.C = C; c.H = ns == 2 ? H : 1; c.W = W; c.O = O; c.KH = ns == 2 ? KH : 1; c.KW = KW;
    return c;
}

static int dflt1(int v) { return v ? v : 1; }

static void cc_out(const conv_case* c, int64_t* OH, int64_t* OW) {
    int64_t sh = dflt1(c->sh), sw = dflt1(c->sw), dh = dflt1(c->dh), dw = dflt1(c->dw);
    if (!c->transpose) {
        *OH = (c->H + c->pt + c->pb - dh * (c->KH - 1) - 1) / sh + 1;
        *OW = (c->W + c->pl + c->pr - dw * (c->KW - 1) - 1) / sw + 1;
    } else {
        *OH = (c->H - 1) * sh - c->pt - c->pb + dh * (c->KH - 1) + c->oph + 1;
        *OW = (c->W - 1) * sw - c->pl - c->pr + dw * (c->KW - 1) + c->opw + 1;
    }
}

/* conv: y[n,o,oh,ow] = b[o] + Σ x[n, g·Cg+ci, oh·sh−pt+kh·dh, ow·sw−pl+kw·dw] · w[o, ci, kh, kw].
   conv_transpose: every x[n, c, ih, iw] scatters x · w[c, o', kh, kw] to y[n, g·Og+o', ih·sh−pt+kh·dh, iw·sw−pl+kw·dw]. */
static void ref_conv(const conv_case* c, const double* x, const double* w, const double* b, double* y) {
    int64_t OH, OW, G = dflt1(c->groups), Cg = c->C / G, Og = c->O / G, n, o, ci, kh, kw, i, j;
    int64_t sh = dflt1(c->sh), sw = dflt1(c->sw), dh = dflt1(c->dh), dw = dflt1(c->dw);
    cc_out(c, &OH, &OW);
    for (n = 0; n < c->N; n++)
        for (o = 0; o < c->O; o++)
            for (i = 0; i < OH * OW; i++) y[(n * c->O + o) * OH * OW + i] = b ? b[o] : 0.0;
    for (n = 0; n < c->N; n++)
        for (o = 0; o < c->O; o++) {
            int64_t g = o / Og;
            for (ci = 0; ci < Cg; ci++) {
                int64_t ch = g * Cg + ci;
                for (kh = 0; kh < c->KH; kh++)
                    for (kw = 0; kw < c->KW; kw++) {
                        if (!c->transpose) {
                            double wv = w[((o * Cg + ci) * c->KH + kh) * c->KW + kw];
                            for (i = 0; i < OH; i++)
                                for (j = 0; j < OW; j++) {
                                    int64_t ih = i * sh - c->pt + kh * dh, iw = j * sw - c->pl + kw * dw;
                                    if (ih < 0 || ih >= c->H || iw < 0 || iw >= c->W) continue;
                                    y[((n * c->O + o) * OH + i) * OW + j] += wv * x[((n * c->C + ch) * c->H + ih) * c->W + iw];
                                }
                        } else {
                            double wv = w[((ch * Og + o % Og) * c->KH + kh) * c->KW + kw];
                            for (i = 0; i < c->H; i++)
                                for (j = 0; j < c->W; j++) {
                                    int64_t oh = i * sh - c->pt + kh * dh, ow = j * sw - c->pl + kw * dw;
                                    if (oh < 0 || oh >= OH || ow < 0 || ow >= OW) continue;
                                    y[((n * c->O + o) * OH + oh) * OW + ow] += wv * x[((n * c->C + ch) * c->H + i) * c->W + j];
                                }
                        }
                    }
            }
        }
}

static void cc_desc(const conv_case* c, rlx_conv_desc* d) {
    memset(d, 0, sizeof *d);
    if (c->ns == 2) {
        d->stride[0] = c->sh; d->stride[1] = c->sw; d->dilation[0] = c->dh; d->dilation[1] = c->dw;
        d->pad_begin[0] = c->pt; d->pad_begin[1] = c->pl; d->pad_end[0] = c->pb; d->pad_end[1] = c->pr;
        d->output_padding[0] = c->oph; d->output_padding[1] = c->opw;
    } else {
        d->stride[0] = c->sw; d->dilation[0] = c->dw; d->pad_begin[0] = c->pl; d->pad_end[0] = c->pr;
        d->output_padding[0] = c->opw;
    }
    d->groups = c->groups;
}

/* Builds and runs case c in dtype dt with `threads` threads (x, w and b from data when given, else random);
   checks the output shape and values; returns the output (malloc'ed) when keep != 0. */
static double* run_conv(const char* what, const conv_case* c, rlx_dtype dt, int threads, int keep) {
    int64_t G = dflt1(c->groups), OH, OW, xs[4], ws[4], bs[1], ys[4], nx, nw, ny;
    int r = c->ns + 2, nin = 2;
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor x, w, b, y;
    rlx_conv_desc d;
    double *xv, *wv, *bv, *got, *ref;
    tin ins[3];
    cc_out(c, &OH, &OW);
    xs[0] = c->N; xs[1] = c->C; ys[0] = c->N; ys[1] = c->O;
    if (!c->transpose) { ws[0] = c->O; ws[1] = c->C / G; }
    else { ws[0] = c->C; ws[1] = c->O / G; }
    if (c->ns == 2) { xs[2] = c->H; xs[3] = c->W; ws[2] = c->KH; ws[3] = c->KW; ys[2] = OH; ys[3] = OW; }
    else { xs[2] = c->W; ws[2] = c->KW; ys[2] = OW; }
    bs[0] = c->O;
    nx = c->N * c->C * c->H * c->W; nw = ws[0] * ws[1] * c->KH * c->KW; ny = c->N * c->O * OH * OW;
    xv = rnd(nx, dt); wv = rnd(nw, dt); bv = c->bias ? rnd(c->O, dt) : NULL;
    got = (double*)malloc(sizeof(double) * (size_t)ny);
    ref = (double*)malloc(sizeof(double) * (size_t)ny);
    x = rlx_input(g, "x", dt, r, xs);
    w = rlx_input(g, "w", dt, r, ws);
    b.id = 0;
    if (c->bias) b = rlx_input(g, "b", dt, 1, bs);
    cc_desc(c, &d);
    y = c->transpose ? rlx_conv_transpose(g, x, w, b, &d) : rlx_conv(g, x, w, b, &d);
    rlx_output(g, "y", y);
    TH_CHECK(rlx_graph_status(g) == RLX_OK && shape_is(g, y, r, ys), "%s: builder failed or wrong shape: %s", what,
             rlx_graph_error(g));
    ins[0].name = "x"; ins[0].t = x; ins[0].data = xv;
    ins[1].name = "w"; ins[1].t = w; ins[1].data = wv;
    if (c->bias) { ins[2].name = "b"; ins[2].t = b; ins[2].data = bv; nin = 3; }
    if (rlx_graph_status(g) == RLX_OK && run_graph(g, nin, ins, threads, got, ny)) {
        double atol = tol_atol(dt) * sqrt((double)(ws[1] * c->KH * c->KW));
        ref_conv(c, xv, wv, bv, ref);
        check_close(what, got, ref, ny, atol, tol_rtol(dt));
    } else {
        TH_CHECK(0, "%s: did not run", what);
    }
    rlx_graph_destroy(g);
    free(xv); free(wv); free(bv); free(ref);
    if (keep) return got;
    free(got);
    return NULL;
}

static void test_conv(void) {
    static const rlx_dtype dts[3] = {RLX_F32, RLX_F64, RLX_F16};
    conv_case c;
    int k;
    /* 2D: padding 1 all round, bias, batch 2 */
    c = cc_make(2, 0, 2, 3, 7, 6, 4, 3, 3); c.pt = c.pl = c.pb = c.pr = 1; c.bias = 1;
    for (k = 0; k < 3; k++) {
        char name[64];
        snprintf(name, sizeof name, "conv2d pad1 bias %s", rlx_dtype_name(dts[k]));
        run_conv(name, &c, dts[k], 1, 0);
    }
    /* stride 2, asymmetric padding, dilation (2, 1), no bias */
    c = cc_make(2, 0, 2, 3, 9, 8, 5, 3, 2); c.sh = 2; c.sw = 2; c.pt = 0; c.pb = 1; c.pl = 2; c.pr = 0; c.dh = 2; c.dw = 1;
    run_conv("conv2d stride2 asym pad dilation", &c, RLX_F32, 1, 0);
    run_conv("conv2d stride2 asym pad dilation f64", &c, RLX_F64, 1, 0);
    /* stride (1, 3), padding only at the end */
    c = cc_make(2, 0, 1, 2, 5, 11, 3, 2, 3); c.sw = 3; c.pb = 2; c.pr = 1; c.bias = 1;
    run_conv("conv2d stride(1,3) end pad", &c, RLX_F32, 1, 0);
    /* groups 2 */
    c = cc_make(2, 0, 2, 4, 6, 7, 6, 3, 2); c.groups = 2; c.sw = 2; c.pt = c.pb = 1; c.bias = 1;
    run_conv("conv2d groups 2", &c, RLX_F32, 1, 0);
    run_conv("conv2d groups 2 bf16", &c, RLX_BF16, 1, 0);
    /* groups 3 of 2 channels each, dilation 2 */
    c = cc_make(2, 0, 1, 6, 8, 8, 3, 3, 3); c.groups = 3; c.dh = c.dw = 2; c.pl = 2;
    run_conv("conv2d groups 3 dilation", &c, RLX_F32, 1, 0);
    /* depthwise: groups = C = O, stride 2 */
    c = cc_make(2, 0, 2, 5, 9, 10, 5, 3, 3); c.groups = 5; c.sh = c.sw = 2; c.pt = c.pl = c.pb = c.pr = 1; c.bias = 1;
    run_conv("conv2d depthwise stride2", &c, RLX_F32, 1, 0);
    run_conv("conv2d depthwise f16", &c, RLX_F16, 1, 0);
    /* depthwise with channel multiplier 2, dilation 2, asymmetric padding, stride (1, 2) */
    c = cc_make(2, 0, 2, 3, 8, 9, 6, 3, 2); c.groups = 3; c.dh = c.dw = 2; c.pt = 2; c.pr = 3; c.sw = 2;
    run_conv("conv2d depthwise multiplier", &c, RLX_F32, 1, 0);
    /* 1x1 conv: x is the GEMM operand itself */
    c = cc_make(2, 0, 2, 8, 5, 5, 5, 1, 1); c.bias = 1;
    run_conv("conv2d 1x1", &c, RLX_F32, 1, 0);
    c.groups = 2; c.O = 6;
    run_conv("conv2d 1x1 groups 2", &c, RLX_F32, 1, 0);
    /* 1x1 with end padding (output larger than the input) and with stride */
    c = cc_make(2, 0, 1, 4, 3, 4, 2, 1, 1); c.pb = 1; c.pr = 2;
    run_conv("conv2d 1x1 padded", &c, RLX_F32, 1, 0);
    c = cc_make(2, 0, 1, 4, 5, 6, 3, 1, 1); c.sh = 2; c.sw = 3;
    run_conv("conv2d 1x1 strided", &c, RLX_F32, 1, 0);
    /* size-1 dims: 1x1 input padded to 5x5, one channel */
    c = cc_make(2, 0, 1, 1, 1, 1, 1, 1, 1); c.pt = c.pl = c.pb = c.pr = 2; c.bias = 1;
    run_conv("conv2d 1x1 input padded", &c, RLX_F32, 1, 0);
    c = cc_make(2, 0, 3, 2, 1, 7, 4, 1, 3); c.pl = 1;
    run_conv("conv2d H=1", &c, RLX_F32, 1, 0);
    /* kernel as large as the input: a 1x1 output */
    c = cc_make(2, 0, 2, 3, 4, 5, 2, 4, 5); c.bias = 1;
    run_conv("conv2d full kernel", &c, RLX_F32, 1, 0);
    /* dilated kernel wider than the input, made valid by padding */
    c = cc_make(2, 0, 1, 2, 3, 3, 2, 2, 2); c.dh = c.dw = 4; c.pt = c.pl = 2; c.pb = c.pr = 2;
    run_conv("conv2d dilation > input", &c, RLX_F32, 1, 0);
    /* explicit stride 1 / dilation 1 / groups 1 (same as the zero defaults) */
    c = cc_make(2, 0, 1, 2, 4, 4, 3, 2, 2); c.sh = c.sw = c.dh = c.dw = 1; c.groups = 1;
    run_conv("conv2d explicit defaults", &c, RLX_F32, 1, 0);
    /* large enough to need several column chunks (576 rows → 910 pixels a chunk), batch 2 and groups */
    c = cc_make(2, 0, 2, 64, 40, 40, 16, 3, 3); c.pt = c.pl = c.pb = c.pr = 1; c.bias = 1;
    run_conv("conv2d chunked", &c, RLX_F32, 1, 0);
    c = cc_make(2, 0, 1, 128, 33, 31, 8, 3, 3); c.groups = 2; c.sh = 2; c.pl = 1; c.bias = 1;
    run_conv("conv2d chunked groups 2", &c, RLX_F32, 2, 0);

    /* 1D */
    c = cc_make(1, 0, 2, 3, 1, 11, 4, 1, 3); c.sw = 2; c.pl = 1; c.pr = 2; c.dw = 2; c.bias = 1;
    for (k = 0; k < 3; k++) {
        char name[64];
        snprintf(name, sizeof name, "conv1d stride dilation pad %s", rlx_dtype_name(dts[k]));
        run_conv(name, &c, dts[k], 1, 0);
    }
    c = cc_make(1, 0, 2, 4, 1, 10, 4, 1, 5); c.groups = 4; c.pl = c.pr = 2; c.bias = 1;
    run_conv("conv1d depthwise", &c, RLX_F32, 1, 0);
    c = cc_make(1, 0, 1, 6, 1, 9, 4, 1, 2); c.groups = 2; c.pr = 3; c.sw = 3;
    run_conv("conv1d groups 2", &c, RLX_F32, 1, 0);
    c = cc_make(1, 0, 3, 2, 1, 1, 3, 1, 1); c.bias = 1;
    run_conv("conv1d L=1", &c, RLX_F32, 1, 0);
    c = cc_make(1, 0, 2, 4, 1, 7, 6, 1, 1); c.groups = 2;
    run_conv("conv1d 1x1 groups", &c, RLX_F32, 1, 0);
    c = cc_make(1, 0, 1, 8, 1, 2000, 8, 1, 9); c.pl = c.pr = 4; c.bias = 1;
    run_conv("conv1d long", &c, RLX_F32, 2, 0);
    c = cc_make(1, 0, 2, 16, 1, 3000, 16, 1, 7); c.groups = 16; c.pl = 3; c.pr = 3; c.sw = 2;
    run_conv("conv1d depthwise long", &c, RLX_F32, 2, 0);
}

static void test_conv_transpose(void) {
    conv_case c;
    /* stride 2, padding 1, output_padding 1, bias */
    c = cc_make(2, 1, 2, 3, 4, 5, 2, 3, 3); c.sh = c.sw = 2; c.pt = c.pl = c.pb = c.pr = 1; c.oph = c.opw = 1; c.bias = 1;
    run_conv("conv_transpose stride2 pad1 outpad1", &c, RLX_F32, 1, 0);
    run_conv("conv_transpose stride2 pad1 outpad1 f64", &c, RLX_F64, 1, 0);
    run_conv("conv_transpose stride2 pad1 outpad1 f16", &c, RLX_F16, 1, 0);
    /* groups 2, stride (2, 3), asymmetric padding, output padding (1, 2), dilation (1, 2) */
    c = cc_make(2, 1, 2, 4, 3, 4, 6, 2, 3); c.groups = 2; c.sh = 2; c.sw = 3; c.pt = 0; c.pb = 1; c.pl = 1; c.pr = 0;
    c.oph = 1; c.opw = 2; c.dw = 2;
    run_conv("conv_transpose groups asym", &c, RLX_F32, 1, 0);
    run_conv("conv_transpose groups asym f64", &c, RLX_F64, 1, 0);
    /* trivial: 1x1 kernel, stride 1 */
    c = cc_make(2, 1, 1, 3, 3, 4, 2, 1, 1); c.bias = 1;
    run_conv("conv_transpose 1x1", &c, RLX_F32, 1, 0);
    /* depthwise transposed, stride 2 */
    c = cc_make(2, 1, 2, 3, 4, 3, 3, 3, 3); c.groups = 3; c.sh = c.sw = 2; c.bias = 1;
    run_conv("conv_transpose depthwise", &c, RLX_F32, 1, 0);
    /* dilation 2, asymmetric padding, no bias, stride 1 */
    c = cc_make(2, 1, 1, 2, 5, 4, 3, 2, 3); c.dh = c.dw = 2; c.pt = 1; c.pr = 2;
    run_conv("conv_transpose dilation", &c, RLX_F32, 1, 0);
    /* size-1 input */
    c = cc_make(2, 1, 2, 2, 1, 1, 3, 3, 2); c.sh = 3; c.bias = 1;
    run_conv("conv_transpose 1x1 input", &c, RLX_F32, 1, 0);
    /* large: several pixel chunks (576 rows → 910 input pixels a chunk), batch 2, stride 2 */
    c = cc_make(2, 1, 2, 8, 32, 32, 64, 3, 3); c.sh = c.sw = 2; c.pt = c.pl = 1; c.pb = c.pr = 1; c.oph = c.opw = 1; c.bias = 1;
    run_conv("conv_transpose chunked", &c, RLX_F32, 1, 0);
    c = cc_make(2, 1, 1, 8, 32, 33, 128, 3, 3); c.groups = 2; c.sh = 2; c.bias = 1;
    run_conv("conv_transpose chunked groups", &c, RLX_F32, 2, 0);
    /* width 2, column stride 2, no column padding: the kernel columns interleave into the output rows
       (rlx__add_il2); odd widths, kernel rows overlapping (KH 3, row stride 2), pixel chunks ending mid-row */
    c = cc_make(2, 1, 2, 5, 7, 13, 3, 2, 2); c.sh = c.sw = 2; c.bias = 1;
    run_conv("conv_transpose 2x2 stride 2", &c, RLX_F32, 1, 0);
    c = cc_make(2, 1, 1, 6, 40, 37, 128, 3, 2); c.groups = 2; c.sh = c.sw = 2; c.pt = 1; c.bias = 1;
    run_conv("conv_transpose 3x2 stride 2 chunked", &c, RLX_F32, 2, 0);
    run_conv("conv_transpose 3x2 stride 2 chunked 1 thread", &c, RLX_F32, 1, 0);
}

/* Convs with few output pixels and many output channels, where the CPU's GEMM computes y^T (rlx__conv_swap):
   1x1 over 10 x 10, 3x3 over a single row, grouped and strided; then a wide stride-2 conv; 1 and 2 threads. */
static void test_conv_few_pixels(void) {
    conv_case c;
    int t;
    for (t = 1; t <= 2; t++) {
        c = cc_make(2, 0, 1, 48, 10, 10, 64, 1, 1); c.bias = 1;
        run_conv(t == 1 ? "conv 1x1 10x10 to 64" : "conv 1x1 10x10 to 64, 2 threads", &c, RLX_F32, t, 0);
        c = cc_make(2, 0, 2, 16, 1, 40, 32, 3, 3); c.pt = c.pl = c.pb = c.pr = 1; c.bias = 1;
        run_conv(t == 1 ? "conv 3x3 one row of 40" : "conv 3x3 one row of 40, 2 threads", &c, RLX_F32, t, 0);
        c = cc_make(2, 0, 1, 32, 10, 20, 64, 3, 3); c.groups = 2; c.sh = c.sw = 2; c.pt = c.pl = 1;
        run_conv(t == 1 ? "conv 3x3 stride 2 groups 2, 5x10 out" : "conv 3x3 stride 2 groups 2, 5x10 out, 2 threads", &c, RLX_F32, t, 0);
        /* stride 2 over wide rows (the vector even-column copy of im2col), odd sizes, padding on one side */
        c = cc_make(2, 0, 1, 3, 33, 71, 16, 3, 3); c.sh = c.sw = 2; c.pt = c.pl = 1; c.bias = 1;
        run_conv(t == 1 ? "conv 3x3 stride 2, 71 wide" : "conv 3x3 stride 2, 71 wide, 2 threads", &c, RLX_F32, t, 0);
    }
}

/* Large convs with 1 and 2 threads: same results (and both right). Batch 2 runs one (n, group) unit per
   thread, batch 1 splits each GEMM (and im2col / col2im) over the threads; both take two pixel chunks. */
static void test_conv_threads(void) {
    conv_case c;
    int t, b;
    for (t = 0; t < 2; t++)
        for (b = 1; b <= 2; b++) {
            double *y1, *y2;
            int64_t OH, OW, n, i, bad = 0;
            char name[64];
            c = cc_make(2, t, b, 48, 40, 40, 64, 3, 3);
            c.pt = c.pl = c.pb = c.pr = 1; c.bias = 1;
            if (t) { c.H = c.W = 20; c.sh = c.sw = 2; c.oph = 1; }
            cc_out(&c, &OH, &OW);
            n = c.N * c.O * OH * OW;
            snprintf(name, sizeof name, "%s batch %d threads=1", t ? "conv_transpose" : "conv", b);
            th_seed(1234);
            y1 = run_conv(name, &c, RLX_F32, 1, 1);
            snprintf(name, sizeof name, "%s batch %d threads=2", t ? "conv_transpose" : "conv", b);
            th_seed(1234);
            y2 = run_conv(name, &c, RLX_F32, 2, 1);
            for (i = 0; i < n; i++)
                if (!th_close(y1[i], y2[i], 1e-6, 1e-6)) bad++;
            TH_CHECK(bad == 0, "%s: %lld values differ between 1 and 2 threads", name, (long long)bad);
            free(y1); free(y2);
        }
    c = cc_make(2, 0, 2, 6, 20, 20, 4, 3, 3); c.groups = 2; c.pt = c.pl = 1; c.bias = 1;
    run_conv("conv2d f64 threads=2", &c, RLX_F64, 2, 0);
    c = cc_make(2, 1, 2, 4, 10, 10, 6, 3, 3); c.groups = 2; c.sh = 2; c.bias = 1;
    run_conv("conv_transpose f64 threads=2", &c, RLX_F64, 2, 0);
}

/* conv on constants is folded at compile time (serial kernel, no pool). */
static void test_conv_folded(void) {
    conv_case c = cc_make(2, 0, 1, 3, 6, 5, 4, 3, 3);
    int64_t xs[4] = {1, 3, 6, 5}, ws[4] = {4, 3, 3, 3}, OH, OW, i;
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_conv_desc d;
    float xf[90], wf[108];
    double xv[90], wv[108], got[120], ref[120];
    rlx_tensor y, none;
    none.id = 0;
    c.pt = c.pl = 1; c.sh = 2;
    cc_out(&c, &OH, &OW);
    for (i = 0; i < 90; i++) { xf[i] = (float)th_uniform(-1, 1); xv[i] = xf[i]; }
    for (i = 0; i < 108; i++) { wf[i] = (float)th_uniform(-1, 1); wv[i] = wf[i]; }
    cc_desc(&c, &d);
    y = rlx_conv(g, rlx_constant(g, RLX_F32, 4, xs, xf), rlx_constant(g, RLX_F32, 4, ws, wf), none, &d);
    rlx_output(g, "y", y);
    TH_CHECK(tnumel(g, y) == 4 * OH * OW, "conv folded: shape");
    if (tnumel(g, y) == 4 * OH * OW && run_graph(g, 0, NULL, 2, got, 4 * OH * OW)) {
        ref_conv(&c, xv, wv, NULL, ref);
        check_close("conv folded", got, ref, 4 * OH * OW, 1e-5, 1e-5);
    } else {
        TH_CHECK(0, "conv folded: did not run");
    }
    rlx_graph_destroy(g);
}

/* =============================================================================================================
   pool
   ============================================================================================================= */

typedef struct pool_case {
    int ns, kind, include_pad, global;
    int64_t N, C, H, W, KH, KW;
    int sh, sw, pt, pl, pb, pr;           /* stride 0 = kernel */
} pool_case;

static pool_case pc_make(int ns, int kind, int64_t N, int64_t C, int64_t H, int64_t W, int64_t KH, int64_t KW) {
    pool_case c;
    memset(&c, 0, sizeof c);
    c.ns = ns; c.kind = kind; c.N = N; c.C = C; c.H = ns == 2 ? H : 1; c.W = W; c.KH = ns == 2 ? KH : 1; c.KW = KW;
    return c;
}

/* Resolved window: global pooling covers the plane. */
static void pc_window(const pool_case* c, int64_t* KH, int64_t* KW, int64_t* sh, int64_t* sw, int64_t* pt, int64_t* pl,
                      int64_t* OH, int64_t* OW) {
    if (c->global) {
        *KH = c->H; *KW = c->W; *sh = c->H; *sw = c->W; *pt = *pl = 0;
        *OH = *OW = 1;
        return;
    }
    *KH = c->KH; *KW = c->KW; *sh = c->sh ? c->sh : c->KH; *sw = c->sw ? c->sw : c->KW; *pt = c->pt; *pl = c->pl;
    *OH = (c->H + c->pt + c->pb - *KH) / *sh + 1;
    *OW = (c->W + c->pl + c->pr - *KW) / *sw + 1;
}

static void ref_pool(const pool_case* c, const double* x, double* y) {
    int64_t KH, KW, sh, sw, pt, pl, OH, OW, p, oh, ow, i, j;
    pc_window(c, &KH, &KW, &sh, &sw, &pt, &pl, &OH, &OW);
    for (p = 0; p < c->N * c->C; p++)
        for (oh = 0; oh < OH; oh++)
            for (ow = 0; ow < OW; ow++) {
                double acc = c->kind == RLX_POOL_MAX ? -INFINITY : 0.0;
                int64_t cnt = 0;
                for (i = oh * sh - pt; i < oh * sh - pt + KH; i++)
                    for (j = ow * sw - pl; j < ow * sw - pl + KW; j++) {
                        double v;
                        if (i < 0 || i >= c->H || j < 0 || j >= c->W) continue;
                        v = x[(p * c->H + i) * c->W + j];
                        cnt++;
                        if (c->kind == RLX_POOL_AVG) acc += v;
                        else if (v != v || acc != acc) acc = NAN;
                        else if (v > acc) acc = v;
                    }
                if (c->kind == RLX_POOL_AVG) acc /= (double)(c->include_pad ? KH * KW : cnt);
                y[(p * OH + oh) * OW + ow] = acc;
            }
}

static void run_pool(const char* what, const pool_case* c, rlx_dtype dt, int threads, int with_nan) {
    int64_t KH, KW, sh, sw, pt, pl, OH, OW, xs[4], ys[4], nx, ny;
    int r = c->ns + 2;
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_pool_desc d;
    rlx_tensor x, y;
    double *xv, *got, *ref;
    tin in1;
    pc_window(c, &KH, &KW, &sh, &sw, &pt, &pl, &OH, &OW);
    xs[0] = ys[0] = c->N; xs[1] = ys[1] = c->C;
    if (c->ns == 2) { xs[2] = c->H; xs[3] = c->W; ys[2] = OH; ys[3] = OW; }
    else { xs[2] = c->W; ys[2] = OW; }
    nx = c->N * c->C * c->H * c->W; ny = c->N * c->C * OH * OW;
    xv = rnd(nx, dt);
    if (with_nan) xv[nx / 2] = NAN;
    got = (double*)malloc(sizeof(double) * (size_t)ny);
    ref = (double*)malloc(sizeof(double) * (size_t)ny);
    memset(&d, 0, sizeof d);
    d.kind = (rlx_pool_kind)c->kind;
    d.count_include_pad = c->include_pad;
    d.global = c->global;
    if (c->ns == 2) {
        d.kernel[0] = (int)c->KH; d.kernel[1] = (int)c->KW; d.stride[0] = c->sh; d.stride[1] = c->sw;
        d.pad_begin[0] = c->pt; d.pad_begin[1] = c->pl; d.pad_end[0] = c->pb; d.pad_end[1] = c->pr;
    } else {
        d.kernel[0] = (int)c->KW; d.stride[0] = c->sw; d.pad_begin[0] = c->pl; d.pad_end[0] = c->pr;
    }
    x = rlx_input(g, "x", dt, r, xs);
    y = rlx_pool(g, x, &d);
    rlx_output(g, "y", y);
    TH_CHECK(rlx_graph_status(g) == RLX_OK && shape_is(g, y, r, ys), "%s: builder failed or wrong shape: %s", what,
             rlx_graph_error(g));
    in1.name = "x"; in1.t = x; in1.data = xv;
    if (rlx_graph_status(g) == RLX_OK && run_graph(g, 1, &in1, threads, got, ny)) {
        ref_pool(c, xv, ref);
        check_close(what, got, ref, ny, tol_atol(dt) * 0.1, tol_rtol(dt));
    } else {
        TH_CHECK(0, "%s: did not run", what);
    }
    rlx_graph_destroy(g);
    free(xv); free(got); free(ref);
}

static void test_pool(void) {
    static const char* kname[3] = {"", "max", "avg"};
    pool_case c;
    int kind, cip;
    char name[96];
    for (kind = RLX_POOL_MAX; kind <= RLX_POOL_AVG; kind++)
        for (cip = 0; cip < (kind == RLX_POOL_AVG ? 2 : 1); cip++) {
            /* 2D: kernel 3x2, stride (2, 1), padding (1, 0) / (1, 1) */
            c = pc_make(2, kind, 2, 3, 7, 8, 3, 2); c.sh = 2; c.sw = 1; c.pt = 1; c.pb = 1; c.pr = 1; c.include_pad = cip;
            snprintf(name, sizeof name, "pool2d %s cip=%d padded", kname[kind], cip);
            run_pool(name, &c, RLX_F32, 1, 0);
            snprintf(name, sizeof name, "pool2d %s cip=%d padded f64", kname[kind], cip);
            run_pool(name, &c, RLX_F64, 1, 0);
            snprintf(name, sizeof name, "pool2d %s cip=%d padded f16", kname[kind], cip);
            run_pool(name, &c, RLX_F16, 1, 0);
            /* 2D: default stride (= kernel) 2x2 on odd sizes */
            c = pc_make(2, kind, 1, 2, 5, 7, 2, 2); c.include_pad = cip;
            snprintf(name, sizeof name, "pool2d %s cip=%d 2x2", kname[kind], cip);
            run_pool(name, &c, RLX_F32, 1, 0);
            /* stride larger than the kernel, asymmetric padding */
            c = pc_make(2, kind, 2, 2, 9, 10, 2, 3); c.sh = 3; c.sw = 4; c.pt = 1; c.pr = 2; c.include_pad = cip;
            snprintf(name, sizeof name, "pool2d %s cip=%d stride>kernel", kname[kind], cip);
            run_pool(name, &c, RLX_F32, 1, 0);
            /* 1D: kernel 3, stride 2, padding 1/1 */
            c = pc_make(1, kind, 2, 3, 1, 9, 1, 3); c.sw = 2; c.pl = 1; c.pr = 1; c.include_pad = cip;
            snprintf(name, sizeof name, "pool1d %s cip=%d padded", kname[kind], cip);
            run_pool(name, &c, RLX_F32, 1, 0);
            snprintf(name, sizeof name, "pool1d %s cip=%d padded f16", kname[kind], cip);
            run_pool(name, &c, RLX_F16, 1, 0);
            /* 1D: kernel 4, stride 1, padding 2 before only */
            c = pc_make(1, kind, 1, 2, 1, 6, 1, 4); c.sw = 1; c.pl = 2; c.include_pad = cip;
            snprintf(name, sizeof name, "pool1d %s cip=%d stride1", kname[kind], cip);
            run_pool(name, &c, RLX_F64, 1, 0);
            /* global */
            c = pc_make(2, kind, 2, 3, 5, 6, 0, 0); c.global = 1; c.include_pad = cip;
            snprintf(name, sizeof name, "pool2d %s cip=%d global", kname[kind], cip);
            run_pool(name, &c, RLX_F32, 1, 0);
            c = pc_make(1, kind, 2, 3, 1, 7, 1, 0); c.global = 1; c.include_pad = cip;
            snprintf(name, sizeof name, "pool1d %s cip=%d global", kname[kind], cip);
            run_pool(name, &c, RLX_F32, 1, 0);
            /* large, two threads */
            c = pc_make(2, kind, 2, 16, 64, 60, 3, 3); c.sh = c.sw = 2; c.pt = c.pl = c.pb = c.pr = 1; c.include_pad = cip;
            snprintf(name, sizeof name, "pool2d %s cip=%d large threads=2", kname[kind], cip);
            run_pool(name, &c, RLX_F32, 2, 0);
        }
    c = pc_make(2, RLX_POOL_MAX, 1, 2, 4, 4, 2, 2);
    run_pool("pool2d max NaN propagates", &c, RLX_F32, 1, 1);
}

/* =============================================================================================================
   group_norm
   ============================================================================================================= */

static void run_group_norm(const char* what, int rank, const int64_t* xs, int groups, int has_gamma, int has_beta,
                           float eps, rlx_dtype dt, int threads) {
    int64_t n = 1, C = xs[1], S = 1, N = xs[0], b, gi, i;
    int nin = 1, k;
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor x, ga, be, y;
    double *xv, *gv, *bv, *got, *ref;
    tin ins[3];
    for (k = 0; k < rank; k++) n *= xs[k];
    for (k = 2; k < rank; k++) S *= xs[k];
    xv = rnd(n, dt); gv = rnd(C, dt); bv = rnd(C, dt);
    got = (double*)malloc(sizeof(double) * (size_t)n);
    ref = (double*)malloc(sizeof(double) * (size_t)n);
    x = rlx_input(g, "x", dt, rank, xs);
    ins[0].name = "x"; ins[0].t = x; ins[0].data = xv;
    ga.id = be.id = 0;
    if (has_gamma) { ga = rlx_input(g, "gamma", dt, 1, &C); ins[nin].name = "gamma"; ins[nin].t = ga; ins[nin++].data = gv; }
    if (has_beta) { be = rlx_input(g, "beta", dt, 1, &C); ins[nin].name = "beta"; ins[nin].t = be; ins[nin++].data = bv; }
    y = rlx_group_norm(g, x, groups, ga, be, eps);
    rlx_output(g, "y", y);
    TH_CHECK(rlx_graph_status(g) == RLX_OK && shape_is(g, y, rank, xs), "%s: builder failed: %s", what, rlx_graph_error(g));
    /* reference: per (n, group) mean and biased variance over Cg·S values */
    for (b = 0; b < N; b++)
        for (gi = 0; gi < groups; gi++) {
            int64_t cnt = C / groups * S, base = (b * C + gi * (C / groups)) * S;
            double mean = 0.0, var = 0.0;
            for (i = 0; i < cnt; i++) mean += xv[base + i];
            mean /= (double)cnt;
            for (i = 0; i < cnt; i++) var += (xv[base + i] - mean) * (xv[base + i] - mean);
            var /= (double)cnt;
            for (i = 0; i < cnt; i++) {
                int64_t ch = gi * (C / groups) + i / S;
                ref[base + i] = (xv[base + i] - mean) / sqrt(var + (double)eps) * (has_gamma ? gv[ch] : 1.0) +
                                (has_beta ? bv[ch] : 0.0);
            }
        }
    if (rlx_graph_status(g) == RLX_OK && run_graph(g, nin, ins, threads, got, n))
        check_close(what, got, ref, n, dt == RLX_F32 ? 1e-5 : tol_atol(dt), tol_rtol(dt));
    else
        TH_CHECK(0, "%s: did not run", what);
    rlx_graph_destroy(g);
    free(xv); free(gv); free(bv); free(got); free(ref);
}

static void test_group_norm(void) {
    static const int groups[4] = {1, 2, 3, 6};
    int64_t s4[4] = {2, 6, 3, 4}, s3[3] = {2, 4, 5}, s2[2] = {3, 4}, big[4] = {2, 32, 24, 24};
    int k, gb;
    char name[96];
    for (k = 0; k < 4; k++)
        for (gb = 0; gb < 4; gb++) {
            snprintf(name, sizeof name, "group_norm rank4 groups=%d gamma=%d beta=%d", groups[k], gb & 1, gb >> 1);
            run_group_norm(name, 4, s4, groups[k], gb & 1, gb >> 1, 1e-5f, RLX_F32, 1);
        }
    run_group_norm("group_norm rank3 groups=2", 3, s3, 2, 1, 1, 1e-5f, RLX_F32, 1);
    run_group_norm("group_norm rank3 groups=4 no affine", 3, s3, 4, 0, 0, 1e-3f, RLX_F32, 1);
    run_group_norm("group_norm rank3 groups=1", 3, s3, 1, 1, 0, 1e-5f, RLX_F32, 1);
    run_group_norm("group_norm rank2 groups=2", 2, s2, 2, 1, 1, 1e-5f, RLX_F32, 1);
    run_group_norm("group_norm eps=0.5", 4, s4, 3, 1, 1, 0.5f, RLX_F32, 1);
    run_group_norm("group_norm f64", 4, s4, 2, 1, 1, 1e-5f, RLX_F64, 1);
    run_group_norm("group_norm f16", 3, s3, 2, 1, 1, 1e-5f, RLX_F16, 1);
    run_group_norm("group_norm large threads=2", 4, big, 8, 1, 1, 1e-5f, RLX_F32, 2);
}

/* =============================================================================================================
   resize
   ============================================================================================================= */

/* Source coordinate of output index d along an axis of size in → out (bilinear). */
static double ref_rs_src(int64_t d, int64_t in, int64_t out, int align) {
    double s;
    if (align) return out == 1 ? 0.0 : (double)d * (double)(in - 1) / (double)(out - 1);
    s = ((double)d + 0.5) * (double)in / (double)out - 0.5;
    if (s < 0.0) s = 0.0;
    if (s > (double)(in - 1)) s = (double)(in - 1);
    return s;
}

static double ref_lerp_axis(double s, int64_t in, int64_t* i0, int64_t* i1) {
    *i0 = (int64_t)floor(s);
    if (*i0 > in - 1) *i0 = in - 1;
    *i1 = *i0 + 1 < in ? *i0 + 1 : in - 1;
    return s - (double)*i0;
}

static void run_resize(const char* what, int64_t N, int64_t C, int64_t H, int64_t W, int64_t OH, int64_t OW, int mode,
                       int align, rlx_dtype dt, int threads) {
    int64_t xs[4], ys[4], nx = N * C * H * W, ny = N * C * OH * OW, p, oh, ow;
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor x, y;
    double *xv = rnd(nx, dt), *got = (double*)malloc(sizeof(double) * (size_t)ny), *ref = (double*)malloc(sizeof(double) * (size_t)ny);
    tin in1;
    xs[0] = ys[0] = N; xs[1] = ys[1] = C; xs[2] = H; xs[3] = W; ys[2] = OH; ys[3] = OW;
    x = rlx_input(g, "x", dt, 4, xs);
    y = rlx_resize(g, x, OH, OW, (rlx_resize_mode)mode, align);
    rlx_output(g, "y", y);
    TH_CHECK(rlx_graph_status(g) == RLX_OK && shape_is(g, y, 4, ys), "%s: builder failed: %s", what, rlx_graph_error(g));
    for (p = 0; p < N * C; p++)
        for (oh = 0; oh < OH; oh++)
            for (ow = 0; ow < OW; ow++) {
                const double* xp = xv + p * H * W;
                double r;
                if (mode == RLX_RESIZE_NEAREST) {
                    r = xp[(int64_t)floor((double)oh * (double)H / (double)OH) * W + (int64_t)floor((double)ow * (double)W / (double)OW)];
                } else {
                    int64_t h0, h1, w0, w1;
                    double th = ref_lerp_axis(ref_rs_src(oh, H, OH, align), H, &h0, &h1);
                    double tw = ref_lerp_axis(ref_rs_src(ow, W, OW, align), W, &w0, &w1);
                    r = (1 - th) * ((1 - tw) * xp[h0 * W + w0] + tw * xp[h0 * W + w1]) +
                        th * ((1 - tw) * xp[h1 * W + w0] + tw * xp[h1 * W + w1]);
                }
                ref[(p * OH + oh) * OW + ow] = r;
            }
    in1.name = "x"; in1.t = x; in1.data = xv;
    if (rlx_graph_status(g) == RLX_OK && run_graph(g, 1, &in1, threads, got, ny))
        check_close(what, got, ref, ny, tol_atol(dt) * 0.1, tol_rtol(dt));
    else
        TH_CHECK(0, "%s: did not run", what);
    rlx_graph_destroy(g);
    free(xv); free(got); free(ref);
}

static void test_resize(void) {
    /* (H, W) → (OH, OW): up, down, non-integer ratios, out 1, in 1 */
    static const int64_t sz[8][4] = {{3, 4, 7, 9}, {8, 9, 3, 4}, {4, 4, 8, 8}, {6, 5, 1, 1},
                                     {5, 6, 1, 4}, {1, 1, 4, 3}, {2, 7, 5, 2}, {1, 5, 3, 10}};
    int k, mode, align;
    char name[128];
    for (k = 0; k < 8; k++)
        for (mode = RLX_RESIZE_NEAREST; mode <= RLX_RESIZE_BILINEAR; mode++)
            for (align = 0; align < (mode == RLX_RESIZE_BILINEAR ? 2 : 1); align++) {
                snprintf(name, sizeof name, "resize %s%s %lldx%lld -> %lldx%lld", mode == RLX_RESIZE_NEAREST ? "nearest" : "bilinear",
                         mode == RLX_RESIZE_NEAREST ? "" : (align ? " align_corners" : " half_pixel"), (long long)sz[k][0],
                         (long long)sz[k][1], (long long)sz[k][2], (long long)sz[k][3]);
                run_resize(name, 2, 3, sz[k][0], sz[k][1], sz[k][2], sz[k][3], mode, align, RLX_F32, 1);
            }
    /* nearest with whole width factors (a vector pass for 2, a loop per input column for others) and repeated
       source rows (copies of the row above): wide rows, so the vector part and its tail both run */
    run_resize("resize nearest 5x21 -> 10x42", 2, 3, 5, 21, 10, 42, RLX_RESIZE_NEAREST, 0, RLX_F32, 1);
    run_resize("resize nearest 3x7 -> 12x28", 1, 2, 3, 7, 12, 28, RLX_RESIZE_NEAREST, 0, RLX_F32, 1);
    run_resize("resize nearest 2x3 -> 6x24", 1, 2, 2, 3, 6, 24, RLX_RESIZE_NEAREST, 0, RLX_F32, 1);
    run_resize("resize nearest 5x9 -> 7x18", 1, 2, 5, 9, 7, 18, RLX_RESIZE_NEAREST, 0, RLX_F32, 1);
    run_resize("resize nearest 40x40 -> 80x80 threads=2", 1, 8, 40, 40, 80, 80, RLX_RESIZE_NEAREST, 0, RLX_F32, 2);
    run_resize("resize bilinear f64", 1, 2, 5, 4, 9, 7, RLX_RESIZE_BILINEAR, 0, RLX_F64, 1);
    run_resize("resize bilinear f16", 1, 2, 5, 4, 9, 7, RLX_RESIZE_BILINEAR, 1, RLX_F16, 1);
    run_resize("resize nearest bf16", 1, 2, 5, 4, 3, 9, RLX_RESIZE_NEAREST, 0, RLX_BF16, 1);
    run_resize("resize bilinear large threads=2", 2, 8, 40, 50, 73, 91, RLX_RESIZE_BILINEAR, 0, RLX_F32, 2);
}

/* =============================================================================================================
   pad
   ============================================================================================================= */

/* Source index along an axis (numpy semantics), or -1 for the constant. reflect folds with period 2(n−1). */
static int64_t ref_pad_src(int64_t s, int64_t n, int mode) {
    if (s >= 0 && s < n) return s;
    if (mode == RLX_PAD_CONSTANT) return -1;
    if (mode == RLX_PAD_EDGE) return s < 0 ? 0 : n - 1;
    if (n == 1) return 0;
    {
        int64_t per = 2 * (n - 1), m = ((s % per) + per) % per;
        return m < n ? m : per - m;
    }
}

/* Runs pad on raw bytes of dtype dt and compares bytes with the reference. `fill` is the constant's bytes. */
static void run_pad(const char* what, rlx_dtype dt, int rank, const int64_t* xs, const int64_t* before,
                    const int64_t* after, int mode, double value, const void* fill, int threads) {
    size_t e = rlx_dtype_size(dt);
    int64_t os[RLX_MAX_RANK], nx = 1, ny = 1, f, i;
    int a, ok;
    unsigned char *xv, *got, *ref;
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor x, y;
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    for (a = 0; a < rank; a++) { os[a] = xs[a] + before[a] + after[a]; nx *= xs[a]; ny *= os[a]; }
    xv = (unsigned char*)malloc((size_t)nx * e);
    got = (unsigned char*)malloc((size_t)ny * e);
    ref = (unsigned char*)malloc((size_t)ny * e);
    for (i = 0; i < nx; i++) {
        uint64_t r = th_rng();
        if (dt == RLX_F16) {          /* finite, non-zero f16: exponent field 1..30 */
            uint16_t h = (uint16_t)(((r >> 20) & 0x8000u) | ((1 + (r % 30)) << 10) | ((r >> 8) & 0x3FFu));
            memcpy(xv + (size_t)i * e, &h, 2);
        } else if (dt == RLX_F32) {
            float v = (float)th_uniform(-100.0, 100.0);
            memcpy(xv + (size_t)i * e, &v, 4);
        } else if (dt == RLX_F64) {
            double v = th_uniform(-100.0, 100.0);
            memcpy(xv + (size_t)i * e, &v, 8);
        } else {                      /* integers: any bytes */
            size_t b;
            for (b = 0; b < e; b++) xv[(size_t)i * e + b] = (unsigned char)(r >> (8 * b));
            if (dt == RLX_BOOL) xv[(size_t)i * e] &= 1u;
        }
    }
    for (f = 0; f < ny; f++) {
        int64_t rem = f, src = 0, st = 1;
        int inside = 1;
        for (a = rank - 1; a >= 0; a--) {
            int64_t o = rem % os[a], s = ref_pad_src(o - before[a], xs[a], mode);
            rem /= os[a];
            if (s < 0) inside = 0;
            else src += s * st;
            st *= xs[a];
        }
        memcpy(ref + (size_t)f * e, inside ? xv + (size_t)src * e : (const unsigned char*)fill, e);
    }
    x = rlx_input(g, "x", dt, rank, xs);
    y = rlx_pad(g, x, before, after, (rlx_pad_mode)mode, value);
    rlx_output(g, "y", y);
    ok = rlx_graph_status(g) == RLX_OK && shape_is(g, y, rank, os);
    TH_CHECK(ok, "%s: builder failed or wrong shape: %s", what, rlx_graph_error(g));
    memset(&cd, 0, sizeof cd);
    cd.num_threads = threads;
    if (ok) ok = rlx_compile(g, &cd, &p) == RLX_OK;
    if (ok) ok = rlx_set_input(p, "x", dt, xv, (size_t)nx * e) == RLX_OK;
    if (ok) ok = rlx_run(p) == RLX_OK;
    if (ok) ok = rlx_get_output(p, "y", dt, got, (size_t)ny * e) == RLX_OK;
    if (ok) {
        int64_t first = -1;
        for (f = 0; f < ny && first < 0; f++)
            if (memcmp(got + (size_t)f * e, ref + (size_t)f * e, e)) first = f;
        TH_CHECK(first < 0, "%s: element %lld differs", what, (long long)first);
    } else {
        TH_CHECK(0, "%s: did not run (%s%s)", what, rlx_graph_error(g), p ? rlx_program_error(p) : "");
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    free(xv); free(got); free(ref);
}

static void test_pad(void) {
    static const char* mname[4] = {"", "constant", "reflect", "edge"};
    static const rlx_dtype dts[4] = {RLX_F32, RLX_I64, RLX_U8, RLX_F16};
    /* shapes of rank 1..4 and paddings (reflect needs < dim, so every pad here is below its dim) */
    static const int64_t shapes[4][4] = {{7, 0, 0, 0}, {4, 5, 0, 0}, {3, 4, 5, 0}, {2, 3, 4, 5}};
    static const int64_t bef[4][4] = {{3, 0, 0, 0}, {1, 4, 0, 0}, {2, 0, 3, 0}, {1, 2, 0, 4}};
    static const int64_t aft[4][4] = {{6, 0, 0, 0}, {3, 0, 0, 0}, {0, 3, 4, 0}, {0, 2, 3, 1}};
    int r, m, k;
    char name[96];
    for (k = 0; k < 4; k++) {
        rlx_dtype dt = dts[k];
        unsigned char fill[8];
        double value;
        memset(fill, 0, sizeof fill);
        if (dt == RLX_F32) { float v = 2.5f; value = 2.5; memcpy(fill, &v, 4); }
        else if (dt == RLX_I64) { int64_t v = -7; value = -7.0; memcpy(fill, &v, 8); }
        else if (dt == RLX_U8) { value = 9.0; fill[0] = 9; }
        else { uint16_t v = 0x3E00; value = 1.5; memcpy(fill, &v, 2); }   /* 1.5 in f16 */
        for (r = 1; r <= 4; r++)
            for (m = RLX_PAD_CONSTANT; m <= RLX_PAD_EDGE; m++) {
                snprintf(name, sizeof name, "pad rank%d %s %s", r, mname[m], rlx_dtype_name(dt));
                run_pad(name, dt, r, shapes[r - 1], bef[r - 1], aft[r - 1], m, value, fill, 1);
            }
    }
    {
        /* reflect with the largest legal padding (dim − 1); a size-1 axis with zero padding */
        int64_t xs[3] = {4, 1, 3}, b[3] = {3, 0, 2}, a[3] = {3, 0, 2};
        float v = 0.0f;
        unsigned char fill[4];
        memcpy(fill, &v, 4);
        run_pad("pad reflect dim-1", RLX_F32, 3, xs, b, a, RLX_PAD_REFLECT, 0.0, fill, 1);
        run_pad("pad edge dim-1", RLX_F32, 3, xs, b, a, RLX_PAD_EDGE, 0.0, fill, 1);
    }
    {
        /* edge padding far beyond the dim, f64 and i32; bool constant */
        int64_t xs[2] = {2, 3}, b[2] = {5, 0}, a[2] = {1, 7};
        double dv = -0.25;
        int32_t iv = 0;
        unsigned char fill[8];
        memcpy(fill, &dv, 8);
        run_pad("pad edge wide f64", RLX_F64, 2, xs, b, a, RLX_PAD_EDGE, -0.25, fill, 1);
        run_pad("pad constant f64", RLX_F64, 2, xs, b, a, RLX_PAD_CONSTANT, -0.25, fill, 1);
        memcpy(fill, &iv, 4);
        run_pad("pad edge wide i32", RLX_I32, 2, xs, b, a, RLX_PAD_EDGE, 0.0, fill, 1);
        fill[0] = 1;
        run_pad("pad constant bool", RLX_BOOL, 2, xs, b, a, RLX_PAD_CONSTANT, 1.0, fill, 1);
    }
    {
        /* no padding at all; a large rank-4 case on two threads */
        int64_t xs[4] = {2, 3, 64, 65}, z[4] = {0, 0, 0, 0}, b[4] = {0, 1, 3, 2}, a[4] = {1, 0, 2, 5};
        float v = -1.0f;
        unsigned char fill[4];
        memcpy(fill, &v, 4);
        run_pad("pad nothing", RLX_F32, 4, xs, z, z, RLX_PAD_REFLECT, 0.0, fill, 1);
        run_pad("pad large constant threads=2", RLX_F32, 4, xs, b, a, RLX_PAD_CONSTANT, -1.0, fill, 2);
        run_pad("pad large reflect threads=2", RLX_F32, 4, xs, b, a, RLX_PAD_REFLECT, -1.0, fill, 2);
    }
}

/* =============================================================================================================
   Builder errors
   ============================================================================================================= */

static void expect_status(const char* what, rlx_graph* g, rlx_result want) {
    rlx_result got = rlx_graph_status(g);
    TH_CHECK(got == want, "%s: status %s, want %s (%s)", what, rlx_result_string(got), rlx_result_string(want),
             rlx_graph_error(g));
    rlx_graph_destroy(g);
}

static void test_errors(void) {
    int64_t x4[4] = {1, 4, 5, 5}, x3[3] = {1, 4, 9}, x2[2] = {4, 5}, x5[5] = {1, 4, 3, 3, 3};
    int64_t w4[4] = {6, 2, 3, 3}, w3[3] = {6, 4, 3}, wbad[4] = {6, 3, 3, 3}, big[4] = {6, 4, 7, 7}, b6[1] = {6}, b5[1] = {5}, wt[4] = {4, 2, 3, 3};
    int64_t c4[1] = {4}, c3[1] = {3}, zero[4] = {0, 0, 0, 0}, ref_b[2] = {0, 5}, ref_a[2] = {0, 1}, neg[2] = {-1, 0};
    rlx_conv_desc d;
    rlx_pool_desc pd;
    rlx_graph* g;
    rlx_tensor none;
    none.id = 0;
    memset(&d, 0, sizeof d);

    /* conv */
    g = rlx_graph_create(NULL);
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, w4), none, NULL);
    expect_status("conv NULL desc", g, RLX_ERROR_INVALID_ARGUMENT);
    g = rlx_graph_create(NULL);
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 3, x3), rlx_input(g, "w", RLX_F32, 4, w4), none, &d);
    expect_status("conv x/w rank mismatch", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 2, x2), rlx_input(g, "w", RLX_F32, 2, x2), none, &d);
    expect_status("conv rank 2", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 5, x5), rlx_input(g, "w", RLX_F32, 5, x5), none, &d);
    expect_status("conv rank 5", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    d.groups = 3;
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, w4), none, &d);
    expect_status("conv groups not dividing C", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    d.groups = 2;
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, wbad), none, &d);
    expect_status("conv w.shape[1] != C/groups", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    d.groups = 4;
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, w4), none, &d);
    expect_status("conv O not divisible by groups", g, RLX_ERROR_SHAPE);
    d.groups = 2;
    g = rlx_graph_create(NULL);
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, w4), rlx_input(g, "b", RLX_F32, 1, b5), &d);
    expect_status("conv bias wrong shape", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, w4), rlx_input(g, "b", RLX_F32, 2, x2), &d);
    expect_status("conv bias rank 2", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, w4), rlx_input(g, "b", RLX_F64, 1, b6), &d);
    expect_status("conv bias dtype", g, RLX_ERROR_DTYPE);
    g = rlx_graph_create(NULL);
    d.groups = 1;
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, big), none, &d);
    expect_status("conv zero output size", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    d.dilation[0] = 5;   /* 5·(3−1)+1 = 11 > 9 */
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 3, x3), rlx_input(g, "w", RLX_F32, 3, w3), none, &d);
    expect_status("conv1d dilated kernel larger than input", g, RLX_ERROR_SHAPE);
    d.dilation[0] = 0;
    d.groups = 2;
    g = rlx_graph_create(NULL);
    d.stride[1] = -1;
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, w4), none, &d);
    expect_status("conv negative stride", g, RLX_ERROR_INVALID_ARGUMENT);
    d.stride[1] = 0;
    g = rlx_graph_create(NULL);
    d.pad_begin[0] = -1;
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, w4), none, &d);
    expect_status("conv negative padding", g, RLX_ERROR_INVALID_ARGUMENT);
    d.pad_begin[0] = 0;
    g = rlx_graph_create(NULL);
    d.output_padding[0] = 1;
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, w4), none, &d);
    expect_status("conv with output_padding", g, RLX_ERROR_INVALID_ARGUMENT);
    d.output_padding[0] = 0;
    g = rlx_graph_create(NULL);
    rlx_conv(g, rlx_input(g, "x", RLX_I32, 4, x4), rlx_input(g, "w", RLX_I32, 4, w4), none, &d);
    expect_status("conv int dtype", g, RLX_ERROR_DTYPE);
    g = rlx_graph_create(NULL);
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F16, 4, w4), none, &d);
    expect_status("conv dtype mismatch", g, RLX_ERROR_DTYPE);
    g = rlx_graph_create(NULL);
    rlx_conv(g, rlx_input(g, "x", RLX_F32, 4, x4), none, none, &d);
    expect_status("conv invalid w handle", g, RLX_ERROR_INVALID_TENSOR);

    /* conv_transpose: w [C, O/groups, KH, KW] */
    memset(&d, 0, sizeof d);
    g = rlx_graph_create(NULL);
    rlx_conv_transpose(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, w4), none, NULL);
    expect_status("conv_transpose NULL desc", g, RLX_ERROR_INVALID_ARGUMENT);
    g = rlx_graph_create(NULL);
    rlx_conv_transpose(g, rlx_input(g, "x", RLX_F32, 3, x3), rlx_input(g, "w", RLX_F32, 3, w3), none, &d);
    expect_status("conv_transpose 1D", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_conv_transpose(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, w4), none, &d);
    expect_status("conv_transpose w.shape[0] != C", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    d.groups = 3;
    rlx_conv_transpose(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, wt), none, &d);
    expect_status("conv_transpose groups not dividing C", g, RLX_ERROR_SHAPE);
    d.groups = 2;
    g = rlx_graph_create(NULL);   /* w [4, 2, 3, 3] with groups 2 → O = 4 */
    rlx_conv_transpose(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, wt), rlx_input(g, "b", RLX_F32, 1, c3), &d);
    expect_status("conv_transpose bias wrong shape", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_conv_transpose(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, wt), rlx_input(g, "b", RLX_F32, 1, c4), &d);
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "conv_transpose groups 2 with bias [O] builds: %s", rlx_graph_error(g));
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);
    d.groups = 4;   /* w [4, 2, 3, 3] with groups 4 → O = 8: bias [4] is wrong */
    rlx_conv_transpose(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, wt), rlx_input(g, "b", RLX_F32, 1, c4), &d);
    d.groups = 2;
    expect_status("conv_transpose bias [C] where O = 8", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    d.stride[0] = 2; d.output_padding[0] = 2;
    rlx_conv_transpose(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, wt), none, &d);
    expect_status("conv_transpose output_padding >= stride", g, RLX_ERROR_INVALID_ARGUMENT);
    g = rlx_graph_create(NULL);
    d.stride[0] = 1; d.output_padding[0] = 0; d.pad_begin[0] = 5; d.pad_end[0] = 5;   /* 4 − 10 + 2 + 1 < 1 */
    rlx_conv_transpose(g, rlx_input(g, "x", RLX_F32, 4, x4), rlx_input(g, "w", RLX_F32, 4, wt), none, &d);
    expect_status("conv_transpose zero output size", g, RLX_ERROR_SHAPE);

    /* pool */
    memset(&pd, 0, sizeof pd);
    pd.kind = RLX_POOL_MAX; pd.kernel[0] = pd.kernel[1] = 2;
    g = rlx_graph_create(NULL);
    rlx_pool(g, rlx_input(g, "x", RLX_F32, 4, x4), NULL);
    expect_status("pool NULL desc", g, RLX_ERROR_INVALID_ARGUMENT);
    g = rlx_graph_create(NULL);
    pd.kind = RLX_POOL_INVALID;
    rlx_pool(g, rlx_input(g, "x", RLX_F32, 4, x4), &pd);
    expect_status("pool invalid kind", g, RLX_ERROR_INVALID_ARGUMENT);
    g = rlx_graph_create(NULL);
    pd.kind = RLX_POOL_KIND_COUNT;
    rlx_pool(g, rlx_input(g, "x", RLX_F32, 4, x4), &pd);
    expect_status("pool kind out of range", g, RLX_ERROR_INVALID_ARGUMENT);
    pd.kind = RLX_POOL_AVG;
    g = rlx_graph_create(NULL);
    rlx_pool(g, rlx_input(g, "x", RLX_F32, 2, x2), &pd);
    expect_status("pool rank 2", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_pool(g, rlx_input(g, "x", RLX_F32, 5, x5), &pd);
    expect_status("pool rank 5", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_pool(g, rlx_input(g, "x", RLX_I64, 4, x4), &pd);
    expect_status("pool int dtype", g, RLX_ERROR_DTYPE);
    g = rlx_graph_create(NULL);
    pd.kernel[0] = 6;
    rlx_pool(g, rlx_input(g, "x", RLX_F32, 4, x4), &pd);
    expect_status("pool kernel > input", g, RLX_ERROR_INVALID_ARGUMENT);
    g = rlx_graph_create(NULL);
    pd.kernel[0] = 0;
    rlx_pool(g, rlx_input(g, "x", RLX_F32, 4, x4), &pd);
    expect_status("pool zero kernel", g, RLX_ERROR_INVALID_ARGUMENT);
    g = rlx_graph_create(NULL);
    pd.kernel[0] = 2; pd.pad_begin[1] = 2;
    rlx_pool(g, rlx_input(g, "x", RLX_F32, 4, x4), &pd);
    expect_status("pool padding >= kernel", g, RLX_ERROR_INVALID_ARGUMENT);
    g = rlx_graph_create(NULL);
    pd.pad_begin[1] = 0; pd.stride[0] = -1;
    rlx_pool(g, rlx_input(g, "x", RLX_F32, 4, x4), &pd);
    expect_status("pool negative stride", g, RLX_ERROR_INVALID_ARGUMENT);

    /* group_norm */
    g = rlx_graph_create(NULL);
    rlx_group_norm(g, rlx_input(g, "x", RLX_F32, 4, x4), 3, none, none, 1e-5f);
    expect_status("group_norm groups not dividing C", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_group_norm(g, rlx_input(g, "x", RLX_F32, 4, x4), 0, none, none, 1e-5f);
    expect_status("group_norm groups 0", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_group_norm(g, rlx_input(g, "x", RLX_F32, 1, c4), 1, none, none, 1e-5f);
    expect_status("group_norm rank 1", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_group_norm(g, rlx_input(g, "x", RLX_F32, 4, x4), 2, rlx_input(g, "gamma", RLX_F32, 1, c3), none, 1e-5f);
    expect_status("group_norm gamma wrong shape", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_group_norm(g, rlx_input(g, "x", RLX_F32, 4, x4), 2, none, rlx_input(g, "beta", RLX_F64, 1, c4), 1e-5f);
    expect_status("group_norm beta dtype", g, RLX_ERROR_DTYPE);
    g = rlx_graph_create(NULL);
    rlx_group_norm(g, rlx_input(g, "x", RLX_F32, 4, x4), 2, none, none, -1.0f);
    expect_status("group_norm negative eps", g, RLX_ERROR_INVALID_ARGUMENT);
    g = rlx_graph_create(NULL);
    rlx_group_norm(g, rlx_input(g, "x", RLX_I32, 4, x4), 2, none, none, 1e-5f);
    expect_status("group_norm int dtype", g, RLX_ERROR_DTYPE);

    /* resize */
    g = rlx_graph_create(NULL);
    rlx_resize(g, rlx_input(g, "x", RLX_F32, 4, x4), 4, 4, RLX_RESIZE_INVALID, 0);
    expect_status("resize invalid mode", g, RLX_ERROR_INVALID_ARGUMENT);
    g = rlx_graph_create(NULL);
    rlx_resize(g, rlx_input(g, "x", RLX_F32, 4, x4), 4, 4, RLX_RESIZE_MODE_COUNT, 0);
    expect_status("resize mode out of range", g, RLX_ERROR_INVALID_ARGUMENT);
    g = rlx_graph_create(NULL);
    rlx_resize(g, rlx_input(g, "x", RLX_F32, 4, x4), 0, 4, RLX_RESIZE_NEAREST, 0);
    expect_status("resize zero height", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_resize(g, rlx_input(g, "x", RLX_F32, 4, x4), 3, -2, RLX_RESIZE_BILINEAR, 1);
    expect_status("resize negative width", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_resize(g, rlx_input(g, "x", RLX_F32, 3, x3), 4, 4, RLX_RESIZE_NEAREST, 0);
    expect_status("resize rank 3", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_resize(g, rlx_input(g, "x", RLX_U8, 4, x4), 4, 4, RLX_RESIZE_NEAREST, 0);
    expect_status("resize int dtype", g, RLX_ERROR_DTYPE);

    /* pad */
    g = rlx_graph_create(NULL);
    rlx_pad(g, rlx_input(g, "x", RLX_F32, 2, x2), ref_b, ref_a, RLX_PAD_REFLECT, 0.0);
    expect_status("pad reflect pad == dim", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_pad(g, rlx_input(g, "x", RLX_F32, 2, x2), ref_b, ref_a, RLX_PAD_EDGE, 0.0);
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "pad edge pad == dim is fine");
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);
    rlx_pad(g, rlx_input(g, "x", RLX_F32, 2, x2), neg, zero, RLX_PAD_CONSTANT, 0.0);
    expect_status("pad negative", g, RLX_ERROR_SHAPE);
    g = rlx_graph_create(NULL);
    rlx_pad(g, rlx_input(g, "x", RLX_F32, 2, x2), zero, zero, RLX_PAD_INVALID, 0.0);
    expect_status("pad invalid mode", g, RLX_ERROR_INVALID_ARGUMENT);
    g = rlx_graph_create(NULL);
    rlx_pad(g, rlx_input(g, "x", RLX_F32, 2, x2), zero, zero, RLX_PAD_MODE_COUNT, 0.0);
    expect_status("pad mode out of range", g, RLX_ERROR_INVALID_ARGUMENT);
    g = rlx_graph_create(NULL);
    rlx_pad(g, rlx_input(g, "x", RLX_F32, 2, x2), NULL, zero, RLX_PAD_CONSTANT, 0.0);
    expect_status("pad NULL before", g, RLX_ERROR_INVALID_ARGUMENT);
    g = rlx_graph_create(NULL);
    rlx_pad(g, rlx_input(g, "x", RLX_F32, 2, x2), zero, NULL, RLX_PAD_CONSTANT, 0.0);
    expect_status("pad NULL after", g, RLX_ERROR_INVALID_ARGUMENT);
    g = rlx_graph_create(NULL);
    rlx_pad(g, none, zero, zero, RLX_PAD_CONSTANT, 0.0);
    expect_status("pad invalid handle", g, RLX_ERROR_INVALID_TENSOR);
}

int main(void) {
    test_conv();
    test_conv_transpose();
    test_conv_threads();
    test_conv_few_pixels();
    test_conv_folded();
    test_pool();
    test_group_norm();
    test_resize();
    test_pad();
    test_errors();
    return th_summary("vision");
}
