// SPDX-License-Identifier: MIT
/*
 * madvise (models mm/madvise.c): flag-only advice updates the VMAs
 * (madvise_update_vma), MADV_DONTNEED zaps the range through the teardown
 * path munmap uses, without freeing tables (doc/mm-lifecycle.md).
 */
#include "zap.h"

struct madv_flags {
	unsigned int clear, set;
};

static void madvise_flags(struct vma *v, const void *arg)
{
	const struct madv_flags *f = arg;

	v->flags = (v->flags & ~f->clear) | f->set;
}

/* madvise_vma_behavior's new vm_flags for flag-only advice; false for other advice. */
static bool flag_advice(int advice, struct madv_flags *f)
{
	switch (advice) {
	case PTSIM_MADV_NORMAL: *f = (struct madv_flags){ VM_RAND_READ | VM_SEQ_READ, 0 }; break;
	case PTSIM_MADV_RANDOM: *f = (struct madv_flags){ VM_SEQ_READ, VM_RAND_READ }; break;
	case PTSIM_MADV_SEQUENTIAL: *f = (struct madv_flags){ VM_RAND_READ, VM_SEQ_READ }; break;
	case PTSIM_MADV_HUGEPAGE: *f = (struct madv_flags){ VM_NOHUGEPAGE, VM_HUGEPAGE }; break;
	case PTSIM_MADV_NOHUGEPAGE: *f = (struct madv_flags){ VM_HUGEPAGE, VM_NOHUGEPAGE }; break;
	case PTSIM_MADV_DONTFORK: *f = (struct madv_flags){ 0, VM_DONTCOPY }; break;
	case PTSIM_MADV_DOFORK: *f = (struct madv_flags){ VM_DONTCOPY, 0 }; break;
	case PTSIM_MADV_WIPEONFORK: *f = (struct madv_flags){ 0, VM_WIPEONFORK }; break;
	case PTSIM_MADV_KEEPONFORK: *f = (struct madv_flags){ VM_WIPEONFORK, 0 }; break;
	default: return false;
	}
	return true;
}

/*
 * madvise_dontneed_single_vma for every VMA of [start, end): one gather for
 * the call, a notifier range and the zap (with its flush at the VMA's end)
 * per VMA. A PMD THP the range cuts is split, with the tables set aside in
 * spare; the tables stay.
 */
static void madvise_dontneed(struct ptsim_mm *mm, uint64_t start, uint64_t end,
			     struct spare_tables *spare)
{
	struct mmu_gather tlb;

	tlb_gather_mmu(&tlb, mm);
	for (uint64_t a = start; a < end;) {
		const struct vma *v = find_vma(mm, a);
		uint64_t vend = MIN(v->end, end);

		count(mm->m, PTSIM_EV_MMU_NOTIFIER_RANGE, 1);
		unmap_page_range(&tlb, mm, a, vend, spare);
		a = vend;
	}
	tlb_finish_mmu(&tlb);
}

int ptsim_madvise(struct ptsim_mm *mm, uint64_t start, uint64_t len, int advice)
{
	struct spare_tables spare;
	struct madv_flags f;
	bool flags_only;
	int err;

	VALIDATE(mm && !mm->kernel && len && start + len > start);
	REFUSE_IN_HANDLER(mm->m);
	VALIDATE(IS_ALIGNED64(start | len, mm->m->geo.page_size));
	flags_only = flag_advice(advice, &f);
	if (!flags_only && advice != PTSIM_MADV_DONTNEED)
		return -EINVAL;
	for (uint64_t a = start; a < start + len;) {
		const struct vma *v = find_vma(mm, a);

		if (!v || v->start > a)
			return -ENOMEM;	/* a hole in the range */
		/* WIPEONFORK only on private anonymous memory; DONTNEED not on locked VMAs */
		if ((advice == PTSIM_MADV_WIPEONFORK && (v->fd >= 0 || (v->flags & VM_SHARED))) ||
		    (advice == PTSIM_MADV_DONTNEED && (v->flags & VM_LOCKED)))
			return -EINVAL;
		a = v->end;
	}
	op_begin(mm->m);
	count(mm->m, PTSIM_EV_SYSCALL, 1);
	if (flags_only) {
		err = vma_modify(mm, start, start + len, madvise_flags, &f);	/* madvise_update_vma */
	} else {
		err = spare_tables_alloc(mm, &spare, start, start + len);
		if (!err) {
			madvise_dontneed(mm, start, start + len, &spare);
			spare_tables_free(mm, &spare);
		}
	}
	op_end(mm->m, err);
	return err;
}
