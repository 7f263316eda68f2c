#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The loop-price file is whole and well formed (doc/loop-prices.md).

Usage: check-loop-prices.py SRCDIR
       check-loop-prices.py SRCDIR --regenerate
The first form checks arch/arm64/hw/loop-prices.json against
tools/prices/loops.py: every loop and variant listed there is priced, with
the points its path was chosen by, on every CPU llvm-mca models, by that
CPU's own model, with its provenance. The second (the opt-in long step)
rebuilds the kernel objects in $PTSIM_KERNEL_TREE, prices them again and
requires the same bytes; without PTSIM_KERNEL_TREE it is skipped (77).
"""

import json
import os
import subprocess
import sys
import tempfile

SKIP = 77
# llvm-mca 19 -mcpu names whose model is another core's (doc/loop-prices.md)
BORROWED = ("apple-", "cortex-x1", "cortex-a78", "neoverse-v3", "cyclone")


def fail(msg):
    print("check-loop-prices: " + msg, file=sys.stderr)
    sys.exit(1)


def check(src):
    sys.path.insert(0, os.path.join(src, "tools", "prices"))
    import loops

    path = os.path.join(src, "arch", "arm64", "hw", "loop-prices.json")
    with open(path) as f:
        data = json.load(f)
    for key in ("kernel", "config", "compiler", "pricer", "call_latency", "cpucaps", "iteration"):
        if key not in data:
            fail("no %s" % key)
    if not data["kernel"].startswith("linux-source-6.12 6.12."):
        fail("kernel %r is not a 6.12 tree" % data["kernel"])
    if not data["pricer"].startswith("llvm-mca: ") or " 19." not in data["pricer"]:
        fail("pricer %r is not llvm-mca 19" % data["pricer"])
    if data["call_latency"] != loops.CALL_LATENCY or data["cpucaps"] != loops.CPUCAPS:
        fail("call latency or cpucaps differ from tools/prices/loops.py: regenerate")
    priced = {loop["name"]: loop for loop in data["loops"]}
    if len(priced) != len(data["loops"]):
        fail("a loop is priced twice")
    wanted = {loop["name"]: loop for loop in loops.LOOPS}
    if set(priced) != set(wanted):
        fail("loops priced %s, listed %s" % (sorted(priced), sorted(wanted)))
    rows = 0
    for name, spec in wanted.items():
        loop = priced[name]
        for key in ("object", "function", "source"):
            if loop[key] != spec[key]:
                fail("%s: %s %r, listed %r" % (name, key, loop[key], spec[key]))
        if loop["head_line"] != spec["head"]:
            fail("%s: head line %r, listed %r" % (name, loop["head_line"], spec["head"]))
        # a loop a later release rewrote is priced from the later kernel, and says so
        if spec.get("later"):
            if not loop.get("kernel", "").startswith("linux-source-7.2 7.2."):
                fail("%s: priced from %r, listed as the later kernel's" % (
                    name, loop.get("kernel")))
        elif "kernel" in loop:
            fail("%s: priced from %r, listed as v6.12's" % (name, loop["kernel"]))
        listed = loops.variants_of(spec)
        if set(loop["variants"]) != set(listed):
            fail("%s: variants %s, listed %s" % (name, sorted(loop["variants"]),
                                                sorted(listed)))
        for vname, v in loop["variants"].items():
            where = "%s/%s" % (name, vname)
            want, contpte = listed[vname]
            if v.get("contpte") is not contpte:
                fail("%s: priced from the %s objects, listed %s" % (
                    where, "contpte" if v.get("contpte") else "other", contpte))
            if v["via"] != [str(p) for p in want.get("via", [])] or \
               v["avoid"] != [str(p) for p in want.get("avoid", [])]:
                fail("%s: priced through other points than listed: regenerate" % where)
            spans = 0
            for r in v["address_ranges"]:
                lo, hi = (int(x, 16) for x in r.split("-"))
                if hi <= lo or (hi - lo) % 4:
                    fail("%s: bad address range %s" % (where, r))
                spans += (hi - lo) // 4
            # an out-of-line body's block starts with the caller's write of x30
            prologue = loops.BODY_PROLOGUE if spec["head"] is None else []
            if v["block"][:len(prologue)] != [p.replace("\t", " ") for p in prologue]:
                fail("%s: the block does not start with %s" % (where, prologue))
            if spans + len(prologue) != v["instructions"] or not v["instructions"]:
                fail("%s: %d instructions, its ranges hold %d" % (where, v["instructions"], spans))
            if len(v["block"]) != v["instructions"]:
                fail("%s: a block of %d lines for %d instructions" % (where, len(v["block"]),
                                                                     v["instructions"]))
            if not v["inlined_into"] or not v["lines"]:
                fail("%s: no provenance" % where)
            if set(v["cpus"]) != {cpu for cpu, _ in loops.MCA_CPUS} | set(loops.OUR_CPUS):
                fail("%s: priced for %s" % (where, sorted(v["cpus"])))
            for cpu in loops.OUR_CPUS:
                p = v["cpus"][cpu]
                if not p["model"].startswith("ptsim pipeline model") or p["cycles"] <= 0 or \
                   p["instructions"] != v["instructions"] or p["latency"] <= 0:
                    fail("%s: %s priced by %r" % (where, cpu, p["model"]))
                rows += 1
            for cpu, mcpu in loops.MCA_CPUS:
                p = v["cpus"][cpu]
                if p["model"] != "llvm-mca-19 -mcpu=" + mcpu or mcpu.startswith(BORROWED):
                    fail("%s: %s priced by %r" % (where, cpu, p["model"]))
                if p["instructions"] != v["instructions"] or p["uops"] <= 0:
                    fail("%s: %s priced %d instructions of %d" % (where, cpu, p["instructions"],
                                                                 v["instructions"]))
                # steady state cannot beat the block's resource bound (llvm-mca's
                # bound is itself rounded: 5 % slack)
                if not 0 < p["rthroughput"] <= p["cycles"] * 1.05 or p["latency"] <= 0:
                    fail("%s: %s cycles %r below its throughput bound %r" %
                         (where, cpu, p["cycles"], p["rthroughput"]))
                rows += 1
    print("loop-prices: %d loops, %d priced rows" % (len(priced), rows))


def regenerate(src):
    tree = os.environ.get("PTSIM_KERNEL_TREE")
    if not tree:
        print("PTSIM_KERNEL_TREE is not set: skipped")
        sys.exit(SKIP)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "loop-prices.json")
        subprocess.run(["sh", os.path.join(src, "tools", "prices", "regenerate.sh"), tree, out],
                       check=True)
        with open(out) as a, open(os.path.join(src, "arch", "arm64", "hw",
                                               "loop-prices.json")) as b:
            if a.read() != b.read():
                fail("regenerated prices differ from the committed file")
    print("loop-prices: regenerated byte-identically")


def main():
    if len(sys.argv) == 2:
        check(sys.argv[1])
    elif len(sys.argv) == 3 and sys.argv[2] == "--regenerate":
        regenerate(sys.argv[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
