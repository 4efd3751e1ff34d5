/* math.glsl - elementary functions for the Vulkan kernels in double and single precision.

   GLSL has no double-precision exp/log/sin/cos/tan/atan/tanh/pow, no erf, and Vulkan allows its
   single-precision built-ins large errors (sin/cos: 2^-11 absolute). This file implements

     double rlx_exp_d(x)  rlx_log_d(x)  rlx_sin_d(x)  rlx_cos_d(x)  rlx_tan_d(x)  rlx_atan_d(x)
            rlx_tanh_d(x) rlx_erf_d(x)  rlx_pow_d(x, y)
     float  rlx_exp_f(x)  ... rlx_pow_f(x, y)   (the same names with _f)

   Accuracy (measured against glibc and an extended-precision reference by tests/test_vk_math.c):
   the double functions are within 1 ulp everywhere (most within 0.6 ulp) over the whole double range,
   including sin/cos/tan of huge arguments (exact Payne-Hanek reduction beyond 2^20). The float functions
   evaluate the double functions and round once: within 1 ulp of the exact value and almost always equal
   to the correctly rounded result. Special cases follow C99 Annex F (as glibc): NaN in -> NaN out,
   signed zeros, log(0) = -inf, log(x < 0) = NaN, exp overflow -> inf, underflow -> 0 or a subnormal,
   tanh(+-inf) = +-1, erf(+-inf) = +-1, atan(+-inf) = +-pi/2 and all special cases of pow.

   Requirements and portability:
   - Double arithmetic must be IEEE binary64 with correctly rounded +, -, * (Vulkan requires it) and
     round-to-nearest-even conversions. Subnormal doubles are produced and consumed as on a CPU; a device
     that flushes double denormals returns 0 where the result would be subnormal.
   - No fma is needed: exact products use Dekker's splitting, so results do not depend on whether a
     driver fuses fma. Every double temporary is `precise`: the compiler may neither contract nor
     reassociate the error-free transformations. With a correctly rounded division the results are
     bit-identical to the C build of this file (tests/test_vk_math.c); division is only ever used with
     a correction step, so a division that is off by an ulp changes results by at most an ulp.
   - Literals: GLSL reads an unsuffixed literal as float, and glslang does not paste `lf` onto a
     number, so every constant that is not exactly a float is written as its IEEE bit pattern,
     RLX_X(high word, low word), with the decimal value in a comment. Plain literals (0.5, 1.0, ...)
     are exact floats.
   - The file is also valid C99 given a small shim that defines RLX_MATH_C and the macros below
     (RLX_X, RLX_CVT, RLX_STRUCT, RLX_TABLE, RLX_TABLE_END), `precise` as nothing, `uint`, and the GLSL
     built-ins used here (doubleBitsToInt64, int64BitsToDouble, doubleBitsToUint64, uint64BitsToDouble,
     roundEven, trunc); tests/test_vk_math.c has one.
   GLSL needs GL_EXT_shader_explicit_arithmetic_types_int64 (common.glsl enables it) and shaderFloat64. */
#ifndef RLX_MATH_GLSL
#define RLX_MATH_GLSL

#ifndef RLX_MATH_C
#define RLX_X(hi, lo) packDouble2x32(uvec2(lo, hi)) /* the double with these two 32-bit halves */
#define RLX_CVT(T, x) T(x)                          /* conversion (a constructor in GLSL, a cast in C) */
#define RLX_STRUCT(name) struct name                /* struct declaration (a typedef in C) */
#define RLX_TABLE(T, name, n) const T name[n] = T[n](
#define RLX_TABLE_END );
#endif

/* =============================================================================================================
   Constants
   ============================================================================================================= */

#define RLX_M_INV_LN2        RLX_X(0x3FF71547u, 0x652B82FEu) /* 1/ln2 = 1.4426950408889634 */
#define RLX_M_LN2_HI         RLX_X(0x3FE62E42u, 0xFEFA3800u) /* ln2, first 42 bits = 0.69314718055989033 */
#define RLX_M_LN2_LO         RLX_X(0x3D2EF357u, 0x93C76730u) /* ln2 - LN2_HI = 5.4979230187083712e-14 */
#define RLX_M_TWO_OVER_PI    RLX_X(0x3FE45F30u, 0x6DC9C883u) /* 2/pi = 0.63661977236758138 */
#define RLX_M_PIO2_1         RLX_X(0x3FF921FBu, 0x54400000u) /* pi/2, bits 1-33 = 1.5707963267341256 */
#define RLX_M_PIO2_2         RLX_X(0x3DD0B461u, 0x1A600000u) /* pi/2, bits 34-66 = 6.077100506303966e-11 */
#define RLX_M_PIO2_3         RLX_X(0x3BA3198Au, 0x2E000000u) /* pi/2, bits 67-99 = 2.0222662487111665e-21 */
#define RLX_M_PIO2_4         RLX_X(0x397B839Au, 0x252049C1u) /* pi/2 - PIO2_1 - PIO2_2 - PIO2_3 = 8.4784276603688996e-32 */
#define RLX_M_PIO2_HI        RLX_X(0x3FF921FBu, 0x54442D18u) /* pi/2 = 1.5707963267948966 */
#define RLX_M_PIO2_LO        RLX_X(0x3C91A626u, 0x33145C07u) /* pi/2 - PIO2_HI = 6.123233995736766e-17 */
#define RLX_M_ATAN_HALF_HI   RLX_X(0x3FDDAC67u, 0x0561BB4Fu) /* atan(1/2) = 0.46364760900080609 */
#define RLX_M_ATAN_HALF_LO   RLX_X(0x3C7A2B7Fu, 0x222F65E2u) /* atan(1/2) - ATAN_HALF_HI = 2.2698777452961687e-17 */
#define RLX_M_ATAN_ONE_HI    RLX_X(0x3FE921FBu, 0x54442D18u) /* pi/4 = 0.78539816339744828 */
#define RLX_M_ATAN_ONE_LO    RLX_X(0x3C81A626u, 0x33145C07u) /* pi/4 - ATAN_ONE_HI = 3.061616997868383e-17 */
#define RLX_M_ATAN_3HALF_HI  RLX_X(0x3FEF730Bu, 0xD281F69Bu) /* atan(3/2) = 0.98279372324732905 */
#define RLX_M_ATAN_3HALF_LO  RLX_X(0x3C700788u, 0x7AF0CBBDu) /* atan(3/2) - ATAN_3HALF_HI = 1.3903311031230998e-17 */
#define RLX_M_ERF_EFX        RLX_X(0x3FC06EBAu, 0x8214DB69u) /* 2/sqrt(pi) - 1 = 0.12837916709551259 */
#define RLX_M_ERF_M0_HI      RLX_X(0x3FEB8F74u, 0x1EF54F83u) /* erf(1.046875) = 0.86126142546207551 */
#define RLX_M_ERF_M0_LO      RLX_X(0x3C8FF276u, 0x6BA0E81Au) /* erf(1.046875) - ERF_M0_HI = 5.5419418103688716e-17 */
#define RLX_M_SPLIT          RLX_X(0x41A00000u, 0x02000000u) /* 2^27 + 1 (Veltkamp splitting) = 134217729 */
#define RLX_M_2P52           4503599627370496.0 /* 2^52 */
#define RLX_M_2P53           9007199254740992.0 /* 2^53 */
#define RLX_M_LOG_OFF        0x3FE68000u /* high word of 0.703125, the start of the log table range */

#define RLX_M_INF RLX_X(0x7FF00000u, 0x00000000u)
#define RLX_M_NAN RLX_X(0x7FF80000u, 0x00000000u)
#define RLX_M_NZERO RLX_X(0x80000000u, 0x00000000u) /* -0.0 */

/* =============================================================================================================
   Helpers: bits, exact sums and products (double-double arithmetic)
   ============================================================================================================= */

/* A double-double value hi + lo with |lo| <= ulp(hi) / 2 (or an unnormalized exact pair). */
RLX_STRUCT(rlx_m_dd) { double hi; double lo; };

rlx_m_dd rlx_m_dd_make(double hi, double lo) {
    rlx_m_dd r;
    r.hi = hi;
    r.lo = lo;
    return r;
}

/* 2^k for -1022 <= k <= 1023 */
double rlx_m_pow2(int k) {
    return int64BitsToDouble(RLX_CVT(int64_t, k + 1023) << 52);
}

/* |x| (clears the sign bit; NaN stays NaN) */
double rlx_m_abs(double x) {
    return uint64BitsToDouble((doubleBitsToUint64(x) << 1) >> 1);
}

/* |x| with the sign of s */
double rlx_m_copysign(double x, double s) {
    uint64_t sign = (doubleBitsToUint64(s) >> 63) << 63;
    return uint64BitsToDouble(((doubleBitsToUint64(x) << 1) >> 1) | sign);
}

/* The high 32 bits of |x|: compares like |x| (0x7FF00000 and above: inf or NaN). */
uint rlx_m_ahi(double x) {
    return RLX_CVT(uint, doubleBitsToUint64(x) >> 32) & 0x7FFFFFFFu;
}

bool rlx_m_isnan(double x) {
    return ((doubleBitsToUint64(x) << 1) >> 1) > (RLX_CVT(uint64_t, 0x7FF00000u) << 32);
}

/* s + e = a + b exactly (Knuth's TwoSum) */
rlx_m_dd rlx_m_two_sum(double a, double b) {
    precise double s = a + b;
    precise double bb = s - a;
    precise double e = (a - (s - bb)) + (b - bb);
    return rlx_m_dd_make(s, e);
}

/* s + e = a + b exactly, provided a == 0 or exponent(a) >= exponent(b) (Dekker's Fast2Sum) */
rlx_m_dd rlx_m_fast_two_sum(double a, double b) {
    precise double s = a + b;
    precise double e = b - (s - a);
    return rlx_m_dd_make(s, e);
}

/* p + e = a * b exactly (Dekker's product with Veltkamp splitting), for |a|, |b| < 2^995 and no underflow
   in the partial products. */
rlx_m_dd rlx_m_two_prod(double a, double b) {
    precise double p = a * b;
    precise double ca = RLX_M_SPLIT * a;
    precise double ah = ca - (ca - a);
    precise double al = a - ah;
    precise double cb = RLX_M_SPLIT * b;
    precise double bh = cb - (cb - b);
    precise double bl = b - bh;
    precise double e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    return rlx_m_dd_make(p, e);
}

/* (ah + al) / (bh + bl) as a double-double; the quotient of the first division is corrected with the exact
   remainder. */
rlx_m_dd rlx_m_div_dd(double ah, double al, double bh, double bl) {
    precise double q = ah / bh;
    rlx_m_dd p = rlx_m_two_prod(q, bh);
    precise double rem = (((ah - p.hi) - p.lo) + al) - q * bl;
    precise double q2 = rem / bh;
    return rlx_m_fast_two_sum(q, q2);
}

/* =============================================================================================================
   exp
   ============================================================================================================= */

/* exp(xh + xl) for -745.25 <= xh <= 709.8125 and |xl| <= 2^-40; overflows to inf and underflows to
   subnormals or 0 with one rounding.
   x = k ln2 + r with |r| <= ln2/2 (Cody-Waite: k*LN2_HI is exact), r kept as a double-double rh + rl;
   exp(r) = 1 + rh + p + rl (1 + rh + p) with p = rh^2/2 + rh^3 Q3(rh), summed so that 1 + rh is exact;
   result = 2^k exp(r). */
double rlx_m_exp_dd(double xh, double xl) {
    precise double kd = roundEven(xh * RLX_M_INV_LN2);
    int k = RLX_CVT(int, kd);
    precise double hi = xh - kd * RLX_M_LN2_HI;
    precise double t = kd * RLX_M_LN2_LO;
    rlx_m_dd r = rlx_m_two_sum(hi, -t);
    precise double rh = r.hi;
    precise double rl = r.lo + xl;
    /* Q3(r) = (exp(r) - 1 - r - r^2/2) / r^3, minimax on [-0.3467, 0.3467] */
    precise double q = RLX_X(0x3E21F99Du, 0x32131E8Au); /* 2.0925717969153319e-09 */
    q = q * rh + RLX_X(0x3E5AF6CAu, 0xCD3EAE09u); /* 2.5112211712576996e-08 */
    q = q * rh + RLX_X(0x3E927E4Cu, 0x2B3471A3u); /* 2.7557238553731174e-07 */
    q = q * rh + RLX_X(0x3EC71DDEu, 0xFAC9F66Eu); /* 2.7557234346099084e-06 */
    q = q * rh + RLX_X(0x3EFA01A0u, 0x1B204A1Cu); /* 2.4801587365239517e-05 */
    q = q * rh + RLX_X(0x3F2A01A0u, 0x1B3AD9BCu); /* 0.00019841269896909801 */
    q = q * rh + RLX_X(0x3F56C16Cu, 0x16C1413Eu); /* 0.0013888888888865104 */
    q = q * rh + RLX_X(0x3F811111u, 0x1110EBE3u); /* 0.0083333333333168221 */
    q = q * rh + RLX_X(0x3FA55555u, 0x5555555Au); /* 0.041666666666666699 */
    q = q * rh + RLX_X(0x3FC55555u, 0x5555555Bu); /* 0.16666666666666682 */
    precise double z = rh * rh;
    precise double p = z * 0.5 + z * (rh * q);
    rlx_m_dd s = rlx_m_fast_two_sum(1.0, rh);
    precise double tail = s.lo + (p + rl * ((1.0 + rh) + p));
    if (k >= -1021 && k <= 1023) {
        precise double y = s.hi + tail;
        return y * rlx_m_pow2(k);
    }
    if (k > 1023) {
        precise double y = (s.hi + tail) * 2.0;
        return y * rlx_m_pow2(k - 1); /* inf when it overflows */
    }
    /* k <= -1022: v = exp(r) 2^(k+1022) is exact in two parts; the result v 2^-1022 is subnormal when v < 1:
       adding 1 rounds v once to a multiple of 2^-52, which is the subnormal grid after scaling. */
    precise double sc = rlx_m_pow2(k + 1022);
    precise double vh = s.hi * sc;
    precise double vl = tail * sc;
    precise double v = vh + vl;
    if (v >= 1.0) {
        precise double y = v * rlx_m_pow2(-1022);
        return y;
    }
    precise double big = 1.0 + vh;
    precise double e1 = (1.0 - big) + vh;
    precise double w = big + (e1 + vl);
    precise double y = (w - 1.0) * rlx_m_pow2(-1022);
    return y;
}

double rlx_exp_d(double x) {
    if (rlx_m_isnan(x)) return x;
    if (x > 709.8125) return RLX_M_INF;
    if (x < -745.25) return 0.0;
    return rlx_m_exp_dd(x, 0.0);
}

/* expm1(u) as a double-double for 0 <= u <= 45 (used by tanh): the exp reduction above, with
   e^r - 1 = rh + rh^2/2 + rh^3 Q3(rh) + rl (1 + rh) (|rl| < 2^-50) and rh^2 exact, then 2^k (1 + (e^r - 1)) - 1. */
rlx_m_dd rlx_m_expm1_dd(double u) {
    precise double kd = roundEven(u * RLX_M_INV_LN2);
    int k = RLX_CVT(int, kd);
    precise double hi = u - kd * RLX_M_LN2_HI;
    precise double t = kd * RLX_M_LN2_LO;
    rlx_m_dd r = rlx_m_two_sum(hi, -t);
    precise double rh = r.hi;
    precise double rl = r.lo;
    precise double q = RLX_X(0x3E21F99Du, 0x32131E8Au); /* 2.0925717969153319e-09 */
    q = q * rh + RLX_X(0x3E5AF6CAu, 0xCD3EAE09u); /* 2.5112211712576996e-08 */
    q = q * rh + RLX_X(0x3E927E4Cu, 0x2B3471A3u); /* 2.7557238553731174e-07 */
    q = q * rh + RLX_X(0x3EC71DDEu, 0xFAC9F66Eu); /* 2.7557234346099084e-06 */
    q = q * rh + RLX_X(0x3EFA01A0u, 0x1B204A1Cu); /* 2.4801587365239517e-05 */
    q = q * rh + RLX_X(0x3F2A01A0u, 0x1B3AD9BCu); /* 0.00019841269896909801 */
    q = q * rh + RLX_X(0x3F56C16Cu, 0x16C1413Eu); /* 0.0013888888888865104 */
    q = q * rh + RLX_X(0x3F811111u, 0x1110EBE3u); /* 0.0083333333333168221 */
    q = q * rh + RLX_X(0x3FA55555u, 0x5555555Au); /* 0.041666666666666699 */
    q = q * rh + RLX_X(0x3FC55555u, 0x5555555Bu); /* 0.16666666666666682 */
    rlx_m_dd zz = rlx_m_two_prod(rh, rh);
    rlx_m_dd a = rlx_m_fast_two_sum(rh, 0.5 * zz.hi);
    precise double tail = a.lo + (0.5 * zz.lo + (rh * zz.hi) * q + (rl + rl * rh));
    rlx_m_dd em1 = rlx_m_fast_two_sum(a.hi, tail);
    if (k == 0) return em1;
    precise double sc = rlx_m_pow2(k);
    precise double scm1 = sc - 1.0;
    precise double sh = sc * em1.hi;
    rlx_m_dd s = rlx_m_two_sum(scm1, sh);
    precise double lo = s.lo + sc * em1.lo;
    return rlx_m_fast_two_sum(s.hi, lo);
}

/* =============================================================================================================
   log
   ============================================================================================================= */

/* Table for log: for i = 0..63, {invc, log(c) high, log(c) low} as bit patterns (two words each), where
   z in [0.703125, 1.40625) is split into 38 intervals of width 1/128 below 1 and 26 of width 1/64 above 1,
   c is near the interval's centre, invc = 1/c has 20 significant bits and log(c) = -log(invc) exactly
   (to 106 bits). The two intervals next to 1 have c = 1, so that log is accurate relative to the result
   near x = 1. */
/* (tables of 64 words rather than one of 384: some drivers, lavapipe among them, compile a large
   dynamically indexed constant array extremely slowly) */
RLX_TABLE(uint, rlx_m_log_tab0, 64) /* invc high words */
    0x3FF6A13Cu, 0x3FF661ECu, 0x3FF623FAu, 0x3FF5E75Cu, 0x3FF5AC06u, 0x3FF571EEu, 0x3FF5390Au, 0x3FF50150u,
    0x3FF4CAB8u, 0x3FF4953Au, 0x3FF460CCu, 0x3FF42D66u, 0x3FF3FB02u, 0x3FF3C996u, 0x3FF3991Cu, 0x3FF3698Eu,
    0x3FF33AE4u, 0x3FF30D1Au, 0x3FF2E026u, 0x3FF2B404u, 0x3FF288B0u, 0x3FF25E22u, 0x3FF23456u, 0x3FF20B48u,
    0x3FF1E2F0u, 0x3FF1BB4Au, 0x3FF19454u, 0x3FF16E06u, 0x3FF14860u, 0x3FF12358u, 0x3FF0FEF0u, 0x3FF0DB20u,
    0x3FF0B7E6u, 0x3FF09540u, 0x3FF07326u, 0x3FF05198u, 0x3FF03092u, 0x3FF00000u, 0x3FF00000u, 0x3FEF4466u,
    0x3FEECC08u, 0x3FEE573Au, 0x3FEDE5D6u, 0x3FED77B6u, 0x3FED0CB6u, 0x3FECA4B4u, 0x3FEC3F90u, 0x3FEBDD2Cu,
    0x3FEB7D6Cu, 0x3FEB2036u, 0x3FEAC570u, 0x3FEA6D02u, 0x3FEA16D4u, 0x3FE9C2D2u, 0x3FE970E4u, 0x3FE920FCu,
    0x3FE8D302u, 0x3FE886E6u, 0x3FE83C98u, 0x3FE7F406u, 0x3FE7AD22u, 0x3FE767DCu, 0x3FE72428u, 0x3FE6E1F8u
RLX_TABLE_END
RLX_TABLE(uint, rlx_m_log_tab2, 64) /* log(c) high: high words */
    0xBFD63000u, 0xBFD57BF6u, 0xBFD4C9DFu, 0xBFD419B4u, 0xBFD36B69u, 0xBFD2BEF2u, 0xBFD21447u, 0xBFD16B5Cu,
    0xBFD0C42Bu, 0xBFD01EAEu, 0xBFCEF5AFu, 0xBFCDB13Cu, 0xBFCC7000u, 0xBFCB31DAu, 0xBFC9F6C2u, 0xBFC8BEB0u,
    0xBFC7898Bu, 0xBFC65755u, 0xBFC527E7u, 0xBFC3FB41u, 0xBFC2D160u, 0xBFC1AA28u, 0xBFC08595u, 0xBFBEC747u,
    0xBFBC8863u, 0xBFBA4E72u, 0xBFB81985u, 0xBFB5E952u, 0xBFB3BE03u, 0xBFB1972Eu, 0xBFAEEA2Fu, 0xBFAAAEDEu,
    0xBFA67C78u, 0xBFA2530Bu, 0xBF9C63D0u, 0xBF9432ABu, 0xBF88246Du, 0x00000000u, 0x00000000u, 0x3F97B90Eu,
    0x3FA39E82u, 0x3FAB42EAu, 0x3FB1653Eu, 0x3FB51B0Au, 0x3FB8C341u, 0x3FBC5E4Bu, 0x3FBFEC88u, 0x3FC1B728u,
    0x3FC371FDu, 0x3FC526E7u, 0x3FC6D610u, 0x3FC87F9Eu, 0x3FCA23BBu, 0x3FCBC283u, 0x3FCD5C26u, 0x3FCEF0AAu,
    0x3FD04024u, 0x3FD1058Bu, 0x3FD1C897u, 0x3FD2895Au, 0x3FD347DDu, 0x3FD40432u, 0x3FD4BE60u, 0x3FD57675u
RLX_TABLE_END
RLX_TABLE(uint, rlx_m_log_tab3, 64) /* log(c) high: low words */
    0xBB3AA197u, 0x23C8CF29u, 0x4617289Fu, 0xF3D5E775u, 0x2EBE0B2Eu, 0xC4DC88EBu, 0x950EAF88u, 0x8BACFB53u,
    0xC7615D9Bu, 0xAE26C654u, 0x44DCFE02u, 0xC0D4885Fu, 0x96EFF848u, 0xA75BC8E4u, 0xE7089520u, 0x3B38FE73u,
    0x254446CFu, 0x6E8BE681u, 0x94A1B2B4u, 0x05991368u, 0x8C8680FAu, 0x6E23EDC9u, 0x659E2F0Eu, 0x0309B600u,
    0x01BC0EA3u, 0xA0B1B5A6u, 0x6F40C9A8u, 0x6D9772C9u, 0xA7D18C64u, 0x5145FA47u, 0xC006B77Cu, 0xD0FAACFCu,
    0xB2D3F3D4u, 0x2F8C883Fu, 0x6C14AA2Au, 0x25980C41u, 0xA3884D1Au, 0x00000000u, 0x00000000u, 0x87D5C4A3u,
    0xB9FEC3A0u, 0xB1199DA3u, 0x8EA397F3u, 0x1F061C61u, 0xF631A2A3u, 0xCF5BED8Bu, 0x31DC133Bu, 0xB52F6C24u,
    0x401E90B8u, 0x13A1B5A1u, 0x6719D25Du, 0xB520CBEAu, 0xFFE2B567u, 0x042D98A7u, 0x4B4FD355u, 0x2BDC665Au,
    0x6CB4D2EDu, 0xD1AE4AE2u, 0x61699DC3u, 0x0BDE86A4u, 0xB2987D59u, 0xF686B3C6u, 0xF5777C69u, 0x77455FB4u
RLX_TABLE_END
RLX_TABLE(uint, rlx_m_log_tab4, 64) /* log(c) low: high words */
    0xBC6DA092u, 0x3C609504u, 0xBC7BB3EBu, 0xBC60DD20u, 0xBC7B3D88u, 0xBC5F889Bu, 0x3C70352Du, 0xBC766FB7u,
    0xBC514BE4u, 0xBC7DCFBBu, 0x3C5088F7u, 0xBC5AA090u, 0x3C68C064u, 0x3C66311Bu, 0xBC435833u, 0xBC555AADu,
    0xBC5EF008u, 0x3C3A1763u, 0x3C2700F5u, 0x3C6DA8E0u, 0x3C5499B9u, 0x3C4C953Du, 0x3C6DE31Eu, 0x3C4891E9u,
    0xBC5AA7B5u, 0x3C55B9C2u, 0xBC3C1E34u, 0xBC5F0FC1u, 0xBC4972CCu, 0x3C48EF93u, 0x3C43E527u, 0xBC279A90u,
    0xBC3CD719u, 0x3C4827F7u, 0x3C3CE045u, 0x3C38CDA4u, 0xBC10CEFEu, 0x00000000u, 0x00000000u, 0xBC35C02Eu,
    0xBC45C243u, 0xBC3E5888u, 0xBC3709DDu, 0x3C5A4BDEu, 0xBC24CD62u, 0x3C34F6C9u, 0xBC55B12Bu, 0x3C547C9Cu,
    0x3C5DE7BEu, 0xBC674670u, 0xBC6CAAD7u, 0xBC6BF997u, 0x3C493711u, 0x3C54E1D2u, 0x3C670AE1u, 0x3C647656u,
    0x3C76B68Fu, 0xBC79D819u, 0xBC311D3Bu, 0xBC60A5B6u, 0x3C75915Au, 0xBC70A9ACu, 0xBC6252C4u, 0x3C7520F5u
RLX_TABLE_END
RLX_TABLE(uint, rlx_m_log_tab5, 64) /* log(c) low: low words */
    0xB9908D60u, 0x40B31E96u, 0x76832C12u, 0x6E29A1B4u, 0xD866E120u, 0x0997D5F7u, 0x7AE0A4D5u, 0xD35EAFE0u,
    0xF242D641u, 0xC5B020ADu, 0x331FF106u, 0xA9F8A6F8u, 0x12B92C3Bu, 0x6E3FA070u, 0x605B33CFu, 0xEBEECD25u,
    0x965A8B9Cu, 0x3E4D3C0Eu, 0x827A3B85u, 0xCEE44290u, 0x47B05EB5u, 0xEFB83259u, 0x33E99CF7u, 0xA1AFEE90u,
    0xFCB201D0u, 0x559E6280u, 0xA7B6E3BDu, 0xBB6BE604u, 0x16490A87u, 0x77DE8FA5u, 0x3E628117u, 0xF5FB5F96u,
    0xCDD6D5F6u, 0x9C8158B5u, 0x7BDC1CA0u, 0x8E559AE8u, 0xBC602541u, 0x00000000u, 0x00000000u, 0xD7767837u,
    0xE29B1A65u, 0xC4DC1676u, 0xBACA6CD7u, 0x8F74265Bu, 0x0018BDF8u, 0x4A902B1Fu, 0x97E7A378u, 0x89DC86D9u,
    0x62B0B2B0u, 0xA4F0B95Cu, 0xBE421ECEu, 0xCF9C7FA2u, 0x05CFEF01u, 0xFA680548u, 0xDA98B451u, 0xC00EC33Du,
    0x5189FA7Bu, 0x228227F2u, 0x7F6FAD9Eu, 0x82D74D38u, 0x1BFB7318u, 0x1FF59AE5u, 0xB03D3E12u, 0x07F49FA1u
RLX_TABLE_END


/* log(x) as a double-double (relative error below 2^-68) for finite x > 0, subnormals included.
   x = 2^e z with z in [0.703125, 1.40625), z in interval i with table constants invc, log(c):
   r = z invc - 1 is computed exactly (z is split into a 33-bit head and a 20-bit tail; invc has 20 bits),
   log(x) = e ln2 + log(c) + log1p(r), log1p(r) = r - r^2/2 + r^3 P(r), |r| < 2^-6, with every term that is
   larger than 2^-70 |log(x)| summed exactly. */
rlx_m_dd rlx_m_log_dd(double x) {
    int64_t ix = doubleBitsToInt64(x);
    int64_t esub = 0;
    if (ix < (RLX_CVT(int64_t, 1) << 52)) { /* subnormal: scale by 2^52 */
        precise double xs = x * RLX_M_2P52;
        ix = doubleBitsToInt64(xs);
        esub = 52;
    }
    int64_t tmp = ix - (RLX_CVT(int64_t, RLX_M_LOG_OFF) << 32);
    int i = RLX_CVT(int, (tmp >> 46) & 63);
    int64_t e = tmp >> 52;
    int64_t iz = ix - e * (RLX_CVT(int64_t, 1) << 52);
    precise double z = int64BitsToDouble(iz);
    precise double zh = int64BitsToDouble(iz & ~RLX_CVT(int64_t, 0xFFFFF));
    precise double zl = z - zh;
    precise double invc = RLX_X(rlx_m_log_tab0[i], 0u) /* invc has 20 bits: its low word is 0 */;
    precise double logch = RLX_X(rlx_m_log_tab2[i], rlx_m_log_tab3[i]);
    precise double logcl = RLX_X(rlx_m_log_tab4[i], rlx_m_log_tab5[i]);
    precise double ed = RLX_CVT(double, e - esub);
    /* r = rr + rre exactly */
    precise double rh = zh * invc - 1.0;
    precise double rl = zl * invc;
    rlx_m_dd r = rlx_m_two_sum(rh, rl);
    precise double rr = r.hi;
    /* P(r) = (log1p(r) - r + r^2/2) / r^3, minimax on [-0.0079, 0.0157] */
    precise double p = RLX_X(0x3FBB89F9u, 0xC55C8010u); /* 0.10757409160987685 */
    p = p * rr + RLX_X(0xBFBFFE38u, 0x3694F038u); /* -0.12497283299029582 */
    p = p * rr + RLX_X(0x3FC24926u, 0xFAEAFCF6u); /* 0.14285742999889067 */
    p = p * rr + RLX_X(0xBFC55555u, 0x5D3A7238u); /* -0.16666667034304949 */
    p = p * rr + RLX_X(0x3FC99999u, 0x999794EFu); /* 0.19999999999632886 */
    p = p * rr + RLX_X(0xBFCFFFFFu, 0xFFFFF193u); /* -0.2499999999998975 */
    p = p * rr + RLX_X(0x3FD55555u, 0x55555555u); /* 0.33333333333333331 */
    precise double ehi = ed * RLX_M_LN2_HI; /* exact: |e| < 2^11, LN2_HI has 42 bits */
    precise double elo = ed * RLX_M_LN2_LO;
    rlx_m_dd s1 = rlx_m_two_sum(ehi, logch);
    rlx_m_dd s2 = rlx_m_two_sum(s1.hi, rr);
    rlx_m_dd q = rlx_m_two_prod(rr, -0.5 * rr);
    rlx_m_dd s3 = rlx_m_two_sum(s2.hi, q.hi);
    precise double r3 = rr * rr * rr;
    precise double tail = (s1.lo + s2.lo + s3.lo + q.lo) + (elo + logcl) + r.lo * (1.0 - rr) + r3 * p;
    return rlx_m_fast_two_sum(s3.hi, tail);
}

double rlx_log_d(double x) {
    if (rlx_m_isnan(x)) return x;
    if (x < 0.0) return RLX_M_NAN;
    if (x == 0.0) return -RLX_M_INF;
    if (rlx_m_ahi(x) >= 0x7FF00000u) return x; /* +inf */
    return rlx_m_log_dd(x).hi;
}

/* =============================================================================================================
   pow
   ============================================================================================================= */

/* pow(x, y) = exp(y log|x|) with log|x| as a double-double, y log|x| as a double-double (exact product) and
   exp of a double-double argument: the error stays below 0.52 ulp for all results. Special cases: C99 F.9.4.4. */
double rlx_pow_d(double x, double y) {
    if (y == 0.0) return 1.0; /* also for x NaN */
    if (x == 1.0) return 1.0; /* also for y NaN */
    if (rlx_m_isnan(x) || rlx_m_isnan(y)) return x + y;
    precise double ax = rlx_m_abs(x);
    precise double ay = rlx_m_abs(y);
    bool yinf = rlx_m_ahi(y) >= 0x7FF00000u;
    bool yint = !yinf && trunc(y) == y;
    precise double yh = y * 0.5;
    bool yodd = yint && ay < RLX_M_2P53 && trunc(yh) != yh;
    if (yinf) {
        if (ax == 1.0) return 1.0; /* (-1)^(+-inf) */
        return ((ax > 1.0) == (y > 0.0)) ? RLX_M_INF : 0.0;
    }
    if (x == 0.0) {
        if (y < 0.0) return yodd ? rlx_m_copysign(RLX_M_INF, x) : RLX_M_INF;
        return yodd ? x : 0.0;
    }
    if (rlx_m_ahi(x) >= 0x7FF00000u) { /* +-inf */
        if (x > 0.0) return y < 0.0 ? 0.0 : RLX_M_INF;
        if (y < 0.0) return yodd ? RLX_M_NZERO : 0.0;
        return yodd ? -RLX_M_INF : RLX_M_INF;
    }
    precise double sign = 1.0;
    if (x < 0.0) {
        if (!yint) return RLX_M_NAN;
        if (yodd) sign = -1.0;
    }
    if (ax == 1.0) return sign; /* (-1)^integer */
    rlx_m_dd l = rlx_m_log_dd(ax);
    precise double ph = y * l.hi;
    if (ph > 709.8125) return sign * RLX_M_INF;
    if (ph < -745.25) return sign * 0.0;
    /* here |y| < 2^63, so the splitting in two_prod cannot overflow */
    rlx_m_dd p = rlx_m_two_prod(y, l.hi);
    precise double pl = p.lo + y * l.lo;
    precise double res = sign * rlx_m_exp_dd(p.hi, pl);
    return res;
}

/* =============================================================================================================
   sin, cos, tan
   ============================================================================================================= */

/* Argument reduction result: x = q pi/2 + (hi + lo) (mod 2 pi), |hi + lo| <= pi/4 (a hair more for the
   medium range), q in 0..3. */
RLX_STRUCT(rlx_m_red) { double hi; double lo; int q; };

rlx_m_red rlx_m_red_make(double hi, double lo, int q) {
    rlx_m_red r;
    r.hi = hi;
    r.lo = lo;
    r.q = q;
    return r;
}

/* Bits of 2/pi, 32 per word, most significant first, after two zero words: bit b of 2/pi (weight 2^-b,
   b >= 1) is bit (b + 63) of this table counted from the most significant bit of word 0. */
RLX_TABLE(uint, rlx_m_2opi, 42)
    0x00000000u, 0x00000000u, 0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, 0xDB629599u, 0x3C439041u,
    0xFE5163ABu, 0xDEBBC561u, 0xB7246E3Au, 0x424DD2E0u, 0x06492EEAu, 0x09D1921Cu, 0xFE1DEB1Cu, 0xB129A73Eu,
    0xE88235F5u, 0x2EBB4484u, 0xE99C7026u, 0xB45F7E41u, 0x3991D639u, 0x835339F4u, 0x9C845F8Bu, 0xBDF9283Bu,
    0x1FF897FFu, 0xDE05980Fu, 0xEF2F118Bu, 0x5A0A6D1Fu, 0x6D367ECFu, 0x27CB09B7u, 0x4F463F66u, 0x9E5FEA2Du,
    0x7527BAC7u, 0xEBE5F17Bu, 0x3D0739F7u, 0x8A5292EAu, 0x6BFB5FB1u, 0x1F8D5D08u, 0x56033046u, 0xFC7B6BABu,
    0xF0CFBC20u, 0x9AF4361Du
RLX_TABLE_END

/* Payne-Hanek reduction for 2^20 <= ax < inf, exact to 2^-120 whatever the size of ax.
   ax = M 2^E with a 53-bit integer M; bits of 2/pi with weight above 2^(E-2) contribute multiples of 4
   to ax 2/pi and are skipped, so only a 192-bit window F starting at bit E-1 is multiplied by M (integer
   arithmetic, 32-bit limbs). Of P = M F (the value of ax 2/pi mod 4 times 2^190) bits 190-191 are the
   quadrant and bits 62-189 the fraction; a fraction >= 1/2 is taken as negative with q + 1. The 128-bit
   fraction is converted exactly to three doubles and multiplied by pi/2 in double-double arithmetic. */
rlx_m_red rlx_m_rem_pio2_large(double ax) {
    uint64_t bits = doubleBitsToUint64(ax);
    int E = RLX_CVT(int, bits >> 52) - 1075;
    uint64_t M = (bits & ((RLX_CVT(uint64_t, 1) << 52) - 1)) | (RLX_CVT(uint64_t, 1) << 52);
    int idx = E - 1 + 63;
    int j0 = idx >> 5;
    int o = idx & 31;
    uint f[6];
    for (int t = 0; t < 6; t++) {
        uint64_t w = (RLX_CVT(uint64_t, rlx_m_2opi[j0 + t]) << 32) | RLX_CVT(uint64_t, rlx_m_2opi[j0 + t + 1]);
        f[t] = RLX_CVT(uint, (w << o) >> 32);
    }
    /* P = M * F in 32-bit limbs p[0] (least significant) .. p[7]; F's limbs are f[5] (least) .. f[0] */
    uint m0 = RLX_CVT(uint, M & 0xFFFFFFFFu);
    uint m1 = RLX_CVT(uint, M >> 32);
    uint p[8];
    uint64_t carry = 0u;
    for (int b = 0; b < 6; b++) {
        uint64_t t = RLX_CVT(uint64_t, m0) * RLX_CVT(uint64_t, f[5 - b]) + carry;
        p[b] = RLX_CVT(uint, t & 0xFFFFFFFFu);
        carry = t >> 32;
    }
    p[6] = RLX_CVT(uint, carry);
    carry = 0u;
    for (int b = 0; b < 6; b++) {
        uint64_t t = RLX_CVT(uint64_t, m1) * RLX_CVT(uint64_t, f[5 - b]) + RLX_CVT(uint64_t, p[b + 1]) + carry;
        p[b + 1] = RLX_CVT(uint, t & 0xFFFFFFFFu);
        carry = t >> 32;
    }
    p[7] = RLX_CVT(uint, carry);
    int q = RLX_CVT(int, p[5] >> 30);
    uint64_t hi = (RLX_CVT(uint64_t, p[5] & 0x3FFFFFFFu) << 34) | (RLX_CVT(uint64_t, p[4]) << 2) |
                  RLX_CVT(uint64_t, p[3] >> 30);
    uint64_t lo = (RLX_CVT(uint64_t, p[3] & 0x3FFFFFFFu) << 34) | (RLX_CVT(uint64_t, p[2]) << 2) |
                  RLX_CVT(uint64_t, p[1] >> 30);
    precise double sgn = 1.0;
    if ((hi >> 63) != 0u) { /* fraction >= 1/2: use fraction - 1 (its magnitude: the 128-bit negation) */
        q += 1;
        lo = ~lo + 1u;
        hi = ~hi + (lo == 0u ? 1u : 0u);
        sgn = -1.0;
    }
    uint64_t c1 = hi >> 11;
    uint64_t c2 = ((hi & 0x7FFu) << 42) | (lo >> 22);
    uint64_t c3 = lo & 0x3FFFFFu;
    precise double fh = RLX_CVT(double, c1) * rlx_m_pow2(-53);
    precise double fm = RLX_CVT(double, c2) * rlx_m_pow2(-106);
    precise double fl = RLX_CVT(double, c3) * rlx_m_pow2(-128);
    rlx_m_dd f2 = rlx_m_fast_two_sum(fh, fm);
    precise double f2l = f2.lo + fl;
    rlx_m_dd pr = rlx_m_two_prod(f2.hi, RLX_M_PIO2_HI);
    precise double prl = pr.lo + (f2.hi * RLX_M_PIO2_LO + f2l * RLX_M_PIO2_HI);
    rlx_m_dd r = rlx_m_fast_two_sum(pr.hi, prl);
    precise double rh = sgn * r.hi;
    precise double rl = sgn * r.lo;
    return rlx_m_red_make(rh, rl, q & 3);
}

/* x = q pi/2 + r for finite x. |x| < 2^20: Cody-Waite with pi/2 in three 33-bit parts (k < 2^20, so every
   k * part is exact) and a 53-bit fourth part, about 150 bits of pi/2 in all; beyond: Payne-Hanek. */
rlx_m_red rlx_m_rem_pio2(double x) {
    precise double ax = rlx_m_abs(x);
    rlx_m_red red;
    if (ax < 1048576.0) {
        precise double kd = roundEven(ax * RLX_M_TWO_OVER_PI);
        precise double a = ax - kd * RLX_M_PIO2_1; /* exact */
        precise double w2 = kd * RLX_M_PIO2_2;     /* exact */
        rlx_m_dd b = rlx_m_two_sum(a, -w2);
        precise double w3 = kd * RLX_M_PIO2_3; /* exact */
        rlx_m_dd c = rlx_m_two_sum(b.hi, -w3);
        precise double lo = (b.lo + c.lo) - kd * RLX_M_PIO2_4;
        rlx_m_dd r = rlx_m_two_sum(c.hi, lo);
        red = rlx_m_red_make(r.hi, r.lo, RLX_CVT(int, kd) & 3);
    } else {
        red = rlx_m_rem_pio2_large(ax);
    }
    if (x < 0.0) {
        red.hi = -red.hi;
        red.lo = -red.lo;
        red.q = (4 - red.q) & 3;
    }
    return red;
}

/* sin(rh + rl) for |rh| <= pi/4 + 2^-40: rh + rh^3 S(rh^2) + rl (1 - rh^2/2), as a double-double. */
rlx_m_dd rlx_m_sin_k(double rh, double rl) {
    precise double z = rh * rh;
    /* S(z) = (sin(r) - r) / r^3 with z = r^2, minimax on [0, 0.62] for the relative error of sin */
    precise double s = RLX_X(0xBD6AAA07u, 0x4C653CC8u); /* -7.5784140179415589e-13 */
    s = s * z + RLX_X(0x3DE61208u, 0x92590A22u); /* 1.6058360992844813e-10 */
    s = s * z + RLX_X(0xBE5AE645u, 0x2898741Cu); /* -2.5052104868113028e-08 */
    s = s * z + RLX_X(0x3EC71DE3u, 0xA532E55Au); /* 2.7557319214026572e-06 */
    s = s * z + RLX_X(0xBF2A01A0u, 0x1A018A5Du); /* -0.00019841269841254757 */
    s = s * z + RLX_X(0x3F811111u, 0x1111110Bu); /* 0.0083333333333333228 */
    s = s * z + RLX_X(0xBFC55555u, 0x55555555u); /* -0.16666666666666666 */
    precise double tail = rh * (z * s) + (rl - rl * (0.5 * z));
    return rlx_m_fast_two_sum(rh, tail);
}

/* cos(rh + rl) for |rh| <= pi/4 + 2^-40: 1 - rh^2/2 + rh^4 C(rh^2) - rh rl with rh^2 exact and 1 - rh^2/2
   summed exactly, as a double-double. */
rlx_m_dd rlx_m_cos_k(double rh, double rl) {
    rlx_m_dd zz = rlx_m_two_prod(rh, rh);
    precise double z = zz.hi;
    /* C(z) = (cos(r) - 1 + r^2/2) / r^4 with z = r^2, minimax on [0, 0.62] for the absolute error of cos */
    precise double c = RLX_X(0xBDA8FA9Bu, 0x9A4C0047u); /* -1.1359105341905599e-11 */
    c = c * z + RLX_X(0x3E21EE9Eu, 0x2C8336DEu); /* 2.0875713138173987e-09 */
    c = c * z + RLX_X(0xBE927E4Fu, 0x7FCFDDEAu); /* -2.7557314280455704e-07 */
    c = c * z + RLX_X(0x3EFA01A0u, 0x19CA0881u); /* 2.4801587289243358e-05 */
    c = c * z + RLX_X(0xBF56C16Cu, 0x16C150D5u); /* -0.0013888888888873758 */
    c = c * z + RLX_X(0x3FA55555u, 0x5555554Bu); /* 0.041666666666666595 */
    precise double hz = 0.5 * z;
    precise double w = 1.0 - hz;
    precise double tail = (((1.0 - w) - hz) - 0.5 * zz.lo) + ((z * z) * c - rh * rl);
    return rlx_m_fast_two_sum(w, tail);
}

double rlx_sin_d(double x) {
    uint ahi = rlx_m_ahi(x);
    if (ahi >= 0x7FF00000u) return rlx_m_isnan(x) ? x : RLX_M_NAN;
    if (ahi < 0x3E400000u) return x; /* |x| < 2^-27: sin(x) rounds to x */
    rlx_m_red red = (ahi < 0x3FE80000u) ? rlx_m_red_make(x, 0.0, 0) : rlx_m_rem_pio2(x); /* |x| < 0.75 */
    rlx_m_dd v = ((red.q & 1) == 0) ? rlx_m_sin_k(red.hi, red.lo) : rlx_m_cos_k(red.hi, red.lo);
    return ((red.q & 2) != 0) ? -v.hi : v.hi;
}

double rlx_cos_d(double x) {
    uint ahi = rlx_m_ahi(x);
    if (ahi >= 0x7FF00000u) return rlx_m_isnan(x) ? x : RLX_M_NAN;
    if (ahi < 0x3E400000u) return 1.0; /* |x| < 2^-27: cos(x) rounds to 1 */
    rlx_m_red red = (ahi < 0x3FE80000u) ? rlx_m_red_make(x, 0.0, 0) : rlx_m_rem_pio2(x);
    rlx_m_dd v = ((red.q & 1) == 0) ? rlx_m_cos_k(red.hi, red.lo) : rlx_m_sin_k(red.hi, red.lo);
    return (((red.q + 1) & 2) != 0) ? -v.hi : v.hi;
}

/* tan = sin / cos (q even) or -cos / sin (q odd) of the reduced argument, divided in double-double. */
double rlx_tan_d(double x) {
    uint ahi = rlx_m_ahi(x);
    if (ahi >= 0x7FF00000u) return rlx_m_isnan(x) ? x : RLX_M_NAN;
    if (ahi < 0x3E400000u) return x; /* |x| < 2^-27: tan(x) rounds to x */
    rlx_m_red red = (ahi < 0x3FE80000u) ? rlx_m_red_make(x, 0.0, 0) : rlx_m_rem_pio2(x);
    rlx_m_dd s = rlx_m_sin_k(red.hi, red.lo);
    rlx_m_dd c = rlx_m_cos_k(red.hi, red.lo);
    if ((red.q & 1) == 0) return rlx_m_div_dd(s.hi, s.lo, c.hi, c.lo).hi;
    return -rlx_m_div_dd(c.hi, c.lo, s.hi, s.lo).hi;
}

/* =============================================================================================================
   atan
   ============================================================================================================= */

/* atan(|x|) = atan(c) + atan(t), t = (|x| - c) / (1 + c |x|) in double-double, c in {0, 1/2, 1, 3/2, inf}
   chosen so that |t| <= 7/16; atan(t) = t + t^3 A(t^2) + tl / (1 + t^2). */
double rlx_atan_d(double x) {
    uint ahi = rlx_m_ahi(x);
    if (rlx_m_isnan(x)) return x;
    if (ahi >= 0x44100000u) return rlx_m_copysign(RLX_M_PIO2_HI, x); /* |x| >= 2^66 (and inf) */
    if (ahi < 0x3E400000u) return x;                                  /* |x| < 2^-27 */
    precise double ax = rlx_m_abs(x);
    precise double bh = 0.0;
    precise double bl = 0.0;
    rlx_m_dd t;
    if (ax < 0.4375) {
        t = rlx_m_dd_make(ax, 0.0);
    } else if (ax < 0.6875) {
        rlx_m_dd d = rlx_m_two_sum(1.0, 0.5 * ax);
        precise double num = ax - 0.5; /* exact */
        t = rlx_m_div_dd(num, 0.0, d.hi, d.lo);
        bh = RLX_M_ATAN_HALF_HI;
        bl = RLX_M_ATAN_HALF_LO;
    } else if (ax < 1.1875) {
        rlx_m_dd d = rlx_m_two_sum(1.0, ax);
        precise double num = ax - 1.0; /* exact */
        t = rlx_m_div_dd(num, 0.0, d.hi, d.lo);
        bh = RLX_M_ATAN_ONE_HI;
        bl = RLX_M_ATAN_ONE_LO;
    } else if (ax < 2.4375) {
        rlx_m_dd m = rlx_m_two_sum(ax, 0.5 * ax); /* 1.5 ax exactly */
        rlx_m_dd d = rlx_m_two_sum(1.0, m.hi);
        precise double num = ax - 1.5; /* exact */
        precise double dl = d.lo + m.lo;
        t = rlx_m_div_dd(num, 0.0, d.hi, dl);
        bh = RLX_M_ATAN_3HALF_HI;
        bl = RLX_M_ATAN_3HALF_LO;
    } else {
        t = rlx_m_div_dd(-1.0, 0.0, ax, 0.0);
        bh = RLX_M_PIO2_HI;
        bl = RLX_M_PIO2_LO;
    }
    precise double th = t.hi;
    precise double z = th * th;
    /* A(z) = (atan(t) - t) / t^3 with z = t^2, minimax on [0, 0.1915] for the relative error of atan */
    precise double a = RLX_X(0x3F8C0AE2u, 0x4EAEE830u); /* 0.013692634607526427 */
    a = a * z + RLX_X(0xBFA05757u, 0x95C4EA8Du); /* -0.031916367561696558 */
    a = a * z + RLX_X(0x3FA6B26Au, 0x65DDAC35u); /* 0.044329953131488166 */
    a = a * z + RLX_X(0xBFAA9FDEu, 0x337A360Eu); /* -0.052000945838795429 */
    a = a * z + RLX_X(0x3FAE1331u, 0x36655E1Cu); /* 0.05874017514241478 */
    a = a * z + RLX_X(0xBFB11090u, 0xD95C4EFFu); /* -0.066659024302051492 */
    a = a * z + RLX_X(0x3FB3B132u, 0xFED7F2BEu); /* 0.076922595231688512 */
    a = a * z + RLX_X(0xBFB745D1u, 0x1CFEB880u); /* -0.090909070566995709 */
    a = a * z + RLX_X(0x3FBC71C7u, 0x1A168976u); /* 0.11111111056246678 */
    a = a * z + RLX_X(0xBFC24924u, 0x92445D9Fu); /* -0.14285714284845327 */
    a = a * z + RLX_X(0x3FC99999u, 0x99998FDFu); /* 0.19999999999993087 */
    a = a * z + RLX_X(0xBFD55555u, 0x55555552u); /* -0.33333333333333315 */
    precise double tail = th * (z * a) + (t.lo - t.lo * z);
    rlx_m_dd s = rlx_m_two_sum(bh, th);
    precise double res = s.hi + (s.lo + (bl + tail));
    return rlx_m_copysign(res, x);
}

/* =============================================================================================================
   tanh
   ============================================================================================================= */

/* tanh(|x|) = E / (E + 2) with E = expm1(2|x|) in double-double; tanh(x) rounds to +-1 for |x| > 19.06. */
double rlx_tanh_d(double x) {
    uint ahi = rlx_m_ahi(x);
    if (rlx_m_isnan(x)) return x;
    if (ahi >= 0x40360000u) return rlx_m_copysign(1.0, x); /* |x| >= 22 (and inf) */
    if (ahi < 0x3E400000u) return x;                       /* |x| < 2^-27 */
    precise double u = 2.0 * rlx_m_abs(x);
    rlx_m_dd e = rlx_m_expm1_dd(u);
    rlx_m_dd d = rlx_m_two_sum(2.0, e.hi);
    precise double dl = d.lo + e.lo;
    precise double res = rlx_m_div_dd(e.hi, e.lo, d.hi, dl).hi;
    return rlx_m_copysign(res, x);
}

/* =============================================================================================================
   erf
   ============================================================================================================= */

/* |x| < 0.84375:  erf(x) = x + x P(x^2);
   |x| < 1.25:     erf(x) = erf(m) + R(|x| - m), m = 1.046875, erf(m) as a double-double;
   |x| < 6:        erf(x) = 1 - exp(-x^2) G(|x|), G(a) = erfc(a) exp(a^2) by one polynomial on [1.25, 2.5)
                   and one on [2.5, 6), exp(-x^2) from the double-double x^2;
   |x| >= 6:       erf(x) rounds to +-1. */
double rlx_erf_d(double x) {
    uint ahi = rlx_m_ahi(x);
    if (rlx_m_isnan(x)) return x;
    if (ahi >= 0x40180000u) return rlx_m_copysign(1.0, x); /* |x| >= 6 (and inf) */
    precise double ax = rlx_m_abs(x);
    if (ahi < 0x3E300000u) { /* |x| < 2^-28: x (1 + EFX), scaled so that subnormal x lose no bits */
        precise double xs = x * rlx_m_pow2(100);
        precise double res = (xs + xs * RLX_M_ERF_EFX) * rlx_m_pow2(-100);
        return res;
    }
    if (ax < 0.84375) {
        precise double z = x * x;
        /* P(z) = erf(x) / x - 1 with z = x^2, minimax on [0, 0.712] */
        precise double p = RLX_X(0xBE0E850Eu, 0x6C6060DEu); /* -8.882416683711447e-10 */
        p = p * z + RLX_X(0x3E4E8232u, 0x36D79FEBu); /* 1.4206664035240177e-08 */
        p = p * z + RLX_X(0xBE85E1C3u, 0x686F9B7Au); /* -1.6303276970040687e-07 */
        p = p * z + RLX_X(0x3EBB9CA0u, 0xBDFD41B5u); /* 1.6457931834753618e-06 */
        p = p * z + RLX_X(0xBEEF4D0Cu, 0x3C93A26Du); /* -1.4925464613972314e-05 */
        p = p * z + RLX_X(0x3F1F9A31u, 0x7CD05B14u); /* 0.00012055327461300516 */
        p = p * z + RLX_X(0xBF4C02DBu, 0x3A111032u); /* -0.00085483269152364914 */
        p = p * z + RLX_X(0x3F7565BCu, 0xD0CEF5F6u); /* 0.0052239776240958682 */
        p = p * z + RLX_X(0xBF9B82CEu, 0x31281BF7u); /* -0.026866170645032352 */
        p = p * z + RLX_X(0x3FBCE2F2u, 0x1A042AD3u); /* 0.1128379167095475 */
        p = p * z + RLX_X(0xBFD81274u, 0x6B0379E6u); /* -0.37612638903183748 */
        p = p * z + RLX_X(0x3FC06EBAu, 0x8214DB69u); /* 0.12837916709551259 */
        precise double res = x + x * p;
        return res;
    }
    if (ax < 1.25) {
        precise double s = ax - 1.046875;
        /* R(s) = erf(m + s) - erf(m), minimax on [-0.203125, 0.203125] */
        precise double r = RLX_X(0x3F00ABB8u, 0xCCB9EB56u); /* 3.1797005786557655e-05 */
        r = r * s + RLX_X(0xBF27C6EAu, 0xD81A9A34u); /* -0.00018140427350950424 */
        r = r * s + RLX_X(0xBEF7FC9Cu, 0x4D841EAAu); /* -2.2875556937611515e-05 */
        r = r * s + RLX_X(0x3F5458D1u, 0x1A778764u); /* 0.0012418787026650885 */
        r = r * s + RLX_X(0xBF555F6Eu, 0x9D7113A0u); /* -0.0013044910645174448 */
        r = r * s + RLX_X(0xBF7652D9u, 0xF85DCB69u); /* -0.0054501070461466595 */
        r = r * s + RLX_X(0x3F8B180Du, 0x14601A4Du); /* 0.013229467567737485 */
        r = r * s + RLX_X(0x3F82FF4Au, 0x0E593969u); /* 0.00927598816192861 */
        r = r * s + RLX_X(0xBFB1351Du, 0x7E79C96Bu); /* -0.067216723802436526 */
        r = r * s + RLX_X(0x3FAB39ADu, 0xC180F650u); /* 0.053174428816856634 */
        r = r * s + RLX_X(0x3FC32DBBu, 0x309984EBu); /* 0.1498331057837626 */
        r = r * s + RLX_X(0xBFD94489u, 0x21B8891Au); /* -0.39480808537531831 */
        r = r * s + RLX_X(0x3FD822E6u, 0x55B417E6u); /* 0.377130111403288 */
        r = r * s + RLX_X(0x3C2186DAu, 0xCDF250C8u); /* 4.7506422058420577e-19 */
        precise double res = RLX_M_ERF_M0_HI + (RLX_M_ERF_M0_LO + r);
        return rlx_m_copysign(res, x);
    }
    rlx_m_dd zz = rlx_m_two_prod(ax, ax);
    precise double e = rlx_m_exp_dd(-zz.hi, -zz.lo);
    precise double g;
    if (ax < 2.5) {
        precise double s = ax - 1.875;
        /* G(1.875 + s), minimax on [-0.625, 0.625] for the absolute error of erf */
        precise double g1 = RLX_X(0xBE4BD50Bu, 0x528E3ECFu); /* -1.2960379951344633e-08 */
        g1 = g1 * s + RLX_X(0x3E65DA38u, 0x5FC95BF6u); /* 4.0703309143914564e-08 */
        g1 = g1 * s + RLX_X(0xBE82B207u, 0xE5E828F5u); /* -1.3929183047295399e-07 */
        g1 = g1 * s + RLX_X(0x3EA1C8FAu, 0x109C1871u); /* 5.3003626129876826e-07 */
        g1 = g1 * s + RLX_X(0xBEC02C61u, 0xF47B1C8Du); /* -1.928015908567491e-06 */
        g1 = g1 * s + RLX_X(0x3EDC85DAu, 0xBC08DAEBu); /* 6.8003818687798006e-06 */
        g1 = g1 * s + RLX_X(0xBEF87A41u, 0x43ABE802u); /* -2.3343618731332123e-05 */
        g1 = g1 * s + RLX_X(0x3F14631Cu, 0x29C0EBBAu); /* 7.7770799578865286e-05 */
        g1 = g1 * s + RLX_X(0xBF3070E1u, 0x117CEF3Cu); /* -0.00025086874801493234 */
        g1 = g1 * s + RLX_X(0x3F499B60u, 0xE26EA6A2u); /* 0.00078146200836677984 */
        g1 = g1 * s + RLX_X(0xBF633237u, 0xC3599B5Bu); /* -0.0023432816622518788 */
        g1 = g1 * s + RLX_X(0x3F7B9958u, 0x9D46EBA8u); /* 0.0067380391596384773 */
        g1 = g1 * s + RLX_X(0xBF92EF92u, 0xF6F18AC3u); /* -0.018492027590023562 */
        g1 = g1 * s + RLX_X(0x3FA8A6EFu, 0xEED22E69u); /* 0.048148630049664139 */
        g1 = g1 * s + RLX_X(0xBFBE3658u, 0x0C7F730Fu); /* -0.11801672272799756 */
        g1 = g1 * s + RLX_X(0x3FD13E57u, 0x43B60481u); /* 0.26942998516467048 */
        g = g1;
    } else {
        precise double s = ax - 4.25;
        /* G(4.25 + s), minimax on [-1.75, 1.75] for the absolute error of erf */
        precise double g2 = RLX_X(0x3E40836Au, 0x23CD9A75u); /* 7.6896223778249472e-09 */
        g2 = g2 * s + RLX_X(0x3E6C610Cu, 0x8DACB825u); /* 5.2860188856605464e-08 */
        g2 = g2 * s + RLX_X(0x3E8EB94Du, 0x0C015FB8u); /* 2.28910385760169e-07 */
        g2 = g2 * s + RLX_X(0x3E99C6EDu, 0x6737B0A9u); /* 3.84108125943729e-07 */
        g2 = g2 * s + RLX_X(0x3EB2AA0Bu, 0xF7E2C45Bu); /* 1.1124757004872117e-06 */
        g2 = g2 * s + RLX_X(0xBEBE8769u, 0x4224A463u); /* -1.8196672120862919e-06 */
        g2 = g2 * s + RLX_X(0x3EE9411Bu, 0x2F19F16Bu); /* 1.2042198679334319e-05 */
        g2 = g2 * s + RLX_X(0xBF0EC154u, 0x157B3330u); /* -5.8660868203475026e-05 */
        g2 = g2 * s + RLX_X(0x3F32A49Cu, 0x7B4FC9C6u); /* 0.00028446979859988693 */
        g2 = g2 * s + RLX_X(0xBF563762u, 0xD2BCCF58u); /* -0.0013559784956215983 */
        g2 = g2 * s + RLX_X(0x3F79EF6Fu, 0x8B4E8FC6u); /* 0.0063318593210261506 */
        g2 = g2 * s + RLX_X(0xBF9DA395u, 0x2CFC38EAu); /* -0.028944331045800555 */
        g2 = g2 * s + RLX_X(0x3FC08E62u, 0xCED89459u); /* 0.12934527492430695 */
        g = g2;
    }
    rlx_m_dd p = rlx_m_two_prod(e, g);
    rlx_m_dd s1 = rlx_m_two_sum(1.0, -p.hi);
    precise double res = s1.hi + (s1.lo - p.lo);
    return rlx_m_copysign(res, x);
}

/* =============================================================================================================
   Single precision: the double functions rounded once.
   ============================================================================================================= */

float rlx_exp_f(float x) { return RLX_CVT(float, rlx_exp_d(RLX_CVT(double, x))); }
float rlx_log_f(float x) { return RLX_CVT(float, rlx_log_d(RLX_CVT(double, x))); }
float rlx_sin_f(float x) { return RLX_CVT(float, rlx_sin_d(RLX_CVT(double, x))); }
float rlx_cos_f(float x) { return RLX_CVT(float, rlx_cos_d(RLX_CVT(double, x))); }
float rlx_tan_f(float x) { return RLX_CVT(float, rlx_tan_d(RLX_CVT(double, x))); }
float rlx_atan_f(float x) { return RLX_CVT(float, rlx_atan_d(RLX_CVT(double, x))); }
float rlx_tanh_f(float x) { return RLX_CVT(float, rlx_tanh_d(RLX_CVT(double, x))); }
float rlx_erf_f(float x) { return RLX_CVT(float, rlx_erf_d(RLX_CVT(double, x))); }
float rlx_pow_f(float x, float y) { return RLX_CVT(float, rlx_pow_d(RLX_CVT(double, x), RLX_CVT(double, y))); }

#endif /* RLX_MATH_GLSL */
