// SPDX-License-Identifier: MIT
/*
 * MADV_PAGEOUT and the references, per release (issue 43): before v6.9 the
 * walk makes a young entry old (as MADV_COLD does) and reclaim then checks
 * the folio's references (folio_check_references: folio_referenced, an
 * rmap walk whose folio_referenced_one clears each mapping entry's AF
 * again with a compare-and-swap, and PG_referenced tested and cleared).
 * "mm: madvise: pageout: ignore references rather than clearing young"
 * (2864f3d0f583, v6.9, feature "pageout_ignore_references") drops both.
 * Pinned on v6.6, v6.8 against v6.9, v6.10.
 */
#include "helpers.h"

#define VA	SZ_1G
#define NR	16		/* order-0 pages */

static const char *const kernels[] = { "v6.6", "v6.8", "v6.9", "v6.10" };
#define NR_KERNELS	4
#define CHECKS(k)	((k) < 2)

/* The stats of MADV_PAGEOUT over len bytes at VA, written in folios of order on m. */
/* the loop turns of the last pageout() (its mm's destruction is an operation too) */
static struct ptsim_loop_stats pageout_loops;

static struct ptsim_stats pageout(struct ptsim_machine *m, uint64_t len, unsigned int order)
{
	struct ptsim_mm *mm = new_mm_populated(m, VA, 2 * len, len, order);
	struct ptsim_stats st;

	assert_int_equal(ptsim_madvise(mm, VA, len, PTSIM_MADV_PAGEOUT), 0);
	st = last_stats(m);
	assert_int_equal(ptsim_last_loop_stats(m, &pageout_loops), 0);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	return st;
}

/*
 * NR order-0 pages, young and dirty: v6.8 clears each entry's AF in the
 * walk (the generic clear_young_dirty_ptes before v6.10: an exchange and a
 * store each) and the gather flushes them; reclaim's folio_referenced then
 * makes per folio the walk's calls (folio_referenced, rmap_walk_anon,
 * folio_lock_anon_vma_read, the interval tree's first and next,
 * invalid_vma, rmap_one, page_vma_mapped_walk twice, map_pte, check_pte:
 * 11), one compare-and-swap (the entry is old by then: no TLBI), and
 * folio_test_clear_referenced. v6.9 does none of it.
 */
static void test_pageout_small(void **state)
{
	uint64_t calls[NR_KERNELS];

	(void)state;
	for (int k = 0; k < NR_KERNELS; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      kernels[k]);
		struct ptsim_stats st = pageout(m, NR * SZ_4K, 0);

		assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], NR);	/* each written out, then freed */
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], NR);
		assert_int_equal(st.ev[PTSIM_EV_PTE_CAS], CHECKS(k) ? NR : 0);
		/* the walk's exchanges (v6.8) and try_to_unmap's */
		assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], CHECKS(k) ? 2 * NR : NR);
		calls[k] = st.ev[PTSIM_EV_HELPER_CALL];
		ptsim_machine_destroy(m);
	}
	assert_int_equal(calls[0], calls[1]);
	assert_int_equal(calls[2], calls[3]);
	assert_int_equal(calls[1] - calls[2], NR * 11);
}

/*
 * A 64K folio under contpte, the feature alone off on v6.10: the walk
 * clears the block's AF (contpte_clear_young_dirty_ptes, 16 compare-and-
 * swaps), then folio_referenced visits each of the 16 entries, and each
 * ptep_clear_flush_young of a contiguous entry clears the whole block
 * (contpte_ptep_clear_flush_young: 16 each, 256 in all), as v6.12 does:
 * 256 turns of contpte_ptep_test_and_clear_young's priced loop.
 */
static void test_pageout_contpte_block(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.10");
	struct ptsim_stats st;
	uint64_t calls_off;

	(void)state;
	assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_PAGEOUT_IGNORE_REFERENCES, false), 0);
	st = pageout(m, SZ_64K, 4);
	assert_int_equal(st.ev[PTSIM_EV_PTE_CAS], 16 + 16 * 16);
	assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], 1);
	assert_int_equal(pageout_loops.iter[PTSIM_LOOP_CONTPTE_PTEP_TEST_AND_CLEAR_YOUNG_ENTRY],
			 16 * 16);
	ptsim_machine_destroy(m);
	calls_off = st.ev[PTSIM_EV_HELPER_CALL];

	m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.10");
	st = pageout(m, SZ_64K, 4);
	assert_int_equal(st.ev[PTSIM_EV_PTE_CAS], 0);
	assert_int_equal(pageout_loops.iter[PTSIM_LOOP_CONTPTE_PTEP_TEST_AND_CLEAR_YOUNG_ENTRY], 0);
	ptsim_machine_destroy(m);
	/*
	 * the calls the feature off adds: folio_referenced, rmap_walk_anon,
	 * folio_lock_anon_vma_read, the interval tree's first and next,
	 * invalid_vma, rmap_one (7); page_vma_mapped_walk per entry and past the
	 * last (17), map_pte, a check_pte per entry (16); a
	 * contpte_ptep_clear_flush_young per entry (16); the walk's
	 * contpte_clear_young_dirty_ptes (1)
	 */
	assert_int_equal(calls_off - st.ev[PTSIM_EV_HELPER_CALL], 7 + 17 + 1 + 16 + 16 + 1);
}

/*
 * A PMD-mapped THP: v6.8 makes the leaf old in the walk (pmdp_invalidate:
 * an exchange, then set_pmd_at) and folio_referenced clears its AF again
 * (pmdp_clear_flush_young: a compare-and-swap, no flush: it is old); from
 * v6.9 neither. Reclaim splits the PMD before the unmap either way (an
 * exchange and the PTE table's store).
 */
static void test_pageout_pmd(void **state)
{
	(void)state;
	for (int k = 0; k < NR_KERNELS; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      kernels[k]);
		struct ptsim_mm *mm = new_mm_populated(m, VA, 2 * SZ_2M, SZ_2M, 9);
		struct ptsim_stats st;

		assert_int_equal(ptsim_madvise(mm, VA, SZ_2M, PTSIM_MADV_PAGEOUT), 0);
		st = last_stats(m);
		/* the split's exchange and table store; v6.8's invalidate, rewrite and CAS */
		assert_int_equal(st.ev[PTSIM_EV_PMD_XCHG], CHECKS(k) ? 1 + 2 : 1);
		assert_int_equal(st.ev[PTSIM_EV_PMD_WRITE], CHECKS(k) ? 1 + 1 : 1);
		assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], 1);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pageout_small),
		cmocka_unit_test(test_pageout_contpte_block),
		cmocka_unit_test(test_pageout_pmd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
