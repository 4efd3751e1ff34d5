/* The GPU kernels (kernels/cuda/common.cuh, embedded in rlx_kernels_ptx.h) repeat a few numbers of rlx.h: the
   dtype, op and activation codes and the layout of the launch argument struct. This test reads the embedded
   common.cuh and checks every such number against rlx.h, so the two cannot drift apart silently. */
#define RLX_IMPLEMENTATION
#include "../rlx.h"
#include "harness.h"
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>

#if defined(RLX_NO_CUDA) && defined(RLX_NO_HIP)
int main(void) {
    th_skip("built without GPU backends");
    return th_summary("kernel-abi");
}
#else

typedef struct named { const char* name; long long value; } named;

static const named ops[] = {
#define X(n, s) {"RLX_OP_" #n, RLX_OP_##n},
    RLX_OP_LIST(X)
#undef X
};
static const named dts[] = {
    {"RLX_DT_F32", RLX_F32}, {"RLX_DT_F16", RLX_F16}, {"RLX_DT_BF16", RLX_BF16}, {"RLX_DT_F64", RLX_F64},
    {"RLX_DT_I8", RLX_I8}, {"RLX_DT_I16", RLX_I16}, {"RLX_DT_I32", RLX_I32}, {"RLX_DT_I64", RLX_I64},
    {"RLX_DT_U8", RLX_U8}, {"RLX_DT_U32", RLX_U32}, {"RLX_DT_BOOL", RLX_BOOL}};
static const named acts[] = {{"RLX_ACT_NONE", RLX_ACT_NONE}, {"RLX_ACT_RELU", RLX_ACT_RELU},
                             {"RLX_ACT_GELU", RLX_ACT_GELU}, {"RLX_ACT_GELU_TANH", RLX_ACT_GELU_TANH},
                             {"RLX_ACT_SILU", RLX_ACT_SILU}};
/* the host mirror of the launch struct, field by field */
static const named fields[] = {
    {"out", offsetof(rlx__kargs, out)}, {"in", offsetof(rlx__kargs, in)}, {"n", offsetof(rlx__kargs, n)},
    {"op", offsetof(rlx__kargs, op)}, {"dt_out", offsetof(rlx__kargs, dt_out)},
    {"dt_in", offsetof(rlx__kargs, dt_in)}, {"rank", offsetof(rlx__kargs, rank)},
    {"pad_", offsetof(rlx__kargs, pad_)}, {"dims", offsetof(rlx__kargs, dims)}, {"st", offsetof(rlx__kargs, st)},
    {"ia", offsetof(rlx__kargs, ia)}, {"fa", offsetof(rlx__kargs, fa)}};

static int lookup(const named* t, int n, const char* name, long long* v) {
    int i;
    for (i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0) { *v = t[i].value; return 1; }
    return 0;
}

/* copy of src without comments */
static char* strip_comments(const char* src) {
    size_t n = strlen(src), i = 0, o = 0;
    char* d = (char*)malloc(n + 1);
    if (!d) return NULL;
    while (i < n) {
        if (src[i] == '/' && src[i + 1] == '*') {
            const char* e = strstr(src + i + 2, "*/");
            i = e ? (size_t)(e - src) + 2 : n;
        } else if (src[i] == '/' && src[i + 1] == '/') {
            while (i < n && src[i] != '\n') i++;
        } else {
            d[o++] = src[i++];
        }
    }
    d[o] = 0;
    return d;
}

static int checked_dt, checked_op, checked_act;

/* every `enum { A = 1, B, ... };` block: compare each RLX_DT_/RLX_OP_/RLX_ACT_ name with rlx.h */
static void check_enums(const char* s) {
    const char* p = s;
    while ((p = strstr(p, "enum")) != NULL) {
        const char *open = strchr(p, '{'), *close = open ? strchr(open, '}') : NULL;
        long long next = 0;
        const char* q;
        if (!open || !close) break;
        q = open + 1;
        while (q < close) {
            char name[64];
            size_t k = 0;
            long long v, want;
            while (q < close && !isalnum((unsigned char)*q) && *q != '_') q++;
            while (q < close && (isalnum((unsigned char)*q) || *q == '_') && k + 1 < sizeof name) name[k++] = *q++;
            name[k] = 0;
            if (!k) break;
            while (q < close && isspace((unsigned char)*q)) q++;
            v = next;
            if (*q == '=') v = strtoll(q + 1, NULL, 0);
            next = v + 1;
            while (q < close && *q != ',') q++;
            if (q < close) q++;
            if (strncmp(name, "RLX_DT_", 7) == 0) {
                TH_CHECK(lookup(dts, (int)(sizeof dts / sizeof dts[0]), name, &want) && want == v,
                         "common.cuh %s = %lld does not match rlx.h", name, v);
                checked_dt++;
            } else if (strncmp(name, "RLX_OP_", 7) == 0) {
                TH_CHECK(lookup(ops, (int)(sizeof ops / sizeof ops[0]), name, &want) && want == v,
                         "common.cuh %s = %lld does not match rlx.h", name, v);
                checked_op++;
            } else if (strncmp(name, "RLX_ACT_", 8) == 0) {
                TH_CHECK(lookup(acts, (int)(sizeof acts / sizeof acts[0]), name, &want) && want == v,
                         "common.cuh %s = %lld does not match rlx.h", name, v);
                checked_act++;
            }
        }
        p = close;
    }
}

/* the fields of `struct rlx_kargs { ... }`, laid out with natural alignment, against offsetof(rlx__kargs) */
static void check_struct(const char* s) {
    const char* open = strstr(s, "struct rlx_kargs");
    const char *q, *close;
    size_t off = 0;
    int f = 0;
    TH_CHECK(open != NULL, "common.cuh has no struct rlx_kargs");
    if (!open) return;
    open = strchr(open, '{');
    close = open ? strchr(open, '}') : NULL;
    if (!open || !close) return;
    for (q = open + 1; q < close;) {
        const char* semi = strchr(q, ';');
        char decl[128], name[64];
        size_t len, esz, count = 1, k = 0;
        const char *br, *ne;
        long long want = 0;
        if (!semi || semi > close) break;
        len = (size_t)(semi - q) < sizeof decl - 1 ? (size_t)(semi - q) : sizeof decl - 1;
        memcpy(decl, q, len);
        decl[len] = 0;
        q = semi + 1;
        esz = strstr(decl, "long long") || strstr(decl, "double") ? 8 : strstr(decl, "int") ? 4 : 0;
        TH_CHECK(esz != 0, "rlx_kargs field '%s' has an unknown type", decl);
        if (!esz) return;
        for (br = strchr(decl, '['); br; br = strchr(br + 1, '[')) count *= (size_t)strtoul(br + 1, NULL, 10);
        ne = strchr(decl, '[') ? strchr(decl, '[') : decl + strlen(decl);
        while (ne > decl && isspace((unsigned char)ne[-1])) ne--;
        br = ne;
        while (br > decl && (isalnum((unsigned char)br[-1]) || br[-1] == '_')) br--;
        while (br < ne && k + 1 < sizeof name) name[k++] = *br++;
        name[k] = 0;
        off = (off + esz - 1) / esz * esz;
        TH_CHECK(f < (int)(sizeof fields / sizeof fields[0]) && strcmp(fields[f].name, name) == 0,
                 "rlx_kargs field %d is '%s' on the device, '%s' on the host", f, name,
                 f < (int)(sizeof fields / sizeof fields[0]) ? fields[f].name : "(none)");
        TH_CHECK(lookup(fields, (int)(sizeof fields / sizeof fields[0]), name, &want) && (size_t)want == off,
                 "rlx_kargs.%s: device offset %zu, host offset %lld", name, off, want);
        off += esz * count;
        f++;
    }
    TH_CHECK(f == (int)(sizeof fields / sizeof fields[0]), "rlx_kargs has %d fields on the device, %d on the host", f,
             (int)(sizeof fields / sizeof fields[0]));
    TH_CHECK((off + 7) / 8 * 8 == sizeof(rlx__kargs), "rlx_kargs is %zu bytes on the device, %zu on the host", off,
             sizeof(rlx__kargs));
}

int main(void) {
    const char* src = NULL;
    char* s;
    int i;
    for (i = 0; i < rlx__hip_source_count; i++)
        if (strcmp(rlx__hip_sources[i].name, "common.cuh") == 0) src = (const char*)rlx__hip_sources[i].data;
    TH_CHECK(src != NULL, "rlx_kernels_ptx.h embeds no common.cuh (regenerate it with make kernels)");
    if (!src || !(s = strip_comments(src))) return th_summary("kernel-abi");
    check_enums(s);
    check_struct(s);
    TH_CHECK(checked_dt == 11, "checked %d dtype codes, expected all 11", checked_dt);
    TH_CHECK(checked_op >= 30, "checked only %d op codes", checked_op);
    TH_CHECK(checked_act == 5, "checked %d activation codes, expected 5", checked_act);
    printf("kernel-abi: %d dtype, %d op, %d activation codes and %d struct fields compared\n", checked_dt, checked_op,
           checked_act, (int)(sizeof fields / sizeof fields[0]));
    free(s);
    return th_summary("kernel-abi");
}
#endif
