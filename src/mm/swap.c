// SPDX-License-Identifier: MIT
/*
 * Swap-out of order-0 anonymous pages, only as far as other algorithms need
 * swap entries to meet (UFFDIO_MOVE's move_swap_pte): the PTE becomes a swap
 * entry carrying the exclusive bit, the folio is freed, and one range flush
 * covers the range as reclaim's batched unmap flush would.
 */
#include "asm/pgtable.h"
#include "asm/tlbflush.h"

int ptsim_swapout(struct ptsim_mm *mm, uint64_t start, uint64_t len)
{
	const struct ptsim_geometry *g;
	uint64_t end;

	VALIDATE(mm && !mm->kernel && len && start + len > start);
	REFUSE_IN_HANDLER(mm->m);
	g = &mm->m->geo;
	VALIDATE(IS_ALIGNED64(start | len, g->page_size) && start + len <= (UINT64_C(1) << g->va_bits));
	end = start + len;
	/* check first: only order-0 anonymous folios or holes, none of them pinned */
	for (uint64_t va = start; (va = pt_next_used(mm, va, end)) < end; va += g->page_size) {
		unsigned int idx;
		const struct pt_table *t = pt_lookup_leaf(mm, va, &idx);
		const struct folio *f;

		if (!t || !pte_present(t->desc[idx]))
			continue;
		f = pfn_folio(mm->m, pte_pfn(g, t->desc[idx]));
		if (t->level != PTE_LEVEL || !f || f->order || !(f->flags & FOLIO_ANON) || pte_special(t->desc[idx]))
			return -EINVAL;
		if (f->gup_refs)
			return -EBUSY;	/* shrink_folio_list keeps a pinned or GUP-referenced one */
	}
	op_begin(mm->m);
	for (uint64_t va = start; (va = pt_next_used(mm, va, end)) < end; va += g->page_size) {
		unsigned int idx;
		struct pt_table *t = pt_lookup_leaf(mm, va, &idx);
		struct folio *f;
		pte_t old, swp;

		if (!t || !pte_present(t->desc[idx]))
			continue;
		old = ptep_get_and_clear(mm, va, &t->desc[idx]);
		f = pfn_folio(mm->m, pte_pfn(g, old));
		swp = swp_entry_pte(++mm->next_swap_offset, folio_page_anon_exclusive(f, 0));
		/* try_to_unmap_one: pte_swp_mkuffd_wp keeps a uffd-wp entry protected */
		if (pte_uffd_wp(old))
			swp = pte_swp_mkuffd_wp(swp);
		set_ptes(mm, va, &t->desc[idx], swp, 1);
		if (folio_mapcount_add(mm->m, f, -1) == 0)
			folio_free(mm->m, f);
	}
	flush_tlb_range(mm, start, end);	/* reclaim's batched unmap flush */
	op_end(mm->m, 0);
	return 0;
}
