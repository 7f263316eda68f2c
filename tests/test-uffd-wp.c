// SPDX-License-Identifier: MIT
/*
 * userfaultfd write-protect on arm64 (v6.10 on: "arm64/mm: Add uffd
 * write-protect support") and the PAGEMAP_SCAN ioctl (v6.7): registration
 * (v6.12 fs/userfaultfd.c userfaultfd_api, userfaultfd_register),
 * UFFDIO_WRITEPROTECT (mwriteprotect_range, uffd_wp_range, change_pte_range
 * with MM_CP_UFFD_WP / _RESOLVE), the async fault (do_wp_page,
 * handle_pte_marker, wp_huge_pmd, do_swap_page), where the bit is kept or
 * dropped (fork, swap, mremap, mprotect, zap), and do_pagemap_scan. Counts
 * are pinned per preset.
 */
#include "helpers.h"

#define VA SZ_1G
#define NR 16u
#define LEN (NR * SZ_4K)
#define WP PTSIM_UFFDIO_REGISTER_MODE_WP
#define ASYNC PTSIM_UFFD_FEATURE_WP_ASYNC
#define WP_ON PTSIM_UFFDIO_WRITEPROTECT_MODE_WP

static struct ptsim_machine *machine(const char *preset)
{
	return new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
}

/* NR pages at VA, the first `written` of them written (order 0). */
static struct ptsim_mm *setup(struct ptsim_machine *m, unsigned int written)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, LEN);

	if (written)
		assert_int_equal(ptsim_populate(mm, VA, written * SZ_4K, 0, true), 0);
	return mm;
}

static struct ptsim_page_info page(const struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_page_info pi;

	assert_int_equal(ptsim_pagemap(mm, va, &pi), 0);
	return pi;
}

static bool vma_uffd_wp(const struct ptsim_mm *mm, uint64_t va)
{
	const struct vma *v = find_vma(mm, va);

	assert_non_null(v);
	return v->uffd_wp;
}

/* A uffd-wp PTE marker: a swap-type entry with no slot (pagemap: SWP_PTE_MARKER, offset 1). */
static void assert_marker(const struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_page_info pi = page(mm, va);

	assert_int_equal(pi.state, PTSIM_PAGE_SWAP);
	assert_int_equal(pi.swap_type, 31);
	assert_int_equal(pi.swap_offset, 1);
	assert_true(pi.uffd_wp);
}

/*
 * Before v6.10 arm64 has no HAVE_ARCH_USERFAULTFD_WP: userfaultfd_api drops
 * the WP features (asking for one is -EINVAL) and userfaultfd_register
 * refuses MODE_WP (-EINVAL); MODE_MISSING still works. From v6.10 the
 * registration sets VM_UFFD_WP, shown in ptsim_vma_info.
 */
static void test_register_per_release(void **state)
{
	static const char *const before[] = { "v6.6", "v6.8", "v6.9" };
	static const char *const after[] = { "v6.10", "v6.12", "baseline", "v6.19" };

	(void)state;
	for (size_t i = 0; i < sizeof(before) / sizeof(before[0]); i++) {
		struct ptsim_machine *m = machine(before[i]);
		struct ptsim_mm *mm = setup(m, 0);

		assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, 0), -EINVAL);
		assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, PTSIM_UFFDIO_REGISTER_MODE_MISSING,
							  ASYNC), -EINVAL);
		assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, PTSIM_UFFDIO_REGISTER_MODE_MISSING,
							  PTSIM_UFFD_FEATURE_WP_UNPOPULATED), -EINVAL);
		/* no HAVE_ARCH_USERFAULTFD_WP: UFFD_FEATURE_PAGEFAULT_FLAG_WP is dropped too */
		assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, PTSIM_UFFDIO_REGISTER_MODE_MISSING,
							  PTSIM_UFFD_FEATURE_PAGEFAULT_FLAG_WP), -EINVAL);
		assert_false(find_vma(mm, VA)->uffd);
		assert_int_equal(ptsim_uffd_register(mm, VA, LEN), 0);
		assert_false(vma_uffd_wp(mm, VA));
		/* mwriteprotect_range: no VM_UFFD_WP VMA, -ENOENT */
		assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN, WP_ON), -ENOENT);
		ptsim_machine_destroy(m);
	}
	for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++) {
		struct ptsim_machine *m = machine(after[i]);
		struct ptsim_mm *mm = setup(m, 0);

		assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, 0, 0), -EINVAL);
		assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, 4, 0), -EINVAL);	/* MINOR */
		assert_int_equal(ptsim_uffd_register_mode(mm, VA + 1, LEN, WP, 0), -EINVAL);
		assert_int_equal(ptsim_uffd_register_mode(mm, VA + LEN, LEN, WP, 0), -EINVAL);	/* no VMA */
		/* half of it: the VMA is split at the edge */
		assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN / 2, WP, ASYNC), 0);
		assert_true(vma_uffd_wp(mm, VA));
		assert_false(vma_uffd_wp(mm, VA + LEN / 2));
		assert_int_equal(mm->nr_vmas, 2);
		/* another context (other features) owns it: -EBUSY */
		assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, 0), -EBUSY);
		/* the same context again, the whole range: merged back into one VMA */
		assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, ASYNC), 0);
		assert_int_equal(mm->nr_vmas, 1);
		assert_true(userfaultfd_wp_async(find_vma(mm, VA)));
		/* WP_ASYNC implies WP_UNPOPULATED (userfaultfd_api) */
		assert_true(find_vma(mm, VA)->uffd_features & UFFD_CTX_WP_UNPOPULATED);
		ptsim_machine_destroy(m);
	}
}

/* ptsim_vma_foreach's uffd_wp */
static int vma_wp_of(const struct ptsim_vma_info *v, void *arg)
{
	*(int *)arg = v->uffd_wp ? 1 : 0;
	return 0;
}

static void test_vma_info_uffd_wp(void **state)
{
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = setup(m, 0);
	int wp = -1;

	(void)state;
	assert_int_equal(ptsim_vma_foreach(mm, vma_wp_of, &wp), 0);
	assert_int_equal(wp, 0);
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, 0), 0);
	assert_int_equal(ptsim_vma_foreach(mm, vma_wp_of, &wp), 0);
	assert_int_equal(wp, 1);
	ptsim_machine_destroy(m);
}

/*
 * UFFDIO_WRITEPROTECT over 8 written pages and 8 none entries of one PTE
 * table, registered WP_ASYNC (markers): per entry a loop turn and a
 * ptep_get; per present entry ptep_modify_prot_start (a call) and commit,
 * pte_modify, and pte_mkuffd_wp; per none entry a marker (set_pte_at); the
 * gathered flush covers the 8 present pages (8 TLBI VA on Neoverse N1, no
 * range TLBI). v6.17's batched path starts with modify_prot_start_ptes
 * and commits with modify_prot_commit_ptes (one of each per order-0
 * folio). v6.19's pte_needs_flush still flushes: the write permission went.
 */
static void test_writeprotect_counts(void **state)
{
	static const char *const presets[] = { "v6.12", "v6.17", "v6.19" };

	(void)state;
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		struct ptsim_machine *m = machine(presets[i]);
		struct ptsim_mm *mm = setup(m, 8);

		assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, ASYNC), 0);
		assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN, WP_ON), 0);
		assert_int_equal(ev(m, PTSIM_EV_SYSCALL), 1);
		assert_int_equal(ev(m, PTSIM_EV_RWSEM), 1);	/* mmap_read_lock */
		assert_int_equal(ev(m, PTSIM_EV_PTE_LOOP), NR);
		assert_int_equal(ev(m, PTSIM_EV_PTEP_GET), NR);
		assert_int_equal(ev(m, PTSIM_EV_PTE_MODIFY), 8);
		assert_int_equal(ev(m, PTSIM_EV_PROT_COMMIT), 8);
		assert_int_equal(ev(m, PTSIM_EV_SET_PTES), NR);
		assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), NR);
		assert_int_equal(ev(m, PTSIM_EV_TLBI_VA), 8);
		assert_int_equal(ev(m, PTSIM_EV_FLUSH_TLB_RANGE), 1);
		assert_int_equal(ev(m, PTSIM_EV_MMU_NOTIFIER_RANGE), 1);
		for (unsigned int p = 0; p < NR; p++) {
			struct ptsim_page_info pi = page(mm, VA + p * SZ_4K);

			if (p < 8) {
				assert_int_equal(pi.state, PTSIM_PAGE_PRESENT);
				assert_true(pi.uffd_wp && !pi.write);
			} else {
				assert_marker(mm, VA + p * SZ_4K);
			}
		}
		assert_invariants(m);
		ptsim_machine_destroy(m);
	}
}

/*
 * Markers go in only where the context has WP_UNPOPULATED
 * (userfaultfd_wp_use_markers): without it the none entries stay none and
 * no table is allocated; with it change_prepare allocates the tables of an
 * untouched range (pmd_alloc, pte_alloc) and fills them with markers.
 */
static void test_markers_need_wp_unpopulated(void **state)
{
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = setup(m, 0);

	(void)state;
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, 0), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN, WP_ON), 0);
	assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), 0);
	assert_int_equal(page(mm, VA).state, PTSIM_PAGE_NONE);
	ptsim_machine_destroy(m);

	m = machine("v6.12");
	mm = setup(m, 0);
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, PTSIM_UFFD_FEATURE_WP_UNPOPULATED),
			 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN, WP_ON), 0);
	assert_int_equal(ev(m, PTSIM_EV_TABLE_ALLOC), 3);	/* the PUD, PMD and PTE tables */
	assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), NR);
	for (unsigned int p = 0; p < NR; p++)
		assert_marker(mm, VA + p * SZ_4K);
	/* the markers are not swap: smaps' Swap stays 0 */
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * A resolve (no MODE_WP) clears the bits and drops the markers; with
 * MM_CP_TRY_CHANGE_WRITABLE an exclusive anonymous page of the writable VMA
 * is writable again (can_change_pte_writable, one call per present entry
 * before v6.17).
 */
static void test_resolve(void **state)
{
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = setup(m, 8);

	(void)state;
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, ASYNC), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN, WP_ON), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN, PTSIM_UFFDIO_WRITEPROTECT_MODE_DONTWAKE),
			 0);
	assert_int_equal(ev(m, PTSIM_EV_CAN_CHANGE_WRITABLE), 8);
	assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), NR);	/* 8 commits, 8 markers cleared */
	for (unsigned int p = 0; p < NR; p++) {
		struct ptsim_page_info pi = page(mm, VA + p * SZ_4K);

		assert_false(pi.uffd_wp);
		if (p < 8)
			assert_true(pi.write);
		else
			assert_int_equal(pi.state, PTSIM_PAGE_NONE);
	}
	/* the ioctl's checks: WP with DONTWAKE, unknown mode bits, a bad range */
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN, WP_ON | PTSIM_UFFDIO_WRITEPROTECT_MODE_DONTWAKE),
			 -EINVAL);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN, 4), -EINVAL);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA + 1, LEN, WP_ON), -EINVAL);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, 0, WP_ON), -EINVAL);
	assert_int_equal(ptsim_uffd_writeprotect(mm, 4 * SZ_1G, LEN, WP_ON), -ENOENT);
	assert_int_equal(ptsim_uffd_set_mmap_changing(mm, true), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA + 1, 0, 7), -EAGAIN);	/* mmap_changing first */
	assert_int_equal(ptsim_uffd_set_mmap_changing(mm, false), 0);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * The async fault: a write to a uffd-wp page of a WP_ASYNC VMA clears the
 * bit (set_pte_at, no flush) and goes on as a write-protect fault, which
 * reuses the exclusive page (ptep_set_access_flags, its flush): one fault.
 * Without WP_ASYNC the kernel hands the fault to the reader
 * (handle_userfault): -EAGAIN, nothing changed.
 */
static void test_async_fault(void **state)
{
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = setup(m, 1);
	struct ptsim_stats before, after;

	(void)state;
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, ASYNC), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, SZ_4K, WP_ON), 0);
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), 1);
	assert_int_equal(ev(m, PTSIM_EV_SET_PTES), 1);	/* the bit cleared */
	assert_int_equal(ev(m, PTSIM_EV_PTE_CAS), 1);	/* wp_page_reuse's access flags */
	assert_int_equal(ev(m, PTSIM_EV_TLBI_VA), 1);
	assert_int_equal(ev(m, PTSIM_EV_FOLIO_ALLOC), 0);
	/* do_wp_page re-reads the entry before clearing the bit (ptep_get) */
	assert_int_equal(ev(m, PTSIM_EV_PTE_READ), 5);
	assert_false(page(mm, VA).uffd_wp);
	assert_true(page(mm, VA).write);
	assert_invariants(m);
	ptsim_machine_destroy(m);

	m = machine("v6.12");
	mm = setup(m, 1);
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, 0), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, SZ_4K, WP_ON), 0);
	assert_int_equal(ptsim_total_stats(m, &before), 0);
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), -EAGAIN);
	assert_int_equal(ptsim_total_stats(m, &after), 0);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_true(page(mm, VA).uffd_wp);
	/* a read needs no fault: the entry is present and readable, nothing changes */
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_READ), 0);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), 0);
	assert_int_equal(ev(m, PTSIM_EV_SET_PTES), 0);
	assert_int_equal(ev(m, PTSIM_EV_FOLIO_ALLOC), 0);
	assert_true(page(mm, VA).uffd_wp);
	assert_false(page(mm, VA).write);
	assert_int_equal(page(mm, VA).state, PTSIM_PAGE_PRESENT);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * A write to a marker (handle_pte_marker -> do_pte_missing): the new page is
 * mapped uffd-wp protected (vmf_orig_pte_uffd_wp), so the write faults a
 * second time and do_wp_page resolves it. A read maps the zero page
 * protected.
 */
static void test_marker_faults(void **state)
{
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = setup(m, 0);

	(void)state;
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, ASYNC), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN, WP_ON), 0);
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ev(m, PTSIM_EV_FOLIO_ALLOC), 1);
	assert_int_equal(ev(m, PTSIM_EV_PAGE_ZERO), 1);
	/* handle_pte_fault's orig_pte (the marker), vmf_pte_changed, set_ptes' own read */
	assert_int_equal(ev(m, PTSIM_EV_PTE_READ), 3);
	assert_int_equal(page(mm, VA).state, PTSIM_PAGE_PRESENT);
	assert_true(page(mm, VA).uffd_wp);
	assert_false(page(mm, VA).write);
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ev(m, PTSIM_EV_FOLIO_ALLOC), 0);
	assert_false(page(mm, VA).uffd_wp);
	assert_true(page(mm, VA).write);
	assert_int_equal(ptsim_fault(mm, VA + SZ_4K, PTSIM_ACCESS_READ), 0);
	assert_true(page(mm, VA + SZ_4K).zero_page);
	assert_true(page(mm, VA + SZ_4K).uffd_wp);
	/* a write to the protected zero page: resolved, then the copy (wp_page_copy) */
	assert_int_equal(ptsim_fault(mm, VA + SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ev(m, PTSIM_EV_FOLIO_ALLOC), 1);
	assert_false(page(mm, VA + SZ_4K).uffd_wp);
	assert_false(page(mm, VA + SZ_4K).zero_page);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * A PMD THP: UFFDIO_WRITEPROTECT marks the PMD (change_huge_pmd); a write
 * to it in a WP_ASYNC VMA splits it (wp_huge_pmd) and resolves only the
 * page written at the PTE level; the other 511 PTEs keep the bit.
 */
static void test_thp(void **state)
{
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M);

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 9, true), 0);
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, SZ_2M, WP, ASYNC), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, SZ_2M, WP_ON), 0);
	assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), 0);
	assert_int_equal(page(mm, VA).level, 2);
	assert_true(page(mm, VA).uffd_wp);
	assert_int_equal(ptsim_fault(mm, VA + 5 * SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ev(m, PTSIM_EV_HUGE_PMD_SPLIT), 1);
	assert_int_equal(page(mm, VA).level, 3);
	assert_true(page(mm, VA).uffd_wp);
	assert_false(page(mm, VA + 5 * SZ_4K).uffd_wp);
	assert_true(page(mm, VA + 5 * SZ_4K).write);
	assert_true(page(mm, VA + 511 * SZ_4K).uffd_wp);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * THP faults in a registered VMA (v6.12): __thp_vma_allowable_orders has no
 * userfaultfd check, so a WP-registered VMA still gets a PMD THP on a write
 * fault (__do_huge_pmd_anonymous_page diverts only userfaultfd_missing);
 * alloc_anon_folio falls back to order 0 under userfaultfd_armed, so the
 * mTHP orders are not used. A MISSING-registered VMA's PMD fault goes to
 * handle_userfault in the kernel; the model runs no reader and maps one
 * page there, as for its every fault.
 */
static void test_thp_fault_registered(void **state)
{
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M);

	(void)state;
	assert_int_equal(ptsim_set_thp_orders(m, (UINT64_C(1) << 9) | (UINT64_C(1) << 4)), 0);
	/* WP only: the PMD THP */
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, SZ_2M, WP, 0), 0);
	assert_int_equal(ptsim_fault(mm, VA + 3 * SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ev(m, PTSIM_EV_PMD_WRITE), 1);
	assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), 0);
	assert_int_equal(page(mm, VA).level, 2);
	assert_false(page(mm, VA).uffd_wp);
	assert_invariants(m);
	ptsim_machine_destroy(m);

	/* WP only, no PMD order allowed: the mTHP order 4 is not used either */
	m = machine("v6.12");
	mm = new_mm_with_vma(m, VA, SZ_2M);
	assert_int_equal(ptsim_set_thp_orders(m, UINT64_C(1) << 4), 0);
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, SZ_2M, WP, 0), 0);
	assert_int_equal(ptsim_fault(mm, VA + 3 * SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), 1);
	assert_int_equal(page(mm, VA + 3 * SZ_4K).level, 3);
	assert_int_equal(page(mm, VA + 2 * SZ_4K).state, PTSIM_PAGE_NONE);
	assert_invariants(m);
	ptsim_machine_destroy(m);

	/* MISSING (alone or with WP): one page */
	for (unsigned int mode = PTSIM_UFFDIO_REGISTER_MODE_MISSING; mode <= 3; mode += 2) {
		m = machine("v6.12");
		mm = new_mm_with_vma(m, VA, SZ_2M);
		assert_int_equal(ptsim_set_thp_orders(m, (UINT64_C(1) << 9) | (UINT64_C(1) << 4)), 0);
		assert_int_equal(ptsim_uffd_register_mode(mm, VA, SZ_2M, mode, 0), 0);
		assert_int_equal(ptsim_fault(mm, VA + 3 * SZ_4K, PTSIM_ACCESS_WRITE), 0);
		assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), 1);
		assert_int_equal(page(mm, VA + 3 * SZ_4K).level, 3);
		assert_int_equal(page(mm, VA + 2 * SZ_4K).state, PTSIM_PAGE_NONE);
		assert_invariants(m);
		ptsim_machine_destroy(m);
	}
}

/*
 * UFFDIO_COPY onto a uffd-wp marker (v6.12 mfill_atomic_install_pte checks
 * pte_none_mostly): the marker is overwritten by an unprotected page (no
 * COPY_MODE_WP). UFFDIO_ZEROPAGE (mfill_atomic_pte_zeropage) wants
 * pte_none: -EEXIST, the marker stays.
 */
static void test_mfill_over_marker(void **state)
{
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = setup(m, 2);
	uint64_t src = 2 * SZ_1G;

	(void)state;
	assert_int_equal(ptsim_mmap(mm, src, SZ_4K, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_populate(mm, src, SZ_4K, 0, true), 0);
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP | PTSIM_UFFDIO_REGISTER_MODE_MISSING,
						  ASYNC), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN, WP_ON), 0);
	assert_marker(mm, VA + 4 * SZ_4K);
	assert_int_equal(ptsim_uffd_copy(mm, VA + 4 * SZ_4K, src, SZ_4K, 0), SZ_4K);
	assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), 1);
	assert_int_equal(page(mm, VA + 4 * SZ_4K).state, PTSIM_PAGE_PRESENT);
	assert_false(page(mm, VA + 4 * SZ_4K).uffd_wp);
	assert_true(page(mm, VA + 4 * SZ_4K).write);
	assert_int_equal(ptsim_uffd_zeropage(mm, VA + 5 * SZ_4K, SZ_4K, 0), -EEXIST);
	assert_marker(mm, VA + 5 * SZ_4K);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * UFFDIO_MOVE from a uffd-wp marker: v6.12 move_pages_pte finds a
 * non_swap_entry that is not a migration entry and returns -EFAULT (not
 * move_swap_pte's -EBUSY). Nothing moves.
 */
static void test_move_from_marker(void **state)
{
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = setup(m, 2);

	(void)state;
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, ASYNC), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN / 2, WP_ON), 0);
	assert_marker(mm, VA + 6 * SZ_4K);
	assert_int_equal(ptsim_uffd_move(mm, VA + 12 * SZ_4K, VA + 6 * SZ_4K, SZ_4K, 0), -EFAULT);
	assert_marker(mm, VA + 6 * SZ_4K);
	assert_int_equal(page(mm, VA + 12 * SZ_4K).state, PTSIM_PAGE_NONE);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * Registering again with a subset of the modes a VMA has, in the same
 * context, keeps them: v6.12 userfaultfd_register_range skips a VMA whose
 * vm_flags already hold the new ones. A mode it lacks replaces them
 * (vm_flags & ~__VM_UFFD_FLAGS | the new mode's).
 */
static void test_reregister_subset(void **state)
{
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = setup(m, 0);

	(void)state;
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP | PTSIM_UFFDIO_REGISTER_MODE_MISSING,
						  0), 0);
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN / 2, PTSIM_UFFDIO_REGISTER_MODE_MISSING, 0),
			 0);
	assert_true(vma_uffd_wp(mm, VA));
	assert_int_equal(mm->nr_vmas, 1);	/* nothing changed: no split */
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, 0), 0);
	assert_true(vma_uffd_wp(mm, VA));
	assert_true(find_vma(mm, VA)->uffd_missing);
	/* WP only, then MISSING: the new mode replaces WP */
	ptsim_machine_destroy(m);
	m = machine("v6.12");
	mm = setup(m, 0);
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, 0), 0);
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, PTSIM_UFFDIO_REGISTER_MODE_MISSING, 0), 0);
	assert_false(vma_uffd_wp(mm, VA));
	assert_true(find_vma(mm, VA)->uffd_missing);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * v6.12 userfaultfd_register over a range with holes: it needs one VMA in
 * the range (-EINVAL without), checks every VMA there, then registers them
 * all. UFFD_FEATURE_PAGEFAULT_FLAG_WP (valid from v6.10, with
 * HAVE_ARCH_USERFAULTFD_WP) only changes the message format: accepted.
 */
static void test_register_holes(void **state)
{
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = setup(m, 0);

	(void)state;
	assert_int_equal(ptsim_mmap(mm, VA + 2 * LEN, LEN, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_mmap(mm, VA + 4 * LEN, LEN, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_SHARED | PTSIM_MAP_ANONYMOUS, NULL), 0);
	/* the shared VMA past the hole fails the check: nothing registered */
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, 5 * LEN, WP, 0), -EINVAL);
	assert_false(find_vma(mm, VA)->uffd);
	assert_false(find_vma(mm, VA + 2 * LEN)->uffd);
	/* only holes */
	assert_int_equal(ptsim_uffd_register_mode(mm, VA + LEN, LEN, WP, 0), -EINVAL);
	assert_int_equal(ptsim_uffd_register_mode(mm, VA + LEN / 2, 2 * LEN, WP,
						  PTSIM_UFFD_FEATURE_PAGEFAULT_FLAG_WP), 0);
	assert_true(vma_uffd_wp(mm, VA + LEN / 2));
	assert_false(vma_uffd_wp(mm, VA));
	assert_true(vma_uffd_wp(mm, VA + 2 * LEN));
	assert_false(vma_uffd_wp(mm, VA + 2 * LEN + LEN / 2));
	assert_int_equal(mm->nr_vmas, 5);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * Swap: try_to_unmap_one keeps the protection (PTE_SWP_UFFD_WP);
 * UFFDIO_WRITEPROTECT sets it on a swap entry with set_pte_at; the swap-in
 * of a write maps the page protected and goes on to do_wp_page in the same
 * fault, which resolves it (one fault). A marker is no swap slot: munmap
 * frees none for it.
 */
static void test_swap(void **state)
{
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = setup(m, 2);

	(void)state;
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, ASYNC), 0);
	assert_int_equal(ptsim_swapout(mm, VA + SZ_4K, SZ_4K), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, 2 * SZ_4K, WP_ON), 0);
	assert_int_equal(page(mm, VA + SZ_4K).state, PTSIM_PAGE_SWAP);
	assert_true(page(mm, VA + SZ_4K).uffd_wp);
	assert_int_equal(ptsim_swapout(mm, VA, SZ_4K), 0);
	assert_true(page(mm, VA).uffd_wp);
	assert_int_equal(page(mm, VA).swap_type, 0);
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), 1);
	assert_int_equal(ev(m, PTSIM_EV_MAJOR_FAULT), 1);
	assert_false(page(mm, VA).uffd_wp);
	assert_true(page(mm, VA).write);
	/* the markers of pages 2..15 go without a swap slot freed; page 1's slot is freed */
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN, WP_ON), 0);
	assert_int_equal(ptsim_munmap(mm, VA, LEN), 0);
	assert_int_equal(ev(m, PTSIM_EV_SWAP_LOOKUP), 1);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * fork: the child is not registered (no UFFD_FEATURE_EVENT_FORK:
 * userfaultfd_reset_ctx), so copy_present_pte clears the bit in the child's
 * entry, copy_nonpresent_pte clears PTE_SWP_UFFD_WP and copies no marker;
 * the parent keeps all three.
 */
static void test_fork(void **state)
{
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = setup(m, 2), *child;

	(void)state;
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, ASYNC), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN, WP_ON), 0);
	assert_int_equal(ptsim_swapout(mm, VA + SZ_4K, SZ_4K), 0);
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_false(vma_uffd_wp(child, VA));
	assert_false(find_vma(child, VA)->uffd);
	assert_false(page(child, VA).uffd_wp);
	assert_int_equal(page(child, VA + SZ_4K).state, PTSIM_PAGE_SWAP);
	assert_false(page(child, VA + SZ_4K).uffd_wp);
	assert_int_equal(page(child, VA + 2 * SZ_4K).state, PTSIM_PAGE_NONE);
	assert_true(page(mm, VA).uffd_wp);
	assert_true(page(mm, VA + SZ_4K).uffd_wp);
	assert_marker(mm, VA + 2 * SZ_4K);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * mremap: the model's contexts have no UFFD_FEATURE_EVENT_REMAP, so
 * move_ptes drops the uffd-wp bits and markers (vma_has_uffd_without_event_remap)
 * and the new VMA is not registered (mremap_userfaultfd_prep).
 */
static void test_mremap(void **state)
{
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = setup(m, 1);
	uint64_t to = 2 * SZ_1G;

	(void)state;
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, ASYNC), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN, WP_ON), 0);
	assert_int_equal(ptsim_mremap(mm, VA, LEN, LEN, PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED, to,
				      NULL), 0);
	assert_false(vma_uffd_wp(mm, to));
	assert_int_equal(page(mm, to).state, PTSIM_PAGE_PRESENT);
	assert_false(page(mm, to).uffd_wp);
	assert_int_equal(page(mm, to + SZ_4K).state, PTSIM_PAGE_NONE);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * mprotect keeps the protection: pte_modify leaves PTE_UFFD_WP, and
 * can_change_pte_writable refuses a uffd-wp entry, also after a trip
 * through PROT_NONE (the selftest's mprotect_tests).
 */
static void test_mprotect(void **state)
{
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = setup(m, 1);

	(void)state;
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, ASYNC), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN, WP_ON), 0);
	assert_int_equal(ptsim_mprotect(mm, VA, SZ_4K, PTSIM_PROT_NONE), 0);
	assert_true(page(mm, VA).uffd_wp);
	assert_int_equal(ptsim_mprotect(mm, VA, SZ_4K, PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
	assert_true(page(mm, VA).uffd_wp);
	assert_false(page(mm, VA).write);
	assert_marker(mm, VA + SZ_4K);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/* ---- PAGEMAP_SCAN ---- */

static int64_t scan(struct ptsim_mm *mm, uint64_t start, uint64_t len, struct ptsim_page_region *vec,
		    uint64_t vec_len, uint64_t flags, uint64_t max_pages, uint64_t mask, uint64_t anyof,
		    uint64_t inverted, uint64_t ret_mask, uint64_t *walk_end)
{
	struct ptsim_pm_scan_arg a = {
		.start = start, .end = start + len, .vec = vec, .vec_len = vec_len, .flags = flags,
		.max_pages = max_pages, .category_mask = mask, .category_anyof_mask = anyof,
		.category_inverted = inverted, .return_mask = ret_mask,
	};
	int64_t n = ptsim_pagemap_scan(mm, &a);

	if (walk_end)
		*walk_end = a.walk_end;
	return n;
}

#define W PTSIM_PAGE_IS_WRITTEN
#define SCAN_WP (PTSIM_PM_SCAN_WP_MATCHING | PTSIM_PM_SCAN_CHECK_WPASYNC)

/*
 * pagemap_scan_get_args' checks and their order; -ENOTTY before v6.7; on
 * v6.9 (no uffd-wp) no VMA is WPALLOWED: CHECK_WPASYNC is -EPERM, a plain
 * scan works (a none entry is WRITTEN, 6.12.117's pagemap_page_category).
 */
static void test_scan_args(void **state)
{
	struct ptsim_page_region vec[NR];
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = setup(m, 4);
	uint64_t walk_end = 0;

	(void)state;
	assert_int_equal(scan(mm, VA, LEN, vec, NR, 4, 0, W, 0, 0, W, NULL), -EINVAL);
	assert_int_equal(scan(mm, VA, LEN, vec, NR, 0, 0, 0x100, 0, 0, W, NULL), -EINVAL);
	assert_int_equal(scan(mm, VA, LEN, vec, NR, 0, 0, W, 0, 0, 0x1000, NULL), -EINVAL);
	assert_int_equal(scan(mm, VA + 1, LEN, vec, NR, 0, 0, W, 0, 0, W, NULL), -EINVAL);
	assert_int_equal(scan(mm, VA, LEN, NULL, NR, 0, 0, W, 0, 0, W, NULL), -EINVAL);
	assert_int_equal(scan(mm, VA, (uint64_t)-VA, vec, NR, 0, 0, W, 0, 0, W, NULL), -EFAULT);
	assert_int_equal(ptsim_pagemap_scan(mm, NULL), -EINVAL);
	/* a zero-size range is valid; no output buffer is valid */
	assert_int_equal(scan(mm, VA, 0, vec, NR, 0, 0, W, 0, 0, W, &walk_end), 0);
	assert_int_equal(walk_end, VA);
	assert_int_equal(scan(mm, VA, LEN, NULL, 0, 0, 0, W, 0, 0, W, NULL), 0);
	/* not registered: WP_MATCHING skips the VMA, CHECK_WPASYNC refuses it */
	assert_int_equal(scan(mm, VA, LEN, vec, NR, PTSIM_PM_SCAN_WP_MATCHING, 0, W, 0, 0, W, NULL), 0);
	assert_int_equal(scan(mm, VA, LEN, vec, NR, SCAN_WP, 0, W, 0, 0, W, NULL), -EPERM);
	/* every page is WRITTEN (present without the bit, or none): one region */
	assert_int_equal(scan(mm, VA, LEN, vec, NR, 0, 0, W, 0, 0, W, NULL), 1);
	assert_int_equal(vec[0].start, VA);
	assert_int_equal(vec[0].end, VA + LEN);
	assert_int_equal(vec[0].categories, W);
	ptsim_machine_destroy(m);

	m = machine("v6.6");
	mm = setup(m, 4);
	assert_int_equal(scan(mm, VA, LEN, vec, NR, 0, 0, W, 0, 0, W, NULL), -ENOTTY);
	ptsim_machine_destroy(m);

	m = machine("v6.9");
	mm = setup(m, 4);
	assert_int_equal(scan(mm, VA, LEN, vec, NR, SCAN_WP, 0, W, 0, 0, W, NULL), -EPERM);
	assert_int_equal(scan(mm, VA, LEN, vec, NR, 0, 0, 0, PTSIM_PAGE_IS_PRESENT, 0,
			      PTSIM_PAGE_IS_PRESENT | PTSIM_PAGE_IS_WPALLOWED, NULL), 1);
	assert_int_equal(vec[0].end, VA + 4 * SZ_4K);
	assert_int_equal(vec[0].categories, PTSIM_PAGE_IS_PRESENT);
	ptsim_machine_destroy(m);
}

/*
 * The scan's counts (v6.12): the system call, mmap_read_lock, per entry a
 * loop turn and a ptep_get under one table lock, one cond_resched; with
 * PM_SCAN_WP_MATCHING the written pages are protected through
 * ptep_modify_prot_start/commit and one flush_tlb_range from the first one
 * protected to where the loop ended (the kernel's flush_tlb_range(vma,
 * start, addr)).
 */
static void test_scan_counts(void **state)
{
	struct ptsim_page_region vec[NR];
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = setup(m, 8);

	(void)state;
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, ASYNC), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN, WP_ON), 0);
	assert_int_equal(ptsim_fault(mm, VA + 2 * SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(scan(mm, VA, LEN, vec, NR, 0, 0, W, 0, 0, W, NULL), 1);
	assert_int_equal(vec[0].start, VA + 2 * SZ_4K);
	assert_int_equal(vec[0].end, VA + 3 * SZ_4K);
	assert_int_equal(ev(m, PTSIM_EV_SYSCALL), 1);
	assert_int_equal(ev(m, PTSIM_EV_RWSEM), 1);
	assert_int_equal(ev(m, PTSIM_EV_PTE_LOOP), NR);
	assert_int_equal(ev(m, PTSIM_EV_PTEP_GET), NR);
	assert_int_equal(ev(m, PTSIM_EV_PTL_LOCK), 1);
	assert_int_equal(ev(m, PTSIM_EV_COND_RESCHED), 1);
	assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), 0);
	assert_int_equal(scan(mm, VA, LEN, vec, NR, SCAN_WP, 0, W, 0, 0, W, NULL), 1);
	assert_int_equal(ev(m, PTSIM_EV_PROT_COMMIT), 1);
	assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), 1);
	assert_int_equal(ev(m, PTSIM_EV_FLUSH_TLB_RANGE), 1);
	assert_int_equal(ev(m, PTSIM_EV_TLBI_VA), NR - 2);	/* pages 2..15 */
	assert_int_equal(ev(m, PTSIM_EV_MMU_NOTIFIER_RANGE), 1);
	assert_true(page(mm, VA + 2 * SZ_4K).uffd_wp);
	assert_int_equal(scan(mm, VA, LEN, vec, NR, 0, 0, W, 0, 0, W, NULL), 0);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * max_pages, the output's length and walk_end (pagemap_scan_output,
 * pagemap_scan_push_range): written pages every other page give one region
 * each; the walk stops at the next match the limit or the buffer had no
 * room for (the selftest's "Walk_end sparse" cases).
 */
static void test_scan_limits(void **state)
{
	struct ptsim_page_region vec[NR];
	struct ptsim_machine *m = machine("v6.12");
	struct ptsim_mm *mm = setup(m, NR);
	uint64_t walk_end;

	(void)state;
	assert_int_equal(ptsim_uffd_register_mode(mm, VA, LEN, WP, ASYNC), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, VA, LEN, WP_ON), 0);
	for (unsigned int p = 0; p < NR; p += 2)
		assert_int_equal(ptsim_fault(mm, VA + p * SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(scan(mm, VA, LEN, vec, NR, 0, 0, W, 0, 0, W, &walk_end), NR / 2);
	assert_int_equal(walk_end, VA + LEN);
	assert_int_equal(scan(mm, VA, LEN, vec, 1, 0, 0, W, 0, 0, W, &walk_end), 1);
	assert_int_equal(walk_end, VA + 2 * SZ_4K);
	assert_int_equal(scan(mm, VA, LEN, vec, NR, 0, 3, W, 0, 0, W, &walk_end), 3);
	assert_int_equal(walk_end, VA + 6 * SZ_4K);
	/* write-protect 2 of them, then 6 are left */
	assert_int_equal(scan(mm, VA, LEN, vec, NR, SCAN_WP, 2, W, 0, 0, W, NULL), 2);
	assert_int_equal(scan(mm, VA, LEN, vec, NR, 0, 0, W, 0, 0, W, NULL), NR / 2 - 2);
	assert_int_equal(vec[0].start, VA + 4 * SZ_4K);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register_per_release),
		cmocka_unit_test(test_vma_info_uffd_wp),
		cmocka_unit_test(test_writeprotect_counts),
		cmocka_unit_test(test_markers_need_wp_unpopulated),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_async_fault),
		cmocka_unit_test(test_marker_faults),
		cmocka_unit_test(test_thp),
		cmocka_unit_test(test_thp_fault_registered),
		cmocka_unit_test(test_mfill_over_marker),
		cmocka_unit_test(test_move_from_marker),
		cmocka_unit_test(test_reregister_subset),
		cmocka_unit_test(test_register_holes),
		cmocka_unit_test(test_swap),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_mremap),
		cmocka_unit_test(test_mprotect),
		cmocka_unit_test(test_scan_args),
		cmocka_unit_test(test_scan_counts),
		cmocka_unit_test(test_scan_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
