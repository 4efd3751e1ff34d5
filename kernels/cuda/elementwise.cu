/* elementwise.cu - elementwise and layout kernels of the CUDA backend.

   Every kernel here is a grid-stride loop over the n output elements (256 threads per block). Unless a
   kernel says otherwise the output is contiguous and input k is read at the offset rlx_offsets() computes
   from a.rank/a.dims and a.st[k] (broadcast dims have stride 0; the host collapses the dims like the CPU's
   rlx__iter). Semantics are the CPU backend's: see the element math in common.cuh.
*/
#include "common.cuh"

/* ---- unary: y = f(x) in the input's compute type (f32/f16/bf16 in f32, f64 in f64, integers in int64 with
   wrap-around). in[0] = x, st[0]. ---------------------------------------------------------------------------- */
template <int DT>
RLX_D void rlx_unary_body(const rlx_kargs& a) {
    typedef rlx_dt<DT> T;
    const void* x = (const void*)a.in[0];
    void* y = (void*)a.out;
    if (a.rank == 1 && a.st[0][0] == 1) {
        RLX_GRID_LOOP(i, a.n) T::st(y, i, rlx_unary(a.op, T::ld(x, i)));
        return;
    }
    RLX_GRID_LOOP(i, a.n) {
        rlx_i64 off[1];
        rlx_offsets<1>(a, i, off);
        T::st(y, i, rlx_unary(a.op, T::ld(x, off[0])));
    }
}
/* signed integers (neg, abs, relu) through one body with runtime loads and wrapping stores */
RLX_D void rlx_unary_int(const rlx_kargs& a) {
    const void* x = (const void*)a.in[0];
    void* y = (void*)a.out;
    const int dt = a.dt_in[0];
    RLX_GRID_LOOP(i, a.n) {
        rlx_i64 off[1];
        rlx_offsets<1>(a, i, off);
        rlx_st_from_i(y, dt, i, rlx_unary(a.op, rlx_ld_i(x, dt, off[0])), 0);
    }
}
extern "C" __global__ void ew_unary(rlx_kargs a) {
    switch (a.dt_in[0]) {
    case RLX_DT_F32: rlx_unary_body<RLX_DT_F32>(a); break;
    case RLX_DT_F16: rlx_unary_body<RLX_DT_F16>(a); break;
    case RLX_DT_BF16: rlx_unary_body<RLX_DT_BF16>(a); break;
    case RLX_DT_F64: rlx_unary_body<RLX_DT_F64>(a); break;
    default: rlx_unary_int(a); break;
    }
}

/* ---- binary: y = a op b with broadcasting. in[0], in[1] share dt_in[0]; comparisons write bool (0/1), the
   other ops the input dtype. st[0], st[1]. ------------------------------------------------------------------- */
template <int DT>
RLX_D void rlx_binary_body(const rlx_kargs& a) {
    typedef rlx_dt<DT> T;
    typedef typename T::C C;
    const void* x0 = (const void*)a.in[0];
    const void* x1 = (const void*)a.in[1];
    void* y = (void*)a.out;
    if (rlx_is_compare(a.op)) {
        RLX_GRID_LOOP(i, a.n) {
            rlx_i64 off[2];
            rlx_offsets<2>(a, i, off);
            ((unsigned char*)y)[i] = (unsigned char)rlx_compare<C>(a.op, T::ld(x0, off[0]), T::ld(x1, off[1]));
        }
        return;
    }
    if (a.rank == 1 && a.st[0][0] == 1 && a.st[1][0] == 1) {
        RLX_GRID_LOOP(i, a.n) T::st(y, i, rlx_binary(a.op, T::ld(x0, i), T::ld(x1, i)));
        return;
    }
    RLX_GRID_LOOP(i, a.n) {
        rlx_i64 off[2];
        rlx_offsets<2>(a, i, off);
        T::st(y, i, rlx_binary(a.op, T::ld(x0, off[0]), T::ld(x1, off[1])));
    }
}
/* integers and bool: int64 arithmetic (wrapping stores) or int64 comparisons, runtime loads */
RLX_D void rlx_binary_int(const rlx_kargs& a) {
    const void* x0 = (const void*)a.in[0];
    const void* x1 = (const void*)a.in[1];
    void* y = (void*)a.out;
    const int dt = a.dt_in[0], cmp = rlx_is_compare(a.op);
    RLX_GRID_LOOP(i, a.n) {
        rlx_i64 off[2];
        rlx_offsets<2>(a, i, off);
        const rlx_i64 u = rlx_ld_i(x0, dt, off[0]), v = rlx_ld_i(x1, dt, off[1]);
        if (cmp) ((unsigned char*)y)[i] = (unsigned char)rlx_compare<rlx_i64>(a.op, u, v);
        else rlx_st_from_i(y, dt, i, rlx_binary(a.op, u, v), 0);
    }
}
extern "C" __global__ void ew_binary(rlx_kargs a) {
    switch (a.dt_in[0]) {
    case RLX_DT_F32: rlx_binary_body<RLX_DT_F32>(a); break;
    case RLX_DT_F16: rlx_binary_body<RLX_DT_F16>(a); break;
    case RLX_DT_BF16: rlx_binary_body<RLX_DT_BF16>(a); break;
    case RLX_DT_F64: rlx_binary_body<RLX_DT_F64>(a); break;
    default: rlx_binary_int(a); break;
    }
}

/* ---- where: y = cond ? a : b (element bits copied). in[0] = cond (bool), in[1] = a, in[2] = b; st[0..2]. ---- */
template <class S>
RLX_D void rlx_where_body(const rlx_kargs& a) {
    const unsigned char* c = (const unsigned char*)a.in[0];
    const S* x0 = (const S*)a.in[1];
    const S* x1 = (const S*)a.in[2];
    S* y = (S*)a.out;
    RLX_GRID_LOOP(i, a.n) {
        rlx_i64 off[3];
        rlx_offsets<3>(a, i, off);
        y[i] = c[off[0]] ? x0[off[1]] : x1[off[2]];
    }
}
extern "C" __global__ void ew_where(rlx_kargs a) {
    switch (rlx_dt_size(a.dt_out)) {
    case 1: rlx_where_body<unsigned char>(a); break;
    case 2: rlx_where_body<unsigned short>(a); break;
    case 4: rlx_where_body<unsigned>(a); break;
    default: rlx_where_body<rlx_u64>(a); break;
    }
}

/* ---- cast: y = cast(x) with the rules of rlx_cast (float -> float rounds to nearest even; float -> integer
   truncates, saturates, NaN -> 0; integer -> integer saturates; -> bool is != 0). in[0] = x (dt_in[0]),
   st[0]; dt_out the target. Sources are read as f32 (f32/f16/bf16, exact), f64 or int64; the target is a
   runtime switch. -------------------- */
template <int DT>
RLX_D void rlx_cast_body(const rlx_kargs& a) {
    const void* x = (const void*)a.in[0];
    void* y = (void*)a.out;
    const int from = a.dt_in[0], to = a.dt_out;
    RLX_GRID_LOOP(i, a.n) {
        rlx_i64 off[1];
        rlx_offsets<1>(a, i, off);
        if (DT == RLX_DT_F64) rlx_st_from_d(y, to, i, ((const double*)x)[off[0]]);
        else if (DT == RLX_DT_F32) rlx_st_from_f(y, to, i, rlx_ld_f(x, from, off[0]));
        else rlx_st_from_i(y, to, i, rlx_ld_i(x, from, off[0]), 1);
    }
}
extern "C" __global__ void ew_cast(rlx_kargs a) {
    switch (a.dt_in[0]) {
    case RLX_DT_F32: case RLX_DT_F16: case RLX_DT_BF16: rlx_cast_body<RLX_DT_F32>(a); break; /* exact in f32 */
    case RLX_DT_F64: rlx_cast_body<RLX_DT_F64>(a); break;
    default: rlx_cast_body<RLX_DT_I64>(a); break;                                          /* via int64 */
    }
}

/* ---- copy: y[i] = x[offset of i] for expand, transpose, strided slice and reshape. in[0] = x, st[0]
   (element strides of x over the output dims, 0 where broadcast); the element size comes from dt_out. ------- */
template <class S>
RLX_D void rlx_copy_body(const rlx_kargs& a) {
    const S* x = (const S*)a.in[0];
    S* y = (S*)a.out;
    if (a.rank == 1 && a.st[0][0] == 1) {
        RLX_GRID_LOOP(i, a.n) y[i] = x[i];
        return;
    }
    RLX_GRID_LOOP(i, a.n) {
        rlx_i64 off[1];
        rlx_offsets<1>(a, i, off);
        y[i] = x[off[0]];
    }
}
extern "C" __global__ void ew_copy(rlx_kargs a) {
    switch (rlx_dt_size(a.dt_out)) {
    case 1: rlx_copy_body<unsigned char>(a); break;
    case 2: rlx_copy_body<unsigned short>(a); break;
    case 4: rlx_copy_body<unsigned>(a); break;
    default: rlx_copy_body<rlx_u64>(a); break;
    }
}

/* ---- concat: copies a group of up to 8 inputs into their slab of the output. The output is viewed as
   [outer, dim, inner]; the group covers axis positions [ia[3], ia[3] + ia[4]); input k of the group has
   ia[8 + k] positions along the axis. n = outer * ia[4] * inner.
   ia: 0 outer, 1 inner, 2 dim, 3 first position, 4 group length, 5 inputs in the group, 8..15 lengths. ------ */
template <class S>
RLX_D void rlx_concat_body(const rlx_kargs& a) {
    const rlx_i64 inner = a.ia[1], dim = a.ia[2], pos0 = a.ia[3], glen = a.ia[4];
    const int nk = (int)a.ia[5];
    S* y = (S*)a.out;
    RLX_GRID_LOOP(i, a.n) {
        const rlx_i64 per = glen * inner, o = i / per, r = i - o * per, p = r / inner, e = r - p * inner;
        rlx_i64 start = 0, len = a.ia[8];
        const S* x = (const S*)a.in[0];
#pragma unroll
        for (int k = 1; k < 8; k++) {
            if (k < nk && p >= start + len) {
                start += len;
                len = a.ia[8 + k];
                x = (const S*)a.in[k];
            }
        }
        y[(o * dim + pos0 + p) * inner + e] = x[(o * len + (p - start)) * inner + e];
    }
}
extern "C" __global__ void concat(rlx_kargs a) {
    switch (rlx_dt_size(a.dt_out)) {
    case 1: rlx_concat_body<unsigned char>(a); break;
    case 2: rlx_concat_body<unsigned short>(a); break;
    case 4: rlx_concat_body<unsigned>(a); break;
    default: rlx_concat_body<rlx_u64>(a); break;
    }
}

/* ---- gather: numpy take. x viewed as [outer, dim, inner], output [outer, nidx, inner]; index k is read from
   in[1] (i32/i64, dt_in[1]); negative indices count from the end, anything still out of range gives zero
   bytes. ia: 0 outer, 1 nidx, 2 inner, 3 dim. ------------------------------------------------------------- */
template <class S>
RLX_D void rlx_gather_body(const rlx_kargs& a) {
    const rlx_i64 nidx = a.ia[1], inner = a.ia[2], dim = a.ia[3];
    const S* x = (const S*)a.in[0];
    const void* ix = (const void*)a.in[1];
    const int idt = a.dt_in[1];
    S* y = (S*)a.out;
    RLX_GRID_LOOP(i, a.n) {
        const rlx_i64 ok_ = i / inner, e = i - ok_ * inner, o = ok_ / nidx, k = ok_ - o * nidx;
        rlx_i64 v = idt == RLX_DT_I32 ? (rlx_i64)((const int*)ix)[k] : ((const long long*)ix)[k];
        if (v < 0) v += dim;
        y[i] = (v < 0 || v >= dim) ? (S)0 : x[(o * dim + v) * inner + e];
    }
}
extern "C" __global__ void gather(rlx_kargs a) {
    switch (rlx_dt_size(a.dt_out)) {
    case 1: rlx_gather_body<unsigned char>(a); break;
    case 2: rlx_gather_body<unsigned short>(a); break;
    case 4: rlx_gather_body<unsigned>(a); break;
    default: rlx_gather_body<rlx_u64>(a); break;
    }
}

/* ---- pad: output dims in a.dims (the output shape), x strides in st[0]. Per axis d the output coordinate c
   maps to s = c - before[d]: inside [0, n) it reads x; outside, constant mode writes the fill, edge clamps,
   reflect mirrors without repeating the edge (s < 0 -> -s, s >= n -> 2(n-1) - s).
   ia: 0 mode (1 constant, 2 reflect, 3 edge), 1..8 before[d], 9..16 x shape[d], 17 fill bits (the value
   already converted to the dtype by the host). --------------------------------------------------------------- */
RLX_D rlx_i64 rlx_pad_src(rlx_i64 s, rlx_i64 n, int mode) {
    if (s >= 0 && s < n) return s;
    if (mode == 1) return -1;
    if (mode == 3) return s < 0 ? 0 : n - 1;
    return s < 0 ? -s : 2 * (n - 1) - s;
}
template <class S>
RLX_D void rlx_pad_body(const rlx_kargs& a) {
    const S* x = (const S*)a.in[0];
    S* y = (S*)a.out;
    const int mode = (int)a.ia[0];
    const S fill = (S)(rlx_u64)a.ia[17];
    RLX_GRID_LOOP(i, a.n) {
        rlx_i64 r = i, src = 0;
        int out = 0;
#pragma unroll
        for (int d = 7; d >= 0; d--) {
            if (d < a.rank) {
                const rlx_i64 q = r / a.dims[d], c = r - q * a.dims[d];
                const rlx_i64 s = rlx_pad_src(c - a.ia[1 + d], a.ia[9 + d], mode);
                r = q;
                if (s < 0) out = 1;
                else src += s * a.st[0][d];
            }
        }
        y[i] = out ? fill : x[src];
    }
}
extern "C" __global__ void pad(rlx_kargs a) {
    switch (rlx_dt_size(a.dt_out)) {
    case 1: rlx_pad_body<unsigned char>(a); break;
    case 2: rlx_pad_body<unsigned short>(a); break;
    case 4: rlx_pad_body<unsigned>(a); break;
    default: rlx_pad_body<rlx_u64>(a); break;
    }
}

/* ---- state_write: the output aliases the state [outer, dim, inner]; update [outer, len, inner] row r lands
   on row offset + r. in[1] = update, in[2] = offset (i32/i64 read here, dt_in[2]): a scalar, or with ia[4] > 0
   one per batch row (block o reads offset o / ia[4]). A block whose rows [offset, offset + len) do not fit in
   [0, dim) is not written; the first such offset goes to the error word in[3] (when set): u32 0 = ia[5]
   (the node), 1 = batch row + 1 (0 for a scalar offset), 2-3 = the offset.
   n = outer * len * inner. ia: 0 outer, 1 len, 2 inner, 3 dim, 4 rows per offset element (0 = scalar),
   5 node tag for the error word. ------------------------------------------------------------------------- */
template <class S>
RLX_D void rlx_state_write_body(const rlx_kargs& a) {
    const rlx_i64 len = a.ia[1], inner = a.ia[2], dim = a.ia[3], per = a.ia[4];
    const S* u = (const S*)a.in[1];
    const void* po = (const void*)a.in[2];
    S* y = (S*)a.out;
    RLX_GRID_LOOP(i, a.n) {
        const rlx_i64 or_ = i / inner, e = i - or_ * inner, o = or_ / len, r = or_ - o * len, k = per > 0 ? o / per : 0;
        const rlx_i64 off = a.dt_in[2] == RLX_DT_I32 ? (rlx_i64)((const int*)po)[k] : ((const long long*)po)[k];
        if (!(off >= 0 && off <= dim - len)) {   /* checked without overflow for any offset */
            if (a.in[3] && i == (k * (per > 0 ? per : 1)) * len * inner) {   /* first element of the offset's rows */
                unsigned* err = (unsigned*)a.in[3];
                if (atomicCAS(err, 0u, (unsigned)a.ia[5]) == 0u) {
                    err[1] = per > 0 ? (unsigned)(k + 1) : 0u;
                    *(long long*)(err + 2) = off;
                }
            }
            continue;
        }
        y[(o * dim + off + r) * inner + e] = u[i];
    }
}
extern "C" __global__ void state_write(rlx_kargs a) {
    switch (rlx_dt_size(a.dt_out)) {
    case 1: rlx_state_write_body<unsigned char>(a); break;
    case 2: rlx_state_write_body<unsigned short>(a); break;
    case 4: rlx_state_write_body<unsigned>(a); break;
    default: rlx_state_write_body<rlx_u64>(a); break;
    }
}

/* ---- swiglu / geglu: y = silu(gate) * up or gelu(gate) * up (erf gelu), contiguous, float dtypes. in[0] =
   gate, in[1] = up; a.op selects. --------------------------------------------------------------------------- */
template <int DT>
RLX_D void rlx_glu_body(const rlx_kargs& a) {
    typedef rlx_dt<DT> T;
    const void* g = (const void*)a.in[0];
    const void* u = (const void*)a.in[1];
    void* y = (void*)a.out;
    const int f = a.op == RLX_OP_SWIGLU ? RLX_OP_SILU : RLX_OP_GELU;
    RLX_GRID_LOOP(i, a.n) T::st(y, i, rlx_unary(f, T::ld(g, i)) * T::ld(u, i));
}
extern "C" __global__ void glu(rlx_kargs a) { RLX_SWITCH_FLOAT(a.dt_out, rlx_glu_body, a) }

/* ---- fused_ew: a register program over up to 8 f32 inputs (each of the output's size, or one element when
   bit k of ia[20] is set). ia[0] = instruction count n (<= 19), ia[1..n] = op | a << 8 | b << 16 where an
   operand r < 8 is input r and r >= 8 the result of instruction r - 8; the last result is written. The
   registers live in shared memory, one column per thread: launch with 256 threads per block. --------------- */
#define RLX_FEW_THREADS 256
#define RLX_FEW_REGS 19
extern "C" __global__ void __launch_bounds__(RLX_FEW_THREADS) fused_ew(rlx_kargs a) {
    __shared__ float regs[RLX_FEW_REGS * RLX_FEW_THREADS];
    __shared__ int prog[RLX_FEW_REGS];
    __shared__ const float* ins[8];
    const int ninst = (int)a.ia[0];
    const unsigned scal = (unsigned)a.ia[20];
    float* R = regs + threadIdx.x;
    if (threadIdx.x < RLX_FEW_REGS) prog[threadIdx.x] = (int)a.ia[1 + threadIdx.x];
    if (threadIdx.x < 8) ins[threadIdx.x] = (const float*)a.in[threadIdx.x];
    __syncthreads();
    RLX_GRID_LOOP(i, a.n) {
        for (int k = 0; k < ninst; k++) {
            const int code = prog[k], op = code & 0xFF, ra = (code >> 8) & 0xFF, rb = (code >> 16) & 0xFF;
            const float x = ra < 8 ? ins[ra][((scal >> ra) & 1u) ? 0 : i] : R[(ra - 8) * RLX_FEW_THREADS];
            float r;
            if (op >= RLX_OP_ADD && op <= RLX_OP_MIN) {
                const float z = rb < 8 ? ins[rb][((scal >> rb) & 1u) ? 0 : i] : R[(rb - 8) * RLX_FEW_THREADS];
                r = rlx_binary(op, x, z);
            } else {
                r = rlx_unary(op, x);
            }
            R[k * RLX_FEW_THREADS] = r;
        }
        ((float*)a.out)[i] = R[(ninst - 1) * RLX_FEW_THREADS];
    }
}

/* ---- scatter (rlx_scatter): the output already holds a copy of x (an ew_copy launch before this one). One
   thread per index line, every position of the indices but the axis; it applies its updates in axis order, so
   no two threads touch one element and a repeated index keeps the last update, as on the CPU. in[0] indices
   (dt_in[0] i32/i64), in[1] updates (the output dtype); rank/dims: the indices shape, st[0] the output strides,
   st[1] the index (and update) strides. ia: 0 axis, 1 reduction (0 replace, 1 add, 2 mul, 3 max, 4 min), 2 the
   output dim along the axis. Floats combine in double, integers in int64 with wrap-around. ------------------ */
extern "C" __global__ void scatter(rlx_kargs a) {
    const int ax = (int)a.ia[0], red = (int)a.ia[1], dt = a.dt_out, size = rlx_dt_size(dt), fl = rlx_is_float(dt);
    const rlx_i64 dim = a.ia[2], len = a.dims[ax];
    const void* ix = (const void*)a.in[0];
    const void* up = (const void*)a.in[1];
    void* y = (void*)a.out;
    RLX_GRID_LOOP(l, a.n) {
        rlx_i64 rem = l, xo = 0, io = 0;
        for (int d = a.rank - 1; d >= 0; d--) {
            if (d == ax) continue;
            const rlx_i64 c = rem % a.dims[d];
            rem /= a.dims[d];
            xo += c * a.st[0][d];
            io += c * a.st[1][d];
        }
        for (rlx_i64 k = 0; k < len; k++) {
            const rlx_i64 j = io + k * a.st[1][ax];
            rlx_i64 v = a.dt_in[0] == RLX_DT_I32 ? (rlx_i64)((const int*)ix)[j] : ((const long long*)ix)[j];
            if (v < 0) v += dim;
            if (v < 0 || v >= dim) continue;
            const rlx_i64 o = xo + v * a.st[0][ax];
            if (red == 0) {
                switch (size) {
                case 1: ((unsigned char*)y)[o] = ((const unsigned char*)up)[j]; break;
                case 2: ((unsigned short*)y)[o] = ((const unsigned short*)up)[j]; break;
                case 4: ((unsigned*)y)[o] = ((const unsigned*)up)[j]; break;
                default: ((rlx_u64*)y)[o] = ((const rlx_u64*)up)[j]; break;
                }
            } else if (fl) {
                double p = rlx_ld_d(y, dt, o), q = rlx_ld_d(up, dt, j);
                p = red == 1 ? p + q : red == 2 ? p * q : red == 3 ? ((q != q || q > p) ? q : p) : ((q != q || q < p) ? q : p);
                rlx_st_from_d(y, dt, o, p);
            } else {
                rlx_i64 p = rlx_ld_i(y, dt, o), q = rlx_ld_i(up, dt, j);
                p = red == 1 ? (rlx_i64)((rlx_u64)p + (rlx_u64)q) : red == 2 ? (rlx_i64)((rlx_u64)p * (rlx_u64)q)
                  : red == 3 ? (q > p ? q : p) : (q < p ? q : p);
                rlx_st_from_i(y, dt, o, p, 0);
            }
        }
    }
}
