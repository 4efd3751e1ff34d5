/* Memory planner property test.

   Builds many random graphs (deterministic seeds) out of unary, broadcasting binary, matmul, reduce, reshape,
   transpose, slice, concat, expand, softmax and where ops over random small shapes, with several params,
   inputs, constants and outputs (some outputs are views: a reshape of an intermediate or of an input, a param
   itself). For every compiled program it reads rlx_program_plan and every rlx_program_buffer and checks:
     (a) arena buffers (input/intermediate/output) whose live ranges intersect never share bytes;
     (b) param/constant buffers never share bytes;
     (c) every non-view offset is a multiple of 64;
     (d) lower_bound_bytes <= arena_bytes <= no_reuse_bytes, and the bounds agree with the buffers;
     (e) the outputs equal, bit for bit, those of the same graph compiled with RLX_COMPILE_NO_REUSE, and params
         read back intact;
     (f) a second run gives the same outputs.
   Also: views lie inside their parent and the parent is live wherever the view is; with NO_REUSE no two arena
   buffers overlap at all. Prints the mean and max of arena / lower bound. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../rlx.h"
#include "harness.h"

#include <stdlib.h>

#define NUM_GRAPHS 1000
#define MAX_POOL 96
#define MAX_SOURCES 24
#define MAX_OUTPUTS 12
#define MAX_ELEMS 240

typedef struct pnode {
    rlx_tensor t;
    rlx_dtype dtype;
    int rank;
    int64_t shape[RLX_MAX_RANK];
    int64_t n;
} pnode;

typedef struct source {
    char name[16];
    int is_param;
    rlx_dtype dtype;
    int64_t n;
    int pool_index;
    float* data; /* the values set before a run */
} source;

typedef struct rgraph {
    rlx_graph* g;
    pnode pool[MAX_POOL];
    unsigned char used[MAX_POOL], is_source[MAX_POOL]; /* read by another node; an input/param/constant */
    int npool;
    source src[MAX_SOURCES];
    int nsrc;
    char out_names[MAX_OUTPUTS][16];
    int out_param[MAX_OUTPUTS]; /* index of the source a param output reads, else -1 */
    int nout;
} rgraph;

static int rnd(int n) { return (int)(th_rng() % (uint64_t)n); }

static int64_t count_of(int rank, const int64_t* shape) {
    int64_t n = 1;
    int i;
    for (i = 0; i < rank; i++) n *= shape[i];
    return n;
}

static int add_pool(rgraph* r, rlx_tensor t) {
    pnode* p;
    if (t.id == 0 || r->npool >= MAX_POOL) return -1;
    p = &r->pool[r->npool];
    p->t = t;
    memset(p->shape, 0, sizeof p->shape);
    p->dtype = rlx_tensor_info(r->g, t, &p->rank, p->shape);
    if (p->dtype == RLX_DTYPE_INVALID) return -1;
    p->n = count_of(p->rank, p->shape);
    if (p->n < 1 || p->rank < 0 || p->rank > RLX_MAX_RANK) {
        char dump[4096];
        rlx_graph_dump(r->g, dump, sizeof dump);
        TH_CHECK(0, "rlx_tensor_info(%%%u) gave rank %d, %d elements; graph:\n%s", (unsigned)t.id, p->rank,
                 (int)p->n, dump);
        return -1;
    }
    return r->npool++;
}

/* pool entry i as an operand */
static rlx_tensor U(rgraph* r, int i) {
    r->used[i] = 1;
    return r->pool[i].t;
}

static void random_shape(int* rank, int64_t* shape) {
    int i;
    *rank = rnd(4); /* 0..3 */
    for (i = 0; i < *rank; i++) shape[i] = 1 + rnd(5);
}

/* kind: 0 input, 1 param, 2 constant */
static int new_source(rgraph* r, int kind, int rank, const int64_t* shape) {
    int64_t n = count_of(rank, shape), i;
    rlx_tensor t;
    float* data;
    if (n > MAX_ELEMS || r->nsrc >= MAX_SOURCES) return -1;
    data = (float*)malloc((size_t)n * sizeof(float));
    if (!data) return -1;
    for (i = 0; i < n; i++) data[i] = (float)th_uniform(-2.0, 2.0);
    if (kind == 2) {
        t = rlx_constant(r->g, RLX_F32, rank, shape, data);
        free(data);
    } else {
        source* s = &r->src[r->nsrc];
        snprintf(s->name, sizeof s->name, "%s%d", kind ? "p" : "in", r->nsrc);
        s->is_param = kind == 1;
        s->dtype = RLX_F32;
        s->n = n;
        s->data = data;
        t = kind ? rlx_param(r->g, s->name, RLX_F32, rank, shape) : rlx_input(r->g, s->name, RLX_F32, rank, shape);
        r->nsrc++;
        s->pool_index = add_pool(r, t);
        if (s->pool_index >= 0) r->is_source[s->pool_index] = 1;
        return s->pool_index;
    }
    i = add_pool(r, t);
    if (i >= 0) r->is_source[i] = 1;
    return (int)i;
}

static int random_source(rgraph* r, int rank, const int64_t* shape) {
    int k = rnd(10);
    return new_source(r, k < 4 ? 0 : k < 8 ? 1 : 2, rank, shape);
}

static int pick(rgraph* r) {
    /* favour recent nodes so that chains get long */
    if (rnd(3) == 0) return rnd(r->npool);
    return r->npool - 1 - rnd(r->npool < 4 ? r->npool : 4);
}

/* a shape that broadcasts with `a`: a suffix of it with some dims set to 1, maybe with extra leading dims */
static void broadcast_shape(const pnode* a, int* rank, int64_t* shape) {
    int keep = rnd(a->rank + 1), i, lead = (keep == a->rank && a->rank + 1 < RLX_MAX_RANK && rnd(3) == 0) ? 1 : 0;
    *rank = keep + lead;
    if (lead) shape[0] = 1 + rnd(2);
    for (i = 0; i < keep; i++) {
        int64_t d = a->shape[a->rank - keep + i];
        shape[lead + i] = rnd(3) == 0 ? 1 : d;
    }
}

static int broadcastable(const pnode* a, const pnode* b) {
    int i;
    for (i = 0; i < a->rank && i < b->rank; i++) {
        int64_t x = a->shape[a->rank - 1 - i], y = b->shape[b->rank - 1 - i];
        if (x != y && x != 1 && y != 1) return 0;
    }
    return 1;
}

static int64_t broadcast_count(const pnode* a, const pnode* b) {
    int rank = a->rank > b->rank ? a->rank : b->rank, i;
    int64_t n = 1;
    for (i = 0; i < rank; i++) {
        int64_t x = i < a->rank ? a->shape[a->rank - 1 - i] : 1, y = i < b->rank ? b->shape[b->rank - 1 - i] : 1;
        n *= x > y ? x : y;
    }
    return n;
}

/* the second operand of a binary op */
static int operand_for(rgraph* r, int ia) {
    int tries, ib, rank;
    int64_t shape[RLX_MAX_RANK];
    switch (rnd(4)) {
    case 0: /* an existing node that broadcasts */
        for (tries = 0; tries < 6; tries++) {
            ib = rnd(r->npool);
            if (r->pool[ib].dtype == RLX_F32 && broadcastable(&r->pool[ia], &r->pool[ib]) &&
                broadcast_count(&r->pool[ia], &r->pool[ib]) <= MAX_ELEMS)
                return ib;
        }
        return ia;
    case 1: return add_pool(r, rlx_scalar(r->g, RLX_F32, th_uniform(-1.5, 1.5)));
    default:
        broadcast_shape(&r->pool[ia], &rank, shape);
        if (count_of(rank, shape) * (r->pool[ia].n) > MAX_ELEMS * 8) return ia;
        ib = random_source(r, rank, shape);
        if (ib >= 0 && broadcast_count(&r->pool[ia], &r->pool[ib]) > MAX_ELEMS) return ia;
        return ib;
    }
}

static void random_perm(int rank, int* perm) {
    int i;
    for (i = 0; i < rank; i++) perm[i] = i;
    for (i = rank - 1; i > 0; i--) {
        int j = rnd(i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* a random factorisation of n into 1..4 dims */
static int random_factor_shape(int64_t n, int64_t* shape) {
    int rank = 1 + rnd(4), i;
    for (i = 0; i < rank; i++) shape[i] = 1;
    while (n > 1) {
        int64_t f = 2;
        while (n % f) f++;
        shape[rnd(rank)] *= f;
        n /= f;
    }
    return rank;
}

static const rlx_op unary_ops[] = {RLX_OP_NEG, RLX_OP_ABS, RLX_OP_EXP, RLX_OP_SIN, RLX_OP_COS, RLX_OP_TANH,
                                   RLX_OP_SIGMOID, RLX_OP_RELU, RLX_OP_GELU, RLX_OP_SILU, RLX_OP_FLOOR,
                                   RLX_OP_CEIL, RLX_OP_ROUND, RLX_OP_ERF, RLX_OP_ATAN};
static const rlx_op binary_ops[] = {RLX_OP_ADD, RLX_OP_SUB, RLX_OP_MUL, RLX_OP_MAX, RLX_OP_MIN, RLX_OP_DIV};
static const rlx_op reduce_ops[] = {RLX_OP_SUM, RLX_OP_MEAN, RLX_OP_REDUCE_MAX, RLX_OP_REDUCE_MIN};

/* one random op on the pool; returns the new node or -1 */
static int random_op(rgraph* r) {
    rlx_graph* g = r->g;
    int ia = pick(r), ib, i, rank;
    pnode a = r->pool[ia];
    int64_t shape[RLX_MAX_RANK];
    int axes[RLX_MAX_RANK], perm[RLX_MAX_RANK];
    if (a.dtype != RLX_F32) return -1;
    r->used[ia] = 1;
    switch (rnd(15)) {
    case 0:
    case 1:
        return add_pool(r, rlx_unary(g, unary_ops[rnd((int)(sizeof unary_ops / sizeof unary_ops[0]))], a.t));
    case 2:
    case 3:
    case 4:
        ib = operand_for(r, ia);
        if (ib < 0) return -1;
        if (rnd(2)) return add_pool(r, rlx_binary(g, binary_ops[rnd(6)], U(r, ib), a.t));
        return add_pool(r, rlx_binary(g, binary_ops[rnd(6)], a.t, U(r, ib)));
    case 5: { /* matmul */
        int64_t k, n2 = 1 + rnd(5);
        if (a.rank == 0) return -1;
        k = a.shape[a.rank - 1];
        if (rnd(4) == 0) { /* [k] operand */
            shape[0] = k;
            ib = random_source(r, 1, shape);
        } else if (rnd(3) == 0 && a.rank <= 2) { /* batched [b, k, n] */
            shape[0] = 1 + rnd(3);
            shape[1] = k;
            shape[2] = n2;
            ib = random_source(r, 3, shape);
        } else {
            for (ib = -1, i = 0; i < r->npool; i++)
                if (r->pool[i].rank == 2 && r->pool[i].shape[0] == k && r->pool[i].dtype == RLX_F32 && rnd(2)) ib = i;
            if (ib < 0) {
                shape[0] = k;
                shape[1] = n2;
                ib = random_source(r, 2, shape);
            }
        }
        if (ib < 0) return -1;
        if (a.n / k * r->pool[ib].n > MAX_ELEMS * 4) return -1;
        return add_pool(r, rlx_matmul(g, a.t, U(r, ib)));
    }
    case 6: { /* reduce */
        int naxes = 0;
        for (i = 0; i < a.rank; i++)
            if (rnd(2)) axes[naxes++] = rnd(2) ? i : i - a.rank;
        if (a.rank > 0 && naxes == 0 && rnd(2)) axes[naxes++] = rnd(a.rank);
        i = rnd(4); /* one rnd() per statement: argument evaluation order is unspecified */
        return add_pool(r, rlx_reduce(g, reduce_ops[i], a.t, naxes, axes, rnd(2)));
    }
    case 7:
    case 8: /* reshape (a view) */
        rank = random_factor_shape(a.n, shape);
        if (rnd(3) == 0) shape[rnd(rank)] = -1;
        return add_pool(r, rlx_reshape(g, a.t, rank, shape));
    case 9: /* transpose */
        if (a.rank < 2) return -1;
        random_perm(a.rank, perm);
        return add_pool(r, rlx_transpose(g, a.t, rnd(4) == 0 ? NULL : perm));
    case 10: { /* slice */
        int axis;
        int64_t d, start, step, len;
        if (a.rank == 0) return -1;
        axis = rnd(a.rank);
        d = a.shape[axis];
        start = rnd((int)d);
        step = 1 + rnd(3);
        len = 1 + rnd((int)((d - 1 - start) / step + 1));
        if (rnd(3) == 0) start -= d; /* negative start */
        return add_pool(r, rlx_slice(g, a.t, rnd(4) == 0 ? axis - a.rank : axis, start, len, step));
    }
    case 11: { /* concat */
        rlx_tensor xs[3];
        int axis, n = 2 + rnd(2);
        if (a.rank == 0 || a.n * n > MAX_ELEMS) return -1;
        axis = rnd(a.rank);
        xs[0] = a.t;
        for (i = 1; i < n; i++) {
            if (rnd(2)) {
                xs[i] = a.t;
            } else {
                memcpy(shape, a.shape, sizeof shape);
                shape[axis] = 1 + rnd(3);
                ib = random_source(r, a.rank, shape);
                if (ib < 0) return -1;
                xs[i] = U(r, ib);
            }
        }
        return add_pool(r, rlx_concat(g, n, xs, axis));
    }
    case 12: /* expand: a new leading dim, and 1-dims blown up */
        if (a.rank >= RLX_MAX_RANK - 1 || a.n * 3 > MAX_ELEMS) return -1;
        shape[0] = 1 + rnd(3);
        for (i = 0; i < a.rank; i++) shape[1 + i] = a.shape[i] == 1 ? 1 + rnd(3) : a.shape[i];
        if (count_of(a.rank + 1, shape) > MAX_ELEMS) return -1;
        ib = add_pool(r, rlx_expand(g, a.t, a.rank + 1, shape));
        if (ib < 0) return -1;
        return add_pool(r, rlx_unary(g, RLX_OP_TANH, U(r, ib)));
    case 13: { /* through a narrower or integer dtype and back */
        static const rlx_dtype via[3] = {RLX_F16, RLX_I32, RLX_BF16};
        ib = add_pool(r, rlx_cast(g, a.t, via[rnd(3)]));
        if (ib < 0) return -1;
        if (r->pool[ib].dtype == RLX_I32 && rnd(2)) ib = add_pool(r, rlx_abs(g, U(r, ib)));
        if (ib < 0) return -1;
        return add_pool(r, rlx_cast(g, U(r, ib), RLX_F32));
    }
    default:
        if (a.rank > 0 && rnd(2)) return add_pool(r, rlx_softmax(g, a.t, rnd(a.rank)));
        /* where(a > b, a, b) */
        ib = operand_for(r, ia);
        if (ib < 0) return -1;
        return add_pool(r, rlx_where(g, rlx_gt(g, a.t, U(r, ib)), a.t, U(r, ib)));
    }
}

static void add_output(rgraph* r, rlx_tensor t, int param_src) {
    if (r->nout >= MAX_OUTPUTS || t.id == 0) return;
    snprintf(r->out_names[r->nout], sizeof r->out_names[0], "o%d", r->nout);
    if (rlx_output(r->g, r->out_names[r->nout], t) != RLX_OK) return;
    r->out_param[r->nout] = param_src;
    r->nout++;
}

/* builds graph number `seed`; returns 0 if the builder failed (a test bug, or an rlx.h bug) */
static int build(rgraph* r, uint64_t seed) {
    int i, nops, nin, k, rank;
    int64_t shape[RLX_MAX_RANK];
    memset(r, 0, sizeof *r);
    th_seed(seed * 0x9E3779B97F4A7C15ull + 1);
    r->g = rlx_graph_create(NULL);
    if (!r->g) return 0;
    nin = 1 + rnd(3);
    for (i = 0; i < nin; i++) {
        random_shape(&rank, shape);
        new_source(r, i == 0 ? 0 : rnd(3), rank, shape);
    }
    nops = 4 + rnd(32);
    for (k = 0, i = 0; i < nops && k < nops * 4; k++)
        if (random_op(r) >= 0) i++;
    /* outputs: nodes nobody reads (most of the time; the rest is dead code), a few random ones, and sometimes
       views and params */
    for (i = r->npool - 1; i >= 0 && r->nout < MAX_OUTPUTS - 5; i--)
        if (!r->used[i] && !r->is_source[i] && (i == r->npool - 1 || rnd(5) != 0)) add_output(r, r->pool[i].t, -1);
    for (i = rnd(3); i > 0; i--) add_output(r, r->pool[rnd(r->npool)].t, -1);
    if (rnd(3) == 0) { /* a view of an intermediate */
        pnode* a = &r->pool[r->npool - 1 - rnd(r->npool < 3 ? r->npool : 3)];
        rank = random_factor_shape(a->n, shape);
        add_output(r, rlx_reshape(r->g, a->t, rank, shape), -1);
    }
    if (rnd(4) == 0) { /* a view of an input (or param) */
        pnode* a = &r->pool[0];
        rank = random_factor_shape(a->n, shape);
        add_output(r, rlx_reshape(r->g, a->t, rank, shape), -1);
    }
    if (rnd(6) == 0) add_output(r, r->pool[r->npool - 1].t, -1); /* the same tensor under a second name */
    for (i = 0; i < r->nsrc; i++) /* params read back as outputs */
        if (r->src[i].is_param && r->src[i].pool_index >= 0 && rnd(2))
            add_output(r, r->pool[r->src[i].pool_index].t, i);
    return rlx_graph_status(r->g) == RLX_OK;
}

static void free_graph(rgraph* r) {
    int i;
    for (i = 0; i < r->nsrc; i++) free(r->src[i].data);
    rlx_graph_destroy(r->g);
    r->g = NULL;
}

/* ------------------------------------------------------------------------------------------------------------
   Checks
   ------------------------------------------------------------------------------------------------------------ */

static int printed; /* failures printed so far; later ones are only counted */
#define CHECK(cond, ...)                                  \
    do {                                                  \
        int ok_ = (cond) ? 1 : 0;                         \
        if (ok_ || printed < 25) {                        \
            if (!ok_) printed++;                          \
            TH_CHECK(ok_, __VA_ARGS__);                   \
        } else {                                          \
            th_failed++;                                  \
        }                                                 \
    } while (0)

static size_t align64(size_t n) { return (n + 63) & ~(size_t)63; }
static int is_arena(rlx_buffer_kind k) {
    return k == RLX_BUFFER_INPUT || k == RLX_BUFFER_INTERMEDIATE || k == RLX_BUFFER_OUTPUT;
}
static int is_weight(rlx_buffer_kind k) { return k == RLX_BUFFER_PARAM || k == RLX_BUFFER_CONSTANT; }
static int bytes_overlap(const rlx_buffer_info* a, const rlx_buffer_info* b) {
    return a->offset < b->offset + b->bytes && b->offset < a->offset + a->bytes;
}
static int live_overlap(const rlx_buffer_info* a, const rlx_buffer_info* b) {
    return a->first_step <= b->last_step && b->first_step <= a->last_step;
}

#define MAX_BUFFERS 1024

static int graphs_with_reuse; /* arena smaller than no-reuse: the overlap checks are not vacuous */

/* returns arena / lower bound (0 if the lower bound is 0) */
static double check_plan(rlx_program* p, int no_reuse, int gi) {
    static rlx_buffer_info b[MAX_BUFFERS];
    rlx_plan_info info;
    rlx_result r = rlx_program_plan(p, &info);
    const char* what = no_reuse ? "NO_REUSE" : "default";
    int i, j, n, bad_arena = 0, bad_weight = 0, bad_align = 0, bad_fit = 0, bad_view = 0, bad_range = 0;
    int first_bad = -1, second_bad = -1;
    size_t sum_raw = 0, sum_aligned = 0, lb_raw = 0, lb_aligned = 0;
    CHECK(r == RLX_OK, "graph %d (%s): rlx_program_plan = %s", gi, what, rlx_result_string(r));
    if (r != RLX_OK) return 0;
    n = info.num_buffers;
    CHECK(n >= 1 && n <= MAX_BUFFERS, "graph %d (%s): %d buffers", gi, what, n);
    if (n < 1 || n > MAX_BUFFERS) return 0;
    for (i = 0; i < n; i++) {
        r = rlx_program_buffer(p, i, &b[i]);
        if (r != RLX_OK) {
            CHECK(0, "graph %d (%s): rlx_program_buffer(%d) = %s", gi, what, i, rlx_result_string(r));
            return 0;
        }
    }
    for (i = 0; i < n; i++) {
        const rlx_buffer_info* x = &b[i];
        if (x->kind == RLX_BUFFER_VIEW) {
            /* a view lies inside its parent, and its root is live wherever the view is */
            int root = x->parent, depth = 0;
            if (root < 0 || root >= n || root == i) {
                bad_view++;
                continue;
            }
            if (x->offset >= b[root].bytes) bad_view++;
            while (root >= 0 && root < n && b[root].kind == RLX_BUFFER_VIEW && depth++ < 64) root = b[root].parent;
            if (root < 0 || root >= n || b[root].kind == RLX_BUFFER_VIEW) {
                bad_view++;
                continue;
            }
            if (x->first_step <= x->last_step &&
                (b[root].first_step > x->first_step || b[root].last_step < x->last_step)) {
                bad_view++;
                if (first_bad < 0) first_bad = i, second_bad = root;
            }
            continue;
        }
        if (x->kind <= RLX_BUFFER_INVALID || x->kind >= RLX_BUFFER_KIND_COUNT) {
            bad_range++;
            continue;
        }
        if (x->offset % 64 != 0) bad_align++;
        if (is_arena(x->kind)) {
            if (x->offset + x->bytes > info.arena_bytes) bad_fit++;
            sum_raw += x->bytes;
            sum_aligned += align64(x->bytes);
            /* documented live ranges: inputs the whole run, outputs to the end */
            if (x->kind == RLX_BUFFER_INPUT && (x->first_step > 0 || x->last_step < info.num_steps - 1)) bad_range++;
            if (x->kind == RLX_BUFFER_OUTPUT && x->last_step < info.num_steps - 1) bad_range++;
        } else if (is_weight(x->kind)) {
            if (x->offset + x->bytes > info.weight_bytes) bad_fit++;
        }
        for (j = 0; j < i; j++) {
            const rlx_buffer_info* y = &b[j];
            if (y->kind == RLX_BUFFER_VIEW) continue;
            if (is_arena(x->kind) && is_arena(y->kind) && (no_reuse || live_overlap(x, y)) && bytes_overlap(x, y)) {
                bad_arena++;
                if (first_bad < 0) first_bad = i, second_bad = j;
            }
            if (is_weight(x->kind) && is_weight(y->kind) && bytes_overlap(x, y)) bad_weight++;
        }
    }
    for (i = 0; i < info.num_steps; i++) {
        size_t raw = 0, al = 0;
        for (j = 0; j < n; j++)
            if (is_arena(b[j].kind) && b[j].first_step <= i && i <= b[j].last_step) {
                raw += b[j].bytes;
                al += align64(b[j].bytes);
            }
        if (raw > lb_raw) lb_raw = raw;
        if (al > lb_aligned) lb_aligned = al;
    }
    CHECK(bad_arena == 0, "graph %d (%s): %d overlapping pairs of live arena buffers (e.g. %d '%s' [%d,%d] @%d+%d "
          "and %d '%s' [%d,%d] @%d+%d)", gi, what, bad_arena, first_bad, first_bad >= 0 ? b[first_bad].name : "",
          first_bad >= 0 ? b[first_bad].first_step : 0, first_bad >= 0 ? b[first_bad].last_step : 0,
          first_bad >= 0 ? (int)b[first_bad].offset : 0, first_bad >= 0 ? (int)b[first_bad].bytes : 0, second_bad,
          second_bad >= 0 ? b[second_bad].name : "", second_bad >= 0 ? b[second_bad].first_step : 0,
          second_bad >= 0 ? b[second_bad].last_step : 0, second_bad >= 0 ? (int)b[second_bad].offset : 0,
          second_bad >= 0 ? (int)b[second_bad].bytes : 0);
    CHECK(bad_weight == 0, "graph %d (%s): %d overlapping pairs of param/constant buffers", gi, what, bad_weight);
    CHECK(bad_align == 0, "graph %d (%s): %d offsets not a multiple of 64", gi, what, bad_align);
    CHECK(bad_fit == 0, "graph %d (%s): %d buffers outside the arena/weight memory", gi, what, bad_fit);
    CHECK(bad_view == 0, "graph %d (%s): %d bad views (parent out of range, offset past the parent, or the parent "
          "dead while the view is used)", gi, what, bad_view);
    CHECK(bad_range == 0, "graph %d (%s): %d buffers with a bad kind or live range", gi, what, bad_range);
    CHECK(info.arena_bytes <= info.no_reuse_bytes, "graph %d (%s): arena %d > no-reuse %d", gi, what,
          (int)info.arena_bytes, (int)info.no_reuse_bytes);
    if (!no_reuse && info.arena_bytes < info.no_reuse_bytes) graphs_with_reuse++;
    CHECK(info.arena_bytes >= info.lower_bound_bytes, "graph %d (%s): arena %d < lower bound %d", gi, what,
          (int)info.arena_bytes, (int)info.lower_bound_bytes);
    CHECK(info.no_reuse_bytes >= sum_raw && info.no_reuse_bytes <= sum_aligned + 64,
          "graph %d (%s): no_reuse_bytes %d, buffers add up to %d (%d aligned)", gi, what, (int)info.no_reuse_bytes,
          (int)sum_raw, (int)sum_aligned);
    if (info.num_steps > 0)
        CHECK(info.lower_bound_bytes >= lb_raw && info.lower_bound_bytes <= lb_aligned,
              "graph %d (%s): lower_bound_bytes %d, but the live buffers peak at %d (%d aligned)", gi, what,
              (int)info.lower_bound_bytes, (int)lb_raw, (int)lb_aligned);
    return info.lower_bound_bytes ? (double)info.arena_bytes / (double)info.lower_bound_bytes : 0.0;
}

static int set_sources(rlx_program* p, const rgraph* r, int gi) {
    int i;
    for (i = 0; i < r->nsrc; i++) {
        const source* s = &r->src[i];
        rlx_result res = s->is_param ? rlx_set_param_f32(p, s->name, s->data, (size_t)s->n)
                                     : rlx_set_input_f32(p, s->name, s->data, (size_t)s->n);
        if (res != RLX_OK) {
            CHECK(0, "graph %d: set %s: %s: %s", gi, s->name, rlx_result_string(res), rlx_program_error(p));
            return 0;
        }
    }
    return 1;
}

typedef struct outputs {
    int n;
    unsigned char* data[MAX_OUTPUTS];
    size_t bytes[MAX_OUTPUTS];
    rlx_dtype dtype[MAX_OUTPUTS];
} outputs;

static void free_outputs(outputs* o) {
    int i;
    for (i = 0; i < o->n; i++) free(o->data[i]);
    o->n = 0;
}

/* reads every output in its own dtype (and checks rlx_output_ptr agrees) */
static int read_outputs(rlx_program* p, const rgraph* r, outputs* o, int gi) {
    int i;
    o->n = 0;
    for (i = 0; i < r->nout; i++) {
        const void* ptr = NULL;
        rlx_dtype dt = RLX_DTYPE_INVALID;
        int rank = -1;
        int64_t shape[RLX_MAX_RANK];
        size_t bytes;
        rlx_result res = rlx_output_ptr(p, r->out_names[i], &ptr, &dt, &rank, shape);
        if (res != RLX_OK || ptr == NULL || rlx_dtype_size(dt) == 0 || rank < 0 || rank > RLX_MAX_RANK) {
            CHECK(0, "graph %d: output_ptr(%s) = %s: %s", gi, r->out_names[i], rlx_result_string(res),
                  rlx_program_error(p));
            return 0;
        }
        bytes = (size_t)count_of(rank, shape) * rlx_dtype_size(dt);
        o->data[i] = (unsigned char*)malloc(bytes);
        o->bytes[i] = bytes;
        o->dtype[i] = dt;
        o->n = i + 1;
        if (!o->data[i]) return 0;
        res = rlx_get_output(p, r->out_names[i], dt, o->data[i], bytes);
        if (res != RLX_OK) {
            CHECK(0, "graph %d: get_output(%s) = %s: %s", gi, r->out_names[i], rlx_result_string(res),
                  rlx_program_error(p));
            return 0;
        }
        if (memcmp(ptr, o->data[i], bytes) != 0) {
            CHECK(0, "graph %d: output_ptr(%s) and get_output disagree", gi, r->out_names[i]);
            return 0;
        }
    }
    return 1;
}

static int first_diff(const outputs* a, const outputs* b, int* which, size_t* at) {
    int i;
    size_t k;
    for (i = 0; i < a->n && i < b->n; i++) {
        if (a->bytes[i] != b->bytes[i] || a->dtype[i] != b->dtype[i]) {
            *which = i;
            *at = 0;
            return 1;
        }
        for (k = 0; k < a->bytes[i]; k++)
            if (a->data[i][k] != b->data[i][k]) {
                *which = i;
                *at = k;
                return 1;
            }
    }
    if (a->n != b->n) {
        *which = a->n < b->n ? a->n : b->n;
        *at = 0;
        return 1;
    }
    return 0;
}

static float f32_at(const outputs* o, int i, size_t byte) {
    float f = 0;
    if (o->dtype[i] == RLX_F32 && byte / 4 * 4 + 4 <= o->bytes[i]) memcpy(&f, o->data[i] + byte / 4 * 4, 4);
    return f;
}

static void new_input_values(rgraph* r) {
    int i;
    int64_t k;
    for (i = 0; i < r->nsrc; i++)
        if (!r->src[i].is_param)
            for (k = 0; k < r->src[i].n; k++) r->src[i].data[k] = (float)th_uniform(-3.0, 3.0);
}

static void compare(const outputs* a, const outputs* b, const rgraph* r, int gi, const char* what) {
    int which = -1;
    size_t at = 0;
    int differ = first_diff(a, b, &which, &at);
    CHECK(!differ, "graph %d: %s: output %s differs at byte %d (%.9g vs %.9g)", gi, what,
          which >= 0 && which < r->nout ? r->out_names[which] : "?", (int)at, differ ? (double)f32_at(a, which, at) : 0.0,
          differ ? (double)f32_at(b, which, at) : 0.0);
}

static void run_graph(int gi, double* ratio_sum, double* ratio_max, int* nratio, int* nsteps_total) {
    rgraph r;
    rlx_program *p = NULL, *q = NULL;
    rlx_compile_desc cd;
    rlx_result res;
    outputs o1, o2, o3;
    int i, ok;
    double ratio;

    o1.n = o2.n = o3.n = 0;
    ok = build(&r, (uint64_t)gi + 1);
    CHECK(ok, "graph %d: builder failed: %s", gi, r.g ? rlx_graph_error(r.g) : "out of memory");
    if (!ok) {
        free_graph(&r);
        return;
    }
    memset(&cd, 0, sizeof cd);
    cd.num_threads = gi % 3 == 0 ? 2 : 1;
    res = rlx_compile(r.g, &cd, &p);
    CHECK(res == RLX_OK, "graph %d: compile: %s: %s", gi, rlx_result_string(res), rlx_graph_error(r.g));
    cd.flags = RLX_COMPILE_NO_REUSE;
    res = rlx_compile(r.g, &cd, &q);
    CHECK(res == RLX_OK, "graph %d: compile (NO_REUSE): %s: %s", gi, rlx_result_string(res), rlx_graph_error(r.g));
    if (p && q) {
        rlx_plan_info info;
        ratio = check_plan(p, 0, gi);
        check_plan(q, 1, gi);
        if (ratio > 0) {
            *ratio_sum += ratio;
            if (ratio > *ratio_max) *ratio_max = ratio;
            (*nratio)++;
        }
        if (rlx_program_plan(p, &info) == RLX_OK) *nsteps_total += info.num_steps;

        if (set_sources(p, &r, gi) && set_sources(q, &r, gi)) {
            res = rlx_run(p);
            CHECK(res == RLX_OK, "graph %d: run: %s: %s", gi, rlx_result_string(res), rlx_program_error(p));
            res = rlx_run(q);
            CHECK(res == RLX_OK, "graph %d: run (NO_REUSE): %s: %s", gi, rlx_result_string(res), rlx_program_error(q));
            if (read_outputs(p, &r, &o1, gi) && read_outputs(q, &r, &o2, gi)) {
                compare(&o1, &o2, &r, gi, "default vs NO_REUSE");
                /* params come back intact */
                for (i = 0; i < r.nout; i++)
                    if (r.out_param[i] >= 0) {
                        const source* s = &r.src[r.out_param[i]];
                        CHECK(o1.dtype[i] == RLX_F32 && o1.bytes[i] == (size_t)s->n * 4 &&
                                  memcmp(o1.data[i], s->data, o1.bytes[i]) == 0,
                              "graph %d: param %s read back as output %s differs", gi, s->name, r.out_names[i]);
                    }
                /* a second run gives the same */
                res = rlx_run(p);
                CHECK(res == RLX_OK, "graph %d: second run: %s", gi, rlx_result_string(res));
                if (read_outputs(p, &r, &o3, gi)) compare(&o1, &o3, &r, gi, "first vs second run");
                free_outputs(&o3);
            }
            free_outputs(&o1);
            free_outputs(&o2);
            /* new inputs: still the same on both */
            new_input_values(&r);
            if (set_sources(p, &r, gi) && set_sources(q, &r, gi) && rlx_run(p) == RLX_OK && rlx_run(q) == RLX_OK &&
                read_outputs(p, &r, &o1, gi) && read_outputs(q, &r, &o2, gi))
                compare(&o1, &o2, &r, gi, "default vs NO_REUSE with new inputs");
            free_outputs(&o1);
            free_outputs(&o2);
        }
    }
    rlx_program_destroy(p);
    rlx_program_destroy(q);
    free_graph(&r);
}

int main(int argc, char** argv) {
    int gi, n = NUM_GRAPHS, nratio = 0, nsteps = 0;
    double ratio_sum = 0, ratio_max = 0;
    if (argc > 1) n = atoi(argv[1]);
    for (gi = 0; gi < n; gi++) run_graph(gi, &ratio_sum, &ratio_max, &nratio, &nsteps);
    printf("planner: arena/lower-bound over %d graphs: mean %.2f, max %.2f\n", nratio,
           nratio ? ratio_sum / nratio : 0.0, ratio_max);
    printf("planner: %d graphs, %.1f steps each on average, %d reuse memory\n", n, n ? (double)nsteps / n : 0.0,
           graphs_with_reuse);
    TH_CHECK(graphs_with_reuse > n / 4, "only %d of %d graphs reuse any arena memory", graphs_with_reuse, n);
    return th_summary("planner");
}
