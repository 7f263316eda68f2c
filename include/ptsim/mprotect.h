/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_MPROTECT_H
#define PTSIM_MPROTECT_H

#include <stdint.h>
#include <ptsim/export.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ptsim_mm;

/*
 * mprotect(start, len, prot) as do_mprotect_pkey does it: VMA split/merge,
 * change_protection over every VMA in the range, one mmu_gather flush per VMA.
 * The PTE loop follows PTSIM_FEAT_MPROTECT_PTE_BATCHING (off: per-PTE v6.16
 * loop; on: the v6.17 batched loop). Returns 0, -EINVAL (bad start or prot),
 * or -ENOMEM (a hole in the range, or no memory), leaving the mm unchanged;
 * except that with ptsim_mm_set_kernel_errors on, a hole after the start
 * comes back as the kernel's -ENOMEM after the VMAs before it changed.
 */
PTSIM_API int ptsim_mprotect(struct ptsim_mm *mm, uint64_t start, uint64_t len, unsigned int prot);

/*
 * change_prot_numa(vma, start, end) over the VMAs of the range: NUMA-hinting
 * PROT_NONE with MM_CP_PROT_NUMA, skipping what prot_numa_skip() skips. The
 * model has one memory node, so a private VMA of a single-threaded mm is
 * skipped whole ("already on the target node"); shared VMAs and mms with more
 * than one thread (ptsim_mm_set_threads) get their entries changed.
 */
PTSIM_API int ptsim_change_prot_numa(struct ptsim_mm *mm, uint64_t start, uint64_t len);

#ifdef __cplusplus
}
#endif

#endif
