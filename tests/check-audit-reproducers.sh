#!/bin/sh
# Every reproducer a short audit prints is a scenario file that parses and, run again with
# `ptsim-bench run --findings` on the CPU and kernel of its machine line, raises the finding
# it was printed for (doc/scenario.md, "Audit").
set -eu
bench=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bench" audit --scenarios 500 --seed 2 --cpu apple-m3,neoverse-v2,ampereone --presets v6.18 \
	--reproducers "$dir/repro" --json > "$dir/audit.json"
python3 - "$bench" "$dir" <<'PY'
import json, os, subprocess, sys
bench, d = sys.argv[1], sys.argv[2]
groups = json.load(open(os.path.join(d, "audit.json")))["groups"]
kinds = {g["kind"] for g in groups}
assert {"bbm-violation", "bbm-conflict-risk", "invariant"} <= kinds, kinds
files = sorted(os.listdir(os.path.join(d, "repro")))
assert files == ["%02d.scn" % i for i in range(1, len(groups) + 1)], files
for g, name in zip(groups, files):
    path = os.path.join(d, "repro", name)
    text = open(path).read()
    head = "# finding: %s %s\n" % (g["kind"], g["chain"])
    assert text.startswith(head), (path, text[:300])
    # the file holds the scenario the audit printed, after its two comment lines
    assert text.split("\n", 2)[2] == g["scenario"], path
    r = subprocess.run([bench, "run", path, "--findings", "--json"], capture_output=True, text=True)
    assert r.returncode == 0, (path, r.returncode, r.stderr)
    runs = json.loads(r.stdout)["runs"]
    assert len(runs) == 1 and runs[0]["error"] is None, (path, runs)
    found = [(f["kind"], f["chain"]) for f in runs[0]["findings"]]
    assert (g["kind"], g["chain"]) in found, (path, found)
print("ok:", len(groups), "reproducers run again and raise their findings")
PY
