#!/bin/sh
# speed's text fits 80 columns (issue 47): the simulated and the native mprotect tables, the
# notes and the goals, each goal with its verdict. The long suite's: one run takes half a
# minute.
# Usage: check-speed-text.sh PTSIM-BENCH
set -u
out=$("$1" speed --best-of 1 2>/dev/null) || { echo "FAIL: speed exited $?"; exit 1; }
fail=0
long=$(printf '%s\n' "$out" | awk 'length($0) > 80')
[ -z "$long" ] || { echo "FAIL: speed: lines over 80 columns:"; printf '%s\n' "$long" | head -3; fail=1; }
printf '%s\n' "$out" | grep -q '^ *nat cpu s  *nat wall s  *sim/nat$' ||
	{ echo "FAIL: speed: no native table"; fail=1; }
printf '%s\n' "$out" | grep -q '^goal  *clock  *now  *target verdict$' ||
	{ echo "FAIL: speed: no goals table"; fail=1; }
# every goal row ends in its verdict
n=$(printf '%s\n' "$out" | awk '/^goal / { on = 1; next } on && NF' | grep -cvE ' (pass|FAIL|-)$')
[ "$n" = 0 ] || { echo "FAIL: speed: $n goal rows without a verdict"; fail=1; }
exit $fail
