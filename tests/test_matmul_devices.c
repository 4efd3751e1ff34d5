/* Matrix products in f32, f16 and bf16, with b stored [K, N] or [N, K] (a transposed weight read in place), on
   every available device: the CPU, and Vulkan, CUDA and HIP when rlx_devices lists them available (else skipped
   with the reason). On CUDA sm_80+ these run the tensor-core kernel (f16/bf16 converted to f32 while loading).

   Inputs are multiples of 1/64 in [-1, 1], exact in f16 and bf16, so every product is exact and every partial
   sum (|sum| <= K, a multiple of 1/4096) is exact in f32: the f64 reference computed here is the exact product,
   and a result may differ from it only by the rounding of the output dtype (half an ulp of f16 or bf16; f32:
   exact). Shapes cover single rows, edges that are not multiples of any tile or of 4 (the 4-byte copy paths),
   batches, and, on GPUs, a product large enough for the 128x128 tiles. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#include <stdlib.h>

typedef struct mcase { int64_t nb, M, K, N; int gpu_only; } mcase;

static const mcase cases[] = {
    {1, 1, 64, 33, 0},   {1, 7, 5, 3, 0},      {1, 9, 16, 8, 0},     {1, 64, 64, 64, 0},
    {1, 130, 257, 97, 0}, {3, 33, 40, 20, 0},  {1, 100, 12, 260, 0}, {1, 2048, 64, 2048, 1},
    /* few tiles or columns for a long K: GPUs split K over blocks (then an in-order reduce) */
    {1, 128, 512, 512, 1}, {1, 5, 1000, 70, 0}, {1, 5, 1000, 72, 0}, {1, 64, 4096, 64, 0}, {1, 1, 1408, 512, 0},
    {1, 16, 9600, 40, 0},   /* 64 splits of 160: odd first k-steps of 32 in the f16/bf16 kernel */
};

static double out_eps(rlx_dtype dt) { return dt == RLX_F16 ? 1.0 / 2048 : dt == RLX_BF16 ? 1.0 / 256 : 0.0; }

static void run_case(rlx_device dev, rlx_dtype dt, const mcase* c, int trans) {
    const int64_t nb = c->nb, M = c->M, K = c->K, N = c->N;
    size_t na = (size_t)(nb * M * K), nbv = (size_t)(K * N), ny = (size_t)(nb * M * N), i;
    float *a = (float*)malloc(sizeof(float) * na), *b = (float*)malloc(sizeof(float) * nbv);
    float* y = (float*)malloc(sizeof(float) * ny);
    int64_t as[3], bs[2];
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor ta, tb;
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    char label[160];
    long bad = 0;
    double worst = 0;
    snprintf(label, sizeof label, "%s %s [%lld,%lld,%lld]x%s[%lld,%lld]", rlx_device_name(dev), rlx_dtype_name(dt),
             (long long)nb, (long long)M, (long long)K, trans ? "T" : "", (long long)(trans ? N : K),
             (long long)(trans ? K : N));
    for (i = 0; i < na; i++) a[i] = (float)((int)(th_uniform(-64.0, 64.0))) / 64.0f;
    for (i = 0; i < nbv; i++) b[i] = (float)((int)(th_uniform(-64.0, 64.0))) / 64.0f;
    as[0] = nb; as[1] = M; as[2] = K;
    bs[0] = trans ? N : K; bs[1] = trans ? K : N;
    ta = rlx_input(g, "a", dt, nb > 1 ? 3 : 2, nb > 1 ? as : as + 1);
    tb = rlx_param(g, "b", dt, 2, bs);
    rlx_output(g, "y", rlx_matmul(g, ta, trans ? rlx_transpose(g, tb, NULL) : tb));
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    cd.flags = RLX_COMPILE_NO_FALLBACK;
    if (rlx_compile(g, &cd, &p) != RLX_OK) {
        TH_CHECK(0, "%s: compile: %s", label, rlx_graph_error(g));
        goto done;
    }
    TH_CHECK(rlx_set_param(p, "b", RLX_F32, b, sizeof(float) * nbv) == RLX_OK, "%s: set b: %s", label, rlx_program_error(p));
    TH_CHECK(rlx_set_input(p, "a", RLX_F32, a, sizeof(float) * na) == RLX_OK, "%s: set a: %s", label, rlx_program_error(p));
    if (rlx_run(p) != RLX_OK) { TH_CHECK(0, "%s: run: %s", label, rlx_program_error(p)); goto done; }
    TH_CHECK(rlx_get_output(p, "y", RLX_F32, y, sizeof(float) * ny) == RLX_OK, "%s: get y", label);
    {
        int64_t z, m, n, k;
        for (z = 0; z < nb; z++)
            for (m = 0; m < M; m++)
                for (n = 0; n < N; n++) {
                    double s = 0, err, tol;
                    for (k = 0; k < K; k++)
                        s += (double)a[(z * M + m) * K + k] * (double)b[trans ? n * K + k : k * N + n];
                    err = fabs((double)y[(z * M + m) * N + n] - s);
                    tol = out_eps(dt) * fabs(s);
                    if (err > tol) {
                        if (bad++ < 3)
                            printf("  %s: y[%lld,%lld,%lld] = %.9g, exact %.9g\n", label, (long long)z, (long long)m,
                                   (long long)n, (double)y[(z * M + m) * N + n], s);
                    }
                    if (err > worst) worst = err;
                }
    }
    TH_CHECK(bad == 0, "%s: %ld of %zu outputs off by more than the output rounding (worst %.3g)", label, bad, ny, worst);
done:
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    free(a); free(b); free(y);
}

int main(void) {
    rlx_device_info info[32];
    const rlx_device devs[] = {RLX_DEVICE_CPU, RLX_DEVICE_VULKAN, RLX_DEVICE_CUDA, RLX_DEVICE_HIP};
    const rlx_dtype dts[] = {RLX_F32, RLX_F16, RLX_BF16};
    int n = rlx_devices(info, 32), d, i, t, c, tr;
    if (n > 32) n = 32;
    for (d = 0; d < 4; d++) {
        int avail = devs[d] == RLX_DEVICE_CPU;
        int software = devs[d] == RLX_DEVICE_CPU;   /* the big case only where a GPU runs it */
        const char* reason = "rlx_devices does not list it";
        for (i = 0; i < n; i++)
            if (info[i].device == devs[d] && info[i].index == 0) {
                avail = info[i].available;
                reason = info[i].reason;
                if (strstr(info[i].name, "llvmpipe") || strstr(info[i].name, "SwiftShader")) software = 1;
            }
        if (!avail) { th_skip("%s: every matmul case (%s)", rlx_device_name(devs[d]), reason); continue; }
        for (t = 0; t < 3; t++)
            for (c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++)
                for (tr = 0; tr < 2; tr++) {
                    if (cases[c].gpu_only && software) continue;
                    run_case(devs[d], dts[t], &cases[c], tr);
                }
    }
    return th_summary("matmul_devices");
}
