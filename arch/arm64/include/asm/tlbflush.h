/* SPDX-License-Identifier: MIT */
/* TLB maintenance entry points (models arch/arm64/include/asm/tlbflush.h). */
#ifndef PTSIM_ASM_TLBFLUSH_H
#define PTSIM_ASM_TLBFLUSH_H

#include "internal.h"

enum tlbi_kind {
	TLBI_KIND_VA,		/* VA(L)E1IS: one page of one ASID */
	TLBI_KIND_VAA,		/* VAA(L)E1IS: one page, every ASID (kernel) */
	TLBI_KIND_RANGE,	/* RVA(L)E1IS */
	TLBI_KIND_RANGE_VAA,	/* RVAA(L)E1IS */
	TLBI_KIND_ASID,		/* ASIDE1IS */
	TLBI_KIND_ALL,		/* VMALLE1IS */
};

/* One TLBI instruction as the TLB model sees it. */
/* No TTL hint: the level of the entries to invalidate is not known (INT_MAX since v6.9). */
#define TLBI_TTL_UNKNOWN	0x7fffffff

struct tlbi_op {
	enum tlbi_kind kind;
	unsigned int asid;
	uint64_t va;		/* start, page aligned */
	uint64_t pages;		/* pages covered (1 for by-VA ops) */
	bool last_level;	/* the *L* forms: leaf entries only */
};

void dsb_ishst(struct ptsim_machine *m);
void dsb_ish(struct ptsim_machine *m);
void isb(struct ptsim_machine *m);
/*
 * nr_cpus CPUs each run local_flush_tlb_all (TLBI VMALLE1, no broadcast):
 * counted here; the caller drops the TLB model's entries, since when they go
 * depends on the path (a rollover's deferred flush, a split's wait loop).
 */
void local_flush_tlb_all(struct ptsim_machine *m, unsigned int nr_cpus);

/* Block-style range flush (v6.17 __flush_tlb_range). */
void __flush_tlb_range(struct ptsim_mm *mm, uint64_t start, uint64_t end, uint64_t stride,
		       bool last_level, int tlb_level);
/*
 * flush_pmd_tlb_range (arm64 pgtable.h): __flush_tlb_range with stride
 * PMD_SIZE, last_level false (the walk caches too) and TTL level 2.
 */
void flush_pmd_tlb_range(struct ptsim_mm *mm, uint64_t start, uint64_t end);
void flush_tlb_range(struct ptsim_mm *mm, uint64_t start, uint64_t end);
void flush_tlb_mm(struct ptsim_mm *mm);
void flush_tlb_page(struct ptsim_mm *mm, uint64_t uaddr);
void flush_tlb_kernel_range(struct ptsim_machine *m, uint64_t start, uint64_t end);
void flush_tlb_all(struct ptsim_machine *m);
/*
 * Reclaim's deferred flush (ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH, arm64 since
 * v6.5): arch_tlbbatch_add_pending issues a last-level range TLBI for an
 * unmapped range without waiting for it; arch_tlbbatch_flush is the one
 * DSB ISH that completes every TLBI issued before it.
 */
void arch_tlbbatch_add_pending(struct ptsim_mm *mm, uint64_t start, uint64_t end);
void arch_tlbbatch_flush(struct ptsim_machine *m);

#endif
