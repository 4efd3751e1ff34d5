/* transformer.c - CPU timing of one transformer decoder block with rlx.h.

   The block is one layer of examples/transformer_model.h at d_model 512: 8 query heads and 2 kv heads of
   head dim 64 (grouped-query attention), SwiGLU MLP with hidden size 1408, RoPE, pre-norm rmsnorm, a KV cache
   of 256 positions (rlx_state, BHSD). No embedding, final norm or LM head: the input is the residual stream
   x [1, S, 512] and the output the block's residual stream.

   Measured, with 1 and 2 threads:
     prefill  S = 128 tokens at pos 0 (attention over 128 keys, causal)
     decode   S = 1 token at pos 128 (attention over 129 cached keys; caches copied from the prefill program)
   each compiled twice from the same graph: with the fusion pass (default) and with RLX_COMPILE_NO_FUSION
   (plain matmul / add / rmsnorm / silu / mul steps). The two are timed in the same run and their outputs
   compared. Times are medians over the repetitions (best in brackets). FLOPs counted: every matmul 2·M·N·K
   plus attention 4·H·Sq·Sk·D with Sk = kv_len (the full rectangle, not halved for the causal mask).

   Build: cc -O3 -I. bench/transformer.c -o build/bench/transformer -lm -lpthread -ldl
   Usage: transformer [seconds per measurement, default 0.5]
   Environment: RLX_BENCH_DEVICE=cuda|vulkan times the block on that backend (one row: threads change nothing
   there); RLX_BENCH_PROFILE=1 also prints the per-step profile of the fused prefill and decode programs.
*/
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c99 */
#endif

#define RLX_IMPLEMENTATION
#include "../rlx.h"
#include "../examples/transformer_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { PREFILL = 128, MAX_REPS = 2000 };

static tm_config cfg;
static tm_weights weights;
static double budget_s = 0.5;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check(const rlx_program* p, rlx_result r, const char* what) {
    if (r == RLX_OK) return;
    fprintf(stderr, "error: %s failed: %s (%s)\n", what, rlx_result_string(r), p ? rlx_program_error(p) : "");
    exit(1);
}

static rlx_program* compile_block(int S, int threads, uint32_t flags) {
    tm_build b = tm_build_default(S);
    rlx_program* p = NULL;
    char err[512];
    rlx_result r;
    b.blocks_only = 1;
    r = tm_compile(&cfg, &b, threads, flags, &p, err, sizeof err);
    if (r != RLX_OK) {
        fprintf(stderr, "error: compile (S = %d) failed: %s (%s)\n", S, rlx_result_string(r), err);
        exit(1);
    }
    check(p, tm_set_params(p, &weights), "setting the weights");
    return p;
}

static void set_inputs(rlx_program* p, const float* x, int S, int32_t pos) {
    check(p, rlx_set_input_f32(p, "x", x, (size_t)S * (size_t)cfg.d_model), "set x");
    check(p, rlx_set_input_i32(p, "pos", &pos, 1), "set pos");
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

/* Runs p repeatedly (2 warm-up runs, then until the time budget is spent); median and best seconds per run. */
static void time_runs(rlx_program* p, double* median, double* best) {
    static double t[MAX_REPS];
    int n = 0, i;
    double start;
    for (i = 0; i < 2; i++) check(p, rlx_run(p), "run");
    start = now_s();
    while (n < MAX_REPS && (n < 5 || now_s() - start < budget_s)) {
        double t0 = now_s();
        check(p, rlx_run(p), "run");
        t[n++] = now_s() - t0;
    }
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    *median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    *best = t[0];
}

/* FLOPs of one block run: S tokens attending to kv_len keys. */
static double block_flops(int S, int kv_len) {
    double d = cfg.d_model, q = (double)cfg.n_heads * cfg.head_dim, kv = (double)cfg.n_kv_heads * cfg.head_dim;
    double f = cfg.ffn_hidden;
    double mm = 2.0 * S * (d * q + 2.0 * d * kv + q * d + 3.0 * d * f);
    return mm + 4.0 * cfg.n_heads * (double)S * (double)kv_len * cfg.head_dim;
}

static double max_rel_err(rlx_program* a, rlx_program* b, size_t n) {
    float* x = (float*)malloc(n * sizeof(float));
    float* y = (float*)malloc(n * sizeof(float));
    double num = 0.0, den = 0.0;
    size_t i;
    if (!x || !y) { fprintf(stderr, "error: out of memory\n"); exit(1); }
    check(a, rlx_get_output_f32(a, "y", x, n), "read y");
    check(b, rlx_get_output_f32(b, "y", y, n), "read y");
    for (i = 0; i < n; i++) {
        double e = fabs((double)x[i] - (double)y[i]);
        if (!(e <= num)) num = e;
        if (fabs((double)y[i]) > den) den = fabs((double)y[i]);
    }
    free(x);
    free(y);
    return den > 0.0 ? num / den : num;
}

int main(int argc, char** argv) {
    float *xp, *xd;
    uint64_t s = 0xB10C;
    size_t i;
    int threads;
    double fl_pre, fl_dec;

    if (argc > 1) budget_s = atof(argv[1]);
    /* RLX_BENCH_DEVICE=cuda or vulkan times the block on that backend (threads then affect nothing); default cpu */
    {
        const char* dv = getenv("RLX_BENCH_DEVICE");
        tm_device = dv && strcmp(dv, "cuda") == 0 ? RLX_DEVICE_CUDA : dv && strcmp(dv, "vulkan") == 0 ? RLX_DEVICE_VULKAN
                                                                                                      : RLX_DEVICE_CPU;
    }
    if (!(budget_s > 0.0)) budget_s = 0.5;
    cfg = tm_config_small();
    cfg.d_model = 512; cfg.n_layers = 1; cfg.n_heads = 8; cfg.n_kv_heads = 2; cfg.head_dim = 64;
    cfg.ffn_hidden = 1408; cfg.max_ctx = 256; cfg.seed = 0xB10Cu;
    if (!tm_weights_init(&cfg, 0, &weights)) { fprintf(stderr, "error: out of memory\n"); return 1; }
    xp = (float*)malloc(sizeof(float) * PREFILL * (size_t)cfg.d_model);
    xd = (float*)malloc(sizeof(float) * (size_t)cfg.d_model);
    if (!xp || !xd) { fprintf(stderr, "error: out of memory\n"); return 1; }
    for (i = 0; i < (size_t)PREFILL * (size_t)cfg.d_model; i++) xp[i] = tm_uniform(&s, 1.0f);
    for (i = 0; i < (size_t)cfg.d_model; i++) xd[i] = tm_uniform(&s, 1.0f);
    fl_pre = block_flops(PREFILL, PREFILL);
    fl_dec = block_flops(1, PREFILL + 1);

    printf("one decoder block: d_model %d, %d query heads / %d kv heads of %d, SwiGLU %d, RoPE, rmsnorm, "
           "KV cache %d (f32, %s)\n", cfg.d_model, cfg.n_heads, cfg.n_kv_heads, cfg.head_dim, cfg.ffn_hidden,
           cfg.max_ctx, rlx_device_name(tm_device));
    printf("FLOPs per run: prefill S=%d %.1f M, decode at pos %d %.2f M; times are medians [best]\n\n", PREFILL,
           fl_pre * 1e-6, PREFILL, fl_dec * 1e-6);
    printf("%7s  %-15s  %-19s  %7s  %-19s  %7s  %13s  %9s  %13s  %s\n", "threads", "run", "fused ms [best]",
           "GFLOP/s", "unfused ms [best]", "GFLOP/s", "unfused/fused", "steps f/u", "arena KiB f/u", "max rel diff");
    for (threads = 1; threads <= 2; threads++) {
        rlx_program* pf = compile_block(PREFILL, threads, 0);
        rlx_program* pu = compile_block(PREFILL, threads, RLX_COMPILE_NO_FUSION);
        rlx_program* df = compile_block(1, threads, 0);
        rlx_program* du = compile_block(1, threads, RLX_COMPILE_NO_FUSION);
        rlx_program* failed = NULL;
        rlx_plan_info ipf, ipu, idf, idu;
        double mf, bf, mu, bu;
        rlx_result r;

        check(pf, rlx_program_plan(pf, &ipf), "plan");
        check(pu, rlx_program_plan(pu, &ipu), "plan");
        check(df, rlx_program_plan(df, &idf), "plan");
        check(du, rlx_program_plan(du, &idu), "plan");

        set_inputs(pf, xp, PREFILL, 0);
        set_inputs(pu, xp, PREFILL, 0);
        time_runs(pf, &mf, &bf);
        time_runs(pu, &mu, &bu);
        printf("%7d  prefill S=%-5d  %8.3f [%8.3f]  %7.2f  %8.3f [%8.3f]  %7.2f  %13.2f  %4d/%-4d  %6.0f/%-6.0f  %.2g\n",
               threads, PREFILL, mf * 1e3, bf * 1e3, fl_pre / mf * 1e-9, mu * 1e3, bu * 1e3, fl_pre / mu * 1e-9,
               mu / mf, ipf.num_steps, ipu.num_steps, (double)ipf.arena_bytes / 1024.0, (double)ipu.arena_bytes / 1024.0, max_rel_err(pu, pf, (size_t)PREFILL * (size_t)cfg.d_model));

        /* decode at pos 128 over the prompt's cache (each run rewrites row 128 with the same values) */
        r = tm_copy_caches(df, pf, &cfg, &failed);
        if (r == RLX_OK) r = tm_copy_caches(du, pu, &cfg, &failed);
        check(failed, r, "copying the caches");
        set_inputs(df, xd, 1, PREFILL);
        set_inputs(du, xd, 1, PREFILL);
        time_runs(df, &mf, &bf);
        time_runs(du, &mu, &bu);
        printf("%7d  decode pos %-4d  %8.4f [%8.4f]  %7.2f  %8.4f [%8.4f]  %7.2f  %13.2f  %4d/%-4d  %6.0f/%-6.0f  %.2g\n",
               threads, PREFILL, mf * 1e3, bf * 1e3, fl_dec / mf * 1e-9, mu * 1e3, bu * 1e3, fl_dec / mu * 1e-9,
               mu / mf, idf.num_steps, idu.num_steps, (double)idf.arena_bytes / 1024.0, (double)idu.arena_bytes / 1024.0, max_rel_err(du, df, (size_t)cfg.d_model));

        rlx_program_destroy(pf);
        rlx_program_destroy(pu);
        rlx_program_destroy(df);
        rlx_program_destroy(du);
        if (tm_device != RLX_DEVICE_CPU) break;   /* threads change nothing on a GPU */
    }
    if (getenv("RLX_BENCH_PROFILE")) {   /* per-step times of the fused programs (profiled runs, see rlx_program_profile) */
        static char table[16384];
        rlx_program* pp = compile_block(PREFILL, 1, RLX_COMPILE_PROFILE);
        rlx_program* dp = compile_block(1, 1, RLX_COMPILE_PROFILE);
        rlx_program* failed = NULL;
        double m, bst;
        set_inputs(pp, xp, PREFILL, 0);
        time_runs(pp, &m, &bst);
        check(failed, tm_copy_caches(dp, pp, &cfg, &failed), "copying the caches");
        set_inputs(dp, xd, 1, PREFILL);
        rlx_program_profile_table(pp, table, sizeof table, 12);
        printf("\nprofile, prefill S=%d:\n%s", PREFILL, table);
        time_runs(dp, &m, &bst);
        rlx_program_profile_table(dp, table, sizeof table, 24);
        printf("\nprofile, decode at pos %d:\n%s", PREFILL, table);
        rlx_program_destroy(pp);
        rlx_program_destroy(dp);
    }
    free(xp);
    free(xd);
    tm_weights_free(&weights);
    return 0;
}
