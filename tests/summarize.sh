#!/bin/sh
# Runs test programs and adds up their result lines.
#
#   tests/summarize.sh run LOG NAME COMMAND...
#       Runs COMMAND, shows its output and appends it to LOG. A program that cannot be run, or exits non-zero
#       without reporting a failure (a crash, a sanitizer report after its summary, ...), or prints no
#       `NAME: N passed, N failed, N skipped` line, gets an extra `NAME: 0 passed, 1 failed, 0 skipped` line.
#       The program's LAST such line is its tally (earlier ones, e.g. per-backend lines, are details); it is
#       recorded in LOG as `= NAME: ...`. A `time: NAME: N s` line gives the run's wall time.
#   tests/summarize.sh total LOG...
#       Adds up the tallies of the LOGs and prints
#       `N passed, N failed, N skipped` as its last line; exits non-zero if anything failed.
LINE='^[A-Za-z0-9_.+-]*: [0-9][0-9]* passed, [0-9][0-9]* failed, [0-9][0-9]* skipped$'

case $1 in
run)
    log=$2 name=$3
    shift 3
    tmp=${log}.$$.tmp
    t0=$(date +%s)
    if [ -x "$1" ] || command -v "$1" >/dev/null 2>&1; then
        "$@" >"$tmp" 2>&1
        rc=$?
        echo "time: $name: $(( $(date +%s) - t0 )) s" >>"$tmp"
    else
        echo "$name: $1 was not built" >"$tmp"
        rc=127
    fi
    cat "$tmp"
    cat "$tmp" >>"$log"
    last=$(grep "$LINE" "$tmp" | tail -n 1)
    failed=$(echo "$last" | awk '{ f += $4 } END { print f + 0 }')
    rm -f "$tmp"
    if [ -z "$last" ]; then
        echo "$name: no summary line (exit status $rc)" | tee -a "$log"
        echo "= $name: 0 passed, 1 failed, 0 skipped" >>"$log"
    elif [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
        echo "$name: exit status $rc after reporting no failure" | tee -a "$log"
        echo "= $name: 0 passed, 1 failed, 0 skipped" >>"$log"
    else
        echo "= $last" >>"$log"
    fi
    exit 0
    ;;
total)
    shift
    cat "$@" 2>/dev/null | grep '^= ' | sed 's/^= //' | grep "$LINE" |
        awk '{ p += $2; f += $4; s += $6 } END { printf "%d passed, %d failed, %d skipped\n", p, f, s; exit f > 0 }'
    ;;
*)
    echo "usage: $0 run LOG NAME COMMAND... | $0 total LOG..." >&2
    exit 2
    ;;
esac
