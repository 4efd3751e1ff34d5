/* Vulkan backend: clean degradation and the backend's own error paths.

   1. In a child process whose RLX_VULKAN_LOADER names a library that does not exist: rlx_devices reports Vulkan
      unavailable with the reason, RLX_DEVICE_VULKAN + RLX_COMPILE_NO_FALLBACK fails with
      RLX_ERROR_DEVICE_UNAVAILABLE and a message that names the loader, RLX_DEVICE_VULKAN without the flag falls
      back to the CPU and says why, RLX_DEVICE_AUTO picks another device; both compute the right answer.
   2. In this process (the real loader), when a Vulkan device is usable: a small MLP matches the CPU, repeated
      runs and fresh inputs give fresh answers, a clone runs independently, a device index that does not exist
      fails cleanly, and an arena larger than one allocation of the device may hold fails with
      RLX_ERROR_OUT_OF_MEMORY instead of crashing, and a 1600x72x1552 matmul with bias and gelu (the large-tile
      kernel on a GPU) matches the CPU backend. Without a usable device these are skipped with the reason.
   The op-by-op comparison against the CPU is tests/test_backends.c. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#  define _POSIX_C_SOURCE 200809L   /* setenv, fork, pipe */
#endif
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#include <stdlib.h>
#if !defined(_WIN32)
#  include <sys/wait.h>
#  include <unistd.h>
#endif

#define NB 3
#define NI 16
#define NH 24
#define NO 5

static float w1[NI * NH], b1[NH], w2[NH * NO], xin[NB * NI];

/* y = softmax(relu(x w1 + b1) w2) */
static rlx_graph* build_mlp(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t sx[2] = {NB, NI}, s1[2] = {NI, NH}, sb[1] = {NH}, s2[2] = {NH, NO};
    rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, sx);
    rlx_tensor a = rlx_param(g, "w1", RLX_F32, 2, s1);
    rlx_tensor b = rlx_param(g, "b1", RLX_F32, 1, sb);
    rlx_tensor c = rlx_param(g, "w2", RLX_F32, 2, s2);
    rlx_tensor h = rlx_relu(g, rlx_add(g, rlx_matmul(g, x, a), b));
    rlx_output(g, "y", rlx_softmax(g, rlx_matmul(g, h, c), 1));
    return g;
}

static void reference(const float* x, double* y) {
    int i, j, k;
    for (i = 0; i < NB; i++) {
        double h[NH], z[NO], m = -1e300, s = 0;
        for (j = 0; j < NH; j++) {
            double acc = b1[j];
            for (k = 0; k < NI; k++) acc += (double)x[i * NI + k] * w1[k * NH + j];
            h[j] = acc > 0 ? acc : 0;
        }
        for (j = 0; j < NO; j++) {
            double acc = 0;
            for (k = 0; k < NH; k++) acc += h[k] * w2[k * NO + j];
            z[j] = acc;
            if (acc > m) m = acc;
        }
        for (j = 0; j < NO; j++) s += exp(z[j] - m);
        for (j = 0; j < NO; j++) y[i * NO + j] = exp(z[j] - m) / s;
    }
}

static rlx_result set_all(rlx_program* p, const float* x) {
    rlx_result r = rlx_set_param_f32(p, "w1", w1, NI * NH);
    if (r == RLX_OK) r = rlx_set_param_f32(p, "b1", b1, NH);
    if (r == RLX_OK) r = rlx_set_param_f32(p, "w2", w2, NH * NO);
    if (r == RLX_OK) r = rlx_set_input_f32(p, "x", x, NB * NI);
    return r;
}

/* run p on x and compare with the double reference; returns 1 when it matched */
static int run_and_check(rlx_program* p, const float* x, const char* what) {
    float y[NB * NO];
    double want[NB * NO];
    int i, bad = 0;
    rlx_result r = set_all(p, x);
    if (r == RLX_OK) r = rlx_run(p);
    if (r == RLX_OK) r = rlx_get_output_f32(p, "y", y, NB * NO);
    TH_CHECK(r == RLX_OK, "%s: run failed: %d %s", what, (int)r, rlx_program_error(p));
    if (r != RLX_OK) return 0;
    reference(x, want);
    for (i = 0; i < NB * NO; i++)
        if (!th_close(y[i], want[i], 1e-5, 1e-4)) bad++;
    TH_CHECK(bad == 0, "%s: %d of %d outputs differ from the reference (y[0] %g want %g)", what, bad, NB * NO, y[0], want[0]);
    return bad == 0;
}

static void fill(void) {
    int i;
    th_seed(77);
    for (i = 0; i < NI * NH; i++) w1[i] = (float)th_uniform(-0.5, 0.5);
    for (i = 0; i < NH; i++) b1[i] = (float)th_uniform(-0.2, 0.2);
    for (i = 0; i < NH * NO; i++) w2[i] = (float)th_uniform(-0.5, 0.5);
    for (i = 0; i < NB * NI; i++) xin[i] = (float)th_uniform(-1, 1);
}

static const rlx_device_info* find_vulkan(rlx_device_info* info, int n) {
    int i;
    for (i = 0; i < n; i++)
        if (info[i].device == RLX_DEVICE_VULKAN) return &info[i];
    return NULL;
}

#if !defined(_WIN32)
/* Part 1, in a process whose loader library does not exist. */
static void missing_loader_checks(void) {
    rlx_device_info info[RLX_DEVICE_COUNT];
    int n = rlx_devices(info, RLX_DEVICE_COUNT);
    const rlx_device_info* vk = find_vulkan(info, n);
    rlx_compile_desc d;
    rlx_program* p = NULL;
    rlx_graph* g;
    rlx_result r;
    TH_CHECK(vk != NULL, "rlx_devices does not list vulkan");
    if (!vk) return;
    TH_CHECK(!vk->available, "vulkan is reported available although its loader is missing");
    TH_CHECK(vk->reason[0] != 0, "no reason given for the missing loader");
#if defined(RLX__HAS_VULKAN)
    TH_CHECK(strstr(vk->reason, "no-such-vulkan-loader") != NULL, "the reason does not name the loader: %s", vk->reason);
#endif
    printf("missing loader: vulkan unavailable: %s\n", vk->reason);

    g = build_mlp();
    memset(&d, 0, sizeof d);
    d.device = RLX_DEVICE_VULKAN;
    d.flags = RLX_COMPILE_NO_FALLBACK;
    r = rlx_compile(g, &d, &p);
    TH_CHECK(r == RLX_ERROR_DEVICE_UNAVAILABLE && p == NULL, "vulkan + NO_FALLBACK: %d (want DEVICE_UNAVAILABLE)", (int)r);
#if defined(RLX__HAS_VULKAN)
    TH_CHECK(strstr(rlx_graph_error(g), "no-such-vulkan-loader") != NULL, "the compile error does not name the loader: %s",
             rlx_graph_error(g));
#endif
    rlx_program_destroy(p);
    p = NULL;

    d.flags = 0;   /* falls back to the CPU and says why */
    r = rlx_compile(g, &d, &p);
    TH_CHECK(r == RLX_OK && p != NULL, "vulkan with fallback: %d %s", (int)r, rlx_graph_error(g));
    if (p) {
        TH_CHECK(rlx_program_device(p) == RLX_DEVICE_CPU, "fallback ran on %s", rlx_device_name(rlx_program_device(p)));
        TH_CHECK(strstr(rlx_program_device_reason(p), "vulkan") != NULL, "fallback reason: %s", rlx_program_device_reason(p));
        run_and_check(p, xin, "fallback");
        rlx_program_destroy(p);
        p = NULL;
    }
    d.device = RLX_DEVICE_AUTO;
    r = rlx_compile(g, &d, &p);
    TH_CHECK(r == RLX_OK && p != NULL, "auto: %d %s", (int)r, rlx_graph_error(g));
    if (p) {
        /* any device but Vulkan (a CUDA or HIP GPU may be present) */
        TH_CHECK(rlx_program_device(p) != RLX_DEVICE_VULKAN, "auto ran on vulkan although its loader is missing");
        run_and_check(p, xin, "auto");
        rlx_program_destroy(p);
    }
    rlx_graph_destroy(g);
}
#endif

static void run_missing_loader_child(void) {
#if defined(_WIN32)
    th_skip("missing-loader checks need fork() (POSIX)");
#else
    int fd[2], status = 0;
    pid_t pid;
    if (pipe(fd) != 0) { TH_CHECK(0, "pipe failed"); return; }
    fflush(stdout);
    pid = fork();
    if (pid < 0) { TH_CHECK(0, "fork failed"); return; }
    if (pid == 0) {
        char buf[64];
        int len;
        close(fd[0]);
        setenv("RLX_VULKAN_LOADER", "/nonexistent/no-such-vulkan-loader.so.1", 1);
        missing_loader_checks();
        fflush(stdout);
        len = snprintf(buf, sizeof buf, "%d %d %d", th_passed, th_failed, th_skipped);
        if (write(fd[1], buf, (size_t)len) != len) _exit(3);
        close(fd[1]);
        _exit(0);
    }
    close(fd[1]);
    {
        char buf[64];
        ssize_t got = read(fd[0], buf, sizeof buf - 1);
        int pa = 0, fa = 0, sk = 0;
        close(fd[0]);
        waitpid(pid, &status, 0);
        TH_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0 && got > 0, "the missing-loader child crashed or failed (status %d)", status);
        if (got > 0) {
            buf[got] = 0;
            if (sscanf(buf, "%d %d %d", &pa, &fa, &sk) == 3) { th_passed += pa; th_failed += fa; th_skipped += sk; }
        }
    }
#endif
}

/* Part 2: the real device. */
static void device_checks(void) {
    rlx_device_info info[RLX_DEVICE_COUNT];
    int n = rlx_devices(info, RLX_DEVICE_COUNT), i;
    const rlx_device_info* vk = find_vulkan(info, n);
    rlx_compile_desc d;
    rlx_program *p = NULL, *q = NULL;
    rlx_graph* g;
    rlx_result r;
    float x2[NB * NI];
    if (!vk || !vk->available) {
        th_skip("vulkan device checks: %s", vk ? vk->reason : "not listed");
        return;
    }
    printf("vulkan: %s (%s)\n", vk->name, vk->reason);
    g = build_mlp();
    memset(&d, 0, sizeof d);
    d.device = RLX_DEVICE_VULKAN;
    d.flags = RLX_COMPILE_NO_FALLBACK;
    r = rlx_compile(g, &d, &p);
    TH_CHECK(r == RLX_OK, "compile on vulkan: %d %s", (int)r, rlx_graph_error(g));
    if (p) {
        TH_CHECK(rlx_program_device(p) == RLX_DEVICE_VULKAN, "program runs on %s", rlx_device_name(rlx_program_device(p)));
        run_and_check(p, xin, "vulkan run 1");
        run_and_check(p, xin, "vulkan run 2 (replay)");
        for (i = 0; i < NB * NI; i++) x2[i] = -xin[i] * 0.5f + 0.125f;
        run_and_check(p, x2, "vulkan fresh input");
        r = rlx_program_clone(p, 0, &q);
        TH_CHECK(r == RLX_OK, "clone: %d %s", (int)r, rlx_program_error(p));
        if (q) {
            run_and_check(q, xin, "clone");
            run_and_check(p, x2, "original after clone");
            rlx_program_destroy(q);
        }
        rlx_program_destroy(p);
        p = NULL;
    }
    if (strstr(vk->reason, "CPU implementation")) {   /* lavapipe and the like: AUTO keeps the CPU backend */
        rlx_compile_desc da;
        memset(&da, 0, sizeof da);
        r = rlx_compile(g, &da, &p);
        TH_CHECK(r == RLX_OK && p && rlx_program_device(p) != RLX_DEVICE_VULKAN, "auto picked the CPU implementation %s",
                 vk->name);
        TH_CHECK(p && strstr(rlx_program_device_reason(p), "CPU implementation") != NULL, "auto does not say why: %s",
                 p ? rlx_program_device_reason(p) : "");
        rlx_program_destroy(p);
        p = NULL;
    }
    d.device_index = 99;   /* no such device */
    r = rlx_compile(g, &d, &p);
    TH_CHECK(r == RLX_ERROR_DEVICE_UNAVAILABLE && !p, "device_index 99: %d (want DEVICE_UNAVAILABLE)", (int)r);
    TH_CHECK(strstr(rlx_graph_error(g), "99") != NULL, "device_index 99: message does not name it: %s", rlx_graph_error(g));
    rlx_program_destroy(p);
    p = NULL;
    rlx_graph_destroy(g);

#if defined(__SANITIZE_ADDRESS__)
    th_skip("vulkan oversized arena: not under AddressSanitizer (the host mirror of the arena is 6 GiB)");
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
    th_skip("vulkan oversized arena: not under AddressSanitizer (the host mirror of the arena is 6 GiB)");
#  else
#    define RLX_TEST_BIG 1
#  endif
#else
#  define RLX_TEST_BIG 1
#endif
#if defined(RLX_TEST_BIG)
    {   /* a 6 GiB intermediate: more than maxMemoryAllocationSize on every device rlx runs on here */
        int64_t s[1] = {(int64_t)3 << 29};
        rlx_graph* gb = rlx_graph_create(NULL);
        rlx_tensor x = rlx_input(gb, "x", RLX_F32, 1, s);
        rlx_output(gb, "y", rlx_exp(gb, rlx_exp(gb, x)));
        d.device_index = 0;
        r = rlx_compile(gb, &d, &p);
        TH_CHECK(r == RLX_ERROR_OUT_OF_MEMORY && !p, "6 GiB arena: %d (want OUT_OF_MEMORY): %s", (int)r, rlx_graph_error(gb));
        printf("oversized arena: %s\n", rlx_graph_error(gb));
        rlx_program_destroy(p);
        rlx_graph_destroy(gb);
    }
#endif
}

/* gelu(a b + bias) of a size where a GPU picks its large-tile matmul kernel (128x128 tiles: at least 144 of
   them), against the CPU backend; random data, every output compared. */
static void big_matmul_check(void) {
    enum { M = 1600, K = 72, N = 1552 };
    int64_t sa[2] = {M, K}, sb[2] = {K, N}, sc[1] = {N};
    rlx_graph* g = rlx_graph_create(NULL);
    rlx_program *pv = NULL, *pc = NULL;
    rlx_compile_desc d;
    float *a = (float*)malloc(sizeof(float) * M * K), *b = (float*)malloc(sizeof(float) * K * N);
    float *c = (float*)malloc(sizeof(float) * N), *yv = (float*)malloc(sizeof(float) * M * N);
    float* yc = (float*)malloc(sizeof(float) * M * N);
    size_t i, bad = 0;
    rlx_result r;
    rlx_tensor x = rlx_input(g, "a", RLX_F32, 2, sa), w = rlx_param(g, "b", RLX_F32, 2, sb);
    rlx_output(g, "y", rlx_gelu(g, rlx_add(g, rlx_matmul(g, x, w), rlx_param(g, "c", RLX_F32, 1, sc))));
    rlx_output(g, "z", rlx_matmul(g, rlx_neg(g, x), w));
    if (!a || !b || !c || !yv || !yc) { TH_CHECK(0, "out of memory"); goto done; }
    th_seed(99);
    for (i = 0; i < (size_t)M * K; i++) a[i] = (float)th_uniform(-1, 1);
    for (i = 0; i < (size_t)K * N; i++) b[i] = (float)th_uniform(-1, 1);
    for (i = 0; i < (size_t)N; i++) c[i] = (float)th_uniform(-0.5, 0.5);
    memset(&d, 0, sizeof d);
    d.device = RLX_DEVICE_VULKAN;
    d.flags = RLX_COMPILE_NO_FALLBACK;
    r = rlx_compile(g, &d, &pv);
    TH_CHECK(r == RLX_OK, "big matmul on vulkan: %d %s", (int)r, rlx_graph_error(g));
    d.device = RLX_DEVICE_CPU;
    r = rlx_compile(g, &d, &pc);
    TH_CHECK(r == RLX_OK, "big matmul on the cpu: %d %s", (int)r, rlx_graph_error(g));
    if (!pv || !pc) goto done;
    {
        int k;
        const char* outs[2] = {"y", "z"};
        for (k = 0; k < 2; k++) {
            rlx_program* pp[2];
            float* dst[2];
            int j;
            pp[0] = pv; pp[1] = pc; dst[0] = yv; dst[1] = yc;
            for (j = 0; j < 2; j++) {
                r = rlx_set_param_f32(pp[j], "b", b, (size_t)K * N);
                if (r == RLX_OK) r = rlx_set_param_f32(pp[j], "c", c, N);
                if (r == RLX_OK) r = rlx_set_input_f32(pp[j], "a", a, (size_t)M * K);
                if (r == RLX_OK) r = rlx_run(pp[j]);
                if (r == RLX_OK) r = rlx_get_output_f32(pp[j], outs[k], dst[j], (size_t)M * N);
                TH_CHECK(r == RLX_OK, "big matmul run %d: %s", j, rlx_program_error(pp[j]));
            }
            for (i = 0, bad = 0; i < (size_t)M * N; i++)
                if (!th_close(yv[i], yc[i], 1e-5, 1e-4)) bad++;
            TH_CHECK(bad == 0, "big matmul output %s: %zu of %d differ from the cpu (first: %g vs %g)", outs[k], bad,
                     M * N, yv[0], yc[0]);
        }
    }
done:
    rlx_program_destroy(pv);
    rlx_program_destroy(pc);
    rlx_graph_destroy(g);
    free(a); free(b); free(c); free(yv); free(yc);
}

int main(void) {
    fill();
    run_missing_loader_child();
    device_checks();
    {
        rlx_device_info info[RLX_DEVICE_COUNT];
        const rlx_device_info* vk = find_vulkan(info, rlx_devices(info, RLX_DEVICE_COUNT));
        if (vk && vk->available) big_matmul_check();
        else th_skip("vulkan large matmul: %s", vk ? vk->reason : "not listed");
    }
    return th_summary("vulkan");
}
