#!/bin/sh
# Usage: check-man3.sh LIBPTSIM.so MAN3_DIR BUILD_ROOT
# Every function the shared library exports has a man3 page that names it,
# shows its prototype, says something, renders without groff warnings, and is
# installed (meson's install plan puts it in man3).
set -eu
lib="$1"
dir="$2"
root="$3"
fail=0
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | grep '^ptsim_' | sort -u)
installed="$root/meson-info/intro-installed.json"
[ -f "$installed" ] || { echo "not ok: no $installed"; exit 1; }
have_groff=1
command -v groff >/dev/null 2>&1 || have_groff=0
n=0
for f in $exported; do
	page="$dir/$f.3"
	n=$((n + 1))
	if [ ! -s "$page" ]; then
		echo "not ok: no man page for $f"; fail=1; continue
	fi
	grep -q "^$f \\\\- ..*" "$page" || { echo "not ok: $f.3: NAME line has no summary"; fail=1; }
	grep -q "$f(" "$page" || { echo "not ok: $f.3: no prototype in SYNOPSIS"; fail=1; }
	desc=$(sed -n '/^\.SH DESCRIPTION/,/^\.SH/p' "$page" | grep -vc '^\.' || true)
	[ "$desc" -gt 0 ] || { echo "not ok: $f.3: empty DESCRIPTION"; fail=1; }
	grep -q "man3/$f\.3\"" "$installed" || { echo "not ok: $f.3 is not installed"; fail=1; }
	if [ $have_groff = 1 ]; then
		warn=$(groff -man -ww -z -Tutf8 "$page" 2>&1 || true)
		[ -z "$warn" ] || { echo "not ok: $f.3: groff: $warn"; fail=1; }
	fi
done
[ -s "$dir/libptsim.3" ] || { echo "not ok: no libptsim.3 index"; fail=1; }
for f in $exported; do
	grep -q "^\.BR $f (3)" "$dir/libptsim.3" || { echo "not ok: libptsim.3 does not list $f"; fail=1; }
done
[ $fail = 0 ] || exit 1
if [ $have_groff = 1 ]; then
	echo "ok: $n exported functions, each with a page that renders cleanly, installed, indexed"
else
	echo "ok: $n exported functions, each with a page, installed, indexed (groff missing: rendering not checked)"
fi
