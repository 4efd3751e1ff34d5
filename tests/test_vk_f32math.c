/* test_vk_f32math.c - the single-precision element math of kernels/vulkan/math_f32.glsl (no doubles, no 64-bit
   integers: what a Vulkan device without shaderFloat64 / shaderInt64 runs), compiled as C99, against libm.

   math_f32.glsl is written in the common subset of GLSL and C: the shim below defines the few GLSL built-ins
   and portability macros it uses, so the same code runs here (float arithmetic is IEEE binary32 with
   correctly rounded + - * / and no contraction on both sides). Each function is evaluated on a dense sweep
   of float bit patterns over its whole domain (every 257th float), on random floats, and on hard ranges
   (around multiples of pi/2 and huge arguments for sin/cos/tan, around 1 and the overflow and underflow
   thresholds for exp/log/pow, large exponents for pow); the error is measured in ulps of the float result
   against libm's double function (itself within 1 ulp of double, 2^-29 of a float ulp), which is the
   independent reference. Special values (NaN, +-inf, +-0, subnormals, and C99 Annex F's table for pow) must
   give exactly glibc's float function's result (or NaN where it gives NaN).

   Bound (documented in math_f32.glsl): 1 ulp for every function.

   Then the same functions run on a Vulkan device (lavapipe in CI) through tests/vk_f32math.comp, compiled by
   glslc at build time into build/gen/vk_f32math_spv.h: the module must declare neither Float64 nor Int64, and
   every result must be within 1 ulp of libm's double function (and is compared bit for bit with the C build,
   reported as a count). Without glslc, volk or a Vulkan device that part is skipped with the reason. */
#define RLX_IMPLEMENTATION
#include "../rlx.h"
#include "harness.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- C shim for math_f32.glsl ---------------------------------------------------------------------------- */
typedef unsigned int vkf_uint;
#define uint vkf_uint
#define precise
#define RLX_MATH_C 1
#define RLX_MF_CVT(T, x) ((T)(x))
#define RLX_MF_STRUCT(name) \
    typedef struct name name; \
    struct name
#define RLX_MF_TABLE(T, name, n) static const T name[n] = {
#define RLX_MF_TABLE_END };
static vkf_uint floatBitsToUint(float x) {
    vkf_uint u;
    memcpy(&u, &x, sizeof u);
    return u;
}
static float uintBitsToFloat(vkf_uint u) {
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}
static float roundEven(float x) { return nearbyintf(x); } /* default rounding mode: to nearest even */

#if (defined(__GNUC__) || defined(__clang__)) && !defined(__cplusplus)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wmissing-prototypes"
#endif
#include "kernels/vulkan/math_f32.glsl"
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__cplusplus)
#  pragma GCC diagnostic pop
#endif

/* ---- measuring ------------------------------------------------------------------------------------------- */
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static uint32_t fbits(float x) { return floatBitsToUint(x); }
static float fmake(uint32_t u) { return uintBitsToFloat(u); }

/* |got - ref| in units of the float ulp at ref (ref exact enough: a double); NaN must match NaN. */
static double ulp_err(float got, double ref) {
    double a = fabs(ref), u;
    int e;
    if (isnan(ref) || isnan(got)) return (isnan(ref) && isnan(got)) ? 0.0 : 1e30;
    if (isinf(ref)) {
        if (isinf(got) && (got > 0) == (ref > 0)) return 0.0;
        /* the double result overflowed; the float must be inf or within an ulp of FLT_MAX */
        return 1e30;
    }
    if (a > (double)FLT_MAX) {   /* overflows as a float: rounding gives inf beyond FLT_MAX + ulp/2 */
        if (isinf(got) && (got > 0) == (ref > 0)) return 0.0;
        return fabs((double)got - ref) / ldexp(1.0, 104);
    }
    if (isinf(got)) return 1e30;
    frexp(a, &e);              /* a in [2^(e-1), 2^e) */
    if (e - 1 < -126) u = ldexp(1.0, -149);
    else u = ldexp(1.0, e - 1 - 23);
    return fabs((double)got - ref) / u;
}

typedef float (*f1)(float);
typedef double (*d1)(double);
typedef float (*lf1)(float);

typedef struct mstat {
    const char* name;
    double worst;
    float at;
    long n;
} mstat;

static void measure(mstat* s, f1 f, d1 ref, float x) {
    float got = f(x);
    double e = ulp_err(got, ref((double)x));
    s->n++;
    if (e > s->worst) {
        s->worst = e;
        s->at = x;
    }
}

static float rand_float(void) { /* random bit pattern, finite */
    for (;;) {
        uint32_t u = (uint32_t)(th_rng() >> 32);
        float x = fmake(u);
        if (isfinite(x)) return x;
    }
}

static void sweep(mstat* s, f1 f, d1 ref, float lo, float hi) {
    uint32_t u;
    long i;
    /* every 257th float of the positive and negative ranges within [lo, hi] (|x| <= max(|lo|,|hi|)) */
    for (u = 0; u < 0x7F800000u; u += 257) {
        float x = fmake(u);
        if (x >= lo && x <= hi) measure(s, f, ref, x);
        if (-x >= lo && -x <= hi) measure(s, f, ref, -x);
    }
    for (i = 0; i < 200000; i++) {
        float x = rand_float();
        if (x >= lo && x <= hi) measure(s, f, ref, x);
    }
}

/* ---- special values -------------------------------------------------------------------------------------- */
static int same_or_nan(float a, float b) { return (isnan(a) && isnan(b)) || fbits(a) == fbits(b); }

static void specials(const char* name, f1 f, lf1 libf) {
    static const float v[] = {0.0f, -0.0f, INFINITY, (float)TH_NEG_INF, NAN, 1.0f, -1.0f, FLT_MIN, -FLT_MIN, 1e-45f,
                              -1e-45f, FLT_MAX, -FLT_MAX, 0.5f, 88.7f, 89.0f, -103.0f, -104.5f, 1e-30f, 3.0e38f};
    int i, bad = 0;
    for (i = 0; i < COUNT(v); i++) {
        float got = f(v[i]), want = libf(v[i]);
        /* exact agreement for NaN, infinities and zeros; elsewhere within the function's bound (checked
           by the sweeps): here only class and sign must agree */
        int special = isnan(want) || isinf(want) || want == 0.0f || isnan(v[i]) || isinf(v[i]) || v[i] == 0.0f;
        if (special ? !same_or_nan(got, want) : (signbit(got) != signbit(want) || isnan(got))) {
            if (bad++ < 4) printf("  %s(%a) = %a, libm %a\n", name, (double)v[i], (double)got, (double)want);
        }
    }
    TH_CHECK(bad == 0, "%s: %d special values differ from libm", name, bad);
}

/* ---- pow ------------------------------------------------------------------------------------------------- */
static void pow_check(void) {
    static const float sv[] = {0.0f, -0.0f, INFINITY, (float)TH_NEG_INF, NAN, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 3.0f,
                               -3.0f, 0.25f, 1e30f, -1e30f, 1e-30f, 16777216.0f, 16777217.0f, -16777215.0f, 1.5f, 3.0e38f,
                               -3.0e38f, FLT_MAX, 1e-45f, -1e-45f};
    int i, j, bad = 0;
    mstat s = {"pow", 0, 0, 0};
    float wx = 0, wy = 0;
    for (i = 0; i < COUNT(sv); i++)
        for (j = 0; j < COUNT(sv); j++) {
            float x = sv[i], y = sv[j], got = rlx_pow_f32(x, y), want = powf(x, y);
            if (!same_or_nan(got, want) && !(ulp_err(got, pow((double)x, (double)y)) <= 1.0)) {
                if (bad++ < 6) printf("  pow(%a, %a) = %a, libm %a\n", (double)x, (double)y, (double)got, (double)want);
            }
        }
    TH_CHECK(bad == 0, "pow: %d special pairs differ from libm", bad);
    for (i = 0; i < 3000000; i++) {
        float x, y, got;
        double e;
        switch (i % 4) {
        case 0: x = (float)th_uniform(0.0, 100.0); y = (float)th_uniform(-20.0, 20.0); break;
        case 1: x = fmake(0x3F800000u + (uint32_t)(th_rng() % 8192u) - 4096u); y = (float)th_uniform(-3e6, 3e6); break;
        case 2: x = rand_float(); x = fabsf(x); y = (float)th_uniform(-4.0, 4.0); break;
        default: x = -(float)floor(th_uniform(1.0, 40.0)); y = (float)floor(th_uniform(-30.0, 30.0)); break;
        }
        got = rlx_pow_f32(x, y);
        e = ulp_err(got, pow((double)x, (double)y));
        s.n++;
        if (e > s.worst) {
            s.worst = e;
            wx = x;
            wy = y;
        }
    }
    printf("pow: %ld inputs, largest error %.3f ulp at (%a, %a)\n", s.n, s.worst, (double)wx, (double)wy);
    TH_CHECK(s.worst <= 1.0, "pow: %.3f ulp > 1 at (%a, %a)", s.worst, (double)wx, (double)wy);
}

/* ---- on a Vulkan device ---------------------------------------------------------------------------------- */
#if defined(RLX__HAS_VULKAN) && defined(__has_include)
#  if __has_include("vk_f32math_spv.h")
#    define VKF_HAVE_SPV 1
#  endif
#endif
#if defined(VKF_HAVE_SPV)
static const uint32_t vkf_spv[] = {
#include "vk_f32math_spv.h"
};
#define VKF_NFN 9
static float vkf_c(int f, float x, float y) {
    switch (f) {
    case 0: return rlx_exp_f32(x);
    case 1: return rlx_log_f32(x);
    case 2: return rlx_sin_f32(x);
    case 3: return rlx_cos_f32(x);
    case 4: return rlx_tan_f32(x);
    case 5: return rlx_atan_f32(x);
    case 6: return rlx_tanh_f32(x);
    case 7: return rlx_erf_f32(x);
    default: return rlx_pow_f32(x, y);
    }
}
static double vkf_ref(int f, double x, double y) {
    switch (f) {
    case 0: return exp(x);
    case 1: return log(x);
    case 2: return sin(x);
    case 3: return cos(x);
    case 4: return tan(x);
    case 5: return atan(x);
    case 6: return tanh(x);
    case 7: return erf(x);
    default: return pow(x, y);
    }
}
static void vk_check(void) {
    static const char* names[VKF_NFN] = {"exp", "log", "sin", "cos", "tan", "atan", "tanh", "erf", "pow"};
    enum { N = 1 << 16 };
    char name[128], why[256];
    int i, f, sm = 0, dev = -1, ndev;
    void* ctx = NULL;
    rlx__vkdev* d;
    rlx__vkfn fn;
    VkShaderModuleCreateInfo si;
    VkPipeline pipe;
    uint64_t bx = 0, by = 0, bo = 0, ba = 0;
    uint32_t args[8];
    float *x, *y, *o;
    rlx_result r;
    if (COUNT(vkf_spv) < 8) {
        th_skip("vulkan: glslc was not found when the test was built (no SPIR-V for tests/vk_f32math.comp)");
        return;
    }
    why[0] = 0;
    ndev = rlx__vk_count();
    for (i = 0; i < ndev && dev < 0; i++)
        if (rlx__vk_probe(i, 0, name, sizeof name, why, sizeof why, &sm)) dev = i;
    if (dev < 0) {
        th_skip("vulkan: no usable device (%s)", why[0] ? why : "none found");
        return;
    }
    {
        unsigned need = rlx__vkf_spv_needs(vkf_spv, (size_t)COUNT(vkf_spv));
        TH_CHECK((need & (RLX__VKF_F64 | RLX__VKF_I64)) == 0, "vk_f32math.comp needs shaderFloat64 or shaderInt64 (%u)", need);
    }
    x = (float*)malloc(sizeof(float) * N);
    y = (float*)malloc(sizeof(float) * N);
    o = (float*)malloc(sizeof(float) * N * VKF_NFN);
    if (!x || !y || !o) {
        TH_CHECK(0, "out of memory");
        free(x), free(y), free(o);
        return;
    }
    for (i = 0; i < N; i++) { /* a quarter special-ish, the rest random over the whole range and near 1 */
        static const float sv[] = {0.0f, -0.0f, INFINITY, (float)TH_NEG_INF, NAN, 1.0f, -1.0f, 0.5f, 2.0f, 88.7f, -87.5f, 1e-30f,
                                   3.0e38f, 1.5707964f, 1e10f, -3.0f};
        switch (i % 4) {
        case 0: x[i] = sv[(i / 4) % COUNT(sv)]; y[i] = sv[(i / 64) % COUNT(sv)]; break;
        case 1: x[i] = rand_float(); y[i] = (float)th_uniform(-8.0, 8.0); break;
        case 2: x[i] = (float)th_uniform(-12.0, 12.0); y[i] = (float)floor(th_uniform(-9.0, 9.0)); break;
        default: x[i] = fmake(0x3F800000u + (uint32_t)(th_rng() % 65536u) - 32768u); y[i] = (float)th_uniform(-1e5, 1e5); break;
        }
    }
    r = rlx__vk_set_device(dev, &ctx);
    if (r != RLX_OK) {
        TH_CHECK(0, "vulkan: opening %s: %s", name, rlx__vk_last_error());
        free(x), free(y), free(o);
        return;
    }
    d = (rlx__vkdev*)ctx;
    memset(&fn, 0, sizeof fn);
    memset(&si, 0, sizeof si);
    si.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    si.codeSize = sizeof vkf_spv;
    si.pCode = vkf_spv;
    r = rlx__vk_check(d->vk.vkCreateShaderModule(d->dev, &si, NULL, &fn.shader), "vkCreateShaderModule");
    if (r == RLX_OK) r = rlx__vk_pipeline(d, &fn, 64, 1, &pipe);
    if (r == RLX_OK) r = rlx__vk_mem_alloc(&bx, sizeof(float) * N);
    if (r == RLX_OK) r = rlx__vk_mem_alloc(&by, sizeof(float) * N);
    if (r == RLX_OK) r = rlx__vk_mem_alloc(&bo, sizeof(float) * N * VKF_NFN);
    if (r == RLX_OK) r = rlx__vk_mem_alloc(&ba, sizeof args);
    memset(args, 0, sizeof args);
    args[0] = (uint32_t)bx, args[1] = (uint32_t)(bx >> 32);
    args[2] = (uint32_t)by, args[3] = (uint32_t)(by >> 32);
    args[4] = (uint32_t)bo, args[5] = (uint32_t)(bo >> 32);
    args[6] = N;
    if (r == RLX_OK) r = rlx__vk_htod(bx, x, sizeof(float) * N);
    if (r == RLX_OK) r = rlx__vk_htod(by, y, sizeof(float) * N);
    if (r == RLX_OK) r = rlx__vk_htod(ba, args, sizeof args);
    RLX__VK_LOCK();
    if (r == RLX_OK) r = rlx__vk_xfer_begin(d);
    if (r == RLX_OK) {
        uint32_t pcv[2];
        pcv[0] = (uint32_t)ba;
        pcv[1] = (uint32_t)(ba >> 32);
        d->vk.vkCmdBindPipeline(d->xfer, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
        d->vk.vkCmdPushConstants(d->xfer, d->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 8, pcv);
        d->vk.vkCmdDispatch(d->xfer, N / 64, 1, 1);
        r = rlx__vk_xfer_end(d);
    }
    RLX__VK_UNLOCK();
    if (r == RLX_OK) r = rlx__vk_dtoh(o, bo, sizeof(float) * N * VKF_NFN);
    TH_CHECK(r == RLX_OK, "vulkan: running vk_f32math.comp on %s: %s", name, rlx__vk_last_error());
    if (r == RLX_OK)
        for (f = 0; f < VKF_NFN; f++) {
            double worst = 0;
            long differ = 0, n = 0;
            float at = 0;
            for (i = 0; i < N; i++) {
                float got = o[(size_t)f * N + (size_t)i], c = vkf_c(f, x[i], y[i]);
                double e = ulp_err(got, vkf_ref(f, (double)x[i], (double)y[i]));
                n++;
                if (!same_or_nan(got, c)) differ++;
                if (e > worst) {
                    worst = e;
                    at = x[i];
                }
            }
            printf("vulkan (%s) %s: %ld inputs, largest error %.3f ulp at %a, %ld differ from the C build\n", name,
                   names[f], n, worst, (double)at, differ);
            TH_CHECK(worst <= 1.0, "vulkan %s: %.3f ulp > 1 at %a", names[f], worst, (double)at);
        }
    if (bx) rlx__vk_mem_free(bx);
    if (by) rlx__vk_mem_free(by);
    if (bo) rlx__vk_mem_free(bo);
    if (ba) rlx__vk_mem_free(ba);
    if (fn.pipes) {
        for (i = 0; i < fn.npipes; i++) d->vk.vkDestroyPipeline(d->dev, fn.pipes[i].pipe, NULL);
        free(fn.pipes);
    }
    if (fn.shader) d->vk.vkDestroyShaderModule(d->dev, fn.shader, NULL);
    rlx__vk_release_device(dev, ctx);
    free(x), free(y), free(o);
}
#else
static void vk_check(void) {
    th_skip("vulkan: this build has no Vulkan backend or no SPIR-V of tests/vk_f32math.comp (built by "
            "`make build/tests/test_vk_f32math` into build/gen)");
}
#endif

/* ---- the table ------------------------------------------------------------------------------------------- */
typedef struct fn {
    const char* name;
    f1 f;
    d1 ref;
    lf1 libf;
    float lo, hi;
    double bound;
} fn;

static int is_trig(const char* name) { return strcmp(name, "sin") == 0 || strcmp(name, "cos") == 0 || strcmp(name, "tan") == 0; }

int main(void) {
    static const fn fns[] = {
        {"exp", rlx_exp_f32, exp, expf, -110.0f, 90.0f, 1.0},
        {"log", rlx_log_f32, log, logf, 0.0f, FLT_MAX, 1.0},
        {"sin", rlx_sin_f32, sin, sinf, -FLT_MAX, FLT_MAX, 1.0},
        {"cos", rlx_cos_f32, cos, cosf, -FLT_MAX, FLT_MAX, 1.0},
        {"tan", rlx_tan_f32, tan, tanf, -FLT_MAX, FLT_MAX, 1.0},
        {"atan", rlx_atan_f32, atan, atanf, -FLT_MAX, FLT_MAX, 1.0},
        {"tanh", rlx_tanh_f32, tanh, tanhf, -20.0f, 20.0f, 1.0},
        {"erf", rlx_erf_f32, erf, erff, -10.0f, 10.0f, 1.0},
    };
    int i, k;
    th_seed(0xF32F32ull);
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
    /* x87 without -mfpmath=sse: float expressions are evaluated wider */
    th_skip("float arithmetic is evaluated in wider precision (FLT_EVAL_METHOD %d): the error-free "
            "transformations of math_f32.glsl need binary32 arithmetic, as on every GPU", (int)FLT_EVAL_METHOD);
    vk_check();
    return th_summary("vk_f32math");
#endif
    for (i = 0; i < COUNT(fns); i++) {
        mstat s = {fns[i].name, 0, 0, 0};
        sweep(&s, fns[i].f, fns[i].ref, fns[i].lo, fns[i].hi);
        if (is_trig(fns[i].name)) {
            /* near multiples of pi/2 (the reduction's hard cases) and near pi/4 */
            for (k = -20000; k <= 20000; k++) {
                float c = (float)((double)k * 1.5707963267948966);
                uint32_t u = fbits(c);
                int d;
                for (d = -3; d <= 3; d++) measure(&s, fns[i].f, fns[i].ref, fmake(u + (uint32_t)d));
            }
            for (k = 0; k < 200000; k++) measure(&s, fns[i].f, fns[i].ref, fmake(0x3F490FDBu - 100000u + (uint32_t)k));
        }
        if (strcmp(fns[i].name, "exp") == 0)
            for (k = 0; k < 100000; k++) {
                measure(&s, fns[i].f, fns[i].ref, fmake(0x42B17218u - 50000u + (uint32_t)k)); /* near overflow */
                measure(&s, fns[i].f, fns[i].ref, fmake(0xC2CFF1B4u - 50000u + (uint32_t)k)); /* near underflow */
            }
        if (strcmp(fns[i].name, "log") == 0)
            for (k = 0; k < 400000; k++) measure(&s, fns[i].f, fns[i].ref, fmake(0x3F800000u - 200000u + (uint32_t)k));
        printf("%s: %ld inputs, largest error %.3f ulp at %a (bound %.0f)\n", fns[i].name, s.n, s.worst, (double)s.at,
               fns[i].bound);
#if !defined(__GLIBC__)
        /* other C libraries need not reduce large arguments of sin, cos, tan correctly (MinGW's use the x87's
           66-bit pi): no reference there */
        if (is_trig(fns[i].name)) {
            th_skip("%s: this C library's %s is not an accurate reference for large arguments (not glibc)",
                    fns[i].name, fns[i].name);
            continue;
        }
#endif
        TH_CHECK(s.worst <= fns[i].bound, "%s: %.3f ulp > %.0f at %a", fns[i].name, s.worst, fns[i].bound, (double)s.at);
        specials(fns[i].name, fns[i].f, fns[i].libf);
    }
    pow_check();
    vk_check();
    return th_summary("vk_f32math");
}
