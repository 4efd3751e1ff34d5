/* test_vk_math.c - the elementary functions of kernels/vulkan/math.glsl, compiled as C99, against libm.

   math.glsl is written in the common subset of GLSL and C: the shim below defines the few GLSL built-ins and
   portability macros it uses, so the exact same code runs here (with correctly rounded double arithmetic and
   no contraction, the GLSL results are bit-identical). Every function is evaluated on random inputs over
   wide exponent ranges and on hard ranges (near multiples of pi/2, near 0, near the overflow and underflow
   thresholds, pow near 1 with large exponents, large and negative bases); the error is measured in ulps
   against an extended-precision reference (the long double libm where long double is wider than double: x87's
   64-bit mantissa, or IEEE quad as on aarch64 Linux)
   and as a distance to glibc's double or float function. Special values (NaN, +-inf, +-0, subnormals,
   thresholds, and the full C99 special-case table of pow) must give exactly glibc's result.

   Bounds (documented in math.glsl): double functions within 1 ulp of the exact result and within 2 ulp of
   glibc; float functions within 1 ulp of the exact result and of glibc. The distance to glibc is only counted
   where glibc itself is within 1 ulp (glibc's tanh and tanhf are not always). */
#include "harness.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* =============================================================================================================
   C shim for math.glsl
   ============================================================================================================= */

typedef unsigned int vkm_uint;
#define uint vkm_uint
#define precise
#define RLX_MATH_C 1
#define RLX_X(bits) uint64BitsToDouble(bits)
#define RLX_CVT(T, x) ((T)(x))
#define RLX_STRUCT(name) \
    typedef struct name name; \
    struct name
#define RLX_TABLE(T, name, n) static const T name[n] = {
#define RLX_TABLE_END };

static int64_t doubleBitsToInt64(double x) {
    int64_t i;
    memcpy(&i, &x, sizeof i);
    return i;
}
static uint64_t doubleBitsToUint64(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
static double int64BitsToDouble(int64_t i) {
    double d;
    memcpy(&d, &i, sizeof d);
    return d;
}
static double uint64BitsToDouble(uint64_t u) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}
static double roundEven(double x) { return nearbyint(x); } /* default rounding mode: to nearest even */

#include "kernels/vulkan/math.glsl"

/* =============================================================================================================
   Measuring
   ============================================================================================================= */

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Extended-precision reference: long double where it has at least a 64-bit mantissa (x87, IEEE quad). */
#if LDBL_MANT_DIG >= 64
#define HAVE_XREF 1
#else
#define HAVE_XREF 0
#endif

static uint64_t bits_d(double x) { return doubleBitsToUint64(x); }
static uint32_t bits_f(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* identical results: same bits, or both NaN */
static int same_d(double a, double b) { return (isnan(a) && isnan(b)) || bits_d(a) == bits_d(b); }
static int same_f(float a, float b) { return (isnan(a) && isnan(b)) || bits_f(a) == bits_f(b); }

/* distance in representable numbers (ordered bit patterns); NaN vs non-NaN is "infinite" */
static double dist_bits(int64_t ia, int na, int64_t ib, int nb) {
    if (na != nb) return (double)ia + (double)ib; /* opposite signs: through zero */
    return (double)(ia > ib ? ia - ib : ib - ia);
}
static double dist_d(double a, double b) {
    if (isnan(a) || isnan(b)) return (isnan(a) && isnan(b)) ? 0.0 : 1e30;
    return dist_bits((int64_t)(bits_d(a) & 0x7FFFFFFFFFFFFFFFull), signbit(a) != 0,
                     (int64_t)(bits_d(b) & 0x7FFFFFFFFFFFFFFFull), signbit(b) != 0);
}
static double dist_f(float a, float b) {
    if (isnan(a) || isnan(b)) return (isnan(a) && isnan(b)) ? 0.0 : 1e30;
    return dist_bits((int64_t)(bits_f(a) & 0x7FFFFFFFu), signbit(a) != 0, (int64_t)(bits_f(b) & 0x7FFFFFFFu),
                     signbit(b) != 0);
}

/* |got - ref| in ulps of the format (mant bits p, min exponent emin) at ref; -1 when ref is beyond the
   format's range (the caller then relies on the distance to libm). */
static double ulp_err(double got, long double ref, int p, int emin, long double fmt_max) {
    int e;
    long double u;
    if (isnan(got) || isnan(ref)) return (isnan(got) && isnan(ref)) ? 0.0 : 1e30;
    if (fabsl(ref) > fmt_max) return -1.0;
    if (isinf(got)) return 1e30;
    if (ref == 0) return got == 0 ? 0.0 : 1e30;
    (void)frexpl(ref, &e); /* |ref| in [2^(e-1), 2^e) */
    if (e - 1 < emin) e = emin + 1;
    u = ldexpl(1.0L, e - p);
    return (double)(fabsl((long double)got - ref) / u);
}

/* running statistics of one function */
typedef struct {
    const char* name;
    long n, equal, libm_off; /* libm_off: inputs where libm's own error exceeds 1 ulp */
    double max_err, max_dist;
    double at_err, at_err_y, at_dist, at_dist_y;
} stat;

static void stat_init(stat* s, const char* name) {
    memset(s, 0, sizeof *s);
    s->name = name;
}

/* err: our error against the exact result; dist: distance to libm, counted only where libm's own error
   (lib_err) is at most 1 ulp */
static void stat_add(stat* s, double x, double y, double err, double dist, double lib_err, int equal) {
    s->n++;
    s->equal += equal;
    if (lib_err > 1.0) {
        s->libm_off++;
        dist = 0.0;
    }
    if (err > s->max_err) { s->max_err = err; s->at_err = x; s->at_err_y = y; }
    if (dist > s->max_dist) { s->max_dist = dist; s->at_dist = x; s->at_dist_y = y; }
}

static void stat_print(const stat* s, int two_args) {
    if (two_args)
        printf("  %-6s %8ld inputs: max err %.3f ulp (x=%.17g y=%.17g), max dist to libm %.0f ulp "
               "(x=%.17g y=%.17g), equal to libm %.4f%%, libm off by > 1 ulp: %ld\n",
               s->name, s->n, s->max_err, s->at_err, s->at_err_y, s->max_dist, s->at_dist, s->at_dist_y,
               100.0 * (double)s->equal / (double)(s->n ? s->n : 1), s->libm_off);
    else
        printf("  %-6s %8ld inputs: max err %.3f ulp (x=%.17g), max dist to libm %.0f ulp (x=%.17g), "
               "equal to libm %.4f%%, libm off by > 1 ulp: %ld\n",
               s->name, s->n, s->max_err, s->at_err, s->max_dist, s->at_dist,
               100.0 * (double)s->equal / (double)(s->n ? s->n : 1), s->libm_off);
}

static void stat_report(const stat* s, int two_args, double err_bound, double dist_bound) {
    stat_print(s, two_args);
    TH_CHECK(s->max_err <= err_bound, "%s: max error %.3f ulp exceeds %.2f ulp", s->name, s->max_err, err_bound);
    TH_CHECK(s->max_dist <= dist_bound, "%s: max distance to libm %.0f ulp exceeds %.0f ulp", s->name, s->max_dist,
             dist_bound);
}

/* =============================================================================================================
   Functions under test
   ============================================================================================================= */

typedef struct {
    const char* name;
    double (*mine)(double);
    double (*libm)(double);
    long double (*xref)(long double);
    float (*mine_f)(float);
    float (*libm_f)(float);
} fun1;

static const fun1 funs[] = {
    {"exp", rlx_exp_d, exp, expl, rlx_exp_f, expf},      {"log", rlx_log_d, log, logl, rlx_log_f, logf},
    {"sin", rlx_sin_d, sin, sinl, rlx_sin_f, sinf},      {"cos", rlx_cos_d, cos, cosl, rlx_cos_f, cosf},
    {"tan", rlx_tan_d, tan, tanl, rlx_tan_f, tanf},      {"atan", rlx_atan_d, atan, atanl, rlx_atan_f, atanf},
    {"tanh", rlx_tanh_d, tanh, tanhl, rlx_tanh_f, tanhf}, {"erf", rlx_erf_d, erf, erfl, rlx_erf_f, erff},
};
enum { F_EXP, F_LOG, F_SIN, F_COS, F_TAN, F_ATAN, F_TANH, F_ERF, NFUN };

static void check_d(stat* s, const fun1* f, double x) {
    double got = f->mine(x), lib = f->libm(x);
    double dist = dist_d(got, lib), err = dist, lib_err = 0.0;
    if (HAVE_XREF) {
        long double ref = f->xref((long double)x);
        err = ulp_err(got, ref, 53, -1022, (long double)DBL_MAX);
        lib_err = ulp_err(lib, ref, 53, -1022, (long double)DBL_MAX);
        if (err < 0) err = dist; /* reference beyond the double range: compare with libm */
    }
    stat_add(s, x, 0.0, err, dist, lib_err, same_d(got, lib));
}

static void check_f(stat* s, const fun1* f, float x) {
    float got = f->mine_f(x), lib = f->libm_f(x);
    double dist = dist_f(got, lib);
    /* the double libm function is the exact result for float purposes (its error is 2^-29 float ulps) */
    long double ref = (long double)f->libm((double)x);
    double err = ulp_err((double)got, ref, 24, -126, (long double)FLT_MAX);
    double lib_err = ulp_err((double)lib, ref, 24, -126, (long double)FLT_MAX);
    if (err < 0) err = dist;
    stat_add(s, (double)x, 0.0, err, dist, lib_err, same_f(got, lib));
}

/* powl of two doubles. The conversions go through variables: tcc 0.9.27 passes two converted-in-place arguments
   of a long double call wrongly (NaN). */
static long double powl_d(double x, double y) {
    long double lx = x, ly = y;
    return powl(lx, ly);
}

static void check_pow_d(stat* s, double x, double y) {
    double got = rlx_pow_d(x, y), lib = pow(x, y);
    double dist = dist_d(got, lib), err = dist, lib_err = 0.0;
    if (HAVE_XREF) {
        long double ref = powl_d(x, y);
        err = ulp_err(got, ref, 53, -1022, (long double)DBL_MAX);
        lib_err = ulp_err(lib, ref, 53, -1022, (long double)DBL_MAX);
        if (err < 0) err = dist;
    }
    stat_add(s, x, y, err, dist, lib_err, same_d(got, lib));
}

static void check_pow_f(stat* s, float x, float y) {
    float got = rlx_pow_f(x, y), lib = powf(x, y);
    double dist = dist_f(got, lib);
    long double ref = (long double)pow((double)x, (double)y);
    double err = ulp_err((double)got, ref, 24, -126, (long double)FLT_MAX);
    double lib_err = ulp_err((double)lib, ref, 24, -126, (long double)FLT_MAX);
    if (err < 0) err = dist;
    stat_add(s, (double)x, (double)y, err, dist, lib_err, same_f(got, lib));
}

/* =============================================================================================================
   Inputs
   ============================================================================================================= */

/* uniform random integer in [lo, hi] */
static int rand_int(int lo, int hi) { return lo + (int)(th_rng() % (uint64_t)(hi - lo + 1)); }

/* random sign, mantissa uniform in [1, 2), exponent uniform in [elo, ehi] */
static double rand_exp(int elo, int ehi, int sign) {
    double m = th_uniform(1.0, 2.0);
    double x = ldexp(m, rand_int(elo, ehi));
    if (sign && (th_rng() & 1)) x = -x;
    return x;
}

/* any finite double with random bits (all exponents, subnormals included) */
static double rand_bits(int sign) {
    for (;;) {
        uint64_t u = th_rng();
        double x;
        if (!sign) u &= 0x7FFFFFFFFFFFFFFFull;
        x = uint64BitsToDouble(u);
        if (isfinite(x)) return x;
    }
}

/* x moved by k representable numbers (finite x, no overflow) */
static double nudge(double x, int k) {
    int64_t o = (int64_t)(bits_d(x) & 0x7FFFFFFFFFFFFFFFull);
    if (signbit(x)) o = -o;
    o += k;
    return o < 0 ? -uint64BitsToDouble((uint64_t)-o) : uint64BitsToDouble((uint64_t)o);
}

/* the double inputs of function f (i-th of n) */
static double input_d(int f, long i, long n) {
    int part = (int)(i * 8 / n); /* eight kinds of inputs, one eighth of the budget each */
    switch (f) {
    case F_EXP:
        switch (part) {
        case 0: case 1: return th_uniform(-745.2, 709.8);
        case 2: return th_uniform(-2.0, 2.0);
        case 3: return rand_exp(-60, 9, 1);
        case 4: return nudge(709.782712893384, rand_int(-2000, 50));  /* overflow threshold */
        case 5: return nudge(-745.13321910194122, rand_int(-50, 50)); /* below the smallest subnormal */
        case 6: return th_uniform(-745.2, -708.3);                    /* subnormal results */
        default: return nudge(0.0, rand_int(-3, 3)) + (double)rand_int(-1075, 1025) * 0.69314718055994531;
        }
    case F_LOG:
        switch (part) {
        case 0: case 1: case 2: return rand_bits(0);
        case 3: return 1.0 + th_uniform(-1.0, 1.0) * ldexp(1.0, rand_int(-53, -1)); /* near 1 */
        case 4: return th_uniform(0.0, 4.0);
        case 5: return rand_exp(-1074, -1022, 0); /* subnormals */
        case 6: return nudge(1.0, rand_int(-1000, 1000));
        default: return rand_exp(-1022, 1023, 0);
        }
    case F_SIN: case F_COS: case F_TAN:
        switch (part) {
        case 0: return th_uniform(-10.0, 10.0);
        case 1: return rand_exp(-30, 20, 1);
        case 2: return rand_exp(20, 1023, 1);
        case 3: return rand_bits(1);
        case 4: /* near multiples of pi/2 below 2^20 */
            return nudge((double)rand_int(1, 667544) * 1.5707963267948966, rand_int(-20, 20));
        case 5: /* near multiples of pi/2 and pi/4 in the Payne-Hanek range */
            return nudge(ldexp((double)rand_int(1, 1 << 30), rand_int(0, 40)) * 1.5707963267948966,
                         rand_int(-3, 3));
        case 6: return nudge(0.78539816339744831 * (double)rand_int(1, 8), rand_int(-300, 300)); /* k pi/4 */
        default: return th_uniform(-1e5, 1e5);
        }
    case F_ATAN:
        switch (part) {
        case 0: return th_uniform(-3.0, 3.0);
        case 1: return rand_exp(-40, 70, 1);
        case 2: { static const double b[] = {0.4375, 0.6875, 1.1875, 2.4375}; /* reduction breakpoints */
            return nudge(b[rand_int(0, 3)], rand_int(-100, 100)) * ((th_rng() & 1) ? 1 : -1); }
        case 3: return rand_bits(1);
        default: return th_uniform(-30.0, 30.0);
        }
    case F_TANH:
        switch (part) {
        case 0: case 1: return th_uniform(-23.0, 23.0);
        case 2: return rand_exp(-40, 5, 1);
        case 3: return th_uniform(-1.0, 1.0);
        case 4: return th_uniform(0.15, 0.2); /* where expm1(2x) switches to its reduction */
        default: return rand_exp(-30, 1, 1);
        }
    default: /* erf */
        switch (part) {
        case 0: case 1: return th_uniform(-6.5, 6.5);
        case 2: return rand_exp(-40, 3, 1);
        case 3: { static const double b[] = {0.84375, 1.25, 2.5, 6.0, 5.9215871957945};
            return nudge(b[rand_int(0, 4)], rand_int(-200, 200)) * ((th_rng() & 1) ? 1 : -1); }
        case 4: return th_uniform(0.8, 1.3);
        case 5: return rand_exp(-1074, -1000, 1);
        default: return th_uniform(-3.0, 3.0);
        }
    }
}

/* any finite float with random bits */
static float rand_bits_f(int sign) {
    for (;;) {
        uint32_t u = (uint32_t)(th_rng() >> 32);
        float x;
        if (!sign) u &= 0x7FFFFFFFu;
        memcpy(&x, &u, sizeof x);
        if (isfinite(x)) return x;
    }
}

static float nudge_f(float x, int k) {
    int64_t o = (int64_t)(bits_f(x) & 0x7FFFFFFFu);
    uint32_t u;
    float y;
    if (signbit(x)) o = -o;
    o += k;
    u = (uint32_t)(o < 0 ? -o : o);
    memcpy(&y, &u, sizeof y);
    return o < 0 ? -y : y;
}

/* the float inputs of function f (i-th of n) */
static float input_f(int f, long i, long n) {
    int part = (int)(i * 4 / n);
    if (part == 0) return rand_bits_f(f != F_LOG);
    switch (f) {
    case F_EXP:
        if (part == 1) return (float)th_uniform(-104.0, 89.0);
        if (part == 2) return nudge_f(88.7228393f, rand_int(-1000, 10)); /* overflow threshold */
        return (float)th_uniform(-104.0, -87.0);                          /* subnormal results */
    case F_LOG:
        if (part == 1) return (float)th_uniform(0.0, 4.0);
        if (part == 2) return nudge_f(1.0f, rand_int(-3000, 3000));
        return (float)rand_exp(-149, -126, 0);
    case F_SIN: case F_COS: case F_TAN:
        if (part == 1) return (float)th_uniform(-10.0, 10.0);
        if (part == 2) return (float)rand_exp(-20, 127, 1);
        return nudge_f((float)((double)rand_int(1, 100000) * 1.5707963267948966), rand_int(-3, 3));
    case F_ATAN:
        if (part == 1) return (float)th_uniform(-3.0, 3.0);
        return (float)rand_exp(-30, 40, 1);
    case F_TANH:
        if (part == 1) return (float)th_uniform(-10.0, 10.0);
        return (float)rand_exp(-20, 4, 1);
    default:
        if (part == 1) return (float)th_uniform(-4.5, 4.5);
        if (part == 2) return (float)rand_exp(-20, 2, 1);
        return (float)rand_exp(-149, -126, 1);
    }
}

static void input_pow_f(long i, long n, float* px, float* py) {
    int part = (int)(i * 4 / n);
    float x, y;
    switch (part) {
    case 0: /* positive x, x^y in range */
        x = rand_bits_f(0);
        if (x == 0.0f || x == 1.0f) x = 3.0f;
        y = (float)(th_uniform(-103.0, 88.7) / log((double)x));
        break;
    case 1: /* x near 1, large y */
        x = nudge_f(1.0f, rand_int(-100000, 100000));
        if (x == 1.0f) x = 0.5f;
        y = (float)(th_uniform(-85.0, 85.0) / log((double)x));
        break;
    case 2: /* negative base, integer exponent; small integer powers */
        x = (float)(rand_int(-1000, 1000) * ldexp(1.0, rand_int(-8, 8)));
        y = (float)rand_int(-12, 12);
        break;
    default:
        x = rand_bits_f(1);
        y = (th_rng() & 1) ? rand_bits_f(1) : (float)rand_exp(-10, 10, 1);
        break;
    }
    *px = x;
    *py = y;
}

/* pow inputs: the i-th of n */
static void input_pow(long i, long n, double* px, double* py) {
    int part = (int)(i * 8 / n);
    double x, y, t;
    switch (part) {
    case 0: /* positive x over all exponents, y such that x^y is in range */
        x = rand_bits(0);
        if (x == 0.0 || x == 1.0) x = 3.0;
        t = th_uniform(-745.0, 709.7);
        y = t / log(x);
        break;
    case 1: /* x near 1, large y */
        x = 1.0 + th_uniform(-1.0, 1.0) * ldexp(1.0, rand_int(-52, -5));
        y = th_uniform(-1.0, 1.0) * ldexp(1.0, rand_int(0, 60));
        if (fabs(y * log(x)) > 700) y = th_uniform(-700, 700) / log(x);
        break;
    case 2: /* negative base, integer exponent */
        x = -rand_exp(-20, 20, 0);
        y = (double)rand_int(-60, 60);
        break;
    case 3: /* results near the overflow and underflow thresholds */
        x = rand_exp(-30, 30, 0);
        if (x == 1.0) x = 2.0;
        t = (th_rng() & 1) ? th_uniform(700.0, 709.9) : th_uniform(-745.3, -700.0);
        y = t / log(x);
        break;
    case 4: /* small integer powers, often exact */
        x = (double)rand_int(-1000, 1000) * ldexp(1.0, rand_int(-10, 10));
        y = (double)rand_int(-8, 8);
        break;
    case 5: /* moderate x and y */
        x = th_uniform(0.0, 10.0);
        y = th_uniform(-30.0, 30.0);
        break;
    case 6: /* large bases */
        x = rand_exp(100, 1023, 0);
        y = th_uniform(-1.0, 1.0) * 700.0 / log(x);
        break;
    default: /* random bits for both, including huge |y| (overflow/underflow or 1) */
        x = rand_bits(1);
        y = (th_rng() & 1) ? rand_bits(1) : rand_exp(-10, 12, 1);
        break;
    }
    *px = x;
    *py = y;
}

/* =============================================================================================================
   Special values
   ============================================================================================================= */

static const double specials_d[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 2.5, -2.5, 0.25, 10.0, -10.0, 1e-310, -1e-310,
    4.9406564584124654e-324, -4.9406564584124654e-324, 2.2250738585072014e-308, -2.2250738585072014e-308,
    1.7976931348623157e308, -1.7976931348623157e308, 709.782712893384, 709.7827128933841, -745.13321910194122,
    -745.1332191019412, -745.2, 800.0, -800.0, 20.0, -20.0, 25.0, -25.0, 6.0, -6.0, 5.95, -5.95,
    9007199254740991.0, -9007199254740991.0, 9007199254740992.0, -9007199254740992.0, 1e300, -1e300,
    5.3193726483265414e+255, /* 6381956970095103 * 2^797: the double closest to a multiple of pi/2 */
    1.5707963267948966, -1.5707963267948966, 3.1415926535897931, 1e22, 1e-300, 0.1, 7.0, -7.0,
    INFINITY, TH_NEG_INF, NAN, TH_NEG_NAN,
};

/* Exact equality with libm is required when the input or libm's result is special (NaN, inf, zero, +-1);
   otherwise an error of at most 1 ulp against `ref` (the extended reference, or libm without one; for floats
   the double libm function). Returns the number of mismatches (and prints them). */
static int special_mismatch(const char* name, double x, double y, double got, double lib, long double ref,
                            int is_float) {
    int special = !isfinite(x) || x == 0 || !isfinite(y) || y == 0 || !isfinite(lib) || lib == 0 ||
                  fabs(lib) == 1.0;
    double err = is_float ? ulp_err(got, ref, 24, -126, (long double)FLT_MAX)
                          : ulp_err(got, ref, 53, -1022, (long double)DBL_MAX);
    if (err < 0) err = is_float ? dist_f((float)got, (float)lib) : dist_d(got, lib);
    if (special ? same_d(got, lib) : err <= 1.0) return 0;
    printf("  %s(%.17g, %.17g) = %.17g, libm %.17g\n", name, x, y, got, lib);
    return 1;
}

/* Whether this C library's function is a valid reference. glibc reduces any argument of sin, cos and tan
   correctly; other C libraries need not (MinGW's use the x87 fsin/fcos/fptan, whose reduction with a 66-bit pi
   is wrong for large arguments: sin(1e22) comes out 0.28 instead of -0.85). There these three are measured and
   printed, and their checks are reported skipped. */
static int libm_is_reference(const char* name) {
#if defined(__GLIBC__)
    (void)name;
    return 1;
#else
    return strcmp(name, "sin") != 0 && strcmp(name, "cos") != 0 && strcmp(name, "tan") != 0;
#endif
}

static void skip_unreferenced(const char* name, const char* what) {
    th_skip("%s %s: this C library's %s is not an accurate reference for large arguments (not glibc)", name, what,
            name);
}

static void test_specials(void) {
    int f, i, j, bad;
    for (f = 0; f < NFUN; f++) {
        bad = 0;
        for (i = 0; i < COUNT(specials_d); i++) {
            double x = specials_d[i], xf = (double)(float)x;
            long double ref = HAVE_XREF ? funs[f].xref((long double)x) : (long double)funs[f].libm(x);
            bad += special_mismatch(funs[f].name, x, 1.0, funs[f].mine(x), funs[f].libm(x), ref, 0);
            bad += special_mismatch(funs[f].name, xf, 1.0, (double)funs[f].mine_f((float)x),
                                    (double)funs[f].libm_f((float)x), (long double)funs[f].libm(xf), 1);
        }
        if (libm_is_reference(funs[f].name))
            TH_CHECK(bad == 0, "%s: %d special values differ from libm", funs[f].name, bad);
        else
            skip_unreferenced(funs[f].name, "special values");
    }
    bad = 0;
    for (i = 0; i < COUNT(specials_d); i++)
        for (j = 0; j < COUNT(specials_d); j++) {
            double x = specials_d[i], y = specials_d[j];
            float xf = (float)x, yf = (float)y;
            long double ref = HAVE_XREF ? powl_d(x, y) : (long double)pow(x, y);
            bad += special_mismatch("pow", x, y, rlx_pow_d(x, y), pow(x, y), ref, 0);
            bad += special_mismatch("powf", (double)xf, (double)yf, (double)rlx_pow_f(xf, yf), (double)powf(xf, yf),
                                    (long double)pow((double)xf, (double)yf), 1);
        }
    TH_CHECK(bad == 0, "pow: %d special value pairs differ from libm", bad);
}

/* =============================================================================================================
   Main
   ============================================================================================================= */

#define N_DOUBLE 600000L /* inputs per double function */
#define N_FLOAT 400000L  /* inputs per float function */
#define N_POW 800000L    /* inputs of double pow */

#define ERR_D 1.0  /* ulp, against the exact result */
#define DIST_D 2.0 /* ulp, against glibc */
#define ERR_F 1.0
#define DIST_F 1.0

int main(void) {
    int f;
    long i;
    stat s;
    printf("vk_math: reference %s\n", HAVE_XREF ? "long double libm" : "double libm (no extended reference)");
    test_specials();
    th_seed(12345);
    printf("double:\n");
    for (f = 0; f < NFUN; f++) {
        stat_init(&s, funs[f].name);
        for (i = 0; i < N_DOUBLE; i++) check_d(&s, &funs[f], input_d(f, i, N_DOUBLE));
        if (libm_is_reference(funs[f].name)) stat_report(&s, 0, HAVE_XREF ? ERR_D : DIST_D, DIST_D);
        else { stat_print(&s, 0); skip_unreferenced(funs[f].name, "double"); }
    }
    stat_init(&s, "pow");
    for (i = 0; i < N_POW; i++) {
        double x, y;
        input_pow(i, N_POW, &x, &y);
        check_pow_d(&s, x, y);
    }
    stat_report(&s, 1, HAVE_XREF ? ERR_D : DIST_D, DIST_D);
    printf("float:\n");
    for (f = 0; f < NFUN; f++) {
        stat_init(&s, funs[f].name);
        for (i = 0; i < N_FLOAT; i++) check_f(&s, &funs[f], input_f(f, i, N_FLOAT));
        if (libm_is_reference(funs[f].name)) stat_report(&s, 0, ERR_F, DIST_F);
        else { stat_print(&s, 0); skip_unreferenced(funs[f].name, "float"); }
    }
    stat_init(&s, "pow");
    for (i = 0; i < N_FLOAT; i++) {
        float x, y;
        input_pow_f(i, N_FLOAT, &x, &y);
        check_pow_f(&s, x, y);
    }
    stat_report(&s, 1, ERR_F, DIST_F);
    return th_summary("vk_math");
}
