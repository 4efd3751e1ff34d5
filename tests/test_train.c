/* Training against PyTorch (>>autodiff): tests/train_torch.py (PyTorch 1.13, f32) wrote the data, the initial
   weights, its loss at each of 200 steps and its final weights to tests/data/train/mlp.safetensors. This test
   trains the same MLP (x -> linear 32 -> relu -> linear 4 -> cross-entropy) with the same optimizer settings:
   rlx_grad + rlx_cross_entropy + rlx_optimizer_step in one graph, one rlx_run per step, only the loss read back,
   the params being states updated in place. Checks: every step's loss within 1e-4 relative of PyTorch's, the
   final weights within 1e-3 (absolute), the step counter state at 200.
   RLX_TEST_DEVICE=cpu|vulkan|cuda|hip runs on that device (no fallback); default CPU. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"
#include <stdlib.h>

#define REF "tests/data/train/mlp.safetensors"
#define STEPS 200
#define BATCH 16
#define NB 4

static rlx_device dev = RLX_DEVICE_CPU;
static const char* dev_name = "cpu";

static const void* tensor(rlx_safetensors* st, const char* name, rlx_dtype dt, int64_t n) {
    rlx_safetensors_tensor_info ti;
    int i = rlx_safetensors_find_tensor(st, name);
    if (i < 0 || rlx_safetensors_tensor(st, i, &ti) != RLX_OK || ti.dtype != dt ||
        ti.bytes != (size_t)n * rlx_dtype_size(dt)) {
        TH_CHECK(0, "%s: tensor %s missing or of the wrong type/size", REF, name);
        return NULL;
    }
    return ti.data;
}

static void train(rlx_safetensors* st, const char* opt, int lr_input) {
    static const char* pn[4] = {"w1", "b1", "w2", "b2"};
    static const int64_t pshape[4][2] = {{8, 32}, {32, 0}, {32, 4}, {4, 0}};
    static const int prank[4] = {2, 1, 2, 1};
    int64_t xs[2] = {BATCH, 8}, ys[1] = {BATCH};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor x, y, p[4], gr[4], loss, h;
    rlx_optimizer_desc od;
    rlx_compile_desc cd;
    rlx_program* prog = NULL;
    const float *xd, *ref_loss;
    const int64_t* yd;
    char nm[64];
    int k, s, bad = 0;
    double worst = 0;
    rlx_result r;
    x = rlx_input(g, "x", RLX_F32, 2, xs);
    y = rlx_input(g, "y", RLX_I64, 1, ys);
    for (k = 0; k < 4; k++) p[k] = rlx_state(g, pn[k], RLX_F32, prank[k], pshape[k]);
    h = rlx_relu(g, rlx_add(g, rlx_matmul(g, x, p[0]), p[1]));
    loss = rlx_cross_entropy(g, rlx_add(g, rlx_matmul(g, h, p[2]), p[3]), y);
    rlx_grad(g, loss, 4, p, gr);
    memset(&od, 0, sizeof od);
    if (strcmp(opt, "adamw") == 0) {
        od.kind = RLX_OPTIMIZER_ADAMW; od.lr = 1e-2f; od.weight_decay = 0.01f; od.clip_norm = 1.0f;
    } else {
        od.kind = RLX_OPTIMIZER_SGD; od.lr = 0.1f; od.momentum = 0.9f; od.weight_decay = 1e-3f;
    }
    if (lr_input) {   /* the learning rate as an input set per run (a schedule), instead of a constant */
        int64_t one = 1;
        od.lr_input = rlx_input(g, "lr", RLX_F32, 1, &one);
        od.lr = 123.0f;   /* ignored when lr_input is given */
    }
    rlx_optimizer_step(g, &od, 4, p, gr);
    rlx_output(g, "loss", loss);
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    cd.flags = RLX_COMPILE_NO_FALLBACK;
    r = rlx_compile(g, &cd, &prog);
    if (r == RLX_ERROR_DEVICE_UNAVAILABLE || r == RLX_ERROR_UNSUPPORTED) {
        th_skip("%s training on %s: %s", opt, dev_name, rlx_graph_error(g));
        rlx_graph_destroy(g);
        return;
    }
    TH_CHECK(r == RLX_OK, "%s: compile: %s", opt, rlx_graph_error(g));
    if (r != RLX_OK) { rlx_graph_destroy(g); return; }
    for (k = 0; k < 4; k++) {
        int64_t n = prank[k] == 2 ? pshape[k][0] * pshape[k][1] : pshape[k][0];
        const void* d;
        snprintf(nm, sizeof nm, "init.%s", pn[k]);
        d = tensor(st, nm, RLX_F32, n);
        if (d) TH_CHECK(rlx_set_state(prog, pn[k], RLX_F32, d, (size_t)n * 4) == RLX_OK, "set_state %s", pn[k]);
    }
    xd = (const float*)tensor(st, "x", RLX_F32, NB * BATCH * 8);
    yd = (const int64_t*)tensor(st, "y", RLX_I64, NB * BATCH);
    snprintf(nm, sizeof nm, "%s.losses", opt);
    ref_loss = (const float*)tensor(st, nm, RLX_F32, STEPS);
    if (!xd || !yd || !ref_loss) goto done;
    for (s = 0; s < STEPS; s++) {
        int b = s % NB;
        float l = 0;
        double rel;
        rlx_set_input(prog, "x", RLX_F32, xd + b * BATCH * 8, sizeof(float) * BATCH * 8);
        rlx_set_input(prog, "y", RLX_I64, yd + b * BATCH, sizeof(int64_t) * BATCH);
        if (lr_input) {
            float lrv = strcmp(opt, "adamw") == 0 ? 1e-2f : 0.1f;
            rlx_set_input_f32(prog, "lr", &lrv, 1);
        }
        r = rlx_run(prog);
        if (r != RLX_OK) { TH_CHECK(0, "%s step %d: %s", opt, s, rlx_program_error(prog)); goto done; }
        rlx_get_output_f32(prog, "loss", &l, 1);
        rel = fabs((double)l - ref_loss[s]) / fabs((double)ref_loss[s]);
        if (rel > worst) worst = rel;
        if (!(rel <= 1e-4)) {
            if (bad < 3) printf("  %s step %d: loss %.8g, PyTorch %.8g (rel %.2g)\n", opt, s, (double)l, (double)ref_loss[s], rel);
            bad++;
        }
    }
    printf("%s%s on %s: loss %.6g -> %.6g over %d steps, worst relative difference from PyTorch %.2g\n", opt,
           lr_input ? " (lr as an input)" : "", dev_name, (double)ref_loss[0], (double)ref_loss[STEPS - 1], STEPS, worst);
    TH_CHECK(bad == 0, "%s on %s: %d of %d step losses differ from PyTorch's by more than 1e-4 relative", opt,
             dev_name, bad, STEPS);
    TH_CHECK(ref_loss[STEPS - 1] < 0.5f * ref_loss[0], "the reference run learns (%g -> %g)", (double)ref_loss[0],
             (double)ref_loss[STEPS - 1]);
    for (k = 0; k < 4; k++) {
        int64_t n = prank[k] == 2 ? pshape[k][0] * pshape[k][1] : pshape[k][0], i;
        float* w = (float*)malloc(sizeof(float) * (size_t)n);
        const float* ref;
        double wd = 0;
        snprintf(nm, sizeof nm, "%s.final.%s", opt, pn[k]);
        ref = (const float*)tensor(st, nm, RLX_F32, n);
        TH_CHECK(rlx_get_state(prog, pn[k], RLX_F32, w, (size_t)n * 4) == RLX_OK, "get_state %s", pn[k]);
        for (i = 0; ref && i < n; i++) if (fabs((double)w[i] - ref[i]) > wd) wd = fabs((double)w[i] - ref[i]);
        TH_CHECK(ref && wd <= 1e-3, "%s on %s: final %s differs from PyTorch's by %.3g (bound 1e-3)", opt, dev_name,
                 pn[k], wd);
        free(w);
    }
    {
        float stp = 0;
        TH_CHECK(rlx_get_state(prog, "opt.step", RLX_F32, &stp, 4) == RLX_OK && stp == (float)STEPS,
                 "%s: the step counter state is %g after %d steps", opt, (double)stp, STEPS);
    }
done:
    rlx_program_destroy(prog);
    rlx_graph_destroy(g);
}

/* ---- 2-layer transformer (tests/data/train/transformer.safetensors) ---- */
#define TV 16
#define TT 8
#define TD 16
#define TH 2
#define TF 32
#define TB 4
#define TL 2
#define TP (4 + 12 * TL + 3)

static int tf_names(char names[TP][32], int64_t shapes[TP][2], int ranks[TP]) {
    static const char* ln[12] = {"ln1.g", "ln1.b", "wq", "wk", "wv", "wo", "ln2.g", "ln2.b", "w1", "b1", "w2", "b2"};
    static const int64_t ls[12][2] = {{TD, 0}, {TD, 0}, {TD, TD}, {TD, TD}, {TD, TD}, {TD, TD}, {TD, 0}, {TD, 0},
                                      {TD, TF}, {TF, 0}, {TF, TD}, {TD, 0}};
    int n = 0, l, k;
    strcpy(names[n], "tok"); shapes[n][0] = TV; shapes[n][1] = TD; ranks[n++] = 2;
    strcpy(names[n], "pos"); shapes[n][0] = TT; shapes[n][1] = TD; ranks[n++] = 2;
    for (l = 0; l < TL; l++)
        for (k = 0; k < 12; k++) {
            snprintf(names[n], 32, "l%d.%s", l, ln[k]);
            shapes[n][0] = ls[k][0]; shapes[n][1] = ls[k][1]; ranks[n++] = ls[k][1] ? 2 : 1;
        }
    strcpy(names[n], "lnf.g"); shapes[n][0] = TD; ranks[n++] = 1;
    strcpy(names[n], "lnf.b"); shapes[n][0] = TD; ranks[n++] = 1;
    strcpy(names[n], "head"); shapes[n][0] = TD; shapes[n][1] = TV; ranks[n++] = 2;
    return n;
}

static rlx_tensor tf_heads(rlx_graph* g, rlx_tensor t) {   /* [B, T, D] -> [B, H, T, D/H] */
    int64_t s[4] = {TB, TT, TH, TD / TH};
    int perm[4] = {0, 2, 1, 3};
    return rlx_transpose(g, rlx_reshape(g, t, 4, s), perm);
}

static void train_transformer(void) {
    char names[TP][32], nm[64];
    int64_t shapes[TP][2], ts[2] = {TB, TT}, bsd[3] = {TB, TT, TD}, flat[2] = {TB * TT, TV}, fl1[1] = {TB * TT};
    int ranks[TP], np = tf_names(names, shapes, ranks), k, l, s, bad = 0, perm[4] = {0, 2, 1, 3};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor p[TP], gr[TP], tok, tgt, x, h, loss, mask, q, kk, v, att, none = {0, 0};
    rlx_safetensors* st = NULL;
    rlx_optimizer_desc od;
    rlx_compile_desc cd;
    rlx_program* prog = NULL;
    float maskv[TT * TT];
    int64_t ms[2] = {TT, TT};
    const float* ref;
    double worst = 0, wworst = 0;
    rlx_result r;
    if (rlx_safetensors_open_file("tests/data/train/transformer.safetensors", NULL, &st) != RLX_OK) {
        th_skip("tests/data/train/transformer.safetensors: %s", rlx_file_error());
        rlx_graph_destroy(g);
        return;
    }
    for (k = 0; k < TT * TT; k++) maskv[k] = (k % TT) > (k / TT) ? -1e9f : 0.0f;
    tok = rlx_input(g, "tokens", RLX_I64, 2, ts);
    tgt = rlx_input(g, "targets", RLX_I64, 2, ts);
    for (k = 0; k < np; k++) p[k] = rlx_state(g, names[k], RLX_F32, ranks[k], shapes[k]);
    mask = rlx_constant(g, RLX_F32, 2, ms, maskv);
    x = rlx_add(g, rlx_gather(g, p[0], tok, 0), p[1]);
    for (l = 0; l < TL; l++) {
        rlx_tensor* w = p + 2 + 12 * l;
        h = rlx_layernorm(g, x, w[0], w[1], -1, 1e-5f);
        q = tf_heads(g, rlx_matmul(g, h, w[2]));
        kk = tf_heads(g, rlx_matmul(g, h, w[3]));
        v = tf_heads(g, rlx_matmul(g, h, w[4]));
        {
            int pk[4] = {0, 1, 3, 2};
            att = rlx_matmul(g, q, rlx_transpose(g, kk, pk));
        }
        att = rlx_softmax(g, rlx_add(g, rlx_mul(g, att, rlx_scalar(g, RLX_F32, 1.0 / sqrt((double)TD / TH))), mask), -1);
        att = rlx_reshape(g, rlx_transpose(g, rlx_matmul(g, att, v), perm), 3, bsd);
        x = rlx_add(g, x, rlx_matmul(g, att, w[5]));
        h = rlx_layernorm(g, x, w[6], w[7], -1, 1e-5f);
        h = rlx_gelu(g, rlx_add(g, rlx_matmul(g, h, w[8]), w[9]));
        x = rlx_add(g, x, rlx_add(g, rlx_matmul(g, h, w[10]), w[11]));
    }
    h = rlx_matmul(g, rlx_layernorm(g, x, p[np - 3], p[np - 2], -1, 1e-5f), p[np - 1]);
    loss = rlx_cross_entropy(g, rlx_reshape(g, h, 2, flat), rlx_reshape(g, tgt, 1, fl1));
    (void)none;
    TH_CHECK(rlx_grad(g, loss, np, p, gr) == RLX_OK, "transformer: rlx_grad: %s", rlx_graph_error(g));
    memset(&od, 0, sizeof od);
    od.lr = 3e-3f; od.weight_decay = 0.01f; od.clip_norm = 1.0f;
    rlx_optimizer_step(g, &od, np, p, gr);
    rlx_output(g, "loss", loss);
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    cd.flags = RLX_COMPILE_NO_FALLBACK;
    r = rlx_compile(g, &cd, &prog);
    if (r == RLX_ERROR_DEVICE_UNAVAILABLE || r == RLX_ERROR_UNSUPPORTED) {
        th_skip("transformer training on %s: %s", dev_name, rlx_graph_error(g));
        goto done;
    }
    TH_CHECK(r == RLX_OK, "transformer: compile: %s", rlx_graph_error(g));
    if (r != RLX_OK) goto done;
    for (k = 0; k < np; k++) {
        int64_t n = ranks[k] == 2 ? shapes[k][0] * shapes[k][1] : shapes[k][0];
        const void* d;
        snprintf(nm, sizeof nm, "init.%.31s", names[k]);
        d = tensor(st, nm, RLX_F32, n);
        if (d) rlx_set_state(prog, names[k], RLX_F32, d, (size_t)n * 4);
    }
    {
        const void* td = tensor(st, "tok", RLX_I64, TB * TT), *gd = tensor(st, "tgt", RLX_I64, TB * TT);
        ref = (const float*)tensor(st, "losses", RLX_F32, STEPS);
        if (!td || !gd || !ref) goto done;
        rlx_set_input(prog, "tokens", RLX_I64, td, sizeof(int64_t) * TB * TT);
        rlx_set_input(prog, "targets", RLX_I64, gd, sizeof(int64_t) * TB * TT);
    }
    for (s = 0; s < STEPS; s++) {
        float lv = 0;
        double rel;
        r = rlx_run(prog);
        if (r != RLX_OK) { TH_CHECK(0, "transformer step %d: %s", s, rlx_program_error(prog)); goto done; }
        rlx_get_output_f32(prog, "loss", &lv, 1);
        rel = fabs((double)lv - ref[s]) / fabs((double)ref[s]);
        if (rel > worst) worst = rel;
        if (!(rel <= 1e-4)) {
            if (bad < 3) printf("  transformer step %d: loss %.8g, PyTorch %.8g (rel %.2g)\n", s, (double)lv, (double)ref[s], rel);
            bad++;
        }
    }
    for (k = 0; k < np; k++) {
        int64_t n = ranks[k] == 2 ? shapes[k][0] * shapes[k][1] : shapes[k][0], i;
        float* w = (float*)malloc(sizeof(float) * (size_t)n);
        const float* rw;
        snprintf(nm, sizeof nm, "final.%.31s", names[k]);
        rw = (const float*)tensor(st, nm, RLX_F32, n);
        rlx_get_state(prog, names[k], RLX_F32, w, (size_t)n * 4);
        for (i = 0; rw && i < n; i++) if (fabs((double)w[i] - rw[i]) > wworst) wworst = fabs((double)w[i] - rw[i]);
        free(w);
    }
    printf("transformer on %s: loss %.6g -> %.6g over %d steps, worst relative loss difference from PyTorch %.2g, "
           "worst final weight difference %.2g\n", dev_name, (double)ref[0], (double)ref[STEPS - 1], STEPS, worst, wworst);
    TH_CHECK(bad == 0, "transformer on %s: %d of %d step losses differ from PyTorch's by more than 1e-4 relative",
             dev_name, bad, STEPS);
    TH_CHECK(wworst <= 1e-3, "transformer on %s: final weights differ from PyTorch's by %.3g (bound 1e-3)", dev_name, wworst);
done:
    rlx_program_destroy(prog);
    rlx_graph_destroy(g);
    rlx_safetensors_close(st);
}

/* ---- CNN with group norm (tests/data/train/cnn.safetensors) ----
   x [16, 1, 12, 12] -> conv 3x3 (8, padding 1) -> group_norm(2) -> relu -> max pool 2x2 -> conv 3x3 (16,
   padding 1) -> group_norm(4) -> relu -> global average pool -> linear 4 -> cross-entropy; AdamW with
   clipping (lr 3e-3, weight decay 0.01, clip 1), 2 batches of 16 (step s uses batch s % 2). */
#define CP 8
#define CIMG (12 * 12)

static void train_cnn(void) {
    static const char* names[CP] = {"c1.w", "gn1.g", "gn1.b", "c2.w", "gn2.g", "gn2.b", "fc.w", "fc.b"};
    static const int64_t shapes[CP][4] = {{8, 1, 3, 3}, {8}, {8}, {16, 8, 3, 3}, {16}, {16}, {16, 4}, {4}};
    static const int ranks[CP] = {4, 1, 1, 4, 1, 1, 2, 1};
    int64_t xs[4] = {BATCH, 1, 12, 12}, ys[1] = {BATCH}, fs[2] = {BATCH, 16};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor p[CP], gr[CP], x, y, h, loss, none = {0, 0};
    rlx_safetensors* st = NULL;
    rlx_conv_desc cv;
    rlx_pool_desc pd;
    rlx_optimizer_desc od;
    rlx_compile_desc cd;
    rlx_program* prog = NULL;
    const float *xd, *ref;
    const int64_t* yd;
    char nm[64];
    int k, s, bad = 0;
    double worst = 0, wworst = 0;
    rlx_result r;
    if (rlx_safetensors_open_file("tests/data/train/cnn.safetensors", NULL, &st) != RLX_OK) {
        th_skip("tests/data/train/cnn.safetensors: %s", rlx_file_error());
        rlx_graph_destroy(g);
        return;
    }
    x = rlx_input(g, "x", RLX_F32, 4, xs);
    y = rlx_input(g, "y", RLX_I64, 1, ys);
    for (k = 0; k < CP; k++) p[k] = rlx_state(g, names[k], RLX_F32, ranks[k], shapes[k]);
    memset(&cv, 0, sizeof cv);
    cv.pad_begin[0] = cv.pad_begin[1] = cv.pad_end[0] = cv.pad_end[1] = 1;
    memset(&pd, 0, sizeof pd);
    pd.kind = RLX_POOL_MAX; pd.kernel[0] = pd.kernel[1] = 2;
    h = rlx_relu(g, rlx_group_norm(g, rlx_conv(g, x, p[0], none, &cv), 2, p[1], p[2], 1e-5f));
    h = rlx_pool(g, h, &pd);
    h = rlx_relu(g, rlx_group_norm(g, rlx_conv(g, h, p[3], none, &cv), 4, p[4], p[5], 1e-5f));
    memset(&pd, 0, sizeof pd);
    pd.kind = RLX_POOL_AVG; pd.global = 1;
    h = rlx_reshape(g, rlx_pool(g, h, &pd), 2, fs);
    loss = rlx_cross_entropy(g, rlx_add(g, rlx_matmul(g, h, p[6]), p[7]), y);
    r = rlx_grad(g, loss, CP, p, gr);
    TH_CHECK(r == RLX_OK, "cnn: rlx_grad: %s", rlx_graph_error(g));
    if (r != RLX_OK) goto done;
    memset(&od, 0, sizeof od);
    od.lr = 3e-3f; od.weight_decay = 0.01f; od.clip_norm = 1.0f;
    rlx_optimizer_step(g, &od, CP, p, gr);
    rlx_output(g, "loss", loss);
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    cd.flags = RLX_COMPILE_NO_FALLBACK;
    r = rlx_compile(g, &cd, &prog);
    if (r == RLX_ERROR_DEVICE_UNAVAILABLE || r == RLX_ERROR_UNSUPPORTED) {
        th_skip("cnn training on %s: %s", dev_name, rlx_graph_error(g));
        goto done;
    }
    TH_CHECK(r == RLX_OK, "cnn: compile: %s", rlx_graph_error(g));
    if (r != RLX_OK) goto done;
    for (k = 0; k < CP; k++) {
        int64_t n = 1, j;
        const void* d;
        for (j = 0; j < ranks[k]; j++) n *= shapes[k][j];
        snprintf(nm, sizeof nm, "init.%s", names[k]);
        d = tensor(st, nm, RLX_F32, n);
        if (d) TH_CHECK(rlx_set_state(prog, names[k], RLX_F32, d, (size_t)n * 4) == RLX_OK, "cnn: set_state %s", names[k]);
    }
    xd = (const float*)tensor(st, "x", RLX_F32, 2 * BATCH * CIMG);
    yd = (const int64_t*)tensor(st, "y", RLX_I64, 2 * BATCH);
    ref = (const float*)tensor(st, "losses", RLX_F32, STEPS);
    if (!xd || !yd || !ref) goto done;
    for (s = 0; s < STEPS; s++) {
        int b = s % 2;
        float lv = 0;
        double rel;
        rlx_set_input(prog, "x", RLX_F32, xd + b * BATCH * CIMG, sizeof(float) * BATCH * CIMG);
        rlx_set_input(prog, "y", RLX_I64, yd + b * BATCH, sizeof(int64_t) * BATCH);
        r = rlx_run(prog);
        if (r != RLX_OK) { TH_CHECK(0, "cnn step %d: %s", s, rlx_program_error(prog)); goto done; }
        rlx_get_output_f32(prog, "loss", &lv, 1);
        rel = fabs((double)lv - ref[s]) / fabs((double)ref[s]);
        if (rel > worst) worst = rel;
        if (!(rel <= 1e-4)) {
            if (bad < 3) printf("  cnn step %d: loss %.8g, PyTorch %.8g (rel %.2g)\n", s, (double)lv, (double)ref[s], rel);
            bad++;
        }
    }
    for (k = 0; k < CP; k++) {
        int64_t n = 1, i;
        float* w;
        const float* rw;
        for (i = 0; i < ranks[k]; i++) n *= shapes[k][i];
        w = (float*)malloc(sizeof(float) * (size_t)n);
        snprintf(nm, sizeof nm, "final.%s", names[k]);
        rw = (const float*)tensor(st, nm, RLX_F32, n);
        TH_CHECK(w && rlx_get_state(prog, names[k], RLX_F32, w, (size_t)n * 4) == RLX_OK, "cnn: get_state %s", names[k]);
        for (i = 0; w && rw && i < n; i++) if (fabs((double)w[i] - rw[i]) > wworst) wworst = fabs((double)w[i] - rw[i]);
        if (!rw) wworst = 1e30;
        free(w);
    }
    printf("cnn on %s: loss %.6g -> %.6g over %d steps, worst relative loss difference from PyTorch %.2g, "
           "worst final weight difference %.2g\n", dev_name, (double)ref[0], (double)ref[STEPS - 1], STEPS, worst, wworst);
    TH_CHECK(bad == 0, "cnn on %s: %d of %d step losses differ from PyTorch's by more than 1e-4 relative", dev_name,
             bad, STEPS);
    TH_CHECK(ref[STEPS - 1] < 0.5f * ref[0], "the CNN reference run learns (%g -> %g)", (double)ref[0],
             (double)ref[STEPS - 1]);
    TH_CHECK(wworst <= 1e-3, "cnn on %s: final weights differ from PyTorch's by %.3g (bound 1e-3)", dev_name, wworst);
done:
    rlx_program_destroy(prog);
    rlx_graph_destroy(g);
    rlx_safetensors_close(st);
}

int main(void) {
    rlx_safetensors* st = NULL;
    const char* dv = getenv("RLX_TEST_DEVICE");
    if (dv && *dv) {
        dev_name = dv;
        dev = strcmp(dv, "vulkan") == 0 ? RLX_DEVICE_VULKAN : strcmp(dv, "cuda") == 0 ? RLX_DEVICE_CUDA
            : strcmp(dv, "hip") == 0 ? RLX_DEVICE_HIP : RLX_DEVICE_CPU;
    }
    if (rlx_safetensors_open_file(REF, NULL, &st) != RLX_OK) {
        th_skip("%s: %s (run python3 tests/train_torch.py from the repository root)", REF, rlx_file_error());
        return th_summary("train");
    }
    train(st, "adamw", 0);
    train(st, "sgd", 0);
    train(st, "sgd", 1);
    rlx_safetensors_close(st);
    train_transformer();
    train_cnn();
    return th_summary("train");
}
