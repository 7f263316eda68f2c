#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Read our pipeline model's parameters for the CPUs llvm-mca 19 models
(tools/prices/loops.py MCA_CPUS) out of llvm-mca itself.

Usage: probe-llvm-cpus.py OUTPUT

Per CPU: the dispatch width (llvm-mca's summary) and reorder buffer
(-retire-stats, "Total ROB Entries"), its execution units, and per class of
tools/prices/pipeline.py the class representative's latency and micro-ops:
24 copies of the representative are priced, and the units each copy's
micro-ops spread over say which units a micro-op may take (a unit kind whose
share per copy is whole is a micro-op of its own; kinds with fractional
shares form one micro-op that may take any of them). These are the
parameters the model gets for those CPUs when it is validated against
llvm-mca (tests/check-pipeline-model.py); the CPUs LLVM has no model of get
theirs from published sources (pipeline_cpus.py).
"""

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import loops  # noqa: E402
import pipeline  # noqa: E402

COPIES = 24


def mca(mcpu, asm, *extra):
    return subprocess.run(["llvm-mca-19", "-mtriple=aarch64-linux-gnu", "-mcpu=" + mcpu,
                           "--call-latency=1", "-iterations=1"] + list(extra),
                          input=asm, check=True, capture_output=True, text=True).stdout


def units_of(text):
    """[(index label, unit name)] from llvm-mca's Resources: list."""
    out = []
    block = text.split("Resources:", 1)[1].split("\n\n", 1)[0]
    for line in block.strip().splitlines():
        m = re.match(r"\[([\d.]+)\]\s+-\s+(\S+)", line.strip())
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def unit_names(units):
    """Unique names per unit: N1UnitS.0, N1UnitS.1, N1UnitM."""
    names = []
    for label, name in units:
        names.append(name + label[label.index("."):] if "." in label else name)
    return names


def probe_class(mcpu, rep):
    asm = "loop:\n" + "".join("\t%s\n" % rep for _ in range(COPIES))
    text = mca(mcpu, asm, "-resource-pressure", "-instruction-info")
    units = units_of(text)
    names = unit_names(units)
    info = re.search(r"\[1\]\s+\[2\].*?Instructions:\n\s*(\d+)\s+(\d+)\s", text, re.S)
    uops_total, latency = int(info.group(1)), int(info.group(2))
    row = re.search(r"Resource pressure per iteration:\n.*\n(.*)\n", text).group(1).split()
    share = {}
    for name, (label, kind), cell in zip(names, units, row):
        if cell != "-":
            share.setdefault(kind, []).append((name, float(cell) / COPIES))
    uops, flexible, flex_share = [], [], 0.0
    for kind in sorted(share):
        total = sum(s for _, s in share[kind])
        if abs(total - round(total)) < 0.02 and round(total) >= 1:
            uops += [sorted(n for n, _ in share[kind])] * int(round(total))
        else:
            flexible += [n for n, _ in share[kind]]
            flex_share += total
    if flexible:
        uops += [sorted(flexible)] * max(1, int(round(flex_share)))
    return {"latency": latency, "uops": uops, "uops_total": uops_total}, names


def probe(cpu, mcpu):
    text = mca(mcpu, "loop:\n\tnop\n", "-retire-stats")
    rob = int(re.search(r"Total ROB Entries:\s+(\d+)", text).group(1))
    dispatch = int(re.search(r"Dispatch Width:\s+(\d+)", text).group(1))
    classes = {}
    names = None
    for cls, rep, _ in pipeline.CLASSES:
        classes[cls], names = probe_class(mcpu, rep)
        classes[cls]["representative"] = rep
    return {"cpu": cpu, "source": "llvm-mca-19 -mcpu=%s (LLVM 19's scheduling model), "
            "read by tools/prices/probe-llvm-cpus.py" % mcpu,
            "dispatch": dispatch, "rob": rob, "units": names, "classes": classes}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = [probe(cpu, mcpu) for cpu, mcpu in loops.MCA_CPUS]
    with open(sys.argv[1], "w") as f:
        f.write(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
