/* compile_time.c - how long graph building and rlx_compile take on large graphs (CPU device).

   Build (from the repository root):
       cc -O2 -I. bench/compile_time.c -o build/bench/compile_time -lm -lpthread -ldl
   Usage:
       compile_time [scale]      scale (default 1) multiplies every graph size below

   Two graph families, each at three sizes so that the growth of the cost per node is visible:
     chain        a 25,000 / 50,000 / 100,000-node chain on a small f32 [4, 8] tensor that cycles through
                  add with one of 4 params, relu, mul by a shared scalar, tanh, a duplicated sigmoid (two
                  identical nodes that common-subexpression elimination merges), their sum, a reshape to [32]
                  and back, neg, an add of two scalar constants (constant folding) and sub. Fusion turns the
                  elementwise runs into fused steps.
     transformer  2,500 / 5,000 / 10,000 nodes: a stack of decoder blocks of examples/transformer_model.h
                  (rmsnorm, q/k/v/o projections, RoPE, KV-cache state writes, grouped-query attention,
                  residual adds, SwiGLU MLP) at d_model 64, with as many layers as the node count needs.
   For each graph it prints the node count, the seconds spent building it and in rlx_compile, the compile time
   per node (in microseconds), the compile time as a fraction of the 1 s target and the peak of the memory that
   rlx_compile held at once (counted by an allocator passed in rlx_compile_desc, the program's arena included). The largest graph of
   each family then runs once, to check that the program works.
   Then symbolic dims: the full model of examples/transformer.c (tm_config_small) built once with a symbolic
   sequence length "seq" (tm_build.symbolic_seq), compiled on the CPU for seq = 1 (the first compile: specialise,
   optimise, plan, lower), then for lengths it has not seen ("decode program for a new length": one
   specialisation each, the median of 32 is printed) and again for lengths it has ("cached": a new program
   from the graph's cache, median of 8). There is no peer for this; each row prints its absolute time and its
   ratio to the first compile. For reference, the last row builds the same model without dims for each new
   length (tm_build_graph + rlx_compile, median of 32): what a program without symbolic dims does instead.
   Exit status: 0 when everything compiled and ran, 1 otherwise. */
#if !defined(_POSIX_C_SOURCE) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#endif
#define RLX_IMPLEMENTATION
#include "../rlx.h"
#include "../examples/transformer_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Counting allocator for rlx_compile: every block carries its size in a 16-byte header. */
static size_t heap_now, heap_peak;
static void* count_alloc(size_t size, void* user) {
    unsigned char* b = (unsigned char*)malloc(size + 16);
    (void)user;
    if (!b) return NULL;
    memcpy(b, &size, sizeof size);
    heap_now += size;
    if (heap_now > heap_peak) heap_peak = heap_now;
    return b + 16;
}
static void count_free(void* ptr, void* user) {
    size_t size;
    unsigned char* b = (unsigned char*)ptr;
    (void)user;
    if (!b) return;
    memcpy(&size, b - 16, sizeof size);
    heap_now -= size;
    free(b - 16);
}

/* A chain of about `nodes` nodes (see the top of the file). Inputs "x" [4, 8]; params "p0".."p3" [8]. */
static rlx_graph* build_chain(int nodes) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t xs[2] = {4, 8}, ps[1] = {8}, flat[1] = {32};
    rlx_tensor x, p[4], s;
    int i;
    char name[8];
    if (!g) return NULL;
    x = rlx_input(g, "x", RLX_F32, 2, xs);
    for (i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "p%d", i);
        p[i] = rlx_param(g, name, RLX_F32, 1, ps);
    }
    s = rlx_scalar(g, RLX_F32, 0.5);
    for (i = 0; rlx_graph_node_count(g) < nodes; i++) {
        rlx_tensor a, b;
        switch (i % 11) {
        case 0: x = rlx_add(g, x, p[(i / 11) % 4]); break;
        case 1: x = rlx_relu(g, x); break;
        case 2: x = rlx_mul(g, x, s); break;
        case 3: x = rlx_tanh(g, x); break;
        case 4:
            a = rlx_sigmoid(g, x);
            b = rlx_sigmoid(g, x);   /* a duplicate for CSE */
            x = rlx_add(g, a, b);
            break;
        case 5: x = rlx_reshape(g, x, 1, flat); break;
        case 6: x = rlx_neg(g, x); break;
        case 7: x = rlx_reshape(g, x, 2, xs); break;
        case 8:   /* folds to one constant */
            x = rlx_add(g, x, rlx_add(g, rlx_scalar(g, RLX_F32, 0.25), rlx_scalar(g, RLX_F32, (double)(i % 7))));
            break;
        case 9: x = rlx_sub(g, x, p[(i / 11 + 1) % 4]); break;
        default: x = rlx_mul(g, x, x); break;
        }
    }
    rlx_output(g, "y", x);
    return g;
}

static tm_config transformer_config(int layers) {
    tm_config c = tm_config_tiny();
    c.n_layers = layers;
    return c;
}

/* A stack of decoder blocks with about `nodes` nodes (blocks only: input "x" and "pos", output "y"). */
static rlx_graph* build_transformer(int nodes, tm_config* cfg) {
    rlx_graph* g;
    tm_build b = tm_build_default(8);
    int per_layer, layers;
    rlx_result tr = RLX_OK;
    b.blocks_only = 1;
    /* nodes per layer: the difference between a 2-layer and a 1-layer graph */
    *cfg = transformer_config(1);
    g = tm_build_graph(cfg, &b, &tr);
    if (!g) return NULL;
    per_layer = rlx_graph_node_count(g);
    rlx_graph_destroy(g);
    *cfg = transformer_config(2);
    g = tm_build_graph(cfg, &b, &tr);
    if (!g) return NULL;
    per_layer = rlx_graph_node_count(g) - per_layer;
    rlx_graph_destroy(g);
    layers = nodes / (per_layer > 0 ? per_layer : 1);
    if (layers < 1) layers = 1;
    *cfg = transformer_config(layers);
    g = tm_build_graph(cfg, &b, &tr);
    if (g && tr != RLX_OK) {
        rlx_graph_destroy(g);
        return NULL;
    }
    return g;
}

static int failures = 0;

/* Compiles g on the CPU and prints one line; returns the program (NULL on failure). */
static rlx_program* time_compile(const char* family, rlx_graph* g, double build_s) {
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    rlx_plan_info info;
    double t0, dt;
    int n = rlx_graph_node_count(g);
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    cd.num_threads = 1;
    cd.allocator.alloc = count_alloc;
    cd.allocator.free = count_free;
    heap_now = heap_peak = 0;
    t0 = now_s();
    if (rlx_compile(g, &cd, &p) != RLX_OK) {
        fprintf(stderr, "error: compile of the %s graph (%d nodes) failed: %s\n", family, n, rlx_graph_error(g));
        failures++;
        return NULL;
    }
    dt = now_s() - t0;
    memset(&info, 0, sizeof info);
    rlx_program_plan(p, &info);
    printf("%-12s %8d %8d %9.3f %10.3f %10.2f %9.2fx %10.1f\n", family, n, info.num_steps, build_s, dt,
           1e6 * dt / (double)n, dt / 1.0, (double)heap_peak / 1048576.0);
    fflush(stdout);
    return p;
}

static void fill(float* v, size_t n, float a) {
    size_t i;
    for (i = 0; i < n; i++) v[i] = a * (float)((int)(i % 7) - 3) / 3.0f;
}

static void run_chain(rlx_program* p) {
    float x[32], w[8], y[32];
    int i;
    char name[8];
    fill(x, 32, 1.0f);
    fill(w, 8, 0.1f);
    for (i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "p%d", i);
        rlx_set_param_f32(p, name, w, 8);
    }
    rlx_set_input_f32(p, "x", x, 32);
    if (rlx_run(p) != RLX_OK || rlx_get_output_f32(p, "y", y, 32) != RLX_OK) {
        fprintf(stderr, "error: chain run failed: %s\n", rlx_program_error(p));
        failures++;
    }
}

static void run_transformer(rlx_program* p, const tm_config* cfg) {
    tm_weights w;
    float* x;
    int32_t pos = 0;
    size_t n = (size_t)8 * (size_t)cfg->d_model;
    if (!tm_weights_init(cfg, 0, &w)) { fprintf(stderr, "error: out of memory\n"); failures++; return; }
    x = (float*)malloc(n * sizeof(float));
    if (!x) { tm_weights_free(&w); failures++; return; }
    fill(x, n, 1.0f);
    if (tm_set_params(p, &w) != RLX_OK || rlx_set_input_f32(p, "x", x, n) != RLX_OK ||
        rlx_set_input_i32(p, "pos", &pos, 1) != RLX_OK || rlx_run(p) != RLX_OK) {
        fprintf(stderr, "error: transformer run failed: %s\n", rlx_program_error(p));
        failures++;
    }
    free(x);
    tm_weights_free(&w);
}

int main(int argc, char** argv) {
    static const int chain_sizes[3] = {25000, 50000, 100000};
    static const int tf_sizes[3] = {2500, 5000, 10000};
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    int i;
    if (scale <= 0) scale = 1.0;
    printf("rlx_compile on the CPU device, 1 thread (target: < 1 s for chain 100000 and transformer 10000)\n");
    printf("%-12s %8s %8s %9s %10s %10s %10s %10s\n", "graph", "nodes", "steps", "build s", "compile s", "us/node",
           "of 1 s", "peak MiB");
    for (i = 0; i < 3; i++) {
        int want = (int)(chain_sizes[i] * scale);
        double t0 = now_s(), bt;
        rlx_graph* g = build_chain(want);
        rlx_program* p;
        if (!g || rlx_graph_status(g) != RLX_OK) {
            fprintf(stderr, "error: building the chain failed: %s\n", g ? rlx_graph_error(g) : "out of memory");
            rlx_graph_destroy(g);
            return 1;
        }
        bt = now_s() - t0;
        p = time_compile("chain", g, bt);
        rlx_graph_destroy(g);
        if (p && i == 2) run_chain(p);
        rlx_program_destroy(p);
    }
    for (i = 0; i < 3; i++) {
        int want = (int)(tf_sizes[i] * scale);
        tm_config cfg;
        double t0 = now_s(), bt;
        rlx_graph* g = build_transformer(want, &cfg);
        rlx_program* p;
        if (!g || rlx_graph_status(g) != RLX_OK) {
            fprintf(stderr, "error: building the transformer failed: %s\n", g ? rlx_graph_error(g) : "out of memory");
            rlx_graph_destroy(g);
            return 1;
        }
        bt = now_s() - t0;
        p = time_compile("transformer", g, bt);
        rlx_graph_destroy(g);
        if (p && i == 2) run_transformer(p, &cfg);
        rlx_program_destroy(p);
    }
    {
        tm_config cfg = tm_config_small();
        tm_build b = tm_build_default(1);
        rlx_result tr = RLX_OK;
        rlx_graph* g;
        rlx_compile_desc cd;
        rlx_dim_value dv;
        rlx_program* p = NULL;
        double t_first = 0, t_new[32], t_hit[8], t_rebuild[32], t0;
        int k, j, sym_ok;
        b.symbolic_seq = 1;
        g = tm_build_graph(&cfg, &b, &tr);
        memset(&cd, 0, sizeof cd);
        cd.device = RLX_DEVICE_CPU;
        cd.num_threads = 1;
        cd.dims = &dv;
        cd.num_dims = 1;
        dv.name = "seq";
        /* k = 0: the first compile (seq 1); 1..32: new lengths 2..33; 33..40: lengths 26..33 again, which the
           cache (RLX_DIM_CACHE = 8 entries) still holds */
        for (k = 0; g && k < 41; k++) {
            dv.value = k < 33 ? k + 1 : k - 7;
            t0 = now_s();
            if (rlx_compile(g, &cd, &p) != RLX_OK) {
                fprintf(stderr, "error: compile of the symbolic model for seq = %lld failed: %s\n", (long long)dv.value,
                        rlx_graph_error(g));
                failures++;
                break;
            }
            t0 = now_s() - t0;
            if (k == 0) t_first = t0;
            else if (k >= 33) t_hit[k - 33] = t0;
            else t_new[k - 1] = t0;
            rlx_program_destroy(p);
            p = NULL;
        }
        sym_ok = g && k == 41;
        for (k = 0; sym_ok && k < 32; k++) {   /* without dims: build the graph for the length, then compile it */
            tm_build bf = tm_build_default(k + 2);
            rlx_graph* gf;
            cd.dims = NULL;
            cd.num_dims = 0;
            t0 = now_s();
            gf = tm_build_graph(&cfg, &bf, &tr);
            if (!gf || rlx_compile(gf, &cd, &p) != RLX_OK) {
                fprintf(stderr, "error: the model for seq = %d failed: %s\n", k + 2, gf ? rlx_graph_error(gf) : "oom");
                failures++;
                rlx_graph_destroy(gf);
                break;
            }
            rlx_graph_destroy(gf);
            t_rebuild[k] = now_s() - t0;
            rlx_program_destroy(p);
            p = NULL;
        }
        if (sym_ok && k == 32) {
            for (k = 1; k < 32; k++)
                for (j = k; j > 0 && t_rebuild[j] < t_rebuild[j - 1]; j--) {
                    t0 = t_rebuild[j]; t_rebuild[j] = t_rebuild[j - 1]; t_rebuild[j - 1] = t0;
                }
            for (k = 1; k < 32; k++)   /* insertion sorts for the medians */
                for (j = k; j > 0 && t_new[j] < t_new[j - 1]; j--) { t0 = t_new[j]; t_new[j] = t_new[j - 1]; t_new[j - 1] = t0; }
            for (k = 1; k < 8; k++)
                for (j = k; j > 0 && t_hit[j] < t_hit[j - 1]; j--) { t0 = t_hit[j]; t_hit[j] = t_hit[j - 1]; t_hit[j - 1] = t0; }
            printf("\nsymbolic dims: examples/transformer.c's model (%d nodes, seq symbolic), CPU, 1 thread\n",
                   rlx_graph_node_count(g));
            printf("%-44s %10s %12s\n", "compile", "ms", "of first");
            printf("%-44s %10.3f %11.2fx\n", "first compile (seq = 1)", 1e3 * t_first, 1.0);
            printf("%-44s %10.3f %11.2fx\n", "decode program for a new length (median)", 1e3 * t_new[16],
                   t_new[16] / t_first);
            printf("%-44s %10.3f %11.2fx\n", "a length compiled before (cached, median)", 1e3 * t_hit[4], t_hit[4] / t_first);
            printf("%-44s %10.3f %11.2fx\n", "no dims: build + compile for a new length", 1e3 * t_rebuild[16],
                   t_rebuild[16] / t_first);
            printf("new length with dims vs. rebuilding without: %.2fx the time\n", t_new[16] / t_rebuild[16]);
        }
        rlx_graph_destroy(g);
    }
    if (failures) printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
