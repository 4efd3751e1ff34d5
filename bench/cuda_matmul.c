/* CUDA matmul benchmark: rlx.h's CUDA backend next to cuBLAS (opened at run time, never linked), square f32
   matrices, in plain f32 (rlx: SIMT or 3xTF32 tensor cores; cuBLAS: default math) and in TF32 mode (rlx:
   RLX_COMPILE_TF32; cuBLAS: CUBLAS_TF32_TENSOR_OP_MATH). Prints TFLOP/s and the ratio rlx / cuBLAS.
   Without a CUDA device it says so and exits 0. Set RLX_CUBLAS to the path of libcublas if it is not found.
   Build: cc -O2 -I. bench/cuda_matmul.c -o build/bench/cuda_matmul -lm -lpthread -ldl */
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

/* seconds per rlx_run of c = a·b on CUDA; *err gets max |rlx − reference| / max |reference| on a sample */
static double rlx_time(int n, const float* a, const float* b, int tf32, double* err) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t shape[2];
    rlx_program* p = NULL;
    rlx_compile_desc d;
    double t0, t = -1;
    int reps = 0, i;
    shape[0] = n; shape[1] = n;
    memset(&d, 0, sizeof d);
    d.device = RLX_DEVICE_CUDA;
    d.flags = RLX_COMPILE_NO_FALLBACK | (tf32 ? RLX_COMPILE_TF32 : 0u);
    rlx_output(g, "c", rlx_matmul(g, rlx_input(g, "a", RLX_F32, 2, shape), rlx_input(g, "b", RLX_F32, 2, shape)));
    if (rlx_compile(g, &d, &p) != RLX_OK) {
        printf("  rlx: %s\n", rlx_graph_error(g));
        rlx_graph_destroy(g);
        return -1;
    }
    rlx_set_input_f32(p, "a", a, (size_t)n * n);
    rlx_set_input_f32(p, "b", b, (size_t)n * n);
    if (rlx_run(p) != RLX_OK) { printf("  rlx: %s\n", rlx_program_error(p)); goto done; }
    {   /* accuracy on 64 sampled elements against a double reference */
        const float* c;
        double m = 0, e = 0;
        rlx_output_ptr(p, "c", (const void**)&c, NULL, NULL, NULL);
        for (i = 0; i < 64; i++) {
            int r = (i * 7919) % n, col = (i * 104729) % n, k;
            double ref = 0;
            for (k = 0; k < n; k++) ref += (double)a[(size_t)r * n + k] * b[(size_t)k * n + col];
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
    return t;
}

int main(void) {
    static const int sizes[] = {1024, 4096, 8192};
    rlx_device_info info[8];
    int nd = rlx_devices(info, 8), i, s, mode, have = 0;
    peer pr;
    int peer_ok;
    for (i = 0; i < nd && i < 8; i++)
        if (info[i].device == RLX_DEVICE_CUDA) {
            have = info[i].available;
            printf("cuda: %s (%s)\n", info[i].name, info[i].reason);
        }
    if (!have) { printf("cuda: no usable device; nothing to measure\n"); return 0; }
    peer_ok = peer_open(&pr);
    if (!peer_ok) printf("cublas: not found (set RLX_CUBLAS=/path/to/libcublas.so); ratios are n/a\n");
    printf("\nmatmul, square f32, TFLOP/s\n     n  mode          rlx   cublas   ratio   rlx rel. error\n");
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
            double err = 0, tr = rlx_time(n, a, b, mode, &err), tp = peer_ok ? peer_time(&pr, n, a, b, mode) : -1;
            double fl = 2.0 * n * (double)n * n * 1e-12;
            if (tp > 0)
                printf("%6d  %-8s %8.1f %8.1f %7.2f", n, mode ? "tf32" : "f32", tr > 0 ? fl / tr : 0.0, fl / tp,
                       tr > 0 ? tp / tr : 0.0);
            else
                printf("%6d  %-8s %8.1f      n/a     n/a", n, mode ? "tf32" : "f32", tr > 0 ? fl / tr : 0.0);
            printf("   %.2e\n", err);
        }
        free(a);
        free(b);
    }
    if (peer_ok) pr.destroy(pr.handle);
    return 0;
}
