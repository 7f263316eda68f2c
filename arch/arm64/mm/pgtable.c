// SPDX-License-Identifier: MIT
/*
 * Descriptor accessors and the contpte-aware PTE wrappers of
 * arch/arm64/include/asm/pgtable.h (spec/mprotect-contpte.md §3.1). Every
 * descriptor access in the model goes through read_desc/set_desc/xchg_desc,
 * which count it and show each store to the break-before-make checker.
 */
#include "asm/pgtable.h"
#include "asm/mmu_context.h"

static enum ptsim_event desc_event(int level, int kind)
{
	static const enum ptsim_event ev[3][3] = {
		{ PTSIM_EV_PTE_READ, PTSIM_EV_PTE_WRITE, PTSIM_EV_PTE_XCHG },
		{ PTSIM_EV_PMD_READ, PTSIM_EV_PMD_WRITE, PTSIM_EV_PMD_XCHG },
		{ PTSIM_EV_PUD_READ, PTSIM_EV_PUD_WRITE, PTSIM_EV_PUD_WRITE },
	};
	int row = level == 3 ? 0 : level == 2 ? 1 : 2;

	return ev[row][kind];
}

pte_t read_desc(struct ptsim_mm *mm, int level, const pte_t *p)
{
	count(mm->m, desc_event(level, 0), 1);
	return *p;
}

void set_desc(struct ptsim_mm *mm, uint64_t addr, int level, pte_t *p, pte_t val)
{
	struct ptsim_machine *m = mm->m;
	struct hw_as as = mm_as(mm);

	count(m, desc_event(level, 1), 1);
	bbm_check_write(m, &as, addr, level, *p, val);
	*p = val;
}

pte_t xchg_desc(struct ptsim_mm *mm, uint64_t addr, int level, pte_t *p, pte_t val)
{
	struct ptsim_machine *m = mm->m;
	struct hw_as as = mm_as(mm);
	pte_t old = *p;

	count(m, desc_event(level, 2), 1);
	bbm_check_write(m, &as, addr, level, old, val);
	*p = val;
	return old;
}

pte_t __ptep_get(struct ptsim_mm *mm, const pte_t *ptep)
{
	return read_desc(mm, 3, ptep);
}

/* __set_ptes: nr plain stores, PFN advancing; one __sync_cache_and_tags per call. */
void __set_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte, unsigned int nr)
{
	const struct ptsim_geometry *g = &mm->m->geo;

	count(mm->m, PTSIM_EV_SET_PTES_CHUNK, 1);
	for (unsigned int i = 0; i < nr; i++) {
		set_desc(mm, addr, 3, ptep + i, pte);
		addr += g->page_size;
		pte = pte_advance_pfn(g, pte, 1);
	}
}

pte_t __ptep_get_and_clear(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep)
{
	return xchg_desc(mm, addr, 3, ptep, 0);
}

/* __get_and_clear_full_ptes: nr exchanges; access/dirty OR-ed into the first. */
pte_t __get_and_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr)
{
	pte_t pte = __ptep_get_and_clear(mm, addr, ptep);

	for (unsigned int i = 1; i < nr; i++) {
		pte_t tmp;

		addr += mm->m->geo.page_size;
		tmp = __ptep_get_and_clear(mm, addr, ptep + i);
		if (pte_dirty(tmp))
			pte = pte_mkdirty(pte);
		if (pte_young(tmp))
			pte = pte_mkyoung(pte);
	}
	return pte;
}

void __clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++, addr += mm->m->geo.page_size)
		__ptep_get_and_clear(mm, addr, ptep + i);
}

/* __ptep_set_wrprotect: one read, then a compare-and-swap of the new value. */
static void __ptep_set_wrprotect(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep)
{
	pte_t old = __ptep_get(mm, ptep);
	struct ptsim_machine *m = mm->m;
	pte_t new = pte_wrprotect(old);
	struct hw_as as = mm_as(mm);

	count(m, PTSIM_EV_PTE_CAS, 1);
	bbm_check_write(m, &as, addr, 3, old, new);
	*ptep = new;
}

void __wrprotect_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++, addr += mm->m->geo.page_size)
		__ptep_set_wrprotect(mm, addr, ptep + i);
}

pte_t ptep_get(struct ptsim_mm *mm, pte_t *ptep)
{
	pte_t pte;

	count(mm->m, PTSIM_EV_PTEP_GET, 1);
	pte = __ptep_get(mm, ptep);
	if (!pte_valid_cont(pte))
		return pte;
	return contpte_ptep_get(mm, ptep, pte);
}

void set_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte, unsigned int nr)
{
	count(mm->m, PTSIM_EV_SET_PTES, 1);
	pte = pte_mknoncont(pte);
	if (nr == 1) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(mm, ptep));
		__set_ptes(mm, addr, ptep, pte, 1);
		contpte_try_fold(mm, addr, ptep, pte);
	} else {
		contpte_set_ptes(mm, addr, ptep, pte, nr);
	}
}

pte_t ptep_get_and_clear(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep)
{
	contpte_try_unfold(mm, addr, ptep, __ptep_get(mm, ptep));
	return __ptep_get_and_clear(mm, addr, ptep);
}

pte_t get_and_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr,
			      int full)
{
	(void)full;	/* arm64 ignores it (spec §3.6) */
	if (nr == 1) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(mm, ptep));
		return __get_and_clear_full_ptes(mm, addr, ptep, 1);
	}
	return contpte_get_and_clear_full_ptes(mm, addr, ptep, nr);
}

void clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr, int full)
{
	(void)full;
	if (nr == 1) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(mm, ptep));
		__clear_full_ptes(mm, addr, ptep, 1);
		return;
	}
	contpte_clear_full_ptes(mm, addr, ptep, nr);
}

void wrprotect_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr)
{
	if (nr == 1) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(mm, ptep));
		__ptep_set_wrprotect(mm, addr, ptep);
		return;
	}
	contpte_wrprotect_ptes(mm, addr, ptep, nr);
}

/* Tables are allocated aligned to their size, so the pointer gives the index (as in the kernel). */
static unsigned int ptep_index_in_block(const struct ptsim_geometry *g, const pte_t *ptep)
{
	return (unsigned int)(((uintptr_t)ptep / sizeof(pte_t)) & (g->cont_ptes - 1));
}

unsigned int pte_batch_hint(struct ptsim_mm *mm, const pte_t *ptep, pte_t pte)
{
	const struct ptsim_geometry *g = &mm->m->geo;

	if (!pte_valid_cont(pte))
		return 1;
	return g->cont_ptes - ptep_index_in_block(g, ptep);
}
