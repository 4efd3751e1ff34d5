/* tok_to_gguf: converts a Hugging Face tokenizer.json (+ tokenizer_config.json) into a GGUF file holding only
   tokenizer metadata, the way llama.cpp's convert_hf_to_gguf.py writes it, for tests/test_tok.c.

       tok_to_gguf tokenizer.json [tokenizer_config.json|-] out.gguf [pre]

   A BPE model with byte_fallback becomes tokenizer.ggml.model "llama" (SentencePiece-style): token types
   normal / unknown / control / user-defined / byte (<0xXX>), scores -id for normal tokens (a SentencePiece
   vocabulary is stored in score order, so id order is the merge priority) and 0 for the rest, add_space_prefix
   from a Prepend("▁") normalizer. Otherwise "gpt2" (byte-level BPE): merges (the "a b" strings, or pairs
   joined by a space) and tokenizer.ggml.pre = `pre` (default "default"). Added tokens are control tokens when
   "special", else user-defined; ids without a token become "[PAD<id>]" of type unused. BOS/EOS/UNK ids and
   add_bos_token/add_eos_token come from tokenizer_config.json when it has them. The file also gets
   general.architecture "llama" and the few llama.* hyperparameters libllama reads before the vocabulary
   (vocab_only loading still parses them); rlx.h ignores them. Built with rlx.h's own JSON parser and GGUF
   writer. */
#ifndef TOK_TO_GGUF_NO_MAIN
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"

#include <stdio.h>
#include <stdlib.h>

static char* tok_slurp(const char* path, size_t* n) {
    FILE* f = fopen(path, "rb");
    long sz;
    char* p;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) { fclose(f); return NULL; }
    p = (char*)malloc((size_t)sz + 1);
    if (p && fread(p, 1, (size_t)sz, f) != (size_t)sz) { free(p); p = NULL; }
    fclose(f);
    if (p) { p[sz] = 0; *n = (size_t)sz; }
    return p;
}

static int tok_die(const char* msg, const char* extra) {
    fprintf(stderr, "tok_to_gguf: %s%s%s\n", msg, extra ? ": " : "", extra ? extra : "");
    return 1;
}

typedef struct tok_info { const char* text; size_t len; int type; int special; } tok_info;

/* the text of a config entry that is a string or {"content": string} */
static const char* tok_cfg_token(const rlx__json* j, int obj, const char* key) {
    int v = rlx__json_get(j, obj, key);
    if (v < 0) return NULL;
    if (j->nodes[v].type == RLX__JSON_STRING) return j->nodes[v].str;
    if (j->nodes[v].type == RLX__JSON_OBJECT) {
        int c = rlx__json_get(j, v, "content");
        if (c >= 0 && j->nodes[c].type == RLX__JSON_STRING) return j->nodes[c].str;
    }
    return NULL;
}
static int tok_find_text(const tok_info* t, int n, const char* s) {
    int i;
    size_t l;
    if (!s) return -1;
    l = strlen(s);
    for (i = n - 1; i >= 0; i--) if (t[i].text && t[i].len == l && memcmp(t[i].text, s, l) == 0) return i;
    return -1;
}

/* The converter; tests/test_tok.c calls it directly (with TOK_TO_GGUF_NO_MAIN). Returns 0 on success. */
static int tok_to_gguf_main(int argc, char** argv) {
    size_t jn = 0, cn = 0, sz = 0;
    char *js, *cs = NULL;
    rlx__json j, c;
    int root, croot = -1, model, vocab, added, merges = -1, e, n = 0, i, spm, has_prepend = 0;
    tok_info* tk;
    const char* pre = argc > 4 ? argv[4] : "default";
    rlx_gguf_writer* w = NULL;
    char** pads;
    const char** texts;
    float* scores;
    int32_t* types;
    uint32_t u;
    float f;
    uint8_t b;
    const char** ms = NULL;
    char** joined = NULL;
    int nm = 0;
    if (argc < 4) return tok_die("usage: tok_to_gguf tokenizer.json [tokenizer_config.json|-] out.gguf [pre]", NULL);
    if (!(js = tok_slurp(argv[1], &jn))) return tok_die("cannot read", argv[1]);
    if ((root = rlx__json_parse(&j, NULL, js, jn, 64)) < 0) return tok_die(j.err, argv[1]);
    if (strcmp(argv[2], "-") != 0) {
        if (!(cs = tok_slurp(argv[2], &cn))) return tok_die("cannot read", argv[2]);
        if ((croot = rlx__json_parse(&c, NULL, cs, cn, 64)) < 0) return tok_die(c.err, argv[2]);
    }
    model = rlx__json_get(&j, root, "model");
    if (model < 0) return tok_die("no \"model\"", NULL);
    e = rlx__json_get(&j, model, "type");
    if (e < 0 || j.nodes[e].type != RLX__JSON_STRING || strcmp(j.nodes[e].str, "BPE") != 0) return tok_die("only BPE models are converted", NULL);
    e = rlx__json_get(&j, model, "byte_fallback");
    spm = e >= 0 && j.nodes[e].type == RLX__JSON_TRUE;
    vocab = rlx__json_get(&j, model, "vocab");
    if (vocab < 0 || j.nodes[vocab].type != RLX__JSON_OBJECT) return tok_die("no model.vocab object", NULL);
    added = rlx__json_get(&j, root, "added_tokens");
    if (!spm) {
        merges = rlx__json_get(&j, model, "merges");
        if (merges < 0 || j.nodes[merges].type != RLX__JSON_ARRAY) return tok_die("no model.merges array", NULL);
    }
    /* the normalizer prepends U+2581: SentencePiece's add_dummy_prefix */
    e = rlx__json_get(&j, root, "normalizer");
    if (e >= 0 && strstr(js + j.nodes[e].pos, "\"Prepend\"") != NULL) {
        const char* at = strstr(js + j.nodes[e].pos, "\"Prepend\"");
        int m = rlx__json_get(&j, root, "pre_tokenizer");
        has_prepend = m < 0 || at < js + j.nodes[m].pos;
    }
    /* vocabulary size: the largest id + 1 */
    for (e = j.nodes[vocab].first; e >= 0; e = j.nodes[e].next) {
        if (j.nodes[e].type != RLX__JSON_NUMBER || !j.nodes[e].is_int || j.nodes[e].ival < 0 || j.nodes[e].ival > 10000000) return tok_die("bad vocab id", j.nodes[e].key);
        if (j.nodes[e].ival + 1 > n) n = (int)j.nodes[e].ival + 1;
    }
    if (added >= 0) for (e = j.nodes[added].first; e >= 0; e = j.nodes[e].next) {
        int id = rlx__json_get(&j, e, "id");
        if (id < 0 || !j.nodes[id].is_int || j.nodes[id].ival < 0 || j.nodes[id].ival > 10000000) return tok_die("bad added token id", NULL);
        if (j.nodes[id].ival + 1 > n) n = (int)j.nodes[id].ival + 1;
    }
    tk = (tok_info*)calloc((size_t)n, sizeof *tk);
    for (e = j.nodes[vocab].first; e >= 0; e = j.nodes[e].next) {
        tok_info* t = &tk[j.nodes[e].ival];
        t->text = j.nodes[e].key; t->len = j.nodes[e].key_len; t->type = RLX_TOKEN_TYPE_NORMAL;
    }
    if (added >= 0) for (e = j.nodes[added].first; e >= 0; e = j.nodes[e].next) {
        int id = rlx__json_get(&j, e, "id"), ct = rlx__json_get(&j, e, "content"), sp = rlx__json_get(&j, e, "special");
        tok_info* t = &tk[j.nodes[id].ival];
        if (ct < 0 || j.nodes[ct].type != RLX__JSON_STRING) return tok_die("added token without content", NULL);
        t->text = j.nodes[ct].str; t->len = j.nodes[ct].len;
        t->special = sp >= 0 && j.nodes[sp].type == RLX__JSON_TRUE;
        t->type = t->special ? RLX_TOKEN_TYPE_CONTROL : RLX_TOKEN_TYPE_USER_DEFINED;
    }
    pads = (char**)calloc((size_t)n, sizeof *pads);
    texts = (const char**)calloc((size_t)n, sizeof *texts);
    scores = (float*)calloc((size_t)n, sizeof *scores);
    types = (int32_t*)calloc((size_t)n, sizeof *types);
    for (i = 0; i < n; i++) {
        if (!tk[i].text) {
            pads[i] = (char*)malloc(32);
            snprintf(pads[i], 32, "[PAD%d]", i);
            tk[i].text = pads[i]; tk[i].len = strlen(pads[i]); tk[i].type = RLX_TOKEN_TYPE_UNUSED;
        }
        if (memchr(tk[i].text, 0, tk[i].len)) return tok_die("a token text holds a NUL byte", NULL);
        texts[i] = tk[i].text;
        if (spm && tk[i].type == RLX_TOKEN_TYPE_NORMAL && rlx__tok_hexbyte(tk[i].text, tk[i].len) >= 0) tk[i].type = RLX_TOKEN_TYPE_BYTE;
        types[i] = tk[i].type;
        scores[i] = spm && tk[i].type == RLX_TOKEN_TYPE_NORMAL ? -(float)i : 0.0f;
    }
    if (spm) {   /* the unknown token */
        int ut = rlx__json_get(&j, model, "unk_token");
        if (ut >= 0 && j.nodes[ut].type == RLX__JSON_STRING) {
            int id = tok_find_text(tk, n, j.nodes[ut].str);
            if (id >= 0) types[id] = RLX_TOKEN_TYPE_UNKNOWN;
        }
    }

    if (rlx_gguf_writer_create(NULL, &w) != RLX_OK) return tok_die("writer", NULL);
#define CK(x) do { if ((x) != RLX_OK) return tok_die(rlx_gguf_writer_error(w), #x); } while (0)
    CK(rlx_gguf_writer_string(w, "general.architecture", "llama", 5));
    CK(rlx_gguf_writer_string(w, "general.name", "tokenizer only", 14));
    u = 4096; CK(rlx_gguf_writer_kv(w, "llama.context_length", RLX_GGUF_U32, &u));
    u = 64;   CK(rlx_gguf_writer_kv(w, "llama.embedding_length", RLX_GGUF_U32, &u));
    u = 1;    CK(rlx_gguf_writer_kv(w, "llama.block_count", RLX_GGUF_U32, &u));
    u = 128;  CK(rlx_gguf_writer_kv(w, "llama.feed_forward_length", RLX_GGUF_U32, &u));
    u = 4;    CK(rlx_gguf_writer_kv(w, "llama.attention.head_count", RLX_GGUF_U32, &u));
    u = 4;    CK(rlx_gguf_writer_kv(w, "llama.attention.head_count_kv", RLX_GGUF_U32, &u));
    u = 16;   CK(rlx_gguf_writer_kv(w, "llama.rope.dimension_count", RLX_GGUF_U32, &u));
    f = 1e-5f; CK(rlx_gguf_writer_kv(w, "llama.attention.layer_norm_rms_epsilon", RLX_GGUF_F32, &f));
    CK(rlx_gguf_writer_string(w, "tokenizer.ggml.model", spm ? "llama" : "gpt2", spm ? 5 : 4));
    if (!spm) CK(rlx_gguf_writer_string(w, "tokenizer.ggml.pre", pre, strlen(pre)));
    CK(rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, texts, (uint64_t)n));
    if (spm) CK(rlx_gguf_writer_array(w, "tokenizer.ggml.scores", RLX_GGUF_F32, scores, (uint64_t)n));
    CK(rlx_gguf_writer_array(w, "tokenizer.ggml.token_type", RLX_GGUF_I32, types, (uint64_t)n));
    if (!spm) {
        int k = 0;
        nm = j.nodes[merges].count;
        ms = (const char**)calloc((size_t)nm + 1, sizeof *ms);
        joined = (char**)calloc((size_t)nm + 1, sizeof *joined);
        for (e = j.nodes[merges].first; e >= 0; e = j.nodes[e].next, k++) {
            if (j.nodes[e].type == RLX__JSON_STRING) ms[k] = j.nodes[e].str;
            else if (j.nodes[e].type == RLX__JSON_ARRAY && j.nodes[e].count == 2) {
                int a = j.nodes[e].first, bb = j.nodes[a].next;
                size_t la = j.nodes[a].len, lb = j.nodes[bb].len;
                char* s = (char*)malloc(la + lb + 2);
                memcpy(s, j.nodes[a].str, la); s[la] = ' '; memcpy(s + la + 1, j.nodes[bb].str, lb); s[la + lb + 1] = 0;
                ms[k] = joined[k] = s;
            } else return tok_die("bad merge", NULL);
        }
        CK(rlx_gguf_writer_array(w, "tokenizer.ggml.merges", RLX_GGUF_STRING, ms, (uint64_t)nm));
    }
    {   /* special ids */
        const char* bos = croot >= 0 ? tok_cfg_token(&c, croot, "bos_token") : NULL;
        const char* eos = croot >= 0 ? tok_cfg_token(&c, croot, "eos_token") : NULL;
        const char* unk = croot >= 0 ? tok_cfg_token(&c, croot, "unk_token") : NULL;
        const char* pad = croot >= 0 ? tok_cfg_token(&c, croot, "pad_token") : NULL;
        int id;
        if ((id = tok_find_text(tk, n, bos)) >= 0) { u = (uint32_t)id; CK(rlx_gguf_writer_kv(w, "tokenizer.ggml.bos_token_id", RLX_GGUF_U32, &u)); }
        if ((id = tok_find_text(tk, n, eos)) >= 0) { u = (uint32_t)id; CK(rlx_gguf_writer_kv(w, "tokenizer.ggml.eos_token_id", RLX_GGUF_U32, &u)); }
        if ((id = tok_find_text(tk, n, unk)) >= 0) { u = (uint32_t)id; CK(rlx_gguf_writer_kv(w, "tokenizer.ggml.unknown_token_id", RLX_GGUF_U32, &u)); }
        if ((id = tok_find_text(tk, n, pad)) >= 0) { u = (uint32_t)id; CK(rlx_gguf_writer_kv(w, "tokenizer.ggml.padding_token_id", RLX_GGUF_U32, &u)); }
        if (croot >= 0 && (id = rlx__json_get(&c, croot, "add_bos_token")) >= 0 && c.nodes[id].type != RLX__JSON_NULL) {
            b = c.nodes[id].type == RLX__JSON_TRUE; CK(rlx_gguf_writer_kv(w, "tokenizer.ggml.add_bos_token", RLX_GGUF_BOOL, &b));
        }
        if (croot >= 0 && (id = rlx__json_get(&c, croot, "add_eos_token")) >= 0 && c.nodes[id].type != RLX__JSON_NULL) {
            b = c.nodes[id].type == RLX__JSON_TRUE; CK(rlx_gguf_writer_kv(w, "tokenizer.ggml.add_eos_token", RLX_GGUF_BOOL, &b));
        }
        if (spm) { b = (uint8_t)has_prepend; CK(rlx_gguf_writer_kv(w, "tokenizer.ggml.add_space_prefix", RLX_GGUF_BOOL, &b)); }
    }
    CK(rlx_gguf_writer_size(w, &sz));
    CK(rlx_gguf_writer_write_file(w, argv[3]));
#undef CK
    rlx_gguf_writer_destroy(w);
    for (i = 0; i < n; i++) free(pads[i]);
    for (i = 0; joined && i < nm; i++) free(joined[i]);
    free(pads); free((void*)texts); free(scores); free(types); free(tk); free((void*)ms); free(joined);
    rlx__json_free(&j); free(js);
    if (croot >= 0) { rlx__json_free(&c); }
    free(cs);
    printf("tok_to_gguf: %s: %s, %d tokens, %lu bytes\n", argv[3], spm ? "llama (SentencePiece)" : "gpt2 (byte-level BPE)", n, (unsigned long)sz);
    return 0;
}

#ifndef TOK_TO_GGUF_NO_MAIN
int main(int argc, char** argv) { return tok_to_gguf_main(argc, argv); }
#endif
