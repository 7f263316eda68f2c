#!/bin/sh
# ptsim-bench merge refuses what would count a campaign wrong (issue 40 items 5 and 15): the
# same shard twice, shards of one campaign split different ways, an incomplete set, another
# command's output, an unknown schema version, counts that are not whole 64-bit numbers, and
# a \u0000 that would cut a name short; counts add up exactly.
set -u
bench=$1
fail=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# run NAME SCENARIOS SEED K N [COMMAND [VERSION [GROUPS]]]: an audit --json output by hand
run() {
	printf '{"schema_version": %s, "ptsim_version": "0", "command": "%s", "scenarios": %s, "seed": %s, "shard": [%s, %s], "groups": [%s]}\n' \
		"${7:-1}" "${6:-audit}" "$2" "$3" "$4" "$5" "${8:-}" > "$dir/$1.json"
}
# expect STATUS TEXT FILE...: exit status, and TEXT (fixed) in the output
expect() {
	want=$1 line=$2
	shift 2
	out=$(cd "$dir" && "$bench" merge "$@" 2>&1)
	got=$?
	if [ "$got" != "$want" ] || ! printf '%s\n' "$out" | grep -qF -- "$line"; then
		echo "FAIL: merge $* -> status $got (want $want), want: $line"
		printf '%s\n' "$out" | head -5
		fail=1
	fi
}
run a1 30 5 1 2
run a2 30 5 2 2
run b1 30 5 1 3
run c1 10 7 1 1
run w1 30 5 1 2 run
run v9 30 5 1 2 audit 9
run neg -3 5 1 2
run big 18446744073709551615 8 1 1
run big2 1 9 1 1
run frac 2.5 5 1 2
run k0 30 5 0 2
group='{"kind": "bbm_violation", "chain": "a\u0000b", "message": "m", "fires": {}, "first_scenario": 0, "found_on": {"cpu": "apple-m3"}, "scenario": "s"}'
run nul 30 11 1 1 audit 1 "$group"

expect 0 '"command": "merge", "runs": 2, "scenarios": 60, "seed": 5, "groups": [' a1.json a2.json --json
# text by default, as audit prints it (issue 47)
expect 0 "60 random scenarios, every one on each CPU and kernel: 0 groups" a1.json a2.json
expect 0 "  merged from 2 runs; seed 5: --seed 5 runs the same scenarios" a1.json a2.json
expect 1 "merge: a1.json and a1.json: the same shard 1/2 of seed 5 twice" a1.json a1.json a2.json
expect 1 "merge: a1.json and b1.json: one campaign (seed 5) in 2 and in 3 shards" a1.json b1.json
expect 1 "merge: the campaign of seed 5 has 1 of its 2 shards; missing: 2/2" a1.json
expect 1 "merge: the campaign of seed 5 has 1 of its 2 shards; missing: 2/2" c1.json a1.json
expect 1 "merge: w1.json: not the --json output of ptsim-bench audit" w1.json
expect 1 "merge: v9.json: a schema_version this merge does not read (it reads 1)" v9.json
expect 1 "merge: neg.json: scenarios and seed must be whole numbers from 0 to 2^64 - 1" neg.json
expect 1 "merge: frac.json: scenarios and seed must be whole numbers from 0 to 2^64 - 1" frac.json
expect 1 "merge: k0.json: shard must be [K, N] with 1 <= K <= N" k0.json
expect 1 "merge: big2.json: the scenarios add up past 2^64 - 1" big.json big2.json
expect 0 '"command": "merge", "runs": 1, "scenarios": 18446744073709551615, "seed": 8, "groups": [' --json big.json
expect 1 'merge: nul.json: not JSON: offset 160: \u0000 in a string' nul.json
# an option is refused, not read as a file (issue 47: --wide was taken for a file name)
expect 2 "merge: unknown option --wide (merge takes --json and the --json outputs of audit runs)" --wide a1.json a2.json
expect 2 "merge: unknown option -x (merge takes --json and the --json outputs of audit runs)" a1.json -x
# separate campaigns (different seeds) join, each complete
expect 0 '"command": "merge", "runs": 3, "scenarios": 70, "seed": null, "groups": [' a1.json a2.json c1.json --json
expect 0 "  merged from 3 runs of several campaigns (seeds)" a1.json a2.json c1.json
exit $fail
