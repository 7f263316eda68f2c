// SPDX-License-Identifier: MIT
/*
 * The memory cgroup's charge and uncharge (v6.12 mm/memcontrol.c,
 * mm/page_counter.c), with the model's process in a cgroup two levels below
 * the root, so three page counters: a new anonymous folio takes its pages
 * from this CPU's stock (consume_stock), which page_counter_try_charge
 * refills a batch of 64 pages at a time (one atomic per level); a folio of
 * more than 64 pages charges the counters directly. A freed folio's
 * uncharge_folio drops its css reference; the pages leave the counters once
 * per folio_batch (uncharge_batch: page_counter_cancel per level), or once per
 * folio freed alone.
 */
#include "helpers.h"

#define VA UINT64_C(0x10000000)
#define LEVELS 3

/* n order-0 write faults, one at a time: the page counter atomics they cost */
static uint64_t fault_pages(struct ptsim_machine *m, struct ptsim_mm *mm, unsigned int n)
{
	uint64_t atomics = 0;

	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(ptsim_fault(mm, VA + (uint64_t)i * 4096, PTSIM_ACCESS_WRITE), 0);
		atomics += last_stats(m).ev[PTSIM_EV_PAGE_COUNTER];
	}
	return atomics;
}

/* the stock: 64 pages charged per refill, the first fault refills it */
static void test_charge_stock(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 256 * 4096);
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_COUNTER], LEVELS);
	assert_int_equal(st.ev[PTSIM_EV_MEMCG_CHARGE], 1);
	/* the next 63 faults take the refill's 63 pages from the stock, the 65th refills */
	assert_int_equal(fault_pages(m, mm, 1), 0);
	ptsim_mm_destroy(mm);
	mm = new_mm_with_vma(m, VA, 256 * 4096);
	/* the destroyed mm's folios went back: the stock is the machine's, not the mm's */
	assert_int_equal(fault_pages(m, mm, 128), 2 * LEVELS);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* a PMD folio (512 pages) charges the counters itself, with nothing for the stock */
static void test_charge_large(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 4 * 4096 * 512);

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, 2 * 4096 * 512, 9, true), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_COUNTER], 2 * LEVELS);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_MEMCG_CHARGE], 2);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* munmap frees through the gather: one uncharge_batch per folio_batch of 31 */
static void test_uncharge_batches(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 128 * 4096);
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, 64 * 4096, 0, true), 0);
	assert_int_equal(ptsim_munmap(mm, VA, 64 * 4096), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 64);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_COUNTER], (64 / 31 + 1) * LEVELS);
	assert_int_equal(st.ev[PTSIM_EV_MEMCG_CHARGE], 0);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* a folio freed alone (its last pin dropped after the munmap) pays its own uncharge_batch */
static void test_uncharge_alone(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 16 * 4096);
	struct ptsim_stats st;
	uint64_t pa;

	(void)state;
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_pin_user_pages(mm, VA, 1, 0, &pa), 1);
	assert_int_equal(ptsim_munmap(mm, VA, 16 * 4096), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 0);	/* the pin holds it */
	assert_int_equal(st.ev[PTSIM_EV_PAGE_COUNTER], 0);
	assert_int_equal(ptsim_unpin_user_page(m, pa), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 1);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_COUNTER], LEVELS);
	/*
	 * __folio_put, page_cache_release's three LRU size calls (munmap's
	 * lru_add_drain put the folio on the LRU), __mem_cgroup_uncharge,
	 * uncharge_folio, uncharge_batch, page_counter_uncharge, 3 cancels;
	 * then free_unref_page, free_pages_prepare, get_pfnblock_flags_mask and
	 * free_unref_page_commit
	 */
	assert_int_equal(st.ev[PTSIM_EV_HELPER_CALL], 1 + 3 + 1 + 1 + 1 + 1 + LEVELS + 4);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_charge_stock),
		cmocka_unit_test(test_charge_large),
		cmocka_unit_test(test_uncharge_batches),
		cmocka_unit_test(test_uncharge_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
