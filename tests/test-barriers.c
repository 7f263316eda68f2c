// SPDX-License-Identifier: MIT
/*
 * The data memory barriers (the dmb event: smp_mb and smp_mb__after_atomic
 * are DMB ISH on arm64, smp_rmb DMB ISHLD, smp_wmb DMB ISHST) where the
 * v6.12 kernel issues them on the modelled paths: __folio_mark_uptodate's
 * smp_wmb for every new anonymous folio, the smp_wmb before a new table is
 * populated (pmd_install, __pmd_alloc, __pud_alloc), __split_huge_page_tail's
 * per new folio, __folio_try_share_anon_rmap's two around the exclusive
 * marks it clears (per page, or per run of a batch), and try_to_unmap_one's
 * smp_mb and smp_rmb before it decides to discard a lazyfree folio (per
 * entry, or per batch since v6.15). Each case is pinned where the count
 * changes: the batching series on and off.
 */
#include "helpers.h"

#define VA SZ_1G

/*
 * A write fault into an empty 48-bit address space allocates the PUD, PMD
 * and PTE tables (an smp_wmb before each is populated) and a folio (its
 * __folio_mark_uptodate); the next page's fault in the same table only the
 * folio's. A read fault maps the zero page: no folio, no barrier.
 */
static void test_anonymous_faults(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M);

	(void)state;
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ev(m, PTSIM_EV_TABLE_ALLOC), 3);
	assert_int_equal(ev(m, PTSIM_EV_DMB), 3 + 1);
	assert_int_equal(ptsim_fault(mm, VA + SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ev(m, PTSIM_EV_TABLE_ALLOC), 0);
	assert_int_equal(ev(m, PTSIM_EV_DMB), 1);
	assert_int_equal(ptsim_fault(mm, VA + 2 * SZ_4K, PTSIM_ACCESS_READ), 0);
	assert_int_equal(ev(m, PTSIM_EV_DMB), 0);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * A written 64K folio split to order 0: unmap_folio's try_to_migrate_one
 * shares each of the 16 exclusive pages (two barriers each) and
 * __split_huge_page_tail runs for the 15 tails (one each).
 */
static void test_split_folio(void **state)
{
	static const char *const kernels[] = { "v6.10", "v6.12" };

	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      kernels[k]);
		struct ptsim_mm *mm = new_mm_populated(m, VA, SZ_2M, SZ_64K, 4);

		assert_int_equal(ptsim_split_folio(mm, VA, 0), 0);
		assert_int_equal(ev(m, PTSIM_EV_SPLIT_PAGE_TAIL), 15);
		assert_int_equal(ev(m, PTSIM_EV_DMB), 16 * 2 + 15);
		assert_invariants(m);
		ptsim_machine_destroy(m);
	}
}

/*
 * A written 64K folio paged out on v6.19: without Dev Jain's batching
 * ("anon_unmap_batching") each of the 16 entries is shared alone (32
 * barriers); with it the one run of exclusive pages is shared at once (2).
 */
static void test_pageout_share(void **state)
{
	static const uint64_t want[2] = { 16 * 2, 2 };

	(void)state;
	for (unsigned int b = 0; b < 2; b++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.19");
		struct ptsim_mm *mm;

		assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_ANON_UNMAP_BATCHING, b), 0);
		mm = new_mm_populated(m, VA, SZ_2M, SZ_64K, 4);
		assert_int_equal(ptsim_madvise(mm, VA, SZ_64K, PTSIM_MADV_PAGEOUT), 0);
		assert_int_equal(ev(m, PTSIM_EV_DMB), want[b]);
		assert_invariants(m);
		ptsim_machine_destroy(m);
	}
}

/*
 * A lazyfree 64K folio (MADV_FREE) discarded by MADV_PAGEOUT: v6.12's
 * try_to_unmap_one clears and checks entry by entry (smp_mb and smp_rmb
 * each: 32); v6.15's batching ("lazyfree_unmap_batching") clears the 16 at
 * once and checks once (2).
 */
static void test_lazyfree_discard(void **state)
{
	static const char *const kernels[] = { "v6.12", "v6.15" };
	static const uint64_t want[2] = { 16 * 2, 2 };

	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      kernels[k]);
		struct ptsim_mm *mm = new_mm_populated(m, VA, SZ_2M, SZ_64K, 4);
		struct ptsim_page_info pi;

		assert_int_equal(ptsim_madvise(mm, VA, SZ_64K, PTSIM_MADV_FREE), 0);
		assert_int_equal(ev(m, PTSIM_EV_DMB), 0);
		assert_int_equal(ptsim_madvise(mm, VA, SZ_64K, PTSIM_MADV_PAGEOUT), 0);
		assert_int_equal(ev(m, PTSIM_EV_DMB), want[k]);
		assert_int_equal(ptsim_pagemap(mm, VA, &pi), 0);
		assert_int_equal(pi.state, PTSIM_PAGE_NONE);
		assert_invariants(m);
		ptsim_machine_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anonymous_faults),
		cmocka_unit_test(test_split_folio),
		cmocka_unit_test(test_pageout_share),
		cmocka_unit_test(test_lazyfree_discard),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
