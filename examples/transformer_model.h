/* transformer_model.h - a small GPT-style decoder built with rlx.h (shared by examples/transformer.c,
   tests/test_decode.c and bench/transformer.c).

   Include rlx.h first. Every function here is static; the file has no state of its own.

   MODEL (tm_config)
       tokens (bytes) → embedding → n_layers × block → final rmsnorm → tied LM head (logits = h · embᵀ)
       block, pre-norm:   h += wo · attention(rope(wq·rmsnorm(h)), rope(wk·rmsnorm(h)), wv·rmsnorm(h))
                          h += w_down · (silu(w_gate·rmsnorm(h)) * (w_up·rmsnorm(h)))
       attention: grouped-query (n_heads query heads share n_kv_heads kv heads), causal, RoPE NeoX on all of
       head_dim. No biases. The LM head reads the embedding param itself: logits = emb · hᵀ ([V, d] · [d, 1]),
       which equals h · embᵀ without materialising rlx_transpose(emb) (a [V, d] copy on every run).

   INCREMENTAL DECODING
       A graph is built for a fixed number of tokens per run S (tm_build.seq): S = prompt length for prefill,
       S = 1 for decoding. Its inputs are
           "tokens"   i32 [1, S]  the token ids of this run
           "pos"      i32 scalar  the position of the first of them (= the number of tokens already cached)
           "counter"  i64 scalar  the sampler's step counter (advance it per generated token)
       Every layer keeps its keys and values in two states, "k_cache.<l>" and "v_cache.<l>", of shape
       [1, n_kv_heads, max_ctx, head_dim] (BHSD). A run writes the S new rows at `pos` (rlx_state_write along
       the sequence axis) and attends over the updated cache with causal = 1 and kv_len = pos + S, so query i
       sits at position pos + i. RoPE positions are pos + [0, S) computed in the graph. Keep pos + S <= max_ctx
       (rlx_run fails with RLX_ERROR_OUT_OF_RANGE otherwise, and the cache is not written). Outputs:
           "logits"      f32 [1, V]     logits of the last token of the run
           "next"        i64 [1]        argmax of "logits" (greedy decoding)
           "sample"      i64 [1]        rlx_sample of "logits" with tm_build.sample and "counter"
           "all_logits"  f32 [1, S, V]  only with tm_build.all_logits
       Prefill and decode programs are separate programs with separate states: after a prefill run copy the
       caches with tm_copy_caches (rlx_get_state → rlx_set_state).
       tm_build.blocks_only = 1 builds just the layers (input "x" [1, S, d], output "y"), for benchmarks.
       tm_build.symbolic_seq = 1 makes S the symbolic dim "seq" (rlx_dim, example value tm_build.seq): one graph
       serves every length, compiled per length with rlx_compile_desc.dims = {"seq", S}. Positions and kv_len
       then come from a vector of S ones (cumsum, sum) instead of constants of length S.

   PLAIN OR FUSED OPS
       By default the graph uses plain ops (matmul, add, rmsnorm, silu, mul), which the compiler's fusion pass
       turns into fused steps (RLX_COMPILE_NO_FUSION leaves them alone). tm_build.fused_ops = 1 builds the
       fused ops directly instead (rlx_linear, rlx_add_rmsnorm, rlx_swiglu).

   WEIGHTS
       tm_weights_init fills every parameter from a splitmix64 stream seeded by cfg.seed and the parameter's
       name, so the values do not depend on the order of initialisation: embeddings U(±0.2), norm gains
       1 + U(±0.1), projections U(±sqrt(3 / fan_in)) (variance 1 / fan_in) with the residual projections (wo,
       w_down) further scaled by 1 / sqrt(2 · n_layers).
*/
#ifndef TRANSFORMER_MODEL_H
#define TRANSFORMER_MODEL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#  define TM_FN static __attribute__((unused))
#else
#  define TM_FN static
#endif

typedef struct tm_config {
    int vocab;          /* V */
    int d_model;        /* d */
    int n_layers;
    int n_heads;        /* H query heads */
    int n_kv_heads;     /* Hkv key/value heads (divides H) */
    int head_dim;       /* D; n_heads · head_dim need not equal d_model */
    int ffn_hidden;     /* F: SwiGLU hidden size */
    int max_ctx;        /* cache length and RoPE table size */
    double rope_theta;
    float norm_eps;
    uint64_t seed;      /* weight seed */
} tm_config;

/* The example's model: bytes, d 128, 4 layers, 8 query heads / 2 kv heads of 16, SwiGLU 352, context 128. */
TM_FN tm_config tm_config_small(void) {
    tm_config c;
    c.vocab = 256; c.d_model = 128; c.n_layers = 4; c.n_heads = 8; c.n_kv_heads = 2; c.head_dim = 16;
    c.ffn_hidden = 352; c.max_ctx = 128; c.rope_theta = 10000.0; c.norm_eps = 1e-5f; c.seed = 0x5EED1234u;
    return c;
}

/* A tiny model for tests: d 64, 2 layers, 4 query heads / 2 kv heads of 16, SwiGLU 176, context 32. */
TM_FN tm_config tm_config_tiny(void) {
    tm_config c = tm_config_small();
    c.d_model = 64; c.n_layers = 2; c.n_heads = 4; c.n_kv_heads = 2; c.head_dim = 16; c.ffn_hidden = 176;
    c.max_ctx = 32; c.seed = 0x7E57u;
    return c;
}

/* ---- weights ------------------------------------------------------------------------------------------------ */

typedef struct tm_param {
    char name[32];
    int rank;
    int64_t shape[2];
    size_t count;
    float* data;
} tm_param;

typedef struct tm_weights {
    int n;
    tm_param* p;
} tm_weights;

static const char* const tm_layer_params[9] = {"attn_norm", "wq", "wk", "wv", "wo", "mlp_norm", "w_gate", "w_up",
                                               "w_down"};

TM_FN uint64_t tm_splitmix64(uint64_t* s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

TM_FN float tm_uniform(uint64_t* s, float a) { /* U(-a, a) */
    double u = (double)(tm_splitmix64(s) >> 11) * (1.0 / 9007199254740992.0);
    return (float)((2.0 * u - 1.0) * (double)a);
}

TM_FN uint64_t tm_name_hash(const char* s) { /* FNV-1a */
    uint64_t h = 0xCBF29CE484222325ull;
    while (*s) { h ^= (uint64_t)(unsigned char)*s++; h *= 0x100000001B3ull; }
    return h;
}

/* Shape of layer parameter `which` (an index into tm_layer_params). */
TM_FN int tm_layer_param_shape(const tm_config* c, int which, int64_t* shape) {
    int64_t d = c->d_model, q = (int64_t)c->n_heads * c->head_dim, kv = (int64_t)c->n_kv_heads * c->head_dim;
    int64_t f = c->ffn_hidden;
    switch (which) {
    case 0: case 5: shape[0] = d; return 1;
    case 1: shape[0] = d; shape[1] = q; return 2;
    case 2: case 3: shape[0] = d; shape[1] = kv; return 2;
    case 4: shape[0] = q; shape[1] = d; return 2;
    case 6: case 7: shape[0] = d; shape[1] = f; return 2;
    default: shape[0] = f; shape[1] = d; return 2;
    }
}

TM_FN void tm_weights_free(tm_weights* w) {
    int i;
    if (!w) return;
    for (i = 0; i < w->n; i++) free(w->p[i].data);
    free(w->p);
    w->p = NULL;
    w->n = 0;
}

/* Allocates and fills the weights. with_embedding = 0 leaves out "tok_emb" and "final_norm" (a bare stack of
   blocks, as used by the benchmark). Returns 0 on out of memory. */
TM_FN int tm_weights_init(const tm_config* c, int with_embedding, tm_weights* w) {
    int n = c->n_layers * 9 + (with_embedding ? 2 : 0), i, l, k;
    w->n = 0;
    w->p = (tm_param*)calloc((size_t)n, sizeof(tm_param));
    if (!w->p) return 0;
    for (i = 0; i < n; i++) {
        tm_param* p = &w->p[i];
        int kind; /* 0 embedding, 1 norm gain, 2 projection, 3 residual projection */
        size_t j;
        uint64_t s;
        float a = 0.0f;
        if (with_embedding && i == 0) {
            strcpy(p->name, "tok_emb");
            p->rank = 2; p->shape[0] = c->vocab; p->shape[1] = c->d_model;
            kind = 0;
        } else if (with_embedding && i == n - 1) {
            strcpy(p->name, "final_norm");
            p->rank = 1; p->shape[0] = c->d_model;
            kind = 1;
        } else {
            int idx = i - (with_embedding ? 1 : 0);
            l = idx / 9; k = idx % 9;
            snprintf(p->name, sizeof p->name, "l%d.%s", l, tm_layer_params[k]);
            p->rank = tm_layer_param_shape(c, k, p->shape);
            kind = (k == 0 || k == 5) ? 1 : (k == 4 || k == 8) ? 3 : 2;
        }
        p->count = (size_t)p->shape[0] * (size_t)(p->rank == 2 ? p->shape[1] : 1);
        p->data = (float*)malloc(p->count * sizeof(float));
        w->n = i + 1;
        if (!p->data) { tm_weights_free(w); return 0; }
        s = c->seed ^ tm_name_hash(p->name);
        if (kind == 0) a = 0.2f;
        if (kind == 1) a = 0.1f;
        if (kind >= 2) a = (float)sqrt(3.0 / (double)p->shape[0]);
        if (kind == 3) a *= (float)(1.0 / sqrt(2.0 * (double)c->n_layers));
        for (j = 0; j < p->count; j++) p->data[j] = (kind == 1 ? 1.0f : 0.0f) + tm_uniform(&s, a);
    }
    return 1;
}

/* Sets every weight on p. On failure returns the error (rlx_program_error(p) says which). */
TM_FN rlx_result tm_set_params(rlx_program* p, const tm_weights* w) {
    int i;
    for (i = 0; i < w->n; i++) {
        rlx_result r = rlx_set_param_f32(p, w->p[i].name, w->p[i].data, w->p[i].count);
        if (r != RLX_OK) return r;
    }
    return RLX_OK;
}

/* ---- graph -------------------------------------------------------------------------------------------------- */

typedef struct tm_build {
    int seq;                 /* S: tokens per run (>= 1)                                       */
    int fused_ops;           /* 1: build rlx_linear / rlx_add_rmsnorm / rlx_swiglu directly     */
    int all_logits;          /* 1: also output "all_logits" [1, S, V]                           */
    int blocks_only;         /* 1: only the layers: input "x" f32 [1, S, d], output "y" [1, S, d]
                                (no embedding, final norm or head; inputs "pos" and "x" only)   */
    rlx_sample_desc sample;  /* settings of the "sample" output                                 */
    int symbolic_seq;        /* 1: S is the symbolic dim "seq" (example value `seq`): one graph
                                for every length, compiled per length through
                                rlx_compile_desc.dims (see rlx_dim)                             */
} tm_build;

TM_FN tm_build tm_build_default(int seq) {
    tm_build b;
    memset(&b, 0, sizeof b);
    b.seq = seq;
    b.sample.temperature = 0.8f;
    b.sample.top_k = 40;
    b.sample.top_p = 0.95f;
    b.sample.seed = 42;
    return b;
}

/* What every layer shares within one graph. */
typedef struct tm_ctx {
    const tm_config* c;
    int64_t S;             /* tokens per run, or the token of the dim "seq" */
    int fused;
    rlx_tensor pos;        /* i32 scalar input            */
    rlx_tensor kv_len;     /* pos + S                     */
    rlx_tensor positions;  /* pos + [0, S), i32 [S]       */
    rlx_tensor cos, sin;   /* RoPE tables [max_ctx, D/2]  */
} tm_ctx;

TM_FN rlx_tensor tm_none(void) {
    rlx_tensor t;
    t.id = 0;
    return t;
}

TM_FN rlx_tensor tm_param2(rlx_graph* g, const char* name, int64_t a, int64_t b) {
    int64_t s[2];
    s[0] = a; s[1] = b;
    return rlx_param(g, name, RLX_F32, b ? 2 : 1, s);
}

TM_FN rlx_tensor tm_layer_param(rlx_graph* g, const tm_config* c, int layer, int which) {
    char name[32];
    int64_t s[2];
    int rank = tm_layer_param_shape(c, which, s);
    snprintf(name, sizeof name, "l%d.%s", layer, tm_layer_params[which]);
    return rlx_param(g, name, RLX_F32, rank, s);
}

/* x [1, S, K] · w [K, N] → [1, S, N] */
TM_FN rlx_tensor tm_proj(rlx_graph* g, const tm_ctx* t, rlx_tensor x, rlx_tensor w) {
    return t->fused ? rlx_linear(g, x, w, tm_none(), RLX_ACT_NONE) : rlx_matmul(g, x, w);
}

/* rmsnorm(h + delta) · gamma; *sum receives h + delta (h itself when delta is the zero handle). */
TM_FN rlx_tensor tm_add_norm(rlx_graph* g, const tm_ctx* t, rlx_tensor h, rlx_tensor delta, rlx_tensor gamma,
                             rlx_tensor* sum) {
    if (!delta.id) {
        *sum = h;
        return rlx_rmsnorm(g, h, gamma, tm_none(), t->c->norm_eps);
    }
    if (t->fused) return rlx_add_rmsnorm(g, delta, h, gamma, tm_none(), t->c->norm_eps, sum);
    *sum = rlx_add(g, h, delta);
    return rlx_rmsnorm(g, *sum, gamma, tm_none(), t->c->norm_eps);
}

/* Sets up the per-graph inputs and constants (pos, kv_len, positions, RoPE tables). Returns rlx_rope_tables'
   result (or RLX_ERROR_OUT_OF_MEMORY); on failure nothing is added to the graph. */
TM_FN rlx_result tm_ctx_init(rlx_graph* g, const tm_config* c, int64_t S, int fused, tm_ctx* t) {
    int half = c->head_dim / 2, i;
    int64_t ts[2], ps[1];
    float *cs = (float*)malloc(sizeof(float) * (size_t)c->max_ctx * (size_t)half);
    float *sn = (float*)malloc(sizeof(float) * (size_t)c->max_ctx * (size_t)half);
    int32_t* iota = (int32_t*)malloc(sizeof(int32_t) * (size_t)(S > 0 ? S : 1));
    rlx_result r = RLX_ERROR_OUT_OF_MEMORY;
    memset(t, 0, sizeof *t);
    t->c = c; t->S = S; t->fused = fused;
    if (cs && sn && iota) r = rlx_rope_tables(cs, sn, c->max_ctx, c->head_dim, c->rope_theta);
    if (r == RLX_OK) {
        for (i = 0; i < S; i++) iota[i] = i;
        ts[0] = c->max_ctx; ts[1] = half; ps[0] = S;
        t->pos = rlx_input(g, "pos", RLX_I32, 0, NULL);
        if (S > 0) {
            t->kv_len = rlx_add(g, t->pos, rlx_scalar(g, RLX_I32, (double)S));
            t->positions = rlx_add(g, t->pos, rlx_constant(g, RLX_I32, 1, ps, iota));
        } else {   /* symbolic S: [0, S) and S from a vector of S ones */
            rlx_tensor ones = rlx_expand(g, rlx_scalar(g, RLX_I32, 1.0), 1, ps);
            t->kv_len = rlx_add(g, t->pos, rlx_cast(g, rlx_reduce_sum(g, ones, 0, NULL, 0), RLX_I32));
            t->positions = rlx_add(g, t->pos, rlx_cast(g, rlx_cumsum(g, ones, 0, 1, 0), RLX_I32));
        }
        t->cos = rlx_constant(g, RLX_F32, 2, ts, cs);
        t->sin = rlx_constant(g, RLX_F32, 2, ts, sn);
    }
    free(cs); free(sn); free(iota);
    return r;
}

/* [1, S, n·D] → [1, n, S, D] */
TM_FN rlx_tensor tm_to_heads(rlx_graph* g, const tm_ctx* t, rlx_tensor x, int n) {
    int64_t s[4];
    int perm[4];
    s[0] = 1; s[1] = t->S; s[2] = n; s[3] = t->c->head_dim;
    perm[0] = 0; perm[1] = 2; perm[2] = 1; perm[3] = 3;
    return rlx_transpose(g, rlx_reshape(g, x, 4, s), perm);
}

/* One decoder layer. The residual stream is *h + *delta (*delta may be the zero handle: nothing pending);
   on return it is again *h + *delta, with the MLP output left pending so that the next norm can fuse the add. */
TM_FN void tm_layer(rlx_graph* g, const tm_ctx* t, int layer, rlx_tensor* h, rlx_tensor* delta) {
    const tm_config* c = t->c;
    rlx_tensor x, q, k, v, kc, vc, a, sum, gate, up, m;
    rlx_rope_desc rd;
    rlx_attention_desc ad;
    int64_t cs[4], os[3];
    int perm[4];
    char name[32];

    /* attention */
    x = tm_add_norm(g, t, *h, *delta, tm_layer_param(g, c, layer, 0), &sum);
    q = tm_proj(g, t, x, tm_layer_param(g, c, layer, 1));   /* [1, S, H·D]   */
    k = tm_proj(g, t, x, tm_layer_param(g, c, layer, 2));   /* [1, S, Hkv·D] */
    v = tm_proj(g, t, x, tm_layer_param(g, c, layer, 3));
    memset(&rd, 0, sizeof rd);
    rd.kind = RLX_ROPE_NEOX;
    rd.layout = RLX_LAYOUT_BSHD;
    rd.positions = t->positions;
    rd.num_heads = c->n_heads;
    q = rlx_rope(g, q, t->cos, t->sin, &rd);
    rd.num_heads = c->n_kv_heads;
    k = rlx_rope(g, k, t->cos, t->sin, &rd);
    q = tm_to_heads(g, t, q, c->n_heads);                   /* [1, H, S, D]   */
    k = tm_to_heads(g, t, k, c->n_kv_heads);                /* [1, Hkv, S, D] */
    v = tm_to_heads(g, t, v, c->n_kv_heads);
    cs[0] = 1; cs[1] = c->n_kv_heads; cs[2] = c->max_ctx; cs[3] = c->head_dim;
    snprintf(name, sizeof name, "k_cache.%d", layer);
    kc = rlx_state_write(g, rlx_state(g, name, RLX_F32, 4, cs), k, 2, t->pos);
    snprintf(name, sizeof name, "v_cache.%d", layer);
    vc = rlx_state_write(g, rlx_state(g, name, RLX_F32, 4, cs), v, 2, t->pos);
    memset(&ad, 0, sizeof ad);
    ad.layout = RLX_LAYOUT_BHSD;
    ad.causal = 1;
    ad.kv_len = t->kv_len;
    a = rlx_attention(g, q, kc, vc, &ad);                   /* [1, H, S, D]   */
    perm[0] = 0; perm[1] = 2; perm[2] = 1; perm[3] = 3;
    os[0] = 1; os[1] = t->S; os[2] = (int64_t)c->n_heads * c->head_dim;
    a = rlx_reshape(g, rlx_transpose(g, a, perm), 3, os);   /* [1, S, H·D]    */
    a = tm_proj(g, t, a, tm_layer_param(g, c, layer, 4));   /* [1, S, d]      */

    /* MLP */
    x = tm_add_norm(g, t, sum, a, tm_layer_param(g, c, layer, 5), h);
    gate = tm_proj(g, t, x, tm_layer_param(g, c, layer, 6));
    up = tm_proj(g, t, x, tm_layer_param(g, c, layer, 7));
    m = t->fused ? rlx_swiglu(g, gate, up) : rlx_mul(g, rlx_silu(g, gate), up);
    *delta = tm_proj(g, t, m, tm_layer_param(g, c, layer, 8));
}

/* The decoder (or with b->blocks_only just its layers) for b->seq tokens per run. Returns NULL only on out of
   memory; otherwise check rlx_graph_status (or let rlx_compile report a builder error). *tables_result
   receives rlx_rope_tables' result (the graph is left without outputs when it fails). */
TM_FN rlx_graph* tm_build_graph(const tm_config* c, const tm_build* b, rlx_result* tables_result) {
    rlx_graph* g = rlx_graph_create(NULL);
    tm_ctx t;
    rlx_tensor tokens, emb, h, delta, hn, last, logits;
    int64_t s[3], S = b->seq;
    int l;
    rlx_result r;
    if (!g) return NULL;
    if (b->symbolic_seq) S = rlx_dim(g, "seq", b->seq);
    r = tm_ctx_init(g, c, S, b->fused_ops, &t);
    if (tables_result) *tables_result = r;
    if (r != RLX_OK) return g;
    delta = tm_none();
    if (b->blocks_only) {
        s[0] = 1; s[1] = S; s[2] = c->d_model;
        h = rlx_input(g, "x", RLX_F32, 3, s);
        for (l = 0; l < c->n_layers; l++) tm_layer(g, &t, l, &h, &delta);
        rlx_output(g, "y", delta.id ? rlx_add(g, h, delta) : h);
        return g;
    }
    s[0] = 1; s[1] = S;
    tokens = rlx_input(g, "tokens", RLX_I32, 2, s);
    emb = tm_param2(g, "tok_emb", c->vocab, c->d_model);
    h = rlx_gather(g, emb, tokens, 0);                      /* [1, S, d] */
    for (l = 0; l < c->n_layers; l++) tm_layer(g, &t, l, &h, &delta);
    hn = tm_add_norm(g, &t, h, delta, tm_param2(g, "final_norm", c->d_model, 0), &h);
    /* Tied LM head: logits = last · embᵀ, computed as emb · lastᵀ ([V, d] · [d, 1]) so that the embedding is
       read in place; rlx_transpose(emb) would copy the whole [V, d] table on every run. */
    s[0] = c->d_model; s[1] = 1;
    last = rlx_reshape(g, rlx_narrow(g, hn, 1, b->symbolic_seq ? -1 : S - 1, 1), 2, s);
    s[0] = 1; s[1] = c->vocab;
    logits = rlx_reshape(g, rlx_matmul(g, emb, last), 2, s);
    rlx_output(g, "logits", logits);
    rlx_output(g, "next", rlx_argmax(g, logits, -1, 0));
    rlx_output(g, "sample", rlx_sample(g, logits, rlx_input(g, "counter", RLX_I64, 0, NULL), &b->sample));
    if (b->all_logits) rlx_output(g, "all_logits", rlx_matmul(g, hn, rlx_transpose(g, emb, NULL)));
    return g;
}

/* Builds the graph, compiles it with num_threads (0 = one per core) and flags, and destroys the graph. On
   failure *out is NULL and err holds the message (rlx_graph_error's text). */
/* Device the tm_compile programs ask for (AUTO by default: the best available, falling back to the CPU). */
static rlx_device tm_device = RLX_DEVICE_AUTO;

TM_FN rlx_result tm_compile(const tm_config* c, const tm_build* b, int num_threads, uint32_t flags, rlx_program** out,
                            char* err, size_t errcap) {
    rlx_result tr = RLX_OK, r;
    rlx_graph* g = tm_build_graph(c, b, &tr);
    rlx_compile_desc cd;
    *out = NULL;
    if (errcap) err[0] = '\0';
    if (!g) { snprintf(err, errcap, "out of memory"); return RLX_ERROR_OUT_OF_MEMORY; }
    if (tr != RLX_OK) {
        snprintf(err, errcap, "rlx_rope_tables: %s", rlx_result_string(tr));
        rlx_graph_destroy(g);
        return tr;
    }
    memset(&cd, 0, sizeof cd);
    cd.num_threads = num_threads;
    cd.flags = flags;
    cd.device = tm_device;
    r = rlx_compile(g, &cd, out);
    if (r != RLX_OK) snprintf(err, errcap, "%s", rlx_graph_error(g));
    rlx_graph_destroy(g);
    return r;
}

/* Sets "tokens" (n = the program's S ids), "pos" and "counter" of a full-model program, then runs it. */
TM_FN rlx_result tm_run(rlx_program* p, const int32_t* tokens, int n, int32_t pos, int64_t counter) {
    rlx_result r = rlx_set_input_i32(p, "tokens", tokens, (size_t)n);
    if (r == RLX_OK) r = rlx_set_input_i32(p, "pos", &pos, 1);
    if (r == RLX_OK) r = rlx_set_input_i64(p, "counter", &counter, 1);
    if (r == RLX_OK) r = rlx_run(p);
    return r;
}

/* Floats in one cache state. */
TM_FN size_t tm_cache_count(const tm_config* c) {
    return (size_t)c->n_kv_heads * (size_t)c->max_ctx * (size_t)c->head_dim;
}

/* Copies every k/v cache state from src to dst. On failure *failed is the program whose error to print. */
TM_FN rlx_result tm_copy_caches(rlx_program* dst, rlx_program* src, const tm_config* c, rlx_program** failed) {
    size_t n = tm_cache_count(c);
    float* buf = (float*)malloc(n * sizeof(float));
    rlx_result r = RLX_OK;
    int l, kv;
    char name[32];
    *failed = NULL;
    if (!buf) return RLX_ERROR_OUT_OF_MEMORY;
    for (l = 0; l < c->n_layers && r == RLX_OK; l++)
        for (kv = 0; kv < 2 && r == RLX_OK; kv++) {
            snprintf(name, sizeof name, "%s_cache.%d", kv ? "v" : "k", l);
            r = rlx_get_state(src, name, RLX_F32, buf, n * sizeof(float));
            if (r != RLX_OK) { *failed = src; break; }
            r = rlx_set_state(dst, name, RLX_F32, buf, n * sizeof(float));
            if (r != RLX_OK) *failed = dst;
        }
    free(buf);
    return r;
}

/* Zeroes every cache state of p. */
TM_FN rlx_result tm_clear_caches(rlx_program* p, const tm_config* c) {
    size_t n = tm_cache_count(c);
    float* buf = (float*)calloc(n, sizeof(float));
    rlx_result r = RLX_OK;
    int l, kv;
    char name[32];
    if (!buf) return RLX_ERROR_OUT_OF_MEMORY;
    for (l = 0; l < c->n_layers && r == RLX_OK; l++)
        for (kv = 0; kv < 2 && r == RLX_OK; kv++) {
            snprintf(name, sizeof name, "%s_cache.%d", kv ? "v" : "k", l);
            r = rlx_set_state(p, name, RLX_F32, buf, n * sizeof(float));
        }
    free(buf);
    return r;
}

#endif /* TRANSFORMER_MODEL_H */
