// SPDX-License-Identifier: MIT
/*
 * Zapping user mappings and freeing page tables (models unmap_page_range,
 * zap_pmd_range, zap_pte_range and free_pgtables in mm/memory.c): the one
 * teardown path munmap, exit and MADV_DONTNEED share. zap_pte_range exists
 * once and branches on "zap_pte_batching" (v6.9) where the per-PTE v6.8 loop
 * and the batched one differ (doc/mm-lifecycle.md).
 */
#include "zap.h"
#include "asm/pgtable.h"
#include "asm/tlbflush.h"
#include "pte_batch.h"
#include "primitives.h"

/*
 * Drop nr PTE mappings of f from page idx, or its PMD mapping; anonymous
 * memory nobody maps or pins is freed. True when that dropped the folio's
 * last reference (the gather's batch frees it: folios_put_refs).
 */
static bool zap_folio_rmap(struct ptsim_mm *mm, struct folio *f, uint64_t idx, unsigned int nr,
			   bool pmd)
{
	if (pmd)
		folio_remove_rmap_pmd(mm, f, false);
	else
		folio_remove_rmap_ptes(mm, f, idx, nr);
	if (folio_mapcount(mm->m, f) <= 0 && (f->flags & FOLIO_ANON) && !f->gup_refs) {
		mm->m->free_batched = true;	/* the last reference goes with the gather's batch */
		folio_put(mm->m, f);
		mm->m->free_batched = false;
		return true;
	}
	return false;
}

struct zap_ctx {
	struct mmu_gather *tlb;
	struct ptsim_mm *mm;
	struct spare_tables *spare;
	bool force_flush, force_break;
};

/*
 * zap_present_folio_ptes: clear nr entries of one folio. File folios need the
 * gathered dirty bit (a dirty one delays its rmap removal to the flush, which
 * then happens before the table lock is dropped); anonymous ones do not.
 */
static void zap_present_folio_ptes(struct zap_ctx *z, struct folio *f, uint64_t idx, pte_t *ptep,
				   uint64_t addr, unsigned int nr)
{
	struct ptsim_mm *mm = z->mm;
	const struct ptsim_geometry *g = &mm->m->geo;
	unsigned int order = f->order;
	bool delay_rmap = false, last;

	if (!folio_test_anon(mm->m, f)) {
		pte_t ptent = get_and_clear_full_ptes(mm, addr, ptep, nr, z->tlb->fullmm);

		if (pte_dirty(ptent)) {
			delay_rmap = true;	/* tlb_delay_rmap: true on SMP */
			z->force_flush = true;
		}
	} else {
		clear_full_ptes(mm, addr, ptep, nr, z->tlb->fullmm);
	}
	tlb_flush_pte_range(z->tlb, addr, (uint64_t)nr << g->page_shift);	/* tlb_remove_tlb_entries */
	if (delay_rmap)
		z->tlb->delayed_rmap = true;
	last = zap_folio_rmap(mm, f, idx, nr, false);	/* at tlb_flush_rmaps when delayed: same count */
	if (__tlb_remove_folio_pages(z->tlb, nr, last, order)) {
		z->force_flush = true;
		z->force_break = true;
	}
}

/*
 * The path a zap_pte_range turn took, for the loop prices: those are
 * v6.12's loop (batched, one turn per none entry); v6.14's turn over a run
 * of none entries has no price and is counted by its events alone.
 */
static void zap_count_loop_path(struct ptsim_machine *m, enum ptsim_loop path)
{
	if (!feature(m, PTSIM_FEAT_ZAP_SKIP_NONE_PTES))
		count_loop_path(m, path);
}

/* zap_present_ptes (v6.9+): a normal page's folio is zapped in one batch of up to max_nr. */
static unsigned int zap_present_ptes(struct zap_ctx *z, pte_t *ptep, pte_t ptent,
				     unsigned int max_nr, uint64_t addr)
{
	struct ptsim_mm *mm = z->mm;
	struct page_ref ref = vm_normal_page(mm, ptent);
	unsigned int nr = 1;

	if (!ref.folio) {
		/* the zero page or a special mapping: no folio to account */
		ptep_get_and_clear(mm, addr, ptep);	/* ptep_get_and_clear_full */
		tlb_flush_pte_range(z->tlb, addr, mm->m->geo.page_size);
		return 1;
	}
	if (folio_test_large(mm->m, ref.folio) && max_nr != 1) {
		nr = folio_pte_batch(mm, ref.folio, ptep, ptent, max_nr);
		if (ref.folio->flags & FOLIO_ANON)
			zap_count_loop_path(mm->m, PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON_BATCH);
	} else {
		bool anon = ref.folio->flags & FOLIO_ANON;

		zap_count_loop_path(mm->m, anon ? PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON :
						  PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_FILE);
	}
	zap_present_folio_ptes(z, ref.folio, ref.idx, ptep, addr, nr);
	return nr;
}

/*
 * zap_nonpresent_ptes for a swap entry (swap_pte_batch of one): free the
 * slot, clear it. A uffd-wp PTE marker names no slot: it is only cleared
 * (v6.12: zap on anonymous memory always drops it; the model has markers in
 * anonymous VMAs only, so zap_install_uffd_wp_if_needed installs none).
 */
static unsigned int zap_nonpresent_pte(struct zap_ctx *z, pte_t *ptep, pte_t ptent,
				       uint64_t addr)
{
	if (!is_pte_marker(ptent))
		free_swap_and_cache_nr(z->mm->m);
	set_desc(z->mm, addr, PTE_LEVEL, ptep, 0);		/* clear_not_present_full_ptes */
	return 1;
}

/* do_zap_pte_range (v6.9+): skip a none entry (v6.14: a run of them), then zap what follows. */
static unsigned int do_zap_pte_range(struct zap_ctx *z, pte_t *ptep, uint64_t addr, uint64_t end)
{
	const struct ptsim_geometry *g = &z->mm->m->geo;
	unsigned int max_nr = (unsigned int)((end - addr) >> g->page_shift);
	/*
	 * The ptep_get of each entry of a run of none entries, at once: v6.14's
	 * skip loop ("zap_skip_none_ptes"). Before it (v6.9 to v6.13) a none
	 * entry ends the turn, and zap_pte_range takes one loop turn per entry.
	 */
	bool skip = feature(z->mm->m, PTSIM_FEAT_ZAP_SKIP_NONE_PTES);
	unsigned int nr = ptep_get_none_run(z->mm, ptep, skip ? max_nr : 1);
	pte_t ptent;

	if (nr && !skip) {
		zap_count_loop_path(z->mm->m, PTSIM_LOOP_ZAP_PTE_RANGE_NONE);
		return nr;
	}
	if (nr) {
		max_nr -= nr;
		if (!max_nr)
			return nr;
		ptep += nr;
		addr += (uint64_t)nr << g->page_shift;
	}
	ptent = ptep_get(z->mm, ptep);
	if (pte_present(ptent))
		return nr + zap_present_ptes(z, ptep, ptent, max_nr, addr);
	return nr + zap_nonpresent_pte(z, ptep, ptent, addr);
}

/* The v6.8 loop body for one entry: clear it, account its page, one slot per page. */
static void zap_one_pte(struct zap_ctx *z, pte_t *ptep, pte_t ptent, uint64_t addr)
{
	struct ptsim_mm *mm = z->mm;
	struct page_ref ref;
	unsigned int order;
	bool last;

	if (!pte_present(ptent)) {
		zap_nonpresent_pte(z, ptep, ptent, addr);
		return;
	}
	ref = vm_normal_page(mm, ptent);
	ptent = ptep_get_and_clear(mm, addr, ptep);	/* ptep_get_and_clear_full */
	tlb_flush_pte_range(z->tlb, addr, mm->m->geo.page_size);	/* tlb_remove_tlb_entry */
	if (!ref.folio)
		return;
	if (!folio_test_anon(mm->m, ref.folio) && pte_dirty(ptent)) {	/* PageAnon */
		z->tlb->delayed_rmap = true;
		z->force_flush = true;
	}
	order = ref.folio->order;	/* before the folio may be freed */
	last = zap_folio_rmap(mm, ref.folio, ref.idx, 1, false);	/* folio_remove_rmap_pte */
	if (__tlb_remove_folio_pages(z->tlb, 1, last, order)) {	/* __tlb_remove_page */
		z->force_flush = true;
		z->force_break = true;
	}
}

/*
 * zap_pte_range over one PTE table: returns where it stopped, which is before
 * end when the gather's batches filled (the caller flushes and comes back).
 */
static uint64_t zap_pte_range(struct zap_ctx *z, struct pt_table *t, uint64_t addr, uint64_t end)
{
	struct ptsim_mm *mm = z->mm;
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	bool batching = feature(m, PTSIM_FEAT_ZAP_PTE_BATCHING);
	pte_t *ptep = &t->desc[pt_index(g, PTE_LEVEL, addr)];

	fn_enter(m, PTSIM_FN_ZAP_PTE_RANGE);
	z->force_flush = z->force_break = false;
	pte_offset_map_lock(m);
	flush_tlb_batched_pending(mm);
	arch_enter_lazy_mmu_mode(m);
	while (addr < end) {
		unsigned int nr = 1;

		pte_loop_step(m);
		if (batching) {
			nr = do_zap_pte_range(z, ptep, addr, end);
		} else {
			pte_t ptent = ptep_get(mm, ptep);

			if (!pte_none(ptent))
				zap_one_pte(z, ptep, ptent, addr);
		}
		addr += (uint64_t)nr << g->page_shift;
		ptep += nr;
		if (z->force_break)
			break;
	}
	/* a forced flush: the TLB before the lock is dropped, the pages after */
	if (z->force_flush)
		tlb_flush_mmu_tlbonly(z->tlb);	/* + tlb_flush_rmaps */
	if (z->force_flush)
		tlb_flush_mmu(z->tlb);
	fn_exit(m);
	return addr;
}

/* zap_huge_pmd: a PMD THP the range covers whole goes in one exchange. */
static void zap_huge_pmd(struct zap_ctx *z, struct pt_table *t, unsigned int idx, uint64_t addr)
{
	struct ptsim_mm *mm = z->mm;
	const struct ptsim_geometry *g = &mm->m->geo;
	pte_t old = pmdp_huge_get_and_clear(mm, addr, &t->desc[idx]);	/* ..._full */
	struct page_ref ref = vm_normal_page(mm, old);
	unsigned int order;
	bool last;

	tlb_flush_pmd_range(z->tlb, addr, g->pmd_size);	/* tlb_remove_pmd_tlb_entry */
	if (!ref.folio)
		return;
	order = ref.folio->order;	/* before the folio may be freed */
	last = zap_folio_rmap(mm, ref.folio, 0, 1, true);	/* folio_remove_rmap_pmd */
	if (__tlb_remove_folio_pages(z->tlb, 1, last, order))	/* tlb_remove_page_size */
		tlb_flush_mmu(z->tlb);
}

/* zap_pmd_range over one PMD table; edges were split with the VMAs (vma_adjust_trans_huge). */
static void zap_pmd_range(struct zap_ctx *z, struct pt_table *t, uint64_t addr, uint64_t end)
{
	const struct ptsim_geometry *g = &z->mm->m->geo;

	while (addr < end) {
		uint64_t next = MIN(ALIGN_DOWN64(addr, g->pmd_size) + g->pmd_size, end);
		unsigned int idx = pt_index(g, PMD_LEVEL, addr);
		pte_t pmd;

		pmd_loop_step(z->mm->m);
		pmd = read_desc(z->mm, PMD_LEVEL, &t->desc[idx]);
		if (pmd_is_leaf(t, idx)) {
			if (next - addr == g->pmd_size) {
				zap_huge_pmd(z, t, idx, addr);
				goto next;
			}
			/* __split_huge_pmd, then zap the part of its PTE table in range */
			if (!split_huge_pmd_spare(z->mm, t, ALIGN_DOWN64(addr, g->pmd_size), z->spare))
				goto next;	/* reported: nothing was set aside for the cut */
		}
		if (t->next[idx] && !pte_none(pmd)) {
			uint64_t a = addr;

			/*
			 * The batches filled: flushed, go on from there. The
			 * kernel does it with pmd--, another turn of the loop.
			 */
			while ((a = zap_pte_range(z, t->next[idx], a, next)) < next) {
				cond_resched(z->mm->m, 1);
				pmd_loop_step(z->mm->m);
			}
		}
next:
		cond_resched(z->mm->m, 1);	/* zap_pmd_range's loop condition (v6.12) */
		addr = next;
	}
}

void unmap_page_range(struct mmu_gather *tlb, struct ptsim_mm *mm, uint64_t start, uint64_t end,
		      struct spare_tables *spare)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	struct spare_tables none = { .n = 0 };
	struct zap_ctx z = { .tlb = tlb, .mm = mm, .spare = spare ? spare : &none };

	tlb_start_vma(tlb);
	for (uint64_t addr = start; (addr = pt_next_pmd_used(mm, addr, end)) < end;) {
		uint64_t next = MIN(ALIGN_DOWN64(addr, g->pud_size) + g->pud_size, end);
		int err;
		struct pt_table *t = pt_walk_table(mm, addr, PMD_LEVEL, false, &err);

		if (t)
			zap_pmd_range(&z, t, addr, next);
		addr = next;
	}
	tlb_end_vma(tlb);
}

/*
 * free_pgd_range's rule at every level: a table whose span lies inside
 * [floor, ceiling) (ceiling 0: the top) holds nothing another VMA needs, so
 * it is unlinked and freed through the gather. Tables are visited only where
 * they meet [addr, end).
 */
static bool table_freeable(uint64_t cs, uint64_t span, uint64_t floor, uint64_t ceiling)
{
	return cs >= floor && (!ceiling || cs + span - 1 <= ceiling - 1);
}

/* Free every table below t (at level) in [addr, end) that table_freeable allows. */
static void free_tables_below(struct mmu_gather *tlb, struct pt_table *t, uint64_t base,
			      uint64_t addr, uint64_t end, uint64_t floor, uint64_t ceiling)
{
	struct ptsim_mm *mm = tlb->mm;
	const struct ptsim_geometry *g = &mm->m->geo;
	uint64_t span = pt_level_size(g, t->level);

	for (unsigned int i = pt_index(g, t->level, addr); i < t->entries; i++) {
		uint64_t cs = base + (uint64_t)i * span;
		struct pt_table *child = t->next[i];

		if (cs >= end)
			break;
		if (!child)
			continue;
		if (child->level < PTE_LEVEL)
			free_tables_below(tlb, child, cs, MAX(addr, cs), MIN(end, cs + span), floor,
					  ceiling);
		if (!table_freeable(cs, span, floor, ceiling))
			continue;
		read_desc(mm, t->level, &t->desc[i]);
		set_desc(mm, cs, t->level, &t->desc[i], 0);	/* pmd_clear / pud_clear */
		t->next[i] = NULL;
		free_table_tlb(tlb, child, cs);
	}
}

void free_pgtables(struct mmu_gather *tlb, uint64_t start, uint64_t end, uint64_t floor,
		   uint64_t ceiling)
{
	struct ptsim_mm *mm = tlb->mm;

	free_tables_below(tlb, mm->pgd, 0, start, end, floor, ceiling);
}
