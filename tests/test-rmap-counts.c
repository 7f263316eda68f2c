// SPDX-License-Identifier: MIT
/*
 * The per-page and per-folio rmap work of fork, munmap and faults, per
 * kernel version (issue 26 item 1): one 64K folio (16 x 4K pages) against
 * 16 order-0 pages.
 *
 * v6.8 copies and zaps entry by entry (folio_try_dup_anon_rmap_pte,
 * folio_remove_rmap_pte per PTE); v6.9 batches a folio's entries into one
 * __folio_try_dup_anon_rmap / folio_remove_rmap_ptes, whose loops still touch
 * every page (PageAnonExclusive, ClearPageAnonExclusive, page->_mapcount,
 * and folio->_nr_pages_mapped for each page that became (un)mapped);
 * v6.11 adds folio->_large_mapcount, updated once a batch; v6.12 updates
 * _nr_pages_mapped once a batch ("nr_pages_mapped_batch"); v6.15 (CONFIG_MM_ID
 * with THP) updates it under the folio's bit lock with the MM slots. The
 * per-page mapcounts stay: CONFIG_NO_PAGE_MAPCOUNT is off by default.
 */
#include "helpers.h"

#define VA SZ_1G

enum { K68, K69, K612, K616, NR_KERNELS };

static const char *const kernel_names[NR_KERNELS] = { "v6.8", "v6.9", "v6.12", "v6.16" };

/* A machine running kernel k (the preset of that release). */
static struct ptsim_machine *kernel_machine(int k)
{
	return new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, kernel_names[k]);
}

/* len of VA populated with folios of order; the faults' LRU batch drained (the counts below are rmap's). */
static struct ptsim_mm *populated(struct ptsim_machine *m, uint64_t len, unsigned int order)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, len);

	assert_int_equal(ptsim_populate(mm, VA, len, order, true), 0);
	drain_lru_batches(mm);
	return mm;
}

/* The rmap events of one operation. */
struct rmap_counts {
	uint64_t dup, add, remove, excl_test, flag_atomic, mapcount_atomic, mapcount_set, lruvec;
	uint64_t folio_get;
};

static void assert_rmap_counts(const struct ptsim_stats *st, const struct rmap_counts *w)
{
	assert_int_equal(st->ev[PTSIM_EV_RMAP_DUP], w->dup);
	assert_int_equal(st->ev[PTSIM_EV_RMAP_ADD], w->add);
	assert_int_equal(st->ev[PTSIM_EV_RMAP_REMOVE], w->remove);
	assert_int_equal(st->ev[PTSIM_EV_ANON_EXCL_TEST], w->excl_test);
	assert_int_equal(st->ev[PTSIM_EV_PAGE_FLAG_ATOMIC], w->flag_atomic);
	assert_int_equal(st->ev[PTSIM_EV_MAPCOUNT_ATOMIC], w->mapcount_atomic);
	assert_int_equal(st->ev[PTSIM_EV_MAPCOUNT_SET], w->mapcount_set);
	assert_int_equal(st->ev[PTSIM_EV_LRUVEC_STAT], w->lruvec);
	assert_int_equal(st->ev[PTSIM_EV_FOLIO_GET], w->folio_get);
}

/*
 * fork of a written 64K folio: every page is exclusive, so each is tested
 * and cleared and its _mapcount raised; the entry's tests and the folio
 * reference are per PTE in v6.8, per batch after.
 */
static void test_fork_64k_folio(void **state)
{
	static const struct rmap_counts want[NR_KERNELS] = {
		[K68] = { .dup = 16, .excl_test = 16, .flag_atomic = 16, .mapcount_atomic = 16,
			  .folio_get = 16 },
		[K69] = { .dup = 1, .excl_test = 16, .flag_atomic = 16, .mapcount_atomic = 16,
			  .folio_get = 1 },
		/* + the atomic_add of _large_mapcount */
		[K612] = { .dup = 1, .excl_test = 16, .flag_atomic = 16, .mapcount_atomic = 17,
			   .folio_get = 1 },
		/* the bit lock's atomic; the count, the MM slot and the unlock stored */
		[K616] = { .dup = 1, .excl_test = 16, .flag_atomic = 16, .mapcount_atomic = 17,
			   .mapcount_set = 3, .folio_get = 1 },
	};

	(void)state;
	for (int k = 0; k < NR_KERNELS; k++) {
		struct ptsim_machine *m = kernel_machine(k);
		struct ptsim_mm *mm = populated(m, SZ_64K, 4), *child = NULL;
		struct ptsim_stats st;

		assert_int_equal(ptsim_fork(mm, &child), 0);
		st = last_stats(m);
		assert_rmap_counts(&st, &want[k]);
		assert_invariants(m);
		ptsim_mm_destroy(child);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/* fork of 16 order-0 pages: the same in every kernel, one of everything per page. */
static void test_fork_order0(void **state)
{
	static const struct rmap_counts want = { .dup = 16, .excl_test = 16, .flag_atomic = 16,
						 .mapcount_atomic = 16, .folio_get = 16 };

	(void)state;
	for (int k = 0; k < NR_KERNELS; k++) {
		struct ptsim_machine *m = kernel_machine(k);
		struct ptsim_mm *mm = populated(m, SZ_64K, 0), *child = NULL;
		struct ptsim_stats st;

		assert_int_equal(ptsim_fork(mm, &child), 0);
		st = last_stats(m);
		assert_rmap_counts(&st, &want);
		assert_invariants(m);
		ptsim_mm_destroy(child);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * A second fork finds every page shared already: the tests stay, the
 * clears go.
 */
static void test_fork_twice(void **state)
{
	struct ptsim_machine *m = kernel_machine(K612);
	struct ptsim_mm *mm = populated(m, SZ_64K, 4), *c1 = NULL, *c2 = NULL;
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_fork(mm, &c1), 0);
	assert_int_equal(ptsim_fork(mm, &c2), 0);
	st = last_stats(m);
	assert_rmap_counts(&st, &(struct rmap_counts){ .dup = 1, .excl_test = 16,
						       .mapcount_atomic = 17, .folio_get = 1 });
	assert_invariants(m);
	ptsim_mm_destroy(c2);
	ptsim_mm_destroy(c1);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * munmap of a 64K folio mapped once: every page's last mapping goes, so
 * _nr_pages_mapped and NR_ANON_MAPPED follow: per PTE in v6.8, once per
 * batch after.
 */
static void test_munmap_64k_folio(void **state)
{
	static const struct rmap_counts want[NR_KERNELS] = {
		[K68] = { .remove = 16, .mapcount_atomic = 16 + 16, .lruvec = 16 },
		/* one _nr_pages_mapped atomic per page until v6.12 */
		[K69] = { .remove = 1, .mapcount_atomic = 16 + 16, .lruvec = 1 },
		[K612] = { .remove = 1, .mapcount_atomic = 16 + 1 + 1, .lruvec = 1 },
		[K616] = { .remove = 1, .mapcount_atomic = 16 + 1 + 1, .mapcount_set = 3,
			   .lruvec = 1 },
	};

	(void)state;
	for (int k = 0; k < NR_KERNELS; k++) {
		struct ptsim_machine *m = kernel_machine(k);
		struct ptsim_mm *mm = populated(m, SZ_64K, 4);
		struct ptsim_stats st;

		assert_int_equal(ptsim_munmap(mm, VA, SZ_64K), 0);
		st = last_stats(m);
		assert_rmap_counts(&st, &want[k]);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 1);
		/* free_pages_prepare: its 15 tail pages, on every release */
		assert_int_equal(st.ev[PTSIM_EV_FREE_TAIL_PAGE], 15);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/* munmap of 16 order-0 pages: one call, one atomic and one stat update per page, always. */
static void test_munmap_order0(void **state)
{
	static const struct rmap_counts want = { .remove = 16, .mapcount_atomic = 16, .lruvec = 16 };

	(void)state;
	for (int k = 0; k < NR_KERNELS; k++) {
		struct ptsim_machine *m = kernel_machine(k);
		struct ptsim_mm *mm = populated(m, SZ_64K, 0);
		struct ptsim_stats st;

		assert_int_equal(ptsim_munmap(mm, VA, SZ_64K), 0);
		st = last_stats(m);
		assert_rmap_counts(&st, &want);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 16);
		assert_int_equal(st.ev[PTSIM_EV_FREE_TAIL_PAGE], 0);	/* no tail pages */
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * munmap in the parent after fork: the child still maps every page, so no
 * page's last mapping goes: no _nr_pages_mapped update, no stat.
 */
static void test_munmap_after_fork(void **state)
{
	static const struct rmap_counts want[NR_KERNELS] = {
		[K68] = { .remove = 16, .mapcount_atomic = 16 },
		[K69] = { .remove = 1, .mapcount_atomic = 16 },
		[K612] = { .remove = 1, .mapcount_atomic = 17 },
		[K616] = { .remove = 1, .mapcount_atomic = 17, .mapcount_set = 3 },
	};

	(void)state;
	for (int k = 0; k < NR_KERNELS; k++) {
		struct ptsim_machine *m = kernel_machine(k);
		struct ptsim_mm *mm = populated(m, SZ_64K, 4), *child = NULL;
		struct ptsim_stats st;

		assert_int_equal(ptsim_fork(mm, &child), 0);
		assert_int_equal(ptsim_munmap(mm, VA, SZ_64K), 0);
		st = last_stats(m);
		assert_rmap_counts(&st, &want[k]);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 0);
		/* the child's exit then frees it, its removal the last */
		assert_int_equal(ptsim_munmap(child, VA, SZ_64K), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_LRUVEC_STAT], k == K68 ? 16 : 1);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 1);
		assert_invariants(m);
		ptsim_mm_destroy(child);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * The deferred split queue (deferred_split_folio). Before v6.10 every
 * removal that left pages of an anonymous large folio unmapped called it
 * (one call per PTE in v6.8), and the first queued the folio under the
 * queue's spinlock, even when the folio was then unmapped whole; freeing
 * it took it off again (folio_undo_large_rmappable and the lock). From
 * v6.10 only a partly mapped folio is queued. Every munmap also takes its
 * PTE table's lock once; order-0 pages never touch the queue.
 */
static void test_deferred_split(void **state)
{
	static const struct {
		uint64_t len;
		uint64_t calls[NR_KERNELS], locks[NR_KERNELS];
	} rows[] = {
		/*
		 * the whole folio: v6.8 16 calls and v6.9 1, + the unqueue at
		 * its free; the VMA goes too (vm_area_free's call_rcu: + 1);
		 * from v6.9 the zap of the contpte block calls
		 * contpte_get_and_clear_full_ptes (+ 1); the gather's flush
		 * frees the folio (folios_put_refs, lruvec_del_folio's three
		 * LRU size calls, mem_cgroup_uncharge_folios, free_unref_folios:
		 * + 6) and uncharges it (uncharge_folio, uncharge_batch,
		 * page_counter_uncharge, three page_counter_cancel: + 6). v6.8
		 * gathers one entry per page: the on-stack bundle's 7 and the
		 * next batch's 9 go to release_pages apart (release_pages,
		 * mem_cgroup_uncharge_list, free_unref_page_list: + 3 each, and
		 * the three LRU size calls), and the large folio is freed alone
		 * (destroy_large_folio, __mem_cgroup_uncharge: + 2 more). The page
		 * allocator: order 4 goes to the buddy lists (free_pages_prepare,
		 * free_one_page, __free_one_page and its account_freepages: + 4;
		 * v6.8 alone through __free_pages_ok: + 1)
		 */
		{ SZ_64K, { 16 + 1 + 1 + 3 + 3 + 3 + 2 + 6 + 5, 1 + 1 + 1 + 1 + 6 + 6 + 4,
			    0 + 1 + 1 + 6 + 6 + 4, 0 + 1 + 1 + 6 + 6 + 4 },
		  { 1 + 2, 1 + 2, 1, 1 } },
		/* half of it: the folio stays, partly mapped, queued in every kernel */
		/* (+ 1 vm_area_free of the unmapped half, + 1 contpte call from v6.9, */
		/* + 1 folios_put_refs for the references, none the last; v6.8: the */
		/* bundle's 7 entries and the next batch's 1 each + 3 for */
		/* release_pages and its two list calls) */
		{ SZ_64K / 2, { 8 + 1 + 3 + 3, 1 + 1 + 1 + 1, 1 + 1 + 1 + 1, 1 + 1 + 1 + 1 },
		  { 1 + 1, 1 + 1, 1 + 1, 1 + 1 } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		for (int k = 0; k < NR_KERNELS; k++) {
			struct ptsim_machine *m = kernel_machine(k);
			struct ptsim_mm *mm = populated(m, SZ_64K, 4);
			struct ptsim_stats st;

			assert_int_equal(ptsim_munmap(mm, VA, rows[i].len), 0);
			st = last_stats(m);
			assert_int_equal(st.ev[PTSIM_EV_HELPER_CALL], rows[i].calls[k]);
			assert_int_equal(st.ev[PTSIM_EV_PTL_LOCK], rows[i].locks[k]);
			assert_invariants(m);
			ptsim_mm_destroy(mm);
			ptsim_machine_destroy(m);
		}
	}
}

/*
 * Anonymous write faults: folio_add_new_anon_rmap sets (does not
 * increment) the new folio's mapcounts and marks every page exclusive:
 * per page for a 64K folio, plus its _nr_pages_mapped and (v6.11)
 * _large_mapcount, with the MM slot's id and count from v6.15; a PMD THP
 * sets _entire_mapcount and marks the head only, and is accounted as a THP.
 * A large folio's allocation sets PG_large_rmappable (prep_compound_page's
 * folio_set_large_rmappable, a set_bit): one flag atomic more.
 */
static void test_anon_faults(void **state)
{
	static const struct {
		unsigned int order;
		uint64_t len, faults;
		struct rmap_counts want[NR_KERNELS];
	} rows[] = {
		{ 0, SZ_64K, 16, {
			[K68] = { .add = 16, .flag_atomic = 16, .mapcount_set = 16, .lruvec = 16 },
			[K69] = { .add = 16, .flag_atomic = 16, .mapcount_set = 16, .lruvec = 16 },
			[K612] = { .add = 16, .flag_atomic = 16, .mapcount_set = 16, .lruvec = 16 },
			[K616] = { .add = 16, .flag_atomic = 16, .mapcount_set = 16, .lruvec = 16 },
		} },
		{ 4, SZ_64K, 1, {
			[K68] = { .add = 1, .flag_atomic = 16 + 1, .mapcount_set = 16 + 1, .lruvec = 1 },
			[K69] = { .add = 1, .flag_atomic = 16 + 1, .mapcount_set = 16 + 1, .lruvec = 1 },
			[K612] = { .add = 1, .flag_atomic = 16 + 1, .mapcount_set = 16 + 2, .lruvec = 1 },
			[K616] = { .add = 1, .flag_atomic = 16 + 1, .mapcount_set = 16 + 4, .lruvec = 1 },
		} },
		{ 9, SZ_2M, 1, {
			[K68] = { .add = 1, .flag_atomic = 1 + 1, .mapcount_set = 2, .lruvec = 2 },
			[K69] = { .add = 1, .flag_atomic = 1 + 1, .mapcount_set = 2, .lruvec = 2 },
			[K612] = { .add = 1, .flag_atomic = 1 + 1, .mapcount_set = 3, .lruvec = 2 },
			[K616] = { .add = 1, .flag_atomic = 1 + 1, .mapcount_set = 5, .lruvec = 2 },
		} },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		for (int k = 0; k < NR_KERNELS; k++) {
			struct ptsim_machine *m = kernel_machine(k);
			struct ptsim_mm *mm = new_mm_with_vma(m, VA, rows[i].len);
			struct ptsim_stats st;

			assert_int_equal(ptsim_populate(mm, VA, rows[i].len, rows[i].order, true), 0);
			struct rmap_counts want = rows[i].want[k];

			st = last_stats(m);
			assert_int_equal(st.ev[PTSIM_EV_FAULT], rows[i].faults);
			want.folio_get = rows[i].faults;	/* each new folio's in the lru_add batch */
			assert_rmap_counts(&st, &want);
			assert_invariants(m);
			ptsim_mm_destroy(mm);
			ptsim_machine_destroy(m);
		}
	}
}

/*
 * A COW fault after fork (do_wp_page's wp_page_copy): the new page's
 * folio_add_new_anon_rmap and the old page's folio_remove_rmap_pte, which
 * is not the last mapping (the child keeps it).
 */
static void test_cow_fault(void **state)
{
	struct ptsim_machine *m = kernel_machine(K616);
	struct ptsim_mm *mm = populated(m, SZ_4K, 0), *child = NULL;
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	st = last_stats(m);
	/*
	 * do_wp_page's folio_get of the old folio before wp_page_copy, which
	 * ends with two folio_puts (the mapping's reference, then that one)
	 * and free_swap_cache's call and test (v6.12 mm/memory.c); the new
	 * folio's reference in the lru_add batch
	 */
	assert_rmap_counts(&st, &(struct rmap_counts){ .add = 1, .remove = 1, .excl_test = 1,
						       .flag_atomic = 1, .mapcount_atomic = 1,
						       .mapcount_set = 1, .lruvec = 1,
						       .folio_get = 1 + 1 });
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_PUT], 2);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_COPY], 1);
	assert_int_equal(st.ev[PTSIM_EV_MMU_NOTIFIER_RANGE], 1);
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * File (shmem) faults: set_pte_range's folio_add_file_rmap_ptes. The first
 * mapping of the page raises NR_FILE_MAPPED; a child's fault-around maps
 * the page the parent maps already, which changes no statistic.
 */
static void test_file_faults(void **state)
{
	struct ptsim_machine *m = kernel_machine(K616);
	struct ptsim_mm *mm = NULL, *child = NULL;
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_mmap(mm, VA, SZ_64K, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_SHARED | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	st = last_stats(m);
	/*
	 * NR_FILE_MAPPED, and the page cache's NR_FILE_PAGES and NR_SHMEM; the
	 * page cache's reference and the LRU batch's
	 */
	assert_rmap_counts(&st, &(struct rmap_counts){ .add = 1, .mapcount_atomic = 1,
						       .lruvec = 1 + 2, .folio_get = 2 });
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_int_equal(ptsim_fault(child, VA, PTSIM_ACCESS_READ), 0);
	st = last_stats(m);
	/*
	 * and two references: next_uptodate_folio's folio_try_get (dropped at
	 * the folio's end) and set_pte_range's folio_ref_add for the run it maps
	 */
	assert_rmap_counts(&st, &(struct rmap_counts){ .add = 1, .mapcount_atomic = 1,
						       .folio_get = 2 });
	assert_int_equal(st.ev[PTSIM_EV_MAP_PAGES], 1);	/* the one cached page examined */
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * "mm/rmap: minimize folio->_nr_pages_mapped updates when batching PTE
 * (un)mapping" (v6.12), on either side: v6.11 updates _nr_pages_mapped once
 * for each page of the batch, v6.12 once: unmapping a 64K anonymous folio,
 * and mapping a 64K page-cache folio by fault-around.
 */
static void test_nr_pages_mapped_batch(void **state)
{
	static const char *const kernels[2] = { "v6.11", "v6.12" };
	uint64_t unmap[2], map[2];

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      kernels[k]);
		struct ptsim_mm *mm = populated(m, SZ_64K, 4);
		struct ptsim_stats st;

		assert_int_equal(ptsim_munmap(mm, VA, SZ_64K), 0);
		st = last_stats(m);
		unmap[k] = st.ev[PTSIM_EV_MAPCOUNT_ATOMIC];
		assert_int_equal(st.ev[PTSIM_EV_RMAP_REMOVE], 1);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
	/* 16 pages, the large mapcount, and the _nr_pages_mapped updates */
	assert_int_equal(unmap[0], 16 + 1 + 16);
	assert_int_equal(unmap[1], 16 + 1 + 1);
	for (int k = 0; k < 2; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      kernels[k]);
		struct ptsim_mm *mm = NULL;

		assert_int_equal(ptsim_mm_create(m, &mm), 0);
		/* the fault-around maps the 64K folio at page 128 whole: one rmap batch */
		cached_file_fault_around(m, mm, 4);
		map[k] = last_stats(m).ev[PTSIM_EV_MAPCOUNT_ATOMIC];
		assert_int_equal(last_stats(m).ev[PTSIM_EV_RMAP_ADD], 1);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
	assert_int_equal(map[0], 16 + 1 + 16);
	assert_int_equal(map[1], 16 + 1 + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_64k_folio),
		cmocka_unit_test(test_fork_order0),
		cmocka_unit_test(test_fork_twice),
		cmocka_unit_test(test_munmap_64k_folio),
		cmocka_unit_test(test_munmap_order0),
		cmocka_unit_test(test_munmap_after_fork),
		cmocka_unit_test(test_deferred_split),
		cmocka_unit_test(test_anon_faults),
		cmocka_unit_test(test_cow_fault),
		cmocka_unit_test(test_file_faults),
		cmocka_unit_test(test_nr_pages_mapped_batch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
