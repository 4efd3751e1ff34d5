/* test_sampling.c - cumsum, topk, sample and rlx_uniform against references written in this file.

   References work in double precision and follow the documented semantics step by step (see the comment
   block of the misc kernels in rlx.h): cumsum accumulates sequentially in double / int64 and rounds once;
   topk sorts indices with the documented total order (value, then index; NaN above +inf); sample is an
   independent re-implementation of the documented algorithm with its own counter-based generator, so every
   draw must match exactly. On top of that the sampler is checked statistically (empirical frequencies over
   20000 counters against the softmax probabilities). */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../rlx.h"
#include "harness.h"

#include <stdlib.h>

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* =============================================================================================================
   Helpers
   ============================================================================================================= */

static int64_t numel_of(int rank, const int64_t* s) {
    int64_t n = 1;
    int i;
    for (i = 0; i < rank; i++) n *= s[i];
    return n;
}

static const char* dims_str(int rank, const int64_t* d) {
    static char buf[8][128];
    static int k;
    char* b = buf[k++ & 7];
    size_t len = 0;
    int i;
    b[len++] = '[';
    for (i = 0; i < rank && len < 100; i++) len += (size_t)snprintf(b + len, 128 - len, i ? ",%lld" : "%lld", (long long)d[i]);
    b[len++] = ']';
    b[len] = 0;
    return b;
}

static rlx_program* compile_graph(rlx_graph* g, int nthreads) {
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    rlx_result r;
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    cd.num_threads = nthreads;
    r = rlx_compile(g, &cd, &p);
    if (r != RLX_OK || !p) TH_CHECK(0, "compile failed: %s (%s)", rlx_result_string(r), rlx_graph_error(g));
    return r == RLX_OK ? p : NULL;
}

/* Set input `name` of dtype dt from doubles (floats) or int64 (integers, bool). */
static rlx_result set_in(rlx_program* p, const char* name, rlx_dtype dt, const double* dv, const int64_t* iv, int64_t n) {
    if (dt == RLX_F32 || dt == RLX_F64 || dt == RLX_F16 || dt == RLX_BF16)
        return rlx_set_input(p, name, RLX_F64, dv, (size_t)n * sizeof(double));
    return rlx_set_input_i64(p, name, iv, (size_t)n);
}

static int is_float_dt(rlx_dtype t) { return t == RLX_F32 || t == RLX_F64 || t == RLX_F16 || t == RLX_BF16; }

static double round_to(rlx_dtype t, double v) {
    if (t == RLX_F32) return (double)(float)v;
    return v;
}

/* =============================================================================================================
   rlx_uniform: the documented formula, written out here independently
   ============================================================================================================= */

static uint64_t t_splitmix(uint64_t x) {
    uint64_t z = x + UINT64_C(0x9E3779B97F4A7C15);
    z ^= z >> 30;
    z *= UINT64_C(0xBF58476D1CE4E5B9);
    z ^= z >> 27;
    z *= UINT64_C(0x94D049BB133111EB);
    z ^= z >> 31;
    return z;
}

static double t_uniform(uint64_t seed, int64_t counter, int64_t row) {
    uint64_t a = t_splitmix((uint64_t)row);
    uint64_t b = t_splitmix((uint64_t)counter ^ a);
    uint64_t h = t_splitmix(seed ^ b);
    return ldexp((double)(h >> 40), -24);
}

static void test_uniform(void) {
    int i, bad = 0, nonmult = 0;
    double sum = 0.0, mn = 1.0, mx = 0.0;
    /* the test's own formula against the library, on a grid that includes negative counters and big rows */
    for (i = 0; i < 3000; i++) {
        uint64_t seed = (uint64_t)i * UINT64_C(0x100000001B3) ^ (i % 3 ? 0 : UINT64_C(0xFFFFFFFFFFFFFFFF));
        int64_t counter = (int64_t)(i % 97) - 40;
        int64_t row = (int64_t)(i / 97) * 1000003;
        double a = (double)rlx_uniform(seed, counter, row), b = t_uniform(seed, counter, row);
        if (a != b && bad++ < 3) printf("  uniform(%llu, %lld, %lld) = %.9g, formula %.9g\n", (unsigned long long)seed,
                                       (long long)counter, (long long)row, a, b);
    }
    TH_CHECK(bad == 0, "rlx_uniform differs from the documented formula in %d of 3000 cases", bad);
    /* pinned literals: h >> 40 of the documented chain, computed outside rlx */
    TH_CHECK(rlx_uniform(0, 0, 0) == (float)t_uniform(0, 0, 0), "uniform(0,0,0)");
    TH_CHECK(rlx_uniform(0, 0, 0) == 2327157.0f / 16777216.0f, "uniform(0,0,0) = %.9g, pinned 2327157 * 2^-24",
             (double)rlx_uniform(0, 0, 0));
    TH_CHECK(rlx_uniform(1, 2, 3) == 14035583.0f / 16777216.0f, "uniform(1,2,3) = %.9g, pinned 14035583 * 2^-24",
             (double)rlx_uniform(1, 2, 3));
    TH_CHECK(rlx_uniform(UINT64_C(0xDEADBEEFCAFEF00D), -7, 123456789) == 5327050.0f / 16777216.0f,
             "uniform(0xDEADBEEFCAFEF00D,-7,123456789) = %.9g, pinned 5327050 * 2^-24",
             (double)rlx_uniform(UINT64_C(0xDEADBEEFCAFEF00D), -7, 123456789));
    /* range, granularity, mean */
    for (i = 0; i < 100000; i++) {
        double u = (double)rlx_uniform(42, i, i % 7);
        if (u < mn) mn = u;
        if (u > mx) mx = u;
        sum += u;
        if (u * 16777216.0 != floor(u * 16777216.0)) nonmult++;
    }
    TH_CHECK(mn >= 0.0 && mx < 1.0, "uniform range [%g, %g]", mn, mx);
    TH_CHECK(nonmult == 0, "%d values are not multiples of 2^-24", nonmult);
    TH_CHECK(fabs(sum / 100000.0 - 0.5) < 0.005, "uniform mean %g", sum / 100000.0);
    TH_CHECK(mn < 0.001 && mx > 0.999, "uniform covers [0,1): min %g max %g", mn, mx);
    /* determinism and dependence on every argument */
    TH_CHECK(rlx_uniform(5, 6, 7) == rlx_uniform(5, 6, 7), "uniform is deterministic");
    TH_CHECK(rlx_uniform(5, 6, 7) != rlx_uniform(6, 6, 7), "seed changes the value");
    TH_CHECK(rlx_uniform(5, 6, 7) != rlx_uniform(5, 7, 7), "counter changes the value");
    TH_CHECK(rlx_uniform(5, 6, 7) != rlx_uniform(5, 6, 8), "row changes the value");
    {   /* all 24-bit outputs of (seed, counter, row) and (seed, row, counter) should not coincide */
        int same = 0;
        for (i = 0; i < 200; i++) same += rlx_uniform(9, i, i + 1) == rlx_uniform(9, i + 1, i);
        TH_CHECK(same < 3, "counter and row are not interchangeable (%d coincidences)", same);
    }
}

/* =============================================================================================================
   cumsum
   ============================================================================================================= */

static void cumsum_case(rlx_dtype dt, int rank, const int64_t* shape, int axis, int excl, int rev, int nthreads) {
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p;
    rlx_tensor x, y;
    int64_t n = numel_of(rank, shape), outer = 1, len, inner = 1, o, i, s, e;
    int a = axis < 0 ? axis + rank : axis, d, bad = 0;
    double* dv = (double*)malloc(sizeof(double) * (size_t)n);
    int64_t* iv = (int64_t*)malloc(sizeof(int64_t) * (size_t)n);
    double* ref = (double*)malloc(sizeof(double) * (size_t)n);
    int64_t* iref = (int64_t*)malloc(sizeof(int64_t) * (size_t)n);
    double* got = (double*)malloc(sizeof(double) * (size_t)n);
    int64_t* igot = (int64_t*)malloc(sizeof(int64_t) * (size_t)n);
    rlx_dtype ot = is_float_dt(dt) ? dt : RLX_I64;
    rlx_dtype odt;
    int orank = -1;
    int64_t oshape[RLX_MAX_RANK] = {0};
    for (e = 0; e < n; e++) {
        switch (dt) {
        case RLX_F16: dv[e] = floor(th_uniform(-16, 16)) / 4.0; break;         /* exact sums in f16 */
        case RLX_I32: iv[e] = (int64_t)floor(th_uniform(-1000, 1000)); break;
        case RLX_I64: iv[e] = (e % 3 == 0) ? INT64_MAX - (int64_t)(e % 5) : (int64_t)floor(th_uniform(-1e15, 1e15)); break;
        case RLX_BOOL: iv[e] = th_uniform(0, 1) < 0.5; break;
        default: dv[e] = round_to(dt, th_uniform(-3, 3)); break;
        }
    }
    for (d = 0; d < a; d++) outer *= shape[d];
    len = shape[a];
    for (d = a + 1; d < rank; d++) inner *= shape[d];
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            double acc = 0.0;
            uint64_t iacc = 0;
            for (s = 0; s < len; s++) {
                int64_t jj = rev ? len - 1 - s : s, idx = (o * len + jj) * inner + i;
                if (ot == RLX_I64) {
                    if (excl) { iref[idx] = (int64_t)iacc; iacc += (uint64_t)iv[idx]; }
                    else { iacc += (uint64_t)iv[idx]; iref[idx] = (int64_t)iacc; }
                } else {
                    if (excl) { ref[idx] = round_to(dt, acc); acc += dv[idx]; }
                    else { acc += dv[idx]; ref[idx] = round_to(dt, acc); }
                }
            }
        }
    x = rlx_input(g, "x", dt, rank, shape);
    y = rlx_cumsum(g, x, axis, excl, rev);
    rlx_output(g, "y", y);
    odt = rlx_tensor_info(g, y, &orank, oshape);
    TH_CHECK(odt == ot && orank == rank && memcmp(oshape, shape, sizeof(int64_t) * (size_t)rank) == 0,
             "cumsum %s %s: output dtype %s rank %d", rlx_dtype_name(dt), dims_str(rank, shape), rlx_dtype_name(odt), orank);
    p = compile_graph(g, nthreads);
    if (p) {
        rlx_result r = set_in(p, "x", dt, dv, iv, n);
        if (r == RLX_OK) r = rlx_run(p);
        if (r == RLX_OK) r = ot == RLX_I64 ? rlx_get_output_i64(p, "y", igot, (size_t)n)
                                           : rlx_get_output(p, "y", RLX_F64, got, (size_t)n * sizeof(double));
        TH_CHECK(r == RLX_OK, "cumsum run: %s (%s)", rlx_result_string(r), rlx_program_error(p));
        if (r == RLX_OK) {
            for (e = 0; e < n; e++) {
                int ok = ot == RLX_I64 ? igot[e] == iref[e] : got[e] == ref[e];
                if (!ok && bad++ < 3) {
                    if (ot == RLX_I64) printf("  [%lld] got %lld want %lld\n", (long long)e, (long long)igot[e], (long long)iref[e]);
                    else printf("  [%lld] got %.17g want %.17g\n", (long long)e, got[e], ref[e]);
                }
            }
            TH_CHECK(bad == 0, "cumsum %s %s axis %d excl %d rev %d threads %d: %d mismatches", rlx_dtype_name(dt),
                     dims_str(rank, shape), axis, excl, rev, nthreads, bad);
        }
        rlx_program_destroy(p);
    }
    rlx_graph_destroy(g);
    free(dv); free(iv); free(ref); free(iref); free(got); free(igot);
}

static void test_cumsum(void) {
    static const int64_t shapes[][4] = {{7, 0, 0, 0}, {3, 5, 0, 0}, {2, 3, 4, 0}, {2, 1, 3, 4}, {1, 1, 1, 1}};
    static const int ranks[] = {1, 2, 3, 4, 4};
    static const rlx_dtype dts[] = {RLX_F32, RLX_F64, RLX_I32, RLX_BOOL, RLX_I64, RLX_F16};
    int si, di, ax, f;
    for (si = 0; si < COUNT(ranks); si++)
        for (di = 0; di < COUNT(dts); di++)
            for (ax = 0; ax < ranks[si]; ax++)
                for (f = 0; f < 4; f++) cumsum_case(dts[di], ranks[si], shapes[si], ax, f & 1, f >> 1, 1);
    {   /* negative axis; size-1 axis; long rows; multi-threaded (work above the parallel threshold) */
        static const int64_t s1[3] = {4, 1, 6}, s2[1] = {5000}, s3[3] = {4, 100, 300}, s4[2] = {300, 70};
        cumsum_case(RLX_F32, 3, s1, -2, 0, 0, 1);
        cumsum_case(RLX_F32, 3, s1, 1, 1, 1, 1);
        cumsum_case(RLX_F32, 1, s2, 0, 0, 0, 2);
        cumsum_case(RLX_F64, 1, s2, -1, 1, 1, 2);
        for (f = 0; f < 4; f++) {
            cumsum_case(RLX_F32, 3, s3, 1, f & 1, f >> 1, 2);
            cumsum_case(RLX_I32, 3, s3, 2, f & 1, f >> 1, 4);
            cumsum_case(RLX_F64, 2, s4, 0, f & 1, f >> 1, 3);
        }
    }
    {   /* int64 wrap-around: INT64_MAX + 1 wraps to INT64_MIN */
        rlx_graph* g = rlx_graph_create(NULL);
        int64_t s[1] = {3}, xin[3] = {INT64_MAX, 1, 5}, yv[3] = {0, 0, 0};
        rlx_program* p;
        rlx_output(g, "y", rlx_cumsum(g, rlx_input(g, "x", RLX_I64, 1, s), 0, 0, 0));
        p = compile_graph(g, 1);
        if (p) {
            rlx_set_input_i64(p, "x", xin, 3);
            rlx_run(p);
            rlx_get_output_i64(p, "y", yv, 3);
            TH_CHECK(yv[0] == INT64_MAX && yv[1] == INT64_MIN && yv[2] == INT64_MIN + 5, "cumsum wraps: %lld %lld %lld",
                     (long long)yv[0], (long long)yv[1], (long long)yv[2]);
            rlx_program_destroy(p);
        }
        rlx_graph_destroy(g);
    }
    {   /* a constant input is folded at compile time through the same kernel */
        rlx_graph* g = rlx_graph_create(NULL);
        int64_t s[1] = {4};
        float xv[4] = {1.5f, -2.0f, 4.0f, 0.25f};
        float yv[4] = {0, 0, 0, 0};
        rlx_program* p;
        rlx_output(g, "y", rlx_cumsum(g, rlx_constant(g, RLX_F32, 1, s, xv), 0, 1, 1));
        p = compile_graph(g, 1);
        if (p) {
            rlx_run(p);
            rlx_get_output_f32(p, "y", yv, 4);
            TH_CHECK(yv[0] == 2.25f && yv[1] == 4.25f && yv[2] == 0.25f && yv[3] == 0.0f,
                     "folded reverse exclusive cumsum: %g %g %g %g", (double)yv[0], (double)yv[1], (double)yv[2], (double)yv[3]);
            rlx_program_destroy(p);
        }
        rlx_graph_destroy(g);
    }
    {   /* bad axis */
        rlx_graph* g = rlx_graph_create(NULL);
        int64_t s[2] = {2, 3};
        rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, s);
        rlx_tensor y = rlx_cumsum(g, x, 2, 0, 0);
        TH_CHECK(y.id == 0 && rlx_graph_status(g) == RLX_ERROR_AXIS, "cumsum axis 2 of rank 2: %s",
                 rlx_result_string(rlx_graph_status(g)));
        rlx_graph_destroy(g);
        g = rlx_graph_create(NULL);
        x = rlx_input(g, "x", RLX_F32, 2, s);
        y = rlx_cumsum(g, x, -3, 0, 0);
        TH_CHECK(y.id == 0 && rlx_graph_status(g) == RLX_ERROR_AXIS, "cumsum axis -3 of rank 2: %s",
                 rlx_result_string(rlx_graph_status(g)));
        rlx_graph_destroy(g);
    }
}

/* =============================================================================================================
   topk
   ============================================================================================================= */

/* Documented order: is element (a, ia) better than (b, ib)? Floats: NaN above every number; ints exact. */
static int ref_better(rlx_dtype dt, double a, int64_t ai, int64_t ia, double b, int64_t bi, int64_t ib, int largest) {
    int c;
    if (is_float_dt(dt)) {
        int an = a != a, bn = b != b;
        if (an || bn) c = an && bn ? 0 : (an ? 1 : -1);
        else c = a > b ? 1 : (a < b ? -1 : 0);
    } else {
        c = ai > bi ? 1 : (ai < bi ? -1 : 0);
    }
    if (!largest) c = -c;
    return c > 0 || (c == 0 && ia < ib);
}

/* data modes: 0 random, 1 many ties, 2 ties + NaN (floats), 3 all equal */
static void topk_case(rlx_dtype dt, int rank, const int64_t* shape, int axis, int k, int largest, int mode,
                      int want_v, int want_i, int nthreads, int as_constant) {
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p;
    rlx_tensor x, tv, ti;
    rlx_result br;
    int64_t n = numel_of(rank, shape), outer = 1, len, inner = 1, o, i, e, s, on;
    int a = axis < 0 ? axis + rank : axis, d, bad_v = 0, bad_i = 0;
    int64_t oshape[RLX_MAX_RANK];
    double* dv = (double*)malloc(sizeof(double) * (size_t)n);
    int64_t* iv = (int64_t*)malloc(sizeof(int64_t) * (size_t)n);
    int64_t* ord;
    double* gotv;
    int64_t *goti, *gotvi;
    for (e = 0; e < n; e++) {
        double r = th_uniform(0, 1);
        if (mode == 3) { dv[e] = 1.5; iv[e] = 7; continue; }
        switch (dt) {
        case RLX_I32: iv[e] = mode ? (int64_t)floor(r * 4) - 2 : (int64_t)floor(r * 2000000) - 1000000; break;
        case RLX_I64:  /* values beyond 2^53 that differ only in the low bits: doubles would tie them */
            iv[e] = (mode ? (int64_t)1 << 60 : (int64_t)0) + (int64_t)floor(r * (mode ? 3 : 1e6)) * (mode ? 1 : 1000003) -
                    (e % 2 && !mode ? ((int64_t)1 << 61) : 0);
            break;
        case RLX_F16: case RLX_BF16: dv[e] = mode ? floor(r * 4) - 2 : floor(r * 512) / 8 - 32; break;  /* exact */
        default: dv[e] = mode ? floor(r * 4) - 2.0 : round_to(dt, th_uniform(-10, 10)); break;
        }
        if (mode == 2 && is_float_dt(dt) && th_uniform(0, 1) < 0.2) dv[e] = (double)NAN;
        if (mode == 2 && is_float_dt(dt) && th_uniform(0, 1) < 0.1) dv[e] = th_uniform(0, 1) < 0.5 ? -(double)INFINITY : (double)INFINITY;
        if (mode == 1 && is_float_dt(dt) && dv[e] == 0.0 && th_uniform(0, 1) < 0.5) dv[e] = -0.0;  /* -0 equals +0 */
    }
    for (d = 0; d < a; d++) outer *= shape[d];
    len = shape[a];
    for (d = a + 1; d < rank; d++) inner *= shape[d];
    memcpy(oshape, shape, sizeof(int64_t) * (size_t)rank);
    oshape[a] = k;
    on = outer * k * inner;
    ord = (int64_t*)malloc(sizeof(int64_t) * (size_t)len);
    gotv = (double*)malloc(sizeof(double) * (size_t)on);
    goti = (int64_t*)malloc(sizeof(int64_t) * (size_t)on);
    gotvi = (int64_t*)malloc(sizeof(int64_t) * (size_t)on);
    if (as_constant) {
        void* buf = malloc((size_t)n * 8);
        for (e = 0; e < n; e++) {
            if (dt == RLX_F32) ((float*)buf)[e] = (float)dv[e];
            else if (dt == RLX_F64) ((double*)buf)[e] = dv[e];
            else if (dt == RLX_I32) ((int32_t*)buf)[e] = (int32_t)iv[e];
            else ((int64_t*)buf)[e] = iv[e];
        }
        x = rlx_constant(g, dt, rank, shape, buf);
        free(buf);
    } else {
        x = rlx_input(g, "x", dt, rank, shape);
    }
    br = rlx_topk(g, x, k, axis, largest, want_v ? &tv : NULL, want_i ? &ti : NULL);
    TH_CHECK(br == RLX_OK, "topk build: %s (%s)", rlx_result_string(br), rlx_graph_error(g));
    if (want_v) {
        int r2 = -1;
        int64_t s2[RLX_MAX_RANK] = {0};
        rlx_dtype t2 = rlx_tensor_info(g, tv, &r2, s2);
        TH_CHECK(t2 == dt && r2 == rank && memcmp(s2, oshape, sizeof(int64_t) * (size_t)rank) == 0, "topk values: %s %s",
                 rlx_dtype_name(t2), dims_str(r2, s2));
        rlx_output(g, "v", tv);
    }
    if (want_i) {
        int r2 = -1;
        int64_t s2[RLX_MAX_RANK] = {0};
        rlx_dtype t2 = rlx_tensor_info(g, ti, &r2, s2);
        TH_CHECK(t2 == RLX_I64 && r2 == rank && memcmp(s2, oshape, sizeof(int64_t) * (size_t)rank) == 0,
                 "topk indices: %s %s", rlx_dtype_name(t2), dims_str(r2, s2));
        rlx_output(g, "i", ti);
    }
    p = compile_graph(g, nthreads);
    if (p) {
        rlx_result r = as_constant ? RLX_OK : set_in(p, "x", dt, dv, iv, n);
        if (r == RLX_OK) r = rlx_run(p);
        if (r == RLX_OK && want_v) {
            if (is_float_dt(dt)) r = rlx_get_output(p, "v", RLX_F64, gotv, (size_t)on * sizeof(double));
            else r = rlx_get_output_i64(p, "v", gotvi, (size_t)on);
        }
        if (r == RLX_OK && want_i) r = rlx_get_output_i64(p, "i", goti, (size_t)on);
        TH_CHECK(r == RLX_OK, "topk run: %s (%s)", rlx_result_string(r), rlx_program_error(p));
        if (r == RLX_OK) {
            for (o = 0; o < outer; o++)
                for (i = 0; i < inner; i++) {
                    /* stable insertion sort of the row's indices by the documented order */
                    for (s = 0; s < len; s++) {
                        int64_t t = s;
                        while (t > 0) {
                            int64_t pa = (o * len + ord[t - 1]) * inner + i, pb = (o * len + s) * inner + i;
                            if (!ref_better(dt, dv[pb], iv[pb], s, dv[pa], iv[pa], ord[t - 1], largest)) break;
                            ord[t] = ord[t - 1];
                            t--;
                        }
                        ord[t] = s;
                    }
                    for (s = 0; s < k; s++) {
                        int64_t oi = (o * k + s) * inner + i, src = (o * len + ord[s]) * inner + i;
                        if (want_i && goti[oi] != ord[s] && bad_i++ < 3)
                            printf("  row (%lld,%lld) rank %lld: index %lld want %lld\n", (long long)o, (long long)i,
                                   (long long)s, (long long)goti[oi], (long long)ord[s]);
                        if (want_v) {
                            int ok = is_float_dt(dt) ? th_close(gotv[oi], dv[src], 0, 0) && (gotv[oi] != 0 || signbit(gotv[oi]) == signbit(dv[src]))
                                                     : gotvi[oi] == iv[src];
                            if (!ok && bad_v++ < 3)
                                printf("  row (%lld,%lld) rank %lld: value %.17g / %lld want %.17g / %lld\n", (long long)o,
                                       (long long)i, (long long)s, gotv[oi], (long long)gotvi[oi], dv[src], (long long)iv[src]);
                        }
                    }
                }
            TH_CHECK(bad_i == 0 && bad_v == 0,
                     "topk %s %s axis %d k %d largest %d mode %d v%d i%d threads %d const %d: %d index / %d value mismatches",
                     rlx_dtype_name(dt), dims_str(rank, shape), axis, k, largest, mode, want_v, want_i, nthreads, as_constant,
                     bad_i, bad_v);
        }
        rlx_program_destroy(p);
    }
    rlx_graph_destroy(g);
    free(dv); free(iv); free(ord); free(gotv); free(goti); free(gotvi);
}

static void topk_bad(rlx_dtype dt, int rank, const int64_t* shape, int k, int axis, rlx_result want, const char* what) {
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor x = rlx_input(g, "x", dt, rank, shape), v, i;
    rlx_result r;
    v.id = 99; i.id = 99;
    r = rlx_topk(g, x, k, axis, 1, &v, &i);
    TH_CHECK(r == want && rlx_graph_status(g) == want && v.id == 0 && i.id == 0, "topk %s: got %s, status %s, want %s", what,
             rlx_result_string(r), rlx_result_string(rlx_graph_status(g)), rlx_result_string(want));
    rlx_graph_destroy(g);
}

static void test_topk(void) {
    static const int64_t shapes[][4] = {{9, 0, 0, 0}, {4, 6, 0, 0}, {3, 5, 4, 0}, {2, 3, 1, 5}};
    static const int ranks[] = {1, 2, 3, 4};
    static const rlx_dtype dts[] = {RLX_F32, RLX_I32, RLX_I64, RLX_F16, RLX_F64, RLX_BF16};
    int si, di, ax, lg, mode;
    for (si = 0; si < COUNT(ranks); si++)
        for (di = 0; di < COUNT(dts); di++)
            for (ax = 0; ax < ranks[si]; ax++)
                for (lg = 0; lg < 2; lg++)
                    for (mode = 0; mode < 3; mode++) {
                        int n = (int)shapes[si][ax];
                        int ks[3], nk = 0, q;
                        ks[nk++] = 1;
                        if (n > 2) ks[nk++] = n / 2;
                        if (n > 1) ks[nk++] = n;
                        for (q = 0; q < nk; q++) topk_case(dts[di], ranks[si], shapes[si], ax, ks[q], lg, mode, 1, 1, 1, 0);
                    }
    {   /* negative axis, one output at a time, all-equal rows, long rows (radix path), threads, folding */
        static const int64_t s1[2] = {3, 7}, s2[1] = {1000}, s3[2] = {64, 300}, s4[2] = {300, 64}, s5[3] = {2, 2000, 3};
        topk_case(RLX_F32, 2, s1, -1, 3, 1, 0, 1, 0, 1, 0);
        topk_case(RLX_F32, 2, s1, -2, 2, 0, 0, 0, 1, 1, 0);
        topk_case(RLX_I32, 2, s1, 1, 7, 1, 3, 1, 1, 1, 0);
        topk_case(RLX_F32, 2, s1, 1, 4, 0, 3, 1, 1, 1, 0);
        for (mode = 0; mode < 3; mode++)
            for (lg = 0; lg < 2; lg++) {
                topk_case(RLX_F32, 1, s2, 0, 1000, lg, mode, 1, 1, 1, 0);   /* radix sort */
                topk_case(RLX_F32, 1, s2, 0, 500, lg, mode, 1, 1, 1, 0);    /* radix sort, partial */
                topk_case(RLX_F32, 1, s2, 0, 63, lg, mode, 1, 1, 1, 0);     /* radix, k at the cutoff */
                topk_case(RLX_F32, 1, s2, 0, 62, lg, mode, 1, 1, 1, 0);     /* heap, k just below it */
                topk_case(RLX_F32, 1, s2, 0, 5, lg, mode, 1, 1, 1, 0);      /* heap */
                topk_case(RLX_F64, 1, s2, 0, 999, lg, mode, 1, 1, 1, 0);    /* 64-bit keys: radix and heap */
                topk_case(RLX_F64, 1, s2, 0, 20, lg, mode, 1, 1, 1, 0);
                topk_case(RLX_I64, 1, s2, 0, 700, lg, mode, 1, 1, 1, 0);
                topk_case(RLX_I64, 1, s2, 0, 30, lg, mode, 1, 1, 1, 0);
                topk_case(RLX_F16, 1, s2, 0, 300, lg, mode, 1, 1, 1, 0);
                topk_case(RLX_BF16, 1, s2, 0, 1000, lg, mode, 1, 1, 1, 0);
                topk_case(RLX_BF16, 1, s2, 0, 7, lg, mode, 1, 1, 1, 0);
                topk_case(RLX_F32, 2, s3, 1, 100, lg, mode, 1, 1, 2, 0);    /* parallel rows */
                topk_case(RLX_F32, 2, s4, 0, 299, lg, mode, 1, 1, 2, 0);    /* strided rows, parallel */
                topk_case(RLX_I32, 3, s5, 1, 1500, lg, mode, 0, 1, 3, 0);
                topk_case(RLX_I32, 3, s5, 1, 10, lg, mode, 1, 0, 4, 0);
            }
        topk_case(RLX_F32, 2, s1, 1, 3, 1, 1, 1, 1, 1, 1);
        topk_case(RLX_I64, 2, s1, 0, 2, 0, 0, 1, 1, 1, 1);
        topk_case(RLX_F64, 1, s2, 0, 600, 1, 2, 1, 1, 1, 1);
    }
    {   /* exact semantics on a hand-made row: NaN first with largest, last with smallest; ties by index */
        rlx_graph* g = rlx_graph_create(NULL);
        int64_t s[1] = {8};
        float xv[8];
        int64_t iv[8], jv[8];
        float vv[8];
        rlx_tensor x, v, i, v2, i2;
        rlx_program* p;
        static const int64_t want_l[8] = {2, 6, 5, 1, 3, 0, 4, 7}, want_s[8] = {4, 7, 0, 1, 3, 5, 2, 6};
        xv[0] = 1.0f; xv[1] = 2.0f; xv[2] = NAN; xv[3] = 2.0f; xv[4] = -INFINITY; xv[5] = INFINITY; xv[6] = NAN; xv[7] = -INFINITY;
        x = rlx_input(g, "x", RLX_F32, 1, s);
        rlx_topk(g, x, 8, 0, 1, &v, &i);
        rlx_topk(g, x, 8, 0, 0, &v2, &i2);
        rlx_output(g, "v", v);
        rlx_output(g, "i", i);
        rlx_output(g, "i2", i2);
        p = compile_graph(g, 1);
        if (p) {
            int k, ok = 1, ok2 = 1;
            rlx_set_input_f32(p, "x", xv, 8);
            rlx_run(p);
            rlx_get_output_i64(p, "i", iv, 8);
            rlx_get_output_i64(p, "i2", jv, 8);
            rlx_get_output_f32(p, "v", vv, 8);
            for (k = 0; k < 8; k++) { ok &= iv[k] == want_l[k]; ok2 &= jv[k] == want_s[k]; }
            TH_CHECK(ok, "topk largest order: %lld %lld %lld %lld %lld %lld %lld %lld", (long long)iv[0], (long long)iv[1],
                     (long long)iv[2], (long long)iv[3], (long long)iv[4], (long long)iv[5], (long long)iv[6], (long long)iv[7]);
            TH_CHECK(ok2, "topk smallest order: %lld %lld %lld %lld %lld %lld %lld %lld", (long long)jv[0], (long long)jv[1],
                     (long long)jv[2], (long long)jv[3], (long long)jv[4], (long long)jv[5], (long long)jv[6], (long long)jv[7]);
            TH_CHECK(vv[0] != vv[0] && vv[1] != vv[1] && vv[2] == INFINITY && vv[3] == 2.0f && vv[7] == -INFINITY,
                     "topk values with NaN/inf");
            rlx_program_destroy(p);
        }
        rlx_graph_destroy(g);
    }
    {   /* both outputs NULL: nothing to build, fine */
        rlx_graph* g = rlx_graph_create(NULL);
        int64_t s[1] = {4};
        rlx_tensor x = rlx_input(g, "x", RLX_F32, 1, s);
        int before = rlx_graph_node_count(g);
        TH_CHECK(rlx_topk(g, x, 2, 0, 1, NULL, NULL) == RLX_OK && rlx_graph_node_count(g) == before,
                 "topk with no outputs is a no-op");
        rlx_graph_destroy(g);
    }
    {
        static const int64_t s[2] = {3, 5};
        topk_bad(RLX_F32, 2, s, 0, 1, RLX_ERROR_SHAPE, "k = 0");
        topk_bad(RLX_F32, 2, s, 6, 1, RLX_ERROR_SHAPE, "k > n");
        topk_bad(RLX_F32, 2, s, 4, 0, RLX_ERROR_SHAPE, "k > n along axis 0");
        topk_bad(RLX_F32, 2, s, -1, 1, RLX_ERROR_SHAPE, "k < 0");
        topk_bad(RLX_F32, 2, s, 1, 2, RLX_ERROR_AXIS, "axis 2");
        topk_bad(RLX_F32, 2, s, 1, -3, RLX_ERROR_AXIS, "axis -3");
        topk_bad(RLX_BOOL, 2, s, 1, 1, RLX_ERROR_DTYPE, "bool");
        TH_CHECK(rlx_topk(NULL, rlx_input(NULL, "x", RLX_F32, 2, s), 1, 0, 1, NULL, NULL) == RLX_ERROR_INVALID_ARGUMENT,
                 "topk on a NULL graph");
    }
}

/* =============================================================================================================
   sample
   ============================================================================================================= */

/* Independent re-implementation of the documented sampler for one row of doubles (already in the logits'
   dtype). temperature and top_p are the float values of the descriptor. */
static int64_t ref_sample(const double* lg, int64_t V, float temperature, int top_k, float top_p, uint64_t seed,
                          int64_t counter, int64_t row) {
    double T = (double)temperature, tp = (double)top_p, lmax, S, u, thr;
    int64_t i, m, mk, *c;
    double* cs;
    int64_t res;
    if (!(T > 0.0)) {
        int64_t best = 0;
        for (i = 0; i < V; i++) {
            if (lg[i] != lg[i]) return i;
            if (lg[i] > lg[best]) best = i;
        }
        return best;
    }
    c = (int64_t*)malloc(sizeof(int64_t) * (size_t)V);
    cs = (double*)malloc(sizeof(double) * (size_t)V);
    /* insertion of each index after every index with a larger-or-equal logit (NaN as -inf): stable order */
    for (i = 0; i < V; i++) {
        double li = lg[i] != lg[i] ? -(double)INFINITY : lg[i];
        int64_t t = i;
        while (t > 0) {
            double lp = lg[c[t - 1]] != lg[c[t - 1]] ? -(double)INFINITY : lg[c[t - 1]];
            if (!(li > lp)) break;
            c[t] = c[t - 1];
            t--;
        }
        c[t] = i;
    }
    m = (top_k > 0 && top_k < V) ? top_k : V;
    lmax = lg[c[0]] != lg[c[0]] ? -(double)INFINITY : lg[c[0]];
    if (lmax == -(double)INFINITY) { res = c[0]; goto done; }
    S = 0.0;
    for (i = 0; i < m; i++) {
        double l = lg[c[i]] != lg[c[i]] ? -(double)INFINITY : lg[c[i]];
        double w = (l == lmax) ? 1.0 : exp((l - lmax) / T);
        S += w;
        cs[i] = S;
    }
    mk = m;
    if (tp > 0.0 && tp < 1.0) {
        thr = tp * S;
        for (i = 0; i < m; i++)
            if (cs[i] >= thr) { mk = i + 1; break; }
    }
    u = t_uniform(seed, counter, row) * cs[mk - 1];
    res = c[mk - 1];
    for (i = 0; i < mk; i++)
        if (cs[i] > u) { res = c[i]; break; }
done:
    free(c);
    free(cs);
    return res;
}

typedef struct samp {
    rlx_graph* g;
    rlx_program* p;
    rlx_dtype dt;
    int64_t rows, V;
    rlx_sample_desc d;
} samp;

static int samp_make(samp* s, rlx_dtype dt, int rank, const int64_t* shape, const rlx_sample_desc* d, rlx_dtype cdt,
                     int crank, int nthreads) {
    int64_t cs[1] = {1};
    rlx_tensor l, c, y;
    memset(s, 0, sizeof *s);
    s->g = rlx_graph_create(NULL);
    s->dt = dt;
    s->V = shape[rank - 1];
    s->rows = numel_of(rank, shape) / s->V;
    s->d = *d;
    l = rlx_input(s->g, "l", dt, rank, shape);
    c = rlx_input(s->g, "c", cdt, crank, cs);
    y = rlx_sample(s->g, l, c, d);
    {
        int r = -1;
        int64_t sh[RLX_MAX_RANK] = {0};
        rlx_dtype t = rlx_tensor_info(s->g, y, &r, sh);
        TH_CHECK(t == RLX_I64 && r == rank - 1 && (rank == 1 || memcmp(sh, shape, sizeof(int64_t) * (size_t)(rank - 1)) == 0),
                 "sample output %s rank %d", rlx_dtype_name(t), r);
    }
    rlx_output(s->g, "y", y);
    s->p = compile_graph(s->g, nthreads);
    return s->p != NULL;
}

static void samp_free(samp* s) {
    rlx_program_destroy(s->p);
    rlx_graph_destroy(s->g);
}

/* Runs with logits lg (rows x V doubles, exact in the dtype) and counter; out gets rows tokens. */
static int samp_run(samp* s, const double* lg, int64_t counter, int64_t* out) {
    rlx_result r = rlx_set_input(s->p, "l", RLX_F64, lg, (size_t)(s->rows * s->V) * sizeof(double));
    if (r == RLX_OK) r = rlx_set_input_i64(s->p, "c", &counter, 1);
    if (r == RLX_OK) r = rlx_run(s->p);
    if (r == RLX_OK) r = rlx_get_output_i64(s->p, "y", out, (size_t)s->rows);
    if (r != RLX_OK) TH_CHECK(0, "sample run: %s (%s)", rlx_result_string(r), rlx_program_error(s->p));
    return r == RLX_OK;
}

static rlx_sample_desc sdesc(float temperature, int top_k, float top_p, uint64_t seed) {
    rlx_sample_desc d;
    memset(&d, 0, sizeof d);
    d.temperature = temperature;
    d.top_k = top_k;
    d.top_p = top_p;
    d.seed = seed;
    return d;
}

/* logits modes: 0 random, 1 coarse ties, 2 ties + NaN/inf, 3 all NaN, 4 all -inf, 5 some +inf */
static void gen_logits(double* lg, int64_t n, rlx_dtype dt, int mode, double scale) {
    int64_t e;
    for (e = 0; e < n; e++) {
        double r = th_uniform(0, 1);
        if (mode == 3) { lg[e] = (double)NAN; continue; }
        if (mode == 4) { lg[e] = -(double)INFINITY; continue; }
        if (mode == 0) lg[e] = dt == RLX_F16 || dt == RLX_BF16 ? floor(r * 64) / 8 - 4 : round_to(dt, (r * 2 - 1) * scale);
        else lg[e] = floor(r * 5) / 2;
        if (mode == 2 && th_uniform(0, 1) < 0.2) lg[e] = (double)NAN;
        if (mode == 2 && th_uniform(0, 1) < 0.1) lg[e] = -(double)INFINITY;
        if (mode == 5 && th_uniform(0, 1) < 0.05) lg[e] = (double)INFINITY;
    }
}

/* Every draw of a program against the reference, over several counters. */
static void sample_case(rlx_dtype dt, int rank, const int64_t* shape, rlx_sample_desc d, int mode, int nthreads, int ncounters) {
    samp s;
    int64_t n = numel_of(rank, shape), r, c;
    double* lg = (double*)malloc(sizeof(double) * (size_t)n);
    int64_t* out;
    int bad = 0;
    if (!samp_make(&s, dt, rank, shape, &d, RLX_I64, 0, nthreads)) { free(lg); samp_free(&s); return; }
    out = (int64_t*)malloc(sizeof(int64_t) * (size_t)s.rows);
    gen_logits(lg, n, dt, mode, 4.0);
    for (c = 0; c < ncounters; c++) {
        int64_t counter = c * 7919 - 3;
        if (!samp_run(&s, lg, counter, out)) break;
        for (r = 0; r < s.rows; r++) {
            int64_t want = ref_sample(lg + r * s.V, s.V, d.temperature, d.top_k, d.top_p, d.seed, counter, r);
            if (out[r] != want && bad++ < 3)
                printf("  counter %lld row %lld: token %lld want %lld\n", (long long)counter, (long long)r, (long long)out[r],
                       (long long)want);
        }
    }
    TH_CHECK(bad == 0, "sample %s %s T %g top_k %d top_p %g seed %llu mode %d threads %d: %d mismatching draws",
             rlx_dtype_name(dt), dims_str(rank, shape), (double)d.temperature, d.top_k, (double)d.top_p,
             (unsigned long long)d.seed, mode, nthreads, bad);
    free(lg);
    free(out);
    samp_free(&s);
}

/* Empirical frequencies over N counters against the probabilities of the documented distribution. */
static void sample_stats(float temperature, int top_k, float top_p) {
    static const double base[6] = {1.0, 0.5, 2.0, -1.0, 0.0, 1.5};
    const int N = 20000;
    int64_t shape[1] = {6};
    double prob[6], w[6], S = 0.0, cum = 0.0;
    int order[6], cnt[6] = {0, 0, 0, 0, 0, 0}, i, j, m, mismatch = 0, worst = -1;
    double worst_z = 0.0;
    samp s;
    rlx_sample_desc d = sdesc(temperature, top_k, top_p, UINT64_C(0x5EED));
    /* expected distribution: sort, truncate to top_k, softmax, top_p prefix, renormalise */
    for (i = 0; i < 6; i++) order[i] = i;
    for (i = 1; i < 6; i++)
        for (j = i; j > 0 && base[order[j]] > base[order[j - 1]]; j--) { int t = order[j]; order[j] = order[j - 1]; order[j - 1] = t; }
    m = top_k > 0 && top_k < 6 ? top_k : 6;
    for (i = 0; i < 6; i++) { w[i] = 0.0; prob[i] = 0.0; }
    for (i = 0; i < m; i++) { w[order[i]] = exp((base[order[i]] - base[order[0]]) / (double)temperature); S += w[order[i]]; }
    if (top_p > 0.0f && top_p < 1.0f) {
        int keep = m;
        for (i = 0; i < m; i++) { cum += w[order[i]] / S; if (cum >= (double)top_p) { keep = i + 1; break; } }
        for (i = keep; i < m; i++) w[order[i]] = 0.0;
        S = 0.0;
        for (i = 0; i < m; i++) S += w[order[i]];
    }
    for (i = 0; i < 6; i++) prob[i] = w[i] / S;
    if (!samp_make(&s, RLX_F32, 1, shape, &d, RLX_I64, 0, 1)) { samp_free(&s); return; }
    for (i = 0; i < N; i++) {
        int64_t tok = -1;
        if (!samp_run(&s, base, i, &tok)) break;
        if (tok < 0 || tok >= 6) { mismatch++; continue; }
        cnt[tok]++;
        if (tok != ref_sample(base, 6, temperature, top_k, top_p, d.seed, i, 0)) mismatch++;
    }
    for (i = 0; i < 6; i++) {
        double f = (double)cnt[i] / N, se = sqrt(prob[i] * (1.0 - prob[i]) / N);
        double z = se > 0 ? fabs(f - prob[i]) / se : (cnt[i] ? 1e9 : 0.0);
        if (z > worst_z) { worst_z = z; worst = i; }
    }
    TH_CHECK(mismatch == 0, "sample stats T %g top_k %d top_p %g: %d draws differ from the reference", (double)temperature,
             top_k, (double)top_p, mismatch);
    TH_CHECK(worst_z < 4.5, "sample stats T %g top_k %d top_p %g: token %d frequency %g vs p %g (%.1f standard errors)",
             (double)temperature, top_k, (double)top_p, worst, worst >= 0 ? (double)cnt[worst] / N : 0.0,
             worst >= 0 ? prob[worst] : 0.0, worst_z);
    samp_free(&s);
}

/* argmax reference: first maximum, first NaN wins */
static int64_t ref_argmax(const double* lg, int64_t V) { return ref_sample(lg, V, 0.0f, 0, 0.0f, 0, 0, 0); }

/* ties: logits with exact ties (fine unless the temperature is tiny: tied maxima then share the mass) */
static void sample_vs_greedy(rlx_sample_desc d, const char* what, int with_nan, int ties) {
    int64_t shape[2] = {16, 50};
    double lg[16 * 50];
    int64_t out[16];
    int c, r, bad = 0;
    samp s;
    if (!samp_make(&s, RLX_F32, 2, shape, &d, RLX_I32, 1, 1)) { samp_free(&s); return; }
    for (c = 0; c < 20; c++) {
        gen_logits(lg, 16 * 50, RLX_F32, ties ? c % 2 : 0, 3.0);
        if (with_nan) { lg[c * 7 % 800] = (double)NAN; lg[(c * 13 + 5) % 800] = (double)NAN; }
        if (!samp_run(&s, lg, c, out)) break;
        for (r = 0; r < 16; r++) {
            int64_t want = ref_argmax(lg + r * 50, 50);
            if (out[r] != want && bad++ < 3) printf("  %s: counter %d row %d token %lld argmax %lld\n", what, c, r,
                                                   (long long)out[r], (long long)want);
        }
    }
    TH_CHECK(bad == 0, "%s equals greedy: %d mismatches", what, bad);
    samp_free(&s);
}

static void sample_bad(void) {
    int64_t ls[2] = {2, 5}, cs1[1] = {1}, cs2[1] = {2};
    rlx_sample_desc d = sdesc(1.0f, 0, 0.0f, 1);
    rlx_graph* g;
    rlx_tensor l, c, y;
    /* non-scalar counter */
    g = rlx_graph_create(NULL);
    l = rlx_input(g, "l", RLX_F32, 2, ls);
    c = rlx_input(g, "c", RLX_I64, 1, cs2);
    y = rlx_sample(g, l, c, &d);
    TH_CHECK(y.id == 0 && rlx_graph_status(g) == RLX_ERROR_DTYPE, "sample with a [2] counter: %s",
             rlx_result_string(rlx_graph_status(g)));
    rlx_graph_destroy(g);
    /* float counter */
    g = rlx_graph_create(NULL);
    l = rlx_input(g, "l", RLX_F32, 2, ls);
    c = rlx_input(g, "c", RLX_F32, 0, cs1);
    y = rlx_sample(g, l, c, &d);
    TH_CHECK(y.id == 0 && rlx_graph_status(g) == RLX_ERROR_DTYPE, "sample with an f32 counter: %s",
             rlx_result_string(rlx_graph_status(g)));
    rlx_graph_destroy(g);
    /* integer logits */
    g = rlx_graph_create(NULL);
    l = rlx_input(g, "l", RLX_I32, 2, ls);
    c = rlx_input(g, "c", RLX_I64, 0, cs1);
    y = rlx_sample(g, l, c, &d);
    TH_CHECK(y.id == 0 && rlx_graph_status(g) == RLX_ERROR_DTYPE, "sample with i32 logits: %s",
             rlx_result_string(rlx_graph_status(g)));
    rlx_graph_destroy(g);
    /* negative top_k, NaN temperature, infinite temperature, negative top_p, NULL desc */
    {
        rlx_sample_desc bads[4];
        int k;
        bads[0] = sdesc(1.0f, -1, 0.0f, 1);
        bads[1] = sdesc(NAN, 0, 0.0f, 1);
        bads[2] = sdesc(INFINITY, 0, 0.0f, 1);
        bads[3] = sdesc(1.0f, 0, -0.5f, 1);
        for (k = 0; k < 5; k++) {
            g = rlx_graph_create(NULL);
            l = rlx_input(g, "l", RLX_F32, 2, ls);
            c = rlx_input(g, "c", RLX_I64, 0, cs1);
            y = rlx_sample(g, l, c, k < 4 ? &bads[k] : NULL);
            TH_CHECK(y.id == 0 && rlx_graph_status(g) == RLX_ERROR_INVALID_ARGUMENT, "sample bad desc %d: %s", k,
                     rlx_result_string(rlx_graph_status(g)));
            rlx_graph_destroy(g);
        }
    }
    /* an invalid logits handle */
    g = rlx_graph_create(NULL);
    l.id = 0;
    c = rlx_input(g, "c", RLX_I64, 0, cs1);
    y = rlx_sample(g, l, c, &d);
    TH_CHECK(y.id == 0 && rlx_graph_status(g) == RLX_ERROR_INVALID_TENSOR, "sample with a 0 logits handle: %s",
             rlx_result_string(rlx_graph_status(g)));
    rlx_graph_destroy(g);
}

static void test_sample(void) {
    static const rlx_dtype dts[] = {RLX_F32, RLX_F64, RLX_F16, RLX_BF16};
    int di, mode;
    /* reference equality over dtypes, shapes and settings */
    for (di = 0; di < COUNT(dts); di++) {
        static const int64_t s1[1] = {37}, s2[2] = {5, 23}, s3[3] = {2, 3, 17}, s4[2] = {3, 1}, s5[4] = {2, 1, 2, 6};
        for (mode = 0; mode < 6; mode++) {
            sample_case(dts[di], 1, s1, sdesc(1.0f, 0, 0.0f, 1), mode, 1, 8);
            sample_case(dts[di], 2, s2, sdesc(0.7f, 5, 0.0f, 2), mode, 1, 8);
            sample_case(dts[di], 3, s3, sdesc(1.3f, 0, 0.9f, 3), mode, 1, 8);
            sample_case(dts[di], 2, s2, sdesc(2.0f, 10, 0.5f, UINT64_C(0xFFFFFFFFFFFFFFFF)), mode, 1, 8);
            sample_case(dts[di], 2, s2, sdesc(0.0f, 3, 0.5f, 4), mode, 1, 4);     /* greedy */
            sample_case(dts[di], 2, s2, sdesc(-1.0f, 0, 0.0f, 4), mode, 1, 2);    /* greedy */
            sample_case(dts[di], 2, s4, sdesc(1.0f, 0, 0.5f, 5), mode, 1, 2);     /* V = 1 */
            sample_case(dts[di], 4, s5, sdesc(0.9f, 2, 0.0f, 6), mode, 1, 3);
        }
    }
    {   /* large vocabularies: radix sort (top_k 0 or large), heap (small top_k), parallel rows */
        static const int64_t big1[1] = {5000}, big2[2] = {8, 4000}, big3[2] = {3, 300};
        for (mode = 0; mode < 3; mode++) {
            sample_case(RLX_F32, 1, big1, sdesc(1.0f, 0, 0.0f, 11), mode, 1, 3);
            sample_case(RLX_F32, 1, big1, sdesc(0.8f, 0, 0.95f, 12), mode, 1, 3);
            sample_case(RLX_F32, 1, big1, sdesc(1.0f, 1000, 0.0f, 13), mode, 1, 3);
            sample_case(RLX_F32, 1, big1, sdesc(1.0f, 40, 0.9f, 14), mode, 1, 3);
            sample_case(RLX_F32, 2, big2, sdesc(1.0f, 0, 0.0f, 15), mode, 2, 2);
            sample_case(RLX_F32, 2, big2, sdesc(0.5f, 50, 0.8f, 16), mode, 4, 2);
            sample_case(RLX_F64, 2, big2, sdesc(1.0f, 3000, 0.99f, 17), mode, 2, 2);
            sample_case(RLX_F32, 2, big2, sdesc(0.0f, 0, 0.0f, 18), mode, 2, 1);
            sample_case(RLX_F16, 2, big3, sdesc(1.0f, 0, 0.0f, 19), mode, 1, 3);
            sample_case(RLX_F64, 1, big1, sdesc(1.2f, 100, 0.0f, 20), mode, 1, 3);   /* 64-bit keys, heap */
            sample_case(RLX_F64, 1, big1, sdesc(1.2f, 0, 0.7f, 21), mode, 1, 3);     /* 64-bit keys, radix */
            sample_case(RLX_BF16, 1, big1, sdesc(1.0f, 0, 0.0f, 22), mode, 1, 3);
            sample_case(RLX_F16, 1, big1, sdesc(1.0f, 400, 0.0f, 23), mode, 1, 3);
        }
    }
    /* statistics: frequencies over 20000 counters match the documented distribution */
    sample_stats(1.0f, 0, 0.0f);
    sample_stats(0.7f, 0, 0.0f);
    sample_stats(1.0f, 3, 0.0f);
    sample_stats(1.0f, 0, 0.6f);
    sample_stats(2.0f, 4, 0.9f);
    sample_stats(1.0f, 0, 1.0f);   /* top_p = 1: off */
    /* degenerate settings equal greedy */
    sample_vs_greedy(sdesc(1.0f, 1, 0.0f, 21), "top_k = 1", 0, 1);
    sample_vs_greedy(sdesc(5.0f, 1, 0.0f, 22), "top_k = 1 at T = 5", 0, 1);
    sample_vs_greedy(sdesc(1.0f, 0, 1e-6f, 23), "top_p = 1e-6", 0, 1);
    sample_vs_greedy(sdesc(1.0f, 0, 1e-30f, 24), "top_p = 1e-30", 0, 1);
    sample_vs_greedy(sdesc(0.0f, 0, 0.0f, 25), "temperature 0", 1, 1);
    sample_vs_greedy(sdesc(-2.0f, 7, 0.3f, 26), "temperature < 0", 1, 1);
    sample_vs_greedy(sdesc(1e-30f, 0, 0.0f, 27), "temperature 1e-30", 0, 0);
    {   /* reproducibility: same seed + counter -> same tokens; other counters / seeds -> other draws */
        int64_t shape[1] = {1000};
        double lg[1000];
        int64_t a = -1, b = -2, toks[100];
        int i, j, distinct = 0, diff_seed = 0;
        samp s, s2;
        rlx_sample_desc d = sdesc(1.0f, 0, 0.0f, 77), d2 = sdesc(1.0f, 0, 0.0f, 78);
        for (i = 0; i < 1000; i++) lg[i] = 0.0;   /* uniform over 1000 tokens */
        if (samp_make(&s, RLX_F32, 1, shape, &d, RLX_I64, 0, 1) && samp_make(&s2, RLX_F32, 1, shape, &d2, RLX_I64, 0, 1)) {
            samp_run(&s, lg, 5, &a);
            samp_run(&s, lg, 5, &b);
            TH_CHECK(a == b, "same seed and counter give the same token (%lld vs %lld)", (long long)a, (long long)b);
            samp_run(&s2, lg, 5, &b);
            diff_seed += a != b;
            for (i = 0; i < 100; i++) {
                samp_run(&s, lg, 1000 + i, &toks[i]);
                samp_run(&s2, lg, 1000 + i, &b);
                diff_seed += toks[i] != b;
            }
            for (i = 0; i < 100; i++) {
                int seen = 0;
                for (j = 0; j < i; j++) seen |= toks[j] == toks[i];
                distinct += !seen;
            }
            TH_CHECK(distinct > 85, "100 counters give %d distinct tokens out of 1000 equally likely", distinct);
            TH_CHECK(diff_seed > 90, "another seed changes %d of 101 draws", diff_seed);
            /* the token is the uniform draw's bucket: floor(u * 1000) up to rounding */
            {
                int off = 0;
                for (i = 0; i < 100; i++) {
                    double u = t_uniform(77, 1000 + i, 0) * 1000.0;
                    if (toks[i] != (int64_t)floor(u) && fabs(u - floor(u + 0.5)) > 1e-6) off++;
                }
                TH_CHECK(off == 0, "uniform logits: %d tokens are not floor(u * V)", off);
            }
            {   /* a clone draws the same tokens */
                rlx_program* cl = NULL;
                int64_t t1 = -1, t2 = -2, ctr = 31;
                TH_CHECK(rlx_program_clone(s.p, 1, &cl) == RLX_OK && cl, "clone");
                if (cl) {
                    rlx_set_input(cl, "l", RLX_F64, lg, sizeof lg);
                    rlx_set_input_i64(cl, "c", &ctr, 1);
                    rlx_run(cl);
                    rlx_get_output_i64(cl, "y", &t1, 1);
                    samp_run(&s, lg, 31, &t2);
                    TH_CHECK(t1 == t2, "clone draws the same token: %lld vs %lld", (long long)t1, (long long)t2);
                    rlx_program_destroy(cl);
                }
            }
        }
        samp_free(&s);
        samp_free(&s2);
    }
    {   /* rows of a batch draw independently: identical rows give different tokens */
        int64_t shape[2] = {64, 100};
        double* lg = (double*)malloc(sizeof(double) * 6400);
        int64_t out[64];
        int i, j, distinct = 0, bad = 0;
        samp s;
        rlx_sample_desc d = sdesc(1.0f, 0, 0.0f, 99);
        for (i = 0; i < 6400; i++) lg[i] = 0.0;
        if (samp_make(&s, RLX_F32, 2, shape, &d, RLX_I32, 0, 2) && samp_run(&s, lg, 3, out)) {
            for (i = 0; i < 64; i++) {
                int seen = 0;
                for (j = 0; j < i; j++) seen |= out[j] == out[i];
                distinct += !seen;
                bad += out[i] != ref_sample(lg, 100, 1.0f, 0, 0.0f, 99, 3, i);
            }
            TH_CHECK(distinct > 40, "64 identical rows give %d distinct tokens", distinct);
            TH_CHECK(bad == 0, "batched rows use rlx_uniform(seed, counter, row): %d mismatches", bad);
        }
        samp_free(&s);
        free(lg);
    }
    {   /* hand-made rows: NaN never drawn, +inf dominates, all -inf / all NaN give index 0 */
        int64_t shape[2] = {4, 4};
        double lg[16];
        int64_t out[4];
        int c, nan_drawn = 0, non_inf = 0, not0 = 0;
        samp s;
        rlx_sample_desc d = sdesc(1.0f, 0, 0.0f, 5);
        lg[0] = NAN; lg[1] = 0.0; lg[2] = NAN; lg[3] = 1.0;
        lg[4] = 1.0; lg[5] = INFINITY; lg[6] = 2.0; lg[7] = INFINITY;
        lg[8] = -INFINITY; lg[9] = -INFINITY; lg[10] = -INFINITY; lg[11] = -INFINITY;
        lg[12] = NAN; lg[13] = NAN; lg[14] = NAN; lg[15] = NAN;
        if (samp_make(&s, RLX_F32, 2, shape, &d, RLX_I64, 0, 1)) {
            for (c = 0; c < 200; c++) {
                if (!samp_run(&s, lg, c, out)) break;
                nan_drawn += out[0] == 0 || out[0] == 2;
                non_inf += out[1] != 1 && out[1] != 3;
                not0 += (out[2] != 0) + (out[3] != 0);
            }
            TH_CHECK(nan_drawn == 0, "NaN logits drawn %d times", nan_drawn);
            TH_CHECK(non_inf == 0, "a finite logit beat +inf %d times", non_inf);
            TH_CHECK(not0 == 0, "all -inf / all NaN rows gave a token other than 0 (%d)", not0);
        }
        samp_free(&s);
    }
    {   /* constant logits and counter: folded at compile time, same answer */
        rlx_graph* g = rlx_graph_create(NULL);
        int64_t ls[2] = {3, 9}, ctr = 12345, out[3] = {-1, -1, -1};
        float lv[27];
        double ld[27];
        int i, bad = 0;
        rlx_sample_desc d = sdesc(0.9f, 4, 0.8f, 4242);
        rlx_program* p;
        for (i = 0; i < 27; i++) { lv[i] = (float)th_uniform(-2, 2); ld[i] = (double)lv[i]; }
        rlx_output(g, "y", rlx_sample(g, rlx_constant(g, RLX_F32, 2, ls, lv), rlx_constant(g, RLX_I64, 0, ls, &ctr), &d));
        p = compile_graph(g, 1);
        if (p) {
            rlx_run(p);
            rlx_get_output_i64(p, "y", out, 3);
            for (i = 0; i < 3; i++) bad += out[i] != ref_sample(ld + i * 9, 9, 0.9f, 4, 0.8f, 4242, 12345, i);
            TH_CHECK(bad == 0, "folded sample: %lld %lld %lld", (long long)out[0], (long long)out[1], (long long)out[2]);
            rlx_program_destroy(p);
        }
        rlx_graph_destroy(g);
    }
    {   /* an i32 counter of shape [1] is read like an i64 scalar */
        int64_t shape[1] = {50};
        double lg[50];
        int64_t t1 = -1, t2 = -2;
        samp s, s2;
        rlx_sample_desc d = sdesc(1.0f, 0, 0.0f, 8);
        gen_logits(lg, 50, RLX_F32, 0, 1.0);
        if (samp_make(&s, RLX_F32, 1, shape, &d, RLX_I32, 1, 1) && samp_make(&s2, RLX_F32, 1, shape, &d, RLX_I64, 0, 1)) {
            int c, bad = 0;
            for (c = -5; c < 30; c++) {
                samp_run(&s, lg, c, &t1);
                samp_run(&s2, lg, c, &t2);
                bad += t1 != t2 || t1 != ref_sample(lg, 50, 1.0f, 0, 0.0f, 8, c, 0);
            }
            TH_CHECK(bad == 0, "i32 [1] counter and i64 scalar counter: %d differences", bad);
        }
        samp_free(&s);
        samp_free(&s2);
    }
    sample_bad();
}

int main(void) {
    test_uniform();
    test_cumsum();
    test_topk();
    test_sample();
    return th_summary("sampling");
}
