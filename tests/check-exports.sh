#!/bin/sh
# Fails if the shared library exports any symbol that is not ptsim_*.
set -eu
lib="$1"
bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | grep -v '^ptsim_' | grep -v '^PTSIM_' || true)
count=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -c '^ptsim_' || true)
if [ -n "$bad" ]; then
	echo "not ok: exported symbols outside ptsim_*:"; echo "$bad"; exit 1
fi
if [ "$count" -lt 10 ]; then
	echo "not ok: only $count ptsim_ symbols exported"; exit 1
fi
echo "ok: $count symbols, all ptsim_*"
