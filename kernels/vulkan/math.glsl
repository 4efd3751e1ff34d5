/* math.glsl - elementary functions for the Vulkan kernels in double and single precision.

   GLSL has no double-precision exp/log/sin/cos/tan/atan/tanh/pow, no erf, and Vulkan allows its
   single-precision built-ins large errors (sin/cos: 2^-11 absolute). This file implements

     double rlx_exp_d(x)  rlx_log_d(x)  rlx_sin_d(x)  rlx_cos_d(x)  rlx_tan_d(x)  rlx_atan_d(x)
            rlx_tanh_d(x) rlx_erf_d(x)  rlx_pow_d(x, y)
     float  rlx_exp_f(x)  ... rlx_pow_f(x, y)   (the same names with _f)

   Accuracy (tests/test_vk_math.c, millions of inputs against an extended-precision reference): largest
   error in ulps of the double functions over the whole double range
       exp 0.59  log 0.50  pow 0.59  sin 0.75  cos 0.73  tan 0.57  atan 0.60  tanh 0.57  erf 0.83
   (documented bound: 1 ulp), sin/cos/tan included for huge arguments (Cody-Waite reduction below 2^20,
   exact Payne-Hanek reduction above, so there is no argument limit). The float functions evaluate the
   double functions and round once: within 0.5 ulp plus about 2^-29 ulp of the exact value (documented
   bound: 1 ulp), so almost always the correctly rounded result. Special cases follow C99 Annex F (as
   glibc): NaN in -> NaN out, signed zeros, log(0) = -inf, log(x < 0) = NaN, exp overflow -> inf,
   underflow -> 0 or a subnormal, tanh(+-inf) = +-1, erf(+-inf) = +-1, atan(+-inf) = +-pi/2 and all special
   cases of pow.

   Requirements and portability:
   - Double arithmetic must be IEEE binary64 with correctly rounded +, -, * (Vulkan requires it) and
     round-to-nearest-even conversions. Subnormal doubles are produced and consumed as on a CPU; a device
     that flushes double denormals returns 0 where the result would be subnormal.
   - No fma is needed: exact products use Dekker's splitting, so results do not depend on whether a
     driver fuses fma. Every double temporary is `precise`, and every result that is not a plain copy
     is computed into one: the compiler may neither contract nor reassociate the error-free
     transformations, nor simplify x * 0.0 to 0.0 (which drops the sign of zero). With a correctly
     rounded division the results are bit-identical to the C build of this file (tests/test_vk_math.c;
     checked on lavapipe); division is only ever used with a correction step, so a division that is
     off by an ulp changes results by at most an ulp.
   - Literals: GLSL reads an unsuffixed literal as float, and glslang does not paste `lf` onto a number,
     so every constant that is not exactly a float is written as its IEEE bit pattern, RLX_X(0x...ul), with
     the decimal value in a comment (`ul` is uint64_t in GLSL with GL_EXT_shader_explicit_arithmetic_types_int64
     and an unsigned 64-bit constant in C). Plain literals (0.5, 1.0, 709.8125, ...) are exact floats.
   - Tables are global arrays without `const`, never written: glslang copies a `const` array into a local
     variable at every dynamically indexed access, which some drivers (lavapipe) compile very slowly.
   - The file is also valid C99 given a small shim that defines RLX_MATH_C and the macros below
     (RLX_X, RLX_CVT, RLX_STRUCT, RLX_TABLE, RLX_TABLE_END), `precise` as nothing, `uint`, and the GLSL
     built-ins used here (doubleBitsToInt64, int64BitsToDouble, doubleBitsToUint64, uint64BitsToDouble,
     roundEven, trunc); tests/test_vk_math.c has one.
   GLSL needs GL_EXT_shader_explicit_arithmetic_types_int64 (common.glsl enables it) and shaderFloat64. */
#ifndef RLX_MATH_GLSL
#define RLX_MATH_GLSL

#ifndef RLX_MATH_C
#define RLX_X(bits) uint64BitsToDouble(bits) /* the double with this bit pattern (a uint64 literal) */
#define RLX_CVT(T, x) T(x)                   /* conversion (a constructor in GLSL, a cast in C) */
#define RLX_STRUCT(name) struct name         /* struct declaration (a typedef in C) */
#define RLX_TABLE(T, name, n) T name[n] = T[n]( /* a read-only table (not `const`: see above) */
#define RLX_TABLE_END );
#endif

/* =============================================================================================================
   Constants
   ============================================================================================================= */

#define RLX_M_INV_LN2        RLX_X(0x3FF71547652B82FEul) /* 1/ln2 = 1.4426950408889634 */
#define RLX_M_LN2_HI         RLX_X(0x3FE62E42FEFA3800ul) /* ln2, first 42 bits = 0.69314718055989033 */
#define RLX_M_LN2_LO         RLX_X(0x3D2EF35793C76730ul) /* ln2 - LN2_HI = 5.4979230187083712e-14 */
#define RLX_M_TWO_OVER_PI    RLX_X(0x3FE45F306DC9C883ul) /* 2/pi = 0.63661977236758138 */
#define RLX_M_PIO2_1         RLX_X(0x3FF921FB54400000ul) /* pi/2, bits 1-33 = 1.5707963267341256 */
#define RLX_M_PIO2_2         RLX_X(0x3DD0B4611A600000ul) /* pi/2, bits 34-66 = 6.077100506303966e-11 */
#define RLX_M_PIO2_3         RLX_X(0x3BA3198A2E000000ul) /* pi/2, bits 67-99 = 2.0222662487111665e-21 */
#define RLX_M_PIO2_4         RLX_X(0x397B839A252049C1ul) /* pi/2 - PIO2_1 - PIO2_2 - PIO2_3 = 8.4784276603688996e-32 */
#define RLX_M_PIO2_HI        RLX_X(0x3FF921FB54442D18ul) /* pi/2 = 1.5707963267948966 */
#define RLX_M_PIO2_LO        RLX_X(0x3C91A62633145C07ul) /* pi/2 - PIO2_HI = 6.123233995736766e-17 */
#define RLX_M_ATAN_HALF_HI   RLX_X(0x3FDDAC670561BB4Ful) /* atan(1/2) = 0.46364760900080609 */
#define RLX_M_ATAN_HALF_LO   RLX_X(0x3C7A2B7F222F65E2ul) /* atan(1/2) - ATAN_HALF_HI = 2.2698777452961687e-17 */
#define RLX_M_ATAN_ONE_HI    RLX_X(0x3FE921FB54442D18ul) /* pi/4 = 0.78539816339744828 */
#define RLX_M_ATAN_ONE_LO    RLX_X(0x3C81A62633145C07ul) /* pi/4 - ATAN_ONE_HI = 3.061616997868383e-17 */
#define RLX_M_ATAN_3HALF_HI  RLX_X(0x3FEF730BD281F69Bul) /* atan(3/2) = 0.98279372324732905 */
#define RLX_M_ATAN_3HALF_LO  RLX_X(0x3C7007887AF0CBBDul) /* atan(3/2) - ATAN_3HALF_HI = 1.3903311031230998e-17 */
#define RLX_M_ERF_EFX        RLX_X(0x3FC06EBA8214DB69ul) /* 2/sqrt(pi) - 1 = 0.12837916709551259 */
#define RLX_M_ERF_M0_HI      RLX_X(0x3FEB8F741EF54F83ul) /* erf(1.046875) = 0.86126142546207551 */
#define RLX_M_ERF_M0_LO      RLX_X(0x3C8FF2766BA0E81Aul) /* erf(1.046875) - ERF_M0_HI = 5.5419418103688716e-17 */
#define RLX_M_SPLIT          RLX_X(0x41A0000002000000ul) /* 2^27 + 1 (Veltkamp splitting) = 134217729 */
#define RLX_M_2P53           9007199254740992.0 /* 2^53 */
#define RLX_M_MSIXTH_HI      RLX_X(0xBFC5555555555555ul) /* -1/6 = -0.16666666666666666 */
#define RLX_M_MSIXTH_LO      RLX_X(0xBC65555555555555ul) /* -1/6 - MSIXTH_HI = -9.2518585385429707e-18 */
#define RLX_M_SIXTH          RLX_X(0x3FC5555555555555ul) /* 1/6 = 0.16666666666666666 */
#define RLX_M_LOG_OFF        0x3FE68000u /* high word of 0.703125, the start of the log table range */

#define RLX_M_INF RLX_X(0x7FF0000000000000ul)
#define RLX_M_NAN RLX_X(0x7FF8000000000000ul)
#define RLX_M_NZERO RLX_X(0x8000000000000000ul) /* -0.0 */

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
    return ((doubleBitsToUint64(x) << 1) >> 1) > 0x7FF0000000000000ul;
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

/* Q3(r) = (exp(r) - 1 - r - r^2/2) / r^3, minimax on [-0.3467, 0.3467] (shared by exp and expm1) */
double rlx_m_exp_q3(double rh) {
    precise double q = RLX_X(0x3E21F99D32131E8Aul); /* 2.0925717969153319e-09 */
    q = q * rh + RLX_X(0x3E5AF6CACD3EAE09ul); /* 2.5112211712576996e-08 */
    q = q * rh + RLX_X(0x3E927E4C2B3471A3ul); /* 2.7557238553731174e-07 */
    q = q * rh + RLX_X(0x3EC71DDEFAC9F66Eul); /* 2.7557234346099084e-06 */
    q = q * rh + RLX_X(0x3EFA01A01B204A1Cul); /* 2.4801587365239517e-05 */
    q = q * rh + RLX_X(0x3F2A01A01B3AD9BCul); /* 0.00019841269896909801 */
    q = q * rh + RLX_X(0x3F56C16C16C1413Eul); /* 0.0013888888888865104 */
    q = q * rh + RLX_X(0x3F8111111110EBE3ul); /* 0.0083333333333168221 */
    q = q * rh + RLX_X(0x3FA555555555555Aul); /* 0.041666666666666699 */
    q = q * rh + RLX_X(0x3FC555555555555Bul); /* 0.16666666666666682 */
    return q;
}

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
    precise double q = rlx_m_exp_q3(rh);
    precise double z = rh * rh;
    precise double p = z * 0.5 + z * (rh * q);
    rlx_m_dd s = rlx_m_fast_two_sum(1.0, rh);
    precise double tail = s.lo + (p + rl * ((1.0 + rh) + p));
    if (k >= -1021 && k <= 1023) {
        precise double y = (s.hi + tail) * rlx_m_pow2(k);
        return y;
    }
    if (k > 1023) {
        precise double y = ((s.hi + tail) * 2.0) * rlx_m_pow2(k - 1); /* inf when it overflows */
        return y;
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
    precise double q = rlx_m_exp_q3(rh);
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

/* Table for log: for i = 0..63, {invc, log(c) high, log(c) low} as bit patterns, where
   z in [0.703125, 1.40625) is split into 38 intervals of width 1/128 below 1 and 26 of width 1/64 above 1,
   c is near the interval's centre, invc = 1/c has 20 significant bits and log(c) = -log(invc) exactly
   (to 106 bits). The two intervals next to 1 have c = 1, so that log is accurate relative to the result
   near x = 1. */
RLX_TABLE(uint64_t, rlx_m_log_tab, 192)
    0x3FF6A13C00000000ul, 0xBFD63000BB3AA197ul, 0xBC6DA092B9908D60ul, /*  0: 1.4143638610839844 -0.34667986187062055 */
    0x3FF661EC00000000ul, 0xBFD57BF623C8CF29ul, 0x3C60950440B31E96ul, /*  1: 1.3989067077636719 -0.33569100851603878 */
    0x3FF623FA00000000ul, 0xBFD4C9DF4617289Ful, 0xBC7BB3EB76832C12ul, /*  2: 1.3837833404541016 -0.32482129902622064 */
    0x3FF5E75C00000000ul, 0xBFD419B4F3D5E775ul, 0xBC60DD206E29A1B4ul, /*  3: 1.3689842224121094 -0.3140690213400526 */
    0x3FF5AC0600000000ul, 0xBFD36B692EBE0B2Eul, 0xBC7B3D88D866E120ul, /*  4: 1.3544979095458984 -0.30343083920176894 */
    0x3FF571EE00000000ul, 0xBFD2BEF2C4DC88EBul, 0xBC5F889B0997D5F7ul, /*  5: 1.3403148651123047 -0.29290456032516826 */
    0x3FF5390A00000000ul, 0xBFD21447950EAF88ul, 0x3C70352D7AE0A4D5ul, /*  6: 1.3264255523681641 -0.28248776966460598 */
    0x3FF5015000000000ul, 0xBFD16B5C8BACFB53ul, 0xBC766FB7D35EAFE0ul, /*  7: 1.3128204345703125 -0.2721778263111691 */
    0x3FF4CAB800000000ul, 0xBFD0C42BC7615D9Bul, 0xBC514BE4F242D641ul, /*  8: 1.2994918823242188 -0.26197332831130787 */
    0x3FF4953A00000000ul, 0xBFD01EAEAE26C654ul, 0xBC7DCFBBC5B020ADul, /*  9: 1.2864322662353516 -0.25187270171145326 */
    0x3FF460CC00000000ul, 0xBFCEF5AF44DCFE02ul, 0x3C5088F7331FF106ul, /* 10: 1.2736320495605469 -0.24187270033324643 */
    0x3FF42D6600000000ul, 0xBFCDB13CC0D4885Ful, 0xBC5AA090A9F8A6F8ul, /* 11: 1.2610836029052734 -0.23197135367905994 */
    0x3FF3FB0200000000ul, 0xBFCC700096EFF848ul, 0x3C68C06412B92C3Bul, /* 12: 1.2487812042236328 -0.22216803903569571 */
    0x3FF3C99600000000ul, 0xBFCB31DAA75BC8E4ul, 0x3C66311B6E3FA070ul, /* 13: 1.2367153167724609 -0.2124589268856375 */
    0x3FF3991C00000000ul, 0xBFC9F6C2E7089520ul, 0xBC435833605B33CFul, /* 14: 1.2248802185058594 -0.20284305840429173 */
    0x3FF3698E00000000ul, 0xBFC8BEB03B38FE73ul, 0xBC555AADEBEECD25ul, /* 15: 1.2132701873779297 -0.19331934825639827 */
    0x3FF33AE400000000ul, 0xBFC7898B254446CFul, 0xBC5EF008965A8B9Cul, /* 16: 1.2018775939941406 -0.18388499564803459 */
    0x3FF30D1A00000000ul, 0xBFC657556E8BE681ul, 0x3C3A17633E4D3C0Eul, /* 17: 1.1906986236572266 -0.17454021356370578 */
    0x3FF2E02600000000ul, 0xBFC527E794A1B2B4ul, 0x3C2700F5827A3B85ul, /* 18: 1.1797237396240234 -0.16528029210475881 */
    0x3FF2B40400000000ul, 0xBFC3FB4105991368ul, 0x3C6DA8E0CEE44290ul, /* 19: 1.1689491271972656 -0.15610516331994551 */
    0x3FF288B000000000ul, 0xBFC2D1608C8680FAul, 0x3C5499B947B05EB5ul, /* 20: 1.1583709716796875 -0.14701468335716311 */
    0x3FF25E2200000000ul, 0xBFC1AA286E23EDC9ul, 0x3C4C953DEFB83259ul, /* 21: 1.1479816436767578 -0.13800530794092783 */
    0x3FF2345600000000ul, 0xBFC08595659E2F0Eul, 0x3C6DE31E33E99CF7ul, /* 22: 1.1377773284912109 -0.12907664739429275 */
    0x3FF20B4800000000ul, 0xBFBEC7470309B600ul, 0x3C4891E9A1AFEE90ul, /* 23: 1.1277542114257812 -0.12022823166054053 */
    0x3FF1E2F000000000ul, 0xBFBC886301BC0EA3ul, 0xBC5AA7B5FCB201D0ul, /* 24: 1.1179046630859375 -0.11145609657620041 */
    0x3FF1BB4A00000000ul, 0xBFBA4E72A0B1B5A6ul, 0x3C55B9C2559E6280ul, /* 25: 1.1082248687744141 -0.10275951789090829 */
    0x3FF1945400000000ul, 0xBFB819856F40C9A8ul, 0xBC3C1E34A7B6E3BDul, /* 26: 1.0987129211425781 -0.09413942304744316 */
    0x3FF16E0600000000ul, 0xBFB5E9526D9772C9ul, 0xBC5F0FC1BB6BE604ul, /* 27: 1.0893611907958984 -0.085591460948715739 */
    0x3FF1486000000000ul, 0xBFB3BE03A7D18C64ul, 0xBC4972CC16490A87ul, /* 28: 1.080169677734375 -0.077118137809109977 */
    0x3FF1235800000000ul, 0xBFB1972E5145FA47ul, 0x3C48EF9377DE8FA5ul, /* 29: 1.0711288452148438 -0.068713087885023602 */
    0x3FF0FEF000000000ul, 0xBFAEEA2FC006B77Cul, 0x3C43E5273E628117ul, /* 30: 1.0622406005859375 -0.06038045138426093 */
    0x3FF0DB2000000000ul, 0xBFAAAEDED0FAACFCul, 0xBC279A90F5FB5F96ul, /* 31: 1.053497314453125 -0.052115405092388628 */
    0x3FF0B7E600000000ul, 0xBFA67C78B2D3F3D4ul, 0xBC3CD719CDD6D5F6ul, /* 32: 1.0448970794677734 -0.043918392018873625 */
    0x3FF0954000000000ul, 0xBFA2530B2F8C883Ful, 0x3C4827F79C8158B5ul, /* 33: 1.03643798828125 -0.035789823107066791 */
    0x3FF0732600000000ul, 0xBF9C63D06C14AA2Aul, 0x3C3CE0457BDC1CA0ul, /* 34: 1.0281124114990234 -0.027724510761951184 */
    0x3FF0519800000000ul, 0xBF9432AB25980C41ul, 0x3C38CDA48E559AE8ul, /* 35: 1.0199203491210938 -0.019724535150100534 */
    0x3FF0309200000000ul, 0xBF88246DA3884D1Aul, 0xBC10CEFEBC602541ul, /* 36: 1.0118579864501953 -0.011788231423486329 */
    0x3FF0000000000000ul, 0x0000000000000000ul, 0x0000000000000000ul, /* 37: 1 0 */
    0x3FF0000000000000ul, 0x0000000000000000ul, 0x0000000000000000ul, /* 38: 1 0 */
    0x3FEF446600000000ul, 0x3F97B90E87D5C4A3ul, 0xBC35C02ED7767837ul, /* 39: 0.97709941864013672 0.023166873017036804 */
    0x3FEECC0800000000ul, 0x3FA39E82B9FEC3A0ul, 0xBC45C243E29B1A65ul, /* 40: 0.96240615844726562 0.038318715290535765 */
    0x3FEE573A00000000ul, 0x3FAB42EAB1199DA3ul, 0xBC3E5888C4DC1676ul, /* 41: 0.94814777374267578 0.053244909399661887 */
    0x3FEDE5D600000000ul, 0x3FB1653E8EA397F3ul, 0xBC3709DDBACA6CD7ul, /* 42: 0.93430614471435547 0.067951116394027442 */
    0x3FED77B600000000ul, 0x3FB51B0A1F061C61ul, 0x3C5A4BDE8F74265Bul, /* 43: 0.92086315155029297 0.082443840574442998 */
    0x3FED0CB600000000ul, 0x3FB8C341F631A2A3ul, 0xBC24CD620018BDF8ul, /* 44: 0.90780162811279297 0.096729395490579281 */
    0x3FECA4B400000000ul, 0x3FBC5E4BCF5BED8Bul, 0x3C34F6C94A902B1Ful, /* 45: 0.89510536193847656 0.11081384479978433 */
    0x3FEC3F9000000000ul, 0x3FBFEC8831DC133Bul, 0xBC55B12B97E7A378ul, /* 46: 0.88275909423828125 0.12470294205929815 */
    0x3FEBDD2C00000000ul, 0x3FC1B728B52F6C24ul, 0x3C547C9C89DC86D9ul, /* 47: 0.87074851989746094 0.13840206953941092 */
    0x3FEB7D6C00000000ul, 0x3FC371FD401E90B8ul, 0x3C5DE7BE62B0B2B0ul, /* 48: 0.85906028747558594 0.15191617613630171 */
    0x3FEB203600000000ul, 0x3FC526E713A1B5A1ul, 0xBC674670A4F0B95Cul, /* 49: 0.84768199920654297 0.16524971445634853 */
    0x3FEAC57000000000ul, 0x3FC6D6106719D25Dul, 0xBC6CAAD7BE421ECEul, /* 50: 0.83660125732421875 0.17840771707746486 */
    0x3FEA6D0200000000ul, 0x3FC87F9EB520CBEAul, 0xBC6BF997CF9C7FA2ul, /* 51: 0.82580661773681641 0.19139465183397358 */
    0x3FEA16D400000000ul, 0x3FCA23BBFFE2B567ul, 0x3C49371105CFEF01ul, /* 52: 0.81528663635253906 0.20421552652752981 */
    0x3FE9C2D200000000ul, 0x3FCBC283042D98A7ul, 0x3C54E1D2FA680548ul, /* 53: 0.80503177642822266 0.21687352851876548 */
    0x3FE970E400000000ul, 0x3FCD5C264B4FD355ul, 0x3C670AE1DA98B451ul, /* 54: 0.79503059387207031 0.22937468221030125 */
    0x3FE920FC00000000ul, 0x3FCEF0AA2BDC665Aul, 0x3C647656C00EC33Dul, /* 55: 0.78527641296386719 0.24171950475356391 */
    0x3FE8D30200000000ul, 0x3FD040246CB4D2EDul, 0x3C76B68F5189FA7Bul, /* 56: 0.77575778961181641 0.25391493430951934 */
    0x3FE886E600000000ul, 0x3FD1058BD1AE4AE2ul, 0xBC79D819228227F2ul, /* 57: 0.76646709442138672 0.26596351124423567 */
    0x3FE83C9800000000ul, 0x3FD1C89761699DC3ul, 0xBC311D3B7F6FAD9Eul, /* 58: 0.75739669799804688 0.27786812317796378 */
    0x3FE7F40600000000ul, 0x3FD2895A0BDE86A4ul, 0xBC60A5B682D74D38ul, /* 59: 0.74853801727294922 0.28963328513246211 */
    0x3FE7AD2200000000ul, 0x3FD347DDB2987D59ul, 0x3C75915A1BFB7318ul, /* 60: 0.73988437652587891 0.3012613529299038 */
    0x3FE767DC00000000ul, 0x3FD40432F686B3C6ul, 0xBC70A9AC1FF59AE5ul, /* 61: 0.73142814636230469 0.31275629114935233 */
    0x3FE7242800000000ul, 0x3FD4BE60F5777C69ul, 0xBC6252C4B03D3E12ul, /* 62: 0.72316360473632812 0.32411979647981198 */
    0x3FE6E1F800000000ul, 0x3FD5767577455FB4ul, 0x3C7520F507F49FA1ul /* 63: 0.71508407592773438 0.33535515449102182 */
RLX_TABLE_END

/* log(x) as a double-double (relative error below 2^-68) for finite x > 0, subnormals included.
   x = 2^e z with z in [0.703125, 1.40625) (subnormals go through their integer significand, so that a device
   that flushes denormal operands gets them right too), z in interval i with table constants invc, log(c):
   r = z invc - 1 is computed exactly (z is split into a 33-bit head and a 20-bit tail; invc has 20 bits),
   log(x) = e ln2 + log(c) + log1p(r), log1p(r) = r - r^2/2 + r^3 P(r), |r| < 2^-6, with every term that is
   larger than 2^-70 |log(x)| summed exactly. */
rlx_m_dd rlx_m_log_dd(double x) {
    int64_t ix = doubleBitsToInt64(x);
    int64_t esub = 0;
    if (ix < (RLX_CVT(int64_t, 1) << 52)) { /* subnormal: x = m 2^-1074 with the integer m = ix, converted exactly */
        ix = doubleBitsToInt64(RLX_CVT(double, ix));
        esub = 1074;
    }
    int64_t tmp = ix - (RLX_CVT(int64_t, RLX_M_LOG_OFF) << 32);
    int i = RLX_CVT(int, (tmp >> 46) & 63);
    int64_t e = tmp >> 52;
    int64_t iz = ix - e * (RLX_CVT(int64_t, 1) << 52);
    precise double z = int64BitsToDouble(iz);
    precise double zh = int64BitsToDouble(iz & ~RLX_CVT(int64_t, 0xFFFFF));
    precise double zl = z - zh;
    precise double invc = RLX_X(rlx_m_log_tab[3 * i]);
    precise double logch = RLX_X(rlx_m_log_tab[3 * i + 1]);
    precise double logcl = RLX_X(rlx_m_log_tab[3 * i + 2]);
    precise double ed = RLX_CVT(double, e - esub);
    /* r = rr + rre exactly */
    precise double rh = zh * invc - 1.0;
    precise double rl = zl * invc;
    rlx_m_dd r = rlx_m_two_sum(rh, rl);
    precise double rr = r.hi;
    /* P(r) = (log1p(r) - r + r^2/2) / r^3, minimax on [-0.0079, 0.0157] */
    precise double p = RLX_X(0x3FBB89F9C55C8010ul); /* 0.10757409160987685 */
    p = p * rr + RLX_X(0xBFBFFE383694F038ul); /* -0.12497283299029582 */
    p = p * rr + RLX_X(0x3FC24926FAEAFCF6ul); /* 0.14285742999889067 */
    p = p * rr + RLX_X(0xBFC555555D3A7238ul); /* -0.16666667034304949 */
    p = p * rr + RLX_X(0x3FC99999999794EFul); /* 0.19999999999632886 */
    p = p * rr + RLX_X(0xBFCFFFFFFFFFF193ul); /* -0.2499999999998975 */
    p = p * rr + RLX_X(0x3FD5555555555555ul); /* 0.33333333333333331 */
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
    if (ph > 709.8125) return rlx_m_copysign(RLX_M_INF, sign);
    if (ph < -745.25) return rlx_m_copysign(0.0, sign);
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
    precise double s = RLX_X(0xBD6AAA074C653CC8ul); /* -7.5784140179415589e-13 */
    s = s * z + RLX_X(0x3DE6120892590A22ul); /* 1.6058360992844813e-10 */
    s = s * z + RLX_X(0xBE5AE6452898741Cul); /* -2.5052104868113028e-08 */
    s = s * z + RLX_X(0x3EC71DE3A532E55Aul); /* 2.7557319214026572e-06 */
    s = s * z + RLX_X(0xBF2A01A01A018A5Dul); /* -0.00019841269841254757 */
    s = s * z + RLX_X(0x3F8111111111110Bul); /* 0.0083333333333333228 */
    s = s * z + RLX_X(0xBFC5555555555555ul); /* -0.16666666666666666 */
    precise double tail = rh * (z * s) + (rl - rl * (0.5 * z));
    return rlx_m_fast_two_sum(rh, tail);
}

/* cos(rh + rl) for |rh| <= pi/4 + 2^-40: 1 - rh^2/2 + rh^4 C(rh^2) - rl rh (1 - rh^2/6) with rh^2 exact and
   1 - rh^2/2 summed exactly, as a double-double. */
rlx_m_dd rlx_m_cos_k(double rh, double rl) {
    rlx_m_dd zz = rlx_m_two_prod(rh, rh);
    precise double z = zz.hi;
    /* C(z) = (cos(r) - 1 + r^2/2) / r^4 with z = r^2, minimax on [0, 0.62] for the absolute error of cos */
    precise double c = RLX_X(0xBDA8FA9B9A4C0047ul); /* -1.1359105341905599e-11 */
    c = c * z + RLX_X(0x3E21EE9E2C8336DEul); /* 2.0875713138173987e-09 */
    c = c * z + RLX_X(0xBE927E4F7FCFDDEAul); /* -2.7557314280455704e-07 */
    c = c * z + RLX_X(0x3EFA01A019CA0881ul); /* 2.4801587289243358e-05 */
    c = c * z + RLX_X(0xBF56C16C16C150D5ul); /* -0.0013888888888873758 */
    c = c * z + RLX_X(0x3FA555555555554Bul); /* 0.041666666666666595 */
    precise double hz = 0.5 * z;
    precise double w = 1.0 - hz;
    precise double tail = (((1.0 - w) - hz) - 0.5 * zz.lo) + ((z * z) * c - (rh * rl) * (1.0 - z * RLX_M_SIXTH));
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

/* sin(rh + rl) to about 2^-60 for tan, where the error of sin is not rounded away: as rlx_m_sin_k with
   rh^3 exact and its leading coefficient -1/6 as a double-double: sin = rh + rh^3 (-1/6) + rh^5 S1(rh^2)
   + rl (1 - rh^2/2). */
rlx_m_dd rlx_m_sin_k_dd(double rh, double rl) {
    rlx_m_dd zz = rlx_m_two_prod(rh, rh);
    precise double z = zz.hi;
    /* S1(z) = (sin(r) - r + r^3/6) / r^5 with z = r^2, minimax on [0, 0.62] for the relative error of sin */
    precise double s1 = RLX_X(0xBD6AACC5D35F1275ul); /* -7.5814607442228685e-13 */
    s1 = s1 * z + RLX_X(0x3DE6120EBBCAF242ul); /* 1.6058429403614406e-10 */
    s1 = s1 * z + RLX_X(0xBE5AE6453388B35Eul); /* -2.5052105475319826e-08 */
    s1 = s1 * z + RLX_X(0x3EC71DE3A53C98A3ul); /* 2.7557319216718955e-06 */
    s1 = s1 * z + RLX_X(0xBF2A01A01A019344ul); /* -0.00019841269841260935 */
    s1 = s1 * z + RLX_X(0x3F8111111111110Ful); /* 0.0083333333333333297 */
    rlx_m_dd c = rlx_m_two_prod(rh, z); /* rh^3 = c.hi + cl */
    precise double cl = c.lo + rh * zz.lo;
    rlx_m_dd a = rlx_m_two_prod(c.hi, RLX_M_MSIXTH_HI); /* -rh^3/6 = a.hi + al */
    precise double al = a.lo + (c.hi * RLX_M_MSIXTH_LO + cl * RLX_M_MSIXTH_HI);
    rlx_m_dd s = rlx_m_fast_two_sum(rh, a.hi);
    precise double lo = s.lo + (al + c.hi * (z * s1) + (rl - rl * (0.5 * z)));
    return rlx_m_fast_two_sum(s.hi, lo);
}

/* tan = sin / cos (q even) or -cos / sin (q odd) of the reduced argument, divided in double-double. */
double rlx_tan_d(double x) {
    uint ahi = rlx_m_ahi(x);
    if (ahi >= 0x7FF00000u) return rlx_m_isnan(x) ? x : RLX_M_NAN;
    if (ahi < 0x3E400000u) return x; /* |x| < 2^-27: tan(x) rounds to x */
    rlx_m_red red = (ahi < 0x3FE80000u) ? rlx_m_red_make(x, 0.0, 0) : rlx_m_rem_pio2(x);
    rlx_m_dd s = rlx_m_sin_k_dd(red.hi, red.lo);
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
    precise double a = RLX_X(0x3F8C0AE24EAEE830ul); /* 0.013692634607526427 */
    a = a * z + RLX_X(0xBFA0575795C4EA8Dul); /* -0.031916367561696558 */
    a = a * z + RLX_X(0x3FA6B26A65DDAC35ul); /* 0.044329953131488166 */
    a = a * z + RLX_X(0xBFAA9FDE337A360Eul); /* -0.052000945838795429 */
    a = a * z + RLX_X(0x3FAE133136655E1Cul); /* 0.05874017514241478 */
    a = a * z + RLX_X(0xBFB11090D95C4EFFul); /* -0.066659024302051492 */
    a = a * z + RLX_X(0x3FB3B132FED7F2BEul); /* 0.076922595231688512 */
    a = a * z + RLX_X(0xBFB745D11CFEB880ul); /* -0.090909070566995709 */
    a = a * z + RLX_X(0x3FBC71C71A168976ul); /* 0.11111111056246678 */
    a = a * z + RLX_X(0xBFC2492492445D9Ful); /* -0.14285714284845327 */
    a = a * z + RLX_X(0x3FC9999999998FDFul); /* 0.19999999999993087 */
    a = a * z + RLX_X(0xBFD5555555555552ul); /* -0.33333333333333315 */
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

/* |x| < 0.84375:  erf(x) = x + x P(x^2), x^2 as a double-double;
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
        rlx_m_dd zz = rlx_m_two_prod(x, x);
        precise double z = zz.hi;
        /* P(z) = erf(x) / x - 1 with z = x^2, minimax on [0, 0.712] */
        precise double p = RLX_X(0xBE0E850E6C6060DEul); /* -8.882416683711447e-10 */
        p = p * z + RLX_X(0x3E4E823236D79FEBul); /* 1.4206664035240177e-08 */
        p = p * z + RLX_X(0xBE85E1C3686F9B7Aul); /* -1.6303276970040687e-07 */
        p = p * z + RLX_X(0x3EBB9CA0BDFD41B5ul); /* 1.6457931834753618e-06 */
        p = p * z + RLX_X(0xBEEF4D0C3C93A26Dul); /* -1.4925464613972314e-05 */
        p = p * z + RLX_X(0x3F1F9A317CD05B14ul); /* 0.00012055327461300516 */
        p = p * z + RLX_X(0xBF4C02DB3A111032ul); /* -0.00085483269152364914 */
        p = p * z + RLX_X(0x3F7565BCD0CEF5F6ul); /* 0.0052239776240958682 */
        p = p * z + RLX_X(0xBF9B82CE31281BF7ul); /* -0.026866170645032352 */
        p = p * z + RLX_X(0x3FBCE2F21A042AD3ul); /* 0.1128379167095475 */
        p = p * z + RLX_X(0xBFD812746B0379E6ul); /* -0.37612638903183748 */
        p = p * z + RLX_X(0x3FC06EBA8214DB69ul); /* 0.12837916709551259 */
        /* P(z + zl) ~ P(z) + zl P'(z), P'(z) ~ P1 + 2 P2 z: the rounding of x^2 would cost 0.3 ulp */
        precise double pc = p + zz.lo * (RLX_X(0xBFD812746B0379E6ul) + (2.0 * RLX_X(0x3FBCE2F21A042AD3ul)) * z);
        precise double res = x + x * pc;
        return res;
    }
    if (ax < 1.25) {
        precise double s = ax - 1.046875;
        /* R(s) = erf(m + s) - erf(m), minimax on [-0.203125, 0.203125] */
        precise double r = RLX_X(0x3F00ABB8CCB9EB56ul); /* 3.1797005786557655e-05 */
        r = r * s + RLX_X(0xBF27C6EAD81A9A34ul); /* -0.00018140427350950424 */
        r = r * s + RLX_X(0xBEF7FC9C4D841EAAul); /* -2.2875556937611515e-05 */
        r = r * s + RLX_X(0x3F5458D11A778764ul); /* 0.0012418787026650885 */
        r = r * s + RLX_X(0xBF555F6E9D7113A0ul); /* -0.0013044910645174448 */
        r = r * s + RLX_X(0xBF7652D9F85DCB69ul); /* -0.0054501070461466595 */
        r = r * s + RLX_X(0x3F8B180D14601A4Dul); /* 0.013229467567737485 */
        r = r * s + RLX_X(0x3F82FF4A0E593969ul); /* 0.00927598816192861 */
        r = r * s + RLX_X(0xBFB1351D7E79C96Bul); /* -0.067216723802436526 */
        r = r * s + RLX_X(0x3FAB39ADC180F650ul); /* 0.053174428816856634 */
        r = r * s + RLX_X(0x3FC32DBB309984EBul); /* 0.1498331057837626 */
        r = r * s + RLX_X(0xBFD9448921B8891Aul); /* -0.39480808537531831 */
        r = r * s + RLX_X(0x3FD822E655B417E6ul); /* 0.377130111403288 */
        r = r * s + RLX_X(0x3C2186DACDF250C8ul); /* 4.7506422058420577e-19 */
        precise double res = RLX_M_ERF_M0_HI + (RLX_M_ERF_M0_LO + r);
        return rlx_m_copysign(res, x);
    }
    rlx_m_dd zz = rlx_m_two_prod(ax, ax);
    precise double e = rlx_m_exp_dd(-zz.hi, -zz.lo);
    precise double g;
    if (ax < 2.5) {
        precise double s = ax - 1.875;
        /* G(1.875 + s), minimax on [-0.625, 0.625] for the absolute error of erf */
        precise double g1 = RLX_X(0xBE4BD50B528E3ECFul); /* -1.2960379951344633e-08 */
        g1 = g1 * s + RLX_X(0x3E65DA385FC95BF6ul); /* 4.0703309143914564e-08 */
        g1 = g1 * s + RLX_X(0xBE82B207E5E828F5ul); /* -1.3929183047295399e-07 */
        g1 = g1 * s + RLX_X(0x3EA1C8FA109C1871ul); /* 5.3003626129876826e-07 */
        g1 = g1 * s + RLX_X(0xBEC02C61F47B1C8Dul); /* -1.928015908567491e-06 */
        g1 = g1 * s + RLX_X(0x3EDC85DABC08DAEBul); /* 6.8003818687798006e-06 */
        g1 = g1 * s + RLX_X(0xBEF87A4143ABE802ul); /* -2.3343618731332123e-05 */
        g1 = g1 * s + RLX_X(0x3F14631C29C0EBBAul); /* 7.7770799578865286e-05 */
        g1 = g1 * s + RLX_X(0xBF3070E1117CEF3Cul); /* -0.00025086874801493234 */
        g1 = g1 * s + RLX_X(0x3F499B60E26EA6A2ul); /* 0.00078146200836677984 */
        g1 = g1 * s + RLX_X(0xBF633237C3599B5Bul); /* -0.0023432816622518788 */
        g1 = g1 * s + RLX_X(0x3F7B99589D46EBA8ul); /* 0.0067380391596384773 */
        g1 = g1 * s + RLX_X(0xBF92EF92F6F18AC3ul); /* -0.018492027590023562 */
        g1 = g1 * s + RLX_X(0x3FA8A6EFEED22E69ul); /* 0.048148630049664139 */
        g1 = g1 * s + RLX_X(0xBFBE36580C7F730Ful); /* -0.11801672272799756 */
        g1 = g1 * s + RLX_X(0x3FD13E5743B60481ul); /* 0.26942998516467048 */
        g = g1;
    } else {
        precise double s = ax - 4.25;
        /* G(4.25 + s), minimax on [-1.75, 1.75] for the absolute error of erf */
        precise double g2 = RLX_X(0x3E40836A23CD9A75ul); /* 7.6896223778249472e-09 */
        g2 = g2 * s + RLX_X(0x3E6C610C8DACB825ul); /* 5.2860188856605464e-08 */
        g2 = g2 * s + RLX_X(0x3E8EB94D0C015FB8ul); /* 2.28910385760169e-07 */
        g2 = g2 * s + RLX_X(0x3E99C6ED6737B0A9ul); /* 3.84108125943729e-07 */
        g2 = g2 * s + RLX_X(0x3EB2AA0BF7E2C45Bul); /* 1.1124757004872117e-06 */
        g2 = g2 * s + RLX_X(0xBEBE87694224A463ul); /* -1.8196672120862919e-06 */
        g2 = g2 * s + RLX_X(0x3EE9411B2F19F16Bul); /* 1.2042198679334319e-05 */
        g2 = g2 * s + RLX_X(0xBF0EC154157B3330ul); /* -5.8660868203475026e-05 */
        g2 = g2 * s + RLX_X(0x3F32A49C7B4FC9C6ul); /* 0.00028446979859988693 */
        g2 = g2 * s + RLX_X(0xBF563762D2BCCF58ul); /* -0.0013559784956215983 */
        g2 = g2 * s + RLX_X(0x3F79EF6F8B4E8FC6ul); /* 0.0063318593210261506 */
        g2 = g2 * s + RLX_X(0xBF9DA3952CFC38EAul); /* -0.028944331045800555 */
        g2 = g2 * s + RLX_X(0x3FC08E62CED89459ul); /* 0.12934527492430695 */
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
