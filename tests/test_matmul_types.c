/* Matrix products in f16, bf16, f64 and 8-bit integers on the CPU.

   - f16 / bf16 / f64 rlx_matmul against an f64 reference computed here from the same (already rounded) input bits,
     decoded by this file's own conversions: odd M/N/K, M = 1, N = 1, K = 1, several K blocks, batched and
     broadcast batches, transposed views of either operand. The bound is the f32 accumulation error (K · 2^-23 ·
     sum |a·b|) plus one rounding of the output (2^-11 relative for f16, 2^-8 for bf16).
   - every kernel family the CPU has and the portable one: rlx__hgemm_with / rlx__igemm_with are called with each
     feature set (portable C; AVX2; AVX2 + F16C; AVX-512; AVX-512 VNNI) that this CPU supports, on direct strides
     (row-major, transposed A, transposed B) and the GEMV layouts; what the CPU lacks is reported as skipped.
   - the f32 → f16/bf16 rounding of the result (scalar and vector) against rlx's double-based rounding of >>convert,
     for specials (NaN, inf, overflow, subnormals, ties) and a sweep of bit patterns.
   - rlx_matmul_integer: i8/u8 in all four combinations, no / scalar / per-row and per-column zero points, exact
     against an int64 reference; extremes (-128, 127, 255 with zero points that maximise |a - za|) and K = 3000,
     where a saturating int16 scheme (vpmaddubsw) would be wrong; batched; the GPU decomposition
     (RLX_COMPILE_DECOMPOSE on the CPU, and Vulkan where a device is present); builder errors. */
#define RLX_IMPLEMENTATION
#include "../rlx.h"
#include "harness.h"

#include <stdlib.h>

/* ---- this file's own half-float decoding (the oracle never uses rlx's conversions) ---- */
static double ref_f16(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 31) return m ? NAN : s * INFINITY;
    if (e == 0) return s * ldexp((double)m, -24);
    return s * ldexp((double)(m + 1024), e - 25);
}
static double ref_bf16(uint16_t h) {
    int e = (h >> 7) & 255, m = h & 127;
    double s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 255) return m ? NAN : s * INFINITY;
    if (e == 0) return s * ldexp((double)m, -133);
    return s * ldexp((double)(m + 128), e - 134);
}

static uint32_t rng = 0x9E3779B9u;
static uint32_t rnd(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
    return rng;
}

/* a random finite, non-zero value with a magnitude in [2^-3, 2^2) as bits of dt (f16 / bf16), or as a double */
static uint16_t rnd_half(rlx_dtype dt) {
    uint32_t r = rnd();
    if (dt == RLX_F16) return (uint16_t)((r & 0x8000u) | ((12u + (r >> 16) % 5u) << 10) | (r & 1023u));
    return (uint16_t)((r & 0x8000u) | ((124u + (r >> 16) % 5u) << 7) | (r & 127u));
}
static double rnd_f64(void) { return ((double)(rnd() % 2001u) - 1000.0) / 256.0 + 1.0 / 1024.0; }

static double dec(rlx_dtype dt, const void* p, int64_t i) {
    if (dt == RLX_F16) return ref_f16(((const uint16_t*)p)[i]);
    if (dt == RLX_BF16) return ref_bf16(((const uint16_t*)p)[i]);
    return ((const double*)p)[i];
}
static void fill(rlx_dtype dt, void* p, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i++) {
        if (dt == RLX_F64) ((double*)p)[i] = rnd_f64();
        else ((uint16_t*)p)[i] = rnd_half(dt);
    }
}

/* |y - ref| <= f32 accumulation error + one output rounding, for C[M,N] = A(m,k)·B(k,n) with element strides */
static int check_float(rlx_dtype dt, const char* what, int64_t M, int64_t N, int64_t K, const void* A, int64_t rsa,
                       int64_t csa, const void* B, int64_t rsb, int64_t csb, const void* C, int64_t ldc) {
    double eps_out = dt == RLX_F16 ? ldexp(1.0, -11) : dt == RLX_BF16 ? ldexp(1.0, -8) : 0.0;
    double eps_acc = dt == RLX_F64 ? ldexp(1.0, -50) : ldexp(1.0, -23);
    int64_t i, n, k, bad = 0;
    for (i = 0; i < M; i++)
        for (n = 0; n < N; n++) {
            double s = 0.0, sa = 0.0, y = dec(dt, C, i * ldc + n), tol;
            for (k = 0; k < K; k++) {
                double p = dec(dt, A, i * rsa + k * csa) * dec(dt, B, k * rsb + n * csb);
                s += p;
                sa += fabs(p);
            }
            tol = (double)(K + 2) * eps_acc * sa;
            tol += eps_out * (fabs(s) + tol) + 1e-30;
            if (!(fabs(y - s) <= tol)) {
                if (bad++ < 3)
                    printf("  %s %s [%lld,%lld]: got %.9g want %.9g (tol %.3g)\n", what, rlx_dtype_name(dt), (long long)i,
                           (long long)n, y, s, tol);
            }
        }
    return bad == 0;
}

/* ---- f16 / bf16 / f64 through the graph API ---- */
typedef struct fcase {
    const char* name;
    int ra, rb;
    int64_t as[4], bs[4];
    int ta, tb;   /* operand given transposed (last two dims swapped) and transposed back in the graph */
} fcase;

static void test_float_graph(rlx_dtype dt) {
    static const fcase cases[] = {
        {"odd", 2, 2, {37, 53}, {53, 29}, 0, 0},
        {"M=1", 2, 2, {1, 300}, {300, 77}, 0, 0},
        {"vec@mat", 1, 2, {300}, {300, 70}, 0, 0},
        {"N=1", 2, 2, {70, 129}, {129, 1}, 0, 0},
        {"mat@vec", 2, 1, {45, 129}, {129}, 0, 0},
        {"K=1", 2, 2, {9, 1}, {1, 40}, 0, 0},
        {"K blocks", 2, 2, {19, 901}, {901, 35}, 0, 0},
        {"large", 2, 2, {130, 200}, {200, 260}, 0, 0},
        {"batched", 3, 3, {3, 17, 40}, {3, 40, 23}, 0, 0},
        {"broadcast", 4, 3, {2, 1, 9, 33}, {3, 33, 18}, 0, 0},
        {"a^T", 2, 2, {61, 27}, {61, 45}, 1, 0},
        {"b^T", 2, 2, {27, 61}, {45, 61}, 0, 1},
        {"b^T M=1", 2, 2, {1, 150}, {90, 150}, 0, 1},
        {"a^T b^T", 3, 3, {2, 30, 11}, {2, 13, 30}, 1, 1},
    };
    size_t c;
    size_t e = rlx_dtype_size(dt);
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const fcase* fc = &cases[c];
        rlx_graph* g = rlx_graph_create(NULL);
        rlx_program* p = NULL;
        rlx_compile_desc cd;
        int64_t na = 1, nb = 1, ny, os[4], M, K, N, nbat = 1, bi;
        int perm[4] = {0, 1, 2, 3}, ro = 0, i, okall = 1;
        void *A, *B, *Y;
        rlx_tensor a, b, y;
        for (i = 0; i < fc->ra; i++) na *= fc->as[i];
        for (i = 0; i < fc->rb; i++) nb *= fc->bs[i];
        A = malloc((size_t)na * e);
        B = malloc((size_t)nb * e);
        fill(dt, A, na);
        fill(dt, B, nb);
        a = rlx_input(g, "a", dt, fc->ra, fc->as);
        b = rlx_input(g, "b", dt, fc->rb, fc->bs);
        if (fc->ta) { perm[fc->ra - 2] = fc->ra - 1; perm[fc->ra - 1] = fc->ra - 2; a = rlx_transpose(g, a, perm); }
        perm[0] = 0; perm[1] = 1; perm[2] = 2; perm[3] = 3;
        if (fc->tb) { perm[fc->rb - 2] = fc->rb - 1; perm[fc->rb - 1] = fc->rb - 2; b = rlx_transpose(g, b, perm); }
        y = rlx_matmul(g, a, b);
        rlx_output(g, "y", y);
        memset(&cd, 0, sizeof cd);
        cd.device = RLX_DEVICE_CPU;
        if (rlx_compile(g, &cd, &p) != RLX_OK) {
            TH_CHECK(0, "%s %s: compile: %s", fc->name, rlx_dtype_name(dt), rlx_graph_error(g));
            rlx_graph_destroy(g);
            free(A); free(B);
            continue;
        }
        {
            rlx_dtype odt = rlx_tensor_info(g, y, &ro, os);
            TH_CHECK(odt == dt, "%s: output dtype %s", fc->name, rlx_dtype_name(odt));
            for (ny = 1, i = 0; i < ro; i++) ny *= os[i];
        }
        Y = malloc((size_t)ny * e);
        rlx_set_input(p, "a", dt, A, (size_t)na * e);
        rlx_set_input(p, "b", dt, B, (size_t)nb * e);
        TH_CHECK(rlx_run(p) == RLX_OK, "%s: run: %s", fc->name, rlx_program_error(p));
        TH_CHECK(rlx_get_output(p, "y", dt, Y, (size_t)ny * e) == RLX_OK, "%s: get_output", fc->name);
        {   /* logical (untransposed) geometry: a [.., M, K], b [.., K, N] */
            int64_t am = fc->ra == 1 ? 1 : fc->as[fc->ra - 2], ak = fc->as[fc->ra - 1];
            int64_t bk = fc->rb == 1 ? fc->bs[0] : fc->bs[fc->rb - 2], bn = fc->rb == 1 ? 1 : fc->bs[fc->rb - 1];
            int64_t rsa, csa, rsb, csb, abat = 1, bbat = 1;
            if (fc->ta) { M = ak; K = am; rsa = 1; csa = ak; } else { M = am; K = ak; rsa = ak; csa = 1; }
            if (fc->tb) { K = bn; N = bk; rsb = 1; csb = bn; } else { N = bn; rsb = bn; csb = 1; }
            for (i = 0; i < fc->ra - 2; i++) abat *= fc->as[i];
            for (i = 0; i < fc->rb - 2; i++) bbat *= fc->bs[i];
            nbat = ny / (M * N);
            for (bi = 0; bi < nbat; bi++) {
                /* broadcast: batch index splits over the output's batch dims; the cases broadcast only as
                   [2,1] x [3] → [2,3] (a: index / 3, b: index % 3) or equal batches */
                int64_t ia = abat == nbat ? bi : abat == 1 ? 0 : bi / (nbat / abat);
                int64_t ib = bbat == nbat ? bi : bbat == 1 ? 0 : bi % bbat;
                okall &= check_float(dt, fc->name, M, N, K, (const char*)A + (size_t)(ia * M * K) * e, rsa, csa,
                                     (const char*)B + (size_t)(ib * K * N) * e, rsb, csb,
                                     (const char*)Y + (size_t)(bi * M * N) * e, N);
            }
        }
        TH_CHECK(okall, "matmul %s %s", rlx_dtype_name(dt), fc->name);
        rlx_program_destroy(p);
        rlx_graph_destroy(g);
        free(A); free(B); free(Y);
    }
}

/* ---- every half-float kernel family, called directly ---- */
static void* alloc64(size_t n, void** raw) {
    *raw = malloc(n + 64);
    return (void*)(((uintptr_t)*raw + 63) & ~(uintptr_t)63);
}

static const unsigned feature_sets[] = {
    0u, RLX__CPU_AVX2, RLX__CPU_AVX2 | RLX__CPU_F16C, RLX__CPU_AVX2 | RLX__CPU_AVX512 | RLX__CPU_F16C,
    RLX__CPU_AVX2 | RLX__CPU_AVX512 | RLX__CPU_AVX512VNNI, RLX__CPU_NEON, RLX__CPU_AVX2 | RLX__CPU_AVXVNNI,
    RLX__CPU_NEON | RLX__CPU_NEONDOT};
static const char* feature_names[] = {"portable", "avx2", "avx2+f16c", "avx512+f16c", "avx512-vnni", "neon",
                                      "avx-vnni", "neon-dotprod"};

static int have_features(unsigned f) {
    unsigned have = rlx__cpu_features_half() | rlx__cpu_features_int();
#if defined(RLX__HAVE_AVXVNNI)
    {   /* rlx__cpu_features_int asks for AVX-VNNI only where AVX-512 VNNI is missing: the test wants both */
        unsigned a = 0, b = 0, c = 0, d = 0;
        if ((have & RLX__CPU_AVX2) && __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 4)))
            have |= RLX__CPU_AVXVNNI;
    }
#endif
#if !defined(RLX__GEMM_X86)
    if (f & ~(unsigned)(RLX__CPU_NEON | RLX__CPU_NEONDOT)) return 0;
#endif
    return (have & f) == f;
}

static void test_half_kernels(void) {
    /* M, N, K, layout: 0 row-major, 1 A transposed, 2 B transposed */
    static const int64_t shapes[][4] = {{1, 200, 77, 0}, {1, 200, 77, 2}, {1, 5, 33, 0}, {90, 1, 64, 0},
                                        {90, 1, 64, 1}, {45, 70, 33, 0}, {45, 70, 33, 1}, {45, 70, 33, 2},
                                        {8, 64, 16, 2}, {17, 40, 700, 0}};
    size_t f, s;
    int bf;
    for (f = 0; f < sizeof feature_sets / sizeof feature_sets[0]; f++) {
        if (feature_sets[f] & (RLX__CPU_AVXVNNI | RLX__CPU_NEONDOT)) continue;   /* integer-only families */
        if (!have_features(feature_sets[f])) {
            th_skip("half GEMM %s: not on this CPU (or not compiled in)", feature_names[f]);
            continue;
        }
        for (bf = 0; bf < 2; bf++) {
            rlx_dtype dt = bf ? RLX_BF16 : RLX_F16;
            int ok = 1;
            for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2], L = shapes[s][3];
                int64_t rsa = L == 1 ? 1 : K, csa = L == 1 ? M : 1, rsb = L == 2 ? 1 : N, csb = L == 2 ? K : 1;
                uint16_t* A = (uint16_t*)malloc((size_t)(M * K) * 2);
                uint16_t* B = (uint16_t*)malloc((size_t)(K * N) * 2);
                uint16_t* C = (uint16_t*)malloc((size_t)(M * N) * 2);
                void* raw;
                void* ws = alloc64(rlx__hgemm_workspace_bytes(1, M, N, K), &raw);
                fill(dt, A, M * K);
                fill(dt, B, K * N);
                rlx__hgemm_with(feature_sets[f], NULL, ws, M, N, K, A, rsa, csa, B, rsb, csb, C, N, bf);
                ok &= check_float(dt, feature_names[f], M, N, K, A, rsa, csa, B, rsb, csb, C, N);
                free(A); free(B); free(C); free(raw);
            }
            TH_CHECK(ok, "half GEMM %s %s (M = 1, N = 1, transposed A / B, K blocks)", feature_names[f],
                     rlx_dtype_name(dt));
        }
    }
}

/* ---- result rounding, scalar and vector, against >>convert's double-based rounding ---- */
static void test_rounding(void) {
    static const uint32_t specials[] = {
        0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00001u, 0x7F800001u, /* NaNs, infs */
        0x477FE000u, 0x477FEFFFu, 0x477FF000u, 0x47800000u, 0xC77FF000u,                           /* 65504 .. */
        0x33000000u, 0x33000001u, 0x33800000u, 0x387FC000u, 0x387FE000u, 0x38800000u, 0x38801000u, /* f16 subn. */
        0x3F801000u, 0x3F803000u, 0x3F800001u, 0x3F808000u, 0x3F818000u, 0x00000001u, 0x807FFFFFu, /* ties     */
        0x7F7FFFFFu, 0x7F7F8000u, 0x3F7FFFFFu, 0x3F808001u};
    enum { NS = sizeof specials / sizeof specials[0] };
    float v[64];
    uint16_t out[64];
    uint32_t u;
    size_t f;
    int bf, i, bad = 0;
    for (u = 0; u < 0xFFFF0000u; u += 0x10001u) {   /* a sweep of 65536 patterns, both rounding functions */
        float x;
        memcpy(&x, &u, 4);
        if (rlx__f32_bits_to_f16(x) != rlx__f64_to_f16((double)x)) bad++;
        if (rlx__f32_bits_to_bf16(x) != rlx__f64_to_bf16((double)x)) bad++;
        if (u >= 0x10000u && rlx__f16_bits_to_f32((uint16_t)(u >> 16)) != rlx__f16_to_f32((uint16_t)(u >> 16)) &&
            !((u >> 26 & 31) == 31 && (u >> 16 & 1023)))
            bad++;
    }
    TH_CHECK(bad == 0, "f32 -> f16/bf16 rounding differs from >>convert on %d sampled patterns", bad);
    for (i = 0; i < 64; i++) {
        uint32_t w = i < NS ? specials[i] : rnd();
        memcpy(&v[i], &w, 4);
    }
    for (f = 0; f < 4; f++) {
        void (*store)(int64_t, int64_t, const float*, int64_t, uint16_t*, int64_t, int) = rlx__hstore_c;
        if (f == 2 || f == 3) {
#if defined(RLX__GEMM_X86)
            if (!have_features(RLX__CPU_AVX2 | RLX__CPU_F16C)) { th_skip("vector rounding: no F16C"); continue; }
            store = rlx__hstore_x86;
#else
            th_skip("vector rounding: not an x86 build");
            continue;
#endif
        }
        bf = (int)(f & 1);
        store(8, 8, v, 8, out, 8, bf);
        bad = 0;
        for (i = 0; i < 64; i++) {
            uint16_t want = bf ? rlx__f64_to_bf16((double)v[i]) : rlx__f64_to_f16((double)v[i]);
            if (out[i] != want) {
                if (bad++ < 3) printf("  store %d: %08x -> %04x, want %04x\n", (int)f, (unsigned)(i < NS ? specials[i] : 0), out[i], want);
            }
        }
        TH_CHECK(bad == 0, "%s %s result rounding matches rlx_cast (NaN, inf, overflow, subnormals, ties)",
                 f >= 2 ? "vector" : "scalar", bf ? "bf16" : "f16");
    }
}

/* ---- integers ---- */
static int64_t ival(rlx_dtype dt, const uint8_t* p, int64_t i) { return dt == RLX_I8 ? (int64_t)(int8_t)p[i] : (int64_t)p[i]; }

/* C[M,N] exact: sum (A(m,k) - za[m]) (B(k,n) - zb[n]) in int64, compared with the int32 result */
static int check_int(const char* what, rlx_dtype at, rlx_dtype bt, int64_t M, int64_t N, int64_t K, const uint8_t* A,
                     int64_t rsa, int64_t csa, const uint8_t* B, int64_t rsb, int64_t csb, const uint8_t* za, int zan,
                     const uint8_t* zb, int zbn, const int32_t* C, int64_t ldc) {
    int64_t i, n, k, bad = 0;
    for (i = 0; i < M; i++)
        for (n = 0; n < N; n++) {
            int64_t s = 0, zi = za ? ival(at, za, zan > 1 ? i : 0) : 0, zn = zb ? ival(bt, zb, zbn > 1 ? n : 0) : 0;
            for (k = 0; k < K; k++) s += (ival(at, A, i * rsa + k * csa) - zi) * (ival(bt, B, k * rsb + n * csb) - zn);
            if (s != (int64_t)C[i * ldc + n]) {
                if (bad++ < 3) printf("  %s [%lld,%lld]: got %d want %lld\n", what, (long long)i, (long long)n,
                                      (int)C[i * ldc + n], (long long)s);
            }
        }
    return bad == 0;
}

/* mode 0: random bytes; 1: extremes (-128 / 127 for i8, 0 / 255 for u8) */
static void fill_int(uint8_t* p, int64_t n, int mode, rlx_dtype dt) {
    int64_t i;
    for (i = 0; i < n; i++) {
        uint32_t r = rnd();
        if (mode == 0) p[i] = (uint8_t)(r >> 11);
        else if (dt == RLX_I8) p[i] = (r >> 9) % 5u ? 0x80u : 0x7Fu;
        else p[i] = (r >> 9) % 5u ? 0xFFu : 0x00u;
    }
}

static void test_int_kernels(void) {
    static const int64_t shapes[][4] = {{1, 77, 300, 0}, {1, 77, 300, 2}, {1, 50, 7, 0}, {1, 64, 3000, 0}, {90, 1, 64, 0}, {37, 45, 101, 0}, {37, 45, 101, 1},
                                        {37, 45, 101, 2}, {9, 70, 3, 0}, {20, 33, 1100, 0}, {16, 64, 3000, 0}};
    static const rlx_dtype dts[4][2] = {{RLX_I8, RLX_I8}, {RLX_U8, RLX_I8}, {RLX_I8, RLX_U8}, {RLX_U8, RLX_U8}};
    size_t f, s;
    int d, zm;
    for (f = 0; f < sizeof feature_sets / sizeof feature_sets[0]; f++) {
        if (f == 2 || f == 3) continue;   /* F16C and plain AVX-512 do not change the integer kernels */
        if (!have_features(feature_sets[f])) {
            th_skip("integer GEMM %s: not on this CPU (or not compiled in)", feature_names[f]);
            continue;
        }
        for (d = 0; d < 4; d++) {
            rlx_dtype at = dts[d][0], bt = dts[d][1];
            int ok = 1;
            for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                for (zm = 0; zm < 3; zm++) {   /* zero points: none, scalar, per row / column */
                    int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2], L = shapes[s][3], i;
                    int64_t rsa = L == 1 ? 1 : K, csa = L == 1 ? M : 1, rsb = L == 2 ? 1 : N, csb = L == 2 ? K : 1;
                    int extreme = K >= 1000;
                    uint8_t* A = (uint8_t*)malloc((size_t)(M * K));
                    uint8_t* B = (uint8_t*)malloc((size_t)(K * N));
                    uint8_t* za = (uint8_t*)malloc((size_t)M);
                    uint8_t* zb = (uint8_t*)malloc((size_t)N);
                    int32_t* C = (int32_t*)malloc((size_t)(M * N) * 4);
                    int32_t* zai = (int32_t*)malloc((size_t)M * 4);
                    int32_t* zbi = (int32_t*)malloc((size_t)N * 4);
                    void* raw;
                    void* ws = alloc64(rlx__igemm_workspace_bytes(1, M, N, K), &raw);
                    fill_int(A, M * K, extreme, at);
                    fill_int(B, K * N, extreme, bt);
                    fill_int(za, M, zm == 2 ? 0 : 1, at);
                    fill_int(zb, N, zm == 2 ? 0 : 1, bt);
                    if (extreme && zm) {   /* zero points at the far end: |a - za| and |b - zb| up to 255 */
                        for (i = 0; i < M; i++) za[i] = at == RLX_I8 ? 0x7Fu : 0xFFu;
                        for (i = 0; i < N; i++) zb[i] = bt == RLX_I8 ? 0x7Fu : 0xFFu;
                    }
                    for (i = 0; i < M; i++) zai[i] = (int32_t)ival(at, za, zm == 2 ? i : 0);
                    for (i = 0; i < N; i++) zbi[i] = (int32_t)ival(bt, zb, zm == 2 ? i : 0);
                    rlx__igemm_with(feature_sets[f], NULL, ws, M, N, K, A, rsa, csa, at == RLX_I8, B, rsb, csb,
                                    bt == RLX_I8, zm ? zai : NULL, zm ? zbi : NULL, C, N);
                    ok &= check_int(feature_names[f], at, bt, M, N, K, A, rsa, csa, B, rsb, csb, zm ? za : NULL,
                                    zm == 2 ? 2 : 1, zm ? zb : NULL, zm == 2 ? 2 : 1, C, N);
                    free(A); free(B); free(za); free(zb); free(C); free(zai); free(zbi); free(raw);
                }
            TH_CHECK(ok, "integer GEMM %s %s x %s (zero points none / scalar / per row and column, K = 3000 extremes)",
                     feature_names[f], rlx_dtype_name(at), rlx_dtype_name(bt));
        }
    }
}

/* rlx_matmul_integer through the graph: batched with broadcast, vector operands, zero points; flags 0 or
   RLX_COMPILE_DECOMPOSE | RLX_COMPILE_NO_OPTIMIZE (the GPU lowering: casts, subtractions, i32 matmul) */
static int run_int_graph(rlx_device dev, uint32_t flags, rlx_dtype at, rlx_dtype bt, int zm, const char* label) {
    int64_t as[3] = {3, 21, 300}, bs[2] = {300, 35}, zas[1] = {21}, zbs[1] = {35}, one[1] = {1};
    int64_t M = 21, K = 300, N = 35, bi;
    uint8_t A[3 * 21 * 300], B[300 * 35], za[21], zb[35];
    int32_t Y[3 * 21 * 35];
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_tensor a = rlx_input(g, "a", at, 3, as), b = rlx_input(g, "b", bt, 2, bs), tza = {0, 0}, tzb = {0, 0};
    rlx_result r;
    int ok = 1;
    fill_int(A, 3 * M * K, 0, at);
    fill_int(B, K * N, 0, bt);
    fill_int(za, M, 0, at);
    fill_int(zb, N, 0, bt);
    if (zm == 1) { tza = rlx_input(g, "za", at, 0, NULL); tzb = rlx_input(g, "zb", bt, 1, one); }
    if (zm == 2) { tza = rlx_input(g, "za", at, 1, zas); tzb = rlx_input(g, "zb", bt, 1, zbs); }
    rlx_output(g, "y", rlx_matmul_integer(g, a, b, tza, tzb));
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    cd.flags = flags | RLX_COMPILE_NO_FALLBACK;
    r = rlx_compile(g, &cd, &p);
    if (r == RLX_ERROR_DEVICE_UNAVAILABLE) {
        th_skip("matmul_integer on %s: %s", label, rlx_graph_error(g));
        rlx_graph_destroy(g);
        return -1;
    }
    if (r != RLX_OK) {
        TH_CHECK(0, "matmul_integer %s: compile: %s", label, rlx_graph_error(g));
        rlx_graph_destroy(g);
        return 0;
    }
    TH_CHECK(rlx_program_device(p) == dev, "matmul_integer %s: compiled for device %d, not %d", label,
             (int)rlx_program_device(p), (int)dev);
    rlx_set_input(p, "a", at, A, sizeof A);
    rlx_set_input(p, "b", bt, B, sizeof B);
    if (zm) {
        rlx_set_input(p, "za", at, za, zm == 2 ? (size_t)M : 1);
        rlx_set_input(p, "zb", bt, zb, zm == 2 ? (size_t)N : 1);
    }
    if (rlx_run(p) != RLX_OK || rlx_get_output(p, "y", RLX_I32, Y, sizeof Y) != RLX_OK) {
        TH_CHECK(0, "matmul_integer %s: %s", label, rlx_program_error(p));
        ok = 0;
    } else {
        for (bi = 0; bi < 3; bi++)
            ok &= check_int(label, at, bt, M, N, K, A + bi * M * K, K, 1, B, N, 1, zm ? za : NULL, zm == 2 ? 2 : 1,
                            zm ? zb : NULL, zm == 2 ? 2 : 1, Y + bi * M * N, N);
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    return ok;
}

static void test_int_graph(void) {
    static const rlx_dtype dts[4][2] = {{RLX_I8, RLX_I8}, {RLX_U8, RLX_I8}, {RLX_I8, RLX_U8}, {RLX_U8, RLX_U8}};
    int d, zm, vk_done = 0;
    for (d = 0; d < 4; d++)
        for (zm = 0; zm < 3; zm++) {
            int r = run_int_graph(RLX_DEVICE_CPU, 0, dts[d][0], dts[d][1], zm, "cpu");
            TH_CHECK(r == 1, "matmul_integer cpu %s x %s, zero points mode %d", rlx_dtype_name(dts[d][0]),
                     rlx_dtype_name(dts[d][1]), zm);
            r = run_int_graph(RLX_DEVICE_CPU, RLX_COMPILE_DECOMPOSE | RLX_COMPILE_NO_OPTIMIZE, dts[d][0], dts[d][1], zm,
                              "cpu-decomposed");
            TH_CHECK(r == 1, "matmul_integer decomposed (the GPU lowering) %s x %s, zero points mode %d",
                     rlx_dtype_name(dts[d][0]), rlx_dtype_name(dts[d][1]), zm);
        }
    if (getenv("RLX_TEST_NO_VULKAN")) {
        th_skip("matmul_integer on Vulkan: RLX_TEST_NO_VULKAN is set");
        return;
    }
    for (d = 0; d < 4 && vk_done >= 0; d += 3) {   /* i8 x i8 and u8 x u8, per-row/column zero points */
        int r = run_int_graph(RLX_DEVICE_VULKAN, 0, dts[d][0], dts[d][1], 2, "vulkan");
        if (r < 0) { vk_done = -1; break; }
        TH_CHECK(r == 1, "matmul_integer vulkan %s x %s", rlx_dtype_name(dts[d][0]), rlx_dtype_name(dts[d][1]));
    }
}

static void test_int_errors(void) {
    int64_t s34[2] = {3, 4}, s45[2] = {4, 5}, s3[1] = {3}, s5[1] = {5}, s4[1] = {4};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor a, b, none = {0, 0}, y;
#define EXPECT(expr, code, what)                                                                                     \
    do {                                                                                                             \
        rlx_graph_destroy(g);                                                                                        \
        g = rlx_graph_create(NULL);                                                                                  \
        a = rlx_input(g, "a", RLX_I8, 2, s34);                                                                       \
        b = rlx_input(g, "b", RLX_U8, 2, s45);                                                                       \
        y = (expr);                                                                                                  \
        TH_CHECK(y.id == 0 && rlx_graph_status(g) == (code) && strstr(rlx_graph_error(g), "matmul_integer"),         \
                 "matmul_integer %s: %s (%s)", what, rlx_result_string(rlx_graph_status(g)), rlx_graph_error(g));    \
    } while (0)
    EXPECT(rlx_matmul_integer(g, rlx_cast(g, a, RLX_F32), b, none, none), RLX_ERROR_DTYPE, "f32 a");
    EXPECT(rlx_matmul_integer(g, a, rlx_cast(g, b, RLX_I32), none, none), RLX_ERROR_DTYPE, "i32 b");
    EXPECT(rlx_matmul_integer(g, a, rlx_input(g, "c", RLX_U8, 2, s34), none, none), RLX_ERROR_SHAPE, "inner dims");
    EXPECT(rlx_matmul_integer(g, a, b, rlx_input(g, "z", RLX_U8, 0, NULL), none), RLX_ERROR_DTYPE, "za dtype");
    EXPECT(rlx_matmul_integer(g, a, b, rlx_input(g, "z", RLX_I8, 1, s4), none), RLX_ERROR_SHAPE, "za [K]");
    EXPECT(rlx_matmul_integer(g, a, b, none, rlx_input(g, "z", RLX_U8, 1, s3)), RLX_ERROR_SHAPE, "zb [M]");
    EXPECT(rlx_matmul_integer(g, a, b, none, rlx_input(g, "z", RLX_U8, 2, s45)), RLX_ERROR_SHAPE, "zb 2-D");
    {
        rlx_tensor bad = {77, 0};
        EXPECT(rlx_matmul_integer(g, a, b, bad, none), RLX_ERROR_INVALID_TENSOR, "bad za handle");
    }
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);
    a = rlx_input(g, "a", RLX_I8, 2, s34);
    b = rlx_input(g, "b", RLX_U8, 2, s45);
    y = rlx_matmul_integer(g, a, b, rlx_input(g, "za", RLX_I8, 1, s3), rlx_input(g, "zb", RLX_U8, 1, s5));
    {
        int r = 0;
        int64_t shp[RLX_MAX_RANK];
        TH_CHECK(rlx_tensor_info(g, y, &r, shp) == RLX_I32 && r == 2 && shp[0] == 3 && shp[1] == 5,
                 "matmul_integer output is i32 [3, 5]");
    }
    TH_CHECK(strcmp(rlx_op_name(RLX_OP_MATMUL_INTEGER), "matmul_integer") == 0, "rlx_op_name(MATMUL_INTEGER)");
    TH_CHECK(rlx_matmul_integer(NULL, a, b, none, none).id == 0, "matmul_integer with a NULL graph");
    rlx_graph_destroy(g);
#undef EXPECT
}

/* all-constant operands: folded at compile time on the CPU kernels (one thread, no pool) */
static void test_int_folded(void) {
    int64_t as[2] = {6, 40}, bs[2] = {40, 9}, zs[1] = {9};
    uint8_t A[6 * 40], B[40 * 9], zb[9], za = 0x85;
    int32_t Y[6 * 9];
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_tensor y;
    fill_int(A, 6 * 40, 0, RLX_I8);
    fill_int(B, 40 * 9, 0, RLX_U8);
    fill_int(zb, 9, 0, RLX_U8);
    y = rlx_matmul_integer(g, rlx_constant(g, RLX_I8, 2, as, A), rlx_constant(g, RLX_U8, 2, bs, B),
                           rlx_constant(g, RLX_I8, 0, NULL, &za), rlx_constant(g, RLX_U8, 1, zs, zb));
    rlx_output(g, "y", y);
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    if (rlx_compile(g, &cd, &p) != RLX_OK) {
        TH_CHECK(0, "folded matmul_integer: compile: %s", rlx_graph_error(g));
    } else {
        TH_CHECK(rlx_run(p) == RLX_OK && rlx_get_output(p, "y", RLX_I32, Y, sizeof Y) == RLX_OK &&
                     check_int("folded", RLX_I8, RLX_U8, 6, 9, 40, A, 40, 1, B, 9, 1, &za, 1, zb, 2, Y, 9),
                 "matmul_integer of constants (folded at compile time)");
        rlx_program_destroy(p);
    }
    rlx_graph_destroy(g);
}

int main(void) {
    test_rounding();
    test_float_graph(RLX_F16);
    test_float_graph(RLX_BF16);
    test_float_graph(RLX_F64);
    test_half_kernels();
    test_int_kernels();
    test_int_graph();
    test_int_errors();
    test_int_folded();
    return th_summary("matmul_types");
}
