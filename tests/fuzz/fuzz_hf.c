/* libFuzzer target for Hugging Face folders (rlx_llm_load_hf, >>llmhf) and their tokenizers (>>hftok).
   An input that starts with "TOK\n" is tokenizer.json, optionally followed by a NUL byte and
   tokenizer_config.json, given to rlx_tokenizer_from_hf_json. Contract: RLX_OK or an error with a non-empty
   message and no tokenizer; a tokenizer that loads tokenizes a fixed text and the input's own bytes (with and
   without special tokens) to ids inside its vocabulary, detokenizes them and is destroyed.
   Any other input is config.json. A folder with
   one fixed model.safetensors (a tiny model, 2 layers, d 8, 2 query heads / 1 kv head of 4, SwiGLU 16, 16 token
   vocabulary, with the tensors of llama, qwen2 and qwen3 and an lm_head; one norm stored as bf16) is made once
   per process in the temporary directory; each input is written as its config.json and loaded. Contract:
   rlx_llm_load_hf returns RLX_OK or an error with a non-empty message; a model that loads runs a 3-token prompt
   and a decode step with finite logits and is destroyed (ASan's leak check covers the rest).
   Build and run: make fuzz-hf (see the Makefile); seeds in tests/fuzz/corpus_hf. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links one instrumented implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !defined(_WIN32)
#  include <sys/stat.h>
#  include <unistd.h>
#endif

static char fz_dir[256];

static int fz_setup(void) {
    static float pool[8192];
    static uint16_t bf[8];
    rlx_safetensors_writer* w = NULL;
    char path[300], name[96];
    size_t used = 0;
    int l, i, ok = 1;
    const char* tmp = getenv("TMPDIR");
#if !defined(_WIN32)
    snprintf(fz_dir, sizeof fz_dir, "%s/rlx_fuzz_hf_%ld", tmp && tmp[0] ? tmp : "/tmp", (long)getpid());
    mkdir(fz_dir, 0755);
#else
    snprintf(fz_dir, sizeof fz_dir, "%s", tmp ? tmp : ".");
#endif
    for (i = 0; i < (int)(sizeof pool / sizeof pool[0]); i++) pool[i] = 0.05f * (float)((i * 37 + 11) % 19 - 9);
    for (i = 0; i < 8; i++) bf[i] = 0x3F80;   /* 1.0 */
    if (rlx_safetensors_writer_create(NULL, &w) != RLX_OK) return 0;
#define T(nm, r_, c_) do { int64_t s_[2]; s_[0] = r_; s_[1] = c_; ok &= rlx_safetensors_writer_tensor(w, nm, RLX_F32, (c_) ? 2 : 1, s_, pool + used) == RLX_OK; used += (size_t)(r_) * (size_t)((c_) ? (c_) : 1); } while (0)
    T("model.embed_tokens.weight", 16, 8);
    { int64_t s8 = 8; ok &= rlx_safetensors_writer_tensor(w, "model.norm.weight", RLX_BF16, 1, &s8, bf) == RLX_OK; }
    T("lm_head.weight", 16, 8);
    for (l = 0; l < 2; l++) {
#define L(what, r_, c_) do { snprintf(name, sizeof name, "model.layers.%d.%s", l, what); T(name, r_, c_); } while (0)
        L("input_layernorm.weight", 8, 0);
        L("self_attn.q_proj.weight", 8, 8);
        L("self_attn.k_proj.weight", 4, 8);
        L("self_attn.v_proj.weight", 4, 8);
        L("self_attn.o_proj.weight", 8, 8);
        L("self_attn.q_proj.bias", 8, 0);
        L("self_attn.k_proj.bias", 4, 0);
        L("self_attn.v_proj.bias", 4, 0);
        L("self_attn.q_norm.weight", 4, 0);
        L("self_attn.k_norm.weight", 4, 0);
        L("post_attention_layernorm.weight", 8, 0);
        L("mlp.gate_proj.weight", 16, 8);
        L("mlp.up_proj.weight", 16, 8);
        L("mlp.down_proj.weight", 8, 16);
#undef L
    }
#undef T
    snprintf(path, sizeof path, "%s/model.safetensors", fz_dir);
    if (ok) ok = rlx_safetensors_writer_write_file(w, path) == RLX_OK;
    rlx_safetensors_writer_destroy(w);
    return ok;
}

/* tokenizer.json [NUL tokenizer_config.json] */
static int fz_tokenizer(const char* data, size_t size) {
    const char* nul = size ? (const char*)memchr(data, 0, size) : NULL;
    size_t tn = nul ? (size_t)(nul - data) : size;
    rlx_tokenizer* t = NULL;
    rlx_tokenizer_desc d;
    char err[512];
    rlx_result r;
    memset(&d, 0, sizeof d);
    d.error = err; d.error_cap = sizeof err;
    err[0] = 0;
    r = rlx_tokenizer_from_hf_json(data, tn, nul ? nul + 1 : NULL, nul ? size - tn - 1 : 0, &d, &t);
    if (r != RLX_OK) {
        if (t || !err[0]) abort();
        return 0;
    }
    {
        static int32_t ids[8192];
        static char text[65536];
        int k;
        for (k = 0; k < 4; k++) {
            const char* s = k < 2 ? "Hello world! <s> 123 caf\xc3\xa9 \xe2\x96\x81 <|eot_id|>" : data;
            size_t sl = k < 2 ? strlen(s) : size, n = 0, i, tl = 0;
            unsigned fl = (k & 1) ? RLX_TOKENIZE_ADD_SPECIAL | RLX_TOKENIZE_PARSE_SPECIAL : 0u;
            r = rlx_tokenize(t, s, sl, fl, ids, 8192, &n);
            if (r == RLX_ERROR_SIZE) continue;
            if (r != RLX_OK) { if (!rlx_tokenizer_error(t)[0]) abort(); continue; }
            for (i = 0; i < n; i++) if (ids[i] < 0 || ids[i] >= rlx_tokenizer_n_vocab(t)) abort();
            r = rlx_detokenize(t, ids, n, (k & 1) ? RLX_DETOKENIZE_UNPARSE_SPECIAL : 0u, text, sizeof text, &tl);
            if (r != RLX_OK && r != RLX_ERROR_SIZE) abort();
        }
        (void)rlx_tokenizer_chat_template(t);
    }
    rlx_tokenizer_destroy(t);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static int ready = -1;
    char path[300], err[512];
    FILE* f;
    rlx_llm* m = NULL;
    rlx_llm_desc d;
    rlx_result r;
    if (ready < 0) ready = fz_setup();
    if (!ready) abort();
    if (size >= 4 && memcmp(data, "TOK\n", 4) == 0) return fz_tokenizer((const char*)data + 4, size - 4);
    snprintf(path, sizeof path, "%s/config.json", fz_dir);
    f = fopen(path, "wb");
    if (!f) abort();
    if (size) fwrite(data, 1, size, f);
    fclose(f);
    memset(&d, 0, sizeof d);
    d.device = RLX_DEVICE_CPU;
    d.n_ctx = 16; d.n_batch = 4; d.num_threads = 1;
    d.error = err; d.error_cap = sizeof err;
    err[0] = 0;
    r = rlx_llm_load_hf(fz_dir, &d, &m);
    if (r != RLX_OK) {
        if (m || !err[0]) abort();   /* an error always says what */
        return 0;
    }
    {
        int32_t toks[3] = {1, 5, 9};
        float logits[16];
        int i, nv = rlx_llm_n_vocab(m);
        if (nv != 16) abort();
        r = rlx_llm_eval(m, toks, 3, logits);
        if (r == RLX_OK) r = rlx_llm_eval(m, toks + 1, 1, logits);
        if (r != RLX_OK && !rlx_llm_error(m)[0]) abort();
        if (r == RLX_OK)
            for (i = 0; i < 16; i++) if (!(fabsf(logits[i]) < 1e30f)) abort();
    }
    rlx_llm_destroy(m);
    return 0;
}
