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

/*
 * The mapcount work of mm/rmap.c, as the kernel of each modelled version
 * executes it (v6.8 .. v6.19, the default config: CONFIG_PAGE_MAPCOUNT, and
 * from v6.15 CONFIG_MM_ID with THP). A large folio's mapping of nr pages
 * touches every page's _mapcount, then the folio's _nr_pages_mapped when a
 * page became mapped or unmapped (per such page before v6.12, once a batch
 * from it: "nr_pages_mapped_batch"), and (v6.11, "large_mapcount") its
 * _large_mapcount; __folio_mod_stat calls __lruvec_stat_mod_folio when the
 * number of mapped pages changed.
 *
 * The model keeps one mapcount per folio (every PTE mapping of any of its
 * pages, a PMD mapping counting once), not one per page. Whether a page of
 * the batch became mapped (unmapped) is decided as if every page of the
 * folio had the same mapcount: true when the folio held (holds) fewer
 * mappings than pages before the add (after the removal). That is exact for
 * folios mapped whole, once or by several mms (fork), and for a folio mapped
 * once and partly.
 */

/* __folio_add_rmap at the PTE level for nr pages of f from page idx: true when pages became mapped. */
static bool __folio_add_rmap(struct ptsim_mm *mm, struct folio *f, uint64_t idx, unsigned int nr,
			     bool pmd_mapped)
{
	struct ptsim_machine *m = mm->m;
	bool first;

	if (!folio_test_large(m, f)) {
		page_mapcount_atomic(m, f, 0, 1);	/* atomic_inc_and_test(&folio->_mapcount) */
		first = folio_mapcount(m, f) == 0;
	} else {
		page_mapcount_atomic(m, f, idx, nr);	/* atomic_inc_and_test per page */
		first = (uint64_t)folio_mapcount(m, f) < folio_nr_pages(f);
		if (first)
			nr_pages_mapped_batch(m, f, nr);
		/* a PMD mapping already counts every page mapped (ENTIRELY_MAPPED) */
		first = first && !pmd_mapped;
		folio_mod_large_mapcount(m, f, false);
	}
	folio_mapcount_add(m, f, (int)nr);
	return first;
}

void folio_add_file_rmap_ptes(struct ptsim_mm *mm, struct folio *f, uint64_t idx, unsigned int nr)
{
	kernel_call(mm->m, FOLIO_ADD_FILE_RMAP_PTES);
	if (__folio_add_rmap(mm, f, idx, nr, false))
		__lruvec_stat_mod_folio(mm->m);	/* __folio_mod_stat: NR_FILE_MAPPED */
}

void folio_add_anon_rmap_ptes(struct ptsim_mm *mm, struct folio *f, uint64_t idx,
			      unsigned int nr, bool exclusive, bool pmd_mapped)
{
	kernel_call(mm->m, FOLIO_ADD_ANON_RMAP_PTES);
	if (__folio_add_rmap(mm, f, idx, nr, pmd_mapped))
		__lruvec_stat_mod_folio(mm->m);	/* __folio_mod_stat: NR_ANON_MAPPED */
	for (unsigned int i = 0; exclusive && i < nr; i++)
		SetPageAnonExclusive(mm->m, f, idx + i);	/* RMAP_EXCLUSIVE */
}

/*
 * folio_add_new_anon_rmap: a new folio's mapcounts are set, not
 * incremented (atomic_set), per page for an mTHP; every page is exclusive
 * (RMAP_EXCLUSIVE) or none is. A PMD-mapped folio sets _entire_mapcount and
 * marks only its head page, and is accounted as a THP too (NR_ANON_THPS).
 * The model marks every page of a PMD folio, which a split passes on.
 */
void folio_add_new_anon_rmap(struct ptsim_mm *mm, struct folio *f, bool exclusive, bool pmd)
{
	struct ptsim_machine *m = mm->m;
	uint64_t nr = folio_nr_pages(f);

	kernel_call(m, FOLIO_ADD_NEW_ANON_RMAP);
	for (uint64_t i = 0; i < nr; i++)
		folio_set_page_anon_exclusive(f, i, exclusive && pmd);
	if (!folio_test_large(m, f) || !pmd) {
		/* _mapcount per page, and for an mTHP _large_mapcount and _nr_pages_mapped */
		for (uint64_t i = 0; i < nr; i++) {
			mapcount_set(m, f, i);
			if (exclusive)
				SetPageAnonExclusive(m, f, i);
		}
		if (nr > 1) {
			folio_mod_large_mapcount(m, f, true);
			mapcount_set(m, f, FOLIO_PAGE1);	/* _nr_pages_mapped */
		}
		folio_mapcount_set(m, f, (int)nr);
	} else {
		/* _entire_mapcount, _nr_pages_mapped = ENTIRELY_MAPPED */
		mapcount_set(m, f, FOLIO_PAGE1);
		mapcount_set(m, f, FOLIO_PAGE1);
		folio_mod_large_mapcount(m, f, true);
		if (exclusive)
			SetPageAnonExclusive(m, f, 0);
		__lruvec_stat_mod_folio(m);	/* NR_ANON_THPS */
		folio_mapcount_set(m, f, 1);
	}
	__lruvec_stat_mod_folio(m);	/* NR_ANON_MAPPED */
}

/*
 * __folio_remove_rmap's deferred split for a large anonymous folio that lost
 * mapped pages. Before v6.10 ("deferred_split_partial" off) it calls
 * deferred_split_folio every time, partly mapped or not, which returns at
 * its list_empty test once the folio is queued; from v6.10 only a folio
 * still partly mapped is passed on, and only when not queued yet (v6.12
 * tests folio_test_partially_mapped instead of the list). Queueing takes
 * the queue's spinlock; the folio leaves the queue when freed (folio_free).
 */
static void queue_deferred_split(struct ptsim_machine *m, struct folio *f)
{
	bool queued = f->flags & FOLIO_DEFERRED_SPLIT;

	if (feature(m, PTSIM_FEAT_DEFERRED_SPLIT_PARTIAL) && (folio_mapcount(m, f) <= 0 || queued))
		return;
	kernel_call(m, DEFERRED_SPLIT_FOLIO);
	if (queued)
		return;
	split_queue_lock(m);
	f->flags |= FOLIO_DEFERRED_SPLIT;
}

void folio_remove_rmap_ptes(struct ptsim_mm *mm, struct folio *f, uint64_t idx, unsigned int nr)
{
	struct ptsim_machine *m = mm->m;
	bool last;

	kernel_call(m, FOLIO_REMOVE_RMAP_PTES);
	folio_mapcount_add(m, f, -(int)nr);
	if (!folio_test_large(m, f)) {
		page_mapcount_atomic(m, f, 0, 1);	/* atomic_add_negative(-1, &folio->_mapcount) */
		last = folio_mapcount(m, f) <= 0;
	} else {
		folio_mod_large_mapcount(m, f, false);
		page_mapcount_atomic(m, f, idx, nr);	/* atomic_add_negative per page */
		last = (uint64_t)MAX(folio_mapcount(m, f), 0) < folio_nr_pages(f);
		if (last)
			nr_pages_mapped_batch(m, f, nr);	/* atomic_sub_return_relaxed */
	}
	if (last)
		__lruvec_stat_mod_folio(m);	/* __folio_mod_stat: NR_{ANON,FILE}_MAPPED */
	if (last && f->order && (f->flags & FOLIO_ANON))
		queue_deferred_split(m, f);
	if (folio_mapcount(m, f) < 0)
		diag_report(m, PTSIM_DIAG_INVARIANT, folio_pfn(m, f), 3, 0, 0,
			    "folio mapcount below zero after an unmap");
}

/*
 * folio_remove_rmap_pmd: one PMD mapping of f goes (_entire_mapcount).
 * When it was the last, _nr_pages_mapped drops ENTIRELY_MAPPED and the THP
 * is accounted out (NR_ANON_THPS), and its pages as unmapped unless PTEs
 * still map them (ptes_stay: a split mapped them just before).
 */
void folio_remove_rmap_pmd(struct ptsim_mm *mm, struct folio *f, bool ptes_stay)
{
	struct ptsim_machine *m = mm->m;
	int64_t pmd_left;

	kernel_call(m, FOLIO_REMOVE_RMAP_PTES);	/* folio_remove_rmap_pmd */
	folio_mapcount_add(m, f, -1);
	pmd_left = folio_mapcount(m, f) - (ptes_stay ? (int64_t)folio_nr_pages(f) : 0);
	folio_mod_large_mapcount(m, f, false);
	entire_mapcount_atomic(m, f);	/* atomic_add_negative(-1, &folio->_entire_mapcount) */
	if (pmd_left <= 0) {
		nr_pages_mapped_atomic(m, f);
		if (!ptes_stay && folio_mapcount(m, f) <= 0)
			__lruvec_stat_mod_folio(m);	/* NR_ANON_MAPPED */
		__lruvec_stat_mod_folio(m);	/* NR_ANON_THPS */
	}
	if (folio_mapcount(m, f) < 0)
		diag_report(m, PTSIM_DIAG_INVARIANT, folio_pfn(m, f), 2, 0, 0,
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

/* The body of try_to_unmap_flush: complete the deferred TLBIs if any are owed. */
static void tlb_ubc_flush(struct ptsim_machine *m, struct tlbflush_unmap_batch *ubc)
{
	if (!ubc->flush_required)
		return;
	arch_tlbbatch_flush(m);
	ubc->flush_required = false;
	ubc->writable = false;
}

void try_to_unmap_flush(struct ptsim_machine *m, struct tlbflush_unmap_batch *ubc)
{
	kernel_call(m, TRY_TO_UNMAP_FLUSH);
	tlb_ubc_flush(m, ubc);
}

/*
 * try_to_unmap_flush_dirty: a call of its own (v6.12 mm/vmscan.o calls it;
 * mm/rmap.o inlines try_to_unmap_flush into it), which flushes only when a
 * writable entry was unmapped.
 */
void try_to_unmap_flush_dirty(struct ptsim_machine *m, struct tlbflush_unmap_batch *ubc)
{
	kernel_call(m, TRY_TO_UNMAP_FLUSH_DIRTY);
	if (ubc->writable)
		tlb_ubc_flush(m, ubc);
}

/*
 * The swap-format entry of page i of a folio whose offsets start at base
 * (its swap slots, or for a migration entry its frame): the page's
 * exclusivity and the old entry's uffd-wp bit go with it.
 */
static pte_t swap_pte(const struct folio *f, uint64_t i, uint64_t base, pte_t pteval)
{
	pte_t swp = swp_entry_pte(base + i, folio_page_anon_exclusive(f, i));

	if (pte_uffd_wp(pteval))
		swp |= PTE_SWP_UFFD_WP;
	return swp;
}

/*
 * One entry of try_to_migrate_one's walk (v6.12 mm/rmap.c) under a split:
 * page_vma_mapped_walk reads the entry; it is cleared with its TLBI
 * deferred to ubc (unmap_folio's TTU_BATCH_FLUSH, "split_batch_flush",
 * v6.8) or flushed at once before it (ptep_clear_flush); an exclusive
 * page's mark moves into the migration entry (folio_try_share_anon_rmap_pte
 * clears it), the migration entry is written, the page's mapping removed and
 * the mapping's reference dropped. The migration entry is a swap-format
 * entry whose offset is the page's frame; the model keeps no migration
 * type bits, and the split puts the entry back before anything reads it.
 */
pte_t try_to_migrate_one(struct ptsim_mm *mm, struct folio *f, uint64_t i, uint64_t addr,
			 pte_t *ptep, struct tlbflush_unmap_batch *ubc)
{
	struct ptsim_machine *m = mm->m;
	pte_t pteval = ptep_get(mm, ptep);	/* page_vma_mapped_walk's check_pte */
	pte_t swp;

	if (feature(m, PTSIM_FEAT_SPLIT_BATCH_FLUSH)) {
		pteval = ptep_get_and_clear(mm, addr, ptep);
		set_tlb_ubc_flush_pending(mm, ubc, pteval, addr, addr + m->geo.page_size);
	} else {
		pteval = ptep_clear_flush(mm, addr, ptep);
	}
	swp = swap_pte(f, i, folio_pfn(m, f), pteval);	/* before the mark is cleared */
	if (PageAnonExclusive(m, f, i))
		folio_try_share_anon_rmap_ptes(m, f, i, 1);
	set_ptes(mm, addr, ptep, swp, 1);
	folio_remove_rmap_ptes(mm, f, i, 1);
	folio_put_ref(m, f);
	return pteval;
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
 * folio_referenced (v6.12 mm/rmap.c) for a folio one VMA maps: rmap_walk_anon
 * takes the anon_vma's lock through rwc->anon_lock (folio_lock_anon_vma_read:
 * its rwsem, tried), finds the VMA (the interval tree's first, then no
 * next), asks rwc->invalid_vma of it and calls folio_referenced_one through
 * rwc->rmap_one. That walks the folio's entries with page_vma_mapped_walk:
 * one call per mapped entry and one that finds no more; the first maps the
 * table and takes its lock (map_pte, its entry read), each later one reads
 * the next entry (the none test); check_pte reads each and checks it maps
 * the folio; each one's AF is cleared (ptep_clear_flush_young_notify:
 * ptep_clear_flush_young, the notifier's mm_has_notifiers test), a young
 * one's TLB entry invalidated without a DSB. The lock and the RCU read lock
 * go at the last call. A PMD leaf: pmd_lock, pmdp_clear_flush_young, and a
 * second call that finds no more. folio_test_clear_young and folio_clear_idle
 * are empty (CONFIG_PAGE_IDLE_FLAG is off in defconfig).
 */
int folio_referenced(struct ptsim_mm *mm, struct folio *f, uint64_t va, bool pmd)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	unsigned int idx, nr_pages = (unsigned int)folio_nr_pages(f);
	struct pt_table *t = pt_lookup_leaf(mm, va, &idx);
	bool referenced = false;

	kernel_call(m, FOLIO_REFERENCED);
	rmap_walk_anon_calls(m, 1, &(const struct rmap_walk_callbacks){ .anon_lock = true,
									.invalid_vma = true });
	anon_vma_lock_read(m, f->mapping);
	if (pmd) {
		pvmw_next(m);	/* a PMD leaf: no PTE table to map */
		pmd_lock(m);
		referenced = pmdp_clear_flush_young(mm, va, &t->desc[idx]);
		prim_count(m, PRIM_MMU_NOTIFIER_CLEAR_FLUSH_YOUNG, 1);
		pvmw_next(m);
		return referenced;
	}
	pvmw_first(m);
	for (unsigned int i = 0; i < nr_pages; i++) {
		uint64_t a = va + ((uint64_t)i << g->page_shift);
		pte_t *ptep = &t->desc[idx + i];
		pte_t pte = ptep_get(mm, ptep);	/* map_pte's read, or the next entry's none test */

		if (pte_none(pte))
			continue;
		pvmw_check(m);
		pte = ptep_get(mm, ptep);
		if (!pte_present(pte) || pte_pfn(g, pte) != folio_pfn(m, f) + i)
			continue;
		if (ptep_clear_flush_young(mm, a, ptep))
			referenced = true;
		prim_count(m, PRIM_MMU_NOTIFIER_CLEAR_FLUSH_YOUNG, 1);
		pvmw_next(m);	/* the next entry, or none left */
	}
	return referenced;
}

/*
 * folio_unmap_pte_batch: the entries one clear may take. Lazyfree anonymous
 * large folios are batched from v6.15 ("mm: support batched unmap for
 * lazyfree large folios during reclamation", the v6.16 form), swap-backed
 * ones with Dev Jain's posted series ("anon_unmap_batching"); everything
 * else goes one entry at a time.
 */
static unsigned int folio_unmap_pte_batch(struct ptsim_mm *mm, const struct folio *f, pte_t *ptep,
					  pte_t pte, unsigned int max_nr)
{
	const unsigned int kind = f->flags & (FOLIO_ANON | FOLIO_LAZYFREE);
	bool batched = kind == (FOLIO_ANON | FOLIO_LAZYFREE) ?
			       feature(mm->m, PTSIM_FEAT_LAZYFREE_UNMAP_BATCHING) :
			       kind == FOLIO_ANON && feature(mm->m, PTSIM_FEAT_ANON_UNMAP_BATCHING);

	if (!batched || !f->order)
		return 1;
	return folio_pte_batch(mm, f, ptep, pte, max_nr);
}

/*
 * The swap entries of a batch of nr entries from page i of the swap-backed
 * f ("anon_unmap_batching"): per run of pages of equal PageAnonExclusive
 * (page_anon_exclusive_sub_batch, a priced step per further page of the
 * run), the run's swap slots duplicated in one call (folio_dup_swap), an
 * exclusive run's marks cleared (folio_try_share_anon_rmap_ptes), then its
 * swap entries written in one go (the arch's batch store).
 */
static void set_swap_ptes_batched(struct ptsim_mm *mm, struct folio *f, uint64_t i, unsigned int nr,
				  uint64_t addr, pte_t *ptep, uint64_t swap_base, pte_t pteval)
{
	struct ptsim_machine *m = mm->m;
	const unsigned int shift = m->geo.page_shift;

	for (unsigned int j = 0, end; j < nr; j = end) {
		bool excl = PageAnonExclusive(m, f, i + j);

		for (end = j + 1; end < nr && PageAnonExclusive(m, f, i + end) == excl; end++)
			count_loop_path(m, PTSIM_LOOP_PAGE_ANON_EXCLUSIVE_SUB_BATCH_MATCH);
		swap_duplicate(m);
		__set_ptes(mm, addr + ((uint64_t)j << shift), ptep + j, swap_pte(f, i + j, swap_base, pteval),
			   end - j);
		if (excl)
			folio_try_share_anon_rmap_ptes(m, f, i + j, end - j);
	}
}

/*
 * try_to_unmap_one for the one VMA that maps f: per entry (or lazyfree batch)
 * get-and-clear with the flush deferred, then the entry's new value: a swap
 * entry for swap-backed memory (the exclusive bit moves into it), none for
 * a discarded lazyfree or a file page. A lazyfree folio written again since
 * MADV_FREE (or held by GUP: an extra reference) gets its entries back and becomes swap-backed again
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
	kernel_call(m, TRY_TO_UNMAP);
	/* try_to_unmap's rmap_walk_control: folio_lock_anon_vma_read, folio_not_mapped */
	rmap_walk_anon_calls(m, 1, &(const struct rmap_walk_callbacks){ .anon_lock = true,
									.done = true });
	anon_vma_lock_read(m, f->mapping);	/* the folio's anon_vma */
	mmu_notifier_invalidate_range_start(m);
	pvmw_first(m);
	for (unsigned int i = 0; i < nr_pages; i += step) {
		uint64_t a = va + ((uint64_t)i << g->page_shift);
		pte_t *ptep = &t->desc[idx + i];
		pte_t pteval;

		if (i) {
			pvmw_next(m);
			ptep_get(mm, ptep);	/* the walk's none test of the next entry */
		}
		pvmw_check(m);
		pteval = ptep_get(mm, ptep);	/* check_pte's */
		step = folio_unmap_pte_batch(mm, f, ptep, pteval, nr_pages - i);
		pteval = get_and_clear_full_ptes(mm, a, ptep, step, 0);
		set_tlb_ubc_flush_pending(mm, ubc, pteval, a, a + ((uint64_t)step << g->page_shift));
		if (pte_dirty(pteval))
			*dirty = true;	/* folio_mark_dirty */
		if (f->flags & FOLIO_LAZYFREE) {
			/*
			 * the GUP-fast handshake before the references are read
			 * (smp_mb), then smp_rmb before the dirty flag is
			 * (v6.12 try_to_unmap_one)
			 */
			smp_mb(m);
			smp_rmb(m);
		}
		if ((f->flags & FOLIO_LAZYFREE) && (*dirty || f->gup_refs)) {
			set_ptes(mm, a, ptep, pteval, step);
			if (*dirty)
				f->flags &= ~FOLIO_LAZYFREE;	/* folio_set_swapbacked */
			return false;
		}
		if ((f->flags & (FOLIO_ANON | FOLIO_LAZYFREE)) == FOLIO_ANON && step > 1) {
			set_swap_ptes_batched(mm, f, i, step, a, ptep, swap_base, pteval);
		} else if ((f->flags & (FOLIO_ANON | FOLIO_LAZYFREE)) == FOLIO_ANON) {
			swap_duplicate(m);
			set_ptes(mm, a, ptep, swap_pte(f, i, swap_base, pteval), 1);
			/* folio_try_share_anon_rmap_pte of an exclusive page (v6.12 try_to_unmap_one) */
			if (folio_page_anon_exclusive(f, i))
				folio_try_share_anon_rmap_ptes(m, f, i, 1);
		}
		/*
		 * the discard: the mm's counters (a lazyfree or swapped-out page
		 * leaves MM_ANONPAGES, the latter joins MM_SWAPENTS; a file page
		 * leaves MM_FILEPAGES), the rmap, then the mapping's references
		 * (folio_put_refs): per entry, or once per batch
		 */
		if (f->flags & FOLIO_ANON) {
			add_mm_counter(mm, MM_ANONPAGES);
			if (!(f->flags & FOLIO_LAZYFREE))
				add_mm_counter(mm, MM_SWAPENTS);
		} else {
			add_mm_counter(mm, MM_FILEPAGES);
		}
		folio_remove_rmap_ptes(mm, f, i, step);
		folio_put_ref(m, f);
		/* v6.15's batching ends the walk once a batch took the whole folio (walk_done) */
		if (feature(m, PTSIM_FEAT_LAZYFREE_UNMAP_BATCHING) && step == nr_pages)
			return true;
	}
	pvmw_next(m);	/* past the last entry: none */
	return true;
}
