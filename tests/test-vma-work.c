// SPDX-License-Identifier: MIT
/*
 * ptsim_mm_destroy's contract: it counts nothing (the counted teardown is
 * ptsim_mm_exit's, v6.12 mm/mmap.c exit_mmap).
 */
#include "helpers.h"

#define A	(UINT64_C(1) << 32)		/* a VMA of 16 pages */
#define NR	16

static const char *const presets[] = { "v6.8", "v6.17" };

/* An mm with the 16-page private RW anonymous VMA at A, every page faulted in. */
static struct ptsim_mm *populated(struct ptsim_machine *m)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, A, NR * SZ_4K);

	assert_int_equal(ptsim_populate(mm, A, NR * SZ_4K, 0, true), 0);
	return mm;
}

static struct ptsim_machine *machine(const char *preset)
{
	return new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
}

/*
 * ptsim_mm_destroy counts nothing (mm.h): destroying a populated mm that
 * never exited leaves the machine's totals as they were and the last
 * operation's stats empty; the invariants' table balance still holds. The
 * counted teardown is ptsim_mm_exit's.
 */
static void test_destroy_counts_nothing(void **state)
{
	(void)state;
	for (size_t p = 0; p < 2; p++) {
		struct ptsim_machine *m = machine(presets[p]);
		struct ptsim_mm *mm = populated(m), *other = populated(m);
		struct ptsim_stats before, after, last;

		assert_int_equal(ptsim_total_stats(m, &before), 0);
		ptsim_mm_destroy(mm);
		assert_int_equal(ptsim_total_stats(m, &after), 0);
		assert_memory_equal(&before, &after, sizeof(before));
		assert_int_equal(ptsim_last_stats(m, &last), 0);
		for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
			assert_int_equal(last.ev[e], 0);
		assert_invariants(m);
		/* after an exit, which counts its table frees, destroy frees the PGD uncounted */
		assert_int_equal(ptsim_mm_exit(other), 0);
		assert_int_equal(ptsim_last_stats(m, &last), 0);
		assert_int_equal(last.ev[PTSIM_EV_TABLE_FREE], 3);
		assert_int_equal(ptsim_total_stats(m, &before), 0);
		ptsim_mm_destroy(other);
		assert_int_equal(ptsim_total_stats(m, &after), 0);
		assert_memory_equal(&before, &after, sizeof(before));
		assert_invariants(m);
		ptsim_machine_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_destroy_counts_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
