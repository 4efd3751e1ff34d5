/* common.glsl - shared definitions of the Vulkan compute kernels of rlx.h (GLSL 4.60 for Vulkan 1.1+).

   The Vulkan kernels are ports of kernels/cuda (same names, same launch ABI, same semantics): the host lowers a
   node once into launches with the CUDA lowering of rlx.h and records them into one command buffer. Memory is
   reached by buffer device address (VK_KHR_buffer_device_address), so a kernel sees exactly what a CUDA kernel
   sees: 64-bit device addresses of the output and inputs inside one rlx_kargs struct. The struct itself lives
   in device memory; the push constant is its address.

   Device features the kernels need (rlx.h reads each module's capabilities and refuses a kernel whose
   features the device lacks): bufferDeviceAddress, shaderInt64, shaderFloat64, storageBuffer8BitAccess,
   storageBuffer16BitAccess (the last two only where 8/16-bit views are used).
   8- and 16-bit values are only loaded, stored and converted (never computed with), so shaderInt8/shaderInt16
   are not needed: convert a loaded 8/16-bit value to uint/int at once (uint(rlx_u8(p, i)) != 0u, never
   rlx_u8(p, i) != uint8_t(0)), and store uint8_t(x)/uint16_t(x) of a uint x (an int goes through uint first:
   uint8_t(uint(k))); 8/16-bit literals and signed <-> unsigned 8/16-bit conversions need shaderInt8/16.

   Launch mapping (CUDA -> GLSL):
     blockIdx.x  -> gl_WorkGroupID.x        threadIdx.x -> gl_LocalInvocationID.x
     blockDim.x  -> gl_WorkGroupSize.x      gridDim.x   -> gl_NumWorkGroups.x
     __syncthreads() -> barrier()           dynamic shared memory -> rlx_smem[RLX_SMEM_WORDS]
   The block size is specialization constant 0 (local_size_x_id = 0), the dynamic shared memory size in 32-bit
   words specialization constant 1. The host clamps every grid dimension to the device's
   maxComputeWorkGroupCount, so every kernel loops over its work with a stride of gl_NumWorkGroups.

   Contents (the names of kernels/cuda/common.cuh; templates become one function per compute type, suffix
   _f float, _d double, _i int64_t; GLSL overloads on the argument type are provided where common.cuh
   overloads)
     RlxArgs, rlx_pc.a       the launch argument (std430 mirror of rlx_kargs) and the push constant
     typed views             rlx_u8 rlx_i8 rlx_u16 rlx_i16 rlx_u32 rlx_i32 rlx_f32 rlx_i64 rlx_u64 rlx_f64
                             (base, int64 i): lvalues, element i of the array at byte address base
     RLX_DT_* RLX_OP_* RLX_ACT_*   dtype, op and activation codes (#define, the values of rlx.h)
     RLX_GRID_LOOP(i, n)     grid-stride loop over [0, n), i an int64_t
                             int64_t rlx_bdim() (workgroup size), rlx_gid() (global index), rlx_gstride()
     bit casts               bool rlx_isnan(float|double)   (on the bits)
                             uint rlx_f2u(float)  float rlx_u2f(uint)  uint64_t rlx_d2u(double)
                             double rlx_u2d(uint64_t)  int rlx_clz32(uint x != 0)
                             float rlx_inf_f() rlx_nan_f()  double rlx_inf_d() rlx_nan_d()
                             float rlx_mul_rn(float, float)  double rlx_dmul_rn(double, double): products that
                             are never contracted into an fma (`precise`)
     math.glsl               (included here) rlx_{exp,log,sin,cos,tan,atan,tanh,erf}_{f,d}(x),
                             rlx_pow_f(float, float), rlx_pow_d(double, double)
     small floats            uint rlx_round_small_d(double d, int MB, int EB)
                             uint rlx_round_small_f(float f, int MB, int EB)   (16-bit result in a uint)
                             uint rlx_f2h(float) rlx_f2bf(float) rlx_d2h(double) rlx_d2bf(double)
                             float rlx_h2f(uint h) rlx_bf2f(uint h)   (exact)
     float -> integer        void rlx_int_range(int dt, out int64_t lo, out int64_t hi)
                             int64_t rlx_f2i_sat_f(float, int64_t lo, int64_t hi), rlx_f2i_sat_d(double, lo, hi)
                             (overload rlx_f2i_sat(float|double, lo, hi))
                             int64_t rlx_sat_i64(int64_t v, int64_t lo, int64_t hi)
     dtype facts             bool rlx_is_float(int dt)  int rlx_dt_size(int dt)
     loads / stores          double rlx_ld_d(uint64_t base, int dt, int64_t i)   (the CPU's rlx__load_f64)
                             int64_t rlx_ld_i(uint64_t base, int dt, int64_t i)  (the CPU's rlx__load_i64)
                             float rlx_ld_f(uint64_t base, int dt, int64_t i)
                             void rlx_st_from_i(uint64_t base, int dt, int64_t i, int64_t v, int sat)
                             void rlx_st_from_d(uint64_t base, int dt, int64_t i, double v)
                             void rlx_st_from_f(uint64_t base, int dt, int64_t i, float v)
                             rlx_dt<DT>::ld/st of common.cuh: float dtypes rlx_ld_f / rlx_st_from_f, f64
                             rlx_f64(base, i), integers and bool rlx_ld_i / rlx_st_from_i(.., 0) (wrapping)
     element math            double rlx_elem_g(int op, double x, double z, bool f32)   (every unary and
                             arithmetic binary float op; call it from one place per kernel: it is long)
                             double rlx_unary_g(int op, double x, bool f32)  double rlx_binary_g(op, a, b, f32)
                             int64_t rlx_unary_i(int op, int64_t)
                             int64_t rlx_binary_i(int op, int64_t, int64_t)  int64_t rlx_ipow(int64_t, int64_t)
                             int rlx_compare_f/_d/_i(int op, T a, T b) (0/1)  bool rlx_is_compare(int op)
                             (overload rlx_compare(op, a, b))
                             float rlx_act(int act, float)
                             float rlx_epilogue(float v, int64_t r, int64_t c, int64_t N)   (reads rlx_pc.a)
     indexing                void rlx_offsets(int nops, int64_t i, out int64_t off[4])   (reads rlx_pc.a;
                             off[k] for k < nops, the rest 0)
                             void rlx_mm_batch(int64_t z, out int64_t ao, out int64_t bo)   (reads rlx_pc.a)
     block reductions        float rlx_block_reduce_f(float v, int rop, float ident)
                             double rlx_block_reduce_d(double v, int rop, double ident)
                             int64_t rlx_block_reduce_i(int64_t v, int rop, int64_t ident)
                             rop: RLX_ROP_SUM, RLX_ROP_MAX, RLX_ROP_MIN, RLX_ROP_PROD, RLX_ROP_OR (int64 only);
                             sum/prod of int64 wrap (the CUDA kernels' u64 sums). Call from uniform control
                             flow with every invocation of the workgroup; all get the result, in the order of
                             the CUDA 32-lane shuffle tree. Scratch: `shared uint64_t rlx_red[]` of
                             gl_WorkGroupSize.x entries (8 bytes per invocation), declared here; the call starts
                             and ends with a barrier. The workgroup size must be a multiple of 32 (<= 1024).
                             Defined only for the kernels that use them (the list at the definition: reduce_block
                             softmax norm_rows add_norm group_norm) or where RLX_BLOCK_REDUCE is defined, so that
                             no other kernel carries the scratch array.
     random numbers          uint64_t rlx_splitmix64(uint64_t)
                             float rlx_uniform(uint64_t seed, int64_t counter, int64_t row)
*/
#ifndef RLX_COMMON_GLSL
#define RLX_COMMON_GLSL

#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint RLX_SMEM_WORDS = 1u;

/* The launch ABI (kernels/cuda/README.md): the std430 layout of this block equals the C struct rlx__kargs. */
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer RlxArgs {
    uint64_t out_;     /* device address of the output */
    uint64_t in_[8];   /* device addresses of the inputs (0 = absent) */
    int64_t n;
    int op;
    int dt_out;
    int dt_in[8];
    int rank;
    int pad_;
    int64_t dims[8];
    int64_t st[4][8];
    int64_t ia[24];
    double fa[4];
};
layout(push_constant) uniform RlxPush { RlxArgs a; } rlx_pc;

/* typed views of device memory: RlxF32(address).v[i] */
layout(buffer_reference, std430, buffer_reference_align = 1) buffer RlxU8 { uint8_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 1) buffer RlxI8 { int8_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 2) buffer RlxU16 { uint16_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 2) buffer RlxI16 { int16_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer RlxU32 { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer RlxI32 { int v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer RlxF32 { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer RlxI64 { int64_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer RlxU64 { uint64_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer RlxF64 { double v[]; };

/* Element i of the array at byte address `base` (64-bit indices need address arithmetic: GLSL array
   subscripts are 32-bit). */
#define RLX_AT(T, base, i, size) T((base) + uint64_t(i) * uint64_t(size)).v[0]
#define rlx_u8(base, i) RLX_AT(RlxU8, base, i, 1)
#define rlx_i8(base, i) RLX_AT(RlxI8, base, i, 1)
#define rlx_u16(base, i) RLX_AT(RlxU16, base, i, 2)
#define rlx_i16(base, i) RLX_AT(RlxI16, base, i, 2)
#define rlx_u32(base, i) RLX_AT(RlxU32, base, i, 4)
#define rlx_i32(base, i) RLX_AT(RlxI32, base, i, 4)
#define rlx_f32(base, i) RLX_AT(RlxF32, base, i, 4)
#define rlx_i64(base, i) RLX_AT(RlxI64, base, i, 8)
#define rlx_u64(base, i) RLX_AT(RlxU64, base, i, 8)
#define rlx_f64(base, i) RLX_AT(RlxF64, base, i, 8)
/* usage: float x = rlx_f32(a.in_[0], i); rlx_f32(a.out_, i) = x; */

/* ---- codes (values of rlx_dtype, rlx_op and rlx_activation in rlx.h) --------------------------------------- */
#define RLX_DT_F32 1
#define RLX_DT_F16 2
#define RLX_DT_BF16 3
#define RLX_DT_F64 4
#define RLX_DT_I8 5
#define RLX_DT_I16 6
#define RLX_DT_I32 7
#define RLX_DT_I64 8
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
#define RLX_OP_SUM 40
#define RLX_OP_MEAN 41
#define RLX_OP_REDUCE_MAX 42
#define RLX_OP_REDUCE_MIN 43
#define RLX_OP_PROD 44
#define RLX_OP_ARGMAX 45
#define RLX_OP_ARGMIN 46
#define RLX_OP_SOFTMAX 47
#define RLX_OP_LOG_SOFTMAX 48
#define RLX_OP_LAYERNORM 49
#define RLX_OP_RMSNORM 50
#define RLX_OP_SWIGLU 70
#define RLX_OP_GEGLU 71

#define RLX_ACT_NONE 0
#define RLX_ACT_RELU 1
#define RLX_ACT_GELU 2
#define RLX_ACT_GELU_TANH 3
#define RLX_ACT_SILU 4

#define RLX_I64_MIN (-9223372036854775807L - 1L)
#define RLX_I64_MAX 9223372036854775807L

/* The workgroup size as int64_t (widened at run time: SPIR-V 1.3 cannot widen the specialization constant,
   so int64_t(gl_WorkGroupSize.x) does not compile), the global invocation index and the grid stride in 64 bits
   (gl_NumWorkGroups.x * gl_WorkGroupSize.x may exceed 32 bits where the device allows large grids). */
int64_t rlx_bdim() {
    uint b = gl_WorkGroupSize.x;
    return int64_t(b);
}
int64_t rlx_gid() { return int64_t(gl_WorkGroupID.x) * rlx_bdim() + int64_t(gl_LocalInvocationID.x); }
int64_t rlx_gstride() { return int64_t(gl_NumWorkGroups.x) * rlx_bdim(); }

/* grid-stride loop over [0, n) (i: int64_t) */
#define RLX_GRID_LOOP(i, n) for (int64_t i = rlx_gid(); i < int64_t(n); i += rlx_gstride())

/* ---- bit casts -------------------------------------------------------------------------------------------- */
uint rlx_f2u(float f) { return floatBitsToUint(f); }
float rlx_u2f(uint u) { return uintBitsToFloat(u); }
uint64_t rlx_d2u(double d) { return doubleBitsToUint64(d); }
double rlx_u2d(uint64_t u) { return uint64BitsToDouble(u); }
int rlx_clz32(uint x) { return 31 - findMSB(x); } /* x != 0 */

/* NaN tests on the bits, so that no floating-point mode of a driver's compiler can fold them away */
bool rlx_isnan(float x) { return (floatBitsToUint(x) & 0x7FFFFFFFu) > 0x7F800000u; }
bool rlx_isnan(double x) { return (doubleBitsToUint64(x) & 0x7FFFFFFFFFFFFFFFUL) > 0x7FF0000000000000UL; }
float rlx_inf_f() { return uintBitsToFloat(0x7F800000u); }
float rlx_nan_f() { return uintBitsToFloat(0x7FC00000u); }
double rlx_inf_d() { return uint64BitsToDouble(0x7FF0000000000000UL); }
double rlx_nan_d() { return uint64BitsToDouble(0x7FF8000000000000UL); }

/* Multiplications that must not be contracted into a fused multiply-add (the CPU rounds the product). */
float rlx_mul_rn(float a, float b) {
    precise float r = a * b;
    return r;
}
double rlx_dmul_rn(double a, double b) {
    precise double r = a * b;
    return r;
}

/* a / b for f32 values, correctly rounded, as the CPU divides. Vulkan allows 2.5 ulp for an f32 OpFDiv (NVIDIA's
   driver uses that freedom, which moved a round-half case of DynamicQuantizeLinear), so the quotient is formed
   in f64, rounded to f32, and then the closest of it and its two f32 neighbours is kept, judged by the residual
   a - c * b, which is exact in f64 (a 24-bit by 24-bit product near a). Zero, inf and NaN results pass. */
double rlx_div_res(float a, float c, float b) {
    precise double r = double(a) - double(c) * double(b);
    return abs(r);
}
float rlx_div_rn(float a, float b) {
    const float q = float(double(a) / double(b));
    const uint qm = floatBitsToUint(q) & 0x7FFFFFFFu;
    if (qm == 0u || qm >= 0x7F7FFFFFu || (floatBitsToUint(b) & 0x7FFFFFFFu) >= 0x7F800000u) return q;
    const float lo = uintBitsToFloat(floatBitsToUint(q) - 1u), hi = uintBitsToFloat(floatBitsToUint(q) + 1u);
    const double r = rlx_div_res(a, q, b), rl = rlx_div_res(a, lo, b), rh = rlx_div_res(a, hi, b);
    if (rl < r && rl <= rh) return lo;
    if (rh < r) return hi;
    return q;
}

/* ---- transcendental functions (double and float, the CPU's libm results within a few ulp) ----------------- */
/* math.glsl may use everything defined above (extensions, RlxArgs, typed views, bit casts, rlx_isnan,
   rlx_inf_f/_d, rlx_nan_f/_d, rlx_mul_rn, rlx_dmul_rn); the element math below uses its functions. */
#include "math.glsl"

/* ---- small floats ----------------------------------------------------------------------------------------- */
/* Round a double to a small float with MB mantissa and EB exponent bits (f16: 10/5, bf16: 7/8): round to
   nearest even, overflow to inf, NaN -> quiet NaN. The CPU backend's rlx__round_small_float. Returns the
   16-bit pattern in a uint. */
uint rlx_round_small_d(double d, int MB, int EB) {
    const uint64_t u = rlx_d2u(d);
    const uint sign = uint(u >> 63) << (MB + EB);
    const int e = int((u >> 52) & 0x7FFUL);
    const uint64_t m = u & 0xFFFFFFFFFFFFFUL;
    const int bias = (1 << (EB - 1)) - 1, emax = (1 << EB) - 1;
    int ue, shift;
    uint64_t full, keep, rem, hlf;
    if (e == 0x7FF) return sign | (uint(emax) << MB) | (m != 0UL ? (1u << (MB - 1)) : 0u);
    if (e == 0) return sign;
    ue = e - 1023;
    full = m | (1UL << 52);
    if (ue + bias >= 1) {
        shift = 52 - MB;
    } else {
        shift = 52 - MB + (1 - bias - ue);
        if (shift > 62) return sign;
    }
    keep = full >> shift;
    rem = full & ((1UL << shift) - 1UL);
    hlf = 1UL << (shift - 1);
    if (rem > hlf || (rem == hlf && (keep & 1UL) != 0UL)) keep++;
    if (ue + bias >= 1) {
        int te = ue + bias;
        if ((keep >> (MB + 1)) != 0UL) { keep >>= 1; te++; }
        if (te >= emax) return sign | (uint(emax) << MB);
        return sign | (uint(te) << MB) | (uint(keep) & ((1u << MB) - 1u));
    }
    return sign | uint(keep);
}

/* The same rounding from a float, in 32-bit integer arithmetic (equal to rlx_round_small_d(double(f))). */
uint rlx_round_small_f(float f, int MB, int EB) {
    const uint u = rlx_f2u(f);
    const uint sign = (u >> 31) << (MB + EB);
    const int e = int((u >> 23) & 0xFFu);
    const uint m = u & 0x7FFFFFu;
    const int bias = (1 << (EB - 1)) - 1, emax = (1 << EB) - 1;
    int ue, shift;
    uint full, keep, rem, hlf;
    if (e == 0xFF) return sign | (uint(emax) << MB) | (m != 0u ? (1u << (MB - 1)) : 0u);
    if (e == 0) { /* zero or a float subnormal: normalise to a 24-bit significand */
        if (m == 0u) return sign;
        const int lz = rlx_clz32(m) - 8;
        full = m << lz;
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
    keep = full >> shift;
    rem = full & ((1u << shift) - 1u);
    hlf = 1u << (shift - 1);
    if (rem > hlf || (rem == hlf && (keep & 1u) != 0u)) keep++;
    if (ue + bias >= 1) {
        int te = ue + bias;
        if ((keep >> (MB + 1)) != 0u) { keep >>= 1; te++; }
        if (te >= emax) return sign | (uint(emax) << MB);
        return sign | (uint(te) << MB) | (keep & ((1u << MB) - 1u));
    }
    return sign | keep;
}

uint rlx_f2h(float f) { return rlx_round_small_f(f, 10, 5); }
uint rlx_f2bf(float f) { return rlx_round_small_f(f, 7, 8); }
uint rlx_d2h(double d) { return rlx_round_small_d(d, 10, 5); }
uint rlx_d2bf(double d) { return rlx_round_small_d(d, 7, 8); }

/* f16 bits -> f32 (exact) */
float rlx_h2f(uint h) {
    const uint s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0u) {
        const float v = float(m) * (1.0 / 16777216.0); /* m * 2^-24, exact */
        return s != 0u ? -v : v;
    }
    if (e == 31u) return rlx_u2f(s | 0x7F800000u | (m << 13));
    return rlx_u2f(s | ((e + 112u) << 23) | (m << 13));
}
/* bf16 bits -> f32 (exact) */
float rlx_bf2f(uint h) { return rlx_u2f((h & 0xFFFFu) << 16); }

/* ---- float -> integer (cast rules) ------------------------------------------------------------------------ */
/* Integer range of a dtype (bool: 0..1; i64 and the float dtypes: the int64 range). */
void rlx_int_range(int dt, out int64_t lo, out int64_t hi) {
    switch (dt) {
    case RLX_DT_I8: lo = -128L; hi = 127L; break;
    case RLX_DT_I16: lo = -32768L; hi = 32767L; break;
    case RLX_DT_I32: lo = -2147483648L; hi = 2147483647L; break;
    case RLX_DT_U8: lo = 0L; hi = 255L; break;
    case RLX_DT_U32: lo = 0L; hi = 4294967295L; break;
    case RLX_DT_BOOL: lo = 0L; hi = 1L; break;
    default: lo = RLX_I64_MIN; hi = RLX_I64_MAX; break;
    }
}
/* Truncate toward zero, saturate to [lo, hi], NaN -> 0. float(hi) rounds up to a power of two for the wide
   ranges, so `>=` catches every value above hi. */
int64_t rlx_f2i_sat_f(float d, int64_t lo, int64_t hi) {
    if (rlx_isnan(d)) return 0L;
    d = trunc(d);
    if (d <= float(lo)) return lo;
    if (d >= float(hi)) return hi;
    return int64_t(d);
}
int64_t rlx_f2i_sat_d(double d, int64_t lo, int64_t hi) {
    if (rlx_isnan(d)) return 0L;
    d = trunc(d);
    if (d <= double(lo)) return lo;
    if (d >= double(hi)) return hi;
    return int64_t(d);
}
int64_t rlx_f2i_sat(float d, int64_t lo, int64_t hi) { return rlx_f2i_sat_f(d, lo, hi); }
int64_t rlx_f2i_sat(double d, int64_t lo, int64_t hi) { return rlx_f2i_sat_d(d, lo, hi); }
int64_t rlx_sat_i64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* ---- runtime-dtype loads and stores ----------------------------------------------------------------------- */
bool rlx_is_float(int dt) { return dt >= RLX_DT_F32 && dt <= RLX_DT_F64; }
int rlx_dt_size(int dt) {
    switch (dt) {
    case RLX_DT_F32: case RLX_DT_I32: case RLX_DT_U32: return 4;
    case RLX_DT_F16: case RLX_DT_BF16: case RLX_DT_I16: return 2;
    case RLX_DT_F64: case RLX_DT_I64: return 8;
    default: return 1;
    }
}

/* Element i as double (integers converted; bool 0/1). The CPU's rlx__load_f64. */
double rlx_ld_d(uint64_t p, int dt, int64_t i) {
    switch (dt) {
    case RLX_DT_F32: return double(rlx_f32(p, i));
    case RLX_DT_F16: return double(rlx_h2f(uint(rlx_u16(p, i))));
    case RLX_DT_BF16: return double(rlx_bf2f(uint(rlx_u16(p, i))));
    case RLX_DT_F64: return rlx_f64(p, i);
    case RLX_DT_I8: return double(int(rlx_i8(p, i)));
    case RLX_DT_I16: return double(int(rlx_i16(p, i)));
    case RLX_DT_I32: return double(rlx_i32(p, i));
    case RLX_DT_I64: return double(rlx_i64(p, i));
    case RLX_DT_U8: return double(uint(rlx_u8(p, i)));
    case RLX_DT_U32: return double(rlx_u32(p, i));
    case RLX_DT_BOOL: return uint(rlx_u8(p, i)) != 0u ? 1.0LF : 0.0LF;
    default: return 0.0LF;
    }
}
/* Element i of an integer or bool tensor as int64 (u32 zero-extended). The CPU's rlx__load_i64. */
int64_t rlx_ld_i(uint64_t p, int dt, int64_t i) {
    switch (dt) {
    case RLX_DT_I8: return int64_t(int(rlx_i8(p, i)));
    case RLX_DT_I16: return int64_t(int(rlx_i16(p, i)));
    case RLX_DT_I32: return int64_t(rlx_i32(p, i));
    case RLX_DT_I64: return rlx_i64(p, i);
    case RLX_DT_U8: return int64_t(uint(rlx_u8(p, i)));
    case RLX_DT_U32: return int64_t(uint64_t(rlx_u32(p, i)));
    case RLX_DT_BOOL: return uint(rlx_u8(p, i)) != 0u ? 1L : 0L;
    default: return rlx_f2i_sat_d(rlx_ld_d(p, dt, i), RLX_I64_MIN, RLX_I64_MAX);
    }
}
/* Element i of a float tensor as float (f64 rounded). */
float rlx_ld_f(uint64_t p, int dt, int64_t i) {
    switch (dt) {
    case RLX_DT_F32: return rlx_f32(p, i);
    case RLX_DT_F16: return rlx_h2f(uint(rlx_u16(p, i)));
    case RLX_DT_BF16: return rlx_bf2f(uint(rlx_u16(p, i)));
    case RLX_DT_F64: return float(rlx_f64(p, i));
    default: return float(rlx_ld_d(p, dt, i));
    }
}

/* Store an integer into element i of any dtype: sat != 0 saturates (cast rules), 0 wraps (arithmetic).
   The CPU's rlx__store_i64. */
void rlx_st_from_i(uint64_t p, int dt, int64_t i, int64_t v, int sat) {
    if (sat != 0 && dt >= RLX_DT_I8 && dt <= RLX_DT_U32) {
        int64_t lo, hi;
        rlx_int_range(dt, lo, hi);
        v = rlx_sat_i64(v, lo, hi);
    }
    switch (dt) {
    case RLX_DT_F32: rlx_f32(p, i) = float(v); break;
    case RLX_DT_F64: rlx_f64(p, i) = double(v); break;
    case RLX_DT_F16: rlx_u16(p, i) = uint16_t(rlx_d2h(double(v))); break;
    case RLX_DT_BF16: rlx_u16(p, i) = uint16_t(rlx_d2bf(double(v))); break;
    case RLX_DT_I8: rlx_u8(p, i) = uint8_t(uint(uint64_t(v))); break;
    case RLX_DT_I16: rlx_u16(p, i) = uint16_t(uint(uint64_t(v))); break;
    case RLX_DT_I32: rlx_u32(p, i) = uint(uint64_t(v)); break;
    case RLX_DT_I64: rlx_i64(p, i) = v; break;
    case RLX_DT_U8: rlx_u8(p, i) = uint8_t(uint(uint64_t(v))); break;
    case RLX_DT_U32: rlx_u32(p, i) = uint(uint64_t(v)); break;
    case RLX_DT_BOOL: rlx_u8(p, i) = uint8_t(v != 0L ? 1u : 0u); break;
    default: break;
    }
}
/* Store a double with the cast rules. The CPU's rlx__store_f64. */
void rlx_st_from_d(uint64_t p, int dt, int64_t i, double v) {
    switch (dt) {
    case RLX_DT_F32: rlx_f32(p, i) = float(v); return;
    case RLX_DT_F16: rlx_u16(p, i) = uint16_t(rlx_d2h(v)); return;
    case RLX_DT_BF16: rlx_u16(p, i) = uint16_t(rlx_d2bf(v)); return;
    case RLX_DT_F64: rlx_f64(p, i) = v; return;
    case RLX_DT_BOOL: rlx_u8(p, i) = uint8_t(v != 0.0LF ? 1u : 0u); return;
    default: {
        int64_t lo, hi;
        rlx_int_range(dt, lo, hi);
        rlx_st_from_i(p, dt, i, rlx_f2i_sat_d(v, lo, hi), 0);
        return;
    }
    }
}
/* Store a float with the cast rules (equal to rlx_st_from_d(p, dt, i, double(v)), without double math for the
   float dtypes). */
void rlx_st_from_f(uint64_t p, int dt, int64_t i, float v) {
    switch (dt) {
    case RLX_DT_F32: rlx_f32(p, i) = v; return;
    case RLX_DT_F16: rlx_u16(p, i) = uint16_t(rlx_f2h(v)); return;
    case RLX_DT_BF16: rlx_u16(p, i) = uint16_t(rlx_f2bf(v)); return;
    case RLX_DT_F64: rlx_f64(p, i) = double(v); return;
    case RLX_DT_BOOL: rlx_u8(p, i) = uint8_t(v != 0.0 ? 1u : 0u); return;
    default: {
        int64_t lo, hi;
        rlx_int_range(dt, lo, hi);
        rlx_st_from_i(p, dt, i, rlx_f2i_sat_f(v, lo, hi), 0);
        return;
    }
    }
}

/* ---- element math (the CPU backend's rlx__unary_* / rlx__binary_*) --------------------------------------- */
/* Every transcendental function of math.glsl appears once here: the compilers inline each call site, and the
   functions are long, so the element math below reaches them all through this one switch instead of calling
   them from every case (that made the elementwise kernels half a megabyte of SPIR-V). The f32 functions of
   math.glsl are the f64 ones rounded once, so f32 callers round the result of this. fn: RLX_OP_EXP, _LOG, _SIN,
   _COS, _TAN, _ATAN, _TANH, _ERF or _POW (x^y); anything else returns x. */
double rlx_transc_d(int fn, double x, double y) {
    switch (fn) {
    case RLX_OP_EXP: return rlx_exp_d(x);
    case RLX_OP_LOG: return rlx_log_d(x);
    case RLX_OP_SIN: return rlx_sin_d(x);
    case RLX_OP_COS: return rlx_cos_d(x);
    case RLX_OP_TAN: return rlx_tan_d(x);
    case RLX_OP_ATAN: return rlx_atan_d(x);
    case RLX_OP_TANH: return rlx_tanh_d(x);
    case RLX_OP_ERF: return rlx_erf_d(x);
    case RLX_OP_POW: return rlx_pow_d(x, y);
    default: return x;
    }
}
/* the transcendental function a unary op needs (-1: none) and its argument */
int rlx_unary_fn(int op) {
    switch (op) {
    case RLX_OP_EXP: case RLX_OP_LOG: case RLX_OP_SIN: case RLX_OP_COS: case RLX_OP_TAN: case RLX_OP_ATAN:
    case RLX_OP_TANH: case RLX_OP_ERF: return op;
    case RLX_OP_SIGMOID: case RLX_OP_SILU: return RLX_OP_EXP;
    case RLX_OP_GELU: return RLX_OP_ERF;
    case RLX_OP_GELU_TANH: return RLX_OP_TANH;
    default: return -1;
    }
}
/* Round half to even, without the roundEven built-in: lavapipe (Mesa 22.3.6-1+deb12u2) returns -7 for
   roundEven(-7.5lf). x - floor(x) is exact; a half goes up when floor(x) is odd; a zero result keeps x's sign
   (roundEven(-0.3) = -0.0); NaN stays NaN and infinities stay (their difference is NaN). */
double rlx_round_even_d(double x) {
    double f = floor(x);
    precise const double d = x - f;
    if (d > 0.5LF || (d == 0.5LF && f - 2.0LF * floor(f * 0.5LF) != 0.0LF)) f += 1.0LF;
    return f == 0.0LF ? packDouble2x32(uvec2(0u, unpackDouble2x32(x).y & 0x80000000u)) : f;
}
/* A unary op (z unused) or an arithmetic binary op (x op z) on float values, in f32 semantics (f = true: the
   inputs are f32 values and every intermediate is rounded to f32, as the CPU's float code) or in f64. One
   function with one call of rlx_transc_d, so that a kernel that reaches all element math through one call of
   this (every float dtype, unary and binary ops alike) inlines the long math functions once. */
double rlx_elem_g(int op, double x, double z, bool f) {
    const bool bin = op >= RLX_OP_ADD && op <= RLX_OP_MIN;
    const int fn = bin ? (op == RLX_OP_POW ? RLX_OP_POW : -1) : rlx_unary_fn(op);
    const float xf = float(x), zf = float(z);
    double a = x, t = 0.0LF;
    if (op == RLX_OP_SIGMOID || op == RLX_OP_SILU) a = -x;
    else if (op == RLX_OP_GELU) a = f ? double(xf * 0.70710678) : x * 0.70710678118654752440LF;
    else if (op == RLX_OP_GELU_TANH)
        a = f ? double(0.79788456 * (xf + rlx_mul_rn(rlx_mul_rn(rlx_mul_rn(0.044715, xf), xf), xf)))
              : 0.79788456080286535588LF * (x + rlx_dmul_rn(rlx_dmul_rn(rlx_dmul_rn(0.044715LF, x), x), x));
    if (fn >= 0) {
        t = rlx_transc_d(fn, a, z);
        if (f) t = double(float(t));
    }
    const float tf = float(t);
    switch (op) {
    case RLX_OP_ADD: return f ? double(xf + zf) : x + z;
    case RLX_OP_SUB: return f ? double(xf - zf) : x - z;
    case RLX_OP_MUL: return f ? double(xf * zf) : x * z;
    case RLX_OP_DIV: return f ? double(rlx_div_rn(xf, zf)) : x / z;
    case RLX_OP_MAX: return (rlx_isnan(x) || rlx_isnan(z)) ? rlx_nan_d() : (x > z ? x : z);
    case RLX_OP_MIN: return (rlx_isnan(x) || rlx_isnan(z)) ? rlx_nan_d() : (x < z ? x : z);
    case RLX_OP_NEG: return -x;
    case RLX_OP_ABS: return abs(x);
    case RLX_OP_SQRT: return f ? double(sqrt(xf)) : sqrt(x);
    case RLX_OP_RSQRT: return f ? double(1.0 / sqrt(xf)) : 1.0LF / sqrt(x);
    case RLX_OP_SIGMOID: return f ? double(1.0 / (1.0 + tf)) : 1.0LF / (1.0LF + t);
    case RLX_OP_RELU: return x > 0.0LF ? x : (rlx_isnan(x) ? x : 0.0LF);
    case RLX_OP_GELU: case RLX_OP_GELU_TANH: return f ? double(0.5 * xf * (1.0 + tf)) : 0.5LF * x * (1.0LF + t);
    case RLX_OP_SILU: return f ? double(xf / (1.0 + tf)) : x * (1.0LF / (1.0LF + t));
    case RLX_OP_ROUND: return rlx_round_even_d(x);
    case RLX_OP_FLOOR: return floor(x);
    case RLX_OP_CEIL: return ceil(x);
    default: return fn >= 0 ? t : (bin ? 0.0LF : x);   /* the transcendental ops and pow; unknown ops */
    }
}
double rlx_unary_g(int op, double x, bool f) { return rlx_elem_g(op, x, 0.0LF, f); }
int64_t rlx_unary_i(int op, int64_t x) {
    switch (op) {
    case RLX_OP_NEG: return int64_t(0UL - uint64_t(x));
    case RLX_OP_ABS: return x < 0L ? int64_t(0UL - uint64_t(x)) : x;
    case RLX_OP_RELU: return x > 0L ? x : 0L;
    default: return x;
    }
}

/* arithmetic binary ops (add .. min); comparisons are rlx_compare_* */
double rlx_binary_g(int op, double a, double b, bool f) { return rlx_elem_g(op, a, b, f); }
int64_t rlx_ipow(int64_t a, int64_t b) {
    uint64_t r = 1UL, base = uint64_t(a);
    if (b < 0L) return 0L;
    while (b != 0L) {
        if ((b & 1L) != 0L) r *= base;
        base *= base;
        b >>= 1;
    }
    return int64_t(r);
}
int64_t rlx_binary_i(int op, int64_t a, int64_t b) {
    switch (op) {
    case RLX_OP_ADD: return int64_t(uint64_t(a) + uint64_t(b));
    case RLX_OP_SUB: return int64_t(uint64_t(a) - uint64_t(b));
    case RLX_OP_MUL: return int64_t(uint64_t(a) * uint64_t(b));
    case RLX_OP_DIV: return b == 0L ? 0L : (b == -1L ? int64_t(0UL - uint64_t(a)) : a / b);
    case RLX_OP_POW: return rlx_ipow(a, b);
    case RLX_OP_MAX: return a > b ? a : b;
    case RLX_OP_MIN: return a < b ? a : b;
    default: return 0L;
    }
}

/* comparisons (eq .. ge) as 0/1; a NaN compares unequal to everything */
#define RLX_COMPARE_BODY                                                                                         \
    switch (op) {                                                                                                \
    case RLX_OP_EQ: return a == b ? 1 : 0;                                                                       \
    case RLX_OP_NE: return a != b ? 1 : 0;                                                                       \
    case RLX_OP_LT: return a < b ? 1 : 0;                                                                        \
    case RLX_OP_LE: return a <= b ? 1 : 0;                                                                       \
    case RLX_OP_GT: return a > b ? 1 : 0;                                                                        \
    case RLX_OP_GE: return a >= b ? 1 : 0;                                                                       \
    default: return 0;                                                                                           \
    }
int rlx_compare_f(int op, float a, float b) { RLX_COMPARE_BODY }
int rlx_compare_d(int op, double a, double b) { RLX_COMPARE_BODY }
int rlx_compare_i(int op, int64_t a, int64_t b) { RLX_COMPARE_BODY }
#undef RLX_COMPARE_BODY
int rlx_compare(int op, float a, float b) { return rlx_compare_f(op, a, b); }
int rlx_compare(int op, double a, double b) { return rlx_compare_d(op, a, b); }
int rlx_compare(int op, int64_t a, int64_t b) { return rlx_compare_i(op, a, b); }
bool rlx_is_compare(int op) { return op >= RLX_OP_EQ && op <= RLX_OP_GE; }

/* linear epilogue activations (the CPU's rlx__act_f) */
/* The activation of a linear epilogue (rlx_activation) in f32 semantics, equal to rlx_elem_g (f32) of the matching
   op, but with only the three functions an activation needs, each called once (they are inlined per call). */
float rlx_act(int act, float x) {
    if (act != RLX_ACT_GELU && act != RLX_ACT_GELU_TANH && act != RLX_ACT_SILU)
        return act == RLX_ACT_RELU ? (x > 0.0 ? x : (rlx_isnan(x) ? x : 0.0)) : x;
    float t;
    if (act == RLX_ACT_GELU) t = float(rlx_erf_d(double(x * 0.70710678)));
    else if (act == RLX_ACT_GELU_TANH)
        t = float(rlx_tanh_d(double(0.79788456 * (x + rlx_mul_rn(rlx_mul_rn(rlx_mul_rn(0.044715, x), x), x)))));
    else t = float(rlx_exp_d(double(-x)));
    return act == RLX_ACT_SILU ? x / (1.0 + t) : 0.5 * x * (1.0 + t);
}

/* The activation part of the linear epilogue: act(v), then times act_gate(gate[r, c]) when gated; rlx_act is
   called from one place (a loop of one or two rounds that a compiler cannot unroll). */
float rlx_epilogue_act(float v, int64_t r, int64_t c, int64_t N) {
    RlxArgs a = rlx_pc.a;
    const int rounds = a.ia[7] != 0L ? 2 : 1;
    float res = v, g = 0.0;
    for (int k = 0; k < rounds; k++) {
        const float y = rlx_act(int(a.ia[k == 0 ? 5 : 8]), k == 0 ? v : rlx_f32(a.in_[3], r * N + c));
        if (k == 0) res = y;
        else g = y;
    }
    return rounds == 2 ? res * g : res;
}

/* The linear epilogue of the f32 matrix kernels (the CPU's order): v = act(acc + bias[c]), then
   v * act_gate(gate[r, c]) when gated. in: 2 bias, 3 gate; ia: 4 has bias, 5 act, 7 has gate, 8 gate act. */
float rlx_epilogue(float v, int64_t r, int64_t c, int64_t N) {
    RlxArgs a = rlx_pc.a;
    if (a.ia[4] != 0L) v += rlx_f32(a.in_[2], c);
    return rlx_epilogue_act(v, r, c, N);
}

/* ---- indexing --------------------------------------------------------------------------------------------- */
/* off[k] (k < nops <= 4) = element offset of input k for output element i: i is decomposed over a.dims
   (row-major, last dim fastest) and weighted with a.st[k]; off[k] = 0 for k >= nops. 32-bit division when the
   iteration space fits. */
void rlx_offsets(int nops, int64_t i, out int64_t off[4]) {
    RlxArgs a = rlx_pc.a;
    const int rank = a.rank;
    off[0] = 0L; off[1] = 0L; off[2] = 0L; off[3] = 0L;
    if (rank == 1) {
        for (int k = 0; k < nops; k++) off[k] = i * a.st[k][0];
        return;
    }
    if (a.n <= 0xFFFFFFFFL) {
        uint r = uint(i);
        for (int d = rank - 1; d >= 0; d--) {
            const uint dim = uint(a.dims[d]), q = r / dim, idx = r - q * dim;
            r = q;
            for (int k = 0; k < nops; k++) off[k] += int64_t(idx) * a.st[k][d];
        }
    } else {
        int64_t r = i;
        for (int d = rank - 1; d >= 0; d--) {
            const int64_t q = r / a.dims[d], idx = r - q * a.dims[d];
            r = q;
            for (int k = 0; k < nops; k++) off[k] += idx * a.st[k][d];
        }
    }
}

/* Batch offsets of matrix products: batch index z decomposed over a.dims (a.rank batch dims), weighted with
   a.st[0] (A) and a.st[1] (B), in elements (0 on broadcast batch dims). */
void rlx_mm_batch(int64_t z, out int64_t ao, out int64_t bo) {
    RlxArgs a = rlx_pc.a;
    ao = 0L;
    bo = 0L;
    for (int d = a.rank - 1; d >= 0; d--) {
        const int64_t q = z / a.dims[d], idx = z - q * a.dims[d];
        z = q;
        ao += idx * a.st[0][d];
        bo += idx * a.st[1][d];
    }
}

/* ---- block reductions ------------------------------------------------------------------------------------- */
/* Reduce v over the workgroup; every invocation gets the result. The combination order is the one of the
   CUDA rlx_block_reduce (a 32-lane shuffle tree per warp, then a 32-lane tree over the warp results padded
   with ident), computed as trees in shared memory: rlx_red holds one 64-bit word per invocation (value bits).
   Call from uniform control flow with all invocations; the workgroup size must be a multiple of 32 (at most
   1024). The call starts and ends with a barrier. op(a, b): sum a + b, max b > a ? b : a, min b < a ? b : a,
   prod a * b, or a | b. */
#define RLX_ROP_SUM 0
#define RLX_ROP_MAX 1
#define RLX_ROP_MIN 2
#define RLX_ROP_PROD 3
#define RLX_ROP_OR 4
#if defined(RLX_BLOCK_REDUCE) || defined(RLX_K_reduce_block) || defined(RLX_K_softmax) || defined(RLX_K_norm_rows) || \
    defined(RLX_K_add_norm) || defined(RLX_K_group_norm)
shared uint64_t rlx_red[gl_WorkGroupSize.x];

/* One definition per compute type T with bits <-> T conversions TOB / FROMB and combine function COMB. */
#define RLX_DEF_BLOCK_REDUCE(NAME, T, TOB, FROMB, COMB)                                                          \
    T NAME(T v, int rop, T ident) {                                                                              \
        const uint t = gl_LocalInvocationID.x, lane = t & 31u, nw = gl_WorkGroupSize.x >> 5;                     \
        barrier();                                                                                               \
        rlx_red[t] = TOB(v);                                                                                     \
        barrier();                                                                                               \
        for (uint o = 16u; o > 0u; o >>= 1) {                                                                    \
            if (lane < o) rlx_red[t] = TOB(COMB(rop, FROMB(rlx_red[t]), FROMB(rlx_red[t + o])));                 \
            barrier();                                                                                           \
        }                                                                                                        \
        T x = ident;                                                                                             \
        if (t < 32u && t < nw) x = FROMB(rlx_red[t * 32u]);                                                      \
        barrier();                                                                                               \
        if (t < 32u) rlx_red[t] = TOB(x);                                                                        \
        barrier();                                                                                               \
        for (uint o = 16u; o > 0u; o >>= 1) {                                                                    \
            if (t < o) rlx_red[t] = TOB(COMB(rop, FROMB(rlx_red[t]), FROMB(rlx_red[t + o])));                    \
            barrier();                                                                                           \
        }                                                                                                        \
        x = FROMB(rlx_red[0]);                                                                                   \
        barrier();                                                                                               \
        return x;                                                                                                \
    }

float rlx_red_comb_f(int rop, float a, float b) {
    switch (rop) {
    case RLX_ROP_MAX: return b > a ? b : a;
    case RLX_ROP_MIN: return b < a ? b : a;
    case RLX_ROP_PROD: return a * b;
    default: return a + b;
    }
}
double rlx_red_comb_d(int rop, double a, double b) {
    switch (rop) {
    case RLX_ROP_MAX: return b > a ? b : a;
    case RLX_ROP_MIN: return b < a ? b : a;
    case RLX_ROP_PROD: return a * b;
    default: return a + b;
    }
}
int64_t rlx_red_comb_i(int rop, int64_t a, int64_t b) {
    switch (rop) {
    case RLX_ROP_MAX: return b > a ? b : a;
    case RLX_ROP_MIN: return b < a ? b : a;
    case RLX_ROP_PROD: return int64_t(uint64_t(a) * uint64_t(b));
    case RLX_ROP_OR: return a | b;
    default: return int64_t(uint64_t(a) + uint64_t(b));
    }
}
uint64_t rlx_red_fbits(float v) { return uint64_t(floatBitsToUint(v)); }
float rlx_red_bitsf(uint64_t u) { return uintBitsToFloat(uint(u)); }
RLX_DEF_BLOCK_REDUCE(rlx_block_reduce_f, float, rlx_red_fbits, rlx_red_bitsf, rlx_red_comb_f)
RLX_DEF_BLOCK_REDUCE(rlx_block_reduce_d, double, doubleBitsToUint64, uint64BitsToDouble, rlx_red_comb_d)
RLX_DEF_BLOCK_REDUCE(rlx_block_reduce_i, int64_t, uint64_t, int64_t, rlx_red_comb_i)
#undef RLX_DEF_BLOCK_REDUCE
#endif /* block reductions */

/* ---- random numbers (the CPU's rlx_uniform) --------------------------------------------------------------- */
uint64_t rlx_splitmix64(uint64_t x) {
    uint64_t z = x + 0x9E3779B97F4A7C15UL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
    return z ^ (z >> 31);
}
float rlx_uniform(uint64_t seed, int64_t counter, int64_t row) {
    const uint64_t h = rlx_splitmix64(seed ^ rlx_splitmix64(uint64_t(counter) ^ rlx_splitmix64(uint64_t(row))));
    return float(uint(h >> 40)) * (1.0 / 16777216.0);
}

#endif /* RLX_COMMON_GLSL */
