#!/bin/sh
# ptsim-bench predict: every row replays a publication and carries its source,
# citation, published numbers and the model's; the simulated values are
# computed from the counts and the CPU profile (another profile moves them,
# the published numbers stay), and nothing is fitted on the rows.
set -u
bench=$1
python3=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
"$bench" predict --json > "$out/a.json" 2> "$out/a.err" || { echo "FAIL: predict --json"; fail=1; }
"$bench" predict --json --cpu ampereone > "$out/b.json" 2> "$out/b.err" ||
	{ echo "FAIL: predict --json --cpu ampereone"; fail=1; }
"$bench" predict > "$out/a.txt" 2> /dev/null || { echo "FAIL: predict"; fail=1; }
# The only stderr is the progress lines: a diagnostic of the model is a failure.
if grep -v '^ptsim-bench: simulating ' "$out/a.err" "$out/b.err" | grep -q .; then
	echo "FAIL: unexpected output on stderr:"
	grep -v '^ptsim-bench: simulating ' "$out/a.err" "$out/b.err" | head -5
	fail=1
fi
"$python3" - "$out/a.json" "$out/b.json" "$out/a.txt" <<'PY' || fail=1
import json, sys
a = json.load(open(sys.argv[1]))["rows"]
b = {r["id"]: r for r in json.load(open(sys.argv[2]))["rows"]}
text = open(sys.argv[3]).read()
bad = []
def check(cond, what):
    if not cond:
        bad.append(what)
want = {
    "lifecycle.altra.fork_1g_pte_mapped_thp", "lifecycle.altra.munmap_1g_pte_mapped_thp",
    "lifecycle.altra.dontneed_1g_pte_mapped_thp", "lifecycle.m3.mremap_loop",
    "lifecycle.x1.mlock_loop_young_dirty", "lifecycle.x1.mlock_loop_one_young",
    "lifecycle.x1.mlock_loop_old_clean", "lifecycle.m3.mprotect_none_to_rw_toggle",
    "lifecycle.x1.pageout_lazyfree_128m_64k", "lifecycle.m3.pageout_swap_256m_64k",
}
check({r["id"] for r in a} == want, "row ids: %s" % sorted(r["id"] for r in a))
computed = 0
for r in a:
    i = r["id"]
    for k in ("source", "citation", "cpu", "published_cpu", "workload", "timed", "metric"):
        check(isinstance(r.get(k), str) and r[k], "%s: %s" % (i, k))
    # a message-id, or the list archive's page where the publication has none in the index
    check("<" in r["citation"] and ("@" in r["citation"] or "<https://lkml." in r["citation"]),
          "%s: citation has no message-id or archive address" % i)
    check(r["role"] == "prediction" and r["target"] is None, "%s: role/target" % i)
    check(r["cpu"] == r["published_cpu"], "%s: default CPU is the publication's" % i)
    check(i in text, "%s: not in the text output" % i)
    # the machine before the workload: its frames, its caches and the publication's reason
    mc = r.get("machine") or {}
    check(mc.get("phys") in ("sequential", "fragmented", "shuffled") and
          mc.get("caches") in ("warm", "cold") and mc.get("why"), "%s: machine state" % i)
    vs = r["variants"]
    check(len(vs) >= 2, "%s: fewer than two kernels" % i)
    for v, w in zip(vs, b[i]["variants"]):
        check(isinstance(v["published"], (int, float)) and v["published"] > 0,
              "%s %s: published" % (i, v["kernel"]))
        check(v["published"] == w["published"], "%s %s: published moved with the CPU" % (i, v["kernel"]))
        if v["status"] != "ok":
            check(v["status"].startswith("needs feature "), "%s %s: status" % (i, v["kernel"]))
            check(v["simulated"] is None and v["ns"] is None, "%s %s: skipped has values" % (i, v["kernel"]))
            continue
        check(v["ns"] > 0, "%s %s: ns" % (i, v["kernel"]))
        check(v["ns"] != w["ns"], "%s %s: another CPU profile gives the same time" % (i, v["kernel"]))
        if v["simulated"] is None:
            continue
        computed += 1
        e = 100 * (v["simulated"] - v["published"]) / v["published"]
        check(abs(e - v["error_pct"]) < 1e-3 * max(1, abs(e)), "%s %s: error_pct" % (i, v["kernel"]))
        if r["metric"] == "seconds":
            check(abs(v["simulated"] - v["ns"] / 1e9) <= 1e-5 * v["simulated"], "%s: seconds" % i)
        if r["metric"].startswith("microseconds"):
            check(abs(v["simulated"] - v["ns"] / 1e3) <= 1e-5 * v["simulated"], "%s: us" % i)
    s = r["speedup"]
    check(abs(s["published"] - vs[0]["published"] / vs[-1]["published"]) < 1e-4 * s["published"],
          "%s: published speed-up" % i)
    if s["simulated"] is not None:
        check(abs(s["simulated"] - vs[0]["ns"] / vs[-1]["ns"]) < 1e-4 * s["simulated"],
              "%s: simulated speed-up" % i)
# the kernel pairs are the publications' (doc/workloads.md §lifecycle)
k = {r["id"]: [v["kernel"] for v in r["variants"]] for r in a}
check(k["lifecycle.m3.mremap_loop"] == ["v6.16", "v6.16,+mremap_pte_batching"], "mremap pair")
check(k["lifecycle.x1.mlock_loop_young_dirty"] == ["v6.16", "v6.16,+contpte_get_early_exit"],
      "mlock pair")
check(k["lifecycle.m3.mprotect_none_to_rw_toggle"] == ["v6.18", "v6.18,+arm64_pte_needs_flush"],
      "mprotect pair")
check(k["lifecycle.x1.pageout_lazyfree_128m_64k"] == ["v6.16,-lazyfree_unmap_batching", "v6.16"],
      "pageout pair")
check(k["lifecycle.altra.fork_1g_pte_mapped_thp"][0] == "v6.9,-arm64_contpte", "contpte v5 baseline")
check(all(v["status"] == "ok" for r in a for v in r["variants"]), "a kernel was skipped")
check(computed >= 14, "only %d simulated values computed" % computed)
for x in bad:
    print("FAIL:", x)
sys.exit(1 if bad else 0)
PY
# --cpu takes a profile name; --only a prefix.
"$bench" predict --cpu nosuch > /dev/null 2>&1; [ $? = 2 ] || { echo "FAIL: --cpu nosuch"; fail=1; }
n=$("$bench" predict --json --only lifecycle.x1.mlock 2>/dev/null | grep -c '"id"')
[ "$n" = 3 ] || { echo "FAIL: --only lifecycle.x1.mlock gave $n rows"; fail=1; }
exit $fail
