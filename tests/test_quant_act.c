/* rlx_matmul_quant with few rows of x (m < 16), where the CPU quantizes x to 8 bits per block (>>quant).

   Oracle: f64 sums written here, over weights decoded here from hand-built blocks (q4_0, q8_0: f16 scale, 4- or
   8-bit integers). Quantizing x to 8 bits per 32 values moves each x by at most max|x| / 254 of its block plus
   the f16 rounding of the block scale (max|x| · 2^-11), so the error of an output is bounded by
   Σ_blocks max|x|_b · (1/254 + 1/2048) · Σ_b |w| (plus f32 summation, 1e-5 of Σ|w·x|); the check uses that
   bound, which the exact f32 path also meets, and the squared error summed over a case must stay under the
   variance of that rounding (d²/12 per value, and the f16 term; a 1% error in the scales exceeds it).
   Shapes cover k not a multiple of 256, n not a multiple of 16, m = 1..15. A row of x holding a NaN or an infinity must give non-finite outputs (NaN for NaN) in that row
   and the exact f32 result (1e-5 relative) in the other rows, for q4_0, q8_0, q4_K and q6_K. Blocks of x near
   1e9, where an f16 scale of x (ggml's) would overflow, must give finite outputs within the same bound. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../rlx.h"
#include "harness.h"

#include <stdlib.h>

#include "quant_blocks.h"

static rlx_result run_mm(rlx_dtype t, const unsigned char* w, size_t wbytes, const float* x, float* y, int64_t m,
                         int64_t n, int64_t k, int threads) {
    int64_t wsh[2], xsh[2];
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_result res;
    memset(&cd, 0, sizeof cd);
    cd.num_threads = threads;
    wsh[0] = n; wsh[1] = k;
    xsh[0] = m; xsh[1] = k;
    rlx_output(g, "y", rlx_matmul_quant(g, rlx_input(g, "x", RLX_F32, 2, xsh), rlx_param(g, "w", t, 2, wsh)));
    res = rlx_compile(g, &cd, &p);
    if (res == RLX_OK) res = rlx_set_param_raw(p, "w", w, wbytes);
    if (res == RLX_OK) res = rlx_set_input_f32(p, "x", x, (size_t)(m * k));
    if (res == RLX_OK) res = rlx_run(p);
    if (res == RLX_OK) res = rlx_get_output_f32(p, "y", y, (size_t)(m * n));
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    return res;
}

static void test_bound(void) {
    static const rlx_dtype ts[2] = {RLX_Q4_0, RLX_Q8_0};
    static const int64_t ms[5] = {1, 2, 4, 5, 15}, ks[3] = {96, 256, 800};
    const int64_t n = 37;
    int a, b, c;
    for (a = 0; a < 2; a++)
        for (b = 0; b < 3; b++)
            for (c = 0; c < 5; c++) {
                rlx_dtype t = ts[a];
                int64_t m = ms[c], k = ks[b], r, o, j;
                size_t wbytes = (size_t)(n * (k / 32) * (t == RLX_Q4_0 ? 18 : 34));
                unsigned char* w = (unsigned char*)malloc(wbytes);
                double* wd = (double*)malloc(sizeof(double) * (size_t)(n * k));
                float *x = (float*)malloc(sizeof(float) * (size_t)(m * k)), *y = (float*)malloc(sizeof(float) * (size_t)(m * n));
                double worst = 0, e2 = 0, v2 = 0;   /* largest error / bound; Σ error², Σ expected variance */
                rlx_result res;
                th_seed(1000u + (uint64_t)(a * 100 + b * 10 + c));
                make_w(t, n, k, -127, w, wd);
                for (j = 0; j < m * k; j++) x[j] = (float)(th_uniform(-1, 1) * pow(10.0, th_uniform(-2, 2)));
                res = run_mm(t, w, wbytes, x, y, m, n, k, 1 + c % 2);
                for (r = 0; r < m && res == RLX_OK; r++)
                    for (o = 0; o < n; o++) {
                        double s = 0, sa = 0, bound = 0, e;
                        int64_t bl;
                        for (bl = 0; bl < k / 32; bl++) {
                            double amax = 0, wa = 0, w2 = 0;
                            for (j = bl * 32; j < bl * 32 + 32; j++) {
                                double xv = x[r * k + j], wv = wd[o * k + j];
                                s += xv * wv;
                                sa += fabs(xv * wv);
                                wa += fabs(wv);
                                w2 += wv * wv;
                                if (fabs(xv) > amax) amax = fabs(xv);
                            }
                            bound += amax * (1.0 / 254 + 1.0 / 2048) * wa;
                            /* rounding to d = max/127: uniform ±d/2 per value; the f16 scale: ≤ max·2^-11 per block */
                            v2 += (amax / 127) * (amax / 127) / 12 * w2 + (amax / 2048) * (amax / 2048) * wa * wa;
                        }
                        bound += 1e-5 * sa;
                        e = fabs((double)y[r * n + o] - s);
                        e2 += e * e;
                        if (!(e <= bound)) worst = 1e300;
                        else if (e / bound > worst) worst = e / bound;
                    }
                TH_CHECK(res == RLX_OK && worst <= 1.0 && e2 <= v2,
                         "%s m=%lld k=%lld n=%lld: error %g of the bound, squared error %g of the rounding variance (%s)",
                         t == RLX_Q4_0 ? "q4_0" : "q8_0", (long long)m, (long long)k, (long long)n, worst,
                         v2 > 0 ? e2 / v2 : -1.0, rlx_result_string(res));
                free(w); free(wd); free(x); free(y);
            }
}

/* x with blocks of magnitude 1e9 beside blocks of magnitude 1: ggml's f16 block scale of x (max|x| / 127)
   would overflow to infinity there (NaN or infinite outputs); rlx keeps such a scale in f32, so the outputs
   stay finite and within the bound of test_bound. m = 1 and 3 (the 8-bit decode and row kernels) and m = 20
   (q4_0: the AVX2 integer GEMM, which rounds x the same way; q8_0: the f32 GEMM). */
static void test_huge(void) {
    static const rlx_dtype ts[2] = {RLX_Q4_0, RLX_Q8_0};
    static const int64_t ms[3] = {1, 3, 20};
    const int64_t n = 21, k = 256;
    int a, c;
    for (a = 0; a < 2; a++)
        for (c = 0; c < 3; c++) {
            rlx_dtype t = ts[a];
            int64_t m = ms[c], r, o, j;
            size_t wbytes = (size_t)(n * (k / 32) * (t == RLX_Q4_0 ? 18 : 34));
            unsigned char* w = (unsigned char*)malloc(wbytes);
            double* wd = (double*)malloc(sizeof(double) * (size_t)(n * k));
            float *x = (float*)malloc(sizeof(float) * (size_t)(m * k)), *y = (float*)malloc(sizeof(float) * (size_t)(m * n));
            double worst = 0;
            int finite = 1;
            rlx_result res;
            th_seed(7000u + (uint64_t)(a * 10 + c));
            make_w(t, n, k, -127, w, wd);
            for (j = 0; j < m * k; j++) x[j] = (float)(th_uniform(-1, 1) * ((j / 32) % 3 == 1 ? 1e9 : 1.0));
            res = run_mm(t, w, wbytes, x, y, m, n, k, 1 + c % 2);
            for (r = 0; r < m && res == RLX_OK; r++)
                for (o = 0; o < n; o++) {
                    double s = 0, sa = 0, bound = 0, e;
                    int64_t bl;
                    for (bl = 0; bl < k / 32; bl++) {
                        double amax = 0, wa = 0;
                        for (j = bl * 32; j < bl * 32 + 32; j++) {
                            double xv = x[r * k + j], wv = wd[o * k + j];
                            s += xv * wv;
                            sa += fabs(xv * wv);
                            wa += fabs(wv);
                            if (fabs(xv) > amax) amax = fabs(xv);
                        }
                        bound += amax * (1.0 / 254 + 1.0 / 2048) * wa;
                    }
                    bound += 1e-5 * sa;
                    if (!isfinite(y[r * n + o])) finite = 0;
                    e = fabs((double)y[r * n + o] - s);
                    if (!(e <= bound)) worst = 1e300;
                    else if (e / bound > worst) worst = e / bound;
                }
            TH_CHECK(res == RLX_OK && finite && worst <= 1.0, "%s m=%lld, blocks of x near 1e9: outputs %s, error %g of the bound (%s)",
                     t == RLX_Q4_0 ? "q4_0" : "q8_0", (long long)m, finite ? "finite" : "NOT finite", worst,
                     rlx_result_string(res));
            free(w); free(wd); free(x); free(y);
        }
}

/* NaN in row 1, +inf in row 2: those rows non-finite, row 0 exact (f32 path); every format of this path */
static void test_nonfinite(void) {
    static const rlx_dtype ts[4] = {RLX_Q4_0, RLX_Q8_0, RLX_Q4_K, RLX_Q6_K};
    static const char* names[4] = {"q4_0", "q8_0", "q4_K", "q6_K"};
    const int64_t m = 3, n = 20, k = 512;
    int a;
    for (a = 0; a < 4; a++) {
        rlx_dtype t = ts[a];
        size_t bb = t == RLX_Q4_0 ? 18 : t == RLX_Q8_0 ? 34 : t == RLX_Q4_K ? 144 : 210;
        int64_t be = t == RLX_Q4_K || t == RLX_Q6_K ? 256 : 32, j, o, nb = n * (k / be);
        size_t wbytes = (size_t)nb * bb;
        unsigned char* w = (unsigned char*)malloc(wbytes);
        double* wd = (double*)malloc(sizeof(double) * (size_t)(n * k));
        float *x = (float*)malloc(sizeof(float) * (size_t)(m * k)), *y = (float*)malloc(sizeof(float) * (size_t)(m * n));
        int nan_ok = 1, inf_ok = 1, row0_ok = 1;
        rlx_result res;
        th_seed(77u + (uint64_t)a);
        if (t == RLX_Q4_0 || t == RLX_Q8_0) {
            make_w(t, n, k, -127, w, wd);
        } else {   /* random bytes, valid f16 d (and dmin) */
            for (j = 0; j < (int64_t)wbytes; j++) w[j] = (unsigned char)th_uniform(0, 255.99);
            for (j = 0; j < nb; j++) {
                unsigned char* blk = w + (size_t)j * bb;
                if (t == RLX_Q4_K) { f16_pick(blk); f16_pick(blk + 2); }
                else f16_pick(blk + 208);
            }
        }
        for (j = 0; j < m * k; j++) x[j] = (float)th_uniform(-2, 2);
        x[1 * k + 77] = NAN;
        x[2 * k + 300] = INFINITY;
        res = run_mm(t, w, wbytes, x, y, m, n, k, 2);
        for (o = 0; o < n && res == RLX_OK; o++) {
            if (y[1 * n + o] == y[1 * n + o]) nan_ok = 0;
            if (isfinite(y[2 * n + o])) inf_ok = 0;
            if (t == RLX_Q4_0 || t == RLX_Q8_0) {
                double s = 0, sa = 0;
                for (j = 0; j < k; j++) { s += x[j] * wd[o * k + j]; sa += fabs(x[j] * wd[o * k + j]); }
                if (!(fabs((double)y[o] - s) <= 1e-5 * sa)) row0_ok = 0;
            }
        }
        TH_CHECK(res == RLX_OK && nan_ok, "%s: a NaN in x gives NaN in its row", names[a]);
        TH_CHECK(res == RLX_OK && inf_ok, "%s: an infinity in x gives non-finite outputs in its row", names[a]);
        if (t == RLX_Q4_0 || t == RLX_Q8_0)
            TH_CHECK(res == RLX_OK && row0_ok, "%s: the finite row keeps f32 accuracy (1e-5 of sum |w x|)", names[a]);
        free(w); free(wd); free(x); free(y);
    }
}

int main(void) {
    test_bound();
    test_huge();
    test_nonfinite();
    return th_summary("quant_act");
}
