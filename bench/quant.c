/* quant.c - rlx_matmul_quant on the CPU against ggml's CPU backend, and against the memory bandwidth.

   Build (from the repository root):
       cc -O3 -I. bench/quant.c -o build/bench/quant -lm -lpthread -ldl
   Peer: llama.cpp's ggml from the npm package @node-llama-cpp/linux-x64@3.21.1
   (tests/fetch_npm.sh @node-llama-cpp/linux-x64@3.21.1; RLX_GGML_DIR overrides the directory of the .so files),
   driven through its public graph API: ggml_init, ggml_mul_mat, ggml_graph_compute_with_ctx with the same
   thread count, on the same quantized bytes (ggml_quantize_chunk). Without it the ggml columns say "-".
   The CPU variant is libggml-cpu-haswell.so (AVX2); RLX_GGML_CPU=zen4 (or icelake, skylakex, ...) loads
   libggml-cpu-<that>.so instead, e.g. the AVX-512 VNNI build that libllama picks on such a CPU.
   Usage:
       quant [reps]      reps (default 20) timed runs per case; the median is printed
   Environment: RLX_BENCH_FORMAT=q4_0|q8_0|q4_K|q6_K runs that format only; RLX_BENCH_HOT=1 times the GEMVs on one
   copy of w (which a 32 MiB L3 holds for the smaller shapes) instead of streaming copies from memory.

   Prints, per format (q4_0, q8_0, q4_K, q6_K), shape (GEMV n x k = 4096 x 4096 and 11008 x 4096, m = 1; GEMM
   m = 64 (rlx_llm's CPU prefill chunk) and m = 512 on 4096 x 4096) and thread count (1, 2): rlx's time, the GB/s of weight bytes streamed (GEMV),
   ggml's time and the ratio ggml / rlx (> 1: rlx is faster); and the machine's read bandwidth measured in the
   same run (a 512 MiB sum over 1 and 2 threads) with rlx's GEMV as a fraction of it. Each GEMV case runs on
   enough copies of w (over 128 MiB in all; the same bytes in separate buffers, one product each, on both sides)
   that the weights come from memory, not the cache: the time printed is per product. */
#if !defined(_POSIX_C_SOURCE) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#endif
#define RLX_IMPLEMENTATION
#include "../rlx.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dlfcn.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static int cmp_d(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

/* ---- memory bandwidth: sum 64-bit words of a large buffer, split over threads (x86-64: 32-byte loads into 8
   independent sums, so that one core's loads, not its adds, are the limit) ---- */
typedef struct bw_job { const uint64_t* p; size_t n; uint64_t s; } bw_job;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
__attribute__((target("avx2"))) static void* bw_run_avx2(void* arg) {
    bw_job* j = (bw_job*)arg;
    __m256i s[8];
    uint64_t out[4];
    size_t i;
    int k;
    for (k = 0; k < 8; k++) s[k] = _mm256_setzero_si256();
    for (i = 0; i + 32 <= j->n; i += 32)
        for (k = 0; k < 8; k++) s[k] = _mm256_add_epi64(s[k], _mm256_loadu_si256((const __m256i*)(const void*)(j->p + i + 4 * k)));
    for (k = 1; k < 8; k++) s[0] = _mm256_add_epi64(s[0], s[k]);
    _mm256_storeu_si256((__m256i*)(void*)out, s[0]);
    j->s = out[0] + out[1] + out[2] + out[3];
    return NULL;
}
#endif
static void* bw_run(void* arg) {
    bw_job* j = (bw_job*)arg;
    uint64_t a = 0, b = 0, c = 0, d = 0;
    size_t i;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_supports("avx2")) return bw_run_avx2(arg);
#endif
    for (i = 0; i + 4 <= j->n; i += 4) { a += j->p[i]; b += j->p[i + 1]; c += j->p[i + 2]; d += j->p[i + 3]; }
    j->s = a + b + c + d;
    return NULL;
}
static double bandwidth(int threads, int reps) {
    size_t n = (size_t)64 << 20, i;   /* 512 MiB of uint64 */
    uint64_t* buf = (uint64_t*)malloc(n * 8);
    double* t = (double*)malloc(sizeof(double) * (size_t)reps), best;
    int r, k;
    if (!buf) return 0;
    for (i = 0; i < n; i++) buf[i] = i;
    for (r = 0; r < reps; r++) {
        pthread_t th[2];
        bw_job j[2];
        double t0 = now_s();
        for (k = 0; k < threads; k++) {
            j[k].p = buf + n / (size_t)threads * (size_t)k;
            j[k].n = n / (size_t)threads;
            pthread_create(&th[k], NULL, bw_run, &j[k]);
        }
        for (k = 0; k < threads; k++) pthread_join(th[k], NULL);
        t[r] = now_s() - t0;
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_d);
    best = (double)(n * 8) / t[reps / 2] * 1e-9;
    free(buf);
    free(t);
    return best;
}

/* ---- ggml through its public API (declared here with the signatures of ggml 0.4) ---- */
struct g_init_params { size_t mem_size; void* mem_buffer; unsigned char no_alloc; };
static void* (*g_init)(struct g_init_params);
static void (*g_free)(void*);
static void* (*g_new_tensor_2d)(void*, int, int64_t, int64_t);
static void* (*g_mul_mat)(void*, void*, void*);
static void* (*g_new_graph)(void*);
static void (*g_build_forward_expand)(void*, void*);
static int (*g_graph_compute_with_ctx)(void*, void*, int);
static void* (*g_get_data)(const void*);
static size_t (*g_quantize_chunk)(int, const float*, void*, int64_t, int64_t, int64_t, const float*);
static size_t (*g_row_size)(int, int64_t);
static void (*g_cpu_init)(void);
static char g_why[600] = "";

static const char* g_variant = "haswell";
static int load_ggml(void) {
    const char* dir = getenv("RLX_GGML_DIR");
    char path[512];
    void *hb, *hc;
    if (!dir) dir = "build/npm/_node-llama-cpp_linux-x64/package/bins/linux-x64";
    snprintf(path, sizeof path, "%.400s/libggml-base.so", dir);
    if (!(hb = dlopen(path, RTLD_NOW | RTLD_GLOBAL))) { snprintf(g_why, sizeof g_why, "%.500s", dlerror()); return 0; }
    snprintf(path, sizeof path, "%.400s/libggml-cpu-%.40s.so", dir, g_variant);
    if (!(hc = dlopen(path, RTLD_NOW | RTLD_GLOBAL))) { snprintf(g_why, sizeof g_why, "%.500s", dlerror()); return 0; }
    *(void**)&g_init = dlsym(hb, "ggml_init");
    *(void**)&g_free = dlsym(hb, "ggml_free");
    *(void**)&g_new_tensor_2d = dlsym(hb, "ggml_new_tensor_2d");
    *(void**)&g_mul_mat = dlsym(hb, "ggml_mul_mat");
    *(void**)&g_new_graph = dlsym(hb, "ggml_new_graph");
    *(void**)&g_build_forward_expand = dlsym(hb, "ggml_build_forward_expand");
    *(void**)&g_get_data = dlsym(hb, "ggml_get_data");
    *(void**)&g_quantize_chunk = dlsym(hb, "ggml_quantize_chunk");
    *(void**)&g_row_size = dlsym(hb, "ggml_row_size");
    *(void**)&g_graph_compute_with_ctx = dlsym(hc, "ggml_graph_compute_with_ctx");
    *(void**)&g_cpu_init = dlsym(hc, "ggml_cpu_init");
    if (!g_init || !g_free || !g_new_tensor_2d || !g_mul_mat || !g_new_graph || !g_build_forward_expand ||
        !g_get_data || !g_quantize_chunk || !g_row_size || !g_graph_compute_with_ctx) {
        snprintf(g_why, sizeof g_why, "a ggml entry point is missing");
        return 0;
    }
    if (g_cpu_init) g_cpu_init();
    return 1;
}

/* median seconds of ggml's mul_mat(w [n rows of k], x [m, k]) with `threads` threads */
static double ggml_time(int type, const void* wq, size_t wbytes, const float* x, int64_t m, int64_t n, int64_t k,
                        int threads, int reps, float* y, int copies) {
    struct g_init_params ip;
    void *ctx, *w, *xt, *yt = NULL, *gf;
    double* t = (double*)malloc(sizeof(double) * (size_t)reps), med;
    int r, c;
    ip.mem_size = (size_t)copies * (wbytes + (size_t)(m * n * 4) + 4096) + (size_t)(m * k * 4) + ((size_t)64 << 20);
    ip.mem_buffer = NULL;
    ip.no_alloc = 0;
    ctx = g_init(ip);
    xt = g_new_tensor_2d(ctx, 0 /* GGML_TYPE_F32 */, k, m);
    memcpy(g_get_data(xt), x, (size_t)(m * k) * 4);
    gf = g_new_graph(ctx);
    for (c = 0; c < copies; c++) {   /* copies of w, one product each: the weights stream from memory */
        w = g_new_tensor_2d(ctx, type, k, n);
        memcpy(g_get_data(w), wq, wbytes);
        yt = g_mul_mat(ctx, w, xt);
        g_build_forward_expand(gf, yt);
    }
    g_graph_compute_with_ctx(ctx, gf, threads);   /* warm-up */
    for (r = 0; r < reps; r++) {
        double t0 = now_s();
        g_graph_compute_with_ctx(ctx, gf, threads);
        t[r] = now_s() - t0;
    }
    memcpy(y, g_get_data(yt), (size_t)(m * n) * 4);
    qsort(t, (size_t)reps, sizeof(double), cmp_d);
    med = t[reps / 2] / copies;
    free(t);
    g_free(ctx);
    return med;
}

static double rlx_time(rlx_dtype dt, const void* wq, size_t wbytes, const float* x, int64_t m, int64_t n, int64_t k,
                       int threads, int reps, float* y, int copies) {
    int64_t ws[2], xs[2];
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_tensor xin;
    double* t = (double*)malloc(sizeof(double) * (size_t)reps), med = -1;
    int r, c, set = 1;
    char nm[32];
    ws[0] = n; ws[1] = k; xs[0] = m; xs[1] = k;
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    cd.num_threads = threads;
    xin = rlx_input(g, "x", RLX_F32, 2, xs);
    for (c = 0; c < copies; c++) {   /* copies of w, one product each (y is the first's) */
        snprintf(nm, sizeof nm, "w%d", c);
        rlx_output(g, c ? nm : "y", rlx_matmul_quant(g, xin, rlx_param(g, nm, dt, 2, ws)));
    }
    if (rlx_compile(g, &cd, &p) == RLX_OK)
        for (c = 0; c < copies && set; c++) {
            snprintf(nm, sizeof nm, "w%d", c);
            set = rlx_set_param_raw(p, nm, wq, wbytes) == RLX_OK;
        }
    if (!p || !set || rlx_set_input_f32(p, "x", x, (size_t)(m * k)) != RLX_OK || rlx_run(p) != RLX_OK) {
        printf("rlx failed: %s %s\n", rlx_graph_error(g), p ? rlx_program_error(p) : "");
    } else {
        for (r = 0; r < reps; r++) {
            double t0 = now_s();
            rlx_run(p);
            t[r] = now_s() - t0;
        }
        rlx_get_output_f32(p, "y", y, (size_t)(m * n));
        qsort(t, (size_t)reps, sizeof(double), cmp_d);
        med = t[reps / 2] / copies;
    }
    free(t);
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    return med;
}

int main(int argc, char** argv) {
    static const rlx_dtype dts[4] = {RLX_Q4_0, RLX_Q8_0, RLX_Q4_K, RLX_Q6_K};
    static const int gts[4] = {2, 8, 12, 14};
    static const int64_t shapes[4][3] = {{1, 4096, 4096}, {1, 11008, 4096}, {64, 4096, 4096}, {512, 4096, 4096}};
    const char* only = getenv("RLX_BENCH_FORMAT");   /* one format (q4_0, q8_0, q4_K, q6_K) instead of all */
    static const char* fnames[4] = {"q4_0", "q8_0", "q4_K", "q6_K"};
    int reps = argc > 1 ? atoi(argv[1]) : 20, have_g, f, s, th, ok = 1, copies;
    const int hot = getenv("RLX_BENCH_HOT") && getenv("RLX_BENCH_HOT")[0] == '1';
    double bw[3];
    if (reps < 1) reps = 1;
    if (getenv("RLX_GGML_CPU") && getenv("RLX_GGML_CPU")[0]) g_variant = getenv("RLX_GGML_CPU");
    have_g = load_ggml();
    bw[1] = bandwidth(1, 5);
    bw[2] = bandwidth(2, 5);
    printf("rlx_matmul_quant (CPU, %s) vs ggml (%s%s%s)\n", rlx__cpu_simd_name(), have_g ? "libggml-cpu-" : g_why,
           have_g ? g_variant : "", have_g ? ".so, ggml_mul_mat" : "");
    printf("read bandwidth (512 MiB sum): 1 thread %.1f GB/s, 2 threads %.1f GB/s\n", bw[1], bw[2]);
    printf("GEMV (m = 1): %s\n\n", hot ? "one copy of w, cache-resident where it fits (RLX_BENCH_HOT=1)"
                                       : "copies of w totalling over 128 MiB, each product reading its w from memory");
    printf("%-6s %5s %6s %5s %3s %10s %8s %7s %10s %8s\n", "format", "m", "n", "k", "thr", "rlx ms", "GB/s", "of bw",
           "ggml ms", "ggml/rlx");
    for (f = 0; f < 4; f++)
        for (s = 0; s < 4; s++) {
            int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2], i;
            size_t wbytes = 0;
            if (only && only[0] && strcmp(only, fnames[f]) != 0) continue;
            int64_t wsh[2];
            float *w = (float*)malloc(sizeof(float) * (size_t)(n * k)), *x = (float*)malloc(sizeof(float) * (size_t)(m * k));
            float *y = (float*)malloc(sizeof(float) * (size_t)(m * n)), *yg = (float*)malloc(sizeof(float) * (size_t)(m * n));
            unsigned char* wq;
            uint64_t st = 12345;
            wsh[0] = n; wsh[1] = k;
            rlx_tensor_bytes(dts[f], 2, wsh, &wbytes);
            wq = (unsigned char*)malloc(wbytes);
            for (i = 0; i < n * k; i++) { st = st * 6364136223846793005ull + 1442695040888963407ull; w[i] = (float)((double)(st >> 40) / 16777216.0 - 0.5); }
            for (i = 0; i < m * k; i++) { st = st * 6364136223846793005ull + 1442695040888963407ull; x[i] = (float)((double)(st >> 40) / 16777216.0 - 0.5); }
            {   /* quantize with rlx (the same bytes as ggml's reference quantizer) */
                rlx_graph* g = rlx_graph_create(NULL);
                rlx_program* p = NULL;
                rlx_compile_desc cd;
                memset(&cd, 0, sizeof cd);
                rlx_output(g, "q", rlx_cast(g, rlx_input(g, "w", RLX_F32, 2, wsh), dts[f]));
                if (rlx_compile(g, &cd, &p) != RLX_OK || rlx_set_input_f32(p, "w", w, (size_t)(n * k)) != RLX_OK ||
                    rlx_run(p) != RLX_OK || rlx_get_output(p, "q", dts[f], wq, wbytes) != RLX_OK) ok = 0;
                rlx_program_destroy(p);
                rlx_graph_destroy(g);
            }
            /* GEMV: enough copies of w (at least 4x the 32 MiB of a large L3) that each product reads its weights
               from memory, as a model's decode step does; RLX_BENCH_HOT=1: one copy (cache-resident where it fits) */
            copies = m == 1 && !hot ? (int)((128.0 * 1048576.0) / (double)wbytes) + 1 : 1;
            for (th = 1; th <= 2; th++) {
                double tr = rlx_time(dts[f], wq, wbytes, x, m, n, k, th, m > 1 ? (reps + 3) / 4 : reps, y, copies), tg = -1;
                double gbs = (double)wbytes / tr * 1e-9;
                if (tr < 0) { ok = 0; continue; }
                if (have_g) {
                    double md = 0, mx = 0;
                    tg = ggml_time(gts[f], wq, wbytes, x, m, n, k, th, m > 1 ? (reps + 3) / 4 : reps, yg, copies);
                    for (i = 0; i < m * n; i++) {   /* the two agree to ggml's 8-bit activation rounding */
                        double dd = fabs((double)y[i] - (double)yg[i]);
                        if (dd > md) md = dd;
                        if (fabs((double)yg[i]) > mx) mx = fabs((double)yg[i]);
                    }
                    if (md > 0.05 * mx) { printf("results differ: %g of %g\n", md, mx); ok = 0; }
                }
                if (m == 1)
                    printf("%-6s %5lld %6lld %5lld %3d %10.3f %8.1f %6.0f%% ", rlx_dtype_name(dts[f]), (long long)m,
                           (long long)n, (long long)k, th, tr * 1e3, gbs, 100.0 * gbs / bw[th]);
                else
                    printf("%-6s %5lld %6lld %5lld %3d %10.3f %8s %7s ", rlx_dtype_name(dts[f]), (long long)m, (long long)n,
                           (long long)k, th, tr * 1e3, "-", "-");
                if (tg > 0) printf("%10.3f %8.2f\n", tg * 1e3, tg / tr);
                else printf("%10s %8s\n", "-", "-");
                fflush(stdout);
            }
            free(w); free(x); free(y); free(yg); free(wq);
        }
    return ok ? 0 : 1;
}
