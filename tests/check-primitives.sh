#!/bin/sh
# Usage: check-primitives.sh SRCDIR
# Counting belongs to the primitives (src/primitives/, arch/arm64/primitives/,
# doc/primitives.md): the kernel code of src/mm, src/fs and arch/arm64/mm calls
# them and never counts by hand. Fails, naming each line, when it does.
set -u
cd "$1" || exit 2
found=$(grep -nE '(^|[^_a-zA-Z0-9])count\(' src/mm/*.c src/mm/*.h src/fs/*.c arch/arm64/mm/*.c)
if [ -n "$found" ]; then
	echo "check-primitives: counting outside the primitive layer (call a primitive instead):" >&2
	echo "$found" >&2
	exit 1
fi
echo "check-primitives: no count() outside the primitives"
