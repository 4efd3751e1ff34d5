/* rlx_grad (>>autodiff): the gradient rules of rope, grouped and depthwise conv, conv_transpose, attention with
   kv_len and resize, against central finite differences of the forward graph.
   Each case builds y = f(x0, x1, ...) on random non-zero inputs (|x| in [0.1, 1], random sign), the loss
   sum(y · R) with a random constant R (every output element gets its own weight), asks rlx_grad for
   d loss / d xk and compares every element with (loss(x + h) − loss(x − h)) / 2h, the same forward program run
   in f64 (h = 1e-6, |diff| <= 1e-6 + 1e-5·|fd|) or, for ops without f64 kernels, in f32 (h = 1e-3,
   |diff| <= 2e-3 + 2e-2·|fd|). The oracle is the forward program only, never a gradient rule.
   RLX_TEST_DEVICE=cpu|vulkan|cuda|hip runs every case on that device (no fallback; a case the device cannot
   compile is skipped with the reason); default CPU. An argument runs only the cases whose name contains it. */
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
    build_fn f;
} gcase;

static int64_t numel(int r, const int64_t* s) { int64_t n = 1; int i; for (i = 0; i < r; i++) n *= s[i]; return n; }

/* a constant of random values in [-1, 1] */
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
/* an i64 input a builder declares (set by run_case before every run): kv_len given at run time */
static const char* i64_name;
static const int64_t* i64_vals;
static int64_t i64_n;

/* ---- rope: random (not unit) cos/sin tables as constants, so the rule must be the transposed rotation ---- */
static rlx_tensor rope_case(rlx_graph* g, rlx_tensor x, rlx_rope_kind kind, rlx_layout layout, int heads, int nrot,
                            int64_t P, int64_t offset, rlx_tensor positions) {
    rlx_rope_desc d;
    int64_t ts[2];
    int64_t D = 0, xs[RLX_MAX_RANK];
    int xr = 0;
    rlx_tensor_info(g, x, &xr, xs);
    D = layout == RLX_LAYOUT_BSHD ? xs[2] / heads : xs[3];
    ts[0] = P; ts[1] = (nrot ? nrot : D) / 2;
    memset(&d, 0, sizeof d);
    d.kind = kind; d.layout = layout; d.num_heads = heads; d.n_rot = nrot; d.position_offset = offset;
    d.positions = positions;
    return rlx_rope(g, x, rconst(g, cur_dt, 2, ts), rconst(g, cur_dt, 2, ts), &d);
}
static rlx_tensor b_rope_neox_bhsd(rlx_graph* g, const rlx_tensor* x) {   /* [2,2,3,4], full rotation */
    return rope_case(g, x[0], RLX_ROPE_NEOX, RLX_LAYOUT_BHSD, 0, 0, 5, 0, (rlx_tensor){0, 0});
}
static rlx_tensor b_rope_gptj_bshd(rlx_graph* g, const rlx_tensor* x) {   /* n_rot 4 < D 6, offset 2: s = 2 is past P */
    return rope_case(g, x[0], RLX_ROPE_GPTJ, RLX_LAYOUT_BSHD, 2, 4, 4, 2, (rlx_tensor){0, 0});
}
static rlx_tensor b_rope_neox_pos(rlx_graph* g, const rlx_tensor* x) {   /* positions [S] i32, one out of range */
    int32_t pv[4] = {3, 0, 7, 2};
    int64_t ps = 4;
    return rope_case(g, x[0], RLX_ROPE_NEOX, RLX_LAYOUT_BSHD, 3, 2, 5, 0, rlx_constant(g, RLX_I32, 1, &ps, pv));
}
static rlx_tensor b_rope_gptj_pos2(rlx_graph* g, const rlx_tensor* x) {   /* positions [B, S] i64, BHSD, n_rot 6 < 8 */
    int64_t pv[6] = {0, 1, 2, 4, 4, -1}, ps[2] = {2, 3};
    return rope_case(g, x[0], RLX_ROPE_GPTJ, RLX_LAYOUT_BHSD, 0, 6, 5, 0, rlx_constant(g, RLX_I64, 2, ps, pv));
}
/* cos / sin tables as inputs (differentiated too): x[1], x[2] are [P, n_rot/2] */
static rlx_tensor rope_tab(rlx_graph* g, const rlx_tensor* x, rlx_rope_kind kind, rlx_layout layout, int heads, int nrot,
                           int64_t offset, rlx_tensor positions) {
    rlx_rope_desc d;
    memset(&d, 0, sizeof d);
    d.kind = kind; d.layout = layout; d.num_heads = heads; d.n_rot = nrot; d.position_offset = offset;
    d.positions = positions;
    return rlx_rope(g, x[0], x[1], x[2], &d);
}
static rlx_tensor b_rope_tab_neox(rlx_graph* g, const rlx_tensor* x) {   /* BHSD, offset -1: token 0 outside */
    return rope_tab(g, x, RLX_ROPE_NEOX, RLX_LAYOUT_BHSD, 0, 0, -1, (rlx_tensor){0, 0});
}
static rlx_tensor b_rope_tab_gptj(rlx_graph* g, const rlx_tensor* x) {   /* BSHD, n_rot 4 < D 6, offset 2, rows past P */
    return rope_tab(g, x, RLX_ROPE_GPTJ, RLX_LAYOUT_BSHD, 2, 4, 2, (rlx_tensor){0, 0});
}
static rlx_tensor b_rope_tab_pos(rlx_graph* g, const rlx_tensor* x) {   /* positions [B, S] with repeats and outsiders */
    int64_t pv[6] = {1, 1, 3, 0, 5, -2}, ps[2] = {2, 3};
    return rope_tab(g, x, RLX_ROPE_NEOX, RLX_LAYOUT_BHSD, 0, 2, 0, rlx_constant(g, RLX_I64, 2, ps, pv));
}
static rlx_tensor b_rope_tab_pos1(rlx_graph* g, const rlx_tensor* x) {   /* positions [S] i32, BSHD gptj */
    int32_t pv[3] = {2, 2, 0};
    int64_t ps = 3;
    return rope_tab(g, x, RLX_ROPE_GPTJ, RLX_LAYOUT_BSHD, 2, 0, 0, rlx_constant(g, RLX_I32, 1, &ps, pv));
}
static rlx_tensor b_rope_twice(rlx_graph* g, const rlx_tensor* x) {   /* rope of a product, used twice */
    rlx_tensor r = rope_case(g, rlx_mul(g, x[0], x[1]), RLX_ROPE_NEOX, RLX_LAYOUT_BHSD, 0, 0, 3, 1, (rlx_tensor){0, 0});
    return rlx_mul(g, r, rlx_sin(g, r));
}

/* ---- conv with groups (depthwise included) and conv_transpose: x, w and bias all differentiated ---- */
static rlx_tensor conv_case(rlx_graph* g, const rlx_tensor* x, int transpose, int groups, int s0, int s1, int d0, int d1,
                            int pb0, int pb1, int pe0, int pe1, int op0, int op1, int bias) {
    rlx_conv_desc d;
    memset(&d, 0, sizeof d);
    d.groups = groups; d.stride[0] = s0; d.stride[1] = s1; d.dilation[0] = d0; d.dilation[1] = d1;
    d.pad_begin[0] = pb0; d.pad_begin[1] = pb1; d.pad_end[0] = pe0; d.pad_end[1] = pe1;
    d.output_padding[0] = op0; d.output_padding[1] = op1;
    return (transpose ? rlx_conv_transpose : rlx_conv)(g, x[0], x[1], bias ? x[2] : (rlx_tensor){0, 0}, &d);
}
static rlx_tensor b_conv_g2(rlx_graph* g, const rlx_tensor* x) { return conv_case(g, x, 0, 2, 2, 1, 1, 2, 1, 0, 0, 1, 0, 0, 1); }
static rlx_tensor b_conv_g3(rlx_graph* g, const rlx_tensor* x) { return conv_case(g, x, 0, 3, 1, 2, 2, 1, 0, 1, 1, 1, 0, 0, 0); }
static rlx_tensor b_conv_dw(rlx_graph* g, const rlx_tensor* x) { return conv_case(g, x, 0, 3, 2, 2, 1, 1, 1, 1, 1, 0, 0, 0, 1); }
static rlx_tensor b_conv_dw_mult(rlx_graph* g, const rlx_tensor* x) { return conv_case(g, x, 0, 2, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 1); }
static rlx_tensor b_conv1d_g2(rlx_graph* g, const rlx_tensor* x) { return conv_case(g, x, 0, 2, 2, 0, 2, 0, 1, 0, 2, 0, 0, 0, 1); }
static rlx_tensor b_conv1d_dw(rlx_graph* g, const rlx_tensor* x) { return conv_case(g, x, 0, 3, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0); }
static rlx_tensor b_convt(rlx_graph* g, const rlx_tensor* x) { return conv_case(g, x, 1, 1, 2, 2, 1, 1, 1, 1, 1, 0, 1, 1, 1); }
static rlx_tensor b_convt_g2(rlx_graph* g, const rlx_tensor* x) { return conv_case(g, x, 1, 2, 2, 1, 1, 2, 0, 1, 1, 0, 1, 0, 1); }
static rlx_tensor b_convt_dw(rlx_graph* g, const rlx_tensor* x) { return conv_case(g, x, 1, 3, 3, 2, 1, 1, 1, 0, 2, 1, 2, 1, 0); }
static rlx_tensor b_convt_chain(rlx_graph* g, const rlx_tensor* x) {   /* conv_transpose then a grouped conv back (f32) */
    rlx_conv_desc d;
    memset(&d, 0, sizeof d);
    d.groups = 2; d.stride[0] = d.stride[1] = 2;
    return rlx_tanh(g, rlx_conv(g, rlx_conv_transpose(g, x[0], x[1], (rlx_tensor){0, 0}, &d), x[2], (rlx_tensor){0, 0}, &d));
}

/* ---- attention with kv_len (a constant: scalar or one per batch row), through the decomposition ---- */
static rlx_tensor attn_kv(rlx_graph* g, const rlx_tensor* x, rlx_layout layout, int heads, int kv_heads, int causal,
                          int window, int nkv, const int64_t* kv, int mask_bias) {
    rlx_attention_desc d;
    memset(&d, 0, sizeof d);
    d.layout = layout; d.num_heads = heads; d.num_kv_heads = kv_heads; d.causal = causal; d.window = window;
    if (nkv == 0) d.kv_len = rlx_scalar(g, RLX_I32, (double)kv[0]);
    else if (nkv > 0) { int64_t n = nkv; d.kv_len = rlx_constant(g, RLX_I64, 1, &n, kv); }
    if (mask_bias) {   /* keep_mask [B, Sk] = [2, 5] with a hole, bias [1, 2, Sq, Sk] = [1, 2, 3, 5] from x[3] */
        static const unsigned char keep[10] = {1, 0, 1, 1, 1, 1, 1, 1, 1, 0};
        int64_t ks[2] = {2, 5};
        d.keep_mask = rlx_constant(g, RLX_BOOL, 2, ks, keep);
        d.bias = x[3];
    }
    return rlx_attention(g, x[0], x[1], x[2], &d);
}
static rlx_tensor b_attn_kv_lt(rlx_graph* g, const rlx_tensor* x) {   /* scalar kv_len 3 < Sk 5 */
    static const int64_t kv[1] = {3};
    return attn_kv(g, x, RLX_LAYOUT_BHSD, 0, 0, 0, 0, 0, kv, 0);
}
static rlx_tensor b_attn_kv_eq_causal(rlx_graph* g, const rlx_tensor* x) {   /* scalar kv_len = Sk, causal, Sq 3 < Sk 5 */
    static const int64_t kv[1] = {5};
    return attn_kv(g, x, RLX_LAYOUT_BHSD, 0, 0, 1, 0, 0, kv, 0);
}
static rlx_tensor b_attn_kv_rows_gqa(rlx_graph* g, const rlx_tensor* x) {   /* [B] = {4, 2}, BSHD, GQA, window 2 */
    static const int64_t kv[2] = {4, 2};
    return attn_kv(g, x, RLX_LAYOUT_BSHD, 4, 2, 1, 2, 2, kv, 0);
}
static rlx_tensor b_attn_kv_rows_clamp(rlx_graph* g, const rlx_tensor* x) {   /* [B] = {0, 7}: no key; clamped to Sk */
    static const int64_t kv[2] = {0, 7};
    return attn_kv(g, x, RLX_LAYOUT_BHSD, 0, 0, 1, 0, 2, kv, 0);
}
static rlx_tensor b_attn_kv_rows_mask(rlx_graph* g, const rlx_tensor* x) {   /* [B] = {5, 3} with keep_mask and bias */
    static const int64_t kv[2] = {5, 3};
    return attn_kv(g, x, RLX_LAYOUT_BHSD, 0, 0, 0, 0, 2, kv, 1);
}
static rlx_tensor b_attn_kv_causal_mask(rlx_graph* g, const rlx_tensor* x) {   /* [B] = {4, 5}, causal, keep_mask, bias */
    static const int64_t kv[2] = {4, 5};
    return attn_kv(g, x, RLX_LAYOUT_BHSD, 0, 0, 1, 0, 2, kv, 1);
}
static rlx_tensor b_attn_kv_input(rlx_graph* g, const rlx_tensor* x) {   /* kv_len an input [B] = {2, 5} set per run */
    static const int64_t kv[2] = {2, 5};
    rlx_attention_desc d;
    int64_t n = 2;
    memset(&d, 0, sizeof d);
    d.layout = RLX_LAYOUT_BHSD; d.causal = 1;
    i64_name = "kv"; i64_vals = kv; i64_n = 2;
    d.kv_len = rlx_input(g, "kv", RLX_I64, 1, &n);
    return rlx_attention(g, x[0], x[1], x[2], &d);
}
static rlx_tensor b_attn_causal_mask(rlx_graph* g, const rlx_tensor* x) {   /* no kv_len: causal with keep_mask and bias */
    return attn_kv(g, x, RLX_LAYOUT_BHSD, 0, 0, 1, 0, -1, NULL, 1);
}

/* ---- resize (nearest, bilinear with and without align_corners; up, down, to 1) and 1D average pooling ---- */
static rlx_tensor resize_case(rlx_graph* g, const rlx_tensor* x, int64_t oh, int64_t ow, rlx_resize_mode m, int align) {
    return rlx_sin(g, rlx_resize(g, x[0], oh, ow, m, align));
}
static rlx_tensor b_rs_near_up(rlx_graph* g, const rlx_tensor* x) { return resize_case(g, x, 6, 8, RLX_RESIZE_NEAREST, 0); }
static rlx_tensor b_rs_near_odd(rlx_graph* g, const rlx_tensor* x) { return resize_case(g, x, 3, 4, RLX_RESIZE_NEAREST, 0); }
static rlx_tensor b_rs_near_mix(rlx_graph* g, const rlx_tensor* x) { return resize_case(g, x, 7, 2, RLX_RESIZE_NEAREST, 0); }
static rlx_tensor b_rs_bil_up(rlx_graph* g, const rlx_tensor* x) { return resize_case(g, x, 5, 7, RLX_RESIZE_BILINEAR, 0); }
static rlx_tensor b_rs_bil_ac(rlx_graph* g, const rlx_tensor* x) { return resize_case(g, x, 7, 5, RLX_RESIZE_BILINEAR, 1); }
static rlx_tensor b_rs_bil_down(rlx_graph* g, const rlx_tensor* x) { return resize_case(g, x, 4, 3, RLX_RESIZE_BILINEAR, 0); }
static rlx_tensor b_rs_bil_one(rlx_graph* g, const rlx_tensor* x) { return resize_case(g, x, 1, 6, RLX_RESIZE_BILINEAR, 1); }
static rlx_tensor b_rs_bil_f32(rlx_graph* g, const rlx_tensor* x) {   /* f32, a broadcast product first */
    return rlx_resize(g, rlx_mul(g, x[0], x[1]), 5, 9, RLX_RESIZE_BILINEAR, 0);
}
static rlx_tensor avgpool1d(rlx_graph* g, const rlx_tensor* x, int k, int s, int pb, int pe, int incl, int global) {
    rlx_pool_desc d;
    memset(&d, 0, sizeof d);
    d.kind = RLX_POOL_AVG; d.kernel[0] = k; d.stride[0] = s; d.pad_begin[0] = pb; d.pad_end[0] = pe;
    d.count_include_pad = incl; d.global = global;
    return rlx_pool(g, x[0], &d);
}
static rlx_tensor b_ap1_ex(rlx_graph* g, const rlx_tensor* x) { return avgpool1d(g, x, 3, 2, 1, 1, 0, 0); }
static rlx_tensor b_ap1_in(rlx_graph* g, const rlx_tensor* x) { return avgpool1d(g, x, 4, 3, 2, 0, 1, 0); }
static rlx_tensor b_ap1_gl(rlx_graph* g, const rlx_tensor* x) { return avgpool1d(g, x, 0, 0, 0, 0, 0, 1); }

static const gcase cases[] = {
    {"rope neox BHSD", RLX_F64, 1, {4}, {{2, 2, 3, 4}}, b_rope_neox_bhsd},
    {"rope gptj BSHD n_rot < D offset past P", RLX_F64, 1, {3}, {{2, 3, 12}}, b_rope_gptj_bshd},
    {"rope neox BSHD positions [S]", RLX_F64, 1, {3}, {{2, 4, 12}}, b_rope_neox_pos},
    {"rope gptj BHSD positions [B,S]", RLX_F64, 1, {4}, {{2, 2, 3, 8}}, b_rope_gptj_pos2},
    {"rope of a broadcast product (f32)", RLX_F32, 2, {4, 2}, {{2, 1, 3, 4}, {3, 4}}, b_rope_twice},
    {"rope tables neox BHSD offset -1", RLX_F64, 3, {4, 2, 2}, {{2, 2, 3, 4}, {3, 2}, {3, 2}}, b_rope_tab_neox},
    {"rope tables gptj BSHD n_rot < D offset 2", RLX_F64, 3, {3, 2, 2}, {{2, 4, 12}, {4, 2}, {4, 2}}, b_rope_tab_gptj},
    {"rope tables positions [B,S] repeated, outside", RLX_F64, 3, {4, 2, 2}, {{2, 2, 3, 4}, {5, 1}, {5, 1}}, b_rope_tab_pos},
    {"rope tables positions [S] gptj BSHD (f32)", RLX_F32, 3, {3, 2, 2}, {{2, 3, 8}, {3, 2}, {3, 2}}, b_rope_tab_pos1},
    {"conv2d groups 2 stride 2,1 dilation 1,2 pad bias", RLX_F64, 3, {4, 4, 1}, {{2, 4, 5, 6}, {6, 2, 3, 2}, {6}}, b_conv_g2},
    {"conv2d groups 3 stride 1,2 dilation 2,1 pad", RLX_F64, 2, {4, 4}, {{1, 6, 6, 5}, {3, 2, 2, 3}}, b_conv_g3},
    {"conv2d depthwise 3x3 stride 2 pad bias", RLX_F64, 3, {4, 4, 1}, {{2, 3, 6, 6}, {3, 1, 3, 3}, {3}}, b_conv_dw},
    {"conv2d depthwise multiplier 2", RLX_F64, 3, {4, 4, 1}, {{1, 2, 5, 5}, {4, 1, 3, 3}, {4}}, b_conv_dw_mult},
    {"conv1d groups 2 stride 2 dilation 2 pad bias", RLX_F64, 3, {3, 3, 1}, {{2, 4, 9}, {4, 2, 3}, {4}}, b_conv1d_g2},
    {"conv1d depthwise pad", RLX_F64, 2, {3, 3}, {{2, 3, 8}, {3, 1, 3}}, b_conv1d_dw},
    {"conv_transpose stride 2 pad output_padding bias", RLX_F64, 3, {4, 4, 1}, {{2, 3, 3, 4}, {3, 2, 3, 3}, {2}}, b_convt},
    {"conv_transpose groups 2 stride 2,1 dilation 1,2 pad bias", RLX_F64, 3, {4, 4, 1}, {{1, 4, 3, 3}, {4, 3, 2, 2}, {6}}, b_convt_g2},
    {"conv_transpose depthwise stride 3,2 output_padding 2,1", RLX_F64, 2, {4, 4}, {{2, 3, 3, 4}, {3, 1, 3, 3}}, b_convt_dw},
    {"attention kv_len 3 < Sk (f32)", RLX_F32, 3, {4, 4, 4}, {{1, 2, 2, 4}, {1, 2, 5, 4}, {1, 2, 5, 3}}, b_attn_kv_lt},
    {"attention kv_len = Sk causal (f32)", RLX_F32, 3, {4, 4, 4}, {{1, 2, 3, 4}, {1, 2, 5, 4}, {1, 2, 5, 3}}, b_attn_kv_eq_causal},
    {"attention kv_len [B] BSHD GQA window (f32)", RLX_F32, 3, {3, 3, 3}, {{2, 2, 8}, {2, 5, 4}, {2, 5, 4}}, b_attn_kv_rows_gqa},
    {"attention kv_len [B] 0 and > Sk causal (f32)", RLX_F32, 3, {4, 4, 4}, {{2, 1, 2, 4}, {2, 1, 4, 4}, {2, 1, 4, 2}}, b_attn_kv_rows_clamp},
    {"attention kv_len [B] keep_mask bias (f32)", RLX_F32, 4, {4, 4, 4, 4}, {{2, 2, 3, 4}, {2, 2, 5, 4}, {2, 2, 5, 3}, {1, 2, 3, 5}}, b_attn_kv_rows_mask},
    {"attention kv_len [B] causal keep_mask bias (f32)", RLX_F32, 4, {4, 4, 4, 4}, {{2, 2, 3, 4}, {2, 2, 5, 4}, {2, 2, 5, 3}, {1, 2, 3, 5}}, b_attn_kv_causal_mask},
    {"attention kv_len an input [B] = {2, 5} causal (f32)", RLX_F32, 3, {4, 4, 4}, {{2, 2, 3, 4}, {2, 2, 5, 4}, {2, 2, 5, 3}}, b_attn_kv_input},
    {"attention causal keep_mask bias, no kv_len (f32)", RLX_F32, 4, {4, 4, 4, 4}, {{2, 2, 3, 4}, {2, 2, 5, 4}, {2, 2, 5, 3}, {1, 2, 3, 5}}, b_attn_causal_mask},
    {"resize nearest up 3x4 -> 6x8", RLX_F64, 1, {4}, {{2, 2, 3, 4}}, b_rs_near_up},
    {"resize nearest down 5x7 -> 3x4", RLX_F64, 1, {4}, {{1, 2, 5, 7}}, b_rs_near_odd},
    {"resize nearest 3x5 -> 7x2", RLX_F64, 1, {4}, {{1, 2, 3, 5}}, b_rs_near_mix},
    {"resize bilinear half-pixel up 3x4 -> 5x7", RLX_F64, 1, {4}, {{1, 2, 3, 4}}, b_rs_bil_up},
    {"resize bilinear align_corners 4x3 -> 7x5", RLX_F64, 1, {4}, {{2, 1, 4, 3}}, b_rs_bil_ac},
    {"resize bilinear half-pixel down 6x5 -> 4x3", RLX_F64, 1, {4}, {{1, 2, 6, 5}}, b_rs_bil_down},
    {"resize bilinear align_corners 3x4 -> 1x6", RLX_F64, 1, {4}, {{1, 1, 3, 4}}, b_rs_bil_one},
    {"resize bilinear of a broadcast product (f32)", RLX_F32, 2, {4, 4}, {{2, 3, 3, 4}, {1, 3, 1, 4}}, b_rs_bil_f32},
    {"avg pool 1D 3 stride 2 pad, padding not counted", RLX_F64, 1, {3}, {{2, 3, 9}}, b_ap1_ex},
    {"avg pool 1D 4 stride 3 pad 2/0, padding counted", RLX_F64, 1, {3}, {{2, 2, 10}}, b_ap1_in},
    {"avg pool 1D global", RLX_F64, 1, {3}, {{2, 3, 7}}, b_ap1_gl},
    {"conv_transpose then grouped conv (f32)", RLX_F32, 3, {4, 4, 4}, {{1, 4, 3, 3}, {4, 2, 2, 2}, {4, 2, 2, 2}}, b_convt_chain},
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
    double *xv[4], *gv[4], lp, lm, worst = 0, gmax = 0;
    char nm[16];
    int k, r, yr = 0, bad = 0, total = 0;
    int64_t ys[RLX_MAX_RANK], n[4], j;
    rlx_dtype ldt;
    int f32 = c->dt == RLX_F32;
    double h = f32 ? 1e-3 : 1e-6, atol = f32 ? 2e-3 : 1e-6, rtol = f32 ? 2e-2 : 1e-5;
    cur_dt = c->dt;
    i64_name = NULL;
    for (k = 0; k < c->nin; k++) {
        snprintf(nm, sizeof nm, "x%d", k);
        xs[k] = rlx_input(g, nm, c->dt, c->rank[k], c->shape[k]);
        n[k] = numel(c->rank[k], c->shape[k]);
        xv[k] = (double*)malloc(sizeof(double) * (size_t)n[k]);
        gv[k] = (double*)malloc(sizeof(double) * (size_t)n[k]);
        for (j = 0; j < n[k]; j++) {
            double m = th_uniform(0.1, 1);
            xv[k][j] = (th_rng() & 1) ? m : -m;
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
    if (i64_name) rlx_set_input(p, i64_name, RLX_I64, i64_vals, sizeof(int64_t) * (size_t)i64_n);
    r = rlx_run(p);
    TH_CHECK(r == RLX_OK, "%s: run: %s", c->name, rlx_program_error(p));
    if (r != RLX_OK) goto done;
    for (k = 0; k < c->nin; k++) { snprintf(nm, sizeof nm, "g%d", k); get_out(p, nm, c->dt, gv[k], n[k]); }
    for (k = 0; k < c->nin; k++) {
        snprintf(nm, sizeof nm, "x%d", k);
        for (j = 0; j < n[k]; j++) {
            double x0 = xv[k][j], fd;
            xv[k][j] = x0 + h; set_in(p, nm, c->dt, xv[k], n[k]); rlx_run(p); get_out(p, "loss", ldt, &lp, 1);
            xv[k][j] = x0 - h; set_in(p, nm, c->dt, xv[k], n[k]); rlx_run(p); get_out(p, "loss", ldt, &lm, 1);
            xv[k][j] = x0; set_in(p, nm, c->dt, xv[k], n[k]);
            fd = (lp - lm) / (2 * h);
            if (!th_close(gv[k][j], fd, atol, rtol)) {
                if (bad < 3) printf("  %s: d/dx%d[%lld] = %.9g, finite difference %.9g\n", c->name, k, (long long)j, gv[k][j], fd);
                bad++;
            }
            if (fabs(gv[k][j] - fd) > worst) worst = fabs(gv[k][j] - fd);
            if (fabs(fd) > gmax) gmax = fabs(fd);
            total++;
        }
    }
    /* a gradient that is zero everywhere would say nothing about the rule */
    TH_CHECK(gmax > 1e-3, "%s: the finite differences are all ~0 (max %.3g): the case tests nothing", c->name, gmax);
    TH_CHECK(bad == 0, "%s on %s: %d of %d gradient elements differ from finite differences (worst |diff| %.3g)",
             c->name, dev_name, bad, total, worst);
done:
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    for (k = 0; k < c->nin; k++) { free(xv[k]); free(gv[k]); }
}

/* ---- rope whose positions come from a float wrt tensor through a cast: the cast stops the gradient and
   rlx_grad names it (positions take no gradient); the op still without a rule (scatter) names itself ---- */
static void test_errors(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t xs[4] = {1, 1, 2, 4}, ts[2] = {2, 2}, s2 = 2;
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 4, xs), cs = rlx_input(g, "cos", RLX_F32, 2, ts), grads[1], loss;
    rlx_tensor sn = rlx_input(g, "sin", RLX_F32, 2, ts), pf = rlx_input(g, "p", RLX_F32, 1, &s2);
    rlx_rope_desc d;
    rlx_result r;
    memset(&d, 0, sizeof d);
    d.layout = RLX_LAYOUT_BHSD;
    d.positions = rlx_cast(g, pf, RLX_I32);
    loss = rlx_reduce_sum(g, rlx_mul(g, rlx_rope(g, x, cs, sn, &d), rlx_reshape(g, pf, 4, (const int64_t[]){1, 1, 2, 1})), 0, NULL, 0);
    r = rlx_grad(g, loss, 1, &pf, grads);
    TH_CHECK(r == RLX_OK, "rope with positions cast from a wrt tensor: the positions take no gradient: %s",
             rlx_graph_error(g));
    rlx_graph_destroy(g);

    g = rlx_graph_create(NULL);
    {
        int64_t s5 = 5, s3 = 3;
        int64_t iv[3] = {0, 2, 4};
        rlx_tensor t = rlx_input(g, "t", RLX_F32, 1, &s5), u = rlx_input(g, "u", RLX_F32, 1, &s3);
        rlx_tensor ix = rlx_constant(g, RLX_I64, 1, &s3, iv);
        rlx_set_next_name(g, "put");
        loss = rlx_reduce_sum(g, rlx_scatter(g, t, ix, u, 0, RLX_SCATTER_ADD), 0, NULL, 0);
        r = rlx_grad(g, loss, 1, &u, grads);
        TH_CHECK(r == RLX_ERROR_UNSUPPORTED && strstr(rlx_graph_error(g), "scatter (node") &&
                 strstr(rlx_graph_error(g), "'put'") && strstr(rlx_graph_error(g), "no gradient rule"),
                 "scatter: %s / %s", rlx_result_string(r), rlx_graph_error(g));
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
    return th_summary("autodiff_more");
}
