/* libFuzzer target for the block-quantized dtypes (>>quant): arbitrary bytes as quantized blocks (every f16
   scale bit pattern: NaN, inf, subnormals) and as f32 inputs to the quantizers (NaN, inf, huge, subnormal), in
   every format, through quantize, dequantize (f32 and f16), gather of rows and matmul_quant (both the m < 16 and
   the m >= 16 paths, 1 or 2 threads), plus shapes that must be refused. Under ASan + UBSan any out-of-bounds
   access, float-to-int conversion out of range or other undefined behaviour stops it; so does a valid call
   that fails or a wrong call that succeeds.

   Input: byte 0 the dtype, byte 1 the operation, bytes 2-5 the sizes, the rest fills the data cyclically.
       make fuzz-quant [FUZZ_SECONDS=60]
   RLX_FUZZ_STANDALONE builds a replayer: fuzz_quant FILE... */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links one instrumented implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../../rlx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const rlx_dtype fq_types[12] = {RLX_Q4_0, RLX_Q4_1, RLX_Q5_0, RLX_Q5_1, RLX_Q8_0, RLX_Q2_K,
                                       RLX_Q3_K, RLX_Q4_K, RLX_Q5_K, RLX_Q6_K, RLX_IQ4_NL, RLX_IQ4_XS};

static void fq_fail(const char* what, rlx_result r, const char* msg) {
    fprintf(stderr, "fuzz_quant: %s: %s (%s)\n", what, rlx_result_string(r), msg);
    abort();
}

/* fill n bytes from the data part of the input, cyclically (zeros when there is none) */
static void fq_fill(void* dst, size_t n, const uint8_t* d, size_t nd) {
    size_t i;
    for (i = 0; i < n; i++) ((uint8_t*)dst)[i] = nd ? (uint8_t)(d[i % nd] + (uint8_t)(i / nd)) : 0;
}

static void fq_run(const uint8_t* data, size_t size) {
    rlx_dtype dt;
    int op, threads;
    int64_t be = 1, blocks, rows, m, k, shape[2], xs[2];
    size_t bb = 0;
    const uint8_t* d = data + 6;
    size_t nd = size > 6 ? size - 6 : 0;
    rlx_graph* g;
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_result r;
    void *in = NULL, *out = NULL;
    size_t inb = 0, outb = 0;
    int expect_ok = 1;
    if (size < 6) return;
    dt = fq_types[data[0] % 12];
    op = data[1] % 5;
    threads = 1 + (data[1] / 5) % 2;
    rlx_dtype_block(dt, &be, &bb);
    blocks = 1 + data[2] % 4;
    rows = 1 + data[3] % 6;
    m = 1 + data[4] % 24;           /* 1..24: both matmul paths */
    k = blocks * be;
    if (data[5] & 0x80) { k += 1 + data[5] % 7; expect_ok = 0; }   /* not a multiple of the block */
    shape[0] = rows; shape[1] = k;
    g = rlx_graph_create(NULL);
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    cd.num_threads = threads;
    switch (op) {
    case 0:   /* quantize */
        rlx_output(g, "y", rlx_cast(g, rlx_input(g, "x", RLX_F32, 2, shape), dt));
        if (dt == RLX_IQ4_NL || dt == RLX_IQ4_XS) expect_ok = 0;
        break;
    case 1: case 2:   /* dequantize */
        rlx_output(g, "y", rlx_cast(g, rlx_input(g, "x", dt, 2, shape), op == 1 ? RLX_F32 : RLX_F16));
        break;
    case 3: {   /* gather rows (indices from the data, out of range included) */
        int64_t idx[3] = {0, 0, 0}, ish = 3;
        int i;
        for (i = 0; i < 3; i++) idx[i] = (int64_t)(nd > (size_t)i ? d[i] : 0) - 8;
        rlx_output(g, "y", rlx_cast(g, rlx_gather(g, rlx_input(g, "x", dt, 2, shape), rlx_constant(g, RLX_I64, 1, &ish, idx), 0), RLX_F32));
        break;
    }
    default:   /* matmul_quant: x [m, k] f32 from the data, w [rows, k] */
        xs[0] = m; xs[1] = k;
        rlx_output(g, "y", rlx_matmul_quant(g, rlx_input(g, "a", RLX_F32, 2, xs), rlx_input(g, "x", dt, 2, shape)));
        break;
    }
    if (rlx_graph_status(g) != RLX_OK) {
        if (expect_ok) fq_fail("builder", rlx_graph_status(g), rlx_graph_error(g));
        if (!rlx_graph_error(g)[0]) fq_fail("builder without a message", rlx_graph_status(g), "");
        rlx_graph_destroy(g);
        return;
    }
    if (!expect_ok) fq_fail("an invalid graph was accepted", RLX_OK, rlx_dtype_name(dt));
    r = rlx_compile(g, &cd, &p);
    if (r != RLX_OK) fq_fail("compile", r, rlx_graph_error(g));
    /* the input "x" in its own dtype */
    if (op == 0) inb = sizeof(float) * (size_t)(rows * k);
    else rlx_tensor_bytes(dt, 2, shape, &inb);
    in = malloc(inb);
    fq_fill(in, inb, d, nd);
    r = rlx_set_input(p, "x", op == 0 ? RLX_F32 : dt, in, inb);
    if (r == RLX_OK && op == 4) {
        size_t ab = sizeof(float) * (size_t)(m * k);
        void* a = malloc(ab);
        fq_fill(a, ab, d + (nd > 3 ? 3 : 0), nd > 3 ? nd - 3 : nd);
        r = rlx_set_input(p, "a", RLX_F32, a, ab);
        free(a);
    }
    if (r == RLX_OK && op != 0 && inb > 1 && rlx_set_input(p, "x", dt, in, inb - 1) == RLX_OK)
        fq_fail("a short block buffer was accepted", RLX_OK, "");
    if (r == RLX_OK && op != 0 && rlx_set_input(p, "x", RLX_F32, in, inb) == RLX_OK)
        fq_fail("f32 data for a block tensor was accepted", RLX_OK, "");
    if (r == RLX_OK) r = rlx_run(p);
    if (r != RLX_OK) fq_fail("set/run", r, rlx_program_error(p));
    {
        rlx_dtype ot = op == 0 ? dt : op == 2 ? RLX_F16 : RLX_F32;
        int64_t os[2];
        os[0] = op == 3 ? 3 : op == 4 ? m : rows;
        os[1] = op == 4 ? rows : k;
        rlx_tensor_bytes(ot, 2, os, &outb);
        out = malloc(outb);
        r = rlx_get_output(p, "y", ot, out, outb);
        if (r != RLX_OK) fq_fail("get_output", r, rlx_program_error(p));
    }
    free(in);
    free(out);
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
}

#if defined(RLX_FUZZ_STANDALONE)
int main(int argc, char** argv) {
    int i;
    for (i = 1; i < argc; i++) {
        FILE* f = fopen(argv[i], "rb");
        uint8_t buf[4096];
        size_t n;
        if (!f) continue;
        n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        fq_run(buf, n);
    }
    printf("fuzz_quant: replayed %d inputs\n", argc - 1);
    return 0;
}
#else
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fq_run(data, size);
    return 0;
}
#endif
