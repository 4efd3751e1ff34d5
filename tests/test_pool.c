/* Thread pools and the device list.
   1. A shared pool (rlx_thread_pool) used by three programs that run at the same time on three threads of the
      test: every output equals, bit for bit, the output of a single-threaded program on the same input, and an
      f64 reference computed here.
   2. The job-system hook: a toy job system (one thread of its own per job, counting its calls) runs rlx.h's
      parallel steps, also for two programs at once; hooks that break the contract (run no job, run job 0 twice
      and an index out of range) still give the right answer.
   3. The inline threshold: tiny steps (a 4x8 matmul, the decode step of the tiny transformer) never call the
      hook; a large matmul does (so the counter can move).
   4. Pool and compile arguments that are refused.
   5. rlx_devices: the CPU first, well-formed entries, consecutive indices per kind; a Vulkan device (lavapipe
      here) selected by device_index when one is available (skipped otherwise). */
#define RLX_IMPLEMENTATION
#include "../rlx.h"
#include "harness.h"
#include "../examples/transformer_model.h"
#include <pthread.h>
#include <stdlib.h>

#define M 128
#define K 256
#define N 256
#define NIN 2      /* distinct inputs the workers alternate between */
#define RUNS 12    /* runs per worker */

static float xs[NIN][M * K], w[K * N], b[N];
static float expect[NIN][M * N];   /* single-threaded program's outputs */

/* y = softmax(relu(x · w + b), -1): the matmul (M·N·K = 2^23 multiply-adds) is large enough to split */
static rlx_graph* big_graph(void) {
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t x_s[2] = {M, K}, w_s[2] = {K, N}, b_s[1] = {N};
    rlx_tensor h = rlx_matmul(g, rlx_input(g, "x", RLX_F32, 2, x_s), rlx_param(g, "w", RLX_F32, 2, w_s));
    rlx_output(g, "y", rlx_softmax(g, rlx_relu(g, rlx_add(g, h, rlx_param(g, "b", RLX_F32, 1, b_s))), -1));
    return g;
}

static rlx_program* compile_big(int threads, rlx_thread_pool* pool) {
    rlx_graph* g = big_graph();
    rlx_compile_desc d;
    rlx_program* p = NULL;
    memset(&d, 0, sizeof d);
    d.device = RLX_DEVICE_CPU;
    d.num_threads = threads;
    d.pool = pool;
    TH_CHECK(rlx_compile(g, &d, &p) == RLX_OK, "compile: %s", rlx_graph_error(g));
    rlx_graph_destroy(g);
    if (p) TH_CHECK(rlx_set_param_f32(p, "w", w, K * N) == RLX_OK && rlx_set_param_f32(p, "b", b, N) == RLX_OK,
                    "set params: %s", rlx_program_error(p));
    return p;
}

static void reference_f64(const float* x, double* y) {
    int i, j, k;
    for (i = 0; i < M; i++) {
        double mx = -1e300, s = 0.0;
        for (j = 0; j < N; j++) {
            double a = b[j];
            for (k = 0; k < K; k++) a += (double)x[i * K + k] * (double)w[k * N + j];
            y[i * N + j] = a > 0.0 ? a : 0.0;
            if (y[i * N + j] > mx) mx = y[i * N + j];
        }
        for (j = 0; j < N; j++) s += (y[i * N + j] = exp(y[i * N + j] - mx));
        for (j = 0; j < N; j++) y[i * N + j] /= s;
    }
}

/* ---- workers: one program each, alternating inputs, every output compared bit for bit ---- */
typedef struct worker_job {
    rlx_program* p;
    int first;          /* which input comes first */
    int mismatches, runs;
    rlx_result r;
} worker_job;

static void* worker(void* arg) {
    worker_job* j = (worker_job*)arg;
    static float out_buf[8][M * N];
    float* out = out_buf[j->first & 7];
    int k, i;
    for (k = 0; k < RUNS && j->r == RLX_OK; k++) {
        int which = (j->first + k) % NIN;
        j->r = rlx_set_input_f32(j->p, "x", xs[which], M * K);
        if (j->r == RLX_OK) j->r = rlx_run(j->p);
        if (j->r == RLX_OK) j->r = rlx_get_output_f32(j->p, "y", out, M * N);
        if (j->r != RLX_OK) break;
        j->runs++;
        for (i = 0; i < M * N; i++)
            if (memcmp(&out[i], &expect[which][i], sizeof(float)) != 0) { j->mismatches++; break; }
    }
    return NULL;
}

/* Runs n programs at once on n threads of the test; checks each against the single-threaded outputs. */
static void run_together(rlx_program** ps, int n, const char* what) {
    pthread_t th[8];
    worker_job jobs[8];
    int i, started[8];
    for (i = 0; i < n; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].p = ps[i];
        jobs[i].first = i;
        started[i] = ps[i] && pthread_create(&th[i], NULL, worker, &jobs[i]) == 0;
        TH_CHECK(started[i], "%s: program %d did not start", what, i);
    }
    for (i = 0; i < n; i++)
        if (started[i]) pthread_join(th[i], NULL);
    for (i = 0; i < n; i++) {
        if (!started[i]) continue;
        TH_CHECK(jobs[i].r == RLX_OK, "%s: program %d: %s (%s)", what, i, rlx_result_string(jobs[i].r), rlx_program_error(ps[i]));
        TH_CHECK(jobs[i].runs == RUNS && jobs[i].mismatches == 0, "%s: program %d: %d of %d runs differ from one thread",
                 what, i, jobs[i].mismatches, jobs[i].runs);
    }
}

/* ---- a toy job system: one thread per job, counting calls ---- */
static long hook_calls, hook_jobs, hook_bad_count;

typedef struct toy_task { rlx_job_fn job; void* ctx; int64_t index; } toy_task;
static void* toy_thread(void* arg) {
    toy_task* t = (toy_task*)arg;
    t->job(t->ctx, t->index);
    return NULL;
}
static void toy_parallel_for(void* user, int64_t count, rlx_job_fn job, void* ctx) {
    pthread_t th[RLX_MAX_THREADS];
    toy_task t[RLX_MAX_THREADS];
    int started[RLX_MAX_THREADS];
    int64_t i, max = *(const int*)user;
    TH_ATOMIC_ADD(&hook_calls, 1);
    TH_ATOMIC_ADD(&hook_jobs, count);
    if (count < 2 || count > max) TH_ATOMIC_ADD(&hook_bad_count, 1);
    if (count > RLX_MAX_THREADS) count = RLX_MAX_THREADS;
    for (i = 0; i < count; i++) {
        t[i].job = job; t[i].ctx = ctx; t[i].index = i;
        started[i] = pthread_create(&th[i], NULL, toy_thread, &t[i]) == 0;
        if (!started[i]) job(ctx, i);   /* no thread: run it here */
    }
    for (i = 0; i < count; i++)
        if (started[i]) pthread_join(th[i], NULL);
}
/* Hooks that break the contract: rlx.h must still finish every task exactly once. */
static void lazy_parallel_for(void* user, int64_t count, rlx_job_fn job, void* ctx) {
    (void)user; (void)count; (void)job; (void)ctx;
    TH_ATOMIC_ADD(&hook_calls, 1);
}
static void wrong_parallel_for(void* user, int64_t count, rlx_job_fn job, void* ctx) {
    (void)user;
    TH_ATOMIC_ADD(&hook_calls, 1);
    job(ctx, count);      /* out of range */
    job(ctx, -1);
    job(ctx, 0);
    job(ctx, 0);          /* again: nothing left for it */
}

static void check_one(rlx_program* p, int which, const char* what) {
    static float out[M * N];
    int i, bad = -1;
    if (!p) return;
    TH_CHECK(rlx_set_input_f32(p, "x", xs[which], M * K) == RLX_OK && rlx_run(p) == RLX_OK &&
                 rlx_get_output_f32(p, "y", out, M * N) == RLX_OK, "%s: %s", what, rlx_program_error(p));
    for (i = 0; i < M * N; i++)
        if (memcmp(&out[i], &expect[which][i], sizeof(float)) != 0) { bad = i; break; }
    TH_CHECK(bad < 0, "%s: differs from one thread at %d (%.9g vs %.9g)", what, bad, bad >= 0 ? out[bad] : 0.0,
             bad >= 0 ? expect[which][bad] : 0.0);
}

static void test_shared_pool(void) {
    rlx_thread_pool_desc pd;
    rlx_thread_pool* pool = NULL;
    rlx_program* ps[3] = {NULL, NULL, NULL};
    rlx_program* clone = NULL;
    rlx_plan_info pi;
    int i;
    memset(&pd, 0, sizeof pd);
    pd.num_threads = 3;
    TH_CHECK(rlx_thread_pool_create(&pd, &pool) == RLX_OK && pool, "pool create");
    if (!pool) return;
#if defined(RLX_NO_THREADS)
    TH_CHECK(rlx_thread_pool_threads(pool) == 1, "RLX_NO_THREADS: pool threads %d", rlx_thread_pool_threads(pool));
#else
    TH_CHECK(rlx_thread_pool_threads(pool) == 3, "pool threads %d", rlx_thread_pool_threads(pool));
#endif
    for (i = 0; i < 3; i++) ps[i] = compile_big(0, pool);
    memset(&pi, 0, sizeof pi);
    TH_CHECK(ps[0] && rlx_program_plan(ps[0], &pi) == RLX_OK && pi.num_threads == rlx_thread_pool_threads(pool),
             "program on the pool: %d threads", pi.num_threads);
    rlx_thread_pool_destroy(pool);   /* the programs keep it alive */
    run_together(ps, 3, "shared pool");
    /* a clone shares the pool too */
    TH_CHECK(ps[0] && rlx_program_clone(ps[0], 1, &clone) == RLX_OK, "clone");
    check_one(clone, 1, "clone on the shared pool");
    rlx_program_destroy(clone);
    for (i = 0; i < 3; i++) rlx_program_destroy(ps[i]);
}

static void test_hook(void) {
    static int max = 3;
    rlx_thread_pool_desc pd;
    rlx_thread_pool* pool = NULL;
    rlx_program* ps[2] = {NULL, NULL};
    long before;
    memset(&pd, 0, sizeof pd);
    pd.num_threads = max;
    pd.parallel_for = toy_parallel_for;
    pd.user_data = &max;
    TH_CHECK(rlx_thread_pool_create(&pd, &pool) == RLX_OK && pool, "hook pool create");
    if (!pool) return;
    ps[0] = compile_big(0, pool);
    ps[1] = compile_big(rlx_thread_pool_threads(pool), pool);    /* num_threads equal to the pool's is accepted */
    before = TH_ATOMIC_LOAD(&hook_calls);
    check_one(ps[0], 0, "hook");
#if defined(RLX_NO_THREADS)
    TH_CHECK(TH_ATOMIC_LOAD(&hook_calls) == before, "RLX_NO_THREADS: the hook was called");
#else
    TH_CHECK(TH_ATOMIC_LOAD(&hook_calls) > before, "the hook was never called for a 2^23 multiply-add matmul");
    before = TH_ATOMIC_LOAD(&hook_calls);
    run_together(ps, 2, "hook, two programs at once");
    TH_CHECK(TH_ATOMIC_LOAD(&hook_calls) >= before + 2 * RUNS, "hook calls %ld for %d runs", TH_ATOMIC_LOAD(&hook_calls) - before,
             2 * RUNS);
    TH_CHECK(TH_ATOMIC_LOAD(&hook_bad_count) == 0, "the hook got a job count outside [2, num_threads]");
#endif
    rlx_program_destroy(ps[0]);
    rlx_program_destroy(ps[1]);
    rlx_thread_pool_destroy(pool);
    /* hooks that break the contract */
    {
        void (*bad[2])(void*, int64_t, rlx_job_fn, void*);
        const char* names[2] = {"a hook that runs no job", "a hook that runs job 0 twice and bad indices"};
        int k;
        bad[0] = lazy_parallel_for;
        bad[1] = wrong_parallel_for;
        for (k = 0; k < 2; k++) {
            rlx_program* p;
            pd.parallel_for = bad[k];
            pool = NULL;
            TH_CHECK(rlx_thread_pool_create(&pd, &pool) == RLX_OK, "%s: create", names[k]);
            p = compile_big(0, pool);
            before = TH_ATOMIC_LOAD(&hook_calls);
            check_one(p, 1, names[k]);
#if !defined(RLX_NO_THREADS)
            TH_CHECK(TH_ATOMIC_LOAD(&hook_calls) > before, "%s: never called", names[k]);
#endif
            rlx_program_destroy(p);
            rlx_thread_pool_destroy(pool);
        }
    }
}

static void test_threshold(void) {
    static int max = 2;
    rlx_thread_pool_desc pd;
    rlx_thread_pool* pool = NULL;
    rlx_graph* g;
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    int64_t xsh[2] = {4, 8}, wsh[2] = {8, 4};
    float x[32], wt[32], y[16];
    double ref[16];
    long before;
    int i, k, ok = 1;
    memset(&pd, 0, sizeof pd);
    pd.num_threads = max;
    pd.parallel_for = toy_parallel_for;
    pd.user_data = &max;
    TH_CHECK(rlx_thread_pool_create(&pd, &pool) == RLX_OK, "threshold: pool");
    if (!pool) return;
    memset(&cd, 0, sizeof cd);
    cd.device = RLX_DEVICE_CPU;
    cd.pool = pool;
    /* a 4x8 · 8x4 matmul and a softmax */
    g = rlx_graph_create(NULL);
    rlx_output(g, "y", rlx_softmax(g, rlx_matmul(g, rlx_input(g, "x", RLX_F32, 2, xsh), rlx_param(g, "w", RLX_F32, 2, wsh)), -1));
    TH_CHECK(rlx_compile(g, &cd, &p) == RLX_OK, "threshold: compile: %s", rlx_graph_error(g));
    rlx_graph_destroy(g);
    for (i = 0; i < 32; i++) { x[i] = (float)th_uniform(-1, 1); wt[i] = (float)th_uniform(-1, 1); }
    for (i = 0; i < 4; i++) {
        double mx = -1e300, s = 0.0;
        int j;
        for (j = 0; j < 4; j++) {
            ref[i * 4 + j] = 0.0;
            for (k = 0; k < 8; k++) ref[i * 4 + j] += (double)x[i * 8 + k] * (double)wt[k * 4 + j];
            if (ref[i * 4 + j] > mx) mx = ref[i * 4 + j];
        }
        for (j = 0; j < 4; j++) s += (ref[i * 4 + j] = exp(ref[i * 4 + j] - mx));
        for (j = 0; j < 4; j++) ref[i * 4 + j] /= s;
    }
    before = TH_ATOMIC_LOAD(&hook_calls);
    if (p) {
        TH_CHECK(rlx_set_input_f32(p, "x", x, 32) == RLX_OK && rlx_set_param_f32(p, "w", wt, 32) == RLX_OK &&
                     rlx_run(p) == RLX_OK && rlx_run(p) == RLX_OK && rlx_get_output_f32(p, "y", y, 16) == RLX_OK,
                 "threshold: run: %s", rlx_program_error(p));
        for (i = 0; i < 16; i++) ok &= th_close(y[i], ref[i], 1e-6, 1e-5);
        TH_CHECK(ok, "threshold: tiny program differs from the f64 reference");
    }
    TH_CHECK(TH_ATOMIC_LOAD(&hook_calls) == before, "a 4x8 matmul + softmax called the hook %ld times",
             TH_ATOMIC_LOAD(&hook_calls) - before);
    rlx_program_destroy(p);
    /* one decode step (S = 1) of the tiny transformer */
    {
        tm_config c = tm_config_tiny();
        tm_build bd = tm_build_default(1);
        tm_weights tw;
        rlx_result tr = RLX_OK;
        int32_t tok = 7, pos = 5;
        int64_t counter = 0;
        float logits[256];
        p = NULL;
        g = tm_build_graph(&c, &bd, &tr);
        TH_CHECK(g && tr == RLX_OK && rlx_compile(g, &cd, &p) == RLX_OK, "threshold: decode compile: %s",
                 g ? rlx_graph_error(g) : "out of memory");
        rlx_graph_destroy(g);
        TH_CHECK(tm_weights_init(&c, 1, &tw), "weights");
        before = TH_ATOMIC_LOAD(&hook_calls);
        if (p) {
            TH_CHECK(tm_set_params(p, &tw) == RLX_OK && tm_run(p, &tok, 1, pos, counter) == RLX_OK &&
                         rlx_get_output_f32(p, "logits", logits, (size_t)c.vocab) == RLX_OK,
                     "threshold: decode run: %s", rlx_program_error(p));
            TH_CHECK(logits[0] == logits[0] && logits[0] != logits[1], "threshold: decode logits look wrong");
        }
        TH_CHECK(TH_ATOMIC_LOAD(&hook_calls) == before, "a tiny decode step called the hook %ld times",
                 TH_ATOMIC_LOAD(&hook_calls) - before);
        tm_weights_free(&tw);
        rlx_program_destroy(p);
    }
    /* the counter can move: the large matmul on the same pool calls the hook */
#if !defined(RLX_NO_THREADS)
    p = compile_big(0, pool);
    before = TH_ATOMIC_LOAD(&hook_calls);
    check_one(p, 0, "threshold: large matmul");
    TH_CHECK(TH_ATOMIC_LOAD(&hook_calls) > before, "threshold: the large matmul did not call the hook");
    rlx_program_destroy(p);
#endif
    rlx_thread_pool_destroy(pool);
}

static void my_free(void* ptr, void* user) { (void)user; free(ptr); }

static void test_arguments(void) {
    rlx_thread_pool_desc pd;
    rlx_thread_pool* pool = (rlx_thread_pool*)&pd;   /* must be cleared on failure */
    rlx_graph* g;
    rlx_compile_desc cd;
    rlx_program* p = NULL;
    rlx_result r;
    memset(&pd, 0, sizeof pd);
    TH_CHECK(rlx_thread_pool_create(&pd, NULL) == RLX_ERROR_INVALID_ARGUMENT, "create(out NULL)");
    pd.num_threads = -1;
    TH_CHECK(rlx_thread_pool_create(&pd, &pool) == RLX_ERROR_INVALID_ARGUMENT && pool == NULL, "create(num_threads -1)");
    pd.num_threads = RLX_MAX_THREADS + 1;
    TH_CHECK(rlx_thread_pool_create(&pd, &pool) == RLX_ERROR_INVALID_ARGUMENT && pool == NULL, "create(num_threads too many)");
    pd.num_threads = 2;
    pd.allocator.alloc = NULL;
    pd.allocator.free = my_free;
    TH_CHECK(rlx_thread_pool_create(&pd, &pool) == RLX_ERROR_INVALID_ARGUMENT && pool == NULL, "create(free without alloc)");
    TH_CHECK(rlx_thread_pool_threads(NULL) == 0, "threads(NULL)");
    rlx_thread_pool_destroy(NULL);
    TH_CHECK(rlx_thread_pool_create(NULL, &pool) == RLX_OK && pool && rlx_thread_pool_threads(pool) >= 1, "create(NULL desc)");
    /* num_threads that contradicts the pool */
    g = big_graph();
    memset(&cd, 0, sizeof cd);
    cd.pool = pool;
    cd.num_threads = rlx_thread_pool_threads(pool) + 1;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_ERROR_INVALID_ARGUMENT && !p && strstr(rlx_graph_error(g), "num_threads"),
             "compile(num_threads != pool): %s: %s", rlx_result_string(r), rlx_graph_error(g));
    /* device_index with AUTO */
    cd.num_threads = 0;
    cd.pool = NULL;
    cd.device_index = 1;
    r = rlx_compile(g, &cd, &p);
    TH_CHECK(r == RLX_ERROR_INVALID_ARGUMENT && !p && strstr(rlx_graph_error(g), "device_index"),
             "compile(AUTO, device_index 1): %s: %s", rlx_result_string(r), rlx_graph_error(g));
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    rlx_thread_pool_destroy(pool);
}

static int str_ok(const char* s, size_t cap) { return memchr(s, 0, cap) != NULL; }

static void test_devices(void) {
    rlx_device_info info[32];
    int n = rlx_devices(info, 32), i, next[RLX_DEVICE_COUNT], vk = -1;
    TH_CHECK(n >= 1 && n <= 32, "rlx_devices: %d entries", n);
    TH_CHECK(rlx_devices(NULL, 0) == n, "rlx_devices(NULL, 0) counts %d, not %d", rlx_devices(NULL, 0), n);
    if (n < 1 || n > 32) return;
    TH_CHECK(info[0].device == RLX_DEVICE_CPU && info[0].index == 0 && info[0].available, "the CPU is not first");
    memset(next, 0, sizeof next);
    for (i = 0; i < n; i++) {
        const rlx_device_info* d = &info[i];
        int kind = (int)d->device;
        TH_CHECK(kind > 0 && kind < RLX_DEVICE_COUNT, "entry %d: device %d", i, kind);
        if (kind <= 0 || kind >= RLX_DEVICE_COUNT) continue;
        TH_CHECK(i == 0 || kind >= (int)info[i - 1].device, "entry %d: kinds out of order", i);
        TH_CHECK(d->index == next[kind], "entry %d (%s): index %d, expected %d", i, rlx_device_name(d->device), d->index,
                 next[kind]);
        next[kind] = d->index + 1;
        TH_CHECK(str_ok(d->name, sizeof d->name) && d->name[0] && str_ok(d->reason, sizeof d->reason) && d->reason[0] &&
                     str_ok(d->driver, sizeof d->driver),
                 "entry %d: name/reason/driver not well-formed", i);
        if (d->available && d->device != RLX_DEVICE_CPU)
            TH_CHECK(d->memory_bytes > 0 && d->driver[0], "entry %d (%s): available but no memory or driver", i, d->name);
        if (d->device == RLX_DEVICE_VULKAN && d->available && vk < 0) vk = i;
        printf("pool: device %-6s %d %s: %s; %.2f GiB; driver %s\n", rlx_device_name(d->device), d->index, d->name,
               d->reason, (double)d->memory_bytes / 1073741824.0, d->driver);
    }
    for (i = 1; i < RLX_DEVICE_COUNT; i++) TH_CHECK(next[i] >= 1, "%s is not listed", rlx_device_name((rlx_device)i));
    if (vk < 0) {
        th_skip("no available Vulkan device: device_index selection not checked on Vulkan");
    } else {
        rlx_graph* g = rlx_graph_create(NULL);
        int64_t s[1] = {5};
        float x[5] = {-2.0f, -0.5f, 0.25f, 0.5f, 2.0f}, y[5];
        rlx_compile_desc cd;
        rlx_program* p = NULL;
        rlx_result r;
        int k, ok = 1;
        rlx_output(g, "y", rlx_tanh(g, rlx_input(g, "x", RLX_F32, 1, s)));
        memset(&cd, 0, sizeof cd);
        cd.device = RLX_DEVICE_VULKAN;
        cd.device_index = info[vk].index;
        cd.flags = RLX_COMPILE_NO_FALLBACK;
        r = rlx_compile(g, &cd, &p);
        TH_CHECK(r == RLX_OK && p && rlx_program_device(p) == RLX_DEVICE_VULKAN, "vulkan device %d: %s", cd.device_index,
                 rlx_graph_error(g));
        if (p) {
            TH_CHECK(strstr(rlx_program_device_reason(p), info[vk].name) != NULL, "vulkan device %d: reason '%s' does not name '%s'",
                     cd.device_index, rlx_program_device_reason(p), info[vk].name);
            TH_CHECK(rlx_set_input_f32(p, "x", x, 5) == RLX_OK && rlx_run(p) == RLX_OK && rlx_get_output_f32(p, "y", y, 5) == RLX_OK,
                     "vulkan run: %s", rlx_program_error(p));
            for (k = 0; k < 5; k++) ok &= th_close(y[k], tanh((double)x[k]), 1e-6, 1e-5);
            TH_CHECK(ok, "vulkan tanh differs from the f64 reference");
            rlx_program_destroy(p);
            p = NULL;
        }
        cd.device_index = next[RLX_DEVICE_VULKAN];   /* one past the last */
        r = rlx_compile(g, &cd, &p);
        TH_CHECK(r == RLX_ERROR_DEVICE_UNAVAILABLE && !p, "vulkan device_index %d (none): %s", cd.device_index, rlx_result_string(r));
        rlx_program_destroy(p);
        rlx_graph_destroy(g);
    }
}

int main(void) {
    static double ref[M * N];
    rlx_program* single;
    int i, k, ok;
    th_seed(11);
    for (k = 0; k < NIN; k++)
        for (i = 0; i < M * K; i++) xs[k][i] = (float)th_uniform(-1, 1);
    for (i = 0; i < K * N; i++) w[i] = (float)th_uniform(-0.3, 0.3);
    for (i = 0; i < N; i++) b[i] = (float)th_uniform(-0.5, 0.5);
    single = compile_big(1, NULL);
    if (!single) return th_summary("pool");
    for (k = 0; k < NIN; k++) {
        TH_CHECK(rlx_set_input_f32(single, "x", xs[k], M * K) == RLX_OK && rlx_run(single) == RLX_OK &&
                     rlx_get_output_f32(single, "y", expect[k], M * N) == RLX_OK,
                 "single-threaded run: %s", rlx_program_error(single));
        reference_f64(xs[k], ref);
        ok = 1;
        for (i = 0; i < M * N; i++) ok &= th_close(expect[k][i], ref[i], 1e-6, 1e-4);
        TH_CHECK(ok, "single-threaded output %d differs from the f64 reference", k);
    }
    rlx_program_destroy(single);
    test_shared_pool();
    test_hook();
    test_threshold();
    test_arguments();
    test_devices();
    return th_summary("pool");
}
