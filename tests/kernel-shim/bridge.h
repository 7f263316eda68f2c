/* SPDX-License-Identifier: MIT */
/*
 * The kernel shim's bridge (doc/kernel-source.md): plain C functions, with no
 * kernel and no libptsim type in their signatures, through which the shim
 * headers (tests/kernel-shim/include) reach libptsim's counted primitives.
 * The shim side includes this file beside its own pte_t; bridge.c, which
 * implements it, includes libptsim's internal headers. Every read, store,
 * exchange, TLBI and DSB a kernel file compiled over the shim makes is made
 * by the same primitive the model's own code calls.
 */
#ifndef KSH_BRIDGE_H
#define KSH_BRIDGE_H

#include <stdbool.h>
#include <stdint.h>

struct ptsim_mm;

/*
 * The arm64 descriptor bits the kernel file names (architectural and Linux's
 * software bits); bridge.c asserts each equal to libptsim's asm/pgtable-hwdef.h.
 */
#define KSH_PTE_VALID	(UINT64_C(1) << 0)
#define KSH_PTE_RDONLY	(UINT64_C(1) << 7)
#define KSH_PTE_AF	(UINT64_C(1) << 10)
#define KSH_PTE_WRITE	(UINT64_C(1) << 51)
#define KSH_PTE_CONT	(UINT64_C(1) << 52)
#define KSH_PTE_DIRTY	(UINT64_C(1) << 55)
/* sizeof(struct page): one model folio record per page frame (the vmemmap's arithmetic). */
#define KSH_STRUCT_PAGE_BYTES	12

/*
 * The mm whose tables the kernel file is working on: the kernel's raw
 * accessors (__ptep_get) take no mm, so the driver names it before each call.
 */
void ksh_set_current(struct ptsim_mm *mm);
struct ptsim_mm *ksh_current(void);
/* The model's kernel mm (init_mm to the kernel file). */
bool ksh_mm_is_kernel(const struct ptsim_mm *mm);

/* The granule of the current mm (PAGE_SHIFT, CONT_PTES are run-time values here). */
unsigned int ksh_page_shift(void);
unsigned int ksh_cont_ptes(void);
/* system_supports_bbml2_noabort(): the CPU's BBML2-noabort allow-list entry. */
bool ksh_bbml2_noabort(void);
/* VM_WARN_ON and friends: a "warn" diagnostic of the current machine. */
void ksh_warn(const char *what);

/* The descriptor helpers of libptsim's asm/pgtable.h, one by one. */
enum ksh_pte_fn {
	KSH_PTE_MKDIRTY, KSH_PTE_MKCLEAN, KSH_PTE_MKYOUNG, KSH_PTE_MKOLD,
	KSH_PTE_MKCONT, KSH_PTE_MKNONCONT, KSH_PTE_WRPROTECT, KSH_PTE_MKWRITE,
};
enum ksh_pte_test {
	KSH_PTE_IS_VALID, KSH_PTE_IS_CONT, KSH_PTE_IS_VALID_CONT, KSH_PTE_IS_DIRTY,
	KSH_PTE_IS_YOUNG, KSH_PTE_IS_WRITE, KSH_PTE_IS_SPECIAL, KSH_PTE_IS_PRESENT,
	KSH_PTE_IS_NONE,
};
uint64_t ksh_pte_fn(enum ksh_pte_fn fn, uint64_t pte);
bool ksh_pte_test(enum ksh_pte_test test, uint64_t pte);
uint64_t ksh_pte_pfn(uint64_t pte);
uint64_t ksh_pte_pgprot(uint64_t pte);
uint64_t ksh_pfn_pte(uint64_t pfn, uint64_t prot);
uint64_t ksh_pte_advance_pfn(uint64_t pte, uint64_t nr);

/* struct page is the model's folio record of the frame; page_folio its head's. */
void *ksh_pfn_to_page(uint64_t pfn);
uint64_t ksh_page_to_pfn(const void *page);
void *ksh_page_folio(const void *page);
uint64_t ksh_folio_nr_pages(const void *folio);

/* The raw accessors of arm64's asm/pgtable.h (arch/arm64/primitives/pgtable.c). */
uint64_t ksh_ptep_get(const uint64_t *ptep);
void ksh_set_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, uint64_t pte,
		  unsigned int nr);
uint64_t ksh_ptep_get_and_clear(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep);
uint64_t ksh_get_and_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep,
				     unsigned int nr);
void ksh_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, unsigned int nr);
void ksh_wrprotect_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, unsigned int nr);
void ksh_clear_young_dirty_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep,
				unsigned int nr, unsigned int flags);
int ksh_ptep_test_and_clear_young(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep);
int ksh_ptep_set_access_flags(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep,
			      uint64_t entry, int dirty);

/* asm/tlbflush.h (arch/arm64/primitives/tlbflush.c). */
void ksh_flush_tlb_range(struct ptsim_mm *mm, uint64_t start, uint64_t end, uint64_t stride,
			 bool last_level, int tlb_level);
void ksh_flush_tlb_range_nosync(struct ptsim_mm *mm, uint64_t start, uint64_t end,
				uint64_t stride, bool last_level, int tlb_level);

/*
 * The kernel file's functions, by address (the wrapper that compiles it
 * takes them, static ones too): the entry hooks of -finstrument-functions
 * count each call as the model counts the call of the same function.
 */
struct ksh_kernel_fns {
	const void *contpte_convert, *try_fold, *try_unfold, *ptep_get, *set_ptes,
		*get_and_clear_full_ptes, *clear_full_ptes, *wrprotect_ptes,
		*clear_young_dirty_ptes, *ptep_set_access_flags, *ptep_clear_flush_young;
};
extern const struct ksh_kernel_fns ksh_kernel_fns;

#endif
