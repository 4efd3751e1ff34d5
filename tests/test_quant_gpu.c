/* Block-quantized dtypes (>>quant, >>gpuquant) on the GPU backends against the CPU backend and f64 references.

   Devices: every available GPU device of rlx_devices() (Vulkan, CUDA, HIP); RLX_TEST_DEVICE=vulkan|cuda|hip
   picks one kind. Without a GPU device every case is skipped with the reason.
   For each of the 12 formats, weights are random f32 rows of several scales (1e-3 .. 1e3) with blocks of
   extreme values (one huge element among small ones, constant blocks, a block of zeros inside a non-zero
   row), quantized by rlx's CPU quantizer (byte for byte ggml's, tested in test_quant.c); iq4_nl / iq4_xs have
   no quantizer and get random bytes with finite f16 scales. Then:
     - dequantize (cast -> f32 and -> f16) on the GPU equals the CPU's output bit for bit;
     - gather of rows (indices in range, negative, out of range) equals the CPU's bytes, and its cast to f32
       the CPU's floats bit for bit;
     - matmul_quant for M in {1, 2, 3, 8, 17, 64}, (N, K) in {(37, 256), (70, 768), (33, 4096), (9, 11008)}, against an f64
       product of x and the CPU-dequantized weight: |Δ| <= 8·2^-24·√K·Σ|x·w| per output (f32 accumulation
       errors grow like √K for these random signs; a single wrong weight element gives ~Σ|x·w|/K, above it);
       on CUDA with M > 8 (f16 tensor cores) plus 2^-8·sqrt(Σ(x·w)²), 8 sigma of the f16 rounding of both
       operands (a wrong weight element, ~sqrt(Σ(x·w)²)/√K, is still above it for these K);
     - one row of x holding an infinity: the f64 product's infinities (NaN where that weight is 0), every format;
     - a params-from-store program (the store uploads the block bytes as they are) equals the program that
       holds its own copy, bit for bit;
     - a tiny model, gather embedding -> cast -> rmsnorm -> matmul_quant, against the CPU program (17 tokens:
       both sum in f32, same bound; on CUDA plus the f16 term);
     - cast f32 -> block (quantize) is refused with RLX_ERROR_UNSUPPORTED and a message naming the dtype. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../rlx.h"
#include "harness.h"

#include <stdarg.h>
#include <stdlib.h>

/* TH_CHECK that returns the condition */
static int req(int ok, const char* fmt, ...) {
    char m[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    TH_CHECK(ok, "%s", m);
    return ok;
}

#define NQ 12
static const rlx_dtype qt[NQ] = {RLX_Q4_0, RLX_Q4_1, RLX_Q5_0, RLX_Q5_1, RLX_Q8_0, RLX_Q2_K,
                                 RLX_Q3_K, RLX_Q4_K, RLX_Q5_K, RLX_Q6_K, RLX_IQ4_NL, RLX_IQ4_XS};

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 32);
}
static double urand(void) { return ((double)rnd() + 0.5) / 4294967296.0; } /* (0, 1) */
static double srand1(void) { return 2.0 * urand() - 1.0; }                 /* (-1, 1) */

static int64_t block_elems(rlx_dtype t) {
    int64_t be = 0;
    size_t bb = 0;
    rlx_dtype_block(t, &be, &bb);
    return be;
}

/* Random weights [n, k] with several scales and extreme blocks. */
static void fill_weights(float* w, int64_t n, int64_t k, int64_t be) {
    int64_t r, c;
    for (r = 0; r < n; r++) {
        const double scale = pow(10.0, (double)(r % 7) - 3.0);
        for (c = 0; c < k; c++) w[r * k + c] = (float)(scale * srand1());
        if (r % 5 == 1) w[r * k + (int64_t)(rnd() % (uint32_t)k)] = (float)(scale * (r % 7 < 5 ? 1e4 : 30.0)); /* huge */
        if (r % 5 == 2) for (c = 0; c < be; c++) w[r * k + c] = (float)(0.75 * scale);      /* constant block */
        if (r % 5 == 3 && k > be) for (c = be; c < 2 * be; c++) w[r * k + c] = 0.0f;       /* a zero block */
        if (r % 5 == 4) for (c = 0; c < be; c++) w[r * k + c] = (float)(c % 2 ? -65000.0 : 60000.0) * 1e-3f;
    }
}

/* f32 -> block bytes with rlx's CPU quantizer (cast on the CPU). Returns 0 on failure. */
static int cpu_quantize(rlx_dtype t, const float* w, int64_t n, int64_t k, unsigned char* out, size_t bytes) {
    int64_t shp[2];
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    int ok;
    shp[0] = n; shp[1] = k;
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    rlx_output(g, "q", rlx_cast(g, rlx_input(g, "w", RLX_F32, 2, shp), t));
    ok = rlx_compile(g, &cd, &p) == RLX_OK && rlx_set_input_f32(p, "w", w, (size_t)(n * k)) == RLX_OK &&
         rlx_run(p) == RLX_OK && rlx_get_output(p, "q", t, out, bytes) == RLX_OK;
    if (!ok) printf("  cpu quantize %s failed: %s %s\n", rlx_dtype_name(t), rlx_graph_error(g), p ? rlx_program_error(p) : "");
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    return ok;
}

/* block bytes -> f32 with the CPU backend (bit-exact with ggml: test_quant.c). Returns 0 on failure. */
static int cpu_dequant(rlx_dtype t, const unsigned char* q, size_t qb, int64_t n, int64_t k, float* out) {
    int64_t ws[2];
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cc;
    int ok;
    ws[0] = n; ws[1] = k;
    memset(&cc, 0, sizeof cc);
    cc.device = RLX_DEVICE_CPU;
    rlx_output(g, "f", rlx_cast(g, rlx_input(g, "w", t, 2, ws), RLX_F32));
    ok = rlx_compile(g, &cc, &p) == RLX_OK && rlx_set_input(p, "w", t, q, qb) == RLX_OK && rlx_run(p) == RLX_OK &&
         rlx_get_output_f32(p, "f", out, (size_t)(n * k)) == RLX_OK;
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    return ok;
}

/* Block bytes for dtype t: quantized random weights, or random bytes with finite f16 scales (iq4_*). */
static int make_blocks(rlx_dtype t, int64_t n, int64_t k, unsigned char* q, size_t bytes, float* tmp) {
    const int64_t be = block_elems(t);
    size_t i;
    if (t != RLX_IQ4_NL && t != RLX_IQ4_XS) {
        fill_weights(tmp, n, k, be);
        return cpu_quantize(t, tmp, n, k, q, bytes);
    }
    for (i = 0; i < bytes; i++) q[i] = (unsigned char)(rnd() & 0xFF);
    {
        const size_t bb = t == RLX_IQ4_NL ? 18 : 136;
        for (i = 0; i + bb <= bytes; i += bb) {   /* d: sign, exponent 2^-10 .. 2^5 */
            uint16_t h = (uint16_t)(((rnd() & 1u) << 15) | ((5u + rnd() % 16u) << 10) | (rnd() & 0x3FFu));
            q[i] = (unsigned char)(h & 0xFF);
            q[i + 1] = (unsigned char)(h >> 8);
        }
    }
    return 1;
}

typedef struct dev_sel { rlx_device dev; int index; char name[128]; } dev_sel;

static void set_dev(rlx_compile_desc* cd, const dev_sel* d) {
    memset(cd, 0, sizeof *cd);
    cd->device = d->dev;
    cd->device_index = d->dev == RLX_DEVICE_CPU ? 0 : d->index;
    cd->flags = RLX_COMPILE_NO_FALLBACK;
}

/* Dequantize (f32 and f16 outputs) and gather (bytes and cast) of table q [n, k] on dev; outputs to the
   buffers (f32 n·k, f16 n·k, gathered bytes gb, gathered f32 gn·k). */
#define NIDX 6
static const int32_t gidx[NIDX] = {3, 0, -1, 1000, 2, -2};
static int run_dequant(const dev_sel* d, rlx_dtype t, int64_t n, int64_t k, const unsigned char* q, size_t qbytes,
                       float* f32, uint16_t* f16, unsigned char* gq, size_t gbytes, float* gf) {
    int64_t shp[2], is[1];
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_tensor w, rows;
    rlx_result r;
    int ok;
    shp[0] = n; shp[1] = k; is[0] = NIDX;
    set_dev(&cd, d);
    w = rlx_input(g, "w", t, 2, shp);
    rlx_output(g, "f32", rlx_cast(g, w, RLX_F32));
    rlx_output(g, "f16", rlx_cast(g, w, RLX_F16));
    rows = rlx_gather(g, w, rlx_input(g, "i", RLX_I32, 1, is), 0);
    rlx_output(g, "gq", rows);
    rlx_output(g, "gf", rlx_cast(g, rows, RLX_F32));
    r = rlx_compile(g, &cd, &p);
    if (r != RLX_OK) {
        printf("  compile on %s: %s\n", d->name, rlx_graph_error(g));
        rlx_graph_destroy(g);
        return 0;
    }
    ok = rlx_set_input(p, "w", t, q, qbytes) == RLX_OK && rlx_set_input(p, "i", RLX_I32, gidx, sizeof gidx) == RLX_OK &&
         rlx_run(p) == RLX_OK && rlx_get_output(p, "f32", RLX_F32, f32, (size_t)(n * k) * 4) == RLX_OK &&
         rlx_get_output(p, "f16", RLX_F16, f16, (size_t)(n * k) * 2) == RLX_OK &&
         rlx_get_output(p, "gq", t, gq, gbytes) == RLX_OK &&
         rlx_get_output(p, "gf", RLX_F32, gf, (size_t)(NIDX * k) * 4) == RLX_OK;
    if (!ok) printf("  run on %s: %s\n", d->name, rlx_program_error(p));
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    return ok;
}

static void test_dequant(const dev_sel* gpu, rlx_dtype t) {
    const int64_t n = 9, k = 512;
    size_t qb = 0, gb = 0;
    int64_t gs[2];
    unsigned char *q, *gq0, *gq1;
    float *tmp, *f0, *f1, *g0, *g1;
    uint16_t *h0, *h1;
    dev_sel cpu;
    gs[0] = NIDX; gs[1] = k;
    {
        int64_t s[2];
        s[0] = n; s[1] = k;
        rlx_tensor_bytes(t, 2, s, &qb);
        rlx_tensor_bytes(t, 2, gs, &gb);
    }
    q = (unsigned char*)malloc(qb); gq0 = (unsigned char*)malloc(gb); gq1 = (unsigned char*)malloc(gb);
    tmp = (float*)malloc((size_t)(n * k) * 4); f0 = (float*)malloc((size_t)(n * k) * 4); f1 = (float*)malloc((size_t)(n * k) * 4);
    g0 = (float*)malloc((size_t)(NIDX * k) * 4); g1 = (float*)malloc((size_t)(NIDX * k) * 4);
    h0 = (uint16_t*)malloc((size_t)(n * k) * 2); h1 = (uint16_t*)malloc((size_t)(n * k) * 2);
    memset(&cpu, 0, sizeof cpu);
    cpu.dev = RLX_DEVICE_CPU;
    snprintf(cpu.name, sizeof cpu.name, "cpu");
    if (!make_blocks(t, n, k, q, qb, tmp)) {
        TH_CHECK(0, "%s: make blocks", rlx_dtype_name(t));
    } else if (req(run_dequant(&cpu, t, n, k, q, qb, f0, h0, gq0, gb, g0), "%s: cpu dequant", rlx_dtype_name(t)) &&
               req(run_dequant(gpu, t, n, k, q, qb, f1, h1, gq1, gb, g1), "%s: %s dequant", rlx_dtype_name(t), gpu->name)) {
        int64_t i, bad = -1, nz = 0;
        for (i = 0; i < n * k; i++) {
            uint32_t a, b;
            memcpy(&a, &f0[i], 4);
            memcpy(&b, &f1[i], 4);
            if (a != b && bad < 0) bad = i;
            nz += f0[i] != 0.0f;
        }
        TH_CHECK(bad < 0, "%s on %s: dequantize f32 element %lld: gpu %.9g cpu %.9g", rlx_dtype_name(t), gpu->name,
                 (long long)bad, bad < 0 ? 0.0 : (double)f1[bad], bad < 0 ? 0.0 : (double)f0[bad]);
        TH_CHECK(nz > n * k / 2, "%s: data mostly non-zero (%lld of %lld)", rlx_dtype_name(t), (long long)nz, (long long)(n * k));
        TH_CHECK(memcmp(h0, h1, (size_t)(n * k) * 2) == 0, "%s on %s: dequantize f16 bits differ", rlx_dtype_name(t), gpu->name);
        TH_CHECK(memcmp(gq0, gq1, gb) == 0, "%s on %s: gathered block bytes differ", rlx_dtype_name(t), gpu->name);
        TH_CHECK(memcmp(g0, g1, (size_t)(NIDX * k) * 4) == 0, "%s on %s: gathered rows dequantized differ",
                 rlx_dtype_name(t), gpu->name);
    }
    free(q); free(gq0); free(gq1); free(tmp); free(f0); free(f1); free(g0); free(g1); free(h0); free(h1);
}

/* matmul_quant on the GPU: one graph per (format, N, K) with one x input and one output per M */
#define NM 6
static const int64_t Ms[NM] = {1, 2, 3, 8, 17, 64};
static double worst_ratio;   /* largest |Δ| / bound seen */

static void test_matmul(const dev_sel* gpu, rlx_dtype t, int64_t N, int64_t K, int use_store) {
    int64_t ws[2], xs[2];
    size_t qb = 0;
    unsigned char* q;
    float *tmp, *wf, *x[NM], *y;
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program *p = NULL, *ps = NULL;
    rlx_store* st = NULL;
    rlx_compile_desc cd;
    rlx_tensor w;
    int mi, ok = 1;
    char nm[16];
    ws[0] = N; ws[1] = K;
    rlx_tensor_bytes(t, 2, ws, &qb);
    q = (unsigned char*)malloc(qb);
    tmp = (float*)malloc((size_t)(N * K) * 4);
    wf = (float*)malloc((size_t)(N * K) * 4);
    y = (float*)malloc((size_t)(64 * N) * 4);
    for (mi = 0; mi < NM; mi++) {
        int64_t i;
        x[mi] = (float*)malloc((size_t)(Ms[mi] * K) * 4);
        for (i = 0; i < Ms[mi] * K; i++) x[mi][i] = (float)(srand1() * (i % 3 == 0 ? 10.0 : 1.0));
    }
    if (!make_blocks(t, N, K, q, qb, tmp)) { TH_CHECK(0, "%s: make blocks", rlx_dtype_name(t)); goto done; }
    ok = cpu_dequant(t, q, qb, N, K, wf);
    if (!req(ok, "%s: cpu dequantize", rlx_dtype_name(t))) goto done;
    w = rlx_param(g, "w", t, 2, ws);
    for (mi = 0; mi < NM; mi++) {
        xs[0] = Ms[mi]; xs[1] = K;
        snprintf(nm, sizeof nm, "x%d", mi);
        {
            rlx_tensor xt = rlx_input(g, nm, RLX_F32, 2, xs);
            snprintf(nm, sizeof nm, "y%d", mi);
            rlx_output(g, nm, rlx_matmul_quant(g, xt, w));
        }
    }
    set_dev(&cd, gpu);
    ok = rlx_compile(g, &cd, &p) == RLX_OK;
    if (!req(ok, "%s N %lld K %lld on %s: compile: %s", rlx_dtype_name(t), (long long)N, (long long)K, gpu->name,
             rlx_graph_error(g)))
        goto done;
    if (use_store) {   /* the same graph with w from a store on the device */
        rlx_store_desc sd;
        memset(&sd, 0, sizeof sd);
        sd.device = gpu->dev;
        sd.device_index = gpu->index;
        ok = rlx_store_create(&sd, &st) == RLX_OK && rlx_store_add(st, "w", t, 2, ws, q) == RLX_OK;
        TH_CHECK(ok, "%s: store on %s: %s", rlx_dtype_name(t), gpu->name, st ? rlx_store_error(st) : "create failed");
        if (ok) {
            cd.store = st;
            ok = rlx_compile(g, &cd, &ps) == RLX_OK;
            TH_CHECK(ok, "%s: compile with the store: %s", rlx_dtype_name(t), rlx_graph_error(g));
        }
    }
    ok = rlx_set_param(p, "w", t, q, qb) == RLX_OK;
    for (mi = 0; mi < NM && ok; mi++) {
        snprintf(nm, sizeof nm, "x%d", mi);
        ok = rlx_set_input_f32(p, nm, x[mi], (size_t)(Ms[mi] * K)) == RLX_OK;
        if (ok && ps) ok = rlx_set_input_f32(ps, nm, x[mi], (size_t)(Ms[mi] * K)) == RLX_OK;
    }
    ok = ok && rlx_run(p) == RLX_OK;
    if (!req(ok, "%s: run on %s: %s", rlx_dtype_name(t), gpu->name, rlx_program_error(p))) goto done;
    ok = !ps || rlx_run(ps) == RLX_OK;
    if (!req(ok, "%s: run with the store: %s", rlx_dtype_name(t), ps ? rlx_program_error(ps) : "")) goto done;
    for (mi = 0; mi < NM; mi++) {
        const int64_t M = Ms[mi];
        /* CUDA (sm_80+) runs more than 8 rows of x on f16 tensor cores, x and w rounded to f16 (rows scaled
           by powers of two): each product off by about 2^-11·sqrt(2/3)·|x·w| rms, independently */
        const int h16 = gpu->dev == RLX_DEVICE_CUDA && M > 8;
        int64_t m, nn, badm = -1, badn = -1;
        double worst = 0.0, bad_d = 0.0, bad_b = 0.0;
        snprintf(nm, sizeof nm, "y%d", mi);
        ok = rlx_get_output_f32(p, nm, y, (size_t)(M * N)) == RLX_OK;
        if (!req(ok, "get %s", nm)) continue;
        for (m = 0; m < M; m++)
            for (nn = 0; nn < N; nn++) {
                double ref = 0.0, mag = 0.0, sq = 0.0, bound, d;
                int64_t k;
                for (k = 0; k < K; k++) {
                    const double pr = (double)x[mi][m * K + k] * (double)wf[nn * K + k];
                    ref += pr;
                    mag += fabs(pr);
                    sq += pr * pr;
                }
                bound = 8.0 * ldexp(1.0, -24) * sqrt((double)K) * mag + 1e-30;
                if (h16) bound += ldexp(1.0, -8) * sqrt(sq);   /* f16 operands: 8 sigma of their rounding */
                d = fabs((double)y[m * N + nn] - ref);
                if (!(d <= bound) && badm < 0) { badm = m; badn = nn; bad_d = d; bad_b = bound; }
                if (d / bound > worst) worst = d / bound;
            }
        if (worst > worst_ratio) worst_ratio = worst;
        TH_CHECK(badm < 0, "%s matmul_quant M %lld N %lld K %lld on %s: y[%lld, %lld] |d| %.3g > bound %.3g",
                 rlx_dtype_name(t), (long long)M, (long long)N, (long long)K, gpu->name, (long long)badm,
                 (long long)badn, bad_d, bad_b);
        if (ps) {   /* the store's bytes: the same kernel gives the same bits */
            float* ys = (float*)malloc((size_t)(M * N) * 4);
            ok = rlx_get_output_f32(ps, nm, ys, (size_t)(M * N)) == RLX_OK;
            TH_CHECK(ok && memcmp(ys, y, (size_t)(M * N) * 4) == 0, "%s M %lld: params from the store differ",
                     rlx_dtype_name(t), (long long)M);
            free(ys);
        }
    }
done:
    rlx_program_destroy(p);
    rlx_program_destroy(ps);
    rlx_store_destroy(st);
    rlx_graph_destroy(g);
    for (mi = 0; mi < NM; mi++) free(x[mi]);
    free(q); free(tmp); free(wf); free(y);
}

/* One row of x holding an infinity: every output is the f64 product's infinity of the right sign, or NaN where
   that weight is 0 (inf · 0). (q4_K's one-row kernel sums d·sc·Σq·x − dmin·m·Σx, which gives inf − inf there
   unless it sums w·x itself for such x.) */
static void test_matmul_inf(const dev_sel* gpu, rlx_dtype t) {
    const int64_t N = 37, K = 256;
    int64_t ws[2], xs[2], i, nn, bad = -1;
    size_t qb = 0;
    unsigned char* q;
    float *tmp, *wf, x[256], y[37];
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    int ok;
    ws[0] = N; ws[1] = K; xs[0] = 1; xs[1] = K;
    rlx_tensor_bytes(t, 2, ws, &qb);
    q = (unsigned char*)malloc(qb);
    tmp = (float*)malloc((size_t)(N * K) * 4);
    wf = (float*)malloc((size_t)(N * K) * 4);
    for (i = 0; i < K; i++) x[i] = (float)srand1();
    x[37] = -INFINITY;
    ok = make_blocks(t, N, K, q, qb, tmp) && cpu_dequant(t, q, qb, N, K, wf);
    if (!req(ok, "%s: blocks for the infinity case", rlx_dtype_name(t))) goto done;
    rlx_output(g, "y", rlx_matmul_quant(g, rlx_input(g, "x", RLX_F32, 2, xs), rlx_param(g, "w", t, 2, ws)));
    set_dev(&cd, gpu);
    ok = rlx_compile(g, &cd, &p) == RLX_OK && rlx_set_param(p, "w", t, q, qb) == RLX_OK &&
         rlx_set_input_f32(p, "x", x, (size_t)K) == RLX_OK && rlx_run(p) == RLX_OK &&
         rlx_get_output_f32(p, "y", y, (size_t)N) == RLX_OK;
    if (!req(ok, "%s: x with an infinity on %s: %s", rlx_dtype_name(t), gpu->name, p ? rlx_program_error(p) : rlx_graph_error(g)))
        goto done;
    for (nn = 0; nn < N && bad < 0; nn++) {
        double ref = 0.0;
        for (i = 0; i < K; i++) ref += (double)x[i] * (double)wf[nn * K + i];
        if (isnan(ref) ? !isnan(y[nn]) : (double)y[nn] != ref) bad = nn;
    }
    TH_CHECK(bad < 0, "%s: x with an infinity on %s: y[%lld] = %g", rlx_dtype_name(t), gpu->name, (long long)bad,
             bad >= 0 ? (double)y[bad] : 0.0);
done:
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    free(q); free(tmp); free(wf);
}

/* the CPU's rounding of x in matmul_quant with 16+ rows, per d = max|x| / 127 of a block: 1/512 (two digits,
   AVX-512 VNNI, or the f32 GEMM) or 1/2 plus the f16 rounding of d (one digit: q4_0 and q4_K on other x86-64
   CPUs; taken wherever the CPU cannot be asked) */
static double cpu_x_half(rlx_dtype t) {
#if defined(__x86_64__) || defined(_M_X64)
#  if (defined(__GNUC__) || defined(__clang__)) && !defined(_MSC_VER) && !defined(_WIN32)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni"))
        return 1.0 / 512;
#  endif
    return t == RLX_Q4_0 || t == RLX_Q4_K ? 0.5 + 127.0 / 2048 : 1.0 / 512;
#else
    (void)t;
    return 1.0 / 512;
#endif
}

/* gather embedding -> cast -> rmsnorm -> matmul_quant, the GPU program against the CPU program */
static int run_model(const dev_sel* d, rlx_dtype t, int64_t V, int64_t D, int64_t N, int64_t T, const unsigned char* emb,
                     size_t eb, const unsigned char* wq, size_t wb, const float* gamma, const int32_t* tok, float* y,
                     float* h) {
    int64_t es[2], ws[2], gs[1], ts[1];
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_tensor x;
    int ok;
    es[0] = V; es[1] = D; ws[0] = N; ws[1] = D; gs[0] = D; ts[0] = T;
    set_dev(&cd, d);
    x = rlx_cast(g, rlx_gather(g, rlx_param(g, "emb", t, 2, es), rlx_input(g, "tok", RLX_I32, 1, ts), 0), RLX_F32);
    {
        rlx_tensor none;
        memset(&none, 0, sizeof none);
        x = rlx_rmsnorm(g, x, rlx_param(g, "gamma", RLX_F32, 1, gs), none, 1e-5f);
    }
    rlx_output(g, "h", x);
    rlx_output(g, "y", rlx_matmul_quant(g, x, rlx_param(g, "w", t, 2, ws)));
    ok = rlx_compile(g, &cd, &p) == RLX_OK;
    if (!ok) printf("  model on %s: %s\n", d->name, rlx_graph_error(g));
    ok = ok && rlx_set_param(p, "emb", t, emb, eb) == RLX_OK && rlx_set_param(p, "w", t, wq, wb) == RLX_OK &&
         rlx_set_param_f32(p, "gamma", gamma, (size_t)D) == RLX_OK &&
         rlx_set_input(p, "tok", RLX_I32, tok, (size_t)T * 4) == RLX_OK && rlx_run(p) == RLX_OK &&
         rlx_get_output_f32(p, "y", y, (size_t)(T * N)) == RLX_OK && rlx_get_output_f32(p, "h", h, (size_t)(T * D)) == RLX_OK;
    if (!ok && p) printf("  model run on %s: %s\n", d->name, rlx_program_error(p));
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    return ok;
}

static void test_model(const dev_sel* gpu, rlx_dtype t) {
    const int64_t V = 11, D = 512, N = 45, T = 17;
    int64_t es[2], ws[2], i, n;
    size_t eb = 0, wb = 0;
    unsigned char *emb, *wq;
    float *tmp, gamma[512], *y0, *y1, *h0, *h1;
    int32_t tok[17];
    dev_sel cpu;
    es[0] = V; es[1] = D; ws[0] = N; ws[1] = D;
    rlx_tensor_bytes(t, 2, es, &eb);
    rlx_tensor_bytes(t, 2, ws, &wb);
    emb = (unsigned char*)malloc(eb); wq = (unsigned char*)malloc(wb);
    tmp = (float*)malloc((size_t)(N * D) * 4);
    y0 = (float*)malloc((size_t)(T * N) * 4); y1 = (float*)malloc((size_t)(T * N) * 4);
    h0 = (float*)malloc((size_t)(T * D) * 4); h1 = (float*)malloc((size_t)(T * D) * 4);
    for (i = 0; i < D; i++) gamma[i] = (float)(0.5 + urand());
    for (i = 0; i < T; i++) tok[i] = (int32_t)(rnd() % (uint32_t)V);
    memset(&cpu, 0, sizeof cpu);
    cpu.dev = RLX_DEVICE_CPU;
    snprintf(cpu.name, sizeof cpu.name, "cpu");
    if (make_blocks(t, V, D, emb, eb, tmp) && make_blocks(t, N, D, wq, wb, tmp) &&
        req(run_model(&cpu, t, V, D, N, T, emb, eb, wq, wb, gamma, tok, y0, h0), "%s: cpu model", rlx_dtype_name(t)) &&
        req(run_model(gpu, t, V, D, N, T, emb, eb, wq, wb, gamma, tok, y1, h1), "%s: %s model", rlx_dtype_name(t),
                     gpu->name)) {
        double worst = 0.0, hw = 0.0;
        for (i = 0; i < T * D; i++) {   /* rmsnorm: a sum of squares and one scale per row, f32 */
            const double d = fabs((double)h1[i] - (double)h0[i]), b = 1e-5 * fabs((double)h0[i]) + 1e-30;
            if (d / b > hw) hw = d / b;
        }
        TH_CHECK(hw <= 1.0, "%s on %s: model rmsnorm differs from the cpu by %.3g of 1e-5 relative", rlx_dtype_name(t),
                 gpu->name, hw);
        if (req(cpu_dequant(t, wq, wb, N, D, tmp), "%s: cpu dequantize", rlx_dtype_name(t))) {
            for (i = 0; i < T; i++)
                for (n = 0; n < N; n++) {   /* |Δh| <= 1e-5·|h| and f32 sums on both: 1e-4·Σ|h·w| */
                    const double d = fabs((double)y1[i * N + n] - (double)y0[i * N + n]);
                    double mag = 0.0, act = 0.0, sq = 0.0;
                    int64_t k, kb;
                    for (k = 0; k < D; k++) {
                        const double pr = (double)h0[i * D + k] * (double)tmp[n * D + k];
                        mag += fabs(pr);
                        sq += pr * pr;
                    }
                    /* CUDA (sm_80+) rounds the 17 rows of h and w to f16 (see test_matmul) */
                    if (gpu->dev == RLX_DEVICE_CUDA) act += ldexp(1.0, -8) * sqrt(sq);
                    /* the CPU's integer GEMMs (>>qgemm, 16+ rows of x) round x per block of 32: on AVX-512 VNNI
                       (q4_0, q8_0, q4_K) to two int8 digits, at most max|x| / 127 / 512 per value; on other AVX2
                       CPUs (q4_0, q4_K) to one, as ggml does, at most max|x| / 127 · (1/2 + 127 · 2^-11) */
                    for (kb = 0; kb < D; kb += 32) {
                        double amax = 0.0, wa = 0.0;
                        for (k = kb; k < kb + 32; k++) {
                            if (fabs((double)h0[i * D + k]) > amax) amax = fabs((double)h0[i * D + k]);
                            wa += fabs((double)tmp[n * D + k]);
                        }
                        act += amax / 127.0 * cpu_x_half(t) * wa;
                    }
                    if (d / (1e-4 * mag + act + 1e-30) > worst) worst = d / (1e-4 * mag + act + 1e-30);
                }
            TH_CHECK(worst <= 1.0, "%s on %s: model output differs from the cpu (%.3g of 1e-4 sum |h w| + x rounding)",
                     rlx_dtype_name(t), gpu->name, worst);
        }
    }
    free(emb); free(wq); free(tmp); free(y0); free(y1); free(h0); free(h1);
}

static void test_refusals(const dev_sel* gpu) {
    int64_t s[2];
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_result r;
    s[0] = 4; s[1] = 64;
    set_dev(&cd, gpu);
    rlx_output(g, "q", rlx_cast(g, rlx_input(g, "x", RLX_F32, 2, s), RLX_Q8_0));
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_ERROR_UNSUPPORTED && strstr(rlx_graph_error(g), "q8_0") != NULL,
             "quantize on %s: expected RLX_ERROR_UNSUPPORTED naming q8_0, got %s: %s", gpu->name, rlx_result_string(r),
             rlx_graph_error(g));
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
}

/* Can the device run the block-dtype kernels? A Vulkan device without 8-bit storage (or with it hidden by
   RLX_VULKAN_HIDE_FEATURES) refuses them with RLX_ERROR_UNSUPPORTED naming the feature: skipped, with that. */
static int device_runs_quant(const dev_sel* d) {
    int64_t ws[2], xs[2];
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_result r;
    ws[0] = 8; ws[1] = 32; xs[0] = 1; xs[1] = 32;
    set_dev(&cd, d);
    rlx_output(g, "y", rlx_matmul_quant(g, rlx_input(g, "x", RLX_F32, 2, xs), rlx_param(g, "w", RLX_Q4_0, 2, ws)));
    r = rlx_compile(g, &cd, &p);
    if (r == RLX_ERROR_UNSUPPORTED && strstr(rlx_graph_error(g), "lacks")) {
        th_skip("%s: %s", d->name, rlx_graph_error(g));
        r = RLX_ERROR_DEVICE_UNAVAILABLE;
    } else {
        TH_CHECK(r == RLX_OK, "%s: matmul_quant compile: %s", d->name, rlx_graph_error(g));
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    return r == RLX_OK;
}

int main(void) {
    rlx_device_info info[16];
    dev_sel gpus[16];
    int n = rlx_devices(info, 16), i, ng = 0, f;
    const char* want = getenv("RLX_TEST_DEVICE");
    char why[1024] = "";
    if (n > 16) n = 16;
    for (i = 0; i < n; i++) {
        const char* kind = info[i].device == RLX_DEVICE_VULKAN ? "vulkan" : info[i].device == RLX_DEVICE_CUDA ? "cuda"
                         : info[i].device == RLX_DEVICE_HIP ? "hip" : "cpu";
        if (info[i].device == RLX_DEVICE_CPU) continue;
        if (want && *want && strcmp(want, kind) != 0) continue;
        if (!info[i].available) {
            size_t l = strlen(why);
            snprintf(why + l, sizeof why - l, "; %s %d: %.200s", kind, info[i].index, info[i].reason);
            continue;
        }
        gpus[ng].dev = info[i].device;
        gpus[ng].index = info[i].index;
        snprintf(gpus[ng].name, sizeof gpus[ng].name, "%s %d (%.90s)", kind, info[i].index, info[i].name);
        ng++;
    }
    if (ng == 0)
        th_skip("no GPU device available%s%s (%s): every GPU case of the block dtypes", want && *want ? " of kind " : "",
                want && *want ? want : "", why[0] ? why + 2 : "this build has no GPU backend, or none lists a device");
    for (i = 0; i < ng; i++) {
        printf("device %s\n", gpus[i].name);
        test_refusals(&gpus[i]);
        if (!device_runs_quant(&gpus[i])) continue;
        for (f = 0; f < NQ; f++) {
            test_dequant(&gpus[i], qt[f]);
            test_matmul(&gpus[i], qt[f], 37, 256, 1);
            test_matmul(&gpus[i], qt[f], 70, 768, 0);
            test_matmul(&gpus[i], qt[f], 33, 4096, 0);
            test_matmul(&gpus[i], qt[f], 9, 11008, 0);   /* 344 chunks a row: 256 threads per column */
            test_matmul_inf(&gpus[i], qt[f]);
            test_model(&gpus[i], qt[f]);
        }
        printf("  largest matmul_quant error: %.3g of the bound\n", worst_ratio);
    }
    return th_summary("quant_gpu");
}
