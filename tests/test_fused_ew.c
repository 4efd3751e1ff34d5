/* Fused elementwise chains (FUSED_EW): the per-op loops of the CPU kernel (AVX2 / NEON where the CPU has them,
   portable C otherwise) against a double-precision reference computed here, bit for bit where IEEE f32
   arithmetic is exact after one rounding (add, sub, mul, div, sqrt, max/min with NaN, relu, neg, abs), on data
   with NaN, infinities, signed zeros and a length that is neither a multiple of the vector width nor of the
   block, single-element operands and two threads; and the fusion pass's recomputed producers: a hardswish
   after an affine, y = s·x + b; y · min(max(y + 3, 0), 6) / 6 (y read twice), becomes one step, equal bit for
   bit to the unfused program and close to the f64 reference, on the CPU and on every available GPU; and chains
   whose single-element operands go through their own instructions (computed once per task); exp, erf and gelu
   (AVX2 in double where the CPU has it, libm otherwise) within 2e-6 of f64, fused and as steps of their own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#define NE 70001   /* > RLX_PARALLEL_MIN_WORK: two threads; odd: vector tails and a partial block */

static float A[NE], B[NE], OUTV[NE];

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static void fill(void) {
    int i;
    th_seed(7);
    for (i = 0; i < NE; i++) {
        A[i] = (float)th_uniform(-4.0, 4.0);
        B[i] = (float)th_uniform(-4.0, 4.0);
        if (B[i] == 0.0f) B[i] = 0.5f;
    }
    /* specials at scattered positions of both operands, some inside vector lanes, some in the tail */
    for (i = 0; i < NE; i += 97) A[i] = NAN;
    for (i = 13; i < NE; i += 101) B[i] = NAN;
    for (i = 5; i < NE; i += 89) A[i] = -0.0f;
    for (i = 6; i < NE; i += 83) A[i] = 0.0f;
    for (i = 7; i < NE; i += 79) A[i] = INFINITY;
    for (i = 8; i < NE; i += 73) A[i] = -INFINITY;
    for (i = 9; i < NE; i += 71) B[i] = -0.0f;
    A[NE - 1] = NAN; A[NE - 2] = -0.0f; B[NE - 3] = NAN;
}

/* reference of op on the f32 value t (= a + s) and b, in double, rounded once to f32 */
static float ref_op(rlx_op op, float t, float b) {
    double x = t, y = b;
    switch (op) {
    case RLX_OP_ADD: return (float)(x + y);
    case RLX_OP_SUB: return (float)(x - y);
    case RLX_OP_MUL: return (float)(x * y);
    case RLX_OP_DIV: return (float)(x / y);
    case RLX_OP_MAX: return (x != x || y != y) ? NAN : (float)(x > y ? x : y);
    case RLX_OP_MIN: return (x != x || y != y) ? NAN : (float)(x < y ? x : y);
    case RLX_OP_RELU: return x != x ? t : x > 0 ? t : 0.0f;
    case RLX_OP_NEG: return (float)-x;
    case RLX_OP_ABS: return (float)fabs(x);
    case RLX_OP_SQRT: return (float)sqrt(x);
    case RLX_OP_RSQRT: return (float)(1.0 / (double)(float)sqrt(x));
    case RLX_OP_EXP: return (float)exp(x);
    case RLX_OP_TANH: return (float)tanh(x);
    case RLX_OP_SIGMOID: return (float)(1.0 / (1.0 + exp(-x)));
    case RLX_OP_ERF: return (float)erf(x);
    case RLX_OP_GELU: return (float)(0.5 * x * (1.0 + erf(x / sqrt(2.0))));
    default: return 0.0f;
    }
}

/* y = op(a + s, b) (binary) or op(a + s) (unary): one FUSED_EW step with a single-element operand s */
static void check_op(rlx_op op, int exact) {
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_plan_info info;
    int64_t n = NE;
    const float sv = 0.25f;
    int binary = op >= RLX_OP_ADD && op <= RLX_OP_MIN, i, bad = -1, ok;
    rlx_tensor a = rlx_input(g, "a", RLX_F32, 1, &n), b = rlx_input(g, "b", RLX_F32, 1, &n);
    rlx_tensor s = rlx_constant(g, RLX_F32, 0, NULL, &sv), t = rlx_add(g, a, s);
    rlx_output(g, "y", binary ? rlx_binary(g, op, t, b) : rlx_unary(g, op, t));
    if (!binary) rlx_output(g, "b2", rlx_neg(g, b));   /* keeps b an input */
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    cd.num_threads = 2;
    ok = rlx_compile(g, &cd, &p) == RLX_OK;
    TH_CHECK(ok, "op %d: compile: %s", (int)op, rlx_graph_error(g));
    if (!ok) { rlx_graph_destroy(g); return; }
    ok = rlx_set_input_f32(p, "a", A, NE) == RLX_OK && rlx_set_input_f32(p, "b", B, NE) == RLX_OK && rlx_run(p) == RLX_OK &&
         rlx_get_output_f32(p, "y", OUTV, NE) == RLX_OK;
    TH_CHECK(ok, "op %d: run: %s", (int)op, rlx_program_error(p));
    rlx_program_plan(p, &info);
    TH_CHECK((int)info.num_steps == (binary ? 1 : 2), "op %d: %d steps, want the chain fused into one", (int)op, (int)info.num_steps);
    for (i = 0; i < NE && ok; i++) {
        float r = ref_op(op, A[i] + sv, B[i]), y = OUTV[i];
        /* gelu's float form 0.5x(1 + erf) loses relative precision where erf is near -1: an absolute bound */
        int same = exact ? ((r != r && y != y) || bits(r) == bits(y)) : th_close(y, r, op == RLX_OP_GELU ? 1e-6 : 1e-30, 2e-6);
        if (!same) { bad = i; break; }
    }
    TH_CHECK(bad < 0, "op %d: [%d] a=%.9g b=%.9g: got %.9g (0x%08x), want %.9g (0x%08x)", (int)op, bad,
             bad < 0 ? 0.0 : (double)A[bad], bad < 0 ? 0.0 : (double)B[bad], bad < 0 ? 0.0 : (double)OUTV[bad],
             bad < 0 ? 0u : bits(OUTV[bad]), bad < 0 ? 0.0 : (double)ref_op(op, A[bad] + sv, B[bad]),
             bad < 0 ? 0u : bits(ref_op(op, A[bad] + sv, B[bad])));
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
}

/* ---- recomputed producers: affine + hardswish + affine over [1, C, H, W] ---- */
#define HC 5
#define HH 17
#define HW 19
#define HN (HC * HH * HW)
static const float S1 = 1.25f, B1 = -0.375f, S2 = 0.75f, B2 = 0.125f;

static rlx_tensor hswish_chain(rlx_graph* g, rlx_tensor x, rlx_tensor* y_out) {
    const float three = 3.0f, zero = 0.0f, six = 6.0f;
    int64_t one = 1;
    rlx_tensor s1 = rlx_constant(g, RLX_F32, 1, &one, &S1), b1 = rlx_constant(g, RLX_F32, 1, &one, &B1);
    rlx_tensor s2 = rlx_constant(g, RLX_F32, 1, &one, &S2), b2 = rlx_constant(g, RLX_F32, 1, &one, &B2);
    rlx_tensor c3 = rlx_constant(g, RLX_F32, 0, NULL, &three), c0 = rlx_constant(g, RLX_F32, 0, NULL, &zero);
    rlx_tensor c6 = rlx_constant(g, RLX_F32, 0, NULL, &six);
    rlx_tensor y = rlx_add(g, rlx_mul(g, s1, x), b1);                              /* read twice below */
    rlx_tensor h = rlx_min(g, rlx_max(g, rlx_add(g, y, c3), c0), c6);
    rlx_tensor hs = rlx_div(g, rlx_mul(g, y, h), c6);
    if (y_out) *y_out = y;
    return rlx_add(g, rlx_mul(g, s2, hs), b2);
}

static double hswish_ref(double x) {
    double y = (double)S1 * x + (double)B1, h = fmin(fmax(y + 3.0, 0.0), 6.0);
    return (double)S2 * (y * h / 6.0) + (double)B2;
}

/* variant 0: x input → chain → output; 1: y is also a graph output (not recomputed); 2: y is also read by a
   reduction (computed for it and recomputed in the chain). Returns steps, -1 on failure. */
static int run_hswish(rlx_device dev, int variant, uint32_t flags, const float* x, float* out, float* y_out) {
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_plan_info info;
    int64_t shape[4] = {1, HC, HH, HW};
    int ok, axes[1] = {3};
    rlx_tensor y, xin = rlx_input(g, "x", RLX_F32, 4, shape);
    rlx_output(g, "z", hswish_chain(g, xin, &y));
    if (variant == 1) rlx_output(g, "y", y);
    if (variant == 2) rlx_output(g, "r", rlx_reduce_sum(g, y, 1, axes, 0));
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    cd.flags = flags;
    if (rlx_compile(g, &cd, &p) != RLX_OK) {
        printf("compile (device %s, variant %d): %s\n", rlx_device_name(dev), variant, rlx_graph_error(g));
        rlx_graph_destroy(g);
        return -1;
    }
    ok = rlx_set_input_f32(p, "x", x, HN) == RLX_OK && rlx_run(p) == RLX_OK && rlx_get_output_f32(p, "z", out, HN) == RLX_OK;
    if (ok && variant == 1) ok = rlx_get_output_f32(p, "y", y_out, HN) == RLX_OK;
    if (!ok) printf("run (device %s, variant %d): %s\n", rlx_device_name(dev), variant, rlx_program_error(p));
    rlx_program_plan(p, &info);
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    return ok ? (int)info.num_steps : -1;
}

static void check_hswish(rlx_device dev) {
    static float x[HN], fused[HN], plain[HN], yv[HN];
    int i, v;
    const char* dn = rlx_device_name(dev);
    th_seed(12345);
    for (i = 0; i < HN; i++) x[i] = (float)th_uniform(-5.0, 5.0);   /* both sides of the clip */
    for (v = 0; v < 3; v++) {
        int sf = run_hswish(dev, v, 0, x, fused, yv), sp = run_hswish(dev, v, RLX_COMPILE_NO_FUSION, x, plain, yv);
        int bad = -1, badr = -1;
        TH_CHECK(sf > 0 && sp > 0, "%s variant %d: fused %d steps, unfused %d", dn, v, sf, sp);
        if (sf <= 0 || sp <= 0) continue;
        if (v == 0) TH_CHECK(sf == 1, "%s: affine + hardswish + affine took %d steps, want 1 (y recomputed)", dn, sf);
        else TH_CHECK(sf < sp, "%s variant %d: fused %d steps, unfused %d", dn, v, sf, sp);
        for (i = 0; i < HN; i++) {
            if (bad < 0 && bits(fused[i]) != bits(plain[i]) && dev == RLX_DEVICE_CPU) bad = i;
            if (bad < 0 && !th_close(fused[i], plain[i], 1e-6, 1e-6)) bad = i;
            if (badr < 0 && !th_close(fused[i], hswish_ref(x[i]), 1e-5, 1e-5)) badr = i;
        }
        TH_CHECK(bad < 0, "%s variant %d: fused [%d] %.9g vs unfused %.9g", dn, v, bad, bad < 0 ? 0.0 : fused[bad],
                 bad < 0 ? 0.0 : plain[bad]);
        TH_CHECK(badr < 0, "%s variant %d: fused [%d] %.9g vs f64 %.9g", dn, v, badr, badr < 0 ? 0.0 : fused[badr],
                 badr < 0 ? 0.0 : hswish_ref(x[badr]));
        if (v == 1) {
            for (i = 0, bad = -1; i < HN; i++)
                if (bad < 0 && !th_close(yv[i], (double)S1 * x[i] + (double)B1, 1e-6, 1e-6)) bad = i;
            TH_CHECK(bad < 0, "%s: output y [%d] %.9g", dn, bad, bad < 0 ? 0.0 : yv[bad]);
        }
    }
}

/* y = op(a): a unary step of its own (exp, erf and gelu take the fused_ew's AVX2 forms there too) */
static void check_unary_step(rlx_op op) {
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    int64_t n = NE;
    int i, bad = -1, ok;
    rlx_output(g, "y", rlx_unary(g, op, rlx_input(g, "a", RLX_F32, 1, &n)));
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    cd.num_threads = 2;
    ok = rlx_compile(g, &cd, &p) == RLX_OK && rlx_set_input_f32(p, "a", A, NE) == RLX_OK && rlx_run(p) == RLX_OK &&
         rlx_get_output_f32(p, "y", OUTV, NE) == RLX_OK;
    TH_CHECK(ok, "unary step %d: %s", (int)op, p ? rlx_program_error(p) : rlx_graph_error(g));
    for (i = 0; i < NE && ok; i++)
        if (!th_close(OUTV[i], ref_op(op, A[i], 0.0f), op == RLX_OP_GELU ? 1e-6 : 1e-30, 2e-6)) { bad = i; break; }
    TH_CHECK(bad < 0, "unary step %d: [%d] a=%.9g: got %.9g, want %.9g", (int)op, bad, bad < 0 ? 0.0 : (double)A[bad],
             bad < 0 ? 0.0 : (double)OUTV[bad], bad < 0 ? 0.0 : (double)ref_op(op, A[bad], 0.0f));
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
}

/* ---- uniform instructions: operands that are all single elements are computed once per task ----
   y = a · (1 − 0.9^t) / sqrt(s + 1) + exp(s) with t and s single-element inputs (as an optimizer's bias
   corrections are), one step; then z = sqrt(s^t + 1), a chain whose every instruction (and so its result) is
   uniform. Against f64, on two threads. */
static void check_uniform(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_plan_info info;
    int64_t n = NE, one = 1;
    const float c09 = 0.9f, c1 = 1.0f, tv = 7.0f, sv = 0.625f;
    float z = 0;
    int i, bad = -1, ok;
    rlx_tensor a = rlx_input(g, "a", RLX_F32, 1, &n), t = rlx_input(g, "t", RLX_F32, 1, &one);
    rlx_tensor s = rlx_input(g, "s", RLX_F32, 1, &one);
    rlx_tensor k09 = rlx_constant(g, RLX_F32, 0, NULL, &c09), k1 = rlx_constant(g, RLX_F32, 0, NULL, &c1);
    rlx_tensor bc = rlx_sub(g, k1, rlx_pow(g, k09, t)), den = rlx_sqrt(g, rlx_add(g, s, k1));
    rlx_output(g, "y", rlx_add(g, rlx_div(g, rlx_mul(g, a, bc), den), rlx_exp(g, s)));
    rlx_output(g, "z", rlx_sqrt(g, rlx_add(g, rlx_pow(g, s, t), k1)));
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    cd.num_threads = 2;
    ok = rlx_compile(g, &cd, &p) == RLX_OK;
    TH_CHECK(ok, "uniform: compile: %s", rlx_graph_error(g));
    if (!ok) { rlx_graph_destroy(g); return; }
    ok = rlx_set_input_f32(p, "a", A, NE) == RLX_OK && rlx_set_input_f32(p, "t", &tv, 1) == RLX_OK &&
         rlx_set_input_f32(p, "s", &sv, 1) == RLX_OK && rlx_run(p) == RLX_OK &&
         rlx_get_output_f32(p, "y", OUTV, NE) == RLX_OK && rlx_get_output_f32(p, "z", &z, 1) == RLX_OK;
    TH_CHECK(ok, "uniform: run: %s", rlx_program_error(p));
    rlx_program_plan(p, &info);
    TH_CHECK((int)info.num_steps == 2, "uniform: %d steps, want 2 (one per output)", (int)info.num_steps);
    for (i = 0; i < NE && ok; i++) {
        double r = (double)A[i] * (1.0 - pow(0.9, 7.0)) / sqrt(1.625) + exp(0.625);
        if (A[i] != A[i] ? OUTV[i] == OUTV[i] : !th_close(OUTV[i], r, 1e-30, 2e-6)) { bad = i; break; }
    }
    TH_CHECK(bad < 0, "uniform: y[%d] = %.9g for a = %.9g, want %.9g", bad, bad < 0 ? 0.0 : (double)OUTV[bad],
             bad < 0 ? 0.0 : (double)A[bad],
             bad < 0 ? 0.0 : (double)A[bad] * (1.0 - pow(0.9, 7.0)) / sqrt(1.625) + exp(0.625));
    TH_CHECK(th_close(z, sqrt(pow(0.625, 7.0) + 1.0), 1e-30, 2e-6), "uniform: z = %.9g, want %.9g", (double)z,
             sqrt(pow(0.625, 7.0) + 1.0));
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
}

int main(void) {
    static const rlx_op exact[] = {RLX_OP_ADD, RLX_OP_SUB, RLX_OP_MUL, RLX_OP_DIV, RLX_OP_MAX, RLX_OP_MIN,
                                   RLX_OP_RELU, RLX_OP_NEG, RLX_OP_ABS, RLX_OP_SQRT, RLX_OP_RSQRT};
    static const rlx_op close_[] = {RLX_OP_EXP, RLX_OP_TANH, RLX_OP_SIGMOID, RLX_OP_ERF, RLX_OP_GELU};
    rlx_device_info dv[16];
    int n, i;
    fill();
    for (i = 0; i < (int)(sizeof exact / sizeof exact[0]); i++) check_op(exact[i], 1);
    for (i = 0; i < (int)(sizeof close_ / sizeof close_[0]); i++) check_op(close_[i], 0);
    check_unary_step(RLX_OP_EXP);
    check_unary_step(RLX_OP_ERF);
    check_unary_step(RLX_OP_GELU);
    check_uniform();
    check_hswish(RLX_DEVICE_CPU);
    n = rlx_devices(dv, 16);
    for (i = 1; i < n && i < 16; i++) {
        if (!dv[i].available) { th_skip("%s: %s", rlx_device_name(dv[i].device), dv[i].reason); continue; }
        if (dv[i].index != 0) continue;
        check_hswish(dv[i].device);
    }
    return th_summary("fused_ew");
}
