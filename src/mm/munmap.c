// SPDX-License-Identifier: MIT
/*
 * munmap and exit (models do_vmi_align_munmap / vms_clear_ptes in mm/vma.c
 * and exit_mmap in mm/mmap.c): zap the VMAs, free the tables nothing else
 * needs, flush. doc/mm-lifecycle.md gives the counts.
 */
#include "zap.h"
#include "asm/pgtable.h"
#include "primitives.h"

/*
 * free_pgtables over the VMAs [first, last] of mm: VMAs less than a PMD apart
 * share one free_pgd_range, whose ceiling is the next group's start (or the
 * caller's ceiling after the last group).
 */
static void free_vma_pgtables(struct mmu_gather *tlb, size_t first, size_t last, uint64_t floor,
			      uint64_t ceiling)
{
	struct ptsim_mm *mm = tlb->mm;
	const struct ptsim_geometry *g = &mm->m->geo;

	fn_enter(mm->m, PTSIM_FN_FREE_PGTABLES);
	for (size_t i = first; i <= last; i++)
		unlink_anon_vmas(mm->m, &mm->vmas[i]);	/* free_pgtables, before it frees tables */
	for (size_t i = first; i <= last;) {
		uint64_t start = mm->vmas[i].start, end = mm->vmas[i].end;

		while (i < last && mm->vmas[i + 1].start <= end + g->pmd_size)
			end = mm->vmas[++i].end;
		free_pgtables(tlb, start, end, floor, i < last ? mm->vmas[i + 1].start : ceiling);
		i++;
	}
	fn_exit(mm->m);
}

/* unmap_vmas: one notifier range around the zap of every VMA in [first, last]. */
static void unmap_vmas(struct mmu_gather *tlb, size_t first, size_t last)
{
	struct ptsim_mm *mm = tlb->mm;

	mmu_notifier_invalidate_range_start(mm->m);
	for (size_t i = first; i <= last; i++)
		unmap_page_range(tlb, mm, mm->vmas[i].start, mm->vmas[i].end, NULL);
}

/*
 * vms_gather_munmap_vmas' detach tree (v6.12): the VMAs going are stored
 * one by one at indices 0, 1, ... of a tree of their own, not in RCU mode
 * (mas_store_gfp). The first is stored as the root pointer itself
 * (wr_store_root of index 0: no node); the second needs a leaf, the rest
 * are appended to it in place. __mt_destroy frees that leaf.
 */
static void detach_tree_store(struct ptsim_machine *m, size_t i)
{
	if (i)
		mas_store_gfp(m, i == 1);	/* i == 1: the leaf's allocation */
}

static void detach_tree_destroy(struct ptsim_machine *m, size_t n)
{
	if (n > 1)
		__mt_destroy(m, 1);
}

void do_vmi_munmap(struct ptsim_mm *mm, uint64_t start, uint64_t end, struct spare_tables *spare)
{
	struct mmu_gather tlb;
	uint64_t floor, ceiling;
	size_t first, last;

	/* find_vma_intersection: nothing mapped there is not an error */
	for (first = 0; first < mm->nr_vmas && mm->vmas[first].end <= start; first++)
		;
	if (first == mm->nr_vmas || mm->vmas[first].start >= end)
		return;
	/* vms_gather_munmap_vmas: split the VMAs the range cuts (vma_adjust_trans_huge first) */
	if (mm->vmas[first].start < start) {
		split_huge_pmd_address(mm, start, spare);
		vma_split(mm, first++, start);
	}
	for (last = first; last + 1 < mm->nr_vmas && mm->vmas[last + 1].start < end; last++)
		;
	if (end < mm->vmas[last].end) {
		split_huge_pmd_address(mm, end, spare);
		vma_split(mm, last, end);
	}
	/* each VMA going is write-locked and stored in the detach tree */
	for (size_t i = first; i <= last; i++) {
		vma_start_write(mm, &mm->vmas[i]);
		detach_tree_store(mm->m, i - first);
	}
	vma_iter_store(mm, &mm->vmas[first], true);	/* vma_iter_clear_gfp: the range becomes a gap */
	floor = first ? mm->vmas[first - 1].end : 0;	/* FIRST_USER_ADDRESS is 0 on arm64 */
	ceiling = last + 1 < mm->nr_vmas ? mm->vmas[last + 1].start : 0;
	/* vms_clear_ptes */
	lru_add_drain(mm->m);
	tlb_gather_mmu(&tlb, mm);
	unmap_vmas(&tlb, first, last);
	free_vma_pgtables(&tlb, first, last, floor, ceiling);
	tlb_finish_mmu(&tlb);
	/*
	 * vms_complete_munmap_vmas: total_vm and the exec/stack/data counts
	 * lowered once, each VMA freed (remove_vma), the commit charge given
	 * back, the detach tree destroyed
	 */
	vm_stat_account(mm);
	for (size_t i = first; i <= last; i++)
		vm_area_free(mm->m, &mm->vmas[i]);
	vm_unacct_memory(mm->m);
	detach_tree_destroy(mm->m, last - first + 1);
	for (size_t n = last - first + 1; n; n--)
		vma_remove(mm, first);
}

int ptsim_munmap(struct ptsim_mm *mm, uint64_t start, uint64_t len)
{
	struct ptsim_machine *m;
	const struct ptsim_geometry *g;
	struct spare_tables spare;
	int err;

	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	m = mm->m;
	g = &m->geo;
	len = ALIGN_UP64(len, g->page_size);
	VALIDATE(IS_ALIGNED64(start, g->page_size) && len && start + len > start &&
		 start + len <= (UINT64_C(1) << g->va_bits));
	if (range_is_free(mm, start, start + len))
		return 0;
	/* the two edge splits and their THP splits are all that can fail: do them first */
	if (vma_reserve(mm, 2))
		return -ENOMEM;
	op_begin(m);
	err = spare_tables_alloc(mm, &spare, start, start + len);
	if (!err) {
		syscall_enter(m);
		/* mmap_write_lock_killable, downgraded for the zap, mmap_read_unlock */
		mmap_write_lock(mm);
		do_vmi_munmap(mm, start, start + len, &spare);
		spare_tables_free(mm, &spare);
	}
	op_end(m, err);
	return err;
}

int ptsim_mm_exit(struct ptsim_mm *mm)
{
	struct mmu_gather tlb;

	/* a raw mm has no VMAs to zap; its tables go with ptsim_raw_table_free (raw.h) */
	VALIDATE(mm && !mm->kernel && !mm->raw);
	REFUSE_IN_HANDLER(mm->m);
	op_begin(mm->m);
	if (mm->nr_vmas) {
		/*
		 * exit_mmap (v6.12): the zap under mmap_read_lock, then under
		 * mmap_write_lock free_pgtables (which unlinks each VMA's
		 * anon_vma chain), each VMA freed at once (remove_vma with
		 * unreachable: __vm_area_free, no RCU), the commit charge given
		 * back and the VMA tree destroyed
		 */
		mmap_read_lock(mm);
		lru_add_drain(mm->m);
		tlb_gather_mmu_fullmm(&tlb, mm);
		unmap_vmas(&tlb, 0, mm->nr_vmas - 1);
		mmap_write_lock(mm);
		/* FIRST_USER_ADDRESS and USER_PGTABLES_CEILING are both 0 on arm64 */
		free_vma_pgtables(&tlb, 0, mm->nr_vmas - 1, 0, 0);
		tlb_finish_mmu(&tlb);
		for (size_t i = 0; i < mm->nr_vmas; i++) {
			__vm_area_free(mm->m, &mm->vmas[i]);
			vma_put_shmem(mm->m, &mm->vmas[i]);	/* remove_vma */
		}
		vm_unacct_memory(mm->m);
		__mt_destroy(mm->m, maple_tree_nodes(mm->nr_vmas));
		mm->nr_vmas = 0;
		mm->gapless_base = mm->gapless_end = 0;
	}
	op_end(mm->m, 0);
	return 0;
}
