#!/bin/sh
# meson setup refuses a kernel_preset the library does not have, naming the valid ones, and
# a kernel_source path that cannot be an #include name (issue 40 items 17 and 18), instead
# of a test that fails later without naming the preset, or a misleading "No such file".
# Usage: check-meson-options.sh SOURCE_ROOT
set -u
src=$1
fail=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# expect_setup PATTERN OPTIONS...: meson setup fails, with PATTERN (fixed) in its output
expect_setup() {
	pattern=$1
	shift
	rm -rf "$dir/b"
	out=$(meson setup "$dir/b" "$src" -Dbench=disabled -Dman=disabled "$@" 2>&1)
	if [ $? = 0 ] || ! printf '%s\n' "$out" | grep -qF -- "$pattern"; then
		echo "FAIL: meson setup $* did not fail with: $pattern"
		printf '%s\n' "$out" | tail -3
		fail=1
	fi
}
expect_setup "kernel_preset: unknown preset 'bogus'; valid: baseline, patched, v6.6," \
	-Dkernel_preset=bogus
tree="$dir/linux\"x"
mkdir -p "$tree/arch/arm64/mm"
: > "$tree/arch/arm64/mm/contpte.c"
expect_setup "kernel_source: the path may not hold a double quote" "-Dkernel_source=$tree"
exit $fail
