/* Depthwise f32 convolution on the CPU (one input channel per group: the padded-plane kernel, AVX2 tiles of 1 x 64,
   2 x 32, 4 x 16 and 8 x 8 outputs, AVX-512 row tiles or 16 channels at a time, or portable C; the loop form when
   the padded copy would be large) against
   a double-precision reference written here: strides 1 to 3, dilation, asymmetric and large padding, channel
   multipliers, rows shorter and longer than the vector blocks, with and without bias, one and two threads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

typedef struct dwcase {
    const char* name;
    int N, C, mult, H, W, KH, KW, sh, sw, dh, dw, pt, pl, pb, pr, bias;
} dwcase;

static int64_t out_dim(int n, int k, int s, int d, int p0, int p1) { return (n + p0 + p1 - (int64_t)d * (k - 1) - 1) / s + 1; }

static void run_case(const dwcase* c, int threads) {
    int64_t O = (int64_t)c->C * c->mult, OH = out_dim(c->H, c->KH, c->sh, c->dh, c->pt, c->pb),
            OW = out_dim(c->W, c->KW, c->sw, c->dw, c->pl, c->pr);
    int64_t xs[4] = {c->N, c->C, c->H, c->W}, ws[4] = {O, 1, c->KH, c->KW}, bs[1] = {O};
    size_t nx = (size_t)(c->N * c->C * c->H * c->W), nw = (size_t)(O * c->KH * c->KW), ny = (size_t)(c->N * O * OH * OW), i;
    float *x = (float*)malloc(nx * sizeof(float)), *w = (float*)malloc(nw * sizeof(float)), *b = (float*)malloc((size_t)O * sizeof(float));
    float* y = (float*)malloc(ny * sizeof(float));
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_conv_desc d;
    rlx_tensor tx, tw, tb = {0};
    int ok, n, o, oh, ow, kh, kw, bad = -1;
    double worst = 0, ref_bad = 0;
    for (i = 0; i < nx; i++) x[i] = (float)th_uniform(-1.0, 1.0);
    for (i = 0; i < nw; i++) w[i] = (float)th_uniform(-1.0, 1.0);
    for (i = 0; i < (size_t)O; i++) b[i] = (float)th_uniform(-1.0, 1.0);
    memset(&d, 0, sizeof d);
    d.stride[0] = c->sh; d.stride[1] = c->sw;
    d.dilation[0] = c->dh; d.dilation[1] = c->dw;
    d.pad_begin[0] = c->pt; d.pad_begin[1] = c->pl;
    d.pad_end[0] = c->pb; d.pad_end[1] = c->pr;
    d.groups = c->C;
    tx = rlx_input(g, "x", RLX_F32, 4, xs);
    tw = rlx_param(g, "w", RLX_F32, 4, ws);
    if (c->bias) tb = rlx_param(g, "b", RLX_F32, 1, bs);
    rlx_output(g, "y", rlx_conv(g, tx, tw, tb, &d));
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    cd.num_threads = threads;
    ok = rlx_compile(g, &cd, &p) == RLX_OK;
    TH_CHECK(ok, "%s: compile: %s", c->name, rlx_graph_error(g));
    if (ok) {
        ok = rlx_set_input_f32(p, "x", x, nx) == RLX_OK && rlx_set_param_f32(p, "w", w, nw) == RLX_OK &&
             (!c->bias || rlx_set_param_f32(p, "b", b, (size_t)O) == RLX_OK) && rlx_run(p) == RLX_OK &&
             rlx_get_output_f32(p, "y", y, ny) == RLX_OK;
        TH_CHECK(ok, "%s: run: %s", c->name, rlx_program_error(p));
    }
    for (n = 0; ok && n < c->N; n++)
        for (o = 0; o < O; o++)
            for (oh = 0; oh < OH; oh++)
                for (ow = 0; ow < OW; ow++) {
                    double acc = c->bias ? (double)b[o] : 0.0, got, err;
                    int ci = o / c->mult;
                    for (kh = 0; kh < c->KH; kh++)
                        for (kw = 0; kw < c->KW; kw++) {
                            int64_t ih = (int64_t)oh * c->sh - c->pt + (int64_t)kh * c->dh, iw = (int64_t)ow * c->sw - c->pl + (int64_t)kw * c->dw;
                            if (ih < 0 || ih >= c->H || iw < 0 || iw >= c->W) continue;
                            acc += (double)w[(o * c->KH + kh) * c->KW + kw] * (double)x[((n * c->C + ci) * c->H + ih) * c->W + iw];
                        }
                    got = y[((n * O + o) * OH + oh) * OW + ow];
                    err = fabs(got - acc);
                    if (err > worst) worst = err;
                    if (bad < 0 && !(err <= 1e-5 + 1e-5 * fabs(acc))) { bad = (int)(((n * O + o) * OH + oh) * OW + ow); ref_bad = acc; }
                }
    if (ok) TH_CHECK(bad < 0, "%s (%d thread(s)): y[%d] = %.9g, f64 reference %.9g (max error %.3g)", c->name, threads, bad,
                     bad < 0 ? 0.0 : (double)y[bad], ref_bad, worst);
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    free(x); free(w); free(b); free(y);
}

int main(void) {
    static const dwcase cases[] = {
        /* name                      N  C mult  H   W  KH KW sh sw dh dw pt pl pb pr bias */
        {"3x3 s1 pad 1, W 70",        1, 5, 1, 9, 70, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {"3x3 s2 pad 1, W 75",        2, 4, 1, 11, 75, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},
        {"5x5 s1 pad 2, 20x20",       1, 7, 1, 20, 20, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1},
        {"5x5 s1 pad 2, W 33",        1, 3, 1, 6, 33, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1},
        {"3x3 s3 dilation 2",         1, 3, 1, 17, 41, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 1},
        {"3x2 s(1,2) dil(2,3) asym",  1, 3, 1, 10, 50, 3, 2, 1, 2, 2, 3, 2, 0, 0, 3, 1},
        {"multiplier 2, W 40",        1, 3, 2, 8, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {"1x7 no padding",            1, 4, 1, 3, 64, 1, 7, 1, 1, 1, 1, 0, 0, 0, 0, 0},
        {"7x1 pad 3 rows only",       1, 4, 1, 12, 8, 7, 1, 1, 1, 1, 1, 3, 0, 3, 0, 1},
        {"3x13 39 rows, wide pad",    1, 1, 3, 39, 5, 3, 13, 1, 1, 1, 1, 1, 107, 1, 0, 1},   /* 6-row tiles past 40 */
        {"large padding",             1, 2, 1, 2, 3, 3, 3, 1, 1, 1, 1, 40, 40, 40, 40, 1},
        {"padding 40, s3 (loop form)",1, 2, 1, 2, 3, 3, 3, 3, 3, 1, 1, 40, 40, 40, 40, 1},
        {"width 1",                   1, 3, 1, 9, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {"many planes (2 threads)",   1, 96, 1, 40, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* the AVX-512 row kernels (KH 3/5/7, row stride 1/2) and the stride-2 padding: tiles of 4 x 32 and 8 x 16
           with column tails, last tiles of 1-7 rows, padding on one side only, width dilation */
        {"7x7 s1 pad 3, 13x50",       1, 3, 1, 13, 50, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3, 1},
        {"7x7 s2 pad 3, 29x97",       1, 2, 1, 29, 97, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1},
        {"5x5 s2 pad 2, 11x40",       1, 3, 1, 11, 40, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 0},
        {"3x3 s2 no pad, 3x131",      1, 2, 1, 7, 131, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1},
        {"3x3 s2 pad right only",     1, 3, 1, 10, 66, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 1},
        {"3x3 s(2,1) pad 1, W 47",    1, 3, 1, 9, 47, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1},
        {"5x5 s(1,2) pad 2, 3x80",    1, 4, 1, 3, 80, 5, 5, 1, 2, 1, 1, 2, 2, 2, 2, 1},
        {"5x3 dw 2, 6x36",            1, 3, 1, 6, 36, 5, 3, 1, 1, 1, 2, 2, 2, 2, 2, 1},
        {"3x3 s1 pad 1, 1x16",        1, 5, 1, 1, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* the AVX-512 in-place form (column stride 1, no padded copy): padding rows from a zero row, padding
           columns masked, on one side only, row stride 2, wide column dilation */
        {"5x5 s(2,1) pad 2, 12x80",   1, 4, 1, 12, 80, 5, 5, 2, 1, 1, 1, 2, 2, 2, 2, 1},
        {"3x3 s1 pad top-left, 10x45",1, 3, 1, 10, 45, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 1},
        {"3x5 s1 dw 9 pad 18, 9x60",  1, 2, 1, 9, 60, 3, 5, 1, 1, 1, 9, 1, 18, 1, 18, 1},
        /* the AVX-512 16-channel form (column stride 2, or 5 x 5 and larger on rows of at most 24): channel
           counts past a multiple of 16, rows and columns past a multiple of the 4 x 4 tile, asymmetric
           padding, batches, dilation and kernel shapes outside the tiles (the one-row loop) */
        {"16ch: 5x5 s1 10x10, 37 ch", 1, 37, 1, 10, 10, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1},
        {"16ch: 5x5 s2 20x20, 2x20",  2, 20, 1, 20, 20, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 1},
        {"16ch: 7x7 s2 23x21 asym",   1, 16, 1, 23, 21, 7, 7, 2, 2, 1, 1, 3, 1, 2, 4, 0},
        {"16ch: 3x3 s(1,2) 6x50",     1, 17, 1, 6, 50, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, 1},
        {"16ch: 3x3 s2 dil 2, 13x15", 1, 18, 1, 13, 15, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 1},
        {"16ch: 1x5 s(1,2), 5x33",    1, 16, 1, 5, 33, 1, 5, 1, 2, 1, 1, 0, 2, 0, 2, 1},
        {"16ch: 5x5 s1 7x22 asym",    1, 33, 1, 7, 22, 5, 5, 1, 1, 1, 1, 2, 1, 0, 3, 1},
        {"16ch: 5x5 s(2,1) 9x13",     1, 19, 1, 9, 13, 5, 5, 2, 1, 1, 1, 2, 2, 2, 2, 0},
        /* the AVX-512 row tiles of 3 x 32 and 6 x 16 (rows a multiple of 3 but not of 4) */
        {"r3: 5x5 s1 pad 2, 3x80",    1, 5, 1, 3, 80, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1},
        {"r3: 3x3 s1 pad 1, 9x50",    1, 3, 1, 9, 50, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {"r3: 7x7 s2 pad 3, 11x45",   1, 2, 1, 11, 45, 7, 7, 2, 1, 1, 1, 3, 3, 3, 3, 0},
        {"r3: 5x5 s1 pad top, 18x70", 1, 2, 1, 20, 70, 5, 5, 1, 1, 1, 1, 2, 2, 0, 2, 1},
    };
    int i;
    th_seed(99);
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        run_case(&cases[i], 1);
        run_case(&cases[i], 2);
    }
    return th_summary("depthwise");
}
