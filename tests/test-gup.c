// SPDX-License-Identifier: MIT
/*
 * pin_user_pages / get_user_pages (v6.12 mm/gup.c): FOLL_PIN and FOLL_GET
 * references (try_grab_folio), FOLL_WRITE's COW break (faultin_page), the
 * unshare fault of a R/O pin (gup_must_unshare, FAULT_FLAG_UNSHARE,
 * do_wp_page), FOLL_LONGTERM and the shared zero page, the refcounts the
 * page query and ptsim_folio_info show, and what a FOLL_GET reference does
 * to a later write fault (wp_can_reuse_anon_folio: folio_ref_count == 1).
 */
#include "helpers.h"

#define VA SZ_1G
#define SZ_4M (2 * SZ_2M)

static struct ptsim_machine *machine(void)
{
	return new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
}

static uint64_t pa_of(struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_translation tr;

	assert_int_equal(ptsim_translate(mm, va, &tr), 0);
	return tr.pa;
}

static struct ptsim_page_info page(struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_page_info pi;

	assert_int_equal(ptsim_pagemap(mm, va, &pi), 0);
	return pi;
}

/* A written page at VA, and a child of fork that shares it (NULL: the child is gone). */
static struct ptsim_mm *shared_page(struct ptsim_machine *m, bool keep_child, struct ptsim_mm **child)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_64K);

	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_fork(mm, child), 0);
	if (!keep_child) {
		assert_int_equal(ptsim_mm_exit(*child), 0);
		ptsim_mm_destroy(*child);
		*child = NULL;
	}
	return mm;
}

/*
 * A R/O pin of a page fork shared: gup_must_unshare (not PageAnonExclusive)
 * sends it to the unshare fault, whose do_wp_page copies it (two mappings)
 * and maps the copy read-only and clean. The pin is on the copy: 1 mapping
 * + GUP_PIN_COUNTING_BIAS; the child keeps the old page.
 */
static void test_ro_pin_unshares_shared_page(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *child, *mm = shared_page(m, true, &child);
	uint64_t old = pa_of(mm, VA), pa = 0;
	struct ptsim_page_info pi;
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_pin_user_pages(mm, VA, 1, 0, &pa), 1);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_COPY], 1);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_ALLOC], 1);
	/*
	 * the folio_ref_add of the bias, do_wp_page's folio_get of the old
	 * page, and the copy's reference in the lru_add batch
	 */
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_GET], 3);
	/*
	 * wp_page_copy's two folio_puts, and the lru_add batch's reference:
	 * the page faulted in just before the fork is not on the LRU yet, so
	 * wp_can_reuse_anon_folio drains the batch (one lruvec lock) before
	 * it counts the references (two mappings: no reuse)
	 */
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_PUT], 3);
	assert_int_equal(st.ev[PTSIM_EV_LRU_LOCK], 1);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_TRYLOCK], 0);
	/*
	 * the caller's mmap_read_lock, and the fault's lock_vma_under_rcu (the
	 * model counts GUP's faults as it counts mlock's populate: doc/gup.md)
	 */
	assert_int_equal(st.ev[PTSIM_EV_RWSEM], 2);
	assert_int_not_equal(pa, old);
	assert_int_equal(pa, pa_of(mm, VA));
	pi = page(mm, VA);
	assert_true(pi.exclusive && !pi.write && !pi.dirty && pi.anon);
	assert_true(pi.pins == 1 && pi.gets == 0 && pi.mapcount == 1);
	assert_int_equal(pi.refcount, 1 + 1024);
	assert_int_equal(pa_of(child, VA), old);
	pi = page(child, VA);
	assert_true(pi.pins == 0 && pi.mapcount == 1 && pi.refcount == 1);
	/* the write that follows reuses the exclusive page: the pin sees it */
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(pa_of(mm, VA), pa);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_COPY], 0);
	assert_int_equal(ptsim_unpin_user_page(m, pa), 0);
	assert_int_equal(page(mm, VA).refcount, 1);
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * A R/O pin of a page that was shared and no longer is: the unshare fault
 * reuses it (wp_can_reuse_anon_folio: one reference), marking it exclusive;
 * the entry stays read-only.
 */
static void test_ro_pin_reuses_previously_shared(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *child, *mm = shared_page(m, false, &child);
	uint64_t old = pa_of(mm, VA), pa = 0;
	struct ptsim_page_info pi;

	(void)state;
	assert_false(page(mm, VA).exclusive);
	assert_int_equal(ptsim_pin_user_pages(mm, VA, 1, PTSIM_FOLL_LONGTERM, &pa), 1);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_COPY], 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_FLAG_ATOMIC], 1);	/* SetPageAnonExclusive */
	/*
	 * wp_can_reuse_anon_folio: on the LRU already (the child's exit
	 * drained the batch), one reference; under the folio lock the folio
	 * moves to this VMA's anon_vma
	 */
	assert_int_equal(last_stats(m).ev[PTSIM_EV_LRU_LOCK], 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_TRYLOCK], 1);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_RMAP_MOVE], 1);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_UNLOCK], 1);
	assert_int_equal(pa, old);
	pi = page(mm, VA);
	assert_true(pi.exclusive && !pi.write && pi.pins == 1);
	assert_int_equal(ptsim_unpin_user_page(m, pa), 0);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* FOLL_WRITE on a shared page: the write fault breaks COW, and the pin is on the writable copy. */
static void test_write_pin_breaks_cow(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *child, *mm = shared_page(m, true, &child);
	uint64_t old = pa_of(mm, VA), pa = 0;
	struct ptsim_page_info pi;

	(void)state;
	assert_int_equal(ptsim_pin_user_pages(mm, VA, 1, PTSIM_FOLL_WRITE, &pa), 1);
	assert_int_not_equal(pa, old);
	pi = page(mm, VA);
	assert_true(pi.write && pi.dirty && pi.exclusive && pi.pins == 1);
	assert_int_equal(pa_of(child, VA), old);
	assert_int_equal(ptsim_unpin_user_page(m, pa), 0);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * The shared zero page: a short-term R/O pin takes nothing on it
 * (try_grab_folio skips the zero folio); a long-term one in a private
 * mapping unshares it first into a zeroed, read-only, exclusive page.
 */
static void test_zero_page_pins(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_64K);
	uint64_t zero, pa = 0;
	struct ptsim_page_info pi;

	(void)state;
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_READ), 0);
	zero = pa_of(mm, VA);
	assert_true(page(mm, VA).zero_page);
	assert_int_equal(ptsim_pin_user_pages(mm, VA, 1, 0, &pa), 1);
	assert_int_equal(pa, zero);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_GET], 0);
	assert_int_equal(ptsim_pin_user_pages(mm, VA, 1, PTSIM_FOLL_LONGTERM, &pa), 1);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_ZERO], 1);
	assert_int_not_equal(pa, zero);
	pi = page(mm, VA);
	assert_true(!pi.zero_page && pi.anon && pi.exclusive && !pi.write && pi.pins == 1);
	/* a missing page: the read fault maps the zero page, which the unshare fault replaces */
	assert_int_equal(ptsim_pin_user_pages(mm, VA + SZ_4K, 1, PTSIM_FOLL_LONGTERM, &pa), 1);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FAULT], 2);
	pi = page(mm, VA + SZ_4K);
	assert_true(!pi.zero_page && pi.exclusive && pi.pins == 1 && pa == pa_of(mm, VA + SZ_4K));
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * FOLL_GET on the shared zero page (v6.12 follow_page_pte returns it,
 * try_grab_folio's folio_ref_add skips only FOLL_PIN's): one reference,
 * counted, on every preset; put_page drops it, once, and the zero page
 * stays what every read fault maps.
 */
static void test_zero_page_get(void **state)
{
	const char *preset;

	(void)state;
	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_64K);
		uint64_t zero, pa[2];

		assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_READ), 0);
		assert_int_equal(ptsim_fault(mm, VA + SZ_4K, PTSIM_ACCESS_READ), 0);
		zero = pa_of(mm, VA);
		assert_int_equal(ptsim_get_user_pages(mm, VA, 2, 0, pa), 2);
		assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_GET], 2);
		assert_int_equal(pa[0], zero);
		assert_int_equal(pa[1], zero);
		assert_int_equal(ptsim_put_page(m, pa[0]), 0);
		assert_int_equal(ptsim_put_page(m, pa[1]), 0);
		assert_int_equal(ptsim_put_page(m, zero), -EINVAL);	/* no reference left */
		assert_int_equal(ptsim_munmap(mm, VA, SZ_64K), 0);
		assert_int_equal(ptsim_mmap(mm, VA, SZ_64K, PTSIM_PROT_READ, PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS,
					    NULL), 0);
		assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_READ), 0);
		assert_int_equal(pa_of(mm, VA), zero);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * A PMD THP fork shared, pinned R/O: do_huge_pmd_wp_page cannot reuse it
 * (two references), splits the PMD and do_wp_page copies the one page.
 * Pins of a large folio add one reference each and count in _pincount.
 */
static void test_thp_pins(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_4M), *child;
	uint64_t pas[4], head;
	struct ptsim_page_info pi;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 9, true), 0);
	head = pa_of(mm, VA);
	/* exclusive: pinned in place, 512 mappings' worth of one PMD + 4 pins */
	assert_int_equal(ptsim_pin_user_pages(mm, VA, 4, 0, pas), 4);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_GET], 8);	/* ref + _pincount per page */
	assert_int_equal(pas[3], head + 3 * SZ_4K);
	pi = page(mm, VA + 3 * SZ_4K);
	assert_true(pi.level == 2 && pi.order == 9 && pi.pins == 4 && pi.refcount == 1 + 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(ptsim_unpin_user_page(m, pas[i]), 0);
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_int_equal(ptsim_pin_user_pages(mm, VA + SZ_4K, 1, 0, pas), 1);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_HUGE_PMD_SPLIT], 1);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_COPY], 1);
	pi = page(mm, VA + SZ_4K);
	assert_true(pi.level == 3 && pi.order == 0 && pi.exclusive && pi.pins == 1 && !pi.write);
	assert_int_not_equal(pas[0], head + SZ_4K);
	assert_int_equal(pa_of(mm, VA), head);
	assert_int_equal(pa_of(child, VA + SZ_4K), head + SZ_4K);
	assert_int_equal(ptsim_unpin_user_page(m, pas[0]), 0);
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * A FOLL_GET reference (vmsplice's) on a page fork shared: no unshare, and
 * after the child unmaps it the parent's write cannot reuse the page (its
 * refcount is 2): it copies, and the referenced page keeps what it held.
 * put_page then frees it.
 */
static void test_get_reference_forces_copy(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *child, *mm = shared_page(m, true, &child);
	uint64_t old = pa_of(mm, VA), pa = 0;
	struct ptsim_folio_info fi;

	(void)state;
	assert_int_equal(ptsim_get_user_pages(child, VA, 1, 0, &pa), 1);
	assert_int_equal(pa, old);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_COPY], 0);
	assert_int_equal(ptsim_folio_info(child, VA, &fi), 0);
	assert_true(fi.gets == 1 && fi.pins == 0 && fi.refcount == 3 && !fi.anon_exclusive);
	assert_int_equal(ptsim_munmap(child, VA, SZ_64K), 0);
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_COPY], 1);
	assert_int_not_equal(pa_of(mm, VA), old);
	assert_invariants(m);	/* the referenced page lives on, unmapped */
	assert_int_equal(ptsim_put_page(m, pa), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 1);
	assert_int_equal(ptsim_put_page(m, pa), -ENOENT);
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* Arguments (is_valid_gup_args and the model's own), holes, and partial results. */
static void test_gup_args_and_partial(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_64K);
	uint64_t pas[32];
	struct ptsim_stats before, after;

	(void)state;
	ptsim_total_stats(m, &before);
	assert_int_equal(ptsim_get_user_pages(mm, VA, 1, PTSIM_FOLL_LONGTERM, pas), -EINVAL);
	assert_int_equal(ptsim_pin_user_pages(mm, VA + 1, 1, 0, pas), -EINVAL);
	assert_int_equal(ptsim_pin_user_pages(mm, VA, 1, 0, NULL), -EINVAL);
	assert_int_equal(ptsim_pin_user_pages(NULL, VA, 1, 0, pas), -EINVAL);
	assert_int_equal(ptsim_pin_user_pages(mm, VA, 1, 0x80u, pas), -EINVAL);
	assert_int_equal(ptsim_pin_user_pages(mm, VA, UINT64_MAX, 0, pas), -EINVAL);
	assert_int_equal(ptsim_pin_user_pages(mm, VA, 0, 0, pas), 0);
	assert_int_equal(ptsim_pin_user_pages(mm, VA + SZ_64K, 1, 0, pas), -EFAULT);
	ptsim_total_stats(m, &after);
	assert_memory_equal(&before, &after, sizeof(before));
	/* 16 pages of the VMA, then the hole: the 16 stay pinned */
	assert_int_equal(ptsim_pin_user_pages(mm, VA, 32, PTSIM_FOLL_WRITE, pas), 16);
	assert_int_equal(page(mm, VA + 15 * SZ_4K).pins, 1);
	assert_int_equal(ptsim_mprotect(mm, VA, SZ_64K, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_pin_user_pages(mm, VA, 1, PTSIM_FOLL_WRITE, pas + 16), -EFAULT);
	assert_int_equal(ptsim_put_page(m, pas[0]), -EINVAL);	/* pinned, not referenced */
	for (int i = 0; i < 16; i++)
		assert_int_equal(ptsim_unpin_user_page(m, pas[i]), 0);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ro_pin_unshares_shared_page),
		cmocka_unit_test(test_ro_pin_reuses_previously_shared),
		cmocka_unit_test(test_write_pin_breaks_cow),
		cmocka_unit_test(test_zero_page_pins),
		cmocka_unit_test(test_zero_page_get),
		cmocka_unit_test(test_thp_pins),
		cmocka_unit_test(test_get_reference_forces_copy),
		cmocka_unit_test(test_gup_args_and_partial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
