// SPDX-License-Identifier: MIT
/*
 * Anonymous faults on shared memory: the COW of a PMD THP that runs out of
 * memory (do_huge_pmd_wp_page's split stays), a write fault on a swap entry
 * fork shared (do_swap_page calls do_wp_page in the same fault), and the
 * write and MADV_COLD on a large folio part of which mremap(MREMAP_DONTUNMAP)
 * moved.
 */
#include "helpers.h"

#define VA	UINT64_C(0x40000000)
#define SZ_1M	UINT64_C(0x100000)

/* Tests here expect no diagnostic at all: any one fails them. */
static void no_diag(const struct ptsim_diag *d, void *arg)
{
	(void)arg;
	fail_msg("unexpected diagnostic %d: %s", (int)d->kind, d->message);
}

static struct ptsim_machine *machine(void)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "patched");

	ptsim_set_diag_handler(m, no_diag, NULL);
	return m;
}

static struct ptsim_stats total(const struct ptsim_machine *m)
{
	struct ptsim_stats st;

	assert_int_equal(ptsim_total_stats(m, &st), 0);
	return st;
}

static uint64_t free_bytes(const struct ptsim_machine *m)
{
	uint64_t b;

	assert_int_equal(ptsim_phys_free_bytes(m, &b), 0);
	return b;
}

static uint64_t pgtable_bytes(const struct ptsim_mm *mm)
{
	uint64_t b;

	assert_int_equal(ptsim_mm_pgtable_bytes(mm, &b), 0);
	return b;
}

/*
 * A write to a PMD THP fork shared, with the copy's allocation failing: the
 * kernel's do_huge_pmd_wp_page splits the PMD (__split_huge_pmd) and falls
 * back; do_wp_page's wp_page_copy then fails with VM_FAULT_OOM. The split
 * stays, and the model counts it: the totals, the tables, the page-table
 * bytes and free memory agree. Failing the split's own table instead leaves
 * everything as it was.
 */
static void test_thp_cow_enomem(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M), *child;
	struct ptsim_translation t;
	struct ptsim_stats before, after, st;
	uint64_t free0, pgt0;

	(void)state;
	assert_int_equal(ptsim_set_thp_orders(m, UINT64_C(1) << 9), 0);
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_translate(mm, VA, &t), 0);
	assert_int_equal(t.level, 2);
	assert_int_equal(ptsim_fork(mm, &child), 0);

	/* the first allocation is the split's PTE table: nothing changes */
	before = total(m);
	free0 = free_bytes(m);
	pgt0 = pgtable_bytes(child);
	assert_int_equal(ptsim_fail_nth_alloc(m, 1), 0);
	assert_int_equal(ptsim_fault(child, VA + SZ_4K, PTSIM_ACCESS_WRITE), -ENOMEM);
	after = total(m);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(free_bytes(m), free0);
	assert_int_equal(pgtable_bytes(child), pgt0);
	assert_int_equal(ptsim_translate(child, VA, &t), 0);
	assert_int_equal(t.level, 2);
	assert_invariants(m);

	/* the second is the copy: the split stays and is counted */
	assert_int_equal(ptsim_fail_nth_alloc(m, 2), 0);
	assert_int_equal(ptsim_fault(child, VA + SZ_4K, PTSIM_ACCESS_WRITE), -ENOMEM);
	st = last_stats(m);
	after = total(m);
	assert_int_equal(st.ev[PTSIM_EV_FAULT], 1);
	assert_int_equal(st.ev[PTSIM_EV_HUGE_PMD_SPLIT], 1);
	assert_int_equal(st.ev[PTSIM_EV_TABLE_ALLOC], 1);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_ALLOC], 0);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_COPY], 0);
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		assert_int_equal(after.ev[e], before.ev[e] + st.ev[e]);
	assert_int_equal(pgtable_bytes(child), pgt0 + 4096);
	assert_int_equal(free_bytes(m), free0 - 4096);
	/* every page is still the parent's, read-only, now PTE-mapped */
	for (uint64_t a = VA; a < VA + SZ_2M; a += SZ_4K) {
		struct ptsim_folio_info fi;

		assert_int_equal(ptsim_translate(child, a, &t), 0);
		assert_int_equal(t.level, 3);
		assert_true(t.read_only);
		assert_int_equal(ptsim_folio_info(child, a, &fi), 0);
		assert_int_equal(fi.order, 9);
		assert_int_equal(fi.mapcount, 513);
	}
	assert_invariants(m);

	/* with memory back, the same fault copies the page */
	assert_int_equal(ptsim_fault(child, VA + SZ_4K, PTSIM_ACCESS_WRITE), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_HUGE_PMD_SPLIT], 0);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_COPY], 1);
	assert_int_equal(ptsim_translate(child, VA + SZ_4K, &t), 0);
	assert_true(t.write && !t.read_only);
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* A write to va completes without a fault, on both CPUs' view (a TLB miss walks the tables). */
static void assert_writes_without_fault(struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_translation t;
	enum ptsim_fault_kind f = PTSIM_FAULT_TRANSLATION;

	assert_int_equal(ptsim_translate(mm, va, &t), 0);
	assert_true(t.write && !t.read_only && t.dirty);
	assert_int_equal(ptsim_access(mm, 0, va, PTSIM_ACCESS_WRITE, &f), 0);
	assert_int_equal(f, PTSIM_FAULT_NONE);
}

/*
 * A write fault on a swap entry fork shared: do_swap_page maps the page
 * read-only (the entry is not exclusive) and, the fault being a write,
 * calls do_wp_page under the same PTE lock. The model has no swap cache:
 * the page read back is a folio only this mapping holds, so do_wp_page
 * reuses it (wp_page_reuse: ptep_set_access_flags, one compare-and-swap and
 * flush_tlb_page). One fault; a second write takes none.
 */
static void check_shared_swap_write(struct ptsim_machine *m, struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_folio_info fi;
	struct ptsim_stats st;

	assert_int_equal(ptsim_fault(mm, va, PTSIM_ACCESS_WRITE), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_FAULT], 1);
	assert_int_equal(st.ev[PTSIM_EV_MAJOR_FAULT], 1);
	assert_int_equal(st.ev[PTSIM_EV_SWAP_LOOKUP], 1);
	assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], 1);
	assert_int_equal(st.ev[PTSIM_EV_IO_KIB], 4);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_ALLOC], 1);
	assert_int_equal(st.ev[PTSIM_EV_PTL_LOCK], 1);		/* do_swap_page's, kept by do_wp_page */
	/*
	 * handle_pte_fault's read, pte_same under the lock, arm64 set_ptes's
	 * (contpte_try_unfold), do_wp_page's ptep_get, and the two of
	 * ptep_set_access_flags
	 */
	assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 6);
	assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 1);		/* set_ptes, read-only */
	assert_int_equal(st.ev[PTSIM_EV_PTE_CAS], 1);		/* wp_page_reuse's ptep_set_access_flags */
	assert_int_equal(st.ev[PTSIM_EV_TLBI_VA], 1);		/* its flush_tlb_page */
	assert_int_equal(st.ev[PTSIM_EV_ANON_EXCL_TEST], 1);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_COPY], 0);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 0);
	/* the reuse is do_wp_page's: its lookup, test and compare-and-swap */
	assert_int_equal(ptsim_last_func_stats(m, PTSIM_FN_DO_WP_PAGE, &st), 0);
	assert_int_equal(st.ev[PTSIM_EV_ANON_EXCL_TEST], 1);
	assert_int_equal(st.ev[PTSIM_EV_PTE_CAS], 1);
	assert_int_equal(st.ev[PTSIM_EV_MAJOR_FAULT], 0);
	assert_int_equal(ptsim_folio_info(mm, va, &fi), 0);
	assert_true(fi.anon_exclusive);
	assert_int_equal(fi.mapcount, 1);
	assert_writes_without_fault(mm, va);
	assert_int_equal(ptsim_fault(mm, va, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FAULT], 0);	/* spurious: nothing to do */
}

/* Swap-out, then fork: both mms hold the entry, neither exclusively. */
static void test_swap_write_after_fork(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M), *child;
	struct ptsim_translation t;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, 4 * SZ_4K, 0, true), 0);
	assert_int_equal(ptsim_swapout(mm, VA, 2 * SZ_4K), 0);
	assert_int_equal(ptsim_madvise(mm, VA + 2 * SZ_4K, 2 * SZ_4K, PTSIM_MADV_PAGEOUT), 0);
	assert_int_equal(ptsim_fork(mm, &child), 0);
	for (uint64_t a = VA; a < VA + 4 * SZ_4K; a += SZ_4K) {
		assert_int_equal(ptsim_translate(child, a, &t), -ENOENT);
		check_shared_swap_write(m, child, a);
		check_shared_swap_write(m, mm, a);
	}
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* Fork, then swap-out of the parent's mapping: its entry is not exclusive either. */
static void test_swap_write_fork_then_swapout(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M), *child;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_4K, 0, true), 0);
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_int_equal(ptsim_swapout(mm, VA, SZ_4K), 0);
	check_shared_swap_write(m, mm, VA);
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * mlock's populate (__mm_populate, a write for a private writable VMA)
 * over shared swap entries: one fault per page leaves every page writable,
 * and GUP's second look finds it so.
 */
static void test_swap_write_mlock_populate(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M), *child;
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, 16 * SZ_4K, 0, true), 0);
	assert_int_equal(ptsim_madvise(mm, VA, 16 * SZ_4K, PTSIM_MADV_PAGEOUT), 0);
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_int_equal(ptsim_mlock(child, VA, 16 * SZ_4K), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_FAULT], 16);
	assert_int_equal(st.ev[PTSIM_EV_MAJOR_FAULT], 16);
	assert_int_equal(st.ev[PTSIM_EV_PTE_CAS], 16);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_COPY], 0);
	for (uint64_t a = VA; a < VA + 16 * SZ_4K; a += SZ_4K)
		assert_writes_without_fault(child, a);
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * A 64K mTHP at VA whose first half mremap(MREMAP_DONTUNMAP|MREMAP_FIXED)
 * moved to VA + 1 GiB: the old VMA stays whole, with its anon_vma and page
 * offsets, and maps only the second half; the new one maps the first. The
 * folio is still mapped only by mm (mapcount 16). The rmap walk visits both
 * VMAs for the first half's indices; the emptied range maps nothing.
 */
#define NEW	(VA + SZ_1G)

static struct ptsim_mm *dontunmap_half(struct ptsim_machine *m, bool shared_once)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M), *child;
	struct ptsim_folio_info fi;
	struct ptsim_translation t;
	uint64_t out = 0;

	assert_int_equal(ptsim_set_thp_orders(m, UINT64_C(1) << 4), 0);
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	if (shared_once) {
		/* fork and the child's exit: the pages lose PageAnonExclusive, stay read-only */
		assert_int_equal(ptsim_fork(mm, &child), 0);
		assert_int_equal(ptsim_mm_exit(child), 0);
		ptsim_mm_destroy(child);
	}
	assert_int_equal(ptsim_mremap(mm, VA, 8 * SZ_4K, 8 * SZ_4K,
				      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED | PTSIM_MREMAP_DONTUNMAP,
				      NEW, &out), 0);
	assert_int_equal(out, NEW);
	assert_int_equal(ptsim_translate(mm, VA, &t), -ENOENT);
	assert_int_equal(ptsim_folio_info(mm, NEW, &fi), 0);
	assert_int_equal(fi.order, 4);
	assert_int_equal(fi.mapcount, 16);
	assert_int_equal(fi.anon_exclusive, !shared_once);
	return mm;
}

/*
 * A write to a page of it that is not PageAnonExclusive: this mm maps the
 * whole folio and nothing else does, so do_wp_page reuses the page
 * (wp_can_reuse_anon_folio for a large folio, v6.15's
 * __wp_can_reuse_large_anon_folio) in either VMA, and copies nothing.
 */
static void test_dontunmap_write_reuses(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = dontunmap_half(m, true);
	static const uint64_t at[] = { NEW + 3 * SZ_4K, VA + 9 * SZ_4K };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct ptsim_translation t;
		struct ptsim_folio_info fi;
		struct ptsim_stats st;

		assert_int_equal(ptsim_translate(mm, at[i], &t), 0);
		assert_true(t.read_only);
		assert_int_equal(ptsim_fault(mm, at[i], PTSIM_ACCESS_WRITE), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_FAULT], 1);
		assert_int_equal(st.ev[PTSIM_EV_PAGE_COPY], 0);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_ALLOC], 0);
		assert_int_equal(st.ev[PTSIM_EV_PTE_CAS], 1);
		assert_writes_without_fault(mm, at[i]);
		assert_int_equal(ptsim_folio_info(mm, at[i], &fi), 0);
		assert_int_equal(fi.order, 4);
		assert_int_equal(fi.mapcount, 16);
		assert_true(fi.anon_exclusive);
	}
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * MADV_COLD over the moved half: the range cuts the folio and no other mm
 * maps it, so madvise_cold_or_pageout_pte_range splits it (split_folio,
 * whose unmap finds the pages in both VMAs) and ages the pages.
 */
static void test_dontunmap_cold_splits(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = dontunmap_half(m, false);
	struct ptsim_folio_info fi;
	struct ptsim_translation t;

	(void)state;
	assert_int_equal(ptsim_madvise(mm, NEW, 8 * SZ_4K, PTSIM_MADV_COLD), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_SPLIT], 1);
	for (uint64_t i = 0; i < 16; i++) {
		uint64_t a = i < 8 ? NEW + i * SZ_4K : VA + i * SZ_4K;

		assert_int_equal(ptsim_folio_info(mm, a, &fi), 0);
		assert_int_equal(fi.order, 0);
		assert_int_equal(fi.mapcount, 1);
		assert_true(fi.anon_exclusive);
		assert_int_equal(ptsim_translate(mm, a, &t), 0);
		assert_true(t.write && !t.cont);
		assert_int_equal(t.af, i >= 8);	/* only the range is made old */
	}
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * A write fault on the shared zero page a read fault mapped: wp_page_copy's
 * vmf_anon_prepare gives the VMA its anon_vma, so fork (vma_needs_copy)
 * copies the new page's entry and the child reads what the parent wrote.
 */
static void test_zero_page_write_then_fork(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M), *child;
	struct ptsim_translation t, tc;
	struct ptsim_folio_info fi;
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_READ), 0);
	assert_int_equal(ptsim_folio_info(mm, VA, &fi), -ENOENT);	/* the zero page: no folio */
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_ZERO], 1);
	/*
	 * v6.12 wp_page_copy: the notifier range, and the PTE lock taken again
	 * (pte_offset_map_lock) after do_wp_page dropped handle_pte_fault's
	 */
	assert_int_equal(st.ev[PTSIM_EV_MMU_NOTIFIER_RANGE], 1);
	assert_int_equal(st.ev[PTSIM_EV_PTL_LOCK], 2);
	assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
	assert_true(fi.anon && fi.anon_exclusive);
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_int_equal(ptsim_translate(mm, VA, &t), 0);
	assert_int_equal(ptsim_translate(child, VA, &tc), 0);
	assert_int_equal(tc.pa, t.pa);	/* shared copy-on-write */
	assert_true(t.read_only && tc.read_only);
	assert_int_equal(ptsim_folio_info(child, VA, &fi), 0);
	assert_int_equal(fi.mapcount, 2);
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

static struct ptsim_machine *machine_without_hafdbs(void)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "patched");

	ptsim_set_diag_handler(m, no_diag, NULL);
	return m;
}

/*
 * One access at va faults with kind fk; ptsim_fault handles it (after
 * lock_vma_under_rcu) with one call of __ptep_set_access_flags and its one CAS (cas: the event of that
 * atomic, PTE_CAS for a PTE, PMD_XCHG for a PMD); the access then succeeds.
 */
static void check_fault_fixes(struct ptsim_machine *m, struct ptsim_mm *mm, uint64_t va,
			      enum ptsim_access_kind kind, enum ptsim_fault_kind fk,
			      enum ptsim_event cas)
{
	enum ptsim_fault_kind f = PTSIM_FAULT_NONE;
	struct ptsim_stats st;

	assert_int_equal(ptsim_access(mm, 0, va, kind, &f), -EFAULT);
	assert_int_equal(f, fk);
	assert_int_equal(ptsim_fault(mm, va, kind), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_FAULT], 1);
	/* __ptep_set_access_flags, and the fault's lock_vma_under_rcu */
	assert_int_equal(st.ev[PTSIM_EV_HELPER_CALL], 2);
	assert_int_equal(st.ev[PTSIM_EV_PTE_CAS], cas == PTSIM_EV_PTE_CAS);
	assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 0);
	assert_int_equal(st.ev[PTSIM_EV_PMD_XCHG], cas == PTSIM_EV_PMD_XCHG);
	assert_int_equal(ptsim_access(mm, 0, va, kind, &f), 0);
	assert_int_equal(f, PTSIM_FAULT_NONE);
	/* and again: nothing left to do, a spurious fault counts nothing */
	assert_int_equal(ptsim_fault(mm, va, kind), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FAULT], 0);
}

/*
 * A CPU without FEAT_HAFDBS (apple-m3) takes an access-flag fault on an old
 * entry and a permission fault on a write to a writable clean one; arm64's
 * do_page_fault hands both to handle_mm_fault, whose handle_pte_fault makes
 * the entry young (and dirty for the write) with ptep_set_access_flags, and
 * huge_pmd_set_accessed a PMD leaf. The access then goes through.
 */
static void test_fault_sets_young_dirty(void **state)
{
	struct ptsim_machine *m = machine_without_hafdbs();
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 2 * SZ_2M);
	struct ptsim_translation t;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, 2 * SZ_4K, 0, true), 0);
	/* MADV_COLD: old */
	assert_int_equal(ptsim_madvise(mm, VA, SZ_4K, PTSIM_MADV_COLD), 0);
	assert_int_equal(ptsim_translate(mm, VA, &t), 0);
	assert_false(t.af);
	check_fault_fixes(m, mm, VA, PTSIM_ACCESS_READ, PTSIM_FAULT_ACCESS_FLAG,
			  PTSIM_EV_PTE_CAS);
	assert_int_equal(ptsim_translate(mm, VA, &t), 0);
	assert_true(t.af && t.dirty && !t.read_only);
	/* MADV_FREE: old and clean, still writable (DBM): a read makes it young, a write dirty */
	assert_int_equal(ptsim_madvise(mm, VA + SZ_4K, SZ_4K, PTSIM_MADV_FREE), 0);
	assert_int_equal(ptsim_translate(mm, VA + SZ_4K, &t), 0);
	assert_true(!t.af && t.write && t.read_only);
	check_fault_fixes(m, mm, VA + SZ_4K, PTSIM_ACCESS_READ, PTSIM_FAULT_ACCESS_FLAG,
			  PTSIM_EV_PTE_CAS);
	assert_int_equal(ptsim_translate(mm, VA + SZ_4K, &t), 0);
	assert_true(t.af && t.write && t.read_only);	/* young, still clean */
	check_fault_fixes(m, mm, VA + SZ_4K, PTSIM_ACCESS_WRITE, PTSIM_FAULT_PERMISSION,
			  PTSIM_EV_PTE_CAS);
	assert_int_equal(ptsim_translate(mm, VA + SZ_4K, &t), 0);
	assert_true(t.af && t.dirty && t.write && !t.read_only);
	/* a PMD leaf made old */
	assert_int_equal(ptsim_populate(mm, VA + SZ_2M, SZ_2M, 9, true), 0);
	assert_int_equal(ptsim_madvise(mm, VA + SZ_2M, SZ_2M, PTSIM_MADV_COLD), 0);
	assert_int_equal(ptsim_translate(mm, VA + SZ_2M, &t), 0);
	assert_int_equal(t.level, 2);
	assert_false(t.af);
	check_fault_fixes(m, mm, VA + SZ_2M + SZ_4K, PTSIM_ACCESS_READ, PTSIM_FAULT_ACCESS_FLAG,
			  PTSIM_EV_PMD_XCHG);
	assert_int_equal(ptsim_translate(mm, VA + SZ_2M, &t), 0);
	assert_true(t.level == PMD_LEVEL && t.af);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thp_cow_enomem),
		cmocka_unit_test(test_swap_write_after_fork),
		cmocka_unit_test(test_swap_write_fork_then_swapout),
		cmocka_unit_test(test_swap_write_mlock_populate),
		cmocka_unit_test(test_dontunmap_write_reuses),
		cmocka_unit_test(test_dontunmap_cold_splits),
		cmocka_unit_test(test_zero_page_write_then_fork),
		cmocka_unit_test(test_fault_sets_young_dirty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
