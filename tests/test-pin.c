// SPDX-License-Identifier: MIT
/*
 * FOLL_PIN pins (issue 33): a pin holds a reference, so a pinned folio whose
 * last mapping goes stays allocated until unpin_user_page; fork of pinned
 * exclusive PMD THPs splits each in the parent and copies it page by page.
 */
#include "helpers.h"
#include <unistd.h>

#define VA SZ_1G
#define RW (PTSIM_PROT_READ | PTSIM_PROT_WRITE)
#define ANON (PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS)

/* No test here expects a diagnostic: every one is counted, and each test asserts none came. */
static struct diag_log diags;

static struct ptsim_machine *machine(const char *preset)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);

	memset(&diags, 0, sizeof(diags));
	assert_int_equal(ptsim_set_diag_handler(m, record_diag, &diags), 0);
	return m;
}

static void assert_no_diags(void)
{
	for (int k = 0; k < PTSIM_DIAG__COUNT; k++)
		assert_int_equal(diags.count[k], 0);
}

static uint64_t phys_free(struct ptsim_machine *m)
{
	uint64_t b = 0;

	assert_int_equal(ptsim_phys_free_bytes(m, &b), 0);
	return b;
}

static uint64_t pa_of(struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_translation tr;

	assert_int_equal(ptsim_translate(mm, va, &tr), 0);
	return tr.pa;
}

/* The PA the next order-0 write fault gets, in a fresh VMA at addr. */
static uint64_t next_fault_pa(struct ptsim_mm *mm, uint64_t addr)
{
	assert_int_equal(ptsim_mmap(mm, addr, SZ_4K, RW, ANON, NULL), 0);
	assert_int_equal(ptsim_fault(mm, addr, PTSIM_ACCESS_WRITE), 0);
	return pa_of(mm, addr);
}

/*
 * munmap of a pinned page's only mapping: the folio is not freed, and the
 * next fault does not get its frame (an unpinned page's frame it does get,
 * so the allocator would hand it out); unpinning frees it.
 */
static void test_munmap_keeps_pinned(void **state)
{
	(void)state;
	for (int pinned = 0; pinned < 2; pinned++) {
		struct ptsim_machine *m = machine(NULL);
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_64K);
		uint64_t pa, free0;

		assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
		pa = pa_of(mm, VA);
		if (pinned)
			assert_int_equal(ptsim_folio_set_pinned(mm, VA, true), 0);
		assert_int_equal(ptsim_munmap(mm, VA, SZ_64K), 0);
		assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], pinned ? 0 : 1);
		assert_invariants(m);
		if (!pinned) {
			assert_int_equal(next_fault_pa(mm, 2 * VA), pa);
			assert_int_equal(ptsim_unpin_user_page(m, pa), -EINVAL);
		} else {
			assert_true(next_fault_pa(mm, 2 * VA) != pa);
			free0 = phys_free(m);
			assert_int_equal(ptsim_unpin_user_page(m, pa + 0x123), 0);
			assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 1);
			assert_int_equal(phys_free(m), free0 + SZ_4K);
			/* freed: nothing is at pa any more */
			assert_int_equal(ptsim_unpin_user_page(m, pa), -ENOENT);
			/* and the frame is handed out again (no table is needed in the same PTE table) */
			assert_int_equal(next_fault_pa(mm, 2 * VA + SZ_4K), pa);
		}
		assert_invariants(m);
		assert_no_diags();
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * A COW fault on a pinned page that is no longer exclusive copies it
 * (wp_can_reuse_anon_folio: the pin's reference), and the old page, now
 * unmapped, stays with its pin instead of going to the next fault.
 */
static void test_cow_keeps_pinned(void **state)
{
	struct ptsim_machine *m = machine("v6.9");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_64K), *child = NULL;
	struct ptsim_folio_info fi;
	uint64_t pa, free0;

	(void)state;
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	pa = pa_of(mm, VA);
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_COPY], 0);	/* not pinned yet: shared */
	assert_int_equal(ptsim_folio_set_pinned(mm, VA, true), 0);
	assert_int_equal(ptsim_mm_exit(child), 0);
	ptsim_mm_destroy(child);
	assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
	assert_true(fi.mapcount == 1 && fi.pins == 1 && !fi.anon_exclusive);
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_COPY], 1);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 0);
	assert_true(pa_of(mm, VA) != pa);
	assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
	assert_true(fi.mapcount == 1 && fi.pins == 0 && fi.anon_exclusive);
	assert_invariants(m);
	assert_true(next_fault_pa(mm, 2 * VA) != pa);
	free0 = phys_free(m);
	assert_int_equal(ptsim_unpin_user_page(m, pa), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 1);
	assert_int_equal(phys_free(m), free0 + SZ_4K);
	assert_invariants(m);
	assert_no_diags();
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * The same for a PTE-mapped large folio this mm maps whole: on v6.16 without
 * the pin the fault reuses the page (__wp_can_reuse_large_anon_folio, v6.15:
 * every reference is a mapping here); with it, the pin's reference makes it
 * copy. On v6.9 wp_can_reuse_anon_folio copies a page of a large folio
 * either way.
 */
static void test_cow_large_pinned(void **state)
{
	(void)state;
	for (int v616 = 0; v616 < 2; v616++) {
		for (int pinned = 0; pinned < 2; pinned++) {
			struct ptsim_machine *m = machine(v616 ? "v6.16" : "v6.9");
			struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_64K), *child = NULL;
			struct ptsim_folio_info fi;
			bool copy = pinned || !v616;
			uint64_t pa;

			assert_int_equal(ptsim_populate(mm, VA, SZ_64K, 4, true), 0);
			pa = pa_of(mm, VA + SZ_4K);
			assert_int_equal(ptsim_fork(mm, &child), 0);
			assert_int_equal(ptsim_mm_exit(child), 0);
			ptsim_mm_destroy(child);
			if (pinned)
				assert_int_equal(ptsim_folio_set_pinned(mm, VA, true), 0);
			assert_int_equal(ptsim_fault(mm, VA + SZ_4K, PTSIM_ACCESS_WRITE), 0);
			assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_COPY], copy ? 1 : 0);
			assert_int_equal(pa_of(mm, VA + SZ_4K) == pa, !copy);
			assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
			assert_int_equal(fi.mapcount, copy ? 15 : 16);
			assert_invariants(m);
			assert_no_diags();
			ptsim_mm_destroy(mm);
			ptsim_machine_destroy(m);
		}
	}
}

/*
 * A pin outlives the mm: exit and destroy leave the pinned folio allocated
 * (the checker finds the books consistent), unpinning it afterwards gives
 * every byte back; a pin never released goes with the machine (ASan: no leak).
 */
static void test_pin_outlives_mm(void **state)
{
	(void)state;
	for (int unpin = 0; unpin < 2; unpin++) {
		struct ptsim_machine *m = machine(NULL);
		uint64_t free0 = phys_free(m), pinned_host = 0, host = 0, pa;
		struct ptsim_mm *mm;

		mm = new_mm_with_vma(m, VA, SZ_2M);
		assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 4, true), 0);
		pa = pa_of(mm, VA + 5 * SZ_4K);
		assert_int_equal(ptsim_folio_set_pinned(mm, VA + 5 * SZ_4K, true), 0);
		assert_int_equal(ptsim_mm_exit(mm), 0);
		assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 31);
		ptsim_mm_destroy(mm);
		assert_invariants(m);
		assert_int_equal(phys_free(m), free0 - SZ_64K);
		assert_int_equal(ptsim_machine_host_bytes(m, &pinned_host), 0);
		if (unpin) {
			/* any page of the folio names it */
			assert_int_equal(ptsim_unpin_user_page(m, pa + 3 * SZ_4K), 0);
			assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 1);
			assert_int_equal(phys_free(m), free0);
			/*
			 * the folio's records were the last live ones in their chunk
			 * of host pages, which is uncharged; the page allocator's lists keep
			 * the capacity they grew to, so this is not the host bytes
			 * of the new machine
			 */
			assert_int_equal(ptsim_machine_host_bytes(m, &host), 0);
			assert_int_equal(host, pinned_host - m->folios.chunk_records * sizeof(struct folio));
			assert_invariants(m);
		}
		assert_no_diags();
		ptsim_machine_destroy(m);
	}
}

/*
 * The checker: a pinned folio nobody maps is consistent; the same folio
 * without its pin (a reference nobody holds) is a leak, reported once, and
 * the model is left as it was.
 */
static void test_invariants_unreferenced(void **state)
{
	struct ptsim_machine *m = machine(NULL);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_64K);
	struct folio *f;
	uint64_t pa, v = 0;

	(void)state;
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	pa = pa_of(mm, VA);
	assert_int_equal(ptsim_folio_set_pinned(mm, VA, true), 0);
	assert_int_equal(ptsim_munmap(mm, VA, SZ_64K), 0);
	assert_invariants(m);
	f = pfn_folio(m, pa >> 12);
	assert_non_null(f);
	f->gup_refs = 0;	/* the record forgets GUP holds it */
	assert_int_equal(ptsim_check_invariants(m, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(diags.count[PTSIM_DIAG_INVARIANT], 1);
	diags.count[PTSIM_DIAG_INVARIANT] = 0;
	f->gup_refs = 1;
	assert_invariants(m);
	assert_int_equal(ptsim_unpin_user_page(m, pa), 0);
	assert_invariants(m);
	assert_no_diags();
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* The pin in ptsim_folio_info; one pin per folio; bad arguments change nothing. */
static void test_pin_info_and_args(void **state)
{
	struct ptsim_machine *m = machine(NULL);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_64K);
	struct ptsim_folio_info fi;
	uint64_t pa;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_64K, 4, true), 0);
	pa = pa_of(mm, VA);
	assert_int_equal(ptsim_folio_info(mm, VA + SZ_4K, &fi), 0);
	assert_int_equal(fi.pins, 0);
	assert_int_equal(ptsim_folio_set_pinned(mm, VA, true), 0);
	assert_int_equal(ptsim_folio_set_pinned(mm, VA + SZ_4K, true), 0);	/* the same folio */
	assert_int_equal(ptsim_folio_info(mm, VA + 9 * SZ_4K, &fi), 0);
	assert_true(fi.pins == 1 && fi.mapcount == 16);
	/* a large folio's pin is one reference beside its 16 mappings (try_grab_folio) */
	assert_true(fi.gets == 0 && fi.refcount == 17);
	for (size_t i = 0; i < sizeof(fi.reserved) / sizeof(fi.reserved[0]); i++)
		assert_int_equal(fi.reserved[i], 0);
	/* one pin: a single release ends it, and the folio stays mapped */
	assert_int_equal(ptsim_unpin_user_page(m, pa), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 0);
	assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
	assert_true(fi.pins == 0 && fi.mapcount == 16);
	assert_int_equal(ptsim_unpin_user_page(m, pa), -EINVAL);
	assert_int_equal(ptsim_unpin_user_page(NULL, pa), -EINVAL);
	assert_int_equal(ptsim_unpin_user_page(m, UINT64_MAX), -ENOENT);
	assert_int_equal(ptsim_unpin_user_page(m, 0), -ENOENT);
	assert_int_equal(ptsim_folio_set_pinned(mm, VA, true), 0);
	assert_int_equal(ptsim_folio_set_pinned(mm, VA, false), 0);
	assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
	assert_int_equal(fi.pins, 0);
	assert_invariants(m);
	assert_no_diags();
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* Swap-out keeps a pinned page (shrink_folio_list's folio_maybe_dma_pinned): -EBUSY, nothing done. */
static void test_swapout_refuses_pinned(void **state)
{
	struct ptsim_machine *m = machine(NULL);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_64K);
	struct ptsim_stats before, after;
	uint64_t pa;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_64K, 0, true), 0);
	pa = pa_of(mm, VA + 3 * SZ_4K);
	assert_int_equal(ptsim_folio_set_pinned(mm, VA + 3 * SZ_4K, true), 0);
	assert_int_equal(ptsim_total_stats(m, &before), 0);
	assert_int_equal(ptsim_swapout(mm, VA, SZ_64K), -EBUSY);
	assert_int_equal(ptsim_total_stats(m, &after), 0);
	assert_memory_equal(&before, &after, sizeof(before));
	for (uint64_t va = VA; va < VA + SZ_64K; va += SZ_4K)
		assert_int_equal(ptsim_translate(mm, va, &(struct ptsim_translation){ 0 }), 0);
	assert_int_equal(pa_of(mm, VA + 3 * SZ_4K), pa);
	/* the pages around it swap out */
	assert_int_equal(ptsim_swapout(mm, VA, 3 * SZ_4K), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 3);
	assert_invariants(m);
	assert_no_diags();
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * MADV_PAGEOUT of a pinned file folio: reclaim unmaps it, then keeps it in
 * the page cache (shrink_folio_list: folio_maybe_dma_pinned, activate_locked).
 */
static void test_reclaim_keeps_pinned_file_folio(void **state)
{
	struct ptsim_machine *m = machine(NULL);
	struct ptsim_mm *mm = NULL;
	unsigned int file, fd, order;
	uint64_t addr, pa;

	(void)state;
	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_file_create(m, SZ_64K, 0, &file), 0);
	assert_int_equal(ptsim_file_open(m, file, &fd), 0);
	assert_int_equal(ptsim_mmap_file(mm, 0, SZ_64K, PTSIM_PROT_READ, fd, 0, &addr), 0);
	assert_int_equal(ptsim_fault(mm, addr, PTSIM_ACCESS_READ), 0);
	pa = pa_of(mm, addr);
	assert_int_equal(ptsim_folio_set_pinned(mm, addr, true), 0);
	assert_int_equal(ptsim_madvise(mm, addr, SZ_4K, PTSIM_MADV_PAGEOUT), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 0);
	assert_int_equal(ptsim_translate(mm, addr, &(struct ptsim_translation){ 0 }), -ENOENT);
	assert_int_equal(ptsim_file_cached(m, file, 0, &order), 0);
	assert_invariants(m);
	/* the pin released, the unmapped file folio stays cached; a fault maps it again */
	assert_int_equal(ptsim_unpin_user_page(m, pa), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 0);
	assert_int_equal(ptsim_file_cached(m, file, 0, &order), 0);
	assert_int_equal(ptsim_fault(mm, addr, PTSIM_ACCESS_READ), 0);
	assert_int_equal(pa_of(mm, addr), pa);
	assert_invariants(m);
	assert_no_diags();
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * fork with several pinned exclusive PMD THPs (8 GiB free): each is split in
 * the parent and copied page by page for the child (copy_huge_pmd's -EAGAIN,
 * copy_present_page); the unpinned one is shared whole.
 */
static void test_fork_many_pinned_thps(void **state)
{
	enum { PINNED = 5 };

	(void)state;
	for (unsigned int n = 1; n <= PINNED; n += 2) {
		struct ptsim_machine *m = machine("v6.9");
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, (n + 1) * SZ_2M), *child = NULL;
		struct ptsim_translation tp, tc;
		struct ptsim_stats st;

		assert_int_equal(ptsim_populate(mm, VA, (n + 1) * SZ_2M, 9, true), 0);
		for (unsigned int i = 0; i < n; i++)
			assert_int_equal(ptsim_folio_set_pinned(mm, VA + (i + 1) * SZ_2M, true), 0);
		assert_int_equal(ptsim_fork(mm, &child), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_HUGE_PMD_SPLIT], n);
		assert_int_equal(st.ev[PTSIM_EV_PAGE_COPY], 512 * n);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_ALLOC], 512 * n);
		assert_int_equal(ptsim_translate(mm, VA, &tp), 0);
		assert_int_equal(ptsim_translate(child, VA, &tc), 0);
		assert_true(tp.level == PMD_LEVEL && tc.level == PMD_LEVEL && tp.pa == tc.pa && !tp.write);
		for (unsigned int i = 1; i <= n; i++) {
			for (uint64_t off = 0; off < SZ_2M; off += 511 * SZ_4K) {
				assert_int_equal(ptsim_translate(mm, VA + i * SZ_2M + off, &tp), 0);
				assert_int_equal(ptsim_translate(child, VA + i * SZ_2M + off, &tc), 0);
				assert_true(tp.level == PTE_LEVEL && tc.level == PTE_LEVEL && tp.pa != tc.pa);
				assert_true(tp.write && tc.write);
			}
		}
		assert_invariants(m);
		assert_no_diags();
		ptsim_mm_destroy(child);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * A pinned PMD THP whose pages' exclusive marks differ: at the PMD level the
 * head page's mark decides (folio_try_dup_anon_rmap_pmd). Head exclusive: the
 * split gives every PTE the head's exclusivity (folio_add_anon_rmap_ptes with
 * RMAP_EXCLUSIVE) and all 512 pages are copied; head shared: the PMD is
 * shared whole. Either way the copies set aside are the copies made.
 */
static void test_fork_pinned_thp_mixed_exclusive(void **state)
{
	(void)state;
	for (int head_excl = 0; head_excl < 2; head_excl++) {
		struct ptsim_machine *m = machine("v6.9");
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M), *child = NULL;
		struct ptsim_folio_info fi;
		struct ptsim_translation tp, tc;
		struct ptsim_stats st;

		assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 9, true), 0);
		assert_int_equal(ptsim_folio_set_exclusive(mm, head_excl ? VA + 5 * SZ_4K : VA, false), 0);
		assert_int_equal(ptsim_folio_set_pinned(mm, VA, true), 0);
		assert_int_equal(ptsim_fork(mm, &child), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_HUGE_PMD_SPLIT], head_excl ? 1 : 0);
		assert_int_equal(st.ev[PTSIM_EV_PAGE_COPY], head_excl ? 512 : 0);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_ALLOC], head_excl ? 512 : 0);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 0);
		assert_int_equal(ptsim_translate(mm, VA + 5 * SZ_4K, &tp), 0);
		assert_int_equal(ptsim_translate(child, VA + 5 * SZ_4K, &tc), 0);
		assert_int_equal(tp.level, head_excl ? 3 : 2);
		assert_true(head_excl ? tp.pa != tc.pa && tp.write : tp.pa == tc.pa && !tp.write);
		assert_int_equal(ptsim_folio_info(mm, VA + 5 * SZ_4K, &fi), 0);
		assert_true(fi.anon_exclusive == head_excl && fi.pins == 1);
		assert_int_equal(fi.mapcount, head_excl ? 512 : 2);
		assert_invariants(m);
		assert_no_diags();
		ptsim_mm_destroy(child);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_munmap_keeps_pinned),
		cmocka_unit_test(test_cow_keeps_pinned),
		cmocka_unit_test(test_cow_large_pinned),
		cmocka_unit_test(test_pin_outlives_mm),
		cmocka_unit_test(test_invariants_unreferenced),
		cmocka_unit_test(test_pin_info_and_args),
		cmocka_unit_test(test_swapout_refuses_pinned),
		cmocka_unit_test(test_reclaim_keeps_pinned_file_folio),
		cmocka_unit_test(test_fork_many_pinned_thps),
		cmocka_unit_test(test_fork_pinned_thp_mixed_exclusive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
