/* Tiny test harness shared by the test programs. Each test program is one translation unit that defines
   RLX_IMPLEMENTATION, includes rlx.h and this file, and ends main() with `return th_summary("area");`, which
   prints `area: N passed, N failed, N skipped` (the Makefile adds the lines up into the final summary).

   TH_CHECK(cond, fmt, ...)  counts one pass or one failure (and prints the failure with file:line).
   th_skip(fmt, ...)         counts one skip and prints why. A skipped case is never counted as passed.
   th_close(a, b, atol, rtol) |a-b| <= atol + rtol*|b|, NaN equals NaN, inf equals the same inf.
   th_rng / th_uniform        deterministic xorshift random numbers (never all zero). */
#ifndef RLX_TEST_HARNESS_H
#define RLX_TEST_HARNESS_H
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#  define TH_MAYBE_UNUSED __attribute__((unused))
#else
#  define TH_MAYBE_UNUSED
#endif

static int th_passed, th_failed, th_skipped;

/* Non-finite constants for static initializers. tcc folds no arithmetic on an infinity or a NaN, so -INFINITY
   and -NAN are not constant expressions there; a product of finite operands that overflows is. tcc's NAN is
   0.0f/0.0f folded on x86, whose sign bit is set: there it is also the negative NaN. */
#if defined(__TINYC__)
#  define TH_NEG_INF (-1e308 * 10)
#  define TH_NEG_NAN NAN
#else
#  define TH_NEG_INF (-INFINITY)
#  define TH_NEG_NAN (-NAN)
#endif

/* Relaxed atomic add and load on a long (counters that the library's threads may touch): gcc/clang builtins,
   Interlocked* on Windows without them, else one mutex (tcc). */
#if defined(__GNUC__) || defined(__clang__)
#  define TH_ATOMIC_ADD(p, v) ((void)__atomic_fetch_add((p), (v), __ATOMIC_RELAXED))
#  define TH_ATOMIC_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#elif defined(_WIN32)
#  include <windows.h>
#  define TH_ATOMIC_ADD(p, v) ((void)InterlockedExchangeAdd((volatile LONG*)(p), (LONG)(v)))
#  define TH_ATOMIC_LOAD(p) ((long)InterlockedCompareExchange((volatile LONG*)(p), 0, 0))
#else
#  include <pthread.h>
static pthread_mutex_t th_atomic_mutex = PTHREAD_MUTEX_INITIALIZER;
static TH_MAYBE_UNUSED void th_atomic_add_(long* p, long v) {
    pthread_mutex_lock(&th_atomic_mutex);
    *p += v;
    pthread_mutex_unlock(&th_atomic_mutex);
}
static TH_MAYBE_UNUSED long th_atomic_load_(long* p) {
    long v;
    pthread_mutex_lock(&th_atomic_mutex);
    v = *p;
    pthread_mutex_unlock(&th_atomic_mutex);
    return v;
}
#  define TH_ATOMIC_ADD(p, v) th_atomic_add_((p), (v))
#  define TH_ATOMIC_LOAD(p) th_atomic_load_(p)
#endif

#define TH_CHECK(cond, ...) th_check_((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

static TH_MAYBE_UNUSED void th_check_(int ok, const char* file, int line, const char* fmt, ...) {
    if (ok) { th_passed++; return; }
    th_failed++;
    fprintf(stdout, "FAIL %s:%d: ", file, line);
    { va_list ap; va_start(ap, fmt); vfprintf(stdout, fmt, ap); va_end(ap); }
    fputc('\n', stdout);
    fflush(stdout);
}

static TH_MAYBE_UNUSED void th_skip(const char* fmt, ...) {
    th_skipped++;
    fputs("SKIP: ", stdout);
    { va_list ap; va_start(ap, fmt); vfprintf(stdout, fmt, ap); va_end(ap); }
    fputc('\n', stdout);
}

static TH_MAYBE_UNUSED int th_close(double a, double b, double atol, double rtol) {
    if (a != a || b != b) return (a != a) && (b != b);
    if (isinf(a) || isinf(b)) return a == b;
    return fabs(a - b) <= atol + rtol * fabs(b);
}

static uint64_t th_state = 0x9E3779B97F4A7C15ull;
static TH_MAYBE_UNUSED void th_seed(uint64_t s) { th_state = s ? s : 0x9E3779B97F4A7C15ull; }
static TH_MAYBE_UNUSED uint64_t th_rng(void) {
    uint64_t x = th_state;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    th_state = x;
    return x;
}
/* uniform in [lo, hi) */
static TH_MAYBE_UNUSED double th_uniform(double lo, double hi) {
    return lo + (hi - lo) * (double)(th_rng() >> 11) * (1.0 / 9007199254740992.0);
}

#if defined(RLX_H)   /* after rlx.h: */
/* is a device of this kind there and usable (the CPU always is)? */
static TH_MAYBE_UNUSED int th_device_available(rlx_device th_dev_) {
    rlx_device_info th_di_[16];
    int th_n_ = rlx_devices(th_di_, 16), th_k_;
    if (th_dev_ == RLX_DEVICE_CPU) return 1;
    for (th_k_ = 0; th_k_ < th_n_ && th_k_ < 16; th_k_++)
        if (th_di_[th_k_].device == th_dev_ && th_di_[th_k_].available) return 1;
    return 0;
}
#endif

static TH_MAYBE_UNUSED int th_summary(const char* area) {
    printf("%s: %d passed, %d failed, %d skipped\n", area, th_passed, th_failed, th_skipped);
    return th_failed ? 1 : 0;
}
#endif
