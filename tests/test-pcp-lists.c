// SPDX-License-Identifier: MIT
/*
 * This CPU's per-CPU page lists, per release (issue 43): an allocation that
 * finds its list empty refills it from the buddy lists under zone->lock
 * (rmqueue_bulk), and a free that takes the lists past their drain mark
 * hands pages back (free_pcppages_bulk). v6.7's "mm: PCP high auto-tuning"
 * (51a755c56dc0, feature "pcp_high_auto") doubles refills while a CPU only
 * allocates and raises the mark with each refill; v6.6 refills one batch
 * and drains doubling batches past a fixed mark. Pinned on v6.6 and v6.8.
 *
 * The machine: 8 GiB of 4K pages, one CPU (helpers.h's new_machine). Its
 * zone's batch is 63 pages (zone_batchsize: a quarter of 1 MiB, as 2^n - 1);
 * its low watermark 7729 pages: min_free_kbytes is khugepaged's eleven 2 MiB
 * pageblocks (22528 KiB, above the square root's 11585), 5632 pages, plus
 * the larger of a quarter of it and 0.1 % of the zone (2097). With one CPU
 * the drain mark (v6.6) and its floor (v6.8) are those 7729 pages.
 */
#include "helpers.h"

#define VA	SZ_1G
#define NR	8192		/* 4K pages: 32 MiB */
#define BATCH	63
#define HIGH	7729

/*
 * NR order-0 faults, then their munmap. v6.6: each refill takes a batch,
 * 131 of them (8253 pages, 61 left over); the munmap passes the mark after
 * 7668 frees and drains 63, 126, 252 and 504 pages, each after as many more
 * frees. v6.8: refills of 63 << alloc_factor (63 .. 2016 pages, then 2016
 * each), nine of them (10017 pages), each raising the mark by its size to
 * 7729 + 10017; the munmap's 8192 frees on top of the 1825 left over stay
 * below it: no drain. A block a refill or drain moves is unlinked from one
 * list and linked onto the other: two list operations.
 */
static void test_refill_and_drain(void **state)
{
	static const struct {
		const char *kernel;
		uint64_t refills, refilled, drains, drained;
	} want[] = {
		{ "v6.6", 131, 131 * BATCH, 4, BATCH + 126 + 252 + 504 },
		{ "v6.8", 9, 63 + 126 + 252 + 504 + 1008 + 4 * 2016, 0, 0 },
	};
	uint64_t free_locks[2];

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      want[k].kernel);
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, (uint64_t)NR * SZ_4K);
		struct ptsim_stats st;

		assert_int_equal(ptsim_populate(mm, VA, (uint64_t)NR * SZ_4K, 0, true), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_ALLOC], NR);
		assert_int_equal(st.ev[PTSIM_EV_FREE_LIST_OP], 2 * want[k].refilled);
		/* each allocation's pcp lock, each refill's zone lock */
		assert_int_equal(st.ev[PTSIM_EV_PAGE_ALLOC_LOCK], NR + want[k].refills);
		drain_lru_batches(mm);

		assert_int_equal(ptsim_munmap(mm, VA, (uint64_t)NR * SZ_4K), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], NR);
		assert_int_equal(st.ev[PTSIM_EV_FREE_LIST_OP], 2 * want[k].drained);
		free_locks[k] = st.ev[PTSIM_EV_PAGE_ALLOC_LOCK];
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
	/* the batches' pcp locks are the same on both: the difference is the drains' zone locks */
	assert_int_equal(free_locks[0] - free_locks[1], want[0].drains - want[1].drains);
}

/*
 * PMD-size THPs: a refill of the PMD order's list takes the batch scaled
 * down by the order, at least two (nr_pcp_alloc; v6.6's __rmqueue_pcplist
 * alike): four faults refill twice, on either release.
 */
static void test_thp_refills_two(void **state)
{
	static const char *const kernels[] = { "v6.6", "v6.8" };

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      kernels[k]);
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, 4 * SZ_2M);
		struct ptsim_stats st;

		assert_int_equal(ptsim_populate(mm, VA, 4 * SZ_2M, 9, true), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_ALLOC], 4);
		assert_int_equal(st.ev[PTSIM_EV_FREE_LIST_OP], 2 * 4);
		assert_int_equal(st.ev[PTSIM_EV_PAGE_ALLOC_LOCK], 4 + 2);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * v6.6's mark is the low watermark's share: the lists drain the moment
 * they hold HIGH pages. With 61 left over from the refills, 7667 frees
 * leave them one short; the next free drains one batch.
 */
static void test_v66_mark(void **state)
{
	const uint64_t nr = HIGH - (131 * BATCH - NR);	/* frees that reach the mark */
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.6");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, (uint64_t)NR * SZ_4K);
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, (uint64_t)NR * SZ_4K, 0, true), 0);
	drain_lru_batches(mm);
	assert_int_equal(ptsim_munmap(mm, VA, (nr - 1) * SZ_4K), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FREE_LIST_OP], 0);
	assert_int_equal(ptsim_munmap(mm, VA + (nr - 1) * SZ_4K, SZ_4K), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_FREE_LIST_OP], 2 * BATCH);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refill_and_drain),
		cmocka_unit_test(test_thp_refills_two),
		cmocka_unit_test(test_v66_mark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
