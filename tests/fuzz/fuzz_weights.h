/* Shared by the weight-file fuzzers (fuzz_gguf.c, fuzz_safetensors.c): an allocator that refuses more than
   64 MiB at once and counts what is live (so a leak or an allocation out of proportion to the input shows),
   and the standalone replay main (RLX_FUZZ_STANDALONE: run the inputs given as files, without libFuzzer). */
#ifndef RLX_FUZZ_WEIGHTS_H
#define RLX_FUZZ_WEIGHTS_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long fz_live;
static size_t fz_peak_request;
static void* fz_alloc(size_t n, void* u) {
    size_t* p;
    (void)u;
    if (n > ((size_t)64 << 20)) return NULL;
    if (n > fz_peak_request) fz_peak_request = n;
    p = (size_t*)malloc(n + 16);
    if (!p) return NULL;
    p[0] = n;
    fz_live++;
    return (char*)p + 16;
}
static void fz_free(void* q, void* u) {
    (void)u;
    if (!q) return;
    fz_live--;
    free((char*)q - 16);
}
#define FZ_ASSERT(c, what) do { if (!(c)) { fprintf(stderr, "contract violated: %s\n", what); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size);

#if defined(RLX_FUZZ_STANDALONE)
int main(int argc, char** argv) {
    int i;
    for (i = 1; i < argc; i++) {
        FILE* f = fopen(argv[i], "rb");
        unsigned char* buf;
        long n;
        if (!f) { fprintf(stderr, "cannot open %s\n", argv[i]); return 1; }
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        fseek(f, 0, SEEK_SET);
        buf = (unsigned char*)malloc((size_t)n + 1);
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(buf); return 1; }
        fclose(f);
        LLVMFuzzerTestOneInput(buf, (size_t)n);
        printf("%s: ok\n", argv[i]);
        free(buf);
    }
    return 0;
}
#endif
#endif
