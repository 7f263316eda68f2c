// SPDX-License-Identifier: MIT
/*
 * ptsim-bench predict: the mm-lifecycle benchmarks of the batching series,
 * each replayed as its publication ran it (doc/workloads.md §lifecycle):
 * the sizes, folio orders, iteration counts, CPU, the kernel pair and what
 * was timed. Where the publication gives a number, the row prints it beside
 * the model's and the error. These are predictions: no profile constant is
 * fitted on them, and none has a target (no publication gives a tolerance).
 */
#include "caveats.h"
#include "machine_state.h"
#include "rows.h"
#include "sim_cache.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)
#define PAGE UINT64_C(4096)
#define RW (PTSIM_PROT_READ | PTSIM_PROT_WRITE)
#define ANON (PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS)
#define MAX_VARIANTS 4

/* What one workload runs on: the mm, and a child a fork leaves behind. */
struct run {
	struct ptsim_mm *mm;
	struct ptsim_mm *child;	/* destroyed after the measured counts are taken */
	int arg;
};

/* How a row states its published numbers. */
enum metric {
	METRIC_SECONDS,		/* the measured part, in seconds */
	METRIC_MICROSECONDS,	/* one measured iteration (the average), in us */
	METRIC_RELATIVE,	/* time over the first kernel's time */
};

/* One kernel of a row: a preset and feature changes ("v6.16,+feature,-feature"). */
struct variant {
	const char *kernel;
	const char *label;	/* what the publication calls it */
	double published;	/* in the row's metric; 0: none */
};

/*
 * A workload: set-up (not measured), an optional measured `head`, then
 * `iterations` measured steps, each after an optional unmeasured `pre`, then
 * an optional measured `tail`.
 * Loops are simulated for three steps: the second and third must count the
 * same events (the steady state), and the other iterations are copies of it.
 */
struct workload {
	const char *id;
	enum ptsim_cpu cpu;
	const char *what, *timed;
	const char *source, *citation;
	enum metric metric;
	int (*setup)(struct run *r);
	int (*head)(struct run *r);
	int (*pre)(struct run *r);
	int (*step)(struct run *r);
	int (*tail)(struct run *r);
	unsigned int iterations;
	int arg;
	struct variant variants[MAX_VARIANTS];
};

/* An anonymous mapping of len at 1 GiB, written through folios of the order. */
static int mmap_populated(struct ptsim_mm *mm, uint64_t len, unsigned int order)
{
	int err = ptsim_mmap(mm, GIB, len, RW, ANON, NULL);

	return err ? err : ptsim_populate(mm, GIB, len, order, true);
}

/*
 * One user load or store every stride bytes of [start, start + len), as a
 * loop of the benchmark program touching one byte per page does; a page that faults is handled by the kernel's
 * fault path (a missing page, or an access-flag or dirty fault on a CPU
 * without hardware updates) and the access is retried.
 */
static int user_access_range(struct ptsim_mm *mm, uint64_t start, uint64_t len, uint64_t stride,
			     enum ptsim_access_kind kind)
{
	int err = 0;

	for (uint64_t va = start; !err && va < start + len; va += stride) {
		enum ptsim_fault_kind f;

		err = ptsim_access(mm, 0, va, kind, &f);
		if (err == -EFAULT) {
			err = ptsim_fault(mm, va, kind);
			if (!err)
				err = ptsim_access(mm, 0, va, kind, &f);
		}
	}
	return err;
}

/*
 * memset of [start, start + len) in a fresh anonymous mapping, as the
 * reproduce programs replay it: the first write to each folio faults it in
 * (a folio of the enabled mTHP size, zeroed), then every page is written.
 */
static int user_memset(struct ptsim_mm *mm, uint64_t start, uint64_t len, uint64_t folio)
{
	uint64_t faults = 0;
	int err = 0;

	for (uint64_t va = start; !err && va < start + len; va += folio)
		err = ptsim_fault(mm, va, PTSIM_ACCESS_WRITE);
	if (!err)
		err = ptsim_touch(mm, 0, start, len, PTSIM_ACCESS_WRITE, &faults);
	return err ? err : faults ? -EFAULT : 0;
}

/*
 * David Hildenbrand's pte-mapped-folio-benchmarks, as Ryan Roberts ran it for
 * the contpte series: 1 GiB of order-9 THPs, PTE-mapped (the PMDs split, the
 * folios whole).
 */
static int setup_pte_mapped_thp(struct run *r)
{
	int err = mmap_populated(r->mm, GIB, 9);

	if (!err)
		err = ptsim_split_huge_pmd(r->mm, GIB, GIB);
	return err;
}

/* Only the fork() call is timed: the child is torn down after the counts. */
static int step_fork(struct run *r)
{
	return ptsim_fork(r->mm, &r->child);
}

static int step_munmap_1g(struct run *r)
{
	return ptsim_munmap(r->mm, GIB, GIB);
}

/*
 * madvise(MADV_DONTNEED) of each 4K page of the 1 GiB in turn, as the
 * publication ran it ("madvise(dontneed) is called for each page of a 1G
 * populated mapping and the total time is measured", contpte v4 16/16).
 */
static int step_dontneed_1g(struct run *r)
{
	for (uint64_t a = GIB; a < 2 * GIB; a += PAGE) {
		int err = ptsim_madvise(r->mm, a, PAGE, PTSIM_MADV_DONTNEED);

		if (err)
			return err;
	}
	return 0;
}

/* Only 64K mTHP enabled, as the mremap and lazyfree programs ran. */
static int setup_64k_mthp(struct run *r)
{
	return ptsim_set_thp_orders(ptsim_mm_machine(r->mm), 1u << 4);
}

/*
 * Dev Jain's mremap program, one iteration: mmap 1 MiB at 1 GiB, memset it
 * (a 64K mTHP fault per 64K, then the writes), mremap it MREMAP_FIXED to
 * 1 GiB + 1 MiB, munmap it.
 */
static int step_mremap(struct run *r)
{
	int err = ptsim_mmap(r->mm, GIB, MIB, RW, ANON, NULL);

	if (!err)
		err = user_memset(r->mm, GIB, MIB, 64 * 1024);
	if (!err)
		err = ptsim_mremap(r->mm, GIB, MIB, MIB, PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
				   GIB + MIB, NULL);
	if (!err)
		err = ptsim_munmap(r->mm, GIB + MIB, MIB);
	return err;
}

#define MLOCK_SIZE (256 * MIB)	/* TEST_SIZE: 4096 x CONT_PTES x PAGE_SIZE */
enum { YOUNG_DIRTY, ONE_YOUNG, OLD_CLEAN };

/*
 * Xavier Xia's test_contpte_perf(), all of it timed: a 64K-aligned 256 MiB
 * buffer (posix_memalign, an anonymous mmap with 64K mTHP), every page
 * written and read (rwdata); then, for scenarios 2 and 3, MADV_FREE and
 * MADV_COLD of the whole buffer, and for scenario 2 a read of page 8 of
 * every 64K block (set_one_young).
 */
static int head_mlock(struct run *r)
{
	struct ptsim_mm *mm = r->mm;
	int err = ptsim_mmap(mm, GIB, MLOCK_SIZE, RW, ANON, NULL);

	for (uint64_t va = GIB; !err && va < GIB + MLOCK_SIZE; va += PAGE) {
		err = user_access_range(mm, va, PAGE, PAGE, PTSIM_ACCESS_WRITE);
		if (!err)
			err = user_access_range(mm, va, PAGE, PAGE, PTSIM_ACCESS_READ);
	}
	if (!err && r->arg != YOUNG_DIRTY)
		err = ptsim_madvise(mm, GIB, MLOCK_SIZE, PTSIM_MADV_FREE);
	if (!err && r->arg != YOUNG_DIRTY)
		err = ptsim_madvise(mm, GIB, MLOCK_SIZE, PTSIM_MADV_COLD);
	if (!err && r->arg == ONE_YOUNG)
		err = user_access_range(mm, GIB + 8 * PAGE, MLOCK_SIZE, 16 * PAGE,
					PTSIM_ACCESS_READ);
	return err;
}

static int step_mlock(struct run *r)
{
	int err = ptsim_mlock(r->mm, GIB, MLOCK_SIZE);

	return err ? err : ptsim_munlock(r->mm, GIB, MLOCK_SIZE);
}

/* free(buf): glibc returns an mmap'd chunk with munmap. */
static int tail_mlock(struct run *r)
{
	return ptsim_munmap(r->mm, GIB, MLOCK_SIZE);
}

/*
 * Dev Jain's PROT_NONE <-> RW toggle. The region's size is not published:
 * one page, written once while RW, so that its entry is present.
 */
static int setup_toggle_page(struct run *r)
{
	return mmap_populated(r->mm, PAGE, 0);
}

static int pre_prot_none(struct run *r)
{
	return ptsim_mprotect(r->mm, GIB, PAGE, PTSIM_PROT_NONE);
}

/* Only the none -> rw transition is timed (its average). */
static int step_prot_rw(struct run *r)
{
	return ptsim_mprotect(r->mm, GIB, PAGE, RW);
}

#define LAZYFREE_SIZE (128 * MIB)

/* len at 1 GiB, mapped and memset in 64K mTHP: a fault per 64K, then the writes */
static int mmap_memset_64k(struct run *r, uint64_t len)
{
	int err = setup_64k_mthp(r);

	if (!err)
		err = ptsim_mmap(r->mm, GIB, len, RW, ANON, NULL);
	if (!err)
		err = user_memset(r->mm, GIB, len, 64 * 1024);
	return err;
}

/*
 * Barry Song's lazyfree program: mmap 128 MB, memset it (64K mTHP), then
 * MADV_FREE; only the MADV_PAGEOUT that follows is timed.
 */
static int setup_lazyfree(struct run *r)
{
	int err = mmap_memset_64k(r, LAZYFREE_SIZE);

	if (!err)
		err = ptsim_madvise(r->mm, GIB, LAZYFREE_SIZE, PTSIM_MADV_FREE);
	return err;
}

static int step_pageout(struct run *r)
{
	return ptsim_madvise(r->mm, GIB, LAZYFREE_SIZE, PTSIM_MADV_PAGEOUT);
}

#define SWAPOUT_SIZE (256 * MIB)

/*
 * Dev Jain's swap-out program (Barry Song's, adapted): mmap 256 MiB, memset
 * it to zeros (a 64K mTHP fault per 64K, then the writes); only the
 * MADV_PAGEOUT that follows is timed.
 */
static int setup_zero_swapout(struct run *r)
{
	int err = mmap_memset_64k(r, SWAPOUT_SIZE);

	if (!err)
		err = ptsim_set_zero_filled(r->mm, GIB, SWAPOUT_SIZE);
	return err;
}

static int step_swapout(struct run *r)
{
	return ptsim_madvise(r->mm, GIB, SWAPOUT_SIZE, PTSIM_MADV_PAGEOUT);
}

#define CONTPTE_SRC "contpte v5, 2024-02-02"
#define CONTPTE_CITE "Ryan Roberts, [PATCH v5 00/25] Transparent Contiguous PTEs for User " \
	"Mappings, 2 Feb 2024, <20240202080756.1453939-1-ryan.roberts@arm.com>, Micro Benchmarks " \
	"(order-9, Ampere Altra, mean change vs baseline); David Hildenbrand's " \
	"pte-mapped-folio-benchmarks (doc/workloads.md §lifecycle)"
#define CONTPTE_V4_SRC "contpte v4, 2023-12-18"
#define CONTPTE_V4_CITE "Ryan Roberts, [PATCH v4 00/16] Transparent Contiguous PTEs for User " \
	"Mappings, 18 Dec 2023, <20231218105100.172635-1-ryan.roberts@arm.com>, Micro Benchmarks " \
	"(Ampere Altra, order-9, dontneed, mean change vs baseline) (doc/workloads.md §lifecycle)"
#define MREMAP_SRC "mremap large folios v4, 2025-06-10"
#define MREMAP_CITE "Dev Jain, [PATCH v4 0/2] Optimize mremap() for large folios, 10 Jun 2025, " \
	"<20250610035043.75448-1-dev.jain@arm.com>; test program and average execution time on " \
	"an Apple M3 (doc/workloads.md §lifecycle)"
#define MLOCK_SRC "contpte_ptep_get early exit v5, 2025-05-09"
#define MLOCK_CITE "Xavier Xia, [PATCH v5] arm64/mm: Optimize loop to reduce redundant " \
	"operations of contpte_ptep_get, 9 May 2025, <20250509122728.2379466-1-xavier_qy@163.com>; " \
	"test time of test_contpte_perf() on \"a certain Qualcomm mobile phone chip\" " \
	"(doc/workloads.md §lifecycle)"
#define FLUSH_SRC "arm64 pte_needs_flush v2, 2025-09-20"
#define FLUSH_CITE "Dev Jain, [PATCH v2] arm64/mm: Elide TLB flush in certain pte protection " \
	"transitions, 20 Sep 2025, <20250920051043.16421-1-dev.jain@arm.com> (v1: 3.2 -> 2.95 us); " \
	"CPU and region size not stated (doc/workloads.md §lifecycle)"
#define LAZYFREE_SRC "lazyfree batched unmap v4 3/4, 2025-02-14"
#define LAZYFREE_CITE "Barry Song, [PATCH v4 3/4] mm: Support batched unmap for lazyfree large " \
	"folios during reclamation, 14 Feb 2025, <20250214093015.51024-4-21cnbao@gmail.com>; mean of " \
	"the 16 and 17 runs listed; CPU not stated (doc/workloads.md §lifecycle)"

#define ANON_UNMAP_SRC "anon large folio unmapping v4, 2026-05-26"
#define ANON_UNMAP_CITE "Dev Jain, [PATCH v4 00/12] Optimize anonymous large folio unmapping, " \
	"26 May 2026 (the same figures in v2, 10 Apr 2026), " \
	"<https://lkml.iu.edu/2605.3/02495.html>; mean of the runs, a Linux VM on an Apple M3 " \
	"(doc/workloads.md §lifecycle)"

/* contpte v5's four steps; contpte-inline (__always_inline) counts as contpte-batch. */
#define CONTPTE_V5_STEPS(basic, batch, fold) {						\
	{ "v6.9,-arm64_contpte", "baseline: fork+zap batching, no contpte", 1.0 },	\
	{ "v6.9,-contpte_wrprotect_helper,-contpte_clear_helpers,-pte_batch_hint,-contpte_autofold", \
	  "contpte-basic", basic },							\
	{ "v6.9,-contpte_autofold", "contpte-batch", batch },				\
	{ "v6.9", "contpte-fold (merged v6.9)", fold } }

static const struct workload workloads[] = {
	{ "lifecycle.altra.fork_1g_pte_mapped_thp", PTSIM_CPU_NEOVERSE_N1,
	  "1 GiB of PTE-mapped order-9 THP", "the fork() call",
	  CONTPTE_SRC, CONTPTE_CITE, METRIC_RELATIVE,
	  setup_pte_mapped_thp, NULL, NULL, step_fork, NULL, 1, 0,
	  CONTPTE_V5_STEPS(1 + 19.487, 1 - 0.019, 1 - 0.018) },
	{ "lifecycle.altra.munmap_1g_pte_mapped_thp", PTSIM_CPU_NEOVERSE_N1,
	  "1 GiB of PTE-mapped order-9 THP", "the munmap() of the 1 GiB",
	  CONTPTE_SRC, CONTPTE_CITE, METRIC_RELATIVE,
	  setup_pte_mapped_thp, NULL, NULL, step_munmap_1g, NULL, 1, 0,
	  CONTPTE_V5_STEPS(1 + 11.048, 1 + 0.027, 1 + 0.008) },
	{ "lifecycle.altra.dontneed_1g_pte_mapped_thp", PTSIM_CPU_NEOVERSE_N1,
	  "1 GiB of PTE-mapped order-9 THP", "madvise(MADV_DONTNEED) of each 4K page in turn",
	  CONTPTE_V4_SRC, CONTPTE_V4_CITE, METRIC_RELATIVE,
	  setup_pte_mapped_thp, NULL, NULL, step_dontneed_1g, NULL, 1, 0,
	  { { "v6.8", "baseline: mm-unstable, no contpte", 1.0 },
	    { "v6.9", "contpte-ena (v4; modelled: merged v6.9)", 1 + 0.141 } } },
	{ "lifecycle.m3.mremap_loop", PTSIM_CPU_APPLE_M3,
	  "10,000 x (mmap 1 MiB, memset with 64K mTHP, mremap FIXED +1 MiB, munmap)",
	  "the whole loop", MREMAP_SRC, MREMAP_CITE, METRIC_SECONDS,
	  setup_64k_mthp, NULL, NULL, step_mremap, NULL, 10000, 0,
	  { { "v6.16", "mm-unstable 6ebffe676fcf", 1.9 },
	    { "v6.16,+mremap_pte_batching", "+ the series", 1.2 } } },
	{ "lifecycle.x1.mlock_loop_young_dirty", PTSIM_CPU_ANDROID_X1,
	  "scenario 1: 256 MiB of 64K mTHP, every entry young and dirty; 500 x (mlock; munlock)",
	  "test_contpte_perf() (set-up, loop, free)", MLOCK_SRC, MLOCK_CITE, METRIC_SECONDS,
	  setup_64k_mthp, head_mlock, NULL, step_mlock, tail_mlock, 500, YOUNG_DIRTY,
	  { { "v6.16", "original", 4.2797 },
	    { "v6.16,+contpte_get_early_exit", "optimized", 2.2949 } } },
	{ "lifecycle.x1.mlock_loop_one_young", PTSIM_CPU_ANDROID_X1,
	  "scenario 2: the same after MADV_FREE, MADV_COLD and a read of page 8 of each block",
	  "test_contpte_perf() (set-up, loop, free)", MLOCK_SRC, MLOCK_CITE, METRIC_SECONDS,
	  setup_64k_mthp, head_mlock, NULL, step_mlock, tail_mlock, 500, ONE_YOUNG,
	  { { "v6.16", "original", 3.2335 },
	    { "v6.16,+contpte_get_early_exit", "optimized", 3.0874 } } },
	{ "lifecycle.x1.mlock_loop_old_clean", PTSIM_CPU_ANDROID_X1,
	  "scenario 3: the same after MADV_FREE and MADV_COLD (no entry young or dirty)",
	  "test_contpte_perf() (set-up, loop, free)", MLOCK_SRC, MLOCK_CITE, METRIC_SECONDS,
	  setup_64k_mthp, head_mlock, NULL, step_mlock, tail_mlock, 500, OLD_CLEAN,
	  { { "v6.16", "original", 3.2008 },
	    { "v6.16,+contpte_get_early_exit", "optimized", 3.1249 } } },
	{ "lifecycle.m3.mprotect_none_to_rw_toggle", PTSIM_CPU_APPLE_M3,
	  "one written 4K page toggled PROT_NONE <-> PROT_READ|PROT_WRITE (size ASSUMED)",
	  "the average none -> rw mprotect()", FLUSH_SRC, FLUSH_CITE, METRIC_MICROSECONDS,
	  setup_toggle_page, NULL, pre_prot_none, step_prot_rw, NULL, 3, 0,
	  { { "v6.18", "6.18-rc1", 3.2 },
	    { "v6.18,+arm64_pte_needs_flush", "+ pte_needs_flush", 2.85 } } },
	{ "lifecycle.x1.pageout_lazyfree_128m_64k", PTSIM_CPU_ANDROID_X1,
	  "128 MB of 64K mTHP, memset, MADV_FREE (lazyfree, clean)",
	  "the madvise(MADV_PAGEOUT)", LAZYFREE_SRC, LAZYFREE_CITE, METRIC_SECONDS,
	  setup_lazyfree, NULL, NULL, step_pageout, NULL, 1, 0,
	  { { "v6.16,-lazyfree_unmap_batching", "w/o patch", 0.173049 },
	    { "v6.16", "w/ patch", 0.0724755 } } },
	{ "lifecycle.m3.pageout_swap_256m_64k", PTSIM_CPU_APPLE_M3,
	  "256 MiB of 64K mTHP, memset to zeros",
	  "the madvise(MADV_PAGEOUT)", ANON_UNMAP_SRC, ANON_UNMAP_CITE, METRIC_SECONDS,
	  setup_zero_swapout, NULL, NULL, step_swapout, NULL, 1, 0,
	  { { "v6.19", "Vanilla", 0.037401913 },
	    { "v6.19,+anon_unmap_batching", "Patched", 0.017420282 } } },
};

const char *lifecycle_row_id(unsigned int i)
{
	return i < sizeof(workloads) / sizeof(workloads[0]) ? workloads[i].id : NULL;
}

/*
 * A kernel spec: a preset, then ",+feature" or ",-feature" changes. -ENOENT
 * when a feature is not in this build (missing names it), -EINVAL when the
 * preset is unknown or a change has no sign.
 */
static int apply_kernel(struct ptsim_machine *m, const char *spec, char *missing, size_t len)
{
	char *copy = strdup(spec), *save = NULL, *tok;
	int err;

	if (!copy)
		return -ENOMEM;
	tok = strtok_r(copy, ",", &save);
	err = tok ? ptsim_feature_preset(m, tok) : -EINVAL;
	while (!err && (tok = strtok_r(NULL, ",", &save))) {
		enum ptsim_feature f;

		if (tok[0] != '+' && tok[0] != '-') {
			err = -EINVAL;
			break;
		}
		if (ptsim_feature_lookup(tok + 1, &f)) {
			snprintf(missing, len, "%s", tok + 1);
			err = -ENOENT;
			break;
		}
		err = ptsim_feature_set(m, f, tok[0] == '+');
	}
	free(copy);
	return err;
}

/* What a call counted: its events and its loop turns. */
struct counts {
	struct ptsim_stats ev;
	struct ptsim_loop_stats loops;
};

/* The counts of one call of fn, as the totals of m moved. */
static int counted(struct run *r, int (*fn)(struct run *r), struct counts *out)
{
	struct ptsim_machine *m = ptsim_mm_machine(r->mm);
	struct ptsim_stats s0, s1;
	struct ptsim_loop_stats l0, l1;
	int err;

	ptsim_total_stats(m, &s0);
	ptsim_total_loop_stats(m, &l0);
	err = fn(r);
	ptsim_total_stats(m, &s1);
	ptsim_total_loop_stats(m, &l1);
	memset(out, 0, sizeof(*out));
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		out->ev.ev[e] = s1.ev[e] - s0.ev[e];
	for (unsigned int l = 0; l < PTSIM_LOOP__COUNT; l++)
		out->loops.iter[l] = l1.iter[l] - l0.iter[l];
	return err;
}

static void counts_add(struct counts *to, const struct counts *c, uint64_t times)
{
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		to->ev.ev[e] += c->ev.ev[e] * times;
	for (unsigned int l = 0; l < PTSIM_LOOP__COUNT; l++)
		to->loops.iter[l] += c->loops.iter[l] * times;
}

/*
 * Simulate one workload on one kernel on cpu: the counts of what the
 * publication timed (for METRIC_MICROSECONDS, of one steady iteration).
 */
static int simulate_variant(const struct workload *w, enum ptsim_cpu cpu, const char *kernel,
			    struct counts *out, char *missing, size_t len)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct run r = { .arg = w->arg };
	struct counts total, step[3];
	unsigned int sim = w->iterations < 3 ? w->iterations : 3;
	int err;

	ptsim_machine_config_init(&cfg);
	cfg.cpu = cpu;
	cfg.phys_size = 4 * GIB;
	err = ptsim_machine_create(&cfg, &m);
	if (err)
		return err;
	err = machine_state_apply(m, w->id, 1);
	if (!err)
		err = apply_kernel(m, kernel, missing, len);
	if (!err)
		err = ptsim_mm_create(m, &r.mm);
	if (!err && w->setup)
		err = w->setup(&r);
	memset(&total, 0, sizeof(total));
	if (!err && w->head) {
		struct counts h;

		err = counted(&r, w->head, &h);
		counts_add(&total, &h, 1);
	}
	for (unsigned int i = 0; !err && i < sim; i++) {
		if (w->pre)
			err = w->pre(&r);
		if (!err)
			err = counted(&r, w->step, &step[i]);
		if (r.child) {
			ptsim_mm_destroy(r.child);	/* not timed */
			r.child = NULL;
		}
	}
	/*
	 * The steady state: iterations 2 and 3 count the same kernel work, the
	 * rest copy it. The data cache's levels (the events from
	 * PTSIM_EV_DCACHE_L1_HIT on) may still settle; iteration 2's stand.
	 */
	if (!err && sim == 3 &&
	    (memcmp(step[1].ev.ev, step[2].ev.ev, sizeof(step[1].ev.ev[0]) * PTSIM_EV_DCACHE_L1_HIT) ||
	     memcmp(step[1].loops.iter, step[2].loops.iter, sizeof(step[1].loops.iter))))
		err = -EDOM;
	if (!err && w->metric == METRIC_MICROSECONDS) {
		/* the average over many iterations: the steady state's */
		memset(&total, 0, sizeof(total));
		counts_add(&total, &step[sim - 1], 1);
	} else if (!err) {
		counts_add(&total, &step[0], 1);
		if (w->iterations > 1)
			counts_add(&total, &step[1], w->iterations - 1);
	}
	if (!err && w->tail) {
		struct counts t;

		err = counted(&r, w->tail, &t);
		counts_add(&total, &t, 1);
	}
	if (!err)
		*out = total;
	ptsim_machine_destroy(m);
	return err;
}

/*
 * Run one workload on one kernel: its counts (simulated, or read back from
 * the test run's cache, bench/sim_cache.h) priced on cpu, in ns.
 */
static int run_variant(const struct workload *w, enum ptsim_cpu cpu, const char *kernel,
		       double *ns, char *missing, size_t len)
{
	struct ptsim_overlap_prediction p;
	struct counts total;
	char name[256];
	int err = 0;

	snprintf(name, sizeof(name), "predict-%s-%s-%s", w->id, ptsim_cpu_name(cpu), kernel);
	if (!sim_cache_load(name, &total, sizeof(total))) {
		err = simulate_variant(w, cpu, kernel, &total, missing, len);
		if (!err)
			sim_cache_store(name, &total, sizeof(total));
	}
	if (!err)
		err = ptsim_predict_overlap(cpu, PTSIM_GRANULE_4K, &total.ev, &total.loops, &p);
	if (!err)
		*ns = p.total_ns;
	return err;
}

/* A variant's time in the row's metric (relative: over the first kernel's). */
static double in_metric(const struct workload *w, double ns, double first_ns)
{
	switch (w->metric) {
	case METRIC_SECONDS: return ns / 1e9;
	case METRIC_MICROSECONDS: return ns / 1e3;
	case METRIC_RELATIVE: return first_ns > 0 ? ns / first_ns : 0;
	}
	return 0;
}

static const char *metric_name(enum metric m)
{
	switch (m) {
	case METRIC_SECONDS: return "seconds";
	case METRIC_MICROSECONDS: return "microseconds per iteration";
	case METRIC_RELATIVE: return "time relative to the first kernel";
	}
	return "";
}

struct variant_result {
	int err;
	char missing[64];
	double ns, value;	/* value: in the row's metric; valid when have_value */
	bool have_value;
};

static double error_pct(double simulated, double published)
{
	return 100.0 * (simulated - published) / published;
}

static void print_json_number(double v, bool valid)
{
	if (valid)
		json_double(v);
	else
		printf("null");
}

/* The kernels of a row's n variants, for its caveats. */
static const char *const *kernels_of(const struct workload *w, unsigned int n,
				     const char **out)
{
	for (unsigned int i = 0; i < n; i++)
		out[i] = w->variants[i].kernel;
	return out;
}

static void print_json_row(const struct workload *w, enum ptsim_cpu cpu, unsigned int n,
			   const struct variant_result *res, bool first)
{
	const struct variant *v = w->variants;
	const char *kernels[MAX_VARIANTS];
	bool speed = res[0].have_value && res[n - 1].have_value && res[n - 1].ns > 0;

	printf("%s  {\"id\": ", first ? "" : ",\n");
	json_string(w->id);
	printf(", \"source\": ");
	json_string(w->source);
	printf(", \"citation\": ");
	json_string(w->citation);
	printf(", \"cpu\": ");
	json_string(ptsim_cpu_name(cpu));
	printf(", \"published_cpu\": ");
	json_string(ptsim_cpu_name(w->cpu));
	printf(", \"workload\": ");
	json_string(w->what);
	printf(", \"timed\": ");
	json_string(w->timed);
	printf(", \"iterations\": ");
	print_json_number(w->iterations, w->metric != METRIC_MICROSECONDS);
	printf(", \"metric\": ");
	json_string(metric_name(w->metric));
	printf(", \"role\": \"prediction\", \"target\": null, \"variants\": [");
	for (unsigned int i = 0; i < n; i++) {
		bool err_ok = res[i].have_value && v[i].published > 0;

		printf("%s{\"kernel\": ", i ? ", " : "");
		json_string(v[i].kernel);
		printf(", \"label\": ");
		json_string(v[i].label);
		printf(", \"ns\": ");
		print_json_number(res[i].ns, !res[i].err);
		printf(", \"published\": ");
		print_json_number(v[i].published, v[i].published > 0);
		printf(", \"simulated\": ");
		print_json_number(res[i].value, res[i].have_value);
		printf(", \"error_pct\": ");
		print_json_number(err_ok ? error_pct(res[i].value, v[i].published) : 0, err_ok);
		printf(", \"status\": ");
		if (res[i].missing[0]) {
			char why[128];

			snprintf(why, sizeof(why), "needs feature %s, not in this build",
				 res[i].missing);
			json_string(why);
		} else {
			json_string("ok");
		}
		printf("}");
	}
	printf("], \"speedup\": {\"published\": ");
	json_double(v[0].published / v[n - 1].published);
	printf(", \"simulated\": ");
	print_json_number(speed ? res[0].ns / res[n - 1].ns : 0, speed);
	printf(", \"error_pct\": ");
	print_json_number(speed ? error_pct(res[0].ns / res[n - 1].ns,
					    v[0].published / v[n - 1].published) : 0, speed);
	printf("}");
	print_caveats_json(w->id, kernels_of(w, n, kernels), n);
	print_machine_state_json(w->id);
	printf("}");
}

/* Words of text from column col on, wrapped at 80 columns with indent spaces. */
static void print_wrapped_list(const char *text, unsigned int col, unsigned int indent, char sep)
{
	for (const char *t = text; *t;) {
		size_t w = strcspn(t + 1, (char[]){ sep, 0 }) + 1;	/* a word and its separator */

		if (col + w > 80 && col > indent) {
			printf("\n%*s", (int)indent, "");
			col = indent;
			if (*t == ' ') {
				t++;
				w--;
			}
		}
		printf("%.*s", (int)w, t);
		col += (unsigned int)w;
		t += w;
	}
	printf("\n");
}

static void print_text_row(const struct workload *w, enum ptsim_cpu cpu, unsigned int n,
			   const struct variant_result *res, bool wide)
{
	const struct variant *v = w->variants;
	const char *kernels[MAX_VARIANTS];
	char count[48];

	if (w->metric == METRIC_MICROSECONDS)
		snprintf(count, sizeof(count), "the steady state");
	else
		snprintf(count, sizeof(count), "%u iteration%s", w->iterations,
			 w->iterations == 1 ? "" : "s");
	if (wide) {
		printf("%s  [%s on %s; timed: %s; %s; %s]\n", w->id, w->what, ptsim_cpu_name(cpu),
		       w->timed, count, metric_name(w->metric));
	} else {
		char head[512];

		snprintf(head, sizeof(head), " [%s on %s; timed: %s; %s; %s]", w->what,
			 ptsim_cpu_name(cpu), w->timed, count, metric_name(w->metric));
		printf("%s", w->id);
		print_wrapped_list(head, (unsigned int)strlen(w->id), 2, ' ');
	}
	for (unsigned int i = 0; i < n; i++) {
		char sim[24] = "n/a", err[16] = "", ms[24] = "n/a";

		if (res[i].have_value)
			snprintf(sim, sizeof(sim), "%.4g", res[i].value);
		if (res[i].have_value && v[i].published > 0)
			snprintf(err, sizeof(err), "%+.1f%%", error_pct(res[i].value, v[i].published));
		if (!res[i].err)
			snprintf(ms, sizeof(ms), "%.4g", res[i].ns / 1e6);
		if (wide) {
			printf("  %-4s %-44s %10.4g %10s %9s %10s  %s\n", "pred", v[i].label,
			       v[i].published, sim, err, ms, v[i].kernel);
		} else {
			/* 80 columns: a long name on a line of its own, the kernel under it */
			if (strlen(v[i].label) > 38)
				printf("  %s\n  %-38s", v[i].label, "");
			else
				printf("  %-38s", v[i].label);
			printf(" %9.4g %9s %8s %10s\n", v[i].published, sim, err, ms);
			printf("    as ");
			print_wrapped_list(v[i].kernel, 7, 8, ',');
		}
		if (res[i].missing[0])
			printf("       (needs feature %s, not in this build)\n", res[i].missing);
	}
	if (res[0].have_value && res[n - 1].have_value && res[n - 1].ns > 0) {
		double pub = v[0].published / v[n - 1].published, s = res[0].ns / res[n - 1].ns;

		if (wide)
			printf("  %-4s %-44s %10.4g %10.4g %+8.1f%%\n", "pred", "speed-up, first / last",
			       pub, s, error_pct(s, pub));
		else
			printf("  %-38s %9.4g %9.4g %+7.1f%%\n", "speed-up, first / last", pub, s,
			       error_pct(s, pub));
	}
	print_machine_state(w->id, 2);
	print_caveats(w->id, kernels_of(w, n, kernels), n, 2);
	printf("\n");
}

int cmd_predict(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "only", required_argument, NULL, 'o' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "wide", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *only = NULL;
	bool json = false, first = true, have_cpu = false, wide = false;
	enum ptsim_cpu cpu_override = PTSIM_CPU_NEOVERSE_N1;
	int c;

	opterr = 0;
	optind = 0;	/* a fresh scan of this command's arguments (glibc) */
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'W': wide = true; break;
		case 'o': only = optarg; break;
		case 'c':
			if (ptsim_cpu_lookup(optarg, &cpu_override)) {
				fprintf(stderr, "ptsim-bench predict: unknown CPU '%s'; valid: ", optarg);
				print_valid_cpus(stderr);
				fprintf(stderr, "\n");
				return 2;
			}
			have_cpu = true;
			break;
		case 'h': return command_usage("predict", stdout);
		default:
			fprintf(stderr, "ptsim-bench predict: unknown option %s\n", argv[optind - 1]);
			return command_usage("predict", stderr);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ptsim-bench predict: unexpected argument %s\n", argv[optind]);
		return command_usage("predict", stderr);
	}
	if (json) {
		json_begin("predict", "rows");
		printf("[\n");
	} else if (wide) {
		printf("%-4s %-44s %10s %10s %9s %10s  %s\n\n", "role",
		       "kernel (as the publication names it)", "published", "simulated", "error",
		       "time (ms)", "modelled as (preset,+/-feature)");
	} else {
		printf("  %-38s %9s %9s %8s %10s\n    as %s\n\n",
		       "kernel (as the publication names it)", "published", "simulated", "error",
		       "time (ms)", "the kernel modelled: preset,+/-feature");
	}
	for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++) {
		const struct workload *w = &workloads[i];
		enum ptsim_cpu cpu = have_cpu ? cpu_override : w->cpu;
		struct variant_result res[MAX_VARIANTS];
		unsigned int n = 0;

		if (only && strncmp(w->id, only, strlen(only)))
			continue;
		progress("simulating %s", w->id);
		for (; n < MAX_VARIANTS && w->variants[n].kernel; n++) {
			struct variant_result *vr = &res[n];

			memset(vr, 0, sizeof(*vr));
			vr->err = run_variant(w, cpu, w->variants[n].kernel, &vr->ns, vr->missing,
					      sizeof(vr->missing));
			if (vr->err && !vr->missing[0]) {
				fprintf(stderr, "ptsim-bench predict: %s on %s failed: %s\n", w->id,
					w->variants[n].kernel, ptsim_strerror(vr->err));
				return 1;
			}
		}
		for (unsigned int v = 0; v < n; v++) {
			res[v].have_value = !res[v].err &&
				(w->metric != METRIC_RELATIVE || !res[0].err);
			if (res[v].have_value)
				res[v].value = in_metric(w, res[v].ns, res[0].ns);
		}
		if (json)
			print_json_row(w, cpu, n, res, first);
		else
			print_text_row(w, cpu, n, res, wide);
		first = false;
	}
	if (json) {
		printf("\n]");
		json_end();
	} else
		printf("Predictions: no constant is fitted on these rows and none has a target.\n"
		       "Kernels: v6.8 has no contpte (CONFIG_ARM64_CONTPTE came with v6.9);\n"
		       "v6.9-midpoint is v6.9's core-mm batching without contpte (v6.9 built with\n"
		       "CONFIG_ARM64_CONTPTE=n).\n"
		       "Methods and sources: doc/workloads.md (lifecycle).\n");
	return 0;
}
