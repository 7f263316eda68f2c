// SPDX-License-Identifier: MIT
/*
 * The mmu_gather: range accumulation, the page and table batches, and arm64's
 * deferred flush (models mm/mmu_gather.c, include/asm-generic/tlb.h and
 * arch/arm64/include/asm/tlb.h; doc/mm-lifecycle.md).
 */
#include "mmu_gather.h"
#include "asm/tlbflush.h"
#include "primitives.h"

/* MMU_GATHER_BUNDLE: the on-stack batch's slots. */
#define GATHER_BUNDLE 8u

/* MAX_GATHER_BATCH: slots in one batch page (a page less the batch header). */
static unsigned int max_gather_batch(const struct ptsim_geometry *g)
{
	return (unsigned int)((g->page_size - 16) / 8);
}

/* MAX_GATHER_BATCH_COUNT: batch pages one gather may allocate. */
static unsigned int max_gather_batch_count(const struct ptsim_geometry *g)
{
	return 10000u / max_gather_batch(g);
}

/* MAX_TABLE_BATCH: tables in one table-batch page (RCU head and count first). */
static unsigned int max_table_batch(const struct ptsim_geometry *g)
{
	return (unsigned int)((g->page_size - 24) / 8);
}

/* __tlb_reset_range */
static void tlb_reset_range(struct mmu_gather *tlb)
{
	tlb->start = UINT64_MAX;
	tlb->end = 0;
	tlb->freed_tables = false;
	tlb->cleared_ptes = tlb->cleared_pmds = tlb->cleared_puds = false;
}

static void gather_init(struct mmu_gather *tlb, struct ptsim_mm *mm, bool fullmm)
{
	tlb->mm = mm;
	tlb->fullmm = fullmm;
	tlb->delayed_rmap = false;
	tlb->active = tlb->active_nr = tlb->batch_count = 0;
	tlb->nr_tables = 0;
	tlb->put_nr = tlb->put_last = tlb->put_last_large = tlb->put_last_pcp = 0;
	tlb_reset_range(tlb);
	mm->tlb_flush_pending = true;	/* inc_tlb_flush_pending */
}

void tlb_gather_mmu(struct mmu_gather *tlb, struct ptsim_mm *mm)
{
	gather_init(tlb, mm, false);
}

void tlb_gather_mmu_fullmm(struct mmu_gather *tlb, struct ptsim_mm *mm)
{
	gather_init(tlb, mm, true);
}

static void widen(struct mmu_gather *tlb, uint64_t addr, uint64_t size)
{
	__tlb_adjust_range(tlb->mm->m);
	tlb->start = MIN(tlb->start, addr);
	tlb->end = MAX(tlb->end, addr + size);
}

void tlb_flush_pte_range(struct mmu_gather *tlb, uint64_t addr, uint64_t size)
{
	widen(tlb, addr, size);
	tlb->cleared_ptes = true;
}

void tlb_flush_pmd_range(struct mmu_gather *tlb, uint64_t addr, uint64_t size)
{
	widen(tlb, addr, size);
	tlb->cleared_pmds = true;
}

void tlb_flush_pud_range(struct mmu_gather *tlb, uint64_t addr, uint64_t size)
{
	widen(tlb, addr, size);
	tlb->cleared_puds = true;
}

/* arm64 tlb_flush: a last-level range flush with the smallest cleared stride and a TTL hint. */
static void tlb_flush(struct mmu_gather *tlb)
{
	const struct ptsim_geometry *g = &tlb->mm->m->geo;
	bool last_level = !tlb->freed_tables;
	uint64_t stride;
	int level;

	if (tlb->fullmm) {
		/* the ASID is never reused without a full invalidation: only tables matter */
		if (!last_level)
			flush_tlb_mm(tlb->mm);
		return;
	}
	/* tlb_get_unmap_size: the smallest level cleared; the page size when none was */
	if (tlb->cleared_ptes)
		stride = g->page_size;
	else if (tlb->cleared_pmds)
		stride = g->pmd_size;
	else if (tlb->cleared_puds)
		stride = g->pud_size;
	else
		stride = g->page_size;
	/* arm64 tlb_get_level: a TTL hint only for leaves of one level, never with freed tables */
	if (tlb->freed_tables)
		level = TLBI_TTL_UNKNOWN;
	else if (tlb->cleared_ptes && !tlb->cleared_pmds && !tlb->cleared_puds)
		level = 3;
	else if (tlb->cleared_pmds && !tlb->cleared_ptes && !tlb->cleared_puds)
		level = 2;
	else if (tlb->cleared_puds && !tlb->cleared_ptes && !tlb->cleared_pmds)
		level = 1;
	else
		level = TLBI_TTL_UNKNOWN;
	__flush_tlb_range(tlb->mm, tlb->start, tlb->end, stride, last_level, level);
}

void tlb_flush_mmu_tlbonly(struct mmu_gather *tlb)
{
	if (!(tlb->freed_tables || tlb->cleared_ptes || tlb->cleared_pmds || tlb->cleared_puds))
		return;
	fn_enter(tlb->mm->m, PTSIM_FN_TLB_FLUSH_MMU);
	tlb_flush(tlb);
	fn_exit(tlb->mm->m);
	tlb_reset_range(tlb);
}

/* tlb_next_batch: move to the next batch page, allocating it if the gather may. */
static bool tlb_next_batch(struct mmu_gather *tlb)
{
	const struct ptsim_geometry *g = &tlb->mm->m->geo;

	/* with a delayed rmap pending, no batch beyond the first page (the rmaps must go first) */
	if (tlb->delayed_rmap && tlb->active > 0)
		return false;
	if (tlb->active < tlb->batch_count) {
		tlb->active++;
		tlb->active_nr = 0;
		return true;
	}
	if (tlb->batch_count == max_gather_batch_count(g))
		return false;
	tlb_batch_page_alloc(tlb->mm->m);
	tlb->batch_count++;
	tlb->active = tlb->batch_count;
	tlb->active_nr = 0;
	return true;
}

/*
 * folios_put_refs (v6.12 mm/swap.c) over one folio_batch of the gathered
 * entries (free_pages_and_swap_cache fills it, PAGEVEC_SIZE at most, after
 * its inline free_swap_cache test of each): each
 * entry's references dropped (folio_ref_sub_and_test); a folio that lost
 * its last leaves the LRU (__page_cache_release: its PG_lru test, the
 * lruvec's lock taken once for the batch, lruvec_del_folio's three size
 * calls, __folio_clear_lru_flags), and the freed
 * ones are uncharged and freed together (mem_cgroup_uncharge_folios,
 * free_unref_folios; the per-folio free is folio_free's price).
 */
static void folios_put_refs(struct mmu_gather *tlb)
{
	struct ptsim_machine *m = tlb->mm->m;

	if (!tlb->put_nr)
		return;
	prim_count(m, PRIM_FOLIO_TEST_SWAPCACHE, tlb->put_nr);	/* free_swap_cache: none is */
	kernel_call(m, FOLIOS_PUT_REFS);
	prim_count(m, PRIM_FOLIO_PUT, tlb->put_nr);
	if (tlb->put_last) {
		prim_count(m, PRIM_FOLIO_TEST_LRU_STATE, tlb->put_last);	/* each one's PG_lru */
		kernel_call(m, FOLIO_LRUVEC_LOCK);	/* folio_lruvec_relock_irqsave, once */
		page_cache_release_lru(m, tlb->put_last);
		kernel_call(m, MEM_CGROUP_UNCHARGE_FOLIOS);
		uncharge_batch(m);	/* the folios' uncharge_folio: folio_free */
		kernel_call(m, FREE_UNREF_FOLIOS);
		if (tlb->put_last_pcp)
			free_batch_pcp_lock(m);	/* the folios' own work: folio_free */
	}
	tlb->put_nr = tlb->put_last = tlb->put_last_large = tlb->put_last_pcp = 0;
}

/* MAX_NR_FOLIOS_PER_FREE: the entries one free_pages_and_swap_cache call takes */
#define MAX_NR_FOLIOS_PER_FREE	512
/* SWAP_CLUSTER_MAX (include/linux/swap.h): release_pages' lock batch */
#define SWAP_CLUSTER_MAX	32

/*
 * release_pages before v6.9 (v6.8 mm/swap.c), called by
 * free_pages_and_swap_cache with up to MAX_NR_FOLIOS_PER_FREE entries of one
 * gather batch: each entry's reference dropped; an order-0 folio that lost
 * its last leaves the LRU under the lruvec's lock, which is dropped and
 * taken again every SWAP_CLUSTER_MAX entries (counted as one lock per
 * SWAP_CLUSTER_MAX such folios: exact when every entry frees one); a large
 * one is freed alone by __folio_put_large (__page_cache_release's own lock
 * and lruvec_del_folio, then destroy_large_folio: folio_free's part); then
 * the order-0 ones are uncharged and freed as lists, whatever the list
 * holds.
 */
static void release_pages(struct mmu_gather *tlb)
{
	struct ptsim_machine *m = tlb->mm->m;
	unsigned int small = tlb->put_last - tlb->put_last_large;

	if (!tlb->put_nr)
		return;
	prim_count(m, PRIM_FOLIO_TEST_SWAPCACHE, tlb->put_nr);	/* free_swap_cache: none is */
	kernel_call(m, RELEASE_PAGES);
	prim_count(m, PRIM_FOLIO_PUT, tlb->put_nr);
	prim_count(m, PRIM_FOLIO_LRUVEC_LOCK,
		   (small + SWAP_CLUSTER_MAX - 1) / SWAP_CLUSTER_MAX + tlb->put_last_large);
	prim_count(m, PRIM_FOLIO_TEST_LRU_STATE, tlb->put_last);	/* each one's PG_lru */
	page_cache_release_lru(m, tlb->put_last);
	kernel_call(m, MEM_CGROUP_UNCHARGE_LIST);
	if (small)
		uncharge_batch(m);	/* the order-0 folios' uncharge_folio: folio_free */
	kernel_call(m, FREE_UNREF_PAGE_LIST);
	if (small)
		free_batch_pcp_lock(m);	/* the order-0 pages' own work: folio_free */
	tlb->put_nr = tlb->put_last = tlb->put_last_large = tlb->put_last_pcp = 0;
}

/* The gathered entries so far freed: as v6.9's folio_batch, or release_pages' chunk before it. */
static void tlb_put_folios(struct mmu_gather *tlb)
{
	if (feature(tlb->mm->m, PTSIM_FEAT_LARGE_FOLIO_BATCH_FREE))
		folios_put_refs(tlb);
	else
		release_pages(tlb);
}

bool __tlb_remove_folio_pages(struct mmu_gather *tlb, unsigned int nr, bool last,
			      unsigned int order)
{
	const struct ptsim_geometry *g = &tlb->mm->m->geo;
	unsigned int slots = nr > 1 ? 2 : 1;
	unsigned int max = tlb->active ? max_gather_batch(g) : GATHER_BUNDLE;
	bool batched = feature(tlb->mm->m, PTSIM_FEAT_LARGE_FOLIO_BATCH_FREE);

	tlb->put_last += last;
	tlb->put_last_large += last && order;
	tlb->put_last_pcp += last && pcp_allowed_order(tlb->mm->m, order);
	if (++tlb->put_nr == (batched ? PAGEVEC_SIZE : MAX_NR_FOLIOS_PER_FREE))
		tlb_put_folios(tlb);
	tlb_batch_add(tlb->mm->m, slots);
	tlb->active_nr += slots;
	if (tlb->active_nr >= max - 1) {
		if (!batched)
			release_pages(tlb);	/* its gather batch ends its chunk */
		return !tlb_next_batch(tlb);
	}
	return false;
}

/*
 * tlb_batch_pages_flush: the batched pages are freed by
 * free_pages_and_swap_cache, which drains this CPU's LRU batches first
 * (lru_add_drain) and puts the last folio_batch; the batches are reused.
 */
static void tlb_batch_pages_flush(struct mmu_gather *tlb)
{
	if (tlb->active || tlb->active_nr)
		lru_add_drain(tlb->mm->m);
	tlb_put_folios(tlb);
	tlb->active = tlb->active_nr = 0;
}

/* tlb_table_flush: invalidate the walk caches, then free the batched tables by RCU. */
static void tlb_table_flush(struct mmu_gather *tlb)
{
	if (!tlb->nr_tables)
		return;
	tlb_flush_mmu_tlbonly(tlb);	/* tlb_table_invalidate */
	tlb->nr_tables = 0;
}

void tlb_flush_mmu(struct mmu_gather *tlb)
{
	tlb_flush_mmu_tlbonly(tlb);
	if (tlb->active || tlb->active_nr || tlb->nr_tables)
		tlb_flush_mmu_free(tlb->mm->m);
	tlb_table_flush(tlb);
	tlb_batch_pages_flush(tlb);
	tlb->delayed_rmap = false;
}

void free_table_tlb(struct mmu_gather *tlb, struct pt_table *t, uint64_t addr)
{
	const struct ptsim_geometry *g = &tlb->mm->m->geo;

	/* pte_free_tlb widens by a page at the PMD level, pmd_free_tlb at the PUD level, ... */
	if (t->level == PTE_LEVEL)
		tlb_flush_pmd_range(tlb, addr, g->page_size);
	else
		tlb_flush_pud_range(tlb, addr, g->page_size);
	tlb->freed_tables = true;
	/*
	 * tlb_remove_table. The model frees the table now: nothing in it is read
	 * again, and the TLB model keeps copies, not pointers.
	 */
	pt_table_free(tlb->mm, t);
	if (!tlb->nr_tables)
		tlb_batch_page_alloc(tlb->mm->m);	/* the table batch page */
	if (++tlb->nr_tables == max_table_batch(g))
		tlb_table_flush(tlb);
}

void tlb_start_vma(struct mmu_gather *tlb)
{
	(void)tlb;	/* the cache-flush hook is a no-op on arm64 */
}

void tlb_end_vma(struct mmu_gather *tlb)
{
	if (!tlb->fullmm)
		tlb_flush_mmu_tlbonly(tlb);
}

void tlb_finish_mmu(struct mmu_gather *tlb)
{
	tlb_flush_mmu(tlb);
	tlb->mm->tlb_flush_pending = false;	/* dec_tlb_flush_pending */
}
