/* Error messages name the node: "op (node N, 'name'): in0 [shape] dtype, ...: cause". Every case makes one bad
   builder (or compile) call and checks the result code, the op, the node id, the name when one was given, the
   input shapes and the specific cause. Also: labels (rlx_set_name / rlx_set_next_name) in dumps and reports and
   independent of input/param/output names; long names never overflow a message nor cut a UTF-8 character. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#include <stdlib.h>

/* 1 if s is well-formed UTF-8 (no truncated or stray sequence). */
static int utf8_ok(const char* s) {
    const unsigned char* p = (const unsigned char*)s;
    while (*p) {
        int n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 : (*p & 0xF8) == 0xF0 ? 3 : -1;
        int k;
        if (n < 0) return 0;
        for (k = 1; k <= n; k++)
            if ((p[k] & 0xC0) != 0x80) return 0;
        p += n + 1;
    }
    return 1;
}

/* Checks g's status and that its message contains every string of the NULL-terminated list. */
static void expect(const char* label, rlx_graph* g, rlx_result want, ...) {
    const char* msg = rlx_graph_error(g);
    va_list ap;
    const char* sub;
    TH_CHECK(rlx_graph_status(g) == want, "%s: status %d (%s), want %d; message: %s", label, (int)rlx_graph_status(g),
             rlx_result_string(rlx_graph_status(g)), (int)want, msg);
    TH_CHECK(strlen(msg) < 512 && utf8_ok(msg), "%s: message too long or not UTF-8: %s", label, msg);
    va_start(ap, want);
    while ((sub = va_arg(ap, const char*)) != NULL)
        TH_CHECK(strstr(msg, sub) != NULL, "%s: message lacks \"%s\": %s", label, sub, msg);
    va_end(ap);
}

static rlx_tensor in(rlx_graph* g, const char* name, rlx_dtype dt, int rank, int64_t d0, int64_t d1, int64_t d2,
                     int64_t d3) {
    int64_t s[4];
    s[0] = d0; s[1] = d1; s[2] = d2; s[3] = d3;
    return rlx_input(g, name, dt, rank, s);
}

static void test_examples(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_conv_desc cd;
    rlx_tensor x, w, none = {0, 0};
    /* the two messages of the format's description, exactly */
    x = in(g, "a", RLX_F32, 2, 4, 3, 0, 0);
    w = in(g, "b", RLX_F32, 2, 5, 2, 0, 0);
    rlx_set_next_name(g, "layer1.mm");
    TH_CHECK(rlx_matmul(g, x, w).id == 0, "bad matmul returned a tensor");
    TH_CHECK(strcmp(rlx_graph_error(g), "matmul (node 3, 'layer1.mm'): a [4,3] f32, b [5,2] f32: a's last dim 3 != b's "
                                        "dim -2 5") == 0, "matmul message: %s", rlx_graph_error(g));
    expect("matmul", g, RLX_ERROR_SHAPE, NULL);
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    memset(&cd, 0, sizeof cd);
    x = in(g, "x", RLX_F32, 4, 1, 16, 32, 32);
    w = in(g, "w", RLX_F32, 4, 8, 8, 3, 3);
    rlx_set_next_name(g, "backbone.conv1");
    TH_CHECK(rlx_conv(g, x, w, none, &cd).id == 0, "bad conv returned a tensor");
    TH_CHECK(strcmp(rlx_graph_error(g), "conv (node 3, 'backbone.conv1'): x [1,16,32,32] f32, w [8,8,3,3] f32: x has 16 "
                                        "channels, w expects 8 (w is [O, C/groups, ...])") == 0,
             "conv message: %s", rlx_graph_error(g));
    expect("conv", g, RLX_ERROR_SHAPE, NULL);
    rlx_graph_destroy(g);
}

static void test_families(void) {
    rlx_graph* g;
    rlx_conv_desc cd;
    rlx_attention_desc ad;
    rlx_tensor a, b, c, none = {0, 0};

    /* conv: groups that do not divide the channels; output channels not divisible by groups */
    g = rlx_graph_create(NULL);
    memset(&cd, 0, sizeof cd);
    cd.groups = 3;
    a = in(g, "x", RLX_F32, 4, 1, 16, 8, 8);
    b = in(g, "w", RLX_F32, 4, 6, 5, 3, 3);
    rlx_conv(g, a, b, none, &cd);
    expect("conv groups", g, RLX_ERROR_SHAPE, "conv (node 3): x [1,16,8,8] f32, w [6,5,3,3] f32: ",
           "groups 3 does not divide x's 16 channels", NULL);
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    cd.groups = 4;
    a = in(g, "x", RLX_F32, 4, 1, 4, 8, 8);
    b = in(g, "w", RLX_F32, 4, 6, 1, 3, 3);
    rlx_conv(g, a, b, none, &cd);
    expect("conv out groups", g, RLX_ERROR_SHAPE, "conv (node 3)", "w's 6 output channels (dim 0) are not divisible by groups 4",
           NULL);
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    cd.groups = 2;
    a = in(g, "x", RLX_F32, 4, 1, 8, 8, 8);
    b = in(g, "w", RLX_F32, 4, 6, 3, 3, 3);
    rlx_conv(g, a, b, none, &cd);
    expect("conv per group", g, RLX_ERROR_SHAPE, "x has 8 channels in 2 groups (4 each), w expects 3 per group", NULL);
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    memset(&cd, 0, sizeof cd);
    a = in(g, "x", RLX_F32, 4, 1, 4, 8, 8);
    b = in(g, "w", RLX_F32, 4, 3, 2, 3, 3);
    rlx_set_next_name(g, "up1");
    rlx_conv_transpose(g, a, b, none, &cd);
    expect("conv_transpose", g, RLX_ERROR_SHAPE, "conv_transpose (node 3, 'up1'): x [1,4,8,8] f32, w [3,2,3,3] f32: ",
           "x has 4 channels, w expects 3", NULL);
    rlx_graph_destroy(g);

    /* conv bias, optional input: named with its shape */
    g = rlx_graph_create(NULL);
    a = in(g, "x", RLX_F32, 3, 1, 4, 8, 0);
    b = in(g, "w", RLX_F32, 3, 6, 4, 3, 0);
    c = in(g, "bias", RLX_F32, 1, 5, 0, 0, 0);
    rlx_conv(g, a, b, c, &cd);
    expect("conv bias", g, RLX_ERROR_SHAPE, "conv (node 4): x [1,4,8] f32, w [6,4,3] f32: bias is [5] but must be [O] = [6]",
           NULL);
    rlx_graph_destroy(g);

    /* broadcasting: which dims */
    g = rlx_graph_create(NULL);
    a = in(g, "a", RLX_F32, 2, 2, 3, 0, 0);
    b = in(g, "b", RLX_F32, 1, 4, 0, 0, 0);
    rlx_add(g, a, b);
    expect("add broadcast", g, RLX_ERROR_SHAPE, "add (node 3): a [2,3] f32, b [4] f32: ",
           "a dim 1 (3) and b dim 0 (4) differ and neither is 1", NULL);
    rlx_graph_destroy(g);

    /* dtype mismatch names both dtypes */
    g = rlx_graph_create(NULL);
    a = in(g, "a", RLX_F32, 1, 4, 0, 0, 0);
    b = in(g, "b", RLX_F16, 1, 4, 0, 0, 0);
    rlx_mul(g, a, b);
    expect("mul dtypes", g, RLX_ERROR_DTYPE, "mul (node 3): a [4] f32, b [4] f16: a is f32 but b is f16", NULL);
    rlx_graph_destroy(g);

    /* where: three operands */
    g = rlx_graph_create(NULL);
    c = in(g, "c", RLX_BOOL, 2, 2, 1, 0, 0);
    a = in(g, "a", RLX_F32, 2, 2, 3, 0, 0);
    b = in(g, "b", RLX_F32, 1, 5, 0, 0, 0);
    rlx_where(g, c, a, b);
    expect("where", g, RLX_ERROR_SHAPE, "where (node 4): cond [2,1] bool, a [2,3] f32, b [5] f32: ",
           "a dim 1 (3) and b dim 0 (5) differ", NULL);
    rlx_graph_destroy(g);

    /* matmul batch dims */
    g = rlx_graph_create(NULL);
    a = in(g, "a", RLX_F32, 3, 2, 4, 3, 0);
    b = in(g, "b", RLX_F32, 3, 3, 3, 5, 0);
    rlx_matmul(g, a, b);
    expect("matmul batch", g, RLX_ERROR_SHAPE, "matmul (node 3)", "a batch dim 0 (2) and b batch dim 0 (3) differ", NULL);
    rlx_graph_destroy(g);

    /* attention: heads, grouped heads, head dims, mask shape */
    g = rlx_graph_create(NULL);
    memset(&ad, 0, sizeof ad);
    ad.num_heads = 8;
    a = in(g, "q", RLX_F32, 3, 1, 4, 60, 0);
    b = in(g, "k", RLX_F32, 3, 1, 5, 64, 0);
    c = in(g, "v", RLX_F32, 3, 1, 5, 64, 0);
    rlx_set_next_name(g, "blk0.attn");
    rlx_attention(g, a, b, c, &ad);
    expect("attention heads", g, RLX_ERROR_SHAPE, "attention (node 4, 'blk0.attn'): q [1,4,60] f32, k [1,5,64] f32, "
           "v [1,5,64] f32: q's last dim 60 is not divisible by num_heads 8", NULL);
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    memset(&ad, 0, sizeof ad);
    ad.layout = RLX_LAYOUT_BHSD;
    a = in(g, "q", RLX_F32, 4, 1, 6, 4, 8);
    b = in(g, "k", RLX_F32, 4, 1, 4, 5, 8);
    c = in(g, "v", RLX_F32, 4, 1, 4, 5, 8);
    rlx_attention(g, a, b, c, &ad);
    expect("attention gqa", g, RLX_ERROR_SHAPE, "attention (node 4)", "kv heads (4) must divide heads (6)", NULL);
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    a = in(g, "q", RLX_F32, 4, 1, 2, 4, 8);
    b = in(g, "k", RLX_F32, 4, 1, 2, 5, 16);
    c = in(g, "v", RLX_F32, 4, 1, 2, 5, 16);
    rlx_attention(g, a, b, c, &ad);
    expect("attention head dim", g, RLX_ERROR_SHAPE, "q head dim 8 != k head dim 16", NULL);
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    a = in(g, "q", RLX_F32, 4, 1, 2, 4, 8);
    b = in(g, "k", RLX_F32, 4, 1, 2, 5, 8);
    c = in(g, "v", RLX_F32, 4, 1, 2, 5, 8);
    ad.keep_mask = in(g, "mask", RLX_BOOL, 2, 1, 7, 0, 0);
    rlx_attention(g, a, b, c, &ad);
    expect("attention mask", g, RLX_ERROR_SHAPE, "attention (node 5): q [1,2,4,8] f32, k [1,2,5,8] f32, v [1,2,5,8] f32: ",
           "keep_mask is [1,7] but must be [B, Sk] = [1,5]", NULL);
    rlx_graph_destroy(g);

    /* gather: axis, indices dtype */
    g = rlx_graph_create(NULL);
    a = in(g, "x", RLX_F32, 2, 3, 4, 0, 0);
    b = in(g, "idx", RLX_I64, 1, 2, 0, 0, 0);
    rlx_gather(g, a, b, 2);
    expect("gather axis", g, RLX_ERROR_AXIS, "gather (node 3): x [3,4] f32, indices [2] i64: axis 2 is out of range for rank 2",
           NULL);
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    a = in(g, "x", RLX_F32, 2, 3, 4, 0, 0);
    b = in(g, "idx", RLX_F32, 1, 2, 0, 0, 0);
    rlx_gather(g, a, b, 0);
    expect("gather dtype", g, RLX_ERROR_DTYPE, "gather (node 3)", "indices must be i32 or i64, not f32", NULL);
    rlx_graph_destroy(g);

    /* slice */
    g = rlx_graph_create(NULL);
    a = in(g, "x", RLX_F32, 1, 5, 0, 0, 0);
    rlx_slice(g, a, 0, 3, 4, 1);
    expect("slice", g, RLX_ERROR_SHAPE, "slice (node 2): x [5] f32: start 3, length 4, step 1 do not fit axis 0 of size 5",
           NULL);
    rlx_graph_destroy(g);

    /* state_write: dims and dtypes */
    g = rlx_graph_create(NULL);
    {
        int64_t ss[3] = {2, 8, 4};
        rlx_tensor st = rlx_state(g, "kv", RLX_F32, 3, ss);
        a = in(g, "upd", RLX_F32, 3, 2, 3, 5, 0);
        b = in(g, "pos", RLX_I64, 0, 0, 0, 0, 0);
        rlx_set_next_name(g, "cache.write");
        rlx_state_write(g, st, a, 1, b);
        expect("state_write dims", g, RLX_ERROR_SHAPE, "state_write (node 4, 'cache.write'): state [2,8,4] f32, "
               "update [2,3,5] f32, offset [] i64: update dim 2 is 5 but the state's is 4 (only axis 1 may differ)", NULL);
    }
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    {
        int64_t ss[2] = {8, 4};
        rlx_tensor st = rlx_state(g, "kv", RLX_F32, 2, ss);
        a = in(g, "upd", RLX_F16, 2, 1, 4, 0, 0);
        b = in(g, "pos", RLX_I32, 0, 0, 0, 0, 0);
        rlx_state_write(g, st, a, 0, b);
        expect("state_write dtype", g, RLX_ERROR_DTYPE, "state_write (node 4)", "update dtype f16 differs from the state's f32",
               NULL);
    }
    rlx_graph_destroy(g);

    /* layernorm gamma (optional input) */
    g = rlx_graph_create(NULL);
    a = in(g, "x", RLX_F32, 2, 2, 8, 0, 0);
    b = in(g, "gamma", RLX_F32, 1, 7, 0, 0, 0);
    rlx_layernorm(g, a, b, none, -1, 1e-5f);
    expect("layernorm gamma", g, RLX_ERROR_SHAPE, "layernorm (node 3): x [2,8] f32: ",
           "gamma is [7] but must have shape x.shape[1:] = [8]", NULL);
    rlx_graph_destroy(g);

    /* add_rmsnorm: named after its norm, inputs x and residual, gamma described by the cause */
    g = rlx_graph_create(NULL);
    a = in(g, "x", RLX_F32, 2, 2, 8, 0, 0);
    b = in(g, "r", RLX_F32, 2, 2, 8, 0, 0);
    c = in(g, "gamma", RLX_F32, 1, 4, 0, 0, 0);
    rlx_add_rmsnorm(g, a, b, c, none, 1e-6f, NULL);
    expect("add_rmsnorm gamma", g, RLX_ERROR_SHAPE, "add_rmsnorm (node 4): x [2,8] f32, residual [2,8] f32: ",
           "gamma is [4] f32 but must have shape x.shape[1:] = [8]", NULL);
    rlx_graph_destroy(g);

    /* linear, reshape, concat, rope, group_norm */
    g = rlx_graph_create(NULL);
    a = in(g, "x", RLX_F32, 2, 2, 3, 0, 0);
    b = in(g, "w", RLX_F32, 2, 4, 5, 0, 0);
    rlx_linear(g, a, b, none, RLX_ACT_RELU);
    expect("linear", g, RLX_ERROR_SHAPE, "linear (node 3): x [2,3] f32, w [4,5] f32: x's last dim 3 != w's dim 0 4", NULL);
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    {
        int64_t s1[1] = {4};
        a = in(g, "x", RLX_F32, 2, 2, 3, 0, 0);
        rlx_reshape(g, a, 1, s1);
        expect("reshape", g, RLX_ERROR_SHAPE, "reshape (node 2): x [2,3] f32: 6 elements cannot become 4", NULL);
    }
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    {
        rlx_tensor xs[3];
        xs[0] = in(g, "a", RLX_F32, 1, 2, 0, 0, 0);
        xs[1] = in(g, "b", RLX_F32, 1, 3, 0, 0, 0);
        xs[2] = in(g, "c", RLX_F16, 1, 3, 0, 0, 0);
        rlx_concat(g, 3, xs, 0);
        expect("concat", g, RLX_ERROR_DTYPE, "concat (node 4): x0 [2] f32, x1 [3] f32, x2 [3] f16: input 2 dtype f16 differs from f32",
               NULL);
    }
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    {
        rlx_rope_desc rd;
        memset(&rd, 0, sizeof rd);
        rd.layout = RLX_LAYOUT_BHSD;
        a = in(g, "x", RLX_F32, 4, 1, 2, 3, 8);
        b = in(g, "cos", RLX_F32, 2, 16, 3, 0, 0);
        c = in(g, "sin", RLX_F32, 2, 16, 4, 0, 0);
        rlx_rope(g, a, b, c, &rd);
        expect("rope tables", g, RLX_ERROR_SHAPE, "rope (node 4): x [1,2,3,8] f32, cos [16,3] f32, sin [16,4] f32: ",
               "cos [16,3] and sin [16,4] must both be [P, n_rot/2] = [P, 4]", NULL);
    }
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    a = in(g, "x", RLX_F32, 4, 1, 6, 2, 2);
    rlx_group_norm(g, a, 4, none, none, 1e-5f);
    expect("group_norm", g, RLX_ERROR_SHAPE, "group_norm (node 2): x [1,6,2,2] f32: groups 4 does not divide x's 6 channels",
           NULL);
    rlx_graph_destroy(g);

    /* sources name themselves */
    g = rlx_graph_create(NULL);
    a = in(g, "tokens", RLX_I32, 2, 1, 0, 0, 0);
    expect("input dim", g, RLX_ERROR_SHAPE, "input (node 1, 'tokens'): dim 1 is 0; dims must be >= 1", NULL);
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    a = in(g, "w", RLX_F32, 1, 2, 0, 0, 0);
    {
        int64_t s1[1] = {2};
        rlx_param(g, "w", RLX_F32, 1, s1);
    }
    expect("duplicate", g, RLX_ERROR_DUPLICATE, "param (node 2, 'w'): name 'w' is already used", NULL);
    rlx_graph_destroy(g);

    /* an invalid handle: which input */
    g = rlx_graph_create(NULL);
    a = in(g, "x", RLX_F32, 1, 2, 0, 0, 0);
    rlx_sub(g, a, none);
    expect("invalid handle", g, RLX_ERROR_INVALID_TENSOR, "sub (node 2): input 1 is not a tensor of this graph", NULL);
    rlx_graph_destroy(g);
}

/* The context of one call never leaks into the next: a message of a call that made no node (rlx_output, topk
   with no outputs) is not prefixed to the next call's error. */
static void test_no_stale_context(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor x = in(g, "x", RLX_F32, 1, 4, 0, 0, 0);
    int64_t s1[1] = {4};
    TH_CHECK(rlx_output(g, "y", x) == RLX_OK, "output failed: %s", rlx_graph_error(g));
    TH_CHECK(rlx_constant(g, RLX_F32, 1, s1, NULL).id == 0, "constant with NULL data made a tensor");
    expect("after output", g, RLX_ERROR_INVALID_ARGUMENT, NULL);
    TH_CHECK(strcmp(rlx_graph_error(g), "constant: data is NULL") == 0, "stale prefix: %s", rlx_graph_error(g));
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    x = in(g, "x", RLX_F32, 1, 4, 0, 0, 0);
    TH_CHECK(rlx_topk(g, x, 2, 0, 1, NULL, NULL) == RLX_OK, "topk without outputs failed: %s", rlx_graph_error(g));
    rlx_unary(g, RLX_OP_ADD, x);
    expect("after topk", g, RLX_ERROR_INVALID_ARGUMENT, NULL);
    TH_CHECK(strncmp(rlx_graph_error(g), "unary: op", 9) == 0, "stale prefix: %s", rlx_graph_error(g));
    rlx_graph_destroy(g);
}

/* Long names: messages stay within their buffer and end on a character boundary. */
static void test_long_names(void) {
    char name[1200];
    size_t i;
    rlx_graph* g;
    rlx_tensor a, b;
    char dump[4096];
    /* 2-byte characters behind one ASCII byte: every cut at an even offset from the start splits one */
    name[0] = 'n';
    for (i = 1; i + 2 < sizeof name; i += 2) { name[i] = (char)0xC3; name[i + 1] = (char)0xA9; }   /* é */
    name[i] = 0;
    g = rlx_graph_create(NULL);
    a = in(g, "a", RLX_F32, 1, 3, 0, 0, 0);
    b = in(g, "b", RLX_F32, 1, 4, 0, 0, 0);
    rlx_set_next_name(g, name);
    rlx_add(g, a, b);
    expect("long label", g, RLX_ERROR_SHAPE, "add (node 3, 'n\xC3\xA9", "...'): a [3] f32, b [4] f32: ",
           "a dim 0 (3) and b dim 0 (4) differ", NULL);
    rlx_graph_destroy(g);

    /* a cause longer than the message buffer (the duplicate's own name): clipped on a boundary */
    for (i = 0; i < 4; i++) {
        size_t k, len = 700 + i;
        /* 3-byte characters at shifting offsets */
        for (k = 0; k < i; k++) name[k] = 'x';
        for (; k + 3 < len; k += 3) { name[k] = (char)0xE2; name[k + 1] = (char)0x82; name[k + 2] = (char)0xAC; }   /* € */
        name[k] = 0;
        g = rlx_graph_create(NULL);
        in(g, name, RLX_F32, 1, 3, 0, 0, 0);
        in(g, name, RLX_F32, 1, 3, 0, 0, 0);
        expect("long duplicate", g, RLX_ERROR_DUPLICATE, "input (node 2, '", NULL);
        TH_CHECK(strlen(rlx_graph_error(g)) >= 500, "long message was cut short: %zu bytes", strlen(rlx_graph_error(g)));
        {   /* compile quotes the builder error, cut again */
            rlx_program* p = NULL;
            rlx_compile_desc cd;
            memset(&cd, 0, sizeof cd);
            TH_CHECK(rlx_compile(g, &cd, &p) == RLX_ERROR_BAD_GRAPH && !p, "compile of a graph with a builder error");
            TH_CHECK(utf8_ok(rlx_graph_error(g)) && strstr(rlx_graph_error(g), "builder error: input (node 2"),
                     "compile's quote of a long message: %s", rlx_graph_error(g));
        }
        rlx_graph_destroy(g);
    }

    /* a label is kept to 255 bytes, on a boundary */
    g = rlx_graph_create(NULL);
    a = in(g, "a", RLX_F32, 1, 3, 0, 0, 0);
    name[0] = 'L';   /* then 3-byte characters: byte 255 falls inside the 85th, which is dropped whole */
    for (i = 1; i + 3 < 600; i += 3) { name[i] = (char)0xE2; name[i + 1] = (char)0x82; name[i + 2] = (char)0xAC; }
    name[i] = 0;
    TH_CHECK(rlx_set_name(g, a, name) == RLX_OK, "set_name failed: %s", rlx_graph_error(g));
    rlx_graph_dump(g, dump, sizeof dump);
    {
        const char* q = strchr(dump, '\'');
        const char* e = q ? strchr(q + 1, '\'') : NULL;
        TH_CHECK(q && e && e - q - 1 == 253, "label kept %d bytes, want 253 ('L' and 84 three-byte characters)",
                 q && e ? (int)(e - q - 1) : -1);
        TH_CHECK(utf8_ok(dump), "dump with a clipped label is not UTF-8");
    }
    rlx_graph_destroy(g);
}

/* Labels: shown in dumps and the report; independent of input/param/output names; bad calls are errors. */
static void test_labels(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor x = in(g, "x", RLX_F32, 1, 3, 0, 0, 0), w, y, bad = {0, 0};
    int64_t s1[1] = {3};
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    char buf[8192];
    float xv[3] = {1.5f, -2.0f, 0.25f}, wv[3] = {0.5f, 3.0f, -1.0f}, out[3];
    double ref[3];
    int k, ok = 1;
    w = rlx_param(g, "w", RLX_F32, 1, s1);
    TH_CHECK(rlx_set_name(g, w, "x") == RLX_OK, "a label equal to an input name was refused: %s", rlx_graph_error(g));
    TH_CHECK(rlx_set_next_name(g, "mul.0") == RLX_OK, "set_next_name failed");
    y = rlx_mul(g, x, w);
    rlx_output(g, "x_out", y);
    rlx_graph_dump(g, buf, sizeof buf);
    TH_CHECK(strstr(buf, "param \"w\" 'x'") != NULL, "dump lacks the param's label: %s", buf);
    TH_CHECK(strstr(buf, "= mul 'mul.0'") != NULL, "dump lacks the op's label: %s", buf);
    rlx_graph_dump_dot(g, buf, sizeof buf);
    TH_CHECK(strstr(buf, "[mul.0]") != NULL, "dot dump lacks the label: %s", buf);
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    cd.flags = RLX_COMPILE_NO_OPTIMIZE;
    TH_CHECK(rlx_compile(g, &cd, &p) == RLX_OK, "compile failed: %s", rlx_graph_error(g));
    if (p) {
        /* the label "x" on w changes no lookup: "x" is still the input, "w" the param */
        TH_CHECK(rlx_set_input_f32(p, "x", xv, 3) == RLX_OK, "set_input x: %s", rlx_program_error(p));
        TH_CHECK(rlx_set_param_f32(p, "w", wv, 3) == RLX_OK, "set_param w: %s", rlx_program_error(p));
        TH_CHECK(rlx_run(p) == RLX_OK, "run: %s", rlx_program_error(p));
        TH_CHECK(rlx_get_output_f32(p, "x_out", out, 3) == RLX_OK, "get_output: %s", rlx_program_error(p));
        for (k = 0; k < 3; k++) {
            ref[k] = (double)xv[k] * (double)wv[k];
            if (fabs((double)out[k] - ref[k]) > 1e-6) ok = 0;
        }
        TH_CHECK(ok, "x*w = %g %g %g, want %g %g %g", out[0], out[1], out[2], ref[0], ref[1], ref[2]);
        rlx_program_report(p, buf, sizeof buf);
        TH_CHECK(strstr(buf, "mul") && strstr(buf, "(node 3, 'mul.0')"), "report lacks the node and label: %s", buf);
        rlx_program_destroy(p);
    }
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    x = in(g, "x", RLX_F32, 1, 3, 0, 0, 0);
    TH_CHECK(rlx_set_name(g, x, "") == RLX_ERROR_INVALID_ARGUMENT, "empty label accepted");
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);
    TH_CHECK(rlx_set_name(g, bad, "z") == RLX_ERROR_INVALID_TENSOR, "label on the zero handle accepted");
    rlx_graph_destroy(g);
    {
        rlx_graph* g2 = rlx_graph_create(NULL);
        g = rlx_graph_create(NULL);
        x = in(g2, "x", RLX_F32, 1, 3, 0, 0, 0);
        TH_CHECK(rlx_set_name(g, x, "z") == RLX_ERROR_INVALID_TENSOR, "label on another graph's handle accepted");
        TH_CHECK(strstr(rlx_graph_error(g), "another or a destroyed graph") != NULL, "message: %s", rlx_graph_error(g));
        rlx_graph_destroy(g2);
        rlx_graph_destroy(g);
    }
    /* a pending name that is never used is freed with the graph (checked by the sanitizer builds) */
    g = rlx_graph_create(NULL);
    rlx_set_next_name(g, "unused");
    rlx_set_next_name(g, "replaced");
    rlx_graph_destroy(g);
}

/* Compiled steps keep the user's node id and label through fusion and decomposition (what compile and launch
   errors print). */
static void test_origin_through_passes(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    static char buf[8192];
    int64_t xs[2] = {2, 3}, ws[2] = {3, 4}, bs[1] = {4};
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, xs), w = rlx_param(g, "w", RLX_F32, 2, ws);
    rlx_tensor b = rlx_param(g, "b", RLX_F32, 1, bs), y;
    y = rlx_add(g, rlx_matmul(g, x, w), b);
    rlx_set_next_name(g, "fc.act");
    y = rlx_relu(g, y);                                  /* node 6: matmul + add + relu fuse into one linear */
    rlx_set_next_name(g, "head.gelu");
    rlx_output(g, "y", rlx_gelu(g, y));                  /* node 7 */
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    TH_CHECK(rlx_compile(g, &cd, &p) == RLX_OK, "compile: %s", rlx_graph_error(g));
    rlx_program_report(p, buf, sizeof buf);
    TH_CHECK(strstr(buf, "linear") && strstr(buf, "(node 6, 'fc.act')") && strstr(buf, "(node 7, 'head.gelu')"),
             "fused step lost its node: %s", buf);
    rlx_program_destroy(p);
    p = NULL;
    cd.flags = RLX_COMPILE_DECOMPOSE;                    /* gelu becomes mul, erf, add, mul, mul */
    TH_CHECK(rlx_compile(g, &cd, &p) == RLX_OK, "compile: %s", rlx_graph_error(g));
    rlx_program_report(p, buf, sizeof buf);
    TH_CHECK(strstr(buf, "erf") && strstr(strstr(buf, "erf"), "(node 7, 'head.gelu')"), "decomposed step lost its node: %s",
             buf);
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
}

/* A compile error names the node (and its label) that the device cannot run. */
static void test_compile_unsupported(void) {
    rlx_device_info dev[RLX_DEVICE_COUNT];
    int n = rlx_devices(dev, RLX_DEVICE_COUNT), i, have = 0;
    rlx_graph* g;
    rlx_tensor lg, ctr, y;
    rlx_sample_desc sd;
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    rlx_result r;
    int64_t ls[2] = {1, (int64_t)1 << 31};
    for (i = 0; i < n && i < RLX_DEVICE_COUNT; i++)
        if (dev[i].device == RLX_DEVICE_VULKAN && dev[i].available) have = 1;
    if (!have) { th_skip("compile error naming the node: no Vulkan device here"); return; }
    if (sizeof(size_t) < 8) { th_skip("compile error naming the node: a 2^31-wide tensor needs a 64-bit size_t"); return; }
    /* sample over 2^31 logits per row is beyond the GPU kernels' 32-bit indices: rejected before any allocation */
    g = rlx_graph_create(NULL);
    lg = rlx_input(g, "logits", RLX_F32, 2, ls);
    ctr = rlx_input(g, "step", RLX_I64, 0, NULL);
    memset(&sd, 0, sizeof sd);
    sd.temperature = 1.0f;
    rlx_set_next_name(g, "sampler");
    y = rlx_sample(g, lg, ctr, &sd);
    rlx_output(g, "tok", y);
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_VULKAN;
    cd.flags = RLX_COMPILE_NO_FALLBACK;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_ERROR_UNSUPPORTED, "compile gave %d (%s): %s", (int)r, rlx_result_string(r), rlx_graph_error(g));
    TH_CHECK(strstr(rlx_graph_error(g), "vulkan cannot run sample (node 3, 'sampler'): logits [1,2147483648] f32, "
                                        "counter [] i64") != NULL, "compile message: %s", rlx_graph_error(g));
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
}

int main(void) {
    test_examples();
    test_families();
    test_no_stale_context();
    test_long_names();
    test_labels();
    test_origin_through_passes();
    test_compile_unsupported();
    return th_summary("errors");
}
