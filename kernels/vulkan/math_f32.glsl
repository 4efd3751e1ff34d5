/* math_f32.glsl - single-precision elementary functions for the Vulkan kernels, without double precision or
   64-bit integers (no shaderFloat64, no shaderInt64): only float, int and uint arithmetic.

     float rlx_exp_f32(x)  rlx_log_f32(x)  rlx_sin_f32(x)  rlx_cos_f32(x)  rlx_tan_f32(x)  rlx_atan_f32(x)
           rlx_tanh_f32(x) rlx_erf_f32(x)  rlx_pow_f32(x, y)

   These are the f32 counterparts of math.glsl's _f functions (which evaluate in double and round once), for
   devices without shaderFloat64 and for full-rate float math. Accuracy (tests/test_vk_f32math.c, the file
   compiled as C: dense and random inputs over the whole float range and hard ranges, against libm's double
   functions): every function within 1 ulp of the exact result (documented bound; measured maxima: exp 0.74,
   log 0.50, pow 0.77, sin 0.77, cos 0.80, tan 0.92, atan 0.66, tanh 0.95, erf 0.81), as math.glsl's float
   functions and glibc's expf ... powf (the CPU backend's element math). Special
   cases follow C99 Annex F (NaN in -> NaN out, signed zeros, log(0) = -inf, log(x < 0) = NaN, exp overflow
   -> inf, underflow -> 0 or a subnormal, tanh/erf(+-inf) = +-1, atan(+-inf) = +-pi/2, and the special-case
   table of pow).

   Method: float-float arithmetic (a value as the unevaluated sum hi + lo of two floats) where a plain float
   would lose the last bit: exact products by Dekker's splitting (no fma needed, so results do not depend on
   whether a driver fuses), exact sums by Knuth's two-sum. exp reduces by k*ln2 with ln2 in three parts; log
   evaluates 2*atanh(f/(2+f)) in float-float (relative error about 2^-40, which pow needs); sin, cos and tan
   reduce every argument above pi/4 exactly (Payne-Hanek with 32-bit integer products of the bits of 2/pi: no
   argument limit); atan reduces to |t| < 7/16 around atan(1/2), atan(1), atan(3/2) and pi/2; tanh is
   expm1(2x) / (expm1(2x) + 2) below 1 and 1 - 2/(exp(2x) + 1) above; erf is its Maclaurin series below 1/2
   and a degree-8 Taylor polynomial around the centre of each 1/4-wide interval of [1/2, 4) (coefficients from
   mpmath, the centre value as float-float) above, 1 from 4 on; pow is exp(y * log(x)) in float-float.

   Requirements: IEEE binary32 +, -, * correctly rounded (Vulkan requires it), round-to-nearest-even
   conversions; every division is followed by a correction step, so a division off by an ulp costs little.
   Denormals are kept where subnormal results are wanted (a device that flushes float denormals returns 0
   there). Every float-float temporary is `precise`: the compiler may neither contract nor reassociate the
   error-free transformations.
   The file is also valid C99 given a shim that defines RLX_MATH_C, `precise`, `uint`, RLX_MF_CVT, RLX_MF_STRUCT,
   RLX_MF_TABLE, RLX_MF_TABLE_END and the GLSL built-ins floatBitsToUint, uintBitsToFloat and roundEven (for
   float); tests/test_vk_f32math.c has one. Literals carry the `f` suffix (GLSL and C read it alike). */
#ifndef RLX_MATH_F32_GLSL
#define RLX_MATH_F32_GLSL

#ifndef RLX_MATH_C
#define RLX_MF_CVT(T, x) T(x)
#define RLX_MF_STRUCT(name) struct name
#define RLX_MF_TABLE(T, name, n) T name[n] = T[n](   /* not `const`: see math.glsl */
#define RLX_MF_TABLE_END );
#endif

/* ---- float-float building blocks ----------------------------------------------------------------------- */

RLX_MF_STRUCT(rlx_mf_ff) { float hi; float lo; };
RLX_MF_STRUCT(rlx_mf_u2) { uint hi; uint lo; };

rlx_mf_ff rlx_mf_make(float h, float l) {
    rlx_mf_ff r;
    r.hi = h;
    r.lo = l;
    return r;
}
bool rlx_mf_isnan(float x) { return (floatBitsToUint(x) & 0x7FFFFFFFu) > 0x7F800000u; }
float rlx_mf_abs(float x) { return uintBitsToFloat(floatBitsToUint(x) & 0x7FFFFFFFu); }
float rlx_mf_pow2(int k) { return uintBitsToFloat(RLX_MF_CVT(uint, k + 127) << 23u); } /* -126 <= k <= 127 */
/* y * 2^k for -152 <= k <= 128 with one rounding (the first product is exact) */
float rlx_mf_ldexp(float y, int k) {
    int k1 = k / 2;
    precise float t = y * rlx_mf_pow2(k1);
    precise float r = t * rlx_mf_pow2(k - k1);
    return r;
}
rlx_mf_ff rlx_mf_two_sum(float a, float b) {
    precise float s = a + b;
    precise float bb = s - a;
    precise float e = (a - (s - bb)) + (b - bb);
    return rlx_mf_make(s, e);
}
rlx_mf_ff rlx_mf_fast_two_sum(float a, float b) { /* |a| >= |b| or a = 0 */
    precise float s = a + b;
    precise float e = b - (s - a);
    return rlx_mf_make(s, e);
}
rlx_mf_ff rlx_mf_split(float a) { /* a = hi + lo, each of at most 12 significant bits (|a| < 2^115) */
    precise float c = 4097.0f * a;
    precise float h = c - (c - a);
    precise float l = a - h;
    return rlx_mf_make(h, l);
}
rlx_mf_ff rlx_mf_two_prod(float a, float b) { /* a * b exactly, barring overflow and underflow */
    rlx_mf_ff as = rlx_mf_split(a);
    rlx_mf_ff bs = rlx_mf_split(b);
    precise float p = a * b;
    precise float e = ((as.hi * bs.hi - p) + as.hi * bs.lo + as.lo * bs.hi) + as.lo * bs.lo;
    return rlx_mf_make(p, e);
}
rlx_mf_ff rlx_mf_add(rlx_mf_ff a, rlx_mf_ff b) {
    rlx_mf_ff s = rlx_mf_two_sum(a.hi, b.hi);
    precise float l = s.lo + (a.lo + b.lo);
    return rlx_mf_fast_two_sum(s.hi, l);
}
rlx_mf_ff rlx_mf_mul(rlx_mf_ff a, rlx_mf_ff b) {
    rlx_mf_ff p = rlx_mf_two_prod(a.hi, b.hi);
    precise float l = p.lo + (a.hi * b.lo + a.lo * b.hi);
    return rlx_mf_fast_two_sum(p.hi, l);
}
rlx_mf_ff rlx_mf_div(rlx_mf_ff a, rlx_mf_ff b) { /* a / b, with a correction step */
    precise float q = a.hi / b.hi;
    rlx_mf_ff p = rlx_mf_two_prod(q, b.hi);
    precise float r = (((a.hi - p.hi) - p.lo) + a.lo) - q * b.lo;
    precise float ql = r / b.hi;
    return rlx_mf_fast_two_sum(q, ql);
}

#define RLX_MF_LN2_HI 0.693145752f    /* ln2 to 16 bits: k * LN2_HI is exact for |k| < 256 */
#define RLX_MF_LN2_MID 1.4286068e-06f /* ln2 - LN2_HI, rounded */
#define RLX_MF_LN2_LO 5.497923e-14f   /* ln2 - LN2_HI - LN2_MID */
#define RLX_MF_INV_LN2 1.44269502f
#define RLX_MF_PIO2_HI 1.57079637f    /* pi/2 = PIO2_HI + PIO2_LO */
#define RLX_MF_PIO2_LO -4.37113883e-08f
#define RLX_MF_INF uintBitsToFloat(0x7F800000u)
#define RLX_MF_NAN uintBitsToFloat(0x7FC00000u)

/* ---- exp, expm1 ------------------------------------------------------------------------------------------ */

/* r = x - k ln2 (float-float, |r| <= 0.35) for x = xh + xl and k = roundEven(xh / ln2) */
rlx_mf_ff rlx_mf_exp_reduce(float xh, float xl, int k) {
    float fk = RLX_MF_CVT(float, k);
    precise float r0 = xh - fk * RLX_MF_LN2_HI; /* exact */
    rlx_mf_ff pm = rlx_mf_two_prod(fk, RLX_MF_LN2_MID);
    rlx_mf_ff t = rlx_mf_two_sum(r0, -pm.hi);
    precise float tl = t.lo + ((xl - pm.lo) - fk * RLX_MF_LN2_LO);
    return rlx_mf_fast_two_sum(t.hi, tl);
}
/* exp(r) - 1 - r.hi for |r| <= 0.35, float-accurate (it is at most r^2/1.6) */
float rlx_mf_expm1_tail(rlx_mf_ff r) {
    float rh = r.hi;
    precise float q = 0.5f + rh * (0.166666672f + rh * (0.0416666679f + rh * (0.00833333377f +
                      rh * (0.00138888892f + rh * (0.000198412701f + rh * (2.48015876e-05f + rh * 2.75573188e-06f))))));
    precise float c = rh * rh * q + (rh * r.lo + r.lo);
    return c;
}
/* exp(xh + xl) rounded once (|xl| <= ulp(xh)); xh is not NaN */
float rlx_mf_exp_ff(float xh, float xl) {
    if (xh > 89.0f) return RLX_MF_INF;
    if (xh < -104.0f) return 0.0f;
    int k = RLX_MF_CVT(int, roundEven(xh * RLX_MF_INV_LN2));
    rlx_mf_ff r = rlx_mf_exp_reduce(xh, xl, k);
    float c = rlx_mf_expm1_tail(r);
    rlx_mf_ff s = rlx_mf_two_sum(1.0f, r.hi);
    precise float y = s.hi + (s.lo + c);
    return rlx_mf_ldexp(y, k);
}
float rlx_exp_f32(float x) {
    if (rlx_mf_isnan(x)) return x + x;
    return rlx_mf_exp_ff(x, 0.0f);
}
/* exp(x) - 1 in float-float for 0 <= x <= 2.1 */
rlx_mf_ff rlx_mf_expm1_ff(float x) {
    int k = RLX_MF_CVT(int, roundEven(x * RLX_MF_INV_LN2));
    rlx_mf_ff r = rlx_mf_exp_reduce(x, 0.0f, k);
    float c = rlx_mf_expm1_tail(r);
    rlx_mf_ff p = rlx_mf_two_sum(r.hi, c); /* exp(r) - 1 = p, |p| < 0.42 */
    float sc = rlx_mf_pow2(k);
    rlx_mf_ff a = rlx_mf_two_sum(sc - 1.0f, sc * p.hi); /* 2^k (1 + p) - 1, 2^k - 1 exact (k <= 3) */
    precise float l = a.lo + sc * p.lo;
    return rlx_mf_fast_two_sum(a.hi, l);
}

/* ---- log ------------------------------------------------------------------------------------------------- */

/* ln(x) in float-float for a finite x > 0 (relative error about 2^-40) */
rlx_mf_ff rlx_mf_log_ff(float x) {
    uint u = floatBitsToUint(x);
    int e = 0;
    if (u < 0x00800000u) { /* subnormal */
        u = floatBitsToUint(x * 8388608.0f);
        e = -23;
    }
    e += RLX_MF_CVT(int, u >> 23u) - 127;
    float m = uintBitsToFloat((u & 0x007FFFFFu) | 0x3F800000u);
    if (m > 1.41421354f) {
        m *= 0.5f;
        e += 1;
    }
    precise float f = m - 1.0f; /* exact */
    rlx_mf_ff d = rlx_mf_two_sum(2.0f, f);
    rlx_mf_ff s = rlx_mf_div(rlx_mf_make(f, 0.0f), d); /* s = f / (2 + f), |s| < 0.1716 */
    rlx_mf_ff z = rlx_mf_mul(s, s);
    float zh = z.hi;
    precise float t2 = zh * zh * (0.4f + zh * (0.285714298f + zh * (0.222222224f + zh * (0.181818187f +
                       zh * (0.153846160f + zh * 0.13333334f)))));
    rlx_mf_ff t1 = rlx_mf_mul(z, rlx_mf_make(0.6666667f, -1.9868216e-08f));
    rlx_mf_ff t = rlx_mf_add(t1, rlx_mf_make(t2, 0.0f)); /* 2s^2/3 + 2s^4/5 + ... */
    rlx_mf_ff st = rlx_mf_mul(s, t);
    rlx_mf_ff l = rlx_mf_add(rlx_mf_make(2.0f * s.hi, 2.0f * s.lo), st); /* 2 atanh(s) = log(1 + f) */
    float fe = RLX_MF_CVT(float, e);
    rlx_mf_ff el = rlx_mf_add(rlx_mf_make(fe * RLX_MF_LN2_HI, 0.0f), rlx_mf_two_prod(fe, RLX_MF_LN2_MID));
    el.lo += fe * RLX_MF_LN2_LO;
    return rlx_mf_add(el, l);
}
float rlx_log_f32(float x) {
    if (rlx_mf_isnan(x)) return x + x;
    if (x < 0.0f) return RLX_MF_NAN;
    if (x == 0.0f) return -RLX_MF_INF;
    if (x == RLX_MF_INF) return x;
    return rlx_mf_log_ff(x).hi;
}

/* ---- pow ------------------------------------------------------------------------------------------------- */

/* 0: y is not an integer, 1: an odd integer, 2: an even integer (y finite) */
int rlx_mf_int_kind(float y) {
    float a = rlx_mf_abs(y);
    if (a >= 16777216.0f) return 2;
    int i = RLX_MF_CVT(int, a);
    if (RLX_MF_CVT(float, i) != a) return 0;
    return (i & 1) != 0 ? 1 : 2;
}
float rlx_pow_f32(float x, float y) {
    if (y == 0.0f || x == 1.0f) return 1.0f;
    if (rlx_mf_isnan(x) || rlx_mf_isnan(y)) return x + y;
    float ax = rlx_mf_abs(x), ay = rlx_mf_abs(y);
    if (ay == RLX_MF_INF) {
        if (ax == 1.0f) return 1.0f;
        return (ax < 1.0f) == (y < 0.0f) ? RLX_MF_INF : 0.0f;
    }
    int yk = rlx_mf_int_kind(y);
    bool neg = (floatBitsToUint(x) & 0x80000000u) != 0u;
    if (ax == 0.0f || ax == RLX_MF_INF) { /* x = +-0 or +-inf */
        float r = (ax == 0.0f) == (y < 0.0f) ? RLX_MF_INF : 0.0f;
        return neg && yk == 1 ? -r : r;
    }
    float sign = 1.0f;
    if (neg) {
        if (yk == 0) return RLX_MF_NAN;
        if (yk == 1) sign = -1.0f;
    }
    if (ax == 1.0f) return sign; /* x = -1 (log 0: y * 0 below would split an overflowing y) */
    rlx_mf_ff l = rlx_mf_log_ff(ax);
    precise float ph = y * l.hi;
    if (ph > 200.0f) return sign * RLX_MF_INF;
    if (ph < -200.0f) return sign * 0.0f;
    rlx_mf_ff p = rlx_mf_two_prod(y, l.hi);
    precise float pl = p.lo + y * l.lo;
    rlx_mf_ff q = rlx_mf_fast_two_sum(p.hi, pl);
    return sign * rlx_mf_exp_ff(q.hi, q.lo);
}

/* ---- sin, cos, tan --------------------------------------------------------------------------------------- */

/* the bits of 2/pi after the binary point, 32 a word, behind two zero words (arguments near pi/4 start there) */
RLX_MF_TABLE(uint, rlx_mf_two_over_pi, 10)
    0u, 0u, 0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, 0xDB629599u, 0x3C439041u, 0xFE5163ABu, 0xDEBBC561u
RLX_MF_TABLE_END

/* 32 bits of that string from bit i (0-based; the first bit of 2/pi is bit 64) */
uint rlx_mf_tpi_bits(int i) {
    int w = i >> 5, s = i & 31;
    uint a = rlx_mf_two_over_pi[w];
    if (s == 0) return a;
    return (a << RLX_MF_CVT(uint, s)) | (rlx_mf_two_over_pi[w + 1] >> RLX_MF_CVT(uint, 32 - s));
}
/* a * b as two 32-bit words (16-bit partial products: no 64-bit integers) */
rlx_mf_u2 rlx_mf_mul32(uint a, uint b) {
    uint al = a & 0xFFFFu, ah = a >> 16u, bl = b & 0xFFFFu, bh = b >> 16u;
    uint ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint mid = (ll >> 16u) + (lh & 0xFFFFu) + (hl & 0xFFFFu);
    rlx_mf_u2 r;
    r.lo = (ll & 0xFFFFu) | (mid << 16u);
    r.hi = hh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u);
    return r;
}
/* x = (q + t) pi/2 with |t| <= 1/2: t pi/2 as hi + lo, q mod 4 */
RLX_MF_STRUCT(rlx_mf_red) { float hi; float lo; int q; };
rlx_mf_red rlx_mf_rem_pio2(float x) {
    rlx_mf_red res;
    float ax = rlx_mf_abs(x);
    if (ax <= 0.785398163f) {
        res.hi = x;
        res.lo = 0.0f;
        res.q = 0;
        return res;
    }
    uint u = floatBitsToUint(ax);
    uint m = (u & 0x007FFFFFu) | 0x00800000u;
    int e = RLX_MF_CVT(int, u >> 23u) - 150; /* ax = m 2^e, e >= -24 */
    int i0 = e + 62;                         /* 2^e 2/pi mod 4 = the 96 bits from bit i0, 2 of them integer */
    rlx_mf_u2 p0 = rlx_mf_mul32(m, rlx_mf_tpi_bits(i0));
    rlx_mf_u2 p1 = rlx_mf_mul32(m, rlx_mf_tpi_bits(i0 + 32));
    rlx_mf_u2 p2 = rlx_mf_mul32(m, rlx_mf_tpi_bits(i0 + 64));
    uint w1 = p2.hi + p1.lo;
    uint c1 = w1 < p2.hi ? 1u : 0u;
    uint w2 = p1.hi + p0.lo + c1;          /* x 2/pi mod 4 = w2 2^-30 + w1 2^-62 (+ less) */
    int q = RLX_MF_CVT(int, w2 >> 30u);
    uint a = w2 & 0x3FFFFFFFu, b = w1;
    bool negf = (a & 0x20000000u) != 0u;   /* fraction >= 1/2: round the quadrant up, negate the fraction */
    if (negf) {
        q += 1;
        if (b != 0u) {
            a = 0x3FFFFFFFu - a;
            b = ~b + 1u;
        } else {
            a = 0x40000000u - a;
        }
    }
    float f1 = RLX_MF_CVT(float, a >> 6u) * 5.96046448e-08f;                                   /* 2^-24 */
    float f2 = RLX_MF_CVT(float, ((a & 63u) << 18u) | (b >> 14u)) * 3.55271368e-15f;           /* 2^-48 */
    float f3 = RLX_MF_CVT(float, b & 0x3FFFu) * 2.16840434e-19f;                               /* 2^-62 */
    rlx_mf_ff t = rlx_mf_two_sum(f1, f2);
    t = rlx_mf_fast_two_sum(t.hi, t.lo + f3);
    rlx_mf_ff r = rlx_mf_mul(t, rlx_mf_make(RLX_MF_PIO2_HI, RLX_MF_PIO2_LO));
    if (negf != (x < 0.0f)) {
        r.hi = -r.hi;
        r.lo = -r.lo;
    }
    if (x < 0.0f) q = -q;
    res.hi = r.hi;
    res.lo = r.lo;
    res.q = q & 3;
    return res;
}
/* sin(rh + rl), cos(rh + rl) for |rh| <= pi/4, in float-float (hi is the float result; tan uses lo) */
rlx_mf_ff rlx_mf_sin_kf(float rh, float rl) {
    float z = rh * rh;
    precise float s = -0.166666672f + z * (0.00833333377f + z * (-0.000198412701f + z * (2.75573188e-06f +
                      z * -2.50521079e-08f)));
    precise float c = rh * z * s + rl * (1.0f - 0.5f * z);
    return rlx_mf_fast_two_sum(rh, c);
}
rlx_mf_ff rlx_mf_cos_kf(float rh, float rl) {
    rlx_mf_ff zz = rlx_mf_two_prod(rh, rh);
    float z = zz.hi;
    precise float hz = 0.5f * z;
    precise float w = 1.0f - hz;
    precise float c = z * z * (0.0416666679f + z * (-0.00138888892f + z * (2.48015876e-05f + z * (-2.75573188e-07f +
                      z * 2.08767570e-09f))));
    precise float k = ((1.0f - w) - hz) + (c - (0.5f * zz.lo + rh * rl));
    return rlx_mf_fast_two_sum(w, k);
}
float rlx_mf_sin_k(float rh, float rl) { return rlx_mf_sin_kf(rh, rl).hi; }
float rlx_mf_cos_k(float rh, float rl) { return rlx_mf_cos_kf(rh, rl).hi; }
float rlx_sin_f32(float x) {
    float ax = rlx_mf_abs(x);
    if (ax < 0.000244140625f) return x; /* |x| < 2^-12 (and +-0) */
    if (!(ax < RLX_MF_INF)) return RLX_MF_NAN; /* NaN, +-inf (not x - x: compilers fold it to 0) */
    rlx_mf_red r = rlx_mf_rem_pio2(x);
    float v = (r.q & 1) == 0 ? rlx_mf_sin_k(r.hi, r.lo) : rlx_mf_cos_k(r.hi, r.lo);
    return r.q >= 2 ? -v : v;
}
float rlx_cos_f32(float x) {
    float ax = rlx_mf_abs(x);
    if (!(ax < RLX_MF_INF)) return RLX_MF_NAN;
    rlx_mf_red r = rlx_mf_rem_pio2(x);
    float v = (r.q & 1) == 0 ? rlx_mf_cos_k(r.hi, r.lo) : rlx_mf_sin_k(r.hi, r.lo);
    return (r.q == 1 || r.q == 2) ? -v : v;
}
float rlx_tan_f32(float x) {
    float ax = rlx_mf_abs(x);
    if (ax < 0.000244140625f) return x;
    if (!(ax < RLX_MF_INF)) return RLX_MF_NAN;
    rlx_mf_red r = rlx_mf_rem_pio2(x);
    rlx_mf_ff s = rlx_mf_sin_kf(r.hi, r.lo), c = rlx_mf_cos_kf(r.hi, r.lo);
    if ((r.q & 1) != 0) { /* tan = -cos / sin */
        c.hi = -c.hi;
        c.lo = -c.lo;
        return rlx_mf_div(c, s).hi;
    }
    return rlx_mf_div(s, c).hi;
}

/* ---- atan ------------------------------------------------------------------------------------------------ */

float rlx_atan_f32(float x) {
    float ax = rlx_mf_abs(x);
    if (rlx_mf_isnan(x)) return x + x;
    if (ax >= 67108864.0f) { /* 2^26: pi/2 rounded */
        precise float h = RLX_MF_PIO2_HI + RLX_MF_PIO2_LO;
        return x < 0.0f ? -h : h;
    }
    if (ax < 0.000244140625f) return x;
    rlx_mf_ff t;
    float ch = 0.0f, cl = 0.0f;
    if (ax < 0.4375f) {
        t = rlx_mf_make(ax, 0.0f);
    } else if (ax < 0.6875f) { /* atan(1/2) + atan((2x - 1) / (2 + x)) */
        t = rlx_mf_div(rlx_mf_make(2.0f * ax - 1.0f, 0.0f), rlx_mf_two_sum(2.0f, ax));
        ch = 0.463647604f;
        cl = 5.01215869e-09f;
    } else if (ax < 1.1875f) { /* atan(1) + atan((x - 1) / (x + 1)) */
        t = rlx_mf_div(rlx_mf_make(ax - 1.0f, 0.0f), rlx_mf_two_sum(ax, 1.0f));
        ch = 0.785398185f;
        cl = -2.18556941e-08f;
    } else if (ax < 2.4375f) { /* atan(3/2) + atan((x - 3/2) / (1 + 3x/2)) */
        rlx_mf_ff d = rlx_mf_two_sum(ax, 0.5f * ax);
        d = rlx_mf_add(d, rlx_mf_make(1.0f, 0.0f));
        t = rlx_mf_div(rlx_mf_make(ax - 1.5f, 0.0f), d);
        ch = 0.982793748f;
        cl = -2.51314240e-08f;
    } else { /* pi/2 + atan(-1/x) */
        t = rlx_mf_div(rlx_mf_make(-1.0f, 0.0f), rlx_mf_make(ax, 0.0f));
        ch = RLX_MF_PIO2_HI;
        cl = RLX_MF_PIO2_LO;
    }
    float th = t.hi;
    float z = th * th;
    /* atan(t) = t - t z (1/3 - z/5 + z^2/7 - ...), |t| < 0.4375, z < 0.1915 */
    precise float a = th * z * (0.333333343f - z * (0.200000003f - z * (0.142857149f - z * (0.111111112f -
                      z * (0.0909090936f - z * (0.0769230798f - z * (0.0666666701f - z * (0.0588235296f -
                      z * (0.0526315793f - z * (0.0476190485f - z * 0.0434782617f))))))))));
    precise float r = ch + ((cl + t.lo) - a + th);
    if (ch == 0.0f) r = th + (t.lo - a);
    return x < 0.0f ? -r : r;
}

/* ---- tanh ------------------------------------------------------------------------------------------------ */

float rlx_tanh_f32(float x) {
    float ax = rlx_mf_abs(x);
    if (rlx_mf_isnan(x)) return x + x;
    if (ax < 0.000244140625f) return x;
    float r;
    if (ax >= 9.5f) {
        r = 1.0f;
    } else if (ax >= 1.0f) { /* 1 - 2 / (exp(2x) + 1) */
        precise float e = rlx_exp_f32(2.0f * ax) + 1.0f;
        precise float d = 2.0f / e;
        r = 1.0f - d;
    } else { /* expm1(2x) / (expm1(2x) + 2) */
        rlx_mf_ff t = rlx_mf_expm1_ff(2.0f * ax);
        r = rlx_mf_div(t, rlx_mf_add(t, rlx_mf_make(2.0f, 0.0f))).hi;
    }
    return x < 0.0f ? -r : r;
}

/* ---- erf ------------------------------------------------------------------------------------------------- */

/* interval i = [1/2 + i/4, 3/4 + i/4), centre c = 5/8 + i/4: erf(c) as hi, lo, then erf^(n)(c)/n! for n = 1..8 */
RLX_MF_TABLE(float, rlx_mf_erf_tab, 140)
    0.6232409f, -5.930326e-09f, 0.76349956f, -0.47718722f, -0.05567184f, 0.17645985f, -0.027413411f, -0.041344833f, 0.013910009f, 0.0066861683f,
    0.7840751f, -2.028856e-08f, 0.52474505f, -0.45915192f, 0.092923604f, 0.11239656f, -0.067215875f, -0.010367786f, 0.018595727f, -0.0018461469f,
    0.8883882f, 1.5206194e-08f, 0.31827396f, -0.3580582f, 0.16245234f, 0.027973298f, -0.061323684f, 0.015536835f, 0.009606894f, -0.006031261f,
    0.94817007f, 6.9022685e-09f, 0.17035978f, -0.23424469f, 0.1579377f, -0.030500611f, -0.030605976f, 0.022161236f, -0.0014190624f, -0.0042610336f,
    0.97844374f, -8.558417e-09f, 0.08047226f, -0.13076742f, 0.11484062f, -0.049718864f, -0.0021349248f, 0.014414781f, -0.0061842613f, -0.0005765254f,
    0.99199003f, 2.7858261e-08f, 0.03354583f, -0.06289843f, 0.06744109f, -0.042259883f, 0.011462583f, 0.004105187f, -0.0049283938f, 0.0014305017f,
    0.997346f, -1.3341569e-08f, 0.01234082f, -0.026224244f, 0.033037405f, -0.026360828f, 0.012495482f, -0.0018214126f, -0.0018692573f, 0.0013833456f,
    0.99921703f, 2.8395878e-08f, 0.004006478f, -0.009515385f, 0.013730533f, -0.013133214f, 0.008357393f, -0.0031140791f, 0.00012326962f, 0.00059411133f,
    0.9997946f, 2.1869754e-08f, 0.0011478751f, -0.0030131722f, 0.0048904265f, -0.0054142936f, 0.004217881f, -0.0022468339f, 0.0006808681f, 3.4644705e-05f,
    0.99995214f, 7.690011e-09f, 0.0002902283f, -0.0008344063f, 0.001502536f, -0.0018817601f, 0.0017132633f, -0.0011400746f, 0.00052857003f, -0.00013560802f,
    0.9999901f, -2.3635924e-09f, 6.4758686e-05f, -0.00020237088f, 0.00040001978f, -0.000557574f, 0.0005769615f, -0.00045231517f, 0.00026648105f, -0.00011126364f,
    0.9999982f, -2.7142084e-08f, 1.27517405e-05f, -4.3037126e-05f, 9.258295e-05f, -0.00014188803f, 0.00016377395f, -0.00014640889f, 0.0001021862f, -5.484627e-05f,
    0.9999997f, 2.8830314e-09f, 2.2159202e-06f, -8.032711e-06f, 1.8673745e-05f, -3.116859e-05f, 3.9592334e-05f, -3.9529114e-05f, 3.1514122e-05f, -2.0089148e-05f,
    0.99999994f, 1.70907e-08f, 3.3982238e-07f, -1.3168117e-06f, 3.2884896e-06f, -5.932511e-06f, 8.208845e-06f, -9.021089e-06f, 8.033147e-06f, -5.849021e-06f
RLX_MF_TABLE_END

float rlx_erf_f32(float x) {
    float ax = rlx_mf_abs(x);
    if (rlx_mf_isnan(x)) return x + x;
    float r;
    if (ax < 0.000244140625f) {
        /* x 2/sqrt(pi), as x + x c scaled by 2^24 so that x c is not subnormal (a device that flushes subnormals
           would drop it); the scalings by powers of two are exact, the last one rounds a subnormal result once */
        precise float xs = x * 16777216.0f;
        precise float t = xs + xs * 0.128379166f;
        precise float r0 = t * 5.96046448e-08f;
        precise float r1 = x + x * 0.128379166f;
        return ax < 1.0e-30f ? r0 : r1;
    } else if (ax < 0.5f) { /* 2/sqrt(pi) x (1 + z P(z)), z = x^2 */
        float z = ax * ax;
        precise float p = z * (-0.333333343f + z * (0.100000001f + z * (-0.0238095243f + z * (0.00462962966f +
                          z * (-0.000757575734f + z * (0.000106837606f + z * -1.32275135e-05f))))));
        precise float g = 0.128379166f + 1.12837923f * p;
        precise float t = ax + ax * g;
        r = t;
    } else if (ax < 4.0f) {
        int i = RLX_MF_CVT(int, (ax - 0.5f) * 4.0f);
        float c = 0.625f + 0.25f * RLX_MF_CVT(float, i);
        float h = ax - c; /* exact */
        int o = i * 10;
        precise float p = h * (rlx_mf_erf_tab[o + 2] + h * (rlx_mf_erf_tab[o + 3] + h * (rlx_mf_erf_tab[o + 4] +
                          h * (rlx_mf_erf_tab[o + 5] + h * (rlx_mf_erf_tab[o + 6] + h * (rlx_mf_erf_tab[o + 7] +
                          h * (rlx_mf_erf_tab[o + 8] + h * rlx_mf_erf_tab[o + 9])))))));
        precise float t = rlx_mf_erf_tab[o] + (rlx_mf_erf_tab[o + 1] + p);
        r = t;
    } else {
        r = 1.0f;
    }
    return x < 0.0f ? -r : r;
}

#endif /* RLX_MATH_F32_GLSL */
