#!/bin/sh
# Usage: check-audit.sh PTSIM-BENCH [SCENARIOS]
# The audit finds only the batched-mprotect finding and the v6.18 linear-map finding
# (doc/findings.md), where they belong. With 500 scenarios (the default, the long suite's
# run) it finds both directions of the first and the second; a shorter run (the quick
# suite's 100) must find at least one batched-mprotect violation.
set -eu
scenarios=${2:-500}
out=$("$1" audit --scenarios "$scenarios" --seed 2 --json)
printf '%s\n' "$out" | SCENARIOS=$scenarios python3 -c '
import json, os, sys
d = json.load(sys.stdin)
groups = d["groups"]
mprotect = ("prot_commit_flush_ptes", "change_pte_range", "change_protection", "do_mprotect_pkey")
seen = set()
for g in groups:
    chain, kind, fires = g["chain"], g["kind"], g["fires"]
    if kind.startswith("bbm-"):
        assert any(f in chain for f in mprotect), "unexpected path: %s %s" % (kind, chain)
        direction = "set" if "contiguous bit set" in chain else "cleared" if "contiguous bit cleared" in chain else None
        assert direction, chain
        seen.add((kind, direction))
        for cpu, kernels in fires.items():
            assert "v6.16" not in kernels, "before the batching series: %s" % chain
            assert cpu != "neoverse-v3", "a BBML2-noabort CPU: %s" % chain
            if kind == "bbm-violation":
                assert cpu in ("apple-m3", "neoverse-n1", "android-x1"), cpu
            else:
                assert cpu in ("neoverse-v2", "neoverse-v1"), cpu
    elif kind == "invariant":
        assert "after set-memory" in chain and "contiguous group" in chain, chain
        seen.add(("linear-map", "invariant"))
        for cpu, kernels in fires.items():
            assert "patched" not in kernels and "v6.16" not in kernels and "v6.17" not in kernels, kernels
    else:
        raise AssertionError("unexpected group: %s %s" % (kind, chain))
    assert g["scenario"].startswith("machine "), g["scenario"]
want = {("bbm-violation", "set"), ("bbm-violation", "cleared"), ("bbm-conflict-risk", "set"),
        ("bbm-conflict-risk", "cleared"), ("linear-map", "invariant")}
if os.environ["SCENARIOS"] == "500":
    assert want <= seen, "missing: %s" % (want - seen)
else:
    assert ("bbm-violation", "set") in seen or ("bbm-violation", "cleared") in seen, seen
print("ok:", len(groups), "groups,", d["scenarios"], "scenarios")
'
