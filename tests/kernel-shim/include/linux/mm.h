/* SPDX-License-Identifier: MIT */
/*
 * Shim of linux/mm.h for compiling arch/arm64/mm/contpte.c from a kernel tree
 * over libptsim (doc/kernel-source.md). Our own definitions, in the kernel's
 * names: the kernel's types as thin wrappers of the model's, its helpers as
 * calls of the model's counted primitives (bridge.h).
 */
#ifndef KSH_LINUX_MM_H
#define KSH_LINUX_MM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bridge.h"

typedef uint64_t u64;

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* include/linux/align.h, kernel.h */
#define ALIGN(x, a)		(((x) + ((__typeof__(x))(a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a)	((x) & ~((__typeof__(x))(a) - 1))
#define PTR_ALIGN_DOWN(p, a)	((__typeof__(p))ALIGN_DOWN((uintptr_t)(p), (a)))

/* include/linux/mmdebug.h (CONFIG_DEBUG_VM): a warning is a "warn" diagnostic. */
#define VM_WARN_ON(cond)	((void)((cond) ? (ksh_warn("VM_WARN_ON(" #cond ")"), 1) : 0))
#define VM_WARN_ON_ONCE(cond)	VM_WARN_ON(cond)
#define VM_BUG_ON(cond)		VM_WARN_ON(cond)

/* struct mm_struct: the model's mm it stands for. */
struct mm_struct {
	struct ptsim_mm *ptsim;
};
/* init_mm: the kernel's mm (mm_is_user is false for it). */
extern struct mm_struct init_mm;

/* struct vm_area_struct: the fields the file reads. */
struct vm_area_struct {
	struct mm_struct *vm_mm;
	unsigned long vm_flags;
};
/* asm/tlbflush.h's TLB_FLUSH_VMA: a VMA on the stack for a flush. */
#define TLB_FLUSH_VMA(mm, flags)	{ .vm_mm = (mm), .vm_flags = (flags) }

#include <asm/pgtable.h>

/*
 * struct page is the model's record of the frame, so pointer arithmetic on
 * pages is PFN arithmetic (the vmemmap's); struct folio starts with its head.
 */
struct page {
	unsigned char record[KSH_STRUCT_PAGE_BYTES];
};
struct folio {
	struct page page;
};

static inline struct page *pte_page(pte_t pte)
{
	return (struct page *)ksh_pfn_to_page(ksh_pte_pfn(pte_val(pte)));
}

/* page_folio: the model's counted primitive (a load of the struct page). */
static inline struct folio *page_folio(struct page *page)
{
	return (struct folio *)ksh_page_folio(page);
}

static inline long folio_nr_pages(const struct folio *folio)
{
	return (long)ksh_folio_nr_pages(folio);
}

#endif
