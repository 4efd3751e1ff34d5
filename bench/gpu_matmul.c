/* GPU matmul benchmark: rlx.h's CUDA and Vulkan backends next to cuBLAS (opened at run time, never linked),
   square f32 matrices, in plain f32 (rlx CUDA: SIMT or 3xTF32 tensor cores; rlx Vulkan: the tiled shared-memory
   kernel; cuBLAS: default math) and in TF32 mode (rlx CUDA: RLX_COMPILE_TF32; cuBLAS:
   CUBLAS_TF32_TENSOR_OP_MATH; the Vulkan backend has no TF32 mode). Prints TFLOP/s and the ratios rlx / cuBLAS.
   A second table: f16 and bf16 operands (rlx CUDA: tensor cores, operands converted to f32 while loading;
   cuBLAS: cublasGemmEx with f32 accumulation) and transposed weights (b stored [N, K]), on CUDA only.
   A backend without a usable device prints n/a. Set RLX_CUBLAS to the path of libcublas if it is not found.
   Build: cc -O2 -I. bench/gpu_matmul.c -o build/bench/gpu_matmul -lm -lpthread -ldl */
#define _POSIX_C_SOURCE 199309L
#define RLX_IMPLEMENTATION
#include "../rlx.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* the few driver / cuBLAS entry points the peer needs */
typedef int (*cu_fn_i)(unsigned);
typedef int (*cu_alloc_fn)(unsigned long long*, size_t);
typedef int (*cu_free_fn)(unsigned long long);
typedef int (*cu_htod_fn)(unsigned long long, const void*, size_t);
typedef int (*cu_sync_fn)(void);
typedef int (*blas_create_fn)(void**);
typedef int (*blas_destroy_fn)(void*);
typedef int (*blas_mode_fn)(void*, int);
typedef int (*blas_sgemm_fn)(void*, int, int, int, int, int, const float*, const float*, int, const float*, int,
                             const float*, float*, int);
typedef int (*blas_gemmex_fn)(void*, int, int, int, int, int, const void*, const void*, int, int, const void*, int,
                              int, const void*, void*, int, int, int, int);

static void* sym(void* lib, const char* name) {
    void* p = dlsym(lib, name);
    return p;
}
#define LOAD(var, type, lib, name) do { void* s_ = sym(lib, name); memcpy(&var, &s_, sizeof var); } while (0)

typedef struct peer {
    void *cuda, *blas, *handle;
    cu_alloc_fn alloc;
    cu_free_fn free_;
    cu_htod_fn htod;
    cu_sync_fn sync;
    blas_create_fn create;
    blas_destroy_fn destroy;
    blas_mode_fn mode;
    blas_sgemm_fn sgemm;
    blas_gemmex_fn gemmex;
} peer;

static int peer_open(peer* pr) {
    static const char* const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so", NULL};
    const char* env = getenv("RLX_CUBLAS");
    int i;
    memset(pr, 0, sizeof *pr);
    pr->cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!pr->cuda) return 0;
    LOAD(pr->alloc, cu_alloc_fn, pr->cuda, "cuMemAlloc_v2");
    LOAD(pr->free_, cu_free_fn, pr->cuda, "cuMemFree_v2");
    LOAD(pr->htod, cu_htod_fn, pr->cuda, "cuMemcpyHtoD_v2");
    LOAD(pr->sync, cu_sync_fn, pr->cuda, "cuCtxSynchronize");
    if (env && env[0]) pr->blas = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    for (i = 0; !pr->blas && names[i]; i++) pr->blas = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!pr->blas) return 0;
    LOAD(pr->create, blas_create_fn, pr->blas, "cublasCreate_v2");
    LOAD(pr->destroy, blas_destroy_fn, pr->blas, "cublasDestroy_v2");
    LOAD(pr->mode, blas_mode_fn, pr->blas, "cublasSetMathMode");
    LOAD(pr->sgemm, blas_sgemm_fn, pr->blas, "cublasSgemm_v2");
    LOAD(pr->gemmex, blas_gemmex_fn, pr->blas, "cublasGemmEx");
    if (!pr->alloc || !pr->htod || !pr->sync || !pr->create || !pr->sgemm || !pr->mode) return 0;
    return pr->create(&pr->handle) == 0;
}

/* seconds per cuBLAS sgemm of n×n (row-major C = A·B computed as column-major Cᵀ = Bᵀ·Aᵀ) */
static double peer_time(peer* pr, int n, const float* a, const float* b, int tf32) {
    unsigned long long da = 0, db = 0, dc = 0;
    size_t bytes = (size_t)n * (size_t)n * sizeof(float);
    float one = 1.0f, zero = 0.0f;
    int reps = 0;
    double t0, t;
    if (pr->alloc(&da, bytes) || pr->alloc(&db, bytes) || pr->alloc(&dc, bytes)) return -1;
    pr->htod(da, a, bytes);
    pr->htod(db, b, bytes);
    pr->mode(pr->handle, tf32 ? 3 /* CUBLAS_TF32_TENSOR_OP_MATH */ : 0 /* CUBLAS_DEFAULT_MATH */);
    pr->sgemm(pr->handle, 0, 0, n, n, n, &one, (const float*)(uintptr_t)db, n, (const float*)(uintptr_t)da, n, &zero,
              (float*)(uintptr_t)dc, n);
    pr->sync();
    t0 = now();
    do {
        pr->sgemm(pr->handle, 0, 0, n, n, n, &one, (const float*)(uintptr_t)db, n, (const float*)(uintptr_t)da, n,
                  &zero, (float*)(uintptr_t)dc, n);
        reps++;
        if (reps % 4 == 0) pr->sync();
    } while (now() - t0 < 0.5 || reps % 4);
    pr->sync();
    t = (now() - t0) / reps;
    pr->free_(da);
    pr->free_(db);
    pr->free_(dc);
    return t;
}

/* ---- second table: f16 / bf16 operands and transposed weights (b stored [N, K]) ---- */
enum { CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14, CUBLAS_COMPUTE_32F = 68, CUBLAS_GEMM_DEFAULT = -1 };

static uint16_t to_bf16(float f) {   /* round to nearest even; the inputs are finite */
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
static uint16_t to_f16(float f) {   /* |f| in [2^-14, 65504] or 0 (the benchmark's inputs) */
    uint32_t u, e, m;
    memcpy(&u, &f, 4);
    e = (u >> 23) & 0xFFu;
    m = u & 0x7FFFFFu;
    if (e < 113) return (uint16_t)((u >> 16) & 0x8000u);
    m = m + 0xFFFu + ((m >> 13) & 1u);
    if (m & 0x800000u) { m = 0; e++; }
    return (uint16_t)(((u >> 16) & 0x8000u) | ((e - 112) << 10) | (m >> 13));
}

/* seconds per cublasGemmEx of the row-major product c[n,n] = a · b (trans: b stored [N, K]), f32 accumulation */
static double peer_time_ex(peer* pr, int n, const float* a, const float* b, rlx_dtype dt, int trans) {
    unsigned long long da = 0, db = 0, dc = 0;
    size_t cnt = (size_t)n * (size_t)n, es = rlx_dtype_size(dt), k;
    int ty = dt == RLX_F16 ? CUDA_R_16F : dt == RLX_BF16 ? CUDA_R_16BF : CUDA_R_32F;
    float one = 1.0f, zero = 0.0f;
    void* h = malloc(cnt * es);
    int reps = 0;
    double t0, t;
    if (!pr->gemmex || !h) { free(h); return -1; }
    if (pr->alloc(&da, cnt * es) || pr->alloc(&db, cnt * es) || pr->alloc(&dc, cnt * es)) { free(h); return -1; }
    for (k = 0; k < cnt; k++) {
        if (dt == RLX_F32) ((float*)h)[k] = a[k];
        else ((uint16_t*)h)[k] = dt == RLX_F16 ? to_f16(a[k]) : to_bf16(a[k]);
    }
    pr->htod(da, h, cnt * es);
    for (k = 0; k < cnt; k++) {
        if (dt == RLX_F32) ((float*)h)[k] = b[k];
        else ((uint16_t*)h)[k] = dt == RLX_F16 ? to_f16(b[k]) : to_bf16(b[k]);
    }
    pr->htod(db, h, cnt * es);
    free(h);
    pr->mode(pr->handle, 0);
#define GEMMEX() pr->gemmex(pr->handle, trans ? 1 : 0, 0, n, n, n, &one, (const void*)(uintptr_t)db, ty, n,  \
                            (const void*)(uintptr_t)da, ty, n, &zero, (void*)(uintptr_t)dc, ty, n, CUBLAS_COMPUTE_32F, \
                            CUBLAS_GEMM_DEFAULT)
    if (GEMMEX() != 0) { pr->free_(da); pr->free_(db); pr->free_(dc); return -1; }
    pr->sync();
    t0 = now();
    do {
        GEMMEX();
        reps++;
        if (reps % 4 == 0) pr->sync();
    } while (now() - t0 < 0.5 || reps % 4);
#undef GEMMEX
    pr->sync();
    t = (now() - t0) / reps;
    pr->free_(da);
    pr->free_(db);
    pr->free_(dc);
    return t;
}

/* seconds per rlx_run of c = a · b in dtype dt on dev (trans: b is a param stored [N, K], used through
   rlx_transpose; tf32: RLX_COMPILE_TF32); *err = max |rlx - reference| / max |reference| on 64 sampled entries,
   the reference computed in double from the f32 values before rlx rounds them to dt (so f16/bf16 errors
   include the rounding of the operands). */
static double rlx_time(rlx_device dev, int n, const float* a, const float* b, rlx_dtype dt, int trans, int tf32,
                       double* err) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t shape[2];
    rlx_program* p = NULL;
    rlx_compile_desc d;
    float* c = (float*)malloc((size_t)n * (size_t)n * sizeof(float));
    rlx_tensor tb;
    double t0, t = -1;
    int reps = 0, i;
    shape[0] = n; shape[1] = n;
    memset(&d, 0, sizeof d);
    d.device = dev;
    d.flags = (uint32_t)RLX_COMPILE_NO_FALLBACK | (tf32 ? (uint32_t)RLX_COMPILE_TF32 : 0u);
    tb = rlx_param(g, "b", dt, 2, shape);
    rlx_output(g, "c", rlx_matmul(g, rlx_input(g, "a", dt, 2, shape), trans ? rlx_transpose(g, tb, NULL) : tb));
    if (!c || rlx_compile(g, &d, &p) != RLX_OK) {
        printf("  rlx %s: %s\n", rlx_device_name(dev), rlx_graph_error(g));
        rlx_graph_destroy(g);
        free(c);
        return -1;
    }
    rlx_set_input(p, "a", RLX_F32, a, (size_t)n * n * sizeof(float));
    rlx_set_param(p, "b", RLX_F32, b, (size_t)n * n * sizeof(float));
    if (rlx_run(p) != RLX_OK) { printf("  rlx: %s\n", rlx_program_error(p)); goto done; }
    rlx_get_output(p, "c", RLX_F32, c, (size_t)n * n * sizeof(float));
    {
        double m = 0, e = 0;
        for (i = 0; i < 64; i++) {
            int r = (i * 7919) % n, col = (i * 104729) % n, k;
            double ref = 0;
            for (k = 0; k < n; k++) ref += (double)a[(size_t)r * n + k] * b[trans ? (size_t)col * n + k : (size_t)k * n + col];
            if (fabs(ref) > m) m = fabs(ref);
            if (fabs(ref - c[(size_t)r * n + col]) > e) e = fabs(ref - c[(size_t)r * n + col]);
        }
        *err = m > 0 ? e / m : e;
    }
    t0 = now();
    do { rlx_run(p); reps++; } while (now() - t0 < 0.5);
    t = (now() - t0) / reps;
done:
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    free(c);
    return t;
}

static void table_ex(int have_cuda, int peer_ok, peer* pr) {
    static const int sizes[] = {1024, 4096, 8192};
    static const struct { rlx_dtype dt; int trans; } rows[] = {
        {RLX_F16, 0}, {RLX_F16, 1}, {RLX_BF16, 0}, {RLX_BF16, 1}, {RLX_F32, 1}};
    int s, r;
    if (!have_cuda) return;
    printf("\nmatmul on CUDA, f16 / bf16 operands (f32 accumulation) and b stored [N, K] (\"T\": x @ W^T), TFLOP/s\n"
           "(peer: cublasGemmEx, CUBLAS_COMPUTE_32F; ratio = rlx / cuBLAS)\n"
           "     n  dtype b     rlx-cuda   cublas   ratio   rel. error\n");
    for (s = 0; s < 3; s++) {
        int n = sizes[s];
        size_t cnt = (size_t)n * (size_t)n, k;
        float* a = (float*)malloc(cnt * sizeof(float));
        float* b = (float*)malloc(cnt * sizeof(float));
        unsigned x = 777u;
        if (!a || !b) { printf("out of memory\n"); free(a); free(b); return; }
        for (k = 0; k < cnt; k++) {
            x = x * 1664525u + 1013904223u;
            a[k] = (float)((x >> 8) & 0xFFFF) / 65536.0f - 0.5f;
            x = x * 1664525u + 1013904223u;
            b[k] = (float)((x >> 8) & 0xFFFF) / 65536.0f - 0.5f;
        }
        for (r = 0; r < (int)(sizeof rows / sizeof rows[0]); r++) {
            double e = 0, fl = 2.0 * n * (double)n * n * 1e-12;
            double tr = rlx_time(RLX_DEVICE_CUDA, n, a, b, rows[r].dt, rows[r].trans, 0, &e);
            double tp = peer_ok ? peer_time_ex(pr, n, a, b, rows[r].dt, rows[r].trans) : -1;
            char c1[16] = "n/a", c2[16] = "n/a", c3[16] = "n/a";
            if (tr > 0) snprintf(c1, sizeof c1, "%.2f", fl / tr);
            if (tp > 0) snprintf(c2, sizeof c2, "%.2f", fl / tp);
            if (tr > 0 && tp > 0) snprintf(c3, sizeof c3, "%.2f", tp / tr);
            printf("%6d  %-5s %s  %10s  %7s  %6s   %.2e\n", n, rlx_dtype_name(rows[r].dt), rows[r].trans ? "T" : "N", c1,
                   c2, c3, e);
        }
        free(a);
        free(b);
    }
}

int main(void) {
    static const int sizes[] = {1024, 4096, 8192};
    rlx_device_info info[8];
    int nd = rlx_devices(info, 8), i, s, mode, have_cuda = 0, have_vk = 0, vk_soft = 0;
    peer pr;
    int peer_ok;
    for (i = 0; i < nd && i < 8; i++) {
        if (info[i].device == RLX_DEVICE_CUDA && info[i].index == 0) have_cuda = info[i].available;
        if (info[i].device == RLX_DEVICE_VULKAN && info[i].index == 0) {
            have_vk = info[i].available;
            if (strstr(info[i].reason, "CPU implementation")) vk_soft = 1;   /* lavapipe: only the smallest size */
        }
        if (info[i].device == RLX_DEVICE_CUDA || info[i].device == RLX_DEVICE_VULKAN)
            printf("%s: %s (%s)\n", rlx_device_name(info[i].device), info[i].name, info[i].reason);
    }
    if (!have_cuda && !have_vk) { printf("no usable CUDA or Vulkan device; nothing to measure\n"); return 0; }
    peer_ok = have_cuda && peer_open(&pr);
    if (!peer_ok) printf("cublas: not usable (no CUDA device, or set RLX_CUBLAS=/path/to/libcublas.so); ratios are n/a\n");
    printf("\nmatmul, square f32, TFLOP/s (ratio = rlx / cuBLAS)\n"
           "     n  mode    rlx-cuda  rlx-vulkan   cublas   cuda/cublas  vulkan/cublas   rel. error cuda / vulkan\n");
    for (s = 0; s < 3; s++) {
        int n = sizes[s];
        size_t cnt = (size_t)n * (size_t)n, k;
        float* a = (float*)malloc(cnt * sizeof(float));
        float* b = (float*)malloc(cnt * sizeof(float));
        unsigned x = 12345u;
        if (!a || !b) { printf("out of memory\n"); return 1; }
        for (k = 0; k < cnt; k++) {
            x = x * 1664525u + 1013904223u;
            a[k] = (float)((x >> 8) & 0xFFFF) / 65536.0f - 0.5f;
            x = x * 1664525u + 1013904223u;
            b[k] = (float)((x >> 8) & 0xFFFF) / 65536.0f - 0.5f;
        }
        for (mode = 0; mode < 2; mode++) {
            double ec = 0, ev = 0;
            double tc = have_cuda ? rlx_time(RLX_DEVICE_CUDA, n, a, b, RLX_F32, 0, mode, &ec) : -1;
            double tv = have_vk && !mode && !(vk_soft && n > 1024) ? rlx_time(RLX_DEVICE_VULKAN, n, a, b, RLX_F32, 0, 0, &ev) : -1;
            double tp = peer_ok ? peer_time(&pr, n, a, b, mode) : -1;
            double fl = 2.0 * n * (double)n * n * 1e-12;
            char c1[16] = "n/a", c2[16] = "n/a", c3[16] = "n/a", r1[16] = "n/a", r2[16] = "n/a";
            if (tc > 0) snprintf(c1, sizeof c1, "%.2f", fl / tc);
            if (tv > 0) snprintf(c2, sizeof c2, "%.2f", fl / tv);
            if (tp > 0) snprintf(c3, sizeof c3, "%.2f", fl / tp);
            if (tc > 0 && tp > 0) snprintf(r1, sizeof r1, "%.2f", tp / tc);
            if (tv > 0 && tp > 0) snprintf(r2, sizeof r2, "%.2f", tp / tv);
            {
                char e1[16] = "n/a", e2[16] = "n/a";
                if (tc > 0) snprintf(e1, sizeof e1, "%.2e", ec);
                if (tv > 0) snprintf(e2, sizeof e2, "%.2e", ev);
                printf("%6d  %-6s %9s  %10s  %7s   %11s  %13s   %s / %s\n", n, mode ? "tf32" : "f32", c1, c2, c3, r1, r2, e1, e2);
            }
        }
        free(a);
        free(b);
    }
    table_ex(have_cuda, peer_ok, &pr);
    if (peer_ok) pr.destroy(pr.handle);
    return 0;
}
