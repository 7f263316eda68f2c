/* SPDX-License-Identifier: MIT */
/*
 * arm64 stage-1 descriptor bits (Arm ARM D8.3) with the software bits Linux
 * puts in them (Arm ARM D8.3). Models pgtable-hwdef.h and
 * pgtable-prot.h. Physical addresses are below 2^48 in this model, so the
 * output address is bits [47:PAGE_SHIFT] for every granule.
 */
#ifndef PTSIM_ASM_PGTABLE_HWDEF_H
#define PTSIM_ASM_PGTABLE_HWDEF_H

#include <stdint.h>

#define BIT64(n)		(UINT64_C(1) << (n))
#define GENMASK64(h, l)		((~UINT64_C(0) >> (63 - (h))) & ~((UINT64_C(1) << (l)) - 1))

#define PTE_VALID		BIT64(0)
#define PTE_TYPE_MASK		UINT64_C(3)
#define PTE_TYPE_PAGE		UINT64_C(3)	/* at level 3 */
#define PTE_TABLE_BIT		BIT64(1)
#define PMD_TYPE_TABLE		UINT64_C(3)	/* at levels 0..2 */
#define PMD_TYPE_SECT		UINT64_C(1)	/* block, at levels 1..2 */
#define PTE_ATTRINDX_SHIFT	2
#define PTE_ATTRINDX_MASK	(UINT64_C(7) << PTE_ATTRINDX_SHIFT)
#define PTE_ATTRINDX(t)		((uint64_t)(t) << PTE_ATTRINDX_SHIFT)
#define PTE_USER		BIT64(6)	/* AP[1] */
#define PTE_RDONLY		BIT64(7)	/* AP[2] */
#define PTE_SHARED		(UINT64_C(3) << 8)	/* SH[1:0] inner shareable */
#define PTE_AF			BIT64(10)
#define PTE_NG			BIT64(11)
#define PTE_GP			BIT64(50)	/* BTI guarded */
#define PTE_DBM			BIT64(51)
#define PTE_CONT		BIT64(52)
#define PTE_PXN			BIT64(53)
#define PTE_UXN			BIT64(54)
#define PTE_PO_IDX_MASK		GENMASK64(62, 60)

/* Table descriptor attributes (levels 0..2). */
#define PMD_TABLE_AF		BIT64(10)	/* FEAT_HAFT table Access Flag */
#define PMD_TABLE_PXN		BIT64(59)
#define PMD_TABLE_UXN		BIT64(60)

/* Linux software bits (pgtable-prot.h). */
#define PTE_WRITE		PTE_DBM		/* "writable" is the DBM bit */
#define PTE_DIRTY		BIT64(55)
#define PTE_SPECIAL		BIT64(56)
#define PTE_UFFD_WP		BIT64(58)
#define PTE_PRESENT_INVALID	PTE_NG		/* only meaningful when !PTE_VALID */
#define PTE_SWBITS_MASK		(GENMASK64(58, 55) | BIT64(63))	/* software bits */
#define PTE_SWP_EXCLUSIVE	BIT64(2)
#define PTE_SWP_UFFD_WP		BIT64(3)

#define PTE_ADDR_HIGH		47
#define PTE_ADDR_MASK(shift)	GENMASK64(PTE_ADDR_HIGH, (shift))

/* MAIR indices used by Linux (asm/memory.h). */
#define MT_NORMAL		0
#define MT_NORMAL_TAGGED	1
#define MT_NORMAL_NC		2
#define MT_DEVICE_nGnRnE	3
#define MT_DEVICE_nGnRE		4

/* Protections (pgtable-prot.h). */
#define PROT_DEFAULT		(PTE_TYPE_PAGE | PTE_AF | PTE_SHARED)
#define PROT_SECT_DEFAULT	(PMD_TYPE_SECT | PTE_AF | PTE_SHARED)
#define _PAGE_DEFAULT		(PROT_DEFAULT | PTE_ATTRINDX(MT_NORMAL))

#define PAGE_NONE		((_PAGE_DEFAULT & ~PTE_VALID) | PTE_PRESENT_INVALID | \
				 PTE_RDONLY | PTE_PXN | PTE_UXN)
#define PAGE_SHARED		(_PAGE_DEFAULT | PTE_USER | PTE_RDONLY | PTE_NG | PTE_PXN | \
				 PTE_UXN | PTE_WRITE)
#define PAGE_SHARED_EXEC	(_PAGE_DEFAULT | PTE_USER | PTE_RDONLY | PTE_NG | PTE_PXN | \
				 PTE_WRITE)
#define PAGE_READONLY		(_PAGE_DEFAULT | PTE_USER | PTE_RDONLY | PTE_NG | PTE_PXN | \
				 PTE_UXN)
#define PAGE_READONLY_EXEC	(_PAGE_DEFAULT | PTE_USER | PTE_RDONLY | PTE_NG | PTE_PXN)
#define PAGE_EXECONLY		(_PAGE_DEFAULT | PTE_RDONLY | PTE_NG | PTE_PXN)
#define PAGE_KERNEL		(_PAGE_DEFAULT | PTE_PXN | PTE_UXN | PTE_WRITE | PTE_DIRTY)

/* Bits pte_modify() takes from the new protection (pgtable.h). */
/* Linux's names are the hardware's bits (arch/arm64/hw/desc.h). */
#include "desc.h"
_Static_assert(PTE_VALID == DESC_VALID && PTE_TYPE_MASK == DESC_TYPE_MASK &&
	       PTE_TYPE_PAGE == DESC_TYPE_PAGE && PMD_TYPE_TABLE == DESC_TYPE_TABLE &&
	       PMD_TYPE_SECT == DESC_TYPE_BLOCK && PTE_ATTRINDX_MASK == DESC_ATTRINDX_MASK &&
	       PTE_USER == DESC_AP1 && PTE_RDONLY == DESC_AP2 && PTE_SHARED == DESC_SH_MASK &&
	       PTE_AF == DESC_AF && PTE_NG == DESC_NG && PTE_GP == DESC_GP &&
	       PTE_DBM == DESC_DBM && PTE_CONT == DESC_CONT && PTE_PXN == DESC_PXN &&
	       PTE_UXN == DESC_UXN && PTE_ADDR_MASK(12) == DESC_OA_MASK(12) &&
	       PTE_ADDR_MASK(16) == DESC_OA_MASK(16) &&
	       ((PTE_DIRTY | PTE_SPECIAL | PTE_UFFD_WP) & ~DESC_SW_MASK) == 0 &&
	       MT_NORMAL == MAIR_IDX_NORMAL && MT_NORMAL_TAGGED == MAIR_IDX_NORMAL_TAGGED,
	       "Linux's descriptor bits are the hardware's");

#define PTE_MODIFY_MASK		(PTE_USER | PTE_PXN | PTE_UXN | PTE_RDONLY | \
				 PTE_PRESENT_INVALID | PTE_VALID | PTE_WRITE | PTE_GP | \
				 PTE_ATTRINDX_MASK | PTE_PO_IDX_MASK)

#endif
