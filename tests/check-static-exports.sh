#!/bin/sh
# Fails if the static library defines a global symbol outside ptsim_*: an
# application linking it statically must be free to have its own pt_index.
set -eu
lib="$1"
bad=$(nm -g --defined-only "$lib" | awk 'NF == 3 {print $3}' | grep -v '^ptsim_' || true)
count=$(nm -g --defined-only "$lib" | awk 'NF == 3 {print $3}' | grep -c '^ptsim_' || true)
if [ -n "$bad" ]; then
	echo "not ok: global symbols outside ptsim_*:"; echo "$bad" | head -20; exit 1
fi
if [ "$count" -lt 10 ]; then
	echo "not ok: only $count ptsim_ symbols"; exit 1
fi
echo "ok: $count global symbols, all ptsim_*"
