/* train_mnist.c - train an MLP classifier on Fashion-MNIST with rlx.h (>>autodiff).

   784 -> 256 (ReLU) -> 10, cross-entropy, AdamW (lr 1e-3, weight decay 1e-4), batches of 128, a few epochs.
   One rlx_run is one whole training step (forward, backward, AdamW update of the weights in place); the host
   reads only the loss. The weights live in an rlx_store as states, so the evaluation program (a graph of its
   own, batch 1000) reads the weights being trained without a copy. Prints loss, test accuracy and images/s.

   Data: Debian's dataset-fashion-mnist (apt-get install dataset-fashion-mnist) puts the gzipped IDX files in
   /usr/share/datasets/fashion-mnist; they are read through `gzip -dc` (POSIX popen), or give a directory
   holding the unpacked files (train-images-idx3-ubyte, ...):
       build/examples/train_mnist [DIR] [EPOCHS] [cpu|vulkan|cuda|hip]
   Build: cc -O2 -I. examples/train_mnist.c -o build/train_mnist -lm -lpthread -ldl
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
#if defined(_WIN32)
#  include <windows.h> /* QueryPerformanceCounter */
#else
#  include <time.h>
#endif

#define NPIX 784
#define HID 256
#define NCLS 10
#define BATCH 128
#define EVAL_BATCH 1000

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
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#endif

/* Reads an IDX file (plain, or name.gz through gzip -dc where popen exists): `want` bytes after a header of
   hdr bytes whose first 4 bytes are the magic number. Returns a malloc'ed buffer or NULL. */
static unsigned char* read_idx(const char* dir, const char* name, size_t hdr, uint32_t magic, size_t want) {
    char path[1024];
    unsigned char* buf = (unsigned char*)malloc(hdr + want);
    FILE* f;
    int piped = 0;
    size_t got;
    if (!buf) return NULL;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "rb");
#if !defined(_WIN32)
    if (!f) {
        char cmd[1100];
        snprintf(path, sizeof path, "%s/%s.gz", dir, name);
        if ((f = fopen(path, "rb")) != NULL) {
            fclose(f);
            snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
            f = popen(cmd, "r");
            piped = 1;
        }
    }
#endif
    if (!f) { free(buf); return NULL; }
    got = fread(buf, 1, hdr + want, f);
#if !defined(_WIN32)
    if (piped) pclose(f); else
#endif
    fclose(f);
    (void)piped;
    if (got != hdr + want || ((uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 | (uint32_t)buf[2] << 8 | buf[3]) != magic) {
        free(buf);
        return NULL;
    }
    return buf;
}

typedef struct dataset { float* x; int64_t* y; int n; } dataset;

static int load(const char* dir, const char* img, const char* lab, int n, dataset* d) {
    unsigned char* im = read_idx(dir, img, 16, 0x803, (size_t)n * NPIX);
    unsigned char* lb = read_idx(dir, lab, 8, 0x801, (size_t)n);
    size_t i;
    if (!im || !lb) { free(im); free(lb); return 0; }
    d->n = n;
    d->x = (float*)malloc(sizeof(float) * (size_t)n * NPIX);
    d->y = (int64_t*)malloc(sizeof(int64_t) * (size_t)n);
    if (!d->x || !d->y) { free(im); free(lb); return 0; }
    for (i = 0; i < (size_t)n * NPIX; i++) d->x[i] = (float)im[16 + i] / 255.0f;
    for (i = 0; i < (size_t)n; i++) d->y[i] = lb[8 + i];
    free(im);
    free(lb);
    return 1;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double rnd(void) {   /* uniform in [0, 1) */
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

/* logits = relu(x · w1 + b1) · w2 + b2 */
static rlx_tensor model(rlx_graph* g, rlx_tensor x, rlx_tensor* p) {
    return rlx_add(g, rlx_matmul(g, rlx_relu(g, rlx_add(g, rlx_matmul(g, x, p[0]), p[1])), p[2]), p[3]);
}

static void params(rlx_graph* g, rlx_tensor* p) {
    static const int64_t s0[2] = {NPIX, HID}, s1[1] = {HID}, s2[2] = {HID, NCLS}, s3[1] = {NCLS};
    p[0] = rlx_state(g, "w1", RLX_F32, 2, s0);
    p[1] = rlx_state(g, "b1", RLX_F32, 1, s1);
    p[2] = rlx_state(g, "w2", RLX_F32, 2, s2);
    p[3] = rlx_state(g, "b2", RLX_F32, 1, s3);
}

int main(int argc, char** argv) {
    const char* dir = argc > 1 ? argv[1] : "/usr/share/datasets/fashion-mnist";
    int epochs = argc > 2 ? atoi(argv[2]) : 5, e, s, i, k;
    const char* dv = argc > 3 ? argv[3] : "cpu";
    rlx_device dev = strcmp(dv, "vulkan") == 0 ? RLX_DEVICE_VULKAN : strcmp(dv, "cuda") == 0 ? RLX_DEVICE_CUDA
                   : strcmp(dv, "hip") == 0 ? RLX_DEVICE_HIP : RLX_DEVICE_CPU;
    dataset tr, te;
    rlx_store_desc sd;
    rlx_store* st = NULL;
    rlx_graph *gt = rlx_graph_create(NULL), *ge = rlx_graph_create(NULL);
    rlx_tensor p[4], gr[4], x, y, loss, pe[4], xe;
    int64_t xs[2] = {BATCH, NPIX}, ys[1] = {BATCH}, es[2] = {EVAL_BATCH, NPIX};
    int64_t shp[4][2] = {{NPIX, HID}, {HID, 0}, {HID, NCLS}, {NCLS, 0}};
    static const char* pn[4] = {"w1", "b1", "w2", "b2"};
    rlx_optimizer_desc od;
    rlx_compile_desc cd;
    rlx_program *pt = NULL, *pe_prog = NULL;
    float* xb = (float*)malloc(sizeof(float) * BATCH * NPIX);
    int64_t* yb = (int64_t*)malloc(sizeof(int64_t) * BATCH);
    float* logits = (float*)malloc(sizeof(float) * EVAL_BATCH * NCLS);
    int* order;
    if (!load(dir, "train-images-idx3-ubyte", "train-labels-idx1-ubyte", 60000, &tr) ||
        !load(dir, "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", 10000, &te)) {
        printf("Fashion-MNIST not found in %s (Debian: apt-get install dataset-fashion-mnist, or give a directory "
               "with the unpacked IDX files)\n", dir);
        return 0;
    }
    /* the store holds the weights (as states: programs write them) */
    memset(&sd, 0, sizeof sd);
    sd.device = dev;
    if (rlx_store_create(&sd, &st) != RLX_OK) { printf("no %s device\n", dv); return 1; }
    for (k = 0; k < 4; k++) {
        int rank = shp[k][1] ? 2 : 1;
        int64_t n = rank == 2 ? shp[k][0] * shp[k][1] : shp[k][0], j;
        float* w = (float*)malloc(sizeof(float) * (size_t)n);
        double lim = k == 0 ? sqrt(6.0 / NPIX) : k == 2 ? sqrt(6.0 / HID) : 0.0;   /* He-uniform, zero biases */
        for (j = 0; j < n; j++) w[j] = (float)((2 * rnd() - 1) * lim);
        rlx_store_add_state(st, pn[k], RLX_F32, rank, shp[k]);
        rlx_store_set(st, pn[k], RLX_F32, w, sizeof(float) * (size_t)n);
        free(w);
    }
    /* training graph: forward, rlx_grad, AdamW */
    x = rlx_input(gt, "x", RLX_F32, 2, xs);
    y = rlx_input(gt, "y", RLX_I64, 1, ys);
    params(gt, p);
    loss = rlx_cross_entropy(gt, model(gt, x, p), y);
    rlx_grad(gt, loss, 4, p, gr);
    memset(&od, 0, sizeof od);
    od.lr = 1e-3f;
    od.weight_decay = 1e-4f;
    rlx_optimizer_step(gt, &od, 4, p, gr);
    rlx_output(gt, "loss", loss);
    /* evaluation graph: the same weights, a bigger batch, logits out */
    xe = rlx_input(ge, "x", RLX_F32, 2, es);
    params(ge, pe);
    rlx_output(ge, "logits", model(ge, xe, pe));
    memset(&cd, 0, sizeof cd);
    cd.store = st;
    if (rlx_compile(gt, &cd, &pt) != RLX_OK) { printf("compile: %s\n", rlx_graph_error(gt)); return 1; }
    if (rlx_compile(ge, &cd, &pe_prog) != RLX_OK) { printf("compile: %s\n", rlx_graph_error(ge)); return 1; }
    printf("Fashion-MNIST: %d training and %d test images; MLP 784-%d-10, AdamW, batch %d, device %s\n", tr.n, te.n,
           HID, BATCH, dv);
    order = (int*)malloc(sizeof(int) * (size_t)tr.n);
    for (i = 0; i < tr.n; i++) order[i] = i;
    for (e = 0; e < epochs; e++) {
        double t0 = now_seconds(), lsum = 0, dt;
        int steps = tr.n / BATCH, correct = 0;
        for (i = tr.n - 1; i > 0; i--) {   /* shuffle */
            int j = (int)(rnd() * (i + 1)), t = order[i];
            order[i] = order[j]; order[j] = t;
        }
        for (s = 0; s < steps; s++) {
            float l = 0;
            for (i = 0; i < BATCH; i++) {
                int r = order[s * BATCH + i];
                memcpy(xb + (size_t)i * NPIX, tr.x + (size_t)r * NPIX, sizeof(float) * NPIX);
                yb[i] = tr.y[r];
            }
            rlx_set_input_f32(pt, "x", xb, BATCH * NPIX);
            rlx_set_input(pt, "y", RLX_I64, yb, sizeof(int64_t) * BATCH);
            if (rlx_run(pt) != RLX_OK) { printf("run: %s\n", rlx_program_error(pt)); return 1; }
            rlx_get_output_f32(pt, "loss", &l, 1);
            lsum += l;
        }
        dt = now_seconds() - t0;
        for (s = 0; s < te.n / EVAL_BATCH; s++) {
            rlx_set_input_f32(pe_prog, "x", te.x + (size_t)s * EVAL_BATCH * NPIX, EVAL_BATCH * NPIX);
            rlx_run(pe_prog);
            rlx_get_output_f32(pe_prog, "logits", logits, EVAL_BATCH * NCLS);
            for (i = 0; i < EVAL_BATCH; i++) {
                int best = 0;
                for (k = 1; k < NCLS; k++) if (logits[i * NCLS + k] > logits[i * NCLS + best]) best = k;
                correct += best == te.y[s * EVAL_BATCH + i];
            }
        }
        printf("epoch %d: mean loss %.4f, test accuracy %.2f%%, %.0f images/s (training steps)\n", e + 1,
               lsum / steps, 100.0 * correct / te.n, (double)steps * BATCH / dt);
    }
    rlx_program_destroy(pt);
    rlx_program_destroy(pe_prog);
    rlx_store_destroy(st);
    rlx_graph_destroy(gt);
    rlx_graph_destroy(ge);
    free(tr.x); free(tr.y); free(te.x); free(te.y); free(xb); free(yb); free(logits); free(order);
    return 0;
}
