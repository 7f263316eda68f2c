// SPDX-License-Identifier: MIT
/*
 * mremap (models mm/mremap.c): shrink, grow in place, or move a mapping
 * with move_page_tables: whole PUD or PMD tables when both sides are aligned
 * (move_normal_pud / move_normal_pmd), a PMD THP whole (move_huge_pmd), else
 * move_ptes per extent, which branches on "mremap_pte_batching" (v6.17).
 * The source is then unmapped like munmap. doc/mm-lifecycle.md has the counts.
 */
#include <stdlib.h>

#include "zap.h"
#include "asm/pgtable.h"
#include "asm/tlbflush.h"
#include "pte_batch.h"
#include "primitives.h"

struct move_ctx {
	struct ptsim_mm *mm;
	bool uffd;	/* vma_has_uffd_without_event_remap: no table moves */
};

/* get_extent: to the next `size` boundary of both addresses, at most `left`. */
static uint64_t get_extent(uint64_t old, uint64_t new, uint64_t left, uint64_t size)
{
	uint64_t e = ALIGN_DOWN64(old, size) + size - old;

	e = MIN(e, ALIGN_DOWN64(new, size) + size - new);
	return MIN(e, left);
}

/* mremap_folio_pte_batch: a large folio's entries move together. */
static unsigned int mremap_folio_pte_batch(struct ptsim_mm *mm, pte_t *ptep, pte_t pte,
					   unsigned int max_nr)
{
	struct page_ref ref;
	unsigned int nr;

	if (max_nr == 1)
		return 1;
	ref = vm_normal_page(mm, pte);	/* vm_normal_folio */
	if (!folio_test_large(mm->m, ref.folio))
		return 1;
	/* v6.17 calls folio_pte_batch; the v6.18 fix respects the write bit (inline flags variant) */
	if (feature(mm->m, PTSIM_FEAT_MREMAP_BATCH_RESPECT_WRITE))
		nr = folio_pte_batch_flags(mm, ref.folio, ptep, &pte, max_nr, FPB_RESPECT_WRITE);
	else
		nr = folio_pte_batch(mm, ref.folio, ptep, pte, max_nr);
	return nr;
}

/*
 * move_ptes: clear each entry (or folio batch) at the old address, write it
 * at the new one; one flush of the old extent when anything present moved.
 */
static void move_ptes(struct move_ctx *c, struct pt_table *old_t, struct pt_table *new_t,
		      uint64_t old, uint64_t new, uint64_t extent)
{
	struct ptsim_mm *mm = c->mm;
	const struct ptsim_geometry *g = &mm->m->geo;
	bool batching = feature(mm->m, PTSIM_FEAT_MREMAP_PTE_BATCHING), force_flush = false;
	pte_t *oldp = &old_t->desc[pt_index(g, PTE_LEVEL, old)], *newp = &new_t->desc[pt_index(g, PTE_LEVEL, new)];

	pte_offset_map_lock(mm->m);	/* the old table's */
	pte_offset_map_nolock(mm->m);	/* the new table's, */
	if (old_t != new_t)
		ptl_spin_lock(mm->m);	/* its lock nested when it is another */
	flush_tlb_batched_pending(mm);
	arch_enter_lazy_mmu_mode(mm->m);
	for (uint64_t done = 0, nr; done < extent; done += nr << g->page_shift) {
		uint64_t i = done >> g->page_shift;
		pte_t pte;

		nr = 1;
		pte_loop_step(mm->m);
		pte = ptep_get(mm, oldp + i);
		if (pte_none(pte)) {
			/* v6.12's loop (the loop prices'); v6.17's batched one has no price */
			if (!batching)
				count_loop_path(mm->m, PTSIM_LOOP_MOVE_PTES_NONE);
			continue;
		}
		if (pte_present(pte) && !batching)
			count_loop_path(mm->m, PTSIM_LOOP_MOVE_PTES_PRESENT);
		if (pte_present(pte)) {
			if (batching)
				nr = mremap_folio_pte_batch(mm, oldp + i, pte,
							    (unsigned int)((extent - done) >> g->page_shift));
			force_flush = true;
		}
		if (batching)
			pte = get_and_clear_full_ptes(mm, old + done, oldp + i, (unsigned int)nr, 0);
		else
			pte = ptep_get_and_clear(mm, old + done, oldp + i);
		/* move_pte and move_soft_dirty_pte change nothing on arm64 */
		if (c->uffd && pte_marker_uffd_wp(pte)) {
			/*
			 * vma_has_uffd_without_event_remap (v6.12 move_ptes): the
			 * new VMA is not registered, so a uffd-wp marker is dropped
			 * (pte_clear of the new entry) and the uffd-wp bits go
			 */
			set_desc(mm, new + done, PTE_LEVEL, newp + i, 0);
			continue;
		}
		if (c->uffd)
			pte = pte_present(pte) ? pte_clear_uffd_wp(pte) : pte_swp_clear_uffd_wp(pte);
		set_ptes(mm, new + done, newp + i, pte, (unsigned int)nr);
	}
	if (force_flush)
		flush_tlb_range(mm, old, old + extent);
}

/*
 * move_normal_pmd / move_normal_pud: hand the whole lower table over; the
 * entries in it move with it (cont bits and all), no PTE is touched.
 */
static bool move_normal_table(struct move_ctx *c, int level, struct pt_table *old_t,
			      struct pt_table *new_t, uint64_t old, uint64_t new)
{
	struct ptsim_mm *mm = c->mm;
	const struct ptsim_geometry *g = &mm->m->geo;
	unsigned int oi = pt_index(g, level, old), ni = pt_index(g, level, new);
	const struct vma *ov;
	pte_t entry;

	if (c->uffd || !pte_none(read_desc(mm, level, &new_t->desc[ni])) || !old_t->next[oi])
		return false;
	ov = find_vma(mm, old);
	anon_vma_lock_write(mm->m, ov ? ov->anon_vma : 0);	/* take_rmap_locks */
	pmd_lock(mm->m);
	entry = read_desc(mm, level, &old_t->desc[oi]);
	set_desc(mm, old, level, &old_t->desc[oi], 0);		/* pmd_clear */
	set_desc(mm, new, level, &new_t->desc[ni], entry);	/* pmd_populate */
	new_t->next[ni] = old_t->next[oi];
	old_t->next[oi] = NULL;
	flush_tlb_range(mm, old, old + pt_level_size(g, level));
	return true;
}

/* move_huge_pmd: a PMD THP moves as one entry. */
static bool move_huge_pmd(struct move_ctx *c, struct pt_table *old_t, struct pt_table *new_t,
			  uint64_t old, uint64_t new)
{
	struct ptsim_mm *mm = c->mm;
	const struct ptsim_geometry *g = &mm->m->geo;
	unsigned int oi = pt_index(g, PMD_LEVEL, old), ni = pt_index(g, PMD_LEVEL, new);
	pte_t pmd;

	if (!pte_none(read_desc(mm, PMD_LEVEL, &new_t->desc[ni])))
		return false;
	pmd_lock(mm->m);
	pmd = pmdp_huge_get_and_clear(mm, old, &old_t->desc[oi]);
	if (c->uffd)
		pmd = pte_clear_uffd_wp(pmd);	/* v6.12 move_huge_pmd: clear_uffd_wp_pmd */
	set_pmd_at(mm, new, &new_t->desc[ni], pmd);
	if (pte_present(pmd))
		flush_pmd_tlb_range(mm, old, old + g->pmd_size);
	return true;
}

/* move_page_tables over [old, old + len) to new; the tables it needs were reserved. */
static void move_page_tables(struct move_ctx *c, uint64_t old, uint64_t new, uint64_t len)
{
	struct ptsim_mm *mm = c->mm;
	const struct ptsim_geometry *g = &mm->m->geo;
	bool pud_moves = g->start_level <= 1;
	uint64_t extent;
	int err;

	mmu_notifier_invalidate_range_start(mm->m);
	for (uint64_t done = 0; done < len; done += extent) {
		uint64_t o = old + done, n = new + done;
		struct pt_table *old_pmd_t, *new_pmd_t, *new_pte_t;
		unsigned int oi;

		cond_resched(mm->m, 1);	/* every extent (v6.12 move_page_tables) */
		extent = get_extent(o, n, len - done, g->pud_size);
		/* get_old_pud: nothing below this PUD entry, nothing to move */
		old_pmd_t = pt_walk_table(mm, o, PMD_LEVEL, false, &err);
		if (!old_pmd_t)
			continue;
		if (pud_moves) {
			/* alloc_new_pud, then a whole PMD table when the extent is a PUD */
			struct pt_table *new_pud_t = pt_walk_table(mm, n, PUD_LEVEL, true, &err);
			struct pt_table *old_pud_t = pt_walk_table(mm, o, PUD_LEVEL, false, &err);

			if (extent == g->pud_size && new_pud_t && old_pud_t &&
			    move_normal_table(c, 1, old_pud_t, new_pud_t, o, n))
				continue;
		}
		extent = get_extent(o, n, len - done, g->pmd_size);
		oi = pt_index(g, PMD_LEVEL, o);
		if (pte_none(read_desc(mm, PMD_LEVEL, &old_pmd_t->desc[oi])))
			continue;	/* get_old_pmd */
		new_pmd_t = pt_walk_table(mm, n, PMD_LEVEL, true, &err);	/* alloc_new_pmd */
		if (!new_pmd_t)
			break;	/* reported by the reservation's absence; cannot happen */
		if (pmd_is_leaf(old_pmd_t, oi)) {
			struct pt_table *split;

			if (extent == g->pmd_size && move_huge_pmd(c, old_pmd_t, new_pmd_t, o, n))
				continue;
			if (pt_table_alloc(mm, PTE_LEVEL, &split))
				break;
			__split_huge_pmd_locked(mm, old_pmd_t, ALIGN_DOWN64(o, g->pmd_size), split);
		} else if (extent == g->pmd_size &&
			   move_normal_table(c, 2, old_pmd_t, new_pmd_t, o, n)) {
			continue;
		}
		new_pte_t = pt_walk_table(mm, n, PTE_LEVEL, true, &err);	/* pte_alloc */
		if (!new_pte_t)
			break;
		move_ptes(c, old_pmd_t->next[oi], new_pte_t, o, n, extent);
	}
}

/*
 * Tables a move of [old, old + len) may allocate, bounded by what is mapped
 * there: each used old PMD entry meets at most two new PMD slots (and may
 * need a split table), each old PMD table at most two new PUD slots.
 */
static int reserve_move_tables(struct ptsim_mm *mm, uint64_t old, uint64_t len)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	size_t nr[PTSIM_MAX_LEVELS] = { 0 }, used = 0, tables = 0;
	uint64_t last_table = UINT64_MAX;

	for (uint64_t va = old; (va = pt_next_pmd_used(mm, va, old + len)) < old + len;
	     va = ALIGN_DOWN64(va, g->pmd_size) + g->pmd_size) {
		used++;
		if (ALIGN_DOWN64(va, g->pud_size) != last_table) {
			tables++;
			last_table = ALIGN_DOWN64(va, g->pud_size);
		}
	}
	if (!used)
		return 0;
	nr[level_slot(3)] = 3 * used + 2;
	nr[level_slot(2)] = 2 * tables + 2;
	if (g->start_level < 1)
		nr[level_slot(1)] = 2 * tables + 2;
	return pt_reserve(mm->m, nr);
}

/*
 * try_realign_addr: when old and new share their offset inside a PMD and
 * nothing is mapped below either in that PMD, move from the PMD boundary so
 * whole tables can move.
 */
static void try_realign_addr(struct ptsim_mm *mm, const struct vma *ov, uint64_t *old,
			     uint64_t *new, uint64_t *len)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	uint64_t off = *old & (g->pmd_size - 1);

	if (!off || *len < g->pmd_size - off || off != (*new & (g->pmd_size - 1)) ||
	    ov->start != *old || !range_is_free(mm, *old - off, *old) ||
	    !range_is_free(mm, *new - off, *new))
		return;
	*old -= off;
	*new -= off;
	*len += off;
}

/*
 * move_vma's first step for MREMAP_DONTUNMAP of an mlocked VMA (v6.12: "To
 * account mlock()'d pages correctly"): split_vma at the range's edges, so
 * that the range is a VMA of its own before the move (a PMD THP an edge
 * cuts is split first, as __split_vma's vma_adjust_trans_huge does, with a
 * table from spare).
 */
static void dontunmap_split_locked(struct ptsim_mm *mm, uint64_t old, uint64_t len,
				   struct spare_tables *spare)
{
	size_t idx = vma_index(mm, find_vma(mm, old));

	if (mm->vmas[idx].start < old) {
		split_huge_pmd_address(mm, old, spare);
		vma_split(mm, idx++, old);
	}
	if (old + len < mm->vmas[idx].end) {
		split_huge_pmd_address(mm, old + len, spare);
		vma_split(mm, idx, old + len);
	}
}

/*
 * The end of a successful MREMAP_DONTUNMAP move (v6.12 move_vma; later
 * kernels' dontunmap_complete): the old VMA stays, empty, and loses
 * VM_LOCKED and VM_LOCKONFAULT; when it is exactly the moved range its
 * anon_vma links go (unlink_anon_vmas: its tables were moved away) and an
 * anonymous one takes the page offset of an unfaulted anonymous VMA
 * (vm_start >> PAGE_SHIFT). It was write-locked by move_vma already.
 */
static void dontunmap_complete(struct ptsim_mm *mm, uint64_t old, uint64_t len)
{
	struct vma *v = find_vma(mm, old);

	v->flags &= ~VM_LOCKED_MASK;
	if (v->start != old || v->end != old + len)
		return;
	unlink_anon_vmas(mm->m, v);
	v->anon_vma = 0;
	v->avc = 0;
	if (v->fd < 0 && !v->shmem)
		v->pgoff = old >> mm->m->geo.page_shift;
}

/*
 * Spare tables for dontunmap_split_locked, added to spare: the THPs the
 * edges of [old, old + len) cut, when a DONTUNMAP move of an mlocked VMA
 * will split there.
 */
static int dontunmap_spare_tables(struct ptsim_mm *mm, uint64_t old, uint64_t len,
				  unsigned int flags, struct spare_tables *spare)
{
	const struct vma *v = find_vma(mm, old);
	struct spare_tables edges;
	int err;

	if (!(flags & PTSIM_MREMAP_DONTUNMAP) || !v || !(v->flags & VM_LOCKED))
		return 0;
	err = spare_tables_alloc(mm, &edges, old, old + len);
	for (unsigned int i = 0; !err && i < edges.n; i++)
		spare->t[spare->n++] = edges.t[i];
	return err;
}

/* move_vma: the new VMA, the page tables, then the old range unmapped (or kept, DONTUNMAP). */
static void move_vma(struct ptsim_mm *mm, uint64_t old, uint64_t len, uint64_t new,
		     uint64_t new_len, bool dontunmap, struct spare_tables *spare)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	struct vma ov, nv;
	struct move_ctx c = { .mm = mm };
	struct spare_tables none = { .n = 0 };
	uint64_t mo = old, mn = new, ml = len;

	if (dontunmap && (find_vma(mm, old)->flags & VM_LOCKED))
		dontunmap_split_locked(mm, old, len, spare);
	ov = *find_vma(mm, old);
	nv = ov;
	c.uffd = ov.uffd;

	/*
	 * move_vma (v6.12): the commit charge of a VM_ACCOUNT mapping, the
	 * old VMA write-locked; copy_vma: a vm_area_dup with a clone of the
	 * anon_vma chain, linked (vma_link: write-locked, stored where it adds
	 * a range); after the move, vm_stat_account of the new range
	 */
	if (accountable_mapping(&ov))
		security_vm_enough_memory_mm(mm->m);
	vma_start_write(mm, find_vma(mm, old));
	nv.start = new;
	nv.end = new + new_len;
	nv.pgoff = ov.pgoff + ((old - ov.start) >> g->page_shift);
	vm_area_dup(mm->m, &ov, &nv);
	anon_vma_clone(mm->m, &nv, &ov);
	vma_insert(mm, &nv);	/* the slot was reserved */
	vma_start_write(mm, find_vma(mm, new));
	vma_iter_store(mm, find_vma(mm, new), true);
	try_realign_addr(mm, &ov, &mo, &mn, &ml);
	move_page_tables(&c, mo, mn, ml);
	vma_merge_around(mm, vma_index(mm, find_vma(mm, new)));	/* copy_vma's merge */
	/*
	 * mremap_userfaultfd_prep (v6.12 fs/userfaultfd.c), after the tables
	 * moved: the model's uffd context has no UFFD_FEATURE_EVENT_REMAP, so
	 * the new VMA, merged or not, drops its registration (it is
	 * write-locked in this hold already)
	 */
	find_vma(mm, new)->uffd = false;
	find_vma(mm, new)->uffd_wp = false;
	find_vma(mm, new)->uffd_missing = false;
	find_vma(mm, new)->uffd_features = 0;
	vm_stat_account(mm);
	if (dontunmap)
		dontunmap_complete(mm, old, len);
	else
		do_vmi_munmap(mm, old, old + len, &none);
}

/*
 * mremap_to's work once the checks passed: with MREMAP_FIXED the target is
 * unmapped first (do_munmap), then move_vma moves [old, old + len) there.
 */
static void mremap_to_one(struct ptsim_mm *mm, uint64_t old, uint64_t len, uint64_t new_addr,
			  unsigned int flags, struct spare_tables *spare)
{
	if (flags & PTSIM_MREMAP_FIXED)
		do_vmi_munmap(mm, new_addr, new_addr + len, spare);
	move_vma(mm, old, len, new_addr, len, flags & PTSIM_MREMAP_DONTUNMAP, spare);
}

/*
 * vma_multi_allowed (v6.17): a VMA that may move as one of several. A
 * uffd-armed one may not (its remap event would drop the mmap lock); nor a
 * file whose f_op->get_unmapped_area could move a MREMAP_FIXED target, which
 * no file of the model has (shmem and regular files qualify).
 */
static bool vma_multi_allowed(const struct vma *v)
{
	return !v->uffd;
}

/* The index of the first VMA that ends above addr (mm->nr_vmas: none). */
static size_t vma_index_from(const struct ptsim_mm *mm, uint64_t addr)
{
	size_t i = 0;

	while (i < mm->nr_vmas && mm->vmas[i].end <= addr)
		i++;
	return i;
}

/*
 * remap_move (v6.17, "mm/mremap: permit mremap() move of multiple VMAs"): a
 * MREMAP_FIXED move that keeps the size, over every VMA of [old, old + len)
 * in turn: each part moves as its own mremap_to (the target part unmapped,
 * then move_vma) to new_addr plus its offset in the range, so the holes
 * between the VMAs are kept. The range must start in a VMA (-EFAULT). A VMA
 * vma_multi_allowed refuses stops the walk with -EFAULT: before anything
 * moved when it is the first and more of the range follows it (the fix
 * "mm/mremap: catch invalid multi VMA moves earlier"), after the VMAs before
 * it moved otherwise; the kernel keeps those moves, and so does the model
 * (op_keep_partial). Everything that could fail is reserved first, so a
 * failure of host memory changes nothing.
 */
static int remap_move(struct ptsim_mm *mm, uint64_t old, uint64_t len, unsigned int flags,
		      uint64_t new_addr, uint64_t *out)
{
	struct ptsim_machine *m = mm->m;
	const uint64_t end = old + len;
	size_t first = vma_index_from(mm, old), nr = 0;
	struct remap_part {
		uint64_t addr, len;
		struct spare_tables spare;	/* for the THP cuts at the target part's edges */
	} *part;
	int err = 0, ret = 0;

	if (first == mm->nr_vmas || mm->vmas[first].start > old)
		return -EFAULT;	/* no gap permitted at the start of the range */
	while (first + nr < mm->nr_vmas && mm->vmas[first + nr].start < end) {
		if (!vma_multi_allowed(&mm->vmas[first + nr]) &&
		    (nr || mm->vmas[first].end < end)) {
			ret = -EFAULT;
			break;
		}
		nr++;
	}
	if (!nr)
		return ret;
	/* the first part's get_unmapped_area: security_mmap_addr (cap_mmap_addr) */
	if (new_addr < DEFAULT_MMAP_MIN_ADDR)
		return -EPERM;
	part = calloc(nr, sizeof(*part));
	if (!part || vma_reserve(mm, 6 * nr)) {
		free(part);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct vma *v = &mm->vmas[first + i];

		part[i].addr = MAX(v->start, old);
		part[i].len = MIN(v->end, end) - part[i].addr;
	}
	op_begin(m);
	syscall_enter(m);
	mmap_write_lock(mm);	/* mmap_write_lock_killable */
	for (size_t i = 0; i < nr && !err; i++) {
		uint64_t to = new_addr + (part[i].addr - old);

		if (!range_is_free(mm, to, to + part[i].len))
			err = spare_tables_alloc(mm, &part[i].spare, to, to + part[i].len);
		if (!err)
			err = dontunmap_spare_tables(mm, part[i].addr, part[i].len, flags, &part[i].spare);
		if (!err)
			err = reserve_move_tables(mm, part[i].addr, part[i].len);
	}
	/* the parts keep their addresses: a move changes no VMA of [old, end) but its own */
	for (size_t i = 0; i < nr && !err; i++)
		mremap_to_one(mm, part[i].addr, part[i].len, new_addr + (part[i].addr - old),
			      flags, &part[i].spare);
	pt_unreserve(m);
	for (size_t i = 0; i < nr; i++)
		spare_tables_free(mm, &part[i].spare);
	free(part);
	if (err) {
		op_end(m, err);
		return err;
	}
	if (ret)
		op_keep_partial(m);
	op_end(m, ret);
	if (!ret && out)
		*out = new_addr;
	return ret;
}

int ptsim_mremap(struct ptsim_mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len,
		 unsigned int flags, uint64_t new_addr, uint64_t *out)
{
	const unsigned int known = PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED | PTSIM_MREMAP_DONTUNMAP;
	struct ptsim_machine *m;
	const struct ptsim_geometry *g;
	const struct vma *v;
	struct spare_tables spare = { .n = 0 };
	bool move;
	uint64_t limit, dest = old;
	int err;

	VALIDATE(mm && !mm->kernel && !(flags & ~known));
	REFUSE_IN_HANDLER(mm->m);
	m = mm->m;
	g = &m->geo;
	limit = UINT64_C(1) << g->va_bits;
	old_len = ALIGN_UP64(old_len, g->page_size);
	new_len = ALIGN_UP64(new_len, g->page_size);
	VALIDATE(IS_ALIGNED64(old, g->page_size) && old_len && new_len &&
		 old_len <= limit && old <= limit - old_len && new_len <= limit);
	VALIDATE(!(flags & (PTSIM_MREMAP_FIXED | PTSIM_MREMAP_DONTUNMAP)) ||
		 (flags & PTSIM_MREMAP_MAYMOVE));
	if (flags & PTSIM_MREMAP_FIXED) {
		VALIDATE(IS_ALIGNED64(new_addr, g->page_size) && new_addr <= limit - new_len);
		VALIDATE(new_addr + new_len <= old || old + old_len <= new_addr);	/* no overlap */
	}
	/* check_mremap_params: MREMAP_DONTUNMAP does not resize */
	VALIDATE(!(flags & PTSIM_MREMAP_DONTUNMAP) || old_len == new_len);
	/* do_mremap (v6.17): vrm_move_only, a fixed move that keeps the size, may span VMAs */
	if (feature(m, PTSIM_FEAT_MREMAP_MULTI_VMA) && (flags & PTSIM_MREMAP_FIXED) &&
	    old_len == new_len)
		return remap_move(mm, old, old_len, flags, new_addr, out);
	v = find_vma(mm, old);	/* vma_lookup */
	if (!v)
		return -EFAULT;
	move = (flags & (PTSIM_MREMAP_FIXED | PTSIM_MREMAP_DONTUNMAP)) ||
	       (new_len > old_len && !(old + old_len == v->end &&
				      old + new_len <= limit &&
				      range_is_free(mm, v->end, old + new_len)));
	/*
	 * vma_to_resize (v6.12) / remap_is_valid (v6.17): what stays or moves
	 * must lie in the VMA at old ("We can't remap across vm area
	 * boundaries"); a shrink keeps only [old, old + new_len), so the tail it
	 * unmaps may span VMAs and holes. A shrink or same-size call in place
	 * checks nothing more: it only unmaps the tail (do_vmi_munmap).
	 */
	if ((move || new_len > old_len) && MIN(old_len, new_len) > v->end - old)
		return -EFAULT;
	/* get_unmapped_area's security_mmap_addr (cap_mmap_addr): a fixed target below mmap_min_addr */
	if ((flags & PTSIM_MREMAP_FIXED) && new_addr < DEFAULT_MMAP_MIN_ADDR)
		return -EPERM;
	if (move && !(flags & PTSIM_MREMAP_MAYMOVE))
		return -ENOMEM;
	if (move && !(flags & PTSIM_MREMAP_FIXED)) {
		err = get_unmapped_area(mm, new_len, &new_addr);
		if (err)
			return err;
	}
	/* everything that can fail comes first: VMA slots, the tables the move may take */
	if (vma_reserve(mm, 6))
		return -ENOMEM;
	op_begin(m);
	syscall_enter(m);
	mmap_write_lock(mm);	/* mmap_write_lock_killable */
	if (move && !(flags & PTSIM_MREMAP_FIXED))
		vm_unmapped_area(m);	/* get_unmapped_area of the new range */
	err = spare_tables_alloc(mm, &spare, old + MIN(old_len, new_len), old + old_len);
	if (!err && move && (flags & PTSIM_MREMAP_FIXED) && !range_is_free(mm, new_addr, new_addr + new_len)) {
		struct spare_tables target;

		err = spare_tables_alloc(mm, &target, new_addr, new_addr + new_len);
		if (!err) {
			for (unsigned int i = 0; i < target.n; i++)
				spare.t[spare.n++] = target.t[i];
		}
	}
	if (!err && move)
		err = dontunmap_spare_tables(mm, old, old_len, flags, &spare);
	if (!err && move)
		err = reserve_move_tables(mm, old, MIN(old_len, new_len));
	if (err) {
		pt_unreserve(m);
		spare_tables_free(mm, &spare);
		op_end(m, err);
		return err;
	}
	if (new_len < old_len) {
		/* shrinking: the tail goes first, as munmap */
		do_vmi_munmap(mm, old + new_len, old + old_len, &spare);
		old_len = new_len;
	}
	if (move) {
		if (flags & PTSIM_MREMAP_FIXED)
			do_vmi_munmap(mm, new_addr, new_addr + new_len, &spare);
		move_vma(mm, old, old_len, new_addr, new_len, flags & PTSIM_MREMAP_DONTUNMAP, &spare);
		dest = new_addr;
	} else if (new_len > old_len) {
		/*
		 * vma_expand: the VMA grows in place; nothing is mapped yet. The
		 * commit charge of the growth (VM_ACCOUNT), the VMA write-locked
		 * and its new range stored, vm_stat_account of the growth.
		 */
		size_t idx = vma_index(mm, find_vma(mm, old));

		if (accountable_mapping(&mm->vmas[idx]))
			security_vm_enough_memory_mm(m);
		vma_start_write(mm, &mm->vmas[idx]);
		vma_iter_store(mm, &mm->vmas[idx], true);
		vm_stat_account(mm);
		mm->vmas[idx].end = old + new_len;
		mm->gapless_end = 0;
		vma_merge_around(mm, idx);
	}
	pt_unreserve(m);
	spare_tables_free(mm, &spare);
	op_end(m, 0);
	if (out)
		*out = dest;
	return 0;
}
