#version 460
// kernels: reduce_thread reduce_block reduce_final arg_reduce softmax norm_rows add_norm group_norm cumsum topk sample
/* reduce.comp - reductions and row kernels of the Vulkan backend (the port of kernels/cuda/reduce.cu):
   sum/mean/prod/max/min, argmax/argmin, softmax/log_softmax, layernorm/rmsnorm, add+norm, group_norm, cumsum,
   topk, sample.

   Accumulation follows the CPU backend: float inputs accumulate in double (sums, products, statistics of
   the norms), integer sums and products in uint64 with wrap-around, integer max/min in int64. A reduction
   over several invocations adds in a different order than the CPU's sequential loop (rlx_block_reduce_*
   combines in the order of the CUDA kernels); the one-invocation-per-output kernels (reduce_thread, cumsum,
   arg_reduce in thread mode) follow the CPU's order exactly.

   Row kernels run one workgroup per row (stride gl_NumWorkGroups.x over rows); their workgroup size is a power
   of two from 32 to 256 (topk and sample: 256). */
#include "common.glsl"

/* ---- small helpers ------------------------------------------------------------------------------------------ */
/* The workgroup size as int64, widened at run time (SPIR-V 1.3 cannot widen a specialization constant), and
   the first index and the stride of a grid-stride loop. */
int64_t rd_nt() {
    uint n = gl_WorkGroupSize.x;
    return int64_t(n);
}
int64_t rd_gid() { return int64_t(gl_WorkGroupID.x) * rd_nt() + int64_t(gl_LocalInvocationID.x); }
int64_t rd_gstride() { return rd_nt() * int64_t(gl_NumWorkGroups.x); }

/* offset of output element i in input 0 (rlx_offsets over a.dims with strides a.st[0]) */
int64_t rd_offset0(int64_t i) {
    int64_t off[4];
    rlx_offsets(1, i, off);
    return off[0];
}

/* ---- reductions over a set of axes --------------------------------------------------------------------------
   Output element o (row-major over the kept dims a.dims, a.rank) starts at input offset rlx_offsets(o) with
   strides a.st[0]; the reduced elements add ia-described offsets: ia[0..7] reduced dims, ia[8..15] their
   strides, ia[16] the number of reduced dims, ia[17] their element count. a.n = output count.
   Partial results travel as two 8-byte words: the value (double bits or an integer) and a NaN flag.
   The accumulator holds a double value and a NaN flag (float inputs) or an int64 value (integer inputs: sums
   and products wrap). */
#if defined(RLX_K_reduce_thread) || defined(RLX_K_reduce_block) || defined(RLX_K_reduce_final)
struct RdAcc {
    double v;    /* float inputs */
    int nan;     /* float inputs: a NaN was seen (max/min) */
    int64_t iv;  /* integer inputs */
};

RdAcc rd_acc_init(int op) {
    RdAcc c;
    c.nan = 0;
    c.v = op == RLX_OP_PROD ? 1.0lf : op == RLX_OP_REDUCE_MAX ? -rlx_inf_d() : op == RLX_OP_REDUCE_MIN ? rlx_inf_d() : 0.0lf;
    c.iv = op == RLX_OP_PROD ? 1l : op == RLX_OP_REDUCE_MAX ? (-9223372036854775807l - 1l)
                                    : op == RLX_OP_REDUCE_MIN ? 9223372036854775807l : 0l;
    return c;
}
void rd_acc_add_d(inout RdAcc c, int op, double x) {
    switch (op) {
    case RLX_OP_PROD: c.v *= x; break;
    case RLX_OP_REDUCE_MAX: if (rlx_isnan(x)) c.nan = 1; else if (x > c.v) c.v = x; break;
    case RLX_OP_REDUCE_MIN: if (rlx_isnan(x)) c.nan = 1; else if (x < c.v) c.v = x; break;
    default: c.v += x; break;
    }
}
void rd_acc_add_i(inout RdAcc c, int op, int64_t x) {
    switch (op) {
    case RLX_OP_PROD: c.iv *= x; break;
    case RLX_OP_REDUCE_MAX: if (x > c.iv) c.iv = x; break;
    case RLX_OP_REDUCE_MIN: if (x < c.iv) c.iv = x; break;
    default: c.iv += x; break;
    }
}
/* add element i of the input (dtype dt) */
void rd_acc_add(inout RdAcc c, bool isf, int op, uint64_t x, int dt, int64_t i) {
    if (isf) rd_acc_add_d(c, op, rlx_ld_d(x, dt, i));
    else rd_acc_add_i(c, op, rlx_ld_i(x, dt, i));
}
/* merge a partial (the CUDA accumulators' merge) */
void rd_acc_merge(inout RdAcc c, bool isf, int op, RdAcc o) {
    if (!isf) {
        rd_acc_add_i(c, op, o.iv);
        return;
    }
    c.nan |= o.nan;
    switch (op) {
    case RLX_OP_PROD: c.v *= o.v; break;
    case RLX_OP_REDUCE_MAX: if (o.v > c.v) c.v = o.v; break;
    case RLX_OP_REDUCE_MIN: if (o.v < c.v) c.v = o.v; break;
    default: c.v += o.v; break;
    }
}
void rd_acc_store(RdAcc c, bool isf, int64_t o, int64_t count) {
    RlxArgs a = rlx_pc.a;
    if (!isf) {
        rlx_st_from_i(a.out_, a.dt_out, o, c.iv, 0);
        return;
    }
    double r = c.v;
    if (a.op == RLX_OP_MEAN) r /= double(count);
    if (c.nan != 0) r = rlx_nan_d();
    rlx_st_from_d(a.out_, a.dt_out, o, r);
}
void rd_acc_save(RdAcc c, bool isf, uint64_t p) {
    rlx_u64(p, 0) = isf ? doubleBitsToUint64(c.v) : uint64_t(c.iv);
    rlx_u64(p, 1) = uint64_t(c.nan);
}
RdAcc rd_acc_load(bool isf, uint64_t p) {
    RdAcc c;
    const uint64_t w = rlx_u64(p, 0);
    c.v = isf ? uint64BitsToDouble(w) : 0.0lf;
    c.iv = int64_t(w);
    c.nan = isf ? int(rlx_u64(p, 1)) : 0;
    return c;
}
#endif

#if defined(RLX_K_reduce_block)
/* offset of reduced element e (row-major over the reduced dims) */
int64_t rd_red_offset(RlxArgs a, int64_t e) {
    int64_t off = 0;
    const int nr = int(a.ia[16]);
    if (a.ia[17] <= 0xFFFFFFFFl) {
        uint r = uint(e);
        for (int d = 7; d >= 0; d--)
            if (d < nr) {
                const uint dim = uint(a.ia[d]), q = r / dim;
                off += int64_t(r - q * dim) * a.ia[8 + d];
                r = q;
            }
    } else {
        int64_t r = e;
        for (int d = 7; d >= 0; d--)
            if (d < nr) {
                const int64_t q = r / a.ia[d];
                off += (r - q * a.ia[d]) * a.ia[8 + d];
                r = q;
            }
    }
    return off;
}
#endif

/* reduce_thread: one invocation per output (grid-stride), the reduced elements in the CPU's order (row-major).
   ia: 0..7 reduced dims, 8..15 their strides, 16 their count, 17 reduced element count. */
#if defined(RLX_K_reduce_thread)
void main() {
    RlxArgs a = rlx_pc.a;
    const uint64_t x = a.in_[0];
    const int dt = a.dt_in[0], nr = int(a.ia[16]), op = a.op;
    const bool isf = rlx_is_float(dt);
    const int64_t count = a.ia[17];
    int64_t rdim[8], rst[8];
    for (int d = 0; d < 8; d++) {
        rdim[d] = a.ia[d];
        rst[d] = a.ia[8 + d];
    }
    const int64_t step = rd_gstride();
    for (int64_t o = rd_gid(); o < a.n; o += step) {
        int64_t idx[8];
        RdAcc acc = rd_acc_init(op);
        for (int d = 0; d < 8; d++) idx[d] = 0;
        int64_t off = rd_offset0(o);
        for (int64_t e = 0; e < count; e++) {
            rd_acc_add(acc, isf, op, x, dt, off);
            /* step the reduced multi-index, innermost first */
            for (int d = 7; d >= 0; d--) {
                if (d < nr) {
                    off += rst[d];
                    if (++idx[d] < rdim[d]) break;
                    off -= idx[d] * rst[d];
                    idx[d] = 0;
                }
            }
        }
        rd_acc_store(acc, isf, o, count);
    }
}
#endif

/* reduce_block: one workgroup per output (stride gl_NumWorkGroups.x over outputs), invocations stride over the
   reduced elements. With ia[18] = S > 1 splits, workgroup unit u handles output u / S and the S-th part
   [part*ia[19], ...) of its elements (ia[19] elements per part) and writes a partial to in[1] (2 words per
   partial); reduce_final combines them. ia: 0..17 as reduce_thread, 18 splits, 19 elements per split. */
#if defined(RLX_K_reduce_block)
void main() {
    RlxArgs a = rlx_pc.a;
    const uint64_t x = a.in_[0];
    const int dt = a.dt_in[0], op = a.op;
    const bool isf = rlx_is_float(dt);
    const int64_t count = a.ia[17], splits = a.ia[18] > 1 ? a.ia[18] : 1, per = splits > 1 ? a.ia[19] : count;
    const uint t = gl_LocalInvocationID.x;
    for (int64_t u = int64_t(gl_WorkGroupID.x); u < a.n * splits; u += int64_t(gl_NumWorkGroups.x)) {
        const int64_t o = u / splits, part = u - o * splits;
        const int64_t e0 = part * per, e1 = e0 + per < count ? e0 + per : count;
        const int64_t base = rd_offset0(o);
        RdAcc acc = rd_acc_init(op);
        for (int64_t e = e0 + int64_t(t); e < e1; e += rd_nt())
            rd_acc_add(acc, isf, op, x, dt, base + rd_red_offset(a, e));
        const int rop = op == RLX_OP_PROD ? RLX_ROP_PROD : op == RLX_OP_REDUCE_MAX ? RLX_ROP_MAX
                        : op == RLX_OP_REDUCE_MIN ? RLX_ROP_MIN : RLX_ROP_SUM;
        if (isf) {
            acc.nan = int(rlx_block_reduce_i(int64_t(acc.nan), RLX_ROP_OR, 0l));
            acc.v = rlx_block_reduce_d(acc.v, rop, rd_acc_init(op).v);
        } else {
            acc.iv = rlx_block_reduce_i(acc.iv, rop, rd_acc_init(op).iv);
        }
        if (t == 0u) {
            if (splits > 1) rd_acc_save(acc, isf, a.in_[1] + 16ul * uint64_t(u));
            else rd_acc_store(acc, isf, o, count);
        }
    }
}
#endif

/* reduce_final: one invocation per output (grid-stride) combines the ia[18] partials of reduce_block (in[1]) in
   order. ia: 17 reduced element count, 18 splits. */
#if defined(RLX_K_reduce_final)
void main() {
    RlxArgs a = rlx_pc.a;
    const uint64_t part = a.in_[1];
    const bool isf = rlx_is_float(a.dt_in[0]);
    const int64_t splits = a.ia[18];
    const int64_t step = rd_gstride();
    for (int64_t o = rd_gid(); o < a.n; o += step) {
        RdAcc acc = rd_acc_load(isf, part + 16ul * uint64_t(o * splits));
        for (int64_t s = 1; s < splits; s++) rd_acc_merge(acc, isf, a.op, rd_acc_load(isf, part + 16ul * uint64_t(o * splits + s)));
        rd_acc_store(acc, isf, o, a.ia[17]);
    }
}
#endif

/* ---- argmax / argmin (also the greedy path of sample) --------------------------------------------------------
   The best element so far: value (double for float inputs, int64 for integers), its index, and the first NaN
   index. Ties go to the first index, the first NaN wins. */
#if defined(RLX_K_arg_reduce) || defined(RLX_K_sample)
struct RdBest {
    double v;       /* float inputs */
    int64_t iv;     /* integer inputs */
    int64_t i;      /* index of the value (-1: none yet) */
    int64_t nan_i;  /* first NaN index (-1: none) */
};
RdBest rd_best_init() {
    RdBest b;
    b.v = 0.0lf;
    b.iv = 0l;
    b.i = -1l;
    b.nan_i = -1l;
    return b;
}
/* k increases across calls of one invocation */
void rd_best_add_d(inout RdBest b, bool ismax, double x, int64_t k) {
    if (rlx_isnan(x)) {
        if (b.nan_i < 0) b.nan_i = k;
        return;
    }
    if (b.i < 0 || (ismax ? x > b.v : x < b.v)) {
        b.v = x;
        b.i = k;
    }
}
void rd_best_add_i(inout RdBest b, bool ismax, int64_t x, int64_t k) {
    if (b.i < 0 || (ismax ? x > b.iv : x < b.iv)) {
        b.iv = x;
        b.i = k;
    }
}
void rd_best_merge(inout RdBest b, bool isf, bool ismax, RdBest o) {
    if (o.nan_i >= 0 && (b.nan_i < 0 || o.nan_i < b.nan_i)) b.nan_i = o.nan_i;
    if (o.i < 0) return;
    const bool better = isf ? (ismax ? o.v > b.v : o.v < b.v) : (ismax ? o.iv > b.iv : o.iv < b.iv);
    const bool same = isf ? o.v == b.v : o.iv == b.iv;
    if (b.i < 0 || better || (same && o.i < b.i)) {
        b.v = o.v;
        b.iv = o.iv;
        b.i = o.i;
    }
}
int64_t rd_best_result(RdBest b) { return b.nan_i >= 0 ? b.nan_i : (b.i < 0 ? 0l : b.i); }

/* Workgroup-wide best (a halving tree in shared memory, workgroup size a power of two, at most 256). Every
   invocation gets the result. */
shared uint64_t rd_best_v[256];
shared int64_t rd_best_i[256], rd_best_n[256];
RdBest rd_best_block(bool isf, bool ismax, RdBest b) {
    const uint t = gl_LocalInvocationID.x;
    barrier();
    rd_best_v[t] = isf ? doubleBitsToUint64(b.v) : uint64_t(b.iv);
    rd_best_i[t] = b.i;
    rd_best_n[t] = b.nan_i;
    barrier();
    for (uint s = gl_WorkGroupSize.x >> 1; s > 0u; s >>= 1) {
        if (t < s) {
            RdBest x, y;
            x.v = uint64BitsToDouble(rd_best_v[t]); x.iv = int64_t(rd_best_v[t]); x.i = rd_best_i[t]; x.nan_i = rd_best_n[t];
            y.v = uint64BitsToDouble(rd_best_v[t + s]); y.iv = int64_t(rd_best_v[t + s]); y.i = rd_best_i[t + s]; y.nan_i = rd_best_n[t + s];
            rd_best_merge(x, isf, ismax, y);
            rd_best_v[t] = isf ? doubleBitsToUint64(x.v) : uint64_t(x.iv);
            rd_best_i[t] = x.i;
            rd_best_n[t] = x.nan_i;
        }
        barrier();
    }
    b.v = uint64BitsToDouble(rd_best_v[0]);
    b.iv = int64_t(rd_best_v[0]);
    b.i = rd_best_i[0];
    b.nan_i = rd_best_n[0];
    barrier();
    return b;
}
#endif

/* arg_reduce: rows r = o * inner + i of x viewed as [outer, len, inner]; output int64 [outer * inner].
   ia: 0 rows, 1 len, 2 inner, 3 mode (0: one invocation per row (grid-stride), sequential like the CPU;
   1: one workgroup per row). op: ARGMAX or ARGMIN. */
#if defined(RLX_K_arg_reduce)
void main() {
    RlxArgs a = rlx_pc.a;
    const uint64_t x = a.in_[0], y = a.out_;
    const int dt = a.dt_in[0];
    const bool isf = rlx_is_float(dt), ismax = a.op == RLX_OP_ARGMAX;
    const int64_t rows = a.ia[0], len = a.ia[1], inner = a.ia[2];
    const uint t = gl_LocalInvocationID.x;
    if (a.ia[3] == 0) {
        const int64_t step = rd_gstride();
        for (int64_t r = rd_gid(); r < rows; r += step) {
            const int64_t o = r / inner, i = r - o * inner, base = o * len * inner + i;
            RdBest b = rd_best_init();
            for (int64_t k = 0; k < len && b.nan_i < 0; k++) {
                if (isf) rd_best_add_d(b, ismax, rlx_ld_d(x, dt, base + k * inner), k);
                else rd_best_add_i(b, ismax, rlx_ld_i(x, dt, base + k * inner), k);
            }
            rlx_i64(y, r) = rd_best_result(b);
        }
        return;
    }
    for (int64_t r = int64_t(gl_WorkGroupID.x); r < rows; r += int64_t(gl_NumWorkGroups.x)) {
        const int64_t o = r / inner, i = r - o * inner, base = o * len * inner + i;
        RdBest b = rd_best_init();
        for (int64_t k = int64_t(t); k < len; k += rd_nt()) {
            if (isf) rd_best_add_d(b, ismax, rlx_ld_d(x, dt, base + k * inner), k);
            else rd_best_add_i(b, ismax, rlx_ld_i(x, dt, base + k * inner), k);
        }
        b = rd_best_block(isf, ismax, b);
        if (t == 0u) rlx_i64(y, r) = rd_best_result(b);
    }
}
#endif

/* softmax / log_softmax: one workgroup per row of x viewed as [outer, len, inner] (row r = o * inner + i,
   elements strided by inner). f32 rows with inner == 1 follow the CPU's f32 path (max and exp in f32, the sum
   in double); everything else computes in double. ia: 0 rows, 1 len, 2 inner. op: SOFTMAX or LOG_SOFTMAX. */
#if defined(RLX_K_softmax)
void main() {
    RlxArgs a = rlx_pc.a;
    const uint64_t x = a.in_[0], y = a.out_;
    const int dt = a.dt_out;
    const int64_t rows = a.ia[0], len = a.ia[1], inner = a.ia[2];
    const bool islog = a.op == RLX_OP_LOG_SOFTMAX;
    const int64_t t = int64_t(gl_LocalInvocationID.x), nt = rd_nt();
    for (int64_t r = int64_t(gl_WorkGroupID.x); r < rows; r += int64_t(gl_NumWorkGroups.x)) {
        const int64_t o = r / inner, i = r - o * inner, base = o * len * inner + i;
        if (dt == RLX_DT_F32 && inner == 1) {
            float mx = rlx_f32(x, base);
            double s = 0.0lf;
            for (int64_t k = t; k < len; k += nt) {
                const float v = rlx_f32(x, base + k);
                mx = v > mx ? v : mx;
            }
            mx = rlx_block_reduce_f(mx, RLX_ROP_MAX, mx);
            for (int64_t k = t; k < len; k += nt) s += double(rlx_exp_f(rlx_f32(x, base + k) - mx));
            s = rlx_block_reduce_d(s, RLX_ROP_SUM, 0.0lf);
            if (islog) {
                const float ls = float(rlx_log_d(s));
                for (int64_t k = t; k < len; k += nt) rlx_f32(y, base + k) = rlx_f32(x, base + k) - mx - ls;
            } else {
                const float inv = float(1.0lf / s);
                for (int64_t k = t; k < len; k += nt) rlx_f32(y, base + k) = rlx_exp_f(rlx_f32(x, base + k) - mx) * inv;
            }
        } else {
            double mx = rlx_ld_d(x, dt, base), s = 0.0lf;
            for (int64_t k = t; k < len; k += nt) {
                const double v = rlx_ld_d(x, dt, base + k * inner);
                mx = v > mx ? v : mx;
            }
            mx = rlx_block_reduce_d(mx, RLX_ROP_MAX, mx);
            for (int64_t k = t; k < len; k += nt) s += rlx_exp_d(rlx_ld_d(x, dt, base + k * inner) - mx);
            s = rlx_block_reduce_d(s, RLX_ROP_SUM, 0.0lf);
            const double ls = rlx_log_d(s);
            for (int64_t k = t; k < len; k += nt) {
                const double v = rlx_ld_d(x, dt, base + k * inner) - mx;
                rlx_st_from_d(y, dt, base + k * inner, islog ? v - ls : rlx_exp_d(v) / s);
            }
        }
    }
}
#endif

/* ---- layernorm / rmsnorm and add + norm ---------------------------------------------------------------------
   One workgroup per row of len contiguous elements (the normalised trailing dims). Statistics in double (two
   passes: mean, then the biased variance of x - mean; rmsnorm uses mean 0); y = (x - mean) / sqrt(var + eps),
   then * gamma, + beta. f32 rounds the normalised value to f32 before gamma/beta (the CPU's f32 path); the
   other dtypes apply gamma/beta in double. gamma and beta have the row's length. */
#if defined(RLX_K_norm_rows) || defined(RLX_K_add_norm)
void rd_norm_row(int dt, uint64_t xs, uint64_t y, uint64_t gm, uint64_t bt, int64_t base, int64_t len, bool ln) {
    const int64_t t = int64_t(gl_LocalInvocationID.x), nt = rd_nt();
    const double eps = rlx_pc.a.fa[0];
    double mean = 0.0lf, var = 0.0lf;
    if (ln) {
        for (int64_t k = t; k < len; k += nt) mean += rlx_ld_d(xs, dt, base + k);
        mean = rlx_block_reduce_d(mean, RLX_ROP_SUM, 0.0lf) / double(len);
    }
    for (int64_t k = t; k < len; k += nt) {
        const double d = rlx_ld_d(xs, dt, base + k) - mean;
        precise const double d2 = d * d;
        var += d2;
    }
    var = rlx_block_reduce_d(var, RLX_ROP_SUM, 0.0lf) / double(len);
    const double inv = 1.0lf / sqrt(var + eps);
    for (int64_t k = t; k < len; k += nt) {
        precise const double d = (rlx_ld_d(xs, dt, base + k) - mean) * inv;
        if (dt == RLX_DT_F32) {
            float v = float(d);
            if (gm != 0ul) {
                precise const float g = v * rlx_f32(gm, k);
                v = g;
            }
            if (bt != 0ul) v += rlx_f32(bt, k);
            rlx_f32(y, base + k) = v;
        } else {
            double v = d;
            if (gm != 0ul) {
                precise const double g = v * rlx_ld_d(gm, dt, k);
                v = g;
            }
            if (bt != 0ul) v += rlx_ld_d(bt, dt, k);
            rlx_st_from_d(y, dt, base + k, v);
        }
    }
}
#endif

/* norm_rows: in: 0 x, 1 gamma (0 = none), 2 beta (0 = none). ia: 0 rows, 1 len, 2 layernorm?  fa[0] eps. */
#if defined(RLX_K_norm_rows)
void main() {
    RlxArgs a = rlx_pc.a;
    const int64_t rows = a.ia[0], len = a.ia[1];
    for (int64_t r = int64_t(gl_WorkGroupID.x); r < rows; r += int64_t(gl_NumWorkGroups.x))
        rd_norm_row(a.dt_out, a.in_[0], a.out_, a.in_[1], a.in_[2], r * len, len, a.ia[2] != 0);
}
#endif

/* add_norm: in: 0 x, 1 residual, 2 gamma, 3 beta, 4 the sum buffer (0: none; the sum then goes through y).
   ia: 0 rows, 1 len, 2 layernorm?  fa[0] eps. The sum x + r is stored (rounded to the dtype) first and the
   statistics read it back, as the CPU does (each invocation reads back only the elements it wrote). */
#if defined(RLX_K_add_norm)
void main() {
    RlxArgs a = rlx_pc.a;
    const int dt = a.dt_out;
    const int64_t rows = a.ia[0], len = a.ia[1];
    const uint64_t x = a.in_[0], res = a.in_[1], y = a.out_;
    const uint64_t sum = a.in_[4] != 0ul ? a.in_[4] : y;
    const int64_t t = int64_t(gl_LocalInvocationID.x), nt = rd_nt();
    for (int64_t r = int64_t(gl_WorkGroupID.x); r < rows; r += int64_t(gl_NumWorkGroups.x)) {
        const int64_t base = r * len;
        for (int64_t k = t; k < len; k += nt) {
            if (dt == RLX_DT_F32) rlx_f32(sum, base + k) = rlx_f32(x, base + k) + rlx_f32(res, base + k);
            else rlx_st_from_d(sum, dt, base + k, rlx_ld_d(x, dt, base + k) + rlx_ld_d(res, dt, base + k));
        }
        memoryBarrierBuffer();
        barrier();
        rd_norm_row(dt, sum, y, a.in_[2], a.in_[3], base, len, a.ia[2] != 0);
        memoryBarrierBuffer();
        barrier();
    }
}
#endif

/* group_norm: one workgroup per (n, group): the group's Cg * S elements are contiguous. Mean and biased
   variance in double (two passes), y = (x - mean) * rstd * gamma[c] + beta[c] in double for every dtype (the
   CPU's rule). in: 0 x, 1 gamma (0 = none), 2 beta (0 = none). ia: 0 units (N * G), 1 C, 2 G, 3 S. fa[0] eps. */
#if defined(RLX_K_group_norm)
void main() {
    RlxArgs a = rlx_pc.a;
    const uint64_t x = a.in_[0], gm = a.in_[1], bt = a.in_[2], y = a.out_;
    const int dt = a.dt_out;
    const int64_t units = a.ia[0], C = a.ia[1], G = a.ia[2], S = a.ia[3], Cg = C / G, cnt = Cg * S;
    const int64_t t = int64_t(gl_LocalInvocationID.x), nt = rd_nt();
    for (int64_t u = int64_t(gl_WorkGroupID.x); u < units; u += int64_t(gl_NumWorkGroups.x)) {
        const int64_t base = u * cnt, g = u % G;
        double mean = 0.0lf, var = 0.0lf;
        for (int64_t k = t; k < cnt; k += nt) mean += rlx_ld_d(x, dt, base + k);
        mean = rlx_block_reduce_d(mean, RLX_ROP_SUM, 0.0lf) / double(cnt);
        for (int64_t k = t; k < cnt; k += nt) {
            const double d = rlx_ld_d(x, dt, base + k) - mean;
            precise const double d2 = d * d;
            var += d2;
        }
        var = rlx_block_reduce_d(var, RLX_ROP_SUM, 0.0lf);
        const double rstd = 1.0lf / sqrt(var / double(cnt) + a.fa[0]);
        for (int64_t k = t; k < cnt; k += nt) {
            const int64_t c = g * Cg + k / S;
            const double ga = gm != 0ul ? rlx_ld_d(gm, dt, c) : 1.0lf, be = bt != 0ul ? rlx_ld_d(bt, dt, c) : 0.0lf;
            precise const double nv = (rlx_ld_d(x, dt, base + k) - mean) * rstd;
            precise const double sv = nv * ga;
            rlx_st_from_d(y, dt, base + k, sv + be);
        }
    }
}
#endif

/* cumsum: one invocation per column (o, i) of x viewed as [outer, n, inner] (grid-stride), walking the axis
   sequentially (reverse: from the end). Floats accumulate in double and round every output once; integers and
   bool accumulate in uint64 (wrap-around) into int64. ia: 0 outer, 1 n, 2 inner, 3 exclusive, 4 reverse.
   a.n = outer * inner. */
#if defined(RLX_K_cumsum)
void main() {
    RlxArgs a = rlx_pc.a;
    const uint64_t x = a.in_[0], y = a.out_;
    const int dt = a.dt_in[0], odt = a.dt_out;
    const bool excl = a.ia[3] != 0, rev = a.ia[4] != 0;
    const int64_t n = a.ia[1], inner = a.ia[2];
    const int64_t step = rd_gstride();
    for (int64_t c = rd_gid(); c < a.n; c += step) {
        const int64_t o = c / inner, i = c - o * inner;
        if (odt == RLX_DT_I64) {
            int64_t acc = 0;
            for (int64_t s = 0; s < n; s++) {
                const int64_t off = (o * n + (rev ? n - 1 - s : s)) * inner + i;
                const int64_t v = rlx_ld_i(x, dt, off);
                if (excl) {
                    rlx_i64(y, off) = acc;
                    acc += v;
                } else {
                    acc += v;
                    rlx_i64(y, off) = acc;
                }
            }
        } else {
            double acc = 0.0lf;
            for (int64_t s = 0; s < n; s++) {
                const int64_t off = (o * n + (rev ? n - 1 - s : s)) * inner + i;
                const double v = rlx_ld_d(x, dt, off);
                if (excl) {
                    rlx_st_from_d(y, odt, off, acc);
                    acc += v;
                } else {
                    acc += v;
                    rlx_st_from_d(y, odt, off, acc);
                }
            }
        }
    }
}
#endif

/* ---- selection: the k best elements of a row, sorted best first ---------------------------------------------
   Keys are uint64, larger = better; ties go to the smaller index. Floats map monotonically (f32/f16/bf16 through
   their f32 bits, f64 through its bits; -0 equals +0; NaN gets `nan_key`); integers compare as int64. `flip`
   (all ones) reverses the order for the smallest-k.
   One workgroup of 256 invocations per row: a radix select (8 passes of 8 bits over the row) finds the k-th best
   key T and how many elements equal to T belong to the result; a compaction writes the k winners (the ties with
   the smallest indices) to a buffer of P = 2^ceil(log2 k) entries (keys, then 32-bit indices), padded with
   sentinels, and a bitonic sort orders it. The buffer is dynamic shared memory (rlx_smem, 3 * P words) or a
   slice of the scratch in device memory. */
#if defined(RLX_K_topk) || defined(RLX_K_sample)
shared uint rlx_smem[RLX_SMEM_WORDS];
shared uint rd_hist[256];  /* radix histogram; then the scan of the compaction */
shared uint64_t rd_prefix;
shared int64_t rd_remaining;
shared int rd_gt;
shared int64_t rd_eq_taken;
shared int rd_any;

/* the sort buffer in device memory (coherent: invocations of the workgroup read each other's writes) */
layout(buffer_reference, std430, buffer_reference_align = 8) coherent buffer RdSortU64 { uint64_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) coherent buffer RdSortU32 { uint v[]; };

/* The sort buffer of this workgroup: P keys (8 bytes), then P indices (4 bytes); with rd_global at the device
   address rd_buf, else in rlx_smem. The weights of sample reuse the key slots (double bits). */
bool rd_global = false;
uint64_t rd_buf = 0ul;
uint rd_P = 1u;

uint64_t rd_key_get(uint s) {
    if (rd_global) return RdSortU64(rd_buf + 8ul * uint64_t(s)).v[0];
    return uint64_t(rlx_smem[2u * s]) | (uint64_t(rlx_smem[2u * s + 1u]) << 32);
}
void rd_key_set(uint s, uint64_t k) {
    if (rd_global) {
        RdSortU64(rd_buf + 8ul * uint64_t(s)).v[0] = k;
    } else {
        rlx_smem[2u * s] = uint(k);
        rlx_smem[2u * s + 1u] = uint(k >> 32);
    }
}
uint rd_idx_get(uint s) {
    if (rd_global) return RdSortU32(rd_buf + 8ul * uint64_t(rd_P) + 4ul * uint64_t(s)).v[0];
    return rlx_smem[2u * rd_P + s];
}
void rd_idx_set(uint s, uint v) {
    if (rd_global) RdSortU32(rd_buf + 8ul * uint64_t(rd_P) + 4ul * uint64_t(s)).v[0] = v;
    else rlx_smem[2u * rd_P + s] = v;
}
/* barrier that also orders the sort buffer in device memory */
void rd_sync() {
    memoryBarrierBuffer();
    barrier();
}

uint64_t rd_fkey32(float f) {
    uint b = floatBitsToUint(f);
    if ((b & 0x7FFFFFFFu) == 0u) b = 0u; /* -0 -> +0 */
    b = (b >> 31) != 0u ? ~b : (b | 0x80000000u);
    return uint64_t(b) << 32;
}
uint64_t rd_fkey64(double d) {
    uint64_t b = doubleBitsToUint64(d);
    if ((b & 0x7FFFFFFFFFFFFFFFul) == 0ul) b = 0ul; /* -0 -> +0 */
    return (b >> 63) != 0ul ? ~b : (b | 0x8000000000000000ul);
}
/* key of -inf in the mapping of dt (the NaN key of sample) */
uint64_t rd_ninf_key(int dt) {
    return dt == RLX_DT_F64 ? rd_fkey64(-rlx_inf_d()) : rd_fkey32(uintBitsToFloat(0xFF800000u));
}

/* one row: element e at x[base + e * stride] */
struct RdRow {
    uint64_t x;
    int dt;
    int64_t base, stride;
    uint64_t nan_key, flip;
};
uint64_t rd_row_key(RdRow rw, int64_t e) {
    const int64_t off = rw.base + e * rw.stride;
    uint64_t k;
    if (rw.dt == RLX_DT_F64) {
        const double v = rlx_f64(rw.x, off);
        k = rlx_isnan(v) ? rw.nan_key : rd_fkey64(v);
    } else if (rlx_is_float(rw.dt)) {
        const float v = rlx_ld_f(rw.x, rw.dt, off);
        k = rlx_isnan(v) ? rw.nan_key : rd_fkey32(v);
    } else {
        k = uint64_t(rlx_ld_i(rw.x, rw.dt, off)) ^ 0x8000000000000000ul;
    }
    return k ^ rw.flip;
}

bool rd_sel_better(uint64_t ka, uint ia, uint64_t kb, uint ib) { return ka > kb || (ka == kb && ia < ib); }

/* Inclusive scan of one value per invocation over the workgroup; returns the inclusive sum, `total` the sum of
   all. */
uint rd_scan(uint v, out uint total) {
    const uint t = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x;
    rd_hist[t] = v;
    barrier();
    for (uint o = 1u; o < nt; o <<= 1) {
        const uint add = t >= o ? rd_hist[t - o] : 0u;
        barrier();
        rd_hist[t] += add;
        barrier();
    }
    const uint r = rd_hist[t];
    total = rd_hist[nt - 1u];
    barrier();
    return r;
}

/* Writes the k best (key, index) pairs of row rw (n elements) to the sort buffer [0, k) in any order, then pads
   it to P with sentinels and sorts it best first. */
void rd_select_sorted(RdRow rw, int64_t n, int64_t k) {
    const uint t = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x, P = rd_P;
    uint64_t prefix = 0ul, mask = 0ul;
    int64_t remaining = k;
    /* 1. radix select, most significant digit first */
    for (int pass = 7; pass >= 0; pass--) {
        const int sh = pass * 8;
        for (uint b = t; b < 256u; b += nt) rd_hist[b] = 0u;
        barrier();
        for (int64_t e = int64_t(t); e < n; e += rd_nt()) {
            const uint64_t key = rd_row_key(rw, e);
            if ((key & mask) == prefix) atomicAdd(rd_hist[uint(key >> sh) & 255u], 1u);
        }
        barrier();
        if (t == 0u) {
            int64_t c = 0;
            int digit = 0;
            for (int b = 255; b >= 0; b--) {
                if (c + int64_t(rd_hist[b]) >= remaining) {
                    digit = b;
                    break;
                }
                c += int64_t(rd_hist[b]);
            }
            rd_prefix = prefix | (uint64_t(digit) << sh);
            rd_remaining = remaining - c;
        }
        barrier();
        prefix = rd_prefix;
        remaining = rd_remaining;
        mask |= 0xFFul << sh;
        barrier();
    }
    /* 2. compaction: every key > T, and the first `remaining` keys == T by index */
    const uint64_t T = prefix;
    const int64_t need_eq = remaining, first_eq = k - need_eq;
    if (t == 0u) {
        rd_gt = 0;
        rd_eq_taken = 0;
    }
    barrier();
    for (int64_t b0 = 0; b0 < n; b0 += rd_nt()) {
        const int64_t e = b0 + int64_t(t);
        const uint64_t key = e < n ? rd_row_key(rw, e) : 0ul;
        const bool gt = e < n && key > T, eq = e < n && key == T;
        if (gt) {
            const uint slot = uint(atomicAdd(rd_gt, 1));
            rd_key_set(slot, key);
            rd_idx_set(slot, uint(e));
        }
        /* does any invocation hold a key equal to T? */
        barrier();
        if (t == 0u) rd_any = 0;
        barrier();
        if (eq) rd_any = 1;
        barrier();
        if (rd_any != 0) {
            uint total;
            const uint incl = rd_scan(eq ? 1u : 0u, total);
            const int64_t taken = rd_eq_taken, r = taken + int64_t(incl) - 1;
            if (eq && r < need_eq) {
                rd_key_set(uint(first_eq + r), key);
                rd_idx_set(uint(first_eq + r), uint(e));
            }
            barrier();
            if (t == 0u) rd_eq_taken = taken + int64_t(total);
            barrier();
        }
    }
    for (int64_t s = k + int64_t(t); s < int64_t(P); s += rd_nt()) {
        rd_key_set(uint(s), 0ul);
        rd_idx_set(uint(s), 0xFFFFFFFFu);
    }
    rd_sync();
    /* 3. bitonic sort, best first */
    for (uint size = 2u; size != 0u && size <= P; size <<= 1)
        for (uint stride = size >> 1; stride > 0u; stride >>= 1) {
            for (uint q = t; q < P / 2u; q += nt) {
                const uint i = 2u * stride * (q / stride) + (q % stride), j = i + stride;
                const bool best_first = (i & size) == 0u;
                const uint64_t ki = rd_key_get(i), kj = rd_key_get(j);
                const uint ii = rd_idx_get(i), ij = rd_idx_get(j);
                if (rd_sel_better(kj, ij, ki, ii) == best_first) {
                    rd_key_set(i, kj);
                    rd_idx_set(i, ij);
                    rd_key_set(j, ki);
                    rd_idx_set(j, ii);
                }
            }
            rd_sync();
        }
}

/* Sort buffer of this workgroup: dynamic shared memory, or slice gl_WorkGroupID.x of the scratch in[1]
   (`slice` bytes each). */
void rd_sel_buffer(bool global, int64_t slice, uint P) {
    rd_global = global;
    rd_buf = global ? rlx_pc.a.in_[1] + uint64_t(gl_WorkGroupID.x) * uint64_t(slice) : 0ul;
    rd_P = P;
}
#endif

/* topk: rows r = o * inner + i of x viewed as [outer, n, inner] (one workgroup of 256 per row); output
   [outer, k, inner]: the values (element bits copied) or the int64 indices. in: 0 x, 1 scratch (global buffers
   only). ia: 0 rows, 1 n, 2 inner, 3 k, 4 largest, 5 which (0 values, 1 indices), 6 P, 7 global buffer?,
   8 slice bytes. */
#if defined(RLX_K_topk)
void main() {
    RlxArgs a = rlx_pc.a;
    const int64_t rows = a.ia[0], n = a.ia[1], inner = a.ia[2], k = a.ia[3];
    const bool which = a.ia[5] != 0;
    const int esz = rlx_dt_size(a.dt_in[0]);
    const uint64_t y = a.out_;
    const int64_t t = int64_t(gl_LocalInvocationID.x), nt = rd_nt();
    rd_sel_buffer(a.ia[7] != 0, a.ia[8], uint(a.ia[6]));
    RdRow rw;
    rw.x = a.in_[0];
    rw.dt = a.dt_in[0];
    rw.stride = inner;
    rw.nan_key = ~0ul;
    rw.flip = a.ia[4] != 0 ? 0ul : ~0ul;
    for (int64_t r = int64_t(gl_WorkGroupID.x); r < rows; r += int64_t(gl_NumWorkGroups.x)) {
        const int64_t o = r / inner, i = r - o * inner;
        rw.base = o * n * inner + i;
        rd_select_sorted(rw, n, k);
        for (int64_t s = t; s < k; s += nt) {
            const int64_t ix = int64_t(rd_idx_get(uint(s)));
            const int64_t dst = (o * k + s) * inner + i, src = rw.base + ix * inner;
            if (which) rlx_i64(y, dst) = ix;
            else if (esz == 1) rlx_u8(y, dst) = uint8_t(uint(rlx_u8(rw.x, src)));
            else if (esz == 2) rlx_u16(y, dst) = uint16_t(uint(rlx_u16(rw.x, src)));
            else if (esz == 4) rlx_u32(y, dst) = rlx_u32(rw.x, src);
            else rlx_u64(y, dst) = rlx_u64(rw.x, src);
        }
        rd_sync();
    }
}
#endif

/* sample: rows of V logits -> int64 token ids (the CPU's SAMPLE rules, arithmetic in double), one workgroup of
   256 per row: temperature <= 0: argmax (first index on ties, the first NaN wins). Otherwise the m best logits
   (NaN counts as -inf) sorted best first; if the best is -inf the result is the first candidate; else weights 1
   (== max) or exp((l - max) / T), running sums added sequentially, the top_p cut, and the first candidate whose
   running sum exceeds u * (kept sum) with u = rlx_uniform(seed, counter, row).
   in: 0 logits, 1 scratch (global buffers only), 2 counter (i32/i64 scalar, dt_in[2]).
   ia: 0 rows, 1 V, 2 m, 3 P, 4 global buffer?, 5 slice bytes, 6 seed bits.  fa: 0 temperature, 1 top_p. */
#if defined(RLX_K_sample)
shared int64_t rd_result;

double rd_w_get(uint s) { return uint64BitsToDouble(rd_key_get(s)); }
void rd_w_set(uint s, double w) { rd_key_set(s, doubleBitsToUint64(w)); }

void main() {
    RlxArgs a = rlx_pc.a;
    const int64_t rows = a.ia[0], V = a.ia[1], m = a.ia[2];
    const int dt = a.dt_in[0];
    const uint64_t x = a.in_[0], y = a.out_;
    const double temp = a.fa[0], top_p = a.fa[1];
    const int64_t counter = a.dt_in[2] == RLX_DT_I32 ? int64_t(rlx_i32(a.in_[2], 0)) : rlx_i64(a.in_[2], 0);
    const uint t = gl_LocalInvocationID.x;
    const double ninf = -rlx_inf_d();
    rd_sel_buffer(a.ia[4] != 0, a.ia[5], uint(a.ia[3]));
    for (int64_t r = int64_t(gl_WorkGroupID.x); r < rows; r += int64_t(gl_NumWorkGroups.x)) {
        const int64_t base = r * V;
        if (!(temp > 0.0lf)) {
            RdBest b = rd_best_init();
            for (int64_t k = int64_t(t); k < V; k += rd_nt()) rd_best_add_d(b, true, rlx_ld_d(x, dt, base + k), k);
            b = rd_best_block(true, true, b);
            if (t == 0u) rlx_i64(y, r) = rd_best_result(b);
            continue;
        }
        RdRow rw;
        rw.x = x;
        rw.dt = dt;
        rw.base = base;
        rw.stride = 1;
        rw.nan_key = rd_ninf_key(dt);
        rw.flip = 0ul;
        rd_select_sorted(rw, V, m);
        const uint first = rd_idx_get(0u);
        double lmax = rlx_ld_d(x, dt, base + int64_t(first));
        if (rlx_isnan(lmax)) lmax = ninf;
        rd_sync();
        if (lmax == ninf) {
            if (t == 0u) rlx_i64(y, r) = int64_t(first);
            rd_sync();
            continue;
        }
        for (int64_t s = int64_t(t); s < m; s += rd_nt()) {
            double l = rlx_ld_d(x, dt, base + int64_t(rd_idx_get(uint(s))));
            if (rlx_isnan(l)) l = ninf;
            rd_w_set(uint(s), l == lmax ? 1.0lf : rlx_exp_d((l - lmax) / temp));
        }
        rd_sync();
        if (t == 0u) {
            double S = 0.0lf;
            int64_t mk = m, s;
            for (s = 0; s < m; s++) {
                S += rd_w_get(uint(s));
                rd_w_set(uint(s), S);
            }
            if (top_p > 0.0lf && top_p < 1.0lf) {
                precise const double thr = top_p * rd_w_get(uint(m - 1));
                for (s = 0; s < m; s++)
                    if (rd_w_get(uint(s)) >= thr) {
                        mk = s + 1;
                        break;
                    }
            }
            precise const double tgt = double(rlx_uniform(uint64_t(a.ia[6]), counter, r)) * rd_w_get(uint(mk - 1));
            int64_t res = int64_t(rd_idx_get(uint(mk - 1)));
            for (s = 0; s < mk; s++)
                if (rd_w_get(uint(s)) > tgt) {
                    res = int64_t(rd_idx_get(uint(s)));
                    break;
                }
            rd_result = res;
        }
        rd_sync();
        if (t == 0u) rlx_i64(y, r) = rd_result;
        rd_sync();
    }
}
#endif
