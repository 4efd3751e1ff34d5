/* libFuzzer target for training (>>autodiff): the input builds a random graph of float ops over two inputs and a
   state (a stack machine: each byte pair is an op and an argument), takes a loss (a sum, or on purpose a tensor
   that is not a scalar), asks rlx_grad for the gradients of the inputs, the state and an intermediate, appends an
   AdamW or SGD step for the state, then compiles and runs the program on the CPU with input values from the
   input bytes. Contract: rlx_grad either succeeds, giving gradients of each wrt's shape and dtype, or fails with
   SHAPE (non-scalar loss), INVALID_ARGUMENT (a non-differentiable node), UNSUPPORTED (no rule) or DTYPE and a
   message starting "rlx_grad"; a graph that rlx_grad and rlx_optimizer_step accepted compiles and runs. Under
   ASan + UBSan any out-of-bounds access, leak or undefined behaviour stops it.
       make fuzz-autodiff [FUZZ_SECONDS=60]
   RLX_FUZZ_STANDALONE builds a replayer: fuzz_autodiff FILE... */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links one instrumented implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../../rlx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fa_fail(const char* what, rlx_result r, const char* msg) {
    fprintf(stderr, "fuzz_autodiff: %s: %s (%s)\n", what, rlx_result_string(r), msg);
    abort();
}

#define FA_STACK 16

static void fa_run(const uint8_t* data, size_t size) {
    rlx_graph* g;
    rlx_tensor st[FA_STACK], wrt[4], gr[4], loss, x0, x1, w;
    int sp = 0, nw, i, a0, a1, r0 = 0;
    int64_t A, B, s[RLX_MAX_RANK];
    size_t pos = 4;
    rlx_dtype dt;
    rlx_result r;
    if (size < 4) return;
    A = 1 + data[0] % 4;
    B = 1 + data[1] % 4;
    dt = (data[2] & 1) ? RLX_F64 : RLX_F32;
    g = rlx_graph_create(NULL);
    s[0] = A; s[1] = B;
    x0 = rlx_input(g, "x0", dt, 2, s);
    x1 = rlx_input(g, "x1", dt, 1, s + 1);
    w = rlx_state(g, "w", dt, 2, s);
    st[sp++] = x0; st[sp++] = x1; st[sp++] = w;
    while (pos + 1 < size && sp > 0 && rlx_graph_status(g) == RLX_OK) {
        int op = data[pos] % 40, arg = data[pos + 1];
        rlx_tensor t = st[sp - 1], u = sp > 1 ? st[sp - 2] : st[sp - 1], v = {0, 0};
        int rank = 0;
        int64_t sh[RLX_MAX_RANK];
        pos += 2;
        rlx_tensor_info(g, t, &rank, sh);
        switch (op) {
        case 0: v = rlx_unary(g, (rlx_op)(RLX_OP_NEG + arg % (RLX_OP_CEIL - RLX_OP_NEG + 1)), t); break;
        case 1: v = rlx_binary(g, (rlx_op)(RLX_OP_ADD + arg % 7), u, t); break;
        case 2: v = rlx_matmul(g, u, t); break;
        case 3: v = rlx_matmul(g, t, rlx_transpose(g, u, NULL)); break;
        case 4: { int ax = rank ? arg % rank : 0; v = rlx_reduce(g, (rlx_op)(RLX_OP_SUM + arg % 4), t, rank ? 1 : 0, &ax, arg & 1); break; }
        case 5: v = rlx_softmax(g, t, rank ? arg % rank : 0); break;
        case 6: v = rlx_log_softmax(g, t, -1); break;
        case 7: { int64_t m = -1; v = rlx_reshape(g, t, 1, &m); break; }
        case 8: v = rlx_transpose(g, t, NULL); break;
        case 9: if (rank) v = rlx_slice(g, t, arg % rank, 0, 1 + (sh[arg % rank] - 1) / (1 + arg % 3), 1 + arg % 3); break;
        case 10: { rlx_tensor two[2]; two[0] = u; two[1] = t; v = rlx_concat(g, 2, two, rank ? arg % rank : 0); break; }
        case 11: { int64_t e[RLX_MAX_RANK + 1]; e[0] = 1 + arg % 3; if (rank < RLX_MAX_RANK) { memcpy(e + 1, sh, sizeof(int64_t) * (size_t)rank); v = rlx_expand(g, t, rank + 1, e); } break; }
        case 12: { int64_t iv[3] = {0, -1, 1}, is = 1 + arg % 3; if (rank) v = rlx_gather(g, t, rlx_constant(g, RLX_I64, 1, &is, iv), arg % rank); break; }
        case 13: v = rlx_cast(g, rlx_argmax(g, t, -1, 1), dt); break;            /* not differentiable */
        case 14: v = rlx_where(g, rlx_gt(g, t, u), t, u); break;
        case 15: v = rlx_layernorm(g, t, (rlx_tensor){0, 0}, (rlx_tensor){0, 0}, rank ? arg % rank : 0, 1e-5f); break;
        case 16: v = rlx_rmsnorm(g, t, (rlx_tensor){0, 0}, (rlx_tensor){0, 0}, 1e-6f); break;
        case 17: if (rank) v = rlx_cumsum(g, t, arg % rank, arg & 1, (arg >> 1) & 1); break;
        case 18: { int64_t bf[RLX_MAX_RANK] = {0}, af[RLX_MAX_RANK] = {0}; if (rank) { bf[arg % rank] = arg % 2; af[0] = 1; v = rlx_pad(g, t, bf, af, RLX_PAD_CONSTANT, 0.5); } break; }
        case 19: v = rlx_cast(g, rlx_cast(g, t, dt == RLX_F32 ? RLX_F64 : RLX_F32), dt); break;
        case 20: v = rlx_cast(g, rlx_cast(g, t, RLX_I32), dt); break;            /* not differentiable */
        case 21: v = rlx_swiglu(g, t, t); break;
        case 22: { rlx_conv_desc cd; int64_t ws4[4] = {1, 1, 1, 1}; memset(&cd, 0, sizeof cd);   /* no rule */
                   if (rank == 4) v = rlx_conv(g, t, rlx_constant(g, dt, 4, ws4, dt == RLX_F32 ? (const void*)"\0\0\x80\x3f" : (const void*)"\0\0\0\0\0\0\xf0\x3f"), (rlx_tensor){0, 0}, &cd);
                   else { int64_t r4[4] = {1, 1, 1, -1}; v = rlx_reshape(g, t, 4, r4); } break; }
        case 23: if (sp > 1) sp--; continue;                                           /* drop */
        case 24: v = u; break;                                                          /* dup */
        case 25: { rlx_attention_desc ad; memset(&ad, 0, sizeof ad); ad.layout = RLX_LAYOUT_BHSD; ad.causal = arg & 1;
                   ad.softcap = (arg & 2) ? 3.0f : 0.0f;
                   if (rank == 4) v = rlx_attention(g, t, t, t, &ad);
                   else { int64_t r4[4] = {1, 1, -1, 1}; v = rlx_reshape(g, t, 4, r4); } break; }
        default: v = rlx_binary(g, RLX_OP_MUL, t, w); break;
        }
        if (v.id == 0) break;
        if (sp < FA_STACK) st[sp++] = v; else st[sp - 1] = v;
    }
    loss = st[sp - 1];
    if (size % 5 != 0) loss = rlx_reduce_sum(g, loss, 0, NULL, 0);
    if (rlx_graph_status(g) != RLX_OK) { rlx_graph_destroy(g); return; }
    wrt[0] = x0; wrt[1] = x1; wrt[2] = w; nw = 3;
    if (sp > 3) wrt[nw++] = st[3];
    r = rlx_grad(g, loss, nw, wrt, gr);
    if (r != RLX_OK) {
        if ((r != RLX_ERROR_SHAPE && r != RLX_ERROR_INVALID_ARGUMENT && r != RLX_ERROR_UNSUPPORTED &&
             r != RLX_ERROR_DTYPE) || strncmp(rlx_graph_error(g), "rlx_grad", 8) != 0)
            fa_fail("rlx_grad failed with an unexpected code or message", r, rlx_graph_error(g));
        for (i = 0; i < nw; i++) if (gr[i].id) fa_fail("a failed rlx_grad left a gradient handle", r, "");
        rlx_graph_destroy(g);
        return;
    }
    for (i = 0; i < nw; i++) {
        int ra = 0, rb = 0;
        int64_t sa[RLX_MAX_RANK], sb[RLX_MAX_RANK];
        if (rlx_tensor_info(g, wrt[i], &ra, sa) != rlx_tensor_info(g, gr[i], &rb, sb) || ra != rb ||
            memcmp(sa, sb, sizeof(int64_t) * (size_t)ra) != 0)
            fa_fail("a gradient's shape or dtype differs from its wrt tensor's", r, "");
        (void)r0;
    }
    {
        rlx_optimizer_desc od;
        memset(&od, 0, sizeof od);
        od.kind = (size & 2) ? RLX_OPTIMIZER_SGD : RLX_OPTIMIZER_ADAMW;
        od.momentum = (size & 4) ? 0.9f : 0.0f;
        od.clip_norm = (size & 8) ? 1.0f : 0.0f;
        od.weight_decay = 0.01f;
        od.accumulate = (size & 16) ? 2 + (int)(size >> 6 & 1) : 0;   /* gradient accumulation, finite check */
        od.check_finite = (size & 32) ? 1 : 0;
        if (od.check_finite) od.loss = loss;
        r = rlx_optimizer_step(g, &od, 1, &w, &gr[2]);
        if (r != RLX_OK) fa_fail("rlx_optimizer_step", r, rlx_graph_error(g));
    }
    rlx_output(g, "loss", loss);
    for (i = 0; i < nw; i++) { char nm[8]; snprintf(nm, sizeof nm, "g%d", i); rlx_output(g, nm, gr[i]); }
    {
        rlx_compile_desc cd;
        rlx_program* p = NULL;
        memset(&cd, 0, sizeof cd);
        cd.device = RLX_DEVICE_CPU;
        r = rlx_compile(g, &cd, &p);
        if (r != RLX_OK) fa_fail("compile of an accepted training graph", r, rlx_graph_error(g));
        {
            double v[16];
            float f[16];
            for (i = 0; i < 16; i++) { v[i] = (double)(int8_t)data[(size_t)(3 + i) % size] / 32.0; f[i] = (float)v[i]; }
            a0 = (int)(A * B); a1 = (int)B;
            rlx_set_input(p, "x0", dt, dt == RLX_F64 ? (const void*)v : (const void*)f, (size_t)a0 * rlx_dtype_size(dt));
            rlx_set_input(p, "x1", dt, dt == RLX_F64 ? (const void*)v : (const void*)f, (size_t)a1 * rlx_dtype_size(dt));
            rlx_set_state(p, "w", dt, dt == RLX_F64 ? (const void*)v : (const void*)f, (size_t)a0 * rlx_dtype_size(dt));
        }
        r = rlx_run(p);   /* a NaN or infinity is an error only with the finite check, which reports it */
        if (r != RLX_OK && !((size & 32) && r == RLX_ERROR_NON_FINITE))
            fa_fail("run of an accepted training graph", r, rlx_program_error(p));
        r = rlx_run(p);
        if (r != RLX_OK && !((size & 32) && r == RLX_ERROR_NON_FINITE)) fa_fail("second run", r, rlx_program_error(p));
        rlx_program_destroy(p);
    }
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
        fa_run(buf, n);
    }
    printf("fuzz_autodiff: replayed %d inputs\n", argc - 1);
    return 0;
}
#else
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fa_run(data, size);
    return 0;
}
#endif
