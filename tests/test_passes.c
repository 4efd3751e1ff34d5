/* Graph passes: constant folding, common subexpression elimination, dead code elimination.

   Every graph is compiled twice, with default flags and with RLX_COMPILE_NO_OPTIMIZE, and run with the same
   inputs: the outputs must agree (f32 within 1e-6 relative, integers and bools exactly) and match a double (or
   exact integer) reference computed here. Where an optimisation applies, the optimised plan must have fewer
   steps (rlx_plan_info.num_steps); where none applies, the same number. Also checks what the passes must NOT
   do: merge different params, constants, inputs, operand orders or attributes, fold params or inputs, change
   f32/f16 rounding or integer semantics, or drop the names of dead params and inputs. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../rlx.h"
#include "harness.h"

#include <stdlib.h>

#define MAXN 64

/* ------------------------------------------------------------------------------------------------------------
   Helpers
   ------------------------------------------------------------------------------------------------------------ */

static const char* rs(rlx_result r) { return rlx_result_string(r); }

static int is_float(rlx_dtype t) { return t == RLX_F32 || t == RLX_F64 || t == RLX_F16 || t == RLX_BF16; }

typedef struct feed {
    const char* name;
    int is_param;
    rlx_dtype dtype;
    const void* data;
    size_t bytes;
} feed;

static feed F32(const char* name, int is_param, const float* data, int n) {
    feed f;
    f.name = name;
    f.is_param = is_param;
    f.dtype = RLX_F32;
    f.data = data;
    f.bytes = (size_t)n * sizeof(float);
    return f;
}
static feed I32(const char* name, int is_param, const int32_t* data, int n) {
    feed f = F32(name, is_param, NULL, 0);
    f.dtype = RLX_I32;
    f.data = data;
    f.bytes = (size_t)n * sizeof(int32_t);
    return f;
}

static rlx_program* compile(rlx_graph* g, uint32_t flags, const char* what) {
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    rlx_result r;
    memset(&cd, 0, sizeof cd);
    cd.flags = flags;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_OK && p != NULL, "%s: compile%s: %s: %s", what, flags ? " (NO_OPTIMIZE)" : "", rs(r),
             rlx_graph_error(g));
    return r == RLX_OK ? p : NULL;
}

static int steps_of(rlx_program* p) {
    rlx_plan_info info;
    if (!p || rlx_program_plan(p, &info) != RLX_OK) return -1;
    return info.num_steps;
}

static int feed_all(rlx_program* p, const feed* feeds, int nfeeds, const char* what) {
    int i;
    for (i = 0; i < nfeeds; i++) {
        rlx_result r = feeds[i].is_param ? rlx_set_param(p, feeds[i].name, feeds[i].dtype, feeds[i].data, feeds[i].bytes)
                                         : rlx_set_input(p, feeds[i].name, feeds[i].dtype, feeds[i].data, feeds[i].bytes);
        TH_CHECK(r == RLX_OK, "%s: set %s: %s: %s", what, feeds[i].name, rs(r), rlx_program_error(p));
        if (r != RLX_OK) return 0;
    }
    return 1;
}

/* one output: dtype, element count, and the values as doubles (exact for every integer that fits) */
typedef struct outval {
    rlx_dtype dtype;
    int64_t n;
    double v[MAXN];
    int64_t iv[MAXN];
} outval;

static int read_out(rlx_program* p, const char* name, outval* o, const char* what) {
    const void* ptr = NULL;
    int rank = -1, i;
    int64_t shape[RLX_MAX_RANK];
    rlx_result r = rlx_output_ptr(p, name, &ptr, &o->dtype, &rank, shape);
    TH_CHECK(r == RLX_OK, "%s: output %s: %s: %s", what, name, rs(r), rlx_program_error(p));
    if (r != RLX_OK) return 0;
    for (o->n = 1, i = 0; i < rank; i++) o->n *= shape[i];
    if (o->n > MAXN) return 0;
    r = rlx_get_output(p, name, RLX_F64, o->v, (size_t)o->n * sizeof(double));
    TH_CHECK(r == RLX_OK, "%s: get %s as f64: %s", what, name, rs(r));
    if (r != RLX_OK) return 0;
    r = rlx_get_output(p, name, RLX_I64, o->iv, (size_t)o->n * sizeof(int64_t));
    TH_CHECK(r == RLX_OK, "%s: get %s as i64: %s", what, name, rs(r));
    return r == RLX_OK;
}

typedef struct pair {
    rlx_program *opt, *noopt;
    int steps_opt, steps_noopt;
} pair;

/* compile both ways, feed, run */
static pair build_pair(rlx_graph* g, const feed* feeds, int nfeeds, const char* what) {
    pair pr;
    rlx_result r;
    pr.opt = compile(g, 0, what);
    pr.noopt = compile(g, RLX_COMPILE_NO_OPTIMIZE, what);
    pr.steps_opt = steps_of(pr.opt);
    pr.steps_noopt = steps_of(pr.noopt);
    if (pr.opt && feed_all(pr.opt, feeds, nfeeds, what)) {
        r = rlx_run(pr.opt);
        TH_CHECK(r == RLX_OK, "%s: run: %s: %s", what, rs(r), rlx_program_error(pr.opt));
        if (r != RLX_OK) { rlx_program_destroy(pr.opt); pr.opt = NULL; }
    } else if (pr.opt) {
        rlx_program_destroy(pr.opt);
        pr.opt = NULL;
    }
    if (pr.noopt && feed_all(pr.noopt, feeds, nfeeds, what)) {
        r = rlx_run(pr.noopt);
        TH_CHECK(r == RLX_OK, "%s: run (NO_OPTIMIZE): %s: %s", what, rs(r), rlx_program_error(pr.noopt));
        if (r != RLX_OK) { rlx_program_destroy(pr.noopt); pr.noopt = NULL; }
    } else if (pr.noopt) {
        rlx_program_destroy(pr.noopt);
        pr.noopt = NULL;
    }
    return pr;
}

static void free_pair(pair* pr) {
    rlx_program_destroy(pr->opt);
    rlx_program_destroy(pr->noopt);
    pr->opt = pr->noopt = NULL;
}

/* optimised vs unoptimised: floats within 1e-6 relative, everything else exact */
static void same_outputs(pair* pr, const char* const* names, int n, const char* what) {
    int k, i;
    if (!pr->opt || !pr->noopt) return;
    for (k = 0; k < n; k++) {
        outval a, b;
        int ok = 1, bad = -1;
        if (!read_out(pr->opt, names[k], &a, what) || !read_out(pr->noopt, names[k], &b, what)) continue;
        if (a.dtype != b.dtype || a.n != b.n) {
            TH_CHECK(0, "%s: output %s: %s[%d] optimised vs %s[%d]", what, names[k], rlx_dtype_name(a.dtype), (int)a.n,
                     rlx_dtype_name(b.dtype), (int)b.n);
            continue;
        }
        for (i = 0; i < a.n; i++) {
            int same = is_float(a.dtype) ? th_close(a.v[i], b.v[i], 1e-30, 1e-6) : a.iv[i] == b.iv[i];
            if (!same && ok) { ok = 0; bad = i; }
        }
        TH_CHECK(ok, "%s: output %s[%d]: optimised %.9g, unoptimised %.9g", what, names[k], bad,
                 bad >= 0 ? a.v[bad] : 0.0, bad >= 0 ? b.v[bad] : 0.0);
    }
}

/* the optimised program against a reference */
static void check_ref(rlx_program* p, const char* name, const double* want, int n, double rtol, double atol,
                      const char* what) {
    outval o;
    int i, bad = -1;
    if (!p || !read_out(p, name, &o, what)) return;
    TH_CHECK(o.n == n, "%s: output %s has %d elements, want %d", what, name, (int)o.n, n);
    if (o.n != n) return;
    for (i = 0; i < n; i++)
        if (!(is_float(o.dtype) ? th_close(o.v[i], want[i], atol, rtol) : (double)o.iv[i] == want[i])) {
            bad = i;
            break;
        }
    TH_CHECK(bad < 0, "%s: output %s[%d] = %.9g, want %.9g", what, name, bad, bad >= 0 ? o.v[bad] : 0.0,
             bad >= 0 ? want[bad] : 0.0);
}

static void check_ref_both(pair* pr, const char* name, const double* want, int n, double rtol, double atol,
                           const char* what) {
    check_ref(pr->opt, name, want, n, rtol, atol, what);
    check_ref(pr->noopt, name, want, n, rtol, atol, what);
}

static void fewer_steps(const pair* pr, const char* what) {
    TH_CHECK(pr->steps_opt >= 0 && pr->steps_opt < pr->steps_noopt, "%s: optimised plan has %d steps, unoptimised %d",
             what, pr->steps_opt, pr->steps_noopt);
}

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

/* ------------------------------------------------------------------------------------------------------------
   Constant folding
   ------------------------------------------------------------------------------------------------------------ */

/* y = x * (exp(c1*c2) + sqrt(c2) - 1.5) + c1 */
static void test_fold_basic(void) {
    const char* what = "fold: x * f(constants) + c";
    static const float c1v[4] = {1, 2, 3, 4}, c2v[4] = {0.5f, 0.25f, 0.125f, 1.5f}, xv[4] = {0.3f, -1.2f, 2.5f, 0.7f};
    int64_t s4[1] = {4};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 1, s4);
    rlx_tensor c1 = rlx_constant(g, RLX_F32, 1, s4, c1v), c2 = rlx_constant(g, RLX_F32, 1, s4, c2v);
    rlx_tensor k = rlx_sub(g, rlx_add(g, rlx_exp(g, rlx_mul(g, c1, c2)), rlx_sqrt(g, c2)), rlx_scalar(g, RLX_F32, 1.5));
    const char* outs[1] = {"y"};
    double want[4];
    feed fd[1];
    pair pr;
    int i;
    rlx_output(g, "y", rlx_add(g, rlx_mul(g, x, k), c1));
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "%s: %s", what, rlx_graph_error(g));
    fd[0] = F32("x", 0, xv, 4);
    pr = build_pair(g, fd, 1, what);
    for (i = 0; i < 4; i++) want[i] = xv[i] * (exp((double)c1v[i] * c2v[i]) + sqrt((double)c2v[i]) - 1.5) + c1v[i];
    same_outputs(&pr, outs, 1, what);
    check_ref_both(&pr, "y", want, 4, 1e-5, 1e-6, what);
    fewer_steps(&pr, what);
    free_pair(&pr);
    rlx_graph_destroy(g);
}

/* a graph without inputs or params: every output folds; it still runs and gives the right values */
static void test_fold_all_constant(void) {
    const char* what = "fold: all-constant graph";
    static const float av[6] = {0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f}, bv[6] = {1, -1, 2, 0.5f, -0.25f, 3};
    static const int32_t iv[4] = {7, -3, 100, 2147483647};
    int64_t s23[2] = {2, 3}, s32[2] = {3, 2}, s4[1] = {4};
    int ax1[1] = {1};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor a = rlx_constant(g, RLX_F32, 2, s23, av), b = rlx_constant(g, RLX_F32, 2, s32, bv);
    rlx_tensor m = rlx_matmul(g, a, b);
    rlx_tensor ic = rlx_constant(g, RLX_I32, 1, s4, iv);
    const char* outs[7] = {"m", "s", "t", "e", "i", "five", "rm"};
    double wm[4], ws[1], wt[6], we[4], wi[4], w5[1], wrm[2];
    pair pr;
    int i, j, k;
    rlx_output(g, "m", m);
    rlx_output(g, "s", rlx_reduce_sum(g, rlx_relu(g, rlx_sub(g, m, rlx_scalar(g, RLX_F32, 1.0))), 0, NULL, 0));
    rlx_output(g, "t", rlx_transpose(g, a, NULL)); /* a view of a constant */
    rlx_output(g, "e", rlx_add(g, rlx_mul(g, rlx_tanh(g, m), rlx_scalar(g, RLX_F32, 2.0)), rlx_sigmoid(g, m)));
    rlx_output(g, "i", rlx_mul(g, rlx_add(g, ic, ic), rlx_scalar(g, RLX_I32, 3.0)));
    rlx_output(g, "five", rlx_add(g, rlx_scalar(g, RLX_F64, 2.0), rlx_scalar(g, RLX_F64, 3.0)));
    rlx_output(g, "rm", rlx_reduce_max(g, a, 1, ax1, 0));
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "%s: %s", what, rlx_graph_error(g));
    pr = build_pair(g, NULL, 0, what);
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++) {
            double s = 0;
            for (k = 0; k < 3; k++) s += (double)av[i * 3 + k] * bv[k * 2 + j];
            wm[i * 2 + j] = s;
        }
    for (ws[0] = 0, i = 0; i < 4; i++) ws[0] += wm[i] - 1 > 0 ? wm[i] - 1 : 0;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 2; j++) wt[i * 2 + j] = av[j * 3 + i];
    for (i = 0; i < 4; i++) we[i] = tanh(wm[i]) * 2 + sigmoid(wm[i]);
    for (i = 0; i < 4; i++) wi[i] = (double)(int32_t)((uint32_t)iv[i] * 2u * 3u); /* wraps */
    w5[0] = 5;
    wrm[0] = 0.75;
    wrm[1] = 1.5;
    same_outputs(&pr, outs, 7, what);
    check_ref_both(&pr, "m", wm, 4, 1e-6, 1e-7, what);
    check_ref_both(&pr, "s", ws, 1, 1e-6, 1e-7, what);
    check_ref_both(&pr, "t", wt, 6, 0, 0, what);
    check_ref_both(&pr, "e", we, 4, 1e-5, 1e-6, what);
    check_ref_both(&pr, "i", wi, 4, 0, 0, what);
    check_ref_both(&pr, "five", w5, 1, 0, 0, what);
    check_ref_both(&pr, "rm", wrm, 2, 0, 0, what);
    fewer_steps(&pr, what);
    /* a second run of the folded program gives the same */
    if (pr.opt) {
        TH_CHECK(rlx_run(pr.opt) == RLX_OK, "%s: second run", what);
        check_ref(pr.opt, "e", we, 4, 1e-5, 1e-6, what);
        check_ref(pr.opt, "i", wi, 4, 0, 0, what);
    }
    free_pair(&pr);
    rlx_graph_destroy(g);

    {   /* the smallest one: an output that is a folded scalar */
        rlx_graph* g2 = rlx_graph_create(NULL);
        const char* o2[1] = {"y"};
        double w2[1] = {-1.0};
        rlx_output(g2, "y", rlx_sub(g2, rlx_scalar(g2, RLX_F32, 2.0), rlx_scalar(g2, RLX_F32, 3.0)));
        pr = build_pair(g2, NULL, 0, "fold: scalar - scalar");
        same_outputs(&pr, o2, 1, "fold: scalar - scalar");
        check_ref_both(&pr, "y", w2, 1, 0, 0, "fold: scalar - scalar");
        TH_CHECK(pr.steps_opt >= 0 && pr.steps_opt <= pr.steps_noopt, "fold: scalar - scalar: %d vs %d steps",
                 pr.steps_opt, pr.steps_noopt);
        free_pair(&pr);
        rlx_graph_destroy(g2);
    }
}

/* folding keeps the dtype's rounding: f32 nodes round to f32 at every step, f16 nodes to f16 */
static void test_fold_rounding(void) {
    const char* what = "fold: per-node rounding";
    static const float big[2] = {1e8f, 16777216.0f}, one[2] = {1.0f, 1.0f};
    static const uint16_t h1[4] = {0x3c00, 0x3c01, 0x7bff, 0x0001}, h2[4] = {0x1000, 0x3c01, 0x7bff, 0x0001};
    int64_t s2[1] = {2}, s4[1] = {4};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor b = rlx_constant(g, RLX_F32, 1, s2, big), o = rlx_constant(g, RLX_F32, 1, s2, one);
    rlx_tensor a16 = rlx_constant(g, RLX_F16, 1, s4, h1), b16 = rlx_constant(g, RLX_F16, 1, s4, h2);
    const char* outs[3] = {"cancel", "h_add", "h_mul"};
    double wc[2] = {0, 0}, wadd[4], wmul[4];
    pair pr;
    rlx_output(g, "cancel", rlx_sub(g, rlx_add(g, b, o), b)); /* (1e8 + 1) - 1e8 is 0 in f32, 1 in f64 */
    rlx_output(g, "h_add", rlx_add(g, a16, b16));
    rlx_output(g, "h_mul", rlx_mul(g, a16, b16));
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "%s: %s", what, rlx_graph_error(g));
    pr = build_pair(g, NULL, 0, what);
    /* f16 sums/products of these values, rounded to f16 (computed by hand):
       1 + 2^-11 -> 1 (tie to even); 1.000977*2 -> 2.001953; 65504*2 -> inf; 2^-24 * 2 -> 2^-23 */
    wadd[0] = 1.0;
    wadd[1] = 2.001953125;
    wadd[2] = INFINITY;
    wadd[3] = ldexp(1.0, -23);
    wmul[0] = ldexp(1.0, -11);                   /* 1 * 2^-11 */
    wmul[1] = 1.001953125;                      /* (1+2^-10)^2 = 1 + 2^-9 + 2^-20 -> 1 + 2^-9 */
    wmul[2] = INFINITY;
    wmul[3] = 0.0;                              /* 2^-48 underflows */
    same_outputs(&pr, outs, 3, what);
    check_ref_both(&pr, "cancel", wc, 2, 0, 0, what);
    check_ref_both(&pr, "h_add", wadd, 4, 0, 0, what);
    check_ref_both(&pr, "h_mul", wmul, 4, 0, 0, what);
    fewer_steps(&pr, what);
    free_pair(&pr);
    rlx_graph_destroy(g);
}

/* casts fold with the rules of rlx_cast */
static void test_fold_casts(void) {
    const char* what = "fold: casts";
    static const float fv[8] = {1e10f, -1e10f, NAN, 2.7f, -2.7f, 0.5f, 300.0f, -300.0f};
    int64_t s8[1] = {8};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_graph* gi = rlx_graph_create(NULL); /* the same with an input instead of a constant */
    const char* outs[5] = {"i32", "u8", "i8", "b", "h"};
    double w32[8], wu8[8], wi8[8], wb[8], wh[8];
    feed fd[1];
    pair pr, pi;
    int i, k;
    for (k = 0; k < 2; k++) {
        rlx_graph* gg = k ? gi : g;
        rlx_tensor c = k ? rlx_input(gg, "x", RLX_F32, 1, s8) : rlx_constant(gg, RLX_F32, 1, s8, fv);
        rlx_output(gg, "i32", rlx_cast(gg, c, RLX_I32));
        rlx_output(gg, "u8", rlx_cast(gg, c, RLX_U8));
        rlx_output(gg, "i8", rlx_cast(gg, rlx_cast(gg, c, RLX_I64), RLX_I8));
        rlx_output(gg, "b", rlx_cast(gg, c, RLX_BOOL));
        rlx_output(gg, "h", rlx_cast(gg, rlx_cast(gg, c, RLX_F16), RLX_F32));
        TH_CHECK(rlx_graph_status(gg) == RLX_OK, "%s: %s", what, rlx_graph_error(gg));
    }
    for (i = 0; i < 8; i++) {
        double v = fv[i], t = v != v ? 0 : v < 0 ? ceil(v) : floor(v);
        w32[i] = t > 2147483647.0 ? 2147483647.0 : t < -2147483648.0 ? -2147483648.0 : t;
        wu8[i] = t > 255 ? 255 : t < 0 ? 0 : t;
        wi8[i] = t > 127 ? 127 : t < -128 ? -128 : t; /* i64 then saturated to i8 */
        if (v != v) wi8[i] = 0;
        wb[i] = v != 0; /* NaN -> true */
        wh[i] = v;
    }
    wh[0] = INFINITY;           /* 1e10 overflows f16 */
    wh[1] = -INFINITY;
    wh[3] = 2.69921875;         /* 2.7 rounded to f16 */
    wh[4] = -2.69921875;
    fd[0] = F32("x", 0, fv, 8);
    pr = build_pair(g, NULL, 0, what);
    pi = build_pair(gi, fd, 1, "casts (runtime)");
    same_outputs(&pr, outs, 5, what);
    same_outputs(&pi, outs, 5, "casts (runtime)");
    check_ref_both(&pr, "i32", w32, 8, 0, 0, what);
    check_ref_both(&pr, "u8", wu8, 8, 0, 0, what);
    check_ref_both(&pr, "i8", wi8, 8, 0, 0, what);
    check_ref_both(&pr, "b", wb, 8, 0, 0, what);
    check_ref_both(&pr, "h", wh, 8, 0, 0, what);
    check_ref_both(&pi, "i32", w32, 8, 0, 0, "casts (runtime)");
    check_ref_both(&pi, "u8", wu8, 8, 0, 0, "casts (runtime)");
    check_ref_both(&pi, "i8", wi8, 8, 0, 0, "casts (runtime)");
    check_ref_both(&pi, "b", wb, 8, 0, 0, "casts (runtime)");
    check_ref_both(&pi, "h", wh, 8, 0, 0, "casts (runtime)");
    fewer_steps(&pr, what);
    TH_CHECK(pi.steps_opt == pi.steps_noopt, "casts (runtime): nothing to optimise, yet %d vs %d steps", pi.steps_opt,
             pi.steps_noopt);
    free_pair(&pr);
    free_pair(&pi);
    rlx_graph_destroy(g);
    rlx_graph_destroy(gi);
}

/* integer ops fold exactly like they run: wrap-around, x/0 = 0, truncating division, pow, comparisons, where */
static int32_t wrap32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }
static int32_t ref_div(int32_t a, int32_t b) {
    if (b == 0) return 0;
    if (a == INT32_MIN && b == -1) return INT32_MIN; /* wraps */
    return a / b;
}
static int32_t ref_pow(int32_t a, int32_t b) {
    uint32_t r = 1;
    int i;
    if (b < 0) return 0;
    for (i = 0; i < b; i++) r *= (uint32_t)a;
    return (int32_t)r;
}

static void int_graph(rlx_graph* g, rlx_tensor a, rlx_tensor b, rlx_tensor e) {
    rlx_output(g, "add", rlx_add(g, a, b));
    rlx_output(g, "sub", rlx_sub(g, a, b));
    rlx_output(g, "mul", rlx_mul(g, a, b));
    rlx_output(g, "max", rlx_max(g, a, b));
    rlx_output(g, "min", rlx_min(g, a, b));
    rlx_output(g, "pow", rlx_pow(g, b, e));
    rlx_output(g, "lt", rlx_lt(g, a, b));
    rlx_output(g, "eq", rlx_eq(g, a, b));
    rlx_output(g, "where", rlx_where(g, rlx_ge(g, a, b), rlx_neg(g, a), rlx_abs(g, b)));
    rlx_output(g, "sum", rlx_reduce_sum(g, a, 0, NULL, 0)); /* int64 */
}

static void test_fold_integers(void) {
    static const int32_t av[8] = {INT32_MAX, 7, -7, 5, -2000000000, 9, 100, -1};
    static const int32_t bv[8] = {1, -2, 2, 0, -2000000000, 3, 0, 0};
    static const int32_t ev[8] = {10, 3, 31, 0, -1, 2, 1, 30};
    const char* outs[10] = {"add", "sub", "mul", "max", "min", "pow", "lt", "eq", "where", "sum"};
    double w[10][8];
    int64_t s8[1] = {8};
    feed fd[3];
    int k, i;
    for (i = 0; i < 8; i++) {
        w[0][i] = wrap32((int64_t)av[i] + bv[i]);
        w[1][i] = wrap32((int64_t)av[i] - bv[i]);
        w[2][i] = wrap32((int64_t)((uint64_t)(int64_t)av[i] * (uint64_t)(int64_t)bv[i]));
        w[3][i] = av[i] > bv[i] ? av[i] : bv[i];
        w[4][i] = av[i] < bv[i] ? av[i] : bv[i];
        w[5][i] = ref_pow(bv[i], ev[i]);
        w[6][i] = av[i] < bv[i];
        w[7][i] = av[i] == bv[i];
        w[8][i] = av[i] >= bv[i] ? wrap32(-(int64_t)av[i]) : (bv[i] < 0 ? wrap32(-(int64_t)bv[i]) : bv[i]);
    }
    for (w[9][0] = 0, i = 0; i < 8; i++) w[9][0] += av[i];
    fd[0] = I32("a", 0, av, 8);
    fd[1] = I32("b", 0, bv, 8);
    fd[2] = I32("e", 1, ev, 8);
    for (k = 0; k < 2; k++) {
        const char* what = k ? "integers (runtime)" : "fold: integers";
        rlx_graph* g = rlx_graph_create(NULL);
        rlx_tensor a = k ? rlx_input(g, "a", RLX_I32, 1, s8) : rlx_constant(g, RLX_I32, 1, s8, av);
        rlx_tensor b = k ? rlx_input(g, "b", RLX_I32, 1, s8) : rlx_constant(g, RLX_I32, 1, s8, bv);
        rlx_tensor e = k ? rlx_param(g, "e", RLX_I32, 1, s8) : rlx_constant(g, RLX_I32, 1, s8, ev);
        pair pr;
        int_graph(g, a, b, e);
        TH_CHECK(rlx_graph_status(g) == RLX_OK, "%s: %s", what, rlx_graph_error(g));
        pr = build_pair(g, fd, k ? 3 : 0, what);
        same_outputs(&pr, outs, 10, what);
        for (i = 0; i < 10; i++) check_ref_both(&pr, outs[i], w[i], i == 9 ? 1 : 8, 0, 0, what);
        if (k == 0) fewer_steps(&pr, what);
        else TH_CHECK(pr.steps_opt == pr.steps_noopt, "%s: nothing to optimise, yet %d vs %d steps", what,
                      pr.steps_opt, pr.steps_noopt);
        free_pair(&pr);
        rlx_graph_destroy(g);
    }
}

/* division: x/0 = 0 and INT_MIN / -1 wraps (no trap), folded and at run time */
static void test_fold_division(void) {
    static const int32_t av[6] = {7, -7, 5, INT32_MIN, 9, -9};
    static const int32_t bv[6] = {-2, 2, 0, -1, 3, 0};
    static const int64_t lav[2] = {INT64_MIN, 5}, lbv[2] = {-1, 0};
    const char* outs[2] = {"div", "ldiv"};
    double w[6];
    int64_t s6[1] = {6}, s2[1] = {2};
    feed fd[4];
    int k, i;
    for (i = 0; i < 6; i++) w[i] = ref_div(av[i], bv[i]);
    fd[0] = I32("a", 0, av, 6);
    fd[1] = I32("b", 0, bv, 6);
    fd[2].name = "la";
    fd[2].is_param = 0;
    fd[2].dtype = RLX_I64;
    fd[2].data = lav;
    fd[2].bytes = sizeof lav;
    fd[3] = fd[2];
    fd[3].name = "lb";
    fd[3].data = lbv;
    for (k = 0; k < 2; k++) {
        const char* what = k ? "division (runtime)" : "fold: division";
        rlx_graph* g = rlx_graph_create(NULL);
        rlx_tensor a = k ? rlx_input(g, "a", RLX_I32, 1, s6) : rlx_constant(g, RLX_I32, 1, s6, av);
        rlx_tensor b = k ? rlx_input(g, "b", RLX_I32, 1, s6) : rlx_constant(g, RLX_I32, 1, s6, bv);
        rlx_tensor la = k ? rlx_input(g, "la", RLX_I64, 1, s2) : rlx_constant(g, RLX_I64, 1, s2, lav);
        rlx_tensor lb = k ? rlx_input(g, "lb", RLX_I64, 1, s2) : rlx_constant(g, RLX_I64, 1, s2, lbv);
        pair pr;
        rlx_output(g, "div", rlx_div(g, a, b));
        rlx_output(g, "ldiv", rlx_div(g, la, lb));
        TH_CHECK(rlx_graph_status(g) == RLX_OK, "%s: %s", what, rlx_graph_error(g));
        pr = build_pair(g, fd, k ? 4 : 0, what);
        same_outputs(&pr, outs, 2, what);
        check_ref_both(&pr, "div", w, 6, 0, 0, what);
        {   /* INT64_MIN does not survive a trip through double exactly; compare as integers */
            outval o;
            if (pr.opt && read_out(pr.opt, "ldiv", &o, what))
                TH_CHECK(o.iv[0] == INT64_MIN && o.iv[1] == 0, "%s: i64 INT64_MIN/-1 = %lld, 5/0 = %lld", what,
                         (long long)o.iv[0], (long long)o.iv[1]);
        }
        free_pair(&pr);
        rlx_graph_destroy(g);
    }
}

/* folding through layout ops, reductions and broadcasting; outputs that are views of folded constants */
static void test_fold_layout(void) {
    const char* what = "fold: layout ops";
    static const float cv[6] = {1, 2, 3, 4, 5, 6}, xv[6] = {0.5f, -1, 2, -3, 4, -5};
    int64_t s23[2] = {2, 3}, s6[1] = {6};
    int ax0[1] = {0};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor c = rlx_constant(g, RLX_F32, 2, s23, cv), x = rlx_input(g, "x", RLX_F32, 1, s6), xs[2];
    rlx_tensor ct = rlx_transpose(g, c, NULL); /* [3,2] */
    rlx_tensor flat = rlx_reshape(g, ct, 1, s6);
    rlx_tensor mean0 = rlx_reduce_mean(g, c, 1, ax0, 1); /* [1,3] */
    const char* outs[5] = {"y", "ct", "sl", "cat", "bc"};
    double wy[6], wct[6], wsl[2], wcat[12], wbc[6];
    feed fd[1];
    pair pr;
    int i, j;
    xs[0] = c;
    xs[1] = rlx_neg(g, c);
    rlx_output(g, "y", rlx_add(g, x, rlx_mul(g, flat, rlx_scalar(g, RLX_F32, 0.5))));
    rlx_output(g, "ct", ct);
    rlx_output(g, "sl", rlx_slice(g, flat, 0, 1, 2, 3));
    rlx_output(g, "cat", rlx_concat(g, 2, xs, 0));
    rlx_output(g, "bc", rlx_sub(g, rlx_reshape(g, x, 2, s23), rlx_expand(g, mean0, 2, s23)));
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "%s: %s", what, rlx_graph_error(g));
    fd[0] = F32("x", 0, xv, 6);
    pr = build_pair(g, fd, 1, what);
    for (i = 0; i < 3; i++)
        for (j = 0; j < 2; j++) wct[i * 2 + j] = cv[j * 3 + i];
    for (i = 0; i < 6; i++) wy[i] = xv[i] + wct[i] * 0.5;
    wsl[0] = wct[1];
    wsl[1] = wct[4];
    for (i = 0; i < 6; i++) {
        wcat[i] = cv[i];
        wcat[6 + i] = -cv[i];
    }
    for (i = 0; i < 2; i++)
        for (j = 0; j < 3; j++) wbc[i * 3 + j] = xv[i * 3 + j] - (cv[j] + cv[3 + j]) / 2.0;
    same_outputs(&pr, outs, 5, what);
    check_ref_both(&pr, "y", wy, 6, 1e-6, 1e-7, what);
    check_ref_both(&pr, "ct", wct, 6, 0, 0, what);
    check_ref_both(&pr, "sl", wsl, 2, 0, 0, what);
    check_ref_both(&pr, "cat", wcat, 12, 0, 0, what);
    check_ref_both(&pr, "bc", wbc, 6, 1e-6, 1e-7, what);
    fewer_steps(&pr, what);
    free_pair(&pr);
    rlx_graph_destroy(g);
}

/* params and inputs are never folded: new values show up in the next run */
static void test_no_fold_params(void) {
    const char* what = "fold: params and inputs stay live";
    float pv[3] = {1, 2, 3}, xv[3] = {10, 20, 30};
    int64_t s3[1] = {3};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor p = rlx_param(g, "p", RLX_F32, 1, s3), x = rlx_input(g, "x", RLX_F32, 1, s3);
    rlx_tensor c = rlx_scalar(g, RLX_F32, 2.0);
    const char* outs[2] = {"y", "z"};
    double wy[3], wz[3];
    feed fd[2];
    pair pr;
    int round, i;
    rlx_output(g, "y", rlx_add(g, rlx_mul(g, p, c), rlx_mul(g, c, c))); /* p*2 + 4 */
    rlx_output(g, "z", rlx_sub(g, x, rlx_exp(g, rlx_scalar(g, RLX_F32, 0.0))));
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "%s: %s", what, rlx_graph_error(g));
    fd[0] = F32("p", 1, pv, 3);
    fd[1] = F32("x", 0, xv, 3);
    pr = build_pair(g, fd, 2, what);
    for (round = 0; round < 3; round++) {
        if (round > 0) {
            for (i = 0; i < 3; i++) {
                pv[i] = pv[i] * -1.5f + (float)round;
                xv[i] = xv[i] + 0.25f * (float)round;
            }
            if (pr.opt) feed_all(pr.opt, fd, 2, what);
            if (pr.noopt) feed_all(pr.noopt, fd, 2, what);
            if (pr.opt) TH_CHECK(rlx_run(pr.opt) == RLX_OK, "%s: run", what);
            if (pr.noopt) TH_CHECK(rlx_run(pr.noopt) == RLX_OK, "%s: run", what);
        }
        for (i = 0; i < 3; i++) {
            wy[i] = pv[i] * 2.0 + 4.0;
            wz[i] = xv[i] - 1.0;
        }
        same_outputs(&pr, outs, 2, what);
        check_ref_both(&pr, "y", wy, 3, 1e-6, 1e-7, what);
        check_ref_both(&pr, "z", wz, 3, 1e-6, 1e-7, what);
    }
    fewer_steps(&pr, what); /* c*c and exp(0) fold */
    free_pair(&pr);
    rlx_graph_destroy(g);
}

/* ------------------------------------------------------------------------------------------------------------
   CSE
   ------------------------------------------------------------------------------------------------------------ */

static void test_cse_basic(void) {
    const char* what = "cse: duplicated subexpressions";
    float xv[12], wv[16];
    int64_t s34[2] = {3, 4}, s44[2] = {4, 4}, s31[2] = {3, 1};
    int ax1[1] = {1};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, s34), w = rlx_param(g, "w", RLX_F32, 2, s44);
    rlx_tensor e1 = rlx_exp(g, x), e2 = rlx_exp(g, x);
    rlx_tensor m1 = rlx_matmul(g, x, w), m2 = rlx_matmul(g, x, w);
    rlx_tensor r1 = rlx_reduce_sum(g, x, 1, ax1, 1), r2 = rlx_reduce_sum(g, x, 1, ax1, 1);
    rlx_tensor y = rlx_add(g, rlx_add(g, rlx_mul(g, e1, e2), rlx_add(g, m1, m2)), rlx_add(g, r1, r2));
    const char* outs[3] = {"y", "a", "b"};
    double wy[12], wa[12];
    feed fd[2];
    pair pr;
    int i, j, k;
    for (i = 0; i < 12; i++) xv[i] = (float)((i * 5) % 7 - 3) * 0.25f;
    for (i = 0; i < 16; i++) wv[i] = (float)((i * 3) % 5 - 2) * 0.5f;
    rlx_output(g, "y", y);
    rlx_output(g, "a", rlx_sigmoid(g, rlx_reshape(g, r1, 2, s31))); /* outputs of duplicated expressions */
    rlx_output(g, "b", rlx_sigmoid(g, rlx_reshape(g, r2, 2, s31)));
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "%s: %s", what, rlx_graph_error(g));
    fd[0] = F32("x", 0, xv, 12);
    fd[1] = F32("w", 1, wv, 16);
    pr = build_pair(g, fd, 2, what);
    for (i = 0; i < 3; i++) {
        double rsum = 0;
        for (k = 0; k < 4; k++) rsum += xv[i * 4 + k];
        wa[i] = sigmoid(rsum);
        for (j = 0; j < 4; j++) {
            double m = 0;
            for (k = 0; k < 4; k++) m += (double)xv[i * 4 + k] * wv[k * 4 + j];
            wy[i * 4 + j] = exp(2.0 * xv[i * 4 + j]) + 2 * m + 2 * rsum;
        }
    }
    same_outputs(&pr, outs, 3, what);
    check_ref_both(&pr, "y", wy, 12, 1e-5, 1e-6, what);
    check_ref_both(&pr, "a", wa, 3, 1e-6, 1e-7, what);
    check_ref_both(&pr, "b", wa, 3, 1e-6, 1e-7, what);
    fewer_steps(&pr, what);
    free_pair(&pr);
    rlx_graph_destroy(g);
}

/* Things that look alike but are not the same expression: different params, constants, inputs, operand
   order, axes, keepdims, perms, slices, scalars, ops, attributes and target dtypes. A wrong merge changes the
   value (most outputs would become zero). */
static void layernorm_rows(const float* q, double eps, double* out) {
    int i, j;
    for (i = 0; i < 3; i++) {
        double m = 0, v = 0;
        for (j = 0; j < 3; j++) m += q[i * 3 + j];
        m /= 3;
        for (j = 0; j < 3; j++) v += (q[i * 3 + j] - m) * (q[i * 3 + j] - m);
        v /= 3;
        for (j = 0; j < 3; j++) out[i * 3 + j] = (q[i * 3 + j] - m) / sqrt(v + eps);
    }
}

static void test_cse_distinct(void) {
    const char* what = "cse: look-alikes stay distinct";
    static const float c1v[6] = {1, 2, 3, 4, 5, 6}, c2v[6] = {1, 2, 3, 4, 5, 7};
    float p1v[6], p2v[6], x1v[6], x2v[6], qv[9], zv[8], vv[6];
    int64_t s6[1] = {6}, s23[2] = {2, 3}, s33[2] = {3, 3}, s222[3] = {2, 2, 2};
    int ax0[1] = {0}, ax1[1] = {1}, pa[3] = {1, 0, 2}, pb[3] = {0, 2, 1};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor p1 = rlx_param(g, "p1", RLX_F32, 2, s23), p2 = rlx_param(g, "p2", RLX_F32, 2, s23);
    rlx_tensor x1 = rlx_input(g, "x1", RLX_F32, 2, s23), x2 = rlx_input(g, "x2", RLX_F32, 2, s23);
    rlx_tensor c1 = rlx_constant(g, RLX_F32, 2, s23, c1v), c2 = rlx_constant(g, RLX_F32, 2, s23, c2v);
    rlx_tensor q = rlx_input(g, "q", RLX_F32, 2, s33), z = rlx_input(g, "z", RLX_F32, 3, s222);
    rlx_tensor v = rlx_input(g, "v", RLX_F32, 1, s6), none;
    enum { PP, CC, XX, AB, RA, RK, TP, SL, ST, SC, EL, LN, MM, AM, CD, SM, NOUT };
    const char* outs[NOUT] = {"pp", "cc", "xx", "ab", "ra", "rk", "tp", "sl", "st", "sc", "el", "ln", "mm", "am",
                              "cd", "sm"};
    static const int counts[NOUT] = {6, 6, 6, 6, 3, 9, 8, 3, 3, 6, 6, 9, 3, 3, 6, 9};
    double w[NOUT][9], lna[9], lnb[9], rows[3], cols[3];
    feed fd[7];
    pair pr;
    int i, j, k;
    for (i = 0; i < 6; i++) {
        p1v[i] = 0.1f * (float)i;
        p2v[i] = 0.1f * (float)i + 0.5f;
        x1v[i] = (float)(i % 3) - 0.75f;
        x2v[i] = (float)(i % 2) + 0.5f;
        vv[i] = (float)(i * i) - 2.5f;
    }
    none.id = 0;
    for (i = 0; i < 9; i++) qv[i] = (float)((i * 4) % 9) * 0.5f - 1.0f; /* rows without ties */
    for (i = 0; i < 8; i++) zv[i] = (float)(i * 3 % 8);
    rlx_output(g, "pp", rlx_sub(g, rlx_exp(g, p1), rlx_exp(g, p2)));
    rlx_output(g, "cc", rlx_sub(g, rlx_mul(g, x1, c1), rlx_mul(g, x1, c2)));
    rlx_output(g, "xx", rlx_sub(g, rlx_relu(g, x1), rlx_relu(g, x2)));
    rlx_output(g, "ab", rlx_add(g, rlx_sub(g, x1, x2), rlx_mul(g, rlx_sub(g, x2, x1), rlx_scalar(g, RLX_F32, 2.0))));
    rlx_output(g, "ra", rlx_add(g, rlx_reduce_sum(g, q, 1, ax0, 0),
                                rlx_mul(g, rlx_reduce_sum(g, q, 1, ax1, 0), rlx_scalar(g, RLX_F32, 10.0))));
    rlx_output(g, "rk", rlx_add(g, rlx_reduce_sum(g, q, 1, ax1, 1), rlx_reduce_sum(g, q, 1, ax1, 0)));
    rlx_output(g, "tp", rlx_sub(g, rlx_transpose(g, z, pa), rlx_transpose(g, z, pb)));
    rlx_output(g, "sl", rlx_sub(g, rlx_slice(g, v, 0, 0, 3, 1), rlx_slice(g, v, 0, 3, 3, 1)));
    rlx_output(g, "st", rlx_sub(g, rlx_slice(g, v, 0, 0, 3, 1), rlx_slice(g, v, 0, 0, 3, 2)));
    rlx_output(g, "sc", rlx_mul(g, rlx_add(g, x1, rlx_scalar(g, RLX_F32, 1.0)), rlx_add(g, x1, rlx_scalar(g, RLX_F32, 2.0))));
    rlx_output(g, "el", rlx_sub(g, rlx_exp(g, x2), rlx_log(g, x2)));
    rlx_output(g, "ln", rlx_sub(g, rlx_layernorm(g, q, none, none, 1, 1e-5f), rlx_layernorm(g, q, none, none, 1, 0.5f)));
    rlx_output(g, "mm", rlx_sub(g, rlx_reduce_max(g, q, 1, ax1, 0), rlx_reduce_min(g, q, 1, ax1, 0)));
    rlx_output(g, "am", rlx_add(g, rlx_mul(g, rlx_argmax(g, q, 1, 0), rlx_scalar(g, RLX_I64, 10.0)),
                                rlx_argmin(g, q, 1, 0)));
    rlx_output(g, "cd", rlx_sub(g, rlx_cast(g, rlx_cast(g, x1, RLX_I32), RLX_F32),
                                rlx_cast(g, rlx_cast(g, x1, RLX_F16), RLX_F32)));
    rlx_output(g, "sm", rlx_sub(g, rlx_softmax(g, q, 0), rlx_softmax(g, q, 1)));
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "%s: %s", what, rlx_graph_error(g));

    for (i = 0; i < 6; i++) {
        w[PP][i] = exp((double)p1v[i]) - exp((double)p2v[i]);
        w[CC][i] = (double)x1v[i] * c1v[i] - (double)x1v[i] * c2v[i];
        w[XX][i] = (x1v[i] > 0 ? x1v[i] : 0) - (x2v[i] > 0 ? x2v[i] : 0);
        w[AB][i] = (double)x2v[i] - x1v[i];
        w[SC][i] = ((double)x1v[i] + 1) * ((double)x1v[i] + 2);
        w[EL][i] = exp((double)x2v[i]) - log((double)x2v[i]);
        w[CD][i] = (double)(int)x1v[i] - x1v[i];
    }
    for (i = 0; i < 3; i++) {
        rows[i] = cols[i] = 0;
        for (j = 0; j < 3; j++) {
            rows[i] += qv[i * 3 + j];
            cols[i] += qv[j * 3 + i];
        }
    }
    for (i = 0; i < 3; i++) {
        double mx = -1e300, mn = 1e300;
        int amax = 0, amin = 0;
        w[RA][i] = cols[i] + 10 * rows[i];
        for (j = 0; j < 3; j++) {
            w[RK][i * 3 + j] = rows[i] + rows[j];
            if (qv[i * 3 + j] > mx) { mx = qv[i * 3 + j]; amax = j; }
            if (qv[i * 3 + j] < mn) { mn = qv[i * 3 + j]; amin = j; }
        }
        w[MM][i] = mx - mn;
        w[AM][i] = amax * 10 + amin;
        w[SL][i] = (double)vv[i] - vv[i + 3];
        w[ST][i] = (double)vv[i] - vv[2 * i];
    }
    for (i = 0; i < 2; i++) /* tp[i][j][k] = z[j][i][k] - z[i][k][j] */
        for (j = 0; j < 2; j++)
            for (k = 0; k < 2; k++) w[TP][i * 4 + j * 2 + k] = (double)zv[j * 4 + i * 2 + k] - zv[i * 4 + k * 2 + j];
    layernorm_rows(qv, 1e-5, lna);
    layernorm_rows(qv, 0.5, lnb);
    for (i = 0; i < 9; i++) w[LN][i] = lna[i] - lnb[i];
    for (i = 0; i < 3; i++) { /* softmax over columns minus softmax over rows */
        for (j = 0; j < 3; j++) {
            double s0 = 0, s1 = 0;
            for (k = 0; k < 3; k++) {
                s0 += exp((double)qv[k * 3 + j]);
                s1 += exp((double)qv[i * 3 + k]);
            }
            w[SM][i * 3 + j] = exp((double)qv[i * 3 + j]) / s0 - exp((double)qv[i * 3 + j]) / s1;
        }
    }
    fd[0] = F32("p1", 1, p1v, 6);
    fd[1] = F32("p2", 1, p2v, 6);
    fd[2] = F32("x1", 0, x1v, 6);
    fd[3] = F32("x2", 0, x2v, 6);
    fd[4] = F32("q", 0, qv, 9);
    fd[5] = F32("z", 0, zv, 8);
    fd[6] = F32("v", 0, vv, 6);
    pr = build_pair(g, fd, 7, what);
    same_outputs(&pr, outs, NOUT, what);
    for (i = 0; i < NOUT; i++) check_ref_both(&pr, outs[i], w[i], counts[i], 1e-5, 1e-6, what);
    TH_CHECK(pr.steps_opt >= 0 && pr.steps_opt <= pr.steps_noopt, "%s: optimised plan has %d steps, unoptimised %d",
             what, pr.steps_opt, pr.steps_noopt);
    free_pair(&pr);
    rlx_graph_destroy(g);
}

/* ------------------------------------------------------------------------------------------------------------
   DCE
   ------------------------------------------------------------------------------------------------------------ */

static void test_dce(void) {
    const char* what = "dce: unused nodes";
    float xv[12], wv[16], dv[5] = {1, 2, 3, 4, 5}, dwv[4] = {1, 0, 0, 1};
    int64_t s34[2] = {3, 4}, s44[2] = {4, 4}, s5[1] = {5}, s22[2] = {2, 2};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, s34), w = rlx_param(g, "w", RLX_F32, 2, s44);
    rlx_tensor dead_in = rlx_input(g, "dead_in", RLX_F32, 1, s5), dead_w = rlx_param(g, "dead_w", RLX_F32, 2, s22);
    rlx_tensor y;
    const char* outs[1] = {"y"};
    double wy[12];
    feed fd[4];
    pair pr;
    int i;
    for (i = 0; i < 12; i++) xv[i] = (float)i - 5.5f;
    for (i = 0; i < 16; i++) wv[i] = (float)(i % 3);
    /* dead code: never reaches an output */
    rlx_reduce_sum(g, rlx_exp(g, rlx_matmul(g, x, w)), 0, NULL, 0);
    rlx_mul(g, dead_in, dead_in);
    rlx_tanh(g, rlx_matmul(g, dead_w, dead_w));
    rlx_softmax(g, x, 1);
    y = rlx_relu(g, x);
    rlx_sigmoid(g, y); /* a dead consumer of a live node */
    rlx_output(g, "y", y);
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "%s: %s", what, rlx_graph_error(g));
    fd[0] = F32("x", 0, xv, 12);
    fd[1] = F32("w", 1, wv, 16);        /* only feeds dead code */
    fd[2] = F32("dead_in", 0, dv, 5);   /* the names of dead inputs and params remain settable */
    fd[3] = F32("dead_w", 1, dwv, 4);
    pr = build_pair(g, fd, 4, what);
    for (i = 0; i < 12; i++) wy[i] = xv[i] > 0 ? xv[i] : 0;
    same_outputs(&pr, outs, 1, what);
    check_ref_both(&pr, "y", wy, 12, 0, 0, what);
    fewer_steps(&pr, what);
    TH_CHECK(pr.steps_opt == 1, "%s: the optimised plan should keep only relu, has %d steps", what, pr.steps_opt);
    if (pr.opt) {   /* after DCE, a second run with new values */
        for (i = 0; i < 12; i++) xv[i] = 3.0f - (float)i;
        for (i = 0; i < 12; i++) wy[i] = xv[i] > 0 ? xv[i] : 0;
        TH_CHECK(rlx_set_input_f32(pr.opt, "x", xv, 12) == RLX_OK, "%s: set x", what);
        TH_CHECK(rlx_set_param_f32(pr.opt, "dead_w", dwv, 4) == RLX_OK, "%s: set dead_w after a run: %s", what,
                 rlx_program_error(pr.opt));
        TH_CHECK(rlx_run(pr.opt) == RLX_OK, "%s: second run: %s", what, rlx_program_error(pr.opt));
        check_ref(pr.opt, "y", wy, 12, 0, 0, what);
    }
    free_pair(&pr);
    rlx_graph_destroy(g);
}

/* nothing to optimise: the same number of steps both ways */
static void test_nothing_to_do(void) {
    const char* what = "passes: nothing to optimise";
    float xv[6] = {1, -2, 3, -4, 5, -6}, wv[6] = {0.5f, -1, 1.5f, 2, -0.5f, 1}, bv[2] = {0.25f, -0.25f};
    int64_t s23[2] = {2, 3}, s32[2] = {3, 2}, s2[1] = {2};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, s23), w = rlx_param(g, "w", RLX_F32, 2, s32);
    rlx_tensor b = rlx_param(g, "b", RLX_F32, 1, s2);
    const char* outs[1] = {"y"};
    double wy[4];
    feed fd[3];
    pair pr;
    int i, j, k;
    rlx_output(g, "y", rlx_add(g, rlx_relu(g, rlx_matmul(g, x, w)), b));
    fd[0] = F32("x", 0, xv, 6);
    fd[1] = F32("w", 1, wv, 6);
    fd[2] = F32("b", 1, bv, 2);
    pr = build_pair(g, fd, 3, what);
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++) {
            double s = 0;
            for (k = 0; k < 3; k++) s += (double)xv[i * 3 + k] * wv[k * 2 + j];
            wy[i * 2 + j] = (s > 0 ? s : 0) + bv[j];
        }
    same_outputs(&pr, outs, 1, what);
    check_ref_both(&pr, "y", wy, 4, 1e-6, 1e-7, what);
    TH_CHECK(pr.steps_opt == pr.steps_noopt && pr.steps_opt >= 3, "%s: %d vs %d steps", what, pr.steps_opt,
             pr.steps_noopt);
    free_pair(&pr);
    rlx_graph_destroy(g);
}

/* all three at once, plus outputs that share nodes */
static void test_combined(void) {
    const char* what = "passes: folding + cse + dce";
    float xv[8];
    static const float cv[8] = {1, 1, 2, 3, 5, 8, 13, 21};
    int64_t s8[1] = {8}, s24[2] = {2, 4};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 1, s8), c = rlx_constant(g, RLX_F32, 1, s8, cv);
    rlx_tensor k1 = rlx_div(g, rlx_sqrt(g, c), rlx_add(g, c, rlx_scalar(g, RLX_F32, 1.0))); /* folds */
    rlx_tensor k2 = rlx_div(g, rlx_sqrt(g, c), rlx_add(g, c, rlx_scalar(g, RLX_F32, 1.0))); /* same again */
    rlx_tensor t1 = rlx_tanh(g, rlx_mul(g, x, k1)), t2 = rlx_tanh(g, rlx_mul(g, x, k2));  /* CSE after folding */
    const char* outs[3] = {"y", "y2", "r"};
    double wy[8], wr[8];
    feed fd[1];
    pair pr;
    int i;
    for (i = 0; i < 8; i++) xv[i] = (float)i * 0.375f - 1.0f;
    rlx_exp(g, rlx_add(g, t1, t2)); /* dead */
    rlx_output(g, "y", rlx_add(g, t1, t2));
    rlx_output(g, "y2", rlx_add(g, t2, t1));
    rlx_output(g, "r", rlx_reshape(g, rlx_sub(g, t1, rlx_scalar(g, RLX_F32, 0.5)), 2, s24));
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "%s: %s", what, rlx_graph_error(g));
    fd[0] = F32("x", 0, xv, 8);
    pr = build_pair(g, fd, 1, what);
    for (i = 0; i < 8; i++) {
        double kk = sqrt((double)cv[i]) / (cv[i] + 1.0), t = tanh(xv[i] * kk);
        wy[i] = 2 * t;
        wr[i] = t - 0.5;
    }
    same_outputs(&pr, outs, 3, what);
    check_ref_both(&pr, "y", wy, 8, 1e-5, 1e-6, what);
    check_ref_both(&pr, "y2", wy, 8, 1e-5, 1e-6, what);
    check_ref_both(&pr, "r", wr, 8, 1e-5, 1e-6, what);
    fewer_steps(&pr, what);
    free_pair(&pr);
    rlx_graph_destroy(g);
}

int main(void) {
    test_fold_basic();
    test_fold_all_constant();
    test_fold_rounding();
    test_fold_casts();
    test_fold_integers();
    test_fold_layout();
    test_no_fold_params();
    test_cse_basic();
    test_cse_distinct();
    test_dce();
    test_nothing_to_do();
    test_combined();
    test_fold_division(); /* last: a trapping division would end the program */
    return th_summary("passes");
}
