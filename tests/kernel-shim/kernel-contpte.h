/* SPDX-License-Identifier: MIT */
/*
 * The kernel's arch/arm64/mm/contpte.c, compiled from a kernel tree over the
 * shim (contpte-kernel.c, doc/kernel-source.md), as plain C entry points a
 * libptsim test can call beside the model's own contpte layer. Each is the
 * kernel function of the same name after kc_ (the inline wrappers of asm/
 * pgtable.h where named so), run over mm's tables with libptsim's counted
 * primitives.
 */
#ifndef KSH_KERNEL_CONTPTE_H
#define KSH_KERNEL_CONTPTE_H

#include <stdint.h>

struct ptsim_mm;

/* contpte_try_fold / contpte_try_unfold: the asm/pgtable.h inline filters, then the call. */
void kc_contpte_try_fold(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, uint64_t pte);
void kc_contpte_try_unfold(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, uint64_t pte);
void kc___contpte_try_fold(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, uint64_t pte);
void kc___contpte_try_unfold(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, uint64_t pte);
/* set_ptes for one entry (asm/pgtable.h): the unfold test, __set_ptes, the fold filter. */
void kc_set_pte_one(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, uint64_t pte);
uint64_t kc_contpte_ptep_get(struct ptsim_mm *mm, uint64_t *ptep, uint64_t orig_pte);
uint64_t kc_contpte_ptep_get_lockless(struct ptsim_mm *mm, uint64_t *ptep);
void kc_contpte_set_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, uint64_t pte,
			 unsigned int nr);
void kc_contpte_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep,
				unsigned int nr, int full);
uint64_t kc_contpte_get_and_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep,
					    unsigned int nr, int full);
void kc_contpte_wrprotect_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep,
			       unsigned int nr);
void kc_contpte_clear_young_dirty_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep,
				       unsigned int nr, unsigned int flags);
int kc_contpte_ptep_test_and_clear_young(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep);
int kc_contpte_ptep_clear_flush_young(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep);
int kc_contpte_ptep_set_access_flags(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep,
				     uint64_t entry, int dirty);

#endif
