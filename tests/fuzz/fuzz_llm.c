/* libFuzzer target for the language-model builder (>>llm): the input chooses a small model (architecture among
   the supported ones and some others, layer count, widths, head counts, key and value lengths, rope
   dimensions, tensor types, which keys and tensors are missing or carry odd values, which tensor gets a wrong
   shape), which is written as GGUF by rlx's writer and given to rlx_llm_load_gguf with a counting allocator;
   a model that loads then runs a few token sequences (ids from the input, valid or not, past the context or
   not) and is reset. Contract: every call returns RLX_OK or an error with a non-empty message; logits are
   finite (for float weights); the position only grows by the tokens of successful runs; nothing stays allocated after destroy.
   Build and run: make fuzz-llm (see the Makefile). */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links one instrumented implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "fuzz_weights.h"

#include <math.h>

typedef struct fz_in { const unsigned char* p; size_t n, i; } fz_in;
static unsigned fz_byte(fz_in* in) { return in->i < in->n ? in->p[in->i++] : 0u; }
static int fz_pick(fz_in* in, int n) { return (int)(fz_byte(in) % (unsigned)n); }

static const char* const archs[] = {"llama", "qwen2", "qwen3", "gemma2", "gemma3", "phi3", "gemma4", "mamba", ""};
static const uint32_t wtypes[] = {0, 1, 2, 8, 12, 14, 30, 26};   /* f32 f16 q4_0 q8_0 q4_K q6_K bf16 i32 */

static unsigned char fz_pool[1 << 20];
static size_t fz_pool_used;

/* rows × cols bytes of ggml type t from the pool (values: a pattern, f32 ones are small finite numbers) */
static const void* fz_data(uint32_t t, int64_t rows, int64_t cols, size_t* bytes) {
    size_t be = rlx_ggml_block_size(t), ts = rlx_ggml_type_size(t), n, i;
    if (!be || cols % (int64_t)be) return NULL;
    n = (size_t)(rows * (cols / (int64_t)be)) * ts;
    if (n > sizeof fz_pool - fz_pool_used) return NULL;
    *bytes = n;
    for (i = 0; i < n; i++) {
        unsigned char v = (unsigned char)(i * 37u + 11u);
        fz_pool[fz_pool_used + i] = t == 0 && i % 4 == 3 ? (unsigned char)(0x3Cu + (v & 1u)) : v;  /* f32 ~ 0.01..0.03 */
    }
    if (t == 1 || t == 30)   /* f16 / bf16: keep exponents small */
        for (i = 1; i < n; i += 2) fz_pool[fz_pool_used + i] = t == 1 ? 0x20 : 0x3C;
    fz_pool_used += n;
    return fz_pool + fz_pool_used - n;
}

int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
    fz_in in;
    rlx_allocator al;
    rlx_gguf_writer* w = NULL;
    rlx_gguf* gf = NULL;
    rlx_llm* m = NULL;
    rlx_llm_desc d;
    rlx_file_desc fd;
    char err[512], key[96], name[96];
    const char* arch;
    void* file = NULL;
    size_t fsize = 0;
    int nl, dm, nh, nkv, hd, ff, nrot, vocab, l, j, drop, bad, k;
    uint32_t wt, u;
    float f;
    rlx_result r;
    in.p = data; in.n = size; in.i = 0;
    fz_pool_used = 0;
    memset(&al, 0, sizeof al);
    al.alloc = fz_alloc; al.free = fz_free;

    arch = archs[fz_pick(&in, (int)(sizeof archs / sizeof archs[0]))];
    nl = 1 + fz_pick(&in, 3);
    nh = 1 + fz_pick(&in, 4);
    nkv = 1 + fz_pick(&in, 4);
    hd = 2 * (1 + fz_pick(&in, 16));
    dm = 32 * (1 + fz_pick(&in, 2));
    ff = 32 * (1 + fz_pick(&in, 3));
    nrot = 2 * fz_pick(&in, hd / 2 + 2);
    vocab = 1 + fz_pick(&in, 40);
    wt = wtypes[fz_pick(&in, (int)(sizeof wtypes / sizeof wtypes[0]))];
    drop = fz_pick(&in, 64);    /* a key or tensor to leave out (most values: none) */
    bad = fz_pick(&in, 64);     /* a tensor written one row too long (most values: none) */
    if (rlx_gguf_writer_create(NULL, &w) != RLX_OK) return 0;
    rlx_gguf_writer_string(w, "general.architecture", arch, strlen(arch));
#define KVU(i_, k_, v_) do { if (drop != (i_)) { snprintf(key, sizeof key, "%s.%s", arch, k_); u = (uint32_t)(v_); rlx_gguf_writer_kv(w, key, RLX_GGUF_U32, &u); } } while (0)
    KVU(1, "block_count", fz_pick(&in, 8) == 0 ? 100000u + fz_byte(&in) : (unsigned)nl);
    KVU(2, "embedding_length", dm);
    KVU(3, "feed_forward_length", ff);
    KVU(4, "attention.head_count", nh);
    KVU(5, "attention.head_count_kv", nkv);
    KVU(6, "attention.key_length", hd);
    KVU(7, "attention.value_length", fz_pick(&in, 4) == 0 ? hd + 2 : hd);
    KVU(8, "rope.dimension_count", nrot);
    KVU(9, "context_length", fz_pick(&in, 4) == 0 ? 0xFFFFFFFFu : 16u + fz_byte(&in));
    KVU(10, "attention.sliding_window", fz_byte(&in));
    if (drop != 11) {
        snprintf(key, sizeof key, "%s.attention.layer_norm_rms_epsilon", arch);
        f = fz_pick(&in, 8) == 0 ? -1.0f : 1e-5f;
        rlx_gguf_writer_kv(w, key, RLX_GGUF_F32, &f);
    }
    if (fz_pick(&in, 4) == 0) {
        static const char* const sc[] = {"linear", "yarn", "none", "x"};
        const char* st = sc[fz_pick(&in, 4)];
        snprintf(key, sizeof key, "%s.rope.scaling.type", arch);
        rlx_gguf_writer_string(w, key, st, strlen(st));
        snprintf(key, sizeof key, "%s.rope.scaling.factor", arch);
        f = (float)fz_byte(&in) / 16.0f;
        rlx_gguf_writer_kv(w, key, RLX_GGUF_F32, &f);
    }
#undef KVU
    {
        /* tensors: name, rows, cols (0 = an f32 vector), per layer or global */
        struct tdef { const char* n; int64_t r, c; int layer; } td[24];
        int nt = 0, q = nh * hd, kk = nkv * hd;
        td[nt].n = "token_embd.weight"; td[nt].r = vocab; td[nt].c = dm; td[nt++].layer = 0;
        td[nt].n = "output_norm.weight"; td[nt].r = dm; td[nt].c = 0; td[nt++].layer = 0;
        if (fz_pick(&in, 2)) { td[nt].n = "output.weight"; td[nt].r = vocab; td[nt].c = dm; td[nt++].layer = 0; }
        td[nt].n = "attn_norm.weight"; td[nt].r = dm; td[nt].c = 0; td[nt++].layer = 1;
        if (strcmp(arch, "phi3") == 0 && fz_pick(&in, 2)) { td[nt].n = "attn_qkv.weight"; td[nt].r = q + 2 * kk; td[nt].c = dm; td[nt++].layer = 1; }
        else {
            td[nt].n = "attn_q.weight"; td[nt].r = q; td[nt].c = dm; td[nt++].layer = 1;
            td[nt].n = "attn_k.weight"; td[nt].r = kk; td[nt].c = dm; td[nt++].layer = 1;
            td[nt].n = "attn_v.weight"; td[nt].r = kk; td[nt].c = dm; td[nt++].layer = 1;
        }
        td[nt].n = "attn_output.weight"; td[nt].r = dm; td[nt].c = q; td[nt++].layer = 1;
        td[nt].n = "ffn_norm.weight"; td[nt].r = dm; td[nt].c = 0; td[nt++].layer = 1;
        if (strcmp(arch, "phi3") == 0) { td[nt].n = "ffn_up.weight"; td[nt].r = 2 * ff; td[nt].c = dm; td[nt++].layer = 1; }
        else {
            td[nt].n = "ffn_gate.weight"; td[nt].r = ff; td[nt].c = dm; td[nt++].layer = 1;
            td[nt].n = "ffn_up.weight"; td[nt].r = ff; td[nt].c = dm; td[nt++].layer = 1;
        }
        td[nt].n = "ffn_down.weight"; td[nt].r = dm; td[nt].c = ff; td[nt++].layer = 1;
        td[nt].n = "attn_q.bias"; td[nt].r = q; td[nt].c = 0; td[nt++].layer = 1;
        td[nt].n = "attn_k.bias"; td[nt].r = kk; td[nt].c = 0; td[nt++].layer = 1;
        td[nt].n = "attn_v.bias"; td[nt].r = kk; td[nt].c = 0; td[nt++].layer = 1;
        td[nt].n = "attn_q_norm.weight"; td[nt].r = hd; td[nt].c = 0; td[nt++].layer = 1;
        td[nt].n = "attn_k_norm.weight"; td[nt].r = hd; td[nt].c = 0; td[nt++].layer = 1;
        td[nt].n = "post_attention_norm.weight"; td[nt].r = dm; td[nt].c = 0; td[nt++].layer = 1;
        td[nt].n = "post_ffw_norm.weight"; td[nt].r = dm; td[nt].c = 0; td[nt++].layer = 1;
        if (fz_pick(&in, 8) == 0) { td[nt].n = "rope_freqs.weight"; td[nt].r = nrot / 2 > 0 ? nrot / 2 : 1; td[nt].c = 0; td[nt++].layer = 0; }
        for (j = 0, k = 0; j < nt; j++)
            for (l = 0; l < (td[j].layer ? nl : 1); l++, k++) {
                int64_t s[2];
                size_t bytes = 0;
                uint32_t t = td[j].c ? wt : 0;
                const void* p;
                if (drop == 16 + k) continue;
                s[0] = td[j].r + (bad == 16 + k ? 1 : 0); s[1] = td[j].c;
                if (td[j].layer) snprintf(name, sizeof name, "blk.%d.%s", l, td[j].n);
                else snprintf(name, sizeof name, "%s", td[j].n);
                p = fz_data(t, s[0], td[j].c ? s[1] : 1, &bytes);
                if (!p) { t = 0; p = fz_data(0, s[0], td[j].c ? s[1] : 1, &bytes); }
                if (p) rlx_gguf_writer_tensor(w, name, t, td[j].c ? 2 : 1, td[j].c ? s : s, p, bytes);
            }
    }
    if (rlx_gguf_writer_size(w, &fsize) == RLX_OK && (file = malloc(fsize)) != NULL &&
        rlx_gguf_writer_write_memory(w, file, fsize) == RLX_OK) {
        memset(&fd, 0, sizeof fd);
        fd.allocator = al;
        if (rlx_gguf_open_memory(file, fsize, &fd, &gf) == RLX_OK) {
            memset(&d, 0, sizeof d);
            d.device = RLX_DEVICE_CPU;
            d.n_ctx = fz_pick(&in, 4) == 0 ? 0 : 1 + fz_pick(&in, 32);
            d.n_batch = fz_pick(&in, 12);
            d.num_threads = 1 + fz_pick(&in, 2);
            d.kv_dtype = fz_pick(&in, 2) ? RLX_F16 : RLX_DTYPE_INVALID;
            d.allocator = al;
            d.error = err; d.error_cap = sizeof err;
            err[0] = 0;
            r = rlx_llm_load_gguf(gf, &d, &m);
            FZ_ASSERT((r == RLX_OK) == (m != NULL), "out set exactly on success");
            FZ_ASSERT(r == RLX_OK || err[0] != 0, "a failed load says why");
            rlx_gguf_close(gf);
            if (m) {
                int32_t toks[48];
                float* lg = (float*)malloc(sizeof(float) * (size_t)rlx_llm_n_vocab(m));
                int runs = 1 + fz_pick(&in, 4), n, pos;
                for (j = 0; j < runs && lg; j++) {
                    n = fz_pick(&in, 48);
                    for (k = 0; k < n; k++) toks[k] = fz_pick(&in, 32) == 0 ? (int32_t)(vocab + fz_pick(&in, 3)) - 1 : fz_pick(&in, vocab);
                    pos = rlx_llm_pos(m);
                    r = rlx_llm_eval(m, toks, n, lg);
                    FZ_ASSERT(r == RLX_OK || rlx_llm_error(m)[0] != 0, "a failed eval says why");
                    if (r == RLX_OK) {
                        FZ_ASSERT(rlx_llm_pos(m) == pos + n, "position advances by n");
                        if (wt == 0 || wt == 1 || wt == 30)   /* float weights of small finite values (block
                                                                  scales are arbitrary bytes, maybe inf) */
                            for (k = 0; k < rlx_llm_n_vocab(m); k++) FZ_ASSERT(isfinite(lg[k]), "finite logits");
                    } else if (r == RLX_ERROR_OUT_OF_RANGE || r == RLX_ERROR_INVALID_ARGUMENT) {
                        FZ_ASSERT(rlx_llm_pos(m) == pos, "a refused eval runs nothing");
                    }
                    if (fz_pick(&in, 4) == 0) rlx_llm_reset(m);
                }
                free(lg);
                rlx_llm_destroy(m);
            }
        }
    }
    rlx_gguf_writer_destroy(w);
    free(file);
    FZ_ASSERT(fz_live == 0, "everything freed");
    return 0;
}
