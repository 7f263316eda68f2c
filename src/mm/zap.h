/* SPDX-License-Identifier: MIT */
/* The teardown path shared by munmap, exit and MADV_DONTNEED (src/mm/zap.c). */
#ifndef PTSIM_ZAP_H
#define PTSIM_ZAP_H

#include "mmu_gather.h"

/*
 * unmap_page_range: zap every mapping of [start, end), one VMA's part,
 * flushing at its end. A PMD THP the range cuts is split with a table from
 * spare (MADV_DONTNEED); munmap and exit split VMAs and THPs beforehand.
 */
void unmap_page_range(struct mmu_gather *tlb, struct ptsim_mm *mm, uint64_t start, uint64_t end,
		      struct spare_tables *spare);
/*
 * free_pgtables for the unmapped [start, end): free the tables that lie
 * inside [floor, ceiling) (ceiling 0: the top of the address space).
 */
void free_pgtables(struct mmu_gather *tlb, uint64_t start, uint64_t end, uint64_t floor,
		   uint64_t ceiling);

/*
 * The unmap core of munmap, mremap and MAP_FIXED: split the VMAs [start, end)
 * cuts (THPs there with tables from spare), zap, free tables, remove the
 * VMAs. Cannot fail: the caller reserved two VMA slots and the spare tables.
 */
void do_vmi_munmap(struct ptsim_mm *mm, uint64_t start, uint64_t end, struct spare_tables *spare);

#endif
