#!/bin/sh
# Every command's --json is one object of one schema (doc/json.md): schema_version,
# ptsim_version and command first, numbers with all their digits (issue 31 item 7);
# reproduce --detail ID --json is JSON; audit --json prints the seed given, and --seed 0
# audits random scenarios, not one scenario over and over (issue 31 item 8).
# Usage: check-json-schema.sh PTSIM-BENCH SCENARIO-DIR
set -u
bench=$1
scn=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
version=$("$bench" --version | sed 's/.*(libptsim \(.*\))$/\1/')
run() {	# NAME ARGS...: the JSON of ptsim-bench ARGS into $dir/NAME.json
	name=$1
	shift
	"$bench" "$@" > "$dir/$name.json" 2> "$dir/$name.err" || { echo "FAIL: ptsim-bench $* -> $?"; fail=1; }
}
run list list --json
run cpus cpus --json
run reproduce reproduce --json --only mprotect.m3.t3
run detail reproduce --detail mprotect.m3.t3_speedup --json
run predict predict --json --only lifecycle.m3.mprotect
run run run "$scn/kernel-linear-map.scn" --features v6.18 --json
run audit audit --scenarios 150 --seed 0 --cpu ampereone,apple-m3 --presets v6.18 --json
run audit2 audit --scenarios 2 --seed 2 --cpu apple-m3 --presets v6.18 --json
run sweep sweep "$scn/mprotect-sweep.scn" --values 2,4 --json
python3 - "$dir" "$version" <<'PY' || fail=1
import json, os, sys
d, version = sys.argv[1], sys.argv[2]
member = {"list": "cpus", "cpus": "cpus", "reproduce": "rows", "detail": "row", "predict": "rows",
          "run": "runs", "audit": "groups", "audit2": "groups", "sweep": "runs"}
docs = {}
for name, key in member.items():
    doc = json.load(open(os.path.join(d, name + ".json")))
    head = list(doc)[:3]
    assert head == ["schema_version", "ptsim_version", "command"], (name, head)
    assert doc["schema_version"] == 1 and doc["ptsim_version"] == version, (name, doc["ptsim_version"])
    assert doc["command"] == name.rstrip("2").replace("detail", "reproduce"), (name, doc["command"])
    assert key in doc, (name, list(doc))
    docs[name] = doc
# full precision: the simulated figures carry more than 6 significant digits
def digits(x):
    return len(repr(float(x)).replace("-", "").replace(".", "").lstrip("0").split("e")[0])
row = docs["reproduce"]["rows"][0]
assert digits(row["simulated"]) > 6 and digits(row["error_pct"]) > 6, row
# each row states the machine before its workload (bench/machine_state.c)
for r in docs["reproduce"]["rows"] + [docs["detail"]["row"]] + docs["predict"]["rows"]:
    m = r.get("machine"); assert m, (r["id"], list(r))
    assert m["phys"] in ("sequential", "fragmented", "shuffled") and m["caches"] in ("warm", "cold"), r
    assert m["why"].endswith(")") and "doc/workloads.md" in m["why"], m
assert digits(docs["run"]["runs"][0]["checkpoints"][1]["ns"]) > 6, docs["run"]["runs"][0]["checkpoints"]
# run's composed parts add up to each checkpoint's time
for cp in docs["run"]["runs"][0]["checkpoints"]:
    p = cp["parts"]
    assert abs(p["loop_ns"] + p["serial_ns"] + p["miss_ns"] + p["rest_ns"] - cp["ns"]) <= 1e-9 * cp["ns"], cp
    assert p["overlap"] >= 1 and (p["loop_ns"] > 0) == bool(cp["loops"]), cp
assert all(digits(v["ns"]) > 6 for v in docs["predict"]["rows"][0]["variants"]), docs["predict"]["rows"][0]
# --detail ID --json: the row and its events
det = docs["detail"]
assert det["row"]["id"] == "mprotect.m3.t3_speedup", det["row"]
ev = {e["event"]: e for e in det["detail"]["events"]}
assert ev["pte_read"]["before"] > 0 and isinstance(ev["pte_read"]["before"], int), ev["pte_read"]
# the composed prediction's parts add up to the side's total, and name their loop paths
for side in ("before", "after"):
    parts = det["detail"][side + "_parts"]
    total = parts["loop_ns"] + parts["serial_ns"] + parts["miss_ns"] + parts["rest_ns"]
    assert abs(total / det["detail"][side + "_ns"] - 1) < 1e-9, (side, parts)
    assert parts["loops"] and all(l["turns"] > 0 and l["ns"] > 0 for l in parts["loops"]), parts
    assert abs(sum(l["ns"] for l in parts["loops"]) / parts["loop_ns"] - 1) < 1e-9, parts
# the seed as given; seed 0 is a real random stream
assert docs["audit"]["seed"] == 0 and docs["audit2"]["seed"] == 2, (docs["audit"]["seed"], docs["audit2"]["seed"])
kinds = {g["kind"] for g in docs["audit"]["groups"]}
assert {"invariant", "bbm-violation"} <= kinds, kinds
# messages are not cut: the conflict-risk one is over 95 characters
print("ok")
PY
# audit messages whole (they were cut at 95 characters)
"$bench" audit --scenarios 60 --seed 2 --cpu neoverse-v2 --presets v6.18 --json 2>/dev/null |
	python3 -c '
import json, sys
g = [g for g in json.load(sys.stdin)["groups"] if g["kind"] == "bbm-conflict-risk"]
assert g, "no bbm-conflict-risk group"
m = g[0]["message"]
assert len(m) > 95 and m.endswith("so a TLB conflict abort is possible"), m
' || { echo "FAIL: audit message cut"; fail=1; }
exit $fail
