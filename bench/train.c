/* train.c - training steps/s of rlx.h against PyTorch on the CPU, in the same run.

   Two models, each trained with AdamW (lr 1e-3, weight decay 0.01, clipping by the global gradient norm 1.0),
   one rlx_run per step (forward, backward, update in place; only the loss read back):
     mlp          x [128, 784] -> linear 256 -> relu -> linear 10 -> cross-entropy (Fashion-MNIST's shape)
     transformer  a 2-layer pre-norm GPT: tokens [16, 64], vocabulary 96, width 128, 4 heads (causal
                  attention), gelu MLP 512, final layernorm, linear head, cross-entropy
   at 1 and 2 threads. The peer is bench/train_torch.py (the same shapes and optimizer, torch.set_num_threads
   to the same count; OPENBLAS_NUM_THREADS from 1 to that count, its best rate taken) started with
   /usr/bin/python3 (RLX_BENCH_PYTHON overrides); where PyTorch is missing
   (Debian: apt-get install python3-torch) its column says "skipped". Debian's PyTorch does its matrix products
   in the system BLAS (libblas.so.3): install libopenblas0-pthread, or the peer runs on the netlib reference BLAS
   (about 6 GFLOP/s on a Zen 5 core) and the ratios flatter rlx. Each side is measured 3 times for
   SECONDS after a warm-up and its median printed, then the ratio rlx / torch of steps/s (> 1: rlx is faster).

   Build: cc -O3 -I. bench/train.c -o build/bench/train -lm -lpthread -ldl
   Usage: build/bench/train [SECONDS per measurement, default 1]   (run from the repository root)
   Environment: RLX_BENCH_PROFILE=1 prints the top steps of rlx's training steps (2 threads).
   RLX_BENCH_DEVICE=cuda|vulkan|hip runs rlx's side on that GPU (one row per model, no CPU fallback) and the peer
   with PyTorch on CUDA (eager, the loss read each step as rlx does), where torch finds one; then it also prints
   the memory: rlx's plan (per-run arena, kernel workspace, params and optimizer states, their sum) against
   torch.cuda.max_memory_allocated over the peer's run (params, gradients, optimizer states, activations).
*/
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L /* clock_gettime and popen under -std=c99 */
#endif

#define RLX_IMPLEMENTATION
#include "../rlx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* mlp */
#define MB 128
#define MIN 784
#define MHID 256
#define MCLS 10
/* transformer */
#define TB 16
#define TT 64
#define TD 128
#define TH 4
#define TL 2
#define TF 512
#define TV 96
#define TNP (2 + 12 * TL + 3)

static double budget_s = 1.0;
static rlx_device bench_dev = RLX_DEVICE_CPU;
static const char* bench_dev_name = "cpu";

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static double rnd(void) {
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static void fill_state(rlx_program* p, const char* name, int64_t n, double scale, double fill) {
    float* w = (float*)malloc(sizeof(float) * (size_t)n);
    int64_t i;
    for (i = 0; i < n; i++) w[i] = scale > 0 ? (float)((2 * rnd() - 1) * scale) : (float)fill;
    rlx_set_state(p, name, RLX_F32, w, sizeof(float) * (size_t)n);
    free(w);
}

static void finish(rlx_graph* g, int np, rlx_tensor* p, rlx_tensor loss) {
    rlx_tensor gr[TNP];
    rlx_optimizer_desc od;
    rlx_grad(g, loss, np, p, gr);
    memset(&od, 0, sizeof od);
    od.lr = 1e-3f;
    od.weight_decay = 0.01f;
    od.clip_norm = 1.0f;
    rlx_optimizer_step(g, &od, np, p, gr);
    rlx_output(g, "loss", loss);
}

static rlx_program* compile(rlx_graph* g, int threads) {
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    memset(&cd, 0, sizeof cd);
    cd.device = bench_dev;
    if (bench_dev != RLX_DEVICE_CPU) cd.flags = RLX_COMPILE_NO_FALLBACK;
    cd.num_threads = threads;
    if (rlx_compile(g, &cd, &p) != RLX_OK) {
        fprintf(stderr, "compile: %s\n", rlx_graph_error(g));
        exit(1);
    }
    return p;
}

static rlx_program* build_mlp(int threads) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t xs[2] = {MB, MIN}, ys[1] = {MB}, s0[2] = {MIN, MHID}, s1[1] = {MHID}, s2[2] = {MHID, MCLS}, s3[1] = {MCLS};
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, xs), y = rlx_input(g, "y", RLX_I32, 1, ys), p[4];
    rlx_program* prog;
    float* xd = (float*)malloc(sizeof(float) * MB * MIN);
    int32_t yd[MB];
    int i;
    p[0] = rlx_state(g, "w1", RLX_F32, 2, s0);
    p[1] = rlx_state(g, "b1", RLX_F32, 1, s1);
    p[2] = rlx_state(g, "w2", RLX_F32, 2, s2);
    p[3] = rlx_state(g, "b2", RLX_F32, 1, s3);
    finish(g, 4, p, rlx_cross_entropy(g, rlx_add(g, rlx_matmul(g, rlx_relu(g, rlx_add(g, rlx_matmul(g, x, p[0]), p[1])),
                                                               p[2]), p[3]), y));
    prog = compile(g, threads);
    rlx_graph_destroy(g);
    fill_state(prog, "w1", MIN * MHID, 0.05, 0);
    fill_state(prog, "w2", MHID * MCLS, 0.05, 0);
    for (i = 0; i < MB * MIN; i++) xd[i] = (float)rnd();
    for (i = 0; i < MB; i++) yd[i] = (int32_t)(rnd() * MCLS);
    rlx_set_input_f32(prog, "x", xd, MB * MIN);
    rlx_set_input_i32(prog, "y", yd, MB);
    free(xd);
    return prog;
}

static rlx_program* build_transformer(int threads) {
    static const char* bn[12] = {"g1", "b1", "wq", "wk", "wv", "wo", "g2", "b2", "w1", "c1", "w2", "c2"};
    static const int64_t bs[12][2] = {{TD, 0}, {TD, 0}, {TD, TD}, {TD, TD}, {TD, TD}, {TD, TD}, {TD, 0}, {TD, 0},
                                      {TD, TF}, {TF, 0}, {TF, TD}, {TD, 0}};
    rlx_graph* g = rlx_graph_create(NULL);
    char names[TNP][32];
    int64_t shapes[TNP][2], ts[2] = {TB, TT}, flat[2] = {TB * TT, TV}, fl1[1] = {TB * TT};
    int ranks[TNP], n = 0, l, k;
    rlx_tensor p[TNP], tok, tgt, x, h, a;
    rlx_attention_desc ad;
    rlx_program* prog;
    int32_t td[TB * TT], gd[TB * TT];
#define W(nm, a0, a1) do { snprintf(names[n], 32, "%s", nm); shapes[n][0] = (a0); shapes[n][1] = (a1); \
                           ranks[n] = (a1) ? 2 : 1; n++; } while (0)
    W("tok", TV, TD);
    W("pos", TT, TD);
    for (l = 0; l < TL; l++)
        for (k = 0; k < 12; k++) {
            char nm[32];
            snprintf(nm, sizeof nm, "l%d.%s", l, bn[k]);
            W(nm, bs[k][0], bs[k][1]);
        }
    W("lnf.g", TD, 0);
    W("lnf.b", TD, 0);
    W("head", TD, TV);
#undef W
    tok = rlx_input(g, "tokens", RLX_I32, 2, ts);
    tgt = rlx_input(g, "targets", RLX_I32, 2, ts);
    for (k = 0; k < n; k++) p[k] = rlx_state(g, names[k], RLX_F32, ranks[k], shapes[k]);
    memset(&ad, 0, sizeof ad);
    ad.layout = RLX_LAYOUT_BSHD;
    ad.num_heads = TH;
    ad.causal = 1;
    x = rlx_add(g, rlx_gather(g, p[0], tok, 0), p[1]);
    for (l = 0; l < TL; l++) {
        rlx_tensor* w = p + 2 + 12 * l;
        h = rlx_layernorm(g, x, w[0], w[1], -1, 1e-5f);
        a = rlx_attention(g, rlx_matmul(g, h, w[2]), rlx_matmul(g, h, w[3]), rlx_matmul(g, h, w[4]), &ad);
        x = rlx_add(g, x, rlx_matmul(g, a, w[5]));
        h = rlx_layernorm(g, x, w[6], w[7], -1, 1e-5f);
        h = rlx_gelu(g, rlx_add(g, rlx_matmul(g, h, w[8]), w[9]));
        x = rlx_add(g, x, rlx_add(g, rlx_matmul(g, h, w[10]), w[11]));
    }
    h = rlx_matmul(g, rlx_layernorm(g, x, p[n - 3], p[n - 2], -1, 1e-5f), p[n - 1]);
    finish(g, n, p, rlx_cross_entropy(g, rlx_reshape(g, h, 2, flat), rlx_reshape(g, tgt, 1, fl1)));
    prog = compile(g, threads);
    rlx_graph_destroy(g);
    for (k = 0; k < n; k++) {
        const char* nm = names[k];
        size_t len = strlen(nm);
        int64_t cnt = ranks[k] == 2 ? shapes[k][0] * shapes[k][1] : shapes[k][0];
        int gain = nm[len - 1] == 'g' && nm[len - 2] == '.' ? 1 : 0;
        if (ranks[k] == 2) fill_state(prog, nm, cnt, 0.035, 0);
        else fill_state(prog, nm, cnt, 0, gain ? 1.0 : 0.0);
    }
    for (k = 0; k < TB * TT; k++) { td[k] = (int32_t)(rnd() * TV); gd[k] = (int32_t)(rnd() * TV); }
    rlx_set_input_i32(prog, "tokens", td, TB * TT);
    rlx_set_input_i32(prog, "targets", gd, TB * TT);
    return prog;
}

static int cmp_d(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

/* median of 3 measurements of steps/s after 3 warm-up steps */
static double time_rlx(rlx_program* p) {
    double reps[3];
    int r, i;
    float l = 0;
    for (i = 0; i < 3; i++)
        if (rlx_run(p) != RLX_OK) { fprintf(stderr, "run: %s\n", rlx_program_error(p)); exit(1); }
    for (r = 0; r < 3; r++) {
        double t0 = now_s(), t;
        int n = 0;
        do {
            rlx_run(p);
            rlx_get_output_f32(p, "loss", &l, 1);
            n++;
            t = now_s() - t0;
        } while (t < budget_s || n < 3);
        reps[r] = n / t;
    }
    if (!(l == l)) fprintf(stderr, "warning: the loss is NaN\n");
    qsort(reps, 3, sizeof reps[0], cmp_d);
    return reps[1];
}

/* the PyTorch peer's median steps/s, or 0 (with *why) where it cannot run; on a GPU also its peak bytes. On the
   CPU the peer runs once per OpenBLAS thread count 1 .. threads (OPENBLAS_NUM_THREADS; Debian's PyTorch calls the
   system BLAS, whose own threads compete with PyTorch's) and its best rate counts. */
static double time_torch(const char* model, int threads, char* why, size_t cap, double* peak) {
    const char* py = getenv("RLX_BENCH_PYTHON");
    char cmd[512], line[256];
    double best = 0;
    int ob;
    snprintf(why, cap, bench_dev == RLX_DEVICE_CPU ? "python3-torch not found" : "PyTorch with CUDA not found");
    *peak = 0;
    for (ob = 1; ob <= (bench_dev == RLX_DEVICE_CPU ? threads : 1); ob++) {
        FILE* f;
        double v = 0;
        snprintf(cmd, sizeof cmd, "OPENBLAS_NUM_THREADS=%d %s bench/train_torch.py %s %d %g %s 2>/dev/null", ob,
                 py && *py ? py : "/usr/bin/python3", model, threads, budget_s,
                 bench_dev == RLX_DEVICE_CPU ? "cpu" : "cuda");
        f = popen(cmd, "r");
        if (!f) return 0;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "steps/s %lf", &v) == 1) continue;
            if (sscanf(line, "peak_bytes %lf", peak) == 1) continue;
        }
        pclose(f);
        if (v > best) best = v;
    }
    return best;
}

int main(int argc, char** argv) {
    static const char* models[2] = {"mlp", "transformer"};
    const char* prof = getenv("RLX_BENCH_PROFILE");
    const char* dv = getenv("RLX_BENCH_DEVICE");
    int m, t;
    if (argc > 1) budget_s = atof(argv[1]);
    if (!(budget_s > 0)) budget_s = 1.0;
    if (dv && *dv) {
        bench_dev = !strcmp(dv, "cuda") ? RLX_DEVICE_CUDA : !strcmp(dv, "vulkan") ? RLX_DEVICE_VULKAN
                  : !strcmp(dv, "hip") ? RLX_DEVICE_HIP : RLX_DEVICE_CPU;
        bench_dev_name = rlx_device_name(bench_dev);
    }
    printf("training steps/s on %s, AdamW + clipping, median of 3 x %.1f s (ratio > 1: rlx is faster)\n",
           bench_dev == RLX_DEVICE_CPU ? "the CPU" : bench_dev_name, budget_s);
    printf("%-12s %7s %12s %12s %8s\n", "model", "threads", "rlx", "torch", "rlx/torch");
    for (m = 0; m < 2; m++)
        for (t = 1; t <= (bench_dev == RLX_DEVICE_CPU ? 2 : 1); t++) {
            rlx_program* p = m == 0 ? build_mlp(t) : build_transformer(t);
            double a = time_rlx(p), b, peak = 0;
            char why[128], tb[32];
            b = time_torch(models[m], t, why, sizeof why, &peak);
            if (b > 0) snprintf(tb, sizeof tb, "%12.2f", b); else snprintf(tb, sizeof tb, "%12s", "skipped");
            if (b > 0) printf("%-12s %7d %12.2f %s %8.2f\n", models[m], t, a, tb, a / b);
            else printf("%-12s %7d %12.2f %s %8s  (%s)\n", models[m], t, a, tb, "-", why);
            if (bench_dev != RLX_DEVICE_CPU) {
                rlx_plan_info pi;
                if (rlx_program_plan(p, &pi) == RLX_OK)
                    printf("  memory: rlx arena %.2f MB + workspace %.2f + params %.2f + states %.2f = %.2f MB; "
                           "torch peak allocated %.2f MB\n", pi.arena_bytes / 1e6, pi.workspace_bytes / 1e6,
                           pi.weight_bytes / 1e6, pi.state_bytes / 1e6,
                           (double)(pi.arena_bytes + pi.workspace_bytes + pi.weight_bytes + pi.state_bytes) / 1e6,
                           peak / 1e6);
            }
            fflush(stdout);
            if (prof && *prof && prof[0] != '0' && t == 2) {
                char* buf = (char*)malloc(1 << 16);
                int i;
                rlx_program_profile_enable(p, 1);
                for (i = 0; i < 10; i++) rlx_run(p);
                rlx_program_profile_table(p, buf, 1 << 16, 15);
                printf("rlx %s step, 2 threads, top steps over 10 runs:\n%s\n", models[m], buf);
                free(buf);
            }
            rlx_program_destroy(p);
        }
    return 0;
}
