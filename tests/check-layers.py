#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layers hold for calls, not only for includes (doc/architecture.md).

Usage: check-layers.py SRCDIR BUILDDIR
       check-layers.py --self-test

Reads the library's objects (compile_commands.json names each object's source)
with nm: every global a layer defines, and every symbol each object calls or
reads. A reference from a layer to one above it is forbidden. The ones that
exist today are listed in KNOWN (issue 41 pays them off, one move at a time):
the check fails on a forbidden reference not in the list, and names a listed
one that is gone, to be taken off it. --self-test runs the rule on made-up
objects: a call from hw into mm must be caught.
"""

import json
import os
import subprocess
import sys

# From the bottom up; a layer may use its own, its peers' (the same rank) and
# the ones below it. The kernel code of mm/ and arch/arm64/mm/ call each other
# as the kernel's do; raw sits beside them, over the primitives; machine, on
# top, builds, copies and frees a whole machine from all of them.
LAYERS = [
    ("core", 0, ("src/core/",)),
    ("hw", 1, ("arch/arm64/hw/", "arch/arm64/loop_prices_table.c")),
    # contpte.c is the out-of-line half of arm64's pte accessors: the kernel's
    # asm/pgtable.h calls it for every contiguous entry, and it calls only
    # what lies below (hw, core) and the accessors themselves
    ("primitives", 2, ("src/primitives/", "arch/arm64/primitives/", "arch/arm64/mm/contpte.c")),
    ("arch", 3, ("arch/arm64/mm/",)),
    ("mm", 3, ("src/mm/", "src/fs/")),
    ("raw", 3, ("src/raw/",)),
    ("machine", 4, ("src/machine/",)),
]
RANK = {name: rank for name, rank, _ in LAYERS}

# The forbidden references of today: (from layer, source file, symbol), the
# layer it reaches in the comment; none is left (issue 41 paid the last ones
# off: core's undo rollback moved to mm, contpte.c ranks with the accessors
# it serves, pfn_folio reads core's records). (hw asks for the address space
# of an ASID through m->as_of_asid, which mm installs, and owns the geometry,
# arch/arm64/hw/geometry.c: no reference.)
KNOWN = set()


def layer_of(path):
    for name, _, prefixes in LAYERS:
        if any(path.startswith(p) for p in prefixes):
            return name
    return None


def forbidden(objects):
    """objects: {source: (layer, defined set, referenced set)} -> sorted
    (from layer, source, symbol, to layer) for each reference upwards."""
    owner = {}
    for src, (layer, defined, _) in objects.items():
        for sym in defined:
            owner[sym] = layer
    out = set()
    for src, (layer, _, referenced) in objects.items():
        for sym in referenced:
            to = owner.get(sym)
            if to is not None and RANK[to] > RANK[layer]:
                out.add((layer, src, sym, to))
    return sorted(out)


def nm(paths, *flags):
    """nm over every object at once (one process, not two per object): each
    object's lines, by its path."""
    res = subprocess.run(["nm", "-A", *flags, *paths], check=True, capture_output=True,
                         text=True)
    out = {p: [] for p in paths}
    for line in res.stdout.splitlines():
        path, _, rest = line.partition(":")	# "path:address type symbol"
        if path not in out:
            sys.exit("check-layers: nm named %r" % path)
        out[path].append(rest)
    return out


def read_objects(source, build):
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    source, build = os.path.realpath(source), os.path.realpath(build)
    found = {}
    for c in commands:
        if "libptsim_objs" not in c["output"]:
            continue
        path = os.path.realpath(os.path.join(c["directory"], c["file"]))
        # a generated source lives in the build directory, under the source's path
        src = os.path.relpath(path, build if path.startswith(build + os.sep) else source)
        layer = layer_of(src)
        if layer is None:
            sys.exit("check-layers: no layer for %s" % src)
        found[os.path.join(c["directory"], c["output"])] = (src, layer)
    paths = sorted(found)
    defines = nm(paths, "--defined-only", "--extern-only")
    references = nm(paths, "--undefined-only")
    objects = {}
    for obj, (src, layer) in found.items():
        defined = {line.split()[2] for line in defines[obj] if len(line.split()) == 3}
        referenced = {line.split()[-1] for line in references[obj]}
        objects[src] = (layer, defined, referenced)
    return objects


def self_test():
    made_up = {
        "arch/arm64/hw/tlb.c": ("hw", {"hw_tlb_flush"}, {"mm_lookup", "count_event"}),
        "src/mm/mm.c": ("mm", {"mm_lookup"}, {"hw_tlb_flush"}),
        "src/core/stats.c": ("core", {"count_event"}, set()),
    }
    got = forbidden(made_up)
    assert got == [("hw", "arch/arm64/hw/tlb.c", "mm_lookup", "mm")], got
    print("check-layers: self-test: a call from hw into mm is caught, mm into hw is not")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    found = forbidden(read_objects(sys.argv[1], sys.argv[2]))
    now = {(layer, src, sym) for layer, src, sym, _ in found}
    new = [f for f in found if (f[0], f[1], f[2]) not in KNOWN]
    gone = sorted(KNOWN - now)
    for layer, src, sym, to in new:
        print("check-layers: %s (%s) calls %s of the %s layer above it" % (src, layer, sym, to))
    for layer, src, sym in gone:
        print("check-layers: %s no longer calls %s: take it off KNOWN" % (src, sym))
    print("check-layers: %d forbidden references: %d known, %d new; %d known ones gone"
          % (len(found), len(found) - len(new), len(new), len(gone)))
    # a gone one is progress (and may be a build's inlining): reported, not failed
    sys.exit(1 if new else 0)


if __name__ == "__main__":
    main()
