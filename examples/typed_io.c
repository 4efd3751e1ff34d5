/* typed_io.c - typed inputs, params and outputs with rlx.h, plus the text and Graphviz dumps.

   The graph is a tiny embedding lookup:
       tokens  i32 [2,3]  (input)        token ids, -1 counts from the end of the table
       emb     f16 [6,4]  (param)        set from f32 values: rlx.h converts them
       scale   f16 [4]    (param)        set as raw f16 bits converted by hand
       vec     = gather(emb, tokens, axis 0) * scale          f16 [2,3,4]
       scores  = sum(cast(vec, f32), axis 2)                  f32 [2,3]   read zero-copy with rlx_output_ptr
       best    = argmax(scores, axis 1)                       i64 [2]     read as int64
       positive = scores > 0                                  bool [2,3]  read as bool bytes
       vec is also an output (f16), read zero-copy as raw half bits.

   Build: cc -O2 -I. examples/typed_io.c -o build/typed_io -lm -lpthread -ldl
   Usage: typed_io [graph.dot]      then: dot -Tpng graph.dot -o graph.png
*/
#define RLX_IMPLEMENTATION
#include "../rlx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { VOCAB = 6, DIM = 4, ROWS = 2, COLS = 3 };

static void graph_check(rlx_graph* g, rlx_result r, const char* what) {
    if (r == RLX_OK) return;
    fprintf(stderr, "error: %s failed: %s (%s)\n", what, rlx_result_string(r), g ? rlx_graph_error(g) : "");
    exit(1);
}

static void program_check(rlx_program* p, rlx_result r, const char* what) {
    if (r == RLX_OK) return;
    fprintf(stderr, "error: %s failed: %s (%s)\n", what, rlx_result_string(r), rlx_program_error(p));
    exit(1);
}

/* IEEE 754 binary32 -> binary16 bits, round to nearest even, overflow to inf, NaN stays NaN. */
static uint16_t f32_to_f16(float f) {
    uint32_t x, sign, exp, mant;
    memcpy(&x, &f, 4);
    sign = (x >> 16) & 0x8000u;
    exp = (x >> 23) & 0xFFu;
    mant = x & 0x7FFFFFu;
    if (exp == 0xFFu) return (uint16_t)(sign | 0x7C00u | (mant ? 0x200u : 0u)); /* inf / NaN */
    {
        int e = (int)exp - 127 + 15;                  /* rebiased exponent */
        if (e >= 31) return (uint16_t)(sign | 0x7C00u); /* overflow */
        if (e <= 0) {                                 /* subnormal half (or zero) */
            uint32_t m, shift, half, r;
            if (e < -10) return (uint16_t)sign;
            m = mant | 0x800000u;                     /* implicit 1 */
            shift = (uint32_t)(14 - e);
            half = 1u << (shift - 1);
            r = m >> shift;
            if ((m & ((1u << shift) - 1u)) > half || ((m & ((1u << shift) - 1u)) == half && (r & 1u))) r++;
            return (uint16_t)(sign | r);
        }
        {
            uint32_t r = ((uint32_t)e << 10) | (mant >> 13);
            uint32_t rest = mant & 0x1FFFu;
            if (rest > 0x1000u || (rest == 0x1000u && (r & 1u))) r++; /* may carry into the exponent: fine */
            return (uint16_t)(sign | r);
        }
    }
}

/* binary16 bits -> float (exact). */
static float f16_to_f32(uint16_t h) {
    int e = (h >> 10) & 0x1F;
    int m = h & 0x3FF;
    float v;
    if (e == 0) v = ldexpf((float)m, -24);
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = ldexpf((float)(m | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

static void print_info(const rlx_graph* g, const char* name, rlx_tensor t) {
    int rank = 0, i;
    int64_t shape[RLX_MAX_RANK];
    rlx_dtype dt = rlx_tensor_info(g, t, &rank, shape);
    printf("  %-8s %-4s [", name, rlx_dtype_name(dt));
    for (i = 0; i < rank; i++) printf("%s%lld", i ? "," : "", (long long)shape[i]);
    printf("]\n");
}

int main(int argc, char** argv) {
    const char* dot_path = argc > 1 ? argv[1] : "graph.dot";
    float emb[VOCAB * DIM], scale_f[DIM] = {1.0f, -0.5f, 2.0f, 0.333333f};
    uint16_t scale_h[DIM];
    int32_t tokens[ROWS * COLS] = {5, 0, 3, 1, -1, 2}; /* -1 is token 5 */
    float expect[ROWS * COLS];
    int64_t best[ROWS];
    uint8_t positive[ROWS * COLS];
    rlx_graph* g;
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    int i, j, d;

    for (i = 0; i < VOCAB; i++)
        for (d = 0; d < DIM; d++) emb[i * DIM + d] = 0.25f * (float)(i - 2) + 0.125f * (float)d;
    for (d = 0; d < DIM; d++) scale_h[d] = f32_to_f16(scale_f[d]);

    g = rlx_graph_create(NULL);
    if (!g) { fprintf(stderr, "error: rlx_graph_create: out of memory\n"); return 1; }
    {
        const int64_t tok_shape[2] = {ROWS, COLS}, emb_shape[2] = {VOCAB, DIM}, scale_shape[1] = {DIM};
        const int sum_axis[1] = {2};
        rlx_tensor t_tok = rlx_input(g, "tokens", RLX_I32, 2, tok_shape);
        rlx_tensor t_emb = rlx_param(g, "emb", RLX_F16, 2, emb_shape);
        rlx_tensor t_scale = rlx_param(g, "scale", RLX_F16, 1, scale_shape);
        rlx_tensor vec = rlx_mul(g, rlx_gather(g, t_emb, t_tok, 0), t_scale);
        rlx_tensor scores = rlx_reduce_sum(g, rlx_cast(g, vec, RLX_F32), 1, sum_axis, 0);
        rlx_tensor t_best = rlx_argmax(g, scores, 1, 0);
        rlx_tensor t_pos = rlx_gt(g, scores, rlx_scalar(g, RLX_F32, 0.0));
        graph_check(g, rlx_output(g, "vec", vec), "rlx_output(vec)");
        graph_check(g, rlx_output(g, "scores", scores), "rlx_output(scores)");
        graph_check(g, rlx_output(g, "best", t_best), "rlx_output(best)");
        graph_check(g, rlx_output(g, "positive", t_pos), "rlx_output(positive)");
        graph_check(g, rlx_graph_status(g), "building the graph");

        printf("tensors:\n");
        print_info(g, "tokens", t_tok);
        print_info(g, "emb", t_emb);
        print_info(g, "scale", t_scale);
        print_info(g, "vec", vec);
        print_info(g, "scores", scores);
        print_info(g, "best", t_best);
        print_info(g, "positive", t_pos);
    }

    /* Text dump, sized snprintf-style: first ask for the length, then fill a buffer of that size + 1. */
    {
        size_t n = rlx_graph_dump(g, NULL, 0);
        char* text = (char*)malloc(n + 1);
        if (!text) { fprintf(stderr, "error: out of memory\n"); return 1; }
        rlx_graph_dump(g, text, n + 1);
        printf("\ngraph (%d nodes):\n%s", rlx_graph_node_count(g), text);
        if (n == 0 || text[n - 1] != '\n') printf("\n");
        free(text);
    }

    /* Graphviz dump to a file. */
    {
        size_t n = rlx_graph_dump_dot(g, NULL, 0);
        char* dot = (char*)malloc(n + 1);
        FILE* f;
        if (!dot) { fprintf(stderr, "error: out of memory\n"); return 1; }
        rlx_graph_dump_dot(g, dot, n + 1);
        f = fopen(dot_path, "wb");
        if (!f || fwrite(dot, 1, n, f) != n || fclose(f) != 0) {
            fprintf(stderr, "error: cannot write %s\n", dot_path);
            free(dot);
            return 1;
        }
        free(dot);
        printf("\nwrote %s (%zu bytes); render it with: dot -Tpng %s -o graph.png\n", dot_path, n, dot_path);
    }

    memset(&cd, 0, sizeof cd);
    graph_check(g, rlx_compile(g, &cd, &p), "rlx_compile");
    rlx_graph_destroy(g);
    printf("\ndevice: %s (%s)\n", rlx_device_name(rlx_program_device(p)), rlx_program_device_reason(p));

    /* emb: our buffer is f32, the param is f16; rlx.h converts (round to nearest even). */
    program_check(p, rlx_set_param(p, "emb", RLX_F32, emb, sizeof emb), "rlx_set_param(emb, f32 -> f16)");
    /* scale: raw f16 bits, no conversion. */
    program_check(p, rlx_set_param_f16(p, "scale", scale_h, DIM), "rlx_set_param_f16(scale)");
    program_check(p, rlx_set_input_i32(p, "tokens", tokens, ROWS * COLS), "rlx_set_input_i32(tokens)");
    program_check(p, rlx_run(p), "rlx_run");

    printf("\nscale as f16 bits:");
    for (d = 0; d < DIM; d++) printf(" 0x%04x (%g)", scale_h[d], (double)f16_to_f32(scale_h[d]));
    printf("\n");

    /* Expected scores, computed here with the same f16 roundings. */
    for (i = 0; i < ROWS * COLS; i++) {
        int tok = tokens[i] < 0 ? tokens[i] + VOCAB : tokens[i];
        float s = 0.0f;
        for (d = 0; d < DIM; d++) {
            float e = f16_to_f32(f32_to_f16(emb[tok * DIM + d]));
            s += f16_to_f32(f32_to_f16(e * f16_to_f32(scale_h[d])));
        }
        expect[i] = s;
    }

    /* Zero-copy reads: pointers into the program's memory, valid until the next run / set / destroy. */
    {
        const void* data = NULL;
        rlx_dtype dt = RLX_DTYPE_INVALID;
        int rank = 0;
        int64_t shape[RLX_MAX_RANK];
        const float* sc;
        const uint16_t* vh;
        double max_err = 0.0;

        program_check(p, rlx_output_ptr(p, "scores", &data, &dt, &rank, shape), "rlx_output_ptr(scores)");
        if (dt != RLX_F32 || rank != 2 || shape[0] != ROWS || shape[1] != COLS) {
            fprintf(stderr, "error: scores has an unexpected dtype/shape (%s, rank %d)\n", rlx_dtype_name(dt), rank);
            return 1;
        }
        sc = (const float*)data;
        printf("\nscores (f32, zero-copy) vs expected:\n");
        for (i = 0; i < ROWS; i++) {
            printf("  tokens [%2d %2d %2d] ->", tokens[i * COLS], tokens[i * COLS + 1], tokens[i * COLS + 2]);
            for (j = 0; j < COLS; j++) {
                double e = fabs((double)sc[i * COLS + j] - (double)expect[i * COLS + j]);
                if (!(e <= max_err)) max_err = e;
                printf(" %8.4f", (double)sc[i * COLS + j]);
            }
            printf("   expected");
            for (j = 0; j < COLS; j++) printf(" %8.4f", (double)expect[i * COLS + j]);
            printf("\n");
        }
        printf("  max error %.3g: %s\n", max_err, max_err <= 1e-3 ? "ok" : "WRONG");
        if (!(max_err <= 1e-3)) return 1;

        program_check(p, rlx_output_ptr(p, "vec", &data, &dt, &rank, shape), "rlx_output_ptr(vec)");
        if (dt != RLX_F16 || rank != 3) {
            fprintf(stderr, "error: vec has an unexpected dtype/shape (%s, rank %d)\n", rlx_dtype_name(dt), rank);
            return 1;
        }
        vh = (const uint16_t*)data;
        printf("vec[0][0] (f16 bits, zero-copy):");
        for (d = 0; d < DIM; d++) printf(" 0x%04x=%g", vh[d], (double)f16_to_f32(vh[d]));
        printf("\n");
    }

    /* argmax output in its own dtype (int64), and the bool output as one byte per element. */
    program_check(p, rlx_get_output_i64(p, "best", best, ROWS), "rlx_get_output_i64(best)");
    program_check(p, rlx_get_output(p, "positive", RLX_BOOL, positive, sizeof positive),
                  "rlx_get_output(positive, bool)");
    printf("\n");
    for (i = 0; i < ROWS; i++) {
        printf("row %d: best column %lld, positive =", i, (long long)best[i]);
        for (j = 0; j < COLS; j++) printf(" %s", positive[i * COLS + j] ? "true" : "false");
        printf("\n");
    }

    rlx_program_destroy(p);
    return 0;
}
