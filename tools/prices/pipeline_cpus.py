# SPDX-License-Identifier: MIT
"""Our pipeline model's parameters for the CPUs LLVM 19 has no model of.

Each parameter names its source: a published measurement, a vendor figure,
or a derivation from a named sibling whose parameters came out of llvm-mca
(arch/arm64/hw/pipeline-llvm.json). A parameter with no source is an
ESTIMATE with its range. See doc/loop-prices.md.
"""

import copy

import pipeline

# Apple M3 P-core. Units and their roles are Dougall Johnson's measurements
# of the M1 P-core (Firestorm, dougallj.github.io/applecpu/firestorm.html):
# six integer units (1-2: ALU, flags, branch, mrs, ptrauth on 2; 3: ALU,
# flags; 4: ALU; 5-6: ALU, multiply, 6 also bit-field insert), store unit 7,
# load/store unit 8, load units 9-10, a pipeline width of 8 micro-ops a
# cycle. No such measurement of the M3 is published: the M3 P-core is taken
# to be at least as wide as the M1's (ESTIMATE: 6 to 8 integer units, 8 to
# 9 wide; doc/cpu-profiles.md keeps the M3's other M1-derived figures).
_M3_ALU = ["m3.i1", "m3.i2", "m3.i3", "m3.i4", "m3.i5", "m3.i6"]
_M3_FLAGS = ["m3.i1", "m3.i2", "m3.i3"]
_M3_BRANCH = ["m3.i1", "m3.i2"]
_M3_LOAD = ["m3.ls8", "m3.ld9", "m3.ld10"]
_M3_STORE = ["m3.st7", "m3.ls8"]


def _cls(latency, uops, source):
    return {"latency": latency, "uops": uops, "uops_total": max(1, len(uops)),
            "source": source}


_FS = "Firestorm measured (Dougall Johnson)"
APPLE_M3 = {
    "cpu": "apple-m3",
    "source": "M1 Firestorm units and widths measured by Dougall Johnson "
              "(dougallj.github.io/applecpu/firestorm.html); latencies as noted per class",
    "dispatch": 8,
    "rob": 600,
    "rob_source": "ESTIMATE 330-630: Firestorm's in-flight window measured at about 630 "
                  "(Dougall Johnson's buffer measurements); the loops here never fill it",
    "units": _M3_ALU + ["m3.st7", "m3.ls8", "m3.ld9", "m3.ld10"],
    "classes": {
        "nop": _cls(1, [], _FS + ": a NOP issues to no unit"),
        "pauth": _cls(5, [["m3.i2"]], "ESTIMATE 3-6: ptrauth on unit 2 (" + _FS + ")"),
        "call": _cls(1, [_M3_BRANCH], _FS + ": branches on units 1-2"),
        "branch": _cls(1, [_M3_BRANCH], _FS + ": branches on units 1-2"),
        "load_pair": _cls(3, [_M3_LOAD], "doc/cpu-profiles.md §1: L1D load-to-use 3 cycles "
                          "(M1 measured); one issue on units 8-10 (" + _FS + ")"),
        "load": _cls(3, [_M3_LOAD], "doc/cpu-profiles.md §1: L1D load-to-use 3 cycles "
                     "(M1 measured); units 8-10 (" + _FS + ")"),
        "load_pair_wb": _cls(3, [_M3_LOAD, _M3_ALU],
                             "ESTIMATE: load_pair's, and the base register's write-back as "
                             "one more micro-op on an integer unit"),
        "store_pair_wb": _cls(1, [_M3_STORE, _M3_ALU],
                              "ESTIMATE: store_pair's, and the base register's write-back as "
                              "one more micro-op on an integer unit"),
        "store_pair": _cls(1, [_M3_STORE], _FS + ": stores on units 7-8"),
        "store": _cls(1, [_M3_STORE], _FS + ": stores on units 7-8"),
        "mrs": _cls(1, [["m3.i1"]], _FS + ": mrs on unit 1"),
        "adr": _cls(1, [_M3_ALU], "ESTIMATE: adr/adrp on any integer unit, 1 cycle"),
        "csel": _cls(1, [_M3_FLAGS], _FS + ": flag readers on units 1-3"),
        "bitfield_insert": _cls(1, [["m3.i6"]], _FS + ": bfm/extr on unit 6"),
        "bitfield": _cls(1, [_M3_ALU], "ESTIMATE: ubfm forms on any integer unit, 1 cycle"),
        "alu_shift_small": _cls(1, [_M3_ALU], "ESTIMATE: shifted operand up to LSL #4, 1 cycle "
                                "on any integer unit"),
        "alu_shift": _cls(2, [_M3_ALU], "ESTIMATE 1-2: a longer shift or an extend, 2 cycles"),
        "logic_flags_reg": _cls(1, [_M3_FLAGS], _FS + ": flag setters on units 1-3"),
        "alu_flags": _cls(1, [_M3_FLAGS], _FS + ": flag setters on units 1-3"),
        "mov_reg": _cls(0, [], _FS + ": register moves are eliminated at rename"),
        "movk": _cls(1, [_M3_ALU], _FS + ": any integer unit"),
        "alu_reg": _cls(1, [_M3_ALU], _FS + ": any integer unit"),
        "alu": _cls(1, [_M3_ALU], _FS + ": any integer unit"),
    },
}


def _derive(sibling, cpu, source, changes):
    """A CPU's parameters as a named sibling's, with the stated changes."""
    p = copy.deepcopy(sibling)
    p["cpu"] = cpu
    p["source"] = source
    for key, value in changes.items():
        p[key] = value
    return p


def derived(llvm):
    """The CPUs derived from a sibling llvm-mca models: {cpu: parameters}."""
    by = {c["cpu"]: c for c in llvm}
    x1 = _derive(
        by["neoverse-v1"], "android-x1",
        "Neoverse V1's (LLVM 19's model, read out of llvm-mca): Arm derived the V1 from the "
        "Cortex-X1, with the same integer, branch and load/store pipelines; the X1's own "
        "window is 224 entries (Arm, Cortex-X1 launch figures) where the V1's is 256; both "
        "rename 8 MOPs a cycle, so the dispatch width is the V1 model's; the X1 (Armv8.2-A) "
        "has no pointer authentication: its PACIASP and AUTIASP are NOPs",
        {"rob": 224, "rob_source": "Arm: Cortex-X1 out-of-order window of 224 entries"})
    # the X1 is an Armv8.2-A core without pointer authentication (FEAT_PAuth
    # came to Arm's cores with the Cortex-A78C and X2): its PACIASP and
    # AUTIASP are hints, executed as NOPs
    x1["classes"]["pauth"] = dict(x1["classes"]["nop"], representative="paciasp")
    v2 = by["neoverse-v2"]
    v3_units = v2["units"] + ["V3UnitS4", "V3UnitS5"]
    v3_classes = copy.deepcopy(v2["classes"])
    wide = set(v2["classes"]["alu"]["uops"][0])
    for cls in v3_classes.values():
        cls["uops"] = [sorted(set(u) | {"V3UnitS4", "V3UnitS5"}) if set(u) == wide else u
                       for u in cls["uops"]]
    v3 = _derive(
        v2, "neoverse-v3",
        "Neoverse V2's (LLVM 19's model, read out of llvm-mca), the Cortex-X3-class core "
        "the V3's Cortex-X4 class succeeds: Arm gives the X4 eight integer ALUs (the X3 "
        "six), a rename/dispatch width of 10 (the X3 8) and a 384-entry window (320): two "
        "more single-cycle units take what the V2's six may, the dispatch width is the V2 "
        "model's scaled by 10/8",
        {"units": v3_units, "classes": v3_classes, "rob": 384,
         "dispatch": v2["dispatch"] * 10 // 8,
         "rob_source": "Arm: Cortex-X4 reorder buffer of 384 entries"})
    return {"android-x1": x1, "neoverse-v3": v3}


def all_cpus(llvm):
    """The parameters of every CPU our model prices alone."""
    out = derived(llvm)
    out["apple-m3"] = APPLE_M3
    return out


def cpu_of(params):
    return pipeline.Cpu(params["cpu"], params["dispatch"], params["rob"], params["units"],
                        params["classes"])
