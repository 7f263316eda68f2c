#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The SYNOPSIS of ptsim-bench(1), from the usage lines ptsim-bench's own
help prints (the command table of bench/ptsim-bench-util.c), as troff.

Usage: gen-man1-synopsis.py PTSIM-BENCH

doc/ptsim-bench.1 carries this text between ".SH SYNOPSIS" and the next
section; tests/check-man1.sh compares the two, so the page cannot drift
from --help. In a usage line an option ("--json") and a group's leading
literal ("cpus|features") or a lower-case positional word ("bash") are
bold, an option's argument and an upper-case positional argument ("FILE")
italic, brackets, "|" and "..." roman.
"""

import re
import subprocess
import sys


def escape(word):
    return word.replace("-", "\\-")


def commands(bench):
    out = subprocess.run([bench, "--help"], check=True, capture_output=True, text=True).stdout
    return re.findall(r"^  ([a-z]+)(?: |$)", out, re.M)


def usage(bench, command):
    """The command's usage line, continuation lines joined: the text after its name."""
    out = subprocess.run([bench, "help", command], check=True, capture_output=True,
                         text=True).stdout
    lines = out.splitlines()
    text = lines[0]
    for line in lines[1:]:
        if not line.startswith("      "):
            break
        text += " " + line.strip()
    prefix = "usage: ptsim-bench " + command
    assert text.startswith(prefix), text
    return text[len(prefix):].strip()


def tokens(text):
    """Top-level words and bracketed groups (with a trailing "..."), in order."""
    out, i = [], 0
    while i < len(text):
        if text[i] == " ":
            i += 1
            continue
        if text[i] == "[":
            depth, j = 0, i
            while True:
                depth += {"[": 1, "]": -1}.get(text[j], 0)
                j += 1
                if depth == 0:
                    break
        else:
            j = text.find(" ", i)
            j = len(text) if j < 0 else j
        while text.startswith("...", j):
            j += 3
        out.append(text[i:j])
        i = j
    return out


def group_lines(token):
    """A bracketed group: "[" and its first word, then a line a word, "]" on the last."""
    inner, suffix = token[1:token.rindex("]")], token[token.rindex("]") + 1:]
    words = inner.split()
    styled = []
    after_option = False
    for k, w in enumerate(words):
        if w == "|":
            styled.append(("R", w))
            after_option = False
        elif w.startswith("--") or (k == 0 and not after_option):
            styled.append(("B", escape(w)))
            after_option = w.startswith("--")
        else:
            styled.append(("I", escape(w)))
            after_option = False
    lines = []
    for k, (font, w) in enumerate(styled):
        first, last = k == 0, k == len(styled) - 1
        if first and last:
            lines.append(".R%s [ %s ]%s" % (font, w, suffix))
        elif first:
            lines.append(".R%s [ %s" % (font, w))
        elif last and font != "R":
            lines.append(".%sR %s ]%s" % (font, w, suffix))
        elif font == "R":
            lines.append(w)
        else:
            lines.append(".%s %s" % (font, w))
    return lines


def synopsis(bench):
    out = []
    for n, command in enumerate(commands(bench)):
        if n:
            out.append(".br")
        out.append(".B ptsim-bench %s" % command)
        for token in tokens(usage(bench, command)):
            if token.startswith("["):
                out += group_lines(token)
            elif token.endswith("..."):
                out.append(".IR %s %s" % (escape(token[:-3]), token[-3:]))
            elif token.islower():
                out.append(".B %s" % escape(token))     # a literal: "completion bash"
            else:
                out.append(".I %s" % escape(token))
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.stdout.write(synopsis(sys.argv[1]))


if __name__ == "__main__":
    main()
