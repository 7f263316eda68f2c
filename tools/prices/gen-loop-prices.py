#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Price the kernel's PTE loops from its own arm64 machine code.

Usage: gen-loop-prices.py TREE NOCONTPTE_TREE LATER_TREE LATER_NOCONTPTE_TREE OUTPUT

TREE is a linux-source-6.12 tree with the objects built by
tools/prices/build-objects.sh (run it first), NOCONTPTE_TREE the same built
without CONFIG_ARM64_CONTPTE (build-objects.sh NOCONTPTE_TREE nocontpte): the
loops tools/prices/loops.py marks are priced from both. LATER_TREE is the later
kernel (build-objects.sh LATER_TREE later) whose objects price the loops
tools/prices/loops.py marks "later", LATER_NOCONTPTE_TREE the same without
contpte (build-objects.sh LATER_NOCONTPTE_TREE later-nocontpte). OUTPUT is the data file
(arch/arm64/hw/loop-prices.json). For every loop and variant of
tools/prices/loops.py it finds the path one iteration takes through the
object (tools/prices/path.py), patched as the kernel patches itself at boot,
and prices it with llvm-mca 19 on every CPU that has a model of its own
(tools/prices/mca.py). The output names the tree's kernel version, the
compiler, llvm-mca's version and, per loop, the function it is inlined
into, the source lines and the address ranges of its path; it holds no
host path, time or date, so two runs over the same tree give the same bytes.
See doc/loop-prices.md.
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kobj  # noqa: E402
import loops  # noqa: E402
import mca  # noqa: E402
import path as pathmod  # noqa: E402
import pipeline  # noqa: E402
import pipeline_cpus  # noqa: E402


def version(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return out.splitlines()[0].strip()


def kernel_version(tree):
    return version(["make", "-s", "-C", tree, "kernelversion"])


def ranges(path):
    """The path's address ranges in execution order: [start, end) runs of consecutive instructions."""
    out = []
    for i in path:
        if out and out[-1][1] == i.addr:
            out[-1][1] = i.addr + 4
        else:
            out.append([i.addr, i.addr + 4])
    return ["0x%x-0x%x" % (a, b) for a, b in out]


def load_object(tree, loop, caps):
    """The loop's object as the kernel runs it: patched, its addresses symbolized."""
    obj = os.path.join(tree, loop["object"])
    insns = kobj.disassemble(obj)
    by_addr = {i.addr: i for i in insns}
    patched, undecided = pathmod.patch_alternatives(insns, kobj.alternatives(obj),
                                                     loops.CPUCAPS, caps, by_addr)
    return patched, undecided, kobj.symbolize(obj, [i.addr for i in patched])


def price_loop(trees, loop, caps, ours, later):
    objects = {}
    variants = {}
    for name, (v, contpte) in sorted(loop_variants(loop).items()):
        tree = (bool(loop.get("later")), contpte)
        if tree not in objects:
            objects[tree] = load_object(trees[tree], loop, caps[tree])
        patched, undecided, chains = objects[tree]
        prologue = loops.BODY_PROLOGUE if loop["head"] is None else ()
        path, line = pathmod.find_path(patched, chains, loop["function"], loop["head"],
                                       v.get("via", []), set(v.get("avoid", [])), undecided)
        outer = chains[path[0].addr][-1][0]
        entry = {
            "contpte": contpte,
            "via": [str(p) for p in v.get("via", [])],
            "avoid": [str(p) for p in v.get("avoid", [])],
            "inlined_into": outer,
            "lines": sorted({line[i.addr] for i in path if line[i.addr]}),
            "address_ranges": ranges(path),
            "instructions": len(prologue) + len(path),
            "calls": [i.callee or "(indirect)" for i in path if i.kind() == "call"],
            "atomics": [i.mnemonic for i in path if mca.lse_atomic(i)],
            # the block as priced (branch and call targets as the block's label)
            "block": [ln.strip().replace("\t", " ")
                      for ln in mca.assembly(path, prologue).splitlines()[1:]],
            "patched_sites": sorted({getattr(i, "site") for i in path if hasattr(i, "site")}),
            "cpus": {},
        }
        for cpu, mcpu in loops.MCA_CPUS:
            p = mca.price(path, mcpu, loops.CALL_LATENCY, prologue)
            p["model"] = "llvm-mca-19 -mcpu=" + mcpu
            entry["cpus"][cpu] = p
        for cpu, params in sorted(ours.items()):
            model = pipeline_cpus.cpu_of(params)
            entry["cpus"][cpu] = {
                "cycles": pipeline.price(entry["block"], model),
                "latency": pipeline.one_iteration(entry["block"], model),
                "instructions": len(entry["block"]),
                "uops": pipeline.uops(entry["block"], model),
                "model": "ptsim pipeline model (tools/prices/pipeline.py): " + params["source"],
            }
        variants[name] = entry
    out = {
        "name": loop["name"],
        "object": loop["object"],
        "function": loop["function"],
        "source": loop["source"],
        "head_line": loop["head"],
        "variants": variants,
    }
    if loop.get("later"):
        out["kernel"] = later
    return out


def later_kernel(tree):
    """The later kernel as its Debian package names it: "linux-source-7.2 7.2.12"."""
    v = kernel_version(tree)
    return "linux-source-%s %s" % (".".join(v.split(".")[:2]), v)


loop_variants = loops.variants_of


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    # (a later kernel's, built with contpte) -> tree
    trees = {(False, True): sys.argv[1], (False, False): sys.argv[2],
             (True, True): sys.argv[3], (True, False): sys.argv[4]}
    output = sys.argv[5]
    caps = {c: {v: k for k, v in kobj.cpucap_numbers(t).items()} for c, t in trees.items()}
    for later in (False, True):
        if kernel_version(trees[later, True]) != kernel_version(trees[later, False]):
            sys.exit("gen-loop-prices: the trees with and without contpte are different kernels")
    tree = trees[False, True]
    later = later_kernel(trees[True, True])
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "arch", "arm64", "hw", "pipeline-llvm.json")) as f:
        ours = pipeline_cpus.all_cpus(json.load(f))
    data = {
        "schema": 1,
        "kernel": "linux-source-6.12 " + kernel_version(tree),
        "config": "arm64 defconfig + USERFAULTFD, PTE_MARKER_UFFD_WP, TRANSPARENT_HUGEPAGE, "
                  "DEBUG_INFO_DWARF5 (tools/prices/build-objects.sh); the variants named "
                  "*" + loops.NOCONTPTE_SUFFIX + " the same + EXPERT, -ARM64_CONTPTE; a loop "
                  "that names its own kernel is priced from that kernel, configured the same",
        "compiler": version(["clang-19", "--version"]),
        "pricer": mca.version(),
        "call_latency": loops.CALL_LATENCY,
        "cpucaps": loops.CPUCAPS,
        "iteration": "cycles: steady state, (cycles of 200 iterations - of 100) / 100; "
                     "rthroughput: llvm-mca's block reciprocal throughput; latency: one "
                     "iteration from an empty pipeline",
        "loops": [price_loop(trees, loop, caps, ours, later) for loop in loops.LOOPS],
    }
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    with open(output, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
