/* rlx_matmul_quant with m >= 16 rows of x for q4_0, q8_0 and q4_K, where the CPU runs the integer GEMMs of
   >>qgemm: on AVX-512 VNNI, x rounded per block of 32 to two int8 digits (at most d / 512 per value, d = max|x|
   / 127 of its block); on other x86-64 CPUs with AVX2, q4_0 and q4_K with x rounded per block of 32 to one int8
   digit as ggml rounds its q8_0 activations (q = x / d to nearest, then d rounded to f16: at most d / 2 +
   127 · 2^-11 · d per value); elsewhere (and q8_0 on AVX2) rlx's f32 tiles, which meet the tighter bounds. The test picks the bound from the CPU (x_steps); where it cannot tell (a compiler
   without __builtin_cpu_supports) it takes the looser one.

   Oracle: f64 sums written here, over weights decoded here from hand-built blocks (q4_0, q8_0: f16 scale with 4-
   or 8-bit integers; q4_K: random bytes with f16 d and dmin, decoded from ggml's layout: 6-bit scales and mins
   packed in 12 bytes, sub-block 2c in the low nibbles of bytes 32c .. 32c + 31, 2c + 1 in the high ones).
   Bound per output: Σ_blocks (max|x|_b / 127) · half · Σ_b |w| for the rounding of x (half = 1 / 512 for two
   digits, 1 / 2 + 127 · 2^-11 for one), plus 2e-6 of Σ|w|·|x| for the f32 sums (q4_K: of Σ (|w| + 2 · dmin · m) · |x|, its
   scale and minimum terms are summed apart). The squared error summed over a case must stay under twice the
   variance of that rounding ((d / steps)² / 12 per value): a scale off by 1% or a lost low digit exceeds both.
   Shapes cover m not a multiple of 3 or 4 (17, 19, 22), n not a multiple of the 16 rows of a task (37), k of
   one to 25 blocks, and 1 and 2 threads. A row of x with a NaN or an infinity must give non-finite outputs in
   that row and f32 accuracy (1e-5) in the others. q4_K with m = 1..3 (ggml's 8-bit Q8_K activations: d / 2
   per value, d = max|x| / 127 per 256) covers the decode kernel that runs 4 weight rows per pass, with every
   remainder of 4 rows. */
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

/* n rows of k q4_K weights (k a multiple of 256): random bytes, f16 d and dmin; values in wd, and the minimum
   term dmin · m of every value in wm (for the f32 part of the bound) */
static void make_q4k(int64_t n, int64_t k, unsigned char* w, double* wd, double* wm) {
    int64_t r, b, j, l;
    for (r = 0; r < n; r++)
        for (b = 0; b < k / 256; b++) {
            unsigned char* blk = w + (size_t)((r * (k / 256) + b) * 144);
            double* v = wd + r * k + b * 256;
            double* vm = wm + r * k + b * 256;
            double d, dmin;
            for (j = 4; j < 144; j++) blk[j] = (unsigned char)th_uniform(0, 255.99);
            d = f16_pick(blk);
            dmin = f16_pick(blk + 2) * 8;   /* dmin · m of the order of d · sc · 15 / 2: values of both signs */
            {   /* dmin as stored: re-encode the f16 after the product (exact: a power-of-two step up) */
                uint16_t h = (uint16_t)(blk[2] | (blk[3] << 8));
                h = (uint16_t)(h + (3u << 10));
                blk[2] = (unsigned char)(h & 0xFF);
                blk[3] = (unsigned char)(h >> 8);
            }
            for (j = 0; j < 8; j++) {
                const unsigned char* q = blk + 4;
                int sc, mn;
                if (j < 4) {
                    sc = q[j] & 63;
                    mn = q[j + 4] & 63;
                } else {
                    sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
                    mn = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
                }
                for (l = 0; l < 32; l++) {
                    int u = j % 2 ? blk[16 + 32 * (j / 2) + l] >> 4 : blk[16 + 32 * (j / 2) + l] & 0xF;
                    v[32 * j + l] = d * sc * u - dmin * mn;
                    vm[32 * j + l] = dmin * mn;
                }
            }
        }
}

/* steps of x's rounding per d = max|x| / 127 of a block with m >= 16 on this CPU (see the top of this file) */
static double x_steps(rlx_dtype t) {
#if defined(__x86_64__) || defined(_M_X64)
#  if (defined(__GNUC__) || defined(__clang__)) && !defined(_MSC_VER) && !defined(_WIN32)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni"))
        return 256;
#  endif
    return t == RLX_Q8_0 ? 256 : 1;
#else
    (void)t;
    return 256;
#endif
}

static void test_bound(void) {
    static const rlx_dtype ts[3] = {RLX_Q4_0, RLX_Q8_0, RLX_Q4_K};
    static const char* names[3] = {"q4_0", "q8_0", "q4_K"};
    static const int64_t ms[5] = {16, 17, 19, 22, 64}, ks[3] = {32, 256, 800}, kk[3] = {256, 512, 1280};
    const int64_t n = 37;
    int a, b, c;
    for (a = 0; a < 3; a++)
        for (b = 0; b < 3; b++)
            for (c = 0; c < 5; c++) {
                rlx_dtype t = ts[a];
                int64_t m = ms[c], k = t == RLX_Q4_K ? kk[b] : ks[b], r, o, j;
                size_t wbytes = (size_t)(n * (k / 32) * (t == RLX_Q4_0 ? 18 : t == RLX_Q8_0 ? 34 : 18));
                unsigned char* w = (unsigned char*)malloc(wbytes);
                double* wd = (double*)malloc(sizeof(double) * (size_t)(n * k));
                double* wm = (double*)calloc((size_t)(n * k), sizeof(double));
                float *x = (float*)malloc(sizeof(float) * (size_t)(m * k)), *y = (float*)malloc(sizeof(float) * (size_t)(m * n));
                double worst = 0, e2 = 0, v2 = 0;   /* largest error / bound; Σ error², Σ rounding variance */
                const double steps = x_steps(t);
                rlx_result res;
                th_seed(3000u + (uint64_t)(a * 100 + b * 10 + c));
                if (t == RLX_Q4_K) make_q4k(n, k, w, wd, wm);
                else make_w(t, n, k, -127, w, wd);
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
                                sa += (fabs(wv) + 2 * wm[o * k + j]) * fabs(xv);
                                wa += fabs(wv);
                                w2 += wv * wv;
                                if (fabs(xv) > amax) amax = fabs(xv);
                            }
                            bound += amax / 127 * (steps > 1 ? 0.5 / steps : 0.5 + 127.0 / 2048) * wa;
                            v2 += (amax / 127 / steps) * (amax / 127 / steps) / 12 * w2;
                        }
                        bound += 2e-6 * sa;
                        e = fabs((double)y[r * n + o] - s);
                        e2 += e * e;
                        if (!(e <= bound)) worst = 1e300;
                        else if (e / bound > worst) worst = e / bound;
                    }
                TH_CHECK(res == RLX_OK && worst <= 1.0 && e2 <= 2 * v2,
                         "%s m=%lld k=%lld n=%lld: error %g of the bound, squared error %g of the rounding variance (%s)",
                         names[a], (long long)m, (long long)k, (long long)n, worst, v2 > 0 ? e2 / v2 : -1.0,
                         rlx_result_string(res));
                if (c == 4) printf("%s k=%lld m=64: largest error %.3f of the bound, squared error %.3f of the rounding variance\n",
                                   names[a], (long long)k, worst, v2 > 0 ? e2 / v2 : -1.0);
                free(w); free(wd); free(wm); free(x); free(y);
            }
}

/* q4_K with m = 1..3 (decode; x in ggml's Q8_K: d = max|x| / 127 per 256 values, at most d / 2 per value; one
   row of x runs 4 weight rows per pass on AVX-512 VNNI): n = 37 and 6 leave every remainder of 4 rows */
static void test_q4k_decode(void) {
    static const int64_t ns[2] = {37, 6}, ks[2] = {256, 1280};
    int a, b, m;
    for (a = 0; a < 2; a++)
        for (b = 0; b < 2; b++) {
            double e2 = 0, v2 = 0;   /* Σ error², Σ rounding variance over m = 1..3 (n = 6 alone is too few) */
            for (m = 1; m <= 3; m++) {
                int64_t n = ns[a], k = ks[b], r, o, j;
                size_t wbytes = (size_t)(n * (k / 256) * 144);
                unsigned char* w = (unsigned char*)malloc(wbytes);
                double* wd = (double*)malloc(sizeof(double) * (size_t)(n * k));
                double* wm = (double*)malloc(sizeof(double) * (size_t)(n * k));
                float *x = (float*)malloc(sizeof(float) * (size_t)(m * k)), *y = (float*)malloc(sizeof(float) * (size_t)(m * n));
                double worst = 0;
                rlx_result res;
                th_seed(5000u + (uint64_t)(a * 100 + b * 10 + m));
                make_q4k(n, k, w, wd, wm);
                for (j = 0; j < m * k; j++) x[j] = (float)(th_uniform(-1, 1) * pow(10.0, th_uniform(-1, 1)));
                res = run_mm(RLX_Q4_K, w, wbytes, x, y, m, n, k, 1 + m % 2);
                for (r = 0; r < m && res == RLX_OK; r++)
                    for (o = 0; o < n; o++) {
                        double s = 0, sa = 0, bound = 0, e;
                        int64_t bl;
                        for (bl = 0; bl < k / 256; bl++) {
                            double amax = 0, wa = 0, w2 = 0;
                            for (j = bl * 256; j < bl * 256 + 256; j++) {
                                double xv = x[r * k + j], wv = wd[o * k + j];
                                s += xv * wv;
                                sa += (fabs(wv) + 2 * wm[o * k + j]) * fabs(xv);
                                wa += fabs(wv);
                                w2 += wv * wv;
                                if (fabs(xv) > amax) amax = fabs(xv);
                            }
                            bound += amax / 127 / 2 * wa;
                            v2 += (amax / 127) * (amax / 127) / 12 * w2;
                        }
                        bound += 2e-6 * sa;
                        e = fabs((double)y[r * n + o] - s);
                        e2 += e * e;
                        if (!(e <= bound)) worst = 1e300;
                        else if (e / bound > worst) worst = e / bound;
                    }
                TH_CHECK(res == RLX_OK && worst <= 1.0, "q4_K m=%d k=%lld n=%lld: error %g of the bound (%s)", m,
                         (long long)k, (long long)n, worst, rlx_result_string(res));
                free(w); free(wd); free(wm); free(x); free(y);
            }
            TH_CHECK(e2 <= 2 * v2, "q4_K m=1..3 k=%lld n=%lld: squared error %g of the rounding variance", (long long)ks[b],
                     (long long)ns[a], v2 > 0 ? e2 / v2 : -1.0);
        }
}

/* NaN in row 1, +inf in row 2 of 20 rows: those rows non-finite, the others f32-exact (the f32 tiles) */
static void test_nonfinite(void) {
    static const rlx_dtype ts[3] = {RLX_Q4_0, RLX_Q8_0, RLX_Q4_K};
    static const char* names[3] = {"q4_0", "q8_0", "q4_K"};
    const int64_t m = 20, n = 20, k = 512;
    int a;
    for (a = 0; a < 3; a++) {
        rlx_dtype t = ts[a];
        size_t wbytes = (size_t)(n * (k / 32) * (t == RLX_Q8_0 ? 34 : 18));
        unsigned char* w = (unsigned char*)malloc(wbytes);
        double* wd = (double*)malloc(sizeof(double) * (size_t)(n * k));
        double* wm = (double*)malloc(sizeof(double) * (size_t)(n * k));
        float *x = (float*)malloc(sizeof(float) * (size_t)(m * k)), *y = (float*)malloc(sizeof(float) * (size_t)(m * n));
        int nan_ok = 1, inf_ok = 1, rest_ok = 1;
        int64_t j, o, r;
        rlx_result res;
        th_seed(99u + (uint64_t)a);
        if (t == RLX_Q4_K) make_q4k(n, k, w, wd, wm);
        else make_w(t, n, k, -127, w, wd);
        for (j = 0; j < m * k; j++) x[j] = (float)th_uniform(-2, 2);
        x[1 * k + 77] = NAN;
        x[2 * k + 300] = INFINITY;
        res = run_mm(t, w, wbytes, x, y, m, n, k, 2);
        for (o = 0; o < n && res == RLX_OK; o++) {
            if (y[1 * n + o] == y[1 * n + o]) nan_ok = 0;
            if (isfinite(y[2 * n + o])) inf_ok = 0;
            for (r = 0; r < m; r++) {
                double s = 0, sa = 0;
                if (r == 1 || r == 2) continue;
                for (j = 0; j < k; j++) { s += x[r * k + j] * wd[o * k + j]; sa += fabs(x[r * k + j] * wd[o * k + j]); }
                if (!(fabs((double)y[r * n + o] - s) <= 1e-5 * sa)) rest_ok = 0;
            }
        }
        TH_CHECK(res == RLX_OK && nan_ok, "%s m=20: a NaN in x gives NaN in its row", names[a]);
        TH_CHECK(res == RLX_OK && inf_ok, "%s m=20: an infinity in x gives non-finite outputs in its row", names[a]);
        TH_CHECK(res == RLX_OK && rest_ok, "%s m=20: the finite rows keep f32 accuracy (1e-5 of sum |w x|)", names[a]);
        free(w); free(wd); free(wm); free(x); free(y);
    }
}

/* x at the edge of its rounding: every block's max is 127 (so d = 1 and x / d = x), the other values j + 0.499
   (256 x = 256 j + 127.744, 0.256 of a step of d / 256 from the nearest: the digits must carry into hi, not
   clamp lo at 127; in one digit, 0.499 of a step), against positive q8_0 weights, so that every value's error
   has the same sign. The error must stay within d / (2 · steps) per value (Σ_b (max|x|_b / 127) / (2 · steps) ·
   Σ_b |w| plus 2e-6 of Σ|w x| for the sums). Also q4_K (weights d · sc · q − dmin · m of one sign). */
static void test_round_edge(void) {
    static const rlx_dtype ts[2] = {RLX_Q8_0, RLX_Q4_K};
    const int64_t m = 16, n = 16, k = 256;
    int a;
    for (a = 0; a < 2; a++) {
        rlx_dtype t = ts[a];
        size_t wbytes = (size_t)(n * (k / 32) * (t == RLX_Q8_0 ? 34 : 18));
        unsigned char* w = (unsigned char*)calloc(wbytes, 1);
        double* wd = (double*)malloc(sizeof(double) * (size_t)(n * k));
        float *x = (float*)malloc(sizeof(float) * (size_t)(m * k)), *y = (float*)malloc(sizeof(float) * (size_t)(m * n));
        double worst = 0;
        const double steps = x_steps(t);
        int64_t j, o, r, b;
        rlx_result res;
        th_seed(4242u + (uint64_t)a);
        for (j = 0; j < m * k; j++)
            x[j] = j % 32 == 0 ? 127.0f : (float)((double)(int)th_uniform(-120, 120) + 0.499);
        if (t == RLX_Q8_0) {
            for (b = 0; b < n * (k / 32); b++) {
                unsigned char* blk = w + (size_t)b * 34;
                blk[0] = 0x00; blk[1] = 0x3C;   /* d = 1 */
                for (j = 0; j < 32; j++) {
                    blk[2 + j] = (unsigned char)(1 + (int)th_uniform(0, 100));
                    wd[b * 32 + j] = (double)blk[2 + j];
                }
            }
        } else {   /* q4_K: d = 1, dmin = 0 (no minimum term), 6-bit scales 1..63 in the packed 12 bytes */
            for (b = 0; b < n * (k / 256); b++) {
                unsigned char* blk = w + (size_t)b * 144;
                int sc[8], sb;
                blk[0] = 0x00; blk[1] = 0x3C; blk[2] = 0; blk[3] = 0;
                for (sb = 0; sb < 8; sb++) sc[sb] = 1 + (int)th_uniform(0, 62);
                for (sb = 0; sb < 4; sb++) { blk[4 + sb] = (unsigned char)sc[sb]; blk[8 + sb] = 0; }
                for (sb = 4; sb < 8; sb++) {   /* low 4 bits in byte 8 + sb, high 2 bits in the top of byte sb (scale sb - 4) */
                    blk[8 + sb] = (unsigned char)(sc[sb] & 15);
                    blk[sb] |= (unsigned char)((sc[sb] >> 4) << 6);
                }
                for (j = 0; j < 128; j++) blk[16 + j] = (unsigned char)(1 + (int)th_uniform(0, 14)) | (unsigned char)((1 + (int)th_uniform(0, 14)) << 4);
                for (j = 0; j < 256; j++) {   /* sub-block 2c: low nibbles of bytes 32c.., 2c + 1: high */
                    const int c = (int)(j / 64), hi = (int)((j / 32) % 2);
                    const unsigned char q = blk[16 + 32 * c + j % 32];
                    wd[b * 256 + j] = (double)sc[j / 32] * (double)(hi ? q >> 4 : q & 15);
                }
            }
        }
        res = run_mm(t, w, wbytes, x, y, m, n, k, 1);
        for (r = 0; r < m && res == RLX_OK; r++)
            for (o = 0; o < n; o++) {
                double s = 0, sa = 0, bound = 0, e;
                for (j = 0; j < k; j++) {
                    s += (double)x[r * k + j] * wd[o * k + j];
                    sa += fabs((double)x[r * k + j] * wd[o * k + j]);
                    bound += 0.5 / steps * wd[o * k + j];   /* max|x| = 127 in every block: d = 1 (also in f16) */
                }
                bound += 2e-6 * sa;
                e = fabs((double)y[r * n + o] - s);
                if (!(e <= bound)) worst = worst > 1e300 ? worst : (e / bound > worst ? e / bound : worst);
                else if (e / bound > worst) worst = e / bound;
            }
        TH_CHECK(res == RLX_OK && worst <= 1.0, "%s m=16: x at its rounding edge: error %.3g of d / %g per value (%s)",
                 t == RLX_Q8_0 ? "q8_0" : "q4_K", worst, 2 * steps, rlx_result_string(res));
        free(w); free(wd); free(x); free(y);
    }
}

int main(void) {
    test_bound();
    test_round_edge();
    test_q4k_decode();
    test_nonfinite();
    return th_summary("quant_gemm");
}
