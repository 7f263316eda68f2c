// SPDX-License-Identifier: MIT
/*
 * UFFDIO_MOVE (models mm/userfaultfd.c: move_pages, move_pages_pte(s),
 * move_present_pte(s), move_zeropage_pte, move_swap_pte, move_pages_huge_pmd).
 * One function per kernel function; the batched variant of v6 ("opportunistic
 * TLB-flush batching for present pages in MOVE") branches on
 * PTSIM_FEAT_UFFD_MOVE_BATCHING where the code differs
 * (doc/uffd-move.md).
 */
#include "asm/pgtable.h"
#include "asm/tlbflush.h"
#include "primitives.h"

/* vm_normal_folio, attributed as its own function for the published profile. */
static struct page_ref vm_normal_folio(struct ptsim_mm *mm, pte_t pte)
{
	struct page_ref ref;

	fn_enter(mm->m, PTSIM_FN_VM_NORMAL_FOLIO);
	ref = vm_normal_page(mm, pte);
	fn_exit(mm->m);
	return ref;
}

/* Do two PTEs share a PTE table (double_pt_lock takes one lock then)? */
static bool same_pte_table(const struct ptsim_mm *mm, const pte_t *dst_pte, const pte_t *src_pte)
{
	uint64_t mask = ~(uint64_t)(mm->m->geo.page_size - 1);

	return ((uintptr_t)dst_pte & mask) == ((uintptr_t)src_pte & mask);
}

struct uffd_move_ctx {
	struct ptsim_mm *mm;
	struct vma *dst_vma, *src_vma;
	unsigned int mode;
	uint64_t src_end;	/* the request's end (batched notifier range) */
};

/* The dst PTE of a moved present page: dst prot, writable, dirty only if src was. */
static pte_t move_dst_pte(const struct uffd_move_ctx *c, uint64_t pfn, pte_t orig_src)
{
	pte_t pte = pfn_pte(&c->mm->m->geo, pfn, c->dst_vma->page_prot);

	if (pte_dirty(orig_src))
		pte = pte_mkdirty(pte);
	return pte_mkwrite(pte);
}

/* folio_move_anon_rmap + folio->index = linear_page_index(dst_vma, dst_addr) */
static void move_rmap(struct uffd_move_ctx *c, struct folio *f, uint64_t dst)
{
	kernel_call(c->mm->m, FOLIO_MOVE_ANON_RMAP);
	f->mapping = c->dst_vma->anon_vma;
	f->index = ((dst - c->dst_vma->start) >> c->mm->m->geo.page_shift) + c->dst_vma->pgoff;
}

/* is_pte_pages_stable: both PTEs and the dst PMD unchanged since they were read. */
static bool is_pte_pages_stable(struct ptsim_mm *mm, pte_t *dst_pte, pte_t *src_pte, pte_t orig_dst,
				pte_t orig_src, const pte_t *dst_pmd, pte_t orig_dst_pmd)
{
	return ptep_get(mm, dst_pte) == orig_dst && ptep_get(mm, src_pte) == orig_src &&
	       read_desc(mm, PMD_LEVEL, dst_pmd) == orig_dst_pmd;
}

/* move_present_pte (baseline): one page, one ptep_clear_flush. */
static int move_present_pte(struct uffd_move_ctx *c, uint64_t dst, uint64_t src, pte_t *dst_pte,
			    pte_t *src_pte, pte_t orig_dst, pte_t orig_src, const pte_t *dst_pmd,
			    pte_t dst_pmdval, struct folio *f)
{
	struct ptsim_mm *mm = c->mm;

	double_pt_lock(mm->m, same_pte_table(mm, dst_pte, src_pte));
	if (!is_pte_pages_stable(mm, dst_pte, src_pte, orig_dst, orig_src, dst_pmd, dst_pmdval))
		return -EAGAIN;
	if (f->order || f->pinned || !folio_page_anon_exclusive(f, 0))
		return -EBUSY;
	orig_src = ptep_clear_flush(mm, src, src_pte);
	move_rmap(c, f, dst);
	set_ptes(mm, dst, dst_pte, move_dst_pte(c, folio_pfn(c->mm->m, f), orig_src), 1);
	return 0;
}

/* check_ptes_for_batched_move: the next pair joins the batch with its folio locked, or NULL. */
static struct folio *check_ptes_for_batched_move(struct uffd_move_ctx *c, pte_t *src_pte, pte_t *dst_pte,
						 uint64_t anon_vma)
{
	struct ptsim_mm *mm = c->mm;
	pte_t s;
	struct page_ref ref;

	if (!pte_none(ptep_get(mm, dst_pte)))
		return NULL;
	s = ptep_get(mm, src_pte);
	if (!pte_present(s) || is_zero_pte(mm, s))
		return NULL;
	ref = vm_normal_folio(mm, s);
	if (!ref.folio || !folio_trylock(mm->m, ref.folio))
		return NULL;
	if (!folio_page_anon_exclusive(ref.folio, ref.idx) || ref.folio->order ||
	    ref.folio->mapping != anon_vma) {
		folio_unlock(mm->m, ref.folio);
		return NULL;
	}
	return ref.folio;
}

/*
 * move_present_ptes (batched): up to the nearer PMD boundary of dst and src,
 * clear and re-set each page with no flush, then one flush_tlb_range for the
 * batch. Returns the bytes moved, or a negative errno when none was.
 */
static int64_t move_present_ptes(struct uffd_move_ctx *c, uint64_t dst, uint64_t src, uint64_t len,
				 pte_t *dst_pte, pte_t *src_pte, pte_t orig_dst, pte_t orig_src,
				 const pte_t *dst_pmd, pte_t dst_pmdval, struct folio **held)
{
	struct ptsim_mm *mm = c->mm;
	const struct ptsim_geometry *g = &mm->m->geo;
	uint64_t src_start = src, src_end, dst_pmd_end, moved = 0;
	struct folio *f = *held;
	uint64_t anon_vma = f->mapping;
	int err = 0;

	dst_pmd_end = ALIGN_DOWN64(dst, g->pmd_size) + g->pmd_size;
	len = MIN(len, dst_pmd_end - dst);
	src_end = MIN(src + len, ALIGN_DOWN64(src, g->pmd_size) + g->pmd_size);
	double_pt_lock(mm->m, same_pte_table(mm, dst_pte, src_pte));
	if (!is_pte_pages_stable(mm, dst_pte, src_pte, orig_dst, orig_src, dst_pmd, dst_pmdval))
		return -EAGAIN;
	if (f->order || f->pinned || !folio_page_anon_exclusive(f, 0))
		return -EBUSY;
	/* the page table holds a reference while the PTLs are held */
	folio_put_ref(mm->m, f);
	*held = NULL;
	arch_enter_lazy_mmu_mode(mm->m);
	for (;;) {
		pte_t old = ptep_get_and_clear(mm, src, src_pte);

		if (f->pinned) {
			set_ptes(mm, src, src_pte, old, 1);
			err = -EBUSY;
			break;
		}
		move_rmap(c, f, dst);
		set_ptes(mm, dst, dst_pte, move_dst_pte(c, folio_pfn(c->mm->m, f), old), 1);
		moved += g->page_size;
		src += g->page_size;
		if (src == src_end)
			break;	/* the last folio stays locked */
		dst += g->page_size;
		src_pte++;
		dst_pte++;
		folio_unlock(mm->m, f);
		f = check_ptes_for_batched_move(c, src_pte, dst_pte, anon_vma);
		if (!f)
			break;
	}
	if (moved) {
		fn_enter(mm->m, PTSIM_FN_FLUSH_TLB_RANGE);
		flush_tlb_range(mm, src_start, src);
		fn_exit(mm->m);
	}
	if (f)
		folio_unlock(mm->m, f);
	return moved ? (int64_t)moved : err;
}

/* move_zeropage_pte: one page, always flushed. */
static int move_zeropage_pte(struct uffd_move_ctx *c, uint64_t dst, uint64_t src, pte_t *dst_pte,
			     pte_t *src_pte, pte_t orig_dst, pte_t orig_src, const pte_t *dst_pmd,
			     pte_t dst_pmdval)
{
	struct ptsim_mm *mm = c->mm;
	pte_t zero;

	double_pt_lock(mm->m, same_pte_table(mm, dst_pte, src_pte));
	if (!is_pte_pages_stable(mm, dst_pte, src_pte, orig_dst, orig_src, dst_pmd, dst_pmdval))
		return -EAGAIN;
	ptep_clear_flush(mm, src, src_pte);
	zero = pte_mkspecial(pfn_pte(&mm->m->geo, mm->m->zero_pfn, c->dst_vma->page_prot));
	set_ptes(mm, dst, dst_pte, zero, 1);
	return 0;
}

/* move_swap_pte: a non-present entry moves without any flush. */
static int move_swap_pte(struct uffd_move_ctx *c, uint64_t dst, uint64_t src, pte_t *dst_pte,
			 pte_t *src_pte, pte_t orig_dst, pte_t orig_src, const pte_t *dst_pmd,
			 pte_t dst_pmdval)
{
	struct ptsim_mm *mm = c->mm;
	pte_t old;

	if (!(orig_src & PTE_SWP_EXCLUSIVE))
		return -EBUSY;
	swap_cache_get_folio(mm->m);	/* get_swap_device, the swap cache: no folio */
	double_pt_lock(mm->m, same_pte_table(mm, dst_pte, src_pte));
	if (!is_pte_pages_stable(mm, dst_pte, src_pte, orig_dst, orig_src, dst_pmd, dst_pmdval))
		return -EAGAIN;
	old = ptep_get_and_clear(mm, src, src_pte);
	set_ptes(mm, dst, dst_pte, old, 1);
	return 0;
}

static pte_t *pte_slot(struct ptsim_mm *mm, struct pt_table *pmd_table, uint64_t addr)
{
	const struct ptsim_geometry *g = &mm->m->geo;

	return &pmd_table->next[pt_index(g, PMD_LEVEL, addr)]->desc[pt_index(g, PTE_LEVEL, addr)];
}

/*
 * move_pages_pte / move_pages_ptes: one page (baseline) or one batch of
 * present pages (batched). Returns bytes moved (> 0) or a negative errno.
 */
static int64_t move_pages_pte(struct uffd_move_ctx *c, struct pt_table *dst_pmdt,
			      struct pt_table *src_pmdt, uint64_t dst, uint64_t src, uint64_t len)
{
	struct ptsim_mm *mm = c->mm;
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	bool batching = feature(m, PTSIM_FEAT_UFFD_MOVE_BATCHING);
	const pte_t *dst_pmd = &dst_pmdt->desc[pt_index(g, PMD_LEVEL, dst)];
	const pte_t *src_pmd = &src_pmdt->desc[pt_index(g, PMD_LEVEL, src)];
	struct folio *held = NULL;
	bool anon_vma_locked = false, retried = false;
	int64_t ret;

	fn_enter(m, PTSIM_FN_MOVE_PAGES_PTE);
	/* the notifier range: one page, or (batched) the whole remaining request */
	mmu_notifier_invalidate_range_start(m);
	goto map;
retry:
	retried = true;
map:
	pte_offset_map_nolock(m);	/* the destination's table */
	pte_offset_map_nolock(m);	/* the source's */
	pte_t dst_pmdval = read_desc(mm, PMD_LEVEL, dst_pmd);
	pte_t src_pmdval = read_desc(mm, PMD_LEVEL, src_pmd);

	if (!pmd_table(dst_pmdval) || !pmd_table(src_pmdval)) {
		ret = pmd_is_leaf(dst_pmdt, pt_index(g, PMD_LEVEL, dst)) ? -EAGAIN : -EINVAL;
		goto out;
	}
	pte_t *dst_pte = pte_slot(mm, dst_pmdt, dst), *src_pte = pte_slot(mm, src_pmdt, src);

	ptl_spin_lock(m);
	pte_t orig_dst = ptep_get(mm, dst_pte);

	if (!pte_none(orig_dst)) {
		ret = -EEXIST;
		goto out;
	}
	ptl_spin_lock(m);
	pte_t orig_src = ptep_get(mm, src_pte);

	if (pte_none(orig_src)) {
		ret = (c->mode & PTSIM_UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES) ? (int64_t)g->page_size : -ENOENT;
		goto out;
	}
	if (is_pte_marker(orig_src)) {
		/* v6.12 move_pages_pte: a non_swap_entry, not a migration entry */
		ret = -EFAULT;
		goto out;
	}
	if (is_swap_pte(orig_src)) {
		ret = move_swap_pte(c, dst, src, dst_pte, src_pte, orig_dst, orig_src, dst_pmd, dst_pmdval);
		ret = ret ? ret : (int64_t)g->page_size;
		goto out;
	}
	if (is_zero_pte(mm, orig_src)) {
		ret = move_zeropage_pte(c, dst, src, dst_pte, src_pte, orig_dst, orig_src, dst_pmd,
					dst_pmdval);
		ret = ret ? ret : (int64_t)g->page_size;
		goto out;
	}
	if (!held) {
		struct page_ref ref;

		ptl_spin_lock(m);
		if (ptep_get(mm, src_pte) != orig_src) {
			ret = -EAGAIN;
			goto out;
		}
		ref = vm_normal_folio(mm, orig_src);
		if (!ref.folio || !folio_page_anon_exclusive(ref.folio, ref.idx)) {
			ret = -EBUSY;
			goto out;
		}
		if (!folio_trylock(mm->m, ref.folio)) {
			if (ref.folio->order) {
				ret = -EAGAIN;	/* no waiting with a raised refcount on a large folio */
				goto out;
			}
			folio_get(m, ref.folio);
			pte_offset_map_nolock(m);	/* mapped again after the wait */
			pte_offset_map_nolock(m);
			folio_lock(mm->m, ref.folio);
			held = ref.folio;
			goto retry;
		}
		folio_get(m, ref.folio);
		held = ref.folio;
	}
	if (held->order) {
		pte_offset_map_nolock(m);	/* mapped again after the split */
		pte_offset_map_nolock(m);
		ret = split_folio(mm, held);
		folio_unlock(mm->m, held);
		folio_put_ref(m, held);
		if (!ret)
			folio_put_unmapped(mm, held);
		held = NULL;
		if (ret)
			goto out;
		goto retry;
	}
	if (!anon_vma_locked) {
		/*
		 * folio_get_anon_vma (an RCU section, two folio_mapped reads, the
		 * reference), anon_vma_trylock_write, and later anon_vma_unlock_write
		 * and put_anon_vma: four out-of-line calls around the atomics
		 */
		folio_get_anon_vma(m);
		anon_vma_trylock_write(m);
		anon_vma_unlock_write(m);
		put_anon_vma(m);
		anon_vma_locked = true;
	}
	if (batching) {
		ret = move_present_ptes(c, dst, src, len, dst_pte, src_pte, orig_dst, orig_src, dst_pmd,
					dst_pmdval, &held);
	} else {
		ret = move_present_pte(c, dst, src, dst_pte, src_pte, orig_dst, orig_src, dst_pmd,
				       dst_pmdval, held);
		/* the priced path: folio and anon_vma taken at once, no retry */
		if (!ret && !retried)
			count_loop_path(m, PTSIM_LOOP_MOVE_PAGES_PTE_PRESENT);
		ret = ret ? ret : (int64_t)g->page_size;
	}
out:
	if (held) {
		folio_unlock(mm->m, held);
		folio_put_ref(m, held);
	}
	fn_exit(m);
	return ret;
}

/* move_pages_huge_pmd: a whole PMD-mapped THP moves with one PMD clear and flush. */
static int move_pages_huge_pmd(struct uffd_move_ctx *c, struct pt_table *dst_pmdt,
			       struct pt_table *src_pmdt, uint64_t dst, uint64_t src)
{
	struct ptsim_mm *mm = c->mm;
	const struct ptsim_geometry *g = &mm->m->geo;
	pte_t *src_pmd = &src_pmdt->desc[pt_index(g, PMD_LEVEL, src)];
	pte_t *dst_pmd = &dst_pmdt->desc[pt_index(g, PMD_LEVEL, dst)];
	pte_t old = read_desc(mm, PMD_LEVEL, src_pmd), new;
	struct folio *f = pfn_folio(mm->m, pte_pfn(g, old));

	if (!f || f->pinned || !folio_page_anon_exclusive(f, 0))
		return -EBUSY;
	if (!folio_trylock(mm->m, f))
		return -EAGAIN;
	pmd_lock(mm->m);	/* double_pt_lock of the two PMDs (move_pages_huge_pmd) */
	pmd_lock(mm->m);
	anon_vma_lock_write(mm->m, c->src_vma->anon_vma);
	pmdp_huge_clear_flush(mm, src, src_pmd);
	move_rmap(c, f, dst);
	new = pte_to_pmd_leaf(pte_mkwrite(pfn_pte(g, folio_pfn(c->mm->m, f), c->dst_vma->page_prot)));
	if (pte_dirty(old))
		new = pte_mkdirty(new);
	set_pmd_at(mm, dst, dst_pmd, new);
	folio_unlock(mm->m, f);
	return 0;
}

/*
 * validate_move_areas (mm/userfaultfd.c, v6.8 .. v6.12): the same access
 * flags and page protection, both mlocked or neither, a writable source, dst
 * registered with this context, both anonymous (the model has no VM_PFNMAP,
 * VM_IO, VM_HUGETLB, VM_MIXEDMAP or VM_SHADOW_STACK for vma_move_compatible to
 * refuse). Every refusal is -EINVAL. Before the per-VMA-lock lookup (v6.8) it
 * ends with anon_vma_prepare(dst_vma): -ENOMEM last.
 */
static int validate_move_areas(const struct ptsim_machine *m, const struct vma *dst,
			       const struct vma *src)
{
	const unsigned int access = VM_READ | VM_WRITE | VM_EXEC;

	if ((dst->flags & access) != (src->flags & access) || dst->page_prot != src->page_prot)
		return -EINVAL;
	if ((dst->flags & VM_LOCKED) != (src->flags & VM_LOCKED))
		return -EINVAL;
	if (!(src->flags & VM_WRITE))
		return -EINVAL;
	if (!dst->uffd)
		return -EINVAL;
	if (!(dst->flags & VM_ANON) || !(src->flags & VM_ANON))
		return -EINVAL;
	if (!feature(m, PTSIM_FEAT_UFFD_PER_VMA_LOCK))
		return anon_vma_available(m, dst);
	return 0;
}

/*
 * uffd_move_lock: find the two VMAs. With the per-VMA-lock lookup
 * ("userfaultfd: use per-vma locks in userfaultfd operations", v6.9) dst comes
 * first, through uffd_lock_vma -> find_vma_and_prepare_anon (no VMA: -ENOENT;
 * a private dst without an anon_vma gets one: -ENOMEM), then src through
 * lock_vma_under_rcu or find_vmas_mm_locked (no VMA: -ENOENT). Before it
 * (v6.8) move_pages looked src then dst up under mmap_lock with find_vma, and
 * a missing one was -EINVAL like the range checks after it.
 *
 * The kernel keeps the anon_vma find_vma_and_prepare_anon gave dst when a
 * later check fails; the model reports the -ENOMEM at the kernel's place but
 * gives dst its anon_vma only once every check passed, so a refused move
 * leaves the model as it was.
 */
static int uffd_move_lock(struct ptsim_mm *mm, uint64_t dst, uint64_t src, struct vma **dst_vmap,
			  struct vma **src_vmap)
{
	const struct ptsim_machine *m = mm->m;
	int err;

	if (!feature(m, PTSIM_FEAT_UFFD_PER_VMA_LOCK)) {
		*src_vmap = find_vma(mm, src);
		*dst_vmap = find_vma(mm, dst);
		return *src_vmap && *dst_vmap ? 0 : -EINVAL;
	}
	*dst_vmap = find_vma(mm, dst);
	if (!*dst_vmap)
		return -ENOENT;
	if (!((*dst_vmap)->flags & VM_SHARED)) {
		err = anon_vma_available(m, *dst_vmap);
		if (err)
			return err;
	}
	*src_vmap = find_vma(mm, src);
	return *src_vmap ? 0 : -ENOENT;
}

/* move_splits_huge_pmd */
static bool move_splits_huge_pmd(const struct ptsim_geometry *g, uint64_t dst, uint64_t src,
				 uint64_t left)
{
	return !IS_ALIGNED64(src, g->pmd_size) || !IS_ALIGNED64(dst, g->pmd_size) ||
	       left < g->pmd_size;
}

static int64_t move_pages(struct ptsim_mm *mm, uint64_t dst, uint64_t src, uint64_t len,
			  unsigned int mode)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	bool batching = feature(m, PTSIM_FEAT_UFFD_MOVE_BATCHING);
	struct uffd_move_ctx c = { .mm = mm, .mode = mode, .src_end = src + len };
	uint64_t moved = 0;
	int64_t err = 0;

	syscall_enter(m);
	err = uffd_move_lock(mm, dst, src, &c.dst_vma, &c.src_vma);
	if (err)
		return err;
	/*
	 * The kernel re-reads ctx->mmap_changing here, under map_changing_lock
	 * (v6.9; under mmap_lock in userfaultfd_move before): the model's flag
	 * cannot change between ptsim_uffd_move's first read and this one.
	 */
	if ((c.src_vma->flags & VM_SHARED) || src + len > c.src_vma->end ||
	    (c.dst_vma->flags & VM_SHARED) || dst + len > c.dst_vma->end)
		return -EINVAL;
	err = validate_move_areas(m, c.dst_vma, c.src_vma);
	if (err)
		return err;
	anon_vma_prepare(m, c.dst_vma);
	while (src < c.src_end) {
		uint64_t step = g->page_size;
		struct pt_table *src_pmdt, *dst_pmdt;
		int werr;
		int64_t ret = 0;
		bool src_hole = false;	/* a source table allocated (ALLOW_SRC_HOLES) */

		/* mm_find_pmd(src), mm_alloc_pmd(dst) */
		src_pmdt = pt_walk_table(mm, src, PMD_LEVEL, false, &werr);
		if (!src_pmdt) {
			if (!(mode & PTSIM_UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES)) {
				err = -ENOENT;
				break;
			}
			src_hole = true;
			src_pmdt = pt_walk_table(mm, src, PMD_LEVEL, true, &werr);
			if (!src_pmdt) {
				err = werr;
				break;
			}
		}
		dst_pmdt = pt_walk_table(mm, dst, PMD_LEVEL, true, &werr);
		if (!dst_pmdt) {
			err = werr;
			break;
		}
		unsigned int si = pt_index(g, PMD_LEVEL, src), di = pt_index(g, PMD_LEVEL, dst);

		if (pmd_is_leaf(dst_pmdt, di)) {
			err = -EEXIST;
			break;
		}
		if (pmd_is_leaf(src_pmdt, si)) {
			if (move_splits_huge_pmd(g, dst, src, c.src_end - src) ||
			    !pte_none(read_desc(mm, PMD_LEVEL, &dst_pmdt->desc[di]))) {
				struct pt_table *pte;
				struct folio *f = pfn_folio(m, pte_pfn(g, src_pmdt->desc[si]));

				if (f && !folio_page_anon_exclusive(f, 0)) {
					err = -EBUSY;
					break;
				}
				err = pt_table_alloc(mm, PTE_LEVEL, &pte);
				if (err)
					break;
				__split_huge_pmd_locked(mm, src_pmdt, ALIGN_DOWN64(src, g->pmd_size), pte);
				continue;
			}
			ret = move_pages_huge_pmd(&c, dst_pmdt, src_pmdt, dst, src);
			step = g->pmd_size;
		} else {
			if (!src_pmdt->next[si]) {
				if (!(mode & PTSIM_UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES)) {
					err = -ENOENT;
					break;
				}
				src_hole = true;
				if (!pt_walk_table(mm, src, PTE_LEVEL, true, &werr)) {	/* __pte_alloc */
					err = werr;
					break;
				}
			}
			if (!dst_pmdt->next[di] && !pt_walk_table(mm, dst, PTE_LEVEL, true, &werr)) {
				err = werr;	/* pte_alloc(dst) */
				break;
			}
			ret = move_pages_pte(&c, dst_pmdt, src_pmdt, dst, src, c.src_end - src);
			if (ret > 0)
				step = (uint64_t)ret;
			/*
			 * v6.12's turn for one page moved, its source tables there
			 * (the batched loop has no price)
			 */
			if (ret > 0 && !batching && !src_hole)
				count_loop_path(m, PTSIM_LOOP_MOVE_PAGES_PTE);
		}
		cond_resched(m, 1);
		if (ret < 0 || !batching) {
			/* the baseline assigns err on every call; v6 only on failure (the quirk) */
			err = ret < 0 ? ret : 0;
		} else if (feature(m, PTSIM_FEAT_UFFD_MOVE_ERR_RESET)) {
			err = 0;
		}
		if (err == -EAGAIN)
			continue;
		if (err)
			break;
		src += step;
		dst += step;
		moved += step;
	}
	return moved ? (int64_t)moved : err;
}

/*
 * An ioctl that finds ctx->mmap_changing set before it reads its argument
 * block: only the system call is counted, and it fails with -EAGAIN.
 */
static int refuse_mmap_changing(struct ptsim_mm *mm)
{
	op_begin(mm->m);
	syscall_enter(mm->m);
	op_end(mm->m, -EAGAIN);
	return -EAGAIN;
}

/* Were the only descriptor stores of the operation the links of the tables it allocated? */
static bool only_table_links(const struct ptsim_stats *s)
{
	uint64_t stores = s->ev[PTSIM_EV_PTE_WRITE] + s->ev[PTSIM_EV_PTE_XCHG] +
			  s->ev[PTSIM_EV_PTE_CAS] + s->ev[PTSIM_EV_PMD_WRITE] +
			  s->ev[PTSIM_EV_PMD_XCHG] + s->ev[PTSIM_EV_PUD_WRITE];

	return stores == s->ev[PTSIM_EV_TABLE_ALLOC] && !s->ev[PTSIM_EV_FOLIO_SPLIT];
}

int64_t ptsim_uffd_move(struct ptsim_mm *mm, uint64_t dst, uint64_t src, uint64_t len,
			unsigned int mode)
{
	const struct ptsim_geometry *g;
	uint64_t top;
	int64_t ret;

	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	/*
	 * userfaultfd_move (fs/userfaultfd.c, v6.8 .. v6.12) reads
	 * ctx->mmap_changing before it copies the argument block in:
	 * -EAGAIN whatever the arguments say, a zeroed block included.
	 */
	if (mm->uffd_mmap_changing)
		return refuse_mmap_changing(mm);
	VALIDATE(len && !(mode & ~(PTSIM_UFFDIO_MOVE_MODE_DONTWAKE |
				   PTSIM_UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES)));
	g = &mm->m->geo;
	top = UINT64_C(1) << g->va_bits;
	VALIDATE(IS_ALIGNED64(dst | src | len, g->page_size));
	VALIDATE(len <= top && src <= top - len && dst <= top - len);
	op_begin(mm->m);
	undo_start(mm->m);
	ret = move_pages(mm, dst, src, len, mode);
	if (ret < 0 && only_table_links(&mm->m->op)) {
		/* nothing but empty tables linked in (mm_alloc_pmd, pte_alloc): take them back */
		undo_rollback(mm->m);
		op_end(mm->m, (int)ret);
	} else {
		/*
		 * Something moved or split. The kernel returns an error after
		 * that too (a THP split before -EEXIST, the batched variant's
		 * sticky error after a moved batch); the model keeps what
		 * happened and its counts, so the totals match the model.
		 */
		undo_commit(mm->m);
		op_end(mm->m, 0);
	}
	return ret;
}

static bool mfill_range_ok(const struct ptsim_mm *mm, uint64_t start, uint64_t len);

/* The first VMA that ends above addr and starts below end, or NULL. */
static const struct vma *next_vma(const struct ptsim_mm *mm, uint64_t addr, uint64_t end)
{
	for (size_t i = 0; i < mm->nr_vmas; i++)
		if (mm->vmas[i].end > addr)
			return mm->vmas[i].start < end ? &mm->vmas[i] : NULL;
	return NULL;
}

/* What a registration sets on each VMA (userfaultfd_register_range). */
struct uffd_registration {
	bool wp, missing;
	uint8_t features;	/* UFFD_CTX_* */
};

static void uffd_register_vma(struct vma *v, const void *arg)
{
	const struct uffd_registration *r = arg;

	/*
	 * v6.12 userfaultfd_register_range skips a VMA of the same context
	 * whose vm_flags already hold the new mode's ((vm_flags & new) == new):
	 * a subset mode keeps what it has
	 */
	if (v->uffd && v->uffd_features == r->features && (v->uffd_wp || !r->wp) &&
	    (v->uffd_missing || !r->missing))
		return;
	v->uffd = true;
	/* vm_flags = (vm_flags & ~__VM_UFFD_FLAGS) | the new mode's */
	v->uffd_wp = r->wp;
	v->uffd_missing = r->missing;
	v->uffd_features = r->features;
}

/*
 * userfaultfd_api's features as the context keeps them (UFFD_CTX_*), or
 * -EINVAL: only the WP features are modelled, and without
 * HAVE_ARCH_USERFAULTFD_WP (arm64 before v6.10: feature uffd_wp off) the
 * kernel drops them from UFFD_API_FEATURES, so asking for one fails.
 */
static int uffd_ctx_features(const struct ptsim_machine *m, unsigned int features, uint8_t *out)
{
	const unsigned int wp = PTSIM_UFFD_FEATURE_PAGEFAULT_FLAG_WP |
				PTSIM_UFFD_FEATURE_WP_HUGETLBFS_SHMEM |
				PTSIM_UFFD_FEATURE_WP_UNPOPULATED | PTSIM_UFFD_FEATURE_WP_ASYNC;

	if (features & ~wp)
		return -EINVAL;
	if (features && !feature(m, PTSIM_FEAT_UFFD_WP))
		return -EINVAL;
	/*
	 * PAGEFAULT_FLAG_WP only changes the uffd_msg format (the WP flag of a
	 * write-protect fault), which the model has none of: accepted, not kept
	 */
	/* WP_ASYNC relies on WP_UNPOPULATED: userfaultfd_api sets it */
	if (features & PTSIM_UFFD_FEATURE_WP_ASYNC)
		features |= PTSIM_UFFD_FEATURE_WP_UNPOPULATED;
	*out = (uint8_t)(((features & PTSIM_UFFD_FEATURE_WP_UNPOPULATED) ? UFFD_CTX_WP_UNPOPULATED : 0) |
			 ((features & PTSIM_UFFD_FEATURE_WP_ASYNC) ? UFFD_CTX_WP_ASYNC : 0) |
			 ((features & PTSIM_UFFD_FEATURE_WP_HUGETLBFS_SHMEM) ?
			  UFFD_CTX_WP_HUGETLBFS_SHMEM : 0));
	return 0;
}

int ptsim_uffd_register_mode(struct ptsim_mm *mm, uint64_t start, uint64_t len, unsigned int mode,
			     unsigned int features)
{
	struct uffd_registration r = { .wp = mode & PTSIM_UFFDIO_REGISTER_MODE_WP,
					.missing = mode & PTSIM_UFFDIO_REGISTER_MODE_MISSING };
	uint64_t addr;
	int err;

	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	err = uffd_ctx_features(mm->m, features, &r.features);
	if (err)
		return err;
	/* userfaultfd_register: the mode, then validate_range */
	VALIDATE(mode && !(mode & ~(PTSIM_UFFDIO_REGISTER_MODE_MISSING |
				    PTSIM_UFFDIO_REGISTER_MODE_WP)));
	VALIDATE(!r.wp || feature(mm->m, PTSIM_FEAT_UFFD_WP));	/* !CONFIG_HAVE_ARCH_USERFAULTFD_WP */
	VALIDATE(len && start + len > start);
	VALIDATE(IS_ALIGNED64(start | len, mm->m->geo.page_size));
	VALIDATE(start + len <= UINT64_C(1) << mm->m->geo.va_bits);
	/*
	 * userfaultfd_register (v6.12): -EINVAL without a VMA in the range;
	 * holes are allowed, every VMA is checked, then registered.
	 */
	if (!next_vma(mm, start, start + len))
		return -EINVAL;
	for (addr = start; addr < start + len;) {
		const struct vma *v = next_vma(mm, addr, start + len);

		if (!v)
			break;
		/* vma_can_userfault: the model registers private anonymous memory only */
		if (!(v->flags & VM_ANON) || (v->flags & VM_SHARED))
			return -EINVAL;
		/* another context (other features) owns it already */
		if (v->uffd && v->uffd_features != r.features)
			return -EBUSY;
		addr = v->end;
	}
	/* userfaultfd_register (mmap_write_lock) -> userfaultfd_register_range */
	op_begin(mm->m);
	mmap_write_lock(mm);
	err = 0;
	/* vma_modify wants a mapped range: one call per run of VMAs */
	for (addr = start; !err && addr < start + len;) {
		const struct vma *v = next_vma(mm, addr, start + len);
		uint64_t from, to;

		if (!v)
			break;
		from = MAX(v->start, addr);
		for (to = v->end; to < start + len;) {
			const struct vma *n = find_vma(mm, to);

			if (!n)
				break;
			to = n->end;
		}
		to = MIN(to, start + len);
		err = vma_modify(mm, from, to, uffd_register_vma, &r);
		addr = to;
	}
	op_end(mm->m, err);
	return err;
}

int ptsim_uffd_register(struct ptsim_mm *mm, uint64_t start, uint64_t len)
{
	return ptsim_uffd_register_mode(mm, start, len, PTSIM_UFFDIO_REGISTER_MODE_MISSING, 0);
}

/*
 * mwriteprotect_range (v6.12 mm/userfaultfd.c) under mmap_read_lock: VMA by
 * VMA of the range (holes skipped), uffd_wp_range on each, stopping with
 * -ENOENT at one not registered in WP mode (or when there is no VMA).
 */
static int mwriteprotect_range(struct ptsim_mm *mm, uint64_t start, uint64_t end, bool enable_wp,
			       struct spare_tables *spare)
{
	int err = -ENOENT;

	mmap_read_lock(mm);
	for (uint64_t addr = start; addr < end;) {
		struct vma *v = find_vma(mm, addr);
		struct vma copy;

		if (!v) {
			size_t i;

			/* the next VMA above addr, if it starts before end */
			for (i = 0; i < mm->nr_vmas && mm->vmas[i].end <= addr; i++)
				;
			if (i == mm->nr_vmas || mm->vmas[i].start >= end)
				break;
			v = &mm->vmas[i];
		}
		if (!v->uffd_wp)
			return -ENOENT;
		copy = *v;
		err = uffd_wp_range(mm, &copy, MAX(copy.start, addr), MIN(copy.end, end), enable_wp,
				    spare);
		if (err)
			return err;
		addr = copy.end;
	}
	return err;
}

int ptsim_uffd_writeprotect(struct ptsim_mm *mm, uint64_t start, uint64_t len, unsigned int mode)
{
	struct spare_tables spare;
	bool wp;
	int err;

	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	/* userfaultfd_writeprotect reads mmap_changing before the argument block */
	if (mm->uffd_mmap_changing)
		return refuse_mmap_changing(mm);
	VALIDATE(mfill_range_ok(mm, start, len));	/* validate_range */
	VALIDATE(!(mode & ~(PTSIM_UFFDIO_WRITEPROTECT_MODE_WP |
			    PTSIM_UFFDIO_WRITEPROTECT_MODE_DONTWAKE)));
	wp = mode & PTSIM_UFFDIO_WRITEPROTECT_MODE_WP;
	VALIDATE(!(wp && (mode & PTSIM_UFFDIO_WRITEPROTECT_MODE_DONTWAKE)));
	op_begin(mm->m);
	/* the tables a split of a THP at the range's edges takes, set aside first */
	err = spare_tables_alloc(mm, &spare, start, start + len);
	if (err) {
		op_end(mm->m, err);
		return err;
	}
	syscall_enter(mm->m);
	err = mwriteprotect_range(mm, start, start + len, wp, &spare);
	spare_tables_free(mm, &spare);
	op_keep_partial(mm->m);	/* the VMAs before an error were done: the kernel keeps them */
	op_end(mm->m, err);
	return err;
}

int ptsim_uffd_set_mmap_changing(struct ptsim_mm *mm, bool changing)
{
	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	mm->uffd_mmap_changing = changing;
	return 0;
}

/*
 * UFFDIO_COPY and UFFDIO_ZEROPAGE (v6.12 mm/userfaultfd.c mfill_atomic, for
 * anonymous private memory): a page placed at each missing dst entry.
 */

/*
 * uffd_mfill_lock: the VMA holding dst must hold the whole range and be
 * registered (validate_dst_vma), else -ENOENT. From v6.9 uffd_lock_vma takes
 * its per-VMA lock (lock_vma_under_rcu) and prepares its anon_vma; before,
 * mmap_read_lock and find_vma_and_prepare_anon. The model checks here that
 * an anon_vma can be had (-ENOMEM) and gives it at the first page placed, so
 * a call that places nothing leaves the VMA as it was. Then mfill_atomic refuses
 * a VMA it cannot fill: shared or file memory (shmem's mfill is not
 * modelled), -EINVAL.
 */
static int uffd_mfill_lock(struct ptsim_mm *mm, uint64_t dst, uint64_t len, struct vma **out)
{
	struct ptsim_machine *m = mm->m;
	struct vma *v = find_vma(mm, dst);
	int err;

	if (feature(m, PTSIM_FEAT_UFFD_PER_VMA_LOCK))
		lock_vma_under_rcu(mm, v);
	else
		mmap_read_lock(mm);
	if (!v || dst + len > v->end || !v->uffd)
		return -ENOENT;
	if ((v->flags & VM_SHARED) || v->fd >= 0)
		return -EINVAL;
	err = anon_vma_available(m, v);
	if (err)
		return err;
	*out = v;
	return 0;
}

/*
 * mfill_atomic_pte_copy (a new folio, the source page copied in, charged)
 * or mfill_atomic_pte_zeropage (the shared zero page, special), then
 * mfill_atomic_install_pte: -EEXIST when the entry is not none (for COPY:
 * nor a uffd-wp marker, which it overwrites). The copy's
 * PTE is dirty, and writable where the VMA is (mk_pte carries arm64's AF).
 */
static int mfill_atomic_pte(struct ptsim_mm *mm, struct vma *v, struct pt_table *t, uint64_t dst,
			    bool copy, struct folio **stray)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	pte_t *ptep = &t->desc[pt_index(g, PTE_LEVEL, dst)];
	struct folio *f = NULL;
	uint64_t pfn;
	pte_t entry, entry_now;
	int err;

	if (copy) {
		err = folio_alloc(m, 0, 0, &f);	/* vma_alloc_folio */
		if (err)
			return err;
		copy_from_user(m);
		mem_cgroup_charge(m, 1);
		pfn = folio_pfn(m, f);
		entry = pte_mkdirty(anon_fault_pte(g, v, pfn, false));
		if (v->flags & VM_WRITE)
			entry = pte_mkwrite(entry);
	} else {
		err = zero_pfn(m, &pfn);
		if (err)
			return err;
		entry = pte_mkspecial(pfn_pte(g, pfn, v->page_prot));
	}
	pte_offset_map_lock(m);
	/*
	 * v6.12 mfill_atomic_install_pte (COPY) takes pte_none_mostly: a
	 * uffd-wp marker is overwritten (MISSING|WP: a none entry protected,
	 * then filled); mfill_atomic_pte_zeropage wants pte_none.
	 */
	entry_now = ptep_get(mm, ptep);
	if (copy ? !(pte_none(entry_now) || is_pte_marker(entry_now)) : !pte_none(entry_now)) {
		*stray = f;	/* the caller puts it (mfill_atomic's out_release) */
		return -EEXIST;
	}
	anon_vma_prepare(m, v);	/* uffd_lock_vma's, at the first page placed (above) */
	if (f) {
		folio_init_anon(mm->m, f, v, dst);
		folio_add_new_anon_rmap(mm, f, true, false);	/* RMAP_EXCLUSIVE */
		folio_add_lru_vma(m, folio_pfn(m, f), f->order > 0);
		add_mm_counter(mm, MM_ANONPAGES);	/* inc_mm_counter */
	}
	set_ptes(mm, dst, ptep, entry, 1);	/* set_pte_at */
	return 0;
}

/*
 * mfill_atomic: page by page, the tables allocated as needed
 * (mm_alloc_pmd, __pte_alloc); a PMD THP at dst is -EEXIST. The source is
 * read with copy_from_user: a source page not mapped yet is faulted in
 * first (the kernel's -ENOENT round: copy_from_user with page faults
 * enabled, outside the locks, then a retry), a fault that fails is
 * -EFAULT. Returns the bytes placed, or the error when none was; a folio
 * allocated for a page found mapped is left in *stray.
 */
static int64_t mfill_atomic(struct ptsim_mm *mm, uint64_t dst, uint64_t src, uint64_t len,
			    bool copy, struct folio **stray)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	struct vma *v;
	uint64_t done = 0;
	int err;

	err = uffd_mfill_lock(mm, dst, len, &v);
	if (err)
		return err;
	for (; done < len; done += g->page_size) {
		struct ptsim_translation tr;
		struct pt_table *pmdt, *t;
		uint64_t a = dst + done;

		if (copy && ptsim_translate(mm, src + done, &tr)) {
			err = handle_mm_fault(mm, src + done, PTSIM_ACCESS_READ);
			/* the fault ran its own undo log: what follows is recorded afresh */
			undo_start(m);
			if (err) {
				err = -EFAULT;
				break;
			}
			err = uffd_mfill_lock(mm, dst, len, &v);	/* goto retry */
			if (err)
				break;
		}
		pmdt = pt_walk_table(mm, a, PMD_LEVEL, true, &err);	/* mm_alloc_pmd */
		if (!pmdt) {
			err = err ? err : -ENOMEM;
			break;
		}
		if (pmd_is_leaf(pmdt, pt_index(g, PMD_LEVEL, a))) {
			err = -EEXIST;	/* pmd_trans_huge */
			break;
		}
		t = pt_walk_table(mm, a, PTE_LEVEL, true, &err);	/* __pte_alloc */
		if (!t) {
			err = err ? err : -ENOMEM;
			break;
		}
		err = mfill_atomic_pte(mm, v, t, a, copy, stray);
		cond_resched(m, 1);
		if (err)
			break;
	}
	return done ? (int64_t)done : err;
}

/*
 * userfaultfd_copy / userfaultfd_zeropage (fs/userfaultfd.c, v6.12):
 * mmap_changing first (-EAGAIN), then the ranges and modes (-EINVAL), then
 * mfill_atomic. Something placed is kept and counted, as in the kernel; a
 * call that placed nothing leaves the model as it was, apart from tables
 * its walk linked in, which are taken back.
 */
static int64_t userfaultfd_mfill(struct ptsim_mm *mm, uint64_t dst, uint64_t src, uint64_t len,
				 bool copy)
{
	struct folio *stray = NULL;
	int64_t ret;

	op_begin(mm->m);
	syscall_enter(mm->m);
	if (mm->uffd_mmap_changing) {
		op_end(mm->m, -EAGAIN);
		return -EAGAIN;
	}
	undo_start(mm->m);
	ret = mfill_atomic(mm, dst, src, len, copy, &stray);
	if (ret < 0 && only_table_links(&mm->m->op)) {
		undo_rollback(mm->m);	/* frees the stray folio with the tables */
		op_end(mm->m, (int)ret);
	} else {
		if (stray)
			folio_put_new(mm->m, stray);
		undo_commit(mm->m);
		op_keep_partial(mm->m);
		op_end(mm->m, 0);
	}
	return ret;
}

static bool mfill_range_ok(const struct ptsim_mm *mm, uint64_t start, uint64_t len)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	uint64_t top = UINT64_C(1) << g->va_bits;

	/* validate_range: aligned, not empty, inside TASK_SIZE */
	return len && IS_ALIGNED64(start | len, g->page_size) && len <= top && start <= top - len;
}

int64_t ptsim_uffd_copy(struct ptsim_mm *mm, uint64_t dst, uint64_t src, uint64_t len,
			unsigned int mode)
{
	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	if (!mm->uffd_mmap_changing) {
		/* UFFDIO_COPY_MODE_WP needs a VM_UFFD_WP registration, which the model has not */
		VALIDATE(mfill_range_ok(mm, dst, len) && mfill_range_ok(mm, src, len));
		VALIDATE(!(mode & ~PTSIM_UFFDIO_COPY_MODE_DONTWAKE));
	}
	return userfaultfd_mfill(mm, dst, src, len, true);
}

int64_t ptsim_uffd_zeropage(struct ptsim_mm *mm, uint64_t start, uint64_t len, unsigned int mode)
{
	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	if (!mm->uffd_mmap_changing) {
		VALIDATE(mfill_range_ok(mm, start, len));
		VALIDATE(!(mode & ~PTSIM_UFFDIO_ZEROPAGE_MODE_DONTWAKE));
	}
	return userfaultfd_mfill(mm, start, 0, len, false);
}
