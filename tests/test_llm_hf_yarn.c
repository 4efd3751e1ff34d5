/* YaRN's attention factor from a Hugging Face config.json (>>llmhf): rope_scaling attention_factor, or mscale /
   mscale_all_dim, as transformers' _compute_yarn_parameters defines it: cos and sin are multiplied by
     attention_factor                                                   when given, else
     get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)    when both are non-zero, else
     get_mscale(factor),     get_mscale(s, m) = 1 + 0.1 · m · ln s (1 for s <= 1),
   computed here in f64. Multiplying cos and sin by A multiplies the rotated q and k by A, which is what scaling
   q_proj and k_proj by A / A0 does to a model whose rope has the default magnitude A0 = get_mscale(factor):
   for each case a tiny random llama (2 layers, d 64, 4 query / 2 kv heads of 16, SwiGLU 128, 64 tokens) with
   the keys is compared with the same model without them and with q_proj, k_proj scaled by A / A0 (in f64,
   rounded to f32): the logits of a 48-token prompt (positions past the original context of 16) and 4 decode
   steps agree to 1e-4 · max|logit|, and differ from the unscaled default model (the factor matters). Bad
   values (a negative attention_factor, mscale / mscale_all_dim giving a factor <= 0) and the keys still refused
   (attn_factor, extrapolation_factor) fail with their names. */
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
#  include <sys/stat.h>
#  define MKDIR(p) mkdir(p, 0755)
#endif

#define V 64
#define D 64
#define NH 4
#define NKV 2
#define HD 16
#define FF 128
#define NL 2
#define NP 48
#define STEPS 4

typedef struct wt { char name[80]; int rows, cols; float* x; } wt;
static wt g_w[32];
static int g_nw;

static void make_weights(void) {
    int l, i, k;
    char nm[80];
    th_seed(0x9A8Eu);
    for (i = 0; i < 3 + NL * 9; i++) {
        wt* w = &g_w[g_nw];
        int rows, cols;
        double base = 0.0, a;
        if (i == 0) { snprintf(nm, sizeof nm, "model.embed_tokens.weight"); rows = V; cols = D; }
        else if (i == 1) { snprintf(nm, sizeof nm, "model.norm.weight"); rows = D; cols = 0; }
        else if (i == 2) { snprintf(nm, sizeof nm, "lm_head.weight"); rows = V; cols = D; }
        else {
            static const char* const names[9] = {"input_layernorm.weight", "self_attn.q_proj.weight", "self_attn.k_proj.weight",
                                                 "self_attn.v_proj.weight", "self_attn.o_proj.weight", "post_attention_layernorm.weight",
                                                 "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight"};
            static const int shp[9][2] = {{D, 0}, {NH * HD, D}, {NKV * HD, D}, {NKV * HD, D}, {D, NH * HD}, {D, 0}, {FF, D}, {FF, D}, {D, FF}};
            l = (i - 3) / 9;
            k = (i - 3) % 9;
            snprintf(nm, sizeof nm, "model.layers.%d.%s", l, names[k]);
            rows = shp[k][0]; cols = shp[k][1];
        }
        if (cols == 0) { base = 1.0; a = 0.1; }
        else a = 3.0 * sqrt(3.0 / cols);   /* large q/k: attention far from uniform, so the factor shows */
        snprintf(w->name, sizeof w->name, "%s", nm);
        w->rows = rows; w->cols = cols;
        w->x = (float*)malloc(sizeof(float) * (size_t)rows * (size_t)(cols ? cols : 1));
        for (k = 0; k < rows * (cols ? cols : 1); k++) w->x[k] = (float)(base + th_uniform(-a, a));
        g_nw++;
    }
}

/* the folder: config.json with `extra` keys in rope_scaling; q_proj / k_proj scaled by qk (1: as made) */
static int write_folder(const char* dir, const char* extra, double qk) {
    char path[300], cfg[2048];
    rlx_safetensors_writer* w = NULL;
    float* tmp[32];
    int i, nt = 0, ok = 1;
    FILE* f;
    MKDIR(dir);
    snprintf(cfg, sizeof cfg,
             "{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": %d, \"intermediate_size\": %d, \"num_hidden_layers\": %d, "
             "\"num_attention_heads\": %d, \"num_key_value_heads\": %d, \"rms_norm_eps\": 1e-5, \"rope_theta\": 10000.0, "
             "\"max_position_embeddings\": 128, \"vocab_size\": %d, \"tie_word_embeddings\": false, "
             "\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4.0, \"original_max_position_embeddings\": 16%s%s}}",
             D, FF, NL, NH, NKV, V, extra[0] ? ", " : "", extra);
    snprintf(path, sizeof path, "%s/config.json", dir);
    if (!(f = fopen(path, "wb"))) return 0;
    fputs(cfg, f);
    ok &= fclose(f) == 0;
    ok &= rlx_safetensors_writer_create(NULL, &w) == RLX_OK;
    for (i = 0; i < g_nw && ok; i++) {
        int64_t s[2];
        const float* x = g_w[i].x;
        s[0] = g_w[i].rows; s[1] = g_w[i].cols;
        if (qk != 1.0 && (strstr(g_w[i].name, "q_proj") || strstr(g_w[i].name, "k_proj"))) {
            int k, n = g_w[i].rows * g_w[i].cols;
            float* y = tmp[nt++] = (float*)malloc(sizeof(float) * (size_t)n);
            for (k = 0; k < n; k++) y[k] = (float)((double)x[k] * qk);
            x = y;
        }
        ok &= rlx_safetensors_writer_tensor(w, g_w[i].name, RLX_F32, s[1] ? 2 : 1, s, x) == RLX_OK;
    }
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (ok) ok &= rlx_safetensors_writer_write_file(w, path) == RLX_OK;
    rlx_safetensors_writer_destroy(w);
    while (nt > 0) free(tmp[--nt]);
    return ok;
}

static rlx_llm* load(const char* dir, rlx_result* rc, char* err, size_t cap) {
    rlx_llm* m = NULL;
    rlx_llm_desc d;
    memset(&d, 0, sizeof d);
    d.device = RLX_DEVICE_CPU; d.n_ctx = 64; d.n_batch = 16; d.num_threads = 1;
    d.error = err; d.error_cap = cap;
    err[0] = 0;
    *rc = rlx_llm_load_hf(dir, &d, &m);
    return m;
}
/* logits after the prompt and after each of STEPS decode steps: (STEPS + 1) · V floats */
static int run(const char* dir, float* out) {
    char err[512];
    rlx_result rc;
    rlx_llm* m = load(dir, &rc, err, sizeof err);
    int32_t p[NP], t;
    int i, ok;
    if (!m) { printf("  %s: %s\n", dir, err); return 0; }
    for (i = 0; i < NP; i++) p[i] = (int32_t)((i * 37 + 5) % V);
    ok = rlx_llm_eval(m, p, NP, out) == RLX_OK;
    for (i = 0; i < STEPS && ok; i++) {
        t = (int32_t)((i * 11 + 3) % V);
        ok = rlx_llm_eval(m, &t, 1, out + (size_t)(i + 1) * V) == RLX_OK;
    }
    if (!ok) printf("  %s: %s\n", dir, rlx_llm_error(m));
    rlx_llm_destroy(m);
    return ok;
}
static double rel_diff(const float* a, const float* b) {
    double md = 0, mx = 0;
    int i;
    for (i = 0; i < (STEPS + 1) * V; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (d > md || d != d) md = d;
        if (fabs((double)b[i]) > mx) mx = fabs((double)b[i]);
    }
    return mx > 0 ? md / mx : md;
}
static double get_mscale(double s, double m) { return s <= 1.0 ? 1.0 : 1.0 + 0.1 * m * log(s); }

int main(void) {
    static const struct { const char* name; const char* keys; double a; } cases[] = {
        {"attention_factor 0.6", "\"attention_factor\": 0.6", 0.6},
        {"attention_factor 1.5", "\"attention_factor\": 1.5", 1.5},
        {"mscale 0.707, mscale_all_dim 1", "\"mscale\": 0.707, \"mscale_all_dim\": 1.0", -1},        /* DeepSeek-style */
        {"mscale 2, mscale_all_dim 0.5", "\"mscale\": 2.0, \"mscale_all_dim\": 0.5", -2},
        {"mscale 3 alone (ignored: default)", "\"mscale\": 3.0", -3},
        {"attention_factor over mscale", "\"attention_factor\": 0.8, \"mscale\": 0.707, \"mscale_all_dim\": 1.0", 0.8},
    };
    float *ref = (float*)malloc(sizeof(float) * (STEPS + 1) * V), *got = (float*)malloc(sizeof(float) * (STEPS + 1) * V);
    float* plain = (float*)malloc(sizeof(float) * (STEPS + 1) * V);
    double a0 = get_mscale(4.0, 1.0);
    size_t i;
    MKDIR("build");
    MKDIR("build/test_llm_hf_yarn_af");
    make_weights();
    TH_CHECK(write_folder("build/test_llm_hf_yarn_af/default", "", 1.0) && run("build/test_llm_hf_yarn_af/default", plain), "the default YaRN folder");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double a = cases[i].a;
        if (a == -1) a = get_mscale(4.0, 0.707) / get_mscale(4.0, 1.0);
        if (a == -2) a = get_mscale(4.0, 2.0) / get_mscale(4.0, 0.5);
        if (a == -3) a = a0;
        if (!write_folder("build/test_llm_hf_yarn_af/keys", cases[i].keys, 1.0) || !write_folder("build/test_llm_hf_yarn_af/ref", "", a / a0) ||
            !run("build/test_llm_hf_yarn_af/keys", got) || !run("build/test_llm_hf_yarn_af/ref", ref)) {
            TH_CHECK(0, "%s: folders", cases[i].name);
            continue;
        }
        TH_CHECK(rel_diff(got, ref) <= 1e-4, "%s (A = %.6f): max|d| %.3g of max|logit| against q/k scaled by A / A0 (A0 = %.6f)",
                 cases[i].name, a, rel_diff(got, ref), a0);
        if (fabs(a - a0) > 0.05)
            TH_CHECK(rel_diff(got, plain) > 1e-2, "%s: the logits equal the default model's (max|d| %.3g): the test cannot see the factor", cases[i].name, rel_diff(got, plain));
        printf("  %-36s A = %.6f: max|d| %.2g of max|logit|\n", cases[i].name, a, rel_diff(got, ref));
    }
    {   /* bad values and the keys still refused */
        static const struct { const char* keys; rlx_result rc; const char* needle; } bad[] = {
            {"\"attention_factor\": -1.0", RLX_ERROR_FORMAT, "attention_factor"},
            {"\"attention_factor\": \"x\"", RLX_ERROR_FORMAT, "attention_factor"},
            {"\"mscale\": 1.0, \"mscale_all_dim\": -8.0", RLX_ERROR_FORMAT, "mscale_all_dim"},
            {"\"attn_factor\": 0.5", RLX_ERROR_UNSUPPORTED, "attn_factor"},
            {"\"extrapolation_factor\": 0.5", RLX_ERROR_UNSUPPORTED, "extrapolation_factor"},
        };
        char err[512];
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            rlx_result rc = RLX_OK;
            rlx_llm* m;
            if (!write_folder("build/test_llm_hf_yarn_af/bad", bad[i].keys, 1.0)) { TH_CHECK(0, "bad folder"); continue; }
            m = load("build/test_llm_hf_yarn_af/bad", &rc, err, sizeof err);
            TH_CHECK(!m && rc == bad[i].rc && strstr(err, bad[i].needle), "rope_scaling {%s}: rc %d (expected %d), '%s'", bad[i].keys, (int)rc, (int)bad[i].rc, err);
            rlx_llm_destroy(m);
        }
    }
    for (i = 0; i < (size_t)g_nw; i++) free(g_w[i].x);
    free(ref); free(got); free(plain);
    return th_summary("llm_hf_yarn");
}
