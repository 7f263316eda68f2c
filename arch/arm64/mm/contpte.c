// SPDX-License-Identifier: MIT
/*
 * Transparent contiguous-PTE management (models arch/arm64/mm/contpte.c;
 * behaviour and counts in doc/mprotect.md).
 */
#include "asm/pgtable.h"
#include "asm/tlbflush.h"
#include "primitives.h"

static bool mm_is_user(const struct ptsim_mm *mm)
{
	return !mm->kernel;
}

static uint64_t block_start(const struct ptsim_geometry *g, uint64_t addr)
{
	return ALIGN_DOWN64(addr, g->cont_pte_size);
}

/* contpte_align_down(ptep): the first entry of the block, from the VA. */
static pte_t *block_ptep(const struct ptsim_geometry *g, uint64_t addr, pte_t *ptep)
{
	return ptep - ((addr - block_start(g, addr)) >> g->page_shift);
}

static bool ptep_block_aligned(const struct ptsim_geometry *g, const pte_t *ptep)
{
	return (((uintptr_t)ptep / sizeof(pte_t)) & (g->cont_ptes - 1)) == 0;
}

/* contpte_try_fold's pre-filter: a block's last entry, aligned both ways, valid and plain */
bool contpte_try_fold_calls(const struct ptsim_geometry *g, uint64_t addr, pte_t pte)
{
	uint64_t mask = g->cont_ptes - 1;
	bool valign = ((addr >> g->page_shift) & mask) == mask;
	bool palign = (pte_pfn(g, pte) & mask) == mask;

	return valign && palign && pte_valid(pte) && !pte_cont(pte) && !pte_special(pte);
}

/* contpte_try_fold: the inline pre-filter, then __contpte_try_fold. */
void contpte_try_fold(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte)
{
	if (contpte_try_fold_calls(&mm->m->geo, addr, pte))
		__contpte_try_fold(mm, addr, ptep, pte);
}

/* contpte_try_unfold: only a valid+cont entry is unfolded. */
void contpte_try_unfold(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte)
{
	if (pte_valid_cont(pte))
		__contpte_try_unfold(mm, addr, ptep, pte);
}

/*
 * contpte_convert: clear the whole block (gathering access/dirty), flush it
 * unless the CPU is BBML2-noabort and the v6.17 elision is in, then rewrite
 * every entry from pte.
 */
static void contpte_convert(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	uint64_t start = block_start(g, addr);
	pte_t *start_ptep = block_ptep(g, addr, ptep);
	pte_t gathered;

	fn_enter(m, PTSIM_FN_CONTPTE_CONVERT);
	prim_count(m, PRIM_CONTPTE_CONVERT, 1);
	pte = pfn_pte(g, ALIGN_DOWN64(pte_pfn(g, pte), g->cont_ptes), pte_pgprot(g, pte));
	/* the kernel's loop of __ptep_get_and_clear: the same exchanges, made as one batch */
	gathered = __get_and_clear_full_ptes(mm, start, start_ptep, g->cont_ptes);
	if (pte_dirty(gathered))
		pte = pte_mkdirty(pte);
	if (pte_young(gathered))
		pte = pte_mkyoung(pte);
	if (!(m->cpu->bbml2_noabort && feature(m, PTSIM_FEAT_CONTPTE_BBML2_ELISION)))
		__flush_tlb_range(mm, start, start + g->cont_pte_size, g->page_size, true, 3);
	__set_ptes(mm, start, start_ptep, pte, g->cont_ptes);
	fn_exit(m);
}

/*
 * __contpte_try_fold: same folio covering the block, identical normalised
 * entries (§3.3). Out of line: its call is counted at entry, before the
 * mm_is_user test that makes it return at once for init_mm (v6.12 contpte.c).
 */
void __contpte_try_fold(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	uint64_t start = block_start(g, addr), folio_start, folio_end, pfn = pte_pfn(g, pte);
	const struct folio *folio;
	pte_t *p = block_ptep(g, addr, ptep);
	pte_t expected;

	/* the call is made (and counted) before the check, for init_mm too (v6.12) */
	prim_count(m, PRIM_CONTPTE_TRY_FOLD, 1);
	if (!mm_is_user(mm))
		return;
	folio = page_folio(m, pfn);	/* pte_page -> page_folio */
	if (!folio)
		return;
	folio_start = addr - ((pfn - folio_pfn(mm->m, folio)) << g->page_shift);
	folio_end = folio_start + (folio_nr_pages(folio) << g->page_shift);
	if (folio_start > start || folio_end < start + g->cont_pte_size)
		return;
	expected = pfn_pte(g, ALIGN_DOWN64(pfn, g->cont_ptes),
			   pte_pgprot(g, pte_mkold(pte_mkclean(pte))));
	for (unsigned int i = 0; i < g->cont_ptes; i++) {
		pte_t sub = pte_mkold(pte_mkclean(__ptep_get(mm, p + i)));

		if (sub != expected)
			return;
		expected = pte_advance_pfn(g, expected, 1);
	}
	prim_count(m, PRIM_CONTPTE_FOLD, 1);
	contpte_convert(mm, addr, ptep, pte_mkcont(pte));
}

/* __contpte_try_unfold: rewrite the block non-cont with the gathered access/dirty (§3.4). */
void __contpte_try_unfold(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte)
{
	prim_count(mm->m, PRIM_CONTPTE_TRY_UNFOLD, 1);	/* the call, as for the fold */
	if (!mm_is_user(mm))
		return;
	contpte_convert(mm, addr, ptep, pte_mknoncont(pte));
}

/* One __ptep_get of the block's entry, counted by the caller (all at once: __ptep_get_n). */
static inline pte_t block_read(const pte_t *p, unsigned int *reads)
{
	(*reads)++;
	return *p;
}

/*
 * contpte_ptep_get: OR access/dirty over the block. Pre-v6.17 reads every
 * entry; the v6.17 early exit stops once both have been seen (§3.7).
 */
pte_t contpte_ptep_get(struct ptsim_mm *mm, pte_t *ptep, pte_t orig_pte)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	const pte_t *p = ptep - (((uintptr_t)ptep / sizeof(pte_t)) & (g->cont_ptes - 1));
	unsigned int i, n = g->cont_ptes, reads = 0;

	prim_count(mm->m, PRIM_CONTPTE_PTEP_GET, 1);
	if (!feature(mm->m, PTSIM_FEAT_CONTPTE_GET_EARLY_EXIT)) {
		for (i = 0; i < n; i++) {
			pte_t pte = block_read(p + i, &reads);

			count_loop_path(mm->m, pte_dirty(pte) ? PTSIM_LOOP_CONTPTE_PTEP_GET_DIRTY :
							       PTSIM_LOOP_CONTPTE_PTEP_GET_CLEAN);
			if (pte_dirty(pte))
				orig_pte = pte_mkdirty(orig_pte);
			if (pte_young(pte))
				orig_pte = pte_mkyoung(orig_pte);
		}
		__ptep_get_n(mm, p, reads, n);
		return orig_pte;
	}
	for (i = 0; i < n; i++) {
		pte_t pte = block_read(p + i, &reads);

		if (pte_dirty(pte)) {
			orig_pte = pte_mkdirty(orig_pte);
			for (; i < n; i++) {
				if (pte_young(block_read(p + i, &reads))) {
					orig_pte = pte_mkyoung(orig_pte);
					break;
				}
			}
			break;
		}
		if (pte_young(pte)) {
			orig_pte = pte_mkyoung(orig_pte);
			for (i++; i < n; i++) {
				if (pte_dirty(block_read(p + i, &reads))) {
					orig_pte = pte_mkdirty(orig_pte);
					break;
				}
			}
			break;
		}
	}
	/* priced as v6.12's turns (one load and its tests each): no object of this shape is built */
	count_loop_paths(mm->m, PTSIM_LOOP_CONTPTE_PTEP_GET_CLEAN, reads);
	__ptep_get_n(mm, p, reads, n);
	return orig_pte;
}

/*
 * contpte_set_ptes: chunks ending at block boundaries; cont only on full
 * aligned chunks (§3.5). An out-of-line call (v6.12 contpte.c, EXPORT_SYMBOL_GPL).
 */
void contpte_set_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte,
		      unsigned int nr)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	uint64_t end = addr + ((uint64_t)nr << g->page_shift);

	kernel_call(mm->m, CONTPTE_SET_PTES);
	if (!mm_is_user(mm)) {
		__set_ptes(mm, addr, ptep, pte, nr);
		return;
	}
	do {
		uint64_t next = MIN(block_start(g, addr) + g->cont_pte_size, end);
		unsigned int chunk = (unsigned int)((next - addr) >> g->page_shift);
		uint64_t pa = pte_pfn(g, pte) << g->page_shift;

		if (((addr | next | pa) & (g->cont_pte_size - 1)) == 0)
			pte = pte_mkcont(pte);
		else
			pte = pte_mknoncont(pte);
		__set_ptes(mm, addr, ptep, pte, chunk);
		addr = next;
		ptep += chunk;
		pte = pte_advance_pfn(g, pte, chunk);
	} while (addr != end);
}

/* contpte_try_unfold_partial: unfold only blocks the range covers partly (§3.6). */
static void contpte_try_unfold_partial(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep,
				       unsigned int nr)
{
	const struct ptsim_geometry *g = &mm->m->geo;

	if (!ptep_block_aligned(g, ptep) || nr < g->cont_ptes)
		contpte_try_unfold(mm, addr, ptep, __ptep_get(mm, ptep));
	if (!ptep_block_aligned(g, ptep + nr)) {
		uint64_t last = addr + ((uint64_t)(nr - 1) << g->page_shift);

		contpte_try_unfold(mm, last, ptep + nr - 1, __ptep_get(mm, ptep + nr - 1));
	}
}

/* The batch helpers below are out-of-line calls too (v6.12 contpte.c). */
pte_t contpte_get_and_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep,
				      unsigned int nr)
{
	kernel_call(mm->m, CONTPTE_GET_AND_CLEAR_FULL_PTES);
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	return __get_and_clear_full_ptes(mm, addr, ptep, nr);
}

void contpte_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr)
{
	kernel_call(mm->m, CONTPTE_CLEAR_FULL_PTES);
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	__clear_full_ptes(mm, addr, ptep, nr);
}

/*
 * contpte_clear_young_dirty_ptes: a range that starts or ends inside a
 * contiguous block is widened to the whole block; no unfold, no flush.
 */
void contpte_clear_young_dirty_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep,
				    unsigned int nr, unsigned int flags)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	uint64_t start = addr, end = addr + ((uint64_t)nr << g->page_shift);

	kernel_call(mm->m, CONTPTE_CLEAR_YOUNG_DIRTY_PTES);
	if (pte_cont(__ptep_get(mm, ptep + nr - 1)))
		end = ALIGN_UP64(end, g->cont_pte_size);
	if (pte_cont(__ptep_get(mm, ptep))) {
		start = block_start(g, addr);
		ptep = block_ptep(g, addr, ptep);
	}
	__clear_young_dirty_ptes(mm, start, ptep, (unsigned int)((end - start) >> g->page_shift),
				 flags);
	/* the loop's turns, the priced ones: both bits, or young alone */
	if (flags == (CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY) || flags == CYDP_CLEAR_YOUNG)
		count_loop_paths(mm->m, flags == CYDP_CLEAR_YOUNG ?
				 PTSIM_LOOP_CLEAR_YOUNG_DIRTY_PTES_YOUNG :
				 PTSIM_LOOP_CLEAR_YOUNG_DIRTY_PTES_YOUNG_AND_DIRTY,
				 (end - start) >> g->page_shift);
}

/*
 * contpte_ptep_clear_flush_young (v6.12, out of line, with
 * contpte_ptep_test_and_clear_young inline in it): AF cleared in every
 * entry of the block (the folio's age is the block's: no unfold), then,
 * when any was young, the block's TLBIs without a DSB
 * (__flush_tlb_range_nosync, last level).
 */
bool contpte_ptep_clear_flush_young(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	uint64_t start = block_start(g, addr);
	pte_t *p = block_ptep(g, addr, ptep);
	bool young = false;

	kernel_call(mm->m, CONTPTE_PTEP_CLEAR_FLUSH_YOUNG);
	for (unsigned int i = 0; i < g->cont_ptes; i++)
		young |= __ptep_test_and_clear_young(mm, start + ((uint64_t)i << g->page_shift), p + i);
	count_loop_paths(mm->m, PTSIM_LOOP_CONTPTE_PTEP_TEST_AND_CLEAR_YOUNG_ENTRY, g->cont_ptes);
	if (young)
		__flush_tlb_range_nosync(mm, start, start + g->cont_pte_size, g->page_size, true);
	return young;
}

/* contpte_wrprotect_ptes: fully covered blocks stay folded; the caller flushes. */
void contpte_wrprotect_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr)
{
	kernel_call(mm->m, CONTPTE_WRPROTECT_PTES);
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	__wrprotect_ptes(mm, addr, ptep, nr);
}
