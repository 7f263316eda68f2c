// SPDX-License-Identifier: MIT
/*
 * Published results the model reproduces: values and sources only. Simulated
 * values never come from here; bench/rows.c runs the model for each id.
 */
#include "rows.h"

#define MPROTECT_SRC "mprotect large folios v3/v4, 2025-05-19/06-28"
#define MPROTECT_CITE "Dev Jain, [PATCH v4 0/4] Optimize mprotect() for large folios, 28 Jun 2025, " \
	"<20250628113435.46678-1-dev.jain@arm.com>; same times in v3, 19 May 2025 " \
	"(doc/workloads.md §mprotect). Whole-process seconds on an Apple M3, 4K pages."

#define UFFD_SRC "uffd MOVE TLB-flush batching v1-v6, 2025-07-31/08-16"
#define UFFD_CITE "Lokesh Gidra, [PATCH v6] userfaultfd: opportunistic TLB-flush batching for " \
	"present pages in MOVE, 16 Aug 2025 (same text v1-v6); profile of an arm64 Android device " \
	"with UFFD GC (doc/workloads.md §uffd)"

#define LM_SRC "arm64 large block linear map v1-v8, 2024-11-18/2025-09-17"
#define LM_CITE "Yang Shi, [RFC PATCH 0/3] arm64: support FEAT_BBM level 2 and large block " \
	"mapping when rodata=full, 18 Nov 2024 (same numbers through v8, 17 Sep 2025); " \
	"AmpereOne, 192 cores, 256 GB, 4K (doc/workloads.md §linear-map)"

#define EXEC_SRC "exec large folio readahead v7, 2026-06-01"
#define EXEC_CITE "Usama Arif, [PATCH v7 0/2] mm: improve large folio readahead for exec " \
	"memory, 1 Jun 2026 (numbers said to be in v1 of 10 Mar 2026, UNVERIFIED); Grace, 64K " \
	"pages, 512MB executable on ext4, 3 runs (doc/workloads.md §exec)"

const struct published published_rows[] = {
	{ "mprotect.m3.t1_speedup", MPROTECT_SRC, MPROTECT_CITE, "apple-m3",
	  "T1 time before/after (7.9 s / 2.1 s)", 7.9 / 2.1, 15, 0, 0, true },
	{ "mprotect.m3.t2_speedup", MPROTECT_SRC, MPROTECT_CITE, "apple-m3",
	  "T2 time before/after (7.9 s / 2.2 s)", 7.9 / 2.2, 15, 0, 0, false },
	{ "mprotect.m3.t3_speedup", MPROTECT_SRC, MPROTECT_CITE, "apple-m3",
	  "T3 time before/after (4.2 s / 4.3 s)", 4.2 / 4.3, 15, 0, 0, false },
	{ "mprotect.m3.t1_over_t3_before", MPROTECT_SRC, MPROTECT_CITE, "apple-m3",
	  "before: T1 time / T3 time (7.9 s / 4.2 s)", 7.9 / 4.2, 15, 0, 0, false },
	{ "mprotect.m3.t1_before_seconds", MPROTECT_SRC, MPROTECT_CITE, "apple-m3",
	  "T1 whole-process time before, s", 7.9, 15, 0, 0, false },
	{ "mprotect.m3.t1_after_seconds", MPROTECT_SRC, MPROTECT_CITE, "apple-m3",
	  "T1 whole-process time after, s", 2.1, 15, 0, 0, false },
	{ "mprotect.m3.t2_before_seconds", MPROTECT_SRC, MPROTECT_CITE, "apple-m3",
	  "T2 whole-process time before, s", 7.9, 15, 0, 0, false },
	{ "mprotect.m3.t2_after_seconds", MPROTECT_SRC, MPROTECT_CITE, "apple-m3",
	  "T2 whole-process time after, s", 2.2, 15, 0, 0, false },
	{ "mprotect.m3.t3_before_seconds", MPROTECT_SRC, MPROTECT_CITE, "apple-m3",
	  "T3 whole-process time before, s", 4.2, 15, 0, 0, false },
	{ "mprotect.m3.t3_after_seconds", MPROTECT_SRC, MPROTECT_CITE, "apple-m3",
	  "T3 whole-process time after, s (4.2 in v1/v2)", 4.3, 15, 0, 0, false },
	{ "uffd.android.clear_flush_share_before", UFFD_SRC, UFFD_CITE, "android-x1",
	  "share of move_pages_pte time in ptep_clear_flush, before (\"over 40%\")", 0.40, 0,
	  0.40, 0.50, false },
	{ "uffd.android.normal_folio_share_before", UFFD_SRC, UFFD_CITE, "android-x1",
	  "share of move_pages_pte time in vm_normal_folio, before (\"~20%\")", 0.20, 0, 0.15, 0.25, false },
	{ "uffd.android.normal_folio_share_after", UFFD_SRC, UFFD_CITE, "android-x1",
	  "share of move_pages_pte time in vm_normal_folio, after (\"over 70%\")", 0.70, 0, 0.70,
	  1.00, false },
	{ "uffd.android.move_pages_pte_speedup", UFFD_SRC, UFFD_CITE, "android-x1",
	  "move_pages_pte time before/after (\"only ~20%\" read as 1/0.2)", 5.0, 0, 0, 0, false },
	{ "linear_map.ampereone.memtotal_gain_kib", LM_SRC, LM_CITE, "ampereone",
	  "MemTotal block-mapped minus PTE-mapped, kB (259505132 - 258988984)", 516148, 5, 0, 0, false },
	{ "linear_map.ampereone.kernel_tlb_miss_reduction", LM_SRC, LM_CITE, "ampereone",
	  "relative reduction of kernel TLB misses, memcached (MPKI -28.5%)", 0.285, 0, 0, 0, false },
	{ "exec.grace.cold_speedup", EXEC_SRC, EXEC_CITE, "neoverse-v2",
	  "cold fault time before/after (83.4 ms / 41.3 ms)", 83.4 / 41.3, 15, 0, 0, false },
	{ "exec.grace.random_speedup", EXEC_SRC, EXEC_CITE, "neoverse-v2",
	  "random call time before/after (76.0 ms / 58.3 ms)", 76.0 / 58.3, 15, 0, 0, false },
};

const unsigned int nr_published_rows = sizeof(published_rows) / sizeof(published_rows[0]);
