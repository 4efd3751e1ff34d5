#version 460
// kernels: ew_unary ew_binary ew_where ew_cast ew_copy concat gather pad state_write glu fused_ew scatter
/* elementwise.comp - elementwise and layout kernels of the Vulkan backend (port of kernels/cuda/elementwise.cu).

   Every kernel here is a grid-stride loop over the n output elements (256 invocations per workgroup). Unless a
   kernel says otherwise the output is contiguous and input k is read at the offset rlx_offsets() computes
   from a.rank/a.dims and a.st[k] (broadcast dims have stride 0; the host collapses the dims like the CPU's
   rlx__iter). Semantics are the CPU backend's: see the element math in common.glsl.

   Compute types follow common.cuh's rlx_dt<DT>: f32/f16/bf16 compute in float (rlx_ld_f, stores round to
   nearest even with rlx_st_from_f), f64 in double, integers and bool in int64 with wrapping stores
   (rlx_ld_i, rlx_st_from_i(.., 0)).
*/
#include "common.glsl"

/* Offset of input 0 for output element i: i itself when the iteration is one contiguous run. */
int64_t ew_off0(bool contig, int64_t i) {
    if (contig) return i;
    int64_t off[4];
    rlx_offsets(1, i, off);
    return off[0];
}

/* Copy one element of `size` bytes (1, 2, 4 or 8): y[i] = x[j]. */
void ew_move(int size, uint64_t y, int64_t i, uint64_t x, int64_t j) {
    switch (size) {
    case 1: rlx_u8(y, i) = rlx_u8(x, j); break;
    case 2: rlx_u16(y, i) = rlx_u16(x, j); break;
    case 4: rlx_u32(y, i) = rlx_u32(x, j); break;
    default: rlx_u64(y, i) = rlx_u64(x, j); break;
    }
}
/* Store the low `size` bytes of bits into element i. */
void ew_put(int size, uint64_t y, int64_t i, uint64_t bits) {
    switch (size) {
    case 1: rlx_u8(y, i) = uint8_t(uint(bits)); break;
    case 2: rlx_u16(y, i) = uint16_t(uint(bits)); break;
    case 4: rlx_u32(y, i) = uint(bits); break;
    default: rlx_u64(y, i) = bits; break;
    }
}

#if defined(RLX_K_ew_unary)
/* ---- ew_unary: y = f(x) in the input's compute type (f32/f16/bf16 in f32, f64 in f64, integers in int64 with
   wrap-around). in[0] = x (dt_in[0]), st[0]; a.op selects f. ------------------------------------------------- */
void main() {
    RlxArgs a = rlx_pc.a;
    const int dt = a.dt_in[0], op = a.op;
    const uint64_t x = a.in_[0], y = a.out_;
    const int64_t n = a.n;
    const bool contig = a.rank == 1 && a.st[0][0] == 1L;
    if (rlx_is_float(dt)) {   /* one call of the element math for every float dtype (it is inlined per call) */
        const bool f = dt != RLX_DT_F64;
        RLX_GRID_LOOP(i, n) rlx_st_from_d(y, dt, i, rlx_unary_g(op, rlx_ld_d(x, dt, ew_off0(contig, i)), f));
    } else {
        RLX_GRID_LOOP(i, n) rlx_st_from_i(y, dt, i, rlx_unary_i(op, rlx_ld_i(x, dt, ew_off0(contig, i))), 0);
    }
}
#endif

#if defined(RLX_K_ew_binary)
/* ---- ew_binary: y = a op b with broadcasting. in[0], in[1] share dt_in[0]; comparisons write bool (0/1), the
   other ops the input dtype. st[0], st[1]. ------------------------------------------------------------------- */
void main() {
    RlxArgs a = rlx_pc.a;
    const int dt = a.dt_in[0], op = a.op;
    const uint64_t x0 = a.in_[0], x1 = a.in_[1], y = a.out_;
    const int64_t n = a.n;
    const bool contig = a.rank == 1 && a.st[0][0] == 1L && a.st[1][0] == 1L;
    const bool cmp = rlx_is_compare(op);
    RLX_GRID_LOOP(i, n) {
        int64_t off[4];
        if (contig) {
            off[0] = i;
            off[1] = i;
        } else {
            rlx_offsets(2, i, off);
        }
        if (rlx_is_float(dt)) {   /* f32/f16/bf16 values are exact in double: one call for every float dtype */
            const double u = rlx_ld_d(x0, dt, off[0]), v = rlx_ld_d(x1, dt, off[1]);
            if (cmp) rlx_u8(y, i) = uint8_t(uint(rlx_compare_d(op, u, v)));
            else rlx_st_from_d(y, dt, i, rlx_binary_g(op, u, v, dt != RLX_DT_F64));
        } else {
            const int64_t u = rlx_ld_i(x0, dt, off[0]), v = rlx_ld_i(x1, dt, off[1]);
            if (cmp) rlx_u8(y, i) = uint8_t(uint(rlx_compare_i(op, u, v)));
            else rlx_st_from_i(y, dt, i, rlx_binary_i(op, u, v), 0);
        }
    }
}
#endif

#if defined(RLX_K_ew_where)
/* ---- ew_where: y = cond ? a : b (element bits copied). in[0] = cond (bool), in[1] = a, in[2] = b; st[0..2];
   the element size comes from dt_out. ------------------------------------------------------------------------ */
void main() {
    RlxArgs a = rlx_pc.a;
    const int size = rlx_dt_size(a.dt_out);
    const uint64_t c = a.in_[0], x0 = a.in_[1], x1 = a.in_[2], y = a.out_;
    RLX_GRID_LOOP(i, a.n) {
        int64_t off[4];
        rlx_offsets(3, i, off);
        if (uint(rlx_u8(c, off[0])) != 0u) ew_move(size, y, i, x0, off[1]);
        else ew_move(size, y, i, x1, off[2]);
    }
}
#endif

#if defined(RLX_K_ew_cast)
/* ---- ew_cast: y = cast(x) with the rules of rlx_cast (float -> float rounds to nearest even; float -> integer
   truncates, saturates, NaN -> 0; integer -> integer saturates; -> bool is != 0). in[0] = x (dt_in[0]),
   st[0]; dt_out the target. Sources are read as f32 (f32/f16/bf16, exact), f64 or int64; the target is a
   runtime switch. -------------------------------------------------------------------------------------------- */
void main() {
    RlxArgs a = rlx_pc.a;
    const int from = a.dt_in[0], to = a.dt_out;
    const uint64_t x = a.in_[0], y = a.out_;
    const bool contig = a.rank == 1 && a.st[0][0] == 1L;
    if (from == RLX_DT_F64) {
        RLX_GRID_LOOP(i, a.n) rlx_st_from_d(y, to, i, rlx_f64(x, ew_off0(contig, i)));
    } else if (rlx_is_float(from)) { /* f32, f16, bf16: exact in f32 */
        RLX_GRID_LOOP(i, a.n) rlx_st_from_f(y, to, i, rlx_ld_f(x, from, ew_off0(contig, i)));
    } else {                         /* integers and bool via int64 */
        RLX_GRID_LOOP(i, a.n) rlx_st_from_i(y, to, i, rlx_ld_i(x, from, ew_off0(contig, i)), 1);
    }
}
#endif

#if defined(RLX_K_ew_copy)
/* ---- ew_copy: y[i] = x[offset of i] for expand, transpose, strided slice and reshape. in[0] = x, st[0]
   (element strides of x over the output dims, 0 where broadcast); the element size comes from dt_out. -------- */
void main() {
    RlxArgs a = rlx_pc.a;
    const int size = rlx_dt_size(a.dt_out);
    const uint64_t x = a.in_[0], y = a.out_;
    const bool contig = a.rank == 1 && a.st[0][0] == 1L;
    RLX_GRID_LOOP(i, a.n) ew_move(size, y, i, x, ew_off0(contig, i));
}
#endif

#if defined(RLX_K_concat)
/* ---- concat: copies a group of up to 8 inputs into their slab of the output. The output is viewed as
   [outer, dim, inner]; the group covers axis positions [ia[3], ia[3] + ia[4]); input k of the group has
   ia[8 + k] positions along the axis. n = outer * ia[4] * inner.
   ia: 0 outer, 1 inner, 2 dim, 3 first position, 4 group length, 5 inputs in the group, 8..15 lengths. ------ */
void main() {
    RlxArgs a = rlx_pc.a;
    const int size = rlx_dt_size(a.dt_out);
    const int64_t inner = a.ia[1], dim = a.ia[2], pos0 = a.ia[3], glen = a.ia[4], per = glen * inner;
    const int nk = int(a.ia[5]);
    const uint64_t y = a.out_;
    RLX_GRID_LOOP(i, a.n) {
        const int64_t o = i / per, r = i - o * per, p = r / inner, e = r - p * inner;
        int64_t start = 0L, len = a.ia[8];
        uint64_t x = a.in_[0];
        for (int k = 1; k < 8; k++) {
            if (k < nk && p >= start + len) {
                start += len;
                len = a.ia[8 + k];
                x = a.in_[k];
            }
        }
        ew_move(size, y, (o * dim + pos0 + p) * inner + e, x, (o * len + (p - start)) * inner + e);
    }
}
#endif

#if defined(RLX_K_gather)
/* ---- gather: numpy take. x viewed as [outer, dim, inner], output [outer, nidx, inner]; index k is read from
   in[1] (i32/i64, dt_in[1]); negative indices count from the end, anything still out of range gives zero
   bytes. ia: 0 outer, 1 nidx, 2 inner, 3 dim. ----------------------------------------------------------------- */
void main() {
    RlxArgs a = rlx_pc.a;
    const int size = rlx_dt_size(a.dt_out);
    const int64_t nidx = a.ia[1], inner = a.ia[2], dim = a.ia[3];
    const uint64_t x = a.in_[0], ix = a.in_[1], y = a.out_;
    const bool i32 = a.dt_in[1] == RLX_DT_I32;
    RLX_GRID_LOOP(i, a.n) {
        const int64_t ok = i / inner, e = i - ok * inner, o = ok / nidx, k = ok - o * nidx;
        int64_t v = i32 ? int64_t(rlx_i32(ix, k)) : rlx_i64(ix, k);
        if (v < 0L) v += dim;
        if (v < 0L || v >= dim) ew_put(size, y, i, 0UL);
        else ew_move(size, y, i, x, (o * dim + v) * inner + e);
    }
}
#endif

#if defined(RLX_K_pad)
/* ---- pad: output dims in a.dims (the output shape), x strides in st[0]. Per axis d the output coordinate c
   maps to s = c - before[d]: inside [0, n) it reads x; outside, constant mode writes the fill, edge clamps,
   reflect mirrors without repeating the edge (s < 0 -> -s, s >= n -> 2(n-1) - s).
   ia: 0 mode (1 constant, 2 reflect, 3 edge), 1..8 before[d], 9..16 x shape[d], 17 fill bits (the value
   already converted to the dtype by the host). --------------------------------------------------------------- */
int64_t pad_src(int64_t s, int64_t n, int mode) {
    if (s >= 0L && s < n) return s;
    if (mode == 1) return -1L;
    if (mode == 3) return s < 0L ? 0L : n - 1L;
    return s < 0L ? -s : 2L * (n - 1L) - s;
}
void main() {
    RlxArgs a = rlx_pc.a;
    const int size = rlx_dt_size(a.dt_out);
    const int mode = int(a.ia[0]), rank = a.rank;
    const uint64_t fill = uint64_t(a.ia[17]), x = a.in_[0], y = a.out_;
    RLX_GRID_LOOP(i, a.n) {
        int64_t r = i, src = 0L;
        bool outside = false;
        for (int d = rank - 1; d >= 0; d--) {
            const int64_t q = r / a.dims[d], c = r - q * a.dims[d];
            const int64_t s = pad_src(c - a.ia[1 + d], a.ia[9 + d], mode);
            r = q;
            if (s < 0L) outside = true;
            else src += s * a.st[0][d];
        }
        if (outside) ew_put(size, y, i, fill);
        else ew_move(size, y, i, x, src);
    }
}
#endif

#if defined(RLX_K_state_write)
/* ---- state_write: the output aliases the state [outer, dim, inner]; update [outer, len, inner] row r lands
   on row offset + r. in[1] = update, in[2] = offset (i32/i64 read here, dt_in[2]): a scalar, or with ia[4] > 0
   one per batch row (block o reads offset o / ia[4]). A block whose rows [offset, offset + len) do not fit in
   [0, dim) is not written; the first such offset goes to the error word in[3] (when set): u32 0 = ia[5]
   (the node), 1 = batch row + 1 (0 for a scalar offset), 2-3 = the offset.
   n = outer * len * inner. ia: 0 outer, 1 len, 2 inner, 3 dim, 4 rows per offset element (0 = scalar),
   5 node tag for the error word. ------------------------------------------------------------------------- */
void main() {
    RlxArgs a = rlx_pc.a;
    const int size = rlx_dt_size(a.dt_out);
    const int64_t len = a.ia[1], inner = a.ia[2], dim = a.ia[3], per = a.ia[4];
    const uint64_t u = a.in_[1], po = a.in_[2], y = a.out_, err = a.in_[3];
    RLX_GRID_LOOP(i, a.n) {
        const int64_t orow = i / inner, e = i - orow * inner, o = orow / len, r = orow - o * len;
        const int64_t k = per > 0L ? o / per : 0L;
        const int64_t off = a.dt_in[2] == RLX_DT_I32 ? int64_t(rlx_i32(po, k)) : rlx_i64(po, k);
        if (!(off >= 0L && off <= dim - len)) {   /* checked without overflow for any offset */
            if (err != 0UL && i == k * (per > 0L ? per : 1L) * len * inner) {   /* first element of the offset's rows */
                if (atomicCompSwap(rlx_u32(err, 0), 0u, uint(a.ia[5])) == 0u) {
                    rlx_u32(err, 1) = per > 0L ? uint(k + 1L) : 0u;
                    rlx_i64(err, 1) = off;
                }
            }
            continue;
        }
        ew_move(size, y, (o * dim + off + r) * inner + e, u, i);
    }
}
#endif

#if defined(RLX_K_glu)
/* ---- glu (swiglu / geglu): y = silu(gate) * up or gelu(gate) * up (erf gelu), contiguous, float dtypes
   (f32/f16/bf16 in float, f64 in double). in[0] = gate, in[1] = up; a.op (RLX_OP_SWIGLU / RLX_OP_GEGLU)
   selects. -------------------------------------------------------------------------------------------------- */
void main() {
    RlxArgs a = rlx_pc.a;
    const int dt = a.dt_out;
    const uint64_t g = a.in_[0], u = a.in_[1], y = a.out_;
    const int f = a.op == RLX_OP_SWIGLU ? RLX_OP_SILU : RLX_OP_GELU;
    const bool sf = dt != RLX_DT_F64;
    if (rlx_is_float(dt)) {   /* one call of the element math for every float dtype */
        RLX_GRID_LOOP(i, a.n) {
            const double act = rlx_unary_g(f, rlx_ld_d(g, dt, i), sf), up = rlx_ld_d(u, dt, i);
            rlx_st_from_d(y, dt, i, sf ? double(float(act) * float(up)) : act * up);
        }
    }
}
#endif

#if defined(RLX_K_fused_ew)
/* ---- fused_ew: a register program over up to 8 f32 inputs (each of the output's size, or one element when
   bit k of ia[20] is set). ia[0] = instruction count n (<= 19), ia[1..n] = op | a << 8 | b << 16 where an
   operand r < 8 is input r and r >= 8 the result of instruction r - 8; the last result is written. The
   registers are a private array of each invocation (19 floats); launch with 256 invocations per workgroup. */
#define FEW_REGS 19
void main() {
    RlxArgs a = rlx_pc.a;
    const int ninst = int(a.ia[0]);
    const uint scal = uint(a.ia[20]);
    float R[FEW_REGS];
    RLX_GRID_LOOP(i, a.n) {
        for (int k = 0; k < ninst; k++) {
            const int code = int(a.ia[1 + k]), op = code & 0xFF, ra = (code >> 8) & 0xFF, rb = (code >> 16) & 0xFF;
            const float x = ra < 8 ? rlx_f32(a.in_[ra], ((scal >> ra) & 1u) != 0u ? 0L : i) : R[ra - 8];
            float z = 0.0;
            if (op >= RLX_OP_ADD && op <= RLX_OP_MIN)
                z = rb < 8 ? rlx_f32(a.in_[rb], ((scal >> rb) & 1u) != 0u ? 0L : i) : R[rb - 8];
            R[k] = float(rlx_elem_g(op, double(x), double(z), true));   /* one call: the math is inlined once */
        }
        rlx_f32(a.out_, i) = R[ninst - 1];
    }
}
#endif

#if defined(RLX_K_scatter)
/* ---- scatter (rlx_scatter): the output already holds a copy of x (an ew_copy launch before this one). One
   invocation per index line, every position of the indices but the axis; it applies its updates in axis order,
   so no two invocations touch one element and a repeated index keeps the last update, as on the CPU. in[0]
   indices (dt_in[0] i32/i64), in[1] updates (the output dtype); rank/dims: the indices shape, st[0] the output
   strides, st[1] the index (and update) strides. ia: 0 axis, 1 reduction (0 replace, 1 add, 2 mul, 3 max,
   4 min), 2 the output dim along the axis. Floats combine in double, integers in int64 with wrap-around. ---- */
void main() {
    RlxArgs a = rlx_pc.a;
    const int ax = int(a.ia[0]), red = int(a.ia[1]), dt = a.dt_out, size = rlx_dt_size(dt);
    const int64_t dim = a.ia[2], len = a.dims[ax];
    const uint64_t ix = a.in_[0], up = a.in_[1], y = a.out_;
    const bool i32 = a.dt_in[0] == RLX_DT_I32, fl = rlx_is_float(dt);
    RLX_GRID_LOOP(l, a.n) {
        int64_t rem = l, xo = 0L, io = 0L;
        for (int d = a.rank - 1; d >= 0; d--) {
            if (d == ax) continue;
            const int64_t c = rem % a.dims[d];
            rem /= a.dims[d];
            xo += c * a.st[0][d];
            io += c * a.st[1][d];
        }
        for (int64_t k = 0L; k < len; k++) {
            const int64_t j = io + k * a.st[1][ax];
            int64_t v = i32 ? int64_t(rlx_i32(ix, j)) : rlx_i64(ix, j);
            if (v < 0L) v += dim;
            if (v < 0L || v >= dim) continue;
            const int64_t o = xo + v * a.st[0][ax];
            if (red == 0) ew_move(size, y, o, up, j);
            else if (fl) {
                double p = rlx_ld_d(y, dt, o), q = rlx_ld_d(up, dt, j);
                p = red == 1 ? p + q : red == 2 ? p * q : red == 3 ? ((isnan(q) || q > p) ? q : p) : ((isnan(q) || q < p) ? q : p);
                rlx_st_from_d(y, dt, o, p);
            } else {
                int64_t p = rlx_ld_i(y, dt, o), q = rlx_ld_i(up, dt, j);
                p = red == 1 ? p + q : red == 2 ? p * q : red == 3 ? (q > p ? q : p) : (q < p ? q : p);
                rlx_st_from_i(y, dt, o, p, 0);
            }
        }
    }
}
#endif
