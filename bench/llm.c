/* llm.c - a language model end to end (>>llm): rlx_llm against llama.cpp's libllama on the same GGUF file.

   Build (from the repository root):
       cc -O3 -I. bench/llm.c -o build/bench/llm -lm -lpthread -ldl
   Peer: libllama.v0.4.0.so from the npm package @node-llama-cpp/linux-x64@3.21.1 (tests/fetch_npm.sh
   @node-llama-cpp/linux-x64@3.21.1; RLX_GGML_DIR overrides the directory of the .so files), with its default
   context settings (f16 KV cache, flash attention auto) except n_ctx 1024, n_batch = n_ubatch = 512 and the
   thread count. Without it the llama.cpp columns say "-".
   Model: TinyLlama-1.1B-shaped (d 2048, 22 layers, 32 query / 4 kv heads of 64, SwiGLU 5632, vocabulary
   32000) with random weights, every matrix and the embedding in the format (q4_0, q8_0 or q4_K: random block bytes
   with scales for variance 1 / fan_in), norms f32; written once to /tmp/rlx_bench_llm_<format>.gguf (about
   0.6 / 1.2 / 0.6 GB; kept for later runs). rlx: n_ctx 1024, the default prefill chunk (64; on a GPU the
   whole 512-token prompt), f32 KV cache.
   Usage:
       llm [q4_0|q8_0|q4_K|all] [layers]     default: all, 22 layers (fewer layers: a quicker, smaller model)
   Environment: RLX_BENCH_PROFILE=1 prints rlx's per-step profiles (1 thread) of 8 decode steps and of
   one more prompt through the prefill program. RLX_BENCH_DEVICE=cuda|vulkan
   runs rlx on that GPU. The peer is llama.cpp's CPU build unless
   RLX_GGML_DIR names the bins of @node-llama-cpp/linux-x64-vulkan@3.21.1 and RLX_GGML_VARIANT=vulkan (its
   libraries are libggml.vulkan.v0.4.0.so, libllama.vulkan.v0.4.0.so): llama.cpp then offloads every layer to
   the Vulkan GPU (its default n_gpu_layers), the peer of rlx's CUDA and Vulkan runs. bench/llm_torch.py is the
   PyTorch peer on a CUDA GPU (the same shape in f16).

   Prints per format and thread count (1, 2): prompt tok/s (one 512-token prompt, timed from the first token
   to the logits of the last), decode tok/s (32 greedy tokens one at a time after it) for rlx and llama.cpp,
   and the ratios rlx / llama.cpp (> 1: rlx is faster). Then per format the peak resident memory (VmHWM) of
   each, measured in a fresh process of this program (`llm --rss rlx|llama FILE`) running the same prompt and
   decode steps on 2 threads, against the file size + its KV cache (RLX_BENCH_NO_RSS=1 leaves it out). */
#if !defined(_POSIX_C_SOURCE) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#endif
#define RLX_IMPLEMENTATION
#include "../rlx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dlfcn.h>
#include <unistd.h>

#define VOCAB 32000
#define DM 2048
#define NHEAD 32
#define NKV 4
#define HDIM 64
#define FFN 5632
#define PROMPT 512
#define GEN 32

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

/* f32 → f16 bits for normal values (the block scales here) */
static uint16_t f16_bits(float f) {
    uint32_t u, e, m;
    memcpy(&u, &f, 4);
    e = (u >> 23) & 0xFF;
    m = (u >> 13) & 0x3FF;
    return (uint16_t)(((u >> 16) & 0x8000u) | ((e - 112u) << 10) | m);
}

/* random block bytes of rows × cols in ggml type t (2 = q4_0, 8 = q8_0, 12 = q4_K) with values of std ~ 1/sqrt(cols)
   (q4_K: random 6-bit scales and mins, dmin chosen so that the values centre near 0) */
static void* random_blocks(int t, int64_t rows, int64_t cols, size_t* bytes) {
    size_t qk = t == 12 ? 256 : 32, nb = (size_t)(rows * cols) / qk, bs = t == 2 ? 18 : t == 8 ? 34 : 144, i, j;
    size_t first = t == 12 ? 4 : 2;
    unsigned char* p = (unsigned char*)malloc(nb * bs);
    double sd = 1.0 / sqrt((double)cols);
    uint16_t d = f16_bits((float)(t == 2 ? sd / 4.6 : t == 8 ? sd / 73.0 : sd / (4.6 * 36.0)));
    uint16_t dmin = f16_bits((float)(sd / (4.6 * 36.0) * 7.5));
    *bytes = nb * bs;
    if (!p) return NULL;
    for (i = 0; i < nb; i++) {
        unsigned char* b = p + i * bs;
        memcpy(b, &d, 2);
        if (t == 12) memcpy(b + 2, &dmin, 2);
        for (j = first; j < bs; j++) b[j] = (unsigned char)(rnd() >> 32);
    }
    return p;
}

typedef struct keep { void* p[512]; int n; } keep;

static int write_model(const char* path, int t, int layers) {
    rlx_gguf_writer* w = NULL;
    keep k;
    char key[96], name[96];
    static char tokbuf[VOCAB][12];
    static const char* toks[VOCAB];
    static float scores[VOCAB];
    static int32_t types[VOCAB];
    float* ones = (float*)malloc(sizeof(float) * DM);
    uint32_t u;
    float f;
    int i, l, ok = 1;
    size_t bytes;
    k.n = 0;
    if (!ones || rlx_gguf_writer_create(NULL, &w) != RLX_OK) return 0;
    for (i = 0; i < DM; i++) ones[i] = 1.0f + 0.01f * (float)(i % 7);
    ok &= rlx_gguf_writer_string(w, "general.architecture", "llama", 5) == RLX_OK;
#define KVU(k_, v_) do { snprintf(key, sizeof key, "llama.%s", k_); u = (uint32_t)(v_); ok &= rlx_gguf_writer_kv(w, key, RLX_GGUF_U32, &u) == RLX_OK; } while (0)
    KVU("context_length", 2048); KVU("embedding_length", DM); KVU("block_count", layers);
    KVU("feed_forward_length", FFN); KVU("attention.head_count", NHEAD); KVU("attention.head_count_kv", NKV);
    KVU("rope.dimension_count", HDIM);
    f = 1e-5f; ok &= rlx_gguf_writer_kv(w, "llama.attention.layer_norm_rms_epsilon", RLX_GGUF_F32, &f) == RLX_OK;
    f = 10000.0f; ok &= rlx_gguf_writer_kv(w, "llama.rope.freq_base", RLX_GGUF_F32, &f) == RLX_OK;
#undef KVU
    for (i = 0; i < VOCAB; i++) {
        if (i == 0) strcpy(tokbuf[i], "<unk>");
        else if (i == 1) strcpy(tokbuf[i], "<s>");
        else if (i == 2) strcpy(tokbuf[i], "</s>");
        else if (i < 259) snprintf(tokbuf[i], sizeof tokbuf[i], "<0x%02X>", i - 3);
        else snprintf(tokbuf[i], sizeof tokbuf[i], "w%d", i);
        toks[i] = tokbuf[i];
        scores[i] = -(float)i;
        types[i] = i == 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1;
    }
    ok &= rlx_gguf_writer_string(w, "tokenizer.ggml.model", "llama", 5) == RLX_OK;
    ok &= rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, toks, VOCAB) == RLX_OK;
    ok &= rlx_gguf_writer_array(w, "tokenizer.ggml.scores", RLX_GGUF_F32, scores, VOCAB) == RLX_OK;
    ok &= rlx_gguf_writer_array(w, "tokenizer.ggml.token_type", RLX_GGUF_I32, types, VOCAB) == RLX_OK;
#define MAT(nm, r_, c_) do { int64_t s_[2]; void* d_ = random_blocks(t, r_, c_, &bytes); s_[0] = r_; s_[1] = c_; \
        if (!d_ || k.n >= 512) { ok = 0; free(d_); break; } k.p[k.n++] = d_; \
        ok &= rlx_gguf_writer_tensor(w, nm, (uint32_t)t, 2, s_, d_, bytes) == RLX_OK; } while (0)
#define VEC(nm) do { int64_t s_ = DM; ok &= rlx_gguf_writer_tensor(w, nm, 0, 1, &s_, ones, sizeof(float) * DM) == RLX_OK; } while (0)
    MAT("token_embd.weight", VOCAB, DM);
    VEC("output_norm.weight");
    MAT("output.weight", VOCAB, DM);
    for (l = 0; l < layers && ok; l++) {
        snprintf(name, sizeof name, "blk.%d.attn_norm.weight", l); VEC(name);
        snprintf(name, sizeof name, "blk.%d.attn_q.weight", l); MAT(name, NHEAD * HDIM, DM);
        snprintf(name, sizeof name, "blk.%d.attn_k.weight", l); MAT(name, NKV * HDIM, DM);
        snprintf(name, sizeof name, "blk.%d.attn_v.weight", l); MAT(name, NKV * HDIM, DM);
        snprintf(name, sizeof name, "blk.%d.attn_output.weight", l); MAT(name, DM, NHEAD * HDIM);
        snprintf(name, sizeof name, "blk.%d.ffn_norm.weight", l); VEC(name);
        snprintf(name, sizeof name, "blk.%d.ffn_gate.weight", l); MAT(name, FFN, DM);
        snprintf(name, sizeof name, "blk.%d.ffn_up.weight", l); MAT(name, FFN, DM);
        snprintf(name, sizeof name, "blk.%d.ffn_down.weight", l); MAT(name, DM, FFN);
    }
#undef MAT
#undef VEC
    if (ok) ok = rlx_gguf_writer_write_file(w, path) == RLX_OK;
    if (!ok) printf("writing %s failed: %s\n", path, rlx_gguf_writer_error(w));
    rlx_gguf_writer_destroy(w);
    for (i = 0; i < k.n; i++) free(k.p[i]);
    free(ones);
    return ok;
}

/* ---- libllama (same declarations and checked offsets as tests/test_llm.c) ---- */
typedef struct llama_batch_ { int32_t n_tokens; int32_t* token; float* embd; int32_t* pos; int32_t* n_seq_id; int32_t** seq_id; int8_t* logits; } llama_batch_;
typedef struct lparams { uint64_t w[64]; } lparams;
enum { CP_N_CTX = 0, CP_N_BATCH = 4, CP_N_UBATCH = 8, CP_N_SEQ_MAX = 12, CP_N_THREADS = 28, CP_N_THREADS_BATCH = 32,
       CP_FLASH_ATTN = 52, CP_TYPE_K = 104, CP_TYPE_V = 108 };
static struct {
    void (*backend_init)(void);
    void (*log_set)(void (*)(int, const char*, void*), void*);
    lparams (*model_default_params)(void);
    lparams (*context_default_params)(void);
    void* (*model_load)(const char*, lparams);
    void (*model_free)(void*);
    void* (*init_from_model)(void*, lparams);
    void (*free_)(void*);
    llama_batch_ (*batch_get_one)(int32_t*, int32_t);
    int32_t (*decode)(void*, llama_batch_);
    float* (*get_logits_ith)(void*, int32_t);
} L;
static char g_why[600] = "not loaded";
static void quiet_log(int level, const char* text, void* user) { (void)level; (void)text; (void)user; }
static int rd_i32(const lparams* p, int off) { int32_t v; memcpy(&v, (const char*)p + off, 4); return v; }
static void wr_i32(lparams* p, int off, int32_t v) { memcpy((char*)p + off, &v, 4); }

static int load_llama(void) {
    char path[700];
    const char* dir = getenv("RLX_GGML_DIR");
    void *gl, *lib;
    void (*load_all_from_path)(const char*);
    lparams c;
    const char* var = getenv("RLX_GGML_VARIANT");   /* "vulkan": the libraries of the -vulkan package */
    char sfx[40] = "";
    if (var && var[0]) snprintf(sfx, sizeof sfx, "%.30s.", var);
    if (!dir || !dir[0]) dir = "build/npm/_node-llama-cpp_linux-x64/package/bins/linux-x64";
    snprintf(path, sizeof path, "%.600s/libggml.%sv0.4.0.so", dir, sfx);
    if (!(gl = dlopen(path, RTLD_NOW | RTLD_GLOBAL))) { snprintf(g_why, sizeof g_why, "%.500s", dlerror()); return 0; }
    *(void**)&load_all_from_path = dlsym(gl, "ggml_backend_load_all_from_path");
    if (!load_all_from_path) { snprintf(g_why, sizeof g_why, "no ggml_backend_load_all_from_path"); return 0; }
    load_all_from_path(dir);
    snprintf(path, sizeof path, "%.600s/libllama.%sv0.4.0.so", dir, sfx);
    if (!(lib = dlopen(path, RTLD_NOW | RTLD_LOCAL))) { snprintf(g_why, sizeof g_why, "%.500s", dlerror()); return 0; }
#define SYM(field, name) do { *(void**)(&L.field) = dlsym(lib, name); if (!L.field) { snprintf(g_why, sizeof g_why, "no %s", name); return 0; } } while (0)
    SYM(backend_init, "llama_backend_init"); SYM(log_set, "llama_log_set");
    SYM(model_default_params, "llama_model_default_params"); SYM(context_default_params, "llama_context_default_params");
    SYM(model_load, "llama_model_load_from_file"); SYM(model_free, "llama_model_free");
    SYM(init_from_model, "llama_init_from_model"); SYM(free_, "llama_free"); SYM(batch_get_one, "llama_batch_get_one");
    SYM(decode, "llama_decode"); SYM(get_logits_ith, "llama_get_logits_ith");
#undef SYM
    L.log_set(quiet_log, NULL);
    L.backend_init();
    c = L.context_default_params();
    if (rd_i32(&c, CP_N_CTX) != 512 || rd_i32(&c, CP_N_BATCH) != 2048 || rd_i32(&c, CP_N_UBATCH) != 512 ||
        rd_i32(&c, CP_N_SEQ_MAX) != 1 || rd_i32(&c, CP_N_THREADS) != rd_i32(&c, CP_N_THREADS_BATCH) ||
        rd_i32(&c, CP_FLASH_ATTN) != -1 || rd_i32(&c, CP_TYPE_K) != 1 || rd_i32(&c, CP_TYPE_V) != 1) {
        snprintf(g_why, sizeof g_why, "llama_context_default_params does not match the assumed layout");
        return 0;
    }
    return 1;
}

static int argmax_f(const float* x, int n) { int i, b = 0; for (i = 1; i < n; i++) if (x[i] > x[b]) b = i; return b; }

/* prompt and decode tok/s; 0 on failure */
static int run_rlx(const char* path, int threads, const int32_t* prompt, double* pp, double* tg) {
    rlx_gguf* gf = NULL;
    rlx_llm* m = NULL;
    rlx_llm_desc d;
    char err[512];
    float* lg = (float*)malloc(sizeof(float) * VOCAB);
    double t0;
    int i, ok = 0;
    int32_t tok;
    memset(&d, 0, sizeof d);
    d.device = RLX_DEVICE_CPU; d.n_ctx = 1024;
    {   /* RLX_BENCH_DEVICE=cuda|vulkan runs rlx's side on a GPU, with the whole prompt as one prefill chunk
           (RLX_BENCH_NBATCH overrides the chunk: default 64 on the CPU, 512 on a GPU) */
        const char* dev = getenv("RLX_BENCH_DEVICE");
        const char* nb = getenv("RLX_BENCH_NBATCH");
        if (dev && !strcmp(dev, "cuda")) d.device = RLX_DEVICE_CUDA;
        if (dev && !strcmp(dev, "vulkan")) d.device = RLX_DEVICE_VULKAN;
        if (d.device != RLX_DEVICE_CPU) d.n_batch = PROMPT;
        if (nb && atoi(nb) > 0) d.n_batch = atoi(nb);
    } d.num_threads = threads; d.error = err; d.error_cap = sizeof err;
    if (!lg || rlx_gguf_open_file(path, NULL, &gf) != RLX_OK) { printf("rlx: open: %s\n", rlx_file_error()); goto done; }
    if (rlx_llm_load_gguf(gf, &d, &m) != RLX_OK) { printf("rlx: load: %s\n", err); goto done; }
    t0 = now_s();
    if (rlx_llm_eval(m, prompt, PROMPT, lg) != RLX_OK) { printf("rlx: %s\n", rlx_llm_error(m)); goto done; }
    *pp = PROMPT / (now_s() - t0);
    t0 = now_s();
    for (i = 0; i < GEN; i++) {
        tok = argmax_f(lg, VOCAB);
        if (rlx_llm_eval(m, &tok, 1, lg) != RLX_OK) { printf("rlx: %s\n", rlx_llm_error(m)); goto done; }
    }
    *tg = GEN / (now_s() - t0);
    ok = 1;
    if (getenv("RLX_BENCH_PROFILE") && threads == 1) {   /* per-step times of 8 profiled decode steps and one chunk */
        static char table[16384];
        rlx_program* dp = rlx_llm_program(m, 0);
        if (rlx_program_profile_enable(dp, 1) == RLX_OK) {
            for (i = 0; i < 8; i++) {
                tok = argmax_f(lg, VOCAB);
                if (rlx_llm_eval(m, &tok, 1, lg) != RLX_OK) break;
            }
            rlx_program_profile_table(dp, table, sizeof table, 16);
            printf("\nprofile, decode:\n%s\n", table);
        }
        dp = rlx_llm_program(m, 1);
        if (dp && rlx_program_profile_enable(dp, 1) == RLX_OK) {   /* one more prompt: its chunks through prefill */
            if (rlx_llm_reset(m) == RLX_OK && rlx_llm_eval(m, prompt, PROMPT, lg) == RLX_OK) {
                rlx_program_profile_table(dp, table, sizeof table, 16);
                printf("\nprofile, prefill:\n%s\n", table);
            }
        }
    }
done:
    rlx_llm_destroy(m);
    rlx_gguf_close(gf);
    free(lg);
    return ok;
}

static int run_llama(const char* path, int threads, const int32_t* prompt, double* pp, double* tg) {
    lparams mp = L.model_default_params(), cp = L.context_default_params();
    void *model = L.model_load(path, mp), *ctx;
    int32_t buf[PROMPT], tok;
    double t0;
    int i, ok = 0;
    if (!model) { printf("llama.cpp: the model does not load\n"); return 0; }
    wr_i32(&cp, CP_N_CTX, 1024); wr_i32(&cp, CP_N_BATCH, 512); wr_i32(&cp, CP_N_UBATCH, 512);
    wr_i32(&cp, CP_N_THREADS, threads); wr_i32(&cp, CP_N_THREADS_BATCH, threads);
    ctx = L.init_from_model(model, cp);
    if (!ctx) { L.model_free(model); return 0; }
    memcpy(buf, prompt, sizeof buf);
    t0 = now_s();
    if (L.decode(ctx, L.batch_get_one(buf, PROMPT)) != 0) goto done;
    *pp = PROMPT / (now_s() - t0);
    t0 = now_s();
    for (i = 0; i < GEN; i++) {
        tok = argmax_f(L.get_logits_ith(ctx, -1), VOCAB);
        if (L.decode(ctx, L.batch_get_one(&tok, 1)) != 0) goto done;
    }
    *tg = GEN / (now_s() - t0);
    ok = 1;
done:
    L.free_(ctx);
    L.model_free(model);
    return ok;
}

/* ---- peak resident memory: each side in a fresh process of this program ----
   `llm --rss rlx|llama FILE` loads FILE, runs the bench's prompt and decode steps on 2 threads and prints
   "rss <VmHWM in KiB>"; rss_report runs it once for rlx and once for llama.cpp (popen of /proc/self/exe: a new
   process image, so neither side's memory, nor llama.cpp's libraries, count for the other) and prints the peaks
   against the file size + the KV cache each keeps (rlx: f32, n_ctx + n_batch rows; llama.cpp: f16, n_ctx). */
static long rss_hwm_kib(void) {
    FILE* f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) if (strncmp(line, "VmHWM:", 6) == 0) { kib = atol(line + 6); break; }
    fclose(f);
    return kib;
}
static int rss_child(const char* who, const char* path) {
    int32_t prompt[PROMPT];
    double pp = 0, tg = 0;
    int i, ok;
    for (i = 0; i < PROMPT; i++) prompt[i] = (int32_t)(3 + rnd() % (VOCAB - 3));
    if (!strcmp(who, "llama")) ok = load_llama() && run_llama(path, 2, prompt, &pp, &tg);
    else ok = run_rlx(path, 2, prompt, &pp, &tg);
    if (!ok) { printf("failed%s%s\n", strcmp(who, "llama") ? "" : ": ", strcmp(who, "llama") ? "" : g_why); return 1; }
    printf("rss %ld\n", rss_hwm_kib());
    return 0;
}
static long rss_of(const char* self, const char* who, const char* path) {
    char cmd[1200], line[700];
    long kib = -1;
    FILE* p;
    snprintf(cmd, sizeof cmd, "'%.500s' --rss %s '%.500s'", self, who, path);
    if (!(p = popen(cmd, "r"))) return -1;
    while (fgets(line, sizeof line, p)) {
        if (strncmp(line, "rss ", 4) == 0) kib = atol(line + 4);
        else if (strncmp(line, "failed", 6) == 0) printf("  %s: %s", who, line);
    }
    pclose(p);
    return kib;
}
static void rss_report(const char* fmt, const char* path, int layers, int have) {
    char self[600];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    FILE* f = fopen(path, "rb");
    double mib = 1024.0 * 1024.0, file = 0, kv_rlx, kv_llama;
    long r, l;
    if (n <= 0 || !f) { printf("peak RSS: /proc/self/exe or %s unreadable\n", path); if (f) fclose(f); return; }
    self[n] = 0;
    if (fseek(f, 0, SEEK_END) == 0) file = (double)ftell(f);
    fclose(f);
    kv_rlx = 2.0 * layers * NKV * HDIM * (1024 + 64) * 4.0;    /* run_rlx: n_ctx 1024, n_batch 64, f32 */
    kv_llama = 2.0 * layers * NKV * HDIM * 1024 * 2.0;         /* run_llama: n_ctx 1024, f16 */
    r = rss_of(self, "rlx", path);
    l = have ? rss_of(self, "llama", path) : -1;
    printf("%-5s peak RSS (VmHWM, own process, %d prompt + %d decode tokens, 2 threads):\n", fmt, PROMPT, GEN);
    if (r > 0)
        printf("      rlx       %7.0f MiB = file %.0f MiB + KV %.0f MiB (f32) + %.0f MiB\n", r * 1024.0 / mib, file / mib,
               kv_rlx / mib, (r * 1024.0 - file - kv_rlx) / mib);
    if (l > 0)
        printf("      llama.cpp %7.0f MiB = file %.0f MiB + KV %.0f MiB (f16) + %.0f MiB\n", l * 1024.0 / mib, file / mib,
               kv_llama / mib, (l * 1024.0 - file - kv_llama) / mib);
    if (r > 0 && l > 0) printf("      ratio rlx / llama.cpp %.2f\n", (double)r / (double)l);
    fflush(stdout);
}

int main(int argc, char** argv) {
    const char* which = argc > 1 ? argv[1] : "all";
    int layers, have, f, t, i;
    if (argc == 4 && !strcmp(argv[1], "--rss")) return rss_child(argv[2], argv[3]);
    layers = argc > 2 ? atoi(argv[2]) : 22;
    have = load_llama();
    static const struct { const char* name; int type; } fmts[] = {{"q4_0", 2}, {"q8_0", 8}, {"q4_K", 12}};
    int32_t prompt[PROMPT];
    if (layers < 1 || layers > 64) layers = 22;
    for (i = 0; i < PROMPT; i++) prompt[i] = (int32_t)(3 + rnd() % (VOCAB - 3));
    printf("TinyLlama-shaped random model (d %d, %d layers, %d/%d heads, ffn %d, vocab %d): prompt %d tokens, then %d decode steps\n",
           DM, layers, NHEAD, NKV, FFN, VOCAB, PROMPT, GEN);
    printf("peer: llama.cpp libllama (%s%s)\n\n", have ? "npm @node-llama-cpp/linux-x64@3.21.1" : g_why,
           have && getenv("RLX_GGML_VARIANT") ? ", variant from RLX_GGML_VARIANT / RLX_GGML_DIR" : "");
    printf("%-5s %3s %12s %12s %8s %12s %12s %8s\n", "fmt", "thr", "rlx pp t/s", "llama pp t/s", "pp ratio", "rlx tg t/s",
           "llama tg t/s", "tg ratio");
    for (f = 0; f < 3; f++) {
        char path[128];
        if (strcmp(which, "all") != 0 && strcmp(which, fmts[f].name) != 0) continue;
        snprintf(path, sizeof path, "/tmp/rlx_bench_llm_%s_%dL.gguf", fmts[f].name, layers);
        if (access(path, R_OK) != 0 && !write_model(path, fmts[f].type, layers)) return 1;
        for (t = 1; t <= 2; t++) {
            double rp = 0, rt = 0, lp = 0, lt = 0;
            int okr = run_rlx(path, t, prompt, &rp, &rt), okl = have && run_llama(path, t, prompt, &lp, &lt);
            if (okr && okl)
                printf("%-5s %3d %12.1f %12.1f %8.2f %12.2f %12.2f %8.2f\n", fmts[f].name, t, rp, lp, rp / lp, rt, lt, rt / lt);
            else if (okr)
                printf("%-5s %3d %12.1f %12s %8s %12.2f %12s %8s\n", fmts[f].name, t, rp, "-", "-", rt, "-", "-");
            fflush(stdout);
        }
        if (!getenv("RLX_BENCH_NO_RSS")) rss_report(fmts[f].name, path, layers, have);
    }
    return 0;
}
