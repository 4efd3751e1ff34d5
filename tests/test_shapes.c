/* test_shapes.c - symbolic dims (rlx_dim): graphs declared with `seq` and `batch` compiled for several values,
   every result against a double-precision reference computed in this file; the compile cache (a second compile
   with the same values gives an equal program); the transformer model's graph with a symbolic sequence length
   against the same model built for that length; invalid values and misuse. CPU device only. */
#define RLX_IMPLEMENTATION
#include "../rlx.h"
#include "harness.h"
#include "../examples/transformer_model.h"

#include <stdlib.h>

static const char* rs(rlx_result r) { return rlx_result_string(r); }

static void fill(float* v, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i++) v[i] = (float)th_uniform(-1.0, 1.0);
}

static rlx_program* compile_dims(rlx_graph* g, int ndims, const char* const* names, const int64_t* values) {
    rlx_compile_desc cd;
    rlx_dim_value dv[4];
    rlx_program* p = NULL;
    int k;
    memset(&cd, 0, sizeof cd);
    for (k = 0; k < ndims; k++) { dv[k].name = names[k]; dv[k].value = values[k]; }
    cd.device = RLX_DEVICE_CPU;
    cd.num_threads = 2;
    cd.dims = dv;
    cd.num_dims = ndims;
    if (rlx_compile(g, &cd, &p) != RLX_OK) {
        TH_CHECK(0, "compile failed: %s", rlx_graph_error(g));
        return NULL;
    }
    return p;
}

static int close_all(const char* what, const float* got, const double* want, int64_t n, double tol) {
    int64_t i;
    for (i = 0; i < n; i++)
        if (!th_close((double)got[i], want[i], tol, tol)) {
            printf("  %s[%lld] = %.9g, want %.9g\n", what, (long long)i, (double)got[i], want[i]);
            return 0;
        }
    return 1;
}

/* ---- 1. batch x seq graph: matmul + broadcast bias, broadcast mul, softmax, reshape with a token and -1,
          expand to a symbolic shape, narrow from the end, sum over seq ---- */
#define K 4
#define N 5
static void test_basic(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t B = rlx_dim(g, "batch", 2), S = rlx_dim(g, "seq", 3);
    int64_t xs[3], ws[2] = {K, N}, bs[1] = {N}, ss[2], fl[2], ex[3];
    int ax = 1;
    rlx_tensor x, w, b, sc, y;
    static const char* const names[2] = {"seq", "batch"};
    static const int64_t cases[5][2] = {{3, 2}, {1, 1}, {7, 3}, {16, 1}, {3, 2}};
    int c;
    xs[0] = B; xs[1] = S; xs[2] = K;
    ss[0] = S; ss[1] = 1;
    fl[0] = B; fl[1] = -1;
    ex[0] = B; ex[1] = S; ex[2] = N;
    TH_CHECK(B == RLX_DIM_TOKEN(0) && S == RLX_DIM_TOKEN(1), "rlx_dim tokens %lld %lld", (long long)B, (long long)S);
    x = rlx_input(g, "x", RLX_F32, 3, xs);
    w = rlx_param(g, "w", RLX_F32, 2, ws);
    b = rlx_param(g, "b", RLX_F32, 1, bs);
    sc = rlx_input(g, "s", RLX_F32, 2, ss);                 /* [seq, 1] broadcast over batch and K */
    y = rlx_add(g, rlx_matmul(g, x, w), b);                 /* [batch, seq, N] */
    rlx_output(g, "lin", y);
    rlx_output(g, "bc", rlx_mul(g, x, sc));
    rlx_output(g, "sm", rlx_softmax(g, y, -1));
    rlx_output(g, "flat", rlx_reshape(g, y, 2, fl));        /* [batch, seq*N] */
    rlx_output(g, "ex", rlx_expand(g, b, 3, ex));
    rlx_output(g, "last", rlx_narrow(g, y, 1, -1, 1));      /* [batch, 1, N]: the last position */
    rlx_output(g, "sum", rlx_reduce_sum(g, y, 1, &ax, 0));  /* [batch, N] */
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "build: %s", rlx_graph_error(g));
    {
        int rank = 0;
        int64_t shp[8];
        rlx_tensor_info(g, y, &rank, shp);
        TH_CHECK(rank == 3 && shp[0] == 2 && shp[1] == 3 && shp[2] == N, "example shape [%lld,%lld,%lld]",
                 (long long)shp[0], (long long)shp[1], (long long)shp[2]);
    }
    for (c = 0; c < 5; c++) {
        int64_t s = cases[c][0], bt = cases[c][1], i, j, k, n;
        float wv[K * N], bv[N], *xv, *sv, *out;
        double *lin, *want;
        rlx_program* p = compile_dims(g, 2, names, cases[c]);
        int ok;
        if (!p) continue;
        xv = (float*)malloc(sizeof(float) * (size_t)(bt * s * K));
        sv = (float*)malloc(sizeof(float) * (size_t)s);
        out = (float*)malloc(sizeof(float) * (size_t)(bt * s * K + bt * s * N));
        lin = (double*)malloc(sizeof(double) * (size_t)(bt * s * N));
        want = (double*)malloc(sizeof(double) * (size_t)(bt * s * K + bt * s * N));
        fill(wv, K * N); fill(bv, N); fill(xv, bt * s * K); fill(sv, s);
        TH_CHECK(rlx_set_param_f32(p, "w", wv, K * N) == RLX_OK && rlx_set_param_f32(p, "b", bv, N) == RLX_OK &&
                 rlx_set_input_f32(p, "x", xv, (size_t)(bt * s * K)) == RLX_OK &&
                 rlx_set_input_f32(p, "s", sv, (size_t)s) == RLX_OK && rlx_run(p) == RLX_OK,
                 "seq=%lld batch=%lld: set/run: %s", (long long)s, (long long)bt, rlx_program_error(p));
        for (i = 0; i < bt * s; i++)
            for (j = 0; j < N; j++) {
                double acc = bv[j];
                for (k = 0; k < K; k++) acc += (double)xv[i * K + k] * (double)wv[k * N + j];
                lin[i * N + j] = acc;
            }
        n = bt * s * N;
        ok = rlx_get_output_f32(p, "lin", out, (size_t)n) == RLX_OK && close_all("lin", out, lin, n, 1e-5);
        TH_CHECK(ok, "seq=%lld batch=%lld: matmul + bias", (long long)s, (long long)bt);
        ok = rlx_get_output_f32(p, "flat", out, (size_t)n) == RLX_OK && close_all("flat", out, lin, n, 1e-5);
        TH_CHECK(ok, "seq=%lld batch=%lld: reshape [batch, -1]", (long long)s, (long long)bt);
        for (i = 0; i < bt * s; i++) {   /* softmax over N */
            double m = lin[i * N], z = 0.0;
            for (j = 1; j < N; j++) if (lin[i * N + j] > m) m = lin[i * N + j];
            for (j = 0; j < N; j++) z += exp(lin[i * N + j] - m);
            for (j = 0; j < N; j++) want[i * N + j] = exp(lin[i * N + j] - m) / z;
        }
        ok = rlx_get_output_f32(p, "sm", out, (size_t)n) == RLX_OK && close_all("sm", out, want, n, 1e-5);
        TH_CHECK(ok, "seq=%lld batch=%lld: softmax", (long long)s, (long long)bt);
        for (i = 0; i < bt; i++)
            for (j = 0; j < s; j++)
                for (k = 0; k < K; k++) want[(i * s + j) * K + k] = (double)xv[(i * s + j) * K + k] * (double)sv[j];
        ok = rlx_get_output_f32(p, "bc", out, (size_t)(bt * s * K)) == RLX_OK &&
             close_all("bc", out, want, bt * s * K, 1e-6);
        TH_CHECK(ok, "seq=%lld batch=%lld: broadcast mul by [seq, 1]", (long long)s, (long long)bt);
        for (i = 0; i < n; i++) want[i] = bv[i % N];
        ok = rlx_get_output_f32(p, "ex", out, (size_t)n) == RLX_OK && close_all("ex", out, want, n, 0.0);
        TH_CHECK(ok, "seq=%lld batch=%lld: expand to [batch, seq, N]", (long long)s, (long long)bt);
        for (i = 0; i < bt; i++)
            for (j = 0; j < N; j++) want[i * N + j] = lin[(i * s + s - 1) * N + j];
        ok = rlx_get_output_f32(p, "last", out, (size_t)(bt * N)) == RLX_OK && close_all("last", out, want, bt * N, 1e-5);
        TH_CHECK(ok, "seq=%lld batch=%lld: narrow(-1) takes the last position", (long long)s, (long long)bt);
        for (i = 0; i < bt; i++)
            for (j = 0; j < N; j++) {
                double acc = 0.0;
                for (k = 0; k < s; k++) acc += lin[(i * s + k) * N + j];
                want[i * N + j] = acc;
            }
        ok = rlx_get_output_f32(p, "sum", out, (size_t)(bt * N)) == RLX_OK && close_all("sum", out, want, bt * N, 1e-5);
        TH_CHECK(ok, "seq=%lld batch=%lld: sum over seq", (long long)s, (long long)bt);
        {   /* the output's size follows the dims: one element more is a size error */
            float* big = (float*)malloc(sizeof(float) * (size_t)(n + 1));
            TH_CHECK(rlx_get_output_f32(p, "lin", big, (size_t)(n + 1)) == RLX_ERROR_SIZE, "output size follows the dims");
            free(big);
        }
        rlx_program_destroy(p);
        free(xv); free(sv); free(out); free(lin); free(want);
    }
    rlx_graph_destroy(g);
}

/* ---- 2. the cache: the same values again give a program with equal results; other values in between ---- */
static void test_cache(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t S = rlx_dim(g, "seq", 4);
    int64_t xs[2], ws[2] = {3, 3};
    rlx_tensor x, w;
    static const char* const names[1] = {"seq"};
    int64_t v[1];
    float wv[9], xv[6 * 3], a[6 * 3], b[6 * 3], c3[3 * 3];
    rlx_program *p1, *p2, *p3, *p4;
    int i;
    xs[0] = S; xs[1] = 3;
    x = rlx_input(g, "x", RLX_F32, 2, xs);
    w = rlx_param(g, "w", RLX_F32, 2, ws);
    rlx_output(g, "y", rlx_tanh(g, rlx_matmul(g, x, w)));
    rlx_output(g, "k", rlx_add(g, x, rlx_scalar(g, RLX_F32, 0.5)));   /* a constant travels through the cache */
    fill(wv, 9); fill(xv, 18);
    v[0] = 6;
    p1 = compile_dims(g, 1, names, v);
    v[0] = 3;
    p3 = compile_dims(g, 1, names, v);
    v[0] = 6;
    p2 = compile_dims(g, 1, names, v);   /* cached */
    if (!p1 || !p2 || !p3) { rlx_program_destroy(p1); rlx_program_destroy(p2); rlx_program_destroy(p3); rlx_graph_destroy(g); return; }
    TH_CHECK(p1 != p2, "a cached compile returns a new program");
    rlx_set_param_f32(p1, "w", wv, 9);
    rlx_set_input_f32(p1, "x", xv, 18);
    rlx_run(p1);
    rlx_get_output_f32(p1, "y", a, 18);
    TH_CHECK(rlx_run(p2) == RLX_ERROR_NOT_SET, "the cached program has its own weights (not set yet)");
    rlx_set_param_f32(p2, "w", wv, 9);
    rlx_set_input_f32(p2, "x", xv, 18);
    TH_CHECK(rlx_run(p2) == RLX_OK && rlx_get_output_f32(p2, "y", b, 18) == RLX_OK, "cached program runs: %s",
             rlx_program_error(p2));
    TH_CHECK(memcmp(a, b, sizeof a) == 0, "cached program gives identical results");
    TH_CHECK(rlx_get_output_f32(p2, "k", b, 18) == RLX_OK, "constant output");
    {
        int ok = 1;
        for (i = 0; i < 18; i++) {
            float e = xv[i] + 0.5f;   /* rounded to float (x87 keeps excess precision in expressions) */
            ok &= b[i] == e;
        }
        TH_CHECK(ok, "the cached program keeps the constants");
    }
    rlx_set_param_f32(p3, "w", wv, 9);
    rlx_set_input_f32(p3, "x", xv, 9);
    TH_CHECK(rlx_run(p3) == RLX_OK && rlx_get_output_f32(p3, "y", c3, 9) == RLX_OK, "seq=3 runs");
    TH_CHECK(memcmp(c3, a, sizeof c3) == 0, "seq=3 rows equal the first rows of seq=6");
    rlx_program_destroy(p1);   /* the cache outlives the programs */
    v[0] = 6;
    p4 = compile_dims(g, 1, names, v);
    rlx_graph_destroy(g);      /* and programs outlive the graph */
    if (p4) {
        rlx_set_param_f32(p4, "w", wv, 9);
        rlx_set_input_f32(p4, "x", xv, 18);
        TH_CHECK(rlx_run(p4) == RLX_OK && rlx_get_output_f32(p4, "y", b, 18) == RLX_OK && memcmp(a, b, sizeof a) == 0,
                 "a cached program after its first sibling was destroyed");
    }
    rlx_program_destroy(p2); rlx_program_destroy(p3); rlx_program_destroy(p4);
}

/* ---- 2b. the cache really skips compiling, and is kept per allocator: allocation counts of two counting
           allocators (a hit allocates only the program: far fewer blocks than a compile) ---- */
static long n_alloc[2];
static void* count_alloc(size_t size, void* user) { n_alloc[*(int*)user]++; return malloc(size); }
static void count_free(void* ptr, void* user) { (void)user; free(ptr); }

static void test_cache_allocs(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t S = rlx_dim(g, "seq", 4), xs[2], ws[2] = {3, 3};
    rlx_tensor h;
    int which[2], i;
    long first, hit, other;
    rlx_compile_desc cd;
    rlx_dim_value dv;
    rlx_program *p1 = NULL, *p2 = NULL, *p3 = NULL;
    xs[0] = S; xs[1] = 3;
    h = rlx_input(g, "x", RLX_F32, 2, xs);
    for (i = 0; i < 8; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "w%d", i);
        h = rlx_tanh(g, rlx_matmul(g, h, rlx_param(g, nm, RLX_F32, 2, ws)));
    }
    rlx_output(g, "y", h);
    which[0] = 0; which[1] = 1;
    memset(&cd, 0, sizeof cd);
    dv.name = "seq"; dv.value = 7;
    cd.device = RLX_DEVICE_CPU;
    cd.num_threads = 1;
    cd.dims = &dv;
    cd.num_dims = 1;
    cd.allocator.alloc = count_alloc;
    cd.allocator.free = count_free;
    cd.allocator.user_data = &which[0];
    n_alloc[0] = n_alloc[1] = 0;
    rlx_compile(g, &cd, &p1);
    first = n_alloc[0];
    rlx_compile(g, &cd, &p2);
    hit = n_alloc[0] - first;
    cd.allocator.user_data = &which[1];
    rlx_compile(g, &cd, &p3);
    other = n_alloc[1];
    TH_CHECK(p1 && p2 && p3, "compiles: %s", rlx_graph_error(g));
    TH_CHECK(hit > 0 && hit * 2 < first, "a cached compile allocates only the program (%ld blocks vs %ld)", hit, first);
    TH_CHECK(other > hit * 2, "another allocator does not get the first allocator's core (%ld blocks, hit %ld)",
             other, hit);
    rlx_program_destroy(p1); rlx_program_destroy(p2); rlx_program_destroy(p3);
    /* least recently used eviction: after RLX_DIM_CACHE other lengths, seq = 7 compiles in full again, and the
       most recent length is still cached */
    cd.allocator.user_data = &which[0];
    for (i = 0; i < RLX_DIM_CACHE; i++) {
        dv.value = 20 + i;
        p1 = NULL;
        rlx_compile(g, &cd, &p1);
        rlx_program_destroy(p1);
    }
    n_alloc[0] = 0;
    dv.value = 20 + RLX_DIM_CACHE - 1;
    p1 = NULL;
    rlx_compile(g, &cd, &p1);
    hit = n_alloc[0];
    dv.value = 7;
    p2 = NULL;
    rlx_compile(g, &cd, &p2);
    other = n_alloc[0] - hit;
    TH_CHECK(p1 && p2 && hit * 2 < first && other * 2 > first,
             "LRU: the latest length is a hit (%ld blocks), the evicted one compiles in full (%ld, first %ld)", hit,
             other, first);
    rlx_program_destroy(p1); rlx_program_destroy(p2);
    /* a graph that grew after a compile never gets the old core: the new output exists */
    rlx_output(g, "z", rlx_relu(g, h));
    p1 = NULL;
    TH_CHECK(rlx_compile(g, &cd, &p1) == RLX_OK, "compile after growing: %s", rlx_graph_error(g));
    if (p1) {
        float wv[9], xv[7 * 3], z[7 * 3];
        char nm[16];
        int ok = 1;
        fill(wv, 9); fill(xv, 21);
        for (i = 0; i < 8; i++) {
            snprintf(nm, sizeof nm, "w%d", i);
            rlx_set_param_f32(p1, nm, wv, 9);
        }
        rlx_set_input_f32(p1, "x", xv, 21);
        TH_CHECK(rlx_run(p1) == RLX_OK && rlx_get_output_f32(p1, "z", z, 21) == RLX_OK, "the grown graph's new output "
                 "is in the program: %s", rlx_program_error(p1));
        for (i = 0; i < 21; i++) ok &= z[i] >= 0.0f;
        TH_CHECK(ok, "relu output is non-negative");
    }
    rlx_program_destroy(p1);
    rlx_graph_destroy(g);
}

/* ---- 3. attention over a KV state with kv_len, query length `seq`, cache length `ctx` ---- */
static void test_attention(void) {
    enum { H = 4, HKV = 2, D = 8 };
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t S = rlx_dim(g, "seq", 2), C = rlx_dim(g, "ctx", 8);
    int64_t qs[4], ks[4];
    rlx_tensor q, k, v, kl;
    rlx_attention_desc ad;
    static const char* const names[2] = {"seq", "ctx"};
    static const int64_t cases[3][2] = {{2, 8}, {5, 12}, {1, 20}};
    int c;
    qs[0] = 1; qs[1] = H; qs[2] = S; qs[3] = D;
    ks[0] = 1; ks[1] = HKV; ks[2] = C; ks[3] = D;
    q = rlx_input(g, "q", RLX_F32, 4, qs);
    k = rlx_input(g, "k", RLX_F32, 4, ks);
    v = rlx_input(g, "v", RLX_F32, 4, ks);
    kl = rlx_input(g, "kv_len", RLX_I32, 0, NULL);
    memset(&ad, 0, sizeof ad);
    ad.layout = RLX_LAYOUT_BHSD;
    ad.causal = 1;
    ad.kv_len = kl;
    rlx_output(g, "o", rlx_attention(g, q, k, v, &ad));
    for (c = 0; c < 3; c++) {
        int64_t s = cases[c][0], ctx = cases[c][1], h, i, j, d;
        int32_t kvl = (int32_t)(ctx - 3 > s ? ctx - 3 : s);
        float *qv = (float*)malloc(sizeof(float) * (size_t)(H * s * D));
        float *kv = (float*)malloc(sizeof(float) * (size_t)(HKV * ctx * D));
        float *vv = (float*)malloc(sizeof(float) * (size_t)(HKV * ctx * D));
        float *out = (float*)malloc(sizeof(float) * (size_t)(H * s * D));
        double *want = (double*)calloc((size_t)(H * s * D), sizeof(double));
        double sc = 1.0 / sqrt((double)D);
        rlx_program* p = compile_dims(g, 2, names, cases[c]);
        if (!p) { free(qv); free(kv); free(vv); free(out); free(want); continue; }
        fill(qv, H * s * D); fill(kv, HKV * ctx * D); fill(vv, HKV * ctx * D);
        TH_CHECK(rlx_set_input_f32(p, "q", qv, (size_t)(H * s * D)) == RLX_OK &&
                 rlx_set_input_f32(p, "k", kv, (size_t)(HKV * ctx * D)) == RLX_OK &&
                 rlx_set_input_f32(p, "v", vv, (size_t)(HKV * ctx * D)) == RLX_OK &&
                 rlx_set_input_i32(p, "kv_len", &kvl, 1) == RLX_OK && rlx_run(p) == RLX_OK &&
                 rlx_get_output_f32(p, "o", out, (size_t)(H * s * D)) == RLX_OK, "attention seq=%lld ctx=%lld: %s",
                 (long long)s, (long long)ctx, rlx_program_error(p));
        for (h = 0; h < H; h++) {
            int64_t kh = h / (H / HKV);
            for (i = 0; i < s; i++) {
                int64_t lim = i + (kvl - s);   /* causal offset: keys j <= i + kv_len - seq, j < kv_len */
                double m = -1e300, z = 0.0, sc_[64];
                for (j = 0; j <= lim && j < kvl; j++) {
                    double dot = 0.0;
                    for (d = 0; d < D; d++) dot += (double)qv[(h * s + i) * D + d] * (double)kv[(kh * ctx + j) * D + d];
                    sc_[j] = dot * sc;
                    if (sc_[j] > m) m = sc_[j];
                }
                for (j = 0; j <= lim && j < kvl; j++) { sc_[j] = exp(sc_[j] - m); z += sc_[j]; }
                for (d = 0; d < D; d++) {
                    double acc = 0.0;
                    for (j = 0; j <= lim && j < kvl; j++) acc += sc_[j] * (double)vv[(kh * ctx + j) * D + d];
                    want[(h * s + i) * D + d] = z > 0 ? acc / z : 0.0;
                }
            }
        }
        TH_CHECK(close_all("o", out, want, H * s * D, 2e-5), "attention seq=%lld ctx=%lld kv_len=%d vs f64",
                 (long long)s, (long long)ctx, (int)kvl);
        rlx_program_destroy(p);
        free(qv); free(kv); free(vv); free(out); free(want);
    }
    rlx_graph_destroy(g);
}

/* ---- 4. errors ---- */
static void expect_fail(rlx_graph* g, const rlx_dim_value* dv, int n, rlx_result want, const char* must_contain,
                        const char* what) {
    rlx_compile_desc cd;
    rlx_program* p = (rlx_program*)&cd;
    rlx_result r;
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    cd.dims = dv;
    cd.num_dims = n;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == want && p == NULL && strstr(rlx_graph_error(g), must_contain) != NULL,
             "%s: got %s '%s', want %s mentioning '%s'", what, rs(r), rlx_graph_error(g), rs(want), must_contain);
    rlx_program_destroy(r == RLX_OK ? p : NULL);
}

static void test_errors(void) {
    rlx_graph* g;
    int64_t S, B;
    int64_t xs[2], r1[2] = {2, -1}, r2[2] = {3, 4};
    rlx_tensor x;
    rlx_dim_value dv[2];
    g = rlx_graph_create(NULL);   /* built at seq=4, batch=3: r1 [2, 6], r2 [3, 4] */
    S = rlx_dim(g, "seq", 4); B = rlx_dim(g, "batch", 3);
    xs[0] = B; xs[1] = S;
    x = rlx_input(g, "x", RLX_F32, 2, xs);
    rlx_output(g, "a", rlx_reshape(g, x, 2, r1));
    rlx_output(g, "b", rlx_reshape(g, x, 2, r2));
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "build: %s", rlx_graph_error(g));
    dv[0].name = "seq"; dv[0].value = 0;
    expect_fail(g, dv, 1, RLX_ERROR_SHAPE, "'seq' = 0", "seq = 0");
    dv[0].value = -5;
    expect_fail(g, dv, 1, RLX_ERROR_SHAPE, "'seq' = -5", "seq < 0");
    dv[0].value = RLX_MAX_ELEMENTS + 1;
    expect_fail(g, dv, 1, RLX_ERROR_SHAPE, "RLX_MAX_ELEMENTS", "seq > RLX_MAX_ELEMENTS");
    dv[0].value = RLX_MAX_ELEMENTS / 2;   /* valid alone, but batch·seq overflows the element limit */
    expect_fail(g, dv, 1, RLX_ERROR_SHAPE, "node 1 (input)", "batch·seq > RLX_MAX_ELEMENTS names the input node");
    dv[0].value = 5;   /* 3·5 = 15: odd for r1, not 12 for r2 */
    expect_fail(g, dv, 1, RLX_ERROR_SHAPE, "seq=5, batch=3: node 2 (reshape)", "impossible reshape names dims and node");
    dv[0].value = 4; dv[1].name = "batch"; dv[1].value = 2;   /* 8 elements: r1 fine, r2 (12) impossible */
    expect_fail(g, dv, 2, RLX_ERROR_SHAPE, "node 3 (reshape)", "second reshape impossible");
    dv[0].name = "sequence"; dv[0].value = 4;
    expect_fail(g, dv, 1, RLX_ERROR_NOT_FOUND, "'sequence' is not a dim", "unknown dim name");
    dv[0].name = "seq"; dv[1].name = "seq";
    expect_fail(g, dv, 2, RLX_ERROR_DUPLICATE, "given twice", "dim given twice");
    dv[0].name = NULL;
    expect_fail(g, dv, 1, RLX_ERROR_INVALID_ARGUMENT, "NULL", "NULL dim name");
    expect_fail(g, NULL, 1, RLX_ERROR_INVALID_ARGUMENT, "num_dims", "dims NULL with num_dims 1");
    expect_fail(g, dv, -1, RLX_ERROR_INVALID_ARGUMENT, "num_dims", "num_dims < 0");
    {   /* valid values after the failures still compile (the cache and the kept specialisation are sound) */
        static const char* const nm[2] = {"seq", "batch"};
        static const int64_t v[2] = {4, 3};
        rlx_program* p = compile_dims(g, 2, nm, v);
        TH_CHECK(p != NULL, "valid values compile after failures");
        rlx_program_destroy(p);
    }
    rlx_graph_destroy(g);

    /* declaration errors (sticky) */
    g = rlx_graph_create(NULL);
    TH_CHECK(rlx_dim(g, "seq", 0) == 0 && rlx_graph_status(g) == RLX_ERROR_SHAPE, "example value 0");
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);
    rlx_dim(g, "seq", 2);
    TH_CHECK(rlx_dim(g, "seq", 3) == 0 && rlx_graph_status(g) == RLX_ERROR_DUPLICATE, "duplicate dim name");
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);
    TH_CHECK(rlx_dim(g, NULL, 3) == 0 && rlx_graph_status(g) == RLX_ERROR_INVALID_ARGUMENT, "NULL dim name");
    rlx_graph_destroy(g);
    TH_CHECK(rlx_dim(NULL, "seq", 3) == 0, "NULL graph");
    g = rlx_graph_create(NULL);
    {
        int k;
        char nm[16];
        for (k = 0; k < RLX_MAX_DIMS; k++) { snprintf(nm, sizeof nm, "d%d", k); rlx_dim(g, nm, 1); }
        TH_CHECK(rlx_graph_status(g) == RLX_OK && rlx_dim(g, "one_more", 1) == 0 &&
                 rlx_graph_status(g) == RLX_ERROR_INVALID_ARGUMENT, "more than RLX_MAX_DIMS dims");
    }
    rlx_graph_destroy(g);
    /* a token in a constant's shape, a token of an undeclared dim, a token in a graph without dims */
    g = rlx_graph_create(NULL);
    {
        int64_t s1[1];
        float d[4] = {1, 2, 3, 4};
        s1[0] = rlx_dim(g, "seq", 4);
        rlx_constant(g, RLX_F32, 1, s1, d);
        TH_CHECK(rlx_graph_status(g) == RLX_ERROR_SHAPE && strstr(rlx_graph_error(g), "constant") != NULL,
                 "token in a constant's shape: %s", rlx_graph_error(g));
    }
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);
    {
        int64_t s1[1];
        rlx_dim(g, "seq", 4);
        s1[0] = RLX_DIM_TOKEN(1);
        rlx_input(g, "x", RLX_F32, 1, s1);
        TH_CHECK(rlx_graph_status(g) == RLX_ERROR_SHAPE && strstr(rlx_graph_error(g), "did not declare") != NULL,
                 "token of an undeclared dim: %s", rlx_graph_error(g));
    }
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);
    {
        int64_t s1[1];
        rlx_dim_value one;
        rlx_compile_desc cd;
        rlx_program* p = NULL;
        s1[0] = RLX_DIM_TOKEN(0);
        rlx_input(g, "x", RLX_F32, 1, s1);
        TH_CHECK(rlx_graph_status(g) == RLX_ERROR_SHAPE && strstr(rlx_graph_error(g), "symbolic dim token") != NULL,
                 "token in a graph without dims: %s", rlx_graph_error(g));
        rlx_graph_destroy(g);
        g = rlx_graph_create(NULL);
        s1[0] = 3;
        rlx_output(g, "y", rlx_input(g, "x", RLX_F32, 1, s1));
        one.name = "seq"; one.value = 3;
        memset(&cd, 0, sizeof cd);
        cd.device = RLX_DEVICE_CPU;
        cd.dims = &one;
        cd.num_dims = 1;
        TH_CHECK(rlx_compile(g, &cd, &p) == RLX_ERROR_INVALID_ARGUMENT && !p &&
                 strstr(rlx_graph_error(g), "no symbolic dims") != NULL, "dims for a graph without dims");
    }
    rlx_graph_destroy(g);
}

/* ---- 7. every op the replay rebuilds: a graph of many ops along a symbolic axis, specialised for new lengths,
          against the same graph built without dims for each length (same builders, same order: the outputs must
          be identical). This checks that the replay recovers every op's arguments from its attributes; the f64
          references above check the numbers. ---- */
typedef struct zoo_param { const char* name; int rank; int64_t shape[4]; } zoo_param;
static const zoo_param zoo_params[] = {
    {"w_conv", 4, {5, 4, 3, 3}}, {"b_conv", 1, {5, 0, 0, 0}}, {"w_ct", 4, {4, 2, 2, 2}}, {"gn_g", 1, {5, 0, 0, 0}},
    {"gn_b", 1, {5, 0, 0, 0}}, {"ln_g", 1, {6, 0, 0, 0}}, {"ln_b", 1, {6, 0, 0, 0}}, {"w_lin", 2, {24, 8, 0, 0}},
    {"b_lin", 1, {8, 0, 0, 0}}, {"emb", 2, {10, 3, 0, 0}}, {"res", 3, {1, 1, 8, 0}}};
#define ZOO_NP ((int)(sizeof zoo_params / sizeof zoo_params[0]))
static const char* const zoo_outs[] = {"conv", "ct", "pool", "gn", "resize", "pad", "topv", "topi", "concat",
    "where", "ln", "lsm", "argmin", "lin", "addln", "addsum", "swiglu", "geglu", "cumsum", "gather", "state",
    "unary", "sliced", "bcast"};
#define ZOO_NO ((int)(sizeof zoo_outs / sizeof zoo_outs[0]))

static rlx_graph* build_zoo(int symbolic, int64_t len) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t S = symbolic ? rlx_dim(g, "seq", 3) : len;
    int64_t xs[4], is[1], one = 1, st[3] = {1, 16, 8}, r3[3], before[4] = {0, 0, 1, 0}, after[4] = {0, 0, 0, 2};
    int64_t sl_len;
    rlx_tensor x, p[ZOO_NP], c, h, t, sum, tv, ti, cat[2], lin;
    rlx_conv_desc cd;
    rlx_pool_desc pd;
    int perm[4] = {0, 2, 1, 3}, k;
    xs[0] = 1; xs[1] = 4; xs[2] = S; xs[3] = 6;
    is[0] = S;
    x = rlx_input(g, "x", RLX_F32, 4, xs);
    for (k = 0; k < ZOO_NP; k++) p[k] = rlx_param(g, zoo_params[k].name, RLX_F32, zoo_params[k].rank, zoo_params[k].shape);
    memset(&cd, 0, sizeof cd);
    cd.pad_begin[0] = cd.pad_begin[1] = cd.pad_end[0] = cd.pad_end[1] = 1;
    c = rlx_conv(g, x, p[0], p[1], &cd);                                        /* [1, 5, S, 6] */
    rlx_output(g, "conv", c);
    memset(&cd, 0, sizeof cd);
    cd.stride[0] = cd.stride[1] = 2;
    rlx_output(g, "ct", rlx_conv_transpose(g, x, p[2], tm_none(), &cd));      /* [1, 2, 2S, 12] */
    memset(&pd, 0, sizeof pd);
    pd.kind = RLX_POOL_MAX;
    pd.kernel[0] = pd.kernel[1] = 2;
    pd.stride[0] = pd.stride[1] = 1;
    pd.pad_end[0] = pd.pad_end[1] = 1;
    rlx_output(g, "pool", rlx_pool(g, c, &pd));                                /* [1, 5, S, 6] */
    rlx_output(g, "gn", rlx_group_norm(g, c, 5, p[3], p[4], 1e-5f));
    rlx_output(g, "resize", rlx_resize(g, x, 4, 4, RLX_RESIZE_BILINEAR, 0));
    rlx_output(g, "pad", rlx_pad(g, x, before, after, RLX_PAD_CONSTANT, 0.5));
    rlx_topk(g, x, 2, 2, 1, &tv, &ti);                                         /* top 2 along S */
    rlx_output(g, "topv", tv);
    rlx_output(g, "topi", ti);
    cat[0] = x; cat[1] = rlx_neg(g, x);
    rlx_output(g, "concat", rlx_concat(g, 2, cat, 2));                         /* [1, 4, 2S, 6] */
    rlx_output(g, "where", rlx_where(g, rlx_gt(g, x, rlx_scalar(g, RLX_F32, 0.0)), x, rlx_exp(g, x)));
    rlx_output(g, "ln", rlx_layernorm(g, x, p[5], p[6], -1, 1e-5f));
    rlx_output(g, "lsm", rlx_log_softmax(g, x, 2));
    rlx_output(g, "argmin", rlx_argmin(g, x, 2, 1));
    r3[0] = 1; r3[1] = S; r3[2] = 24;
    h = rlx_reshape(g, rlx_transpose(g, x, perm), 3, r3);                      /* [1, S, 24] */
    lin = rlx_linear(g, h, p[7], p[8], RLX_ACT_GELU);                           /* [1, S, 8]  */
    rlx_output(g, "lin", lin);
    rlx_output(g, "addln", rlx_add_layernorm(g, lin, rlx_sin(g, lin), tm_none(), tm_none(), -1, 1e-5f, &sum));
    rlx_output(g, "addsum", sum);
    rlx_output(g, "swiglu", rlx_swiglu(g, lin, rlx_cos(g, lin)));
    rlx_output(g, "geglu", rlx_geglu(g, lin, rlx_tanh(g, lin)));
    rlx_output(g, "cumsum", rlx_cumsum(g, lin, 1, 0, 1));
    rlx_output(g, "gather", rlx_gather(g, p[9], rlx_input(g, "idx", RLX_I32, 1, is), 0));
    t = rlx_state_write(g, rlx_state(g, "st", RLX_F32, 3, st), lin, 1, rlx_input(g, "off", RLX_I64, 0, NULL));
    rlx_output(g, "state", rlx_add(g, t, p[10]));
    rlx_output(g, "unary", rlx_sigmoid(g, rlx_abs(g, rlx_neg(g, x))));
    sl_len = symbolic ? S : len;                                                /* slice length given as a token */
    rlx_output(g, "sliced", rlx_slice(g, rlx_concat(g, 2, cat, 2), 2, 0, sl_len, 2));
    r3[0] = 2; r3[1] = S; r3[2] = 8;
    rlx_output(g, "bcast", rlx_expand(g, lin, 3, r3));
    (void)one;
    return g;
}

static void test_zoo(void) {
    rlx_graph* gs = build_zoo(1, 0);
    static const int64_t lens[3] = {5, 2, 3};
    int c, k;
    TH_CHECK(rlx_graph_status(gs) == RLX_OK, "zoo build: %s", rlx_graph_error(gs));
    for (c = 0; c < 3; c++) {
        int64_t S = lens[c];
        rlx_graph* gf = build_zoo(0, S);
        static const char* const names[1] = {"seq"};
        rlx_program *ps = compile_dims(gs, 1, names, &lens[c]), *pf = NULL;
        rlx_compile_desc cd;
        float xv[4 * 8 * 6], pv[200];
        int32_t idx[8];
        int64_t off = 3;
        int same = 1;
        memset(&cd, 0, sizeof cd);
        cd.device = RLX_DEVICE_CPU;
        cd.num_threads = 2;
        TH_CHECK(rlx_graph_status(gf) == RLX_OK && rlx_compile(gf, &cd, &pf) == RLX_OK, "zoo fixed S=%lld: %s",
                 (long long)S, rlx_graph_error(gf));
        if (!ps || !pf) { rlx_program_destroy(ps); rlx_program_destroy(pf); rlx_graph_destroy(gf); continue; }
        fill(xv, 4 * S * 6);
        for (k = 0; k < S; k++) idx[k] = (int32_t)((k * 7 + 3) % 10);
        rlx_set_input_f32(ps, "x", xv, (size_t)(4 * S * 6)); rlx_set_input_f32(pf, "x", xv, (size_t)(4 * S * 6));
        rlx_set_input_i32(ps, "idx", idx, (size_t)S); rlx_set_input_i32(pf, "idx", idx, (size_t)S);
        rlx_set_input_i64(ps, "off", &off, 1); rlx_set_input_i64(pf, "off", &off, 1);
        for (k = 0; k < ZOO_NP; k++) {
            const zoo_param* zp = &zoo_params[k];
            int64_t n = zp->shape[0] * (zp->rank > 1 ? zp->shape[1] : 1) * (zp->rank > 2 ? zp->shape[2] : 1) *
                        (zp->rank > 3 ? zp->shape[3] : 1);
            fill(pv, n);
            rlx_set_param_f32(ps, zp->name, pv, (size_t)n);
            rlx_set_param_f32(pf, zp->name, pv, (size_t)n);
        }
        TH_CHECK(rlx_run(ps) == RLX_OK && rlx_run(pf) == RLX_OK, "zoo S=%lld run: %s / %s", (long long)S,
                 rlx_program_error(ps), rlx_program_error(pf));
        for (k = 0; k < ZOO_NO; k++) {
            const void *da = NULL, *db = NULL;
            rlx_dtype ta, tb;
            int ra = -1, rb = -2, i;
            int64_t sa[8], sb[8], n = 1;
            rlx_output_ptr(ps, zoo_outs[k], &da, &ta, &ra, sa);
            rlx_output_ptr(pf, zoo_outs[k], &db, &tb, &rb, sb);
            if (!da || !db || ta != tb || ra != rb || memcmp(sa, sb, sizeof(int64_t) * (size_t)ra) != 0) {
                printf("  zoo S=%lld: output %s differs in dtype or shape\n", (long long)S, zoo_outs[k]);
                same = 0;
                continue;
            }
            for (i = 0; i < ra; i++) n *= sa[i];
            if (memcmp(da, db, (size_t)n * rlx_dtype_size(ta)) != 0) {
                printf("  zoo S=%lld: output %s differs\n", (long long)S, zoo_outs[k]);
                same = 0;
            }
        }
        TH_CHECK(same, "zoo S=%lld: %d outputs of the specialised graph equal the graph built for S", (long long)S, ZOO_NO);
        rlx_program_destroy(ps);
        rlx_program_destroy(pf);
        rlx_graph_destroy(gf);
    }
    rlx_graph_destroy(gs);
}

/* ---- 6. a GPU device: specialised and cached programs (the cached one takes the GPU set-up path of its own)
          against an f64 reference; skipped where the device is unavailable ---- */
static void test_device(rlx_device dev) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t S = rlx_dim(g, "seq", 2);
    int64_t xs[2], ws[2] = {3, 4};
    rlx_tensor x, w;
    int round_, i, j, k;
    xs[0] = S; xs[1] = 3;
    x = rlx_input(g, "x", RLX_F32, 2, xs);
    w = rlx_param(g, "w", RLX_F32, 2, ws);
    rlx_output(g, "y", rlx_add(g, rlx_matmul(g, x, w), rlx_scalar(g, RLX_F32, 0.25)));
    for (round_ = 0; round_ < 3; round_++) {   /* seq 5, 3, then 5 again from the cache */
        int64_t s = round_ == 1 ? 3 : 5;
        rlx_dim_value dv;
        rlx_compile_desc cd;
        rlx_program* p = NULL;
        rlx_result r;
        float xv[5 * 3], wv[12], out[5 * 4];
        double want[5 * 4];
        memset(&cd, 0, sizeof cd);
        dv.name = "seq"; dv.value = s;
        cd.device = dev;
        cd.flags = RLX_COMPILE_NO_FALLBACK;
        cd.dims = &dv;
        cd.num_dims = 1;
        r = rlx_compile(g, &cd, &p);
        if (r == RLX_ERROR_DEVICE_UNAVAILABLE) {
            th_skip("symbolic dims on %s: %s", rlx_device_name(dev), rlx_graph_error(g));
            break;
        }
        TH_CHECK(r == RLX_OK && rlx_program_device(p) == dev, "%s seq=%lld: compile: %s", rlx_device_name(dev),
                 (long long)s, rlx_graph_error(g));
        if (r != RLX_OK) break;
        fill(xv, s * 3); fill(wv, 12);
        for (i = 0; i < s; i++)
            for (j = 0; j < 4; j++) {
                double acc = 0.25;
                for (k = 0; k < 3; k++) acc += (double)xv[i * 3 + k] * (double)wv[k * 4 + j];
                want[i * 4 + j] = acc;
            }
        TH_CHECK(rlx_set_param_f32(p, "w", wv, 12) == RLX_OK && rlx_set_input_f32(p, "x", xv, (size_t)(s * 3)) == RLX_OK &&
                 rlx_run(p) == RLX_OK && rlx_get_output_f32(p, "y", out, (size_t)(s * 4)) == RLX_OK &&
                 close_all("y", out, want, s * 4, 1e-5), "%s seq=%lld%s: matmul + constant vs f64: %s",
                 rlx_device_name(dev), (long long)s, round_ == 2 ? " (cached)" : "", rlx_program_error(p));
        rlx_program_destroy(p);
    }
    rlx_graph_destroy(g);
}

/* ---- 5. the transformer model with a symbolic sequence length vs the model built for that length ---- */
static void test_transformer(void) {
    tm_config cfg = tm_config_tiny();
    tm_build b = tm_build_default(4);
    tm_weights w;
    rlx_result tr = RLX_OK;
    rlx_graph* gs;
    static const int lens[3] = {4, 1, 7};
    int c;
    b.symbolic_seq = 1;
    gs = tm_build_graph(&cfg, &b, &tr);
    if (!gs || tr != RLX_OK || rlx_graph_status(gs) != RLX_OK) {
        TH_CHECK(0, "symbolic model build: %s", gs ? rlx_graph_error(gs) : "out of memory");
        rlx_graph_destroy(gs);
        return;
    }
    if (!tm_weights_init(&cfg, 1, &w)) { TH_CHECK(0, "weights"); rlx_graph_destroy(gs); return; }
    for (c = 0; c < 3; c++) {
        int S = lens[c], i;
        static const char* const names[1] = {"seq"};
        int64_t v[1];
        int32_t toks[8];
        float la[256], lb[256];
        int64_t na = -1, nb = -2;
        rlx_program *ps, *pf = NULL;
        char err[512];
        tm_build bf = tm_build_default(S);
        v[0] = S;
        ps = compile_dims(gs, 1, names, v);
        tm_compile(&cfg, &bf, 2, 0, &pf, err, sizeof err);
        TH_CHECK(pf != NULL, "fixed model S=%d: %s", S, err);
        if (!ps || !pf) { rlx_program_destroy(ps); rlx_program_destroy(pf); continue; }
        for (i = 0; i < S; i++) toks[i] = (int32_t)((37 * i + 11) % cfg.vocab);
        TH_CHECK(tm_set_params(ps, &w) == RLX_OK && tm_set_params(pf, &w) == RLX_OK, "params");
        TH_CHECK(tm_run(ps, toks, S, 3, 0) == RLX_OK && tm_run(pf, toks, S, 3, 0) == RLX_OK, "run S=%d: %s %s", S,
                 rlx_program_error(ps), rlx_program_error(pf));
        rlx_get_output_f32(ps, "logits", la, 256);
        rlx_get_output_f32(pf, "logits", lb, 256);
        rlx_get_output_i64(ps, "next", &na, 1);
        rlx_get_output_i64(pf, "next", &nb, 1);
        {
            double md = 0.0, mx = 0.0;
            for (i = 0; i < 256; i++) {
                double dd = fabs((double)la[i] - (double)lb[i]);
                if (dd > md) md = dd;
                if (fabs((double)lb[i]) > mx) mx = fabs((double)lb[i]);
            }
            TH_CHECK(md <= 1e-5 * (1.0 + mx) && mx > 0.0 && na == nb, "S=%d: symbolic vs fixed logits differ by %g "
                     "(next %lld vs %lld)", S, md, (long long)na, (long long)nb);
        }
        rlx_program_destroy(ps);
        rlx_program_destroy(pf);
    }
    tm_weights_free(&w);
    rlx_graph_destroy(gs);
}

int main(void) {
    test_basic();
    test_cache();
    test_cache_allocs();
    test_attention();
    test_errors();
    test_transformer();
    test_zoo();
    test_device(RLX_DEVICE_VULKAN);
    test_device(RLX_DEVICE_CUDA);
    return th_summary("shapes");
}
