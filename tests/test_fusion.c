/* Fusion: every graph compiled with the fusion pass gives the same results as its unfused twin
   (RLX_COMPILE_NO_FUSION) and as the fused ops decomposed back into primitives (RLX_COMPILE_DECOMPOSE), and
   the fused program really has fewer steps. The fused ops built directly are checked the same way. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../rlx.h"
#include "harness.h"
#include <stdlib.h>

#define M 5
#define K 19
#define N 23

enum { C_LINEAR_RELU, C_LINEAR_GELU, C_LINEAR_SILU, C_LINEAR_NOACT, C_LINEAR_BATCHED, C_ADD_RMSNORM,
       C_ADD_RMSNORM_SUM, C_ADD_LAYERNORM_SUM, C_SWIGLU, C_GEGLU, C_EW_CHAIN, C_EW_LONG, C_EW_SCALAR,
       C_NO_FUSE_OUTPUT, C_GATED_SILU, C_GATED_GELU, C_MATMUL_T, C_MATMUL_T_BATCHED, C_DIRECT_LINEAR, C_DIRECT_ADDNORM, C_DIRECT_GLU, C_COUNT };
static const char* const cname[C_COUNT] = {
    "linear+relu", "linear+gelu", "linear+silu", "linear (no act)", "linear batched", "add+rmsnorm",
    "add+rmsnorm (sum reused)", "add+layernorm (sum reused)", "swiglu", "geglu", "elementwise chain",
    "long elementwise chain", "chain with scalar", "intermediate is an output (no fusion)",
    "silu(y) * (x·w) (gated linear)", "(x·w) * gelu(y) (gated linear)", "x · transpose(wt)",
    "xb · transpose(wtb) batched", "rlx_linear",
    "rlx_add_rmsnorm", "rlx_swiglu/geglu"};
/* whether the fusion pass must reduce the number of steps for the case */
/* 2: only where the device folds the transpose into the GEMM (the CPU) */
static const int must_shrink[C_COUNT] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 2, 2, 0, 0, 0};
static rlx_device last_device;

static float X[2 * M * K], W[K * N], B[N], Y[M * N], Z[M * N], G[N], WT[2 * N * K];

static void build(rlx_graph* g, int c) {
    int64_t xs[2] = {M, K}, xb[3] = {2, M, K}, ws[2] = {K, N}, bs[1] = {N}, ys[2] = {M, N};
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, xs), xbt = rlx_input(g, "xb", RLX_F32, 3, xb);
    rlx_tensor w = rlx_param(g, "w", RLX_F32, 2, ws), b = rlx_param(g, "b", RLX_F32, 1, bs);
    rlx_tensor y = rlx_input(g, "y", RLX_F32, 2, ys), z = rlx_input(g, "z", RLX_F32, 2, ys);
    int64_t wts[2] = {N, K}, wtbs[3] = {2, N, K};
    rlx_tensor wt = rlx_param(g, "wt", RLX_F32, 2, wts), wtb = rlx_param(g, "wtb", RLX_F32, 3, wtbs);
    rlx_tensor gm = rlx_param(g, "g", RLX_F32, 1, bs), none = {0}, t, s, sum;
    rlx_tensor mm = rlx_matmul(g, x, w);
    switch (c) {
    case C_LINEAR_RELU: rlx_output(g, "o", rlx_relu(g, rlx_add(g, mm, b))); break;
    case C_LINEAR_GELU: rlx_output(g, "o", rlx_gelu(g, rlx_add(g, b, mm))); break;
    case C_LINEAR_SILU: rlx_output(g, "o", rlx_silu(g, rlx_add(g, mm, b))); break;
    case C_LINEAR_NOACT: rlx_output(g, "o", rlx_mul(g, rlx_add(g, mm, b), y)); break;
    case C_LINEAR_BATCHED: rlx_output(g, "o", rlx_relu(g, rlx_add(g, rlx_matmul(g, xbt, w), b))); break;
    case C_ADD_RMSNORM: rlx_output(g, "o", rlx_rmsnorm(g, rlx_add(g, y, z), gm, none, 1e-5f)); break;
    case C_ADD_RMSNORM_SUM:
        s = rlx_add(g, y, z);
        t = rlx_rmsnorm(g, s, gm, b, 1e-5f);
        rlx_output(g, "o", rlx_add(g, rlx_mul(g, t, y), s)); /* the sum is read again after the norm */
        rlx_output(g, "s", s);
        break;
    case C_ADD_LAYERNORM_SUM:
        s = rlx_add(g, y, z);
        rlx_output(g, "o", rlx_sub(g, rlx_layernorm(g, s, gm, b, -1, 1e-5f), s));
        break;
    case C_SWIGLU: rlx_output(g, "o", rlx_mul(g, rlx_silu(g, y), z)); break;
    case C_GEGLU: rlx_output(g, "o", rlx_mul(g, z, rlx_gelu(g, y))); break;
    case C_EW_CHAIN: rlx_output(g, "o", rlx_tanh(g, rlx_mul(g, rlx_add(g, y, z), rlx_sub(g, y, z)))); break;
    case C_EW_LONG:
        t = y;
        { int i; for (i = 0; i < 30; i++) t = i % 3 == 0 ? rlx_add(g, t, z) : i % 3 == 1 ? rlx_sin(g, t) : rlx_mul(g, t, y); }
        rlx_output(g, "o", t);
        break;
    case C_EW_SCALAR:
        rlx_output(g, "o", rlx_exp(g, rlx_mul(g, rlx_sub(g, y, rlx_scalar(g, RLX_F32, 0.25)), rlx_scalar(g, RLX_F32, -0.5))));
        break;
    case C_NO_FUSE_OUTPUT:
        t = rlx_add(g, mm, b);
        rlx_output(g, "o", rlx_relu(g, t));
        rlx_output(g, "pre", t);
        break;
    case C_GATED_SILU: rlx_output(g, "o", rlx_mul(g, rlx_silu(g, y), mm)); break;
    case C_GATED_GELU: rlx_output(g, "o", rlx_mul(g, mm, rlx_gelu(g, y))); break;
    case C_MATMUL_T: rlx_output(g, "o", rlx_matmul(g, x, rlx_transpose(g, wt, NULL))); break;
    case C_MATMUL_T_BATCHED: {
        int perm[3] = {0, 2, 1};
        rlx_output(g, "o", rlx_matmul(g, xbt, rlx_transpose(g, wtb, perm)));
        break;
    }
    case C_DIRECT_LINEAR: rlx_output(g, "o", rlx_linear(g, x, w, b, RLX_ACT_GELU_TANH)); break;
    case C_DIRECT_ADDNORM:
        rlx_output(g, "o", rlx_add_rmsnorm(g, y, z, gm, none, 1e-5f, &sum));
        rlx_output(g, "s", sum);
        rlx_output(g, "o2", rlx_add_layernorm(g, y, z, none, b, 1, 1e-3f, NULL));
        break;
    default:
        rlx_output(g, "o", rlx_swiglu(g, y, z));
        rlx_output(g, "o2", rlx_geglu(g, z, y));
        break;
    }
}

static int outputs_of(int c, const char** names) {
    switch (c) {
    case C_ADD_RMSNORM_SUM: names[0] = "o"; names[1] = "s"; return 2;
    case C_NO_FUSE_OUTPUT: names[0] = "o"; names[1] = "pre"; return 2;
    case C_DIRECT_ADDNORM: names[0] = "o"; names[1] = "s"; names[2] = "o2"; return 3;
    case C_DIRECT_GLU: names[0] = "o"; names[1] = "o2"; return 2;
    default: names[0] = "o"; return 1;
    }
}

/* runs case c with flags; returns steps (or -1) and fills out[k] for each output */
static int run(int c, uint32_t flags, float out[3][2 * M * N]) {
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc d;
    rlx_plan_info info;
    const char* names[3];
    int no = outputs_of(c, names), k, ok = 1;
    memset(&d, 0, sizeof d);
    d.flags = flags;
    build(g, c);
    if (rlx_compile(g, &d, &p) != RLX_OK) {
        printf("compile %s: %s\n", cname[c], rlx_graph_error(g));
        rlx_graph_destroy(g);
        return -1;
    }
    ok &= rlx_set_input_f32(p, "x", X, M * K) == RLX_OK;
    ok &= rlx_set_input_f32(p, "xb", X, 2 * M * K) == RLX_OK;
    ok &= rlx_set_input_f32(p, "y", Y, M * N) == RLX_OK;
    ok &= rlx_set_input_f32(p, "z", Z, M * N) == RLX_OK;
    ok &= rlx_set_param_f32(p, "w", W, K * N) == RLX_OK;
    ok &= rlx_set_param_f32(p, "b", B, N) == RLX_OK;
    ok &= rlx_set_param_f32(p, "g", G, N) == RLX_OK;
    ok &= rlx_set_param_f32(p, "wt", WT, N * K) == RLX_OK;
    ok &= rlx_set_param_f32(p, "wtb", WT, 2 * N * K) == RLX_OK;
    ok &= rlx_run(p) == RLX_OK;
    for (k = 0; k < no; k++) {
        size_t cnt = (c == C_LINEAR_BATCHED || c == C_MATMUL_T_BATCHED) ? 2 * M * N : M * N;
        ok &= rlx_get_output_f32(p, names[k], out[k], cnt) == RLX_OK;
    }
    if (!ok) printf("%s: %s\n", cname[c], rlx_program_error(p));
    rlx_program_plan(p, &info);
    last_device = rlx_program_device(p);
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    return ok ? info.num_steps : -1;
}

int main(void) {
    static float fused[3][2 * M * N], plain[3][2 * M * N], dec[3][2 * M * N];
    int c, i, k;
    th_seed(11);
    for (i = 0; i < 2 * M * K; i++) X[i] = (float)th_uniform(-1, 1);
    for (i = 0; i < K * N; i++) W[i] = (float)th_uniform(-0.5, 0.5);
    for (i = 0; i < N; i++) { B[i] = (float)th_uniform(-0.5, 0.5); G[i] = (float)th_uniform(0.5, 1.5); }
    for (i = 0; i < 2 * N * K; i++) WT[i] = (float)th_uniform(-0.5, 0.5);
    for (i = 0; i < M * N; i++) { Y[i] = (float)th_uniform(-1, 1); Z[i] = (float)th_uniform(-1, 1); }
    for (c = 0; c < C_COUNT; c++) {
        const char* names[3];
        int no = outputs_of(c, names), n = (c == C_LINEAR_BATCHED || c == C_MATMUL_T_BATCHED) ? 2 * M * N : M * N;
        int sf = run(c, 0, fused), sp = run(c, RLX_COMPILE_NO_FUSION, plain), sd = run(c, RLX_COMPILE_DECOMPOSE, dec);
        TH_CHECK(sf > 0 && sp > 0 && sd > 0, "%s: compile/run failed", cname[c]);
        if (sf <= 0 || sp <= 0 || sd <= 0) continue;
        for (k = 0; k < no; k++) {
            int bad = -1, badd = -1;
            for (i = 0; i < n; i++) {
                if (bad < 0 && !th_close(fused[k][i], plain[k][i], 1e-5, 1e-5)) bad = i;
                if (badd < 0 && !th_close(dec[k][i], plain[k][i], 1e-5, 1e-5)) badd = i;
            }
            TH_CHECK(bad < 0, "%s output %s: fused [%d] %.8g vs unfused %.8g", cname[c], names[k], bad,
                     bad < 0 ? 0.0 : fused[k][bad], bad < 0 ? 0.0 : plain[k][bad]);
            TH_CHECK(badd < 0, "%s output %s: decomposed [%d] %.8g vs unfused %.8g", cname[c], names[k], badd,
                     badd < 0 ? 0.0 : dec[k][badd], badd < 0 ? 0.0 : plain[k][badd]);
        }
        if (must_shrink[c] == 1 || (must_shrink[c] == 2 && last_device == RLX_DEVICE_CPU)) TH_CHECK(sf < sp, "%s: fused program has %d steps, unfused %d", cname[c], sf, sp);
        else TH_CHECK(sf <= sp, "%s: fused program has %d steps, more than unfused %d", cname[c], sf, sp);
        if (c >= C_DIRECT_LINEAR) TH_CHECK(sd > sf, "%s: decomposing the fused op should add steps (%d vs %d)", cname[c], sd, sf);
    }
    /* a plain reference for two cases, so fused and unfused cannot agree on a wrong answer */
    {
        int bad = -1;
        run(C_LINEAR_RELU, 0, fused);
        for (i = 0; i < M * N; i++) {
            int r = i / N, col = i % N, kk;
            double acc = B[col];
            for (kk = 0; kk < K; kk++) acc += (double)X[r * K + kk] * W[kk * N + col];
            if (bad < 0 && !th_close(fused[0][i], acc > 0 ? acc : 0, 1e-5, 1e-5)) bad = i;
        }
        TH_CHECK(bad < 0, "linear+relu vs double reference at %d", bad);
        bad = -1;
        run(C_SWIGLU, 0, fused);
        for (i = 0; i < M * N; i++) {
            double yv = Y[i], ref = yv / (1 + exp(-yv)) * Z[i];
            if (bad < 0 && !th_close(fused[0][i], ref, 1e-6, 1e-5)) bad = i;
        }
        TH_CHECK(bad < 0, "swiglu vs double reference at %d", bad);
        bad = -1;
        run(C_GATED_SILU, 0, fused);
        for (i = 0; i < M * N; i++) {
            int r = i / N, col = i % N, kk;
            double acc = 0, yv = Y[i];
            for (kk = 0; kk < K; kk++) acc += (double)X[r * K + kk] * W[kk * N + col];
            if (bad < 0 && !th_close(fused[0][i], yv / (1 + exp(-yv)) * acc, 1e-5, 1e-5)) bad = i;
        }
        TH_CHECK(bad < 0, "gated linear vs double reference at %d", bad);
        bad = -1;
        run(C_MATMUL_T_BATCHED, 0, fused);
        for (i = 0; i < 2 * M * N; i++) {
            int bt = i / (M * N), r = i / N % M, col = i % N, kk;
            double acc = 0;
            for (kk = 0; kk < K; kk++) acc += (double)X[bt * M * K + r * K + kk] * WT[bt * N * K + col * K + kk];
            if (bad < 0 && !th_close(fused[0][i], acc, 1e-5, 1e-5)) bad = i;
        }
        TH_CHECK(bad < 0, "matmul with transposed operand vs double reference at %d", bad);
    }
    return th_summary("fusion");
}
