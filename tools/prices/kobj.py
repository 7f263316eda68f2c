# SPDX-License-Identifier: MIT
"""Read an arm64 kernel object: its instructions, their source lines (with the
inlining chain), and its boot-time alternatives, through the LLVM 19 tools."""

import json
import re
import struct
import subprocess

OBJDUMP = "llvm-objdump-19"
READELF = "llvm-readelf-19"
SYMBOLIZER = "llvm-symbolizer-19"

CONDITIONAL = re.compile(r"^(b\.[a-z]{2}|cbn?z|tbn?z)$")
TERMINATORS = {"ret", "br", "brk", "udf", "hlt", "eret", "retaa", "retab"}


class Insn:
    """One instruction of .text: address, mnemonic, operands, branch target, call target."""

    def __init__(self, addr, mnemonic, operands):
        self.addr = addr
        self.mnemonic = mnemonic
        self.operands = operands
        self.target = None      # direct branch target (an address in .text)
        self.callee = None      # bl: the relocation's symbol
        self.reloc = None       # any relocation on the instruction

    def kind(self):
        """'call', 'jump', 'cond', 'stop' or 'plain'."""
        m = self.mnemonic
        if m in ("bl", "blr"):
            return "call"
        if m == "b":
            return "jump"
        if CONDITIONAL.match(m):
            return "cond"
        if m in TERMINATORS:
            return "stop"
        return "plain"


def _run(args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


_LINE = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")
_RELOC = re.compile(r"^\s*([0-9a-f]+):\s+(R_AARCH64_\w+)\s+(\S+)")
_TARGET = re.compile(r"0x([0-9a-f]+) <[^>]*>")


def disassemble(obj, section=".text", symbol=None):
    """The instructions of a section (or of one symbol in it), in address order."""
    args = [OBJDUMP, "-d", "-r", "--no-show-raw-insn", "-j", section, obj]
    if symbol:
        args.insert(2, "--disassemble-symbols=" + symbol)
    insns = []
    for line in _run(args).splitlines():
        r = _RELOC.match(line)
        if r and insns:
            insns[-1].reloc = (r.group(2), r.group(3))
            if insns[-1].mnemonic == "bl":
                insns[-1].callee = r.group(3)
            continue
        m = _LINE.match(line)
        if not m or m.group(2).endswith(">:"):
            continue
        ops = m.group(3).split("//")[0].strip()
        insn = Insn(int(m.group(1), 16), m.group(2), ops)
        t = _TARGET.search(ops)
        if t and insn.kind() in ("jump", "cond"):
            insn.target = int(t.group(1), 16)
        if insn.mnemonic == "bl":
            # a call within the object carries no relocation: its target's symbol
            local = re.search(r"<([^+>]+)>", ops)
            insn.callee = local.group(1) if local else None
        insns.append(insn)
    return insns


def symbolize(obj, addrs):
    """For each address, its inlining chain: [(function, file, line), ...], innermost first."""
    out = subprocess.run([SYMBOLIZER, "--obj=" + obj, "--inlining", "--output-style=JSON"],
                         input="".join("0x%x\n" % a for a in addrs), check=True,
                         capture_output=True, text=True).stdout
    chains = {}
    for line in out.splitlines():
        rec = json.loads(line)
        chains[int(rec["Address"], 16)] = [
            (s["FunctionName"], s["FileName"], s["Line"]) for s in rec["Symbol"]]
    return chains


def _section_bytes(obj, section):
    data = b""
    for line in _run([OBJDUMP, "-s", "-j", section, obj]).splitlines():
        m = re.match(r"^ ([0-9a-f]{4,}) ((?:[0-9a-f]{2,8} ?){1,4})", line)
        if m:
            data += bytes.fromhex(m.group(2).replace(" ", ""))
    return data


def _relocations(obj, section):
    """offset -> (symbol, addend) of a section's relocations."""
    relocs = {}
    inside = False
    for line in _run([READELF, "-r", obj]).splitlines():
        if line.startswith("Relocation section"):
            inside = "'.rela%s'" % section in line
            continue
        f = line.split()
        if inside and len(f) >= 5 and f[2].startswith("R_AARCH64"):
            sym = f[4]
            addend = int(f[6], 16) * (-1 if f[5] == "-" else 1) if len(f) >= 7 else 0
            relocs[int(f[0], 16)] = (sym, addend)
    return relocs


ARM64_CB_BIT = 1 << 15


def alternatives(obj):
    """The object's alternative sites: .text offset -> (cpucap, callback or replacement, lengths).

    Each struct alt_instr (arch/arm64/include/asm/alternative-macros.h) is
    12 bytes: orig_offset and alt_offset (s32, relocated), cpucap (u16; bit
    15 marks a callback site), orig_len and alt_len (u8)."""
    data = _section_bytes(obj, ".altinstructions")
    relocs = _relocations(obj, ".altinstructions")
    sites = {}
    for off in range(0, len(data) - len(data) % 12, 12):
        cpucap, orig_len, alt_len = struct.unpack_from("<HBB", data, off + 8)
        orig_sym, orig_add = relocs[off]
        alt_sym, alt_add = relocs[off + 4]
        if orig_sym != ".text":
            continue
        sites[orig_add] = {
            "cpucap": cpucap & ~ARM64_CB_BIT,
            "callback": alt_sym if cpucap & ARM64_CB_BIT else None,
            "replacement": (alt_sym, alt_add) if not cpucap & ARM64_CB_BIT else None,
            "orig_len": orig_len,
            "alt_len": alt_len,
        }
    return sites


def cpucap_numbers(tree):
    """ARM64_* cpucap name -> number, from the build's generated cpucap-defs.h."""
    caps = {}
    with open(tree + "/arch/arm64/include/generated/asm/cpucap-defs.h") as f:
        for line in f:
            m = re.match(r"#define (ARM64_\w+)\s+(\d+)", line)
            if m:
                caps[m.group(1)] = int(m.group(2))
    return caps
