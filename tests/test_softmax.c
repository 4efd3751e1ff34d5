/* CPU softmax and log_softmax over the last axis (f32, the AVX2 exponentials of rlx__softmax_exp_avx2 where the
   CPU has them, libm's expf otherwise and in the tails), against a double-precision reference computed here:
   row lengths around the vector width (1, 3, 4, 5, 7, 8, 9, 31, 100) and PP-OCRv4's 40 x 6625 (two threads),
   inputs on a 2^-10 grid so that x - max is exact in f32 and the reference sees the same differences.
   softmax within 2 ulp (the exponential, 1 / sum and the product each round once), log_softmax within 2e-6
   absolute; rows with -inf (exactly 0 there), a NaN (NaN everywhere) and a spread of 300 (outputs down to the
   subnormals, within 1e-44 absolute). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

/* the reference row: softmax (log = 0) or log_softmax in double from the f32 inputs */
static void ref_row(const float* x, int64_t n, int islog, double* r) {
    double mx = -INFINITY, s = 0;
    int64_t k;
    for (k = 0; k < n; k++) {
        if (x[k] != x[k]) { for (k = 0; k < n; k++) r[k] = NAN; return; }
        if ((double)x[k] > mx) mx = x[k];
    }
    for (k = 0; k < n; k++) s += exp((double)x[k] - mx);
    for (k = 0; k < n; k++) r[k] = islog ? ((double)x[k] - mx) - log(s) : exp((double)x[k] - mx) / s;
}

static void run(int64_t rows, int64_t n, int islog, int threads, int special, const char* what) {
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    int64_t shape[2], i, k, total = rows * n, bad = -1;
    float *x = (float*)malloc(sizeof(float) * (size_t)total), *y = (float*)malloc(sizeof(float) * (size_t)total);
    double* r = (double*)malloc(sizeof(double) * (size_t)n);
    double worst = 0;
    int ok;
    shape[0] = rows; shape[1] = n;
    for (i = 0; i < total; i++) x[i] = (float)(floor(th_uniform(-40.0, 40.0) * 1024.0) / 1024.0);
    if (special == 1) for (i = 0; i < total; i += 3) x[i] = -INFINITY;               /* masked entries */
    if (special == 2) x[n / 2] = NAN;                                                 /* row 0 all NaN  */
    if (special == 3) for (i = 0; i < total; i++) x[i] = (float)(floor(th_uniform(-300.0, 0.0) * 64.0) / 64.0);
    {
        rlx_tensor in = rlx_input(g, "x", RLX_F32, 2, shape);
        rlx_output(g, "y", islog ? rlx_log_softmax(g, in, -1) : rlx_softmax(g, in, -1));
    }
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    cd.num_threads = threads;
    ok = rlx_compile(g, &cd, &p) == RLX_OK && rlx_set_input_f32(p, "x", x, (size_t)total) == RLX_OK &&
         rlx_run(p) == RLX_OK && rlx_get_output_f32(p, "y", y, (size_t)total) == RLX_OK;
    TH_CHECK(ok, "%s: compile and run (%s)", what, ok ? "" : rlx_graph_error(g));
    if (ok) {
        for (i = 0; i < rows && bad < 0; i++) {
            ref_row(x + i * n, n, islog, r);
            for (k = 0; k < n; k++) {
                double got = y[i * n + k], want = r[k], err;
                int fine;
                if (want != want) { fine = got != got; err = fine ? 0 : 1; }
                else if (x[i * n + k] == -INFINITY) { fine = islog ? got == -INFINITY : got == 0.0; err = 0; }
                else {
                    err = fabs(got - want);
                    /* softmax: 2 ulp of the f32 result (2^-22 relative) or 1e-44 in the subnormals */
                    fine = islog ? err <= 2e-6 + 1e-6 * fabs(want) : err <= ldexp(fabs(want), -22) + 1e-44;
                    if (!islog && want > 1e-30 && err / want > worst) worst = err / want;
                }
                if (!fine) { bad = i * n + k; TH_CHECK(0, "%s: y[%lld] = %.9g, reference %.9g", what, (long long)bad, got, want); break; }
            }
        }
        if (bad < 0) TH_CHECK(1, "%s", what);
        if (bad < 0 && !islog && !special) printf("  %s: largest relative error %.3g (2 ulp = %.3g)\n", what, worst, ldexp(1.0, -22));
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    free(x); free(y); free(r);
}

int main(void) {
    static const int64_t lens[] = { 1, 3, 4, 5, 7, 8, 9, 31, 100 };
    char what[96];
    int i, lg;
    th_seed(2026);
    for (lg = 0; lg < 2; lg++) {
        for (i = 0; i < (int)(sizeof lens / sizeof lens[0]); i++) {
            snprintf(what, sizeof what, "%s rows of %lld", lg ? "log_softmax" : "softmax", (long long)lens[i]);
            run(5, lens[i], lg, 1, 0, what);
        }
        snprintf(what, sizeof what, "%s 40 x 6625, 2 threads", lg ? "log_softmax" : "softmax");
        run(40, 6625, lg, 2, 0, what);
        snprintf(what, sizeof what, "%s with -inf entries", lg ? "log_softmax" : "softmax");
        run(4, 37, lg, 1, 1, what);
        snprintf(what, sizeof what, "%s with a NaN", lg ? "log_softmax" : "softmax");
        run(2, 37, lg, 1, 2, what);
        snprintf(what, sizeof what, "%s spread 300 (subnormal outputs)", lg ? "log_softmax" : "softmax");
        run(3, 101, lg, 1, 3, what);
    }
    return th_summary("softmax");
}
