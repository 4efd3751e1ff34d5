/* test_store.c - weight sets / state stores (rlx_store): programs of different graphs and shapes bound to one
   store on every available device, a KV cache shared by a prefill and a decode program, borrowed memory used in
   place (and released exactly once), upload counts, write-through, binding errors and destroy order. Every
   numeric check compares with a double-precision reference computed here. Devices that are absent are
   reported as skipped. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#include <stdlib.h>

enum { K = 4, N = 6, T = 8, D = 4 };   /* linear: x[*, K] · W[K, N]; attention: cache [1, T, D] */

static float W[K * N], B[N], WQ[D * D], WK[D * D], WV[D * D];

static void fill(float* v, int n, float a) {   /* U(-a, a), never all zero */
    int i;
    for (i = 0; i < n; i++) v[i] = (float)th_uniform(-(double)a, (double)a);
}

/* y[m, N] = relu(x · w + b) (relu when act), in f64 */
static void ref_linear(const float* x, int m, const float* w, const float* b, int act, double* y) {
    int i, j, k;
    for (i = 0; i < m; i++)
        for (j = 0; j < N; j++) {
            double acc = b ? (double)b[j] : 0.0;
            for (k = 0; k < K; k++) acc += (double)x[i * K + k] * (double)w[k * N + j];
            y[i * N + j] = act && acc < 0 ? 0.0 : acc;
        }
}

static int close_all(const float* got, const double* want, int n, double tol) {
    int i;
    for (i = 0; i < n; i++)
        if (!th_close(got[i], want[i], tol, tol)) return 0;
    return 1;
}

static rlx_program* compile_on(rlx_graph* g, rlx_store* s, rlx_result* r) {
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    memset(&cd, 0, sizeof cd);
    cd.store = s;
    cd.num_threads = 2;
    *r = rlx_compile(g, &cd, &p);
    return p;
}

/* Graph A: y = relu(x[2, K] · W + b). Graph B: y = (x[5, K] · W) · scale, with its own param "scale" [N]. */
static rlx_graph* graph_a(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t xs[2] = {2, K}, ws[2] = {K, N}, bs[1] = {N};
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, xs);
    rlx_tensor w = rlx_param(g, "W", RLX_F32, 2, ws), b = rlx_param(g, "b", RLX_F32, 1, bs);
    rlx_output(g, "y", rlx_relu(g, rlx_add(g, rlx_matmul(g, x, w), b)));
    return g;
}
static rlx_graph* graph_b(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t xs[2] = {5, K}, ws[2] = {K, N}, bs[1] = {N};
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, xs);
    rlx_tensor w = rlx_param(g, "W", RLX_F32, 2, ws), sc = rlx_param(g, "scale", RLX_F32, 1, bs);
    rlx_output(g, "y", rlx_mul(g, rlx_matmul(g, x, w), sc));
    return g;
}

/* 1. two programs of different graphs and shapes on one store: results, weight bytes, uploads, write-through */
static void test_two_programs(rlx_device dev) {
    rlx_store_desc sd;
    rlx_store* s = NULL;
    rlx_store_stats st;
    rlx_graph *ga = graph_a(), *gb = graph_b();
    rlx_program *pa, *pb;
    rlx_plan_info ia, ib;
    rlx_result r, rb;
    int64_t ws[2] = {K, N}, bs[1] = {N};
    float xa[2 * K], xb[5 * K], sc[N], ya[2 * N], yb[5 * N], w2[K * N];
    double wa[2 * N], wb[5 * N];
    const char* dn = rlx_device_name(dev);
    int i;
    memset(&sd, 0, sizeof sd);
    sd.device = dev;
    r = rlx_store_create(&sd, &s);
    if (dev != RLX_DEVICE_CPU && r == RLX_ERROR_DEVICE_UNAVAILABLE) {
        th_skip("store on %s: device unavailable", dn);
        rlx_graph_destroy(ga);
        rlx_graph_destroy(gb);
        return;
    }
    TH_CHECK(r == RLX_OK && s && rlx_store_device(s) == dev, "%s: store_create: %s", dn, rlx_result_string(r));
    if (!s) { rlx_graph_destroy(ga); rlx_graph_destroy(gb); return; }
    TH_CHECK(rlx_store_add(s, "W", RLX_F32, 2, ws, W) == RLX_OK, "%s: add W: %s", dn, rlx_store_error(s));
    TH_CHECK(rlx_store_add(s, "b", RLX_F32, 1, bs, B) == RLX_OK, "%s: add b: %s", dn, rlx_store_error(s));
    pa = compile_on(ga, s, &r);
    pb = compile_on(gb, s, &rb);
    TH_CHECK(r == RLX_OK && rb == RLX_OK, "%s: compile on a store: %s / %s", dn, rlx_graph_error(ga), rlx_graph_error(gb));
    if (!pa || !pb) goto done;
    TH_CHECK(rlx_program_device(pa) == dev && rlx_program_device(pb) == dev, "%s: AUTO compiles on the store's device", dn);
    rlx_program_plan(pa, &ia);
    rlx_program_plan(pb, &ib);
    TH_CHECK(ia.weight_bytes == 0, "%s: program A holds %zu weight bytes (all its params are in the store)", dn, ia.weight_bytes);
    TH_CHECK(ib.weight_bytes == 64, "%s: program B holds %zu weight bytes (only 'scale', 24 B rounded to 64)", dn, ib.weight_bytes);
    fill(xa, 2 * K, 1.0f);
    fill(xb, 5 * K, 1.0f);
    fill(sc, N, 2.0f);
    TH_CHECK(rlx_set_param_f32(pb, "scale", sc, N) == RLX_OK, "%s: set scale: %s", dn, rlx_program_error(pb));
    rlx_set_input_f32(pa, "x", xa, 2 * K);
    rlx_set_input_f32(pb, "x", xb, 5 * K);
    TH_CHECK(rlx_run(pa) == RLX_OK && rlx_run(pb) == RLX_OK, "%s: run: %s / %s", dn, rlx_program_error(pa), rlx_program_error(pb));
    rlx_get_output_f32(pa, "y", ya, 2 * N);
    rlx_get_output_f32(pb, "y", yb, 5 * N);
    ref_linear(xa, 2, W, B, 1, wa);
    ref_linear(xb, 5, W, NULL, 0, wb);
    for (i = 0; i < 5 * N; i++) wb[i] *= (double)sc[i % N];
    TH_CHECK(close_all(ya, wa, 2 * N, 1e-5), "%s: program A (relu(x·W + b), x [2, %d]) vs the f64 reference", dn, K);
    TH_CHECK(close_all(yb, wb, 5 * N, 1e-5), "%s: program B ((x·W)·scale, x [5, %d]) vs the f64 reference", dn, K);
    rlx_store_info(s, &st);
    TH_CHECK(st.count == 2 && st.programs == 2 && st.bytes == 128 + 64, "%s: stats: %d tensors, %d programs, %zu bytes", dn,
             st.count, st.programs, st.bytes);
    TH_CHECK(st.uploads == (dev == RLX_DEVICE_CPU ? 0u : 2u), "%s: %llu uploads after two programs ran (one per tensor)", dn,
             (unsigned long long)st.uploads);
    /* write-through: program A sets W, program B sees it */
    for (i = 0; i < K * N; i++) w2[i] = W[i] * -0.5f + 0.125f;
    TH_CHECK(rlx_set_param_f32(pa, "W", w2, K * N) == RLX_OK, "%s: set_param on a store-bound param: %s", dn, rlx_program_error(pa));
    TH_CHECK(rlx_run(pb) == RLX_OK, "%s: run B: %s", dn, rlx_program_error(pb));
    rlx_get_output_f32(pb, "y", yb, 5 * N);
    ref_linear(xb, 5, w2, NULL, 0, wb);
    for (i = 0; i < 5 * N; i++) wb[i] *= (double)sc[i % N];
    TH_CHECK(close_all(yb, wb, 5 * N, 1e-5), "%s: program B sees W written through program A", dn);
    {
        float back[K * N];
        TH_CHECK(rlx_store_get(s, "W", RLX_F32, back, sizeof back) == RLX_OK && memcmp(back, w2, sizeof back) == 0,
                 "%s: store_get returns the written W", dn);
    }
    rlx_store_info(s, &st);
    TH_CHECK(st.uploads == (dev == RLX_DEVICE_CPU ? 0u : 3u), "%s: %llu uploads after one write-through", dn,
             (unsigned long long)st.uploads);
    /* a clone binds to the same store */
    {
        rlx_program* pc = NULL;
        TH_CHECK(rlx_program_clone(pa, 0, &pc) == RLX_OK, "%s: clone: %s", dn, rlx_program_error(pa));
        if (pc) {
            rlx_store_info(s, &st);
            TH_CHECK(st.programs == 3, "%s: the clone is bound (%d programs)", dn, st.programs);
            TH_CHECK(rlx_run(pc) == RLX_OK, "%s: clone run: %s", dn, rlx_program_error(pc));
            rlx_get_output_f32(pc, "y", ya, 2 * N);
            ref_linear(xa, 2, w2, B, 1, wa);
            TH_CHECK(close_all(ya, wa, 2 * N, 1e-5), "%s: the clone reads the store's W", dn);
            rlx_program_destroy(pc);
        }
    }
done:
    rlx_program_destroy(pa);
    rlx_program_destroy(pb);
    rlx_store_destroy(s);
    rlx_graph_destroy(ga);
    rlx_graph_destroy(gb);
}

/* 2. KV cache in the store: a prefill program (S = 4) writes it, a decode program (S = 1) of another graph reads
   and extends it; decoding after prefill equals causal attention over the whole sequence, in f64. */
static rlx_graph* graph_attn(int S) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t xs[3] = {1, S, D}, ws[2] = {D, D}, cs[3] = {1, T, D};
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 3, xs), pos = rlx_input(g, "pos", RLX_I32, 0, NULL);
    rlx_tensor q = rlx_matmul(g, x, rlx_param(g, "wq", RLX_F32, 2, ws));
    rlx_tensor k = rlx_matmul(g, x, rlx_param(g, "wk", RLX_F32, 2, ws));
    rlx_tensor v = rlx_matmul(g, x, rlx_param(g, "wv", RLX_F32, 2, ws));
    rlx_tensor kc = rlx_state_write(g, rlx_state(g, "k_cache", RLX_F32, 3, cs), k, 1, pos);
    rlx_tensor vc = rlx_state_write(g, rlx_state(g, "v_cache", RLX_F32, 3, cs), v, 1, pos);
    rlx_attention_desc ad;
    memset(&ad, 0, sizeof ad);
    ad.layout = RLX_LAYOUT_BSHD;
    ad.num_heads = 1;
    ad.causal = 1;
    ad.kv_len = rlx_add(g, pos, rlx_scalar(g, RLX_I32, (double)S));
    rlx_output(g, "y", rlx_attention(g, q, kc, vc, &ad));
    rlx_output(g, "kc", kc);   /* an output that is a store state */
    return g;
}

/* causal single-head attention over n tokens of xs [n, D], in f64 */
static void ref_attn(const float* xs, int n, double* y) {
    double q[T * D], k[T * D], v[T * D];
    int i, j, c, e;
    for (i = 0; i < n; i++)
        for (c = 0; c < D; c++) {
            double a = 0, b = 0, d = 0;
            for (e = 0; e < D; e++) {
                a += (double)xs[i * D + e] * WQ[e * D + c];
                b += (double)xs[i * D + e] * WK[e * D + c];
                d += (double)xs[i * D + e] * WV[e * D + c];
            }
            q[i * D + c] = a; k[i * D + c] = b; v[i * D + c] = d;
        }
    for (i = 0; i < n; i++) {
        double s[T], mx = -1e300, sum = 0;
        for (j = 0; j <= i; j++) {
            double dot = 0;
            for (c = 0; c < D; c++) dot += q[i * D + c] * k[j * D + c];
            s[j] = dot / sqrt((double)D);
            if (s[j] > mx) mx = s[j];
        }
        for (j = 0; j <= i; j++) { s[j] = exp(s[j] - mx); sum += s[j]; }
        for (c = 0; c < D; c++) {
            double acc = 0;
            for (j = 0; j <= i; j++) acc += s[j] / sum * v[j * D + c];
            y[i * D + c] = acc;
        }
    }
}

static void test_kv_cache(rlx_device dev) {
    rlx_store_desc sd;
    rlx_store* s = NULL;
    rlx_graph *gp = graph_attn(4), *gd = graph_attn(1);
    rlx_program *pre = NULL, *dec = NULL;
    rlx_result r, rd;
    int64_t ws[2] = {D, D}, cs[3] = {1, T, D};
    float xs[6 * D], y[4 * D];
    double want[6 * D];
    const char* dn = rlx_device_name(dev);
    int32_t pos;
    int t;
    rlx_plan_info pi;
    memset(&sd, 0, sizeof sd);
    sd.device = dev;
    r = rlx_store_create(&sd, &s);
    if (dev != RLX_DEVICE_CPU && r == RLX_ERROR_DEVICE_UNAVAILABLE) {
        th_skip("KV cache store on %s: device unavailable", dn);
        rlx_graph_destroy(gp);
        rlx_graph_destroy(gd);
        return;
    }
    TH_CHECK(r == RLX_OK, "%s: store_create: %s", dn, rlx_result_string(r));
    if (!s) { rlx_graph_destroy(gp); rlx_graph_destroy(gd); return; }
    rlx_store_add(s, "wq", RLX_F32, 2, ws, WQ);
    rlx_store_add(s, "wk", RLX_F32, 2, ws, WK);
    rlx_store_add(s, "wv", RLX_F32, 2, ws, WV);
    TH_CHECK(rlx_store_add_state(s, "k_cache", RLX_F32, 3, cs) == RLX_OK && rlx_store_add_state(s, "v_cache", RLX_F32, 3, cs) == RLX_OK,
             "%s: add_state: %s", dn, rlx_store_error(s));
    pre = compile_on(gp, s, &r);
    dec = compile_on(gd, s, &rd);
    TH_CHECK(r == RLX_OK && rd == RLX_OK, "%s: compile prefill/decode: %s / %s", dn, rlx_graph_error(gp), rlx_graph_error(gd));
    if (!pre || !dec) goto done;
    rlx_program_plan(dec, &pi);
    TH_CHECK(pi.state_bytes == 0 && pi.weight_bytes == 64, "%s: decode holds %zu state and %zu weight bytes (only the constant S)", dn,
             pi.state_bytes, pi.weight_bytes);
    fill(xs, 6 * D, 1.0f);
    ref_attn(xs, 6, want);
    pos = 0;
    rlx_set_input_f32(pre, "x", xs, 4 * D);
    rlx_set_input_i32(pre, "pos", &pos, 1);
    TH_CHECK(rlx_run(pre) == RLX_OK, "%s: prefill: %s", dn, rlx_program_error(pre));
    rlx_get_output_f32(pre, "y", y, 4 * D);
    TH_CHECK(close_all(y, want, 4 * D, 1e-5), "%s: prefill (4 tokens) vs the f64 reference", dn);
    for (t = 4; t < 6; t++) {   /* no rlx_set_state: the cache moves through the store */
        pos = t;
        rlx_set_input_f32(dec, "x", xs + t * D, D);
        rlx_set_input_i32(dec, "pos", &pos, 1);
        TH_CHECK(rlx_run(dec) == RLX_OK, "%s: decode: %s", dn, rlx_program_error(dec));
        rlx_get_output_f32(dec, "y", y, D);
        TH_CHECK(close_all(y, want + t * D, D, 1e-5), "%s: decode of token %d after prefill vs the full-sequence reference", dn, t);
    }
    {   /* the cache, read through the store and through a program, holds the 6 keys */
        float kc[T * D], kp[T * D];
        int i, c, e, ok = 1;
        TH_CHECK(rlx_store_get(s, "k_cache", RLX_F32, kc, sizeof kc) == RLX_OK, "%s: store_get k_cache: %s", dn, rlx_store_error(s));
        TH_CHECK(rlx_get_state(dec, "k_cache", RLX_F32, kp, sizeof kp) == RLX_OK && memcmp(kc, kp, sizeof kc) == 0,
                 "%s: get_state of a store state reads the store: %s", dn, rlx_program_error(dec));
        for (i = 0; i < T; i++)
            for (c = 0; c < D; c++) {
                double want_k = 0;
                for (e = 0; e < D && i < 6; e++) want_k += (double)xs[i * D + e] * WK[e * D + c];
                if (!th_close(kc[i * D + c], want_k, 1e-5, 1e-5)) ok = 0;
            }
        TH_CHECK(ok, "%s: k_cache rows 0..5 are x·wk, rows 6..7 zero", dn);
        memset(kp, 0, sizeof kp);
        TH_CHECK(rlx_get_output_f32(dec, "kc", kp, T * D) == RLX_OK && memcmp(kc, kp, sizeof kc) == 0,
                 "%s: an output that is a store state reads the store: %s", dn, rlx_program_error(dec));
        for (i = 0; i < T * D; i++) kp[i] = (float)i * 0.5f + 1.0f;
        TH_CHECK(rlx_set_state(pre, "k_cache", RLX_F32, kp, sizeof kp) == RLX_OK, "%s: set_state on a store state: %s", dn,
                 rlx_program_error(pre));
        TH_CHECK(rlx_store_get(s, "k_cache", RLX_F32, kc, sizeof kc) == RLX_OK && memcmp(kc, kp, sizeof kc) == 0,
                 "%s: set_state writes through to the store", dn);
    }
done:
    rlx_store_destroy(s);   /* before the programs: they keep the storage alive */
    rlx_program_destroy(pre);
    rlx_program_destroy(dec);
    rlx_graph_destroy(gp);
    rlx_graph_destroy(gd);
}

/* 3. borrowed memory on the CPU: used in place, released once when the last user is gone */
static int releases;
static void on_release(void* user) { releases += *(int*)user; }

static void test_borrow(void) {
    rlx_store* s = NULL;
    rlx_graph* g = graph_a();
    rlx_program* p = NULL;
    rlx_result r;
    rlx_store_tensor_info ti;
    int64_t ws[2] = {K, N}, bs[1] = {N};
    float* wbuf = (float*)malloc(sizeof W);
    unsigned char* mis = (unsigned char*)malloc(sizeof B + 8);
    float x[2 * K], y[2 * N], bcopy[N];
    double want[2 * N];
    int one = 1, hundred = 100, i;
    if (!wbuf || !mis) { free(wbuf); free(mis); rlx_graph_destroy(g); TH_CHECK(0, "out of memory"); return; }
    memcpy(wbuf, W, sizeof W);
    memcpy(mis + 1, B, sizeof B);   /* f32 data at an odd address: copied, released at once */
    releases = 0;
    TH_CHECK(rlx_store_create(NULL, &s) == RLX_OK || rlx_store_create(NULL, &s) == RLX_ERROR_DEVICE_UNAVAILABLE, "store_create(NULL)");
    rlx_store_destroy(s);
    s = NULL;
    {
        rlx_store_desc sd;
        memset(&sd, 0, sizeof sd);
        sd.device = RLX_DEVICE_CPU;
        TH_CHECK(rlx_store_create(&sd, &s) == RLX_OK, "CPU store_create");
    }
    if (!s) { free(wbuf); free(mis); rlx_graph_destroy(g); return; }
    TH_CHECK(rlx_store_borrow(s, "W", RLX_F32, 2, ws, wbuf, on_release, &one) == RLX_OK, "borrow W: %s", rlx_store_error(s));
    TH_CHECK(rlx_store_borrow(s, "b", RLX_F32, 1, bs, mis + 1, on_release, &hundred) == RLX_OK, "borrow b: %s", rlx_store_error(s));
    TH_CHECK(releases == 100, "misaligned borrowed data is copied and released before borrow returns (releases %d)", releases);
    TH_CHECK(rlx_store_tensor(s, 0, &ti) == RLX_OK && ti.borrowed == 1 && ti.host == wbuf && strcmp(ti.name, "W") == 0,
             "aligned borrowed data is used in place");
    TH_CHECK(rlx_store_tensor(s, 1, &ti) == RLX_OK && ti.borrowed == 0 && ti.host != mis + 1, "misaligned data is copied");
    memset(mis, 0x7f, sizeof B + 8);   /* the copy must not depend on it any more */
    TH_CHECK(rlx_store_set(s, "W", RLX_F32, W, sizeof W) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_store_error(s), "borrowed"),
             "store_set on a borrowed tensor fails: %s", rlx_store_error(s));
    p = compile_on(g, s, &r);
    TH_CHECK(r == RLX_OK, "compile on borrowed weights: %s", rlx_graph_error(g));
    if (p) {
        fill(x, 2 * K, 1.0f);
        rlx_set_input_f32(p, "x", x, 2 * K);
        TH_CHECK(rlx_run(p) == RLX_OK, "run: %s", rlx_program_error(p));
        rlx_get_output_f32(p, "y", y, 2 * N);
        ref_linear(x, 2, W, B, 1, want);
        TH_CHECK(close_all(y, want, 2 * N, 1e-5), "borrowed weights vs the f64 reference");
        for (i = 0; i < K * N; i++) wbuf[i] = -W[i] + 0.25f;   /* the program reads the caller's memory */
        rlx_run(p);
        rlx_get_output_f32(p, "y", y, 2 * N);
        memcpy(bcopy, B, sizeof B);
        ref_linear(x, 2, wbuf, bcopy, 1, want);
        TH_CHECK(close_all(y, want, 2 * N, 1e-5), "a change of the borrowed memory changes the results (in place)");
        TH_CHECK(rlx_set_param_f32(p, "W", W, K * N) == RLX_ERROR_INVALID_ARGUMENT, "set_param on a borrowed param fails");
    }
    rlx_store_destroy(s);
    TH_CHECK(releases == 100, "release waits for the last program (releases %d)", releases);
    if (p) {
        TH_CHECK(rlx_run(p) == RLX_OK, "a program runs after its store handle is destroyed: %s", rlx_program_error(p));
        rlx_get_output_f32(p, "y", y, 2 * N);
        TH_CHECK(close_all(y, want, 2 * N, 1e-5), "results after the store handle is destroyed");
    }
    rlx_program_destroy(p);
    TH_CHECK(releases == 101, "release called exactly once after the last user (releases %d)", releases);
    free(wbuf);
    free(mis);
    rlx_graph_destroy(g);
}

/* 4. binding errors and bad arguments */
static void expect_compile_error(rlx_graph* g, rlx_compile_desc* cd, rlx_result want, const char* text, const char* what) {
    rlx_program* p = (rlx_program*)1;
    rlx_result r = rlx_compile(g, cd, &p);
    TH_CHECK(r == want && p == NULL && strstr(rlx_graph_error(g), text) != NULL, "%s: got %s, message '%s' (want %s, '%s')", what,
             rlx_result_string(r), rlx_graph_error(g), rlx_result_string(want), text);
}

static void test_errors(void) {
    rlx_store_desc sd;
    rlx_store* s = NULL;
    rlx_compile_desc cd;
    rlx_graph* g = graph_a();
    int64_t ws[2] = {K, N}, bad[2] = {N, K}, neg[2] = {K, -1}, bs[1] = {N};
    uint16_t h[K * N];
    float f[K * N];
    memset(h, 0, sizeof h);
    memset(&sd, 0, sizeof sd);
    sd.device = RLX_DEVICE_CPU;
    TH_CHECK(rlx_store_create(NULL, NULL) == RLX_ERROR_INVALID_ARGUMENT, "create: out NULL");
    sd.device = (rlx_device)99;
    TH_CHECK(rlx_store_create(&sd, &s) == RLX_ERROR_INVALID_ARGUMENT && s == NULL, "create: bad device");
    sd.device = RLX_DEVICE_CPU;
    sd.device_index = -1;
    TH_CHECK(rlx_store_create(&sd, &s) == RLX_ERROR_INVALID_ARGUMENT, "create: negative index");
    sd.device_index = 0;
    if (rlx_store_create(&sd, &s) != RLX_OK) { TH_CHECK(0, "create"); rlx_graph_destroy(g); return; }
    TH_CHECK(rlx_store_add(NULL, "W", RLX_F32, 2, ws, h) == RLX_ERROR_INVALID_ARGUMENT, "add: NULL store");
    TH_CHECK(rlx_store_add(s, NULL, RLX_F32, 2, ws, h) == RLX_ERROR_INVALID_ARGUMENT, "add: NULL name");
    TH_CHECK(rlx_store_add(s, "", RLX_F32, 2, ws, h) == RLX_ERROR_INVALID_ARGUMENT, "add: empty name");
    TH_CHECK(rlx_store_add(s, "x", RLX_F32, 2, ws, NULL) == RLX_ERROR_INVALID_ARGUMENT, "add: NULL data");
    TH_CHECK(rlx_store_add(s, "x", (rlx_dtype)0, 2, ws, h) == RLX_ERROR_DTYPE, "add: invalid dtype");
    TH_CHECK(rlx_store_add(s, "x", RLX_F32, 9, ws, h) == RLX_ERROR_SHAPE, "add: rank 9");
    TH_CHECK(rlx_store_add(s, "x", RLX_F32, 2, neg, h) == RLX_ERROR_SHAPE && strstr(rlx_store_error(s), "'x'"),
             "add: negative dim: %s", rlx_store_error(s));
    TH_CHECK(rlx_store_add(s, "x", RLX_F32, 2, NULL, h) == RLX_ERROR_INVALID_ARGUMENT, "add: NULL shape");
    /* W as f16 (the graph wants f32) */
    TH_CHECK(rlx_store_add(s, "W", RLX_F16, 2, ws, h) == RLX_OK, "add W f16: %s", rlx_store_error(s));
    TH_CHECK(rlx_store_add(s, "W", RLX_F32, 2, ws, h) == RLX_ERROR_DUPLICATE, "add: duplicate name");
    TH_CHECK(rlx_store_add_state(s, "b", RLX_F32, 1, bs) == RLX_OK, "add_state b");
    memset(&cd, 0, sizeof cd);
    cd.store = s;
    expect_compile_error(g, &cd, RLX_ERROR_DTYPE, "param 'W': the graph expects f32 [4,6], the store has f16 [4,6]", "dtype mismatch");
    rlx_store_destroy(s);
    rlx_store_create(&sd, &s);
    cd.store = s;
    TH_CHECK(rlx_store_add(s, "W", RLX_F32, 2, bad, f) == RLX_OK, "add W [6, 4]");
    expect_compile_error(g, &cd, RLX_ERROR_SHAPE, "param 'W': the graph expects f32 [4,6], the store has f32 [6,4]", "shape mismatch");
    cd.device = RLX_DEVICE_VULKAN;
    expect_compile_error(g, &cd, RLX_ERROR_INVALID_ARGUMENT, "the store lives on cpu 0 but the program asks for vulkan 0", "device mismatch");
    cd.device = RLX_DEVICE_CPU;
    cd.device_index = 1;
    expect_compile_error(g, &cd, RLX_ERROR_INVALID_ARGUMENT, "the store lives on cpu 0", "device index mismatch");
    cd.device_index = 0;
    /* io errors */
    TH_CHECK(rlx_store_set(s, "nope", RLX_F32, f, sizeof f) == RLX_ERROR_NOT_FOUND && strstr(rlx_store_error(s), "'nope'"),
             "set: unknown name: %s", rlx_store_error(s));
    TH_CHECK(rlx_store_set(s, "W", RLX_F32, f, sizeof f - 4) == RLX_ERROR_SIZE, "set: wrong byte count");
    TH_CHECK(rlx_store_get(s, "W", RLX_F32, NULL, sizeof f) == RLX_ERROR_INVALID_ARGUMENT, "get: NULL dst");
    TH_CHECK(rlx_store_get(s, "W", (rlx_dtype)77, f, sizeof f) == RLX_ERROR_INVALID_ARGUMENT, "get: bad dtype");
    TH_CHECK(rlx_store_get(NULL, "W", RLX_F32, f, sizeof f) == RLX_ERROR_INVALID_ARGUMENT, "get: NULL store");
    TH_CHECK(rlx_store_info(NULL, NULL) == RLX_ERROR_INVALID_ARGUMENT, "info: NULL");
    {
        rlx_store_tensor_info ti;
        TH_CHECK(rlx_store_tensor(s, 1, &ti) == RLX_ERROR_INVALID_ARGUMENT && rlx_store_tensor(s, -1, &ti) == RLX_ERROR_INVALID_ARGUMENT,
                 "tensor: index out of range");
    }
    rlx_store_destroy(s);
    rlx_graph_destroy(g);
    /* a graph state bound to a store weight */
    {
        rlx_graph* gs = rlx_graph_create(NULL);
        int64_t ss[1] = {4}, one = 1;
        rlx_tensor st = rlx_state(gs, "cache", RLX_F32, 1, ss);
        float z[4] = {1, 2, 3, 4};
        rlx_output(gs, "y", rlx_state_write(gs, st, rlx_input(gs, "u", RLX_F32, 1, &one), 0, rlx_input(gs, "o", RLX_I32, 0, NULL)));
        rlx_store_create(&sd, &s);
        rlx_store_add(s, "cache", RLX_F32, 1, ss, z);
        cd.store = s;
        expect_compile_error(gs, &cd, RLX_ERROR_INVALID_ARGUMENT, "state 'cache' is a weight in the store", "state bound to a weight");
        rlx_store_destroy(s);
        rlx_graph_destroy(gs);
    }
    rlx_store_destroy(NULL);
    TH_CHECK(rlx_store_device(NULL) == RLX_DEVICE_AUTO && strlen(rlx_store_error(NULL)) > 0, "NULL store accessors");
}

int main(void) {
    static const rlx_device devs[] = {RLX_DEVICE_CPU, RLX_DEVICE_VULKAN, RLX_DEVICE_CUDA, RLX_DEVICE_HIP};
    size_t i;
    fill(W, K * N, 1.0f);
    fill(B, N, 0.5f);
    fill(WQ, D * D, 1.0f);
    fill(WK, D * D, 1.0f);
    fill(WV, D * D, 1.0f);
    for (i = 0; i < sizeof devs / sizeof devs[0]; i++) {
        test_two_programs(devs[i]);
        test_kv_cache(devs[i]);
    }
    test_borrow();
    test_errors();
    return th_summary("store");
}
