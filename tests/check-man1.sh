#!/bin/sh
# ptsim-bench(1) documents every command and option ptsim-bench's help lists (issue 47:
# merge, --jobs, --shard and --best-of were missing from the page).
# Usage: check-man1.sh PTSIM-BENCH MAN-PAGE
set -u
bench=$1
page=$2
fail=0
commands=$("$bench" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
[ -n "$commands" ] || { echo "not ok: no commands in ptsim-bench --help"; exit 1; }
for c in $commands; do
	grep -q "^\.B ptsim-bench $c\$" "$page" || { echo "not ok: no SYNOPSIS line for $c"; fail=1; }
	grep -q "^\.B $c\$" "$page" || { echo "not ok: no COMMANDS entry for $c"; fail=1; }
	for o in $("$bench" help "$c" | sed -n '/^usage:/,/^  [a-z]/p' | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		[ "$o" = --help ] && continue
		man=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
		grep -q -- "$man" "$page" || { echo "not ok: $c $o is not in $page"; fail=1; }
	done
done
[ $fail = 0 ] && echo "ok: ptsim-bench(1) names every command and option"
exit $fail
