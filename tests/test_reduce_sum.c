/* f32 sum and mean over adjacent axes on the CPU (the fast forms of the reduction kernel): column sums
   (x [O, R, I], I > 1: bias and norm gradients), row sums (I = 1; 16, 4 and single rows, tails of the
   4-column steps) and long rows into few outputs (blocks of 8192 in 16 double lanes, more than 256 blocks),
   length-1 axes between the reduced ones, keepdims, one and two threads; against a double-precision sum in
   element order computed here: bit for bit except the long rows (close: another order of the double sum).
   A reduction over non-adjacent axes (the generic kernel) is checked the same way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* reference: y[out] = Σ x over the marked axes, in element order, in double, rounded once */
static void ref_reduce(int rank, const int64_t* shape, const int* mark, int mean, const float* x, float* y) {
    int64_t n = 1, nout = 1, e, st[8], ost[8], cnt = 1;
    double* acc;
    int i;
    for (i = rank - 1; i >= 0; i--) { st[i] = n; n *= shape[i]; }
    for (i = rank - 1; i >= 0; i--) { ost[i] = nout; if (!mark[i]) nout *= shape[i]; else cnt *= shape[i]; }
    acc = (double*)calloc((size_t)nout, sizeof(double));
    for (e = 0; e < n; e++) {   /* element order is the order of each output's terms */
        int64_t o = 0;
        for (i = 0; i < rank; i++) if (!mark[i]) o += (e / st[i] % shape[i]) * ost[i];
        acc[o] += (double)x[e];
    }
    for (e = 0; e < nout; e++) y[e] = (float)(mean ? acc[e] / (double)cnt : acc[e]);
    free(acc);
}

static void check(const char* what, int rank, const int64_t* shape, int naxes, const int* axes, int keep, int exact) {
    int64_t n = 1, nout = 1;
    int mark[8] = {0}, i, t, mean, bad;
    float *x, *y, *r;
    for (i = 0; i < rank; i++) n *= shape[i];
    for (i = 0; i < naxes; i++) mark[axes[i]] = 1;
    for (i = 0; i < rank; i++) if (!mark[i]) nout *= shape[i];
    x = (float*)malloc(sizeof(float) * (size_t)n);
    y = (float*)malloc(sizeof(float) * (size_t)nout);
    r = (float*)malloc(sizeof(float) * (size_t)nout);
    for (i = 0; i < n; i++) x[i] = (float)(th_uniform(-1.0, 1.0) * pow(2.0, th_uniform(-12.0, 12.0)));
    if (n > 50) { x[7] = NAN; x[n - 1] = INFINITY; }
    for (mean = 0; mean < 2; mean++) {
        ref_reduce(rank, shape, mark, mean, x, r);
        for (t = 1; t <= 2; t++) {
            rlx_graph* g = rlx_graph_create(NULL);
            rlx_program* p = NULL;
            rlx_compile_desc cd;
            rlx_tensor xin = rlx_input(g, "x", RLX_F32, rank, shape);
            int ok;
            rlx_output(g, "y", mean ? rlx_reduce_mean(g, xin, naxes, axes, keep) : rlx_reduce_sum(g, xin, naxes, axes, keep));
            memset(&cd, 0, sizeof cd);
            cd.device = RLX_DEVICE_CPU;
            cd.num_threads = t;
            ok = rlx_compile(g, &cd, &p) == RLX_OK && rlx_set_input_f32(p, "x", x, n) == RLX_OK && rlx_run(p) == RLX_OK &&
                 rlx_get_output_f32(p, "y", y, nout) == RLX_OK;
            TH_CHECK(ok, "%s: %s", what, p ? rlx_program_error(p) : rlx_graph_error(g));
            for (i = 0, bad = -1; ok && i < nout && bad < 0; i++) {
                int same = exact ? ((r[i] != r[i] && y[i] != y[i]) || bits(r[i]) == bits(y[i])) : th_close(y[i], r[i], 1e-30, 1e-6);
                if (!same) bad = i;
            }
            TH_CHECK(bad < 0, "%s (%s, %d thread(s)): y[%d] = %.9g (0x%08x), want %.9g (0x%08x)", what, mean ? "mean" : "sum",
                     t, bad, bad < 0 ? 0.0 : (double)y[bad], bad < 0 ? 0u : bits(y[bad]), bad < 0 ? 0.0 : (double)r[bad],
                     bad < 0 ? 0u : bits(r[bad]));
            rlx_program_destroy(p);
            rlx_graph_destroy(g);
        }
    }
    free(x); free(y); free(r);
}

int main(void) {
    static const int64_t s_col[2] = {1024, 515}, s_col3[3] = {3, 700, 1029}, s_cols4[4] = {16, 64, 1, 128};
    static const int64_t s_rows[2] = {4099, 67}, s_rows2[3] = {7, 5, 131}, s_few[2] = {3, 20011};
    static const int64_t s_big[1] = {8192 * 300 + 5}, s_gap[3] = {9, 33, 17}, s_one[3] = {1, 4096, 1};
    static const int a0[1] = {0}, a1[1] = {1}, a01[2] = {0, 1}, a12[2] = {1, 2}, a02[2] = {0, 2}, a2[1] = {2};
    static const int a013[3] = {0, 1, 2};
    th_seed(11);
    check("columns [1024,515] axis 0", 2, s_col, 1, a0, 1, 1);
    check("columns [3,700,1029] axis 1", 3, s_col3, 1, a1, 0, 1);
    check("columns [16,64,1,128] axes 0,1,2", 4, s_cols4, 3, a013, 1, 1);
    check("rows [4099,67] axis 1", 2, s_rows, 1, a1, 1, 1);
    check("rows [7,5,131] axis 2", 3, s_rows2, 1, a2, 0, 1);
    check("rows [7,5,131] axes 1,2", 3, s_rows2, 2, a12, 0, 1);
    check("rows [1,4096,1] axis 1", 3, s_one, 1, a1, 1, 1);
    check("long rows [3,20011] axis 1", 2, s_few, 1, a1, 0, 0);
    check("one long row [2457605] axis 0", 1, s_big, 1, a0, 0, 0);
    check("all of [1024,515]", 2, s_col, 2, a01, 0, 0);
    check("non-adjacent axes 0,2 of [9,33,17]", 3, s_gap, 2, a02, 1, 1);
    return th_summary("reduce_sum");
}
