/* mlp.c - a 3-layer MLP classifier with rlx.h.

   64 -> 128 (ReLU) -> 64 (GELU) -> 10 (softmax), batch of 8. Weights come from a seeded PRNG (Xavier-uniform
   scaling), so every run prints the same numbers. The program builds the graph, compiles it for the best
   available device, runs it once, checks it against a plain-C forward pass, prints the predictions and then
   times 1000 runs.

   Build: cc -O2 -I. examples/mlp.c -o build/mlp -lm -lpthread -ldl
*/
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c99 */
#endif

#define RLX_IMPLEMENTATION
#include "../rlx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(_WIN32)
#  include <windows.h> /* QueryPerformanceCounter */
#endif

enum { BATCH = 8, D_IN = 64, D_H1 = 128, D_H2 = 64, D_OUT = 10, TIMED_RUNS = 1000 };

/* ---- error handling: print the object's message and exit ------------------------------------------------ */

static void graph_check(rlx_graph* g, rlx_result r, const char* what) {
    if (r == RLX_OK) return;
    fprintf(stderr, "error: %s failed: %s (%s)\n", what, rlx_result_string(r), g ? rlx_graph_error(g) : "");
    exit(1);
}

static void program_check(rlx_program* p, rlx_result r, const char* what) {
    if (r == RLX_OK) return;
    fprintf(stderr, "error: %s failed: %s (%s)\n", what, rlx_result_string(r), rlx_program_error(p));
    exit(1);
}

/* ---- deterministic data ------------------------------------------------------------------------------------ */

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static uint32_t rng_next(void) { /* xorshift64*, upper 32 bits */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

static float rng_uniform(float lo, float hi) { /* [lo, hi) */
    return lo + (hi - lo) * (float)((double)rng_next() / 4294967296.0);
}

/* Xavier/Glorot uniform: U(-a, a) with a = sqrt(6 / (fan_in + fan_out)). Biases get small values. */
static void init_layer(float* w, float* b, int fan_in, int fan_out) {
    float a = (float)sqrt(6.0 / (double)(fan_in + fan_out));
    int i;
    for (i = 0; i < fan_in * fan_out; i++) w[i] = rng_uniform(-a, a);
    for (i = 0; i < fan_out; i++) b[i] = rng_uniform(-0.1f, 0.1f);
}

/* ---- plain-C reference forward pass -------------------------------------------------------------------------- */

static void ref_dense(const float* x, const float* w, const float* b, float* y, int n, int k, int m, int act) {
    int i, j, t;
    for (i = 0; i < n; i++) {
        for (j = 0; j < m; j++) {
            double s = b[j];
            for (t = 0; t < k; t++) s += (double)x[i * k + t] * (double)w[t * m + j];
            if (act == 1) s = s > 0.0 ? s : 0.0;                        /* relu */
            if (act == 2) s = 0.5 * s * (1.0 + erf(s / sqrt(2.0)));    /* exact gelu */
            y[i * m + j] = (float)s;
        }
    }
}

static void ref_softmax(float* x, int n, int m) {
    int i, j;
    for (i = 0; i < n; i++) {
        float* r = x + i * m;
        double mx = r[0], s = 0.0;
        for (j = 1; j < m; j++) if (r[j] > mx) mx = r[j];
        for (j = 0; j < m; j++) s += exp((double)r[j] - mx);
        for (j = 0; j < m; j++) r[j] = (float)(exp((double)r[j] - mx) / s);
    }
}

#if defined(_WIN32)
static double now_seconds(void) {
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart / (double)f.QuadPart;
}
#else
static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
#endif

int main(void) {
    static float w1[D_IN * D_H1], b1[D_H1], w2[D_H1 * D_H2], b2[D_H2], w3[D_H2 * D_OUT], b3[D_OUT];
    static float x[BATCH * D_IN], probs[BATCH * D_OUT];
    static float r1[BATCH * D_H1], r2[BATCH * D_H2], rp[BATCH * D_OUT];
    int64_t cls[BATCH];
    rlx_device_info devs[RLX_DEVICE_COUNT];
    rlx_plan_info plan;
    rlx_graph* g;
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    double max_err = 0.0, t0, t1;
    int i, j, ndev, mismatches = 0, ok;

    printf("rlx.h %s\n\n", rlx_version());

    /* Devices rlx.h knows about, and whether each can be used. */
    ndev = rlx_devices(devs, RLX_DEVICE_COUNT);
    if (ndev < 0) ndev = 0;
    if (ndev > RLX_DEVICE_COUNT) ndev = RLX_DEVICE_COUNT;
    printf("devices:\n");
    for (i = 0; i < ndev; i++)
        printf("  %-7s %-3s %s%s%s\n", rlx_device_name(devs[i].device), devs[i].available ? "yes" : "no",
               devs[i].name, devs[i].reason[0] ? " - " : "", devs[i].reason);

    /* Deterministic weights and inputs. */
    init_layer(w1, b1, D_IN, D_H1);
    init_layer(w2, b2, D_H1, D_H2);
    init_layer(w3, b3, D_H2, D_OUT);
    for (i = 0; i < BATCH * D_IN; i++) x[i] = rng_uniform(-1.0f, 1.0f);

    /* Build the graph. Builder errors are sticky: one status check at the end covers every call. */
    g = rlx_graph_create(NULL);
    if (!g) { fprintf(stderr, "error: rlx_graph_create: out of memory\n"); return 1; }
    {
        const int64_t xs[2] = {BATCH, D_IN};
        const int64_t w1s[2] = {D_IN, D_H1}, b1s[1] = {D_H1};
        const int64_t w2s[2] = {D_H1, D_H2}, b2s[1] = {D_H2};
        const int64_t w3s[2] = {D_H2, D_OUT}, b3s[1] = {D_OUT};
        rlx_tensor tx = rlx_input(g, "x", RLX_F32, 2, xs);
        rlx_tensor tw1 = rlx_param(g, "w1", RLX_F32, 2, w1s), tb1 = rlx_param(g, "b1", RLX_F32, 1, b1s);
        rlx_tensor tw2 = rlx_param(g, "w2", RLX_F32, 2, w2s), tb2 = rlx_param(g, "b2", RLX_F32, 1, b2s);
        rlx_tensor tw3 = rlx_param(g, "w3", RLX_F32, 2, w3s), tb3 = rlx_param(g, "b3", RLX_F32, 1, b3s);
        rlx_tensor h1 = rlx_relu(g, rlx_add(g, rlx_matmul(g, tx, tw1), tb1));     /* [8,128] */
        rlx_tensor h2 = rlx_gelu(g, rlx_add(g, rlx_matmul(g, h1, tw2), tb2));     /* [8,64]  */
        rlx_tensor logits = rlx_add(g, rlx_matmul(g, h2, tw3), tb3);              /* [8,10]  */
        graph_check(g, rlx_output(g, "probs", rlx_softmax(g, logits, 1)), "rlx_output(probs)");
        graph_check(g, rlx_output(g, "class", rlx_argmax(g, logits, 1, 0)), "rlx_output(class)");
        graph_check(g, rlx_graph_status(g), "building the graph");
    }

    /* Compile with the zero-initialised desc: AUTO device, one thread per core, all optimisations. */
    memset(&cd, 0, sizeof cd);
    graph_check(g, rlx_compile(g, &cd, &p), "rlx_compile");
    rlx_graph_destroy(g); /* the program does not refer to the graph */

    printf("\ndevice: %s\n  reason: %s\n", rlx_device_name(rlx_program_device(p)), rlx_program_device_reason(p));
    program_check(p, rlx_program_plan(p, &plan), "rlx_program_plan");
    printf("plan: %d steps, %d threads\n", plan.num_steps, plan.num_threads);
    printf("  arena %zu bytes (without reuse %zu bytes, lower bound %zu bytes)\n", plan.arena_bytes,
           plan.no_reuse_bytes, plan.lower_bound_bytes);
    printf("  weights %zu bytes, workspace %zu bytes\n", plan.weight_bytes, plan.workspace_bytes);

    program_check(p, rlx_set_param_f32(p, "w1", w1, D_IN * D_H1), "rlx_set_param_f32(w1)");
    program_check(p, rlx_set_param_f32(p, "b1", b1, D_H1), "rlx_set_param_f32(b1)");
    program_check(p, rlx_set_param_f32(p, "w2", w2, D_H1 * D_H2), "rlx_set_param_f32(w2)");
    program_check(p, rlx_set_param_f32(p, "b2", b2, D_H2), "rlx_set_param_f32(b2)");
    program_check(p, rlx_set_param_f32(p, "w3", w3, D_H2 * D_OUT), "rlx_set_param_f32(w3)");
    program_check(p, rlx_set_param_f32(p, "b3", b3, D_OUT), "rlx_set_param_f32(b3)");
    program_check(p, rlx_set_input_f32(p, "x", x, BATCH * D_IN), "rlx_set_input_f32(x)");

    program_check(p, rlx_run(p), "rlx_run");
    program_check(p, rlx_get_output_f32(p, "probs", probs, BATCH * D_OUT), "rlx_get_output_f32(probs)");
    program_check(p, rlx_get_output_i64(p, "class", cls, BATCH), "rlx_get_output_i64(class)");

    /* The same network in plain C, to show the result is right. */
    ref_dense(x, w1, b1, r1, BATCH, D_IN, D_H1, 1);
    ref_dense(r1, w2, b2, r2, BATCH, D_H1, D_H2, 2);
    ref_dense(r2, w3, b3, rp, BATCH, D_H2, D_OUT, 0);
    ref_softmax(rp, BATCH, D_OUT);

    printf("\npredictions (class from the argmax output, p from the softmax output):\n");
    for (i = 0; i < BATCH; i++) {
        int ref_best = 0;
        for (j = 0; j < D_OUT; j++) {
            double e = fabs((double)probs[i * D_OUT + j] - (double)rp[i * D_OUT + j]);
            if (!(e <= max_err)) max_err = e; /* also catches NaN */
            if (rp[i * D_OUT + j] > rp[i * D_OUT + ref_best]) ref_best = j;
        }
        if (cls[i] < 0 || cls[i] >= D_OUT) {
            fprintf(stderr, "error: class index %lld out of range\n", (long long)cls[i]);
            return 1;
        }
        if (cls[i] != ref_best) mismatches++;
        printf("  row %d: class %d  p = %.4f%s\n", i, (int)cls[i], probs[i * D_OUT + cls[i]],
               cls[i] == ref_best ? "" : "  (reference says otherwise)");
    }
    ok = max_err <= 1e-5 && mismatches == 0;
    printf("max |probs - reference| = %.3g, %d class mismatches: %s\n", max_err, mismatches, ok ? "ok" : "WRONG");

    /* Timing: one warm-up run, then TIMED_RUNS runs. */
    program_check(p, rlx_run(p), "rlx_run");
    t0 = now_seconds();
    for (i = 0; i < TIMED_RUNS; i++) program_check(p, rlx_run(p), "rlx_run");
    t1 = now_seconds();
    printf("\n%d runs: %.2f us per run (%.0f runs/s)\n", TIMED_RUNS, (t1 - t0) * 1e6 / TIMED_RUNS,
           TIMED_RUNS / (t1 - t0));

    rlx_program_destroy(p);
    return ok ? 0 : 1;
}
