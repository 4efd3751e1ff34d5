/* The ONNX backend node tests (Debian libonnx-testdata: data/node/<case>/model.onnx and
   test_data_set_N/{input,output}_K.pb), read through rlx.h's own loader (rlx_onnx_load_file,
   rlx_onnx_read_tensor), imported with rlx_onnx_graph, run on a device and compared with the stored outputs
   at ONNX's tolerance (|got - want| <= 1e-7 + 1e-3·|want|, NaN equals NaN).

   Per case: passed (every data set matches), failed (a supported case that loads, imports and compiles but
   gives a wrong answer, or a model the loader rejects), unsupported (the import or compile says
   RLX_ERROR_UNSUPPORTED or RLX_ERROR_DTYPE: an op, attribute or dtype rlx.h lacks), excluded (strings,
   sequences, optionals, training ops, random generators: outside the scope of the importer). Unsupported and
   excluded cases are counted as skipped in the summary line and listed with their counts, never hidden.
   One line per op (the op of a one-node model; multi-node models, mostly the *_expanded function bodies, are
   grouped under "(expanded)"). A case whose import says an input "must be a constant" (a Reshape target, Resize
   scales, reduction axes fed as graph inputs) is imported again with its inputs fixed to the test values
   through rlx_onnx_graph_desc.constants (the count is printed).

   Usage: test_onnx_node [cpu|vulkan|cuda] [case-substring] [-v]; env RLX_ONNX_DEVICE (cpu, vulkan, cuda) and
   RLX_ONNX_NODE_DIR (default /usr/share/libonnx-testdata/data/node). */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#define MAX_OPS 512
typedef struct op_count { char op[64]; int pass, fail, unsup, excl; } op_count;
static op_count ops[MAX_OPS];
static int nops;
static int verbose;
static int constant_inputs;   /* cases imported with their inputs as constants */

static op_count* op_entry(const char* op) {
    int i;
    for (i = 0; i < nops; i++) if (!strcmp(ops[i].op, op)) return &ops[i];
    if (nops == MAX_OPS) return &ops[MAX_OPS - 1];
    snprintf(ops[nops].op, sizeof ops[nops].op, "%s", op);
    return &ops[nops++];
}

static int read_file(const char* path, unsigned char** data, size_t* size) {
    FILE* f = fopen(path, "rb");
    long n;
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *data = (unsigned char*)malloc(n > 0 ? (size_t)n : 1);
    *size = (size_t)(n > 0 ? n : 0);
    if (n > 0 && fread(*data, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(*data); return 0; }
    fclose(f);
    return 1;
}
static int read_pb(const char* path, rlx_onnx_tensor* t, char* err, size_t cap) {
    unsigned char* d;
    size_t n;
    rlx_onnx_load_desc ld;
    rlx_result rc;
    memset(&ld, 0, sizeof ld);
    ld.error = err; ld.error_cap = cap;
    if (!read_file(path, &d, &n)) return 0;
    rc = rlx_onnx_read_tensor(d, n, &ld, t);
    free(d);
    return rc == RLX_OK;
}
static double elem(const void* data, rlx_dtype dt, int64_t i) {
    switch (dt) {
    case RLX_F32: return ((const float*)data)[i];
    case RLX_F64: return ((const double*)data)[i];
    case RLX_I8: return ((const int8_t*)data)[i];
    case RLX_I16: return ((const int16_t*)data)[i];
    case RLX_I32: return ((const int32_t*)data)[i];
    case RLX_I64: return (double)((const int64_t*)data)[i];
    case RLX_U8: case RLX_BOOL: return ((const uint8_t*)data)[i];
    case RLX_U32: return ((const uint32_t*)data)[i];
    case RLX_F16: { uint16_t h = ((const uint16_t*)data)[i]; int e = (h >> 10) & 31, m = h & 1023; double v;
        if (e == 31) v = m ? NAN : INFINITY; else if (e == 0) v = ldexp(m, -24); else v = ldexp(m + 1024, e - 25);
        return (h & 0x8000) ? -v : v; }
    case RLX_BF16: { uint32_t u = (uint32_t)((const uint16_t*)data)[i] << 16; float f; memcpy(&f, &u, 4); return f; }
    default: return NAN;
    }
}

static int excluded(const char* name, rlx_onnx_model* m) {
    static const char* const ex_ops[] = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Bernoulli",
                                         "Multinomial", "Adagrad", "Adam", "Momentum", "Gradient", "StringNormalizer",
                                         "TfIdfVectorizer", "RegexFullMatch", "StringConcat", "StringSplit", NULL};
    int i, k;
    rlx_onnx_value_info vi;
    if (strstr(name, "sequence") || strstr(name, "optional") || strstr(name, "training") || strstr(name, "bernoulli") ||
        strstr(name, "string") || (strstr(name, "_seq_") && !strstr(name, "_seq_length")) || strstr(name, "loop13_seq") || strstr(name, "if_seq") || strstr(name, "if_opt"))
        return 1;
    for (i = 0; i < rlx_onnx_input_count(m); i++)
        if (rlx_onnx_input(m, i, &vi) == RLX_OK && (vi.onnx_type == 8 || vi.onnx_type == 0)) return 1;
    for (i = 0; i < rlx_onnx_output_count(m); i++)
        if (rlx_onnx_output(m, i, &vi) == RLX_OK && (vi.onnx_type == 8 || vi.onnx_type == 0)) return 1;
    for (i = 0; i < rlx_onnx_node_count(m); i++)
        for (k = 0; ex_ops[k]; k++)
            if (!strcmp(rlx_onnx_node_op(m, i), ex_ops[k])) return 1;
    return 0;
}

enum { R_PASS, R_FAIL, R_UNSUP, R_EXCL };

static int run_set(rlx_onnx_model* m, const char* setdir, rlx_device dev, char* why, size_t cap) {
    int ni = rlx_onnx_input_count(m), no = rlx_onnx_output_count(m), i, rc = R_PASS;
    rlx_onnx_tensor ins[16], want[16];
    rlx_onnx_dim dims[16 * RLX_MAX_RANK];
    int nd = 0, nins = 0, nwant = 0;
    rlx_onnx_graph_desc gd;
    rlx_graph* g = NULL;
    rlx_program* p = NULL;
    rlx_compile_desc cd;
    rlx_result r;
    char path[1200], err[512];
    if (ni > 16 || no > 16) { snprintf(why, cap, "too many inputs"); return R_UNSUP; }
    for (i = 0; i < ni; i++) {
        rlx_onnx_value_info vi;
        int a;
        snprintf(path, sizeof path, "%s/input_%d.pb", setdir, i);
        if (!read_pb(path, &ins[i], err, sizeof err)) { snprintf(why, cap, "input %d: %s", i, err); rc = R_UNSUP; goto done; }
        nins++;
        rlx_onnx_input(m, i, &vi);
        for (a = 0; a < ins[i].rank && nd < 16 * RLX_MAX_RANK; a++) {
            dims[nd].name = NULL; dims[nd].input = vi.name; dims[nd].axis = a; dims[nd].value = ins[i].shape[a] ? ins[i].shape[a] : 1;
            nd++;
        }
    }
    for (i = 0; i < no; i++) {
        snprintf(path, sizeof path, "%s/output_%d.pb", setdir, i);
        if (!read_pb(path, &want[i], err, sizeof err)) { snprintf(why, cap, "output %d: %s", i, err); rc = R_UNSUP; goto done; }
        nwant++;
    }
    memset(&gd, 0, sizeof gd);
    gd.dims = dims; gd.num_dims = nd;
    r = rlx_onnx_graph(m, &gd, &g);
    if (r == RLX_ERROR_UNSUPPORTED && strstr(rlx_onnx_error(m), "must be") && strstr(rlx_onnx_error(m), "constant")) {
        /* an op needs an input's value while importing (a Reshape target, Resize scales, reduction axes fed as
           graph inputs): import again with every input fixed to its test value (rlx_onnx_graph_desc.constants) */
        rlx_onnx_const cs[16];
        int ok = 1;
        for (i = 0; i < ni; i++) {
            rlx_onnx_value_info vi;
            int a;
            rlx_onnx_input(m, i, &vi);
            cs[i].input = vi.name; cs[i].dtype = ins[i].dtype; cs[i].rank = ins[i].rank; cs[i].shape = ins[i].shape;
            cs[i].data = ins[i].data;
            for (a = 0; a < ins[i].rank; a++) if (ins[i].shape[a] < 1) ok = 0;
        }
        if (ok) {
            gd.constants = cs; gd.num_constants = ni;
            r = rlx_onnx_graph(m, &gd, &g);
            constant_inputs++;
        }
    }
    if (r != RLX_OK) {
        snprintf(why, cap, "import: %s", rlx_onnx_error(m));
        rc = (r == RLX_ERROR_UNSUPPORTED || r == RLX_ERROR_DTYPE) ? R_UNSUP : R_FAIL;
        goto done;
    }
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    cd.flags = RLX_COMPILE_NO_FALLBACK;
    cd.num_threads = 1;
    r = rlx_compile(g, &cd, &p);
    if (r != RLX_OK) {
        snprintf(why, cap, "compile: %s", rlx_graph_error(g));
        rc = (r == RLX_ERROR_UNSUPPORTED || r == RLX_ERROR_DTYPE) ? R_UNSUP : R_FAIL;
        goto done;
    }
    if (rlx_program_device(p) != dev) { snprintf(why, cap, "compiled for %s, not %s", rlx_device_name(rlx_program_device(p)), rlx_device_name(dev)); rc = R_FAIL; goto done; }
    for (i = 0; i < ni; i++) {
        rlx_onnx_value_info vi;
        rlx_onnx_input(m, i, &vi);
        r = rlx_set_input(p, vi.name, ins[i].dtype, ins[i].data, ins[i].bytes);
        if (r != RLX_OK && r != RLX_ERROR_NOT_FOUND) { snprintf(why, cap, "set input '%s': %s", vi.name, rlx_program_error(p)); rc = R_FAIL; goto done; }
    }
    if (rlx_run(p) != RLX_OK) { snprintf(why, cap, "run: %s", rlx_program_error(p)); rc = R_FAIL; goto done; }
    for (i = 0; i < no; i++) {
        rlx_onnx_value_info vi;
        double* got;
        int64_t k;
        rlx_onnx_output(m, i, &vi);
        got = (double*)malloc((size_t)(want[i].count ? want[i].count : 1) * sizeof(double));
        if (rlx_get_output(p, vi.name, RLX_F64, got, (size_t)want[i].count * sizeof(double)) != RLX_OK) {
            snprintf(why, cap, "output '%s': %s", vi.name, rlx_program_error(p));
            free(got); rc = R_FAIL; goto done;
        }
        for (k = 0; k < want[i].count; k++) {
            double w = elem(want[i].data, want[i].dtype, k), gv = got[k];
            if (isnan(w) && isnan(gv)) continue;
            if (isinf(w) && gv == w) continue;
            if (!(fabs(gv - w) <= 1e-7 + 1e-3 * fabs(w))) {
                snprintf(why, cap, "output '%s'[%lld]: got %.9g, want %.9g", vi.name, (long long)k, gv, w);
                rc = R_FAIL;
                break;
            }
        }
        free(got);
        if (rc != R_PASS) goto done;
    }
done:
    for (i = 0; i < nins; i++) rlx_onnx_tensor_free(&ins[i]);
    for (i = 0; i < nwant; i++) rlx_onnx_tensor_free(&want[i]);
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    return rc;
}

static int cmp_str(const void* a, const void* b) { return strcmp(*(const char* const*)a, *(const char* const*)b); }

int main(int argc, char** argv) {
    const char* root = getenv("RLX_ONNX_NODE_DIR");
    const char* devs = getenv("RLX_ONNX_DEVICE");
    const char* filter = NULL;
    rlx_device dev = RLX_DEVICE_CPU;
    DIR* d;
    struct dirent* e;
    char** names = NULL;
    int nn = 0, cn = 0, i, tot[4] = {0, 0, 0, 0};
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) verbose = 1;
        else if (!strcmp(argv[i], "cpu") || !strcmp(argv[i], "vulkan") || !strcmp(argv[i], "cuda")) devs = argv[i];
        else filter = argv[i];
    }
    if (!root) root = "/usr/share/libonnx-testdata/data/node";
    if (devs && !strcmp(devs, "vulkan")) dev = RLX_DEVICE_VULKAN;
    if (devs && !strcmp(devs, "cuda")) dev = RLX_DEVICE_CUDA;
    d = opendir(root);
    if (!d) { th_skip("ONNX node tests: %s not found (Debian package libonnx-testdata)", root); return th_summary("onnx_node"); }
    if (!th_device_available(dev)) {
        closedir(d);
        th_skip("ONNX node tests on %s: no such device", rlx_device_name(dev));
        return th_summary(dev == RLX_DEVICE_VULKAN ? "onnx_node_vulkan" : "onnx_node_cuda");
    }
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "test_", 5)) continue;
        if (filter && !strstr(e->d_name, filter)) continue;
        if (nn == cn) { cn = cn ? cn * 2 : 256; names = (char**)realloc(names, (size_t)cn * sizeof(char*)); }
        names[nn++] = strdup(e->d_name);
    }
    closedir(d);
    if (nn) qsort(names, (size_t)nn, sizeof(char*), cmp_str);
    printf("ONNX node tests on %s: %d cases in %s\n", rlx_device_name(dev), nn, root);
    for (i = 0; i < nn; i++) {
        char path[1024], why[700];
        rlx_onnx_model* m = NULL;
        rlx_onnx_load_desc ld;
        char err[512];
        const char* op;
        op_count* oc;
        int res = R_PASS, set;
        memset(&ld, 0, sizeof ld);
        ld.error = err; ld.error_cap = sizeof err;
        why[0] = 0;
        snprintf(path, sizeof path, "%s/%s/model.onnx", root, names[i]);
        if (rlx_onnx_load_file(path, &ld, &m) != RLX_OK) {
            oc = op_entry("(load)");
            res = R_FAIL;
            snprintf(why, sizeof why, "load: %s", err);
        } else {
            op = rlx_onnx_node_count(m) == 1 ? rlx_onnx_node_op(m, 0) : "(expanded)";
            oc = op_entry(op);
            if (excluded(names[i], m)) res = R_EXCL;
            else for (set = 0; res == R_PASS; set++) {
                struct stat st;
                snprintf(path, sizeof path, "%s/%s/test_data_set_%d", root, names[i], set);
                if (stat(path, &st) != 0) { if (set == 0) { res = R_UNSUP; snprintf(why, sizeof why, "no data set"); } break; }
                res = run_set(m, path, dev, why, sizeof why);
            }
        }
        rlx_onnx_destroy(m);
        tot[res]++;
        if (res == R_PASS) { oc->pass++; th_passed++; }
        else if (res == R_FAIL) { oc->fail++; th_failed++; printf("FAIL %s: %s\n", names[i], why); }
        else if (res == R_UNSUP) { oc->unsup++; th_skipped++; if (verbose) printf("unsupported %s: %s\n", names[i], why); }
        else { oc->excl++; th_skipped++; if (verbose) printf("excluded %s\n", names[i]); }
        free(names[i]);
        fflush(stdout);
    }
    free(names);
    printf("%-28s %6s %6s %6s %6s\n", "op", "passed", "failed", "unsup", "excl");
    for (i = 0; i < nops; i++)
        printf("%-28s %6d %6d %6d %6d\n", ops[i].op, ops[i].pass, ops[i].fail, ops[i].unsup, ops[i].excl);
    printf("%d cases were imported with their inputs fixed as constants (rlx_onnx_graph_desc.constants)\n", constant_inputs);
    printf("node cases on %s: %d passed, %d failed, %d unsupported, %d excluded (strings, sequences, optionals, training, random) of %d\n",
           rlx_device_name(dev), tot[R_PASS], tot[R_FAIL], tot[R_UNSUP], tot[R_EXCL], nn);
    return th_summary(dev == RLX_DEVICE_VULKAN ? "onnx_node_vulkan" : dev == RLX_DEVICE_CUDA ? "onnx_node_cuda" : "onnx_node");
}
