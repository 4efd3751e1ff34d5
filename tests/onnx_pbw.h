/* A tiny protobuf writer for ONNX test models (tests/test_onnx.c, tests/fuzz/make_onnx_seeds.c): just enough of
   the wire format to write ModelProto, GraphProto, NodeProto, TensorProto and ValueInfoProto, written here from
   the field numbers of onnx.proto so the tests do not depend on the reader they check. */
#ifndef RLX_TEST_ONNX_PBW_H
#define RLX_TEST_ONNX_PBW_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#  define PBW_UNUSED __attribute__((unused))
#else
#  define PBW_UNUSED
#endif

/* ---- a tiny protobuf writer ---- */
typedef struct pbw { unsigned char* p; size_t n, cap; } pbw;
static PBW_UNUSED void pb_put(pbw* b, const void* d, size_t n) {
    if (b->n + n > b->cap) { b->cap = (b->n + n) * 2 + 64; b->p = (unsigned char*)realloc(b->p, b->cap); }
    if (n) memcpy(b->p + b->n, d, n);   /* an empty message (a rank-0 shape) has no bytes */
    b->n += n;
}
static PBW_UNUSED void pb_varint(pbw* b, uint64_t v) {
    unsigned char c;
    do { c = (unsigned char)(v & 0x7F); v >>= 7; if (v) c |= 0x80; pb_put(b, &c, 1); } while (v);
}
static PBW_UNUSED void pb_tag(pbw* b, unsigned field, unsigned wt) { pb_varint(b, ((uint64_t)field << 3) | wt); }
static PBW_UNUSED void pb_int(pbw* b, unsigned field, int64_t v) { pb_tag(b, field, 0); pb_varint(b, (uint64_t)v); }
static PBW_UNUSED void pb_bytes(pbw* b, unsigned field, const void* d, size_t n) { pb_tag(b, field, 2); pb_varint(b, n); pb_put(b, d, n); }
static PBW_UNUSED void pb_str(pbw* b, unsigned field, const char* s) { pb_bytes(b, field, s, strlen(s)); }
static PBW_UNUSED void pb_msg(pbw* b, unsigned field, pbw* sub) { pb_bytes(b, field, sub->p, sub->n); free(sub->p); memset(sub, 0, sizeof *sub); }
static PBW_UNUSED void pb_float(pbw* b, unsigned field, float f) { pb_tag(b, field, 5); pb_put(b, &f, 4); }

/* AttributeProto (in NodeProto field 5) of type INT, INTS and GRAPH */
static PBW_UNUSED void a_int(pbw* attrs, const char* name, int64_t v) {
    pbw a = {0};
    pb_str(&a, 1, name);
    pb_int(&a, 3, v);
    pb_int(&a, 20, 2);
    pb_msg(attrs, 5, &a);
}
static PBW_UNUSED void a_ints(pbw* attrs, const char* name, int n, const int64_t* v) {
    pbw a = {0};
    int i;
    pb_str(&a, 1, name);
    for (i = 0; i < n; i++) pb_int(&a, 8, v[i]);
    pb_int(&a, 20, 7);
    pb_msg(attrs, 5, &a);
}
static PBW_UNUSED void a_graph(pbw* attrs, const char* name, pbw* graph) {
    pbw a = {0};
    pb_str(&a, 1, name);
    pb_msg(&a, 6, graph);
    pb_int(&a, 20, 5);
    pb_msg(attrs, 5, &a);
}

/* TensorProto with raw_data (f32 = 1, i64 = 7) */
static PBW_UNUSED void w_tensor(pbw* b, unsigned field, const char* name, int dtype, int rank, const int64_t* dims, const void* raw, size_t rawn) {
    pbw t = {0};
    int i;
    for (i = 0; i < rank; i++) pb_int(&t, 1, dims[i]);
    pb_int(&t, 2, dtype);
    if (name) pb_str(&t, 8, name);
    if (raw) pb_bytes(&t, 9, raw, rawn);
    pb_msg(b, field, &t);
}
/* ValueInfoProto; dims < 0 become dim_param dname */
static PBW_UNUSED void w_vi(pbw* g, unsigned field, const char* name, int elem, int rank, const int64_t* dims, const char* dname) {
    pbw vi = {0}, tp = {0}, tt = {0}, sh = {0};
    int i;
    pb_str(&vi, 1, name);
    pb_int(&tt, 1, elem);
    for (i = 0; i < rank; i++) {
        pbw d = {0};
        if (dims[i] >= 0) pb_int(&d, 1, dims[i]); else pb_str(&d, 2, dname);
        pb_msg(&sh, 1, &d);
    }
    pb_msg(&tt, 2, &sh);
    pb_msg(&tp, 1, &tt);
    pb_msg(&vi, 2, &tp);
    pb_msg(g, field, &vi);
}
static PBW_UNUSED void w_node(pbw* g, const char* op, const char* name, const char* in0, const char* in1, const char* out, pbw* attrs) {
    pbw n = {0};
    if (in0) pb_str(&n, 1, in0);
    if (in1) pb_str(&n, 1, in1);
    pb_str(&n, 2, out);
    if (name) pb_str(&n, 3, name);
    pb_str(&n, 4, op);
    if (attrs && attrs->n) pb_put(&n, attrs->p, attrs->n);
    pb_msg(g, 1, &n);
}
/* NodeProto with comma-separated inputs and outputs ("a,,b": an omitted optional input between a and b) */
static PBW_UNUSED void wn(pbw* g, const char* op, const char* ins, const char* outs, pbw* attrs) {
    pbw n = {0};
    char buf[256];
    const char* lists[2];
    int k;
    lists[0] = ins; lists[1] = outs;
    for (k = 0; k < 2; k++) {   /* comma-separated names */
        const char* c = lists[k];
        while (c && *c) {
            const char* e = strchr(c, ',');
            size_t len = e ? (size_t)(e - c) : strlen(c);
            memcpy(buf, c, len);
            buf[len] = 0;
            pb_str(&n, (unsigned)(k + 1), buf);
            c = e ? e + 1 : c + len;
        }
    }
    pb_str(&n, 4, op);
    if (attrs && attrs->n) pb_put(&n, attrs->p, attrs->n);
    if (attrs) { free(attrs->p); memset(attrs, 0, sizeof *attrs); }
    pb_msg(g, 1, &n);
}
static PBW_UNUSED void w_model(pbw* m, pbw* g, int opset) {
    pbw os = {0};
    pb_int(m, 1, 8);
    pb_int(&os, 2, opset);
    pb_msg(m, 8, &os);
    pb_msg(m, 7, g);
}

#endif
