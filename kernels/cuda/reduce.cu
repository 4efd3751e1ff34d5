/* reduce.cu - reductions and row kernels of the CUDA backend: sum/mean/prod/max/min, argmax/argmin,
   softmax/log_softmax, layernorm/rmsnorm, add+norm, group_norm, cumsum, topk, sample.

   Accumulation follows the CPU backend: float inputs accumulate in double (sums, products, statistics of
   the norms), integer sums and products in uint64 with wrap-around, integer max/min in int64. A reduction
   over several threads adds in a different order than the CPU's sequential loop; the one-thread-per-output
   kernels (reduce_thread, cumsum, arg_reduce in thread mode) follow the CPU's order exactly.

   Row kernels run one block per row (grid-stride over rows); the block size is a multiple of 32.
*/
#include "common.cuh"

extern __shared__ rlx_u64 rlx_smem[]; /* dynamic shared memory (topk / sample sort buffers) */

struct rlx_op_prod { template <class T> RLX_D T operator()(T a, T b) const { return a * b; } };

/* ---- reductions over a set of axes --------------------------------------------------------------------------
   Output element o (row-major over the kept dims a.dims, a.rank) starts at input offset rlx_offsets(o) with
   strides a.st[0]; the reduced elements add ia-described offsets: ia[0..7] reduced dims, ia[8..15] their
   strides, ia[16] the number of reduced dims, ia[17] their element count. a.n = output count.
   Partial results travel as two 8-byte words: the value (double bits or an integer) and a NaN flag. */
RLX_D rlx_i64 rlx_red_offset(const rlx_kargs& a, rlx_i64 e) {
    rlx_i64 off = 0;
    const int nr = (int)a.ia[16];
    if (a.ia[17] <= 0xFFFFFFFFll) {
        unsigned r = (unsigned)e;
#pragma unroll
        for (int d = 7; d >= 0; d--)
            if (d < nr) {
                const unsigned dim = (unsigned)a.ia[d], q = r / dim;
                off += (rlx_i64)(r - q * dim) * a.ia[8 + d];
                r = q;
            }
    } else {
        rlx_i64 r = e;
#pragma unroll
        for (int d = 7; d >= 0; d--)
            if (d < nr) {
                const rlx_i64 q = r / a.ia[d];
                off += (r - q * a.ia[d]) * a.ia[8 + d];
                r = q;
            }
    }
    return off;
}

/* Float accumulator (double value + NaN flag for max/min) and integer accumulator. */
struct rlx_accf {
    double v;
    int nan;
    RLX_D void init(int op) {
        nan = 0;
        v = op == RLX_OP_PROD ? 1.0 : op == RLX_OP_REDUCE_MAX ? -rlx_inf_d() : op == RLX_OP_REDUCE_MIN ? rlx_inf_d() : 0.0;
    }
    RLX_D void add(int op, double x) {
        switch (op) {
        case RLX_OP_PROD: v *= x; break;
        case RLX_OP_REDUCE_MAX: if (x != x) nan = 1; else if (x > v) v = x; break;
        case RLX_OP_REDUCE_MIN: if (x != x) nan = 1; else if (x < v) v = x; break;
        default: v += x; break;
        }
    }
    RLX_D void merge(int op, const rlx_accf& o) {
        nan |= o.nan;
        switch (op) {
        case RLX_OP_PROD: v *= o.v; break;
        case RLX_OP_REDUCE_MAX: if (o.v > v) v = o.v; break;
        case RLX_OP_REDUCE_MIN: if (o.v < v) v = o.v; break;
        default: v += o.v; break;
        }
    }
    RLX_D void block(int op) {
        __shared__ double shd[33];
        __shared__ int shn[33];
        nan = rlx_block_reduce(nan, rlx_op_or(), 0, shn);
        switch (op) {
        case RLX_OP_PROD: v = rlx_block_reduce(v, rlx_op_prod(), 1.0, shd); break;
        case RLX_OP_REDUCE_MAX: v = rlx_block_reduce(v, rlx_op_max(), -rlx_inf_d(), shd); break;
        case RLX_OP_REDUCE_MIN: v = rlx_block_reduce(v, rlx_op_min(), rlx_inf_d(), shd); break;
        default: v = rlx_block_reduce(v, rlx_op_sum(), 0.0, shd); break;
        }
    }
    RLX_D void store(const rlx_kargs& a, rlx_i64 o, rlx_i64 count) const {
        double r = v;
        if (a.op == RLX_OP_MEAN) r /= (double)count;
        if (nan) r = rlx_nan_d();
        rlx_st_from_d((void*)a.out, a.dt_out, o, r);
    }
    RLX_D void save(rlx_u64* p) const { p[0] = rlx_d2u(v); p[1] = (rlx_u64)nan; }
    RLX_D void load(const rlx_u64* p) { v = rlx_u2d(p[0]); nan = (int)p[1]; }
    static RLX_D double ld(const void* x, int dt, rlx_i64 i) { return rlx_ld_d(x, dt, i); }
};
struct rlx_acci {
    rlx_i64 v;
    RLX_D void init(int op) {
        v = op == RLX_OP_PROD ? 1 : op == RLX_OP_REDUCE_MAX ? (-9223372036854775807LL - 1)
                                   : op == RLX_OP_REDUCE_MIN ? 9223372036854775807LL : 0;
    }
    RLX_D void add(int op, rlx_i64 x) {
        switch (op) {
        case RLX_OP_PROD: v = (rlx_i64)((rlx_u64)v * (rlx_u64)x); break;
        case RLX_OP_REDUCE_MAX: if (x > v) v = x; break;
        case RLX_OP_REDUCE_MIN: if (x < v) v = x; break;
        default: v = (rlx_i64)((rlx_u64)v + (rlx_u64)x); break;
        }
    }
    RLX_D void merge(int op, const rlx_acci& o) { add(op, o.v); }
    RLX_D void block(int op) {
        __shared__ rlx_u64 shu[33];
        __shared__ rlx_i64 shi[33];
        switch (op) {
        case RLX_OP_PROD: v = (rlx_i64)rlx_block_reduce((rlx_u64)v, rlx_op_prod(), 1ull, shu); break;
        case RLX_OP_REDUCE_MAX: v = rlx_block_reduce(v, rlx_op_max(), -9223372036854775807LL - 1, shi); break;
        case RLX_OP_REDUCE_MIN: v = rlx_block_reduce(v, rlx_op_min(), 9223372036854775807LL, shi); break;
        default: v = (rlx_i64)rlx_block_reduce((rlx_u64)v, rlx_op_sum(), 0ull, shu); break;
        }
    }
    RLX_D void store(const rlx_kargs& a, rlx_i64 o, rlx_i64 count) const {
        (void)count;
        rlx_st_from_i((void*)a.out, a.dt_out, o, v, 0);
    }
    RLX_D void save(rlx_u64* p) const { p[0] = (rlx_u64)v; p[1] = 0; }
    RLX_D void load(const rlx_u64* p) { v = (rlx_i64)p[0]; }
    static RLX_D rlx_i64 ld(const void* x, int dt, rlx_i64 i) { return rlx_ld_i(x, dt, i); }
};

/* reduce_thread: one thread per output, the reduced elements in the CPU's order (row-major). */
template <class ACC>
RLX_D void rlx_reduce_thread_body(const rlx_kargs& a) {
    const void* x = (const void*)a.in[0];
    const int dt = a.dt_in[0], nr = (int)a.ia[16], op = a.op;
    const rlx_i64 count = a.ia[17];
    RLX_GRID_LOOP(o, a.n) {
        rlx_i64 base[1], idx[8];
        ACC acc;
        acc.init(op);
        rlx_offsets<1>(a, o, base);
#pragma unroll
        for (int d = 0; d < 8; d++) idx[d] = 0;
        rlx_i64 off = base[0];
        for (rlx_i64 e = 0; e < count; e++) {
            acc.add(op, ACC::ld(x, dt, off));
            /* step the reduced multi-index, innermost first */
#pragma unroll
            for (int d = 7; d >= 0; d--) {
                if (d < nr) {
                    off += a.ia[8 + d];
                    if (++idx[d] < a.ia[d]) break;
                    off -= idx[d] * a.ia[8 + d];
                    idx[d] = 0;
                }
            }
        }
        acc.store(a, o, count);
    }
}
extern "C" __global__ void reduce_thread(rlx_kargs a) {
    if (rlx_is_float(a.dt_in[0])) rlx_reduce_thread_body<rlx_accf>(a);
    else rlx_reduce_thread_body<rlx_acci>(a);
}

/* reduce_block: one block per output (grid-stride over outputs), threads stride over the reduced elements.
   With ia[18] = S > 1 splits, block b handles output b / S and the S-th part [part*ia[19], ...) of its
   elements (ia[19] elements per part) and writes a partial to in[1] (2 words per partial); reduce_final
   combines them. */
template <class ACC>
RLX_D void rlx_reduce_block_body(const rlx_kargs& a) {
    const void* x = (const void*)a.in[0];
    const int dt = a.dt_in[0], op = a.op;
    const rlx_i64 count = a.ia[17], splits = a.ia[18] > 1 ? a.ia[18] : 1, per = splits > 1 ? a.ia[19] : count;
    for (rlx_i64 u = blockIdx.x; u < a.n * splits; u += gridDim.x) {
        const rlx_i64 o = u / splits, part = u - o * splits;
        const rlx_i64 e0 = part * per, e1 = e0 + per < count ? e0 + per : count;
        rlx_i64 base[1];
        ACC acc;
        acc.init(op);
        rlx_offsets<1>(a, o, base);
        for (rlx_i64 e = e0 + threadIdx.x; e < e1; e += blockDim.x) acc.add(op, ACC::ld(x, dt, base[0] + rlx_red_offset(a, e)));
        acc.block(op);
        if (threadIdx.x == 0) {
            if (splits > 1) acc.save((rlx_u64*)a.in[1] + 2 * u);
            else acc.store(a, o, count);
        }
    }
}
extern "C" __global__ void reduce_block(rlx_kargs a) {
    if (rlx_is_float(a.dt_in[0])) rlx_reduce_block_body<rlx_accf>(a);
    else rlx_reduce_block_body<rlx_acci>(a);
}

/* reduce_final: one thread per output combines the ia[18] partials of reduce_block (in[1]) in order. */
template <class ACC>
RLX_D void rlx_reduce_final_body(const rlx_kargs& a) {
    const rlx_u64* part = (const rlx_u64*)a.in[1];
    const rlx_i64 splits = a.ia[18];
    RLX_GRID_LOOP(o, a.n) {
        ACC acc, p;
        acc.load(part + 2 * o * splits);
        for (rlx_i64 s = 1; s < splits; s++) {
            p.load(part + 2 * (o * splits + s));
            acc.merge(a.op, p);
        }
        acc.store(a, o, a.ia[17]);
    }
}
extern "C" __global__ void reduce_final(rlx_kargs a) {
    if (rlx_is_float(a.dt_in[0])) rlx_reduce_final_body<rlx_accf>(a);
    else rlx_reduce_final_body<rlx_acci>(a);
}

/* ---- argmax / argmin ---------------------------------------------------------------------------------------
   Rows r = o * inner + i of x viewed as [outer, len, inner]; output int64 [outer * inner]. Ties go to the first
   index, the first NaN wins. ia: 0 rows, 1 len, 2 inner, 3 mode (0: one thread per row, sequential like the
   CPU; 1: one block of 256 threads per row). */
template <class V>
struct rlx_argbest {
    V v;
    rlx_i64 i;      /* index of v (-1: none yet) */
    rlx_i64 nan_i;  /* first NaN index (-1: none) */
    RLX_D void init() { i = -1; nan_i = -1; v = V(0); }
    RLX_D void add(int ismax, V x, rlx_i64 k) {  /* k increases across calls of one thread */
        if (x != x) { if (nan_i < 0) nan_i = k; return; }
        if (i < 0 || (ismax ? x > v : x < v)) { v = x; i = k; }
    }
    RLX_D void merge(int ismax, const rlx_argbest& o) {
        if (o.nan_i >= 0 && (nan_i < 0 || o.nan_i < nan_i)) nan_i = o.nan_i;
        if (o.i < 0) return;
        if (i < 0 || (ismax ? o.v > v : o.v < v) || (o.v == v && o.i < i)) { v = o.v; i = o.i; }
    }
    RLX_D rlx_i64 result() const { return nan_i >= 0 ? nan_i : (i < 0 ? 0 : i); }
};
/* Block-wide argbest over 256 threads (a tree in shared memory). Every thread gets the result. */
template <class V>
RLX_D rlx_argbest<V> rlx_argbest_block(int ismax, rlx_argbest<V> b) {
    __shared__ V sv[256];
    __shared__ rlx_i64 si[256], sn[256];
    const int t = threadIdx.x;
    __syncthreads();
    sv[t] = b.v; si[t] = b.i; sn[t] = b.nan_i;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (t < s) {
            rlx_argbest<V> x, y;
            x.v = sv[t]; x.i = si[t]; x.nan_i = sn[t];
            y.v = sv[t + s]; y.i = si[t + s]; y.nan_i = sn[t + s];
            x.merge(ismax, y);
            sv[t] = x.v; si[t] = x.i; sn[t] = x.nan_i;
        }
        __syncthreads();
    }
    b.v = sv[0]; b.i = si[0]; b.nan_i = sn[0];
    __syncthreads();
    return b;
}
template <class V>
RLX_D V rlx_arg_ld(const void* x, int dt, rlx_i64 i);
template <> RLX_D double rlx_arg_ld<double>(const void* x, int dt, rlx_i64 i) { return rlx_ld_d(x, dt, i); }
template <> RLX_D rlx_i64 rlx_arg_ld<rlx_i64>(const void* x, int dt, rlx_i64 i) { return rlx_ld_i(x, dt, i); }

template <class V>
RLX_D void rlx_arg_body(const rlx_kargs& a) {
    const void* x = (const void*)a.in[0];
    const int dt = a.dt_in[0], ismax = a.op == RLX_OP_ARGMAX;
    const rlx_i64 rows = a.ia[0], len = a.ia[1], inner = a.ia[2];
    long long* y = (long long*)a.out;
    if (a.ia[3] == 0) {
        RLX_GRID_LOOP(r, rows) {
            const rlx_i64 o = r / inner, i = r - o * inner, base = o * len * inner + i;
            rlx_argbest<V> b;
            b.init();
            for (rlx_i64 k = 0; k < len && b.nan_i < 0; k++) b.add(ismax, rlx_arg_ld<V>(x, dt, base + k * inner), k);
            y[r] = b.result();
        }
        return;
    }
    for (rlx_i64 r = blockIdx.x; r < rows; r += gridDim.x) {
        const rlx_i64 o = r / inner, i = r - o * inner, base = o * len * inner + i;
        rlx_argbest<V> b;
        b.init();
        for (rlx_i64 k = threadIdx.x; k < len; k += blockDim.x) b.add(ismax, rlx_arg_ld<V>(x, dt, base + k * inner), k);
        b = rlx_argbest_block<V>(ismax, b);
        if (threadIdx.x == 0) y[r] = b.result();
    }
}
extern "C" __global__ void arg_reduce(rlx_kargs a) {
    if (rlx_is_float(a.dt_in[0])) rlx_arg_body<double>(a);
    else rlx_arg_body<rlx_i64>(a);
}

/* ---- softmax / log_softmax -------------------------------------------------------------------------------
   One block per row of x viewed as [outer, len, inner] (row r = o * inner + i, elements strided by inner).
   f32 rows with inner == 1 follow the CPU's f32 path (max and exp in f32, the sum in double); everything else
   computes in double. ia: 0 rows, 1 len, 2 inner. */
template <int DT>
RLX_D void rlx_softmax_body(const rlx_kargs& a) {
    typedef rlx_dt<DT> T;
    __shared__ float shf[33];
    __shared__ double shd[33];
    const void* x = (const void*)a.in[0];
    void* y = (void*)a.out;
    const rlx_i64 rows = a.ia[0], len = a.ia[1], inner = a.ia[2];
    const int islog = a.op == RLX_OP_LOG_SOFTMAX;
    for (rlx_i64 r = blockIdx.x; r < rows; r += gridDim.x) {
        const rlx_i64 o = r / inner, i = r - o * inner, base = o * len * inner + i;
        if (DT == RLX_DT_F32 && inner == 1) {
            const float* xr = (const float*)x + base;
            float* yr = (float*)y + base;
            float mx = xr[0];
            double s = 0.0;
            for (rlx_i64 k = threadIdx.x; k < len; k += blockDim.x) mx = xr[k] > mx ? xr[k] : mx;
            mx = rlx_block_reduce(mx, rlx_op_max(), mx, shf);
            for (rlx_i64 k = threadIdx.x; k < len; k += blockDim.x) s += (double)expf(xr[k] - mx);
            s = rlx_block_reduce(s, rlx_op_sum(), 0.0, shd);
            if (islog) {
                const float ls = (float)log(s);
                for (rlx_i64 k = threadIdx.x; k < len; k += blockDim.x) yr[k] = xr[k] - mx - ls;
            } else {
                const float inv = (float)(1.0 / s);
                for (rlx_i64 k = threadIdx.x; k < len; k += blockDim.x) yr[k] = expf(xr[k] - mx) * inv;
            }
        } else {
            double mx = (double)T::ld(x, base), s = 0.0;
            for (rlx_i64 k = threadIdx.x; k < len; k += blockDim.x) {
                const double v = (double)T::ld(x, base + k * inner);
                mx = v > mx ? v : mx;
            }
            mx = rlx_block_reduce(mx, rlx_op_max(), mx, shd);
            for (rlx_i64 k = threadIdx.x; k < len; k += blockDim.x) s += exp((double)T::ld(x, base + k * inner) - mx);
            s = rlx_block_reduce(s, rlx_op_sum(), 0.0, shd);
            const double ls = log(s);
            for (rlx_i64 k = threadIdx.x; k < len; k += blockDim.x) {
                const double v = (double)T::ld(x, base + k * inner) - mx;
                rlx_st_from_d(y, DT, base + k * inner, islog ? v - ls : exp(v) / s);
            }
        }
    }
}
extern "C" __global__ void softmax(rlx_kargs a) { RLX_SWITCH_FLOAT(a.dt_out, rlx_softmax_body, a) }

/* ---- layernorm / rmsnorm and add + norm -------------------------------------------------------------------
   One block per row of len contiguous elements (the normalised trailing dims). Statistics in double (two
   passes: mean, then the biased variance of x - mean; rmsnorm uses mean 0); y = (x - mean) / sqrt(var + eps),
   then * gamma, + beta. f32 rounds the normalised value to f32 before gamma/beta (the CPU's f32 path); the
   other dtypes apply gamma/beta in double.
   norm_rows: in: 0 x, 1 gamma (0 = none), 2 beta (0 = none). ia: 0 rows, 1 len, 2 layernorm?  fa[0] eps.
   add_norm: in: 0 x, 1 residual, 2 gamma, 3 beta, 4 the sum buffer (0: none; the sum then goes through y).
             ia: 0 rows, 1 len, 2 layernorm?  fa[0] eps. The sum x + r is stored (rounded to the dtype) first
             and the statistics read it back, as the CPU does. */
template <int DT>
RLX_D void rlx_norm_row(const rlx_kargs& a, const void* xs, void* y, const void* gm, const void* bt, rlx_i64 base,
                        rlx_i64 len, int ln) {
    typedef rlx_dt<DT> T;
    __shared__ double shd[33];
    double mean = 0.0, var = 0.0;
    if (ln) {
        for (rlx_i64 k = threadIdx.x; k < len; k += blockDim.x) mean += (double)T::ld(xs, base + k);
        mean = rlx_block_reduce(mean, rlx_op_sum(), 0.0, shd) / (double)len;
    }
    for (rlx_i64 k = threadIdx.x; k < len; k += blockDim.x) {
        const double d = (double)T::ld(xs, base + k) - mean;
        var += d * d;
    }
    var = rlx_block_reduce(var, rlx_op_sum(), 0.0, shd) / (double)len;
    const double inv = 1.0 / sqrt(var + a.fa[0]);
    for (rlx_i64 k = threadIdx.x; k < len; k += blockDim.x) {
        const double d = ((double)T::ld(xs, base + k) - mean) * inv;
        if (DT == RLX_DT_F32) {
            float v = (float)d;
            if (gm) v = rlx_mul_rn(v, ((const float*)gm)[k]);
            if (bt) v += ((const float*)bt)[k];
            ((float*)y)[base + k] = v;
        } else {
            double v = d;
            if (gm) v = rlx_dmul_rn(v, (double)T::ld(gm, k));
            if (bt) v += (double)T::ld(bt, k);
            rlx_st_from_d(y, DT, base + k, v);
        }
    }
}
template <int DT>
RLX_D void rlx_norm_body(const rlx_kargs& a) {
    const rlx_i64 rows = a.ia[0], len = a.ia[1];
    for (rlx_i64 r = blockIdx.x; r < rows; r += gridDim.x)
        rlx_norm_row<DT>(a, (const void*)a.in[0], (void*)a.out, (const void*)a.in[1], (const void*)a.in[2], r * len, len,
                         (int)a.ia[2]);
}
extern "C" __global__ void norm_rows(rlx_kargs a) { RLX_SWITCH_FLOAT(a.dt_out, rlx_norm_body, a) }

template <int DT>
RLX_D void rlx_add_norm_body(const rlx_kargs& a) {
    typedef rlx_dt<DT> T;
    const rlx_i64 rows = a.ia[0], len = a.ia[1];
    const void* x = (const void*)a.in[0];
    const void* res = (const void*)a.in[1];
    void* y = (void*)a.out;
    void* sum = a.in[4] ? (void*)a.in[4] : y;
    for (rlx_i64 r = blockIdx.x; r < rows; r += gridDim.x) {
        const rlx_i64 base = r * len;
        for (rlx_i64 k = threadIdx.x; k < len; k += blockDim.x) {
            if (DT == RLX_DT_F32) ((float*)sum)[base + k] = ((const float*)x)[base + k] + ((const float*)res)[base + k];
            else rlx_st_from_d(sum, DT, base + k, (double)T::ld(x, base + k) + (double)T::ld(res, base + k));
        }
        __syncthreads();
        rlx_norm_row<DT>(a, sum, y, (const void*)a.in[2], (const void*)a.in[3], base, len, (int)a.ia[2]);
        __syncthreads();
    }
}
extern "C" __global__ void add_norm(rlx_kargs a) { RLX_SWITCH_FLOAT(a.dt_out, rlx_add_norm_body, a) }

/* ---- group_norm -------------------------------------------------------------------------------------------
   One block per (n, group): the group's Cg * S elements are contiguous. Mean and biased variance in double
   (two passes), y = (x - mean) * rstd * gamma[c] + beta[c] in double for every dtype (the CPU's rule).
   in: 0 x, 1 gamma (0 = none), 2 beta (0 = none). ia: 0 units (N * G), 1 C, 2 G, 3 S. fa[0] eps. */
extern "C" __global__ void group_norm(rlx_kargs a) {
    __shared__ double shd[33];
    const void* x = (const void*)a.in[0];
    const void* gm = (const void*)a.in[1];
    const void* bt = (const void*)a.in[2];
    void* y = (void*)a.out;
    const int dt = a.dt_out;
    const rlx_i64 units = a.ia[0], C = a.ia[1], G = a.ia[2], S = a.ia[3], Cg = C / G, cnt = Cg * S;
    for (rlx_i64 u = blockIdx.x; u < units; u += gridDim.x) {
        const rlx_i64 base = u * cnt, g = u % G;
        double mean = 0.0, var = 0.0;
        for (rlx_i64 k = threadIdx.x; k < cnt; k += blockDim.x) mean += rlx_ld_d(x, dt, base + k);
        mean = rlx_block_reduce(mean, rlx_op_sum(), 0.0, shd) / (double)cnt;
        for (rlx_i64 k = threadIdx.x; k < cnt; k += blockDim.x) {
            const double d = rlx_ld_d(x, dt, base + k) - mean;
            var += d * d;
        }
        var = rlx_block_reduce(var, rlx_op_sum(), 0.0, shd);
        const double rstd = 1.0 / sqrt(var / (double)cnt + a.fa[0]);
        for (rlx_i64 k = threadIdx.x; k < cnt; k += blockDim.x) {
            const rlx_i64 c = g * Cg + k / S;
            const double ga = gm ? rlx_ld_d(gm, dt, c) : 1.0, be = bt ? rlx_ld_d(bt, dt, c) : 0.0;
            rlx_st_from_d(y, dt, base + k, rlx_dmul_rn((rlx_ld_d(x, dt, base + k) - mean) * rstd, ga) + be);
        }
    }
}

/* ---- cumsum ------------------------------------------------------------------------------------------------
   One thread per column (o, i) of x viewed as [outer, n, inner], walking the axis sequentially (reverse: from
   the end). Floats accumulate in double and round every output once; integers and bool accumulate in uint64
   (wrap-around) into int64. ia: 0 outer, 1 n, 2 inner, 3 exclusive, 4 reverse. a.n = outer * inner. */
extern "C" __global__ void cumsum(rlx_kargs a) {
    const void* x = (const void*)a.in[0];
    void* y = (void*)a.out;
    const int dt = a.dt_in[0], odt = a.dt_out, excl = (int)a.ia[3], rev = (int)a.ia[4];
    const rlx_i64 n = a.ia[1], inner = a.ia[2];
    RLX_GRID_LOOP(c, a.n) {
        const rlx_i64 o = c / inner, i = c - o * inner;
        if (odt == RLX_DT_I64) {
            rlx_u64 acc = 0;
            for (rlx_i64 s = 0; s < n; s++) {
                const rlx_i64 off = (o * n + (rev ? n - 1 - s : s)) * inner + i;
                const rlx_u64 v = (rlx_u64)rlx_ld_i(x, dt, off);
                if (excl) { ((long long*)y)[off] = (long long)acc; acc += v; }
                else { acc += v; ((long long*)y)[off] = (long long)acc; }
            }
        } else {
            double acc = 0.0;
            for (rlx_i64 s = 0; s < n; s++) {
                const rlx_i64 off = (o * n + (rev ? n - 1 - s : s)) * inner + i;
                const double v = rlx_ld_d(x, dt, off);
                if (excl) { rlx_st_from_d(y, odt, off, acc); acc += v; }
                else { acc += v; rlx_st_from_d(y, odt, off, acc); }
            }
        }
    }
}

/* ---- selection: the k best elements of a row, sorted best first ------------------------------------------
   Keys are uint64, larger = better; ties go to the smaller index. Floats map monotonically (f32/f16/bf16 through
   their f32 bits, f64 through its bits; -0 equals +0; NaN gets `nan_key`); integers compare as int64. `flip`
   (all ones) reverses the order for the smallest-k.
   One block of 256 threads per row: a radix select (8 passes of 8 bits over the row) finds the k-th best key T
   and how many elements equal to T belong to the result; a compaction writes the k winners (the ties with the
   smallest indices) to a buffer of P = 2^ceil(log2 k) entries (keys, then 32-bit indices), padded with
   sentinels, and a bitonic sort orders it. The buffer is dynamic shared memory or a slice of scratch. */
#define RLX_SEL_THREADS 256
RLX_D rlx_u64 rlx_fkey32(float f) {
    unsigned b = rlx_f2u(f == 0.0f ? 0.0f : f);
    b = (b >> 31) ? ~b : (b | 0x80000000u);
    return (rlx_u64)b << 32;
}
RLX_D rlx_u64 rlx_fkey64(double d) {
    rlx_u64 b = rlx_d2u(d == 0.0 ? 0.0 : d);
    return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}
RLX_D rlx_u64 rlx_sel_key(const void* x, int dt, rlx_i64 off, rlx_u64 nan_key, rlx_u64 flip) {
    rlx_u64 k;
    if (dt == RLX_DT_F64) {
        const double v = ((const double*)x)[off];
        k = v != v ? nan_key : rlx_fkey64(v);
    } else if (rlx_is_float(dt)) {
        const float v = rlx_ld_f(x, dt, off);
        k = v != v ? nan_key : rlx_fkey32(v);
    } else {
        k = (rlx_u64)rlx_ld_i(x, dt, off) ^ 0x8000000000000000ull;
    }
    return k ^ flip;
}
/* key of -inf in the mapping of dt (the NaN key of sample) */
RLX_D rlx_u64 rlx_ninf_key(int dt) { return dt == RLX_DT_F64 ? rlx_fkey64(-rlx_inf_d()) : rlx_fkey32(-rlx_inf_f()); }

struct rlx_row {
    const void* x;
    int dt;
    rlx_i64 base, stride;
    rlx_u64 nan_key, flip;
    RLX_D rlx_u64 key(rlx_i64 e) const { return rlx_sel_key(x, dt, base + e * stride, nan_key, flip); }
};

RLX_D int rlx_sel_better(rlx_u64 ka, unsigned ia, rlx_u64 kb, unsigned ib) { return ka > kb || (ka == kb && ia < ib); }

/* Inclusive block scan of one int per thread (256 threads); returns the inclusive sum, *total the block sum. */
RLX_D int rlx_scan256(int v, int* total) {
    __shared__ int s[RLX_SEL_THREADS];
    const int t = threadIdx.x;
    s[t] = v;
    __syncthreads();
    for (int o = 1; o < RLX_SEL_THREADS; o <<= 1) {
        const int add = t >= o ? s[t - o] : 0;
        __syncthreads();
        s[t] += add;
        __syncthreads();
    }
    const int r = s[t];
    *total = s[RLX_SEL_THREADS - 1];
    __syncthreads();
    return r;
}

/* Writes the k best (key, index) pairs of row rw (n elements) to keys/idx[0..k) in any order, then pads to P
   with sentinels and sorts best first. */
RLX_D void rlx_select_sorted(const rlx_row& rw, rlx_i64 n, rlx_i64 k, int P, rlx_u64* keys, unsigned* idx) {
    __shared__ unsigned hist[256];
    __shared__ rlx_u64 s_prefix;
    __shared__ rlx_i64 s_remaining;
    __shared__ int s_gt;
    __shared__ rlx_i64 s_eq_taken;
    const int t = threadIdx.x;
    rlx_u64 prefix = 0, mask = 0;
    rlx_i64 remaining = k;
    /* 1. radix select, most significant digit first */
    for (int pass = 7; pass >= 0; pass--) {
        const int sh = pass * 8;
        hist[t] = 0;
        __syncthreads();
        for (rlx_i64 e = t; e < n; e += RLX_SEL_THREADS) {
            const rlx_u64 key = rw.key(e);
            if ((key & mask) == prefix) atomicAdd(&hist[(unsigned)(key >> sh) & 255u], 1u);
        }
        __syncthreads();
        if (t == 0) {
            rlx_i64 c = 0;
            int digit = 0;
            for (int b = 255; b >= 0; b--) {
                if (c + (rlx_i64)hist[b] >= remaining) { digit = b; break; }
                c += hist[b];
            }
            s_prefix = prefix | ((rlx_u64)digit << sh);
            s_remaining = remaining - c;
        }
        __syncthreads();
        prefix = s_prefix;
        remaining = s_remaining;
        mask |= 0xFFull << sh;
        __syncthreads();
    }
    /* 2. compaction: every key > T, and the first `remaining` keys == T by index */
    const rlx_u64 T = prefix;
    const rlx_i64 need_eq = remaining, first_eq = k - need_eq;
    if (t == 0) { s_gt = 0; s_eq_taken = 0; }
    __syncthreads();
    for (rlx_i64 b0 = 0; b0 < n; b0 += RLX_SEL_THREADS) {
        const rlx_i64 e = b0 + t;
        const rlx_u64 key = e < n ? rw.key(e) : 0;
        const int gt = e < n && key > T, eq = e < n && key == T;
        if (gt) {
            const int slot = atomicAdd(&s_gt, 1);
            keys[slot] = key;
            idx[slot] = (unsigned)e;
        }
        if (__syncthreads_or(eq)) {
            int total;
            const int incl = rlx_scan256(eq, &total);
            const rlx_i64 taken = s_eq_taken, r = taken + incl - 1;
            if (eq && r < need_eq) {
                keys[first_eq + r] = key;
                idx[first_eq + r] = (unsigned)e;
            }
            __syncthreads();
            if (t == 0) s_eq_taken = taken + total;
            __syncthreads();
        }
    }
    for (rlx_i64 s = k + t; s < P; s += RLX_SEL_THREADS) { keys[s] = 0; idx[s] = 0xFFFFFFFFu; }
    __syncthreads();
    /* 3. bitonic sort, best first */
    for (int size = 2; size <= P; size <<= 1)
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int q = t; q < P / 2; q += RLX_SEL_THREADS) {
                const int i = 2 * stride * (q / stride) + (q % stride), j = i + stride;
                const int best_first = (i & size) == 0;
                if (rlx_sel_better(keys[j], idx[j], keys[i], idx[i]) == best_first) {
                    const rlx_u64 tk = keys[i];
                    const unsigned ti = idx[i];
                    keys[i] = keys[j]; idx[i] = idx[j];
                    keys[j] = tk; idx[j] = ti;
                }
            }
            __syncthreads();
        }
}

/* Sort buffer of this block: dynamic shared memory, or slice blockIdx.x of the scratch in[1] (ia[sl] bytes). */
RLX_D rlx_u64* rlx_sel_buffer(const rlx_kargs& a, int global, int slice_ia) {
    if (!global) return rlx_smem;
    return (rlx_u64*)((unsigned char*)a.in[1] + (rlx_u64)blockIdx.x * (rlx_u64)a.ia[slice_ia]);
}

/* topk: rows r = o * inner + i of x viewed as [outer, n, inner]; output [outer, k, inner]: the values (element
   bits copied) or the int64 indices. in: 0 x, 1 scratch (global buffers only).
   ia: 0 rows, 1 n, 2 inner, 3 k, 4 largest, 5 which (0 values, 1 indices), 6 P, 7 global buffer?, 8 slice bytes. */
extern "C" __global__ void __launch_bounds__(RLX_SEL_THREADS) topk(rlx_kargs a) {
    const rlx_i64 rows = a.ia[0], n = a.ia[1], inner = a.ia[2], k = a.ia[3];
    const int P = (int)a.ia[6], which = (int)a.ia[5], esz = rlx_dt_size(a.dt_in[0]);
    rlx_u64* keys = rlx_sel_buffer(a, (int)a.ia[7], 8);
    unsigned* idx = (unsigned*)(keys + P);
    rlx_row rw;
    rw.x = (const void*)a.in[0];
    rw.dt = a.dt_in[0];
    rw.stride = inner;
    rw.nan_key = ~0ull;
    rw.flip = a.ia[4] ? 0ull : ~0ull;
    for (rlx_i64 r = blockIdx.x; r < rows; r += gridDim.x) {
        const rlx_i64 o = r / inner, i = r - o * inner;
        rw.base = o * n * inner + i;
        rlx_select_sorted(rw, n, k, P, keys, idx);
        for (rlx_i64 s = threadIdx.x; s < k; s += RLX_SEL_THREADS) {
            const rlx_i64 dst = (o * k + s) * inner + i, src = rw.base + (rlx_i64)idx[s] * inner;
            if (which) ((long long*)a.out)[dst] = (long long)idx[s];
            else if (esz == 1) ((unsigned char*)a.out)[dst] = ((const unsigned char*)rw.x)[src];
            else if (esz == 2) ((unsigned short*)a.out)[dst] = ((const unsigned short*)rw.x)[src];
            else if (esz == 4) ((unsigned*)a.out)[dst] = ((const unsigned*)rw.x)[src];
            else ((rlx_u64*)a.out)[dst] = ((const rlx_u64*)rw.x)[src];
        }
        __syncthreads();
    }
}

/* sample: rows of V logits -> int64 token ids (the CPU's SAMPLE rules, arithmetic in double):
   temperature <= 0: argmax (first index on ties, the first NaN wins). Otherwise the m best logits (NaN counts
   as -inf) sorted best first; if the best is -inf the result is the first candidate; else weights 1 (== max)
   or exp((l - max) / T), running sums added sequentially, the top_p cut, and the first candidate whose running
   sum exceeds u * (kept sum) with u = rlx_uniform(seed, counter, row).
   in: 0 logits, 1 scratch (global buffers only), 2 counter (i32/i64 scalar, dt_in[2]).
   ia: 0 rows, 1 V, 2 m, 3 P, 4 global buffer?, 5 slice bytes, 6 seed bits.  fa: 0 temperature, 1 top_p. */
extern "C" __global__ void __launch_bounds__(RLX_SEL_THREADS) sample(rlx_kargs a) {
    __shared__ rlx_i64 s_result;
    const rlx_i64 rows = a.ia[0], V = a.ia[1], m = a.ia[2];
    const int P = (int)a.ia[3], dt = a.dt_in[0];
    const void* x = (const void*)a.in[0];
    const double temp = a.fa[0], top_p = a.fa[1];
    const rlx_i64 counter = a.dt_in[2] == RLX_DT_I32 ? (rlx_i64)*(const int*)a.in[2] : *(const long long*)a.in[2];
    long long* y = (long long*)a.out;
    for (rlx_i64 r = blockIdx.x; r < rows; r += gridDim.x) {
        const rlx_i64 base = r * V;
        if (!(temp > 0.0)) {
            rlx_argbest<double> b;
            b.init();
            for (rlx_i64 k = threadIdx.x; k < V; k += RLX_SEL_THREADS) b.add(1, rlx_ld_d(x, dt, base + k), k);
            b = rlx_argbest_block<double>(1, b);
            if (threadIdx.x == 0) y[r] = b.result();
            continue;
        }
        rlx_u64* keys = rlx_sel_buffer(a, (int)a.ia[4], 5);
        unsigned* idx = (unsigned*)(keys + P);
        double* w = (double*)keys; /* the weights reuse the key slots once sorted */
        rlx_row rw;
        rw.x = x; rw.dt = dt; rw.base = base; rw.stride = 1; rw.nan_key = rlx_ninf_key(dt); rw.flip = 0;
        rlx_select_sorted(rw, V, m, P, keys, idx);
        double lmax = rlx_ld_d(x, dt, base + idx[0]);
        if (lmax != lmax) lmax = -rlx_inf_d();
        __syncthreads();
        if (lmax == -rlx_inf_d()) {
            if (threadIdx.x == 0) y[r] = (long long)idx[0];
            __syncthreads();
            continue;
        }
        for (rlx_i64 s = threadIdx.x; s < m; s += RLX_SEL_THREADS) {
            double l = rlx_ld_d(x, dt, base + idx[s]);
            if (l != l) l = -rlx_inf_d();
            w[s] = l == lmax ? 1.0 : exp((l - lmax) / temp);
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            double S = 0.0;
            rlx_i64 mk = m, s;
            for (s = 0; s < m; s++) { S += w[s]; w[s] = S; }
            if (top_p > 0.0 && top_p < 1.0) {
                const double thr = top_p * w[m - 1];
                for (s = 0; s < m; s++)
                    if (w[s] >= thr) { mk = s + 1; break; }
            }
            const double tgt = (double)rlx_uniform((rlx_u64)a.ia[6], counter, r) * w[mk - 1];
            rlx_i64 res = idx[mk - 1];
            for (s = 0; s < mk; s++)
                if (w[s] > tgt) { res = idx[s]; break; }
            s_result = res;
        }
        __syncthreads();
        if (threadIdx.x == 0) y[r] = s_result;
        __syncthreads();
    }
}
