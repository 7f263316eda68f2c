// SPDX-License-Identifier: MIT
/*
 * How a batch of folios that lost their last reference is freed, per
 * release (issue 43): from v6.9 ("mm: allow non-hugetlb large folios to be
 * batch processed", f77171d241e3, feature "large_folio_batch_free") a
 * large folio joins the folio_batch as an order-0 one does: the gather's
 * folios_put_refs and reclaim's free_folios take the lruvec lock and
 * uncharge the memcg once per PAGEVEC_SIZE folios. Before it (v6.6, v6.8)
 * release_pages frees each large folio alone (__folio_put_large: its own
 * lruvec lock, destroy_large_folio, __mem_cgroup_uncharge with its own
 * uncharge_batch), and shrink_folio_list likewise (no lock: reclaim took
 * the folio off its LRU). Pinned on two releases either side. And the page
 * allocator's locks: the pcp lock once per batch for the orders the per-CPU
 * lists take (order 0, the PMD order), the zone lock per folio for the others.
 */
#include "helpers.h"

#define VA	SZ_1G
#define NR	32		/* 64K folios */
#define LEVELS	3		/* the memcg's page counters (test-memcg.c) */

static const char *const kernels[] = { "v6.6", "v6.8", "v6.9", "v6.10" };
#define NR_KERNELS	4
#define BATCHED(k)	((k) >= 2)

/* NR 64K anonymous folios at VA, written; this CPU's LRU batches drained */
static struct ptsim_mm *populated(struct ptsim_machine *m)
{
	return new_mm_populated(m, VA, 2 * NR * SZ_64K, NR * SZ_64K, 4);
}

/*
 * munmap of the NR folios: every one is freed by the gather's flush. From
 * v6.9 the NR entries (one per folio) fill a folio_batch of 31 and one of 1:
 * two lruvec locks, two uncharge_batches. Before, each folio takes its own
 * lock and its own uncharge_batch.
 */
static void test_zap_large_folios(void **state)
{
	(void)state;
	for (int k = 0; k < NR_KERNELS; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      kernels[k]);
		struct ptsim_mm *mm = populated(m);
		struct ptsim_stats st;

		assert_int_equal(ptsim_munmap(mm, VA, NR * SZ_64K), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], NR);
		assert_int_equal(st.ev[PTSIM_EV_LRU_LOCK], BATCHED(k) ? 2 : NR);
		assert_int_equal(st.ev[PTSIM_EV_PAGE_COUNTER], (BATCHED(k) ? 2 : NR) * LEVELS);
		/* order 4 is not the per-CPU lists': free_one_page's zone lock each, no pcp lock */
		assert_int_equal(st.ev[PTSIM_EV_PAGE_ALLOC_LOCK], NR);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * The feature alone, the rest of v6.9 kept: off, the same munmap makes per
 * folio destroy_large_folio, __mem_cgroup_uncharge, uncharge_batch,
 * page_counter_uncharge and three page_counter_cancel calls, and
 * __free_pages_ok (order 4 is not the per-CPU lists': 8 more), and
 * the two folio_batches' uncharge_batch calls (5 each) are gone; the
 * gather's two batches (the on-stack bundle's 4 entries, the next one's 28)
 * each go through release_pages, mem_cgroup_uncharge_list and
 * free_unref_page_list where folios_put_refs, mem_cgroup_uncharge_folios and
 * free_unref_folios went: as many calls.
 */
static void test_zap_calls_feature(void **state)
{
	uint64_t calls[2];

	(void)state;
	for (int on = 0; on < 2; on++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      "v6.9");
		struct ptsim_mm *mm;

		assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_LARGE_FOLIO_BATCH_FREE, on), 0);
		mm = populated(m);
		assert_int_equal(ptsim_munmap(mm, VA, NR * SZ_64K), 0);
		calls[on] = last_stats(m).ev[PTSIM_EV_HELPER_CALL];
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
	assert_int_equal(calls[0] - calls[1], NR * 8 - 2 * 5);
}

/* MADV_FREE, then MADV_PAGEOUT, of the NR folios on kernel k (feature on or off): its stats */
static struct ptsim_stats pageout_lazyfree(const char *kernel, int batch_free)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, kernel);
	struct ptsim_mm *mm;
	struct ptsim_stats st;

	if (batch_free >= 0)
		assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_LARGE_FOLIO_BATCH_FREE, batch_free), 0);
	mm = populated(m);
	assert_int_equal(ptsim_madvise(mm, VA, NR * SZ_64K, PTSIM_MADV_FREE), 0);
	drain_lru_batches(mm);
	assert_int_equal(ptsim_madvise(mm, VA, NR * SZ_64K, PTSIM_MADV_PAGEOUT), 0);
	st = last_stats(m);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
	return st;
}

/*
 * MADV_PAGEOUT of NR lazyfree folios: reclaim discards them all
 * (shrink_folio_list). Before v6.10 madvise splits each large folio first
 * (512 order-0 folios, each isolated under the lruvec lock): v6.6 and v6.8
 * free them on one list at the end (one uncharge_batch), v6.9 a folio_batch
 * of 31 at a time (17). v6.10 reclaims the NR folios whole, a folio_batch at
 * a time (31, then 1 at the end: two uncharge_batches); with the feature
 * off each is freed alone as it is reclaimed (NR uncharge_batches) and the
 * list freed at the end holds no order-0 folio, so it uncharges nothing.
 */
static void test_reclaim_folios(void **state)
{
	static const struct {
		uint64_t freed, uncharges;
	} want[NR_KERNELS] = { { 512, 1 }, { 512, 1 }, { 512, 17 }, { NR, 2 } };
	struct ptsim_stats st;

	(void)state;
	for (int k = 0; k < NR_KERNELS; k++) {
		st = pageout_lazyfree(kernels[k], -1);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], want[k].freed);
		assert_int_equal(st.ev[PTSIM_EV_PAGE_COUNTER], want[k].uncharges * LEVELS);
		assert_int_equal(st.ev[PTSIM_EV_LRU_LOCK], want[k].freed);
	}
	st = pageout_lazyfree("v6.10", 0);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], NR);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_COUNTER], NR * LEVELS);
}

/*
 * Order-0 folios are batched in every release: v6.8's release_pages takes
 * the lruvec lock once per SWAP_CLUSTER_MAX (32) folios of a gather batch
 * and uncharges its list once; v6.9's folios_put_refs once per 31.
 */
static void test_zap_small_folios(void **state)
{
	(void)state;
	for (int k = 0; k < NR_KERNELS; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      kernels[k]);
		struct ptsim_mm *mm = new_mm_populated(m, VA, 512 * SZ_4K, 256 * SZ_4K, 0);
		struct ptsim_stats st;

		assert_int_equal(ptsim_munmap(mm, VA, 256 * SZ_4K), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 256);
		/*
		 * v6.9: 256 = 8 x 31 + 8, nine batches. v6.8: the bundle's 7
		 * entries (a lock, an uncharge), the next batch's 249 (8 locks,
		 * an uncharge)
		 */
		assert_int_equal(st.ev[PTSIM_EV_LRU_LOCK], BATCHED(k) ? 9 : 1 + 8);
		assert_int_equal(st.ev[PTSIM_EV_PAGE_COUNTER], (BATCHED(k) ? 9 : 2) * LEVELS);
		/* the pcp lock once per free_unref_folios batch (free_unref_page_list before) */
		assert_int_equal(st.ev[PTSIM_EV_PAGE_ALLOC_LOCK], BATCHED(k) ? 9 : 2);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * A PMD THP is the per-CPU lists' (pcp_allowed_order takes HPAGE_PMD_ORDER):
 * unmapped, it is freed under the pcp lock, free_unref_folios' from v6.9,
 * free_unref_page's (freed alone) before.
 */
static void test_zap_pmd_thp(void **state)
{
	(void)state;
	for (int k = 0; k < NR_KERNELS; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      kernels[k]);
		struct ptsim_mm *mm = new_mm_populated(m, VA, 2 * SZ_2M, SZ_2M, 9);
		struct ptsim_stats st;

		assert_int_equal(ptsim_munmap(mm, VA, SZ_2M), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 1);
		assert_int_equal(st.ev[PTSIM_EV_FREE_TAIL_PAGE], 511);
		assert_int_equal(st.ev[PTSIM_EV_PAGE_ALLOC_LOCK], 1);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/* What a folio freed alone (its last pin dropped) on v6.12 counts. */
struct alone {
	uint64_t calls, locks, lru_locks, tests;
};

/* A folio of order freed alone on v6.12 (its last pin dropped after munmap). */
static struct alone free_alone(unsigned int order)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_populated(m, VA, SZ_2M, SZ_4K << order, order);
	struct ptsim_stats st;
	uint64_t pa;

	assert_int_equal(ptsim_pin_user_pages(mm, VA, 1, 0, &pa), 1);
	assert_int_equal(ptsim_munmap(mm, VA, SZ_4K << order), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 0);	/* the pin holds it */
	assert_int_equal(ptsim_unpin_user_page(m, pa), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 1);
	assert_int_equal(st.ev[PTSIM_EV_FREE_TAIL_PAGE], (UINT64_C(1) << order) - 1);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
	return (struct alone){ .calls = st.ev[PTSIM_EV_HELPER_CALL],
			       .locks = st.ev[PTSIM_EV_PAGE_ALLOC_LOCK],
			       .lru_locks = st.ev[PTSIM_EV_LRU_LOCK],
			       .tests = st.ev[PTSIM_EV_FOLIO_TEST] };
}

/*
 * A folio freed alone (v6.12 __folio_put): free_unref_page; an order-0
 * folio then free_pages_prepare, get_pfnblock_flags_mask and
 * free_unref_page_commit under the pcp lock; a 64K folio (order 4, not the
 * per-CPU lists') __free_pages_ok, free_pages_prepare, free_one_page and
 * __free_one_page with its account_freepages under the zone's lock: two
 * calls more. The memcg's part is the same for both.
 */
static void test_free_alone(void **state)
{
	struct alone a0, a4;

	(void)state;
	a0 = free_alone(0);
	a4 = free_alone(4);
	assert_int_equal(a0.locks, 1);
	assert_int_equal(a4.locks, 1);
	assert_int_equal(a4.calls - a0.calls, 2);
}

/*
 * __folio_put's page_cache_release (v6.12 mm/swap.c): the folio (on the LRU:
 * munmap's lru_add_drain moved it there) is tested for PG_lru and taken off
 * under the lruvec lock page_cache_release takes for itself:
 * lruvec_del_folio's three LRU size calls, __folio_clear_lru_flags' three
 * flag updates.
 */
static void test_free_alone_lru(void **state)
{
	(void)state;
	for (unsigned int order = 0; order <= 4; order += 4) {
		struct alone a = free_alone(order);

		assert_int_equal(a.lru_locks, 1);
		assert_int_equal(a.tests, 1 + 3);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zap_large_folios),
		cmocka_unit_test(test_zap_calls_feature),
		cmocka_unit_test(test_reclaim_folios),
		cmocka_unit_test(test_zap_small_folios),
		cmocka_unit_test(test_zap_pmd_thp),
		cmocka_unit_test(test_free_alone),
		cmocka_unit_test(test_free_alone_lru),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
