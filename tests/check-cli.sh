#!/bin/sh
# ptsim-bench's command line: exit statuses and messages for help, version and mistakes.
# Usage: check-cli.sh PTSIM-BENCH [INCLUDE_DIR]
set -u
bench=$1
inc=${2:-}
fail=0
# check GREP-OPTIONS STATUS TEXT ARGS...: exit status, and TEXT in the output as grep finds it
check() {
	opts=$1 want=$2 text=$3
	shift 3
	out=$("$bench" "$@" 2>&1)
	got=$?
	if [ "$got" != "$want" ] || ! printf '%s\n' "$out" | grep -q $opts -- "$text"; then
		echo "FAIL: ptsim-bench $* -> status $got (want $want), want: $text"
		echo "output:"
		printf '%s\n' "$out" | head -8
		fail=1
	fi
}
# expect STATUS PATTERN ARGS...: exit status, and PATTERN (a regex) in the output
expect() { check "" "$@"; }
# expect_line STATUS LINE ARGS...: exit status, and LINE exactly as one line of the output
expect_line() { check -xF "$@"; }
expect 0 "ptsim-bench [0-9]" --version
expect 0 "usage: ptsim-bench COMMAND" --help
expect 0 "usage: ptsim-bench reproduce" help reproduce
expect 0 "usage: ptsim-bench reproduce" reproduce --help
expect 0 "usage: ptsim-bench cpus" cpus --help
expect 2 "unknown command reproduc" reproduc
expect 2 "option --svg FILE needs an argument" reproduce --svg
expect 2 "unknown option --bogus" reproduce --bogus
expect 2 "exec.grace.cold_speedup" reproduce --only nosuch.
expect 2 "mprotect.m3.t1_speedup" reproduce --detail nosuch
expect 2 "unknown option --bogus" cpus --bogus
expect 2 "unexpected argument" fit extra
# issue 32: speed's --best-of, audit's --jobs and --shard, merge's files
expect_line 2 "speed: --best-of: want 1..100, not '0'" speed --best-of 0
expect_line 2 "audit: --jobs: want 1..64, not '65'" audit --jobs 65
expect_line 2 "audit: --shard: want K/N with 1 <= K <= N, not '3/2'" audit --shard 3/2
expect_line 2 "merge: expected the --json outputs of audit runs" merge
expect 1 "merge: cannot read /nonexistent" merge /nonexistent
expect 0 "usage: ptsim-bench run FILE" run --help
expect 0 "usage: ptsim-bench audit" audit --help
expect 2 "expected one scenario file" run
expect 1 "cannot read" run /nonexistent.scn
expect 2 "unknown CPU" run /dev/null --cpu nosuch
expect 2 "unknown feature or preset" run /dev/null --features nosuch
expect 2 "needs a number" audit --scenarios x
expect 2 "unknown preset" audit --presets v9.9

cpus="apple-m3, neoverse-v2, ampereone, neoverse-n1, neoverse-v1, neoverse-v3, android-x1"
# the same names as an error lists them below its line: wrapped at 80 columns
presets1="baseline, patched, v6.6, v6.8, v6.9-midpoint, v6.9, v6.10, v6.11,"
presets2="v6.12, v6.13, v6.14, v6.15, v6.16, v6.17, v6.18, v6.19"
scn=$(mktemp)
printf 'mm A\nmmap A 1G 2M rw\ncheckpoint done\n' > "$scn"

# help: an unknown command is an error; every option of a command is explained
expect_line 2 "ptsim-bench: unknown command nosuch" help nosuch
expect_line 0 "  --granule LIST comma-separated 4K, 16K, 64K (any case; default: the" run --help
expect_line 0 "  --check        exit 3 when a row misses its target, naming each on stderr" help reproduce
expect_line 0 "  --seconds N    stop after N seconds (N > 0; default 60)" audit --help
expect_line 0 "  --cpu NAME     price every workload on this CPU instead of the published one" predict --help
expect_line 0 "  --json         as JSON" speed --help
expect_line 0 "  --help         this text" fit --help
expect_line 0 "  events         counted events with their price class" list --help
for c in reproduce cpus list run audit predict speed fit; do	# each option of the synopsis explained
	for o in $("$bench" help $c | head -1 | grep -o -- '--[a-z-]*' | sort -u); do
		"$bench" help $c | grep -q -- "^  $o " || { echo "FAIL: help $c does not explain $o"; fail=1; }
	done
done

# errors list the valid values
expect_line 2 "run: --cpu: unknown CPU 'm3'; valid: $cpus, all" run "$scn" --cpu apple-m3,m3
expect_line 2 "audit: --cpu: unknown CPU 'm3'; valid: $cpus, all" audit --cpu m3
expect_line 2 "ptsim-bench predict: unknown CPU 'm3'; valid: $cpus" predict --cpu m3
expect_line 2 "run: --granule: unknown granule '8K'; valid: 4K, 16K, 64K" run "$scn" --granule 4K,8K
expect_line 2 "audit: unknown preset 'v9.9'" audit --presets v6.17,v9.9
expect_line 2 "  presets: $presets1" audit --presets v6.17,v9.9
expect_line 2 "    $presets2" audit --presets v6.17,v9.9
expect_line 2 "run: --features v6.17,+nosuch: unknown feature or preset 'nosuch'" run "$scn" --features v6.17,+nosuch
expect_line 2 "  presets: $presets1" run "$scn" --features nosuch
expect_line 2 "    $presets2" run "$scn" --features nosuch
expect_line 2 "list: unknown list 'cpu'; valid: cpus, features, presets, events" list cpu
# granules in any case; CPUs in the order asked (each run's own report: --verbose)
expect_line 0 "neoverse-n1, 64K, baseline" run "$scn" --granule 64k --cpu neoverse-n1 --verbose
got=$("$bench" run "$scn" --granule 4k,64K --cpu neoverse-n1,apple-m3,neoverse-n1 --verbose \
	2>/dev/null | grep -x '[a-z0-9-]*, [0-9]*K, [a-z0-9.]*')
want="neoverse-n1, 4K, baseline
neoverse-n1, 64K, baseline
apple-m3, 4K, baseline
apple-m3, 64K, baseline"
[ "$got" = "$want" ] || { echo "FAIL: run --cpu neoverse-n1,apple-m3: order"; printf '%s\n' "$got"; fail=1; }
# numbers that make no sense are refused
expect_line 2 "audit: --seconds needs a positive number" audit --seconds 0
expect_line 2 "audit: --scenarios needs a positive number" audit --scenarios 0
expect_line 2 "audit: --seconds needs a number" audit --seconds x
# issue 40 item 16: no sign, no saturation, one '/', and one of --seconds and --scenarios
expect_line 2 "audit: --seed needs a number" audit --seed -1
expect_line 2 "audit: --seed needs a number" audit --seed 18446744073709551616
expect_line 2 "audit: --scenarios needs a number" audit --scenarios 99999999999999999999
expect_line 2 "audit: --seconds needs a number" audit --seconds -5
expect_line 2 "audit: --shard: want K/N with 1 <= K <= N, not '1/2/3'" audit --shard 1/2/3
expect_line 2 "audit: --shard: want K/N with 1 <= K <= N, not '1/99999999999999999999'" \
	audit --shard 1/99999999999999999999
expect_line 2 "audit: --seconds and --scenarios exclude each other" audit --seconds 5 --scenarios 5
# file errors give the reason; an unwritable --svg fails before the simulation
expect_line 1 "run: cannot read /nonexistent.scn: No such file or directory" run /nonexistent.scn
out=$("$bench" reproduce --only mprotect.m3.t1 --svg /nonexistent/x.svg 2>&1)
got=$?
want="reproduce: cannot write /nonexistent/x.svg: No such file or directory"
if [ "$got" != 1 ] || [ "$out" != "$want" ]; then
	echo "FAIL: reproduce --svg /nonexistent/x.svg -> status $got (want 1, nothing simulated):"
	printf '%s\n' "$out" | head -5
	fail=1
fi
# reproduce --check names on stderr each row that misses (one line each), then exits 3
out=$("$bench" reproduce --only uffd.android. --check --wide 2>/dev/null)
err=$("$bench" reproduce --only uffd.android. --check 2>&1 >/dev/null | grep -- '--check:')
"$bench" reproduce --only uffd.android. --check >/dev/null 2>&1
got=$?
misses=$(printf '%s\n' "$out" | awk '$NF ~ /]$|%$/ && / MISS / {print $1}')
[ "$(printf '%s\n' "$err" | grep -c .)" = "$(printf '%s\n' "$misses" | grep -c .)" ] ||
	{ echo "FAIL: reproduce --check: not one line per missed row:"; printf '%s\n' "$err"; fail=1; }
for id in $misses; do
	printf '%s\n' "$err" | grep -q "^reproduce: --check: $id misses its target: simulated [-+0-9.e]*, published [-+0-9.e]* ([-+0-9.]*%), target MISS " ||
		{ echo "FAIL: reproduce --check: no line for $id"; fail=1; }
done
if [ -n "$misses" ] && [ "$got" != 3 ] || [ -z "$misses" ] && [ "$got" != 0 ]; then
	echo "FAIL: reproduce --check -> status $got with misses: $misses"; fail=1
fi
out=$("$bench" reproduce --only uffd.android.move_pages_pte_speedup --check 2>&1 | grep -- '--check:')
[ -z "$out" ] || { echo "FAIL: reproduce --check names a report-only row: $out"; fail=1; }
check=$(dirname "$bench")/scenario-check
if [ -x "$check" ]; then
	out=$("$check" /nonexistent 2>&1)
	printf '%s\n' "$out" | grep -qxF "cannot open /nonexistent: No such file or directory" ||
		{ echo "FAIL: scenario-check /nonexistent:"; printf '%s\n' "$out" | tail -3; fail=1; }
fi

# list: every name with its meaning
expect_line 0 "  apple-m3       Apple M3 P-core (Linux VM, 4K pages), 4.05 GHz, L2 TLB 3072," list cpus
expect_line 0 "                 TLBIRANGE, BBM level 0" list cpus
expect_line 0 "  mprotect_pte_batching        v6.17         \"mm: optimize mprotect() by PTE" list features
expect_line 0 "  fork_pte_batching            v6.9-midpoint \"mm/memory: optimize fork() with" list features
expect_line 0 "  uffd_move_batching           unmerged      \"userfaultfd: opportunistic" list features
expect_line 0 "  uffd_move_err_reset          never         behaviour switch: move_pages()" list features
expect_line 0 "  v6.9-midpoint  v6.9-midpoint" list presets
expect_line 0 "    fork_pte_batching zap_pte_batching pagemap_scan split_batch_flush" list presets
expect_line 0 "  baseline       v6.16" list presets
expect_line 0 "  patched        unmerged" list presets
expect_line 0 "  v6.6           v6.6" list presets
expect_line 0 "    (none of the modelled features)" list presets
expect_line 0 "  pte_read                   pte_load       __ptep_get: plain load of one L3" list events
expect_line 0 "  tlbi_range                 tlbi           TLBI RVALE1IS / RVAE1IS" list events
expect_line 0 "presets (--features, --presets; the merged features up to the release):" list
expect_line 0 '    {"name": "v6.9-midpoint", "release": "v6.9-midpoint", "features": ["fork_pte_batching", "zap_pte_batching", "pagemap_scan", "split_batch_flush", "pcp_high_auto"]},' list presets --json
# the meaning tables cover every feature and event of the headers (a new one cannot be forgotten)
if [ -n "$inc" ]; then
	nf=$(sed -n '/^enum ptsim_feature {/,/PTSIM_FEAT__COUNT/p' "$inc/machine.h" | grep -c '^	PTSIM_FEAT_[A-Z0-9_]*,')
	ne=$(sed -n '/^enum ptsim_event {/,/PTSIM_EV__COUNT/p' "$inc/stats.h" | grep -c '^	PTSIM_EV_[A-Z0-9_]*,')
	lf=$("$bench" list features | grep -c '^  [a-z0-9_][a-z0-9_]* ')
	le=$("$bench" list events | grep -c '^  [a-z0-9_][a-z0-9_]* ')
	if [ "$nf" -lt 30 ] || [ "$nf" != "$lf" ] || [ "$ne" -lt 100 ] || [ "$ne" != "$le" ]; then
		echo "FAIL: list: $lf of $nf features and $le of $ne events listed"
		fail=1
	fi
	"$bench" list features events 2>&1 >/dev/null | grep . && { echo "FAIL: list: a name without meaning"; fail=1; }
fi
rm -f "$scn"
# a scenario error names the line and column and what was expected
bad=$(mktemp)
printf 'mm A\nmmap A 1G 2M rw\nmprotect A 1G 2M rww\n' > "$bad"
expect 2 ":3:18: error: expected a protection" run "$bad"
printf 'mm A\nmprotect A 1G 2M r\n' > "$bad"
expect 1 ":2:1: error: mprotect failed" run "$bad"
printf 'repeat 3\nmm A\n' > "$bad"
expect 2 ":3:1: error: expected end" run "$bad"
printf 'mm A\nmmap A 1G+$q 2M rw\n' > "$bad"
expect 2 ":2:11: error: expected a number" run "$bad"
rm -f "$bad"
exit $fail
