// SPDX-License-Identifier: MIT
/*
 * Reverse-mapping updates (models folio_remove_rmap_ptes, try_to_unmap_one
 * and the deferred TLB flush of mm/rmap.c). Reclaim does not wait for its TLBIs entry by
 * entry: each unmap issues them (arch_tlbbatch_add_pending) and one DSB
 * completes them all before a folio is written out or freed. The mm keeps a
 * note that such a flush happened, and the next page-table walk that changes
 * its entries starts with flush_tlb_batched_pending.
 */
#include "vmscan.h"
#include "asm/pgtable.h"
#include "asm/tlbflush.h"
#include "pte_batch.h"
#include "primitives.h"

void folio_remove_rmap_ptes(struct ptsim_mm *mm, struct folio *f, unsigned int nr)
{
	kernel_call(mm->m, FOLIO_REMOVE_RMAP_PTES);
	f->mapcount -= (int)nr;
	if (f->mapcount < 0)
		diag_report(mm->m, PTSIM_DIAG_INVARIANT, folio_pfn(mm->m, f), 3, 0, 0,
			    "folio mapcount below zero after an unmap");
}

/* set_tlb_ubc_flush_pending: the TLBIs go out now, the DSB is owed. */
static void set_tlb_ubc_flush_pending(struct ptsim_mm *mm, struct tlbflush_unmap_batch *ubc,
				      pte_t pteval, uint64_t start, uint64_t end)
{
	arch_tlbbatch_add_pending(mm, start, end);
	ubc->flush_required = true;
	if (pte_accessible(mm, pteval) && pte_write(pteval))
		ubc->writable = true;
	mm->tlb_flush_batched = true;
}

void try_to_unmap_flush(struct ptsim_machine *m, struct tlbflush_unmap_batch *ubc)
{
	if (!ubc->flush_required)
		return;
	arch_tlbbatch_flush(m);
	ubc->flush_required = false;
	ubc->writable = false;
}

void try_to_unmap_flush_dirty(struct ptsim_machine *m, struct tlbflush_unmap_batch *ubc)
{
	if (ubc->writable)
		try_to_unmap_flush(m, ubc);
}

/*
 * flush_tlb_batched_pending: reclaim cleared entries of mm and may not have
 * completed their flush yet, so a walk about to change entries flushes the
 * whole ASID first (arm64's arch_flush_tlb_batched_pending is flush_tlb_mm).
 * Reclaim never marks the note done, so the first walk after it pays.
 */
void flush_tlb_batched_pending(struct ptsim_mm *mm)
{
	if (!mm->tlb_flush_batched)
		return;
	flush_tlb_mm(mm);
	mm->tlb_flush_batched = false;
}

/*
 * folio_unmap_pte_batch: the entries one clear may take. Only lazyfree
 * anonymous large folios are batched ("mm: support batched unmap for
 * lazyfree large folios during reclamation", the v6.16 form); everything
 * else goes one entry at a time.
 */
static unsigned int folio_unmap_pte_batch(struct ptsim_mm *mm, const struct folio *f, pte_t *ptep,
					  pte_t pte, unsigned int max_nr)
{
	unsigned int nr;

	if (!feature(mm->m, PTSIM_FEAT_LAZYFREE_UNMAP_BATCHING) || !f->order ||
	    (f->flags & (FOLIO_ANON | FOLIO_LAZYFREE)) != (FOLIO_ANON | FOLIO_LAZYFREE))
		return 1;
	nr = folio_pte_batch_flags(mm, f, ptep, &pte, max_nr, 0);
	return nr;
}

/* The swap entry of page i of a folio whose slots start at swap_base. */
static pte_t swap_pte(const struct folio *f, uint64_t i, uint64_t swap_base, pte_t pteval)
{
	pte_t swp = swp_entry_pte(swap_base + i, folio_page_anon_exclusive(f, i));

	if (pte_uffd_wp(pteval))
		swp |= PTE_SWP_UFFD_WP;
	return swp;
}

/*
 * try_to_unmap_one for the one VMA that maps f: per entry (or lazyfree batch)
 * get-and-clear with the flush deferred, then the entry's new value: a swap
 * entry for swap-backed memory (the exclusive bit moves into it), none for
 * a discarded lazyfree or a file page. A lazyfree folio written again since
 * MADV_FREE (or pinned) gets its entries back and becomes swap-backed again
 * (when written); the unmap stops there.
 */
bool try_to_unmap(struct ptsim_mm *mm, struct folio *f, uint64_t va, uint64_t swap_base,
		  struct tlbflush_unmap_batch *ubc, bool *dirty)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	unsigned int idx, step, nr_pages = (unsigned int)folio_nr_pages(f);
	struct pt_table *t = pt_lookup_leaf(mm, va, &idx);

	/* rmap_walk: the anon_vma or i_mmap lock, the notifier range, the table lock */
	anon_vma_lock_read(m);
	mmu_notifier_invalidate_range_start(m);
	pte_offset_map_lock(m);	/* page_vma_mapped_walk */
	for (unsigned int i = 0; i < nr_pages; i += step) {
		uint64_t a = va + ((uint64_t)i << g->page_shift);
		pte_t *ptep = &t->desc[idx + i];
		pte_t pteval = ptep_get(mm, ptep);	/* page_vma_mapped_walk's check_pte */

		step = folio_unmap_pte_batch(mm, f, ptep, pteval, nr_pages - i);
		pteval = get_and_clear_full_ptes(mm, a, ptep, step, 0);
		set_tlb_ubc_flush_pending(mm, ubc, pteval, a, a + ((uint64_t)step << g->page_shift));
		if (pte_dirty(pteval))
			*dirty = true;	/* folio_mark_dirty */
		if ((f->flags & FOLIO_LAZYFREE) && (*dirty || f->pinned)) {
			set_ptes(mm, a, ptep, pteval, step);
			if (*dirty)
				f->flags &= ~FOLIO_LAZYFREE;	/* folio_set_swapbacked */
			return false;
		}
		if ((f->flags & (FOLIO_ANON | FOLIO_LAZYFREE)) == FOLIO_ANON) {
			swap_duplicate(m);
			set_ptes(mm, a, ptep, swap_pte(f, i, swap_base, pteval), 1);
			folio_set_page_anon_exclusive(f, i, false);	/* folio_try_share_anon_rmap_pte */
		}
		folio_remove_rmap_ptes(mm, f, step);
	}
	return true;
}
