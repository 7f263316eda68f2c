#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate man3 pages for libptsim from the doc comments in include/ptsim/*.h.

Every exported function (a declaration starting with PTSIM_API) gets a page
named after it. Its text is the comment right above the declaration; a comment
above a group of consecutive declarations documents each of them. The page also
shows the definitions of the libptsim structs and enums its prototype uses.

  gen-man3.py --list HEADER...            print the page file names
  gen-man3.py --outdir DIR --version V HEADER...   write the pages
  gen-man3.py --check HEADER...           exit 1 naming functions without a comment

A function without a doc comment is an error in every mode: the reference must
cover the whole API.
"""
import argparse
import os
import re
import sys

DECL_START = re.compile(r'^PTSIM_API\b')
NAME = re.compile(r'\b(ptsim_[a-z0-9_]+)\s*\(')
TYPE_USE = re.compile(r'\b(struct|enum)\s+(ptsim_[a-z0-9_]+)')
TYPE_DEF = re.compile(r'^(struct|enum)\s+(ptsim_[a-z0-9_]+)\s*\{')


def comment_text(lines):
    """The text of a /* ... */ block without the comment markers."""
    out = []
    for line in lines:
        s = line.strip()
        s = re.sub(r'^/\*+', '', s)
        s = re.sub(r'\*+/$', '', s)
        s = re.sub(r'^\* ?', '', s)
        out.append(s.strip())
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return out


def parse_header(path):
    """Functions (name, prototype, comment lines) and type definitions of one header."""
    lines = open(path, encoding='utf-8').read().splitlines()
    funcs, types = [], {}
    pending = None          # comment lines waiting for a declaration
    group = None            # comment of the declaration group in progress
    i = 0
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if s.startswith('/*'):
            block = [line]
            while '*/' not in lines[i]:
                i += 1
                block.append(lines[i])
            pending = comment_text(block)
            group = None
            i += 1
            continue
        m = TYPE_DEF.match(line)
        if m:
            body = [line]
            while not lines[i].startswith('}'):
                i += 1
                body.append(lines[i])
            types[m.group(2)] = (m.group(1), body)
            pending = group = None
            i += 1
            continue
        if DECL_START.match(line):
            decl = [line]
            while ';' not in lines[i]:
                i += 1
                decl.append(lines[i])
            text = ' '.join(d.strip() for d in decl)
            name = NAME.search(text)
            if name:
                doc = pending if pending is not None else group
                trailing = re.search(r';\s*/\*(.*)\*/\s*$', text)
                if trailing:
                    doc = (doc or []) + [trailing.group(1).strip()]
                    text = text[:trailing.start() + 1]
                proto = re.sub(r'^PTSIM_API\s+', '', text)
                proto = re.sub(r'\s+', ' ', proto).replace('( ', '(')
                funcs.append((name.group(1), proto, doc))
                group = doc
            pending = None
            i += 1
            continue
        if s and not s.startswith('#define'):
            pending = None
            group = None
        i += 1
    return funcs, types


def roff_escape(s):
    s = s.replace('\\', '\\e')
    if s.startswith('.') or s.startswith("'"):
        s = '\\&' + s
    return s


def summary(doc):
    """The first sentence of a comment, for the NAME line."""
    text = ' '.join(doc)
    m = re.match(r'(.+?[.;:])(\s|$)', text)
    first = m.group(1) if m else text
    return first.rstrip('.;:')


def paragraphs(doc):
    """Comment lines as roff: blank lines start paragraphs, '- ' lines are bullets."""
    out = ['.PP']
    for line in doc:
        if not line:
            out.append('.PP')
        elif re.match(r'^\s*[-*] ', line):
            out.append('.IP \\(bu 2')
            out.append(roff_escape(re.sub(r'^\s*[-*] ', '', line)))
        else:
            out.append(roff_escape(line.strip()))
    return out


def page(name, proto, doc, header, types, siblings, version):
    out = [f'.TH {name.upper()} 3 "" "libptsim {version}" "libptsim Programmer\'s Manual"',
           '.SH NAME', f'{name} \\- {roff_escape(summary(doc))}',
           '.SH SYNOPSIS', '.nf', f'.B #include <ptsim/{header}>', '.PP',
           roff_escape(proto), '.fi',
           '.PP', 'Link with \\fI\\-lptsim\\fP (pkg-config: \\fIlibptsim\\fP).',
           '.SH DESCRIPTION']
    out += paragraphs(doc)
    used = []
    for _, tname in TYPE_USE.findall(proto):
        if tname in types and tname not in used:
            used.append(tname)
    if used:
        out += ['.SH TYPES', '.nf']
        for tname in used:
            hdr, (_, body) = types[tname]
            out.append(f'/* <ptsim/{hdr}> */')
            out += [roff_escape(b.replace('\t', '        ')) for b in body]
            out.append('')
        out += ['.fi']
    see = ['libptsim(3)'] + [f'{s}(3)' for s in siblings if s != name][:12]
    out += ['.SH SEE ALSO', ', '.join(f'\\fB{s.split("(")[0]}\\fP({s.split("(")[1]}' for s in see),
            '.PP', 'The guides in the source tree\'s \\fIdoc/\\fP directory '
            '(architecture.md, primitives.md, scenario.md) and \\fBptsim-bench\\fP(1).']
    return '\n'.join(out) + '\n'


def index_page(by_header, version):
    out = [f'.TH LIBPTSIM 3 "" "libptsim {version}" "libptsim Programmer\'s Manual"',
           '.SH NAME', 'libptsim \\- arm64 page tables and Linux mm algorithms, simulated and counted',
           '.SH SYNOPSIS', '.nf', '.B #include <ptsim/ptsim.h>', '.fi',
           '.PP', 'Link with \\fI\\-lptsim\\fP (pkg-config: \\fIlibptsim\\fP).',
           '.SH DESCRIPTION', '.PP',
           'Every function returns a negative errno for bad input and leaves the model unchanged, '
           'unless its page says exactly what it keeps. The functions, by header:']
    for header in sorted(by_header):
        out += ['.SS <ptsim/' + header + '>']
        for name, proto, doc in by_header[header]:
            out += ['.TP', f'.BR {name} (3)', roff_escape(summary(doc))]
    return '\n'.join(out) + '\n'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--list', action='store_true')
    ap.add_argument('--check', action='store_true')
    ap.add_argument('--outdir')
    ap.add_argument('--version', default='')
    ap.add_argument('headers', nargs='+')
    a = ap.parse_args()

    by_header, types, missing = {}, {}, []
    for path in a.headers:
        header = os.path.basename(path)
        funcs, t = parse_header(path)
        for tname, body in t.items():
            types[tname] = (header, body)
        if funcs:
            by_header[header] = funcs
        missing += [f'{header}: {n}' for n, _, d in funcs if not d]
    if missing:
        for m in missing:
            print(f'gen-man3: no doc comment above {m}', file=sys.stderr)
        return 1
    names = [n for funcs in by_header.values() for n, _, _ in funcs]
    if a.list:
        print('\n'.join(['libptsim.3'] + [n + '.3' for n in names]))
        return 0
    if a.check:
        return 0
    os.makedirs(a.outdir, exist_ok=True)
    for header, funcs in by_header.items():
        siblings = [n for n, _, _ in funcs]
        for name, proto, doc in funcs:
            with open(os.path.join(a.outdir, name + '.3'), 'w', encoding='utf-8') as f:
                f.write(page(name, proto, doc, header, types, siblings, a.version))
    with open(os.path.join(a.outdir, 'libptsim.3'), 'w', encoding='utf-8') as f:
        f.write(index_page(by_header, a.version))
    return 0


if __name__ == '__main__':
    sys.exit(main())
