/* Incremental decoding tests on the example transformer (examples/transformer_model.h), at a tiny size:
   vocab 256, d_model 64, 2 layers, 4 query heads / 2 kv heads of 16, SwiGLU 176, context 32.

   - cached decoding = recomputation: a 10-token prompt is prefilled, then 8 tokens are decoded greedily with the
     KV cache; the logits of every step must match (1e-4 relative to the row's largest logit) a fresh program
     that recomputes the whole sequence from scratch (S = current length, zero caches, pos = 0);
   - prefill = token by token: feeding the prompt one token at a time through the decode program gives every
     row of the prefill logits and the same K/V caches (rlx_get_state), and then the same decode logits;
   - fusion: the decode and prefill programs compiled with RLX_COMPILE_NO_FUSION, and a graph built directly
     from the fused ops (rlx_linear, rlx_add_rmsnorm, rlx_swiglu), agree with the default program (1e-5);
   - outputs: "next" is the argmax of "logits"; "sample" is one of the top-k (40) logits and repeats for the
     same counter;
   - state API errors: unknown names and wrong sizes are rejected. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../rlx.h"
#include "harness.h"
#include "../examples/transformer_model.h"

#include <stdlib.h>

enum { PROMPT = 10, GEN = 8 };

static tm_config cfg;
static tm_weights weights;

/* max |a - b| / max |b| over n values (0 when both are all zero) */
static double rel_err(const float* a, const float* b, size_t n) {
    double num = 0.0, den = 0.0;
    size_t i;
    for (i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]), m = fabs((double)b[i]);
        if (d != d) return 1e30; /* NaN */
        if (d > num) num = d;
        if (m > den) den = m;
    }
    return den > 0.0 ? num / den : num;
}

static int argmax_f(const float* x, int n) {
    int i, best = 0;
    for (i = 1; i < n; i++)
        if (x[i] > x[best]) best = i;
    return best;
}

/* Compiles and sets the weights; NULL (and a counted failure) on error. */
static rlx_program* make(int seq, int all_logits, int fused_ops, uint32_t flags, const char* what) {
    tm_build b = tm_build_default(seq);
    rlx_program* p = NULL;
    char err[512];
    rlx_result r;
    b.all_logits = all_logits;
    b.fused_ops = fused_ops;
    r = tm_compile(&cfg, &b, 0, flags, &p, err, sizeof err);
    TH_CHECK(r == RLX_OK, "compile %s (S = %d): %s: %s", what, seq, rlx_result_string(r), err);
    if (r != RLX_OK) return NULL;
    r = tm_set_params(p, &weights);
    TH_CHECK(r == RLX_OK, "set params of %s: %s", what, rlx_program_error(p));
    if (r != RLX_OK) { rlx_program_destroy(p); return NULL; }
    return p;
}

/* Runs p on n tokens at pos and reads "logits" (V floats); returns 0 after a counted failure. */
static int run_logits(rlx_program* p, const int32_t* tokens, int n, int pos, int64_t counter, float* logits,
                      const char* what) {
    rlx_result r = tm_run(p, tokens, n, pos, counter);
    if (r == RLX_OK) r = rlx_get_output_f32(p, "logits", logits, (size_t)cfg.vocab);
    TH_CHECK(r == RLX_OK, "run %s at pos %d: %s: %s", what, pos, rlx_result_string(r), rlx_program_error(p));
    return r == RLX_OK;
}

static int64_t out_i64(rlx_program* p, const char* name) {
    int64_t v = -1;
    rlx_result r = rlx_get_output_i64(p, name, &v, 1);
    TH_CHECK(r == RLX_OK, "read %s: %s", name, rlx_program_error(p));
    return v;
}

static int copy_caches(rlx_program* dst, rlx_program* src) {
    rlx_program* failed = NULL;
    rlx_result r = tm_copy_caches(dst, src, &cfg, &failed);
    TH_CHECK(r == RLX_OK, "copy caches: %s: %s", rlx_result_string(r), failed ? rlx_program_error(failed) : "");
    return r == RLX_OK;
}

/* Every cache of a and b: rows < len agree within tol (relative to the largest value), rows >= len are zero. */
static void compare_caches(rlx_program* a, rlx_program* b, int len, double tol, const char* what) {
    size_t n = tm_cache_count(&cfg), i;
    float* x = (float*)malloc(n * sizeof(float));
    float* y = (float*)malloc(n * sizeof(float));
    int l, kv;
    char name[32];
    if (!x || !y) { TH_CHECK(0, "out of memory"); free(x); free(y); return; }
    for (l = 0; l < cfg.n_layers; l++)
        for (kv = 0; kv < 2; kv++) {
            rlx_result ra, rb;
            double e;
            int tail_zero = 1, nonzero = 0;
            snprintf(name, sizeof name, "%s_cache.%d", kv ? "v" : "k", l);
            ra = rlx_get_state(a, name, RLX_F32, x, n * sizeof(float));
            rb = rlx_get_state(b, name, RLX_F32, y, n * sizeof(float));
            TH_CHECK(ra == RLX_OK && rb == RLX_OK, "get_state %s: %s / %s", name, rlx_program_error(a),
                     rlx_program_error(b));
            if (ra != RLX_OK || rb != RLX_OK) continue;
            e = rel_err(x, y, n);
            for (i = 0; i < n; i++) {
                int row = (int)((i / (size_t)cfg.head_dim) % (size_t)cfg.max_ctx);
                if (row >= len && (x[i] != 0.0f || y[i] != 0.0f)) tail_zero = 0;
                if (row < len && y[i] != 0.0f) nonzero = 1;
            }
            TH_CHECK(e <= tol, "%s: %s differs: rel err %.3g > %.3g", what, name, e, tol);
            TH_CHECK(tail_zero, "%s: %s has values past row %d", what, name, len);
            TH_CHECK(nonzero, "%s: %s is all zero", what, name);
        }
    free(x);
    free(y);
}

int main(void) {
    int V;
    int32_t seq[PROMPT + GEN];
    float *all_pre = NULL, *all_nf = NULL, *all_fu = NULL, *row = NULL, *lg = NULL, *lg_nf = NULL, *lg_fu = NULL,
          *lg_tbt = NULL, *lg_re = NULL;
    rlx_program *pre, *pre_nf, *pre_fu, *dec, *dec_nf, *dec_fu, *tbt = NULL;
    double worst_re = 0.0, worst_tbt = 0.0, worst_fusion = 0.0;
    int i, j, L;

    cfg = tm_config_tiny();
    V = cfg.vocab;
    if (!tm_weights_init(&cfg, 1, &weights)) { TH_CHECK(0, "out of memory"); return th_summary("decode"); }
    th_seed(12345);
    for (i = 0; i < PROMPT; i++) seq[i] = (int32_t)(th_rng() % (uint64_t)V);

    all_pre = (float*)malloc(sizeof(float) * PROMPT * (size_t)V);
    all_nf = (float*)malloc(sizeof(float) * PROMPT * (size_t)V);
    all_fu = (float*)malloc(sizeof(float) * PROMPT * (size_t)V);
    row = (float*)malloc(sizeof(float) * (size_t)V * 7);
    if (!all_pre || !all_nf || !all_fu || !row) { TH_CHECK(0, "out of memory"); return th_summary("decode"); }
    lg = row; lg_nf = row + V; lg_fu = row + 2 * V; lg_tbt = row + 3 * V; lg_re = row + 4 * V;

    pre = make(PROMPT, 1, 0, 0, "prefill");
    pre_nf = make(PROMPT, 1, 0, RLX_COMPILE_NO_FUSION, "prefill, no fusion");
    pre_fu = make(PROMPT, 1, 1, 0, "prefill, fused ops");
    dec = make(1, 0, 0, 0, "decode");
    dec_nf = make(1, 0, 0, RLX_COMPILE_NO_FUSION, "decode, no fusion");
    dec_fu = make(1, 0, 1, 0, "decode, fused ops");
    if (dec) {
        rlx_result r = rlx_program_clone(dec, 1, &tbt);
        TH_CHECK(r == RLX_OK, "clone decode: %s", rlx_program_error(dec));
    }
    if (!pre || !pre_nf || !pre_fu || !dec || !dec_nf || !dec_fu || !tbt) goto done;

    /* ---- plans: fusion removes steps ---- */
    {
        rlx_plan_info on, off;
        TH_CHECK(rlx_program_plan(dec, &on) == RLX_OK && rlx_program_plan(dec_nf, &off) == RLX_OK, "plan");
        TH_CHECK(on.num_steps <= off.num_steps, "fusion on has more steps (%d) than off (%d)", on.num_steps,
                 off.num_steps);
        TH_CHECK(on.state_bytes == (size_t)cfg.n_layers * 2 * tm_cache_count(&cfg) * sizeof(float),
                 "state bytes %zu", on.state_bytes);
    }

    /* ---- prefill (fusion on, off, fused ops) ---- */
    if (!run_logits(pre, seq, PROMPT, 0, 0, lg, "prefill")) goto done;
    if (!run_logits(pre_nf, seq, PROMPT, 0, 0, lg_nf, "prefill, no fusion")) goto done;
    if (!run_logits(pre_fu, seq, PROMPT, 0, 0, lg_fu, "prefill, fused ops")) goto done;
    TH_CHECK(rlx_get_output_f32(pre, "all_logits", all_pre, PROMPT * (size_t)V) == RLX_OK, "all_logits");
    TH_CHECK(rlx_get_output_f32(pre_nf, "all_logits", all_nf, PROMPT * (size_t)V) == RLX_OK, "all_logits");
    TH_CHECK(rlx_get_output_f32(pre_fu, "all_logits", all_fu, PROMPT * (size_t)V) == RLX_OK, "all_logits");
    {
        double e1 = rel_err(all_nf, all_pre, PROMPT * (size_t)V), e2 = rel_err(all_fu, all_pre, PROMPT * (size_t)V);
        double e3 = rel_err(all_pre + (PROMPT - 1) * V, lg, (size_t)V);
        TH_CHECK(e1 <= 1e-5, "prefill logits, fusion off vs on: rel err %.3g", e1);
        TH_CHECK(e2 <= 1e-5, "prefill logits, fused ops vs plain: rel err %.3g", e2);
        TH_CHECK(e3 <= 1e-5, "last row of all_logits vs logits: rel err %.3g", e3);
        if (e1 > worst_fusion) worst_fusion = e1;
        if (e2 > worst_fusion) worst_fusion = e2;
    }
    TH_CHECK(out_i64(pre, "next") == argmax_f(lg, V), "next is not the argmax of logits");
    {
        /* the logits are not degenerate: a spread of values, and rows differ */
        float mn = lg[0], mx = lg[0];
        for (i = 1; i < V; i++) { if (lg[i] < mn) mn = lg[i]; if (lg[i] > mx) mx = lg[i]; }
        TH_CHECK(mx - mn > 0.1f && rel_err(all_pre, all_pre + V, (size_t)V) > 1e-3, "degenerate logits");
    }

    /* ---- token by token through the decode program: every row of the prefill logits, the same caches ---- */
    for (i = 0; i < PROMPT; i++) {
        double e;
        if (!run_logits(tbt, &seq[i], 1, i, 0, lg_tbt, "token by token")) goto done;
        e = rel_err(lg_tbt, all_pre + (size_t)i * (size_t)V, (size_t)V);
        if (e > worst_tbt) worst_tbt = e;
        TH_CHECK(e <= 1e-4, "token %d: token-by-token logits differ from prefill row: rel err %.3g", i, e);
    }
    compare_caches(tbt, pre, PROMPT, 1e-5, "token by token vs prefill");
    compare_caches(pre_nf, pre, PROMPT, 1e-5, "prefill, fusion off vs on");

    /* ---- decode GEN tokens: cached (3 variants) vs token-by-token vs full recomputation ---- */
    if (!copy_caches(dec, pre) || !copy_caches(dec_nf, pre_nf) || !copy_caches(dec_fu, pre_fu)) goto done;
    compare_caches(dec, pre, PROMPT, 0.0, "copied caches");
    for (j = 0; j < GEN; j++) {
        rlx_program* re;
        double e;
        L = PROMPT + j; /* tokens in the sequence; lg holds the cached logits of its last token */
        re = make(L, 0, 0, 0, "recompute");
        if (!re) goto done;
        if (!run_logits(re, seq, L, 0, 0, lg_re, "recompute")) { rlx_program_destroy(re); goto done; }
        e = rel_err(lg, lg_re, (size_t)V);
        if (e > worst_re) worst_re = e;
        TH_CHECK(e <= 1e-4, "length %d: cached logits differ from recomputation: rel err %.3g", L, e);
        if (j == GEN - 1) compare_caches(re, dec, L, 1e-4, "recompute vs cached");
        rlx_program_destroy(re);

        /* greedy next token, then one decode step of every variant at pos L */
        seq[L] = (int32_t)argmax_f(lg, V);
        if (j == GEN - 1) break;
        if (!run_logits(dec, &seq[L], 1, L, j + 1, lg, "decode")) goto done;
        if (!run_logits(dec_nf, &seq[L], 1, L, j + 1, lg_nf, "decode, no fusion")) goto done;
        if (!run_logits(dec_fu, &seq[L], 1, L, j + 1, lg_fu, "decode, fused ops")) goto done;
        if (!run_logits(tbt, &seq[L], 1, L, j + 1, lg_tbt, "token by token")) goto done;
        e = rel_err(lg_nf, lg, (size_t)V);
        if (e > worst_fusion) worst_fusion = e;
        TH_CHECK(e <= 1e-5, "pos %d: decode logits, fusion off vs on: rel err %.3g", L, e);
        e = rel_err(lg_fu, lg, (size_t)V);
        if (e > worst_fusion) worst_fusion = e;
        TH_CHECK(e <= 1e-5, "pos %d: decode logits, fused ops vs plain: rel err %.3g", L, e);
        e = rel_err(lg_tbt, lg, (size_t)V);
        if (e > worst_tbt) worst_tbt = e;
        TH_CHECK(e <= 1e-4, "pos %d: decode logits after token-by-token prefill: rel err %.3g", L, e);
        {
            /* sample: one of the top_k logits; the same counter gives the same token */
            int64_t s = out_i64(dec, "sample"), s2;
            int above = 0;
            if (s >= 0 && s < V)
                for (i = 0; i < V; i++) above += lg[i] > lg[s];
            TH_CHECK(s >= 0 && s < V && above < 40, "pos %d: sampled token %lld is not in the top 40", L, (long long)s);
            s2 = out_i64(dec_nf, "sample");
            TH_CHECK(s == s2, "pos %d: sample differs between fusion on (%lld) and off (%lld)", L, (long long)s,
                     (long long)s2);
            TH_CHECK(out_i64(dec, "next") == argmax_f(lg, V), "pos %d: next is not the argmax", L);
        }
    }
    compare_caches(tbt, dec, PROMPT + GEN - 1, 1e-4, "token by token vs prefill+decode after decoding");

    /* ---- state API errors ---- */
    {
        float one = 0.0f;
        TH_CHECK(rlx_get_state(dec, "no_such_state", RLX_F32, &one, sizeof one) == RLX_ERROR_NOT_FOUND,
                 "get_state of an unknown name");
        TH_CHECK(rlx_set_state(dec, "k_cache.0", RLX_F32, &one, sizeof one) == RLX_ERROR_SIZE,
                 "set_state with a wrong size");
    }
    printf("decode: max rel err: cached vs recomputed %.3g, token-by-token vs prefill %.3g, fusion/fused ops %.3g\n",
           worst_re, worst_tbt, worst_fusion);

done:
    rlx_program_destroy(pre);
    rlx_program_destroy(pre_nf);
    rlx_program_destroy(pre_fu);
    rlx_program_destroy(dec);
    rlx_program_destroy(dec_nf);
    rlx_program_destroy(dec_fu);
    rlx_program_destroy(tbt);
    free(all_pre);
    free(all_nf);
    free(all_fu);
    free(row);
    tm_weights_free(&weights);
    return th_summary("decode");
}
