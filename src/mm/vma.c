// SPDX-License-Identifier: MIT
/* VMA split and merge (models vma_modify_flags / split_vma / vma_merge in mm/vma.c). */
#include "internal.h"
#include "primitives.h"

#include <stdlib.h>
#include <string.h>

int vma_reserve(struct ptsim_mm *mm, size_t extra)
{
	size_t need = mm->nr_vmas + extra;

	if (need > mm->cap_vmas) {
		size_t cap = MAX(need, mm->cap_vmas * 2);
		struct vma *n = realloc(mm->vmas, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		mm->vmas = n;
		mm->cap_vmas = cap;
	}
	return 0;
}

size_t vma_index(const struct ptsim_mm *mm, const struct vma *v)
{
	return (size_t)(v - mm->vmas);
}

/* split_vma: [start, addr) stays at idx, [addr, end) becomes idx + 1. Capacity must be reserved. */
void vma_split(struct ptsim_mm *mm, size_t idx, uint64_t addr)
{
	struct vma *v = &mm->vmas[idx];
	struct vma tail = *v;

	tail.start = addr;
	tail.pgoff = v->pgoff + ((addr - v->start) >> mm->m->geo.page_shift);
	v->end = addr;
	memmove(&mm->vmas[idx + 2], &mm->vmas[idx + 1], (mm->nr_vmas - idx - 1) * sizeof(*v));
	mm->vmas[idx + 1] = tail;
	mm->nr_vmas++;
	vma_get_shmem(mm->m, &tail);	/* __split_vma: get_file for the new piece */
	kernel_call(mm->m, SPLIT_VMA);
}

void vma_remove(struct ptsim_mm *mm, size_t idx)
{
	mm->gapless_end = 0;	/* a gap may open anywhere */
	vma_put_shmem(mm->m, &mm->vmas[idx]);	/* remove_vma: fput */
	memmove(&mm->vmas[idx], &mm->vmas[idx + 1], (mm->nr_vmas - idx - 1) * sizeof(*mm->vmas));
	mm->nr_vmas--;
}

/* is_mergeable_vma (the same shmem object) + anon_vma compatibility + contiguous pgoff. */
static bool can_merge(const struct ptsim_mm *mm, const struct vma *a, const struct vma *b)
{
	return a->end == b->start && a->flags == b->flags && a->page_prot == b->page_prot &&
	       a->uffd == b->uffd && a->shmem == b->shmem &&
	       (!a->anon_vma || !b->anon_vma || a->anon_vma == b->anon_vma) &&
	       a->pgoff + ((a->end - a->start) >> mm->m->geo.page_shift) == b->pgoff;
}

static void merge_next(struct ptsim_mm *mm, size_t idx)
{
	struct vma *a = &mm->vmas[idx], *b = &mm->vmas[idx + 1];

	a->end = b->end;
	if (!a->anon_vma)
		a->anon_vma = b->anon_vma;
	vma_put_shmem(mm->m, b);	/* the merged-away VMA's fput */
	memmove(b, b + 1, (mm->nr_vmas - idx - 2) * sizeof(*b));
	mm->nr_vmas--;
	kernel_call(mm->m, VMA_MERGE);
}

/* Merge idx with its neighbours where possible; returns the index of the merged VMA. */
size_t vma_merge_around(struct ptsim_mm *mm, size_t idx)
{
	if (idx + 1 < mm->nr_vmas && can_merge(mm, &mm->vmas[idx], &mm->vmas[idx + 1]))
		merge_next(mm, idx);
	if (idx > 0 && can_merge(mm, &mm->vmas[idx - 1], &mm->vmas[idx])) {
		merge_next(mm, idx - 1);
		idx--;
	}
	return idx;
}

/* Would modify change v? (what vma_modify_flags compares before it splits anything) */
static bool vma_would_change(const struct vma *v, void (*modify)(struct vma *v, const void *arg),
			     const void *arg)
{
	struct vma want = *v;

	modify(&want, arg);
	return want.flags != v->flags || want.uffd != v->uffd || want.page_prot != v->page_prot;
}

/*
 * vma_modify: for each VMA that [start, end) covers and that modify would
 * change, split it at the range's edges, where a PMD THP the edge cuts is
 * split first (vma_adjust_trans_huge), apply modify and merge it with its
 * neighbours. VMAs modify leaves alone are not split. The range must be
 * mapped. Fails with -ENOMEM before anything changes.
 */
int vma_modify(struct ptsim_mm *mm, uint64_t start, uint64_t end,
	       void (*modify)(struct vma *v, const void *arg), const void *arg)
{
	struct spare_tables spare;
	int err;

	if (vma_reserve(mm, 2))
		return -ENOMEM;
	err = spare_tables_alloc(mm, &spare, start, end);
	if (err)
		return err;
	for (uint64_t a = start; a < end;) {
		size_t idx = vma_index(mm, find_vma(mm, a));

		if (!vma_would_change(&mm->vmas[idx], modify, arg)) {
			a = mm->vmas[idx].end;
			continue;
		}
		if (mm->vmas[idx].start < a) {
			split_huge_pmd_address(mm, a, &spare);
			vma_split(mm, idx++, a);
		}
		if (end < mm->vmas[idx].end) {
			split_huge_pmd_address(mm, end, &spare);
			vma_split(mm, idx, end);
		}
		modify(&mm->vmas[idx], arg);
		idx = vma_merge_around(mm, idx);
		a = mm->vmas[idx].end;
	}
	spare_tables_free(mm, &spare);
	return 0;
}
