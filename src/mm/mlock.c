// SPDX-License-Identifier: MIT
/*
 * mlock and munlock (models mm/mlock.c): the VMAs whose VM_LOCKED changes
 * are split and merged (mlock_fixup), then mlock_pte_range walks them,
 * reading each entry twice (once in the walk, once in folio_mlock_step) and
 * locking or unlocking each folio once. mlock then faults in and touches
 * every page (__mm_populate, src/mm/gup.c). doc/mm-lifecycle.md has the
 * counts.
 */
#include "asm/pgtable.h"
#include "pte_batch.h"
#include "primitives.h"

#include <stdlib.h>

struct mlock_walk {
	struct ptsim_mm *mm;
	const struct vma *vma;
	uint64_t start, end;	/* the range the call covers in this VMA */
};

/* mlock_folio / munlock_folio: the folio's mlocked state, through the per-CPU batch. */
static void mlock_folio(struct ptsim_mm *mm, struct folio *f, bool lock)
{
	kernel_call(mm->m, MLOCK_FOLIO);
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

	if (!folio_test_large(mm->m, f))
		return 1;
	nr = folio_pte_batch(mm, f, ptep, ptent,
			     (unsigned int)((end - addr) >> mm->m->geo.page_shift));
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

	pte_offset_map_lock(mm->m);
	while (addr < end) {
		pte_t *ptep = &t->desc[pt_index(g, PTE_LEVEL, addr)];
		pte_t ptent;
		struct page_ref ref;
		unsigned int step = 1;

		pte_loop_step(mm->m);
		ptent = ptep_get(mm, ptep);
		if (pte_present(ptent)) {
			ref = vm_normal_page(mm, ptent);	/* vm_normal_folio */
			if (ref.folio) {
				step = folio_mlock_step(mm, ref.folio, ptep, addr, end);
				if (allow_mlock_munlock(w, ref.folio, step)) {
					/* the loop prices' paths: an order-0 folio's */
					if (!ref.folio->order)
						count_loop_path(mm->m, lock ?
								PTSIM_LOOP_MLOCK_PTE_RANGE_MLOCK :
								PTSIM_LOOP_MLOCK_PTE_RANGE_MUNLOCK);
					mlock_folio(mm, ref.folio, lock);
				}
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

	lru_add_drain(mm->m);	/* before the walk, and (counted here too) after it */
	lru_add_drain(mm->m);
	for (uint64_t addr = w->start; (addr = pt_next_pmd_used(mm, addr, w->end)) < w->end;) {
		uint64_t next = MIN(ALIGN_DOWN64(addr, g->pmd_size) + g->pmd_size, w->end);
		int err;
		struct pt_table *t = pt_walk_table(mm, addr, PMD_LEVEL, false, &err);
		unsigned int idx = pt_index(g, PMD_LEVEL, addr);

		if (t && pmd_is_leaf(t, idx)) {
			struct page_ref ref = vm_normal_page(mm, read_desc(mm, PMD_LEVEL, &t->desc[idx]));

			pmd_lock(mm->m);	/* mlock_pte_range on a PMD leaf */
			if (ref.folio)
				mlock_folio(mm, ref.folio, w->vma->flags & VM_LOCKED);
			cond_resched(mm->m, 1);	/* mlock_pte_range's end (v6.12) */
		} else if (t && t->next[idx]) {
			mlock_pte_range(w, t->next[idx], addr, next);
			cond_resched(mm->m, 1);
		}
		addr = next;
	}
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
	unsigned int flags;	/* the VM_LOCKED_MASK bits every VMA gets */
};

/* mlock_fixup's newflags: the VMA's flags with its VM_LOCKED_MASK bits replaced. */
static void set_locked(struct vma *v, const void *arg)
{
	v->flags = (v->flags & ~VM_LOCKED_MASK) | ((const struct lock_flags *)arg)->flags;
}

/*
 * apply_vma_lock_flags over [start, end) (the caller checked it has no
 * hole), or over every VMA for mlockall (apply_mlockall_flags): mlock_fixup
 * splits and merges the VMAs whose lock flags change, and walks the pages
 * of those whose VM_LOCKED changes (mlock_vma_pages_range); a VMA that
 * stays VM_LOCKED and only changes VM_LOCKONFAULT is not walked ("mlocking
 * twice would be wrong"). -ENOMEM (a split failed) before anything changed,
 * unless ignore_errors (mlockall), which leaves a VMA whose split failed as
 * it was and goes on.
 */
static int apply_lock_flags(struct ptsim_mm *mm, uint64_t start, uint64_t end, unsigned int flags,
			    bool ignore_errors)
{
	struct lock_flags f = { flags };
	bool lock = flags & VM_LOCKED;
	uint64_t *ranges = NULL;
	size_t nr = 0;
	int err;

	/* the parts whose VM_LOCKED changes (mlock_fixup walks only those) */
	ranges = malloc(2 * (mm->nr_vmas + 1) * sizeof(*ranges));
	if (!ranges)
		return -ENOMEM;
	for (size_t i = 0; i < mm->nr_vmas && mm->vmas[i].start < end; i++) {
		const struct vma *v = &mm->vmas[i];

		if (v->end <= start || !(v->flags & VM_LOCKED) != lock)
			continue;
		ranges[2 * nr] = MAX(start, v->start);
		ranges[2 * nr++ + 1] = MIN(end, v->end);
	}
	err = 0;
	for (uint64_t a = start; a < end && !err;) {
		/* vma_modify over each run of VMAs without a hole between them */
		size_t i = 0;
		uint64_t run_end;

		while (i < mm->nr_vmas && mm->vmas[i].end <= a)
			i++;
		if (i == mm->nr_vmas || mm->vmas[i].start >= end)
			break;
		a = MAX(a, mm->vmas[i].start);
		run_end = MIN(end, mm->vmas[i].end);
		while (++i < mm->nr_vmas && mm->vmas[i].start == run_end && run_end < end)
			run_end = MIN(end, mm->vmas[i].end);
		err = vma_modify(mm, a, run_end, set_locked, &f);
		if (ignore_errors)
			err = 0;	/* apply_mlockall_flags: "Ignore errors" */
		a = run_end;
	}
	if (err) {
		free(ranges);
		return err;
	}
	for (size_t i = 0; i < nr; i++) {
		struct mlock_walk w = { .mm = mm, .start = ranges[2 * i], .end = ranges[2 * i + 1] };

		w.vma = find_vma(mm, w.start);
		if (!(w.vma->flags & VM_LOCKED) == !lock)	/* its mlock_fixup did not fail */
			mlock_vma_pages_range(&w);
	}
	free(ranges);
	return 0;
}

/*
 * do_mlock and the munlock syscall: apply_vma_lock_flags (mlock_fixup's
 * split, merge and page walk on what changed), then mlock's __mm_populate
 * (which leaves VM_LOCKONFAULT VMAs to their faults). flags is VM_LOCKED,
 * VM_LOCKED | VM_LOCKONFAULT (mlock2 MLOCK_ONFAULT) or 0 (munlock).
 */
static int do_mlock(struct ptsim_mm *mm, uint64_t start, uint64_t len, unsigned int flags)
{
	const struct ptsim_geometry *g;
	bool lock = flags & VM_LOCKED, lock_partial = false;
	uint64_t end, covered;
	int err;

	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	g = &mm->m->geo;
	/* the range is widened to pages, as the kernel does: len 0 at an aligned start is empty */
	VALIDATE(start + len >= start && start + len <= (UINT64_C(1) << g->va_bits));
	end = ALIGN_UP64(start + len, g->page_size);
	start = ALIGN_DOWN64(start, g->page_size);
	/*
	 * A hole in the range is -ENOMEM. apply_vma_lock_flags (v6.12) locks or
	 * unlocks the VMAs up to the first hole (mlock_fixup), then returns
	 * -ENOMEM, and do_mlock does not populate; no VMA at start is -ENOMEM
	 * before anything. The model does that with kernel_errors on; by
	 * default it changes nothing.
	 */
	covered = covered_end(mm, start, end);
	if (start < end && (covered == start || (covered < end && !mm->kernel_errors)))
		return -ENOMEM;
	if (covered < end) {
		end = covered;
		lock_partial = true;
	}
	/*
	 * A populate whose tables alone pass the host-memory limit fails before
	 * it starts; MLOCK_ONFAULT populates nothing (its pages lock as they fault).
	 */
	if (lock && !(flags & VM_LOCKONFAULT) && !lock_partial &&
	    !mm_populate_fits_host(mm, start, end, false))
		return -ENOMEM;
	op_begin(mm->m);
	syscall_enter(mm->m);
	mmap_write_lock(mm);	/* do_mlock / munlock: mmap_write_lock_killable */
	err = start < end ? apply_lock_flags(mm, start, end, flags, false) : 0;
	if (err) {
		/* vma_modify failed before anything changed: so do the totals */
		op_end(mm->m, err);
		return err;
	}
	if (lock_partial) {
		/* apply_vma_lock_flags stopped at the hole: -ENOMEM, no populate */
		op_keep_partial(mm->m);
		op_end(mm->m, -ENOMEM);
		return -ENOMEM;
	}
	if (lock)
		err = __mm_populate(mm, start, end, false);
	/*
	 * A failed populate keeps the locked VMAs and the pages it faulted in, as
	 * the kernel does: that work is counted like a success's.
	 */
	op_end(mm->m, 0);
	return err ? mlock_posix_error_return(err) : 0;
}

int ptsim_mlock(struct ptsim_mm *mm, uint64_t start, uint64_t len)
{
	return do_mlock(mm, start, len, VM_LOCKED);
}

int ptsim_mlock2(struct ptsim_mm *mm, uint64_t start, uint64_t len, unsigned int flags)
{
	/* SYSCALL_DEFINE3(mlock2): MLOCK_ONFAULT is the only flag */
	VALIDATE(!(flags & ~PTSIM_MLOCK_ONFAULT));
	return do_mlock(mm, start, len,
			VM_LOCKED | ((flags & PTSIM_MLOCK_ONFAULT) ? VM_LOCKONFAULT : 0));
}

int ptsim_munlock(struct ptsim_mm *mm, uint64_t start, uint64_t len)
{
	return do_mlock(mm, start, len, 0);
}

/*
 * apply_mlockall_flags (v6.12 mm/mlock.c), for mlockall (flags its MCL_*)
 * and munlockall (0): mm->def_flags gets VM_LOCKED (and VM_LOCKONFAULT)
 * for MCL_FUTURE, loses both otherwise; with MCL_CURRENT every VMA gets
 * them, else (MCL_FUTURE alone returns early) or for munlockall every VMA
 * loses them, through mlock_fixup. Then mlockall(MCL_CURRENT) populates the
 * whole address space ignoring errors (mm_populate).
 */
static int do_mlockall(struct ptsim_mm *mm, unsigned int flags)
{
	unsigned int to_add = 0;
	int err = 0;

	op_begin(mm->m);
	syscall_enter(mm->m);
	mmap_write_lock(mm);	/* mmap_write_lock_killable */
	if ((flags & PTSIM_MCL_CURRENT) || !(flags & PTSIM_MCL_FUTURE)) {
		if (flags & PTSIM_MCL_CURRENT)
			to_add = VM_LOCKED | ((flags & PTSIM_MCL_ONFAULT) ? VM_LOCKONFAULT : 0);
		if (mm->nr_vmas)
			err = apply_lock_flags(mm, 0, mm->vmas[mm->nr_vmas - 1].end, to_add, true);
		cond_resched(mm->m, mm->nr_vmas);	/* one per VMA of the loop */
	}
	if (err) {
		/* no memory for the walk's bookkeeping: nothing changed */
		op_end(mm->m, err);
		return err;
	}
	mm->def_flags &= ~VM_LOCKED_MASK;
	if (flags & PTSIM_MCL_FUTURE)
		mm->def_flags |= VM_LOCKED | ((flags & PTSIM_MCL_ONFAULT) ? VM_LOCKONFAULT : 0);
	if (flags & PTSIM_MCL_CURRENT)
		__mm_populate(mm, 0, UINT64_C(1) << mm->m->geo.va_bits, true);
	op_end(mm->m, 0);
	return 0;
}

int ptsim_mlockall(struct ptsim_mm *mm, unsigned int flags)
{
	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	/* SYSCALL_DEFINE1(mlockall): no flags, unknown ones or MCL_ONFAULT alone are -EINVAL */
	VALIDATE(flags && !(flags & ~(PTSIM_MCL_CURRENT | PTSIM_MCL_FUTURE | PTSIM_MCL_ONFAULT)) &&
		 flags != PTSIM_MCL_ONFAULT);
	if ((flags & PTSIM_MCL_CURRENT) && !(flags & PTSIM_MCL_ONFAULT) && mm->nr_vmas &&
	    !mm_populate_fits_host(mm, 0, mm->vmas[mm->nr_vmas - 1].end, true))
		return -ENOMEM;
	return do_mlockall(mm, flags);
}

int ptsim_munlockall(struct ptsim_mm *mm)
{
	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	return do_mlockall(mm, 0);
}
