// SPDX-License-Identifier: MIT
/*
 * This CPU's per-CPU page lists and the buddy lists behind them, per
 * release (issue 43): an allocation that finds its list empty refills it
 * from the buddy lists under zone->lock (rmqueue_bulk), splitting larger
 * blocks as it goes (expand); a free puts its page first on the list, and
 * one that takes the lists to their drain mark hands the oldest pages back
 * (free_pcppages_bulk), where they merge with free buddies. v6.7's
 * "mm: PCP high auto-tuning" (51a755c56dc0, feature "pcp_high_auto")
 * doubles refills while a CPU only allocates and raises the mark with each
 * refill; v6.6 refills one batch and drains doubling batches past a fixed
 * mark. Pinned on v6.6 and v6.8.
 *
 * The machine: 8 GiB of 4K pages from PFN 0x80000, one CPU (helpers.h's
 * new_machine), sequential frames carved in order-10 blocks. Its zone's
 * batch is 63 pages (zone_batchsize: a quarter of 1 MiB, as 2^n - 1); its
 * low watermark 7729 pages: min_free_kbytes is khugepaged's eleven 2 MiB
 * pageblocks (22528 KiB, above the square root's 11585), 5632 pages, plus
 * the larger of a quarter of it and 0.1 % of the zone (2097). With one CPU
 * the drain mark (v6.6) and its floor (v6.8) are those 7729 pages.
 *
 * The page allocator is called directly (rmqueue, free_the_page), without
 * the faults and page tables around it, so that every page it hands out
 * is a folio's.
 */
#include "helpers.h"
#include "pcp.h"

/* the releases either side of the auto-tuning series (v6.7) */
static const char *const kernels[] = { "v6.6", "v6.8" };

#define NR	8192		/* 4K pages: 32 MiB */
#define BATCH	63
#define HIGH	7729

/* n order-0 pages allocated in one counted operation, their PFNs in pfn */
static struct ptsim_stats alloc_pages(struct ptsim_machine *m, uint64_t *pfn, unsigned int n)
{
	op_begin(m);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(rmqueue(m, 0, &pfn[i]), 0);
	op_end(m, 0);
	return last_stats(m);
}

/* the n order-0 pages at pfn freed in that order, in one counted operation */
static struct ptsim_stats free_pages(struct ptsim_machine *m, const uint64_t *pfn, unsigned int n)
{
	op_begin(m);
	for (unsigned int i = 0; i < n; i++)
		free_the_page(m, pfn[i], 0);
	op_end(m, 0);
	return last_stats(m);
}

/*
 * NR order-0 pages allocated, then freed in the same order. v6.6: each
 * refill takes a batch, 131 of them (8253 pages, 61 left over); the frees
 * pass the mark after 7668 and drain 63, 126, 252 and 504 pages, each after
 * as many more frees. v6.8: refills of 63 << alloc_factor (63 .. 2016, then
 * 2016 each), nine of them (10017 pages), each raising the mark by its size
 * to 7729 + 10017; the 8192 frees on top of the 1825 left over stay below
 * it: no drain. A block moved between lists is one unlink and one link.
 * The buddy's work, derived with a separate model of the same allocator
 * (a buddy of order-10 blocks handing out the lowest page of the last
 * block it split): taking k pages in order from fresh order-10 blocks
 * splits k - 1 + popcount(1024 - k mod 1024) times per partial block and
 * 1023 per whole one, 8184 + 66 = 8250 on v6.6 and 9207 + 807 = 10014 on
 * v6.8; v6.6's drains (the 61 pages never handed out, newest first, then
 * the first pages freed) merge 944 times.
 */
static void test_refill_and_drain(void **state)
{
	static const struct {
		uint64_t refills, refilled, splits, drains, drained, merges;
	} want[] = {
		{ 131, 131 * BATCH, 8250, 4, BATCH + 126 + 252 + 504, 944 },
		{ 9, 63 + 126 + 252 + 504 + 1008 + 4 * 2016, 10014, 0, 0, 0 },
	};
	static uint64_t pfn[NR];

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      kernels[k]);
		struct ptsim_stats st;
		uint64_t free0, free1;

		assert_int_equal(ptsim_phys_free_bytes(m, &free0), 0);
		st = alloc_pages(m, pfn, NR);
		assert_int_equal(st.ev[PTSIM_EV_FREE_LIST_OP], 2 * want[k].refilled + want[k].splits);
		assert_int_equal(st.ev[PTSIM_EV_PAGE_ALLOC_LOCK], want[k].refills);
		for (unsigned int i = 0; i < NR; i++)
			assert_int_equal(pfn[i], 0x80000 + i);	/* the refills' pages, in order */

		st = free_pages(m, pfn, NR);
		assert_int_equal(st.ev[PTSIM_EV_FREE_LIST_OP], 2 * want[k].drained + want[k].merges);
		assert_int_equal(st.ev[PTSIM_EV_PAGE_ALLOC_LOCK], want[k].drains);
		/* every page is free again, on the lists or the buddy's */
		assert_int_equal(ptsim_phys_free_bytes(m, &free1), 0);
		assert_int_equal(free0, free1);
		ptsim_machine_destroy(m);
	}
}

/*
 * A page freed is the next one handed out (list_add, list_first_entry),
 * whatever the release.
 */
static void test_freed_page_reused(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      kernels[k]);
		uint64_t pfn[3], again;

		alloc_pages(m, pfn, 3);
		free_pages(m, &pfn[1], 1);
		alloc_pages(m, &again, 1);
		assert_int_equal(again, pfn[1]);
		ptsim_machine_destroy(m);
	}
}

/*
 * PMD-size THPs through the faults: a refill of the PMD order's list takes
 * the batch scaled down by the order, at least two (nr_pcp_alloc; v6.6's
 * __rmqueue_pcplist alike): four faults refill twice, on either release.
 * The page tables came first, off the first order-10 block, whose upper
 * half is the first refill's first THP; each refill's second splits a new
 * order-10 block once.
 */
static void test_thp_refills_two(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      kernels[k]);
		struct ptsim_mm *mm = new_mm_with_vma(m, SZ_1G, 4 * SZ_2M);
		struct ptsim_stats st;

		assert_int_equal(ptsim_populate(mm, SZ_1G, 4 * SZ_2M, 9, true), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_ALLOC], 4);
		assert_int_equal(st.ev[PTSIM_EV_FREE_LIST_OP], 2 * 4 + 2);
		assert_int_equal(st.ev[PTSIM_EV_PAGE_ALLOC_LOCK], 4 + 2);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * v6.6's mark is the low watermark's share: the lists drain the moment
 * they hold HIGH pages. With 61 left over from the refills, 7667 frees
 * leave them one short; the next free drains one batch, the oldest blocks
 * first: the 61 pages never handed out, which rejoin the rest of their
 * order-10 block (six free blocks and 61 pages become one: 66 merges),
 * then the first two pages freed, the second merging with the first.
 */
static void test_v66_mark(void **state)
{
	const unsigned int nr = HIGH - (131 * BATCH - NR);	/* frees that reach the mark */
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.6");
	static uint64_t pfn[NR];
	struct ptsim_stats st;

	(void)state;
	alloc_pages(m, pfn, NR);
	st = free_pages(m, pfn, nr - 1);
	assert_int_equal(st.ev[PTSIM_EV_FREE_LIST_OP], 0);
	st = free_pages(m, &pfn[nr - 1], 1);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_ALLOC_LOCK], 1);
	assert_int_equal(st.ev[PTSIM_EV_FREE_LIST_OP], 2 * BATCH + 66 + 1);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refill_and_drain),
		cmocka_unit_test(test_freed_page_reused),
		cmocka_unit_test(test_thp_refills_two),
		cmocka_unit_test(test_v66_mark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
