/* test_hip.c - the HIP backend without an AMD GPU: the runtime library, hipRTC and the device probe.

   (a) The HIP runtime library (libamdhip64) must open; where it cannot, everything that needs it is skipped
       with the reason (CI installs it, so there it runs).
   (b) Every kernel module embedded in rlx_kernels_ptx.h compiles through the exact run-time path (hipRTC opened
       at run time, the embedded common.cuh as a named header, the backend's options) for gfx90a, gfx1030 and
       gfx1100: a pass needs an empty compiler log (warnings fail), an ELF code object, and a kernel descriptor
       (NAME.kd) for every `extern "C" __global__` kernel of the source. A target the runtime's compiler does
       not know at all is skipped with the reason (ROCm 5.2's hipRTC predates gfx11). Also: compile errors come
       back as RLX_ERROR_KERNEL_COMPILE with the log, unknown targets as errors instead of aborting, and the
       code-object caches (process and disk).
   (c) With the runtime present but no device, rlx_devices reports HIP unavailable because of hipInit or
       hipGetDeviceCount, and compiling for RLX_DEVICE_HIP with RLX_COMPILE_NO_FALLBACK fails with
       RLX_ERROR_DEVICE_UNAVAILABLE and that reason (without the flag it falls back to the CPU).
   (d) RLX_HIP_LIBRARY naming a missing library makes HIP unavailable with "not found". The library state is
       per process, so this part runs in a child process (this program with --missing-library). */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L /* setenv, fork, clock_gettime under -std=c99 */
#endif
#define RLX_IMPLEMENTATION
#include "../rlx.h"
#include "harness.h"
#include <ctype.h>
#include <time.h>
#if !defined(_WIN32)
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#define MISSING_LIBRARY "librlx-test-missing-hip.so.0"
/* the HIP backend is compiled in (an rlx.h without it, or built with RLX_NO_HIP, skips everything) */
#if !defined(RLX_NO_HIP) && defined(RLX__HIP_SOURCE_COUNT)
#define HAVE_HIP 1
#endif

static TH_MAYBE_UNUSED double now_s(void) {
#if !defined(_WIN32)
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

/* The HIP entry of rlx_devices (0 if it is not listed). */
static int hip_device_info(rlx_device_info* out) {
    rlx_device_info info[RLX_DEVICE_COUNT];
    int n = rlx_devices(info, RLX_DEVICE_COUNT), i;
    for (i = 0; i < n && i < RLX_DEVICE_COUNT; i++)
        if (info[i].device == RLX_DEVICE_HIP) { *out = info[i]; return 1; }
    return 0;
}

/* y = exp(x) + x, compiled for HIP; returns the rlx_compile result, the graph's message in msg and the program
   (or NULL) in *out. */
static rlx_result compile_small(uint32_t flags, char* msg, size_t cap, rlx_program** out) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t shape[1] = {8};
    rlx_compile_desc d;
    rlx_result r;
    rlx_tensor x;
    *out = NULL;
    msg[0] = 0;
    if (!g) return RLX_ERROR_OUT_OF_MEMORY;
    x = rlx_input(g, "x", RLX_F32, 1, shape);
    rlx_output(g, "y", rlx_add(g, rlx_exp(g, x), x));
    memset(&d, 0, sizeof d);
    d.device = RLX_DEVICE_HIP;
    d.flags = flags;
    r = rlx_compile(g, &d, out);
    snprintf(msg, cap, "%s", rlx_graph_error(g));
    rlx_graph_destroy(g);
    return r;
}

#if defined(HAVE_HIP)
static int blank(const char* s) {
    for (; *s; s++)
        if (!isspace((unsigned char)*s)) return 0;
    return 1;
}

static int contains(const void* hay, size_t n, const char* needle) {
    const unsigned char* h = (const unsigned char*)hay;
    size_t k = strlen(needle), i;
    for (i = 0; k && i + k <= n; i++)
        if (h[i] == (unsigned char)needle[0] && memcmp(h + i, needle, k) == 0) return 1;
    return 0;
}

static int is_ident_char(char c) { return c == '_' || isalnum((unsigned char)c); }

/* Names of the `extern "C" __global__` kernels of a source (skipping __launch_bounds__(...)). */
static int kernels_of(const char* src, char names[][64], int cap) {
    static const char key[] = "extern \"C\" __global__";
    const char* p = src;
    int n = 0;
    while (n < cap && (p = strstr(p, key)) != NULL) {
        p += sizeof key - 1;
        for (;;) {
            const char* b;
            size_t len;
            while (isspace((unsigned char)*p)) p++;
            b = p;
            while (is_ident_char(*p)) p++;
            len = (size_t)(p - b);
            while (isspace((unsigned char)*p)) p++;
            if (len == 0) break;
            if (*p != '(') continue;                       /* "void", a type, ... */
            if (len == 17 && strncmp(b, "__launch_bounds__", 17) == 0) {
                while (*p && *p != ')') p++;
                if (*p) p++;
                continue;
            }
            if (len < 64) {
                memcpy(names[n], b, len);
                names[n++][len] = 0;
            }
            break;
        }
    }
    return n;
}

/* (b) every embedded module for every target */

/* whether ARCH is one of the comma-separated names of LIST */
/* 1 if the comma-separated list names arch (a target or a module) */
static int hip_listed(const char* list, const char* arch) {
    size_t n = strlen(arch);
    const char* p = list;
    while ((p = strstr(p, arch)) != NULL) {
        if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
        p += n;
    }
    return 0;
}

static void compile_all(void) {
    static const char* const archs[] = {"gfx90a", "gfx1030", "gfx1100"};
    static char log[16384];
    static char names[64][64];
    /* RLX_TEST_HIP_ARCHS=gfx90a (a comma-separated subset) limits the targets and RLX_TEST_HIP_MODULES=matmul the
       modules: the sanitizer and portability runs use one of each, since the host code is the same for every
       target and module; the others are reported skipped. */
    const char* only = getenv("RLX_TEST_HIP_ARCHS");
    const char* only_mod = getenv("RLX_TEST_HIP_MODULES");
    int a, i, modules = 0;
    for (i = 0; i < RLX__HIP_SOURCE_COUNT; i++)
        if (!strchr(RLX__HIP_SOURCES[i].name, '.')) modules++;
    TH_CHECK(modules > 0, "rlx_kernels_ptx.h embeds no HIP kernel sources (regenerate it with `make kernels`)");
    for (a = 0; a < 3; a++) {
        const char* arch = archs[a];
        double total = 0;
        if (only && *only && !hip_listed(only, arch)) {
            th_skip("hip: %s: not in RLX_TEST_HIP_ARCHS=%s", arch, only);
            continue;
        }
        if (rlx__hip_arch_known(arch) == 0) {
            th_skip("hip: %s: the compiler of this HIP runtime (%s, version %d.%d) does not support it", arch,
                    rlx__hip.libname, rlx__hip.runtime_version / 10000000, rlx__hip.runtime_version / 100000 % 100);
            continue;
        }
        for (i = 0; i < RLX__HIP_SOURCE_COUNT; i++) {
            const rlx__kernel_blob* s = &RLX__HIP_SOURCES[i];
            void* code = NULL;
            size_t size = 0;
            double t0, dt;
            rlx_result r;
            int nk, k, missing = 0;
            if (strchr(s->name, '.')) continue;   /* a header */
            if (only_mod && *only_mod && !hip_listed(only_mod, s->name)) {
                th_skip("hip: %s for %s: not in RLX_TEST_HIP_MODULES=%s", s->name, arch, only_mod);
                continue;
            }
            t0 = now_s();
            r = rlx__hip_compile(s->name, arch, &code, &size, log, sizeof log);
            dt = now_s() - t0;
            total += dt;
            TH_CHECK(r == RLX_OK && blank(log), "hip: %s for %s: %s (%d), log:\n%s", s->name, arch, rlx_result_string(r),
                     (int)r, log);
            if (r != RLX_OK) continue;
            if (!blank(log)) printf("hip: %s for %s compiled with messages (counted as a failure above)\n", s->name, arch);
            TH_CHECK(size > 4 && memcmp(code, "\177ELF", 4) == 0, "hip: %s for %s: the code object is not ELF", s->name, arch);
            nk = kernels_of((const char*)s->data, names, 64);
            TH_CHECK(nk > 0, "hip: %s: no extern \"C\" __global__ kernel found in the source", s->name);
            for (k = 0; k < nk; k++) {
                char sym[80];
                snprintf(sym, sizeof sym, "%.63s.kd", names[k]);
                if (!contains(code, size, sym)) {
                    missing++;
                    printf("hip: %s for %s: kernel %s is missing from the code object\n", s->name, arch, names[k]);
                }
            }
            TH_CHECK(missing == 0, "hip: %s for %s: %d of %d kernels missing", s->name, arch, missing, nk);
            printf("hip: compiled %-12s for %-8s %6.2f s  %8lu bytes  %2d kernels\n", s->name, arch, dt,
                   (unsigned long)size, nk);
            RLX_FREE(code);
        }
        printf("hip: %s: all modules in %.2f s\n", arch, total);
    }
}

/* (b) error paths */
static void compile_errors(void) {
    char log[4096];
    void* code = (void*)&log;
    size_t size = 1;
    rlx_result r;
    int comgr = rlx__hip_arch_known("gfx90a");
    r = rlx__hip_compile("no_such_module", "gfx90a", &code, &size, log, sizeof log);
    TH_CHECK(r == RLX_ERROR_UNSUPPORTED && code == NULL && size == 0 && strstr(log, "no embedded HIP source"),
             "unknown module: %s: %s", rlx_result_string(r), log);
    r = rlx__hip_compile("matmul", "sm_80", &code, &size, log, sizeof log);
    TH_CHECK(r == RLX_ERROR_INVALID_ARGUMENT && code == NULL, "target 'sm_80': %s: %s", rlx_result_string(r), log);
    if (comgr != 1) {
        th_skip("hip: libamd_comgr not found: the compile error and unknown-target cases need its ISA list "
                "(without it hipRTC of ROCm 5.x aborts on unknown targets)");
        return;
    }
    r = rlx__hip_compile("matmul", "gfx9999", &code, &size, log, sizeof log);
    TH_CHECK(r == RLX_ERROR_UNSUPPORTED && code == NULL && strstr(log, "gfx9999"), "target gfx9999: %s: %s",
             rlx_result_string(r), log);
    r = rlx__hip_compile_source("broken", "#include \"common.cuh\"\nextern \"C\" __global__ void k(float* p) { p[0] = undefined_name; }\n",
                                "gfx90a", &code, &size, log, sizeof log);
    TH_CHECK(r == RLX_ERROR_KERNEL_COMPILE && code == NULL && strstr(log, "undefined_name") &&
                 (strstr(log, "broken.cu:2:") || strstr(log, "broken:2:")) &&   /* hipRTC versions name it either way */
                 !strstr(log, "comgr-"),
             "a compile error: %s, log:\n%s", rlx_result_string(r), log);
}

/* (b) the code-object caches */
static void code_cache(void) {
#if !defined(RLX_NO_HIP_DISK_CACHE) && !defined(_WIN32)
    char dir[256], path[512], log[4096];
    const char* tmp = getenv("TMPDIR");
    const void *c1 = NULL, *c2 = NULL, *c3 = NULL;
    void* first = NULL;
    void* back = NULL;
    size_t n1 = 0, n2 = 0, n3 = 0, nb = 0;
    uint64_t key = 0;
    double t0, t_compile, t_disk;
    rlx_result r;
    FILE* f;
    const char* arch = "gfx1030";
    if (rlx__hip_arch_known(arch) == 0) { th_skip("hip: cache: %s is not supported by this runtime", arch); return; }
    snprintf(dir, sizeof dir, "%s/rlx-hip-cache-test-%ld", tmp && tmp[0] ? tmp : "/tmp", (long)getpid());
    setenv("RLX_HIP_CACHE", dir, 1);
    rlx__hip_code_clear();
    t0 = now_s();
    r = rlx__hip_code_get("matmul", arch, &c1, &n1, log, sizeof log);
    t_compile = now_s() - t0;
    TH_CHECK(r == RLX_OK && n1 > 0, "cache: first compile: %s: %s", rlx_result_string(r), log);
    if (r != RLX_OK) { unsetenv("RLX_HIP_CACHE"); return; }
    first = malloc(n1);
    if (first) memcpy(first, c1, n1);
    TH_CHECK(rlx__hip_cache_file("matmul", arch, path, sizeof path, &key) && strncmp(path, dir, strlen(dir)) == 0,
             "cache: no cache file name under %s", dir);
    f = fopen(path, "rb");
    TH_CHECK(f != NULL, "cache: %s was not written", path);
    if (f) fclose(f);
    /* the process cache hands out the same object */
    r = rlx__hip_code_get("matmul", arch, &c2, &n2, log, sizeof log);
    TH_CHECK(r == RLX_OK && c2 == c1 && n2 == n1, "cache: the process cache missed");
    /* a new process (simulated by dropping the process cache) reads the disk */
    rlx__hip_code_clear();
    t0 = now_s();
    r = rlx__hip_code_get("matmul", arch, &c3, &n3, log, sizeof log);
    t_disk = now_s() - t0;
    TH_CHECK(r == RLX_OK && n3 == n1 && first && memcmp(c3, first, n1) == 0, "cache: the disk copy differs");
    TH_CHECK(t_disk < 0.5 * t_compile, "cache: reading the disk cache took %.3f s, compiling %.3f s", t_disk, t_compile);
    printf("hip: code cache: compile %.3f s, from disk %.4f s (%s)\n", t_compile, t_disk, path);
    /* a damaged file is ignored, recompiled and rewritten */
    f = fopen(path, "r+b");
    if (f) {
        int b;
        fseek(f, 100, SEEK_SET);
        b = fgetc(f);
        fseek(f, 100, SEEK_SET);
        fputc((b ^ 0xFF) & 0xFF, f);
        fclose(f);
    }
    TH_CHECK(!rlx__hip_cache_read(path, key, &back, &nb), "cache: a damaged file was accepted");
    if (back) { RLX_FREE(back); back = NULL; }
    rlx__hip_code_clear();
    r = rlx__hip_code_get("matmul", arch, &c3, &n3, log, sizeof log);
    TH_CHECK(r == RLX_OK && n3 == n1 && first && memcmp(c3, first, n1) == 0, "cache: recompiling after damage failed");
    TH_CHECK(rlx__hip_cache_read(path, key, &back, &nb) && nb == n1 && first && memcmp(back, first, n1) == 0,
             "cache: the damaged file was not rewritten");
    if (back) RLX_FREE(back);
    /* RLX_HIP_CACHE=0 turns the disk cache off */
    setenv("RLX_HIP_CACHE", "0", 1);
    TH_CHECK(!rlx__hip_cache_file("matmul", arch, log, sizeof log, &key), "cache: RLX_HIP_CACHE=0 did not disable it");
    unsetenv("RLX_HIP_CACHE");
    remove(path);
    rmdir(dir);
    rlx__hip_code_clear();
    free(first);
#else
    th_skip("hip: the disk cache test needs POSIX and the disk cache");
#endif
}

/* (c) runtime present, no device */
static void no_device(void) {
    rlx_device_info info;
    rlx_program* p = NULL;
    char msg[1024];
    rlx_result r;
    if (!hip_device_info(&info)) {
        TH_CHECK(0, "rlx_devices does not list HIP");
        return;
    }
    printf("hip: rlx_devices: available %d, %s: %s\n", info.available, info.name, info.reason);
    if (info.available) {
        th_skip("hip: a HIP device is present (%s): the no-device checks do not apply", info.name);
        return;
    }
    TH_CHECK(strstr(info.reason, "hipInit") || strstr(info.reason, "hipGetDeviceCount"),
             "HIP unavailable for another reason than hipInit/hipGetDeviceCount: %s", info.reason);
    r = compile_small(RLX_COMPILE_NO_FALLBACK, msg, sizeof msg, &p);
    TH_CHECK(r == RLX_ERROR_DEVICE_UNAVAILABLE && p == NULL && strstr(msg, info.reason),
             "HIP + NO_FALLBACK: %s: %s (want the reason '%s')", rlx_result_string(r), msg, info.reason);
    rlx_program_destroy(p);
    r = compile_small(0, msg, sizeof msg, &p);
    TH_CHECK(r == RLX_OK && p && rlx_program_device(p) == RLX_DEVICE_CPU &&
                 strstr(rlx_program_device_reason(p), info.reason),
             "HIP with fallback: %s, device %s, reason: %s", rlx_result_string(r), p ? rlx_device_name(rlx_program_device(p)) : "-",
             p ? rlx_program_device_reason(p) : msg);
    rlx_program_destroy(p);
}
#endif /* HAVE_HIP */

/* (d), in the child: RLX_HIP_LIBRARY names a library that does not exist */
static int missing_library_child(void) {
    rlx_device_info info;
    rlx_program* p = NULL;
    char msg[1024];
    rlx_result r;
    const char* env = getenv("RLX_HIP_LIBRARY");
    TH_CHECK(env && strcmp(env, MISSING_LIBRARY) == 0, "child: RLX_HIP_LIBRARY is not set");
    TH_CHECK(hip_device_info(&info) && !info.available && strstr(info.reason, "not found") &&
                 strstr(info.reason, MISSING_LIBRARY),
             "child: HIP with a missing library: available %d, reason '%s'", info.available, info.reason);
    r = compile_small(RLX_COMPILE_NO_FALLBACK, msg, sizeof msg, &p);
    TH_CHECK(r == RLX_ERROR_DEVICE_UNAVAILABLE && !p && strstr(msg, "not found"), "child: compile: %s: %s",
             rlx_result_string(r), msg);
    rlx_program_destroy(p);
#if defined(HAVE_HIP)
    {
        void* code = NULL;
        size_t size = 0;
        r = rlx__hip_compile("matmul", "gfx90a", &code, &size, msg, sizeof msg);
        TH_CHECK(r == RLX_ERROR_DEVICE_UNAVAILABLE && !code && strstr(msg, "not found"), "child: hipRTC: %s: %s",
                 rlx_result_string(r), msg);
    }
#endif
    return th_summary("hip-missing-library");
}

static void missing_library(const char* argv0) {
#if defined(HAVE_HIP) && !defined(_WIN32)
    pid_t pid;
    int status = 0;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        char* args[3];
        args[0] = (char*)argv0;
        args[1] = (char*)"--missing-library";
        args[2] = NULL;
        setenv("RLX_HIP_LIBRARY", MISSING_LIBRARY, 1);
        execv("/proc/self/exe", args);
        execvp(argv0, args);
        _exit(127);
    }
    TH_CHECK(pid > 0, "fork failed");
    if (pid <= 0) return;
    TH_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
             "the --missing-library child failed (status 0x%x)", (unsigned)status);
#elif defined(HAVE_HIP)
    (void)argv0;
    th_skip("hip: the missing-library case runs in a child process (POSIX only)");
#else
    (void)argv0;
#endif
}

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "--missing-library") == 0) return missing_library_child();
#if !defined(HAVE_HIP)
    th_skip("hip: this rlx.h has no HIP backend (or RLX_NO_HIP is defined)");
#else
    {
        char why[256];
        if (!rlx__hip_load_lib(why, sizeof why)) {
            rlx_device_info info;
            th_skip("hip: the HIP runtime library cannot be opened (%s): hipRTC and device checks skipped", why);
            TH_CHECK(hip_device_info(&info) && !info.available, "HIP available without its runtime library?");
        } else {
            printf("hip: runtime %s, version %d.%d (%d)\n", rlx__hip.libname, rlx__hip.runtime_version / 10000000,
                   rlx__hip.runtime_version / 100000 % 100, rlx__hip.runtime_version);
            compile_all();
            compile_errors();
            code_cache();
            no_device();
        }
    }
#endif
    missing_library(argv[0]);
    return th_summary("hip");
}
