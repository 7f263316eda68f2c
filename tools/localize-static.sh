#!/bin/sh
# Usage: localize-static.sh OBJECTS.a OUT.a
# Makes the static library: every object linked into one relocatable object
# (ld -r), whose hidden symbols (everything but the ptsim_* API) are then made
# local, so an application's own split_folio or pt_index cannot clash with ours.
set -eu
in=$1
out=$2
tmp=$out.o
${LD:-ld} -r --whole-archive "$in" -o "$tmp"
${OBJCOPY:-objcopy} --localize-hidden "$tmp"
rm -f "$out"
${AR:-ar} rcs "$out" "$tmp"
rm -f "$tmp"
