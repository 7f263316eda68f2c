// SPDX-License-Identifier: MIT
/*
 * The per-CPU LRU folio batches (v6.12 mm/swap.c, cpu_fbatches): MADV_FREE
 * puts each folio it makes lazily freeable into the lru_lazyfree batch, which
 * is moved under the lruvec's lock when it fills (31 folios) or when the next
 * lru_add_drain comes (madvise's walks, munmap's vms_clear_ptes, MADV_DONTNEED's
 * zap_page_range_single, exit_mmap); from "lru_cache_small_only" (v6.17) a
 * large folio is moved at once.
 */
#include "helpers.h"

#define VA UINT64_C(0x10000000)

static void madv_free(struct ptsim_machine *m, struct ptsim_mm *mm, uint64_t va, uint64_t len,
		      uint64_t *locks, uint64_t *moves)
{
	struct ptsim_stats st;

	assert_int_equal(ptsim_madvise(mm, va, len, PTSIM_MADV_FREE), 0);
	st = last_stats(m);
	*locks = st.ev[PTSIM_EV_LRU_LOCK];
	*moves = st.ev[PTSIM_EV_LRU_MOVE];
}

/* 64 order-0 folios: two full batches moved during the walk, two left for the next drain */
static void test_order0_batches(void **state)
{
	static const char *const kernels[] = { "v6.16", "v6.17" };

	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      kernels[k]);
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, 128 * 4096);
		uint64_t locks, moves;

		assert_int_equal(ptsim_populate(mm, VA, 128 * 4096, 0, true), 0);
		drain_lru_batches(mm);	/* the faults' lru_add batch: the counts below are lazyfree's */
		madv_free(m, mm, VA, 64 * 4096, &locks, &moves);
		assert_int_equal(locks, 2);
		assert_int_equal(moves, 2 * 31);
		/* the next MADV_FREE's lru_add_drain moves the two left, then 31 of its 64 fill */
		madv_free(m, mm, VA + 64 * 4096, 64 * 4096, &locks, &moves);
		assert_int_equal(locks, 1 + 2);
		assert_int_equal(moves, 2 + 2 * 31);
		/* lazily freeable already: nothing joins a batch; the drain moves the two left */
		madv_free(m, mm, VA, 128 * 4096, &locks, &moves);
		assert_int_equal(locks, 1);
		assert_int_equal(moves, 2);
		/*
		 * each move: PG_lru cleared and set again (folio_batch_move_lru),
		 * PG_active, PG_referenced and PG_swapbacked cleared (lru_lazyfree)
		 */
		assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_FLAG_ATOMIC], 2 * (2 + 3));
		ptsim_machine_destroy(m);
	}
}

/* four 64K folios: held in the batch before v6.17, each moved at once from it */
static void test_large_folios(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.16");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 8 * SZ_64K);
	uint64_t locks, moves;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, 8 * SZ_64K, 4, true), 0);
	drain_lru_batches(mm);	/* the faults' lru_add batch: the counts below are lazyfree's */
	madv_free(m, mm, VA, 4 * SZ_64K, &locks, &moves);
	assert_int_equal(locks, 0);
	assert_int_equal(moves, 0);
	madv_free(m, mm, VA + 4 * SZ_64K, 4 * SZ_64K, &locks, &moves);
	assert_int_equal(locks, 1);	/* the first four, drained */
	assert_int_equal(moves, 4);
	ptsim_machine_destroy(m);

	m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.17");
	mm = new_mm_with_vma(m, VA, 8 * SZ_64K);
	assert_int_equal(ptsim_populate(mm, VA, 8 * SZ_64K, 4, true), 0);
	drain_lru_batches(mm);	/* the faults' lru_add batch: the counts below are lazyfree's */
	madv_free(m, mm, VA, 4 * SZ_64K, &locks, &moves);
	assert_int_equal(locks, 4);
	assert_int_equal(moves, 4);
	/* the feature alone decides it */
	assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_LRU_CACHE_SMALL_ONLY, false), 0);
	madv_free(m, mm, VA + 4 * SZ_64K, 4 * SZ_64K, &locks, &moves);
	assert_int_equal(locks, 0);
	assert_int_equal(moves, 0);
	ptsim_machine_destroy(m);
}

/* what a MADV_FREE leaves in the batch, the next munmap, MADV_DONTNEED or exit moves */
static void test_unmap_drains(void **state)
{
	static const int ops[] = { 0, PTSIM_MADV_DONTNEED, -1 };

	(void)state;
	for (unsigned int k = 0; k < 3; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      "v6.16");
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, 64 * 4096);
		uint64_t locks, moves;
		struct ptsim_stats st;

		assert_int_equal(ptsim_populate(mm, VA, 64 * 4096, 0, true), 0);
		drain_lru_batches(mm);	/* the faults' lru_add batch: the counts below are lazyfree's */
		madv_free(m, mm, VA, 33 * 4096, &locks, &moves);
		assert_int_equal(moves, 31);	/* two left */
		if (ops[k] == 0)
			assert_int_equal(ptsim_munmap(mm, VA + 40 * 4096, 4096), 0);	/* vms_clear_ptes */
		else if (ops[k] > 0)
			assert_int_equal(ptsim_madvise(mm, VA + 40 * 4096, 4096, ops[k]), 0);
		else
			assert_int_equal(ptsim_mm_exit(mm), 0);	/* exit_mmap */
		st = last_stats(m);
		/*
		 * the drain's lock, then the gather's folios_put_refs takes it
		 * once per folio_batch that frees a folio: the one page, or the
		 * exit's 64 in batches of 31, 31 and 2
		 */
		assert_int_equal(st.ev[PTSIM_EV_LRU_LOCK], 1 + (ops[k] < 0 ? 3 : 1));
		assert_int_equal(st.ev[PTSIM_EV_LRU_MOVE], 2);
		ptsim_machine_destroy(m);
	}
}

/*
 * MADV_COLD calls folio_deactivate for each folio its walk ages (v6.12
 * madvise_cold_or_pageout_pte_range): a call and three flag tests that
 * find it inactive, as every folio of the model is, so no lru_deactivate
 * batch fills and nothing moves.
 */
static void test_cold_deactivates(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 64 * 4096);
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, 64 * 4096, 0, true), 0);
	drain_lru_batches(mm);
	assert_int_equal(ptsim_madvise(mm, VA, 64 * 4096, PTSIM_MADV_COLD), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_HELPER_CALL], 64);	/* folio_deactivate, the only call */
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_TEST], 64 * (1 + 3));	/* the walk's and its three */
	assert_int_equal(st.ev[PTSIM_EV_LRU_LOCK], 0);
	assert_int_equal(st.ev[PTSIM_EV_LRU_MOVE], 0);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order0_batches),
		cmocka_unit_test(test_large_folios),
		cmocka_unit_test(test_unmap_drains),
		cmocka_unit_test(test_cold_deactivates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
