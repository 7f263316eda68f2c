#!/bin/sh
# ptsim-bench run and audit: every failure has an exit status and says why, naming the line
# of the file where there is one; no count in a file hangs the runner (doc/scenario.md).
set -u
bench=$1
fail=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
expect() {	# expect STATUS PATTERN ARGS...: exit status, and PATTERN in the output, in 60 s
	want=$1 pattern=$2
	shift 2
	out=$(timeout 60 "$bench" "$@" 2>&1)
	got=$?
	if [ "$got" != "$want" ] || ! printf '%s\n' "$out" | grep -q -- "$pattern"; then
		echo "FAIL: ptsim-bench $* -> status $got (want $want), output:"
		printf '%s\n' "$out" | head -5
		fail=1
	fi
}
scn() {	# scn NAME TEXT: a scenario file
	printf "$2" > "$dir/$1.scn"
}
# the cpu= key of access and touch picks the CPU, it is not part of the access kind
scn cpu 'machine cpus=2\nmm A\nmmap A 1G 2M rw\nfault A 1G write\naccess A 1G read cpu=1\ntouch A 1G 2M write cpu=1\n'
expect 0 "tlb_l1_hit=" run "$dir/cpu.scn" --verbose
scn cpu2 'mm A\nmmap A 1G 2M rw\naccess A 1G read cpu=1\n'
expect 1 "cpu2.scn:3:1: error: access failed: invalid argument" run "$dir/cpu2.scn"
# a CPU number is not cut to 32 bits: 2^32 + 1 is not CPU 1 (issue 40 item 12)
scn cpubig 'machine cpus=2\nmm A\nmmap A 1G 2M rw\naccess A 1G read cpu=4294967297\n'
expect 1 "cpubig.scn:4:1: error: access failed: cpu=4294967297 is out of range" run "$dir/cpubig.scn"
scn cpubig2 'machine cpus=2\nraw-mm R\nraw-barrier dsb-ish cpu=0x100000001\n'
expect 1 "cpubig2.scn:3:1: error: raw-barrier failed: cpu=4294967297 is out of range" run "$dir/cpubig2.scn"
# where page frames come from: sequential, fragmented or shuffled, nothing else
scn phys 'machine phys=scattered\nmm A\n'
expect 2 "phys.scn:1:9: error: expected .*phys=sequential|fragmented|shuffled" run "$dir/phys.scn"
scn phys2 'machine phys=fragmented\nmm A\nmmap A 1G 64K rw\npopulate A 1G 64K\n'
expect 0 "page_zero=16" run "$dir/phys2.scn" --verbose
scn phys3 'machine phys=shuffled\nmm A\nmmap A 1G 64K rw\npopulate A 1G 64K\n'
expect 0 "page_zero=16" run "$dir/phys3.scn" --verbose
# the caches between calls: warm or cold, nothing else; cold reads the table from memory again
scn caches 'machine caches=lukewarm\nmm A\n'
expect 2 "caches.scn:1:9: error: expected .*caches=warm|cold" run "$dir/caches.scn"
scn caches2 'machine caches=cold\nmm A\nmmap A 1G 64K rw\npopulate A 1G 64K\ncheckpoint setup\nmprotect A 1G 64K r\ncheckpoint mprotect\n'
expect 0 "dcache_l1_hit=62 dcache_dram=5$" run "$dir/caches2.scn" --verbose --cpu apple-m3
# an expect line that could never be checked is a parse error (issue 40 item 13)
scn xbbm 'machine cpus=2\nraw-mm R\nexpect violations 0 bbm=7\n'
expect 2 "xbbm.scn:3:25: error: expected bbm=0, 1 or 2" run "$dir/xbbm.scn"
scn xbbm2 'raw-mm R\nrepeat 2 i\nexpect violations 0 bbm=$i\nend\n'
expect 2 "xbbm2.scn:3:25: error: expected bbm=0, 1 or 2" run "$dir/xbbm2.scn"
scn xabort 'raw-mm R\nexpect violations 0 noabort abort\n'
expect 2 "xabort.scn:2:8: error: expect: noabort and abort exclude each other" run "$dir/xabort.scn"
# nothing wraps: a constant sum when parsed, a sum with a variable when run
scn wrap 'mm A\nmmap A 0xffffffffffffffff+1 2M rw\n'
expect 2 "wrap.scn:2:27: error: number too large" run "$dir/wrap.scn"
scn wrap2 'mm A\nrepeat 2 i\naslr A 0xffffffffffffffff+$i\nend\n'
expect 1 "wrap2.scn:3:1: error: aslr failed: a number overflows 64 bits" run "$dir/wrap2.scn"
# checkpoints in a loop are bounded, with the reason
scn cps 'repeat 5000\ncheckpoint c\nend\n'
expect 1 "cps.scn:2:1: error: checkpoint failed: more than 4096 checkpoints" run "$dir/cps.scn"
# counts over the work budget are refused at once; loops stop at it
scn count 'mm A\nmmap A 1G 2M rx\nexec-random A 1G 2M count=1T seed=1\n'
expect 1 "count.scn:3:1: error: exec-random failed: over the work budget of 17179869184 units (--max-work)" \
	run "$dir/count.scn"
scn loop 'repeat 1T\nend\n'
expect 1 "loop.scn:1:1: error: repeat failed: over the work budget" run "$dir/loop.scn"
scn nested 'repeat 1000\nrepeat 1000\nend\nend\n'
expect 1 "nested.scn:[23]:[0-9]*: error: [a-z]* failed: over the work budget of 10000000 units" \
	run "$dir/nested.scn" --max-work 10000000
expect 2 "run: --max-work needs a positive number" run "$dir/loop.scn" --max-work 0
expect 2 "run: --max-work needs a positive number" run "$dir/loop.scn" --max-work -1
# a directory or an empty file is not an empty run
expect 1 "run: cannot read $dir: Is a directory" run "$dir"
# a device or a FIFO is not read until memory runs out; nor is a file over 256 MiB (issue 40 item 14)
expect 1 "run: cannot read /dev/zero: not a regular file" run /dev/zero
expect 1 "merge: cannot read /dev/zero: not a regular file" merge /dev/zero
expect 1 "sweep: cannot read /dev/zero: not a regular file" sweep /dev/zero
truncate -s 257M "$dir/huge.scn"
expect 1 "run: cannot read $dir/huge.scn: larger than 256 MiB" run "$dir/huge.scn"
rm -f "$dir/huge.scn"
scn empty '# nothing but a comment\n'
expect 2 "run: $dir/empty.scn: no operations" run "$dir/empty.scn"
# any preset without contpte (CONFIG_ARM64_CONTPTE=n): plain helpers, every entry read once;
# a kernel build option is not switched off under a contiguous user entry
scn nocont 'machine cpu=neoverse-n1 preset=v6.17\nthp 64K\nmm A\nmmap A 1G 64K rw\nfault A 1G write\ncheckpoint f\nmunmap A 1G 64K\n'
expect 0 "pte_read=16 pte_xchg=16 " run "$dir/nocont.scn" --features v6.17,-arm64_contpte --verbose
scn busy 'machine cpu=neoverse-n1 preset=v6.17\nthp 64K\nmm A\nmmap A 1G 64K rw\nfault A 1G write\nfeature arm64_contpte off\n'
expect 1 "busy.scn:6:1: error: feature failed: busy" run "$dir/busy.scn"
# the audit's presets: one to eight, each known
expect 2 "audit: --presets: expected a comma-separated list of presets" audit --presets ""
expect 2 "audit: --presets: expected a comma-separated list of presets" audit --presets ,
expect 2 "audit: --presets: at most 8 presets" audit --scenarios 1 \
	--presets v6.16,v6.17,v6.18,v6.19,patched,baseline,v6.8,v6.9,v6.10
expect 0 "1 random scenarios" audit --scenarios 1 --presets v6.16,v6.17,v6.18,v6.19,patched,baseline,v6.8,v6.9
# the text names the seed that runs the same scenarios again (issue 47)
expect 0 "  seed 7: --seed 7 runs the same scenarios" audit --scenarios 1 --seed 7
expect 1 "audit: --reproducers $dir/empty.scn: Not a directory" audit --scenarios 1 \
	--reproducers "$dir/empty.scn"
# a self-checking file: an expectation that does not hold fails the run, naming its line
scn expect 'raw-mm A\nexpect violations 1\n'
expect 1 "expect.scn:2:1: error: expect failed: 0 violations, expected 1" run "$dir/expect.scn"
expect 2 "run: --bbm needs 0, 1 or 2" run "$dir/expect.scn" --bbm 3
expect 2 "run: --noabort needs on or off" run "$dir/expect.scn" --noabort yes
# sweep reports its runs' diagnostics as run does (issue 47 item 3): counted on each row,
# listed once with the value that met them, in its JSON, and --check exits 3; nothing on stderr
scn swbbm 'sweep n 1,2\nmachine cpus=2\nraw-mm A\nraw-table A 0x40000000 1\nraw-table A 0x40000000 2\nraw-table A 0x40000000 3\nraw-write A 0x40000000 3 page=0x100000000 ng\naccess A 0x40000000 read cpu=1\nraw-write A 0x40000000 3\nraw-barrier dsb-ish\nraw-write A 0x40000000 3 page=0x100200000 ng\n'
expect 0 "1.*(2 diagnostics)" sweep "$dir/swbbm.scn" --cpu neoverse-n1
expect 0 "n=1\] bbm-violation x1" sweep "$dir/swbbm.scn" --cpu neoverse-n1
expect 3 "sweep: --check: 4 diagnostics" sweep "$dir/swbbm.scn" --cpu neoverse-n1 --check
expect 0 '"bbm-violation": 1' sweep "$dir/swbbm.scn" --cpu neoverse-n1 --json
# a raw sequence's chain is not ptsim-bench's own frame, and the line that fired is named
expect 0 "^    (no kernel frame) \[descriptor changed\]" run "$dir/swbbm.scn" --cpu neoverse-n1
expect 0 "first at va 0x40000000, level 3, line 11 (raw-write)$" run "$dir/swbbm.scn" --cpu neoverse-n1
err=$("$bench" sweep "$dir/swbbm.scn" --cpu neoverse-n1 2>&1 >/dev/null)
[ -z "$err" ] || { echo "FAIL: sweep wrote to stderr: $(printf '%s' "$err" | head -2)"; fail=1; }
# a bad machine value, feature or size says which values are valid, at its file:line:col
# (issue 47 item 6: a bad preset was blamed on a --features option never given)
scn xpreset 'machine preset=v6.99\nmm A\n'
expect 2 "xpreset.scn:1:16: error: unknown preset v6.99 (presets: baseline, patched, v6.6" run "$dir/xpreset.scn"
scn xcpu 'machine cpu=m3\nmm A\n'
expect 2 "xcpu.scn:1:13: error: unknown CPU m3 (cpus: apple-m3, " run "$dir/xcpu.scn"
scn xgranule 'machine granule=3K\nmm A\n'
expect 2 "xgranule.scn:1:17: error: bad value 3K (granule: 4K, 16K or 64K)" run "$dir/xgranule.scn"
scn xfeature 'feature nosuch on\nmm A\n'
expect 2 "xfeature.scn:1:9: error: unknown feature nosuch$" run "$dir/xfeature.scn"
# the valid names listed below it, 80 columns (issue 47)
expect 2 "^  features: mprotect_pte_batching, contpte_get_early_exit,$" run "$dir/xfeature.scn"
expect 2 "^    split_zeropage_remap, large_folio_batch_free, pageout_ignore_references,$" run "$dir/xfeature.scn"
expect 2 "^    pcp_high_auto, swap_zeromap, anon_unmap_batching$" run "$dir/xfeature.scn"
[ -z "$("$bench" run "$dir/xfeature.scn" 2>&1 | awk 'length($0) > 80')" ] ||
	{ echo "FAIL: xfeature: the names pass 80 columns"; fail=1; }
scn xfeature2 'feature mprotect_pte_batching\nmm A\n'
expect 2 "missing argument 2 (feature NAME on|off)" run "$dir/xfeature2.scn"
# zero says what a write stores: not with a read
scn xzero 'mm A\nmmap A 1G 64K rw\ntouch A 1G 64K read zero\n'
expect 2 "xzero.scn:3:1: error: touch: zero goes with write" run "$dir/xzero.scn"
scn xthp 'thp 3K\nmm A\n'
expect 1 "xthp.scn:1:1: error: thp failed: size 3072: a power of two, at least the page size 4K" run "$dir/xthp.scn"
exit $fail
