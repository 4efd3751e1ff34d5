/* f32 master weights for f16 and bf16 params (rlx_optimizer_desc.master), against an f64 reference written here.

   Model: one param w (bf16 or f16, [N]) and an input c; loss = Σ w·c (summed in f32), so ∂loss/∂w = c exactly (c
   holds multiples of 1/8, exact in both dtypes, zeros included). Params start at 1 + (i mod 13)/16 (exact in both
   dtypes), in [1, 2) where half a unit in the last place is 2^-8 (bf16) and 2^-11 (f16). AdamW runs at lr 1e-3
   (bf16) / 2e-4 (f16), below that half unit, and SGD with momentum 0.9 at the same rates.
   - master = 1: after every step the master state "opt.w.master" follows the f64 reference of the update rules
     (torch.optim's, as documented at rlx_optimizer_desc) within 2e-5 · max(1, |w|) (f32 arithmetic over 61
     steps), and w equals the master rounded to the dtype (round to nearest even, computed here);
   - master = 0 (bf16): the same AdamW steps leave every element of w where it started (each update rounds
     away), while the master run has moved it by 4 or more units in the last place: the failure the flag is for
     (f16 without master moves some params, by its poorly rounded moments: 0.001·g² is subnormal in f16);
   - a w set anew with rlx_set_state restarts the master from it where the old master does not round to the new
     value (the moments go on);
   - gradient accumulation (accumulate = 3): w, master and moments keep their bits on the first two runs of
     three, and three updates take nine runs;
   - check_finite: a NaN in c makes the run RLX_ERROR_NON_FINITE and leaves w, master and the moments untouched;
   - f32 params get no master state; master = 2 is an error naming the field.
   RLX_TEST_DEVICE=cpu|vulkan|cuda|hip runs on that device (no fallback); default the CPU. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#define N 40
#define STEPS 60

static rlx_device dev = RLX_DEVICE_CPU;

/* nearest value of dtype t (bf16: 8 significant bits, f16: 11; normal range, round half to even) */
static double round_to(rlx_dtype t, double x) {
    const int bits = t == RLX_BF16 ? 8 : 11;
    int e;
    if (x == 0.0 || x != x) return x;
    (void)frexp(fabs(x), &e);
    return nearbyint(x / ldexp(1.0, e - bits)) * ldexp(1.0, e - bits);
}

static double ulp(rlx_dtype t, double x) {   /* unit in the last place of x (normal, x != 0) */
    int e;
    (void)frexp(fabs(x), &e);
    return ldexp(1.0, e - (t == RLX_BF16 ? 8 : 11));
}

typedef struct ref { double w[N], m[N], v[N]; int t; } ref;

static void ref_step(ref* r, int adamw, double lr, const double* c) {
    int i;
    r->t++;
    for (i = 0; i < N; i++) {
        const double gi = c[i];
        if (adamw) {
            r->m[i] = 0.9 * r->m[i] + 0.1 * gi;
            r->v[i] = 0.999 * r->v[i] + 0.001 * gi * gi;
            r->w[i] -= lr / (1.0 - pow(0.9, r->t)) * r->m[i] / (sqrt(r->v[i]) / sqrt(1.0 - pow(0.999, r->t)) + 1e-8);
        } else {
            r->m[i] = 0.9 * r->m[i] + gi;   /* the momentum buffer */
            r->w[i] -= lr * r->m[i];
        }
    }
}

static rlx_program* build(rlx_dtype dt, int adamw, double lr, int master, int accumulate, int check) {
    int64_t n = N;
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor w = rlx_state(g, "w", dt, 1, &n), c = rlx_input(g, "c", dt, 1, &n), loss, gw;
    rlx_optimizer_desc od;
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    rlx_result r;
    loss = rlx_reduce_sum(g, rlx_cast(g, rlx_mul(g, w, c), RLX_F32), 0, NULL, 0);
    rlx_output(g, "loss", loss);
    rlx_grad(g, loss, 1, &w, &gw);
    memset(&od, 0, sizeof od);
    od.kind = adamw ? RLX_OPTIMIZER_ADAMW : RLX_OPTIMIZER_SGD;
    od.lr = (float)lr;
    od.momentum = adamw ? 0.0f : 0.9f;
    od.master = master;
    od.accumulate = accumulate;
    od.check_finite = check;
    if (check) od.loss = loss;
    rlx_optimizer_step(g, &od, 1, &w, &gw);
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    if (dev != RLX_DEVICE_CPU) cd.flags = RLX_COMPILE_NO_FALLBACK;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_OK, "compile (%s, master %d): %s", rlx_dtype_name(dt), master, rlx_graph_error(g));
    rlx_graph_destroy(g);
    return r == RLX_OK ? p : NULL;
}

static void init_data(double* w0, double* c) {
    int i;
    for (i = 0; i < N; i++) {
        w0[i] = 1.0 + (double)(i % 13) / 16.0;
        c[i] = (double)(i % 7 - 3) / 8.0;
    }
}

static int get(rlx_program* p, const char* name, double* dst) {
    return rlx_get_state(p, name, RLX_F64, dst, sizeof(double) * N) == RLX_OK;
}

/* master = 1 against the reference, step by step; then a param set anew; returns the final w */
static void test_follow(rlx_dtype dt, int adamw, double lr) {
    double w0[N], c[N], w[N], ms[N];
    ref r;
    int s, i, bad = 0, badw = 0;
    double worst = 0;
    rlx_program* p = build(dt, adamw, lr, 1, 0, 0);
    const char* what = adamw ? "adamw" : "sgd";
    if (!p) return;
    init_data(w0, c);
    memset(&r, 0, sizeof r);
    memcpy(r.w, w0, sizeof w0);
    TH_CHECK(rlx_set_state(p, "w", RLX_F64, w0, sizeof w0) == RLX_OK && rlx_set_input(p, "c", RLX_F64, c, sizeof c) == RLX_OK,
             "set w, c");
    for (s = 1; s <= STEPS + 1; s++) {
        if (s == STEPS + 1) {   /* a param set anew: the master restarts from it, the moments go on */
            double nw[N];
            for (i = 0; i < N; i++) {   /* where the old master already rounds to the new value, it stays */
                nw[i] = round_to(dt, 1.5 + (double)(i % 5) / 32.0);
                if (round_to(dt, r.w[i]) != nw[i]) r.w[i] = nw[i];
            }
            TH_CHECK(rlx_set_state(p, "w", RLX_F64, nw, sizeof nw) == RLX_OK, "set w anew");
        }
        if (rlx_run(p) != RLX_OK) { TH_CHECK(0, "%s run %d: %s", what, s, rlx_program_error(p)); break; }
        ref_step(&r, adamw, lr, c);
        if (!get(p, "w", w) || !get(p, "opt.w.master", ms)) { TH_CHECK(0, "get states"); break; }
        for (i = 0; i < N; i++) {
            const double d = fabs(ms[i] - r.w[i]) / (fabs(r.w[i]) > 1 ? fabs(r.w[i]) : 1);
            if (d > worst) worst = d;
            if (d > 2e-5) bad++;
            if (w[i] != round_to(dt, ms[i])) badw++;
        }
    }
    TH_CHECK(bad == 0, "%s %s master: %d elements off the f64 reference (worst %.3g relative)", rlx_dtype_name(dt), what,
             bad, worst);
    TH_CHECK(badw == 0, "%s %s master: %d params are not their master rounded to %s", rlx_dtype_name(dt), what, badw,
             rlx_dtype_name(dt));
    printf("  %s %s: master within %.2g of the f64 reference after %d steps and a reset\n", rlx_dtype_name(dt), what,
           worst, STEPS + 1);
    rlx_program_destroy(p);
}

/* master = 0: AdamW updates below half a unit in the last place round away; master = 1 moves the same params */
static void test_stuck(rlx_dtype dt, double lr) {
    double w0[N], c[N], a[N], b[N];
    rlx_program* p0 = build(dt, 1, lr, 0, 0, 0);
    rlx_program* p1 = build(dt, 1, lr, 1, 0, 0);
    int s, i, moved = 0, kept = 0, wantmove = 0;
    if (!p0 || !p1) { rlx_program_destroy(p0); rlx_program_destroy(p1); return; }
    init_data(w0, c);
    for (s = 0; s < 2; s++) {
        rlx_program* p = s ? p1 : p0;
        rlx_set_state(p, "w", RLX_F64, w0, sizeof w0);
        rlx_set_input(p, "c", RLX_F64, c, sizeof c);
    }
    for (s = 0; s < STEPS; s++) TH_CHECK(rlx_run(p0) == RLX_OK && rlx_run(p1) == RLX_OK, "run %d", s);
    TH_CHECK(get(p0, "w", a) && get(p1, "w", b), "get w");
    for (i = 0; i < N; i++) {
        if (a[i] == w0[i]) kept++;
        if (c[i] != 0) {
            wantmove++;
            if (fabs(b[i] - w0[i]) >= 4 * ulp(dt, w0[i])) moved++;   /* 60 steps of about lr: 7-12 ulps */
        }
    }
    TH_CHECK(kept == N, "%s without master: %d of %d params kept their value (updates below half an ulp round away)",
             rlx_dtype_name(dt), kept, N);
    TH_CHECK(moved == wantmove, "%s with master: %d of %d params with a gradient moved", rlx_dtype_name(dt), moved,
             wantmove);
    TH_CHECK(rlx_get_state(p0, "opt.w.master", RLX_F64, a, sizeof a) != RLX_OK, "master = 0 has no master state");
    rlx_program_destroy(p0);
    rlx_program_destroy(p1);
}

/* accumulate = 3 and check_finite with master */
static void test_accum_finite(rlx_dtype dt, double lr) {
    double w0[N], c[N], cn[N], w[N], ms[N], m[N], w1[N], ms1[N], m1[N];
    ref r;
    int s, i, bad = 0;
    rlx_program* p = build(dt, 1, lr, 1, 3, 1);
    rlx_result rr;
    if (!p) return;
    init_data(w0, c);
    memcpy(cn, c, sizeof c);
    cn[5] = NAN;
    memset(&r, 0, sizeof r);
    memcpy(r.w, w0, sizeof w0);
    rlx_set_state(p, "w", RLX_F64, w0, sizeof w0);
    for (s = 1; s <= 10; s++) {
        const int nan_run = s == 5;
        TH_CHECK(get(p, "w", w1) && (s == 1 || (get(p, "opt.w.master", ms1) && get(p, "opt.w.m", m1))), "get");
        rlx_set_input(p, "c", RLX_F64, nan_run ? cn : c, sizeof c);
        rr = rlx_run(p);
        if (nan_run) {
            TH_CHECK(rr == RLX_ERROR_NON_FINITE, "NaN run: %s (want RLX_ERROR_NON_FINITE)", rlx_result_string(rr));
            TH_CHECK(get(p, "w", w) && get(p, "opt.w.master", ms) && get(p, "opt.w.m", m) &&
                     !memcmp(w, w1, sizeof w) && !memcmp(ms, ms1, sizeof ms) && !memcmp(m, m1, sizeof m),
                     "the NaN run left w, master and moments untouched");
            continue;
        }
        TH_CHECK(rr == RLX_OK, "run %d: %s", s, rlx_program_error(p));
        /* good runs 1, 2, 3 | 4, 6, 7 | 8, 9, 10: updates after the 3rd, 6th and 9th good run */
        if (s == 3 || s == 7 || s == 10) ref_step(&r, 1, lr, c);
        else TH_CHECK(get(p, "w", w) && !memcmp(w, w1, sizeof w), "run %d (no update): w keeps its bits", s);
    }
    TH_CHECK(get(p, "opt.w.master", ms) && get(p, "w", w), "get");
    for (i = 0; i < N; i++)
        if (fabs(ms[i] - r.w[i]) > 2e-5 * fabs(r.w[i]) || w[i] != round_to(dt, ms[i])) bad++;
    TH_CHECK(r.t == 3 && bad == 0, "%s accumulate 3 + check_finite with master: %d elements off the reference",
             rlx_dtype_name(dt), bad);
    rlx_program_destroy(p);
}

static void test_errors(void) {
    int64_t n = N;
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor w = rlx_state(g, "w", RLX_BF16, 1, &n), loss, gw;
    rlx_optimizer_desc od;
    rlx_result r;
    loss = rlx_reduce_sum(g, rlx_cast(g, w, RLX_F32), 0, NULL, 0);
    rlx_grad(g, loss, 1, &w, &gw);
    memset(&od, 0, sizeof od);
    od.master = 2;
    r = rlx_optimizer_step(g, &od, 1, &w, &gw);
    TH_CHECK(r == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_graph_error(g), "master 2"), "master = 2: %s (%s)",
             rlx_result_string(r), rlx_graph_error(g));
    rlx_graph_destroy(g);
    {   /* f32 params: no master state */
        rlx_program* p = build(RLX_F32, 1, 1e-3, 1, 0, 0);
        double buf[N], w0[N], c[N];
        init_data(w0, c);
        if (p) {
            rlx_set_state(p, "w", RLX_F64, w0, sizeof w0);
            rlx_set_input(p, "c", RLX_F64, c, sizeof c);
            TH_CHECK(rlx_run(p) == RLX_OK, "f32 run: %s", rlx_program_error(p));
            TH_CHECK(rlx_get_state(p, "opt.w.master", RLX_F64, buf, sizeof buf) != RLX_OK, "f32 params have no master");
        }
        rlx_program_destroy(p);
    }
}

int main(void) {
    const char* dv = getenv("RLX_TEST_DEVICE");
    if (dv && *dv) {
        dev = !strcmp(dv, "vulkan") ? RLX_DEVICE_VULKAN : !strcmp(dv, "cuda") ? RLX_DEVICE_CUDA
            : !strcmp(dv, "hip") ? RLX_DEVICE_HIP : RLX_DEVICE_CPU;
        if (dev != RLX_DEVICE_CPU && !th_device_available(dev)) {
            th_skip("RLX_TEST_DEVICE=%s: no such device here (every case)", dv);
            return th_summary("train_master");
        }
    }
    test_follow(RLX_BF16, 1, 1e-3);
    test_follow(RLX_BF16, 0, 1e-3);
    test_follow(RLX_F16, 1, 2e-4);
    test_follow(RLX_F16, 0, 2e-4);
    test_stuck(RLX_BF16, 1e-3);
    test_accum_finite(RLX_BF16, 1e-3);
    test_errors();
    return th_summary("train_master");
}
