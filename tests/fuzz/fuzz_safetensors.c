/* libFuzzer target for the safetensors reader (>>safetensors, >>json): opens the input from memory, walks every
   tensor (reading each of its bytes) and the metadata, binds to a CPU store, then writes the bindable tensors
   and the metadata again with rlx's writer and reads that back (same metadata count, same tensors). Contract:
   RLX_OK, or RLX_ERROR_FORMAT / RLX_ERROR_OUT_OF_MEMORY with a message; nothing left allocated. The input is
   taken as the whole file, header length included. Build: make fuzz-safetensors. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links one instrumented implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "fuzz_weights.h"

static unsigned fz_sink;

int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
    rlx_file_desc fd;
    rlx_safetensors* st = NULL;
    rlx_result rc;
    unsigned char* copy = (unsigned char*)malloc(size ? size : 1);
    int i, written = 0;
    memcpy(copy, data, size);
    memset(&fd, 0, sizeof fd);
    fd.allocator.alloc = fz_alloc;
    fd.allocator.free = fz_free;
    rc = rlx_safetensors_open_memory(copy, size, &fd, &st);
    if (rc != RLX_OK) {
        FZ_ASSERT(st == NULL, "no handle on failure");
        FZ_ASSERT(rc == RLX_ERROR_FORMAT || rc == RLX_ERROR_OUT_OF_MEMORY, "format or memory error");
        FZ_ASSERT(rlx_file_error()[0] != 0, "a message");
    } else {
        rlx_safetensors_writer* w = NULL;
        rlx_store* s = NULL;
        rlx_store_desc sd;
        FZ_ASSERT(rlx_safetensors_writer_create(&fd.allocator, &w) == RLX_OK, "writer");
        for (i = 0; i < rlx_safetensors_metadata_count(st); i++) {
            const char *k, *v;
            FZ_ASSERT(rlx_safetensors_metadata(st, i, &k, &v) == RLX_OK && k && v, "metadata");
            FZ_ASSERT(rlx_safetensors_metadata_find(st, k) != NULL, "find metadata");
            /* keys/values with NUL bytes cannot be written back as C strings; duplicates were refused */
            rlx_safetensors_writer_metadata(w, k, v);
        }
        for (i = 0; i < rlx_safetensors_tensor_count(st); i++) {
            rlx_safetensors_tensor_info t;
            size_t k;
            FZ_ASSERT(rlx_safetensors_tensor(st, i, &t) == RLX_OK, "tensor");
            FZ_ASSERT(rlx_safetensors_find_tensor(st, t.name) == i, "find the tensor");
            FZ_ASSERT(t.rank >= 0 && t.rank <= RLX_MAX_RANK, "rank");
            FZ_ASSERT(t.bytes == 0 || ((const unsigned char*)t.data >= copy && t.bytes <= size && (size_t)((const unsigned char*)t.data - copy) <= size - t.bytes), "tensor inside the file");
            for (k = 0; k < t.bytes; k++) fz_sink += ((const unsigned char*)t.data)[k];
            if (t.dtype != RLX_DTYPE_INVALID && rlx_safetensors_writer_tensor(w, t.name, t.dtype, t.rank, t.shape, t.data) == RLX_OK) written++;
        }
        {
            size_t n2 = 0;
            if (rlx_safetensors_writer_size(w, &n2) == RLX_OK && n2 <= ((size_t)64 << 20)) {
                unsigned char* b2 = (unsigned char*)malloc(n2);
                rlx_safetensors* st2 = NULL;
                FZ_ASSERT(rlx_safetensors_writer_write_memory(w, b2, n2) == RLX_OK, "write");
                FZ_ASSERT(rlx_safetensors_open_memory(b2, n2, &fd, &st2) == RLX_OK, "rlx reads what it wrote");
                FZ_ASSERT(rlx_safetensors_tensor_count(st2) == written, "same tensors");
                for (i = 0; i < rlx_safetensors_tensor_count(st2); i++) {
                    rlx_safetensors_tensor_info a, b;
                    rlx_safetensors_tensor(st2, i, &b);
                    FZ_ASSERT(rlx_safetensors_tensor(st, rlx_safetensors_find_tensor(st, b.name), &a) == RLX_OK, "name kept");
                    FZ_ASSERT(a.bytes == b.bytes && (a.bytes == 0 || memcmp(a.data, b.data, a.bytes) == 0), "bytes kept");
                }
                rlx_safetensors_close(st2);
                free(b2);
            }
        }
        rlx_safetensors_writer_destroy(w);
        memset(&sd, 0, sizeof sd);
        sd.device = RLX_DEVICE_CPU;
        sd.allocator = fd.allocator;
        if (rlx_store_create(&sd, &s) == RLX_OK) {
            rlx_safetensors_store(st, s, 1, NULL);
            rlx_safetensors_close(st);
            rlx_store_destroy(s);
        } else rlx_safetensors_close(st);
    }
    FZ_ASSERT(fz_live == 0, "nothing left allocated");
    free(copy);
    return 0;
}
