// SPDX-License-Identifier: MIT
/*
 * Compiles the kernel's arch/arm64/mm/contpte.c from the tree named by the
 * kernel_source build option (the path arrives as KSH_CONTPTE_C) over the
 * shim headers, and gives its functions plain C entry points
 * (kernel-contpte.h). No kernel code is in this repository: the file is
 * included from the user's tree at build time, into a test binary only.
 *
 * The kernel file's exported functions are renamed (kernel_*) so that the
 * model's contpte layer, which has the same names, links beside them.
 */
#define __contpte_try_fold			kernel___contpte_try_fold
#define __contpte_try_unfold			kernel___contpte_try_unfold
#define contpte_ptep_get			kernel_contpte_ptep_get
#define contpte_ptep_get_lockless		kernel_contpte_ptep_get_lockless
#define contpte_set_ptes			kernel_contpte_set_ptes
#define contpte_clear_full_ptes			kernel_contpte_clear_full_ptes
#define contpte_get_and_clear_full_ptes		kernel_contpte_get_and_clear_full_ptes
#define contpte_ptep_test_and_clear_young	kernel_contpte_ptep_test_and_clear_young
#define contpte_ptep_clear_flush_young		kernel_contpte_ptep_clear_flush_young
#define contpte_wrprotect_ptes			kernel_contpte_wrprotect_ptes
#define contpte_clear_young_dirty_ptes		kernel_contpte_clear_young_dirty_ptes
#define contpte_ptep_set_access_flags		kernel_contpte_ptep_set_access_flags

#include KSH_CONTPTE_C

#include "kernel-contpte.h"

struct mm_struct init_mm;

/*
 * The functions the entry hooks know, by address. contpte_convert is static
 * in the kernel file: this file is its translation unit, so it can name it.
 */
const struct ksh_kernel_fns ksh_kernel_fns = {
	.contpte_convert = (const void *)contpte_convert,
	.try_fold = (const void *)__contpte_try_fold,
	.try_unfold = (const void *)__contpte_try_unfold,
	.ptep_get = (const void *)contpte_ptep_get,
	.set_ptes = (const void *)contpte_set_ptes,
	.get_and_clear_full_ptes = (const void *)contpte_get_and_clear_full_ptes,
	.clear_full_ptes = (const void *)contpte_clear_full_ptes,
	.wrprotect_ptes = (const void *)contpte_wrprotect_ptes,
	.clear_young_dirty_ptes = (const void *)contpte_clear_young_dirty_ptes,
	.ptep_set_access_flags = (const void *)contpte_ptep_set_access_flags,
	.ptep_clear_flush_young = (const void *)contpte_ptep_clear_flush_young,
};

/* The kernel's view of mm: init_mm for the model's kernel mm, else a user mm. */
#define KC_MM(name, mm)								\
	struct mm_struct name##_user = { .ptsim = (mm) };			\
	struct mm_struct *name = kc_mm(&name##_user)

static struct mm_struct *kc_mm(struct mm_struct *user)
{
	ksh_set_current(user->ptsim);
	if (ksh_mm_is_kernel(user->ptsim)) {
		init_mm.ptsim = user->ptsim;
		return &init_mm;
	}
	return user;
}

#define KC_VMA(name, mm)							\
	KC_MM(name##_mm, mm);							\
	struct vm_area_struct name##_vma = TLB_FLUSH_VMA(name##_mm, 0);	\
	struct vm_area_struct *name = &name##_vma

static pte_t *kc_ptep(uint64_t *ptep)
{
	return (pte_t *)ptep;
}

void kc_contpte_try_fold(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, uint64_t pte)
{
	KC_MM(kmm, mm);

	contpte_try_fold(kmm, addr, kc_ptep(ptep), __pte(pte));
}

void kc_contpte_try_unfold(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, uint64_t pte)
{
	KC_MM(kmm, mm);

	contpte_try_unfold(kmm, addr, kc_ptep(ptep), __pte(pte));
}

void kc___contpte_try_fold(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, uint64_t pte)
{
	KC_MM(kmm, mm);

	__contpte_try_fold(kmm, addr, kc_ptep(ptep), __pte(pte));
}

void kc___contpte_try_unfold(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, uint64_t pte)
{
	KC_MM(kmm, mm);

	__contpte_try_unfold(kmm, addr, kc_ptep(ptep), __pte(pte));
}

/* set_ptes with nr == 1 (v6.12 asm/pgtable.h): the part that stays inline. */
void kc_set_pte_one(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, uint64_t pte)
{
	KC_MM(kmm, mm);
	pte_t *p = kc_ptep(ptep);
	pte_t val = pte_mknoncont(__pte(pte));

	contpte_try_unfold(kmm, addr, p, __ptep_get(p));
	__set_ptes(kmm, addr, p, val, 1);
	contpte_try_fold(kmm, addr, p, val);
}

uint64_t kc_contpte_ptep_get(struct ptsim_mm *mm, uint64_t *ptep, uint64_t orig_pte)
{
	ksh_set_current(mm);
	return pte_val(contpte_ptep_get(kc_ptep(ptep), __pte(orig_pte)));
}

uint64_t kc_contpte_ptep_get_lockless(struct ptsim_mm *mm, uint64_t *ptep)
{
	ksh_set_current(mm);
	return pte_val(contpte_ptep_get_lockless(kc_ptep(ptep)));
}

void kc_contpte_set_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, uint64_t pte,
			 unsigned int nr)
{
	KC_MM(kmm, mm);

	contpte_set_ptes(kmm, addr, kc_ptep(ptep), __pte(pte), nr);
}

void kc_contpte_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep,
				unsigned int nr, int full)
{
	KC_MM(kmm, mm);

	contpte_clear_full_ptes(kmm, addr, kc_ptep(ptep), nr, full);
}

uint64_t kc_contpte_get_and_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep,
					    unsigned int nr, int full)
{
	KC_MM(kmm, mm);

	return pte_val(contpte_get_and_clear_full_ptes(kmm, addr, kc_ptep(ptep), nr, full));
}

void kc_contpte_wrprotect_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep,
			       unsigned int nr)
{
	KC_MM(kmm, mm);

	contpte_wrprotect_ptes(kmm, addr, kc_ptep(ptep), nr);
}

void kc_contpte_clear_young_dirty_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep,
				       unsigned int nr, unsigned int flags)
{
	KC_VMA(vma, mm);

	contpte_clear_young_dirty_ptes(vma, addr, kc_ptep(ptep), nr, flags);
}

int kc_contpte_ptep_test_and_clear_young(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep)
{
	KC_VMA(vma, mm);

	return contpte_ptep_test_and_clear_young(vma, addr, kc_ptep(ptep));
}

int kc_contpte_ptep_clear_flush_young(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep)
{
	KC_VMA(vma, mm);

	return contpte_ptep_clear_flush_young(vma, addr, kc_ptep(ptep));
}

int kc_contpte_ptep_set_access_flags(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep,
				     uint64_t entry, int dirty)
{
	KC_VMA(vma, mm);

	return contpte_ptep_set_access_flags(vma, addr, kc_ptep(ptep), __pte(entry), dirty);
}
