#!/bin/sh
# Regenerate arch/arm64/hw/loop-prices.json from the kernel's own objects
# (doc/loop-prices.md). Usage: tools/prices/regenerate.sh TREE [OUTPUT]
# TREE: where the linux-source-6.12 tree is unpacked and built (a cache,
# outside the repository; made if missing). OUTPUT defaults to the
# committed file. On a fresh 2-core machine: about 2 minutes to build the
# objects, half a minute to price them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tree=$1
out=${2:-$here/../../arch/arm64/hw/loop-prices.json}
sh "$here/build-objects.sh" "$tree"
python3 "$here/gen-loop-prices.py" "$tree" "$out"
