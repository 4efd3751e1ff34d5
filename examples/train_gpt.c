/* train_gpt.c - train a character-level GPT on a text file with rlx.h (>>autodiff), then sample from it.

   In the spirit of nanoGPT / llm.c, in one C file: token + position embeddings, N pre-norm blocks (layernorm,
   causal multi-head attention, layernorm, MLP with gelu), a final layernorm and a linear head; cross-entropy;
   AdamW with weight decay and clipping by the global gradient norm. One rlx_run is one whole training step
   (forward, backward, AdamW update of every weight in place); the host reads only the loss. The optimizer
   checks the loss and the gradients (check_finite): a NaN step would be reported and skipped, not applied.

   The weights live in an rlx_store as states. The training program and the sampling program (a graph of its
   own: batch 1, logits for every position of a window) are both compiled against that store, so the sampling
   program reads the weights being trained where they are: no copy, nothing uploaded. The program prints what
   each program holds of its own to show it.

   The vocabulary is the set of bytes that occur in the text. Sampling starts from the text's first character,
   feeds the last CTX characters back each step and picks the next one with a seeded temperature (0 = greedy).

       build/examples/train_gpt [TEXT_FILE] [STEPS] [cpu|vulkan|cuda|hip] [TEMPERATURE] [SEED]
   Default: /usr/share/common-licenses/GPL-3 (on every Debian system; README.md if it is missing), 500 steps
   (or RLX_TRAIN_GPT_STEPS), the CPU, temperature 0.8, seed 1.
   Build: cc -O2 -I. examples/train_gpt.c -o build/train_gpt -lm -lpthread -ldl
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
#if defined(_WIN32)
#  include <windows.h> /* QueryPerformanceCounter */
#else
#  include <time.h>
#endif

#define CTX 64       /* characters of context                  */
#define DM 64        /* model width                            */
#define NHEAD 4
#define NLAYER 2
#define DFF (4 * DM) /* MLP hidden width                       */
#define BATCH 16     /* sequences per training step            */
#define NPB 12       /* weights per block                      */
#define NW (3 + NLAYER * NPB + 2)
#define SAMPLE_CHARS 400

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

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double rnd(void) {   /* uniform in [0, 1) */
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}
static double randn(void) {   /* Box-Muller */
    double u = rnd(), v = rnd();
    return sqrt(-2.0 * log(u + 1e-300)) * cos(6.283185307179586 * v);
}

/* The weights: names, shapes, ranks. V is the vocabulary size. */
typedef struct weights {
    char name[NW][32];
    int64_t shape[NW][2];
    int rank[NW];
} weights;

static void weight_list(weights* w, int64_t V) {
    static const char* bn[NPB] = {"ln1.g", "ln1.b", "wq", "wk", "wv", "wo", "ln2.g", "ln2.b", "w1", "b1", "w2", "b2"};
    static const int64_t bs[NPB][2] = {{DM, 0}, {DM, 0}, {DM, DM}, {DM, DM}, {DM, DM}, {DM, DM}, {DM, 0}, {DM, 0},
                                       {DM, DFF}, {DFF, 0}, {DFF, DM}, {DM, 0}};
    int n = 0, l, k;
#define W(nm, a, b) do { snprintf(w->name[n], 32, "%s", nm); w->shape[n][0] = (a); w->shape[n][1] = (b); \
                         w->rank[n] = (b) ? 2 : 1; n++; } while (0)
    W("tok_emb", V, DM);
    W("pos_emb", CTX, DM);
    for (l = 0; l < NLAYER; l++)
        for (k = 0; k < NPB; k++) {
            char nm[32];
            snprintf(nm, sizeof nm, "h%d.%s", l, bn[k]);
            W(nm, bs[k][0], bs[k][1]);
        }
    W("lnf.g", DM, 0);
    W("lnf.b", DM, 0);
    W("head", DM, V);
#undef W
}

/* logits [B, CTX, V] of tokens [B, CTX] (i32); p: the NW weights in weight_list's order */
static rlx_tensor gpt(rlx_graph* g, rlx_tensor tokens, const rlx_tensor* p, int64_t B) {
    rlx_attention_desc ad;
    int l;
    rlx_tensor x = rlx_add(g, rlx_gather(g, p[0], tokens, 0), p[1]);   /* [B, CTX, DM] + [CTX, DM] */
    (void)B;
    memset(&ad, 0, sizeof ad);
    ad.layout = RLX_LAYOUT_BSHD;
    ad.num_heads = NHEAD;
    ad.causal = 1;
    for (l = 0; l < NLAYER; l++) {
        const rlx_tensor* w = p + 2 + NPB * l;
        rlx_tensor h = rlx_layernorm(g, x, w[0], w[1], -1, 1e-5f), a;
        a = rlx_attention(g, rlx_matmul(g, h, w[2]), rlx_matmul(g, h, w[3]), rlx_matmul(g, h, w[4]), &ad);
        x = rlx_add(g, x, rlx_matmul(g, a, w[5]));
        h = rlx_layernorm(g, x, w[6], w[7], -1, 1e-5f);
        h = rlx_gelu(g, rlx_add(g, rlx_matmul(g, h, w[8]), w[9]));
        x = rlx_add(g, x, rlx_add(g, rlx_matmul(g, h, w[10]), w[11]));
    }
    return rlx_matmul(g, rlx_layernorm(g, x, p[NW - 3], p[NW - 2], -1, 1e-5f), p[NW - 1]);
}

static unsigned char* read_file(const char* path, size_t* n) {
    FILE* f = fopen(path, "rb");
    unsigned char* buf;
    long sz;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 || sz > (1L << 30)) {
        fclose(f);
        return NULL;
    }
    buf = (unsigned char*)malloc((size_t)sz + 1);
    if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) { free(buf); buf = NULL; }
    fclose(f);
    *n = (size_t)sz;
    return buf;
}

int main(int argc, char** argv) {
    const char* path = argc > 1 && argv[1][0] ? argv[1] : "/usr/share/common-licenses/GPL-3";
    const char* env_steps = getenv("RLX_TRAIN_GPT_STEPS");   /* CI's portability runs ask for a few */
    int steps = argc > 2 ? atoi(argv[2]) : env_steps && *env_steps ? atoi(env_steps) : 500;
    const char* dv = argc > 3 ? argv[3] : "cpu";
    double temperature = argc > 4 ? atof(argv[4]) : 0.8;
    unsigned seed = argc > 5 ? (unsigned)strtoul(argv[5], NULL, 10) : 1u;
    rlx_device dev = strcmp(dv, "vulkan") == 0 ? RLX_DEVICE_VULKAN : strcmp(dv, "cuda") == 0 ? RLX_DEVICE_CUDA
                   : strcmp(dv, "hip") == 0 ? RLX_DEVICE_HIP : RLX_DEVICE_CPU;
    unsigned char* text;
    size_t ntext = 0, i;
    int vocab_of[256], byte_of[256], V = 0, k, s;
    weights wl;
    rlx_store_desc sd;
    rlx_store* st = NULL;
    rlx_store_stats ss;
    rlx_graph *gt = rlx_graph_create(NULL), *gs = rlx_graph_create(NULL);
    rlx_tensor p[NW], gr[NW], ps[NW], tok, tgt, loss, stok;
    int64_t ts[2] = {BATCH, CTX}, flat[2], fl1[1] = {BATCH * CTX}, ss1[2] = {1, CTX};
    rlx_optimizer_desc od;
    rlx_compile_desc cd;
    rlx_program *pt = NULL, *psm = NULL;
    rlx_plan_info pit, pis;
    int32_t *tb, *yb, ctxb[CTX];
    float* logits;
    double t0, tlast, lsum = 0;
    int nl = 0;
    rlx_result r;

    text = read_file(path, &ntext);
    if (!text && argc <= 1) text = read_file(path = "README.md", &ntext);
    if (!text || ntext < (size_t)CTX + 2) {
        printf("cannot read a text of at least %d bytes from %s\n", CTX + 2, path);
        return 1;
    }
    /* vocabulary: the bytes that occur */
    for (k = 0; k < 256; k++) vocab_of[k] = -1;
    for (i = 0; i < ntext; i++) vocab_of[text[i]] = 0;
    for (k = 0; k < 256; k++) if (vocab_of[k] == 0) { vocab_of[k] = V; byte_of[V++] = k; }
    flat[0] = BATCH * CTX; flat[1] = V;
    weight_list(&wl, V);

    /* the store: every weight, as a state (programs write it), initialised like GPT-2 */
    memset(&sd, 0, sizeof sd);
    sd.device = dev;
    if (rlx_store_create(&sd, &st) != RLX_OK) { printf("no %s device\n", dv); return 1; }
    for (k = 0; k < NW; k++) {
        int64_t n = wl.rank[k] == 2 ? wl.shape[k][0] * wl.shape[k][1] : wl.shape[k][0], j;
        float* w = (float*)malloc(sizeof(float) * (size_t)n);
        const char* nm = wl.name[k];
        size_t len = strlen(nm);
        int is_gain = len > 2 && strcmp(nm + len - 2, ".g") == 0, is_bias = len > 2 && strcmp(nm + len - 2, ".b") == 0;
        double sdev = 0.02;
        if (strstr(nm, ".wo") || strstr(nm, ".w2")) sdev = 0.02 / sqrt(2.0 * NLAYER);   /* residual projections */
        for (j = 0; j < n; j++)
            w[j] = is_gain ? 1.0f : (is_bias || strstr(nm, ".b1") || strstr(nm, ".b2")) ? 0.0f : (float)(sdev * randn());
        if (rlx_store_add_state(st, nm, RLX_F32, wl.rank[k], wl.shape[k]) != RLX_OK ||
            rlx_store_set(st, nm, RLX_F32, w, sizeof(float) * (size_t)n) != RLX_OK) {
            printf("store: %s\n", rlx_store_error(st));
            return 1;
        }
        free(w);
    }

    /* training graph: forward, rlx_grad, AdamW (one run = one step) */
    tok = rlx_input(gt, "tokens", RLX_I32, 2, ts);
    tgt = rlx_input(gt, "targets", RLX_I32, 2, ts);
    for (k = 0; k < NW; k++) p[k] = rlx_state(gt, wl.name[k], RLX_F32, wl.rank[k], wl.shape[k]);
    loss = rlx_cross_entropy(gt, rlx_reshape(gt, gpt(gt, tok, p, BATCH), 2, flat), rlx_reshape(gt, tgt, 1, fl1));
    rlx_grad(gt, loss, NW, p, gr);
    memset(&od, 0, sizeof od);
    od.lr = 3e-3f;
    od.weight_decay = 0.01f;
    od.clip_norm = 1.0f;
    od.check_finite = 1;   /* a NaN/inf step is reported by rlx_run and not applied */
    od.loss = loss;
    rlx_optimizer_step(gt, &od, NW, p, gr);
    rlx_output(gt, "loss", loss);

    /* sampling graph: batch 1, logits of every position; the same weights by name */
    stok = rlx_input(gs, "tokens", RLX_I32, 2, ss1);
    for (k = 0; k < NW; k++) ps[k] = rlx_state(gs, wl.name[k], RLX_F32, wl.rank[k], wl.shape[k]);
    rlx_output(gs, "logits", gpt(gs, stok, ps, 1));

    memset(&cd, 0, sizeof cd);
    cd.store = st;
    if (rlx_compile(gt, &cd, &pt) != RLX_OK) { printf("compile (training): %s\n", rlx_graph_error(gt)); return 1; }
    if (rlx_compile(gs, &cd, &psm) != RLX_OK) { printf("compile (sampling): %s\n", rlx_graph_error(gs)); return 1; }
    rlx_program_plan(pt, &pit);
    rlx_program_plan(psm, &pis);
    rlx_store_info(st, &ss);
    {
        int64_t nparam = 0;
        for (k = 0; k < NW; k++) nparam += wl.rank[k] == 2 ? wl.shape[k][0] * wl.shape[k][1] : wl.shape[k][0];
        printf("text: %s, %zu bytes, %d distinct characters\n", path, ntext, V);
        printf("model: %d layers, width %d, %d heads, context %d, %lld weights; AdamW lr %g, batch %d x %d on %s "
               "(%d threads)\n", NLAYER, DM, NHEAD, CTX, (long long)nparam, (double)od.lr, BATCH, CTX,
               rlx_device_name(rlx_program_device(pt)), pit.num_threads);
        printf("store: %d weights, %zu bytes, bound by %d programs; the training program holds %zu bytes of "
               "optimizer state and %zu of constants, the sampling program %zu and %zu: it reads the weights being "
               "trained in the store, no copy\n", ss.count, ss.bytes, ss.programs, pit.state_bytes, pit.weight_bytes,
               pis.state_bytes, pis.weight_bytes);
    }

    tb = (int32_t*)malloc(sizeof(int32_t) * BATCH * CTX);
    yb = (int32_t*)malloc(sizeof(int32_t) * BATCH * CTX);
    logits = (float*)malloc(sizeof(float) * (size_t)CTX * (size_t)V);
    if (!tb || !yb || !logits) return 1;
    t0 = tlast = now_seconds();
    for (s = 1; s <= steps; s++) {
        float l = 0;
        int b;
        for (b = 0; b < BATCH; b++) {   /* random windows of the text */
            size_t o = (size_t)(rnd() * (double)(ntext - CTX - 1));
            for (k = 0; k < CTX; k++) {
                tb[b * CTX + k] = vocab_of[text[o + (size_t)k]];
                yb[b * CTX + k] = vocab_of[text[o + (size_t)k + 1]];
            }
        }
        rlx_set_input_i32(pt, "tokens", tb, BATCH * CTX);
        rlx_set_input_i32(pt, "targets", yb, BATCH * CTX);
        r = rlx_run(pt);
        if (r == RLX_ERROR_NON_FINITE) { printf("step %d skipped: %s\n", s, rlx_program_error(pt)); continue; }
        if (r != RLX_OK) { printf("run: %s\n", rlx_program_error(pt)); return 1; }
        rlx_get_output_f32(pt, "loss", &l, 1);
        lsum += l;
        nl++;
        if (s % 50 == 0 || s == 1 || s == steps) {
            double t = now_seconds();
            printf("step %4d: loss %.4f (mean of the last %d), %.0f tokens/s\n", s, lsum / nl, nl,
                   (double)nl * BATCH * CTX / (t - tlast));
            lsum = 0;
            nl = 0;
            tlast = t;
        }
    }
    printf("trained %d steps in %.1f s (%.0f tokens/s)\n", steps, now_seconds() - t0,
           (double)steps * BATCH * CTX / (now_seconds() - t0));

    /* sampling: the sampling program sees the trained weights in the store */
    rng_state = 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed * 0xD1B54A32D192ED03ull);
    if (rng_state == 0) rng_state = 1;
    printf("--- sample (temperature %g, seed %u) ---\n", temperature, seed);
    {
        int len = 1, c;
        for (k = 0; k < CTX; k++) ctxb[k] = 0;
        ctxb[0] = vocab_of[text[0]];
        putchar(text[0]);
        for (c = 0; c < SAMPLE_CHARS; c++) {
            int pos = len - 1, best = 0, next;
            const float* row;
            rlx_set_input_i32(psm, "tokens", ctxb, CTX);   /* positions after len-1 are ignored (causal) */
            if (rlx_run(psm) != RLX_OK) { printf("\nrun: %s\n", rlx_program_error(psm)); return 1; }
            rlx_get_output_f32(psm, "logits", logits, (size_t)CTX * (size_t)V);
            row = logits + (size_t)pos * (size_t)V;
            for (k = 1; k < V; k++) if (row[k] > row[best]) best = k;
            next = best;
            if (temperature > 0) {   /* softmax(row / T), then one draw */
                double z = 0, u = rnd(), acc = 0;
                for (k = 0; k < V; k++) z += exp(((double)row[k] - row[best]) / temperature);
                for (k = 0; k < V; k++) {
                    acc += exp(((double)row[k] - row[best]) / temperature) / z;
                    if (u < acc) { next = k; break; }
                }
            }
            putchar(byte_of[next]);
            if (len < CTX) ctxb[len++] = next;
            else { memmove(ctxb, ctxb + 1, sizeof(int32_t) * (CTX - 1)); ctxb[CTX - 1] = next; }
        }
        printf("\n---\n");
    }
    rlx_program_destroy(pt);
    rlx_program_destroy(psm);
    rlx_store_destroy(st);
    rlx_graph_destroy(gt);
    rlx_graph_destroy(gs);
    free(text); free(tb); free(yb); free(logits);
    return 0;
}
