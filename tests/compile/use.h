/* A trivial use of the API shared by the compile-matrix programs: y = relu(x @ w) for a [1,4] x and a [4,3] w,
   checked against values computed here. Returns 0 on success. */
#ifndef RLX_COMPILE_USE_H
#define RLX_COMPILE_USE_H
#include <stdio.h>
#include <string.h>

static int trivial_use(void) {
    int64_t xs[2] = {1, 4}, ws[2] = {4, 3};
    float wv[12] = {1, -2, 3, 4, 5, -6, -7, 8, 9, 10, -11, 12};
    float xv[4] = {1, 2, 3, 4};
    float want[3], yv[3] = {0, 0, 0};
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_tensor x, w;
    int i, k, ok = 1;
    if (!g) return 1;
    x = rlx_input(g, "x", RLX_F32, 2, xs);
    w = rlx_param(g, "w", RLX_F32, 2, ws);
    rlx_output(g, "y", rlx_relu(g, rlx_matmul(g, x, w)));
    memset(&cd, 0, sizeof cd);
    if (rlx_compile(g, &cd, &p) != RLX_OK) {
        printf("compile failed: %s\n", rlx_graph_error(g));
        rlx_graph_destroy(g);
        return 1;
    }
    rlx_graph_destroy(g);
    for (i = 0; i < 3; i++) {
        float s = 0;
        for (k = 0; k < 4; k++) s += xv[k] * wv[k * 3 + i];
        want[i] = s > 0 ? s : 0;
    }
    if (rlx_set_param_f32(p, "w", wv, 12) != RLX_OK || rlx_set_input_f32(p, "x", xv, 4) != RLX_OK ||
        rlx_run(p) != RLX_OK || rlx_get_output_f32(p, "y", yv, 3) != RLX_OK) {
        printf("run failed: %s\n", rlx_program_error(p));
        ok = 0;
    }
    for (i = 0; ok && i < 3; i++)
        if (yv[i] != want[i]) {
            printf("y[%d] = %g, want %g\n", i, (double)yv[i], (double)want[i]);
            ok = 0;
        }
    rlx_program_destroy(p);
    return ok ? 0 : 1;
}
#endif
