#!/bin/sh
# run --jobs N prints what one process prints, in the same order, text and JSON, and the
# same exit status when some combinations fail (issue 32).
set -eu
bench=$1
scenarios=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
for scn in fork-cow.scn kernel-linear-map.scn; do
	for fmt in "" --json; do
		set -- "$scenarios/$scn" --cpu all --granule 4K,16K,64K --features v6.18 --features patched $fmt
		s1=0; "$bench" run "$@" > "$dir/one" 2>/dev/null || s1=$?
		s3=0; "$bench" run "$@" --jobs 3 > "$dir/three" 2>/dev/null || s3=$?
		if [ "$s1" != "$s3" ] || ! cmp -s "$dir/one" "$dir/three" || [ ! -s "$dir/one" ]; then
			echo "FAIL: run $scn $fmt --jobs 3 (status $s3) differs from one process (status $s1)"
			fail=1
		fi
	done
done
[ $fail = 0 ] && echo "ok: run --jobs 3 as one process"
exit $fail
