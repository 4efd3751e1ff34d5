#!/bin/sh
# Compile matrix for rlx.h: each configuration must compile without a warning (-Werror), link and run.
#   gcc and clang (clang only if installed) x C99 and C++11 x {plain, RLX_STATIC, RLX_NO_SIMD+RLX_NO_THREADS,
#   two translation units with rlx.h included twice, RLX_NO_CUDA+RLX_NO_HIP+RLX_NO_VULKAN}, and in C99 Vulkan only
#   (RLX_NO_CUDA+RLX_NO_HIP) and CUDA only (RLX_NO_VULKAN+RLX_NO_HIP), and where volk.h is
#   installed, RLX_VOLK_EXTERNAL with volk.c built as its own object.
# Usage: tests/compile/matrix.sh [BUILD_DIR]   (default build/compile)
# Prints one line per configuration and ends with `compile: N passed, N failed, N skipped`.
out=${1:-build/compile}
src=$(dirname "$0")
mkdir -p "$out"
case $out in /*) ;; *) out=./$out ;; esac

WARN="-Wall -Wextra -Wpedantic -Werror -Wshadow"
OPT="-O2"
LIBS="-lm -lpthread -ldl"
pass=0 fail=0 skip=0

# try LABEL BINARY COMMAND...: run the build COMMAND, then the BINARY it made
try() {
    label=$1 bin=$2
    shift 2
    rm -f "$bin"
    if "$@" >"$bin.log" 2>&1 && "$bin" >>"$bin.log" 2>&1; then
        pass=$((pass + 1))
        echo "compile: ok   $label"
    else
        fail=$((fail + 1))
        echo "compile: FAIL $label"
        sed 's/^/    /' "$bin.log"
    fi
}

# twice COMPILER STDFLAGS BINARY: both translation units of twice.c, then link them
twice() {
    "$1" $2 $WARN -O0 -c "$src/twice.c" -o "$3.a.o" &&
    "$1" $2 $WARN -O0 -DRLX_TWICE_SECOND_TU -c "$src/twice.c" -o "$3.b.o" &&
    "$1" "$3.a.o" "$3.b.o" -o "$3" $LIBS
}

# volk_external COMPILER STDFLAGS BINARY: volk.c as a C object of its own, rlx.h with RLX_VOLK_EXTERNAL
VOLK_C=/usr/include/volk.c
volk_external() {
    cc_for_volk=gcc; case $1 in clang*) cc_for_volk=clang ;; esac
    "$cc_for_volk" -O2 -c "$VOLK_C" -o "$3.volk.o" &&
    "$1" $2 $WARN -O0 -c "$src/volk_external.c" -o "$3.o" &&
    "$1" "$3.o" "$3.volk.o" -o "$3" $LIBS
}

# matrix NAME CC CXX
matrix() {
    name=$1 cc=$2 cxx=$3
    if ! command -v "$cc" >/dev/null 2>&1 || ! command -v "$cxx" >/dev/null 2>&1; then
        echo "compile: $name not found, skipped"
        skip=$((skip + 1))
        return
    fi
    c="-x c -std=c99"
    cpp="-x c++ -std=c++11"
    # Build time: gcc's optimisation-dependent warnings (-Wmaybe-uninitialized, -Wstringop-*, ...) are checked at
    # -O2 on the plain and RLX_NO_SIMD C builds and the plain C++ build; the other configurations differ only in
    # what the preprocessor keeps or in linkage and build at -O0. clang's warnings come from its front end and do
    # not depend on the optimisation level: every clang configuration builds at -O0.
    o2=$OPT o0=-O0
    case $cc in clang*) o2=-O0 ;; esac
    try "$name C99 plain"                 "$out/$name-c99"        $cc $c $WARN $o2 "$src/rlx.c" -o "$out/$name-c99" $LIBS
    try "$name C99 RLX_STATIC"            "$out/$name-c99-static" $cc $c $WARN $o0 "$src/static.c" -o "$out/$name-c99-static" $LIBS
    try "$name C99 RLX_NO_SIMD+NO_THREADS" "$out/$name-c99-nosimd" $cc $c $WARN $o2 "$src/nosimd.c" -o "$out/$name-c99-nosimd" $LIBS
    try "$name C99 two TUs, included twice" "$out/$name-c99-twice" twice $cc "$c" "$out/$name-c99-twice"
    try "$name C++11 plain (rlx.cc)"      "$out/$name-cxx11"      $cxx -std=c++11 $WARN $o2 "$src/rlx.cc" -o "$out/$name-cxx11" $LIBS
    try "$name C++11 RLX_STATIC"          "$out/$name-cxx11-static" $cxx $cpp $WARN $o0 "$src/static.c" -x none -o "$out/$name-cxx11-static" $LIBS
    try "$name C++11 RLX_NO_SIMD+NO_THREADS" "$out/$name-cxx11-nosimd" $cxx $cpp $WARN $o0 "$src/nosimd.c" -x none -o "$out/$name-cxx11-nosimd" $LIBS
    try "$name C++11 two TUs, included twice" "$out/$name-cxx11-twice" twice $cxx "$cpp" "$out/$name-cxx11-twice"
    try "$name C99 no GPU backends"       "$out/$name-c99-nogpu"  $cc $c $WARN $o0 "$src/nogpu.c" -o "$out/$name-c99-nogpu" $LIBS
    try "$name C++11 no GPU backends"     "$out/$name-cxx11-nogpu" $cxx $cpp $WARN $o0 "$src/nogpu.c" -x none -o "$out/$name-cxx11-nogpu" $LIBS
    try "$name C99 Vulkan only (no CUDA/HIP)" "$out/$name-c99-vkonly" $cc $c $WARN $o0 "$src/vkonly.c" -o "$out/$name-c99-vkonly" $LIBS
    try "$name C99 CUDA only (no Vulkan/HIP)" "$out/$name-c99-cudaonly" $cc $c $WARN $o0 "$src/cudaonly.c" -o "$out/$name-c99-cudaonly" $LIBS
    if [ -f "$VOLK_C" ]; then
        try "$name C99 RLX_VOLK_EXTERNAL" "$out/$name-c99-volk" volk_external $cc "$c" "$out/$name-c99-volk"
        try "$name C++11 RLX_VOLK_EXTERNAL" "$out/$name-cxx11-volk" volk_external $cxx "$cpp" "$out/$name-cxx11-volk"
    else
        echo "compile: $name RLX_VOLK_EXTERNAL skipped: no volk.c (libvulkan-volk-dev)"
        skip=$((skip + 1))
    fi
}

# gcc and clang side by side (each configuration compiles all of rlx.h); their lines are printed in order after.
rm -f "$out/gcc.count" "$out/clang.count"
( matrix gcc gcc g++; echo "$pass $fail $skip" >"$out/gcc.count" ) >"$out/gcc.out" 2>&1 &
( matrix clang clang clang++; echo "$pass $fail $skip" >"$out/clang.count" ) >"$out/clang.out" 2>&1 &
wait
for name in gcc clang; do
    cat "$out/$name.out"
    if [ -f "$out/$name.count" ]; then
        read -r p f s <"$out/$name.count"
        pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
    else
        echo "compile: FAIL $name matrix did not finish"
        fail=$((fail + 1))
    fi
    rm -f "$out/$name.count" "$out/$name.out"
done

# -ffast-math / -ffinite-math-only on the implementation must stop the build with rlx.h's #error (its message
# names the flag), never compile into a program that silently computes wrong results.
fast_math() {
    label=$1
    shift
    if "$@" >"$out/fast-math.log" 2>&1; then
        fail=$((fail + 1))
        echo "compile: FAIL $label: the implementation compiled"
    elif grep -q 'without -ffast-math' "$out/fast-math.log"; then
        pass=$((pass + 1))
        echo "compile: ok   $label (stopped by rlx.h's #error)"
    else
        fail=$((fail + 1))
        echo "compile: FAIL $label: failed without rlx.h's #error"
        sed 's/^/    /' "$out/fast-math.log"
    fi
}
fast_math "gcc -ffast-math stops" gcc -std=c99 -ffast-math -c "$src/rlx.c" -o "$out/fast-math.o"
if command -v clang >/dev/null 2>&1; then
    fast_math "clang -ffinite-math-only stops" clang -std=c99 -ffinite-math-only -c "$src/rlx.c" -o "$out/fast-math.o"
fi

echo "compile: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
