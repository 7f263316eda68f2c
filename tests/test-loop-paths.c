// SPDX-License-Identifier: MIT
/*
 * The loop paths the model counts (ptsim_last_loop_stats): one per turn of
 * the kernel's loop, on the path the loop prices name, and only where the
 * modelled kernel's loop has v6.12's shape.
 */
#include "helpers.h"

#include <errno.h>
#include <string.h>

#define VA UINT64_C(0x10000000)
#define PAGES 64

static uint64_t loops_of(const struct ptsim_loop_stats *s)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < PTSIM_LOOP_CAPACITY; i++)
		n += s->iter[i];
	return n;
}

/* v6.12: one present path per entry mprotect changes, writable when it asks to be */
static void test_mprotect_paths(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);
	struct ptsim_loop_stats l;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, PAGES * 4096, 0, true), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(loops_of(&l), 0);
	assert_int_equal(ptsim_mprotect(mm, VA, PAGES * 4096, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT], PAGES);
	assert_int_equal(loops_of(&l), PAGES);
	/* back to writable: MM_CP_TRY_CHANGE_WRITABLE asks can_change_pte_writable of each */
	assert_int_equal(ptsim_mprotect(mm, VA, PAGES * 4096, PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_WRITABLE], PAGES);
	assert_int_equal(loops_of(&l), PAGES);
	assert_int_equal(ptsim_total_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT], PAGES);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_WRITABLE], PAGES);
	ptsim_machine_destroy(m);
}

/* v6.17's batched change_pte_range has no price: its turns are counted by their events alone */
static void test_batched_mprotect_has_no_path(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.17");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);
	struct ptsim_loop_stats l;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, PAGES * 4096, 0, true), 0);
	assert_int_equal(ptsim_mprotect(mm, VA, PAGES * 4096, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(loops_of(&l), 0);
	ptsim_machine_destroy(m);
}

/* zap_pte_range: none entries one turn each, order-0 and large anonymous folios */
static void test_zap_paths(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);
	struct ptsim_loop_stats l;

	(void)state;
	/* the first half order-0, then two 16-page folios; the last 16 pages none */
	assert_int_equal(ptsim_populate(mm, VA, 16 * 4096, 0, true), 0);
	assert_int_equal(ptsim_populate(mm, VA + 16 * 4096, 32 * 4096, 4, true), 0);
	assert_int_equal(ptsim_munmap(mm, VA, PAGES * 4096), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON], 16);
	assert_int_equal(l.iter[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON_BATCH], 2);
	assert_int_equal(l.iter[PTSIM_LOOP_ZAP_PTE_RANGE_NONE], 16);
	assert_int_equal(l.iter[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_FILE], 0);
	ptsim_machine_destroy(m);
}

/* a failed operation adds nothing to the totals; bad arguments are refused */
static void test_failure_and_bad_input(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);
	struct ptsim_loop_stats before, after;
	const char *fn, *variant;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, PAGES * 4096, 0, true), 0);
	assert_int_equal(ptsim_total_loop_stats(m, &before), 0);
	/* a range with a hole past the VMA: -ENOMEM */
	assert_true(ptsim_mprotect(mm, VA, 2 * PAGES * 4096, PTSIM_PROT_READ) < 0);
	assert_int_equal(ptsim_total_loop_stats(m, &after), 0);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(ptsim_last_loop_stats(NULL, &after), -EINVAL);
	assert_int_equal(ptsim_last_loop_stats(m, NULL), -EINVAL);
	assert_int_equal(ptsim_total_loop_stats(NULL, &after), -EINVAL);
	assert_int_equal(ptsim_total_loop_stats(m, NULL), -EINVAL);
	assert_int_equal(ptsim_loop_name(PTSIM_LOOP__COUNT, &fn, &variant), -EINVAL);
	assert_int_equal(ptsim_loop_name((enum ptsim_loop)-1, &fn, &variant), -EINVAL);
	assert_int_equal(ptsim_loop_name(PTSIM_LOOP_ZAP_PTE_RANGE_NONE, NULL, &variant), -EINVAL);
	assert_int_equal(ptsim_loop_name(PTSIM_LOOP_ZAP_PTE_RANGE_NONE, &fn, NULL), -EINVAL);
	ptsim_machine_destroy(m);
}

/* every path the model counts has a price on every CPU: the names are the loop prices' */
static void test_every_path_is_priced(void **state)
{
	(void)state;
	for (unsigned int p = 0; p < PTSIM_LOOP__COUNT; p++) {
		const char *fn, *variant;

		assert_int_equal(ptsim_loop_name((enum ptsim_loop)p, &fn, &variant), 0);
		for (unsigned int c = 0; c < PTSIM_CPU__COUNT; c++) {
			struct ptsim_loop_price price;
			bool found = false;

			for (unsigned int i = 0; !ptsim_loop_price_get((enum ptsim_cpu)c, i, &price); i++)
				found |= !strcmp(price.loop, fn) && !strcmp(price.variant, variant);
			if (!found)
				fail_msg("%s/%s has no price on CPU %u", fn, variant, c);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mprotect_paths),
		cmocka_unit_test(test_batched_mprotect_has_no_path),
		cmocka_unit_test(test_zap_paths),
		cmocka_unit_test(test_failure_and_bad_input),
		cmocka_unit_test(test_every_path_is_priced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
