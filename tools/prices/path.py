# SPDX-License-Identifier: MIT
"""One iteration of a kernel loop, as the machine executes it: the path from
the loop's head back to it through the instructions that the loop's function
(inlined into its caller) compiled to, with boot-time alternatives patched."""

from collections import deque

import kobj


class PathError(Exception):
    pass


# Calls that do not return: a path ends there (it is not the path a loop takes).
NORETURN = {"__stack_chk_fail", "panic", "__ubsan_handle_builtin_unreachable", "do_exit",
            "BUG"}


def patch_alternatives(insns, sites, caps_present, cap_names, replacements):
    """The instructions as the kernel runs them after boot: every alternative
    site whose cpucap the CPU has is patched (a callback site by
    alt_cb_patch_nops to NOPs, another by its replacement instructions).
    A site whose cpucap the table does not decide is marked: no path goes
    through it (see find_path)."""
    by_addr = {i.addr: i for i in insns}
    undecided = {}
    for addr, site in sites.items():
        name = cap_names.get(site["cpucap"], "cpucap %d" % site["cpucap"])
        if name not in caps_present:
            for off in range(0, site["orig_len"], 4):
                undecided[addr + off] = name
            continue
        if not caps_present[name]:
            continue
        if site["callback"] is not None:
            if site["callback"] != "alt_cb_patch_nops":
                for off in range(0, site["orig_len"], 4):
                    undecided[addr + off] = name + " via " + site["callback"]
                continue
            new = [kobj.Insn(addr + off, "nop", "") for off in range(0, site["orig_len"], 4)]
        else:
            sym, start = site["replacement"]
            if sym != ".text":
                raise PathError("replacement in %s" % sym)
            new = []
            for off in range(0, site["orig_len"], 4):
                if off < site["alt_len"]:
                    r = replacements[start + off]
                    n = kobj.Insn(addr + off, r.mnemonic, r.operands)
                    n.reloc, n.callee = r.reloc, r.callee
                    if r.target is not None:
                        n.target = addr + off + (r.target - r.addr)
                else:
                    n = kobj.Insn(addr + off, "nop", "")
                new.append(n)
        for n in new:
            if n.addr in by_addr:
                n.site = name
                by_addr[n.addr] = n
    return [by_addr[a] for a in sorted(by_addr)], undecided


def loop_line(chain, function):
    """The line of `function`'s own source an instruction belongs to (for an
    inlined helper: the line that calls it), or None outside it."""
    for fn, _, line in chain:
        if fn == function:
            return line
    return None


def _marks(chain, function, points):
    """The points (a line of `function`, or "helper:line" of a function
    inlined into it) an instruction's inlining chain passes through."""
    found = set()
    for fn, _, line in chain:
        for p in points:
            if (p == line and fn == function) or p == "%s:%d" % (fn, line):
                found.add(p)
        if fn == function:
            break
    return found


def find_path(insns, chains, function, head_line, via, avoid, undecided):
    """The shortest path from the loop head back to it (with head_line None:
    from the entry of the out-of-line function to a return) that passes through
    every point in `via` and none in `avoid` (a line of `function`'s own
    source, where an inlined helper counts as the line that calls it, or
    "helper:line" for a line of a helper inlined into it, or "@0xADDR" for
    the instruction at that .text offset, where the line table names no line:
    clang gives line 0 to a tail it merged from two inlined copies), staying within
    the instructions `function` compiled to. The head is the first
    instruction of head_line that a branch jumps to.
    Fall-through is preferred where two paths are equally short."""
    by_addr = {i.addr: i for i in insns}
    order = [i.addr for i in insns]
    nxt = {a: b for a, b in zip(order, order[1:])}
    line = {a: loop_line(chains[a], function) for a in order}
    region = {a for a in order if line[a] is not None}
    if head_line is None:
        # the body of an out-of-line function: from its entry to a return
        heads = [a for a in order if a in region and chains[a][-1][0] == function]
    else:
        targets = {i.target for i in insns if i.target is not None}
        heads = [a for a in order if a in region and line[a] == head_line and a in targets]
    if not heads:
        raise PathError("%s: no branch target on line %s" % (function, head_line))
    head = heads[0]
    via = sorted(set(via), key=str)
    bit = {p: 1 << k for k, p in enumerate(via)}
    full = (1 << len(via)) - 1
    points = set(via) | set(avoid)
    marks = {a: _marks(chains[a], function, points) | (points & {"@0x%x" % a})
             for a in region}
    vbits = {a: sum(bit[p] for p in marks[a] if p in bit) for a in region}
    region = {a for a in region if not marks[a] & set(avoid)} | {head}

    def successors(a):
        i = by_addr[a]
        k = i.kind()
        if a in undecided and i.mnemonic != "nop":
            met.add("%s at 0x%x" % (undecided[a], a))
            return []
        if k == "stop" or (k == "call" and i.callee in NORETURN):
            return []
        if k == "jump":
            return [i.target]
        if k == "cond":
            return [nxt.get(a), i.target]
        return [nxt.get(a)]

    met = set()
    start = (head, vbits[head])
    parent = {start: None}
    queue = deque([start])
    end = None
    while queue:
        state = queue.popleft()
        a, mask = state
        if head_line is None and by_addr[a].mnemonic.startswith("ret") and mask == full:
            end = state
            break
        for s in successors(a):
            if s is None or s not in region:
                continue
            if s == head:
                if mask == full:
                    end = state
                    break
                continue
            ns = (s, mask | vbits[s])
            if ns not in parent:
                parent[ns] = state
                queue.append(ns)
        if end:
            break
    if end is None:
        raise PathError("%s: no path from line %s back to it through %s avoiding %s%s" %
                        (function, head_line, via, sorted(avoid, key=str),
                         " (blocked by alternatives the cpucap table does not decide: %s)" %
                         ", ".join(sorted(met)) if met else ""))
    path = []
    state = end
    while state is not None:
        path.append(by_addr[state[0]])
        state = parent[state]
    path.reverse()
    return path, line
