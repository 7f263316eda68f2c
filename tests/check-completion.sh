#!/bin/sh
# ptsim-bench's bash completion (issue 47), generated from the table --help prints: it is valid
# bash, completes every command and, for each command, exactly the options its --help names,
# and the names --cpu, --granule, --features and --detail take.
# Usage: check-completion.sh PTSIM-BENCH
set -u
bench=$1
command -v bash > /dev/null || { echo "skip: no bash"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bench" completion bash > "$dir/c.bash" || { echo "FAIL: completion bash exited $?"; exit 1; }
bash -n "$dir/c.bash" || { echo "FAIL: not valid bash"; exit 1; }
# complete WORDS...: the completions of the last word, sorted, one line
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ptsim_bench
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' sh "$dir/c.bash" ptsim-bench "$@"
}
fail=0
expect() {	# WANT WORDS...
	want=$1
	shift
	got=$(complete_words "$@")
	[ "$got" = "$want" ] || { echo "FAIL: ptsim-bench $*<TAB>: '$got', want '$want'"; fail=1; }
}
expect "reproduce " re
expect "speed sweep " s
expect "--check --cpu " run f.scn --c
expect "apple-m3 " run f.scn --cpu app
expect "neoverse-n1,neoverse-v1 neoverse-n1,neoverse-v2 neoverse-n1,neoverse-v3 " run f.scn --cpu neoverse-n1,neoverse-v
expect "16K " run f.scn --granule 16
expect "v6.17 " run f.scn --features v6.17
expect "mprotect.m3.t1_after_seconds mprotect.m3.t1_before_seconds mprotect.m3.t1_over_t3_before mprotect.m3.t1_speedup " reproduce --detail mprotect.m3.t1
expect "lifecycle.altra.dontneed_1g_pte_mapped_thp " predict --only lifecycle.altra.d
expect "cpus " list cp
# each command: the options its --help names, and nothing else
for cmd in $("$bench" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
	# the synopsis and the option lines (not the prose, which names other commands' options)
	want=$({ "$bench" "$cmd" --help | awk '/^usage:/ { on = 1 } on && /^  [a-z]/ { on = 0 }
		on || /^  --/' | grep -o -- '--[a-z][a-z-]*'; echo --help; } | sort -u | tr '\n' ' ')
	expect "$want" "$cmd" --
done
exit $fail
