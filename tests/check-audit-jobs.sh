#!/bin/sh
# audit --jobs N gives what one process gives for the same seed (issue 32); --shard K/N
# splits the campaign: the shards run disjoint scenarios that add up to the whole, every
# group of the whole run fires in some shard on the same CPUs and kernels, and merge joins
# the shards' outputs into the whole run's groups.
set -eu
bench=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args="--scenarios 90 --seed 2 --cpu apple-m3,neoverse-v2 --presets v6.17,v6.18 --json"
"$bench" audit $args > "$dir/one.json"
"$bench" audit $args --jobs 3 > "$dir/three.json"
cmp "$dir/one.json" "$dir/three.json" || { echo "FAIL: --jobs 3 differs from --jobs 1"; exit 1; }
"$bench" audit $args --shard 1/2 --jobs 2 > "$dir/s1.json"
"$bench" audit $args --shard 2/2 > "$dir/s2.json"
"$bench" merge "$dir/s1.json" "$dir/s2.json" --json > "$dir/merged.json"
# merge's text is audit's: the same groups in the same order, the header's second line aside
"$bench" audit ${args%--json} > "$dir/one.txt"
"$bench" merge "$dir/s1.json" "$dir/s2.json" > "$dir/merged.txt"
[ "$(sed 2d "$dir/one.txt")" = "$(sed 2d "$dir/merged.txt")" ] ||
	{ echo "FAIL: merge's text differs from one audit's"; diff "$dir/one.txt" "$dir/merged.txt"; exit 1; }
grep -qx "  merged from 2 runs; seed 2: --seed 2 runs the same scenarios" "$dir/merged.txt" ||
	{ echo "FAIL: merge's text: no seed line"; exit 1; }
python3 - "$dir" <<'PY'
import json, os, sys
d = sys.argv[1]
one = json.load(open(os.path.join(d, "one.json")))
shards = [json.load(open(os.path.join(d, f))) for f in ("s1.json", "s2.json")]
assert one["groups"], "the campaign finds something to compare"
assert [s["shard"] for s in shards] == [[1, 2], [2, 2]], [s["shard"] for s in shards]
assert sum(s["scenarios"] for s in shards) == one["scenarios"] == 90, [s["scenarios"] for s in shards]
fires = {}
for s in shards:
    for g in s["groups"]:
        assert g["first_scenario"] % 2 == s["shard"][0] - 1, g["first_scenario"]
        f = fires.setdefault((g["kind"], g["chain"]), {})
        for cpu, kernels in g["fires"].items():
            f.setdefault(cpu, set()).update(kernels)
for g in one["groups"]:
    want = {cpu: set(k) for cpu, k in g["fires"].items()}
    assert fires.get((g["kind"], g["chain"])) == want, (g["chain"], fires.get((g["kind"], g["chain"])), want)
assert len(fires) == len(one["groups"]), (len(fires), len(one["groups"]))
merged = json.load(open(os.path.join(d, "merged.json")))
assert merged["runs"] == 2 and merged["scenarios"] == 90 and merged["seed"] == 2, merged
assert merged["groups"] == one["groups"], "merge of the shards differs from the whole run"
print("ok: --jobs 3 as one process;", len(one["groups"]), "groups found again across 2 shards and merged")
PY
