/* SPDX-License-Identifier: MIT */
/* The mmu_gather (models include/asm-generic/tlb.h and mm/mmu_gather.c with arm64's tlb_flush). */
#ifndef PTSIM_MMU_GATHER_H
#define PTSIM_MMU_GATHER_H

#include "internal.h"

struct mmu_gather {
	struct ptsim_mm *mm;
	uint64_t start, end;	/* [start, end) of everything touched; start > end when empty */
	bool fullmm;		/* exit_mmap: the whole address space goes */
	bool freed_tables;
	bool cleared_ptes, cleared_pmds, cleared_puds;
	bool delayed_rmap;	/* a dirty file folio's rmap removal waits for the flush */
	/*
	 * The page batches, as slot counts: the folios themselves are freed when
	 * their last mapping goes (nothing allocates before the flush), but the
	 * slots decide when a forced flush happens. active 0 is the on-stack bundle.
	 */
	unsigned int active, active_nr, batch_count;
	unsigned int nr_tables;	/* tables in the table batch (freed by RCU after the flush) */
	/*
	 * free_pages_and_swap_cache's folio_batch at the next flush (before
	 * v6.9: release_pages' chunk of a gather batch), counted as the entries
	 * join: how many are in the batch being filled, how many of those drop
	 * their folio's last reference, how many of those folios are large, and
	 * how many of an order the per-CPU page lists take (pcp_allowed_order).
	 */
	unsigned int put_nr, put_last, put_last_large, put_last_pcp;
};

void tlb_gather_mmu(struct mmu_gather *tlb, struct ptsim_mm *mm);
/* tlb_gather_mmu_fullmm: exit_mmap's gather; arm64 then issues no leaf TLBI. */
void tlb_gather_mmu_fullmm(struct mmu_gather *tlb, struct ptsim_mm *mm);
void tlb_finish_mmu(struct mmu_gather *tlb);
/* tlb_flush_pte_range / tlb_flush_pmd_range / tlb_flush_pud_range: bookkeeping only, no TLBI */
void tlb_flush_pte_range(struct mmu_gather *tlb, uint64_t addr, uint64_t size);
void tlb_flush_pmd_range(struct mmu_gather *tlb, uint64_t addr, uint64_t size);
void tlb_flush_pud_range(struct mmu_gather *tlb, uint64_t addr, uint64_t size);
void tlb_start_vma(struct mmu_gather *tlb);
/* tlb_end_vma: arm64 lacks MMU_GATHER_MERGE_VMAS, so every VMA end flushes (not at exit) */
void tlb_end_vma(struct mmu_gather *tlb);
/*
 * __tlb_remove_folio_pages: queue nr pages of one folio (one slot, two when
 * nr > 1); last when their reference is the folio's last, which the flush's
 * folios_put_refs then frees; order is that folio's. True when the batches
 * are full: the caller must flush.
 */
bool __tlb_remove_folio_pages(struct mmu_gather *tlb, unsigned int nr, bool last,
			      unsigned int order);
/* tlb_flush_mmu_tlbonly: the deferred TLB flush of what was gathered so far. */
void tlb_flush_mmu_tlbonly(struct mmu_gather *tlb);
/* tlb_flush_mmu: the TLB flush, then free the batched tables and pages. */
void tlb_flush_mmu(struct mmu_gather *tlb);
/*
 * pte_free_tlb / pmd_free_tlb / pud_free_tlb: unlink-time bookkeeping for a
 * table of `level` covering addr, then tlb_remove_table: the table joins the
 * table batch (a full batch is invalidated and freed at once).
 */
void free_table_tlb(struct mmu_gather *tlb, struct pt_table *t, uint64_t addr);

#endif
