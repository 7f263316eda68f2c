// SPDX-License-Identifier: MIT
/*
 * Page-table pages: allocation at every level, the software walk core mm does
 * (pgd_offset .. pte_offset_map), and teardown. Models the generic parts of
 * mm/pgtable-generic.c and mm/memory.c (__pte_alloc, __pmd_alloc, free_pgtables).
 */
#include "asm/pgtable.h"
#include "asm/tlbflush.h"
#include "primitives.h"

#include <stdlib.h>
#include <string.h>

/*
 * The free table pages the pool keeps resident for reuse are host memory
 * the machine holds: charged while kept, uncharged as the pool gives them
 * back or a table takes one.
 */
static void table_pool_recharge(struct ptsim_machine *m, size_t resident_before)
{
	size_t resident = page_pool_resident_free_bytes(&m->table_pages);

	if (resident >= resident_before)
		m->host_bytes += resident - resident_before;
	else
		host_uncharge(m, resident_before - resident);
}

static void *table_page_get(struct ptsim_machine *m)
{
	size_t before = page_pool_resident_free_bytes(&m->table_pages);
	void *page = page_pool_get(&m->table_pages);

	table_pool_recharge(m, before);
	return page;
}

static void table_page_put(struct ptsim_machine *m, void *page)
{
	size_t before = page_pool_resident_free_bytes(&m->table_pages);

	page_pool_put(&m->table_pages, page);
	table_pool_recharge(m, before);
}

static struct pt_table *table_new(struct ptsim_machine *m, int level, uint64_t pfn)
{
	const struct ptsim_geometry *g = &m->geo;
	struct pt_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->level = level;
	t->pfn = pfn;
	t->entries = g->level_entries[level_slot(level)];
	/* aligned to a page like a real table page, so pointer arithmetic finds blocks */
	t->desc = table_page_get(m);
	if (level < PTE_LEVEL)
		t->next = calloc(t->entries, sizeof(*t->next));
	/* the data-cache model finds a descriptor's PFN from its table page */
	if (!t->desc || (level < PTE_LEVEL && !t->next) || dcache_table_add(m, t->desc, pfn)) {
		if (t->desc)
			table_page_put(m, t->desc);
		free(t->next);
		free(t);
		return NULL;
	}
	return t;
}

static void table_delete(struct ptsim_machine *m, struct pt_table *t)
{
	if (t->desc)
		dcache_table_del(m, t->desc);
	table_page_put(m, t->desc);
	free(t->next);
	free(t);
}

/* A table page with its host memory charged, counted nowhere yet. */
static int table_get(struct ptsim_machine *m, int level, struct pt_table **out)
{
	struct pt_table *t;
	uint64_t pfn;

	if (alloc_should_fail(m) || host_charge(m, table_host_bytes(&m->geo, level)))
		return -ENOMEM;
	if (physmem_alloc(&m->phys, 0, &pfn, NULL)) {
		host_uncharge(m, table_host_bytes(&m->geo, level));
		return -ENOMEM;
	}
	t = table_new(m, level, pfn);
	if (!t) {
		physmem_free(&m->phys, pfn, 0);
		host_uncharge(m, table_host_bytes(&m->geo, level));
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

static void table_put(struct ptsim_machine *m, struct pt_table *t)
{
	host_uncharge(m, table_host_bytes(&m->geo, t->level));
	physmem_free(&m->phys, t->pfn, 0);
	table_delete(m, t);
}

int pt_reserve(struct ptsim_machine *m, const size_t nr[PTSIM_MAX_LEVELS])
{
	for (int l = -1; l <= 3; l++) {
		size_t want = m->nr_reserve[level_slot(l)] + nr[level_slot(l)];
		struct pt_table **r;

		if (!nr[level_slot(l)])
			continue;
		r = realloc(m->reserve[level_slot(l)], want * sizeof(*r));
		if (!r) {
			pt_unreserve(m);
			return -ENOMEM;
		}
		m->reserve[level_slot(l)] = r;
		while (m->nr_reserve[level_slot(l)] < want) {
			if (table_get(m, l, &r[m->nr_reserve[level_slot(l)]])) {
				pt_unreserve(m);
				return -ENOMEM;
			}
			m->nr_reserve[level_slot(l)]++;
		}
	}
	return 0;
}

void pt_unreserve(struct ptsim_machine *m)
{
	for (unsigned int i = 0; i < PTSIM_MAX_LEVELS; i++) {
		while (m->nr_reserve[i])
			table_put(m, m->reserve[i][--m->nr_reserve[i]]);
		free(m->reserve[i]);
		m->reserve[i] = NULL;
	}
}

int pt_table_alloc(struct ptsim_mm *mm, int level, struct pt_table **out)
{
	struct ptsim_machine *m = mm->m;
	struct pt_table *t;
	int err;

	if (m->nr_reserve[level_slot(level)]) {
		t = m->reserve[level_slot(level)][--m->nr_reserve[level_slot(level)]];
	} else {
		err = table_get(m, level, &t);
		if (err)
			return err;
	}
	mm->pgtable_bytes += (uint64_t)t->entries * sizeof(pte_t);
	if (mm->booting)
		mm->boot_pgtable_bytes += (uint64_t)t->entries * sizeof(pte_t);
	pagetable_alloc(m);
	*out = t;
	return 0;
}

void pt_table_free(struct ptsim_mm *mm, struct pt_table *t)
{
	struct ptsim_machine *m = mm->m;

	mm->pgtable_bytes -= (uint64_t)t->entries * sizeof(pte_t);
	pagetable_free(m);
	table_put(m, t);
}

/* Drop one mapping of the folio behind a leaf; free anonymous folios nobody maps or pins. */
static void leaf_unmap_folio(struct ptsim_mm *mm, pte_t leaf)
{
	struct folio *f;

	if (!pte_present(leaf) || pte_special(leaf))
		return;
	f = pfn_folio(mm->m, pte_pfn(&mm->m->geo, leaf));
	if (!f)
		return;
	if (folio_mapcount_add(mm->m, f, -1) == 0 && (f->flags & FOLIO_ANON))
		folio_put(mm->m, f);
}

void pt_free_tree(struct ptsim_mm *mm, struct pt_table *t)
{
	for (unsigned int i = 0; i < t->entries; i++) {
		pte_t d = t->desc[i];

		if (t->level < PTE_LEVEL && t->next[i])
			pt_free_tree(mm, t->next[i]);
		else if (d && !mm->kernel && !mm->raw && (t->level == PTE_LEVEL || pmd_sect(d) || !pte_valid(d)))
			leaf_unmap_folio(mm, d);	/* the linear map and raw mms own no folios */
	}
	pt_table_free(mm, t);
}

int pt_copy_tree(struct ptsim_mm *dst, const struct pt_table *src, struct pt_table **out)
{
	const struct ptsim_geometry *g = &dst->m->geo;
	struct pt_table *t = table_new(dst->m, src->level, src->pfn);

	if (!t)
		return -ENOMEM;
	memcpy(t->desc, src->desc, g->page_size);
	for (unsigned int i = 0; src->level < PTE_LEVEL && i < src->entries; i++) {
		if (!src->next[i])
			continue;
		if (pt_copy_tree(dst, src->next[i], &t->next[i])) {
			for (unsigned int j = 0; j < i; j++)
				if (t->next[j])
					pt_delete_copy(dst->m, t->next[j]);
			table_delete(dst->m, t);
			return -ENOMEM;
		}
	}
	*out = t;
	return 0;
}

void pt_delete_copy(struct ptsim_machine *m, struct pt_table *t)
{
	for (unsigned int i = 0; t->level < PTE_LEVEL && i < t->entries; i++)
		if (t->next[i])
			pt_delete_copy(m, t->next[i]);
	table_delete(m, t);
}

struct pt_table *pt_walk_table(struct ptsim_mm *mm, uint64_t va, int level, bool alloc, int *err)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	struct pt_table *t = mm->pgd;

	*err = 0;
	for (int l = g->start_level; l < level; l++) {
		unsigned int idx = pt_index(g, l, va);
		pte_t d = read_desc(mm, l, &t->desc[idx]);

		if (t->next[idx]) {
			t = t->next[idx];
			continue;
		}
		if (d || !alloc) {
			/* a block leaf (or a present-invalid one) sits here, or nothing and no alloc */
			if (d)
				*err = -EEXIST;
			return NULL;
		}
		struct pt_table *child;
		struct undo_entry e = { .kind = UNDO_TABLE, .mm = mm, .parent = t, .parent_idx = idx };

		*err = pt_table_alloc(mm, l + 1, &child);
		if (*err)
			return NULL;
		e.ptr = child;
		*err = undo_record(mm->m, &e);
		if (*err) {
			pt_table_free(mm, child);
			return NULL;
		}
		/*
		 * pmd_populate & co: a table descriptor pointing at the new
		 * page, after the smp_wmb that makes the page's zeroing visible
		 * first (pmd_install, __pmd_alloc, __pud_alloc, __p4d_alloc)
		 */
		smp_wmb(mm->m);
		set_desc(mm, va, l, &t->desc[idx], pfn_pte(g, child->pfn, PMD_TYPE_TABLE));
		t->next[idx] = child;
		t = child;
	}
	return t;
}

bool leaf_encoding_reserved(const struct ptsim_geometry *g, int level, pte_t d)
{
	if (!pte_valid(d))
		return false;
	if (level == PTE_LEVEL)
		return (d & PTE_TYPE_MASK) != PTE_TYPE_PAGE;
	/* a block where the granule has none (the walk also takes level 2 as one) */
	return !pmd_table(d) && !g->level_block[level_slot(level)] && level != PMD_LEVEL;
}

struct pt_table *pt_lookup_leaf(const struct ptsim_mm *mm, uint64_t va, unsigned int *idx)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	struct pt_table *t = mm->pgd;

	for (int l = g->start_level;; l++) {
		unsigned int i = pt_index(g, l, va);

		if (l == 3 || !t->next[i]) {
			if (!t->desc[i])
				return NULL;
			*idx = i;
			return t;
		}
		t = t->next[i];
	}
}

/*
 * The first address of [va, end) whose walk, stopping at stop_level, finds a
 * non-empty entry; an empty entry above it is skipped whole, and so are the
 * empty entries after it in the same table (without a walk each: a 64K
 * granule's table holds 8192).
 */
static uint64_t next_used(const struct ptsim_mm *mm, uint64_t va, uint64_t end, int stop_level)
{
	const struct ptsim_geometry *g = &mm->m->geo;

	while (va < end) {
		const struct pt_table *t = mm->pgd;
		uint64_t size, next;
		unsigned int i, j;
		int l;

		for (l = g->start_level;; l++) {
			i = pt_index(g, l, va);
			if (l == stop_level || !t->next[i]) {
				if (t->desc[i])
					return va;
				break;
			}
			t = t->next[i];
		}
		/* an empty entry at level l: nothing below it either */
		for (j = i + 1; j < t->entries && !t->desc[j] && (l == stop_level || !t->next[j]); j++)
			;
		size = pt_level_size(g, l);
		next = ALIGN_DOWN64(va, size) + (uint64_t)(j - i) * size;
		if (next <= va)
			break;	/* the top of the address space */
		va = next;
	}
	return end;
}

uint64_t pt_next_used(const struct ptsim_mm *mm, uint64_t va, uint64_t end)
{
	return next_used(mm, va, end, 3);
}

uint64_t pt_next_pmd_used(const struct ptsim_mm *mm, uint64_t va, uint64_t end)
{
	return next_used(mm, va, end, 2);
}

struct pt_table *pt_find_table(const struct ptsim_mm *mm, uint64_t va, int level)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	struct pt_table *t = mm->pgd;

	for (int l = g->start_level; t && l < level; l++)
		t = t->next[pt_index(g, l, va)];
	return t;
}

pte_t ptep_clear_flush(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep)
{
	pte_t old;

	fn_enter(mm->m, PTSIM_FN_PTEP_CLEAR_FLUSH);
	old = ptep_get_and_clear(mm, addr, ptep);
	if (pte_accessible(mm, old))
		flush_tlb_page(mm, addr);
	fn_exit(mm->m);
	return old;
}

bool is_zero_pte(const struct ptsim_mm *mm, pte_t pte)
{
	return pte_present(pte) && mm->m->zero_pfn && pte_pfn(&mm->m->geo, pte) == mm->m->zero_pfn;
}

/*
 * pmdp_clear_flush_young (mm/pgtable-generic.c, out of line): the leaf's AF
 * cleared as __ptep_test_and_clear_young clears an entry's, and a young
 * one's TLB entries invalidated (flush_pmd_tlb_range, with its DSB).
 */
bool pmdp_clear_flush_young(struct ptsim_mm *mm, uint64_t addr, pmd_t *pmdp)
{
	pmd_t pmd;

	kernel_call(mm->m, PMDP_CLEAR_FLUSH_YOUNG);
	pmd = read_desc(mm, PMD_LEVEL, pmdp);
	cmpxchg_desc(mm, addr, PMD_LEVEL, pmdp, pte_mkold(pmd));
	if (!pte_young(pmd))
		return false;
	flush_pmd_tlb_range(mm, addr, addr + mm->m->geo.pmd_size);
	return true;
}
