/* SPDX-License-Identifier: MIT */
/*
 * Reclaim of isolated folios (mm/vmscan.c) and the rmap unmap it relies on
 * (mm/rmap.c), as MADV_PAGEOUT drives them; see doc/mm-lifecycle.md.
 */
#ifndef PTSIM_VMSCAN_H
#define PTSIM_VMSCAN_H

#include "internal.h"

/* One isolated folio and where mm maps it (all of it, from va; pmd: by one PMD leaf). */
struct isolated_folio {
	struct folio *folio;
	uint64_t va;
	bool pmd;
};

/* The folio_list madvise_cold_or_pageout_pte_range hands to reclaim_pages. */
struct folio_list {
	struct isolated_folio *e;
	size_t nr, cap;
};

/* folio_isolate_lru onto l; false (the folio stays where it is) when l cannot grow. */
bool folio_isolate_lru(struct ptsim_mm *mm, struct folio_list *l, struct folio *f, uint64_t va,
		       bool pmd);
/* reclaim_pages: shrink every folio of l, then empty l. */
void reclaim_pages(struct ptsim_mm *mm, struct folio_list *l);
void folio_list_free(struct folio_list *l);

/* current->tlb_ubc: the deferred flush reclaim owes (struct tlbflush_unmap_batch). */
struct tlbflush_unmap_batch {
	bool flush_required;
	bool writable;	/* a writable entry was unmapped: flush before writing the folio out */
};

/*
 * try_to_unmap for a folio mm alone maps, wholly from va: every entry is
 * cleared with its flush deferred to ubc; anonymous pages get swap entries
 * from swap_base (swap-backed) or are discarded (lazyfree, unless written
 * again). *dirty is set when a cleared entry was dirty. False when the unmap
 * was abandoned and the folio stays mapped.
 */
bool try_to_unmap(struct ptsim_mm *mm, struct folio *f, uint64_t va, uint64_t swap_base,
		  struct tlbflush_unmap_batch *ubc, bool *dirty);
/*
 * try_to_migrate_one (mm/rmap.c) for page i of the anonymous folio f that a
 * split unmaps, mapped at addr by *ptep: the entry cleared, a migration
 * entry in its place holding the page's exclusivity; returns the entry it
 * cleared. The caller counts what try_to_migrate_one does once per VMA.
 */
pte_t try_to_migrate_one(struct ptsim_mm *mm, struct folio *f, uint64_t i, uint64_t addr,
			 pte_t *ptep, struct tlbflush_unmap_batch *ubc);
/*
 * folio_referenced (mm/rmap.c) of the anonymous folio f that one VMA maps at
 * va, by PTEs or (pmd) by a PMD leaf: the rmap walk clears every mapping
 * entry's AF; returns the VMAs that had a young one (0 or 1).
 */
int folio_referenced(struct ptsim_mm *mm, struct folio *f, uint64_t va, bool pmd);
/* try_to_unmap_flush: complete the deferred TLBIs. */
void try_to_unmap_flush(struct ptsim_machine *m, struct tlbflush_unmap_batch *ubc);
/* try_to_unmap_flush_dirty: ... only if a writable entry could still dirty the folio. */
void try_to_unmap_flush_dirty(struct ptsim_machine *m, struct tlbflush_unmap_batch *ubc);

/*
 * The swap cache and the swap device (src/mm/swap_state.c, src/mm/page_io.c):
 * add_to_swap puts f in the swap cache (PG_swapcache) and marks it dirty;
 * swap_writepage writes the locked f (false: a zero-filled f went to the
 * zeromap unwritten) and unlocks it; delete_from_swap_cache
 * takes f out (folio_free_swap's); folio_mark_dirty of a swap-cache folio.
 */
void add_to_swap(struct ptsim_machine *m, struct folio *f);
bool swap_writepage(struct ptsim_machine *m, struct folio *f);
void delete_from_swap_cache(struct ptsim_machine *m, struct folio *f);
void folio_mark_dirty(struct ptsim_machine *m, const struct folio *f);

#endif
