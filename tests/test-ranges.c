// SPDX-License-Identifier: MIT
/*
 * Huge ranges cost what is mapped in them: a call over the whole address
 * space with little mapped finishes at once, with the counts page-by-page
 * work would give. Retry counts are bounded.
 */
#include "helpers.h"

#define VA SZ_1G
#define TOP (UINT64_C(1) << 48)

struct fx {
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
};

/* 2 MiB mapped at VA, populated with folios of `order`. */
static struct fx setup(unsigned int order)
{
	struct fx f;

	f.m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	f.mm = new_mm_with_vma(f.m, VA, SZ_2M);
	assert_int_equal(ptsim_populate(f.mm, VA, SZ_2M, order, true), 0);
	return f;
}

/* Touching all 2^36 pages: 512 writes, every other page a translation fault. */
static void test_touch_whole_address_space(void **state)
{
	struct fx f = setup(0);
	const uint64_t pages = TOP / SZ_4K;
	struct ptsim_stats s;
	uint64_t faults = 0;

	(void)state;
	assert_int_equal(ptsim_touch(f.mm, 0, 0, TOP, PTSIM_ACCESS_WRITE, &faults), 0);
	assert_int_equal(faults, pages - 512);
	ptsim_last_stats(f.m, &s);
	assert_int_equal(s.ev[PTSIM_EV_MEM_ACCESS], pages);
	assert_int_equal(s.ev[PTSIM_EV_ACCESS_FAULT], pages - 512);
	assert_int_equal(s.ev[PTSIM_EV_USER_PAGE_WRITE], 512);
	/* each of those faults walked: the same count as a page-by-page loop over a hole */
	assert_int_equal(s.ev[PTSIM_EV_TLB_WALK], pages);
	ptsim_machine_destroy(f.m);
}

/* A hole the TLB still caches (an entry kept past the tables) is walked page by page. */
static void test_touch_hole_with_cached_entry(void **state)
{
	struct fx f = setup(0);
	struct pt_table *pmd;
	uint64_t faults = 0;
	int err;

	(void)state;
	assert_int_equal(ptsim_access(f.mm, 0, VA, PTSIM_ACCESS_WRITE, NULL), 0);
	/* drop the PTE table from under the cached entry, with no TLBI */
	pmd = pt_walk_table(f.mm, VA, PMD_LEVEL, false, &err);
	pmd->desc[pt_index(&f.m->geo, PMD_LEVEL, VA)] = 0;
	assert_int_equal(ptsim_touch(f.mm, 0, VA, SZ_2M, PTSIM_ACCESS_WRITE, &faults), 0);
	assert_int_equal(faults, 511);	/* the first page still hits the stale entry */
	pmd->desc[pt_index(&f.m->geo, PMD_LEVEL, VA)] = pfn_pte(&f.m->geo, pmd->next[pt_index(&f.m->geo, PMD_LEVEL, VA)]->pfn,
						      PMD_TYPE_TABLE);
	ptsim_machine_destroy(f.m);
}

/*
 * ptsim_touch over holes counts exactly what one access per page counts:
 * a sparse 1 GiB (a THP, 64K folios, pages, empty VMAs, unmapped gaps) on a
 * clone, touched once as a range and once page by page.
 */
static void test_touch_counts_like_page_by_page(void **state)
{
	static const enum ptsim_event evs[] = { PTSIM_EV_MEM_ACCESS, PTSIM_EV_TLB_WALK,
						PTSIM_EV_WALK_READ, PTSIM_EV_ACCESS_FAULT,
						PTSIM_EV_TLB_L1_HIT, PTSIM_EV_TLB_L2_HIT };
	struct fx f = setup(9);
	struct ptsim_stats a0, a1, b0, b1;
	struct ptsim_mm *clone;
	uint64_t faults = 0, n = 0;

	(void)state;
	assert_int_equal(ptsim_mmap(f.mm, VA + 64 * SZ_2M, 8 * SZ_2M, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_populate(f.mm, VA + 64 * SZ_2M, SZ_2M, 4, true), 0);
	assert_int_equal(ptsim_populate(f.mm, VA + 66 * SZ_2M + SZ_64K, SZ_64K, 0, true), 0);
	assert_int_equal(ptsim_mm_clone(f.mm, &clone), 0);
	ptsim_total_stats(f.m, &a0);
	assert_int_equal(ptsim_touch(f.mm, 0, VA, SZ_1G, PTSIM_ACCESS_READ, &faults), 0);
	ptsim_total_stats(f.m, &a1);
	ptsim_total_stats(ptsim_mm_machine(clone), &b0);
	for (uint64_t va = VA; va < VA + SZ_1G; va += SZ_4K)
		n += ptsim_access(clone, 0, va, PTSIM_ACCESS_READ, NULL) != 0;
	ptsim_total_stats(ptsim_mm_machine(clone), &b1);
	assert_int_equal(faults, n);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		assert_int_equal(a1.ev[evs[i]] - a0.ev[evs[i]], b1.ev[evs[i]] - b0.ev[evs[i]]);
	ptsim_mm_destroy(clone);
	ptsim_machine_destroy(f.m);
}

static void test_swapout_and_split_whole_address_space(void **state)
{
	struct fx f = setup(0);
	struct ptsim_translation tr;
	struct ptsim_stats s;

	(void)state;
	assert_int_equal(ptsim_swapout(f.mm, 0, TOP), 0);
	assert_int_equal(ptsim_translate(f.mm, VA, &tr), -ENOENT);
	ptsim_machine_destroy(f.m);

	f = setup(9);
	assert_int_equal(ptsim_split_huge_pmd(f.mm, 0, TOP), 0);
	ptsim_last_stats(f.m, &s);
	assert_int_equal(s.ev[PTSIM_EV_HUGE_PMD_SPLIT], 1);
	assert_int_equal(ptsim_translate(f.mm, VA, &tr), 0);
	assert_int_equal(tr.level, 3);
	ptsim_machine_destroy(f.m);
}

/* Lock contention is bounded, and a move through the bound still completes. */
static void test_lock_contention_bounded(void **state)
{
	struct fx f = setup(4);

	(void)state;
	assert_int_equal(ptsim_mmap(f.mm, 2 * VA, SZ_2M, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_uffd_register(f.mm, 2 * VA, SZ_2M), 0);
	assert_int_equal(ptsim_folio_contend_lock(f.mm, VA, UINT32_MAX), -EINVAL);
	assert_int_equal(ptsim_folio_contend_lock(f.mm, VA, PTSIM_MAX_LOCK_CONTENTION), 0);
	assert_int_equal(ptsim_uffd_move(f.mm, 2 * VA, VA, SZ_2M, 0), (int64_t)SZ_2M);
	ptsim_machine_destroy(f.m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_touch_whole_address_space),
		cmocka_unit_test(test_touch_hole_with_cached_entry),
		cmocka_unit_test(test_touch_counts_like_page_by_page),
		cmocka_unit_test(test_swapout_and_split_whole_address_space),
		cmocka_unit_test(test_lock_contention_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
