/* Fuzzer for the whole public API of rlx.h.

   The input is a small bytecode program of builder calls (tests/fuzz/fuzz_ops.h describes the encoding). Every
   graph it builds is compiled on the CPU (one thread), its params, inputs and states are set with random data
   (and sometimes with wrong sizes, dtypes or names), it is run and its outputs are read. All memory rlx.h takes
   goes through an allocator with a fixed budget, so huge but valid shapes exercise the out-of-memory paths.

   The contract checked after every call: the call succeeds, or it returns a negative rlx_result AND the graph
   or program carries a non-empty message. Anything else aborts with a description (a finding), and so do the
   sanitizers.

   Builds:
     libFuzzer:   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_api.c -lm -lpthread -ldl
     replay:      cc -DRLX_FUZZ_STANDALONE -I. tests/fuzz/fuzz_api.c -lm -lpthread -ldl
                  ./a.out [-v] FILE_OR_DIR...   (-v prints the decoded call sequence)
     as a library of a test program: define RLX_FUZZ_NO_MAIN, then call fz_run_input(data, size). */
#if !defined(RLX_IMPLEMENTATION) && !defined(RLX_TEST_SHARED_IMPL)   /* RLX_TEST_SHARED_IMPL: linked with tests/rlx_impl.c */
#  define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "fuzz_ops.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#  define FZ_UNUSED __attribute__((unused))
#else
#  define FZ_UNUSED
#endif

/* ---- findings and tracing ----------------------------------------------------------------------------------- */

static int fz_trace = 0;

static void fz_tr(const char* fmt, ...) {
    va_list ap;
    if (!fz_trace) return;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void fz_fail(const char* fmt, ...) {
    va_list ap;
    fputs("CONTRACT VIOLATION: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

/* ---- allocator with a budget -------------------------------------------------------------------------------- */

#define FZ_BUDGET ((size_t)64 << 20)
#define FZ_HDR 16

typedef struct fz_heap {
    size_t live, budget, refused;
} fz_heap;

static void* fz_alloc(size_t n, void* user) {
    fz_heap* h = (fz_heap*)user;
    unsigned char* p;
    if (n > h->budget || n > h->budget - h->live) { h->refused++; return NULL; }
    p = (unsigned char*)malloc(n + FZ_HDR);
    if (!p) { h->refused++; return NULL; }
    memcpy(p, &n, sizeof n);
    h->live += n;
    return p + FZ_HDR;
}

static void fz_free(void* ptr, void* user) {
    fz_heap* h = (fz_heap*)user;
    unsigned char* p = (unsigned char*)ptr - FZ_HDR;
    size_t n;
    memcpy(&n, p, sizeof n);
    if (n > h->live) fz_fail("allocator: free of %zu bytes with only %zu live (double free?)", n, h->live);
    h->live -= n;
    free(p);
}

/* ---- input reader ------------------------------------------------------------------------------------------- */

typedef struct fz_in {
    const uint8_t* d;
    size_t n, i;
} fz_in;

static uint8_t rd8(fz_in* r) { return r->i < r->n ? r->d[r->i++] : 0; }
static int fz_more(const fz_in* r) { return r->i < r->n; }

static const int64_t fz_ext64[32] = {
    0, -1, 1, 2, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1,
    INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1, (int64_t)1 << 32,
    (int64_t)1 << 40, (int64_t)1 << 62, (int64_t)1 << 31, (int64_t)1 << 20,
    (int64_t)1 << 16, 65535, 100000, -2,
    (int64_t)(SIZE_MAX / 8 > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(SIZE_MAX / 8)), INT64_MAX / 2, INT64_MAX / 8 + 1, 3037000500LL,
    -((int64_t)1 << 32), 4096, 8192, 1 << 24,
    255, 256, 1023, 1024};

static const int fz_ext32[32] = {
    0, -1, 1, 2, INT_MAX, INT_MIN, INT_MAX - 1, INT_MIN + 1,
    1 << 30, 1 << 16, 65535, 100000, -2, 1 << 20, 46341, 4096,
    8, 9, 16, 64, 255, 256, 1023, 1024,
    -8, -9, -1000, 3, 4, 1 << 24, INT_MAX / 2, INT_MAX / 2 + 1};

static int64_t rd_dim(fz_in* r) {
    uint8_t b = rd8(r);
    if (b < 0xC0) return 1 + (b & 7);
    if (b < 0xE0) return (int64_t)(b - 0xC0) * 16;
    return fz_ext64[b - 0xE0];
}
static int rd_int(fz_in* r) {
    uint8_t b = rd8(r);
    if (b < 0xE0) return (int)b - 16;
    return fz_ext32[b - 0xE0];
}
static int64_t rd_i64(fz_in* r) {
    uint8_t b = rd8(r);
    if (b < 0xE0) return (int64_t)b - 16;
    return fz_ext64[b - 0xE0];
}
static int rd_axis(fz_in* r) {
    uint8_t b = rd8(r);
    if (b < 0xF0) return (int)(b % 20) - 10;
    return fz_ext32[(b - 0xF0) * 2 % 32];
}
static rlx_dtype rd_dtype(fz_in* r) {
    static const int bad[8] = {RLX_DTYPE_COUNT, -1, 0x7FFFFFFF, 100, INT_MIN, RLX_DTYPE_COUNT + 1, 0, 13};
    uint8_t b = rd8(r);
    if (b < 0x80) return RLX_F32;
    if (b < 0xF8) return (rlx_dtype)(b % 12);
    return (rlx_dtype)bad[b - 0xF8];
}
static float rd_float(fz_in* r, float def) {
    static const float tab[16] = {0.0f, 1.0f, -1.0f, 1e-5f, 0.5f, 2.0f, 1e-12f, 1e30f,
                                  -1e30f, FLT_MIN, 1e-45f, FLT_MAX, 30.0f, -0.0f, 0, 0};
    uint8_t b = rd8(r);
    if (b < 0x80) return def;
    if ((b & 15) == 14) return (float)NAN;
    if ((b & 15) == 15) return (b & 16) ? (float)INFINITY : -(float)INFINITY;
    return tab[b & 15];
}
static double rd_double(fz_in* r) {
    static const double tab[16] = {0.0, -0.0, 1e308, -1e308, 9223372036854775807.0, -9223372036854775808.0,
                                   18446744073709551616.0, 4294967296.0, 2147483648.0, -2147483649.0, 1e-310,
                                   65504.0, 65520.0, 3.4e38, 0.5, -0.5};
    uint8_t b = rd8(r);
    if (b < 0xC0) return (double)((int)b - 0x40);
    if (b < 0xD0) return tab[b - 0xC0];
    if (b < 0xD8) return NAN;
    if (b < 0xE0) return (b & 1) ? INFINITY : -INFINITY;
    return (double)fz_ext64[b - 0xE0];
}

/* ---- state of one input ------------------------------------------------------------------------------------- */

#define FZ_MAXT 256
#define FZ_MAXSRC 64

typedef struct fz_src {
    int kind;            /* 0 input, 1 param, 2 state */
    char name[208];      /* long enough for rd_name's longest name: a truncated copy would name another source */
    rlx_tensor t;
} fz_src;

typedef struct fz_ctx {
    fz_in in;
    fz_heap heap;
    rlx_allocator al;
    rlx_graph* g;
    rlx_tensor ts[FZ_MAXT];
    int nt;
    rlx_tensor foreign[2];  /* handles of the previous graph (destroyed: they must be refused) */
    fz_src src[FZ_MAXSRC];
    int nsrc;
    char outs[FZ_MAXSRC][208];
    uint32_t tag;         /* this graph's handle tag (from the first handle it returned; 0 until then) */
    int nouts;
    int name_seq;
    double cost;          /* rough count of the work one run does */
    uint64_t rng;
    char dim_names[4][24];   /* symbolic dims declared by FZ_DIM (the first 4) and their example values */
    int64_t dim_ex[4];
    int ndims;
} fz_ctx;

static uint64_t fz_rand(fz_ctx* c) {
    uint64_t x = c->rng;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    c->rng = x;
    return x;
}

static void fz_push(fz_ctx* c, rlx_tensor t) {
    if (t.id == 0) return;
    if (!c->tag) c->tag = t.graph;
    if (t.graph != c->tag) fz_fail("handle t%u carries tag %u, the graph's handles carry %u", t.id, t.graph, c->tag);
    if (c->nt < FZ_MAXT) c->ts[c->nt++] = t;
}

static rlx_tensor rd_t(fz_ctx* c) {
    rlx_tensor t;
    uint8_t b = rd8(&c->in);
    memset(&t, 0, sizeof t);
    if (b < 0xF0) {
        if (c->nt) t = c->ts[c->nt - 1 - (b % c->nt)];
        return t;
    }
    /* forged ids carry this graph's tag (so the id check itself is exercised); 4 and 5 are whole handles of
       the previous, destroyed graph */
    t.graph = c->tag;
    switch (b & 7) {
    case 0: t.id = 0; break;
    case 1: t.id = 0xFFFFFFFFu; break;
    case 2: t.id = 0x80000000u; break;
    case 3: t.id = (uint32_t)rlx_graph_node_count(c->g) + 1; break;
    case 4: if (c->foreign[0].id) t = c->foreign[0]; else t.id = 1; break;
    case 5: if (c->foreign[1].id) t = c->foreign[1]; else t.id = 2; break;
    case 6: t.id = (uint32_t)rlx_graph_node_count(c->g) + 1000; break;
    default: t.id = 0x7FFFFFFFu; break;
    }
    return t;
}
static rlx_tensor rd_opt(fz_ctx* c) {
    rlx_tensor t;
    uint8_t b = rd8(&c->in);
    memset(&t, 0, sizeof t);
    if (b < 0x20) return t;
    b = (uint8_t)(b - 0x20);
    if (b < 0xD0) {
        if (c->nt) t = c->ts[c->nt - 1 - (b % c->nt)];
        return t;
    }
    c->in.i--;  /* the byte is >= 0xF0: read it again as an invalid handle */
    return rd_t(c);
}

/* rank, shape: returns rank (may be invalid: -1, 9, ...) */
static int rd_shape(fz_ctx* c, int64_t shape[RLX_MAX_RANK]) {
    static const int badrank[16] = {-1, 9, INT_MAX, INT_MIN, 16, -8, 100, 0x10000, 9, 10, -1, 64, 8, 0, 1, 2};
    uint8_t m = rd8(&c->in);
    int rank, i;
    for (i = 0; i < RLX_MAX_RANK; i++) shape[i] = 1;
    if (m < 0x80) {
        rank = m % 9;
        for (i = 0; i < rank; i++) shape[i] = rd_dim(&c->in);
        return rank;
    }
    if (m < 0xF0) {
        rlx_tensor t = rd_t(c);
        uint8_t ch;
        rank = 0;
        if (rlx_tensor_info(c->g, t, &rank, shape) == RLX_DTYPE_INVALID) rank = 0;
        ch = rd8(&c->in);
        if (ch >= 0x80 && rank > 0) shape[ch % rank] = rd_dim(&c->in);
        return rank;
    }
    rank = badrank[m - 0xF0];
    if (rank > 0 && rank <= RLX_MAX_RANK)
        for (i = 0; i < rank; i++) shape[i] = rd_dim(&c->in);
    return rank;
}

static const char* rd_name(fz_ctx* c, char buf[24], int kind_out) {
    static char longname[200];
    uint8_t b = rd8(&c->in);
    if (b < 0xF0) {
        snprintf(buf, 24, "%s%d", kind_out ? "out" : "t", c->name_seq++);
        return buf;
    }
    switch (b & 3) {
    case 0: return NULL;
    case 1: return "";
    case 2:
        if (kind_out) { if (c->nouts) return c->outs[0]; }
        else if (c->nsrc) return c->src[0].name;
        return "dup";
    default:
        memset(longname, 'n', sizeof longname - 1);
        longname[sizeof longname - 1] = 0;
        return longname;
    }
}

/* ---- contract checks ---------------------------------------------------------------------------------------- */

static const char* fz_graph_msg(rlx_graph* g) {
    const char* m = rlx_graph_error(g);
    if (!m) fz_fail("rlx_graph_error returned NULL");
    return m;
}

/* After a builder: a tensor, or {0} with a sticky error and a message. A tensor must be valid. */
static rlx_tensor fz_check_t(fz_ctx* c, const char* what, rlx_tensor t) {
    rlx_result st = rlx_graph_status(c->g);
    if (t.id == 0) {
        if (st >= 0) fz_fail("%s returned no tensor but the graph status is %d", what, (int)st);
        if (!fz_graph_msg(c->g)[0]) fz_fail("%s failed (%d) with an empty message", what, (int)st);
        fz_tr("    -> error %d: %s", (int)st, rlx_graph_error(c->g));
        return t;
    }
    if (st != RLX_OK) fz_fail("%s returned tensor %u although the graph has error %d", what, t.id, (int)st);
    {
        int rank = -1, i;
        int64_t shape[RLX_MAX_RANK];
        uint64_t n = 1;
        rlx_dtype dt = rlx_tensor_info(c->g, t, &rank, shape);
        if (t.id > (uint32_t)rlx_graph_node_count(c->g)) fz_fail("%s returned id %u > node count", what, t.id);
        if (dt <= RLX_DTYPE_INVALID || dt >= RLX_DTYPE_COUNT) fz_fail("%s: result has dtype %d", what, (int)dt);
        if (rank < 0 || rank > RLX_MAX_RANK) fz_fail("%s: result has rank %d", what, rank);
        for (i = 0; i < rank; i++) {
            if (shape[i] < 1) fz_fail("%s: result dim %d is %lld", what, i, (long long)shape[i]);
            if ((uint64_t)shape[i] > (uint64_t)(SIZE_MAX / 8) / n)
                fz_fail("%s: result element count overflows (dim %d = %lld)", what, i, (long long)shape[i]);
            n *= (uint64_t)shape[i];
        }
        if (fz_trace) {
            char s[200];
            size_t o = 0;
            s[0] = 0;
            for (i = 0; i < rank && o < sizeof s - 24; i++)
                o += (size_t)snprintf(s + o, sizeof s - o, i ? ",%lld" : "%lld", (long long)shape[i]);
            fz_tr("    -> t%u %s[%s]", t.id, rlx_dtype_name(dt), s);
        }
    }
    fz_push(c, t);
    return t;
}

static void fz_check_r(fz_ctx* c, const char* what, rlx_result r) {
    if (r == RLX_OK) { fz_tr("    -> ok"); return; }
    if (r > 0) fz_fail("%s returned positive result %d", what, (int)r);
    if (!fz_graph_msg(c->g)[0]) fz_fail("%s failed (%d) with an empty message", what, (int)r);
    fz_tr("    -> error %d: %s", (int)r, rlx_graph_error(c->g));
}

static void fz_check_p(rlx_program* p, const char* what, rlx_result r) {
    const char* m;
    if (r == RLX_OK) { fz_tr("    %s -> ok", what); return; }
    if (r > 0) fz_fail("%s returned positive result %d", what, (int)r);
    m = rlx_program_error(p);
    if (!m || !m[0]) fz_fail("%s failed (%d: %s) with an empty program message", what, (int)r, rlx_result_string(r));
    fz_tr("    %s -> error %d: %s", what, (int)r, m);
}

static void fz_check_str(const char* what, const char* s) {
    if (!s) fz_fail("%s returned NULL", what);
    (void)strlen(s);
}

static int64_t fz_numel(fz_ctx* c, rlx_tensor t) {
    int rank = 0, i;
    int64_t shape[RLX_MAX_RANK], n = 1;
    if (rlx_tensor_info(c->g, t, &rank, shape) == RLX_DTYPE_INVALID) return 0;
    for (i = 0; i < rank; i++) n *= shape[i];
    return n;
}
static int64_t fz_dim(fz_ctx* c, rlx_tensor t, int k) {  /* dim k from the end (k >= 1) */
    int rank = 0;
    int64_t shape[RLX_MAX_RANK];
    if (rlx_tensor_info(c->g, t, &rank, shape) == RLX_DTYPE_INVALID || rank < k) return 1;
    return shape[rank - k];
}
/* adds a node's work to the estimate used to skip runs that would take too long */
static void fz_cost(fz_ctx* c, rlx_tensor out, double per_elem) {
    if (out.id) c->cost += (double)fz_numel(c, out) * (per_elem < 1 ? 1 : per_elem);
}

/* ---- data --------------------------------------------------------------------------------------------------- */

/* Random non-zero elements of dtype; mode 1 mixes in extreme values (for indices, offsets, counters). */
static void fz_fill(fz_ctx* c, void* buf, rlx_dtype dt, size_t n, int mode) {
    size_t i;
    int64_t be = 1;
    if (rlx_dtype_block(dt, &be, NULL) == RLX_OK && be > 1) {   /* block dtypes: n random bytes */
        for (i = 0; i < n; i++) ((uint8_t*)buf)[i] = (uint8_t)fz_rand(c);
        return;
    }
    for (i = 0; i < n; i++) {
        uint64_t r = fz_rand(c);
        int ext = mode && (r & 7) == 0;
        double v = (double)(int)((r >> 8) % 15) - 7.0;
        if (v == 0) v = 1;
        if (dt == RLX_F32 || dt == RLX_F64 || dt == RLX_F16 || dt == RLX_BF16) {
            double f = v * 0.25;
            if (ext) f = (r >> 16) & 1 ? 1e30 : -(double)NAN;
            if (dt == RLX_F32) ((float*)buf)[i] = (float)f;
            else if (dt == RLX_F64) ((double*)buf)[i] = f;
            else {
                float ff = (float)f;
                uint32_t u;
                memcpy(&u, &ff, 4);
                if (dt == RLX_BF16) ((uint16_t*)buf)[i] = (uint16_t)(u >> 16);
                else ((uint16_t*)buf)[i] = (uint16_t)(0x3400u | ((r >> 20) & 0x3FFu) | ((r >> 40) & 1u) << 15);
            }
        } else {
            int64_t x = (int64_t)v;
            if (ext) x = fz_ext64[(r >> 16) % 32];
            switch (dt) {
            case RLX_I8: ((int8_t*)buf)[i] = (int8_t)x; break;
            case RLX_I16: ((int16_t*)buf)[i] = (int16_t)x; break;
            case RLX_I32: ((int32_t*)buf)[i] = (int32_t)x; break;
            case RLX_I64: ((int64_t*)buf)[i] = x; break;
            case RLX_U8: ((uint8_t*)buf)[i] = (uint8_t)x; break;
            case RLX_U32: ((uint32_t*)buf)[i] = (uint32_t)x; break;
            case RLX_BOOL: ((uint8_t*)buf)[i] = (uint8_t)(x & 1); break;
            default: break;
            }
        }
    }
}

/* Bytes of n elements of dt (block dtypes: whole blocks, rounded up; 0 for an invalid dtype), and the count
   fz_fill takes for a buffer of `bytes` (elements, or bytes for a block dtype). */
static uint64_t fz_nbytes(rlx_dtype dt, uint64_t n) {
    int64_t be = 1;
    size_t bb = 0;
    if (rlx_dtype_block(dt, &be, &bb) != RLX_OK) return 0;
    return (n + (uint64_t)be - 1) / (uint64_t)be * bb;
}
static size_t fz_elems(rlx_dtype dt, size_t bytes) { return rlx_dtype_size(dt) ? bytes / rlx_dtype_size(dt) : bytes; }

/* host buffers are limited so that the fuzzer itself stays inside its memory limit */
#define FZ_HOST_MAX ((size_t)16 << 20)

static int fz_dtype_ok(rlx_dtype dt) { return dt > RLX_DTYPE_INVALID && dt < RLX_DTYPE_COUNT; }

/* ---- builder instructions ----------------------------------------------------------------------------------- */

typedef rlx_tensor (*fz_un_fn)(rlx_graph*, rlx_tensor);
typedef rlx_tensor (*fz_bin_fn)(rlx_graph*, rlx_tensor, rlx_tensor);
typedef rlx_tensor (*fz_red_fn)(rlx_graph*, rlx_tensor, int, const int*, int);

static const fz_un_fn fz_unary_fns[20] = {rlx_neg, rlx_abs, rlx_exp, rlx_log, rlx_sqrt, rlx_rsqrt, rlx_sin,
                                          rlx_cos, rlx_tan, rlx_atan, rlx_tanh, rlx_sigmoid, rlx_relu, rlx_gelu,
                                          rlx_gelu_tanh, rlx_silu, rlx_erf, rlx_round, rlx_floor, rlx_ceil};
static const char* const fz_unary_names[20] = {"neg", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tan",
                                               "atan", "tanh", "sigmoid", "relu", "gelu", "gelu_tanh", "silu",
                                               "erf", "round", "floor", "ceil"};
static const fz_bin_fn fz_binary_fns[14] = {rlx_add, rlx_sub, rlx_mul, rlx_div, rlx_pow, rlx_max, rlx_min,
                                            rlx_eq, rlx_ne, rlx_lt, rlx_le, rlx_gt, rlx_ge, NULL};
static const char* const fz_binary_names[14] = {"add", "sub", "mul", "div", "pow", "max", "min",
                                                "eq", "ne", "lt", "le", "gt", "ge", "where(self)"};
static const fz_red_fn fz_reduce_fns[5] = {rlx_reduce_sum, rlx_reduce_mean, rlx_reduce_max, rlx_reduce_min,
                                           rlx_reduce_prod};

static rlx_op rd_op(fz_in* r) {
    uint8_t b = rd8(r);
    if (b < 0xF0) return (rlx_op)(b % (RLX_OP_COUNT + 1));
    return (rlx_op)fz_ext32[b - 0xF0];
}

static void fz_add_src(fz_ctx* c, int kind, const char* name, rlx_tensor t) {
    if (!t.id || !name || c->nsrc >= FZ_MAXSRC) return;
    c->src[c->nsrc].kind = kind;
    snprintf(c->src[c->nsrc].name, sizeof c->src[c->nsrc].name, "%s", name);
    c->src[c->nsrc].t = t;
    c->nsrc++;
}

static void fz_shape_str(char* s, size_t cap, int rank, const int64_t* shape) {
    size_t o = 0;
    int i;
    s[0] = 0;
    if (rank < 0 || rank > RLX_MAX_RANK) { snprintf(s, cap, "rank %d", rank); return; }
    o += (size_t)snprintf(s + o, cap - o, "[");
    for (i = 0; i < rank && o < cap - 24; i++) o += (size_t)snprintf(s + o, cap - o, i ? ",%lld" : "%lld", (long long)shape[i]);
    snprintf(s + o, cap - o, "]");
}

static void fz_builder(fz_ctx* c, int op) {
    fz_in* in = &c->in;
    rlx_graph* g = c->g;
    char nb[24], ss[256];
    int64_t shape[RLX_MAX_RANK];
    switch (op) {
    case FZ_INPUT: case FZ_PARAM: case FZ_STATE: {
        const char* name = rd_name(c, nb, 0);
        rlx_dtype dt = rd_dtype(in);
        int rank = rd_shape(c, shape);
        rlx_tensor t;
        const char* fn = op == FZ_INPUT ? "rlx_input" : op == FZ_PARAM ? "rlx_param" : "rlx_state";
        fz_shape_str(ss, sizeof ss, rank, shape);
        fz_tr("%s(\"%.20s\", %s(%d), %s)", fn, name ? name : "(null)", rlx_dtype_name(dt), (int)dt, ss);
        t = op == FZ_INPUT ? rlx_input(g, name, dt, rank, shape)
          : op == FZ_PARAM ? rlx_param(g, name, dt, rank, shape) : rlx_state(g, name, dt, rank, shape);
        t = fz_check_t(c, fn, t);
        fz_add_src(c, op == FZ_INPUT ? 0 : op == FZ_PARAM ? 1 : 2, name, t);
        break;
    }
    case FZ_CONSTANT: {
        rlx_dtype dt = rd_dtype(in);
        int rank = rd_shape(c, shape), i, ok = rank >= 0 && rank <= RLX_MAX_RANK;
        uint64_t n = 1;
        size_t es = (size_t)fz_nbytes(dt, 1);   /* bytes per element; a block dtype: those of a whole block */
        void* data = NULL;
        int mode = rd8(in) & 1;
        for (i = 0; ok && i < rank; i++) {
            if (shape[i] < 1 || (uint64_t)shape[i] > (FZ_HOST_MAX + 1) / n) { ok = 0; break; }
            n *= (uint64_t)shape[i];
        }
        if (ok && es && n * es <= FZ_HOST_MAX) {
            data = malloc(n * es > 0 ? n * es : 1);
            if (data) fz_fill(c, data, dt, rlx_dtype_size(dt) ? (size_t)n : (size_t)(n * es), mode);
        } else if (ok && !es) {
            data = malloc(64);
            if (data) memset(data, 1, 64);
        }
        fz_shape_str(ss, sizeof ss, rank, shape);
        fz_tr("rlx_constant(%s(%d), %s, data=%s)", rlx_dtype_name(dt), (int)dt, ss, data ? "random" : "NULL");
        fz_check_t(c, "rlx_constant", rlx_constant(g, dt, rank, shape, data));
        free(data);
        break;
    }
    case FZ_SCALAR: {
        rlx_dtype dt = rd_dtype(in);
        double v = rd_double(in);
        fz_tr("rlx_scalar(%s(%d), %g)", rlx_dtype_name(dt), (int)dt, v);
        fz_check_t(c, "rlx_scalar", rlx_scalar(g, dt, v));
        break;
    }
    case FZ_OUTPUT: {
        const char* name = rd_name(c, nb, 1);
        rlx_tensor t = rd_t(c);
        rlx_result r;
        fz_tr("rlx_output(\"%.20s\", t%u)", name ? name : "(null)", t.id);
        r = rlx_output(g, name, t);
        fz_check_r(c, "rlx_output", r);
        if (r == RLX_OK) {
            if (!name) fz_fail("rlx_output accepted a NULL name");
            if (c->nouts < FZ_MAXSRC) snprintf(c->outs[c->nouts++], sizeof c->outs[0], "%s", name);
        }
        break;
    }
    case FZ_UNARY: {
        rlx_op o = rd_op(in);
        rlx_tensor x = rd_t(c);
        fz_tr("rlx_unary(op %d, t%u)", (int)o, x.id);
        fz_cost(c, fz_check_t(c, "rlx_unary", rlx_unary(g, o, x)), 4);
        break;
    }
    case FZ_UNARY_FN: {
        int k = rd8(in) % 20;
        rlx_tensor x = rd_t(c);
        fz_tr("rlx_%s(t%u)", fz_unary_names[k], x.id);
        fz_cost(c, fz_check_t(c, fz_unary_names[k], fz_unary_fns[k](g, x)), 4);
        break;
    }
    case FZ_BINARY: {
        rlx_op o = rd_op(in);
        rlx_tensor a = rd_t(c), b = rd_t(c);
        fz_tr("rlx_binary(op %d, t%u, t%u)", (int)o, a.id, b.id);
        fz_cost(c, fz_check_t(c, "rlx_binary", rlx_binary(g, o, a, b)), 2);
        break;
    }
    case FZ_BINARY_FN: {
        int k = rd8(in) % 14;
        rlx_tensor a = rd_t(c), b = rd_t(c);
        fz_tr("rlx_%s(t%u, t%u)", fz_binary_names[k], a.id, b.id);
        if (fz_binary_fns[k]) fz_cost(c, fz_check_t(c, fz_binary_names[k], fz_binary_fns[k](g, a, b)), 2);
        else fz_cost(c, fz_check_t(c, "rlx_where", rlx_where(g, a, b, b)), 2);
        break;
    }
    case FZ_WHERE: {
        rlx_tensor a = rd_t(c), b = rd_t(c), d = rd_t(c);
        fz_tr("rlx_where(t%u, t%u, t%u)", a.id, b.id, d.id);
        fz_cost(c, fz_check_t(c, "rlx_where", rlx_where(g, a, b, d)), 2);
        break;
    }
    case FZ_CAST: {
        rlx_tensor x = rd_t(c);
        rlx_dtype dt = rd_dtype(in);
        fz_tr("rlx_cast(t%u, %s(%d))", x.id, rlx_dtype_name(dt), (int)dt);
        fz_cost(c, fz_check_t(c, "rlx_cast", rlx_cast(g, x, dt)), 1);
        break;
    }
    case FZ_MATMUL: {
        rlx_tensor a = rd_t(c), b = rd_t(c);
        fz_tr("rlx_matmul(t%u, t%u)", a.id, b.id);
        fz_cost(c, fz_check_t(c, "rlx_matmul", rlx_matmul(g, a, b)), (double)fz_dim(c, a, 1));
        break;
    }
    case FZ_MATMUL_INTEGER: {
        rlx_tensor a = rd_t(c), b = rd_t(c), za = rd_opt(c), zb = rd_opt(c);
        fz_tr("rlx_matmul_integer(t%u, t%u, za t%u, zb t%u)", a.id, b.id, za.id, zb.id);
        fz_cost(c, fz_check_t(c, "rlx_matmul_integer", rlx_matmul_integer(g, a, b, za, zb)), (double)fz_dim(c, a, 1));
        break;
    }
    case FZ_REDUCE: case FZ_REDUCE_FN: {
        rlx_op o = RLX_OP_SUM;
        int k = 0, naxes, axes[16], i, keep;
        uint8_t nb8;
        rlx_tensor x, t;
        if (op == FZ_REDUCE) o = rd_op(in);
        else k = rd8(in) % 5;
        x = rd_t(c);
        nb8 = rd8(in);
        naxes = nb8 < 0xF0 ? nb8 % 10 : (nb8 & 1 ? -1 : (nb8 & 2 ? 16 : INT_MIN));
        for (i = 0; i < 16; i++) axes[i] = i < naxes ? rd_axis(in) : 0;
        keep = rd8(in) & 1;
        fz_tr("rlx_reduce%s(op %d/%d, t%u, naxes %d, axes {%d,%d,%d,..}, keep %d)", op == FZ_REDUCE ? "" : "_fn",
              (int)o, k, x.id, naxes, axes[0], axes[1], axes[2], keep);
        t = op == FZ_REDUCE ? rlx_reduce(g, o, x, naxes, (nb8 == 0xEF) ? NULL : axes, keep)
                            : fz_reduce_fns[k](g, x, naxes, axes, keep);
        t = fz_check_t(c, "rlx_reduce", t);
        if (t.id) c->cost += (double)fz_numel(c, x) * 2;
        break;
    }
    case FZ_ARG: {
        int which = rd8(in) & 1;
        rlx_tensor x = rd_t(c);
        int axis = rd_axis(in), keep = rd8(in) & 1;
        fz_tr("rlx_arg%s(t%u, axis %d, keep %d)", which ? "min" : "max", x.id, axis, keep);
        if (fz_check_t(c, "rlx_argmax", which ? rlx_argmin(g, x, axis, keep) : rlx_argmax(g, x, axis, keep)).id)
            c->cost += (double)fz_numel(c, x);
        break;
    }
    case FZ_SOFTMAX: {
        int which = rd8(in) & 1;
        rlx_tensor x = rd_t(c);
        int axis = rd_axis(in);
        fz_tr("rlx_%ssoftmax(t%u, axis %d)", which ? "log_" : "", x.id, axis);
        fz_cost(c, fz_check_t(c, "rlx_softmax", which ? rlx_log_softmax(g, x, axis) : rlx_softmax(g, x, axis)), 8);
        break;
    }
    case FZ_LAYERNORM: {
        rlx_tensor x = rd_t(c), ga = rd_opt(c), be = rd_opt(c);
        int axis = rd_axis(in);
        float eps = rd_float(in, 1e-5f);
        fz_tr("rlx_layernorm(t%u, gamma t%u, beta t%u, axis %d, eps %g)", x.id, ga.id, be.id, axis, (double)eps);
        fz_cost(c, fz_check_t(c, "rlx_layernorm", rlx_layernorm(g, x, ga, be, axis, eps)), 8);
        break;
    }
    case FZ_RMSNORM: {
        rlx_tensor x = rd_t(c), ga = rd_opt(c), be = rd_opt(c);
        float eps = rd_float(in, 1e-5f);
        fz_tr("rlx_rmsnorm(t%u, gamma t%u, beta t%u, eps %g)", x.id, ga.id, be.id, (double)eps);
        fz_cost(c, fz_check_t(c, "rlx_rmsnorm", rlx_rmsnorm(g, x, ga, be, eps)), 8);
        break;
    }
    case FZ_RESHAPE: case FZ_EXPAND: {
        rlx_tensor x = rd_t(c);
        int rank = rd_shape(c, shape);
        fz_shape_str(ss, sizeof ss, rank, shape);
        fz_tr("rlx_%s(t%u, %s)", op == FZ_RESHAPE ? "reshape" : "expand", x.id, ss);
        if (op == FZ_RESHAPE) fz_check_t(c, "rlx_reshape", rlx_reshape(g, x, rank, shape));
        else fz_cost(c, fz_check_t(c, "rlx_expand", rlx_expand(g, x, rank, shape)), 1);
        break;
    }
    case FZ_TRANSPOSE: {
        rlx_tensor x = rd_t(c);
        uint8_t mode = rd8(in);
        int perm[RLX_MAX_RANK], rank = 0, i;
        if (rlx_tensor_info(g, x, &rank, NULL) == RLX_DTYPE_INVALID) rank = RLX_MAX_RANK;
        for (i = 0; i < RLX_MAX_RANK; i++) perm[i] = i;
        for (i = rank - 1; i > 0; i--) {
            int j = rd8(in) % (i + 1), tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
        }
        if (mode >= 0xC0 && rank > 0) perm[mode % rank] = rd_axis(in);
        fz_tr("rlx_transpose(t%u, %s{%d,%d,%d,%d,..})", x.id, mode < 0x20 ? "NULL " : "", perm[0], perm[1], perm[2], perm[3]);
        fz_cost(c, fz_check_t(c, "rlx_transpose", rlx_transpose(g, x, mode < 0x20 ? NULL : perm)), 1);
        break;
    }
    case FZ_SLICE: case FZ_NARROW: {
        rlx_tensor x = rd_t(c);
        int axis = rd_axis(in);
        int64_t start = rd_i64(in), len = rd_i64(in), step = op == FZ_SLICE ? rd_i64(in) : 1;
        fz_tr("rlx_%s(t%u, axis %d, start %lld, length %lld, step %lld)", op == FZ_SLICE ? "slice" : "narrow", x.id,
              axis, (long long)start, (long long)len, (long long)step);
        if (op == FZ_SLICE) fz_cost(c, fz_check_t(c, "rlx_slice", rlx_slice(g, x, axis, start, len, step)), 1);
        else fz_cost(c, fz_check_t(c, "rlx_narrow", rlx_narrow(g, x, axis, start, len)), 1);
        break;
    }
    case FZ_CONCAT: {
        rlx_tensor xs[16];
        uint8_t nb8 = rd8(in);
        int n = nb8 < 0xF0 ? 1 + nb8 % 4 : (nb8 & 1 ? 0 : (nb8 & 2 ? -1 : 16)), i, axis, nullxs = nb8 == 0xEF;
        for (i = 0; i < 16; i++) xs[i] = i < n ? rd_t(c) : xs[0];
        axis = rd_axis(in);
        fz_tr("rlx_concat(%d: t%u t%u t%u t%u, axis %d%s)", n, xs[0].id, xs[1].id, xs[2].id, xs[3].id, axis,
              nullxs ? ", xs NULL" : "");
        fz_cost(c, fz_check_t(c, "rlx_concat", rlx_concat(g, n, nullxs ? NULL : xs, axis)), 1);
        break;
    }
    case FZ_GATHER: {
        rlx_tensor x = rd_t(c), idx = rd_t(c);
        int axis = rd_axis(in);
        fz_tr("rlx_gather(t%u, t%u, axis %d)", x.id, idx.id, axis);
        fz_cost(c, fz_check_t(c, "rlx_gather", rlx_gather(g, x, idx, axis)), 1);
        break;
    }
    case FZ_SCATTER: {
        rlx_tensor x = rd_t(c), idx = rd_t(c), up = rd_t(c);
        int axis = rd_axis(in);
        uint8_t rb = rd8(in);
        rlx_scatter_reduction red = (rlx_scatter_reduction)(rb < 0xF0 ? rb % 5 : fz_ext32[rb - 0xF0]);
        fz_tr("rlx_scatter(t%u, t%u, t%u, axis %d, reduction %d)", x.id, idx.id, up.id, axis, (int)red);
        fz_cost(c, fz_check_t(c, "rlx_scatter", rlx_scatter(g, x, idx, up, axis, red)), 1);
        break;
    }
    case FZ_ATTENTION: {
        rlx_tensor q = rd_t(c), k = rd_t(c), v = rd_t(c), t;
        rlx_attention_desc d;
        int nodesc = rd8(in) >= 0xF8;
        uint8_t lb;
        memset(&d, 0, sizeof d);
        lb = rd8(in);
        d.layout = (rlx_layout)(lb < 0xF0 ? lb % 2 : fz_ext32[lb - 0xF0]);
        d.num_heads = rd_int(in);
        d.num_kv_heads = rd_int(in);
        d.causal = rd8(in) & 1;
        d.window = rd_int(in);
        d.keep_mask = rd_opt(c);
        d.bias = rd_opt(c);
        d.kv_len = rd_opt(c);
        d.scale = rd_float(in, 0.0f);
        d.softcap = rd_float(in, 0.0f);
        fz_tr("rlx_attention(t%u, t%u, t%u, %s layout %d heads %d kv_heads %d causal %d window %d mask t%u bias t%u "
              "kv_len t%u scale %g softcap %g)", q.id, k.id, v.id, nodesc ? "desc NULL" : "", (int)d.layout,
              d.num_heads, d.num_kv_heads, d.causal, d.window, d.keep_mask.id, d.bias.id, d.kv_len.id,
              (double)d.scale, (double)d.softcap);
        t = fz_check_t(c, "rlx_attention", rlx_attention(g, q, k, v, nodesc ? NULL : &d));
        if (t.id) c->cost += (double)fz_numel(c, q) * (double)fz_numel(c, k) * 2;
        break;
    }
    case FZ_ROPE: {
        rlx_tensor x = rd_t(c), cs = rd_t(c), sn = rd_t(c);
        rlx_rope_desc d;
        int nodesc = rd8(in) >= 0xF8;
        uint8_t b;
        memset(&d, 0, sizeof d);
        b = rd8(in);
        d.kind = (rlx_rope_kind)(b < 0xF0 ? b % 2 : fz_ext32[b - 0xF0]);
        b = rd8(in);
        d.layout = (rlx_layout)(b < 0xF0 ? b % 2 : fz_ext32[b - 0xF0]);
        d.num_heads = rd_int(in);
        d.n_rot = rd_int(in);
        d.positions = rd_opt(c);
        d.position_offset = rd_i64(in);
        fz_tr("rlx_rope(t%u, cos t%u, sin t%u, %s kind %d layout %d heads %d n_rot %d positions t%u offset %lld)",
              x.id, cs.id, sn.id, nodesc ? "desc NULL" : "", (int)d.kind, (int)d.layout, d.num_heads, d.n_rot,
              d.positions.id, (long long)d.position_offset);
        fz_cost(c, fz_check_t(c, "rlx_rope", rlx_rope(g, x, cs, sn, nodesc ? NULL : &d)), 4);
        break;
    }
    case FZ_ROPE_TABLES: {
        int max_pos = rd_int(in), n_rot = rd_int(in);
        double theta = rd_double(in);
        float *co = NULL, *si = NULL;
        rlx_result r;
        int64_t n = (int64_t)max_pos * (n_rot / 2);
        if (max_pos > 0 && n_rot > 0 && n > 0 && n <= (1 << 20)) {
            co = (float*)malloc((size_t)n * sizeof(float));
            si = (float*)malloc((size_t)n * sizeof(float));
        } else if (n <= 0) {
            co = (float*)malloc(64);
            si = (float*)malloc(64);
        }
        fz_tr("rlx_rope_tables(%s, max_pos %d, n_rot %d, theta %g)", co ? "buffers" : "NULL", max_pos, n_rot, theta);
        r = rlx_rope_tables(co, si, max_pos, n_rot, theta);
        if (r > 0) fz_fail("rlx_rope_tables returned %d", (int)r);
        if (r == RLX_OK && !co) fz_fail("rlx_rope_tables accepted NULL tables");
        fz_tr("    -> %d", (int)r);
        free(co);
        free(si);
        break;
    }
    case FZ_CUMSUM: {
        rlx_tensor x = rd_t(c);
        int axis = rd_axis(in), ex = rd8(in) & 1, rev = rd8(in) & 1;
        fz_tr("rlx_cumsum(t%u, axis %d, exclusive %d, reverse %d)", x.id, axis, ex, rev);
        fz_cost(c, fz_check_t(c, "rlx_cumsum", rlx_cumsum(g, x, axis, ex, rev)), 1);
        break;
    }
    case FZ_TOPK: {
        rlx_tensor x = rd_t(c), vals, idx;
        int k = rd_int(in), axis = rd_axis(in), largest = rd8(in) & 1, outs = rd8(in) % 4;
        rlx_result r;
        vals.id = idx.id = 12345;
        vals.graph = idx.graph = 0;
        fz_tr("rlx_topk(t%u, k %d, axis %d, largest %d, outs %d)", x.id, k, axis, largest, outs);
        r = rlx_topk(g, x, k, axis, largest, outs & 1 ? &vals : NULL, outs & 2 ? &idx : NULL);
        fz_check_r(c, "rlx_topk", r);
        if (r == RLX_OK) {
            if (outs & 1) fz_cost(c, fz_check_t(c, "rlx_topk values", vals), 16);
            if (outs & 2) fz_cost(c, fz_check_t(c, "rlx_topk indices", idx), 16);
            c->cost += (double)fz_numel(c, x) * 4;
        } else if (((outs & 1) && vals.id) || ((outs & 2) && idx.id)) {
            fz_fail("rlx_topk failed but left a tensor handle set");
        }
        break;
    }
    case FZ_SAMPLE: {
        rlx_tensor l = rd_t(c), ctr = rd_t(c), t;
        rlx_sample_desc d;
        int nodesc = rd8(in) >= 0xF8;
        memset(&d, 0, sizeof d);
        d.temperature = rd_float(in, 1.0f);
        d.top_k = rd_int(in);
        d.top_p = rd_float(in, 0.9f);
        d.seed = (uint64_t)rd_i64(in);
        fz_tr("rlx_sample(t%u, counter t%u, %s temperature %g top_k %d top_p %g seed %llu)", l.id, ctr.id,
              nodesc ? "desc NULL" : "", (double)d.temperature, d.top_k, (double)d.top_p, (unsigned long long)d.seed);
        t = fz_check_t(c, "rlx_sample", rlx_sample(g, l, ctr, nodesc ? NULL : &d));
        if (t.id) c->cost += (double)fz_numel(c, l) * 32;
        break;
    }
    case FZ_UNIFORM: {
        uint64_t seed = (uint64_t)rd_i64(in);
        int64_t ctr = rd_i64(in), row = rd_i64(in);
        float u = rlx_uniform(seed, ctr, row);
        fz_tr("rlx_uniform(%llu, %lld, %lld) = %g", (unsigned long long)seed, (long long)ctr, (long long)row, (double)u);
        if (!(u >= 0.0f && u < 1.0f)) fz_fail("rlx_uniform returned %g outside [0, 1)", (double)u);
        break;
    }
    case FZ_CONV: case FZ_CONV_TRANSPOSE: {
        rlx_tensor x = rd_t(c), w = rd_t(c), bias = rd_opt(c), t;
        rlx_conv_desc d;
        int nodesc = rd8(in) >= 0xF8, i;
        memset(&d, 0, sizeof d);
        for (i = 0; i < 2; i++) d.stride[i] = rd_int(in);
        for (i = 0; i < 2; i++) d.dilation[i] = rd_int(in);
        for (i = 0; i < 2; i++) d.pad_begin[i] = rd_int(in);
        for (i = 0; i < 2; i++) d.pad_end[i] = rd_int(in);
        for (i = 0; i < 2; i++) d.output_padding[i] = rd_int(in);
        d.groups = rd_int(in);
        fz_tr("rlx_conv%s(t%u, w t%u, bias t%u, %s stride {%d,%d} dilation {%d,%d} pad_begin {%d,%d} pad_end {%d,%d} "
              "output_padding {%d,%d} groups %d)", op == FZ_CONV ? "" : "_transpose", x.id, w.id, bias.id,
              nodesc ? "desc NULL" : "", d.stride[0], d.stride[1], d.dilation[0], d.dilation[1], d.pad_begin[0],
              d.pad_begin[1], d.pad_end[0], d.pad_end[1], d.output_padding[0], d.output_padding[1], d.groups);
        t = op == FZ_CONV ? rlx_conv(g, x, w, bias, nodesc ? NULL : &d)
                          : rlx_conv_transpose(g, x, w, bias, nodesc ? NULL : &d);
        t = fz_check_t(c, op == FZ_CONV ? "rlx_conv" : "rlx_conv_transpose", t);
        if (t.id) c->cost += ((double)fz_numel(c, t) + (double)fz_numel(c, x)) * (double)fz_numel(c, w);
        break;
    }
    case FZ_POOL: {
        rlx_tensor x = rd_t(c), t;
        rlx_pool_desc d;
        int nodesc = rd8(in) >= 0xF8, i;
        uint8_t kb;
        memset(&d, 0, sizeof d);
        kb = rd8(in);
        d.kind = (rlx_pool_kind)(kb < 0xF0 ? 1 + kb % 2 : fz_ext32[kb - 0xF0]);
        for (i = 0; i < 2; i++) d.kernel[i] = rd_int(in);
        for (i = 0; i < 2; i++) d.stride[i] = rd_int(in);
        for (i = 0; i < 2; i++) d.pad_begin[i] = rd_int(in);
        for (i = 0; i < 2; i++) d.pad_end[i] = rd_int(in);
        d.count_include_pad = rd8(in) & 1;
        d.global = (rd8(in) & 7) == 7;
        fz_tr("rlx_pool(t%u, %s kind %d kernel {%d,%d} stride {%d,%d} pad_begin {%d,%d} pad_end {%d,%d} cip %d global %d)",
              x.id, nodesc ? "desc NULL" : "", (int)d.kind, d.kernel[0], d.kernel[1], d.stride[0], d.stride[1],
              d.pad_begin[0], d.pad_begin[1], d.pad_end[0], d.pad_end[1], d.count_include_pad, d.global);
        t = fz_check_t(c, "rlx_pool", rlx_pool(g, x, nodesc ? NULL : &d));
        if (t.id) {
            double k = d.global ? (double)fz_numel(c, x) : (double)(d.kernel[0] > 0 ? d.kernel[0] : 1) *
                                                                   (double)(d.kernel[1] > 0 ? d.kernel[1] : 1);
            c->cost += (double)fz_numel(c, t) * k + (double)fz_numel(c, x);
        }
        break;
    }
    case FZ_GROUP_NORM: {
        rlx_tensor x = rd_t(c);
        int groups = rd_int(in);
        rlx_tensor ga = rd_opt(c), be = rd_opt(c);
        float eps = rd_float(in, 1e-5f);
        fz_tr("rlx_group_norm(t%u, groups %d, gamma t%u, beta t%u, eps %g)", x.id, groups, ga.id, be.id, (double)eps);
        fz_cost(c, fz_check_t(c, "rlx_group_norm", rlx_group_norm(g, x, groups, ga, be, eps)), 8);
        break;
    }
    case FZ_RESIZE: {
        rlx_tensor x = rd_t(c);
        int64_t oh = rd_i64(in), ow = rd_i64(in);
        uint8_t mb = rd8(in);
        rlx_resize_mode mode = (rlx_resize_mode)(mb < 0xF0 ? 1 + mb % 2 : fz_ext32[mb - 0xF0]);
        int ac = rd8(in) & 1;
        fz_tr("rlx_resize(t%u, %lld, %lld, mode %d, align_corners %d)", x.id, (long long)oh, (long long)ow, (int)mode, ac);
        fz_cost(c, fz_check_t(c, "rlx_resize", rlx_resize(g, x, oh, ow, mode, ac)), 8);
        break;
    }
    case FZ_PAD: {
        rlx_tensor x = rd_t(c);
        int64_t before[RLX_MAX_RANK], after[RLX_MAX_RANK];
        uint8_t nb8 = rd8(in), mb;
        int i, rank = 0;
        rlx_pad_mode mode;
        double v;
        if (rlx_tensor_info(g, x, &rank, NULL) == RLX_DTYPE_INVALID) rank = 0;
        for (i = 0; i < RLX_MAX_RANK; i++) before[i] = after[i] = 0;
        for (i = 0; i < rank; i++) { before[i] = rd_i64(in); after[i] = rd_i64(in); }
        mb = rd8(in);
        mode = (rlx_pad_mode)(mb < 0xF0 ? 1 + mb % 3 : fz_ext32[mb - 0xF0]);
        v = rd_double(in);
        fz_tr("rlx_pad(t%u, before {%lld,%lld,%lld,%lld,..}%s after {%lld,%lld,%lld,%lld,..}%s, mode %d, value %g)",
              x.id, (long long)before[0], (long long)before[1], (long long)before[2], (long long)before[3],
              nb8 == 0xFE ? " NULL" : "", (long long)after[0], (long long)after[1], (long long)after[2],
              (long long)after[3], nb8 == 0xFF ? " NULL" : "", (int)mode, v);
        fz_cost(c, fz_check_t(c, "rlx_pad", rlx_pad(g, x, nb8 == 0xFE ? NULL : before, nb8 == 0xFF ? NULL : after,
                                                    mode, v)), 2);
        break;
    }
    case FZ_LINEAR: {
        rlx_tensor x = rd_t(c), w = rd_t(c), bias = rd_opt(c);
        uint8_t ab = rd8(in);
        rlx_activation act = (rlx_activation)(ab < 0xF0 ? ab % 5 : fz_ext32[ab - 0xF0]);
        fz_tr("rlx_linear(t%u, w t%u, bias t%u, act %d)", x.id, w.id, bias.id, (int)act);
        fz_cost(c, fz_check_t(c, "rlx_linear", rlx_linear(g, x, w, bias, act)), (double)fz_dim(c, x, 1));
        break;
    }
    case FZ_ADD_RMSNORM: case FZ_ADD_LAYERNORM: {
        rlx_tensor x = rd_t(c), res = rd_t(c), ga = rd_opt(c), be = rd_opt(c), sum, t;
        int axis = op == FZ_ADD_LAYERNORM ? rd_axis(in) : 0;
        float eps = rd_float(in, 1e-5f);
        int want_sum = rd8(in) & 1;
        sum.id = 777;
        sum.graph = 0;
        fz_tr("rlx_add_%s(t%u, t%u, gamma t%u, beta t%u, axis %d, eps %g, sum_out %d)",
              op == FZ_ADD_RMSNORM ? "rmsnorm" : "layernorm", x.id, res.id, ga.id, be.id, axis, (double)eps, want_sum);
        t = op == FZ_ADD_RMSNORM ? rlx_add_rmsnorm(g, x, res, ga, be, eps, want_sum ? &sum : NULL)
                                 : rlx_add_layernorm(g, x, res, ga, be, axis, eps, want_sum ? &sum : NULL);
        t = fz_check_t(c, "rlx_add_norm", t);
        fz_cost(c, t, 8);
        if (t.id && want_sum) fz_check_t(c, "rlx_add_norm sum_out", sum);
        break;
    }
    case FZ_GLU: {
        int which = rd8(in) & 1;
        rlx_tensor a = rd_t(c), b = rd_t(c);
        fz_tr("rlx_%s(t%u, t%u)", which ? "geglu" : "swiglu", a.id, b.id);
        fz_cost(c, fz_check_t(c, "rlx_glu", which ? rlx_geglu(g, a, b) : rlx_swiglu(g, a, b)), 8);
        break;
    }
    case FZ_STATE_WRITE: {
        rlx_tensor s = rd_t(c), u = rd_t(c);
        int axis = rd_axis(in);
        rlx_tensor off = rd_t(c);
        fz_tr("rlx_state_write(t%u, update t%u, axis %d, offset t%u)", s.id, u.id, axis, off.id);
        fz_cost(c, fz_check_t(c, "rlx_state_write", rlx_state_write(g, s, u, axis, off)), 1);
        break;
    }
    case FZ_DUMP: {
        int dot = rd8(in) & 1;
        uint8_t cb = rd8(in);
        size_t need = dot ? rlx_graph_dump_dot(g, NULL, 0) : rlx_graph_dump(g, NULL, 0), cap, got;
        char* buf;
        cap = cb < 0x80 ? need + 1 : (size_t)(cb & 0x3F);
        fz_tr("rlx_graph_dump%s(cap %zu of %zu)", dot ? "_dot" : "", cap, need);
        if (need > ((size_t)64 << 20)) fz_fail("graph dump wants %zu bytes", need);
        buf = (char*)malloc(cap + 1);
        if (!buf) break;
        memset(buf, 'x', cap + 1);
        got = dot ? rlx_graph_dump_dot(g, buf, cap) : rlx_graph_dump(g, buf, cap);
        if (got != need) fz_fail("graph dump: length %zu, then %zu", need, got);
        if (cap > 0 && strlen(buf) != (got < cap ? got : cap - 1)) fz_fail("graph dump: not NUL-terminated at min(len, cap-1)");
        if (buf[cap] != 'x') fz_fail("graph dump wrote past cap");
        free(buf);
        break;
    }
    case FZ_INFO: {
        rlx_tensor t = rd_t(c);
        int rank = -7;
        int64_t shape[RLX_MAX_RANK + 1];
        rlx_dtype dt;
        shape[RLX_MAX_RANK] = 0x5A5A;
        dt = rlx_tensor_info(g, t, rd8(in) & 1 ? NULL : &rank, rd8(in) & 1 ? NULL : shape);
        fz_tr("rlx_tensor_info(t%u) = %d", t.id, (int)dt);
        if (t.id == 0 || t.id > (uint32_t)rlx_graph_node_count(g) || (c->tag && t.graph != c->tag)) {
            /* includes handles of the previous (destroyed) graph: they must be refused */
            if (dt != RLX_DTYPE_INVALID) fz_fail("rlx_tensor_info of invalid handle %u (tag %u) gave dtype %d", t.id, t.graph, (int)dt);
        } else if (!fz_dtype_ok(dt)) {
            fz_fail("rlx_tensor_info of valid handle %u gave dtype %d", t.id, (int)dt);
        }
        if (shape[RLX_MAX_RANK] != 0x5A5A) fz_fail("rlx_tensor_info wrote more than %d dims", RLX_MAX_RANK);
        break;
    }
    case FZ_MISC: {
        int v = rd_int(in);
        fz_check_str("rlx_op_name", rlx_op_name((rlx_op)v));
        fz_check_str("rlx_dtype_name", rlx_dtype_name((rlx_dtype)v));
        fz_check_str("rlx_result_string", rlx_result_string((rlx_result)v));
        fz_check_str("rlx_result_string", rlx_result_string((rlx_result)(v == INT_MIN ? 0 : -v)));
        fz_check_str("rlx_device_name", rlx_device_name((rlx_device)v));
        fz_check_str("rlx_version", rlx_version());
        if (rlx_dtype_size((rlx_dtype)v) > 8) fz_fail("rlx_dtype_size(%d) > 8", v);
        fz_tr("misc names(%d)", v);
        break;
    }
    case FZ_DIM: {
        char nb2[24];
        const char* name = rd_name(c, nb, 0);
        int64_t ex = rd_dim(in), tok;
        uint8_t u = rd8(in);
        rlx_tensor x = rd_t(c), t;
        int rank = 0, a;
        tok = rlx_dim(g, name, ex);
        fz_tr("rlx_dim(\"%.20s\", %lld) -> %lld", name ? name : "(null)", (long long)ex, (long long)tok);
        if (tok == 0) {
            if (rlx_graph_status(g) >= 0) fz_fail("rlx_dim returned 0 without an error");
            break;
        }
        if (rlx_graph_status(g) != RLX_OK) fz_fail("rlx_dim returned a token although the graph has an error");
        if (c->ndims < 4) {
            snprintf(c->dim_names[c->ndims], sizeof c->dim_names[0], "%s", name);
            c->dim_ex[c->ndims++] = ex;
        }
        if (u & 0x80) tok = RLX_DIM_TOKEN((u >> 4) & 7);
        if (rlx_tensor_info(g, x, &rank, shape) == RLX_DTYPE_INVALID || rank == 0) { rank = 1; shape[0] = 1; }
        a = (u >> 2) % rank;
        switch (u & 3) {
        case 0:
            shape[a] = tok;
            name = rd_name(c, nb2, 0);
            fz_tr("rlx_input(\"%.20s\", f32, token at %d of rank %d)", name ? name : "(null)", a, rank);
            t = fz_check_t(c, "rlx_input", rlx_input(g, name, RLX_F32, rank, shape));
            fz_add_src(c, 0, name, t);
            fz_cost(c, t, 1);
            break;
        case 1:
            shape[a] = tok;
            if (rank > 1) shape[(a + 1) % rank] = -1;
            fz_tr("rlx_reshape(t%u, token at %d of rank %d)", x.id, a, rank);
            fz_check_t(c, "rlx_reshape", rlx_reshape(g, x, rank, shape));
            break;
        case 2:
            shape[a] = tok;
            fz_tr("rlx_expand(t%u, token at %d of rank %d)", x.id, a, rank);
            fz_cost(c, fz_check_t(c, "rlx_expand", rlx_expand(g, x, rank, shape)), 1);
            break;
        default:
            fz_tr("rlx_slice(t%u, axis %d, start %d, token length)", x.id, a, (u & 0x40) ? -1 : 0);
            fz_cost(c, fz_check_t(c, "rlx_slice", rlx_slice(g, x, a, (u & 0x40) ? -1 : 0, tok, 1)), 1);
            break;
        }
        break;
    }
    default:
        break;
    }
}

/* ---- compile, set, run, read -------------------------------------------------------------------------------- */

static size_t fz_src_bytes(fz_ctx* c, rlx_tensor t, rlx_dtype dt, int* ok) {
    int rank = 0, i;
    int64_t shape[RLX_MAX_RANK];
    uint64_t n = 1, es;
    *ok = 0;
    if (rlx_tensor_info(c->g, t, &rank, shape) == RLX_DTYPE_INVALID) return 0;
    for (i = 0; i < rank; i++) {
        if ((uint64_t)shape[i] > (uint64_t)FZ_HOST_MAX / n) return 0;
        n *= (uint64_t)shape[i];
    }
    if ((es = fz_nbytes(dt, n)) > FZ_HOST_MAX) return 0;
    *ok = 1;
    return (size_t)es;
}

static rlx_dtype fz_tdtype(fz_ctx* c, rlx_tensor t) { return rlx_tensor_info(c->g, t, NULL, NULL); }

static void fz_set_sources(fz_ctx* c, rlx_program* p, int* all_set) {
    fz_in* in = &c->in;
    int s;
    *all_set = 1;
    for (s = 0; s < c->nsrc; s++) {
        fz_src* sr = &c->src[s];
        rlx_dtype dt = fz_tdtype(c, sr->t), hdt = dt;
        uint8_t mode = rd8(in);
        int ok, bad = 0, datamode = (mode >> 4) & 1;
        size_t bytes;
        void* buf;
        rlx_result r;
        const char* name = sr->name;
        const char* what = sr->kind == 0 ? "rlx_set_input" : sr->kind == 1 ? "rlx_set_param" : "rlx_set_state";
        if ((mode & 7) == 5) hdt = (rlx_dtype)(1 + (mode >> 5) % 11);  /* other host dtype: converted */
        bytes = fz_src_bytes(c, sr->t, hdt, &ok);
        if (!ok) { *all_set = 0; fz_tr("  (%s '%s' too large for the host side, not set)", what, name); continue; }
        buf = malloc(bytes ? bytes : 1);
        if (!buf) { *all_set = 0; continue; }
        fz_fill(c, buf, hdt, fz_elems(hdt, bytes), datamode);
        switch (mode & 7) {
        case 1: bytes += rlx_dtype_size(hdt) ? rlx_dtype_size(hdt) : 1; bad = 1; break;   /* wrong size (one more) */
        case 2: if (bytes) { bytes -= 1; bad = 1; } break;                    /* wrong size */
        case 3: name = "no_such_name"; bad = 1; break;
        case 4: if (sr->kind == 1) { /* raw */ } break;
        case 6: hdt = (rlx_dtype)0; bad = 1; break;
        default: break;
        }
        if ((mode & 7) == 4 && sr->kind == 1) {
            fz_tr("rlx_set_param_raw('%s', %zu bytes)", name, bytes);
            r = rlx_set_param_raw(p, name, buf, bytes);
        } else if ((mode & 7) == 7 && sr->kind != 2 && dt == RLX_F32) {
            size_t cnt = bytes / 4;
            fz_tr("%s_f32('%s', %zu)", what, name, cnt);
            r = sr->kind == 0 ? rlx_set_input_f32(p, name, (const float*)buf, cnt)
                              : rlx_set_param_f32(p, name, (const float*)buf, cnt);
        } else {
            fz_tr("%s('%s', %s, %zu bytes)%s", what, name, rlx_dtype_name(hdt), bytes, bad ? " [bad on purpose]" : "");
            r = sr->kind == 0 ? rlx_set_input(p, name, hdt, buf, bytes)
              : sr->kind == 1 ? rlx_set_param(p, name, hdt, buf, bytes) : rlx_set_state(p, name, hdt, buf, bytes);
        }
        fz_check_p(p, what, r);
        if (bad && r == RLX_OK) fz_fail("%s('%s') accepted a wrong call (mode %d)", what, sr->name, mode & 7);
        if (r != RLX_OK && sr->kind != 2) *all_set = 0;
        /* a second, correct call after a wrong one */
        if (bad && (mode & 8)) {
            size_t good = fz_src_bytes(c, sr->t, dt, &ok);
            void* b2 = ok ? malloc(good ? good : 1) : NULL;
            if (b2) {
                fz_fill(c, b2, dt, fz_elems(dt, good), datamode);
                r = sr->kind == 0 ? rlx_set_input(p, sr->name, dt, b2, good)
                  : sr->kind == 1 ? rlx_set_param(p, sr->name, dt, b2, good) : rlx_set_state(p, sr->name, dt, b2, good);
                fz_check_p(p, what, r);
                if (r == RLX_OK && sr->kind != 2) *all_set = 1 && *all_set;
                free(b2);
            }
        }
        free(buf);
    }
    /* NULL arguments */
    if (c->nsrc && (rd8(in) & 3) == 3) {
        float f = 1;
        fz_check_p(p, "rlx_set_input(NULL name)", rlx_set_input(p, NULL, RLX_F32, &f, 4));
        fz_check_p(p, "rlx_set_param(NULL data)", rlx_set_param(p, c->src[0].name, RLX_F32, NULL, 4));
    }
}

static void fz_read_outputs(fz_ctx* c, rlx_program* p, int ran) {
    fz_in* in = &c->in;
    int o;
    for (o = 0; o < c->nouts; o++) {
        const char* name = c->outs[o];
        uint8_t mode = rd8(in);
        int i, k;
        rlx_dtype dt = RLX_DTYPE_INVALID;
        int64_t numel = -1;
        /* the output's dtype and size come from the program's plan (the graph only knows its node) */
        const void* ptr = NULL;
        rlx_dtype pdt = RLX_DTYPE_INVALID;
        int prank = -1;
        int64_t pshape[RLX_MAX_RANK];
        rlx_result r = rlx_output_ptr(p, name, &ptr, &pdt, &prank, pshape);
        fz_check_p(p, "rlx_output_ptr", r);
        if (r == RLX_OK) {
            if (!ran) fz_fail("rlx_output_ptr succeeded before a successful run");
            if (!fz_dtype_ok(pdt) || prank < 0 || prank > RLX_MAX_RANK) fz_fail("rlx_output_ptr: dtype %d rank %d", (int)pdt, prank);
            dt = pdt;
            numel = 1;
            for (i = 0; i < prank; i++) numel *= pshape[i];
            if (!ptr) fz_fail("rlx_output_ptr gave NULL data");
            /* read every byte (ASan checks the range) */
            if (fz_nbytes(pdt, (uint64_t)numel) <= FZ_HOST_MAX) {
                volatile unsigned char acc = 0;
                size_t nb = (size_t)fz_nbytes(pdt, (uint64_t)numel), j;
                for (j = 0; j < nb; j++) acc ^= ((const unsigned char*)ptr)[j];
                (void)acc;
            }
        }
        if (numel < 0) continue;
        for (k = 0; k < 2; k++) {
            rlx_dtype want = k == 0 ? dt : (rlx_dtype)(1 + (mode >> 1) % 11);
            size_t bytes;
            int bad = 0;
            void* buf;
            if (fz_nbytes(want, (uint64_t)numel) > FZ_HOST_MAX) continue;
            bytes = (size_t)fz_nbytes(want, (uint64_t)numel);
            if (k == 1 && (mode & 1)) { bytes += 1; bad = 1; }
            buf = malloc(bytes ? bytes : 1);
            if (!buf) continue;
            r = rlx_get_output(p, name, want, buf, bytes);
            fz_check_p(p, "rlx_get_output", r);
            if (bad && r == RLX_OK) fz_fail("rlx_get_output accepted a wrong size");
            free(buf);
        }
        if (mode & 0x40) {
            float* f = (float*)malloc((size_t)numel * 4 <= FZ_HOST_MAX ? (size_t)numel * 4 + 4 : 4);
            if (f && (size_t)numel * 4 <= FZ_HOST_MAX) {
                fz_check_p(p, "rlx_get_output_f32", rlx_get_output_f32(p, name, f, (size_t)numel));
                fz_check_p(p, "rlx_get_output_f32(count+1)", rlx_get_output_f32(p, name, f, (size_t)numel + 1));
            }
            free(f);
        }
        if (mode & 0x80) {
            int64_t one;
            r = rlx_get_output_i64(p, name, &one, SIZE_MAX);
            fz_check_p(p, "rlx_get_output_i64(SIZE_MAX)", r);
            if (r == RLX_OK) fz_fail("rlx_get_output_i64 accepted count SIZE_MAX");
        }
    }
    {
        float f;
        fz_check_p(p, "rlx_get_output(unknown)", rlx_get_output(p, "no_such_output", RLX_F32, &f, 4));
    }
}

static void fz_states(fz_ctx* c, rlx_program* p) {
    int s;
    for (s = 0; s < c->nsrc; s++) {
        int ok;
        size_t bytes;
        void* buf;
        rlx_dtype dt;
        if (c->src[s].kind != 2) continue;
        dt = fz_tdtype(c, c->src[s].t);
        bytes = fz_src_bytes(c, c->src[s].t, dt, &ok);
        if (!ok) continue;
        buf = malloc(bytes ? bytes : 1);
        if (!buf) continue;
        fz_check_p(p, "rlx_get_state", rlx_get_state(p, c->src[s].name, dt, buf, bytes));
        if (rlx_get_state(p, c->src[s].name, dt, buf, bytes + 1) == RLX_OK) fz_fail("rlx_get_state accepted a wrong size");
        free(buf);
    }
}

/* Cost limit of one run (rough multiply-adds); bigger graphs are compiled but not run. */
#define FZ_COST_MAX 3e7

static void fz_program(fz_ctx* c) {
    fz_in* in = &c->in;
    rlx_graph* g = c->g;
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    rlx_result r, st = rlx_graph_status(g);
    uint8_t fb = rd8(in), db = 0;
    int all_set = 0, ran = 0, i, respec = 0;
    rlx_dim_value dv[5];
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    cd.num_threads = 1;
    cd.flags = fb & 0x3F;
    if (fb & 0x40) cd.allocator = c->al;
    if (c->ndims) {   /* bind some dims (see fuzz_ops.h) */
        int k;
        db = rd8(in);
        for (k = 0; k < c->ndims; k++)
            if (db & (1 << k)) {
                uint8_t b = rd8(in);
                dv[cd.num_dims].name = c->dim_names[k];
                dv[cd.num_dims].value = b < 0xF0 ? 1 + (b & 15) : fz_ext64[b & 31];
                if (dv[cd.num_dims].value != c->dim_ex[k]) respec = 1;
                fz_tr("  dim '%s' = %lld", c->dim_names[k], (long long)dv[cd.num_dims].value);
                cd.num_dims++;
            }
        if (db & 0x80) { dv[cd.num_dims].name = "no_such_dim"; dv[cd.num_dims++].value = 2; }
        cd.dims = dv;
    }
    fz_tr("rlx_compile(CPU, flags 0x%x, %s allocator) [graph status %d, %d nodes, cost %.3g]", cd.flags,
          (fb & 0x40) ? "own" : "graph's", (int)st, rlx_graph_node_count(g), c->cost);
    r = rlx_compile(g, &cd, &p);
    if (r == RLX_OK) {
        if (!p) fz_fail("rlx_compile returned OK and no program");
        if (st != RLX_OK) fz_fail("rlx_compile succeeded on a graph with builder error %d", (int)st);
        if (c->nouts == 0) fz_fail("rlx_compile succeeded on a graph without outputs");
    } else {
        if (p) fz_fail("rlx_compile failed (%d) but returned a program", (int)r);
        if (r > 0) fz_fail("rlx_compile returned %d", (int)r);
        if (!fz_graph_msg(g)[0]) fz_fail("rlx_compile failed (%d: %s) with an empty message", (int)r, rlx_result_string(r));
        if (st != RLX_OK && r != RLX_ERROR_BAD_GRAPH) fz_fail("rlx_compile of a graph with a builder error gave %d", (int)r);
        fz_tr("    -> error %d: %s", (int)r, rlx_graph_error(g));
        return;
    }
    fz_tr("    -> ok");
    if (db & 0x40) {   /* the same values again: from the graph's cache */
        rlx_program* q = NULL;
        r = rlx_compile(g, &cd, &q);
        fz_tr("rlx_compile again (cached) -> %d", (int)r);
        if (r != RLX_OK && r != RLX_ERROR_OUT_OF_MEMORY) fz_fail("a second compile with the same dims failed: %d %s",
                                                                  (int)r, rlx_graph_error(g));
        if ((r == RLX_OK) != (q != NULL)) fz_fail("the second compile returned %d and program %p", (int)r, (void*)q);
        rlx_program_destroy(q);
    }
    /* introspection */
    {
        rlx_plan_info pi;
        rlx_buffer_info bi;
        size_t need, got;
        char* rep;
        fz_check_p(p, "rlx_program_plan", rlx_program_plan(p, &pi));
        for (i = -1; i <= pi.num_buffers; i++) {
            r = rlx_program_buffer(p, i, &bi);
            if ((i < 0 || i >= pi.num_buffers) && r == RLX_OK) fz_fail("rlx_program_buffer(%d) of %d accepted", i, pi.num_buffers);
            if (i >= 0 && i < pi.num_buffers && r != RLX_OK) fz_fail("rlx_program_buffer(%d) failed", i);
            if (r == RLX_OK) {
                /* every planned buffer must lie inside the memory it was planned in */
                size_t room = 0;
                const char* where = NULL;
                switch (bi.kind) {
                case RLX_BUFFER_INPUT: case RLX_BUFFER_INTERMEDIATE: case RLX_BUFFER_OUTPUT:
                    room = pi.arena_bytes; where = "arena"; break;
                case RLX_BUFFER_PARAM: case RLX_BUFFER_CONSTANT: room = pi.weight_bytes; where = "weights"; break;
                case RLX_BUFFER_STATE: room = pi.state_bytes; where = "state block"; break;
                default: break;
                }
                if (where && (bi.bytes > room || bi.offset > room - bi.bytes))
                    fz_fail("compile succeeded but buffer %d ('%s', kind %d) of %zu bytes at offset %zu does not fit the "
                            "%s of %zu bytes", i, bi.name, (int)bi.kind, bi.bytes, bi.offset, where, room);
            }
        }
        fz_check_str("rlx_program_device_reason", rlx_program_device_reason(p));
        if (rlx_program_device(p) != RLX_DEVICE_CPU) fz_fail("the program is not on the CPU");
        need = rlx_program_report(p, NULL, 0);
        rep = (char*)malloc(need + 1);
        if (rep) {
            got = rlx_program_report(p, rep, need + 1);
            if (got != need || strlen(rep) != need) fz_fail("rlx_program_report: %zu then %zu (strlen %zu)", need, got, strlen(rep));
            free(rep);
        }
    }
    if (respec) {   /* shapes differ from the graph's, which the I/O below is sized from */
        rlx_program_destroy(p);
        return;
    }
    fz_set_sources(c, p, &all_set);
    {
        uint8_t rb = rd8(in);
        int runs = 1 + (rb & 1);
        if (c->cost > FZ_COST_MAX) {
            fz_tr("  (run skipped: cost %.3g)", c->cost);
            runs = 0;
        }
        for (i = 0; i < runs; i++) {
            fz_tr("rlx_run");
            r = rlx_run(p);
            fz_check_p(p, "rlx_run", r);
            if (r == RLX_OK || r == RLX_ERROR_OUT_OF_RANGE) ran = 1;   /* out of range: every step ran */
            else if (all_set && r == RLX_ERROR_NOT_SET) fz_fail("rlx_run: NOT_SET although everything was set");
        }
        fz_read_outputs(c, p, ran);
        fz_states(c, p);
        if ((rb & 0x0C) && runs) {
            rlx_program* q = NULL;
            int share = (rb >> 3) & 1;
            fz_tr("rlx_program_clone(share %d)", share);
            r = rlx_program_clone(p, share, &q);
            fz_check_p(p, "rlx_program_clone", r);
            if (r == RLX_OK) {
                if (!q) fz_fail("clone OK without a program");
                /* inputs are per program: set them again */
                fz_set_sources(c, q, &all_set);
                r = rlx_run(q);
                fz_check_p(q, "rlx_run(clone)", r);
                fz_read_outputs(c, q, r == RLX_OK || r == RLX_ERROR_OUT_OF_RANGE);
                rlx_program_destroy(q);
            } else if (q) {
                fz_fail("clone failed but returned a program");
            }
        }
    }
    rlx_program_destroy(p);
}

/* ---- one input ---------------------------------------------------------------------------------------------- */

int fz_run_input(const uint8_t* data, size_t size);
int fz_run_input(const uint8_t* data, size_t size) {
    fz_ctx* c = (fz_ctx*)calloc(1, sizeof(fz_ctx));
    int gi;
    size_t i;
    if (!c) return 0;
    c->in.d = data;
    c->in.n = size;
    c->heap.budget = FZ_BUDGET;
    c->al.alloc = fz_alloc;
    c->al.free = fz_free;
    c->al.user_data = &c->heap;
    c->rng = 0x9E3779B97F4A7C15ull;
    for (i = 0; i < size; i++) c->rng = (c->rng ^ data[i]) * 0x100000001B3ull;
    if (!c->rng) c->rng = 1;
    for (gi = 0; gi < FZ_MAX_GRAPHS && fz_more(&c->in); gi++) {
        rlx_graph_desc gd;
        int n;
        memset(&gd, 0, sizeof gd);
        gd.allocator = c->al;
        c->g = rlx_graph_create(&gd);
        if (!c->g) fz_fail("rlx_graph_create failed");
        fz_tr("== graph %d", gi);
        c->nt = 0;
        c->tag = 0;
        c->nsrc = 0;
        c->nouts = 0;
        c->cost = 0;
        c->ndims = 0;
        for (n = 0; n < FZ_MAX_INSTR && fz_more(&c->in); n++) {
            int op = rd8(&c->in) % FZ_OP_COUNT;
            if (op == FZ_END) break;
            fz_builder(c, op);
            if (rlx_graph_status(c->g) != RLX_OK) break;
        }
        /* a second rlx_graph_status / error must agree with what the builders said */
        if (rlx_graph_status(c->g) != RLX_OK && !fz_graph_msg(c->g)[0]) fz_fail("sticky error without a message");
        fz_program(c);
        memset(c->foreign, 0, sizeof c->foreign);
        if (c->nt) c->foreign[0] = c->ts[c->nt - 1];
        if (c->nt > 1) c->foreign[1] = c->ts[0];
        rlx_graph_destroy(c->g);
        c->g = NULL;
        if (c->heap.live != 0) fz_fail("%zu bytes still allocated after destroying the graph and programs", c->heap.live);
    }
    /* graph-less calls */
    if (rlx_graph_status(NULL) >= 0) fz_fail("rlx_graph_status(NULL) >= 0");
    fz_check_str("rlx_graph_error(NULL)", rlx_graph_error(NULL));
    free(c);
    return 0;
}

#if !defined(RLX_FUZZ_NO_MAIN) && !defined(RLX_FUZZ_STANDALONE)
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static int init = 0;
    if (!init) { init = 1; fz_trace = getenv("FUZZ_TRACE") != NULL; }
    return fz_run_input(data, size);
}
#endif

/* ---- replay driver ------------------------------------------------------------------------------------------ */

#if defined(RLX_FUZZ_STANDALONE) || defined(RLX_FUZZ_NO_MAIN)
#include <dirent.h>
#include <sys/stat.h>

/* Reads a whole file (NULL on failure); *n gets its size. */
static FZ_UNUSED uint8_t* fz_read_file(const char* path, size_t* n) {
    FILE* f = fopen(path, "rb");
    uint8_t* d = NULL;
    long len;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        d = (uint8_t*)malloc((size_t)len + 1);
        if (d && fread(d, 1, (size_t)len, f) != (size_t)len) { free(d); d = NULL; }
        *n = (size_t)len;
    }
    fclose(f);
    return d;
}

static int fz_cmp_str(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

/* Lists the regular files of dir (sorted; hidden files skipped) into a malloc'd array of malloc'd paths. */
static FZ_UNUSED int fz_list_dir(const char* dir, char*** out) {
    DIR* d = opendir(dir);
    struct dirent* e;
    char** v = NULL;
    int n = 0, cap = 0;
    *out = NULL;
    if (!d) return -1;
    while ((e = readdir(d)) != NULL) {
        char* p;
        struct stat st;
        size_t len;
        if (e->d_name[0] == '.') continue;
        len = strlen(dir) + strlen(e->d_name) + 2;
        p = (char*)malloc(len);
        if (!p) break;
        snprintf(p, len, "%s/%s", dir, e->d_name);
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) { free(p); continue; }
        if (n == cap) {
            char** nv = (char**)realloc(v, sizeof(char*) * (size_t)(cap = cap ? cap * 2 : 16));
            if (!nv) { free(p); break; }
            v = nv;
        }
        v[n++] = p;
    }
    closedir(d);
    if (n > 1) qsort(v, (size_t)n, sizeof(char*), fz_cmp_str);
    *out = v;
    return n;
}
#endif

#if defined(RLX_FUZZ_STANDALONE) && !defined(RLX_FUZZ_NO_MAIN)
static int fz_replay_path(const char* path) {
    size_t n = 0;
    uint8_t* d = fz_read_file(path, &n);
    if (!d) { fprintf(stderr, "cannot read %s\n", path); return 1; }
    fprintf(stderr, "replay %s (%zu bytes)\n", path, n);
    fz_run_input(d, n);
    free(d);
    return 0;
}

int main(int argc, char** argv) {
    int i, count = 0, errs = 0;
    for (i = 1; i < argc; i++) {
        struct stat st;
        if (strcmp(argv[i], "-v") == 0) { fz_trace = 1; continue; }
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            char** files;
            int n = fz_list_dir(argv[i], &files), k;
            for (k = 0; k < n; k++) { errs += fz_replay_path(files[k]); count++; free(files[k]); }
            free(files);
        } else {
            errs += fz_replay_path(argv[i]);
            count++;
        }
    }
    fprintf(stderr, "replayed %d input(s), %d unreadable, no contract violation\n", count, errs);
    return errs ? 1 : 0;
}
#endif
