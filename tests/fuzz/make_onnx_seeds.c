/* Writes the seed corpus of the ONNX fuzzer (tests/fuzz/onnx_corpus): a few small models that reach the
   loader's and the importer's main paths (initializers, dynamic dims, shape folding, conv/pool attributes,
   softmax, layout ops, a Loop with an If in its body). Usage: make_onnx_seeds DIR (make fuzz-onnx-seeds). */
#include <stdio.h>
#include "../onnx_pbw.h"

static void save(const char* dir, const char* name, pbw* m) {
    char path[512];
    FILE* f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    fwrite(m->p, 1, m->n, f);
    fclose(f);
    free(m->p);
    memset(m, 0, sizeof *m);
}

/* out = If(cond): then_op(x), else_op(x), each branch one node with a float output of shape [d[0]] */
static void w_if(pbw* g, const char* cond, const char* out, const char* then_op, const char* else_op, const char* x,
                 const int64_t* d) {
    pbw br[2] = {{0}, {0}}, a = {0};
    int k;
    for (k = 0; k < 2; k++) {
        const char* o = k ? "else_out" : "then_out";
        wn(&br[k], k ? else_op : then_op, x, o, NULL);
        w_vi(&br[k], 12, o, 1, 1, d, NULL);
        a_graph(&a, k ? "else_branch" : "then_branch", &br[k]);
    }
    wn(g, "If", cond, out, &a);
}

int main(int argc, char** argv) {
    const char* dir = argc > 1 ? argv[1] : "tests/fuzz/onnx_corpus";
    pbw g = {0}, m = {0}, at = {0};
    float w[6] = {0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f}, b2[2] = {0.1f, -0.2f}, k9[18];
    int64_t xd[2] = {-1, 3}, wd[2] = {3, 2}, bd[1] = {2}, yd[2] = {-1, 2};
    int64_t x4[4] = {1, 2, 5, 5}, kd[4] = {1, 2, 3, 3}, pads[4] = {1, 1, 1, 1}, ks[2] = {2, 2}, one = 1, zero = 0, m1 = -1;
    int64_t perm[3] = {0, 2, 1}, x3[3] = {2, 3, 4};
    int i;
    for (i = 0; i < 18; i++) k9[i] = (float)(i % 5) * 0.25f - 0.5f;
    /* linear: Relu(MatMul(X, W) + B), N dynamic */
    w_node(&g, "MatMul", "mm", "X", "W", "XW", NULL);
    w_node(&g, "Add", "add", "XW", "B", "Z", NULL);
    w_node(&g, "Relu", "relu", "Z", NULL, "Y", NULL);
    w_tensor(&g, 5, "W", 1, 2, wd, w, sizeof w);
    w_tensor(&g, 5, "B", 1, 1, bd, b2, sizeof b2);
    w_vi(&g, 11, "X", 1, 2, xd, "N");
    w_vi(&g, 12, "Y", 1, 2, yd, "N");
    w_model(&m, &g, 13);
    save(dir, "linear.onnx", &m);
    /* conv with pads, max pool, global average pool */
    a_ints(&at, "pads", 4, pads);
    {
        pbw n = {0};
        pb_str(&n, 1, "X"); pb_str(&n, 1, "K"); pb_str(&n, 2, "C"); pb_str(&n, 3, "conv"); pb_str(&n, 4, "Conv");
        pb_put(&n, at.p, at.n);
        pb_msg(&g, 1, &n);
        free(at.p); memset(&at, 0, sizeof at);
        pb_str(&n, 1, "C"); pb_str(&n, 2, "P"); pb_str(&n, 3, "pool"); pb_str(&n, 4, "MaxPool");
        a_ints(&n, "kernel_shape", 2, ks);
        pb_msg(&g, 1, &n);
    }
    w_node(&g, "GlobalAveragePool", "gap", "P", NULL, "Y", NULL);
    x4[1] = 2; kd[0] = 1;
    w_tensor(&g, 5, "K", 1, 4, kd, k9, sizeof k9);
    w_vi(&g, 11, "X", 1, 4, x4, NULL);
    { int64_t yd4[4] = {1, 1, 1, 1}; w_vi(&g, 12, "Y", 1, 4, yd4, NULL); }
    w_model(&m, &g, 13);
    save(dir, "conv_pool.onnx", &m);
    /* shape folding: Reshape(X, Concat(Unsqueeze(Gather(Shape(X), 0)), [-1])), then Transpose and Softmax */
    w_node(&g, "Shape", "shape", "X", NULL, "S", NULL);
    w_node(&g, "Gather", "g0", "S", "I0", "D0", NULL);
    w_node(&g, "Unsqueeze", "u0", "D0", "AX", "D0u", NULL);
    {
        pbw n = {0};
        pb_str(&n, 1, "D0u"); pb_str(&n, 1, "M1"); pb_str(&n, 2, "T"); pb_str(&n, 3, "cat"); pb_str(&n, 4, "Concat");
        a_int(&n, "axis", 0);
        pb_msg(&g, 1, &n);
    }
    w_node(&g, "Reshape", "rs", "X", "T", "R", NULL);
    {
        pbw n = {0};
        pb_str(&n, 1, "X"); pb_str(&n, 2, "Tr"); pb_str(&n, 3, "tr"); pb_str(&n, 4, "Transpose");
        a_ints(&n, "perm", 3, perm);
        pb_msg(&g, 1, &n);
    }
    {
        pbw n = {0};
        pb_str(&n, 1, "Tr"); pb_str(&n, 2, "Y2"); pb_str(&n, 3, "sm"); pb_str(&n, 4, "Softmax");
        a_int(&n, "axis", -1);
        pb_msg(&g, 1, &n);
    }
    w_tensor(&g, 5, "I0", 7, 0, NULL, &zero, 8);
    w_tensor(&g, 5, "AX", 7, 1, &one, &zero, 8);
    w_tensor(&g, 5, "M1", 7, 1, &one, &m1, 8);
    w_vi(&g, 11, "X", 1, 3, x3, NULL);
    { int64_t r2[2] = {2, 12}, t3[3] = {2, 4, 3}; w_vi(&g, 12, "R", 1, 2, r2, NULL); w_vi(&g, 12, "Y2", 1, 3, t3, NULL); }
    w_model(&m, &g, 13);
    save(dir, "shape_fold.onnx", &m);
    /* control flow: Loop (M = 3) whose body holds an If on i > 1, then an If on a value known at run time */
    {
        pbw body = {0}, a = {0};
        int64_t vd[1] = {2}, three = 3;
        float fzero = 0.0f;
        w_vi(&body, 11, "i", 7, 0, NULL, NULL);
        w_vi(&body, 11, "c", 9, 0, NULL, NULL);
        w_vi(&body, 11, "v", 1, 1, vd, NULL);
        wn(&body, "Greater", "i,I0", "big", NULL);
        w_if(&body, "big", "v2", "Neg", "Abs", "v", vd);
        wn(&body, "Identity", "c", "c2", NULL);
        w_vi(&body, 12, "c2", 9, 0, NULL, NULL);
        wn(&body, "Identity", "v2", "sv", NULL);
        w_vi(&body, 12, "v2", 1, 1, vd, NULL);
        w_vi(&body, 12, "sv", 1, 1, vd, NULL);
        a_graph(&a, "body", &body);
        wn(&g, "Loop", "M,,X", "L,Ls", &a);
        a_int(&a, "keepdims", 0);
        wn(&g, "ReduceSum", "L", "s", &a);
        wn(&g, "Greater", "s,F0", "cond", NULL);
        w_if(&g, "cond", "Y", "Neg", "Identity", "L", vd);
        w_tensor(&g, 5, "M", 7, 0, NULL, &three, 8);
        w_tensor(&g, 5, "I0", 7, 0, NULL, &one, 8);
        w_tensor(&g, 5, "F0", 1, 0, NULL, &fzero, 4);
        w_vi(&g, 11, "X", 1, 1, vd, NULL);
        w_vi(&g, 12, "Y", 1, 1, vd, NULL);
        w_model(&m, &g, 13);
        save(dir, "control_flow.onnx", &m);
    }
    /* external data (rejected without a folder) */
    {
        pbw t = {0}, e = {0};
        pb_int(&t, 1, 4); pb_int(&t, 2, 1); pb_str(&t, 8, "W"); pb_int(&t, 14, 1);
        pb_str(&e, 1, "location"); pb_str(&e, 2, "w.bin"); pb_msg(&t, 13, &e);
        pb_str(&e, 1, "offset"); pb_str(&e, 2, "0"); pb_msg(&t, 13, &e);
        pb_msg(&g, 5, &t);
        w_node(&g, "Identity", "id", "W", NULL, "Y", NULL);
        w_vi(&g, 12, "Y", 1, 1, &one, NULL);
        w_model(&m, &g, 13);
        save(dir, "external.onnx", &m);
    }
    return 0;
}
