/* rlx_matmul_quant with one row of x (the decode GEMV of >>quant) for every count of weight rows: the CPU's
   decode kernel for q4_0 and q8_0 takes 4 weight rows per pass (AVX-512 VNNI; q4_0 also on AVX2), so n = 1, 2,
   3, 5, 6, 7, 18, 35 and 4099 reach every remainder of 4, and a partial 64-row task (4099), with 1 and 2 threads
   and k = 32, 256, 4096 (one block, a few, a model's width). A row of x of 4096 zeros and an x with only one non-zero value check the start value of
   the integer sums (x's lane sums) on their own.

   Oracle: f64 sums written here over weights decoded here from hand-built blocks (f16 scale, 4- or 8-bit
   integers, the q8_0 weights including -128, which the 8-bit path must take as it is). Quantizing x to 8 bits
   per 32 values moves each x by at most max|x| / 254 of its block plus the f16 rounding of the block scale
   (max|x| · 2^-11), so an output's error is at most Σ_blocks max|x|_b · (1/254 + 1/2048) · Σ_b |w| plus f32
   summation (1e-5 of Σ|w·x|) in every case; the squared error summed over all the random cases of a format must
   stay under the variance of that rounding (d²/12 per value and the f16 term), which a biased sum (a wrong
   offset) exceeds. x of zeros must give exact zeros. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../rlx.h"
#include "harness.h"

#include <stdlib.h>

#include "quant_blocks.h"

static rlx_result run_mm(rlx_dtype t, const unsigned char* w, size_t wbytes, const float* x, float* y, int64_t n,
                         int64_t k, int threads) {
    int64_t wsh[2], xsh[2];
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_result res;
    memset(&cd, 0, sizeof cd);
    cd.num_threads = threads;
    wsh[0] = n; wsh[1] = k;
    xsh[0] = 1; xsh[1] = k;
    rlx_output(g, "y", rlx_matmul_quant(g, rlx_input(g, "x", RLX_F32, 2, xsh), rlx_param(g, "w", t, 2, wsh)));
    res = rlx_compile(g, &cd, &p);
    if (res == RLX_OK) res = rlx_set_param_raw(p, "w", w, wbytes);
    if (res == RLX_OK) res = rlx_set_input_f32(p, "x", x, (size_t)k);
    if (res == RLX_OK) res = rlx_run(p);
    if (res == RLX_OK) res = rlx_get_output_f32(p, "y", y, (size_t)n);
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    return res;
}

static double g_e2[2], g_v2[2];   /* per format: Σ squared error and Σ rounding variance of the random cases */

/* x: 0 random values of varied magnitude, 1 all zeros, 2 one non-zero value */
static void check(rlx_dtype t, int64_t n, int64_t k, int threads, int xkind, uint64_t seed) {
    size_t wbytes = (size_t)(n * (k / 32) * (t == RLX_Q4_0 ? 18 : 34));
    unsigned char* w = (unsigned char*)malloc(wbytes);
    double* wd = (double*)malloc(sizeof(double) * (size_t)(n * k));
    float *x = (float*)malloc(sizeof(float) * (size_t)k), *y = (float*)malloc(sizeof(float) * (size_t)n);
    double worst = 0, e2 = 0, v2 = 0;
    int64_t o, j;
    rlx_result res;
    th_seed(seed);
    make_w(t, n, k, -128, w, wd);
    for (j = 0; j < k; j++) x[j] = xkind ? 0.0f : (float)(th_uniform(-1, 1) * pow(10.0, th_uniform(-2, 2)));
    if (xkind == 2) x[k / 3] = 0.75f;
    for (o = 0; o < n; o++) y[o] = -12345.0f;
    res = run_mm(t, w, wbytes, x, y, n, k, threads);
    for (o = 0; o < n && res == RLX_OK; o++) {
        double s = 0, sa = 0, bound = 0, e;
        int64_t bl;
        for (bl = 0; bl < k / 32; bl++) {
            double amax = 0, wa = 0, w2 = 0;
            for (j = bl * 32; j < bl * 32 + 32; j++) {
                double xv = x[j], wv = wd[o * k + j];
                s += xv * wv;
                sa += fabs(xv * wv);
                wa += fabs(wv);
                w2 += wv * wv;
                if (fabs(xv) > amax) amax = fabs(xv);
            }
            bound += amax * (1.0 / 254 + 1.0 / 2048) * wa;
            v2 += (amax / 127) * (amax / 127) / 12 * w2 + (amax / 2048) * (amax / 2048) * wa * wa;
        }
        bound += 1e-5 * sa;
        e = fabs((double)y[o] - s);
        e2 += e * e;
        if (!(e <= bound)) worst = 1e300;
        else if (bound > 0 && e / bound > worst) worst = e / bound;
    }
    if (xkind == 0) { g_e2[t == RLX_Q8_0] += e2; g_v2[t == RLX_Q8_0] += v2; }
    TH_CHECK(res == RLX_OK && worst <= 1.0 && (xkind != 1 || e2 == 0),
             "%s n=%lld k=%lld threads=%d x %s: error %g of the bound, squared error %g of the rounding variance (%s)",
             t == RLX_Q4_0 ? "q4_0" : "q8_0", (long long)n, (long long)k, threads,
             xkind == 0 ? "random" : xkind == 1 ? "zeros" : "one value", worst, v2 > 0 ? e2 / v2 : e2,
             rlx_result_string(res));
    free(w); free(wd); free(x); free(y);
}

int main(void) {
    static const rlx_dtype ts[2] = {RLX_Q4_0, RLX_Q8_0};
    static const int64_t ns[8] = {1, 2, 3, 5, 6, 7, 18, 35}, ks[3] = {32, 256, 4096};
    int a, b, c, th;
    for (a = 0; a < 2; a++)
        for (b = 0; b < 3; b++)
            for (c = 0; c < 8; c++)
                for (th = 1; th <= 2; th++) check(ts[a], ns[c], ks[b], th, 0, 7000u + (uint64_t)(a * 1000 + b * 100 + c * 10 + th));
    for (a = 0; a < 2; a++)
        for (th = 1; th <= 2; th++) {
            check(ts[a], 4099, 256, th, 0, 9100u + (uint64_t)(a * 10 + th));
            check(ts[a], 7, 4096, th, 1, 9200u + (uint64_t)(a * 10 + th));
            check(ts[a], 7, 4096, th, 2, 9300u + (uint64_t)(a * 10 + th));
        }
    for (a = 0; a < 2; a++)
        TH_CHECK(g_e2[a] <= g_v2[a], "%s: squared error %g of the rounding variance over all random cases",
                 a ? "q8_0" : "q4_0", g_v2[a] > 0 ? g_e2[a] / g_v2[a] : g_e2[a]);
    printf("squared error / rounding variance: q4_0 %.3f, q8_0 %.3f\n", g_e2[0] / g_v2[0], g_e2[1] / g_v2[1]);
    return th_summary("quant_gemv");
}
