/* SPDX-License-Identifier: MIT */
/*
 * Shim of arch/arm64/include/asm/pgtable.h (with the pieces of pgtable-types.h,
 * pgtable-hwdef.h and page-def.h contpte.c uses). The types are the kernel's
 * (pte_t a struct, so the kernel's type checks hold); every helper is the
 * model's own (libptsim's asm/pgtable.h) through bridge.h, and every access
 * to a descriptor is the model's counted accessor.
 */
#ifndef KSH_ASM_PGTABLE_H
#define KSH_ASM_PGTABLE_H

#include <linux/mm.h>

typedef uint64_t pteval_t;
typedef struct { pteval_t pte; } pte_t;
typedef struct { pteval_t pgprot; } pgprot_t;
typedef unsigned int cydp_t;

#define pte_val(x)	((x).pte)
#define __pte(x)	((pte_t){ (x) })
#define pgprot_val(x)	((x).pgprot)
#define __pgprot(x)	((pgprot_t){ (x) })

/* The granule is the model's, chosen at run time (asm/page-def.h, pgtable-hwdef.h). */
#define PAGE_SHIFT	ksh_page_shift()
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define CONT_PTES	ksh_cont_ptes()
#define CONT_PTE_SIZE	((unsigned long)CONT_PTES * PAGE_SIZE)
#define CONT_PTE_MASK	(~(CONT_PTE_SIZE - 1))

#define PTE_VALID	KSH_PTE_VALID
#define PTE_RDONLY	KSH_PTE_RDONLY
#define PTE_AF		KSH_PTE_AF
#define PTE_WRITE	KSH_PTE_WRITE
#define PTE_CONT	KSH_PTE_CONT
#define PTE_DIRTY	KSH_PTE_DIRTY

/* pte_cont_addr_end: the end of addr's contiguous block, or end if sooner. */
static inline unsigned long pte_cont_addr_end(unsigned long addr, unsigned long end)
{
	unsigned long boundary = (addr + CONT_PTE_SIZE) & CONT_PTE_MASK;

	return boundary - 1 < end - 1 ? boundary : end;
}

#define KSH_PTE_TEST(name, test)						\
	static inline bool name(pte_t pte) { return ksh_pte_test(test, pte_val(pte)); }
KSH_PTE_TEST(pte_valid, KSH_PTE_IS_VALID)
KSH_PTE_TEST(pte_cont, KSH_PTE_IS_CONT)
KSH_PTE_TEST(pte_valid_cont, KSH_PTE_IS_VALID_CONT)
KSH_PTE_TEST(pte_dirty, KSH_PTE_IS_DIRTY)
KSH_PTE_TEST(pte_young, KSH_PTE_IS_YOUNG)
KSH_PTE_TEST(pte_write, KSH_PTE_IS_WRITE)
KSH_PTE_TEST(pte_special, KSH_PTE_IS_SPECIAL)
KSH_PTE_TEST(pte_present, KSH_PTE_IS_PRESENT)
KSH_PTE_TEST(pte_none, KSH_PTE_IS_NONE)
#undef KSH_PTE_TEST

#define KSH_PTE_FN(name, fn)							\
	static inline pte_t name(pte_t pte) { return __pte(ksh_pte_fn(fn, pte_val(pte))); }
KSH_PTE_FN(pte_mkdirty, KSH_PTE_MKDIRTY)
KSH_PTE_FN(pte_mkclean, KSH_PTE_MKCLEAN)
KSH_PTE_FN(pte_mkyoung, KSH_PTE_MKYOUNG)
KSH_PTE_FN(pte_mkold, KSH_PTE_MKOLD)
KSH_PTE_FN(pte_mkcont, KSH_PTE_MKCONT)
KSH_PTE_FN(pte_mknoncont, KSH_PTE_MKNONCONT)
KSH_PTE_FN(pte_wrprotect, KSH_PTE_WRPROTECT)
KSH_PTE_FN(pte_mkwrite_novma, KSH_PTE_MKWRITE)
#undef KSH_PTE_FN

static inline bool pte_same(pte_t a, pte_t b) { return pte_val(a) == pte_val(b); }
static inline unsigned long pte_pfn(pte_t pte) { return ksh_pte_pfn(pte_val(pte)); }
static inline pgprot_t pte_pgprot(pte_t pte) { return __pgprot(ksh_pte_pgprot(pte_val(pte))); }
static inline pte_t pfn_pte(unsigned long pfn, pgprot_t prot)
{
	return __pte(ksh_pfn_pte(pfn, pgprot_val(prot)));
}
static inline pte_t pte_advance_pfn(pte_t pte, unsigned long nr)
{
	return __pte(ksh_pte_advance_pfn(pte_val(pte), nr));
}

/* ---- the raw accessors: libptsim's counted ones ---- */
static inline pte_t __ptep_get(pte_t *ptep)
{
	return __pte(ksh_ptep_get(&ptep->pte));
}
static inline void __set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte,
			      unsigned int nr)
{
	ksh_set_ptes(mm->ptsim, addr, &ptep->pte, pte_val(pte), nr);
}
static inline pte_t __ptep_get_and_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	return __pte(ksh_ptep_get_and_clear(mm->ptsim, addr, &ptep->pte));
}
static inline pte_t __get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
					      pte_t *ptep, unsigned int nr, int full)
{
	(void)full;
	return __pte(ksh_get_and_clear_full_ptes(mm->ptsim, addr, &ptep->pte, nr));
}
static inline void __clear_full_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
				     unsigned int nr, int full)
{
	(void)full;
	ksh_clear_full_ptes(mm->ptsim, addr, &ptep->pte, nr);
}
static inline void __wrprotect_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
				    unsigned int nr)
{
	ksh_wrprotect_ptes(mm->ptsim, addr, &ptep->pte, nr);
}
static inline void __clear_young_dirty_ptes(struct vm_area_struct *vma, unsigned long addr,
					    pte_t *ptep, unsigned int nr, cydp_t flags)
{
	ksh_clear_young_dirty_ptes(vma->vm_mm->ptsim, addr, &ptep->pte, nr, flags);
}
static inline int __ptep_test_and_clear_young(struct vm_area_struct *vma, unsigned long addr,
					      pte_t *ptep)
{
	return ksh_ptep_test_and_clear_young(vma->vm_mm->ptsim, addr, &ptep->pte);
}
static inline int __ptep_set_access_flags(struct vm_area_struct *vma, unsigned long addr,
					  pte_t *ptep, pte_t entry, int dirty)
{
	return ksh_ptep_set_access_flags(vma->vm_mm->ptsim, addr, &ptep->pte, pte_val(entry),
					 dirty);
}

/* arm64's cpufeature.h: the BBML2-noabort allow-list (v6.16+ contpte.c asks it). */
static inline bool system_supports_bbml2_noabort(void)
{
	return ksh_bbml2_noabort();
}

/* ---- contpte.c's own functions, and the inline wrappers around them ---- */
void __contpte_try_fold(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte);
void __contpte_try_unfold(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte);
pte_t contpte_ptep_get(pte_t *ptep, pte_t orig_pte);
pte_t contpte_ptep_get_lockless(pte_t *orig_ptep);
void contpte_set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte,
		      unsigned int nr);
void contpte_clear_full_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			     unsigned int nr, int full);
pte_t contpte_get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
				      unsigned int nr, int full);
int contpte_ptep_test_and_clear_young(struct vm_area_struct *vma, unsigned long addr,
				      pte_t *ptep);
int contpte_ptep_clear_flush_young(struct vm_area_struct *vma, unsigned long addr, pte_t *ptep);
void contpte_wrprotect_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			    unsigned int nr);
void contpte_clear_young_dirty_ptes(struct vm_area_struct *vma, unsigned long addr, pte_t *ptep,
				    unsigned int nr, cydp_t flags);
int contpte_ptep_set_access_flags(struct vm_area_struct *vma, unsigned long addr, pte_t *ptep,
				  pte_t entry, int dirty);

/*
 * contpte_try_fold (v6.12 asm/pgtable.h, inline): only the last entry of a
 * block, virtually and physically, valid, not yet cont and not special,
 * calls __contpte_try_fold.
 */
static inline void contpte_try_fold(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
				    pte_t pte)
{
	const unsigned long last = CONT_PTES - 1;

	if (((addr >> PAGE_SHIFT) & last) == last && (pte_pfn(pte) & last) == last &&
	    pte_valid(pte) && !pte_cont(pte) && !pte_special(pte))
		__contpte_try_fold(mm, addr, ptep, pte);
}

/* contpte_try_unfold (v6.12 asm/pgtable.h, inline): only a valid cont entry calls out. */
static inline void contpte_try_unfold(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
				      pte_t pte)
{
	if (pte_valid_cont(pte))
		__contpte_try_unfold(mm, addr, ptep, pte);
}

#endif
