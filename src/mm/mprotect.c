// SPDX-License-Identifier: MIT
/*
 * mprotect on the model (models mm/mprotect.c): do_mprotect_pkey ->
 * mprotect_fixup -> change_protection -> change_pmd_range -> change_pte_range.
 * change_pte_range exists once and branches on PTSIM_FEAT_MPROTECT_PTE_BATCHING
 * where v6.16 and v6.17 differ (doc/mprotect.md).
 */
#include "asm/pgtable.h"
#include "asm/tlbflush.h"
#include "mmu_gather.h"
#include "pte_batch.h"
#include "primitives.h"

#include <string.h>

#define MM_CP_TRY_CHANGE_WRITABLE	0x1u
#define MM_CP_PROT_NUMA			0x2u
#define MM_CP_UFFD_WP			0x4u	/* UFFDIO_WRITEPROTECT: protect */
#define MM_CP_UFFD_WP_RESOLVE		0x8u	/* UFFDIO_WRITEPROTECT: resolve */


/* PageAnonExclusive of page off of a batch that starts at ref. */
static bool page_anon_exclusive(struct ptsim_mm *mm, const struct page_ref *ref, uint64_t off)
{
	return PageAnonExclusive(mm->m, ref->folio, ref->idx + off);
}

/* maybe_change_pte_writable: VM_WRITE, not protnone; no soft-dirty or uffd-wp tracking here. */
static bool maybe_change_pte_writable(const struct vma *v, pte_t pte)
{
	return (v->flags & VM_WRITE) && !pte_protnone(pte) && !pte_uffd_wp(pte);
}

/*
 * The tests of can_change_pte_writable: shared needs dirty, private an
 * exclusive anon page. body: the out-of-line function's, whose loop prices'
 * path (doc/loop-prices.md) is the one that reaches PageAnonExclusive.
 */
static bool change_writable_tests(struct ptsim_mm *mm, const struct vma *v, pte_t pte, bool body)
{
	struct page_ref ref;

	if (!maybe_change_pte_writable(v, pte))
		return false;
	if (v->flags & VM_SHARED)
		return pte_dirty(pte);
	ref = vm_normal_page(mm, pte);
	if (!folio_test_anon(mm->m, ref.folio))
		return false;
	if (body)
		count_loop_path(mm->m, PTSIM_LOOP_CAN_CHANGE_PTE_WRITABLE_ANON_EXCLUSIVE);
	return page_anon_exclusive(mm, &ref, 0);
}

/* can_change_pte_writable (v6.16 mm/mprotect.c): a global function, so a call. */
static bool can_change_pte_writable(struct ptsim_mm *mm, const struct vma *v, pte_t pte)
{
	kernel_call(mm->m, CAN_CHANGE_PTE_WRITABLE);
	return change_writable_tests(mm, v, pte, true);
}

/* can_change_pmd_writable (v6.12 mm/huge_memory.c): static inline, the same tests. */
static bool can_change_pmd_writable(struct ptsim_mm *mm, const struct vma *v, pte_t pmd)
{
	return change_writable_tests(mm, v, pmd, false);
}

/* The model's memory and CPUs are all on node 0; NUMA_NO_NODE is -1. */
#define NUMA_NO_NODE	(-1)

/*
 * change_pte_range's target_node: the node a single-threaded process runs
 * on, for a private VMA; no node otherwise.
 */
static int numa_target_node(const struct ptsim_mm *mm, const struct vma *v)
{
	return !(v->flags & VM_SHARED) && mm->users == 1 ? 0 : NUMA_NO_NODE;
}

/*
 * prot_numa_skip: what NUMA hinting leaves alone: protnone entries, no
 * folio, shared or pinned COW folios, and folios already on the node the
 * single-threaded process runs on, which with one node is every folio of a
 * private VMA of a single-threaded mm.
 */
static bool prot_numa_skip(const struct ptsim_mm *mm, const struct vma *v, pte_t oldpte,
			   const struct folio *f)
{
	if (pte_protnone(oldpte) || !f)
		return true;
	if (is_cow_mapping(v->flags) && (f->pinned || folio_mapcount(mm->m, f) > (int)folio_nr_pages(f)))
		return true;
	return numa_target_node(mm, v) == 0;	/* folio_nid(folio) is 0 */
}

/*
 * mprotect_folio_pte_batch: only large folios batch. Out of line (clang's
 * choice for the static function of two callers): an order-0 folio's call
 * is its priced body.
 */
static unsigned int mprotect_folio_pte_batch(struct ptsim_mm *mm, const struct folio *f,
					     pte_t *ptep, pte_t pte, unsigned int max_nr,
					     unsigned int flags)
{
	unsigned int nr;

	if (!folio_test_large(mm->m, f)) {
		if (f)
			count_loop_path(mm->m, PTSIM_LOOP_MPROTECT_FOLIO_PTE_BATCH_ORDER0);
		return 1;
	}
	nr = folio_pte_batch_flags(mm, f, ptep, &pte, max_nr, flags);
	return nr;
}

struct cp_ctx {
	struct ptsim_mm *mm;
	struct mmu_gather *tlb;
	struct spare_tables *spare;
	struct vma vma;		/* a copy: the VMA array may move during the walk */
	pte_t newprot;
	unsigned int cp_flags;
	uint64_t pages;
	int err;	/* -ENOMEM: a table change_prepare needed could not be had */
};

/*
 * userfaultfd_wp_use_markers (include/linux/userfaultfd_k.h, v6.12): a
 * uffd-wp VMA of anonymous memory (the only kind the model registers in WP
 * mode) needs PTE markers when its context has WP_UNPOPULATED.
 */
static bool userfaultfd_wp_use_markers(const struct vma *v)
{
	return v->uffd_wp && (v->uffd_features & UFFD_CTX_WP_UNPOPULATED);
}

/* pgtable_populate_needed: UFFDIO_WRITEPROTECT where markers go in none entries. */
static bool pgtable_populate_needed(const struct cp_ctx *c)
{
	return (c->cp_flags & MM_CP_UFFD_WP) && userfaultfd_wp_use_markers(&c->vma);
}

/* The uffd-wp bit as MM_CP_UFFD_WP / MM_CP_UFFD_WP_RESOLVE want it (change_pte_range). */
static pte_t uffd_wp_apply(const struct cp_ctx *c, pte_t ptent)
{
	if (c->cp_flags & MM_CP_UFFD_WP)
		return pte_mkuffd_wp(ptent);
	if (c->cp_flags & MM_CP_UFFD_WP_RESOLVE)
		return pte_clear_uffd_wp(ptent);
	return ptent;
}

/*
 * change_pte_range for an entry that is not present (v6.12): a uffd-wp
 * marker is dropped by a resolve (pte_clear); a swap entry takes or loses
 * PTE_SWP_UFFD_WP (set_pte_at when it changed); a none entry of a VMA that
 * uses markers gets one under MM_CP_UFFD_WP. Anything else (mprotect and
 * NUMA hinting) changes nothing.
 */
static void change_nonpresent_pte(struct cp_ctx *c, uint64_t addr, pte_t *ptep, pte_t oldpte)
{
	struct ptsim_mm *mm = c->mm;
	pte_t newpte;

	if (is_pte_marker(oldpte)) {
		if (c->cp_flags & MM_CP_UFFD_WP_RESOLVE) {
			set_desc(mm, addr, PTE_LEVEL, ptep, 0);	/* pte_clear */
			c->pages++;
		}
		return;
	}
	if (is_swap_pte(oldpte)) {
		newpte = oldpte;
		if (c->cp_flags & MM_CP_UFFD_WP)
			newpte = pte_swp_mkuffd_wp(newpte);
		else if (c->cp_flags & MM_CP_UFFD_WP_RESOLVE)
			newpte = pte_swp_clear_uffd_wp(newpte);
		if (newpte != oldpte) {
			set_ptes(mm, addr, ptep, newpte, 1);	/* set_pte_at */
			c->pages++;
		}
		return;
	}
	if ((c->cp_flags & MM_CP_UFFD_WP) && userfaultfd_wp_use_markers(&c->vma)) {
		set_ptes(mm, addr, ptep, make_pte_marker_uffd_wp(), 1);	/* set_pte_at */
		c->pages++;
	}
}

/*
 * prot_commit_flush_ptes (v6.17, __always_inline): commit nr entries from
 * idx with a call of arm64's modify_prot_commit_ptes, then widen the gather.
 */
static void prot_commit_flush_ptes(struct cp_ctx *c, uint64_t addr, pte_t *ptep, pte_t oldpte,
				   pte_t ptent, unsigned int nr, unsigned int idx, bool set_write)
{
	const struct ptsim_geometry *g = &c->mm->m->geo;

	addr += (uint64_t)idx << g->page_shift;
	ptep += idx;
	oldpte = pte_advance_pfn(g, oldpte, idx);
	ptent = pte_advance_pfn(g, ptent, idx);
	if (set_write)
		ptent = pte_mkwrite(ptent);
	modify_prot_commit_ptes(c->mm, addr, ptep, ptent, nr);
	if (pte_needs_flush(c->mm->m, oldpte, ptent))
		tlb_flush_pte_range(c->tlb, addr, (uint64_t)nr << g->page_shift);
}

/* commit_anon_folio_batch: runs of equal PageAnonExclusive, each committed on its own. */
static void commit_anon_folio_batch(struct cp_ctx *c, const struct page_ref *ref, uint64_t addr,
				    pte_t *ptep, pte_t oldpte, pte_t ptent, unsigned int nr)
{
	unsigned int idx = 0;

	while (idx < nr) {
		bool excl = page_anon_exclusive(c->mm, ref, idx);
		unsigned int end = idx + 1;

		/* page_anon_exclusive_sub_batch: a priced step per further matching page */
		while (end < nr && page_anon_exclusive(c->mm, ref, end) == excl) {
			count_loop_path(c->mm->m, PTSIM_LOOP_PAGE_ANON_EXCLUSIVE_SUB_BATCH_MATCH);
			end++;
		}
		prot_commit_flush_ptes(c, addr, ptep, oldpte, ptent, end - idx, idx, excl);
		idx = end;
	}
}

/*
 * set_write_prot_commit_flush_ptes (v6.17, __always_inline): its tests are
 * the static can_change_shared_pte_writable and maybe_change_pte_writable,
 * compiled inline: no call of can_change_pte_writable. The turn that hands
 * the batch to commit_anon_folio_batch takes the priced writable path; one
 * that commits otherwise (a shared VMA, a file folio) takes none: its events.
 */
static void set_write_prot_commit_flush_ptes(struct cp_ctx *c, const struct page_ref *ref,
					     uint64_t addr, pte_t *ptep, pte_t oldpte, pte_t ptent,
					     unsigned int nr)
{
	bool set_write;

	if (c->vma.flags & VM_SHARED) {
		/* can_change_shared_pte_writable: dirtiness of the OR-gathered batch */
		set_write = maybe_change_pte_writable(&c->vma, ptent) && pte_dirty(ptent);
		prot_commit_flush_ptes(c, addr, ptep, oldpte, ptent, nr, 0, set_write);
		return;
	}
	set_write = maybe_change_pte_writable(&c->vma, ptent) && folio_test_anon(c->mm->m, ref->folio);
	if (!set_write) {
		prot_commit_flush_ptes(c, addr, ptep, oldpte, ptent, nr, 0, false);
		return;
	}
	count_loop_path(c->mm->m, nr == 1 ? PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_WRITABLE :
					    PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE_WRITABLE);
	commit_anon_folio_batch(c, ref, addr, ptep, oldpte, ptent, nr);
}

/* change_pte_range over [addr, end) of one PTE table. */
static void change_pte_range(struct cp_ctx *c, pte_t *ptep, uint64_t addr, uint64_t end)
{
	struct ptsim_mm *mm = c->mm;
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	bool batching = feature(m, PTSIM_FEAT_MPROTECT_PTE_BATCHING);
	bool prot_numa = c->cp_flags & MM_CP_PROT_NUMA;
	bool try_writable = c->cp_flags & MM_CP_TRY_CHANGE_WRITABLE;

	fn_enter(m, PTSIM_FN_CHANGE_PTE_RANGE);
	pte_offset_map_lock(m);
	flush_tlb_batched_pending(mm);
	arch_enter_lazy_mmu_mode(m);
	while (addr < end) {
		unsigned int nr = 1;
		pte_t oldpte, ptent;
		struct page_ref ref = { 0 };

		pte_loop_step(m);
		oldpte = ptep_get(mm, ptep);
		if (!pte_present(oldpte)) {
			change_nonpresent_pte(c, addr, ptep, oldpte);
			goto next;
		}
		if (batching) {
			unsigned int max_nr = (unsigned int)((end - addr) >> g->page_shift);

			ref = vm_normal_page(mm, oldpte);
			if (prot_numa && prot_numa_skip(c->mm, &c->vma, oldpte, ref.folio)) {
				nr = mprotect_folio_pte_batch(mm, ref.folio, ptep, oldpte, max_nr, 0);
				goto next;
			}
			nr = mprotect_folio_pte_batch(mm, ref.folio, ptep, oldpte, max_nr,
						      FPB_RESPECT_SOFT_DIRTY | FPB_RESPECT_WRITE);
			oldpte = modify_prot_start_ptes(mm, addr, ptep, nr);
			ptent = uffd_wp_apply(c, pte_modify(m, oldpte, c->newprot));
			/*
			 * the loop prices' paths: NUMA hinting's tests are not on them;
			 * a writable turn's is set_write_prot_commit_flush_ptes's to take
			 */
			if (!prot_numa && !(try_writable && !pte_write(ptent)))
				count_loop_path(m, nr == 1 ? PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT :
							     PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE);
			if (try_writable && !pte_write(ptent))
				set_write_prot_commit_flush_ptes(c, &ref, addr, ptep, oldpte, ptent, nr);
			else
				prot_commit_flush_ptes(c, addr, ptep, oldpte, ptent, nr, 0, false);
		} else {
			if (prot_numa) {
				ref = vm_normal_page(mm, oldpte);
				if (prot_numa_skip(c->mm, &c->vma, oldpte, ref.folio))
					goto next;
			}
			oldpte = ptep_modify_prot_start(mm, addr, ptep);
			ptent = uffd_wp_apply(c, pte_modify(m, oldpte, c->newprot));
			/* the loop prices' paths: NUMA hinting's tests are not on them */
			if (!prot_numa)
				count_loop_path(m, try_writable && !pte_write(ptent) ?
						   PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_WRITABLE :
						   PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT);
			if (try_writable && !pte_write(ptent) &&
			    can_change_pte_writable(mm, &c->vma, ptent))
				ptent = pte_mkwrite(ptent);
			ptep_modify_prot_commit(mm, addr, ptep, ptent);
			if (pte_needs_flush(m, oldpte, ptent))
				tlb_flush_pte_range(c->tlb, addr, g->page_size);
		}
		c->pages += nr;
next:
		addr += (uint64_t)nr << g->page_shift;
		ptep += nr;
	}
	fn_exit(m);
}

/* change_huge_pmd: one PMD; pmdp_invalidate_ad flushes the PMD range at once. */
static void change_huge_pmd(struct cp_ctx *c, struct pt_table *t, unsigned int idx, uint64_t addr)
{
	struct ptsim_mm *mm = c->mm;
	const struct ptsim_geometry *g = &mm->m->geo;
	pte_t oldpmd, entry;

	fn_enter(mm->m, PTSIM_FN_CHANGE_HUGE_PMD);
	oldpmd = read_desc(mm, PMD_LEVEL, &t->desc[idx]);
	if (c->cp_flags & MM_CP_PROT_NUMA) {
		struct page_ref ref = vm_normal_page(mm, oldpmd);

		if (prot_numa_skip(c->mm, &c->vma, oldpmd, ref.folio)) {
			fn_exit(mm->m);
			return;
		}
	}
	pmdp_invalidate(mm, addr, &t->desc[idx], oldpmd);	/* pmdp_invalidate_ad */
	entry = uffd_wp_apply(c, pmd_modify(oldpmd, c->newprot));
	if ((c->cp_flags & MM_CP_TRY_CHANGE_WRITABLE) && !pte_write(entry) &&
	    can_change_pmd_writable(mm, &c->vma, entry))
		entry = pte_mkwrite(entry);
	set_pmd_at(mm, addr, &t->desc[idx], entry);
	if (pte_needs_flush(mm->m, oldpmd, entry))	/* huge_pmd_needs_flush */
		tlb_flush_pmd_range(c->tlb, addr, g->pmd_size);
	c->pages += UINT64_C(1) << g->pmd_order;
	fn_exit(mm->m);
}

/* change_pmd_range over one PMD table; a partly covered THP is split first. */
static void change_pmd_range(struct cp_ctx *c, struct pt_table *t, uint64_t addr, uint64_t end)
{
	const struct ptsim_geometry *g = &c->mm->m->geo;

	while (addr < end) {
		uint64_t next = MIN(ALIGN_DOWN64(addr, g->pmd_size) + g->pmd_size, end);
		unsigned int idx = pt_index(g, PMD_LEVEL, addr);
		pte_t pmd;

		pmd_loop_step(c->mm->m);
		pmd = read_desc(c->mm, PMD_LEVEL, &t->desc[idx]);
		if (pmd_is_leaf(t, idx)) {
			if (next - addr == g->pmd_size) {
				change_huge_pmd(c, t, idx, addr);
				goto next;
			}
			if (!split_huge_pmd_spare(c->mm, t, ALIGN_DOWN64(addr, g->pmd_size), c->spare))
				goto next;	/* reported: no table was set aside for it */
		} else if ((!t->next[idx] || pte_none(pmd)) && pgtable_populate_needed(c)) {
			/* change_pmd_prepare: pte_alloc, for the markers */
			if (!pt_walk_table(c->mm, addr, PTE_LEVEL, true, &c->err)) {
				c->err = c->err ? c->err : -ENOMEM;
				return;
			}
		} else if (!t->next[idx] || pte_none(pmd)) {
			goto next;
		}
		change_pte_range(c, &t->next[idx]->desc[pt_index(g, PTE_LEVEL, addr)], addr, next);
next:
		cond_resched(c->mm->m, 1);	/* change_pmd_range, every PMD (v6.12 .. v6.17) */
		addr = next;
	}
}

/* change_protection_range: walk the PUD-size steps, notifier pair, tlb_end_vma. */
static void change_protection(struct cp_ctx *c, uint64_t start, uint64_t end)
{
	const struct ptsim_geometry *g = &c->mm->m->geo;
	bool notified = false;

	tlb_start_vma(c->tlb);
	for (uint64_t addr = start; addr < end;) {
		uint64_t next = MIN(ALIGN_DOWN64(addr, g->pud_size) + g->pud_size, end);
		int err = 0;
		/* change_prepare: pud_alloc and pmd_alloc when markers go in */
		struct pt_table *t = pt_walk_table(c->mm, addr, PMD_LEVEL, pgtable_populate_needed(c),
						   &err);

		if (!t && pgtable_populate_needed(c)) {
			c->err = err ? err : -ENOMEM;
			break;
		}
		if (t) {
			if (!notified)
				mmu_notifier_invalidate_range_start(c->mm->m);
			notified = true;
			change_pmd_range(c, t, addr, next);
			if (c->err)
				break;
		}
		addr = next;
	}
	tlb_end_vma(c->tlb);
}

/*
 * uffd_wp_range (v6.12 mm/userfaultfd.c) over [start, end) of v:
 * change_protection with MM_CP_UFFD_WP, or MM_CP_UFFD_WP_RESOLVE (with
 * MM_CP_TRY_CHANGE_WRITABLE where vma_wants_manual_pte_write_upgrade),
 * between tlb_gather_mmu and tlb_finish_mmu. v is not changed. 0 or -ENOMEM.
 */
int uffd_wp_range(struct ptsim_mm *mm, const struct vma *v, uint64_t start, uint64_t end,
		  bool enable_wp, struct spare_tables *spare)
{
	struct mmu_gather tlb;
	struct cp_ctx c = { .mm = mm, .tlb = &tlb, .spare = spare, .vma = *v };

	c.newprot = v->page_prot;
	c.cp_flags = enable_wp ? MM_CP_UFFD_WP : MM_CP_UFFD_WP_RESOLVE;
	if (!enable_wp && !(v->flags & VM_SHARED) && (v->flags & VM_WRITE))
		c.cp_flags |= MM_CP_TRY_CHANGE_WRITABLE;
	tlb_gather_mmu(&tlb, mm);
	change_protection(&c, start, end);
	tlb_finish_mmu(&tlb);
	return c.err;
}

static unsigned int prot_to_vm(unsigned int prot)
{
	return ((prot & PTSIM_PROT_READ) ? VM_READ : 0) | ((prot & PTSIM_PROT_WRITE) ? VM_WRITE : 0) |
	       ((prot & PTSIM_PROT_EXEC) ? VM_EXEC : 0);
}

/* vma_wants_manual_pte_write_upgrade: private writable VMAs (shared anon has PTE_WRITE). */
static bool wants_manual_write_upgrade(const struct vma *v)
{
	return !(v->flags & VM_SHARED) && (v->flags & VM_WRITE);
}

/* mprotect_fixup: new flags on [start, end) of the VMA at idx, then change_protection. */
static void mprotect_fixup(struct ptsim_mm *mm, struct mmu_gather *tlb, size_t idx,
			   uint64_t start, uint64_t end, unsigned int prot, bool prot_numa,
			   struct spare_tables *spare)
{
	struct vma *v = &mm->vmas[idx];
	struct cp_ctx c = { .mm = mm, .tlb = tlb, .spare = spare };

	if (prot_numa) {
		c.vma = *v;
		c.newprot = PAGE_NONE;
		c.cp_flags = MM_CP_PROT_NUMA;
		change_protection(&c, start, end);
		return;
	}
	unsigned int newflags = (v->flags & ~(VM_READ | VM_WRITE | VM_EXEC)) | prot_to_vm(prot);

	if (newflags == v->flags)
		return;
	if (start > v->start) {
		vma_split(mm, idx, start);
		idx++;
	}
	if (end < mm->vmas[idx].end)
		vma_split(mm, idx, end);
	v = &mm->vmas[idx];
	/*
	 * v6.12 mprotect_fixup: vma_start_write before vm_flags_reset, then
	 * vm_stat_account of the old flags (minus) and the new (plus). The
	 * commit charge of a private VMA that becomes writable without
	 * VM_ACCOUNT is not counted: the model keeps no VM_ACCOUNT flag.
	 */
	vma_start_write(mm, v);
	v->flags = newflags;
	v->page_prot = vm_get_page_prot(newflags);	/* vma_set_page_prot */
	vm_stat_account(mm);
	vm_stat_account(mm);
	idx = vma_merge_around(mm, idx);
	c.vma = mm->vmas[idx];
	c.newprot = c.vma.page_prot;
	c.cp_flags = wants_manual_write_upgrade(&c.vma) ? MM_CP_TRY_CHANGE_WRITABLE : 0;
	change_protection(&c, start, end);
}

static int do_mprotect_pkey(struct ptsim_mm *mm, uint64_t start, uint64_t len, unsigned int prot,
			    bool prot_numa)
{
	struct ptsim_machine *m;
	const struct ptsim_geometry *g;
	struct spare_tables spare;
	struct mmu_gather tlb;
	uint64_t end, addr, covered;
	int err = 0;

	VALIDATE(mm && !mm->kernel && !(prot & ~(PTSIM_PROT_READ | PTSIM_PROT_WRITE | PTSIM_PROT_EXEC)));
	REFUSE_IN_HANDLER(mm->m);
	m = mm->m;
	g = &m->geo;
	VALIDATE(IS_ALIGNED64(start, g->page_size));
	if (!len)
		return 0;
	len = ALIGN_UP64(len, g->page_size);
	end = start + len;
	if (!len || end <= start || end > (UINT64_C(1) << g->va_bits))
		return -ENOMEM;
	/*
	 * A hole in the range is -ENOMEM. do_mprotect_pkey (v6.12) fixes the
	 * VMAs up to the first hole (mprotect_fixup per VMA), then stops with
	 * -ENOMEM; no VMA at start is -ENOMEM before anything. The model does
	 * that with kernel_errors on; by default it changes nothing.
	 */
	covered = covered_end(mm, start, end);
	if (covered == start || (covered < end && !mm->kernel_errors))
		return -ENOMEM;
	end = covered;
	/* everything that can fail is done before the model changes */
	if (vma_reserve(mm, 2))
		return -ENOMEM;
	op_begin(m);
	err = spare_tables_alloc(mm, &spare, start, end);
	if (err) {
		op_end(m, err);
		return err;
	}
	syscall_enter(m);
	mmap_write_lock(mm);	/* mmap_write_lock_killable */
	tlb_gather_mmu(&tlb, mm);
	for (addr = start; addr < end;) {
		struct vma *v = find_vma(mm, addr);
		uint64_t vend = MIN(v->end, end);

		mprotect_fixup(mm, &tlb, vma_index(mm, v), addr, vend, prot, prot_numa, &spare);
		addr = vend;
	}
	tlb_finish_mmu(&tlb);
	spare_tables_free(mm, &spare);	/* the edge's VMA kept its flags: no split happened */
	if (covered < start + len) {
		op_keep_partial(m);
		op_end(m, -ENOMEM);
		return -ENOMEM;
	}
	op_end(m, 0);
	return 0;
}

int ptsim_mprotect(struct ptsim_mm *mm, uint64_t start, uint64_t len, unsigned int prot)
{
	return do_mprotect_pkey(mm, start, len, prot, false);
}

int ptsim_change_prot_numa(struct ptsim_mm *mm, uint64_t start, uint64_t len)
{
	return do_mprotect_pkey(mm, start, len, 0, true);
}
