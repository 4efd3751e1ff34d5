/* Writes the seed corpus of the API fuzzer: small valid programs in the bytecode of tests/fuzz/fuzz_ops.h.

     cc -I. -o build/make_seeds tests/fuzz/make_seeds.c && build/make_seeds tests/fuzz/corpus

   Every seed builds one or two valid graphs (matmul, conv, pooling, attention, ...), compiles and runs them with
   correct inputs, so the fuzzer starts from programs that reach the kernels. */
#include "fuzz_ops.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t buf[4096];
static size_t len;

static void b(int v) { if (len < sizeof buf) buf[len++] = (uint8_t)v; }
static void op(int o) { b(o); }
/* encoders, the inverses of the decoders in fuzz_api.c */
static void dim(int d) {
    if (d >= 1 && d <= 8) b(d - 1);
    else if (d % 16 == 0 && d / 16 < 32) b(0xC0 + d / 16);
    else { fprintf(stderr, "dim %d cannot be encoded\n", d); exit(1); }
}
static void i32(int v) {
    if (v < -16 || v > 207) { fprintf(stderr, "int %d cannot be encoded\n", v); exit(1); }
    b(v + 16);
}
static void axis(int a) { b(a + 10); }
enum { F32 = 1, F16, BF16, F64, I8, I16, I32, I64, U8, U32, BOOL };
static void dtype(int k) { b(k == F32 ? 0 : 0x80 + ((k - 8 + 12) % 12)); }
static void t(int back) { b(back); }            /* 0 = the last tensor created */
static void opt(int back) { b(back < 0 ? 0 : 0x20 + back); }
static void name(void) { b(0); }
static void flt(void) { b(0); }                  /* the op's default */
static void shape(int rank, const int* d) { int i; b(rank); for (i = 0; i < rank; i++) dim(d[i]); }
#define SHAPE(...) do { const int s_[] = {__VA_ARGS__}; shape((int)(sizeof s_ / sizeof s_[0]), s_); } while (0)
static void shape0(void) { b(0); }

static void input(int dt) { op(FZ_INPUT); name(); dtype(dt); }
static void param(int dt) { op(FZ_PARAM); name(); dtype(dt); }
static void output(int back) { op(FZ_OUTPUT); name(); t(back); }
/* END of the graph, then the program phase: compile flags, one mode byte per source (0 = correct data), the
   NULL-argument byte, the run byte (1 = run twice), one byte per output */
static void end(int nsrc, int nout, int flags) {
    int i;
    op(FZ_END);
    b(flags);
    for (i = 0; i < nsrc; i++) b(0);
    if (nsrc) b(0);
    b(0);
    for (i = 0; i < nout; i++) b(0);
}

static void save(const char* dir, const char* fname) {
    char path[512];
    FILE* f;
    snprintf(path, sizeof path, "%s/%s", dir, fname);
    f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, len, f) != len) { fprintf(stderr, "cannot write %s\n", path); exit(1); }
    fclose(f);
    len = 0;
}

int main(int argc, char** argv) {
    const char* dir = argc > 1 ? argv[1] : "tests/fuzz/corpus";

    /* x[4,8] @ w[8,16] -> out; then gelu(x @ w + b) through rlx_linear */
    input(F32); SHAPE(4, 8);
    param(F32); SHAPE(8, 16);
    op(FZ_MATMUL); t(1); t(0);
    output(0);
    param(F32); SHAPE(16);
    op(FZ_BINARY_FN); b(0); t(1); t(0);         /* add */
    output(0);
    end(3, 2, 0);
    input(F32); SHAPE(2, 3, 8);
    param(F32); SHAPE(8, 8);
    param(F32); SHAPE(8);
    op(FZ_LINEAR); t(2); t(1); opt(0); b(2);    /* gelu */
    output(0);
    end(3, 1, 0);
    save(dir, "matmul_linear");

    /* conv 2D with bias, relu, then conv_transpose */
    input(F32); SHAPE(1, 2, 8, 8);
    param(F32); SHAPE(4, 2, 3, 3);
    param(F32); SHAPE(4);
    op(FZ_CONV); t(2); t(1); opt(0); b(0);
    i32(1); i32(1); i32(1); i32(1); i32(1); i32(1); i32(1); i32(1); i32(0); i32(0); i32(1);
    op(FZ_UNARY_FN); b(12); t(0);               /* relu */
    output(0);
    param(F32); SHAPE(4, 2, 2, 2);
    op(FZ_CONV_TRANSPOSE); t(1); t(0); opt(-1); b(0);
    i32(2); i32(2); i32(1); i32(1); i32(0); i32(0); i32(0); i32(0); i32(0); i32(0); i32(1);
    output(0);
    end(4, 2, 0);
    save(dir, "conv");

    /* conv 1D, groups 2 */
    input(F32); SHAPE(2, 4, 16);
    param(F32); SHAPE(6, 2, 3);
    op(FZ_CONV); t(1); t(0); opt(-1); b(0);
    i32(2); i32(0); i32(2); i32(0); i32(1); i32(0); i32(1); i32(0); i32(0); i32(0); i32(2);
    output(0);
    end(2, 1, 0);
    save(dir, "conv1d_groups");

    /* max pool 2x2 stride 2, avg pool 3x3 with padding, global pool, group norm, resize, pad */
    input(F32); SHAPE(1, 4, 8, 8);
    op(FZ_POOL); t(0); b(0); b(0); i32(2); i32(2); i32(2); i32(2); i32(0); i32(0); i32(0); i32(0); b(0); b(0);
    output(0);
    op(FZ_POOL); t(1); b(0); b(1); i32(3); i32(3); i32(1); i32(1); i32(1); i32(1); i32(1); i32(1); b(0); b(0);
    output(0);
    op(FZ_POOL); t(2); b(0); b(1); i32(0); i32(0); i32(0); i32(0); i32(0); i32(0); i32(0); i32(0); b(0); b(7);
    output(0);
    op(FZ_GROUP_NORM); t(3); i32(2); opt(-1); opt(-1); flt();
    output(0);
    op(FZ_RESIZE); t(4); i32(16); i32(12); b(1); b(1);
    output(0);
    op(FZ_PAD); t(5); b(0);
    i32(0); i32(0); i32(0); i32(0); i32(1); i32(2); i32(2); i32(1);
    b(1); b(0x40);                                   /* reflect */
    output(0);
    end(1, 6, 0);
    save(dir, "pool_vision");

    /* attention BSHD, 2 heads, causal; attention BHSD with GQA and kv_len */
    input(F32); SHAPE(1, 4, 16);
    input(F32); SHAPE(1, 6, 16);
    input(F32); SHAPE(1, 6, 16);
    op(FZ_ATTENTION); t(2); t(1); t(0); b(0); b(0); i32(2); i32(0); b(1); i32(0); opt(-1); opt(-1); opt(-1); flt(); flt();
    output(0);
    end(3, 1, 0);
    input(F32); SHAPE(1, 4, 3, 8);
    input(F32); SHAPE(1, 2, 5, 8);
    input(F32); SHAPE(1, 2, 5, 8);
    input(I64); shape0();
    op(FZ_ATTENTION); t(3); t(2); t(1); b(0); b(1); i32(0); i32(0); b(1); i32(2); opt(-1); opt(-1); opt(0); flt(); flt();
    output(0);
    end(4, 1, 0);
    save(dir, "attention");

    /* rope: x [1,2,4,8] BHSD, tables [16,4] */
    input(F32); SHAPE(1, 2, 4, 8);
    param(F32); SHAPE(16, 4);
    param(F32); SHAPE(16, 4);
    op(FZ_ROPE); t(2); t(1); t(0); b(0); b(0); b(1); i32(0); i32(8); opt(-1); i32(3);
    output(0);
    op(FZ_ROPE_TABLES); i32(16); i32(8); b(0x40 + 100);
    end(3, 1, 0);
    save(dir, "rope");

    /* KV cache: state [1,8,4], update [1,2,4] at an i64 offset; read the state back through attention-free ops */
    op(FZ_STATE); name(); dtype(F32); SHAPE(1, 8, 4);
    input(F32); SHAPE(1, 2, 4);
    input(I64); shape0();
    op(FZ_STATE_WRITE); t(2); t(1); axis(1); t(0);
    op(FZ_REDUCE_FN); b(0); t(0); b(1); axis(-1); b(0);
    output(0);
    end(3, 1, 1);
    save(dir, "state_write");

    /* continuous batching: state [3,8,4] written at an i64 offset per batch row; attention with kv_len [3] */
    op(FZ_STATE); name(); dtype(F32); SHAPE(3, 8, 4);
    input(F32); SHAPE(3, 2, 4);
    input(I64); SHAPE(3);
    op(FZ_STATE_WRITE); t(2); t(1); axis(1); t(0);
    output(0);
    end(3, 1, 1);
    input(F32); SHAPE(3, 2, 1, 8);
    input(F32); SHAPE(3, 1, 5, 8);
    input(F32); SHAPE(3, 1, 5, 8);
    input(I32); SHAPE(3);
    op(FZ_ATTENTION); t(3); t(2); t(1); b(0); b(1); i32(0); i32(0); b(1); i32(0); opt(-1); opt(-1); opt(0); flt(); flt();
    output(0);
    end(4, 1, 0);
    save(dir, "rows");

    /* embedding gather, layernorm, softmax, topk, sample */
    param(F32); SHAPE(16, 8);
    input(I64); SHAPE(5);
    op(FZ_GATHER); t(1); t(0); axis(0);
    param(F32); SHAPE(8);
    param(F32); SHAPE(8);
    op(FZ_LAYERNORM); t(2); opt(1); opt(0); axis(-1); flt();
    op(FZ_SOFTMAX); b(0); t(0); axis(-1);
    output(0);
    op(FZ_TOPK); t(0); i32(3); axis(-1); b(1); b(3);
    output(0);
    output(1);
    input(I64); shape0();
    op(FZ_SAMPLE); t(4); t(0); b(0); flt(); i32(4); flt(); i32(7);
    output(0);
    end(5, 4, 0);
    save(dir, "embed_norm_sample");

    /* layout: reshape, transpose, slice, concat, expand, reduce, argmax, cumsum, cast, where */
    input(F32); SHAPE(2, 3, 4);
    op(FZ_RESHAPE); t(0); SHAPE(6, 4);
    op(FZ_TRANSPOSE); t(0); b(0x40); b(0);
    op(FZ_SLICE); t(0); axis(1); i32(1); i32(2); i32(2);
    op(FZ_CONCAT); b(1); t(0); t(1); axis(1);
    output(0);
    op(FZ_EXPAND); t(0); SHAPE(3, 4, 8);
    op(FZ_REDUCE); b(40); t(0); b(2); axis(0); axis(2); b(1);   /* sum */
    output(0);
    op(FZ_ARG); b(0); t(1); axis(1); b(0);
    output(0);
    op(FZ_CUMSUM); t(2); axis(-1); b(1); b(0);
    op(FZ_CAST); t(0); dtype(F16);
    output(0);
    op(FZ_BINARY_FN); b(9); t(5); t(5);         /* lt -> bool */
    op(FZ_WHERE); t(0); t(6); t(6);
    output(0);
    end(1, 5, 0);
    save(dir, "layout_reduce");

    /* fused ops: add_rmsnorm with sum_out, swiglu, geglu, integer arithmetic */
    input(F32); SHAPE(2, 8);
    input(F32); SHAPE(2, 8);
    param(F32); SHAPE(8);
    op(FZ_ADD_RMSNORM); t(2); t(1); opt(0); opt(-1); flt(); b(1);
    output(0);
    output(1);
    op(FZ_GLU); b(0); t(0); t(1);
    output(0);
    op(FZ_ADD_LAYERNORM); t(4); t(5); opt(-1); opt(-1); axis(-1); flt(); b(0);
    output(0);
    end(3, 4, 0);
    input(I32); SHAPE(4, 4);
    input(I32); SHAPE(4);
    op(FZ_BINARY_FN); b(3); t(1); t(0);         /* div */
    op(FZ_MATMUL); t(2); t(0);
    output(0);
    op(FZ_UNARY_FN); b(1); t(0);                /* abs */
    output(0);
    end(2, 2, 2);
    save(dir, "fused_int");

    /* constants and scalars folded at compile time */
    op(FZ_CONSTANT); dtype(F32); SHAPE(3, 4); b(0);
    op(FZ_SCALAR); dtype(F32); b(0x40 + 2);
    op(FZ_BINARY_FN); b(2); t(1); t(0);         /* mul */
    op(FZ_UNARY_FN); b(2); t(0);                /* exp */
    output(0);
    op(FZ_DUMP); b(0); b(0);
    op(FZ_DUMP); b(1); b(0x85);
    op(FZ_INFO); t(0); b(0); b(0);
    op(FZ_MISC); i32(5);
    op(FZ_UNIFORM); i32(1); i32(2); i32(3);
    end(0, 1, 0);
    save(dir, "constants_dump");

    /* matmul_integer: i8 [5, 8] x u8 [8, 7] with a per-row and a scalar zero point */
    input(I8); SHAPE(5, 8);
    input(U8); SHAPE(8, 7);
    input(I8); SHAPE(5);
    input(U8); shape0();
    op(FZ_MATMUL_INTEGER); t(3); t(2); opt(1); opt(0);
    output(0);
    end(4, 1, 0);
    save(dir, "matmul_integer");

    /* symbolic dims: x [seq, 8] from FZ_DIM, x @ w, the first `rows` rows (a slice of token length); compiled
       for seq = 6, rows = 4 (and again from the cache), then a second graph run at the example values */
    {
        int gi;
        for (gi = 0; gi < 2; gi++) {
            param(F32); SHAPE(3, 8);                /* only lends its shape */
            op(FZ_DIM); name(); dim(3); b(0); t(0); name();   /* "seq": input [seq, 8] */
            param(F32); SHAPE(8, 16);
            op(FZ_MATMUL); t(1); t(0);
            output(0);
            op(FZ_DIM); name(); dim(2); b(3); t(0); /* "rows": slice(matmul, 0, 0, rows) */
            output(0);
            op(FZ_END);
            b(0);                                   /* compile flags */
            if (gi == 0) {
                b(0x43); b(5); b(3);                /* bind seq = 6, rows = 4; compile twice */
            } else {
                b(0x40);                            /* the examples; compile twice; then run */
                b(0); b(0); b(0); b(0);             /* three sources, NULL-argument byte */
                b(0);                               /* run once */
                b(0); b(0);                         /* two outputs */
            }
        }
        save(dir, "symbolic_dims");
    }
    return 0;
}
