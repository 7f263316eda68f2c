# SPDX-License-Identifier: MIT
"""Price a path with llvm-mca 19: the path's instructions as an assembly
block, steady-state cycles per iteration, the block's throughput bound, and
one iteration's latency."""

import json
import re
import subprocess

MCA = "llvm-mca-19"

_ADDR = re.compile(r"0x[0-9a-f]+ <[^>]*>")


_LSE = re.compile(r"^(swp|casp?|ld(add|clr|eor|set|smax|smin|umax|umin)|"
                  r"st(add|clr|eor|set|smax|smin|umax|umin))(a|al|l)?(b|h)?$")


def lse_atomic(insn):
    """True for an LSE atomic (the form the kernel patches its atomics to at boot)."""
    return bool(_LSE.match(insn.mnemonic))


def _atomic_stand_in(insn):
    """What the block carries for an LSE atomic, which llvm-mca 19 has no
    scheduling data for on any model: a plain load of the same address into
    the register the atomic returns the old value in (so what depends on it
    still waits), or a NOP for a store form (st<op>, which returns nothing).
    The atomic itself is priced apart (see lse_atomic's callers)."""
    ops = [o.strip() for o in insn.operands.split(",", 2)]
    if insn.mnemonic.startswith("st"):
        return "nop"
    if insn.mnemonic.startswith("casp"):
        return "ldp\t%s, %s, %s" % (ops[0], ops[1], insn.operands.split(",")[-1].strip())
    dest = ops[0] if insn.mnemonic.startswith("cas") else ops[1]
    width = "ldr" + ("b" if insn.mnemonic.endswith("b") else
                     "h" if insn.mnemonic.endswith("h") else "")
    return "%s\t%s, %s" % (width, dest, ops[2])


def assembly(path, prologue=()):
    """The path as llvm-mca input, after the prologue's lines (see
    loops.BODY_PROLOGUE). Branch and call targets become the block's
    own label (llvm-mca does not follow control flow; it prices each
    instruction once per iteration, in order); an adrp or add of a symbol
    relocated in the object gets a placeholder symbol; an LSE atomic gets
    its stand-in (_atomic_stand_in)."""
    lines = ["loop:"] + ["\t" + p for p in prologue]
    for i in path:
        if lse_atomic(i):
            lines.append("\t" + _atomic_stand_in(i))
            continue
        ops = _ADDR.sub("loop", i.operands).strip()
        if i.kind() in ("call", "jump", "cond") and i.target is None and i.mnemonic != "blr":
            ops = re.sub(r"0x[0-9a-f]+$", "loop", ops)
        if i.mnemonic == "adrp":
            ops = re.sub(r",\s*0x[0-9a-f]+.*$", ", sym", ops)
        lines.append("\t%s\t%s" % (i.mnemonic, ops) if ops else "\t" + i.mnemonic)
    return "\n".join(lines) + "\n"


def version():
    """llvm-mca's version line ("Debian LLVM version 19.1.x")."""
    out = subprocess.run([MCA, "--version"], check=True, capture_output=True, text=True).stdout
    return "llvm-mca: " + next(ln.strip() for ln in out.splitlines() if "LLVM version" in ln)


def _mca(asm, mcpu, iterations, call_latency):
    out = subprocess.run([MCA, "-mtriple=aarch64-linux-gnu", "-mcpu=" + mcpu,
                          "--iterations=%d" % iterations, "--call-latency=%d" % call_latency,
                          "--json"],
                         input=asm, check=True, capture_output=True, text=True).stdout
    view = json.loads(out)["CodeRegions"][0]["SummaryView"]
    return view


def price(path, mcpu, call_latency, prologue=()):
    """Cycles per iteration in steady state (the difference of two runs, so
    the pipeline's fill and drain cancel), the block's reciprocal
    throughput, one iteration's cycles from an empty pipeline (its
    critical path, with the call latency), instructions and micro-ops."""
    asm = assembly(path, prologue)
    a = _mca(asm, mcpu, 100, call_latency)
    b = _mca(asm, mcpu, 200, call_latency)
    one = _mca(asm, mcpu, 1, call_latency)
    return {
        "cycles": round((b["TotalCycles"] - a["TotalCycles"]) / 100.0, 2),
        "rthroughput": round(a["BlockRThroughput"], 2),
        "latency": one["TotalCycles"],
        "instructions": a["Instructions"] // a["Iterations"],
        "uops": a["TotaluOps"] // a["Iterations"],
    }
