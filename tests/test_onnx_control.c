/* ONNX control flow through the importer: If (a condition folded while importing, and one known only at run
   time), Loop (unrolled: trip count from an initializer, from a graph input fixed as a constant; an If nested in
   the body, folded per iteration; scan outputs) and Scan (opset 11: reversed input, output axis 1). Models are
   written here by the test's own protobuf writer; every value is checked against an f64 reference computed in
   the test. Then the errors: a condition or trip count known only at run time, branches of different shapes,
   a name defined in a subgraph and outside, wrong input counts, a missing subgraph output, a graph attribute
   an op does not read, subgraphs nested too deep, and a loop too long to unroll.
   Usage: test_onnx_control [cpu|vulkan|cuda]   (default cpu) */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#include <stdlib.h>

#include "onnx_pbw.h"

enum { T_FLOAT = 1, T_INT64 = 7, T_BOOL = 9 };
static rlx_device dev = RLX_DEVICE_CPU;   /* argv[1]: cpu (default), vulkan or cuda */

static void init_f32(pbw* g, const char* name, float v) { w_tensor(g, 5, name, T_FLOAT, 0, NULL, &v, 4); }
static void init_i64(pbw* g, const char* name, int64_t v) { w_tensor(g, 5, name, T_INT64, 0, NULL, &v, 8); }
static void vi_scalar(pbw* g, unsigned field, const char* name, int elem) { w_vi(g, field, name, elem, 0, NULL, NULL); }

static rlx_onnx_model* load_model(pbw* mb) {
    char err[512] = "";
    rlx_onnx_model* m = NULL;
    rlx_onnx_load_desc ld;
    memset(&ld, 0, sizeof ld);
    ld.error = err; ld.error_cap = sizeof err;
    TH_CHECK(rlx_onnx_load_memory(mb->p, mb->n, &ld, &m) == RLX_OK, "load: %s", err);
    free(mb->p);
    memset(mb, 0, sizeof *mb);
    return m;
}

/* imports (dims of input `in` from shape; constants optional), compiles for the CPU, runs with x (if in has no
   constant) and fetches output `out`: its values into y (at most cap) and its shape; 0 on failure (checked) */
static int run_model(rlx_onnx_model* m, const char* in, const float* x, int rank, const int64_t* shape,
                     const rlx_onnx_const* cs, int ncs, rlx_program** keep, const char* out, float* y, size_t cap,
                     int* orank, int64_t* oshape) {
    rlx_onnx_dim dims[RLX_MAX_RANK];
    rlx_onnx_graph_desc gd;
    rlx_graph* g = NULL;
    rlx_program* p = keep && *keep ? *keep : NULL;
    rlx_store* s = NULL;
    rlx_result r;
    rlx_compile_desc cd;
    const void* data;
    rlx_dtype dt;
    int64_t cnt = 1;
    int i, ok = 0;
    if (!p) {
        memset(&gd, 0, sizeof gd);
        for (i = 0; i < rank; i++) { dims[i].name = NULL; dims[i].input = in; dims[i].axis = i; dims[i].value = shape[i]; }
        gd.dims = dims; gd.num_dims = rank;
        gd.constants = cs; gd.num_constants = ncs;
        if (rlx_onnx_graph(m, &gd, &g) != RLX_OK) { TH_CHECK(0, "import: %s", rlx_onnx_error(m)); return 0; }
        rlx_store_desc sd;
        memset(&sd, 0, sizeof sd);
        sd.device = dev;
        if (rlx_onnx_store(m, &sd, &s) != RLX_OK) { TH_CHECK(0, "store: %s", rlx_onnx_error(m)); rlx_graph_destroy(g); return 0; }
        memset(&cd, 0, sizeof cd);
        cd.num_threads = 1;
        cd.device = dev;
        cd.store = s;
        r = rlx_compile(g, &cd, &p);
        rlx_store_destroy(s);
        if (r != RLX_OK) { TH_CHECK(0, "compile: %s", rlx_graph_error(g)); rlx_graph_destroy(g); return 0; }
        rlx_graph_destroy(g);
    }
    for (i = 0; i < rank; i++) cnt *= shape[i];
    if (x && rlx_set_input_f32(p, in, x, (size_t)cnt) != RLX_OK) { TH_CHECK(0, "set %s: %s", in, rlx_program_error(p)); goto done; }
    if (rlx_run(p) != RLX_OK) { TH_CHECK(0, "run: %s", rlx_program_error(p)); goto done; }
    if (rlx_output_ptr(p, out, &data, &dt, orank, oshape) != RLX_OK || dt != RLX_F32) { TH_CHECK(0, "output %s: %s", out, rlx_program_error(p)); goto done; }
    for (cnt = 1, i = 0; i < *orank; i++) cnt *= oshape[i];
    if ((size_t)cnt > cap) { TH_CHECK(0, "output %s has %lld values, more than %zu", out, (long long)cnt, cap); goto done; }
    memcpy(y, data, (size_t)cnt * sizeof(float));
    ok = 1;
done:
    if (keep) *keep = p;
    else rlx_program_destroy(p);
    return ok;
}

/* If on Greater(Size(x), 10): folded while importing, so the two branches may have different shapes */
static void test_if_folded(void) {
    pbw g = {0}, mb = {0}, tg = {0}, eg = {0}, at = {0};
    int64_t xd[2] = {-1, 3};
    rlx_onnx_model* m;
    int k;
    wn(&tg, "Mul", "x,two", "t_out", NULL);
    init_f32(&tg, "two", 2.0f);                       /* the branch's own initializer */
    w_vi(&tg, 12, "t_out", T_FLOAT, 2, xd, "N");
    a_int(&at, "axis", 0);
    wn(&eg, "Concat", "x,x", "e_out", &at);
    w_vi(&eg, 12, "e_out", T_FLOAT, 2, xd, "M");
    wn(&g, "Size", "x", "sz", NULL);
    wn(&g, "Greater", "sz,ten", "c", NULL);
    a_graph(&at, "then_branch", &tg);
    a_graph(&at, "else_branch", &eg);
    wn(&g, "If", "c", "y", &at);
    init_i64(&g, "ten", 10);
    w_vi(&g, 11, "x", T_FLOAT, 2, xd, "N");
    w_vi(&g, 12, "y", T_FLOAT, 2, xd, "M");
    w_model(&mb, &g, 13);
    if (!(m = load_model(&mb))) return;
    for (k = 0; k < 2; k++) {   /* N = 2: 6 elements, else (concat, 4 x 3); N = 4: 12, then (x * 2, 4 x 3) */
        int64_t shape[2] = {k ? 4 : 2, 3}, os[RLX_MAX_RANK];
        float x[12], y[24];
        int r = 0, i, bad = 0;
        for (i = 0; i < 12; i++) x[i] = 0.37f * (float)i - 1.9f;
        if (!run_model(m, "x", x, 2, shape, NULL, 0, NULL, "y", y, 24, &r, os)) continue;
        TH_CHECK(r == 2 && os[0] == 4 && os[1] == 3, "If folded, N = %lld: shape [%lld, %lld]", (long long)shape[0], (long long)os[0], (long long)os[1]);
        for (i = 0; i < 12; i++) {
            double want = k ? 2.0 * (double)x[i] : (double)x[i % 6];
            if (!th_close(y[i], want, 1e-6, 1e-6)) bad++;
        }
        TH_CHECK(!bad, "If folded, N = %lld: %d values differ from the %s branch", (long long)shape[0], bad, k ? "then" : "else");
    }
    rlx_onnx_destroy(m);
}

/* If on Greater(ReduceSum(x), 0), known only at run time: one program, both branches; the then branch reads an
   initializer of the outer graph */
static void test_if_runtime(void) {
    pbw g = {0}, mb = {0}, tg = {0}, eg = {0}, at = {0};
    int64_t xd[2] = {2, 3};
    rlx_onnx_model* m;
    rlx_program* p = NULL;
    int k;
    wn(&tg, "Add", "x,bias", "t_out", NULL);
    w_vi(&tg, 12, "t_out", T_FLOAT, 2, xd, NULL);
    wn(&eg, "Neg", "x", "e_out", NULL);
    w_vi(&eg, 12, "e_out", T_FLOAT, 2, xd, NULL);
    a_int(&at, "keepdims", 0);
    wn(&g, "ReduceSum", "x", "s", &at);
    wn(&g, "Greater", "s,zero", "c", NULL);
    a_graph(&at, "then_branch", &tg);
    a_graph(&at, "else_branch", &eg);
    wn(&g, "If", "c", "y", &at);
    init_f32(&g, "zero", 0.0f);
    init_f32(&g, "bias", 0.75f);
    w_vi(&g, 11, "x", T_FLOAT, 2, xd, NULL);
    w_vi(&g, 12, "y", T_FLOAT, 2, xd, NULL);
    w_model(&mb, &g, 13);
    if (!(m = load_model(&mb))) return;
    for (k = 0; k < 2; k++) {
        float x[6], y[6];
        int64_t os[RLX_MAX_RANK];
        int r = 0, i, bad = 0;
        double sum = 0;
        for (i = 0; i < 6; i++) { x[i] = (k ? -1.0f : 1.0f) * (0.5f + 0.3f * (float)i) + (i == 2 ? 0.4f : 0.0f); sum += x[i]; }
        if (!run_model(m, "x", x, 2, xd, NULL, 0, &p, "y", y, 6, &r, os)) break;
        for (i = 0; i < 6; i++) {
            double want = sum > 0 ? (double)x[i] + 0.75 : -(double)x[i];
            if (!th_close(y[i], want, 1e-6, 1e-6)) bad++;
        }
        TH_CHECK(!bad && r == 2, "If at run time, sum %g: %d values differ from the %s branch", sum, bad, sum > 0 ? "then" : "else");
    }
    rlx_program_destroy(p);
    rlx_onnx_destroy(m);
}

/* Loop body: v2 = v * 0.5 + float(i); out = If(i > 1, v2 + 10, v2) (folded per iteration); carries v2, scans out */
static void loop_body(pbw* body) {
    pbw tg = {0}, eg = {0}, at = {0};
    int64_t vd[1] = {3};
    vi_scalar(body, 11, "i", T_INT64);
    vi_scalar(body, 11, "c_in", T_BOOL);
    w_vi(body, 11, "v", T_FLOAT, 1, vd, NULL);
    a_int(&at, "to", T_FLOAT);
    wn(body, "Cast", "i", "fi", &at);
    wn(body, "Mul", "v,half", "h", NULL);
    wn(body, "Add", "h,fi", "v2", NULL);
    wn(body, "Identity", "c_in", "c_out", NULL);
    wn(body, "Greater", "i,one", "big", NULL);
    wn(&tg, "Add", "v2,ten", "t_out", NULL);
    w_vi(&tg, 12, "t_out", T_FLOAT, 1, vd, NULL);
    wn(&eg, "Identity", "v2", "e_out", NULL);
    w_vi(&eg, 12, "e_out", T_FLOAT, 1, vd, NULL);
    a_graph(&at, "then_branch", &tg);
    a_graph(&at, "else_branch", &eg);
    wn(body, "If", "big", "sc", &at);
    init_f32(body, "half", 0.5f);
    init_i64(body, "one", 1);
    vi_scalar(body, 12, "c_out", T_BOOL);
    w_vi(body, 12, "v2", T_FLOAT, 1, vd, NULL);
    w_vi(body, 12, "sc", T_FLOAT, 1, vd, NULL);
}
static void loop_model(pbw* mb, int m_is_input, int64_t trip) {
    pbw g = {0}, body = {0}, at = {0};
    int64_t vd[1] = {3}, sd[2] = {-1, 3};
    loop_body(&body);
    a_graph(&at, "body", &body);
    wn(&g, "Loop", "M,,x", "vf,scan", &at);
    init_f32(&g, "ten", 10.0f);              /* read by the If nested in the body: two scopes out */
    if (m_is_input) vi_scalar(&g, 11, "M", T_INT64);
    else init_i64(&g, "M", trip);
    w_vi(&g, 11, "x", T_FLOAT, 1, vd, NULL);
    w_vi(&g, 12, "vf", T_FLOAT, 1, vd, NULL);
    w_vi(&g, 12, "scan", T_FLOAT, 2, sd, "T");
    w_model(mb, &g, 13);
}
static void check_loop(rlx_onnx_model* m, int64_t trip, const rlx_onnx_const* cs, int ncs, const char* what) {
    static const float x[3] = {0.8f, -1.3f, 2.1f};
    double v[3], want[64 * 3];
    float y[64 * 3];
    int64_t os[RLX_MAX_RANK], i, xd[1] = {3};
    int r = 0, j, bad = 0;
    for (j = 0; j < 3; j++) v[j] = x[j];
    for (i = 0; i < trip; i++)
        for (j = 0; j < 3; j++) {
            v[j] = v[j] * 0.5 + (double)i;
            want[i * 3 + j] = i > 1 ? v[j] + 10.0 : v[j];
        }
    if (!run_model(m, "x", x, 1, xd, cs, ncs, NULL, "scan", y, 64 * 3, &r, os)) return;
    TH_CHECK(r == 2 && os[0] == trip && os[1] == 3, "%s: scan output [%lld, %lld], want [%lld, 3]", what, (long long)os[0], (long long)os[1], (long long)trip);
    for (i = 0; i < trip * 3; i++) if (!th_close(y[i], want[i], 1e-6, 1e-6)) bad++;
    TH_CHECK(!bad, "%s: %d scan values differ", what, bad);
    if (!run_model(m, "x", x, 1, xd, cs, ncs, NULL, "vf", y, 3, &r, os)) return;
    for (j = 0, bad = 0; j < 3; j++) if (!th_close(y[j], v[j], 1e-6, 1e-6)) bad++;
    TH_CHECK(!bad && r == 1 && os[0] == 3, "%s: final value differs (%g, want %g)", what, y[0], v[0]);
}
static void test_loop(void) {
    pbw mb = {0};
    rlx_onnx_model* m;
    rlx_graph* g = NULL;
    rlx_onnx_const c;
    int64_t three = 3;
    loop_model(&mb, 0, 5);
    if ((m = load_model(&mb)) != NULL) { check_loop(m, 5, NULL, 0, "Loop, M = 5 (initializer)"); rlx_onnx_destroy(m); }
    loop_model(&mb, 1, 0);
    if (!(m = load_model(&mb))) return;
    TH_CHECK(rlx_onnx_graph(m, NULL, &g) == RLX_ERROR_UNSUPPORTED && !g && strstr(rlx_onnx_error(m), "trip count") &&
             strstr(rlx_onnx_error(m), "must be a constant") && strstr(rlx_onnx_error(m), "Loop"),
             "a trip count known only at run time: %s", rlx_onnx_error(m));
    memset(&c, 0, sizeof c);
    c.input = "M"; c.dtype = RLX_I64; c.rank = 0; c.data = &three;
    check_loop(m, 3, &c, 1, "Loop, M = 3 (an input fixed by rlx_onnx_graph_desc.constants)");
    rlx_onnx_destroy(m);
}

/* Scan (opset 11): s' = s + x_t over x reversed along axis 0; scan output y_t = s' * s' stacked along axis 1 */
static void test_scan(void) {
    pbw g = {0}, mb = {0}, body = {0}, at = {0};
    int64_t sd[1] = {2}, xd[2] = {4, 2}, yd[2] = {2, 4}, one = 1, os[RLX_MAX_RANK];
    rlx_onnx_model* m;
    static const float s0[2] = {0.25f, -0.5f};
    float x[8], y[8];
    double s[2] = {0.25, -0.5}, want[8];
    int r = 0, i, t, bad = 0;
    w_vi(&body, 11, "s", T_FLOAT, 1, sd, NULL);
    w_vi(&body, 11, "xt", T_FLOAT, 1, sd, NULL);
    wn(&body, "Add", "s,xt", "s2", NULL);
    wn(&body, "Mul", "s2,s2", "yt", NULL);
    w_vi(&body, 12, "s2", T_FLOAT, 1, sd, NULL);
    w_vi(&body, 12, "yt", T_FLOAT, 1, sd, NULL);
    a_graph(&at, "body", &body);
    a_int(&at, "num_scan_inputs", 1);
    a_ints(&at, "scan_input_directions", 1, &one);
    a_ints(&at, "scan_output_axes", 1, &one);
    wn(&g, "Scan", "s0,x", "sf,y", &at);
    w_tensor(&g, 5, "s0", T_FLOAT, 1, sd, s0, 8);
    w_vi(&g, 11, "x", T_FLOAT, 2, xd, NULL);
    w_vi(&g, 12, "sf", T_FLOAT, 1, sd, NULL);
    w_vi(&g, 12, "y", T_FLOAT, 2, yd, NULL);
    w_model(&mb, &g, 11);
    if (!(m = load_model(&mb))) return;
    for (i = 0; i < 8; i++) x[i] = 0.3f * (float)i - 0.7f;
    for (t = 3; t >= 0; t--)
        for (i = 0; i < 2; i++) {
            s[i] += x[t * 2 + i];
            want[i * 4 + (3 - t)] = s[i] * s[i];
        }
    if (run_model(m, "x", x, 2, xd, NULL, 0, NULL, "y", y, 8, &r, os)) {
        TH_CHECK(r == 2 && os[0] == 2 && os[1] == 4, "Scan output shape [%lld, %lld]", (long long)os[0], (long long)os[1]);
        for (i = 0; i < 8; i++) if (!th_close(y[i], want[i], 1e-6, 1e-6)) bad++;
        TH_CHECK(!bad, "Scan: %d values differ (y[0] %g, want %g)", bad, y[0], want[0]);
    }
    if (run_model(m, "x", x, 2, xd, NULL, 0, NULL, "sf", y, 2, &r, os))
        TH_CHECK(th_close(y[0], s[0], 1e-6, 1e-6) && th_close(y[1], s[1], 1e-6, 1e-6), "Scan final state %g %g, want %g %g", y[0], y[1], s[0], s[1]);
    rlx_onnx_destroy(m);
}

/* a model expected to load and then fail to import with `want` and a message containing both needles */
static void expect_import_fail(const char* what, pbw* mb, rlx_result want, const char* n1, const char* n2) {
    rlx_onnx_model* m = load_model(mb);
    rlx_graph* g = NULL;
    rlx_onnx_dim d;
    rlx_onnx_graph_desc gd;
    rlx_result rc;
    if (!m) return;
    memset(&gd, 0, sizeof gd);
    d.name = "N"; d.input = NULL; d.axis = 0; d.value = 2;
    gd.dims = &d; gd.num_dims = 1;
    rc = rlx_onnx_graph(m, &gd, &g);
    TH_CHECK(rc == want && !g && strstr(rlx_onnx_error(m), n1) && (!n2 || strstr(rlx_onnx_error(m), n2)),
             "%s: result %d (want %d), message '%s'", what, (int)rc, (int)want, rlx_onnx_error(m));
    rlx_graph_destroy(g);
    rlx_onnx_destroy(m);
}
/* one-node If model on input x [2, 3] with the given branches (either may be NULL: left out) */
static void if_model(pbw* mb, pbw* tg, pbw* eg, const char* cond_node) {
    pbw g = {0}, at = {0};
    int64_t xd[2] = {2, 3};
    if (cond_node && !strcmp(cond_node, "runtime")) {
        pbw a2 = {0};
        a_int(&a2, "keepdims", 0);
        wn(&g, "ReduceSum", "x", "s", &a2);
        wn(&g, "Greater", "s,zero", "c", NULL);
        init_f32(&g, "zero", 0.0f);
    } else {
        w_tensor(&g, 5, "c", T_BOOL, 0, NULL, "\1", 1);
    }
    if (tg) a_graph(&at, "then_branch", tg);
    if (eg) a_graph(&at, "else_branch", eg);
    wn(&g, "If", "c", "y", &at);
    w_vi(&g, 11, "x", T_FLOAT, 2, xd, NULL);
    w_vi(&g, 12, "y", T_FLOAT, 2, xd, NULL);
    w_model(mb, &g, 13);
}
static void branch(pbw* b, const char* op, const char* in, const char* out) {
    pbw at = {0};
    int64_t xd[2] = {2, 3};
    if (!strcmp(op, "Concat")) a_int(&at, "axis", 0);
    wn(b, op, in, out, &at);
    w_vi(b, 12, out, T_FLOAT, 2, xd, NULL);
}
/* Loop(M = trip, no cond, x [3]) with the body (i, [c_in], v) -> (c_out, -v): c_out = Identity(c_in), or without
   c_in (a body with too few inputs) Identity of the outer constant t */
static void neg_loop(pbw* mb, int with_cond_in, int64_t trip) {
    pbw g = {0}, b2 = {0}, at = {0};
    int64_t vd[1] = {3};
    vi_scalar(&b2, 11, "i", T_INT64);
    if (with_cond_in) vi_scalar(&b2, 11, "c_in", T_BOOL);
    w_vi(&b2, 11, "v", T_FLOAT, 1, vd, NULL);
    wn(&b2, "Neg", "v", "v2", NULL);
    wn(&b2, "Identity", with_cond_in ? "c_in" : "t", "c_out", NULL);
    vi_scalar(&b2, 12, "c_out", T_BOOL);
    w_vi(&b2, 12, "v2", T_FLOAT, 1, vd, NULL);
    a_graph(&at, "body", &b2);
    wn(&g, "Loop", "M,,x", "vf", &at);
    init_i64(&g, "M", trip);
    w_tensor(&g, 5, "t", T_BOOL, 0, NULL, "\1", 1);
    w_vi(&g, 11, "x", T_FLOAT, 1, vd, NULL);
    w_vi(&g, 12, "vf", T_FLOAT, 1, vd, NULL);
    w_model(mb, &g, 13);
}
static void test_errors(void) {
    pbw mb = {0}, tg = {0}, eg = {0}, g = {0}, at = {0}, body = {0};
    int64_t xd[2] = {2, 3}, vd[1] = {3};
    int k;
    char err[512];
    rlx_onnx_model* m = NULL;
    rlx_onnx_load_desc ld;
    /* branches of different shapes under a run-time condition */
    branch(&tg, "Neg", "x", "t_out");
    branch(&eg, "Concat", "x,x", "e_out");
    if_model(&mb, &tg, &eg, "runtime");
    expect_import_fail("If at run time, branches of different shapes", &mb, RLX_ERROR_UNSUPPORTED, "one shape", "If");
    /* no else_branch */
    branch(&tg, "Neg", "x", "t_out");
    if_model(&mb, &tg, NULL, NULL);
    expect_import_fail("If without else_branch", &mb, RLX_ERROR_INVALID_ARGUMENT, "else_branch", NULL);
    /* a branch that defines a name of the outer graph */
    branch(&tg, "Neg", "x", "c");
    branch(&eg, "Neg", "x", "e_out");
    if_model(&mb, &tg, &eg, NULL);
    expect_import_fail("If branch redefining an outer name", &mb, RLX_ERROR_DUPLICATE, "'c'", "then_branch");
    /* a branch output no node defines */
    w_vi(&tg, 12, "nowhere", T_FLOAT, 2, xd, NULL);
    branch(&eg, "Neg", "x", "e_out");
    if_model(&mb, &tg, &eg, NULL);
    expect_import_fail("If branch without its output", &mb, RLX_ERROR_NOT_FOUND, "nowhere", NULL);
    /* a branch reading a name of no scope */
    branch(&tg, "Neg", "ghost", "t_out");
    branch(&eg, "Neg", "x", "e_out");
    if_model(&mb, &tg, &eg, NULL);
    expect_import_fail("If branch reading an undefined name", &mb, RLX_ERROR_NOT_FOUND, "ghost", "then_branch");
    /* a graph attribute on an op that has none */
    branch(&tg, "Neg", "x", "t_out");
    a_graph(&at, "body", &tg);
    wn(&g, "Relu", "x", "y", &at);
    w_vi(&g, 11, "x", T_FLOAT, 2, xd, NULL);
    w_vi(&g, 12, "y", T_FLOAT, 2, xd, NULL);
    w_model(&mb, &g, 13);
    expect_import_fail("Relu with a graph attribute", &mb, RLX_ERROR_UNSUPPORTED, "'body'", "Relu");
    /* a body whose condition is computed at run time */
    loop_body(&body);
    {   /* replace the model's body by one whose c_out = ReduceSum(v2) > 0 */
        pbw b2 = {0}, a2 = {0};
        free(body.p); memset(&body, 0, sizeof body);
        vi_scalar(&b2, 11, "i", T_INT64);
        vi_scalar(&b2, 11, "c_in", T_BOOL);
        w_vi(&b2, 11, "v", T_FLOAT, 1, vd, NULL);
        a_int(&a2, "keepdims", 0);
        wn(&b2, "ReduceSum", "v", "s", &a2);
        wn(&b2, "Greater", "s,zero", "c_out", NULL);
        wn(&b2, "Neg", "v", "v2", NULL);
        init_f32(&b2, "zero", 0.0f);
        vi_scalar(&b2, 12, "c_out", T_BOOL);
        w_vi(&b2, 12, "v2", T_FLOAT, 1, vd, NULL);
        a_graph(&at, "body", &b2);
        wn(&g, "Loop", "M,,x", "vf", &at);
        init_i64(&g, "M", 4);
        w_vi(&g, 11, "x", T_FLOAT, 1, vd, NULL);
        w_vi(&g, 12, "vf", T_FLOAT, 1, vd, NULL);
        w_model(&mb, &g, 13);
        expect_import_fail("Loop with a condition computed at run time", &mb, RLX_ERROR_UNSUPPORTED, "condition output", "must be a constant");
    }
    /* a body with the wrong number of inputs: M, cond and one carried value, but a body of two inputs */
    neg_loop(&mb, 0, 4);
    expect_import_fail("Loop body with too few inputs", &mb, RLX_ERROR_BAD_GRAPH, "body", "inputs");
    /* a loop too long to unroll: an error, not a hang or an unbounded graph */
    neg_loop(&mb, 1, (int64_t)1 << 40);
    expect_import_fail("Loop with M = 2^40", &mb, RLX_ERROR_UNSUPPORTED, "more than", "unrolled");
    /* If nested 12 deep: a load error, not unbounded recursion */
    branch(&tg, "Neg", "x", "b0");
    for (k = 1; k < 12; k++) {
        pbw nb = {0}, e2 = {0};
        char nm[16];
        branch(&e2, "Neg", "x", "e");
        a_graph(&at, "then_branch", &tg);
        a_graph(&at, "else_branch", &e2);
        snprintf(nm, sizeof nm, "b%d", k);
        wn(&nb, "If", "c", nm, &at);
        w_vi(&nb, 12, nm, T_FLOAT, 2, xd, NULL);
        tg = nb;
    }
    branch(&eg, "Neg", "x", "e_out");
    if_model(&mb, &tg, &eg, NULL);
    memset(&ld, 0, sizeof ld);
    ld.error = err; ld.error_cap = sizeof err;
    TH_CHECK(rlx_onnx_load_memory(mb.p, mb.n, &ld, &m) == RLX_ERROR_UNSUPPORTED && !m && strstr(err, "nested deeper"),
             "If nested 12 deep: %s", err);
    rlx_onnx_destroy(m);
    free(mb.p);
}

int main(int argc, char** argv) {
    const char* name = "onnx_control";
    if (argc > 1) {
        dev = !strcmp(argv[1], "vulkan") ? RLX_DEVICE_VULKAN : !strcmp(argv[1], "cuda") ? RLX_DEVICE_CUDA : RLX_DEVICE_CPU;
        name = dev == RLX_DEVICE_VULKAN ? "onnx_control_vulkan" : dev == RLX_DEVICE_CUDA ? "onnx_control_cuda" : name;
        if (!th_device_available(dev)) {
            th_skip("onnx_control on %s: no such device here", argv[1]);
            return th_summary(name);
        }
    }
    test_if_folded();
    test_if_runtime();
    test_loop();
    test_scan();
    test_errors();
    return th_summary(name);
}
