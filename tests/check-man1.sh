#!/bin/sh
# ptsim-bench(1) documents every command and option ptsim-bench's help lists (issue 47:
# merge, --jobs, --shard and --best-of were missing from the page), and its SYNOPSIS is the
# one tools/gen-man1-synopsis.py makes from the help's usage lines.
# Usage: check-man1.sh PTSIM-BENCH MAN-PAGE PYTHON3 GEN-MAN1-SYNOPSIS
set -u
bench=$1
page=$2
python=$3
gen=$4
fail=0
want=$("$python" "$gen" "$bench") || { echo "not ok: $gen failed"; exit 1; }
have=$(sed -n '/^\.SH SYNOPSIS$/,/^\.SH /p' "$page" | sed '1d;$d')
if [ "$want" != "$have" ]; then
	echo "not ok: the SYNOPSIS differs from what $gen makes of --help:"
	printf '%s\n' "$want" > "${TMPDIR:-/tmp}/man1-want.$$"
	printf '%s\n' "$have" | diff - "${TMPDIR:-/tmp}/man1-want.$$" | head -20
	rm -f "${TMPDIR:-/tmp}/man1-want.$$"
	fail=1
fi
commands=$("$bench" --help | sed -n 's/^  \([a-z][a-z]*\)\( .*\)*$/\1/p')
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
