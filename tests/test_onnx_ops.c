/* The ONNX operators the importer builds from several rlx ops, on the branches the backend node tests
   (tests/test_onnx_node.c) miss: LSTM bidirectional with sequence_lens, initial states and peepholes; GRU with
   linear_before_reset, layout 1 and sequence_lens; RNN with a Relu activation and clip; Einsum with implicit
   outputs, broadcast ellipses, three operands, traces and outer products; Resize on rank 3 through `axes` and on
   integers; and rlx_scatter itself (every reduction, negative, repeated and out-of-range indices, integer
   wrap-around, its builder errors) on the CPU and on every GPU backend that is available (Vulkan: lavapipe). Every expected value comes from an f64
   reference written here; models come from the test's own protobuf writer (tests/onnx_pbw.h). Hostile
   attributes (bad equations, wrong weight shapes, unknown activations) must give an error code and a message. */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"
#include "onnx_pbw.h"

#include <stdlib.h>

/* ---- model writing: nodes with any inputs, attributes ---- */
static void a_float(pbw* a, const char* name, float v) {
    pbw t = {0};
    pb_str(&t, 1, name); pb_float(&t, 2, v); pb_int(&t, 20, 1);
    pb_msg(a, 5, &t);
}
static void a_str(pbw* a, const char* name, const char* v) {
    pbw t = {0};
    pb_str(&t, 1, name); pb_str(&t, 4, v); pb_int(&t, 20, 3);
    pb_msg(a, 5, &t);
}
static void a_strs(pbw* a, const char* name, int n, const char* const* v) {
    pbw t = {0};
    int i;
    pb_str(&t, 1, name);
    for (i = 0; i < n; i++) pb_str(&t, 9, v[i]);
    pb_int(&t, 20, 8);
    pb_msg(a, 5, &t);
}
/* a node with inputs ins[0..nin) ("" = absent) and outputs outs[0..nout) */
static void node(pbw* g, const char* op, int nin, const char* const* ins, int nout, const char* const* outs, pbw* attrs) {
    pbw n = {0};
    int i;
    for (i = 0; i < nin; i++) pb_str(&n, 1, ins[i]);
    for (i = 0; i < nout; i++) pb_str(&n, 2, outs[i]);
    pb_str(&n, 4, op);
    if (attrs && attrs->n) pb_put(&n, attrs->p, attrs->n);
    free(attrs ? attrs->p : NULL);
    if (attrs) memset(attrs, 0, sizeof *attrs);
    pb_msg(g, 1, &n);
}

/* loads, imports and compiles a model for the CPU; NULL with the message in err on failure */
static rlx_program* build(const pbw* mb, rlx_result* rc, char* err, size_t cap) {
    rlx_onnx_load_desc ld;
    rlx_onnx_model* m = NULL;
    rlx_graph* g = NULL;
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    memset(&ld, 0, sizeof ld);
    ld.error = err; ld.error_cap = cap;
    err[0] = 0;
    *rc = rlx_onnx_load_memory(mb->p, mb->n, &ld, &m);
    if (*rc != RLX_OK) return NULL;
    *rc = rlx_onnx_graph(m, NULL, &g);
    if (*rc != RLX_OK) { snprintf(err, cap, "%s", rlx_onnx_error(m)); rlx_onnx_destroy(m); return NULL; }
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    *rc = rlx_compile(g, &cd, &p);
    if (*rc != RLX_OK) snprintf(err, cap, "%s", rlx_graph_error(g));
    rlx_graph_destroy(g);
    rlx_onnx_destroy(m);
    return p;
}
static void fill(float* v, int n, double lo, double hi) { int i; for (i = 0; i < n; i++) v[i] = (float)th_uniform(lo, hi); }
static int close_all(const char* what, const float* got, const double* want, int n, double tol) {
    int i;
    for (i = 0; i < n; i++)
        if (!th_close(got[i], want[i], tol, tol)) {
            TH_CHECK(0, "%s[%d]: got %.7g, want %.7g", what, i, (double)got[i], want[i]);
            return 0;
        }
    TH_CHECK(1, "%s", what);
    return 1;
}
static double sigm(double x) { return 1.0 / (1.0 + exp(-x)); }

/* ---- LSTM: bidirectional, sequence_lens, initial h and c, peepholes, biases ---- */
enum { LT = 4, LB = 3, LI = 2, LH = 3 };
static void test_lstm(void) {
    static float X[LT * LB * LI], W[2 * 4 * LH * LI], R[2 * 4 * LH * LH], Bi[2 * 8 * LH], H0[2 * LB * LH], C0[2 * LB * LH], P[2 * 3 * LH];
    static const int32_t lens[LB] = {4, 2, 3};
    float Y[LT * 2 * LB * LH], Yh[2 * LB * LH], Yc[2 * LB * LH];
    double wY[LT * 2 * LB * LH], wH[2 * LB * LH], wC[2 * LB * LH];
    int64_t xd[3] = {LT, LB, LI}, wd[3] = {2, 4 * LH, LI}, rd[3] = {2, 4 * LH, LH}, bd[2] = {2, 8 * LH}, sd[1] = {LB},
            hd[3] = {2, LB, LH}, pd[2] = {2, 3 * LH}, yd[4] = {LT, 2, LB, LH};
    static const char* const ins[8] = {"X", "W", "R", "B", "L", "H0", "C0", "P"};
    static const char* const outs[3] = {"Y", "Yh", "Yc"};
    pbw g = {0}, a = {0}, mb = {0};
    rlx_program* p;
    rlx_result rc;
    char err[512];
    int d, s, b, j, k;
    fill(X, LT * LB * LI, -1, 1); fill(W, 2 * 4 * LH * LI, -0.8, 0.8); fill(R, 2 * 4 * LH * LH, -0.8, 0.8);
    fill(Bi, 2 * 8 * LH, -0.3, 0.3); fill(H0, 2 * LB * LH, -0.5, 0.5); fill(C0, 2 * LB * LH, -0.5, 0.5); fill(P, 2 * 3 * LH, -0.4, 0.4);
    /* reference, gate order i o f c, Y rows past a row's length are 0 and its state stays */
    memset(wY, 0, sizeof wY);
    for (d = 0; d < 2; d++) {
        double h[LB][LH], c[LB][LH];
        for (b = 0; b < LB; b++) for (j = 0; j < LH; j++) { h[b][j] = H0[(d * LB + b) * LH + j]; c[b][j] = C0[(d * LB + b) * LH + j]; }
        for (s = 0; s < LT; s++) {
            int t = d ? LT - 1 - s : s;
            for (b = 0; b < LB; b++) {
                double gt[4 * LH], hn[LH], cn[LH];
                if (t >= lens[b]) continue;
                for (j = 0; j < 4 * LH; j++) {
                    double v = Bi[d * 8 * LH + j] + Bi[d * 8 * LH + 4 * LH + j];
                    for (k = 0; k < LI; k++) v += X[(t * LB + b) * LI + k] * (double)W[(d * 4 * LH + j) * LI + k];
                    for (k = 0; k < LH; k++) v += h[b][k] * (double)R[(d * 4 * LH + j) * LH + k];
                    gt[j] = v;
                }
                for (j = 0; j < LH; j++) {
                    double ig = sigm(gt[j] + P[d * 3 * LH + j] * c[b][j]);
                    double fg = sigm(gt[2 * LH + j] + P[d * 3 * LH + 2 * LH + j] * c[b][j]);
                    double cc = tanh(gt[3 * LH + j]);
                    cn[j] = fg * c[b][j] + ig * cc;
                    hn[j] = sigm(gt[LH + j] + P[d * 3 * LH + LH + j] * cn[j]) * tanh(cn[j]);
                }
                for (j = 0; j < LH; j++) { h[b][j] = hn[j]; c[b][j] = cn[j]; wY[((t * 2 + d) * LB + b) * LH + j] = hn[j]; }
            }
        }
        for (b = 0; b < LB; b++) for (j = 0; j < LH; j++) { wH[(d * LB + b) * LH + j] = h[b][j]; wC[(d * LB + b) * LH + j] = c[b][j]; }
    }
    a_str(&a, "direction", "bidirectional");
    a_int(&a, "hidden_size", LH);
    node(&g, "LSTM", 8, ins, 3, outs, &a);
    w_vi(&g, 11, "X", 1, 3, xd, "N"); w_vi(&g, 11, "W", 1, 3, wd, "N"); w_vi(&g, 11, "R", 1, 3, rd, "N");
    w_vi(&g, 11, "B", 1, 2, bd, "N"); w_vi(&g, 11, "L", 6, 1, sd, "N"); w_vi(&g, 11, "H0", 1, 3, hd, "N");
    w_vi(&g, 11, "C0", 1, 3, hd, "N"); w_vi(&g, 11, "P", 1, 2, pd, "N");
    w_vi(&g, 12, "Y", 1, 4, yd, "N"); w_vi(&g, 12, "Yh", 1, 3, hd, "N"); w_vi(&g, 12, "Yc", 1, 3, hd, "N");
    w_model(&mb, &g, 14);
    p = build(&mb, &rc, err, sizeof err);
    TH_CHECK(p != NULL, "LSTM: %s (%s)", rlx_result_string(rc), err);
    if (p) {
        rlx_set_input(p, "X", RLX_F32, X, sizeof X); rlx_set_input(p, "W", RLX_F32, W, sizeof W);
        rlx_set_input(p, "R", RLX_F32, R, sizeof R); rlx_set_input(p, "B", RLX_F32, Bi, sizeof Bi);
        rlx_set_input(p, "L", RLX_I32, lens, sizeof lens); rlx_set_input(p, "H0", RLX_F32, H0, sizeof H0);
        rlx_set_input(p, "C0", RLX_F32, C0, sizeof C0); rlx_set_input(p, "P", RLX_F32, P, sizeof P);
        TH_CHECK(rlx_run(p) == RLX_OK, "LSTM run: %s", rlx_program_error(p));
        rlx_get_output(p, "Y", RLX_F32, Y, sizeof Y); rlx_get_output(p, "Yh", RLX_F32, Yh, sizeof Yh); rlx_get_output(p, "Yc", RLX_F32, Yc, sizeof Yc);
        close_all("LSTM Y", Y, wY, LT * 2 * LB * LH, 1e-5);
        close_all("LSTM Y_h", Yh, wH, 2 * LB * LH, 1e-5);
        close_all("LSTM Y_c", Yc, wC, 2 * LB * LH, 1e-5);
        rlx_program_destroy(p);
    }
    free(mb.p);
}

/* ---- GRU: layout 1 (batch first), linear_before_reset, sequence_lens, no initial state ---- */
static void test_gru(void) {
    enum { T = 3, B = 2, I = 3, H = 2 };
    static float X[B * T * I], W[3 * H * I], R[3 * H * H], Bi[6 * H];
    static const int64_t lens[B] = {3, 1};
    float Y[B * T * H], Yh[B * H];
    double wY[B * T * H], wH[B * H];
    int64_t xd[3] = {B, T, I}, wd[3] = {1, 3 * H, I}, rd[3] = {1, 3 * H, H}, bd[2] = {1, 6 * H}, sd[1] = {B}, yd[4] = {B, T, 1, H}, hd[3] = {B, 1, H};
    static const char* const ins[5] = {"X", "W", "R", "B", "L"};
    static const char* const outs[2] = {"Y", "Yh"};
    pbw g = {0}, a = {0}, mb = {0};
    rlx_program* p;
    rlx_result rc;
    char err[512];
    int b, t, j, k;
    fill(X, B * T * I, -1, 1); fill(W, 3 * H * I, -0.9, 0.9); fill(R, 3 * H * H, -0.9, 0.9); fill(Bi, 6 * H, -0.4, 0.4);
    memset(wY, 0, sizeof wY);
    for (b = 0; b < B; b++) {
        double h[H] = {0, 0};
        for (t = 0; t < T && t < lens[b]; t++) {
            double xw[3 * H], hr[3 * H], hn[H];
            for (j = 0; j < 3 * H; j++) {
                xw[j] = Bi[j]; hr[j] = Bi[3 * H + j];
                for (k = 0; k < I; k++) xw[j] += X[(b * T + t) * I + k] * (double)W[j * I + k];
                for (k = 0; k < H; k++) hr[j] += h[k] * (double)R[j * H + k];
            }
            for (j = 0; j < H; j++) {
                double z = sigm(xw[j] + hr[j]), rr = sigm(xw[H + j] + hr[H + j]), hh = tanh(xw[2 * H + j] + rr * hr[2 * H + j]);
                hn[j] = (1 - z) * hh + z * h[j];
            }
            for (j = 0; j < H; j++) { h[j] = hn[j]; wY[(b * T + t) * H + j] = hn[j]; }
        }
        for (j = 0; j < H; j++) wH[b * H + j] = h[j];
    }
    a_int(&a, "layout", 1);
    a_int(&a, "linear_before_reset", 1);
    a_int(&a, "hidden_size", H);
    node(&g, "GRU", 5, ins, 2, outs, &a);
    w_vi(&g, 11, "X", 1, 3, xd, "N"); w_vi(&g, 11, "W", 1, 3, wd, "N"); w_vi(&g, 11, "R", 1, 3, rd, "N");
    w_vi(&g, 11, "B", 1, 2, bd, "N"); w_vi(&g, 11, "L", 7, 1, sd, "N");
    w_vi(&g, 12, "Y", 1, 4, yd, "N"); w_vi(&g, 12, "Yh", 1, 3, hd, "N");
    w_model(&mb, &g, 14);
    p = build(&mb, &rc, err, sizeof err);
    TH_CHECK(p != NULL, "GRU: %s (%s)", rlx_result_string(rc), err);
    if (p) {
        rlx_set_input(p, "X", RLX_F32, X, sizeof X); rlx_set_input(p, "W", RLX_F32, W, sizeof W);
        rlx_set_input(p, "R", RLX_F32, R, sizeof R); rlx_set_input(p, "B", RLX_F32, Bi, sizeof Bi);
        rlx_set_input(p, "L", RLX_I64, lens, sizeof lens);
        TH_CHECK(rlx_run(p) == RLX_OK, "GRU run: %s", rlx_program_error(p));
        rlx_get_output(p, "Y", RLX_F32, Y, sizeof Y); rlx_get_output(p, "Yh", RLX_F32, Yh, sizeof Yh);
        close_all("GRU Y (layout 1)", Y, wY, B * T * H, 1e-5);
        close_all("GRU Y_h (layout 1)", Yh, wH, B * H, 1e-5);
        rlx_program_destroy(p);
    }
    free(mb.p);
}

/* ---- RNN: reverse, Relu, clip ---- */
static void test_rnn(void) {
    enum { T = 4, B = 2, I = 2, H = 3 };
    static float X[T * B * I], W[H * I], R[H * H];
    static const char* const acts[1] = {"Relu"};
    float Y[T * B * H];
    double wY[T * B * H], clip = 0.6;
    int64_t xd[3] = {T, B, I}, wd[3] = {1, H, I}, rd[3] = {1, H, H}, yd[4] = {T, 1, B, H};
    static const char* const ins[3] = {"X", "W", "R"};
    static const char* const outs[1] = {"Y"};
    pbw g = {0}, a = {0}, mb = {0};
    rlx_program* p;
    rlx_result rc;
    char err[512];
    int b, s, j, k;
    fill(X, T * B * I, -1, 1); fill(W, H * I, -1, 1); fill(R, H * H, -1, 1);
    for (b = 0; b < B; b++) {
        double h[H] = {0, 0, 0};
        for (s = 0; s < T; s++) {
            int t = T - 1 - s;
            double hn[H];
            for (j = 0; j < H; j++) {
                double v = 0;
                for (k = 0; k < I; k++) v += X[(t * B + b) * I + k] * (double)W[j * I + k];
                for (k = 0; k < H; k++) v += h[k] * (double)R[j * H + k];
                v = v > clip ? clip : v < -clip ? -clip : v;
                hn[j] = v > 0 ? v : 0;
            }
            for (j = 0; j < H; j++) { h[j] = hn[j]; wY[(t * B + b) * H + j] = hn[j]; }
        }
    }
    a_str(&a, "direction", "reverse");
    a_strs(&a, "activations", 1, acts);
    a_float(&a, "clip", (float)clip);
    node(&g, "RNN", 3, ins, 1, outs, &a);
    w_vi(&g, 11, "X", 1, 3, xd, "N"); w_vi(&g, 11, "W", 1, 3, wd, "N"); w_vi(&g, 11, "R", 1, 3, rd, "N");
    w_vi(&g, 12, "Y", 1, 4, yd, "N");
    w_model(&mb, &g, 14);
    p = build(&mb, &rc, err, sizeof err);
    TH_CHECK(p != NULL, "RNN: %s (%s)", rlx_result_string(rc), err);
    if (p) {
        rlx_set_input(p, "X", RLX_F32, X, sizeof X); rlx_set_input(p, "W", RLX_F32, W, sizeof W); rlx_set_input(p, "R", RLX_F32, R, sizeof R);
        TH_CHECK(rlx_run(p) == RLX_OK, "RNN run: %s", rlx_program_error(p));
        rlx_get_output(p, "Y", RLX_F32, Y, sizeof Y);
        close_all("RNN reverse Relu clip", Y, wY, T * B * H, 1e-5);
        rlx_program_destroy(p);
    }
    free(mb.p);
}

/* ---- Einsum ---- */
/* runs a one-node Einsum model on inputs A (and B, C) and compares with want */
static void einsum_case(const char* eq, int nin, const int* ranks, const int64_t (*dims)[4], float* const* data, int orank,
                        const int64_t* od, const double* want) {
    static const char* const names[3] = {"A", "B", "C"};
    static const char* const outs[1] = {"Y"};
    pbw g = {0}, a = {0}, mb = {0};
    rlx_program* p;
    rlx_result rc;
    char err[512];
    float got[256];
    int i, n = 1;
    a_str(&a, "equation", eq);
    node(&g, "Einsum", nin, names, 1, outs, &a);
    for (i = 0; i < nin; i++) w_vi(&g, 11, names[i], 1, ranks[i], dims[i], "N");
    w_vi(&g, 12, "Y", 1, orank, od, "N");
    w_model(&mb, &g, 12);
    for (i = 0; i < orank; i++) n *= (int)od[i];
    p = build(&mb, &rc, err, sizeof err);
    TH_CHECK(p != NULL, "Einsum '%s': %s (%s)", eq, rlx_result_string(rc), err);
    if (p) {
        int k;
        for (i = 0; i < nin; i++) {
            size_t cnt = 1;
            for (k = 0; k < ranks[i]; k++) cnt *= (size_t)dims[i][k];
            rlx_set_input(p, names[i], RLX_F32, data[i], cnt * sizeof(float));
        }
        TH_CHECK(rlx_run(p) == RLX_OK, "Einsum '%s' run: %s", eq, rlx_program_error(p));
        TH_CHECK(rlx_get_output(p, "Y", RLX_F32, got, (size_t)n * sizeof(float)) == RLX_OK, "Einsum '%s' output: %s", eq, rlx_program_error(p));
        close_all(eq, got, want, n, 1e-5);
        rlx_program_destroy(p);
    }
    free(mb.p);
}
static void test_einsum(void) {
    static float A[64], B[64], C[64];
    float* d3[3];
    double want[256];
    int i, j, k, l, b;
    d3[0] = A; d3[1] = B; d3[2] = C;
    fill(A, 64, -1, 1); fill(B, 64, -1, 1); fill(C, 64, -1, 1);
    { /* implicit output: "ij,jk" = matmul, output "ik" */
        int r[2] = {2, 2};
        int64_t d[2][4] = {{2, 3}, {3, 4}}, od[2] = {2, 4};
        for (i = 0; i < 2; i++) for (k = 0; k < 4; k++) { double s = 0; for (j = 0; j < 3; j++) s += A[i * 3 + j] * (double)B[j * 4 + k]; want[i * 4 + k] = s; }
        einsum_case("ij,jk", 2, r, (const int64_t(*)[4])d, d3, 2, od, want);
    }
    { /* broadcast ellipsis: A [2, 1, 2, 3], B [3, 3, 2] → [2, 3, 2, 2] */
        int r[2] = {4, 3};
        int64_t d[2][4] = {{2, 1, 2, 3}, {3, 3, 2}}, od[4] = {2, 3, 2, 2};
        for (b = 0; b < 2; b++) for (l = 0; l < 3; l++) for (i = 0; i < 2; i++) for (k = 0; k < 2; k++) {
            double s = 0;
            for (j = 0; j < 3; j++) s += A[(b * 2 + i) * 3 + j] * (double)B[(l * 3 + j) * 2 + k];
            want[((b * 3 + l) * 2 + i) * 2 + k] = s;
        }
        einsum_case("...ij,...jk->...ik", 2, r, (const int64_t(*)[4])d, d3, 4, od, want);
    }
    { /* three operands: ij,jk,kl->li */
        int r[3] = {2, 2, 2};
        int64_t d[3][4] = {{2, 3}, {3, 2}, {2, 4}}, od[2] = {4, 2};
        for (l = 0; l < 4; l++) for (i = 0; i < 2; i++) {
            double s = 0;
            for (j = 0; j < 3; j++) for (k = 0; k < 2; k++) s += A[i * 3 + j] * (double)B[j * 2 + k] * C[k * 4 + l];
            want[l * 2 + i] = s;
        }
        einsum_case("ij,jk,kl->li", 3, r, (const int64_t(*)[4])d, d3, 2, od, want);
    }
    { /* trace (implicit output of rank 0 is a scalar: written here as ->) and outer product */
        int r[2] = {2, 1};
        int64_t d[2][4] = {{4, 4}, {3}}, od0[1] = {1}, od[2] = {4, 3};
        double s = 0;
        for (i = 0; i < 4; i++) s += A[i * 4 + i];
        want[0] = s;
        einsum_case("ii", 1, r, (const int64_t(*)[4])d, d3, 0, od0, want);
        r[0] = 1; d[0][0] = 4;
        for (i = 0; i < 4; i++) for (j = 0; j < 3; j++) want[i * 3 + j] = A[i] * (double)B[j];
        einsum_case("i,j->ij", 2, r, (const int64_t(*)[4])d, d3, 2, od, want);
    }
    { /* a diagonal kept and a sum: "bii->bi" and "ijk->kj" */
        int r[1] = {3};
        int64_t d[1][4] = {{2, 3, 3}}, od[2] = {2, 3}, od2[2] = {3, 3};
        for (b = 0; b < 2; b++) for (i = 0; i < 3; i++) want[b * 3 + i] = A[(b * 3 + i) * 3 + i];
        einsum_case("bii->bi", 1, r, (const int64_t(*)[4])d, d3, 2, od, want);
        for (k = 0; k < 3; k++) for (j = 0; j < 3; j++) { double s = 0; for (i = 0; i < 2; i++) s += A[(i * 3 + j) * 3 + k]; want[k * 3 + j] = s; }
        einsum_case("ijk->kj", 1, r, (const int64_t(*)[4])d, d3, 2, od2, want);
    }
}

/* ---- Resize: rank 3 through axes (opset 18), linear half_pixel; nearest on int32 ---- */
static void test_resize(void) {
    enum { C = 2, W = 5, OW = 7 };
    static float X[C * W];
    static const int32_t XI[C * W] = {1, -2, 3, 40, 5, 6, 7, -80, 9, 10};
    float Y[C * OW];
    int32_t YI[C * OW];
    double want[C * OW];
    int64_t xd[3] = {1, C, W}, yd[3] = {1, C, OW}, sd[1] = {1}, sz[1] = {OW}, ax[1] = {2};
    static const char* const ins[4] = {"X", "", "", "S"};
    static const char* const outs[1] = {"Y"};
    int it, c, o;
    fill(X, C * W, -2, 2);
    for (it = 0; it < 2; it++) {
        pbw g = {0}, a = {0}, mb = {0};
        rlx_program* p;
        rlx_result rc;
        char err[512];
        a_str(&a, "mode", it ? "nearest" : "linear");
        a_ints(&a, "axes", 1, ax);
        if (it) a_str(&a, "nearest_mode", "round_prefer_ceil");
        node(&g, "Resize", 4, ins, 1, outs, &a);
        w_tensor(&g, 5, "S", 7, 1, sd, sz, sizeof sz);
        w_vi(&g, 11, "X", it ? 6 : 1, 3, xd, "N");
        w_vi(&g, 12, "Y", it ? 6 : 1, 3, yd, "N");
        w_model(&mb, &g, 18);
        for (c = 0; c < C; c++)
            for (o = 0; o < OW; o++) {
                double xo = (o + 0.5) * W / OW - 0.5, f = floor(xo), t = xo - f;
                int i0 = (int)f, i1 = i0 + 1;
                if (i0 < 0) i0 = 0;
                if (i1 > W - 1) i1 = W - 1;
                if (it) { int nn = (int)floor(xo + 0.5); nn = nn < 0 ? 0 : nn > W - 1 ? W - 1 : nn; want[c * OW + o] = XI[c * W + nn]; }
                else want[c * OW + o] = (1 - t) * X[c * W + (i0 < 0 ? 0 : i0)] + t * X[c * W + i1];
            }
        p = build(&mb, &rc, err, sizeof err);
        TH_CHECK(p != NULL, "Resize %s rank 3: %s (%s)", it ? "nearest" : "linear", rlx_result_string(rc), err);
        if (p) {
            if (it) {
                double got[C * OW];
                int k;
                rlx_set_input(p, "X", RLX_I32, XI, sizeof XI);
                TH_CHECK(rlx_run(p) == RLX_OK, "Resize run: %s", rlx_program_error(p));
                rlx_get_output(p, "Y", RLX_I32, YI, sizeof YI);
                for (k = 0; k < C * OW; k++) got[k] = YI[k];
                for (k = 0; k < C * OW && got[k] == want[k]; k++) {}
                TH_CHECK(k == C * OW, "Resize nearest i32 [%d]: got %g, want %g", k, k < C * OW ? got[k] : 0, k < C * OW ? want[k] : 0);
            } else {
                rlx_set_input(p, "X", RLX_F32, X, sizeof X);
                TH_CHECK(rlx_run(p) == RLX_OK, "Resize run: %s", rlx_program_error(p));
                rlx_get_output(p, "Y", RLX_F32, Y, sizeof Y);
                close_all("Resize linear rank 3 axes=[2]", Y, want, C * OW, 1e-5);
            }
            rlx_program_destroy(p);
        }
        free(mb.p);
    }
}

/* ---- rlx_scatter through the builder ---- */
static void scatter_ref(const double* x, const int64_t* xs, const int64_t* idx, const double* up, const int64_t* is, int axis,
                        int red, int isint, double* out) {
    int64_t n = is[0] * is[1], k;
    memcpy(out, x, sizeof(double) * (size_t)(xs[0] * xs[1]));
    for (k = 0; k < n; k++) {
        int64_t p[2], v = idx[k], o;
        p[0] = k / is[1]; p[1] = k % is[1];
        if (v < 0) v += xs[axis];
        if (v < 0 || v >= xs[axis]) continue;
        p[axis] = v;
        o = p[0] * xs[1] + p[1];
        if (isint && (red == RLX_SCATTER_ADD || red == RLX_SCATTER_MUL)) {   /* int32 arithmetic wraps */
            uint32_t a = (uint32_t)(int32_t)out[o], b = (uint32_t)(int32_t)up[k];
            out[o] = (double)(int32_t)(red == RLX_SCATTER_ADD ? a + b : a * b);
            continue;
        }
        switch (red) {
        case RLX_SCATTER_REPLACE: out[o] = up[k]; break;
        case RLX_SCATTER_ADD: out[o] += up[k]; break;
        case RLX_SCATTER_MUL: out[o] *= up[k]; break;
        case RLX_SCATTER_MAX: out[o] = up[k] > out[o] ? up[k] : out[o]; break;
        default: out[o] = up[k] < out[o] ? up[k] : out[o]; break;
        }
    }
}
/* every reduction, both axes, f32 and i32, on device dev; returns 0 when dev cannot compile at all */
static int scatter_cases(rlx_device dev) {
    static const char* const rn[5] = {"replace", "add", "mul", "max", "min"};
    int64_t xs[2] = {4, 5}, is[2] = {3, 4};
    /* repeated (0 and 2 twice in column 0), negative (-1 → 3) and out-of-range (7, -9: skipped) indices */
    static const int64_t idx0[12] = {0, 1, 2, 3, 2, -1, 0, 7, 0, 2, -9, 1};
    static const int64_t idx1[12] = {0, 4, 4, -1, 1, 2, 1, 3, 9, 0, 0, -5};
    int red, ax, isint;
    float xv[20], uv[12], got[20];
    int32_t xi[20], ui[12], goti[20];
    double xd[20], ud[20], want[20];
    int k;
    fill(xv, 20, -3, 3); fill(uv, 12, -3, 3);
    for (k = 0; k < 20; k++) { xi[k] = (int32_t)(k % 2 ? 2000000000 - k : k - 1000); }
    for (k = 0; k < 12; k++) ui[k] = (int32_t)(k % 3 ? 1500000000 : -(k + 7));
    for (isint = 0; isint < 2; isint++)
        for (ax = 0; ax < 2; ax++)
            for (red = 0; red < 5; red++) {
                rlx_graph* g = rlx_graph_create(NULL);
                rlx_dtype dt = isint ? RLX_I32 : RLX_F32;
                rlx_tensor x = rlx_input(g, "x", dt, 2, xs), u = rlx_input(g, "u", dt, 2, is);
                rlx_tensor ix = rlx_constant(g, RLX_I64, 2, is, ax ? idx1 : idx0);
                rlx_program* p = NULL;
                rlx_compile_desc cd;
                rlx_result rc;
                char what[96];
                snprintf(what, sizeof what, "scatter on %s: %s axis %d %s", rlx_device_name(dev), isint ? "i32" : "f32", ax, rn[red]);
                rlx_output(g, "y", rlx_scatter(g, x, ix, u, ax, (rlx_scatter_reduction)red));
                memset(&cd, 0, sizeof cd);
                cd.device = dev;
                cd.flags = RLX_COMPILE_NO_FALLBACK;
                rc = rlx_compile(g, &cd, &p);
                if (rc != RLX_OK && dev != RLX_DEVICE_CPU && !strstr(rlx_graph_error(g), "scatter")) {   /* no such device */
                    rlx_graph_destroy(g);
                    return 0;
                }
                TH_CHECK(rc == RLX_OK, "%s: %s", what, rlx_graph_error(g));
                for (k = 0; k < 20; k++) xd[k] = isint ? (double)xi[k] : (double)xv[k];
                for (k = 0; k < 12; k++) ud[k] = isint ? (double)ui[k] : (double)uv[k];
                scatter_ref(xd, xs, ax ? idx1 : idx0, ud, is, ax, red, isint, want);
                if (p) {
                    rlx_set_input(p, "x", dt, isint ? (const void*)xi : (const void*)xv, 80);
                    rlx_set_input(p, "u", dt, isint ? (const void*)ui : (const void*)uv, 48);
                    TH_CHECK(rlx_run(p) == RLX_OK, "%s run: %s", what, rlx_program_error(p));
                    if (isint) {
                        rlx_get_output(p, "y", RLX_I32, goti, sizeof goti);
                        for (k = 0; k < 20 && goti[k] == (int32_t)want[k]; k++) {}
                        TH_CHECK(k == 20, "%s [%d]: got %d, want %.0f", what, k, k < 20 ? goti[k] : 0, k < 20 ? want[k] : 0);
                    } else {
                        rlx_get_output(p, "y", RLX_F32, got, sizeof got);
                        close_all(what, got, want, 20, 1e-6);
                    }
                }
                rlx_program_destroy(p);
                rlx_graph_destroy(g);
            }
    return 1;
}
static void test_scatter(void) {
    static const rlx_device devs[3] = {RLX_DEVICE_VULKAN, RLX_DEVICE_CUDA, RLX_DEVICE_HIP};
    int64_t xs[2] = {4, 5}, is[2] = {3, 4};
    int q;
    scatter_cases(RLX_DEVICE_CPU);
    for (q = 0; q < 3; q++)   /* the GPU kernels (kernels/cuda, kernels/vulkan elementwise: scatter) */
        if (!scatter_cases(devs[q])) th_skip("scatter on %s: the device is not available here", rlx_device_name(devs[q]));
    { /* builder errors: a code and a message naming what was wrong, never a node */
        rlx_graph* g = rlx_graph_create(NULL);
        int64_t s3[3] = {3, 4, 1}, big[2] = {5, 4};
        rlx_tensor t, u = rlx_input(g, "u", RLX_F32, 2, is);
        rlx_tensor ui2 = rlx_input(g, "ui", RLX_I32, 2, is), fi = rlx_input(g, "fi", RLX_F32, 2, is);
        rlx_tensor i3 = rlx_input(g, "i3", RLX_I64, 3, s3), ib = rlx_input(g, "ib", RLX_I64, 2, big), ix = rlx_input(g, "ix", RLX_I64, 2, is);
        struct { rlx_tensor i, u; int axis, red; rlx_result want; const char* needle; } bad[6];
        int nb = 0;
        bad[nb].i = fi; bad[nb].u = u; bad[nb].axis = 0; bad[nb].red = 0; bad[nb].want = RLX_ERROR_DTYPE; bad[nb++].needle = "indices must be";
        bad[nb].i = ix; bad[nb].u = ui2; bad[nb].axis = 0; bad[nb].red = 0; bad[nb].want = RLX_ERROR_DTYPE; bad[nb++].needle = "updates are";
        bad[nb].i = i3; bad[nb].u = u; bad[nb].axis = 0; bad[nb].red = 0; bad[nb].want = RLX_ERROR_SHAPE; bad[nb++].needle = "rank";
        bad[nb].i = ib; bad[nb].u = u; bad[nb].axis = 0; bad[nb].red = 0; bad[nb].want = RLX_ERROR_SHAPE; bad[nb++].needle = "differ";
        bad[nb].i = ix; bad[nb].u = u; bad[nb].axis = 2; bad[nb].red = 0; bad[nb].want = RLX_ERROR_AXIS; bad[nb++].needle = "axis";
        bad[nb].i = ix; bad[nb].u = u; bad[nb].axis = 0; bad[nb].red = 9; bad[nb].want = RLX_ERROR_INVALID_ARGUMENT; bad[nb++].needle = "reduction";
        for (q = 0; q < nb; q++) {
            rlx_graph* h = rlx_graph_create(NULL);
            rlx_tensor hx = rlx_input(h, "x", RLX_F32, 2, xs);
            int64_t sh[RLX_MAX_RANK];
            int rk = 0;
            rlx_dtype di = rlx_tensor_info(g, bad[q].i, &rk, sh), du;
            rlx_tensor hi = rlx_input(h, "i", di, rk, sh), hu;
            du = rlx_tensor_info(g, bad[q].u, &rk, sh);
            hu = rlx_input(h, "u", du, rk, sh);
            t = rlx_scatter(h, hx, hi, hu, bad[q].axis, (rlx_scatter_reduction)bad[q].red);
            TH_CHECK(t.id == 0 && rlx_graph_status(h) == bad[q].want && strstr(rlx_graph_error(h), bad[q].needle),
                     "scatter bad case %d: status %d, message '%s'", q, (int)rlx_graph_status(h), rlx_graph_error(h));
            rlx_graph_destroy(h);
        }
        rlx_graph_destroy(g);
    }
}

/* ---- hostile attributes: an error and a message, never a crash ---- */
static void expect_import_fail(const char* what, pbw* g, int opset, rlx_result want, const char* needle) {
    pbw mb = {0};
    rlx_program* p;
    rlx_result rc;
    char err[512];
    w_model(&mb, g, opset);
    p = build(&mb, &rc, err, sizeof err);
    TH_CHECK(p == NULL && rc == want && strstr(err, needle), "%s: got %s, message '%s' (want %s with '%s')", what,
             rlx_result_string(rc), err, rlx_result_string(want), needle);
    rlx_program_destroy(p);
    free(mb.p);
}
static void test_hostile(void) {
    static const char* const bad_eq[] = {"ij,jk", "ij->k", "i..j", "ij,jk->ii", "i...j...", "i$j", "abcdefghij->a", NULL};
    static const rlx_result bad_rc[] = {RLX_ERROR_INVALID_ARGUMENT, RLX_ERROR_INVALID_ARGUMENT, RLX_ERROR_INVALID_ARGUMENT,
                                        RLX_ERROR_INVALID_ARGUMENT, RLX_ERROR_INVALID_ARGUMENT, RLX_ERROR_INVALID_ARGUMENT, RLX_ERROR_INVALID_ARGUMENT};
    static const char* const one[1] = {"A"};
    static const char* const outs[1] = {"Y"};
    int64_t ad[2] = {2, 3};
    int q;
    for (q = 0; bad_eq[q]; q++) {
        pbw g = {0}, a = {0};
        char what[64];
        a_str(&a, "equation", bad_eq[q]);
        node(&g, "Einsum", 1, one, 1, outs, &a);
        w_vi(&g, 11, "A", 1, 2, ad, "N");
        w_vi(&g, 12, "Y", 1, 2, ad, "N");
        snprintf(what, sizeof what, "Einsum '%s'", bad_eq[q]);
        expect_import_fail(what, &g, 12, bad_rc[q], "Einsum");
    }
    { /* LSTM: W of the wrong size, an unknown activation, a wrong activation count */
        static const char* const ins[3] = {"X", "W", "R"};
        static const char* const acts[3] = {"Sigmoid", "Cube", "Tanh"};
        int64_t xd[3] = {2, 1, 2}, wd[3] = {1, 8, 2}, rd[3] = {1, 12, 3}, wd_ok[3] = {1, 12, 2};
        int it;
        for (it = 0; it < 3; it++) {
            pbw g = {0}, a = {0};
            a_int(&a, "hidden_size", 3);
            if (it == 1) a_strs(&a, "activations", 3, acts);
            if (it == 2) a_strs(&a, "activations", 2, acts);
            node(&g, "LSTM", 3, ins, 1, outs, &a);
            w_vi(&g, 11, "X", 1, 3, xd, "N"); w_vi(&g, 11, "W", 1, 3, it ? wd_ok : wd, "N"); w_vi(&g, 11, "R", 1, 3, rd, "N");
            w_vi(&g, 12, "Y", 1, 3, xd, "N");
            expect_import_fail(it == 0 ? "LSTM bad W" : it == 1 ? "LSTM unknown activation" : "LSTM activation count", &g, 14,
                               it == 1 ? RLX_ERROR_UNSUPPORTED : it == 0 ? RLX_ERROR_SHAPE : RLX_ERROR_INVALID_ARGUMENT,
                               it == 1 ? "activation 'Cube'" : it == 0 ? "do not fit" : "activations");
        }
    }
    { /* Resize: an unknown mode and a non-constant sizes input */
        static const char* const ins[4] = {"X", "", "", "S"};
        int64_t xd[4] = {1, 1, 2, 2}, sd[1] = {4};
        pbw g = {0}, a = {0};
        a_str(&a, "mode", "lanczos");
        node(&g, "Resize", 4, ins, 1, outs, &a);
        w_vi(&g, 11, "X", 1, 4, xd, "N"); w_vi(&g, 11, "S", 7, 1, sd, "N");
        w_vi(&g, 12, "Y", 1, 4, xd, "N");
        expect_import_fail("Resize mode lanczos", &g, 13, RLX_ERROR_UNSUPPORTED, "mode 'lanczos'");
        memset(&g, 0, sizeof g);
        node(&g, "Resize", 4, ins, 1, outs, NULL);
        w_vi(&g, 11, "X", 1, 4, xd, "N"); w_vi(&g, 11, "S", 7, 1, sd, "N");
        w_vi(&g, 12, "Y", 1, 4, xd, "N");
        expect_import_fail("Resize sizes as a graph input", &g, 13, RLX_ERROR_UNSUPPORTED, "sizes must be a constant");
    }
}

int main(void) {
    test_lstm();
    test_gru();
    test_rnn();
    test_einsum();
    test_resize();
    test_scatter();
    test_hostile();
    return th_summary("onnx_ops");
}
