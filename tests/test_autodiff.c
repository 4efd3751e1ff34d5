/* rlx_grad (>>autodiff): every gradient rule against central finite differences of the forward graph.
   Each case builds y = f(x0, x1, ...) on random non-zero inputs, the loss sum(y · R) with a random constant R
   (so every output element gets a different weight), asks rlx_grad for d loss / d xk, and compares every element
   with (loss(x + h) − loss(x − h)) / 2h computed by running the same forward program in f64 (h = 1e-6; error
   ~1e-9). Ops without f64 kernels on the CPU (linear) run in f32 with h = 1e-3, |diff| <= 2e-3 + 2e-2·|fd|.
   Inputs stay away from kinks (|x| >= 0.1 where relu, abs, max, min or round could cross one).
   RLX_TEST_DEVICE=cpu|vulkan|cuda|hip runs every case on that device (no fallback); default CPU. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"
#include <stdlib.h>

static rlx_device dev = RLX_DEVICE_CPU;
static const char* dev_name = "cpu";

typedef rlx_tensor (*build_fn)(rlx_graph* g, const rlx_tensor* x);

typedef struct gcase {
    const char* name;
    rlx_dtype dt;
    int nin;
    int rank[4];
    int64_t shape[4][4];
    double lo, hi;      /* |x| in [lo, hi], random sign (lo > 0: away from 0) unless pos */
    int pos;            /* inputs positive */
    build_fn f;
} gcase;

static int64_t numel(int r, const int64_t* s) { int64_t n = 1; int i; for (i = 0; i < r; i++) n *= s[i]; return n; }

static rlx_tensor rconst(rlx_graph* g, rlx_dtype dt, int r, const int64_t* s) {
    int64_t n = numel(r, s), i;
    rlx_tensor t;
    if (dt == RLX_F64) {
        double* v = (double*)malloc(sizeof(double) * (size_t)n);
        for (i = 0; i < n; i++) v[i] = th_uniform(-1, 1);
        t = rlx_constant(g, dt, r, s, v);
        free(v);
    } else {
        float* v = (float*)malloc(sizeof(float) * (size_t)n);
        for (i = 0; i < n; i++) v[i] = (float)th_uniform(-1, 1);
        t = rlx_constant(g, dt, r, s, v);
        free(v);
    }
    return t;
}

static rlx_dtype cur_dt;
#define DT cur_dt
#define U(fn) static rlx_tensor b_##fn(rlx_graph* g, const rlx_tensor* x) { return rlx_##fn(g, x[0]); }
U(neg) U(abs) U(exp) U(log) U(sqrt) U(rsqrt) U(sin) U(cos) U(tan) U(atan) U(tanh) U(sigmoid) U(relu) U(gelu)
U(gelu_tanh) U(silu) U(erf) U(round)
#define B2(fn) static rlx_tensor b_##fn(rlx_graph* g, const rlx_tensor* x) { return rlx_##fn(g, x[0], x[1]); }
B2(add) B2(sub) B2(mul) B2(div) B2(pow) B2(max) B2(min) B2(matmul) B2(swiglu) B2(geglu) B2(mse_loss)
static rlx_tensor b_where(rlx_graph* g, const rlx_tensor* x) {
    return rlx_where(g, rlx_gt(g, x[2], rlx_scalar(g, DT, 0)), x[0], x[1]);
}
static rlx_tensor b_cast(rlx_graph* g, const rlx_tensor* x) {   /* f32 input, f64 math */
    return rlx_mul(g, rlx_exp(g, rlx_cast(g, x[0], RLX_F64)), rlx_cast(g, x[1], RLX_F64));
}
static rlx_tensor b_lin_relu(rlx_graph* g, const rlx_tensor* x) { return rlx_linear(g, x[0], x[1], x[2], RLX_ACT_RELU); }
static rlx_tensor b_lin_gelu(rlx_graph* g, const rlx_tensor* x) { return rlx_linear(g, x[0], x[1], x[2], RLX_ACT_GELU); }
static rlx_tensor b_lin_silu(rlx_graph* g, const rlx_tensor* x) { return rlx_linear(g, x[0], x[1], rlx_scalar(g, RLX_F32, 0).id ? (rlx_tensor){0, 0} : x[2], RLX_ACT_SILU); }
static rlx_tensor b_lin_tanh(rlx_graph* g, const rlx_tensor* x) { return rlx_linear(g, x[0], x[1], x[2], RLX_ACT_GELU_TANH); }
static rlx_tensor b_sum1(rlx_graph* g, const rlx_tensor* x) { int a = 1; return rlx_reduce_sum(g, x[0], 1, &a, 0); }
static rlx_tensor b_mean_all(rlx_graph* g, const rlx_tensor* x) { return rlx_mul(g, rlx_reduce_mean(g, x[0], 0, NULL, 0), x[1]); }
static rlx_tensor b_max1(rlx_graph* g, const rlx_tensor* x) { int a = 1; return rlx_reduce_max(g, x[0], 1, &a, 0); }
static rlx_tensor b_min02(rlx_graph* g, const rlx_tensor* x) { int a[2] = {0, 2}; return rlx_reduce_min(g, x[0], 2, a, 1); }
static rlx_tensor b_softmax(rlx_graph* g, const rlx_tensor* x) { return rlx_softmax(g, x[0], 1); }
static rlx_tensor b_log_softmax(rlx_graph* g, const rlx_tensor* x) { return rlx_log_softmax(g, x[0], 0); }
static rlx_tensor b_layernorm(rlx_graph* g, const rlx_tensor* x) { return rlx_layernorm(g, x[0], x[1], x[2], 1, 1e-5f); }
static rlx_tensor b_layernorm_plain(rlx_graph* g, const rlx_tensor* x) { rlx_tensor z = {0, 0}; return rlx_layernorm(g, x[0], z, z, -1, 1e-5f); }
static rlx_tensor b_rmsnorm(rlx_graph* g, const rlx_tensor* x) { return rlx_rmsnorm(g, x[0], x[1], x[2], 1e-6f); }
static rlx_tensor b_reshape(rlx_graph* g, const rlx_tensor* x) { int64_t s[3] = {2, -1, 3}; return rlx_exp(g, rlx_reshape(g, x[0], 3, s)); }
static rlx_tensor b_transpose(rlx_graph* g, const rlx_tensor* x) { int p[3] = {2, 0, 1}; return rlx_mul(g, rlx_transpose(g, x[0], p), x[1]); }
static rlx_tensor b_slice1(rlx_graph* g, const rlx_tensor* x) { return rlx_sin(g, rlx_slice(g, x[0], 1, 1, 3, 1)); }
static rlx_tensor b_slice3(rlx_graph* g, const rlx_tensor* x) { return rlx_sin(g, rlx_slice(g, x[0], 1, 1, 3, 3)); }
static rlx_tensor b_concat(rlx_graph* g, const rlx_tensor* x) { return rlx_tanh(g, rlx_concat(g, 3, x, 1)); }
static rlx_tensor b_expand(rlx_graph* g, const rlx_tensor* x) { int64_t s[3] = {2, 3, 4}; return rlx_mul(g, rlx_expand(g, x[0], 3, s), x[1]); }
static rlx_tensor b_pad(rlx_graph* g, const rlx_tensor* x) {
    int64_t bf[2] = {1, 0}, af[2] = {2, 3};
    return rlx_exp(g, rlx_pad(g, x[0], bf, af, RLX_PAD_CONSTANT, 0.5));
}
static rlx_tensor b_gather0(rlx_graph* g, const rlx_tensor* x) {
    int64_t is[2] = {2, 3}, iv[6] = {4, 0, 4, -1, 2, 0};
    return rlx_gather(g, x[0], rlx_constant(g, RLX_I64, 2, is, iv), 0);
}
static rlx_tensor b_gather1(rlx_graph* g, const rlx_tensor* x) {
    int64_t is[1] = {3};
    int32_t iv[3] = {1, 1, 3};
    return rlx_gather(g, x[0], rlx_constant(g, RLX_I32, 1, is, iv), 1);
}
static rlx_tensor b_cumsum(rlx_graph* g, const rlx_tensor* x) { return rlx_mul(g, rlx_cumsum(g, x[0], 1, 0, 0), x[0]); }
static rlx_tensor b_cumsum_er(rlx_graph* g, const rlx_tensor* x) { return rlx_sin(g, rlx_cumsum(g, x[0], 0, 1, 1)); }
static rlx_tensor b_xent(rlx_graph* g, const rlx_tensor* x) {
    int64_t ls[1] = {4}, lv[4] = {2, 0, 4, 2};
    return rlx_cross_entropy(g, x[0], rlx_constant(g, RLX_I64, 1, ls, lv));
}
static rlx_tensor b_mlp(rlx_graph* g, const rlx_tensor* x) {   /* relu(x·w1 + b1)·w2 → cross-entropy */
    int64_t ls[1] = {3};
    int32_t lv[3] = {1, 0, 1};
    rlx_tensor h = rlx_relu(g, rlx_add(g, rlx_matmul(g, x[0], x[1]), x[2]));
    int64_t ws[2] = {5, 2};
    return rlx_cross_entropy(g, rlx_matmul(g, h, rconst(g, DT, 2, ws)), rlx_constant(g, RLX_I32, 1, ls, lv));
}
static rlx_tensor b_attn_dec(rlx_graph* g, const rlx_tensor* x) {   /* attention written with matmul + softmax */
    int p[3] = {0, 2, 1};
    rlx_tensor s = rlx_mul(g, rlx_matmul(g, x[0], rlx_transpose(g, x[1], p)), rlx_scalar(g, DT, 0.5));
    return rlx_matmul(g, rlx_softmax(g, s, -1), x[2]);
}

static rlx_tensor b_attn_causal(rlx_graph* g, const rlx_tensor* x) {   /* BHSD, causal, Sq < Sk */
    rlx_attention_desc d;
    memset(&d, 0, sizeof d);
    d.layout = RLX_LAYOUT_BHSD; d.causal = 1;
    return rlx_attention(g, x[0], x[1], x[2], &d);
}
static rlx_tensor b_attn_gqa(rlx_graph* g, const rlx_tensor* x) {   /* BSHD, 4 query heads on 2 kv heads, window, softcap */
    rlx_attention_desc d;
    memset(&d, 0, sizeof d);
    d.layout = RLX_LAYOUT_BSHD; d.num_heads = 4; d.num_kv_heads = 2; d.window = 2; d.softcap = 2.0f; d.scale = 0.8f;
    return rlx_attention(g, x[0], x[1], x[2], &d);
}
static rlx_tensor b_attn_mask_bias(rlx_graph* g, const rlx_tensor* x) {   /* keep_mask (a query row of batch 1 sees nothing) + bias */
    static const uint8_t km[2 * 3 * 4] = {1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0};
    int64_t ks[3] = {2, 3, 4};
    rlx_attention_desc d;
    memset(&d, 0, sizeof d);
    d.layout = RLX_LAYOUT_BHSD;
    d.keep_mask = rlx_constant(g, RLX_BOOL, 3, ks, km);
    d.bias = x[3];
    return rlx_attention(g, x[0], x[1], x[2], &d);
}

static rlx_tensor b_group_norm(rlx_graph* g, const rlx_tensor* x) { return rlx_group_norm(g, x[0], 2, x[1], x[2], 1e-5f); }
static rlx_tensor b_group_norm_plain(rlx_graph* g, const rlx_tensor* x) { rlx_tensor z = {0, 0}; return rlx_group_norm(g, x[0], 3, z, z, 1e-5f); }
static rlx_tensor b_add_rmsnorm(rlx_graph* g, const rlx_tensor* x) {   /* both outputs used */
    rlx_tensor sum, y = rlx_add_rmsnorm(g, x[0], x[1], x[2], (rlx_tensor){0, 0}, 1e-6f, &sum);
    return rlx_mul(g, y, rlx_sin(g, sum));
}
static rlx_tensor b_add_layernorm(rlx_graph* g, const rlx_tensor* x) {
    return rlx_add_layernorm(g, x[0], x[1], x[2], x[3], -1, 1e-5f, NULL);
}

static rlx_tensor b_conv2d(rlx_graph* g, const rlx_tensor* x) {   /* stride 2, padding 1/0, bias; unused last row */
    rlx_conv_desc d;
    memset(&d, 0, sizeof d);
    d.stride[0] = 2; d.stride[1] = 1; d.pad_begin[0] = 1; d.pad_begin[1] = 1; d.pad_end[1] = 0;
    return rlx_conv(g, x[0], x[1], x[2], &d);
}
static rlx_tensor b_conv2d_dil(rlx_graph* g, const rlx_tensor* x) {   /* dilation 2, stride 1, no bias */
    rlx_conv_desc d;
    memset(&d, 0, sizeof d);
    d.dilation[0] = 2; d.dilation[1] = 2; d.pad_end[0] = 1;
    return rlx_conv(g, x[0], x[1], (rlx_tensor){0, 0}, &d);
}
static rlx_tensor b_conv1d(rlx_graph* g, const rlx_tensor* x) {
    rlx_conv_desc d;
    memset(&d, 0, sizeof d);
    d.stride[0] = 3; d.pad_begin[0] = 2; d.pad_end[0] = 1;
    return rlx_conv(g, x[0], x[1], x[2], &d);
}

static rlx_tensor b_avgpool(rlx_graph* g, const rlx_tensor* x, int incl, int global) {
    rlx_pool_desc d;
    memset(&d, 0, sizeof d);
    d.kind = RLX_POOL_AVG; d.kernel[0] = 3; d.kernel[1] = 2; d.stride[0] = 2; d.stride[1] = 1;
    d.pad_begin[0] = 1; d.pad_end[1] = 1; d.count_include_pad = incl; d.global = global;
    return rlx_pool(g, x[0], &d);
}
static rlx_tensor b_avgpool_ex(rlx_graph* g, const rlx_tensor* x) { return b_avgpool(g, x, 0, 0); }
static rlx_tensor b_avgpool_in(rlx_graph* g, const rlx_tensor* x) { return b_avgpool(g, x, 1, 0); }
static rlx_tensor b_avgpool_gl(rlx_graph* g, const rlx_tensor* x) { return b_avgpool(g, x, 0, 1); }
static rlx_tensor b_maxpool(rlx_graph* g, const rlx_tensor* x, int k0, int k1, int s0, int s1, int pad, int global) {
    rlx_pool_desc d;
    memset(&d, 0, sizeof d);
    d.kind = RLX_POOL_MAX; d.kernel[0] = k0; d.kernel[1] = k1; d.stride[0] = s0; d.stride[1] = s1;
    d.pad_begin[0] = pad; d.pad_end[1] = pad; d.global = global;
    return rlx_pool(g, x[0], &d);
}
static rlx_tensor b_maxpool_22(rlx_graph* g, const rlx_tensor* x) { return b_maxpool(g, x, 2, 2, 2, 2, 0, 0); }
static rlx_tensor b_maxpool_ov(rlx_graph* g, const rlx_tensor* x) { return b_maxpool(g, x, 3, 2, 2, 1, 1, 0); }
static rlx_tensor b_maxpool_gl(rlx_graph* g, const rlx_tensor* x) { return b_maxpool(g, x, 0, 0, 0, 0, 0, 1); }
static rlx_tensor b_maxpool_1d(rlx_graph* g, const rlx_tensor* x) { return b_maxpool(g, x, 3, 0, 2, 0, 1, 0); }
static rlx_tensor b_maxpool_rem(rlx_graph* g, const rlx_tensor* x) { return b_maxpool(g, x, 3, 2, 3, 2, 1, 0); }
static rlx_tensor b_maxpool_1d2(rlx_graph* g, const rlx_tensor* x) { return b_maxpool(g, x, 2, 0, 2, 0, 0, 0); }

#define S1(a) 1, {{a}}
#define CASE1(nm, fn, d0, d1, lo, hi, pos) {nm, RLX_F64, 1, {2}, {{d0, d1}}, lo, hi, pos, fn}
static const gcase cases[] = {
    CASE1("neg", b_neg, 3, 4, 0.1, 1, 0), CASE1("abs", b_abs, 3, 4, 0.1, 1, 0), CASE1("exp", b_exp, 3, 4, 0.1, 1, 0),
    CASE1("log", b_log, 3, 4, 0.2, 2, 1), CASE1("sqrt", b_sqrt, 3, 4, 0.2, 2, 1), CASE1("rsqrt", b_rsqrt, 3, 4, 0.2, 2, 1),
    CASE1("sin", b_sin, 3, 4, 0.1, 2, 0), CASE1("cos", b_cos, 3, 4, 0.1, 2, 0), CASE1("tan", b_tan, 3, 4, 0.1, 1, 0),
    CASE1("atan", b_atan, 3, 4, 0.1, 2, 0), CASE1("tanh", b_tanh, 3, 4, 0.1, 2, 0),
    CASE1("sigmoid", b_sigmoid, 3, 4, 0.1, 3, 0), CASE1("relu", b_relu, 3, 4, 0.1, 2, 0),
    CASE1("gelu", b_gelu, 3, 4, 0.1, 2, 0), CASE1("gelu_tanh", b_gelu_tanh, 3, 4, 0.1, 2, 0),
    CASE1("silu", b_silu, 3, 4, 0.1, 2, 0), CASE1("erf", b_erf, 3, 4, 0.1, 2, 0),
    CASE1("round (zero)", b_round, 3, 4, 0.1, 2, 0),
    {"add [3,4]+[4]", RLX_F64, 2, {2, 1}, {{3, 4}, {4}}, 0.1, 1, 0, b_add},
    {"sub [2,1,4]-[3,1]", RLX_F64, 2, {3, 2}, {{2, 1, 4}, {3, 1}}, 0.1, 1, 0, b_sub},
    {"mul [3,4]*[3,1]", RLX_F64, 2, {2, 2}, {{3, 4}, {3, 1}}, 0.1, 1, 0, b_mul},
    {"div [3,4]/[4]", RLX_F64, 2, {2, 1}, {{3, 4}, {4}}, 0.5, 2, 1, b_div},
    {"pow [3,4]^[1,4]", RLX_F64, 2, {2, 2}, {{3, 4}, {1, 4}}, 0.5, 2, 1, b_pow},
    {"max [3,4],[1,4]", RLX_F64, 2, {2, 2}, {{3, 4}, {1, 4}}, 0.1, 1, 0, b_max},
    {"min [3,4],[3,4]", RLX_F64, 2, {2, 2}, {{3, 4}, {3, 4}}, 0.1, 1, 0, b_min},
    {"where (cond from x2: zero)", RLX_F64, 3, {2, 1, 2}, {{3, 4}, {4}, {3, 4}}, 0.1, 1, 0, b_where},
    {"cast f32->f64", RLX_F32, 2, {2, 2}, {{3, 4}, {3, 4}}, 0.1, 1, 0, b_cast},
    {"matmul [3,4][4,5]", RLX_F64, 2, {2, 2}, {{3, 4}, {4, 5}}, 0.1, 1, 0, b_matmul},
    {"matmul [2,3,4][4,5]", RLX_F64, 2, {3, 2}, {{2, 3, 4}, {4, 5}}, 0.1, 1, 0, b_matmul},
    {"matmul [2,1,3,4][3,4,2]", RLX_F64, 2, {4, 3}, {{2, 1, 3, 4}, {3, 4, 2}}, 0.1, 1, 0, b_matmul},
    {"matmul [4][2,4,5]", RLX_F64, 2, {1, 3}, {{4}, {2, 4, 5}}, 0.1, 1, 0, b_matmul},
    {"matmul [2,3,4][4]", RLX_F64, 2, {3, 1}, {{2, 3, 4}, {4}}, 0.1, 1, 0, b_matmul},
    {"matmul [4][4]", RLX_F64, 2, {1, 1}, {{4}, {4}}, 0.1, 1, 0, b_matmul},
    {"linear relu (f32)", RLX_F32, 3, {2, 2, 1}, {{3, 4}, {4, 5}, {5}}, 0.1, 1, 0, b_lin_relu},
    {"linear gelu (f32)", RLX_F32, 3, {3, 2, 1}, {{2, 3, 4}, {4, 5}, {5}}, 0.1, 1, 0, b_lin_gelu},
    {"linear gelu_tanh (f32)", RLX_F32, 3, {2, 2, 1}, {{3, 4}, {4, 5}, {5}}, 0.1, 1, 0, b_lin_tanh},
    {"linear silu no bias (f32)", RLX_F32, 3, {2, 2, 1}, {{3, 4}, {4, 5}, {5}}, 0.1, 1, 0, b_lin_silu},
    {"sum axis 1", RLX_F64, 1, {3}, {{3, 4, 2}}, 0.1, 1, 0, b_sum1},
    {"mean all", RLX_F64, 2, {2, 1}, {{3, 4}, {1}}, 0.1, 1, 0, b_mean_all},
    {"reduce_max axis 1", RLX_F64, 1, {3}, {{3, 4, 2}}, 0.1, 1, 0, b_max1},
    {"reduce_min axes 0,2 keep", RLX_F64, 1, {3}, {{3, 4, 2}}, 0.1, 1, 0, b_min02},
    {"softmax axis 1", RLX_F64, 1, {2}, {{3, 5}}, 0.1, 2, 0, b_softmax},
    {"log_softmax axis 0", RLX_F64, 1, {2}, {{3, 5}}, 0.1, 2, 0, b_log_softmax},
    {"layernorm axis 1 gamma beta", RLX_F64, 3, {3, 2, 2}, {{3, 4, 5}, {4, 5}, {4, 5}}, 0.1, 2, 0, b_layernorm},
    {"layernorm plain", RLX_F64, 1, {2}, {{3, 6}}, 0.1, 2, 0, b_layernorm_plain},
    {"rmsnorm gamma beta", RLX_F64, 3, {2, 1, 1}, {{3, 6}, {6}, {6}}, 0.1, 2, 0, b_rmsnorm},
    {"reshape", RLX_F64, 1, {2}, {{4, 3}}, 0.1, 1, 0, b_reshape},
    {"transpose", RLX_F64, 2, {3, 3}, {{2, 3, 4}, {4, 2, 3}}, 0.1, 1, 0, b_transpose},
    {"slice step 1", RLX_F64, 1, {2}, {{3, 6}}, 0.1, 1, 0, b_slice1},
    {"slice step 3", RLX_F64, 1, {2}, {{3, 8}}, 0.1, 1, 0, b_slice3},
    {"concat", RLX_F64, 3, {2, 2, 2}, {{3, 2}, {3, 1}, {3, 4}}, 0.1, 1, 0, b_concat},
    {"expand [3,1]->[2,3,4]", RLX_F64, 2, {2, 3}, {{3, 1}, {2, 3, 4}}, 0.1, 1, 0, b_expand},
    {"pad constant", RLX_F64, 1, {2}, {{3, 2}}, 0.1, 1, 0, b_pad},
    {"gather axis 0 repeated", RLX_F64, 1, {2}, {{5, 4}}, 0.1, 1, 0, b_gather0},
    {"gather axis 1 i32", RLX_F64, 1, {3}, {{2, 4, 3}}, 0.1, 1, 0, b_gather1},
    {"cumsum", RLX_F64, 1, {2}, {{3, 4}}, 0.1, 1, 0, b_cumsum},
    {"cumsum exclusive reverse", RLX_F64, 1, {2}, {{3, 4}}, 0.1, 1, 0, b_cumsum_er},
    {"swiglu", RLX_F64, 2, {2, 2}, {{3, 4}, {3, 4}}, 0.1, 2, 0, b_swiglu},
    {"geglu", RLX_F64, 2, {2, 2}, {{3, 4}, {3, 4}}, 0.1, 2, 0, b_geglu},
    {"cross_entropy", RLX_F64, 1, {2}, {{4, 5}}, 0.1, 2, 0, b_xent},
    {"mse_loss", RLX_F64, 2, {2, 2}, {{3, 4}, {3, 4}}, 0.1, 2, 0, b_mse_loss},
    {"mlp + cross_entropy", RLX_F64, 3, {2, 2, 1}, {{3, 4}, {4, 5}, {5}}, 0.1, 1, 0, b_mlp},
    {"attention op BHSD causal (f32)", RLX_F32, 3, {4, 4, 4}, {{1, 2, 3, 4}, {1, 2, 5, 4}, {1, 2, 5, 3}}, 0.1, 1, 0, b_attn_causal},
    {"attention op BSHD GQA window softcap (f32)", RLX_F32, 3, {3, 3, 3}, {{2, 3, 8}, {2, 4, 4}, {2, 4, 4}}, 0.1, 1, 0, b_attn_gqa},
    {"attention op keep_mask bias (f32)", RLX_F32, 4, {4, 4, 4, 4}, {{2, 2, 3, 4}, {2, 2, 4, 4}, {2, 2, 4, 3}, {1, 2, 3, 4}}, 0.1, 1, 0, b_attn_mask_bias},
    {"group_norm gamma beta", RLX_F64, 3, {3, 1, 1}, {{2, 4, 3}, {4}, {4}}, 0.1, 2, 0, b_group_norm},
    {"group_norm plain [2,6,2,2]", RLX_F64, 1, {4}, {{2, 6, 2, 2}}, 0.1, 2, 0, b_group_norm_plain},
    {"add_rmsnorm with sum_out", RLX_F64, 3, {2, 2, 1}, {{3, 5}, {3, 5}, {5}}, 0.1, 2, 0, b_add_rmsnorm},
    {"add_layernorm", RLX_F64, 4, {2, 2, 1, 1}, {{3, 5}, {3, 5}, {5}, {5}}, 0.1, 2, 0, b_add_layernorm},
    {"conv2d stride 2 pad bias", RLX_F64, 3, {4, 4, 1}, {{2, 3, 6, 5}, {4, 3, 3, 2}, {4}}, 0.1, 1, 0, b_conv2d},
    {"conv2d dilation 2", RLX_F64, 2, {4, 4}, {{1, 2, 6, 6}, {3, 2, 2, 2}}, 0.1, 1, 0, b_conv2d_dil},
    {"conv1d stride 3", RLX_F64, 3, {3, 3, 1}, {{2, 2, 9}, {3, 2, 3}, {3}}, 0.1, 1, 0, b_conv1d},
    {"avg pool 3x2 stride 2,1 pad, padding not counted", RLX_F64, 1, {4}, {{2, 3, 6, 5}}, 0.1, 1, 0, b_avgpool_ex},
    {"avg pool 3x2 stride 2,1 pad, padding counted", RLX_F64, 1, {4}, {{1, 2, 7, 4}}, 0.1, 1, 0, b_avgpool_in},
    {"avg pool global", RLX_F64, 1, {4}, {{2, 3, 4, 5}}, 0.1, 1, 0, b_avgpool_gl},
    {"max pool 2x2 stride 2", RLX_F64, 1, {4}, {{2, 3, 6, 4}}, 0.1, 1, 0, b_maxpool_22},
    {"max pool 3x2 stride 2,1 pad (overlapping)", RLX_F64, 1, {4}, {{2, 2, 7, 5}}, 0.1, 1, 0, b_maxpool_ov},
    {"max pool global", RLX_F64, 1, {4}, {{2, 3, 4, 5}}, 0.1, 1, 0, b_maxpool_gl},
    {"max pool 1D 3 stride 2 pad", RLX_F64, 1, {3}, {{2, 3, 9}}, 0.1, 1, 0, b_maxpool_1d},
    {"max pool 3x2 stride 3x2 pad, rows left over", RLX_F64, 1, {4}, {{2, 2, 7, 5}}, 0.1, 1, 0, b_maxpool_rem},
    {"max pool 1D 2 stride 2, one left over", RLX_F64, 1, {3}, {{2, 3, 7}}, 0.1, 1, 0, b_maxpool_1d2},
    {"attention (matmul+softmax)", RLX_F64, 3, {3, 3, 3}, {{2, 3, 4}, {2, 5, 4}, {2, 5, 3}}, 0.1, 1, 0, b_attn_dec},
};

static void compile_desc(rlx_compile_desc* cd) {
    memset(cd, 0, sizeof *cd);
    cd->device = dev;
    cd->flags = RLX_COMPILE_NO_FALLBACK;
}

static int set_in(rlx_program* p, const char* nm, rlx_dtype dt, const double* v, int64_t n) {
    if (dt == RLX_F64) return rlx_set_input(p, nm, RLX_F64, v, sizeof(double) * (size_t)n);
    {
        float* f = (float*)malloc(sizeof(float) * (size_t)n);
        int64_t i;
        int r;
        for (i = 0; i < n; i++) f[i] = (float)v[i];
        r = rlx_set_input(p, nm, RLX_F32, f, sizeof(float) * (size_t)n);
        free(f);
        return r;
    }
}
static int get_out(rlx_program* p, const char* nm, rlx_dtype dt, double* v, int64_t n) {
    if (dt == RLX_F64) return rlx_get_output(p, nm, RLX_F64, v, sizeof(double) * (size_t)n);
    {
        float* f = (float*)malloc(sizeof(float) * (size_t)n);
        int64_t i;
        int r = rlx_get_output(p, nm, RLX_F32, f, sizeof(float) * (size_t)n);
        for (i = 0; i < n; i++) v[i] = f[i];
        free(f);
        return r;
    }
}

static void run_case(const gcase* c) {
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor xs[4], gr[4], y, loss;
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    double *xv[4], *gv[4], lp, lm, l0 = 0, worst = 0;
    char nm[16];
    int k, r, yr = 0, bad = 0, kinks = 0, total = 0;
    int64_t ys[RLX_MAX_RANK], n[4], j;
    rlx_dtype ldt;
    int f32 = c->dt == RLX_F32;
    double h = f32 ? 1e-3 : 1e-6, atol = f32 ? 2e-3 : 1e-6, rtol = f32 ? 2e-2 : 1e-5;
    cur_dt = c->dt;
    for (k = 0; k < c->nin; k++) {
        snprintf(nm, sizeof nm, "x%d", k);
        xs[k] = rlx_input(g, nm, c->dt, c->rank[k], c->shape[k]);
        n[k] = numel(c->rank[k], c->shape[k]);
        xv[k] = (double*)malloc(sizeof(double) * (size_t)n[k]);
        gv[k] = (double*)malloc(sizeof(double) * (size_t)n[k]);
        for (j = 0; j < n[k]; j++) {
            double m = th_uniform(c->lo, c->hi);
            xv[k][j] = c->pos || (th_rng() & 1) ? m : -m;
            if (f32) xv[k][j] = (float)xv[k][j];
        }
    }
    y = c->f(g, xs);
    ldt = rlx_tensor_info(g, y, &yr, ys);
    loss = rlx_reduce_sum(g, rlx_mul(g, y, rconst(g, ldt == RLX_DTYPE_INVALID ? c->dt : ldt, yr, ys)), 0, NULL, 0);
    r = rlx_grad(g, loss, c->nin, xs, gr);
    TH_CHECK(r == RLX_OK, "%s: rlx_grad: %s", c->name, rlx_graph_error(g));
    if (r != RLX_OK) goto done;
    rlx_output(g, "loss", loss);
    for (k = 0; k < c->nin; k++) { snprintf(nm, sizeof nm, "g%d", k); rlx_output(g, nm, gr[k]); }
    compile_desc(&cd);
    r = rlx_compile(g, &cd, &p);
    if (r == RLX_ERROR_UNSUPPORTED || r == RLX_ERROR_DEVICE_UNAVAILABLE) {
        th_skip("%s on %s: %s", c->name, dev_name, rlx_graph_error(g));
        goto done;
    }
    TH_CHECK(r == RLX_OK, "%s: compile: %s", c->name, rlx_graph_error(g));
    if (r != RLX_OK) goto done;
    for (k = 0; k < c->nin; k++) { snprintf(nm, sizeof nm, "x%d", k); set_in(p, nm, c->dt, xv[k], n[k]); }
    r = rlx_run(p);
    TH_CHECK(r == RLX_OK, "%s: run: %s", c->name, rlx_program_error(p));
    if (r != RLX_OK) goto done;
    for (k = 0; k < c->nin; k++) { snprintf(nm, sizeof nm, "g%d", k); get_out(p, nm, c->dt, gv[k], n[k]); }
    get_out(p, "loss", ldt, &l0, 1);
    for (k = 0; k < c->nin; k++) {
        snprintf(nm, sizeof nm, "x%d", k);
        for (j = 0; j < n[k]; j++) {
            double x0 = xv[k][j], fd;
            xv[k][j] = x0 + h; set_in(p, nm, c->dt, xv[k], n[k]); rlx_run(p); get_out(p, "loss", ldt, &lp, 1);
            xv[k][j] = x0 - h; set_in(p, nm, c->dt, xv[k], n[k]); rlx_run(p); get_out(p, "loss", ldt, &lm, 1);
            xv[k][j] = x0; set_in(p, nm, c->dt, xv[k], n[k]);
            fd = (lp - lm) / (2 * h);
            /* f32 cases (h = 1e-3) with relu: a pre-activation within h of 0 puts a kink inside [x - h, x + h];
               the one-sided differences then disagree, and that element says nothing about the rule */
            if (f32 && fabs((lp - l0) - (l0 - lm)) / h > 0.01) { kinks++; continue; }
            if (!th_close(gv[k][j], fd, atol, rtol)) {
                if (bad < 3) printf("  %s: d/dx%d[%lld] = %.9g, finite difference %.9g\n", c->name, k, (long long)j, gv[k][j], fd);
                bad++;
            }
            if (fabs(gv[k][j] - fd) > worst) worst = fabs(gv[k][j] - fd);
            total++;
        }
    }
    if (kinks) printf("  %s: %d of %d elements left out (a relu kink within h)\n", c->name, kinks, kinks + total);
    TH_CHECK(kinks * 4 <= total, "%s: too many elements near a kink (%d of %d)", c->name, kinks, kinks + total);
    TH_CHECK(bad == 0, "%s on %s: %d gradient elements differ from finite differences (worst |diff| %.3g)", c->name,
             dev_name, bad, worst);
done:
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    for (k = 0; k < c->nin; k++) { free(xv[k]); free(gv[k]); }
}

/* ---- max pooling with tied maxima: the window's first maximum (row-major) takes the gradient, as in PyTorch.
   Finite differences cannot see ties; the oracle here scans each window in order and keeps the first strictly
   greater element. Values 0, 1, 2 repeat, so most windows hold a tie. ---- */
static void test_maxpool_ties(void) {
    static const int cfg[3][4] = {{2, 2, 2, 2}, {2, 2, 1, 1}, {3, 2, 3, 2}};   /* kernel h, w, stride h, w */
    int c;
    for (c = 0; c < 3; c++) {
        int64_t xs[4] = {1, 2, 6, 4}, rs[4];
        int KH = cfg[c][0], KW = cfg[c][1], SH = cfg[c][2], SW = cfg[c][3], Ho = (6 - KH) / SH + 1, Wo = (4 - KW) / SW + 1;
        float xv[48], rv[2 * 6 * 4], gv[48];
        double want[48];
        rlx_graph* g = rlx_graph_create(NULL);
        rlx_tensor x, y, loss, gr;
        rlx_pool_desc d;
        rlx_compile_desc cd;
        rlx_program* p = NULL;
        int i, ch, oh, ow, kh, kw, bad = 0;
        rlx_result r;
        for (i = 0; i < 48; i++) xv[i] = (float)((i * 7 + i / 5) % 3);
        for (i = 0; i < 2 * Ho * Wo; i++) rv[i] = (float)(i + 1);
        memset(want, 0, sizeof want);
        for (ch = 0; ch < 2; ch++)
            for (oh = 0; oh < Ho; oh++)
                for (ow = 0; ow < Wo; ow++) {
                    int best = -1;
                    for (kh = 0; kh < KH; kh++)
                        for (kw = 0; kw < KW; kw++) {
                            int at = ch * 24 + (oh * SH + kh) * 4 + ow * SW + kw;
                            if (best < 0 || xv[at] > xv[best]) best = at;
                        }
                    want[best] += rv[(ch * Ho + oh) * Wo + ow];
                }
        memset(&d, 0, sizeof d);
        d.kind = RLX_POOL_MAX; d.kernel[0] = KH; d.kernel[1] = KW; d.stride[0] = SH; d.stride[1] = SW;
        x = rlx_input(g, "x", RLX_F32, 4, xs);
        y = rlx_pool(g, x, &d);
        rs[0] = 1; rs[1] = 2; rs[2] = Ho; rs[3] = Wo;
        loss = rlx_reduce_sum(g, rlx_mul(g, y, rlx_constant(g, RLX_F32, 4, rs, rv)), 0, NULL, 0);
        r = rlx_grad(g, loss, 1, &x, &gr);
        TH_CHECK(r == RLX_OK, "max pool ties %d: rlx_grad: %s", c, rlx_graph_error(g));
        rlx_output(g, "g", gr);
        compile_desc(&cd);
        if (r == RLX_OK) r = rlx_compile(g, &cd, &p);
        if (r == RLX_ERROR_UNSUPPORTED || r == RLX_ERROR_DEVICE_UNAVAILABLE) {
            th_skip("max pool ties on %s: %s", dev_name, rlx_graph_error(g));
        } else if (r == RLX_OK) {
            rlx_set_input(p, "x", RLX_F32, xv, sizeof xv);
            r = rlx_run(p);
            TH_CHECK(r == RLX_OK && rlx_get_output(p, "g", RLX_F32, gv, sizeof gv) == RLX_OK, "max pool ties %d: run: %s",
                     c, rlx_program_error(p));
            for (i = 0; i < 48; i++) bad += gv[i] != (float)want[i];
            TH_CHECK(bad == 0, "max pool ties, kernel %dx%d stride %dx%d on %s: %d gradient elements differ from the "
                     "first-maximum oracle", KH, KW, SH, SW, dev_name, bad);
        } else {
            TH_CHECK(0, "max pool ties %d: compile: %s", c, rlx_graph_error(g));
        }
        rlx_program_destroy(p);
        rlx_graph_destroy(g);
    }
}

/* ---- error cases and the zero gradient ---- */
static void test_errors(void) {
    int64_t s23[2] = {2, 3}, s4[1] = {4}, s45[2] = {4, 5};
    rlx_graph* g;
    rlx_tensor x, w, u, grads[2], loss, ws[2];
    rlx_result r;

    g = rlx_graph_create(NULL);   /* non-scalar loss */
    x = rlx_input(g, "x", RLX_F32, 2, s23);
    r = rlx_grad(g, rlx_exp(g, x), 1, &x, grads);
    TH_CHECK(r == RLX_ERROR_SHAPE && strstr(rlx_graph_error(g), "[2,3]") && strstr(rlx_graph_error(g), "scalar"),
             "non-scalar loss: %s / %s", rlx_result_string(r), rlx_graph_error(g));
    TH_CHECK(grads[0].id == 0, "non-scalar loss leaves the gradient handle invalid");
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);   /* argmax on the path */
    x = rlx_input(g, "x", RLX_F32, 2, s45);
    rlx_set_next_name(g, "pick");
    u = rlx_argmax(g, x, 1, 0);
    loss = rlx_reduce_sum(g, rlx_mul(g, rlx_cast(g, u, RLX_F32), rlx_reduce_sum(g, x, 1, (const int[]){1}, 0)), 0, NULL, 0);
    r = rlx_grad(g, loss, 1, &x, grads);
    TH_CHECK(r == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_graph_error(g), "argmax") &&
             strstr(rlx_graph_error(g), "'pick'") && strstr(rlx_graph_error(g), "not differentiable"),
             "argmax on the path: %s / %s", rlx_result_string(r), rlx_graph_error(g));
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);   /* comparison on the path */
    x = rlx_input(g, "x", RLX_F32, 1, s4);
    loss = rlx_reduce_sum(g, rlx_cast(g, rlx_gt(g, x, rlx_scalar(g, RLX_F32, 0)), RLX_F32), 0, NULL, 0);
    r = rlx_grad(g, loss, 1, &x, grads);
    TH_CHECK(r == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_graph_error(g), "gt (node"),
             "comparison on the path: %s / %s", rlx_result_string(r), rlx_graph_error(g));
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);   /* an op without a rule */
    {
        int ax = 1;
        x = rlx_input(g, "x", RLX_F32, 2, s23);
        w = rlx_state(g, "w", RLX_F32, 2, s23);
        loss = rlx_reduce_sum(g, rlx_reduce_prod(g, rlx_mul(g, x, w), 1, &ax, 0), 0, NULL, 0);   /* prod: no rule yet */
        r = rlx_grad(g, loss, 1, &w, grads);
        TH_CHECK(r == RLX_ERROR_UNSUPPORTED && strstr(rlx_graph_error(g), "prod (node") &&
                 strstr(rlx_graph_error(g), "no gradient rule"), "prod: %s / %s", rlx_result_string(r), rlx_graph_error(g));
    }
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);   /* symbolic dims: not yet */
    {
        int64_t sd[2];
        sd[0] = rlx_dim(g, "batch", 2); sd[1] = 3;
        x = rlx_input(g, "x", RLX_F32, 2, sd);
        r = rlx_grad(g, rlx_reduce_sum(g, rlx_exp(g, x), 0, NULL, 0), 1, &x, grads);
        TH_CHECK(r == RLX_ERROR_UNSUPPORTED && strstr(rlx_graph_error(g), "symbolic dims"), "symbolic dims: %s",
                 rlx_graph_error(g));
    }
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);   /* attention with kv_len: a rule (tests/test_autodiff_more.c checks its values) */
    {
        int64_t qs[4] = {1, 1, 2, 4};
        rlx_attention_desc ad;
        memset(&ad, 0, sizeof ad);
        ad.layout = RLX_LAYOUT_BHSD;
        ad.kv_len = rlx_scalar(g, RLX_I64, 1);
        x = rlx_input(g, "q", RLX_F32, 4, qs);
        loss = rlx_reduce_sum(g, rlx_attention(g, x, x, x, &ad), 0, NULL, 0);
        r = rlx_grad(g, loss, 1, &x, grads);
        TH_CHECK(r == RLX_OK, "attention kv_len: %s", rlx_graph_error(g));
    }
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);   /* an unreachable param gets zeros; a reachable one its gradient */
    x = rlx_input(g, "x", RLX_F32, 1, s4);
    w = rlx_state(g, "w", RLX_F32, 1, s4);
    u = rlx_state(g, "unused", RLX_F32, 2, s23);
    ws[0] = w; ws[1] = u;
    loss = rlx_reduce_sum(g, rlx_mul(g, x, w), 0, NULL, 0);
    r = rlx_grad(g, loss, 2, ws, grads);
    TH_CHECK(r == RLX_OK, "unreachable param: %s", rlx_graph_error(g));
    if (r == RLX_OK) {
        rlx_program* p = NULL;
        rlx_compile_desc cd;
        float xv[4] = {1.5f, -2, 3, 0.25f}, g0[4], g1[6];
        int i, ok = 1, rk = 0;
        int64_t sh[8];
        TH_CHECK(rlx_tensor_info(g, grads[1], &rk, sh) == RLX_F32 && rk == 2 && sh[0] == 2 && sh[1] == 3,
                 "zero gradient has the param's shape");
        rlx_output(g, "g0", grads[0]);
        rlx_output(g, "g1", grads[1]);
        compile_desc(&cd);
        r = rlx_compile(g, &cd, &p);
        TH_CHECK(r == RLX_OK, "compile: %s", rlx_graph_error(g));
        if (r == RLX_OK) {
            rlx_set_input_f32(p, "x", xv, 4);
            TH_CHECK(rlx_run(p) == RLX_OK, "run: %s", rlx_program_error(p));
            rlx_get_output_f32(p, "g0", g0, 4);
            rlx_get_output_f32(p, "g1", g1, 6);
            for (i = 0; i < 4; i++) ok &= g0[i] == xv[i];
            for (i = 0; i < 6; i++) ok &= g1[i] == 0;
            TH_CHECK(ok, "d sum(x*w)/dw = x and the unreachable param's gradient is zeros");
        }
        rlx_program_destroy(p);
    }
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);   /* bad arguments */
    x = rlx_input(g, "x", RLX_F32, 1, s4);
    loss = rlx_reduce_sum(g, x, 0, NULL, 0);
    TH_CHECK(rlx_grad(NULL, loss, 1, &x, grads) == RLX_ERROR_INVALID_ARGUMENT, "NULL graph");
    TH_CHECK(rlx_grad(g, loss, 0, &x, grads) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_graph_error(g), "n = 0"),
             "n = 0: %s", rlx_graph_error(g));
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);
    x = rlx_input(g, "x", RLX_F32, 1, s4);
    {
        rlx_tensor bogus = {999, x.graph};
        loss = rlx_reduce_sum(g, x, 0, NULL, 0);
        TH_CHECK(rlx_grad(g, loss, 1, &bogus, grads) == RLX_ERROR_INVALID_TENSOR, "invalid wrt handle: %s", rlx_graph_error(g));
    }
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);   /* losses: bad shapes */
    {
        int64_t s3[1] = {3};
        rlx_tensor lg = rlx_input(g, "l", RLX_F32, 2, s45), lb = rlx_input(g, "y", RLX_I64, 1, s3);
        TH_CHECK(rlx_cross_entropy(g, lg, lb).id == 0 && rlx_graph_status(g) == RLX_ERROR_SHAPE &&
                 strstr(rlx_graph_error(g), "cross_entropy"), "cross_entropy label shape: %s", rlx_graph_error(g));
    }
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);
    {
        rlx_tensor a = rlx_input(g, "a", RLX_F32, 2, s45), b = rlx_input(g, "b", RLX_F32, 2, s23);
        TH_CHECK(rlx_mse_loss(g, a, b).id == 0 && rlx_graph_status(g) == RLX_ERROR_SHAPE &&
                 strstr(rlx_graph_error(g), "[4,5]") && strstr(rlx_graph_error(g), "[2,3]"), "mse shapes: %s", rlx_graph_error(g));
    }
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);   /* optimizer: a param that is not a state */
    {
        rlx_tensor pp = rlx_param(g, "p", RLX_F32, 1, s4), gg;
        loss = rlx_reduce_sum(g, rlx_mul(g, pp, pp), 0, NULL, 0);
        rlx_grad(g, loss, 1, &pp, &gg);
        r = rlx_optimizer_step(g, NULL, 1, &pp, &gg);
        TH_CHECK(r == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_graph_error(g), "rlx_state"), "optimizer on a param: %s",
                 rlx_graph_error(g));
    }
    rlx_graph_destroy(g);
    g = rlx_graph_create(NULL);   /* optimizer: gradient of the wrong shape, bad settings */
    {
        rlx_tensor pp = rlx_state(g, "p", RLX_F32, 1, s4), gg = rlx_input(g, "g", RLX_F32, 2, s23);
        rlx_optimizer_desc od;
        memset(&od, 0, sizeof od);
        od.beta1 = 1.5f;
        TH_CHECK(rlx_optimizer_step(g, &od, 1, &pp, &pp) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_graph_error(g), "beta1"),
                 "beta1 1.5: %s", rlx_graph_error(g));
        rlx_graph_destroy(g);
        g = rlx_graph_create(NULL);
        pp = rlx_state(g, "p", RLX_F32, 1, s4); gg = rlx_input(g, "g", RLX_F32, 2, s23);
        TH_CHECK(rlx_optimizer_step(g, NULL, 1, &pp, &gg) == RLX_ERROR_SHAPE && strstr(rlx_graph_error(g), "'p'"),
                 "gradient shape: %s", rlx_graph_error(g));
    }
    rlx_graph_destroy(g);
}

int main(int argc, char** argv) {
    size_t i;
    const char* dv = getenv("RLX_TEST_DEVICE");
    const char* only = argc > 1 ? argv[1] : NULL;
    if (dv && *dv) {
        dev_name = dv;
        dev = strcmp(dv, "vulkan") == 0 ? RLX_DEVICE_VULKAN : strcmp(dv, "cuda") == 0 ? RLX_DEVICE_CUDA
            : strcmp(dv, "hip") == 0 ? RLX_DEVICE_HIP : RLX_DEVICE_CPU;
    }
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (!only || strstr(cases[i].name, only)) run_case(&cases[i]);
    if (!only) test_errors();
    if (!only || strstr("max pool ties", only)) test_maxpool_ties();
    return th_summary("autodiff");
}
