/* llama_ffi.h - llama.cpp's libllama opened with dlopen: the oracle of tests/test_llm.c and tests/test_llm_hf.c.

   The npm package @node-llama-cpp/linux-x64@3.21.1 (tests/fetch_npm.sh; RLX_GGML_DIR overrides the directory of
   its .so files) ships llama.cpp's prebuilt libraries. Only the C API calls the tests use are bound, with the
   parameter structs passed as opaque byte blocks whose few fields are written at offsets checked against the
   library's documented defaults (load_llama refuses another build). Include after <dlfcn.h> and <unistd.h>
   (not on Windows, where load_llama reports the oracle as unavailable). On failure g_skip says why. */
#ifndef RLX_TESTS_LLAMA_FFI_H
#define RLX_TESTS_LLAMA_FFI_H

typedef struct llama_batch_ {
    int32_t n_tokens;
    int32_t* token;
    float* embd;
    int32_t* pos;
    int32_t* n_seq_id;
    int32_t** seq_id;
    int8_t* logits;
} llama_batch_;
typedef struct lparams { uint64_t w[64]; } lparams;   /* larger than either parameter struct */

/* Byte offsets in llama_context_params of the llama.cpp build above, checked against the defaults. */
enum { CP_N_CTX = 0, CP_N_BATCH = 4, CP_N_UBATCH = 8, CP_N_SEQ_MAX = 12, CP_N_THREADS = 28, CP_N_THREADS_BATCH = 32,
       CP_FLASH_ATTN = 52, CP_YARN_EXT = 64, CP_TYPE_K = 104, CP_TYPE_V = 108, CP_BOOLS = 128 };

typedef struct llama_api {
    void* lib;
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
    const void* (*model_get_vocab)(const void*);
    int32_t (*vocab_n_tokens)(const void*);
} llama_api;

static char g_skip[1024];

static void quiet_log(int level, const char* text, void* user) { (void)level; (void)text; (void)user; }

static int rd_i32(const lparams* p, int off) { int32_t v; memcpy(&v, (const char*)p + off, 4); return v; }
static float rd_f32(const lparams* p, int off) { float v; memcpy(&v, (const char*)p + off, 4); return v; }
static void wr_i32(lparams* p, int off, int32_t v) { memcpy((char*)p + off, &v, 4); }

static int load_llama(llama_api* L) {
#if defined(_WIN32)
    memset(L, 0, sizeof *L);
    (void)quiet_log; (void)rd_i32; (void)rd_f32;   /* used only with llama.cpp's Linux libraries */
    snprintf(g_skip, sizeof g_skip, "the libllama oracle is only wired up for dlopen platforms");
    return 0;
#else
    char path[700];
    const char* dir = getenv("RLX_GGML_DIR");
    void* gl;
    void (*load_all_from_path)(const char*);
    memset(L, 0, sizeof *L);
    if (!dir || !dir[0]) {
        if (access("build/npm/_node-llama-cpp_linux-x64/package/bins/linux-x64/libllama.v0.4.0.so", R_OK) != 0 &&
            system("sh tests/fetch_npm.sh @node-llama-cpp/linux-x64@3.21.1 >/dev/null 2>&1") != 0) {
            snprintf(g_skip, sizeof g_skip, "the npm package @node-llama-cpp/linux-x64@3.21.1 could not be fetched (tests/fetch_npm.sh: no npm or no registry)");
            return 0;
        }
        dir = "build/npm/_node-llama-cpp_linux-x64/package/bins/linux-x64";
    }
    snprintf(path, sizeof path, "%s/libggml.v0.4.0.so", dir);
    gl = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!gl) { snprintf(g_skip, sizeof g_skip, "dlopen %s failed: %s", path, dlerror()); return 0; }
    *(void**)&load_all_from_path = dlsym(gl, "ggml_backend_load_all_from_path");
    if (!load_all_from_path) { snprintf(g_skip, sizeof g_skip, "%s lacks ggml_backend_load_all_from_path", path); return 0; }
    load_all_from_path(dir);   /* the best libggml-cpu-*.so variant for this CPU */
    snprintf(path, sizeof path, "%s/libllama.v0.4.0.so", dir);
    L->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!L->lib) { snprintf(g_skip, sizeof g_skip, "dlopen %s failed: %s", path, dlerror()); return 0; }
#define SYM(field, name) do { *(void**)(&L->field) = dlsym(L->lib, name); if (!L->field) { snprintf(g_skip, sizeof g_skip, "%s lacks %s", path, name); return 0; } } while (0)
    SYM(backend_init, "llama_backend_init"); SYM(log_set, "llama_log_set");
    SYM(model_default_params, "llama_model_default_params"); SYM(context_default_params, "llama_context_default_params");
    SYM(model_load, "llama_model_load_from_file"); SYM(model_free, "llama_model_free");
    SYM(init_from_model, "llama_init_from_model"); SYM(free_, "llama_free"); SYM(batch_get_one, "llama_batch_get_one");
    SYM(decode, "llama_decode"); SYM(get_logits_ith, "llama_get_logits_ith");
    SYM(model_get_vocab, "llama_model_get_vocab"); SYM(vocab_n_tokens, "llama_vocab_n_tokens");
#undef SYM
    L->log_set(quiet_log, NULL);
    L->backend_init();
    {   /* ABI check: the documented defaults at the offsets used */
        lparams c = L->context_default_params();
        const unsigned char* bools = (const unsigned char*)&c + CP_BOOLS;
        if (rd_i32(&c, CP_N_CTX) != 512 || rd_i32(&c, CP_N_BATCH) != 2048 || rd_i32(&c, CP_N_UBATCH) != 512 ||
            rd_i32(&c, CP_N_SEQ_MAX) != 1 || rd_i32(&c, CP_N_THREADS) < 1 ||
            rd_i32(&c, CP_N_THREADS) != rd_i32(&c, CP_N_THREADS_BATCH) || rd_i32(&c, CP_FLASH_ATTN) != -1 ||
            rd_f32(&c, CP_YARN_EXT) != -1.0f || rd_i32(&c, CP_TYPE_K) != 1 /* f16 */ || rd_i32(&c, CP_TYPE_V) != 1 ||
            bools[0] != 0 || bools[1] != 1) {
            snprintf(g_skip, sizeof g_skip, "llama_context_default_params does not match the layout this test assumes (another llama.cpp build?)");
            return 0;
        }
    }
    return 1;
#endif
}

#endif
