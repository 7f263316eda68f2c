// SPDX-License-Identifier: MIT
/* PMD-mapped THP splitting (models __split_huge_pmd / __split_huge_pmd_locked in mm/huge_memory.c). */
#include "asm/pgtable.h"
#include "asm/tlbflush.h"

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
	unsigned int idx = pt_index(g, 2, haddr);
	pte_t old_pmd, entry;
	struct folio *f;

	fn_enter(m, PTSIM_FN_SPLIT_HUGE_PMD);
	count(m, PTSIM_EV_HUGE_PMD_SPLIT, 1);
	/* pmdp_invalidate: keep the PMD "present" to software, invalid to hardware */
	old_pmd = read_desc(mm, 2, &pmd_table->desc[idx]);
	xchg_desc(mm, haddr, 2, &pmd_table->desc[idx], (old_pmd & ~PTE_VALID) | PTE_PRESENT_INVALID);
	__flush_tlb_range(mm, haddr, haddr + g->pmd_size, g->pmd_size, true, 2);

	entry = pmd_leaf_to_pte(old_pmd);
	set_ptes(mm, haddr, pte_table->desc, entry, g->ptrs_per_table);

	f = pfn_folio(m, pte_pfn(g, old_pmd));
	if (f)
		f->mapcount += (int)g->ptrs_per_table - 1;
	/* pmd_populate: the PMD now points at the filled table */
	set_desc(mm, haddr, 2, &pmd_table->desc[idx], pfn_pte(g, pte_table->pfn, PMD_TYPE_TABLE));
	pmd_table->next[idx] = pte_table;
	fn_exit(m);
}

/* A PMD-level leaf, valid or present-invalid (a PROT_NONE THP). */
bool pmd_is_leaf(const struct pt_table *t, unsigned int idx)
{
	return t && t->level == 2 && !t->next[idx] && pte_present(t->desc[idx]);
}

int ptsim_split_huge_pmd(struct ptsim_mm *mm, uint64_t addr, uint64_t len)
{
	struct ptsim_machine *m;
	const struct ptsim_geometry *g;
	struct pt_table **tables;
	uint64_t start, end, nr = 0, i = 0;
	int err = 0;

	VALIDATE(mm && len && addr + len > addr);
	m = mm->m;
	g = &m->geo;
	VALIDATE(IS_ALIGNED64(addr, g->page_size) && IS_ALIGNED64(len, g->page_size));
	VALIDATE(addr + len <= (UINT64_C(1) << g->va_bits));
	start = ALIGN_DOWN64(addr, g->pmd_size);
	end = ALIGN_UP64(addr + len, g->pmd_size);
	for (uint64_t a = start; a < end; a += g->pmd_size) {
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
		err = pt_table_alloc(mm, 3, &tables[i]);
		if (err)
			break;
	}
	if (err) {
		while (i--)
			pt_table_free(mm, tables[i]);
	} else {
		i = 0;
		for (uint64_t a = start; a < end; a += g->pmd_size) {
			struct pt_table *t = pt_walk_table(mm, a, 2, false, &err);

			err = 0;
			if (t && pmd_is_leaf(t, pt_index(g, 2, a)))
				__split_huge_pmd_locked(mm, t, a, tables[i++]);
		}
	}
	op_end(m, err);
	free(tables);
	return err;
}
