/* Block-quantized dtypes (>>quant) against ggml itself.

   The oracle is llama.cpp's prebuilt ggml from the npm package @node-llama-cpp/linux-x64@3.21.1, fetched by
   `tests/fetch_npm.sh @node-llama-cpp/linux-x64@3.21.1` into build/npm/ (RLX_GGML_DIR overrides the directory
   of the .so files). libggml-base.so gives ggml_quantize_chunk (ggml's reference quantizers when no importance
   matrix is passed), the type traits (to_float = dequantize_row_*) and ggml_row_size; a libggml-cpu-*.so
   variant this CPU runs gives ggml's CPU dot products (the activations quantized to the weight's vec_dot_type,
   then vec_dot), i.e. what ggml's own matmul computes. For every format:
     - byte sizes: rlx_tensor_bytes == ggml_row_size × rows;
     - quantize: rlx_cast f32 → q gives ggml's bytes exactly (iq4_nl / iq4_xs: rlx has no quantizer, skipped);
     - dequantize: rlx_cast q → f32 of ggml's blocks gives ggml's floats bit for bit, and → f16 their rounding;
     - gather of rows of a quantized table, then cast: the rows' floats;
     - matmul_quant, m in {1, 3, 8, 64, 512}, k in {256, 4096, 11008}: the largest error against an f64
       product of x and the dequantized weight is at most ggml's own (its vec_dot on the same blocks), plus
       1e-6 of the largest output: where rlx rounds x exactly as ggml does (q4_0 with m >= 16 on AVX2 without
       AVX-512 VNNI) the two differ only in the order of the f32 sums of the blocks' integer products (2e-7
       of the largest output measured), and so does ggml's own repacked GEMM from its vec_dot. With m < 16,
       q4_0, q8_0 and q4_K against ggml's AVX2 build: the same floats, bit for bit.
   Without the package (no npm registry), on Windows or on a CPU/ABI the .so files do not fit, those cases are
   skipped with the reason. The builder and GPU rejections run everywhere.
   `test_quant vulkan|cuda|hip` runs the matmul grid alone on that device (summary quant_vulkan, ...): each
   product's error against the f64 reference must again be at most ggml's CPU error on the same data plus 1e-6
   of the largest output (the GPU kernels keep x in f32, where ggml rounds it to 8 bits); without the device
   the run is skipped. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../rlx.h"
#include "harness.h"

#include <stdlib.h>
#if !defined(_WIN32)
#  include <dlfcn.h>
#endif

#define NQ 12
static const rlx_dtype qt[NQ] = {RLX_Q4_0, RLX_Q4_1, RLX_Q5_0, RLX_Q5_1, RLX_Q8_0, RLX_Q2_K,
                                 RLX_Q3_K, RLX_Q4_K, RLX_Q5_K, RLX_Q6_K, RLX_IQ4_NL, RLX_IQ4_XS};
/* ggml's enum ggml_type values of the same formats, and the expected geometry (block elements, bytes) */
static const int gt[NQ] = {2, 3, 6, 7, 8, 10, 11, 12, 13, 14, 20, 23};
static const int geo[NQ][2] = {{32, 18}, {32, 20}, {32, 22}, {32, 24}, {32, 34}, {256, 84},
                               {256, 110}, {256, 144}, {256, 176}, {256, 210}, {32, 18}, {256, 136}};
static const char* const gname[NQ] = {"q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_K",
                                      "q3_K", "q4_K", "q5_K", "q6_K", "iq4_nl", "iq4_xs"};

/* ggml 0.4 (llama.cpp of node-llama-cpp 3.21.1): struct ggml_type_traits and struct ggml_type_traits_cpu */
typedef void (*g_to_float)(const void* x, float* y, int64_t k);
typedef void (*g_from_float)(const float* x, void* y, int64_t k);
typedef void (*g_vec_dot)(int n, float* s, size_t bs, const void* x, size_t bx, const void* y, size_t by, int nrc);
typedef struct g_traits {
    const char* type_name;
    int64_t blck_size;
    int64_t blck_size_interleave;
    size_t type_size;
    unsigned char is_quantized; /* bool */
    g_to_float to_float;
    g_from_float from_float_ref;
} g_traits;
typedef struct g_traits_cpu {
    g_from_float from_float;
    g_vec_dot vec_dot;
    int vec_dot_type;
    int64_t nrows;
} g_traits_cpu;

static size_t (*g_quantize_chunk)(int type, const float* src, void* dst, int64_t start, int64_t nrows,
                                  int64_t n_per_row, const float* imatrix);
static const g_traits* (*g_get_type_traits)(int type);
static size_t (*g_row_size)(int type, int64_t ne);
static void (*g_quantize_init)(int type);
static const g_traits_cpu* (*g_get_type_traits_cpu)(int type);
static void (*g_cpu_init)(void);
static char g_why[1024] = "not tried";
static char g_cpu_why[1024] = "not tried";
static int g_haswell;   /* the oracle is ggml's AVX2 build (its vec_dot lanes are the ones rlx's m < 16 path keeps) */
static rlx_device g_dev = RLX_DEVICE_CPU;   /* argv[1]: the device test_matmul compiles for */

/* Does this CPU run ggml's haswell variant (AVX2, FMA; F16C and BMI2 come with them on every such CPU, and
   clang 14 cannot ask for f16c)? */
static int cpu_haswell(void) {
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(__TINYC__)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

static int load_ggml(void) {
#if defined(_WIN32)
    (void)geo; (void)g_cpu_init; (void)cpu_haswell;   /* used only with ggml's Linux libraries */
    snprintf(g_why, sizeof g_why, "ggml's Linux libraries cannot be opened on Windows");
    return 0;
#else
    const char* dir = getenv("RLX_GGML_DIR");
    static const char* const cpus[] = {"haswell", "skylakex", "icelake", "x64", "sse42"};
    char path[1024];
    void *hb, *hc = NULL;
    unsigned i;
    if (!dir) dir = "build/npm/_node-llama-cpp_linux-x64/package/bins/linux-x64";
    snprintf(path, sizeof path, "%s/libggml-base.so", dir);
    hb = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!hb) {
        snprintf(g_why, sizeof g_why, "cannot open %.300s (%.150s); fetch it with tests/fetch_npm.sh "
                 "@node-llama-cpp/linux-x64@3.21.1", path, dlerror());
        return 0;
    }
    *(void**)&g_quantize_chunk = dlsym(hb, "ggml_quantize_chunk");
    *(void**)&g_get_type_traits = dlsym(hb, "ggml_get_type_traits");
    *(void**)&g_row_size = dlsym(hb, "ggml_row_size");
    *(void**)&g_quantize_init = dlsym(hb, "ggml_quantize_init");
    if (!g_quantize_chunk || !g_get_type_traits || !g_row_size) {
        snprintf(g_why, sizeof g_why, "%.300s lacks ggml_quantize_chunk / ggml_get_type_traits / ggml_row_size", path);
        return 0;
    }
    for (i = 0; i < NQ; i++) {   /* the struct layout this test declares: names and geometry must match */
        const g_traits* t = g_get_type_traits(gt[i]);
        if (!t || !t->type_name || strcmp(t->type_name, gname[i]) != 0 || t->blck_size != geo[i][0] ||
            t->type_size != (size_t)geo[i][1] || !t->to_float) {
            snprintf(g_why, sizeof g_why, "ggml's type traits for %s do not have the layout this test expects",
                     gname[i]);
            return 0;
        }
    }
    if (cpu_haswell()) {
        for (i = 0; i < sizeof cpus / sizeof cpus[0] && !hc; i++) {
            if (strcmp(cpus[i], "skylakex") == 0 || strcmp(cpus[i], "icelake") == 0) continue;  /* haswell first */
            snprintf(path, sizeof path, "%s/libggml-cpu-%s.so", dir, cpus[i]);
            hc = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        }
    } else {
        snprintf(path, sizeof path, "%s/libggml-cpu-x64.so", dir);
        hc = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    if (!hc) {
        snprintf(g_cpu_why, sizeof g_cpu_why, "no libggml-cpu-*.so variant opens (%.400s)", dlerror());
    } else {
        *(void**)&g_get_type_traits_cpu = dlsym(hc, "ggml_get_type_traits_cpu");
        *(void**)&g_cpu_init = dlsym(hc, "ggml_cpu_init");
        if (!g_get_type_traits_cpu) snprintf(g_cpu_why, sizeof g_cpu_why, "%.300s lacks ggml_get_type_traits_cpu", path);
        else if (g_cpu_init) g_cpu_init();
        printf("ggml CPU oracle: %s\n", path);
        g_haswell = strstr(path, "libggml-cpu-haswell.so") != NULL;
    }
    return 1;
#endif
}

/* Test data: rows of varied scale (1e-3 .. 1e2), a few blocks of one sign, a few with one outlier; never all
   zero. */
static void fill(float* x, int64_t rows, int64_t k, uint64_t seed) {
    int64_t r, i;
    th_seed(seed);
    for (r = 0; r < rows; r++) {
        double scale = pow(10.0, th_uniform(-3, 2));
        for (i = 0; i < k; i++) {
            double v = th_uniform(-1, 1) + th_uniform(-1, 1) + th_uniform(-1, 1);
            if ((i / 32) % 7 == 3) v = fabs(v);            /* a positive block */
            if ((i / 32) % 11 == 5 && i % 32 == 7) v *= 9; /* an outlier */
            x[r * k + i] = (float)(v * scale);
        }
    }
}

/* One program: input "x" of (dt, shape) → output "y" = cast(x, to). */
static rlx_program* cast_prog(rlx_dtype dt, rlx_dtype to, int rank, const int64_t* shape) {
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    rlx_output(g, "y", rlx_cast(g, rlx_input(g, "x", dt, rank, shape), to));
    if (rlx_compile(g, &cd, &p) != RLX_OK) { printf("  compile: %s\n", rlx_graph_error(g)); p = NULL; }
    rlx_graph_destroy(g);
    return p;
}

static void test_formats(void) {
    const int64_t rows = 6, k = 1024;
    int64_t shape[2];
    float* x = (float*)malloc(sizeof(float) * (size_t)(rows * k));
    float *gf = (float*)malloc(sizeof(float) * (size_t)(rows * k)), *rf = (float*)malloc(sizeof(float) * (size_t)(rows * k));
    uint16_t* rh = (uint16_t*)malloc(2 * (size_t)(rows * k));
    unsigned char *gq = (unsigned char*)malloc((size_t)(rows * k) * 2), *rq = (unsigned char*)malloc((size_t)(rows * k) * 2);
    int i;
    shape[0] = rows; shape[1] = k;
    for (i = 0; i < NQ; i++) {
        const g_traits* tr = g_get_type_traits(gt[i]);
        size_t bytes = 0, gbytes = g_row_size(gt[i], k) * (size_t)rows;
        rlx_program* p;
        int64_t j, diff = 0;
        TH_CHECK(rlx_tensor_bytes(qt[i], 2, shape, &bytes) == RLX_OK && bytes == gbytes,
                 "%s: rlx_tensor_bytes %zu, ggml %zu", gname[i], bytes, gbytes);
        fill(x, rows, k, 1000u + (uint64_t)i);
        if (g_quantize_init) g_quantize_init(gt[i]);
        TH_CHECK(g_quantize_chunk(gt[i], x, gq, 0, rows, k, NULL) == gbytes, "%s: ggml_quantize_chunk size", gname[i]);
        /* quantize */
        if (qt[i] == RLX_IQ4_NL || qt[i] == RLX_IQ4_XS) {
            th_skip("%s: rlx has no quantizer for it (ggml's is a weighted search, not a reference quantizer)",
                    gname[i]);
        } else if ((p = cast_prog(RLX_F32, qt[i], 2, shape)) != NULL) {
            rlx_result r = rlx_set_input(p, "x", RLX_F32, x, sizeof(float) * (size_t)(rows * k));
            if (r == RLX_OK) r = rlx_run(p);
            if (r == RLX_OK) r = rlx_get_output(p, "y", qt[i], rq, bytes);
            for (j = 0; j < (int64_t)bytes; j++) diff += rq[j] != gq[j];
            TH_CHECK(r == RLX_OK && diff == 0, "%s: quantize: %lld of %zu bytes differ from ggml's (%s)", gname[i],
                     (long long)diff, bytes, rlx_program_error(p));
            rlx_program_destroy(p);
        } else {
            TH_CHECK(0, "%s: quantize program did not compile", gname[i]);
        }
        /* dequantize ggml's blocks */
        tr->to_float(gq, gf, rows * k);
        if ((p = cast_prog(qt[i], RLX_F32, 2, shape)) != NULL) {
            rlx_result r = rlx_set_input(p, "x", qt[i], gq, bytes);
            if (r == RLX_OK) r = rlx_run(p);
            if (r == RLX_OK) r = rlx_get_output_f32(p, "y", rf, (size_t)(rows * k));
            diff = 0;
            for (j = 0; j < rows * k; j++) diff += memcmp(&rf[j], &gf[j], 4) != 0;
            TH_CHECK(r == RLX_OK && diff == 0, "%s: dequantize: %lld of %lld floats differ from ggml's to_float",
                     gname[i], (long long)diff, (long long)(rows * k));
            rlx_program_destroy(p);
        }
        {   /* nonzero check: the data really exercises the format */
            int nz = 0;
            for (j = 0; j < rows * k; j++) nz += gf[j] != 0.0f;
            TH_CHECK(nz > rows * k / 2, "%s: ggml's dequantized data is mostly zero (%d nonzero)", gname[i], nz);
        }
        if ((p = cast_prog(qt[i], RLX_F16, 2, shape)) != NULL) {
            rlx_result r = rlx_set_input(p, "x", qt[i], gq, bytes);
            if (r == RLX_OK) r = rlx_run(p);
            if (r == RLX_OK) r = rlx_get_output(p, "y", RLX_F16, rh, 2 * (size_t)(rows * k));
            diff = 0;
            for (j = 0; j < rows * k; j++) {   /* f16 of ggml's float, rounded to nearest even in f64 */
                double v = (double)gf[j], back;
                int e;
                uint16_t h = rh[j];
                int ex = (h >> 10) & 31, man = h & 1023;
                back = ex == 0 ? ldexp((double)man, -24) : ex == 31 ? HUGE_VAL : ldexp((double)(man | 1024), ex - 25);
                if (h & 0x8000) back = -back;
                /* the f16 nearest to v: within half an ulp of f16 at v's exponent */
                frexp(v, &e);
                if (fabs(back - v) > ldexp(1.0, (e - 1 < -14 ? -14 : e - 1) - 11) * 1.0000001) diff++;
            }
            TH_CHECK(r == RLX_OK && diff == 0, "%s: dequantize to f16: %lld values not the f16 nearest ggml's",
                     gname[i], (long long)diff);
            rlx_program_destroy(p);
        }
        {   /* gather rows 4, 1, 4 of the table, then dequantize */
            rlx_graph* g = rlx_graph_create(NULL);
            rlx_program* pg = NULL;
            rlx_compile_desc cd;
            int64_t ix[3] = {4, 1, -2}, ish[1] = {3};
            float out[3 * 1024];
            rlx_tensor tbl = rlx_param(g, "t", qt[i], 2, shape);
            rlx_tensor id = rlx_constant(g, RLX_I64, 1, ish, ix);
            memset(&cd, 0, sizeof cd);
            rlx_output(g, "y", rlx_cast(g, rlx_gather(g, tbl, id, 0), RLX_F32));
            if (rlx_compile(g, &cd, &pg) == RLX_OK) {
                rlx_result r = rlx_set_param_raw(pg, "t", gq, bytes);
                if (r == RLX_OK) r = rlx_run(pg);
                if (r == RLX_OK) r = rlx_get_output_f32(pg, "y", out, 3 * 1024);
                TH_CHECK(r == RLX_OK && memcmp(out, gf + 4 * k, 4 * (size_t)k) == 0 &&
                             memcmp(out + k, gf + 1 * k, 4 * (size_t)k) == 0 &&
                             memcmp(out + 2 * k, gf + 4 * k, 4 * (size_t)k) == 0,
                         "%s: gather of quantized rows then cast (%s)", gname[i], rlx_program_error(pg));
                rlx_program_destroy(pg);
            } else {
                TH_CHECK(0, "%s: gather program: %s", gname[i], rlx_graph_error(g));
            }
            rlx_graph_destroy(g);
        }
    }
    free(x); free(gf); free(rf); free(rh); free(gq); free(rq);
}

/* ggml's CPU result of x [m, k] · wᵀ (w: n rows of quantized blocks): x quantized per row to vec_dot_type, then
   vec_dot per output. Returns 0 when ggml's CPU library is not there. */
static int ggml_cpu_mm(int type, const float* x, const void* w, float* y, int64_t m, int64_t n, int64_t k) {
    const g_traits_cpu* tc;
    size_t xrow, wrow;
    unsigned char* xq;
    int64_t i, j;
    if (!g_get_type_traits_cpu) return 0;
    tc = g_get_type_traits_cpu(type);
    if (!tc || !tc->vec_dot || !g_get_type_traits_cpu(tc->vec_dot_type)->from_float) return 0;
    xrow = g_row_size(tc->vec_dot_type, k);
    wrow = g_row_size(type, k);
    xq = (unsigned char*)malloc(xrow * (size_t)m);
    for (i = 0; i < m; i++) g_get_type_traits_cpu(tc->vec_dot_type)->from_float(x + i * k, xq + (size_t)i * xrow, k);
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++)
            tc->vec_dot((int)k, &y[i * n + j], 0, (const unsigned char*)w + (size_t)j * wrow, 0, xq + (size_t)i * xrow, 0, 1);
    free(xq);
    return 1;
}

static void test_matmul(void) {
    /* the grid: m in {1, 3, 8, 64, 512} (decode and prefill paths), k in {256, 4096, 11008} (11008: the
       FFN width of 7B models, 43 super-blocks); n is smaller where m * k is large, to keep the f64 reference cheap */
    static const int64_t ms[5] = {1, 3, 8, 64, 512}, ks[3] = {256, 4096, 11008};
    double worst = 0;   /* the largest error as a fraction of its bound (ggml's error + 1e-6 of the largest output) */
    char worst_at[64] = "";
    int i, a, b;
    for (i = 0; i < NQ; i++) {
        for (b = 0; b < 3; b++) {
            int64_t k = ks[b], wsh[2], xsh[2], n = k >= 11008 ? 24 : 96;
            size_t wbytes = g_row_size(gt[i], k) * (size_t)n;
            float* w = (float*)malloc(sizeof(float) * (size_t)(n * k));
            float* wd = (float*)malloc(sizeof(float) * (size_t)(n * k));
            unsigned char* wq = (unsigned char*)malloc(wbytes);
            wsh[0] = n; wsh[1] = k;
            fill(w, n, k, 77u + (uint64_t)(i * 2 + b));
            g_quantize_chunk(gt[i], w, wq, 0, n, k, NULL);
            g_get_type_traits(gt[i])->to_float(wq, wd, n * k);
            for (a = 0; a < 5; a++) {
                int64_t m = ms[a], r, c, q;
                float* x = (float*)malloc(sizeof(float) * (size_t)(m * k));
                float *y = (float*)malloc(sizeof(float) * (size_t)(m * n)), *yg = (float*)malloc(sizeof(float) * (size_t)(m * n));
                double err = 0, gerr = 0, mag = 0;
                rlx_graph* g = rlx_graph_create(NULL);
                rlx_program* p = NULL;
                rlx_compile_desc cd;
                rlx_result res;
                int have_g;
                memset(&cd, 0, sizeof cd);
                cd.num_threads = 2;
                cd.device = g_dev;
                if (g_dev != RLX_DEVICE_CPU) cd.flags = RLX_COMPILE_NO_FALLBACK;   /* the GPU's result, never the CPU's */
                xsh[0] = m; xsh[1] = k;
                fill(x, m, k, 5u + (uint64_t)(a * 100 + i));
                rlx_output(g, "y", rlx_matmul_quant(g, rlx_input(g, "x", RLX_F32, 2, xsh), rlx_param(g, "w", qt[i], 2, wsh)));
                res = rlx_compile(g, &cd, &p);
                if (res == RLX_OK) res = rlx_set_param_raw(p, "w", wq, wbytes);
                if (res == RLX_OK) res = rlx_set_input_f32(p, "x", x, (size_t)(m * k));
                if (res == RLX_OK) res = rlx_run(p);
                if (res == RLX_OK) res = rlx_get_output_f32(p, "y", y, (size_t)(m * n));
                have_g = ggml_cpu_mm(gt[i], x, wq, yg, m, n, k);
                for (r = 0; r < m; r++)
                    for (c = 0; c < n; c++) {
                        double s = 0;
                        for (q = 0; q < k; q++) s += (double)x[r * k + q] * (double)wd[c * k + q];
                        if (fabs(s) > mag) mag = fabs(s);
                        if (fabs((double)y[r * n + c] - s) > err || y[r * n + c] != y[r * n + c]) err = fabs((double)y[r * n + c] - s);
                        if (have_g && fabs((double)yg[r * n + c] - s) > gerr) gerr = fabs((double)yg[r * n + c] - s);
                    }
                if (!have_g) {
                    /* documented fallback: f32 sums of exact products, relative to the largest output */
                    th_skip("%s m=%lld k=%lld: ggml's CPU library is not there (%s); checked against 1e-5 of the "
                            "largest output instead", gname[i], (long long)m, (long long)k, g_cpu_why);
                    TH_CHECK(res == RLX_OK && err <= 1e-5 * mag, "%s m=%lld k=%lld: error %g (largest output %g)",
                             gname[i], (long long)m, (long long)k, err, mag);
                } else {
                    if (res == RLX_OK && gerr + 1e-6 * mag > 0 && err / (gerr + 1e-6 * mag) > worst) {
                        worst = err / (gerr + 1e-6 * mag);
                        snprintf(worst_at, sizeof worst_at, "%s m=%lld k=%lld", gname[i], (long long)m, (long long)k);
                    }
                    TH_CHECK(res == RLX_OK && err <= gerr + 1e-6 * mag && mag > 0, "%s m=%lld k=%lld: rlx error %g > ggml's %g "
                             "(largest output %g) %s", gname[i], (long long)m, (long long)k, err, gerr, mag,
                             res == RLX_OK ? "" : rlx_graph_error(g));
                    /* m < 16 on an AVX2 CPU: q4_0, q8_0 and q4_K round x as ggml does and keep its AVX2 lanes and
                       order (the decode kernels included), so the floats are ggml's */
                    if (g_dev == RLX_DEVICE_CPU && g_haswell && m < 16 && (qt[i] == RLX_Q4_0 || qt[i] == RLX_Q8_0 || qt[i] == RLX_Q4_K))
                        TH_CHECK(res == RLX_OK && memcmp(y, yg, sizeof(float) * (size_t)(m * n)) == 0,
                                 "%s m=%lld k=%lld: rlx's floats are ggml's AVX2 vec_dot's", gname[i], (long long)m,
                                 (long long)k);
                }
                rlx_program_destroy(p);
                rlx_graph_destroy(g);
                free(x); free(y); free(yg);
            }
            free(w); free(wd); free(wq);
        }
    }
    printf("matmul_quant on %s: the largest error is %.3g of its bound (ggml's error + 1e-6 of the largest output), "
           "at %s\n", rlx_device_name(g_dev), worst, worst_at);
}

/* Everything that must be refused, with a message naming what was wrong; needs no ggml. */
static void test_rejections(void) {
    int64_t s2[2] = {4, 64}, s_bad[2] = {4, 48}, s256[2] = {4, 256}, be = 0;
    size_t bb = 0;
    rlx_graph* g;
    rlx_tensor q, f;
    TH_CHECK(rlx_dtype_block(RLX_Q4_K, &be, &bb) == RLX_OK && be == 256 && bb == 144, "q4_K block %lld %zu", (long long)be, bb);
    TH_CHECK(rlx_dtype_block(RLX_F16, &be, &bb) == RLX_OK && be == 1 && bb == 2, "f16 block %lld %zu", (long long)be, bb);
    TH_CHECK(rlx_dtype_block((rlx_dtype)99, &be, &bb) == RLX_ERROR_DTYPE, "invalid dtype block");
    TH_CHECK(rlx_dtype_size(RLX_Q8_0) == 0, "rlx_dtype_size of a block dtype is 0");
    TH_CHECK(rlx_tensor_bytes(RLX_Q4_0, 2, s_bad, &bb) == RLX_ERROR_SHAPE, "q4_0 with a last dim of 48");
    TH_CHECK(rlx_tensor_bytes(RLX_Q4_0, 2, s2, &bb) == RLX_OK && bb == 4 * 2 * 18, "q4_0 [4,64] bytes %zu", bb);
    TH_CHECK(rlx_tensor_bytes(RLX_Q4_0, 0, NULL, &bb) == RLX_ERROR_SHAPE, "q4_0 scalar");
    {   /* 32-bit and 64-bit: a count that overflows size_t is an error, not a wrap */
        int64_t huge[2] = {RLX_MAX_ELEMENTS / 256, 256};
        rlx_result r = rlx_tensor_bytes(RLX_Q8_0, 2, huge, &bb);
        TH_CHECK(r == RLX_OK ? bb / 34 == (size_t)(RLX_MAX_ELEMENTS / 256) * 8 : r == RLX_ERROR_SHAPE, "huge q8_0");
    }

#define EXPECT_FAIL(expr, code, what)                                                                            \
    do {                                                                                                         \
        g = rlx_graph_create(NULL);                                                                              \
        expr;                                                                                                    \
        TH_CHECK(rlx_graph_status(g) == (code), "%s: status %d (%s)", what, (int)rlx_graph_status(g), rlx_graph_error(g)); \
        TH_CHECK(strstr(rlx_graph_error(g), "q4_0") || strstr(rlx_graph_error(g), "iq4") || strstr(rlx_graph_error(g), "block"), \
                 "%s: message names the dtype: %s", what, rlx_graph_error(g));                                    \
        rlx_graph_destroy(g);                                                                                    \
    } while (0)
    EXPECT_FAIL(rlx_param(g, "w", RLX_Q4_0, 2, s_bad), RLX_ERROR_SHAPE, "param last dim 48");
    EXPECT_FAIL(rlx_scalar(g, RLX_Q4_0, 1.0), RLX_ERROR_SHAPE, "scalar of q4_0");
    EXPECT_FAIL(rlx_state(g, "s", RLX_Q4_0, 2, s2), RLX_ERROR_DTYPE, "state of q4_0");
    EXPECT_FAIL((q = rlx_param(g, "w", RLX_Q4_0, 2, s2), rlx_relu(g, q)), RLX_ERROR_DTYPE, "relu of q4_0");
    EXPECT_FAIL((q = rlx_param(g, "w", RLX_Q4_0, 2, s2), rlx_binary(g, RLX_OP_ADD, q, q)), RLX_ERROR_DTYPE, "add of q4_0");
    EXPECT_FAIL((q = rlx_param(g, "w", RLX_Q4_0, 2, s2), rlx_transpose(g, q, NULL)), RLX_ERROR_DTYPE, "transpose of q4_0");
    EXPECT_FAIL((q = rlx_param(g, "w", RLX_Q4_0, 2, s2), rlx_reshape(g, q, 2, s2)), RLX_ERROR_DTYPE, "reshape of q4_0");
    EXPECT_FAIL((q = rlx_param(g, "w", RLX_Q4_0, 2, s2), rlx_cast(g, q, RLX_I32)), RLX_ERROR_DTYPE, "cast q4_0 to i32");
    EXPECT_FAIL((f = rlx_param(g, "w", RLX_F32, 2, s256), rlx_cast(g, f, RLX_IQ4_NL)), RLX_ERROR_DTYPE, "cast f32 to iq4_nl");
    EXPECT_FAIL((q = rlx_param(g, "w", RLX_Q4_0, 2, s2), rlx_cast(g, q, RLX_Q8_0)), RLX_ERROR_DTYPE, "cast q4_0 to q8_0");
    EXPECT_FAIL((f = rlx_param(g, "w", RLX_F16, 2, s2), rlx_cast(g, f, RLX_Q4_0)), RLX_ERROR_DTYPE, "cast f16 to q4_0");
    EXPECT_FAIL((f = rlx_param(g, "w", RLX_F32, 2, s_bad), rlx_cast(g, f, RLX_Q4_0)), RLX_ERROR_SHAPE, "cast f32 [4,48] to q4_0");
    {
        int64_t one = 1;
        EXPECT_FAIL((q = rlx_param(g, "w", RLX_Q4_0, 2, s2),
                     rlx_gather(g, q, rlx_constant(g, RLX_I64, 1, &one, &one), 1)), RLX_ERROR_AXIS, "gather along the block axis");
    }
    EXPECT_FAIL((q = rlx_param(g, "w", RLX_Q4_0, 2, s2), f = rlx_input(g, "x", RLX_F32, 2, s2),
                 rlx_matmul(g, f, q)), RLX_ERROR_DTYPE, "plain matmul with q4_0");
    EXPECT_FAIL((q = rlx_param(g, "w", RLX_Q4_0, 2, s2), f = rlx_input(g, "x", RLX_F32, 2, s2),
                 rlx_matmul_quant(g, q, f)), RLX_ERROR_DTYPE, "matmul_quant with the operands swapped (block dtype)");
    g = rlx_graph_create(NULL);
    q = rlx_param(g, "w", RLX_Q4_0, 2, s2);
    rlx_matmul_quant(g, rlx_input(g, "x", RLX_F32, 2, s256), q);
    TH_CHECK(rlx_graph_status(g) == RLX_ERROR_SHAPE && strstr(rlx_graph_error(g), "256"), "matmul_quant k mismatch: %s",
             rlx_graph_error(g));
    rlx_graph_destroy(g);

    {   /* raw I/O: f32 data for a q4_0 input is refused; the wrong byte count too */
        rlx_program* p = NULL;
        rlx_compile_desc cd;
        float fx[256];
        unsigned char raw[4 * 2 * 18];
        memset(&cd, 0, sizeof cd);
        cd.device = RLX_DEVICE_CPU;
        memset(fx, 0, sizeof fx);
        memset(raw, 0, sizeof raw);
        g = rlx_graph_create(NULL);
        rlx_output(g, "y", rlx_cast(g, rlx_input(g, "x", RLX_Q4_0, 2, s2), RLX_F32));
        TH_CHECK(rlx_compile(g, &cd, &p) == RLX_OK, "compile: %s", rlx_graph_error(g));
        if (p) {
            TH_CHECK(rlx_set_input_f32(p, "x", fx, 256) == RLX_ERROR_DTYPE && strstr(rlx_program_error(p), "q4_0"),
                     "f32 into q4_0: %s", rlx_program_error(p));
            TH_CHECK(rlx_set_input(p, "x", RLX_Q4_0, raw, sizeof raw - 1) == RLX_ERROR_SIZE, "short q4_0 input: %s",
                     rlx_program_error(p));
            TH_CHECK(rlx_set_input(p, "x", RLX_Q4_0, raw, sizeof raw) == RLX_OK, "q4_0 input: %s", rlx_program_error(p));
            rlx_program_destroy(p);
        }
        rlx_graph_destroy(g);
    }
    {   /* a store holds q4_0 bytes; a program bound to it dequantizes them */
        rlx_store* st = NULL;
        unsigned char raw[4 * 2 * 18];
        float out[256], half = 0.5f;
        int j, ok = 1;
        rlx_store_desc sd;
        memset(&sd, 0, sizeof sd);
        sd.device = RLX_DEVICE_CPU;
        for (j = 0; j < 8; j++) {   /* d = 0.5 (f16 0x3800), nibbles 0..15 */
            int l;
            raw[j * 18] = 0x00; raw[j * 18 + 1] = 0x38;
            for (l = 0; l < 16; l++) raw[j * 18 + 2 + l] = (unsigned char)(l | ((15 - l) << 4));
        }
        TH_CHECK(rlx_store_create(&sd, &st) == RLX_OK, "store");
        TH_CHECK(rlx_store_add(st, "w", RLX_Q4_0, 2, s_bad, raw) == RLX_ERROR_SHAPE, "store q4_0 [4,48]");
        TH_CHECK(rlx_store_add(st, "w", RLX_Q4_0, 2, s2, raw) == RLX_OK, "store q4_0");
        {
            rlx_program* p = NULL;
            rlx_compile_desc cd;
            memset(&cd, 0, sizeof cd);
            cd.store = st;
            g = rlx_graph_create(NULL);
            rlx_output(g, "y", rlx_cast(g, rlx_param(g, "w", RLX_Q4_0, 2, s2), RLX_F32));
            TH_CHECK(rlx_compile(g, &cd, &p) == RLX_OK, "compile with store: %s", rlx_graph_error(g));
            if (p && rlx_run(p) == RLX_OK && rlx_get_output_f32(p, "y", out, 256) == RLX_OK) {
                for (j = 0; j < 256; j++) {
                    int l = j % 32, qv = l < 16 ? l : 15 - (l - 16);
                    if (out[j] != (float)(qv - 8) * half) ok = 0;
                }
                TH_CHECK(ok, "store q4_0 dequantized to the hand-computed values");
            } else {
                TH_CHECK(0, "run with store: %s", p ? rlx_program_error(p) : "no program");
            }
            rlx_program_destroy(p);
            rlx_graph_destroy(g);
        }
        rlx_store_destroy(st);
    }
}

/* GPU lowering refuses quantization (cast f32 -> block stays on the CPU) cleanly: RLX_ERROR_UNSUPPORTED naming
   the op and the dtype. (Dequantize, gather and matmul_quant run on the GPUs: test_quant_gpu.c.) */
static void test_gpu_rejects(void) {
    static const rlx_device devs[3] = {RLX_DEVICE_VULKAN, RLX_DEVICE_CUDA, RLX_DEVICE_HIP};
    int d;
    for (d = 0; d < 3; d++) {
        int64_t xs[2] = {2, 64};
        rlx_graph* g = rlx_graph_create(NULL);
        rlx_program* p = NULL;
        rlx_compile_desc cd;
        rlx_result r;
        memset(&cd, 0, sizeof cd);
        cd.device = devs[d];
        cd.flags = RLX_COMPILE_NO_FALLBACK;
        rlx_output(g, "y", rlx_cast(g, rlx_input(g, "x", RLX_F32, 2, xs), RLX_Q8_0));
        r = rlx_compile(g, &cd, &p);
        if (r == RLX_ERROR_DEVICE_UNAVAILABLE) {
            th_skip("%s: device unavailable here (%s)", rlx_device_name(devs[d]), rlx_graph_error(g));
        } else {
            TH_CHECK(r == RLX_ERROR_UNSUPPORTED && strstr(rlx_graph_error(g), "cast") &&
                         strstr(rlx_graph_error(g), "q8_0"),
                     "%s: compile gives %d: %s", rlx_device_name(devs[d]), (int)r, rlx_graph_error(g));
        }
        rlx_program_destroy(p);
        rlx_graph_destroy(g);
    }
}

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "cpu")) {   /* the matmul grid on a GPU backend */
        static const struct { const char* arg; rlx_device dev; const char* name; } devs[3] = {
            {"vulkan", RLX_DEVICE_VULKAN, "quant_vulkan"}, {"cuda", RLX_DEVICE_CUDA, "quant_cuda"},
            {"hip", RLX_DEVICE_HIP, "quant_hip"}};
        int d;
        for (d = 0; d < 3 && strcmp(argv[1], devs[d].arg); d++) {}
        if (d == 3) {
            fprintf(stderr, "usage: test_quant [cpu|vulkan|cuda|hip]\n");
            return 2;
        }
        g_dev = devs[d].dev;
        if (!th_device_available(g_dev)) th_skip("quant on %s: no such device here", argv[1]);
        else if (!load_ggml()) th_skip("ggml oracle: %s", g_why);
        else test_matmul();
        return th_summary(devs[d].name);
    }
    test_rejections();
    test_gpu_rejects();
    if (!load_ggml()) {
        th_skip("ggml oracle: %s", g_why);
    } else {
        test_formats();
        test_matmul();
    }
    return th_summary("quant");
}
