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
has "  [ampereone, 4K, v6.18] invariant x1: after set-memory: malformed contiguous group" "$out"
has "    first at va 0xffff000004305000, level 3" "$out"
[ "$(printf '%s\n' "$out" | grep -c '^  diagnostics: none$')" = 1 ] ||
	{ echo "FAIL: patched is not clean"; fail=1; }
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
has "  diagnostics: none (invariants not checked: --no-check-invariants)" "$out"

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
' || fail=1
exit $fail
