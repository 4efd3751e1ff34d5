/* test_ops.c - every op of rlx.h checked against a double-precision reference computed in this file.

   A case builds a small graph (inputs -> op -> output), compiles it, sets the inputs, runs it, reads the output
   back in its own dtype and compares it element by element with the reference. Input data is generated in
   double precision and rounded to the input dtype first (this file does its own f16/bf16 rounding), so the
   reference sees exactly the values rlx sees. Every failing case prints at most a few mismatching elements and
   counts as one failure. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../rlx.h"
#include "harness.h"

#include <float.h>
#include <stdlib.h>

#define MAXR RLX_MAX_RANK
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define MAX_SHOWN 3 /* mismatching elements printed per case */

/* =============================================================================================================
   Shapes and indexing
   ============================================================================================================= */

typedef struct shp { int rank; int64_t d[MAXR]; } shp;

/* S(3, 3,1,5) is the shape [3,1,5]; S(0) is a scalar. Dims are passed as int. A macro over an int array, not a
   variadic function: tcc 0.9.27 on x86-64 reads the variadic arguments of a function that returns a struct in
   memory one register early. */
#define S(...) s_from((const int[]){__VA_ARGS__})
static shp s_from(const int* rank_dims) {
    shp s;
    int i;
    memset(&s, 0, sizeof s);
    s.rank = rank_dims[0];
    for (i = 0; i < s.rank; i++) s.d[i] = rank_dims[1 + i];
    return s;
}

/* The same shapes as brace initializers, for arrays of shapes (tcc takes no struct-valued expression there):
   SI(3, 3,1,5) is the shape [3,1,5]; SI0 is a scalar. */
#define SI(rank, ...) {rank, {__VA_ARGS__}}
#define SI0 {0, {0}}

static int64_t numel(shp s) {
    int64_t n = 1;
    int i;
    for (i = 0; i < s.rank; i++) n *= s.d[i];
    return n;
}

static int same_shape(shp a, int rank, const int64_t* d) {
    int i;
    if (a.rank != rank) return 0;
    for (i = 0; i < rank; i++) if (a.d[i] != d[i]) return 0;
    return 1;
}

/* "[3,1,5]" in one of 16 rotating buffers, so several can appear in one printf. */
static const char* fmt_dims(int rank, const int64_t* d) {
    static char buf[16][200];
    static int k;
    char* b = buf[k++ & 15];
    size_t len = 0;
    int i;
    b[len++] = '[';
    for (i = 0; i < rank && i < MAXR && len < 170; i++)
        len += (size_t)snprintf(b + len, 200 - len, i ? ",%lld" : "%lld", (long long)d[i]);
    b[len++] = ']';
    b[len] = 0;
    return b;
}
static const char* SH(shp s) { return fmt_dims(s.rank, s.d); }

static void unravel(int64_t f, shp s, int64_t* idx) {
    int i;
    for (i = s.rank - 1; i >= 0; i--) { idx[i] = f % s.d[i]; f /= s.d[i]; }
}
static int64_t ravel(const int64_t* idx, shp s) {
    int64_t f = 0;
    int i;
    for (i = 0; i < s.rank; i++) f = f * s.d[i] + idx[i];
    return f;
}
static const char* fmt_index(int64_t f, shp s) {
    int64_t idx[MAXR];
    unravel(f, s, idx);
    return fmt_dims(s.rank, idx);
}

/* numpy broadcast of two (compatible) shapes */
static shp bshape(shp a, shp b) {
    shp o;
    int i;
    memset(&o, 0, sizeof o);
    o.rank = a.rank > b.rank ? a.rank : b.rank;
    for (i = 0; i < o.rank; i++) {
        int ia = i - (o.rank - a.rank), ib = i - (o.rank - b.rank);
        int64_t da = ia >= 0 ? a.d[ia] : 1, db = ib >= 0 ? b.d[ib] : 1;
        o.d[i] = da == 1 ? db : da;
    }
    return o;
}

/* flat index into x of element f of out, where x is broadcast to out */
static int64_t bidx(int64_t f, shp out, shp x) {
    int64_t idx[MAXR], xi[MAXR];
    int i, off = out.rank - x.rank;
    unravel(f, out, idx);
    for (i = 0; i < x.rank; i++) xi[i] = x.d[i] == 1 ? 0 : idx[i + off];
    return ravel(xi, x);
}

/* =============================================================================================================
   Scratch memory (freed in bulk after each group of cases)
   ============================================================================================================= */

static void** scratch;
static int nscratch, capscratch;

static void* T_alloc(size_t bytes) {
    void* p = calloc(1, bytes ? bytes : 1);
    if (nscratch == capscratch) {
        capscratch = capscratch ? 2 * capscratch : 1024;
        scratch = (void**)realloc(scratch, (size_t)capscratch * sizeof *scratch);
    }
    scratch[nscratch++] = p;
    return p;
}
static void T_free_all(void) {
    while (nscratch) free(scratch[--nscratch]);
}
static double* D(int64_t n) { return (double*)T_alloc((size_t)n * sizeof(double)); }
static int64_t* I64(int64_t n) { return (int64_t*)T_alloc((size_t)n * sizeof(int64_t)); }

/* =============================================================================================================
   Dtypes: sizes, ranges, encoding and decoding with the documented rlx_cast rules
   ============================================================================================================= */

static const rlx_dtype ALL_DTYPES[] = {RLX_F32, RLX_F16, RLX_BF16, RLX_F64, RLX_I8, RLX_I16,
                                       RLX_I32, RLX_I64, RLX_U8, RLX_U32, RLX_BOOL};

static const char* dn(rlx_dtype t) {
    static const char* names[] = {"invalid", "f32", "f16", "bf16", "f64", "i8",
                                  "i16",     "i32", "i64", "u8",   "u32", "bool"};
    return (unsigned)t < (unsigned)COUNT(names) ? names[t] : "?";
}
static size_t dsz(rlx_dtype t) {
    switch (t) {
    case RLX_F32: case RLX_I32: case RLX_U32: return 4;
    case RLX_F16: case RLX_BF16: case RLX_I16: return 2;
    case RLX_F64: case RLX_I64: return 8;
    case RLX_I8: case RLX_U8: case RLX_BOOL: return 1;
    default: return 0;
    }
}
static int is_flt(rlx_dtype t) { return t == RLX_F32 || t == RLX_F16 || t == RLX_BF16 || t == RLX_F64; }
static int is_uns(rlx_dtype t) { return t == RLX_U8 || t == RLX_U32; }
static int is_int(rlx_dtype t) { return !is_flt(t) && t != RLX_BOOL; }

static void irange(rlx_dtype t, int64_t* lo, int64_t* hi) {
    switch (t) {
    case RLX_I8: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case RLX_I16: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case RLX_I32: *lo = INT32_MIN; *hi = INT32_MAX; break;
    case RLX_U8: *lo = 0; *hi = UINT8_MAX; break;
    case RLX_U32: *lo = 0; *hi = (int64_t)UINT32_MAX; break;
    case RLX_BOOL: *lo = 0; *hi = 1; break;
    default: *lo = INT64_MIN; *hi = INT64_MAX; break;
    }
}

/* default comparison tolerance of float results of a dtype (used as both atol and rtol) */
static double tol_of(rlx_dtype t) {
    switch (t) {
    case RLX_F32: return 1e-5;
    case RLX_F64: return 1e-12;
    case RLX_F16: return 1e-3;
    case RLX_BF16: return 1e-2;
    default: return 0;
    }
}

/* half-to-even rounding to an integer, independent of the FP rounding mode */
static double rne(double x) {
    double f = floor(x), d = x - f;
    if (d > 0.5 || (d == 0.5 && fmod(f, 2.0) != 0)) f += 1.0;
    return f;
}

/* Bits of x rounded to nearest even in a binary float format with mb mantissa and eb exponent bits
   (f16: 10,5; bf16: 7,8; f32: 23,8). Overflow gives inf, tiny values become subnormals, NaN stays NaN. */
static uint32_t fp_bits(double x, int mb, int eb) {
    const int bias = (1 << (eb - 1)) - 1, emin = 1 - bias;
    const uint32_t sign = signbit(x) ? 1u << (mb + eb) : 0u, inf = ((1u << eb) - 1u) << mb;
    double a = fabs(x), q;
    int e;
    if (a != a) return inf | (1u << (mb - 1));
    if (a > DBL_MAX) return sign | inf;
    if (a < ldexp(1.0, emin)) { /* subnormal or zero: count units of 2^(emin-mb); 2^mb is the smallest normal */
        q = rne(ldexp(a, mb - emin));
        return sign | (uint32_t)q;
    }
    (void)frexp(a, &e);
    e -= 1; /* a in [2^e, 2^(e+1)) */
    q = rne(ldexp(a, mb - e));
    if (q == ldexp(1.0, mb + 1)) { q = ldexp(1.0, mb); e++; }
    if (e > bias) return sign | inf;
    return sign | ((uint32_t)(e + bias) << mb) | ((uint32_t)q - (1u << mb));
}
static double fp_value(uint32_t b, int mb, int eb) {
    const int bias = (1 << (eb - 1)) - 1;
    const int s = (int)((b >> (mb + eb)) & 1u), e = (int)((b >> mb) & ((1u << eb) - 1u));
    const uint32_t m = b & ((1u << mb) - 1u);
    double v;
    if (e == (1 << eb) - 1) v = m ? NAN : HUGE_VAL;
    else if (e == 0) v = ldexp((double)m, 1 - bias - mb);
    else v = ldexp((double)(m | (1u << mb)), e - bias - mb);
    return s ? -v : v;
}
static uint16_t f16_bits(double x) { return (uint16_t)fp_bits(x, 10, 5); }
static uint16_t bf16_bits(double x) { return (uint16_t)fp_bits(x, 7, 8); }

static int64_t load_int(rlx_dtype t, const void* p) {
    switch (t) {
    case RLX_I8: { int8_t v; memcpy(&v, p, 1); return v; }
    case RLX_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case RLX_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case RLX_I64: { int64_t v; memcpy(&v, p, 8); return v; }
    case RLX_U8: case RLX_BOOL: { uint8_t v; memcpy(&v, p, 1); return v; }
    case RLX_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: return 0;
    }
}
/* stores v, which must lie in t's range */
static void store_int(rlx_dtype t, int64_t v, void* p) {
    switch (t) {
    case RLX_I8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case RLX_I16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case RLX_I32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    case RLX_I64: memcpy(p, &v, 8); break;
    case RLX_U8: case RLX_BOOL: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case RLX_U32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: break;
    }
}

/* element of dtype t at p as a double (bool: the raw byte, so a stored 2 is not mistaken for 1) */
static double dec(rlx_dtype t, const void* p) {
    switch (t) {
    case RLX_F32: { float f; memcpy(&f, p, 4); return f; }
    case RLX_F64: { double f; memcpy(&f, p, 8); return f; }
    case RLX_F16: { uint16_t b; memcpy(&b, p, 2); return fp_value(b, 10, 5); }
    case RLX_BF16: { uint16_t b; memcpy(&b, p, 2); return fp_value(b, 7, 8); }
    default: return (double)load_int(t, p);
    }
}

/* saturate an integer to t's range */
static int64_t clamp_int(rlx_dtype t, int64_t v) {
    int64_t lo, hi;
    irange(t, &lo, &hi);
    return v < lo ? lo : v > hi ? hi : v;
}

/* reference rlx_cast from a double (an f64 or any narrower float) to t, written to p */
static void from_f64(double v, rlx_dtype t, void* p) {
    switch (t) {
    case RLX_F32: { uint32_t b = fp_bits(v, 23, 8); memcpy(p, &b, 4); return; }
    case RLX_F16: { uint16_t b = f16_bits(v); memcpy(p, &b, 2); return; }
    case RLX_BF16: { uint16_t b = bf16_bits(v); memcpy(p, &b, 2); return; }
    case RLX_F64: memcpy(p, &v, 8); return;
    case RLX_BOOL: { uint8_t b = (uint8_t)(v != 0); memcpy(p, &b, 1); return; } /* NaN != 0 */
    default: break;
    }
    if (v != v) { store_int(t, 0, p); return; }
    v = trunc(v);
    if (t == RLX_I64) {
        int64_t r = v >= 9223372036854775808.0 ? INT64_MAX : v < -9223372036854775808.0 ? INT64_MIN : (int64_t)v;
        store_int(t, r, p);
    } else {
        int64_t lo, hi;
        irange(t, &lo, &hi);
        store_int(t, v >= (double)hi ? hi : v <= (double)lo ? lo : (int64_t)v, p);
    }
}
/* reference rlx_cast from an integer (or bool) value to t. Values used with float targets are exactly
   representable in double or far from a rounding tie, so going through double does not change the result. */
static void from_i64(int64_t v, rlx_dtype t, void* p) {
    if (is_flt(t)) from_f64((double)v, t, p);
    else if (t == RLX_BOOL) store_int(t, v != 0, p);
    else store_int(t, clamp_int(t, v), p);
}
static void ref_cast(rlx_dtype src, const void* sp, rlx_dtype dst, void* dp) {
    if (is_flt(src)) from_f64(dec(src, sp), dst, dp);
    else from_i64(load_int(src, sp), dst, dp);
}

/* x rounded to dtype t (and back) */
static double q(rlx_dtype t, double x) {
    unsigned char b[8];
    from_f64(x, t, b);
    return dec(t, b);
}

/* two's-complement wrap-around of u (an exact result modulo 2^64) to t's width */
static int64_t wrap_to(rlx_dtype t, uint64_t u) {
    const int bits = (int)dsz(t) * 8;
    int64_t r;
    if (bits == 64) { memcpy(&r, &u, 8); return r; }
    u &= (1ull << bits) - 1u;
    if (!is_uns(t) && (u >> (bits - 1))) return (int64_t)u - (int64_t)(1ull << bits);
    return (int64_t)u;
}

/* =============================================================================================================
   Data generation
   ============================================================================================================= */

/* uniform in [lo, hi) rounded to t; integer dtypes take floor(); bool is a fair coin */
static double* gen(rlx_dtype t, int64_t n, double lo, double hi) {
    double* v = D(n);
    int64_t i;
    for (i = 0; i < n; i++) {
        double x = th_uniform(lo, hi);
        v[i] = t == RLX_BOOL ? (double)(th_rng() & 1u) : is_flt(t) ? q(t, x) : q(t, floor(x));
    }
    return v;
}
/* magnitude in [lo, hi) with a random sign */
static double* gen_mag(rlx_dtype t, int64_t n, double lo, double hi) {
    double* v = D(n);
    int64_t i;
    for (i = 0; i < n; i++) v[i] = q(t, (th_rng() & 1u ? -1 : 1) * th_uniform(lo, hi));
    return v;
}
/* uniform integer in [lo, hi] (inclusive; the full int64 range works) */
static int64_t rand_int(int64_t lo, int64_t hi) {
    const uint64_t span = (uint64_t)hi - (uint64_t)lo + 1u, r = th_rng();
    const uint64_t u = span ? (uint64_t)lo + r % span : r;
    int64_t v;
    memcpy(&v, &u, 8);
    return v;
}
static int64_t* geni(int64_t n, int64_t lo, int64_t hi) {
    int64_t* v = I64(n);
    int64_t i;
    for (i = 0; i < n; i++) v[i] = rand_int(lo, hi);
    return v;
}

static void* raw_of_f64(rlx_dtype t, const double* v, int64_t n) {
    unsigned char* r = (unsigned char*)T_alloc((size_t)n * dsz(t));
    int64_t i;
    for (i = 0; i < n; i++) from_f64(v[i], t, r + (size_t)i * dsz(t));
    return r;
}
static void* raw_of_i64(rlx_dtype t, const int64_t* v, int64_t n) {
    unsigned char* r = (unsigned char*)T_alloc((size_t)n * dsz(t));
    int64_t i;
    for (i = 0; i < n; i++) from_i64(v[i], t, r + (size_t)i * dsz(t));
    return r;
}

/* =============================================================================================================
   Running a case
   ============================================================================================================= */

#define TC_MAXIO 8

typedef struct tcase {
    rlx_graph* g;
    rlx_program* p;
    char name[256];
    int ok; /* no rlx call has failed so far */
    int nin;
    char in_name[TC_MAXIO][16];
    rlx_dtype in_feed[TC_MAXIO]; /* dtype of the buffer passed to rlx_set_input / rlx_set_param */
    const void* in_raw[TC_MAXIO];
    size_t in_bytes[TC_MAXIO];
    int in_param[TC_MAXIO];
} tcase;

static int g_threads = 0;   /* rlx_compile_desc.num_threads of every case */
static uint32_t g_flags = 0; /* rlx_compile_desc.flags of every case */

/* when g_capture is set, tc_expect* keep a copy of the last output read (for comparing thread counts) */
static int g_capture;
static double* g_captured;
static int64_t g_captured_n;

static void tc_begin(tcase* t, const char* fmt, ...) {
    va_list ap;
    memset(t, 0, sizeof *t);
    va_start(ap, fmt);
    vsnprintf(t->name, sizeof t->name, fmt, ap);
    va_end(ap);
    t->g = rlx_graph_create(NULL);
    t->ok = t->g != NULL;
    TH_CHECK(t->ok, "%s: rlx_graph_create returned NULL", t->name);
}

static void tc_fail(tcase* t, const char* what, rlx_result r) {
    if (!t->ok) return;
    t->ok = 0;
    TH_CHECK(0, "%s: %s failed: %s (%d): %s", t->name, what, rlx_result_string(r), (int)r,
             t->p ? rlx_program_error(t->p) : rlx_graph_error(t->g));
}

/* an input (or param) of dtype dt, fed at run time from `raw` elements of dtype feed */
static rlx_tensor tc_src(tcase* t, int param, rlx_dtype dt, shp s, rlx_dtype feed, const void* raw) {
    rlx_tensor x;
    int k = t->nin;
    x.id = 0;
    if (!t->ok || k >= TC_MAXIO) return x;
    t->nin++;
    snprintf(t->in_name[k], sizeof t->in_name[k], "%s%d", param ? "p" : "x", k);
    t->in_feed[k] = feed;
    t->in_raw[k] = raw;
    t->in_bytes[k] = (size_t)numel(s) * dsz(feed);
    t->in_param[k] = param;
    return param ? rlx_param(t->g, t->in_name[k], dt, s.rank, s.d) : rlx_input(t->g, t->in_name[k], dt, s.rank, s.d);
}
static rlx_tensor tc_in(tcase* t, rlx_dtype dt, shp s, const double* v) {
    return tc_src(t, 0, dt, s, dt, raw_of_f64(dt, v, numel(s)));
}
static rlx_tensor tc_in_i(tcase* t, rlx_dtype dt, shp s, const int64_t* v) {
    return tc_src(t, 0, dt, s, dt, raw_of_i64(dt, v, numel(s)));
}
static rlx_tensor tc_par(tcase* t, rlx_dtype dt, shp s, const double* v) {
    return tc_src(t, 1, dt, s, dt, raw_of_f64(dt, v, numel(s)));
}
static rlx_tensor tc_const(tcase* t, rlx_dtype dt, shp s, const double* v) {
    return rlx_constant(t->g, dt, s.rank, s.d, raw_of_f64(dt, v, numel(s)));
}

static int tc_out(tcase* t, const char* name, rlx_tensor y) {
    rlx_result r;
    if (!t->ok) return 0;
    r = rlx_output(t->g, name, y);
    if (r != RLX_OK) tc_fail(t, "rlx_output", r);
    return t->ok;
}

/* compile, set every input and param, run */
static int tc_exec(tcase* t) {
    rlx_compile_desc cd;
    rlx_result r;
    int k;
    if (!t->ok) return 0;
    r = rlx_graph_status(t->g);
    if (r != RLX_OK) { tc_fail(t, "graph building", r); return 0; }
    memset(&cd, 0, sizeof cd);
    cd.num_threads = g_threads;
    cd.flags = g_flags;
    r = rlx_compile(t->g, &cd, &t->p);
    if (r != RLX_OK || !t->p) { t->p = NULL; tc_fail(t, "rlx_compile", r != RLX_OK ? r : RLX_ERROR_INTERNAL); return 0; }
    for (k = 0; k < t->nin; k++) {
        r = t->in_param[k] ? rlx_set_param(t->p, t->in_name[k], t->in_feed[k], t->in_raw[k], t->in_bytes[k])
                           : rlx_set_input(t->p, t->in_name[k], t->in_feed[k], t->in_raw[k], t->in_bytes[k]);
        if (r != RLX_OK) { tc_fail(t, t->in_param[k] ? "rlx_set_param" : "rlx_set_input", r); return 0; }
    }
    r = rlx_run(t->p);
    if (r != RLX_OK) { tc_fail(t, "rlx_run", r); return 0; }
    return 1;
}

/* output `name` read as n elements of dtype dt (scratch memory), NULL on failure */
static void* tc_get(tcase* t, const char* name, rlx_dtype dt, int64_t n) {
    void* buf;
    rlx_result r;
    if (!t->ok || !t->p) return NULL;
    buf = T_alloc((size_t)n * dsz(dt));
    r = rlx_get_output(t->p, name, dt, buf, (size_t)n * dsz(dt));
    if (r != RLX_OK) { tc_fail(t, "rlx_get_output", r); return NULL; }
    return buf;
}

static void tc_end(tcase* t) {
    rlx_program_destroy(t->p);
    rlx_graph_destroy(t->g);
    t->p = NULL;
    t->g = NULL;
}

/* the builder must report dtype dt and shape want for y */
static int tc_shape(tcase* t, rlx_tensor y, rlx_dtype dt, shp want) {
    int rank = -1, ok;
    int64_t d[MAXR];
    rlx_dtype got;
    if (!t->ok) return 0;
    memset(d, 0, sizeof d);
    got = rlx_tensor_info(t->g, y, &rank, d);
    ok = got == dt && same_shape(want, rank, d);
    TH_CHECK(ok, "%s: builder gives %s%s, expected %s%s (graph error: \"%s\")", t->name, dn(got),
             got == RLX_DTYPE_INVALID ? "" : fmt_dims(rank, d), dn(dt), SH(want), rlx_graph_error(t->g));
    if (!ok) t->ok = 0;
    return ok;
}

static void capture(const double* v, int64_t n) {
    if (!g_capture) return;
    free(g_captured);
    g_captured = (double*)malloc((size_t)(n ? n : 1) * sizeof(double));
    if (g_captured) memcpy(g_captured, v, (size_t)n * sizeof(double));
    g_captured_n = n;
}

/* |got - ref| <= atol_i + rtol*|ref| for every element, atol_i = atolv[i] when atolv is given */
static int compare(const char* name, shp s, const double* got, const double* ref, double atol, double rtol,
                   const double* atolv) {
    const int64_t n = numel(s);
    int64_t i, bad = 0, first = -1;
    for (i = 0; i < n; i++) {
        if (th_close(got[i], ref[i], atolv ? atolv[i] : atol, rtol)) continue;
        if (bad < MAX_SHOWN) printf("  %s: at %s got %.10g, want %.10g\n", name, fmt_index(i, s), got[i], ref[i]);
        if (first < 0) first = i;
        bad++;
    }
    TH_CHECK(bad == 0, "%s: %lld of %lld elements differ (first at %s: got %.10g, want %.10g, atol %g, rtol %g)",
             name, (long long)bad, (long long)n, first >= 0 ? fmt_index(first, s) : "-", first >= 0 ? got[first] : 0.0,
             first >= 0 ? ref[first] : 0.0, first >= 0 && atolv ? atolv[first] : atol, rtol);
    return bad == 0;
}

/* exact comparison of two buffers of dtype dt (floats: NaN equals NaN; integers compared as int64) */
static int compare_raw(const char* name, rlx_dtype dt, shp s, const void* got, const void* ref, const void* src,
                       rlx_dtype src_dt) {
    const int64_t n = numel(s);
    const size_t es = dsz(dt);
    int64_t i, bad = 0, first = -1;
    char gs[64], rs[64], ss[64];
    for (i = 0; i < n; i++) {
        const unsigned char* gp = (const unsigned char*)got + (size_t)i * es;
        const unsigned char* rp = (const unsigned char*)ref + (size_t)i * es;
        int same = is_flt(dt) ? th_close(dec(dt, gp), dec(dt, rp), 0, 0) : load_int(dt, gp) == load_int(dt, rp);
        if (same) continue;
        if (first < 0) first = i;
        if (bad < MAX_SHOWN) {
            if (is_flt(dt)) { snprintf(gs, sizeof gs, "%.10g", dec(dt, gp)); snprintf(rs, sizeof rs, "%.10g", dec(dt, rp)); }
            else { snprintf(gs, sizeof gs, "%lld", (long long)load_int(dt, gp)); snprintf(rs, sizeof rs, "%lld", (long long)load_int(dt, rp)); }
            ss[0] = 0;
            if (src) {
                const void* sp = (const unsigned char*)src + (size_t)i * dsz(src_dt);
                if (is_flt(src_dt)) snprintf(ss, sizeof ss, " (source %.17g)", dec(src_dt, sp));
                else snprintf(ss, sizeof ss, " (source %lld)", (long long)load_int(src_dt, sp));
            }
            printf("  %s: at %s got %s, want %s%s\n", name, fmt_index(i, s), gs, rs, ss);
        }
        bad++;
    }
    TH_CHECK(bad == 0, "%s: %lld of %lld elements differ (first at %s)", name, (long long)bad, (long long)n,
             first >= 0 ? fmt_index(first, s) : "-");
    return bad == 0;
}

/* One-output case: checks y's dtype and shape, runs, reads y as read_dt (its own dtype normally) and compares
   with ref (doubles). Ends the case. */
static void tc_expect_as(tcase* t, rlx_tensor y, rlx_dtype dt, rlx_dtype read_dt, shp want, const double* ref,
                         double atol, double rtol, const double* atolv) {
    if (tc_shape(t, y, dt, want) && tc_out(t, "y", y) && tc_exec(t)) {
        const int64_t n = numel(want);
        const unsigned char* raw = (const unsigned char*)tc_get(t, "y", read_dt, n);
        if (raw) {
            double* got = D(n);
            int64_t i;
            for (i = 0; i < n; i++) got[i] = dec(read_dt, raw + (size_t)i * dsz(read_dt));
            compare(t->name, want, got, ref, atol, rtol, atolv);
            capture(got, n);
        }
    }
    tc_end(t);
}
static void tc_expect(tcase* t, rlx_tensor y, rlx_dtype dt, shp want, const double* ref, double atol, double rtol,
                      const double* atolv) {
    tc_expect_as(t, y, dt, dt, want, ref, atol, rtol, atolv);
}
/* exact variant: ref holds the expected elements in y's dtype */
static void tc_expect_raw(tcase* t, rlx_tensor y, rlx_dtype dt, shp want, const void* ref) {
    if (tc_shape(t, y, dt, want) && tc_out(t, "y", y) && tc_exec(t)) {
        const int64_t n = numel(want);
        const void* raw = tc_get(t, "y", dt, n);
        if (raw) {
            double* got = D(n);
            int64_t i;
            compare_raw(t->name, dt, want, raw, ref, NULL, RLX_DTYPE_INVALID);
            for (i = 0; i < n; i++) got[i] = dec(dt, (const unsigned char*)raw + (size_t)i * dsz(dt));
            capture(got, n);
        }
    }
    tc_end(t);
}
static void tc_expect_i64(tcase* t, rlx_tensor y, rlx_dtype dt, shp want, const int64_t* ref) {
    tc_expect_raw(t, y, dt, want, raw_of_i64(dt, ref, numel(want)));
}

static rlx_tensor NONE(void) {
    rlx_tensor t;
    t.id = 0;
    return t;
}

/* =============================================================================================================
   Self-check of the test's own float rounding helpers
   ============================================================================================================= */

static void test_helpers(void) {
    int i, bad = 0;
    for (i = 0; i < 20000; i++) {
        double x = ldexp(th_uniform(-1, 1), (int)(th_rng() % 60) - 30);
        float f = (float)x; /* the compiler's double->float conversion rounds to nearest even */
        uint32_t b;
        memcpy(&b, &f, 4);
        if (fp_bits(x, 23, 8) != b) bad++;
    }
    TH_CHECK(bad == 0, "helper fp_bits(f32) disagrees with (float) on %d values", bad);
    TH_CHECK(f16_bits(65504.0) == 0x7BFF && f16_bits(65519.0) == 0x7BFF && f16_bits(65520.0) == 0x7C00 &&
                 f16_bits(1.0 + ldexp(1, -11)) == 0x3C00 && f16_bits(1.0 + 3 * ldexp(1, -11)) == 0x3C02 &&
                 f16_bits(ldexp(1, -24)) == 0x0001 && f16_bits(ldexp(1, -25)) == 0 &&
                 f16_bits(ldexp(3, -26)) == 0x0001 && f16_bits(-2.0) == 0xC000 && f16_bits(NAN) == 0x7E00 &&
                 fp_value(0x3555, 10, 5) == 0.333251953125,
             "helper f16 rounding");
    TH_CHECK(bf16_bits(1.0) == 0x3F80 && bf16_bits(1.0 + ldexp(1, -8)) == 0x3F80 &&
                 bf16_bits(1.0 + 3 * ldexp(1, -8)) == 0x3F82 && bf16_bits(-HUGE_VAL) == 0xFF80 &&
                 bf16_bits(3.4e38) == 0x7F80 && fp_value(0x7F7F, 7, 8) == 3.3895313892515355e38,
             "helper bf16 rounding");
}

/* =============================================================================================================
   Unary ops
   ============================================================================================================= */

static double r_neg(double x) { return -x; }
static double r_abs(double x) { return fabs(x); }
static double r_exp(double x) { return exp(x); }
static double r_log(double x) { return log(x); }
static double r_sqrt(double x) { return sqrt(x); }
static double r_rsqrt(double x) { return 1.0 / sqrt(x); }
static double r_sin(double x) { return sin(x); }
static double r_cos(double x) { return cos(x); }
static double r_tan(double x) { return tan(x); }
static double r_atan(double x) { return atan(x); }
static double r_tanh(double x) { return tanh(x); }
static double r_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double r_relu(double x) { return x > 0 ? x : 0.0; }
static double r_gelu(double x) { return 0.5 * x * (1.0 + erf(x / sqrt(2.0))); }
static double r_gelu_tanh(double x) {
    return 0.5 * x * (1.0 + tanh(sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
}
static double r_silu(double x) { return x / (1.0 + exp(-x)); }
static double r_erf(double x) { return erf(x); }
static double r_round(double x) { return rne(x); }
static double r_floor(double x) { return floor(x); }
static double r_ceil(double x) { return ceil(x); }

typedef rlx_tensor (*build1)(rlx_graph*, rlx_tensor);
typedef struct unary_def {
    rlx_op op;
    const char* name;
    build1 build;
    double (*ref)(double);
    double lo, hi; /* input domain */
    double atol32; /* absolute tolerance for f32 */
} unary_def;

static const unary_def UNARY[] = {
    {RLX_OP_NEG, "neg", rlx_neg, r_neg, -3, 3, 1e-6},
    {RLX_OP_ABS, "abs", rlx_abs, r_abs, -3, 3, 1e-6},
    {RLX_OP_EXP, "exp", rlx_exp, r_exp, -5, 5, 1e-6},
    {RLX_OP_LOG, "log", rlx_log, r_log, 0.01, 10, 1e-6},
    {RLX_OP_SQRT, "sqrt", rlx_sqrt, r_sqrt, 0.01, 10, 1e-6},
    {RLX_OP_RSQRT, "rsqrt", rlx_rsqrt, r_rsqrt, 0.01, 10, 1e-6},
    {RLX_OP_SIN, "sin", rlx_sin, r_sin, -6, 6, 1e-6},
    {RLX_OP_COS, "cos", rlx_cos, r_cos, -6, 6, 1e-6},
    {RLX_OP_TAN, "tan", rlx_tan, r_tan, -1.4, 1.4, 1e-5},
    {RLX_OP_ATAN, "atan", rlx_atan, r_atan, -10, 10, 1e-6},
    {RLX_OP_TANH, "tanh", rlx_tanh, r_tanh, -5, 5, 1e-6},
    {RLX_OP_SIGMOID, "sigmoid", rlx_sigmoid, r_sigmoid, -10, 10, 1e-6},
    {RLX_OP_RELU, "relu", rlx_relu, r_relu, -3, 3, 1e-6},
    {RLX_OP_GELU, "gelu", rlx_gelu, r_gelu, -5, 5, 1e-5},
    {RLX_OP_GELU_TANH, "gelu_tanh", rlx_gelu_tanh, r_gelu_tanh, -5, 5, 1e-5},
    {RLX_OP_SILU, "silu", rlx_silu, r_silu, -8, 8, 1e-5},
    {RLX_OP_ERF, "erf", rlx_erf, r_erf, -3, 3, 1e-5},
    {RLX_OP_ROUND, "round", rlx_round, r_round, -10, 10, 0},
    {RLX_OP_FLOOR, "floor", rlx_floor, r_floor, -10, 10, 0},
    {RLX_OP_CEIL, "ceil", rlx_ceil, r_ceil, -10, 10, 0},
};

/* mode 0: named builder on an input; 1: rlx_unary(op) on an input; 2: named builder on a constant (folded) */
static void unary_case(const unary_def* u, rlx_dtype dt, shp s, int mode) {
    const int64_t n = numel(s);
    double* x = gen(dt, n, u->lo, u->hi);
    double* ref = D(n);
    int64_t i;
    tcase t;
    rlx_tensor xt, y;
    for (i = 0; i < n; i++) ref[i] = u->ref(x[i]);
    tc_begin(&t, "%s %s%s%s", u->name, dn(dt), SH(s), mode == 2 ? " (constant)" : "");
    xt = mode == 2 ? tc_const(&t, dt, s, x) : tc_in(&t, dt, s, x);
    y = mode == 1 ? rlx_unary(t.g, u->op, xt) : u->build(t.g, xt);
    tc_expect(&t, y, dt, s, ref, dt == RLX_F32 ? u->atol32 : tol_of(dt), tol_of(dt), NULL);
}

/* round/floor/ceil on exact halves and near-halves; mode 0: input, 1: constant (folded), 2: constant with
   RLX_COMPILE_NO_OPTIMIZE */
static void rounding_specials(rlx_dtype dt, int mode) {
    static const double common[] = {0.5,  1.5,  2.5,  3.5,  -0.5,  -1.5, -2.5,        -3.5,
                                    12.5, -12.5, 0.7, -0.7, 0.49999997, -0.49999997, 2.5000002, 1.4999999,
                                    7.0,  -7.0, 0.0,  1e8,  -1e8};
    double extra[4];
    int ne = 0, i, k;
    double v[32];
    const int nc = COUNT(common);
    const unary_def* ops[3];
    ops[0] = &UNARY[17];
    ops[1] = &UNARY[18];
    ops[2] = &UNARY[19];
    switch (dt) {
    case RLX_F32: extra[ne++] = 8388607.5; extra[ne++] = -8388607.5; extra[ne++] = 4194304.5; break;
    case RLX_F64: extra[ne++] = 4503599627370495.5; extra[ne++] = -4503599627370495.5; extra[ne++] = 0.49999999999999994; break;
    case RLX_F16: extra[ne++] = 1023.5; extra[ne++] = -1022.5; extra[ne++] = 511.75; break;
    case RLX_BF16: extra[ne++] = 127.5; extra[ne++] = -126.5; extra[ne++] = 63.75; break;
    default: break;
    }
    for (i = 0; i < nc; i++) v[i] = q(dt, common[i]);
    for (i = 0; i < ne; i++) v[nc + i] = q(dt, extra[i]);
    for (k = 0; k < 3; k++) {
        const int n = nc + ne;
        const shp s = S(1, n);
        double ref[32];
        tcase t;
        rlx_tensor x;
        for (i = 0; i < n; i++) ref[i] = ops[k]->ref(v[i]);
        tc_begin(&t, "%s %s specials (%s)", ops[k]->name, dn(dt), mode == 0 ? "input" : mode == 1 ? "constant" : "constant, no optimize");
        x = mode == 0 ? tc_in(&t, dt, s, v) : tc_const(&t, dt, s, v);
        g_flags = mode == 2 ? RLX_COMPILE_NO_OPTIMIZE : 0;
        tc_expect(&t, ops[k]->build(t.g, x), dt, s, ref, 0, 0, NULL);
        g_flags = 0;
    }
}

/* extreme arguments: saturation, overflow to inf, underflow to 0, infinities. The expected value is the exact
   result rounded to the dtype. */
static int unary_extremes(rlx_op op, double* v) {
    const double I = HUGE_VAL;
    static const double e_sign[] = {1e30, -1e30, 1e-30, -1e-30};
    static const double e_exp[] = {-100, -87, 80, 88, 89, 1000, -1000, 1e-7};
    static const double e_log[] = {1e-30, 1e30, 1.0000001, 0.9999999, 1e-6};
    static const double e_sqrt[] = {1e-30, 1e30, 1e-6, 1e6};
    static const double e_trig[] = {50, -50, 100.5, 1e-7, 3.14159265, -1e-30};
    static const double e_tan[] = {1.5, -1.5, 1e-7, 3.0, -3.0};
    static const double e_sat[] = {30, -30, 100, -100, 1000, -1000, 1e-4, -1e-7, 10, -10};
    static const double e_round[] = {1e30, -1e30, -0.2, 0.2, 16777215.0};
    const double* list = NULL;
    int n = 0, i, with_inf = 1;
    switch (op) {
    case RLX_OP_NEG: case RLX_OP_ABS: case RLX_OP_RELU: list = e_sign; n = COUNT(e_sign); break;
    case RLX_OP_EXP: list = e_exp; n = COUNT(e_exp); break;
    case RLX_OP_LOG: list = e_log; n = COUNT(e_log); break;
    case RLX_OP_SQRT: case RLX_OP_RSQRT: list = e_sqrt; n = COUNT(e_sqrt); break;
    case RLX_OP_SIN: case RLX_OP_COS: list = e_trig; n = COUNT(e_trig); with_inf = 0; break;
    case RLX_OP_TAN: list = e_tan; n = COUNT(e_tan); with_inf = 0; break;
    case RLX_OP_ROUND: case RLX_OP_FLOOR: case RLX_OP_CEIL: list = e_round; n = COUNT(e_round); break;
    case RLX_OP_GELU: case RLX_OP_GELU_TANH: case RLX_OP_SILU: list = e_sat; n = COUNT(e_sat); with_inf = 0; break;
    default: list = e_sat; n = COUNT(e_sat); break; /* atan, tanh, sigmoid, erf */
    }
    for (i = 0; i < n; i++) v[i] = list[i];
    if (with_inf) {
        v[n++] = I;
        if (op != RLX_OP_LOG && op != RLX_OP_SQRT && op != RLX_OP_RSQRT) v[n++] = -I;
    }
    return n;
}

static void unary_extreme_case(const unary_def* u, rlx_dtype dt) {
    double x[16], ref[16];
    const int n = unary_extremes(u->op, x);
    const shp s = S(1, n);
    int i;
    tcase t;
    for (i = 0; i < n; i++) {
        x[i] = q(dt, x[i]);
        ref[i] = q(dt, u->ref(x[i]));
    }
    tc_begin(&t, "%s %s extreme arguments", u->name, dn(dt));
    tc_expect(&t, u->build(t.g, tc_in(&t, dt, s, x)), dt, s, ref, tol_of(dt), tol_of(dt), NULL);
}

/* integer neg/abs/relu, exact (the most negative value is left out: its negation is not representable) */
static void int_unary_case(rlx_op op, rlx_dtype dt, shp s) {
    const int64_t n = numel(s);
    int64_t lo, hi, i;
    int64_t *x, *ref = I64(n);
    tcase t;
    rlx_tensor xt;
    irange(dt, &lo, &hi);
    x = geni(n, lo + 1, hi);
    for (i = 0; i < n; i++) {
        int64_t v = x[i];
        ref[i] = op == RLX_OP_NEG ? -v : op == RLX_OP_ABS ? (v < 0 ? -v : v) : (v > 0 ? v : 0);
    }
    tc_begin(&t, "%s %s%s", rlx_op_name(op), dn(dt), SH(s));
    xt = tc_in_i(&t, dt, s, x);
    tc_expect_i64(&t, rlx_unary(t.g, op, xt), dt, s, ref);
}

static void test_unary(void) {
    const shp f32_shapes[] = {SI0, SI(1, 1), SI(1, 7), SI(1, 13), SI(3, 3, 1, 5), SI(3, 2, 1, 33), SI(1, 67), SI(1, 4099)};
    const shp f64_shapes[] = {SI(1, 7), SI(3, 3, 1, 5), SI(1, 1031)};
    const shp half_shapes[] = {SI0, SI(1, 13), SI(2, 3, 11), SI(1, 1031)};
    const rlx_dtype halves[] = {RLX_F16, RLX_BF16};
    const rlx_op int_ops[] = {RLX_OP_NEG, RLX_OP_ABS, RLX_OP_RELU};
    const rlx_dtype int_types[] = {RLX_I8, RLX_I16, RLX_I32, RLX_I64};
    int o, i, k;
    for (o = 0; o < COUNT(UNARY); o++) {
        for (i = 0; i < COUNT(f32_shapes); i++) unary_case(&UNARY[o], RLX_F32, f32_shapes[i], i & 1);
        for (i = 0; i < COUNT(f64_shapes); i++) unary_case(&UNARY[o], RLX_F64, f64_shapes[i], 1);
        for (k = 0; k < COUNT(halves); k++)
            for (i = 0; i < COUNT(half_shapes); i++) unary_case(&UNARY[o], halves[k], half_shapes[i], 1);
        unary_case(&UNARY[o], RLX_F32, S(1, 13), 2);
        unary_case(&UNARY[o], RLX_F64, S(1, 7), 2);
        unary_case(&UNARY[o], RLX_F16, S(1, 13), 2);
        unary_case(&UNARY[o], RLX_BF16, S(0), 2);
        unary_extreme_case(&UNARY[o], RLX_F32);
        unary_extreme_case(&UNARY[o], RLX_F64);
        T_free_all();
    }
    for (k = 0; k < 4; k++)
        for (i = 0; i < 3; i++) rounding_specials(k == 0 ? RLX_F32 : k == 1 ? RLX_F64 : k == 2 ? RLX_F16 : RLX_BF16, i);
    for (o = 0; o < COUNT(int_ops); o++)
        for (k = 0; k < COUNT(int_types); k++) {
            int_unary_case(int_ops[o], int_types[k], S(1, 13));
            int_unary_case(int_ops[o], int_types[k], S(2, 3, 1031));
        }
    T_free_all();
}

/* =============================================================================================================
   Binary ops
   ============================================================================================================= */

static double b_add(double a, double b) { return a + b; }
static double b_sub(double a, double b) { return a - b; }
static double b_mul(double a, double b) { return a * b; }
static double b_div(double a, double b) { return a / b; }
static double b_pow(double a, double b) { return pow(a, b); }
static double b_max(double a, double b) { return a != a || b != b ? NAN : a > b ? a : b; }
static double b_min(double a, double b) { return a != a || b != b ? NAN : a < b ? a : b; }
static double b_eq(double a, double b) { return a == b; }
static double b_ne(double a, double b) { return a != b; }
static double b_lt(double a, double b) { return a < b; }
static double b_le(double a, double b) { return a <= b; }
static double b_gt(double a, double b) { return a > b; }
static double b_ge(double a, double b) { return a >= b; }

typedef rlx_tensor (*build2)(rlx_graph*, rlx_tensor, rlx_tensor);
typedef struct binary_def {
    rlx_op op;
    const char* name;
    build2 build;
    double (*ref)(double, double);
    double alo, ahi, blo, bhi;
    int bmag; /* b is a magnitude in [blo, bhi) with a random sign */
} binary_def;

static const binary_def ARITH[] = {
    {RLX_OP_ADD, "add", rlx_add, b_add, -5, 5, -5, 5, 0},
    {RLX_OP_SUB, "sub", rlx_sub, b_sub, -5, 5, -5, 5, 0},
    {RLX_OP_MUL, "mul", rlx_mul, b_mul, -5, 5, -5, 5, 0},
    {RLX_OP_DIV, "div", rlx_div, b_div, -5, 5, 0.5, 3, 1},
    {RLX_OP_POW, "pow", rlx_pow, b_pow, 0.1, 3, -2, 2, 0},
    {RLX_OP_MAX, "max", rlx_max, b_max, -5, 5, -5, 5, 0},
    {RLX_OP_MIN, "min", rlx_min, b_min, -5, 5, -5, 5, 0},
};
static const binary_def COMPARE[] = {
    {RLX_OP_EQ, "eq", rlx_eq, b_eq, 0, 0, 0, 0, 0}, {RLX_OP_NE, "ne", rlx_ne, b_ne, 0, 0, 0, 0, 0},
    {RLX_OP_LT, "lt", rlx_lt, b_lt, 0, 0, 0, 0, 0}, {RLX_OP_LE, "le", rlx_le, b_le, 0, 0, 0, 0, 0},
    {RLX_OP_GT, "gt", rlx_gt, b_gt, 0, 0, 0, 0, 0}, {RLX_OP_GE, "ge", rlx_ge, b_ge, 0, 0, 0, 0, 0},
};

/* broadcast reference of an elementwise binary function */
static double* ref_binary(double (*f)(double, double), shp sa, const double* a, shp sb, const double* b, shp* so) {
    const shp o = bshape(sa, sb);
    const int64_t n = numel(o);
    double* r = D(n);
    int64_t i;
    for (i = 0; i < n; i++) r[i] = f(a[bidx(i, o, sa)], b[bidx(i, o, sb)]);
    *so = o;
    return r;
}

static const char* const SRC_MODE[] = {"inputs", "b constant", "both constant", "b rlx_scalar"};

/* mode 0: a, b inputs; 1: b constant; 2: both constant (folded); 3: b = rlx_scalar (sb must be rank 0) */
static void binary_case(const binary_def* bd, rlx_dtype dt, shp sa, shp sb, int mode) {
    double* a = gen(dt, numel(sa), bd->alo, bd->ahi);
    double* b = bd->bmag ? gen_mag(dt, numel(sb), bd->blo, bd->bhi) : gen(dt, numel(sb), bd->blo, bd->bhi);
    shp so;
    double* ref = ref_binary(bd->ref, sa, a, sb, b, &so);
    tcase t;
    rlx_tensor at, bt;
    tc_begin(&t, "%s %s %sx%s (%s)", bd->name, dn(dt), SH(sa), SH(sb), SRC_MODE[mode]);
    at = mode == 2 ? tc_const(&t, dt, sa, a) : tc_in(&t, dt, sa, a);
    bt = mode == 3 ? rlx_scalar(t.g, dt, b[0]) : mode >= 1 ? tc_const(&t, dt, sb, b) : tc_in(&t, dt, sb, b);
    tc_expect(&t, mode & 1 ? rlx_binary(t.g, bd->op, at, bt) : bd->build(t.g, at, bt), dt, so, ref,
              tol_of(dt) * (dt == RLX_F32 ? 0.1 : 1), tol_of(dt), NULL);
}

/* exact integer reference: computed modulo 2^64, then wrapped to the dtype */
static int64_t ref_int_binary(rlx_op op, rlx_dtype t, int64_t a, int64_t b) {
    const uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (op) {
    case RLX_OP_ADD: return wrap_to(t, ua + ub);
    case RLX_OP_SUB: return wrap_to(t, ua - ub);
    case RLX_OP_MUL: return wrap_to(t, ua * ub);
    case RLX_OP_DIV:
        if (b == 0) return 0;
        if (a == INT64_MIN && b == -1) return INT64_MIN;
        return wrap_to(t, (uint64_t)(a / b)); /* C division truncates toward zero */
    case RLX_OP_POW: {
        uint64_t r = 1u;
        int64_t e;
        if (b < 0) return 0;
        for (e = 0; e < b; e++) r *= ua;
        return wrap_to(t, r);
    }
    case RLX_OP_MAX: return a > b ? a : b;
    case RLX_OP_MIN: return a < b ? a : b;
    default: return 0;
    }
}

static void int_binary_run(rlx_op op, rlx_dtype dt, shp sa, const int64_t* a, shp sb, const int64_t* b,
                           const char* what) {
    const shp so = bshape(sa, sb);
    const int64_t n = numel(so);
    int64_t* ref = I64(n);
    int64_t i;
    tcase t;
    rlx_tensor at, bt;
    for (i = 0; i < n; i++) ref[i] = ref_int_binary(op, dt, a[bidx(i, so, sa)], b[bidx(i, so, sb)]);
    tc_begin(&t, "%s %s %sx%s (%s)", rlx_op_name(op), dn(dt), SH(sa), SH(sb), what);
    at = tc_in_i(&t, dt, sa, a);
    bt = tc_in_i(&t, dt, sb, b);
    tc_expect_i64(&t, rlx_binary(t.g, op, at, bt), dt, so, ref);
}

/* random integers: full range operands (so add/sub/mul wrap), small divisors with zeros, small pow operands */
static void int_binary_case(rlx_op op, rlx_dtype dt, shp sa, shp sb) {
    int64_t lo, hi, i;
    int64_t *a, *b;
    irange(dt, &lo, &hi);
    if (op == RLX_OP_POW) {
        a = geni(numel(sa), is_uns(dt) ? 0 : -4, 4);
        b = geni(numel(sb), is_uns(dt) ? 0 : -2, 7);
    } else {
        a = geni(numel(sa), lo, hi);
        b = op == RLX_OP_DIV ? geni(numel(sb), is_uns(dt) ? 0 : -10, 10) : geni(numel(sb), lo, hi);
        if (op == RLX_OP_DIV)
            for (i = 0; i < numel(sb); i += 4) b[i] = 0;
    }
    int_binary_run(op, dt, sa, a, sb, b, "random");
}

static void int_binary_specials(void) {
    /* i32: wrap-around, truncation toward zero, division by zero */
    static const int64_t a32[] = {2147483647, -2147483647 - 1, 65536, 100000, 46341, -7, 7, -7, 7, 0, 5, -5, 2147483647, 1};
    static const int64_t b32[] = {1, -1, 65536, 100000, 46341, 2, -2, -2, 2, 3, 0, 0, -2147483647 - 1, -1};
    static const int64_t a64[] = {INT64_MAX, INT64_MIN, 4294967296LL, 3037000500LL, -7, 7, -7, 9, 0, 5, -5, INT64_MAX, 1};
    static const int64_t b64[] = {1, -1, 4294967296LL, 3037000500LL, 2, -2, -2, 4, 3, 0, 0, INT64_MIN, INT64_MAX};
    const rlx_op ops[] = {RLX_OP_ADD, RLX_OP_SUB, RLX_OP_MUL, RLX_OP_DIV};
    int k;
    for (k = 0; k < COUNT(ops); k++) {
        int_binary_run(ops[k], RLX_I32, S(1, COUNT(a32)), a32, S(1, COUNT(b32)), b32, "overflow/trunc/zero");
        int_binary_run(ops[k], RLX_I64, S(1, COUNT(a64)), a64, S(1, COUNT(b64)), b64, "overflow/trunc/zero");
    }
}

/* INT_MIN / -1 overflows: the documented result is the wrapped value (INT_MIN), not a trap. Run last. */
static void int_division_overflow(void) {
    static const int64_t a32[] = {-2147483647 - 1, -2147483647 - 1}, b32[] = {-1, 1};
    static const int64_t a64[] = {INT64_MIN, INT64_MIN}, b64[] = {-1, 1};
    int_binary_run(RLX_OP_DIV, RLX_I32, S(1, 2), a32, S(1, 2), b32, "INT32_MIN / -1");
    int_binary_run(RLX_OP_DIV, RLX_I64, S(1, 2), a64, S(1, 2), b64, "INT64_MIN / -1");
}

/* comparisons read as u8 or bool; data drawn from a few values so that many elements are equal */
static void compare_case(const binary_def* bd, rlx_dtype dt, shp sa, shp sb, rlx_dtype read_dt) {
    const double scale = is_flt(dt) ? 0.5 : 1.0, lo = is_uns(dt) ? 0 : -3, hi = is_uns(dt) ? 4 : 3;
    double* a = gen(is_flt(dt) ? RLX_I32 : dt, numel(sa), lo, hi);
    double* b = gen(is_flt(dt) ? RLX_I32 : dt, numel(sb), lo, hi);
    shp so;
    double* ref;
    int64_t i;
    tcase t;
    rlx_tensor at, bt;
    for (i = 0; i < numel(sa); i++) a[i] *= scale;
    for (i = 0; i < numel(sb); i++) b[i] *= scale;
    ref = ref_binary(bd->ref, sa, a, sb, b, &so);
    tc_begin(&t, "%s %s %sx%s (read as %s)", bd->name, dn(dt), SH(sa), SH(sb), dn(read_dt));
    at = tc_in(&t, dt, sa, a);
    bt = tc_in(&t, dt, sb, b);
    tc_expect_as(&t, bd->build(t.g, at, bt), RLX_BOOL, read_dt, so, ref, 0, 0, NULL);
}

/* integer comparisons over the whole range: u8 above 127, u32 above 2^31, i64 values that differ by less than
   a double can resolve (around 2^60) */
static void int_compare_case(const binary_def* bd, rlx_dtype dt, shp sa, shp sb) {
    const shp so = bshape(sa, sb);
    int64_t lo, hi, i, *a, *b;
    double* ref = D(numel(so));
    tcase t;
    rlx_tensor at, bt;
    irange(dt, &lo, &hi);
    if (dt == RLX_I64) {
        const int64_t base = (int64_t)1 << 60;
        a = geni(numel(sa), base - 2, base + 2);
        b = geni(numel(sb), base - 2, base + 2);
    } else {
        a = geni(numel(sa), lo, hi);
        b = geni(numel(sb), lo, hi);
        for (i = 0; i < numel(sb); i += 3) b[i] = a[i % numel(sa)]; /* some equal pairs */
    }
    for (i = 0; i < numel(so); i++) {
        const int64_t x = a[bidx(i, so, sa)], y = b[bidx(i, so, sb)];
        switch (bd->op) {
        case RLX_OP_EQ: ref[i] = x == y; break;
        case RLX_OP_NE: ref[i] = x != y; break;
        case RLX_OP_LT: ref[i] = x < y; break;
        case RLX_OP_LE: ref[i] = x <= y; break;
        case RLX_OP_GT: ref[i] = x > y; break;
        default: ref[i] = x >= y; break;
        }
    }
    tc_begin(&t, "%s %s %sx%s (full range)", bd->name, dn(dt), SH(sa), SH(sb));
    at = tc_in_i(&t, dt, sa, a);
    bt = tc_in_i(&t, dt, sb, b);
    tc_expect(&t, bd->build(t.g, at, bt), RLX_BOOL, so, ref, 0, 0, NULL);
}

/* NaN and inf operands: max/min propagate NaN, comparisons follow IEEE */
static void nan_case(rlx_dtype dt) {
    const double a[] = {NAN, 1, NAN, 2, -HUGE_VAL, HUGE_VAL, 3, -0.0};
    const double b[] = {1, NAN, NAN, 2, 1, HUGE_VAL, -HUGE_VAL, 0.0};
    const shp s = S(1, COUNT(a));
    int k;
    for (k = 0; k < COUNT(ARITH) + COUNT(COMPARE); k++) {
        const binary_def* bd = k < COUNT(ARITH) ? &ARITH[k] : &COMPARE[k - COUNT(ARITH)];
        const int cmp = k >= COUNT(ARITH);
        shp so;
        double* ref;
        tcase t;
        rlx_tensor at, bt;
        if (bd->op != RLX_OP_MAX && bd->op != RLX_OP_MIN && !cmp) continue;
        ref = ref_binary(bd->ref, s, a, s, b, &so);
        tc_begin(&t, "%s %s NaN/inf operands", bd->name, dn(dt));
        at = tc_in(&t, dt, s, a);
        bt = tc_in(&t, dt, s, b);
        tc_expect(&t, bd->build(t.g, at, bt), cmp ? RLX_BOOL : dt, s, ref, 0, 0, NULL);
    }
}

static void test_binary(void) {
    typedef struct { shp a, b; } pair;
    const pair pairs[] = {
        {SI(1, 7), SI(1, 7)},       {SI(3, 3, 1, 5), SI(2, 4, 1)}, {SI0, SI(1, 13)},        {SI(1, 13), SI0},
        {SI(1, 1), SI(2, 2, 3)},    {SI0, SI0},                {SI(2, 5, 1), SI(3, 1, 1, 1)},
        {SI(3, 2, 1, 33), SI(2, 67, 1)} /* 4422 elements */,       {SI(1, 4099), SI(1, 4099)},
    };
    const pair few[] = {{SI(3, 3, 1, 5), SI(2, 4, 1)}, {SI0, SI(1, 13)}, {SI(3, 2, 1, 33), SI(2, 67, 1)}};
    const rlx_dtype other_float[] = {RLX_F64, RLX_F16, RLX_BF16};
    const rlx_op int_ops[] = {RLX_OP_ADD, RLX_OP_SUB, RLX_OP_MUL, RLX_OP_DIV, RLX_OP_POW, RLX_OP_MAX, RLX_OP_MIN};
    const rlx_dtype int_types[] = {RLX_I8, RLX_I16, RLX_I32, RLX_I64, RLX_U8, RLX_U32};
    const rlx_dtype cmp_types[] = {RLX_F64, RLX_F16, RLX_BF16, RLX_I32, RLX_I64, RLX_U8, RLX_I8};
    int o, i, k;
    for (o = 0; o < COUNT(ARITH); o++) {
        for (i = 0; i < COUNT(pairs); i++) binary_case(&ARITH[o], RLX_F32, pairs[i].a, pairs[i].b, i % 2);
        binary_case(&ARITH[o], RLX_F32, S(3, 3, 1, 5), S(2, 4, 1), 2);
        binary_case(&ARITH[o], RLX_F32, S(1, 13), S(0), 3);
        binary_case(&ARITH[o], RLX_F32, S(0), S(0), 2);
        for (k = 0; k < COUNT(other_float); k++)
            for (i = 0; i < COUNT(few); i++) binary_case(&ARITH[o], other_float[k], few[i].a, few[i].b, 0);
        T_free_all();
    }
    for (o = 0; o < COUNT(int_ops); o++)
        for (k = 0; k < COUNT(int_types); k++) {
            int_binary_case(int_ops[o], int_types[k], S(3, 3, 1, 5), S(2, 4, 1));
            int_binary_case(int_ops[o], int_types[k], S(0), S(1, 13));
            int_binary_case(int_ops[o], int_types[k], S(3, 2, 1, 33), S(2, 67, 1));
        }
    int_binary_specials();
    T_free_all();
    for (o = 0; o < COUNT(COMPARE); o++) {
        for (i = 0; i < COUNT(pairs); i++)
            compare_case(&COMPARE[o], RLX_F32, pairs[i].a, pairs[i].b, i % 2 ? RLX_BOOL : RLX_U8);
        for (k = 0; k < COUNT(cmp_types); k++) compare_case(&COMPARE[o], cmp_types[k], few[k % 3].a, few[k % 3].b, RLX_U8);
        int_compare_case(&COMPARE[o], RLX_U8, S(1, 67), S(1, 67));
        int_compare_case(&COMPARE[o], RLX_U32, S(1, 67), S(1, 67));
        int_compare_case(&COMPARE[o], RLX_I32, S(3, 3, 1, 5), S(2, 4, 1));
        int_compare_case(&COMPARE[o], RLX_I64, S(1, 67), S(0));
        int_compare_case(&COMPARE[o], RLX_I16, S(1, 33), S(1, 33));
        T_free_all();
    }
    nan_case(RLX_F32);
    nan_case(RLX_F64);
    T_free_all();
}

/* =============================================================================================================
   where
   ============================================================================================================= */

/* cond_mode 0: bool input; 1: cond = gt(p, q) computed from two f32 inputs of shape sc */
static void where_case(rlx_dtype dt, shp sc, shp sa, shp sb, int cond_mode) {
    const shp so = bshape(bshape(sc, sa), sb);
    const int64_t n = numel(so);
    double* c = gen(RLX_BOOL, numel(sc), 0, 1);
    double* pp = gen(RLX_F32, numel(sc), -1, 1);
    double* qq = gen(RLX_F32, numel(sc), -1, 1);
    double* a = gen(dt, numel(sa), is_uns(dt) ? 1 : -50, 50);
    double* b = gen(dt, numel(sb), is_uns(dt) ? 1 : -50, 50);
    double* ref = D(n);
    int64_t i;
    tcase t;
    rlx_tensor ct, at, bt;
    if (cond_mode == 1) for (i = 0; i < numel(sc); i++) c[i] = pp[i] > qq[i];
    for (i = 0; i < n; i++) ref[i] = c[bidx(i, so, sc)] != 0 ? a[bidx(i, so, sa)] : b[bidx(i, so, sb)];
    tc_begin(&t, "where %s cond %s%s a %s b %s", dn(dt), SH(sc), cond_mode ? " (from gt)" : "", SH(sa), SH(sb));
    if (cond_mode == 1) {
        rlx_tensor pt = tc_in(&t, RLX_F32, sc, pp);
        rlx_tensor qt = tc_in(&t, RLX_F32, sc, qq);
        ct = rlx_gt(t.g, pt, qt);
    } else {
        ct = tc_in(&t, RLX_BOOL, sc, c);
    }
    at = tc_in(&t, dt, sa, a);
    bt = tc_in(&t, dt, sb, b);
    tc_expect(&t, rlx_where(t.g, ct, at, bt), dt, so, ref, 0, 0, NULL);
}

static void test_where(void) {
    where_case(RLX_F32, S(3, 3, 1, 5), S(2, 4, 1), S(0), 0);
    where_case(RLX_F32, S(0), S(1, 7), S(1, 1), 0);
    where_case(RLX_F32, S(1, 13), S(1, 13), S(1, 13), 1);
    where_case(RLX_F32, S(2, 4, 1), S(3, 3, 1, 5), S(1, 5), 1);
    where_case(RLX_F32, S(3, 2, 1, 33), S(2, 67, 1), S(3, 2, 67, 33), 1);
    where_case(RLX_F32, S(0), S(0), S(0), 0);
    where_case(RLX_F64, S(3, 3, 1, 5), S(2, 4, 1), S(0), 0);
    where_case(RLX_F16, S(3, 3, 1, 5), S(2, 4, 1), S(1, 5), 1);
    where_case(RLX_BF16, S(1, 13), S(0), S(1, 13), 0);
    where_case(RLX_I64, S(2, 4, 1), S(1, 5), S(3, 3, 4, 5), 0);
    where_case(RLX_I32, S(1, 1031), S(1, 1031), S(0), 1);
    where_case(RLX_U8, S(3, 3, 1, 5), S(2, 4, 1), S(0), 0);
    where_case(RLX_I8, S(1, 7), S(1, 7), S(1, 7), 0);
    T_free_all();
}

/* =============================================================================================================
   cast: every pair of the 11 dtypes, via rlx_cast on an input, on a constant (folded), via rlx_get_output's
   conversion and via rlx_set_input's conversion
   ============================================================================================================= */

#define CAST_MAX 64

/* fills raw with the test values of dtype src, returns their count */
static int cast_values(rlx_dtype src, unsigned char* raw) {
    static const double fv[] = {
        0, 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 0.7, -0.7, 1.0 / 3, -2.0 / 3, 127.5, 127.9, -128.9, 128, -129,
        255.9, 256, 300.7, -5, -300.7, 32767.9, -32768.9, 65504, 65519, 65520, 70000, -70000, 2147483647.9,
        -2147483648.9, 4294967295.5, 4294967296.0, 1e10, -1e10, 1e19, -1e19, 3.0e38, 1e300, -1e300, 1e-6, 3e-8,
        1.0 + 1.0 / 256, 1.0 + 3.0 / 256,             /* bf16 ties */
        1.0 + 1.0 / 2048, 1.0 + 3.0 / 2048,           /* f16 ties */
        1.0 + 1.0 / 16777216, 1.0 + 3.0 / 16777216,   /* f32 ties */
        1.0 + 1.0 / 2048 + 1.0 / 1099511627776.0,     /* just above an f16 tie, only in f64 */
        NAN, HUGE_VAL, TH_NEG_INF, -0.0};
    static const int64_t i8v[] = {-128, -100, -1, 0, 1, 7, 100, 127};
    static const int64_t i16v[] = {-32768, -300, -129, -1, 0, 1, 127, 128, 255, 256, 300, 32767};
    static const int64_t i32v[] = {INT32_MIN, -70000, -65520, -300, -1, 0, 1, 255, 256, 65504, 65519, 65520, 70000,
                                   16777217, 16777219, INT32_MAX};
    static const int64_t i64v[] = {INT64_MIN, -4294967297LL, -2147483649LL, -1, 0, 1, 2147483648LL, 4294967296LL,
                                   9007199254740993LL, INT64_MAX};
    static const int64_t u8v[] = {0, 1, 100, 127, 128, 200, 255};
    static const int64_t u32v[] = {0, 1, 255, 256, 65520, 16777217, 2147483647, 2147483648LL, 4294967295LL};
    static const int64_t bv[] = {0, 1, 1, 0, 1};
    const int64_t* iv;
    int n, i;
    if (is_flt(src)) {
        for (i = 0; i < COUNT(fv); i++) from_f64(fv[i], src, raw + (size_t)i * dsz(src));
        return COUNT(fv);
    }
    switch (src) {
    case RLX_I8: iv = i8v; n = COUNT(i8v); break;
    case RLX_I16: iv = i16v; n = COUNT(i16v); break;
    case RLX_I32: iv = i32v; n = COUNT(i32v); break;
    case RLX_I64: iv = i64v; n = COUNT(i64v); break;
    case RLX_U8: iv = u8v; n = COUNT(u8v); break;
    case RLX_U32: iv = u32v; n = COUNT(u32v); break;
    default: iv = bv; n = COUNT(bv); break;
    }
    for (i = 0; i < n; i++) store_int(src, iv[i], raw + (size_t)i * dsz(src));
    return n;
}

static void cast_pair(rlx_dtype src, rlx_dtype dst) {
    unsigned char sraw[CAST_MAX * 8], ref[CAST_MAX * 8];
    const int n = cast_values(src, sraw);
    const shp s = S(1, n);
    int i;
    tcase t;
    rlx_tensor x, w, pp, c, y, yc;
    char label[96];
    for (i = 0; i < n; i++) ref_cast(src, sraw + (size_t)i * dsz(src), dst, ref + (size_t)i * dsz(dst));
    tc_begin(&t, "cast %s->%s", dn(src), dn(dst));
    x = tc_src(&t, 0, src, s, src, sraw);
    w = tc_src(&t, 0, dst, s, src, sraw);  /* input of dtype dst fed from a src buffer */
    pp = tc_src(&t, 1, dst, s, src, sraw); /* param of dtype dst fed from a src buffer */
    c = rlx_constant(t.g, src, 1, s.d, sraw);
    y = rlx_cast(t.g, x, dst);
    yc = rlx_cast(t.g, c, dst);
    if (tc_shape(&t, y, dst, s) && tc_shape(&t, yc, dst, s) && tc_out(&t, "y", y) && tc_out(&t, "z", x) &&
        tc_out(&t, "c", yc) && tc_out(&t, "w", w) && tc_out(&t, "p", pp) && tc_exec(&t)) {
        const void* got;
        if ((got = tc_get(&t, "y", dst, n)) != NULL) compare_raw(t.name, dst, s, got, ref, sraw, src);
        snprintf(label, sizeof label, "cast %s->%s of a constant", dn(src), dn(dst));
        if ((got = tc_get(&t, "c", dst, n)) != NULL) compare_raw(label, dst, s, got, ref, sraw, src);
        snprintf(label, sizeof label, "rlx_get_output of %s as %s", dn(src), dn(dst));
        if ((got = tc_get(&t, "z", dst, n)) != NULL) compare_raw(label, dst, s, got, ref, sraw, src);
        snprintf(label, sizeof label, "rlx_set_input of %s into a %s input", dn(src), dn(dst));
        if ((got = tc_get(&t, "w", dst, n)) != NULL) compare_raw(label, dst, s, got, ref, sraw, src);
        snprintf(label, sizeof label, "rlx_set_param of %s into a %s param", dn(src), dn(dst));
        if ((got = tc_get(&t, "p", dst, n)) != NULL) compare_raw(label, dst, s, got, ref, sraw, src);
    }
    tc_end(&t);
}

static void test_cast(void) {
    int i, j;
    for (i = 0; i < COUNT(ALL_DTYPES); i++)
        for (j = 0; j < COUNT(ALL_DTYPES); j++) cast_pair(ALL_DTYPES[i], ALL_DTYPES[j]);
    /* a large cast so the threaded path runs */
    {
        const shp s = S(2, 3, 1031);
        double* x = gen(RLX_F32, numel(s), -400, 400);
        int64_t* ref = I64(numel(s));
        int64_t k;
        tcase t;
        for (k = 0; k < numel(s); k++) ref[k] = x[k] < 0 ? 0 : x[k] > 255 ? 255 : (int64_t)x[k];
        tc_begin(&t, "cast f32->u8 %s", SH(s));
        tc_expect_i64(&t, rlx_cast(t.g, tc_in(&t, RLX_F32, s, x), RLX_U8), RLX_U8, s, ref);
    }
    T_free_all();
}

/* =============================================================================================================
   matmul
   ============================================================================================================= */

/* numpy matmul reference; *sabs receives sum |a||b| per output element (for the tolerance) */
static shp ref_matmul(shp a, const double* A, shp b, const double* B, double** C, double** sabs) {
    shp a2 = a, b2 = b, ba, bb, bo, out;
    int64_t M, K, N, nb, o, m, n, k;
    int i;
    if (a.rank == 1) a2 = S(2, 1, (int)a.d[0]);
    if (b.rank == 1) b2 = S(2, (int)b.d[0], 1);
    M = a2.d[a2.rank - 2];
    K = a2.d[a2.rank - 1];
    N = b2.d[b2.rank - 1];
    ba = a2;
    ba.rank -= 2;
    bb = b2;
    bb.rank -= 2;
    bo = bshape(ba, bb);
    nb = numel(bo);
    *C = D(nb * M * N);
    *sabs = D(nb * M * N);
    for (o = 0; o < nb; o++) {
        const double* pa = A + bidx(o, bo, ba) * M * K;
        const double* pb = B + bidx(o, bo, bb) * K * N;
        for (m = 0; m < M; m++)
            for (n = 0; n < N; n++) {
                double s = 0, sa = 0;
                for (k = 0; k < K; k++) {
                    s += pa[m * K + k] * pb[k * N + n];
                    sa += fabs(pa[m * K + k] * pb[k * N + n]);
                }
                (*C)[(o * M + m) * N + n] = s;
                (*sabs)[(o * M + m) * N + n] = sa;
            }
    }
    out = bo;
    for (i = 0; i < 2; i++) {
        if (i == 0 && a.rank == 1) continue;
        if (i == 1 && b.rank == 1) continue;
        out.d[out.rank++] = i == 0 ? M : N;
    }
    return out;
}

static void matmul_run(rlx_dtype dt, shp sa, const double* a, shp sb, const double* b, const char* what) {
    double *ref, *atolv;
    const shp so = ref_matmul(sa, a, sb, b, &ref, &atolv);
    const int64_t n = numel(so);
    int64_t i;
    tcase t;
    rlx_tensor at, bt;
    for (i = 0; i < n; i++) {
        if (is_int(dt)) ref[i] = (double)wrap_to(dt, (uint64_t)(int64_t)ref[i]);
        atolv[i] = atolv[i] * tol_of(dt) + 1e-30;
    }
    tc_begin(&t, "matmul %s %sx%s%s", dn(dt), SH(sa), SH(sb), what);
    at = tc_in(&t, dt, sa, a);
    bt = tc_in(&t, dt, sb, b);
    tc_expect(&t, rlx_matmul(t.g, at, bt), dt, so, ref, 0, 0, is_int(dt) ? NULL : atolv);
}

static void matmul_case(rlx_dtype dt, shp sa, shp sb) {
    const double lo = dt == RLX_I8 ? -20 : dt == RLX_U8 ? 0 : is_int(dt) ? -50 : -1;
    const double hi = dt == RLX_I8 || dt == RLX_U8 ? 20 : is_int(dt) ? 50 : 1;
    matmul_run(dt, sa, gen(dt, numel(sa), lo, hi), sb, gen(dt, numel(sb), lo, hi), "");
}

static void test_matmul(void) {
    typedef struct { shp a, b; } pair;
    const pair f32_cases[] = {
        {SI(2, 1, 17), SI(2, 17, 9)},       {SI(2, 9, 17), SI(2, 17, 1)},      {SI(2, 5, 1), SI(2, 1, 6)},
        {SI(2, 1, 1), SI(2, 1, 1)},         {SI(2, 7, 13), SI(2, 13, 29)},     {SI(2, 65, 127), SI(2, 127, 33)},
        {SI(2, 64, 64), SI(2, 64, 64)},     {SI(2, 3, 200), SI(2, 200, 5)},    {SI(4, 2, 1, 3, 5), SI(3, 3, 5, 4)},
        {SI(3, 4, 7, 13), SI(2, 13, 6)},    {SI(2, 7, 13), SI(3, 2, 13, 6)},   {SI(4, 2, 3, 4, 5), SI(3, 1, 5, 6)},
        {SI(1, 13), SI(2, 13, 6)},          {SI(2, 6, 13), SI(1, 13)},         {SI(1, 13), SI(1, 13)},
        {SI(1, 1), SI(1, 1)},               {SI(4, 2, 3, 4, 13), SI(1, 13)},   {SI(1, 13), SI(3, 2, 13, 6)},
        {SI(3, 3, 33, 65), SI(2, 65, 67)},
    };
    int i;
    for (i = 0; i < COUNT(f32_cases); i++) matmul_case(RLX_F32, f32_cases[i].a, f32_cases[i].b);
    matmul_case(RLX_F32, S(2, 4, 1031), S(2, 1031, 3));    /* long K */
    matmul_case(RLX_F32, S(1, 2049), S(1, 2049));          /* long dot product */
    matmul_case(RLX_F32, S(2, 257, 1), S(2, 1, 257));      /* outer product */
    matmul_case(RLX_F32, S(2, 130, 67), S(2, 67, 129));    /* large M and N, no multiple of a block */
    matmul_case(RLX_F64, S(2, 7, 13), S(2, 13, 29));
    matmul_case(RLX_F64, S(4, 2, 1, 3, 5), S(3, 3, 5, 4));
    matmul_case(RLX_F64, S(1, 33), S(1, 33));
    matmul_case(RLX_F16, S(2, 7, 13), S(2, 13, 29));
    matmul_case(RLX_F16, S(4, 2, 1, 3, 5), S(3, 3, 5, 4));
    matmul_case(RLX_BF16, S(2, 7, 13), S(2, 13, 29));
    matmul_case(RLX_I32, S(2, 7, 13), S(2, 13, 29));
    matmul_case(RLX_I32, S(4, 2, 1, 3, 5), S(3, 3, 5, 4));
    matmul_case(RLX_I32, S(1, 13), S(1, 13));
    matmul_case(RLX_I64, S(2, 7, 13), S(2, 13, 29));
    matmul_case(RLX_I8, S(2, 3, 13), S(2, 13, 5)); /* sums leave the i8 range and wrap */
    matmul_case(RLX_U8, S(2, 3, 13), S(2, 13, 5));
    {
        /* i32 wrap-around: 2*65536*65536 = 2^33 wraps to 0 */
        const double a[] = {65536, 65536, -46341, 46341};
        const double b[] = {65536, 46341, 65536, 46341};
        matmul_run(RLX_I32, S(2, 2, 2), a, S(2, 2, 2), b, " (wrap-around)");
    }
    {
        /* f16/bf16 accumulate in f32: 1 + 1024 small terms gives 1.5 (f16) or 3 (bf16) exactly, while a running
           sum kept in f16/bf16 would stay at 1 (each 1 + term rounds back to 1) */
        double* a = D(1025);
        double* b16 = D(1025);
        double* b8 = D(1025);
        int k;
        for (k = 0; k < 1025; k++) {
            a[k] = 1;
            b16[k] = k ? ldexp(1, -11) : 1;
            b8[k] = k ? ldexp(1, -9) : 1;
        }
        matmul_run(RLX_F16, S(2, 1, 1025), a, S(2, 1025, 1), b16, " (f32 accumulation)");
        matmul_run(RLX_BF16, S(2, 1, 1025), a, S(2, 1025, 1), b8, " (f32 accumulation)");
    }
    T_free_all();
}

/* =============================================================================================================
   Reductions
   ============================================================================================================= */

/* reference of sum/mean/max/min/prod; *scale receives the per-output tolerance scale (sum |x| for sum/mean) */
static shp ref_reduce(rlx_op op, shp x, const double* X, int naxes, const int* axes, int keepdims, double** out,
                      double** scale) {
    int red[MAXR] = {0}, i;
    shp ok, os;
    int64_t n = numel(x), f, no, cnt, idx[MAXR];
    for (i = 0; i < x.rank; i++) red[i] = naxes == 0;
    for (i = 0; i < naxes; i++) red[axes[i] < 0 ? axes[i] + x.rank : axes[i]] = 1;
    ok = x; /* kept dims as 1 */
    os.rank = 0;
    memset(os.d, 0, sizeof os.d);
    for (i = 0; i < x.rank; i++) {
        if (red[i]) ok.d[i] = 1;
        else os.d[os.rank++] = x.d[i];
    }
    no = numel(ok);
    cnt = no ? n / no : 1;
    *out = D(no);
    *scale = D(no);
    for (f = 0; f < no; f++)
        (*out)[f] = op == RLX_OP_PROD ? 1 : op == RLX_OP_REDUCE_MAX ? -HUGE_VAL : op == RLX_OP_REDUCE_MIN ? HUGE_VAL : 0;
    for (f = 0; f < n; f++) {
        int64_t o;
        double v = X[f], *r;
        unravel(f, x, idx);
        for (i = 0; i < x.rank; i++) if (red[i]) idx[i] = 0;
        o = ravel(idx, ok);
        r = &(*out)[o];
        switch (op) {
        case RLX_OP_PROD: *r *= v; break;
        case RLX_OP_REDUCE_MAX: if (v != v || v > *r) *r = v; break; /* NaN propagates */
        case RLX_OP_REDUCE_MIN: if (v != v || v < *r) *r = v; break;
        default: *r += v; break;
        }
        (*scale)[o] += fabs(v);
    }
    for (f = 0; f < no; f++) {
        if (op == RLX_OP_MEAN) { (*out)[f] /= (double)cnt; (*scale)[f] /= (double)cnt; }
        if (op == RLX_OP_PROD) (*scale)[f] = fabs((*out)[f]) * (double)cnt;
        if (op == RLX_OP_REDUCE_MAX || op == RLX_OP_REDUCE_MIN) (*scale)[f] = 0;
    }
    return keepdims ? ok : os;
}

static const char* fmt_axes(int naxes, const int* axes) {
    static char buf[4][64];
    static int k;
    char* b = buf[k++ & 3];
    int i, len = 0;
    if (naxes == 0) return "all";
    for (i = 0; i < naxes && len < 50; i++) len += snprintf(b + len, (size_t)(64 - len), i ? ",%d" : "%d", axes[i]);
    return b;
}

static void reduce_run(rlx_op op, rlx_dtype dt, shp x, const double* X, int naxes, const int* axes, int keepdims,
                       const char* what) {
    const rlx_dtype odt = (op == RLX_OP_SUM || op == RLX_OP_PROD) && !is_flt(dt) ? RLX_I64 : dt;
    double *ref, *scale;
    const shp so = ref_reduce(op, x, X, naxes, axes, keepdims, &ref, &scale);
    int64_t i;
    tcase t;
    for (i = 0; i < numel(so); i++) scale[i] = scale[i] * tol_of(odt) + (is_flt(odt) ? 1e-30 : 0);
    tc_begin(&t, "%s %s%s axes %s keepdims %d%s", rlx_op_name(op), dn(dt), SH(x), fmt_axes(naxes, axes), keepdims, what);
    tc_expect(&t, rlx_reduce(t.g, op, tc_in(&t, dt, x, X), naxes, axes, keepdims), odt, so, ref, 0, tol_of(odt), scale);
}

static void reduce_case(rlx_op op, rlx_dtype dt, shp x, int naxes, const int* axes, int keepdims) {
    const int64_t n = numel(x);
    double* X;
    if (op == RLX_OP_PROD) X = is_flt(dt) ? gen_mag(dt, n, 0.5, 1.5) : gen(dt, n, is_uns(dt) ? 0 : -3, 4);
    else X = gen(dt, n, dt == RLX_BOOL ? 0 : is_uns(dt) ? 0 : dt == RLX_I8 ? -128 : -5, dt == RLX_I8 || dt == RLX_U8 ? 128 : 5);
    reduce_run(op, dt, x, X, naxes, axes, keepdims, "");
}

static void argminmax_run(int is_max, rlx_dtype dt, shp x, const double* X, int axis, int keepdims, const char* what) {
    const int ax = axis < 0 ? axis + x.rank : axis;
    int64_t outer = 1, inner = 1, L = x.d[ax], o, in, l;
    int64_t* ref;
    shp so = x;
    int i;
    tcase t;
    rlx_tensor xt;
    for (i = 0; i < ax; i++) outer *= x.d[i];
    for (i = ax + 1; i < x.rank; i++) inner *= x.d[i];
    ref = I64(outer * inner);
    for (o = 0; o < outer; o++)
        for (in = 0; in < inner; in++) {
            int64_t best = 0;
            for (l = 1; l < L; l++) {
                const double v = X[(o * L + l) * inner + in], b = X[(o * L + best) * inner + in];
                /* the first NaN wins; otherwise ties keep the first index */
                const int better = v != v ? b == b : b == b && (is_max ? v > b : v < b);
                if (better) best = l;
            }
            ref[o * inner + in] = best;
        }
    if (keepdims) so.d[ax] = 1;
    else {
        for (i = ax; i + 1 < x.rank; i++) so.d[i] = x.d[i + 1];
        so.rank--;
    }
    tc_begin(&t, "%s %s%s axis %d keepdims %d%s", is_max ? "argmax" : "argmin", dn(dt), SH(x), axis, keepdims, what);
    xt = tc_in(&t, dt, x, X);
    tc_expect_i64(&t, is_max ? rlx_argmax(t.g, xt, axis, keepdims) : rlx_argmin(t.g, xt, axis, keepdims), RLX_I64,
                  so, ref);
}

/* data from {0,1,2} (scaled for floats) so that many elements tie */
static void argminmax_case(int is_max, rlx_dtype dt, shp x, int axis, int keepdims) {
    double* X = gen(is_flt(dt) ? RLX_I32 : dt, numel(x), 0, 3);
    int64_t i;
    if (is_flt(dt)) for (i = 0; i < numel(x); i++) X[i] = q(dt, X[i] * 0.75 - 1);
    argminmax_run(is_max, dt, x, X, axis, keepdims, "");
}

static void test_reduce(void) {
    typedef struct { int n; int axes[3]; } axset;
    const axset sets[] = {{1, {0, 0, 0}}, {1, {1, 0, 0}}, {1, {2, 0, 0}},   {1, {-1, 0, 0}}, {2, {0, 2, 0}},
                          {2, {1, -1, 0}}, {3, {0, 1, 2}}, {2, {-3, -2, 0}}, {0, {0, 0, 0}}};
    const rlx_op ops[] = {RLX_OP_SUM, RLX_OP_MEAN, RLX_OP_REDUCE_MAX, RLX_OP_REDUCE_MIN, RLX_OP_PROD};
    const int ax0[] = {0}, ax1[] = {1}, axm1[] = {-1}, axm2[] = {-2}, ax03[] = {0, 3}, ax2[] = {2};
    int o, i, k;
    for (o = 0; o < COUNT(ops); o++) {
        for (i = 0; i < COUNT(sets); i++)
            for (k = 0; k < 2; k++) reduce_case(ops[o], RLX_F32, S(3, 3, 4, 5), sets[i].n, sets[i].axes, k);
        reduce_case(ops[o], RLX_F32, S(4, 2, 1, 7, 13), 1, ax1, 0);
        reduce_case(ops[o], RLX_F32, S(4, 2, 1, 7, 13), 2, ax03, 1);
        reduce_case(ops[o], RLX_F32, S(4, 2, 1, 7, 13), 1, axm2, 0);
        reduce_case(ops[o], RLX_F32, S(1, 1), 1, ax0, 0);
        reduce_case(ops[o], RLX_F32, S(1, 13), 0, NULL, 0);
        reduce_case(ops[o], RLX_F32, S(1, 13), 0, NULL, 1);
        reduce_case(ops[o], RLX_F32, S(0), 0, NULL, 0);
        if (ops[o] != RLX_OP_PROD) {
            reduce_case(ops[o], RLX_F32, S(2, 67, 130), 1, ax0, 0);
            reduce_case(ops[o], RLX_F32, S(2, 67, 130), 1, ax1, 1);
            reduce_case(ops[o], RLX_F32, S(2, 67, 130), 0, NULL, 0);
            reduce_case(ops[o], RLX_F32, S(1, 1031), 1, ax0, 0);
        }
        reduce_case(ops[o], RLX_F64, S(3, 3, 4, 5), 1, ax1, 0);
        reduce_case(ops[o], RLX_F64, S(3, 3, 4, 5), 0, NULL, 1);
        reduce_case(ops[o], RLX_F16, S(3, 3, 4, 5), 1, axm1, 0);
        reduce_case(ops[o], RLX_F16, S(3, 3, 4, 5), 0, NULL, 0);
        reduce_case(ops[o], RLX_BF16, S(3, 3, 4, 5), 1, ax2, 1);
        if (ops[o] != RLX_OP_MEAN) { /* integer products stay small enough to be exact */
            reduce_case(ops[o], RLX_I32, S(3, 3, 4, 5), 1, ax1, 0);
            reduce_case(ops[o], RLX_I8, S(3, 3, 4, 5), 1, ax2, 0); /* sum leaves the i8 range: output is i64 */
            reduce_case(ops[o], RLX_I64, S(3, 3, 4, 5), 1, axm1, 1);
            if (ops[o] != RLX_OP_PROD) {
                reduce_case(ops[o], RLX_I32, S(3, 3, 4, 5), 0, NULL, 0);
                reduce_case(ops[o], RLX_U8, S(2, 67, 130), 1, ax1, 1);
            }
        }
        T_free_all();
    }
    reduce_case(RLX_OP_SUM, RLX_BOOL, S(3, 3, 4, 5), 1, ax1, 0);
    reduce_case(RLX_OP_SUM, RLX_BOOL, S(3, 3, 4, 5), 0, NULL, 0);
    reduce_case(RLX_OP_PROD, RLX_BOOL, S(3, 3, 4, 5), 1, ax2, 0);
    {
        /* u32 values above 2^31 (a signed 32-bit view of them would be negative) */
        const rlx_op uops[] = {RLX_OP_SUM, RLX_OP_REDUCE_MAX, RLX_OP_REDUCE_MIN};
        double* X = gen(RLX_U32, 40, 2147483648.0, 4294967295.0);
        for (i = 0; i < 40; i += 3) X[i] = q(RLX_U32, th_uniform(0, 1000));
        for (i = 0; i < COUNT(uops); i++) {
            reduce_run(uops[i], RLX_U32, S(2, 8, 5), X, 1, ax1, 0, " (large values)");
            reduce_run(uops[i], RLX_U32, S(2, 8, 5), X, 0, NULL, 0, " (large values)");
        }
        argminmax_run(1, RLX_U32, S(2, 8, 5), X, 0, 0, " (large values)");
        argminmax_run(0, RLX_U32, S(2, 8, 5), X, 1, 1, " (large values)");
    }
    {
        /* NaN propagates through max/min/sum reductions */
        const double X[] = {1, NAN, 3, 2, 0, 2, 2, -1, -1, 5, 7, 8, 9, 6, NAN};
        for (i = 0; i < COUNT(ops); i++) {
            reduce_run(ops[i], RLX_F32, S(2, 3, 5), X, 1, ax1, 0, " NaN");
            reduce_run(ops[i], RLX_F64, S(2, 3, 5), X, 1, ax0, 1, " NaN");
        }
    }
    for (k = 0; k < 2; k++) {
        const int axes[] = {0, 1, 2, -1, -3};
        for (i = 0; i < COUNT(axes); i++) {
            argminmax_case(k, RLX_F32, S(3, 4, 6, 5), axes[i], 0);
            argminmax_case(k, RLX_F32, S(3, 4, 6, 5), axes[i], 1);
        }
        argminmax_case(k, RLX_F32, S(1, 13), 0, 0);
        argminmax_case(k, RLX_F32, S(1, 13), -1, 1);
        argminmax_case(k, RLX_F32, S(3, 2, 1, 7), 1, 0);
        argminmax_case(k, RLX_F32, S(2, 67, 130), 1, 0);
        argminmax_case(k, RLX_F32, S(2, 67, 130), 0, 1);
        argminmax_case(k, RLX_F64, S(3, 4, 6, 5), 1, 0);
        argminmax_case(k, RLX_F16, S(3, 4, 6, 5), 2, 0);
        argminmax_case(k, RLX_BF16, S(3, 4, 6, 5), 0, 0);
        argminmax_case(k, RLX_I32, S(3, 4, 6, 5), 2, 1);
        argminmax_case(k, RLX_I64, S(2, 6, 5), 0, 0);
        argminmax_case(k, RLX_U8, S(2, 6, 5), -1, 0);
        {
            const double X[] = {1, NAN, 3, NAN, 0, 2, 2, -1, -1, 5};
            argminmax_run(k, RLX_F32, S(2, 2, 5), X, 1, 0, " NaN");
        }
        {
            /* i64 values around 2^60 that differ by less than a double can resolve */
            const int64_t B = (int64_t)1 << 60;
            const int64_t X[] = {B + 1, B + 3, B + 2, B + 3, B - 1, B - 2, B - 2, B};
            const int64_t want_max[] = {1, 3}, want_min[] = {0, 1};
            tcase t;
            tc_begin(&t, "%s i64[2,4] axis 1 (values near 2^60)", k ? "argmax" : "argmin");
            tc_expect_i64(&t, (k ? rlx_argmax : rlx_argmin)(t.g, tc_in_i(&t, RLX_I64, S(2, 2, 4), X), 1, 0), RLX_I64,
                          S(1, 2), k ? want_max : want_min);
        }
    }
    T_free_all();
}

/* =============================================================================================================
   softmax, log_softmax, layernorm, rmsnorm
   ============================================================================================================= */

static void softmax_case(int is_log, rlx_dtype dt, shp x, int axis, double lo, double hi) {
    const int64_t n = numel(x);
    double* X = gen(dt, n, lo, hi);
    double* ref = D(n);
    int64_t outer = 1, inner = 1, L = x.d[axis], o, in, l;
    int i;
    tcase t;
    rlx_tensor xt;
    for (i = 0; i < axis; i++) outer *= x.d[i];
    for (i = axis + 1; i < x.rank; i++) inner *= x.d[i];
    for (o = 0; o < outer; o++)
        for (in = 0; in < inner; in++) {
            double m = -HUGE_VAL, s = 0;
            for (l = 0; l < L; l++) if (X[(o * L + l) * inner + in] > m) m = X[(o * L + l) * inner + in];
            for (l = 0; l < L; l++) s += exp(X[(o * L + l) * inner + in] - m);
            for (l = 0; l < L; l++) {
                const double v = X[(o * L + l) * inner + in] - m;
                ref[(o * L + l) * inner + in] = is_log ? v - log(s) : exp(v) / s;
            }
        }
    tc_begin(&t, "%s %s%s axis %d values [%g,%g)", is_log ? "log_softmax" : "softmax", dn(dt), SH(x), axis, lo, hi);
    xt = tc_in(&t, dt, x, X);
    tc_expect(&t, is_log ? rlx_log_softmax(t.g, xt, axis) : rlx_softmax(t.g, xt, axis), dt, x, ref,
              dt == RLX_F32 ? 1e-6 : tol_of(dt), tol_of(dt), NULL);
}

/* which: bit 0 gamma, bit 1 beta. gamma is a param, beta an input. */
static void layernorm_case(rlx_dtype dt, shp x, int axis, int which, double eps) {
    const int64_t n = numel(x);
    int64_t outer = 1, inner = 1, o, j;
    shp sg;
    double *X, *G, *B, *ref = D(n);
    int i;
    tcase t;
    rlx_tensor xt, gt = NONE(), bt = NONE();
    sg.rank = x.rank - axis;
    memset(sg.d, 0, sizeof sg.d);
    for (i = 0; i < axis; i++) outer *= x.d[i];
    for (i = axis; i < x.rank; i++) { inner *= x.d[i]; sg.d[i - axis] = x.d[i]; }
    X = gen(dt, n, -1, 3);
    G = gen(dt, inner, 0.5, 1.5);
    B = gen(dt, inner, -1, 1);
    for (o = 0; o < outer; o++) {
        const double* xr = X + o * inner;
        double mean = 0, var = 0;
        for (j = 0; j < inner; j++) mean += xr[j];
        mean /= (double)inner;
        for (j = 0; j < inner; j++) var += (xr[j] - mean) * (xr[j] - mean);
        var /= (double)inner;
        for (j = 0; j < inner; j++)
            ref[o * inner + j] = (xr[j] - mean) / sqrt(var + (double)(float)eps) * (which & 1 ? G[j] : 1.0) +
                                 (which & 2 ? B[j] : 0.0);
    }
    tc_begin(&t, "layernorm %s%s axis %d%s%s", dn(dt), SH(x), axis, which & 1 ? " gamma" : "", which & 2 ? " beta" : "");
    xt = tc_in(&t, dt, x, X);
    if (which & 1) gt = tc_par(&t, dt, sg, G);
    if (which & 2) bt = tc_in(&t, dt, sg, B);
    tc_expect(&t, rlx_layernorm(t.g, xt, gt, bt, axis, (float)eps), dt, x, ref, tol_of(dt) * (dt == RLX_F64 ? 1 : 2),
              tol_of(dt), NULL);
}

static void rmsnorm_case(rlx_dtype dt, shp x, int which, double eps) {
    const int64_t n = numel(x), inner = x.d[x.rank - 1], outer = n / inner;
    const shp sg = S(1, (int)inner);
    double* X = gen_mag(dt, n, 0.1, 3);
    double* G = gen(dt, inner, 0.5, 1.5);
    double* B = gen(dt, inner, -1, 1);
    double* ref = D(n);
    int64_t o, j;
    tcase t;
    rlx_tensor xt, gt = NONE(), bt = NONE();
    for (o = 0; o < outer; o++) {
        double ms = 0;
        for (j = 0; j < inner; j++) ms += X[o * inner + j] * X[o * inner + j];
        ms /= (double)inner;
        for (j = 0; j < inner; j++)
            ref[o * inner + j] = X[o * inner + j] / sqrt(ms + (double)(float)eps) * (which & 1 ? G[j] : 1.0) +
                                 (which & 2 ? B[j] : 0.0);
    }
    tc_begin(&t, "rmsnorm %s%s%s%s", dn(dt), SH(x), which & 1 ? " gamma" : "", which & 2 ? " beta" : "");
    xt = tc_in(&t, dt, x, X);
    if (which & 1) gt = tc_in(&t, dt, sg, G);
    if (which & 2) bt = tc_par(&t, dt, sg, B);
    tc_expect(&t, rlx_rmsnorm(t.g, xt, gt, bt, (float)eps), dt, x, ref, tol_of(dt), tol_of(dt), NULL);
}

static void test_norm(void) {
    int k, a, w;
    for (k = 0; k < 2; k++) {
        for (a = 0; a < 3; a++) {
            softmax_case(k, RLX_F32, S(3, 4, 1, 13), a, -5, 5);
            softmax_case(k, RLX_F32, S(3, 2, 33, 7), a, -5, 5);
        }
        softmax_case(k, RLX_F32, S(1, 13), 0, -5, 5);
        softmax_case(k, RLX_F32, S(2, 16, 130), 1, -5, 5);
        softmax_case(k, RLX_F32, S(2, 130, 16), 0, -5, 5);
        softmax_case(k, RLX_F32, S(2, 5, 7), 1, 80, 100); /* exp would overflow without subtracting the max */
        softmax_case(k, RLX_F32, S(2, 5, 7), 0, -100, -80);
        softmax_case(k, RLX_F64, S(3, 4, 1, 13), 2, -5, 5);
        softmax_case(k, RLX_F64, S(3, 4, 1, 13), 0, -5, 5);
        softmax_case(k, RLX_F16, S(3, 4, 1, 13), 2, -5, 5);
        softmax_case(k, RLX_F16, S(3, 4, 1, 13), 0, -5, 5);
        softmax_case(k, RLX_BF16, S(3, 4, 1, 13), 2, -5, 5);
    }
    for (w = 0; w < 4; w++) {
        layernorm_case(RLX_F32, S(3, 3, 4, 13), 2, w, 1e-5);
        layernorm_case(RLX_F32, S(3, 3, 4, 13), 1, w, 1e-5);
        rmsnorm_case(RLX_F32, S(2, 5, 13), w, 1e-6);
        rmsnorm_case(RLX_F32, S(3, 2, 3, 33), w, 1e-5);
    }
    layernorm_case(RLX_F32, S(3, 2, 1, 7), 2, 3, 1e-5);
    layernorm_case(RLX_F32, S(2, 1, 7), 0, 3, 1e-3);
    layernorm_case(RLX_F32, S(2, 64, 130), 1, 3, 1e-5);
    layernorm_case(RLX_F64, S(3, 3, 4, 13), 2, 3, 1e-5);
    layernorm_case(RLX_F64, S(3, 3, 4, 13), 1, 0, 1e-5);
    layernorm_case(RLX_F16, S(3, 3, 4, 13), 2, 3, 1e-5);
    layernorm_case(RLX_BF16, S(3, 3, 4, 13), 2, 1, 1e-5);
    rmsnorm_case(RLX_F32, S(1, 4099), 3, 1e-5);
    rmsnorm_case(RLX_F32, S(2, 64, 130), 3, 1e-5);
    rmsnorm_case(RLX_F64, S(2, 5, 13), 3, 1e-6);
    rmsnorm_case(RLX_F64, S(2, 5, 13), 0, 1e-6);
    rmsnorm_case(RLX_F16, S(2, 5, 13), 3, 1e-5);
    rmsnorm_case(RLX_BF16, S(2, 5, 13), 1, 1e-5);
    T_free_all();
}

/* =============================================================================================================
   Layout ops: reshape, transpose, slice, narrow, concat, expand, gather
   ============================================================================================================= */

/* data for layout tests: exact values of the dtype, nonzero where the dtype allows */
static double* layout_data(rlx_dtype dt, int64_t n) {
    if (dt == RLX_BOOL) return gen(dt, n, 0, 1);
    if (is_uns(dt)) return gen(dt, n, 1, 250);
    if (is_int(dt)) return gen(dt, n, -120, 120);
    return gen(dt, n, -10, 10);
}

static void reshape_case(rlx_dtype dt, shp x, shp to, shp want, int computed) {
    const int64_t n = numel(x);
    double* X = layout_data(dt, n);
    double* ref = D(n);
    int64_t i;
    tcase t;
    rlx_tensor xt;
    for (i = 0; i < n; i++) ref[i] = computed ? -X[i] : X[i];
    tc_begin(&t, "reshape %s%s -> %s%s", dn(dt), SH(x), SH(to), computed ? " (of neg(x))" : "");
    xt = tc_in(&t, dt, x, X);
    if (computed) xt = rlx_neg(t.g, xt);
    tc_expect(&t, rlx_reshape(t.g, xt, to.rank, to.d), dt, want, ref, 0, 0, NULL);
}

/* reference transpose (perm NULL reverses the axes) */
static double* ref_transpose(shp x, const double* X, const int* perm, shp* so) {
    const int64_t n = numel(x);
    double* ref = D(n);
    int p[MAXR], i;
    int64_t f, oi[MAXR], xi[MAXR];
    *so = x;
    for (i = 0; i < x.rank; i++) p[i] = perm ? perm[i] : x.rank - 1 - i;
    for (i = 0; i < x.rank; i++) so->d[i] = x.d[p[i]];
    for (f = 0; f < n; f++) {
        unravel(f, *so, oi);
        for (i = 0; i < x.rank; i++) xi[p[i]] = oi[i];
        ref[f] = X[ravel(xi, x)];
    }
    return ref;
}

/* reference slice (start may be negative) */
static double* ref_slice(shp x, const double* X, int axis, int64_t start, int64_t length, int64_t step, shp* so) {
    const int64_t s0 = start < 0 ? start + x.d[axis] : start;
    double* ref;
    int64_t f, idx[MAXR];
    *so = x;
    so->d[axis] = length;
    ref = D(numel(*so));
    for (f = 0; f < numel(*so); f++) {
        unravel(f, *so, idx);
        idx[axis] = s0 + idx[axis] * step;
        ref[f] = X[ravel(idx, x)];
    }
    return ref;
}

static void transpose_case(rlx_dtype dt, shp x, const int* perm) {
    double* X = layout_data(dt, numel(x));
    shp so;
    double* ref = ref_transpose(x, X, perm, &so);
    char ps[64];
    size_t len = 0;
    int i;
    tcase t;
    ps[0] = 0;
    for (i = 0; i < x.rank && perm; i++) len += (size_t)snprintf(ps + len, sizeof ps - len, "%d", perm[i]);
    tc_begin(&t, "transpose %s%s perm %s", dn(dt), SH(x), perm ? ps : "NULL");
    tc_expect(&t, rlx_transpose(t.g, tc_in(&t, dt, x, X), perm), dt, so, ref, 0, 0, NULL);
}

/* step 0 means rlx_narrow */
static void slice_case(rlx_dtype dt, shp x, int axis, int64_t start, int64_t length, int64_t step) {
    double* X = layout_data(dt, numel(x));
    shp so;
    double* ref = ref_slice(x, X, axis, start, length, step ? step : 1, &so);
    tcase t;
    rlx_tensor xt;
    tc_begin(&t, "%s %s%s axis %d start %lld length %lld step %lld", step ? "slice" : "narrow", dn(dt), SH(x), axis,
             (long long)start, (long long)length, (long long)(step ? step : 1));
    xt = tc_in(&t, dt, x, X);
    tc_expect(&t, step ? rlx_slice(t.g, xt, axis, start, length, step) : rlx_narrow(t.g, xt, axis, start, length), dt,
              so, ref, 0, 0, NULL);
}

static void concat_case(rlx_dtype dt, int n, const shp* xs, int axis) {
    double* X[4];
    rlx_tensor xt[4];
    shp so = xs[0];
    int64_t f, idx[MAXR];
    double* ref;
    int i;
    char desc[160];
    size_t len = 0;
    tcase t;
    so.d[axis] = 0;
    for (i = 0; i < n; i++) {
        so.d[axis] += xs[i].d[axis];
        X[i] = layout_data(dt, numel(xs[i]));
        len += (size_t)snprintf(desc + len, sizeof desc - len, "%s%s", i ? "," : "", SH(xs[i]));
    }
    ref = D(numel(so));
    for (f = 0; f < numel(so); f++) {
        unravel(f, so, idx);
        for (i = 0; idx[axis] >= xs[i].d[axis]; i++) idx[axis] -= xs[i].d[axis];
        ref[f] = X[i][ravel(idx, xs[i])];
    }
    tc_begin(&t, "concat %s %s axis %d", dn(dt), desc, axis);
    for (i = 0; i < n; i++) xt[i] = tc_in(&t, dt, xs[i], X[i]);
    tc_expect(&t, rlx_concat(t.g, n, xt, axis), dt, so, ref, 0, 0, NULL);
}

static void expand_case(rlx_dtype dt, shp x, shp to) {
    const int64_t n = numel(to);
    double* X = layout_data(dt, numel(x));
    double* ref = D(n);
    int64_t f;
    tcase t;
    for (f = 0; f < n; f++) ref[f] = X[bidx(f, to, x)];
    tc_begin(&t, "expand %s%s -> %s", dn(dt), SH(x), SH(to));
    tc_expect(&t, rlx_expand(t.g, tc_in(&t, dt, x, X), to.rank, to.d), dt, to, ref, 0, 0, NULL);
}

/* gather(x, indices, axis) = numpy take; out-of-range indices (after adding the axis size to negative ones) read 0 */
static void gather_run(rlx_dtype dt, shp x, int axis, rlx_dtype it, shp si, const int64_t* ind) {
    const int64_t L = x.d[axis], ni = numel(si);
    double* X = layout_data(dt, numel(x));
    int64_t outer = 1, inner = 1, o, j, in;
    shp so;
    double* ref;
    int i;
    tcase t;
    rlx_tensor xt, itn;
    so.rank = 0;
    memset(so.d, 0, sizeof so.d);
    for (i = 0; i < axis; i++) { outer *= x.d[i]; so.d[so.rank++] = x.d[i]; }
    for (i = 0; i < si.rank; i++) so.d[so.rank++] = si.d[i];
    for (i = axis + 1; i < x.rank; i++) { inner *= x.d[i]; so.d[so.rank++] = x.d[i]; }
    ref = D(numel(so));
    for (o = 0; o < outer; o++)
        for (j = 0; j < ni; j++) {
            const int64_t k = ind[j] < 0 ? ind[j] + L : ind[j];
            for (in = 0; in < inner; in++)
                ref[(o * ni + j) * inner + in] = k < 0 || k >= L ? 0.0 : X[(o * L + k) * inner + in];
        }
    tc_begin(&t, "gather %s%s axis %d indices %s%s", dn(dt), SH(x), axis, dn(it), SH(si));
    xt = tc_in(&t, dt, x, X);
    itn = tc_in_i(&t, it, si, ind);
    tc_expect(&t, rlx_gather(t.g, xt, itn, axis), dt, so, ref, 0, 0, NULL);
}

static void test_layout(void) {
    const rlx_dtype layout_types[] = {RLX_F32, RLX_F64, RLX_F16, RLX_U8, RLX_I64, RLX_BOOL, RLX_I16};
    const int p012[] = {0, 1, 2}, p201[] = {2, 0, 1}, p102[] = {1, 0, 2}, p021[] = {0, 2, 1};
    const int p0213[] = {0, 2, 1, 3}, p3120[] = {3, 1, 2, 0}, p1302[] = {1, 3, 0, 2}, p10[] = {1, 0}, p0[] = {0};
    int k;

    /* reshape */
    reshape_case(RLX_F32, S(3, 3, 4, 5), S(2, -1, 10), S(2, 6, 10), 0);
    reshape_case(RLX_F32, S(3, 3, 4, 5), S(4, 5, -1, 2, 1), S(4, 5, 6, 2, 1), 0);
    reshape_case(RLX_F32, S(3, 3, 4, 5), S(1, -1), S(1, 60), 1);
    reshape_case(RLX_F32, S(2, 1, 1), S(0), S(0), 0);
    reshape_case(RLX_F32, S(0), S(3, 1, -1, 1), S(3, 1, 1, 1), 0);
    reshape_case(RLX_F32, S(1, 4099), S(3, 1, -1, 1), S(3, 1, 4099, 1), 1);
    reshape_case(RLX_F32, S(2, 33, 67), S(2, 67, 33), S(2, 67, 33), 0);
    reshape_case(RLX_I64, S(2, 6, 4), S(3, 2, -1, 3), S(3, 2, 4, 3), 0);
    reshape_case(RLX_U8, S(2, 6, 4), S(1, 24), S(1, 24), 0);

    /* transpose */
    for (k = 0; k < COUNT(layout_types); k++) {
        transpose_case(layout_types[k], S(3, 2, 3, 4), p201);
        transpose_case(layout_types[k], S(4, 2, 3, 4, 5), p1302);
    }
    transpose_case(RLX_F32, S(3, 2, 3, 4), p012);
    transpose_case(RLX_F32, S(3, 2, 3, 4), p102);
    transpose_case(RLX_F32, S(3, 2, 3, 4), p021);
    transpose_case(RLX_F32, S(3, 2, 3, 4), NULL);
    transpose_case(RLX_F32, S(4, 2, 3, 4, 5), p0213);
    transpose_case(RLX_F32, S(4, 2, 3, 4, 5), p3120);
    transpose_case(RLX_F32, S(4, 2, 3, 4, 5), NULL);
    transpose_case(RLX_F32, S(4, 1, 3, 1, 5), p3120);
    transpose_case(RLX_F32, S(2, 33, 67), p10);
    transpose_case(RLX_F32, S(2, 67, 33), NULL);
    transpose_case(RLX_F32, S(1, 13), p0);
    transpose_case(RLX_F32, S(0), NULL);
    T_free_all();

    /* slice and narrow */
    for (k = 0; k < 3; k++) {
        const rlx_dtype dt = k == 0 ? RLX_F32 : k == 1 ? RLX_I64 : RLX_F16;
        slice_case(dt, S(3, 5, 7, 6), 1, -3, 3, 1);
        slice_case(dt, S(3, 5, 7, 6), 0, 0, 3, 2);
        slice_case(dt, S(3, 5, 7, 6), 2, 1, 2, 3);
    }
    slice_case(RLX_F32, S(3, 5, 7, 6), 2, -1, 1, 1);
    slice_case(RLX_F32, S(3, 5, 7, 6), 1, 6, 1, 2);
    slice_case(RLX_F32, S(3, 5, 7, 6), 1, 0, 3, 3);
    slice_case(RLX_F32, S(3, 5, 7, 6), 0, -5, 5, 1);
    slice_case(RLX_F32, S(3, 5, 7, 6), 0, -2, 1, 3);
    slice_case(RLX_F32, S(1, 13), 0, -13, 5, 3);
    slice_case(RLX_F32, S(1, 4099), 0, 10, 1300, 3);
    slice_case(RLX_F32, S(2, 67, 33), 1, 1, 32, 1);
    slice_case(RLX_U8, S(2, 5, 7), 1, 1, 3, 2);
    slice_case(RLX_BOOL, S(2, 5, 7), 0, -4, 2, 3);
    slice_case(RLX_F32, S(3, 5, 7, 6), 0, 1, 3, 0);
    slice_case(RLX_F32, S(3, 5, 7, 6), 2, 2, 4, 0);
    slice_case(RLX_F32, S(3, 5, 7, 6), 1, -2, 2, 0);
    slice_case(RLX_F32, S(3, 5, 7, 6), 2, 5, 1, 0);
    slice_case(RLX_F64, S(2, 5, 7), 0, 0, 5, 0);
    slice_case(RLX_F32, S(1, 1031), 0, 31, 1000, 0);
    T_free_all();

    /* concat */
    {
        const shp c0[] = {SI(3, 1, 3, 4), SI(3, 2, 3, 4), SI(3, 3, 3, 4)};
        const shp c1[] = {SI(3, 2, 3, 4), SI(3, 2, 1, 4)};
        const shp c2[] = {SI(3, 2, 3, 4), SI(3, 2, 3, 1), SI(3, 2, 3, 5)};
        const shp c1b[] = {SI(3, 2, 1, 4), SI(3, 2, 1, 4), SI(3, 2, 3, 4)};
        const shp r1[] = {SI(1, 7), SI(1, 13)};
        const shp one[] = {SI(2, 3, 4)};
        const shp big[] = {SI(2, 500, 3), SI(2, 531, 3)};
        const shp bigc[] = {SI(2, 67, 20), SI(2, 67, 13)};
        for (k = 0; k < COUNT(layout_types); k++) concat_case(layout_types[k], 3, c0, 0);
        concat_case(RLX_F32, 2, c1, 1);
        concat_case(RLX_F32, 3, c2, 2);
        concat_case(RLX_F32, 3, c1b, 1);
        concat_case(RLX_I64, 3, c2, 2);
        concat_case(RLX_F16, 2, c1, 1);
        concat_case(RLX_F32, 2, r1, 0);
        concat_case(RLX_F32, 1, one, 1);
        concat_case(RLX_F32, 2, big, 0);
        concat_case(RLX_F32, 2, bigc, 1);
    }
    T_free_all();

    /* expand */
    for (k = 0; k < COUNT(layout_types); k++) expand_case(layout_types[k], S(2, 3, 1), S(3, 2, 3, 4));
    expand_case(RLX_F32, S(0), S(1, 5));
    expand_case(RLX_F32, S(0), S(0));
    expand_case(RLX_F32, S(3, 1, 1, 1), S(3, 2, 3, 4));
    expand_case(RLX_F32, S(1, 5), S(2, 4, 5));
    expand_case(RLX_F32, S(3, 4, 1, 1), S(3, 4, 3, 2));
    expand_case(RLX_F32, S(2, 2, 3), S(2, 2, 3));
    expand_case(RLX_F32, S(2, 1, 1031), S(3, 2, 3, 1031));
    expand_case(RLX_F32, S(2, 67, 1), S(3, 2, 67, 33));
    T_free_all();

    /* gather */
    {
        const int64_t i0[] = {2, 0, -1};
        const int64_t i1[] = {4, -1, 7, -9, 0, -5}; /* 7 and -9 are out of range for an axis of 5 */
        const int64_t i2[] = {-2};
        const int64_t i3[] = {12, 0, 5, -13, 13, 3};
        const int64_t iall[] = {0, 4, -1, -5, 5, -6}; /* 5 and -6 are out of range */
        int64_t* ibig = geni(300, -1000, 999);
        gather_run(RLX_F32, S(2, 4, 5), 0, RLX_I32, S(1, 3), i0);
        gather_run(RLX_F32, S(3, 3, 5, 2), 1, RLX_I64, S(2, 2, 3), i1);
        gather_run(RLX_F32, S(3, 3, 5, 2), 1, RLX_I32, S(2, 3, 2), i1);
        gather_run(RLX_F32, S(3, 3, 4, 6), 2, RLX_I64, S(0), i2);
        gather_run(RLX_F32, S(3, 3, 4, 6), 0, RLX_I32, S(0), i2);
        gather_run(RLX_F32, S(1, 13), 0, RLX_I32, S(1, 6), i3);
        gather_run(RLX_F32, S(1, 13), 0, RLX_I64, S(0), i3);
        gather_run(RLX_F32, S(2, 1000, 8), 0, RLX_I64, S(1, 300), ibig);
        {
            /* i64 indices outside the int32 range are out of range (read 0), not truncated */
            const int64_t huge[] = {4294967297LL, -4294967296LL, 1, (int64_t)1 << 40, INT64_MIN, INT64_MAX, -2};
            gather_run(RLX_F32, S(2, 5, 3), 0, RLX_I64, S(1, 7), huge);
            gather_run(RLX_I32, S(2, 3, 5), 1, RLX_I64, S(1, 7), huge);
        }
        gather_run(RLX_F32, S(2, 8, 1000), 1, RLX_I32, S(2, 3, 100), ibig);
        for (k = 0; k < COUNT(ALL_DTYPES); k++) {
            gather_run(ALL_DTYPES[k], S(3, 3, 5, 2), 1, RLX_I64, S(2, 2, 3), iall);
            gather_run(ALL_DTYPES[k], S(2, 5, 3), 0, RLX_I32, S(1, 6), iall);
            gather_run(ALL_DTYPES[k], S(2, 3, 5), 1, RLX_I32, S(0), iall + 3);
        }
    }
    T_free_all();
}

/* =============================================================================================================
   Rank 8 (RLX_MAX_RANK) through every kind of op
   ============================================================================================================= */

static void test_rank8(void) {
    const shp a8 = S(8, 2, 1, 2, 1, 2, 1, 2, 3), b7 = S(7, 2, 1, 2, 1, 2, 1, 3);
    const int perm[] = {7, 0, 6, 1, 5, 2, 4, 3}, axes[] = {1, 3, 5, -1}, ax7[] = {7};
    const shp cat[] = {SI(8, 2, 1, 2, 1, 2, 1, 1, 3), SI(8, 2, 1, 2, 1, 2, 1, 2, 3)};
    const int64_t idx[] = {1, -1, 0, 2, -3, 5};
    unary_case(&UNARY[2], RLX_F32, a8, 0);
    binary_case(&ARITH[0], RLX_F32, a8, b7, 0);
    binary_case(&ARITH[2], RLX_F32, b7, a8, 1);
    where_case(RLX_F32, S(8, 1, 1, 1, 1, 1, 1, 2, 1), a8, b7, 1);
    reduce_case(RLX_OP_SUM, RLX_F32, a8, 4, axes, 1);
    reduce_case(RLX_OP_REDUCE_MAX, RLX_F32, a8, 4, axes, 0);
    reduce_case(RLX_OP_MEAN, RLX_F32, a8, 0, NULL, 1);
    reduce_case(RLX_OP_SUM, RLX_F32, a8, 1, ax7, 0);
    argminmax_case(1, RLX_F32, a8, 6, 1);
    softmax_case(0, RLX_F32, a8, 7, -3, 3);
    softmax_case(1, RLX_F32, a8, 2, -3, 3);
    layernorm_case(RLX_F32, a8, 5, 3, 1e-5);
    rmsnorm_case(RLX_F32, a8, 3, 1e-5);
    matmul_case(RLX_F32, S(8, 2, 1, 2, 1, 2, 1, 3, 4), S(2, 4, 5));
    matmul_case(RLX_F32, S(8, 2, 1, 2, 1, 2, 1, 3, 4), S(7, 2, 1, 2, 1, 2, 4, 5));
    transpose_case(RLX_F32, a8, perm);
    transpose_case(RLX_I16, a8, NULL);
    slice_case(RLX_F32, a8, 6, -1, 1, 1);
    slice_case(RLX_F32, a8, 7, 0, 2, 2);
    concat_case(RLX_F32, 2, cat, 6);
    expand_case(RLX_F32, S(0), S(8, 2, 1, 2, 1, 2, 1, 2, 3));
    expand_case(RLX_F32, b7, S(8, 2, 2, 2, 2, 2, 2, 2, 3));
    reshape_case(RLX_F32, S(2, 6, 8), S(8, 2, 1, 2, 1, 2, 1, -1, 3), S(8, 2, 1, 2, 1, 2, 1, 2, 3), 1);
    gather_run(RLX_F32, S(7, 2, 1, 2, 1, 2, 4, 3), 5, RLX_I64, S(2, 2, 3), idx);
    gather_run(RLX_U8, S(8, 2, 1, 2, 1, 2, 1, 4, 3), 6, RLX_I32, S(0), idx);
    T_free_all();
}

/* =============================================================================================================
   Outputs that alias inputs, params, constants or each other
   ============================================================================================================= */

#define NVIEWS 13

static void test_views(void) {
    const shp s = S(2, 4, 6);
    const int64_t n = numel(s);
    const double* X[2];
    double* P = gen(RLX_F32, n, -5, 5);
    double* C = gen(RLX_F32, n, -5, 5);
    const int64_t r1[] = {3, 8}, rp[] = {24}, rc[] = {6, -1}, ex[] = {3, 4, 6};
    const int ident[] = {0, 1};
    const char* names[NVIEWS] = {"input", "reshape_in", "narrow_in", "transpose_id", "param", "reshape_param",
                                 "const", "reshape_const", "exp", "exp_again", "reshape_exp", "slice_in", "expand_in"};
    double* want[2][NVIEWS];
    shp shapes[NVIEWS];
    rlx_tensor outs[NVIEWS];
    int run, k;
    int64_t i;
    tcase t;
    rlx_tensor x, p, c, e;
    X[0] = gen(RLX_F32, n, -5, 5);
    X[1] = gen(RLX_F32, n, -5, 5);
    shapes[0] = s; shapes[1] = S(2, 3, 8); shapes[2] = S(2, 2, 6); shapes[3] = s; shapes[4] = s;
    shapes[5] = S(1, 24); shapes[6] = s; shapes[7] = S(2, 6, 4); shapes[8] = s; shapes[9] = s;
    shapes[10] = S(2, 3, 8); shapes[11] = S(2, 4, 2); shapes[12] = S(3, 3, 4, 6);
    for (run = 0; run < 2; run++) {
        double** w = want[run];
        for (k = 0; k < NVIEWS; k++) w[k] = D(numel(shapes[k]));
        for (i = 0; i < n; i++) {
            w[0][i] = w[1][i] = w[3][i] = X[run][i];
            w[4][i] = w[5][i] = P[i];
            w[6][i] = w[7][i] = C[i];
            w[8][i] = w[9][i] = w[10][i] = exp(X[run][i]);
            w[12][i] = w[12][n + i] = w[12][2 * n + i] = X[run][i];
        }
        for (i = 0; i < 12; i++) w[2][i] = X[run][6 + i];
        for (i = 0; i < 8; i++) w[11][i] = X[run][(i / 2) * 6 + 1 + 3 * (i % 2)];
    }

    tc_begin(&t, "outputs that alias inputs/params/constants");
    x = tc_in(&t, RLX_F32, s, X[0]);
    p = tc_par(&t, RLX_F32, s, P);
    c = tc_const(&t, RLX_F32, s, C);
    e = rlx_exp(t.g, x);
    outs[0] = x;
    outs[1] = rlx_reshape(t.g, x, 2, r1);
    outs[2] = rlx_narrow(t.g, x, 0, 1, 2);
    outs[3] = rlx_transpose(t.g, x, ident);
    outs[4] = p;
    outs[5] = rlx_reshape(t.g, p, 1, rp);
    outs[6] = c;
    outs[7] = rlx_reshape(t.g, c, 2, rc);
    outs[8] = e;
    outs[9] = e; /* one tensor under two names */
    outs[10] = rlx_reshape(t.g, e, 2, r1);
    outs[11] = rlx_slice(t.g, x, 1, 1, 2, 3);
    outs[12] = rlx_expand(t.g, x, 3, ex);
    for (k = 0; k < NVIEWS; k++) tc_out(&t, names[k], outs[k]);
    for (run = 0; run < 2; run++) {
        if (run == 0 && !tc_exec(&t)) break;
        if (run == 1) {
            /* new input values: every view of the input must follow */
            rlx_result r = rlx_set_input(t.p, "x0", RLX_F32, raw_of_f64(RLX_F32, X[1], n), (size_t)n * 4);
            if (r != RLX_OK) { tc_fail(&t, "rlx_set_input", r); break; }
            r = rlx_run(t.p);
            if (r != RLX_OK) { tc_fail(&t, "rlx_run", r); break; }
        }
        for (k = 0; k < NVIEWS; k++) {
            const int64_t m = numel(shapes[k]);
            const unsigned char* raw = (const unsigned char*)tc_get(&t, names[k], RLX_F32, m);
            double* got = D(m);
            char label[128];
            const void* ptr = NULL;
            rlx_dtype odt = RLX_DTYPE_INVALID;
            int orank = -1, same;
            int64_t osh[MAXR];
            rlx_result r;
            if (!raw) break;
            for (i = 0; i < m; i++) got[i] = dec(RLX_F32, raw + 4 * i);
            snprintf(label, sizeof label, "output %s %s (run %d)", names[k], SH(shapes[k]), run + 1);
            compare(label, shapes[k], got, want[run][k], k >= 8 && k <= 10 ? 1e-5 : 0, k >= 8 && k <= 10 ? 1e-5 : 0,
                    NULL);
            /* zero-copy access agrees */
            r = rlx_output_ptr(t.p, names[k], &ptr, &odt, &orank, osh);
            same = r == RLX_OK && ptr && memcmp(ptr, raw, (size_t)m * 4) == 0;
            TH_CHECK(same && odt == RLX_F32 && same_shape(shapes[k], orank, osh),
                     "rlx_output_ptr %s (run %d): result %s, dtype %s, shape %s, data %s", names[k], run + 1,
                     rlx_result_string(r), dn(odt), orank >= 0 ? fmt_dims(orank, osh) : "?", same ? "same" : "differs");
        }
    }
    tc_end(&t);
    T_free_all();
}

/* =============================================================================================================
   Chains: views (transpose, slice, expand, reshape) feeding compute ops, shared subexpressions and a small MLP,
   compiled with the default flags, with RLX_COMPILE_NO_REUSE and with RLX_COMPILE_NO_OPTIMIZE
   ============================================================================================================= */

static double* map1(const double* x, int64_t n, double (*f)(double)) {
    double* r = D(n);
    int64_t i;
    for (i = 0; i < n; i++) r[i] = f(x[i]);
    return r;
}

/* softmax / log_softmax of each row of an [m, n] array */
static double* rows_softmax(const double* x, int64_t m, int64_t n, int is_log) {
    double* r = D(m * n);
    int64_t i, j;
    for (i = 0; i < m; i++) {
        double mx = -HUGE_VAL, sum = 0;
        for (j = 0; j < n; j++) if (x[i * n + j] > mx) mx = x[i * n + j];
        for (j = 0; j < n; j++) sum += exp(x[i * n + j] - mx);
        for (j = 0; j < n; j++) r[i * n + j] = is_log ? x[i * n + j] - mx - log(sum) : exp(x[i * n + j] - mx) / sum;
    }
    return r;
}

static void chain_case(int which, const char* flags_name) {
    const rlx_dtype f = RLX_F32;
    tcase t;
    shp so, s1, s2;
    double *A, *B, *ref, *tmp, *sabs;
    rlx_tensor a, b, y;
    int64_t i, j;
    y.id = 0;
    switch (which) {
    case 0: { /* exp(transpose(x)) */
        A = gen(f, 91, -3, 3);
        tmp = ref_transpose(S(2, 7, 13), A, NULL, &so);
        ref = map1(tmp, 91, r_exp);
        tc_begin(&t, "chain exp(transpose(x[7,13])) (%s)", flags_name);
        y = rlx_exp(t.g, rlx_transpose(t.g, tc_in(&t, f, S(2, 7, 13), A), NULL));
        break;
    }
    case 1: { /* slice(x) + b, b broadcast */
        A = gen(f, 44, -3, 3);
        B = gen(f, 5, -3, 3);
        tmp = ref_slice(S(2, 4, 11), A, 1, 1, 5, 2, &so);
        ref = D(20);
        for (i = 0; i < 20; i++) ref[i] = tmp[i] + B[i % 5];
        tc_begin(&t, "chain slice(x[4,11], 1, 1, 5, 2) + b[5] (%s)", flags_name);
        a = tc_in(&t, f, S(2, 4, 11), A);
        b = tc_in(&t, f, S(1, 5), B);
        y = rlx_add(t.g, rlx_slice(t.g, a, 1, 1, 5, 2), b);
        break;
    }
    case 2: { /* matmul(transpose(a), b) */
        A = gen(f, 91, -1, 1);
        B = gen(f, 65, -1, 1);
        tmp = ref_transpose(S(2, 13, 7), A, NULL, &s1);
        so = ref_matmul(s1, tmp, S(2, 13, 5), B, &ref, &sabs);
        tc_begin(&t, "chain matmul(transpose(a[13,7]), b[13,5]) (%s)", flags_name);
        a = tc_in(&t, f, S(2, 13, 7), A);
        b = tc_in(&t, f, S(2, 13, 5), B);
        y = rlx_matmul(t.g, rlx_transpose(t.g, a, NULL), b);
        break;
    }
    case 3: { /* sum over the last axis of a transpose */
        const int perm[] = {2, 0, 1}, ax[] = {-1};
        A = gen(f, 60, -3, 3);
        tmp = ref_transpose(S(3, 3, 4, 5), A, perm, &s1);
        so = ref_reduce(RLX_OP_SUM, s1, tmp, 1, ax, 0, &ref, &sabs);
        tc_begin(&t, "chain sum(transpose(x[3,4,5], 201), -1) (%s)", flags_name);
        y = rlx_reduce_sum(t.g, rlx_transpose(t.g, tc_in(&t, f, S(3, 3, 4, 5), A), perm), 1, ax, 0);
        break;
    }
    case 4: { /* softmax of a narrowed view */
        A = gen(f, 60, -3, 3);
        tmp = ref_slice(S(2, 6, 10), A, 1, 2, 5, 1, &so);
        ref = rows_softmax(tmp, 6, 5, 0);
        tc_begin(&t, "chain softmax(narrow(x[6,10], 1, 2, 5), 1) (%s)", flags_name);
        y = rlx_softmax(t.g, rlx_narrow(t.g, tc_in(&t, f, S(2, 6, 10), A), 1, 2, 5), 1);
        break;
    }
    case 5: { /* neg(reshape(transpose(x))): the reshape of a non-contiguous view */
        const int64_t flat[1] = {12};
        A = gen(f, 12, -3, 3);
        tmp = ref_transpose(S(2, 3, 4), A, NULL, &s1);
        ref = map1(tmp, 12, r_neg);
        so = S(1, 12);
        tc_begin(&t, "chain neg(reshape(transpose(x[3,4]), [12])) (%s)", flags_name);
        y = rlx_neg(t.g, rlx_reshape(t.g, rlx_transpose(t.g, tc_in(&t, f, S(2, 3, 4), A), NULL), 1, flat));
        break;
    }
    case 6: { /* gather rows of a transpose */
        const int64_t idx[2] = {2, 0};
        A = gen(f, 15, -3, 3);
        tmp = ref_transpose(S(2, 5, 3), A, NULL, &s1);
        ref = D(10);
        for (j = 0; j < 5; j++) { ref[j] = tmp[2 * 5 + j]; ref[5 + j] = tmp[j]; }
        so = S(2, 2, 5);
        tc_begin(&t, "chain gather(transpose(x[5,3]), [2,0], 0) (%s)", flags_name);
        a = rlx_transpose(t.g, tc_in(&t, f, S(2, 5, 3), A), NULL);
        y = rlx_gather(t.g, a, tc_in_i(&t, RLX_I64, S(1, 2), idx), 0);
        break;
    }
    case 7: { /* expand(a) * transpose(b) */
        const int64_t to[2] = {3, 4};
        A = gen(f, 3, -3, 3);
        B = gen(f, 12, -3, 3);
        tmp = ref_transpose(S(2, 4, 3), B, NULL, &so);
        ref = D(12);
        for (i = 0; i < 12; i++) ref[i] = A[i / 4] * tmp[i];
        tc_begin(&t, "chain expand(a[3,1], [3,4]) * transpose(b[4,3]) (%s)", flags_name);
        a = rlx_expand(t.g, tc_in(&t, f, S(2, 3, 1), A), 2, to);
        y = rlx_mul(t.g, a, rlx_transpose(t.g, tc_in(&t, f, S(2, 4, 3), B), NULL));
        break;
    }
    case 8: { /* concat of a transpose and a strided slice */
        rlx_tensor parts[2];
        A = gen(f, 6, -3, 3);
        B = gen(f, 12, -3, 3);
        tmp = ref_transpose(S(2, 3, 2), A, NULL, &s1);
        ref = D(12);
        for (i = 0; i < 6; i++) ref[i] = tmp[i];
        tmp = ref_slice(S(2, 4, 3), B, 0, 0, 2, 2, &s2);
        for (i = 0; i < 6; i++) ref[6 + i] = tmp[i];
        so = S(2, 4, 3);
        tc_begin(&t, "chain concat(transpose(a[3,2]), slice(b[4,3], 0, 0, 2, 2)) (%s)", flags_name);
        parts[0] = rlx_transpose(t.g, tc_in(&t, f, S(2, 3, 2), A), NULL);
        parts[1] = rlx_slice(t.g, tc_in(&t, f, S(2, 4, 3), B), 0, 0, 2, 2);
        y = rlx_concat(t.g, 2, parts, 0);
        break;
    }
    case 9: { /* shared subexpressions: where(x > 0, sqrt(|x|), -x) + exp(x) + exp(x) */
        rlx_tensor x, zero;
        A = gen(f, 67, -3, 3);
        ref = D(67);
        for (i = 0; i < 67; i++) ref[i] = (A[i] > 0 ? sqrt(fabs(A[i])) : -A[i]) + 2 * exp(A[i]);
        so = S(1, 67);
        tc_begin(&t, "chain where(x > 0, sqrt(|x|), -x) + exp(x) + exp(x) (%s)", flags_name);
        x = tc_in(&t, f, so, A);
        zero = rlx_scalar(t.g, f, 0.0);
        y = rlx_where(t.g, rlx_gt(t.g, x, zero), rlx_sqrt(t.g, rlx_abs(t.g, x)), rlx_neg(t.g, x));
        y = rlx_add(t.g, rlx_add(t.g, y, rlx_exp(t.g, x)), rlx_exp(t.g, x));
        break;
    }
    case 10: { /* the same tensor used twice by one op: concat(x, x), x * x, where(c, x, x) */
        rlx_tensor x, parts[2];
        A = gen(f, 21, -3, 3);
        ref = D(42 + 21);
        for (i = 0; i < 21; i++) {
            ref[(i / 7) * 14 + i % 7] = ref[(i / 7) * 14 + 7 + i % 7] = A[i] * A[i] + A[i];
        }
        so = S(2, 3, 14);
        tc_begin(&t, "chain concat(x, x, 1) of x*x + where(x > 0, x, x) (%s)", flags_name);
        x = tc_in(&t, f, S(2, 3, 7), A);
        parts[0] = parts[1] = rlx_add(t.g, rlx_mul(t.g, x, x), rlx_where(t.g, rlx_gt(t.g, x, rlx_scalar(t.g, f, 0)), x, x));
        y = rlx_concat(t.g, 2, parts, 1);
        break;
    }
    case 11: case 12: { /* softmax / log_softmax with masked (-inf) entries, as in attention */
        A = gen(f, 4 * 9, -3, 3);
        for (i = 0; i < 36; i++) if (i % 9 > i / 9 + 3) A[i] = -HUGE_VAL; /* causal-style mask */
        ref = rows_softmax(A, 4, 9, which == 12);
        so = S(2, 4, 9);
        tc_begin(&t, "chain %s of rows with -inf entries (%s)", which == 12 ? "log_softmax" : "softmax", flags_name);
        a = tc_in(&t, f, so, A);
        y = which == 12 ? rlx_log_softmax(t.g, a, 1) : rlx_softmax(t.g, a, 1);
        break;
    }
    default: { /* a two-layer MLP: log_softmax(relu(x w1 + b1) w2 + b2) with params */
        double *X = gen(f, 5 * 13, -1, 1), *W1 = gen(f, 13 * 33, -1, 1), *B1 = gen(f, 33, -1, 1);
        double *W2 = gen(f, 33 * 7, -1, 1), *B2 = gen(f, 7, -1, 1), *h, *z;
        rlx_tensor xt, w1, b1, w2, b2;
        (void)ref_matmul(S(2, 5, 13), X, S(2, 13, 33), W1, &h, &sabs);
        for (i = 0; i < 5 * 33; i++) h[i] = r_relu(h[i] + B1[i % 33]);
        (void)ref_matmul(S(2, 5, 33), h, S(2, 33, 7), W2, &z, &sabs);
        for (i = 0; i < 5 * 7; i++) z[i] += B2[i % 7];
        ref = rows_softmax(z, 5, 7, 1);
        so = S(2, 5, 7);
        tc_begin(&t, "chain mlp log_softmax(relu(x[5,13] w1 + b1) w2 + b2) (%s)", flags_name);
        xt = tc_in(&t, f, S(2, 5, 13), X);
        w1 = tc_par(&t, f, S(2, 13, 33), W1);
        b1 = tc_par(&t, f, S(1, 33), B1);
        w2 = tc_par(&t, f, S(2, 33, 7), W2);
        b2 = tc_par(&t, f, S(1, 7), B2);
        y = rlx_relu(t.g, rlx_add(t.g, rlx_matmul(t.g, xt, w1), b1));
        y = rlx_log_softmax(t.g, rlx_add(t.g, rlx_matmul(t.g, y, w2), b2), 1);
        break;
    }
    }
    tc_expect(&t, y, f, so, ref, 1e-5, 1e-5, NULL);
}

static void test_chains(void) {
    const uint32_t flags[3] = {0, RLX_COMPILE_NO_REUSE, RLX_COMPILE_NO_OPTIMIZE};
    const char* names[3] = {"default", "no reuse", "no optimize"};
    int k, w;
    for (k = 0; k < 3; k++) {
        g_flags = flags[k];
        for (w = 0; w <= 13; w++) chain_case(w, names[k]);
    }
    g_flags = 0;
    T_free_all();
}

/* =============================================================================================================
   Thread counts: the same big cases with num_threads = 1 and 2 must agree with the reference and each other
   ============================================================================================================= */

static void big_case(int which) {
    static const binary_def* add = &ARITH[0];
    const int axes[] = {0};
    switch (which) {
    case 0: matmul_case(RLX_F32, S(2, 65, 127), S(2, 127, 33)); break;
    case 1: matmul_case(RLX_F32, S(3, 3, 33, 65), S(2, 65, 67)); break;
    case 2: unary_case(&UNARY[2], RLX_F32, S(1, 4099), 0); break;
    case 3: unary_case(&UNARY[13], RLX_F32, S(2, 33, 131), 0); break;
    case 4: binary_case(add, RLX_F32, S(3, 2, 1, 33), S(2, 67, 1), 0); break;
    case 5: reduce_case(RLX_OP_SUM, RLX_F32, S(2, 67, 130), 1, axes, 0); break;
    case 6: softmax_case(0, RLX_F32, S(2, 16, 130), 1, -5, 5); break;
    case 7: layernorm_case(RLX_F32, S(2, 64, 130), 1, 3, 1e-5); break;
    case 8: transpose_case(RLX_F32, S(2, 33, 67), NULL); break;
    case 9: argminmax_case(1, RLX_F32, S(2, 67, 130), 1, 0); break;
    default: break;
    }
}

static void test_threads(void) {
    const int nbig = 10, threads[3] = {1, 2, 5};
    int w, k;
    for (w = 0; w < nbig; w++) {
        double* res[3] = {NULL, NULL, NULL};
        int64_t nres[3] = {0, 0, 0};
        for (k = 0; k < 3; k++) {
            th_seed(1000 + (uint64_t)w); /* same data for every thread count */
            g_threads = threads[k];
            g_capture = 1;
            big_case(w);
            res[k] = g_captured;
            nres[k] = g_captured_n;
            g_captured = NULL;
            g_captured_n = 0;
        }
        g_threads = 0;
        g_capture = 0;
        for (k = 1; k < 3; k++) {
            int64_t i, diff = -1;
            if (!res[0] || !res[k]) continue; /* the case itself failed and was counted */
            for (i = 0; i < nres[0] && nres[0] == nres[k]; i++)
                if (memcmp(&res[0][i], &res[k][i], sizeof(double)) != 0) { diff = i; break; }
            TH_CHECK(nres[0] == nres[k] && diff < 0,
                     "big case %d: num_threads 1 and %d give different results (first at flat %lld: %.10g vs %.10g)",
                     w, threads[k], (long long)diff, diff >= 0 ? res[0][diff] : 0.0, diff >= 0 ? res[k][diff] : 0.0);
        }
        for (k = 0; k < 3; k++) free(res[k]);
        T_free_all();
    }
}

/* ============================================================================================================= */

/* f32 pow with exponent 2 is the exactly rounded square on the CPU: checked bit for bit against the double
   product rounded once (exact: 24-bit mantissas), with a scalar exponent, an exponent tensor of 2s and inside a
   fused elementwise chain; zeros, subnormals, overflow, infinities and NaN included. */
static void test_pow_square(void) {
    enum { N = 1003 };
    static float x[N], two[N], y[N];
    int64_t shape[1] = {N};
    int form, i;
    for (i = 0; i < N; i++) {
        x[i] = (float)th_uniform(-3.0, 3.0) * (float)pow(10.0, (double)(i % 9) * 5.0 - 20.0);
        two[i] = 2.0f;
    }
    x[0] = 0.0f; x[1] = -0.0f; x[2] = 1e-30f; x[3] = -1.5e-38f; x[4] = 3e19f; x[5] = -2e20f; x[6] = INFINITY;
    x[7] = -INFINITY; x[8] = NAN; x[9] = 1.0000001f; x[10] = 16777215.0f;
    for (form = 0; form < 3; form++) {
        rlx_graph* g = rlx_graph_create(NULL);
        rlx_program* p = NULL;
        rlx_compile_desc cd;
        rlx_tensor tx = rlx_input(g, "x", RLX_F32, 1, shape), ty;
        int bad = -1, ok;
        if (form == 0) ty = rlx_pow(g, tx, rlx_scalar(g, RLX_F32, 2.0));
        else if (form == 1) ty = rlx_pow(g, tx, rlx_input(g, "two", RLX_F32, 1, shape));
        else ty = rlx_mul(g, rlx_pow(g, rlx_neg(g, tx), rlx_scalar(g, RLX_F32, 2.0)), rlx_scalar(g, RLX_F32, 1.0));
        rlx_output(g, "y", ty);
        memset(&cd, 0, sizeof cd);
        cd.device = RLX_DEVICE_CPU;
        ok = rlx_compile(g, &cd, &p) == RLX_OK && rlx_set_input_f32(p, "x", x, N) == RLX_OK &&
             (form != 1 || rlx_set_input_f32(p, "two", two, N) == RLX_OK) && rlx_run(p) == RLX_OK &&
             rlx_get_output_f32(p, "y", y, N) == RLX_OK;
        TH_CHECK(ok, "pow square form %d: %s", form, p ? rlx_program_error(p) : rlx_graph_error(g));
        for (i = 0; ok && i < N && bad < 0; i++) {
            float want = (float)((double)x[i] * (double)x[i]);
            uint32_t a, b;
            memcpy(&a, &y[i], 4);
            memcpy(&b, &want, 4);
            if (a != b && !(y[i] != y[i] && want != want)) bad = i;
        }
        TH_CHECK(ok && bad < 0, "pow square form %d: x = %.9g gives %.9g, want %.9g", form, bad >= 0 ? x[bad] : 0.0,
                 bad >= 0 ? y[bad] : 0.0, bad >= 0 ? (float)((double)x[bad] * x[bad]) : 0.0);
        rlx_program_destroy(p);
        rlx_graph_destroy(g);
    }
}

int main(void) {
    th_seed(12345);
    test_pow_square();
    test_helpers();
    test_unary();
    test_binary();
    test_where();
    test_cast();
    test_matmul();
    test_reduce();
    test_norm();
    test_layout();
    test_rank8();
    test_views();
    test_chains();
    test_threads();
    int_division_overflow();
    T_free_all();
    free(scratch);
    return th_summary("ops");
}
