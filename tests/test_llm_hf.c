/* Language models from Hugging Face folders (rlx_llm_load_hf) and YaRN / LongRoPE rope scaling (>>llm, >>llmhf).
   Tiny random-weight llama, qwen2 and qwen3 models (4 layers, d 256, 8 query heads / 2 kv heads of 32: GQA,
   SwiGLU 512, a synthetic 320-token vocabulary) are written twice from the same numbers:
     - as a Hugging Face folder: config.json and model.safetensors (rlx's safetensors writer), or two shards
       and model.safetensors.index.json; q_proj / k_proj rows in Hugging Face's rotate-half order;
     - as GGUF the way llama.cpp's converter writes them (rlx's GGUF writer, checked by libllama loading it):
       for llama the q/k rows permuted per head to interleaved pairs (convert_hf_to_gguf.py's permute), llama3
       rope scaling as a rope_freqs.weight tensor computed here in f64 from the config's numbers.
   Oracle: libllama.v0.4.0.so from @node-llama-cpp/linux-x64@3.21.1 (tests/fetch_npm.sh; RLX_GGML_DIR names
   another bins/linux-x64 folder), dlopen'ed, one thread, f32 KV cache, no flash attention, on the GGUF; rlx
   runs the folder. Per model: a 20-token prompt and 8 greedy steps (llama.cpp's greedy token is the next
   input for both), every step max|Δ| <= 1e-3 · max|logit| (test_llm's f32 tolerance). Also rlx-from-folder
   against rlx-from-GGUF (1e-4), the sharded folder against the single file (equal), and bf16 weights.
   YaRN: a llama GGUF with rope.scaling.type yarn, factor 4, original_context_length 32, and a 96-token
   prompt (positions up to 100, past the original 32) against libllama; the same model as a folder with
   rope_scaling yarn against the GGUF. LongRoPE: a phi3 GGUF with rope_factors_long/short tensors and
   rope.scaling.attn_factor, once with the long factors in use and once the short ones, against libllama.
   Vulkan (lavapipe in CI): the bf16 folder against the CPU (1e-4), skipped without a Vulkan device.
   Bad input: folders with a missing config key, a wrong tensor shape, an unsupported architecture, a shard
   path leaving the folder, a truncated safetensors file, and more: each must fail with its message. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#include <stdlib.h>
#if defined(_WIN32)
#  include <direct.h>
#  define MKDIR(p) _mkdir(p)
#else
#  include <dlfcn.h>
#  include <sys/stat.h>
#  include <unistd.h>
#  define MKDIR(p) mkdir(p, 0755)
#endif

#define V 320
#define D 256
#define NH 8
#define NKV 2
#define HD 32
#define FF 512
#define NL 4
#define MAXP 96

/* ---- the models: named f32 arrays in Hugging Face layout (rows [out, in]) ---- */
typedef struct wt { char name[64]; int rows, cols; float* x; } wt;   /* cols 0: a vector of rows */
typedef struct model {
    const char* arch;        /* llama, qwen2, qwen3, phi3 */
    wt t[96];
    int n;
    int bf16;                /* values rounded to bf16; the folder stores BF16 */
} model;

static float bf16_round(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    u = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u;
    memcpy(&f, &u, 4);
    return f;
}

static void add_w(model* m, const char* name, int rows, int cols, double base, double a) {
    wt* w = &m->t[m->n++];
    int i, n = rows * (cols ? cols : 1);
    snprintf(w->name, sizeof w->name, "%s", name);
    w->rows = rows; w->cols = cols;
    w->x = (float*)malloc(sizeof(float) * (size_t)n);
    for (i = 0; i < n; i++) {
        w->x[i] = (float)(base + th_uniform(-a, a));
        if (m->bf16) w->x[i] = bf16_round(w->x[i]);
    }
}
static wt* find_w(model* m, const char* name) {
    int i;
    for (i = 0; i < m->n; i++) if (strcmp(m->t[i].name, name) == 0) return &m->t[i];
    return NULL;
}
static void free_model(model* m) { int i; for (i = 0; i < m->n; i++) free(m->t[i].x); m->n = 0; }

/* GGUF names; the folder writer maps them to Hugging Face names. */
static void make_model(model* m, const char* arch, uint64_t seed, int bf16) {
    int l;
    char nm[64];
    double proj = sqrt(3.0 / D), projf = sqrt(3.0 / FF), resid = 1.0 / sqrt(2.0 * NL);
    int qwen2 = strcmp(arch, "qwen2") == 0, qwen3 = strcmp(arch, "qwen3") == 0;
    memset(m, 0, sizeof *m);
    m->arch = arch; m->bf16 = bf16;
    th_seed(seed);
    add_w(m, "token_embd.weight", V, D, 0.0, 3.0 * sqrt(3.0 / D));
    add_w(m, "output_norm.weight", D, 0, 1.0, 0.1);
    add_w(m, "output.weight", V, D, 0.0, 3.0 * sqrt(3.0 / D));
    for (l = 0; l < NL; l++) {
#define W(what, r_, c_, b_, a_) do { snprintf(nm, sizeof nm, "blk.%d.%s", l, what); add_w(m, nm, r_, c_, b_, a_); } while (0)
        W("attn_norm.weight", D, 0, 1.0, 0.1);
        W("attn_q.weight", NH * HD, D, 0.0, proj);
        W("attn_k.weight", NKV * HD, D, 0.0, proj);
        W("attn_v.weight", NKV * HD, D, 0.0, proj);
        W("attn_output.weight", D, NH * HD, 0.0, proj * resid);
        if (qwen2) {
            W("attn_q.bias", NH * HD, 0, 0.0, 0.3);
            W("attn_k.bias", NKV * HD, 0, 0.0, 0.3);
            W("attn_v.bias", NKV * HD, 0, 0.0, 0.3);
        }
        if (qwen3) {
            W("attn_q_norm.weight", HD, 0, 1.0, 0.1);
            W("attn_k_norm.weight", HD, 0, 1.0, 0.1);
        }
        W("ffn_norm.weight", D, 0, 1.0, 0.1);
        W("ffn_gate.weight", FF, D, 0.0, proj);
        W("ffn_up.weight", FF, D, 0.0, proj);
        W("ffn_down.weight", D, FF, 0.0, projf * resid);
#undef W
    }
}

/* Hugging Face name of a GGUF name (written here independently of rlx.h's table). */
static void hf_name(const char* g, char* out, size_t cap) {
    static const char* const map[][2] = {
        {"attn_norm.weight", "input_layernorm.weight"}, {"attn_q.weight", "self_attn.q_proj.weight"},
        {"attn_k.weight", "self_attn.k_proj.weight"}, {"attn_v.weight", "self_attn.v_proj.weight"},
        {"attn_output.weight", "self_attn.o_proj.weight"}, {"attn_q.bias", "self_attn.q_proj.bias"},
        {"attn_k.bias", "self_attn.k_proj.bias"}, {"attn_v.bias", "self_attn.v_proj.bias"},
        {"attn_q_norm.weight", "self_attn.q_norm.weight"}, {"attn_k_norm.weight", "self_attn.k_norm.weight"},
        {"ffn_norm.weight", "post_attention_layernorm.weight"}, {"ffn_gate.weight", "mlp.gate_proj.weight"},
        {"ffn_up.weight", "mlp.up_proj.weight"}, {"ffn_down.weight", "mlp.down_proj.weight"}};
    int l, i;
    char rest[64];
    if (strcmp(g, "token_embd.weight") == 0) { snprintf(out, cap, "model.embed_tokens.weight"); return; }
    if (strcmp(g, "output_norm.weight") == 0) { snprintf(out, cap, "model.norm.weight"); return; }
    if (strcmp(g, "output.weight") == 0) { snprintf(out, cap, "lm_head.weight"); return; }
    if (sscanf(g, "blk.%d.%63s", &l, rest) == 2)
        for (i = 0; i < (int)(sizeof map / sizeof map[0]); i++)
            if (strcmp(rest, map[i][0]) == 0) { snprintf(out, cap, "model.layers.%d.%s", l, map[i][1]); return; }
    snprintf(out, cap, "%s", g);
}

/* ---- folder writer ---- */
typedef struct folder_opts {
    int shards;               /* 0/1: model.safetensors; 2: two shards and an index */
    const char* config;       /* config.json text (NULL: the default for the model) */
    const char* rope_scaling; /* a JSON object text for "rope_scaling", or NULL */
    const char* skip;         /* a GGUF tensor name left out */
    const char* misshape;     /* a GGUF tensor name written with one row too many */
    const char* index_shard;  /* the shard name the index gives the first tensor (NULL: the real one) */
    int truncate;             /* cut the (first) safetensors file short by this many bytes */
} folder_opts;

static int write_text(const char* path, const char* text) {
    FILE* f = fopen(path, "wb");
    if (!f) return 0;
    fputs(text, f);
    return fclose(f) == 0;
}

static void default_config(const model* m, const char* rope_scaling, char* out, size_t cap) {
    const char* archs = strcmp(m->arch, "llama") == 0 ? "LlamaForCausalLM" : strcmp(m->arch, "qwen2") == 0 ? "Qwen2ForCausalLM" : "Qwen3ForCausalLM";
    snprintf(out, cap,
             "{\n  \"architectures\": [\"%s\"],\n  \"model_type\": \"%s\",\n  \"hidden_size\": %d,\n  \"intermediate_size\": %d,\n"
             "  \"num_hidden_layers\": %d,\n  \"num_attention_heads\": %d,\n  \"num_key_value_heads\": %d,\n  \"head_dim\": %d,\n"
             "  \"rms_norm_eps\": 1e-05,\n  \"rope_theta\": 10000.0,\n  \"max_position_embeddings\": 256,\n  \"vocab_size\": %d,\n"
             "  \"tie_word_embeddings\": false,\n  \"hidden_act\": \"silu\",\n  \"bos_token_id\": 1,\n  \"eos_token_id\": [2, 5],\n"
             "  \"torch_dtype\": \"%s\",\n  \"rope_scaling\": %s\n}\n",
             archs, m->arch, D, FF, NL, NH, NKV, HD, V, m->bf16 ? "bfloat16" : "float32", rope_scaling ? rope_scaling : "null");
}

static uint16_t* to_bf16(const float* x, size_t n) {
    uint16_t* b = (uint16_t*)malloc(2 * n);
    size_t i;
    for (i = 0; i < n; i++) { uint32_t u; memcpy(&u, &x[i], 4); b[i] = (uint16_t)(u >> 16); }   /* already rounded */
    return b;
}

static int write_folder(model* m, const char* dir, const folder_opts* o) {
    char path[512], cfg[4096], hn[96];
    rlx_safetensors_writer* w[2] = {NULL, NULL};
    void* keep[128];
    int nkeep = 0, i, k, ns = o->shards == 2 ? 2 : 1, ok = 1;
    MKDIR(dir);
    if (o->config) snprintf(cfg, sizeof cfg, "%s", o->config);
    else default_config(m, o->rope_scaling, cfg, sizeof cfg);
    snprintf(path, sizeof path, "%s/config.json", dir);
    ok &= write_text(path, cfg);
    for (k = 0; k < ns; k++) ok &= rlx_safetensors_writer_create(NULL, &w[k]) == RLX_OK;
    for (i = 0; i < m->n && ok; i++) {
        wt* t = &m->t[i];
        int64_t s[2];
        const void* data = t->x;
        size_t n = (size_t)t->rows * (size_t)(t->cols ? t->cols : 1);
        if (o->skip && strcmp(o->skip, t->name) == 0) continue;
        s[0] = t->rows + (o->misshape && strcmp(o->misshape, t->name) == 0 ? 1 : 0);
        s[1] = t->cols;
        if (s[0] != t->rows) {   /* one more row of the same values */
            float* y = (float*)malloc(sizeof(float) * (size_t)(s[0] * (t->cols ? t->cols : 1)));
            memcpy(y, t->x, sizeof(float) * n);
            memcpy(y + n, t->x, sizeof(float) * (size_t)(t->cols ? t->cols : 1));
            data = keep[nkeep++] = y;
            n = (size_t)(s[0] * (t->cols ? t->cols : 1));
        }
        if (m->bf16) data = keep[nkeep++] = to_bf16((const float*)data, n);
        hf_name(t->name, hn, sizeof hn);
        ok &= rlx_safetensors_writer_tensor(w[i % ns], hn, m->bf16 ? RLX_BF16 : RLX_F32, t->cols ? 2 : 1, s, data) == RLX_OK;
    }
    for (k = 0; k < ns && ok; k++) {
        if (ns == 1) snprintf(path, sizeof path, "%s/model.safetensors", dir);
        else snprintf(path, sizeof path, "%s/model-%05d-of-00002.safetensors", dir, k + 1);
        ok &= rlx_safetensors_writer_write_file(w[k], path) == RLX_OK;
        if (ok && k == 0 && o->truncate) {   /* rewrite the file shorter */
            FILE* f = fopen(path, "rb");
            long len;
            char* buf;
            fseek(f, 0, SEEK_END); len = ftell(f); fseek(f, 0, SEEK_SET);
            buf = (char*)malloc((size_t)len);
            ok &= fread(buf, 1, (size_t)len, f) == (size_t)len;
            fclose(f);
            f = fopen(path, "wb");
            fwrite(buf, 1, (size_t)(len - o->truncate), f);
            fclose(f);
            free(buf);
        }
    }
    if (ns == 2 && ok) {   /* the index */
        char* idx = (char*)malloc(1 << 16);
        size_t p = 0;
        int first = 1;
        p += (size_t)snprintf(idx + p, (1 << 16) - p, "{\"metadata\": {\"total_size\": 0}, \"weight_map\": {");
        for (i = 0; i < m->n; i++) {
            char sh[64];
            if (o->skip && strcmp(o->skip, m->t[i].name) == 0) continue;
            hf_name(m->t[i].name, hn, sizeof hn);
            snprintf(sh, sizeof sh, "model-%05d-of-00002.safetensors", i % 2 + 1);
            p += (size_t)snprintf(idx + p, (1 << 16) - p, "%s\n  \"%s\": \"%s\"", first ? "" : ",", hn,
                                  first && o->index_shard ? o->index_shard : sh);
            first = 0;
        }
        p += (size_t)snprintf(idx + p, (1 << 16) - p, "\n}}\n");
        snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
        ok &= write_text(path, idx);
        free(idx);
    }
    if (!ok) printf("write_folder %s: %s %s\n", dir, w[0] ? rlx_safetensors_writer_error(w[0]) : "", w[1] ? rlx_safetensors_writer_error(w[1]) : "");
    for (k = 0; k < ns; k++) rlx_safetensors_writer_destroy(w[k]);
    for (i = 0; i < nkeep; i++) free(keep[i]);
    return ok;
}

/* ---- GGUF writer (as llama.cpp's converter) ---- */
typedef struct gguf_opts {
    const char* arch;          /* general.architecture: the model's, or "phi3" (fused qkv and gate/up) */
    int yarn;                  /* rope.scaling.type yarn, factor 4, original_context_length yarn */
    const float* rope_freqs;   /* HD/2 factors (llama3), or NULL */
    const float* longrope[2];  /* short, long factors (phi3), or NULL */
    double attn_factor;        /* rope.scaling.attn_factor (0: not written) */
    int orig_ctx;              /* rope.scaling.original_context_length (0: not written) */
} gguf_opts;

/* convert_hf_to_gguf.py's permute for llama q/k: per head, row j·(hd/2) + i goes to 2i + j. */
static float* permute_rows(const float* x, int heads, int cols) {
    float* y = (float*)malloc(sizeof(float) * (size_t)heads * HD * (size_t)cols);
    int h, i, j;
    for (h = 0; h < heads; h++)
        for (i = 0; i < HD / 2; i++)
            for (j = 0; j < 2; j++)
                memcpy(y + ((size_t)h * HD + 2 * (size_t)i + (size_t)j) * (size_t)cols,
                       x + ((size_t)h * HD + (size_t)j * (HD / 2) + (size_t)i) * (size_t)cols, sizeof(float) * (size_t)cols);
    return y;
}

static rlx_result wstr(rlx_gguf_writer* w, const char* key, const char* v) { return rlx_gguf_writer_string(w, key, v, strlen(v)); }

static int write_gguf(model* m, const char* path, const gguf_opts* o) {
    rlx_gguf_writer* w = NULL;
    char key[96], name[64], tokbuf[V][16];
    const char* toks[V];
    float scores[V], f;
    int32_t types[V];
    uint32_t u;
    void* keep[64];
    int nkeep = 0, i, l, ok = 1, phi3 = strcmp(o->arch, "phi3") == 0, llama = strcmp(o->arch, "llama") == 0;
    int64_t s[2];
    if (rlx_gguf_writer_create(NULL, &w) != RLX_OK) return 0;
    ok &= wstr(w, "general.architecture", o->arch) == RLX_OK;
#define KVU(k_, v_) do { snprintf(key, sizeof key, "%s.%s", o->arch, k_); u = (uint32_t)(v_); ok &= rlx_gguf_writer_kv(w, key, RLX_GGUF_U32, &u) == RLX_OK; } while (0)
#define KVF(k_, v_) do { snprintf(key, sizeof key, "%s.%s", o->arch, k_); f = (float)(v_); ok &= rlx_gguf_writer_kv(w, key, RLX_GGUF_F32, &f) == RLX_OK; } while (0)
    KVU("context_length", 256);
    KVU("embedding_length", D);
    KVU("block_count", NL);
    KVU("feed_forward_length", FF);
    KVU("attention.head_count", NH);
    KVU("attention.head_count_kv", NKV);
    KVU("rope.dimension_count", HD);
    KVF("attention.layer_norm_rms_epsilon", 1e-5);
    KVF("rope.freq_base", 10000.0);
    if (o->yarn) {
        snprintf(key, sizeof key, "%s.rope.scaling.type", o->arch);
        ok &= wstr(w, key, "yarn") == RLX_OK;
        KVF("rope.scaling.factor", 4.0);
    }
    if (o->orig_ctx) KVU("rope.scaling.original_context_length", o->orig_ctx);
    if (o->attn_factor > 0) KVF("rope.scaling.attn_factor", o->attn_factor);
#undef KVU
#undef KVF
    for (i = 0; i < V; i++) {   /* <unk> <s> </s>, 256 byte tokens, words */
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
    s[0] = HD / 2;
    if (o->rope_freqs) ok &= rlx_gguf_writer_tensor(w, "rope_freqs.weight", 0, 1, s, o->rope_freqs, sizeof(float) * HD / 2) == RLX_OK;
    if (o->longrope[0]) ok &= rlx_gguf_writer_tensor(w, "rope_factors_short.weight", 0, 1, s, o->longrope[0], sizeof(float) * HD / 2) == RLX_OK;
    if (o->longrope[1]) ok &= rlx_gguf_writer_tensor(w, "rope_factors_long.weight", 0, 1, s, o->longrope[1], sizeof(float) * HD / 2) == RLX_OK;
    for (i = 0; i < m->n && ok; i++) {
        wt* t = &m->t[i];
        const float* data = t->x;
        int rows = t->rows;
        snprintf(name, sizeof name, "%s", t->name);
        if (phi3 && (strstr(t->name, "attn_k.weight") || strstr(t->name, "attn_v.weight") || strstr(t->name, "ffn_gate.weight"))) continue;
        if (phi3 && (strstr(t->name, "attn_q.weight") || strstr(t->name, "ffn_up.weight"))) {   /* [q; k; v], [gate; up] */
            int up = strstr(t->name, "ffn_up") != NULL;
            const char* parts[3];
            char nb[3][64];
            float* y;
            size_t off = 0;
            int p, np = up ? 2 : 3;
            sscanf(t->name, "blk.%d.", &l);
            snprintf(nb[0], 64, "blk.%d.%s", l, up ? "ffn_gate.weight" : "attn_q.weight");
            snprintf(nb[1], 64, "blk.%d.%s", l, up ? "ffn_up.weight" : "attn_k.weight");
            snprintf(nb[2], 64, "blk.%d.attn_v.weight", l);
            rows = 0;
            for (p = 0; p < np; p++) { parts[p] = nb[p]; rows += find_w(m, parts[p])->rows; }
            y = (float*)malloc(sizeof(float) * (size_t)rows * D);
            for (p = 0; p < np; p++) {
                wt* q = find_w(m, parts[p]);
                memcpy(y + off, q->x, sizeof(float) * (size_t)q->rows * D);
                off += (size_t)q->rows * D;
            }
            data = keep[nkeep++] = y;
            snprintf(name, sizeof name, "blk.%d.%s", l, up ? "ffn_up.weight" : "attn_qkv.weight");
        } else if (llama && (strstr(t->name, "attn_q.weight") || strstr(t->name, "attn_k.weight"))) {
            data = keep[nkeep++] = permute_rows(t->x, strstr(t->name, "attn_q") ? NH : NKV, t->cols);
        }
        s[0] = rows; s[1] = t->cols;
        ok &= rlx_gguf_writer_tensor(w, name, 0, t->cols ? 2 : 1, t->cols ? s : s, data,
                                     sizeof(float) * (size_t)rows * (size_t)(t->cols ? t->cols : 1)) == RLX_OK;
        if (nkeep >= 60) { ok = 0; break; }
    }
    if (ok) ok = rlx_gguf_writer_write_file(w, path) == RLX_OK;
    if (!ok) printf("write_gguf %s: %s\n", path, rlx_gguf_writer_error(w));
    rlx_gguf_writer_destroy(w);
    for (i = 0; i < nkeep; i++) free(keep[i]);
    return ok;
}

/* ---- loading and comparing ---- */
static rlx_llm* load_hf(const char* dir, rlx_result* rc, char* msg, size_t cap) {
    rlx_llm* m = NULL;
    rlx_llm_desc d;
    memset(&d, 0, sizeof d);
    d.device = RLX_DEVICE_CPU;
    d.n_ctx = 128; d.n_batch = 16; d.num_threads = 2;
    d.error = msg; d.error_cap = cap;
    *rc = rlx_llm_load_hf(dir, &d, &m);
    return m;
}
static rlx_llm* load_gguf(const char* path, rlx_result* rc, char* msg, size_t cap) {
    rlx_gguf* gf = NULL;
    rlx_llm* m = NULL;
    rlx_llm_desc d;
    memset(&d, 0, sizeof d);
    d.device = RLX_DEVICE_CPU;
    d.n_ctx = 128; d.n_batch = 16; d.num_threads = 2;
    d.error = msg; d.error_cap = cap;
    msg[0] = 0;
    *rc = rlx_gguf_open_file(path, NULL, &gf);
    if (*rc != RLX_OK) { snprintf(msg, cap, "open: %.200s", rlx_file_error()); return NULL; }
    *rc = rlx_llm_load_gguf(gf, &d, &m);
    rlx_gguf_close(gf);
    return m;
}

static int argmax_f(const float* x, int n) { int i, b = 0; for (i = 1; i < n; i++) if (x[i] > x[b]) b = i; return b; }
static double max_abs(const float* x, int n) { double m = 0; int i; for (i = 0; i < n; i++) if (fabs((double)x[i]) > m) m = fabs((double)x[i]); return m; }
static double max_diff(const float* a, const float* b, int n) {
    double m = 0; int i;
    for (i = 0; i < n; i++) { double d = fabs((double)a[i] - (double)b[i]); if (!(d <= m)) m = d; }
    return m;
}

static void make_prompt(int32_t* p, int n, uint64_t seed) {
    int i;
    th_seed(seed);
    p[0] = 1;
    for (i = 1; i < n; i++) p[i] = (int32_t)(3 + th_rng() % (V - 3));
}

/* A run: logits after the prompt and after each of `steps` tokens of toks (ref: (steps + 1) × V). */
static int rlx_run_seq(rlx_llm* m, const int32_t* prompt, int np, const int32_t* toks, int steps, float* out, const char* label) {
    int s;
    for (s = 0; s <= steps; s++) {
        rlx_result rc = s == 0 ? rlx_llm_eval(m, prompt, np, out) : rlx_llm_eval(m, &toks[s - 1], 1, out + (size_t)s * V);
        if (rc != RLX_OK) { TH_CHECK(0, "%s: step %d: %s", label, s, rlx_llm_error(m)); return 0; }
    }
    return 1;
}
/* Every step within tol · max|logit| of ref; returns the worst ratio. */
static double compare(const char* label, const char* what, const float* got, const float* ref, int steps, double tol) {
    int s;
    double worst = 0, mxs = 0;
    for (s = 0; s <= steps; s++) {
        const float* r = ref + (size_t)s * V;
        double mx = max_abs(r, V), d = max_diff(got + (size_t)s * V, r, V);
        if (d / mx > worst || d != d) worst = d / mx;
        if (mx > mxs) mxs = mx;
        TH_CHECK(d <= tol * mx, "%s: %s: step %d: max|logit diff| %.3g > %.0e x max|logit| %.3g", label, what, s, d, tol, mx);
    }
    TH_CHECK(mxs > 1.0 && mxs < 100.0, "%s: logits are not O(1..10): max|logit| %.3g", label, mxs);
    printf("  %-20s %-26s %d steps, max|d|/max|logit| %.2e (max|logit| %.2f)\n", label, what, steps + 1, worst, mxs);
    return worst;
}

/* ---- libllama (the oracle) ---- */
#include "llama_ffi.h"

/* llama.cpp: logits after the prompt and after each of `steps` greedy tokens, which it picks (toks). */
static int llama_run(const llama_api* L, const char* path, const int32_t* prompt, int np, int steps, float* ref,
                     int32_t* toks, char* why, size_t cap) {
    lparams mp = L->model_default_params(), cp = L->context_default_params();
    void *model, *ctx;
    int s;
    llama_batch_ b;
    int32_t tok, ptoks[MAXP];
    model = L->model_load(path, mp);
    if (!model) { snprintf(why, cap, "llama_model_load_from_file(%s) failed", path); return 0; }
    wr_i32(&cp, CP_N_CTX, 128); wr_i32(&cp, CP_N_BATCH, 128); wr_i32(&cp, CP_N_UBATCH, 128);
    wr_i32(&cp, CP_N_THREADS, 1); wr_i32(&cp, CP_N_THREADS_BATCH, 1);
    wr_i32(&cp, CP_FLASH_ATTN, 0);
    wr_i32(&cp, CP_TYPE_K, 0); wr_i32(&cp, CP_TYPE_V, 0);
    ctx = L->init_from_model(model, cp);
    if (!ctx) { snprintf(why, cap, "llama_init_from_model failed"); L->model_free(model); return 0; }
    memcpy(ptoks, prompt, sizeof(int32_t) * (size_t)np);
    b = L->batch_get_one(ptoks, np);
    if (L->decode(ctx, b) != 0) { snprintf(why, cap, "llama_decode (prompt) failed"); goto fail; }
    memcpy(ref, L->get_logits_ith(ctx, -1), sizeof(float) * V);
    for (s = 0; s < steps; s++) {
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

/* ---- the cases ---- */
#define STEPS 8
#define NP 20

/* A folder against libllama on the converter's GGUF and against rlx on that GGUF. */
static void test_folder(const llama_api* L, const char* label, const char* arch, int bf16, int shards,
                        const char* rope_scaling, const float* rope_freqs) {
    model m;
    char dir[256], gpath[256], msg[512], why[256];
    int32_t prompt[NP], toks[STEPS];
    float *ref = (float*)malloc(sizeof(float) * (STEPS + 1) * V), *a = (float*)malloc(sizeof(float) * (STEPS + 1) * V);
    float* b = (float*)malloc(sizeof(float) * (STEPS + 1) * V);
    rlx_llm *mh = NULL, *mg = NULL;
    rlx_result rc;
    gguf_opts go;
    folder_opts fo;
    int s;
    make_model(&m, arch, 0x5EEDu + (uint64_t)strlen(label) * 7919u, bf16);
    snprintf(dir, sizeof dir, "build/test_llm_hf_%s", label);
    snprintf(gpath, sizeof gpath, "build/test_llm_hf_%s.gguf", label);
    memset(&fo, 0, sizeof fo);
    fo.shards = shards;
    fo.rope_scaling = rope_scaling;
    memset(&go, 0, sizeof go);
    go.arch = arch;
    go.rope_freqs = rope_freqs;
    if (!write_folder(&m, dir, &fo) || !write_gguf(&m, gpath, &go)) { TH_CHECK(0, "%s: writing the model failed", label); goto done; }
    make_prompt(prompt, NP, 0xABCDu + (uint64_t)strlen(label));
    mh = load_hf(dir, &rc, msg, sizeof msg);
    TH_CHECK(mh != NULL, "%s: rlx_llm_load_hf: %s: %s", label, rlx_result_string(rc), msg);
    mg = load_gguf(gpath, &rc, msg, sizeof msg);
    TH_CHECK(mg != NULL, "%s: rlx_llm_load_gguf: %s: %s", label, rlx_result_string(rc), msg);
    if (!mh || !mg) goto done;
    {
        rlx_llm_info ih, ig;
        rlx_llm_info_get(mh, &ih);
        rlx_llm_info_get(mg, &ig);
        TH_CHECK(ih.n_vocab == V && ih.n_layer == NL && ih.n_head == NH && ih.n_head_kv == NKV && ih.head_dim_k == HD && ih.n_ff == FF &&
                 ih.n_embd == D && ih.n_ctx_train == 256 && strcmp(ih.arch_name, arch) == 0,
                 "%s: info: vocab %d layers %d heads %d/%d hd %d ff %d d %d ctx %d arch %s", label, ih.n_vocab, ih.n_layer, ih.n_head,
                 ih.n_head_kv, ih.head_dim_k, ih.n_ff, ih.n_embd, ih.n_ctx_train, ih.arch_name);
        TH_CHECK(ih.bos_id == 1 && ih.eos_id == 2 && ig.bos_id == 1 && ig.eos_id == 2, "%s: bos/eos %d %d (GGUF %d %d)", label, ih.bos_id, ih.eos_id, ig.bos_id, ig.eos_id);
    }
    if (L) {
        if (!llama_run(L, gpath, prompt, NP, STEPS, ref, toks, why, sizeof why)) { TH_CHECK(0, "%s: libllama: %s", label, why); goto done; }
    } else {   /* without the oracle: rlx-from-GGUF picks the tokens */
        for (s = 0; s < STEPS; s++) toks[s] = (int32_t)(3 + (s * 37) % (V - 3));
    }
    if (!rlx_run_seq(mh, prompt, NP, toks, STEPS, a, label) || !rlx_run_seq(mg, prompt, NP, toks, STEPS, b, label)) goto done;
    if (L) compare(label, "folder vs llama.cpp GGUF", a, ref, STEPS, 1e-3);
    compare(label, "folder vs rlx GGUF", a, b, STEPS, 1e-4);
done:
    rlx_llm_destroy(mh);
    rlx_llm_destroy(mg);
    free_model(&m);
    free(ref); free(a); free(b);
}

/* The sharded folder gives the single file's logits exactly. */
static void test_sharded(void) {
    model m;
    char msg[512];
    int32_t prompt[NP], toks[STEPS];
    float *a = (float*)malloc(sizeof(float) * (STEPS + 1) * V), *b = (float*)malloc(sizeof(float) * (STEPS + 1) * V);
    rlx_llm *m1 = NULL, *m2 = NULL;
    rlx_result rc;
    folder_opts fo;
    int s;
    make_model(&m, "qwen2", 0x5A4Du, 0);
    memset(&fo, 0, sizeof fo);
    fo.shards = 1;
    if (!write_folder(&m, "build/test_llm_hf_one", &fo)) { TH_CHECK(0, "write"); goto done; }
    fo.shards = 2;
    if (!write_folder(&m, "build/test_llm_hf_two", &fo)) { TH_CHECK(0, "write"); goto done; }
    m1 = load_hf("build/test_llm_hf_one", &rc, msg, sizeof msg);
    TH_CHECK(m1 != NULL, "sharded: one file: %s", msg);
    m2 = load_hf("build/test_llm_hf_two/", &rc, msg, sizeof msg);
    TH_CHECK(m2 != NULL, "sharded: two shards: %s", msg);
    if (!m1 || !m2) goto done;
    make_prompt(prompt, NP, 77);
    for (s = 0; s < STEPS; s++) toks[s] = (int32_t)(3 + (s * 53) % (V - 3));
    if (!rlx_run_seq(m1, prompt, NP, toks, STEPS, a, "sharded") || !rlx_run_seq(m2, prompt, NP, toks, STEPS, b, "sharded")) goto done;
    TH_CHECK(max_diff(a, b, (STEPS + 1) * V) == 0.0 && max_abs(a, (STEPS + 1) * V) > 1.0, "sharded: logits differ from the single file's by %.3g",
             max_diff(a, b, (STEPS + 1) * V));
    printf("  %-20s %-26s equal\n", "qwen2 sharded", "two shards vs one file");
done:
    rlx_llm_destroy(m1);
    rlx_llm_destroy(m2);
    free_model(&m);
    free(a); free(b);
}

/* A GGUF with rope scaling (YaRN or LongRoPE) against libllama at positions past the original context. */
static void test_scaling(const llama_api* L, const char* label, const gguf_opts* go, int np) {
    model m;
    char gpath[256], msg[512], why[256];
    int32_t prompt[MAXP], toks[STEPS];
    float *ref = (float*)malloc(sizeof(float) * (STEPS + 1) * V), *a = (float*)malloc(sizeof(float) * (STEPS + 1) * V);
    rlx_llm* mg = NULL;
    rlx_result rc;
    make_model(&m, "llama", 0xCAFEu + (uint64_t)strlen(label), 0);
    snprintf(gpath, sizeof gpath, "build/test_llm_hf_%s.gguf", label);
    if (!write_gguf(&m, gpath, go)) { TH_CHECK(0, "%s: writing the model failed", label); goto done; }
    make_prompt(prompt, np, 0x1234u + (uint64_t)np);
    mg = load_gguf(gpath, &rc, msg, sizeof msg);
    TH_CHECK(mg != NULL, "%s: rlx_llm_load_gguf: %s: %s", label, rlx_result_string(rc), msg);
    if (!mg) goto done;
    if (!llama_run(L, gpath, prompt, np, STEPS, ref, toks, why, sizeof why)) { TH_CHECK(0, "%s: libllama: %s", label, why); goto done; }
    if (!rlx_run_seq(mg, prompt, np, toks, STEPS, a, label)) goto done;
    compare(label, "GGUF vs llama.cpp", a, ref, STEPS, 1e-3);
done:
    rlx_llm_destroy(mg);
    free_model(&m);
    free(ref); free(a);
}

/* The same YaRN model as a folder (rope_scaling yarn) and as GGUF, both in rlx, at 96 tokens. */
static void test_yarn_folder(void) {
    model m;
    char msg[512];
    int32_t prompt[MAXP], toks[STEPS];
    float *a = (float*)malloc(sizeof(float) * (STEPS + 1) * V), *b = (float*)malloc(sizeof(float) * (STEPS + 1) * V);
    float* c = (float*)malloc(sizeof(float) * (STEPS + 1) * V);
    rlx_llm *mh = NULL, *mg = NULL, *mp = NULL;
    rlx_result rc;
    gguf_opts go;
    folder_opts fo;
    int s;
    make_model(&m, "llama", 0x7A54u, 0);
    memset(&fo, 0, sizeof fo);
    fo.rope_scaling = "{\"rope_type\": \"yarn\", \"factor\": 4.0, \"original_max_position_embeddings\": 32}";
    memset(&go, 0, sizeof go);
    go.arch = "llama"; go.yarn = 1; go.orig_ctx = 32;
    if (!write_folder(&m, "build/test_llm_hf_yarn", &fo) || !write_gguf(&m, "build/test_llm_hf_yarn.gguf", &go)) { TH_CHECK(0, "yarn folder: write"); goto done; }
    fo.rope_scaling = NULL;
    if (!write_folder(&m, "build/test_llm_hf_noyarn", &fo)) { TH_CHECK(0, "yarn folder: write"); goto done; }
    mh = load_hf("build/test_llm_hf_yarn", &rc, msg, sizeof msg);
    TH_CHECK(mh != NULL, "yarn folder: %s", msg);
    mg = load_gguf("build/test_llm_hf_yarn.gguf", &rc, msg, sizeof msg);
    TH_CHECK(mg != NULL, "yarn GGUF: %s", msg);
    mp = load_hf("build/test_llm_hf_noyarn", &rc, msg, sizeof msg);
    TH_CHECK(mp != NULL, "plain folder: %s", msg);
    if (!mh || !mg || !mp) goto done;
    make_prompt(prompt, MAXP, 99);
    for (s = 0; s < STEPS; s++) toks[s] = (int32_t)(3 + (s * 41) % (V - 3));
    if (!rlx_run_seq(mh, prompt, MAXP, toks, STEPS, a, "yarn") || !rlx_run_seq(mg, prompt, MAXP, toks, STEPS, b, "yarn") ||
        !rlx_run_seq(mp, prompt, MAXP, toks, STEPS, c, "yarn"))
        goto done;
    compare("llama yarn", "folder vs rlx GGUF", a, b, STEPS, 1e-4);
    /* the scaling matters at these positions (else the comparisons could not see it) */
    TH_CHECK(max_diff(a, c, V) > 1e-2 * max_abs(c, V), "yarn: the logits equal the unscaled model's (max|d| %.3g)", max_diff(a, c, V));
done:
    rlx_llm_destroy(mh); rlx_llm_destroy(mg); rlx_llm_destroy(mp);
    free_model(&m);
    free(a); free(b); free(c);
}

/* llama3 rope_freqs factors computed here in f64 (convert_hf_to_gguf.py's formula). */
static void llama3_factors(float* out, double factor, double lo, double hi, double orig) {
    int p;
    for (p = 0; p < HD / 2; p++) {
        double fr = pow(10000.0, -(double)(2 * p) / HD), wl = 2.0 * 3.14159265358979323846 / fr;
        if (wl < orig / hi) out[p] = 1.0f;
        else if (wl > orig / lo) out[p] = (float)factor;
        else {
            double sm = (orig / wl - lo) / (hi - lo);
            out[p] = (float)(1.0 / ((1.0 - sm) / factor + sm));
        }
    }
}

/* A bf16 folder on Vulkan (lavapipe in CI): the borrowed matrices uploaded once, against the CPU. */
static void test_vulkan_folder(const char* dir) {
    int i;
    float *a = (float*)malloc(sizeof(float) * V), *b = (float*)malloc(sizeof(float) * V);
    int32_t prompt[NP];
    char msg[512];
    rlx_llm *gpu = NULL, *cpu = NULL;
    rlx_llm_desc d;
    rlx_result rc;
    if (!th_device_available(RLX_DEVICE_VULKAN)) { th_skip("a folder on Vulkan: no usable Vulkan device"); goto done; }
    memset(&d, 0, sizeof d);
    d.device = RLX_DEVICE_VULKAN; d.n_ctx = 64; d.n_batch = 16; d.error = msg; d.error_cap = sizeof msg;
    rc = rlx_llm_load_hf(dir, &d, &gpu);
    TH_CHECK(rc == RLX_OK, "folder on Vulkan: %s", msg);
    cpu = load_hf(dir, &rc, msg, sizeof msg);
    TH_CHECK(cpu != NULL, "folder on the CPU: %s", msg);
    if (!gpu || !cpu) goto done;
    make_prompt(prompt, NP, 3);
    for (i = 0; i < 3; i++) {
        double dd, mx;
        int k = i == 0 ? NP : 1;
        const int32_t* t = i == 0 ? prompt : &prompt[i];
        TH_CHECK(rlx_llm_eval(gpu, t, k, a) == RLX_OK, "vulkan eval: %s", rlx_llm_error(gpu));
        TH_CHECK(rlx_llm_eval(cpu, t, k, b) == RLX_OK, "cpu eval: %s", rlx_llm_error(cpu));
        dd = max_diff(a, b, V);
        mx = max_abs(b, V);
        TH_CHECK(dd <= 1e-4 * mx && mx > 1.0, "bf16 folder step %d: Vulkan vs CPU max|diff| %.3g (max|logit| %.3g)", i, dd, mx);
        if (i == 2) printf("  %-20s %-26s max|d|/max|logit| %.2e\n", "qwen3_bf16", "Vulkan vs CPU", dd / mx);
    }
done:
    rlx_llm_destroy(gpu);
    rlx_llm_destroy(cpu);
    free(a); free(b);
}

/* ---- bad input ---- */
static void expect_fail(const char* label, model* m, const folder_opts* fo, rlx_result want, const char* needle) {
    char dir[256], msg[512];
    rlx_result rc;
    rlx_llm* x;
    snprintf(dir, sizeof dir, "build/test_llm_hf_bad_%s", label);
    if (!write_folder(m, dir, fo)) { TH_CHECK(0, "%s: writing the folder failed", label); return; }
    x = load_hf(dir, &rc, msg, sizeof msg);
    TH_CHECK(x == NULL && rc == want, "%s: got %s, expected %s (%s)", label, rlx_result_string(rc), rlx_result_string(want), msg);
    TH_CHECK(strstr(msg, needle) != NULL, "%s: the message does not name '%s': %s", label, needle, msg);
    rlx_llm_destroy(x);
}

static void test_bad_input(void) {
    model m;
    folder_opts fo;
    char cfg[4096], *p;
    rlx_result rc;
    char msg[512];
    make_model(&m, "llama", 0xBADu, 0);
    memset(&fo, 0, sizeof fo);
    /* the good folder loads (so each failure below is the change it makes) */
    {
        rlx_llm* x;
        if (write_folder(&m, "build/test_llm_hf_bad_none", &fo)) {
            x = load_hf("build/test_llm_hf_bad_none", &rc, msg, sizeof msg);
            TH_CHECK(x != NULL, "bad input baseline: %s", msg);
            rlx_llm_destroy(x);
        }
    }
#define CFG_EDIT(from, to) do { default_config(&m, NULL, cfg, sizeof cfg); p = strstr(cfg, from); if (p) { char t_[4096]; snprintf(t_, sizeof t_, "%.*s%s%s", (int)(p - cfg), cfg, to, p + strlen(from)); snprintf(cfg, sizeof cfg, "%s", t_); } fo.config = cfg; } while (0)
    CFG_EDIT("\"hidden_size\": 256,", "");
    expect_fail("no_hidden", &m, &fo, RLX_ERROR_FORMAT, "'hidden_size' is missing");
    CFG_EDIT("LlamaForCausalLM", "GPT2LMHeadModel");
    expect_fail("arch", &m, &fo, RLX_ERROR_UNSUPPORTED, "GPT2LMHeadModel");
    CFG_EDIT("\"num_key_value_heads\": 2", "\"num_key_value_heads\": 3");
    expect_fail("kv_heads", &m, &fo, RLX_ERROR_FORMAT, "num_key_value_heads");
    CFG_EDIT("\"num_hidden_layers\": 4", "\"num_hidden_layers\": 1000000");
    expect_fail("layers", &m, &fo, RLX_ERROR_FORMAT, "'num_hidden_layers' = 1000000 is outside");
    CFG_EDIT("\"vocab_size\": 320", "\"vocab_size\": 321");
    expect_fail("vocab", &m, &fo, RLX_ERROR_FORMAT, "vocab_size");
    CFG_EDIT("\"hidden_size\": 256", "\"hidden_size\": \"256\"");
    expect_fail("string", &m, &fo, RLX_ERROR_FORMAT, "'hidden_size' is not an integer");
    CFG_EDIT("\"rope_scaling\": null", "\"rope_scaling\": {\"rope_type\": \"dynamic\", \"factor\": 2.0}");
    expect_fail("rope_dynamic", &m, &fo, RLX_ERROR_UNSUPPORTED, "'dynamic'");
    CFG_EDIT("\"rope_scaling\": null", "\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4.0, \"attn_factor\": 0.5}");
    expect_fail("yarn_attn", &m, &fo, RLX_ERROR_UNSUPPORTED, "attn_factor");
    CFG_EDIT("\"rope_scaling\": null", "\"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 1e-9}");
    expect_fail("rope_factor", &m, &fo, RLX_ERROR_FORMAT, "'rope_scaling.factor' = 1e-09 is outside");
    CFG_EDIT("\"tie_word_embeddings\": false,", "\"tie_word_embeddings\": false, \"tie_word_embeddings\": true,");
    expect_fail("dup_key", &m, &fo, RLX_ERROR_FORMAT, "appears twice");
    CFG_EDIT("\"hidden_act\": \"silu\",", "\"hidden_act\": \"silu\",,");
    expect_fail("json", &m, &fo, RLX_ERROR_FORMAT, "config.json: JSON");
    fo.config = NULL;
    fo.misshape = "blk.2.attn_k.weight";
    expect_fail("shape", &m, &fo, RLX_ERROR_FORMAT, "model.layers.2.self_attn.k_proj.weight' has shape [65, 256], expected [64, 256]");
    fo.misshape = NULL;
    fo.skip = "blk.3.ffn_down.weight";
    expect_fail("missing", &m, &fo, RLX_ERROR_FORMAT, "'model.layers.3.mlp.down_proj.weight' is missing");
    fo.skip = "output.weight";
    expect_fail("no_lm_head", &m, &fo, RLX_ERROR_FORMAT, "lm_head.weight");
    fo.skip = NULL;
    fo.shards = 2;
    fo.index_shard = "../model-00001-of-00002.safetensors";
    expect_fail("index_escape", &m, &fo, RLX_ERROR_FORMAT, "not a plain file name");
    fo.index_shard = "model-00002-of-00002.safetensors";
    expect_fail("index_wrong_shard", &m, &fo, RLX_ERROR_FORMAT, "is not in shard");
    fo.index_shard = NULL;
    fo.shards = 1;
    fo.truncate = 1000;
    expect_fail("truncated", &m, &fo, RLX_ERROR_FORMAT, "run past the end of the data");
    fo.truncate = 0;
    /* no such folder, no weights */
    {
        rlx_llm* x = load_hf("build/test_llm_hf_does_not_exist", &rc, msg, sizeof msg);
        TH_CHECK(x == NULL && rc == RLX_ERROR_IO && strstr(msg, "config.json"), "no folder: %s %s", rlx_result_string(rc), msg);
        x = NULL;
        rc = rlx_llm_load_hf(NULL, NULL, &x);
        TH_CHECK(rc == RLX_ERROR_INVALID_ARGUMENT && x == NULL, "NULL folder: %s", rlx_result_string(rc));
        MKDIR("build/test_llm_hf_bad_noweights");
        default_config(&m, NULL, cfg, sizeof cfg);
        write_text("build/test_llm_hf_bad_noweights/config.json", cfg);
        x = load_hf("build/test_llm_hf_bad_noweights", &rc, msg, sizeof msg);
        TH_CHECK(x == NULL && rc == RLX_ERROR_IO && strstr(msg, "model.safetensors"), "no weights: %s %s", rlx_result_string(rc), msg);
    }
#undef CFG_EDIT
    free_model(&m);
}

int main(void) {
    llama_api L;
    int have = load_llama(&L);
    float freqs[HD / 2], lr[2][HD / 2];
    int i;
    printf("test_llm_hf: Hugging Face folders and rope scaling against libllama\n");
    if (!have) th_skip("libllama comparisons: %s", g_skip);
    llama3_factors(freqs, 8.0, 1.0, 4.0, 64.0);
    test_folder(have ? &L : NULL, "llama", "llama", 0, 1, NULL, NULL);
    test_folder(have ? &L : NULL, "qwen2", "qwen2", 0, 1, NULL, NULL);
    test_folder(have ? &L : NULL, "qwen3", "qwen3", 0, 1, NULL, NULL);
    test_folder(have ? &L : NULL, "llama_sharded", "llama", 0, 2, NULL, NULL);
    test_folder(have ? &L : NULL, "qwen3_bf16", "qwen3", 1, 2, NULL, NULL);
    test_folder(have ? &L : NULL, "llama_llama3", "llama", 0, 1,
                "{\"rope_type\": \"llama3\", \"factor\": 8.0, \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, \"original_max_position_embeddings\": 64}",
                freqs);
    test_sharded();
    test_vulkan_folder("build/test_llm_hf_qwen3_bf16");
    test_yarn_folder();
    if (have) {
        gguf_opts go;
        memset(&go, 0, sizeof go);
        go.arch = "llama"; go.yarn = 1; go.orig_ctx = 32;
        test_scaling(&L, "yarn", &go, MAXP);
        th_seed(0x10A6u);
        for (i = 0; i < HD / 2; i++) { lr[0][i] = (float)th_uniform(1.0, 1.5); lr[1][i] = (float)th_uniform(1.0, 8.0); }
        memset(&go, 0, sizeof go);
        go.arch = "phi3"; go.longrope[0] = lr[0]; go.longrope[1] = lr[1]; go.attn_factor = 1.19; go.orig_ctx = 32;
        test_scaling(&L, "longrope_long", &go, MAXP);
        go.orig_ctx = 4096;   /* llama.cpp's context (128, rounded up to 256) and rlx's (128) are below: short */
        test_scaling(&L, "longrope_short", &go, MAXP);
    } else {
        th_skip("YaRN and LongRoPE against libllama: %s", g_skip);
    }
    test_bad_input();
    return th_summary("llm_hf");
}
