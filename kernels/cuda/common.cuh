/* common.cuh - shared definitions of the CUDA/HIP kernels of rlx.h.

   Written in the subset of CUDA C++ that HIP's hipRTC also compiles: no CUDA headers, no CUDA-only types.
   Half and bfloat16 values are stored as 16-bit integers and converted here by bit manipulation with the
   CPU backend's rules (round to nearest even, overflow to inf, NaN stays a quiet NaN).

   Contents
     rlx_kargs           the one kernel argument (mirrored by rlx__kargs in rlx.h; a test checks the layout)
     RLX_DT_* / RLX_OP_* dtype and op codes (the values of rlx_dtype / rlx_op)
     conversions         f16/bf16 <-> f32/f64, float -> integer (truncate, saturate, NaN -> 0)
     rlx_dt<DT>          per-dtype storage/compute types with load and (wrapping) store
     loads/stores        by a runtime dtype: rlx_ld_d / rlx_ld_i / rlx_ld_f, rlx_st_from_d/_f/_i (cast rules)
     element math        unary / binary / compare functions with the CPU backend's semantics
     indexing            rlx_offsets: input offsets of an output element over the collapsed iteration shape
     reductions          warp and block reductions (32-lane groups; on wave64 hardware the shuffles use width 32)
*/
#ifndef RLX_COMMON_CUH
#define RLX_COMMON_CUH

typedef long long rlx_i64;
typedef unsigned long long rlx_u64;

/* The launch ABI (kernels/cuda/README.md). Plain fields only: the C host mirror must match it byte for byte. */
typedef struct rlx_kargs {
    unsigned long long out;        /* device address of the output                                      */
    unsigned long long in[8];      /* device addresses of the inputs (0 = absent)                        */
    long long n;                   /* element count of the output                                        */
    int op;                        /* rlx_op of the node                                                 */
    int dt_out;                    /* rlx_dtype of the output                                            */
    int dt_in[8];                  /* rlx_dtype of each input                                            */
    int rank;                      /* iteration rank, >= 1                                               */
    int pad_;                      /* explicit padding: dims starts 8-byte aligned                       */
    long long dims[8];             /* iteration shape (size-1 dims collapsed away)                       */
    long long st[4][8];            /* element strides of inputs 0..3 over dims (0 on broadcast dims)     */
    long long ia[24];              /* integer attributes (meaning per kernel)                            */
    double fa[4];                  /* float attributes                                                   */
} rlx_kargs;

/* ---- codes (values of rlx_dtype and rlx_op in rlx.h) ----------------------------------------------------- */
enum {
    RLX_DT_F32 = 1, RLX_DT_F16 = 2, RLX_DT_BF16 = 3, RLX_DT_F64 = 4, RLX_DT_I8 = 5, RLX_DT_I16 = 6,
    RLX_DT_I32 = 7, RLX_DT_I64 = 8, RLX_DT_U8 = 9, RLX_DT_U32 = 10, RLX_DT_BOOL = 11
};
enum {
    RLX_OP_NEG = 4, RLX_OP_ABS, RLX_OP_EXP, RLX_OP_LOG, RLX_OP_SQRT, RLX_OP_RSQRT, RLX_OP_SIN, RLX_OP_COS,
    RLX_OP_TAN, RLX_OP_ATAN, RLX_OP_TANH, RLX_OP_SIGMOID, RLX_OP_RELU, RLX_OP_GELU, RLX_OP_GELU_TANH,
    RLX_OP_SILU, RLX_OP_ERF, RLX_OP_ROUND, RLX_OP_FLOOR, RLX_OP_CEIL,
    RLX_OP_ADD, RLX_OP_SUB, RLX_OP_MUL, RLX_OP_DIV, RLX_OP_POW, RLX_OP_MAX, RLX_OP_MIN,
    RLX_OP_EQ, RLX_OP_NE, RLX_OP_LT, RLX_OP_LE, RLX_OP_GT, RLX_OP_GE,
    RLX_OP_SUM = 40, RLX_OP_MEAN, RLX_OP_REDUCE_MAX, RLX_OP_REDUCE_MIN, RLX_OP_PROD,
    RLX_OP_ARGMAX, RLX_OP_ARGMIN, RLX_OP_SOFTMAX, RLX_OP_LOG_SOFTMAX, RLX_OP_LAYERNORM, RLX_OP_RMSNORM,
    RLX_OP_SWIGLU = 70, RLX_OP_GEGLU = 71
};
/* rlx_activation (linear epilogues) */
enum { RLX_ACT_NONE = 0, RLX_ACT_RELU, RLX_ACT_GELU, RLX_ACT_GELU_TANH, RLX_ACT_SILU };

/* ---- portability ------------------------------------------------------------------------------------------ */
#if defined(__HIPCC_RTC__) || defined(__HIP_PLATFORM_AMD__) || defined(__HIP_DEVICE_COMPILE__)
#  define RLX_HIP 1
#endif
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#  define RLX_DEVICE_PASS 1
#endif

#define RLX_HD __host__ __device__ __forceinline__
#define RLX_D __device__ __forceinline__
/* for the heavy element math: one copy per module instead of one per dtype instantiation */
#define RLX_HD_CALL __host__ __device__ __noinline__

/* 32-lane shuffles (a wave64 GPU runs them as two independent 32-lane halves). */
#if defined(RLX_HIP)
#  define RLX_SHFL_XOR(v, o) __shfl_xor((v), (o), 32)
#  define RLX_SHFL(v, l) __shfl((v), (l), 32)
#else
#  define RLX_SHFL_XOR(v, o) __shfl_xor_sync(0xffffffffu, (v), (o), 32)
#  define RLX_SHFL(v, l) __shfl_sync(0xffffffffu, (v), (l), 32)
#endif

/* grid-stride loop over [0, n) */
#define RLX_GRID_LOOP(i, n)                                                                                      \
    for (rlx_i64 i = (rlx_i64)blockIdx.x * blockDim.x + threadIdx.x; i < (rlx_i64)(n);                         \
         i += (rlx_i64)blockDim.x * gridDim.x)

/* ---- bit casts -------------------------------------------------------------------------------------------- */
RLX_HD unsigned rlx_f2u(float f) {
#if defined(RLX_DEVICE_PASS)
    return __float_as_uint(f);
#else
    union { float f; unsigned u; } c; c.f = f; return c.u;
#endif
}
RLX_HD float rlx_u2f(unsigned u) {
#if defined(RLX_DEVICE_PASS)
    return __uint_as_float(u);
#else
    union { float f; unsigned u; } c; c.u = u; return c.f;
#endif
}
RLX_HD rlx_u64 rlx_d2u(double d) {
#if defined(RLX_DEVICE_PASS)
    return (rlx_u64)__double_as_longlong(d);
#else
    union { double d; rlx_u64 u; } c; c.d = d; return c.u;
#endif
}
RLX_HD double rlx_u2d(rlx_u64 u) {
#if defined(RLX_DEVICE_PASS)
    return __longlong_as_double((long long)u);
#else
    union { double d; rlx_u64 u; } c; c.u = u; return c.d;
#endif
}
RLX_HD int rlx_clz32(unsigned x) { /* x != 0 */
#if defined(RLX_DEVICE_PASS)
    return __clz((int)x);
#else
    return __builtin_clz(x);
#endif
}

RLX_HD float rlx_inf_f(void) { return rlx_u2f(0x7F800000u); }
RLX_HD float rlx_nan_f(void) { return rlx_u2f(0x7FC00000u); }
RLX_HD double rlx_inf_d(void) { return rlx_u2d(0x7FF0000000000000ull); }
RLX_HD double rlx_nan_d(void) { return rlx_u2d(0x7FF8000000000000ull); }

/* Multiplications that must not be contracted into a fused multiply-add (the CPU rounds the product). */
RLX_HD float rlx_mul_rn(float a, float b) {
#if defined(RLX_DEVICE_PASS)
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
RLX_HD double rlx_dmul_rn(double a, double b) {
#if defined(RLX_DEVICE_PASS)
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

/* ---- small floats ----------------------------------------------------------------------------------------- */
/* Round a double (given as bits) to a small float with MB mantissa and EB exponent bits (f16: 10/5, bf16:
   7/8): round to nearest even, overflow to inf, NaN -> quiet NaN. The CPU backend's rlx__round_small_float. */
template <int MB, int EB>
RLX_HD unsigned short rlx_round_small_d(double d) {
    const rlx_u64 u = rlx_d2u(d);
    const unsigned sign = (unsigned)(u >> 63) << (MB + EB);
    const int e = (int)((u >> 52) & 0x7FF);
    const rlx_u64 m = u & 0xFFFFFFFFFFFFFull;
    const int bias = (1 << (EB - 1)) - 1, emax = (1 << EB) - 1;
    int ue, shift;
    rlx_u64 full, keep, rem, half;
    if (e == 0x7FF) return (unsigned short)(sign | ((unsigned)emax << MB) | (m ? (1u << (MB - 1)) : 0u));
    if (e == 0) return (unsigned short)sign;
    ue = e - 1023;
    full = m | (1ull << 52);
    if (ue + bias >= 1) {
        shift = 52 - MB;
    } else {
        shift = 52 - MB + (1 - bias - ue);
        if (shift > 62) return (unsigned short)sign;
    }
    keep = full >> shift;
    rem = full & ((1ull << shift) - 1);
    half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (keep & 1))) keep++;
    if (ue + bias >= 1) {
        int te = ue + bias;
        if (keep >> (MB + 1)) { keep >>= 1; te++; }
        if (te >= emax) return (unsigned short)(sign | ((unsigned)emax << MB));
        return (unsigned short)(sign | ((unsigned)te << MB) | (unsigned)(keep & ((1u << MB) - 1)));
    }
    return (unsigned short)(sign | (unsigned)keep);
}

/* The same rounding from a float, in 32-bit integer arithmetic (equal to rlx_round_small_d((double)f)). */
template <int MB, int EB>
RLX_HD unsigned short rlx_round_small_f(float f) {
    const unsigned u = rlx_f2u(f);
    const unsigned sign = (u >> 31) << (MB + EB);
    const int e = (int)((u >> 23) & 0xFF);
    const unsigned m = u & 0x7FFFFFu;
    const int bias = (1 << (EB - 1)) - 1, emax = (1 << EB) - 1;
    int ue, shift;
    unsigned full, keep, rem, half;
    if (e == 0xFF) return (unsigned short)(sign | ((unsigned)emax << MB) | (m ? (1u << (MB - 1)) : 0u));
    if (e == 0) {                           /* zero or a float subnormal: normalise to a 24-bit significand */
        int lz;
        if (m == 0) return (unsigned short)sign;
        lz = rlx_clz32(m) - 8;
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
        if (shift > 31) return (unsigned short)sign;
    }
    keep = full >> shift;
    rem = full & ((1u << shift) - 1u);
    half = 1u << (shift - 1);
    if (rem > half || (rem == half && (keep & 1u))) keep++;
    if (ue + bias >= 1) {
        int te = ue + bias;
        if (keep >> (MB + 1)) { keep >>= 1; te++; }
        if (te >= emax) return (unsigned short)(sign | ((unsigned)emax << MB));
        return (unsigned short)(sign | ((unsigned)te << MB) | (keep & ((1u << MB) - 1u)));
    }
    return (unsigned short)(sign | keep);
}

RLX_HD unsigned short rlx_f2h(float f) { return rlx_round_small_f<10, 5>(f); }
RLX_HD unsigned short rlx_f2bf(float f) { return rlx_round_small_f<7, 8>(f); }
RLX_HD unsigned short rlx_d2h(double d) { return rlx_round_small_d<10, 5>(d); }
RLX_HD unsigned short rlx_d2bf(double d) { return rlx_round_small_d<7, 8>(d); }

/* f16 bits -> f32 (exact) */
RLX_HD float rlx_h2f(unsigned short h) {
    const unsigned s = (unsigned)(h & 0x8000u) << 16, e = (unsigned)(h >> 10) & 0x1Fu, m = (unsigned)h & 0x3FFu;
    if (e == 0) {
        const float v = (float)m * (1.0f / 16777216.0f); /* m * 2^-24, exact */
        return s ? -v : v;
    }
    if (e == 31) return rlx_u2f(s | 0x7F800000u | (m << 13));
    return rlx_u2f(s | ((e + 112u) << 23) | (m << 13));
}
/* bf16 bits -> f32 (exact) */
RLX_HD float rlx_bf2f(unsigned short h) { return rlx_u2f((unsigned)h << 16); }

/* ---- float -> integer (cast rules) ------------------------------------------------------------------------ */
/* Integer range of a dtype (bool: 0..1; i64 and the float dtypes: the int64 range). */
RLX_HD void rlx_int_range(int dt, rlx_i64* lo, rlx_i64* hi) {
    switch (dt) {
    case RLX_DT_I8: *lo = -128; *hi = 127; break;
    case RLX_DT_I16: *lo = -32768; *hi = 32767; break;
    case RLX_DT_I32: *lo = -2147483647LL - 1; *hi = 2147483647LL; break;
    case RLX_DT_U8: *lo = 0; *hi = 255; break;
    case RLX_DT_U32: *lo = 0; *hi = 4294967295LL; break;
    case RLX_DT_BOOL: *lo = 0; *hi = 1; break;
    default: *lo = -9223372036854775807LL - 1; *hi = 9223372036854775807LL; break;
    }
}
RLX_HD float rlx_trunc(float x) { return truncf(x); }
RLX_HD double rlx_trunc(double x) { return trunc(x); }
/* Truncate toward zero, saturate to [lo, hi], NaN -> 0. F is float or double; (F)hi rounds up to a power of
   two for the wide ranges, so `>=` catches every value above hi. */
template <class F>
RLX_HD rlx_i64 rlx_f2i_sat(F d, rlx_i64 lo, rlx_i64 hi) {
    if (d != d) return 0;
    d = rlx_trunc(d);
    if (d <= (F)lo) return lo;
    if (d >= (F)hi) return hi;
    return (rlx_i64)d;
}
RLX_HD rlx_i64 rlx_sat_i64(rlx_i64 v, rlx_i64 lo, rlx_i64 hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* ---- typed access: rlx_dt<DT> ----------------------------------------------------------------------------- */
/* S: storage type; C: compute type (float for f32/f16/bf16, double for f64, int64 for integers and bool).
   ld converts to C exactly; st converts from C: floats round to nearest even, integers wrap (arithmetic). */
template <int DT> struct rlx_dt;
template <> struct rlx_dt<RLX_DT_F32> {
    typedef float S; typedef float C;
    static RLX_HD C ld(const void* p, rlx_i64 i) { return ((const float*)p)[i]; }
    static RLX_HD void st(void* p, rlx_i64 i, C v) { ((float*)p)[i] = v; }
};
template <> struct rlx_dt<RLX_DT_F16> {
    typedef unsigned short S; typedef float C;
    static RLX_HD C ld(const void* p, rlx_i64 i) { return rlx_h2f(((const unsigned short*)p)[i]); }
    static RLX_HD void st(void* p, rlx_i64 i, C v) { ((unsigned short*)p)[i] = rlx_f2h(v); }
};
template <> struct rlx_dt<RLX_DT_BF16> {
    typedef unsigned short S; typedef float C;
    static RLX_HD C ld(const void* p, rlx_i64 i) { return rlx_bf2f(((const unsigned short*)p)[i]); }
    static RLX_HD void st(void* p, rlx_i64 i, C v) { ((unsigned short*)p)[i] = rlx_f2bf(v); }
};
template <> struct rlx_dt<RLX_DT_F64> {
    typedef double S; typedef double C;
    static RLX_HD C ld(const void* p, rlx_i64 i) { return ((const double*)p)[i]; }
    static RLX_HD void st(void* p, rlx_i64 i, C v) { ((double*)p)[i] = v; }
};
#define RLX_INT_DT(CODE, STYPE)                                                                                  \
    template <> struct rlx_dt<CODE> {                                                                            \
        typedef STYPE S; typedef rlx_i64 C;                                                                      \
        static RLX_HD C ld(const void* p, rlx_i64 i) { return (rlx_i64)((const STYPE*)p)[i]; }                  \
        static RLX_HD void st(void* p, rlx_i64 i, C v) { ((STYPE*)p)[i] = (STYPE)(rlx_u64)v; }                  \
    };
RLX_INT_DT(RLX_DT_I8, signed char)
RLX_INT_DT(RLX_DT_I16, short)
RLX_INT_DT(RLX_DT_I32, int)
RLX_INT_DT(RLX_DT_I64, long long)
RLX_INT_DT(RLX_DT_U8, unsigned char)
RLX_INT_DT(RLX_DT_U32, unsigned int)
#undef RLX_INT_DT
template <> struct rlx_dt<RLX_DT_BOOL> {
    typedef unsigned char S; typedef rlx_i64 C;
    static RLX_HD C ld(const void* p, rlx_i64 i) { return ((const unsigned char*)p)[i] ? 1 : 0; }
    static RLX_HD void st(void* p, rlx_i64 i, C v) { ((unsigned char*)p)[i] = (unsigned char)(v != 0); }
};

/* Dispatch a template function FN<DT>(args...) on a runtime dtype. */
#define RLX_CASE_DT(D, FN, ...) case D: FN<D>(__VA_ARGS__); break;
#define RLX_SWITCH_FLOAT(dt, FN, ...)                                                                             \
    switch (dt) {                                                                                                \
        RLX_CASE_DT(RLX_DT_F32, FN, __VA_ARGS__) RLX_CASE_DT(RLX_DT_F16, FN, __VA_ARGS__)                        \
        RLX_CASE_DT(RLX_DT_BF16, FN, __VA_ARGS__) RLX_CASE_DT(RLX_DT_F64, FN, __VA_ARGS__)                       \
        default: break;                                                                                          \
    }
#define RLX_SWITCH_INT(dt, FN, ...)                                                                               \
    switch (dt) {                                                                                                \
        RLX_CASE_DT(RLX_DT_I8, FN, __VA_ARGS__) RLX_CASE_DT(RLX_DT_I16, FN, __VA_ARGS__)                         \
        RLX_CASE_DT(RLX_DT_I32, FN, __VA_ARGS__) RLX_CASE_DT(RLX_DT_I64, FN, __VA_ARGS__)                        \
        RLX_CASE_DT(RLX_DT_U8, FN, __VA_ARGS__) RLX_CASE_DT(RLX_DT_U32, FN, __VA_ARGS__)                         \
        RLX_CASE_DT(RLX_DT_BOOL, FN, __VA_ARGS__)                                                                \
        default: break;                                                                                          \
    }
#define RLX_SWITCH_ALL(dt, FN, ...)                                                                               \
    switch (dt) {                                                                                                \
        RLX_CASE_DT(RLX_DT_F32, FN, __VA_ARGS__) RLX_CASE_DT(RLX_DT_F16, FN, __VA_ARGS__)                        \
        RLX_CASE_DT(RLX_DT_BF16, FN, __VA_ARGS__) RLX_CASE_DT(RLX_DT_F64, FN, __VA_ARGS__)                       \
        RLX_CASE_DT(RLX_DT_I8, FN, __VA_ARGS__) RLX_CASE_DT(RLX_DT_I16, FN, __VA_ARGS__)                         \
        RLX_CASE_DT(RLX_DT_I32, FN, __VA_ARGS__) RLX_CASE_DT(RLX_DT_I64, FN, __VA_ARGS__)                        \
        RLX_CASE_DT(RLX_DT_U8, FN, __VA_ARGS__) RLX_CASE_DT(RLX_DT_U32, FN, __VA_ARGS__)                         \
        RLX_CASE_DT(RLX_DT_BOOL, FN, __VA_ARGS__)                                                                \
        default: break;                                                                                          \
    }

/* ---- runtime-dtype loads and stores ----------------------------------------------------------------------- */
RLX_HD int rlx_is_float(int dt) { return dt >= RLX_DT_F32 && dt <= RLX_DT_F64; }
RLX_HD int rlx_dt_size(int dt) {
    switch (dt) {
    case RLX_DT_F32: case RLX_DT_I32: case RLX_DT_U32: return 4;
    case RLX_DT_F16: case RLX_DT_BF16: case RLX_DT_I16: return 2;
    case RLX_DT_F64: case RLX_DT_I64: return 8;
    default: return 1;
    }
}

/* Element i as double (integers converted; bool 0/1). The CPU's rlx__load_f64. */
RLX_HD double rlx_ld_d(const void* p, int dt, rlx_i64 i) {
    switch (dt) {
    case RLX_DT_F32: return (double)((const float*)p)[i];
    case RLX_DT_F16: return (double)rlx_h2f(((const unsigned short*)p)[i]);
    case RLX_DT_BF16: return (double)rlx_bf2f(((const unsigned short*)p)[i]);
    case RLX_DT_F64: return ((const double*)p)[i];
    case RLX_DT_I8: return (double)((const signed char*)p)[i];
    case RLX_DT_I16: return (double)((const short*)p)[i];
    case RLX_DT_I32: return (double)((const int*)p)[i];
    case RLX_DT_I64: return (double)((const long long*)p)[i];
    case RLX_DT_U8: return (double)((const unsigned char*)p)[i];
    case RLX_DT_U32: return (double)((const unsigned*)p)[i];
    case RLX_DT_BOOL: return ((const unsigned char*)p)[i] ? 1.0 : 0.0;
    default: return 0.0;
    }
}
/* Element i of an integer or bool tensor as int64 (u32 zero-extended). The CPU's rlx__load_i64. */
RLX_HD rlx_i64 rlx_ld_i(const void* p, int dt, rlx_i64 i) {
    switch (dt) {
    case RLX_DT_I8: return ((const signed char*)p)[i];
    case RLX_DT_I16: return ((const short*)p)[i];
    case RLX_DT_I32: return ((const int*)p)[i];
    case RLX_DT_I64: return ((const long long*)p)[i];
    case RLX_DT_U8: return ((const unsigned char*)p)[i];
    case RLX_DT_U32: return ((const unsigned*)p)[i];
    case RLX_DT_BOOL: return ((const unsigned char*)p)[i] ? 1 : 0;
    default: return rlx_f2i_sat<double>(rlx_ld_d(p, dt, i), -9223372036854775807LL - 1, 9223372036854775807LL);
    }
}
/* Element i of a float tensor as float (f64 rounded). */
RLX_HD float rlx_ld_f(const void* p, int dt, rlx_i64 i) {
    switch (dt) {
    case RLX_DT_F32: return ((const float*)p)[i];
    case RLX_DT_F16: return rlx_h2f(((const unsigned short*)p)[i]);
    case RLX_DT_BF16: return rlx_bf2f(((const unsigned short*)p)[i]);
    case RLX_DT_F64: return (float)((const double*)p)[i];
    default: return (float)rlx_ld_d(p, dt, i);
    }
}

/* Store an integer into element i of any dtype: sat != 0 saturates (cast rules), 0 wraps (arithmetic).
   The CPU's rlx__store_i64. */
RLX_HD void rlx_st_from_i(void* p, int dt, rlx_i64 i, rlx_i64 v, int sat) {
    if (sat && dt >= RLX_DT_I8 && dt <= RLX_DT_U32) {
        rlx_i64 lo, hi;
        rlx_int_range(dt, &lo, &hi);
        v = rlx_sat_i64(v, lo, hi);
    }
    switch (dt) {
    case RLX_DT_F32: ((float*)p)[i] = (float)v; break;
    case RLX_DT_F64: ((double*)p)[i] = (double)v; break;
    case RLX_DT_F16: ((unsigned short*)p)[i] = rlx_d2h((double)v); break;
    case RLX_DT_BF16: ((unsigned short*)p)[i] = rlx_d2bf((double)v); break;
    case RLX_DT_I8: ((signed char*)p)[i] = (signed char)(rlx_u64)v; break;
    case RLX_DT_I16: ((short*)p)[i] = (short)(rlx_u64)v; break;
    case RLX_DT_I32: ((int*)p)[i] = (int)(rlx_u64)v; break;
    case RLX_DT_I64: ((long long*)p)[i] = v; break;
    case RLX_DT_U8: ((unsigned char*)p)[i] = (unsigned char)(rlx_u64)v; break;
    case RLX_DT_U32: ((unsigned*)p)[i] = (unsigned)(rlx_u64)v; break;
    case RLX_DT_BOOL: ((unsigned char*)p)[i] = (unsigned char)(v != 0); break;
    default: break;
    }
}
/* Store a double with the cast rules. The CPU's rlx__store_f64. */
RLX_HD void rlx_st_from_d(void* p, int dt, rlx_i64 i, double v) {
    switch (dt) {
    case RLX_DT_F32: ((float*)p)[i] = (float)v; return;
    case RLX_DT_F16: ((unsigned short*)p)[i] = rlx_d2h(v); return;
    case RLX_DT_BF16: ((unsigned short*)p)[i] = rlx_d2bf(v); return;
    case RLX_DT_F64: ((double*)p)[i] = v; return;
    case RLX_DT_BOOL: ((unsigned char*)p)[i] = (unsigned char)(v != 0.0); return;
    default: {
        rlx_i64 lo, hi;
        rlx_int_range(dt, &lo, &hi);
        rlx_st_from_i(p, dt, i, rlx_f2i_sat<double>(v, lo, hi), 0);
        return;
    }
    }
}
/* Store a float with the cast rules (equal to rlx_st_from_d(p, dt, i, (double)v), without double math for
   the float dtypes). */
RLX_HD void rlx_st_from_f(void* p, int dt, rlx_i64 i, float v) {
    switch (dt) {
    case RLX_DT_F32: ((float*)p)[i] = v; return;
    case RLX_DT_F16: ((unsigned short*)p)[i] = rlx_f2h(v); return;
    case RLX_DT_BF16: ((unsigned short*)p)[i] = rlx_f2bf(v); return;
    case RLX_DT_F64: ((double*)p)[i] = (double)v; return;
    case RLX_DT_BOOL: ((unsigned char*)p)[i] = (unsigned char)(v != 0.0f); return;
    default: {
        rlx_i64 lo, hi;
        rlx_int_range(dt, &lo, &hi);
        rlx_st_from_i(p, dt, i, rlx_f2i_sat<float>(v, lo, hi), 0);
        return;
    }
    }
}

/* ---- element math (the CPU backend's rlx__unary_* / rlx__binary_*) --------------------------------------- */
RLX_HD_CALL float rlx_unary(int op, float x) {
    switch (op) {
    case RLX_OP_NEG: return -x;
    case RLX_OP_ABS: return fabsf(x);
    case RLX_OP_EXP: return expf(x);
    case RLX_OP_LOG: return logf(x);
    case RLX_OP_SQRT: return sqrtf(x);
    case RLX_OP_RSQRT: return 1.0f / sqrtf(x);
    case RLX_OP_SIN: return sinf(x);
    case RLX_OP_COS: return cosf(x);
    case RLX_OP_TAN: return tanf(x);
    case RLX_OP_ATAN: return atanf(x);
    case RLX_OP_TANH: return tanhf(x);
    case RLX_OP_SIGMOID: return 1.0f / (1.0f + expf(-x));
    case RLX_OP_RELU: return x > 0.0f ? x : (x != x ? x : 0.0f);
    case RLX_OP_GELU: return 0.5f * x * (1.0f + erff(x * 0.70710678f));
    case RLX_OP_GELU_TANH:
        return 0.5f * x * (1.0f + tanhf(0.79788456f * (x + rlx_mul_rn(rlx_mul_rn(rlx_mul_rn(0.044715f, x), x), x))));
    case RLX_OP_SILU: return x / (1.0f + expf(-x));
    case RLX_OP_ERF: return erff(x);
    case RLX_OP_ROUND: return rintf(x);
    case RLX_OP_FLOOR: return floorf(x);
    case RLX_OP_CEIL: return ceilf(x);
    default: return x;
    }
}
RLX_HD_CALL double rlx_unary(int op, double x) {
    switch (op) {
    case RLX_OP_NEG: return -x;
    case RLX_OP_ABS: return fabs(x);
    case RLX_OP_EXP: return exp(x);
    case RLX_OP_LOG: return log(x);
    case RLX_OP_SQRT: return sqrt(x);
    case RLX_OP_RSQRT: return 1.0 / sqrt(x);
    case RLX_OP_SIN: return sin(x);
    case RLX_OP_COS: return cos(x);
    case RLX_OP_TAN: return tan(x);
    case RLX_OP_ATAN: return atan(x);
    case RLX_OP_TANH: return tanh(x);
    case RLX_OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case RLX_OP_RELU: return x > 0.0 ? x : (x != x ? x : 0.0);
    case RLX_OP_GELU: return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
    case RLX_OP_GELU_TANH:
        return 0.5 * x * (1.0 + tanh(0.79788456080286535588 * (x + rlx_dmul_rn(rlx_dmul_rn(rlx_dmul_rn(0.044715, x), x), x))));
    case RLX_OP_SILU: return x * (1.0 / (1.0 + exp(-x)));
    case RLX_OP_ERF: return erf(x);
    case RLX_OP_ROUND: return rint(x);
    case RLX_OP_FLOOR: return floor(x);
    case RLX_OP_CEIL: return ceil(x);
    default: return x;
    }
}
RLX_HD rlx_i64 rlx_unary(int op, rlx_i64 x) {
    switch (op) {
    case RLX_OP_NEG: return (rlx_i64)(0ull - (rlx_u64)x);
    case RLX_OP_ABS: return x < 0 ? (rlx_i64)(0ull - (rlx_u64)x) : x;
    case RLX_OP_RELU: return x > 0 ? x : 0;
    default: return x;
    }
}

/* arithmetic binary ops (add .. min); comparisons are rlx_compare */
RLX_HD_CALL float rlx_binary(int op, float a, float b) {
    switch (op) {
    case RLX_OP_ADD: return a + b;
    case RLX_OP_SUB: return a - b;
    case RLX_OP_MUL: return a * b;
    case RLX_OP_DIV: return a / b;
    case RLX_OP_POW: return powf(a, b);
    case RLX_OP_MAX: return (a != a || b != b) ? rlx_nan_f() : (a > b ? a : b);
    case RLX_OP_MIN: return (a != a || b != b) ? rlx_nan_f() : (a < b ? a : b);
    default: return 0.0f;
    }
}
RLX_HD_CALL double rlx_binary(int op, double a, double b) {
    switch (op) {
    case RLX_OP_ADD: return a + b;
    case RLX_OP_SUB: return a - b;
    case RLX_OP_MUL: return a * b;
    case RLX_OP_DIV: return a / b;
    case RLX_OP_POW: return pow(a, b);
    case RLX_OP_MAX: return (a != a || b != b) ? rlx_nan_d() : (a > b ? a : b);
    case RLX_OP_MIN: return (a != a || b != b) ? rlx_nan_d() : (a < b ? a : b);
    default: return 0.0;
    }
}
RLX_HD rlx_i64 rlx_ipow(rlx_i64 a, rlx_i64 b) {
    rlx_u64 r = 1, base = (rlx_u64)a;
    if (b < 0) return 0;
    while (b) { if (b & 1) r *= base; base *= base; b >>= 1; }
    return (rlx_i64)r;
}
RLX_HD_CALL rlx_i64 rlx_binary(int op, rlx_i64 a, rlx_i64 b) {
    switch (op) {
    case RLX_OP_ADD: return (rlx_i64)((rlx_u64)a + (rlx_u64)b);
    case RLX_OP_SUB: return (rlx_i64)((rlx_u64)a - (rlx_u64)b);
    case RLX_OP_MUL: return (rlx_i64)((rlx_u64)a * (rlx_u64)b);
    case RLX_OP_DIV: return b == 0 ? 0 : (b == -1 ? (rlx_i64)(0ull - (rlx_u64)a) : a / b);
    case RLX_OP_POW: return rlx_ipow(a, b);
    case RLX_OP_MAX: return a > b ? a : b;
    case RLX_OP_MIN: return a < b ? a : b;
    default: return 0;
    }
}
template <class C>
RLX_HD int rlx_compare(int op, C a, C b) {
    switch (op) {
    case RLX_OP_EQ: return a == b;
    case RLX_OP_NE: return a != b;
    case RLX_OP_LT: return a < b;
    case RLX_OP_LE: return a <= b;
    case RLX_OP_GT: return a > b;
    case RLX_OP_GE: return a >= b;
    default: return 0;
    }
}
RLX_HD int rlx_is_compare(int op) { return op >= RLX_OP_EQ && op <= RLX_OP_GE; }

/* linear epilogue activations (the CPU's rlx__act_f) */
RLX_HD float rlx_act(int act, float x) {
    switch (act) {
    case RLX_ACT_RELU: return rlx_unary(RLX_OP_RELU, x);
    case RLX_ACT_GELU: return rlx_unary(RLX_OP_GELU, x);
    case RLX_ACT_GELU_TANH: return rlx_unary(RLX_OP_GELU_TANH, x);
    case RLX_ACT_SILU: return rlx_unary(RLX_OP_SILU, x);
    default: return x;
    }
}

/* The linear epilogue of the f32 matrix kernels (the CPU's order): v = act(acc + bias[c]), then
   v · act_gate(gate[r, c]) when gated. in: 2 bias, 3 gate; ia: 4 has bias, 5 act, 7 has gate, 8 gate act. */
RLX_HD float rlx_epilogue(const rlx_kargs& a, float v, rlx_i64 r, rlx_i64 c, rlx_i64 N) {
    if (a.ia[4]) v += ((const float*)a.in[2])[c];
    v = rlx_act((int)a.ia[5], v);
    if (a.ia[7]) v *= rlx_act((int)a.ia[8], ((const float*)a.in[3])[r * N + c]);
    return v;
}

/* ---- indexing --------------------------------------------------------------------------------------------- */
/* off[k] = element offset of input k for output element i: i is decomposed over a.dims (row-major, last dim
   fastest) and weighted with a.st[k]. 32-bit division when the iteration space fits. */
template <int NOPS>
RLX_D void rlx_offsets(const rlx_kargs& a, rlx_i64 i, rlx_i64* off) {
#pragma unroll
    for (int k = 0; k < NOPS; k++) off[k] = 0;
    if (a.rank == 1) {
#pragma unroll
        for (int k = 0; k < NOPS; k++) off[k] = i * a.st[k][0];
        return;
    }
    if (a.n <= 0xFFFFFFFFll) {
        unsigned r = (unsigned)i;
#pragma unroll
        for (int d = 7; d >= 0; d--) {
            if (d < a.rank) {
                const unsigned dim = (unsigned)a.dims[d], q = r / dim, idx = r - q * dim;
                r = q;
#pragma unroll
                for (int k = 0; k < NOPS; k++) off[k] += (rlx_i64)idx * a.st[k][d];
            }
        }
    } else {
        rlx_i64 r = i;
#pragma unroll
        for (int d = 7; d >= 0; d--) {
            if (d < a.rank) {
                const rlx_i64 q = r / a.dims[d], idx = r - q * a.dims[d];
                r = q;
#pragma unroll
                for (int k = 0; k < NOPS; k++) off[k] += idx * a.st[k][d];
            }
        }
    }
}

/* Batch offsets of matrix products: batch index z decomposed over a.dims (a.rank batch dims), weighted with
   a.st[0] (A) and a.st[1] (B), in elements (0 on broadcast batch dims). */
RLX_D void rlx_mm_batch(const rlx_kargs& a, rlx_i64 z, rlx_i64* ao, rlx_i64* bo) {
    *ao = 0;
    *bo = 0;
#pragma unroll
    for (int d = 7; d >= 0; d--) {
        if (d < a.rank) {
            const rlx_i64 q = z / a.dims[d], idx = z - q * a.dims[d];
            z = q;
            *ao += idx * a.st[0][d];
            *bo += idx * a.st[1][d];
        }
    }
}

/* ---- reductions ------------------------------------------------------------------------------------------- */
struct rlx_op_sum { template <class T> RLX_D T operator()(T a, T b) const { return a + b; } };
struct rlx_op_max { template <class T> RLX_D T operator()(T a, T b) const { return b > a ? b : a; } };
struct rlx_op_min { template <class T> RLX_D T operator()(T a, T b) const { return b < a ? b : a; } };
struct rlx_op_or { RLX_D int operator()(int a, int b) const { return a | b; } };

template <class T, class OP>
RLX_D T rlx_warp_reduce(T v, OP op) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = op(v, RLX_SHFL_XOR(v, o));
    return v;
}
/* Reduce v over the block (blockDim.x a multiple of 32, at most 1024); every thread gets the result. sh must
   hold 33 elements of shared memory; the call starts and ends with a barrier, so sh may be reused at once. */
template <class T, class OP>
RLX_D T rlx_block_reduce(T v, OP op, T ident, T* sh) {
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = rlx_warp_reduce(v, op);
    __syncthreads();
    if (lane == 0) sh[w] = v;
    __syncthreads();
    if (w == 0) {
        T x = lane < nw ? sh[lane] : ident;
        x = rlx_warp_reduce(x, op);
        if (lane == 0) sh[32] = x;
    }
    __syncthreads();
    return sh[32];
}

/* ---- random numbers (the CPU's rlx_uniform) --------------------------------------------------------------- */
RLX_HD rlx_u64 rlx_splitmix64(rlx_u64 x) {
    rlx_u64 z = x + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
RLX_HD float rlx_uniform(rlx_u64 seed, rlx_i64 counter, rlx_i64 row) {
    const rlx_u64 h = rlx_splitmix64(seed ^ rlx_splitmix64((rlx_u64)counter ^ rlx_splitmix64((rlx_u64)row)));
    return (float)(h >> 40) * (1.0f / 16777216.0f);
}

#endif /* RLX_COMMON_CUH */
