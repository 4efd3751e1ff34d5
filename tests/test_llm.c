/* Language-model builder (>>llm): tiny random-weight models written as GGUF, run by rlx_llm and, as the oracle,
   by llama.cpp's own libllama. Architectures: llama (f32, tied f32, f16, q8_0, q4_0, q4_K, q6_K; q8_0 and q4_K
   also decode-only), qwen2, qwen3, gemma2, gemma3 (6 layers: 5 sliding-window layers with local rope, one
   global layer with rope base 1e6 and linear rope scaling), phi3 (fused qkv and gate/up).
   Models: 2 layers, d 256, 8 query heads / 2 kv heads of 32 (GQA), SwiGLU 512, a synthetic 320-token vocabulary
   with valid tokenizer.ggml.* metadata (model "llama": <unk>, <s>, </s>, 256 byte tokens, words), written with
   rlx's GGUF writer; weights are uniform random (never zero), quantized with rlx's quantizers (which equal
   ggml's reference quantizers byte for byte, tests/test_quant.c), scaled so logits are O(1..10).
   Oracle: libllama.v0.4.0.so from the npm package @node-llama-cpp/linux-x64@3.21.1 (tests/fetch_npm.sh;
   RLX_GGML_DIR names another bins/linux-x64 folder), opened with dlopen; its CPU backend is loaded with
   ggml_backend_load_all_from_path. llama.h is not shipped: the few functions are declared here, and the two
   parameter structs are reached through byte offsets that are checked against the documented defaults the
   library returns (llama_context_default_params); a mismatch skips the oracle cases with the reason. One
   thread, n_ctx 128, f32 KV cache, flash attention off. Per model: a 64-token prompt, then 32 greedy steps
   that take llama.cpp's greedy token as the next input for both; after the prompt and after every step the
   last-position logits are compared: f32/f16 models max|Δ| <= 1e-3 · max|logit|, quantized models (q8_0, q4_0,
   q4_K, q6_K) cosine >= 0.999 and the same greedy token, except where llama.cpp's own margin between its token
   and rlx's is within twice the step's max|Δ| (a near tie decided by the activation rounding, which differs:
   llama.cpp rounds every activation to 8 bits, rlx's prefill keeps f32; counted and printed).
   Without the oracle: cached decode against full recomputation for every architecture, and bad input.
   RLX_TEST_LLM_DEVICE=cuda|vulkan|hip runs rlx's side of those parts on that GPU (llama.cpp stays on the CPU). */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#include <stdbool.h>
#include <stdlib.h>
#if !defined(_WIN32)
#  include <dlfcn.h>
#  include <unistd.h>
#endif

#define V 320
#define D 256
#define NH 8
#define NKV 2
#define HD 32
#define FF 512
#define NL 2
#define PROMPT 64
#define STEPS 32

/* ggml type ids */
enum { GT_F32 = 0, GT_F16 = 1, GT_Q4_0 = 2, GT_Q8_0 = 8, GT_Q4_K = 12, GT_Q6_K = 14 };

static rlx_dtype gt_dtype(int t) {
    switch (t) {
    case GT_F32: return RLX_F32;
    case GT_F16: return RLX_F16;
    case GT_Q4_0: return RLX_Q4_0;
    case GT_Q8_0: return RLX_Q8_0;
    case GT_Q4_K: return RLX_Q4_K;
    default: return RLX_Q6_K;
    }
}

static const char* tmp_path(const char* name) {
    static char buf[4][256];
    static int k;
    k = (k + 1) & 3;
    snprintf(buf[k], sizeof buf[k], "build/test_llm_%s.gguf", name);
    return buf[k];
}

/* ---- model files ---- */
typedef struct model_spec {
    const char* arch;        /* general.architecture */
    int wtype;               /* ggml type of the projection matrices (and output.weight) */
    int etype;               /* ggml type of token_embd.weight */
    int tied;                /* no output.weight */
    const char* omit;        /* a tensor to leave out */
    const char* misshape;    /* a tensor written with one row too many */
    const char* rope_scaling;/* rope.scaling.type, or NULL */
    int omit_block_count;
    uint64_t seed;
    int n_layers;            /* 0 = NL */
    double freq_base;        /* 0 = 10000 */
} model_spec;

/* f32 values → the bytes of ggml type t (rlx's cast; q*: ggml's reference quantizers). */
static void* encode(const float* x, int64_t rows, int64_t cols, int t, size_t* bytes) {
    int64_t s[2];
    rlx_graph* g;
    rlx_program* p = NULL;
    rlx_dtype dt = gt_dtype(t);
    void* out;
    s[0] = rows; s[1] = cols;
    if (rlx_tensor_bytes(dt, 2, s, bytes) != RLX_OK) return NULL;
    out = malloc(*bytes);
    if (!out) return NULL;
    if (dt == RLX_F32) { memcpy(out, x, *bytes); return out; }
    g = rlx_graph_create(NULL);
    rlx_output(g, "y", rlx_cast(g, rlx_input(g, "x", RLX_F32, 2, s), dt));
    if (rlx_compile(g, NULL, &p) != RLX_OK || rlx_set_input_f32(p, "x", x, (size_t)(rows * cols)) != RLX_OK ||
        rlx_run(p) != RLX_OK || rlx_get_output(p, "y", dt, out, *bytes) != RLX_OK) {
        printf("encode: %s %s\n", rlx_graph_error(g), p ? rlx_program_error(p) : "");
        free(out);
        out = NULL;
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    return out;
}

typedef struct wbufs { void* p[256]; int n; } wbufs;

/* A tensor of rows × cols (cols 0: a vector of rows) filled with base + U(±a). */
static int add_tensor(rlx_gguf_writer* w, wbufs* keep, const model_spec* ms, const char* name, int64_t rows,
                      int64_t cols, int t, double base, double a) {
    int64_t s[2], r = rows, c = cols ? cols : rows, i;
    float* x;
    void* data;
    size_t bytes;
    if (ms->omit && strcmp(ms->omit, name) == 0) return 1;
    if (ms->misshape && strcmp(ms->misshape, name) == 0) r += cols ? 1 : 0, c += cols ? 0 : 1;
    if (!cols) r = 1;
    x = (float*)malloc(sizeof(float) * (size_t)(r * c));
    if (!x) return 0;
    for (i = 0; i < r * c; i++) x[i] = (float)(base + th_uniform(-a, a));
    data = encode(x, r, c, cols ? t : GT_F32, &bytes);
    free(x);
    if (!data || keep->n >= 256) { free(data); return 0; }
    keep->p[keep->n++] = data;
    s[0] = r; s[1] = c;
    return rlx_gguf_writer_tensor(w, name, (uint32_t)(cols ? t : GT_F32), cols ? 2 : 1, cols ? s : s + 1, data, bytes) == RLX_OK;
}

static rlx_result wstr(rlx_gguf_writer* w, const char* key, const char* v) { return rlx_gguf_writer_string(w, key, v, strlen(v)); }

static int write_model(const model_spec* ms, const char* path) {
    rlx_gguf_writer* w = NULL;
    wbufs keep;
    char key[96], name[96];
    const char* toks[V];
    char tokbuf[V][16];
    float scores[V];
    int32_t types[V];
    uint32_t u;
    float f;
    int i, l, ok = 1;
    int nl = ms->n_layers ? ms->n_layers : NL;
    double proj = sqrt(3.0 / D), projf = sqrt(3.0 / FF), resid = 1.0 / sqrt(2.0 * nl);
    int qwen2 = strcmp(ms->arch, "qwen2") == 0, qwen3 = strcmp(ms->arch, "qwen3") == 0;
    int gemma2 = strcmp(ms->arch, "gemma2") == 0, phi3 = strcmp(ms->arch, "phi3") == 0;
    int gemma3 = strcmp(ms->arch, "gemma3") == 0;
    keep.n = 0;
    th_seed(ms->seed);
    if (rlx_gguf_writer_create(NULL, &w) != RLX_OK) return 0;
    ok &= wstr(w, "general.architecture", ms->arch) == RLX_OK;
    ok &= wstr(w, "general.name", "rlx-test-tiny") == RLX_OK;
#define KVU(k_, v_) do { snprintf(key, sizeof key, "%s.%s", ms->arch, k_); u = (uint32_t)(v_); ok &= rlx_gguf_writer_kv(w, key, RLX_GGUF_U32, &u) == RLX_OK; } while (0)
#define KVF(k_, v_) do { snprintf(key, sizeof key, "%s.%s", ms->arch, k_); f = (float)(v_); ok &= rlx_gguf_writer_kv(w, key, RLX_GGUF_F32, &f) == RLX_OK; } while (0)
    KVU("context_length", 256);
    KVU("embedding_length", D);
    if (!ms->omit_block_count) KVU("block_count", nl);
    KVU("feed_forward_length", FF);
    KVU("attention.head_count", NH);
    KVU("attention.head_count_kv", NKV);
    KVU("rope.dimension_count", HD);
    KVF("attention.layer_norm_rms_epsilon", 1e-5);
    KVF("rope.freq_base", ms->freq_base > 0 ? ms->freq_base : 10000.0);
    if (gemma3) KVU("attention.sliding_window", 16);
    if (gemma2) {   /* a window shorter than the prompt; caps small enough to bend the values */
        KVU("attention.sliding_window", 16);
        KVF("attn_logit_softcapping", 3.0);
        KVF("final_logit_softcapping", 15.0);
    }
    if (ms->rope_scaling) {
        snprintf(key, sizeof key, "%s.rope.scaling.type", ms->arch);
        ok &= wstr(w, key, ms->rope_scaling) == RLX_OK;
        KVF("rope.scaling.factor", 4.0);
    }
#undef KVU
#undef KVF
    /* tokenizer: <unk> <s> </s>, 256 byte tokens, words */
    for (i = 0; i < V; i++) {
        if (i == 0) strcpy(tokbuf[i], "<unk>");
        else if (i == 1) strcpy(tokbuf[i], "<s>");
        else if (i == 2) strcpy(tokbuf[i], "</s>");
        else if (i < 259) snprintf(tokbuf[i], sizeof tokbuf[i], "<0x%02X>", i - 3);
        else snprintf(tokbuf[i], sizeof tokbuf[i], "\xe2\x96\x81w%d", i - 259);
        toks[i] = tokbuf[i];
        scores[i] = i < 259 ? 0.0f : -(float)(i - 259);
        types[i] = i == 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1;
    }
    ok &= wstr(w, "tokenizer.ggml.model", "llama") == RLX_OK;
    ok &= rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, toks, V) == RLX_OK;
    ok &= rlx_gguf_writer_array(w, "tokenizer.ggml.scores", RLX_GGUF_F32, scores, V) == RLX_OK;
    ok &= rlx_gguf_writer_array(w, "tokenizer.ggml.token_type", RLX_GGUF_I32, types, V) == RLX_OK;
    u = 1; ok &= rlx_gguf_writer_kv(w, "tokenizer.ggml.bos_token_id", RLX_GGUF_U32, &u) == RLX_OK;
    u = 2; ok &= rlx_gguf_writer_kv(w, "tokenizer.ggml.eos_token_id", RLX_GGUF_U32, &u) == RLX_OK;
    u = 0; ok &= rlx_gguf_writer_kv(w, "tokenizer.ggml.unknown_token_id", RLX_GGUF_U32, &u) == RLX_OK;

    ok &= add_tensor(w, &keep, ms, "token_embd.weight", V, D, ms->etype, 0.0, 3.0 * sqrt(3.0 / D));
    ok &= add_tensor(w, &keep, ms, "output_norm.weight", D, 0, GT_F32, 1.0, 0.1);
    if (!ms->tied) ok &= add_tensor(w, &keep, ms, "output.weight", V, D, ms->wtype, 0.0, 3.0 * sqrt(3.0 / D));
    for (l = 0; l < nl && ok; l++) {
#define T(what, r_, c_, base_, a_) do { snprintf(name, sizeof name, "blk.%d.%s", l, what); ok &= add_tensor(w, &keep, ms, name, r_, c_, ms->wtype, base_, a_); } while (0)
        T("attn_norm.weight", D, 0, 1.0, 0.1);
        if (phi3) T("attn_qkv.weight", (NH + 2 * NKV) * HD, D, 0.0, proj);   /* rows [q; k; v] */
        else {
            T("attn_q.weight", NH * HD, D, 0.0, proj);
            T("attn_k.weight", NKV * HD, D, 0.0, proj);
            T("attn_v.weight", NKV * HD, D, 0.0, proj);
        }
        T("attn_output.weight", D, NH * HD, 0.0, proj * resid);
        if (qwen2) {
            T("attn_q.bias", NH * HD, 0, 0.0, 0.3);
            T("attn_k.bias", NKV * HD, 0, 0.0, 0.3);
            T("attn_v.bias", NKV * HD, 0, 0.0, 0.3);
        }
        if (qwen3 || gemma3) {
            T("attn_q_norm.weight", HD, 0, 1.0, 0.1);
            T("attn_k_norm.weight", HD, 0, 1.0, 0.1);
        }
        if (gemma2 || gemma3) T("post_attention_norm.weight", D, 0, 1.0, 0.1);
        T("ffn_norm.weight", D, 0, 1.0, 0.1);
        if (phi3) T("ffn_up.weight", 2 * FF, D, 0.0, proj);                  /* rows [gate; up] */
        else {
            T("ffn_gate.weight", FF, D, 0.0, proj);
            T("ffn_up.weight", FF, D, 0.0, proj);
        }
        T("ffn_down.weight", D, FF, 0.0, projf * resid);
        if (gemma2 || gemma3) T("post_ffw_norm.weight", D, 0, 1.0, 0.1);
#undef T
    }
    if (ok) ok = rlx_gguf_writer_write_file(w, path) == RLX_OK;
    if (!ok) printf("write_model %s: %s\n", path, rlx_gguf_writer_error(w));
    rlx_gguf_writer_destroy(w);
    for (i = 0; i < keep.n; i++) free(keep.p[i]);
    return ok;
}

static model_spec spec(const char* arch, int wtype, int etype, int tied, uint64_t seed) {
    model_spec m;
    memset(&m, 0, sizeof m);
    m.arch = arch; m.wtype = wtype; m.etype = etype; m.tied = tied; m.seed = seed;
    if (strcmp(arch, "gemma3") == 0) {   /* layers 0-4 slide (local rope, base 10000), layer 5 is global:
                                            base 1e6 with linear rope scaling (factor 4) */
        m.n_layers = 6;
        m.freq_base = 1e6;
        m.rope_scaling = "linear";
    }
    return m;
}

/* The device of rlx's side in the oracle, recompute and bad-input parts: RLX_TEST_LLM_DEVICE=cuda|vulkan|hip
   (default the CPU; llama.cpp, the oracle, stays on the CPU). */
static rlx_device g_llm_dev = RLX_DEVICE_CPU;

/* Opens path and loads it; returns NULL (with *rc and msg) on failure. */
static rlx_llm* load(const char* path, int n_ctx, int n_batch, rlx_dtype kv, rlx_result* rc, char* msg, size_t cap) {
    rlx_gguf* gf = NULL;
    rlx_llm* m = NULL;
    rlx_llm_desc d;
    memset(&d, 0, sizeof d);
    d.device = g_llm_dev;
    d.n_ctx = n_ctx; d.n_batch = n_batch; d.kv_dtype = kv; d.num_threads = 2;
    d.error = msg; d.error_cap = cap;
    msg[0] = 0;
    *rc = rlx_gguf_open_file(path, NULL, &gf);
    if (*rc != RLX_OK) { snprintf(msg, cap, "open: %.200s", rlx_file_error()); return NULL; }
    *rc = rlx_llm_load_gguf(gf, &d, &m);
    rlx_gguf_close(gf);
    return m;
}

static int argmax_f(const float* x, int n) {
    int i, b = 0;
    for (i = 1; i < n; i++) if (x[i] > x[b]) b = i;
    return b;
}
static double max_abs(const float* x, int n) {
    double m = 0; int i;
    for (i = 0; i < n; i++) if (fabs((double)x[i]) > m) m = fabs((double)x[i]);
    return m;
}
static double max_diff(const float* a, const float* b, int n) {
    double m = 0; int i;
    for (i = 0; i < n; i++) { double d = fabs((double)a[i] - (double)b[i]); if (!(d <= m)) m = d; }
    return m;
}
static double cosine(const float* a, const float* b, int n) {
    double ab = 0, aa = 0, bb = 0; int i;
    for (i = 0; i < n; i++) { ab += (double)a[i] * b[i]; aa += (double)a[i] * a[i]; bb += (double)b[i] * b[i]; }
    return ab / sqrt(aa * bb + 1e-300);
}

/* ---- libllama (the oracle) ---- */
#include "llama_ffi.h"

/* llama.cpp on the model: logits after the prompt and after each of STEPS greedy tokens (which it picks:
   toks[s] = argmax(ref[s])); ref holds (STEPS + 1) × V floats. 0 + g_skip-style message on failure. */
static int llama_run(const llama_api* L, const char* path, const int32_t* prompt, float* ref, int32_t* toks,
                     char* why, size_t cap) {
    lparams mp = L->model_default_params(), cp = L->context_default_params();
    void *model, *ctx;
    int s;
    llama_batch_ b;
    int32_t tok;
    int32_t ptoks[PROMPT];
    model = L->model_load(path, mp);
    if (!model) { snprintf(why, cap, "llama_model_load_from_file(%s) failed", path); return 0; }
    if (L->vocab_n_tokens(L->model_get_vocab(model)) != V) {
        snprintf(why, cap, "libllama sees %d tokens, not %d", L->vocab_n_tokens(L->model_get_vocab(model)), V);
        L->model_free(model);
        return 0;
    }
    wr_i32(&cp, CP_N_CTX, 128); wr_i32(&cp, CP_N_BATCH, 128); wr_i32(&cp, CP_N_UBATCH, 128);
    wr_i32(&cp, CP_N_THREADS, 1); wr_i32(&cp, CP_N_THREADS_BATCH, 1);
    wr_i32(&cp, CP_FLASH_ATTN, 0);
    wr_i32(&cp, CP_TYPE_K, GT_F32); wr_i32(&cp, CP_TYPE_V, GT_F32);
    ctx = L->init_from_model(model, cp);
    if (!ctx) { snprintf(why, cap, "llama_init_from_model failed"); L->model_free(model); return 0; }
    memcpy(ptoks, prompt, sizeof ptoks);
    b = L->batch_get_one(ptoks, PROMPT);
    if (L->decode(ctx, b) != 0) { snprintf(why, cap, "llama_decode (prompt) failed"); goto fail; }
    memcpy(ref, L->get_logits_ith(ctx, -1), sizeof(float) * V);
    for (s = 0; s < STEPS; s++) {
        tok = toks[s] = (int32_t)argmax_f(ref + (size_t)s * V, V);
        b = L->batch_get_one(&tok, 1);
        if (L->decode(ctx, b) != 0) { snprintf(why, cap, "llama_decode (step %d) failed", s); goto fail; }
        memcpy(ref + (size_t)(s + 1) * V, L->get_logits_ith(ctx, -1), sizeof(float) * V);
    }
    L->free_(ctx);
    L->model_free(model);
    return 1;
fail:
    L->free_(ctx);
    L->model_free(model);
    return 0;
}

static void make_prompt(int32_t* p, uint64_t seed) {
    int i;
    th_seed(seed);
    p[0] = 1;
    for (i = 1; i < PROMPT; i++) p[i] = (int32_t)(3 + th_rng() % (V - 3));
}

/* ---- (1) against llama.cpp ---- */
static void test_oracle(const llama_api* L, const char* label, const model_spec* ms, int n_batch) {
    const char* path = tmp_path(label);
    int32_t prompt[PROMPT], toks[STEPS];
    float *ref = (float*)malloc(sizeof(float) * (STEPS + 1) * V), *got = (float*)malloc(sizeof(float) * V);
    char msg[512], why[256];
    rlx_result rc;
    rlx_llm* m = NULL;
    int s, quant = ms->wtype != GT_F32 && ms->wtype != GT_F16, same = 0, near_ties = 0;
    double worst = 0, worst_cos = 1, tol_seen = 0;
    if (!ref || !got) { TH_CHECK(0, "out of memory"); goto done; }
    if (!write_model(ms, path)) { TH_CHECK(0, "%s: writing the model failed", label); goto done; }
    make_prompt(prompt, ms->seed ^ 0xABCDu);
    if (!llama_run(L, path, prompt, ref, toks, why, sizeof why)) { TH_CHECK(0, "%s: libllama: %s", label, why); goto done; }
    m = load(path, 128, n_batch, RLX_F32, &rc, msg, sizeof msg);
    TH_CHECK(m != NULL, "%s: rlx_llm_load_gguf: %s: %s", label, rlx_result_string(rc), msg);
    if (!m) goto done;
    for (s = 0; s <= STEPS; s++) {
        const float* r = ref + (size_t)s * V;
        double mx = max_abs(r, V), d, c;
        rc = s == 0 ? rlx_llm_eval(m, prompt, PROMPT, got) : rlx_llm_eval(m, &toks[s - 1], 1, got);
        if (rc != RLX_OK) { TH_CHECK(0, "%s: step %d: %s", label, s, rlx_llm_error(m)); break; }
        d = max_diff(got, r, V);
        c = cosine(got, r, V);
        if (d / mx > worst) worst = d / mx;
        if (c < worst_cos) worst_cos = c;
        if (mx > tol_seen) tol_seen = mx;
        if (argmax_f(got, V) == argmax_f(r, V)) same++;
        if (!quant) TH_CHECK(d <= 1e-3 * mx, "%s: step %d: max|logit diff| %.3g > 1e-3 x max|logit| %.3g", label, s, d, mx);
        else {
            /* the same greedy token, unless llama.cpp's own margin between its token and rlx's is within twice
               the step's max|diff| (a near tie that the activation rounding decides; counted and printed) */
            int ta = argmax_f(got, V), tb = argmax_f(r, V);
            double margin = (double)r[tb] - (double)r[ta];
            if (ta != tb && margin <= 2.0 * d) near_ties++;
            else TH_CHECK(ta == tb, "%s: step %d: greedy token %d, llama.cpp %d (margin %.3g, max|diff| %.3g)", label, s, ta, tb, margin, d);
            TH_CHECK(c >= 0.999, "%s: step %d: cosine %.6f < 0.999", label, s, c);
        }
    }
    TH_CHECK(tol_seen > 1.0 && tol_seen < 100.0, "%s: logits are not O(1..10): max|logit| %.3g", label, tol_seen);
    TH_CHECK(rlx_llm_pos(m) == PROMPT + STEPS, "%s: position %d after the run", label, rlx_llm_pos(m));
    printf("  %-22s vs llama.cpp: %d steps, max|d|/max|logit| %.2e, min cosine %.7f, greedy agree %d/%d (near ties %d), max|logit| %.2f\n",
           label, STEPS + 1, worst, worst_cos, same, STEPS + 1, near_ties, tol_seen);
done:
    rlx_llm_destroy(m);
    free(ref);
    free(got);
}

/* ---- (2) cached decode == full recomputation (no oracle needed) ---- */
static void test_recompute(const char* label, const model_spec* ms, rlx_dtype kv, double tol, double cos_min) {
    const char* path = tmp_path(label);
    enum { N = 12 };
    int32_t seq[PROMPT + N];
    float *a = (float*)malloc(sizeof(float) * V), *b = (float*)malloc(sizeof(float) * V);
    char msg[512];
    rlx_result rc;
    rlx_llm *inc = NULL, *full = NULL;
    int s;
    double worst = 0;
    if (!a || !b) { TH_CHECK(0, "out of memory"); goto done; }
    if (!write_model(ms, path)) { TH_CHECK(0, "%s: writing the model failed", label); goto done; }
    make_prompt(seq, ms->seed);
    inc = load(path, 128, 32, kv, &rc, msg, sizeof msg);
    TH_CHECK(inc != NULL, "%s: load: %s", label, msg);
    full = load(path, 128, 32, kv, &rc, msg, sizeof msg);
    TH_CHECK(full != NULL, "%s: load: %s", label, msg);
    if (!inc || !full) goto done;
    /* prompt in chunks (32 + 32), then N greedy tokens one at a time; each compared with the whole sequence
       run again from position 0 (a chunk of 32, then padded chunks or decode steps for the tail) */
    rc = rlx_llm_eval(inc, seq, PROMPT, a);
    TH_CHECK(rc == RLX_OK, "%s: prompt: %s", label, rlx_llm_error(inc));
    for (s = 0; s < N && rc == RLX_OK; s++) {
        double d, mx;
        seq[PROMPT + s] = (int32_t)argmax_f(a, V);
        rc = rlx_llm_eval(inc, &seq[PROMPT + s], 1, a);
        TH_CHECK(rc == RLX_OK, "%s: step %d: %s", label, s, rlx_llm_error(inc));
        rlx_llm_reset(full);
        rc = rlx_llm_eval(full, seq, PROMPT + s + 1, b);
        TH_CHECK(rc == RLX_OK, "%s: recompute %d: %s", label, s, rlx_llm_error(full));
        if (rc != RLX_OK) break;
        d = max_diff(a, b, V);
        mx = max_abs(b, V);
        if (d / mx > worst) worst = d / mx;
        TH_CHECK(d <= tol * mx, "%s: step %d: cached vs recomputed max|diff| %.3g > %.1e x %.3g", label, s, d, tol, mx);
        TH_CHECK(cosine(a, b, V) >= cos_min, "%s: step %d: cached vs recomputed cosine %.6f", label, s, cosine(a, b, V));
    }
    /* the same prompt token by token (decode program only) */
    if (rc == RLX_OK) {
        rlx_llm_reset(full);
        for (s = 0; s < PROMPT && rc == RLX_OK; s++) rc = rlx_llm_eval(full, &seq[s], 1, b);
        rlx_llm_reset(inc);
        if (rc == RLX_OK) rc = rlx_llm_eval(inc, seq, PROMPT, a);
        TH_CHECK(rc == RLX_OK, "%s: token by token: %s %s", label, rlx_llm_error(full), rlx_llm_error(inc));
        if (rc == RLX_OK) {
            double d = max_diff(a, b, V), mx = max_abs(b, V);
            TH_CHECK(d <= tol * mx, "%s: prompt token by token vs chunks: max|diff| %.3g", label, d);
            if (d / mx > worst) worst = d / mx;
        }
    }
    printf("  %-22s cached vs recomputed: max|d|/max|logit| %.2e\n", label, worst);
done:
    rlx_llm_destroy(inc);
    rlx_llm_destroy(full);
    free(a);
    free(b);
}

/* ---- (3) bad input ---- */
static void expect_load_fail(const char* label, const model_spec* ms, rlx_result want, const char* needle) {
    const char* path = tmp_path(label);
    char msg[512];
    rlx_result rc;
    rlx_llm* m;
    if (!write_model(ms, path)) { TH_CHECK(0, "%s: writing the model failed", label); return; }
    m = load(path, 64, 16, RLX_F32, &rc, msg, sizeof msg);
    TH_CHECK(m == NULL && rc == want, "%s: got %s, expected %s (%s)", label, rlx_result_string(rc), rlx_result_string(want), msg);
    TH_CHECK(strstr(msg, needle) != NULL, "%s: the message does not name '%s': %s", label, needle, msg);
    rlx_llm_destroy(m);
}

static void test_bad_input(void) {
    model_spec ms;
    char msg[512];
    rlx_result rc;
    rlx_llm* m;
    int32_t toks[20];
    float* lg = (float*)malloc(sizeof(float) * V);
    int i;

    ms = spec("foo", GT_F32, GT_F32, 0, 7);
    expect_load_fail("arch_unknown", &ms, RLX_ERROR_UNSUPPORTED, "foo");
    ms = spec("gemma4", GT_F32, GT_F32, 0, 7);
    expect_load_fail("arch_gemma4", &ms, RLX_ERROR_UNSUPPORTED, "gemma4");
    ms = spec("phi3", GT_F32, GT_F32, 0, 7);
    ms.misshape = "blk.1.ffn_up.weight";
    expect_load_fail("phi3_wrong_gate_up", &ms, RLX_ERROR_FORMAT, "blk.1.ffn_up.weight");
    ms = spec("gemma2", GT_F32, GT_F32, 1, 7);
    ms.omit = "blk.1.post_ffw_norm.weight";
    expect_load_fail("gemma2_missing_post_norm", &ms, RLX_ERROR_FORMAT, "blk.1.post_ffw_norm.weight");
    ms = spec("llama", GT_F32, GT_F32, 0, 7);
    ms.omit = "blk.1.ffn_up.weight";
    expect_load_fail("missing_tensor", &ms, RLX_ERROR_FORMAT, "blk.1.ffn_up.weight");
    ms = spec("llama", GT_F32, GT_F32, 0, 7);
    ms.misshape = "blk.0.attn_k.weight";
    expect_load_fail("wrong_shape", &ms, RLX_ERROR_FORMAT, "blk.0.attn_k.weight");
    ms = spec("qwen2", GT_F32, GT_F32, 0, 7);
    ms.misshape = "blk.0.attn_v.bias";
    expect_load_fail("wrong_shape_bias", &ms, RLX_ERROR_FORMAT, "blk.0.attn_v.bias");
    ms = spec("llama", GT_F32, GT_F32, 0, 7);
    ms.omit_block_count = 1;
    expect_load_fail("missing_key", &ms, RLX_ERROR_FORMAT, "llama.block_count");
    ms = spec("llama", GT_F32, GT_F32, 0, 7);
    ms.rope_scaling = "dynamic";   /* (yarn is supported: tests/test_llm_hf.c) */
    expect_load_fail("rope_dynamic", &ms, RLX_ERROR_UNSUPPORTED, "dynamic");

    /* arguments */
    TH_CHECK(rlx_llm_load_gguf(NULL, NULL, &m) == RLX_ERROR_INVALID_ARGUMENT, "load(NULL)");
    TH_CHECK(rlx_llm_eval(NULL, toks, 1, lg) == RLX_ERROR_INVALID_ARGUMENT, "eval(NULL)");
    TH_CHECK(rlx_llm_n_vocab(NULL) == 0 && rlx_llm_pos(NULL) == 0 && rlx_llm_error(NULL)[0] == 0, "NULL queries");
    TH_CHECK(rlx_llm_reset(NULL) == RLX_ERROR_INVALID_ARGUMENT, "reset(NULL)");
    rlx_llm_destroy(NULL);

    /* context full: n_ctx 16 */
    ms = spec("llama", GT_F32, GT_F32, 0, 9);
    if (!write_model(&ms, tmp_path("ctx"))) { TH_CHECK(0, "writing the model failed"); free(lg); return; }
    {
        rlx_gguf* gf = NULL;
        rlx_llm_desc d;
        memset(&d, 0, sizeof d);
        d.n_ctx = 16; d.kv_dtype = RLX_I32; d.error = msg; d.error_cap = sizeof msg;
        TH_CHECK(rlx_gguf_open_file(tmp_path("ctx"), NULL, &gf) == RLX_OK, "open");
        rc = rlx_llm_load_gguf(gf, &d, &m);
        TH_CHECK(rc == RLX_ERROR_INVALID_ARGUMENT && strstr(msg, "kv_dtype"), "kv_dtype i32: %s %s", rlx_result_string(rc), msg);
        d.kv_dtype = RLX_F32; d.n_ctx = -1;
        rc = rlx_llm_load_gguf(gf, &d, &m);
        TH_CHECK(rc == RLX_ERROR_INVALID_ARGUMENT && strstr(msg, "n_ctx"), "n_ctx -1: %s %s", rlx_result_string(rc), msg);
        rlx_gguf_close(gf);
    }
    m = load(tmp_path("ctx"), 16, 8, RLX_F32, &rc, msg, sizeof msg);
    TH_CHECK(m != NULL, "load n_ctx 16: %s", msg);
    if (m) {
        for (i = 0; i < 20; i++) toks[i] = 3 + i;
        rc = rlx_llm_eval(m, toks, 17, lg);
        TH_CHECK(rc == RLX_ERROR_OUT_OF_RANGE && strstr(rlx_llm_error(m), "context full") && rlx_llm_pos(m) == 0,
                 "prompt of 17 > n_ctx 16: %s, %s, pos %d", rlx_result_string(rc), rlx_llm_error(m), rlx_llm_pos(m));
        rc = rlx_llm_eval(m, toks, 16, lg);
        TH_CHECK(rc == RLX_OK && rlx_llm_pos(m) == 16, "16 tokens: %s", rlx_llm_error(m));
        rc = rlx_llm_eval(m, toks, 1, lg);
        TH_CHECK(rc == RLX_ERROR_OUT_OF_RANGE && strstr(rlx_llm_error(m), "context full"), "token 17: %s", rlx_llm_error(m));
        toks[0] = V;
        rlx_llm_reset(m);
        rc = rlx_llm_eval(m, toks, 1, lg);
        TH_CHECK(rc == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_llm_error(m), "320"), "token id %d: %s", V, rlx_llm_error(m));
        toks[0] = -1;
        rc = rlx_llm_eval(m, toks, 1, lg);
        TH_CHECK(rc == RLX_ERROR_INVALID_ARGUMENT, "token id -1: %s", rlx_result_string(rc));
        rc = rlx_llm_eval(m, toks, 0, lg);
        TH_CHECK(rc == RLX_ERROR_INVALID_ARGUMENT, "n = 0: %s", rlx_result_string(rc));
        {
            rlx_llm_info in;
            TH_CHECK(rlx_llm_info_get(m, &in) == RLX_OK && in.arch == RLX_LLM_LLAMA && in.n_vocab == V && in.n_layer == NL &&
                     in.n_head == NH && in.n_head_kv == NKV && in.head_dim_k == HD && in.n_ff == FF && in.n_ctx == 16 &&
                     in.n_batch == 8 && in.n_ctx_train == 256 && strcmp(in.arch_name, "llama") == 0, "info");
            TH_CHECK(rlx_llm_n_vocab(m) == V && rlx_llm_n_ctx(m) == 16, "n_vocab / n_ctx");
        }
        if (g_llm_dev == RLX_DEVICE_CPU) {   /* weights are borrowed from the file on the CPU, not copied (a
                                                GPU's store holds device copies) */
            rlx_store_stats st;
            memset(&st, 0, sizeof st);
            TH_CHECK(rlx_store_info(rlx_llm_store(m), &st) == RLX_OK && st.borrowed_bytes > (size_t)V * D * 4 &&
                     st.bytes - st.state_bytes < (size_t)64 * 1024, "store: borrowed %zu, owned %zu (states %zu)",
                     st.borrowed_bytes, st.bytes, st.state_bytes);
        }
    }
    rlx_llm_destroy(m);
    free(lg);
}

/* ---- (4) a GPU: the f32 and q4_0 models on Vulkan (lavapipe in CI) against the CPU ---- */
/* rel: max|diff| <= rel * max|logit| per step; cos_min: the cosine of the two logit vectors per step (the q4_0
   model: the CPU rounds decode activations to 8 bits as ggml does, the GPU keeps them in f32) */
static void vulkan_vs_cpu(const char* label, const char* path, double rel, double cos_min) {
    float *a = (float*)malloc(sizeof(float) * V), *b = (float*)malloc(sizeof(float) * V);
    int32_t toks[PROMPT];
    char msg[512];
    rlx_gguf* gf = NULL;
    rlx_llm *gpu = NULL, *cpu = NULL;
    rlx_llm_desc d;
    rlx_result rc;
    int i;
    memset(&d, 0, sizeof d);
    d.device = RLX_DEVICE_VULKAN; d.n_ctx = 64; d.n_batch = 16; d.error = msg; d.error_cap = sizeof msg;
    TH_CHECK(a && b && rlx_gguf_open_file(path, NULL, &gf) == RLX_OK, "%s: open", label);
    if (!gf) goto done;
    rc = rlx_llm_load_gguf(gf, &d, &gpu);
    TH_CHECK(rc == RLX_OK, "%s on Vulkan: %s", label, msg);
    d.device = RLX_DEVICE_CPU;
    rc = rlx_llm_load_gguf(gf, &d, &cpu);
    TH_CHECK(rc == RLX_OK, "%s on the CPU: %s", label, msg);
    rlx_gguf_close(gf);
    if (gpu && cpu) {
        rlx_llm_info in;
        double dd, mx, cs;
        TH_CHECK(rlx_llm_info_get(gpu, &in) == RLX_OK && in.device == RLX_DEVICE_VULKAN, "%s: the model is on Vulkan", label);
        make_prompt(toks, 5);
        /* a padded 16-chunk, 2 full chunks (40 = 16 + 16 + 8), then decode steps */
        for (i = 0; i < 4; i++) {
            int k = i == 0 ? 40 : 1;
            TH_CHECK(rlx_llm_eval(gpu, i == 0 ? toks : &toks[i], k, a) == RLX_OK, "%s: vulkan eval: %s", label, rlx_llm_error(gpu));
            TH_CHECK(rlx_llm_eval(cpu, i == 0 ? toks : &toks[i], k, b) == RLX_OK, "%s: cpu eval: %s", label, rlx_llm_error(cpu));
            dd = max_diff(a, b, V);
            mx = max_abs(b, V);
            cs = cosine(a, b, V);
            TH_CHECK(dd <= rel * mx && cs >= cos_min, "%s step %d: Vulkan vs CPU max|diff| %.3g (max|logit| %.3g), cosine %.6f",
                     label, i, dd, mx, cs);
        }
    }
done:
    rlx_llm_destroy(gpu);
    rlx_llm_destroy(cpu);
    free(a);
    free(b);
}
static void test_vulkan(void) {
    model_spec ms = spec("llama", GT_F32, GT_F32, 0, 21), mq = spec("llama", GT_Q4_0, GT_Q4_0, 0, 22);
    const char *path = tmp_path("vk_f32"), *pq = tmp_path("vk_q4_0");
    if (!th_device_available(RLX_DEVICE_VULKAN)) { th_skip("llm on Vulkan: no usable Vulkan device"); return; }
    if (!write_model(&ms, path) || !write_model(&mq, pq)) { TH_CHECK(0, "setup"); return; }
    vulkan_vs_cpu("f32", path, 1e-4, 0.999999);
    vulkan_vs_cpu("q4_0", pq, 5e-2, 0.999);
}

int main(void) {
    llama_api L;
    int have = load_llama(&L);
    model_spec ms;
    const char* dv = getenv("RLX_TEST_LLM_DEVICE");

    if (dv && *dv) {
        g_llm_dev = !strcmp(dv, "cuda") ? RLX_DEVICE_CUDA : !strcmp(dv, "vulkan") ? RLX_DEVICE_VULKAN
                  : !strcmp(dv, "hip") ? RLX_DEVICE_HIP : RLX_DEVICE_CPU;
        if (g_llm_dev == RLX_DEVICE_CPU || !th_device_available(g_llm_dev)) {
            th_skip("RLX_TEST_LLM_DEVICE=%s: no such device here", dv);
            return th_summary("llm");
        }
        printf("rlx runs on %s (llama.cpp on the CPU)\n", dv);
    }

    /* (1) oracle: llama first, every weight type; then qwen2 and qwen3 */
    {
        static const struct { const char* label; const char* arch; int wt, et, tied, nb; } cases[] = {
            {"llama_f32", "llama", GT_F32, GT_F32, 0, 48},
            {"llama_f32_tied", "llama", GT_F32, GT_F32, 1, 32},
            {"llama_f16", "llama", GT_F16, GT_F16, 0, 48},
            {"llama_q8_0", "llama", GT_Q8_0, GT_Q8_0, 0, 48},
            {"llama_q8_0_dec", "llama", GT_Q8_0, GT_Q8_0, 0, 1},
            {"llama_q4_K_dec", "llama", GT_Q4_K, GT_Q6_K, 0, 1},
            {"llama_q4_0", "llama", GT_Q4_0, GT_Q4_0, 0, 48},
            {"llama_q4_K", "llama", GT_Q4_K, GT_Q6_K, 0, 48},
            {"llama_q6_K", "llama", GT_Q6_K, GT_Q4_K, 0, 48},
            {"qwen2_f32", "qwen2", GT_F32, GT_F32, 0, 48},
            {"qwen2_q8_0", "qwen2", GT_Q8_0, GT_Q8_0, 1, 48},
            {"qwen3_f32", "qwen3", GT_F32, GT_F32, 0, 48},
            {"qwen3_q4_K", "qwen3", GT_Q4_K, GT_Q4_K, 0, 48},
            {"gemma2_f32", "gemma2", GT_F32, GT_F32, 1, 48},
            {"gemma2_q8_0", "gemma2", GT_Q8_0, GT_Q8_0, 1, 48},
            {"gemma3_f32", "gemma3", GT_F32, GT_F32, 1, 48},
            {"gemma3_q4_K", "gemma3", GT_Q4_K, GT_Q8_0, 1, 48},
            {"phi3_f32", "phi3", GT_F32, GT_F32, 0, 48},
            {"phi3_q4_0", "phi3", GT_Q4_0, GT_Q8_0, 0, 48},
        };
        int i;
        for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
            if (!have) { th_skip("%s vs llama.cpp: %s", cases[i].label, g_skip); continue; }
            ms = spec(cases[i].arch, cases[i].wt, cases[i].et, cases[i].tied, 100u + (uint64_t)i);
            test_oracle(&L, cases[i].label, &ms, cases[i].nb);
        }
    }
    /* (2) cached decode vs full recomputation, every architecture */
    ms = spec("llama", GT_F32, GT_F32, 0, 11);
    test_recompute("rc_llama_f32", &ms, RLX_F32, 1e-4, 0.99999);
    ms = spec("llama", GT_Q4_0, GT_Q8_0, 0, 12);
    test_recompute("rc_llama_q4_0", &ms, RLX_F32, 3e-2, 0.999);
    ms = spec("llama", GT_F32, GT_F32, 0, 13);
    test_recompute("rc_llama_kv_f16", &ms, RLX_F16, 1e-4, 0.99999);
    ms = spec("qwen2", GT_F32, GT_F32, 0, 14);
    test_recompute("rc_qwen2_f32", &ms, RLX_F32, 1e-4, 0.99999);
    ms = spec("qwen3", GT_Q8_0, GT_F32, 1, 15);
    test_recompute("rc_qwen3_q8_0", &ms, RLX_F32, 3e-2, 0.999);
    ms = spec("gemma2", GT_F32, GT_F32, 1, 16);
    test_recompute("rc_gemma2_f32", &ms, RLX_F32, 1e-4, 0.99999);
    ms = spec("gemma3", GT_F32, GT_F32, 1, 18);
    test_recompute("rc_gemma3_f32", &ms, RLX_F32, 1e-4, 0.99999);
    ms = spec("phi3", GT_F32, GT_F32, 0, 17);
    test_recompute("rc_phi3_f32", &ms, RLX_F32, 1e-4, 0.99999);
    /* (3) bad input */
    test_bad_input();
    /* (4) Vulkan */
    test_vulkan();
    return th_summary("llm");
}
