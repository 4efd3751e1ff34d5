/* Legalization: every composite op that has a decomposition gives the same result when the legalizer
   rewrites it into primitives (RLX_COMPILE_DECOMPOSE) as when the CPU runs it natively, and the rewritten
   program really has more steps. Both are compared with a double-precision reference as well. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../rlx.h"
#include "harness.h"
#include <stdlib.h>

enum { K_GELU, K_GELU_TANH, K_SILU, K_SIGMOID, K_RSQRT, K_MEAN, K_SOFTMAX, K_LOG_SOFTMAX, K_LAYERNORM, K_RMSNORM, K_COUNT };
static const char* const knames[K_COUNT] = {"gelu", "gelu_tanh", "silu", "sigmoid", "rsqrt", "mean",
                                            "softmax", "log_softmax", "layernorm", "rmsnorm"};

#define R 3
#define C 37
static double X[R * C], G[C], B[C];

static rlx_tensor build(rlx_graph* g, int k, rlx_tensor x, rlx_tensor gm, rlx_tensor bt) {
    int ax = 1;
    switch (k) {
    case K_GELU: return rlx_gelu(g, x);
    case K_GELU_TANH: return rlx_gelu_tanh(g, x);
    case K_SILU: return rlx_silu(g, x);
    case K_SIGMOID: return rlx_sigmoid(g, x);
    case K_RSQRT: return rlx_rsqrt(g, rlx_abs(g, x));
    case K_MEAN: return rlx_reduce_mean(g, x, 1, &ax, 1);
    case K_SOFTMAX: return rlx_softmax(g, x, 1);
    case K_LOG_SOFTMAX: return rlx_log_softmax(g, x, 1);
    case K_LAYERNORM: return rlx_layernorm(g, x, gm, bt, 1, 1e-5f);
    default: return rlx_rmsnorm(g, x, gm, bt, 1e-5f);
    }
}

/* double reference of the whole op on X (rows of C) */
static void reference(int k, double* out) {
    int r, c;
    for (r = 0; r < R; r++) {
        const double* x = X + r * C;
        double* y = out + r * C;
        double mx = x[0], s = 0, mean = 0, var = 0;
        for (c = 1; c < C; c++) mx = x[c] > mx ? x[c] : mx;
        for (c = 0; c < C; c++) { s += exp(x[c] - mx); mean += x[c]; }
        mean /= C;
        for (c = 0; c < C; c++) var += k == K_RMSNORM ? x[c] * x[c] : (x[c] - mean) * (x[c] - mean);
        var /= C;
        for (c = 0; c < C; c++) {
            double v = x[c];
            switch (k) {
            case K_GELU: y[c] = 0.5 * v * (1 + erf(v / sqrt(2.0))); break;
            case K_GELU_TANH: y[c] = 0.5 * v * (1 + tanh(sqrt(2.0 / 3.14159265358979323846) * (v + 0.044715 * v * v * v))); break;
            case K_SILU: y[c] = v / (1 + exp(-v)); break;
            case K_SIGMOID: y[c] = 1 / (1 + exp(-v)); break;
            case K_RSQRT: y[c] = 1 / sqrt(fabs(v)); break;
            case K_MEAN: y[c] = mean; break;
            case K_SOFTMAX: y[c] = exp(v - mx) / s; break;
            case K_LOG_SOFTMAX: y[c] = v - mx - log(s); break;
            case K_LAYERNORM: y[c] = (v - mean) / sqrt(var + 1e-5) * G[c] + B[c]; break;
            default: y[c] = v / sqrt(var + 1e-5) * G[c] + B[c]; break;
            }
        }
    }
}

static int run(int k, uint32_t flags, double* out, int* steps) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t xs[2] = {R, C}, gs[1] = {C};
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, xs);
    rlx_tensor gm = rlx_param(g, "g", RLX_F32, 1, gs), bt = rlx_param(g, "b", RLX_F32, 1, gs);
    rlx_program* p = NULL;
    rlx_compile_desc d;
    rlx_plan_info info;
    float xf[R * C], gf[C], bf[C], yf[R * C];
    int i, n = k == K_MEAN ? R : R * C, ok = 1;
    memset(&d, 0, sizeof d);
    d.flags = flags;
    rlx_output(g, "y", build(g, k, x, gm, bt));
    if (rlx_compile(g, &d, &p) != RLX_OK) {
        printf("compile %s: %s\n", knames[k], rlx_graph_error(g));
        rlx_graph_destroy(g);
        return 0;
    }
    for (i = 0; i < R * C; i++) xf[i] = (float)X[i];
    for (i = 0; i < C; i++) { gf[i] = (float)G[i]; bf[i] = (float)B[i]; }
    ok &= rlx_set_input_f32(p, "x", xf, R * C) == RLX_OK;
    ok &= rlx_set_param_f32(p, "g", gf, C) == RLX_OK;
    ok &= rlx_set_param_f32(p, "b", bf, C) == RLX_OK;
    ok &= rlx_run(p) == RLX_OK;
    ok &= rlx_get_output_f32(p, "y", yf, (size_t)n) == RLX_OK;
    for (i = 0; i < n; i++) out[i] = yf[i];
    rlx_program_plan(p, &info);
    *steps = info.num_steps;
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    return ok;
}

int main(void) {
    int k, i;
    th_seed(7);
    for (i = 0; i < R * C; i++) X[i] = th_uniform(-3, 3);
    for (i = 0; i < C; i++) { G[i] = th_uniform(0.5, 1.5); B[i] = th_uniform(-0.5, 0.5); }
    for (k = 0; k < K_COUNT; k++) {
        double native[R * C], lowered[R * C], ref[R * C];
        int sn = 0, sl = 0, n = k == K_MEAN ? R : R * C, bad_n = -1, bad_l = -1;
        int okn = run(k, 0, native, &sn), okl = run(k, RLX_COMPILE_DECOMPOSE, lowered, &sl);
        TH_CHECK(okn && okl, "%s: compile/run failed", knames[k]);
        if (!okn || !okl) continue;
        if (k == K_MEAN) { double full[R * C]; reference(k, full); for (i = 0; i < R; i++) ref[i] = full[i * C]; }
        else reference(k, ref);
        for (i = 0; i < n; i++) {
            if (bad_n < 0 && !th_close(native[i], ref[i], 2e-5, 2e-5)) bad_n = i;
            if (bad_l < 0 && !th_close(lowered[i], ref[i], 2e-5, 2e-5)) bad_l = i;
        }
        TH_CHECK(bad_n < 0, "%s native: [%d] %.8g vs reference %.8g", knames[k], bad_n, bad_n < 0 ? 0 : native[bad_n], bad_n < 0 ? 0 : ref[bad_n]);
        TH_CHECK(bad_l < 0, "%s decomposed: [%d] %.8g vs reference %.8g", knames[k], bad_l, bad_l < 0 ? 0 : lowered[bad_l], bad_l < 0 ? 0 : ref[bad_l]);
        TH_CHECK(sl > sn, "%s: decomposed program has %d steps, native %d (expected more)", knames[k], sl, sn);
    }
    return th_summary("legalize");
}
