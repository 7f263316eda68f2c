#!/bin/sh
# The test run's cache of simulated results (bench/sim_cache.h, issue 47): a
# process reads back what another simulated and prints the same bytes; a
# file cut short or of another size is simulated again and kept whole; with
# PTSIM_BENCH_SIM_CACHE unset nothing is kept.
# Usage: check-sim-cache.sh PTSIM-BENCH
set -u
bench=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
only=lifecycle.m3.mprotect_none_to_rw_toggle
unset PTSIM_BENCH_SIM_CACHE
"$bench" predict --json --only "$only" > "$dir/plain.json" 2>/dev/null || { echo "FAIL: predict"; fail=1; }
[ -z "$(ls "$dir" | grep -v '\.json$')" ] || { echo "FAIL: a file kept with the cache unset"; fail=1; }
cache=$dir/cache
PTSIM_BENCH_SIM_CACHE=$cache "$bench" predict --json --only "$only" > "$dir/first.json" 2> "$dir/first.err" ||
	{ echo "FAIL: predict with the cache"; fail=1; }
n=$(ls "$cache" 2>/dev/null | wc -l)
[ "$n" = 2 ] || { echo "FAIL: $n files kept, want 2 (one per kernel)"; fail=1; }
PTSIM_BENCH_SIM_CACHE=$cache "$bench" predict --json --only "$only" > "$dir/second.json" 2>/dev/null ||
	{ echo "FAIL: predict from the cache"; fail=1; }
cmp -s "$dir/plain.json" "$dir/first.json" || { echo "FAIL: the first run differs from one without the cache"; fail=1; }
cmp -s "$dir/first.json" "$dir/second.json" || { echo "FAIL: the run from the cache differs"; fail=1; }
# a file cut short: not read, simulated again, kept whole
f=$(ls "$cache"/*.bin | head -1)
size=$(wc -c < "$f")
head -c 100 "$f" > "$f.cut" && mv "$f.cut" "$f"
PTSIM_BENCH_SIM_CACHE=$cache "$bench" predict --json --only "$only" > "$dir/third.json" 2>/dev/null ||
	{ echo "FAIL: predict over a cut file"; fail=1; }
cmp -s "$dir/first.json" "$dir/third.json" || { echo "FAIL: a cut file changed the output"; fail=1; }
[ "$(wc -c < "$f")" = "$size" ] || { echo "FAIL: the cut file was not kept whole again"; fail=1; }
[ $fail = 0 ] && echo "ok: the cache gives the same output and survives a cut file"
exit $fail
