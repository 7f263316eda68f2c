/* SPDX-License-Identifier: MIT */
/*
 * Shim of arch/arm64/include/asm/tlbflush.h: the range flushes are libptsim's
 * (arch/arm64/primitives/tlbflush.c), which count every TLBI and DSB and show
 * them to the TLB model and the break-before-make checker.
 */
#ifndef KSH_ASM_TLBFLUSH_H
#define KSH_ASM_TLBFLUSH_H

#include <linux/mm.h>

static inline void __flush_tlb_range_nosync(struct vm_area_struct *vma, unsigned long start,
					    unsigned long end, unsigned long stride,
					    bool last_level, int tlb_level)
{
	ksh_flush_tlb_range_nosync(vma->vm_mm->ptsim, start, end, stride, last_level, tlb_level);
}

static inline void __flush_tlb_range(struct vm_area_struct *vma, unsigned long start,
				     unsigned long end, unsigned long stride, bool last_level,
				     int tlb_level)
{
	ksh_flush_tlb_range(vma->vm_mm->ptsim, start, end, stride, last_level, tlb_level);
}

#endif
