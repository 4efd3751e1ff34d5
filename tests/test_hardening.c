/* Hostile input to the public API: sizes that overflow, run-time positions at the edges of int64, handles of
   other graphs, concurrent calls on one program. Every case must end in RLX_OK with the right answer (checked
   against a reference computed here) or in an error code with a message; under ASan + UBSan, and on 32-bit
   targets, none may write out of bounds or overflow a signed integer. */
#define RLX_IMPLEMENTATION
#include "rlx.h"
#include "harness.h"

#include <limits.h>
#include <stdlib.h>

#if !defined(RLX_NO_THREADS) && !defined(_WIN32)
#  include <pthread.h>
#  define HT_THREADS 1
#endif

/* An allocator that refuses any single request over 256 MiB, so a graph whose arena cannot exist fails with
   RLX_ERROR_OUT_OF_MEMORY here on every machine (and under ASan, whose malloc would abort on such a size). */
static void* ht_alloc(size_t n, void* u) { (void)u; return n > ((size_t)256 << 20) ? NULL : malloc(n); }
static void ht_free(void* p, void* u) { (void)u; free(p); }

static const rlx_tensor ht_none = {0, 0};

static rlx_graph* ht_graph(void) {
    rlx_graph_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.allocator.alloc = ht_alloc;
    gd.allocator.free = ht_free;
    return rlx_graph_create(&gd);
}

static rlx_program* ht_compile_on(rlx_graph* g, rlx_device dev, rlx_result* r) {
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    cd.flags = RLX_COMPILE_NO_FALLBACK;
    *r = rlx_compile(g, &cd, &p);
    return p;
}
static rlx_program* ht_compile(rlx_graph* g, rlx_result* r) { return ht_compile_on(g, RLX_DEVICE_CPU, r); }

/* A builder error: the graph's status is `want` (or any error when want is 0) and the message is not empty. */
static void ht_expect_builder_error(rlx_graph* g, rlx_result want, const char* what) {
    rlx_result st = rlx_graph_status(g);
    TH_CHECK(want ? st == want : st != RLX_OK, "%s: status %d (%s), expected %d", what, (int)st, rlx_result_string(st), (int)want);
    TH_CHECK(rlx_graph_error(g)[0] != 0, "%s: no message", what);
    printf("  %s -> %s: %s\n", what, rlx_result_string(st), rlx_graph_error(g));
}

/* 1. Max pool with a 2^31-1 kernel and 2^31-2 padding on a 2x2 input. With stride 1 the output would have
   2^62 elements (a byte size that wraps size_t): the builder must refuse it. With the default stride (= the
   kernel) the output is 2x2, each window holding exactly one input pixel: it runs and equals the input. */
static void test_pool_huge_kernel(void) {
    rlx_graph* g = ht_graph();
    int64_t xs[4] = {1, 1, 2, 2};
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 4, xs);
    rlx_pool_desc d;
    memset(&d, 0, sizeof d);
    d.kind = RLX_POOL_MAX;
    d.kernel[0] = d.kernel[1] = INT_MAX;
    d.pad_begin[0] = d.pad_begin[1] = d.pad_end[0] = d.pad_end[1] = INT_MAX - 1;
    d.stride[0] = d.stride[1] = 1;
    TH_CHECK(rlx_pool(g, x, &d).id == 0, "pool stride 1: a handle for a 2^62-element output");
    ht_expect_builder_error(g, RLX_ERROR_SHAPE, "pool kernel 2^31-1, pads 2^31-2, stride 1");
    rlx_graph_destroy(g);

    g = ht_graph();
    x = rlx_input(g, "x", RLX_F32, 4, xs);
    d.stride[0] = d.stride[1] = 0;   /* = kernel */
    rlx_output(g, "y", rlx_pool(g, x, &d));
    {
        rlx_result r;
        rlx_program* p = ht_compile(g, &r);
        float xv[4] = {0.25f, -1.5f, 3.0f, 7.5f}, yv[4] = {0};
        int i, ok = 1;
        TH_CHECK(r == RLX_OK, "pool default stride: compile %s: %s", rlx_result_string(r), rlx_graph_error(g));
        if (p) {
            TH_CHECK(rlx_set_input_f32(p, "x", xv, 4) == RLX_OK && rlx_run(p) == RLX_OK && rlx_get_output_f32(p, "y", yv, 4) == RLX_OK,
                     "pool default stride: run: %s", rlx_program_error(p));
            for (i = 0; i < 4; i++) ok &= yv[i] == xv[i];
            TH_CHECK(ok, "pool default stride: y = %g %g %g %g, expected the input", yv[0], yv[1], yv[2], yv[3]);
        }
        rlx_program_destroy(p);
    }
    rlx_graph_destroy(g);
}

/* 2. Expand of a scalar to the largest element count the builder accepts: the builder takes it, and compile
   fails with out of memory (the arena cannot exist) instead of planning a wrapped size. Two such buffers live
   at once: their sum overflows a 32-bit size_t, which the planner must detect. */
static void test_expand_max(void) {
    int64_t one = 1, n = RLX_MAX_ELEMENTS, n2 = RLX_MAX_ELEMENTS + 1;
    rlx_graph* g = ht_graph();
    rlx_tensor s = rlx_input(g, "s", RLX_F64, 1, &one);
    rlx_tensor a, b;
    TH_CHECK(rlx_expand(g, s, 1, &n2).id == 0, "expand to RLX_MAX_ELEMENTS + 1 accepted");
    ht_expect_builder_error(g, RLX_ERROR_SHAPE, "expand to RLX_MAX_ELEMENTS + 1");
    rlx_graph_destroy(g);

    g = ht_graph();
    s = rlx_input(g, "s", RLX_F64, 1, &one);
    a = rlx_expand(g, s, 1, &n);
    b = rlx_expand(g, rlx_neg(g, s), 1, &n);
    TH_CHECK(a.id != 0 && b.id != 0, "expand to RLX_MAX_ELEMENTS refused: %s", rlx_graph_error(g));
    rlx_output(g, "a", rlx_exp(g, a));
    rlx_output(g, "b", rlx_exp(g, b));
    {
        rlx_result r;
        rlx_program* p = ht_compile(g, &r);
        TH_CHECK(p == NULL && r == RLX_ERROR_OUT_OF_MEMORY, "two RLX_MAX_ELEMENTS f64 buffers: compile gave %s",
                 rlx_result_string(r));
        TH_CHECK(rlx_graph_error(g)[0] != 0, "two RLX_MAX_ELEMENTS f64 buffers: no message");
        printf("  two RLX_MAX_ELEMENTS f64 buffers -> %s: %s\n", rlx_result_string(r), rlx_graph_error(g));
        rlx_program_destroy(p);
    }
    rlx_graph_destroy(g);
}

/* Smallest power of two s with s*s > RLX_MAX_ELEMENTS (2^31 on 64-bit targets, 2^15 on 32-bit). */
static int64_t ht_side(void) {
    int64_t s = 1;
    while (s <= RLX_MAX_ELEMENTS / s) s *= 2;
    return s;
}

/* 3. linear and attention with inputs inside the limit and an output over it, as matmul already refuses. */
static void test_oversized_outputs(void) {
    int64_t S = ht_side();
    rlx_graph* g = ht_graph();
    int64_t xs[2] = {S, 1}, ws[2] = {1, S};
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, xs), w = rlx_param(g, "w", RLX_F32, 2, ws);
    TH_CHECK(rlx_matmul(g, x, w).id == 0, "matmul [S,1]x[1,S] accepted");
    ht_expect_builder_error(g, RLX_ERROR_SHAPE, "matmul output over RLX_MAX_ELEMENTS");
    rlx_graph_destroy(g);

    g = ht_graph();
    x = rlx_input(g, "x", RLX_F32, 2, xs);
    w = rlx_param(g, "w", RLX_F32, 2, ws);
    TH_CHECK(rlx_linear(g, x, w, ht_none, RLX_ACT_RELU).id == 0, "linear [S,1]x[1,S] accepted");
    ht_expect_builder_error(g, RLX_ERROR_SHAPE, "linear output over RLX_MAX_ELEMENTS");
    rlx_graph_destroy(g);

    g = ht_graph();
    {
        int64_t qs[3] = {1, S, 1}, ks[3] = {1, 1, 1}, vs[3] = {1, 1, S};
        rlx_attention_desc ad;
        rlx_tensor q = rlx_input(g, "q", RLX_F32, 3, qs), k = rlx_input(g, "k", RLX_F32, 3, ks);
        rlx_tensor v = rlx_input(g, "v", RLX_F32, 3, vs);
        memset(&ad, 0, sizeof ad);
        ad.layout = RLX_LAYOUT_BSHD;
        ad.num_heads = 1;
        TH_CHECK(rlx_attention(g, q, k, v, &ad).id == 0, "attention with a [1,S,S] output accepted");
        ht_expect_builder_error(g, RLX_ERROR_SHAPE, "attention output over RLX_MAX_ELEMENTS");
    }
    rlx_graph_destroy(g);
}

/* 4. Convolution shape inference with products that overflow int64 (dilation x kernel, input x stride). */
static void test_conv_overflow(void) {
    rlx_graph* g = ht_graph();
    int64_t K = RLX_MAX_ELEMENTS / 2, xs[3] = {1, 1, 5}, ws[3] = {1, 1, K};
    rlx_conv_desc d;
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 3, xs), w = rlx_param(g, "w", RLX_F32, 3, ws);
    memset(&d, 0, sizeof d);
    d.dilation[0] = INT_MAX;
    d.pad_begin[0] = d.pad_end[0] = INT_MAX;
    TH_CHECK(rlx_conv(g, x, w, ht_none, &d).id == 0, "conv with dilation 2^31-1 and kernel %lld accepted", (long long)K);
    ht_expect_builder_error(g, 0, "conv dilation x kernel");
    rlx_graph_destroy(g);

    g = ht_graph();
    {
        int64_t H = RLX_MAX_ELEMENTS / 4, x4[4] = {1, 1, H, 1}, w4[4] = {1, 1, 1, 1};
        x = rlx_input(g, "x", RLX_F32, 4, x4);
        w = rlx_param(g, "w", RLX_F32, 4, w4);
        memset(&d, 0, sizeof d);
        d.stride[0] = INT_MAX;
        TH_CHECK(rlx_conv_transpose(g, x, w, ht_none, &d).id == 0, "conv_transpose (H-1) x 2^31 accepted");
        ht_expect_builder_error(g, RLX_ERROR_SHAPE, "conv_transpose input x stride");
    }
    rlx_graph_destroy(g);

    /* a plain conv still infers its length: x [1,1,10], kernel 3, dilation 2, pads 1/2, stride 3 -> 3 */
    g = ht_graph();
    {
        int64_t x3[3] = {1, 1, 10}, w3[3] = {1, 1, 3}, os[RLX_MAX_RANK];
        int rank = 0;
        rlx_tensor y;
        x = rlx_input(g, "x", RLX_F32, 3, x3);
        w = rlx_param(g, "w", RLX_F32, 3, w3);
        memset(&d, 0, sizeof d);
        d.dilation[0] = 2; d.pad_begin[0] = 1; d.pad_end[0] = 2; d.stride[0] = 3;
        y = rlx_conv(g, x, w, ht_none, &d);
        rlx_tensor_info(g, y, &rank, os);
        /* (10 + 1 + 2 - (2*(3-1)+1)) / 3 + 1 = 8/3 + 1 = 3 */
        TH_CHECK(y.id != 0 && rank == 3 && os[2] == 3, "conv length: rank %d, L %lld (expected 3)", rank, (long long)os[2]);
    }
    rlx_graph_destroy(g);
}

/* 5. state_write at positions at the edges of int64: an offset whose rows do not all fit fails the run with
   RLX_ERROR_OUT_OF_RANGE and writes nothing (checked without overflowing); an in-range position still
   writes. Reference computed here. */
static void test_state_write_edges(rlx_device dev) {
    rlx_graph* g = ht_graph();
    int64_t ss[2] = {4, 3}, us[2] = {2, 3}, one = 1;
    rlx_tensor st = rlx_state(g, "cache", RLX_F32, 2, ss);
    rlx_tensor u = rlx_input(g, "u", RLX_F32, 2, us), off = rlx_input(g, "off", RLX_I64, 1, &one);
    rlx_result r;
    rlx_program* p;
    static const int64_t offs[] = {INT64_MAX, INT64_MAX - 1, INT64_MIN, INT64_MIN + 1, -1, 3, 2, 4, -2};
    size_t t;
    rlx_output(g, "s", rlx_state_write(g, st, u, 0, off));
    p = ht_compile_on(g, dev, &r);
    if (dev != RLX_DEVICE_CPU && r == RLX_ERROR_DEVICE_UNAVAILABLE) {
        th_skip("state_write on %s: %s", rlx_device_name(dev), rlx_graph_error(g));
        rlx_graph_destroy(g);
        return;
    }
    TH_CHECK(r == RLX_OK, "state_write on %s: compile: %s", rlx_device_name(dev), rlx_graph_error(g));
    if (!p) { rlx_graph_destroy(g); return; }
    for (t = 0; t < sizeof offs / sizeof offs[0]; t++) {
        float init[12], uv[6], got[12];
        double want[12];
        int i, j, ok = 1, fits;
        for (i = 0; i < 12; i++) init[i] = (float)(i + 1) * 0.5f;
        for (i = 0; i < 6; i++) uv[i] = -(float)(i + 1) - 0.25f * (float)t;
        for (i = 0; i < 12; i++) want[i] = init[i];
        fits = offs[t] >= 0 && offs[t] <= 2;   /* rows [off, off + 2) inside [0, 4) */
        for (i = 0; i < 2 && fits; i++)
            for (j = 0; j < 3; j++) want[(offs[t] + i) * 3 + j] = uv[i * 3 + j];
        r = rlx_set_state(p, "cache", RLX_F32, init, sizeof init);
        if (r == RLX_OK) r = rlx_set_input_f32(p, "u", uv, 6);
        if (r == RLX_OK) r = rlx_set_input_i64(p, "off", &offs[t], 1);
        if (r == RLX_OK) {
            r = rlx_run(p);
            TH_CHECK(fits ? r == RLX_OK : r == RLX_ERROR_OUT_OF_RANGE, "state_write on %s, offset %lld: run gave %s (%s)",
                     rlx_device_name(dev), (long long)offs[t], rlx_result_string(r), rlx_program_error(p));
            if (r == RLX_ERROR_OUT_OF_RANGE && !fits) r = RLX_OK;
        }
        if (r == RLX_OK) r = rlx_get_state(p, "cache", RLX_F32, got, sizeof got);
        TH_CHECK(r == RLX_OK, "state_write on %s, offset %lld: %s", rlx_device_name(dev), (long long)offs[t], rlx_program_error(p));
        for (i = 0; i < 12 && r == RLX_OK; i++) ok &= (double)got[i] == want[i];
        TH_CHECK(r != RLX_OK || ok, "state_write on %s, offset %lld: wrong state", rlx_device_name(dev), (long long)offs[t]);
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
}

/* 6. A handle from graph A given to graph B (which has a node with the same id), and a handle of a destroyed
   graph given to a new one: RLX_ERROR_INVALID_TENSOR, with a message. */
static void test_foreign_handles(void) {
    int64_t s2[2] = {2, 3};
    rlx_graph *a = rlx_graph_create(NULL), *b = rlx_graph_create(NULL), *c;
    rlx_tensor ta = rlx_input(a, "x", RLX_F32, 2, s2), tb = rlx_input(b, "x", RLX_F32, 2, s2), dead;
    int rank = -1;
    TH_CHECK(ta.id == tb.id, "the two graphs' first nodes have different ids (%u, %u)", ta.id, tb.id);
    TH_CHECK(rlx_relu(b, ta).id == 0, "graph B accepted graph A's handle");
    ht_expect_builder_error(b, RLX_ERROR_INVALID_TENSOR, "A's handle in B");
    TH_CHECK(rlx_tensor_info(b, ta, &rank, NULL) == RLX_DTYPE_INVALID, "rlx_tensor_info(B, A's handle) answered");
    TH_CHECK(rlx_output(a, "y", rlx_relu(a, ta)) == RLX_OK, "A's own handle in A: %s", rlx_graph_error(a));
    rlx_graph_destroy(a);
    rlx_graph_destroy(b);

    a = rlx_graph_create(NULL);
    dead = rlx_input(a, "x", RLX_F32, 2, s2);
    rlx_graph_destroy(a);
    c = rlx_graph_create(NULL);
    rlx_input(c, "x", RLX_F32, 2, s2);
    TH_CHECK(rlx_output(c, "y", dead) == RLX_ERROR_INVALID_TENSOR, "a destroyed graph's handle was accepted");
    ht_expect_builder_error(c, RLX_ERROR_INVALID_TENSOR, "destroyed graph's handle");
    rlx_graph_destroy(c);
}

/* 7. Misuse: a call on a program while another call is inside it returns RLX_ERROR_BUSY. Deterministic part:
   the program is marked busy as a concurrent caller would leave it. Threaded part: two threads run one
   program; every call returns OK or BUSY, and every output read after an OK run is right. */
static void test_busy(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t xs[2] = {64, 64};
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, xs);
    rlx_result r;
    rlx_program* p;
    float* xv = (float*)malloc(sizeof(float) * 64 * 64);
    float* yv = (float*)malloc(sizeof(float) * 64 * 64);
    int i;
    rlx_output(g, "y", rlx_matmul(g, x, x));
    p = ht_compile(g, &r);
    TH_CHECK(r == RLX_OK, "busy: compile: %s", rlx_graph_error(g));
    if (!p || !xv || !yv) { rlx_program_destroy(p); rlx_graph_destroy(g); free(xv); free(yv); return; }
    for (i = 0; i < 64 * 64; i++) xv[i] = (float)((i * 37) % 11) - 5.0f;
    rlx_set_input_f32(p, "x", xv, 64 * 64);
    p->busy = 1;   /* as if another thread were inside rlx_run */
    TH_CHECK(rlx_run(p) == RLX_ERROR_BUSY, "run on a busy program did not return BUSY");
    TH_CHECK(rlx_set_input_f32(p, "x", xv, 64 * 64) == RLX_ERROR_BUSY, "set_input on a busy program did not return BUSY");
    TH_CHECK(rlx_get_output_f32(p, "y", yv, 64 * 64) == RLX_ERROR_BUSY, "get_output on a busy program did not return BUSY");
    TH_CHECK(strstr(rlx_result_string(RLX_ERROR_BUSY), "another thread") != NULL, "BUSY's description: %s",
             rlx_result_string(RLX_ERROR_BUSY));
    p->busy = 0;
    TH_CHECK(rlx_run(p) == RLX_OK, "run after the other call left: %s", rlx_program_error(p));
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    free(xv);
    free(yv);
}

#if defined(HT_THREADS)
typedef struct ht_race { rlx_program* p; int ok, busy, other; } ht_race;
static void* ht_race_fn(void* arg) {
    ht_race* h = (ht_race*)arg;
    int i;
    for (i = 0; i < 200; i++) {
        rlx_result r = rlx_run(h->p);
        if (r == RLX_OK) h->ok++;
        else if (r == RLX_ERROR_BUSY) h->busy++;
        else h->other++;
    }
    return NULL;
}
static void test_busy_threads(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t xs[2] = {96, 96};
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, xs);
    rlx_result r;
    rlx_program* p;
    rlx_compile_desc cd;
    static float xv[96 * 96], yv[96 * 96];
    double maxerr = 0;
    ht_race h[2];
    pthread_t th[2];
    int i, j, k;
    rlx_output(g, "y", rlx_matmul(g, x, x));
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    cd.num_threads = 1;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_OK, "busy threads: compile: %s", rlx_graph_error(g));
    if (r != RLX_OK) { rlx_graph_destroy(g); return; }
    for (i = 0; i < 96 * 96; i++) xv[i] = (float)((i * 29) % 13) * 0.125f - 0.75f;
    rlx_set_input_f32(p, "x", xv, 96 * 96);
    memset(h, 0, sizeof h);
    h[0].p = h[1].p = p;
    for (i = 0; i < 2; i++) pthread_create(&th[i], NULL, ht_race_fn, &h[i]);
    for (i = 0; i < 2; i++) pthread_join(th[i], NULL);
    TH_CHECK(h[0].other == 0 && h[1].other == 0, "concurrent runs returned codes other than OK/BUSY");
    TH_CHECK(h[0].ok + h[1].ok > 0, "no concurrent run succeeded");
    printf("  two threads x 200 runs: %d OK, %d BUSY\n", h[0].ok + h[1].ok, h[0].busy + h[1].busy);
    TH_CHECK(rlx_get_output_f32(p, "y", yv, 96 * 96) == RLX_OK, "busy threads: get_output: %s", rlx_program_error(p));
    for (i = 0; i < 96; i++)
        for (j = 0; j < 96; j++) {
            double acc = 0;
            for (k = 0; k < 96; k++) acc += (double)xv[i * 96 + k] * (double)xv[k * 96 + j];
            if (fabs(acc - yv[i * 96 + j]) > maxerr) maxerr = fabs(acc - yv[i * 96 + j]);
        }
    TH_CHECK(maxerr < 1e-3, "after concurrent runs the output is wrong (max error %g)", maxerr);
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
}
#endif

int main(void) {
    printf("RLX_MAX_ELEMENTS = %lld (size_t of %d bits)\n", (long long)RLX_MAX_ELEMENTS, (int)(sizeof(size_t) * 8));
    test_pool_huge_kernel();
    test_expand_max();
    test_oversized_outputs();
    test_conv_overflow();
    test_state_write_edges(RLX_DEVICE_CPU);   /* the GPU kernels too, where a device exists (lavapipe in CI) */
    test_state_write_edges(RLX_DEVICE_VULKAN);
    test_state_write_edges(RLX_DEVICE_CUDA);
    test_state_write_edges(RLX_DEVICE_HIP);
    test_foreign_handles();
    test_busy();
#if defined(HT_THREADS)
    test_busy_threads();
#else
    th_skip("busy threads: no pthreads in this build");
#endif
    return th_summary("hardening");
}
