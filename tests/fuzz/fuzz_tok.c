/* libFuzzer target for the tokenizer (>>tok): random bytes tokenized and decoded with a fixed small vocabulary,
   tokenizers built from hostile tokenizer.ggml.* metadata (empty and duplicate token texts, invalid UTF-8,
   token types out of range, scores of any bit pattern, arrays of the wrong type or length, special ids out of
   range or of the wrong type), and raw bytes as a GGUF file. Under ASan + UBSan any out-of-bounds access or
   undefined behaviour stops it; so does a broken contract: a token id outside the vocabulary, a count that
   differs between the sized and the unsized call, a stream whose chunks differ from rlx_detokenize, or (fixed
   vocabulary, which has every byte token; valid UTF-8 without U+2581 or a user-defined token, after which
   a space prefix is added as in llama.cpp) detokenize(tokenize(text)) != text.

   Input: byte 0 the mode (fixed vocabulary / metadata from the input / a raw GGUF / fixed byte-level BPE
   vocabulary, whose qwen2 variant must round-trip valid UTF-8), byte 1 the flags, the rest the text or the
   metadata.
       make fuzz-tok [FUZZ_SECONDS=60]
   RLX_FUZZ_STANDALONE builds a replayer: fuzz_tok FILE... */
#define RLX_IMPLEMENTATION   /* its own: the checks below read rlx__utf8_valid and the tokenizer's clean_spaces */
#include "../../rlx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void ft_fail(const char* what, const char* msg) {
    fprintf(stderr, "fuzz_tok: %s (%s)\n", what, msg);
    abort();
}

static rlx_tokenizer* ft_from_writer(rlx_gguf_writer* w) {
    size_t sz = 0;
    void* mem;
    rlx_gguf* g = NULL;
    rlx_tokenizer* t = NULL;
    char err[256];
    rlx_tokenizer_desc d;
    rlx_result rc;
    if (rlx_gguf_writer_size(w, &sz) != RLX_OK) return NULL;
    mem = malloc(sz);
    if (!mem || rlx_gguf_writer_write_memory(w, mem, sz) != RLX_OK) { free(mem); return NULL; }
    if (rlx_gguf_open_memory(mem, sz, NULL, &g) == RLX_OK) {
        memset(&d, 0, sizeof d);
        d.error = err; d.error_cap = sizeof err;
        rc = rlx_tokenizer_from_gguf(g, &d, &t);
        if (rc != RLX_OK && (t || !err[0])) ft_fail("a failed rlx_tokenizer_from_gguf without a message or with a tokenizer", err);
        rlx_gguf_close(g);
    }
    free(mem);
    return t;
}

/* The fixed vocabulary: every byte token, the SentencePiece space, letters and pairs with scores, control and
   user-defined tokens, an empty token and a duplicate text. */
static rlx_tokenizer* ft_fixed(void) {
    static rlx_tokenizer* t;
    static const char* const extra[] = {"\xe2\x96\x81", "a", "b", "c", "ab", "bc", "abc", "\342\226\201a", "\342\226\201ab",
                                        "<tool>", "", "ab", "\xe6\x97\xa5", "\xe6\x97\xa5\xe6\x9c\xac", "<|x|>", " ", "\xe2\x96\x81\xe2\x96\x81"};
    const char* texts[3 + 256 + sizeof extra / sizeof extra[0]];
    char bytes[256][7];
    float sc[sizeof texts / sizeof texts[0]];
    int32_t ty[sizeof texts / sizeof texts[0]];
    int i, n = 0;
    rlx_gguf_writer* w = NULL;
    if (t) return t;
    texts[n] = "<unk>"; ty[n] = 2; sc[n++] = 0;
    texts[n] = "<s>"; ty[n] = 3; sc[n++] = 0;
    texts[n] = "</s>"; ty[n] = 3; sc[n++] = 0;
    for (i = 0; i < 256; i++) { snprintf(bytes[i], 7, "<0x%02X>", i); texts[n] = bytes[i]; ty[n] = 6; sc[n++] = 0; }
    for (i = 0; i < (int)(sizeof extra / sizeof extra[0]); i++) {
        texts[n] = extra[i];
        ty[n] = strcmp(extra[i], "<tool>") == 0 ? 4 : strcmp(extra[i], "<|x|>") == 0 ? 3 : 1;
        sc[n] = -(float)(i % 7);
        n++;
    }
    rlx_gguf_writer_create(NULL, &w);
    rlx_gguf_writer_string(w, "tokenizer.ggml.model", "llama", 5);
    rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, texts, (uint64_t)n);
    rlx_gguf_writer_array(w, "tokenizer.ggml.scores", RLX_GGUF_F32, sc, (uint64_t)n);
    rlx_gguf_writer_array(w, "tokenizer.ggml.token_type", RLX_GGUF_I32, ty, (uint64_t)n);
    t = ft_from_writer(w);
    rlx_gguf_writer_destroy(w);
    if (!t) ft_fail("the fixed vocabulary does not load", "");
    return t;
}

/* The fixed byte-level BPE vocabulary: GPT-2's 256 byte characters, a few merges, a control token; one per
   pre-tokenizer. */
static rlx_tokenizer* ft_fixed_bpe(int pre) {
    static rlx_tokenizer* t[3];
    static const char* const pres[3] = {"llama-bpe", "qwen2", "gpt-2"};
    static const char* const extra[] = {"ab", "\304\240a", "\304\240ab", "12", "123", "\xc4\xa0\xc4\xa0", "<|x|>", "\xc3\xa6\xc2\x97\xc2\xa5"};
    static const char* const merges[] = {"a b", "\xc4\xa0 a", "\304\240a b", "1 2", "12 3", "\xc4\xa0 \xc4\xa0"};
    static char chars[256][3];
    const char* texts[256 + sizeof extra / sizeof extra[0]];
    int32_t ty[sizeof texts / sizeof texts[0]];
    int i, k, n = 0;
    rlx_gguf_writer* w = NULL;
    if (t[pre]) return t[pre];
    for (i = 0, k = 0; i < 256; i++) {
        unsigned c = (i >= 33 && i <= 126) || (i >= 161 && i <= 172) || i >= 174 ? (unsigned)i : 256u + (unsigned)k++;
        if (c < 0x80) { chars[i][0] = (char)c; chars[i][1] = 0; }
        else { chars[i][0] = (char)(0xC0 | (c >> 6)); chars[i][1] = (char)(0x80 | (c & 0x3F)); chars[i][2] = 0; }
        texts[n] = chars[i]; ty[n++] = 1;
    }
    for (i = 0; i < (int)(sizeof extra / sizeof extra[0]); i++) { texts[n] = extra[i]; ty[n++] = strcmp(extra[i], "<|x|>") == 0 ? 3 : 1; }
    rlx_gguf_writer_create(NULL, &w);
    rlx_gguf_writer_string(w, "tokenizer.ggml.model", "gpt2", 4);
    rlx_gguf_writer_string(w, "tokenizer.ggml.pre", pres[pre], strlen(pres[pre]));
    rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, texts, (uint64_t)n);
    rlx_gguf_writer_array(w, "tokenizer.ggml.token_type", RLX_GGUF_I32, ty, (uint64_t)n);
    rlx_gguf_writer_array(w, "tokenizer.ggml.merges", RLX_GGUF_STRING, merges, sizeof merges / sizeof merges[0]);
    t[pre] = ft_from_writer(w);
    rlx_gguf_writer_destroy(w);
    if (!t[pre]) ft_fail("the fixed BPE vocabulary does not load", pres[pre]);
    return t[pre];
}

/* tokenize, check the ids and the count convention, detokenize, stream; returns the ids' text in *txt */
static void ft_exercise(rlx_tokenizer* t, const uint8_t* s, size_t n, unsigned flags, int roundtrip) {
    size_t cnt = 0, cnt2 = 0, len = 0, len2 = 0, i, tot = 0;
    int32_t* ids;
    char *txt, *st;
    unsigned df = (flags >> 2) & 3u;
    rlx_token_stream ts;
    rlx_result rc = rlx_tokenize(t, (const char*)s, n, flags & 3u, NULL, 0, &cnt);
    if (rc != RLX_OK && rc != RLX_ERROR_SIZE) {
        if (rc == RLX_ERROR_NOT_FOUND) return;   /* a byte without a token in a vocabulary without <unk> */
        ft_fail("rlx_tokenize (count)", rlx_tokenizer_error(t));
    }
    if (rc == RLX_OK && cnt != 0) ft_fail("rlx_tokenize: RLX_OK with cap 0 and tokens", "");
    ids = (int32_t*)malloc((cnt + 1) * sizeof *ids);
    if (rlx_tokenize(t, (const char*)s, n, flags & 3u, ids, cnt, &cnt2) != RLX_OK || cnt2 != cnt) ft_fail("rlx_tokenize (sized)", rlx_tokenizer_error(t));
    for (i = 0; i < cnt; i++) if (ids[i] < 0 || ids[i] >= rlx_tokenizer_n_vocab(t)) ft_fail("a token id outside the vocabulary", "");
    rc = rlx_detokenize(t, ids, cnt, df, NULL, 0, &len);
    if (rc != RLX_OK && rc != RLX_ERROR_SIZE) ft_fail("rlx_detokenize (count)", rlx_tokenizer_error(t));
    txt = (char*)malloc(len + 1);
    st = (char*)malloc(len + 64);
    if (rlx_detokenize(t, ids, cnt, df, txt, len, &len2) != RLX_OK || len2 != len) ft_fail("rlx_detokenize (sized)", rlx_tokenizer_error(t));
    /* the stream, with a trailing EOS that REMOVE_SPECIAL would drop left out */
    memset(&ts, 0, sizeof ts);
    {
        size_t m = cnt;
        for (i = 0; i < m; i++) {
            size_t got = 0, need = 0;
            char small[1];
            rc = rlx_token_stream_push(t, &ts, ids[i], df, small, 0, &need);
            if (rc == RLX_OK) {
                if (need) ft_fail("stream push: RLX_OK with cap 0 and bytes", "");
            } else if (rc == RLX_ERROR_SIZE) {          /* the stream is unchanged: push again with room */
                if (tot + need > len + 63) { tot = (size_t)-1; break; }
                if (rlx_token_stream_push(t, &ts, ids[i], df, st + tot, need, &got) != RLX_OK || got != need) ft_fail("stream push (sized)", rlx_tokenizer_error(t));
                tot += got;
            } else {
                ft_fail("stream push", rlx_tokenizer_error(t));
            }
        }
        if (tot != (size_t)-1) {
            size_t got = 0;
            if (rlx_token_stream_flush(&ts, st + tot, 4, &got) != RLX_OK) ft_fail("stream flush", "");
            tot += got;
            /* equal to the whole text unless REMOVE_SPECIAL dropped a trailing EOS the stream kept */
            /* (clean_spaces vocabularies: rlx_detokenize also drops some spaces, the stream does not) */
            if (!t->clean_spaces && !((df & RLX_DETOKENIZE_REMOVE_SPECIAL) && cnt > 0 && ids[cnt - 1] == rlx_tokenizer_eos(t)) &&
                (tot != len || memcmp(st, txt, len) != 0)) ft_fail("the stream differs from rlx_detokenize", "");
        }
    }
    if (roundtrip == 2 && !(flags & 3u) && (len != n || memcmp(txt, s, n) != 0)) ft_fail("BPE: detokenize(tokenize(text)) != text", "");
    if (roundtrip == 1 && !(flags & 3u) && (len != n || memcmp(txt, s, n) != 0)) {
        /* text with U+2581 decodes it as a space; anything else must come back */
        if (!(n >= 3 && strstr((const char*)s, "\xe2\x96\x81"))) ft_fail("detokenize(tokenize(text)) != text", "");
    }
    free(ids); free(txt); free(st);
}

static uint32_t ft_u32(const uint8_t* d, size_t n, size_t* at) {
    uint32_t v = 0;
    int k;
    for (k = 0; k < 4; k++) v = (v << 8) | (*at < n ? d[(*at)++] : 0u);
    return v;
}

static void ft_run(const uint8_t* data, size_t size) {
    unsigned mode, flags;
    if (size < 2) return;
    mode = data[0] % 4u;
    flags = data[1];
    data += 2; size -= 2;
    if (mode == 0) {
        char* s = (char*)malloc(size + 1);   /* NUL-terminated copy for the U+2581 check */
        memcpy(s, data, size);
        s[size] = 0;
        ft_exercise(ft_fixed(), (const uint8_t*)s, size, flags, memchr(s, 0, size) == NULL && !strstr(s, "<tool>") && rlx__utf8_valid((const unsigned char*)s, size));
        free(s);
    } else if (mode == 3) {
        /* byte-level BPE: qwen2 (no clean_spaces) must round-trip valid UTF-8 */
        int pre = (int)((flags >> 4) % 3u);
        ft_exercise(ft_fixed_bpe(pre), data, size, flags, pre == 1 && rlx__utf8_valid(data, size) ? 2 : 0);
    } else if (mode == 1) {
        /* metadata from the input: count, then per token a length and the bytes, type and score bits */
        size_t at = 0, k;
        uint32_t ntok = (ft_u32(data, size, &at) % 48u) + (flags & 0x80u ? 0u : 1u), keys = ft_u32(data, size, &at), i;
        const char** texts = (const char**)calloc(ntok + 1, sizeof *texts);
        char** own = (char**)calloc(ntok + 1, sizeof *own);
        float* sc = (float*)calloc(ntok + 2, sizeof *sc);
        int32_t* ty = (int32_t*)calloc(ntok + 2, sizeof *ty);
        rlx_gguf_writer* w = NULL;
        rlx_tokenizer* t;
        for (i = 0; i < ntok; i++) {
            size_t l = at < size ? data[at++] % 9u : 0u;
            own[i] = (char*)malloc(l + 1);
            for (k = 0; k < l; k++) own[i][k] = (char)(at < size ? data[at++] : 'a');
            own[i][l] = 0;
            texts[i] = own[i];
            ty[i] = (int32_t)(at < size ? data[at++] % 9u : 1u) - 1;
            { uint32_t b = ft_u32(data, size, &at); memcpy(&sc[i], &b, 4); }
        }
        rlx_gguf_writer_create(NULL, &w);
        if (!(keys & 1u)) rlx_gguf_writer_string(w, "tokenizer.ggml.model", keys & 2u ? "gpt2" : "llama", keys & 2u ? 4 : 5);
        if (keys & 2u) {   /* pre-tokenizer and merges of token pairs (some naming no token, some without a space) */
            static const char* const pres[4] = {"llama-bpe", "qwen2", "gpt-2", "bogus"};
            uint32_t nm = (keys >> 20) % 16u, q;
            char** ms = (char**)calloc(nm + 1, sizeof *ms);
            rlx_gguf_writer_string(w, "tokenizer.ggml.pre", pres[(keys >> 24) & 3u], strlen(pres[(keys >> 24) & 3u]));
            for (q = 0; q < nm; q++) {
                uint32_t x = ft_u32(data, size, &at);
                const char* a = ntok ? texts[x % ntok] : "";
                const char* b = ntok ? texts[(x >> 8) % ntok] : "";
                size_t la = strlen(a), lb = strlen(b);
                ms[q] = (char*)malloc(la + lb + 3);
                memcpy(ms[q], a, la);
                ms[q][la] = (x >> 16) & 1u ? 'x' : ' ';
                memcpy(ms[q] + la + 1, b, lb);
                ms[q][la + 1 + lb] = 0;
            }
            if (!(keys & (1u << 26))) rlx_gguf_writer_array(w, "tokenizer.ggml.merges", RLX_GGUF_STRING, ms, nm);
            for (q = 0; q < nm; q++) free(ms[q]);
            free(ms);
        }
        if (!(keys & 4u)) rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, texts, ntok);
        if (keys & 8u) rlx_gguf_writer_array(w, "tokenizer.ggml.scores", keys & 16u ? RLX_GGUF_I32 : RLX_GGUF_F32, sc, ntok + (keys & 32u ? 1u : 0u));
        if (keys & 64u) rlx_gguf_writer_array(w, "tokenizer.ggml.token_type", keys & 128u ? RLX_GGUF_F32 : RLX_GGUF_I32, ty, ntok + (keys & 256u ? 1u : 0u));
        if (keys & 512u) { uint32_t v = ft_u32(data, size, &at) % (ntok + 3u); rlx_gguf_writer_kv(w, "tokenizer.ggml.bos_token_id", RLX_GGUF_U32, &v); }
        if (keys & 1024u) { int32_t v = (int32_t)ft_u32(data, size, &at); rlx_gguf_writer_kv(w, "tokenizer.ggml.eos_token_id", RLX_GGUF_I32, &v); }
        if (keys & 2048u) { uint64_t v = ft_u32(data, size, &at) % (ntok + 2u); rlx_gguf_writer_kv(w, "tokenizer.ggml.unknown_token_id", RLX_GGUF_U64, &v); }
        if (keys & 4096u) { uint8_t v = (uint8_t)((keys >> 13) & 1u); rlx_gguf_writer_kv(w, "tokenizer.ggml.add_bos_token", RLX_GGUF_BOOL, &v); }
        if (keys & 16384u) { uint8_t v = (uint8_t)((keys >> 15) & 1u); rlx_gguf_writer_kv(w, "tokenizer.ggml.add_eos_token", RLX_GGUF_BOOL, &v); }
        if (keys & 65536u) { uint8_t v = (uint8_t)((keys >> 17) & 1u); rlx_gguf_writer_kv(w, "tokenizer.ggml.add_space_prefix", keys & 262144u ? RLX_GGUF_U8 : RLX_GGUF_BOOL, &v); }
        t = ft_from_writer(w);
        rlx_gguf_writer_destroy(w);
        if (t) {
            int32_t id;
            char buf[64];
            size_t pl;
            for (id = -1; id <= rlx_tokenizer_n_vocab(t); id++) {
                rlx_result rc = rlx_token_to_piece(t, id, flags & 3u, buf, sizeof buf, &pl);
                if ((id < 0 || id >= rlx_tokenizer_n_vocab(t)) != (rc == RLX_ERROR_OUT_OF_RANGE)) ft_fail("rlx_token_to_piece range check", "");
                (void)rlx_tokenizer_is_eog(t, id); (void)rlx_tokenizer_is_control(t, id);
            }
            ft_exercise(t, data + (at < size ? at : size), at < size ? size - at : 0, flags, 0);
            rlx_tokenizer_destroy(t);
        }
        for (i = 0; i < ntok; i++) free(own[i]);
        free(own); free((void*)texts); free(sc); free(ty);
    } else {
        rlx_gguf* g = NULL;
        rlx_tokenizer* t = NULL;
        if (rlx_gguf_open_memory(data, size, NULL, &g) == RLX_OK) {
            if (rlx_tokenizer_from_gguf(g, NULL, &t) == RLX_OK) {
                static const char text[] = "Hello <s> w\xc3\xb6rld\xff \xe6\x97\xa5\xe6\x9c\xac";
                ft_exercise(t, (const uint8_t*)text, sizeof text - 1, flags, 0);
                rlx_tokenizer_destroy(t);
            }
            rlx_gguf_close(g);
        }
    }
}

#if defined(RLX_FUZZ_STANDALONE)
int main(int argc, char** argv) {
    int i;
    for (i = 1; i < argc; i++) {
        FILE* f = fopen(argv[i], "rb");
        static uint8_t buf[1 << 16];
        size_t n;
        if (!f) continue;
        n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        ft_run(buf, n);
    }
    printf("fuzz_tok: replayed %d inputs\n", argc - 1);
    return 0;
}
#else
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    ft_run(data, size);
    return 0;
}
#endif
