// SPDX-License-Identifier: MIT
/*
 * Swap-out of a swap-backed anonymous folio as v6.12 executes it (issue 43,
 * reclaim's swap cache and writeback): add_to_swap puts the folio in the
 * swap cache (slots, a reference, PG_swapcache, an xas_store call per
 * page, NR_FILE_PAGES and NR_SWAPCACHE) and marks it dirty (folio_mapping,
 * noop_dirty_folio); swap_writepage writes it on the model's synchronous
 * device (folio_free_swap, arch_prepare_to_swap, __swap_writepage: the
 * bio's four calls, PSWPOUT twice, __folio_start_writeback, the unlock,
 * the I/O, __end_swap_bio_write, folio_end_writeback); and
 * delete_from_swap_cache takes it out again. v6.12's zeromap
 * ("swap_zeromap", 0ca0c24e3211) adds swp_swap_info and a bit per page to
 * the write of a folio that holds data. Pinned on v6.11 and v6.12, for an
 * order-0 page and a 64K folio; the functions are called directly on a
 * folio the test locked, so no page-table work comes between.
 */
#include "helpers.h"
#include "vmscan.h"

#define VA SZ_1G

static const char *const kernels[] = { "v6.11", "v6.12" };
#define ZEROMAP(k) ((k) == 1)

/* A written anonymous folio of order at VA, locked as shrink_folio_list holds it. */
static struct folio *locked_folio(struct ptsim_machine *m, unsigned int order)
{
	struct ptsim_mm *mm = new_mm_populated(m, VA, SZ_2M, UINT64_C(4096) << order, order);
	struct ptsim_translation t;
	struct folio *f;

	assert_int_equal(ptsim_translate(mm, VA, &t), 0);
	f = pfn_folio(m, t.pa >> m->geo.page_shift);
	assert_non_null(f);
	assert_int_equal(f->order, order);
	f->flags |= FOLIO_LOCKED;
	return f;
}

static void test_swapout_steps(void **state)
{
	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		for (unsigned int order = 0; order <= 4; order += 4) {
			struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
							      kernels[k]);
			struct folio *f = locked_folio(m, order);
			const uint64_t nr = UINT64_C(1) << order;
			struct ptsim_stats st;

			/* add_to_swap: itself, the xas_stores, folio_mark_dirty's three */
			op_begin(m);
			add_to_swap(m, f);
			op_end(m, 0);
			st = last_stats(m);
			assert_true(folio_test_swapcache(f));
			assert_int_equal(st.ev[PTSIM_EV_HELPER_CALL], 1 + nr + 3);
			/* folio_alloc_swap, add_to_swap_cache (with its lock) */
			assert_int_equal(st.ev[PTSIM_EV_SWAP_LOOKUP], 2);
			assert_int_equal(st.ev[PTSIM_EV_FOLIO_GET], 1);
			/* PG_swapcache set, PG_dirty set */
			assert_int_equal(st.ev[PTSIM_EV_PAGE_FLAG_ATOMIC], 2);
			assert_int_equal(st.ev[PTSIM_EV_VM_STAT], 1);
			assert_int_equal(st.ev[PTSIM_EV_LRUVEC_STAT], 1);
			assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], 0);

			/*
			 * swap_writepage: itself, arch_prepare_to_swap, (v6.12)
			 * swp_swap_info, __swap_writepage, swp_swap_info, bio_init,
			 * swap_folio_sector, bio_add_folio_nofail, the blkg,
			 * __folio_start_writeback and its folio_mapping,
			 * __end_swap_bio_write, folio_end_writeback,
			 * folio_rotate_reclaimable, __folio_end_writeback and its
			 * folio_mapping: 15, 16 with the zeromap
			 */
			op_begin(m);
			swap_writepage(m, f);
			op_end(m, 0);
			st = last_stats(m);
			assert_false(f->flags & FOLIO_LOCKED);
			assert_int_equal(st.ev[PTSIM_EV_HELPER_CALL], 15 + ZEROMAP(k));
			assert_int_equal(st.ev[PTSIM_EV_SWAP_LOOKUP], 1);	/* folio_free_swap */
			/* PG_writeback set and cleared, PG_reclaim cleared; the zeromap's bits */
			assert_int_equal(st.ev[PTSIM_EV_PAGE_FLAG_ATOMIC], 3 + (ZEROMAP(k) ? nr : 0));
			assert_int_equal(st.ev[PTSIM_EV_FOLIO_UNLOCK], 1);
			/* folio_end_writeback's reference across __folio_end_writeback */
			assert_int_equal(st.ev[PTSIM_EV_FOLIO_GET], 1);
			assert_int_equal(st.ev[PTSIM_EV_FOLIO_PUT], 1);
			/* PSWPOUT and the memcg's; the zone's at the start; the zone's and NR_WRITTEN at the end */
			assert_int_equal(st.ev[PTSIM_EV_VM_STAT], 2 + 1 + 2);
			assert_int_equal(st.ev[PTSIM_EV_LRUVEC_STAT], 2);	/* NR_WRITEBACK up and down */
			assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], 1);
			assert_int_equal(st.ev[PTSIM_EV_IO_KIB], 4 * nr);

			/* delete_from_swap_cache: the call, __delete_from_swap_cache, put_swap_folio */
			op_begin(m);
			delete_from_swap_cache(m, f);
			op_end(m, 0);
			st = last_stats(m);
			assert_false(folio_test_swapcache(f));
			assert_int_equal(st.ev[PTSIM_EV_SWAP_LOOKUP], 3);
			assert_int_equal(st.ev[PTSIM_EV_HELPER_CALL], nr);	/* the xas_stores */
			assert_int_equal(st.ev[PTSIM_EV_PAGE_FLAG_ATOMIC], 1);	/* PG_swapcache */
			assert_int_equal(st.ev[PTSIM_EV_FOLIO_PUT], 1);	/* the swap cache's references */
			assert_int_equal(st.ev[PTSIM_EV_VM_STAT], 1);
			assert_int_equal(st.ev[PTSIM_EV_LRUVEC_STAT], 1);
			ptsim_machine_destroy(m);
		}
	}
}

/*
 * The whole MADV_PAGEOUT of a written 64K folio: one write of 64 KiB, the
 * folio in and out of the swap cache (its 16 pages stored and emptied), the
 * two locks and unlocks of shrink_folio_list (the write unlocks it, the
 * synchronous device lets reclaim lock it again and free it), the entries
 * left as swap entries.
 */
static void test_pageout_64k_folio(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_populated(m, VA, SZ_2M, SZ_64K, 4);
	struct ptsim_page_info pi;
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_madvise(mm, VA, SZ_64K, PTSIM_MADV_PAGEOUT), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], 1);
	assert_int_equal(st.ev[PTSIM_EV_IO_KIB], 64);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_TRYLOCK], 2);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_UNLOCK], 2);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 1);
	for (uint64_t va = VA; va < VA + SZ_64K; va += SZ_4K) {
		assert_int_equal(ptsim_pagemap(mm, va, &pi), 0);
		assert_int_equal(pi.state, PTSIM_PAGE_SWAP);
	}
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swapout_steps),
		cmocka_unit_test(test_pageout_64k_folio),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
