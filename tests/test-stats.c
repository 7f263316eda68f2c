// SPDX-License-Identifier: MIT
/* ptsim_stats_add and ptsim_stats_diff: sums, differences, and their errors. */
#include "helpers.h"

#include <errno.h>
#include <string.h>

static void test_add_sums_every_event(void **state)
{
	struct ptsim_stats a, b;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (unsigned int i = 0; i < PTSIM_EV_CAPACITY; i++) {
		a.ev[i] = i;
		b.ev[i] = 1000 + 2 * i;
	}
	assert_int_equal(ptsim_stats_add(&a, &b), 0);
	for (unsigned int i = 0; i < PTSIM_EV_CAPACITY; i++)
		assert_int_equal(a.ev[i], 1000 + 3 * i);
	/* dst and src may be the same */
	assert_int_equal(ptsim_stats_add(&b, &b), 0);
	assert_int_equal(b.ev[5], 2 * (1000 + 10));
}

static void test_add_overflow_leaves_dst(void **state)
{
	struct ptsim_stats a, b, keep;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.ev[0] = 7;
	a.ev[PTSIM_EV_CAPACITY - 1] = UINT64_MAX;
	b.ev[0] = 1;
	b.ev[PTSIM_EV_CAPACITY - 1] = 1;
	keep = a;
	assert_int_equal(ptsim_stats_add(&a, &b), -EOVERFLOW);
	assert_memory_equal(&a, &keep, sizeof(a));
	assert_int_equal(ptsim_stats_add(NULL, &b), -EINVAL);
	assert_int_equal(ptsim_stats_add(&a, NULL), -EINVAL);
}

static void test_diff_and_its_errors(void **state)
{
	struct ptsim_stats before, after, d, keep;

	(void)state;
	memset(&before, 0, sizeof(before));
	memset(&after, 0, sizeof(after));
	before.ev[PTSIM_EV_PTE_READ] = 10;
	after.ev[PTSIM_EV_PTE_READ] = 25;
	after.ev[PTSIM_EV_DSB_ISH] = 3;
	assert_int_equal(ptsim_stats_diff(&d, &after, &before), 0);
	assert_int_equal(d.ev[PTSIM_EV_PTE_READ], 15);
	assert_int_equal(d.ev[PTSIM_EV_DSB_ISH], 3);
	assert_int_equal(d.ev[PTSIM_EV_PTE_WRITE], 0);
	/* wrong order: -ERANGE, out unchanged */
	keep = d;
	assert_int_equal(ptsim_stats_diff(&d, &before, &after), -ERANGE);
	assert_memory_equal(&d, &keep, sizeof(d));
	/* out may alias an input */
	assert_int_equal(ptsim_stats_diff(&after, &after, &before), 0);
	assert_int_equal(after.ev[PTSIM_EV_PTE_READ], 15);
	assert_int_equal(ptsim_stats_diff(NULL, &after, &before), -EINVAL);
	assert_int_equal(ptsim_stats_diff(&d, NULL, &before), -EINVAL);
	assert_int_equal(ptsim_stats_diff(&d, &after, NULL), -EINVAL);
}

/* The use the helpers exist for: two snapshots of a machine's totals around an operation. */
static void test_diff_of_totals_is_the_operation(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	uint64_t va = UINT64_C(0x10000000);
	struct ptsim_mm *mm = new_mm_with_vma(m, va, 64 * 4096);
	struct ptsim_stats t0, t1, d, last;

	(void)state;
	assert_int_equal(ptsim_total_stats(m, &t0), 0);
	assert_int_equal(ptsim_populate(mm, va, 64 * 4096, 0, true), 0);
	assert_int_equal(ptsim_last_stats(m, &last), 0);
	assert_int_equal(ptsim_total_stats(m, &t1), 0);
	assert_int_equal(ptsim_stats_diff(&d, &t1, &t0), 0);
	assert_memory_equal(&d, &last, sizeof(d));
	assert_true(d.ev[PTSIM_EV_PTE_WRITE] >= 64);
	/* priced on the machine's own CPU and granule, as ptsim_predict would with them repeated */
	{
		struct ptsim_prediction a, b;

		assert_int_equal(ptsim_machine_predict(m, &d, &a), 0);
		assert_int_equal(ptsim_predict(PTSIM_CPU_NEOVERSE_N1, PTSIM_GRANULE_4K, &d, &b), 0);
		assert_true(a.total_ns > 0);
		assert_memory_equal(&a, &b, sizeof(a));
		assert_int_equal(ptsim_predict(PTSIM_CPU_APPLE_M3, PTSIM_GRANULE_4K, &d, &b), 0);
		assert_true(a.total_ns != b.total_ns);
		assert_int_equal(ptsim_machine_predict(NULL, &d, &a), -EINVAL);
		assert_int_equal(ptsim_machine_predict(m, NULL, &a), -EINVAL);
		assert_int_equal(ptsim_machine_predict(m, &d, NULL), -EINVAL);
	}
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_sums_every_event),
		cmocka_unit_test(test_add_overflow_leaves_dst),
		cmocka_unit_test(test_diff_and_its_errors),
		cmocka_unit_test(test_diff_of_totals_is_the_operation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
