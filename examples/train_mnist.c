/* train_mnist.c - train a classifier on Fashion-MNIST with rlx.h (>>autodiff): an MLP or a small CNN.

   mlp (default): 784 -> 256 (ReLU) -> 10.
   cnn:           conv 3x3 (32, padding 1) -> ReLU -> max pool 2x2 -> conv 3x3 (64, padding 1) -> ReLU
                  -> max pool 2x2 -> 3136 -> 128 (ReLU) -> 10.
   Cross-entropy, AdamW (lr 1e-3, weight decay 1e-4), batches of 128, a few epochs. One rlx_run is one whole
   training step (forward, backward, AdamW update of the weights in place); the host reads only the loss. The
   weights live in an rlx_store as states, so the evaluation program (a graph of its own, batch 1000) reads the
   weights being trained without a copy. Prints loss, test accuracy and images/s per epoch.

   Data: Debian's dataset-fashion-mnist (apt-get install dataset-fashion-mnist) puts the gzipped IDX files in
   /usr/share/datasets/fashion-mnist; they are read through `gzip -dc` (POSIX popen), or give a directory
   holding the unpacked files (train-images-idx3-ubyte, ...). Arguments, in any order:
       build/examples/train_mnist [mlp|cnn] [DIR] [EPOCHS] [cpu|vulkan|cuda|hip]
   (EPOCHS: a number; default 5 for the MLP, 3 for the CNN.)
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
#define NCLS 10
#define BATCH 128
#define EVAL_BATCH 1000
#define MAXP 12

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

/* The models: named parameters (states in the store) and a builder of the logits from x [B, 784]. */
typedef struct model {
    const char* name;
    int np;
    const char* pn[MAXP];
    int rank[MAXP];
    int64_t shape[MAXP][4];
    double fan_in[MAXP];    /* > 0: weights, He-uniform with this fan-in; 0: zero (biases) */
    int epochs;             /* default */
} model;

static const model models[2] = {
    {"mlp", 4, {"w1", "b1", "w2", "b2"}, {2, 1, 2, 1}, {{NPIX, 256}, {256}, {256, NCLS}, {NCLS}},
     {NPIX, 0, 256, 0}, 5},
    {"cnn", 8, {"c1.w", "c1.b", "c2.w", "c2.b", "fc1.w", "fc1.b", "fc2.w", "fc2.b"}, {4, 1, 4, 1, 2, 1, 2, 1},
     {{32, 1, 3, 3}, {32}, {64, 32, 3, 3}, {64}, {64 * 7 * 7, 128}, {128}, {128, NCLS}, {NCLS}},
     {9, 0, 32 * 9, 0, 64 * 7 * 7, 0, 128, 0}, 3},
};

static rlx_tensor build(rlx_graph* g, const model* m, rlx_tensor x, int64_t batch, const rlx_tensor* p) {
    if (strcmp(m->name, "mlp") == 0)   /* relu(x · w1 + b1) · w2 + b2 */
        return rlx_add(g, rlx_matmul(g, rlx_relu(g, rlx_add(g, rlx_matmul(g, x, p[0]), p[1])), p[2]), p[3]);
    {
        int64_t is[4] = {0, 1, 28, 28}, fs[2] = {0, 64 * 7 * 7};
        rlx_tensor h;
        rlx_conv_desc cv;
        rlx_pool_desc pd;
        is[0] = fs[0] = batch;
        memset(&cv, 0, sizeof cv);
        cv.pad_begin[0] = cv.pad_begin[1] = cv.pad_end[0] = cv.pad_end[1] = 1;
        memset(&pd, 0, sizeof pd);
        pd.kind = RLX_POOL_MAX; pd.kernel[0] = pd.kernel[1] = 2;
        h = rlx_reshape(g, x, 4, is);
        h = rlx_pool(g, rlx_relu(g, rlx_conv(g, h, p[0], p[1], &cv)), &pd);
        h = rlx_pool(g, rlx_relu(g, rlx_conv(g, h, p[2], p[3], &cv)), &pd);
        h = rlx_relu(g, rlx_add(g, rlx_matmul(g, rlx_reshape(g, h, 2, fs), p[4]), p[5]));
        return rlx_add(g, rlx_matmul(g, h, p[6]), p[7]);
    }
}

static void params(rlx_graph* g, const model* m, rlx_tensor* p) {
    int k;
    for (k = 0; k < m->np; k++) p[k] = rlx_state(g, m->pn[k], RLX_F32, m->rank[k], m->shape[k]);
}

int main(int argc, char** argv) {
    const char* dir = "/usr/share/datasets/fashion-mnist";
    const char* dv = "cpu";
    const model* m = &models[0];
    int epochs = 0, e, s, i, k;
    rlx_device dev;
    dataset tr, te;
    rlx_store_desc sd;
    rlx_store* st = NULL;
    rlx_graph *gt = rlx_graph_create(NULL), *ge = rlx_graph_create(NULL);
    rlx_tensor p[MAXP], gr[MAXP], x, y, loss, pe[MAXP], xe;
    int64_t xs[2] = {BATCH, NPIX}, ys[1] = {BATCH}, es[2] = {EVAL_BATCH, NPIX};
    rlx_optimizer_desc od;
    rlx_compile_desc cd;
    rlx_program *pt = NULL, *pe_prog = NULL;
    float* xb = (float*)malloc(sizeof(float) * BATCH * NPIX);
    int64_t* yb = (int64_t*)malloc(sizeof(int64_t) * BATCH);
    float* logits = (float*)malloc(sizeof(float) * EVAL_BATCH * NCLS);
    int* order;
    for (i = 1; i < argc; i++) {   /* [mlp|cnn] [DIR] [EPOCHS] [cpu|vulkan|cuda|hip], in any order */
        const char* a = argv[i];
        if (strcmp(a, "mlp") == 0 || strcmp(a, "cnn") == 0) m = &models[a[0] == 'c'];
        else if (strcmp(a, "cpu") == 0 || strcmp(a, "vulkan") == 0 || strcmp(a, "cuda") == 0 || strcmp(a, "hip") == 0) dv = a;
        else if (a[0] >= '0' && a[0] <= '9' && strspn(a, "0123456789") == strlen(a)) epochs = atoi(a);
        else dir = a;
    }
    if (epochs <= 0) epochs = m->epochs;
    dev = strcmp(dv, "vulkan") == 0 ? RLX_DEVICE_VULKAN : strcmp(dv, "cuda") == 0 ? RLX_DEVICE_CUDA
        : strcmp(dv, "hip") == 0 ? RLX_DEVICE_HIP : RLX_DEVICE_CPU;
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
    for (k = 0; k < m->np; k++) {
        int64_t n = 1, j;
        float* w;
        double lim = m->fan_in[k] > 0 ? sqrt(6.0 / m->fan_in[k]) : 0.0;   /* He-uniform; zero biases */
        for (j = 0; j < m->rank[k]; j++) n *= m->shape[k][j];
        w = (float*)malloc(sizeof(float) * (size_t)n);
        for (j = 0; j < n; j++) w[j] = (float)((2 * rnd() - 1) * lim);
        rlx_store_add_state(st, m->pn[k], RLX_F32, m->rank[k], m->shape[k]);
        rlx_store_set(st, m->pn[k], RLX_F32, w, sizeof(float) * (size_t)n);
        free(w);
    }
    /* training graph: forward, rlx_grad, AdamW */
    x = rlx_input(gt, "x", RLX_F32, 2, xs);
    y = rlx_input(gt, "y", RLX_I64, 1, ys);
    params(gt, m, p);
    loss = rlx_cross_entropy(gt, build(gt, m, x, BATCH, p), y);
    rlx_grad(gt, loss, m->np, p, gr);
    memset(&od, 0, sizeof od);
    od.lr = 1e-3f;
    od.weight_decay = 1e-4f;
    rlx_optimizer_step(gt, &od, m->np, p, gr);
    rlx_output(gt, "loss", loss);
    /* evaluation graph: the same weights, a bigger batch, logits out */
    xe = rlx_input(ge, "x", RLX_F32, 2, es);
    params(ge, m, pe);
    rlx_output(ge, "logits", build(ge, m, xe, EVAL_BATCH, pe));
    memset(&cd, 0, sizeof cd);
    cd.store = st;
    if (rlx_compile(gt, &cd, &pt) != RLX_OK) { printf("compile: %s\n", rlx_graph_error(gt)); return 1; }
    if (rlx_compile(ge, &cd, &pe_prog) != RLX_OK) { printf("compile: %s\n", rlx_graph_error(ge)); return 1; }
    if (m == &models[0])
        printf("Fashion-MNIST: %d training and %d test images; MLP 784-256-10, AdamW, batch %d, device %s\n", tr.n,
               te.n, BATCH, dv);
    else
        printf("Fashion-MNIST: %d training and %d test images; CNN conv32-pool-conv64-pool-128-10, AdamW, "
               "batch %d, device %s\n", tr.n, te.n, BATCH, dv);
    fflush(stdout);
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
        fflush(stdout);
    }
    rlx_program_destroy(pt);
    rlx_program_destroy(pe_prog);
    rlx_store_destroy(st);
    rlx_graph_destroy(gt);
    rlx_graph_destroy(ge);
    free(tr.x); free(tr.y); free(te.x); free(te.y); free(xb); free(yb); free(logits); free(order);
    return 0;
}
