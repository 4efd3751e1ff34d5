/* Training checkpoints (>>trainckpt): rlx_train_save / rlx_train_load.
   A small CNN (conv -> relu -> max pool -> linear -> cross-entropy, AdamW with clipping) trains 40 steps in one
   program (the uninterrupted run, the oracle). A second program trains the first 20 steps, saves its states, and
   a third one (compiled fresh, its states never set otherwise) loads them and trains the last 20: its losses and
   final weights must equal the uninterrupted run's bit for bit on the CPU (within 1e-6 relative on a GPU, whose
   reductions may be ordered differently between programs). Also: the file holds the params, the AdamW moments and
   the step counter; bad files and mismatched states are errors naming the tensor, and nothing is set then.
   RLX_TEST_DEVICE=cpu|vulkan|cuda|hip runs on that device (no fallback); default CPU. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"
#include <stdio.h>
#include <stdlib.h>

#define B 8
#define STEPS 40
#define HALF 20
#define NP 4
#define CKPT "build/test_trainckpt.safetensors"

static rlx_device dev = RLX_DEVICE_CPU;
static const char* dev_name = "cpu";
static const char* pn[NP] = {"cw", "cb", "fw", "fb"};
static const int64_t pshape[NP][4] = {{4, 1, 3, 3}, {4}, {4 * 4 * 4, 3}, {3}};
static const int prank[NP] = {4, 1, 2, 1};
static float xdata[STEPS][B * 64];
static int64_t ydata[STEPS][B];

static int64_t numel(int k) { int64_t n = 1; int i; for (i = 0; i < prank[k]; i++) n *= pshape[k][i]; return n; }

/* returns the compiled program, or NULL (skipped or failed, already counted) */
static rlx_program* build(int wd) {
    int64_t xs[4] = {B, 1, 8, 8}, ys[1] = {B}, fs[2] = {B, 64};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor p[NP], gr[NP], x, y, h, loss;
    rlx_conv_desc cv;
    rlx_pool_desc pd;
    rlx_optimizer_desc od;
    rlx_compile_desc cd;
    rlx_program* prog = NULL;
    rlx_result r;
    int k;
    x = rlx_input(g, "x", RLX_F32, 4, xs);
    y = rlx_input(g, "y", RLX_I64, 1, ys);
    for (k = 0; k < NP; k++) p[k] = rlx_state(g, pn[k], RLX_F32, prank[k], pshape[k]);
    memset(&cv, 0, sizeof cv);
    cv.pad_begin[0] = cv.pad_begin[1] = cv.pad_end[0] = cv.pad_end[1] = 1;
    memset(&pd, 0, sizeof pd);
    pd.kind = RLX_POOL_MAX; pd.kernel[0] = pd.kernel[1] = 2;
    h = rlx_pool(g, rlx_relu(g, rlx_conv(g, x, p[0], p[1], &cv)), &pd);
    loss = rlx_cross_entropy(g, rlx_add(g, rlx_matmul(g, rlx_reshape(g, h, 2, fs), p[2]), p[3]), y);
    rlx_grad(g, loss, NP, p, gr);
    memset(&od, 0, sizeof od);
    od.lr = 1e-2f; od.weight_decay = wd ? 0.01f : 0.0f; od.clip_norm = 1.0f;
    rlx_optimizer_step(g, &od, NP, p, gr);
    rlx_output(g, "loss", loss);
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    cd.flags = RLX_COMPILE_NO_FALLBACK;
    r = rlx_compile(g, &cd, &prog);
    if (r == RLX_ERROR_DEVICE_UNAVAILABLE || r == RLX_ERROR_UNSUPPORTED) th_skip("checkpoint test on %s: %s", dev_name, rlx_graph_error(g));
    else TH_CHECK(r == RLX_OK, "compile: %s", rlx_graph_error(g));
    rlx_graph_destroy(g);
    return r == RLX_OK ? prog : NULL;
}

static void init_weights(rlx_program* p) {
    int k;
    int64_t i;
    for (k = 0; k < NP; k++) {
        int64_t n = numel(k);
        float* w = (float*)malloc(sizeof(float) * (size_t)n);
        for (i = 0; i < n; i++) w[i] = (float)th_uniform(-0.5, 0.5);
        rlx_set_state(p, pn[k], RLX_F32, w, sizeof(float) * (size_t)n);
        free(w);
    }
}

static int steps(rlx_program* p, int from, int to, float* losses) {
    int s;
    for (s = from; s < to; s++) {
        rlx_set_input(p, "x", RLX_F32, xdata[s], sizeof xdata[s]);
        rlx_set_input(p, "y", RLX_I64, ydata[s], sizeof ydata[s]);
        if (rlx_run(p) != RLX_OK) { TH_CHECK(0, "step %d: %s", s, rlx_program_error(p)); return 0; }
        rlx_get_output_f32(p, "loss", &losses[s], 1);
    }
    return 1;
}

int main(void) {
    const char* dv = getenv("RLX_TEST_DEVICE");
    rlx_program *full, *first, *second, *other;
    float ref[STEPS], got[STEPS], w1[64 * 3], w2[64 * 3], stp = 0;
    int s, i, bad = 0, exact;
    double worst = 0;
    rlx_safetensors* st = NULL;
    rlx_result r;
    if (dv && *dv) {
        dev_name = dv;
        dev = strcmp(dv, "vulkan") == 0 ? RLX_DEVICE_VULKAN : strcmp(dv, "cuda") == 0 ? RLX_DEVICE_CUDA
            : strcmp(dv, "hip") == 0 ? RLX_DEVICE_HIP : RLX_DEVICE_CPU;
    }
    exact = dev == RLX_DEVICE_CPU;
    for (s = 0; s < STEPS; s++)   /* the class is the quadrant holding a bright 3x3 patch */
        for (i = 0; i < B; i++) {
            int c = (int)(th_rng() % 3), j, r0 = c == 1 ? 4 : 1, c0 = c == 2 ? 4 : 1;
            ydata[s][i] = c;
            for (j = 0; j < 64; j++) xdata[s][i * 64 + j] = (float)th_uniform(-0.5, 0.5);
            for (j = 0; j < 9; j++) xdata[s][i * 64 + (r0 + j / 3) * 8 + c0 + j % 3] += 1.0f;
        }
    full = build(1);
    if (!full) return th_summary("trainckpt");
    first = build(1); second = build(1);
    if (!first || !second) return th_summary("trainckpt");
    th_seed(42); init_weights(full);
    th_seed(42); init_weights(first);
    if (!steps(full, 0, STEPS, ref) || !steps(first, 0, HALF, got)) return th_summary("trainckpt");
    TH_CHECK(ref[STEPS - 1] < 0.7f * ref[0], "the run learns (%g -> %g)", (double)ref[0], (double)ref[STEPS - 1]);
    r = rlx_train_save(first, CKPT);
    TH_CHECK(r == RLX_OK, "rlx_train_save: %s", rlx_program_error(first));
    /* the file: params, AdamW moments and the step counter */
    if (rlx_safetensors_open_file(CKPT, NULL, &st) == RLX_OK) {
        static const char* want[] = {"cw", "fb", "opt.cw.m", "opt.cw.v", "opt.fw.m", "opt.fb.v", "opt.step"};
        rlx_safetensors_tensor_info ti;
        for (i = 0; i < (int)(sizeof want / sizeof want[0]); i++)
            TH_CHECK(rlx_safetensors_find_tensor(st, want[i]) >= 0, "the checkpoint holds '%s'", want[i]);
        i = rlx_safetensors_find_tensor(st, "opt.step");
        TH_CHECK(i >= 0 && rlx_safetensors_tensor(st, i, &ti) == RLX_OK && ti.dtype == RLX_F32 &&
                 *(const float*)ti.data == (float)HALF, "opt.step in the checkpoint is %d", HALF);
        rlx_safetensors_close(st);
    } else {
        TH_CHECK(0, "reopen %s: %s", CKPT, rlx_file_error());
    }
    /* a fresh program: load, then the second half */
    r = rlx_train_load(second, CKPT);
    TH_CHECK(r == RLX_OK, "rlx_train_load: %s", rlx_program_error(second));
    if (r == RLX_OK && steps(second, HALF, STEPS, got)) {
        for (s = HALF; s < STEPS; s++) {
            double rel = fabs((double)got[s] - ref[s]) / fabs((double)ref[s]);
            if (rel > worst) worst = rel;
            if (exact ? got[s] != ref[s] : !(rel <= 1e-6)) {
                if (bad < 3) printf("  step %d: resumed loss %.9g, uninterrupted %.9g\n", s, (double)got[s], (double)ref[s]);
                bad++;
            }
        }
        printf("resumed at step %d on %s: losses %.6g .. %.6g, worst relative difference from the uninterrupted run %.2g\n",
               HALF, dev_name, (double)got[HALF], (double)got[STEPS - 1], worst);
        TH_CHECK(bad == 0, "on %s: %d of %d resumed losses differ from the uninterrupted run (%s)", dev_name, bad,
                 STEPS - HALF, exact ? "bit-identical expected" : "1e-6 relative");
        rlx_get_state(full, "fw", RLX_F32, w1, sizeof w1);
        rlx_get_state(second, "fw", RLX_F32, w2, sizeof w2);
        for (i = 0, bad = 0; i < 64 * 3; i++) bad += exact ? w1[i] != w2[i] : !th_close(w2[i], w1[i], 1e-6, 1e-5);
        TH_CHECK(bad == 0, "final weights of the resumed run differ from the uninterrupted run's in %d elements", bad);
        TH_CHECK(rlx_get_state(second, "opt.step", RLX_F32, &stp, 4) == RLX_OK && stp == (float)STEPS,
                 "the step counter after resuming is %g", (double)stp);
    }
    /* errors: a missing file, a program whose states differ (nothing set), NULL arguments */
    r = rlx_train_load(second, "build/no_such_checkpoint.safetensors");
    TH_CHECK(r != RLX_OK && strstr(rlx_program_error(second), "rlx_train_load"), "missing file: %s", rlx_program_error(second));
    other = build(0);
    if (other) {   /* same state names and shapes: loads; then a file lacking a state */
        rlx_safetensors_writer* w = NULL;
        float one[3] = {1, 2, 3};
        int64_t s3 = 3;
        TH_CHECK(rlx_train_load(other, CKPT) == RLX_OK, "load into another program of the same states: %s",
                 rlx_program_error(other));
        rlx_safetensors_writer_create(NULL, &w);
        rlx_safetensors_writer_tensor(w, "fb", RLX_F32, 1, &s3, one);
        rlx_safetensors_writer_write_file(w, "build/test_trainckpt_partial.safetensors");
        rlx_safetensors_writer_destroy(w);
        rlx_get_state(other, "fb", RLX_F32, w1, sizeof(float) * 3);
        r = rlx_train_load(other, "build/test_trainckpt_partial.safetensors");
        TH_CHECK(r == RLX_ERROR_NOT_FOUND && strstr(rlx_program_error(other), "'cw'"), "partial file: %s / %s",
                 rlx_result_string(r), rlx_program_error(other));
        rlx_get_state(other, "fb", RLX_F32, w2, sizeof(float) * 3);
        TH_CHECK(memcmp(w1, w2, sizeof(float) * 3) == 0, "a failed load sets nothing");
        rlx_safetensors_writer_create(NULL, &w);   /* a state of the wrong shape */
        rlx_safetensors_writer_tensor(w, "cw", RLX_F32, 1, &s3, one);
        rlx_safetensors_writer_write_file(w, "build/test_trainckpt_partial.safetensors");
        rlx_safetensors_writer_destroy(w);
        r = rlx_train_load(other, "build/test_trainckpt_partial.safetensors");
        TH_CHECK(r == RLX_ERROR_SHAPE && strstr(rlx_program_error(other), "'cw'"), "wrong shape: %s / %s",
                 rlx_result_string(r), rlx_program_error(other));
        rlx_program_destroy(other);
    }
    TH_CHECK(rlx_train_save(NULL, CKPT) == RLX_ERROR_INVALID_ARGUMENT, "save NULL program");
    TH_CHECK(rlx_train_save(full, NULL) == RLX_ERROR_INVALID_ARGUMENT, "save NULL path");
    TH_CHECK(rlx_train_load(full, NULL) == RLX_ERROR_INVALID_ARGUMENT, "load NULL path");
    rlx_program_destroy(full);
    rlx_program_destroy(first);
    rlx_program_destroy(second);
    remove(CKPT);
    remove("build/test_trainckpt_partial.safetensors");
    return th_summary("trainckpt");
}
