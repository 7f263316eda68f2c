#!/bin/sh
# ptsim-bench's command line: exit statuses and messages for help, version and mistakes.
set -u
bench=$1
fail=0
expect() {	# expect STATUS PATTERN ARGS...: exit status, and PATTERN in the output
	want=$1 pattern=$2
	shift 2
	out=$("$bench" "$@" 2>&1)
	got=$?
	if [ "$got" != "$want" ] || ! printf '%s\n' "$out" | grep -q -- "$pattern"; then
		echo "FAIL: ptsim-bench $* -> status $got (want $want), output:"
		printf '%s\n' "$out" | head -5
		fail=1
	fi
}
expect 0 "ptsim-bench [0-9]" --version
expect 0 "usage: ptsim-bench COMMAND" --help
expect 0 "usage: ptsim-bench reproduce" help reproduce
expect 0 "usage: ptsim-bench reproduce" reproduce --help
expect 0 "usage: ptsim-bench cpus" cpus --help
expect 2 "unknown command reproduc" reproduc
expect 2 "option --svg FILE needs an argument" reproduce --svg
expect 2 "unknown option --bogus" reproduce --bogus
expect 2 "exec.grace.cold_speedup" reproduce --only nosuch.
expect 2 "mprotect.m3.t1_speedup" reproduce --detail nosuch
expect 2 "unknown option --bogus" cpus --bogus
expect 2 "unexpected argument" fit extra
expect 0 "usage: ptsim-bench run FILE" run --help
expect 0 "usage: ptsim-bench audit" audit --help
expect 2 "expected one scenario file" run
expect 1 "cannot read" run /nonexistent.scn
expect 2 "unknown CPU" run /dev/null --cpu nosuch
expect 2 "unknown feature or preset" run /dev/null --features nosuch
expect 2 "needs a number" audit --scenarios x
expect 2 "unknown preset" audit --presets v9.9
# a scenario error names the line and column and what was expected
bad=$(mktemp)
printf 'mm A\nmmap A 1G 2M rw\nmprotect A 1G 2M rww\n' > "$bad"
expect 2 ":3:18: expected a protection" run "$bad"
printf 'mm A\nmprotect A 1G 2M r\n' > "$bad"
expect 1 "line 2: mprotect failed" run "$bad"
printf 'repeat 3\nmm A\n' > "$bad"
expect 2 ":3:1: expected end" run "$bad"
printf 'mm A\nmmap A 1G+$q 2M rw\n' > "$bad"
expect 2 ":2:11: expected a number" run "$bad"
rm -f "$bad"
exit $fail
