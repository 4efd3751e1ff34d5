/* Programs of one graph with a symbolic dim, compiled for two lengths (prefill seq = 3, decode seq = 1), bound
   to one rlx_store: they share the weight and the KV cache (no weight bytes of their own, the cache written by
   the prefill program is read by the decode program with no host copy), on the CPU with a shared thread pool
   and with profiling on, and on Vulkan / CUDA when available (skipped otherwise). A third compile of the prefill
   length while bound to a store must not reuse a cached core of another store. Oracle: f64 in the test.

   Graph: x [seq, D], W [D, D] (param), cache [T, D] (state), pos (i32 scalar input)
          h = x @ W; cache' = state_write(cache, h, axis 0, pos); y = sum over rows of cache' -> [D] */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

enum { D = 8, T = 6 };

static rlx_graph* build(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t seq = rlx_dim(g, "seq", 2);
    int64_t xs[2], ws[2] = {D, D}, cs[2] = {T, D};
    int axes[1] = {0};
    rlx_tensor x, w, c, pos, h;
    xs[0] = seq; xs[1] = D;
    x = rlx_input(g, "x", RLX_F32, 2, xs);
    pos = rlx_input(g, "pos", RLX_I32, 0, NULL);
    w = rlx_param(g, "W", RLX_F32, 2, ws);
    c = rlx_state(g, "cache", RLX_F32, 2, cs);
    h = rlx_matmul(g, x, w);
    c = rlx_state_write(g, c, h, 0, pos);
    rlx_output(g, "y", rlx_reduce_sum(g, c, 1, axes, 0));
    return g;
}

static int compile_len(rlx_graph* g, rlx_store* s, rlx_thread_pool* tp, int64_t len, rlx_program** p) {
    rlx_compile_desc cd;
    rlx_dim_value dv[1];
    memset(&cd, 0, sizeof cd);
    dv[0].name = "seq";
    dv[0].value = len;
    cd.store = s;
    cd.pool = rlx_store_device(s) == RLX_DEVICE_CPU ? tp : NULL;
    cd.dims = dv;
    cd.num_dims = 1;
    cd.flags = RLX_COMPILE_PROFILE;
    return rlx_compile(g, &cd, p) == RLX_OK;
}

static void run_on(rlx_device dev, rlx_thread_pool* tp) {
    rlx_store_desc sd;
    rlx_store* s = NULL;
    rlx_graph* g = build();
    rlx_program *pre = NULL, *dec = NULL, *pre2 = NULL;
    int64_t ws[2] = {D, D}, cs[2] = {T, D};
    float W[D * D], x3[3 * D], x1[D], y[D];
    double cache[T][D], h;
    int i, j, k, pos;
    const char* dn = rlx_device_name(dev);
    memset(cache, 0, sizeof cache);
    for (i = 0; i < D * D; i++) W[i] = (float)th_uniform(-1, 1);
    for (i = 0; i < 3 * D; i++) x3[i] = (float)th_uniform(-1, 1);
    for (i = 0; i < D; i++) x1[i] = (float)th_uniform(-1, 1);
    memset(&sd, 0, sizeof sd);
    sd.device = dev;
    if (rlx_store_create(&sd, &s) != RLX_OK) { TH_CHECK(0, "%s: store create", dn); rlx_graph_destroy(g); return; }
    TH_CHECK(rlx_store_add(s, "W", RLX_F32, 2, ws, W) == RLX_OK, "%s: store add W: %s", dn, rlx_store_error(s));
    TH_CHECK(rlx_store_add_state(s, "cache", RLX_F32, 2, cs) == RLX_OK, "%s: store add cache", dn);
    if (!compile_len(g, s, tp, 3, &pre) || !compile_len(g, s, tp, 1, &dec)) {
        TH_CHECK(0, "%s: compile: %s", dn, rlx_graph_error(g));
        goto done;
    }
    {
        rlx_plan_info a, b;
        rlx_program_plan(pre, &a);
        rlx_program_plan(dec, &b);
        TH_CHECK(a.weight_bytes == 0 && b.weight_bytes == 0 && a.state_bytes == 0 && b.state_bytes == 0,
                 "%s: programs hold weights/states of their own (%zu+%zu, %zu+%zu B)", dn, a.weight_bytes,
                 a.state_bytes, b.weight_bytes, b.state_bytes);
    }
    /* prefill rows 0..2, then decode row 3 */
    pos = 0;
    TH_CHECK(rlx_set_input_f32(pre, "x", x3, 3 * D) == RLX_OK, "%s: set x", dn);
    TH_CHECK(rlx_set_input_i32(pre, "pos", &pos, 1) == RLX_OK, "%s: set pos", dn);
    TH_CHECK(rlx_run(pre) == RLX_OK, "%s: prefill run: %s", dn, rlx_program_error(pre));
    pos = 3;
    TH_CHECK(rlx_set_input_f32(dec, "x", x1, D) == RLX_OK, "%s: set x", dn);
    TH_CHECK(rlx_set_input_i32(dec, "pos", &pos, 1) == RLX_OK, "%s: set pos", dn);
    TH_CHECK(rlx_run(dec) == RLX_OK, "%s: decode run: %s", dn, rlx_program_error(dec));
    for (i = 0; i < 4; i++)
        for (j = 0; j < D; j++) {
            const float* xr = i < 3 ? x3 + i * D : x1;
            for (h = 0, k = 0; k < D; k++) h += (double)xr[k] * (double)W[k * D + j];
            cache[i][j] = h;
        }
    TH_CHECK(rlx_get_output_f32(dec, "y", y, D) == RLX_OK, "%s: get y", dn);
    {
        int bad = 0;
        for (j = 0; j < D; j++) {
            double r = cache[0][j] + cache[1][j] + cache[2][j] + cache[3][j];
            if (!th_close(y[j], r, 1e-5, 1e-5)) bad++;
        }
        TH_CHECK(bad == 0, "%s: decode output disagrees with the f64 reference in %d of %d entries (the cache the "
                 "prefill program wrote was not seen?)", dn, bad, D);
    }
    {
        int count = 0;
        rlx_result r = rlx_program_profile(dec, NULL, 0, &count);
        if (r == RLX_ERROR_UNSUPPORTED) th_skip("%s: profiling not supported: %s", dn, rlx_program_error(dec));
        else TH_CHECK(r == RLX_OK && count >= 2, "%s: profile of the decode program: %d (%d entries)", dn, (int)r, count);
    }
    /* a second store: the prefill length again must bind to it, not reuse the first store's core */
    {
        rlx_store* s2 = NULL;
        float W2[D * D], y2[D];
        double r2;
        for (i = 0; i < D * D; i++) W2[i] = 2.0f * W[i];
        TH_CHECK(rlx_store_create(&sd, &s2) == RLX_OK, "%s: store 2", dn);
        TH_CHECK(rlx_store_add(s2, "W", RLX_F32, 2, ws, W2) == RLX_OK, "%s: store 2 add W", dn);
        TH_CHECK(rlx_store_add_state(s2, "cache", RLX_F32, 2, cs) == RLX_OK, "%s: store 2 add cache", dn);
        if (compile_len(g, s2, tp, 3, &pre2)) {
            pos = 0;
            rlx_set_input_f32(pre2, "x", x3, 3 * D);
            rlx_set_input_i32(pre2, "pos", &pos, 1);
            TH_CHECK(rlx_run(pre2) == RLX_OK, "%s: run on store 2: %s", dn, rlx_program_error(pre2));
            TH_CHECK(rlx_get_output_f32(pre2, "y", y2, D) == RLX_OK, "%s: get y2", dn);
            r2 = 2.0 * (cache[0][0] + cache[1][0] + cache[2][0]);
            TH_CHECK(th_close(y2[0], r2, 1e-5, 1e-5), "%s: program on store 2 gave %g, want %g", dn, (double)y2[0], r2);
        } else {
            TH_CHECK(0, "%s: compile on store 2: %s", dn, rlx_graph_error(g));
        }
        rlx_store_destroy(s2);
    }
done:
    rlx_program_destroy(pre);
    rlx_program_destroy(dec);
    rlx_program_destroy(pre2);
    rlx_store_destroy(s);
    rlx_graph_destroy(g);
}

int main(void) {
    rlx_device_info info[32];
    const rlx_device devs[] = {RLX_DEVICE_CPU, RLX_DEVICE_VULKAN, RLX_DEVICE_CUDA};
    rlx_thread_pool* tp = NULL;
    rlx_thread_pool_desc pd;
    int n = rlx_devices(info, 32), d, i;
    memset(&pd, 0, sizeof pd);
    pd.num_threads = 2;
    TH_CHECK(rlx_thread_pool_create(&pd, &tp) == RLX_OK, "thread pool");
    if (n > 32) n = 32;
    for (d = 0; d < 3; d++) {
        int avail = devs[d] == RLX_DEVICE_CPU;
        const char* why = "rlx_devices does not list it";
        for (i = 0; i < n; i++)
            if (info[i].device == devs[d] && info[i].index == 0) { avail = info[i].available; why = info[i].reason; }
        if (!avail) { th_skip("%s: %s", rlx_device_name(devs[d]), why); continue; }
        run_on(devs[d], tp);
    }
    rlx_thread_pool_destroy(tp);
    return th_summary("dims_store");
}
