/* Fuzzer for the ONNX loader and importer (>>onnx).

   The input is the bytes of an .onnx file. Each is loaded from memory (rlx_onnx_load_memory), every dynamic
   input dim is bound to 2, the graph is imported (rlx_onnx_graph), the initializers go to a CPU store
   (rlx_onnx_store) and the graph is compiled on the CPU with one thread; a program whose arena and weights
   are small (<= 64 KiB) is also run with every input set. All memory goes through an allocator with a fixed
   budget (256 MiB), so huge but valid shapes exercise the out-of-memory paths instead of the machine.

   The contract checked after every call: it succeeds, or it returns a negative rlx_result AND a non-empty
   message. Anything else aborts (a finding), and so do the sanitizers.

   Builds:
     libFuzzer:   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_onnx.c -lm -lpthread -ldl
                  (make fuzz-onnx FUZZ_SECONDS=N)
     replay:      cc -DRLX_FUZZ_STANDALONE -I. tests/fuzz/fuzz_onnx.c -lm -lpthread -ldl && ./a.out FILE...
     in a test:   tests/test_onnx.c includes this file and replays tests/fuzz/onnx_regress and onnx_corpus. */
#if !defined(RLX_IMPLEMENTATION) && !defined(RLX_TEST_SHARED_IMPL)
#  define RLX_IMPLEMENTATION
#endif
#include "rlx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FZ_BUDGET ((size_t)256 << 20)
static size_t fz_used;
static void* fz_alloc(size_t n, void* u) {
    size_t* p;
    (void)u;
    if (n > FZ_BUDGET - fz_used) return NULL;
    p = (size_t*)malloc(n + 16);
    if (!p) return NULL;
    p[0] = n;
    fz_used += n;
    return (char*)p + 16;
}
static void fz_free(void* q, void* u) {
    size_t* p;
    (void)u;
    if (!q) return;
    p = (size_t*)((char*)q - 16);
    fz_used -= p[0];
    free(p);
}

static void fz_check(const char* what, rlx_result rc, const char* msg) {
    if (rc == RLX_OK) return;
    if ((int)rc >= 0 || !msg || !msg[0]) {
        fprintf(stderr, "contract violation: %s returned %d with message '%s'\n", what, (int)rc, msg ? msg : "(null)");
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    rlx_onnx_load_desc ld;
    rlx_onnx_model* m = NULL;
    rlx_graph* g = NULL;
    rlx_store* s = NULL;
    rlx_program* p = NULL;
    rlx_onnx_dim dims[64];
    rlx_onnx_graph_desc gd;
    rlx_store_desc sd;
    rlx_compile_desc cd;
    char err[512];
    rlx_result rc;
    int i, a, nd = 0, ni;
    memset(&ld, 0, sizeof ld);
    ld.allocator.alloc = fz_alloc; ld.allocator.free = fz_free;
    ld.error = err; ld.error_cap = sizeof err;
    err[0] = 0;
    rc = rlx_onnx_load_memory(data, size, &ld, &m);
    fz_check("rlx_onnx_load_memory", rc, err);
    if (rc != RLX_OK) { if (m) abort(); goto done; }
    ni = rlx_onnx_input_count(m);
    for (i = 0; i < ni; i++) {
        rlx_onnx_value_info vi;
        if (rlx_onnx_input(m, i, &vi) != RLX_OK) abort();
        for (a = 0; a < vi.rank && nd < 64; a++)
            if (vi.dims[a] < 0) { dims[nd].name = NULL; dims[nd].input = vi.name; dims[nd].axis = a; dims[nd].value = 2; nd++; }
    }
    memset(&gd, 0, sizeof gd);
    gd.dims = dims; gd.num_dims = nd;
    rc = rlx_onnx_graph(m, &gd, &g);
    fz_check("rlx_onnx_graph", rc, rlx_onnx_error(m));
    if (rc != RLX_OK) { if (g) abort(); goto done; }
    memset(&sd, 0, sizeof sd);
    sd.device = RLX_DEVICE_CPU;
    sd.allocator = ld.allocator;
    rc = rlx_onnx_store(m, &sd, &s);
    fz_check("rlx_onnx_store", rc, rlx_onnx_error(m));
    if (rc != RLX_OK) goto done;
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    cd.num_threads = 1;
    cd.store = s;
    rc = rlx_compile(g, &cd, &p);
    fz_check("rlx_compile", rc, rlx_graph_error(g));
    if (rc == RLX_OK) {
        rlx_plan_info pi;
        if (rlx_program_plan(p, &pi) == RLX_OK && pi.arena_bytes + pi.weight_bytes <= 65536) {
            for (i = 0; i < ni; i++) {
                rlx_onnx_value_info vi;
                float buf[4096];
                size_t cnt = 1;
                int k;
                rlx_onnx_input(m, i, &vi);
                for (a = 0; a < vi.rank; a++) cnt *= (size_t)(vi.dims[a] < 0 ? 2 : vi.dims[a] == 0 ? 1 : vi.dims[a]);
                if (cnt > 4096) continue;
                for (k = 0; k < (int)cnt; k++) buf[k] = (float)((k * 7) % 11) * 0.25f - 1.0f;
                rc = rlx_set_input(p, vi.name, RLX_F32, buf, cnt * sizeof(float));
                fz_check("rlx_set_input", rc, rlx_program_error(p));
            }
            rc = rlx_run(p);
            fz_check("rlx_run", rc, rlx_program_error(p));
        }
    }
done:
    rlx_program_destroy(p);
    rlx_store_destroy(s);
    rlx_graph_destroy(g);
    rlx_onnx_destroy(m);
    if (fz_used != 0) { fprintf(stderr, "%zu bytes still allocated after one input\n", fz_used); abort(); }
    return 0;
}

#if defined(RLX_FUZZ_STANDALONE)
int main(int argc, char** argv) {
    int i;
    for (i = 1; i < argc; i++) {
        FILE* f = fopen(argv[i], "rb");
        long n;
        unsigned char* d;
        if (!f) { fprintf(stderr, "cannot open %s\n", argv[i]); return 1; }
        fseek(f, 0, SEEK_END); n = ftell(f); fseek(f, 0, SEEK_SET);
        d = (unsigned char*)malloc(n > 0 ? (size_t)n : 1);
        if (n > 0 && fread(d, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(d); return 1; }
        fclose(f);
        LLVMFuzzerTestOneInput(d, (size_t)(n > 0 ? n : 0));
        free(d);
        printf("ok %s\n", argv[i]);
    }
    return 0;
}
#endif
