# SPDX-License-Identifier: MIT
"""Our own pipeline model: prices a block of AArch64 integer instructions
(one loop iteration, as tools/prices/mca.py feeds llvm-mca) on a CPU
described by a few parameters, for the CPUs LLVM 19 has no model of.

The model (doc/loop-prices.md, "Our pipeline model"):
- every instruction belongs to one class (CLASSES); per CPU a class has a
  latency and micro-ops, each micro-op issued to one unit of a set of
  execution units;
- in order, at most `dispatch` micro-ops a cycle enter a reorder buffer of
  `rob` micro-ops;
- out of order, an instruction issues when its source registers (and the
  flags) are ready and a unit is free for each of its micro-ops (every unit
  is pipelined: one micro-op a cycle); the ready instruction of least rank
  (its age less the dispatched instructions that read its results, the
  older on a tie: llvm-mca's default strategy) goes first;
- its result is ready `latency` cycles after it issues (a pre- or
  post-indexed base register a cycle after); it leaves the buffer in order,
  at most `dispatch` micro-ops a cycle, once done;
- no memory dependencies (loads hit L1, stores do not feed loads), no
  branch mispredictions, a call costs its `call` latency.
The price is the steady-state cycles per iteration: the block repeated,
cycles of 60 iterations less those of 30, over 30 (mca.price takes 200 and
100 of llvm-mca's: the model reaches its steady state within a few).
"""

import re

def _writeback(operands):
    """A pre-indexed ([base, #imm]!) or post-indexed ([base], #imm) address."""
    return "]!" in operands or re.search(r"\], #", operands) is not None


# (class, representative instruction): the first pattern that matches an
# instruction's mnemonic and operands names its class.
CLASSES = [
    ("nop", "nop", lambda m, o: m in ("nop", "hint", "bti")),
    ("pauth", "paciasp", lambda m, o: m in ("paciasp", "autiasp")),
    ("call", "bl loop", lambda m, o: m in ("bl", "blr")),
    ("branch", "b.eq loop", lambda m, o: m in ("b", "ret", "cbz", "cbnz", "tbz", "tbnz") or
     m.startswith("b.")),
    ("load_pair_wb", "ldp x0, x1, [x2], #16",
     lambda m, o: m.startswith("ldp") and _writeback(o)),
    ("load_pair", "ldp x0, x1, [x2, #16]", lambda m, o: m.startswith("ldp")),
    ("load", "ldr x0, [x1, #8]", lambda m, o: m.startswith("ldr") or m.startswith("ldur")),
    ("store_pair_wb", "stp x0, x1, [x2, #-16]!",
     lambda m, o: m.startswith("stp") and _writeback(o)),
    ("store_pair", "stp x0, x1, [x2, #16]", lambda m, o: m.startswith("stp")),
    ("store", "str x0, [x1, #8]", lambda m, o: m.startswith("str") or m.startswith("stur")),
    ("mrs", "mrs x0, TPIDR_EL1", lambda m, o: m == "mrs"),
    ("adr", "adrp x0, loop", lambda m, o: m in ("adr", "adrp")),
    ("csel", "csel x0, x1, x2, eq",
     lambda m, o: m in ("csel", "csinc", "csinv", "csneg", "cset", "csetm", "cinc", "cinv",
                        "cneg", "ccmp", "ccmn")),
    ("bitfield_insert", "bfi x0, x1, #8, #2", lambda m, o: m in ("bfi", "bfxil")),
    ("bitfield", "ubfx x0, x1, #4, #8",
     lambda m, o: m in ("ubfx", "sbfx", "ubfiz", "sbfiz", "lsr", "lsl", "asr", "extr", "ror")
     and "#" in o or m in ("sxtw", "sxth", "sxtb", "uxth", "uxtb")),
    ("alu_shift_small", "add x0, x1, x2, lsl #3",
     lambda m, o: re.search(r"\b[xw]\d+, lsl #[1-4]$", o) is not None),
    ("alu_shift", "add x0, x1, x2, lsl #12",
     lambda m, o: re.search(r"\b[xw]\d+, (lsl|lsr|asr|ror) #", o) is not None or
     re.search(r", [su]xt[bhwx]", o) is not None),
    ("logic_flags_reg", "tst x1, x2",
     lambda m, o: m in ("tst", "ands", "bics") and "#" not in o),
    ("alu_flags", "cmp x1, #1",
     lambda m, o: m in ("cmp", "cmn", "tst", "ands", "bics", "adds", "subs", "negs")),
    ("mov_reg", "mov x0, x1",
     lambda m, o: m == "mov" and re.fullmatch(r"[xw]\d+, [xw]\d+", o) is not None),
    ("movk", "movk x0, #8, lsl #48", lambda m, o: m == "movk"),
    ("alu_reg", "add x0, x1, x2",
     lambda m, o: "#" not in o and m in ("add", "sub", "and", "orr", "eor", "bic", "orn",
                                         "eon", "mvn", "neg")),
    ("alu", "add x0, x1, #1", lambda m, o: True),
]

_REG = re.compile(r"\b([xw])(\d+|zr)\b|\bsp\b")
FLAG_SETTERS = {"cmp", "cmn", "tst", "ands", "bics", "adds", "subs", "ccmp", "ccmn", "negs"}
FLAG_READERS = {"csel", "csinc", "csinv", "csneg", "cset", "csetm", "cinc", "cinv", "cneg",
                "ccmp", "ccmn", "adc", "sbc"}
NO_DEST = {"cmp", "cmn", "tst", "ccmp", "ccmn", "cbz", "cbnz", "tbz", "tbnz", "ret", "b", "nop",
           "bl", "blr", "paciasp", "autiasp"}


def classify(mnemonic, operands):
    for name, _, match in CLASSES:
        if match(mnemonic, operands):
            return name
    raise ValueError(mnemonic)


def _regs(text):
    """The registers an operand list names, in order (w and x name one register;
    the zero register is "zr": it is no dependency)."""
    out = []
    for m in _REG.finditer(text):
        out.append("sp" if m.group(0) == "sp" else "x" + m.group(2))
    return out


def operands_of(line):
    """(mnemonic, operands, registers read, registers written) of one block line."""
    parts = line.split(None, 1)
    m, o = parts[0], parts[1] if len(parts) > 1 else ""
    regs = _regs(o)
    reads, writes = [], []
    if m.startswith("st"):                       # stores: every register is read
        reads = regs
    elif m in NO_DEST or m.startswith("b."):
        reads = regs
    elif m.startswith("ldp"):
        writes, reads = regs[:2], regs[2:]
    else:
        writes, reads = regs[:1], regs[1:]
        if m in ("movk", "bfi", "bfxil"):        # these keep part of their destination
            reads = reads + regs[:1]
    if _writeback(o):                            # pre- or post-indexed: the base is written
        base = _regs(o[o.index("["):])[:1]
        writes = writes + [b + WRITEBACK for b in base]
    if m in FLAG_SETTERS:
        writes = writes + ["nzcv"]
    if m in FLAG_READERS or m.startswith("b."):
        reads = reads + ["nzcv"]
    if m in ("bl", "blr"):
        writes = writes + ["x30"]
    if m == "ret":
        reads = reads + ["x30"]
    return m, o, [r for r in reads if r != "xzr"], [w for w in writes if w != "xzr"]


# A pre- or post-indexed access's base register update is ready a cycle after
# the access issues, whatever the access's own latency (LLVM's WriteAdr).
WRITEBACK = "+wb"
WRITEBACK_LATENCY = 1

# Pointer authentication of the return address (PACIASP, AUTIASP) reads x30
# and sp (the modifier) and writes x30, on a CPU that executes it; a CPU
# without FEAT_PAuth executes it as a hint, a NOP (its class takes no unit).
PAUTH = ("paciasp", "autiasp")


class Cpu:
    """A CPU's parameters: dispatch width and reorder buffer (micro-ops),
    execution units by name (each pipelined), and per class its latency and
    micro-ops (a list of unit sets: each micro-op takes one unit of its set;
    `extra` micro-ops take dispatch and buffer room but no unit)."""

    def __init__(self, name, dispatch, rob, units, classes, call_latency=1):
        self.name = name
        self.dispatch = dispatch
        self.rob = rob
        self.units = units
        self.classes = classes
        self.call_latency = call_latency


def _ready_at(i, producers, done, ready, blocker):
    """The cycle instruction i's sources are all ready, or None while one of
    them has not issued yet (that producer is kept in blocker[i]: until it
    issues, the answer stays None). A producer is (instruction, how many
    cycles before that instruction's result its write is ready: a base
    register's write-back). A result's cycle never changes once set, so the
    answer is kept in ready[i] once known (the simulation loop asks every
    cycle for every instruction in the window)."""
    r = ready[i]
    if r is None:
        r = 0
        for p, early in producers[i]:
            d = done[p]
            if d is None:
                blocker[i] = p
                return None
            if d - early > r:
                r = d - early
        ready[i] = r
    return r


def _simulate(block, cpu, iterations):
    """Cycles to run `iterations` repeats of the block on the model."""
    decoded = []
    for line in block:
        m, o, reads, writes = operands_of(line)
        cls = cpu.classes[classify(m, o)]
        if m in PAUTH and cls["uops"]:
            reads, writes = reads + ["x30", "sp"], writes + ["x30"]
        lat = cpu.call_latency if m in ("bl", "blr") else cls["latency"]
        decoded.append((reads, writes, lat, cls["uops"], cls["uops_total"]))
    # a micro-op that may take several units takes the free one the fewest
    # of the block's micro-ops can use, leaving the scarcer units to those
    # that need them
    demand = {u: 0 for u in cpu.units}
    for d in decoded:
        for uop in d[3]:
            for u in uop:
                demand[u] += 1
    preference = {u: (demand[u], u) for u in cpu.units}
    insts = [d for _ in range(iterations) for d in decoded]
    n = len(insts)
    writer = {}         # register -> (the newest instruction dispatched that writes it, early)
    producers = [None] * n  # per instruction: the instructions its sources come from (renamed)
    done = [None] * n   # per issued instruction: the cycle its result is ready
    ready = [None] * n  # per instruction: the cycle its sources are ready, once known
    blocker = [None] * n  # per instruction: a producer not issued yet, when last asked
    users = [0] * n     # per instruction: the instructions dispatched that read its results
    window = []         # dispatched, not yet issued, in program order
    in_rob = 0          # micro-ops dispatched and not retired
    cycle = next_dispatch = retired = 0
    while retired < n:
        # retire, in order; an instruction wider than the width goes alone
        budget = cpu.dispatch
        while retired < n and done[retired] is not None and done[retired] <= cycle:
            u = insts[retired][4]
            if u > budget and budget < cpu.dispatch:
                break
            budget -= u
            in_rob -= u
            retired += 1
        # issue by rank (age less users), one micro-op per unit per cycle
        busy = set()
        still = []
        for i in sorted(window, key=lambda k: k - users[k]):
            r = ready[i]
            if r is None:
                b = blocker[i]
                if b is None or done[b] is not None:
                    r = _ready_at(i, producers, done, ready, blocker)
            if r is None or r > cycle:
                still.append(i)
                continue
            chosen = []
            for units in insts[i][3]:
                free = [u for u in units if u not in busy and u not in chosen]
                if not free:
                    chosen = None
                    break
                chosen.append(min(free, key=preference.get))
            if chosen is None:
                still.append(i)
                continue
            busy.update(chosen)
            done[i] = cycle + insts[i][2]
        window = still
        # dispatch, in order, while the width and the reorder buffer allow
        budget = cpu.dispatch
        while next_dispatch < n:
            u = insts[next_dispatch][4]
            if (u > budget and budget < cpu.dispatch) or (in_rob + u > cpu.rob and in_rob):
                break
            reads, writes = insts[next_dispatch][0], insts[next_dispatch][1]
            producers[next_dispatch] = [writer[r] for r in reads if r in writer]
            for p, _ in producers[next_dispatch]:
                users[p] += 1
            for w in writes:
                if w.endswith(WRITEBACK):
                    early = max(insts[next_dispatch][2] - WRITEBACK_LATENCY, 0)
                    writer[w[:-len(WRITEBACK)]] = (next_dispatch, early)
                else:
                    writer[w] = (next_dispatch, 0)
            budget -= u
            in_rob += u
            window.append(next_dispatch)
            next_dispatch += 1
        cycle += 1
    return cycle


# iterations simulated: the difference between STEADY and STEADY / 2 of them
STEADY = 60


def one_iteration(block, cpu):
    """Cycles of one iteration from an empty pipeline (as llvm-mca's latency column)."""
    return _simulate(block, cpu, 1)


def uops(block, cpu):
    """Micro-ops of one iteration."""
    return sum(cpu.classes[classify(*operands_of(line)[:2])]["uops_total"] for line in block)


def price(block, cpu):
    """Steady-state cycles per iteration of the block on cpu."""
    a = _simulate(block, cpu, STEADY // 2)
    b = _simulate(block, cpu, STEADY)
    return round((b - a) / (STEADY / 2.0), 2)
