/* matmul benchmark: rlx.h against OpenBLAS on square f32 matrices.

   Build (from the repository root):
       cc -O2 -I. bench/matmul.c -o build/bench_matmul -lm -lpthread -ldl
   Run:
       ./build/bench_matmul

   For n = 64, 256, 512, 1024 and 1 and 2 threads it compiles y = matmul(a, b) with a, b f32 inputs [n, n],
   times rlx_run (inputs are set once, before timing) and cblas_sgemm on the same data, checks that both agree
   and prints GFLOP/s. OpenBLAS is not linked: it is loaded at run time with dlopen (libopenblas.so.0, then
   libopenblas.so). Without it only the rlx numbers are printed and the ratio column reads n/a.
   Each figure is the best of 3 batches of at least 0.1 s each (>= 0.3 s of timing per figure).
   A second table, `x @ W^T + b` (bench_linear_t), times the nn.Linear form: W a param stored [out, in] =
   [2048, 2048], y = matmul(x, transpose(W)) + b for m = 1 and 256 rows of x, against cblas_sgemm with
   transB = CblasTrans and beta = 1 on C prefilled with the bias (the fill is timed too); it also prints rlx's
   arena and step count, which show that W is read in place (no transpose step, no weight-sized buffer).

   A third table times the other dtypes with 2 threads: f16 and bf16 rlx_matmul (f32 accumulation) and
   rlx_matmul_integer i8 x i8 -> i32 (GOP/s), at [n, n] x [n, n] for n = 256, 512, 1024 and a decode row
   [1, 4096] x [4096, 4096], next to rlx f32 and OpenBLAS sgemm on the same shape in the same run; the ratio
   columns divide by OpenBLAS (by rlx f32 without it). f16/bf16 results are checked against sgemm on the same
   rounded inputs (1e-2 relative to the largest value), i8 exactly against an int64 sum on sampled entries.
   Exit status: 0 when every run succeeded and the two results agree, 1 otherwise. */
#if !defined(_POSIX_C_SOURCE) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#endif
#define RLX_IMPLEMENTATION
#include "../rlx.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* cblas_sgemm and openblas_set_num_threads, resolved with dlsym. The CBLAS enums are passed as int. */
typedef void (*bench_sgemm_fn)(int order, int transa, int transb, int m, int n, int k, float alpha, const float* a,
                               int lda, const float* b, int ldb, float beta, float* c, int ldc);
typedef void (*bench_threads_fn)(int n);
enum { BENCH_ROW_MAJOR = 101, BENCH_NO_TRANS = 111, BENCH_TRANS = 112 };

static bench_sgemm_fn blas_sgemm;
static bench_threads_fn blas_set_threads;

static int load_openblas(void) {
    static const char* names[2] = {"libopenblas.so.0", "libopenblas.so"};
    int i;
    for (i = 0; i < 2; i++) {
        void* lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        void* f;
        void* t;
        if (!lib) continue;
        f = dlsym(lib, "cblas_sgemm");
        t = dlsym(lib, "openblas_set_num_threads");
        if (f && t) {
            /* copy the addresses: ISO C has no cast between object and function pointers */
            memcpy(&blas_sgemm, &f, sizeof blas_sgemm);
            memcpy(&blas_set_threads, &t, sizeof blas_set_threads);
            return 1;
        }
        dlclose(lib);
    }
    return 0;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_ms(long ms) {
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

/* uniform in [-1, 1), never 0 */
static uint64_t rng = 0x2545F4914F6CDD1Dull;
static float random_value(void) {
    float v;
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    v = (float)((double)(rng >> 11) * (2.0 / 9007199254740992.0) - 1.0);
    return v == 0.0f ? 0.25f : v;
}

/* The SIMD part of the CPU device name, e.g. "AVX-512" from "CPU (AVX-512, 2 threads)". */
static void cpu_simd_name(char* out, size_t cap) {
    rlx_device_info info[RLX_DEVICE_COUNT];
    int n = rlx_devices(info, RLX_DEVICE_COUNT), i;
    snprintf(out, cap, "unknown");
    for (i = 0; i < n && i < RLX_DEVICE_COUNT; i++) {
        const char* open;
        size_t len;
        if (info[i].device != RLX_DEVICE_CPU) continue;
        open = strchr(info[i].name, '(');
        if (!open) { snprintf(out, cap, "%s", info[i].name); return; }
        open++;
        len = strcspn(open, ",)");
        snprintf(out, cap, "%.*s", (int)len, open);
        return;
    }
}

/* Best GFLOP/s of rlx_run over 3 batches of >= 0.1 s each; 0 on failure. */
static double time_rlx(rlx_program* p, int n) {
    double flops = 2.0 * (double)n * (double)n * (double)n, best = 0.0;
    int batch;
    for (batch = 0; batch < 3; batch++) {
        long reps = 0;
        double t0 = now_seconds(), t;
        do {
            if (rlx_run(p) != RLX_OK) return 0.0;
            reps++;
            t = now_seconds() - t0;
        } while (t < 0.1);
        if (flops * (double)reps / t * 1e-9 > best) best = flops * (double)reps / t * 1e-9;
    }
    return best;
}

static double time_openblas(int n, const float* a, const float* b, float* c) {
    double flops = 2.0 * (double)n * (double)n * (double)n, best = 0.0;
    int batch;
    for (batch = 0; batch < 3; batch++) {
        long reps = 0;
        double t0 = now_seconds(), t;
        do {
            blas_sgemm(BENCH_ROW_MAJOR, BENCH_NO_TRANS, BENCH_NO_TRANS, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
            reps++;
            t = now_seconds() - t0;
        } while (t < 0.1);
        if (flops * (double)reps / t * 1e-9 > best) best = flops * (double)reps / t * 1e-9;
    }
    return best;
}

/* y = x @ W^T + b with W [n, n] stored [out, in]: rlx (matmul + transpose + add, fused into one linear step that
   reads W in place) against cblas_sgemm(NoTrans, Trans) with beta = 1 on C prefilled with b. Returns 1 on a
   failure or a disagreement. */
static int bench_linear_t(int have_blas) {
    enum { LT_N = 2048 };
    static const int rows[2] = {1, 256};
    char lines[4][160];
    int nlines = 0, failed = 0, ri, threads, i, j;
    const size_t wcount = (size_t)LT_N * (size_t)LT_N;
    float* w = (float*)malloc(wcount * sizeof(float));
    float* bias = (float*)malloc(LT_N * sizeof(float));
    if (!w || !bias) { printf("out of memory\n"); free(w); free(bias); return 1; }
    for (i = 0; i < (int)wcount; i++) w[i] = random_value();
    for (i = 0; i < LT_N; i++) bias[i] = random_value();
    for (ri = 0; ri < 2; ri++) {
        const int m = rows[ri];
        const size_t xcount = (size_t)m * LT_N;
        float* x = (float*)malloc(xcount * sizeof(float));
        float* y = (float*)malloc(xcount * sizeof(float));
        float* ref = (float*)malloc(xcount * sizeof(float));
        if (!x || !y || !ref) { printf("out of memory\n"); free(x); free(y); free(ref); failed = 1; break; }
        for (i = 0; i < (int)xcount; i++) x[i] = random_value();
        for (threads = 1; threads <= 2; threads++) {
            int64_t xs[2], ws[2], bs[1];
            rlx_graph* g = rlx_graph_create(NULL);
            rlx_program* p = NULL;
            rlx_compile_desc cd;
            rlx_plan_info pi;
            double flops = 2.0 * (double)m * LT_N * LT_N, gf_rlx = 0.0, gf_blas = 0.0, max_err = 0.0, max_ref = 0.0;
            int w_;
            if (!g) { printf("out of memory\n"); failed = 1; break; }
            xs[0] = m; xs[1] = LT_N; ws[0] = LT_N; ws[1] = LT_N; bs[0] = LT_N;
            rlx_output(g, "y", rlx_add(g, rlx_matmul(g, rlx_input(g, "x", RLX_F32, 2, xs),
                                                     rlx_transpose(g, rlx_param(g, "w", RLX_F32, 2, ws), NULL)),
                                       rlx_param(g, "b", RLX_F32, 1, bs)));
            memset(&cd, 0, sizeof cd);
            cd.device = RLX_DEVICE_CPU;
            cd.num_threads = threads;
            if (rlx_compile(g, &cd, &p) != RLX_OK) {
                printf("x @ W^T + b m=%d: compile failed: %s\n", m, rlx_graph_error(g));
                rlx_graph_destroy(g);
                failed = 1;
                continue;
            }
            rlx_graph_destroy(g);
            if (rlx_set_param_f32(p, "w", w, wcount) != RLX_OK || rlx_set_param_f32(p, "b", bias, LT_N) != RLX_OK ||
                rlx_set_input_f32(p, "x", x, xcount) != RLX_OK) {
                printf("x @ W^T + b m=%d: set failed: %s\n", m, rlx_program_error(p));
                rlx_program_destroy(p);
                failed = 1;
                continue;
            }
            for (w_ = 0; w_ < 3; w_++) rlx_run(p);   /* warm up */
            {
                double best = 0.0;
                int batch;
                for (batch = 0; batch < 3; batch++) {
                    long reps = 0;
                    double t0 = now_seconds(), t = 0.0;
                    do {
                        if (rlx_run(p) != RLX_OK) { failed = 1; break; }
                        reps++;
                        t = now_seconds() - t0;
                    } while (t < 0.1);
                    if (reps > 0 && t > 0.0 && flops * (double)reps / t * 1e-9 > best) best = flops * (double)reps / t * 1e-9;
                }
                gf_rlx = best > 0.0 ? best : 1e-30;
            }
            rlx_program_plan(p, &pi);
            if (rlx_get_output_f32(p, "y", y, xcount) != RLX_OK) failed = 1;
            rlx_program_destroy(p);
            if (have_blas) {
                double best = 0.0;
                int batch;
                blas_set_threads(threads);
                for (batch = 0; batch < 3; batch++) {
                    long reps = 0;
                    double t0 = now_seconds(), t;
                    do {
                        for (i = 0; i < m; i++) memcpy(ref + (size_t)i * LT_N, bias, LT_N * sizeof(float));
                        blas_sgemm(BENCH_ROW_MAJOR, BENCH_NO_TRANS, BENCH_TRANS, m, LT_N, LT_N, 1.0f, x, LT_N, w, LT_N,
                                   1.0f, ref, LT_N);
                        reps++;
                        t = now_seconds() - t0;
                    } while (t < 0.1);
                    if (flops * (double)reps / t * 1e-9 > best) best = flops * (double)reps / t * 1e-9;
                }
                gf_blas = best;
                for (i = 0; i < m; i++)
                    for (j = 0; j < LT_N; j++) {
                        double e = fabs((double)y[(size_t)i * LT_N + j] - (double)ref[(size_t)i * LT_N + j]);
                        if (e > max_err) max_err = e;
                        if (fabs((double)ref[(size_t)i * LT_N + j]) > max_ref) max_ref = fabs((double)ref[(size_t)i * LT_N + j]);
                    }
                max_err = max_ref > 0.0 ? max_err / max_ref : max_err;
                if (max_err > 1e-4) {
                    printf("x @ W^T + b m=%d threads=%d: rlx and openblas disagree (max rel error %.3g)\n", m, threads, max_err);
                    failed = 1;
                }
                sleep_ms(200);
                snprintf(lines[nlines], sizeof lines[nlines], "%5d %8d %9.3f %9.3f %7.2f %10zu %6d    %.1e", m, threads,
                         flops / gf_rlx * 1e-6, flops / gf_blas * 1e-6, gf_rlx / gf_blas, pi.arena_bytes, pi.num_steps, max_err);
            } else {
                snprintf(lines[nlines], sizeof lines[nlines], "%5d %8d %9.3f %9s %7s %10zu %6d", m, threads,
                         flops / gf_rlx * 1e-6, "-", "n/a", pi.arena_bytes, pi.num_steps);
            }
            nlines++;
        }
        free(x);
        free(y);
        free(ref);
    }
    printf("x @ W^T + b, W [%d, %d] stored [out, in] (nn.Linear), ms per run (ratio = openblas time / rlx time)\n",
           (int)LT_N, (int)LT_N);
    printf("    m  threads    rlx ms   blas ms   ratio  arena (B)  steps%s\n", have_blas ? "  max rel err" : "");
    for (i = 0; i < nlines; i++) printf("%s\n", lines[i]);
    free(w);
    free(bias);
    return failed;
}

/* ---- other dtypes ---- */

/* Best GFLOP/s of rlx_run for y = a · b ([M, K] x [K, N]) in dtype dt (i8: matmul_integer i8 x i8 -> i32),
   2 threads; the output is copied to y. 0 on failure. */
static double time_dtype(rlx_dtype dt, int M, int K, int N, const void* a, const void* b, void* y) {
    int64_t as[2], bs[2];
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_tensor ta, tb, none = {0, 0};
    rlx_dtype odt = dt == RLX_I8 ? RLX_I32 : dt;
    double flops = 2.0 * (double)M * (double)N * (double)K, best = 0.0;
    size_t e = rlx_dtype_size(dt);
    int batch, w;
    as[0] = M; as[1] = K; bs[0] = K; bs[1] = N;
    ta = rlx_input(g, "a", dt, 2, as);
    tb = rlx_input(g, "b", dt, 2, bs);
    rlx_output(g, "y", dt == RLX_I8 ? rlx_matmul_integer(g, ta, tb, none, none) : rlx_matmul(g, ta, tb));
    memset(&cd, 0, sizeof cd);
    cd.num_threads = 2;
    if (rlx_compile(g, &cd, &p) != RLX_OK) {
        printf("%s %dx%dx%d: compile failed: %s\n", rlx_dtype_name(dt), M, K, N, rlx_graph_error(g));
        rlx_graph_destroy(g);
        return 0.0;
    }
    rlx_graph_destroy(g);
    if (rlx_set_input(p, "a", dt, a, (size_t)M * (size_t)K * e) != RLX_OK ||
        rlx_set_input(p, "b", dt, b, (size_t)K * (size_t)N * e) != RLX_OK) {
        rlx_program_destroy(p);
        return 0.0;
    }
    for (w = 0; w < 3; w++) rlx_run(p);
    for (batch = 0; batch < 3; batch++) {
        long reps = 0;
        double t0 = now_seconds(), t;
        do {
            if (rlx_run(p) != RLX_OK) { rlx_program_destroy(p); return 0.0; }
            reps++;
            t = now_seconds() - t0;
        } while (t < 0.1);
        if (flops * (double)reps / t * 1e-9 > best) best = flops * (double)reps / t * 1e-9;
    }
    if (rlx_get_output(p, "y", odt, y, (size_t)M * (size_t)N * rlx_dtype_size(odt)) != RLX_OK) best = 0.0;
    rlx_program_destroy(p);
    return best;
}

static double time_openblas_mnk(int M, int K, int N, const float* a, const float* b, float* c) {
    double flops = 2.0 * (double)M * (double)N * (double)K, best = 0.0;
    int batch;
    for (batch = 0; batch < 3; batch++) {
        long reps = 0;
        double t0 = now_seconds(), t;
        do {
            blas_sgemm(BENCH_ROW_MAJOR, BENCH_NO_TRANS, BENCH_NO_TRANS, M, N, K, 1.0f, a, K, b, N, 0.0f, c, N);
            reps++;
            t = now_seconds() - t0;
        } while (t < 0.1);
        if (flops * (double)reps / t * 1e-9 > best) best = flops * (double)reps / t * 1e-9;
    }
    return best;
}

/* The dtype table; returns 1 on a failure. */
static int bench_dtypes(int have_blas) {
    static const int shapes[4][3] = {{256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {1, 4096, 4096}};
    int si, failed = 0;
    printf("\nmatmul by dtype, 2 threads, GFLOP/s (i8: matmul_integer i8 x i8 -> i32, GOP/s); ratio to %s,\n"
           "then to rlx f32 (targets: f16, bf16 >= 0.8; i8 >= 2)\n", have_blas ? "OpenBLAS sgemm" : "rlx f32");
    printf("    M     K     N      f32      f16     bf16       i8  openblas   f32/x   f16/x  bf16/x    i8/x"
           "  f16/f32 bf16/f32  i8/f32\n");
    for (si = 0; si < 4; si++) {
        int M = shapes[si][0], K = shapes[si][1], N = shapes[si][2];
        size_t na = (size_t)M * (size_t)K, nb = (size_t)K * (size_t)N, nc = (size_t)M * (size_t)N, i;
        float *a = (float*)malloc(na * 4), *b = (float*)malloc(nb * 4), *y = (float*)malloc(nc * 4);
        float *ah = (float*)malloc(na * 4), *bh = (float*)malloc(nb * 4), *ref = (float*)malloc(nc * 4);
        uint16_t *a16 = (uint16_t*)malloc(na * 2), *b16 = (uint16_t*)malloc(nb * 2), *y16 = (uint16_t*)malloc(nc * 2);
        int8_t *a8 = (int8_t*)malloc(na), *b8 = (int8_t*)malloc(nb);
        int32_t* y32 = (int32_t*)malloc(nc * 4);
        double gf[4], gb = 0.0, base;
        int d, bf;
        if (!a || !b || !y || !ah || !bh || !ref || !a16 || !b16 || !y16 || !a8 || !b8 || !y32) {
            printf("out of memory\n");
            return 1;
        }
        for (i = 0; i < na; i++) { a[i] = random_value(); a8[i] = (int8_t)(a[i] * 127.0f); }
        for (i = 0; i < nb; i++) { b[i] = random_value(); b8[i] = (int8_t)(b[i] * 127.0f); }
        gf[0] = time_dtype(RLX_F32, M, K, N, a, b, y);
        for (bf = 0; bf < 2; bf++) {   /* f16, bf16: rounded inputs; check against sgemm on the same values */
            rlx_dtype dt = bf ? RLX_BF16 : RLX_F16;
            double err = 0.0, big = 0.0;
            for (i = 0; i < na; i++) { a16[i] = bf ? rlx__f32_bits_to_bf16(a[i]) : rlx__f32_bits_to_f16(a[i]); ah[i] = bf ? rlx__bits_f32((uint32_t)a16[i] << 16) : rlx__f16_bits_to_f32(a16[i]); }
            for (i = 0; i < nb; i++) { b16[i] = bf ? rlx__f32_bits_to_bf16(b[i]) : rlx__f32_bits_to_f16(b[i]); bh[i] = bf ? rlx__bits_f32((uint32_t)b16[i] << 16) : rlx__f16_bits_to_f32(b16[i]); }
            gf[1 + bf] = time_dtype(dt, M, K, N, a16, b16, y16);
            if (have_blas && gf[1 + bf] > 0.0) {
                blas_set_threads(2);
                blas_sgemm(BENCH_ROW_MAJOR, BENCH_NO_TRANS, BENCH_NO_TRANS, M, N, K, 1.0f, ah, K, bh, N, 0.0f, ref, N);
                for (i = 0; i < nc; i++) {
                    double v = bf ? (double)rlx__bits_f32((uint32_t)y16[i] << 16) : (double)rlx__f16_bits_to_f32(y16[i]);
                    if (fabs(v - (double)ref[i]) > err) err = fabs(v - (double)ref[i]);
                    if (fabs((double)ref[i]) > big) big = fabs((double)ref[i]);
                }
                if (err > 1e-2 * big) {
                    printf("%s %dx%dx%d: rlx and openblas disagree (%.3g of %.3g)\n", rlx_dtype_name(dt), M, K, N, err, big);
                    failed = 1;
                }
            }
        }
        gf[3] = time_dtype(RLX_I8, M, K, N, a8, b8, y32);
        for (i = 0; i < nc; i += 97) {   /* exact on sampled entries */
            int64_t s = 0;
            size_t r = i / (size_t)N, c = i % (size_t)N, k;
            for (k = 0; k < (size_t)K; k++) s += (int64_t)a8[r * (size_t)K + k] * (int64_t)b8[k * (size_t)N + c];
            if (gf[3] > 0.0 && s != (int64_t)y32[i]) {
                printf("i8 %dx%dx%d: entry %lu is %d, want %lld\n", M, K, N, (unsigned long)i, (int)y32[i], (long long)s);
                failed = 1;
                break;
            }
        }
        for (d = 0; d < 4; d++)
            if (gf[d] == 0.0) failed = 1;
        if (have_blas) {
            blas_set_threads(2);
            blas_sgemm(BENCH_ROW_MAJOR, BENCH_NO_TRANS, BENCH_NO_TRANS, M, N, K, 1.0f, a, K, b, N, 0.0f, ref, N);
            gb = time_openblas_mnk(M, K, N, a, b, ref);
            sleep_ms(200);
        }
        base = have_blas ? gb : gf[0];
        printf("%5d %5d %5d %8.1f %8.1f %8.1f %8.1f %9.1f %7.2f %7.2f %7.2f %7.2f %8.2f %8.2f %7.2f\n", M, K, N,
               gf[0], gf[1], gf[2], gf[3], gb, gf[0] / base, gf[1] / base, gf[2] / base, gf[3] / base,
               gf[1] / gf[0], gf[2] / gf[0], gf[3] / gf[0]);
        free(a); free(b); free(y); free(ah); free(bh); free(ref); free(a16); free(b16); free(y16); free(a8); free(b8);
        free(y32);
    }
    return failed;
}

int main(void) {
    static const int sizes[4] = {64, 256, 512, 1024};
    char simd[64], lines[8][128];
    int have_blas = load_openblas(), nlines = 0, failed = 0, si, threads, i;

    cpu_simd_name(simd, sizeof simd);
    if (!have_blas) printf("openblas: not found (apt-get install libopenblas-dev)\n");
    for (si = 0; si < 4; si++) {
        int n = sizes[si];
        size_t count = (size_t)n * (size_t)n;
        float* a = (float*)malloc(count * sizeof(float));
        float* b = (float*)malloc(count * sizeof(float));
        float* y = (float*)malloc(count * sizeof(float));
        float* ref = (float*)malloc(count * sizeof(float));
        if (!a || !b || !y || !ref) { printf("out of memory\n"); return 1; }
        for (i = 0; i < (int)count; i++) { a[i] = random_value(); b[i] = random_value(); }

        for (threads = 1; threads <= 2; threads++) {
            int64_t shape[2];
            rlx_graph* g = rlx_graph_create(NULL);
            rlx_program* p = NULL;
            rlx_compile_desc cd;
            rlx_tensor ta, tb;
            double gf_rlx = 0.0, gf_blas = 0.0, max_err = 0.0, max_ref = 0.0;
            int w;
            shape[0] = n;
            shape[1] = n;
            if (!g) { printf("out of memory\n"); return 1; }
            ta = rlx_input(g, "a", RLX_F32, 2, shape);
            tb = rlx_input(g, "b", RLX_F32, 2, shape);
            rlx_output(g, "y", rlx_matmul(g, ta, tb));
            memset(&cd, 0, sizeof cd);
            cd.num_threads = threads;
            if (rlx_compile(g, &cd, &p) != RLX_OK) {
                printf("n=%d threads=%d: compile failed: %s\n", n, threads, rlx_graph_error(g));
                rlx_graph_destroy(g);
                failed = 1;
                continue;
            }
            rlx_graph_destroy(g);
            if (rlx_set_input_f32(p, "a", a, count) != RLX_OK || rlx_set_input_f32(p, "b", b, count) != RLX_OK) {
                printf("n=%d threads=%d: set input failed: %s\n", n, threads, rlx_program_error(p));
                rlx_program_destroy(p);
                failed = 1;
                continue;
            }
            for (w = 0; w < 3; w++) rlx_run(p);                      /* warm up */
            gf_rlx = time_rlx(p, n);
            if (gf_rlx == 0.0 || rlx_get_output_f32(p, "y", y, count) != RLX_OK) {
                printf("n=%d threads=%d: run failed: %s\n", n, threads, rlx_program_error(p));
                rlx_program_destroy(p);
                failed = 1;
                continue;
            }
            rlx_program_destroy(p);

            if (have_blas) {
                blas_set_threads(threads);
                for (w = 0; w < 3; w++)
                    blas_sgemm(BENCH_ROW_MAJOR, BENCH_NO_TRANS, BENCH_NO_TRANS, n, n, n, 1.0f, a, n, b, n, 0.0f, ref, n);
                gf_blas = time_openblas(n, a, b, ref);
                for (i = 0; i < (int)count; i++) {
                    double e = fabs((double)y[i] - (double)ref[i]);
                    if (e > max_err) max_err = e;
                    if (fabs((double)ref[i]) > max_ref) max_ref = fabs((double)ref[i]);
                }
                max_err = max_ref > 0.0 ? max_err / max_ref : max_err;
                if (max_err > 1e-4) {
                    printf("n=%d threads=%d: rlx and openblas disagree (max rel error %.3g)\n", n, threads, max_err);
                    failed = 1;
                }
                sleep_ms(200);                         /* let OpenBLAS's spinning threads go idle */
                snprintf(lines[nlines], sizeof lines[nlines], "%5d %8d %9.1f %9.1f %7.2f    %.1e", n, threads,
                         gf_rlx, gf_blas, gf_rlx / gf_blas, max_err);
            } else {
                snprintf(lines[nlines], sizeof lines[nlines], "%5d %8d %9.1f %9s %7s", n, threads, gf_rlx, "-",
                         "n/a");
            }
            nlines++;
        }
        free(a);
        free(b);
        free(y);
        free(ref);
    }

    printf("matmul f32 (CPU: %s), GFLOP/s\n", simd);
    printf("    n  threads       rlx  openblas   ratio%s\n", have_blas ? "  max rel err" : "");
    for (i = 0; i < nlines; i++) printf("%s\n", lines[i]);
    failed |= bench_linear_t(have_blas);
    failed |= bench_dtypes(have_blas);
    return failed;
}
