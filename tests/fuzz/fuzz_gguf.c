/* libFuzzer target for the GGUF reader (>>gguf): opens the input from memory, walks every metadata value (nested
   arrays included) and every tensor (reading each of its bytes), binds the tensors to a CPU store, then writes
   the parsed content again with rlx's GGUF writer and reads that back: the second file must open and hold the
   same number of keys and tensors. Contract: RLX_OK, or RLX_ERROR_FORMAT / RLX_ERROR_OUT_OF_MEMORY with a
   message; nothing left allocated. Build: make fuzz-gguf (see the Makefile). */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links one instrumented implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "fuzz_weights.h"

static unsigned fz_sink;

static size_t elem_size(rlx_gguf_type t) {
    switch (t) {
    case RLX_GGUF_U8: case RLX_GGUF_I8: case RLX_GGUF_BOOL: return 1;
    case RLX_GGUF_U16: case RLX_GGUF_I16: return 2;
    case RLX_GGUF_U32: case RLX_GGUF_I32: case RLX_GGUF_F32: return 4;
    case RLX_GGUF_U64: case RLX_GGUF_I64: case RLX_GGUF_F64: return 8;
    default: return 0;
    }
}

/* Checks one value and writes it again through w (NULL: only check). */
static void walk(const rlx_gguf* g, const rlx_gguf_value* v, rlx_gguf_writer* w, const char* key, int depth) {
    uint64_t i, n;
    rlx_gguf_value e;
    FZ_ASSERT(depth <= 17, "nesting bound");
    if (v->type == RLX_GGUF_STRING) {
        FZ_ASSERT(v->str != NULL && v->str[v->count] == 0, "string value");
        fz_sink += (unsigned)v->count + (v->count ? (unsigned char)v->str[v->count - 1] : 0u);
        if (w) rlx_gguf_writer_string(w, key, v->str, (size_t)v->count);
        return;
    }
    if (v->type != RLX_GGUF_ARRAY) {
        if (w) {
            uint8_t u8 = (uint8_t)v->u64; uint16_t u16 = (uint16_t)v->u64; uint32_t u32 = (uint32_t)v->u64;
            float f = (float)v->f64;
            const void* p = &v->u64;
            switch (v->type) {
            case RLX_GGUF_U8: case RLX_GGUF_I8: case RLX_GGUF_BOOL: p = &u8; break;
            case RLX_GGUF_U16: case RLX_GGUF_I16: p = &u16; break;
            case RLX_GGUF_U32: case RLX_GGUF_I32: p = &u32; break;
            case RLX_GGUF_F32: p = &f; break;
            case RLX_GGUF_F64: p = &v->f64; break;
            default: break;
            }
            FZ_ASSERT(rlx_gguf_writer_kv(w, key, v->type, p) == RLX_OK, "scalar written back");
        }
        return;
    }
    n = v->count;
    FZ_ASSERT(rlx_gguf_array_get(g, v, n, &e) == RLX_ERROR_INVALID_ARGUMENT, "index past the end refused");
    if (elem_size(v->array_type)) {   /* numbers: check some elements, write the packed data back */
        size_t es = elem_size(v->array_type);
        unsigned char* tmp;
        FZ_ASSERT(v->data != NULL, "packed data");
        for (i = 0; i < n && i < 64; i++) {
            FZ_ASSERT(rlx_gguf_array_get(g, v, i, &e) == RLX_OK && e.type == v->array_type, "array element");
            FZ_ASSERT(e.type != RLX_GGUF_BOOL || e.u64 <= 1, "bool 0 or 1");
        }
        if (w) {
            tmp = (unsigned char*)malloc((size_t)n * es + 1);
            if (n) memcpy(tmp, v->data, (size_t)n * es);
            FZ_ASSERT(rlx_gguf_writer_array(w, key, v->array_type, tmp, n) == RLX_OK, "array written back");
            free(tmp);
        }
        return;
    }
    if (w) FZ_ASSERT(rlx_gguf_writer_begin_array(w, key, v->array_type, n) == RLX_OK, "begin_array");
    for (i = 0; i < n; i++) {
        FZ_ASSERT(rlx_gguf_array_get(g, v, i, &e) == RLX_OK && e.type == v->array_type, "array element");
        walk(g, &e, w, NULL, depth + 1);
    }
    if (w) FZ_ASSERT(rlx_gguf_writer_end_array(w) == RLX_OK, "end_array");
}

int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
    rlx_file_desc fd;
    rlx_gguf* g = NULL;
    rlx_result rc;
    unsigned char* copy = (unsigned char*)malloc(size ? size : 1);
    int i;
    memcpy(copy, data, size);
    memset(&fd, 0, sizeof fd);
    fd.allocator.alloc = fz_alloc;
    fd.allocator.free = fz_free;
    rc = rlx_gguf_open_memory(copy, size, &fd, &g);
    if (rc != RLX_OK) {
        FZ_ASSERT(g == NULL, "no handle on failure");
        FZ_ASSERT(rc == RLX_ERROR_FORMAT || rc == RLX_ERROR_OUT_OF_MEMORY, "format or memory error");
        FZ_ASSERT(rlx_file_error()[0] != 0, "a message");
    } else {
        rlx_gguf_writer* w = NULL;
        rlx_gguf_writer_desc wd;
        rlx_store* s = NULL;
        rlx_store_desc sd;
        memset(&wd, 0, sizeof wd);
        wd.allocator = fd.allocator;
        wd.alignment = rlx_gguf_alignment(g);
        FZ_ASSERT(rlx_gguf_writer_create(&wd, &w) == RLX_OK, "writer");
        for (i = 0; i < rlx_gguf_kv_count(g); i++) {
            const char* key;
            rlx_gguf_value v;
            FZ_ASSERT(rlx_gguf_kv(g, i, &key, &v) == RLX_OK && key && key[0], "kv");
            FZ_ASSERT(rlx_gguf_find(g, key) == i, "find the key");
            walk(g, &v, strcmp(key, "general.alignment") == 0 ? NULL : w, key, 0);
        }
        for (i = 0; i < rlx_gguf_tensor_count(g); i++) {
            rlx_gguf_tensor_info t;
            size_t k;
            FZ_ASSERT(rlx_gguf_tensor(g, i, &t) == RLX_OK, "tensor");
            FZ_ASSERT(rlx_gguf_find_tensor(g, t.name) == i, "find the tensor");
            FZ_ASSERT((t.bytes == 0 && t.data == NULL) || (const unsigned char*)t.data >= copy && t.bytes <= size && (size_t)((const unsigned char*)t.data - copy) <= size - t.bytes, "tensor inside the file");
            for (k = 0; k < t.bytes; k++) fz_sink += ((const unsigned char*)t.data)[k];
            rlx_gguf_writer_tensor(w, t.name, t.ggml_type, t.rank, t.shape, t.data, t.bytes);
        }
        {   /* the file rlx writes from it must open with the same counts */
            size_t n2 = 0;
            if (rlx_gguf_writer_size(w, &n2) == RLX_OK && n2 <= ((size_t)64 << 20)) {
                unsigned char* b2 = (unsigned char*)malloc(n2);
                rlx_gguf* g2 = NULL;
                FZ_ASSERT(rlx_gguf_writer_write_memory(w, b2, n2) == RLX_OK, "write");
                FZ_ASSERT(rlx_gguf_open_memory(b2, n2, &fd, &g2) == RLX_OK, "rlx reads what it wrote");
                FZ_ASSERT(rlx_gguf_kv_count(g2) == rlx_gguf_kv_count(g) - (rlx_gguf_find(g, "general.alignment") >= 0 ? 1 : 0) + (rlx_gguf_alignment(g) != 32 ? 1 : 0), "same key count");
                FZ_ASSERT(rlx_gguf_tensor_count(g2) == rlx_gguf_tensor_count(g), "same tensor count");
                rlx_gguf_close(g2);
                free(b2);
            }
        }
        rlx_gguf_writer_destroy(w);
        memset(&sd, 0, sizeof sd);
        sd.device = RLX_DEVICE_CPU;
        sd.allocator = fd.allocator;
        if (rlx_store_create(&sd, &s) == RLX_OK) {
            rlx_gguf_store(g, s, 1, NULL);
            rlx_gguf_close(g);   /* the store may outlive the handle */
            rlx_store_destroy(s);
        } else rlx_gguf_close(g);
    }
    FZ_ASSERT(fz_live == 0, "nothing left allocated");
    free(copy);
    return 0;
}
