/* SPDX-License-Identifier: MIT */
/* TLB maintenance entry points (models arch/arm64/include/asm/tlbflush.h). */
#ifndef PTSIM_ASM_TLBFLUSH_H
#define PTSIM_ASM_TLBFLUSH_H

#include "internal.h"
#include "hw.h"	/* the TLBI operations (struct tlbi_op) */

/* The barriers of arch/arm64/include/asm/barrier.h, run by CPU m->exec_cpu. */
void dsb_ishst(struct ptsim_machine *m);
void dsb_ish(struct ptsim_machine *m);
void dsb_sy(struct ptsim_machine *m);
void dsb_nsh(struct ptsim_machine *m);
void isb(struct ptsim_machine *m);
/*
 * One TLBI instruction as __tlbi issues it (ARM64_WORKAROUND_REPEAT_TLBI
 * included), from CPU m->exec_cpu: counted, applied to the TLB model and
 * the checker. The raw API's TLBIs; the kernel's go through the flushes below.
 */
void __tlbi_op(struct ptsim_machine *m, const struct tlbi_op *op);
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
/* flush_tlb_page_nosync: flush_tlb_page without its closing DSB ISH */
void flush_tlb_page_nosync(struct ptsim_mm *mm, uint64_t uaddr);
/*
 * __flush_tlb_range_nosync (v6.12 tlbflush.h): the TLBIs of a range without
 * the closing DSB ISH (flush_tlb_mm, with its own DSB, when the range is too
 * large). False when the range is empty and nothing was issued.
 */
bool __flush_tlb_range_nosync(struct ptsim_mm *mm, uint64_t start, uint64_t end, uint64_t stride,
			      bool last_level);
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
