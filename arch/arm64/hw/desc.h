/* SPDX-License-Identifier: MIT */
/*
 * The VMSAv8-64 stage-1 descriptor format as the hardware reads it (Arm ARM
 * D8.3, "Translation table descriptor formats"): the bits a table walk, the
 * TLB and the break-before-make rules look at. Linux's names for the same
 * bits, and its software bits, are in arch/arm64/include/asm/pgtable-hwdef.h,
 * which asserts that they agree with these. Output addresses are below 2^48
 * in this model, so the output address is bits [47:page shift].
 */
#ifndef PTSIM_HW_DESC_H
#define PTSIM_HW_DESC_H

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t desc_t;	/* one descriptor, at any level */

#define DESC_BIT(n)		(UINT64_C(1) << (n))
#define DESC_VALID		DESC_BIT(0)
#define DESC_TYPE_MASK		UINT64_C(3)
#define DESC_TYPE_TABLE		UINT64_C(3)	/* levels 0..2: next-level table */
#define DESC_TYPE_BLOCK		UINT64_C(1)	/* levels 1..2 */
#define DESC_TYPE_PAGE		UINT64_C(3)	/* level 3 */
#define DESC_ATTRINDX_SHIFT	2
#define DESC_ATTRINDX_MASK	(UINT64_C(7) << DESC_ATTRINDX_SHIFT)
#define DESC_ATTRINDX(i)	((uint64_t)(i) << DESC_ATTRINDX_SHIFT)
#define DESC_AP1		DESC_BIT(6)	/* EL0 access */
#define DESC_AP2		DESC_BIT(7)	/* read-only */
#define DESC_SH_MASK		(UINT64_C(3) << 8)
#define DESC_AF			DESC_BIT(10)
#define DESC_NG			DESC_BIT(11)
#define DESC_GP			DESC_BIT(50)	/* BTI guarded page */
#define DESC_DBM		DESC_BIT(51)
#define DESC_CONT		DESC_BIT(52)
#define DESC_PXN		DESC_BIT(53)
#define DESC_UXN		DESC_BIT(54)
/* Bits [58:55] are reserved for software use: the hardware ignores them. */
#define DESC_SW_MASK		(DESC_BIT(55) | DESC_BIT(56) | DESC_BIT(57) | DESC_BIT(58))
#define DESC_OA_HIGH		47
/* The output-address bits of a descriptor mapping pages of 2^shift bytes. */
#define DESC_OA_MASK(shift)	(((~UINT64_C(0)) >> (63 - DESC_OA_HIGH)) & ~(DESC_BIT(shift) - 1))

/*
 * MAIR_EL1 as the modelled CPUs run it (Linux programs it so:
 * asm/memory.h's MT_NORMAL and MT_NORMAL_TAGGED): the two indices whose
 * attributes differ only in MTE tagging.
 */
#define MAIR_IDX_NORMAL		0
#define MAIR_IDX_NORMAL_TAGGED	1

static inline bool desc_valid(desc_t d) { return d & DESC_VALID; }
static inline bool desc_cont(desc_t d) { return d & DESC_CONT; }

/* At levels 0..2: does d point to a next-level table? */
static inline bool desc_is_table(desc_t d) { return (d & DESC_TYPE_MASK) == DESC_TYPE_TABLE; }
/* At levels 1..2: is d a block? */
static inline bool desc_is_block(desc_t d) { return (d & DESC_TYPE_MASK) == DESC_TYPE_BLOCK; }

/* The frame number of d's output address, for pages of 2^shift bytes. */
static inline uint64_t desc_oa_pfn(desc_t d, unsigned int shift)
{
	return (d & DESC_OA_MASK(shift)) >> shift;
}

/* d with its output address moved on by bytes (the next page of a run). */
static inline desc_t desc_advance_oa(desc_t d, desc_t oa_mask, uint64_t bytes)
{
	return (d & ~oa_mask) | ((d + bytes) & oa_mask);
}

#endif
