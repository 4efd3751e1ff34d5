/* n32.glsl - shared definitions of the 32-bit variant of the Vulkan kernels (GLSL 4.60 for Vulkan 1.1+): no
   64-bit integer and no double anywhere, so a module built from it declares neither the Int64 nor the Float64
   SPIR-V capability and runs on devices without shaderInt64 / shaderFloat64 (Intel Arc/Xe, Apple GPUs through
   MoltenVK, most mobile GPUs), with f32 element math at full float rate.

   A kernel of the 32-bit variant lives in kernels/vulkan/n32_MODULE.comp under the name of the kernel it
   replaces (n32_elementwise.comp: ew_unary ...) and has that kernel's semantics for every dtype except f64 and
   i64 (the host never sends those to it). rlx.h (>>vkfeat) picks it when the device lacks (or
   RLX_VULKAN_HIDE_FEATURES hides) shaderFloat64 or shaderInt64, and converts the launch's rlx__kargs into
   RlxArgs32 below, after checking that every count, dim, stride, offset and integer attribute fits in int32.

     RlxArgs32, rlx_pc.a     launch arguments: the fields of rlx__kargs with uvec2 device addresses
                             (GL_EXT_buffer_reference_uvec2), int dims/strides/attributes, float fa[]
     typed views             rlx_n_u8 .. rlx_n_f32 (uvec2 base, int i): lvalues, element i of the array at base
     RLX_N_LOOP(i, n)        grid-stride loop over [0, n), i an int (n <= 2^31 - 1, checked by the host)
     rlx_n_offsets           element offsets of up to 4 operands (rlx_offsets of common.glsl)
     rlx_n_div_rn(a, b)      f32 a / b correctly rounded (32-bit integer long division: no double, no fma; ties,
                             subnormals, inf, NaN and signed zeros as IEEE 754)
     rlx_n_sqrt_rn(x)        f32 sqrt correctly rounded (integer digit-by-digit square root)
     rlx_n_elem_f(op, x, z)  every unary and arithmetic binary float op in f32 semantics (the CPU's
                             rlx__unary_f / rlx__binary_f32): + - * / sqrt exact as IEEE, transcendentals from
                             math_f32.glsl (within 1 ulp each), compounds (sigmoid, silu, gelu, gelu_tanh) in the
                             CPU's order of f32 operations with correctly rounded divisions
     rlx_n_unary_i, rlx_n_binary_i, rlx_n_compare_i   integer ops on int32 with the CPU's int64 results wrapped
                             to 32 bits (u32 values: unsigned division, comparison, max/min)
     loads / stores          rlx_n_ld_f (f32/f16/bf16 as float), rlx_n_ld_i (integers and bool as int; u32 as its
                             bits), rlx_n_st_f (cast rules of a float), rlx_n_st_i (wrapping store),
                             rlx_n_st_i_sat (cast rules of an integer, u: the value is a u32)
*/
#ifndef RLX_N32_GLSL
#define RLX_N32_GLSL

#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_spirv_intrinsics : require

/* f32 subnormals are kept (SPV_KHR_float_controls DenormPreserve for 32-bit floats): the CPU keeps them, and a
   driver may flush them otherwise (NVIDIA's does). A device without shaderDenormPreserveFloat32 gets the module
   with the mode removed by the host (rlx.h, >>vkfeat) and may flush. */
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4464], 4459, 32);

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint RLX_SMEM_WORDS = 1u;

/* The 32-bit launch ABI: rlx.h's rlx__kargs32 (filled from rlx__kargs by the host); std430 offsets: out_ 0,
   in_ 8, n 72, op 76, dt_out 80, dt_in 84, rank 116, dims 120, st 152, ia 280, fa 376 (392 bytes). */
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer RlxArgs32 {
    uvec2 out_;
    uvec2 in_[8];
    int n;
    int op;
    int dt_out;
    int dt_in[8];
    int rank;
    int dims[8];
    int st[4][8];
    int ia[24];
    float fa[4];
};
layout(push_constant) uniform RlxPush32 { RlxArgs32 a; } rlx_pc;

layout(buffer_reference, std430, buffer_reference_align = 1) buffer RlxNU8 { uint8_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 1) buffer RlxNI8 { int8_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 2) buffer RlxNU16 { uint16_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 2) buffer RlxNI16 { int16_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer RlxNU32 { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer RlxNI32 { int v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer RlxNF32 { float v[]; };
/* element i (0 <= i < 2^31) of the array at address base: the driver forms the 64-bit address */
#define rlx_n_u8(base, i) RlxNU8(base).v[i]
#define rlx_n_i8(base, i) RlxNI8(base).v[i]
#define rlx_n_u16(base, i) RlxNU16(base).v[i]
#define rlx_n_i16(base, i) RlxNI16(base).v[i]
#define rlx_n_u32(base, i) RlxNU32(base).v[i]
#define rlx_n_i32(base, i) RlxNI32(base).v[i]
#define rlx_n_f32(base, i) RlxNF32(base).v[i]

#include "math_f32.glsl"

/* ---- codes (values of rlx.h; the same as common.glsl) ------------------------------------------------------ */
#define RLX_DT_F32 1
#define RLX_DT_F16 2
#define RLX_DT_BF16 3
#define RLX_DT_I8 5
#define RLX_DT_I16 6
#define RLX_DT_I32 7
#define RLX_DT_U8 9
#define RLX_DT_U32 10
#define RLX_DT_BOOL 11

#define RLX_OP_NEG 4
#define RLX_OP_ABS 5
#define RLX_OP_EXP 6
#define RLX_OP_LOG 7
#define RLX_OP_SQRT 8
#define RLX_OP_RSQRT 9
#define RLX_OP_SIN 10
#define RLX_OP_COS 11
#define RLX_OP_TAN 12
#define RLX_OP_ATAN 13
#define RLX_OP_TANH 14
#define RLX_OP_SIGMOID 15
#define RLX_OP_RELU 16
#define RLX_OP_GELU 17
#define RLX_OP_GELU_TANH 18
#define RLX_OP_SILU 19
#define RLX_OP_ERF 20
#define RLX_OP_ROUND 21
#define RLX_OP_FLOOR 22
#define RLX_OP_CEIL 23
#define RLX_OP_ADD 24
#define RLX_OP_SUB 25
#define RLX_OP_MUL 26
#define RLX_OP_DIV 27
#define RLX_OP_POW 28
#define RLX_OP_MAX 29
#define RLX_OP_MIN 30
#define RLX_OP_EQ 31
#define RLX_OP_NE 32
#define RLX_OP_LT 33
#define RLX_OP_LE 34
#define RLX_OP_GT 35
#define RLX_OP_GE 36

/* ---- indexing ---------------------------------------------------------------------------------------------- */
int rlx_n_gid() { return int(gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x); }
int rlx_n_gstride() { return int(gl_NumWorkGroups.x * gl_WorkGroupSize.x); }
/* n <= 2^31 - 1 and the stride <= 2^28 (the host clamps grids), so i + stride never wraps past 2^32: the loop
   counts in uint. */
#define RLX_N_LOOP(i, n) for (uint i##_u = uint(rlx_n_gid()), i##_n = uint(n); i##_u < i##_n; i##_u += uint(rlx_n_gstride())) \
    for (int i = int(i##_u), i##_once = 0; i##_once == 0; i##_once = 1)

/* off[k] (k < nops <= 4): element offset of input k for output element i (i decomposed over a.dims, last dim
   fastest, weighted with a.st[k]); the host checked that every offset fits in int32. */
void rlx_n_offsets(int nops, int i, out int off[4]) {
    RlxArgs32 a = rlx_pc.a;
    const int rank = a.rank;
    off[0] = 0; off[1] = 0; off[2] = 0; off[3] = 0;
    uint r = uint(i);
    for (int d = rank - 1; d >= 0; d--) {
        const uint dim = uint(a.dims[d]), q = r / dim, idx = r - q * dim;
        r = q;
        for (int k = 0; k < nops; k++) off[k] += int(idx) * a.st[k][d];
    }
}

/* ---- bits ------------------------------------------------------------------------------------------------- */
bool rlx_n_isnan(float x) { return (floatBitsToUint(x) & 0x7FFFFFFFu) > 0x7F800000u; }
float rlx_n_nan() { return uintBitsToFloat(0x7FC00000u); }
float rlx_n_mul_rn(float a, float b) {
    precise float r = a * b;
    return r;
}
/* significand of a finite nonzero |x| (bits m, 24 significant bits: 2^23 <= m < 2^24) and exponent e with
   |x| = m * 2^(e - 23); subnormals normalised */
void rlx_n_unpack(uint ux, out uint m, out int e) {
    const uint ex = (ux >> 23) & 0xFFu, f = ux & 0x7FFFFFu;
    if (ex != 0u) { m = f | 0x800000u; e = int(ex) - 127; return; }
    const int sh = 23 - findMSB(f);   /* f != 0 */
    m = f << uint(sh);
    e = -126 - sh;
}
/* sign | round(q * 2^(e - 24)) where q holds 25 significant bits (2^24 <= q < 2^25; the lowest is the guard bit)
   and sticky says whether anything nonzero lies below: round to nearest even, to a subnormal or to inf. */
uint rlx_n_pack(uint sign, uint q, int e, bool sticky) {
    int be = e + 127;   /* biased exponent of the result 1.xxx * 2^e */
    if (be < 1) {       /* subnormal: shift right by 1 - be more, collecting the sticky bits */
        const int sh = 1 - be;
        if (sh > 25) return sign;
        sticky = sticky || (q & ((1u << uint(sh)) - 1u)) != 0u;
        q >>= uint(sh);
        be = 0;
    }
    const uint g = q & 1u;
    uint m = q >> 1;   /* 24 bits with the hidden one (or fewer: subnormal) */
    if (g != 0u && (sticky || (m & 1u) != 0u)) m++;
    if (be == 0) return sign | m;   /* m may reach 2^23: the smallest normal, which this encodes too */
    if (m >= 0x1000000u) { m >>= 1; be++; }
    if (be >= 255) return sign | 0x7F800000u;
    return sign | (uint(be) << 23) | (m & 0x7FFFFFu);
}

/* ---- correctly rounded division and square root (the CPU's f32 / and sqrtf) -------------------------------- */
/* a / b by long division of the 24-bit significands: 25 quotient bits (24 and a guard bit) and the remainder as
   the sticky bit, then one rounding (rlx_n_pack). Only 32-bit integers: the result never depends on how the
   device divides floats (Vulkan allows 2.5 ulp for OpFDiv). */
float rlx_n_div_rn(float a, float b) {
    const uint ua = floatBitsToUint(a), ub = floatBitsToUint(b);
    const uint sign = (ua ^ ub) & 0x80000000u, xa = ua & 0x7FFFFFFFu, xb = ub & 0x7FFFFFFFu;
    if (xa > 0x7F800000u || xb > 0x7F800000u) return rlx_n_nan();
    if (xa == 0x7F800000u) return xb == 0x7F800000u ? rlx_n_nan() : uintBitsToFloat(sign | 0x7F800000u);
    if (xb == 0x7F800000u) return uintBitsToFloat(sign);
    if (xb == 0u) return xa == 0u ? rlx_n_nan() : uintBitsToFloat(sign | 0x7F800000u);
    if (xa == 0u) return uintBitsToFloat(sign);
    uint ma, mb;
    int ea, eb;
    rlx_n_unpack(xa, ma, ea);
    rlx_n_unpack(xb, mb, eb);
    int e = ea - eb;
    if (ma < mb) { ma <<= 1; e--; }   /* now 1 <= ma / mb < 2 */
    uint q = 0u, r = ma;
    for (int k = 0; k < 25; k++) {    /* r < 2 mb < 2^25 */
        q <<= 1;
        if (r >= mb) { r -= mb; q |= 1u; }
        r <<= 1;
    }
    return uintBitsToFloat(rlx_n_pack(sign, q, e, r != 0u));
}
/* sqrt(x) from the integer square root of the significand shifted left by 25 or 26 bits (an even exponent), 25
   root bits and the remainder as the sticky bit. */
float rlx_n_sqrt_rn(float x) {
    const uint ux = floatBitsToUint(x);
    if ((ux & 0x7FFFFFFFu) == 0u) return x;   /* +-0 */
    if (ux > 0x80000000u) return rlx_n_nan();  /* x < 0 or a NaN with the sign bit */
    if (ux >= 0x7F800000u) return x;           /* +inf, NaN */
    uint m;
    int e;
    rlx_n_unpack(ux, m, e);
    if ((e & 1) != 0) { m <<= 1; e--; }        /* m < 2^25, |x| = m * 2^(e - 23), e even */
    /* R = m * 2^25 (50 bits), read two bits at a time from the top: bits 49-2k and 48-2k of R */
    uint root = 0u, rem = 0u;
    for (int k = 0; k < 25; k++) {
        const int sh = 23 - 2 * k;             /* bits 49-2k, 48-2k of R are bits sh+1, sh of m */
        const uint two = sh >= 0 ? (m >> uint(sh)) & 3u : (sh == -1 ? (m << 1) & 3u : 0u);
        rem = (rem << 2) | two;
        const uint trial = (root << 2) | 1u;
        if (rem >= trial) { rem -= trial; root = (root << 1) | 1u; }
        else root <<= 1;
    }
    /* sqrt(m * 2^25) = root (2^24 <= root < 2^25), so sqrt(x) = root * 2^((e - 23 - 25) / 2) = root * 2^(e/2 - 24) */
    return uintBitsToFloat(rlx_n_pack(0u, root, e / 2, rem != 0u));
}

/* ---- element math in f32 (the CPU's rlx__unary_f and f32 binary ops) ---------------------------------------- */
/* Every transcendental function once (the compilers inline each call; one switch keeps the SPIR-V small). */
float rlx_n_transc(int fn, float x, float y) {
    switch (fn) {
    case RLX_OP_EXP: return rlx_exp_f32(x);
    case RLX_OP_LOG: return rlx_log_f32(x);
    case RLX_OP_SIN: return rlx_sin_f32(x);
    case RLX_OP_COS: return rlx_cos_f32(x);
    case RLX_OP_TAN: return rlx_tan_f32(x);
    case RLX_OP_ATAN: return rlx_atan_f32(x);
    case RLX_OP_TANH: return rlx_tanh_f32(x);
    case RLX_OP_ERF: return rlx_erf_f32(x);
    case RLX_OP_POW: return rlx_pow_f32(x, y);
    default: return x;
    }
}
int rlx_n_unary_fn(int op) {
    switch (op) {
    case RLX_OP_EXP: case RLX_OP_LOG: case RLX_OP_SIN: case RLX_OP_COS: case RLX_OP_TAN: case RLX_OP_ATAN:
    case RLX_OP_TANH: case RLX_OP_ERF: return op;
    case RLX_OP_SIGMOID: case RLX_OP_SILU: return RLX_OP_EXP;
    case RLX_OP_GELU: return RLX_OP_ERF;
    case RLX_OP_GELU_TANH: return RLX_OP_TANH;
    default: return -1;
    }
}
/* Round half to even without the roundEven built-in (see rlx_round_even_d in common.glsl) */
float rlx_n_round_even(float x) {
    float f = floor(x);
    precise const float d = x - f;
    if (d > 0.5 || (d == 0.5 && f - 2.0 * floor(f * 0.5) != 0.0)) f += 1.0;
    return f == 0.0 ? uintBitsToFloat(floatBitsToUint(x) & 0x80000000u) : f;
}
/* A unary op (z unused) or an arithmetic binary op (x op z), f32 semantics; call it from one place per kernel. */
float rlx_n_elem_f(int op, float x, float z) {
    const bool bin = op >= RLX_OP_ADD && op <= RLX_OP_MIN;
    const int fn = bin ? (op == RLX_OP_POW ? RLX_OP_POW : -1) : rlx_n_unary_fn(op);
    float a = x, t = 0.0;
    if (op == RLX_OP_SIGMOID || op == RLX_OP_SILU) a = -x;
    else if (op == RLX_OP_GELU) a = rlx_n_mul_rn(x, 0.70710678);
    else if (op == RLX_OP_GELU_TANH)
        a = rlx_n_mul_rn(0.79788456, x + rlx_n_mul_rn(rlx_n_mul_rn(rlx_n_mul_rn(0.044715, x), x), x));
    if (fn >= 0) t = rlx_n_transc(fn, a, z);
    /* the divisions of sigmoid, silu, rsqrt and div share one call of rlx_n_div_rn */
    float dn = 1.0, dd = 1.0;
    if (op == RLX_OP_DIV) { dn = x; dd = z; }
    else if (op == RLX_OP_SIGMOID) dd = 1.0 + t;
    else if (op == RLX_OP_SILU) { dn = x; dd = 1.0 + t; }
    else if (op == RLX_OP_RSQRT) dd = rlx_n_sqrt_rn(x);
    const bool dv = op == RLX_OP_DIV || op == RLX_OP_SIGMOID || op == RLX_OP_SILU || op == RLX_OP_RSQRT;
    const float q = dv ? rlx_n_div_rn(dn, dd) : 0.0;
    switch (op) {
    case RLX_OP_ADD: return x + z;
    case RLX_OP_SUB: return x - z;
    case RLX_OP_MUL: return rlx_n_mul_rn(x, z);
    case RLX_OP_DIV: case RLX_OP_SIGMOID: case RLX_OP_SILU: case RLX_OP_RSQRT: return q;
    case RLX_OP_MAX: return (rlx_n_isnan(x) || rlx_n_isnan(z)) ? rlx_n_nan() : (x > z ? x : z);
    case RLX_OP_MIN: return (rlx_n_isnan(x) || rlx_n_isnan(z)) ? rlx_n_nan() : (x < z ? x : z);
    case RLX_OP_NEG: return -x;
    case RLX_OP_ABS: return abs(x);
    case RLX_OP_SQRT: return rlx_n_sqrt_rn(x);
    case RLX_OP_RELU: return x > 0.0 ? x : (rlx_n_isnan(x) ? x : 0.0);
    case RLX_OP_GELU: case RLX_OP_GELU_TANH: return rlx_n_mul_rn(rlx_n_mul_rn(0.5, x), 1.0 + t);
    case RLX_OP_ROUND: return rlx_n_round_even(x);
    case RLX_OP_FLOOR: return floor(x);
    case RLX_OP_CEIL: return ceil(x);
    default: return fn >= 0 ? t : (bin ? 0.0 : x);
    }
}

/* ---- integer element math: the CPU computes in int64 and stores the low bits; in 32 bits the low bits agree
   for + - * neg abs pow and for / (b = 0 -> 0, b = -1 -> -a wrapped). u = the operands are u32 values (zero
   extended on the CPU): unsigned /, max, min and comparisons. ------------------------------------------------ */
int rlx_n_unary_i(int op, int x, bool u) {
    switch (op) {
    case RLX_OP_NEG: return int(0u - uint(x));
    case RLX_OP_ABS: return (!u && x < 0) ? int(0u - uint(x)) : x;
    case RLX_OP_RELU: return (u || x > 0) ? x : 0;
    default: return x;
    }
}
int rlx_n_ipow(int a, int b, bool u) {
    uint r = 1u, base = uint(a), e = uint(b);
    if (!u && b < 0) return 0;
    while (e != 0u) {
        if ((e & 1u) != 0u) r *= base;
        base *= base;
        e >>= 1;
    }
    return int(r);
}
int rlx_n_binary_i(int op, int a, int b, bool u) {
    switch (op) {
    case RLX_OP_ADD: return int(uint(a) + uint(b));
    case RLX_OP_SUB: return int(uint(a) - uint(b));
    case RLX_OP_MUL: return int(uint(a) * uint(b));
    case RLX_OP_DIV:
        if (b == 0) return 0;
        if (u) return int(uint(a) / uint(b));
        return b == -1 ? int(0u - uint(a)) : a / b;
    case RLX_OP_POW: return rlx_n_ipow(a, b, u);
    case RLX_OP_MAX: return u ? (uint(a) > uint(b) ? a : b) : (a > b ? a : b);
    case RLX_OP_MIN: return u ? (uint(a) < uint(b) ? a : b) : (a < b ? a : b);
    default: return 0;
    }
}
#define RLX_N_COMPARE_BODY                                                                                       \
    switch (op) {                                                                                                \
    case RLX_OP_EQ: return a == b ? 1 : 0;                                                                       \
    case RLX_OP_NE: return a != b ? 1 : 0;                                                                       \
    case RLX_OP_LT: return a < b ? 1 : 0;                                                                        \
    case RLX_OP_LE: return a <= b ? 1 : 0;                                                                       \
    case RLX_OP_GT: return a > b ? 1 : 0;                                                                        \
    case RLX_OP_GE: return a >= b ? 1 : 0;                                                                       \
    default: return 0;                                                                                           \
    }
int rlx_n_compare_s(int op, int a, int b) { RLX_N_COMPARE_BODY }
/* floats compared on their bits (a device that flushes subnormals would compare them as zeros): NaN is unordered
   (only != holds), -0 == +0, otherwise the sign-magnitude bits ordered as integers */
int rlx_n_compare_f(int op, float a, float b) {
    const uint ua = floatBitsToUint(a), ub = floatBitsToUint(b);
    if (rlx_n_isnan(a) || rlx_n_isnan(b)) return op == RLX_OP_NE ? 1 : 0;
    return rlx_n_compare_s(op, (ua >> 31) != 0u ? -int(ua & 0x7FFFFFFFu) : int(ua & 0x7FFFFFFFu),
                           (ub >> 31) != 0u ? -int(ub & 0x7FFFFFFFu) : int(ub & 0x7FFFFFFFu));
}
int rlx_n_compare_u(int op, uint a, uint b) { RLX_N_COMPARE_BODY }
#undef RLX_N_COMPARE_BODY
int rlx_n_compare_i(int op, int a, int b, bool u) { return u ? rlx_n_compare_u(op, uint(a), uint(b)) : rlx_n_compare_s(op, a, b); }
bool rlx_n_is_compare(int op) { return op >= RLX_OP_EQ && op <= RLX_OP_GE; }
bool rlx_n_is_float(int dt) { return dt == RLX_DT_F32 || dt == RLX_DT_F16 || dt == RLX_DT_BF16; }
int rlx_n_dt_size(int dt) {
    switch (dt) {
    case RLX_DT_F32: case RLX_DT_I32: case RLX_DT_U32: return 4;
    case RLX_DT_F16: case RLX_DT_BF16: case RLX_DT_I16: return 2;
    default: return 1;
    }
}

/* ---- small floats (common.glsl's rlx_round_small_f: round to nearest even, overflow to inf, quiet NaN) ----- */
uint rlx_n_round_small(float f, int MB, int EB) {
    const uint u = floatBitsToUint(f);
    const uint sign = (u >> 31) << uint(MB + EB);
    const int e = int((u >> 23) & 0xFFu);
    const uint m = u & 0x7FFFFFu;
    const int bias = (1 << (EB - 1)) - 1, emax = (1 << EB) - 1;
    int ue, shift;
    uint full, keep, rem, hlf;
    if (e == 0xFF) return sign | (uint(emax) << uint(MB)) | (m != 0u ? (1u << uint(MB - 1)) : 0u);
    if (e == 0) {
        if (m == 0u) return sign;
        const int lz = 23 - findMSB(m);
        full = m << uint(lz);
        ue = -126 - lz;
    } else {
        full = m | 0x800000u;
        ue = e - 127;
    }
    if (ue + bias >= 1) {
        shift = 23 - MB;
    } else {
        shift = 23 - MB + (1 - bias - ue);
        if (shift > 31) return sign;
    }
    keep = full >> uint(shift);
    rem = full & ((1u << uint(shift)) - 1u);
    hlf = 1u << uint(shift - 1);
    if (rem > hlf || (rem == hlf && (keep & 1u) != 0u)) keep++;
    if (ue + bias >= 1) {
        int te = ue + bias;
        if ((keep >> uint(MB + 1)) != 0u) { keep >>= 1; te++; }
        if (te >= emax) return sign | (uint(emax) << uint(MB));
        return sign | (uint(te) << uint(MB)) | (keep & ((1u << uint(MB)) - 1u));
    }
    return sign | keep;
}
float rlx_n_h2f(uint h) {
    const uint s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0u) {
        const float v = float(m) * (1.0 / 16777216.0);
        return s != 0u ? -v : v;
    }
    if (e == 31u) return uintBitsToFloat(s | 0x7F800000u | (m << 13));
    return uintBitsToFloat(s | ((e + 112u) << 23) | (m << 13));
}
float rlx_n_bf2f(uint h) { return uintBitsToFloat((h & 0xFFFFu) << 16); }

/* An integer as a float whose rounding to f16/bf16 equals the integer's own (the CPU rounds the exact integer
   once): above 24 bits the bits below the 24th are OR-ed into the 24th (round to odd), so float() is exact. */
float rlx_n_i2f_odd(uint mag, bool neg) {
    if (mag >= 0x1000000u) {
        const uint sh = uint(findMSB(mag) - 23);
        const uint low = mag & ((1u << sh) - 1u);
        const uint kept = (mag >> sh) | (low != 0u ? 1u : 0u);
        const float v = float(kept) * uintBitsToFloat((127u + sh) << 23);
        return neg ? -v : v;
    }
    return neg ? -float(mag) : float(mag);
}

/* ---- loads and stores -------------------------------------------------------------------------------------- */
float rlx_n_ld_f(uvec2 p, int dt, int i) {
    switch (dt) {
    case RLX_DT_F16: return rlx_n_h2f(uint(rlx_n_u16(p, i)));
    case RLX_DT_BF16: return rlx_n_bf2f(uint(rlx_n_u16(p, i)));
    default: return rlx_n_f32(p, i);
    }
}
/* integers and bool as int (i8/i16 sign-extended, u8 zero-extended, u32 its bits, bool 0/1) */
int rlx_n_ld_i(uvec2 p, int dt, int i) {
    switch (dt) {
    case RLX_DT_I8: return int(rlx_n_i8(p, i));
    case RLX_DT_I16: return int(rlx_n_i16(p, i));
    case RLX_DT_U8: return int(uint(rlx_n_u8(p, i)));
    case RLX_DT_BOOL: return uint(rlx_n_u8(p, i)) != 0u ? 1 : 0;
    default: return rlx_n_i32(p, i);
    }
}
/* wrapping store of an integer into an integer or bool dtype */
void rlx_n_st_i(uvec2 p, int dt, int i, int v) {
    switch (dt) {
    case RLX_DT_I8: case RLX_DT_U8: rlx_n_u8(p, i) = uint8_t(uint(v) & 0xFFu); break;
    case RLX_DT_I16: rlx_n_u16(p, i) = uint16_t(uint(v) & 0xFFFFu); break;
    case RLX_DT_BOOL: rlx_n_u8(p, i) = uint8_t(v != 0 ? 1u : 0u); break;
    default: rlx_n_u32(p, i) = uint(v); break;
    }
}
/* store a float with the cast rules: float dtypes round to nearest even; integers truncate, saturate, NaN -> 0;
   bool is != 0 (NaN -> 1) */
void rlx_n_st_f(uvec2 p, int dt, int i, float v) {
    const bool nan = rlx_n_isnan(v);
    const float t = trunc(v);
    switch (dt) {
    case RLX_DT_F32: rlx_n_f32(p, i) = v; return;
    case RLX_DT_F16: rlx_n_u16(p, i) = uint16_t(rlx_n_round_small(v, 10, 5)); return;
    case RLX_DT_BF16: rlx_n_u16(p, i) = uint16_t(rlx_n_round_small(v, 7, 8)); return;
    case RLX_DT_BOOL: rlx_n_u8(p, i) = uint8_t((floatBitsToUint(v) & 0x7FFFFFFFu) != 0u ? 1u : 0u); return;   /* bits: subnormals are true */
    case RLX_DT_U32:
        rlx_n_u32(p, i) = nan || t <= 0.0 ? 0u : (t >= 4294967296.0 ? 0xFFFFFFFFu : uint(t));
        return;
    case RLX_DT_I32:
        rlx_n_i32(p, i) = nan ? 0 : (t <= -2147483648.0 ? int(0x80000000u) : (t >= 2147483648.0 ? 0x7FFFFFFF : int(t)));
        return;
    default: {   /* i8, i16, u8: the range is exact in float */
        const float lo = dt == RLX_DT_I8 ? -128.0 : (dt == RLX_DT_I16 ? -32768.0 : 0.0);
        const float hi = dt == RLX_DT_I8 ? 127.0 : (dt == RLX_DT_I16 ? 32767.0 : 255.0);
        rlx_n_st_i(p, dt, i, nan ? 0 : int(clamp(t, lo, hi)));
        return;
    }
    }
}
/* store an integer with the cast rules (u: v is a u32 value): integer targets saturate, floats round once */
void rlx_n_st_i_sat(uvec2 p, int dt, int i, int v, bool u) {
    const bool neg = !u && v < 0;
    const uint mag = neg ? 0u - uint(v) : uint(v);
    switch (dt) {
    case RLX_DT_F32: rlx_n_f32(p, i) = u ? float(uint(v)) : float(v); return;
    case RLX_DT_F16: rlx_n_u16(p, i) = uint16_t(rlx_n_round_small(rlx_n_i2f_odd(mag, neg), 10, 5)); return;
    case RLX_DT_BF16: rlx_n_u16(p, i) = uint16_t(rlx_n_round_small(rlx_n_i2f_odd(mag, neg), 7, 8)); return;
    case RLX_DT_BOOL: rlx_n_u8(p, i) = uint8_t(v != 0 ? 1u : 0u); return;
    case RLX_DT_U32: rlx_n_u32(p, i) = neg ? 0u : uint(v); return;
    case RLX_DT_I32: rlx_n_i32(p, i) = (u && mag > 0x7FFFFFFFu) ? 0x7FFFFFFF : v; return;
    default: {
        const int lo = dt == RLX_DT_I8 ? -128 : (dt == RLX_DT_I16 ? -32768 : 0);
        const uint hi = dt == RLX_DT_I8 ? 127u : (dt == RLX_DT_I16 ? 32767u : 255u);
        const int s = neg ? (v < lo ? lo : v) : (mag > hi ? int(hi) : int(mag));
        rlx_n_st_i(p, dt, i, s);
        return;
    }
    }
}

#endif /* RLX_N32_GLSL */
