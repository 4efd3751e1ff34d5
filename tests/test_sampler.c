/* test_sampler.c - the >>sampler section: sampler chain, stop strings, chat templates.

   Oracles:
     - libllama itself (llama.cpp's prebuilt library from the npm package @node-llama-cpp/linux-x64@3.21.1,
       fetched by `tests/fetch_npm.sh @node-llama-cpp/linux-x64@3.21.1` into build/npm/; RLX_GGML_DIR overrides
       the folder of the .so files). Its sampler API (llama_sampler_init_top_k / top_p / min_p / typical / temp /
       penalties / logit_bias / greedy, llama_sampler_apply on a llama_token_data_array) is run on the same random
       logits as rlx's chain, stage by stage and as chains: the surviving candidate set must be the same, each
       survivor's logit the same, and rlx's probabilities the f64 softmax of llama's surviving logits. Its
       llama_chat_apply_template is fed the real chat templates of Llama-2-chat, Llama-3-Instruct, Qwen2-Instruct,
       Gemma-2-it, Phi-3-mini (and others) and every family by name, with several conversations, and must give
       rlx_chat_apply's bytes exactly. The few declarations this needs are written below from llama.h (llama.cpp
       of that package); a layout check on known inputs skips the cases when the library does not match them.
     - f64 references written here: softmax frequencies of the seeded DIST sampler (chi-square with a fixed
       seed), greedy / top-k / penalties on their own.
     - Stop strings: a reference that searches the whole concatenated text, against every split of random
       streams into pieces.
   Without the npm package (no registry), on Windows or on another CPU architecture the libllama cases are
   skipped with the reason; the rest runs everywhere. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../rlx.h"
#include "harness.h"

#include <stdlib.h>
#if !defined(_WIN32)
#  include <dlfcn.h>
#endif

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* =============================================================================================================
   libllama, declared here (llama.h of llama.cpp in @node-llama-cpp/linux-x64 3.21.1)
   ============================================================================================================= */
typedef struct l_token_data { int32_t id; float logit; float p; } l_token_data;
typedef struct l_token_data_array {
    l_token_data* data;
    size_t size;
    int64_t selected;
    unsigned char sorted;   /* bool */
} l_token_data_array;
typedef struct l_chain_params { unsigned char no_perf; } l_chain_params;
typedef struct l_chat_message { const char* role; const char* content; } l_chat_message;
typedef struct l_logit_bias { int32_t token; float bias; } l_logit_bias;
typedef struct l_sampler l_sampler;

static struct {
    l_sampler* (*init_greedy)(void);
    l_sampler* (*init_top_k)(int32_t k);
    l_sampler* (*init_top_p)(float p, size_t min_keep);
    l_sampler* (*init_min_p)(float p, size_t min_keep);
    l_sampler* (*init_typical)(float p, size_t min_keep);
    l_sampler* (*init_temp)(float t);
    /* this build's penalties take the vocabulary size first (its x86-64 code reads the window from the second
       integer argument); the layout check below makes sure */
    l_sampler* (*init_penalties)(int32_t n_vocab, int32_t last_n, float repeat, float freq, float present);
    l_sampler* (*init_logit_bias)(int32_t n_vocab, int32_t n, const l_logit_bias* b);
    l_sampler* (*chain_init)(l_chain_params p);
    l_chain_params (*chain_default_params)(void);
    void (*chain_add)(l_sampler* chain, l_sampler* s);
    void (*apply)(l_sampler* s, l_token_data_array* cur);
    void (*accept)(l_sampler* s, int32_t token);
    void (*free_)(l_sampler* s);
    const char* (*name)(const l_sampler* s);
    int32_t (*chat_apply)(const char* tmpl, const l_chat_message* chat, size_t n, unsigned char add_ass, char* buf,
                          int32_t len);
    int32_t (*chat_builtin)(const char** out, size_t len);
} L;
static char g_why[1024] = "not tried";

static int load_llama(void) {
#if defined(_WIN32)
    snprintf(g_why, sizeof g_why, "llama.cpp's Linux libraries cannot be opened on Windows");
    return 0;
#elif !defined(__x86_64__)
    snprintf(g_why, sizeof g_why, "the npm package holds x86-64 libraries only");
    return 0;
#else
    const char* dir = getenv("RLX_GGML_DIR");
    char path[1200];
    void* h;
    if (!dir) dir = "build/npm/_node-llama-cpp_linux-x64/package/bins/linux-x64";
    snprintf(path, sizeof path, "%s/libllama.v0.4.0.so", dir);
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(g_why, sizeof g_why, "cannot open %.300s (%.300s); fetch it with tests/fetch_npm.sh "
                 "@node-llama-cpp/linux-x64@3.21.1", path, dlerror());
        return 0;
    }
#  define SYM(f, s) *(void**)&L.f = dlsym(h, s); if (!L.f) { snprintf(g_why, sizeof g_why, "%.400s lacks %s", path, s); return 0; }
    SYM(init_greedy, "llama_sampler_init_greedy")
    SYM(init_top_k, "llama_sampler_init_top_k")
    SYM(init_top_p, "llama_sampler_init_top_p")
    SYM(init_min_p, "llama_sampler_init_min_p")
    SYM(init_typical, "llama_sampler_init_typical")
    SYM(init_temp, "llama_sampler_init_temp")
    SYM(init_penalties, "llama_sampler_init_penalties")
    SYM(init_logit_bias, "llama_sampler_init_logit_bias")
    SYM(chain_init, "llama_sampler_chain_init")
    SYM(chain_default_params, "llama_sampler_chain_default_params")
    SYM(chain_add, "llama_sampler_chain_add")
    SYM(apply, "llama_sampler_apply")
    SYM(accept, "llama_sampler_accept")
    SYM(free_, "llama_sampler_free")
    SYM(name, "llama_sampler_name")
    SYM(chat_apply, "llama_chat_apply_template")
    SYM(chat_builtin, "llama_chat_builtin_templates")
#  undef SYM
    /* layout check: names, and top-k of 2 on a known array must keep ids 3 and 1 in that order, sorted */
    {
        l_sampler* s = L.init_top_k(2);
        l_token_data d[4] = {{0, 1.0f, 0.0f}, {1, 3.0f, 0.0f}, {2, 2.0f, 0.0f}, {3, 4.0f, 0.0f}};
        l_token_data_array a;
        l_chain_params cp = L.chain_default_params();
        int ok;
        a.data = d; a.size = 4; a.selected = -1; a.sorted = 0;
        L.apply(s, &a);
        ok = strcmp(L.name(s), "top-k") == 0 && a.size == 2 && a.data[0].id == 3 && a.data[1].id == 1 &&
             a.sorted == 1 && a.selected == -1 && cp.no_perf <= 1;
        L.free_(s);
        s = L.init_greedy();
        a.data = d; a.size = 4; a.selected = -1; a.sorted = 0;
        L.apply(s, &a);
        ok = ok && strcmp(L.name(s), "greedy") == 0 && a.selected >= 0 && a.selected < 4 && a.data[a.selected].id == 3;
        L.free_(s);
        /* penalties: window 3 over 0 1 0 2 0 3 counts 0 (once), 2, 3; 0 = off gives an empty "?penalties" */
        s = L.init_penalties(4, 3, 2.0f, 1.0f, 10.0f);
        ok = ok && strcmp(L.name(s), "penalties") == 0;
        {
            int32_t hist[6] = {0, 1, 0, 2, 0, 3}, i;
            for (i = 0; i < 6; i++) L.accept(s, hist[i]);
            for (i = 0; i < 4; i++) { d[i].id = i; d[i].logit = 100.0f; }
            a.data = d; a.size = 4; a.selected = -1; a.sorted = 0;
            L.apply(s, &a);
            ok = ok && d[0].logit == 39.0f && d[1].logit == 100.0f && d[2].logit == 39.0f && d[3].logit == 39.0f;
        }
        L.free_(s);
        if (!ok) {
            snprintf(g_why, sizeof g_why, "libllama's llama_token_data_array / sampler behaviour does not match the "
                     "layout this test declares");
            return 0;
        }
    }
    printf("libllama oracle: %s\n", path);
    return 1;
#endif
}

/* =============================================================================================================
   Helpers
   ============================================================================================================= */
/* Random logits with no two closer than min_gap (sorted gaps); never all equal, never all zero. */
static void rand_logits(float* x, int n, double scale, uint64_t seed) {
    int i, tries;
    th_seed(seed);
    for (tries = 0; tries < 100; tries++) {
        int ok = 1, j;
        for (i = 0; i < n; i++) x[i] = (float)(th_uniform(-1, 1) * scale);
        /* reject near ties (relative to the scale) with an O(n^2) check for small n, sampled otherwise */
        for (i = 0; i < n && ok; i++)
            for (j = i + 1; j < n && ok; j++)
                if (fabs((double)x[i] - (double)x[j]) < 1e-4 * scale) ok = 0;
        if (ok) return;
    }
}

static int cmp_i32(const void* a, const void* b) {
    int32_t x = *(const int32_t*)a, y = *(const int32_t*)b;
    return (x > y) - (x < y);
}

/* The stage as a libllama sampler. */
static l_sampler* l_stage(const rlx_sampler_stage* s, int n_vocab) {
    switch (s->type) {
    case RLX_SAMPLER_GREEDY: return L.init_greedy();
    case RLX_SAMPLER_TEMP: return L.init_temp(s->value);
    case RLX_SAMPLER_TOP_K: return L.init_top_k(s->k);
    case RLX_SAMPLER_TOP_P: return L.init_top_p(s->value, (size_t)s->min_keep);
    case RLX_SAMPLER_MIN_P: return L.init_min_p(s->value, (size_t)s->min_keep);
    case RLX_SAMPLER_TYPICAL: return L.init_typical(s->value, (size_t)s->min_keep);
    case RLX_SAMPLER_PENALTIES: return L.init_penalties(n_vocab, s->last_n, s->repeat, s->freq, s->present);
    case RLX_SAMPLER_LOGIT_BIAS: return L.init_logit_bias(n_vocab, s->n_biases, (const l_logit_bias*)s->biases);
    default: return NULL;
    }
}

/* Runs stages[0..ns) on logits through rlx (apply) and libllama (a chain), with the same accepted history, and
   compares survivors. Returns 1 when both agree. */
static int compare_chain(const char* what, const rlx_sampler_stage* st, int ns, const float* logits, int n,
                         const int32_t* hist, int nhist) {
    rlx_sampler_chain_desc d;
    rlx_sampler_chain* ch = NULL;
    rlx_token_prob* out = (rlx_token_prob*)malloc(sizeof(rlx_token_prob) * (size_t)n);
    l_token_data* ld = (l_token_data*)malloc(sizeof(l_token_data) * (size_t)n);
    int32_t* ra = (int32_t*)malloc(sizeof(int32_t) * (size_t)n);
    int32_t* la = (int32_t*)malloc(sizeof(int32_t) * (size_t)n);
    l_token_data_array a;
    l_sampler* lc = L.chain_init(L.chain_default_params());
    int32_t nout = 0, i, j;
    int ok = 1;
    double mx = -HUGE_VAL, sum = 0.0, worst = 0.0;
    rlx_result r;
    memset(&d, 0, sizeof d);
    d.n_vocab = n; d.stages = st; d.n_stages = ns;
    r = rlx_sampler_chain_create(&d, &ch);
    TH_CHECK(r == RLX_OK, "%s: create: %s", what, rlx_gen_error());
    for (i = 0; i < ns; i++) L.chain_add(lc, l_stage(&st[i], n));
    for (i = 0; i < nhist; i++) { rlx_sampler_accept(ch, hist[i]); L.accept(lc, hist[i]); }
    r = rlx_sampler_apply(ch, logits, n, out, n, &nout);
    TH_CHECK(r == RLX_OK, "%s: apply: %s", what, rlx_gen_error());
    for (i = 0; i < n; i++) { ld[i].id = i; ld[i].logit = logits[i]; ld[i].p = 0.0f; }
    a.data = ld; a.size = (size_t)n; a.selected = -1; a.sorted = 0;
    L.apply(lc, &a);
    if ((size_t)nout != a.size) {
        ok = 0;
        printf("  %s: rlx keeps %d candidates, llama %zu\n", what, (int)nout, a.size);
    } else {
        for (i = 0; i < nout; i++) { ra[i] = out[i].id; la[i] = a.data[i].id; }
        qsort(ra, (size_t)nout, sizeof *ra, cmp_i32);
        qsort(la, (size_t)nout, sizeof *la, cmp_i32);
        for (i = 0; i < nout && ok; i++) if (ra[i] != la[i]) { ok = 0; printf("  %s: survivor sets differ (rlx id %d, llama id %d)\n", what, (int)ra[i], (int)la[i]); }
        /* same logits, and rlx's p = f64 softmax of llama's surviving logits */
        for (i = 0; i < (int32_t)a.size; i++) if ((double)a.data[i].logit > mx) mx = (double)a.data[i].logit;
        for (i = 0; i < (int32_t)a.size; i++) sum += exp((double)a.data[i].logit - mx);
        for (i = 0; i < nout && ok; i++) {
            for (j = 0; j < (int32_t)a.size; j++) if (a.data[j].id == out[i].id) break;
            if (!th_close((double)out[i].logit, (double)a.data[j].logit, 1e-6, 1e-6)) {
                ok = 0;
                printf("  %s: token %d: logit %.9g, llama %.9g\n", what, (int)out[i].id, (double)out[i].logit, (double)a.data[j].logit);
            } else {
                double pr = exp((double)a.data[j].logit - mx) / sum, e = fabs(pr - (double)out[i].p);
                if (e > worst) worst = e;
                if (e > 1e-6 + 1e-5 * pr) { ok = 0; printf("  %s: token %d: p %.9g, softmax of llama's logits %.9g\n", what, (int)out[i].id, (double)out[i].p, pr); }
            }
        }
    }
    L.free_(lc);
    rlx_sampler_chain_destroy(ch);
    free(out); free(ld); free(ra); free(la);
    return ok;
}

/* f64 check that top-p / typical / min-p boundaries are not within eps (else float rounding decides). */
static int top_p_clear(const float* x, int n, double p) {
    double* s = (double*)malloc(sizeof(double) * (size_t)n), mx = -HUGE_VAL, sum = 0.0, cum = 0.0;
    int i, j, ok = 1;
    for (i = 0; i < n; i++) if ((double)x[i] > mx) mx = (double)x[i];
    for (i = 0; i < n; i++) { s[i] = exp((double)x[i] - mx); sum += s[i]; }
    for (i = 0; i < n; i++) s[i] /= sum;
    for (i = 1; i < n; i++) for (j = i; j > 0 && s[j - 1] < s[j]; j--) { double t = s[j]; s[j] = s[j - 1]; s[j - 1] = t; }
    for (i = 0; i < n; i++) { cum += s[i]; if (fabs(cum - p) < 1e-4) ok = 0; }
    free(s);
    return ok;
}
static int typical_clear(const float* x, int n, double p) {
    double *pr = (double*)malloc(sizeof(double) * (size_t)n), *sh = (double*)malloc(sizeof(double) * (size_t)n);
    double mx = -HUGE_VAL, sum = 0.0, ent = 0.0, cum = 0.0;
    int i, j, ok = 1;
    for (i = 0; i < n; i++) if ((double)x[i] > mx) mx = (double)x[i];
    for (i = 0; i < n; i++) { pr[i] = exp((double)x[i] - mx); sum += pr[i]; }
    for (i = 0; i < n; i++) { pr[i] /= sum; if (pr[i] < 1e-30) ok = 0; else ent -= pr[i] * log(pr[i]); }
    for (i = 0; i < n; i++) sh[i] = fabs(-log(pr[i] > 0 ? pr[i] : 1e-300) - ent);
    for (i = 1; i < n; i++)
        for (j = i; j > 0 && sh[j - 1] > sh[j]; j--) { double t = sh[j]; sh[j] = sh[j - 1]; sh[j - 1] = t; t = pr[j]; pr[j] = pr[j - 1]; pr[j - 1] = t; }
    for (i = 0; i < n; i++) { cum += pr[i]; if (fabs(cum - p) < 1e-4) ok = 0; if (i > 0 && sh[i] - sh[i - 1] < 1e-5) ok = 0; }
    free(pr); free(sh);
    return ok;
}
static int min_p_clear(const float* x, int n, double p) {
    double mx = -HUGE_VAL, lo;
    int i;
    for (i = 0; i < n; i++) if ((double)x[i] > mx) mx = (double)x[i];
    lo = mx + log(p);
    for (i = 0; i < n; i++) if (fabs((double)x[i] - lo) < 1e-4) return 0;
    return 1;
}

/* =============================================================================================================
   Sampler against libllama
   ============================================================================================================= */
static void test_llama_stages(void) {
    static const int sizes[] = {5, 40, 300, 3000};
    int si, rep, agree = 0, total = 0;
    for (si = 0; si < COUNT(sizes); si++) {
        int n = sizes[si];
        float* x = (float*)malloc(sizeof(float) * (size_t)n);
        int32_t hist[64];
        for (rep = 0; rep < 12; rep++) {
            uint64_t seed = 1000u * (uint64_t)si + (uint64_t)rep + 1u;
            double scale = rep % 3 == 0 ? 3.0 : rep % 3 == 1 ? 8.0 : 15.0;
            rlx_sampler_stage st[8];
            rlx_logit_bias lb[6];
            char what[160];
            int k, i;
            rand_logits(x, n, scale, seed);
            th_seed(seed * 7919u);
            for (i = 0; i < COUNT(hist); i++) hist[i] = (int32_t)(th_rng() % (uint64_t)(n < 12 ? n : 12));  /* repeats */
            /* single stages */
            for (k = 0; k < 9; k++) {
                double p = th_uniform(0.05, 0.98);
                int32_t mk = (int32_t)(th_rng() % 4);
                switch (k) {
                case 0: st[0] = rlx_sampler_top_k((int32_t)(th_rng() % (uint64_t)(n + 3)) - 1); break;
                case 1:
                    if (!top_p_clear(x, n, p)) continue;
                    st[0] = rlx_sampler_top_p((float)p, mk); break;
                case 2:
                    p = th_uniform(0.001, 0.5);
                    if (!min_p_clear(x, n, (double)(float)p)) continue;
                    st[0] = rlx_sampler_min_p((float)p, mk); break;
                case 3:
                    if (!typical_clear(x, n, p)) continue;
                    st[0] = rlx_sampler_typical((float)p, mk); break;
                case 4: st[0] = rlx_sampler_temp((float)th_uniform(0.2, 2.5)); break;
                case 5: st[0] = rlx_sampler_temp(rep % 2 ? 0.0f : -1.0f); break;
                case 6: st[0] = rlx_sampler_penalties(1 + (int32_t)(th_rng() % 40), (float)th_uniform(1.0, 1.8), (float)th_uniform(0, 0.5), (float)th_uniform(0, 0.7)); break;
                case 7:
                    for (i = 0; i < COUNT(lb); i++) { lb[i].token = (int32_t)(th_rng() % (uint64_t)n); lb[i].bias = (float)th_uniform(-5, 5); }
                    for (i = 1; i < COUNT(lb); i++) if (lb[i].token == lb[0].token) lb[i].token = lb[0].token;   /* keep */
                    { int m = 0, a2, dup;   /* distinct tokens (llama adds a repeated one once or twice) */
                      for (i = 0; i < COUNT(lb); i++) { dup = 0; for (a2 = 0; a2 < m; a2++) dup |= lb[a2].token == lb[i].token; if (!dup) lb[m++] = lb[i]; }
                      if (rep % 4 == 0) lb[0].bias = -(float)INFINITY;
                      st[0] = rlx_sampler_logit_bias(lb, m); }
                    break;
                default: st[0] = rlx_sampler_penalties(0, 1.3f, 0.2f, 0.2f); break;
                }
                snprintf(what, sizeof what, "n %d seed %llu stage %d (type %d, value %g, k %d, min_keep %d)", n,
                         (unsigned long long)seed, k, (int)st[0].type, (double)st[0].value, (int)st[0].k, (int)st[0].min_keep);
                total++;
                agree += compare_chain(what, st, 1, x, n, hist, COUNT(hist));
            }
            /* llama.cpp's usual order: penalties, top-k, typical, top-p, min-p, temp */
            {
                int ns = 0;
                float tp = (float)th_uniform(0.6, 0.97), mp = (float)th_uniform(0.01, 0.1);
                st[ns++] = rlx_sampler_penalties(32, 1.15f, 0.1f, 0.05f);
                st[ns++] = rlx_sampler_top_k(n > 40 ? 40 : n - 1);
                if (rep % 2) st[ns++] = rlx_sampler_typical(0.99f, 1);
                st[ns++] = rlx_sampler_top_p(tp, 1);
                st[ns++] = rlx_sampler_min_p(mp, 1);
                st[ns++] = rlx_sampler_temp((float)th_uniform(0.3, 1.5));
                snprintf(what, sizeof what, "n %d seed %llu chain of %d (top_p %g, min_p %g)", n, (unsigned long long)seed, ns, (double)tp, (double)mp);
                total++;
                agree += compare_chain(what, st, ns, x, n, hist, COUNT(hist));
            }
        }
        free(x);
    }
    TH_CHECK(agree == total, "sampler stages and chains: %d of %d cases agree with libllama", agree, total);
    printf("sampler vs libllama: %d of %d stage/chain cases agree\n", agree, total);
}

/* Greedy and temp <= 0 pick llama's token through rlx_sampler_sample. */
static void test_llama_greedy(void) {
    int rep, agree = 0;
    for (rep = 0; rep < 30; rep++) {
        int n = 50 + rep * 37;
        float* x = (float*)malloc(sizeof(float) * (size_t)n);
        l_token_data* ld = (l_token_data*)malloc(sizeof(l_token_data) * (size_t)n);
        rlx_sampler_stage st[3];
        rlx_sampler_chain_desc d;
        rlx_sampler_chain* ch = NULL;
        l_sampler* lc = L.chain_init(L.chain_default_params());
        l_token_data_array a;
        int32_t tok = -1, i;
        rand_logits(x, n, 6.0, 777u + (uint64_t)rep);
        st[0] = rlx_sampler_top_k(20);
        st[1] = rlx_sampler_temp(0.7f);
        st[2] = rlx_sampler_greedy();
        memset(&d, 0, sizeof d);
        d.n_vocab = n; d.stages = st; d.n_stages = 3;
        rlx_sampler_chain_create(&d, &ch);
        for (i = 0; i < 3; i++) L.chain_add(lc, l_stage(&st[i], n));
        for (i = 0; i < n; i++) { ld[i].id = i; ld[i].logit = x[i]; ld[i].p = 0; }
        a.data = ld; a.size = (size_t)n; a.selected = -1; a.sorted = 0;
        L.apply(lc, &a);
        agree += rlx_sampler_sample(ch, x, n, &tok) == RLX_OK && a.selected >= 0 && tok == a.data[a.selected].id;
        L.free_(lc);
        rlx_sampler_chain_destroy(ch);
        free(x); free(ld);
    }
    TH_CHECK(agree == 30, "greedy after top-k and temp: %d of 30 picks equal libllama's", agree);
}

/* =============================================================================================================
   Sampler against f64 references
   ============================================================================================================= */
static void test_dist_chi2(void) {
    enum { N = 10, DRAWS = 20000 };
    float x[N];
    double pr[N], mx = -HUGE_VAL, sum = 0.0, chi2 = 0.0;
    long cnt[N];
    int32_t seq[64], tok;
    rlx_sampler_stage st[2];
    rlx_sampler_chain_desc d;
    rlx_sampler_chain *ch = NULL, *ch2 = NULL;
    int i, same = 1;
    rand_logits(x, N, 2.0, 4242u);
    st[0] = rlx_sampler_temp(0.9f);
    st[1] = rlx_sampler_dist(12345u);
    memset(&d, 0, sizeof d);
    d.n_vocab = N; d.stages = st; d.n_stages = 2;
    TH_CHECK(rlx_sampler_chain_create(&d, &ch) == RLX_OK && rlx_sampler_chain_create(&d, &ch2) == RLX_OK, "dist: create");
    for (i = 0; i < N; i++) { pr[i] = (double)x[i] / (double)0.9f; if (pr[i] > mx) mx = pr[i]; }
    for (i = 0; i < N; i++) { pr[i] = exp(pr[i] - mx); sum += pr[i]; }
    for (i = 0; i < N; i++) { pr[i] /= sum; cnt[i] = 0; }
    for (i = 0; i < DRAWS; i++) {
        if (rlx_sampler_sample(ch, x, N, &tok) != RLX_OK || tok < 0 || tok >= N) { TH_CHECK(0, "dist: sample failed"); break; }
        cnt[tok]++;
        if (i < 64) seq[i] = tok;
    }
    for (i = 0; i < N; i++) { double e = pr[i] * DRAWS; chi2 += ((double)cnt[i] - e) * ((double)cnt[i] - e) / e; }
    /* 9 degrees of freedom: P(chi2 > 40) is about 7e-6 */
    TH_CHECK(chi2 < 40.0, "dist: chi-square %.2f against the f64 softmax (9 dof) is too large", chi2);
    printf("dist sampler: chi-square %.2f over %d draws (9 dof)\n", chi2, DRAWS);
    /* a second chain of the same seed, and the first after reset, repeat the sequence */
    for (i = 0; i < 64; i++) { rlx_sampler_sample(ch2, x, N, &tok); same &= tok == seq[i]; }
    TH_CHECK(same, "dist: two chains of one seed pick different tokens");
    rlx_sampler_reset(ch);
    same = 1;
    for (i = 0; i < 64; i++) { rlx_sampler_sample(ch, x, N, &tok); same &= tok == seq[i]; }
    TH_CHECK(same, "dist: reset does not reseed");
    rlx_sampler_chain_destroy(ch);
    rlx_sampler_chain_destroy(ch2);
    /* a point mass: temp 0 then dist always picks the largest */
    {
        int32_t amax = 0, all = 1;
        st[0] = rlx_sampler_temp(0.0f);
        rlx_sampler_chain_create(&d, &ch);
        for (i = 1; i < N; i++) if (x[i] > x[amax]) amax = i;
        for (i = 0; i < 200; i++) { rlx_sampler_sample(ch, x, N, &tok); all &= tok == amax; }
        TH_CHECK(all, "temp 0 + dist: not always the largest logit");
        rlx_sampler_chain_destroy(ch);
    }
}

/* Penalties against a formula written here (llama.cpp's semantics), and top-k against an f64 sort. */
static void test_refs(void) {
    enum { N = 64 };
    float x[N];
    int32_t hist[20], cnt[N];
    rlx_token_prob out[N];
    rlx_sampler_stage st;
    rlx_sampler_chain_desc d;
    rlx_sampler_chain* ch = NULL;
    int32_t n = 0, i, bad = 0, last_n = 12;
    th_seed(99);
    rand_logits(x, N, 4.0, 31337u);
    for (i = 0; i < 20; i++) hist[i] = (int32_t)(th_rng() % 8);
    st = rlx_sampler_penalties(last_n, 1.3f, 0.25f, 0.5f);
    memset(&d, 0, sizeof d);
    d.n_vocab = N; d.stages = &st; d.n_stages = 1;
    rlx_sampler_chain_create(&d, &ch);
    for (i = 0; i < 20; i++) rlx_sampler_accept(ch, hist[i]);
    memset(cnt, 0, sizeof cnt);
    for (i = 20 - last_n; i < 20; i++) cnt[hist[i]]++;
    TH_CHECK(rlx_sampler_apply(ch, x, N, out, N, &n) == RLX_OK && n == N, "penalties: apply");
    for (i = 0; i < n; i++) {
        double l = (double)x[out[i].id];
        int32_t c = cnt[out[i].id];
        if (c > 0) { l = l <= 0 ? l * 1.3 : l / 1.3; l -= c * 0.25 + 0.5; }
        if (!th_close((double)out[i].logit, l, 1e-5, 1e-5)) bad++;
    }
    TH_CHECK(bad == 0, "penalties: %d of %d logits differ from the formula", (int)bad, (int)n);
    rlx_sampler_chain_destroy(ch);
    /* repeat 0 means 1: only the frequency penalty */
    st = rlx_sampler_penalties(last_n, 0.0f, 0.5f, 0.0f);
    rlx_sampler_chain_create(&d, &ch);
    for (i = 0; i < 20; i++) rlx_sampler_accept(ch, hist[i]);
    bad = 0;
    TH_CHECK(rlx_sampler_apply(ch, x, N, out, N, &n) == RLX_OK && n == N, "penalties (repeat 0): apply");
    for (i = 0; i < n; i++) if (!th_close((double)out[i].logit, (double)x[out[i].id] - cnt[out[i].id] * 0.5, 1e-5, 1e-5)) bad++;
    TH_CHECK(bad == 0, "penalties with repeat 0 (= 1): %d logits differ from logit - 0.5 count", (int)bad);
    rlx_sampler_chain_destroy(ch);
    /* top-k: the k largest */
    st = rlx_sampler_top_k(7);
    rlx_sampler_chain_create(&d, &ch);
    TH_CHECK(rlx_sampler_apply(ch, x, N, out, N, &n) == RLX_OK && n == 7, "top-k: 7 survivors");
    bad = 0;
    for (i = 0; i < n; i++) {
        int32_t j, above = 0;
        for (j = 0; j < N; j++) above += x[j] > x[out[i].id];
        if (above >= 7) bad++;
        if (i > 0 && out[i].logit > out[i - 1].logit) bad++;   /* descending */
    }
    TH_CHECK(bad == 0, "top-k: %d survivors are not among the 7 largest (or not in order)", (int)bad);
    rlx_sampler_chain_destroy(ch);
}

/* Bad input gives an error code and a message, never a crash. */
static void test_sampler_errors(void) {
    float x[4] = {1.0f, 2.0f, 0.5f, -1.0f};
    rlx_sampler_stage st[2];
    rlx_sampler_chain_desc d;
    rlx_sampler_chain* ch = NULL;
    rlx_logit_bias lb = {7, 1.0f};
    rlx_token_prob out[4];
    int32_t tok = 0, n = 0;
    memset(&d, 0, sizeof d);
    TH_CHECK(rlx_sampler_chain_create(NULL, &ch) == RLX_ERROR_INVALID_ARGUMENT && ch == NULL, "NULL desc");
    TH_CHECK(rlx_sampler_chain_create(&d, &ch) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_gen_error(), "n_vocab"), "n_vocab 0: %s", rlx_gen_error());
    d.n_vocab = 4;
    st[0] = rlx_sampler_greedy();
    st[0].type = (rlx_sampler_type)77;
    d.stages = st; d.n_stages = 1;
    TH_CHECK(rlx_sampler_chain_create(&d, &ch) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_gen_error(), "type"), "bad type: %s", rlx_gen_error());
    st[0] = rlx_sampler_logit_bias(&lb, 1);
    TH_CHECK(rlx_sampler_chain_create(&d, &ch) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_gen_error(), "token 7"), "bias token: %s", rlx_gen_error());
    st[0] = rlx_sampler_penalties(10, -1.0f, 0, 0);
    TH_CHECK(rlx_sampler_chain_create(&d, &ch) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_gen_error(), "repeat"), "repeat -1: %s", rlx_gen_error());
    st[0] = rlx_sampler_penalties(10, 0.0f, 0, (float)INFINITY);
    TH_CHECK(rlx_sampler_chain_create(&d, &ch) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_gen_error(), "present"), "present inf: %s", rlx_gen_error());
    st[0] = rlx_sampler_penalties(-1, 1.1f, 0, 0);
    TH_CHECK(rlx_sampler_chain_create(&d, &ch) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_gen_error(), "last_n"), "last_n -1: %s", rlx_gen_error());
    st[0] = rlx_sampler_top_p((float)NAN, 1);
    TH_CHECK(rlx_sampler_chain_create(&d, &ch) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_gen_error(), "finite"), "top_p NaN: %s", rlx_gen_error());
    d.n_stages = 65;
    TH_CHECK(rlx_sampler_chain_create(&d, &ch) == RLX_ERROR_INVALID_ARGUMENT, "65 stages");
    st[0] = rlx_sampler_top_k(2);
    st[1] = rlx_sampler_dist(1);
    d.n_stages = 2;
    TH_CHECK(rlx_sampler_chain_create(&d, &ch) == RLX_OK && ch, "create: %s", rlx_gen_error());
    TH_CHECK(rlx_sampler_sample(ch, x, 5, &tok) == RLX_ERROR_SIZE && strstr(rlx_gen_error(), "n_vocab 5"), "n_vocab mismatch: %s", rlx_gen_error());
    TH_CHECK(rlx_sampler_sample(ch, NULL, 4, &tok) == RLX_ERROR_INVALID_ARGUMENT, "NULL logits");
    TH_CHECK(rlx_sampler_sample(ch, x, 4, NULL) == RLX_ERROR_INVALID_ARGUMENT, "NULL token");
    x[2] = (float)NAN;
    TH_CHECK(rlx_sampler_sample(ch, x, 4, &tok) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_gen_error(), "logits[2] is NaN"), "NaN logit: %s", rlx_gen_error());
    x[2] = (float)INFINITY;
    TH_CHECK(rlx_sampler_sample(ch, x, 4, &tok) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_gen_error(), "+inf"), "+inf logit: %s", rlx_gen_error());
    x[0] = x[1] = x[2] = x[3] = -(float)INFINITY;
    TH_CHECK(rlx_sampler_sample(ch, x, 4, &tok) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_gen_error(), "-inf"), "all -inf: %s", rlx_gen_error());
    x[0] = 1.0f; x[1] = 2.0f; x[2] = 0.5f; x[3] = -1.0f;
    TH_CHECK(rlx_sampler_sample(ch, x, 4, &tok) == RLX_OK && (tok == 0 || tok == 1) && rlx_gen_error()[0] == 0, "top-2 + dist picks 0 or 1 (%d)", (int)tok);
    TH_CHECK(rlx_sampler_accept(ch, 4) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_gen_error(), "token 4"), "accept 4: %s", rlx_gen_error());
    TH_CHECK(rlx_sampler_accept(ch, -1) == RLX_ERROR_INVALID_ARGUMENT, "accept -1");
    TH_CHECK(rlx_sampler_apply(ch, x, 4, out, 1, &n) == RLX_ERROR_SIZE && n == 2, "apply cap 1 of 2 survivors: n %d", (int)n);
    TH_CHECK(rlx_sampler_apply(ch, x, 4, out, 4, &n) == RLX_OK && n == 2 && out[0].id == 1 && out[1].id == 0 &&
             th_close((double)out[0].p, 1.0 / (1.0 + exp(-1.0)), 1e-6, 0), "apply: survivors 1, 0 with softmax p");
    rlx_sampler_chain_destroy(ch);
    /* a -inf bias on the only survivor leaves no finite candidate */
    lb.token = 1; lb.bias = -(float)INFINITY;
    st[0] = rlx_sampler_top_k(1);
    st[1] = rlx_sampler_logit_bias(&lb, 1);
    TH_CHECK(rlx_sampler_chain_create(&d, &ch) == RLX_OK, "create top-1 + ban");
    TH_CHECK(rlx_sampler_sample(ch, x, 4, &tok) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_gen_error(), "finite"), "banned survivor: %s", rlx_gen_error());
    rlx_sampler_chain_destroy(ch);
    rlx_sampler_chain_destroy(NULL);
    rlx_sampler_reset(NULL);
    TH_CHECK(rlx_sampler_accept(NULL, 0) == RLX_ERROR_INVALID_ARGUMENT, "accept on NULL");
    /* no picking stage: the largest remaining logit */
    d.n_stages = 0;
    TH_CHECK(rlx_sampler_chain_create(&d, &ch) == RLX_OK && rlx_sampler_sample(ch, x, 4, &tok) == RLX_OK && tok == 1, "empty chain picks the largest");
    rlx_sampler_chain_destroy(ch);
}

/* =============================================================================================================
   Stop strings against a reference that searches the whole text
   ============================================================================================================= */
/* The first stop to end in t (the longest of those ending at one byte): *cut = where it starts. -1 if none. */
static int ref_first_stop(const char* t, size_t n, const char* const* stops, int ns, size_t* cut) {
    size_t e;
    int j, hit = -1;
    for (e = 1; e <= n; e++) {
        for (j = 0; j < ns; j++) {
            size_t l = strlen(stops[j]);
            if (l <= e && memcmp(t + e - l, stops[j], l) == 0 && (hit < 0 || l > strlen(stops[hit]))) hit = j;
        }
        if (hit >= 0) { *cut = e - strlen(stops[hit]); return hit; }
    }
    return -1;
}
/* longest tail of t that is a proper prefix of a stop */
static size_t ref_hold(const char* t, size_t n, const char* const* stops, int ns) {
    size_t k, best = 0;
    int j;
    for (j = 0; j < ns; j++)
        for (k = 1; k < strlen(stops[j]) && k <= n; k++)
            if (memcmp(t + n - k, stops[j], k) == 0 && k > best) best = k;
    return best;
}

static void test_stop_property(void) {
    static const char alpha[] = "ab</>s";
    int trial, bad = 0, cases = 0;
    th_seed(2024);
    for (trial = 0; trial < 400; trial++) {
        char text[48], shown[64], buf[64];
        const char* stops[3];
        char sb[3][8];
        size_t n = (size_t)(th_rng() % 40), i, shown_n = 0, cut = 0;
        int ns = 1 + (int)(th_rng() % 3), j, split, ref, matched = -1;
        rlx_stop_desc sd;
        rlx_stop_matcher* sm = NULL;
        for (i = 0; i < n; i++) text[i] = alpha[th_rng() % 6];
        text[n] = 0;
        for (j = 0; j < ns; j++) {
            size_t l = 1 + (size_t)(th_rng() % 5), q;
            for (q = 0; q < l; q++) sb[j][q] = alpha[th_rng() % 6];
            if (n > 6 && th_rng() % 2) memcpy(sb[j], text + th_rng() % (n - l), l);   /* often present */
            sb[j][l] = 0;
            stops[j] = sb[j];
        }
        ref = ref_first_stop(text, n, stops, ns, &cut);
        memset(&sd, 0, sizeof sd);
        sd.stops = stops; sd.n_stops = ns;
        if (rlx_stop_create(&sd, &sm) != RLX_OK) { bad++; continue; }
        /* split kinds: every single cut point, byte by byte, random pieces */
        for (split = 0; split <= (int)n + 2; split++) {
            size_t pos = 0, got;
            int32_t hit = -1;
            int ok = 1;
            rlx_stop_reset(sm);
            shown_n = 0;
            matched = -1;
            while (pos < n && hit < 0) {
                size_t len = split <= (int)n ? (pos == 0 && split > 0 ? (size_t)split : n - pos)
                           : split == (int)n + 1 ? 1 : 1 + (size_t)(th_rng() % 5);
                if (len > n - pos) len = n - pos;
                if (rlx_stop_feed(sm, text + pos, len, buf, sizeof buf, &got, &hit) != RLX_OK) { ok = 0; break; }
                memcpy(shown + shown_n, buf, got);
                shown_n += got;
                pos += len;
                if (hit < 0) {
                    /* shown + held is the text so far; held is the longest possible stop start */
                    size_t h = rlx_stop_held(sm);
                    if (shown_n + h != pos || h != ref_hold(text, pos, stops, ns)) ok = 0;
                }
            }
            matched = hit;
            if (hit < 0) {
                if (rlx_stop_flush(sm, buf, sizeof buf, &got) != RLX_OK) ok = 0;
                else { memcpy(shown + shown_n, buf, got); shown_n += got; }
            }
            if (matched != ref) ok = 0;
            if (ref >= 0 && (shown_n != cut || memcmp(shown, text, cut) != 0)) ok = 0;
            if (ref < 0 && (shown_n != n || memcmp(shown, text, n) != 0)) ok = 0;
            cases++;
            if (!ok && bad < 5) printf("  stop: text \"%s\" stops \"%s\" \"%s\" \"%s\" split %d: matched %d (ref %d), shown %.*s\n",
                                       text, stops[0], ns > 1 ? stops[1] : "", ns > 2 ? stops[2] : "", split, matched, ref, (int)shown_n, shown);
            bad += !ok;
        }
        rlx_stop_destroy(sm);
    }
    TH_CHECK(bad == 0, "stop strings: %d of %d split streams differ from the whole-text reference", bad, cases);
    printf("stop strings: %d split streams checked against the reference\n", cases);
}

static void test_stop_api(void) {
    const char* stops[2] = {"</s>", "User:"};
    const char* empty[1] = {""};
    rlx_stop_desc sd;
    rlx_stop_matcher* sm = NULL;
    char out[16];
    size_t n = 0;
    int32_t hit = -2;
    memset(&sd, 0, sizeof sd);
    TH_CHECK(rlx_stop_create(&sd, &sm) == RLX_ERROR_INVALID_ARGUMENT && !sm, "no stops");
    sd.stops = empty; sd.n_stops = 1;
    TH_CHECK(rlx_stop_create(&sd, &sm) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_gen_error(), "empty"), "empty stop: %s", rlx_gen_error());
    sd.stops = stops; sd.n_stops = 2;
    TH_CHECK(rlx_stop_create(&sd, &sm) == RLX_OK, "create");
    TH_CHECK(rlx_stop_feed(sm, "Hello </", 8, out, sizeof out, &n, &hit) == RLX_OK && n == 6 && hit == -1 &&
             memcmp(out, "Hello ", 6) == 0 && rlx_stop_held(sm) == 2, "holds \"</\"");
    TH_CHECK(rlx_stop_feed(sm, "b>x", 3, out, 2, &n, &hit) == RLX_ERROR_SIZE && n == 5 && rlx_stop_held(sm) == 2, "cap 2 < 5: nothing changes");
    TH_CHECK(rlx_stop_feed(sm, "b>x", 3, out, sizeof out, &n, &hit) == RLX_OK && n == 5 && memcmp(out, "</b>x", 5) == 0, "releases \"</b>x\"");
    TH_CHECK(rlx_stop_feed(sm, "Use", 3, out, sizeof out, &n, &hit) == RLX_OK && n == 0 && rlx_stop_held(sm) == 3, "holds Use");
    TH_CHECK(rlx_stop_feed(sm, "r: hi", 5, out, sizeof out, &n, &hit) == RLX_OK && n == 0 && hit == 1, "User: matched");
    TH_CHECK(rlx_stop_feed(sm, "more", 4, out, sizeof out, &n, &hit) == RLX_OK && n == 0 && hit == 1, "after a match: nothing");
    rlx_stop_reset(sm);
    TH_CHECK(rlx_stop_feed(sm, NULL, 5, out, sizeof out, &n, &hit) == RLX_ERROR_INVALID_ARGUMENT, "NULL piece with a length");
    TH_CHECK(rlx_stop_feed(sm, "x", 1, NULL, 4, &n, &hit) == RLX_ERROR_INVALID_ARGUMENT, "NULL out with a cap");
    rlx_stop_destroy(sm);
    rlx_stop_destroy(NULL);
}

/* =============================================================================================================
   Chat templates
   ============================================================================================================= */
/* Real tokenizer.chat_template strings of the models' tokenizer_config.json. */
static const char* const T_LLAMA2 =
    "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}{% set system_message = messages[0]['content'] %}"
    "{% else %}{% set loop_messages = messages %}{% set system_message = false %}{% endif %}{% for message in loop_messages %}"
    "{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if loop.index0 == 0 and system_message != false %}{% set content = '<<SYS>>\\n' + system_message + '\\n<</SYS>>\\n\\n' + message['content'] %}"
    "{% else %}{% set content = message['content'] %}{% endif %}{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}"
    "{% elif message['role'] == 'assistant' %}{{ ' '  + content.strip() + ' ' + eos_token }}{% endif %}{% endfor %}";
static const char* const T_LLAMA3 =
    "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + message['role'] + "
    "'<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}"
    "{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}";
static const char* const T_QWEN2 =
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}"
    "{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";
static const char* const T_GEMMA2 =
    "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
    "{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}"
    "{% endif %}{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}{% endif %}"
    "{{ '<start_of_turn>' + role + '\n' + message['content'] | trim + '<end_of_turn>\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{'<start_of_turn>model\n'}}{% endif %}";
static const char* const T_PHI3 =
    "{% for message in messages %}{% if message['role'] == 'system' %}{{'<|system|>\n' + message['content'] + '<|end|>\n'}}"
    "{% elif message['role'] == 'user' %}{{'<|user|>\n' + message['content'] + '<|end|>\n'}}{% elif message['role'] == 'assistant' %}"
    "{{'<|assistant|>\n' + message['content'] + '<|end|>\n'}}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\n' }}"
    "{% else %}{{ eos_token }}{% endif %}";
/* Mistral-7B-Instruct-v0.2 (no system prompt) and a Mistral v7 template with [SYSTEM_PROMPT] */
static const char* const T_MISTRAL02 =
    "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if message['role'] == 'user' %}"
    "{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token}}"
    "{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}";
static const char* const T_MISTRAL_V7 =
    "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'system' %}{{ '[SYSTEM_PROMPT] ' + message['content'] + '[/SYSTEM_PROMPT]' }}"
    "{% elif message['role'] == 'user' %}{{ '[INST] ' + message['content'] + '[/INST]' }}{% elif message['role'] == 'assistant' %}"
    "{{ ' ' + message['content'] + eos_token }}{% endif %}{% endfor %}";
static const char* const T_ZEPHYR =
    "{% for message in messages %}\n{% if message['role'] == 'user' %}\n{{ '<|user|>\n' + message['content'] + '<|endoftext|>' }}\n"
    "{% elif message['role'] == 'system' %}\n{{ '<|system|>\n' + message['content'] + '<|endoftext|>' }}\n{% elif message['role'] == 'assistant' %}\n"
    "{{ '<|assistant|>\n'  + message['content'] + '<|endoftext|>' }}\n{% endif %}\n{% if loop.last and add_generation_prompt %}\n{{ '<|assistant|>' }}\n{% endif %}\n{% endfor %}";

static const char* ti_pick(int rep, const char* const* tmpls, int nt, const char* const* names, int nn) {
    int k = rep % (nt + nn);
    return k < nt ? tmpls[k] : names[k - nt];
}

static void test_chat_llama(void) {
    const char* const tmpls[] = {T_LLAMA2, T_LLAMA3, T_QWEN2, T_GEMMA2, T_PHI3, T_MISTRAL02, T_MISTRAL_V7, T_ZEPHYR};
    static const char* const tnames[] = {"Llama-2-chat", "Llama-3-Instruct", "Qwen2-Instruct", "Gemma-2-it", "Phi-3-mini",
                                         "Mistral-7B-Instruct-v0.2", "Mistral v7", "zephyr-like"};
    static const char* const names[] = {"chatml", "llama2", "llama2-sys", "llama2-sys-bos", "llama2-sys-strip", "mistral-v1",
                                        "mistral-v3", "mistral-v3-tekken", "mistral-v7", "mistral-v7-tekken", "phi3", "phi4",
                                        "falcon3", "zephyr", "gemma", "llama3", "llama4", "glmedge", "monarch", "orion",
                                        "openchat", "vicuna", "vicuna-orca", "deepseek", "command-r", "chatglm3", "chatglm4",
                                        "minicpm", "deepseek2", "deepseek3", "exaone3", "exaone4", "rwkv-world", "granite",
                                        "gigachat", "megrez", "yandex", "bailing", "smolvlm", "hunyuan-moe"};
    static const rlx_chat_message conv[][6] = {
        {{"system", "You are a helpful assistant"}, {"user", "Hello"}, {"assistant", "Hi there"}, {"user", "Who are you"},
         {"assistant", "   I am an assistant   "}, {"user", "Another question"}},
        {{"user", "  only a user, padded \n"}, {"", ""}, {"", ""}, {"", ""}, {"", ""}, {"", ""}},
        {{"system", " sys \t"}, {"user", ""}, {"assistant", ""}, {"user", "x"}, {"", ""}, {"", ""}},
        {{"user", "caf\xc3\xa9 \xe2\x9c\x93"}, {"assistant", "ok\n"}, {"system", "late system"}, {"user", "again"}, {"", ""}, {"", ""}},
        {{"system", "   "}, {"system", "two systems"}, {"user", "q"}, {"model", "a"}, {"tool", "t"}, {"user", "z"}},
    };
    static const int nconv[] = {6, 1, 4, 4, 6};
    char* lbuf = (char*)malloc(65536);
    char* rbuf = (char*)malloc(65536);
    int ti, ci, add, cases = 0, agree = 0;
    const char* builtin[128];
    int32_t nb;
    for (ti = 0; ti < COUNT(tmpls) + COUNT(names); ti++) {
        const char* t = ti < COUNT(tmpls) ? tmpls[ti] : names[ti - COUNT(tmpls)];
        const char* tn = ti < COUNT(tmpls) ? tnames[ti] : t;
        for (ci = 0; ci < COUNT(nconv); ci++) {
            for (add = 0; add < 2; add++) {
                l_chat_message lm[6];
                size_t need = 0;
                int32_t ln, i;
                rlx_result r;
                for (i = 0; i < nconv[ci]; i++) { lm[i].role = conv[ci][i].role; lm[i].content = conv[ci][i].content; }
                ln = L.chat_apply(t, lm, (size_t)nconv[ci], (unsigned char)add, lbuf, 65536);
                r = rlx_chat_apply(t, conv[ci], nconv[ci], add, rbuf, 65536, &need);
                cases++;
                if (ln < 0) {
                    TH_CHECK(r == RLX_ERROR_UNSUPPORTED, "%s: llama recognises no template, rlx says %d", tn, (int)r);
                    continue;
                }
                if (r == RLX_OK && need == (size_t)ln && memcmp(lbuf, rbuf, need) == 0) agree++;
                else printf("  chat %s (family %s) conversation %d add %d: rlx %d (%s) %zu bytes, llama %d bytes\n    rlx:   \"%s\"\n    llama: \"%.*s\"\n",
                            tn, rlx_chat_template_family(t) ? rlx_chat_template_family(t) : "?", ci, add, (int)r, rlx_gen_error(), need, (int)ln, rbuf, (int)ln, lbuf);
            }
        }
    }
    /* random conversations: roles from a small set (unknown ones included), contents with white space at the
       ends, inside, or only white space, UTF-8, empty */
    {
        static const char* const roles[] = {"system", "user", "assistant", "model", "tool", ""};
        static const char* const bits[] = {" ", "\n", "\t", "a", "Hi", "\xc3\xa9", "\r\n", "[INST]", "<|im_end|>", "\v\f", "x y"};
        char content[8][64];
        int rep;
        th_seed(555);
        for (rep = 0; rep < 300; rep++) {
            rlx_chat_message rm[8];
            l_chat_message lm[8];
            int nm = (int)(th_rng() % 8), i, b;
            const char* t = ti_pick(rep, tmpls, COUNT(tmpls), names, COUNT(names));
            size_t need = 0;
            int32_t ln;
            rlx_result r;
            add = (int)(th_rng() % 2);
            for (i = 0; i < nm; i++) {
                int nb = (int)(th_rng() % 6);
                content[i][0] = 0;
                for (b = 0; b < nb; b++) strcat(content[i], bits[th_rng() % (uint64_t)COUNT(bits)]);
                rm[i].role = roles[th_rng() % (uint64_t)COUNT(roles)];
                rm[i].content = content[i];
                lm[i].role = rm[i].role; lm[i].content = rm[i].content;
            }
            ln = L.chat_apply(t, lm, (size_t)nm, (unsigned char)add, lbuf, 65536);
            r = rlx_chat_apply(t, rm, nm, add, rbuf, 65536, &need);
            cases++;
            if (ln >= 0 && r == RLX_OK && need == (size_t)ln && memcmp(lbuf, rbuf, need) == 0) agree++;
            else if (ln < 0 && r == RLX_ERROR_UNSUPPORTED) agree++;
            else printf("  chat random %d (family %s, %d messages, add %d): rlx %d %zu bytes, llama %d bytes\n    rlx:   \"%s\"\n    llama: \"%.*s\"\n",
                        rep, rlx_chat_template_family(t) ? rlx_chat_template_family(t) : "?", nm, add, (int)r, need, (int)ln, rbuf, ln > 0 ? (int)ln : 0, lbuf);
        }
    }
    TH_CHECK(agree == cases, "chat templates: %d of %d prompts equal llama_chat_apply_template's", agree, cases);
    /* marker combinations: rlx must never write a prompt llama.cpp would not write (another family, or none),
       and refuses (RLX_ERROR_UNSUPPORTED) where it does not write the family */
    {
        static const char* const probes[] = {
            "<|start_of_role|><tool_call>", "<|start_of_role|>", "<role>ASSISTANT</role>'HUMAN'", "<role>ASSISTANT</role>\"HUMAN\"",
            "<|start|><|channel|>", "<|channel|>", "<seed:bos>", "[unused9][unused10]", "<|begin|><|content|>",
            "<|begin|><|content|><|end|>", "hy_Assistant", "[|system|][|assistant|][|endofturn|]", "<|startoftext|><|extra_4|>",
            "<|startoftext|><|extra_4|><|extra_0|>", "<|header_start|><|header_end|>", "<|im_start|><|channel|>",
            "<|im_start|><|im_sep|>", "<|im_start|><end_of_utterance>", "<|assistant|><|user|><|tool_declare|>",
            "<|assistant|><|user|></s><|tool_declare|>", "<|assistant|><|end|><|tool_declare|>", "<|assistant|><|user|></s>",
            "<|assistant|><|user|>", "<|user|><|endoftext|>", "<|user|><|endoftext|><|tool_declare|>", "[gMASK]<sop><|assistant|>",
            "<|start_header_id|><|end_header_id|><|channel|>", "<|endofuserprompt|>", "<|im_assistant|>assistant<|im_middle|>",
            "mistral", "mistralai", "[INST]", "[INST] [AVAILABLE_TOOLS]", "\"[INST]\"[AVAILABLE_TOOLS]", "[AVAILABLE_TOOLS][INST]",
            "<start_of_turn><|start_header_id|><|end_header_id|>", "USER: ASSISTANT: SYSTEM: ", "### Instruction:<|EOT|>",
            "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>", "[gMASK]sop", "bos_token + message['role']", "GPT4 Correct ",
            "<|role_start|>", "rwkv-world", "<|{{ item['role'] }}|><|begin_of_image|>", "", "chatml ", "CHATML", "llama3"};
        int pi, pok = 0;
        for (pi = 0; pi < COUNT(probes); pi++) {
            size_t need = 0;
            int32_t ln = L.chat_apply(probes[pi], (const l_chat_message*)(const void*)conv[0], 6, 1, lbuf, 65536);
            rlx_result r = rlx_chat_apply(probes[pi], conv[0], 6, 1, rbuf, 65536, &need);
            int ok = (r == RLX_OK && ln >= 0 && need == (size_t)ln && memcmp(lbuf, rbuf, need) == 0) ||
                     (r == RLX_ERROR_UNSUPPORTED && ln < 0) ||
                     (r == RLX_ERROR_UNSUPPORTED && ln >= 0 && rlx_chat_template_family(probes[pi]) != NULL);
            if (!ok) printf("  chat probe \"%s\": rlx %d (family %s), llama %d\n", probes[pi], (int)r,
                            rlx_chat_template_family(probes[pi]) ? rlx_chat_template_family(probes[pi]) : "none", (int)ln);
            pok += ok;
        }
        TH_CHECK(pok == COUNT(probes), "chat: %d of %d marker probes agree with llama.cpp's detection", pok, COUNT(probes));
    }
    printf("chat templates vs libllama: %d of %d prompts byte-identical\n", agree, cases);
    /* every llama.cpp built-in name: rlx recognises it; the families rlx does not write are listed as skipped */
    nb = L.chat_builtin(builtin, COUNT(builtin));
    if (nb > 0 && nb <= COUNT(builtin)) {
        char skipped[2048] = "";
        int i, unknown = 0;
        for (i = 0; i < nb; i++) {
            const char* f = rlx_chat_template_family(builtin[i]);
            size_t need = 0;
            if (!f) { unknown++; printf("  chat: llama.cpp's template name \"%s\" is unknown to rlx\n", builtin[i]); continue; }
            if (rlx_chat_apply(builtin[i], conv[0], 6, 1, NULL, 0, &need) == RLX_ERROR_UNSUPPORTED) {
                strncat(skipped, " ", sizeof skipped - strlen(skipped) - 1);
                strncat(skipped, builtin[i], sizeof skipped - strlen(skipped) - 1);
            }
        }
        TH_CHECK(unknown == 0, "chat: %d of llama.cpp's %d template names are unknown to rlx", unknown, (int)nb);
        if (skipped[0]) th_skip("chat families recognised but not written by rlx (RLX_ERROR_UNSUPPORTED):%s", skipped);
    }
    free(lbuf); free(rbuf);
}

/* Without libllama: the families rlx writes, on hand-written expected prompts, and the API's errors. */
static void test_chat_api(void) {
    rlx_chat_message m[3] = {{"system", "S"}, {"user", " U "}, {"assistant", "A"}};
    char buf[256];
    size_t need = 0;
    TH_CHECK(rlx_chat_apply("chatml", m, 3, 1, buf, sizeof buf, &need) == RLX_OK &&
             strcmp(buf, "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\n U <|im_end|>\n<|im_start|>assistant\nA<|im_end|>\n<|im_start|>assistant\n") == 0 &&
             need == strlen(buf), "chatml: %s", buf);
    TH_CHECK(rlx_chat_apply("llama3", m, 2, 1, buf, sizeof buf, &need) == RLX_OK &&
             strcmp(buf, "<|start_header_id|>system<|end_header_id|>\n\nS<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nU<|eot_id|>"
                         "<|start_header_id|>assistant<|end_header_id|>\n\n") == 0, "llama3: %s", buf);
    TH_CHECK(rlx_chat_apply("gemma", m, 3, 0, buf, sizeof buf, &need) == RLX_OK &&
             strcmp(buf, "<start_of_turn>user\nS\n\nU<end_of_turn>\n<start_of_turn>model\nA<end_of_turn>\n") == 0, "gemma: %s", buf);
    TH_CHECK(rlx_chat_apply("llama2-sys", m, 3, 0, buf, sizeof buf, &need) == RLX_OK &&
             strcmp(buf, "[INST] <<SYS>>\nS\n<</SYS>>\n\n U  [/INST]A</s>") == 0, "llama2-sys: %s", buf);
    TH_CHECK(rlx_chat_apply("phi3", m + 1, 1, 1, buf, sizeof buf, &need) == RLX_OK &&
             strcmp(buf, "<|user|>\n U <|end|>\n<|assistant|>\n") == 0, "phi3: %s", buf);
    TH_CHECK(rlx_chat_apply(NULL, m + 2, 1, 0, buf, sizeof buf, &need) == RLX_OK &&
             strcmp(buf, "<|im_start|>assistant\nA<|im_end|>\n") == 0, "NULL template = chatml: %s", buf);
    /* detection of the real templates */
    TH_CHECK(strcmp(rlx_chat_template_family(T_LLAMA2), "llama2-sys-strip") == 0, "Llama-2 template: %s", rlx_chat_template_family(T_LLAMA2));
    TH_CHECK(strcmp(rlx_chat_template_family(T_LLAMA3), "llama3") == 0, "Llama-3 template");
    TH_CHECK(strcmp(rlx_chat_template_family(T_QWEN2), "chatml") == 0, "Qwen2 template");
    TH_CHECK(strcmp(rlx_chat_template_family(T_GEMMA2), "gemma") == 0, "Gemma-2 template");
    TH_CHECK(strcmp(rlx_chat_template_family(T_PHI3), "phi3") == 0, "Phi-3 template");
    TH_CHECK(strcmp(rlx_chat_template_family(T_MISTRAL_V7), "mistral-v7") == 0, "Mistral v7 template");
    /* sizes */
    {
        rlx_result r1 = rlx_chat_apply("chatml", m, 3, 1, NULL, 0, &need);
        size_t n1 = need;
        rlx_result r2 = rlx_chat_apply("chatml", m, 3, 1, buf, 118, &need);
        rlx_result r3 = rlx_chat_apply("chatml", m, 3, 1, buf, 119, &need);
        TH_CHECK(r1 == RLX_OK && n1 == 118, "length query: %d, %zu", (int)r1, n1);
        TH_CHECK(r2 == RLX_ERROR_SIZE && need == 118, "cap = length (no room for the NUL): %d", (int)r2);
        TH_CHECK(r3 == RLX_OK && strlen(buf) == 118, "cap = length + 1: %d", (int)r3);
        r2 = rlx_chat_apply("chatml", m, 3, 1, buf, 118, &need);
        TH_CHECK(buf[0] == 0, "a failed apply leaves out empty");
    }
    /* errors */
    TH_CHECK(rlx_chat_apply("{{ my own template }}", m, 3, 1, buf, sizeof buf, &need) == RLX_ERROR_UNSUPPORTED &&
             strstr(rlx_gen_error(), "my own template"), "unknown template: %s", rlx_gen_error());
    TH_CHECK(rlx_chat_apply("kimi-k2", m, 3, 1, buf, sizeof buf, &need) == RLX_ERROR_UNSUPPORTED &&
             strstr(rlx_gen_error(), "kimi-k2"), "recognised, not written: %s", rlx_gen_error());
    TH_CHECK(rlx_chat_apply("chatml", m, -1, 1, buf, sizeof buf, &need) == RLX_ERROR_INVALID_ARGUMENT, "n < 0");
    TH_CHECK(rlx_chat_apply("chatml", NULL, 2, 1, buf, sizeof buf, &need) == RLX_ERROR_INVALID_ARGUMENT, "NULL msgs");
    m[1].content = NULL;
    TH_CHECK(rlx_chat_apply("chatml", m, 3, 1, buf, sizeof buf, &need) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_gen_error(), "msgs[1]"), "NULL content: %s", rlx_gen_error());
    TH_CHECK(rlx_chat_apply("chatml", m, 0, 1, buf, sizeof buf, &need) == RLX_OK && strcmp(buf, "<|im_start|>assistant\n") == 0, "no messages");
}

int main(void) {
    test_sampler_errors();
    test_refs();
    test_dist_chi2();
    test_stop_api();
    test_stop_property();
    test_chat_api();
    if (load_llama()) {
        test_llama_stages();
        test_llama_greedy();
        test_chat_llama();
    } else {
        th_skip("sampler stages and chains against libllama: %s", g_why);
        th_skip("greedy picks against libllama: %s", g_why);
        th_skip("chat templates against llama_chat_apply_template: %s", g_why);
    }
    return th_summary("test_sampler");
}
