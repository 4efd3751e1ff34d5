/* Threading contract: a program compiled on one thread runs on another, and two programs (a clone and its
   original) run at the same time on two threads, with the results of a single-threaded run. The device is
   AUTO, so on a machine with a GPU this exercises the GPU backend's per-call device selection. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../rlx.h"
#include "harness.h"
#include <pthread.h>
#include <stdlib.h>

#define R 33
#define C 71

typedef struct job { rlx_program* p; float out[R * C]; rlx_result r; } job;

static void* worker(void* arg) {
    job* j = (job*)arg;
    int k;
    for (k = 0; k < 20 && j->r == RLX_OK; k++) j->r = rlx_run(j->p);
    if (j->r == RLX_OK) j->r = rlx_get_output_f32(j->p, "y", j->out, R * C);
    return NULL;
}

int main(void) {
    static float x[R * C], w[C * C], ref[R * C];
    int64_t xs[2] = {R, C}, ws[2] = {C, C};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program *p = NULL, *q = NULL;
    rlx_compile_desc d;
    job a, b;
    pthread_t ta, tb;
    int i, bad = -1, started, started_b;
    th_seed(5);
    for (i = 0; i < R * C; i++) x[i] = (float)th_uniform(-1, 1);
    for (i = 0; i < C * C; i++) w[i] = (float)th_uniform(-0.2, 0.2);
    rlx_output(g, "y", rlx_softmax(g, rlx_gelu(g, rlx_matmul(g, rlx_input(g, "x", RLX_F32, 2, xs),
                                                                rlx_param(g, "w", RLX_F32, 2, ws))), -1));
    memset(&d, 0, sizeof d);
    TH_CHECK(rlx_compile(g, &d, &p) == RLX_OK, "compile: %s", rlx_graph_error(g));
    if (!p) return th_summary("threads");
    printf("threads: device %s\n", rlx_device_name(rlx_program_device(p)));
    TH_CHECK(rlx_set_param_f32(p, "w", w, C * C) == RLX_OK && rlx_set_input_f32(p, "x", x, R * C) == RLX_OK,
             "set: %s", rlx_program_error(p));
    TH_CHECK(rlx_run(p) == RLX_OK && rlx_get_output_f32(p, "y", ref, R * C) == RLX_OK, "run: %s", rlx_program_error(p));
    /* the same program on another thread */
    memset(&a, 0, sizeof a);
    a.p = p;
    started = pthread_create(&ta, NULL, worker, &a) == 0;
    TH_CHECK(started, "pthread_create");
    if (started) pthread_join(ta, NULL);
    TH_CHECK(started && a.r == RLX_OK, "run on a second thread: %s", rlx_program_error(p));
    for (i = 0; i < R * C && a.r == RLX_OK; i++)
        if (a.out[i] != ref[i]) { bad = i; break; }
    TH_CHECK(bad < 0, "second thread differs at %d", bad);
    /* a clone and the original at the same time */
    TH_CHECK(rlx_program_clone(p, 1, &q) == RLX_OK, "clone: %s", rlx_program_error(p));
    if (q) {
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        a.p = p;
        b.p = q;
        started = pthread_create(&ta, NULL, worker, &a) == 0;
        started_b = started && pthread_create(&tb, NULL, worker, &b) == 0;
        TH_CHECK(started && started_b, "threads");
        if (started) pthread_join(ta, NULL);
        if (started_b) pthread_join(tb, NULL);
        TH_CHECK(started_b && a.r == RLX_OK && b.r == RLX_OK, "concurrent runs: %s / %s", rlx_program_error(p), rlx_program_error(q));
        bad = -1;
        for (i = 0; i < R * C; i++)
            if (a.out[i] != ref[i] || b.out[i] != ref[i]) { bad = i; break; }
        TH_CHECK(bad < 0, "concurrent runs differ from the reference run at %d", bad);
        rlx_program_destroy(q);
    }
    /* a reference independent of rlx for one row, so the runs cannot all agree on a wrong answer */
    {
        double row[C], mx = -1e300, s = 0;
        int c, k;
        for (c = 0; c < C; c++) {
            double acc = 0;
            for (k = 0; k < C; k++) acc += (double)x[k] * w[k * C + c];
            row[c] = 0.5 * acc * (1 + erf(acc / sqrt(2.0)));
            if (row[c] > mx) mx = row[c];
        }
        for (c = 0; c < C; c++) s += exp(row[c] - mx);
        bad = -1;
        for (c = 0; c < C; c++)
            if (!th_close(ref[c], exp(row[c] - mx) / s, 1e-5, 1e-4)) { bad = c; break; }
        TH_CHECK(bad < 0, "row 0 differs from the double reference at %d", bad);
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    return th_summary("threads");
}
