/* Gradient accumulation and the finite check of rlx_optimizer_step (>>autodiff: rlx_optimizer_desc.accumulate,
   .check_finite, .loss).

   Model: pred = tanh(x·W1 + b1)·W2 + b2, loss = mse(pred, t) (a mean over the batch), trained with AdamW (weight
   decay, clipping) or SGD (momentum, weight decay). The reference is written here in f64: forward, hand-written
   backward of the mean loss over k·b rows and torch.optim's update rules.
   - accumulate = k: k runs over micro-batches of b rows give the update of one step over the k·b rows (the f64
     reference, and an rlx program with batch k·b and no accumulation); params, moments and the step counter keep
     their exact bits on the k-1 runs before.
   - check_finite: a NaN or infinity in the data makes rlx_run return RLX_ERROR_NON_FINITE naming the step; no
     state changes on that run (params, moments, step, accumulated sums); training goes on afterwards; without
     the flag the same data silently turns the params into NaN.
   - bad descriptor values are errors with a message.
   RLX_TEST_DEVICE=cpu|vulkan|cuda|hip runs on that device (no fallback); default CPU. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"
#include <stdlib.h>

#define NI 5
#define NH 7
#define NO 3
#define MAXN 64

static rlx_device dev = RLX_DEVICE_CPU;
static const char* dev_name = "cpu";

static const char* const pn[4] = {"w1", "b1", "w2", "b2"};
static const int64_t pshape[4][2] = {{NI, NH}, {NH, 0}, {NH, NO}, {NO, 0}};
static const int prank[4] = {2, 1, 2, 1};
static const int psize[4] = {NI * NH, NH, NH * NO, NO};

typedef struct ref_state {   /* f64 params and optimizer state */
    double p[4][NI * NH], m[4][NI * NH], v[4][NI * NH];
    int t;
} ref_state;

/* gradients of mean((tanh(x W1 + b1) W2 + b2 - t)^2) over n rows */
static void ref_grad(const ref_state* s, const float* x, const float* tg, int n, double gr[4][NI * NH]) {
    int r, i, j, o;
    memset(gr, 0, sizeof(double) * 4 * NI * NH);
    for (r = 0; r < n; r++) {
        double h[NH], dp[NO], dh[NH];
        for (j = 0; j < NH; j++) {
            double z = s->p[1][j];
            for (i = 0; i < NI; i++) z += (double)x[r * NI + i] * s->p[0][i * NH + j];
            h[j] = tanh(z);
        }
        for (o = 0; o < NO; o++) {
            double pr = s->p[3][o];
            for (j = 0; j < NH; j++) pr += h[j] * s->p[2][j * NO + o];
            dp[o] = 2.0 * (pr - (double)tg[r * NO + o]) / (double)(n * NO);
        }
        for (j = 0; j < NH; j++) {
            dh[j] = 0;
            for (o = 0; o < NO; o++) { gr[2][j * NO + o] += h[j] * dp[o]; dh[j] += dp[o] * s->p[2][j * NO + o]; }
            dh[j] *= 1.0 - h[j] * h[j];
            gr[1][j] += dh[j];
            for (i = 0; i < NI; i++) gr[0][i * NH + j] += (double)x[r * NI + i] * dh[j];
        }
        for (o = 0; o < NO; o++) gr[3][o] += dp[o];
    }
}

/* torch.optim.AdamW / SGD (dampening 0) after torch.nn.utils.clip_grad_norm_ */
static void ref_step(ref_state* s, double gr[4][NI * NH], const rlx_optimizer_desc* od) {
    double nrm = 0, coef = 1;
    int k, i;
    for (k = 0; k < 4; k++) for (i = 0; i < psize[k]; i++) nrm += gr[k][i] * gr[k][i];
    if (od->clip_norm > 0) { coef = od->clip_norm / (sqrt(nrm) + 1e-6); if (coef > 1) coef = 1; }
    s->t++;
    for (k = 0; k < 4; k++)
        for (i = 0; i < psize[k]; i++) {
            double g = gr[k][i] * coef, lr = od->lr;
            if (od->kind == RLX_OPTIMIZER_SGD) {
                g += od->weight_decay * s->p[k][i];
                if (od->momentum > 0) { s->m[k][i] = od->momentum * s->m[k][i] + g; g = s->m[k][i]; }
                s->p[k][i] -= lr * g;
            } else {
                double b1 = 0.9, b2 = 0.999, eps = 1e-8;
                s->p[k][i] *= 1 - lr * od->weight_decay;
                s->m[k][i] = b1 * s->m[k][i] + (1 - b1) * g;
                s->v[k][i] = b2 * s->v[k][i] + (1 - b2) * g * g;
                s->p[k][i] -= lr / (1 - pow(b1, s->t)) * s->m[k][i] /
                              (sqrt(s->v[k][i]) / sqrt(1 - pow(b2, s->t)) + eps);
            }
        }
}

/* A training program for batches of b rows; od->loss is filled in here. NULL (with a failed check) if it
   does not compile. */
static rlx_program* build(int b, rlx_optimizer_desc* od, rlx_graph** gout) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t xs[2], ts[2];
    rlx_tensor x, t, p[4], gr[4], loss, pred;
    rlx_compile_desc cd;
    rlx_program* prog = NULL;
    rlx_result r;
    int k;
    xs[0] = b; xs[1] = NI; ts[0] = b; ts[1] = NO;
    x = rlx_input(g, "x", RLX_F32, 2, xs);
    t = rlx_input(g, "t", RLX_F32, 2, ts);
    for (k = 0; k < 4; k++) p[k] = rlx_state(g, pn[k], RLX_F32, prank[k], pshape[k]);
    pred = rlx_add(g, rlx_matmul(g, rlx_tanh(g, rlx_add(g, rlx_matmul(g, x, p[0]), p[1])), p[2]), p[3]);
    loss = rlx_mse_loss(g, pred, t);
    rlx_grad(g, loss, 4, p, gr);
    od->loss = loss;
    rlx_optimizer_step(g, od, 4, p, gr);
    rlx_output(g, "loss", loss);
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    r = rlx_compile(g, &cd, &prog);
    TH_CHECK(r == RLX_OK, "[%s] compile (batch %d, accumulate %d): %s", dev_name, b, od->accumulate,
             rlx_graph_error(g));
    *gout = g;
    return r == RLX_OK ? prog : NULL;
}

static void set_params(rlx_program* prog, const ref_state* s) {
    float buf[NI * NH];
    int k, i;
    for (k = 0; k < 4; k++) {
        for (i = 0; i < psize[k]; i++) buf[i] = (float)s->p[k][i];
        rlx_set_state(prog, pn[k], RLX_F32, buf, sizeof(float) * (size_t)psize[k]);
    }
}

static void get_params(rlx_program* prog, float out[4][NI * NH]) {
    int k;
    for (k = 0; k < 4; k++)
        if (rlx_get_state(prog, pn[k], RLX_F32, out[k], sizeof(float) * (size_t)psize[k]) != RLX_OK)
            TH_CHECK(0, "get_state %s: %s", pn[k], rlx_program_error(prog));
}

static float state1(rlx_program* prog, const char* name) {
    float v = -1;
    if (rlx_get_state(prog, name, RLX_F32, &v, sizeof v) != RLX_OK) TH_CHECK(0, "get_state %s", name);
    return v;
}

static void init(ref_state* s) {
    int k, i;
    memset(s, 0, sizeof *s);
    for (k = 0; k < 4; k++)
        for (i = 0; i < psize[k]; i++) s->p[k][i] = (double)(float)th_uniform(-0.6, 0.6);
}

static void data(float* x, float* t, int n) {
    int i;
    for (i = 0; i < n * NI; i++) x[i] = (float)th_uniform(-1.5, 1.5);
    for (i = 0; i < n * NO; i++) t[i] = (float)th_uniform(-1, 1);
}

/* k runs of b rows against one step of k·b rows, for `cycles` updates */
static void check_accum(const char* what, rlx_optimizer_desc od, int k, int b, int cycles, double tol) {
    rlx_graph *ga = NULL, *gb = NULL;
    rlx_program *pa, *pb;
    ref_state s;
    float x[MAXN * NI], t[MAXN * NO], before[4][NI * NH], after[4][NI * NH], big[4][NI * NH];
    double gr[4][NI * NH], worst = 0, worst_b = 0;
    int c, m, j, i, same = 1, bad = 0;
    rlx_optimizer_desc ob = od;
    memset(before, 0, sizeof before);
    memset(after, 0, sizeof after);
    memset(big, 0, sizeof big);
    init(&s);
    od.accumulate = k;
    ob.accumulate = 0;
    pa = build(b, &od, &ga);
    pb = build(k * b, &ob, &gb);
    if (!pa || !pb) goto done;
    set_params(pa, &s);
    set_params(pb, &s);
    for (c = 0; c < cycles; c++) {
        data(x, t, k * b);
        for (m = 0; m < k; m++) {
            get_params(pa, before);
            rlx_set_input_f32(pa, "x", x + m * b * NI, (size_t)(b * NI));
            rlx_set_input_f32(pa, "t", t + m * b * NO, (size_t)(b * NO));
            if (rlx_run(pa) != RLX_OK) { TH_CHECK(0, "[%s] %s run: %s", dev_name, what, rlx_program_error(pa)); goto done; }
            get_params(pa, after);
            if (m < k - 1 && memcmp(before, after, sizeof before) != 0) same = 0;
            if (m == k - 1 && memcmp(before, after, sizeof before) == 0) bad++;   /* the k-th run must update */
        }
        rlx_set_input_f32(pb, "x", x, (size_t)(k * b * NI));
        rlx_set_input_f32(pb, "t", t, (size_t)(k * b * NO));
        if (rlx_run(pb) != RLX_OK) { TH_CHECK(0, "[%s] %s run: %s", dev_name, what, rlx_program_error(pb)); goto done; }
        ref_grad(&s, x, t, k * b, gr);
        ref_step(&s, gr, &od);
        get_params(pb, big);
        for (j = 0; j < 4; j++)
            for (i = 0; i < psize[j]; i++) {
                double e = fabs((double)after[j][i] - s.p[j][i]), eb = fabs((double)after[j][i] - (double)big[j][i]);
                if (e > worst) worst = e;
                if (eb > worst_b) worst_b = eb;
            }
    }
    TH_CHECK(same, "[%s] %s: params changed on a run before the %d-th", dev_name, what, k);
    TH_CHECK(bad == 0, "[%s] %s: %d accumulate-th runs left the params unchanged", dev_name, what, bad);
    TH_CHECK(worst <= tol, "[%s] %s: k=%d x b=%d vs the f64 step over %d rows: max |diff| %.3g > %.3g", dev_name,
             what, k, b, k * b, worst, tol);
    TH_CHECK(worst_b <= tol, "[%s] %s: vs rlx with batch %d: max |diff| %.3g > %.3g", dev_name, what, k * b, worst_b,
             tol);
    TH_CHECK(state1(pa, "opt.step") == (float)cycles, "[%s] %s: opt.step %g, want %d", dev_name, what,
             (double)state1(pa, "opt.step"), cycles);
    TH_CHECK(state1(pa, "opt.micro") == 0, "[%s] %s: opt.micro %g after whole cycles", dev_name, what,
             (double)state1(pa, "opt.micro"));
    printf("[%s] %s: accumulate %d x %d rows, %d updates: max |diff| %.2g vs f64, %.2g vs rlx batch %d\n", dev_name,
           what, k, b, cycles, worst, worst_b, k * b);
done:
    rlx_program_destroy(pa);
    rlx_program_destroy(pb);
    rlx_graph_destroy(ga);
    rlx_graph_destroy(gb);
}

static int all_finite(float p[4][NI * NH]) {
    int k, i;
    for (k = 0; k < 4; k++) for (i = 0; i < psize[k]; i++) if (!(fabsf(p[k][i]) <= 3.4e38f)) return 0;
    return 1;
}

/* A NaN (or infinity) in the data of run 2 (and 4 with accumulation 2) */
static void check_nan(int k, int inject_inf, int flag) {
    rlx_optimizer_desc od;
    rlx_graph* g = NULL;
    rlx_program* prog;
    ref_state s;
    float x[MAXN * NI], t[MAXN * NO], before[4][NI * NH], after[4][NI * NH], m_before[NI * NH], m_after[NI * NH];
    float loss = 0;
    double gr[4][NI * NH], acc[4][NI * NH], worst = 0;
    const int b = 4;
    int run, i, j, na = 0;
    char what[64];
    memset(before, 0, sizeof before);
    memset(after, 0, sizeof after);
    snprintf(what, sizeof what, "%s, accumulate %d%s", inject_inf ? "inf" : "NaN", k, flag ? "" : ", no check");
    memset(&od, 0, sizeof od);
    od.lr = 1e-2f;
    od.weight_decay = 0.05f;
    od.clip_norm = 5.0f;
    od.accumulate = k;
    od.check_finite = flag;
    init(&s);
    prog = build(b, &od, &g);
    if (!prog) { rlx_graph_destroy(g); return; }
    set_params(prog, &s);
    memset(acc, 0, sizeof acc);
    for (run = 1; run <= 3 * k; run++) {
        int poison = run == 2 || (k > 1 && run == 4);
        rlx_result r;
        data(x, t, b);
        if (poison) {
            if (inject_inf) t[5] = 1e38f * 10.0f; else x[3] = NAN;
        }
        get_params(prog, before);
        rlx_get_state(prog, "opt.w1.m", RLX_F32, m_before, sizeof m_before);
        rlx_set_input_f32(prog, "x", x, (size_t)(b * NI));
        rlx_set_input_f32(prog, "t", t, (size_t)(b * NO));
        r = rlx_run(prog);
        get_params(prog, after);
        rlx_get_state(prog, "opt.w1.m", RLX_F32, m_after, sizeof m_after);
        if (!flag) {
            if (poison) {
                TH_CHECK(r == RLX_OK, "[%s] %s: run %d without check_finite: %d", dev_name, what, run, (int)r);
                TH_CHECK(k > 1 || !all_finite(after), "[%s] %s: the unchecked NaN run left finite params (the "
                         "poisoned data did not reach them)", dev_name, what);
                break;
            }
            continue;
        }
        if (poison) {
            const char* msg = rlx_program_error(prog);
            char want[32];
            int step = s.t + 1;
            snprintf(want, sizeof want, "step %d ", step);
            TH_CHECK(r == RLX_ERROR_NON_FINITE, "[%s] %s: run %d returned %d (%s), want RLX_ERROR_NON_FINITE", dev_name,
                     what, run, (int)r, rlx_result_string(r));
            TH_CHECK(strstr(msg, want) != NULL, "[%s] %s: message '%s' does not name %s", dev_name, what, msg, want);
            TH_CHECK(memcmp(before, after, sizeof before) == 0, "[%s] %s: params changed on the non-finite run",
                     dev_name, what);
            TH_CHECK(memcmp(m_before, m_after, sizeof m_before) == 0, "[%s] %s: AdamW moments changed on the "
                     "non-finite run", dev_name, what);
            TH_CHECK(state1(prog, "opt.nonfinite") == (float)step, "[%s] %s: opt.nonfinite %g, want %d", dev_name,
                     what, (double)state1(prog, "opt.nonfinite"), step);
            TH_CHECK(state1(prog, "opt.step") == (float)s.t, "[%s] %s: opt.step moved on the non-finite run",
                     dev_name, what);
            TH_CHECK(rlx_get_output_f32(prog, "loss", &loss, 1) == RLX_OK && !(fabsf(loss) <= 3.4e38f),
                     "[%s] %s: the loss output (%g) should be readable and non-finite", dev_name, what, (double)loss);
            continue;
        }
        TH_CHECK(r == RLX_OK, "[%s] %s: good run %d: %s", dev_name, what, run, rlx_program_error(prog));
        if (r != RLX_OK) break;
        TH_CHECK(state1(prog, "opt.nonfinite") == 0, "[%s] %s: opt.nonfinite not cleared by a good run", dev_name, what);
        /* the reference: good micro-batches only */
        ref_grad(&s, x, t, b, gr);
        for (j = 0; j < 4; j++) for (i = 0; i < psize[j]; i++) acc[j][i] += gr[j][i];
        if (++na == k) {
            for (j = 0; j < 4; j++) for (i = 0; i < psize[j]; i++) acc[j][i] /= k;
            ref_step(&s, acc, &od);
            memset(acc, 0, sizeof acc);
            na = 0;
        }
        for (j = 0; j < 4; j++)
            for (i = 0; i < psize[j]; i++) {
                double e = fabs((double)after[j][i] - s.p[j][i]);
                if (e > worst) worst = e;
            }
    }
    if (flag) {
        TH_CHECK(worst <= 2e-5, "[%s] %s: after the skipped runs, max |param - f64 reference| %.3g", dev_name, what,
                 worst);
        TH_CHECK(all_finite(after), "[%s] %s: params not finite at the end", dev_name, what);
        printf("[%s] %s: skipped runs reported, %d updates, max |diff| vs f64 %.2g\n", dev_name, what, s.t, worst);
    }
    rlx_program_destroy(prog);
    rlx_graph_destroy(g);
}

static void check_bad(void) {
    static const struct { int acc, chk, loss_rank; rlx_result want; const char* word; } cases[] = {
        {-1, 0, 0, RLX_ERROR_INVALID_ARGUMENT, "accumulate"},
        {(1 << 24) + 1, 0, 0, RLX_ERROR_INVALID_ARGUMENT, "accumulate"},
        {0, 2, 0, RLX_ERROR_INVALID_ARGUMENT, "check_finite"},
        {0, 1, 2, RLX_ERROR_SHAPE, "loss"},
    };
    size_t c;
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        rlx_graph* g = rlx_graph_create(NULL);
        int64_t s2[2] = {2, 3};
        rlx_tensor w = rlx_state(g, "w", RLX_F32, 2, s2), gw, l;
        rlx_optimizer_desc od;
        rlx_result r;
        l = rlx_reduce_sum(g, rlx_mul(g, w, w), 0, NULL, 0);
        rlx_grad(g, l, 1, &w, &gw);
        memset(&od, 0, sizeof od);
        od.accumulate = cases[c].acc;
        od.check_finite = cases[c].chk;
        if (cases[c].loss_rank) od.loss = w;
        r = rlx_optimizer_step(g, &od, 1, &w, &gw);
        TH_CHECK(r == cases[c].want && strstr(rlx_graph_error(g), cases[c].word) != NULL,
                 "bad desc %zu: %d '%s', want %d naming %s", c, (int)r, rlx_graph_error(g), (int)cases[c].want,
                 cases[c].word);
        rlx_graph_destroy(g);
    }
    TH_CHECK(strstr(rlx_result_string(RLX_ERROR_NON_FINITE), "NaN") != NULL, "rlx_result_string(NON_FINITE) = '%s'",
             rlx_result_string(RLX_ERROR_NON_FINITE));
    {   /* check_finite on a graph with a symbolic dim: not yet, and said so */
        rlx_graph* g = rlx_graph_create(NULL);
        int64_t s2[2] = {3, 2}, xs[2];
        rlx_tensor w = rlx_state(g, "w", RLX_F32, 2, s2), x, gw;
        rlx_optimizer_desc od;
        rlx_result r;
        xs[0] = rlx_dim(g, "n", 4);
        xs[1] = 3;
        x = rlx_input(g, "x", RLX_F32, 2, xs);
        gw = rlx_mul(g, w, rlx_scalar(g, RLX_F32, 2.0));   /* any gradient-shaped tensor */
        (void)x;
        memset(&od, 0, sizeof od);
        od.check_finite = 1;
        r = rlx_optimizer_step(g, &od, 1, &w, &gw);
        TH_CHECK(r == RLX_ERROR_UNSUPPORTED && strstr(rlx_graph_error(g), "symbolic") != NULL,
                 "check_finite with a symbolic dim: %d '%s'", (int)r, rlx_graph_error(g));
        rlx_graph_destroy(g);
    }
}

int main(void) {
    const char* dv = getenv("RLX_TEST_DEVICE");
    rlx_optimizer_desc od;
    if (dv && *dv) {
        dev_name = dv;
        dev = strcmp(dv, "vulkan") == 0 ? RLX_DEVICE_VULKAN : strcmp(dv, "cuda") == 0 ? RLX_DEVICE_CUDA
            : strcmp(dv, "hip") == 0 ? RLX_DEVICE_HIP : RLX_DEVICE_CPU;
        if (dev != RLX_DEVICE_CPU) {
            rlx_compile_desc cd;
            rlx_graph* g = rlx_graph_create(NULL);
            rlx_program* p = NULL;
            int64_t one = 1;
            rlx_output(g, "y", rlx_neg(g, rlx_input(g, "x", RLX_F32, 1, &one)));
            memset(&cd, 0, sizeof cd);
            cd.device = dev;
            if (rlx_compile(g, &cd, &p) != RLX_OK) {
                th_skip("device %s unavailable: %s", dv, rlx_graph_error(g));
                rlx_graph_destroy(g);
                return th_summary("train_accum");
            }
            rlx_program_destroy(p);
            rlx_graph_destroy(g);
        }
    }
    memset(&od, 0, sizeof od);
    od.kind = RLX_OPTIMIZER_ADAMW; od.lr = 1e-2f; od.weight_decay = 0.05f; od.clip_norm = 0.5f;
    check_accum("adamw", od, 4, 3, 3, 2e-5);
    od.clip_norm = 0;
    check_accum("adamw no clip", od, 2, 8, 2, 2e-5);
    memset(&od, 0, sizeof od);
    od.kind = RLX_OPTIMIZER_SGD; od.lr = 0.1f; od.momentum = 0.9f; od.weight_decay = 1e-3f;
    check_accum("sgd", od, 3, 2, 4, 2e-5);
    od.check_finite = 1;
    check_accum("sgd, check_finite", od, 5, 1, 2, 2e-5);
    check_nan(1, 0, 1);
    check_nan(1, 1, 1);
    check_nan(2, 0, 1);
    check_nan(1, 0, 0);
    check_bad();
    return th_summary("train_accum");
}
