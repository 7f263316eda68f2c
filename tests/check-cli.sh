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
exit $fail
