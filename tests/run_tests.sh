#!/usr/bin/env bash
# Runs test programs JOBS at a time through tests/summarize.sh. Reads one program per line from standard input,
# `NAME COMMAND [ARG...]` (split at blanks), and prints each one's output in the order of the lines, as soon as
# it and every one before it have finished, so that LOG and the screen read as if they had run one by one.
# Each program's tally goes to LOG as tests/summarize.sh writes it (`= NAME: N passed, N failed, N skipped`).
# Programs that run side by side must not write the same files (the tests name theirs after themselves).
# Usage: ... | tests/run_tests.sh LOG JOBS
set -u
log=$1 jobs=$2
here=$(dirname "$0")
dir=$(mktemp -d "${TMPDIR:-/tmp}/rlx_tests.XXXXXX")
trap 'rm -rf "$dir"' EXIT

n=0 next=0
# running: started programs without a .done file
running() { local k c=0; for ((k = next; k < n; k++)); do [ -f "$dir/$k.done" ] || c=$((c + 1)); done; echo "$c"; }
# flush: print the finished outputs that have no unfinished one before them
flush() {
    while [ "$next" -lt "$n" ] && [ -f "$dir/$next.done" ]; do
        cat "$dir/$next.out"
        cat "$dir/$next.log" >>"$log"
        next=$((next + 1))
    done
}
while read -r name cmd; do
    [ -n "$name" ] || continue
    while [ "$(running)" -ge "$jobs" ]; do
        sleep 0.2
        flush
    done
    i=$n
    # shellcheck disable=SC2086  # the command line is split at blanks on purpose
    ( sh "$here/summarize.sh" run "$dir/$i.log" "$name" $cmd </dev/null >"$dir/$i.out" 2>&1; : >"$dir/$i.done" ) &
    n=$((n + 1))
done
wait
flush
