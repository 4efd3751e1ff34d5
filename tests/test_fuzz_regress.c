/* Replays the API fuzzer's regression inputs (tests/fuzz/regress/: inputs that once broke the contract or crashed)
   and its seed corpus (tests/fuzz/corpus/). Each input runs in a child process (a contract violation aborts);
   it passes when the child exits normally. Without fork() (Windows) the inputs run in this process, so the
   first violation ends the program (which then counts as failed). Run from the repository root (as `make test`
   does). */
#define RLX_FUZZ_NO_MAIN   /* fuzz_api.c guards its RLX_IMPLEMENTATION with RLX_TEST_SHARED_IMPL (tests/rlx_impl.c) */
#include "fuzz/fuzz_api.c"
#include "harness.h"

#if !defined(_WIN32)
#  include <sys/types.h>
#  include <sys/wait.h>
#  include <unistd.h>
#endif

static void replay_dir(const char* dir, int required) {
    char** files;
    int n = fz_list_dir(dir, &files), i;
    if (n < 0) {
        if (required) TH_CHECK(0, "cannot open %s (run from the repository root)", dir);
        else th_skip("%s not found", dir);
        return;
    }
    for (i = 0; i < n; i++) {
        size_t len = 0;
        uint8_t* d = fz_read_file(files[i], &len);
#if defined(_WIN32)
        if (!d) { TH_CHECK(0, "cannot read %s", files[i]); free(files[i]); continue; }
        fz_run_input(d, len);
        TH_CHECK(1, "%s", files[i]);
#else
        pid_t pid;
        int st = 0;
        if (!d) { TH_CHECK(0, "cannot read %s", files[i]); free(files[i]); continue; }
        fflush(stdout);
        fflush(stderr);
        pid = fork();
        if (pid == 0) {
            fz_run_input(d, len);
            _exit(0);
        }
        if (pid < 0) { th_skip("fork failed for %s", files[i]); free(d); free(files[i]); continue; }
        waitpid(pid, &st, 0);
        TH_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %s %d (replay with `make fuzz-replay FUZZ_INPUT=%s`)",
                 files[i], WIFSIGNALED(st) ? "killed by signal" : "exit status",
                 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), files[i]);
#endif
        free(d);
        free(files[i]);
    }
    free(files);
}

int main(void) {
    replay_dir("tests/fuzz/regress", 0);
    replay_dir("tests/fuzz/corpus", 1);
    return th_summary("fuzz_regress");
}
