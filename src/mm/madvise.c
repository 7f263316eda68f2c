// SPDX-License-Identifier: MIT
/*
 * madvise (models mm/madvise.c): flag-only advice updates the VMAs
 * (madvise_update_vma); MADV_DONTNEED zaps the range through the teardown
 * path munmap uses, without freeing tables; MADV_FREE and MADV_COLD age the
 * entries (clear_young_dirty_ptes), per folio batch since v6.10; MADV_PAGEOUT
 * isolates the folios the walk finds and reclaims them (vmscan.c);
 * MADV_POPULATE_READ / _WRITE fault the range in through get_user_pages
 * (madvise_populate, src/mm/gup.c) (doc/mm-lifecycle.md).
 */
#include "zap.h"
#include "vmscan.h"
#include "asm/pgtable.h"
#include "asm/tlbflush.h"
#include "pte_batch.h"
#include "primitives.h"

struct madv_flags {
	unsigned int clear, set;
};

static void madvise_flags(struct vma *v, const void *arg)
{
	const struct madv_flags *f = arg;

	v->flags = (v->flags & ~f->clear) | f->set;
}

/* madvise_vma_behavior's new vm_flags for flag-only advice; false for other advice. */
static bool flag_advice(int advice, struct madv_flags *f)
{
	switch (advice) {
	case PTSIM_MADV_NORMAL: *f = (struct madv_flags){ VM_RAND_READ | VM_SEQ_READ, 0 }; break;
	case PTSIM_MADV_RANDOM: *f = (struct madv_flags){ VM_SEQ_READ, VM_RAND_READ }; break;
	case PTSIM_MADV_SEQUENTIAL: *f = (struct madv_flags){ VM_RAND_READ, VM_SEQ_READ }; break;
	case PTSIM_MADV_HUGEPAGE: *f = (struct madv_flags){ VM_NOHUGEPAGE, VM_HUGEPAGE }; break;
	case PTSIM_MADV_NOHUGEPAGE: *f = (struct madv_flags){ VM_HUGEPAGE, VM_NOHUGEPAGE }; break;
	case PTSIM_MADV_DONTFORK: *f = (struct madv_flags){ 0, VM_DONTCOPY }; break;
	case PTSIM_MADV_DOFORK: *f = (struct madv_flags){ VM_DONTCOPY, 0 }; break;
	case PTSIM_MADV_WIPEONFORK: *f = (struct madv_flags){ 0, VM_WIPEONFORK }; break;
	case PTSIM_MADV_KEEPONFORK: *f = (struct madv_flags){ VM_WIPEONFORK, 0 }; break;
	default: return false;
	}
	return true;
}

/*
 * madvise_dontneed_single_vma for every VMA of [start, end): one gather for
 * the call, a notifier range and the zap (with its flush at the VMA's end)
 * per VMA. A PMD THP the range cuts is split, with the tables set aside in
 * spare; the tables stay.
 */
static void madvise_dontneed(struct ptsim_mm *mm, uint64_t start, uint64_t end,
			     struct spare_tables *spare)
{
	struct mmu_gather tlb;

	tlb_gather_mmu(&tlb, mm);
	for (uint64_t a = start; a < end;) {
		const struct vma *v = find_vma(mm, a);
		uint64_t vend = MIN(v->end, end);

		lru_add_drain(mm->m);	/* zap_page_range_single's, per VMA */
		mmu_notifier_invalidate_range_start(mm->m);
		unmap_page_range(&tlb, mm, a, vend, spare);
		a = vend;
	}
	tlb_finish_mmu(&tlb);
}

enum lazy_advice { LAZY_FREE, LAZY_COLD, LAZY_PAGEOUT };

/* The walk's private data (the kernel's struct madvise_walk_private, with FREE's state too). */
struct madvise_walk_private {
	struct ptsim_mm *mm;
	struct mmu_gather *tlb;
	struct spare_tables *spare;
	enum lazy_advice advice;
	struct folio_list isolated;	/* MADV_PAGEOUT's folio_list */
};

/*
 * folio_maybe_mapped_shared: another mm maps f too (the kernel tracks the
 * mms per folio; the model counts mm's own mappings against the mapcount).
 */
static bool folio_maybe_mapped_shared(struct ptsim_mm *mm, const struct folio *f)
{
	return folio_mappings_in(mm, f) != (uint64_t)folio_mapcount(mm->m, f);
}

/*
 * folio_mark_lazyfree (v6.12 mm/swap.c, out of line): an anonymous,
 * swap-backed folio on the LRU, not in the swap cache nor unevictable,
 * goes into this CPU's lru_lazyfree batch, whose move (lru_lazyfree) clears
 * PG_swapbacked so reclaim may drop it instead of swapping it. The model
 * marks it at once (reclaim drains the batches before it looks) and counts
 * the batch's work where the kernel does it.
 */
static void folio_mark_lazyfree(struct ptsim_mm *mm, struct folio *f)
{
	kernel_call(mm->m, FOLIO_MARK_LAZYFREE);
	if (!(f->flags & FOLIO_ANON) || (f->flags & FOLIO_LAZYFREE) || folio_test_swapcache(f) ||
	    (f->flags & FOLIO_MLOCKED))
		return;
	f->flags |= FOLIO_LAZYFREE;
	count_loop_path(mm->m, PTSIM_LOOP_FOLIO_MARK_LAZYFREE_ADD);	/* its tests passed */
	folio_batch_add_and_move(mm->m, folio_pfn(mm->m, f), f->order > 0, LRU_BATCH_LAZYFREE);
}

/*
 * madvise_free_pte_range's test of a folio in the swap cache (v6.12): one
 * that other mappings share stays as it is (its mapcount is not its page
 * count), since clearing it would lose what they read; an exclusive one
 * leaves the swap cache (folio_free_swap -> delete_from_swap_cache) and is
 * freed lazily like any other. folio_free_swap also fails while another
 * swap entry still refers to the slot (folio_swapped); the model keeps no
 * shared slots (each swap entry is read back into a folio of its own), so
 * that case does not arise here. True when the folio may be marked lazyfree.
 */
static bool madvise_free_swapcache(struct ptsim_mm *mm, struct folio *f)
{
	struct ptsim_machine *m = mm->m;

	if (!folio_test_swapcache(f))
		return true;
	if (!folio_trylock(m, f))
		return false;
	if ((uint64_t)folio_mapcount(m, f) != folio_nr_pages(f)) {
		folio_unlock(m, f);
		return false;
	}
	kernel_call(m, FOLIO_FREE_SWAP);
	delete_from_swap_cache(m, f);
	folio_flag_atomic(m, PRIM_FOLIO_SET_DIRTY, f);
	folio_unlock(m, f);
	return true;
}

/*
 * One entry (or folio batch) of madvise_free_pte_range or
 * madvise_cold_or_pageout_pte_range: FREE makes young or dirty entries old
 * and clean (lazily freeable), COLD makes young ones old, PAGEOUT leaves
 * them and isolates the folio for reclaim.
 */
static void madvise_update_ptes(struct madvise_walk_private *w, struct folio *f, pte_t *ptep,
				pte_t ptent, uint64_t addr, unsigned int nr, bool batching,
				bool priced)
{
	struct ptsim_mm *mm = w->mm;
	const struct ptsim_geometry *g = &mm->m->geo;

	if (w->advice == LAZY_PAGEOUT) {
		/* before v6.9 PAGEOUT makes a young entry old first, as COLD does */
		if (!feature(mm->m, PTSIM_FEAT_PAGEOUT_IGNORE_REFERENCES) && pte_young(ptent)) {
			clear_young_dirty_ptes(mm, addr, ptep, nr, CYDP_CLEAR_YOUNG);
			tlb_flush_pte_range(w->tlb, addr, (uint64_t)nr << g->page_shift);
			priced = false;	/* not v6.12's turn */
		}
		folio_clear_referenced(mm->m);
		if (folio_isolate_lru(mm, &w->isolated, f, addr, false) && priced)
			count_loop_path(mm->m, PTSIM_LOOP_MADVISE_PAGEOUT);
		return;
	}
	if (w->advice == LAZY_COLD) {
		if (pte_young(ptent)) {
			clear_young_dirty_ptes(mm, addr, ptep, nr, CYDP_CLEAR_YOUNG);
			tlb_flush_pte_range(w->tlb, addr, (uint64_t)nr << g->page_shift);
			if (priced)
				count_loop_path(mm->m, PTSIM_LOOP_MADVISE_COLD_YOUNG);
		}
		folio_clear_referenced(mm->m);
		folio_deactivate(mm->m);
		return;
	}
	folio_mark_lazyfree(mm, f);
	if (!pte_young(ptent) && !pte_dirty(ptent))
		return;
	if (batching) {
		clear_young_dirty_ptes(mm, addr, ptep, nr, CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY);
		if (priced)
			count_loop_path(mm->m, PTSIM_LOOP_MADVISE_FREE_YOUNG_DIRTY);
	} else {
		/* before v6.10: ptep_get_and_clear_full, mkold, mkclean, set_pte_at */
		ptent = ptep_get_and_clear(mm, addr, ptep);
		set_ptes(mm, addr, ptep, pte_mkclean(pte_mkold(ptent)), 1);
	}
	tlb_flush_pte_range(w->tlb, addr, (uint64_t)nr << g->page_shift);
}

/*
 * The PTE-table walk of MADV_COLD and MADV_PAGEOUT
 * (madvise_cold_or_pageout_pte_range) and of MADV_FREE (madvise_free_pte_range,
 * a function of its own in the kernel with the same shape). A large folio
 * the range (or a bit difference) cuts is split and the address revisited;
 * before v6.10 MADV_FREE split every large folio and gave up on the table at
 * a shared one. COLD and PAGEOUT leave a folio others map too alone.
 */
static void madvise_cold_or_pageout_pte_range(struct madvise_walk_private *w, struct pt_table *t,
					      uint64_t addr, uint64_t end)
{
	struct ptsim_mm *mm = w->mm;
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	bool free = w->advice == LAZY_FREE;
	bool batching = !free || feature(m, PTSIM_FEAT_MADV_FREE_PTE_BATCHING);
	unsigned int nr;

	pte_offset_map_lock(m);
	flush_tlb_batched_pending(mm);
	arch_enter_lazy_mmu_mode(m);
	for (; addr < end; addr += (uint64_t)nr << g->page_shift) {
		pte_t *ptep = &t->desc[pt_index(g, PTE_LEVEL, addr)];
		pte_t ptent;
		struct page_ref ref;

		nr = 1;
		pte_loop_step(m);
		ptent = ptep_get(mm, ptep);
		if (pte_none(ptent))
			continue;
		if (!pte_present(ptent)) {
			/* a PTE marker is a non_swap_entry: madvise_free_pte_range leaves it */
			if (free && is_swap_pte(ptent) && !is_pte_marker(ptent)) {
				free_swap_and_cache_nr(m);
				set_desc(mm, addr, PTE_LEVEL, ptep, 0);		/* clear_not_present_full_ptes */
			}
			continue;
		}
		ref = vm_normal_page(mm, ptent);	/* vm_normal_folio */
		if (!ref.folio)
			continue;
		if (folio_test_large(m, ref.folio)) {
			int err;

			if (batching) {
				nr = folio_pte_batch_flags(mm, ref.folio, ptep, &ptent,
							   (unsigned int)((end - addr) >> g->page_shift),
							   FPB_MERGE_YOUNG_DIRTY);
				if (nr == folio_nr_pages(ref.folio))
					goto whole;
			}
			if (folio_maybe_mapped_shared(mm, ref.folio)) {
				if (!batching)
					return;
				continue;
			}
			if (!folio_trylock(m, ref.folio)) {
				if (!batching)
					return;
				continue;
			}
			err = split_folio(mm, ref.folio);
			folio_unlock(m, ref.folio);
			if (!err)
				folio_put_unmapped(mm, ref.folio);
			/*
			 * The table was unmapped and unlocked for the split;
			 * madvise_cold_or_pageout_pte_range and madvise_free_pte_range
			 * (v6.12) map and lock it again, flush what reclaim
			 * batched, and enter lazy MMU mode again.
			 */
			pte_offset_map_lock(m);
			flush_tlb_batched_pending(mm);
			arch_enter_lazy_mmu_mode(m);
			if (err) {
				if (!batching)
					return;
				continue;
			}
			nr = 0;	/* revisit the address: the pages are order-0 now */
			continue;
		}
whole:
		/* a large folio here is mapped whole: its mapcount says whether only here */
		if (!free && (uint64_t)folio_mapcount(mm->m, ref.folio) != folio_nr_pages(ref.folio))
			continue;
		/*
		 * the priced turns (v6.12's, doc/loop-prices.md): an order-0
		 * folio, and for FREE one outside the swap cache
		 */
		bool priced = !ref.folio->order && !(free && folio_test_swapcache(ref.folio));

		if (free && !madvise_free_swapcache(mm, ref.folio))
			continue;
		madvise_update_ptes(w, ref.folio, ptep, ptent, addr, nr, batching, priced);
	}
}

/*
 * madvise_free_huge_pmd and madvise_cold_or_pageout_pte_range's PMD case: a THP the range
 * covers whole is invalidated (flushed) and rewritten old (and clean for
 * FREE); PAGEOUT then reclaims it at once. A cut one is split first.
 */
static bool madvise_huge_pmd(struct madvise_walk_private *w, struct pt_table *t, unsigned int idx,
			     uint64_t addr, uint64_t next)
{
	struct ptsim_mm *mm = w->mm;
	const struct ptsim_geometry *g = &mm->m->geo;
	pte_t pmd = read_desc(mm, PMD_LEVEL, &t->desc[idx]);
	struct page_ref ref = vm_normal_page(mm, pmd);

	if (next - addr != g->pmd_size) {
		split_huge_pmd_spare(mm, t, ALIGN_DOWN64(addr, g->pmd_size), w->spare);
		return false;
	}
	if (!ref.folio || folio_mapcount(mm->m, ref.folio) != 1)
		return true;
	if (w->advice == LAZY_FREE)
		folio_mark_lazyfree(mm, ref.folio);
	/* PAGEOUT leaves the AF since v6.9 ("pageout_ignore_references") */
	bool clear_young = w->advice != LAZY_PAGEOUT ||
			   !feature(mm->m, PTSIM_FEAT_PAGEOUT_IGNORE_REFERENCES);

	if ((clear_young && pte_young(pmd)) || (w->advice == LAZY_FREE && pte_dirty(pmd))) {
		pmd = pte_mkold(pmd);
		if (w->advice == LAZY_FREE)
			pmd = pte_mkclean(pmd);
		pmdp_invalidate(mm, addr, &t->desc[idx], pmd);
		set_pmd_at(mm, addr, &t->desc[idx], pmd);
		tlb_flush_pmd_range(w->tlb, addr, g->pmd_size);
	}
	if (w->advice != LAZY_FREE)
		folio_clear_referenced(mm->m);
	if (w->advice == LAZY_PAGEOUT && folio_isolate_lru(mm, &w->isolated, ref.folio, addr, true))
		reclaim_pages(mm, &w->isolated);
	else if (w->advice == LAZY_COLD)
		folio_deactivate(mm->m);
	return true;
}

/*
 * MADV_FREE / MADV_COLD / MADV_PAGEOUT over [start, end), as walk_page_range
 * with the advice's ops (madvise_free_single_vma, madvise_cold_page_range,
 * madvise_pageout_page_range): one gather per VMA,
 * flushed at its end; PAGEOUT reclaims what it isolated after each PTE table.
 */
static void madvise_walk_page_range(struct ptsim_mm *mm, uint64_t start, uint64_t end,
				    enum lazy_advice advice, struct spare_tables *spare)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	struct mmu_gather tlb;
	struct madvise_walk_private w = { .mm = mm, .tlb = &tlb, .spare = spare, .advice = advice };

	for (uint64_t a = start; a < end;) {
		const struct vma *v = find_vma(mm, a);
		uint64_t vend = MIN(v->end, end);

		/* madvise_free_single_vma, madvise_cold and madvise_pageout: each VMA's walk */
		lru_add_drain(mm->m);
		tlb_gather_mmu(&tlb, mm);
		mmu_notifier_invalidate_range_start(mm->m);
		tlb_start_vma(&tlb);
		for (uint64_t addr = a; (addr = pt_next_pmd_used(mm, addr, vend)) < vend;) {
			uint64_t next = MIN(ALIGN_DOWN64(addr, g->pmd_size) + g->pmd_size, vend);
			int err;
			struct pt_table *t = pt_walk_table(mm, addr, PMD_LEVEL, false, &err);
			unsigned int idx = pt_index(g, PMD_LEVEL, addr);

			pmd_loop_step(mm->m);
			if (t && pmd_is_leaf(t, idx) && madvise_huge_pmd(&w, t, idx, addr, next)) {
				/* MADV_FREE's huge PMD returns before the cond_resched */
				if (advice != LAZY_FREE)
					cond_resched(mm->m, 1);
				addr = next;
				continue;
			}
			if (t && t->next[idx])
				madvise_cold_or_pageout_pte_range(&w, t->next[idx], addr, next);
			reclaim_pages(mm, &w.isolated);
			/* the pmd_entry callback's cond_resched at its end (v6.12 madvise.c) */
			cond_resched(mm->m, 1);
			addr = next;
		}
		tlb_end_vma(&tlb);
		tlb_finish_mmu(&tlb);
		a = vend;
	}
	folio_list_free(&w.isolated);
}

/*
 * MADV_POPULATE_READ / _WRITE (do_madvise's madvise_populate, under the
 * mmap read lock): the faults it makes, and what they mapped before an
 * error, stay, as in the kernel; the totals count them. Only a populate
 * whose zero-page tables alone would pass host_memory_limit fails before
 * it starts (-ENOMEM, nothing changed).
 */
static int madvise_populate_range(struct ptsim_mm *mm, uint64_t start, uint64_t end, bool write)
{
	int err;

	if (!madvise_populate_fits_host(mm, start, end, write))
		return -ENOMEM;
	op_begin(mm->m);
	syscall_enter(mm->m);
	mmap_read_lock(mm);	/* madvise_lock: POPULATE does not need the write lock */
	err = madvise_populate(mm, start, end, write);
	op_end(mm->m, 0);
	return err;
}

int ptsim_madvise(struct ptsim_mm *mm, uint64_t start, uint64_t len, int advice)
{
	struct spare_tables spare;
	struct madv_flags f = { 0, 0 };	/* set by flag_advice; gcc cannot see it through the pointer */
	bool flags_only, populate, hole, any = false;
	uint64_t end;
	int err = 0;

	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	flags_only = flag_advice(advice, &f);
	populate = advice == PTSIM_MADV_POPULATE_READ || advice == PTSIM_MADV_POPULATE_WRITE;
	if (!flags_only && !populate && advice != PTSIM_MADV_DONTNEED && advice != PTSIM_MADV_FREE &&
	    advice != PTSIM_MADV_COLD && advice != PTSIM_MADV_PAGEOUT)
		return -EINVAL;
	/*
	 * do_madvise: start must be aligned, len is rounded up to pages (one
	 * that wraps is -EINVAL) and an empty range succeeds doing nothing.
	 */
	VALIDATE(IS_ALIGNED64(start, mm->m->geo.page_size) && start + len >= start);
	end = ALIGN_UP64(start + len, mm->m->geo.page_size);
	VALIDATE(end > start || !len);
	len = end - start;
	if (!len) {
		op_begin(mm->m);
		syscall_enter(mm->m);
		op_end(mm->m, 0);
		return 0;
	}
	if (populate)
		return madvise_populate_range(mm, start, start + len,
					      advice == PTSIM_MADV_POPULATE_WRITE);
	/*
	 * A hole in the range is -ENOMEM. madvise_walk_vmas (v6.12) applies the
	 * advice to every VMA of the range, skipping the holes, and returns
	 * -ENOMEM at the end (unmapped_error); a range with no VMA at all is
	 * -ENOMEM with nothing done. The model does that with kernel_errors on;
	 * by default a hole changes nothing.
	 */
	hole = covered_end(mm, start, end) < end;
	if (hole && !mm->kernel_errors)
		return -ENOMEM;
	for (size_t i = 0; i < mm->nr_vmas && mm->vmas[i].start < end; i++) {
		const struct vma *v = &mm->vmas[i];

		if (v->end <= start)
			continue;
		any = true;
		/*
		 * WIPEONFORK and FREE only on private anonymous memory; DONTNEED,
		 * FREE, COLD and PAGEOUT not on locked VMAs
		 */
		if (((advice == PTSIM_MADV_WIPEONFORK || advice == PTSIM_MADV_FREE) &&
		     (v->fd >= 0 || (v->flags & VM_SHARED))) ||
		    (!flags_only && (v->flags & VM_LOCKED)))
			return -EINVAL;
	}
	if (!any)
		return -ENOMEM;
	op_begin(mm->m);
	syscall_enter(mm->m);
	/* madvise_lock: the advice that changes VMA flags writes (madvise_need_mmap_write) */
	if (flags_only)
		mmap_write_lock(mm);
	else
		mmap_read_lock(mm);
	/* each run of VMAs without a hole in turn (one run when there is no hole) */
	for (uint64_t a = start, b; a < end && !err; a = b) {
		size_t i = 0;

		while (i < mm->nr_vmas && mm->vmas[i].end <= a)
			i++;
		if (i == mm->nr_vmas)
			break;
		a = MAX(a, mm->vmas[i].start);
		if (a >= end)
			break;
		b = covered_end(mm, a, end);
		if (flags_only) {
			err = vma_modify(mm, a, b, madvise_flags, &f);	/* madvise_update_vma */
		} else {
			err = spare_tables_alloc(mm, &spare, a, b);
			if (!err) {
				if (advice == PTSIM_MADV_DONTNEED)
					madvise_dontneed(mm, a, b, &spare);
				else
					madvise_walk_page_range(mm, a, b,
								advice == PTSIM_MADV_FREE ? LAZY_FREE :
								advice == PTSIM_MADV_COLD ? LAZY_COLD :
								LAZY_PAGEOUT, &spare);
				spare_tables_free(mm, &spare);
			}
		}
		if (!err && b < end)
			op_keep_partial(mm->m);	/* the kernel keeps what it did before a failure */
	}
	if (!err && hole) {
		op_keep_partial(mm->m);
		err = -ENOMEM;
	}
	op_end(mm->m, err);
	return err;
}
