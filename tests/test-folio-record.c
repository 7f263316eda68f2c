// SPDX-License-Identifier: MIT
/*
 * The 12-byte folio record (issue 32): an order-0 folio's mapcount lives in
 * five bits of its record up to FOLIO_MAPCOUNT_INLINE_MAX and in the store's
 * side map past it (or below zero); a large folio's lives in its first tail
 * record, where v6.11+ keep _large_mapcount. Neither is a new limit: the
 * range is the int32_t field's (the kernel's atomic_t). The invariant
 * checker, which allocates nothing, still finds every mismatch.
 */
#include "helpers.h"

#include <limits.h>

#define VA SZ_1G
#define CHILDREN 40u

_Static_assert(sizeof(struct folio) == 12, "one 12-byte record per page frame");

static struct folio *folio_of(struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_translation tr;

	assert_int_equal(ptsim_translate(mm, va, &tr), 0);
	return pfn_folio(mm->m, tr.pa >> mm->m->geo.page_shift);
}

static int mapcount_at(struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_folio_info fi;

	assert_int_equal(ptsim_folio_info(mm, va, &fi), 0);
	return fi.mapcount;
}

static uint64_t host_bytes(const struct ptsim_machine *m)
{
	uint64_t b = 0;

	assert_int_equal(ptsim_machine_host_bytes(m, &b), 0);
	return b;
}

/*
 * An order-0 page forked into 40 children is mapped 41 times: past 30 its
 * mapcount moves to the side map (charged as bookkeeping), reads the same
 * through every path, and moves back into the record as the children exit.
 */
static void test_order0_mapcount_past_the_record(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, NULL);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_4K), *child[CHILDREN];
	uint64_t host0;
	struct folio *f;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_4K, 0, true), 0);
	f = folio_of(mm, VA);
	assert_int_equal(f->order, 0);
	host0 = host_bytes(m);
	for (unsigned int i = 0; i < CHILDREN; i++) {
		assert_int_equal(ptsim_fork(mm, &child[i]), 0);
		assert_int_equal(mapcount_at(mm, VA), (int)i + 2);
		assert_int_equal(f->mapcount_small,
				 i + 2 <= FOLIO_MAPCOUNT_INLINE_MAX ? i + 2 : FOLIO_MAPCOUNT_WIDE);
	}
	assert_int_equal(m->folios.mapcount.len, 1);
	assert_int_equal(folio_ref_count(m, f), CHILDREN + 1);
	assert_true(host_bytes(m) >= host0 + u64map_host_bytes(&m->folios.mapcount));
	assert_invariants(m);	/* the checker's in-place arithmetic on the wide count */
	assert_int_equal(folio_mapcount(m, f), (int)CHILDREN + 1);
	for (unsigned int i = CHILDREN; i-- > 0;) {
		assert_int_equal(ptsim_mm_exit(child[i]), 0);
		ptsim_mm_destroy(child[i]);
		assert_int_equal(mapcount_at(mm, VA), (int)i + 1);
	}
	/* back in the record; the side map keeps its table (charged), not the entry */
	assert_int_equal(f->mapcount_small, 1);
	assert_int_equal(m->folios.mapcount.len, 0);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * The checker takes every mapping away from its folio's count and adds it
 * back, allocating nothing: a count in the record wraps modulo 31. A folio
 * with 32 mappings whose count says 1 (32 = 1 modulo 31) is still reported,
 * by the wrap, and every count is as it was afterwards.
 */
static void test_checker_finds_a_count_one_wrap_short(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, NULL);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_4K), *child[31];
	uint64_t bad = 0;
	struct folio *f;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_4K, 0, true), 0);
	for (unsigned int i = 0; i < 31; i++)
		assert_int_equal(ptsim_fork(mm, &child[i]), 0);
	f = folio_of(mm, VA);
	assert_int_equal(folio_mapcount(m, f), 32);
	folio_mapcount_set(m, f, 1);
	assert_int_equal(f->mapcount_small, 1);	/* back in the record */
	assert_int_equal(ptsim_set_diag_handler(m, NULL, NULL), 0);
	assert_int_equal(ptsim_check_invariants(m, &bad), 0);
	assert_int_equal(bad, 1);
	assert_int_equal(folio_mapcount(m, f), 1);
	assert_int_equal(f->inv_mismatch, 0);
	/* one mapping fewer than the count says, and a count below zero (wide) */
	folio_mapcount_set(m, f, 33);
	assert_int_equal(ptsim_check_invariants(m, &bad), 0);
	assert_int_equal(bad, 1);
	assert_int_equal(folio_mapcount(m, f), 33);
	folio_mapcount_set(m, f, -1);
	assert_int_equal(f->mapcount_small, FOLIO_MAPCOUNT_WIDE);
	assert_int_equal(ptsim_check_invariants(m, &bad), 0);
	assert_int_equal(bad, 1);
	assert_int_equal(folio_mapcount(m, f), -1);
	folio_mapcount_set(m, f, 32);
	assert_int_equal(ptsim_set_diag_handler(m, fail_on_diag, NULL), 0);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * A PTE-mapped 64 KiB folio: its mapcount is in its first tail record
 * (_large_mapcount's place), the head's five bits say so, and the tail
 * still leads to its head.
 */
static void test_large_mapcount_in_first_tail(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, NULL);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_64K), *child[3];
	struct folio *f;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_64K, 4, true), 0);
	f = folio_of(mm, VA);
	assert_int_equal(f->order, 4);
	assert_int_equal(mapcount_at(mm, VA + 7 * SZ_4K), 16);
	assert_int_equal((int32_t)f[1].mapping, 16);
	assert_int_equal(f->mapcount_small, FOLIO_MAPCOUNT_WIDE);
	assert_ptr_equal(pfn_folio(m, folio_pfn(m, f) + 1), f);
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(ptsim_fork(mm, &child[i]), 0);
	assert_int_equal(mapcount_at(mm, VA), 64);
	assert_int_equal(m->folios.mapcount.len, 0);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/* The range is the int32_t field's, in the record's side map and in the first tail alike. */
static void test_mapcount_range_is_int32(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, NULL);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 2 * SZ_64K);
	struct folio *small, *large;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_4K, 0, true), 0);
	assert_int_equal(ptsim_populate(mm, VA + SZ_64K, SZ_64K, 4, true), 0);
	small = folio_of(mm, VA);
	large = folio_of(mm, VA + SZ_64K);
	folio_mapcount_set(m, small, INT_MAX);
	folio_mapcount_set(m, large, INT_MAX);
	assert_int_equal(folio_mapcount(m, small), INT_MAX);
	assert_int_equal(folio_mapcount(m, large), INT_MAX);
	assert_int_equal(folio_mapcount_add(m, small, -(INT_MAX - 31)), 31);
	assert_int_equal(small->mapcount_small, FOLIO_MAPCOUNT_WIDE);
	assert_int_equal(folio_mapcount_add(m, small, -30), 1);
	assert_int_equal(small->mapcount_small, 1);
	folio_mapcount_set(m, small, INT_MIN);
	assert_int_equal(folio_mapcount(m, small), INT_MIN);
	folio_mapcount_set(m, small, 1);
	folio_mapcount_set(m, large, 16);
	assert_int_equal(m->folios.mapcount.len, 0);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order0_mapcount_past_the_record),
		cmocka_unit_test(test_checker_finds_a_count_one_wrap_short),
		cmocka_unit_test(test_large_mapcount_in_first_tail),
		cmocka_unit_test(test_mapcount_range_is_int32),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
