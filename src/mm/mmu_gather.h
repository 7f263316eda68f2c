/* SPDX-License-Identifier: MIT */
/* The mmu_gather (models include/asm-generic/tlb.h with arm64's tlb_flush). */
#ifndef PTSIM_MMU_GATHER_H
#define PTSIM_MMU_GATHER_H

#include "internal.h"

struct mmu_gather {
	struct ptsim_mm *mm;
	uint64_t start, end;	/* [start, end) of everything touched; start > end when empty */
	bool fullmm;
	bool freed_tables;
	bool cleared_ptes, cleared_pmds, cleared_puds;
};

void tlb_gather_mmu(struct mmu_gather *tlb, struct ptsim_mm *mm);
void tlb_finish_mmu(struct mmu_gather *tlb);
/* tlb_flush_pte_range / tlb_flush_pmd_range: bookkeeping only, no TLBI */
void tlb_flush_pte_range(struct mmu_gather *tlb, uint64_t addr, uint64_t size);
void tlb_flush_pmd_range(struct mmu_gather *tlb, uint64_t addr, uint64_t size);
void tlb_start_vma(struct mmu_gather *tlb);
/* tlb_end_vma: arm64 lacks MMU_GATHER_MERGE_VMAS, so every VMA end flushes */
void tlb_end_vma(struct mmu_gather *tlb);

#endif
