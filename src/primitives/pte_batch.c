// SPDX-License-Identifier: MIT
/*
 * folio_pte_batch_flags (models mm/internal.h; doc/mprotect.md,
 * doc/mm-lifecycle.md): a counted primitive (PRIM_FOLIO_PTE_BATCH).
 */
#include "pte_batch.h"
#include "asm/pgtable.h"
#include "primitives.h"

/* __pte_batch_clear_ignored: the bits folio_pte_batch does not compare. */
static pte_t pte_batch_clear_ignored(pte_t pte, unsigned int flags)
{
	if (!(flags & FPB_RESPECT_DIRTY))
		pte = pte_mkclean(pte);
	if (!(flags & FPB_RESPECT_WRITE))
		pte = pte_wrprotect(pte);
	return pte_mkold(pte);
}

unsigned int folio_pte_batch_flags(struct ptsim_mm *mm, const struct folio *f, pte_t *ptep,
				   pte_t *ptentp, unsigned int max_nr, unsigned int flags)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	pte_t pte = *ptentp;
	uint64_t left = folio_pfn(mm->m, f) + folio_nr_pages(f) - pte_pfn(g, pte);
	bool any_writable = false, any_young = false, any_dirty = false;
	unsigned int nr;
	pte_t expected;

	fn_enter(mm->m, PTSIM_FN_FOLIO_PTE_BATCH);
	prim_count(mm->m, PRIM_FOLIO_PTE_BATCH, 1);
	max_nr = (unsigned int)MIN((uint64_t)max_nr, left);
	nr = pte_batch_hint(mm, ptep, pte);
	expected = pte_batch_clear_ignored(pte_advance_pfn(g, pte, nr), flags);
	while (nr < max_nr) {
		pte_t next = ptep_get(mm, ptep + nr);
		unsigned int step;

		if (pte_batch_clear_ignored(next, flags) != expected)
			break;
		count_loop_path(mm->m, PTSIM_LOOP_FOLIO_PTE_BATCH_MATCH);
		any_writable |= pte_write(next);
		any_young |= pte_young(next);
		any_dirty |= pte_dirty(next);
		step = pte_batch_hint(mm, ptep + nr, next);
		expected = pte_advance_pfn(g, expected, step);
		nr += step;
	}
	if ((flags & FPB_MERGE_WRITE) && any_writable)
		*ptentp = pte_mkwrite(*ptentp);
	if ((flags & FPB_MERGE_YOUNG_DIRTY) && any_young)
		*ptentp = pte_mkyoung(*ptentp);
	if ((flags & FPB_MERGE_YOUNG_DIRTY) && any_dirty)
		*ptentp = pte_mkdirty(*ptentp);
	fn_exit(mm->m);
	return MIN(nr, max_nr);
}

/* folio_pte_batch (mm/util.c since v6.17; before, the same inline code): no flags, no merge. */
unsigned int folio_pte_batch(struct ptsim_mm *mm, const struct folio *f, pte_t *ptep, pte_t pte,
			     unsigned int max_nr)
{
	if (feature(mm->m, PTSIM_FEAT_FOLIO_PTE_BATCH_CALL))
		kernel_call(mm->m, FOLIO_PTE_BATCH_CALL);
	return folio_pte_batch_flags(mm, f, ptep, &pte, max_nr, 0);
}
