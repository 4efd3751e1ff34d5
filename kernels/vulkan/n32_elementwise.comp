#version 460
// kernels: ew_unary ew_binary ew_where ew_cast ew_copy fused_ew
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
