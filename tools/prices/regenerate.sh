#!/bin/sh
# Regenerate arch/arm64/hw/loop-prices.json from the kernel's own objects
# (doc/loop-prices.md). Usage: tools/prices/regenerate.sh TREE [OUTPUT]
# TREE: where the linux-source-6.12 tree is unpacked and built (a cache,
# outside the repository; made if missing), and TREE-nocontpte the same
# built without CONFIG_ARM64_CONTPTE, TREE-later and TREE-later-nocontpte
# the later kernel (build-objects.sh later). OUTPUT defaults to the
# committed file. Measured on a 2-core host from empty directories (all four
# trees, the later kernel downloaded, a test run beside it): 15 min 47 s wall,
# 8 min 13 s user and 4 min 18 s system CPU, 212 MB peak RSS; byte-identical
# to the committed file (pricing alone, over built trees: about 75 s).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tree=$1
out=${2:-$here/../../arch/arm64/hw/loop-prices.json}
sh "$here/build-objects.sh" "$tree"
sh "$here/build-objects.sh" "$tree-nocontpte" nocontpte
sh "$here/build-objects.sh" "$tree-later" later
sh "$here/build-objects.sh" "$tree-later-nocontpte" later-nocontpte
python3 "$here/gen-loop-prices.py" "$tree" "$tree-nocontpte" "$tree-later" \
	"$tree-later-nocontpte" "$out"
