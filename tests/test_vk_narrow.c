/* test_vk_narrow.c - the 32-bit Vulkan kernel variant (kernels/vulkan/n32.glsl): a device without shaderFloat64
   and shaderInt64, simulated with RLX_VULKAN_HIDE_FEATURES=float64,int64 on any Vulkan device (lavapipe in CI).

   1. The device stays available with both features hidden (rlx_devices).
   2. f32 element math against libm in double, on dense and random inputs: exp log sin cos tan atan tanh erf pow
      within 1 ulp; sigmoid and silu within 4 ulp of the CPU's f32 formula evaluated with a correctly rounded exp
      (above 2^24 one ulp of exp moves 1 + exp(-x) by up to two float steps);
      gelu and gelu_tanh within 2 ulp of max(|gelu(x)|, |x|/2) (the cancellation in 1 + erf is the CPU formula's
      own); the max ulp of each is printed.
   3. Division, sqrt, rsqrt, add, mul on random bit patterns (every exponent, subnormals, inf, NaN, signed zeros)
      bit for bit equal to C's float a / b, sqrtf, 1.0f / sqrtf(x), a + b, a * b.
   4. int32 and u32 arithmetic, comparisons and unary ops on edge values (INT_MIN, -1, 0, INT_MAX, 2^31, ...)
      against int64 arithmetic written here, wrapped to 32 bits (the CPU's rule); casts f32 -> i32 u32 i8 u8 bool
      f16 bf16 and i32 -> f16 bf16 f32 against rounding and saturation written here.
   5. An f64 program is RLX_ERROR_UNSUPPORTED naming f64 and shaderFloat64 with RLX_COMPILE_NO_FALLBACK, and runs
      on the CPU without it; a kernel without a 32-bit variant (matmul) is unsupported naming the feature.
   6. The op table of tests/test_backends.c on Vulkan with both features hidden: every case passes or is skipped
      as unsupported; none fails, and the elementwise cases pass (argument 'quick' leaves it out).
   7. The launch checks of the variant (every count, dim, stride, offset and attribute within int32, no f64/i64
      tensor) on crafted launch arguments (needs no device).
   Without a Vulkan device every other check is skipped with the reason. */
#if !defined(_WIN32)
#  define _POSIX_C_SOURCE 200809L /* setenv under -std=c99 */
#endif
#include <stdlib.h>
#include <float.h>
#include <math.h>

#define main backends_main
#include "test_backends.c"
#undef main

#include "vk_env.h"

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* Compiles g for Vulkan without fallback and runs it; inputs "x" and "z" (either may be absent: NULL), outputs
   out_names[k] of dtype odt[k] into outs[k]. 0 on failure with the message in err. */
#define VKN_MAXOUT 24
static int vkn_run(rlx_graph* g, rlx_dtype idt, const void* x, const void* z, size_t n, int nout, const char* const* names,
                   const rlx_dtype* odt, void** outs, char* err, size_t cap) {
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    rlx_result r;
    int k;
    size_t isz = rlx_dtype_size(idt);
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_VULKAN;
    cd.flags = RLX_COMPILE_NO_FALLBACK;
    r = rlx_compile(g, &cd, &p);
    if (r != RLX_OK) { snprintf(err, cap, "compile: %s: %s", rlx_result_string(r), rlx_graph_error(g)); return 0; }
    if (rlx_program_device(p) != RLX_DEVICE_VULKAN) { snprintf(err, cap, "not on Vulkan"); rlx_program_destroy(p); return 0; }
    r = RLX_OK;
    if (x) r = rlx_set_input(p, "x", idt, x, n * isz);
    if (r == RLX_OK && z) r = rlx_set_input(p, "z", idt, z, n * isz);
    if (r == RLX_OK) r = rlx_run(p);
    for (k = 0; r == RLX_OK && k < nout; k++) r = rlx_get_output(p, names[k], odt[k], outs[k], n * rlx_dtype_size(odt[k]));
    if (r != RLX_OK) snprintf(err, cap, "run: %s: %s", rlx_result_string(r), rlx_program_error(p));
    rlx_program_destroy(p);
    return r == RLX_OK;
}

/* distance of got from the exact value ref in ulps of the float nearest ref (subnormal ulp 2^-149) */
static double vkn_ulp(float got, double ref) {
    double a, u;
    int e;
    if (isnan(ref) || isnan(got)) return (isnan(ref) && isnan(got)) ? 0.0 : 1e30;
    if (isinf((float)ref) || isinf(got)) return got == (float)ref ? 0.0 : 1e30;   /* overflow of the float */
    a = fabs(ref);
    if (a > 3.4028234663852886e38) a = 3.4028234663852886e38;
    frexp(a, &e);
    u = ldexp(1.0, (e - 24) < -149 ? -149 : e - 24);
    return fabs((double)got - ref) / u;
}

static double ref_unary(rlx_op op, double x) {
    switch (op) {
    case RLX_OP_EXP: return exp(x);
    case RLX_OP_LOG: return log(x);
    case RLX_OP_SIN: return sin(x);
    case RLX_OP_COS: return cos(x);
    case RLX_OP_TAN: return tan(x);
    case RLX_OP_ATAN: return atan(x);
    case RLX_OP_TANH: return tanh(x);
    case RLX_OP_ERF: return erf(x);
    /* the CPU's f32 formulas (1.0f / (1.0f + expf(-x)), x / (1.0f + expf(-x))) with expf correctly rounded: their
       f32 steps overflow and round as on the CPU (sigmoid(-88.8) is 0 there, not a subnormal) */
    case RLX_OP_SIGMOID: { volatile float t = (float)exp(-x), d = 1.0f + t, q = 1.0f / d; return q; }
    case RLX_OP_SILU: { volatile float t = (float)exp(-x), d = 1.0f + t, q = (float)x / d; return q; }
    case RLX_OP_GELU: return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
    case RLX_OP_GELU_TANH: return 0.5 * x * (1.0 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
    default: return 0.0;
    }
}

/* ---- 2: element math ulp --------------------------------------------------------------------------------------- */
/* Whether the device flushes f32 subnormals in the 32-bit kernels (NVIDIA does without the float-controls
   execution modes): x * 1 for the smallest subnormal x. Where it does, results whose input or exact result is
   subnormal are also accepted as the device's flushed result (documented in the README: such devices give 0
   where the CPU gives a subnormal); the count is printed. -1 when the probe could not run. */
static int g_flush = -1;
static float vkn_daz(float v) { return fabsf(v) < FLT_MIN ? (v < 0 || (v == 0 && signbit(v)) ? -0.0f : 0.0f) : v; }
static void vkn_probe_flush(void) {
    uint32_t xv[2] = {1u, 0x80000003u}, zv[2] = {0x3F800000u, 0x3F800000u}, ov[2] = {0, 0};
    const char* names[1] = {"y"};
    rlx_dtype odt[1] = {RLX_F32};
    void* outs[1] = {ov};
    char err[600];
    int64_t shp[1] = {2};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor tx = rlx_input(g, "x", RLX_F32, 1, shp), tz = rlx_input(g, "z", RLX_F32, 1, shp);
    rlx_output(g, "y", rlx_binary(g, RLX_OP_MUL, tx, tz));
    if (vkn_run(g, RLX_F32, xv, zv, 2, 1, names, odt, outs, err, sizeof err)) g_flush = (ov[0] & 0x7FFFFFFFu) == 0;
    rlx_graph_destroy(g);
    printf("  f32 subnormals in the 32-bit kernels: %s\n", g_flush < 0 ? "probe failed" : g_flush ? "flushed to zero by the device" : "kept");
}

static void test_math(void) {
    static const rlx_op ops[] = {RLX_OP_EXP, RLX_OP_LOG, RLX_OP_SIN, RLX_OP_COS, RLX_OP_TAN, RLX_OP_ATAN, RLX_OP_TANH,
                                 RLX_OP_ERF, RLX_OP_SIGMOID, RLX_OP_SILU, RLX_OP_GELU, RLX_OP_GELU_TANH};
    static const char* const opn[] = {"exp", "log", "sin", "cos", "tan", "atan", "tanh", "erf", "sigmoid", "silu",
                                      "gelu", "gelu_tanh", "pow"};
    static const double bound[] = {1, 1, 1, 1, 1, 1, 1, 1, 4, 4, 2, 2, 1};
    enum { NOPS = 13, N = 1 << 17 };
    const char* names[NOPS];
    rlx_dtype odt[NOPS];
    void* outs[NOPS];
    float* x = (float*)malloc(sizeof(float) * N);
    float* z = (float*)malloc(sizeof(float) * N);
    float* o = (float*)malloc(sizeof(float) * N * NOPS);
    char err[600], nm[NOPS][16];
    int64_t shp[1] = {N};
    rlx_graph* g;
    int k, i;
    if (!x || !z || !o) { TH_CHECK(0, "out of memory"); free(x); free(z); free(o); return; }
    th_seed(0x32B17F00Du);
    for (i = 0; i < N; i++) {
        if (i < N / 4) x[i] = (float)(-12.0 + 24.0 * i / (N / 4));                 /* dense [-12, 12) */
        else if (i < N / 2) x[i] = (float)th_uniform(-100.0, 100.0);                /* random moderate */
        else {                                                                     /* random bit patterns */
            uint32_t u = (uint32_t)th_rng();
            if ((u & 0x7F800000u) == 0x7F800000u) u &= 0xBFFFFFFFu;                /* no inf/NaN here */
            x[i] = u2f(u);
        }
        z[i] = (float)th_uniform(-8.0, 8.0);
        if (i % 7 == 0) z[i] = (float)(int)z[i];                                   /* integer exponents */
    }
    for (i = 0; i < 8; i++) x[i] = u2f((uint32_t[]){0x7F800000u, 0xFF800000u, 0x7FC00000u, 0, 0x80000000u, 1, 0x00800000u, 0x7F7FFFFFu}[i]);
    g = rlx_graph_create(NULL);
    {
        rlx_tensor tx = rlx_input(g, "x", RLX_F32, 1, shp), tz = rlx_input(g, "z", RLX_F32, 1, shp);
        for (k = 0; k < NOPS; k++) {
            snprintf(nm[k], sizeof nm[k], "y%d", k);
            names[k] = nm[k];
            odt[k] = RLX_F32;
            outs[k] = o + (size_t)k * N;
            rlx_output(g, nm[k], k < NOPS - 1 ? rlx_unary(g, ops[k], tx) : rlx_binary(g, RLX_OP_POW, rlx_abs(g, tx), tz));
        }
    }
    if (!vkn_run(g, RLX_F32, x, z, N, NOPS, names, odt, outs, err, sizeof err)) {
        TH_CHECK(0, "element math program: %s", err);
    } else {
        for (k = 0; k < NOPS; k++) {
            double worst = 0.0;
            int wi = 0, nflush = 0;
            for (i = 0; i < N; i++) {
                double xd = x[i], ref, d;
                float got = o[(size_t)k * N + i];
                if (k == NOPS - 1) ref = pow(fabs(xd), (double)z[i]);
                else ref = ref_unary(ops[k], xd);
                if (k < NOPS - 1 && (ops[k] == RLX_OP_GELU || ops[k] == RLX_OP_GELU_TANH) && isfinite(ref)) {
                    double sc = fabs(ref) > fabs(xd) / 2 ? fabs(ref) : fabs(xd) / 2;   /* in ulps of max(|ref|, |x|/2) */
                    int e = sc > 0 ? ilogb(sc) : -149;
                    d = fabs((double)got - ref) / ldexp(1.0, e - 23 < -149 ? -149 : e - 23);
                } else {
                    d = vkn_ulp(got, ref);
                }
                if (d > 0 && g_flush == 1 && (fabs(xd) < FLT_MIN || fabs(ref) < FLT_MIN)) {
                    /* a flushing device: the function of the flushed input, its subnormal result flushed */
                    double xf = vkn_daz(x[i]), rf = k == NOPS - 1 ? pow(fabs(xf), (double)z[i]) : ref_unary(ops[k], xf);
                    double d2;
                    if (fabs(rf) < FLT_MIN) rf = 0.0;
                    d2 = got == 0.0f && rf == 0.0 ? 0.0 : vkn_ulp(got, rf);
                    if (d2 < d) { d = d2; nflush++; }
                }
                if (d > worst) { worst = d; wi = i; }
            }
            printf("  n32 %-9s max %.3f ulp (bound %.1f) at x = %.9g%s; %d subnormal cases as flushed\n", opn[k], worst,
                   bound[k], (double)x[wi], k == NOPS - 1 ? " (pow |x|^z)" : "", nflush);
            TH_CHECK(worst <= bound[k], "%s: %.3f ulp at x = %.9g (z = %.9g): got %.9g", opn[k], worst, (double)x[wi],
                     (double)z[wi], (double)o[(size_t)k * N + wi]);
        }
    }
    rlx_graph_destroy(g);
    free(x);
    free(z);
    free(o);
}

/* ---- 3: correctly rounded ops, bit for bit ---------------------------------------------------------------------- */
static uint32_t rand_float_bits(void) {
    uint32_t u = (uint32_t)th_rng(), c = (uint32_t)(th_rng() % 16);
    if (c == 0) u &= 0x807FFFFFu;                      /* subnormal or zero */
    else if (c == 1) u = (u & 0x80000000u) | 0x7F800000u | (th_rng() % 4 == 0 ? 0x400000u : 0u);   /* inf / NaN */
    else if (c == 2) u = (u & 0x80000000u) | ((uint32_t)(th_rng() % 3) << 23) | (u & 0x7FFFFFu);   /* tiny normal */
    else if (c == 3) u = (u & 0x80FFFFFFu) | 0x3F000000u;                                          /* near 1 */
    return u;
}
static void test_exact(void) {
    enum { N = 1 << 18, NO = 6 };
    static const char* const names[NO] = {"div", "sqrt", "rsqrt", "add", "mul", "divn"};
    rlx_dtype odt[NO] = {RLX_F32, RLX_F32, RLX_F32, RLX_F32, RLX_F32, RLX_F32};
    uint32_t* x = (uint32_t*)malloc(4u * N);
    uint32_t* z = (uint32_t*)malloc(4u * N);
    uint32_t* o = (uint32_t*)malloc(4u * N * NO);
    void* outs[NO];
    char err[600];
    int64_t shp[1] = {N};
    rlx_graph* g;
    int k, i;
    if (!x || !z || !o) { TH_CHECK(0, "out of memory"); free(x); free(z); free(o); return; }
    th_seed(0xD1B15u);
    for (i = 0; i < N; i++) {
        x[i] = rand_float_bits();
        z[i] = rand_float_bits();
        if (i % 4 == 0) {   /* quotients near the subnormal range and overflow */
            z[i] = (x[i] & 0x807FFFFFu) | ((uint32_t)((int)((x[i] >> 23) & 0xFF) + 100 + (int)(th_rng() % 60)) % 255u << 23);
        }
    }
    for (i = 0; i < 64; i++) {   /* quotients exactly halfway between two subnormals: ties to even */
        x[i] = (uint32_t)(2 * i + 1) | (i % 2 ? 0x80000000u : 0u);
        z[i] = f2u(i % 3 ? 2.0f : -4.0f);
    }
    for (k = 0; k < NO; k++) outs[k] = o + (size_t)k * N;
    g = rlx_graph_create(NULL);
    {
        rlx_tensor tx = rlx_input(g, "x", RLX_F32, 1, shp), tz = rlx_input(g, "z", RLX_F32, 1, shp);
        rlx_output(g, "div", rlx_binary(g, RLX_OP_DIV, tx, tz));
        rlx_output(g, "sqrt", rlx_unary(g, RLX_OP_SQRT, tx));
        rlx_output(g, "rsqrt", rlx_unary(g, RLX_OP_RSQRT, tx));
        rlx_output(g, "add", rlx_binary(g, RLX_OP_ADD, tx, tz));
        rlx_output(g, "mul", rlx_binary(g, RLX_OP_MUL, tx, tz));
        rlx_output(g, "divn", rlx_binary(g, RLX_OP_DIV, rlx_unary(g, RLX_OP_NEG, tz), tx));   /* fused with neg */
    }
    if (!vkn_run(g, RLX_F32, x, z, N, NO, names, odt, outs, err, sizeof err)) {
        TH_CHECK(0, "exact ops program: %s", err);
    } else {
        for (k = 0; k < NO; k++) {
            int bad = 0, first = -1, nflush = 0;
            for (i = 0; i < N; i++) {
                volatile float a = u2f(x[i]), b = u2f(z[i]), w;
                uint32_t got = o[(size_t)k * N + i], want;
                switch (k) {
                case 0: w = a / b; break;
                case 1: w = sqrtf(a); break;
                case 2: w = 1.0f / sqrtf(a); break;
                case 3: w = a + b; break;
                case 4: w = a * b; break;
                default: w = -b / a; break;
                }
                want = f2u(w);
                if (!isnan(w) && got != want && g_flush == 1) {
                    /* a flushing device: either input flushed or not (a fused neg flushes where the division,
                       done in integer arithmetic, does not), the result flushed */
                    int c, ok = 0;
                    for (c = 0; c < 4 && !ok; c++) {
                        volatile float fa = c & 1 ? vkn_daz(a) : a, fb = c & 2 ? vkn_daz(b) : b, fw;
                        switch (k) {
                        case 0: fw = fa / fb; break;
                        case 1: fw = sqrtf(fa); break;
                        case 2: fw = 1.0f / sqrtf(fa); break;
                        case 3: fw = fa + fb; break;
                        case 4: fw = fa * fb; break;
                        default: fw = -fb / fa; break;
                        }
                        ok = isnan(fw) ? isnan(u2f(got)) : (got == f2u(vkn_daz(fw)) || got == f2u(fw));
                    }
                    if (ok) { nflush++; continue; }
                }
                if (isnan(w) ? !isnan(u2f(got)) : got != want) {
                    bad++;
                    if (first < 0) first = i;
                }
            }
            printf("  n32 %-5s %d of %d results differ from C's float arithmetic (%d subnormal cases as flushed)\n",
                   names[k], bad, N, nflush);
            if (first < 0) first = 0;
            TH_CHECK(bad == 0, "%s: %d of %d differ; first x = %a z = %a: got %a", names[k], bad, N, (double)u2f(x[first]),
                     (double)u2f(z[first]), (double)u2f(o[(size_t)k * N + first]));
        }
    }
    rlx_graph_destroy(g);
    free(x);
    free(z);
    free(o);
}

/* ---- 4: integers and casts --------------------------------------------------------------------------------------- */
static int64_t ref_ipow(int64_t a, int64_t b) {
    uint64_t r = 1, base = (uint64_t)a;
    if (b < 0) return 0;
    while (b) { if (b & 1) r *= base; base *= base; b >>= 1; }
    return (int64_t)r;
}
/* the CPU's int64 rule: a op b in int64 (u32 zero-extended), result wrapped to 32 bits */
static int64_t ref_ibin(rlx_op op, int64_t a, int64_t b) {
    switch (op) {
    case RLX_OP_ADD: return a + b;
    case RLX_OP_SUB: return a - b;
    case RLX_OP_MUL: return (int64_t)((uint64_t)a * (uint64_t)b);
    case RLX_OP_DIV: return b == 0 ? 0 : (b == -1 ? -a : a / b);
    case RLX_OP_POW: return ref_ipow(a, b);
    case RLX_OP_MAX: return a > b ? a : b;
    case RLX_OP_MIN: return a < b ? a : b;
    case RLX_OP_EQ: return a == b;
    case RLX_OP_NE: return a != b;
    case RLX_OP_LT: return a < b;
    case RLX_OP_LE: return a <= b;
    case RLX_OP_GT: return a > b;
    default: return a >= b;
    }
}
static void test_int(rlx_dtype dt) {
    static const int32_t sv[] = {INT32_MIN, INT32_MIN + 1, -65536, -46341, -7, -3, -2, -1, 0, 1, 2, 3, 7, 31, 46341, 65536, INT32_MAX - 1, INT32_MAX};
    static const uint32_t uv[] = {0u, 1u, 2u, 3u, 7u, 31u, 65536u, 0x7FFFFFFFu, 0x80000000u, 0x80000001u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    static const rlx_op ops[] = {RLX_OP_ADD, RLX_OP_SUB, RLX_OP_MUL, RLX_OP_DIV, RLX_OP_POW, RLX_OP_MAX, RLX_OP_MIN,
                                 RLX_OP_EQ, RLX_OP_NE, RLX_OP_LT, RLX_OP_LE, RLX_OP_GT, RLX_OP_GE};
    enum { NOPS = 13, NV = 18 };
    const int nv = dt == RLX_U32 ? 12 : NV, n = nv * nv, nk = dt == RLX_U32 ? NOPS : NOPS + 3;   /* neg, abs, relu: signed */
    int32_t x[NV * NV], z[NV * NV];
    int32_t ob[NOPS + 3][NV * NV];
    void* outs[NOPS + 3];
    const char* names[NOPS + 3];
    rlx_dtype odt[NOPS + 3];
    char nm[NOPS + 3][16], err[600];
    int64_t shp[1];
    rlx_graph* g;
    int i, k, bad = 0;
    shp[0] = n;
    for (i = 0; i < n; i++) {
        x[i] = dt == RLX_U32 ? (int32_t)uv[i / nv] : sv[i / nv];
        z[i] = dt == RLX_U32 ? (int32_t)uv[i % nv] : sv[i % nv];
    }
    g = rlx_graph_create(NULL);
    {
        rlx_tensor tx = rlx_input(g, "x", dt, 1, shp), tz = rlx_input(g, "z", dt, 1, shp);
        for (k = 0; k < nk; k++) {
            snprintf(nm[k], sizeof nm[k], "y%d", k);
            names[k] = nm[k];
            outs[k] = ob[k];
            odt[k] = (k >= 7 && k < NOPS) ? RLX_BOOL : dt;
            if (k < NOPS) rlx_output(g, nm[k], rlx_binary(g, ops[k], tx, tz));
            else rlx_output(g, nm[k], rlx_unary(g, k == NOPS ? RLX_OP_NEG : k == NOPS + 1 ? RLX_OP_ABS : RLX_OP_RELU, tx));
        }
    }
    if (!vkn_run(g, dt, x, z, (size_t)n, nk, names, odt, outs, err, sizeof err)) {
        TH_CHECK(0, "%s program: %s", rlx_dtype_name(dt), err);
        rlx_graph_destroy(g);
        return;
    }
    for (k = 0; k < nk; k++)
        for (i = 0; i < n; i++) {
            int64_t a = dt == RLX_U32 ? (int64_t)(uint32_t)x[i] : x[i], b = dt == RLX_U32 ? (int64_t)(uint32_t)z[i] : z[i], want;
            int64_t got;
            if (k < NOPS) want = ref_ibin(ops[k], a, b);
            else if (k == NOPS) want = -a;
            else if (k == NOPS + 1) want = a < 0 ? -a : a;
            else want = a > 0 ? a : 0;
            if (odt[k] == RLX_BOOL) got = ((uint8_t*)ob[k])[i];
            else { got = ob[k][i]; want = (int32_t)(uint32_t)(uint64_t)want; }
            if (got != want) {
                if (bad < 5) printf("  %s op %d: %lld, %lld -> %lld, want %lld\n", rlx_dtype_name(dt), k, (long long)a, (long long)b,
                                    (long long)got, (long long)want);
                bad++;
            }
        }
    TH_CHECK(bad == 0, "%s arithmetic on edge values: %d of %d results wrong", rlx_dtype_name(dt), bad, n * nk);
    rlx_graph_destroy(g);
}

/* round a double to a float format with p significant bits, minimum normal exponent emin, overflow at ovf */
static double ref_round(double v, int p, int emin, double ovf) {
    int e;
    double s;
    if (isnan(v) || isinf(v) || v == 0.0) return v;
    e = ilogb(v);
    if (e < emin) e = emin;
    s = ldexp(1.0, e - (p - 1));
    v = nearbyint(v / s) * s;
    return fabs(v) >= ovf ? copysign(INFINITY, v) : v;
}
static double h2d(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return (h & 0x8000) ? -v : v;
}
static double bf2d(uint16_t h) { return (double)u2f((uint32_t)h << 16); }
static void test_cast(void) {
    enum { N = 4096, NT = 7 };
    static const rlx_dtype tos[NT] = {RLX_I32, RLX_U32, RLX_I8, RLX_U8, RLX_BOOL, RLX_F16, RLX_BF16};
    float x[N];
    int32_t xi[N];
    static unsigned char ob[NT + 3][N * 4];
    void* outs[NT + 3];
    const char* names[NT + 3];
    rlx_dtype odt[NT + 3];
    char nm[NT + 3][16], err[600];
    int64_t shp[1] = {N};
    rlx_graph* g;
    int i, k, bad = 0, ok;
    static const float sp[] = {0.0f, -0.0f, 0.5f, -0.5f, 0.99999994f, -1.5f, 127.5f, 128.0f, -128.5f, -129.0f, 255.9f,
                               256.0f, 65519.0f, 65520.0f, 2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f,
                               4294967040.0f, 4294967296.0f, 1e-40f, 3e38f, -3e38f};
    th_seed(0xCA57u);
    for (i = 0; i < N; i++) {
        if (i < (int)(sizeof sp / sizeof sp[0])) x[i] = sp[i];
        else if (i < 32) x[i] = u2f(i % 3 == 0 ? 0x7FC00000u : i % 3 == 1 ? 0x7F800000u : 0xFF800000u);
        else if (i < N / 2) x[i] = (float)th_uniform(-70000.0, 70000.0);
        else x[i] = u2f((uint32_t)th_rng() & 0xCFFFFFFFu);
        xi[i] = i < 16 ? (int32_t[]){INT32_MIN, INT32_MAX, 0, -1, 16777217, -16777217, 33554435, 2147483584, 2147483585, 65520, 65519, -65504, 2049, 2051, 16777216, 8388609}[i]
                       : (int32_t)(uint32_t)th_rng() >> (th_rng() % 31);
    }
    g = rlx_graph_create(NULL);
    {
        rlx_tensor tx = rlx_input(g, "x", RLX_F32, 1, shp), ti = rlx_input(g, "z", RLX_I32, 1, shp);
        for (k = 0; k < NT + 3; k++) {
            snprintf(nm[k], sizeof nm[k], "c%d", k);
            names[k] = nm[k];
            outs[k] = ob[k];
            odt[k] = k < NT ? tos[k] : (k == NT ? RLX_F16 : k == NT + 1 ? RLX_BF16 : RLX_F32);
            rlx_output(g, nm[k], rlx_cast(g, k < NT ? tx : ti, odt[k]));
        }
    }
    {   /* two inputs of different dtypes: set them one by one */
        rlx_compile_desc cd;
        rlx_program* p = NULL;
        rlx_result r;
        memset(&cd, 0, sizeof cd);
        cd.device = RLX_DEVICE_VULKAN;
        cd.flags = RLX_COMPILE_NO_FALLBACK;
        r = rlx_compile(g, &cd, &p);
        if (r == RLX_OK) r = rlx_set_input(p, "x", RLX_F32, x, sizeof x);
        if (r == RLX_OK) r = rlx_set_input(p, "z", RLX_I32, xi, sizeof xi);
        if (r == RLX_OK) r = rlx_run(p);
        for (k = 0; r == RLX_OK && k < NT + 3; k++) r = rlx_get_output(p, names[k], odt[k], outs[k], N * rlx_dtype_size(odt[k]));
        snprintf(err, sizeof err, "%s: %s", rlx_result_string(r), p ? rlx_program_error(p) : rlx_graph_error(g));
        ok = r == RLX_OK && p && rlx_program_device(p) == RLX_DEVICE_VULKAN;
        rlx_program_destroy(p);
    }
    TH_CHECK(ok, "cast program: %s", err);
    for (k = 0; ok && k < NT + 3; k++)
        for (i = 0; i < N; i++) {
            double v = k < NT ? (double)x[i] : (double)xi[i], t = trunc(v), want, got;
            rlx_dtype to = odt[k];
            switch (to) {
            case RLX_I32: want = isnan(v) ? 0 : t <= -2147483648.0 ? -2147483648.0 : t >= 2147483647.0 ? 2147483647.0 : t;
                got = ((int32_t*)ob[k])[i]; break;
            case RLX_U32: want = isnan(v) ? 0 : t <= 0 ? 0 : t >= 4294967295.0 ? 4294967295.0 : t; got = ((uint32_t*)ob[k])[i]; break;
            case RLX_I8: want = isnan(v) ? 0 : t <= -128 ? -128 : t >= 127 ? 127 : t; got = ((int8_t*)ob[k])[i]; break;
            case RLX_U8: want = isnan(v) ? 0 : t <= 0 ? 0 : t >= 255 ? 255 : t; got = ob[k][i]; break;
            case RLX_BOOL: want = v != 0.0 || isnan(v); got = ob[k][i]; break;
            case RLX_F16: want = ref_round(v, 11, -14, 65520.0); got = h2d(((uint16_t*)ob[k])[i]); break;
            case RLX_BF16: want = ref_round(v, 8, -126, 3.3961775292304e38); got = bf2d(((uint16_t*)ob[k])[i]); break;
            default: want = (double)(float)v; got = ((float*)ob[k])[i]; break;
            }
            if (!(got == want || (isnan(got) && isnan(want)))) {
                if (bad < 5) printf("  cast %s -> %s of %.9g: got %.9g, want %.9g\n", k < NT ? "f32" : "i32", rlx_dtype_name(to), v, got, want);
                bad++;
            }
        }
    if (ok) TH_CHECK(bad == 0, "casts: %d of %d results wrong", bad, N * (NT + 3));
    rlx_graph_destroy(g);
}

/* ---- 5: what the variant cannot do ---------------------------------------------------------------------------- */
static void test_unsupported(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t shp[1] = {4}, mshp[2] = {4, 4};
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    rlx_result r;
    double xv[4] = {1.5, -2.0, 3.25, 1e300}, yv[4] = {0};
    rlx_output(g, "y", rlx_binary(g, RLX_OP_ADD, rlx_input(g, "x", RLX_F64, 1, shp), rlx_input(g, "z", RLX_F64, 1, shp)));
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_VULKAN;
    cd.flags = RLX_COMPILE_NO_FALLBACK;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_ERROR_UNSUPPORTED && strstr(rlx_graph_error(g), "f64") && strstr(rlx_graph_error(g), "shaderFloat64"),
             "f64 add without shaderFloat64: %s: %s", rlx_result_string(r), rlx_graph_error(g));
    rlx_program_destroy(p);
    p = NULL;
    cd.flags = 0;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_OK && p && rlx_program_device(p) == RLX_DEVICE_CPU, "f64 add falls back to the CPU: %s",
             rlx_result_string(r));
    if (r == RLX_OK && p) {
        rlx_set_input(p, "x", RLX_F64, xv, sizeof xv);
        rlx_set_input(p, "z", RLX_F64, xv, sizeof xv);
        r = rlx_run(p);
        if (r == RLX_OK) r = rlx_get_output(p, "y", RLX_F64, yv, sizeof yv);
        TH_CHECK(r == RLX_OK && yv[0] == 3.0 && yv[3] == 2e300, "f64 add on the CPU fallback: %g %g", yv[0], yv[3]);
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    {
        rlx_tensor a = rlx_input(g, "a", RLX_F32, 2, mshp);
        rlx_output(g, "y", rlx_matmul(g, a, a));
    }
    p = NULL;
    cd.flags = RLX_COMPILE_NO_FALLBACK;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_ERROR_UNSUPPORTED && strstr(rlx_graph_error(g), "matmul") && strstr(rlx_graph_error(g), "shaderFloat64"),
             "f32 matmul (no 32-bit variant yet): %s: %s", rlx_result_string(r), rlx_graph_error(g));
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
}

/* ---- 7: the launch checks of the 32-bit variant (rlx__vkf_n32_args, called directly: this file is the
   implementation's translation unit) -------------------------------------------------------------------------- */
static void test_args32(void) {
#if defined(RLX__HAS_VULKAN)
    rlx__kargs A;
    rlx__kargs32 B;
    char why[200];
    int ok;
    memset(&A, 0, sizeof A);
    A.out = 0x123456789ABCDEF0ull;
    A.in[0] = 0xFFFFFFFF00000004ull;
    A.n = 1000;
    A.op = 24;
    A.dt_out = (int)RLX_F32;
    A.dt_in[0] = (int)RLX_F32;
    A.rank = 2;
    A.dims[0] = 10;
    A.dims[1] = 100;
    A.st[0][0] = 100;
    A.st[0][1] = 1;
    A.ia[3] = -7;
    A.fa[1] = 0.1;
    ok = rlx__vkf_n32_args("n32_elementwise__ew_binary", &A, &B, why, sizeof why);
    TH_CHECK(ok && B.out[0] == 0x9ABCDEF0u && B.out[1] == 0x12345678u && B.in[0][0] == 4u && B.in[0][1] == 0xFFFFFFFFu &&
             B.n == 1000 && B.op == 24 && B.rank == 2 && B.dims[1] == 100 && B.st[0][0] == 100 && B.ia[3] == -7 &&
             B.fa[1] == 0.1f && sizeof B == 392, "rlx__kargs32 of a small launch: %d %s", ok, ok ? "" : why);
    A.n = 2147483648ll;
    TH_CHECK(!rlx__vkf_n32_args("n32_elementwise__ew_binary", &A, &B, why, sizeof why) && strstr(why, "2147483648"), "2^31 elements: %s", why);
    A.n = 1000;
    A.dims[1] = 3000000000ll;
    TH_CHECK(!rlx__vkf_n32_args("n32_elementwise__ew_binary", &A, &B, why, sizeof why) && strstr(why, "dim 1"), "a dim of 3e9: %s", why);
    A.dims[1] = 100;
    A.dims[0] = 30000000;
    TH_CHECK(!rlx__vkf_n32_args("n32_elementwise__ew_binary", &A, &B, why, sizeof why) && strstr(why, "offset"), "offsets past 2^31: %s", why);
    A.dims[0] = 10;
    A.ia[5] = 1ll << 40;
    TH_CHECK(!rlx__vkf_n32_args("n32_elementwise__ew_binary", &A, &B, why, sizeof why) && strstr(why, "attribute 5"), "an attribute of 2^40: %s", why);
    A.ia[5] = 0;
    A.dt_in[0] = (int)RLX_I64;
    TH_CHECK(!rlx__vkf_n32_args("n32_elementwise__ew_binary", &A, &B, why, sizeof why) && strstr(why, "i64") && strstr(why, "shaderInt64"), "an i64 input: %s", why);
    A.dt_in[0] = (int)RLX_F32;
    A.ia[0] = 70000;   /* concat: outer 70000 x dim 2 x inner 20000 elements */
    A.ia[1] = 20000;
    A.ia[2] = 2;
    TH_CHECK(!rlx__vkf_n32_args("n32_elementwise__concat", &A, &B, why, sizeof why) && strstr(why, "2^31"),
             "a concat output of 2.8e9 elements: %s", why);
    TH_CHECK(rlx__vkf_n32_args("n32_elementwise__ew_binary", &A, &B, why, sizeof why), "the same attributes in ew_binary: %s", why);
    A.ia[0] = A.ia[1] = A.ia[2] = 0;
    A.in[0] = 0;
    A.dt_in[0] = (int)RLX_F64;   /* an absent input's dtype does not count */
    TH_CHECK(rlx__vkf_n32_args("n32_elementwise__ew_binary", &A, &B, why, sizeof why), "an absent input with dtype f64: %s", why);
#else
    th_skip("the Vulkan backend is not built in");
#endif
}

int main(int argc, char** argv) {
    static char arg0[] = "test_vk_narrow", arg1[] = "all", arg2[] = "vulkan";
    char* bargv[4] = {arg0, arg1, arg2, NULL};
    char why[512];
    int p0, f0, s0;
    test_args32();
    if (vk_status(why, sizeof why) != 1) {
        th_skip("vulkan: not available (%s)", why);
        return th_summary("vk_narrow");
    }
    vk_setenv("RLX_VULKAN_HIDE_FEATURES", "float64,int64");
    TH_CHECK(vk_status(why, sizeof why) == 1, "float64 and int64 hidden: Vulkan should stay available: %s", why);
    vkn_probe_flush();
    test_exact();
    test_math();
    test_int(RLX_I32);
    test_int(RLX_U32);
    test_cast();
    test_unsupported();
    if (argc > 1 && strcmp(argv[1], "quick") == 0) {
        th_skip("the op table (argument 'quick')");
    } else {
        p0 = th_passed, f0 = th_failed, s0 = th_skipped;
        backends_main(3, bargv);
        printf("op table with float64, int64 hidden: %d passed, %d failed, %d skipped\n", th_passed - p0, th_failed - f0,
               th_skipped - s0);
        TH_CHECK(th_passed - p0 > 0, "no case of the op table ran on Vulkan with float64 and int64 hidden");
    }
    return th_summary("vk_narrow");
}
