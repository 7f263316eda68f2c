#!/bin/sh
# Usage: check-bbm-corpus.sh PTSIM-BENCH DIR
# Runs every hand-written descriptor sequence of DIR (tests/bbm-corpus, each
# file naming the Arm ARM rule it tests and the formal model's verdict) at BBM
# levels 0, 1 and 2, on and off the BBML2-noabort list. Each file checks
# itself with expect lines; ptsim-bench run exits non-zero when one fails.
set -u
bench=$1
dir=$2
fails=0
runs=0
for f in "$dir"/*.scn; do
	for bbm in 0 1 2; do
		for noabort in off on; do
			runs=$((runs + 1))
			if ! out=$("$bench" run "$f" --bbm "$bbm" --noabort "$noabort" 2>&1 >/dev/null); then
				echo "not ok: $f at BBM level $bbm, noabort $noabort:" >&2
				printf '%s\n' "$out" | grep -v '^ptsim-bench: running' >&2
				fails=$((fails + 1))
			fi
		done
	done
done
[ "$runs" -gt 0 ] || { echo "not ok: no sequences in $dir" >&2; exit 1; }
[ "$fails" -eq 0 ] || exit 1
echo "ok: $runs runs of $(ls "$dir"/*.scn | wc -l) sequences, every expectation held"
