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
	bool lock_partial = false;
	uint64_t *ranges = NULL, end, covered;
	size_t nr = 0;
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
	/* a populate whose tables alone pass the host-memory limit fails before it starts */
	if (lock && !lock_partial && !mm_populate_fits_host(mm, start, end))
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
	syscall_enter(mm->m);
	mmap_write_lock(mm);	/* do_mlock / munlock: mmap_write_lock_killable */
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
	if (lock_partial) {
		op_keep_partial(mm->m);
		op_end(mm->m, -ENOMEM);
		return -ENOMEM;
	}
	if (lock)
		err = __mm_populate(mm, start, end);
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
