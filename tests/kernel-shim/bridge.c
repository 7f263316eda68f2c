// SPDX-License-Identifier: MIT
/*
 * The model's side of the kernel shim (bridge.h): each function is one of
 * libptsim's own helpers or counted primitives, so the kernel file compiled
 * over the shim is counted by the code that counts the model.
 */
#include "internal.h"
#include "primitives.h"
#include "asm/pgtable.h"
#include "asm/tlbflush.h"
#include "bridge.h"

_Static_assert(KSH_PTE_VALID == PTE_VALID && KSH_PTE_RDONLY == PTE_RDONLY &&
	       KSH_PTE_AF == PTE_AF && KSH_PTE_WRITE == PTE_WRITE && KSH_PTE_CONT == PTE_CONT &&
	       KSH_PTE_DIRTY == PTE_DIRTY, "the shim's descriptor bits are libptsim's");
_Static_assert(KSH_STRUCT_PAGE_BYTES == sizeof(struct folio),
	       "struct page is one folio record");
_Static_assert(sizeof(pte_t) == sizeof(uint64_t), "pte_t is one 64-bit descriptor");

/* The test binary's one kernel context: the mm the kernel file works on now. */
static struct ptsim_mm *current_mm;

void ksh_set_current(struct ptsim_mm *mm)
{
	current_mm = mm;
}

struct ptsim_mm *ksh_current(void)
{
	return current_mm;
}

bool ksh_mm_is_kernel(const struct ptsim_mm *mm)
{
	return mm->kernel;
}

static struct ptsim_machine *machine(void)
{
	return current_mm->m;
}

unsigned int ksh_page_shift(void)
{
	return machine()->geo.page_shift;
}

unsigned int ksh_cont_ptes(void)
{
	return machine()->geo.cont_ptes;
}

bool ksh_bbml2_noabort(void)
{
	return machine()->cpu->bbml2_noabort;
}

void ksh_warn(const char *what)
{
	diag_report(machine(), PTSIM_DIAG_WARN, 0, -1, 0, 0, "%s", what);
}

uint64_t ksh_pte_fn(enum ksh_pte_fn fn, uint64_t pte)
{
	switch (fn) {
	case KSH_PTE_MKDIRTY:
		return pte_mkdirty(pte);
	case KSH_PTE_MKCLEAN:
		return pte_mkclean(pte);
	case KSH_PTE_MKYOUNG:
		return pte_mkyoung(pte);
	case KSH_PTE_MKOLD:
		return pte_mkold(pte);
	case KSH_PTE_MKCONT:
		return pte_mkcont(pte);
	case KSH_PTE_MKNONCONT:
		return pte_mknoncont(pte);
	case KSH_PTE_WRPROTECT:
		return pte_wrprotect(pte);
	case KSH_PTE_MKWRITE:
		return pte_mkwrite(pte);
	}
	return pte;
}

bool ksh_pte_test(enum ksh_pte_test test, uint64_t pte)
{
	switch (test) {
	case KSH_PTE_IS_VALID:
		return pte_valid(pte);
	case KSH_PTE_IS_CONT:
		return pte_cont(pte);
	case KSH_PTE_IS_VALID_CONT:
		return pte_valid_cont(pte);
	case KSH_PTE_IS_DIRTY:
		return pte_dirty(pte);
	case KSH_PTE_IS_YOUNG:
		return pte_young(pte);
	case KSH_PTE_IS_WRITE:
		return pte_write(pte);
	case KSH_PTE_IS_SPECIAL:
		return pte_special(pte);
	case KSH_PTE_IS_PRESENT:
		return pte_present(pte);
	case KSH_PTE_IS_NONE:
		return pte_none(pte);
	}
	return false;
}

uint64_t ksh_pte_pfn(uint64_t pte)
{
	return pte_pfn(&machine()->geo, pte);
}

uint64_t ksh_pte_pgprot(uint64_t pte)
{
	return pte_pgprot(&machine()->geo, pte);
}

uint64_t ksh_pfn_pte(uint64_t pfn, uint64_t prot)
{
	return pfn_pte(&machine()->geo, pfn, prot);
}

uint64_t ksh_pte_advance_pfn(uint64_t pte, uint64_t nr)
{
	return pte_advance_pfn(&machine()->geo, pte, nr);
}

/* The vmemmap: the record of frame pfn (frames outside the store have none). */
void *ksh_pfn_to_page(uint64_t pfn)
{
	const struct folio_store *fs = &machine()->folios;

	if (pfn < fs->base_pfn || pfn - fs->base_pfn >= fs->nr_pages)
		return NULL;
	return fs->map + (pfn - fs->base_pfn);
}

uint64_t ksh_page_to_pfn(const void *page)
{
	return folio_pfn(machine(), page);
}

void *ksh_page_folio(const void *page)
{
	return page_folio(machine(), ksh_page_to_pfn(page));
}

uint64_t ksh_folio_nr_pages(const void *folio)
{
	return folio_nr_pages(folio);
}

uint64_t ksh_ptep_get(const uint64_t *ptep)
{
	return __ptep_get(current_mm, ptep);
}

void ksh_set_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, uint64_t pte,
		  unsigned int nr)
{
	__set_ptes(mm, addr, ptep, pte, nr);
}

uint64_t ksh_ptep_get_and_clear(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep)
{
	return __ptep_get_and_clear(mm, addr, ptep);
}

uint64_t ksh_get_and_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep,
				     unsigned int nr)
{
	return __get_and_clear_full_ptes(mm, addr, ptep, nr);
}

void ksh_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, unsigned int nr)
{
	__clear_full_ptes(mm, addr, ptep, nr);
}

void ksh_wrprotect_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep, unsigned int nr)
{
	__wrprotect_ptes(mm, addr, ptep, nr);
}

void ksh_clear_young_dirty_ptes(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep,
				unsigned int nr, unsigned int flags)
{
	__clear_young_dirty_ptes(mm, addr, ptep, nr, flags);
}

/* __ptep_test_and_clear_young (v6.12 asm/pgtable.h): libptsim's */
int ksh_ptep_test_and_clear_young(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep)
{
	return __ptep_test_and_clear_young(mm, addr, ptep);
}

/*
 * __ptep_set_access_flags (v6.12 arch/arm64/mm/fault.c), as src/mm/memory.c
 * models it (there static): the call, a read, and unless the entry already
 * is the new one the compare-and-swap of the merged access, dirty and write
 * state; flush_tlb_page when asked. Returns whether it changed the entry.
 */
int ksh_ptep_set_access_flags(struct ptsim_mm *mm, uint64_t addr, uint64_t *ptep,
			      uint64_t entry, int dirty)
{
	pte_t pte;

	kernel_call(mm->m, __PTEP_SET_ACCESS_FLAGS);
	pte = read_desc(mm, PTE_LEVEL, ptep);
	if (pte == entry)
		return 0;
	entry &= PTE_RDONLY | PTE_AF | PTE_WRITE | PTE_DIRTY;
	cmpxchg_desc(mm, addr, PTE_LEVEL, ptep, ((pte ^ PTE_RDONLY) | (entry ^ PTE_RDONLY)) ^
		     PTE_RDONLY);
	if (dirty)
		flush_tlb_page(mm, addr);
	return 1;
}

void ksh_flush_tlb_range(struct ptsim_mm *mm, uint64_t start, uint64_t end, uint64_t stride,
			 bool last_level, int tlb_level)
{
	__flush_tlb_range(mm, start, end, stride, last_level, tlb_level);
}

/*
 * __flush_tlb_range_nosync: libptsim's is reachable as arch_tlbbatch_add_pending
 * (a last-level, page-stride range without the DSB), the one form contpte.c
 * asks for; any other form is flushed with its DSB, and warned about.
 */
void ksh_flush_tlb_range_nosync(struct ptsim_mm *mm, uint64_t start, uint64_t end,
				uint64_t stride, bool last_level, int tlb_level)
{
	if (stride == mm->m->geo.page_size && last_level) {
		arch_tlbbatch_add_pending(mm, start, end);
		return;
	}
	ksh_warn("__flush_tlb_range_nosync of a form the shim does not have: flushed with a DSB");
	__flush_tlb_range(mm, start, end, stride, last_level, tlb_level);
}

/*
 * Entry hooks (-finstrument-functions on the kernel file): a call of one of
 * its out-of-line functions is counted as the model counts the same call at
 * the entry of its own function, and contpte_convert is attributed as the
 * model's is (fn_enter). The model counts a fold (CONTPTE_FOLD) when
 * __contpte_try_fold calls contpte_convert.
 */
#define HOOK_DEPTH 16
static const void *hook_stack[HOOK_DEPTH];
static unsigned int hook_depth;

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

void __cyg_profile_func_enter(void *fn, void *site)
{
	const struct ksh_kernel_fns *k = &ksh_kernel_fns;
	struct ptsim_machine *m = machine();
	const void *caller = hook_depth ? hook_stack[hook_depth - 1] : NULL;

	(void)site;
	if (hook_depth < HOOK_DEPTH)
		hook_stack[hook_depth] = fn;
	hook_depth++;
	if (fn == k->contpte_convert) {
		if (caller == k->try_fold)
			prim_count(m, PRIM_CONTPTE_FOLD, 1);
		fn_enter(m, PTSIM_FN_CONTPTE_CONVERT);
		prim_count(m, PRIM_CONTPTE_CONVERT, 1);
	} else if (fn == k->try_fold) {
		prim_count(m, PRIM_CONTPTE_TRY_FOLD, 1);
	} else if (fn == k->try_unfold) {
		prim_count(m, PRIM_CONTPTE_TRY_UNFOLD, 1);
	} else if (fn == k->ptep_get) {
		prim_count(m, PRIM_CONTPTE_PTEP_GET, 1);
	} else if (fn == k->set_ptes) {
		kernel_call(m, CONTPTE_SET_PTES);
	} else if (fn == k->get_and_clear_full_ptes) {
		kernel_call(m, CONTPTE_GET_AND_CLEAR_FULL_PTES);
	} else if (fn == k->clear_full_ptes) {
		kernel_call(m, CONTPTE_CLEAR_FULL_PTES);
	} else if (fn == k->wrprotect_ptes) {
		kernel_call(m, CONTPTE_WRPROTECT_PTES);
	} else if (fn == k->clear_young_dirty_ptes) {
		kernel_call(m, CONTPTE_CLEAR_YOUNG_DIRTY_PTES);
	} else if (fn == k->ptep_set_access_flags) {
		kernel_call(m, CONTPTE_PTEP_SET_ACCESS_FLAGS);
	} else if (fn == k->ptep_clear_flush_young) {
		kernel_call(m, CONTPTE_PTEP_CLEAR_FLUSH_YOUNG);
	}
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	hook_depth--;
	if (fn == ksh_kernel_fns.contpte_convert)
		fn_exit(machine());
}
