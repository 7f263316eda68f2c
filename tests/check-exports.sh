#!/bin/sh
# Usage: check-exports.sh LIBPTSIM.so INCLUDE_DIR
# Fails if the shared library exports a symbol outside ptsim_*, or if a
# function the headers declare (PTSIM_API) is not exported: a new function
# must be added to src/core/libptsim.map, in the node of the release adding it.
set -eu
lib="$1"
inc="$2"
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u)
bad=$(printf '%s\n' "$exported" | grep -v '^ptsim_' | grep -v '^PTSIM_[0-9.]*$' || true)
declared=$(cat "$inc"/*.h | tr '\n' ' ' | grep -o 'PTSIM_API[^(;]*(' |
	   grep -o 'ptsim_[a-z0-9_]*($' | tr -d '(' | sort -u)
missing=$(printf '%s\n' "$declared" | while read -r f; do
	printf '%s\n' "$exported" | grep -qx "$f" || echo "$f"
done)
if [ -n "$bad" ]; then
	echo "not ok: exported symbols outside ptsim_*:"; echo "$bad"; exit 1
fi
if [ -n "$missing" ]; then
	echo "not ok: declared but not exported (add them to libptsim.map):"; echo "$missing"; exit 1
fi
echo "ok: $(printf "%s\n" "$exported" | grep -c "^ptsim_") symbols, all ptsim_*, every declared function exported"
