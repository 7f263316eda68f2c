#!/bin/sh
# Text for mail (issue 31 items 3 and 7): reproduce, predict and run fit 80 columns by
# default (--wide keeps the long lines), and each figure that rests on a documented model
# limitation carries its caveat from bench/caveats.c, in the text and in the JSON.
# Usage: check-text-output.sh PTSIM-BENCH SCENARIO-DIR
set -u
bench=$1
scn=$2
fail=0
has() {	# LINE OUTPUT WHAT
	printf '%s\n' "$2" | grep -qxF -- "$1" || { echo "FAIL: $3: no line: $1"; fail=1; }
}
narrow() {	# OUTPUT WHAT
	long=$(printf '%s\n' "$1" | awk 'length($0) > 80')
	[ -z "$long" ] || { echo "FAIL: $2: lines over 80 columns:"; printf '%s\n' "$long" | head -3; fail=1; }
}
pred=$("$bench" predict 2>/dev/null)
narrow "$pred" predict
has "  baseline: mm-unstable, no contpte              1         1    +0.0%        349" "$pred" predict
has "    as v6.9,-contpte_wrprotect_helper,-contpte_clear_helpers,-pte_batch_hint" "$pred" predict
has "  caveat: v6.8 is modelled without contpte (CONFIG_ARM64_CONTPTE came with" "$pred" predict
has "    path (doc/workloads.md, MADV_DONTNEED)" "$pred" predict
[ "$(printf '%s\n' "$pred" | grep -c '^  caveat: v6.8 ')" = 1 ] || { echo "FAIL: the v6.8 caveat is not on one row"; fail=1; }
wide=$("$bench" predict --wide --only lifecycle.altra.dontneed 2>/dev/null)
has "  pred baseline: mm-unstable, no contpte                     1          1     +0.0%        349  v6.8" "$wide" "predict --wide"
has "  caveat: v6.8 is modelled without contpte (CONFIG_ARM64_CONTPTE came with" "$wide" "predict --wide"
# rows without a documented limitation have no caveat
n=$("$bench" predict --only lifecycle.m3.mremap 2>/dev/null | grep -c 'caveat')
[ "$n" = 0 ] || { echo "FAIL: mremap_loop has $n caveats"; fail=1; }

# the whole reproduce report, simulated once (the linear-map rows boot 256 GiB twice: most of
# this test's time): it fits 80 columns, its fit rows' targets wrapped (issue 47), a long id
# on a line of its own, each caveat below its rows
rep=$("$bench" reproduce 2>/dev/null)
narrow "$rep" "reproduce (all rows)"
has "linear_map.ampereone.kernel_tlb_miss_reduction" "$rep" reproduce
has "                             pred      0.285   0.500205  +75.5%  report only" "$rep" reproduce
has "caveat (linear_map.ampereone.kernel_tlb_miss_reduction): a synthetic mix of" "$rep" reproduce
# --wide: a long id on the row's own line (a row that simulates in a tenth of a second)
wide=$("$bench" reproduce --only uffd.android.normal_folio_share_after --wide 2>/dev/null)
has "uffd.android.normal_folio_share_after          pred        0.7   0.375185  -46.4%  MISS [0.7, 1]" "$wide" "reproduce --wide"

run=$("$bench" run "$scn/fork-cow.scn" --features v6.8 --features v6.17 2>/dev/null)
narrow "$run" run
has "  caveat: v6.8 is modelled without contpte (CONFIG_ARM64_CONTPTE came with" "$run" run

# the JSON carries the same caveats, row by row
"$bench" predict --json --only lifecycle.altra.dontneed 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)["rows"][0]
assert len(r["caveats"]) == 2 and r["caveats"][0].startswith("v6.8 is modelled without contpte"), r["caveats"]
' || { echo "FAIL: predict --json caveats"; fail=1; }
"$bench" reproduce --json --only uffd.android. 2>/dev/null | python3 -c '
import json, sys
rows = {r["id"]: r for r in json.load(sys.stdin)["rows"]}
c = rows["uffd.android.normal_folio_share_after"]["caveats"]
assert len(c) == 2 and c[0].startswith("the machine as the publication"), c
assert c[1].startswith("the published share fits only"), c
' || { echo "FAIL: reproduce --json caveats"; fail=1; }
"$bench" reproduce --json --only exec. 2>/dev/null | python3 -c '
import json, sys
rows = json.load(sys.stdin)["rows"]
assert rows and all(r["caveats"] == [] for r in rows), rows
' || { echo "FAIL: reproduce --json: a row without a limitation has a caveat"; fail=1; }
"$bench" run "$scn/fork-cow.scn" --features v6.8 --features v6.17 --json 2>/dev/null | python3 -c '
import json, sys
runs = json.load(sys.stdin)["runs"]
assert len(runs[0]["caveats"]) == 1 and runs[1]["caveats"] == [], [r["caveats"] for r in runs]
' || { echo "FAIL: run --json caveats"; fail=1; }
# reproduce --detail fits 80 columns on a row of each program (issue 47): a long loop path's
# name on a line of its own, each price's reason for its uncertainty below its class; --wide
# keeps one line each
det=$("$bench" reproduce --detail mprotect.m3.t1_speedup 2>/dev/null)
narrow "$det" "reproduce --detail mprotect.m3.t1_speedup"
has "change_pte_range_batched/large_writable" "$det" "reproduce --detail"
has "    an ESTIMATE: +-30 % (doc/cpu-profiles.md §12)" "$det" "reproduce --detail"
for id in uffd.android.clear_flush_share_before exec.grace.cold_speedup; do
	narrow "$("$bench" reproduce --detail $id 2>/dev/null)" "reproduce --detail $id"
done
wide=$("$bench" reproduce --detail mprotect.m3.t1_speedup --wide 2>/dev/null)
printf '%s\n' "$wide" | grep -q '^change_pte_range_batched/large_writable  *0  *0\.000' ||
	{ echo "FAIL: reproduce --detail --wide: a long name not on its row's line"; fail=1; }
# sweep's table fits 80 columns
narrow "$("$bench" sweep "$scn/mprotect-sweep.scn" 2>/dev/null)" sweep
# audit's text fits 80 columns (issue 47): the chain and message wrapped, a line per CPU it
# fires on, the reproducer's machine on two machine lines when one would not fit
aud=$("$bench" audit --scenarios 100 --seed 2 --cpu apple-m3,neoverse-v2 --presets v6.18 2>/dev/null)
narrow "$aud" audit
has "    apple-m3     v6.18" "$aud" audit
has "    machine cpu=neoverse-v2 granule=4K preset=v6.18" "$aud" audit
has "    machine va=48 mem=256M base=2G cpus=1" "$aud" audit
# cpus fits 80 columns, each constant's source below its row (issue 47)
narrow "$("$bench" cpus 2>/dev/null)" cpus
# fit's tables and text fit 80 columns (issue 47)
narrow "$("$bench" fit 2>/dev/null)" fit
# list (CPUs, features, presets, events) fits 80 columns (issue 47)
narrow "$("$bench" list)" list
# every --help fits 80 columns, the command list and each command's (issue 47)
narrow "$("$bench" --help)" "--help"
for cmd in $("$bench" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
	narrow "$("$bench" "$cmd" --help)" "$cmd --help"
	# its synopsis breaks between options, never inside one ("[--bbm" / "L]")
	bad=$("$bench" "$cmd" --help | sed -n '/^usage:/,/^  [a-z]/p' |
		awk '{ o = gsub(/\[/, "["); c = gsub(/\]/, "]"); if (o != c) print }')
	[ -z "$bad" ] || { echo "FAIL: $cmd --help: an option split across lines: $bad"; fail=1; }
done
bad=$("$bench" --help | awk '/^commands:/ { on = 1; next } on { o = gsub(/\[/, "["); c = gsub(/\]/, "]"); if (o != c) print }')
[ -z "$bad" ] || { echo "FAIL: --help: an option split across lines: $bad"; fail=1; }
[ "$("$bench" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/' | wc -l)" -ge 10 ] ||
	{ echo "FAIL: --help lists fewer than 10 commands"; fail=1; }
exit $fail
