/* test_backends.c - the op × backend table: every op builder, run on every GPU backend (CUDA, HIP, Vulkan) and
   compared with the CPU backend, which is the reference.

   Each case builds one small graph once (its inputs, params and states filled from a fixed seed), compiles it
   for the CPU and runs it for the reference outputs, then compiles the same graph for each GPU backend with
   RLX_COMPILE_NO_FALLBACK, checks that the program really is on that backend, runs it and compares every
   output (and every state, after every run of cases that run twice):
     - integer and bool outputs, and float outputs of ops that only move or select data (layout ops, gather,
       where, cast, pad, nearest resize, max pooling, topk, ...), must be equal;
     - other float outputs must agree within a tolerance that depends on the op class and the dtype
       (|got − want| <= atol + mag·max|want| + rtol·|want|, see tol_for);
     - NaN and ±inf must agree everywhere.
   A backend that rlx_devices reports unavailable skips every case (reported once, with the reason); a skipped
   case is never counted as passed. A compile or run failure on an available backend is a failure, except a
   compile that fails with RLX_ERROR_UNSUPPORTED (the device lacks a feature the case's kernels need, or
   RLX_VULKAN_HIDE_FEATURES hides it): that case is skipped and the reason printed.

   usage: test_backends [FAMILY|NAME-SUBSTRING|all] [cuda|hip|vulkan|cpu-decomposed]
          runs one family of cases ("cast", "matmul", ...: the list is printed at the end), or the cases whose
          name contains the substring (names look like "binary/add/bcast/f16"), on one backend only when a
          second argument is given.
   env:   RLX_TEST_VERBOSE=1    one line per case with its result on each backend (2: also the first values of
                                every reference output).
          RLX_TEST_SELFCHECK=1  checks the comparison itself: adds the pseudo-backend "cpu-decomposed" (the CPU
                                with RLX_COMPILE_NO_OPTIMIZE | RLX_COMPILE_DECOMPOSE, which must pass), and for
                                every case checks that a perturbed copy of the reference (one element moved by
                                1e-2 plus twice the tolerance, or by 1 for integers; one element made NaN)
                                fails. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../rlx.h"
#include "harness.h"

#include <stdarg.h>
#include <stdlib.h>

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define MAX_SRC 12
#define MAX_OUT 6
#define MAX_RUNS 2
#define MAX_RES (2 * MAX_OUT * MAX_RUNS)

/* =============================================================================================================
   Shapes, dtypes
   ============================================================================================================= */

typedef struct shp { int rank; int64_t d[RLX_MAX_RANK]; } shp;

/* S(rank, d0, d1, ...): a shape from int dims (S(0) is a scalar). A macro over an int array, not a variadic
   function: tcc 0.9.27 on x86-64 reads the variadic arguments of a function that returns a struct in memory one
   register early. */
#define S(...) s_from((const int[]){__VA_ARGS__})
static shp s_from(const int* rank_dims) {
    shp s;
    int i;
    memset(&s, 0, sizeof s);
    s.rank = rank_dims[0];
    for (i = 0; i < s.rank; i++) s.d[i] = rank_dims[1 + i];
    return s;
}
static shp shape_of(int rank, const int* d) {
    shp s;
    int i;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    for (i = 0; i < rank; i++) s.d[i] = d[i];
    return s;
}
static shp shape_of64(int rank, const int64_t* d) {
    shp s;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    memcpy(s.d, d, sizeof(int64_t) * (size_t)rank);
    return s;
}
static size_t numel(shp s) {
    size_t n = 1;
    int i;
    for (i = 0; i < s.rank; i++) n *= (size_t)s.d[i];
    return n;
}

#define DT(t) (1u << (unsigned)(t))
#define FLOATS (DT(RLX_F32) | DT(RLX_F16) | DT(RLX_BF16) | DT(RLX_F64))
#define SINTS (DT(RLX_I8) | DT(RLX_I16) | DT(RLX_I32) | DT(RLX_I64))
#define UINTS (DT(RLX_U8) | DT(RLX_U32))
#define NUMS (FLOATS | SINTS | UINTS)
#define F32_ DT(RLX_F32)
#define HALVES (DT(RLX_F16) | DT(RLX_BF16))

static const rlx_dtype all_dts[] = {RLX_F32, RLX_F16, RLX_BF16, RLX_F64, RLX_I8, RLX_I16,
                                    RLX_I32, RLX_I64, RLX_U8,  RLX_U32, RLX_BOOL};

static int is_float(rlx_dtype t) { return t == RLX_F32 || t == RLX_F16 || t == RLX_BF16 || t == RLX_F64; }
static int is_unsigned(rlx_dtype t) { return t == RLX_U8 || t == RLX_U32 || t == RLX_BOOL; }

/* the full value range of an integer dtype (i64: ±2^62, still exact in a double) */
static void int_range(rlx_dtype t, double* lo, double* hi) {
    switch (t) {
    case RLX_I8: *lo = -128; *hi = 127; break;
    case RLX_I16: *lo = -32768; *hi = 32767; break;
    case RLX_I32: *lo = -2147483648.0; *hi = 2147483647.0; break;
    case RLX_I64: *lo = -4611686018427387904.0; *hi = 4611686018427387904.0; break;
    case RLX_U8: *lo = 0; *hi = 255; break;
    case RLX_U32: *lo = 0; *hi = 4294967295.0; break;
    default: *lo = 0; *hi = 1; break;
    }
}

/* =============================================================================================================
   Cases and the build context
   ============================================================================================================= */

/* tolerance classes */
enum { T_EXACT, T_EW, T_TRANS, T_ACC, T_ACC32 /* accumulates in f32 whatever the dtype (attention) */ };

/* input generators */
enum {
    G_UNIFORM,  /* floats uniform in [lo, hi); integer dtypes: integers in [lo, hi]                         */
    G_INT,      /* integers in [lo, hi] in any dtype (ties for comparisons, argmax, topk)                    */
    G_NZ,       /* magnitude in [lo, hi], random sign (unsigned dtypes: no sign)                             */
    G_SPECIAL,  /* G_UNIFORM with every fifth element NaN, +inf, -inf or 0                                   */
    G_NEGINF,   /* G_UNIFORM with every fourth element -inf                                                  */
    G_HALVES,   /* every other element a multiple of 0.5 in [-10, 10] (rounding ties), else G_UNIFORM        */
    G_CASTSRC,  /* values that exercise float→int/float conversion: specials, halves, every saturation range */
    G_KEEP,     /* bool: the first `lo` elements false (a fully masked row), then about 70% true             */
    G_VALUES    /* explicit values (per run when enough are given)                                           */
};

enum { SRC_INPUT, SRC_PARAM, SRC_STATE };

typedef struct src {
    const char* name;
    int kind;
    rlx_dtype dt;
    size_t n;
    double* data[MAX_RUNS];   /* inputs get fresh values on every run; params and states are set once */
} src;

typedef struct outspec { const char* name; rlx_dtype dt; size_t n; } outspec;

typedef struct bctx {
    rlx_graph* g;
    src srcs[MAX_SRC];
    int nsrc;
    outspec out[MAX_OUT];
    int nout;
    outspec state[MAX_OUT];
    int nstate;
    int runs;
    int overflow;   /* a case registered more sources or outputs than fit (a bug in this file) */
} bctx;

typedef struct tcase tcase;
typedef void (*build_fn)(bctx* c, const tcase* tc);
struct tcase {
    char name[80];
    const char* family;
    build_fn build;
    int op;         /* which entry of the family's table (or an rlx_op / rlx_dtype, see the builder) */
    rlx_dtype dt;
    int v;          /* variant */
    int w;          /* modifier */
    int tol;
};

static tcase* cases;
static int ncases, capcases;

static void add_case(const char* family, build_fn fn, int op, rlx_dtype dt, int v, int w, int tol, const char* fmt, ...) {
    tcase* t;
    va_list ap;
    if (ncases == capcases) {
        capcases = capcases ? 2 * capcases : 256;
        cases = (tcase*)realloc(cases, sizeof(tcase) * (size_t)capcases);
        if (!cases) { fputs("out of memory\n", stderr); exit(1); }
    }
    t = &cases[ncases++];
    memset(t, 0, sizeof *t);
    t->family = family;
    t->build = fn;
    t->op = op;
    t->dt = dt;
    t->v = v;
    t->w = w;
    t->tol = tol;
    va_start(ap, fmt);
    vsnprintf(t->name, sizeof t->name, fmt, ap);
    va_end(ap);
}

static const rlx_tensor none_t = {0};

static double gen_value(int gen, rlx_dtype dt, size_t i, double lo, double hi) {
    static const double special[4] = {NAN, INFINITY, TH_NEG_INF, 0.0};
    static const double cast_special[5] = {NAN, INFINITY, TH_NEG_INF, -0.0, 0.5};
    double sg = (th_rng() & 1) ? -1.0 : 1.0, v;
    switch (gen) {
    case G_INT:
        v = floor(th_uniform(lo, hi + 1));
        return v > hi ? hi : v;
    case G_NZ:
        if (!is_float(dt)) return (is_unsigned(dt) ? 1.0 : sg) * gen_value(G_INT, dt, i, lo, hi);
        return sg * th_uniform(lo, hi);
    case G_SPECIAL:
        if (i % 5 == 2) return special[(i / 5) % 4];
        return th_uniform(lo, hi);
    case G_NEGINF:
        if (i % 4 == 1) return -INFINITY;
        return th_uniform(lo, hi);
    case G_HALVES:
        if (i % 2 == 0) return floor(th_uniform(-20, 21)) / 2;
        return th_uniform(lo, hi);
    case G_CASTSRC:
        switch (i % 8) {
        case 0: return cast_special[(i / 8) % 5];
        case 1: return floor(th_uniform(-20, 21)) / 2;    /* ties */
        case 2: return th_uniform(-3, 3);
        case 3: return th_uniform(-300, 300);             /* i8/u8 saturation */
        case 4: return sg * th_uniform(3e4, 7e4);         /* i16 saturation, f16 overflow */
        case 5: return sg * th_uniform(1e9, 1e10);        /* i32/u32 saturation */
        case 6: return sg * th_uniform(1e18, 1e20);       /* i64 saturation */
        default: return sg * ((i / 8) % 2 ? 1e300 : 1e-30); /* f32 overflow and underflow */
        }
    case G_KEEP: return (double)i < lo ? 0.0 : (th_uniform(0, 1) < 0.7 ? 1.0 : 0.0);
    default:
        if (is_float(dt)) return th_uniform(lo, hi);
        return gen_value(G_INT, dt, i, lo, hi);
    }
}

static rlx_tensor add_src(bctx* c, int kind, const char* name, rlx_dtype dt, shp s, int gen, double lo, double hi,
                          const double* vals, size_t nvals) {
    src* q;
    size_t i;
    int r;
    if (c->nsrc == MAX_SRC || (kind == SRC_STATE && c->nstate == MAX_OUT)) { c->overflow = 1; return none_t; }
    q = &c->srcs[c->nsrc++];
    q->name = name;
    q->kind = kind;
    q->dt = dt;
    q->n = numel(s);
    for (r = 0; r < MAX_RUNS; r++) {
        q->data[r] = (double*)malloc(sizeof(double) * q->n);
        if (!q->data[r]) { fputs("out of memory\n", stderr); exit(1); }
        for (i = 0; i < q->n; i++) {
            if (gen == G_VALUES) q->data[r][i] = nvals >= q->n * (size_t)(r + 1) ? vals[(size_t)r * q->n + i] : vals[i % nvals];
            else q->data[r][i] = gen_value(gen, dt, i, lo, hi);
        }
    }
    if (kind == SRC_PARAM) return rlx_param(c->g, name, dt, s.rank, s.d);
    if (kind == SRC_STATE) {
        outspec* o = &c->state[c->nstate++];
        o->name = name;
        o->dt = dt;
        o->n = q->n;
        return rlx_state(c->g, name, dt, s.rank, s.d);
    }
    return rlx_input(c->g, name, dt, s.rank, s.d);
}

/* inputs: uniform values (integers for integer dtypes), a generator, the full range of the dtype, given values */
static rlx_tensor in(bctx* c, const char* name, rlx_dtype dt, shp s, double lo, double hi) {
    return add_src(c, SRC_INPUT, name, dt, s, G_UNIFORM, lo, hi, NULL, 0);
}
static rlx_tensor in_gen(bctx* c, const char* name, rlx_dtype dt, shp s, int gen, double lo, double hi) {
    return add_src(c, SRC_INPUT, name, dt, s, gen, lo, hi, NULL, 0);
}
static rlx_tensor in_full(bctx* c, const char* name, rlx_dtype dt, shp s) {
    double lo = -4, hi = 4;
    if (!is_float(dt)) int_range(dt, &lo, &hi);
    return in(c, name, dt, s, lo, hi);
}
static rlx_tensor in_vals(bctx* c, const char* name, rlx_dtype dt, shp s, const double* v, size_t nv) {
    return add_src(c, SRC_INPUT, name, dt, s, G_VALUES, 0, 0, v, nv);
}
static rlx_tensor param(bctx* c, const char* name, rlx_dtype dt, shp s, double lo, double hi) {
    return add_src(c, SRC_PARAM, name, dt, s, G_UNIFORM, lo, hi, NULL, 0);
}
static rlx_tensor state(bctx* c, const char* name, rlx_dtype dt, shp s, double lo, double hi) {
    return add_src(c, SRC_STATE, name, dt, s, G_UNIFORM, lo, hi, NULL, 0);
}
/* a float-or-int input: floats uniform in [lo, hi), integers over their full range */
static rlx_tensor in_any(bctx* c, const char* name, rlx_dtype dt, shp s, double lo, double hi) {
    return is_float(dt) ? in(c, name, dt, s, lo, hi) : in_full(c, name, dt, s);
}

static void out(bctx* c, const char* name, rlx_tensor t) {
    int rank = 0;
    int64_t sh[RLX_MAX_RANK];
    rlx_dtype dt = rlx_tensor_info(c->g, t, &rank, sh);
    rlx_output(c->g, name, t);
    if (dt == RLX_DTYPE_INVALID) return; /* the builder error surfaces at compile */
    if (c->nout == MAX_OUT) { c->overflow = 1; return; }
    c->out[c->nout].name = name;
    c->out[c->nout].dt = dt;
    c->out[c->nout].n = numel(shape_of64(rank, sh));
    c->nout++;
}

static void ctx_free(bctx* c) {
    int k, r;
    for (k = 0; k < c->nsrc; k++)
        for (r = 0; r < MAX_RUNS; r++) free(c->srcs[k].data[r]);
    rlx_graph_destroy(c->g);
    memset(c, 0, sizeof *c);
}

/* =============================================================================================================
   Builders, one per op family, each with its table of variants
   ============================================================================================================= */

/* ---- unary ---- */
typedef rlx_tensor (*unary_fn)(rlx_graph*, rlx_tensor);
static const struct unary_def {
    const char* name;
    rlx_op op;
    unary_fn fn;
    double lo, hi;
    int tol;
    unsigned dts;
} unary_defs[] = {
    {"neg", RLX_OP_NEG, rlx_neg, -4, 4, T_EW, FLOATS | SINTS},
    {"abs", RLX_OP_ABS, rlx_abs, -4, 4, T_EW, FLOATS | SINTS},
    {"exp", RLX_OP_EXP, rlx_exp, -4, 4, T_TRANS, FLOATS},
    {"log", RLX_OP_LOG, rlx_log, 0.05, 6, T_TRANS, FLOATS},
    {"sqrt", RLX_OP_SQRT, rlx_sqrt, 0, 9, T_TRANS, FLOATS},
    {"rsqrt", RLX_OP_RSQRT, rlx_rsqrt, 0.05, 9, T_TRANS, FLOATS},
    {"sin", RLX_OP_SIN, rlx_sin, -6, 6, T_TRANS, FLOATS},
    {"cos", RLX_OP_COS, rlx_cos, -6, 6, T_TRANS, FLOATS},
    {"tan", RLX_OP_TAN, rlx_tan, -1.4, 1.4, T_TRANS, FLOATS},
    {"atan", RLX_OP_ATAN, rlx_atan, -5, 5, T_TRANS, FLOATS},
    {"tanh", RLX_OP_TANH, rlx_tanh, -4, 4, T_TRANS, FLOATS},
    {"sigmoid", RLX_OP_SIGMOID, rlx_sigmoid, -8, 8, T_TRANS, FLOATS},
    {"relu", RLX_OP_RELU, rlx_relu, -4, 4, T_EW, FLOATS | SINTS},
    {"gelu", RLX_OP_GELU, rlx_gelu, -4, 4, T_TRANS, FLOATS},
    {"gelu_tanh", RLX_OP_GELU_TANH, rlx_gelu_tanh, -4, 4, T_TRANS, FLOATS},
    {"silu", RLX_OP_SILU, rlx_silu, -6, 6, T_TRANS, FLOATS},
    {"erf", RLX_OP_ERF, rlx_erf, -3, 3, T_TRANS, FLOATS},
    {"round", RLX_OP_ROUND, rlx_round, -10, 10, T_EW, FLOATS},
    {"floor", RLX_OP_FLOOR, rlx_floor, -5, 5, T_EW, FLOATS},
    {"ceil", RLX_OP_CEIL, rlx_ceil, -5, 5, T_EW, FLOATS},
};
enum { UV_PLAIN, UV_SPECIAL, UV_BIG, UV_GENERIC, UV_COUNT };
static const char* const uv_names[UV_COUNT] = {"3x1x17", "special", "big", "generic"};

static void b_unary(bctx* c, const tcase* tc) {
    const struct unary_def* u = &unary_defs[tc->op];
    double m = fabs(u->lo) > fabs(u->hi) ? fabs(u->lo) : fabs(u->hi);
    int gen = (u->op == RLX_OP_ROUND || u->op == RLX_OP_FLOOR || u->op == RLX_OP_CEIL) ? G_HALVES : G_UNIFORM;
    rlx_tensor x;
    if (tc->v == UV_SPECIAL) x = in_gen(c, "x", tc->dt, S(2, 5, 13), G_SPECIAL, -m, m);
    else if (tc->v == UV_BIG) x = in_gen(c, "x", tc->dt, S(1, 70001), gen, u->lo, u->hi);
    else if (!is_float(tc->dt)) x = in_full(c, "x", tc->dt, S(3, 3, 1, 17));
    else x = in_gen(c, "x", tc->dt, S(3, 3, 1, 17), gen, u->lo, u->hi);
    out(c, "y", tc->v == UV_GENERIC ? rlx_unary(c->g, u->op, x) : u->fn(c->g, x));
}

/* ---- binary and comparisons ---- */
typedef rlx_tensor (*binary_fn)(rlx_graph*, rlx_tensor, rlx_tensor);
enum { ID_FULL, ID_DIV, ID_POW, ID_SMALL }; /* integer operand domains */
static const struct binary_def {
    const char* name;
    rlx_op op;
    binary_fn fn;
    int ga; double alo, ahi;   /* float operand a */
    int gb; double blo, bhi;   /* float operand b */
    double scalar;             /* the rank-0 constant of the scalar variant */
    int idom;
    int tol;
    unsigned dts;
} binary_defs[] = {
    {"add", RLX_OP_ADD, rlx_add, G_UNIFORM, -4, 4, G_UNIFORM, -4, 4, 1.5, ID_FULL, T_EW, NUMS},
    {"sub", RLX_OP_SUB, rlx_sub, G_UNIFORM, -4, 4, G_UNIFORM, -4, 4, 1.5, ID_FULL, T_EW, NUMS},
    {"mul", RLX_OP_MUL, rlx_mul, G_UNIFORM, -4, 4, G_UNIFORM, -4, 4, 1.5, ID_FULL, T_EW, NUMS},
    {"div", RLX_OP_DIV, rlx_div, G_UNIFORM, -4, 4, G_NZ, 0.25, 3, 0.75, ID_DIV, T_EW, NUMS},
    {"pow", RLX_OP_POW, rlx_pow, G_UNIFORM, 0.1, 3, G_UNIFORM, -2, 2, 1.5, ID_POW, T_TRANS, NUMS},
    {"max", RLX_OP_MAX, rlx_max, G_UNIFORM, -4, 4, G_UNIFORM, -4, 4, 0.5, ID_FULL, T_EXACT, NUMS},
    {"min", RLX_OP_MIN, rlx_min, G_UNIFORM, -4, 4, G_UNIFORM, -4, 4, 0.5, ID_FULL, T_EXACT, NUMS},
    {"eq", RLX_OP_EQ, rlx_eq, G_INT, -3, 3, G_INT, -3, 3, 1, ID_SMALL, T_EXACT, NUMS | DT(RLX_BOOL)},
    {"ne", RLX_OP_NE, rlx_ne, G_INT, -3, 3, G_INT, -3, 3, 1, ID_SMALL, T_EXACT, NUMS | DT(RLX_BOOL)},
    {"lt", RLX_OP_LT, rlx_lt, G_INT, -3, 3, G_INT, -3, 3, 1, ID_SMALL, T_EXACT, NUMS},
    {"le", RLX_OP_LE, rlx_le, G_INT, -3, 3, G_INT, -3, 3, 1, ID_SMALL, T_EXACT, NUMS},
    {"gt", RLX_OP_GT, rlx_gt, G_INT, -3, 3, G_INT, -3, 3, 1, ID_SMALL, T_EXACT, NUMS},
    {"ge", RLX_OP_GE, rlx_ge, G_INT, -3, 3, G_INT, -3, 3, 1, ID_SMALL, T_EXACT, NUMS},
};
enum { BV_BCAST, BV_BOTH, BV_SCALAR, BV_RANK0, BV_GENERIC, BV_SPECIAL, BV_BIG, BV_COUNT };
static const char* const bv_names[BV_COUNT] = {"bcast", "bcast_both", "scalar", "rank0_lhs", "generic", "special", "big"};

static rlx_tensor binary_operand(bctx* c, const struct binary_def* d, const char* name, int second, rlx_dtype dt, shp s) {
    int uns = is_unsigned(dt);
    double lo, hi;
    if (is_float(dt))
        return second ? in_gen(c, name, dt, s, d->gb, d->blo, d->bhi) : in_gen(c, name, dt, s, d->ga, d->alo, d->ahi);
    int_range(dt, &lo, &hi);
    switch (d->idom) {
    case ID_DIV: if (second) { lo = uns ? 0 : -5; hi = 5; } break;   /* zeros included: x/0 = 0 */
    case ID_POW: lo = uns ? 0 : (second ? -1 : -4); hi = second ? 6 : 4; break; /* negative exponents give 0 */
    case ID_SMALL: lo = uns ? 0 : -3; hi = dt == RLX_BOOL ? 1 : 3; break;
    default: break;                                                  /* full range: overflow wraps */
    }
    return in_gen(c, name, dt, s, G_INT, lo, hi);
}

static void b_binary(bctx* c, const tcase* tc) {
    const struct binary_def* d = &binary_defs[tc->op];
    rlx_dtype dt = tc->dt;
    rlx_tensor a, b;
    switch (tc->v) {
    case BV_BOTH: a = binary_operand(c, d, "a", 0, dt, S(2, 1, 5)); b = binary_operand(c, d, "b", 1, dt, S(2, 4, 1)); break;
    case BV_SCALAR: a = binary_operand(c, d, "a", 0, dt, S(2, 4, 6)); b = rlx_scalar(c->g, dt, d->scalar); break;
    case BV_RANK0: a = binary_operand(c, d, "a", 0, dt, S(0)); b = binary_operand(c, d, "b", 1, dt, S(2, 3, 4)); break;
    case BV_SPECIAL:
        a = in_gen(c, "a", dt, S(2, 6, 7), G_SPECIAL, -4, 4);
        b = in_gen(c, "b", dt, S(2, 6, 7), G_SPECIAL, -4, 4);
        break;
    case BV_BIG: a = binary_operand(c, d, "a", 0, dt, S(2, 300, 257)); b = binary_operand(c, d, "b", 1, dt, S(1, 257)); break;
    case BV_GENERIC: a = binary_operand(c, d, "a", 0, dt, S(2, 7, 9)); b = binary_operand(c, d, "b", 1, dt, S(2, 7, 9)); break;
    default: a = binary_operand(c, d, "a", 0, dt, S(3, 2, 3, 5)); b = binary_operand(c, d, "b", 1, dt, S(2, 3, 1)); break;
    }
    out(c, "y", tc->v == BV_GENERIC ? rlx_binary(c->g, d->op, a, b) : d->fn(c->g, a, b));
}

/* ---- where ---- */
static void b_where(bctx* c, const tcase* tc) {
    rlx_dtype dt = tc->dt;
    rlx_tensor cond, a, b;
    if (tc->v == 0) {
        cond = in(c, "cond", RLX_BOOL, S(3, 2, 1, 5), 0, 1);
        a = in_any(c, "a", dt, S(2, 3, 1), -4, 4);
        b = in_any(c, "b", dt, S(3, 2, 3, 5), -4, 4);
    } else if (tc->v == 1) {
        cond = in(c, "cond", RLX_BOOL, S(2, 4, 6), 0, 1);
        a = rlx_scalar(c->g, dt, 2.0);
        b = in_any(c, "b", dt, S(2, 4, 6), -4, 4);
    } else { /* cond computed in the graph: where(a > b, a, b) = max(a, b) */
        a = in(c, "a", dt, S(2, 9, 10), -4, 4);
        b = in(c, "b", dt, S(1, 10), -4, 4);
        cond = rlx_gt(c->g, a, b);
    }
    out(c, "y", rlx_where(c->g, cond, a, b));
}

/* ---- cast: tc->dt is the source dtype, tc->op the target ---- */
static void b_cast(bctx* c, const tcase* tc) {
    rlx_tensor x = is_float(tc->dt) ? in_gen(c, "x", tc->dt, S(2, 5, 13), G_CASTSRC, 0, 0) : in_full(c, "x", tc->dt, S(2, 5, 13));
    out(c, "y", rlx_cast(c->g, x, (rlx_dtype)tc->op));
}

/* ---- matmul ---- */
static const struct mm_def {
    const char* name;
    int ra, a[4], rb, b[4];
    int transb;   /* b is given as [N, K] and transposed in the graph */
    unsigned dts;
} mm_defs[] = {
    {"5x7x3", 2, {5, 7}, 2, {7, 3}, 0, NUMS & ~(DT(RLX_I16) | DT(RLX_U32))},
    {"1x1x1", 2, {1, 1}, 2, {1, 1}, 0, F32_},
    {"k1", 2, {3, 1}, 2, {1, 4}, 0, F32_},
    {"batch_bcast", 4, {2, 1, 3, 4}, 3, {3, 4, 5}, 0, FLOATS | DT(RLX_I32)},
    {"vec_a", 1, {7}, 3, {2, 7, 3}, 0, F32_},
    {"vec_b", 2, {4, 7}, 1, {7}, 0, F32_ | DT(RLX_I32)},
    {"dot", 1, {33}, 1, {33}, 0, F32_ | DT(RLX_F64)},
    {"130x67x129", 2, {130, 67}, 2, {67, 129}, 0, FLOATS},
    {"256x256x256", 2, {256, 256}, 2, {256, 256}, 0, F32_},
    {"gemv_1x300x200", 2, {1, 300}, 2, {300, 200}, 0, F32_ | DT(RLX_F16)},
    {"batched_3x33x65x17", 3, {3, 33, 65}, 3, {3, 65, 17}, 0, F32_ | DT(RLX_BF16)},
    {"64x64x64", 2, {64, 64}, 2, {64, 64}, 0, HALVES | DT(RLX_I32)},
    {"transposed_b", 2, {9, 20}, 2, {11, 20}, 1, F32_},
};

static void b_matmul(bctx* c, const tcase* tc) {
    const struct mm_def* d = &mm_defs[tc->op];
    rlx_tensor a = in_any(c, "a", tc->dt, shape_of(d->ra, d->a), -1, 1);
    rlx_tensor b = in_any(c, "b", tc->dt, shape_of(d->rb, d->b), -1, 1);
    if (d->transb) b = rlx_transpose(c->g, b, NULL);
    out(c, "y", rlx_matmul(c->g, a, b));
}

/* ---- reductions ---- */
typedef rlx_tensor (*reduce_fn)(rlx_graph*, rlx_tensor, int, const int*, int);
static const struct reduce_def { const char* name; rlx_op op; reduce_fn fn; } reduce_defs[] = {
    {"sum", RLX_OP_SUM, rlx_reduce_sum},
    {"mean", RLX_OP_MEAN, rlx_reduce_mean},
    {"max", RLX_OP_REDUCE_MAX, rlx_reduce_max},
    {"min", RLX_OP_REDUCE_MIN, rlx_reduce_min},
    {"prod", RLX_OP_PROD, rlx_reduce_prod},
};
static const struct red_axes { const char* name; int rank, shape[3], naxes, axes[3], keep; } red_sets[] = {
    {"all", 3, {3, 5, 7}, 0, {0}, 0},
    {"last", 3, {3, 5, 7}, 1, {-1}, 0},
    {"first_keep", 3, {3, 5, 7}, 1, {0}, 1},
    {"axes0,2", 3, {3, 5, 7}, 2, {0, 2}, 0},
    {"mid_keep", 3, {3, 5, 7}, 1, {1}, 1},
    {"axes2,0_keep", 3, {3, 5, 7}, 2, {2, 0}, 1},
    {"size1", 3, {4, 1, 9}, 1, {1}, 0},
    {"rows_64x1000", 2, {64, 1000}, 1, {-1}, 0},
    {"cols_1000x64", 2, {1000, 64}, 1, {0}, 0},
    {"all_100003", 1, {100003}, 0, {0}, 0},
};
enum { RW_PLAIN, RW_SPECIAL, RW_GENERIC };

static void b_reduce(bctx* c, const tcase* tc) {
    const struct reduce_def* d = &reduce_defs[tc->op];
    const struct red_axes* a = &red_sets[tc->v];
    shp s = shape_of(a->rank, a->shape);
    int prod = d->op == RLX_OP_PROD;
    rlx_tensor x;
    if (tc->dt == RLX_BOOL) x = in(c, "x", tc->dt, s, 0, 1);
    else if (tc->w == RW_SPECIAL) x = in_gen(c, "x", tc->dt, s, G_SPECIAL, prod ? 0.8 : -2, prod ? 1.25 : 2);
    else if (prod) x = is_float(tc->dt) ? in(c, "x", tc->dt, s, 0.8, 1.25) : in_gen(c, "x", tc->dt, s, G_NZ, 1, 3);
    else x = in_any(c, "x", tc->dt, s, -2, 2);
    out(c, "y", tc->w == RW_GENERIC ? rlx_reduce(c->g, d->op, x, a->naxes, a->axes, a->keep)
                                    : d->fn(c->g, x, a->naxes, a->axes, a->keep));
}

/* ---- argmax / argmin: tc->op is RLX_OP_ARGMAX or RLX_OP_ARGMIN ---- */
static const struct arg_def { const char* name; int rank, shape[3], axis, keep; } arg_defs[] = {
    {"axis0", 3, {4, 6, 5}, 0, 0},
    {"axis1_keep", 3, {4, 6, 5}, 1, 1},
    {"last", 3, {4, 6, 5}, -1, 0},
    {"row_3000", 2, {8, 3000}, -1, 0},
};
static void b_arg(bctx* c, const tcase* tc) {
    const struct arg_def* d = &arg_defs[tc->v];
    shp s = shape_of(d->rank, d->shape);
    rlx_tensor x;
    if (tc->w) x = in_gen(c, "x", tc->dt, s, G_SPECIAL, -3, 3);
    else if (tc->v == 3) x = in_any(c, "x", tc->dt, s, -3, 3);
    else x = in_gen(c, "x", tc->dt, s, G_INT, is_unsigned(tc->dt) ? 0 : -3, 3); /* many ties */
    out(c, "y", tc->op == RLX_OP_ARGMAX ? rlx_argmax(c->g, x, d->axis, d->keep) : rlx_argmin(c->g, x, d->axis, d->keep));
}

/* ---- softmax / log_softmax: tc->op is RLX_OP_SOFTMAX or RLX_OP_LOG_SOFTMAX ---- */
static const struct sm_def { const char* name; int rank, shape[3], axis, gen; } sm_defs[] = {
    {"last", 3, {4, 3, 33}, -1, G_UNIFORM},
    {"axis0", 3, {4, 3, 33}, 0, G_UNIFORM},
    {"axis1", 3, {4, 3, 33}, 1, G_UNIFORM},
    {"row_1000", 2, {5, 1000}, -1, G_UNIFORM},
    {"width1", 2, {7, 1}, -1, G_UNIFORM},
    {"neginf", 2, {6, 9}, -1, G_NEGINF},
};
static void b_softmax(bctx* c, const tcase* tc) {
    const struct sm_def* d = &sm_defs[tc->v];
    rlx_tensor x = in_gen(c, "x", tc->dt, shape_of(d->rank, d->shape), d->gen, -6, 6);
    out(c, "y", tc->op == RLX_OP_SOFTMAX ? rlx_softmax(c->g, x, d->axis) : rlx_log_softmax(c->g, x, d->axis));
}

/* ---- layernorm / rmsnorm: tc->op is RLX_OP_LAYERNORM or RLX_OP_RMSNORM (rmsnorm ignores axis) ---- */
static const struct norm_def { const char* name; int rank, shape[3], axis, gamma, beta; } norm_defs[] = {
    {"gamma_beta", 3, {3, 4, 17}, -1, 1, 1},
    {"gamma_axis1", 3, {3, 4, 17}, 1, 1, 0},
    {"beta_axis2", 3, {3, 4, 17}, 2, 0, 1},
    {"plain", 3, {3, 4, 17}, -1, 0, 0},
    {"gamma_beta_axis0", 3, {3, 4, 17}, 0, 1, 1},
    {"row_2048", 2, {4, 2048}, -1, 1, 1},
    {"row_5000", 2, {2, 5000}, -1, 1, 1},   /* beyond the GPUs' register rows */
    {"width1", 2, {5, 1}, -1, 1, 1},
};
static void b_norm(bctx* c, const tcase* tc) {
    const struct norm_def* d = &norm_defs[tc->v];
    int axis = d->axis < 0 ? d->axis + d->rank : d->axis;
    shp xs = shape_of(d->rank, d->shape);
    shp ps = tc->op == RLX_OP_RMSNORM ? S(1, d->shape[d->rank - 1]) : shape_of(d->rank - axis, d->shape + axis);
    rlx_tensor x = in(c, "x", tc->dt, xs, 0.5, 3); /* a mean far from 0 stresses the variance */
    rlx_tensor g = d->gamma ? in(c, "gamma", tc->dt, ps, 0.5, 1.5) : none_t;
    rlx_tensor b = d->beta ? in(c, "beta", tc->dt, ps, -1, 1) : none_t;
    out(c, "y", tc->op == RLX_OP_RMSNORM ? rlx_rmsnorm(c->g, x, g, b, 1e-5f) : rlx_layernorm(c->g, x, g, b, d->axis, 1e-5f));
}

/* ---- layout ops: tc->op is the rlx_op (RLX_OP_SLICE also covers narrow) ---- */
static void b_layout(bctx* c, const tcase* tc) {
    rlx_graph* g = c->g;
    rlx_dtype dt = tc->dt;
    rlx_tensor x, y = none_t;
    switch (tc->op) {
    case RLX_OP_RESHAPE: {
        int64_t s1[2] = {4, -1}, s2[1] = {30}, s3[2] = {5, 12};
        int perm[3] = {2, 0, 1};
        if (tc->v == 0) y = rlx_reshape(g, in_any(c, "x", dt, S(3, 2, 3, 4), -4, 4), 2, s1);
        else if (tc->v == 1) y = rlx_reshape(g, in_any(c, "x", dt, S(3, 6, 1, 5), -4, 4), 1, s2);
        else y = rlx_reshape(g, rlx_transpose(g, in_any(c, "x", dt, S(3, 3, 4, 5), -4, 4), perm), 2, s3);
        break;
    }
    case RLX_OP_TRANSPOSE: {
        int p0[4] = {2, 0, 3, 1}, p2[4] = {3, 1, 2, 0}, p3[2] = {1, 0};
        if (tc->v == 0) y = rlx_transpose(g, in_any(c, "x", dt, S(4, 2, 3, 4, 5), -4, 4), p0);
        else if (tc->v == 1) y = rlx_transpose(g, in_any(c, "x", dt, S(2, 3, 7), -4, 4), NULL);
        else if (tc->v == 2) y = rlx_transpose(g, in_any(c, "x", dt, S(4, 1, 5, 1, 7), -4, 4), p2);
        else if (tc->v == 3) y = rlx_transpose(g, in_any(c, "x", dt, S(2, 33, 65), -4, 4), p3);
        else y = rlx_add(g, rlx_transpose(g, in(c, "x", dt, S(2, 6, 5), -4, 4), NULL), in(c, "z", dt, S(2, 5, 6), -4, 4));
        break;
    }
    case RLX_OP_SLICE:
        if (tc->v == 0) y = rlx_slice(g, in_any(c, "x", dt, S(3, 3, 9, 4), -4, 4), 1, -7, 3, 3);
        else if (tc->v == 1) y = rlx_narrow(g, in_any(c, "x", dt, S(3, 4, 3, 2), -4, 4), 0, 1, 2);
        else if (tc->v == 2) y = rlx_slice(g, in_any(c, "x", dt, S(2, 5, 7), -4, 4), -1, 0, 2, 3);
        else y = rlx_add(g, rlx_narrow(g, in(c, "x", dt, S(2, 8, 6), -4, 4), 0, 3, 4), in(c, "z", dt, S(2, 4, 6), -4, 4));
        break;
    case RLX_OP_CONCAT: {
        rlx_tensor xs[3];
        int axis;
        if (tc->v == 0) {
            xs[0] = in_any(c, "x0", dt, S(3, 2, 3, 4), -4, 4);
            xs[1] = in_any(c, "x1", dt, S(3, 2, 1, 4), -4, 4);
            xs[2] = in_any(c, "x2", dt, S(3, 2, 5, 4), -4, 4);
            y = rlx_concat(g, 3, xs, 1);
            break;
        }
        if (tc->v == 1) { xs[0] = in_any(c, "x0", dt, S(2, 3, 5), -4, 4); y = rlx_concat(g, 1, xs, 0); break; }
        if (tc->v == 2) {
            xs[0] = in_any(c, "x0", dt, S(2, 1, 3), -4, 4);
            xs[1] = in_any(c, "x1", dt, S(2, 4, 3), -4, 4);
            axis = 0;
        } else {
            xs[0] = in_any(c, "x0", dt, S(3, 2, 2, 3), -4, 4);
            xs[1] = in_any(c, "x1", dt, S(3, 2, 2, 1), -4, 4);
            axis = -1;
        }
        y = rlx_concat(g, 2, xs, axis);
        break;
    }
    case RLX_OP_EXPAND: {
        int64_t e0[3] = {2, 3, 5}, e1[2] = {4, 6}, e2[2] = {3, 2}, e3[3] = {2, 4, 3};
        if (tc->v == 0) y = rlx_expand(g, in_any(c, "x", dt, S(2, 3, 1), -4, 4), 3, e0);
        else if (tc->v == 1) y = rlx_expand(g, in_any(c, "x", dt, S(1, 1), -4, 4), 2, e1);
        else if (tc->v == 2) y = rlx_expand(g, in_any(c, "x", dt, S(0), -4, 4), 2, e2);
        else y = rlx_expand(g, in_any(c, "x", dt, S(3, 1, 4, 1), -4, 4), 3, e3);
        break;
    }
    default: /* gather: indices include negative and out-of-range values (which read 0) */
        if (tc->v == 0) {
            x = in_any(c, "x", dt, S(3, 5, 6, 3), -4, 4);
            y = rlx_gather(g, x, in(c, "idx", RLX_I32, S(2, 2, 4), -8, 7), 1);
        } else if (tc->v == 1) {
            x = in_any(c, "x", dt, S(2, 7, 4), -4, 4);
            y = rlx_gather(g, x, in(c, "idx", RLX_I64, S(1, 9), -9, 8), 0);
        } else if (tc->v == 2) {
            double minus1 = -1;
            x = in_any(c, "x", dt, S(3, 2, 3, 4), -4, 4);
            y = rlx_gather(g, x, in_vals(c, "idx", RLX_I32, S(0), &minus1, 1), -1);
        } else {
            x = in_any(c, "x", dt, S(3, 2, 3, 5), -4, 4);
            y = rlx_gather(g, x, in(c, "idx", RLX_I64, S(2, 3, 2), -6, 5), 2);
        }
        break;
    }
    out(c, "y", y);
}

/* ---- attention ---- */
static const struct att_def {
    const char* name;
    rlx_layout layout;
    int B, H, Hkv, Sq, Sk, D, Dv, causal, window;
    int mask;      /* 0 none, 1 keep_mask [B, Sk], 2 keep_mask [B, Sq, Sk] whose first row is all false */
    int bias;      /* 0 none, 1 bias [1, H, Sq, Sk], 2 bias [Sq, Sk]                                   */
    int kv_len;    /* 0 none; > 0 an i32 input, < 0 an i64 input of -kv_len                             */
    float scale, softcap;
} att_defs[] = {
    {"bhsd", RLX_LAYOUT_BHSD, 2, 4, 4, 5, 7, 8, 8, 0, 0, 0, 0, 0, 0, 0},
    {"bshd_gqa_causal", RLX_LAYOUT_BSHD, 2, 4, 2, 5, 7, 16, 8, 1, 0, 0, 0, 0, 0, 0},
    {"bhsd_gqa_window3", RLX_LAYOUT_BHSD, 1, 8, 2, 9, 9, 8, 8, 1, 3, 0, 0, 0, 0, 0},
    {"mask_bsk_bias", RLX_LAYOUT_BHSD, 2, 2, 2, 4, 6, 8, 8, 0, 0, 1, 1, 0, 0, 0},
    {"mask_bqk_softcap_masked_row", RLX_LAYOUT_BSHD, 2, 3, 3, 4, 5, 4, 6, 0, 0, 2, 0, 0, 0.3f, 5.0f},
    {"decode_kvlen_i32", RLX_LAYOUT_BHSD, 2, 4, 1, 1, 16, 8, 8, 1, 0, 0, 0, 9, 0, 0},
    {"kvlen_i64_masked_rows", RLX_LAYOUT_BSHD, 1, 2, 2, 4, 8, 8, 8, 1, 0, 0, 0, -3, 0, 0},
    {"bias2d", RLX_LAYOUT_BHSD, 1, 2, 2, 3, 5, 8, 8, 0, 0, 0, 2, 0, 0, 0},
    {"long_64x300_gqa", RLX_LAYOUT_BHSD, 1, 4, 2, 64, 300, 64, 64, 1, 0, 0, 0, 0, 0, 0},
    {"long_bshd_mask", RLX_LAYOUT_BSHD, 2, 2, 2, 33, 129, 32, 32, 0, 0, 1, 0, 0, 0, 0},
};
static void b_attention(bctx* c, const tcase* tc) {
    const struct att_def* d = &att_defs[tc->op];
    rlx_attention_desc ad;
    rlx_dtype dt = tc->dt;
    int bshd = d->layout == RLX_LAYOUT_BSHD;
    rlx_tensor q, k, v;
    memset(&ad, 0, sizeof ad);
    ad.layout = d->layout;
    ad.num_heads = d->H;
    ad.num_kv_heads = bshd ? d->Hkv : 0;
    ad.causal = d->causal;
    ad.window = d->window;
    ad.scale = d->scale;
    ad.softcap = d->softcap;
    if (bshd) {
        q = in(c, "q", dt, S(3, d->B, d->Sq, d->H * d->D), -2, 2);
        k = in(c, "k", dt, S(3, d->B, d->Sk, d->Hkv * d->D), -2, 2);
        v = in(c, "v", dt, S(3, d->B, d->Sk, d->Hkv * d->Dv), -1, 1);
    } else {
        q = in(c, "q", dt, S(4, d->B, d->H, d->Sq, d->D), -2, 2);
        k = in(c, "k", dt, S(4, d->B, d->Hkv, d->Sk, d->D), -2, 2);
        v = in(c, "v", dt, S(4, d->B, d->Hkv, d->Sk, d->Dv), -1, 1);
    }
    if (d->mask == 1) ad.keep_mask = in(c, "keep", RLX_BOOL, S(2, d->B, d->Sk), 0, 1);
    if (d->mask == 2) ad.keep_mask = in_gen(c, "keep", RLX_BOOL, S(3, d->B, d->Sq, d->Sk), G_KEEP, d->Sk, 0);
    if (d->bias == 1) ad.bias = in(c, "bias", dt, S(4, 1, d->H, d->Sq, d->Sk), -1, 1);
    if (d->bias == 2) ad.bias = in(c, "bias", dt, S(2, d->Sq, d->Sk), -1, 1);
    if (d->kv_len) {
        double n = d->kv_len > 0 ? d->kv_len : -d->kv_len;
        ad.kv_len = in_vals(c, "kv_len", d->kv_len > 0 ? RLX_I32 : RLX_I64, S(0), &n, 1);
    }
    out(c, "y", rlx_attention(c->g, q, k, v, &ad));
}

/* ---- rope ---- */
static const struct rope_def {
    const char* name;
    rlx_rope_kind kind;
    rlx_layout layout;
    int B, H, S, D, n_rot, P;
    int positions;   /* 0: position_offset + s; 1: i32 [S]; 2: i64 [B, S] (both with out-of-range values) */
    int offset;
} rope_defs[] = {
    {"neox_bhsd", RLX_ROPE_NEOX, RLX_LAYOUT_BHSD, 2, 3, 5, 8, 0, 5, 0, 0},
    {"gptj_bshd_partial_offset2", RLX_ROPE_GPTJ, RLX_LAYOUT_BSHD, 2, 3, 5, 8, 4, 8, 0, 2},
    {"neox_positions_i32", RLX_ROPE_NEOX, RLX_LAYOUT_BSHD, 1, 2, 6, 6, 6, 8, 1, 0},
    {"gptj_positions_i64", RLX_ROPE_GPTJ, RLX_LAYOUT_BHSD, 2, 2, 4, 10, 8, 6, 2, 0},
    {"offset_past_table", RLX_ROPE_NEOX, RLX_LAYOUT_BHSD, 1, 1, 4, 4, 0, 5, 0, 3},
    {"big_bshd", RLX_ROPE_NEOX, RLX_LAYOUT_BSHD, 1, 8, 64, 64, 0, 64, 0, 0},
};
static void b_rope(bctx* c, const tcase* tc) {
    const struct rope_def* d = &rope_defs[tc->op];
    static const double pos_i32[6] = {-1, 0, 3, 7, 8, 2};
    int nrot = d->n_rot ? d->n_rot : d->D;
    rlx_rope_desc rd;
    rlx_tensor x, cs, sn;
    memset(&rd, 0, sizeof rd);
    rd.kind = d->kind;
    rd.layout = d->layout;
    rd.num_heads = d->H;
    rd.n_rot = d->n_rot;
    rd.position_offset = d->offset;
    x = d->layout == RLX_LAYOUT_BSHD ? in(c, "x", tc->dt, S(3, d->B, d->S, d->H * d->D), -2, 2)
                                     : in(c, "x", tc->dt, S(4, d->B, d->H, d->S, d->D), -2, 2);
    cs = in(c, "cos", tc->dt, S(2, d->P, nrot / 2), -1, 1);
    sn = in(c, "sin", tc->dt, S(2, d->P, nrot / 2), -1, 1);
    if (d->positions == 1) rd.positions = in_vals(c, "pos", RLX_I32, S(1, d->S), pos_i32, 6);
    if (d->positions == 2) rd.positions = in(c, "pos", RLX_I64, S(2, d->B, d->S), -2, d->P + 1);
    out(c, "y", rlx_rope(c->g, x, cs, sn, &rd));
}

/* ---- cumsum ---- */
static const struct cs_def { const char* name; int rank, shape[3], axis, exclusive, reverse; } cs_defs[] = {
    {"axis1", 3, {3, 17, 4}, 1, 0, 0},
    {"axis1_exclusive", 3, {3, 17, 4}, 1, 1, 0},
    {"axis1_reverse", 3, {3, 17, 4}, 1, 0, 1},
    {"axis1_exclusive_reverse", 3, {3, 17, 4}, 1, 1, 1},
    {"axis0", 3, {3, 17, 4}, 0, 0, 0},
    {"last", 3, {3, 17, 4}, -1, 0, 0},
    {"row_5000", 2, {2, 5000}, -1, 0, 0},
    {"single", 1, {1}, 0, 1, 0},
};
static void b_cumsum(bctx* c, const tcase* tc) {
    const struct cs_def* d = &cs_defs[tc->v];
    rlx_tensor x = in_any(c, "x", tc->dt, shape_of(d->rank, d->shape), -1, 1);
    out(c, "y", rlx_cumsum(c->g, x, d->axis, d->exclusive, d->reverse));
}

/* ---- topk ---- */
static const struct topk_def {
    const char* name;
    int rank, shape[2], k, axis, largest;
    int outs;   /* 1 values, 2 indices, 3 both */
    int gen;    /* G_INT: many ties; G_SPECIAL: NaN and ±inf */
} topk_defs[] = {
    {"k3_ties", 2, {4, 20}, 3, -1, 1, 3, G_INT},
    {"k1", 2, {4, 20}, 1, -1, 1, 3, G_INT},
    {"k_all", 2, {4, 20}, 20, -1, 1, 3, G_UNIFORM},
    {"smallest_k4", 2, {4, 20}, 4, 1, 0, 3, G_INT},
    {"axis0", 2, {9, 5}, 4, 0, 1, 3, G_UNIFORM},
    {"values_only", 2, {4, 20}, 5, -1, 1, 1, G_UNIFORM},
    {"indices_only", 2, {4, 20}, 5, -1, 1, 2, G_UNIFORM},
    {"special", 2, {4, 20}, 5, -1, 1, 3, G_SPECIAL},
    {"smallest_special", 2, {4, 20}, 6, -1, 0, 3, G_SPECIAL},
    {"row_2000_k10", 2, {3, 2000}, 10, -1, 1, 3, G_UNIFORM},
};
static void b_topk(bctx* c, const tcase* tc) {
    const struct topk_def* d = &topk_defs[tc->v];
    shp s = shape_of(d->rank, d->shape);
    rlx_tensor x, vals = none_t, idx = none_t;
    if (d->gen == G_INT) x = in_gen(c, "x", tc->dt, s, G_INT, is_unsigned(tc->dt) ? 0 : -3, 3);
    else if (d->gen == G_SPECIAL) x = in_gen(c, "x", tc->dt, s, G_SPECIAL, -3, 3);
    else x = in_any(c, "x", tc->dt, s, -3, 3);
    rlx_topk(c->g, x, d->k, d->axis, d->largest, (d->outs & 1) ? &vals : NULL, (d->outs & 2) ? &idx : NULL);
    if (d->outs & 1) out(c, "values", vals);
    if (d->outs & 2) out(c, "indices", idx);
}

/* ---- sample (runs twice with counters 7 and 8) ---- */
static const struct sample_def {
    const char* name;
    int rank, shape[3];
    float temperature;
    int top_k;
    float top_p;
    int gen;
} sample_defs[] = {
    {"greedy_ties", 2, {3, 50}, 0.0f, 0, 0.0f, G_INT},
    {"temp0.8", 2, {3, 50}, 0.8f, 0, 0.0f, G_UNIFORM},
    {"temp1_topk5", 2, {3, 50}, 1.0f, 5, 0.0f, G_UNIFORM},
    {"temp0.7_topp0.9", 2, {3, 50}, 0.7f, 0, 0.9f, G_UNIFORM},
    {"temp1.3_topk20_topp0.5", 2, {3, 50}, 1.3f, 20, 0.5f, G_UNIFORM},
    {"rank3_v1000_topp0.95", 3, {2, 1, 1000}, 1.0f, 0, 0.95f, G_UNIFORM},
    {"v32000_topk40", 2, {2, 32000}, 1.0f, 40, 0.0f, G_UNIFORM},
    {"topk1", 2, {1, 7}, 0.5f, 1, 0.0f, G_UNIFORM},
};
static void b_sample(bctx* c, const tcase* tc) {
    const struct sample_def* d = &sample_defs[tc->v];
    static const double counters[2] = {7, 8};
    rlx_sample_desc sd;
    shp s = shape_of(d->rank, d->shape);
    rlx_tensor x = d->gen == G_INT ? in_gen(c, "logits", tc->dt, s, G_INT, -3, 3) : in(c, "logits", tc->dt, s, -3, 3);
    rlx_tensor counter = in_vals(c, "counter", RLX_I64, S(0), counters, 2);
    memset(&sd, 0, sizeof sd);
    sd.temperature = d->temperature;
    sd.top_k = d->top_k;
    sd.top_p = d->top_p;
    sd.seed = 0x5EED0000u + (unsigned)tc->v;
    c->runs = 2;
    out(c, "tokens", rlx_sample(c->g, x, counter, &sd));
}

/* ---- conv / conv_transpose ---- */
static const struct conv_def {
    const char* name;
    int transpose, spatial;   /* 1 or 2 spatial dims */
    int N, C, H, W, O, KH, KW, groups;
    int stride[2], dil[2], pb[2], pe[2], outpad[2];
    int bias;
} conv_defs[] = {
    {"conv1d_s2_d2_pad", 0, 1, 2, 4, 15, 1, 6, 3, 1, 1, {2, 0}, {2, 0}, {1, 0}, {2, 0}, {0, 0}, 1},
    {"conv2d_3x3_pad1", 0, 2, 2, 3, 9, 11, 4, 3, 3, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, 1},
    {"conv2d_stride_dil_asym", 0, 2, 1, 3, 10, 9, 5, 3, 2, 1, {2, 1}, {1, 2}, {0, 1}, {1, 2}, {0, 0}, 0},
    {"conv2d_groups2", 0, 2, 1, 4, 7, 7, 6, 3, 3, 2, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, 1},
    {"conv2d_depthwise", 0, 2, 2, 4, 6, 5, 4, 3, 3, 4, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, 0},
    {"conv2d_1x1", 0, 2, 2, 16, 5, 5, 8, 1, 1, 1, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, 0},
    {"conv2d_32to16_20x20", 0, 2, 1, 32, 20, 20, 16, 3, 3, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, 1},
    {"convT_s2_pad1_outpad1", 1, 2, 1, 4, 5, 6, 3, 3, 3, 1, {2, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 1},
    {"convT_groups2_s2", 1, 2, 2, 4, 4, 4, 4, 2, 2, 2, {2, 2}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, 0},
    {"convT_dil2_asym", 1, 2, 1, 2, 5, 5, 3, 3, 3, 1, {1, 1}, {2, 2}, {2, 0}, {0, 1}, {0, 0}, 1},
};
static void b_conv(bctx* c, const tcase* tc) {
    const struct conv_def* d = &conv_defs[tc->op];
    rlx_conv_desc cd;
    rlx_tensor x, w, b = none_t;
    int i;
    memset(&cd, 0, sizeof cd);
    for (i = 0; i < 2; i++) {
        cd.stride[i] = d->stride[i];
        cd.dilation[i] = d->dil[i];
        cd.pad_begin[i] = d->pb[i];
        cd.pad_end[i] = d->pe[i];
        cd.output_padding[i] = d->outpad[i];
    }
    cd.groups = d->groups;
    if (d->spatial == 1) {
        x = in(c, "x", tc->dt, S(3, d->N, d->C, d->H), -1, 1);
        w = in(c, "w", tc->dt, S(3, d->O, d->C / d->groups, d->KH), -1, 1);
    } else {
        x = in(c, "x", tc->dt, S(4, d->N, d->C, d->H, d->W), -1, 1);
        w = d->transpose ? in(c, "w", tc->dt, S(4, d->C, d->O / d->groups, d->KH, d->KW), -1, 1)
                         : in(c, "w", tc->dt, S(4, d->O, d->C / d->groups, d->KH, d->KW), -1, 1);
    }
    if (d->bias) b = in(c, "bias", tc->dt, S(1, d->O), -1, 1);
    out(c, "y", d->transpose ? rlx_conv_transpose(c->g, x, w, b, &cd) : rlx_conv(c->g, x, w, b, &cd));
}

/* ---- pooling ---- */
static const struct pool_def {
    const char* name;
    rlx_pool_kind kind;
    int rank, shape[4], kernel[2], stride[2], pb[2], pe[2], include_pad, global;
} pool_defs[] = {
    {"max2d_k3s2p1", RLX_POOL_MAX, 4, {2, 3, 9, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 0, 0},
    {"avg2d_k2s2_incl_pad", RLX_POOL_AVG, 4, {1, 2, 7, 7}, {2, 2}, {2, 2}, {1, 1}, {0, 0}, 1, 0},
    {"avg2d_k3s1_excl_pad", RLX_POOL_AVG, 4, {1, 2, 6, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 0, 0},
    {"global_avg", RLX_POOL_AVG, 4, {2, 3, 5, 6}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, 0, 1},
    {"global_max", RLX_POOL_MAX, 4, {2, 3, 5, 6}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, 0, 1},
    {"max1d_k3s1", RLX_POOL_MAX, 3, {2, 3, 10}, {3, 0}, {1, 0}, {0, 0}, {0, 0}, 0, 0},
    {"avg1d_k4s3_excl_pad", RLX_POOL_AVG, 3, {2, 2, 11}, {4, 0}, {3, 0}, {1, 0}, {2, 0}, 0, 0},
};
static void b_pool(bctx* c, const tcase* tc) {
    const struct pool_def* d = &pool_defs[tc->op];
    rlx_pool_desc pd;
    int i;
    memset(&pd, 0, sizeof pd);
    pd.kind = d->kind;
    for (i = 0; i < 2; i++) {
        pd.kernel[i] = d->kernel[i];
        pd.stride[i] = d->stride[i];
        pd.pad_begin[i] = d->pb[i];
        pd.pad_end[i] = d->pe[i];
    }
    pd.count_include_pad = d->include_pad;
    pd.global = d->global;
    out(c, "y", rlx_pool(c->g, in(c, "x", tc->dt, shape_of(d->rank, d->shape), -2, 2), &pd));
}

/* ---- group_norm ---- */
static const struct gn_def { const char* name; int rank, shape[4], groups, gamma, beta; } gn_defs[] = {
    {"g3_gamma_beta", 4, {2, 6, 5, 4}, 3, 1, 1},
    {"g1_plain", 4, {2, 6, 5, 4}, 1, 0, 0},
    {"g6_gamma", 4, {2, 6, 5, 4}, 6, 1, 0},
    {"1d_g2_beta", 3, {2, 4, 9}, 2, 0, 1},
    {"32ch_16x16_g8", 4, {1, 32, 16, 16}, 8, 1, 1},
};
static void b_group_norm(bctx* c, const tcase* tc) {
    const struct gn_def* d = &gn_defs[tc->op];
    rlx_tensor x = in(c, "x", tc->dt, shape_of(d->rank, d->shape), 0.5, 3);
    rlx_tensor g = d->gamma ? in(c, "gamma", tc->dt, S(1, d->shape[1]), 0.5, 1.5) : none_t;
    rlx_tensor b = d->beta ? in(c, "beta", tc->dt, S(1, d->shape[1]), -1, 1) : none_t;
    out(c, "y", rlx_group_norm(c->g, x, d->groups, g, b, 1e-5f));
}

/* ---- resize ---- */
static const struct resize_def { const char* name; int out_h, out_w; rlx_resize_mode mode; int align; } resize_defs[] = {
    {"nearest_up_7x9", 7, 9, RLX_RESIZE_NEAREST, 0},
    {"nearest_down_2x3", 2, 3, RLX_RESIZE_NEAREST, 0},
    {"bilinear_up_7x9", 7, 9, RLX_RESIZE_BILINEAR, 0},
    {"bilinear_down_3x2", 3, 2, RLX_RESIZE_BILINEAR, 0},
    {"bilinear_align_8x11", 8, 11, RLX_RESIZE_BILINEAR, 1},
    {"bilinear_align_1x4", 1, 4, RLX_RESIZE_BILINEAR, 1},
};
static void b_resize(bctx* c, const tcase* tc) {
    const struct resize_def* d = &resize_defs[tc->op];
    rlx_tensor x = in_any(c, "x", tc->dt, S(4, 1, 2, 4, 5), -2, 2);
    out(c, "y", rlx_resize(c->g, x, d->out_h, d->out_w, d->mode, d->align));
}

/* ---- pad ---- */
static const struct pad_def { const char* name; rlx_pad_mode mode; int rank, shape[4], before[4], after[4]; } pad_defs[] = {
    {"constant", RLX_PAD_CONSTANT, 3, {2, 3, 4}, {0, 1, 2}, {1, 0, 3}},
    {"reflect", RLX_PAD_REFLECT, 3, {2, 3, 4}, {0, 1, 2}, {1, 0, 3}},
    {"edge", RLX_PAD_EDGE, 3, {2, 3, 4}, {0, 1, 2}, {1, 0, 3}},
    {"reflect_1d", RLX_PAD_REFLECT, 1, {5}, {4}, {4}},
    {"edge_nchw", RLX_PAD_EDGE, 4, {1, 2, 5, 6}, {0, 0, 2, 2}, {0, 0, 2, 2}},
};
static void b_pad(bctx* c, const tcase* tc) {
    const struct pad_def* d = &pad_defs[tc->op];
    int64_t before[4], after[4];
    int i;
    for (i = 0; i < d->rank; i++) { before[i] = d->before[i]; after[i] = d->after[i]; }
    out(c, "y", rlx_pad(c->g, in_any(c, "x", tc->dt, shape_of(d->rank, d->shape), -4, 4), before, after, d->mode, 1.5));
}

/* ---- linear (f32 only): tc->op is the activation, tc->v: 0 with bias, 1 without, 2 batched, 3 larger ---- */
static void b_linear(bctx* c, const tcase* tc) {
    rlx_tensor x, w, b = none_t;
    int K = tc->v == 3 ? 256 : 19, N = tc->v == 3 ? 130 : 23;
    x = tc->v == 2 ? in(c, "x", RLX_F32, S(3, 2, 3, K), -1, 1) : in(c, "x", RLX_F32, S(2, tc->v == 3 ? 33 : 5, K), -1, 1);
    w = param(c, "w", RLX_F32, S(2, K, N), -1, 1);
    if (tc->v != 1) b = param(c, "b", RLX_F32, S(1, N), -1, 1);
    out(c, "y", rlx_linear(c->g, x, w, b, (rlx_activation)tc->op));
}

/* ---- add_rmsnorm / add_layernorm ---- */
static const struct addnorm_def { const char* name; int layer, rank, shape[3], axis, gamma, beta, sum; } addnorm_defs[] = {
    {"add_rmsnorm_gamma_sum", 0, 2, {4, 33}, -1, 1, 0, 1},
    {"add_rmsnorm_gamma_beta", 0, 2, {4, 33}, -1, 1, 1, 0},
    {"add_rmsnorm_plain_sum", 0, 2, {4, 33}, -1, 0, 0, 1},
    {"add_layernorm_gamma_beta_sum", 1, 2, {4, 33}, -1, 1, 1, 1},
    {"add_layernorm_axis1_gamma_sum", 1, 3, {3, 4, 17}, 1, 1, 0, 1},
    {"add_layernorm_plain", 1, 2, {4, 33}, -1, 0, 0, 0},
    {"add_rmsnorm_row_4096_sum", 0, 2, {2, 4096}, -1, 1, 0, 1},
    {"add_layernorm_row_4500_sum", 1, 2, {2, 4500}, -1, 1, 1, 1},   /* beyond the GPUs' register rows */
};
static void b_addnorm(bctx* c, const tcase* tc) {
    const struct addnorm_def* d = &addnorm_defs[tc->op];
    int axis = d->axis < 0 ? d->axis + d->rank : d->axis;
    shp xs = shape_of(d->rank, d->shape);
    shp ps = d->layer ? shape_of(d->rank - axis, d->shape + axis) : S(1, d->shape[d->rank - 1]);
    rlx_tensor x = in(c, "x", tc->dt, xs, -1, 2), r = in(c, "residual", tc->dt, xs, -1, 2), sum = none_t, y;
    rlx_tensor g = d->gamma ? in(c, "gamma", tc->dt, ps, 0.5, 1.5) : none_t;
    rlx_tensor b = d->beta ? in(c, "beta", tc->dt, ps, -1, 1) : none_t;
    y = d->layer ? rlx_add_layernorm(c->g, x, r, g, b, d->axis, 1e-5f, d->sum ? &sum : NULL)
                 : rlx_add_rmsnorm(c->g, x, r, g, b, 1e-5f, d->sum ? &sum : NULL);
    out(c, "y", y);
    if (d->sum) out(c, "sum", sum);
}

/* ---- swiglu / geglu: tc->op 0 swiglu, 1 geglu; tc->v 0 small, 1 big ---- */
static void b_glu(bctx* c, const tcase* tc) {
    shp s = tc->v ? S(1, 70001) : S(3, 3, 1, 37);
    rlx_tensor gate = in(c, "gate", tc->dt, s, -4, 4), up = in(c, "up", tc->dt, s, -2, 2);
    out(c, "y", tc->op ? rlx_geglu(c->g, gate, up) : rlx_swiglu(c->g, gate, up));
}

/* ---- states (every case runs twice; the states are read after each run) ---- */
static void b_state(bctx* c, const tcase* tc) {
    rlx_graph* g = c->g;
    rlx_dtype dt = tc->dt;
    int axis0[1] = {0};
    c->runs = 2;
    switch (tc->v) {
    case 0: { /* rows at offsets 1 then 4 (the last rows of the state) */
        static const double offs[2] = {1, 4};
        rlx_tensor s = state(c, "s", dt, S(2, 6, 4), -1, 1);
        rlx_tensor w = rlx_state_write(g, s, in_any(c, "u", dt, S(2, 2, 4), -1, 1), 0, in_vals(c, "off", RLX_I64, S(0), offs, 2));
        out(c, "y", rlx_reduce_sum(g, w, 1, axis0, 0));
        break;
    }
    case 1: { /* along axis 1, i32 offsets 0 then 6 */
        static const double offs[2] = {0, 6};
        rlx_tensor s = state(c, "s", dt, S(3, 1, 8, 3), -1, 1);
        rlx_tensor w = rlx_state_write(g, s, in_any(c, "u", dt, S(3, 1, 2, 3), -1, 1), 1, in_vals(c, "off", RLX_I32, S(0), offs, 2));
        out(c, "y", rlx_add(g, w, w));
        break;
    }
    case 2: { /* a KV cache: write one step of k and v, attend over the first offset+1 positions (GQA) */
        static const double offs[2] = {3, 4};
        rlx_attention_desc ad;
        rlx_tensor off = in_vals(c, "off", RLX_I64, S(0), offs, 2);
        rlx_tensor kc = state(c, "kcache", dt, S(4, 1, 2, 8, 4), -1, 1), vc = state(c, "vcache", dt, S(4, 1, 2, 8, 4), -1, 1);
        rlx_tensor kw = rlx_state_write(g, kc, in(c, "k", dt, S(4, 1, 2, 1, 4), -1, 1), 2, off);
        rlx_tensor vw = rlx_state_write(g, vc, in(c, "v", dt, S(4, 1, 2, 1, 4), -1, 1), 2, off);
        memset(&ad, 0, sizeof ad);
        ad.layout = RLX_LAYOUT_BHSD;
        ad.causal = 1;
        ad.kv_len = rlx_add(g, off, rlx_scalar(g, RLX_I64, 1));
        out(c, "y", rlx_attention(g, in(c, "q", dt, S(4, 1, 4, 1, 4), -1, 1), kw, vw, &ad));
        break;
    }
    case 3: { /* the update reads the state: run 2 sees what run 1 wrote */
        static const double offs[2] = {0, 2};
        rlx_tensor s = state(c, "s", dt, S(2, 4, 5), -1, 1);
        rlx_tensor u = rlx_add(g, rlx_narrow(g, s, 0, 0, 2), in_any(c, "x", dt, S(2, 2, 5), -1, 1));
        out(c, "y", rlx_state_write(g, s, u, 0, in_vals(c, "off", RLX_I64, S(0), offs, 2)));
        break;
    }
    default: { /* a write nobody reads still runs; a state that is only read */
        static const double offs[2] = {2, 0};
        rlx_tensor s = state(c, "s", dt, S(2, 3, 3), -1, 1), r = state(c, "r", dt, S(2, 2, 3), -1, 1);
        rlx_state_write(g, s, in_any(c, "u", dt, S(2, 1, 3), -1, 1), 0, in_vals(c, "off", RLX_I64, S(0), offs, 2));
        out(c, "y", rlx_add(g, r, in_any(c, "x", dt, S(2, 2, 3), -1, 1)));
        break;
    }
    }
}

/* ---- multi-op chains that the fusion pass rewrites ---- */
static const char* const chain_names[] = {
    "matmul_bias_relu", "matmul_bias_gelu_const_bias", "add_rmsnorm", "add_layernorm_sum_reused", "elementwise",
    "elementwise_long", "elementwise_scalars", "swiglu_geglu_pattern", "preact_is_output", "softmax_qk",
    "mini_block"};
static void b_chain(bctx* c, const tcase* tc) {
    rlx_graph* g = c->g;
    rlx_dtype dt = tc->dt;
    int i;
    rlx_tensor x = in(c, "x", dt, S(2, 5, 19), -1, 1), w = param(c, "w", dt, S(2, 19, 23), -1, 1);
    rlx_tensor y = in(c, "y", dt, S(2, 5, 23), -1, 1), z = in(c, "z", dt, S(2, 5, 23), -1, 1);
    rlx_tensor gm = param(c, "g", dt, S(1, 23), 0.5, 1.5), b = param(c, "b", dt, S(1, 23), -1, 1), t, s;
    switch (tc->v) {
    case 0: out(c, "o", rlx_relu(g, rlx_add(g, rlx_matmul(g, x, w), b))); break;
    case 1: {
        double cb[23];
        int64_t n23 = 23;
        for (i = 0; i < 23; i++) cb[i] = 0.1 * i - 1;
        t = rlx_cast(g, rlx_constant(g, RLX_F64, 1, &n23, cb), dt);
        out(c, "o", rlx_gelu(g, rlx_add(g, t, rlx_matmul(g, x, w))));
        break;
    }
    case 2: out(c, "o", rlx_rmsnorm(g, rlx_add(g, y, z), gm, none_t, 1e-5f)); break;
    case 3:
        s = rlx_add(g, y, z);
        out(c, "o", rlx_sub(g, rlx_layernorm(g, s, gm, b, -1, 1e-5f), s));
        out(c, "s", s);
        break;
    case 4: out(c, "o", rlx_tanh(g, rlx_mul(g, rlx_add(g, y, z), rlx_sub(g, y, z)))); break;
    case 5:
        t = y;
        for (i = 0; i < 30; i++) t = i % 3 == 0 ? rlx_add(g, t, z) : i % 3 == 1 ? rlx_sin(g, t) : rlx_mul(g, t, y);
        out(c, "o", t);
        break;
    case 6:
        out(c, "o", rlx_exp(g, rlx_mul(g, rlx_sub(g, y, rlx_scalar(g, dt, 0.25)), rlx_scalar(g, dt, -0.5))));
        break;
    case 7:
        out(c, "o", rlx_mul(g, rlx_silu(g, y), z));
        out(c, "o2", rlx_mul(g, z, rlx_gelu(g, y)));
        break;
    case 8:
        t = rlx_add(g, rlx_matmul(g, x, w), b);
        out(c, "o", rlx_relu(g, t));
        out(c, "pre", t);
        break;
    case 9: {
        rlx_tensor k = in(c, "k", dt, S(2, 7, 19), -1, 1);
        t = rlx_mul(g, rlx_matmul(g, x, rlx_transpose(g, k, NULL)), rlx_scalar(g, dt, 0.23));
        out(c, "o", rlx_softmax(g, t, -1));
        break;
    }
    default: { /* rmsnorm → matmul → swiglu → matmul → residual add */
        rlx_tensor wg = param(c, "wg", dt, S(2, 19, 31), -0.5, 0.5), wu = param(c, "wu", dt, S(2, 19, 31), -0.5, 0.5);
        rlx_tensor wd = param(c, "wd", dt, S(2, 31, 19), -0.5, 0.5), gx = param(c, "gx", dt, S(1, 19), 0.5, 1.5);
        rlx_tensor h = rlx_rmsnorm(g, x, gx, none_t, 1e-5f);
        t = rlx_mul(g, rlx_silu(g, rlx_matmul(g, h, wg)), rlx_matmul(g, h, wu));
        out(c, "o", rlx_add(g, x, rlx_matmul(g, t, wd)));
        break;
    }
    }
}

/* =============================================================================================================
   The table
   ============================================================================================================= */

static void make_cases(void) {
    int i, k, v, a;
    const char* dn;
    /* unary: every op in every dtype it takes, plus f32 variants */
    for (i = 0; i < COUNT(unary_defs); i++) {
        const struct unary_def* u = &unary_defs[i];
        for (k = 0; k < COUNT(all_dts); k++)
            if (u->dts & DT(all_dts[k]))
                add_case("unary", b_unary, i, all_dts[k], UV_PLAIN, 0, u->tol, "unary/%s/%s/%s", u->name, uv_names[UV_PLAIN], rlx_dtype_name(all_dts[k]));
        for (v = UV_SPECIAL; v < UV_COUNT; v++)
            if (v != UV_BIG || i % 4 == 0 || u->op == RLX_OP_RELU)
                add_case("unary", b_unary, i, RLX_F32, v, 0, u->tol, "unary/%s/%s/f32", u->name, uv_names[v]);
        if (u->tol == T_TRANS) add_case("unary", b_unary, i, RLX_F16, UV_SPECIAL, 0, u->tol, "unary/%s/special/f16", u->name);
    }
    /* binary and comparisons: broadcasting in every dtype, the other shapes in f32 (and a few in i32 / f16) */
    for (i = 0; i < COUNT(binary_defs); i++) {
        const struct binary_def* d = &binary_defs[i];
        const char* fam = d->tol == T_EXACT && d->op >= RLX_OP_EQ ? "compare" : "binary";
        for (k = 0; k < COUNT(all_dts); k++)
            if (d->dts & DT(all_dts[k]))
                add_case(fam, b_binary, i, all_dts[k], BV_BCAST, 0, d->tol, "%s/%s/%s/%s", fam, d->name, bv_names[BV_BCAST], rlx_dtype_name(all_dts[k]));
        for (v = BV_BOTH; v < BV_COUNT; v++) {
            add_case(fam, b_binary, i, RLX_F32, v, 0, d->tol, "%s/%s/%s/f32", fam, d->name, bv_names[v]);
            if (v == BV_BOTH || v == BV_SCALAR)
                add_case(fam, b_binary, i, RLX_I32, v, 0, d->tol, "%s/%s/%s/i32", fam, d->name, bv_names[v]);
            if (v == BV_SPECIAL || v == BV_BIG)
                add_case(fam, b_binary, i, RLX_F16, v, 0, d->tol, "%s/%s/%s/f16", fam, d->name, bv_names[v]);
        }
    }
    /* where */
    for (k = 0; k < COUNT(all_dts); k++)
        add_case("where", b_where, 0, all_dts[k], 0, 0, T_EXACT, "where/bcast3/%s", rlx_dtype_name(all_dts[k]));
    add_case("where", b_where, 0, RLX_F32, 1, 0, T_EXACT, "where/scalar_a/f32");
    add_case("where", b_where, 0, RLX_I64, 1, 0, T_EXACT, "where/scalar_a/i64");
    add_case("where", b_where, 0, RLX_F32, 2, 0, T_EXACT, "where/cond_from_gt/f32");
    add_case("where", b_where, 0, RLX_BF16, 2, 0, T_EXACT, "where/cond_from_gt/bf16");
    /* cast: every pair */
    for (k = 0; k < COUNT(all_dts); k++)
        for (a = 0; a < COUNT(all_dts); a++)
            add_case("cast", b_cast, (int)all_dts[a], all_dts[k], 0, 0, T_EXACT, "cast/%s->%s", rlx_dtype_name(all_dts[k]), rlx_dtype_name(all_dts[a]));
    /* matmul */
    for (i = 0; i < COUNT(mm_defs); i++)
        for (k = 0; k < COUNT(all_dts); k++)
            if (mm_defs[i].dts & DT(all_dts[k]))
                add_case("matmul", b_matmul, i, all_dts[k], 0, 0, T_ACC, "matmul/%s/%s", mm_defs[i].name, rlx_dtype_name(all_dts[k]));
    /* reductions */
    for (i = 0; i < COUNT(reduce_defs); i++) {
        const struct reduce_def* d = &reduce_defs[i];
        int isprod = d->op == RLX_OP_PROD, ismean = d->op == RLX_OP_MEAN;
        for (v = 0; v < COUNT(red_sets); v++)
            if (!isprod || v != COUNT(red_sets) - 1)
                add_case("reduce", b_reduce, i, RLX_F32, v, RW_PLAIN, T_ACC, "reduce/%s/%s/f32", d->name, red_sets[v].name);
        for (k = 1; k < COUNT(all_dts); k++) {
            rlx_dtype dt = all_dts[k];
            static const int sets_f[4] = {0, 1, 3, 7}, sets_i[3] = {0, 1, 3};
            dn = rlx_dtype_name(dt);
            if (is_float(dt)) {
                for (v = 0; v < 4; v++)
                    add_case("reduce", b_reduce, i, dt, sets_f[v], RW_PLAIN, T_ACC, "reduce/%s/%s/%s", d->name, red_sets[sets_f[v]].name, dn);
            } else if (!ismean && (dt == RLX_I32 || (dt == RLX_I64 && i != 0) || (dt == RLX_U8 && !isprod) ||
                                    (dt == RLX_BOOL && (i == 0 || isprod)))) {
                for (v = 0; v < (dt == RLX_I32 ? 3 : 1); v++)
                    add_case("reduce", b_reduce, i, dt, sets_i[v], RW_PLAIN, T_ACC, "reduce/%s/%s/%s", d->name, red_sets[sets_i[v]].name, dn);
            }
        }
        add_case("reduce", b_reduce, i, RLX_F32, 1, RW_SPECIAL, T_ACC, "reduce/%s/special/f32", d->name);
        add_case("reduce", b_reduce, i, RLX_F32, 3, RW_GENERIC, T_ACC, "reduce/%s/generic/f32", d->name);
    }
    /* argmax / argmin */
    for (a = 0; a < 2; a++) {
        rlx_op op = a ? RLX_OP_ARGMIN : RLX_OP_ARGMAX;
        const char* on = a ? "argmin" : "argmax";
        for (v = 0; v < COUNT(arg_defs); v++) add_case("argmax", b_arg, op, RLX_F32, v, 0, T_EXACT, "argmax/%s/%s/f32", on, arg_defs[v].name);
        add_case("argmax", b_arg, op, RLX_F32, 2, 1, T_EXACT, "argmax/%s/special/f32", on);
        for (k = 1; k < COUNT(all_dts); k++)
            if (all_dts[k] != RLX_BOOL && all_dts[k] != RLX_I8 && all_dts[k] != RLX_I16 && all_dts[k] != RLX_U32)
                add_case("argmax", b_arg, op, all_dts[k], 2, 0, T_EXACT, "argmax/%s/last/%s", on, rlx_dtype_name(all_dts[k]));
    }
    /* softmax / log_softmax */
    for (a = 0; a < 2; a++) {
        rlx_op op = a ? RLX_OP_LOG_SOFTMAX : RLX_OP_SOFTMAX;
        for (v = 0; v < COUNT(sm_defs); v++) {
            add_case("softmax", b_softmax, op, RLX_F32, v, 0, T_ACC, "softmax/%s/%s/f32", rlx_op_name(op), sm_defs[v].name);
            if (v == 0 || v == 1 || v == 3)
                for (k = 1; k < 4; k++)
                    add_case("softmax", b_softmax, op, all_dts[k], v, 0, T_ACC, "softmax/%s/%s/%s", rlx_op_name(op), sm_defs[v].name, rlx_dtype_name(all_dts[k]));
        }
    }
    /* layernorm / rmsnorm */
    for (a = 0; a < 2; a++) {
        rlx_op op = a ? RLX_OP_RMSNORM : RLX_OP_LAYERNORM;
        for (v = 0; v < COUNT(norm_defs); v++) {
            if (a && (norm_defs[v].axis == 0 || norm_defs[v].axis == 1)) continue; /* rmsnorm: last axis only */
            add_case("norm", b_norm, op, RLX_F32, v, 0, T_ACC, "norm/%s/%s/f32", rlx_op_name(op), norm_defs[v].name);
            if (v == 0 || v == 3 || v == 5)
                for (k = 1; k < 4; k++)
                    add_case("norm", b_norm, op, all_dts[k], v, 0, T_ACC, "norm/%s/%s/%s", rlx_op_name(op), norm_defs[v].name, rlx_dtype_name(all_dts[k]));
        }
    }
    /* layout ops and gather: every variant in f32, variant 0 in every dtype */
    {
        static const struct { rlx_op op; const char* fam; int nv; } lay[] = {
            {RLX_OP_RESHAPE, "layout", 3}, {RLX_OP_TRANSPOSE, "layout", 5}, {RLX_OP_SLICE, "layout", 4},
            {RLX_OP_CONCAT, "layout", 4},  {RLX_OP_EXPAND, "layout", 4},    {RLX_OP_GATHER, "gather", 4}};
        static const char* const vnames[6][5] = {
            {"4x-1", "size1_flatten", "after_transpose"},
            {"perm2031", "reverse", "size1_dims", "33x65", "then_add"},
            {"step3_negstart", "narrow", "last_axis_step3", "narrow_then_add"},
            {"three_axis1", "single", "axis0", "axis_last"},
            {"3x1_to_2x3x5", "1_to_4x6", "rank0_to_3x2", "1x4x1_to_2x4x3"},
            {"i32_axis1_2d_idx", "i64_axis0", "i32_rank0_idx_last_axis", "i64_axis2_2d_idx"}};
        for (i = 0; i < COUNT(lay); i++) {
            /* names: layout/<op>/<variant>/<dtype>, gather/<variant>/<dtype> */
            const char* fam = lay[i].fam;
            const char* opn = lay[i].op == RLX_OP_GATHER ? "" : rlx_op_name(lay[i].op);
            const char* sep = lay[i].op == RLX_OP_GATHER ? "" : "/";
            for (v = 0; v < lay[i].nv; v++) {
                int floats_only = (lay[i].op == RLX_OP_TRANSPOSE && v == 4) || (lay[i].op == RLX_OP_SLICE && v == 3);
                add_case(fam, b_layout, lay[i].op, RLX_F32, v, 0, floats_only ? T_EW : T_EXACT, "%s/%s%s%s/f32", fam, opn, sep, vnames[i][v]);
                if (lay[i].op == RLX_OP_GATHER && v > 0)
                    add_case(fam, b_layout, lay[i].op, RLX_I64, v, 0, T_EXACT, "%s/%s%s%s/i64", fam, opn, sep, vnames[i][v]);
            }
            for (k = 1; k < COUNT(all_dts); k++)
                if (all_dts[k] != RLX_I16 && all_dts[k] != RLX_U32)
                    add_case(fam, b_layout, lay[i].op, all_dts[k], 0, 0, T_EXACT, "%s/%s%s%s/%s", fam, opn, sep, vnames[i][0],
                             rlx_dtype_name(all_dts[k]));
        }
    }
    /* attention */
    for (i = 0; i < COUNT(att_defs); i++) {
        add_case("attention", b_attention, i, RLX_F32, 0, 0, T_ACC, "attention/%s/f32", att_defs[i].name);
        if (i == 0 || i == 1 || i == 4 || i == 8) add_case("attention", b_attention, i, RLX_F16, 0, 0, T_ACC, "attention/%s/f16", att_defs[i].name);
        if (i == 0 || i == 1 || i == 8) add_case("attention", b_attention, i, RLX_BF16, 0, 0, T_ACC, "attention/%s/bf16", att_defs[i].name);
        if (i == 0 || i == 5) add_case("attention", b_attention, i, RLX_F64, 0, 0, T_ACC32, "attention/%s/f64", att_defs[i].name);
    }
    /* rope */
    for (i = 0; i < COUNT(rope_defs); i++) {
        add_case("rope", b_rope, i, RLX_F32, 0, 0, T_EW, "rope/%s/f32", rope_defs[i].name);
        if (i < 2)
            for (k = 1; k < 4; k++) add_case("rope", b_rope, i, all_dts[k], 0, 0, T_EW, "rope/%s/%s", rope_defs[i].name, rlx_dtype_name(all_dts[k]));
    }
    /* cumsum */
    for (v = 0; v < COUNT(cs_defs); v++) {
        add_case("cumsum", b_cumsum, 0, RLX_F32, v, 0, T_ACC, "cumsum/%s/f32", cs_defs[v].name);
        if (v == 0 || v == 3 || v == 6)
            for (k = 1; k < COUNT(all_dts); k++)
                if (all_dts[k] != RLX_I8 && all_dts[k] != RLX_I16 && all_dts[k] != RLX_U32)
                    add_case("cumsum", b_cumsum, 0, all_dts[k], v, 0, T_ACC, "cumsum/%s/%s", cs_defs[v].name, rlx_dtype_name(all_dts[k]));
    }
    /* topk */
    for (v = 0; v < COUNT(topk_defs); v++) {
        add_case("topk", b_topk, 0, RLX_F32, v, 0, T_EXACT, "topk/%s/f32", topk_defs[v].name);
        if (v == 0 || v == 3 || v == 9)
            for (k = 1; k < COUNT(all_dts); k++)
                if (all_dts[k] != RLX_BOOL && all_dts[k] != RLX_I8 && all_dts[k] != RLX_I16 && all_dts[k] != RLX_U32)
                    add_case("topk", b_topk, 0, all_dts[k], v, 0, T_EXACT, "topk/%s/%s", topk_defs[v].name, rlx_dtype_name(all_dts[k]));
    }
    /* sample */
    for (v = 0; v < COUNT(sample_defs); v++) {
        add_case("sample", b_sample, 0, RLX_F32, v, 0, T_EXACT, "sample/%s/f32", sample_defs[v].name);
        if (v == 1 || v == 3)
            for (k = 1; k < 4; k++) add_case("sample", b_sample, 0, all_dts[k], v, 0, T_EXACT, "sample/%s/%s", sample_defs[v].name, rlx_dtype_name(all_dts[k]));
    }
    /* conv, pool, group_norm, resize, pad */
    for (i = 0; i < COUNT(conv_defs); i++) {
        add_case("conv", b_conv, i, RLX_F32, 0, 0, T_ACC, "conv/%s/f32", conv_defs[i].name);
        if (i == 1 || i == 7)
            for (k = 1; k < 4; k++) add_case("conv", b_conv, i, all_dts[k], 0, 0, T_ACC, "conv/%s/%s", conv_defs[i].name, rlx_dtype_name(all_dts[k]));
    }
    for (i = 0; i < COUNT(pool_defs); i++) {
        int tol = pool_defs[i].kind == RLX_POOL_MAX ? T_EXACT : T_ACC;
        add_case("pool", b_pool, i, RLX_F32, 0, 0, tol, "pool/%s/f32", pool_defs[i].name);
        if (i < 2)
            for (k = 1; k < 4; k++) add_case("pool", b_pool, i, all_dts[k], 0, 0, tol, "pool/%s/%s", pool_defs[i].name, rlx_dtype_name(all_dts[k]));
    }
    for (i = 0; i < COUNT(gn_defs); i++) {
        add_case("group_norm", b_group_norm, i, RLX_F32, 0, 0, T_ACC, "group_norm/%s/f32", gn_defs[i].name);
        if (i == 0)
            for (k = 1; k < 4; k++) add_case("group_norm", b_group_norm, i, all_dts[k], 0, 0, T_ACC, "group_norm/%s/%s", gn_defs[i].name, rlx_dtype_name(all_dts[k]));
    }
    for (i = 0; i < COUNT(resize_defs); i++) {
        int tol = resize_defs[i].mode == RLX_RESIZE_NEAREST ? T_EXACT : T_EW;
        add_case("resize", b_resize, i, RLX_F32, 0, 0, tol, "resize/%s/f32", resize_defs[i].name);
        if (i == 0 || i == 2)
            for (k = 1; k < 4; k++) add_case("resize", b_resize, i, all_dts[k], 0, 0, tol, "resize/%s/%s", resize_defs[i].name, rlx_dtype_name(all_dts[k]));
    }
    for (i = 0; i < COUNT(pad_defs); i++) {
        add_case("pad", b_pad, i, RLX_F32, 0, 0, T_EXACT, "pad/%s/f32", pad_defs[i].name);
        if (i == 0 || i == 2)
            for (k = 1; k < COUNT(all_dts); k++)
                if (all_dts[k] != RLX_I16 && all_dts[k] != RLX_U32)
                    add_case("pad", b_pad, i, all_dts[k], 0, 0, T_EXACT, "pad/%s/%s", pad_defs[i].name, rlx_dtype_name(all_dts[k]));
    }
    /* fused ops */
    {
        static const char* const acts[RLX_ACT_COUNT] = {"none", "relu", "gelu", "gelu_tanh", "silu"};
        for (a = 0; a < RLX_ACT_COUNT; a++) {
            add_case("linear", b_linear, a, RLX_F32, 0, 0, T_ACC, "linear/%s/bias/f32", acts[a]);
            add_case("linear", b_linear, a, RLX_F32, 1, 0, T_ACC, "linear/%s/no_bias/f32", acts[a]);
        }
        add_case("linear", b_linear, RLX_ACT_SILU, RLX_F32, 2, 0, T_ACC, "linear/silu/batched/f32");
        add_case("linear", b_linear, RLX_ACT_RELU, RLX_F32, 3, 0, T_ACC, "linear/relu/33x256x130/f32");
    }
    for (i = 0; i < COUNT(addnorm_defs); i++) {
        add_case("add_norm", b_addnorm, i, RLX_F32, 0, 0, T_ACC, "add_norm/%s/f32", addnorm_defs[i].name);
        if (i == 0 || i == 3)
            for (k = 1; k < 4; k++) add_case("add_norm", b_addnorm, i, all_dts[k], 0, 0, T_ACC, "add_norm/%s/%s", addnorm_defs[i].name, rlx_dtype_name(all_dts[k]));
    }
    for (a = 0; a < 2; a++) {
        for (k = 0; k < 4; k++) add_case("glu", b_glu, a, all_dts[k], 0, 0, T_TRANS, "glu/%s/3x1x37/%s", a ? "geglu" : "swiglu", rlx_dtype_name(all_dts[k]));
        add_case("glu", b_glu, a, RLX_F32, 1, 0, T_TRANS, "glu/%s/big/f32", a ? "geglu" : "swiglu");
    }
    /* states */
    {
        static const char* const sn[5] = {"rows_at_the_end", "axis1_i32_offset", "kv_cache_attention", "update_reads_state",
                                          "unread_write_and_read_only"};
        static const rlx_dtype sdt[5] = {RLX_F32, RLX_F16, RLX_BF16, RLX_I32, RLX_I64};
        for (v = 0; v < 5; v++) {
            add_case("state", b_state, 0, RLX_F32, v, 0, T_ACC, "state/%s/f32", sn[v]);
            if (v == 0 || v == 3)
                for (k = 1; k < 5; k++) add_case("state", b_state, 0, sdt[k], v, 0, T_ACC, "state/%s/%s", sn[v], rlx_dtype_name(sdt[k]));
        }
        add_case("state", b_state, 0, RLX_F16, 2, 0, T_ACC, "state/%s/f16", sn[2]);
    }
    /* chains */
    for (v = 0; v < COUNT(chain_names); v++) add_case("chain", b_chain, 0, RLX_F32, v, 0, T_ACC, "chain/%s/f32", chain_names[v]);
    add_case("chain", b_chain, 0, RLX_F16, 4, 0, T_ACC, "chain/%s/f16", chain_names[4]);
    add_case("chain", b_chain, 0, RLX_F16, 10, 0, T_ACC, "chain/%s/f16", chain_names[10]);
    add_case("chain", b_chain, 0, RLX_BF16, 2, 0, T_ACC, "chain/%s/bf16", chain_names[2]);
    add_case("chain", b_chain, 0, RLX_F64, 0, 0, T_ACC, "chain/%s/f64", chain_names[0]);
}

/* =============================================================================================================
   Running and comparing
   ============================================================================================================= */

typedef struct res {
    char label[64];
    rlx_dtype dt;
    size_t n;
    double* f;     /* float outputs */
    int64_t* i;    /* integer and bool outputs */
} res;
typedef struct result { res r[MAX_RES]; int n; } result;

static void result_free(result* r) {
    int k;
    for (k = 0; k < r->n; k++) { free(r->r[k].f); free(r->r[k].i); }
    memset(r, 0, sizeof *r);
}

static res* result_add(result* r, const char* what, const char* name, int run, int runs, rlx_dtype dt, size_t n) {
    res* o = &r->r[r->n++];
    memset(o, 0, sizeof *o);
    if (runs > 1) snprintf(o->label, sizeof o->label, "%s %s (run %d)", what, name, run + 1);
    else snprintf(o->label, sizeof o->label, "%s %s", what, name);
    o->dt = dt;
    o->n = n;
    if (is_float(dt)) o->f = (double*)calloc(n, sizeof(double));
    else o->i = (int64_t*)calloc(n, sizeof(int64_t));
    if (!o->f && !o->i) { fputs("out of memory\n", stderr); exit(1); }
    return o;
}

/* Set by execute when the compile failed with RLX_ERROR_UNSUPPORTED because the device lacks a feature a
   kernel needs (a Vulkan device without 8/16-bit storage, or with it hidden by RLX_VULKAN_HIDE_FEATURES). Such
   a case is counted as skipped, with the reason printed; any other failure is a failure. */
static int last_unsupported;

/* Compiles and runs c's graph on `dev`; fills *out. Returns 0 and a message on any failure. */
static int execute(bctx* c, rlx_device dev, uint32_t flags, result* out, char* err, size_t cap) {
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    rlx_result r;
    int k, run, ok = 1;
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    cd.flags = flags;
    memset(out, 0, sizeof *out);
    last_unsupported = 0;
    r = rlx_compile(c->g, &cd, &p);
    if (r != RLX_OK) {
        /* only a missing device feature (">>vkfeat" of rlx.h); any other unsupported op stays a failure */
        last_unsupported = r == RLX_ERROR_UNSUPPORTED && strstr(rlx_graph_error(c->g), "which the device lacks") != NULL;
        snprintf(err, cap, "compile failed (%s): %s", rlx_result_string(r), rlx_graph_error(c->g));
        return 0;
    }
    if (rlx_program_device(p) != dev) {
        snprintf(err, cap, "compiled for %s instead of %s (%s)", rlx_device_name(rlx_program_device(p)), rlx_device_name(dev),
                 rlx_program_device_reason(p));
        rlx_program_destroy(p);
        return 0;
    }
    for (run = 0; run < c->runs && ok; run++) {
        for (k = 0; k < c->nsrc && ok; k++) {
            const src* q = &c->srcs[k];
            size_t bytes = q->n * sizeof(double);
            if (q->kind == SRC_INPUT) r = rlx_set_input(p, q->name, RLX_F64, q->data[run], bytes);
            else if (run > 0) continue;
            else if (q->kind == SRC_PARAM) r = rlx_set_param(p, q->name, RLX_F64, q->data[0], bytes);
            else r = rlx_set_state(p, q->name, RLX_F64, q->data[0], bytes);
            if (r != RLX_OK) {
                snprintf(err, cap, "setting %s: %s: %s", q->name, rlx_result_string(r), rlx_program_error(p));
                ok = 0;
            }
        }
        if (!ok) break;
        r = rlx_run(p);
        if (r != RLX_OK) {
            snprintf(err, cap, "run %d failed (%s): %s", run + 1, rlx_result_string(r), rlx_program_error(p));
            ok = 0;
            break;
        }
        for (k = 0; k < c->nout + c->nstate && ok; k++) {
            int is_state = k >= c->nout;
            const outspec* o = is_state ? &c->state[k - c->nout] : &c->out[k];
            res* d = result_add(out, is_state ? "state" : "output", o->name, run, c->runs, o->dt, o->n);
            if (is_state) r = d->f ? rlx_get_state(p, o->name, RLX_F64, d->f, o->n * sizeof(double))
                                   : rlx_get_state(p, o->name, RLX_I64, d->i, o->n * sizeof(int64_t));
            else r = d->f ? rlx_get_output(p, o->name, RLX_F64, d->f, o->n * sizeof(double))
                          : rlx_get_output(p, o->name, RLX_I64, d->i, o->n * sizeof(int64_t));
            if (r != RLX_OK) {
                snprintf(err, cap, "reading %s: %s: %s", d->label, rlx_result_string(r), rlx_program_error(p));
                ok = 0;
            }
        }
    }
    rlx_program_destroy(p);
    return ok;
}

typedef struct tol { double atol, rtol, mag; } tol;

/* |got - want| <= atol + mag * max|want| + rtol * |want| */
static tol tol_for(int cls, rlx_dtype dt) {
    tol t;
    t.atol = t.rtol = t.mag = 0;
    if (cls == T_EXACT || !is_float(dt)) return t;
    if (cls == T_ACC32) {
        if (dt == RLX_F64) dt = RLX_F32;   /* computed in f32 on every backend: f32 tolerance */
        cls = T_ACC;
    }
    switch (dt) {
    case RLX_F16:
        t.atol = cls == T_EW ? 1e-4 : 2e-4;
        t.rtol = cls == T_EW ? 2e-3 : 3e-3;
        t.mag = cls == T_ACC ? 2e-3 : 0;
        break;
    case RLX_BF16:
        t.atol = 1e-3;
        t.rtol = 2e-2;
        t.mag = cls == T_ACC ? 1e-2 : 0;
        break;
    case RLX_F64:
        t.atol = 1e-12;
        t.rtol = 1e-10;
        t.mag = cls == T_ACC ? 1e-10 : 0;
        break;
    default:
        t.atol = 1e-5;
        t.rtol = cls == T_EW ? 1e-4 : 1e-3;
        t.mag = cls == T_ACC ? 1e-4 : 0;
        break;
    }
    return t;
}

static double max_abs_finite(const double* v, size_t n) {
    double m = 0;
    size_t i;
    for (i = 0; i < n; i++)
        if (v[i] == v[i] && !isinf(v[i]) && fabs(v[i]) > m) m = fabs(v[i]);
    return m;
}

static int same_exact(double a, double b) { return a == b || (a != a && b != b); }

/* Compares got with the reference want; returns 1 if every output matches, else 0 and a message. */
static int compare(const tcase* tc, const result* want, const result* got, char* msg, size_t cap) {
    int k;
    if (want->n != got->n) { snprintf(msg, cap, "%d outputs instead of %d", got->n, want->n); return 0; }
    for (k = 0; k < want->n; k++) {
        const res* w = &want->r[k];
        const res* g = &got->r[k];
        size_t i, bad = 0, first = 0;
        double worst = 0;
        if (w->n != g->n || w->dt != g->dt) { snprintf(msg, cap, "%s: shape or dtype differs", w->label); return 0; }
        if (w->i) {
            for (i = 0; i < w->n; i++)
                if (w->i[i] != g->i[i] && bad++ == 0) first = i;
            if (bad) {
                snprintf(msg, cap, "%s (%s): %lu of %lu elements differ; first [%lu]: got %lld, want %lld", w->label, rlx_dtype_name(w->dt),
                         (unsigned long)bad, (unsigned long)w->n, (unsigned long)first, (long long)g->i[first], (long long)w->i[first]);
                return 0;
            }
        } else {
            tol t = tol_for(tc->tol, w->dt);
            double atol = t.atol + t.mag * max_abs_finite(w->f, w->n);
            int exact = tc->tol == T_EXACT;
            for (i = 0; i < w->n; i++) {
                int ok = exact ? same_exact(g->f[i], w->f[i]) : th_close(g->f[i], w->f[i], atol, t.rtol);
                if (!ok) {
                    double e = fabs(g->f[i] - w->f[i]);
                    if (bad++ == 0) first = i;
                    if (!(e <= worst)) worst = e;
                }
            }
            if (bad) {
                snprintf(msg, cap, "%s (%s): %lu of %lu elements differ; first [%lu]: got %.9g, want %.9g; max |diff| %.3g; "
                         "tolerance %s",
                         w->label, rlx_dtype_name(w->dt), (unsigned long)bad, (unsigned long)w->n, (unsigned long)first, g->f[first],
                         w->f[first], worst, exact ? "exact" : "");
                if (!exact) {
                    size_t len = strlen(msg);
                    snprintf(msg + len, cap - len, "%.2g + %.2g*|want|", atol, t.rtol);
                }
                return 0;
            }
        }
    }
    return 1;
}

/* copies a result (for the perturbation self-check) */
static void result_copy(result* dst, const result* src_) {
    int k;
    memset(dst, 0, sizeof *dst);
    for (k = 0; k < src_->n; k++) {
        const res* s = &src_->r[k];
        res* d = result_add(dst, "", "", 0, 1, s->dt, s->n);
        memcpy(d->label, s->label, sizeof d->label);
        if (s->f) memcpy(d->f, s->f, s->n * sizeof(double));
        else memcpy(d->i, s->i, s->n * sizeof(int64_t));
    }
}

/* Perturbs one element of the first output of a copy of the reference; compare() must reject it. mode 0:
   move a float by 1e-2 plus twice the tolerance there (plus 1e-6 relative, so that huge values move too; an
   integer by 1); mode 1: make a float NaN (or a NaN 0). */
static int perturbation_detected(const tcase* tc, const result* ref, int mode) {
    result bad;
    char msg[512];
    int detected;
    res* o;
    size_t at;
    if (ref->n == 0) return 0;
    result_copy(&bad, ref);
    o = &bad.r[0];
    at = o->n / 2;
    if (o->i) o->i[at] += 1;
    else if (mode == 1) o->f[at] = o->f[at] != o->f[at] ? 0.0 : NAN;
    else if (o->f[at] != o->f[at] || isinf(o->f[at])) o->f[at] = 0;
    else {
        tol t = tol_for(tc->tol, o->dt);
        o->f[at] += 1e-2 + 1e-6 * fabs(o->f[at]) + 2 * (t.atol + t.mag * max_abs_finite(ref->r[0].f, o->n) + t.rtol * fabs(o->f[at]));
    }
    detected = !compare(tc, ref, &bad, msg, sizeof msg);
    result_free(&bad);
    return detected;
}

/* RLX_TEST_VERBOSE=2: the first values of every reference output */
static void dump_result(const char* name, const result* r) {
    int k;
    size_t i;
    for (k = 0; k < r->n; k++) {
        const res* o = &r->r[k];
        printf("  %s %s [%lu]:", name, o->label, (unsigned long)o->n);
        for (i = 0; i < o->n && i < 10; i++) {
            if (o->f) printf(" %.6g", o->f[i]);
            else printf(" %lld", (long long)o->i[i]);
        }
        printf("%s\n", o->n > 10 ? " ..." : "");
    }
}

/* =============================================================================================================
   main
   ============================================================================================================= */

enum { BK_CUDA, BK_HIP, BK_VULKAN, BK_CPU_DECOMPOSED, BK_COUNT };
typedef struct backend {
    const char* name;
    rlx_device dev;
    uint32_t flags;
    int active, available;
    char reason[256];
    int passed, failed, skipped;
} backend;

static int env_level(const char* name) {
    const char* v = getenv(name);
    return v && *v ? atoi(v) : 0;
}

int main(int argc, char** argv) {
    const char* filter = argc > 1 && strcmp(argv[1], "all") != 0 && argv[1][0] ? argv[1] : NULL;
    const char* only = argc > 2 ? argv[2] : NULL;
    int verbose = env_level("RLX_TEST_VERBOSE"), selfcheck = env_level("RLX_TEST_SELFCHECK") > 0;
    backend bk[BK_COUNT];
    rlx_device_info info[RLX_DEVICE_COUNT];
    int ndev, b, ci, selected = 0, cpu_ran = 0, cpu_failed = 0, perturb_ok = 0, perturb_missed = 0;
    static const char* families[32];
    int family_count[32], nfam = 0, f, filter_is_family = 0;

    memset(bk, 0, sizeof bk);
    bk[BK_CUDA].name = "cuda";
    bk[BK_CUDA].dev = RLX_DEVICE_CUDA;
    bk[BK_HIP].name = "hip";
    bk[BK_HIP].dev = RLX_DEVICE_HIP;
    bk[BK_VULKAN].name = "vulkan";
    bk[BK_VULKAN].dev = RLX_DEVICE_VULKAN;
    bk[BK_CPU_DECOMPOSED].name = "cpu-decomposed";
    bk[BK_CPU_DECOMPOSED].dev = RLX_DEVICE_CPU;
    bk[BK_CPU_DECOMPOSED].flags = RLX_COMPILE_NO_OPTIMIZE | RLX_COMPILE_DECOMPOSE;
    if (only && strcmp(only, "cpu-decomposed") == 0) selfcheck = 1;

    ndev = rlx_devices(info, RLX_DEVICE_COUNT);
    for (b = 0; b < BK_COUNT; b++) {
        int d;
        bk[b].active = b == BK_CPU_DECOMPOSED ? selfcheck : 1;
        if (only && strcmp(only, bk[b].name) != 0) bk[b].active = 0;
        snprintf(bk[b].reason, sizeof bk[b].reason, "rlx_devices does not list it");
        for (d = 0; d < ndev && d < RLX_DEVICE_COUNT; d++)
            if (info[d].device == bk[b].dev) {
                bk[b].available = info[d].available;
                snprintf(bk[b].reason, sizeof bk[b].reason, "%s", info[d].reason);
            }
    }
    if (only) {
        for (b = 0; b < BK_COUNT && !bk[b].active; b++) {}
        if (b == BK_COUNT) {
            printf("unknown backend '%s' (cuda, hip, vulkan or cpu-decomposed)\n", only);
            return 2;
        }
    }

    make_cases();
    for (ci = 0; ci < ncases && filter; ci++)
        if (strcmp(cases[ci].family, filter) == 0) filter_is_family = 1;
    memset(family_count, 0, sizeof family_count);
    for (ci = 0; ci < ncases; ci++) {
        const tcase* tc = &cases[ci];
        bctx c;
        result ref;
        char err[1024], line[1024];
        size_t ll = 0;
        if (filter && (filter_is_family ? strcmp(tc->family, filter) != 0 : !strstr(tc->name, filter))) continue;
        selected++;
        for (f = 0; f < nfam && strcmp(families[f], tc->family) != 0; f++) {}
        if (f == nfam && nfam < 32) families[nfam++] = tc->family;
        if (f < 32) family_count[f]++;

        /* build once (data from a seed that depends only on the case) and run on the CPU: the reference */
        memset(&c, 0, sizeof c);
        th_seed(0x0BAC4E4Dull + 7919ull * (uint64_t)ci);
        c.g = rlx_graph_create(NULL);
        c.runs = 1;
        tc->build(&c, tc);
        if (c.overflow) {
            printf("FAIL %s: too many sources or outputs for the test's tables\n", tc->name);
            th_failed++;
            cpu_failed++;
            ctx_free(&c);
            continue;
        }
        if (!execute(&c, RLX_DEVICE_CPU, 0, &ref, err, sizeof err)) {
            printf("FAIL %s [cpu reference]: %s\n", tc->name, err);
            th_failed++;
            cpu_failed++;
            result_free(&ref);
            ctx_free(&c);
            continue;
        }
        cpu_ran++;
        if (verbose > 1) dump_result(tc->name, &ref);
        ll += (size_t)snprintf(line + ll, sizeof line - ll, "%s: cpu ok", tc->name);

        for (b = 0; b < BK_COUNT; b++) {
            result got;
            const char* verdict;
            int ran;
            if (!bk[b].active) continue;
            if (!bk[b].available) {
                bk[b].skipped++;
                th_skipped++;
                verdict = "skipped";
            } else if (!(ran = execute(&c, bk[b].dev, bk[b].flags | RLX_COMPILE_NO_FALLBACK, &got, err, sizeof err)) &&
                       last_unsupported) {
                printf("SKIP %s [%s]: %s\n", tc->name, bk[b].name, err);
                bk[b].skipped++;
                th_skipped++;
                verdict = "skipped";
            } else if (!ran) {
                printf("FAIL %s [%s]: %s\n", tc->name, bk[b].name, err);
                bk[b].failed++;
                th_failed++;
                verdict = "FAILED";
            } else if (!compare(tc, &ref, &got, err, sizeof err)) {
                printf("FAIL %s [%s]: %s\n", tc->name, bk[b].name, err);
                bk[b].failed++;
                th_failed++;
                verdict = "FAILED";
            } else {
                bk[b].passed++;
                th_passed++;
                verdict = "passed";
            }
            if (bk[b].available) result_free(&got);
            if (ll < sizeof line) ll += (size_t)snprintf(line + ll, sizeof line - ll, ", %s %s", bk[b].name, verdict);
        }
        if (selfcheck) {
            int m, det = 0, tries = 0;
            for (m = 0; m < 2; m++) {
                if (m == 1 && (ref.n == 0 || !ref.r[0].f)) continue; /* NaN only applies to floats */
                tries++;
                if (perturbation_detected(tc, &ref, m)) { perturb_ok++; det++; }
                else {
                    perturb_missed++;
                    printf("FAIL %s [selfcheck]: a perturbed output (%s) was not detected\n", tc->name, m ? "NaN" : "moved");
                }
            }
            if (ll < sizeof line) ll += (size_t)snprintf(line + ll, sizeof line - ll, ", perturbations %s", det == tries ? "detected" : "MISSED");
        }
        if (verbose) printf("%s\n", line);
        fflush(stdout); /* keep what was printed if a later case crashes */
        result_free(&ref);
        ctx_free(&c);
    }
    free(cases);

    if (selected == 0) {
        printf("no case matches '%s'\n", filter ? filter : "");
        return 2;
    }
    printf("cases per family:");
    for (f = 0; f < nfam; f++) printf(" %s %d%s", families[f], family_count[f], f + 1 < nfam ? "," : "");
    printf("\n");
    if (cpu_failed) printf("cpu: %d cases ran, %d could not run (counted as failures)\n", cpu_ran, cpu_failed);
    else printf("cpu: %d cases ran\n", cpu_ran);
    for (b = 0; b < BK_COUNT; b++) {
        if (!bk[b].active) continue;
        if (!bk[b].available) printf("%s: skipped all %d cases: %s\n", bk[b].name, bk[b].skipped, bk[b].reason);
        printf("%s: %d passed, %d failed, %d skipped\n", bk[b].name, bk[b].passed, bk[b].failed, bk[b].skipped);
    }
    if (selfcheck) {
        th_passed += perturb_ok;
        th_failed += perturb_missed;
        printf("selfcheck-perturbed: %d passed, %d failed, 0 skipped\n", perturb_ok, perturb_missed);
    }
    return th_summary("backends");
}
