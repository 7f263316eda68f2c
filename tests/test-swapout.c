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
 * order-0 page and a 64K folio (xas_store's body a priced path, its
 * xas_create and the swap cache's workingset_update_node callback calls of
 * their own); the functions are called directly on a
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
			struct ptsim_loop_stats l;
			struct ptsim_stats st;

			/*
			 * add_to_swap: itself, per page xas_store with its xas_create
			 * and workingset_update_node callback, folio_mark_dirty's three
			 */
			op_begin(m);
			add_to_swap(m, f);
			op_end(m, 0);
			st = last_stats(m);
			assert_true(folio_test_swapcache(f));
			assert_int_equal(st.ev[PTSIM_EV_HELPER_CALL], 1 + 3 * nr + 3);
			assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
			assert_int_equal(l.iter[PTSIM_LOOP_XAS_STORE_SLOT], nr);	/* its body, priced */
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
			/* the xas_stores, their xas_create and callback calls */
			assert_int_equal(st.ev[PTSIM_EV_HELPER_CALL], 3 * nr);
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

/*
 * ptsim_set_zero_filled marks the anonymous folios wholly inside its range:
 * not one the range only cuts, not one the program writes to afterwards
 * (a store, a write scan, a write fault), and a split passes the mark on.
 */
static void test_zero_filled_marks(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_populated(m, VA, SZ_2M, 4 * SZ_64K, 4);
	struct ptsim_translation t;
	struct folio *f[4];
	struct ptsim_stats st;

	(void)state;
	for (unsigned int i = 0; i < 4; i++) {
		assert_int_equal(ptsim_translate(mm, VA + i * SZ_64K, &t), 0);
		f[i] = pfn_folio(m, t.pa >> m->geo.page_shift);
	}
	/* the first three blocks' range cuts the third: two marked */
	assert_int_equal(ptsim_set_zero_filled(mm, VA, 2 * SZ_64K + SZ_4K), 0);
	assert_int_equal(ptsim_last_stats(m, &st), 0);
	assert_true(folio_zero_filled(m, f[0]) && folio_zero_filled(m, f[1]));
	assert_false(folio_zero_filled(m, f[2]) || folio_zero_filled(m, f[3]));
	assert_int_equal(ptsim_set_zero_filled(mm, VA + 2 * SZ_64K, 2 * SZ_64K), 0);
	assert_true(folio_zero_filled(m, f[2]) && folio_zero_filled(m, f[3]));
	/* a store to the last page of block 0, a write scan over block 1's first page */
	assert_int_equal(ptsim_access(mm, 0, VA + SZ_64K - 8, PTSIM_ACCESS_WRITE, NULL), 0);
	assert_int_equal(ptsim_touch(mm, 0, VA + SZ_64K, SZ_4K, PTSIM_ACCESS_WRITE, NULL), 0);
	assert_false(folio_zero_filled(m, f[0]) || folio_zero_filled(m, f[1]));
	/* reads leave the marks */
	assert_int_equal(ptsim_touch(mm, 0, VA + 2 * SZ_64K, SZ_64K, PTSIM_ACCESS_READ, NULL), 0);
	assert_true(folio_zero_filled(m, f[2]));
	/* block 2 split to order 0: every new folio holds zeros */
	assert_int_equal(ptsim_split_folio(mm, VA + 2 * SZ_64K, 0), 0);
	for (unsigned int i = 0; i < 16; i++)
		assert_true(folio_zero_filled(m, &f[2][i]));
	/* a write fault (the entry made read-only first) writes block 3 */
	assert_int_equal(ptsim_mprotect(mm, VA + 3 * SZ_64K, SZ_64K, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_mprotect(mm, VA + 3 * SZ_64K, SZ_64K, PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
	assert_int_equal(ptsim_fault(mm, VA + 3 * SZ_64K, PTSIM_ACCESS_WRITE), 0);
	assert_false(folio_zero_filled(m, f[3]));
	/* bad input: nothing marked, nothing counted */
	assert_int_equal(ptsim_set_zero_filled(NULL, VA, SZ_4K), -EINVAL);
	assert_int_equal(ptsim_set_zero_filled(mm, VA, 0), -EINVAL);
	assert_int_equal(ptsim_set_zero_filled(mm, UINT64_MAX - SZ_4K, 2 * SZ_4K), -EINVAL);
	assert_int_equal(ptsim_set_zero_filled(mm, UINT64_C(1) << 48, SZ_4K), -EINVAL);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * MADV_PAGEOUT of a zero-filled 64K folio either side of v6.12's zeromap
 * (0ca0c24e3211): v6.11 writes it (one request, 64 KiB); v6.12 reads each
 * page through (511 turns of the zero test's loop a page after its last
 * word), sets 16 zeromap bits and writes nothing: swap_writepage makes 7
 * calls (itself, arch_prepare_to_swap, get_obj_cgroup_from_folio,
 * swp_swap_info, the RCU pair, __count_memcg_events) against the write
 * path's 16 (test_swapout_steps); the folio is freed either way. Read back,
 * v6.12 zeroes the page instead of reading it, in a fork's child too.
 */
static void test_zeromap_pageout(void **state)
{
	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      kernels[k]);
		struct ptsim_mm *mm = new_mm_populated(m, VA, SZ_2M, SZ_64K, 4), *child;
		struct ptsim_loop_stats l;
		struct ptsim_stats st, written;

		/* the same folio with data first, for the write path's counts */
		assert_int_equal(ptsim_madvise(mm, VA, SZ_64K, PTSIM_MADV_PAGEOUT), 0);
		written = last_stats(m);
		assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_READ), 0);	/* back as a 4K page */
		assert_int_equal(ptsim_munmap(mm, VA, SZ_64K), 0);
		assert_int_equal(ptsim_mmap(mm, VA, SZ_64K, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
					    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
		assert_int_equal(ptsim_populate(mm, VA, SZ_64K, 4, true), 0);
		drain_lru_batches(mm);
		assert_int_equal(ptsim_set_zero_filled(mm, VA, SZ_64K), 0);
		assert_int_equal(ptsim_madvise(mm, VA, SZ_64K, PTSIM_MADV_PAGEOUT), 0);
		st = last_stats(m);
		assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 1);
		if (!ZEROMAP(k)) {
			assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], 1);
			assert_int_equal(st.ev[PTSIM_EV_IO_KIB], 64);
			assert_int_equal(l.iter[PTSIM_LOOP_IS_FOLIO_ZERO_FILLED_ZERO_WORD], 0);
			assert_int_equal(st.ev[PTSIM_EV_HELPER_CALL], written.ev[PTSIM_EV_HELPER_CALL]);
		} else {
			assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], 0);
			assert_int_equal(l.iter[PTSIM_LOOP_IS_FOLIO_ZERO_FILLED_ZERO_WORD], 16 * 511);
			assert_int_equal(st.ev[PTSIM_EV_HELPER_CALL],
					 written.ev[PTSIM_EV_HELPER_CALL] - 16 + 7);
			/* the bits set, where the write path cleared as many */
			assert_int_equal(st.ev[PTSIM_EV_PAGE_FLAG_ATOMIC],
					 written.ev[PTSIM_EV_PAGE_FLAG_ATOMIC] - 3);
		}
		/*
		 * a read fault brings a page back: v6.12 zeroes it for the
		 * zeromap's bit and reads nothing (swap_read_folio_zeromap), and
		 * the page holds zeros; v6.11 reads it. A fork's child inherits
		 * the answer with the entries.
		 */
		assert_int_equal(ptsim_fork(mm, &child), 0);
		for (unsigned int who = 0; who < 2; who++) {
			struct ptsim_mm *p = who ? child : mm;
			struct ptsim_translation t;

			assert_int_equal(ptsim_fault(p, VA + who * SZ_4K, PTSIM_ACCESS_READ), 0);
			st = last_stats(m);
			assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], !ZEROMAP(k));
			assert_int_equal(st.ev[PTSIM_EV_PAGE_ZERO], ZEROMAP(k));
			assert_int_equal(ptsim_translate(p, VA + who * SZ_4K, &t), 0);
			assert_true(folio_zero_filled(m, pfn_folio(m, t.pa >> m->geo.page_shift)) ==
				    ZEROMAP(k));
		}
		ptsim_mm_destroy(child);
		assert_invariants(m);
		ptsim_machine_destroy(m);
	}
}

/*
 * Reclaim's unmap of a written 64K folio without and with Dev Jain's posted
 * batching ("anon_unmap_batching", v4 of 26 May 2026), on v6.19 and
 * neoverse-n1 (no FEAT_TLBIRANGE): one entry at a time, the first clear
 * unfolds the contpte block (its 16 TLBIs, a DSB), then each entry is
 * exchanged, its TLBI deferred, its swap slot duplicated and its swap entry
 * written, 16 rmap removals, mm counters and references; batched, one
 * get_and_clear of the 16 (no unfold), one deferred range (16 TLBIs), one
 * run of equal exclusivity (15 priced steps after the first page): one
 * duplicate call, one store run of 16 swap entries, the 16 exclusive marks
 * cleared, and the rmap, counters and references once.
 */
static void test_anon_unmap_batching(void **state)
{
	static const struct {
		uint64_t xchg, tlbi_va, unfold, swap_lookup, rmap_remove, folio_put, set_ptes_chunk;
		uint64_t sub_batch_steps;
	} want[2] = {
		{ .xchg = 16 + 16, .tlbi_va = 16 + 16, .unfold = 1, .swap_lookup = 16, .rmap_remove = 16,
		  .folio_put = 16, .set_ptes_chunk = 1 + 16, .sub_batch_steps = 0 },
		{ .xchg = 16, .tlbi_va = 16, .unfold = 0, .swap_lookup = 1, .rmap_remove = 1,
		  .folio_put = 1, .set_ptes_chunk = 1, .sub_batch_steps = 15 },
	};

	(void)state;
	for (unsigned int b = 0; b < 2; b++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.19");
		struct ptsim_mm *mm;
		struct ptsim_loop_stats l;
		struct ptsim_page_info pi;
		struct ptsim_stats st;

		assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_ANON_UNMAP_BATCHING, b), 0);
		mm = new_mm_populated(m, VA, SZ_2M, SZ_64K, 4);
		assert_int_equal(ptsim_madvise(mm, VA, SZ_64K, PTSIM_MADV_PAGEOUT), 0);
		st = last_stats(m);
		assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
		assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], want[b].xchg);
		assert_int_equal(st.ev[PTSIM_EV_TLBI_VA], want[b].tlbi_va);
		assert_int_equal(st.ev[PTSIM_EV_CONTPTE_UNFOLD], want[b].unfold);
		assert_int_equal(st.ev[PTSIM_EV_RMAP_REMOVE], want[b].rmap_remove);
		/* add_to_swap's two, folio_free_swap, __remove_mapping, __delete_from_swap_cache, put_swap_folio */
		assert_int_equal(st.ev[PTSIM_EV_SWAP_LOOKUP], want[b].swap_lookup + 6);
		/* folio_end_writeback's and __remove_mapping's freeze beside the unmap's */
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_PUT], want[b].folio_put + 2);
		/* the swap entries' stores (the unfold's repaint: one chunk) */
		assert_int_equal(st.ev[PTSIM_EV_SET_PTES_CHUNK], want[b].set_ptes_chunk);
		assert_int_equal(l.iter[PTSIM_LOOP_PAGE_ANON_EXCLUSIVE_SUB_BATCH_MATCH], want[b].sub_batch_steps);
		assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], 1);
		for (uint64_t va = VA; va < VA + SZ_64K; va += SZ_4K) {
			assert_int_equal(ptsim_pagemap(mm, va, &pi), 0);
			assert_int_equal(pi.state, PTSIM_PAGE_SWAP);
			assert_true(pi.exclusive);
		}
		assert_invariants(m);
		ptsim_machine_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swapout_steps),
		cmocka_unit_test(test_pageout_64k_folio),
		cmocka_unit_test(test_zero_filled_marks),
		cmocka_unit_test(test_zeromap_pageout),
		cmocka_unit_test(test_anon_unmap_batching),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
