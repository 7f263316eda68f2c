#!/bin/sh
# A long audit shows a counter on stderr when stderr is a terminal (issue 47): after its first
# second, one line rewritten in place and erased at the end; nothing of it when stderr is a
# file. The terminal is script(1)'s pseudo-terminal.
# Usage: check-progress.sh PTSIM-BENCH
set -u
bench=$1
command -v script > /dev/null || { echo "skip: no script(1)"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args="audit --seconds 2 --cpu apple-m3 --presets v6.18"
fail=0
script -qec "'$bench' $args > '$dir/out.txt'" "$dir/tty.log" > /dev/null 2>&1 ||
	{ echo "FAIL: script: the audit exited non-zero"; exit 1; }
cr=$(printf '\r')
esc=$(printf '\033')
# (the seconds elapsed when it is drawn: on a loaded host a scenario may pass the 2 s)
grep -q "${cr}ptsim-bench: audit: scenario [0-9]*, [0-9]* of 2 s${esc}\[K" "$dir/tty.log" ||
	{ echo "FAIL: no counter on the terminal:"; cat -v "$dir/tty.log" | head -5; fail=1; }
grep -q "${cr}${esc}\[Kptsim-bench: [0-9]* scenarios on 1 kernels" "$dir/tty.log" ||
	{ echo "FAIL: the counter is not erased before the next line"; cat -v "$dir/tty.log" | head -5; fail=1; }
grep -q "random scenarios" "$dir/out.txt" || { echo "FAIL: no audit output"; fail=1; }
"$bench" $args > /dev/null 2> "$dir/err.txt"
! grep -q "$cr" "$dir/err.txt" || { echo "FAIL: a counter in a file:"; cat -v "$dir/err.txt"; fail=1; }
grep -q "^ptsim-bench: auditing until the time is up ...$" "$dir/err.txt" ||
	{ echo "FAIL: the progress lines are gone from the file"; fail=1; }
exit $fail
