#!/bin/sh
# Runs a ptsim-bench command and checks that its standard output is valid JSON.
set -eu
out=$("$@")
printf '%s\n' "$out" | python3 -c 'import json, sys; d = json.load(sys.stdin); assert d, "empty"; print("ok:", len(d), "items")'
