/* SPDX-License-Identifier: MIT */
/* Address-space switching (models arch/arm64/include/asm/mmu_context.h and mm/context.c). */
#ifndef PTSIM_ASM_MMU_CONTEXT_H
#define PTSIM_ASM_MMU_CONTEXT_H

#include "internal.h"
#include "hw.h"

/* The address space an mm gives the MMU: its pgd, its ASID, TTBR1 for the kernel mm. */
static inline struct hw_as mm_as(const struct ptsim_mm *mm)
{
	return (struct hw_as){ .root = mm->pgd, .asid = mm->asid, .ttbr1 = mm->kernel };
}

/*
 * check_and_switch_context: before mm runs on a CPU, make sure its ASID is of
 * the current generation, allocating a new one (and rolling the generation
 * over, with its TLB flush) when it is not.
 */
void check_and_switch_context(struct ptsim_mm *mm);

#endif
