/* rlx_onnx_* loader and importer: the API on small models written here by a tiny protobuf writer of the test's
   own (values checked against f64 references computed in the test), and hostile files: truncated, lengths past
   the end, wrong wire types, overflowing varints, negative and overflowing dims, huge element counts, raw_data
   size mismatches, cycles, missing inputs, duplicate names, external-data paths with ".." or absolute paths.
   Each must give an error code and a message, never a crash, and the loader's allocations stay bounded by a
   small multiple of the file size (a counting allocator checks it). */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz/fuzz_onnx.c"

#include "onnx_pbw.h"

/* ---- a counting allocator ---- */
static size_t cur_bytes, peak_bytes;
static void* c_alloc(size_t n, void* u) {
    size_t* p = (size_t*)malloc(n + 16);
    (void)u;
    if (!p) return NULL;
    p[0] = n;
    cur_bytes += n;
    if (cur_bytes > peak_bytes) peak_bytes = cur_bytes;
    return (char*)p + 16;
}
static void c_free(void* q, void* u) {
    size_t* p;
    (void)u;
    if (!q) return;
    p = (size_t*)((char*)q - 16);
    cur_bytes -= p[0];
    free(p);
}

/* loads bytes with the counting allocator; returns the result, message in err */
static rlx_result load(const pbw* b, char* err, size_t cap, rlx_onnx_model** m) {
    rlx_onnx_load_desc ld;
    rlx_result rc;
    memset(&ld, 0, sizeof ld);
    ld.allocator.alloc = c_alloc; ld.allocator.free = c_free;
    ld.error = err; ld.error_cap = cap;
    err[0] = 0;
    peak_bytes = cur_bytes = 0;
    rc = rlx_onnx_load_memory(b->p, b->n, &ld, m);
    return rc;
}
/* expects load (and, if it loads, import) to fail with `want` and a message containing `needle` */
static void expect_fail(const char* what, const pbw* b, rlx_result want, const char* needle) {
    char err[512];
    rlx_onnx_model* m = NULL;
    rlx_graph* g = NULL;
    rlx_result rc = load(b, err, sizeof err, &m);
    const char* msg = err;
    TH_CHECK(peak_bytes <= 64 * b->n + 65536, "%s: load allocated %zu bytes for a %zu-byte file", what, peak_bytes, b->n);
    if (rc == RLX_OK) {
        rc = rlx_onnx_graph(m, NULL, &g);
        msg = rlx_onnx_error(m);
        TH_CHECK(g == NULL || rc == RLX_OK, "%s: graph set on failure", what);
    }
    TH_CHECK(rc == want, "%s: got %d (%s), want %d; message '%s'", what, (int)rc, rlx_result_string(rc), (int)want, msg);
    TH_CHECK(msg[0] != 0 && (!needle || strstr(msg, needle)), "%s: message '%s' lacks '%s'", what, msg, needle ? needle : "");
    rlx_graph_destroy(g);
    rlx_onnx_destroy(m);
    TH_CHECK(cur_bytes == 0, "%s: %zu bytes leaked", what, cur_bytes);
}

/* Y = Relu(X·W + B): X [N, 3] (dim_param N), W [3, 2], B [2] */
static void linear_model(pbw* m, int opset) {
    pbw g = {0};
    int64_t xd[2] = {-1, 3}, wd[2] = {3, 2}, bd[1] = {2}, yd[2] = {-1, 2};
    float w[6] = {0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f}, bb[2] = {0.1f, -0.2f};
    w_node(&g, "MatMul", "mm", "X", "W", "XW", NULL);
    w_node(&g, "Add", "add", "XW", "B", "Z", NULL);
    w_node(&g, "Relu", "relu", "Z", NULL, "Y", NULL);
    w_tensor(&g, 5, "W", 1, 2, wd, w, sizeof w);
    w_tensor(&g, 5, "B", 1, 1, bd, bb, sizeof bb);
    w_vi(&g, 11, "X", 1, 2, xd, "N");
    w_vi(&g, 12, "Y", 1, 2, yd, "N");
    memset(m, 0, sizeof *m);
    w_model(m, &g, opset);
}

static void test_api(void) {
    pbw mb;
    char err[512];
    rlx_onnx_model* m = NULL;
    rlx_onnx_value_info vi;
    rlx_graph *g = NULL, *g2 = NULL;
    rlx_store* s = NULL;
    rlx_program *p = NULL, *p2 = NULL;
    rlx_compile_desc cd;
    rlx_onnx_graph_desc gd;
    rlx_onnx_dim dim;
    rlx_store_stats st;
    static const float w[6] = {0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f}, bb[2] = {0.1f, -0.2f};
    float x[15], y[10];
    int i, j, k;
    memset(&st, 0, sizeof st);
    linear_model(&mb, 13);
    TH_CHECK(load(&mb, err, sizeof err, &m) == RLX_OK, "load: %s", err);
    free(mb.p);
    if (!m) return;
    TH_CHECK(rlx_onnx_opset(m) == 13, "opset %lld", (long long)rlx_onnx_opset(m));
    TH_CHECK(rlx_onnx_input_count(m) == 1 && rlx_onnx_output_count(m) == 1, "counts %d %d", rlx_onnx_input_count(m), rlx_onnx_output_count(m));
    TH_CHECK(rlx_onnx_input(m, 0, &vi) == RLX_OK && !strcmp(vi.name, "X") && vi.dtype == RLX_F32 && vi.rank == 2 &&
             vi.dims[0] == -1 && vi.dim_names[0] && !strcmp(vi.dim_names[0], "N") && vi.dims[1] == 3, "input info");
    TH_CHECK(rlx_onnx_input(m, 1, &vi) == RLX_ERROR_INVALID_ARGUMENT, "input index out of range");
    TH_CHECK(rlx_onnx_node_count(m) == 3 && !strcmp(rlx_onnx_node_op(m, 0), "MatMul") && !strcmp(rlx_onnx_node_name(m, 2), "relu"), "nodes");
    /* an unbound dynamic dim is an error naming it */
    TH_CHECK(rlx_onnx_graph(m, NULL, &g) == RLX_ERROR_SHAPE && g == NULL && strstr(rlx_onnx_error(m), "'N'"), "unbound dim: %s", rlx_onnx_error(m));
    memset(&gd, 0, sizeof gd);
    dim.name = "N"; dim.input = NULL; dim.axis = 0; dim.value = 2;
    gd.dims = &dim; gd.num_dims = 1;
    TH_CHECK(rlx_onnx_graph(m, &gd, &g) == RLX_OK, "graph: %s", rlx_onnx_error(m));
    dim.name = NULL; dim.input = "X"; dim.axis = 0; dim.value = 5;      /* by input name and axis */
    TH_CHECK(rlx_onnx_graph(m, &gd, &g2) == RLX_OK, "graph 2: %s", rlx_onnx_error(m));
    TH_CHECK(rlx_onnx_store(m, NULL, &s) == RLX_OK, "store: %s", rlx_onnx_error(m));
    if (!g || !g2 || !s) { rlx_graph_destroy(g); rlx_graph_destroy(g2); rlx_store_destroy(s); rlx_onnx_destroy(m); return; }
    memset(&cd, 0, sizeof cd);
    cd.store = s;
    TH_CHECK(rlx_compile(g, &cd, &p) == RLX_OK, "compile: %s", rlx_graph_error(g));
    TH_CHECK(rlx_compile(g2, &cd, &p2) == RLX_OK, "compile 2: %s", rlx_graph_error(g2));
    rlx_graph_destroy(g);
    rlx_graph_destroy(g2);
    TH_CHECK(rlx_store_info(s, &st) == RLX_OK && st.count == 2 && st.programs == 2, "store holds W and B, 2 programs (%d, %d)", st.count, st.programs);
    if (st.device == RLX_DEVICE_CPU) TH_CHECK(st.borrowed_bytes + st.bytes >= 32, "store bytes");
    rlx_store_destroy(s);
    rlx_onnx_destroy(m);      /* the programs keep the bytes they borrow */
    for (i = 0; i < 15; i++) x[i] = (float)(i % 4) - 1.25f + 0.1f * (float)i;
    for (k = 0; k < 2; k++) {
        rlx_program* q = k ? p2 : p;
        int rows = k ? 5 : 2;
        if (!q) continue;
        TH_CHECK(rlx_set_input_f32(q, "X", x, (size_t)rows * 3) == RLX_OK, "set X: %s", rlx_program_error(q));
        TH_CHECK(rlx_run(q) == RLX_OK, "run: %s", rlx_program_error(q));
        TH_CHECK(rlx_get_output_f32(q, "Y", y, (size_t)rows * 2) == RLX_OK, "get Y: %s", rlx_program_error(q));
        for (i = 0; i < rows; i++)
            for (j = 0; j < 2; j++) {
                double ref = bb[j];
                int t;
                for (t = 0; t < 3; t++) ref += (double)x[i * 3 + t] * w[t * 2 + j];
                if (ref < 0) ref = 0;
                TH_CHECK(th_close(y[i * 2 + j], ref, 1e-6, 1e-5), "Y[%d,%d] = %g, want %g (N = %d)", i, j, y[i * 2 + j], ref, rows);
            }
    }
    rlx_program_destroy(p);
    rlx_program_destroy(p2);
    TH_CHECK(cur_bytes == 0, "%zu bytes of the model left after every program is gone", cur_bytes);
}

/* Reshape target computed from Shape → Gather → Unsqueeze → Concat (folded while importing) */
static void test_folding(void) {
    pbw g = {0}, mb = {0}, a = {0}, at = {0};
    int64_t xd[3] = {2, 3, 4}, one = 1, yd[2] = {2, 12};
    int64_t idx0 = 0, minus1 = -1, ax0 = 0;
    char err[512];
    rlx_onnx_model* m = NULL;
    rlx_graph* gr = NULL;
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    float x[24], y[24];
    int i, nodes;
    w_node(&g, "Shape", "shape", "X", NULL, "S", NULL);
    w_node(&g, "Gather", "g0", "S", "I0", "D0", NULL);
    w_node(&g, "Unsqueeze", "u0", "D0", "AX", "D0u", NULL);
    pb_str(&at, 1, "axis"); pb_int(&at, 3, 0); pb_int(&at, 20, 2);
    pb_msg(&a, 5, &at);
    {   /* Concat(D0u, M1) with attribute axis = 0 */
        pbw n = {0};
        pb_str(&n, 1, "D0u"); pb_str(&n, 1, "M1"); pb_str(&n, 2, "T"); pb_str(&n, 3, "cat"); pb_str(&n, 4, "Concat");
        pb_put(&n, a.p, a.n);
        pb_msg(&g, 1, &n);
    }
    w_node(&g, "Reshape", "rs", "X", "T", "Y", NULL);
    w_tensor(&g, 5, "I0", 7, 0, NULL, &idx0, 8);
    w_tensor(&g, 5, "AX", 7, 1, &one, &ax0, 8);
    w_tensor(&g, 5, "M1", 7, 1, &one, &minus1, 8);
    w_vi(&g, 11, "X", 1, 3, xd, NULL);
    w_vi(&g, 12, "Y", 1, 2, yd, NULL);
    w_model(&mb, &g, 13);
    free(a.p);
    TH_CHECK(load(&mb, err, sizeof err, &m) == RLX_OK, "load: %s", err);
    free(mb.p);
    if (!m) return;
    TH_CHECK(rlx_onnx_graph(m, NULL, &gr) == RLX_OK, "graph: %s", rlx_onnx_error(m));
    if (gr) {
        nodes = rlx_graph_node_count(gr);
        TH_CHECK(nodes <= 3, "the shape arithmetic is folded: %d nodes (input, reshape, maybe output view)", nodes);
        memset(&cd, 0, sizeof cd);
        cd.device = RLX_DEVICE_CPU;
        TH_CHECK(rlx_compile(gr, &cd, &p) == RLX_OK, "compile: %s", rlx_graph_error(gr));
        for (i = 0; i < 24; i++) x[i] = (float)i * 0.5f - 3.0f;
        if (p) {
            rlx_set_input_f32(p, "X", x, 24);
            TH_CHECK(rlx_run(p) == RLX_OK && rlx_get_output_f32(p, "Y", y, 24) == RLX_OK, "run: %s", rlx_program_error(p));
            for (i = 0; i < 24; i++) TH_CHECK(y[i] == x[i], "Y[%d] = %g, want %g", i, y[i], x[i]);
        }
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(gr);
    rlx_onnx_destroy(m);
}

static void test_read_tensor(void) {
    pbw t = {0};
    int64_t d[2] = {2, 2};
    rlx_onnx_tensor ot;
    rlx_onnx_load_desc ld;
    char err[256];
    float want[4] = {1.5f, -2.0f, 3.25f, 1e-3f};
    int i;
    pb_int(&t, 1, d[0]); pb_int(&t, 1, d[1]); pb_int(&t, 2, 1); pb_str(&t, 8, "typed");
    for (i = 0; i < 4; i++) pb_float(&t, 4, want[i]);              /* unpacked float_data */
    memset(&ld, 0, sizeof ld);
    ld.error = err; ld.error_cap = sizeof err;
    TH_CHECK(rlx_onnx_read_tensor(t.p, t.n, &ld, &ot) == RLX_OK, "read: %s", err);
    TH_CHECK(!strcmp(ot.name, "typed") && ot.dtype == RLX_F32 && ot.rank == 2 && ot.count == 4 && ot.bytes == 16, "tensor info");
    for (i = 0; i < 4 && ot.data; i++) TH_CHECK(((const float*)ot.data)[i] == want[i], "element %d", i);
    rlx_onnx_tensor_free(&ot);
    /* 3 values for 4 elements */
    t.n = 0;
    pb_int(&t, 1, 4); pb_int(&t, 2, 1);
    for (i = 0; i < 3; i++) pb_float(&t, 4, want[i]);
    TH_CHECK(rlx_onnx_read_tensor(t.p, t.n, &ld, &ot) == RLX_ERROR_SIZE && strstr(err, "3 values"), "count mismatch: %s", err);
    /* string tensor: unsupported */
    t.n = 0;
    pb_int(&t, 1, 1); pb_int(&t, 2, 8); pb_str(&t, 6, "abc");
    TH_CHECK(rlx_onnx_read_tensor(t.p, t.n, &ld, &ot) == RLX_ERROR_UNSUPPORTED && strstr(err, "string"), "string tensor: %s", err);
    free(t.p);
}

/* a one-initializer model around a given TensorProto body */
static void init_model(pbw* mb, const pbw* tensor) {
    pbw g = {0};
    int64_t d1 = 1;
    memset(mb, 0, sizeof *mb);
    pb_bytes(&g, 5, tensor->p, tensor->n);
    w_node(&g, "Identity", "id", "W", NULL, "Y", NULL);
    w_vi(&g, 12, "Y", 1, 1, &d1, NULL);
    w_model(mb, &g, 13);
}

/* Y = Conv(X [1, 1, 5, 5], W [1, 1, 3, 3]) with one ints attribute `name` = [2, 2] */
static void conv_attr_model(pbw* m, const char* name) {
    pbw g = {0}, at = {0}, a = {0};
    int64_t xd[4] = {1, 1, 5, 5}, wd[4] = {1, 1, 3, 3}, yd[4] = {1, 1, 3, 3};
    float w9[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    pb_str(&at, 1, name); pb_int(&at, 8, 2); pb_int(&at, 8, 2); pb_int(&at, 20, 7);   /* INTS */
    pb_msg(&a, 5, &at);
    w_vi(&g, 11, "X", 1, 4, xd, NULL);
    w_tensor(&g, 5, "W", 1, 4, wd, w9, sizeof w9);
    w_node(&g, "Conv", "conv", "X", "W", "Y", &a);
    w_vi(&g, 12, "Y", 1, 4, yd, NULL);
    memset(m, 0, sizeof *m);
    w_model(m, &g, 13);
    free(a.p);
}

static void test_hostile(void) {
    pbw mb, b = {0}, t = {0}, g = {0};
    size_t cut;
    char err[512];
    int64_t d1 = 4;
    float four[4] = {1, 2, 3, 4};
    int bad = 0;
    /* every proper prefix of a valid model fails (the graph is the last field) and never crashes */
    linear_model(&mb, 13);
    for (cut = 0; cut < mb.n; cut++) {
        rlx_onnx_model* m = NULL;
        pbw pre;
        pre.p = mb.p; pre.n = cut; pre.cap = cut;
        if (load(&pre, err, sizeof err, &m) == RLX_OK || !err[0] || cur_bytes != 0) bad++;
        rlx_onnx_destroy(m);
    }
    TH_CHECK(bad == 0, "%d of %zu truncated models loaded or gave no message", bad, mb.n);
    free(mb.p);
    /* a length past the end */
    pb_tag(&b, 7, 2); pb_varint(&b, 1000); pb_put(&b, "abc", 3);
    expect_fail("length past the end", &b, RLX_ERROR_FORMAT, "malformed");
    /* wrong wire type for the graph; group wire types; an 11-byte varint */
    b.n = 0; pb_int(&b, 7, 5);
    expect_fail("graph as a varint", &b, RLX_ERROR_FORMAT, "wire type");
    b.n = 0; pb_tag(&b, 7, 3);
    expect_fail("group wire type", &b, RLX_ERROR_FORMAT, NULL);
    b.n = 0; pb_tag(&b, 1, 0); { int i; for (i = 0; i < 10; i++) pb_put(&b, "\xff", 1); } pb_put(&b, "\x01", 1);
    expect_fail("varint overflow", &b, RLX_ERROR_FORMAT, NULL);
    b.n = 0;
    expect_fail("empty file", &b, RLX_ERROR_FORMAT, "no graph");
    /* negative dim */
    pb_int(&t, 1, -3); pb_int(&t, 2, 1); pb_str(&t, 8, "W"); pb_bytes(&t, 9, four, 16);
    init_model(&mb, &t); free(t.p); memset(&t, 0, sizeof t);
    expect_fail("negative dim", &mb, RLX_ERROR_FORMAT, "dim 0 is -3");
    free(mb.p);
    /* overflowing dims */
    pb_int(&t, 1, (int64_t)1 << 40); pb_int(&t, 1, (int64_t)1 << 40); pb_int(&t, 2, 1); pb_str(&t, 8, "W");
    init_model(&mb, &t); free(t.p); memset(&t, 0, sizeof t);
    expect_fail("overflowing dims", &mb, RLX_ERROR_SHAPE, "overflows");
    free(mb.p);
    /* a huge element count with 16 bytes of raw data */
    pb_int(&t, 1, (int64_t)1 << 26); pb_int(&t, 2, 1); pb_str(&t, 8, "W"); pb_bytes(&t, 9, four, 16);
    init_model(&mb, &t); free(t.p); memset(&t, 0, sizeof t);
    expect_fail("huge element count", &mb, RLX_ERROR_SIZE, "raw_data has 16 bytes");
    free(mb.p);
    /* raw_data one byte short */
    pb_int(&t, 1, 4); pb_int(&t, 2, 1); pb_str(&t, 8, "W"); pb_bytes(&t, 9, four, 15);
    init_model(&mb, &t); free(t.p); memset(&t, 0, sizeof t);
    expect_fail("raw_data size", &mb, RLX_ERROR_SIZE, "15 bytes");
    free(mb.p);
    /* many typed values (an allocation bounded by what encodes them) with a wrong count */
    { int i; pb_int(&t, 1, 5); pb_int(&t, 2, 7); pb_str(&t, 8, "W"); pb_tag(&t, 7, 2); pb_varint(&t, 20000); for (i = 0; i < 20000; i++) pb_put(&t, "\x01", 1); }
    init_model(&mb, &t); free(t.p); memset(&t, 0, sizeof t);
    expect_fail("typed count", &mb, RLX_ERROR_SIZE, "20000 values");
    free(mb.p);
    /* many tiny records: the loader's tables stay within a small multiple of the file size */
    {
        pbw gg = {0};
        int i;
        char nm[16];
        for (i = 0; i < 3000; i++) {
            pbw tt = {0}, nn = {0}, aa = {0};
            snprintf(nm, sizeof nm, "t%d", i);
            pb_str(&tt, 8, nm);
            pb_msg(&gg, 5, &tt);
            pb_str(&aa, 1, "a");
            pb_msg(&nn, 5, &aa);
            pb_str(&nn, 4, "Relu");
            pb_msg(&gg, 1, &nn);
        }
        memset(&mb, 0, sizeof mb);
        w_model(&mb, &gg, 13);
        expect_fail("many tiny records", &mb, RLX_ERROR_BAD_GRAPH, "without outputs");
        free(mb.p);
    }
    /* external data outside the folder */
    {
        const char* paths[3] = {"../w.bin", "/etc/passwd", "a/../../w.bin"};
        int i;
        for (i = 0; i < 3; i++) {
            pbw e = {0};
            pb_int(&t, 1, 4); pb_int(&t, 2, 1); pb_str(&t, 8, "W"); pb_int(&t, 14, 1);
            pb_str(&e, 1, "location"); pb_str(&e, 2, paths[i]); pb_msg(&t, 13, &e);
            init_model(&mb, &t); free(t.p); memset(&t, 0, sizeof t);
            expect_fail(paths[i], &mb, RLX_ERROR_FORMAT, "leaves the model's folder");
            free(mb.p);
        }
    }
    /* a cycle, a missing input, an output defined twice, an unsupported op */
    w_node(&g, "Relu", "first", "B", NULL, "A", NULL);
    w_node(&g, "Relu", "second", "A", NULL, "B", NULL);
    w_vi(&g, 12, "B", 1, 1, &d1, NULL);
    memset(&mb, 0, sizeof mb); w_model(&mb, &g, 13);
    expect_fail("cycle", &mb, RLX_ERROR_BAD_GRAPH, "'first'");
    free(mb.p);
    w_node(&g, "Relu", "lonely", "nowhere", NULL, "A", NULL);
    w_vi(&g, 12, "A", 1, 1, &d1, NULL);
    memset(&mb, 0, sizeof mb); w_model(&mb, &g, 13);
    expect_fail("missing input", &mb, RLX_ERROR_NOT_FOUND, "'nowhere'");
    free(mb.p);
    w_vi(&g, 11, "X", 1, 1, &d1, NULL);
    w_node(&g, "Relu", "r1", "X", NULL, "A", NULL);
    w_node(&g, "Relu", "r2", "X", NULL, "A", NULL);
    w_vi(&g, 12, "A", 1, 1, &d1, NULL);
    memset(&mb, 0, sizeof mb); w_model(&mb, &g, 13);
    expect_fail("duplicate output", &mb, RLX_ERROR_DUPLICATE, "'r2'");
    free(mb.p);
    w_vi(&g, 11, "X", 1, 1, &d1, NULL);
    w_tensor(&g, 5, "X2", 1, 1, &d1, four, 16);
    w_tensor(&g, 5, "X2", 1, 1, &d1, four, 16);
    w_node(&g, "Relu", "r", "X", NULL, "A", NULL);
    w_vi(&g, 12, "A", 1, 1, &d1, NULL);
    memset(&mb, 0, sizeof mb); w_model(&mb, &g, 13);
    expect_fail("duplicate initializer", &mb, RLX_ERROR_DUPLICATE, "'X2'");
    free(mb.p);
    w_vi(&g, 11, "X", 1, 1, &d1, NULL);
    w_node(&g, "FancyOp", "fancy", "X", NULL, "A", NULL);
    w_vi(&g, 12, "A", 1, 1, &d1, NULL);
    memset(&mb, 0, sizeof mb); w_model(&mb, &g, 13);
    expect_fail("unsupported op", &mb, RLX_ERROR_UNSUPPORTED, "'fancy' (FancyOp, opset 13)");
    free(mb.p);
    /* an attribute the importer does not know (it would be ignored: a wrong answer), and a Conv whose
       kernel_shape disagrees with its weight */
    conv_attr_model(&mb, "strides2");
    expect_fail("unknown attribute", &mb, RLX_ERROR_UNSUPPORTED, "attribute 'strides2'");
    free(mb.p);
    conv_attr_model(&mb, "kernel_shape");
    expect_fail("kernel_shape against the weight", &mb, RLX_ERROR_INVALID_ARGUMENT, "kernel_shape[0] = 2");
    free(mb.p);
    free(b.p);
}

#if !defined(_WIN32)
static void test_external(void) {
    char dir[] = "/tmp/rlx_onnx_XXXXXX", path[256], err[512];
    pbw t = {0}, e = {0}, mb = {0};
    FILE* f;
    float data[6] = {9, 9, 1.5f, -2.5f, 3.5f, 4.5f};
    rlx_onnx_load_desc ld;
    rlx_onnx_model* m = NULL;
    if (!mkdtemp(dir)) { th_skip("external data: mkdtemp failed"); return; }
    snprintf(path, sizeof path, "%s/w.bin", dir);
    f = fopen(path, "wb");
    if (!f) { th_skip("external data: cannot write %s", path); return; }
    fwrite(data, 1, sizeof data, f);
    fclose(f);
    pb_int(&t, 1, 4); pb_int(&t, 2, 1); pb_str(&t, 8, "W"); pb_int(&t, 14, 1);
    pb_str(&e, 1, "location"); pb_str(&e, 2, "w.bin"); pb_msg(&t, 13, &e);
    pb_str(&e, 1, "offset"); pb_str(&e, 2, "8"); pb_msg(&t, 13, &e);
    pb_str(&e, 1, "length"); pb_str(&e, 2, "16"); pb_msg(&t, 13, &e);
    init_model(&mb, &t);
    memset(&ld, 0, sizeof ld);
    ld.error = err; ld.error_cap = sizeof err;
    TH_CHECK(rlx_onnx_load_memory(mb.p, mb.n, &ld, &m) == RLX_ERROR_INVALID_ARGUMENT && strstr(err, "needs a folder"), "no base_dir: %s", err);
    ld.base_dir = dir;
    TH_CHECK(rlx_onnx_load_memory(mb.p, mb.n, &ld, &m) == RLX_OK, "external: %s", err);
    if (m) {
        rlx_graph* g = NULL;
        rlx_store* s = NULL;
        rlx_program* p = NULL;
        rlx_compile_desc cd;
        float y[4] = {0};
        TH_CHECK(rlx_onnx_graph(m, NULL, &g) == RLX_OK && rlx_onnx_store(m, NULL, &s) == RLX_OK, "import: %s", rlx_onnx_error(m));
        memset(&cd, 0, sizeof cd);
        cd.store = s;
        if (g && s && rlx_compile(g, &cd, &p) == RLX_OK && rlx_run(p) == RLX_OK && rlx_get_output_f32(p, "Y", y, 4) == RLX_OK)
            TH_CHECK(y[0] == 1.5f && y[1] == -2.5f && y[2] == 3.5f && y[3] == 4.5f, "external values %g %g %g %g", y[0], y[1], y[2], y[3]);
        else TH_CHECK(0, "external run: %s", g ? rlx_graph_error(g) : "");
        rlx_program_destroy(p);
        rlx_store_destroy(s);
        rlx_graph_destroy(g);
        rlx_onnx_destroy(m);
    }
    free(mb.p);
    /* offset + length past the end of the file */
    free(t.p);
    memset(&t, 0, sizeof t); memset(&mb, 0, sizeof mb);
    pb_int(&t, 1, 4); pb_int(&t, 2, 1); pb_str(&t, 8, "W"); pb_int(&t, 14, 1);
    pb_str(&e, 1, "location"); pb_str(&e, 2, "w.bin"); pb_msg(&t, 13, &e);
    pb_str(&e, 1, "offset"); pb_str(&e, 2, "16"); pb_msg(&t, 13, &e);
    pb_str(&e, 1, "length"); pb_str(&e, 2, "16"); pb_msg(&t, 13, &e);
    init_model(&mb, &t);
    m = NULL;
    TH_CHECK(rlx_onnx_load_memory(mb.p, mb.n, &ld, &m) == RLX_ERROR_SIZE && strstr(err, "outside"), "external past the end: %s", err);
    rlx_onnx_destroy(m);
    free(mb.p);
    free(t.p);
    /* a missing file */
    {
        rlx_onnx_load_desc l2;
        memset(&l2, 0, sizeof l2);
        l2.error = err; l2.error_cap = sizeof err;
        snprintf(path, sizeof path, "%s/missing.onnx", dir);
        TH_CHECK(rlx_onnx_load_file(path, &l2, &m) == RLX_ERROR_IO && m == NULL && strstr(err, "missing.onnx"), "missing file: %s", err);
    }
    snprintf(path, sizeof path, "%s/w.bin", dir);
    remove(path);
    rmdir(dir);
}
#endif

/* every input that once broke the fuzzer's contract, and the seeds, through the fuzzer's own checks (a
   violation aborts the test) */
static void test_fuzz_regress(void) {
    const char* dirs[2] = {"tests/fuzz/onnx_regress", "tests/fuzz/onnx_corpus"};
    int k, n = 0;
    for (k = 0; k < 2; k++) {
        DIR* d = opendir(dirs[k]);
        struct dirent* e;
        if (!d) { th_skip("%s not found (run from the repository root)", dirs[k]); continue; }
        while ((e = readdir(d))) {
            char path[512];
            FILE* f;
            long len;
            unsigned char* data;
            if (e->d_name[0] == '.') continue;
            snprintf(path, sizeof path, "%s/%s", dirs[k], e->d_name);
            f = fopen(path, "rb");
            if (!f) continue;
            fseek(f, 0, SEEK_END); len = ftell(f); fseek(f, 0, SEEK_SET);
            data = (unsigned char*)malloc(len > 0 ? (size_t)len : 1);
            if (len > 0 && fread(data, 1, (size_t)len, f) != (size_t)len) len = 0;
            fclose(f);
            LLVMFuzzerTestOneInput(data, (size_t)(len > 0 ? len : 0));
            free(data);
            n++;
        }
        closedir(d);
    }
    TH_CHECK(n >= 5, "replayed %d fuzz inputs", n);
}

int main(void) {
    char err[64];
    rlx_onnx_model* m = NULL;
    TH_CHECK(rlx_onnx_load_memory(NULL, 5, NULL, &m) == RLX_ERROR_INVALID_ARGUMENT, "NULL data");
    TH_CHECK(rlx_onnx_load_memory("x", 1, NULL, NULL) == RLX_ERROR_INVALID_ARGUMENT, "NULL out");
    TH_CHECK(rlx_onnx_graph(NULL, NULL, NULL) == RLX_ERROR_INVALID_ARGUMENT, "NULL model");
    (void)err;
    test_api();
    test_folding();
    test_read_tensor();
    test_hostile();
    test_fuzz_regress();
#if !defined(_WIN32)
    test_external();
#else
    th_skip("external data: the test makes its folder with mkdtemp (POSIX)");
#endif
    return th_summary("onnx");
}
