// SPDX-License-Identifier: MIT
/*
 * The counted primitives (src/primitives/primitives.h): every registry entry
 * is complete, and a primitive counts exactly the event its entry names.
 */
#include "helpers.h"
#include "primitives.h"

static void test_registry_complete(void **state)
{
	(void)state;
	for (unsigned int p = 0; p < PRIM__COUNT; p++) {
		const struct prim_info *pi = prim_info(p);

		assert_non_null(pi);
		assert_non_null(pi->name);
		assert_non_null(pi->where);
		assert_true(pi->linkage == PRIM_INLINE || pi->linkage == PRIM_CALL);
		assert_true(pi->event <= PRIM_EVENTS);
		assert_int_equal(prim_event(p), pi->event);
	}
	assert_null(prim_info(PRIM__COUNT));
}

/* Each single-event primitive adds n to its event and to nothing else. */
static void test_prim_count_counts_its_event(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, NULL);

	(void)state;
	for (unsigned int p = 0; p < PRIM__COUNT; p++) {
		enum ptsim_event e = prim_event(p);

		if (e == PRIM_EVENTS)
			continue;
		reset_counts(m);
		prim_count(m, p, 3);
		for (unsigned int i = 0; i < PTSIM_EV__COUNT; i++)
			assert_int_equal(ev(m, i), i == e ? 3 : 0);
	}
	ptsim_machine_destroy(m);
}

/* The primitives that count several events count what their comments say. */
static void test_multi_event_primitives(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, NULL);

	(void)state;
	reset_counts(m);
	pte_offset_map_lock(m);
	assert_int_equal(ev(m, PTSIM_EV_PTE_MAP), 1);
	assert_int_equal(ev(m, PTSIM_EV_PTL_LOCK), 1);
	reset_counts(m);
	submit_bio(m, 64);
	assert_int_equal(ev(m, PTSIM_EV_IO_REQUEST), 1);
	assert_int_equal(ev(m, PTSIM_EV_IO_KIB), 64);
	reset_counts(m);
	folio_get_anon_vma(m);
	anon_vma_trylock_write(m);
	anon_vma_unlock_write(m);
	put_anon_vma(m);
	assert_int_equal(ev(m, PTSIM_EV_HELPER_CALL), 4);
	assert_int_equal(ev(m, PTSIM_EV_FOLIO_TEST), 2);
	assert_int_equal(ev(m, PTSIM_EV_ANON_VMA_REF), 1);
	assert_int_equal(ev(m, PTSIM_EV_ANON_VMA_LOCK), 1);
	reset_counts(m);
	double_pt_lock(m, true);
	double_pt_lock(m, false);
	assert_int_equal(ev(m, PTSIM_EV_PTL_LOCK), 3);
	reset_counts(m);
	kernel_call(m, SPLIT_VMA);
	assert_int_equal(ev(m, PTSIM_EV_VMA_SPLIT), 1);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry_complete),
		cmocka_unit_test(test_prim_count_counts_its_event),
		cmocka_unit_test(test_multi_event_primitives),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
