// SPDX-License-Identifier: MIT
/*
 * mlock and munlock (models mm/mlock.c): the VMAs whose VM_LOCKED changes
 * are split and merged (mlock_fixup), then mlock_pte_range walks them,
 * reading each entry twice (once in the walk, once in folio_mlock_step) and
 * locking or unlocking each folio once. mlock then faults in and touches
 * every page (__mm_populate and get_user_pages, mm/gup.c).
 * doc/mm-lifecycle.md has the counts.
 */
#include "asm/pgtable.h"
#include "pte_batch.h"

#include <stdlib.h>

struct mlock_walk {
	struct ptsim_mm *mm;
	const struct vma *vma;
	uint64_t start, end;	/* the range the call covers in this VMA */
};

/* mlock_folio / munlock_folio: the folio's mlocked state, through the per-CPU batch. */
static void mlock_folio(struct ptsim_mm *mm, struct folio *f, bool lock)
{
	count(mm->m, PTSIM_EV_MLOCK_FOLIO, 1);
	if (lock)
		f->flags |= FOLIO_MLOCKED;
	else
		f->flags &= ~FOLIO_MLOCKED;
}

/* folio_mlock_step: the entry is read again; a large folio's mapped run is one step. */
static unsigned int folio_mlock_step(struct ptsim_mm *mm, const struct folio *f, pte_t *ptep,
				     uint64_t addr, uint64_t end)
{
	pte_t ptent = ptep_get(mm, ptep);
	unsigned int nr;

	count(mm->m, PTSIM_EV_FOLIO_TEST, 1);	/* folio_test_large */
	if (!f->order)
		return 1;
	fn_enter(mm->m, PTSIM_FN_FOLIO_PTE_BATCH);
	count(mm->m, PTSIM_EV_PTE_BATCH, 1);
	nr = folio_pte_batch_flags(mm, f, ptep, &ptent,
				   (unsigned int)((end - addr) >> mm->m->geo.page_shift), 0);
	fn_exit(mm->m);
	return nr;
}

/*
 * allow_mlock_munlock: munlock takes any folio; mlock only a large folio
 * that lies inside the range and is mapped whole there.
 */
static bool allow_mlock_munlock(const struct mlock_walk *w, const struct folio *f,
				unsigned int step)
{
	const struct ptsim_geometry *g = &w->mm->m->geo;
	uint64_t fstart;

	if (!(w->vma->flags & VM_LOCKED) || !f->order)
		return true;
	if (f->index < w->vma->pgoff)
		return false;
	fstart = w->vma->start + ((f->index - w->vma->pgoff) << g->page_shift);
	return fstart >= w->start && fstart + (folio_nr_pages(f) << g->page_shift) <= w->end &&
	       step == folio_nr_pages(f);
}

/* mlock_pte_range over one PTE table's part of the range. */
static void mlock_pte_range(struct mlock_walk *w, struct pt_table *t, uint64_t addr, uint64_t end)
{
	struct ptsim_mm *mm = w->mm;
	const struct ptsim_geometry *g = &mm->m->geo;
	bool lock = w->vma->flags & VM_LOCKED;

	count(mm->m, PTSIM_EV_PTE_MAP, 1);
	count(mm->m, PTSIM_EV_PTL_LOCK, 1);
	while (addr < end) {
		pte_t *ptep = &t->desc[pt_index(g, 3, addr)];
		pte_t ptent;
		struct page_ref ref;
		unsigned int step = 1;

		count(mm->m, PTSIM_EV_PTE_LOOP, 1);
		ptent = ptep_get(mm, ptep);
		if (pte_present(ptent)) {
			ref = vm_normal_page(mm, ptent);	/* vm_normal_folio */
			if (ref.folio) {
				step = folio_mlock_step(mm, ref.folio, ptep, addr, end);
				if (allow_mlock_munlock(w, ref.folio, step))
					mlock_folio(mm, ref.folio, lock);
			}
		}
		addr += (uint64_t)step << g->page_shift;
	}
}

/* mlock_vma_pages_range: walk_page_range with mlock_pte_range (a PMD THP is one folio). */
static void mlock_vma_pages_range(struct mlock_walk *w)
{
	struct ptsim_mm *mm = w->mm;
	const struct ptsim_geometry *g = &mm->m->geo;

	count(mm->m, PTSIM_EV_COND_RESCHED, 2);	/* lru_add_drain before and after */
	for (uint64_t addr = w->start; (addr = pt_next_pmd_used(mm, addr, w->end)) < w->end;) {
		uint64_t next = MIN(ALIGN_DOWN64(addr, g->pmd_size) + g->pmd_size, w->end);
		int err;
		struct pt_table *t = pt_walk_table(mm, addr, 2, false, &err);
		unsigned int idx = pt_index(g, 2, addr);

		if (t && pmd_is_leaf(t, idx)) {
			struct page_ref ref = vm_normal_page(mm, read_desc(mm, 2, &t->desc[idx]));

			count(mm->m, PTSIM_EV_PTL_LOCK, 1);
			if (ref.folio)
				mlock_folio(mm, ref.folio, w->vma->flags & VM_LOCKED);
		} else if (t && t->next[idx]) {
			mlock_pte_range(w, t->next[idx], addr, next);
		}
		addr = next;
	}
}

/*
 * __get_user_pages over [start, end) of v, one page at a time: a present
 * page (writable where the populate writes) is looked up (follow_page_pte)
 * and its reference dropped again; a missing or write-protected one is
 * faulted (faultin_page) and followed again. Returns the pages done, or the
 * fault's error when it is the first page that failed.
 */
static int64_t __get_user_pages(struct ptsim_mm *mm, struct vma *v, uint64_t start, uint64_t end,
				bool write)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	/*
	 * The simulator's own walk, not the kernel's (uncounted): the PTE table
	 * of addr's PMD slot is found once per slot and again after a fault that
	 * may have made it, so a huge populate costs the host little per page.
	 */
	struct pt_table *pte_table = NULL;
	uint64_t slot = 0;
	bool stale = true, retried = false;
	uint64_t addr = start;

	while (addr < end) {
		struct pt_table *t;
		unsigned int idx;
		pte_t pte;
		int err;

		if (stale || ALIGN_DOWN64(addr, g->pmd_size) != slot) {
			slot = ALIGN_DOWN64(addr, g->pmd_size);
			pte_table = pt_find_table(mm, addr, 3);
			stale = false;
		}
		if (pte_table) {
			idx = pt_index(g, 3, addr);
			t = pte_table->desc[idx] ? pte_table : NULL;
		} else {
			t = pt_lookup_leaf(mm, addr, &idx);
		}
		count(mm->m, PTSIM_EV_PTL_LOCK, 1);
		pte = t && t->level == 3 ? ptep_get(mm, &t->desc[idx]) : t ? read_desc(mm, 2, &t->desc[idx]) : 0;
		if ((pte_present(pte) && (!write || pte_write(pte))) || retried) {
			count(mm->m, PTSIM_EV_FOLIO_LOOKUP, 1);
			count(mm->m, PTSIM_EV_FOLIO_GET, 1);
			count(mm->m, PTSIM_EV_FOLIO_PUT, 1);
			retried = false;
			addr += g->page_size;
			continue;
		}
		err = faultin_page(mm, v, addr, write);
		if (err)
			return addr > start ? (int64_t)((addr - start) >> g->page_shift) : err;
		retried = true;	/* follow the page again, as GUP retries after a fault */
		stale = !pte_table;
	}
	return (int64_t)((end - start) >> g->page_shift);
}

/* populate_vma_page_range writes a private writable VMA (to break COW) and reads the others. */
static bool populate_writes(const struct vma *v)
{
	return (v->flags & (VM_WRITE | VM_SHARED)) == VM_WRITE;
}

/*
 * Whether populate_vma_page_range refuses v with -EFAULT: a PROT_NONE VMA
 * (!vma_is_accessible), or a read of one check_vma_flags refuses (FOLL_FORCE
 * reads a VMA without VM_READ, an exec-only one, only if it is VM_MAYREAD).
 */
static bool populate_refuses(const struct vma *v)
{
	return !(v->flags & (VM_READ | VM_WRITE | VM_EXEC)) ||
	       (!populate_writes(v) && !(v->flags & (VM_READ | VM_MAYREAD)));
}

/* populate_vma_page_range: get_user_pages over the range, FOLL_WRITE or FOLL_FORCE. */
static int64_t populate_vma_page_range(struct ptsim_mm *mm, struct vma *v, uint64_t start,
				       uint64_t end)
{
	if (populate_refuses(v))
		return -EFAULT;
	return __get_user_pages(mm, v, start, end, populate_writes(v));
}

/*
 * __mm_populate with ignore_errors 0, as mlock calls it: VMA by VMA; a
 * short result goes on from the page that failed, which then fails first
 * (its fault is tried twice), and the first error ends the populate.
 */
static int mm_populate(struct ptsim_mm *mm, uint64_t start, uint64_t end)
{
	const struct ptsim_geometry *g = &mm->m->geo;

	for (uint64_t nstart = start, nend; nstart < end; nstart = nend) {
		struct vma *v = find_vma(mm, nstart);
		int64_t ret;

		if (!v)
			break;
		nend = MIN(end, v->end);
		ret = populate_vma_page_range(mm, v, nstart, nend);
		if (ret < 0)
			return (int)ret;
		nend = nstart + ((uint64_t)ret << g->page_shift);
	}
	return 0;
}

/*
 * A lower bound of the host memory mlock's populate needs: a PTE table for
 * every PMD slot without one in the anonymous VMAs it reads (it maps the
 * zero page there), up to the first VMA it stops at. Written VMAs and file
 * pages are bounded by the simulated memory; the zero page is not, and a
 * huge read-only range would otherwise fill tables until the host limit
 * stopped it half way.
 */
static uint64_t populate_host_bytes(const struct ptsim_mm *mm, uint64_t start, uint64_t end)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	uint64_t bytes = 0;

	for (uint64_t a = start; a < end;) {
		const struct vma *v = find_vma(mm, a);
		uint64_t vend = MIN(v->end, end);

		if (populate_refuses(v))
			break;	/* the populate stops here */
		if (populate_writes(v) || v->fd >= 0) {
			a = vend;
			continue;
		}
		for (; a < vend; a = MIN(ALIGN_DOWN64(a, g->pmd_size) + g->pmd_size, vend)) {
			const struct pt_table *t = pt_find_table(mm, a, 2);
			unsigned int i = pt_index(g, 2, a);

			if (!t || (!t->next[i] && !pmd_is_leaf(t, i)))
				bytes += table_host_bytes(g, 3);
		}
	}
	return bytes;
}

/*
 * __mlock_posix_error_return: mlock reports a populate that faulted
 * (-EFAULT) as -ENOMEM and one that ran out of memory as -EAGAIN.
 */
static int mlock_posix_error_return(int err)
{
	return err == -EFAULT ? -ENOMEM : err == -ENOMEM ? -EAGAIN : err;
}

struct lock_flags {
	bool lock;
};

static void set_locked(struct vma *v, const void *arg)
{
	if (((const struct lock_flags *)arg)->lock)
		v->flags |= VM_LOCKED;
	else
		v->flags &= ~VM_LOCKED;
}

/*
 * do_mlock and the munlock syscall: apply_vma_lock_flags (mlock_fixup's
 * split, merge and page walk on what changed), then mlock's __mm_populate.
 */
static int do_mlock(struct ptsim_mm *mm, uint64_t start, uint64_t len, bool lock)
{
	const struct ptsim_geometry *g;
	struct lock_flags f = { lock };
	uint64_t *ranges = NULL, end;
	size_t nr = 0;
	int err;

	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	g = &mm->m->geo;
	/* the range is widened to pages, as the kernel does: len 0 at an aligned start is empty */
	VALIDATE(start + len >= start && start + len <= (UINT64_C(1) << g->va_bits));
	end = ALIGN_UP64(start + len, g->page_size);
	start = ALIGN_DOWN64(start, g->page_size);
	for (uint64_t a = start; a < end;) {
		const struct vma *v = find_vma(mm, a);

		if (!v || v->start > a)
			return -ENOMEM;	/* a hole in the range */
		a = v->end;
	}
	/* a populate whose tables alone pass the host-memory limit fails before it starts */
	if (lock && populate_host_bytes(mm, start, end) > host_room(mm->m))
		return -ENOMEM;
	/* the parts whose VM_LOCKED changes (mlock_fixup does nothing for the others) */
	ranges = malloc(2 * (mm->nr_vmas + 1) * sizeof(*ranges));
	if (!ranges)
		return -ENOMEM;
	for (uint64_t a = start; a < end;) {
		const struct vma *v = find_vma(mm, a);
		uint64_t vend = MIN(v->end, end);

		if (!(v->flags & VM_LOCKED) == lock) {
			ranges[2 * nr] = a;
			ranges[2 * nr++ + 1] = vend;
		}
		a = vend;
	}
	op_begin(mm->m);
	count(mm->m, PTSIM_EV_SYSCALL, 1);
	err = start < end ? vma_modify(mm, start, end, set_locked, &f) : 0;
	if (err) {
		/* vma_modify failed before anything changed: so do the totals */
		free(ranges);
		op_end(mm->m, err);
		return err;
	}
	for (size_t i = 0; i < nr; i++) {
		struct mlock_walk w = { .mm = mm, .start = ranges[2 * i], .end = ranges[2 * i + 1] };

		w.vma = find_vma(mm, w.start);
		mlock_vma_pages_range(&w);
	}
	free(ranges);
	if (lock)
		err = mm_populate(mm, start, end);
	/*
	 * A failed populate keeps the locked VMAs and the pages it faulted in, as
	 * the kernel does: that work is counted like a success's.
	 */
	op_end(mm->m, 0);
	return err ? mlock_posix_error_return(err) : 0;
}

int ptsim_mlock(struct ptsim_mm *mm, uint64_t start, uint64_t len)
{
	return do_mlock(mm, start, len, true);
}

int ptsim_munlock(struct ptsim_mm *mm, uint64_t start, uint64_t len)
{
	return do_mlock(mm, start, len, false);
}
