#!/bin/sh
# `meson install` ships what a user reads and runs (issue 47): ptsim-bench and ptsim-plot, the
# man pages, the example scenarios and the docs; the installed ptsim-bench runs an installed
# example scenario.
# Usage: check-install.sh BUILD-DIR
set -u
build=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
meson install -C "$build" --destdir "$dir" --no-rebuild --quiet > "$dir/install.log" 2>&1 ||
	{ echo "FAIL: meson install"; cat "$dir/install.log"; exit 1; }
fail=0
one() {	# NAME: the one installed file of that path suffix
	f=$(find "$dir" -path "*$1" | head -1)
	[ -n "$f" ] || { echo "FAIL: not installed: $1" >&2; fail=1; }
	printf '%s' "$f"
}
bench=$(one /bin/ptsim-bench)
one /bin/ptsim-plot > /dev/null
one /man1/ptsim-bench.1 > /dev/null
comp=$(one /bash-completion/completions/ptsim-bench)
[ -z "$comp" ] || grep -q '^complete -F _ptsim_bench ptsim-bench$' "$comp" ||
	{ echo "FAIL: the installed bash completion registers no function"; fail=1; }
one /man3/ptsim_machine_create.3 > /dev/null
src=$(dirname "$0")/..
for f in README.md CHANGELOG.md LICENSE; do
	one "/doc/libptsim/$f" > /dev/null
done
for f in "$src"/doc/*.md; do	# every doc, so a new one is not left out of meson.build
	one "/doc/libptsim/$(basename "$f")" > /dev/null
done
for f in "$src"/bench/scenarios/*.scn; do
	one "/doc/libptsim/examples/$(basename "$f")" > /dev/null
done
n=$(find "$dir" -path "*/doc/libptsim/examples/*.scn" | wc -l)
scn=$(one /doc/libptsim/examples/fork-cow.scn)
if [ -n "$bench" ] && [ -n "$scn" ]; then
	"$bench" run "$scn" > "$dir/run.txt" 2>&1 || { echo "FAIL: the installed ptsim-bench run $scn"; fail=1; }
	grep -q '^verdict: ' "$dir/run.txt" || { echo "FAIL: the installed run printed no verdict"; fail=1; }
fi
[ $fail = 0 ] && echo "ok: installed binaries, man pages, docs and $n example scenarios"
exit $fail
