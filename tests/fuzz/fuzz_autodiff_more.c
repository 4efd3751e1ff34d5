/* libFuzzer target for the gradient rules of rope (x and its tables), grouped and depthwise conv, conv_transpose,
   attention with kv_len, resize and average pooling (>>autodiff). The input picks one op and all its attributes
   and shapes (small: every dim below 10), builds it on inputs of random values, takes the loss sum(y · R) and asks
   rlx_grad for the gradient of every float operand. Contract: a builder may reject the attributes (an error
   code and message, never a crash); a graph it accepted gets its gradients from rlx_grad (RLX_OK: every op here
   has a rule), compiles and runs on the CPU, and the gradients agree with the forward program itself: for a
   random direction d, sum(grad · d) equals the central difference (loss(x + h·d) − loss(x − h·d)) / 2h within
   1e-6 relative in f64 (h = 1e-5), 2e-2 in f32 for attention, which computes in f32. Under ASan + UBSan any
   out-of-bounds access, leak or undefined behaviour stops it too.
       make fuzz-autodiff-more [FUZZ_SECONDS=60]
   RLX_FUZZ_STANDALONE builds a replayer: fuzz_autodiff_more FILE... */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links one instrumented implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../../rlx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fm_in { const uint8_t* d; size_t n, at; uint64_t rng; } fm_in;

static int fm_byte(fm_in* in) { return in->at < in->n ? in->d[in->at++] : 0; }
static int fm_pick(fm_in* in, int k) { return k > 0 ? fm_byte(in) % k : 0; }
static double fm_val(fm_in* in) {   /* deterministic values in [-1, 1], away from 0 */
    double u;
    in->rng ^= in->rng << 13; in->rng ^= in->rng >> 7; in->rng ^= in->rng << 17;
    u = (double)(in->rng >> 11) / 9007199254740992.0;
    return (u < 0.5 ? -1.0 : 1.0) * (0.1 + 0.9 * fabs(2.0 * u - 1.0));
}

static void fm_fail(const char* what, const char* msg) {
    fprintf(stderr, "fuzz_autodiff_more: %s: %s\n", what, msg);
    abort();
}

#define FM_MAXIN 4

static long fm_checked, fm_rejected;   /* cases that reached the gradient check, cases a builder rejected */

typedef struct fm_case {
    rlx_graph* g;
    rlx_tensor in[FM_MAXIN];
    int nin;
    rlx_dtype dt;
} fm_case;

static rlx_tensor fm_input(fm_case* c, int r, const int64_t* s) {
    char nm[16];
    snprintf(nm, sizeof nm, "i%d", c->nin);
    c->in[c->nin] = rlx_input(c->g, nm, c->dt, r, s);
    return c->in[c->nin++];
}

static rlx_tensor fm_build(fm_case* c, fm_in* in) {
    rlx_graph* g = c->g;
    int op = fm_pick(in, 6);
    c->dt = op == 3 ? RLX_F32 : RLX_F64;
    switch (op) {
    case 0: {   /* rope: every kind, layout, n_rot, positions or offset; x and both tables */
        rlx_rope_desc d;
        int64_t H = 1 + fm_pick(in, 3), D = 2 * (1 + fm_pick(in, 3)), B = 1 + fm_pick(in, 2), S = 1 + fm_pick(in, 4);
        int64_t P = 1 + fm_pick(in, 5), xs[4], ts[2], nrot, ps[2], pv[8];
        int mode = fm_pick(in, 3), k;
        rlx_tensor x, cs, sn;
        memset(&d, 0, sizeof d);
        d.kind = (rlx_rope_kind)fm_pick(in, 2);
        d.layout = (rlx_layout)fm_pick(in, 2);
        nrot = fm_pick(in, 2) ? 2 * (1 + fm_pick(in, (int)(D / 2))) : 0;
        d.n_rot = (int)nrot;
        d.position_offset = fm_pick(in, 9) - 4;
        if (d.layout == RLX_LAYOUT_BSHD) { xs[0] = B; xs[1] = S; xs[2] = H * D; d.num_heads = (int)H; }
        else { xs[0] = B; xs[1] = H; xs[2] = S; xs[3] = D; }
        ts[0] = P; ts[1] = (nrot ? nrot : D) / 2;
        x = fm_input(c, d.layout == RLX_LAYOUT_BSHD ? 3 : 4, xs);
        cs = fm_input(c, 2, ts);
        sn = fm_input(c, 2, ts);
        if (mode) {   /* positions [S] or [B, S], some outside [0, P) */
            ps[0] = mode == 2 ? B : S; ps[1] = S;
            for (k = 0; k < 8; k++) pv[k] = fm_pick(in, (int)P + 3) - 1;
            d.positions = rlx_constant(g, RLX_I64, mode == 2 ? 2 : 1, ps, pv);
        }
        return rlx_rope(g, x, cs, sn, &d);
    }
    case 1: case 2: {   /* conv (1D / 2D) or conv_transpose (2D), any groups */
        rlx_conv_desc d;
        int tr = op == 2, ns = tr ? 2 : 1 + fm_pick(in, 2), k, bias = fm_pick(in, 2);
        int64_t G = 1 + fm_pick(in, 3), N = 1 + fm_pick(in, 2), Ci = G * (1 + fm_pick(in, 2)), Co = G * (1 + fm_pick(in, 2));
        int64_t xs[4], ws[4], bs;
        rlx_tensor x, w, b = {0, 0};
        memset(&d, 0, sizeof d);
        d.groups = (int)G;
        xs[0] = N; xs[1] = Ci;
        if (tr) { ws[0] = Ci; ws[1] = Co / G; } else { ws[0] = Co; ws[1] = Ci / G; }
        for (k = 0; k < ns; k++) {
            xs[2 + k] = 1 + fm_pick(in, 6);
            ws[2 + k] = 1 + fm_pick(in, 3);
            d.stride[k] = 1 + fm_pick(in, 3);
            d.dilation[k] = 1 + fm_pick(in, 2);
            d.pad_begin[k] = fm_pick(in, 3);
            d.pad_end[k] = fm_pick(in, 3);
            if (tr) d.output_padding[k] = fm_pick(in, d.stride[k]);
        }
        x = fm_input(c, 2 + ns, xs);
        w = fm_input(c, 2 + ns, ws);
        bs = Co;
        if (bias) b = fm_input(c, 1, &bs);
        return (tr ? rlx_conv_transpose : rlx_conv)(g, x, w, b, &d);
    }
    case 3: {   /* attention with kv_len (scalar or [B]), masks, GQA; f32 */
        rlx_attention_desc d;
        int64_t Hkv = 1 + fm_pick(in, 2), H = Hkv * (1 + fm_pick(in, 2)), B = 1 + fm_pick(in, 2), Sq = 1 + fm_pick(in, 3);
        int64_t Sk = 1 + fm_pick(in, 5), D = 1 + fm_pick(in, 3), Dv = 1 + fm_pick(in, 3), qs[4], ks[4], vs[4], kv[2], ms[2];
        int k;
        unsigned char keep[2 * 6];
        rlx_tensor q, kk, v;
        memset(&d, 0, sizeof d);
        d.layout = RLX_LAYOUT_BHSD;
        d.causal = fm_pick(in, 2);
        d.window = fm_pick(in, 2) ? 1 + fm_pick(in, 3) : 0;
        d.softcap = fm_pick(in, 2) ? 2.0f : 0.0f;
        qs[0] = B; qs[1] = H; qs[2] = Sq; qs[3] = D;
        ks[0] = B; ks[1] = Hkv; ks[2] = Sk; ks[3] = D;
        vs[0] = B; vs[1] = Hkv; vs[2] = Sk; vs[3] = Dv;
        q = fm_input(c, 4, qs); kk = fm_input(c, 4, ks); v = fm_input(c, 4, vs);
        for (k = 0; k < 2; k++) kv[k] = fm_pick(in, (int)Sk + 3) - 1;
        if (fm_pick(in, 2)) d.kv_len = rlx_scalar(g, RLX_I32, (double)kv[0]);
        else d.kv_len = rlx_constant(g, RLX_I64, 1, &B, kv);
        if (fm_pick(in, 2)) {
            for (k = 0; k < 12; k++) keep[k] = (unsigned char)(fm_pick(in, 4) != 0);
            ms[0] = B; ms[1] = Sk;
            d.keep_mask = rlx_constant(g, RLX_BOOL, 2, ms, keep);
        }
        if (fm_pick(in, 2)) { int64_t bs[4]; bs[0] = 1; bs[1] = H; bs[2] = Sq; bs[3] = Sk; d.bias = fm_input(c, 4, bs); }
        return rlx_attention(g, q, kk, v, &d);
    }
    case 4: {   /* resize */
        int64_t xs[4];
        int mode = 1 + fm_pick(in, 2), align = fm_pick(in, 2), oh = 1 + fm_pick(in, 8), ow = 1 + fm_pick(in, 8);
        xs[0] = 1 + fm_pick(in, 2); xs[1] = 1 + fm_pick(in, 2); xs[2] = 1 + fm_pick(in, 5); xs[3] = 1 + fm_pick(in, 5);
        return rlx_resize(g, fm_input(c, 4, xs), oh, ow, (rlx_resize_mode)mode, align);
    }
    default: {   /* average pooling 1D / 2D */
        rlx_pool_desc d;
        int ns = 1 + fm_pick(in, 2), k;
        int64_t xs[4];
        memset(&d, 0, sizeof d);
        d.kind = RLX_POOL_AVG;
        d.count_include_pad = fm_pick(in, 2);
        d.global = fm_pick(in, 5) == 0;
        xs[0] = 1 + fm_pick(in, 2); xs[1] = 1 + fm_pick(in, 2);
        for (k = 0; k < ns; k++) {
            xs[2 + k] = 1 + fm_pick(in, 7);
            d.kernel[k] = 1 + fm_pick(in, 3);
            d.stride[k] = fm_pick(in, 3);
            d.pad_begin[k] = fm_pick(in, 2);
            d.pad_end[k] = fm_pick(in, 2);
        }
        return rlx_pool(g, fm_input(c, 2 + ns, xs), &d);
    }
    }
}

static double fm_loss(rlx_program* p, fm_case* c, double* const* xv, const int64_t* n) {
    int k;
    double l = 0;
    float lf = 0;
    for (k = 0; k < c->nin; k++) {
        char nm[16];
        int64_t j;
        snprintf(nm, sizeof nm, "i%d", k);
        if (c->dt == RLX_F64) rlx_set_input(p, nm, RLX_F64, xv[k], sizeof(double) * (size_t)n[k]);
        else {
            float* f = (float*)malloc(sizeof(float) * (size_t)n[k]);
            for (j = 0; j < n[k]; j++) f[j] = (float)xv[k][j];
            rlx_set_input(p, nm, RLX_F32, f, sizeof(float) * (size_t)n[k]);
            free(f);
        }
    }
    if (rlx_run(p) != RLX_OK) fm_fail("run", rlx_program_error(p));
    if (c->dt == RLX_F64) rlx_get_output(p, "loss", RLX_F64, &l, sizeof l);
    else { rlx_get_output(p, "loss", RLX_F32, &lf, sizeof lf); l = lf; }
    return l;
}

static void fm_run(const uint8_t* data, size_t size) {
    fm_in in;
    fm_case c;
    rlx_tensor y, loss, gr[FM_MAXIN];
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_result r;
    double *xv[FM_MAXIN] = {0}, *dv[FM_MAXIN] = {0}, *gv[FM_MAXIN] = {0}, *tv[FM_MAXIN] = {0};
    int64_t n[FM_MAXIN], ys[RLX_MAX_RANK], j, ny;
    int k, yr = 0;
    size_t i;
    memset(&in, 0, sizeof in);
    in.d = data; in.n = size; in.rng = 0x9E3779B97F4A7C15ull;
    for (i = 0; i < size; i++) in.rng = (in.rng ^ data[i]) * 0x100000001B3ull;
    if (!in.rng) in.rng = 1;
    memset(&c, 0, sizeof c);
    c.g = rlx_graph_create(NULL);
    y = fm_build(&c, &in);
    if (y.id == 0 || rlx_graph_status(c.g) != RLX_OK) {   /* rejected attributes: a code and a message */
        if (rlx_graph_status(c.g) == RLX_OK || !rlx_graph_error(c.g)[0]) fm_fail("builder failed silently", "");
        if (getenv("FM_VERBOSE")) printf("rejected: %s\n", rlx_graph_error(c.g));
        fm_rejected++;
        rlx_graph_destroy(c.g);
        return;
    }
    rlx_tensor_info(c.g, y, &yr, ys);
    ny = 1;
    for (k = 0; k < yr; k++) ny *= ys[k];
    {
        double* rv = (double*)malloc(sizeof(double) * (size_t)ny);
        rlx_tensor R;
        for (j = 0; j < ny; j++) rv[j] = fm_val(&in);
        R = rlx_cast(c.g, rlx_constant(c.g, RLX_F64, yr, ys, rv), c.dt);
        free(rv);
        loss = rlx_reduce_sum(c.g, rlx_mul(c.g, y, R), 0, NULL, 0);
    }
    r = rlx_grad(c.g, loss, c.nin, c.in, gr);
    if (r != RLX_OK) fm_fail("rlx_grad of an op with a rule", rlx_graph_error(c.g));
    rlx_output(c.g, "loss", loss);
    for (k = 0; k < c.nin; k++) { char nm[16]; snprintf(nm, sizeof nm, "g%d", k); rlx_output(c.g, nm, gr[k]); }
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    r = rlx_compile(c.g, &cd, &p);
    if (r != RLX_OK) fm_fail("compile of an accepted training graph", rlx_graph_error(c.g));
    for (k = 0; k < c.nin; k++) {
        int rk = 0;
        int64_t sh[RLX_MAX_RANK];
        rlx_tensor_info(c.g, c.in[k], &rk, sh);
        n[k] = 1;
        for (j = 0; j < rk; j++) n[k] *= sh[j];
        xv[k] = (double*)malloc(sizeof(double) * (size_t)n[k]);
        dv[k] = (double*)malloc(sizeof(double) * (size_t)n[k]);
        gv[k] = (double*)malloc(sizeof(double) * (size_t)n[k]);
        tv[k] = (double*)malloc(sizeof(double) * (size_t)n[k]);
        for (j = 0; j < n[k]; j++) {
            xv[k][j] = fm_val(&in); dv[k][j] = fm_val(&in);
            if (c.dt == RLX_F32) xv[k][j] = (float)xv[k][j];
        }
    }
    {
        double h = c.dt == RLX_F64 ? 1e-5 : 1e-3, lp, lm, fd, dd = 0, scale = 0, tol;
        fm_loss(p, &c, xv, n);
        for (k = 0; k < c.nin; k++) {
            char nm[16];
            snprintf(nm, sizeof nm, "g%d", k);
            if (c.dt == RLX_F64) rlx_get_output(p, nm, RLX_F64, gv[k], sizeof(double) * (size_t)n[k]);
            else {
                float* f = (float*)malloc(sizeof(float) * (size_t)n[k]);
                rlx_get_output(p, nm, RLX_F32, f, sizeof(float) * (size_t)n[k]);
                for (j = 0; j < n[k]; j++) gv[k][j] = f[j];
                free(f);
            }
            for (j = 0; j < n[k]; j++) { dd += gv[k][j] * dv[k][j]; scale += fabs(gv[k][j] * dv[k][j]); }
        }
        for (k = 0; k < c.nin; k++) for (j = 0; j < n[k]; j++) tv[k][j] = xv[k][j] + h * dv[k][j];
        lp = fm_loss(p, &c, tv, n);
        for (k = 0; k < c.nin; k++) for (j = 0; j < n[k]; j++) tv[k][j] = xv[k][j] - h * dv[k][j];
        lm = fm_loss(p, &c, tv, n);
        fd = (lp - lm) / (2 * h);
        tol = c.dt == RLX_F64 ? 1e-6 * (1 + scale) : 2e-2 * (1 + scale);
        if (!(fabs(fd - dd) <= tol)) {
            char msg[200];
            snprintf(msg, sizeof msg, "sum(grad · d) = %.12g, central difference %.12g (tolerance %.3g)", dd, fd, tol);
            fm_fail("a gradient disagrees with the forward program", msg);
        }
        fm_checked++;
    }
    rlx_program_destroy(p);
    rlx_graph_destroy(c.g);
    for (k = 0; k < c.nin; k++) { free(xv[k]); free(dv[k]); free(gv[k]); free(tv[k]); }
}

#if defined(RLX_FUZZ_STANDALONE)
int main(int argc, char** argv) {
    int i;
    for (i = 1; i < argc; i++) {
        FILE* f = fopen(argv[i], "rb");
        uint8_t buf[4096];
        size_t n;
        if (!f) { perror(argv[i]); return 1; }
        n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        fm_run(buf, n);
        printf("%s: ok\n", argv[i]);
    }
    printf("%ld checked against central differences, %ld rejected by a builder\n", fm_checked, fm_rejected);
    return 0;
}
#else
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fm_run(data, size);
    return 0;
}
#endif
