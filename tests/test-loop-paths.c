// SPDX-License-Identifier: MIT
/*
 * The loop paths the model counts (ptsim_last_loop_stats): one per turn of
 * the kernel's loop, on the path the loop prices name, where the modelled
 * kernel's loop has v6.12's shape (or is priced as it, doc/loop-prices.md).
 */
#include "helpers.h"

#include <errno.h>
#include <string.h>

#define VA UINT64_C(0x10000000)
#define PAGES 64
#define GIB (UINT64_C(1) << 30)

static uint64_t loops_of(const struct ptsim_loop_stats *s)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < PTSIM_LOOP_CAPACITY; i++)
		n += s->iter[i];
	return n;
}

/* vm_normal_page's body, with contpte or without: once per normal page a walk looks up */
static uint64_t normal_pages_of(const struct ptsim_loop_stats *s)
{
	return s->iter[PTSIM_LOOP_VM_NORMAL_PAGE_NORMAL] +
	       s->iter[PTSIM_LOOP_VM_NORMAL_PAGE_NORMAL_NOCONTPTE];
}

/* v6.12: one present path per entry mprotect changes, writable when it asks to be */
static void test_mprotect_paths(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);
	struct ptsim_loop_stats l;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, PAGES * 4096, 0, true), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	/* the faults' folios into the lru_add batch: the adds that do not fill it (31 does) */
	assert_int_equal(l.iter[PTSIM_LOOP_FOLIO_BATCH_ADD_AND_MOVE_ADD], PAGES - PAGES / 31);
	assert_int_equal(loops_of(&l), PAGES - PAGES / 31);
	assert_int_equal(ptsim_mprotect(mm, VA, PAGES * 4096, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT], PAGES);
	/* and each entry's ptep_modify_prot_start/commit bodies (read-only: no fold attempt) */
	assert_int_equal(l.iter[PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY], PAGES);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLD_ATTEMPT], 0);
	assert_int_equal(l.iter[PTSIM_LOOP_PTEP_MODIFY_PROT_COMMIT_ENTRY], PAGES);
	assert_int_equal(loops_of(&l), 3 * PAGES);
	/* back to writable: MM_CP_TRY_CHANGE_WRITABLE asks can_change_pte_writable of each */
	assert_int_equal(ptsim_mprotect(mm, VA, PAGES * 4096, PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_WRITABLE], PAGES);
	assert_int_equal(l.iter[PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY], PAGES);
	assert_int_equal(l.iter[PTSIM_LOOP_PTEP_MODIFY_PROT_COMMIT_ENTRY],
			 PAGES - last_stats(m).ev[PTSIM_EV_FOLD_ATTEMPT]);
	/* can_change_pte_writable's body tests each anonymous page, looking it up */
	assert_int_equal(l.iter[PTSIM_LOOP_CAN_CHANGE_PTE_WRITABLE_ANON_EXCLUSIVE], PAGES);
	assert_int_equal(l.iter[PTSIM_LOOP_VM_NORMAL_PAGE_NORMAL], PAGES);
	assert_int_equal(loops_of(&l), 5 * PAGES - last_stats(m).ev[PTSIM_EV_FOLD_ATTEMPT]);
	assert_int_equal(ptsim_total_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT], PAGES);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_WRITABLE], PAGES);
	ptsim_machine_destroy(m);
}

/* A kernel without contpte (v6.8) turns the loops compiled without it */
static void test_paths_without_contpte(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.8");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);
	struct ptsim_loop_stats l;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, PAGES * 4096, 0, true), 0);
	assert_int_equal(ptsim_mprotect(mm, VA, PAGES * 4096, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_NOCONTPTE], PAGES);
	assert_int_equal(l.iter[PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY_NOCONTPTE], PAGES);
	assert_int_equal(l.iter[PTSIM_LOOP_PTEP_MODIFY_PROT_COMMIT_ENTRY_NOCONTPTE], PAGES);
	assert_int_equal(loops_of(&l), 3 * PAGES);
	/* can_change_pte_writable's code has no contpte in it: the same path */
	assert_int_equal(ptsim_mprotect(mm, VA, PAGES * 4096, PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_CAN_CHANGE_PTE_WRITABLE_ANON_EXCLUSIVE], PAGES);
	ptsim_machine_destroy(m);
}

/*
 * can_change_pte_writable's priced path tests an anonymous page for
 * PageAnonExclusive: a private file mapping's page-cache pages fail PageAnon
 * first, a shorter path, uncounted
 */
static void test_change_writable_file(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm;
	struct ptsim_loop_stats l;
	unsigned int f, fd;

	(void)state;
	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_file_create(m, PAGES * 4096, 0, &f), 0);
	assert_int_equal(ptsim_file_open(m, f, &fd), 0);
	assert_int_equal(ptsim_mmap_file(mm, VA, PAGES * 4096, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
					 fd, 0, NULL), 0);
	for (uint64_t i = 0; i < PAGES; i++)
		assert_int_equal(ptsim_fault(mm, VA + i * 4096, PTSIM_ACCESS_READ), 0);
	assert_int_equal(ptsim_mprotect(mm, VA, PAGES * 4096, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_mprotect(mm, VA, PAGES * 4096, PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_CAN_CHANGE_WRITABLE], PAGES);
	assert_int_equal(l.iter[PTSIM_LOOP_CAN_CHANGE_PTE_WRITABLE_ANON_EXCLUSIVE], 0);
	ptsim_machine_destroy(m);
}

/*
 * ptep_modify_prot_start/commit's bodies are priced for entries outside a
 * contpte block: a block's first entry takes the unfold instead, and an
 * entry that ends a block and calls __contpte_try_fold is not the priced
 * commit; an executable entry's commit syncs the caches, also not priced
 */
static void test_mprotect_callee_paths(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);
	struct ptsim_loop_stats l;

	(void)state;
	/* 16 order-0 folios, then three 64K folios mapped as contpte blocks */
	assert_int_equal(ptsim_populate(mm, VA, 16 * 4096, 0, true), 0);
	assert_int_equal(ptsim_populate(mm, VA + 16 * 4096, 48 * 4096, 4, true), 0);
	assert_int_equal(ptsim_mprotect(mm, VA, PAGES * 4096, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_CONTPTE_UNFOLD], 3);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT], PAGES);
	assert_int_equal(l.iter[PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY], PAGES - 3);
	assert_true(last_stats(m).ev[PTSIM_EV_FOLD_ATTEMPT] > 0);
	assert_int_equal(l.iter[PTSIM_LOOP_PTEP_MODIFY_PROT_COMMIT_ENTRY],
			 PAGES - last_stats(m).ev[PTSIM_EV_FOLD_ATTEMPT]);
	/* executable: no commit takes the priced path, every start does */
	assert_int_equal(ptsim_mprotect(mm, VA, 16 * 4096, PTSIM_PROT_READ | PTSIM_PROT_EXEC), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY], 16);
	assert_int_equal(l.iter[PTSIM_LOOP_PTEP_MODIFY_PROT_COMMIT_ENTRY], 0);
	/* the same block on a kernel without contpte: every entry is plain */
	ptsim_machine_destroy(m);
	m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_ARM64_CONTPTE, false), 0);
	mm = new_mm_with_vma(m, VA, PAGES * 4096);
	assert_int_equal(ptsim_populate(mm, VA + 16 * 4096, 48 * 4096, 4, true), 0);
	assert_int_equal(ptsim_mprotect(mm, VA, PAGES * 4096, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY_NOCONTPTE], 48);
	assert_int_equal(l.iter[PTSIM_LOOP_PTEP_MODIFY_PROT_COMMIT_ENTRY_NOCONTPTE], 48);
	assert_int_equal(l.iter[PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY], 0);
	ptsim_machine_destroy(m);
}

/*
 * v6.17's batched change_pte_range (priced from the later kernel's object):
 * one turn per order-0 entry or large folio's batch, mprotect_folio_pte_batch's
 * body per order-0 folio, folio_pte_batch's matching steps per further entry;
 * made writable, page_anon_exclusive_sub_batch's step per further page
 */
static void test_batched_mprotect_paths(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.17");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);
	struct ptsim_loop_stats l;

	(void)state;
	/* without contpte: no block hint, one matching step per further entry */
	assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_ARM64_CONTPTE, false), 0);
	assert_int_equal(ptsim_populate(mm, VA, 16 * 4096, 0, true), 0);
	assert_int_equal(ptsim_populate(mm, VA + 16 * 4096, 48 * 4096, 4, true), 0);
	assert_int_equal(ptsim_mprotect(mm, VA, PAGES * 4096, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_NOCONTPTE], 16);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE_NOCONTPTE], 3);
	assert_int_equal(l.iter[PTSIM_LOOP_MPROTECT_FOLIO_PTE_BATCH_ORDER0_NOCONTPTE], 16);
	assert_int_equal(l.iter[PTSIM_LOOP_FOLIO_PTE_BATCH_MATCH_NOCONTPTE], 3 * 15);
	/* a batch of one entry starts and commits as v6.12's bodies; a batch of 16 is events */
	assert_int_equal(l.iter[PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY_NOCONTPTE], 16);
	assert_int_equal(l.iter[PTSIM_LOOP_PTEP_MODIFY_PROT_COMMIT_ENTRY_NOCONTPTE], 16);
	/* one vm_normal_page a batch */
	assert_int_equal(l.iter[PTSIM_LOOP_VM_NORMAL_PAGE_NORMAL_NOCONTPTE], 16 + 3);
	assert_int_equal(loops_of(&l), 16 + 3 + 16 + 45 + 2 * 16 + 16 + 3);
	/* no v6.12 turn */
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_NOCONTPTE], 0);
	/* back to writable: each batch's exclusive pages are one sub-batch */
	assert_int_equal(ptsim_mprotect(mm, VA, PAGES * 4096, PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_WRITABLE_NOCONTPTE], 16);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE_WRITABLE_NOCONTPTE],
			 3);
	assert_int_equal(l.iter[PTSIM_LOOP_PAGE_ANON_EXCLUSIVE_SUB_BATCH_MATCH_NOCONTPTE], 3 * 15);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_NOCONTPTE], 0);
	ptsim_machine_destroy(m);
	/*
	 * with contpte: the contpte paths; a shared anonymous mapping's entries come
	 * out of pte_modify writable (no MM_CP_TRY_CHANGE_WRITABLE): the plain turn
	 */
	m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.17");
	mm = new_mm_with_vma(m, VA, PAGES * 4096);
	assert_int_equal(ptsim_populate(mm, VA, 16 * 4096, 0, true), 0);
	assert_int_equal(ptsim_mprotect(mm, VA, 16 * 4096, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT], 16);
	assert_int_equal(l.iter[PTSIM_LOOP_MPROTECT_FOLIO_PTE_BATCH_ORDER0], 16);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_NOCONTPTE], 0);
	assert_int_equal(ptsim_mprotect(mm, VA, 16 * 4096, PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_WRITABLE], 16);
	assert_int_equal(ptsim_mmap(mm, VA + GIB, 16 * 4096, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_SHARED | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_populate(mm, VA + GIB, 16 * 4096, 0, true), 0);
	assert_int_equal(ptsim_mprotect(mm, VA + GIB, 16 * 4096, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_mprotect(mm, VA + GIB, 16 * 4096,
					PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_WRITABLE], 0);
	assert_int_equal(l.iter[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT], 16);
	assert_int_equal(l.iter[PTSIM_LOOP_MPROTECT_FOLIO_PTE_BATCH_ORDER0], 16);
	ptsim_machine_destroy(m);
}

/* fork (v6.9's loop): none entries, order-0 folios, a large folio's batch */
static void test_fork_paths(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096), *child;
	struct ptsim_loop_stats l;

	(void)state;
	assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_ARM64_CONTPTE, false), 0);
	assert_int_equal(ptsim_populate(mm, VA, 16 * 4096, 0, true), 0);
	assert_int_equal(ptsim_populate(mm, VA + 16 * 4096, 32 * 4096, 4, true), 0);
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON_NOCONTPTE], 16);
	assert_int_equal(l.iter[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON_BATCH_NOCONTPTE], 2);
	assert_int_equal(l.iter[PTSIM_LOOP_FOLIO_PTE_BATCH_MATCH_NOCONTPTE], 2 * 15);
	assert_int_equal(l.iter[PTSIM_LOOP_COPY_PTE_RANGE_NONE_NOCONTPTE], 16);
	assert_int_equal(l.iter[PTSIM_LOOP_VM_NORMAL_PAGE_NORMAL_NOCONTPTE], 16 + 2);
	assert_int_equal(loops_of(&l), 16 + 2 + 30 + 16 + 16 + 2);
	ptsim_machine_destroy(m);
}

/* mremap's move_ptes (v6.12) and mlock_pte_range of order-0 folios */
static void test_mremap_and_mlock_paths(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);
	struct ptsim_loop_stats l;
	uint64_t to = VA + (UINT64_C(1) << 30) + 8 * 4096, out;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, 48 * 4096, 0, true), 0);
	assert_int_equal(ptsim_mremap(mm, VA, PAGES * 4096, PAGES * 4096,
				      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED, to, &out), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_MOVE_PTES_PRESENT], 48);
	assert_int_equal(l.iter[PTSIM_LOOP_MOVE_PTES_NONE], 16);
	/* mlock_pte_range walks the 48 present; __mm_populate faults the other 16 in after it */
	assert_int_equal(ptsim_mlock(mm, to, PAGES * 4096), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_MLOCK_PTE_RANGE_MLOCK], 48);
	assert_int_equal(ptsim_munlock(mm, to, PAGES * 4096), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_MLOCK_PTE_RANGE_MUNLOCK], PAGES);
	ptsim_machine_destroy(m);
}

/* contpte_ptep_get: every entry of the block before v6.17's early exit, then the entries it reads */
static void test_contpte_gather_paths(void **state)
{
	uint64_t gathered[2];

	(void)state;
	for (unsigned int i = 0; i < 2; i++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      "v6.16");
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);
		struct ptsim_loop_stats l;

		assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_CONTPTE_GET_EARLY_EXIT, i == 1), 0);
		assert_int_equal(ptsim_populate(mm, VA, 64 * 4096, 4, true), 0);
		assert_int_equal(ptsim_mlock(mm, VA, 64 * 4096), 0);
		assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
		gathered[i] = l.iter[PTSIM_LOOP_CONTPTE_PTEP_GET_CLEAN] +
			      l.iter[PTSIM_LOOP_CONTPTE_PTEP_GET_DIRTY];
		/* written memory: every entry of a whole gather is dirty */
		if (i == 0) {
			assert_int_equal(gathered[i] % 16, 0);
			assert_int_equal(l.iter[PTSIM_LOOP_CONTPTE_PTEP_GET_CLEAN], 0);
		}
		ptsim_machine_destroy(m);
	}
	/* the early exit reads fewer entries (its turns priced as v6.12's clean ones) */
	assert_true(gathered[1] > 0 && gathered[1] < gathered[0]);
}

/* zap_pte_range: none entries one turn each, order-0 and large anonymous folios */
static void test_zap_paths(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);
	struct ptsim_loop_stats l;

	(void)state;
	/* the first half order-0, then two 16-page folios; the last 16 pages none */
	assert_int_equal(ptsim_populate(mm, VA, 16 * 4096, 0, true), 0);
	assert_int_equal(ptsim_populate(mm, VA + 16 * 4096, 32 * 4096, 4, true), 0);
	assert_int_equal(ptsim_munmap(mm, VA, PAGES * 4096), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &l), 0);
	assert_int_equal(l.iter[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON], 16);
	assert_int_equal(l.iter[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON_BATCH], 2);
	assert_int_equal(l.iter[PTSIM_LOOP_ZAP_PTE_RANGE_NONE], 16);
	assert_int_equal(l.iter[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_FILE], 0);
	ptsim_machine_destroy(m);
}

/* a failed operation adds nothing to the totals; bad arguments are refused */
/* UFFDIO_MOVE of n pages from VA to VA + 1 GiB on a fresh machine of preset: its turns. */
static void uffd_move_turns(const char *preset, bool batching, bool contpte, unsigned int mode,
			    uint64_t populated, struct ptsim_loop_stats *l)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_ANDROID_X1, preset);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);
	const uint64_t dst = VA + (UINT64_C(1) << 30);

	assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_UFFD_MOVE_BATCHING, batching), 0);
	assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_ARM64_CONTPTE, contpte), 0);
	assert_int_equal(ptsim_mmap(mm, dst, PAGES * 4096, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_populate(mm, VA, populated * 4096, 0, true), 0);
	assert_int_equal(ptsim_uffd_register(mm, dst, PAGES * 4096), 0);
	assert_int_equal(ptsim_uffd_move(mm, dst, VA, PAGES * 4096, mode), PAGES * 4096);
	assert_int_equal(ptsim_last_loop_stats(m, l), 0);
	ptsim_machine_destroy(m);
}

/*
 * v6.12's UFFDIO_MOVE: a turn of move_pages and one body of move_pages_pte
 * per page moved; a source hole takes neither priced path; the batched move
 * and a kernel without contpte have no price
 */
static void test_uffd_move_paths(void **state)
{
	struct ptsim_loop_stats l;

	(void)state;
	uffd_move_turns("v6.12", false, true, 0, PAGES, &l);
	assert_int_equal(l.iter[PTSIM_LOOP_MOVE_PAGES_PTE], PAGES);
	assert_int_equal(l.iter[PTSIM_LOOP_MOVE_PAGES_PTE_PRESENT], PAGES);
	assert_int_equal(normal_pages_of(&l), PAGES);	/* vm_normal_folio */
	assert_int_equal(loops_of(&l), 3 * PAGES);
	/* the second half of the source is a hole: moved as nothing */
	uffd_move_turns("v6.12", false, true, PTSIM_UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES, PAGES / 2, &l);
	assert_int_equal(l.iter[PTSIM_LOOP_MOVE_PAGES_PTE_PRESENT], PAGES / 2);
	assert_int_equal(l.iter[PTSIM_LOOP_MOVE_PAGES_PTE], PAGES);
	uffd_move_turns("v6.12", true, true, 0, PAGES, &l);
	assert_int_equal(loops_of(&l) - normal_pages_of(&l), 0);
	uffd_move_turns("v6.12", false, false, 0, PAGES, &l);
	assert_int_equal(loops_of(&l) - normal_pages_of(&l), 0);
}

/* madvise(advice) of PAGES pages of folios of order on a fresh machine of preset: its turns. */
static void madvise_turns(const char *preset, unsigned int order, int advice,
			  struct ptsim_loop_stats *l)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_ANDROID_X1, preset);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);

	assert_int_equal(ptsim_populate(mm, VA, PAGES * 4096, order, true), 0);
	assert_int_equal(ptsim_madvise(mm, VA, PAGES * 4096, advice), 0);
	assert_int_equal(ptsim_last_loop_stats(m, l), 0);
	ptsim_machine_destroy(m);
}

/*
 * madvise's walks over young and dirty order-0 folios: one turn each on
 * v6.12; over 64K folios, contpte_clear_young_dirty_ptes's turn per entry
 * instead; v6.9's MADV_FREE (split, no batching) and a kernel without
 * contpte have no priced turn
 */
static void test_madvise_paths(void **state)
{
	struct ptsim_loop_stats l;

	(void)state;
	madvise_turns("v6.12", 0, PTSIM_MADV_COLD, &l);
	assert_int_equal(l.iter[PTSIM_LOOP_MADVISE_COLD_YOUNG], PAGES);
	assert_int_equal(normal_pages_of(&l), PAGES);	/* vm_normal_folio */
	assert_int_equal(loops_of(&l), 2 * PAGES);
	madvise_turns("v6.12", 0, PTSIM_MADV_FREE, &l);
	assert_int_equal(l.iter[PTSIM_LOOP_MADVISE_FREE_YOUNG_DIRTY], PAGES);
	/*
	 * and the lru_lazyfree batch: every folio marked and added, the batch
	 * moved when the 31st and the 62nd fill it (their adds are the move's),
	 * the move's turns after each batch's first, each folio's lru_lazyfree
	 */
	assert_int_equal(l.iter[PTSIM_LOOP_FOLIO_MARK_LAZYFREE_ADD], PAGES);
	assert_int_equal(l.iter[PTSIM_LOOP_FOLIO_BATCH_ADD_AND_MOVE_ADD], PAGES - 2);
	assert_int_equal(l.iter[PTSIM_LOOP_FOLIO_BATCH_MOVE_LRU_SAME_LRUVEC], 2 * 30);
	assert_int_equal(l.iter[PTSIM_LOOP_LRU_LAZYFREE_MOVE], 2 * 31);
	assert_int_equal(loops_of(&l), 2 * PAGES + PAGES + PAGES - 2 + 2 * 30 + 2 * 31);
	madvise_turns("v6.12", 0, PTSIM_MADV_PAGEOUT, &l);
	assert_int_equal(l.iter[PTSIM_LOOP_MADVISE_PAGEOUT], PAGES);
	madvise_turns("v6.12", 4, PTSIM_MADV_FREE, &l);
	assert_int_equal(l.iter[PTSIM_LOOP_CLEAR_YOUNG_DIRTY_PTES_YOUNG_AND_DIRTY], PAGES);
	assert_int_equal(l.iter[PTSIM_LOOP_MADVISE_FREE_YOUNG_DIRTY], 0);
	madvise_turns("v6.12", 4, PTSIM_MADV_COLD, &l);
	assert_int_equal(l.iter[PTSIM_LOOP_CLEAR_YOUNG_DIRTY_PTES_YOUNG], PAGES);
	assert_int_equal(l.iter[PTSIM_LOOP_MADVISE_COLD_YOUNG], 0);
	madvise_turns("v6.9", 0, PTSIM_MADV_FREE, &l);
	assert_int_equal(l.iter[PTSIM_LOOP_MADVISE_FREE_YOUNG_DIRTY], 0);
	madvise_turns("v6.8", 0, PTSIM_MADV_COLD, &l);
	assert_int_equal(l.iter[PTSIM_LOOP_MADVISE_COLD_YOUNG], 0);
}

/* A read fault at page 128 of a cached 1 MiB file of folios up to max_order: its turns. */
static void fault_around_turns(unsigned int max_order, struct ptsim_loop_stats *l)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "v6.12");
	struct ptsim_mm *mm = NULL;

	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	cached_file_fault_around(m, mm, max_order);
	assert_int_equal(ptsim_last_loop_stats(m, l), 0);
	ptsim_machine_destroy(m);
}

/*
 * The fault-around maps each empty entry of a large folio through
 * filemap_map_folio_range's loop (the 16 pages of the window); order-0
 * folios take filemap_map_order0_folio, no loop
 */
static void test_fault_around_paths(void **state)
{
	struct ptsim_loop_stats l;

	(void)state;
	fault_around_turns(4, &l);
	assert_int_equal(l.iter[PTSIM_LOOP_FILEMAP_MAP_FOLIO_RANGE_BATCH], 16);
	assert_int_equal(loops_of(&l), 16);
	fault_around_turns(0, &l);
	assert_int_equal(loops_of(&l), 0);
}

/* The turns of splitting a fresh 64K folio to new_order on preset (contpte off: !contpte). */
static void split_turns(const char *preset, bool contpte, unsigned int new_order,
			struct ptsim_loop_stats *l)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, preset);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 16 * 4096);

	assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_ARM64_CONTPTE, contpte), 0);
	assert_int_equal(ptsim_populate(mm, VA, 16 * 4096, 4, true), 0);
	assert_int_equal(ptsim_split_folio(mm, VA, new_order), 0);
	assert_int_equal(ptsim_last_loop_stats(m, l), 0);
	ptsim_machine_destroy(m);
}

/*
 * A split to order 0: __split_huge_page's loop over the 15 tails, priced
 * from the contpte build or, without contpte, from its twin; a split to
 * order 2 (prep_compound_page's path) records no turn.
 */
static void test_split_paths(void **state)
{
	struct ptsim_loop_stats l;

	(void)state;
	split_turns("v6.12", true, 0, &l);
	assert_int_equal(l.iter[PTSIM_LOOP_SPLIT_HUGE_PAGE_TAIL_ANON], 15);
	/* and the first entry's read gathers the contiguous block (contpte_ptep_get) */
	assert_int_equal(l.iter[PTSIM_LOOP_CONTPTE_PTEP_GET_DIRTY], 16);
	assert_int_equal(loops_of(&l), 15 + 16);
	split_turns("v6.12", false, 0, &l);
	assert_int_equal(l.iter[PTSIM_LOOP_SPLIT_HUGE_PAGE_TAIL_ANON_NOCONTPTE], 15);
	assert_int_equal(loops_of(&l), 15);
	split_turns("v6.12", true, 2, &l);
	assert_int_equal(l.iter[PTSIM_LOOP_SPLIT_HUGE_PAGE_TAIL_ANON], 0);
	assert_int_equal(loops_of(&l), 16);	/* the gather alone */
}

static void test_failure_and_bad_input(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);
	struct ptsim_loop_stats before, after;
	const char *fn, *variant;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, PAGES * 4096, 0, true), 0);
	assert_int_equal(ptsim_total_loop_stats(m, &before), 0);
	/* a range with a hole past the VMA: -ENOMEM */
	assert_true(ptsim_mprotect(mm, VA, 2 * PAGES * 4096, PTSIM_PROT_READ) < 0);
	assert_int_equal(ptsim_total_loop_stats(m, &after), 0);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(ptsim_last_loop_stats(NULL, &after), -EINVAL);
	assert_int_equal(ptsim_last_loop_stats(m, NULL), -EINVAL);
	assert_int_equal(ptsim_total_loop_stats(NULL, &after), -EINVAL);
	assert_int_equal(ptsim_total_loop_stats(m, NULL), -EINVAL);
	assert_int_equal(ptsim_loop_name(PTSIM_LOOP__COUNT, &fn, &variant), -EINVAL);
	assert_int_equal(ptsim_loop_name((enum ptsim_loop)-1, &fn, &variant), -EINVAL);
	assert_int_equal(ptsim_loop_name(PTSIM_LOOP_ZAP_PTE_RANGE_NONE, NULL, &variant), -EINVAL);
	assert_int_equal(ptsim_loop_name(PTSIM_LOOP_ZAP_PTE_RANGE_NONE, &fn, NULL), -EINVAL);
	ptsim_machine_destroy(m);
}

/* every path the model counts has a price on every CPU: the names are the loop prices' */
static void test_every_path_is_priced(void **state)
{
	(void)state;
	for (unsigned int p = 0; p < PTSIM_LOOP__COUNT; p++) {
		const char *fn, *variant;

		assert_int_equal(ptsim_loop_name((enum ptsim_loop)p, &fn, &variant), 0);
		for (unsigned int c = 0; c < PTSIM_CPU__COUNT; c++) {
			struct ptsim_loop_price price;
			bool found = false;

			for (unsigned int i = 0; !ptsim_loop_price_get((enum ptsim_cpu)c, i, &price); i++)
				found |= !strcmp(price.loop, fn) && !strcmp(price.variant, variant);
			if (!found)
				fail_msg("%s/%s has no price on CPU %u", fn, variant, c);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mprotect_paths),
		cmocka_unit_test(test_paths_without_contpte),
		cmocka_unit_test(test_change_writable_file),
		cmocka_unit_test(test_mprotect_callee_paths),
		cmocka_unit_test(test_batched_mprotect_paths),
		cmocka_unit_test(test_fork_paths),
		cmocka_unit_test(test_mremap_and_mlock_paths),
		cmocka_unit_test(test_contpte_gather_paths),
		cmocka_unit_test(test_zap_paths),
		cmocka_unit_test(test_uffd_move_paths),
		cmocka_unit_test(test_madvise_paths),
		cmocka_unit_test(test_fault_around_paths),
		cmocka_unit_test(test_split_paths),
		cmocka_unit_test(test_failure_and_bad_input),
		cmocka_unit_test(test_every_path_is_priced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
