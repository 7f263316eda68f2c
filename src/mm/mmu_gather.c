// SPDX-License-Identifier: MIT
/* mmu_gather range accumulation and the deferred flush (see doc/mprotect.md). */
#include "mmu_gather.h"
#include "asm/tlbflush.h"

static void tlb_reset_range(struct mmu_gather *tlb)
{
	tlb->start = UINT64_MAX;
	tlb->end = 0;
	tlb->freed_tables = false;
	tlb->cleared_ptes = tlb->cleared_pmds = tlb->cleared_puds = false;
}

void tlb_gather_mmu(struct mmu_gather *tlb, struct ptsim_mm *mm)
{
	tlb->mm = mm;
	tlb->fullmm = false;
	tlb_reset_range(tlb);
	mm->tlb_flush_pending = true;	/* inc_tlb_flush_pending */
}

static void widen(struct mmu_gather *tlb, uint64_t addr, uint64_t size)
{
	count(tlb->mm->m, PTSIM_EV_TLB_GATHER_ADD, 1);
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

/* arm64 tlb_flush: a last-level range flush with the smallest cleared stride and a TTL hint. */
static void tlb_flush(struct mmu_gather *tlb)
{
	const struct ptsim_geometry *g = &tlb->mm->m->geo;
	bool last_level = !tlb->freed_tables;
	uint64_t stride;
	int level;

	if (tlb->fullmm) {
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

static void tlb_flush_mmu_tlbonly(struct mmu_gather *tlb)
{
	if (!(tlb->freed_tables || tlb->cleared_ptes || tlb->cleared_pmds || tlb->cleared_puds))
		return;
	fn_enter(tlb->mm->m, PTSIM_FN_TLB_FLUSH_MMU);
	tlb_flush(tlb);
	fn_exit(tlb->mm->m);
	tlb_reset_range(tlb);
}

void tlb_start_vma(struct mmu_gather *tlb)
{
	(void)tlb;	/* the cache-flush hook is a no-op on arm64 */
}

void tlb_end_vma(struct mmu_gather *tlb)
{
	tlb_flush_mmu_tlbonly(tlb);
}

void tlb_finish_mmu(struct mmu_gather *tlb)
{
	tlb_flush_mmu_tlbonly(tlb);
	tlb->mm->tlb_flush_pending = false;	/* dec_tlb_flush_pending */
}
