/* threads.c - does a second CPU thread pay off on small steps? runs/s with 1, 2 and N threads.

   Two workloads whose steps are small, where waking worker threads can cost more than it saves:
     cnn     a small CNN on one 3x32x32 image: conv 3->8 (3x3, pad 1) + relu, max pool 2, conv 8->16 (3x3,
             pad 1) + relu, max pool 2, linear 1024->10
     decode  one decode step (S = 1 token at position 64) of examples/transformer_model.h's small model
             (d 128, 4 layers, 8 query / 2 kv heads of 16, SwiGLU 352, vocabulary 256): every matmul has M = 1
   Each is compiled for 1 thread, 2 threads and N threads (N = the machine's cores; the row is left out when
   N <= 2). The programs are timed in alternating rounds within one run (so a burst of load elsewhere on the
   machine hits all of them), and runs/s is the median over the rounds. The ratio 2T/1T > 1 means two threads
   are faster; below RLX_PARALLEL_MIN_WORK a step stays on the calling thread, so the ratio should not drop
   below about 1.0 even on a busy machine.

   Build: cc -O3 -I. bench/threads.c -o build/bench/threads -lm -lpthread -ldl
   Usage: threads [seconds per round and program, default 0.2] [rounds, default 7]
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

enum { MAX_ROUNDS = 64, NCONF = 3 };

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check(rlx_result r, const char* what, const char* msg) {
    if (r == RLX_OK) return;
    fprintf(stderr, "error: %s failed: %s (%s)\n", what, rlx_result_string(r), msg);
    exit(1);
}

static uint64_t seed = 0x7EAD5u;
static float uni(void) { return tm_uniform(&seed, 1.0f); }
static void fill(float* x, size_t n, float scale) {
    size_t i;
    for (i = 0; i < n; i++) x[i] = scale * uni();
}

static rlx_program* compile_cnn(int threads) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t xs[4] = {1, 3, 32, 32}, w1s[4] = {8, 3, 3, 3}, w2s[4] = {16, 8, 3, 3}, b1s[1] = {8}, b2s[1] = {16};
    int64_t fs[2] = {1, 1024}, ws[2] = {1024, 10}, bs[1] = {10};
    rlx_conv_desc cd;
    rlx_pool_desc pd;
    rlx_compile_desc desc;
    rlx_tensor h;
    rlx_program* p = NULL;
    static float x[3 * 32 * 32], w1[8 * 27], w2[16 * 72], b1[8], b2[16], wl[1024 * 10], bl[10];
    memset(&cd, 0, sizeof cd);
    cd.pad_begin[0] = cd.pad_begin[1] = cd.pad_end[0] = cd.pad_end[1] = 1;
    memset(&pd, 0, sizeof pd);
    pd.kind = RLX_POOL_MAX;
    pd.kernel[0] = pd.kernel[1] = 2;
    h = rlx_input(g, "x", RLX_F32, 4, xs);
    h = rlx_relu(g, rlx_conv(g, h, rlx_param(g, "w1", RLX_F32, 4, w1s), rlx_param(g, "b1", RLX_F32, 1, b1s), &cd));
    h = rlx_pool(g, h, &pd);
    h = rlx_relu(g, rlx_conv(g, h, rlx_param(g, "w2", RLX_F32, 4, w2s), rlx_param(g, "b2", RLX_F32, 1, b2s), &cd));
    h = rlx_pool(g, h, &pd);
    h = rlx_reshape(g, h, 2, fs);
    h = rlx_linear(g, h, rlx_param(g, "wl", RLX_F32, 2, ws), rlx_param(g, "bl", RLX_F32, 1, bs), RLX_ACT_NONE);
    rlx_output(g, "y", h);
    memset(&desc, 0, sizeof desc);
    desc.device = RLX_DEVICE_CPU;
    desc.num_threads = threads;
    check(rlx_compile(g, &desc, &p), "compile cnn", rlx_graph_error(g));
    rlx_graph_destroy(g);
    fill(x, sizeof x / sizeof x[0], 1.0f);
    fill(w1, sizeof w1 / sizeof w1[0], 0.3f);
    fill(w2, sizeof w2 / sizeof w2[0], 0.1f);
    fill(b1, 8, 0.1f);
    fill(b2, 16, 0.1f);
    fill(wl, sizeof wl / sizeof wl[0], 0.03f);
    fill(bl, 10, 0.1f);
    check(rlx_set_input_f32(p, "x", x, sizeof x / sizeof x[0]), "set x", rlx_program_error(p));
    check(rlx_set_param_f32(p, "w1", w1, sizeof w1 / sizeof w1[0]), "set w1", rlx_program_error(p));
    check(rlx_set_param_f32(p, "w2", w2, sizeof w2 / sizeof w2[0]), "set w2", rlx_program_error(p));
    check(rlx_set_param_f32(p, "b1", b1, 8), "set b1", rlx_program_error(p));
    check(rlx_set_param_f32(p, "b2", b2, 16), "set b2", rlx_program_error(p));
    check(rlx_set_param_f32(p, "wl", wl, sizeof wl / sizeof wl[0]), "set wl", rlx_program_error(p));
    check(rlx_set_param_f32(p, "bl", bl, 10), "set bl", rlx_program_error(p));
    return p;
}

static tm_config cfg;
static tm_weights weights;

static rlx_program* compile_decode(int threads) {
    tm_build b = tm_build_default(1);
    rlx_program* p = NULL;
    char err[512];
    int32_t tok = 65, pos = 64;
    int64_t counter = 0;
    check(tm_compile(&cfg, &b, threads, 0, &p, err, sizeof err), "compile decode", err);
    check(tm_set_params(p, &weights), "set weights", rlx_program_error(p));
    check(rlx_set_input_i32(p, "tokens", &tok, 1), "set tokens", rlx_program_error(p));
    check(rlx_set_input_i32(p, "pos", &pos, 1), "set pos", rlx_program_error(p));
    check(rlx_set_input_i64(p, "counter", &counter, 1), "set counter", rlx_program_error(p));
    return p;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

/* Runs/s of p over about `budget` seconds (after one warm-up run). */
static double rate(rlx_program* p, double budget) {
    double t0, t;
    long n = 0;
    check(rlx_run(p), "run", rlx_program_error(p));
    t0 = now_s();
    do {
        check(rlx_run(p), "run", rlx_program_error(p));
        n++;
        t = now_s() - t0;
    } while (t < budget);
    return (double)n / t;
}

static void measure(const char* name, rlx_program* const* progs, const int* threads, int nconf, double budget, int rounds) {
    static double r[NCONF][MAX_ROUNDS];
    double med[NCONF];
    int c, k;
    for (k = 0; k < rounds; k++)
        for (c = 0; c < nconf; c++) r[c][k] = rate(progs[c], budget);
    for (c = 0; c < nconf; c++) {
        qsort(r[c], (size_t)rounds, sizeof r[c][0], cmp_double);
        med[c] = r[c][rounds / 2];
    }
    printf("%-7s", name);
    for (c = 0; c < nconf; c++) printf("  %dT %9.1f runs/s [%.1f..%.1f]", threads[c], med[c], r[c][0], r[c][rounds - 1]);
    printf("  ratio 2T/1T %.3f\n", med[1] / med[0]);
}

int main(int argc, char** argv) {
    double budget = argc > 1 ? atof(argv[1]) : 0.2;
    int rounds = argc > 2 ? atoi(argv[2]) : 7;
    rlx_device_info cpu;
    int threads[NCONF], nconf = 2, ncores, c;
    rlx_program* cnn[NCONF];
    rlx_program* dec[NCONF];
    if (!(budget > 0.0)) budget = 0.2;
    if (rounds < 1) rounds = 1;
    if (rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
    rlx_devices(&cpu, 1);
    {
        rlx_plan_info pi;
        rlx_program* probe = compile_cnn(0);   /* 0 threads = one per core */
        rlx_program_plan(probe, &pi);
        ncores = pi.num_threads;
        rlx_program_destroy(probe);
    }
    threads[0] = 1;
    threads[1] = 2;
    if (ncores > 2) threads[nconf++] = ncores;
    cfg = tm_config_small();
    if (!tm_weights_init(&cfg, 1, &weights)) { fprintf(stderr, "error: out of memory\n"); return 1; }
#if defined(RLX_PARALLEL_MIN_WORK)
    printf("%s; %d cores; RLX_PARALLEL_MIN_WORK %d; ", cpu.name, ncores, (int)RLX_PARALLEL_MIN_WORK);
#else
    printf("%s; %d cores; no RLX_PARALLEL_MIN_WORK; ", cpu.name, ncores);
#endif
    printf("%.2f s per program and round, %d rounds, median [min..max]\n", budget, rounds);
    for (c = 0; c < nconf; c++) {
        cnn[c] = compile_cnn(threads[c]);
        dec[c] = compile_decode(threads[c]);
    }
    measure("cnn", cnn, threads, nconf, budget, rounds);
    measure("decode", dec, threads, nconf, budget, rounds);
    for (c = 0; c < nconf; c++) {
        rlx_program_destroy(cnn[c]);
        rlx_program_destroy(dec[c]);
    }
    tm_weights_free(&weights);
    return 0;
}
