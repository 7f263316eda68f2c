// SPDX-License-Identifier: MIT
/*
 * Reclaim of the folios MADV_PAGEOUT isolates (models folio_isolate_lru,
 * reclaim_pages and shrink_folio_list in mm/vmscan.c). The model's swap
 * device always has room and completes a write before it returns (as zram,
 * a SWP_SYNCHRONOUS_IO device, does), so a swapped-out folio is freed in the
 * same pass. Large anonymous folios go to swap whole (THP_SWAP; PTE-mapped
 * mTHP since v6.10), a PMD-mapped one after its PMD is split. Clean file
 * folios leave the page cache; dirty ones are only unmapped, because direct
 * reclaim leaves file writeback to the flusher. Shmem folios stay where they
 * are, mapped and in their object: the kernel would unmap them and move them
 * to swap (shmem_writeout), which the model does not do (doc/mm-lifecycle.md).
 */
#include "vmscan.h"
#include "filemap.h"
#include "asm/pgtable.h"
#include "primitives.h"

#include <stdlib.h>

bool folio_isolate_lru(struct ptsim_mm *mm, struct folio_list *l, struct folio *f, uint64_t va,
		       bool pmd)
{
	folio_isolate_lru_counts(mm->m, folio_pfn(mm->m, f));
	if (f->flags & FOLIO_MLOCKED) {
		folio_putback_lru(mm->m, folio_pfn(mm->m, f), f->order > 0);	/* unevictable: put back at once */
		return false;
	}
	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct isolated_folio *e = realloc(l->e, cap * sizeof(*e));

		if (!e)
			return false;
		l->e = e;
		l->cap = cap;
	}
	l->e[l->nr++] = (struct isolated_folio){ .folio = f, .va = va, .pmd = pmd };
	return true;
}

void folio_list_free(struct folio_list *l)
{
	free(l->e);
	*l = (struct folio_list){ 0 };
}

/*
 * try_to_unmap's TTU_SPLIT_HUGE_PMD: the PMD leaf at haddr becomes a PTE
 * table first. The kernel uses the table deposited at fault time; the model
 * allocates one, and keeps the folio mapped when it cannot.
 */
static bool split_huge_pmd_for_unmap(struct ptsim_mm *mm, uint64_t haddr)
{
	unsigned int idx;
	struct pt_table *pmd_table = pt_lookup_leaf(mm, haddr, &idx);
	struct pt_table *pte_table;

	if (pt_table_alloc(mm, PTE_LEVEL, &pte_table))
		return false;
	__split_huge_pmd_locked(mm, pmd_table, haddr, pte_table);
	return true;
}

/* __remove_mapping for a clean page-cache folio: its pages leave the file's cache. */
static void remove_from_page_cache(struct ptsim_machine *m, const struct folio *f)
{
	struct file_obj *file = &m->files[f->mapping & ~FILE_MAPPING(0)];

	__filemap_remove_folio(m);
	for (uint64_t i = 0; i < folio_nr_pages(f); i++)
		u64map_del(&file->cache, f->index + i);
}

/*
 * pageout (v6.12 mm/vmscan.c, inline in shrink_folio_list) of a dirty
 * swap-cache folio: is_page_cache_freeable's reference test, PG_dirty
 * cleared for the write (folio_clear_dirty_for_io), PG_reclaim set, the
 * write (swap_writepage unlocks the folio), PG_reclaim cleared again once
 * the write has ended, NR_VMSCAN_WRITE. Returns PAGE_SUCCESS; false when
 * swap_writepage kept the zero-filled folio as zeromap bits unwritten.
 */
static bool pageout(struct ptsim_machine *m, struct folio *f)
{
	bool written;

	prim_count(m, PRIM_IS_PAGE_CACHE_FREEABLE, 1);
	kernel_call(m, FOLIO_CLEAR_DIRTY_FOR_IO);
	kernel_call(m, FOLIO_MAPPING);
	kernel_call(m, INODE_TO_BDI);
	folio_flag_atomic(m, PRIM_FOLIO_TEST_CLEAR_DIRTY, f);
	folio_flag_atomic(m, PRIM_FOLIO_SET_RECLAIM, f);
	written = swap_writepage(m, f);
	prim_count(m, PRIM_FOLIO_TEST_WRITEBACK, 1);
	folio_flag_atomic(m, PRIM_FOLIO_CLEAR_RECLAIM, f);
	prim_count(m, PRIM_MOD_NODE_PAGE_STATE, 1);	/* node_stat_add_folio(NR_VMSCAN_WRITE) */
	return written;
}

/*
 * __remove_mapping (v6.12 mm/vmscan.c) of a written swap-cache folio: under
 * the swap cache's lock, its references frozen (the isolation's and the
 * swap cache's, one per page), PG_dirty tested, a shadow entry made
 * (workingset_eviction), the folio out of the swap cache, the memcg's swap
 * accounting (cgroup v2: mem_cgroup_swapout returns at once), then the
 * slots' SWAP_HAS_CACHE dropped.
 */
static void __remove_mapping_swapcache(struct ptsim_machine *m, struct folio *f)
{
	kernel_call(m, REMOVE_MAPPING);
	kernel_call(m, FOLIO_MAPPING);
	prim_count(m, PRIM_FOLIO_REF_FREEZE, 1);
	prim_count(m, PRIM_FOLIO_TEST_DIRTY, 1);
	kernel_call(m, WORKINGSET_EVICTION);
	__delete_from_swap_cache(m, f);
	kernel_call(m, MEM_CGROUP_SWAPOUT);
	kernel_call(m, PUT_SWAP_FOLIO);
}

/*
 * folio_check_references (v6.8 mm/vmscan.c, inline in shrink_folio_list)
 * before v6.9 ("pageout_ignore_references"): folio_referenced, then
 * PG_referenced tested and cleared; a young mapping keeps the folio (it is
 * marked referenced, FOLIOREF_KEEP, or activated when it was marked
 * already). From v6.9 MADV_PAGEOUT's reclaim ignores references (true).
 */
static bool folio_check_references(struct ptsim_mm *mm, const struct isolated_folio *e)
{
	int referenced_ptes;

	if (feature(mm->m, PTSIM_FEAT_PAGEOUT_IGNORE_REFERENCES))
		return true;
	referenced_ptes = folio_referenced(mm, e->folio, e->va, e->pmd);
	/* PG_referenced: madvise cleared it (folio_clear_referenced), so one young VMA keeps */
	prim_count(mm->m, PRIM_FOLIO_TEST_CLEAR_REFERENCED, 1);
	if (!referenced_ptes)
		return true;	/* FOLIOREF_RECLAIM */
	prim_count(mm->m, PRIM_FOLIO_SET_REFERENCED, 1);
	return false;	/* FOLIOREF_KEEP */
}

/* The body of shrink_folio_list's loop for one folio; true when it is to be freed. */
static bool shrink_one_folio(struct ptsim_mm *mm, const struct isolated_folio *e,
			     struct tlbflush_unmap_batch *ubc)
{
	struct ptsim_machine *m = mm->m;
	struct folio *f = e->folio;
	bool anon = f->flags & FOLIO_ANON, lazyfree = f->flags & FOLIO_LAZYFREE;
	bool dirty = false, freed = false;
	uint64_t swap_base = 0;

	cond_resched(m, 1);
	if (!folio_trylock(m, f))
		return false;	/* keep: someone holds the lock */
	if (folio_is_shmem(m, f))
		goto keep;	/* shmem swap-out is not modelled */
	if (!folio_check_references(mm, e))
		goto keep;
	if (anon && !lazyfree) {
		if (f->gup_refs)
			goto keep;	/* folio_maybe_dma_pinned, or a FOLL_GET reference __remove_mapping's freeze would meet */
		if (!folio_test_swapcache(f))
			add_to_swap(m, f);	/* one read back from swap keeps its place */
		swap_base = mm->next_swap_offset + 1;
		mm->next_swap_offset += folio_nr_pages(f);
	}
	if (e->pmd && !split_huge_pmd_for_unmap(mm, e->va))
		goto keep;
	if (!try_to_unmap(mm, f, e->va, swap_base, ubc, &dirty))
		goto keep;
	if (anon && !lazyfree) {
		/* in the swap cache the folio is dirty: pageout writes it whole */
		try_to_unmap_flush_dirty(m, ubc);
		if (!pageout(m, f))	/* the zeromap has the slots: a swap-in reads nothing */
			for (uint64_t i = 0; i < folio_nr_pages(f); i++)
				(void)u64map_put(&mm->zero_swap, swap_base + i, 1);
		/* the write was synchronous: neither under writeback nor dirty, so the folio goes now */
		prim_count(m, PRIM_FOLIO_TEST_WRITEBACK, 1);
		prim_count(m, PRIM_FOLIO_TEST_DIRTY, 1);
		if (!folio_trylock(m, f))
			return false;	/* keep: someone took the lock while it was written */
		prim_count(m, PRIM_FOLIO_TEST_DIRTY, 1);
		prim_count(m, PRIM_FOLIO_TEST_WRITEBACK, 1);
		kernel_call(m, FOLIO_MAPPING);
		__remove_mapping_swapcache(m, f);
		freed = true;
	} else if (!anon) {
		if (f->gup_refs)
			goto keep;	/* unmapped, but pinned or referenced (__remove_mapping's freeze fails) */
		if (!dirty)
			remove_from_page_cache(m, f);
		freed = !dirty;
	} else {
		/*
		 * lazyfree, still clean: discarded. Its references frozen
		 * (folio_ref_freeze to the isolation's one), PGLAZYFREED for
		 * the CPU and the memcg (count_memcg_folio_events)
		 */
		prim_count(m, PRIM_FOLIO_REF_FREEZE, 1);
		prim_count(m, PRIM_COUNT_VM_EVENTS, 1);
		kernel_call(m, COUNT_MEMCG_EVENTS);
		freed = true;
	}
keep:
	folio_unlock(m, f);
	return freed;
}

/*
 * The folios shrink_folio_list frees go into a folio_batch; each time it
 * fills (PAGEVEC_SIZE), and once more at the end, the batch is uncharged
 * (mem_cgroup_uncharge_folios), the deferred flush completed
 * (try_to_unmap_flush) and the folios freed (free_unref_folios): three
 * calls a batch. Before v6.9 ("large_folio_batch_free") only the order-0
 * folios wait, on one list freed at the end (mem_cgroup_uncharge_list,
 * free_unref_page_list); a large one is freed at once (destroy_large_folio,
 * folio_free's part).
 */
static void free_folio_batch(struct ptsim_machine *m, struct tlbflush_unmap_batch *ubc,
			     bool any, bool any_pcp)
{
	bool batched = feature(m, PTSIM_FEAT_LARGE_FOLIO_BATCH_FREE);

	if (batched)
		kernel_call(m, MEM_CGROUP_UNCHARGE_FOLIOS);
	else
		kernel_call(m, MEM_CGROUP_UNCHARGE_LIST);
	if (any)
		uncharge_batch(m);	/* the folios' uncharge_folio: folio_free */
	try_to_unmap_flush(m, ubc);
	if (batched)
		kernel_call(m, FREE_UNREF_FOLIOS);
	else
		kernel_call(m, FREE_UNREF_PAGE_LIST);
	if (any_pcp)
		free_batch_pcp_lock(m);	/* each folio's own work: folio_free */
}

/*
 * shrink_folio_list (v6.12 mm/vmscan.c): each folio reclaimed or kept
 * (a cond_resched each); the deferred flush completes before any folio is
 * freed. The folios kept are left at the front of l.
 */
static void shrink_folio_list(struct ptsim_mm *mm, struct folio_list *l)
{
	struct tlbflush_unmap_batch ubc = { 0 };
	bool batched = feature(mm->m, PTSIM_FEAT_LARGE_FOLIO_BATCH_FREE);
	size_t nr_kept = 0, nr_free = 0, nr_pcp = 0;	/* nr_pcp: in the batch being filled */

	for (size_t i = 0; i < l->nr; i++) {
		struct isolated_folio e = l->e[i];

		if (!shrink_one_folio(mm, &e, &ubc)) {
			l->e[nr_kept++] = e;
			continue;
		}
		if (batched || !folio_test_large(mm->m, e.folio)) {
			nr_free++;	/* the folio joins the batch (the list before v6.9) */
			nr_pcp += pcp_allowed_order(mm->m, e.folio->order);
		}
		if (batched && nr_free % PAGEVEC_SIZE == 0) {
			free_folio_batch(mm->m, &ubc, true, nr_pcp);
			nr_pcp = 0;
		}
		mm->m->free_batched = true;
		folio_free(mm->m, e.folio);	/* after the batch's flush, as the kernel frees it */
		mm->m->free_batched = false;
	}
	free_folio_batch(mm->m, &ubc, batched ? nr_free % PAGEVEC_SIZE != 0 : nr_free != 0, nr_pcp);
	l->nr = nr_kept;
}

/*
 * reclaim_pages (v6.12 mm/vmscan.c) of the folios MADV_PAGEOUT isolated:
 * each folio's PG_active cleared as it joins its node's list, then
 * reclaim_folio_list: shrink_folio_list, and each folio it kept put back
 * on the LRU (folio_putback_lru). Nothing isolated, nothing done.
 */
void reclaim_pages(struct ptsim_mm *mm, struct folio_list *l)
{
	if (!l->nr)
		return;
	prim_count(mm->m, PRIM_FOLIO_CLEAR_ACTIVE, l->nr);
	shrink_folio_list(mm, l);
	for (size_t i = 0; i < l->nr; i++)
		folio_putback_lru(mm->m, folio_pfn(mm->m, l->e[i].folio), l->e[i].folio->order > 0);
	l->nr = 0;
}
