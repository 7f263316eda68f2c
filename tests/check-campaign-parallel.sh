#!/bin/sh
# doc/campaigns.md's GNU parallel form, run locally (issue 47): one audit campaign split into
# four shards by `parallel`, merged, gives the groups one process finds, in its order, and
# the same text apart from the line saying how many runs were merged.
# Usage: check-campaign-parallel.sh PTSIM-BENCH
set -eu
bench=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")	# the shards run in another directory
if ! parallel --version 2>/dev/null | grep -q "GNU parallel"; then
	echo "skip: GNU parallel is not installed (Debian: parallel)"
	exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args="--scenarios 90 --seed 2 --cpu apple-m3,neoverse-v2 --presets v6.17,v6.18"
"$bench" audit $args --json > "$dir/one.json" 2>/dev/null
"$bench" audit $args > "$dir/one.txt" 2>/dev/null
# the documented command, with this build's ptsim-bench and this test's campaign
export BENCH="$bench" ARGS="$args"
(cd "$dir" && seq 1 4 | parallel --will-cite -j 2 \
	'"$BENCH" audit $ARGS --shard {}/4 --json > shard-{}.json 2>/dev/null') ||
	{ echo "FAIL: parallel exited $?"; exit 1; }
[ "$(ls "$dir"/shard-*.json | wc -l)" = 4 ] || { echo "FAIL: parallel did not write 4 shards"; exit 1; }
"$bench" merge "$dir"/shard-*.json --json > "$dir/merged.json"
"$bench" merge "$dir"/shard-*.json > "$dir/merged.txt"
python3 - "$dir" <<'PY'
import json, os, sys
d = sys.argv[1]
one = json.load(open(os.path.join(d, "one.json")))
merged = json.load(open(os.path.join(d, "merged.json")))
assert one["groups"], "the campaign finds something to compare"
assert merged["runs"] == 4 and merged["scenarios"] == one["scenarios"] == 90, merged
assert merged["seed"] == 2, merged["seed"]
assert merged["groups"] == one["groups"], "the merged shards' groups differ from one process's"
PY
[ "$(sed 2d "$dir/one.txt")" = "$(sed 2d "$dir/merged.txt")" ] ||
	{ echo "FAIL: the merged text differs from one process's"; diff "$dir/one.txt" "$dir/merged.txt"; exit 1; }
echo "ok: 4 shards by GNU parallel, merged, as one process"
