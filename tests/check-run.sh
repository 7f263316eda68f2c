#!/bin/sh
# ptsim-bench run: the invariant checker runs after each operation, each distinct
# diagnostic is printed once with its CPU/granule/kernel label and counted per kind,
# and --check exits 3 on one (issue 31 item 1).
# Usage: check-run.sh PTSIM-BENCH SCENARIO-DIR
set -u
bench=$1
scn=$2
fail=0
# has LINE OUTPUT: LINE exactly as one line of OUTPUT
has() {
	printf '%s\n' "$2" | grep -qxF -- "$1" || { echo "FAIL: no line: $1"; printf '%s\n' "$2" | head -40; fail=1; }
}
klm="$scn/kernel-linear-map.scn"

# the v6.18 finding of doc/findings.md §2, labelled, counted; the 2026 fix has none
out=$("$bench" run "$klm" --features v6.18 --features patched 2>/dev/null)
got=$?
[ "$got" = 0 ] || { echo "FAIL: run kernel-linear-map.scn -> $got (want 0 without --check)"; fail=1; }
has "  diagnostics: invariant 1" "$out"
has "  [ampereone, 4K, v6.18] invariant x1" "$out"
has "    after set-memory: malformed contiguous group" "$out"
has "    first at va 0xffff000004305000, level 3, line 11 (set-memory) after checkpoint boot" "$out"
# the answer first (issue 47): per CPU the checkpoints' times on each kernel in a unit that
# suits them, the speed-up beside each, the whole scenario's, each run's diagnostics; the
# verdict; then the runs that had diagnostics, and the per-event diff
has "ampereone, 4K              v6.18         patched" "$out"
has "  set-memory            5.553 us 5.564 us x0.998" "$out"
has "  whole scenario        6.557 us 6.568 us x0.998" "$out"
has "  diagnostics                  1            none" "$out"
has "verdict: 1 diagnostic (listed below; run --check exits 3 on one)" "$out"
[ "$(printf '%s\n' "$out" | head -1)" = "ampereone, 4K              v6.18         patched" ] ||
	{ echo "FAIL: run does not begin with its summary"; fail=1; }
[ "$(printf '%s\n' "$out" | grep -c 'diagnostics: ')" = 1 ] ||
	{ echo "FAIL: a run without diagnostics is listed"; fail=1; }
# --verbose: each run's checkpoints with their counts, the times side by side
verbose=$("$bench" run "$klm" --features v6.18 --features patched --verbose 2>/dev/null)
[ "$(printf '%s\n' "$verbose" | grep -c '^  diagnostics: none$')" = 1 ] ||
	{ echo "FAIL: --verbose: patched is not clean"; fail=1; }
has "  checkpoint       kernel                        time (us)  speed-up vs v6.18" "$verbose"
has "                   patched                           5.564  x0.998" "$verbose"
has "v6.18 -> patched on ampereone, 4K: per event" "$out"
has "  set-memory: v6.18 -> patched" "$out"
has "  event                       before      after      delta   ratio before  after" "$out"
has "  pte_write                     1971       1987        +16   1.008   23.7   23.8" "$out"
has "  (15 more events counted the same; 76.2% of the time after)" "$out"
has "  time (us)                    5.553      5.564     +0.011   1.002" "$out"
has "  speed-up (before / after): x0.998" "$out"
# two CPUs compared (--verbose): A and B, named above the table, not before and after
cpus=$("$bench" run "$scn/fork-cow.scn" --cpu apple-m3,neoverse-n1 --verbose 2>/dev/null)
has "  fault-in: A = apple-m3, B = neoverse-n1" "$cpus"
has "  event                            A          B      delta   ratio      A      B" "$cpus"
printf '%s\n' "$cpus" | grep -q '^  speed-up (A / B): x' || { echo "FAIL: no speed-up (A / B)"; fail=1; }
! printf '%s\n' "$cpus" | grep -q 'before / after' || { echo "FAIL: CPUs labelled before/after"; fail=1; }
# text fits 80 columns, also with two CPUs and two kernels, and with --verbose
two="$scn/fork-cow.scn --cpu apple-m3,neoverse-n1 --features v6.8 --features v6.17"
# shellcheck disable=SC2086 # the options are words
wide=$("$bench" run $two 2>/dev/null)
# shellcheck disable=SC2086
verbose=$("$bench" run $two --verbose 2>/dev/null)
long=$(printf '%s\n%s\n' "$wide" "$verbose" | awk 'length($0) > 80')
[ -z "$long" ] || { echo "FAIL: run lines over 80 columns:"; printf '%s\n' "$long" | head -5; fail=1; }
[ "$(printf '%s\n%s\n' "$wide" "$verbose" | grep -c ' $')" = 0 ] ||
	{ echo "FAIL: run prints trailing spaces"; fail=1; }
has "neoverse-n1, 4K             v6.8           v6.17" "$wide"
has "  exit                  1.683 ms 725.0 us x2.321" "$wide"
# with kernels compared, the text ends with its answer again (issue 47: on the last screen)
tail=$(printf '%s\n' "$wide" | tail -4)
has "the answer (summary at the top): the whole scenario, each kernel against v6.8" "$tail"
has "  neoverse-n1, 4K: v6.17 x0.818" "$tail"
[ "$(printf '%s\n' "$wide" | tail -1)" = "verdict: no diagnostics in 4 runs" ] ||
	{ echo "FAIL: run does not end with its verdict"; fail=1; }
has "verdict: no diagnostics in 4 runs" "$wide"
has "apple-m3 -> neoverse-n1 on v6.17, 4K: per event" "$verbose"
has "  fork: v6.8 -> v6.17" "$wide"
has "  (loop prices)                                                       5.7    1.9" "$verbose"
# a comparison lists its ten events of the largest share, largest first (--events all: all)
printf '%s\n' "$wide" | awk '/^  fork: v6.8 -> v6.17$/ { on = 1; next } on && /^  \(/ { exit }
	on && /^  [a-z_]+ +[0-9]/ { n++; m = $6 + 0 > $7 + 0 ? $6 + 0 : $7 + 0
	if (n > 1 && m > last) bad = 1; last = m } END { exit !(n == 10 && !bad) }' ||
	{ echo "FAIL: fork's diff: not its ten largest shares in order"; fail=1; }
has "  (5 more events changed; 0.6% of the time after: --events all)" "$wide"
# shellcheck disable=SC2086
all=$("$bench" run $two --events all 2>/dev/null)
has "  pte_read                     32768      19456     -13312   0.594    6.5    4.7" "$all"
[ "$(printf '%s\n' "$all" | grep -c 'more events changed')" = 0 ] ||
	{ echo "FAIL: --events all leaves events out"; fail=1; }
"$bench" run "$scn/fork-cow.scn" --events 0 > /dev/null 2>&1
[ $? = 2 ] || { echo "FAIL: --events 0 is not a usage error"; fail=1; }
# --wide --verbose: each checkpoint's events on one line
n=$("$bench" run "$scn/fork-cow.scn" --wide --verbose 2>/dev/null | grep -c '^      pte_read=')
[ "$n" = 5 ] || { echo "FAIL: --wide: $n event lines (want 5)"; fail=1; }
[ "$("$bench" run "$scn/fork-cow.scn" --wide --verbose 2>/dev/null | grep -c '^      [a-z]')" = 5 ] ||
	{ echo "FAIL: --wide wraps"; fail=1; }
# no backtraces on stderr
err=$("$bench" run "$klm" --features v6.18 2>&1 >/dev/null | grep -v '^ptsim-bench: running ')
[ -z "$err" ] || { echo "FAIL: run writes diagnostics to stderr:"; printf '%s\n' "$err" | head; fail=1; }

# --check: exit 3, one line on stderr; a clean run exits 0
err=$("$bench" run "$klm" --features v6.18 --check 2>&1 >/dev/null | grep -v '^ptsim-bench: running ')
"$bench" run "$klm" --features v6.18 --check >/dev/null 2>&1
got=$?
[ "$got" = 3 ] || { echo "FAIL: run --check with a diagnostic -> $got (want 3)"; fail=1; }
[ "$err" = "run: --check: 1 diagnostic" ] || { echo "FAIL: run --check stderr: $err"; fail=1; }
"$bench" run "$klm" --features patched --check >/dev/null 2>&1
got=$?
[ "$got" = 0 ] || { echo "FAIL: run --check, clean -> $got (want 0)"; fail=1; }

# --no-check-invariants: the checker does not run, and says so
out=$("$bench" run "$klm" --features v6.18 --no-check-invariants --check 2>/dev/null)
got=$?
[ "$got" = 0 ] || { echo "FAIL: --no-check-invariants --check -> $got (want 0)"; fail=1; }
has "verdict: no diagnostics in 1 run (invariants not checked: --no-check-invariants)" "$out"

# the JSON carries the counts per kind and each finding with its count
"$bench" run "$klm" --features v6.18 --features patched --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
a, b = d["runs"]
assert a["invariants_checked"] is True, a
assert a["diagnostics"] == {"invariant": 1, "bbm-violation": 0, "tlb-conflict": 0, "warn": 0,
                            "bbm-conflict-risk": 0}, a["diagnostics"]
assert [(f["kind"], f["count"], f["chain"]) for f in a["findings"]] == \
    [("invariant", 1, "after set-memory: malformed contiguous group")], a["findings"]
assert sum(b["diagnostics"].values()) == 0 and b["findings"] == [], b
c = d["comparisons"]
assert [x["checkpoint"] for x in c] == ["boot", "set-memory"], c
sm = c[1]
assert sm["before"]["label"] == "v6.18" and sm["after"]["label"] == "patched", sm
ev = {e["event"]: e for e in sm["events"]}
assert ev["pte_write"]["before"] == 1971 and ev["pte_write"]["after"] == 1987 and ev["pte_write"]["delta"] == 16, ev["pte_write"]
assert abs(sm["speedup"] - sm["before"]["ns"] / sm["after"]["ns"]) < 1e-12, sm
' || fail=1
exit $fail
