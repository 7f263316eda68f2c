// SPDX-License-Identifier: MIT
/* PMD-mapped THP splitting (models __split_huge_pmd / __split_huge_pmd_locked in mm/huge_memory.c). */
#include "asm/pgtable.h"
#include "asm/tlbflush.h"
#include "primitives.h"
#include "vmscan.h"

#include <stdlib.h>

/*
 * __split_huge_pmd_locked for an anonymous PMD leaf: pmdp_invalidate (the
 * PMD goes invalid and its range is flushed), fill a PTE table with one
 * set_ptes(HPAGE_PMD_NR) carrying the PMD's write/dirty/young state, then
 * pmd_populate. Every subpage stays AnonExclusive; the folio's one PMD
 * mapping becomes HPAGE_PMD_NR PTE mappings.
 */
void __split_huge_pmd_locked(struct ptsim_mm *mm, struct pt_table *pmd_table, uint64_t haddr,
			     struct pt_table *pte_table)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	unsigned int idx = pt_index(g, PMD_LEVEL, haddr);
	pte_t old_pmd, entry;
	struct folio *f;

	fn_enter(m, PTSIM_FN_SPLIT_HUGE_PMD);
	kernel_call(m, SPLIT_HUGE_PMD);
	old_pmd = read_desc(mm, PMD_LEVEL, &pmd_table->desc[idx]);
	pmdp_invalidate(mm, haddr, &pmd_table->desc[idx], old_pmd);

	entry = pmd_leaf_to_pte(old_pmd);
	set_ptes(mm, haddr, pte_table->desc, entry, g->ptrs_per_table);

	f = pfn_folio(m, pte_pfn(g, old_pmd));
	/*
	 * folio_add_anon_rmap_ptes(RMAP_EXCLUSIVE when the head page is
	 * PageAnonExclusive), then folio_remove_rmap_pmd (v6.12
	 * __split_huge_pmd_locked): a PMD mapping's exclusivity is its head
	 * page's, and every page mapped by the new PTEs inherits it.
	 */
	if (f && (f->flags & FOLIO_ANON)) {
		bool excl = folio_page_anon_exclusive(f, 0);

		for (uint64_t i = 1; i < folio_nr_pages(f); i++)
			folio_set_page_anon_exclusive(f, i, false);
		folio_add_anon_rmap_ptes(mm, f, 0, g->ptrs_per_table, excl, true);
		folio_remove_rmap_pmd(mm, f, true);
	} else if (f) {
		folio_mapcount_add(m, f, (int)g->ptrs_per_table - 1);
	}
	/* pmd_populate: the PMD now points at the filled table, its entries visible first */
	smp_wmb(m);
	set_desc(mm, haddr, PMD_LEVEL, &pmd_table->desc[idx], pfn_pte(g, pte_table->pfn, PMD_TYPE_TABLE));
	pmd_table->next[idx] = pte_table;
	fn_exit(m);
}

/* A PMD-level leaf, valid or present-invalid (a PROT_NONE THP). */
bool pmd_is_leaf(const struct pt_table *t, unsigned int idx)
{
	return t && t->level == PMD_LEVEL && !t->next[idx] && pte_present(t->desc[idx]);
}

bool thp_cut_at(const struct ptsim_mm *mm, uint64_t addr)
{
	unsigned int idx;
	const struct pt_table *t;

	if (IS_ALIGNED64(addr, mm->m->geo.pmd_size))
		return false;
	t = pt_lookup_leaf(mm, addr, &idx);
	return pmd_is_leaf(t, idx);
}

int spare_tables_alloc(struct ptsim_mm *mm, struct spare_tables *spare, uint64_t start,
		       uint64_t end)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	unsigned int nr = thp_cut_at(mm, start);
	int err;

	/* both edges in one THP: a single split serves them */
	if (ALIGN_DOWN64(end, g->pmd_size) != ALIGN_DOWN64(start, g->pmd_size) || !nr)
		nr += thp_cut_at(mm, end);
	for (spare->n = 0; spare->n < nr; spare->n++) {
		err = pt_table_alloc(mm, PTE_LEVEL, &spare->t[spare->n]);
		if (err) {
			spare_tables_free(mm, spare);
			return err;
		}
	}
	return 0;
}

void spare_tables_free(struct ptsim_mm *mm, struct spare_tables *spare)
{
	while (spare->n)
		pt_table_free(mm, spare->t[--spare->n]);
}

bool split_huge_pmd_spare(struct ptsim_mm *mm, struct pt_table *pmd_table, uint64_t haddr,
			  struct spare_tables *spare)
{
	if (!spare->n) {
		diag_report(mm->m, PTSIM_DIAG_INVARIANT, haddr, 2, 0, 0,
			    "a THP cut where no spare table was set aside");
		return false;
	}
	__split_huge_pmd_locked(mm, pmd_table, haddr, spare->t[--spare->n]);
	return true;
}

void split_huge_pmd_address(struct ptsim_mm *mm, uint64_t addr, struct spare_tables *spare)
{
	unsigned int idx;

	if (thp_cut_at(mm, addr))	/* pt_lookup_leaf: the PMD table; its walk is not counted */
		split_huge_pmd_spare(mm, pt_lookup_leaf(mm, addr, &idx),
				     ALIGN_DOWN64(addr, mm->m->geo.pmd_size), spare);
}

int ptsim_split_huge_pmd(struct ptsim_mm *mm, uint64_t addr, uint64_t len)
{
	struct ptsim_machine *m;
	const struct ptsim_geometry *g;
	struct pt_table **tables;
	uint64_t start, end, nr = 0, i = 0;
	int err = 0;

	/* a raw mm's blocks are the caller's: nothing implicit rewrites them (raw.h) */
	VALIDATE(mm && !mm->kernel && !mm->raw && len && addr + len > addr);
	REFUSE_IN_HANDLER(mm->m);
	m = mm->m;
	g = &m->geo;
	VALIDATE(IS_ALIGNED64(addr, g->page_size) && IS_ALIGNED64(len, g->page_size));
	VALIDATE(addr + len <= (UINT64_C(1) << g->va_bits));
	start = ALIGN_DOWN64(addr, g->pmd_size);
	end = ALIGN_UP64(addr + len, g->pmd_size);
	for (uint64_t a = start; (a = ALIGN_DOWN64(pt_next_used(mm, a, end), g->pmd_size)) < end;
	     a += g->pmd_size) {
		unsigned int idx;
		const struct pt_table *t = pt_lookup_leaf(mm, a, &idx);

		nr += pmd_is_leaf(t, idx);
	}
	tables = calloc(nr ? nr : 1, sizeof(*tables));
	if (!tables)
		return -ENOMEM;
	op_begin(m);
	/* allocate every PTE table first, so a failure changes nothing */
	for (i = 0; i < nr; i++) {
		err = pt_table_alloc(mm, PTE_LEVEL, &tables[i]);
		if (err)
			break;
	}
	if (err) {
		while (i--)
			pt_table_free(mm, tables[i]);
	} else {
		i = 0;
		for (uint64_t a = start;
		     i < nr && (a = ALIGN_DOWN64(pt_next_used(mm, a, end), g->pmd_size)) < end;
		     a += g->pmd_size) {
			struct pt_table *t = pt_walk_table(mm, a, PMD_LEVEL, false, &err);

			err = 0;
			if (t && pmd_is_leaf(t, pt_index(g, PMD_LEVEL, a)))
				__split_huge_pmd_locked(mm, t, a, tables[i++]);
		}
	}
	op_end(m, err);
	free(tables);
	return err;
}

/*
 * vma_address for page `index` of an anonymous folio with `mapping`, over
 * mm's VMAs from *vma on: the first VMA of that anon_vma whose page offsets
 * hold the index, and the page's address in it. A folio's pages can sit in
 * several VMAs (mremap moved part of it), and several VMAs can hold the same
 * index (mremap's MREMAP_DONTUNMAP keeps the old one, emptied).
 */
static bool anon_page_address(const struct ptsim_mm *mm, uint64_t mapping, uint64_t index,
			      uint64_t *va, size_t *vma)
{
	const struct ptsim_geometry *g = &mm->m->geo;

	for (size_t i = *vma; i < mm->nr_vmas; i++) {
		const struct vma *v = &mm->vmas[i];
		uint64_t pages = (v->end - v->start) >> g->page_shift;

		if (v->anon_vma == mapping && index >= v->pgoff && index - v->pgoff < pages) {
			*va = v->start + ((index - v->pgoff) << g->page_shift);
			*vma = i;
			return true;
		}
	}
	return false;
}

/*
 * The entry mapping page i of f in mm, or NULL; its address in *va. As
 * rmap_walk_anon with page_vma_mapped_walk: every VMA that could hold the
 * page is looked at, and the one whose entry maps it is the answer.
 */
static pte_t *folio_page_pte(struct ptsim_mm *mm, const struct folio *f, uint64_t i, uint64_t *va,
			     size_t *vma)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	unsigned int idx;
	struct pt_table *t;

	for (*vma = 0; anon_page_address(mm, f->mapping, f->index + i, va, vma); (*vma)++) {
		t = pt_lookup_leaf(mm, *va, &idx);
		if (t && t->level == PTE_LEVEL && pte_present(t->desc[idx]) &&
		    pte_pfn(g, t->desc[idx]) == folio_pfn(mm->m, f) + i)
			return &t->desc[idx];
	}
	return NULL;
}

/*
 * The pages of f some entry of mm maps, each found as folio_page_pte finds
 * it: the VMAs that could hold a page of f are gathered once (a folio lies
 * in one or two) and a PTE table is looked up once per PMD slot, so a
 * caller that asks for many folios (COW reuse, split_folio, MADV_COLD, a
 * test's rmap check) pays per page one entry read, not a scan of the VMAs.
 */
uint64_t folio_mappings_in(struct ptsim_mm *mm, const struct folio *f)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	const uint64_t nr = folio_nr_pages(f), pfn = folio_pfn(mm->m, f);
	const struct pt_table *t = NULL;
	uint64_t n = 0, slot = UINT64_MAX;
	const struct vma *cand[8];
	size_t nc = 0;

	for (size_t k = 0; k < mm->nr_vmas; k++) {
		const struct vma *v = &mm->vmas[k];
		uint64_t pages = (v->end - v->start) >> g->page_shift;

		if (v->anon_vma != f->mapping || f->index >= v->pgoff + pages || v->pgoff >= f->index + nr)
			continue;
		if (nc == sizeof(cand) / sizeof(cand[0])) {
			uint64_t va;
			size_t vma;

			/* many candidates: page by page over every VMA */
			n = 0;
			for (uint64_t i = 0; i < nr; i++)
				n += folio_page_pte(mm, f, i, &va, &vma) != NULL;
			return n;
		}
		cand[nc++] = v;
	}
	for (uint64_t i = 0; i < nr; i++) {
		for (size_t c = 0; c < nc; c++) {
			const struct vma *v = cand[c];
			uint64_t va;
			pte_t d;

			if (f->index + i < v->pgoff || f->index + i - v->pgoff >= (v->end - v->start) >> g->page_shift)
				continue;
			va = v->start + ((f->index + i - v->pgoff) << g->page_shift);
			if (ALIGN_DOWN64(va, g->pmd_size) != slot) {
				slot = ALIGN_DOWN64(va, g->pmd_size);
				t = pt_find_table(mm, va, PTE_LEVEL);
			}
			d = t ? t->desc[pt_index(g, PTE_LEVEL, va)] : 0;
			if (pte_present(d) && pte_pfn(g, d) == pfn + i) {
				n++;
				break;
			}
		}
	}
	return n;
}

/*
 * unmap_folio (v6.12 mm/huge_memory.c) of a PTE-mapped anonymous folio:
 * try_to_migrate walks the folio's anon_vma (rmap_walk_anon, its lock held:
 * TTU_RMAP_LOCKED) and try_to_migrate_one, per VMA that maps it, opens a notifier range and
 * walks the folio's entries with page_vma_mapped_walk (pvmw_first: the
 * table's lock once), turning each mapped page's entry into a
 * migration entry; try_to_unmap_flush completes the deferred TLBIs
 * ("split_batch_flush", v6.8; before it each entry was flushed at once).
 * old[i] and va[i] get page i's cleared entry and address (0: unmapped).
 */
static void unmap_folio(struct ptsim_mm *mm, struct folio *f, pte_t *old, uint64_t *va)
{
	struct ptsim_machine *m = mm->m;
	struct tlbflush_unmap_batch ubc = { 0 };
	uint64_t nr = folio_nr_pages(f);
	size_t cur_vma = SIZE_MAX;
	unsigned int nr_vmas = 0;

	for (uint64_t i = 0; i < nr; i++) {
		size_t vma;
		pte_t *ptep = folio_page_pte(mm, f, i, &va[i], &vma);

		old[i] = 0;
		if (!ptep)
			continue;
		if (vma != cur_vma) {
			if (nr_vmas)
				pvmw_next(m);	/* the last VMA's walk ends */
			mmu_notifier_invalidate_range_start(m);
			pvmw_first(m);
			cur_vma = vma;
			nr_vmas++;
		} else {
			pvmw_next(m);
			ptep_get(mm, ptep);	/* the walk's none test of the next entry */
		}
		pvmw_check(m);
		old[i] = try_to_migrate_one(mm, f, i, va[i], ptep, &ubc);
	}
	if (nr_vmas)
		pvmw_next(m);	/* past the last entry: none */
	kernel_call(m, TRY_TO_MIGRATE);
	/* rmap_walk_locked: the lock is the split's */
	rmap_walk_anon_calls(m, nr_vmas, &(const struct rmap_walk_callbacks){ .done = true });
	if (feature(m, PTSIM_FEAT_SPLIT_BATCH_FLUSH))
		try_to_unmap_flush(m, &ubc);
}

/*
 * remap_page (v6.12 mm/huge_memory.c) after a split into folios of `step`
 * pages: remove_migration_ptes per new folio, whose rmap walk
 * (rmap_walk_anon, the anon_vma already locked) runs page_vma_mapped_walk
 * in the VMA mapping it: the table's lock, then per migration entry its
 * reads, since v6.12 the zero-page check of an order-0 page
 * ("split_zeropage_remap"), a reference, the page's mapping added
 * (exclusive as the migration entry says) and the present entry written,
 * no longer contiguous-foldable.
 */
static void remap_page(struct ptsim_mm *mm, struct folio *f, uint64_t nr, uint64_t step,
		       const pte_t *old, const uint64_t *va)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;

	for (uint64_t i = 0; i < nr; i += step) {
		struct folio *nf = &f[i];
		bool walked = false;

		kernel_call(m, REMOVE_MIGRATION_PTES);
		/* the one VMA over the new folio's index; the walk sets no done callback */
		rmap_walk_anon_calls(m, 1, &(const struct rmap_walk_callbacks){ 0 });
		for (uint64_t j = i; j < i + step; j++) {
			struct pt_table *t;
			pte_t *ptep;
			bool exclusive;

			if (!old[j])
				continue;
			t = pt_walk_table(mm, va[j], PTE_LEVEL, false, &(int){ 0 });
			ptep = &t->desc[pt_index(g, PTE_LEVEL, va[j])];
			if (!walked) {
				pvmw_first(m);
			} else {
				pvmw_next(m);
				ptep_get(mm, ptep);	/* the walk's none test of the next entry */
			}
			walked = true;
			pvmw_check(m);
			ptep_get(mm, ptep);	/* check_pte's */
			exclusive = ptep_get(mm, ptep) & PTE_SWP_EXCLUSIVE;
			if (step == 1 && feature(m, PTSIM_FEAT_SPLIT_ZEROPAGE_REMAP))
				kernel_call(m, PAGES_IDENTICAL);	/* the page holds data */
			folio_get(m, nf);
			folio_add_anon_rmap_ptes(mm, nf, j - i, 1, exclusive, false);
			set_ptes(mm, va[j], ptep, pte_mknoncont(old[j]), 1);
		}
		if (walked)
			pvmw_next(m);	/* past the last entry: none */
	}
}

/*
 * __split_huge_page (v6.12 mm/huge_memory.c) of an anonymous folio whose
 * mappings unmap_folio replaced and whose references are frozen: the new
 * folios' memcg, under the lruvec's lock each tail's struct page made a
 * folio's (__split_huge_page_tail, from the last down) and put on the LRU
 * after the head, the split's reference, remap_page, then each new folio
 * but the first unlocked and the split's reference on it dropped
 * (free_page_and_swap_cache): one nobody maps any more is freed.
 */
static void __split_huge_page(struct ptsim_mm *mm, struct folio *f, unsigned int new_order,
			      const pte_t *old, const uint64_t *va)
{
	struct ptsim_machine *m = mm->m;
	const uint64_t nr = folio_nr_pages(f), step = UINT64_C(1) << new_order;
	const uint64_t pfn = folio_pfn(m, f);

	kernel_call(m, SPLIT_PAGE_MEMCG);
	kernel_call(m, FOLIO_LRUVEC_LOCK);
	for (uint64_t i = nr - step; i >= step; i -= step) {
		split_huge_page_tail(m, pfn + i, !new_order);
		if (new_order)	/* __split_huge_page_tail's, for the new folio's head */
			prep_compound_page(m, pfn + i, new_order);
	}
	folio_split_records_to_order(m, f, new_order);
	for (uint64_t i = 0; i < nr; i += step)
		folio_mapcount_set(m, &f[i], 0);	/* unmap_folio removed every mapping */
	folio_get(m, f);	/* folio_ref_inc: the split's reference on the first */
	remap_page(mm, f, nr, step, old, va);
	for (uint64_t i = step; i < nr; i += step) {
		folio_unlock(m, &f[i]);
		kernel_call(m, FREE_PAGE_AND_SWAP_CACHE);
		if (folio_mapcount(m, &f[i]))
			folio_put_ref(m, &f[i]);
		else
			folio_put(m, &f[i]);	/* its last reference */
	}
}

/*
 * split_folio_to_order for a PTE-mapped anonymous large folio
 * (split_huge_page_to_list_to_order, v6.12 mm/huge_memory.c): under the
 * folio's anon_vma lock, unmap_folio turns its mappings into migration
 * entries, the deferred split queue's lock is taken to freeze the
 * references (and to take the folio off the queue), __split_huge_page
 * makes folios of new_order (0: split_folio) and maps them again, every
 * page keeping its exclusivity and index. A folio GUP holds (pinned or
 * FOLL_GET: the extra references can_split_folio refuses), or one another
 * mm maps too, is not split (-EBUSY).
 */
int split_folio_to_order(struct ptsim_mm *mm, struct folio *f, unsigned int new_order)
{
	struct ptsim_machine *m = mm->m;
	uint64_t nr = folio_nr_pages(f);
	pte_t *old;
	uint64_t *va;

	if (f->gup_refs || folio_mappings_in(mm, f) != (uint64_t)folio_mapcount(m, f))
		return -EBUSY;
	old = calloc(nr, sizeof(*old));
	va = calloc(nr, sizeof(*va));
	if (!old || !va) {
		free(old);
		free(va);
		return -ENOMEM;
	}
	kernel_call(m, SPLIT_FOLIO);
	folio_get_anon_vma(m);
	anon_vma_lock_write(m, f->mapping);
	unmap_folio(mm, f, old, va);
	split_queue_lock(m);
	prim_count(m, PRIM_FOLIO_REF_FREEZE, 1);
	__split_huge_page(mm, f, new_order, old, va);
	anon_vma_unlock_write(m);
	put_anon_vma(m);
	free(old);
	free(va);
	return 0;
}

int split_folio(struct ptsim_mm *mm, struct folio *f)
{
	return split_folio_to_order(mm, f, 0);
}

void folio_put_unmapped(struct ptsim_mm *mm, struct folio *f)
{
	if (!folio_mapcount(mm->m, f) && (f->flags & FOLIO_ANON))
		folio_put(mm->m, f);
}

/*
 * The folio split the debugfs split_huge_pages interface makes for one
 * address (split_huge_pages_pid, v6.12): under the mmap read lock, the
 * folio at va is trylocked and split by split_folio_to_order; a PMD-mapped
 * one has its PMD split first (unmap_folio's TTU_SPLIT_HUGE_PMD, here with
 * PTEs where the kernel installs migration entries), so what is counted
 * for it is an approximation. The kernel's own checks come first
 * (split_huge_page_to_list_to_order): new_order below the folio's, not 1
 * for an anonymous folio ("order-1 is not supported for anonymous THP").
 */
int ptsim_split_folio(struct ptsim_mm *mm, uint64_t va, unsigned int new_order)
{
	struct ptsim_machine *m;
	const struct ptsim_geometry *g;
	struct ptsim_translation tr;
	struct pt_table *pmd_table = NULL, *pte_table = NULL;
	struct folio *f;
	int err;

	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	m = mm->m;
	g = &m->geo;
	VALIDATE(va < (UINT64_C(1) << g->va_bits));
	if (ptsim_translate(mm, va, &tr))
		return -ENOENT;
	f = pfn_folio(m, tr.pa >> g->page_shift);
	if (!f)
		return -ENOENT;
	/* split_huge_pages_pid skips what is not a THP; the call says so */
	VALIDATE(f->order > 0 && (f->flags & FOLIO_ANON));
	/* before v6.10 ("split_to_order") a THP splits to order 0 only */
	VALIDATE(!new_order || feature(m, PTSIM_FEAT_SPLIT_TO_ORDER));
	VALIDATE(new_order < f->order && new_order != 1);
	if (tr.level == PMD_LEVEL) {
		/* only this mm's one PMD mapping: the model unmaps from no other mm */
		if (f->pinned || folio_mapcount(m, f) != 1)
			return -EBUSY;
	} else if (f->pinned || folio_mappings_in(mm, f) != (uint64_t)folio_mapcount(m, f)) {
		return -EBUSY;	/* can_split_folio: extra references, or another mm's mappings */
	}
	op_begin(m);
	mmap_read_lock(mm);
	if (!folio_trylock(m, f)) {
		cond_resched(m, 1);
		op_end(m, 0);
		return -EAGAIN;	/* skipped, as split_huge_pages_pid skips a locked folio */
	}
	folio_get(m, f);
	err = 0;
	if (tr.level == PMD_LEVEL) {
		unsigned int idx;

		err = pt_table_alloc(mm, PTE_LEVEL, &pte_table);
		if (!err) {
			pmd_table = pt_lookup_leaf(mm, va, &idx);
			__split_huge_pmd_locked(mm, pmd_table, ALIGN_DOWN64(va, g->pmd_size), pte_table);
		}
	}
	if (!err) {
		err = split_folio_to_order(mm, f, new_order);
		if (err && pte_table)
			op_keep_partial(m);	/* the PMD stays split, as after a failed split in the kernel */
	}
	folio_unlock(m, f);
	folio_put_ref(m, f);
	cond_resched(m, 1);
	op_end(m, err);
	return err;
}
