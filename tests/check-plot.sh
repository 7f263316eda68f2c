#!/bin/sh
# Usage: check-plot.sh PTSIM-BENCH PTSIM-PLOT SOURCE_ROOT
# ptsim-bench sweep finds the flush_tlb_mm fallback of the example sweep, and
# each picture tools/ptsim-plot draws renders: a well-formed SVG holding the
# series it was asked for. Skips (77) without gnuplot.
set -eu
bench="$1"
plot="$2"
root="$3"
command -v gnuplot >/dev/null 2>&1 || { echo "gnuplot not found: pictures not checked (apt-get install gnuplot-nox)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scn="$root/bench/scenarios/mprotect-sweep.scn"
fail=0
not_ok() { echo "not ok: $*"; fail=1; }

# The sweep: N1 without FEAT_TLBIRANGE falls back to flush_tlb_mm at 512 pages (32 64K folios),
# so mprotect of 32 folios costs less than of 30, and from there grows again.
"$bench" sweep "$scn" --values 28..36+2 --checkpoint mprotect --csv > "$tmp/s.csv"
python3 - "$tmp/s.csv" <<'PY' || fail=1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t = {int(r['n']): float(r['ns']) for r in rows}
assert sorted(t) == [28, 30, 32, 34, 36], t
assert t[28] < t[30] and t[32] < t[30] and t[32] < t[34] < t[36], t
assert all(int(r['tlbi_asid']) == (1 if int(r['n']) >= 32 else 0) for r in rows), rows
print("ok: sweep: mprotect falls from %.0f to %.0f ns at the 512-page fallback" % (t[30], t[32]))
PY
"$bench" sweep "$scn" --values 4,40 --json > "$tmp/s.json"
"$bench" run "$root/bench/scenarios/fork-cow.scn" --features v6.8 --features v6.12 --json > "$tmp/r.json"
"$bench" run "$root/bench/scenarios/fork-cow.scn" --cpu neoverse-n1,apple-m3 --json > "$tmp/c.json"
"$bench" reproduce --only mprotect. --json > "$tmp/rep.json"

# kind, input, text every picture of that kind must show
check() {
	kind=$1 in=$2
	shift 2
	for ext in svg png; do
		out="$tmp/$kind.$ext"
		if ! "$plot" "$kind" "$in" -o "$out"; then
			not_ok "$kind $ext: ptsim-plot failed"; continue
		fi
		[ -s "$out" ] || { not_ok "$kind.$ext is empty"; continue; }
	done
	python3 - "$tmp/$kind.svg" "$@" <<'PY' || not_ok "$kind.svg"
import sys, xml.etree.ElementTree as ET
tree = ET.parse(sys.argv[1])
text = ' '.join(t for t in tree.getroot().itertext())
missing = [w for w in sys.argv[2:] if w not in text]
assert not missing, f"missing {missing}"
PY
	head -c 8 "$tmp/$kind.png" | od -An -c | grep -q 'P   N   G' || not_ok "$kind.png is not a PNG"
}
check sweep "$tmp/s.json" "neoverse-n1: mprotect" "neoverse-n1: populate" '$n' "predicted time (us)"
check events "$tmp/r.json" v6.8 v6.12 mapcount_atomic "other events" "predicted time (us)" \
	"checkpoint exit"
# events: the checkpoint asked for, its N largest events and the rest as one bar (issue 47)
"$plot" events "$tmp/r.json" -o "$tmp/top.svg" --checkpoint cow --top 3
python3 - "$tmp/top.svg" <<'PY' || not_ok "events --checkpoint cow --top 3"
import re, sys, xml.etree.ElementTree as ET
texts = [t.strip() for t in ET.parse(sys.argv[1]).getroot().itertext() if t.strip()]
assert any('checkpoint cow: the 3 largest' in t for t in texts), texts
events = [t for t in texts if re.fullmatch(r'[a-z][a-z_0-9]*', t) and not t.startswith(('v6', 'gnuplot'))]
assert len(events) == 3, events
assert any(t.startswith('other events (') for t in texts), texts
PY
check cpus "$tmp/c.json" neoverse-n1 apple-m3 exit
check calibration "$tmp/rep.json" mprotect.m3.t1_speedup "error (%)"

# reproduce --svg: nothing clamped, so the uffd rows missing by different amounts sit apart
"$bench" reproduce --only uffd. --svg "$tmp/rep.svg" > /dev/null || true
python3 - "$tmp/rep.svg" <<'PY' || not_ok "reproduce --svg"
import re, sys
svg = open(sys.argv[1]).read()
title = svg.split('</text>')[0]
assert re.search(r'libptsim [0-9.]+ \((unknown|[0-9a-f]{7,}[-a-z]*)\)', title), 'no version and commit in the title'
labels = re.findall(r'<text x="(\d+)" y="\d+" fill="[^"]+">([-+][0-9.]+)%</text>', svg)
assert len(labels) >= 3, labels
pos = {}
for x, v in labels:
    pos.setdefault(v, set()).add(x)
xs = [min(p) for v, p in sorted(pos.items(), key=lambda kv: float(kv[0]))]
assert all(int(a) < int(b) for a, b in zip(xs, xs[1:])), f"errors share a place: {labels}"
PY

# reproduce --detail ID --svg: the row's own picture (issue 47; it drew the calibration chart
# of one row): its time by kind of work and its largest events, the total as --detail's
"$bench" reproduce --detail mprotect.m3.t1_speedup --svg "$tmp/det.svg" > /dev/null 2>&1 ||
	not_ok "reproduce --detail --svg exited non-zero"
"$bench" reproduce --detail mprotect.m3.t1_speedup --json > "$tmp/det.json" 2>/dev/null
python3 - "$tmp/det.svg" "$tmp/det.json" <<'PY' || not_ok "reproduce --detail --svg"
import json, sys, xml.etree.ElementTree as ET
texts = [t.strip() for t in ET.parse(sys.argv[1]).getroot().itertext() if t.strip()]
for want in ("total", "per-folio work", "page tables and TLB", "dsb_ish", "after (PTE batching)"):
    assert want in texts, (want, texts)
assert not any("error" in t for t in texts), texts
p = json.load(open(sys.argv[2]))["detail"]["before_parts"]
total = p["loop_ns"] + p["serial_ns"] + p["miss_ns"] + p["rest_ns"]
i = texts.index("total")
assert texts[i + 1] == "%.3f" % (total / 1e6), (texts[i + 1], total)
PY

# bad use: a missing file, a wrong suffix, a run with one kernel for events
"$plot" sweep "$tmp/none.json" -o "$tmp/x.svg" 2>/dev/null && not_ok "a missing input succeeded"
"$plot" sweep "$tmp/s.json" -o "$tmp/x.pdf" 2>/dev/null && not_ok "a .pdf output succeeded"
"$bench" run "$root/bench/scenarios/fork-cow.scn" --json > "$tmp/one.json"
"$plot" events "$tmp/one.json" -o "$tmp/x.svg" 2>/dev/null && not_ok "events of one kernel succeeded"
[ $fail = 0 ] || exit 1
echo "ok: sweep, events, cpus and calibration render as SVG and PNG with their series"
