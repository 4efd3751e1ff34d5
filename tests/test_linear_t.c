/* Transposed weights read in place: y = act(x · transpose(W) + b) with W stored [N, K] (PyTorch nn.Linear, ONNX
   Gemm with transB = 1), on every available device (CPU; Vulkan, CUDA and HIP when rlx_devices lists them, else
   skipped with the reason).

   1. Numerics against an f64 reference computed here: rlx_linear with w = rlx_transpose(W) and the form the fusion
      pass makes from matmul(x, transpose(W)) [+ b] [then an activation], each with and without bias, with every
      activation, transposed and not (w [K, N] as the control), for x of rank 1, 2 (M = 1, 5, 37, 130, 40 with
      N = 6625, 21 with K = 900) and 3.
      Also a batched matmul(x [B, M, K], transpose(W [B, N, K])), and matmul(x, transpose(W)) in f64, f16, bf16
      and i32 (values exact in the dtype, so the reference is exact up to the output's rounding), and the gated
      MLP silu(x · transpose(Wg)) · (x · transpose(Wu)), whose up projection becomes a gated linear.
   2. No copy of the weight: for every transposed form, no step is a transpose and no buffer outside the weight
      block is as large as W (rlx_program_buffer; every case's W is larger than its x and y), and the report
      names no transpose. The same detector is shown
      to fire under RLX_COMPILE_NO_FUSION, where the transpose is materialised. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#include <stdlib.h>

enum { FORM_LINEAR = 0, FORM_FUSED = 1 };

static double ref_act(rlx_activation a, double v) {
    switch (a) {
    case RLX_ACT_RELU: return v > 0 ? v : 0;
    case RLX_ACT_GELU: return 0.5 * v * (1.0 + erf(v / sqrt(2.0)));
    case RLX_ACT_GELU_TANH: return 0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    case RLX_ACT_SILU: return v / (1.0 + exp(-v));
    default: return v;
    }
}

static rlx_tensor apply_act(rlx_graph* g, rlx_activation a, rlx_tensor y) {
    switch (a) {
    case RLX_ACT_RELU: return rlx_relu(g, y);
    case RLX_ACT_GELU: return rlx_gelu(g, y);
    case RLX_ACT_GELU_TANH: return rlx_gelu_tanh(g, y);
    case RLX_ACT_SILU: return rlx_silu(g, y);
    default: return y;
    }
}

static const char* act_name(rlx_activation a) {
    static const char* const n[] = {"none", "relu", "gelu", "gelu_tanh", "silu"};
    return (int)a >= 0 && a < RLX_ACT_COUNT ? n[a] : "?";
}

/* Does the plan hold a weight-sized buffer outside the weight block, or a transpose step? 1 = no copy seen. */
static int no_weight_copy(rlx_program* p, size_t wbytes, char* why, size_t cap) {
    rlx_plan_info pi;
    int i;
    char rep[4096];
    why[0] = 0;
    if (rlx_program_plan(p, &pi) != RLX_OK) { snprintf(why, cap, "rlx_program_plan failed"); return 0; }
    for (i = 0; i < pi.num_buffers; i++) {
        rlx_buffer_info b;
        if (rlx_program_buffer(p, i, &b) != RLX_OK) { snprintf(why, cap, "rlx_program_buffer(%d) failed", i); return 0; }
        if (b.kind == RLX_BUFFER_PARAM || b.kind == RLX_BUFFER_CONSTANT) continue;
        if (b.kind != RLX_BUFFER_VIEW && b.bytes >= wbytes) {
            snprintf(why, cap, "buffer %d (%s) holds %zu B >= the weight's %zu B", i, b.name, b.bytes, wbytes);
            return 0;
        }
        if (strcmp(b.name, "transpose") == 0 && b.kind != RLX_BUFFER_VIEW) {
            snprintf(why, cap, "buffer %d is a materialised transpose", i);
            return 0;
        }
    }
    rlx_program_report(p, rep, sizeof rep);
    if (strstr(rep, "transpose")) { snprintf(why, cap, "the report has a transpose step:\n%s", rep); return 0; }
    return 1;
}

typedef struct lcase {
    int xrank;
    int64_t xs[3];
    int64_t K, N;
} lcase;

static int compile_on(rlx_graph* g, rlx_device dev, uint32_t flags, rlx_program** p) {
    rlx_compile_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    cd.flags = flags | RLX_COMPILE_NO_FALLBACK;
    cd.num_threads = 2;
    return rlx_compile(g, &cd, p) == RLX_OK;
}

/* One case: returns 1 if it ran. */
static void run_case(rlx_device dev, const lcase* c, int form, int trans, int bias, rlx_activation act) {
    const int64_t K = c->K, N = c->N;
    int64_t M = 1, ws[2], bs[1];
    int i;
    size_t nx, ny;
    float *x, *w, *b, *y;
    double maxerr = 0;
    int bad = -1;
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor tx, tw, tb = {0, 0}, wuse, out;
    rlx_program* p = NULL;
    char label[160], why[4200];
    for (i = 0; i < c->xrank - 1; i++) M *= c->xs[i];
    snprintf(label, sizeof label, "%s %s x rank %d M=%lld K=%lld N=%lld %s bias=%d act=%s", rlx_device_name(dev),
             form == FORM_LINEAR ? "rlx_linear" : "matmul+add+act", c->xrank, (long long)M, (long long)K,
             (long long)N, trans ? "w=transpose(W[N,K])" : "w[K,N]", bias, act_name(act));
    nx = (size_t)(M * K); ny = (size_t)(M * N);
    x = (float*)malloc(sizeof(float) * nx);
    w = (float*)malloc(sizeof(float) * (size_t)(K * N));
    b = (float*)malloc(sizeof(float) * (size_t)N);
    y = (float*)malloc(sizeof(float) * ny);
    for (i = 0; i < (int)nx; i++) x[i] = (float)th_uniform(-1, 1);
    for (i = 0; i < (int)(K * N); i++) w[i] = (float)th_uniform(-1, 1);
    for (i = 0; i < (int)N; i++) b[i] = (float)th_uniform(-1, 1);

    tx = rlx_input(g, "x", RLX_F32, c->xrank, c->xs);
    ws[0] = trans ? N : K; ws[1] = trans ? K : N; bs[0] = N;
    tw = rlx_param(g, "w", RLX_F32, 2, ws);
    if (bias) tb = rlx_param(g, "b", RLX_F32, 1, bs);
    wuse = trans ? rlx_transpose(g, tw, NULL) : tw;
    if (form == FORM_LINEAR) {
        out = rlx_linear(g, tx, wuse, tb, act);
    } else {
        out = rlx_matmul(g, tx, wuse);
        if (bias) out = rlx_add(g, out, tb);
        out = apply_act(g, act, out);
    }
    rlx_output(g, "y", out);
    if (!compile_on(g, dev, 0, &p)) {
        TH_CHECK(0, "%s: compile failed: %s", label, rlx_graph_error(g));
        goto done;
    }
    TH_CHECK(rlx_program_device(p) == dev, "%s: ran on %s", label, rlx_device_name(rlx_program_device(p)));
    TH_CHECK(rlx_set_param_f32(p, "w", w, (size_t)(K * N)) == RLX_OK, "%s: set w", label);
    if (bias) TH_CHECK(rlx_set_param_f32(p, "b", b, (size_t)N) == RLX_OK, "%s: set b", label);
    TH_CHECK(rlx_set_input_f32(p, "x", x, nx) == RLX_OK, "%s: set x", label);
    if (rlx_run(p) != RLX_OK) { TH_CHECK(0, "%s: run: %s", label, rlx_program_error(p)); goto done; }
    TH_CHECK(rlx_get_output_f32(p, "y", y, ny) == RLX_OK, "%s: get y", label);
    {
        int64_t m, n, k;
        for (m = 0; m < M; m++)
            for (n = 0; n < N; n++) {
                double s = 0, e;
                for (k = 0; k < K; k++) s += (double)x[m * K + k] * (double)(trans ? w[n * K + k] : w[k * N + n]);
                if (bias) s += (double)b[n];
                s = ref_act(act, s);
                e = fabs((double)y[m * N + n] - s);
                if (e > maxerr) maxerr = e;
                if (bad < 0 && !th_close((double)y[m * N + n], s, 2e-5 * (double)K, 1e-4)) bad = (int)(m * N + n);
            }
    }
    TH_CHECK(bad < 0, "%s: y[%d] = %.7g, max |err| %.3g", label, bad, bad >= 0 ? (double)y[bad] : 0.0, maxerr);
    if (trans) TH_CHECK(no_weight_copy(p, (size_t)(K * N) * sizeof(float), why, sizeof why), "%s: %s", label, why);
done:
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    free(x); free(w); free(b); free(y);
}

/* matmul(x [B, M, K], transpose(W [B, N, K], perm 0 2 1)): batched, no bias */
static void run_batched(rlx_device dev, int64_t B, int64_t M, int64_t K, int64_t N) {
    int64_t xs[3], ws[3], i, bb, m, n, k;
    int perm[3] = {0, 2, 1}, bad = -1;
    float *x = (float*)malloc(sizeof(float) * (size_t)(B * M * K)), *w = (float*)malloc(sizeof(float) * (size_t)(B * N * K));
    float* y = (float*)malloc(sizeof(float) * (size_t)(B * M * N));
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    char why[4200];
    xs[0] = B; xs[1] = M; xs[2] = K; ws[0] = B; ws[1] = N; ws[2] = K;
    for (i = 0; i < B * M * K; i++) x[i] = (float)th_uniform(-1, 1);
    for (i = 0; i < B * N * K; i++) w[i] = (float)th_uniform(-1, 1);
    rlx_output(g, "y", rlx_matmul(g, rlx_input(g, "x", RLX_F32, 3, xs), rlx_transpose(g, rlx_param(g, "w", RLX_F32, 3, ws), perm)));
    if (!compile_on(g, dev, 0, &p)) {
        TH_CHECK(0, "%s batched: compile failed: %s", rlx_device_name(dev), rlx_graph_error(g));
    } else {
        rlx_set_param_f32(p, "w", w, (size_t)(B * N * K));
        rlx_set_input_f32(p, "x", x, (size_t)(B * M * K));
        if (rlx_run(p) != RLX_OK || rlx_get_output_f32(p, "y", y, (size_t)(B * M * N)) != RLX_OK) {
            TH_CHECK(0, "%s batched: run: %s", rlx_device_name(dev), rlx_program_error(p));
        } else {
            for (bb = 0; bb < B; bb++)
                for (m = 0; m < M; m++)
                    for (n = 0; n < N; n++) {
                        double s = 0;
                        for (k = 0; k < K; k++) s += (double)x[(bb * M + m) * K + k] * (double)w[(bb * N + n) * K + k];
                        if (bad < 0 && !th_close((double)y[(bb * M + m) * N + n], s, 2e-5 * (double)K, 1e-4))
                            bad = (int)((bb * M + m) * N + n);
                    }
            TH_CHECK(bad < 0, "%s batched matmul(x, transpose(W)) B=%lld M=%lld: y[%d] wrong", rlx_device_name(dev),
                     (long long)B, (long long)M, bad);
            TH_CHECK(no_weight_copy(p, (size_t)(B * N * K) * sizeof(float), why, sizeof why), "%s batched: %s",
                     rlx_device_name(dev), why);
        }
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    free(x); free(w); free(y);
}

/* matmul(x [M, K], transpose(W [N, K])) in another dtype: x and W hold multiples of 1/8 in [-2, 2] (integers in
   [-8, 8] for i32), exact in f16 and bf16, so only the accumulation and the output's rounding differ from f64. */
static void run_dtype(rlx_device dev, rlx_dtype dt, int64_t M, int64_t K, int64_t N) {
    int64_t xs[2], ws[2], i, m, n, k;
    int bad = -1;
    const int isint = dt == RLX_I32;
    const double rtol = dt == RLX_BF16 ? 8e-3 : dt == RLX_F16 ? 1e-3 : 1e-9;
    double* xd = (double*)malloc(sizeof(double) * (size_t)(M * K));
    double* wd = (double*)malloc(sizeof(double) * (size_t)(N * K));
    double* yd = (double*)malloc(sizeof(double) * (size_t)(M * N));
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    char why[4200];
    xs[0] = M; xs[1] = K; ws[0] = N; ws[1] = K;
    for (i = 0; i < M * K; i++) xd[i] = (double)((int)th_uniform(-16, 17)) / (isint ? 2.0 : 8.0);
    for (i = 0; i < N * K; i++) wd[i] = (double)((int)th_uniform(-16, 17)) / (isint ? 2.0 : 8.0);
    if (isint) {
        for (i = 0; i < M * K; i++) xd[i] = floor(xd[i]);
        for (i = 0; i < N * K; i++) wd[i] = floor(wd[i]);
    }
    rlx_output(g, "y", rlx_matmul(g, rlx_input(g, "x", dt, 2, xs), rlx_transpose(g, rlx_param(g, "w", dt, 2, ws), NULL)));
    if (!compile_on(g, dev, 0, &p)) {
        TH_CHECK(0, "%s %s matmul(x, transpose(W)): compile failed: %s", rlx_device_name(dev), rlx_dtype_name(dt),
                 rlx_graph_error(g));
    } else {
        rlx_set_param(p, "w", RLX_F64, wd, sizeof(double) * (size_t)(N * K));
        rlx_set_input(p, "x", RLX_F64, xd, sizeof(double) * (size_t)(M * K));
        if (rlx_run(p) != RLX_OK || rlx_get_output(p, "y", RLX_F64, yd, sizeof(double) * (size_t)(M * N)) != RLX_OK) {
            TH_CHECK(0, "%s %s: run: %s", rlx_device_name(dev), rlx_dtype_name(dt), rlx_program_error(p));
        } else {
            for (m = 0; m < M; m++)
                for (n = 0; n < N; n++) {
                    double s = 0;
                    for (k = 0; k < K; k++) s += xd[m * K + k] * wd[n * K + k];
                    if (bad < 0 && !th_close(yd[m * N + n], s, 1e-9, rtol)) bad = (int)(m * N + n);
                }
            TH_CHECK(bad < 0, "%s %s matmul(x, transpose(W)) M=%lld: y[%d] = %g wrong", rlx_device_name(dev),
                     rlx_dtype_name(dt), (long long)M, bad, bad >= 0 ? yd[bad] : 0.0);
            TH_CHECK(no_weight_copy(p, (size_t)(N * K) * rlx_dtype_size(dt), why, sizeof why), "%s %s: %s",
                     rlx_device_name(dev), rlx_dtype_name(dt), why);
        }
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    free(xd); free(wd); free(yd);
}

/* silu(x · transpose(Wg)) · (x · transpose(Wu)): the up projection becomes a linear with a gate input */
static void run_gated(rlx_device dev, int64_t M, int64_t K, int64_t N) {
    int64_t xs[2], ws[2], i, m, n, k;
    int bad = -1;
    float *x = (float*)malloc(sizeof(float) * (size_t)(M * K)), *wg = (float*)malloc(sizeof(float) * (size_t)(N * K));
    float *wu = (float*)malloc(sizeof(float) * (size_t)(N * K)), *y = (float*)malloc(sizeof(float) * (size_t)(M * N));
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_tensor tx, gate, up;
    char why[4200];
    xs[0] = M; xs[1] = K; ws[0] = N; ws[1] = K;
    for (i = 0; i < M * K; i++) x[i] = (float)th_uniform(-1, 1);
    for (i = 0; i < N * K; i++) { wg[i] = (float)th_uniform(-1, 1); wu[i] = (float)th_uniform(-1, 1); }
    tx = rlx_input(g, "x", RLX_F32, 2, xs);
    gate = rlx_matmul(g, tx, rlx_transpose(g, rlx_param(g, "wg", RLX_F32, 2, ws), NULL));
    up = rlx_matmul(g, tx, rlx_transpose(g, rlx_param(g, "wu", RLX_F32, 2, ws), NULL));
    rlx_output(g, "y", rlx_mul(g, rlx_silu(g, gate), up));
    if (!compile_on(g, dev, 0, &p)) {
        TH_CHECK(0, "%s gated: compile failed: %s", rlx_device_name(dev), rlx_graph_error(g));
    } else {
        rlx_set_param_f32(p, "wg", wg, (size_t)(N * K));
        rlx_set_param_f32(p, "wu", wu, (size_t)(N * K));
        rlx_set_input_f32(p, "x", x, (size_t)(M * K));
        if (rlx_run(p) != RLX_OK || rlx_get_output_f32(p, "y", y, (size_t)(M * N)) != RLX_OK) {
            TH_CHECK(0, "%s gated: run: %s", rlx_device_name(dev), rlx_program_error(p));
        } else {
            for (m = 0; m < M; m++)
                for (n = 0; n < N; n++) {
                    double sg = 0, su = 0;
                    for (k = 0; k < K; k++) {
                        sg += (double)x[m * K + k] * (double)wg[n * K + k];
                        su += (double)x[m * K + k] * (double)wu[n * K + k];
                    }
                    if (bad < 0 && !th_close((double)y[m * N + n], ref_act(RLX_ACT_SILU, sg) * su, 4e-5 * (double)K, 2e-4))
                        bad = (int)(m * N + n);
                }
            TH_CHECK(bad < 0, "%s gated silu(x Wg^T) * (x Wu^T) M=%lld: y[%d] wrong", rlx_device_name(dev), (long long)M, bad);
            TH_CHECK(no_weight_copy(p, (size_t)(N * K) * sizeof(float), why, sizeof why), "%s gated: %s",
                     rlx_device_name(dev), why);
        }
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    free(x); free(wg); free(wu); free(y);
}

/* The detector fires where a copy exists: without fusion, x · transpose(W) + b materialises the transpose. */
static void detector_fires(void) {
    int64_t xs[2] = {3, 40}, ws[2] = {48, 40}, bs[1] = {48};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    char why[4200];
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, xs), w = rlx_param(g, "w", RLX_F32, 2, ws), b = rlx_param(g, "b", RLX_F32, 1, bs);
    rlx_output(g, "y", rlx_add(g, rlx_matmul(g, x, rlx_transpose(g, w, NULL)), b));
    if (!compile_on(g, RLX_DEVICE_CPU, RLX_COMPILE_NO_FUSION, &p)) {
        TH_CHECK(0, "compile without fusion: %s", rlx_graph_error(g));
    } else {
        TH_CHECK(!no_weight_copy(p, 48 * 40 * sizeof(float), why, sizeof why),
                 "without fusion the transpose is a copy, and the check must see it");
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
}

int main(void) {
    static const lcase cases[] = {
        {2, {1, 68, 0}, 68, 70},     /* M = 1 (decode) */
        {2, {5, 19, 0}, 19, 33},     /* M > 1, few rows, odd K */
        {2, {37, 68, 0}, 68, 70},    /* tiles */
        {3, {2, 20, 68}, 68, 70},    /* rank-3 x */
        {1, {68, 0, 0}, 68, 70},     /* rank-1 x */
        {2, {130, 200, 0}, 200, 136}, /* several tiles in both directions */
        {2, {40, 120, 0}, 120, 6625}, /* a wide classifier (PP-OCR's): several N blocks, a partial last panel */
        {2, {21, 900, 0}, 900, 1400}, /* several K blocks and N blocks */
    };
    static const rlx_device devs[] = {RLX_DEVICE_CPU, RLX_DEVICE_VULKAN, RLX_DEVICE_CUDA, RLX_DEVICE_HIP};
    rlx_device_info info[RLX_DEVICE_COUNT];
    int nd = rlx_devices(info, RLX_DEVICE_COUNT), d, i;
    th_seed(11);
    detector_fires();
    for (d = 0; d < (int)(sizeof devs / sizeof devs[0]); d++) {
        int avail = 0, j, c, form, trans, bias;
        const char* reason = "rlx_devices does not list it";
        for (j = 0; j < nd && j < RLX_DEVICE_COUNT; j++)
            if (info[j].device == devs[d]) { avail = info[j].available; reason = info[j].reason; }
        if (!avail) { th_skip("%s: every transposed-weight case (%s)", rlx_device_name(devs[d]), reason); continue; }
        for (c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++)
            for (form = 0; form < 2; form++)
                for (trans = 0; trans < 2; trans++)
                    for (bias = 0; bias < 2; bias++)
                        for (i = 0; i < RLX_ACT_COUNT; i++) {
                            /* every activation with M = 1 and the tiled cases; one per bias elsewhere */
                            if (c != 0 && c != 2 && c != 5 && i != (bias ? 1 + c % 4 : 0)) continue;
                            run_case(devs[d], &cases[c], form, trans, bias, (rlx_activation)i);
                        }
        run_batched(devs[d], 3, 1, 36, 20);
        run_batched(devs[d], 2, 30, 40, 80);
        run_gated(devs[d], 1, 48, 40);
        run_gated(devs[d], 20, 64, 72);
        {
            static const rlx_dtype dts[4] = {RLX_F64, RLX_F16, RLX_BF16, RLX_I32};
            for (i = 0; i < 4; i++) {
                run_dtype(devs[d], dts[i], 1, 40, 50);
                run_dtype(devs[d], dts[i], 21, 40, 50);
            }
        }
    }
    return th_summary("linear_t");
}
