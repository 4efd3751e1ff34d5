#!/usr/bin/env bash
# Portability: builds rlx.h's compile checks, tests and examples with the toolchains users have, and runs them.
#
# Debian 12 packages (root):
#   apt-get install -y --no-install-recommends make gcc gcc-multilib clang tcc gcc-mingw-w64-x86-64 wine wine64 \
#       qemu-user binutils-aarch64-linux-gnu libc6-dev-arm64-cross libgcc-12-dev-arm64-cross
#   (gcc-multilib conflicts with Debian's gcc-aarch64-linux-gnu: aarch64 is cross-compiled with clang.)
#
#   tcc      tcc 0.9.27, default configuration: the compile checks, every test, the examples.
#   mingw    x86_64-w64-mingw32-gcc (static, run under wine): the compile checks, every test, the examples.
#   aarch64  clang --target=aarch64-linux-gnu (run under qemu-aarch64): the compile checks and the CPU tests
#            (ops, attention, vision, decode, sampling, ...; NEON kernels).
#   m32      gcc -m32 -msse2 -mfpmath=sse: the compile checks and the CPU tests (32-bit size_t: the hostile-size
#            cases of test_api and test_hardening); gcc -m32 with the x87 FPU: the op tests (test_sampling's and
#            test_vk_math's bit-exact f64 checks expect IEEE double arithmetic without excess precision).
#
# Every program is built with -Wall -Wextra -Werror (-Wpedantic -Wshadow -std=c99 for the compile checks; tcc
# with -Wall -Werror). Prints `NAME: N passed, N failed, N skipped` per toolchain and ends with one
# `N passed, N failed, N skipped` line; exits non-zero if anything failed. A build failure or a crash counts as a
# failure; a toolchain that is not installed counts as one skip. Full output: build/portability/*.log.
# Usage: .ci/portability.sh [TOOLCHAIN...]   (default: mingw tcc m32 aarch64)
set -u
cd "$(dirname "$0")/.."

out=build/portability
mkdir -p "$out"
SUM="sh tests/summarize.sh"
TIMEOUT=${RLX_PORTABILITY_TIMEOUT:-300}   # seconds per program
# Lavapipe or a GPU may be present where this runs; give a Vulkan run the time the Makefile gives it.
export RLX_VULKAN_TIMEOUT_MS=${RLX_VULKAN_TIMEOUT_MS:-600000}
export RLX_TRAIN_GPT_STEPS=${RLX_TRAIN_GPT_STEPS:-20}   # examples/train_gpt: a few steps, not the default 500
# test_hip compiles one kernel module for one AMD target instead of every module for three (the host code is the
# same for every module and target; `make test` compiles them all)
export RLX_TEST_HIP_ARCHS=${RLX_TEST_HIP_ARCHS:-gfx90a} RLX_TEST_HIP_MODULES=${RLX_TEST_HIP_MODULES:-matmul}
# QUICK_OPT (MinGW, aarch64, m32: -O0) is added to the programs that compile all of rlx.h themselves (the compile
# checks but `rlx`, the tests that keep their own implementation, the examples): what they prove is that they
# build without a warning and run; gcc's optimisation-dependent warnings are checked on `rlx`, and `rlx` and the
# shared implementation stay at -O2.
QUICK_OPT=

ALL_TESTS=$(ls tests/test_*.c | sed 's|tests/||; s|\.c$||')
EXAMPLES=$(ls examples/*.c | sed 's|examples/||; s|\.c$||')
CPU_TESTS="test_ops test_attention test_vision test_decode test_fusion test_legalize test_sampling test_passes
           test_planner test_threads test_kernel_abi test_api test_hardening test_fuzz_regress test_fused_ew test_depthwise"
OP_TESTS="test_ops test_attention test_vision test_decode"
COMPILE_CHECKS="rlx nosimd static nogpu"
start=$(date +%s)

# build LOG BIN CC... -- SOURCE FLAGS...: one program; the compiler's output goes to LOG
build() {
    local log=$1 bin=$2
    shift 2
    rm -f "$bin"
    echo "+ $*" >>"$log"
    nice "$@" >>"$log" 2>&1 || echo "BUILD FAILED: $bin" >>"$log"
}

# run_prog LOG NAME RUNNER... BIN: run a test program through tests/summarize.sh (tallied in LOG)
run_prog() {
    local log=$1 name=$2
    shift 2
    $SUM run "$log" "$name" timeout "$TIMEOUT" "$@" >/dev/null 2>&1
}

# run_plain LOG NAME RUNNER... BIN: a program without a summary line (an example, a compile check): it passes
# when it exits with status 0
run_plain() {
    local log=$1 name=$2 rc
    shift 2
    local bin=${!#}
    if [ ! -f "$bin" ]; then
        echo "$name: not built" >>"$log"; echo "= $name: 0 passed, 1 failed, 0 skipped" >>"$log"; return
    fi
    timeout "$TIMEOUT" "$@" >>"$log" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ]; then echo "= $name: 1 passed, 0 failed, 0 skipped" >>"$log"
    else echo "$name: exit status $rc" >>"$log"; echo "= $name: 0 passed, 1 failed, 0 skipped" >>"$log"; fi
}

# finish NAME LOG: the toolchain's line, and its failures
finish() {
    local name=$1 log=$2 line
    line=$($SUM total "$log" | tail -n 1)
    grep -E '^(FAIL|BUILD FAILED)|: (not built|no summary line|exit status)' "$log" | head -n 20 | sed "s/^/  $name: /"
    echo "$name: $line ($(( $(date +%s) - t0 )) s)"
    echo "= $name: $line" >>"$out/all.log"
}

missing() {
    echo "$1: $2 not found, skipped"
    echo "= $1: 0 passed, 0 failed, 1 skipped" >>"$out/all.log"
}

# toolchain NAME LOG "CC FLAGS" "COMPILE-CHECK FLAGS" "LIBS" "RUNNER" TESTS EXAMPLES
toolchain() {
    local name=$1 log=$2 cc=$3 cflags=$4 libs=$5 runner=$6 tests=$7 examples=$8 ext t
    ext=; case $name in mingw*) ext=.exe ;; esac
    : >"$log"
    local dir=$out/$name
    mkdir -p "$dir"
    for t in $COMPILE_CHECKS; do
        local copt=
        [ "$t" = rlx ] || copt=$QUICK_OPT
        build "$log" "$dir/compile-$t$ext" $cc $cflags $copt "tests/compile/$t.c" -o "$dir/compile-$t$ext" $libs
        run_plain "$log" "compile-$t" $runner "$dir/compile-$t$ext"
    done
    # the implementation compiled once for the tests that link it (see tests/rlx_impl.c)
    build "$log" "$dir/rlx_impl.o" $cc $TEST_FLAGS -I. -c tests/rlx_impl.c -o "$dir/rlx_impl.o"
    for t in $tests; do
        if grep -q RLX_TEST_SHARED_IMPL "tests/$t.c"; then
            build "$log" "$dir/$t$ext" $cc $TEST_FLAGS -I. -Itests -DRLX_TEST_SHARED_IMPL "tests/$t.c" "$dir/rlx_impl.o" \
                -o "$dir/$t$ext" $libs
        else
            build "$log" "$dir/$t$ext" $cc $TEST_FLAGS $QUICK_OPT -I. -Itests "tests/$t.c" -o "$dir/$t$ext" $libs
        fi
        run_prog "$log" "$t" $runner "$dir/$t$ext"
    done
    for t in $examples; do
        build "$log" "$dir/$t$ext" $cc $TEST_FLAGS $QUICK_OPT -I. "examples/$t.c" -o "$dir/$t$ext" $libs
        run_plain "$log" "example-$t" $runner "$dir/$t$ext"
    done
}

: >"$out/all.log"
selected=${*:-mingw tcc m32 aarch64}
# one toolchain: builds and runs its programs, appends its tally to all.log
run_toolchain() {
    local tc=$1
    t0=$(date +%s)
    QUICK_OPT=
    case $tc in
    tcc)
        if ! command -v tcc >/dev/null 2>&1; then missing tcc tcc; return; fi
        TEST_FLAGS="-Wall -Werror"
        toolchain tcc "$out/tcc.log" tcc "-Wall -Werror" "-lm -lpthread -ldl" "" "$ALL_TESTS" "$EXAMPLES"
        finish tcc "$out/tcc.log"
        ;;
    mingw)
        if ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then missing mingw x86_64-w64-mingw32-gcc; return; fi
        if ! command -v wine >/dev/null 2>&1; then missing mingw wine; return; fi
        WINEPREFIX=$(mktemp -d "${TMPDIR:-/tmp}/rlx-wine.XXXXXX")
        export WINEPREFIX WINEDEBUG=-all
        # The first start creates the prefix (20-40 s); wineserver then stays up until the last program ends.
        timeout 300 wineboot -i >/dev/null 2>&1
        # Windows programs end their lines with CR LF under wine: the runner strips the CR.
        printf '#!/usr/bin/env bash\nset -o pipefail\nwine "$@" 2>&1 | tr -d "\\r"\n' >"$out/wine-run"
        chmod +x "$out/wine-run"
        TEST_FLAGS="-O2 -Wall -Wextra -Werror -static"
        QUICK_OPT=-O0
        toolchain mingw "$out/mingw.log" x86_64-w64-mingw32-gcc \
            "-std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -Wshadow -static" "-lpthread" "$out/wine-run" "$ALL_TESTS" "$EXAMPLES"
        wineserver -k >/dev/null 2>&1
        rm -rf "$WINEPREFIX"
        finish mingw "$out/mingw.log"
        ;;
    aarch64)
        if ! command -v clang >/dev/null 2>&1; then missing aarch64 clang; return; fi
        if ! command -v qemu-aarch64 >/dev/null 2>&1; then missing aarch64 qemu-aarch64; return; fi
        if [ ! -d /usr/aarch64-linux-gnu/lib ]; then missing aarch64 "/usr/aarch64-linux-gnu (libc6-dev-arm64-cross)"; return; fi
        TEST_FLAGS="--target=aarch64-linux-gnu -O2 -Wall -Wextra -Werror"
        QUICK_OPT=-O0
        toolchain aarch64 "$out/aarch64.log" clang \
            "--target=aarch64-linux-gnu -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -Wshadow" "-lm -lpthread -ldl" \
            "qemu-aarch64 -L /usr/aarch64-linux-gnu" "$CPU_TESTS" ""
        finish aarch64 "$out/aarch64.log"
        ;;
    m32)
        if ! echo 'int main(void){return 0;}' | gcc -m32 -x c - -o "$out/m32-probe" >/dev/null 2>&1; then
            missing m32 "gcc -m32 (gcc-multilib)"; return
        fi
        if ! "$out/m32-probe" >/dev/null 2>&1; then   # kernels booted without ia32 emulation cannot run them
            missing m32 "a kernel that runs 32-bit programs (ia32 emulation)"; return
        fi
        TEST_FLAGS="-m32 -msse2 -mfpmath=sse -O2 -Wall -Wextra -Werror"
        QUICK_OPT=-O0
        toolchain m32 "$out/m32.log" gcc "-m32 -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -Wshadow" \
            "-lm -lpthread -ldl" "" "$CPU_TESTS test_vk_math" ""
        finish m32 "$out/m32.log"
        t0=$(date +%s)
        TEST_FLAGS="-m32 -O2 -Wall -Wextra -Werror"
        COMPILE_CHECKS="" toolchain m32-x87 "$out/m32-x87.log" gcc "" "-lm -lpthread -ldl" "" "$OP_TESTS" ""
        finish m32-x87 "$out/m32-x87.log"
        ;;
    *)
        echo "unknown toolchain $tc (tcc, mingw, aarch64, m32)" >&2
        echo "= $tc: 0 passed, 1 failed, 0 skipped" >>"$out/all.log"
        ;;
    esac
}

# Two lanes side by side (the builds and wine/qemu runs are single-threaded; the machine has 2 or more cores):
# each lane takes the next toolchain of the list when it is free (the default list starts with the longest);
# each lane's console output is shown when it ends.
echo 0 >"$out/next"
for lane in 0 1; do
    (
        while :; do
            j=$(flock "$out/next" sh -c 'n=$(cat "$1"); echo $((n + 1)) >"$1"; echo "$n"' sh "$out/next")
            tc=$(echo $selected | awk -v k=$((j + 1)) '{ print $k }')
            [ -n "$tc" ] || break
            run_toolchain "$tc"
        done
    ) >"$out/lane$lane.out" 2>&1 &
done
wait
cat "$out/lane0.out" "$out/lane1.out"

echo "portability: $(( $(date +%s) - start )) s"
$SUM total "$out/all.log"
