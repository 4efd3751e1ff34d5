/* API contract tests.

   Bad input to every public function must return the documented rlx_result, leave a readable message on the
   object involved, and neither crash nor leak (`make asan` runs this under ASan/LSan/UBSan). Also positive
   checks: typed setters and getters convert with the rules of rlx_cast, clones with and without shared
   weights, zero-copy outputs, repeated runs, the graph destroyed right after compile, dumps and their
   snprintf-style size contract, the device list, and custom allocators (balanced, fault injection). */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../rlx.h"
#include "harness.h"

/* 2^40 on 64-bit targets, 2^20 on 32-bit: a valid dim whose square exceeds RLX_MAX_ELEMENTS */
#define TA_BIG (sizeof(size_t) >= 8 ? ((int64_t)1 << 40) : ((int64_t)1 << 20))

#include <stdlib.h>

/* ------------------------------------------------------------------------------------------------------------
   Small helpers
   ------------------------------------------------------------------------------------------------------------ */

static const char* rs(rlx_result r) { return rlx_result_string(r); }
static int nonempty(const char* s) { return s != NULL && s[0] != '\0'; }
static int contains(const char* s, const char* sub) { return s != NULL && strstr(s, sub) != NULL; }

static rlx_tensor none(void) {
    rlx_tensor t;
    t.id = 0;
    return t;
}
static rlx_tensor handle(uint32_t id) {
    rlx_tensor t;
    t.id = id;
    return t;
}

static rlx_compile_desc cdesc(uint32_t flags) {
    rlx_compile_desc d;
    memset(&d, 0, sizeof d);
    d.flags = flags;
    return d;
}

static uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* IEEE half <-> float, round to nearest even (the reference for the f16 conversions). */
static uint16_t f32_to_f16(float f) {
    uint32_t x = f32_bits(f), sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
    int e = (int)((x >> 23) & 0xffu);
    if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0u));
    e = e - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        uint32_t m = mant | 0x800000u, shift, r, rem, half;
        if (e < -10) return (uint16_t)sign;
        shift = (uint32_t)(14 - e);
        r = m >> shift;
        rem = m & ((1u << shift) - 1u);
        half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (r & 1u))) r++;
        return (uint16_t)(sign | r);
    } else {
        uint32_t r = ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) r++;
        return (uint16_t)(sign | r);
    }
}
static float f16_to_f32(uint16_t h) {
    int e = (h >> 10) & 0x1f;
    double m = (double)(h & 0x3ff), v;
    if (e == 0) v = ldexp(m, -24);
    else if (e == 31) v = m != 0 ? (double)NAN : (double)INFINITY;
    else v = ldexp(m + 1024.0, e - 25);
    return (float)((h & 0x8000u) ? -v : v);
}
static uint16_t f32_to_bf16(float f) {
    uint32_t x = f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
static float bf16_to_f32(uint16_t b) { return bits_f32((uint32_t)b << 16); }

/* float -> integer with the rules of rlx_cast: truncate toward zero, saturate, NaN -> 0 */
static int64_t sat_i64(double v, double lo, double hi) {
    if (v != v) return 0;
    if (v <= lo) return (int64_t)lo;
    if (v >= hi) return (int64_t)hi;
    return (int64_t)v;
}

static int same_f32(float a, float b) {
    if (a != a) return b != b;
    return f32_bits(a) == f32_bits(b);
}

/* ------------------------------------------------------------------------------------------------------------
   Counting allocator (also injects failures)
   ------------------------------------------------------------------------------------------------------------ */

typedef struct counting_alloc {
    long allocs, frees;
    long fail_from;   /* allocations with index >= fail_from fail (-1: never) */
    size_t max_size;  /* larger requests fail (0: no limit) */
    long failures;
} counting_alloc;

static void* ca_alloc(size_t size, void* user) {
    counting_alloc* c = (counting_alloc*)user;
    void* p;
    long n = TH_ATOMIC_LOAD(&c->allocs);
    if ((c->fail_from >= 0 && n >= c->fail_from) || (c->max_size != 0 && size > c->max_size)) {
        TH_ATOMIC_ADD(&c->failures, 1);
        return NULL;
    }
    p = malloc(size ? size : 1);
    if (p) TH_ATOMIC_ADD(&c->allocs, 1);
    return p;
}

static void ca_free(void* p, void* user) {
    counting_alloc* c = (counting_alloc*)user;
    if (!p) return;
    TH_ATOMIC_ADD(&c->frees, 1);
    free(p);
}

static void ca_init(counting_alloc* c) {
    memset(c, 0, sizeof *c);
    c->fail_from = -1;
}

static rlx_allocator ca_allocator(counting_alloc* c) {
    rlx_allocator a;
    a.alloc = ca_alloc;
    a.free = ca_free;
    a.user_data = c;
    return a;
}

static rlx_graph* graph_with(counting_alloc* c) {
    rlx_graph_desc d;
    memset(&d, 0, sizeof d);
    d.allocator = ca_allocator(c);
    return rlx_graph_create(&d);
}

/* ------------------------------------------------------------------------------------------------------------
   A fresh graph per failing builder call (errors are sticky)
   ------------------------------------------------------------------------------------------------------------ */

static int verbose; /* -v */
static counting_alloc G_alloc;
static rlx_graph* G;
/* f32 [3,4], f32 [4], f32 [5], f32 [4,5], f32 [2,3,4,5], f32 scalar, i32 [3,4], bool [3,4], u8 [3,4],
   u32 [3,4], i64 [2] */
static rlx_tensor X34, X4, X5, X45, X2345, XS, I34, B34, U34, W34, L2;

static void fresh(void) {
    int64_t s34[2] = {3, 4}, s4[1] = {4}, s5[1] = {5}, s45[2] = {4, 5}, s2345[4] = {2, 3, 4, 5}, s2[1] = {2};
    rlx_graph_destroy(G);
    G = graph_with(&G_alloc);
    X34 = rlx_input(G, "x34", RLX_F32, 2, s34);
    X4 = rlx_input(G, "x4", RLX_F32, 1, s4);
    X5 = rlx_input(G, "x5", RLX_F32, 1, s5);
    X45 = rlx_param(G, "x45", RLX_F32, 2, s45);
    X2345 = rlx_input(G, "x2345", RLX_F32, 4, s2345);
    XS = rlx_scalar(G, RLX_F32, 2.0);
    I34 = rlx_input(G, "i34", RLX_I32, 2, s34);
    B34 = rlx_input(G, "b34", RLX_BOOL, 2, s34);
    U34 = rlx_input(G, "u34", RLX_U8, 2, s34);
    W34 = rlx_input(G, "w34", RLX_U32, 2, s34);
    L2 = rlx_input(G, "l2", RLX_I64, 1, s2);
    if (rlx_graph_status(G) != RLX_OK) printf("fixture graph failed: %s\n", rlx_graph_error(G));
}

/* After a failing call: the handle is 0 (or the result is `want`), the first error is `want`, there is a message,
   and the graph no longer compiles. want == RLX_OK means "any error" (for cases the header leaves open). */
static void expect_fail_(rlx_result got, int have_result, rlx_tensor t, rlx_result want, const char* expr, int line) {
    rlx_result st = rlx_graph_status(G);
    rlx_program* p = (rlx_program*)&G_alloc;
    rlx_compile_desc cd = cdesc(0);
    rlx_result r;
    if (st == RLX_OK && (have_result ? got == RLX_OK : t.id != 0)) { /* accepted: one failure, not five */
        TH_CHECK(0, "line %d: %s was accepted, want %s", line, expr, want == RLX_OK ? "an error" : rs(want));
        return;
    }
    if (have_result)
        TH_CHECK(want == RLX_OK ? got != RLX_OK : got == want, "line %d: %s returned %s, want %s", line, expr,
                 rs(got), want == RLX_OK ? "an error" : rs(want));
    else
        TH_CHECK(t.id == 0, "line %d: %s returned a valid handle (%u)", line, expr, (unsigned)t.id);
    TH_CHECK(want == RLX_OK ? st != RLX_OK : st == want, "line %d: %s: rlx_graph_status %s, want %s", line, expr,
             rs(st), want == RLX_OK ? "an error" : rs(want));
    TH_CHECK(nonempty(rlx_graph_error(G)), "line %d: %s: no message", line, expr);
    rlx_output(G, "after_error", X34);
    r = rlx_compile(G, &cd, &p);
    TH_CHECK(r == RLX_ERROR_BAD_GRAPH, "line %d: %s: compile after the error gave %s, want %s", line, expr, rs(r),
             rs(RLX_ERROR_BAD_GRAPH));
    TH_CHECK(p == NULL, "line %d: %s: failed compile left *out non-NULL", line, expr);
    if (p != NULL && p != (rlx_program*)&G_alloc) rlx_program_destroy(p);
}

#define BFAIL(expr, want)                                             \
    do {                                                              \
        rlx_tensor t_;                                                \
        fresh();                                                      \
        t_ = (expr);                                                  \
        expect_fail_(RLX_OK, 0, t_, (want), #expr, __LINE__);         \
    } while (0)
#define RFAIL(expr, want)                                             \
    do {                                                              \
        rlx_result r_;                                                \
        fresh();                                                      \
        r_ = (expr);                                                  \
        expect_fail_(r_, 1, none(), (want), #expr, __LINE__);         \
    } while (0)
/* a builder call that must succeed on the fixture */
#define BOK(expr)                                                                                          \
    do {                                                                                                   \
        rlx_tensor t_;                                                                                     \
        fresh();                                                                                           \
        t_ = (expr);                                                                                       \
        TH_CHECK(t_.id != 0 && rlx_graph_status(G) == RLX_OK, "line %d: %s failed: %s", __LINE__, #expr, \
                 rlx_graph_error(G));                                                                      \
    } while (0)

/* a program call that must fail with `want` and leave a message */
#define PFAIL(p, expr, want)                                                                                    \
    do {                                                                                                        \
        rlx_result r_ = (expr);                                                                                 \
        TH_CHECK(r_ == (want), "line %d: %s returned %s, want %s", __LINE__, #expr, rs(r_), rs(want));          \
        if ((p) != NULL)                                                                                        \
            TH_CHECK(nonempty(rlx_program_error(p)), "line %d: %s: no message", __LINE__, #expr);               \
    } while (0)
#define POK(p, expr)                                                                                            \
    do {                                                                                                        \
        rlx_result r_ = (expr);                                                                                 \
        TH_CHECK(r_ == RLX_OK, "line %d: %s returned %s: %s", __LINE__, #expr, rs(r_), rlx_program_error(p));  \
    } while (0)

static rlx_program* compile_ok(rlx_graph* g, uint32_t flags, int line) {
    rlx_compile_desc cd = cdesc(flags);
    rlx_program* p = NULL;
    rlx_result r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_OK && p != NULL, "line %d: compile failed: %s: %s", line, rs(r), rlx_graph_error(g));
    return r == RLX_OK ? p : NULL;
}

/* ------------------------------------------------------------------------------------------------------------
   Strings, dtypes, versions
   ------------------------------------------------------------------------------------------------------------ */

static void test_strings(void) {
    static const rlx_result codes[] = {
        RLX_OK, RLX_ERROR_INVALID_ARGUMENT, RLX_ERROR_OUT_OF_MEMORY, RLX_ERROR_INTERNAL, RLX_ERROR_SHAPE,
        RLX_ERROR_DTYPE, RLX_ERROR_AXIS, RLX_ERROR_NOT_FOUND, RLX_ERROR_SIZE, RLX_ERROR_DUPLICATE,
        RLX_ERROR_BAD_GRAPH, RLX_ERROR_INVALID_TENSOR, RLX_ERROR_NOT_SET, RLX_ERROR_DEVICE_UNAVAILABLE,
        RLX_ERROR_UNSUPPORTED};
    static const size_t sizes[RLX_DTYPE_COUNT] = {0, 4, 2, 2, 8, 1, 2, 4, 8, 1, 4, 1};
    size_t i, j;
    int k;
    for (i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        TH_CHECK(nonempty(rlx_result_string(codes[i])), "rlx_result_string(%d) is empty", (int)codes[i]);
        for (j = 0; j < i; j++)
            if (nonempty(rlx_result_string(codes[i])) && nonempty(rlx_result_string(codes[j])))
                TH_CHECK(strcmp(rlx_result_string(codes[i]), rlx_result_string(codes[j])) != 0,
                         "rlx_result_string(%d) == rlx_result_string(%d)", (int)codes[i], (int)codes[j]);
    }
    TH_CHECK(rlx_result_string((rlx_result)-12345) != NULL, "rlx_result_string(unknown) is NULL");
    TH_CHECK(rlx_result_string((rlx_result)77) != NULL, "rlx_result_string(77) is NULL");

    for (k = 1; k < RLX_DTYPE_COUNT; k++) {
        TH_CHECK(nonempty(rlx_dtype_name((rlx_dtype)k)), "rlx_dtype_name(%d) is empty", k);
        TH_CHECK(rlx_dtype_size((rlx_dtype)k) == sizes[k], "rlx_dtype_size(%s) = %d, want %d",
                 rlx_dtype_name((rlx_dtype)k), (int)rlx_dtype_size((rlx_dtype)k), (int)sizes[k]);
    }
    TH_CHECK(rlx_dtype_size(RLX_DTYPE_INVALID) == 0, "rlx_dtype_size(INVALID) != 0");
    TH_CHECK(rlx_dtype_size(RLX_DTYPE_COUNT) == 0, "rlx_dtype_size(COUNT) != 0");
    TH_CHECK(rlx_dtype_size((rlx_dtype)99) == 0, "rlx_dtype_size(99) != 0");
    TH_CHECK(rlx_dtype_name((rlx_dtype)99) != NULL, "rlx_dtype_name(99) is NULL");
    TH_CHECK(rlx_dtype_name(RLX_DTYPE_INVALID) != NULL, "rlx_dtype_name(INVALID) is NULL");

    for (k = 0; k < RLX_OP_COUNT; k++) TH_CHECK(nonempty(rlx_op_name((rlx_op)k)), "rlx_op_name(%d) is empty", k);
    TH_CHECK(strcmp(rlx_op_name(RLX_OP_MATMUL), "matmul") == 0, "rlx_op_name(MATMUL) = %s", rlx_op_name(RLX_OP_MATMUL));
    TH_CHECK(strcmp(rlx_op_name(RLX_OP_ADD), "add") == 0, "rlx_op_name(ADD) = %s", rlx_op_name(RLX_OP_ADD));
    TH_CHECK(strcmp(rlx_op_name(RLX_OP_GATHER), "gather") == 0, "rlx_op_name(GATHER) = %s", rlx_op_name(RLX_OP_GATHER));
    TH_CHECK(rlx_op_name(RLX_OP_COUNT) != NULL, "rlx_op_name(COUNT) is NULL");
    TH_CHECK(rlx_op_name((rlx_op)100000) != NULL, "rlx_op_name(100000) is NULL");

    for (k = 0; k < RLX_DEVICE_COUNT; k++)
        TH_CHECK(nonempty(rlx_device_name((rlx_device)k)), "rlx_device_name(%d) is empty", k);
    TH_CHECK(rlx_device_name((rlx_device)99) != NULL, "rlx_device_name(99) is NULL");

    TH_CHECK(rlx_version() != NULL && strcmp(rlx_version(), RLX_VERSION_STRING) == 0, "rlx_version() = %s",
             rlx_version() ? rlx_version() : "(null)");
}

/* ------------------------------------------------------------------------------------------------------------
   NULL graph / NULL pointers
   ------------------------------------------------------------------------------------------------------------ */

static void test_null_graph(void) {
    int64_t s[2] = {2, 2};
    int axes[1] = {0}, perm[2] = {1, 0};
    float data[4] = {1, 2, 3, 4};
    rlx_tensor t = handle(1), ts[2];
    char buf[16];
    int rank = 77;
    ts[0] = t;
    ts[1] = t;

    rlx_graph_destroy(NULL);
    rlx_program_destroy(NULL);
    TH_CHECK(rlx_graph_status(NULL) == RLX_ERROR_INVALID_ARGUMENT, "rlx_graph_status(NULL) = %s",
             rs(rlx_graph_status(NULL)));
    TH_CHECK(rlx_graph_error(NULL) != NULL, "rlx_graph_error(NULL) is NULL");
    TH_CHECK(rlx_graph_node_count(NULL) <= 0, "rlx_graph_node_count(NULL) = %d", rlx_graph_node_count(NULL));
    TH_CHECK(rlx_tensor_info(NULL, t, &rank, NULL) == RLX_DTYPE_INVALID, "rlx_tensor_info(NULL) not INVALID");

    TH_CHECK(rlx_input(NULL, "x", RLX_F32, 2, s).id == 0, "rlx_input(NULL graph)");
    TH_CHECK(rlx_param(NULL, "w", RLX_F32, 2, s).id == 0, "rlx_param(NULL graph)");
    TH_CHECK(rlx_constant(NULL, RLX_F32, 2, s, data).id == 0, "rlx_constant(NULL graph)");
    TH_CHECK(rlx_scalar(NULL, RLX_F32, 1.0).id == 0, "rlx_scalar(NULL graph)");
    TH_CHECK(rlx_output(NULL, "y", t) == RLX_ERROR_INVALID_ARGUMENT, "rlx_output(NULL graph) = %s",
             rs(rlx_output(NULL, "y", t)));
    TH_CHECK(rlx_unary(NULL, RLX_OP_EXP, t).id == 0, "rlx_unary(NULL graph)");
    TH_CHECK(rlx_neg(NULL, t).id == 0 && rlx_abs(NULL, t).id == 0 && rlx_exp(NULL, t).id == 0 &&
                 rlx_log(NULL, t).id == 0 && rlx_sqrt(NULL, t).id == 0 && rlx_rsqrt(NULL, t).id == 0 &&
                 rlx_sin(NULL, t).id == 0 && rlx_cos(NULL, t).id == 0 && rlx_tan(NULL, t).id == 0 &&
                 rlx_atan(NULL, t).id == 0 && rlx_tanh(NULL, t).id == 0 && rlx_sigmoid(NULL, t).id == 0 &&
                 rlx_relu(NULL, t).id == 0 && rlx_gelu(NULL, t).id == 0 && rlx_gelu_tanh(NULL, t).id == 0 &&
                 rlx_silu(NULL, t).id == 0 && rlx_erf(NULL, t).id == 0 && rlx_round(NULL, t).id == 0 &&
                 rlx_floor(NULL, t).id == 0 && rlx_ceil(NULL, t).id == 0,
             "a unary builder accepted a NULL graph");
    TH_CHECK(rlx_binary(NULL, RLX_OP_ADD, t, t).id == 0 && rlx_add(NULL, t, t).id == 0 &&
                 rlx_sub(NULL, t, t).id == 0 && rlx_mul(NULL, t, t).id == 0 && rlx_div(NULL, t, t).id == 0 &&
                 rlx_pow(NULL, t, t).id == 0 && rlx_max(NULL, t, t).id == 0 && rlx_min(NULL, t, t).id == 0 &&
                 rlx_eq(NULL, t, t).id == 0 && rlx_ne(NULL, t, t).id == 0 && rlx_lt(NULL, t, t).id == 0 &&
                 rlx_le(NULL, t, t).id == 0 && rlx_gt(NULL, t, t).id == 0 && rlx_ge(NULL, t, t).id == 0 &&
                 rlx_where(NULL, t, t, t).id == 0 && rlx_cast(NULL, t, RLX_F16).id == 0 &&
                 rlx_matmul(NULL, t, t).id == 0,
             "a binary builder accepted a NULL graph");
    TH_CHECK(rlx_reduce(NULL, RLX_OP_SUM, t, 1, axes, 0).id == 0 && rlx_reduce_sum(NULL, t, 1, axes, 0).id == 0 &&
                 rlx_reduce_mean(NULL, t, 1, axes, 0).id == 0 && rlx_reduce_max(NULL, t, 1, axes, 0).id == 0 &&
                 rlx_reduce_min(NULL, t, 1, axes, 0).id == 0 && rlx_reduce_prod(NULL, t, 1, axes, 0).id == 0 &&
                 rlx_argmax(NULL, t, 0, 0).id == 0 && rlx_argmin(NULL, t, 0, 0).id == 0 &&
                 rlx_softmax(NULL, t, 0).id == 0 && rlx_log_softmax(NULL, t, 0).id == 0 &&
                 rlx_layernorm(NULL, t, none(), none(), 0, 1e-5f).id == 0 &&
                 rlx_rmsnorm(NULL, t, none(), none(), 1e-5f).id == 0,
             "a reduction builder accepted a NULL graph");
    TH_CHECK(rlx_reshape(NULL, t, 2, s).id == 0 && rlx_transpose(NULL, t, perm).id == 0 &&
                 rlx_slice(NULL, t, 0, 0, 1, 1).id == 0 && rlx_narrow(NULL, t, 0, 0, 1).id == 0 &&
                 rlx_concat(NULL, 2, ts, 0).id == 0 && rlx_expand(NULL, t, 2, s).id == 0 &&
                 rlx_gather(NULL, t, t, 0).id == 0,
             "a layout builder accepted a NULL graph");

    memset(buf, 'x', sizeof buf);
    (void)rlx_graph_dump(NULL, buf, sizeof buf);
    TH_CHECK(memchr(buf, 0, sizeof buf) != NULL, "rlx_graph_dump(NULL, buf, cap) left buf unterminated");
    memset(buf, 'x', sizeof buf);
    (void)rlx_graph_dump_dot(NULL, buf, sizeof buf);
    TH_CHECK(memchr(buf, 0, sizeof buf) != NULL, "rlx_graph_dump_dot(NULL, buf, cap) left buf unterminated");
    memset(buf, 'x', sizeof buf);
    (void)rlx_program_report(NULL, buf, sizeof buf);
    TH_CHECK(memchr(buf, 0, sizeof buf) != NULL, "rlx_program_report(NULL, buf, cap) left buf unterminated");
}

/* ------------------------------------------------------------------------------------------------------------
   Sources: names, dtypes, ranks, dims, data pointers, duplicates
   ------------------------------------------------------------------------------------------------------------ */

static void test_sources(void) {
    int64_t s34[2] = {3, 4}, s9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, s8[8] = {1, 2, 1, 2, 1, 2, 1, 2};
    int64_t neg[2] = {3, -4}, zero[2] = {3, 0}, big[2] = {(int64_t)1 << 40, (int64_t)1 << 40};
    int64_t big3[3] = {(int64_t)1 << 31, (int64_t)1 << 31, 4};
    float data[12] = {0};

    /* NULL and empty names */
    BFAIL(rlx_input(G, NULL, RLX_F32, 2, s34), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_param(G, NULL, RLX_F32, 2, s34), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_input(G, "", RLX_F32, 2, s34), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_param(G, "", RLX_F32, 2, s34), RLX_ERROR_INVALID_ARGUMENT);
    RFAIL(rlx_output(G, NULL, X34), RLX_ERROR_INVALID_ARGUMENT);
    RFAIL(rlx_output(G, "", X34), RLX_ERROR_INVALID_ARGUMENT);
    /* NULL shape with rank > 0; NULL data */
    BFAIL(rlx_input(G, "n", RLX_F32, 2, NULL), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_param(G, "n", RLX_F32, 2, NULL), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_constant(G, RLX_F32, 2, NULL, data), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_constant(G, RLX_F32, 2, s34, NULL), RLX_ERROR_INVALID_ARGUMENT);
    /* rank 0 needs no shape array */
    BOK(rlx_input(G, "scalar_in", RLX_F32, 0, NULL));
    BOK(rlx_param(G, "scalar_p", RLX_I64, 0, NULL));
    BOK(rlx_constant(G, RLX_F32, 0, NULL, data));
    BOK(rlx_input(G, "rank8", RLX_F32, 8, s8));
    /* invalid dtypes */
    BFAIL(rlx_input(G, "d", (rlx_dtype)99, 2, s34), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_input(G, "d", RLX_DTYPE_INVALID, 2, s34), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_param(G, "d", RLX_DTYPE_COUNT, 2, s34), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_constant(G, (rlx_dtype)99, 2, s34, data), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_scalar(G, (rlx_dtype)99, 1.0), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_scalar(G, RLX_DTYPE_INVALID, 1.0), RLX_ERROR_INVALID_ARGUMENT);
    /* ranks */
    BFAIL(rlx_input(G, "r", RLX_F32, 9, s9), RLX_ERROR_SHAPE);
    BFAIL(rlx_param(G, "r", RLX_F32, 9, s9), RLX_ERROR_SHAPE);
    BFAIL(rlx_constant(G, RLX_F32, 9, s9, data), RLX_ERROR_SHAPE);
    BFAIL(rlx_input(G, "r", RLX_F32, -1, s34), RLX_ERROR_SHAPE);
    BFAIL(rlx_param(G, "r", RLX_F32, -5, s34), RLX_ERROR_SHAPE);
    BFAIL(rlx_input(G, "r", RLX_F32, 1000, s9), RLX_ERROR_SHAPE);
    /* dims */
    BFAIL(rlx_input(G, "s", RLX_F32, 2, neg), RLX_ERROR_SHAPE);
    BFAIL(rlx_param(G, "s", RLX_F32, 2, neg), RLX_ERROR_SHAPE);
    BFAIL(rlx_constant(G, RLX_F32, 2, neg, data), RLX_ERROR_SHAPE);
    BFAIL(rlx_input(G, "s", RLX_F32, 2, zero), RLX_ERROR_SHAPE);
    BFAIL(rlx_param(G, "s", RLX_F32, 2, zero), RLX_ERROR_SHAPE);
    BFAIL(rlx_input(G, "s", RLX_F32, 2, big), RLX_ERROR_SHAPE);
    BFAIL(rlx_param(G, "s", RLX_F32, 2, big), RLX_ERROR_SHAPE);
    BFAIL(rlx_input(G, "s", RLX_F32, 3, big3), RLX_ERROR_SHAPE);
    /* duplicates: inputs and params share one name space, outputs have their own */
    BFAIL(rlx_input(G, "x34", RLX_F32, 2, s34), RLX_ERROR_DUPLICATE);
    BFAIL(rlx_param(G, "x34", RLX_F32, 2, s34), RLX_ERROR_DUPLICATE);
    BFAIL(rlx_input(G, "x45", RLX_F32, 2, s34), RLX_ERROR_DUPLICATE);
    BFAIL(rlx_param(G, "x45", RLX_F32, 2, s34), RLX_ERROR_DUPLICATE);
    fresh();
    TH_CHECK(rlx_output(G, "x34", X34) == RLX_OK, "output named like an input: %s", rlx_graph_error(G));
    TH_CHECK(rlx_output(G, "y", X34) == RLX_OK, "first output y: %s", rlx_graph_error(G));
    TH_CHECK(rlx_output(G, "y2", X34) == RLX_OK, "a tensor under a second output name: %s", rlx_graph_error(G));
    {
        rlx_result r = rlx_output(G, "y", X4);
        TH_CHECK(r == RLX_ERROR_DUPLICATE, "duplicate output name: %s", rs(r));
        TH_CHECK(rlx_graph_status(G) == RLX_ERROR_DUPLICATE, "duplicate output name not sticky: %s",
                 rs(rlx_graph_status(G)));
        TH_CHECK(nonempty(rlx_graph_error(G)), "duplicate output name: no message");
    }
    /* names are copied */
    {
        char name[8];
        rlx_tensor a;
        fresh();
        strcpy(name, "tmpname");
        a = rlx_input(G, name, RLX_F32, 2, s34);
        memset(name, 'z', sizeof name - 1);
        TH_CHECK(a.id != 0, "input tmpname: %s", rlx_graph_error(G));
        a = rlx_input(G, "tmpname", RLX_F32, 2, s34);
        TH_CHECK(a.id == 0 && rlx_graph_status(G) == RLX_ERROR_DUPLICATE, "input name was not copied (%s)",
                 rs(rlx_graph_status(G)));
    }
}

/* ------------------------------------------------------------------------------------------------------------
   Op validation: dtypes, shapes, axes, enums, handles
   ------------------------------------------------------------------------------------------------------------ */

static void test_op_dtypes(void) {
    /* binary ops need one dtype */
    BFAIL(rlx_add(G, X34, I34), RLX_ERROR_DTYPE);
    BFAIL(rlx_sub(G, I34, X34), RLX_ERROR_DTYPE);
    BFAIL(rlx_mul(G, U34, I34), RLX_ERROR_DTYPE);
    BFAIL(rlx_max(G, X34, W34), RLX_ERROR_DTYPE);
    BFAIL(rlx_binary(G, RLX_OP_DIV, X34, I34), RLX_ERROR_DTYPE);
    BFAIL(rlx_lt(G, X34, I34), RLX_ERROR_DTYPE);
    BFAIL(rlx_eq(G, B34, I34), RLX_ERROR_DTYPE);
    /* bool arithmetic */
    BFAIL(rlx_add(G, B34, B34), RLX_ERROR_DTYPE);
    BFAIL(rlx_mul(G, B34, B34), RLX_ERROR_DTYPE);
    BFAIL(rlx_pow(G, B34, B34), RLX_ERROR_DTYPE);
    /* float math on integers / bool */
    BFAIL(rlx_exp(G, I34), RLX_ERROR_DTYPE);
    BFAIL(rlx_log(G, U34), RLX_ERROR_DTYPE);
    BFAIL(rlx_sqrt(G, B34), RLX_ERROR_DTYPE);
    BFAIL(rlx_sin(G, I34), RLX_ERROR_DTYPE);
    BFAIL(rlx_tanh(G, L2), RLX_ERROR_DTYPE);
    BFAIL(rlx_sigmoid(G, I34), RLX_ERROR_DTYPE);
    BFAIL(rlx_gelu(G, I34), RLX_ERROR_DTYPE);
    BFAIL(rlx_erf(G, W34), RLX_ERROR_DTYPE);
    BFAIL(rlx_floor(G, I34), RLX_ERROR_DTYPE);
    BFAIL(rlx_round(G, I34), RLX_ERROR_DTYPE);
    BFAIL(rlx_unary(G, RLX_OP_COS, I34), RLX_ERROR_DTYPE);
    /* neg/abs: signed only; relu: signed only */
    BFAIL(rlx_neg(G, U34), RLX_ERROR_DTYPE);
    BFAIL(rlx_neg(G, W34), RLX_ERROR_DTYPE);
    BFAIL(rlx_abs(G, B34), RLX_ERROR_DTYPE);
    BFAIL(rlx_relu(G, U34), RLX_ERROR_DTYPE);
    BFAIL(rlx_relu(G, B34), RLX_ERROR_DTYPE);
    BOK(rlx_neg(G, I34));
    BOK(rlx_abs(G, L2));
    BOK(rlx_relu(G, I34));
    /* where */
    BFAIL(rlx_where(G, X34, X34, X34), RLX_ERROR_DTYPE);
    BFAIL(rlx_where(G, I34, X34, X34), RLX_ERROR_DTYPE);
    BFAIL(rlx_where(G, B34, X34, I34), RLX_ERROR_DTYPE);
    BOK(rlx_where(G, B34, X34, XS));
    /* matmul */
    BFAIL(rlx_matmul(G, X34, rlx_cast(G, X45, RLX_I32)), RLX_ERROR_DTYPE);
    BFAIL(rlx_matmul(G, B34, rlx_cast(G, X45, RLX_BOOL)), RLX_ERROR_DTYPE);
    /* reductions and normalisation */
    BFAIL(rlx_reduce_mean(G, I34, 0, NULL, 0), RLX_ERROR_DTYPE);
    BFAIL(rlx_softmax(G, I34, 1), RLX_ERROR_DTYPE);
    BFAIL(rlx_log_softmax(G, B34, 1), RLX_ERROR_DTYPE);
    BFAIL(rlx_layernorm(G, I34, none(), none(), 1, 1e-5f), RLX_ERROR_DTYPE);
    BFAIL(rlx_rmsnorm(G, U34, none(), none(), 1e-5f), RLX_ERROR_DTYPE);
    BFAIL(rlx_layernorm(G, X34, rlx_cast(G, X4, RLX_F64), none(), 1, 1e-5f), RLX_ERROR_DTYPE);
    /* layout ops */
    {
        rlx_tensor xs[2];
        fresh();
        xs[0] = X34;
        xs[1] = I34;
        expect_fail_(RLX_OK, 0, rlx_concat(G, 2, xs, 0), RLX_ERROR_DTYPE, "rlx_concat(f32, i32)", __LINE__);
    }
    BFAIL(rlx_gather(G, X34, X4, 0), RLX_ERROR_DTYPE);           /* float indices */
    BFAIL(rlx_gather(G, X34, rlx_cast(G, X4, RLX_U8), 0), RLX_ERROR_DTYPE);
    BOK(rlx_gather(G, X34, L2, 0));
    BOK(rlx_gather(G, X34, I34, 1));
    /* enums */
    BFAIL(rlx_cast(G, X34, (rlx_dtype)99), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_cast(G, X34, RLX_DTYPE_INVALID), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_unary(G, RLX_OP_ADD, X34), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_unary(G, RLX_OP_SUM, X34), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_unary(G, RLX_OP_INPUT, X34), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_unary(G, RLX_OP_INVALID, X34), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_unary(G, RLX_OP_COUNT, X34), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_unary(G, (rlx_op)100000, X34), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_binary(G, RLX_OP_EXP, X34, X34), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_binary(G, RLX_OP_WHERE, X34, X34), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_binary(G, RLX_OP_MATMUL, X34, X45), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_binary(G, RLX_OP_COUNT, X34, X34), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_binary(G, (rlx_op)100000, X34, X34), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_reduce(G, RLX_OP_ADD, X34, 0, NULL, 0), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_reduce(G, RLX_OP_SOFTMAX, X34, 0, NULL, 0), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_reduce(G, RLX_OP_COUNT, X34, 0, NULL, 0), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_reduce(G, (rlx_op)100000, X34, 0, NULL, 0), RLX_ERROR_INVALID_ARGUMENT);
    /* the generic entry points accept their own ops */
    BOK(rlx_unary(G, RLX_OP_EXP, X34));
    BOK(rlx_binary(G, RLX_OP_POW, X34, XS));
    BOK(rlx_binary(G, RLX_OP_GE, X34, X4));
    BOK(rlx_reduce(G, RLX_OP_PROD, X34, 0, NULL, 1));
}

static void test_op_shapes(void) {
    int64_t s5x2[2] = {5, 2}, s12[1] = {12}, sm1[2] = {-1, 5}, smm[2] = {-1, -1}, s0[2] = {12, 0};
    int64_t sneg[2] = {-2, -6}, s9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, s4[1] = {4}, s3x5[2] = {3, 5};
    int64_t s654[3] = {6, 5, 4}, s2354[4] = {2, 3, 5, 4}, s345[3] = {3, 4, 5};
    int64_t sbig[4] = {(int64_t)1 << 32, (int64_t)1 << 32, 3, 4}, ssq[2] = {(int64_t)1 << 40, (int64_t)1 << 40};
    int64_t s61[1] = {RLX_MAX_ELEMENTS};   /* the largest tensor a builder accepts */
    /* a dim that is a valid tensor alone and overflows the element limit squared (int64 too on 64-bit) */
    int64_t s1big[2] = {TA_BIG, 1}, sbig1[2] = {1, TA_BIG};
    int64_t s34[2] = {3, 4}, s6x2[2] = {6, 2};

    /* broadcasting */
    BFAIL(rlx_add(G, X34, X5), RLX_ERROR_SHAPE);
    BFAIL(rlx_mul(G, X2345, X34), RLX_ERROR_SHAPE);
    BFAIL(rlx_where(G, B34, X34, X5), RLX_ERROR_SHAPE);
    BFAIL(rlx_where(G, rlx_cast(G, X5, RLX_BOOL), X34, X34), RLX_ERROR_SHAPE);
    BOK(rlx_add(G, X34, X4));
    BOK(rlx_add(G, X5, X2345));
    BOK(rlx_add(G, XS, X34));
    /* matmul */
    BFAIL(rlx_matmul(G, X34, X5), RLX_ERROR_SHAPE);
    BFAIL(rlx_matmul(G, X34, X34), RLX_ERROR_SHAPE);
    BFAIL(rlx_matmul(G, X45, X34), RLX_ERROR_SHAPE);
    BFAIL(rlx_matmul(G, X5, X45), RLX_ERROR_SHAPE);
    BFAIL(rlx_matmul(G, XS, X34), RLX_ERROR_SHAPE);
    BFAIL(rlx_matmul(G, X34, XS), RLX_ERROR_SHAPE);
    BFAIL(rlx_matmul(G, X2345, rlx_reshape(G, X2345, 3, s654)), RLX_ERROR_SHAPE); /* batch [2,3] vs [6] */
    BOK(rlx_matmul(G, X2345, rlx_reshape(G, X2345, 4, s2354)));
    BOK(rlx_matmul(G, rlx_expand(G, X45, 3, s345), rlx_reshape(G, X2345, 4, s2354))); /* batch [3] vs [2,3] */
    BOK(rlx_matmul(G, X34, X45));
    BOK(rlx_matmul(G, X4, X45));
    BOK(rlx_matmul(G, X34, X4));
    /* reshape */
    BFAIL(rlx_reshape(G, X34, 2, s5x2), RLX_ERROR_SHAPE);
    BFAIL(rlx_reshape(G, X34, 2, sm1), RLX_ERROR_SHAPE);
    BFAIL(rlx_reshape(G, X34, 2, smm), RLX_ERROR_SHAPE);
    BFAIL(rlx_reshape(G, X34, 2, s0), RLX_ERROR_SHAPE);
    BFAIL(rlx_reshape(G, X34, 2, sneg), RLX_ERROR_SHAPE);
    BFAIL(rlx_reshape(G, X34, 9, s9), RLX_ERROR_SHAPE);
    BFAIL(rlx_reshape(G, X34, -1, s12), RLX_ERROR_SHAPE);
    BFAIL(rlx_reshape(G, X34, 1, NULL), RLX_ERROR_INVALID_ARGUMENT);
    BOK(rlx_reshape(G, X34, 1, s12));
    BOK(rlx_reshape(G, X34, 2, s6x2));
    /* concat */
    {
        rlx_tensor xs[3], x5[5];
        int i;
        fresh();
        xs[0] = X34;
        xs[1] = X45;
        expect_fail_(RLX_OK, 0, rlx_concat(G, 2, xs, 1), RLX_ERROR_SHAPE, "concat [3,4]+[4,5] axis 1", __LINE__);
        fresh();
        xs[0] = X34;
        xs[1] = X4;
        expect_fail_(RLX_OK, 0, rlx_concat(G, 2, xs, 0), RLX_ERROR_SHAPE, "concat rank 2 + rank 1", __LINE__);
        fresh();
        xs[0] = X34;
        xs[1] = rlx_param(G, "c35", RLX_F32, 2, s3x5);
        xs[2] = X34;
        expect_fail_(RLX_OK, 0, rlx_concat(G, 3, xs, 0), RLX_ERROR_SHAPE, "concat [3,4]+[3,5] axis 0", __LINE__);
        fresh();
        xs[0] = X34;
        xs[1] = rlx_param(G, "c35", RLX_F32, 2, s3x5);
        xs[2] = X34;
        TH_CHECK(rlx_concat(G, 3, xs, 1).id != 0, "concat [3,4]+[3,5]+[3,4] axis 1: %s", rlx_graph_error(G));
        fresh();
        xs[0] = rlx_param(G, "big61", RLX_U8, 1, s61);
        xs[1] = xs[0];
        xs[2] = xs[0];
        TH_CHECK(xs[0].id != 0, "u8 param [RLX_MAX_ELEMENTS]: %s", rlx_graph_error(G));
        for (i = 0; i < 5; i++) x5[i] = xs[0];
        expect_fail_(RLX_OK, 0, rlx_concat(G, 5, x5, 0), RLX_ERROR_SHAPE, "concat 5 x [RLX_MAX_ELEMENTS]", __LINE__);
        fresh();
        xs[0] = X34;
        expect_fail_(RLX_OK, 0, rlx_concat(G, 0, xs, 0), RLX_ERROR_INVALID_ARGUMENT, "concat n=0", __LINE__);
        fresh();
        expect_fail_(RLX_OK, 0, rlx_concat(G, -1, xs, 0), RLX_ERROR_INVALID_ARGUMENT, "concat n=-1", __LINE__);
        fresh();
        expect_fail_(RLX_OK, 0, rlx_concat(G, 2, NULL, 0), RLX_ERROR_INVALID_ARGUMENT, "concat NULL", __LINE__);
    }
    /* expand */
    BFAIL(rlx_expand(G, X34, 1, s4), RLX_ERROR_SHAPE);
    BFAIL(rlx_expand(G, X4, 1, s12), RLX_ERROR_SHAPE);
    BFAIL(rlx_expand(G, X34, 2, s3x5), RLX_ERROR_SHAPE);
    BFAIL(rlx_expand(G, X34, 9, s9), RLX_ERROR_SHAPE);
    BFAIL(rlx_expand(G, X34, 2, NULL), RLX_ERROR_INVALID_ARGUMENT);
    BOK(rlx_expand(G, X4, 2, s34));
    /* element counts that overflow int64 */
    BFAIL(rlx_expand(G, XS, 2, ssq), RLX_ERROR_SHAPE);
    BFAIL(rlx_expand(G, X34, 4, sbig), RLX_ERROR_SHAPE);
    BFAIL(rlx_add(G, rlx_param(G, "bc1", RLX_U8, 2, s1big), rlx_param(G, "bc2", RLX_U8, 2, sbig1)), RLX_ERROR_SHAPE);
    BFAIL(rlx_matmul(G, rlx_param(G, "mm1", RLX_U8, 2, s1big), rlx_param(G, "mm2", RLX_U8, 2, sbig1)),
          RLX_ERROR_SHAPE);
    BFAIL(rlx_where(G, rlx_input(G, "wc", RLX_BOOL, 2, s1big), rlx_param(G, "wa", RLX_U8, 2, sbig1), XS),
          RLX_ERROR_DTYPE); /* u8 vs f32 */
    BFAIL(rlx_where(G, rlx_input(G, "wc", RLX_BOOL, 2, s1big), rlx_param(G, "wa", RLX_F32, 2, sbig1), XS),
          RLX_ERROR_SHAPE);
    /* slice */
    BFAIL(rlx_slice(G, X34, 1, 2, 3, 1), RLX_ERROR_SHAPE);   /* 2 + 2 > 3 */
    BFAIL(rlx_slice(G, X34, 0, 0, 2, 3), RLX_ERROR_SHAPE);   /* 0 + 1*3 > 2 */
    BFAIL(rlx_slice(G, X34, 0, 3, 1, 1), RLX_ERROR_SHAPE);   /* start past the end */
    BFAIL(rlx_slice(G, X34, 0, -4, 1, 1), RLX_ERROR_SHAPE);  /* start before the beginning */
    BFAIL(rlx_narrow(G, X34, 1, 1, 4), RLX_ERROR_SHAPE);
    BFAIL(rlx_slice(G, X34, 0, 0, 0, 1), RLX_ERROR_SHAPE);   /* empty */
    BFAIL(rlx_slice(G, X34, 0, 0, INT64_MAX, 1), RLX_ERROR_SHAPE);
    BFAIL(rlx_slice(G, X34, 0, 1, 2, INT64_MAX), RLX_ERROR_SHAPE);
    {   /* step < 1: documented as invalid, the code is not pinned down */
        fresh();
        expect_fail_(RLX_OK, 0, rlx_slice(G, X34, 0, 0, 1, 0), RLX_OK, "slice step 0", __LINE__);
        fresh();
        expect_fail_(RLX_OK, 0, rlx_slice(G, X34, 0, 2, 2, -1), RLX_OK, "slice step -1", __LINE__);
    }
    BOK(rlx_slice(G, X34, 1, -1, 1, 1));
    BOK(rlx_slice(G, X34, 1, 0, 2, 3));
    /* normalisation parameters */
    BFAIL(rlx_layernorm(G, X34, X5, none(), 1, 1e-5f), RLX_ERROR_SHAPE);
    BFAIL(rlx_layernorm(G, X34, X4, X5, 1, 1e-5f), RLX_ERROR_SHAPE);
    BFAIL(rlx_layernorm(G, X34, X4, none(), 0, 1e-5f), RLX_ERROR_SHAPE);
    BFAIL(rlx_rmsnorm(G, X34, X5, none(), 1e-5f), RLX_ERROR_SHAPE);
    BFAIL(rlx_rmsnorm(G, X34, X4, X34, 1e-5f), RLX_ERROR_SHAPE);
    BOK(rlx_layernorm(G, X34, X34, X34, 0, 1e-5f));
    BOK(rlx_rmsnorm(G, X34, X4, none(), 1e-5f));
    BOK(rlx_layernorm(G, X34, none(), X4, -1, 1e-5f));
}

static void test_op_axes(void) {
    int a2[1] = {2}, am3[1] = {-3}, a00[2] = {0, 0}, a0m2[2] = {0, -2}, a1[1] = {1}, a9[1] = {9};
    int p00[2] = {0, 0}, p02[2] = {0, 2}, pm1[2] = {-1, 0}, p10[2] = {1, 0}, p3[4] = {0, 1, 2, 2};

    BFAIL(rlx_reduce_sum(G, X34, 1, a2, 0), RLX_ERROR_AXIS);
    BFAIL(rlx_reduce_max(G, X34, 1, am3, 1), RLX_ERROR_AXIS);
    BFAIL(rlx_reduce_min(G, X34, 1, a9, 0), RLX_ERROR_AXIS);
    BFAIL(rlx_reduce_mean(G, XS, 1, a1, 0), RLX_ERROR_AXIS);
    BFAIL(rlx_reduce(G, RLX_OP_PROD, X34, 1, a2, 0), RLX_ERROR_AXIS);
    {   /* repeated axes (0 and -2 are the same axis of a rank-2 tensor): an error, code not pinned down */
        fresh();
        expect_fail_(RLX_OK, 0, rlx_reduce_sum(G, X34, 2, a00, 0), RLX_OK, "reduce axes {0,0}", __LINE__);
        fresh();
        expect_fail_(RLX_OK, 0, rlx_reduce_sum(G, X34, 2, a0m2, 0), RLX_OK, "reduce axes {0,-2}", __LINE__);
    }
    BFAIL(rlx_reduce_sum(G, X34, -1, a1, 0), RLX_ERROR_INVALID_ARGUMENT);
    BFAIL(rlx_reduce_sum(G, X34, 1, NULL, 0), RLX_ERROR_INVALID_ARGUMENT);
    BOK(rlx_reduce_sum(G, X34, 1, a1, 0));
    BFAIL(rlx_argmax(G, X34, 2, 0), RLX_ERROR_AXIS);
    BFAIL(rlx_argmin(G, X34, -3, 1), RLX_ERROR_AXIS);
    BFAIL(rlx_argmax(G, XS, 0, 0), RLX_ERROR_AXIS);
    BFAIL(rlx_softmax(G, X34, 2), RLX_ERROR_AXIS);
    BFAIL(rlx_log_softmax(G, X34, -3), RLX_ERROR_AXIS);
    BFAIL(rlx_layernorm(G, X34, none(), none(), 2, 1e-5f), RLX_ERROR_AXIS);
    BFAIL(rlx_layernorm(G, X34, none(), none(), -3, 1e-5f), RLX_ERROR_AXIS);
    BFAIL(rlx_transpose(G, X34, p00), RLX_ERROR_AXIS);
    BFAIL(rlx_transpose(G, X34, p02), RLX_ERROR_AXIS);
    BFAIL(rlx_transpose(G, X34, pm1), RLX_ERROR_AXIS);
    BFAIL(rlx_transpose(G, X2345, p3), RLX_ERROR_AXIS);
    BOK(rlx_transpose(G, X34, p10));
    BOK(rlx_transpose(G, X2345, NULL));
    BFAIL(rlx_slice(G, X34, 2, 0, 1, 1), RLX_ERROR_AXIS);
    BFAIL(rlx_slice(G, X34, -3, 0, 1, 1), RLX_ERROR_AXIS);
    BFAIL(rlx_narrow(G, XS, 0, 0, 1), RLX_ERROR_AXIS);
    BFAIL(rlx_gather(G, X34, L2, 2), RLX_ERROR_AXIS);
    BFAIL(rlx_gather(G, X34, L2, -3), RLX_ERROR_AXIS);
    {
        rlx_tensor xs[2];
        fresh();
        xs[0] = X34;
        xs[1] = X34;
        expect_fail_(RLX_OK, 0, rlx_concat(G, 2, xs, 2), RLX_ERROR_AXIS, "concat axis 2 of rank 2", __LINE__);
        fresh();
        xs[0] = X34;
        xs[1] = X34;
        expect_fail_(RLX_OK, 0, rlx_concat(G, 2, xs, -3), RLX_ERROR_AXIS, "concat axis -3 of rank 2", __LINE__);
        fresh();
        xs[0] = X34;
        xs[1] = X34;
        TH_CHECK(rlx_concat(G, 2, xs, -1).id != 0, "concat axis -1: %s", rlx_graph_error(G));
    }
}

static void test_handles(void) {
    rlx_graph* g2;
    int64_t s4[1] = {4};
    rlx_tensor xs[2];
    BFAIL(rlx_neg(G, none()), RLX_ERROR_INVALID_TENSOR);
    BFAIL(rlx_add(G, X34, none()), RLX_ERROR_INVALID_TENSOR);
    BFAIL(rlx_add(G, none(), X34), RLX_ERROR_INVALID_TENSOR);
    BFAIL(rlx_matmul(G, none(), X45), RLX_ERROR_INVALID_TENSOR);
    BFAIL(rlx_where(G, none(), X34, X34), RLX_ERROR_INVALID_TENSOR);
    BFAIL(rlx_cast(G, none(), RLX_F16), RLX_ERROR_INVALID_TENSOR);
    BFAIL(rlx_reduce_sum(G, none(), 0, NULL, 0), RLX_ERROR_INVALID_TENSOR);
    BFAIL(rlx_reshape(G, none(), 1, s4), RLX_ERROR_INVALID_TENSOR);
    BFAIL(rlx_transpose(G, none(), NULL), RLX_ERROR_INVALID_TENSOR);
    BFAIL(rlx_gather(G, X34, none(), 0), RLX_ERROR_INVALID_TENSOR);
    BFAIL(rlx_neg(G, handle(100000)), RLX_ERROR_INVALID_TENSOR);
    BFAIL(rlx_exp(G, handle(0xffffffffu)), RLX_ERROR_INVALID_TENSOR);
    BFAIL(rlx_add(G, X34, handle((uint32_t)rlx_graph_node_count(G) + 1)), RLX_ERROR_INVALID_TENSOR);
    BFAIL(rlx_layernorm(G, X34, handle(100000), none(), 1, 1e-5f), RLX_ERROR_INVALID_TENSOR);
    BFAIL(rlx_rmsnorm(G, X34, X4, handle(100000), 1e-5f), RLX_ERROR_INVALID_TENSOR);
    RFAIL(rlx_output(G, "y", none()), RLX_ERROR_INVALID_TENSOR);
    RFAIL(rlx_output(G, "y", handle(100000)), RLX_ERROR_INVALID_TENSOR);
    fresh();
    xs[0] = X34;
    xs[1] = none();
    expect_fail_(RLX_OK, 0, rlx_concat(G, 2, xs, 0), RLX_ERROR_INVALID_TENSOR, "concat with handle 0", __LINE__);

    /* a handle from a bigger graph is out of range in a small one */
    fresh();
    g2 = rlx_graph_create(NULL);
    {
        rlx_tensor a = rlx_input(g2, "a", RLX_F32, 1, s4);
        rlx_tensor from_g = X2345; /* id > 1 */
        rlx_tensor r = rlx_neg(g2, from_g);
        TH_CHECK(a.id != 0, "input in g2: %s", rlx_graph_error(g2));
        TH_CHECK(r.id == 0 && rlx_graph_status(g2) == RLX_ERROR_INVALID_TENSOR,
                 "handle from another graph: id %u, status %s", (unsigned)r.id, rs(rlx_graph_status(g2)));
        TH_CHECK(nonempty(rlx_graph_error(g2)), "handle from another graph: no message");
        TH_CHECK(rlx_tensor_info(g2, from_g, NULL, NULL) == RLX_DTYPE_INVALID, "tensor_info of a foreign handle");
    }
    rlx_graph_destroy(g2);

    /* tensor_info */
    fresh();
    {
        int rank = -1;
        int64_t shape[RLX_MAX_RANK] = {0};
        rlx_tensor m = rlx_matmul(G, X34, X45);
        TH_CHECK(rlx_tensor_info(G, m, &rank, shape) == RLX_F32 && rank == 2 && shape[0] == 3 && shape[1] == 5,
                 "tensor_info(matmul [3,4]x[4,5]) = rank %d [%d,%d]", rank, (int)shape[0], (int)shape[1]);
        TH_CHECK(rlx_tensor_info(G, m, NULL, NULL) == RLX_F32, "tensor_info with NULL rank/shape");
        TH_CHECK(rlx_tensor_info(G, rlx_gt(G, X34, X4), &rank, shape) == RLX_BOOL && rank == 2,
                 "comparison dtype is not bool");
        TH_CHECK(rlx_tensor_info(G, rlx_reduce_sum(G, I34, 0, NULL, 0), &rank, shape) == RLX_I64 && rank == 0,
                 "sum of i32 is not a rank-0 i64");
        TH_CHECK(rlx_tensor_info(G, rlx_argmax(G, X34, 1, 1), &rank, shape) == RLX_I64 && rank == 2 &&
                     shape[0] == 3 && shape[1] == 1,
                 "argmax keepdims shape");
        TH_CHECK(rlx_tensor_info(G, rlx_matmul(G, X4, X4), &rank, shape) == RLX_F32 && rank == 0,
                 "matmul [4]x[4] is not rank 0 (rank %d)", rank);
        TH_CHECK(rlx_tensor_info(G, none(), &rank, shape) == RLX_DTYPE_INVALID, "tensor_info(id 0)");
        TH_CHECK(rlx_tensor_info(G, handle(100000), &rank, shape) == RLX_DTYPE_INVALID, "tensor_info(id 100000)");
        TH_CHECK(rlx_graph_status(G) == RLX_OK, "tensor_info changed the graph status: %s", rlx_graph_error(G));
    }
}

/* ------------------------------------------------------------------------------------------------------------
   Sticky errors
   ------------------------------------------------------------------------------------------------------------ */

static void test_sticky(void) {
    int64_t s34[2] = {3, 4}, s5[1] = {5};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor x = rlx_input(g, "sticky_name", RLX_F32, 2, s34);
    rlx_tensor y = rlx_input(g, "other", RLX_F32, 1, s5);
    rlx_tensor bad, t;
    rlx_program* p = (rlx_program*)&p;
    rlx_compile_desc cd = cdesc(0);
    rlx_result r;
    char first[512];
    int nodes;

    TH_CHECK(x.id != 0 && y.id != 0, "sticky setup: %s", rlx_graph_error(g));
    TH_CHECK(rlx_graph_error(g) != NULL && rlx_graph_error(g)[0] == '\0', "fresh graph has a message: %s",
             rlx_graph_error(g));
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "fresh graph status %s", rs(rlx_graph_status(g)));
    bad = rlx_input(g, "sticky_name", RLX_F32, 2, s34); /* first error: duplicate */
    TH_CHECK(bad.id == 0 && rlx_graph_status(g) == RLX_ERROR_DUPLICATE, "duplicate: id %u status %s",
             (unsigned)bad.id, rs(rlx_graph_status(g)));
    snprintf(first, sizeof first, "%s", rlx_graph_error(g));
    TH_CHECK(nonempty(first), "no message for the first error");
    TH_CHECK(contains(first, "sticky_name"), "duplicate-name message does not name it: %s", first);
    nodes = rlx_graph_node_count(g);

    t = rlx_add(g, x, y); /* second error (shape): status stays DUPLICATE */
    TH_CHECK(t.id == 0, "builder after an error returned %u", (unsigned)t.id);
    TH_CHECK(rlx_graph_status(g) == RLX_ERROR_DUPLICATE, "status after a second error: %s", rs(rlx_graph_status(g)));
    TH_CHECK(nonempty(rlx_graph_error(g)), "no message after the second error");
    t = rlx_neg(g, bad); /* receives the invalid handle: no-op */
    TH_CHECK(t.id == 0 && rlx_graph_status(g) == RLX_ERROR_DUPLICATE, "builder on the invalid handle: id %u, %s",
             (unsigned)t.id, rs(rlx_graph_status(g)));
    t = rlx_relu(g, x); /* valid on its own: still id 0 once the graph carries an error */
    TH_CHECK(t.id == 0, "valid builder call after a sticky error returned %u", (unsigned)t.id);
    t = rlx_input(g, "late_input", RLX_F32, 2, s34);
    TH_CHECK(t.id == 0, "rlx_input after a sticky error returned %u", (unsigned)t.id);
    TH_CHECK(rlx_graph_status(g) == RLX_ERROR_DUPLICATE, "status changed: %s", rs(rlx_graph_status(g)));
    TH_CHECK(rlx_graph_node_count(g) == nodes, "nodes were added after the error (%d -> %d)", nodes,
             rlx_graph_node_count(g));
    r = rlx_output(g, "y", x);
    TH_CHECK(r != RLX_OK, "rlx_output after a sticky error returned RLX_OK");
    TH_CHECK(rlx_graph_status(g) == RLX_ERROR_DUPLICATE, "status changed by rlx_output: %s", rs(rlx_graph_status(g)));

    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_ERROR_BAD_GRAPH, "compile of a graph with a sticky error: %s", rs(r));
    TH_CHECK(p == NULL, "failed compile left *out set");
    TH_CHECK(contains(rlx_graph_error(g), first) || contains(rlx_graph_error(g), "sticky_name"),
             "compile message does not mention the first error: \"%s\" (first: \"%s\")", rlx_graph_error(g), first);
    /* the dumps still work on a graph with an error */
    TH_CHECK(rlx_graph_dump(g, NULL, 0) > 0, "dump of a graph with an error is empty");
    rlx_graph_destroy(g);

    /* an error in rlx_output is sticky too */
    g = rlx_graph_create(NULL);
    x = rlx_input(g, "x", RLX_F32, 2, s34);
    r = rlx_output(g, "y", handle(12345));
    TH_CHECK(r == RLX_ERROR_INVALID_TENSOR, "rlx_output(bad handle) = %s", rs(r));
    rlx_output(g, "z", rlx_neg(g, x));
    TH_CHECK(rlx_graph_status(g) == RLX_ERROR_INVALID_TENSOR, "rlx_output error not sticky: %s",
             rs(rlx_graph_status(g)));
    p = (rlx_program*)&p;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_ERROR_BAD_GRAPH && p == NULL, "compile after a bad rlx_output: %s", rs(r));
    rlx_graph_destroy(g);
}

/* ------------------------------------------------------------------------------------------------------------
   Compile errors and devices
   ------------------------------------------------------------------------------------------------------------ */

static int device_available(rlx_device d) {
    rlx_device_info info[16];
    int n = rlx_devices(info, 16), i;
    for (i = 0; i < n && i < 16; i++)
        if (info[i].device == d && info[i].available) return 1;
    return 0;
}

static void test_compile_errors(void) {
    int64_t s4[1] = {4};
    rlx_compile_desc cd = cdesc(0);
    rlx_program* p;
    rlx_result r;
    rlx_graph* g;
    rlx_tensor x;
    int d;

    p = (rlx_program*)&p;
    r = rlx_compile(NULL, &cd, &p);
    TH_CHECK(r == RLX_ERROR_INVALID_ARGUMENT, "compile(NULL graph) = %s", rs(r));
    TH_CHECK(p == NULL, "compile(NULL graph) left *out set");

    g = rlx_graph_create(NULL);
    r = rlx_compile(g, &cd, NULL);
    TH_CHECK(r == RLX_ERROR_INVALID_ARGUMENT, "compile(out = NULL) = %s", rs(r));
    TH_CHECK(nonempty(rlx_graph_error(g)), "compile(out = NULL): no message");

    p = (rlx_program*)&p;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_ERROR_BAD_GRAPH && p == NULL, "compile of an empty graph = %s", rs(r));
    TH_CHECK(nonempty(rlx_graph_error(g)), "empty graph: no message");

    x = rlx_input(g, "x", RLX_F32, 1, s4);
    rlx_neg(g, x);
    p = (rlx_program*)&p;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_ERROR_BAD_GRAPH && p == NULL, "compile of a graph with no outputs = %s", rs(r));
    TH_CHECK(nonempty(rlx_graph_error(g)), "graph with no outputs: no message");
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "a failed compile made the graph sticky: %s", rs(rlx_graph_status(g)));

    rlx_output(g, "y", rlx_neg(g, x));
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "setup: %s", rlx_graph_error(g));

    /* bad descriptors */
    cd = cdesc(0);
    cd.device = (rlx_device)99;
    p = (rlx_program*)&p;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_ERROR_INVALID_ARGUMENT && p == NULL, "compile(device 99) = %s", rs(r));
    TH_CHECK(nonempty(rlx_graph_error(g)), "device 99: no message");
    cd = cdesc(0);
    cd.device = RLX_DEVICE_COUNT;
    p = (rlx_program*)&p;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_ERROR_INVALID_ARGUMENT && p == NULL, "compile(device COUNT) = %s", rs(r));
    cd = cdesc(0);
    cd.num_threads = -1;
    p = (rlx_program*)&p;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_ERROR_INVALID_ARGUMENT && p == NULL, "compile(num_threads -1) = %s", rs(r));
    cd = cdesc(0);
    cd.device_index = -1;
    p = (rlx_program*)&p;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r != RLX_OK && p == NULL, "compile(device_index -1) = %s", rs(r));
    if (r == RLX_OK) rlx_program_destroy(p);
    cd = cdesc(0);
    cd.allocator.alloc = ca_alloc; /* half an allocator */
    p = (rlx_program*)&p;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_ERROR_INVALID_ARGUMENT && p == NULL, "compile(allocator without free) = %s", rs(r));
    if (r == RLX_OK) rlx_program_destroy(p);
    /* a NULL descriptor: defaults or an invalid argument, but no crash */
    p = NULL;
    r = rlx_compile(g, NULL, &p);
    TH_CHECK((r == RLX_OK && p != NULL) || (r == RLX_ERROR_INVALID_ARGUMENT && p == NULL),
             "compile(desc NULL) = %s", rs(r));
    rlx_program_destroy(p);

    /* CPU and AUTO */
    for (d = RLX_DEVICE_AUTO; d <= RLX_DEVICE_CPU; d++) {
        cd = cdesc(RLX_COMPILE_NO_FALLBACK);
        cd.device = (rlx_device)d;
        p = NULL;
        r = rlx_compile(g, &cd, &p);
        TH_CHECK(r == RLX_OK && p != NULL, "compile on %s: %s: %s", rlx_device_name((rlx_device)d), rs(r),
                 rlx_graph_error(g));
        if (p) {
            /* AUTO may pick a GPU where one is usable (the GPU machine); the CPU is always usable */
            TH_CHECK(rlx_program_device(p) == RLX_DEVICE_CPU || d == RLX_DEVICE_AUTO, "%s compiled for %s",
                     rlx_device_name((rlx_device)d), rlx_device_name(rlx_program_device(p)));
            TH_CHECK(nonempty(rlx_program_device_reason(p)), "no device reason");
            TH_CHECK(rlx_program_error(p) != NULL && rlx_program_error(p)[0] == '\0',
                     "fresh program has an error message: %s", rlx_program_error(p));
        }
        rlx_program_destroy(p);
    }
    /* GPU devices that are unavailable here: NO_FALLBACK fails cleanly, the fallback runs on the CPU (the Vulkan
       fallback with a missing loader is also checked by tests/test_vulkan.c) */
    for (d = RLX_DEVICE_VULKAN; d < RLX_DEVICE_COUNT; d++) {
        if (device_available((rlx_device)d)) {
            th_skip("%s is available here; the fallback checks need a machine without it",
                    rlx_device_name((rlx_device)d));
            continue;
        }
        cd = cdesc(RLX_COMPILE_NO_FALLBACK);
        cd.device = (rlx_device)d;
        p = (rlx_program*)&p;
        r = rlx_compile(g, &cd, &p);
        TH_CHECK(r == RLX_ERROR_DEVICE_UNAVAILABLE && p == NULL, "compile on %s with NO_FALLBACK = %s",
                 rlx_device_name((rlx_device)d), rs(r));
        TH_CHECK(nonempty(rlx_graph_error(g)), "no message for an unavailable %s", rlx_device_name((rlx_device)d));
        cd.flags = 0;
        p = NULL;
        r = rlx_compile(g, &cd, &p);
        TH_CHECK(r == RLX_OK && p != NULL, "compile on %s with fallback = %s: %s", rlx_device_name((rlx_device)d),
                 rs(r), rlx_graph_error(g));
        if (p) {
            float xv[4] = {1, -2, 3, -4}, yv[4] = {0, 0, 0, 0};
            TH_CHECK(rlx_program_device(p) == RLX_DEVICE_CPU, "fallback from %s went to %s",
                     rlx_device_name((rlx_device)d), rlx_device_name(rlx_program_device(p)));
            TH_CHECK(nonempty(rlx_program_device_reason(p)), "fallback from %s: no reason",
                     rlx_device_name((rlx_device)d));
            POK(p, rlx_set_input_f32(p, "x", xv, 4));
            POK(p, rlx_run(p));
            POK(p, rlx_get_output_f32(p, "y", yv, 4));
            TH_CHECK(yv[0] == -1 && yv[1] == 2 && yv[2] == -3 && yv[3] == 4, "fallback program computed wrong values");
        }
        rlx_program_destroy(p);
    }
    (void)rlx_program_device(NULL);
    TH_CHECK(rlx_program_device_reason(NULL) != NULL, "rlx_program_device_reason(NULL) is NULL");
    TH_CHECK(rlx_program_error(NULL) != NULL, "rlx_program_error(NULL) is NULL");
    rlx_graph_destroy(g);
}

static void test_devices(void) {
    rlx_device_info info[8];
    int n, i, seen[RLX_DEVICE_COUNT] = {0}, cpu = -1;
    n = rlx_devices(NULL, 0);
    TH_CHECK(n >= 4, "rlx_devices(NULL, 0) = %d, want one entry per known device kind (>= 4)", n);
    memset(info, 0x5a, sizeof info);
    TH_CHECK(rlx_devices(info, 8) == n, "rlx_devices(info, 8) != rlx_devices(NULL, 0)");
    for (i = 0; i < n && i < 8; i++) {
        if ((int)info[i].device > 0 && (int)info[i].device < RLX_DEVICE_COUNT) seen[info[i].device]++;
        TH_CHECK(memchr(info[i].name, 0, sizeof info[i].name) != NULL && info[i].name[0] != '\0',
                 "device %d: name empty or unterminated", i);
        TH_CHECK(memchr(info[i].reason, 0, sizeof info[i].reason) != NULL && info[i].reason[0] != '\0',
                 "device %d: reason empty or unterminated", i);
        if (info[i].device == RLX_DEVICE_CPU) cpu = i;
    }
    TH_CHECK(seen[RLX_DEVICE_CPU] >= 1 && seen[RLX_DEVICE_VULKAN] >= 1 && seen[RLX_DEVICE_CUDA] >= 1 &&
                 seen[RLX_DEVICE_HIP] >= 1,
             "rlx_devices does not list every kind (cpu %d vulkan %d cuda %d hip %d)", seen[RLX_DEVICE_CPU],
             seen[RLX_DEVICE_VULKAN], seen[RLX_DEVICE_CUDA], seen[RLX_DEVICE_HIP]);
    TH_CHECK(cpu >= 0 && info[cpu].available == 1, "CPU not listed as available");
    memset(info, 0x5a, sizeof info);
    TH_CHECK(rlx_devices(info, 1) == n, "rlx_devices(info, 1) != count");
    TH_CHECK(((unsigned char*)&info[1])[0] == 0x5a && ((unsigned char*)&info[1])[sizeof info[1] - 1] == 0x5a,
             "rlx_devices(info, 1) wrote past the first entry");
    memset(info, 0x5a, sizeof info);
    i = rlx_devices(info, -1);
    TH_CHECK(i == n || i < 0, "rlx_devices(info, -1) = %d", i);
    TH_CHECK(((unsigned char*)&info[0])[0] == 0x5a, "rlx_devices(info, -1) wrote an entry");
}

/* ------------------------------------------------------------------------------------------------------------
   Program errors: names, sizes, NOT_SET, reading before a run, bad pointers
   ------------------------------------------------------------------------------------------------------------ */

/* y = x @ w + b; x input [2,3], w param [3,4], b param [4]; also outputs "w_out" = w and "x" (named like
   the input) = relu(x) */
static rlx_graph* linear_graph(counting_alloc* c) {
    int64_t xs[2] = {2, 3}, ws[2] = {3, 4}, bs[1] = {4};
    rlx_graph* g = c ? graph_with(c) : rlx_graph_create(NULL);
    rlx_tensor x = rlx_input(g, "input_x", RLX_F32, 2, xs);
    rlx_tensor w = rlx_param(g, "weight_w", RLX_F32, 2, ws);
    rlx_tensor b = rlx_param(g, "bias_b", RLX_F32, 1, bs);
    rlx_output(g, "y", rlx_add(g, rlx_matmul(g, x, w), b));
    rlx_output(g, "w_out", w);
    rlx_output(g, "input_x", rlx_relu(g, x));
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "linear graph: %s", rlx_graph_error(g));
    return g;
}

static void linear_values(float* x, float* w, float* b, float scale) {
    int i;
    for (i = 0; i < 6; i++) x[i] = scale * (float)(i - 2) * 0.5f;
    for (i = 0; i < 12; i++) w[i] = scale * (float)((i * 7) % 5 - 2) * 0.25f;
    for (i = 0; i < 4; i++) b[i] = scale * (float)i - 1.0f;
}

static void linear_ref(const float* x, const float* w, const float* b, float* y) {
    int i, j, k;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 4; j++) {
            double s = b[j];
            for (k = 0; k < 3; k++) s += (double)x[i * 3 + k] * w[k * 4 + j];
            y[i * 4 + j] = (float)s;
        }
}

static int check_linear(rlx_program* p, const float* x, const float* w, const float* b, const char* what) {
    float y[8], want[8], wo[12];
    int i, ok = 1;
    rlx_result r = rlx_get_output_f32(p, "y", y, 8);
    TH_CHECK(r == RLX_OK, "%s: get y: %s: %s", what, rs(r), rlx_program_error(p));
    if (r != RLX_OK) return 0;
    linear_ref(x, w, b, want);
    for (i = 0; i < 8; i++)
        if (!th_close(y[i], want[i], 1e-5, 1e-5)) ok = 0;
    TH_CHECK(ok, "%s: y wrong (y[0] %g want %g, y[7] %g want %g)", what, (double)y[0], (double)want[0],
             (double)y[7], (double)want[7]);
    r = rlx_get_output_f32(p, "w_out", wo, 12);
    TH_CHECK(r == RLX_OK && memcmp(wo, w, sizeof wo) == 0, "%s: the param read back as an output differs", what);
    return ok;
}

static void test_program_errors(void) {
    counting_alloc ca;
    rlx_graph* g;
    rlx_program* p;
    float x[6], w[12], b[4], y[8], big[16];
    double d12[12];
    const void* ptr = NULL;
    rlx_plan_info plan;
    rlx_buffer_info buf;
    rlx_result r;
    int i;

    ca_init(&ca);
    g = linear_graph(&ca);
    p = compile_ok(g, 0, __LINE__);
    rlx_graph_destroy(g);
    if (!p) return;
    linear_values(x, w, b, 1.0f);
    for (i = 0; i < 12; i++) d12[i] = w[i];
    memset(big, 0, sizeof big);

    /* NULL program / pointers */
    PFAIL(NULL, rlx_run(NULL), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(NULL, rlx_set_param_f32(NULL, "weight_w", w, 12), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(NULL, rlx_set_param(NULL, "weight_w", RLX_F32, w, sizeof w), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(NULL, rlx_set_param_raw(NULL, "weight_w", w, sizeof w), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(NULL, rlx_set_input_f32(NULL, "input_x", x, 6), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(NULL, rlx_set_input(NULL, "input_x", RLX_F32, x, sizeof x), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(NULL, rlx_get_output_f32(NULL, "y", y, 8), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(NULL, rlx_get_output(NULL, "y", RLX_F32, y, sizeof y), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(NULL, rlx_output_ptr(NULL, "y", &ptr, NULL, NULL, NULL), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(NULL, rlx_program_plan(NULL, &plan), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(NULL, rlx_program_buffer(NULL, 0, &buf), RLX_ERROR_INVALID_ARGUMENT);
    {
        rlx_program* q = (rlx_program*)&q;
        r = rlx_program_clone(NULL, 1, &q);
        TH_CHECK(r == RLX_ERROR_INVALID_ARGUMENT && q == NULL, "clone(NULL) = %s", rs(r));
    }
    PFAIL(p, rlx_program_clone(p, 0, NULL), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_set_param_f32(p, NULL, w, 12), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_set_param_f32(p, "weight_w", NULL, 12), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_set_param(p, "weight_w", RLX_F32, NULL, sizeof w), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_set_param_raw(p, "weight_w", NULL, sizeof w), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_set_param_raw(p, NULL, w, sizeof w), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_set_input_f32(p, NULL, x, 6), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_set_input_f32(p, "input_x", NULL, 6), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_set_input(p, "input_x", RLX_F32, NULL, sizeof x), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_program_plan(p, NULL), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_program_buffer(p, 0, NULL), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_program_buffer(p, -1, &buf), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_program_buffer(p, 1000000, &buf), RLX_ERROR_INVALID_ARGUMENT);
    if (rlx_program_plan(p, &plan) == RLX_OK)
        PFAIL(p, rlx_program_buffer(p, plan.num_buffers, &buf), RLX_ERROR_INVALID_ARGUMENT);
    /* invalid dtypes for the caller's buffer */
    PFAIL(p, rlx_set_param(p, "weight_w", (rlx_dtype)99, w, sizeof w), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_set_param(p, "weight_w", RLX_DTYPE_INVALID, w, sizeof w), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_set_input(p, "input_x", (rlx_dtype)99, x, sizeof x), RLX_ERROR_INVALID_ARGUMENT);

    /* unknown names, and names of the wrong kind */
    PFAIL(p, rlx_set_param_f32(p, "nope", w, 12), RLX_ERROR_NOT_FOUND);
    TH_CHECK(contains(rlx_program_error(p), "nope"), "NOT_FOUND message does not name it: %s", rlx_program_error(p));
    PFAIL(p, rlx_set_param_f32(p, "input_x", x, 6), RLX_ERROR_NOT_FOUND);  /* an input, not a param */
    PFAIL(p, rlx_set_param_f32(p, "y", y, 8), RLX_ERROR_NOT_FOUND);        /* an output */
    PFAIL(p, rlx_set_param_raw(p, "nope", w, sizeof w), RLX_ERROR_NOT_FOUND);
    PFAIL(p, rlx_set_input_f32(p, "weight_w", w, 12), RLX_ERROR_NOT_FOUND); /* a param, not an input */
    PFAIL(p, rlx_set_input_f32(p, "nope", x, 6), RLX_ERROR_NOT_FOUND);
    r = rlx_set_input_i32(p, "", (const int32_t*)(const void*)big, 6);
    TH_CHECK(r == RLX_ERROR_NOT_FOUND || r == RLX_ERROR_INVALID_ARGUMENT, "set_input with name \"\" = %s", rs(r));
    PFAIL(p, rlx_get_output_f32(p, "nope", y, 8), RLX_ERROR_NOT_FOUND);
    PFAIL(p, rlx_get_output_f32(p, "weight_w", w, 12), RLX_ERROR_NOT_FOUND); /* a param, not an output */
    PFAIL(p, rlx_output_ptr(p, "nope", &ptr, NULL, NULL, NULL), RLX_ERROR_NOT_FOUND);

    /* wrong sizes */
    PFAIL(p, rlx_set_param_f32(p, "weight_w", w, 11), RLX_ERROR_SIZE);
    PFAIL(p, rlx_set_param_f32(p, "weight_w", big, 13), RLX_ERROR_SIZE);
    PFAIL(p, rlx_set_param_f32(p, "weight_w", w, 0), RLX_ERROR_SIZE);
    PFAIL(p, rlx_set_param(p, "weight_w", RLX_F32, w, sizeof w - 1), RLX_ERROR_SIZE);
    PFAIL(p, rlx_set_param(p, "weight_w", RLX_F64, w, sizeof w), RLX_ERROR_SIZE); /* 12 f32 = 6 f64 */
    PFAIL(p, rlx_set_param(p, "weight_w", RLX_F32, w, (size_t)-1), RLX_ERROR_SIZE);
    PFAIL(p, rlx_set_param_f64(p, "weight_w", d12, 6), RLX_ERROR_SIZE);
    PFAIL(p, rlx_set_param_raw(p, "weight_w", w, sizeof w - 4), RLX_ERROR_SIZE);
    PFAIL(p, rlx_set_param_raw(p, "weight_w", big, sizeof big), RLX_ERROR_SIZE);
    PFAIL(p, rlx_set_param_raw(p, "weight_w", d12, sizeof d12), RLX_ERROR_SIZE); /* right count, wrong bytes */
    PFAIL(p, rlx_set_input_f32(p, "input_x", x, 5), RLX_ERROR_SIZE);
    PFAIL(p, rlx_set_input(p, "input_x", RLX_F32, x, 7), RLX_ERROR_SIZE);
    PFAIL(p, rlx_set_input_i64(p, "input_x", (const int64_t*)(const void*)big, 8), RLX_ERROR_SIZE);
    PFAIL(p, rlx_set_input_f32(p, "input_x", x, (size_t)-1 / 4 + 1), RLX_ERROR_SIZE);

    /* run before everything is set: NOT_SET naming the missing tensor, nothing computed */
    PFAIL(p, rlx_run(p), RLX_ERROR_NOT_SET);
    TH_CHECK(rlx_get_output_f32(p, "y", y, 8) != RLX_OK, "get_output before the first run succeeded");
    TH_CHECK(rlx_output_ptr(p, "y", &ptr, NULL, NULL, NULL) != RLX_OK, "output_ptr before the first run succeeded");
    TH_CHECK(nonempty(rlx_program_error(p)), "get_output before the first run: no message");
    POK(p, rlx_set_input_f32(p, "input_x", x, 6));
    POK(p, rlx_set_param_f32(p, "bias_b", b, 4));
    r = rlx_run(p);
    TH_CHECK(r == RLX_ERROR_NOT_SET, "run with weight_w unset = %s", rs(r));
    TH_CHECK(contains(rlx_program_error(p), "weight_w"), "NOT_SET message does not name weight_w: %s",
             rlx_program_error(p));
    TH_CHECK(rlx_get_output_f32(p, "y", y, 8) != RLX_OK, "get_output after a failed first run succeeded");
    POK(p, rlx_set_param_f32(p, "weight_w", w, 12));
    POK(p, rlx_run(p));
    check_linear(p, x, w, b, "after the setters");

    /* a failed setter leaves the old values alone, and the program stays usable */
    PFAIL(p, rlx_set_param_f32(p, "weight_w", big, 11), RLX_ERROR_SIZE);
    PFAIL(p, rlx_set_input_f32(p, "input_x", big, 5), RLX_ERROR_SIZE);
    POK(p, rlx_run(p));
    check_linear(p, x, w, b, "after failed setters");

    /* reading: wrong sizes, NULL buffers, invalid dtypes */
    PFAIL(p, rlx_get_output_f32(p, "y", y, 7), RLX_ERROR_SIZE);
    PFAIL(p, rlx_get_output_f32(p, "y", big, 9), RLX_ERROR_SIZE);
    PFAIL(p, rlx_get_output(p, "y", RLX_F32, y, sizeof y + 1), RLX_ERROR_SIZE);
    PFAIL(p, rlx_get_output(p, "y", RLX_F64, y, sizeof y), RLX_ERROR_SIZE);
    PFAIL(p, rlx_get_output_i64(p, "y", (int64_t*)(void*)big, 4), RLX_ERROR_SIZE);
    PFAIL(p, rlx_get_output_f32(p, "y", NULL, 8), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_get_output_f32(p, NULL, y, 8), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_get_output(p, "y", (rlx_dtype)99, y, sizeof y), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_get_output(p, "y", RLX_DTYPE_INVALID, y, sizeof y), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_output_ptr(p, "y", NULL, NULL, NULL, NULL), RLX_ERROR_INVALID_ARGUMENT);
    PFAIL(p, rlx_output_ptr(p, NULL, &ptr, NULL, NULL, NULL), RLX_ERROR_INVALID_ARGUMENT);
    check_linear(p, x, w, b, "after failed reads");

    /* a second program from the same graph starts out unset */
    rlx_program_destroy(p);
    TH_CHECK(ca.allocs == ca.frees, "program errors: %ld allocations, %ld frees", ca.allocs, ca.frees);

    ca_init(&ca);
    g = linear_graph(&ca);
    p = compile_ok(g, 0, __LINE__);
    if (p) {
        POK(p, rlx_set_param_f32(p, "weight_w", w, 12));
        POK(p, rlx_set_param_f32(p, "bias_b", b, 4));
        r = rlx_run(p);
        TH_CHECK(r == RLX_ERROR_NOT_SET && contains(rlx_program_error(p), "input_x"),
                 "run with input_x unset = %s: %s", rs(r), rlx_program_error(p));
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    TH_CHECK(ca.allocs == ca.frees, "NOT_SET program: %ld allocations, %ld frees", ca.allocs, ca.frees);
}

/* ------------------------------------------------------------------------------------------------------------
   Typed setters and getters
   ------------------------------------------------------------------------------------------------------------ */

#define NV 8

static void test_setters(void) {
    int64_t sn[1] = {NV};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p;
    const char* pnames[8] = {"pf", "ph", "pb", "pd", "pi", "pl", "pu", "pz"};
    const rlx_dtype pdt[8] = {RLX_F32, RLX_F16, RLX_BF16, RLX_F64, RLX_I32, RLX_I64, RLX_U8, RLX_BOOL};
    char oname[16];
    int i, k, ok;
    float f[NV], got[NV];
    double dv[NV], dgot[NV];
    uint16_t h[NV], hgot[NV];
    int32_t iv[NV], igot[NV];
    int64_t lv[NV], lgot[NV];
    uint8_t ugot[NV];

    for (k = 0; k < 8; k++) {
        rlx_tensor t = rlx_param(g, pnames[k], pdt[k], 1, sn);
        snprintf(oname, sizeof oname, "o_%s", pnames[k]);
        rlx_output(g, oname, t);
    }
    rlx_output(g, "o_xf", rlx_input(g, "xf", RLX_F32, 1, sn));
    rlx_output(g, "o_xi", rlx_input(g, "xi", RLX_I32, 1, sn));
    rlx_output(g, "o_xl", rlx_input(g, "xl", RLX_I64, 1, sn));
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "setter graph: %s", rlx_graph_error(g));
    p = compile_ok(g, 0, __LINE__);
    rlx_graph_destroy(g);
    if (!p) return;

    /* defaults so that every run is allowed */
    memset(f, 0, sizeof f);
    for (k = 0; k < 8; k++) POK(p, rlx_set_param(p, pnames[k], RLX_F32, f, sizeof f));
    POK(p, rlx_set_input_f32(p, "xf", f, NV));
    POK(p, rlx_set_input_f32(p, "xi", f, NV));
    POK(p, rlx_set_input_f32(p, "xl", f, NV));

    /* f32 -> f32: exact */
    for (i = 0; i < NV; i++) f[i] = (float)(i * 1.25 - 3.1);
    POK(p, rlx_set_param_f32(p, "pf", f, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output_f32(p, "o_pf", got, NV));
    TH_CHECK(memcmp(got, f, sizeof f) == 0, "set_param_f32 -> f32 param changed the values");

    /* f64 -> f32: round to nearest even, overflow to inf, NaN, -0 */
    dv[0] = 0.1; dv[1] = 1.0 / 3.0; dv[2] = 1.0 + ldexp(1.0, -24); dv[3] = 1.0 + 3 * ldexp(1.0, -24);
    dv[4] = 1e-40; dv[5] = 3.5e38 * 10.0; dv[6] = -0.0; dv[7] = -123456.789;
    POK(p, rlx_set_param_f64(p, "pf", dv, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output_f32(p, "o_pf", got, NV));
    for (ok = 1, i = 0; i < NV; i++) if (!same_f32(got[i], (float)dv[i])) ok = 0;
    TH_CHECK(ok, "set_param_f64 -> f32 param: not rounded to nearest even (got %.9g %.9g %.9g, want %.9g %.9g %.9g)",
             (double)got[2], (double)got[3], (double)got[5], (double)(float)dv[2], (double)(float)dv[3],
             (double)(float)dv[5]);
    /* f32 param read back as f64: exact */
    POK(p, rlx_get_output(p, "o_pf", RLX_F64, dgot, sizeof dgot));
    for (ok = 1, i = 0; i < NV; i++) if (!(dgot[i] == (double)(float)dv[i] || (dgot[i] != dgot[i] && dv[i] != dv[i]))) ok = 0;
    TH_CHECK(ok, "f32 output read as f64 is not exact");

    /* f16 bits -> f32 */
    h[0] = 0x3c00; h[1] = 0xc000; h[2] = 0x3555; h[3] = 0x7bff; h[4] = 0x0001; h[5] = 0x7c00; h[6] = 0x8000;
    h[7] = 0x03ff;
    POK(p, rlx_set_param_f16(p, "pf", h, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output_f32(p, "o_pf", got, NV));
    for (ok = 1, i = 0; i < NV; i++) if (!same_f32(got[i], f16_to_f32(h[i]))) ok = 0;
    TH_CHECK(ok, "set_param_f16 -> f32 param: wrong values (got %g %g %g, want %g %g %g)", (double)got[2],
             (double)got[4], (double)got[7], (double)f16_to_f32(h[2]), (double)f16_to_f32(h[4]),
             (double)f16_to_f32(h[7]));

    /* bf16 bits -> f32 */
    for (i = 0; i < NV; i++) h[i] = (uint16_t)(0x3f80 + i * 0x111);
    h[7] = 0xff80; /* -inf */
    POK(p, rlx_set_param_bf16(p, "pf", h, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output_f32(p, "o_pf", got, NV));
    for (ok = 1, i = 0; i < NV; i++) if (!same_f32(got[i], bf16_to_f32(h[i]))) ok = 0;
    TH_CHECK(ok, "set_param_bf16 -> f32 param: wrong values");

    /* i32 / i64 -> f32: round to nearest even */
    iv[0] = 16777217; iv[1] = 16777219; iv[2] = -2147483647; iv[3] = 0; iv[4] = -7; iv[5] = 123456789;
    iv[6] = 2147483647; iv[7] = 1;
    POK(p, rlx_set_param_i32(p, "pf", iv, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output_f32(p, "o_pf", got, NV));
    for (ok = 1, i = 0; i < NV; i++) if (!same_f32(got[i], (float)iv[i])) ok = 0;
    TH_CHECK(ok, "set_param_i32 -> f32 param: got %.10g %.10g, want %.10g %.10g", (double)got[0], (double)got[1],
             (double)(float)iv[0], (double)(float)iv[1]);
    lv[0] = (int64_t)1 << 40; lv[1] = -((int64_t)1 << 53) - 2; lv[2] = 33554435; lv[3] = -1; lv[4] = INT64_MAX;
    lv[5] = INT64_MIN; lv[6] = 1000000007; lv[7] = 0;
    POK(p, rlx_set_param_i64(p, "pf", lv, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output_f32(p, "o_pf", got, NV));
    for (ok = 1, i = 0; i < NV; i++) if (!same_f32(got[i], (float)lv[i])) ok = 0;
    TH_CHECK(ok, "set_param_i64 -> f32 param: wrong values (got %.10g, want %.10g)", (double)got[2],
             (double)(float)lv[2]);

    /* raw into f32 */
    for (i = 0; i < NV; i++) f[i] = (float)i / 7.0f;
    POK(p, rlx_set_param_raw(p, "pf", f, sizeof f));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output_f32(p, "o_pf", got, NV));
    TH_CHECK(memcmp(got, f, sizeof f) == 0, "set_param_raw -> f32 param changed the values");

    /* f32 -> f16 param (round to nearest even, overflow to inf, underflow to 0 / subnormal) */
    f[0] = 1.0f / 3.0f; f[1] = 65504.0f; f[2] = 65520.0f; f[3] = 1e-8f; f[4] = 3e-8f; f[5] = -2.5f;
    f[6] = 0.1f; f[7] = 1.0009765625f + 0.00048828125f; /* a tie: 1 + 1.5 ulp -> even */
    POK(p, rlx_set_param_f32(p, "ph", f, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output(p, "o_ph", RLX_F16, hgot, sizeof hgot));
    for (ok = 1, i = 0; i < NV; i++) if (hgot[i] != f32_to_f16(f[i])) ok = 0;
    TH_CHECK(ok, "f32 -> f16 param: bits %04x %04x %04x %04x %04x, want %04x %04x %04x %04x %04x", hgot[0], hgot[2],
             hgot[3], hgot[4], hgot[7], f32_to_f16(f[0]), f32_to_f16(f[2]), f32_to_f16(f[3]), f32_to_f16(f[4]),
             f32_to_f16(f[7]));
    POK(p, rlx_get_output_f32(p, "o_ph", got, NV));
    for (ok = 1, i = 0; i < NV; i++) if (!same_f32(got[i], f16_to_f32(f32_to_f16(f[i])))) ok = 0;
    TH_CHECK(ok, "f16 param read as f32: wrong values");
    /* f16 bits -> f16 param, raw -> f16 param */
    for (i = 0; i < NV; i++) h[i] = (uint16_t)(0x1234 + 0x1111 * i);
    POK(p, rlx_set_param_f16(p, "ph", h, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output(p, "o_ph", RLX_F16, hgot, sizeof hgot));
    TH_CHECK(memcmp(h, hgot, sizeof h) == 0, "set_param_f16 -> f16 param changed the bits");
    for (i = 0; i < NV; i++) h[i] = (uint16_t)(0x0101 * i + 7);
    POK(p, rlx_set_param_raw(p, "ph", h, sizeof h));
    PFAIL(p, rlx_set_param_raw(p, "ph", h, sizeof h * 2), RLX_ERROR_SIZE);
    POK(p, rlx_run(p));
    POK(p, rlx_get_output(p, "o_ph", RLX_F16, hgot, sizeof hgot));
    TH_CHECK(memcmp(h, hgot, sizeof h) == 0, "set_param_raw -> f16 param changed the bits");

    /* f32 -> bf16 param */
    f[0] = 1.0f / 3.0f; f[1] = 3.0e38f; f[2] = -1.00390625f; f[3] = 1.01171875f; f[4] = 1e-39f; f[5] = -7.0f;
    f[6] = 123.456f; f[7] = 1.0f + 1.0f / 256.0f; /* a tie */
    POK(p, rlx_set_param_f32(p, "pb", f, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output(p, "o_pb", RLX_BF16, hgot, sizeof hgot));
    for (ok = 1, i = 0; i < NV; i++) if (hgot[i] != f32_to_bf16(f[i])) ok = 0;
    TH_CHECK(ok, "f32 -> bf16 param: bits %04x %04x %04x, want %04x %04x %04x", hgot[0], hgot[3], hgot[7],
             f32_to_bf16(f[0]), f32_to_bf16(f[3]), f32_to_bf16(f[7]));
    POK(p, rlx_set_param_bf16(p, "pb", h, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output(p, "o_pb", RLX_BF16, hgot, sizeof hgot));
    TH_CHECK(memcmp(h, hgot, sizeof h) == 0, "set_param_bf16 -> bf16 param changed the bits");

    /* f64 param: exact both ways */
    for (i = 0; i < NV; i++) dv[i] = 1.0 / (i + 3.0) - 1e-300 * i;
    POK(p, rlx_set_param_f64(p, "pd", dv, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output(p, "o_pd", RLX_F64, dgot, sizeof dgot));
    TH_CHECK(memcmp(dv, dgot, sizeof dv) == 0, "f64 param changed the values");
    for (i = 0; i < NV; i++) f[i] = (float)dv[i];
    POK(p, rlx_set_param_f32(p, "pd", f, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output(p, "o_pd", RLX_F64, dgot, sizeof dgot));
    for (ok = 1, i = 0; i < NV; i++) if (dgot[i] != (double)f[i]) ok = 0;
    TH_CHECK(ok, "f32 -> f64 param is not exact");

    /* float -> i32 param: truncate, saturate, NaN -> 0 */
    f[0] = 2.9f; f[1] = -2.9f; f[2] = NAN; f[3] = 1e10f; f[4] = -1e10f; f[5] = 0.5f; f[6] = -0.5f; f[7] = 2147483520.0f;
    POK(p, rlx_set_param_f32(p, "pi", f, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output(p, "o_pi", RLX_I32, igot, sizeof igot));
    for (ok = 1, i = 0; i < NV; i++) if (igot[i] != (int32_t)sat_i64(f[i], -2147483648.0, 2147483647.0)) ok = 0;
    TH_CHECK(ok, "f32 -> i32 param: got %d %d %d %d %d, want 2 -2 0 2147483647 -2147483648", igot[0], igot[1],
             igot[2], igot[3], igot[4]);
    dv[0] = INFINITY; dv[1] = -INFINITY; dv[2] = 1e300; dv[3] = -2147483648.9; dv[4] = 2147483647.9; dv[5] = -0.0;
    dv[6] = 99.99; dv[7] = -(double)NAN;
    POK(p, rlx_set_param_f64(p, "pi", dv, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output(p, "o_pi", RLX_I32, igot, sizeof igot));
    for (ok = 1, i = 0; i < NV; i++) if (igot[i] != (int32_t)sat_i64(dv[i], -2147483648.0, 2147483647.0)) ok = 0;
    TH_CHECK(ok, "f64 -> i32 param: got %d %d %d %d %d", igot[0], igot[1], igot[2], igot[3], igot[4]);
    /* i64 -> i32 param: saturate */
    lv[0] = (int64_t)1 << 40; lv[1] = -((int64_t)1 << 40); lv[2] = 5; lv[3] = -5; lv[4] = INT64_MAX;
    lv[5] = INT64_MIN; lv[6] = 2147483647; lv[7] = -2147483647 - 1;
    POK(p, rlx_set_param_i64(p, "pi", lv, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output(p, "o_pi", RLX_I32, igot, sizeof igot));
    for (ok = 1, i = 0; i < NV; i++)
        if (igot[i] != (int32_t)(lv[i] > 2147483647 ? 2147483647 : lv[i] < -2147483647 - 1 ? -2147483647 - 1 : lv[i]))
            ok = 0;
    TH_CHECK(ok, "i64 -> i32 param: got %d %d %d, want saturation", igot[0], igot[1], igot[4]);
    /* i32 and raw into i32 */
    for (i = 0; i < NV; i++) iv[i] = (int32_t)(i * 1000003 - 7);
    POK(p, rlx_set_param_i32(p, "pi", iv, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output(p, "o_pi", RLX_I32, igot, sizeof igot));
    TH_CHECK(memcmp(iv, igot, sizeof iv) == 0, "set_param_i32 -> i32 param changed the values");
    for (i = 0; i < NV; i++) iv[i] = -(int32_t)(i * 77);
    POK(p, rlx_set_param_raw(p, "pi", iv, sizeof iv));
    PFAIL(p, rlx_set_param_raw(p, "pi", iv, sizeof iv - 1), RLX_ERROR_SIZE);
    POK(p, rlx_run(p));
    POK(p, rlx_get_output(p, "o_pi", RLX_I32, igot, sizeof igot));
    TH_CHECK(memcmp(iv, igot, sizeof iv) == 0, "set_param_raw -> i32 param changed the values");
    /* i32 output read as i64, f32, bool */
    POK(p, rlx_get_output_i64(p, "o_pi", lgot, NV));
    for (ok = 1, i = 0; i < NV; i++) if (lgot[i] != iv[i]) ok = 0;
    TH_CHECK(ok, "i32 output read as i64: wrong");
    POK(p, rlx_get_output(p, "o_pi", RLX_BOOL, ugot, sizeof ugot));
    for (ok = 1, i = 0; i < NV; i++) if (ugot[i] != (iv[i] != 0)) ok = 0;
    TH_CHECK(ok, "i32 output read as bool: wrong");

    /* i64 param */
    dv[0] = 1e19; dv[1] = -1e19; dv[2] = 9.2e18; dv[3] = NAN; dv[4] = -3.7; dv[5] = 4503599627370497.0;
    dv[6] = -0.9; dv[7] = 1e-300;
    POK(p, rlx_set_param_f64(p, "pl", dv, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output_i64(p, "o_pl", lgot, NV));
    TH_CHECK(lgot[0] == INT64_MAX && lgot[1] == INT64_MIN && lgot[2] == (int64_t)9.2e18 && lgot[3] == 0 &&
                 lgot[4] == -3 && lgot[5] == 4503599627370497LL && lgot[6] == 0 && lgot[7] == 0,
             "f64 -> i64 param: got %lld %lld %lld %lld %lld", (long long)lgot[0], (long long)lgot[1],
             (long long)lgot[2], (long long)lgot[3], (long long)lgot[4]);
    lv[0] = INT64_MAX; lv[1] = INT64_MIN; lv[2] = 1; lv[3] = -1; lv[4] = (int64_t)1 << 62; lv[5] = 0;
    lv[6] = 123456789012345LL; lv[7] = -42;
    POK(p, rlx_set_param_i64(p, "pl", lv, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output_i64(p, "o_pl", lgot, NV));
    TH_CHECK(memcmp(lv, lgot, sizeof lv) == 0, "set_param_i64 -> i64 param changed the values");
    /* i64 output read as i32 saturates, as f64 rounds */
    POK(p, rlx_get_output(p, "o_pl", RLX_I32, igot, sizeof igot));
    TH_CHECK(igot[0] == 2147483647 && igot[1] == -2147483647 - 1 && igot[2] == 1 && igot[7] == -42 &&
                 igot[4] == 2147483647,
             "i64 output read as i32 does not saturate: %d %d %d", igot[0], igot[1], igot[4]);
    iv[0] = -1; iv[1] = 2147483647; iv[2] = -2147483647 - 1; iv[3] = 0; iv[4] = 5; iv[5] = 6; iv[6] = 7; iv[7] = 8;
    POK(p, rlx_set_param_i32(p, "pl", iv, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output_i64(p, "o_pl", lgot, NV));
    for (ok = 1, i = 0; i < NV; i++) if (lgot[i] != iv[i]) ok = 0;
    TH_CHECK(ok, "i32 -> i64 param: wrong");

    /* u8 param: integers and floats saturate */
    iv[0] = -5; iv[1] = 300; iv[2] = 255; iv[3] = 0; iv[4] = 7; iv[5] = 256; iv[6] = -2147483647 - 1; iv[7] = 128;
    POK(p, rlx_set_param_i32(p, "pu", iv, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output(p, "o_pu", RLX_U8, ugot, sizeof ugot));
    TH_CHECK(ugot[0] == 0 && ugot[1] == 255 && ugot[2] == 255 && ugot[3] == 0 && ugot[4] == 7 && ugot[5] == 255 &&
                 ugot[6] == 0 && ugot[7] == 128,
             "i32 -> u8 param: got %d %d %d %d %d %d %d %d", ugot[0], ugot[1], ugot[2], ugot[3], ugot[4], ugot[5],
             ugot[6], ugot[7]);
    f[0] = -0.5f; f[1] = 255.9f; f[2] = 256.0f; f[3] = NAN; f[4] = 1.99f; f[5] = -1e30f; f[6] = 1e30f; f[7] = 77.7f;
    POK(p, rlx_set_param_f32(p, "pu", f, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output(p, "o_pu", RLX_U8, ugot, sizeof ugot));
    TH_CHECK(ugot[0] == 0 && ugot[1] == 255 && ugot[2] == 255 && ugot[3] == 0 && ugot[4] == 1 && ugot[5] == 0 &&
                 ugot[6] == 255 && ugot[7] == 77,
             "f32 -> u8 param: got %d %d %d %d %d %d %d %d", ugot[0], ugot[1], ugot[2], ugot[3], ugot[4], ugot[5],
             ugot[6], ugot[7]);
    {   /* generic setter with an i8 buffer */
        int8_t i8[NV] = {-128, -1, 0, 1, 127, 5, -5, 100};
        POK(p, rlx_set_param(p, "pu", RLX_I8, i8, sizeof i8));
        POK(p, rlx_run(p));
        POK(p, rlx_get_output(p, "o_pu", RLX_U8, ugot, sizeof ugot));
        TH_CHECK(ugot[0] == 0 && ugot[1] == 0 && ugot[3] == 1 && ugot[4] == 127 && ugot[6] == 0 && ugot[7] == 100,
                 "i8 -> u8 param: got %d %d %d %d", ugot[0], ugot[1], ugot[4], ugot[7]);
    }

    /* bool param: value != 0, NaN -> true; read back as 0/1 */
    f[0] = 0.0f; f[1] = 1.0f; f[2] = -0.0f; f[3] = NAN; f[4] = 0.25f; f[5] = -3.0f; f[6] = 1e-45f; f[7] = 0.0f;
    POK(p, rlx_set_param_f32(p, "pz", f, NV));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output(p, "o_pz", RLX_BOOL, ugot, sizeof ugot));
    TH_CHECK(ugot[0] == 0 && ugot[1] == 1 && ugot[2] == 0 && ugot[3] == 1 && ugot[4] == 1 && ugot[5] == 1 &&
                 ugot[6] == 1 && ugot[7] == 0,
             "f32 -> bool param: got %d %d %d %d %d %d %d %d", ugot[0], ugot[1], ugot[2], ugot[3], ugot[4], ugot[5],
             ugot[6], ugot[7]);
    POK(p, rlx_get_output_f32(p, "o_pz", got, NV));
    for (ok = 1, i = 0; i < NV; i++) if (got[i] != (float)ugot[i]) ok = 0;
    TH_CHECK(ok, "bool output read as f32 is not 0/1");

    /* inputs: typed and generic setters */
    for (i = 0; i < NV; i++) iv[i] = (int32_t)(i * 3 - 10);
    POK(p, rlx_set_input_i32(p, "xf", iv, NV));
    for (i = 0; i < NV; i++) lv[i] = (int64_t)i * 1000000000000LL - 5;
    POK(p, rlx_set_input_i64(p, "xl", lv, NV));
    for (i = 0; i < NV; i++) dv[i] = (double)i * -2.75;
    POK(p, rlx_set_input(p, "xi", RLX_F64, dv, sizeof dv));
    POK(p, rlx_run(p));
    POK(p, rlx_get_output_f32(p, "o_xf", got, NV));
    for (ok = 1, i = 0; i < NV; i++) if (got[i] != (float)iv[i]) ok = 0;
    TH_CHECK(ok, "set_input_i32 -> f32 input: wrong");
    POK(p, rlx_get_output_i64(p, "o_xl", lgot, NV));
    TH_CHECK(memcmp(lgot, lv, sizeof lv) == 0, "set_input_i64 -> i64 input: wrong");
    POK(p, rlx_get_output(p, "o_xi", RLX_I32, igot, sizeof igot));
    for (ok = 1, i = 0; i < NV; i++) if (igot[i] != (int32_t)dv[i]) ok = 0;
    TH_CHECK(ok, "set_input(f64) -> i32 input: got %d %d, want %d %d", igot[1], igot[3], (int)dv[1], (int)dv[3]);
    for (i = 0; i < NV; i++) f[i] = (float)i - 0.5f;
    POK(p, rlx_set_input_f32(p, "xf", f, NV));
    POK(p, rlx_run(p));
    /* output read as i64 (truncate), i8 (saturate) */
    POK(p, rlx_get_output_i64(p, "o_xf", lgot, NV));
    for (ok = 1, i = 0; i < NV; i++) if (lgot[i] != (int64_t)f[i]) ok = 0;
    TH_CHECK(ok, "f32 output read as i64 does not truncate");
    {
        int8_t i8[NV];
        for (i = 0; i < NV; i++) f[i] = (float)(i - 4) * 50.0f;
        POK(p, rlx_set_input_f32(p, "xf", f, NV));
        POK(p, rlx_run(p));
        POK(p, rlx_get_output(p, "o_xf", RLX_I8, i8, sizeof i8));
        for (ok = 1, i = 0; i < NV; i++) if (i8[i] != (int8_t)sat_i64(f[i], -128, 127)) ok = 0;
        TH_CHECK(ok, "f32 output read as i8 does not saturate: %d %d", i8[0], i8[7]);
    }
    rlx_program_destroy(p);
}

/* ------------------------------------------------------------------------------------------------------------
   Clones, zero-copy outputs, repeated runs, graph destroyed after compile, allocators
   ------------------------------------------------------------------------------------------------------------ */

static void set_linear(rlx_program* p, const float* x, const float* w, const float* b) {
    POK(p, rlx_set_input_f32(p, "input_x", x, 6));
    POK(p, rlx_set_param_f32(p, "weight_w", w, 12));
    POK(p, rlx_set_param_f32(p, "bias_b", b, 4));
}

static void test_clone(int destroy_original_first) {
    counting_alloc ca;
    rlx_graph* g;
    rlx_program *p, *shared = NULL, *copy = NULL;
    float x[6], w[12], b[4], x2[6], w2[12], b2[4];
    rlx_result r;
    const char* order = destroy_original_first ? "original destroyed first" : "clones destroyed first";

    ca_init(&ca);
    g = linear_graph(&ca);
    p = compile_ok(g, 0, __LINE__);
    rlx_graph_destroy(g);
    if (!p) return;
    linear_values(x, w, b, 1.0f);
    linear_values(x2, w2, b2, -0.5f);
    set_linear(p, x, w, b);
    POK(p, rlx_run(p));

    r = rlx_program_clone(p, 1, &shared);
    TH_CHECK(r == RLX_OK && shared != NULL, "clone(share) = %s: %s", rs(r), rlx_program_error(p));
    r = rlx_program_clone(p, 0, &copy);
    TH_CHECK(r == RLX_OK && copy != NULL, "clone(copy) = %s: %s", rs(r), rlx_program_error(p));
    if (!shared || !copy) {
        rlx_program_destroy(shared);
        rlx_program_destroy(copy);
        rlx_program_destroy(p);
        return;
    }
    /* clones have their own inputs: set them and run */
    POK(shared, rlx_set_input_f32(shared, "input_x", x, 6));
    POK(copy, rlx_set_input_f32(copy, "input_x", x, 6));
    POK(shared, rlx_run(shared));
    POK(copy, rlx_run(copy));
    check_linear(shared, x, w, b, "shared clone");
    check_linear(copy, x, w, b, "copied clone");

    /* new weights through the shared clone: seen by p, not by the copy */
    POK(shared, rlx_set_param_f32(shared, "weight_w", w2, 12));
    POK(p, rlx_run(p));
    POK(copy, rlx_run(copy));
    check_linear(p, x, w2, b, "original after set_param on the shared clone");
    check_linear(copy, x, w, b, "copied clone after set_param on the shared clone");
    /* new weights through p: seen by the shared clone */
    POK(p, rlx_set_param_f32(p, "bias_b", b2, 4));
    POK(shared, rlx_run(shared));
    check_linear(shared, x, w2, b2, "shared clone after set_param on the original");
    /* new weights through the copy: seen by nobody else */
    POK(copy, rlx_set_param_f32(copy, "weight_w", w, 12));
    POK(copy, rlx_set_param_f32(copy, "bias_b", b, 4));
    POK(copy, rlx_run(copy));
    POK(p, rlx_run(p));
    check_linear(copy, x, w, b, "copied clone with its own weights");
    check_linear(p, x, w2, b2, "original after set_param on the copy");
    /* inputs are per program */
    POK(shared, rlx_set_input_f32(shared, "input_x", x2, 6));
    POK(shared, rlx_run(shared));
    POK(p, rlx_run(p));
    check_linear(shared, x2, w2, b2, "shared clone with its own input");
    check_linear(p, x, w2, b2, "original after set_input on the shared clone");

    if (destroy_original_first) {
        rlx_program_destroy(p);
        POK(shared, rlx_set_param_f32(shared, "weight_w", w, 12));
        POK(shared, rlx_run(shared));
        check_linear(shared, x2, w, b2, "shared clone after the original was destroyed");
        POK(copy, rlx_run(copy));
        check_linear(copy, x, w, b, "copy after the original was destroyed");
        {   /* a clone of a clone shares the same storage */
            rlx_program* cc = NULL;
            r = rlx_program_clone(shared, 1, &cc);
            TH_CHECK(r == RLX_OK && cc != NULL, "clone of a clone = %s", rs(r));
            if (cc) {
                rlx_program_destroy(shared);
                shared = NULL;
                POK(cc, rlx_set_input_f32(cc, "input_x", x, 6));
                POK(cc, rlx_run(cc));
                check_linear(cc, x, w, b2, "clone of a clone after its source was destroyed");
                rlx_program_destroy(cc);
            }
        }
        rlx_program_destroy(shared);
        rlx_program_destroy(copy);
    } else {
        rlx_program_destroy(shared);
        rlx_program_destroy(copy);
        POK(p, rlx_run(p));
        check_linear(p, x, w2, b2, "original after its clones were destroyed");
        rlx_program_destroy(p);
    }
    TH_CHECK(ca.allocs == ca.frees, "clones (%s): %ld allocations, %ld frees", order, ca.allocs, ca.frees);

    /* a clone (copy) of a program whose params were never set still needs them */
    ca_init(&ca);
    g = linear_graph(&ca);
    p = compile_ok(g, 0, __LINE__);
    rlx_graph_destroy(g);
    if (p) {
        copy = NULL;
        r = rlx_program_clone(p, 0, &copy);
        TH_CHECK(r == RLX_OK && copy != NULL, "clone of an unset program = %s", rs(r));
        if (copy) {
            POK(copy, rlx_set_input_f32(copy, "input_x", x, 6));
            r = rlx_run(copy);
            TH_CHECK(r == RLX_ERROR_NOT_SET, "clone of an unset program ran: %s", rs(r));
            POK(copy, rlx_set_param_f32(copy, "weight_w", w, 12));
            POK(copy, rlx_set_param_f32(copy, "bias_b", b, 4));
            POK(copy, rlx_run(copy));
            check_linear(copy, x, w, b, "clone set after cloning");
            rlx_program_destroy(copy);
        }
        rlx_program_destroy(p);
    }
    TH_CHECK(ca.allocs == ca.frees, "unset clone: %ld allocations, %ld frees", ca.allocs, ca.frees);
}

static void test_outputs(void) {
    counting_alloc ca, cb;
    rlx_graph* g;
    rlx_program* p;
    rlx_compile_desc cd;
    float x[6], w[12], b[4], y[8], y2[8], x2[6];
    const void* ptr = NULL;
    rlx_dtype dt = RLX_DTYPE_INVALID;
    int rank = -1, i;
    int64_t shape[RLX_MAX_RANK] = {0};
    rlx_result r;

    /* the graph is destroyed right after compile; the program uses the graph's allocator */
    ca_init(&ca);
    g = linear_graph(&ca);
    p = compile_ok(g, 0, __LINE__);
    rlx_graph_destroy(g);
    if (!p) return;
    TH_CHECK(ca.allocs > ca.frees, "the program does not use the graph's allocator");
    linear_values(x, w, b, 2.0f);
    set_linear(p, x, w, b);
    POK(p, rlx_run(p));
    check_linear(p, x, w, b, "graph destroyed after compile");

    /* zero-copy output */
    r = rlx_output_ptr(p, "y", &ptr, &dt, &rank, shape);
    TH_CHECK(r == RLX_OK && ptr != NULL, "output_ptr = %s: %s", rs(r), rlx_program_error(p));
    TH_CHECK(dt == RLX_F32 && rank == 2 && shape[0] == 2 && shape[1] == 4, "output_ptr: dtype %s rank %d [%d,%d]",
             rlx_dtype_name(dt), rank, (int)shape[0], (int)shape[1]);
    POK(p, rlx_get_output_f32(p, "y", y, 8));
    TH_CHECK(ptr != NULL && memcmp(ptr, y, sizeof y) == 0, "output_ptr and get_output disagree");
    ptr = NULL;
    POK(p, rlx_output_ptr(p, "w_out", &ptr, NULL, NULL, NULL));
    TH_CHECK(ptr != NULL && memcmp(ptr, w, sizeof w) == 0, "output_ptr of a param output is wrong");
    POK(p, rlx_output_ptr(p, "input_x", &ptr, NULL, &rank, NULL));
    TH_CHECK(rank == 2 && ptr != NULL && ((const float*)ptr)[0] == 0.0f && ((const float*)ptr)[5] == x[5],
             "output_ptr of relu(x) (output named like an input) is wrong");

    /* outputs survive repeated runs; values persist */
    for (i = 0; i < 3; i++) {
        POK(p, rlx_run(p));
        POK(p, rlx_get_output_f32(p, "y", y2, 8));
        TH_CHECK(memcmp(y, y2, sizeof y) == 0, "run %d changed the output", i + 2);
    }
    /* reading twice without a run in between gives the same */
    POK(p, rlx_get_output_f32(p, "y", y2, 8));
    TH_CHECK(memcmp(y, y2, sizeof y) == 0, "second read differs");
    /* a new input is used by the next run */
    linear_values(x2, w, b, 2.0f);
    for (i = 0; i < 6; i++) x2[i] = x[i] * 3.0f + 1.0f;
    POK(p, rlx_set_input_f32(p, "input_x", x2, 6));
    POK(p, rlx_run(p));
    check_linear(p, x2, w, b, "new input");
    rlx_program_destroy(p);
    TH_CHECK(ca.allocs == ca.frees, "graph allocator: %ld allocations, %ld frees", ca.allocs, ca.frees);

    /* the compile descriptor's allocator overrides the graph's */
    ca_init(&ca);
    ca_init(&cb);
    g = linear_graph(&ca);
    cd = cdesc(0);
    cd.allocator = ca_allocator(&cb);
    p = NULL;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_OK && p != NULL, "compile with an allocator: %s", rlx_graph_error(g));
    if (p) {
        rlx_graph_destroy(g);
        g = NULL;
        TH_CHECK(ca.allocs == ca.frees, "graph allocator still has %ld live blocks after rlx_graph_destroy "
                 "(program memory went to the graph's allocator)", ca.allocs - ca.frees);
        TH_CHECK(cb.allocs > 0 && cb.allocs > cb.frees, "the compile allocator was not used");
        set_linear(p, x, w, b);
        POK(p, rlx_run(p));
        check_linear(p, x, w, b, "program with its own allocator");
        {
            rlx_program* q = NULL;
            r = rlx_program_clone(p, 1, &q);
            TH_CHECK(r == RLX_OK, "clone = %s", rs(r));
            rlx_program_destroy(p);
            if (q) {
                POK(q, rlx_set_input_f32(q, "input_x", x, 6));
                POK(q, rlx_run(q));
                check_linear(q, x, w, b, "clone of a program with its own allocator");
            }
            rlx_program_destroy(q);
        }
    }
    rlx_graph_destroy(g);
    TH_CHECK(ca.allocs == ca.frees, "graph allocator: %ld allocations, %ld frees", ca.allocs, ca.frees);
    TH_CHECK(cb.allocs == cb.frees, "compile allocator: %ld allocations, %ld frees", cb.allocs, cb.frees);
}

/* Fail the allocator from its k-th allocation on, for every k until a whole build/compile/run/clone goes
   through. Every call must fail cleanly (OUT_OF_MEMORY, or BAD_GRAPH for a compile after a builder ran out),
   and everything allocated must be freed. */
static void test_fault_injection(void) {
    long k, clean_allocs = -1;
    int bad = 0, completed = 0;
    char first_bad[1024] = "";
    for (k = 0; k < 5000 && !completed; k++) {
        counting_alloc ca;
        rlx_graph* g;
        rlx_program *p = NULL, *q = NULL;
        rlx_compile_desc cd = cdesc(0);
        float x[6], w[12], b[4], y[8], want[8];
        rlx_result r = RLX_OK, st;
        int i, ok = 1, stage = 0;
        ca_init(&ca);
        ca.fail_from = k;
        cd.num_threads = 1;
        linear_values(x, w, b, 1.0f);
        g = graph_with(&ca);
        if (g) {
            int64_t xs[2] = {2, 3}, ws[2] = {3, 4}, bs[1] = {4};
            rlx_tensor tx = rlx_input(g, "input_x", RLX_F32, 2, xs);
            rlx_tensor tw = rlx_param(g, "weight_w", RLX_F32, 2, ws);
            rlx_tensor tb = rlx_param(g, "bias_b", RLX_F32, 1, bs);
            rlx_tensor c = rlx_scalar(g, RLX_F32, 0.5);
            rlx_tensor t = rlx_add(g, rlx_matmul(g, tx, tw), tb);
            rlx_output(g, "y", rlx_sub(g, rlx_add(g, t, c), rlx_add(g, c, rlx_mul(g, c, rlx_scalar(g, RLX_F32, 0.0)))));
            st = rlx_graph_status(g);
            if (st != RLX_OK && st != RLX_ERROR_OUT_OF_MEMORY) {
                ok = 0;
                if (!bad++) snprintf(first_bad, sizeof first_bad, "k=%ld: builder status %s", k, rs(st));
            }
            stage = 1;
            r = rlx_compile(g, &cd, &p);
            if (r != RLX_OK) {
                int expected = (st == RLX_OK && r == RLX_ERROR_OUT_OF_MEMORY) ||
                               (st != RLX_OK && r == RLX_ERROR_BAD_GRAPH);
                if (!expected || p != NULL || !nonempty(rlx_graph_error(g))) {
                    ok = 0;
                    if (!bad++)
                        snprintf(first_bad, sizeof first_bad, "k=%ld: compile %s (builder %s), out %p, msg '%s'", k,
                                 rs(r), rs(st), (void*)p, rlx_graph_error(g));
                }
            }
            rlx_graph_destroy(g);
        }
        if (p) {
            rlx_result rr[6];
            stage = 2;
            rr[0] = rlx_set_input_f32(p, "input_x", x, 6);
            rr[1] = rlx_set_param_f32(p, "weight_w", w, 12);
            rr[2] = rlx_set_param_f32(p, "bias_b", b, 4);
            rr[3] = rlx_run(p);
            rr[4] = rlx_get_output_f32(p, "y", y, 8);
            rr[5] = rlx_program_clone(p, 1, &q);
            for (i = 0; i < 6; i++) {
                int allowed = rr[i] == RLX_OK || rr[i] == RLX_ERROR_OUT_OF_MEMORY;
                /* a run after a setter ran out of memory finds a tensor unset; reading after a failed run fails */
                if (i == 3 && (rr[0] != RLX_OK || rr[1] != RLX_OK || rr[2] != RLX_OK)) allowed |= rr[i] == RLX_ERROR_NOT_SET;
                if (i == 4 && rr[3] != RLX_OK) allowed = rr[i] != RLX_OK;
                if (!allowed) {
                    ok = 0;
                    if (!bad++)
                        snprintf(first_bad, sizeof first_bad, "k=%ld: program call %d returned %s: %s", k, i,
                                 rs(rr[i]), rlx_program_error(p));
                }
            }
            if (rr[5] != RLX_OK && q != NULL) {
                ok = 0;
                if (!bad++) snprintf(first_bad, sizeof first_bad, "k=%ld: failed clone left *out set", k);
                q = NULL;
            }
            if (rr[0] == RLX_OK && rr[1] == RLX_OK && rr[2] == RLX_OK && rr[3] == RLX_OK && rr[4] == RLX_OK) {
                linear_ref(x, w, b, want);
                for (i = 0; i < 8; i++)
                    if (!th_close(y[i], want[i], 1e-5, 1e-5)) ok = 0;
                if (!ok && !bad++) snprintf(first_bad, sizeof first_bad, "k=%ld: wrong values after success", k);
                if (rr[5] == RLX_OK && q) {
                    stage = 3;
                    if (rlx_set_input_f32(q, "input_x", x, 6) == RLX_OK && rlx_run(q) == RLX_OK &&
                        rlx_get_output_f32(q, "y", y, 8) == RLX_OK)
                        completed = ca.failures == 0;
                }
            }
            rlx_program_destroy(q);
            rlx_program_destroy(p);
        }
        if (ca.allocs != ca.frees) {
            ok = 0;
            if (!bad++)
                snprintf(first_bad, sizeof first_bad, "k=%ld (stage %d): %ld allocations, %ld frees", k, stage,
                         ca.allocs, ca.frees);
        }
        if (completed) clean_allocs = ca.allocs;
    }
    TH_CHECK(completed, "fault injection never completed a clean run (%ld tries)", k);
    TH_CHECK(bad == 0, "fault injection: %d bad iterations; first: %s", bad, first_bad);
    if (verbose) printf("fault injection: %ld allocation points\n", clean_allocs);
}

/* Valid but enormous tensors: compile (or the first run) must report OUT_OF_MEMORY, not crash. */
static void test_huge(void) {
    counting_alloc ca;
    rlx_graph* g;
    rlx_program* p = NULL;
    rlx_compile_desc cd = cdesc(0);
    /* 4 TiB of f32 on 64-bit targets; on 32-bit the largest tensor there is (1 GiB) */
    int64_t s1[1] = {1}, sbig[1] = {RLX_MAX_ELEMENTS < ((int64_t)1 << 40) ? RLX_MAX_ELEMENTS : (int64_t)1 << 40},
            s62[1] = {(int64_t)1 << 62};
    rlx_result r;
    float one = 1.0f;

    ca_init(&ca);
    ca.max_size = (size_t)1 << 30;
    g = graph_with(&ca);
    rlx_output(g, "y", rlx_neg(g, rlx_expand(g, rlx_input(g, "x", RLX_F32, 1, s1), 1, sbig))); /* 4 TiB */
    TH_CHECK(rlx_graph_status(g) == RLX_OK, "expand to [2^40]: %s", rlx_graph_error(g));
    r = rlx_compile(g, &cd, &p);
    if (r == RLX_OK) {
        POK(p, rlx_set_input_f32(p, "x", &one, 1));
        r = rlx_run(p);
        TH_CHECK(r == RLX_ERROR_OUT_OF_MEMORY, "4 TiB arena: run = %s", rs(r));
    } else {
        TH_CHECK(r == RLX_ERROR_OUT_OF_MEMORY && p == NULL, "4 TiB arena: compile = %s", rs(r));
        TH_CHECK(nonempty(rlx_graph_error(g)), "4 TiB arena: no message");
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    TH_CHECK(ca.allocs == ca.frees, "huge arena: %ld allocations, %ld frees", ca.allocs, ca.frees);

    ca_init(&ca);
    ca.max_size = (size_t)1 << 30;
    g = graph_with(&ca);
    rlx_output(g, "y", rlx_neg(g, rlx_param(g, "w", RLX_F32, 1, sbig))); /* 4 TiB of weights */
    p = NULL;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_ERROR_OUT_OF_MEMORY && p == NULL, "4 TiB of weights: compile = %s", rs(r));
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    TH_CHECK(ca.allocs == ca.frees, "huge weights: %ld allocations, %ld frees", ca.allocs, ca.frees);

    /* 2^62 f32 elements: the count fits int64 but the bytes do not fit size_t */
    ca_init(&ca);
    ca.max_size = (size_t)1 << 30;
    g = graph_with(&ca);
    rlx_output(g, "y", rlx_neg(g, rlx_input(g, "x", RLX_F32, 1, s62)));
    p = NULL;
    if (rlx_graph_status(g) == RLX_OK) {
        r = rlx_compile(g, &cd, &p);
        TH_CHECK((r == RLX_ERROR_OUT_OF_MEMORY || r == RLX_ERROR_SHAPE) && p == NULL,
                 "[2^62] f32 (bytes overflow size_t): compile = %s", rs(r));
    } else {
        TH_CHECK(rlx_graph_status(g) == RLX_ERROR_SHAPE, "[2^62] f32: builder = %s", rs(rlx_graph_status(g)));
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    TH_CHECK(ca.allocs == ca.frees, "2^62: %ld allocations, %ld frees", ca.allocs, ca.frees);
}

/* ------------------------------------------------------------------------------------------------------------
   Dumps and the report
   ------------------------------------------------------------------------------------------------------------ */

typedef size_t (*dump_fn)(const void* obj, char* buf, size_t cap);

static size_t dump_text(const void* g, char* buf, size_t cap) { return rlx_graph_dump((const rlx_graph*)g, buf, cap); }
static size_t dump_dot(const void* g, char* buf, size_t cap) { return rlx_graph_dump_dot((const rlx_graph*)g, buf, cap); }
static size_t dump_report(const void* p, char* buf, size_t cap) {
    return rlx_program_report((const rlx_program*)p, buf, cap);
}

static void check_snprintf_contract(dump_fn fn, const void* obj, const char* what, const char* prefix,
                                    const char* must_contain) {
    size_t n = fn(obj, NULL, 0), n2, caps[4], i;
    char* full;
    char small[8];
    TH_CHECK(n > 0, "%s: (NULL, 0) returned 0", what);
    if (n == 0) return;
    full = (char*)malloc(n + 1 + 16);
    if (!full) return;
    memset(full, 'Z', n + 17);
    n2 = fn(obj, full, n + 1);
    TH_CHECK(n2 == n, "%s: length %d with a buffer, %d without", what, (int)n2, (int)n);
    TH_CHECK(full[n] == '\0' && strlen(full) == n, "%s: text not NUL-terminated at its length", what);
    TH_CHECK(full[n + 1] == 'Z', "%s: wrote past cap", what);
    if (prefix) TH_CHECK(strncmp(full, prefix, strlen(prefix)) == 0, "%s does not start with '%s'", what, prefix);
    if (must_contain) TH_CHECK(contains(full, must_contain), "%s does not mention '%s'", what, must_contain);
    caps[0] = 1;
    caps[1] = 2;
    caps[2] = sizeof small;
    caps[3] = n; /* one short */
    for (i = 0; i < 4; i++) {
        size_t cap = caps[i];
        char* buf = cap <= sizeof small ? small : (char*)malloc(cap + 1);
        if (!buf) continue;
        memset(buf, 'Z', cap <= sizeof small ? sizeof small : cap + 1);
        n2 = fn(obj, buf, cap);
        TH_CHECK(n2 == n, "%s: cap %d returned %d, want %d", what, (int)cap, (int)n2, (int)n);
        TH_CHECK(buf[cap - 1] == '\0' && strlen(buf) == cap - 1 && strncmp(buf, full, cap - 1) == 0,
                 "%s: cap %d does not truncate to a NUL-terminated prefix", what, (int)cap);
        if (cap < sizeof small) TH_CHECK(small[cap] == 'Z', "%s: cap %d wrote past cap", what, (int)cap);
        if (buf != small) free(buf);
    }
    /* cap 0 with a buffer: nothing written */
    memset(small, 'Z', sizeof small);
    n2 = fn(obj, small, 0);
    TH_CHECK(n2 == n && small[0] == 'Z', "%s: cap 0 wrote into the buffer or returned %d", what, (int)n2);
    free(full);
}

static void test_dumps(void) {
    counting_alloc ca;
    rlx_graph* g;
    rlx_program* p;
    ca_init(&ca);
    g = linear_graph(&ca);
    check_snprintf_contract(dump_text, g, "rlx_graph_dump", NULL, "matmul");
    check_snprintf_contract(dump_dot, g, "rlx_graph_dump_dot", "digraph", "->");
    p = compile_ok(g, 0, __LINE__);
    if (p) {
        rlx_plan_info info;
        rlx_buffer_info bi;
        int i, ok = 1;
        check_snprintf_contract(dump_report, p, "rlx_program_report", NULL, NULL);
        POK(p, rlx_program_plan(p, &info));
        TH_CHECK(info.num_steps >= 2 && info.num_buffers >= 5 && info.num_threads >= 1,
                 "plan: %d steps, %d buffers, %d threads", info.num_steps, info.num_buffers, info.num_threads);
        TH_CHECK(info.weight_bytes >= 64, "plan: weight_bytes %d", (int)info.weight_bytes);
        for (i = 0; i < info.num_buffers; i++) {
            if (rlx_program_buffer(p, i, &bi) != RLX_OK || bi.kind <= RLX_BUFFER_INVALID ||
                bi.kind >= RLX_BUFFER_KIND_COUNT || memchr(bi.name, 0, sizeof bi.name) == NULL)
                ok = 0;
        }
        TH_CHECK(ok, "plan buffers: a bad entry");
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    TH_CHECK(ca.allocs == ca.frees, "dumps: %ld allocations, %ld frees", ca.allocs, ca.frees);
}

int main(int argc, char** argv) {
    int fixture_allocs;
    verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    ca_init(&G_alloc);

    test_strings();
    test_null_graph();
    test_sources();
    test_op_dtypes();
    test_op_shapes();
    test_op_axes();
    test_handles();
    test_sticky();
    rlx_graph_destroy(G);
    G = NULL;
    fixture_allocs = G_alloc.allocs > 0;
    TH_CHECK(fixture_allocs, "the fixture graph never used its allocator");
    TH_CHECK(G_alloc.allocs == G_alloc.frees, "builder fixture: %ld allocations, %ld frees", G_alloc.allocs,
             G_alloc.frees);

    test_compile_errors();
    test_devices();
    test_program_errors();
    test_setters();
    test_clone(1);
    test_clone(0);
    test_outputs();
    test_dumps();
    test_huge();
    test_fault_injection();
    return th_summary("api");
}
