/* safetensors reader and writer (>>safetensors, >>json, >>file). PyTorch and the safetensors package are not
   used: the files here are JSON text and data bytes written by the test itself, with the expected values
   computed by hand (the bit patterns of the f32/bf16/i64 values are spelled out), plus writer round trips,
   sharded checkpoints through model.safetensors.index.json, and hostile headers (JSON nested 10,000 deep, bad
   escapes and surrogates, bad UTF-8, overlapping or out-of-range offsets, index paths that leave the folder). */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#include <stdlib.h>
#if defined(_WIN32)
#  include <direct.h>
#else
#  include <sys/stat.h>
#endif

/* a file = 8-byte little-endian header length + header (padded with spaces to a multiple of 8, as the format
   recommends, so the data is aligned) + data; last_hl is the padded header length */
static size_t last_hl;
static unsigned char* make_file(const char* header, const void* data, size_t dn, size_t* n) {
    size_t hl = strlen(header), i;
    unsigned char* p;
    while (hl % 8) hl++;
    p = (unsigned char*)malloc(8 + hl + dn + 1);
    for (i = 0; i < 8; i++) p[i] = (unsigned char)((uint64_t)hl >> (8 * i));
    memset(p + 8, ' ', hl);
    memcpy(p + 8, header, strlen(header));
    last_hl = hl;
    if (dn) memcpy(p + 8 + hl, data, dn);
    *n = 8 + hl + dn;
    return p;
}
static int write_bytes(const char* path, const void* p, size_t n) {
    FILE* f = fopen(path, "wb");
    int ok = f && fwrite(p, 1, n, f) == n;
    if (f) fclose(f);
    return ok;
}

static void test_hand_made(void) {
    /* a: F32 [2,3] = 1, -2, 0.5, 3.25, -0.125, 100   b: BF16 [4] = 1, -2, 0.5, 3 (0x3F80 0xC000 0x3F00 0x4040)
       c: I64 [] = -5   d: BOOL [3] = 1,0,1   e: F8_E4M3 [2] (listed, not bindable)   f: U8 [0, 3] (empty) */
    const char* hdr =
        "{\"__metadata__\":{\"format\":\"pt\",\"note\":\"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\"\"},"
        " \"a\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
        "\"b\" : { \"shape\" : [4], \"dtype\" : \"BF16\", \"data_offsets\" : [24, 32] },\n"
        "\"c\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[32,40]},"
        "\"d\":{\"dtype\":\"BOOL\",\"shape\":[3],\"data_offsets\":[40,43]},"
        "\"e\":{\"dtype\":\"F8_E4M3\",\"shape\":[2],\"data_offsets\":[43,45]},"
        "\"f\":{\"dtype\":\"U8\",\"shape\":[0,3],\"data_offsets\":[45,45]}}   ";
    unsigned char data[45];
    static const uint32_t a_bits[6] = {0x3F800000u, 0xC0000000u, 0x3F000000u, 0x40500000u, 0xBE000000u, 0x42C80000u};
    static const float a_val[6] = {1.0f, -2.0f, 0.5f, 3.25f, -0.125f, 100.0f};
    static const uint16_t b_bits[4] = {0x3F80, 0xC000, 0x3F00, 0x4040};
    uint64_t c_bits = (uint64_t)-5;
    size_t n, i;
    unsigned char* file;
    rlx_safetensors* st = NULL;
    for (i = 0; i < 6; i++) { int k; for (k = 0; k < 4; k++) data[i * 4 + (size_t)k] = (unsigned char)(a_bits[i] >> (8 * k)); }
    for (i = 0; i < 4; i++) { data[24 + 2 * i] = (unsigned char)b_bits[i]; data[25 + 2 * i] = (unsigned char)(b_bits[i] >> 8); }
    for (i = 0; i < 8; i++) data[32 + i] = (unsigned char)(c_bits >> (8 * i));
    data[40] = 1; data[41] = 0; data[42] = 1; data[43] = 0x38; data[44] = 0xC0;
    file = make_file(hdr, data, sizeof data, &n);
    TH_CHECK(rlx_safetensors_open_memory(file, n, NULL, &st) == RLX_OK, "hand-made file opens: %s", rlx_file_error());
    if (st) {
        rlx_safetensors_tensor_info t;
        const char *k, *v;
        int ix;
        TH_CHECK(rlx_safetensors_tensor_count(st) == 6, "6 tensors (%d)", rlx_safetensors_tensor_count(st));
        ix = rlx_safetensors_find_tensor(st, "a");
        if (ix >= 0 && rlx_safetensors_tensor(st, ix, &t) == RLX_OK) {
            float f[6];
            int ok = t.dtype == RLX_F32 && strcmp(t.st_dtype, "F32") == 0 && t.rank == 2 && t.shape[0] == 2 && t.shape[1] == 3 && t.bytes == 24 && t.shard == 0;
            memcpy(f, t.data, 24);
            for (i = 0; i < 6; i++) ok &= f[i] == a_val[i];
            TH_CHECK(ok, "a: F32 [2,3] with the hand-computed values");
        } else TH_CHECK(0, "a found");
        ix = rlx_safetensors_find_tensor(st, "b");
        if (ix >= 0 && rlx_safetensors_tensor(st, ix, &t) == RLX_OK) {
            static const float want[4] = {1.0f, -2.0f, 0.5f, 3.0f};
            float got[4];
            rlx_store* s = NULL;
            rlx_store_desc sd;
            int64_t shp[1] = {4};
            TH_CHECK(t.dtype == RLX_BF16 && t.rank == 1 && t.bytes == 8 && t.data == file + 8 + last_hl + 24, "b: BF16 [4] in place");
            /* the store converts bf16 -> f32 by rlx_cast rules: the hand-computed bit patterns must give these values */
            memset(&sd, 0, sizeof sd);
            sd.device = RLX_DEVICE_CPU;
            rlx_store_create(&sd, &s);
            TH_CHECK(rlx_store_add(s, "b", RLX_BF16, 1, shp, t.data) == RLX_OK && rlx_store_get(s, "b", RLX_F32, got, sizeof got) == RLX_OK &&
                     memcmp(got, want, sizeof want) == 0, "b's bf16 values are 1, -2, 0.5, 3");
            rlx_store_destroy(s);
        } else TH_CHECK(0, "b found");
        ix = rlx_safetensors_find_tensor(st, "c");
        if (ix >= 0 && rlx_safetensors_tensor(st, ix, &t) == RLX_OK) {
            int64_t c;
            memcpy(&c, t.data, 8);
            TH_CHECK(t.dtype == RLX_I64 && t.rank == 0 && t.bytes == 8 && c == -5, "c: I64 scalar -5");
        } else TH_CHECK(0, "c found");
        ix = rlx_safetensors_find_tensor(st, "d");
        TH_CHECK(ix >= 0 && rlx_safetensors_tensor(st, ix, &t) == RLX_OK && t.dtype == RLX_BOOL && t.bytes == 3 && ((const unsigned char*)t.data)[2] == 1, "d: BOOL [3]");
        ix = rlx_safetensors_find_tensor(st, "e");
        TH_CHECK(ix >= 0 && rlx_safetensors_tensor(st, ix, &t) == RLX_OK && t.dtype == RLX_DTYPE_INVALID && strcmp(t.st_dtype, "F8_E4M3") == 0 && t.bytes == 2, "e: F8_E4M3 listed, no rlx dtype");
        ix = rlx_safetensors_find_tensor(st, "f");
        TH_CHECK(ix >= 0 && rlx_safetensors_tensor(st, ix, &t) == RLX_OK && t.dtype == RLX_U8 && t.rank == 2 && t.shape[0] == 0 && t.bytes == 0, "f: empty U8 [0,3]");
        TH_CHECK(rlx_safetensors_find_tensor(st, "__metadata__") == -1 && rlx_safetensors_find_tensor(st, "zz") == -1, "unknown names");
        TH_CHECK(rlx_safetensors_metadata_count(st) == 2, "2 metadata entries");
        TH_CHECK(rlx_safetensors_metadata(st, 0, &k, &v) == RLX_OK && strcmp(k, "format") == 0 && strcmp(v, "pt") == 0, "metadata format=pt");
        v = rlx_safetensors_metadata_find(st, "note");
        TH_CHECK(v && strcmp(v, "caf\xc3\xa9 \xf0\x9f\x98\x80 \"q\"") == 0, "escapes decoded: \\u00e9 and the surrogate pair U+1F600: '%s'", v ? v : "(null)");
        {
            rlx_store* s = NULL;
            rlx_store_desc sd;
            int added = -1;
            memset(&sd, 0, sizeof sd);
            sd.device = RLX_DEVICE_CPU;
            rlx_store_create(&sd, &s);
            TH_CHECK(rlx_safetensors_store(st, s, 0, &added) == RLX_ERROR_DTYPE && strstr(rlx_file_error(), "F8_E4M3"), "F8_E4M3 refused for binding: %s", rlx_file_error());
            rlx_store_destroy(s);
            s = NULL;
            rlx_store_create(&sd, &s);
            /* f has a zero dim, which a store refuses: bind everything else */
            TH_CHECK(rlx_safetensors_store(st, s, 1, &added) == RLX_ERROR_SHAPE && added == 4, "a zero-size tensor is refused by the store (%d added): %s", added, rlx_file_error());
            {
                rlx_store_tensor_info si;
                TH_CHECK(rlx_store_tensor(s, 0, &si) == RLX_OK && si.borrowed && si.host == file + 8 + last_hl, "a is borrowed from the file bytes in place");
            }
            rlx_safetensors_close(st);
            st = NULL;
            rlx_store_destroy(s);
        }
    }
    free(file);
}

static void test_writer(void) {
    float a[6] = {1.5f, -2.0f, 3.0f, 0.25f, -8.0f, 7.0f};
    int32_t z[5] = {1, -2, 3, -4, 2147483647};
    uint16_t m[4] = {0x3C00, 0xC000, 0x3800, 0x7BFF};   /* f16 1, -2, 0.5, 65504 */
    int64_t sa[2] = {2, 3}, sz[1] = {5}, sm[2] = {2, 2};
    rlx_safetensors_writer* w = NULL;
    size_t size = 0, hl;
    unsigned char* buf;
    rlx_safetensors* st = NULL;
    /* the canonical header, by hand: metadata first, keys sorted, offsets packed, spaces to a multiple of 8 */
    const char* want = "{\"__metadata__\":{\"format\":\"pt\",\"q\\\"\\\\\":\"tab\\u0009\"},"
                       "\"a\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
                       "\"m\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[24,32]},"
                       "\"z\":{\"dtype\":\"I32\",\"shape\":[5],\"data_offsets\":[32,52]}}";
    TH_CHECK(rlx_safetensors_writer_create(NULL, &w) == RLX_OK, "writer");
    TH_CHECK(rlx_safetensors_writer_tensor(w, "z", RLX_I32, 1, sz, z) == RLX_OK, "z");
    TH_CHECK(rlx_safetensors_writer_tensor(w, "a", RLX_F32, 2, sa, a) == RLX_OK, "a");
    TH_CHECK(rlx_safetensors_writer_tensor(w, "m", RLX_F16, 2, sm, m) == RLX_OK, "m");
    TH_CHECK(rlx_safetensors_writer_metadata(w, "format", "pt") == RLX_OK && rlx_safetensors_writer_metadata(w, "q\"\\", "tab\t") == RLX_OK, "metadata");
    TH_CHECK(rlx_safetensors_writer_tensor(w, "a", RLX_F32, 2, sa, a) == RLX_ERROR_DUPLICATE, "duplicate tensor");
    TH_CHECK(rlx_safetensors_writer_metadata(w, "format", "x") == RLX_ERROR_DUPLICATE, "duplicate metadata");
    TH_CHECK(rlx_safetensors_writer_tensor(w, "__metadata__", RLX_F32, 2, sa, a) == RLX_ERROR_INVALID_ARGUMENT, "__metadata__ as a name");
    TH_CHECK(rlx_safetensors_writer_tensor(w, "bad\xff", RLX_F32, 2, sa, a) == RLX_ERROR_INVALID_ARGUMENT, "bad UTF-8 name");
    TH_CHECK(rlx_safetensors_writer_tensor(w, "x", RLX_DTYPE_INVALID, 2, sa, a) == RLX_ERROR_DTYPE, "invalid dtype");
    TH_CHECK(rlx_safetensors_writer_size(w, &size) == RLX_OK, "size");
    buf = (unsigned char*)malloc(size);
    TH_CHECK(rlx_safetensors_writer_write_memory(w, buf, size - 1) == RLX_ERROR_SIZE, "short buffer");
    TH_CHECK(rlx_safetensors_writer_write_memory(w, buf, size) == RLX_OK, "write");
    hl = 0;
    { int i; uint64_t h = 0; for (i = 0; i < 8; i++) h |= (uint64_t)buf[i] << (8 * i); hl = (size_t)h; }
    TH_CHECK((8 + hl) % 8 == 0 && size == 8 + hl + 52, "header length %lu pads to 8, file %lu bytes", (unsigned long)hl, (unsigned long)size);
    TH_CHECK(hl >= strlen(want) && memcmp(buf + 8, want, strlen(want)) == 0, "the header is the hand-written canonical JSON:\n  got  %.*s\n  want %s", (int)hl, (const char*)buf + 8, want);
    { size_t i; int sp = 1; for (i = 8 + strlen(want); i < 8 + hl; i++) sp &= buf[i] == ' '; TH_CHECK(sp, "padding is spaces"); }
    TH_CHECK(memcmp(buf + 8 + hl, a, 24) == 0 && memcmp(buf + 8 + hl + 24, m, 8) == 0 && memcmp(buf + 8 + hl + 32, z, 20) == 0, "data in name order");
    TH_CHECK(rlx_safetensors_open_memory(buf, size, NULL, &st) == RLX_OK, "read back: %s", rlx_file_error());
    if (st) {
        rlx_safetensors_tensor_info t;
        TH_CHECK(rlx_safetensors_tensor_count(st) == 3 && rlx_safetensors_tensor(st, rlx_safetensors_find_tensor(st, "m"), &t) == RLX_OK &&
                 t.dtype == RLX_F16 && memcmp(t.data, m, 8) == 0 && strcmp(rlx_safetensors_metadata_find(st, "q\"\\"), "tab\t") == 0, "round trip");
        rlx_safetensors_close(st);
    }
    TH_CHECK(rlx_safetensors_writer_write_file(w, "build/test_st_writer.safetensors") == RLX_OK, "write file");
    st = NULL;
    TH_CHECK(rlx_safetensors_open_file("build/test_st_writer.safetensors", NULL, &st) == RLX_OK && rlx_safetensors_tensor_count(st) == 3, "open the written file: %s", rlx_file_error());
    rlx_safetensors_close(st);
    rlx_safetensors_writer_destroy(w);
    free(buf);
}

static void write_shard(const char* path, const char* name1, const char* name2, const float* v) {
    rlx_safetensors_writer* w = NULL;
    int64_t s[1] = {2};
    rlx_safetensors_writer_create(NULL, &w);
    rlx_safetensors_writer_tensor(w, name1, RLX_F32, 1, s, v);
    if (name2) rlx_safetensors_writer_tensor(w, name2, RLX_F32, 1, s, v + 2);
    rlx_safetensors_writer_write_file(w, path);
    rlx_safetensors_writer_destroy(w);
}
static void index_case(const char* json, rlx_result want, const char* msg) {
    rlx_safetensors* st = NULL;
    rlx_result rc;
    write_bytes("build/st_shards/model.safetensors.index.json", json, strlen(json));
    rc = rlx_safetensors_open_index("build/st_shards/model.safetensors.index.json", NULL, &st);
    TH_CHECK(rc == want && st == NULL && strstr(rlx_file_error(), msg), "index %s: %s '%s'", msg, rlx_result_string(rc), rlx_file_error());
    if (st) rlx_safetensors_close(st);
}
static void test_sharded(void) {
    float v1[4] = {1, 2, 3, 4}, v2[4] = {-1, -2, -3, -4};
    rlx_safetensors* st = NULL;
    const char* good = "{\"metadata\":{\"total_size\":24},\"weight_map\":{\"x.w\":\"model-00001-of-00002.safetensors\","
                       "\"x.b\":\"model-00001-of-00002.safetensors\",\"y.w\":\"model-00002-of-00002.safetensors\"}}";
#if defined(_WIN32)
    _mkdir("build/st_shards");
#else
    mkdir("build/st_shards", 0777);
#endif
    write_shard("build/st_shards/model-00001-of-00002.safetensors", "x.w", "x.b", v1);
    write_shard("build/st_shards/model-00002-of-00002.safetensors", "y.w", NULL, v2);
    write_bytes("build/st_shards/model.safetensors.index.json", good, strlen(good));
    TH_CHECK(rlx_safetensors_open_index("build/st_shards/model.safetensors.index.json", NULL, &st) == RLX_OK, "sharded checkpoint opens: %s", rlx_file_error());
    if (st) {
        rlx_safetensors_tensor_info t;
        int ix = rlx_safetensors_find_tensor(st, "y.w");
        TH_CHECK(rlx_safetensors_tensor_count(st) == 3, "3 tensors over 2 shards");
        TH_CHECK(ix >= 0 && rlx_safetensors_tensor(st, ix, &t) == RLX_OK && t.shard == 1 && ((const float*)t.data)[1] == -2.0f, "y.w from shard 2");
        ix = rlx_safetensors_find_tensor(st, "x.b");
        TH_CHECK(ix >= 0 && rlx_safetensors_tensor(st, ix, &t) == RLX_OK && t.shard == 0 && ((const float*)t.data)[0] == 3.0f, "x.b from shard 1");
        {
            rlx_store* s = NULL;
            rlx_store_desc sd;
            int added = 0;
            memset(&sd, 0, sizeof sd);
            sd.device = RLX_DEVICE_CPU;
            rlx_store_create(&sd, &s);
            TH_CHECK(rlx_safetensors_store(st, s, 0, &added) == RLX_OK && added == 3, "3 tensors bound from 2 shards");
            rlx_safetensors_close(st);
            rlx_store_destroy(s);
        }
    }
    index_case("{\"weight_map\":{\"x.w\":\"../model-00001-of-00002.safetensors\"}}", RLX_ERROR_FORMAT, "not a plain file name");
    index_case("{\"weight_map\":{\"x.w\":\"/etc/passwd\"}}", RLX_ERROR_FORMAT, "not a plain file name");
    index_case("{\"weight_map\":{\"x.w\":\"..\"}}", RLX_ERROR_FORMAT, "not a plain file name");
    index_case("{\"weight_map\":{\"x.w\":\"sub\\\\x.safetensors\"}}", RLX_ERROR_FORMAT, "not a plain file name");
    index_case("{\"weight_map\":{\"y.w\":\"model-00001-of-00002.safetensors\",\"x.w\":\"model-00002-of-00002.safetensors\"}}", RLX_ERROR_FORMAT, "is not in shard");
    index_case("{\"weight_map\":{\"q\":\"missing.safetensors\"}}", RLX_ERROR_IO, "cannot open");
    index_case("{\"weight_map\":{\"x.w\":\"model-00001-of-00002.safetensors\",\"x.w\":\"model-00001-of-00002.safetensors\"}}", RLX_ERROR_FORMAT, "twice");
    index_case("{\"weight_map\":[]}", RLX_ERROR_FORMAT, "no weight_map");
    index_case("{\"weight_map\":{\"x.w\":1}}", RLX_ERROR_FORMAT, "not a string");
}

static void expect_fail(const char* hdr, const void* data, size_t dn, const char* what, const char* msg) {
    size_t n;
    unsigned char* f = make_file(hdr, data, dn, &n);
    rlx_safetensors* st = NULL;
    rlx_result rc = rlx_safetensors_open_memory(f, n, NULL, &st);
    TH_CHECK(rc == RLX_ERROR_FORMAT && st == NULL && strstr(rlx_file_error(), msg), "%s: %s '%s' (expected '%s')", what, rlx_result_string(rc), rlx_file_error(), msg);
    if (st) rlx_safetensors_close(st);
    free(f);
}
static void test_hostile(void) {
    static const unsigned char z[64] = {1, 2, 3};
    char* deep;
    size_t i, n, full;
    int bad = 0;
    unsigned char* f;
    rlx_safetensors* st = NULL;
    /* nesting 10,000 deep, in a tensor entry and in __metadata__ */
    deep = (char*)malloc(20100);
    strcpy(deep, "{\"a\":");
    for (i = 0; i < 10000; i++) deep[5 + i] = '[';
    for (i = 0; i < 10000; i++) deep[10005 + i] = ']';
    strcpy(deep + 20005, "}");
    expect_fail(deep, NULL, 0, "arrays nested 10,000 deep", "nesting deeper than the limit");
    strcpy(deep, "{\"a\":");
    for (i = 0; i < 10000; i++) deep[5 + i] = '[';
    deep[10005] = 0;
    expect_fail(deep, NULL, 0, "10,000 unclosed brackets", "nesting deeper than the limit");
    free(deep);
    expect_fail("{\"a\":\"\\x\"}", NULL, 0, "bad escape", "bad escape");
    expect_fail("{\"a\":\"\\u12g4\"}", NULL, 0, "bad \\u digits", "bad \\u escape");
    expect_fail("{\"a\":\"\\ud800\"}", NULL, 0, "lone high surrogate", "high surrogate not followed");
    expect_fail("{\"a\":\"\\ud800\\u0041\"}", NULL, 0, "high surrogate + non-low", "high surrogate not followed");
    expect_fail("{\"a\":\"\\udc00\"}", NULL, 0, "lone low surrogate", "lone low surrogate");
    expect_fail("{\"a\xc3\x28\":{}}", NULL, 0, "bad UTF-8 in a name", "invalid UTF-8");
    expect_fail("{\"a\xed\xa0\x80\":{}}", NULL, 0, "UTF-8 encoded surrogate", "invalid UTF-8");
    expect_fail("{\"a\xe0\x80\xaf\":{}}", NULL, 0, "overlong UTF-8", "invalid UTF-8");
    expect_fail("{\"a\tb\":{}}", NULL, 0, "raw control character", "control character");
    expect_fail("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},}", z, 4, "trailing comma", "expected a key string");
    expect_fail("{\"a\":1} x", NULL, 0, "trailing garbage", "trailing characters");
    expect_fail("{\"a\":01}", NULL, 0, "leading zero", "expected ',' or '}'");
    expect_fail("{\"a\":1.}", NULL, 0, "1.", "bad number");
    expect_fail("{\"a\":123456789012345678901234567890123456789012345678901234567890123456789}", NULL, 0, "a 69-digit number", "longer than 64");
    expect_fail("{\"a\":tru}", NULL, 0, "tru", "unexpected character");
    expect_fail("{\"a\":\"abc", NULL, 0, "unterminated string", "unterminated string");
    expect_fail("[1,2]", NULL, 0, "header not an object", "does not start with '{'");
    expect_fail("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", z, 8, "duplicate key", "names 'a' twice");
    expect_fail("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", z, 12, "overlapping offsets", "overlap");
    expect_fail("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", z, 8, "size past the end", "run past the end");
    expect_fail("{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,16]}}", z, 16, "size != numel x 4", "need 12");
    expect_fail("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", z, 8, "end before begin", "end before they begin");
    expect_fail("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,18446744073709551616]}}", z, 8, "offset over int64", "not non-negative integers");
    expect_fail("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8.0]}}", z, 8, "fractional offset", "not non-negative integers");
    expect_fail("{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", z, 8, "negative dim", "not a non-negative integer");
    expect_fail("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,4294967296],\"data_offsets\":[0,8]}}", z, 8, "element count overflow", "overflows");
    expect_fail("{\"a\":{\"dtype\":\"Q4\",\"shape\":[2],\"data_offsets\":[0,8]}}", z, 8, "unknown dtype", "unknown dtype 'Q4'");
    expect_fail("{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}", z, 8, "no data_offsets", "no data_offsets");
    expect_fail("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"x\":1}}", z, 8, "extra key", "keys other than");
    expect_fail("{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}", z, 4, "rank 9", "rank 9");
    expect_fail("{\"__metadata__\":{\"k\":1}}", NULL, 0, "non-string metadata", "is not a string");
    expect_fail("{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}", z, 2, "F4 with an odd count", "need 2");
    {   /* header length past the end / over 100 MB / 2^64-1; a file shorter than 8 bytes */
        unsigned char b[16] = {0};
        b[0] = 100; b[8] = '{'; b[9] = '}';
        TH_CHECK(rlx_safetensors_open_memory(b, 16, NULL, &st) == RLX_ERROR_FORMAT && strstr(rlx_file_error(), "runs past the end"), "header length past the end: %s", rlx_file_error());
        memset(b, 0xFF, 8);
        TH_CHECK(rlx_safetensors_open_memory(b, 16, NULL, &st) == RLX_ERROR_FORMAT && strstr(rlx_file_error(), "100 MB"), "header length 2^64-1: %s", rlx_file_error());
        TH_CHECK(rlx_safetensors_open_memory(b, 5, NULL, &st) == RLX_ERROR_FORMAT && strstr(rlx_file_error(), "shorter than"), "5-byte file: %s", rlx_file_error());
    }
    /* every prefix of a valid file is a format error */
    f = make_file("{\"__metadata__\":{\"a\":\"b\"},\"w\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]},\"v\":{\"dtype\":\"I8\",\"shape\":[3],\"data_offsets\":[16,19]}}", z, 19, &full);
    TH_CHECK(rlx_safetensors_open_memory(f, full, NULL, &st) == RLX_OK, "the valid file opens: %s", rlx_file_error());
    rlx_safetensors_close(st);
    for (n = 0; n < full; n++) {
        st = NULL;
        if (rlx_safetensors_open_memory(f, n, NULL, &st) != RLX_ERROR_FORMAT || st) bad++;
        rlx_safetensors_close(st);
    }
    TH_CHECK(bad == 0, "all %lu shorter prefixes are format errors (%d were not)", (unsigned long)full, bad);
    free(f);
    TH_CHECK(rlx_safetensors_open_memory(NULL, 3, NULL, &st) == RLX_ERROR_INVALID_ARGUMENT, "NULL data");
    TH_CHECK(rlx_safetensors_open_file("build/no/such.safetensors", NULL, &st) == RLX_ERROR_IO, "missing file: %s", rlx_file_error());
    TH_CHECK(rlx_safetensors_tensor_count(NULL) == 0 && rlx_safetensors_metadata_find(NULL, "a") == NULL, "NULL handle queries");
}

int main(void) {
    test_hand_made();
    test_writer();
    test_sharded();
    test_hostile();
    return th_summary("safetensors");
}
