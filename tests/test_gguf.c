/* GGUF reader and writer (>>gguf, >>file): against ggml itself, and hostile files.
   The oracle is llama.cpp's libggml-base.so from the npm package @node-llama-cpp/linux-x64@3.21.1 (fetched with
   tests/fetch_npm.sh; set RLX_GGML_DIR to its bins/linux-x64 folder to use another copy). It is opened with dlopen
   and its gguf API (declared below, no ggml headers) (a) writes a file with every metadata type and tensors of
   several ggml types that rlx must read back with identical metadata and bytes, and (b) reads the files rlx's
   writer makes. Without the package those cases are skipped, with the reason. Nested arrays (which ggml refuses)
   and every hostile case are built byte by byte here. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#include <stdbool.h>
#include <stdlib.h>
#if !defined(_WIN32)
#  include <dlfcn.h>
#  include <unistd.h>
#endif

/* ---- a byte builder for hand-made files ---- */
typedef struct bb { unsigned char* p; size_t n, cap; } bb;
static void bb_put(bb* b, const void* d, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = (unsigned char*)realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void bb_u32(bb* b, uint32_t v) { unsigned char t[4]; int i; for (i = 0; i < 4; i++) t[i] = (unsigned char)(v >> (8 * i)); bb_put(b, t, 4); }
static void bb_u64(bb* b, uint64_t v) { unsigned char t[8]; int i; for (i = 0; i < 8; i++) t[i] = (unsigned char)(v >> (8 * i)); bb_put(b, t, 8); }
static void bb_str(bb* b, const char* s) { bb_u64(b, (uint64_t)strlen(s)); bb_put(b, s, strlen(s)); }
static void bb_pad(bb* b, size_t a) { static const unsigned char z[64] = {0}; while (b->n % a) bb_put(b, z, 1); }

/* ---- ggml's gguf API, declared here (ggml v0.4.0 / llama.cpp of node-llama-cpp 3.21.1) ---- */
struct ggml_init_params_ { size_t mem_size; void* mem_buffer; bool no_alloc; };
struct gguf_init_params_ { bool no_alloc; void** ctx; };
struct ggml_tensor_prefix_ { int type; void* buffer; int64_t ne[4]; size_t nb[4]; };   /* leading members */
typedef struct ggml_api {
    void* lib;
    const char* (*type_name)(int);
    int64_t (*blck_size)(int);
    size_t (*type_size)(int);
    void* (*init)(struct ggml_init_params_);
    void (*free_)(void*);
    void* (*new_tensor)(void*, int, int, const int64_t*);
    void* (*set_name)(void*, const char*);
    void* (*get_data)(void*);
    void* (*get_tensor)(void*, const char*);
    size_t (*nbytes)(const void*);
    void* (*init_empty)(void);
    void* (*init_from_file)(const char*, struct gguf_init_params_);
    void (*gfree)(void*);
    void (*set_u8)(void*, const char*, uint8_t);
    void (*set_i8)(void*, const char*, int8_t);
    void (*set_u16)(void*, const char*, uint16_t);
    void (*set_i16)(void*, const char*, int16_t);
    void (*set_u32)(void*, const char*, uint32_t);
    void (*set_i32)(void*, const char*, int32_t);
    void (*set_f32)(void*, const char*, float);
    void (*set_u64)(void*, const char*, uint64_t);
    void (*set_i64)(void*, const char*, int64_t);
    void (*set_f64)(void*, const char*, double);
    void (*set_bool)(void*, const char*, bool);
    void (*set_str)(void*, const char*, const char*);
    void (*set_arr_data)(void*, const char*, int, const void*, size_t);
    void (*set_arr_str)(void*, const char*, const char**, size_t);
    void (*add_tensor)(void*, const void*);
    bool (*write_to_file)(const void*, const char*, bool);
    int64_t (*get_n_kv)(const void*);
    int64_t (*find_key)(const void*, const char*);
    const char* (*get_key)(const void*, int64_t);
    int (*get_kv_type)(const void*, int64_t);
    int (*get_arr_type)(const void*, int64_t);
    size_t (*get_arr_n)(const void*, int64_t);
    const void* (*get_arr_data)(const void*, int64_t);
    const char* (*get_arr_str)(const void*, int64_t, size_t);
    const void* (*get_val_data)(const void*, int64_t);
    const char* (*get_val_str)(const void*, int64_t);
    int64_t (*get_n_tensors)(const void*);
    int64_t (*find_tensor)(const void*, const char*);
    int (*get_tensor_type)(const void*, int64_t);
    size_t (*get_tensor_size)(const void*, int64_t);
    size_t (*get_alignment)(const void*);
    uint32_t (*get_version)(const void*);
} ggml_api;

static char g_skip_reason[1024];

static int load_ggml(ggml_api* g) {
#if defined(_WIN32)
    memset(g, 0, sizeof *g);
    snprintf(g_skip_reason, sizeof g_skip_reason, "the ggml oracle is only wired up for dlopen platforms");
    return 0;
#else
    char path[600];
    const char* dir = getenv("RLX_GGML_DIR");
    memset(g, 0, sizeof *g);
    if (!dir || !dir[0]) {
        if (access("build/npm/_node-llama-cpp_linux-x64/package/bins/linux-x64/libggml-base.so", R_OK) != 0 &&
            system("sh tests/fetch_npm.sh @node-llama-cpp/linux-x64@3.21.1 >/dev/null 2>&1") != 0) {
            snprintf(g_skip_reason, sizeof g_skip_reason, "the npm package @node-llama-cpp/linux-x64@3.21.1 could not be fetched (tests/fetch_npm.sh: no npm or no registry)");
            return 0;
        }
        dir = "build/npm/_node-llama-cpp_linux-x64/package/bins/linux-x64";
    }
    snprintf(path, sizeof path, "%s/libggml-base.so", dir);
    g->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!g->lib) {
        snprintf(g_skip_reason, sizeof g_skip_reason, "dlopen %s failed: %s", path, dlerror());
        return 0;
    }
#define SYM(field, name) do { *(void**)(&g->field) = dlsym(g->lib, name); if (!g->field) { snprintf(g_skip_reason, sizeof g_skip_reason, "%s lacks %s", path, name); return 0; } } while (0)
    SYM(type_name, "ggml_type_name"); SYM(blck_size, "ggml_blck_size"); SYM(type_size, "ggml_type_size");
    SYM(init, "ggml_init"); SYM(free_, "ggml_free"); SYM(new_tensor, "ggml_new_tensor"); SYM(set_name, "ggml_set_name");
    SYM(get_data, "ggml_get_data"); SYM(get_tensor, "ggml_get_tensor"); SYM(nbytes, "ggml_nbytes");
    SYM(init_empty, "gguf_init_empty"); SYM(init_from_file, "gguf_init_from_file"); SYM(gfree, "gguf_free");
    SYM(set_u8, "gguf_set_val_u8"); SYM(set_i8, "gguf_set_val_i8"); SYM(set_u16, "gguf_set_val_u16");
    SYM(set_i16, "gguf_set_val_i16"); SYM(set_u32, "gguf_set_val_u32"); SYM(set_i32, "gguf_set_val_i32");
    SYM(set_f32, "gguf_set_val_f32"); SYM(set_u64, "gguf_set_val_u64"); SYM(set_i64, "gguf_set_val_i64");
    SYM(set_f64, "gguf_set_val_f64"); SYM(set_bool, "gguf_set_val_bool"); SYM(set_str, "gguf_set_val_str");
    SYM(set_arr_data, "gguf_set_arr_data"); SYM(set_arr_str, "gguf_set_arr_str"); SYM(add_tensor, "gguf_add_tensor");
    SYM(write_to_file, "gguf_write_to_file"); SYM(get_n_kv, "gguf_get_n_kv"); SYM(find_key, "gguf_find_key");
    SYM(get_key, "gguf_get_key"); SYM(get_kv_type, "gguf_get_kv_type"); SYM(get_arr_type, "gguf_get_arr_type");
    SYM(get_arr_n, "gguf_get_arr_n"); SYM(get_arr_data, "gguf_get_arr_data"); SYM(get_arr_str, "gguf_get_arr_str");
    SYM(get_val_data, "gguf_get_val_data"); SYM(get_val_str, "gguf_get_val_str"); SYM(get_n_tensors, "gguf_get_n_tensors");
    SYM(find_tensor, "gguf_find_tensor"); SYM(get_tensor_type, "gguf_get_tensor_type");
    SYM(get_tensor_size, "gguf_get_tensor_size"); SYM(get_alignment, "gguf_get_alignment"); SYM(get_version, "gguf_get_version");
#undef SYM
    return 1;
#endif
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17; return rng_state; }
static void fill_random(void* p, size_t n) { size_t i; for (i = 0; i < n; i++) ((unsigned char*)p)[i] = (unsigned char)(rnd() >> 24); }

static const char* tmp_path(const char* name) {
    static char buf[4][256];
    static int k;
    k = (k + 1) & 3;
    snprintf(buf[k], sizeof buf[k], "build/test_gguf_%s", name);
    return buf[k];
}

/* ---- (0) ggml's type table equals rlx's ---- */
static void test_type_table(const ggml_api* g) {
    int id, bad = 0;
    for (id = 0; id < 40; id++) {
        int64_t b = g->blck_size(id);
        const char* rn = rlx_ggml_type_name((uint32_t)id);
        if (b == 0) { if (rn) bad++; continue; }
        if (!rn || strcmp(rn, g->type_name(id)) != 0 || (int64_t)rlx_ggml_block_size((uint32_t)id) != b ||
            rlx_ggml_type_size((uint32_t)id) != g->type_size(id)) {
            printf("  type %d: ggml %s/%lld/%lu, rlx %s/%lu/%lu\n", id, g->type_name(id), (long long)b, (unsigned long)g->type_size(id),
                   rn ? rn : "(none)", (unsigned long)rlx_ggml_block_size((uint32_t)id), (unsigned long)rlx_ggml_type_size((uint32_t)id));
            bad++;
        }
    }
    TH_CHECK(bad == 0, "ggml type table: %d of 40 ids differ from ggml's", bad);
}

/* The tensors both directions use: ggml type, dims in rlx order (first dim > 1, so ggml keeps the rank) */
typedef struct tcase { const char* name; int type; int rank; int64_t shape[4]; } tcase;
static const tcase tcases[] = {
    {"tok_embd.weight", 0, 2, {7, 5}},          /* f32  */
    {"blk.0.attn_q.weight", 1, 2, {3, 9}},     /* f16  */
    {"blk.0.ffn.q4_0", 2, 2, {2, 64}},         /* q4_0 */
    {"blk.0.ffn.q8_0", 8, 3, {2, 3, 32}},      /* q8_0 */
    {"blk.0.q6_K", 14, 2, {2, 256}},           /* q6_K */
    {"pos.i32", 26, 1, {11}},                  /* i32  */
    {"norm.bf16", 30, 2, {4, 6}},              /* bf16 */
    {"scale.f64", 28, 1, {3}},                 /* f64  */
    {"mx.mxfp4", 39, 1, {64}},                 /* mxfp4: a type rlx cannot compute with */
};
#define NT ((int)(sizeof tcases / sizeof tcases[0]))

static size_t tcase_bytes(const tcase* t) {
    size_t n = 1;
    int d;
    for (d = 0; d < t->rank; d++) n *= (size_t)t->shape[d];
    return n / rlx_ggml_block_size((uint32_t)t->type) * rlx_ggml_type_size((uint32_t)t->type);
}

static const uint8_t  V_U8 = 200;   static const int8_t  V_I8 = -100;
static const uint16_t V_U16 = 60000; static const int16_t V_I16 = -30000;
static const uint32_t V_U32 = 4000000000u; static const int32_t V_I32 = -2000000000;
static const float V_F32 = 3.14159274f;
static const uint64_t V_U64 = 18000000000000000000ull; static const int64_t V_I64 = -9000000000000000000ll;
static const double V_F64 = -2.718281828459045;
static const float ARR_F32[5] = {1.5f, -2.25f, 1e-30f, 3e30f, -0.0f};
static const int32_t ARR_I32[4] = {-1, 2, 2147483647, -2147483647 - 1};
static const uint8_t ARR_BOOL[3] = {1, 0, 1};
static const uint64_t ARR_U64[2] = {0, 18446744073709551615ull};
static const char* const ARR_STR[4] = {"hello", "", "w\xc3\xb6rld \xe2\x82\xac", "tab\there"};

/* Checks what rlx read against the values above; `via` names the writer. */
static void check_meta(const rlx_gguf* gf, const char* via) {
    rlx_gguf_value v, e;
    int k;
    uint64_t i;
#define KV(name) (k = rlx_gguf_find(gf, name), TH_CHECK(k >= 0, "%s: key %s found", via, name), k >= 0 && rlx_gguf_kv(gf, k, NULL, &v) == RLX_OK)
    if (KV("t.u8")) TH_CHECK(v.type == RLX_GGUF_U8 && v.u64 == V_U8, "%s: u8 %llu", via, (unsigned long long)v.u64);
    if (KV("t.i8")) TH_CHECK(v.type == RLX_GGUF_I8 && v.i64 == V_I8, "%s: i8 %lld", via, (long long)v.i64);
    if (KV("t.u16")) TH_CHECK(v.type == RLX_GGUF_U16 && v.u64 == V_U16, "%s: u16", via);
    if (KV("t.i16")) TH_CHECK(v.type == RLX_GGUF_I16 && v.i64 == V_I16, "%s: i16", via);
    if (KV("t.u32")) TH_CHECK(v.type == RLX_GGUF_U32 && v.u64 == V_U32, "%s: u32", via);
    if (KV("t.i32")) TH_CHECK(v.type == RLX_GGUF_I32 && v.i64 == V_I32, "%s: i32", via);
    if (KV("t.f32")) TH_CHECK(v.type == RLX_GGUF_F32 && v.f64 == (double)V_F32, "%s: f32 %.9g", via, v.f64);
    if (KV("t.u64")) TH_CHECK(v.type == RLX_GGUF_U64 && v.u64 == V_U64, "%s: u64", via);
    if (KV("t.i64")) TH_CHECK(v.type == RLX_GGUF_I64 && v.i64 == V_I64, "%s: i64", via);
    if (KV("t.f64")) TH_CHECK(v.type == RLX_GGUF_F64 && v.f64 == V_F64, "%s: f64 %.17g", via, v.f64);
    if (KV("t.bool")) TH_CHECK(v.type == RLX_GGUF_BOOL && v.u64 == 1, "%s: bool", via);
    if (KV("general.name")) TH_CHECK(v.type == RLX_GGUF_STRING && v.count == 13 && strcmp(v.str, "tiny \xce\xbb model") == 0, "%s: string '%s'", via, v.str);
    if (KV("t.arr_f32")) {
        int ok = v.type == RLX_GGUF_ARRAY && v.array_type == RLX_GGUF_F32 && v.count == 5 && memcmp(v.data, ARR_F32, sizeof ARR_F32) == 0;
        for (i = 0; ok && i < 5; i++) ok = rlx_gguf_array_get(gf, &v, i, &e) == RLX_OK && e.type == RLX_GGUF_F32 && e.f64 == (double)ARR_F32[i];
        TH_CHECK(ok, "%s: f32 array", via);
    }
    if (KV("t.arr_i32")) {
        int ok = v.type == RLX_GGUF_ARRAY && v.array_type == RLX_GGUF_I32 && v.count == 4;
        for (i = 0; ok && i < 4; i++) ok = rlx_gguf_array_get(gf, &v, i, &e) == RLX_OK && e.i64 == ARR_I32[i];
        TH_CHECK(ok, "%s: i32 array", via);
    }
    if (KV("t.arr_bool")) TH_CHECK(v.array_type == RLX_GGUF_BOOL && v.count == 3 && memcmp(v.data, ARR_BOOL, 3) == 0, "%s: bool array", via);
    if (KV("t.arr_u64")) {
        int ok = v.array_type == RLX_GGUF_U64 && v.count == 2 && rlx_gguf_array_get(gf, &v, 1, &e) == RLX_OK && e.u64 == ARR_U64[1];
        TH_CHECK(ok, "%s: u64 array", via);
    }
    if (KV("tokenizer.ggml.tokens")) {
        int ok = v.type == RLX_GGUF_ARRAY && v.array_type == RLX_GGUF_STRING && v.count == 4;
        for (i = 0; ok && i < 4; i++) ok = rlx_gguf_array_get(gf, &v, i, &e) == RLX_OK && e.type == RLX_GGUF_STRING && strcmp(e.str, ARR_STR[i]) == 0 && e.count == strlen(ARR_STR[i]);
        TH_CHECK(ok, "%s: string array", via);
        TH_CHECK(rlx_gguf_array_get(gf, &v, 4, &e) == RLX_ERROR_INVALID_ARGUMENT, "%s: array index past the end", via);
    }
#undef KV
    TH_CHECK(rlx_gguf_find(gf, "no.such.key") == -1, "%s: unknown key", via);
}

static void check_tensors(const rlx_gguf* gf, unsigned char* const* data, const char* via) {
    int i, d;
    TH_CHECK(rlx_gguf_tensor_count(gf) == NT, "%s: %d tensors", via, rlx_gguf_tensor_count(gf));
    for (i = 0; i < NT; i++) {
        const tcase* tc = &tcases[i];
        rlx_gguf_tensor_info ti;
        int k = rlx_gguf_find_tensor(gf, tc->name), ok;
        if (k < 0 || rlx_gguf_tensor(gf, k, &ti) != RLX_OK) { TH_CHECK(0, "%s: tensor %s not found", via, tc->name); continue; }
        ok = (int)ti.ggml_type == tc->type && ti.rank == tc->rank && ti.bytes == tcase_bytes(tc) &&
             strcmp(ti.type_name, rlx_ggml_type_name((uint32_t)tc->type)) == 0 &&
             ti.file_offset == rlx_gguf_data_offset(gf) + ti.offset && ti.offset % rlx_gguf_alignment(gf) == 0;
        for (d = 0; ok && d < tc->rank; d++) ok = ti.shape[d] == tc->shape[d] && ti.ne[tc->rank - 1 - d] == tc->shape[d];
        TH_CHECK(ok, "%s: tensor %s: type %u rank %d bytes %lu", via, tc->name, ti.ggml_type, ti.rank, (unsigned long)ti.bytes);
        TH_CHECK(memcmp(ti.data, data[i], ti.bytes) == 0, "%s: tensor %s bytes identical", via, tc->name);
        {   /* ggml's q4_0 / q8_0 / q6_K are rlx block dtypes of the same byte size; mxfp4 (39) has none */
            size_t nb = 0;
            int want = tc->type == 2 ? RLX_Q4_0 : tc->type == 8 ? RLX_Q8_0 : tc->type == 14 ? RLX_Q6_K
                     : tc->type == 39 ? RLX_DTYPE_INVALID : (int)ti.dtype;
            TH_CHECK(ti.dtype == rlx_ggml_type_dtype((uint32_t)tc->type) && (int)ti.dtype == want &&
                         (ti.dtype == RLX_DTYPE_INVALID ||
                          (rlx_tensor_bytes(ti.dtype, ti.rank, ti.shape, &nb) == RLX_OK && nb == ti.bytes)),
                     "%s: tensor %s dtype %s", via, tc->name, rlx_dtype_name(ti.dtype));
        }
    }
}

/* (a) ggml writes, rlx reads */
static void test_ggml_writes(const ggml_api* g, unsigned char* const* data) {
    struct ggml_init_params_ ip;
    void *ctx, *gg;
    int i;
    rlx_gguf* gf = NULL;
    const char* path = tmp_path("from_ggml.gguf");
    rlx_file_desc fd;
    ip.mem_size = 8u << 20; ip.mem_buffer = NULL; ip.no_alloc = false;
    ctx = g->init(ip);
    gg = g->init_empty();
    g->set_u8(gg, "t.u8", V_U8); g->set_i8(gg, "t.i8", V_I8); g->set_u16(gg, "t.u16", V_U16); g->set_i16(gg, "t.i16", V_I16);
    g->set_u32(gg, "t.u32", V_U32); g->set_i32(gg, "t.i32", V_I32); g->set_f32(gg, "t.f32", V_F32);
    g->set_u64(gg, "t.u64", V_U64); g->set_i64(gg, "t.i64", V_I64); g->set_f64(gg, "t.f64", V_F64);
    g->set_bool(gg, "t.bool", true); g->set_str(gg, "general.name", "tiny \xce\xbb model");
    g->set_arr_data(gg, "t.arr_f32", 6, ARR_F32, 5); g->set_arr_data(gg, "t.arr_i32", 5, ARR_I32, 4);
    g->set_arr_data(gg, "t.arr_bool", 7, ARR_BOOL, 3); g->set_arr_data(gg, "t.arr_u64", 10, ARR_U64, 2);
    g->set_arr_str(gg, "tokenizer.ggml.tokens", (const char**)ARR_STR, 4);
    for (i = 0; i < NT; i++) {
        int64_t ne[4];
        int d;
        void* t;
        for (d = 0; d < tcases[i].rank; d++) ne[d] = tcases[i].shape[tcases[i].rank - 1 - d];
        t = g->new_tensor(ctx, tcases[i].type, tcases[i].rank, ne);
        g->set_name(t, tcases[i].name);
        TH_CHECK(g->nbytes(t) == tcase_bytes(&tcases[i]), "ggml and rlx agree on the bytes of %s", tcases[i].name);
        memcpy(g->get_data(t), data[i], tcase_bytes(&tcases[i]));
        g->add_tensor(gg, t);
    }
    TH_CHECK(g->write_to_file(gg, path, false), "ggml wrote %s", path);
    g->gfree(gg);
    g->free_(ctx);
    /* mapped */
    TH_CHECK(rlx_gguf_open_file(path, NULL, &gf) == RLX_OK, "rlx opens ggml's file: %s", rlx_file_error());
    if (gf) {
        TH_CHECK(rlx_gguf_version(gf) == 3 && rlx_gguf_alignment(gf) == 32, "version %u alignment %u", rlx_gguf_version(gf), rlx_gguf_alignment(gf));
        TH_CHECK(rlx_gguf_kv_count(gf) == 17, "ggml's 17 keys: %d", rlx_gguf_kv_count(gf));
        check_meta(gf, "ggml->rlx");
        check_tensors(gf, data, "ggml->rlx");
        rlx_gguf_close(gf);
    }
    /* read into memory instead of mapped */
    memset(&fd, 0, sizeof fd);
    fd.no_map = 1;
    gf = NULL;
    TH_CHECK(rlx_gguf_open_file(path, &fd, &gf) == RLX_OK, "rlx reads ggml's file without mapping: %s", rlx_file_error());
    if (gf) { check_tensors(gf, data, "ggml->rlx (read)"); rlx_gguf_close(gf); }
}

/* rlx's writer with the same content; alignment 64 */
static rlx_gguf_writer* rlx_write_all(unsigned char* const* data, uint32_t alignment) {
    rlx_gguf_writer* w = NULL;
    rlx_gguf_writer_desc wd;
    uint8_t b = 1;
    const char* name = "tiny \xce\xbb model";
    int i, bad = 0;
    memset(&wd, 0, sizeof wd);
    wd.alignment = alignment;
    if (rlx_gguf_writer_create(&wd, &w) != RLX_OK) return NULL;
    bad |= rlx_gguf_writer_kv(w, "t.u8", RLX_GGUF_U8, &V_U8) != RLX_OK;
    bad |= rlx_gguf_writer_kv(w, "t.i8", RLX_GGUF_I8, &V_I8) != RLX_OK;
    bad |= rlx_gguf_writer_kv(w, "t.u16", RLX_GGUF_U16, &V_U16) != RLX_OK;
    bad |= rlx_gguf_writer_kv(w, "t.i16", RLX_GGUF_I16, &V_I16) != RLX_OK;
    bad |= rlx_gguf_writer_kv(w, "t.u32", RLX_GGUF_U32, &V_U32) != RLX_OK;
    bad |= rlx_gguf_writer_kv(w, "t.i32", RLX_GGUF_I32, &V_I32) != RLX_OK;
    bad |= rlx_gguf_writer_kv(w, "t.f32", RLX_GGUF_F32, &V_F32) != RLX_OK;
    bad |= rlx_gguf_writer_kv(w, "t.u64", RLX_GGUF_U64, &V_U64) != RLX_OK;
    bad |= rlx_gguf_writer_kv(w, "t.i64", RLX_GGUF_I64, &V_I64) != RLX_OK;
    bad |= rlx_gguf_writer_kv(w, "t.f64", RLX_GGUF_F64, &V_F64) != RLX_OK;
    bad |= rlx_gguf_writer_kv(w, "t.bool", RLX_GGUF_BOOL, &b) != RLX_OK;
    bad |= rlx_gguf_writer_kv(w, "general.name", RLX_GGUF_STRING, &name) != RLX_OK;
    bad |= rlx_gguf_writer_array(w, "t.arr_f32", RLX_GGUF_F32, ARR_F32, 5) != RLX_OK;
    bad |= rlx_gguf_writer_array(w, "t.arr_i32", RLX_GGUF_I32, ARR_I32, 4) != RLX_OK;
    bad |= rlx_gguf_writer_array(w, "t.arr_bool", RLX_GGUF_BOOL, ARR_BOOL, 3) != RLX_OK;
    bad |= rlx_gguf_writer_array(w, "t.arr_u64", RLX_GGUF_U64, ARR_U64, 2) != RLX_OK;
    bad |= rlx_gguf_writer_array(w, "tokenizer.ggml.tokens", RLX_GGUF_STRING, ARR_STR, 4) != RLX_OK;
    for (i = 0; i < NT; i++)
        bad |= rlx_gguf_writer_tensor(w, tcases[i].name, (uint32_t)tcases[i].type, tcases[i].rank, tcases[i].shape, data[i], tcase_bytes(&tcases[i])) != RLX_OK;
    TH_CHECK(!bad, "rlx writer accepts every value: %s", rlx_gguf_writer_error(w));
    return w;
}

/* (b) rlx writes, ggml reads */
static void test_rlx_writes(const ggml_api* g, unsigned char* const* data) {
    rlx_gguf_writer* w = rlx_write_all(data, 64);
    const char* path = tmp_path("from_rlx.gguf");
    void* ctx = NULL;
    void* gg;
    struct gguf_init_params_ gp;
    int64_t k;
    int i;
    if (!w) { TH_CHECK(0, "writer create"); return; }
    TH_CHECK(rlx_gguf_writer_write_file(w, path) == RLX_OK, "rlx writes %s: %s", path, rlx_gguf_writer_error(w));
    rlx_gguf_writer_destroy(w);
    gp.no_alloc = false;
    gp.ctx = &ctx;
    gg = g->init_from_file(path, gp);
    TH_CHECK(gg != NULL, "ggml reads rlx's file");
    if (!gg) return;
    TH_CHECK(g->get_version(gg) == 3 && g->get_alignment(gg) == 64, "ggml sees version %u alignment %lu", g->get_version(gg), (unsigned long)g->get_alignment(gg));
    TH_CHECK(g->get_n_kv(gg) == 18, "ggml sees 18 keys (17 + general.alignment): %lld", (long long)g->get_n_kv(gg));
#define GK(name, gtype) (k = g->find_key(gg, name), k >= 0 && g->get_kv_type(gg, k) == gtype)
    TH_CHECK(GK("t.u8", 0) && *(const uint8_t*)g->get_val_data(gg, k) == V_U8, "ggml: u8");
    TH_CHECK(GK("t.i8", 1) && *(const int8_t*)g->get_val_data(gg, k) == V_I8, "ggml: i8");
    TH_CHECK(GK("t.u16", 2) && *(const uint16_t*)g->get_val_data(gg, k) == V_U16, "ggml: u16");
    TH_CHECK(GK("t.i16", 3) && *(const int16_t*)g->get_val_data(gg, k) == V_I16, "ggml: i16");
    TH_CHECK(GK("t.u32", 4) && *(const uint32_t*)g->get_val_data(gg, k) == V_U32, "ggml: u32");
    TH_CHECK(GK("t.i32", 5) && *(const int32_t*)g->get_val_data(gg, k) == V_I32, "ggml: i32");
    TH_CHECK(GK("t.f32", 6) && memcmp(g->get_val_data(gg, k), &V_F32, 4) == 0, "ggml: f32");
    TH_CHECK(GK("t.bool", 7) && *(const uint8_t*)g->get_val_data(gg, k) == 1, "ggml: bool");
    TH_CHECK(GK("general.name", 8) && strcmp(g->get_val_str(gg, k), "tiny \xce\xbb model") == 0, "ggml: string");
    TH_CHECK(GK("t.u64", 10) && *(const uint64_t*)g->get_val_data(gg, k) == V_U64, "ggml: u64");
    TH_CHECK(GK("t.i64", 11) && *(const int64_t*)g->get_val_data(gg, k) == V_I64, "ggml: i64");
    TH_CHECK(GK("t.f64", 12) && memcmp(g->get_val_data(gg, k), &V_F64, 8) == 0, "ggml: f64");
    TH_CHECK(GK("t.arr_f32", 9) && g->get_arr_type(gg, k) == 6 && g->get_arr_n(gg, k) == 5 && memcmp(g->get_arr_data(gg, k), ARR_F32, sizeof ARR_F32) == 0, "ggml: f32 array");
    TH_CHECK(GK("t.arr_i32", 9) && g->get_arr_type(gg, k) == 5 && g->get_arr_n(gg, k) == 4 && memcmp(g->get_arr_data(gg, k), ARR_I32, sizeof ARR_I32) == 0, "ggml: i32 array");
    TH_CHECK(GK("t.arr_bool", 9) && g->get_arr_type(gg, k) == 7 && g->get_arr_n(gg, k) == 3 && memcmp(g->get_arr_data(gg, k), ARR_BOOL, 3) == 0, "ggml: bool array");
    TH_CHECK(GK("t.arr_u64", 9) && g->get_arr_type(gg, k) == 10 && g->get_arr_n(gg, k) == 2 && memcmp(g->get_arr_data(gg, k), ARR_U64, sizeof ARR_U64) == 0, "ggml: u64 array");
    if (GK("tokenizer.ggml.tokens", 9) && g->get_arr_type(gg, k) == 8 && g->get_arr_n(gg, k) == 4) {
        int ok = 1;
        for (i = 0; i < 4; i++) ok &= strcmp(g->get_arr_str(gg, k, (size_t)i), ARR_STR[i]) == 0;
        TH_CHECK(ok, "ggml: string array");
    } else TH_CHECK(0, "ggml: string array key");
#undef GK
    TH_CHECK(g->get_n_tensors(gg) == NT, "ggml sees %lld tensors", (long long)g->get_n_tensors(gg));
    for (i = 0; i < NT; i++) {
        int64_t t = g->find_tensor(gg, tcases[i].name);
        const struct ggml_tensor_prefix_* gt = (const struct ggml_tensor_prefix_*)g->get_tensor(ctx, tcases[i].name);
        int d, ok = t >= 0 && gt && g->get_tensor_type(gg, t) == tcases[i].type && g->get_tensor_size(gg, t) == tcase_bytes(&tcases[i]);
        for (d = 0; ok && d < 4; d++) ok = gt->ne[d] == (d < tcases[i].rank ? tcases[i].shape[tcases[i].rank - 1 - d] : 1);
        TH_CHECK(ok, "ggml: tensor %s type, size and ne", tcases[i].name);
        if (ok) TH_CHECK(memcmp(g->get_data((void*)(uintptr_t)gt), data[i], tcase_bytes(&tcases[i])) == 0, "ggml: tensor %s bytes", tcases[i].name);
    }
    g->gfree(gg);
    if (ctx) g->free_(ctx);
}

/* rlx writer -> rlx reader (memory), nested arrays, v2; store binding */
static void test_roundtrip_and_nested(unsigned char* const* data) {
    rlx_gguf_writer* w = rlx_write_all(data, 0);
    rlx_gguf* gf = NULL;
    size_t size = 0;
    unsigned char* buf;
    int k;
    if (!w) { TH_CHECK(0, "writer create"); return; }
    /* nested: [[1, 2, 3], [], [-7]] of i32 and [["a", "bc"], [["deep"]]] is refused (elements differ) */
    TH_CHECK(rlx_gguf_writer_begin_array(w, "t.nested", RLX_GGUF_ARRAY, 3) == RLX_OK, "begin nested");
    {
        int32_t a[3] = {1, 2, 3}, c = -7;
        TH_CHECK(rlx_gguf_writer_array(w, NULL, RLX_GGUF_I32, a, 3) == RLX_OK, "inner 1");
        TH_CHECK(rlx_gguf_writer_array(w, NULL, RLX_GGUF_I32, a, 0) == RLX_OK, "inner 2 (empty)");
        TH_CHECK(rlx_gguf_writer_begin_array(w, NULL, RLX_GGUF_I32, 1) == RLX_OK && rlx_gguf_writer_kv(w, NULL, RLX_GGUF_I32, &c) == RLX_OK &&
                 rlx_gguf_writer_end_array(w) == RLX_OK, "inner 3 element by element");
        TH_CHECK(rlx_gguf_writer_kv(w, NULL, RLX_GGUF_I32, &c) == RLX_ERROR_DTYPE, "an i32 in an array of arrays is refused");
        TH_CHECK(rlx_gguf_writer_end_array(w) == RLX_OK, "end nested");
    }
    TH_CHECK(rlx_gguf_writer_begin_array(w, "t.nested_str", RLX_GGUF_ARRAY, 2) == RLX_OK &&
             rlx_gguf_writer_array(w, NULL, RLX_GGUF_STRING, ARR_STR, 2) == RLX_OK &&
             rlx_gguf_writer_begin_array(w, NULL, RLX_GGUF_ARRAY, 1) == RLX_OK &&
             rlx_gguf_writer_array(w, NULL, RLX_GGUF_STRING, ARR_STR + 2, 1) == RLX_OK &&
             rlx_gguf_writer_end_array(w) == RLX_OK && rlx_gguf_writer_end_array(w) == RLX_OK, "nested string arrays, 3 deep");
    TH_CHECK(rlx_gguf_writer_begin_array(w, "t.short", RLX_GGUF_U8, 2) == RLX_OK && rlx_gguf_writer_end_array(w) == RLX_ERROR_SIZE, "an array ended early is refused");
    TH_CHECK(rlx_gguf_writer_size(w, &size) == RLX_ERROR_INVALID_ARGUMENT, "size with an array still open fails: %s", rlx_gguf_writer_error(w));
    rlx_gguf_writer_destroy(w);

    w = rlx_write_all(data, 0);
    {
        int32_t a[3] = {1, 2, 3}, c = -7;
        rlx_gguf_writer_begin_array(w, "t.nested", RLX_GGUF_ARRAY, 3);
        rlx_gguf_writer_array(w, NULL, RLX_GGUF_I32, a, 3);
        rlx_gguf_writer_array(w, NULL, RLX_GGUF_I32, a, 0);
        rlx_gguf_writer_array(w, NULL, RLX_GGUF_I32, &c, 1);
        rlx_gguf_writer_end_array(w);
        rlx_gguf_writer_begin_array(w, "t.nested_str", RLX_GGUF_ARRAY, 2);
        rlx_gguf_writer_array(w, NULL, RLX_GGUF_STRING, ARR_STR, 2);
        rlx_gguf_writer_begin_array(w, NULL, RLX_GGUF_ARRAY, 1);
        rlx_gguf_writer_array(w, NULL, RLX_GGUF_STRING, ARR_STR + 2, 1);
        rlx_gguf_writer_end_array(w);
        TH_CHECK(rlx_gguf_writer_end_array(w) == RLX_OK, "nested arrays written: %s", rlx_gguf_writer_error(w));
    }
    TH_CHECK(rlx_gguf_writer_kv(w, "t.u8", RLX_GGUF_U8, &V_U8) == RLX_ERROR_DUPLICATE, "duplicate key refused");
    TH_CHECK(rlx_gguf_writer_tensor(w, "pos.i32", 26, 1, tcases[5].shape, data[5], tcase_bytes(&tcases[5])) == RLX_ERROR_DUPLICATE, "duplicate tensor refused");
    TH_CHECK(rlx_gguf_writer_tensor(w, "x", 2, 1, tcases[5].shape, data[5], 44) == RLX_ERROR_DTYPE, "q4_0 of 11 elements refused: %s", rlx_gguf_writer_error(w));
    TH_CHECK(rlx_gguf_writer_tensor(w, "x", 0, 1, tcases[5].shape, data[5], 40) == RLX_ERROR_SIZE, "wrong byte count refused: %s", rlx_gguf_writer_error(w));
    TH_CHECK(rlx_gguf_writer_size(w, &size) == RLX_OK && size > 0, "size %lu", (unsigned long)size);
    buf = (unsigned char*)malloc(size);
    TH_CHECK(rlx_gguf_writer_write_memory(w, buf, size - 1) == RLX_ERROR_SIZE, "a short buffer is refused");
    TH_CHECK(rlx_gguf_writer_write_memory(w, buf, size) == RLX_OK, "write to memory");
    rlx_gguf_writer_destroy(w);
    TH_CHECK(rlx_gguf_open_memory(buf, size, NULL, &gf) == RLX_OK, "open rlx's own file from memory: %s", rlx_file_error());
    if (gf) {
        rlx_gguf_value v, e, e2;
        check_meta(gf, "rlx->rlx");
        check_tensors(gf, data, "rlx->rlx");
        k = rlx_gguf_find(gf, "t.nested");
        if (k >= 0 && rlx_gguf_kv(gf, k, NULL, &v) == RLX_OK) {
            int ok = v.type == RLX_GGUF_ARRAY && v.array_type == RLX_GGUF_ARRAY && v.count == 3 && v.data == NULL;
            ok = ok && rlx_gguf_array_get(gf, &v, 0, &e) == RLX_OK && e.array_type == RLX_GGUF_I32 && e.count == 3 &&
                 rlx_gguf_array_get(gf, &e, 2, &e2) == RLX_OK && e2.i64 == 3;
            ok = ok && rlx_gguf_array_get(gf, &v, 1, &e) == RLX_OK && e.count == 0;
            ok = ok && rlx_gguf_array_get(gf, &v, 2, &e) == RLX_OK && e.count == 1 && rlx_gguf_array_get(gf, &e, 0, &e2) == RLX_OK && e2.i64 == -7;
            TH_CHECK(ok, "nested i32 arrays read back");
        } else TH_CHECK(0, "t.nested found");
        k = rlx_gguf_find(gf, "t.nested_str");
        if (k >= 0 && rlx_gguf_kv(gf, k, NULL, &v) == RLX_OK) {
            int ok = v.count == 2 && rlx_gguf_array_get(gf, &v, 0, &e) == RLX_OK && e.array_type == RLX_GGUF_STRING &&
                     rlx_gguf_array_get(gf, &e, 1, &e2) == RLX_OK && e2.count == 0 &&
                     rlx_gguf_array_get(gf, &v, 1, &e) == RLX_OK && e.array_type == RLX_GGUF_ARRAY &&
                     rlx_gguf_array_get(gf, &e, 0, &e2) == RLX_OK && e2.array_type == RLX_GGUF_STRING &&
                     rlx_gguf_array_get(gf, &e2, 0, &e) == RLX_OK && strcmp(e.str, ARR_STR[2]) == 0;
            TH_CHECK(ok, "nested string arrays read back");
        } else TH_CHECK(0, "t.nested_str found");
        rlx_gguf_close(gf);
    }
    free(buf);
}

/* Store binding: borrowed in place, the handle may close first, a program computes with it. */
static int released_calls;
static void test_store(unsigned char* const* data) {
    rlx_gguf_writer* w = NULL;
    rlx_gguf* gf = NULL;
    rlx_store* s = NULL;
    rlx_store_desc sd;
    size_t size = 0;
    int added = -1, i;
    const char* path = tmp_path("store.gguf");
    float wv[12], xv[4] = {0.5f, -1.25f, 2.0f, 0.75f}, yv[3];
    int64_t ws[2] = {4, 3}, ms = 32;
    unsigned char mx[17];
    (void)data;
    for (i = 0; i < 12; i++) wv[i] = (float)(i % 5) * 0.37f - 0.6f;
    rlx_gguf_writer_create(NULL, &w);
    rlx_gguf_writer_tensor(w, "w", 0, 2, ws, wv, sizeof wv);
    rlx_gguf_writer_tensor(w, "q", 2, 1, tcases[2].shape + 1, data[2], 36);
    /* an mxfp4 tensor (ggml type 39, 17 bytes per 32 values): no rlx dtype. The writer keeps the pointer until
       it writes, so mx lives in this function's scope. */
    for (i = 0; i < 17; i++) mx[i] = (unsigned char)(i * 29 + 3);
    rlx_gguf_writer_tensor(w, "m", 39, 1, &ms, mx, sizeof mx);
    TH_CHECK(rlx_gguf_writer_write_file(w, path) == RLX_OK, "write %s", path);
    rlx_gguf_writer_size(w, &size);
    rlx_gguf_writer_destroy(w);
    memset(&sd, 0, sizeof sd);
    sd.device = RLX_DEVICE_CPU;
    if (rlx_gguf_open_file(path, NULL, &gf) != RLX_OK || rlx_store_create(&sd, &s) != RLX_OK) { TH_CHECK(0, "open + store: %s", rlx_file_error()); return; }
    TH_CHECK(rlx_gguf_store(gf, s, 0, &added) == RLX_ERROR_DTYPE && added == 2, "mxfp4 refused without skip: %s", rlx_file_error());
    TH_CHECK(strstr(rlx_file_error(), "mxfp4") != NULL, "the message names the type: %s", rlx_file_error());
    rlx_store_destroy(s);
    s = NULL;
    rlx_store_create(&sd, &s);
    TH_CHECK(rlx_gguf_store(gf, s, 1, &added) == RLX_OK && added == 2, "f32 and q4_0 tensors bound, mxfp4 skipped (%d)", added);
    {   /* the q4_0 tensor is an RLX_Q4_0 store tensor, used in place */
        rlx_store_tensor_info si;
        rlx_gguf_tensor_info ti;
        rlx_gguf_tensor(gf, 1, &ti);
        TH_CHECK(rlx_store_tensor(s, 1, &si) == RLX_OK && si.dtype == RLX_Q4_0 && si.borrowed == 1 && si.host == ti.data &&
                     si.rank == 1 && si.shape[0] == 64,
                 "the q4_0 tensor is bound as q4_0 in place");
    }
    {
        rlx_store_tensor_info si;
        rlx_gguf_tensor_info ti;
        rlx_gguf_tensor(gf, 0, &ti);
        TH_CHECK(rlx_store_tensor(s, 0, &si) == RLX_OK && si.borrowed == 1 && si.host == ti.data && si.rank == 2 && si.shape[0] == 4 && si.shape[1] == 3,
                 "the store uses the mapping in place (no copy)");
    }
    rlx_gguf_close(gf);   /* the store keeps the mapping */
    {
        rlx_graph* g = rlx_graph_create(NULL);
        int64_t xs[2] = {1, 4};
        rlx_program* p = NULL;
        rlx_compile_desc cd;
        rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, xs);
        rlx_tensor wt = rlx_param(g, "w", RLX_F32, 2, ws);
        rlx_output(g, "y", rlx_matmul(g, x, wt));
        memset(&cd, 0, sizeof cd);
        cd.store = s;
        TH_CHECK(rlx_compile(g, &cd, &p) == RLX_OK, "compile against the store: %s", rlx_graph_error(g));
        if (p) {
            int j, ok = 1;
            rlx_set_input_f32(p, "x", xv, 4);
            TH_CHECK(rlx_run(p) == RLX_OK, "run: %s", rlx_program_error(p));
            rlx_get_output_f32(p, "y", yv, 3);
            for (j = 0; j < 3; j++) {
                double ref = 0;
                int kk;
                for (kk = 0; kk < 4; kk++) ref += (double)xv[kk] * (double)wv[kk * 3 + j];
                ok &= fabs(ref - (double)yv[j]) < 1e-5;
            }
            TH_CHECK(ok, "matmul with the file's weights equals the f64 reference");
            rlx_program_destroy(p);
        }
        rlx_graph_destroy(g);
    }
    rlx_store_destroy(s);
    (void)size;
    (void)released_calls;
}

/* ---- hostile files ---- */
typedef struct hcase { const char* what; const char* expect; } hcase;
static void expect_fail(const bb* b, const char* what, const char* expect) {
    rlx_gguf* gf = NULL;
    rlx_result rc = rlx_gguf_open_memory(b->p, b->n, NULL, &gf);
    TH_CHECK(rc == RLX_ERROR_FORMAT && gf == NULL && strstr(rlx_file_error(), expect) != NULL,
             "%s: rc %s, message '%s' (expected '%s')", what, rlx_result_string(rc), rlx_file_error(), expect);
    if (gf) rlx_gguf_close(gf);
}
/* A header with nkv/nt given, then the caller's bytes. */
static void hdr(bb* b, uint32_t version, uint64_t nt, uint64_t nkv) {
    b->n = 0;
    bb_put(b, "GGUF", 4);
    bb_u32(b, version);
    bb_u64(b, nt);
    bb_u64(b, nkv);
}
static void tinfo(bb* b, const char* name, uint32_t rank, const uint64_t* ne, uint32_t type, uint64_t off) {
    uint32_t d;
    bb_str(b, name);
    bb_u32(b, rank);
    for (d = 0; d < rank; d++) bb_u64(b, ne[d]);
    bb_u32(b, type);
    bb_u64(b, off);
}
static void test_hostile(void) {
    bb b = {0};
    uint64_t ne4[1] = {4}, ne8[1] = {8}, ne9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, big[2] = {(uint64_t)1 << 62, 16};
    size_t i, full;
    int crashed_prefix = 0;
    rlx_gguf* gf = NULL;

    hdr(&b, 1, 0, 0); expect_fail(&b, "version 1", "version 1 is not supported");
    hdr(&b, 4, 0, 0); expect_fail(&b, "version 4", "unknown version 4");
    hdr(&b, 0x03000000u, 0, 0); expect_fail(&b, "big-endian", "big-endian");
    b.n = 0; bb_put(&b, "GGUF", 4); expect_fail(&b, "truncated header", "past the end");
    b.n = 0; bb_put(&b, "GGML\3\0\0\0", 8); expect_fail(&b, "bad magic", "not a GGUF file");
    hdr(&b, 3, 0, (uint64_t)1 << 62); expect_fail(&b, "kv count 2^62", "do not fit");
    hdr(&b, 3, UINT64_MAX, 0); expect_fail(&b, "tensor count 2^64-1", "do not fit");
    hdr(&b, 3, 0, 1); bb_u64(&b, (uint64_t)1 << 40); bb_put(&b, "abcdefghijklm", 13); expect_fail(&b, "huge key length", "runs past the end");
    hdr(&b, 3, 0, 1); bb_str(&b, "k"); bb_u32(&b, 13); bb_u32(&b, 0); expect_fail(&b, "unknown value type 13", "unknown value type 13");
    hdr(&b, 3, 0, 1); bb_str(&b, "k"); bb_u32(&b, 9); bb_u32(&b, 0); bb_u64(&b, (uint64_t)1 << 50); bb_put(&b, "xxxxxxxx", 8); expect_fail(&b, "huge array", "do not fit");
    hdr(&b, 3, 0, 1); bb_str(&b, "k"); bb_u32(&b, 9); bb_u32(&b, 8); bb_u64(&b, UINT64_MAX / 4); bb_put(&b, "xxxxxxxxxxxxxxxxxxxxxxxx", 24); expect_fail(&b, "huge string array", "do not fit");
    hdr(&b, 3, 0, 1); bb_str(&b, "k"); bb_u32(&b, 8); bb_u64(&b, UINT64_MAX); expect_fail(&b, "string length 2^64-1", "runs past the end");
    hdr(&b, 3, 0, 1); bb_str(&b, "k"); bb_u32(&b, 7); bb_put(&b, "\2", 1); expect_fail(&b, "bool 2", "neither 0 nor 1");
    hdr(&b, 3, 0, 1); bb_str(&b, "k\xff"); bb_u32(&b, 0); bb_put(&b, "\1", 1); expect_fail(&b, "bad UTF-8 key", "not valid UTF-8");
    hdr(&b, 3, 0, 2); bb_str(&b, "k"); bb_u32(&b, 0); bb_put(&b, "\1", 1); bb_str(&b, "k"); bb_u32(&b, 0); bb_put(&b, "\1", 1); expect_fail(&b, "duplicate key", "duplicate key 'k'");
    hdr(&b, 3, 0, 1); bb_str(&b, "general.alignment"); bb_u32(&b, 4); bb_u32(&b, 48); expect_fail(&b, "alignment 48", "not a power of two");
    hdr(&b, 3, 0, 1); bb_str(&b, "general.alignment"); bb_u32(&b, 10); bb_u64(&b, 32); expect_fail(&b, "alignment as u64", "not u32");
    {   /* arrays nested 17 deep */
        int d;
        hdr(&b, 3, 0, 1); bb_str(&b, "k"); bb_u32(&b, 9);
        for (d = 0; d < 17; d++) { bb_u32(&b, 9); bb_u64(&b, 1); }
        bb_u32(&b, 0); bb_u64(&b, 0);
        expect_fail(&b, "arrays nested 17 deep", "nested deeper");
    }
    hdr(&b, 3, 1, 0); tinfo(&b, "t\xc0\x80", 1, ne4, 0, 0); bb_pad(&b, 32); bb_put(&b, "0123456789abcdef", 16); expect_fail(&b, "overlong UTF-8 in a tensor name", "not valid UTF-8");
    hdr(&b, 3, 1, 0); tinfo(&b, "t", 1, ne4, 4, 0); bb_pad(&b, 32); bb_put(&b, "0123456789abcdef", 16); expect_fail(&b, "removed type 4", "unknown ggml type");
    hdr(&b, 3, 1, 0); tinfo(&b, "t", 1, ne4, 99, 0); bb_pad(&b, 32); bb_put(&b, "0123456789abcdef", 16); expect_fail(&b, "type 99", "unknown ggml type");
    hdr(&b, 3, 1, 0); tinfo(&b, "t", 1, ne4, 2, 0); bb_pad(&b, 32); bb_put(&b, "0123456789abcdef", 16); expect_fail(&b, "q4_0 row of 4", "not a multiple of the type's block size");
    hdr(&b, 3, 1, 0); tinfo(&b, "t", 9, ne9, 0, 0); expect_fail(&b, "rank 9", "rank 9");
    hdr(&b, 3, 1, 0); tinfo(&b, "t", 2, big, 0, 0); bb_pad(&b, 32); expect_fail(&b, "byte size overflow", "overflows");
    hdr(&b, 3, 1, 0); tinfo(&b, "t", 1, ne4, 0, 16); bb_pad(&b, 32); bb_put(&b, "0123456789abcdef0123456789abcdef", 32); expect_fail(&b, "misaligned offset", "not a multiple of the alignment");
    hdr(&b, 3, 1, 0); tinfo(&b, "t", 1, ne8, 0, 0); bb_pad(&b, 32); bb_put(&b, "0123456789abcdef", 16); expect_fail(&b, "tensor past the end", "run past the end");
    hdr(&b, 3, 1, 0); tinfo(&b, "t", 1, ne4, 0, (uint64_t)-32); bb_pad(&b, 32); bb_put(&b, "0123456789abcdef", 16); expect_fail(&b, "offset 2^64-32", "run past the end");
    hdr(&b, 3, 2, 0); tinfo(&b, "a", 1, ne8, 0, 0); tinfo(&b, "b", 1, ne4, 0, 0); bb_pad(&b, 32); bb_put(&b, "0123456789abcdef0123456789abcdef", 32); expect_fail(&b, "overlapping tensors", "overlap");
    hdr(&b, 3, 2, 0); tinfo(&b, "a", 1, ne4, 0, 0); tinfo(&b, "a", 1, ne4, 0, 32); bb_pad(&b, 32); bb_put(&b, "0123456789abcdef0123456789abcdef0123456789abcdef", 48); expect_fail(&b, "duplicate tensor names", "duplicate tensor name");
    hdr(&b, 3, 1, 0); tinfo(&b, "", 1, ne4, 0, 0); bb_pad(&b, 32); bb_put(&b, "0123456789abcdef", 16); expect_fail(&b, "empty tensor name", "empty name");

    /* a valid v2 file with two tensors; then every prefix of it must fail cleanly */
    hdr(&b, 2, 2, 1); bb_str(&b, "general.architecture"); bb_u32(&b, 8); bb_str(&b, "llama");
    tinfo(&b, "a", 1, ne4, 0, 0); tinfo(&b, "b", 1, ne8, 0, 32); bb_pad(&b, 32);
    for (i = 0; i < 64; i++) { unsigned char c = (unsigned char)(i * 7 + 1); bb_put(&b, &c, 1); }
    full = b.n;
    TH_CHECK(rlx_gguf_open_memory(b.p, b.n, NULL, &gf) == RLX_OK, "hand-made v2 file opens: %s", rlx_file_error());
    if (gf) {
        rlx_gguf_tensor_info ti;
        TH_CHECK(rlx_gguf_version(gf) == 2 && rlx_gguf_tensor(gf, 1, &ti) == RLX_OK && ti.offset == 32 && ((const unsigned char*)ti.data)[0] == (unsigned char)(32 * 7 + 1),
                 "v2 tensor b at offset 32");
        rlx_gguf_close(gf);
    }
    for (i = 0; i + 1 < full; i++) {
        gf = NULL;
        if (rlx_gguf_open_memory(b.p, i, NULL, &gf) != RLX_ERROR_FORMAT || gf) crashed_prefix++;
        if (gf) rlx_gguf_close(gf);
    }
    TH_CHECK(crashed_prefix == 0, "every one of the %lu shorter prefixes is a format error (%d were not)", (unsigned long)(full - 1), crashed_prefix);
    TH_CHECK(rlx_gguf_open_memory(NULL, 10, NULL, &gf) == RLX_ERROR_INVALID_ARGUMENT, "NULL data");
    TH_CHECK(rlx_gguf_open_memory(b.p, b.n, NULL, NULL) == RLX_ERROR_INVALID_ARGUMENT, "NULL out");
    TH_CHECK(rlx_gguf_open_file("build/no/such/file.gguf", NULL, &gf) == RLX_ERROR_IO && gf == NULL && strstr(rlx_file_error(), "cannot open"), "missing file: %s", rlx_file_error());
    TH_CHECK(rlx_gguf_kv_count(NULL) == 0 && rlx_gguf_tensor_count(NULL) == 0 && rlx_gguf_find(NULL, "x") == -1, "NULL handle queries");
    free(b.p);
}

int main(void) {
    ggml_api g;
    unsigned char* data[NT];
    int i, have = load_ggml(&g);
    for (i = 0; i < NT; i++) {
        data[i] = (unsigned char*)malloc(tcase_bytes(&tcases[i]));
        fill_random(data[i], tcase_bytes(&tcases[i]));
    }
    /* f16 / bf16 / f32 / f64 payloads: random bits may be NaNs, which ggml and rlx must both carry unchanged */
    if (have) {
        test_type_table(&g);
        test_ggml_writes(&g, data);
        test_rlx_writes(&g, data);
    } else {
        th_skip("ggml type table: %s", g_skip_reason);
        th_skip("GGUF written by ggml, read by rlx: %s", g_skip_reason);
        th_skip("GGUF written by rlx, read by ggml: %s", g_skip_reason);
    }
    test_roundtrip_and_nested(data);
    test_store(data);
    test_hostile();
    for (i = 0; i < NT; i++) free(data[i]);
    return th_summary("gguf");
}
