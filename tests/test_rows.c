/* test_rows: run-time positions per batch row (continuous batching).

   - rlx_state_write with an offset of shape [B]: row b of the update lands at offset[b] in batch b; i32 and
     i64 offsets, B = 1 and 3, rows at 0 and at the end, two runs in a row (the state persists);
   - offsets that do not fit (one past the end, negative, INT64_MAX, INT64_MIN) fail rlx_run with
     RLX_ERROR_OUT_OF_RANGE naming the state and the batch row; that batch row (or, for a scalar offset, the
     whole update) is not written, the others are; the next good run succeeds;
   - rlx_attention with kv_len of shape [B] (BHSD and BSHD, causal or not, GQA, Sq 1 and 3, kv_len 0 and Sk)
     against an f64 reference written here;
   - a decode loop of three sequences at different lengths in one batch equals each sequence decoded alone.
   Every case runs on the CPU, on Vulkan and on CUDA where they are available (skipped otherwise). */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#include <stdlib.h>

static const rlx_device devs[3] = {RLX_DEVICE_CPU, RLX_DEVICE_VULKAN, RLX_DEVICE_CUDA};

/* Compile on dev without fallback; NULL (and a skip) when the device is not there. */
static rlx_program* rw_compile(rlx_graph* g, rlx_device dev, const char* what) {
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    rlx_result r;
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    cd.flags = RLX_COMPILE_NO_FALLBACK;
    r = rlx_compile(g, &cd, &p);
    if (r == RLX_ERROR_DEVICE_UNAVAILABLE && dev != RLX_DEVICE_CPU) {
        th_skip("%s on %s: %s", what, rlx_device_name(dev), rlx_graph_error(g));
        return NULL;
    }
    TH_CHECK(r == RLX_OK, "%s on %s: compile: %s", what, rlx_device_name(dev), rlx_graph_error(g));
    return r == RLX_OK ? p : NULL;
}

static double rw_val(uint32_t* s) { (void)s; return th_uniform(-1.0, 1.0); }

/* ---- 1. state_write with one offset per batch row ------------------------------------------------------- */

/* state [B, 2, T, 3] written along axis 2 by an update [B, 2, L, 3]. Reference: a copy of the state with
   block (b, h) rows [off[b], off[b] + L) replaced, when they fit; a batch row whose offset does not fit is
   left as it was. Returns the number of batch rows that did not fit. */
#define SW_H 2
#define SW_T 7
#define SW_D 3
static int sw_reference(double* st, const double* up, int B, int L, const int64_t* off) {
    int b, h, r, d, bad = 0;
    for (b = 0; b < B; b++) {
        if (off[b] < 0 || off[b] > SW_T - L) { bad++; continue; }
        for (h = 0; h < SW_H; h++)
            for (r = 0; r < L; r++)
                for (d = 0; d < SW_D; d++)
                    st[((b * SW_H + h) * SW_T + off[b] + r) * SW_D + d] = up[((b * SW_H + h) * L + r) * SW_D + d];
    }
    return bad;
}

static void test_state_write_rows(rlx_device dev, int B, rlx_dtype odt) {
    const int L = 2;
    int64_t ss[4], us[4], os[1];
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor st, u, off;
    rlx_program* p;
    char what[96];
    /* runs: distinct positions, then rows at 0 and at the end (T - L), then out of range rows */
    static const int64_t offs[][3] = {{3, 1, 4}, {0, SW_T - 2, 0}, {5, 2, SW_T - 1}, {-1, 0, 0},
                                      {INT64_MAX, 2, INT64_MIN}, {1, 2, 3}};
    int run;
    float* init;
    double* want;
    size_t n, nu, i;
    snprintf(what, sizeof what, "state_write rows B=%d %s", B, rlx_dtype_name(odt));
    ss[0] = B; ss[1] = SW_H; ss[2] = SW_T; ss[3] = SW_D;
    us[0] = B; us[1] = SW_H; us[2] = L; us[3] = SW_D;
    os[0] = B;
    st = rlx_state(g, "cache", RLX_F32, 4, ss);
    u = rlx_input(g, "u", RLX_F32, 4, us);
    off = rlx_input(g, "off", odt, 1, os);
    rlx_output(g, "s", rlx_state_write(g, st, u, 2, off));
    p = rw_compile(g, dev, what);
    if (!p) { rlx_graph_destroy(g); return; }
    n = (size_t)B * SW_H * SW_T * SW_D;
    nu = (size_t)B * SW_H * L * SW_D;
    init = (float*)malloc(n * sizeof(float));
    want = (double*)malloc(n * sizeof(double));
    /* values exact in float (so excess precision cannot differ), none zero */
    for (i = 0; i < n; i++) { init[i] = (float)((i * 7) % 23) * 0.25f - 2.125f; want[i] = init[i]; }
    TH_CHECK(rlx_set_state(p, "cache", RLX_F32, init, n * sizeof(float)) == RLX_OK, "%s: set_state", what);
    for (run = 0; run < (int)(sizeof offs / sizeof offs[0]); run++) {
        float uv[3 * SW_H * 2 * SW_D], got[3 * SW_H * SW_T * SW_D];
        double upd[3 * SW_H * 2 * SW_D];
        int64_t o64[3];
        int32_t o32[3];
        int b, bad, ok = 1, fits32 = 1;
        rlx_result r;
        for (b = 0; b < B; b++) {
            o64[b] = offs[run][b];
            if (o64[b] > INT32_MAX || o64[b] < INT32_MIN) fits32 = 0;
            o32[b] = (int32_t)o64[b];
        }
        if (odt == RLX_I32 && !fits32) continue;
        for (i = 0; i < nu; i++) { uv[i] = (float)((i * 5 + (size_t)run * 3) % 19) * 0.5f + 3.0f; upd[i] = uv[i]; }
        bad = sw_reference(want, upd, B, L, o64);
        r = rlx_set_input_f32(p, "u", uv, nu);
        if (r == RLX_OK) r = odt == RLX_I32 ? rlx_set_input_i32(p, "off", o32, (size_t)B) : rlx_set_input_i64(p, "off", o64, (size_t)B);
        TH_CHECK(r == RLX_OK, "%s on %s run %d: set: %s", what, rlx_device_name(dev), run, rlx_program_error(p));
        r = rlx_run(p);
        if (bad) {
            int named = B == 1;   /* a scalar offset names no row */
            TH_CHECK(r == RLX_ERROR_OUT_OF_RANGE, "%s on %s run %d: %d rows out of range, run gave %s", what,
                     rlx_device_name(dev), run, bad, rlx_result_string(r));
            /* the message names the state and, with B > 1, one offending batch row and its offset */
            for (b = 0; b < B && B > 1; b++) {
                char row[64];
                snprintf(row, sizeof row, "offset %lld of batch row %d", (long long)o64[b], b);
                if ((o64[b] < 0 || o64[b] > SW_T - L) && strstr(rlx_program_error(p), row)) named = 1;
            }
            TH_CHECK(strstr(rlx_program_error(p), "'cache'") != NULL && named,
                     "%s on %s run %d: message '%s'", what, rlx_device_name(dev), run, rlx_program_error(p));
        } else {
            TH_CHECK(r == RLX_OK, "%s on %s run %d: %s", what, rlx_device_name(dev), run, rlx_program_error(p));
        }
        r = rlx_get_state(p, "cache", RLX_F32, got, n * sizeof(float));
        TH_CHECK(r == RLX_OK, "%s on %s run %d: get_state: %s", what, rlx_device_name(dev), run, rlx_program_error(p));
        for (i = 0; i < n && r == RLX_OK; i++) ok &= (double)got[i] == want[i];
        TH_CHECK(ok, "%s on %s run %d (offsets %lld %lld %lld): wrong state", what, rlx_device_name(dev), run,
                 (long long)o64[0], (long long)(B > 1 ? o64[1] : 0), (long long)(B > 2 ? o64[2] : 0));
    }
    free(init);
    free(want);
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
}

/* A scalar offset past the end: the run fails and the state is untouched (as before, rows at the end fit). */
static void test_state_write_scalar_range(rlx_device dev) {
    int64_t ss[2] = {5, 2}, us[2] = {2, 2};
    static const int64_t offs[] = {4, 3, -1, 0};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor st = rlx_state(g, "s", RLX_F32, 2, ss);
    rlx_program* p;
    size_t t;
    float init[10], cur[10];
    int i;
    rlx_output(g, "y", rlx_state_write(g, st, rlx_input(g, "u", RLX_F32, 2, us), 0, rlx_input(g, "off", RLX_I64, 0, NULL)));
    p = rw_compile(g, dev, "state_write scalar range");
    if (!p) { rlx_graph_destroy(g); return; }
    for (i = 0; i < 10; i++) init[i] = cur[i] = 0.5f + (float)i;
    rlx_set_state(p, "s", RLX_F32, init, sizeof init);
    for (t = 0; t < sizeof offs / sizeof offs[0]; t++) {
        float uv[4] = {-1.0f, -2.0f, -3.0f, -4.0f}, got[10];
        const int fits = offs[t] >= 0 && offs[t] <= 3;
        rlx_result r;
        int ok = 1;
        uv[0] -= (float)t;
        rlx_set_input_f32(p, "u", uv, 4);
        rlx_set_input_i64(p, "off", &offs[t], 1);
        r = rlx_run(p);
        TH_CHECK(fits ? r == RLX_OK : r == RLX_ERROR_OUT_OF_RANGE, "scalar offset %lld on %s: %s (%s)", (long long)offs[t],
                 rlx_device_name(dev), rlx_result_string(r), rlx_program_error(p));
        if (fits)
            for (i = 0; i < 4; i++) cur[offs[t] * 2 + i] = uv[i];
        rlx_get_state(p, "s", RLX_F32, got, sizeof got);
        for (i = 0; i < 10; i++) ok &= got[i] == cur[i];
        TH_CHECK(ok, "scalar offset %lld on %s: wrong state", (long long)offs[t], rlx_device_name(dev));
    }
    {   /* a clone has its own error report: its bad run fails, the original's good run does not */
        rlx_program* q = NULL;
        const int64_t bad = 4, good = 1;
        float uv[4] = {1.5f, 2.5f, 3.5f, 4.5f};
        rlx_result r = rlx_program_clone(p, 1, &q);
        TH_CHECK(r == RLX_OK, "clone on %s: %s", rlx_device_name(dev), rlx_program_error(p));
        if (q) {
            rlx_set_input_f32(q, "u", uv, 4);
            rlx_set_input_i64(q, "off", &bad, 1);
            r = rlx_run(q);
            TH_CHECK(r == RLX_ERROR_OUT_OF_RANGE, "clone, offset 4 on %s: %s", rlx_device_name(dev), rlx_result_string(r));
            rlx_set_input_f32(p, "u", uv, 4);
            rlx_set_input_i64(p, "off", &good, 1);
            r = rlx_run(p);
            TH_CHECK(r == RLX_OK, "original after the clone's error on %s: %s", rlx_device_name(dev), rlx_program_error(p));
            rlx_set_input_i64(q, "off", &good, 1);
            r = rlx_run(q);
            TH_CHECK(r == RLX_OK, "clone, offset 1 after its error on %s: %s", rlx_device_name(dev), rlx_program_error(q));
            rlx_program_destroy(q);
        }
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
}

/* Builder checks of the new shapes. */
static void test_builder(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t ss[3] = {3, 8, 4}, us[3] = {3, 1, 4}, o3 = 3, o2 = 2, q4[4] = {3, 2, 1, 4}, k4[4] = {3, 2, 8, 4};
    rlx_tensor st = rlx_state(g, "s", RLX_F32, 3, ss), u = rlx_input(g, "u", RLX_F32, 3, us);
    rlx_attention_desc ad;
    rlx_tensor y;
    /* per-row offsets along the batch axis itself make no sense */
    y = rlx_state_write(g, st, rlx_input(g, "u0", RLX_F32, 3, ss), 0, rlx_input(g, "o0", RLX_I64, 1, &o3));
    TH_CHECK(y.id == 0 && rlx_graph_status(g) == RLX_ERROR_DTYPE, "state_write [B] offset along axis 0 is refused");
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);
    st = rlx_state(g, "s", RLX_F32, 3, ss); u = rlx_input(g, "u", RLX_F32, 3, us);
    y = rlx_state_write(g, st, u, 1, rlx_input(g, "o", RLX_I64, 1, &o2));
    TH_CHECK(y.id == 0 && rlx_graph_status(g) == RLX_ERROR_DTYPE && strstr(rlx_graph_error(g), "[3]") != NULL,
             "state_write offset [2] for B = 3 is refused: %s", rlx_graph_error(g));
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);
    st = rlx_state(g, "s", RLX_F32, 3, ss); u = rlx_input(g, "u", RLX_F32, 3, us);
    y = rlx_state_write(g, st, u, 1, rlx_input(g, "o", RLX_F32, 1, &o3));
    TH_CHECK(y.id == 0 && rlx_graph_status(g) == RLX_ERROR_DTYPE, "state_write f32 offset is refused");
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);
    memset(&ad, 0, sizeof ad);
    ad.layout = RLX_LAYOUT_BHSD;
    ad.kv_len = rlx_input(g, "kv", RLX_I32, 1, &o2);
    y = rlx_attention(g, rlx_input(g, "q", RLX_F32, 4, q4), rlx_input(g, "k", RLX_F32, 4, k4), rlx_input(g, "v", RLX_F32, 4, k4), &ad);
    TH_CHECK(y.id == 0 && rlx_graph_status(g) == RLX_ERROR_DTYPE, "attention kv_len [2] for B = 3 is refused: %s", rlx_graph_error(g));
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);
    memset(&ad, 0, sizeof ad);
    ad.layout = RLX_LAYOUT_BHSD;
    ad.kv_len = rlx_input(g, "kv", RLX_I32, 1, &o3);
    y = rlx_attention(g, rlx_input(g, "q", RLX_F32, 4, q4), rlx_input(g, "k", RLX_F32, 4, k4), rlx_input(g, "v", RLX_F32, 4, k4), &ad);
    TH_CHECK(y.id != 0 && rlx_graph_status(g) == RLX_OK, "attention kv_len [3] for B = 3 is accepted: %s", rlx_graph_error(g));
    rlx_graph_destroy(g);
}

/* ---- 2. attention with kv_len per batch row ------------------------------------------------------------- */

/* f64 attention over [B, H, Sq, D] / [B, Hkv, Sk, D] (BHSD index order; the BSHD case permutes on the way
   in and out). Query i of batch b sits at position i + kv[b] - Sq; keys j >= kv[b] are hidden, causal hides
   j > position, a window w > 0 (implies causal) also hides j <= position - w. A query that sees nothing gives
   zeros. */
static void attn_ref(const double* q, const double* k, const double* v, double* o, int B, int H, int Hkv, int Sq,
                     int Sk, int D, const int64_t* kvl, int causal, int window) {
    int b, h, i, j, d;
    double s[64];
    for (b = 0; b < B; b++)
        for (h = 0; h < H; h++)
            for (i = 0; i < Sq; i++) {
                const int hk = h / (H / Hkv);
                const int64_t kv = kvl[b] < 0 ? 0 : (kvl[b] > Sk ? Sk : kvl[b]), pos = i + kv - Sq;
                double mx = -1e300, sum = 0.0;
                int any = 0;
                for (j = 0; j < Sk; j++) {
                    s[j] = 0.0;
                    if (j >= kv || (causal && j > pos) || (window > 0 && j <= pos - window)) continue;
                    for (d = 0; d < D; d++) s[j] += q[((b * H + h) * Sq + i) * D + d] * k[((b * Hkv + hk) * Sk + j) * D + d];
                    s[j] /= sqrt((double)D);
                    if (s[j] > mx) mx = s[j];
                    any = 1;
                }
                for (d = 0; d < D; d++) o[((b * H + h) * Sq + i) * D + d] = 0.0;
                if (!any) continue;
                for (j = 0; j < Sk; j++) {
                    if (j >= kv || (causal && j > pos) || (window > 0 && j <= pos - window)) { s[j] = 0.0; continue; }
                    s[j] = exp(s[j] - mx);
                    sum += s[j];
                }
                for (j = 0; j < Sk; j++)
                    for (d = 0; d < D; d++) o[((b * H + h) * Sq + i) * D + d] += s[j] / sum * v[((b * Hkv + hk) * Sk + j) * D + d];
            }
}

/* element (b, h, s, d) of a [B, H, S, D] tensor stored as BHSD or BSHD */
static size_t at4(int bshd, int B, int H, int S, int D, int b, int h, int s, int d) {
    (void)B;
    return bshd ? (size_t)(((b * S + s) * H + h) * D + d) : (size_t)(((b * H + h) * S + s) * D + d);
}

static void test_attention_rows(rlx_device dev, int B, int bshd, int causal, int window, int H, int Hkv, int Sq,
                                rlx_dtype kdt) {
    const int Sk = 9, D = 4;
    static const int64_t kvsets[3][3] = {{5, 9, 2}, {9, 0, 7}, {3, 6, 1}};
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t qs[4], ks[4], ls[1];
    rlx_attention_desc ad;
    rlx_program* p;
    char what[128];
    size_t nq = (size_t)B * H * Sq * D, nk = (size_t)B * Hkv * Sk * D;
    float *qf = (float*)malloc(nq * 4), *kf = (float*)malloc(nk * 4), *vf = (float*)malloc(nk * 4), *of = (float*)malloc(nq * 4);
    double *qd = (double*)malloc(nq * 8), *kd = (double*)malloc(nk * 8), *vd = (double*)malloc(nk * 8), *od = (double*)malloc(nq * 8);
    uint32_t seed = 0;
    int set, b, h, s, d;
    snprintf(what, sizeof what, "attention kv_len rows B=%d %s causal=%d window=%d H=%d Hkv=%d Sq=%d %s", B,
             bshd ? "BSHD" : "BHSD", causal, window, H, Hkv, Sq, rlx_dtype_name(kdt));
    memset(&ad, 0, sizeof ad);
    if (bshd) {
        qs[0] = B; qs[1] = Sq; qs[2] = H * D;
        ks[0] = B; ks[1] = Sk; ks[2] = Hkv * D;
        ad.layout = RLX_LAYOUT_BSHD; ad.num_heads = H; ad.num_kv_heads = Hkv;
    } else {
        qs[0] = B; qs[1] = H; qs[2] = Sq; qs[3] = D;
        ks[0] = B; ks[1] = Hkv; ks[2] = Sk; ks[3] = D;
        ad.layout = RLX_LAYOUT_BHSD;
    }
    ls[0] = B;
    ad.causal = causal;
    ad.window = window;
    ad.kv_len = rlx_input(g, "kv", kdt, 1, ls);
    rlx_output(g, "o", rlx_attention(g, rlx_input(g, "q", RLX_F32, bshd ? 3 : 4, qs), rlx_input(g, "k", RLX_F32, bshd ? 3 : 4, ks),
                                     rlx_input(g, "v", RLX_F32, bshd ? 3 : 4, ks), &ad));
    p = rw_compile(g, dev, what);
    if (p) {
        /* data in BHSD index order (qd/kd/vd), stored in the graph's layout (qf/kf/vf) */
        for (b = 0; b < B; b++)
            for (h = 0; h < H; h++)
                for (s = 0; s < Sq; s++)
                    for (d = 0; d < D; d++) {
                        const size_t bi = (size_t)(((b * H + h) * Sq + s) * D + d);
                        qd[bi] = (double)(float)rw_val(&seed);
                        qf[at4(bshd, B, H, Sq, D, b, h, s, d)] = (float)qd[bi];
                    }
        for (b = 0; b < B; b++)
            for (h = 0; h < Hkv; h++)
                for (s = 0; s < Sk; s++)
                    for (d = 0; d < D; d++) {
                        const size_t bi = (size_t)(((b * Hkv + h) * Sk + s) * D + d);
                        kd[bi] = (double)(float)(2.0 * rw_val(&seed));
                        vd[bi] = (double)(float)rw_val(&seed);
                        kf[at4(bshd, B, Hkv, Sk, D, b, h, s, d)] = (float)kd[bi];
                        vf[at4(bshd, B, Hkv, Sk, D, b, h, s, d)] = (float)vd[bi];
                    }
        rlx_set_input_f32(p, "q", qf, nq);
        rlx_set_input_f32(p, "k", kf, nk);
        rlx_set_input_f32(p, "v", vf, nk);
        for (set = 0; set < 3; set++) {
            int64_t kv64[3];
            int32_t kv32[3];
            double maxerr = 0.0;
            rlx_result r;
            for (b = 0; b < B; b++) { kv64[b] = kvsets[set][b]; kv32[b] = (int32_t)kv64[b]; }
            r = kdt == RLX_I32 ? rlx_set_input_i32(p, "kv", kv32, (size_t)B) : rlx_set_input_i64(p, "kv", kv64, (size_t)B);
            if (r == RLX_OK) r = rlx_run(p);
            if (r == RLX_OK) r = rlx_get_output_f32(p, "o", of, nq);
            TH_CHECK(r == RLX_OK, "%s on %s: %s", what, rlx_device_name(dev), rlx_program_error(p));
            if (r != RLX_OK) continue;
            attn_ref(qd, kd, vd, od, B, H, Hkv, Sq, Sk, D, kv64, causal || window > 0, window);
            for (b = 0; b < B; b++)
                for (h = 0; h < H; h++)
                    for (s = 0; s < Sq; s++)
                        for (d = 0; d < D; d++) {
                            const double e = fabs((double)of[at4(bshd, B, H, Sq, D, b, h, s, d)] - od[((b * H + h) * Sq + s) * D + d]);
                            if (!(e <= maxerr)) maxerr = e;   /* NaN propagates */
                        }
            TH_CHECK(maxerr <= 2e-5, "%s on %s, kv_len set %d: max error %g", what, rlx_device_name(dev), set, maxerr);
        }
        rlx_program_destroy(p);
    }
    free(qf); free(kf); free(vf); free(of); free(qd); free(kd); free(vd); free(od);
    rlx_graph_destroy(g);
}

/* ---- 3. a decode loop: sequences at their own lengths in one batch = each sequence alone ---------------- */

#define DEC_H 2
#define DEC_D 4
#define DEC_E (DEC_H * DEC_D)
#define DEC_T 8
#define DEC_STEPS 6

/* One decode step for B sequences: q = rope(x·wq), k = rope(x·wk) (one kv head), v = x·wv; the caches
   [B, T, D] get k and v at pos[b] (state_write along axis 1), attention over the first pos[b] + 1 keys. */
static rlx_graph* dec_graph(int B) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t xs[3], cs[3], bs[1], rs[2], we[2] = {DEC_E, DEC_E}, wk[2] = {DEC_E, DEC_D}, ts[2] = {DEC_T, DEC_D / 2};
    rlx_tensor x, pos, kvl, rpos, cosv, sinv, q, k, v, kc, vc;
    rlx_rope_desc rd;
    rlx_attention_desc ad;
    xs[0] = B; xs[1] = 1; xs[2] = DEC_E;
    cs[0] = B; cs[1] = DEC_T; cs[2] = DEC_D;
    bs[0] = B;
    rs[0] = B; rs[1] = 1;
    x = rlx_input(g, "x", RLX_F32, 3, xs);
    pos = rlx_input(g, "pos", RLX_I64, 1, bs);
    rpos = rlx_reshape(g, pos, 2, rs);
    kvl = rlx_add(g, pos, rlx_scalar(g, RLX_I64, 1));
    cosv = rlx_param(g, "cos", RLX_F32, 2, ts);
    sinv = rlx_param(g, "sin", RLX_F32, 2, ts);
    memset(&rd, 0, sizeof rd);
    rd.kind = RLX_ROPE_NEOX; rd.layout = RLX_LAYOUT_BSHD; rd.positions = rpos;
    rd.num_heads = DEC_H;
    q = rlx_rope(g, rlx_matmul(g, x, rlx_param(g, "wq", RLX_F32, 2, we)), cosv, sinv, &rd);
    rd.num_heads = 1;
    k = rlx_rope(g, rlx_matmul(g, x, rlx_param(g, "wk", RLX_F32, 2, wk)), cosv, sinv, &rd);
    v = rlx_matmul(g, x, rlx_param(g, "wv", RLX_F32, 2, wk));
    kc = rlx_state_write(g, rlx_state(g, "kc", RLX_F32, 3, cs), k, 1, pos);
    vc = rlx_state_write(g, rlx_state(g, "vc", RLX_F32, 3, cs), v, 1, pos);
    memset(&ad, 0, sizeof ad);
    ad.layout = RLX_LAYOUT_BSHD; ad.num_heads = DEC_H; ad.num_kv_heads = 1; ad.causal = 1; ad.kv_len = kvl;
    rlx_output(g, "y", rlx_attention(g, q, kc, vc, &ad));
    return g;
}

static void dec_params(rlx_program* p) {
    float wq[DEC_E * DEC_E], wk[DEC_E * DEC_D], wv[DEC_E * DEC_D], cs[DEC_T * DEC_D / 2], sn[DEC_T * DEC_D / 2];
    int i;
    /* the same weights for every program (a formula, not the shared random stream) */
    for (i = 0; i < DEC_E * DEC_E; i++) wq[i] = (float)sin(0.37 * i + 0.1);
    for (i = 0; i < DEC_E * DEC_D; i++) { wk[i] = (float)cos(0.53 * i + 0.2); wv[i] = (float)sin(0.71 * i + 0.3); }
    rlx_rope_tables(cs, sn, DEC_T, DEC_D, 10000.0);
    rlx_set_param_f32(p, "wq", wq, DEC_E * DEC_E);
    rlx_set_param_f32(p, "wk", wk, DEC_E * DEC_D);
    rlx_set_param_f32(p, "wv", wv, DEC_E * DEC_D);
    rlx_set_param_f32(p, "cos", cs, DEC_T * DEC_D / 2);
    rlx_set_param_f32(p, "sin", sn, DEC_T * DEC_D / 2);
}

static float dec_token(int seq, int t, int e) { return (float)sin(1.0 + 0.7 * seq + 1.3 * t + 0.31 * e); }

static void test_decode_loop(rlx_device dev) {
    /* sequence b starts at step start[b]; before that it decodes its token 0 at position 0 again and again
       (the slot is overwritten when it starts), so positions differ per row at every step */
    static const int start[3] = {0, 2, 1};
    float alone[3][DEC_STEPS][DEC_E];
    rlx_graph* g1 = dec_graph(1);
    rlx_graph* g3 = dec_graph(3);
    rlx_program *p1 = rw_compile(g1, dev, "decode alone"), *p3 = p1 ? rw_compile(g3, dev, "decode batch") : NULL;
    int b, t, e;
    double maxerr = 0.0;
    int ok = 1;
    if (!p1 || !p3) goto done;
    dec_params(p1);
    dec_params(p3);
    for (b = 0; b < 3; b++) {   /* each sequence alone, from a clean cache */
        static const float zeros[DEC_T * DEC_D] = {0};
        rlx_set_state(p1, "kc", RLX_F32, zeros, sizeof zeros);
        rlx_set_state(p1, "vc", RLX_F32, zeros, sizeof zeros);
        for (t = 0; t < DEC_STEPS - start[b]; t++) {
            float x[DEC_E];
            int64_t pos = t;
            for (e = 0; e < DEC_E; e++) x[e] = dec_token(b, t, e);
            rlx_set_input_f32(p1, "x", x, DEC_E);
            rlx_set_input_i64(p1, "pos", &pos, 1);
            ok &= rlx_run(p1) == RLX_OK;
            ok &= rlx_get_output_f32(p1, "y", alone[b][t], DEC_E) == RLX_OK;
        }
    }
    TH_CHECK(ok, "decode alone on %s: %s", rlx_device_name(dev), rlx_program_error(p1));
    for (t = 0; t < DEC_STEPS && ok; t++) {   /* all three in one batch */
        float x[3 * DEC_E], y[3 * DEC_E];
        int64_t pos[3];
        for (b = 0; b < 3; b++) {
            const int tb = t < start[b] ? 0 : t - start[b];
            pos[b] = tb;
            for (e = 0; e < DEC_E; e++) x[b * DEC_E + e] = dec_token(b, tb, e);
        }
        rlx_set_input_f32(p3, "x", x, 3 * DEC_E);
        rlx_set_input_i64(p3, "pos", pos, 3);
        ok &= rlx_run(p3) == RLX_OK;
        ok &= rlx_get_output_f32(p3, "y", y, 3 * DEC_E) == RLX_OK;
        for (b = 0; b < 3 && ok; b++) {
            if (t < start[b]) continue;
            for (e = 0; e < DEC_E; e++) {
                const double d = fabs((double)y[b * DEC_E + e] - (double)alone[b][t - start[b]][e]);
                if (!(d <= maxerr)) maxerr = d;
            }
        }
    }
    TH_CHECK(ok, "decode batch on %s: %s", rlx_device_name(dev), rlx_program_error(p3));
    TH_CHECK(maxerr <= 1e-5, "decode batch on %s: rows differ from each sequence alone by %g", rlx_device_name(dev), maxerr);
    /* the outputs are not trivially equal: the last step's rows differ from each other */
    if (ok) {
        float y[3 * DEC_E];
        rlx_get_output_f32(p3, "y", y, 3 * DEC_E);
        TH_CHECK(fabs((double)y[0] - (double)y[DEC_E]) > 1e-4, "decode batch on %s: rows look alike", rlx_device_name(dev));
    }
done:
    rlx_program_destroy(p1);
    rlx_program_destroy(p3);
    rlx_graph_destroy(g1);
    rlx_graph_destroy(g3);
}

int main(void) {
    int d;
    TH_CHECK(strstr(rlx_result_string(RLX_ERROR_OUT_OF_RANGE), "out of range") != NULL, "RLX_ERROR_OUT_OF_RANGE: '%s'",
             rlx_result_string(RLX_ERROR_OUT_OF_RANGE));
    test_builder();
    for (d = 0; d < 3; d++) {
        const rlx_device dev = devs[d];
        test_state_write_rows(dev, 1, RLX_I64);
        test_state_write_rows(dev, 3, RLX_I64);
        test_state_write_rows(dev, 3, RLX_I32);
        test_state_write_scalar_range(dev);
        test_attention_rows(dev, 3, 0, 0, 0, 2, 2, 1, RLX_I64);
        test_attention_rows(dev, 3, 0, 1, 0, 4, 2, 3, RLX_I32);
        test_attention_rows(dev, 3, 1, 1, 0, 4, 1, 1, RLX_I64);
        test_attention_rows(dev, 3, 1, 1, 0, 2, 2, 3, RLX_I64);
        test_attention_rows(dev, 3, 0, 1, 3, 2, 1, 3, RLX_I64);   /* sliding window per row */
        test_attention_rows(dev, 1, 1, 1, 0, 2, 1, 2, RLX_I32);
        test_decode_loop(dev);
    }
    return th_summary("rows");
}
