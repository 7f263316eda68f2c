// SPDX-License-Identifier: MIT
/*
 * Faults (models handle_mm_fault, do_anonymous_page with mTHP,
 * do_read_fault, do_cow_fault, do_shared_fault, do_wp_page, wp_page_copy
 * and finish_fault in mm/memory.c, and do_huge_pmd_anonymous_page in
 * mm/huge_memory.c), and population.
 */
#include "asm/pgtable.h"
#include "asm/tlbflush.h"
#include "filemap.h"
#include "host_array.h"
#include "hw.h"
#include "primitives.h"

#include <stdlib.h>

/*
 * A fault's fixed work (v6.12 arch/arm64/mm/fault.c do_page_fault ->
 * handle_mm_fault): the exception's entry and return and the walk of
 * __handle_mm_fault (C_FAULT), the VMA found and read-locked under RCU
 * (lock_vma_under_rcu, vma_end_read), and mm_account_fault's PGFAULT
 * events. The folio's memcg charge, LRU add and mm counters are counted
 * where the fault path makes them. A fault the model takes for
 * get_user_pages (__mm_populate) is counted the same, although the kernel's
 * faultin_page enters handle_mm_fault under the mmap_lock its caller holds.
 */
static void do_page_fault(struct ptsim_mm *mm, const struct vma *v)
{
	kernel_call(mm->m, DO_PAGE_FAULT);
	lock_vma_under_rcu(mm, v);
	mm_account_fault(mm->m);
}

/*
 * vm_normal_page + page_folio: special entries (the zero page) have no
 * normal page; a normal one takes the body the loop prices price.
 */
struct page_ref vm_normal_page(struct ptsim_mm *mm, pte_t pte)
{
	struct page_ref ref = { 0 };
	uint64_t pfn = pte_pfn(&mm->m->geo, pte);

	kernel_call(mm->m, VM_NORMAL_PAGE);
	mm->m->hot_page_pfn = pfn;
	if (pte_special(pte))
		return ref;
	count_loop_path(mm->m, PTSIM_LOOP_VM_NORMAL_PAGE_NORMAL);
	/* a normal page's struct page is read (page_folio): priced by the level it hits */
	dcache_page_load(mm->m, pfn);
	ref.folio = pfn_folio(mm->m, pfn);
	if (ref.folio)
		ref.idx = pfn - folio_pfn(mm->m, ref.folio);
	return ref;
}

/*
 * A new anonymous folio's accounting in the fault paths (v6.12
 * alloc_anon_folio / vma_alloc_anon_folio_pmd / folio_prealloc charge it,
 * do_anonymous_page / __do_huge_pmd_anonymous_page count it and put it on
 * the LRU): mem_cgroup_charge, add_mm_counter(MM_ANONPAGES),
 * folio_add_lru_vma.
 */
static void new_anon_folio_accounting(struct ptsim_mm *mm, const struct folio *f)
{
	mem_cgroup_charge(mm->m, folio_nr_pages(f));
	add_mm_counter(mm, MM_ANONPAGES);
	folio_add_lru_vma(mm->m, folio_pfn(mm->m, f), f->order > 0);
}

/* The PTE an anonymous fault installs for the first page of folio (mk_pte + write bits). */
pte_t anon_fault_pte(const struct ptsim_geometry *g, const struct vma *v, uint64_t pfn,
			    bool write)
{
	pte_t entry = pfn_pte(g, pfn, v->page_prot);

	/* do_anonymous_page: pte_sw_mkyoung, then mkwrite(mkdirty) for VM_WRITE */
	entry = pte_mkyoung(entry);
	if (write && (v->flags & VM_WRITE))
		entry = pte_mkwrite(pte_mkdirty(entry));
	return entry;
}

/*
 * set_pte_range's entry for a file page: young; a write fault (of a shared
 * mapping: a private one's goes to do_cow_fault) also makes it dirty and, where the
 * VMA allows, writable (maybe_mkwrite(pte_mkdirty())).
 */
static pte_t file_fault_pte(const struct ptsim_geometry *g, const struct vma *v, uint64_t pfn,
			    bool write)
{
	pte_t entry = pte_mkyoung(pfn_pte(g, pfn, v->page_prot));

	if (write && (v->flags & VM_WRITE))
		entry = pte_mkwrite(pte_mkdirty(entry));
	return entry;
}

/*
 * A new anonymous folio of a fault in v. In a VM_LOCKED VMA (mlock, or
 * mlock2 MLOCK_ONFAULT's later faults) it is mlocked as it is mapped:
 * folio_add_lru_vma calls mlock_new_folio instead of folio_add_lru, and
 * __folio_add_anon_rmap's mlock_vma_folio covers a swapped-in one (v6.12):
 * the same one call either way, so only the state changes. Its contents are
 * ready: __folio_mark_uptodate (folio_mark_uptodate after a swap-in's read).
 */
void folio_init_anon(struct ptsim_machine *m, struct folio *f, const struct vma *v, uint64_t addr)
{
	const struct ptsim_geometry *g = &m->geo;

	__folio_mark_uptodate(m, f);
	f->flags |= FOLIO_ANON;
	if (v->flags & VM_LOCKED)
		f->flags |= FOLIO_MLOCKED;
	f->mapping = v->anon_vma;
	f->index = ((addr - v->start) >> g->page_shift) + v->pgoff;
}

/* pte_range_none: every target entry must still be empty. */
static bool pte_range_none(struct ptsim_mm *mm, pte_t *ptep, uint64_t nr)
{
	for (uint64_t i = 0; i < nr; i++)
		if (!pte_none(__ptep_get(mm, ptep + i)))
			return false;
	return true;
}

struct pending_fault {
	uint64_t addr;
	struct pt_table *table;	/* PTE table, or PMD table for a PMD THP */
	struct folio *folio;
};

/* Phase 1: tables and folios (undoable); nothing visible is written except new table links. */
static int prepare_faults(struct ptsim_mm *mm, uint64_t addr, uint64_t len,
			  unsigned int order, bool write, struct pending_fault *pf)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	uint64_t size = g->page_size << order;
	bool pmd_thp = order == g->pmd_order;

	for (uint64_t a = addr, i = 0; a < addr + len; a += size, i++) {
		int err;
		struct pt_table *t = pt_walk_table(mm, a, pmd_thp ? 2 : 3, true, &err);

		if (!t)
			return err ? err : -ENOMEM;
		if (pmd_thp) {
			if (!pte_none(read_desc(mm, PMD_LEVEL, &t->desc[pt_index(g, PMD_LEVEL, a)])))
				return -EEXIST;
		} else if (!pte_range_none(mm, &t->desc[pt_index(g, PTE_LEVEL, a)], UINT64_C(1) << order)) {
			return -EEXIST;
		}
		pf[i].addr = a;
		pf[i].table = t;
		pf[i].folio = NULL;
		if (write) {
			err = folio_alloc(m, order, 0, &pf[i].folio);
			if (err)
				return err;
		}
	}
	return 0;
}

/* The shared zero page, mapped special by a read fault (no folio). */
int zero_pfn(struct ptsim_machine *m, uint64_t *pfn)
{
	if (!m->zero_pfn) {
		if (alloc_should_fail(m) || physmem_alloc(&m->phys, 0, &m->zero_pfn, NULL))
			return -ENOMEM;
	}
	*pfn = m->zero_pfn;
	return 0;
}

static void install_fault(struct ptsim_mm *mm, struct vma *v, const struct pending_fault *pf,
			  unsigned int order, bool write, uint64_t zpfn)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	uint64_t nr = UINT64_C(1) << order;

	fn_enter(m, PTSIM_FN_HANDLE_MM_FAULT);
	do_page_fault(mm, v);
	if (!write) {
		/* do_anonymous_page read fault: special zero-page PTE, never writable */
		pte_t entry = pte_mkspecial(pfn_pte(g, zpfn, v->page_prot));

		set_ptes(mm, pf->addr, &pf->table->desc[pt_index(g, PTE_LEVEL, pf->addr)], entry, 1);
		fn_exit(m);
		return;
	}
	new_anon_folio_accounting(mm, pf->folio);
	folio_zero_user(m, nr);
	folio_init_anon(mm->m, pf->folio, v, pf->addr);
	pte_t entry = anon_fault_pte(g, v, folio_pfn(mm->m, pf->folio), true);

	if (order == g->pmd_order) {
		folio_add_new_anon_rmap(mm, pf->folio, true, true);
		set_desc(mm, pf->addr, PMD_LEVEL, &pf->table->desc[pt_index(g, PMD_LEVEL, pf->addr)],
			 pte_to_pmd_leaf(entry));
	} else {
		folio_add_new_anon_rmap(mm, pf->folio, true, false);
		set_ptes(mm, pf->addr, &pf->table->desc[pt_index(g, PTE_LEVEL, pf->addr)], entry,
			 (unsigned int)nr);
	}
	fn_exit(m);
}

/*
 * The pending faults of a populate of nr pages that each need folio_bytes of
 * host memory, with the operation and its undo log started; NULL when they
 * cannot fit the host-memory limit (checked before anything is allocated)
 * or the array cannot be allocated: the populate is -ENOMEM. The array is
 * charged as host memory until populate_end; the undo log is made room for
 * at once (undo_commit or undo_rollback shrinks it again).
 */
static struct pending_fault *populate_begin(struct ptsim_machine *m, uint64_t nr,
					    uint64_t folio_bytes)
{
	/* an undo entry per new folio and per new table (one per 64 pages is ample) */
	const uint64_t undo = (folio_bytes ? nr : 0) + nr / 64 + 8;
	struct pending_fault *pf;

	if (nr * (sizeof(*pf) + folio_bytes) + undo * sizeof(struct undo_entry) > host_room(m))
		return NULL;
	pf = host_array_alloc(nr * sizeof(*pf));
	if (!pf)
		return NULL;
	m->host_bytes += nr * sizeof(*pf);	/* within the room just checked */
	if (undo_reserve(m, undo)) {
		host_array_free(pf, nr * sizeof(*pf));
		host_uncharge(m, nr * sizeof(*pf));
		return NULL;
	}
	op_begin(m);
	undo_start(m);
	return pf;
}

/* The populate of nr pages ends: its operation, and the pending faults' memory given back. */
static int populate_end(struct ptsim_machine *m, struct pending_fault *pf, uint64_t nr, int err)
{
	op_end(m, err);
	host_array_free(pf, nr * sizeof(*pf));
	host_uncharge(m, nr * sizeof(*pf));
	return err;
}

/*
 * ptsim_populate of a shmem VMA, order 0 only (shmem_enabled "never"): each
 * page is the object's, found or allocated and cleared (shmem_get_folio),
 * then mapped with set_ptes(1) as finish_fault maps it. Phase 1 takes the
 * tables and the pages; a failure there takes the new pages out of the
 * object's cache again and rolls back.
 */
static int populate_shmem(struct ptsim_mm *mm, struct vma *v, uint64_t addr, uint64_t len,
			  bool write)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	uint64_t nr = len >> g->page_shift, i;
	struct pending_fault *pf;
	int err = 0;

	pf = populate_begin(m, nr, folio_host_bytes(0));
	if (!pf)
		return -ENOMEM;
	for (i = 0; i < nr && !err; i++) {
		uint64_t a = addr + (i << g->page_shift);
		struct pt_table *t = pt_walk_table(mm, a, PTE_LEVEL, true, &err);
		enum fault_result r;

		if (!t) {
			err = err ? err : -ENOMEM;
			break;
		}
		if (!pte_none(__ptep_get(mm, &t->desc[pt_index(g, PTE_LEVEL, a)]))) {
			err = -EEXIST;
			break;
		}
		pf[i].addr = a;
		pf[i].table = t;
		r = shmem_reserve(mm, v, v->pgoff + ((a - v->start) >> g->page_shift), &pf[i].folio);
		if (r != FAULT_DONE) {
			err = r == FAULT_OOM ? -ENOMEM : -EFAULT;
			break;
		}
	}
	if (err) {
		while (i--)
			if (pf[i].folio)	/* its slot was reserved, the folio goes with the undo */
				shmem_uncache(m, v, v->pgoff + ((pf[i].addr - v->start) >> g->page_shift));
		undo_rollback(m);
	} else {
		undo_commit(m);
		for (i = 0; i < nr; i++) {
			uint64_t pgoff = v->pgoff + ((pf[i].addr - v->start) >> g->page_shift);

			pf[i].folio = shmem_get_folio(mm, v, pgoff, pf[i].folio);
			fn_enter(m, PTSIM_FN_HANDLE_MM_FAULT);
			do_page_fault(mm, v);
			set_ptes(mm, pf[i].addr, &pf[i].table->desc[pt_index(g, PTE_LEVEL, pf[i].addr)],
				 file_fault_pte(g, v, folio_pfn(m, pf[i].folio), write), 1);
			add_mm_counter(mm, MM_SHMEMPAGES);	/* set_pte_range */
			folio_add_file_rmap_ptes(mm, pf[i].folio, pgoff - pf[i].folio->index,
						 1);	/* set_pte_range */
			folio_unlock(m, pf[i].folio);	/* shmem_fault returned it locked */
			fn_exit(m);
		}
	}
	return populate_end(m, pf, nr, err);
}

int ptsim_populate(struct ptsim_mm *mm, uint64_t addr, uint64_t len, unsigned int order,
		   bool write)
{
	struct ptsim_machine *m;
	const struct ptsim_geometry *g;
	struct pending_fault *pf;
	struct vma *v;
	uint64_t size, nr, zpfn = 0;
	int err;

	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	m = mm->m;
	g = &m->geo;
	VALIDATE(order <= g->pmd_order && (write || order == 0));
	size = g->page_size << order;
	VALIDATE(len && IS_ALIGNED64(addr, size) && IS_ALIGNED64(len, size) && addr + len > addr);
	v = find_vma(mm, addr);
	if (!v || addr + len > v->end)
		return -EFAULT;
	VALIDATE((v->flags & VM_ANON) || (v->shmem && order == 0));
	if (!(v->flags & (VM_READ | VM_WRITE | VM_EXEC)))
		return -EFAULT;	/* PROT_NONE: the fault would be a SIGSEGV */
	if (v->shmem)
		return populate_shmem(mm, v, addr, len, write);
	err = anon_vma_available(m, v);
	if (err)
		return err;
	nr = len / size;
	pf = populate_begin(m, nr, write ? folio_host_bytes(order) : 0);
	if (!pf)
		return -ENOMEM;
	err = prepare_faults(mm, addr, len, order, write, pf);
	if (!err && !write)
		err = zero_pfn(m, &zpfn);
	if (err) {
		undo_rollback(m);
	} else {
		undo_commit(m);
		anon_vma_prepare(m, v);
		for (uint64_t i = 0; i < nr; i++)
			install_fault(mm, v, &pf[i], order, write, zpfn);
	}
	return populate_end(m, pf, nr, err);
}

/*
 * wp_page_copy for the shared zero page: a write to it gets a new zeroed,
 * exclusive, writable page (ptep_clear_flush, then set_ptes(1)). Its
 * vmf_anon_prepare gives the VMA its anon_vma first: a read fault mapped
 * the zero page without one, and fork copies only VMAs that have one
 * (vma_needs_copy). An unshare fault (FAULT_FLAG_UNSHARE, a R/O longterm
 * pin's: gup_must_unshare) maps the new page read-only and clean instead.
 */
static int wp_page_copy_zero(struct ptsim_mm *mm, struct vma *v, uint64_t va, pte_t *ptep,
			     bool unshare)
{
	struct ptsim_machine *m = mm->m;
	struct folio *f;
	int err = anon_vma_available(m, v);

	if (!err)
		err = folio_alloc(m, 0, 0, &f);
	if (err)
		return err;
	/* wp_page_copy: folio_prealloc charges it; inc_mm_counter (the old page was the zero page) */
	new_anon_folio_accounting(mm, f);
	folio_zero_user(m, 1);
	anon_vma_prepare(m, v);
	folio_init_anon(mm->m, f, v, va);
	mmu_notifier_invalidate_range_start(m);
	ptl_spin_lock(m);	/* pte_offset_map_lock: do_wp_page dropped the PTE lock */
	ptep_get(mm, ptep);	/* pte_same(ptep_get(), orig_pte) under the lock */
	ptep_clear_flush(mm, va, ptep);
	folio_add_new_anon_rmap(mm, f, true, false);
	set_ptes(mm, va, ptep, anon_fault_pte(&m->geo, v, folio_pfn(mm->m, f), !unshare), 1);
	return 0;
}

/*
 * __ptep_set_access_flags (v6.12 arch/arm64/mm/fault.c, an out-of-line
 * function): read the entry, and unless it already is the new one, OR the
 * new access, dirty and write state into it with a cmpxchg loop (one
 * attempt: nothing races in the model); a newly dirty entry flushes the
 * stale read-only translation (flush_tlb_page). level: arm64's
 * pmdp_set_access_flags is this function on the PMD.
 */
static void __ptep_set_access_flags_level(struct ptsim_mm *mm, uint64_t addr, int level,
					  pte_t *ptep, pte_t entry, bool dirty)
{
	pte_t pte, val;

	kernel_call(mm->m, __PTEP_SET_ACCESS_FLAGS);
	pte = read_desc(mm, level, ptep);
	if (pte == entry)
		return;
	entry &= PTE_RDONLY | PTE_AF | PTE_WRITE | PTE_DIRTY;
	val = ((pte ^ PTE_RDONLY) | (entry ^ PTE_RDONLY)) ^ PTE_RDONLY;
	cmpxchg_desc(mm, addr, level, ptep, val);
	if (dirty)
		flush_tlb_page(mm, addr);
}

static void __ptep_set_access_flags(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t entry,
				    bool dirty)
{
	__ptep_set_access_flags_level(mm, addr, PTE_LEVEL, ptep, entry, dirty);
}

/*
 * ptep_set_access_flags (arm64, with contpte_ptep_set_access_flags): a write
 * permission change inside a contiguous block unfolds it first; otherwise
 * every entry of the block takes the new flags. dirty: the fault is a write.
 * Without CONFIG_ARM64_CONTPTE it is __ptep_set_access_flags itself (v6.8:
 * arm64's ptep_set_access_flags, the same code), with no read of its own.
 */
static void ptep_set_access_flags(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t entry,
				  bool dirty)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	pte_t orig;

	if (!config_arm64_contpte(mm->m)) {
		__ptep_set_access_flags(mm, addr, ptep, entry, dirty);
		return;
	}
	orig = __ptep_get(mm, ptep);

	entry = pte_mknoncont(entry);
	if (!pte_valid_cont(orig)) {
		__ptep_set_access_flags(mm, addr, ptep, entry, dirty);
		return;
	}
	kernel_call(mm->m, CONTPTE_PTEP_SET_ACCESS_FLAGS);
	orig = pte_mknoncont(ptep_get(mm, ptep));
	if (orig == entry)
		return;
	if (pte_write(orig) == pte_write(entry)) {
		uint64_t start = ALIGN_DOWN64(addr, g->cont_pte_size);
		pte_t *p = ptep - ((addr - start) >> g->page_shift);

		/* the kernel's local_flush_tlb_contpte (not broadcast) is not modelled */
		for (unsigned int i = 0; i < g->cont_ptes; i++)
			__ptep_set_access_flags(mm, start + ((uint64_t)i << g->page_shift), p + i,
						entry, false);
		return;
	}
	__contpte_try_unfold(mm, addr, ptep, orig);
	__ptep_set_access_flags(mm, addr, ptep, entry, dirty);
}

/*
 * The end of handle_pte_fault for a present entry the access may use (no
 * COW to do): the entry is made young, and dirty for a write (pte_mkdirty
 * makes a writable entry hardware-writable), with ptep_set_access_flags
 * under the PTE lock. That is how a CPU without hardware access-flag or
 * dirty-state management (arm64 do_page_fault takes its access-flag and
 * permission faults here) gets to use the page. An entry that already is so
 * is a spurious fault, which the model does not count (arm64's
 * flush_tlb_fix_spurious_fault does nothing).
 */
static void handle_pte_fault_access(struct ptsim_mm *mm, uint64_t va, pte_t *ptep, bool write)
{
	pte_t pte = *ptep, entry = pte_mkyoung(write ? pte_mkdirty(pte) : pte);

	if (entry == pte)
		return;
	ptl_spin_lock(mm->m);
	ptep_set_access_flags(mm, va, ptep, entry, write);
}

/*
 * huge_pmd_set_accessed for a PMD leaf the access may use: touch_pmd makes
 * it young, and dirty for a write, with pmdp_set_access_flags (arm64: the
 * call of __ptep_set_access_flags on the PMD, flush_tlb_page when dirty)
 * under the PMD lock after pmd_same. Spurious when nothing changes, as above.
 */
static void huge_pmd_set_accessed(struct ptsim_mm *mm, uint64_t va, pte_t *pmdp, bool write)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	uint64_t haddr = ALIGN_DOWN64(va, g->pmd_size);
	pte_t pmd = *pmdp, entry = pte_mkyoung(write ? pte_mkdirty(pmd) : pmd);

	if (entry == pmd)
		return;
	pmd_lock(mm->m);
	read_desc(mm, PMD_LEVEL, pmdp);	/* pmd_same(*vmf->pmd, vmf->orig_pmd) */
	read_desc(mm, PMD_LEVEL, pmdp);	/* touch_pmd: pmd_mkyoung(*pmd) */
	__ptep_set_access_flags_level(mm, haddr, PMD_LEVEL, pmdp, entry, write);
}

/*
 * __wp_can_reuse_large_anon_folio (mm/memory.c, v6.15: "mm: Copy-on-Write
 * (COW) reuse support for PTE-mapped THP", David Hildenbrand's MM owner
 * tracking series): a page of a large folio is reused only when more than
 * one page of the folio is mapped (a last mapped page is copied, to give the
 * large folio back), no other mm maps the folio (folio_maybe_mapped_shared)
 * and every reference is a mapping (folio_large_mapcount ==
 * folio_ref_count: a pin's or a FOLL_GET reference breaks it). Before v6.15 (feature
 * wp_reuse_large_anon_folio off) wp_can_reuse_anon_folio never reused a
 * page of a large folio (v6.12).
 */
static bool __wp_can_reuse_large_anon_folio(struct ptsim_mm *mm, const struct folio *f)
{
	if (!feature(mm->m, PTSIM_FEAT_WP_REUSE_LARGE_ANON_FOLIO))
		return false;
	if (folio_mapcount(mm->m, f) <= 1)
		return false;
	if (folio_ref_count(mm->m, f) != (uint64_t)folio_mapcount(mm->m, f))
		return false;
	return folio_mappings_in(mm, f) == (uint64_t)folio_mapcount(mm->m, f);
}

/*
 * wp_can_reuse_anon_folio (v6.12 mm/memory.c): a large folio as
 * __wp_can_reuse_large_anon_folio decides; a small one is reused when its
 * one reference is our mapping (mapped once, no pin, no FOLL_GET
 * reference). On the way: folio_test_ksm and a first look at the count
 * (more than 3: give up), lru_add_drain when the folio is not on the LRU
 * yet (still in this CPU's lru_add batch, whose reference the kernel
 * cannot tell from another's), the count against 1 + folio_test_swapcache,
 * then under folio_trylock the swap cache test and the last check, and
 * folio_move_anon_rmap to this VMA's anon_vma. The model keeps no swap
 * cache or KSM and no batch's reference in its count (folio_ref_count), so
 * the drain changes what is counted, not the answer; the count's loads
 * share the flags' struct page line and are not counted apart.
 */
static bool wp_can_reuse_anon_folio(struct ptsim_mm *mm, const struct vma *v, struct folio *f)
{
	struct ptsim_machine *m = mm->m;

	if (folio_test_large(m, f))
		return __wp_can_reuse_large_anon_folio(mm, f);
	prim_count(m, PRIM_FOLIO_TEST_KSM, 1);
	if (folio_ref_count(m, f) > 3)
		return false;
	if (!folio_test_lru(m, folio_pfn(m, f)))
		lru_add_drain(m);
	prim_count(m, PRIM_FOLIO_TEST_SWAPCACHE, 1);
	if (folio_ref_count(m, f) > 1)
		return false;
	if (!folio_trylock(m, f))
		return false;
	prim_count(m, PRIM_FOLIO_TEST_SWAPCACHE, 1);
	prim_count(m, PRIM_FOLIO_TEST_KSM, 1);
	if (folio_ref_count(m, f) != 1) {
		folio_unlock(m, f);
		return false;
	}
	kernel_call(m, FOLIO_MOVE_ANON_RMAP);	/* folio_move_anon_rmap */
	f->mapping = v->anon_vma;
	folio_unlock(m, f);
	return true;
}

/*
 * The start of do_wp_page (v6.12) for a write: a uffd-wp entry of a VM_UFFD_WP
 * VMA (userfaultfd_pte_wp) is resolved in the fault when the context is
 * WP_ASYNC: the bit is cleared with set_pte_at (no flush: only the software
 * bit changes) from the entry read again (ptep_get), and the fault goes on
 * as a plain write-protect fault from the new entry (*orig). Without WP_ASYNC the kernel hands the fault to the
 * userfaultfd reader (handle_userfault, VM_UFFD_WP), which the model does not
 * run: -EAGAIN (the fault would block until UFFDIO_WRITEPROTECT resolves it),
 * the model unchanged. The flush userfaultfd_wp's deferred flushes need
 * (mm_tlb_flush_pending) never applies: no gather is open during a fault.
 */
static int do_wp_page_uffd(struct ptsim_mm *mm, const struct vma *v, uint64_t va, pte_t *ptep,
			   pte_t *orig)
{
	if (!v->uffd_wp || !pte_uffd_wp(*orig))
		return 0;
	if (!userfaultfd_wp_async(v))
		return -EAGAIN;
	/* v6.12 do_wp_page re-reads the entry: pte_clear_uffd_wp(ptep_get(vmf->pte)) */
	*orig = pte_clear_uffd_wp(ptep_get(mm, ptep));
	set_ptes(mm, va, ptep, *orig, 1);	/* set_pte_at */
	return 0;
}

/*
 * do_wp_page for a private mapping's page, entered with the PTE lock held
 * (by handle_pte_fault or do_swap_page): reuse an anonymous page
 * (wp_page_reuse) when it is exclusive or wp_can_reuse_anon_folio says every
 * reference to its folio is a mapping of ours (per release, above), else
 * copy it (wp_page_copy: ptep_clear_flush, then the new page writable with
 * set_ptes(1)). A page-cache page of a private file VMA is always copied
 * (v6.12: only anonymous folios are reused); the copy moves the page from
 * the mm's file counter to MM_ANONPAGES, and the page-cache folio loses this
 * mapping but stays in the cache. An
 * unshare fault (v6.12 FAULT_FLAG_UNSHARE, from GUP's faultin_page) only
 * makes the page exclusive: a reusable one gets PageAnonExclusive and its
 * entry stays as it was; otherwise wp_page_copy maps the copy read-only and
 * clean (no maybe_mkwrite(pte_mkdirty())).
 */
static int do_wp_page(struct ptsim_mm *mm, struct vma *v, uint64_t va, pte_t *ptep, bool unshare)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	pte_t orig = ptep_get(mm, ptep);	/* vmf->orig_pte */
	struct page_ref ref;
	struct folio *f, *nf;
	bool reuse, anon;
	int err;

	if (!unshare) {
		err = do_wp_page_uffd(mm, v, va, ptep, &orig);
		if (err)
			return err;
	}
	ref = vm_normal_page(mm, orig);
	f = ref.folio;
	if (!f)
		return -EFAULT;	/* a special entry: the zero page goes to wp_page_copy_zero */
	anon = f->flags & FOLIO_ANON;
	reuse = anon && (PageAnonExclusive(m, f, ref.idx) || wp_can_reuse_anon_folio(mm, v, f));
	if (reuse) {
		if (!folio_page_anon_exclusive(f, ref.idx))
			SetPageAnonExclusive(m, f, ref.idx);
		if (unshare)
			return 0;
		ptep_set_access_flags(mm, va, ptep, pte_mkwrite(pte_mkdirty(pte_mkyoung(orig))), true);
		return 0;
	}
	/* do_wp_page: folio_get before wp_page_copy, which drops it at its end */
	folio_get(m, f);
	/* wp_page_copy: vmf_anon_prepare (a private file VMA's first anonymous page), folio_prealloc */
	err = anon_vma_available(m, v);
	if (!err)
		err = folio_alloc(m, 0, 0, &nf);
	if (err) {
		folio_put_ref(m, f);	/* wp_page_copy's out: folio_put(old_folio) */
		return err;
	}
	anon_vma_prepare(m, v);
	mem_cgroup_charge(m, 1);
	copy_user_highpage(m);	/* __wp_page_copy_user */
	folio_init_anon(mm->m, nf, v, va);
	mmu_notifier_invalidate_range_start(m);
	ptl_spin_lock(m);	/* pte_offset_map_lock: do_wp_page dropped the PTE lock */
	ptep_get(mm, ptep);	/* pte_same(ptep_get(), orig_pte) under the lock */
	if (!anon) {
		add_mm_counter(mm, MM_FILEPAGES);	/* dec_mm_counter(mm_counter_file(old_folio)) */
		add_mm_counter(mm, MM_ANONPAGES);	/* inc_mm_counter */
	}
	ptep_clear_flush(mm, va, ptep);
	folio_add_new_anon_rmap(mm, nf, true, false);
	set_ptes(mm, va, ptep, anon_fault_pte(g, v, folio_pfn(mm->m, nf), !unshare), 1);
	folio_add_lru_vma(m, folio_pfn(m, nf), false);
	folio_remove_rmap_ptes(mm, f, ref.idx, 1);	/* folio_remove_rmap_pte */
	/*
	 * wp_page_copy's end: new_folio = old_folio, so folio_put(new_folio)
	 * drops the reference the mapping held; free_swap_cache; then
	 * folio_put(old_folio) drops do_wp_page's. The last one frees an
	 * anonymous folio nothing else maps or holds (a page GUP holds stays
	 * with its pin or reference; a page-cache page stays cached).
	 */
	folio_put_ref(m, f);
	free_swap_cache(m);
	folio_put_ref(m, f);
	if (anon && folio_mapcount(mm->m, f) == 0)
		folio_put(m, f);
	return 0;
}

/*
 * do_swap_page for an order-0 anonymous page: the swap-cache lookup misses,
 * one page is read back (a major fault; swap_vma_readahead, whose window
 * the model keeps at this page, then drains this CPU's LRU batches), and the
 * page is mapped under the
 * PTE lock (pte_offset_map_lock, pte_same re-reading the entry): writable
 * for a write fault on an entry that was exclusive. A write fault on an
 * entry that was not (fork shared it) maps the page read-only and goes on
 * to do_wp_page in the same fault, the lock still held. The model's swap
 * cache lookup always misses: the page read back is a folio only this
 * mapping holds, so do_wp_page reuses it (the kernel's first sharer would
 * copy the swap-cache folio instead, and the second find it in the swap
 * cache). The folio stays in the swap cache, as after a read fault in the
 * kernel, until MADV_FREE takes it out (madvise_free_swapcache) or it is
 * freed. Where the kernel frees the slot at the fault instead
 * (should_try_to_free_swap: a write, VM_LOCKED), folio_free_swap leaves the
 * folio PG_dirty, which madvise_free_pte_range tests alike.
 */
static int do_swap_page(struct ptsim_mm *mm, struct vma *v, uint64_t va, pte_t *ptep, bool write)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	pte_t entry = __ptep_get(mm, ptep), pte;
	bool exclusive = entry & PTE_SWP_EXCLUSIVE, uffd_wp, writable;
	struct folio *f;
	int err = folio_alloc(m, 0, 0, &f);

	if (err)
		return err;
	swap_cache_get_folio(m);
	count_vm_event_pgmajfault(m);
	mem_cgroup_swapin_charge_folio(m, 1);
	folio_add_lru_vma(m, folio_pfn(m, f), false);
	if (feature(m, PTSIM_FEAT_SWAP_ZEROMAP) && u64map_get(&mm->zero_swap, pte_swp_offset(entry), NULL)) {
		/*
		 * swap_read_folio_zeromap (v6.12): the slot's zeromap bit set, so
		 * SWPIN_ZERO (the CPU's, the memcg's under RCU) and the page
		 * zeroed, nothing read
		 */
		count_zeromap_events(m);
		folio_zero_range(m, 1);
		folio_mark_zero_filled(m, f);
	} else {
		submit_bio(m, g->page_size >> 10);	/* swap_read_folio */
	}
	/* swapin_readahead's swap_vma_readahead ends with lru_add_drain: the folio onto the LRU */
	lru_add_drain(m);
	ptl_spin_lock(m);
	__ptep_get(mm, ptep);	/* pte_same(ptep_get(vmf->pte), vmf->orig_pte) */
	folio_init_anon(mm->m, f, v, va);
	f->flags |= FOLIO_SWAPCACHE;
	/*
	 * a folio new to the rmap (not yet anon): folio_add_new_anon_rmap with
	 * RMAP_EXCLUSIVE when the entry was (v6.10+; v6.8 and v6.9 took
	 * folio_add_anon_rmap_pte, an atomic_inc_and_test where this stores)
	 */
	folio_add_new_anon_rmap(mm, f, exclusive, false);
	add_mm_counter(mm, MM_ANONPAGES);	/* up */
	add_mm_counter(mm, MM_SWAPENTS);	/* down */
	/*
	 * pte_swp_uffd_wp: the page comes back uffd-wp protected, and then
	 * not writable in a VM_UFFD_WP VMA: the write goes on to do_wp_page,
	 * which resolves it (WP_ASYNC) or hands it to the reader
	 */
	uffd_wp = pte_swp_uffd_wp(entry);
	writable = write && exclusive && !(uffd_wp && v->uffd_wp);
	pte = anon_fault_pte(g, v, folio_pfn(mm->m, f), writable);
	set_ptes(mm, va, ptep, uffd_wp ? pte_mkuffd_wp(pte) : pte, 1);
	if (write && !writable) {
		/* FAULT_FLAG_WRITE is still set */
		fn_enter(m, PTSIM_FN_DO_WP_PAGE);
		err = do_wp_page(mm, v, va, ptep, false);
		fn_exit(m);
	}
	return err;
}

/*
 * do_huge_pmd_wp_page: a PMD THP that is PageAnonExclusive, or that nobody
 * else maps or references (folio_ref_count == 1), is made writable in place
 * (an unshare fault only marks it exclusive, v6.12); else it is split
 * (__split_huge_pmd, then VM_FAULT_FALLBACK) and the fault goes on at the
 * PTE level, where do_wp_page copies one page. When
 * that copy runs out of memory (VM_FAULT_OOM) the split stays, as in the
 * kernel, and is counted. The kernel splits into the table deposited at THP
 * fault time; the model allocates it here, and a failure of that allocation
 * changes nothing.
 */
static int do_huge_pmd_wp_page(struct ptsim_mm *mm, struct vma *v, uint64_t va,
			       struct pt_table *pmd_table, unsigned int idx, bool unshare)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	uint64_t haddr = ALIGN_DOWN64(va, g->pmd_size);
	pte_t pmd = read_desc(mm, PMD_LEVEL, &pmd_table->desc[idx]);
	struct page_ref ref = vm_normal_page(mm, pmd);
	/* wp_huge_pmd (v6.12): a uffd-wp PMD is split, or handed to the reader */
	bool uffd_split = !unshare && v->uffd_wp && pte_uffd_wp(pmd);
	struct pt_table *pte_table;
	int err;

	if (uffd_split && !userfaultfd_wp_async(v))
		return -EAGAIN;	/* handle_userfault (see do_wp_page_uffd) */
	pmd_lock(m);
	if (!uffd_split && ref.folio && (folio_page_anon_exclusive(ref.folio, 0) ||
			  folio_ref_count(m, ref.folio) == 1)) {
		if (!folio_page_anon_exclusive(ref.folio, 0))
			SetPageAnonExclusive(m, ref.folio, 0);	/* the head page's, for the PMD */
		for (uint64_t i = 0; i < folio_nr_pages(ref.folio); i++)
			folio_set_page_anon_exclusive(ref.folio, i, true);
		if (unshare)
			return 0;
		/* pmdp_set_access_flags(..., 1): __ptep_set_access_flags on the PMD */
		__ptep_set_access_flags_level(mm, haddr, PMD_LEVEL, &pmd_table->desc[idx],
					      pte_mkwrite(pte_mkdirty(pte_mkyoung(pmd))), true);
		return 0;
	}
	err = pt_table_alloc(mm, PTE_LEVEL, &pte_table);
	if (err)
		return err;
	__split_huge_pmd_locked(mm, pmd_table, haddr, pte_table);
	op_keep_partial(m);
	ptl_spin_lock(m);	/* handle_pte_fault, after the fallback */
	return do_wp_page(mm, v, va, &pte_table->desc[pt_index(g, PTE_LEVEL, va)], unshare);
}

/*
 * The THP orders a fault in v may use (thp_vma_allowable_orders): none if
 * NOHUGEPAGE. v6.12 __thp_vma_allowable_orders has no userfaultfd check: a
 * registered VMA keeps its PMD order (alloc_anon_folio drops the mTHP ones).
 */
static uint64_t thp_vma_allowable_orders(const struct ptsim_mm *mm, const struct vma *v)
{
	if (v->flags & VM_NOHUGEPAGE)
		return 0;
	return mm->m->thp_orders;
}

/* do_huge_pmd_anonymous_page: a PMD-size folio for the aligned PMD, if it is empty. */
static int do_huge_pmd_anonymous_page(struct ptsim_mm *mm, struct vma *v, uint64_t va)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	uint64_t haddr = ALIGN_DOWN64(va, g->pmd_size);
	struct pt_table *t;
	struct folio *f;
	int err;

	t = pt_walk_table(mm, haddr, PMD_LEVEL, true, &err);
	if (!t)
		return err ? err : -ENOMEM;
	if (t->next[pt_index(g, PMD_LEVEL, haddr)] || !pte_none(read_desc(mm, PMD_LEVEL, &t->desc[pt_index(g, PMD_LEVEL, haddr)])))
		return 1;	/* a PTE table is there: the PTE path */
	err = anon_vma_available(m, v);	/* vmf_anon_prepare */
	if (err)
		return err;
	if (folio_alloc(m, g->pmd_order, 0, &f))
		return 1;	/* VM_FAULT_FALLBACK */
	new_anon_folio_accounting(mm, f);
	folio_zero_user(m, folio_nr_pages(f));
	anon_vma_prepare(m, v);
	folio_init_anon(mm->m, f, v, haddr);
	folio_add_new_anon_rmap(mm, f, true, true);
	pmd_lock(m);
	set_desc(mm, haddr, PMD_LEVEL, &t->desc[pt_index(g, PMD_LEVEL, haddr)],
		 pte_to_pmd_leaf(anon_fault_pte(g, v, folio_pfn(mm->m, f), true)));
	return 0;
}

/*
 * alloc_anon_folio: the highest allowed order whose aligned range fits the
 * VMA and is all empty (read locklessly, stopping at the first used entry),
 * then allocation from that order down; order 0 when nothing else works.
 */
static int alloc_anon_folio(struct ptsim_mm *mm, const struct vma *v, uint64_t va, pte_t *table,
			    struct folio **out)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	uint64_t orders = thp_vma_allowable_orders(mm, v) & ((UINT64_C(1) << g->pmd_order) - 1) & ~UINT64_C(1);
	int order;

	/* v6.12 alloc_anon_folio: userfaultfd_armed wants per-page faults, order 0 */
	if (v->uffd)
		orders = 0;

	for (order = 63; order > 0; order--) {
		uint64_t size = g->page_size << order, a = ALIGN_DOWN64(va, size);

		if (!(orders & (UINT64_C(1) << order)))
			continue;
		if (a < v->start || a + size > v->end) {
			orders &= ~(UINT64_C(1) << order);	/* thp_vma_suitable_orders */
			continue;
		}
		if (pte_range_none(mm, &table[pt_index(g, PTE_LEVEL, a)], UINT64_C(1) << order))
			break;
		orders &= ~(UINT64_C(1) << order);
	}
	for (; order > 0; order--)
		if ((orders & (UINT64_C(1) << order)) && !folio_alloc(m, (unsigned int)order, 0, out))
			return 0;
	return folio_alloc(m, 0, 0, out);
}

/*
 * do_anonymous_page: a read maps the shared zero page; a write maps a new
 * zeroed folio of the order alloc_anon_folio chose with one set_ptes, after
 * checking again, under the lock, that the range is still empty.
 */
static int do_anonymous_page(struct ptsim_mm *mm, struct vma *v, uint64_t va, bool write,
			     bool orig_uffd_wp)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	bool had_table = pt_find_table(mm, va, PTE_LEVEL) != NULL;
	struct pt_table *t;
	struct folio *f;
	uint64_t nr, a, zpfn;
	pte_t *ptep, entry;
	int err;

	/*
	 * A PMD THP (v6.12 __handle_mm_fault -> do_huge_pmd_anonymous_page),
	 * also in a uffd-wp VMA. In a MISSING-registered one the kernel's
	 * __do_huge_pmd_anonymous_page hands the fault to handle_userfault;
	 * the model runs no reader and, as for every fault there, maps order 0.
	 */
	if (write && (thp_vma_allowable_orders(mm, v) & (UINT64_C(1) << g->pmd_order)) && !had_table &&
	    !v->uffd_missing &&
	    ALIGN_DOWN64(va, g->pmd_size) >= v->start &&
	    ALIGN_DOWN64(va, g->pmd_size) + g->pmd_size <= v->end) {
		err = do_huge_pmd_anonymous_page(mm, v, va);
		if (err <= 0)
			return err;
	}
	t = pt_walk_table(mm, va, PTE_LEVEL, true, &err);	/* pte_alloc */
	if (!t)
		return err ? err : -ENOMEM;
	ptep = &t->desc[pt_index(g, PTE_LEVEL, va)];
	/* handle_pte_fault's orig_pte (a uffd-wp marker when handle_pte_marker sent us) */
	if (had_table && !pte_none(__ptep_get(mm, ptep)) && !orig_uffd_wp)
		return 0;	/* raced: mapped meanwhile */
	if (!write) {
		pte_t zero;

		err = zero_pfn(m, &zpfn);
		if (err)
			return err;
		ptl_spin_lock(m);
		__ptep_get(mm, ptep);	/* vmf_pte_changed */
		zero = pte_mkspecial(pfn_pte(g, zpfn, v->page_prot));
		/* setpte: vmf_orig_pte_uffd_wp keeps the marker's protection */
		set_ptes(mm, va, ptep, orig_uffd_wp ? pte_mkuffd_wp(zero) : zero, 1);
		return 0;
	}
	err = anon_vma_available(m, v);	/* vmf_anon_prepare */
	if (!err)
		err = alloc_anon_folio(mm, v, va, t->desc, &f);
	if (err)
		return err;
	nr = folio_nr_pages(f);
	a = ALIGN_DOWN64(va, g->page_size << f->order);
	new_anon_folio_accounting(mm, f);
	folio_zero_user(m, nr);
	ptl_spin_lock(m);
	if (nr == 1)
		__ptep_get(mm, ptep);	/* vmf_pte_changed */
	else
		pte_range_none(mm, &t->desc[pt_index(g, PTE_LEVEL, a)], nr);
	anon_vma_prepare(m, v);
	folio_init_anon(mm->m, f, v, a);
	folio_add_new_anon_rmap(mm, f, true, false);
	entry = anon_fault_pte(g, v, folio_pfn(mm->m, f), true);
	set_ptes(mm, a, &t->desc[pt_index(g, PTE_LEVEL, a)], orig_uffd_wp ? pte_mkuffd_wp(entry) : entry,
		 (unsigned int)nr);
	return 0;
}

/*
 * handle_pte_marker (v6.12 mm/memory.c) for a uffd-wp marker
 * (pte_marker_handle_uffd_wp): in a VMA no longer VM_UFFD_WP it is only
 * cleared (pte_marker_clear: the access faults again on a none entry);
 * else it is a missing page (do_pte_missing: do_anonymous_page), mapped
 * uffd-wp protected because the marker was (vmf_orig_pte_uffd_wp), so a
 * write then takes a second fault, which do_wp_page resolves.
 */
static int handle_pte_marker(struct ptsim_mm *mm, struct vma *v, uint64_t va, pte_t *ptep,
			     bool write)
{
	int err;

	if (!v->uffd_wp) {
		pte_offset_map_lock(mm->m);
		ptep_get(mm, ptep);	/* pte_same(vmf->orig_pte, ptep_get(vmf->pte)) */
		set_desc(mm, va, PTE_LEVEL, ptep, 0);	/* pte_clear */
		return 0;
	}
	undo_start(mm->m);
	err = do_anonymous_page(mm, v, va, write, true);
	undo_end(mm->m, err);
	return err;
}

/*
 * handle_pte_fault for an entry of a private VMA (anonymous or file) that
 * needs a page of its own: a swap entry (do_swap_page), a write to the shared
 * zero page (wp_page_copy) or to a present read-only entry (do_wp_page, or
 * wp_huge_pmd's do_huge_pmd_wp_page for a PMD leaf). Returns 1 for any other
 * entry, which the caller handles.
 */
static int handle_pte_fault_private(struct ptsim_mm *mm, struct vma *v, uint64_t va,
				    struct pt_table *leaf, unsigned int idx, bool write)
{
	pte_t pte = leaf ? leaf->desc[idx] : 0;
	int err;

	if (leaf && leaf->level == PTE_LEVEL && is_pte_marker(pte)) {
		fn_enter(mm->m, PTSIM_FN_HANDLE_MM_FAULT);
		do_page_fault(mm, v);
		err = handle_pte_marker(mm, v, va, &leaf->desc[idx], write);
		fn_exit(mm->m);
		return err;
	}
	if (leaf && leaf->level == PTE_LEVEL && (is_swap_pte(pte) || (write && is_zero_pte(mm, pte)))) {
		fn_enter(mm->m, PTSIM_FN_HANDLE_MM_FAULT);
		do_page_fault(mm, v);
		if (is_swap_pte(pte)) {
			err = do_swap_page(mm, v, va, &leaf->desc[idx], write);
		} else {
			/* do_wp_page's uffd-wp check comes before wp_page_copy */
			err = do_wp_page_uffd(mm, v, va, &leaf->desc[idx], &pte);
			if (!err)
				err = wp_page_copy_zero(mm, v, va, &leaf->desc[idx], false);
		}
		fn_exit(mm->m);
		return err;
	}
	if (leaf && pte_present(pte) && write && !pte_write(pte) && !pte_protnone(pte)) {
		fn_enter(mm->m, PTSIM_FN_DO_WP_PAGE);
		do_page_fault(mm, v);
		if (leaf->level == PTE_LEVEL)
			ptl_spin_lock(mm->m);	/* handle_pte_fault */
		err = leaf->level == PTE_LEVEL ? do_wp_page(mm, v, va, &leaf->desc[idx], false)
				       : do_huge_pmd_wp_page(mm, v, va, leaf, idx, false);
		fn_exit(mm->m);
		return err;
	}
	return 1;
}

/* do_anonymous_page, do_swap_page or the zero page's write fault, by what the entry holds. */
static int handle_anon_fault(struct ptsim_mm *mm, struct vma *v, uint64_t va, bool write)
{
	unsigned int idx;
	struct pt_table *leaf = pt_lookup_leaf(mm, va, &idx);
	pte_t pte = leaf ? leaf->desc[idx] : 0;
	int err = handle_pte_fault_private(mm, v, va, leaf, idx, write);

	if (err != 1)
		return err;
	if (leaf && pte_present(pte)) {
		/* handle_pte_fault / huge_pmd_set_accessed, or a spurious fault (another access mapped it) */
		if (pte_protnone(pte) || pte_mkyoung(write ? pte_mkdirty(pte) : pte) == pte)
			return 0;
		fn_enter(mm->m, PTSIM_FN_HANDLE_MM_FAULT);
		do_page_fault(mm, v);
		if (leaf->level == PTE_LEVEL)
			handle_pte_fault_access(mm, va, &leaf->desc[idx], write);
		else
			huge_pmd_set_accessed(mm, va, &leaf->desc[idx], write);
		fn_exit(mm->m);
		return 0;
	}
	fn_enter(mm->m, PTSIM_FN_HANDLE_MM_FAULT);
	do_page_fault(mm, v);
	undo_start(mm->m);
	err = do_anonymous_page(mm, v, va, write, false);
	undo_end(mm->m, err);
	fn_exit(mm->m);
	return err;
}

/*
 * finish_fault: one PTE for the faulting page (set_ptes(1) folds a completed
 * block), after vmf_pte_changed re-reads it. With "finish_fault_whole_folio"
 * (v6.18) a large folio that maps whole (folio_maps_whole) and whose range is
 * still empty is mapped with one set_ptes.
 */
static void finish_fault(struct ptsim_mm *mm, struct vma *v, uint64_t addr, pte_t *ptep,
			 struct folio *fo, uint64_t pgoff, bool write)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	uint64_t idx = pgoff - fo->index, nr = folio_nr_pages(fo);

	ptl_spin_lock(mm->m);
	if (fo->order && !v->uffd && feature(mm->m, PTSIM_FEAT_FINISH_FAULT_WHOLE_FOLIO) &&
	    folio_maps_whole(mm, v, fo) && pte_range_none(mm, ptep - idx, nr)) {
		set_ptes(mm, addr - (idx << g->page_shift), ptep - idx,
			 file_fault_pte(g, v, folio_pfn(mm->m, fo), write), (unsigned int)nr);
		add_mm_counter(mm, v->shmem ? MM_SHMEMPAGES : MM_FILEPAGES);	/* set_pte_range: mm_counter_file */
		folio_add_file_rmap_ptes(mm, fo, 0, (unsigned int)nr);	/* set_pte_range */
		return;
	}
	__ptep_get(mm, ptep);	/* vmf_pte_changed */
	set_ptes(mm, addr, ptep, file_fault_pte(g, v, folio_pfn(mm->m, fo) + idx, write), 1);
	add_mm_counter(mm, v->shmem ? MM_SHMEMPAGES : MM_FILEPAGES);	/* set_pte_range: mm_counter_file */
	folio_add_file_rmap_ptes(mm, fo, idx, 1);	/* set_pte_range */
}

/*
 * uffd_disable_fault_around (v6.12 include/linux/userfaultfd_k.h), which
 * should_fault_around asks: VM_UFFD_WP or VM_UFFD_MINOR (not modelled), not
 * MISSING. The model registers private anonymous memory only, so a file
 * fault never meets a registered VMA today.
 */
static bool uffd_disable_fault_around(const struct vma *v)
{
	return v->uffd_wp;
}

/* should_fault_around + do_fault_around: a window of fault_around_pages aligned slots. */
static void do_fault_around(struct ptsim_mm *mm, struct vma *v, uint64_t addr, struct pt_table *t)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	uint64_t nr = fault_around_pages(g);
	uint64_t pte_off = pt_index(g, PTE_LEVEL, addr);
	uint64_t vma_off = (addr - v->start) >> g->page_shift;
	uint64_t vma_pages = (v->end - v->start) >> g->page_shift;
	uint64_t from = MAX(ALIGN_DOWN64(pte_off, nr), pte_off - MIN(pte_off, vma_off));
	uint64_t to = MIN(MIN(from + nr, (uint64_t)g->ptrs_per_table), pte_off + vma_pages - vma_off) - 1;
	uint64_t pgoff = v->pgoff + vma_off;

	filemap_map_pages(mm, v, addr - ((pte_off - from) << g->page_shift), &t->desc[from],
			  pgoff - (pte_off - from), pgoff + (to - pte_off));
}

/* do_read_fault: fault-around first, then ->fault and finish_fault. */
static enum fault_result do_read_fault(struct ptsim_mm *mm, struct vma *v, uint64_t addr,
				       struct pt_table *t, bool tried)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	uint64_t pgoff = v->pgoff + ((addr - v->start) >> g->page_shift);
	pte_t *ptep = &t->desc[pt_index(g, PTE_LEVEL, addr)];
	struct folio *fo;
	enum fault_result r;

	if (fault_around_pages(g) > 1 && !uffd_disable_fault_around(v)) {
		do_fault_around(mm, v, addr, t);
		if (!pte_none(__ptep_get(mm, ptep)))
			return FAULT_DONE;
	}
	r = filemap_fault(mm, v, pgoff, tried, &fo);
	if (r == FAULT_DONE) {
		finish_fault(mm, v, addr, ptep, fo, pgoff, false);
		folio_unlock(mm->m, fo);	/* its reference is the mapping's now */
	}
	return r;
}

/*
 * do_cow_fault (v6.12 mm/memory.c), do_fault's path for a write fault on an
 * empty entry of a private file VMA: vmf_anon_prepare gives the VMA its
 * anon_vma, folio_prealloc allocates and charges the private page, and
 * __do_fault reads the page-cache page through filemap_fault (a miss is
 * VM_FAULT_RETRY: the private page is put back, and the retried fault
 * allocates another). copy_mc_user_highpage copies the page, and
 * finish_fault maps the copy: set_pte_range's copy-on-write branch adds it
 * to the anon rmap exclusive (folio_add_new_anon_rmap, RMAP_EXCLUSIVE) and
 * to the LRU, and maps it young, dirty and writable; it counts MM_ANONPAGES.
 * put_page drops the reference __do_fault took on the page-cache page,
 * which stays in the cache and is not mapped here. No fault-around (only
 * do_read_fault has one).
 */
static enum fault_result do_cow_fault(struct ptsim_mm *mm, struct vma *v, uint64_t addr,
				      struct pt_table *t, bool tried)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	uint64_t pgoff = v->pgoff + ((addr - v->start) >> g->page_shift);
	pte_t *ptep = &t->desc[pt_index(g, PTE_LEVEL, addr)];
	struct folio *fo, *nf;
	enum fault_result r;

	if (anon_vma_available(m, v))
		return FAULT_OOM;	/* vmf_anon_prepare: VM_FAULT_OOM */
	anon_vma_prepare(m, v);
	if (folio_alloc(m, 0, 0, &nf))
		return FAULT_OOM;
	mem_cgroup_charge(m, 1);	/* folio_prealloc */
	r = filemap_fault(mm, v, pgoff, tried, &fo);
	if (r != FAULT_DONE) {
		folio_put_new(m, nf);	/* uncharge_out */
		return r;
	}
	copy_user_highpage(m);	/* copy_mc_user_highpage */
	ptl_spin_lock(m);	/* finish_fault's pte_offset_map_lock */
	__ptep_get(mm, ptep);	/* vmf_pte_changed */
	folio_init_anon(mm->m, nf, v, addr);
	folio_add_new_anon_rmap(mm, nf, true, false);	/* set_pte_range */
	folio_add_lru_vma(m, folio_pfn(m, nf), false);
	set_ptes(mm, addr, ptep, anon_fault_pte(g, v, folio_pfn(m, nf), true), 1);
	add_mm_counter(mm, MM_ANONPAGES);	/* finish_fault */
	folio_unlock(m, fo);	/* do_cow_fault: unlock_page(vmf->page), put_page(vmf->page) */
	folio_put_ref(m, fo);
	return FAULT_DONE;
}

/*
 * A fault in a shmem VMA (do_fault): a read is do_read_fault (fault-around
 * over the object's cached pages, then shmem_fault and finish_fault), a
 * write do_shared_fault (shmem_fault; shmem has no page_mkwrite; finish_fault
 * maps the page dirty and writable). Either way the page is the object's,
 * found or allocated (shmem_get_folio), never the zero page.
 */
static int handle_shmem_fault(struct ptsim_mm *mm, struct vma *v, uint64_t va, bool write)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	uint64_t pgoff = v->pgoff + ((va - v->start) >> g->page_shift);
	struct pt_table *t;
	struct folio *spare, *fo;
	pte_t *ptep, pte;
	int err;

	t = pt_walk_table(mm, va, PTE_LEVEL, true, &err);
	if (!t)
		return err ? err : -EFAULT;
	ptep = &t->desc[pt_index(g, PTE_LEVEL, va)];
	pte = __ptep_get(mm, ptep);
	if (!pte_none(pte)) {
		/*
		 * handle_pte_fault on a present entry: a write to a writable
		 * clean one (read in through PAGE_SHARED, no hardware DBM), or
		 * an access to an old one (no hardware AF), makes it dirty or
		 * young; anything else was mapped meanwhile, or is spurious.
		 */
		if (pte_present(pte) && !pte_protnone(pte) && (!write || pte_write(pte)))
			handle_pte_fault_access(mm, va, ptep, write);
		return 0;
	}
	/*
	 * What can fail in shmem_fault is done first, so that a failure
	 * leaves nothing behind: not even what fault-around would have mapped.
	 * The page is not cached then, so fault-around cannot map it.
	 */
	switch (shmem_reserve(mm, v, pgoff, &spare)) {
	case FAULT_DONE:
		break;
	case FAULT_OOM:
		return -ENOMEM;	/* vmf_error(-ENOMEM): VM_FAULT_OOM */
	default:
		return -EFAULT;	/* past i_size: VM_FAULT_SIGBUS */
	}
	if (!write && fault_around_pages(g) > 1 && !uffd_disable_fault_around(v)) {
		do_fault_around(mm, v, va, t);
		if (!pte_none(__ptep_get(mm, ptep)))
			return 0;
	}
	fo = shmem_get_folio(mm, v, pgoff, spare);
	finish_fault(mm, v, va, ptep, fo, pgoff, write);
	folio_unlock(mm->m, fo);	/* do_read_fault's, do_shared_fault's: shmem_fault returned it locked */
	return 0;
}


/*
 * __handle_mm_fault for one address of v: file faults with their retry
 * round, or anonymous. It checks no permission: the caller did (the arm64
 * fault handler, or get_user_pages' check_vma_flags).
 */
int __handle_mm_fault(struct ptsim_mm *mm, struct vma *v, uint64_t va, bool write)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	enum fault_result r;
	struct pt_table *t;
	int err;

	va = ALIGN_DOWN64(va, g->page_size);	/* vmf->address */
	if (v->shmem) {
		/* a failed shmem fault (OOM, SIGBUS) leaves the model as it was */
		fn_enter(m, PTSIM_FN_HANDLE_MM_FAULT);
		do_page_fault(mm, v);
		undo_start(m);
		err = handle_shmem_fault(mm, v, va, write);
		undo_end(m, err);
		fn_exit(m);
		return err;
	}
	if (v->fd < 0)
		return handle_anon_fault(mm, v, va, write);
	/* a private file VMA: swap entries and write faults on read-only entries as anonymous ones */
	{
		unsigned int idx;
		struct pt_table *leaf = pt_lookup_leaf(mm, va, &idx);

		err = handle_pte_fault_private(mm, v, va, leaf, idx, write);
		if (err != 1)
			return err;
	}
	fn_enter(m, PTSIM_FN_HANDLE_MM_FAULT);
	do_page_fault(mm, v);
	t = pt_walk_table(mm, va, PTE_LEVEL, true, &err);
	if (!t) {
		fn_exit(m);
		return err ? err : -EFAULT;
	}
	if (!pte_none(__ptep_get(mm, &t->desc[pt_index(g, PTE_LEVEL, va)]))) {
		pte_t *ptep = &t->desc[pt_index(g, PTE_LEVEL, va)];

		/* present: handle_pte_fault's young/dirty update (COW went above) */
		if (pte_present(*ptep) && !pte_protnone(*ptep) && (!write || pte_write(*ptep)))
			handle_pte_fault_access(mm, va, ptep, write);
		fn_exit(m);
		return 0;
	}
	/* do_fault: a read is do_read_fault, a write (the VMA is private) do_cow_fault */
	r = write ? do_cow_fault(mm, v, va, t, false) : do_read_fault(mm, v, va, t, false);
	if (r == FAULT_RETRY) {
		kernel_call(m, FAULT_RETRY);
		r = write ? do_cow_fault(mm, v, va, t, true) : do_read_fault(mm, v, va, t, true);
	}
	fn_exit(m);
	return r == FAULT_DONE ? 0 : r == FAULT_OOM ? -ENOMEM : -EFAULT;
}

/*
 * handle_mm_fault with FAULT_FLAG_UNSHARE (v6.12), GUP's faultin_page for a
 * R/O FOLL_PIN of a page gup_must_unshare refuses: handle_pte_fault sends a
 * read-only present entry to do_wp_page (wp_huge_pmd's do_huge_pmd_wp_page
 * for a PMD THP), which makes the anonymous page exclusive, by reuse or a
 * read-only copy; the shared zero page and a page-cache page of a private
 * file VMA get a read-only anonymous copy (wp_page_copy). A writable or
 * missing entry is left alone: GUP follows it again.
 */
int handle_mm_fault_unshare(struct ptsim_mm *mm, struct vma *v, uint64_t va)
{
	unsigned int idx;
	struct pt_table *leaf;
	pte_t pte;
	int err;

	va = ALIGN_DOWN64(va, mm->m->geo.page_size);	/* vmf->address */
	leaf = pt_lookup_leaf(mm, va, &idx);
	pte = leaf ? leaf->desc[idx] : 0;
	if (!leaf || !pte_present(pte) || pte_write(pte) || pte_protnone(pte))
		return 0;
	if (v->shmem)
		return -EFAULT;	/* VM_SHARED: gup_must_unshare never asks */
	fn_enter(mm->m, PTSIM_FN_DO_WP_PAGE);
	do_page_fault(mm, v);
	if (leaf->level == PTE_LEVEL) {
		ptl_spin_lock(mm->m);	/* handle_pte_fault */
		err = is_zero_pte(mm, pte) ? wp_page_copy_zero(mm, v, va, &leaf->desc[idx], true)
					   : do_wp_page(mm, v, va, &leaf->desc[idx], true);
	} else {
		err = do_huge_pmd_wp_page(mm, v, va, leaf, idx, true);
	}
	fn_exit(mm->m);
	return err;
}

/* handle_mm_fault after the arm64 fault handler's check that the VMA allows the access. */
int handle_mm_fault(struct ptsim_mm *mm, uint64_t va, enum ptsim_access_kind kind)
{
	struct vma *v = find_vma(mm, va);
	unsigned int need = kind == PTSIM_ACCESS_EXEC ? VM_EXEC :
			    kind == PTSIM_ACCESS_WRITE ? VM_WRITE : VM_READ;

	if (!v || !(v->flags & need))
		return -EFAULT;	/* SIGSEGV */
	return __handle_mm_fault(mm, v, va, kind == PTSIM_ACCESS_WRITE);
}

int ptsim_fault(struct ptsim_mm *mm, uint64_t va, enum ptsim_access_kind kind)
{
	const struct vma *v;
	bool file;
	int err;

	VALIDATE(mm && !mm->kernel && (unsigned int)kind <= PTSIM_ACCESS_EXEC);
	REFUSE_IN_HANDLER(mm->m);
	VALIDATE(va < (UINT64_C(1) << mm->m->geo.va_bits));
	v = find_vma(mm, va);
	file = v && v->fd >= 0;
	op_begin(mm->m);
	err = handle_mm_fault(mm, va, kind);
	if (!err && kind == PTSIM_ACCESS_WRITE)
		user_data_written(mm, va, 1);	/* the store that faulted */
	/*
	 * a failed file fault may still have filled the page cache, a failed COW
	 * of a shared PMD THP keeps its split: their counts stay
	 */
	op_end(mm->m, file ? 0 : err);
	return err;
}

int ptsim_exec_call(struct ptsim_mm *mm, unsigned int cpu, uint64_t va)
{
	enum ptsim_fault_kind f;
	int err;

	VALIDATE(mm && !mm->kernel && va < (UINT64_C(1) << mm->m->geo.va_bits));
	REFUSE_IN_HANDLER(mm->m);
	VALIDATE(cpu < mm->m->cfg.nr_cpus);
	op_begin(mm->m);
	user_exec_call(mm->m);
	err = ptsim_access(mm, cpu, va, PTSIM_ACCESS_EXEC, &f);
	if (err == -EFAULT && f == PTSIM_FAULT_TRANSLATION) {
		err = handle_mm_fault(mm, va, PTSIM_ACCESS_EXEC);
		if (!err)
			err = ptsim_access(mm, cpu, va, PTSIM_ACCESS_EXEC, &f);
	}
	if (!err) {	/* the stub's instruction line, past the L1I */
		struct ptsim_translation t;

		if (!ptsim_translate(mm, va, &t))
			user_exec_fetch(mm->m, t.pa);
	}
	op_end(mm->m, 0);
	return err;
}
