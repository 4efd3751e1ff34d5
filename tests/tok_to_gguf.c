/* tok_to_gguf: converts a Hugging Face tokenizer.json (+ tokenizer_config.json) into a GGUF file holding only
   tokenizer metadata, for libllama (tests/test_tok.c, tests/test_llm_hf_tok.c).

       tok_to_gguf tokenizer.json [tokenizer_config.json|-] out.gguf [pre]

   The tokenizer.ggml.* keys are written by rlx.h's own converter (>>hftok, the code behind
   rlx_tokenizer_from_hf and rlx_llm_load_hf), which follows llama.cpp's convert_hf_to_gguf.py: a BPE model with
   byte_fallback becomes tokenizer.ggml.model "llama" (SentencePiece-style), one without it "gpt2" (byte-level
   BPE) with tokenizer.ggml.pre recognised from the pre-tokenizer, or `pre` when given (tests run one
   vocabulary under several pre-tokenizers). The file also gets general.architecture "llama" and the few
   llama.* hyperparameters libllama reads before the vocabulary (vocab_only loading still parses them); rlx.h
   ignores them. */
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

/* The converter; the tests call it directly (with TOK_TO_GGUF_NO_MAIN). Returns 0 on success. */
static int tok_to_gguf_main(int argc, char** argv) {
    size_t jn = 0, cn = 0, sz = 0;
    char *js, *cs = NULL;
    char err[512];
    rlx_gguf_writer* w = NULL;
    int32_t bos, eos;
    uint32_t u;
    float f;
    int rc = 0;
    if (argc < 4) return tok_die("usage: tok_to_gguf tokenizer.json [tokenizer_config.json|-] out.gguf [pre]", NULL);
    if (!(js = tok_slurp(argv[1], &jn))) return tok_die("cannot read", argv[1]);
    if (strcmp(argv[2], "-") != 0 && !(cs = tok_slurp(argv[2], &cn))) { free(js); return tok_die("cannot read", argv[2]); }
    if (rlx_gguf_writer_create(NULL, &w) != RLX_OK) { free(js); free(cs); return tok_die("writer", NULL); }
#define CK(x) do { if ((x) != RLX_OK) { rc = tok_die(rlx_gguf_writer_error(w), #x); goto done; } } while (0)
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
    if (rlx__hf_tok_meta(NULL, js, jn, cs, cn, argc > 4 ? argv[4] : NULL, w, err, sizeof err, &bos, &eos) != RLX_OK) {
        rc = tok_die(err, argv[1]);
        goto done;
    }
    CK(rlx_gguf_writer_size(w, &sz));
    CK(rlx_gguf_writer_write_file(w, argv[3]));
#undef CK
    printf("tok_to_gguf: %s: %lu bytes\n", argv[3], (unsigned long)sz);
done:
    rlx_gguf_writer_destroy(w);
    free(js);
    free(cs);
    return rc;
}

#ifndef TOK_TO_GGUF_NO_MAIN
int main(int argc, char** argv) { return tok_to_gguf_main(argc, argv); }
#endif
