#version 460
// kernels: ew_unary ew_binary ew_where ew_cast ew_copy fused_ew concat gather pad glu
/* n32_elementwise.comp - the 32-bit variant (n32.glsl) of the elementwise kernels of elementwise.comp, for
   devices without shaderFloat64 or shaderInt64: the same kernels, launches and semantics for every dtype but f64
   and i64, with int32 indices and f32 element math (math_f32.glsl). f32/f16/bf16 compute in float, integers and
   bool in int32 with the CPU's wrap-around (u32: unsigned /, max, min, comparisons). */
#include "n32.glsl"

int ew_off0(bool contig, int i) {
    if (contig) return i;
    int off[4];
    rlx_n_offsets(1, i, off);
    return off[0];
}
void ew_move(int size, uvec2 y, int i, uvec2 x, int j) {
    switch (size) {
    case 1: rlx_n_u8(y, i) = rlx_n_u8(x, j); break;
    case 2: rlx_n_u16(y, i) = rlx_n_u16(x, j); break;
    default: rlx_n_u32(y, i) = rlx_n_u32(x, j); break;
    }
}

#if defined(RLX_K_ew_unary)
void main() {
    RlxArgs32 a = rlx_pc.a;
    const int dt = a.dt_in[0], op = a.op;
    const uvec2 x = a.in_[0], y = a.out_;
    const bool contig = a.rank == 1 && a.st[0][0] == 1;
    if (rlx_n_is_float(dt)) {
        RLX_N_LOOP(i, a.n) rlx_n_st_f(y, dt, i, rlx_n_elem_f(op, rlx_n_ld_f(x, dt, ew_off0(contig, i)), 0.0));
    } else {
        const bool u = dt == RLX_DT_U32;
        RLX_N_LOOP(i, a.n) rlx_n_st_i(y, dt, i, rlx_n_unary_i(op, rlx_n_ld_i(x, dt, ew_off0(contig, i)), u));
    }
}
#endif

#if defined(RLX_K_ew_binary)
void main() {
    RlxArgs32 a = rlx_pc.a;
    const int dt = a.dt_in[0], op = a.op;
    const uvec2 x0 = a.in_[0], x1 = a.in_[1], y = a.out_;
    const bool contig = a.rank == 1 && a.st[0][0] == 1 && a.st[1][0] == 1;
    const bool cmp = rlx_n_is_compare(op), u = dt == RLX_DT_U32;
    RLX_N_LOOP(i, a.n) {
        int off[4];
        if (contig) {
            off[0] = i;
            off[1] = i;
        } else {
            rlx_n_offsets(2, i, off);
        }
        if (rlx_n_is_float(dt)) {
            const float p = rlx_n_ld_f(x0, dt, off[0]), q = rlx_n_ld_f(x1, dt, off[1]);
            if (cmp) rlx_n_u8(y, i) = uint8_t(uint(rlx_n_compare_f(op, p, q)));
            else rlx_n_st_f(y, dt, i, rlx_n_elem_f(op, p, q));
        } else {
            const int p = rlx_n_ld_i(x0, dt, off[0]), q = rlx_n_ld_i(x1, dt, off[1]);
            if (cmp) rlx_n_u8(y, i) = uint8_t(uint(rlx_n_compare_i(op, p, q, u)));
            else rlx_n_st_i(y, dt, i, rlx_n_binary_i(op, p, q, u));
        }
    }
}
#endif

#if defined(RLX_K_ew_where)
void main() {
    RlxArgs32 a = rlx_pc.a;
    const int size = rlx_n_dt_size(a.dt_out);
    const uvec2 c = a.in_[0], x0 = a.in_[1], x1 = a.in_[2], y = a.out_;
    RLX_N_LOOP(i, a.n) {
        int off[4];
        rlx_n_offsets(3, i, off);
        if (uint(rlx_n_u8(c, off[0])) != 0u) ew_move(size, y, i, x0, off[1]);
        else ew_move(size, y, i, x1, off[2]);
    }
}
#endif

#if defined(RLX_K_ew_cast)
void main() {
    RlxArgs32 a = rlx_pc.a;
    const int from = a.dt_in[0], to = a.dt_out;
    const uvec2 x = a.in_[0], y = a.out_;
    const bool contig = a.rank == 1 && a.st[0][0] == 1;
    if (rlx_n_is_float(from)) {
        RLX_N_LOOP(i, a.n) rlx_n_st_f(y, to, i, rlx_n_ld_f(x, from, ew_off0(contig, i)));
    } else {
        const bool u = from == RLX_DT_U32;
        RLX_N_LOOP(i, a.n) rlx_n_st_i_sat(y, to, i, rlx_n_ld_i(x, from, ew_off0(contig, i)), u);
    }
}
#endif

#if defined(RLX_K_ew_copy)
void main() {
    RlxArgs32 a = rlx_pc.a;
    const int size = rlx_n_dt_size(a.dt_out);
    const uvec2 x = a.in_[0], y = a.out_;
    const bool contig = a.rank == 1 && a.st[0][0] == 1;
    RLX_N_LOOP(i, a.n) ew_move(size, y, i, x, ew_off0(contig, i));
}
#endif

#if defined(RLX_K_fused_ew)
/* fused_ew of elementwise.comp: ia[0] instructions (<= 19), ia[1..] = op | a << 8 | b << 16 (operand r < 8:
   input r, else the result of instruction r - 8), bit k of ia[20]: input k is one element. */
#define FEW_REGS 19
void main() {
    RlxArgs32 a = rlx_pc.a;
    const int ninst = a.ia[0];
    const uint scal = uint(a.ia[20]);
    float R[FEW_REGS];
    RLX_N_LOOP(i, a.n) {
        for (int k = 0; k < ninst; k++) {
            const int code = a.ia[1 + k], op = code & 0xFF, ra = (code >> 8) & 0xFF, rb = (code >> 16) & 0xFF;
            const float x = ra < 8 ? rlx_n_f32(a.in_[ra], ((scal >> ra) & 1u) != 0u ? 0 : i) : R[ra - 8];
            float z = 0.0;
            if (op >= RLX_OP_ADD && op <= RLX_OP_MIN)
                z = rb < 8 ? rlx_n_f32(a.in_[rb], ((scal >> rb) & 1u) != 0u ? 0 : i) : R[rb - 8];
            R[k] = rlx_n_elem_f(op, x, z);
        }
        rlx_n_f32(a.out_, i) = R[ninst - 1];
    }
}
#endif

#if defined(RLX_K_concat)
/* concat of elementwise.comp: ia 0 outer, 1 inner, 2 dim, 3 first position, 4 group length, 5 inputs in the
   group, 8..15 lengths; the host checked outer * dim * inner < 2^31. */
void main() {
    RlxArgs32 a = rlx_pc.a;
    const int size = rlx_n_dt_size(a.dt_out);
    const int inner = a.ia[1], dim = a.ia[2], pos0 = a.ia[3], glen = a.ia[4], per = glen * inner, nk = a.ia[5];
    const uvec2 y = a.out_;
    RLX_N_LOOP(i, a.n) {
        const int o = i / per, r = i - o * per, p = r / inner, e = r - p * inner;
        int start = 0, len = a.ia[8];
        uvec2 x = a.in_[0];
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
/* gather of elementwise.comp with i32 indices (i64 index tensors need shaderInt64: the host refuses them):
   ia 0 outer, 1 nidx, 2 inner, 3 dim; negative indices count from the end, still out of range -> zero bytes. */
void main() {
    RlxArgs32 a = rlx_pc.a;
    const int size = rlx_n_dt_size(a.dt_out);
    const int nidx = a.ia[1], inner = a.ia[2], dim = a.ia[3];
    const uvec2 x = a.in_[0], ix = a.in_[1], y = a.out_;
    RLX_N_LOOP(i, a.n) {
        const int ok = i / inner, e = i - ok * inner, o = ok / nidx, k = ok - o * nidx;
        int v = rlx_n_i32(ix, k);
        if (v < 0) v += dim;
        if (v < 0 || v >= dim) {
            if (size == 1) rlx_n_u8(y, i) = uint8_t(0u);
            else if (size == 2) rlx_n_u16(y, i) = uint16_t(0u);
            else rlx_n_u32(y, i) = 0u;
        } else {
            ew_move(size, y, i, x, (o * dim + v) * inner + e);
        }
    }
}
#endif

#if defined(RLX_K_pad)
/* pad of elementwise.comp: ia 0 mode (1 constant, 2 reflect, 3 edge), 1..8 before[d], 9..16 x shape[d], 17 fill
   bits; the host checked that every x offset fits in int32. */
int pad_src(int s, int n, int mode) {
    if (s >= 0 && s < n) return s;
    if (mode == 1) return -1;
    if (mode == 3) return s < 0 ? 0 : n - 1;
    return s < 0 ? -s : 2 * (n - 1) - s;
}
void main() {
    RlxArgs32 a = rlx_pc.a;
    const int size = rlx_n_dt_size(a.dt_out);
    const int mode = a.ia[0], rank = a.rank;
    const uint fill = uint(a.ia[17]);
    const uvec2 x = a.in_[0], y = a.out_;
    RLX_N_LOOP(i, a.n) {
        uint r = uint(i);
        int src = 0;
        bool outside = false;
        for (int d = rank - 1; d >= 0; d--) {
            const uint dim = uint(a.dims[d]), q = r / dim;
            const int s = pad_src(int(r - q * dim) - a.ia[1 + d], a.ia[9 + d], mode);
            r = q;
            if (s < 0) outside = true;
            else src += s * a.st[0][d];
        }
        if (outside) {
            if (size == 1) rlx_n_u8(y, i) = uint8_t(fill & 0xFFu);
            else if (size == 2) rlx_n_u16(y, i) = uint16_t(fill & 0xFFFFu);
            else rlx_n_u32(y, i) = fill;
        } else {
            ew_move(size, y, i, x, src);
        }
    }
}
#endif

#if defined(RLX_K_glu)
/* glu of elementwise.comp (f32/f16/bf16): y = silu(gate) * up (RLX_OP_SWIGLU) or gelu(gate) * up (erf gelu),
   contiguous; in[0] gate, in[1] up. */
#define RLX_OP_SWIGLU 70
void main() {
    RlxArgs32 a = rlx_pc.a;
    const int dt = a.dt_out;
    const uvec2 g = a.in_[0], u = a.in_[1], y = a.out_;
    const int f = a.op == RLX_OP_SWIGLU ? RLX_OP_SILU : RLX_OP_GELU;
    RLX_N_LOOP(i, a.n) rlx_n_st_f(y, dt, i, rlx_n_mul_rn(rlx_n_elem_f(f, rlx_n_ld_f(g, dt, i), 0.0), rlx_n_ld_f(u, dt, i)));
}
#endif
