/* PyTorch exports through the ONNX loader: a CNN with batch norm, grouped conv and HardSwish, an
   nn.TransformerEncoder, a 2-layer bidirectional LSTM, a bidirectional GRU and a scripted model with a Loop
   (trip count from a dynamic dim) and an If on a value known only at run time (both branches), each exported by
   torch.onnx.export at opsets 13 and 17 (tests/torch_export.py, Debian python3-torch 1.13; the files are in
   tests/data/torch). PyTorch's own outputs are the reference: max |rlx - torch| <= 1e-4 * max |torch|.

   Usage: test_onnx_torch [cpu|vulkan|cuda]...   (default: the CPU, and Vulkan where a Vulkan device exists)
   Environment: RLX_TORCH_DATA (default tests/data/torch). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

static unsigned char* tt_read(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    unsigned char* buf = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = (unsigned char*)malloc((size_t)n + 1);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
        if (buf) { buf[n] = 0; *size = (size_t)n; }
    }
    fclose(f);
    return buf;
}

static void tt_case(const char* root, const char* name, const rlx_device* devs, int ndev) {
    char path[1024], err[512] = "";
    size_t nin = 0, nout = 0, nsh = 0;
    float *x = NULL, *ref = NULL, *got = NULL;
    char* shapes = NULL;
    rlx_onnx_model* m = NULL;
    rlx_onnx_load_desc ld;
    rlx_onnx_dim dims[RLX_MAX_RANK];
    rlx_onnx_graph_desc gd;
    int d, nd = 0;
    snprintf(path, sizeof path, "%s/%s/input.bin", root, name);
    x = (float*)tt_read(path, &nin);
    snprintf(path, sizeof path, "%s/%s/output.bin", root, name);
    ref = (float*)tt_read(path, &nout);
    snprintf(path, sizeof path, "%s/%s/shapes.txt", root, name);
    shapes = (char*)tt_read(path, &nsh);
    if (!x || !ref || !shapes || nin % 4 || nout % 4) { TH_CHECK(0, "%s: test data missing in %s/%s", name, root, name); goto done; }
    nin /= 4;
    nout /= 4;
    snprintf(path, sizeof path, "%s/%s/model.onnx", root, name);
    memset(&ld, 0, sizeof ld);
    ld.error = err;
    ld.error_cap = sizeof err;
    if (rlx_onnx_load_file(path, &ld, &m) != RLX_OK) { TH_CHECK(0, "%s: load: %s", name, err); goto done; }
    got = (float*)malloc(nout * sizeof(float));
    {   /* x's dims from shapes.txt bind its dynamic dims (the control-flow models' "T") */
        const char* c = shapes;
        char* e;
        while (nd < RLX_MAX_RANK && *c && *c != '\n') {
            long v = strtol(c, &e, 10);
            if (e == c) break;
            dims[nd].name = NULL; dims[nd].input = "x"; dims[nd].axis = nd; dims[nd].value = v;
            nd++;
            c = e;
        }
        memset(&gd, 0, sizeof gd);
        gd.dims = dims; gd.num_dims = nd;
    }
    for (d = 0; d < ndev; d++) {
        rlx_graph* g = NULL;
        rlx_store* s = NULL;
        rlx_program* p = NULL;
        rlx_store_desc sd;
        rlx_compile_desc cd;
        double maxref = 0, maxd = 0;
        size_t i, worst = 0;
        memset(&sd, 0, sizeof sd);
        sd.device = devs[d];
        memset(&cd, 0, sizeof cd);
        cd.device = devs[d];
        if (rlx_onnx_graph(m, &gd, &g) != RLX_OK) { TH_CHECK(0, "%s on %s: import: %s", name, rlx_device_name(devs[d]), rlx_onnx_error(m)); continue; }
        if (rlx_onnx_store(m, &sd, &s) != RLX_OK) { TH_CHECK(0, "%s on %s: store: %s", name, rlx_device_name(devs[d]), rlx_onnx_error(m)); rlx_graph_destroy(g); continue; }
        cd.store = s;
        if (rlx_compile(g, &cd, &p) != RLX_OK) {
            TH_CHECK(0, "%s on %s: compile: %s", name, rlx_device_name(devs[d]), rlx_graph_error(g));
        } else if (rlx_set_input_f32(p, "x", x, nin) != RLX_OK || rlx_run(p) != RLX_OK || rlx_get_output_f32(p, "y", got, nout) != RLX_OK) {
            TH_CHECK(0, "%s on %s: run: %s", name, rlx_device_name(devs[d]), rlx_program_error(p));
        } else {
            for (i = 0; i < nout; i++) {
                double e = fabs((double)got[i] - ref[i]);
                if (fabs(ref[i]) > maxref) maxref = fabs(ref[i]);
                if (!(e <= maxd)) { maxd = e; worst = i; }
            }
            TH_CHECK(maxref > 0.01, "%s: PyTorch's output is near zero (max %g): nothing to compare", name, maxref);
            TH_CHECK(maxd <= 1e-4 * maxref, "%s on %s: max |rlx - torch| = %.3g at %zu (rlx %g, torch %g), limit %.3g",
                     name, rlx_device_name(devs[d]), maxd, worst, got[worst], ref[worst], 1e-4 * maxref);
            printf("%-28s %-7s max |rlx - torch| = %.2e (%.2e of max |torch|)\n", name, rlx_device_name(devs[d]), maxd,
                   maxref > 0 ? maxd / maxref : 0.0);
        }
        rlx_program_destroy(p);
        rlx_store_destroy(s);
        rlx_graph_destroy(g);
    }
done:
    rlx_onnx_destroy(m);
    free(got);
    free(shapes);
    free(ref);
    free(x);
}

int main(int argc, char** argv) {
    static const char* names[] = { "cnn_bn_opset13", "cnn_bn_opset17", "transformer_encoder_opset13",
                                   "transformer_encoder_opset17", "lstm_opset13", "lstm_opset17", "gru_opset13",
                                   "gru_opset17", "control_then_opset13", "control_then_opset17",
                                   "control_else_opset13", "control_else_opset17" };
    const char* root = getenv("RLX_TORCH_DATA");
    rlx_device devs[4];
    rlx_device_info di[8];
    int ndev = 0, i, k, nd = rlx_devices(di, 8);
    if (!root) root = "tests/data/torch";
    for (i = 1; i < argc && ndev < 4; i++) {
        rlx_device want = !strcmp(argv[i], "cpu") ? RLX_DEVICE_CPU : !strcmp(argv[i], "vulkan") ? RLX_DEVICE_VULKAN
                        : !strcmp(argv[i], "cuda") ? RLX_DEVICE_CUDA : RLX_DEVICE_AUTO;
        int ok = want == RLX_DEVICE_CPU;
        if (want == RLX_DEVICE_AUTO) { fprintf(stderr, "usage: %s [cpu|vulkan|cuda]...\n", argv[0]); return 2; }
        for (k = 0; k < nd && k < 8; k++) if (di[k].device == want && di[k].available) ok = 1;
        if (ok) devs[ndev++] = want;
        else th_skip("%s: no such device here", argv[i]);
    }
    if (argc <= 1) {
        devs[ndev++] = RLX_DEVICE_CPU;
        for (k = 0; k < nd && k < 8; k++) if (di[k].device == RLX_DEVICE_VULKAN && di[k].available) { devs[ndev++] = RLX_DEVICE_VULKAN; break; }
    }
    for (i = 0; i < (int)(sizeof names / sizeof names[0]); i++) tt_case(root, names[i], devs, ndev);
    return th_summary("onnx_torch");
}
