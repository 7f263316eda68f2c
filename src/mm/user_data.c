// SPDX-License-Identifier: MIT
/*
 * What the program's pages hold, as far as the kernel looks at it: the
 * model keeps no page contents, and takes every page the program wrote to
 * hold data. A program that writes zeros says so (ptsim_set_zero_filled):
 * the anonymous folios wholly inside the range are then marked zero-filled
 * (a side map of head PFNs) until the program writes to them again or they
 * are freed; a split passes the mark on. v6.12's swap-out reads such a folio
 * through and keeps it as zeromap bits instead of writing it
 * (swap_writepage, "swap_zeromap").
 */
#include "asm/pgtable.h"
#include "primitives.h"

bool folio_zero_filled(const struct ptsim_machine *m, const struct folio *f)
{
	return m->folios.zero_filled.len && u64map_get(&m->folios.zero_filled, folio_pfn(m, f), NULL);
}

void folio_mark_zero_filled(struct ptsim_machine *m, const struct folio *f)
{
	/* out of host memory the folio stays unmarked: taken to hold data, as any written page */
	(void)u64map_put(&m->folios.zero_filled, folio_pfn(m, f), 1);
}

/*
 * Each anonymous folio mapped in [start, end), by a PTE or a PMD leaf, with
 * whether the range covers it whole. Uncounted: bookkeeping, not kernel
 * work; a walk over a huge range costs what is mapped in it.
 */
static void for_each_anon_folio(struct ptsim_mm *mm, uint64_t start, uint64_t end,
				void (*fn)(struct ptsim_machine *m, const struct folio *f, bool whole))
{
	const struct ptsim_geometry *g = &mm->m->geo;

	for (uint64_t va = start; (va = pt_next_used(mm, va, end)) < end;) {
		unsigned int idx;
		const struct pt_table *t = pt_lookup_leaf(mm, va, &idx);
		uint64_t leaf = t ? UINT64_C(1) << g->level_shift[t->level + 1] : g->page_size;
		uint64_t pfn, first, last;
		const struct folio *f;

		if (!t || !pte_present(t->desc[idx])) {
			va = ALIGN_DOWN64(va, leaf) + leaf;
			continue;
		}
		pfn = pte_pfn(g, t->desc[idx]) + ((va & (leaf - 1)) >> g->page_shift);
		f = pfn_folio(mm->m, pfn);
		if (!f || !(f->flags & FOLIO_ANON)) {
			va = ALIGN_DOWN64(va, g->page_size) + g->page_size;
			continue;
		}
		/* where the folio's first and last pages are mapped, if mapped in order from here */
		first = ALIGN_DOWN64(va, g->page_size) - ((pfn - folio_pfn(mm->m, f)) << g->page_shift);
		last = first + ((folio_nr_pages(f) - 1) << g->page_shift);
		fn(mm->m, f, first >= start && last >= first && last + g->page_size <= end);
		va = last >= va ? last + g->page_size : ALIGN_DOWN64(va, g->page_size) + g->page_size;
	}
}

static void mark_if_whole(struct ptsim_machine *m, const struct folio *f, bool whole)
{
	if (whole)
		folio_mark_zero_filled(m, f);
}

static void unmark(struct ptsim_machine *m, const struct folio *f, bool whole)
{
	(void)whole;
	u64map_del(&m->folios.zero_filled, folio_pfn(m, f));
}

void user_data_written(struct ptsim_mm *mm, uint64_t start, uint64_t len)
{
	if (mm->m->folios.zero_filled.len && !mm->raw)
		for_each_anon_folio(mm, ALIGN_DOWN64(start, mm->m->geo.page_size), start + len, unmark);
}

int ptsim_set_zero_filled(struct ptsim_mm *mm, uint64_t start, uint64_t len)
{
	VALIDATE(mm && !mm->kernel && !mm->raw && len && start + len > start &&
		 start + len <= (UINT64_C(1) << mm->m->geo.va_bits));
	REFUSE_IN_HANDLER(mm->m);
	for_each_anon_folio(mm, start, start + len, mark_if_whole);
	return 0;
}
