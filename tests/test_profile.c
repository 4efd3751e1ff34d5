/* Profiling tests (rlx_program_profile, _json, _table, _enable, RLX_COMPILE_PROFILE).

   The host clock is replaced (RLX_PROFILE_CLOCK) by a fake one that counts its calls and returns
   1000 + 0.25·k² at call k, so on the CPU every start and duration is known exactly from the call count: the
   expected values are computed here, and "off costs nothing" is checked as "the clock is never called".
   - off: rlx_program_profile says RLX_ERROR_NOT_SET ("not enabled"), json/table give "", no clock call;
   - on (flag or enable call): one entry per executed step (views are not steps, a fused op is one), step and
     node agree with rlx_program_buffer (the step is the node's first; a state_write is a view of its state), names are "op node", starts/durations equal the fake clock's, totals
     add up over runs, outputs are bitwise those of an unprofiled program, clones profile too, bad arguments
     are rejected with a message;
   - JSON: a strict parser written here (it must also reject a set of malformed documents) reads the trace:
     traceEvents with one "ph":"X" event per step carrying name, ph, ts, dur, pid, tid; names with quotes,
     backslashes and control characters round-trip;
   - table: the slowest steps first, `top` rows, percentages that add up to 100;
   - Vulkan (lavapipe here), CUDA and HIP when available (skipped otherwise): device timestamps give one
     finite, non-negative, contiguous entry per step, with no host clock call; a device without timestamps
     must say "not supported" (counted as a skip);
   - the example transformer's graph (examples/transformer_model.h) profiled, its JSON parsed. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#  define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long fake_calls;
static double fake_at(long k) { return 1000.0 + 0.25 * (double)k * (double)k; }
static double fake_clock(void) { fake_calls++; return fake_at(fake_calls); }
#define RLX_PROFILE_CLOCK() fake_clock()

#define RLX_IMPLEMENTATION
#include "../rlx.h"
#include "harness.h"
#include "../examples/transformer_model.h"

/* ---- a strict JSON parser (RFC 8259) into a small tree -------------------------------------------------- */

enum { J_NULL = 1, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };
typedef struct jnode {
    int type;
    double num;
    char* str;        /* decoded string (J_STR) */
    char* key;        /* member name when the parent is an object */
    int child, next;  /* first child, next sibling (-1: none) */
} jnode;
typedef struct jparser { const char* s; size_t i, n; jnode* nodes; int count, cap; int depth; } jparser;

static void j_ws(jparser* p) {
    while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r')) p->i++;
}
static int j_new(jparser* p, int type) {
    if (p->count == p->cap) {
        int nc = p->cap ? p->cap * 2 : 256;
        jnode* nn = (jnode*)realloc(p->nodes, sizeof(jnode) * (size_t)nc);
        if (!nn) return -1;
        p->nodes = nn;
        p->cap = nc;
    }
    memset(&p->nodes[p->count], 0, sizeof(jnode));
    p->nodes[p->count].type = type;
    p->nodes[p->count].child = p->nodes[p->count].next = -1;
    return p->count++;
}
static int j_hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
/* Parses a string at p->i (at the quote) into a malloc'ed buffer; NULL when malformed. */
static char* j_string(jparser* p) {
    size_t cap = 16, len = 0;
    char* out;
    if (p->i >= p->n || p->s[p->i] != '"') return NULL;
    p->i++;
    out = (char*)malloc(cap);
    if (!out) return NULL;
    for (;;) {
        unsigned char c;
        unsigned cp = 0;
        if (p->i >= p->n) { free(out); return NULL; }
        c = (unsigned char)p->s[p->i++];
        if (c == '"') break;
        if (c < 0x20) { free(out); return NULL; }   /* raw control characters are not allowed */
        if (c == '\\') {
            char e;
            if (p->i >= p->n) { free(out); return NULL; }
            e = p->s[p->i++];
            switch (e) {
            case '"': case '\\': case '/': c = (unsigned char)e; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u': {
                int k;
                for (k = 0; k < 4; k++) {
                    int h = p->i < p->n ? j_hex(p->s[p->i]) : -1;
                    if (h < 0) { free(out); return NULL; }
                    cp = cp * 16 + (unsigned)h;
                    p->i++;
                }
                if (cp >= 0x80) { free(out); return NULL; }   /* rlx only escapes control characters */
                c = (unsigned char)cp;
                break;
            }
            default: free(out); return NULL;
            }
        }
        if (len + 2 > cap) {
            char* nb = (char*)realloc(out, cap * 2);
            if (!nb) { free(out); return NULL; }
            out = nb;
            cap *= 2;
        }
        out[len++] = (char)c;
    }
    out[len] = 0;
    return out;
}
static int j_value(jparser* p);
static int j_number(jparser* p) {
    size_t st = p->i;
    int id;
    char tmp[64];
    if (p->i < p->n && p->s[p->i] == '-') p->i++;
    if (p->i >= p->n) return -1;
    if (p->s[p->i] == '0') p->i++;
    else if (p->s[p->i] >= '1' && p->s[p->i] <= '9') { while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++; }
    else return -1;
    if (p->i < p->n && p->s[p->i] == '.') {
        size_t d = ++p->i;
        while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
        if (p->i == d) return -1;
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        size_t d;
        p->i++;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) p->i++;
        d = p->i;
        while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
        if (p->i == d) return -1;
    }
    if (p->i - st >= sizeof tmp) return -1;
    memcpy(tmp, p->s + st, p->i - st);
    tmp[p->i - st] = 0;
    id = j_new(p, J_NUM);
    if (id >= 0) p->nodes[id].num = strtod(tmp, NULL);
    return id;
}
static int j_lit(jparser* p, const char* w, int type) {
    size_t l = strlen(w);
    if (p->n - p->i < l || memcmp(p->s + p->i, w, l) != 0) return -1;
    p->i += l;
    return j_new(p, type);
}
static int j_container(jparser* p, int obj) {
    int id = j_new(p, obj ? J_OBJ : J_ARR), last = -1;
    if (id < 0 || ++p->depth > 64) return -1;
    p->i++;   /* [ or { */
    j_ws(p);
    if (p->i < p->n && p->s[p->i] == (obj ? '}' : ']')) { p->i++; p->depth--; return id; }
    for (;;) {
        char* key = NULL;
        int v;
        j_ws(p);
        if (obj) {
            key = j_string(p);
            if (!key) return -1;
            j_ws(p);
            if (p->i >= p->n || p->s[p->i] != ':') { free(key); return -1; }
            p->i++;
        }
        v = j_value(p);
        if (v < 0) { free(key); return -1; }
        p->nodes[v].key = key;
        if (last < 0) p->nodes[id].child = v;
        else p->nodes[last].next = v;
        last = v;
        j_ws(p);
        if (p->i >= p->n) return -1;
        if (p->s[p->i] == ',') { p->i++; continue; }
        if (p->s[p->i] == (obj ? '}' : ']')) { p->i++; break; }
        return -1;
    }
    p->depth--;
    return id;
}
static int j_value(jparser* p) {
    j_ws(p);
    if (p->i >= p->n) return -1;
    switch (p->s[p->i]) {
    case '{': return j_container(p, 1);
    case '[': return j_container(p, 0);
    case '"': {
        char* s = j_string(p);
        int id = s ? j_new(p, J_STR) : -1;
        if (id < 0) { free(s); return -1; }
        p->nodes[id].str = s;
        return id;
    }
    case 't': return j_lit(p, "true", J_BOOL);
    case 'f': return j_lit(p, "false", J_BOOL);
    case 'n': return j_lit(p, "null", J_NULL);
    default: return j_number(p);
    }
}
static void j_free(jparser* p) {
    int i;
    for (i = 0; i < p->count; i++) { free(p->nodes[i].str); free(p->nodes[i].key); }
    free(p->nodes);
    memset(p, 0, sizeof *p);
}
/* Parses text (n bytes); the root's index, or -1 if it is not exactly one JSON value. */
static int j_parse(jparser* p, const char* text, size_t n) {
    int root;
    memset(p, 0, sizeof *p);
    p->s = text;
    p->n = n;
    root = j_value(p);
    j_ws(p);
    return root >= 0 && p->i == p->n ? root : -1;
}
static int j_ok(const char* text) {
    jparser p;
    int ok = j_parse(&p, text, strlen(text)) >= 0;
    j_free(&p);
    return ok;
}
static int j_get(const jparser* p, int obj, const char* key) {
    int c;
    if (obj < 0 || p->nodes[obj].type != J_OBJ) return -1;
    for (c = p->nodes[obj].child; c >= 0; c = p->nodes[c].next)
        if (strcmp(p->nodes[c].key, key) == 0) return c;
    return -1;
}

static void test_json_parser(void) {
    static const char* const good[] = {"{}", "[]", "{\"a\":[1,-2.5e3,0.125,true,false,null,\"x\\n\\u0001\"]}", " [ 0 ] ",
                                       "\"\\\\\\\"\""};
    static const char* const bad[] = {"", "{", "}", "{\"a\":1,}", "[1,]", "[01]", "[1.]", "[.5]", "['a']", "{a:1}",
                                      "[\"a\nb\"]", "[\"\\x\"]", "[\"\\u12\"]", "[1 2]", "{\"a\" 1}", "[tru]",
                                      "[1]]", "{\"a\":1}{}", "[-]", "[1e]", "[nan]", "[\"abc]"};
    size_t i;
    for (i = 0; i < sizeof good / sizeof good[0]; i++) TH_CHECK(j_ok(good[i]), "parser rejects valid JSON %s", good[i]);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) TH_CHECK(!j_ok(bad[i]), "parser accepts malformed JSON '%s'", bad[i]);
}

/* Checks a trace: X events = the program's entries (names, ts, dur, keys), ordered by ts. Returns the number
   of X events (-1 when the document does not parse). */
static int check_trace(const char* json, const rlx_profile_entry* e, int n, const char* what) {
    jparser p;
    int root = j_parse(&p, json, strlen(json)), ev, c, nx = 0, ordered = 1, keys = 1, match = 1;
    double last_ts = -1.0;
    TH_CHECK(root >= 0, "%s: the profile JSON does not parse", what);
    if (root < 0) { j_free(&p); return -1; }
    ev = j_get(&p, root, "traceEvents");
    TH_CHECK(ev >= 0 && p.nodes[ev].type == J_ARR, "%s: no traceEvents array", what);
    if (ev < 0 || p.nodes[ev].type != J_ARR) { j_free(&p); return -1; }
    for (c = p.nodes[ev].child; c >= 0; c = p.nodes[c].next) {
        int name = j_get(&p, c, "name"), ph = j_get(&p, c, "ph"), ts = j_get(&p, c, "ts"), dur = j_get(&p, c, "dur");
        int pid = j_get(&p, c, "pid"), tid = j_get(&p, c, "tid");
        if (ph < 0 || p.nodes[ph].type != J_STR || strcmp(p.nodes[ph].str, "X") != 0) continue;
        if (name < 0 || p.nodes[name].type != J_STR || ts < 0 || p.nodes[ts].type != J_NUM || dur < 0 ||
            p.nodes[dur].type != J_NUM || pid < 0 || p.nodes[pid].type != J_NUM || tid < 0 || p.nodes[tid].type != J_NUM) {
            keys = 0;
            nx++;
            continue;
        }
        if (p.nodes[ts].num < last_ts) ordered = 0;
        last_ts = p.nodes[ts].num;
        if (e && nx < n && (strcmp(p.nodes[name].str, e[nx].name) != 0 || fabs(p.nodes[ts].num - e[nx].start_us) > 0.0006 ||
                            fabs(p.nodes[dur].num - e[nx].dur_us) > 0.0006)) {
            if (match) printf("  event %d: '%s' ts %g dur %g, entry '%s' %g %g\n", nx, p.nodes[name].str, p.nodes[ts].num,
                              p.nodes[dur].num, e[nx].name, e[nx].start_us, e[nx].dur_us);
            match = 0;
        }
        nx++;
    }
    TH_CHECK(keys, "%s: an X event lacks name/ph/ts/dur/pid/tid", what);
    TH_CHECK(ordered, "%s: the X events are not ordered by ts", what);
    if (e) {
        TH_CHECK(nx == n, "%s: %d X events for %d steps", what, nx, n);
        TH_CHECK(match, "%s: X events differ from the entries (name, ts or dur)", what);
    }
    j_free(&p);
    return nx;
}

/* ---- the CPU graph -------------------------------------------------------------------------------------- */

#define TRICKY_NAME "y\"q\\z\n"   /* an output name that JSON must escape */

/* y = softmax(relu(x·w + b)) (as the output TRICKY_NAME), s = sum(reshape(y)) ("s"). */
static rlx_graph* small_graph(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t xs[2] = {4, 8}, ws[2] = {8, 16}, bs[1] = {16}, rs[1] = {64};
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, xs);
    rlx_tensor w = rlx_param(g, "w", RLX_F32, 2, ws);
    rlx_tensor b = rlx_param(g, "b", RLX_F32, 1, bs);
    rlx_tensor y = rlx_softmax(g, rlx_relu(g, rlx_add(g, rlx_matmul(g, x, w), b)), 1);
    rlx_output(g, TRICKY_NAME, y);
    rlx_output(g, "s", rlx_reduce_sum(g, rlx_reshape(g, y, 1, rs), 0, NULL, 0));
    return g;
}

static float xv[32], wv[128], bv[16];

static rlx_program* compile_small(rlx_device dev, uint32_t flags) {
    rlx_graph* g = small_graph();
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    rlx_result r;
    memset(&cd, 0, sizeof cd);
    cd.device = dev;
    cd.flags = flags;
    cd.num_threads = 2;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_OK, "compile on %s: %s", rlx_device_name(dev), rlx_graph_error(g));
    rlx_graph_destroy(g);
    if (r != RLX_OK) return NULL;
    r = rlx_set_param_f32(p, "w", wv, 128);
    if (r == RLX_OK) r = rlx_set_param_f32(p, "b", bv, 16);
    if (r == RLX_OK) r = rlx_set_input_f32(p, "x", xv, 32);
    TH_CHECK(r == RLX_OK, "set: %s", rlx_program_error(p));
    return p;
}

static int run_ok(rlx_program* p) {
    rlx_result r = rlx_run(p);
    TH_CHECK(r == RLX_OK, "run: %s", rlx_program_error(p));
    return r == RLX_OK;
}

/* Profile entries of p (malloc'ed, *n of them) or NULL after a counted failure. */
static rlx_profile_entry* get_entries(rlx_program* p, int* n, const char* what) {
    rlx_profile_entry* e;
    int cnt = -1, again = -1;
    rlx_result r = rlx_program_profile(p, NULL, 0, &cnt);
    *n = 0;
    TH_CHECK(r == RLX_OK && cnt > 0, "%s: profile count: %s (%s)", what, rlx_result_string(r), rlx_program_error(p));
    if (r != RLX_OK || cnt <= 0) return NULL;
    e = (rlx_profile_entry*)calloc((size_t)cnt, sizeof *e);
    if (!e) return NULL;
    r = rlx_program_profile(p, e, cnt, &again);
    TH_CHECK(r == RLX_OK && again == cnt, "%s: profile: %s, count %d then %d", what, rlx_result_string(r), cnt, again);
    *n = cnt;
    return e;
}

/* Step, node, op and name of each entry against the plan (rlx_program_buffer) and the op list. */
static void check_structure(rlx_program* p, const rlx_profile_entry* e, int n, const char* what) {
    rlx_plan_info info;
    int s, ok_step = 1, ok_name = 1, ok_buf = 1;
    rlx_program_plan(p, &info);
    TH_CHECK(n == info.num_steps, "%s: %d entries for %d steps", what, n, info.num_steps);
    for (s = 0; s < n; s++) {
        rlx_buffer_info b;
        size_t ol = strlen(rlx_op_name(e[s].op));
        if (e[s].step != s) ok_step = 0;
        if (strncmp(e[s].name, rlx_op_name(e[s].op), ol) != 0 || e[s].name[ol] != ' ' || !e[s].name[ol + 1]) ok_name = 0;
        if (rlx_program_buffer(p, e[s].node, &b) != RLX_OK || (b.kind == RLX_BUFFER_VIEW ? e[s].op != RLX_OP_STATE_WRITE : b.first_step != s)) {
            if (ok_buf) printf("  %s: step %d (%s) node %d: buffer kind %d first step %d\n", what, s, e[s].name, e[s].node, (int)b.kind, b.first_step);
            ok_buf = 0;
        }
    }
    TH_CHECK(ok_step, "%s: entry steps are not 0..n-1", what);
    TH_CHECK(ok_name, "%s: a name is not \"op node\"", what);
    TH_CHECK(ok_buf, "%s: an entry's node is not the buffer its step produces", what);
}

/* Durations finite, >= 0, starts ordered and contiguous (start[s+1] = start[s] + dur[s]), totals >= dur. */
static void check_times(const rlx_profile_entry* e, int n, int runs, const char* what) {
    int s, ok = 1, contiguous = 1, tot = 1;
    for (s = 0; s < n; s++) {
        if (!(e[s].dur_us >= 0.0) || !isfinite(e[s].dur_us) || !(e[s].start_us >= 0.0) || !isfinite(e[s].start_us)) ok = 0;
        if (s + 1 < n && fabs(e[s + 1].start_us - (e[s].start_us + e[s].dur_us)) > 1e-6 * (1.0 + e[s + 1].start_us))
            contiguous = 0;
        if (e[s].runs != runs || !(e[s].total_us >= e[s].dur_us - 1e-9) || !isfinite(e[s].total_us)) tot = 0;
    }
    TH_CHECK(ok, "%s: a start or duration is negative or not finite", what);
    TH_CHECK(contiguous, "%s: steps are not ordered back to back", what);
    TH_CHECK(tot, "%s: runs != %d or a total below its duration", what, runs);
    TH_CHECK(n > 0 && e[0].start_us == 0.0, "%s: the first step does not start at 0", what);
}

static void test_cpu(void) {
    rlx_program *p, *q, *f, *c;
    rlx_profile_entry *e, one[2], sentinel;
    int n = 0, s, cnt, ok;
    long calls0, k0;
    rlx_result r;
    float y_plain[64], y_prof[64];
    char buf[8192], small[40];
    size_t len;
    static const rlx_op want_ops[] = {RLX_OP_MATMUL, RLX_OP_ADD, RLX_OP_RELU, RLX_OP_SOFTMAX, RLX_OP_SUM};

    /* off: no clock, "not enabled" */
    p = compile_small(RLX_DEVICE_CPU, RLX_COMPILE_NO_OPTIMIZE);
    if (!p) return;
    calls0 = fake_calls;
    run_ok(p);
    run_ok(p);
    TH_CHECK(fake_calls == calls0, "profiling off read the clock %ld times", fake_calls - calls0);
    r = rlx_program_profile(p, NULL, 0, &cnt);
    TH_CHECK(r == RLX_ERROR_NOT_SET && strstr(rlx_program_error(p), "not enabled"), "off: profile gave %s (%s)",
             rlx_result_string(r), rlx_program_error(p));
    strcpy(buf, "junk");
    len = rlx_program_profile_json(p, buf, sizeof buf);
    TH_CHECK(len == 0 && buf[0] == 0, "off: json gave %zu bytes", len);
    strcpy(buf, "junk");
    len = rlx_program_profile_table(p, buf, sizeof buf, 0);
    TH_CHECK(len == 0 && buf[0] == 0, "off: table gave %zu bytes", len);
    rlx_get_output_f32(p, TRICKY_NAME, y_plain, 64);

    /* on, before a run */
    TH_CHECK(rlx_program_profile_enable(p, 1) == RLX_OK, "enable: %s", rlx_program_error(p));
    r = rlx_program_profile(p, NULL, 0, &cnt);
    TH_CHECK(r == RLX_ERROR_NOT_SET && strstr(rlx_program_error(p), "no run"), "on, not run: %s (%s)", rlx_result_string(r),
             rlx_program_error(p));

    /* three profiled runs: every start and duration is the fake clock's */
    k0 = fake_calls;
    for (s = 0; s < 3; s++) run_ok(p);
    e = get_entries(p, &n, "cpu");
    if (!e) { rlx_program_destroy(p); return; }
    TH_CHECK(fake_calls - k0 == 3L * (n + 1), "%ld clock calls for 3 runs of %d steps", fake_calls - k0, n);
    check_structure(p, e, n, "cpu");
    check_times(e, n, 3, "cpu");
    TH_CHECK(n == (int)(sizeof want_ops / sizeof want_ops[0]), "cpu: %d steps, expected %d (reshape is a view)", n,
             (int)(sizeof want_ops / sizeof want_ops[0]));
    ok = 1;
    for (s = 0; s < n && s < 5; s++) ok &= e[s].op == want_ops[s];
    TH_CHECK(ok, "cpu: step ops are not matmul, add, relu, softmax, sum");
    ok = 1;
    for (s = 0; s < n; s++) {
        long base = k0 + 2L * (n + 1);   /* the last run's first call is base + 1 */
        double start = fake_at(base + 1 + s) - fake_at(base + 1), dur = fake_at(base + 2 + s) - fake_at(base + 1 + s);
        double total = 0.0;
        int run;
        for (run = 0; run < 3; run++) {
            long b = k0 + (long)run * (n + 1);
            total += fake_at(b + 2 + s) - fake_at(b + 1 + s);
        }
        if (e[s].start_us != start || e[s].dur_us != dur || e[s].total_us != total) {
            printf("  step %d: start %g dur %g total %g, expected %g %g %g\n", s, e[s].start_us, e[s].dur_us, e[s].total_us,
                   start, dur, total);
            ok = 0;
        }
    }
    TH_CHECK(ok, "cpu: starts, durations or totals differ from the clock's");
    TH_CHECK(n >= 4 && strcmp(e[3].name, "softmax " TRICKY_NAME) == 0, "cpu: output step name '%s'", n >= 4 ? e[3].name : "");
    TH_CHECK(strcmp(e[0].shape, "f32[4,16]") == 0 && strcmp(e[n - 1].shape, "f32[]") == 0, "cpu: shapes '%s' '%s'",
             e[0].shape, e[n - 1].shape);
    rlx_get_output_f32(p, TRICKY_NAME, y_prof, 64);
    TH_CHECK(memcmp(y_plain, y_prof, sizeof y_plain) == 0, "profiling changed the output");

    /* JSON and its round trip */
    len = rlx_program_profile_json(p, NULL, 0);
    TH_CHECK(len > 0 && len < sizeof buf, "json length %zu", len);
    TH_CHECK(rlx_program_profile_json(p, buf, sizeof buf) == len && strlen(buf) == len, "json: sized and written lengths differ");
    check_trace(buf, e, n, "cpu json");
    len = rlx_program_profile_json(p, small, sizeof small);
    TH_CHECK(strlen(small) == sizeof small - 1 && len > sizeof small, "json into a small buffer: not truncated like snprintf");
    TH_CHECK(!j_ok(small), "a truncated trace parses as JSON");

    /* table: slowest first (the fake clock makes later steps slower), top rows, percentages add up to 100 */
    len = rlx_program_profile_table(p, buf, sizeof buf, 2);
    TH_CHECK(len > 0 && strstr(buf, "slowest 2 of") != NULL, "table header:\n%s", buf);
    {
        const char* line = strstr(buf, "%\n");
        int rows = 0, first_step = -1;
        double pct = 0.0;
        line = line ? line + 2 : buf;
        while (line && *line == ' ' && sscanf(line, "%d", &s) == 1) {
            if (rows == 0) first_step = s;
            rows++;
            line = strchr(line, '\n');
            if (line) line++;
        }
        TH_CHECK(rows == 2 && first_step == n - 1, "table top 2: %d rows, first step %d (expected %d)", rows, first_step, n - 1);
        len = rlx_program_profile_table(p, buf, sizeof buf, 0);
        line = strstr(buf, "%\n");
        line = line ? line + 2 : buf;
        rows = 0;
        while (line && *line == ' ' && sscanf(line, "%d", &s) == 1) {
            const char* end = strchr(line, '\n');
            const char* pc = end ? end : line + strlen(line);
            const char* sp;
            while (pc > line && *pc != '%') pc--;   /* the last '%' of the row (node labels may hold one) */
            sp = pc;
            while (sp > line && sp[-1] != ' ') sp--;
            pct += atof(sp);
            rows++;
            line = strchr(line, '\n');
            if (line) line++;
        }
        TH_CHECK(rows == n && fabs(pct - 100.0) < 0.05 * n, "table: %d rows (%d steps), %% sum %.2f", rows, n, pct);
        TH_CHECK(strstr(buf, "by op:") && strstr(buf, "softmax"), "table lacks the per-op summary:\n%s", buf);
    }

    /* bad arguments */
    TH_CHECK(rlx_program_profile(NULL, one, 2, &cnt) == RLX_ERROR_INVALID_ARGUMENT, "NULL program accepted");
    TH_CHECK(rlx_program_profile(p, one, 2, NULL) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_program_error(p), "count"),
             "NULL count: %s", rlx_program_error(p));
    TH_CHECK(rlx_program_profile(p, one, -1, &cnt) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_program_error(p), "cap"),
             "negative cap: %s", rlx_program_error(p));
    TH_CHECK(rlx_program_profile(p, NULL, 3, &cnt) == RLX_ERROR_INVALID_ARGUMENT && strstr(rlx_program_error(p), "out"),
             "NULL out: %s", rlx_program_error(p));
    TH_CHECK(rlx_program_profile_enable(NULL, 1) == RLX_ERROR_INVALID_ARGUMENT, "enable(NULL) accepted");
    TH_CHECK(rlx_program_profile_json(NULL, buf, sizeof buf) == 0 && buf[0] == 0, "json(NULL)");
    TH_CHECK(rlx_program_profile_table(p, buf, sizeof buf, -1) == 0 && strstr(rlx_program_error(p), "top"), "negative top: %s",
             rlx_program_error(p));
    memset(&sentinel, 0x5A, sizeof sentinel);
    one[1] = sentinel;
    r = rlx_program_profile(p, one, 1, &cnt);
    TH_CHECK(r == RLX_OK && cnt == n && one[0].step == 0 && memcmp(&one[1], &sentinel, sizeof sentinel) == 0,
             "cap 1: wrote past cap or wrong count %d", cnt);

    /* a clone profiles too; turning off stops the clock and the API */
    r = rlx_program_clone(p, 1, &c);
    TH_CHECK(r == RLX_OK, "clone: %s", rlx_program_error(p));
    if (r == RLX_OK) {
        rlx_profile_entry* ce;
        int cn = 0;
        run_ok(c);
        ce = get_entries(c, &cn, "clone");
        if (ce) TH_CHECK(cn == n && ce[0].runs == 1, "clone: %d entries, %d runs", cn, ce[0].runs);
        free(ce);
        rlx_program_destroy(c);
    }
    TH_CHECK(rlx_program_profile_enable(p, 0) == RLX_OK, "disable");
    calls0 = fake_calls;
    run_ok(p);
    TH_CHECK(fake_calls == calls0, "disabled profiling read the clock");
    TH_CHECK(rlx_program_profile(p, NULL, 0, &cnt) == RLX_ERROR_NOT_SET, "disabled: profile still answers");
    TH_CHECK(rlx_program_profile_enable(p, 1) == RLX_OK && run_ok(p) && rlx_program_profile(p, one, 1, &cnt) == RLX_OK &&
             one[0].runs == 1, "re-enabled: the sums were not cleared (runs %d)", one[0].runs);
    free(e);
    rlx_program_destroy(p);

    /* the compile flag; fused: one entry per fused step */
    q = compile_small(RLX_DEVICE_CPU, RLX_COMPILE_PROFILE);
    f = q;
    if (q && run_ok(q)) {
        e = get_entries(q, &n, "cpu fused");
        if (e) {
            check_structure(q, e, n, "cpu fused");
            check_times(e, n, 1, "cpu fused");
            ok = 0;
            for (s = 0; s < n; s++) ok |= e[s].op == RLX_OP_LINEAR;
            TH_CHECK(ok && n < 5, "cpu fused: no linear step among %d", n);
            len = rlx_program_profile_json(q, buf, sizeof buf);
            check_trace(buf, e, n, "cpu fused json");
        }
        free(e);
    }
    rlx_program_destroy(f);
}

/* ---- GPUs ----------------------------------------------------------------------------------------------- */

static void test_gpu(rlx_device dev) {
    rlx_device_info info[8];
    int nd = rlx_devices(info, 8), k, avail = 0, n = 0, cnt;
    const char* why = "not listed";
    rlx_program *p, *cpu;
    rlx_profile_entry* e;
    rlx_result r;
    long calls0;
    float yg[64], yc[64];
    char* buf;
    size_t len;
    for (k = 0; k < nd && k < 8; k++)
        if (info[k].device == dev) { avail = info[k].available; why = info[k].reason; }
    if (!avail) { th_skip("%s profiling: device unavailable: %s", rlx_device_name(dev), why); return; }
    p = compile_small(dev, RLX_COMPILE_PROFILE | RLX_COMPILE_NO_FALLBACK);
    if (!p) return;
    calls0 = fake_calls;
    run_ok(p);
    run_ok(p);
    TH_CHECK(fake_calls == calls0, "%s: profiling read the host clock", rlx_device_name(dev));
    r = rlx_program_profile(p, NULL, 0, &cnt);
    if (r == RLX_ERROR_UNSUPPORTED) {
        TH_CHECK(strstr(rlx_program_error(p), "timestamp") || strstr(rlx_program_error(p), "event"),
                 "%s: unsupported without saying why: %s", rlx_device_name(dev), rlx_program_error(p));
        th_skip("%s profiling: %s", rlx_device_name(dev), rlx_program_error(p));
        rlx_program_destroy(p);
        return;
    }
    e = get_entries(p, &n, rlx_device_name(dev));
    if (e) {
        check_structure(p, e, n, rlx_device_name(dev));
        check_times(e, n, 2, rlx_device_name(dev));
        TH_CHECK(n > 0 && e[n - 1].start_us + e[n - 1].dur_us > 0.0, "%s: the run took no time at all (timestamps all equal)",
                 rlx_device_name(dev));
        for (k = 0; k < n; k++)
            printf("  %s step %d: %s %-14s %10.3f us\n", rlx_device_name(dev), k, rlx_op_name(e[k].op), e[k].shape, e[k].dur_us);
        len = rlx_program_profile_json(p, NULL, 0);
        buf = (char*)malloc(len + 1);
        if (buf) {
            rlx_program_profile_json(p, buf, len + 1);
            check_trace(buf, e, n, rlx_device_name(dev));
            free(buf);
        }
    }
    free(e);
    /* results as on the CPU; off then on again (Vulkan: back to the plain recording, then the stamped one) */
    cpu = compile_small(RLX_DEVICE_CPU, 0);
    if (cpu && run_ok(cpu)) {
        int same = 1;
        rlx_get_output_f32(cpu, TRICKY_NAME, yc, 64);
        rlx_get_output_f32(p, TRICKY_NAME, yg, 64);
        for (k = 0; k < 64; k++) same &= th_close(yg[k], yc[k], 1e-5, 1e-4);
        TH_CHECK(same, "%s: profiled output differs from the CPU's", rlx_device_name(dev));
    }
    rlx_program_destroy(cpu);
    TH_CHECK(rlx_program_profile_enable(p, 0) == RLX_OK && run_ok(p) &&
             rlx_program_profile(p, NULL, 0, &cnt) == RLX_ERROR_NOT_SET, "%s: disable", rlx_device_name(dev));
    TH_CHECK(rlx_program_profile_enable(p, 1) == RLX_OK && run_ok(p), "%s: enable again", rlx_device_name(dev));
    e = get_entries(p, &n, rlx_device_name(dev));
    if (e) check_times(e, n, 1, rlx_device_name(dev));
    free(e);
    rlx_program_destroy(p);
}

/* ---- the example transformer ------------------------------------------------------------------------------ */

static void test_transformer(void) {
    tm_config c = tm_config_tiny();
    tm_build b = tm_build_default(6);
    tm_weights w;
    rlx_program* p = NULL;
    char err[512];
    int32_t tokens[6] = {84, 104, 101, 32, 113, 117};
    rlx_result r;
    rlx_profile_entry* e;
    int n = 0, s, att = 0;
    size_t len;
    if (!tm_weights_init(&c, 1, &w)) { TH_CHECK(0, "transformer: out of memory"); return; }
    r = tm_compile(&c, &b, 2, RLX_COMPILE_PROFILE, &p, err, sizeof err);
    TH_CHECK(r == RLX_OK, "transformer compile: %s", err);
    if (r == RLX_OK) r = tm_set_params(p, &w);
    if (r == RLX_OK) r = tm_run(p, tokens, 6, 0, 0);
    TH_CHECK(r == RLX_OK, "transformer run: %s", p ? rlx_program_error(p) : err);
    if (r == RLX_OK && (e = get_entries(p, &n, "transformer")) != NULL) {
        char* buf;
        check_structure(p, e, n, "transformer");
        check_times(e, n, 1, "transformer");
        for (s = 0; s < n; s++) att += e[s].op == RLX_OP_ATTENTION;
        TH_CHECK(att == c.n_layers, "transformer: %d attention steps for %d layers", att, c.n_layers);
        len = rlx_program_profile_json(p, NULL, 0);
        buf = (char*)malloc(len + 1);
        if (buf) {
            TH_CHECK(rlx_program_profile_json(p, buf, len + 1) == len, "transformer json length");
            check_trace(buf, e, n, "transformer json");
            free(buf);
        }
        len = rlx_program_profile_table(p, NULL, 0, 10);
        buf = (char*)malloc(len + 1);
        if (buf) {
            rlx_program_profile_table(p, buf, len + 1, 10);
            printf("%s", buf);
            free(buf);
        }
        free(e);
    }
    rlx_program_destroy(p);
    tm_weights_free(&w);
}

int main(void) {
    int i;
    for (i = 0; i < 32; i++) xv[i] = (float)th_uniform(-1.0, 1.0);
    for (i = 0; i < 128; i++) wv[i] = (float)th_uniform(-1.0, 1.0);
    for (i = 0; i < 16; i++) bv[i] = (float)th_uniform(-0.5, 0.5);
    test_json_parser();
    test_cpu();
    test_transformer();
    test_gpu(RLX_DEVICE_VULKAN);
    test_gpu(RLX_DEVICE_CUDA);
    test_gpu(RLX_DEVICE_HIP);
    return th_summary("profile");
}
