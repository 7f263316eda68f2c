/* SPDX-License-Identifier: MIT */
/* The kernel linear map's state, shared by mmu.c and pageattr.c. */
#ifndef PTSIM_ASM_KERNEL_MAP_H
#define PTSIM_ASM_KERNEL_MAP_H

#include "internal.h"

struct kernel_map {
	struct ptsim_mem_range *ranges;
	unsigned int nr_ranges;
	uint64_t phys_offset;		/* PHYS_OFFSET: PA of PAGE_OFFSET */
	uint64_t page_offset;		/* _PAGE_OFFSET(VA_BITS) */
	uint64_t page_end;		/* PAGE_END: end of the linear map */
	uint64_t kernel_va, kernel_va_end;	/* the kernel image's linear alias */
	uint64_t kfence_va, kfence_size;
	bool rodata_full, debug_pagealloc, kfence_late;
	bool boot_bbml2;		/* cpu_supports_bbml2_noabort() on the boot CPU */
	bool system_bbml2;		/* the capability once finalised */
	bool caps_finalized;
	bool requires_bbml2;		/* linear_map_requires_bbml2, computed in map_mem */
	bool lazy, pending_barrier;
};

bool force_pte_mapping(const struct ptsim_mm *kmm);
bool can_set_direct_map(const struct ptsim_mm *kmm);
bool is_kfence_address(const struct kernel_map *k, uint64_t va);
void kernel_lazy_enter(struct ptsim_mm *kmm);
void kernel_lazy_leave(struct ptsim_mm *kmm);
void kernel_set_desc(struct ptsim_mm *kmm, uint64_t va, int level, pte_t *p, pte_t val);
int split_kernel_leaf_mapping(struct ptsim_mm *kmm, uint64_t start, uint64_t end);

#endif
