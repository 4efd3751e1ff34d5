/* gpu_quant.c - rlx_matmul_quant with one row of x (decode GEMV) on the GPU backends, against the memory
   bandwidth of the same GPU measured in the same run.

   Build (from the repository root):
       cc -O2 -I. bench/gpu_quant.c -o build/bench/gpu_quant -lm -lpthread -ldl
   Usage:
       gpu_quant [reps]      reps (default 20) timed runs per case; the median is printed
   Environment: RLX_BENCH_DEVICE=cuda|vulkan runs one backend; RLX_BENCH_FORMAT=q4_0|q8_0|q4_K|q6_K one format.

   Peer (the bandwidth): the CUDA driver's own device-to-device copy (cuMemcpyDtoD of 1 GiB, opened at run time
   from libcuda, never linked), counted as 2 bytes moved per byte copied. A Vulkan device is the same NVIDIA GPU
   on the machines this was written for, so its GEMVs are set against the same number; without libcuda the
   bandwidth column says "-".

   Each case is one program of L independent GEMVs, y_i = x · W_iᵀ, on L distinct weight tensors of the shape
   (L · bytes ≥ 512 MiB, so the weights stream from memory rather than the GPU's L2 cache), run reps times; the
   time per GEMV is the run's wall time over L (rlx_run returns when the device is done). Shapes: n x k =
   4096 x 4096, 11008 x 4096 and 4096 x 11008 (the projections of a 7B-class model). Prints rlx's µs per GEMV,
   the GB/s of weight bytes streamed, and that as a fraction of the copy bandwidth. */
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

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static int cmp_d(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

/* ---- the peer: cuMemcpyDtoD through the driver API ---- */
typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_dev_fn)(int*, int);
typedef int (*cu_retain_fn)(void**, int);
typedef int (*cu_set_fn)(void*);
typedef int (*cu_alloc_fn)(unsigned long long*, size_t);
typedef int (*cu_free_fn)(unsigned long long);
typedef int (*cu_d2d_fn)(unsigned long long, unsigned long long, size_t);
typedef int (*cu_memset_fn)(unsigned long long, unsigned char, size_t);
typedef int (*cu_sync_fn)(void);
#define LOAD(var, type, lib, name) do { void* s_ = dlsym(lib, name); memcpy(&var, &s_, sizeof var); } while (0)

/* GB/s of a 1 GiB device-to-device copy (read + write), median of reps; -1 without libcuda or a device */
static double copy_bandwidth(int reps) {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    cu_init_fn init; cu_dev_fn dev; cu_retain_fn retain; cu_set_fn set; cu_alloc_fn alloc; cu_free_fn fr;
    cu_d2d_fn d2d; cu_memset_fn ms; cu_sync_fn sync;
    unsigned long long a = 0, b = 0;
    const size_t bytes = (size_t)1 << 30;
    double t[64], bw;
    void* ctx = NULL;
    int d = 0, i;
    if (!lib) return -1;
    LOAD(init, cu_init_fn, lib, "cuInit");
    LOAD(dev, cu_dev_fn, lib, "cuDeviceGet");
    LOAD(retain, cu_retain_fn, lib, "cuDevicePrimaryCtxRetain");
    LOAD(set, cu_set_fn, lib, "cuCtxSetCurrent");
    LOAD(alloc, cu_alloc_fn, lib, "cuMemAlloc_v2");
    LOAD(fr, cu_free_fn, lib, "cuMemFree_v2");
    LOAD(d2d, cu_d2d_fn, lib, "cuMemcpyDtoD_v2");
    LOAD(ms, cu_memset_fn, lib, "cuMemsetD8_v2");
    LOAD(sync, cu_sync_fn, lib, "cuCtxSynchronize");
    if (!init || !dev || !retain || !set || !alloc || !fr || !d2d || !ms || !sync) return -1;
    if (init(0) || dev(&d, 0) || retain(&ctx, d) || set(ctx)) return -1;
    if (alloc(&a, bytes) || alloc(&b, bytes)) return -1;
    ms(a, 1, bytes);
    d2d(b, a, bytes);
    sync();
    if (reps > 64) reps = 64;
    for (i = 0; i < reps; i++) {
        double t0 = now_s();
        d2d(b, a, bytes);
        sync();
        t[i] = now_s() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_d);
    bw = 2.0 * (double)bytes / t[reps / 2] * 1e-9;
    fr(a);
    fr(b);
    return bw;
}

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static double urand(void) {
    g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17;
    return ((double)(g_rng >> 11) + 0.5) / 9007199254740992.0;
}

/* quantized bytes of n x k random weights (±1/64) through rlx's CPU quantizer */
static unsigned char* make_weights(rlx_dtype t, int64_t n, int64_t k, size_t* bytes) {
    int64_t s[2];
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    float* w = (float*)malloc((size_t)(n * k) * sizeof(float));
    unsigned char* q = NULL;
    int64_t i;
    s[0] = n; s[1] = k;
    *bytes = 0;
    rlx_tensor_bytes(t, 2, s, bytes);
    q = (unsigned char*)malloc(*bytes);
    for (i = 0; i < n * k; i++) w[i] = (float)((2.0 * urand() - 1.0) / 64.0);
    memset(&cd, 0, sizeof cd);
    rlx_output(g, "q", rlx_cast(g, rlx_input(g, "w", RLX_F32, 2, s), t));
    if (!w || !q || rlx_compile(g, &cd, &p) != RLX_OK || rlx_set_input_f32(p, "w", w, (size_t)(n * k)) != RLX_OK ||
        rlx_run(p) != RLX_OK || rlx_get_output(p, "q", t, q, *bytes) != RLX_OK) {
        free(q);
        q = NULL;
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    free(w);
    return q;
}

/* seconds per GEMV (median over reps runs of L GEMVs), or -1 */
static double time_gemv(rlx_device dev, rlx_dtype t, int64_t n, int64_t k, int reps, int* layers) {
    size_t bytes = 0;
    unsigned char* q = make_weights(t, n, k, &bytes);
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    int64_t xs[2], ws[2];
    float* x = (float*)malloc((size_t)k * sizeof(float));
    double tm[256], r = -1;
    int L, i, ok = q && x;
    rlx_tensor xin;
    L = (int)((512.0 * 1048576.0) / (double)(bytes ? bytes : 1)) + 1;
    if (L < 8) L = 8;
    if (L > 128) L = 128;
    *layers = L;
    xs[0] = 1; xs[1] = k;
    ws[0] = n; ws[1] = k;
    xin = rlx_input(g, "x", RLX_F32, 2, xs);
    for (i = 0; ok && i < L; i++) {
        char wn[32], yn[32];
        snprintf(wn, sizeof wn, "w%d", i);
        snprintf(yn, sizeof yn, "y%d", i);
        rlx_output(g, yn, rlx_matmul_quant(g, xin, rlx_param(g, wn, t, 2, ws)));
    }
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    if (ok && rlx_compile(g, &cd, &p) != RLX_OK) {
        printf("  compile: %s\n", rlx_graph_error(g));
        ok = 0;
    }
    for (i = 0; ok && i < L; i++) {
        char wn[32];
        snprintf(wn, sizeof wn, "w%d", i);
        ok = rlx_set_param(p, wn, t, q, bytes) == RLX_OK;
    }
    for (i = 0; ok && i < k; i++) x[i] = (float)(2.0 * urand() - 1.0);
    ok = ok && rlx_set_input_f32(p, "x", x, (size_t)k) == RLX_OK && rlx_run(p) == RLX_OK && rlx_run(p) == RLX_OK;
    if (reps > 256) reps = 256;
    for (i = 0; ok && i < reps; i++) {
        double t0 = now_s();
        ok = rlx_run(p) == RLX_OK;
        tm[i] = now_s() - t0;
    }
    if (ok) {
        qsort(tm, (size_t)reps, sizeof tm[0], cmp_d);
        r = tm[reps / 2] / L;
    } else if (p) {
        printf("  run: %s\n", rlx_program_error(p));
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    free(q);
    free(x);
    return r;
}

int main(int argc, char** argv) {
    static const rlx_dtype fmts[4] = {RLX_Q4_0, RLX_Q8_0, RLX_Q4_K, RLX_Q6_K};
    static const int64_t shapes[3][2] = {{4096, 4096}, {11008, 4096}, {4096, 11008}};
    const char* want = getenv("RLX_BENCH_DEVICE");
    const char* only = getenv("RLX_BENCH_FORMAT");
    int reps = argc > 1 ? atoi(argv[1]) : 20, di, f, s;
    double hbm;
    if (reps < 1) reps = 1;
    hbm = copy_bandwidth(reps);
    if (hbm > 0) printf("device-to-device copy (cuMemcpyDtoD, 1 GiB, read + write): %.0f GB/s\n\n", hbm);
    else printf("device-to-device copy: - (no libcuda or no CUDA device)\n\n");
    printf("%-7s %-6s %6s %6s %4s %9s %8s %7s\n", "device", "format", "n", "k", "L", "us/GEMV", "GB/s", "of copy");
    for (di = 0; di < 2; di++) {
        const rlx_device dev = di == 0 ? RLX_DEVICE_CUDA : RLX_DEVICE_VULKAN;
        const char* dn = di == 0 ? "cuda" : "vulkan";
        rlx_device_info info[16];
        int nd = rlx_devices(info, 16), i, have = 0;
        if (want && *want && strcmp(want, dn) != 0) continue;
        for (i = 0; i < nd && i < 16; i++)
            if (info[i].device == dev && info[i].available && !have) have = strstr(info[i].name, "llvmpipe") ? 2 : 1;
        if (have == 2 && !(want && *want)) {   /* the first device of the kind is Mesa's CPU implementation */
            printf("%-7s (lavapipe, a CPU implementation: RLX_BENCH_DEVICE=vulkan runs it anyway)\n", dn);
            continue;
        }
        if (!have) {
            printf("%-7s (no usable device)\n", dn);
            continue;
        }
        for (f = 0; f < 4; f++) {
            if (only && *only && strcmp(only, rlx_dtype_name(fmts[f])) != 0) continue;
            for (s = 0; s < 3; s++) {
                const int64_t n = shapes[s][0], k = shapes[s][1];
                int64_t sh[2];
                size_t bytes = 0;
                int L = 0;
                double t = time_gemv(dev, fmts[f], n, k, reps, &L), gbs;
                sh[0] = n; sh[1] = k;
                rlx_tensor_bytes(fmts[f], 2, sh, &bytes);
                if (t <= 0) {
                    printf("%-7s %-6s %6lld %6lld %4d %9s\n", dn, rlx_dtype_name(fmts[f]), (long long)n, (long long)k, L, "failed");
                    continue;
                }
                gbs = (double)bytes / t * 1e-9;
                if (hbm > 0)
                    printf("%-7s %-6s %6lld %6lld %4d %9.2f %8.0f %6.0f%%\n", dn, rlx_dtype_name(fmts[f]), (long long)n,
                           (long long)k, L, t * 1e6, gbs, 100.0 * gbs / hbm);
                else
                    printf("%-7s %-6s %6lld %6lld %4d %9.2f %8.0f %7s\n", dn, rlx_dtype_name(fmts[f]), (long long)n,
                           (long long)k, L, t * 1e6, gbs, "-");
                fflush(stdout);
            }
        }
    }
    return 0;
}
