// SPDX-License-Identifier: MIT
/*
 * fork's address-space copy (models dup_mmap in mm/mmap.c and
 * copy_page_range / copy_pte_range / copy_present_ptes in mm/memory.c).
 * copy_pte_range exists once and branches on "fork_pte_batching" (v6.9)
 * where the per-PTE v6.8 copy and the folio batches differ
 * (doc/mm-lifecycle.md).
 *
 * Everything that can fail (the child, its tables, the pages pinned memory
 * forces fork to copy) is allocated before the parent changes, so a failed
 * fork leaves the parent as it was.
 */
#include "asm/pgtable.h"
#include "asm/tlbflush.h"
#include "asm/mmu_context.h"
#include "pte_batch.h"
#include "primitives.h"

#include <stdlib.h>
#include <string.h>

struct fork_ctx {
	struct ptsim_mm *src, *dst;
	const struct vma *vma;		/* the parent's VMA (the child's has the same range) */
	struct folio **prealloc;	/* pages for copy_present_page, allocated up front */
	size_t nr_prealloc, used_prealloc;
	/*
	 * One PTE table per pinned exclusive PMD THP, which is split in the
	 * parent (the kernel's split withdraws the table deposited at the THP's
	 * fault, so it never fails; the model allocates it up front instead).
	 */
	struct pt_table **split_tables;
	size_t nr_split, used_split;
};

/* folio_needs_cow_for_dma: a COW mapping of a folio that may be DMA-pinned. */
static bool folio_needs_cow_for_dma(const struct vma *v, const struct folio *f)
{
	return is_cow_mapping(v->flags) && f->pinned;
}

/*
 * vma_needs_copy: anonymous memory (or uffd-wp, PFN maps) must be copied;
 * files and shmem (which never has an anon_vma) fault back in.
 */
static bool vma_needs_copy(const struct vma *v)
{
	return v->anon_vma && !(v->flags & VM_WIPEONFORK);
}

/*
 * __folio_try_dup_anon_rmap (include/linux/rmap.h, always inline) for nr
 * pages from idx, or the PMD mapping (pmd): -EBUSY when the folio may be
 * pinned and one of them is exclusive (the child must get a copy). Else
 * per page (v6.9+ for a batch; v6.8 calls it per PTE) an exclusive page is
 * made shared (PageAnonExclusive, ClearPageAnonExclusive) and its _mapcount
 * raised; a large folio's _large_mapcount follows once (v6.11+). A PMD
 * raises _entire_mapcount; only its head page's exclusivity counts there.
 */
static int folio_try_dup_anon_rmap(struct ptsim_mm *mm, const struct vma *v, struct folio *f,
				   uint64_t idx, unsigned int nr, bool pmd)
{
	struct ptsim_machine *m = mm->m;
	bool maybe_pinned = folio_needs_cow_for_dma(v, f);

	__folio_try_dup_anon_rmap_enter(m);
	if (pmd) {
		if (PageAnonExclusive(m, f, 0)) {
			if (maybe_pinned)
				return -EBUSY;
			ClearPageAnonExclusive(m, f, 0);
		}
		entire_mapcount_atomic(m, f);	/* _entire_mapcount */
		folio_mod_large_mapcount(m, f, false);
		/* one PMD mapping: the model counts it once in mapcount */
		for (uint64_t i = 1; i < folio_nr_pages(f); i++)
			folio_set_page_anon_exclusive(f, i, false);
		folio_mapcount_add(mm->m, f, 1);
		return 0;
	}
	if (maybe_pinned) {
		for (unsigned int i = 0; i < nr; i++) {
			if (PageAnonExclusive(m, f, idx + i))
				return -EBUSY;
		}
	}
	for (unsigned int i = 0; i < nr; i++) {
		if (PageAnonExclusive(m, f, idx + i))
			ClearPageAnonExclusive(m, f, idx + i);
	}
	page_mapcount_atomic(m, f, idx, nr);	/* atomic_inc per page (the folio's for order 0) */
	if (f->order)
		folio_mod_large_mapcount(m, f, false);
	folio_mapcount_add(mm->m, f, (int)nr);
	return 0;
}

/*
 * __folio_dup_file_rmap (include/linux/rmap.h, always inline): per page an
 * atomic_inc of _mapcount, then a large folio's _large_mapcount (v6.11+).
 */
static void folio_dup_file_rmap_ptes(struct ptsim_mm *mm, struct folio *f, uint64_t idx,
				     unsigned int nr)
{
	__folio_dup_file_rmap_enter(mm->m);
	page_mapcount_atomic(mm->m, f, idx, nr);
	if (f->order)
		folio_mod_large_mapcount(mm->m, f, false);
	folio_mapcount_add(mm->m, f, (int)nr);
}

/*
 * __copy_present_ptes: a COW mapping write-protects the parent's entries and
 * the child's template; the child's entries are old, clean if shared.
 */
static void __copy_present_ptes(struct fork_ctx *c, pte_t *dst, pte_t *src, pte_t pte,
				uint64_t addr, unsigned int nr)
{
	if (is_cow_mapping(c->vma->flags) && pte_write(pte)) {
		wrprotect_ptes(c->src, addr, src, nr);
		pte = pte_wrprotect(pte);
	}
	if (c->vma->flags & VM_SHARED)
		pte = pte_mkclean(pte);
	pte = pte_clear_uffd_wp(pte_mkold(pte));	/* the child is not uffd-wp registered */
	set_ptes(c->dst, addr, dst, pte, nr);
}

/*
 * copy_present_page: the page may be pinned for DMA, so the child gets its
 * own copy now (exclusive, writable, dirty); the parent keeps its entry.
 */
static void copy_present_page(struct fork_ctx *c, pte_t *dst, uint64_t addr)
{
	struct ptsim_mm *mm = c->dst;
	const struct ptsim_geometry *g = &mm->m->geo;
	struct folio *nf = c->prealloc[c->used_prealloc++];
	pte_t pte;

	mem_cgroup_charge(mm->m, 1);	/* folio_prealloc's, made up front here */
	copy_user_highpage(mm->m);
	__folio_mark_uptodate(mm->m, nf);
	nf->flags |= FOLIO_ANON;
	nf->mapping = c->vma->anon_vma;
	nf->index = ((addr - c->vma->start) >> g->page_shift) + c->vma->pgoff;
	folio_add_new_anon_rmap(mm, nf, true, false);
	pte = pfn_pte(g, folio_pfn(c->dst->m, nf), c->vma->page_prot);
	if (c->vma->flags & VM_WRITE)
		pte = pte_mkwrite(pte_mkdirty(pte));	/* maybe_mkwrite(pte_mkdirty()) */
	set_ptes(mm, addr, dst, pte, 1);	/* set_pte_at */
}

/*
 * The path a copy_pte_range turn took, for the loop prices: those are
 * v6.12's loop, whose shape came with v6.9's batching (fork_pte_batching);
 * the per-entry copy before it has no price and is counted by its events.
 */
static void fork_count_loop_path(struct ptsim_machine *m, enum ptsim_loop path)
{
	if (feature(m, PTSIM_FEAT_FORK_PTE_BATCHING))
		count_loop_path(m, path);
}

/*
 * copy_present_ptes: returns the entries copied, or 0 when a pinned page
 * needs a pre-allocated copy first (-EAGAIN in the kernel: the caller drops
 * the locks, allocates, and comes back with *prealloc set).
 */
static unsigned int copy_present_ptes(struct fork_ctx *c, pte_t *dst, pte_t *src, pte_t pte,
				      uint64_t addr, unsigned int max_nr, bool *prealloc)
{
	struct ptsim_mm *mm = c->src;
	struct page_ref ref = vm_normal_page(mm, pte);
	struct folio *f = ref.folio;
	unsigned int nr;

	if (!f)
		goto copy_pte;	/* the zero page, a special mapping */
	if (folio_test_large(mm->m, f) && !*prealloc && max_nr != 1 &&
	    feature(mm->m, PTSIM_FEAT_FORK_PTE_BATCHING)) {
		unsigned int flags = FPB_MERGE_WRITE;

		if (!(c->vma->flags & VM_SHARED))
			flags |= FPB_RESPECT_DIRTY;
		nr = folio_pte_batch_flags(mm, f, src, &pte, max_nr, flags);
		folio_get(mm->m, f);	/* folio_ref_add */
		if (f->flags & FOLIO_ANON) {
			if (folio_try_dup_anon_rmap(mm, c->vma, f, ref.idx, nr, false))
				return 0;	/* -EAGAIN */
			count_loop_path(mm->m, PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON_BATCH);
		} else {
			folio_dup_file_rmap_ptes(mm, f, ref.idx, nr);
		}
		__copy_present_ptes(c, dst, src, pte, addr, nr);
		return nr;
	}
	folio_get(mm->m, f);
	if (f->flags & FOLIO_ANON) {
		if (folio_try_dup_anon_rmap(mm, c->vma, f, ref.idx, 1, false)) {
			if (!*prealloc)
				return 0;	/* -EAGAIN: allocate, then try again */
			copy_present_page(c, dst, addr);
			*prealloc = false;
			return 1;
		}
		fork_count_loop_path(mm->m, PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON);
	} else {
		folio_dup_file_rmap_ptes(mm, f, ref.idx, 1);
		fork_count_loop_path(mm->m, PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_FILE);
	}
copy_pte:
	__copy_present_ptes(c, dst, src, pte, addr, 1);
	return 1;
}

/*
 * copy_nonpresent_pte for a swap entry: both sides now share it, so it is no
 * longer exclusive. The child is not uffd-wp registered (no
 * UFFD_FEATURE_EVENT_FORK): its entry loses PTE_SWP_UFFD_WP, and a uffd-wp
 * PTE marker is not copied at all (v6.12 copy_pte_marker gives 0 when
 * !userfaultfd_wp(dst_vma)); the parent keeps both.
 */
static void copy_swap_pte(struct fork_ctx *c, pte_t *dst, pte_t *src, pte_t pte, uint64_t addr)
{
	if (is_pte_marker(pte))
		return;
	swap_duplicate(c->src->m);
	if (pte & PTE_SWP_EXCLUSIVE) {
		pte &= ~PTE_SWP_EXCLUSIVE;
		set_ptes(c->src, addr, src, pte, 1);
	}
	set_ptes(c->dst, addr, dst, pte_swp_clear_uffd_wp(pte), 1);
}

/* copy_pte_range over one PTE table: the child's table exists already. */
static void copy_pte_range(struct fork_ctx *c, struct pt_table *src_t, struct pt_table *dst_t,
			   uint64_t addr, uint64_t end)
{
	struct ptsim_machine *m = c->src->m;
	const struct ptsim_geometry *g = &m->geo;
	bool prealloc = false;

	fn_enter(m, PTSIM_FN_COPY_PTE_RANGE);
again:
	pte_offset_map_lock(m);		/* the child's: pte_alloc_map_lock */
	pte_offset_map_nolock(m);	/* the parent's, */
	ptl_spin_lock(m);		/* its lock nested */
	arch_enter_lazy_mmu_mode(m);
	while (addr < end) {
		unsigned int idx = pt_index(g, PTE_LEVEL, addr), nr = 1;
		pte_t *src = &src_t->desc[idx], *dst = &dst_t->desc[idx];
		pte_t ptent;

		pte_loop_step(m);
		ptent = ptep_get(c->src, src);
		if (pte_none(ptent)) {
			fork_count_loop_path(m, PTSIM_LOOP_COPY_PTE_RANGE_NONE);
		} else if (!pte_present(ptent)) {
			copy_swap_pte(c, dst, src, ptent, addr);
		} else {
			nr = copy_present_ptes(c, dst, src, ptent, addr,
					       (unsigned int)((end - addr) >> g->page_shift), &prealloc);
			if (!nr) {
				/* drop both locks, allocate the copy (done up front), relock */
				prealloc = true;
				goto again;
			}
		}
		addr += (uint64_t)nr << g->page_shift;
	}
	fn_exit(m);
}

/*
 * copy_huge_pmd for an anonymous PMD THP: shared by both, write-protected in
 * both. A pinned exclusive THP (folio_try_dup_anon_rmap_pmd fails: the head
 * page's PageAnonExclusive decides at the PMD level) is split in the parent
 * instead (__split_huge_pmd) and copied through its PTEs (the -EAGAIN
 * fallback): copy_present_page for its pinned exclusive pages.
 */
static bool copy_huge_pmd(struct fork_ctx *c, struct pt_table *src_t, struct pt_table *dst_t,
			  uint64_t addr)
{
	struct ptsim_mm *mm = c->src;
	const struct ptsim_geometry *g = &mm->m->geo;
	unsigned int idx = pt_index(g, PMD_LEVEL, addr);
	pte_t pmd = read_desc(mm, PMD_LEVEL, &src_t->desc[idx]);
	struct page_ref ref = vm_normal_page(mm, pmd);

	pmd_lock(mm->m);	/* copy_huge_pmd: the child's, */
	ptl_spin_lock(mm->m);	/* the parent's nested */
	if (ref.folio) {
		folio_get(mm->m, ref.folio);
		if (folio_try_dup_anon_rmap(mm, c->vma, ref.folio, 0, 1, true)) {
			if (c->used_split == c->nr_split) {
				diag_report(mm->m, PTSIM_DIAG_INVARIANT, addr, 2, pmd, 0,
					    "fork split a pinned THP with no table set aside");
				return true;	/* the child does without it */
			}
			__split_huge_pmd_locked(mm, src_t, addr, c->split_tables[c->used_split++]);
			return false;
		}
	}
	if (is_cow_mapping(c->vma->flags) && pte_write(pmd)) {
		pmdp_set_wrprotect(mm, addr, &src_t->desc[idx]);
		pmd = pte_wrprotect(pmd);
	}
	/* the child is not uffd-wp registered: pmd_clear_uffd_wp (v6.12 copy_huge_pmd) */
	set_pmd_at(c->dst, addr, &dst_t->desc[idx], pte_clear_uffd_wp(pte_mkold(pmd)));
	return true;
}

/* copy_pmd_range over one PMD table of the parent; the child's tables exist already. */
static void copy_pmd_range(struct fork_ctx *c, struct pt_table *src_t, uint64_t addr,
			   uint64_t end)
{
	const struct ptsim_geometry *g = &c->src->m->geo;
	int err;
	struct pt_table *dst_t = pt_walk_table(c->dst, addr, PMD_LEVEL, false, &err);

	if (!dst_t)
		return;	/* nothing in this PMD table's part of the VMA: no child table either */
	while (addr < end) {
		uint64_t next = MIN(ALIGN_DOWN64(addr, g->pmd_size) + g->pmd_size, end);
		unsigned int idx = pt_index(g, PMD_LEVEL, addr);
		pte_t pmd = read_desc(c->src, PMD_LEVEL, &src_t->desc[idx]);

		if (pmd_is_leaf(src_t, idx) && copy_huge_pmd(c, src_t, dst_t, addr))
			goto next;
		if (src_t->next[idx] && !pte_none(pmd) && dst_t->next[idx])
			copy_pte_range(c, src_t->next[idx], dst_t->next[idx], addr, next);
next:
		addr = next;
	}
}

/* copy_page_range for one VMA: one notifier range around a COW mapping's walk. */
static void copy_page_range(struct fork_ctx *c)
{
	const struct ptsim_geometry *g = &c->src->m->geo;
	uint64_t end = c->vma->end;

	if (is_cow_mapping(c->vma->flags))
		mmu_notifier_invalidate_range_start(c->src->m);
	for (uint64_t addr = c->vma->start; (addr = pt_next_pmd_used(c->src, addr, end)) < end;) {
		uint64_t next = MIN(ALIGN_DOWN64(addr, g->pud_size) + g->pud_size, end);
		int err;
		struct pt_table *t = pt_walk_table(c->src, addr, PMD_LEVEL, false, &err);

		if (t)
			copy_pmd_range(c, t, addr, next);
		addr = next;
	}
}

/*
 * What the copy of v will need: the child's tables (allocated now, one per
 * parent table, as pte_alloc does even for an empty one), and, uncounted, the
 * pages and split tables pinned exclusive memory will take.
 */
static int prepare_vma(struct fork_ctx *c, const struct vma *v, size_t *copies,
		       size_t *splits)
{
	struct ptsim_mm *src = c->src;
	const struct ptsim_geometry *g = &src->m->geo;

	for (uint64_t va = v->start; (va = pt_next_pmd_used(src, va, v->end)) < v->end;) {
		uint64_t next = MIN(ALIGN_DOWN64(va, g->pmd_size) + g->pmd_size, v->end);
		const struct pt_table *t = pt_find_table(src, va, PMD_LEVEL);
		unsigned int idx = pt_index(g, PMD_LEVEL, va);
		bool leaf = pmd_is_leaf(t, idx);
		pte_t d = t->desc[idx];
		const struct folio *f = leaf ? pfn_folio(src->m, pte_pfn(g, d)) : NULL;
		int err;

		if (leaf && f && folio_needs_cow_for_dma(v, f) && folio_page_anon_exclusive(f, 0)) {
			(*splits)++;	/* copied through PTEs after a split */
			*copies += g->ptrs_per_table;
			leaf = false;
		}
		if (!pt_walk_table(c->dst, va, leaf ? 2 : 3, true, &err))
			return err ? err : -ENOMEM;
		for (uint64_t a = va; t->next[idx] && a < next; a += g->page_size) {
			pte_t pte = t->next[idx]->desc[pt_index(g, PTE_LEVEL, a)];

			if (!pte_present(pte) || pte_special(pte))
				continue;
			f = pfn_folio(src->m, pte_pfn(g, pte));
			if (f && (f->flags & FOLIO_ANON) && folio_needs_cow_for_dma(v, f) &&
			    folio_page_anon_exclusive(f, pte_pfn(g, pte) - folio_pfn(c->src->m, f)))
				(*copies)++;
		}
		va = next;
	}
	return 0;
}

/* Copy the VMA array, the child's tables and the pre-allocated pages; nothing visible yet. */
static int prepare_child(struct fork_ctx *c)
{
	struct ptsim_mm *src = c->src, *dst = c->dst;
	size_t copies = 0, splits = 0;
	int err;

	if (src->nr_vmas) {
		dst->vmas = malloc(src->nr_vmas * sizeof(*dst->vmas));
		if (!dst->vmas)
			return -ENOMEM;
		vmas_charge(dst, src->nr_vmas);
	}
	/*
	 * dup_mmap (v6.12 kernel/fork.c): both mmap_locks taken for writing,
	 * the parent's VMA tree copied whole (__mt_dup); then per VMA: the
	 * parent's write-locked, a VM_DONTCOPY one cleared from the child's
	 * tree (a store that moves boundaries) and taken off its counts; any
	 * other charged when VM_ACCOUNT, copied (vm_area_dup), given an
	 * anon_vma of its own (anon_vma_fork, not for VM_WIPEONFORK) and
	 * stored over its own range in the copied tree (vma_iter_bulk_store:
	 * an exact fit).
	 */
	mmap_write_lock(src);
	mmap_write_lock(dst);
	__mt_dup(src, dst, src->nr_vmas);
	for (size_t i = 0; i < src->nr_vmas; i++) {
		struct vma *v = &src->vmas[i];
		struct vma *d;

		vma_start_write(src, v);
		if (v->flags & VM_DONTCOPY) {
			vma_iter_store(dst, v, true);	/* vma_iter_clear_gfp */
			vm_stat_account(dst);
			continue;
		}
		if (accountable_mapping(v))
			security_vm_enough_memory_mm(src->m);
		d = &dst->vmas[dst->nr_vmas++];
		*d = *v;
		vm_area_dup(src->m, v, d);
		vma_get_shmem(src->m, d);	/* vm_area_dup: get_file */
		/* dup_userfaultfd without UFFD_FEATURE_EVENT_FORK: userfaultfd_reset_ctx */
		d->uffd = false;
		d->uffd_wp = false;
		d->uffd_missing = false;
		d->uffd_features = 0;
		d->flags &= ~VM_LOCKED_MASK;	/* v6.12 dup_mmap: locks are not inherited */
		if (v->flags & VM_WIPEONFORK) {
			d->anon_vma = 0;
			d->avc = 0;
		} else {
			anon_vma_fork(src->m, d, v);
		}
		vma_iter_store(dst, d, false);
		if (!(v->flags & VM_WIPEONFORK) && vma_needs_copy(v) &&
		    (err = prepare_vma(c, v, &copies, &splits)))
			return err;
	}
	if (splits) {
		c->split_tables = calloc(splits, sizeof(*c->split_tables));
		if (!c->split_tables)
			return -ENOMEM;
	}
	for (; c->nr_split < splits; c->nr_split++) {
		err = pt_table_alloc(src, PTE_LEVEL, &c->split_tables[c->nr_split]);
		if (err)
			return err;
	}
	if (copies) {
		c->prealloc = calloc(copies, sizeof(*c->prealloc));
		if (!c->prealloc)
			return -ENOMEM;
	}
	for (; c->nr_prealloc < copies; c->nr_prealloc++) {
		err = folio_alloc(src->m, 0, 0, &c->prealloc[c->nr_prealloc]);
		if (err)
			return err;
	}
	return 0;
}

/* Give back the split tables no split took, and the array. */
static void split_tables_free(struct fork_ctx *c)
{
	while (c->used_split < c->nr_split)
		pt_table_free(c->src, c->split_tables[--c->nr_split]);
	free(c->split_tables);
}

static void mm_free_child(struct ptsim_mm *mm)
{
	machine_remove_mm(mm->m, mm);
	mm_free_contents(mm);
	free(mm);
}

/* A child mm on the parent's machine: no ASID until it first runs (it is 0 during the copy). */
static int mm_alloc_child(struct ptsim_mm *parent, struct ptsim_mm **out)
{
	int err = mm_alloc(parent->m, out);

	if (!err && parent->zero_swap.len) {
		struct u64map *z = &(*out)->zero_swap;

		/* the swap entries the child inherits keep the zeromap's answer: a copy, charged */
		u64map_free(z);
		err = u64map_copy(z, &parent->zero_swap);
		if (!err) {
			parent->m->host_bytes += u64map_host_bytes(z);
			u64map_charge_to(z, &parent->m->host_bytes);
		} else {
			mm_free_child(*out);	/* the failed copy left z empty: nothing to uncharge */
		}
	}
	if (!err) {
		(*out)->aslr_state = parent->aslr_state;
		(*out)->mmap_base = parent->mmap_base;
		(*out)->next_swap_offset = parent->next_swap_offset;
		(*out)->kernel_errors = parent->kernel_errors;
	}
	return err;
}

int ptsim_fork(struct ptsim_mm *parent, struct ptsim_mm **child)
{
	struct ptsim_machine *m;
	struct fork_ctx c = { .src = parent };
	int err;

	VALIDATE(parent && child && !parent->kernel);
	REFUSE_IN_HANDLER(parent->m);
	m = parent->m;
	op_begin(m);
	syscall_enter(m);
	err = mm_alloc_child(parent, &c.dst);
	if (err) {
		op_end(m, err);
		return err;
	}
	undo_start(m);
	err = prepare_child(&c);
	if (err) {
		undo_rollback(m);
		split_tables_free(&c);
		free(c.prealloc);
		mm_free_child(c.dst);
		op_end(m, err);
		return err;
	}
	undo_commit(m);
	/* dup_mmap: copy_page_range for every VMA the child got with its pages */
	for (size_t i = 0; i < parent->nr_vmas; i++) {
		c.vma = &parent->vmas[i];
		if (!(c.vma->flags & VM_DONTCOPY) && vma_needs_copy(c.vma))
			copy_page_range(&c);
	}
	flush_tlb_mm(parent);	/* the write-protected parent entries */
	if (c.used_prealloc != c.nr_prealloc || c.used_split != c.nr_split)
		diag_report(m, PTSIM_DIAG_INVARIANT, 0, 3, 0, 0,
			    "fork set aside %zu copies and %zu split tables and used %zu and %zu",
			    c.nr_prealloc, c.nr_split, c.used_prealloc, c.used_split);
	while (c.used_prealloc < c.nr_prealloc)
		folio_free(m, c.prealloc[c.used_prealloc++]);
	split_tables_free(&c);
	free(c.prealloc);
	check_and_switch_context(c.dst);	/* its first ASID, as it first runs */
	op_end(m, 0);
	*child = c.dst;
	return 0;
}
