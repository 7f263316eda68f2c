// SPDX-License-Identifier: MIT
/*
 * VMA split and merge (models vma_modify_flags / __split_vma /
 * vma_merge_existing_range / commit_merge / vma_complete in v6.12
 * mm/vma.c), counting their work: the VMA structures allocated and freed
 * (vm_area_dup, vm_area_free), the maple-tree store, the VMA write locks,
 * the anon_vma chains cloned and unlinked.
 */
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
		vmas_charge(mm, cap);
		mm->vmas = n;
	}
	return 0;
}

size_t vma_index(const struct ptsim_mm *mm, const struct vma *v)
{
	return (size_t)(v - mm->vmas);
}

/*
 * __split_vma: [start, addr) stays at idx, [addr, end) becomes idx + 1.
 * Capacity must be reserved. The new piece is a vm_area_dup of the VMA with
 * a clone of its anon_vma chain; both are write-locked, the anon_vma (if
 * any) is locked around the change (vma_prepare, vma_complete), and the
 * new piece is stored in the tree, which moves a boundary.
 */
void vma_split(struct ptsim_mm *mm, size_t idx, uint64_t addr)
{
	struct vma *v = &mm->vmas[idx];
	struct vma tail = *v;

	kernel_call(mm->m, SPLIT_VMA);
	vm_area_dup(mm->m, v, &tail);
	anon_vma_clone(mm->m, &tail, v);
	vma_start_write(mm, v);
	vma_start_write(mm, &tail);
	if (v->anon_vma)
		anon_vma_lock_write(mm->m, v->anon_vma);
	vma_iter_store(mm, v, true);
	tail.start = addr;
	tail.pgoff = v->pgoff + ((addr - v->start) >> mm->m->geo.page_shift);
	v->end = addr;
	memmove(&mm->vmas[idx + 2], &mm->vmas[idx + 1], (mm->nr_vmas - idx - 1) * sizeof(*v));
	mm->vmas[idx + 1] = tail;
	mm->nr_vmas++;
	vma_get_shmem(mm->m, &tail);	/* __split_vma: get_file for the new piece */
}

void vma_remove(struct ptsim_mm *mm, size_t idx)
{
	mm->gapless_end = 0;	/* a gap may open anywhere */
	vma_put_shmem(mm->m, &mm->vmas[idx]);	/* remove_vma: fput */
	memmove(&mm->vmas[idx], &mm->vmas[idx + 1], (mm->nr_vmas - idx - 1) * sizeof(*mm->vmas));
	mm->nr_vmas--;
}

/*
 * is_mergeable_vma (the same file: the same open file, or the same shmem
 * object) + anon_vma compatibility + contiguous pgoff.
 */
static bool can_merge(const struct ptsim_mm *mm, const struct vma *a, const struct vma *b)
{
	return a->end == b->start && a->flags == b->flags && a->page_prot == b->page_prot &&
	       a->uffd == b->uffd && a->uffd_wp == b->uffd_wp && a->uffd_missing == b->uffd_missing &&
	       a->uffd_features == b->uffd_features && a->shmem == b->shmem && a->fd == b->fd &&
	       (!a->anon_vma || !b->anon_vma || a->anon_vma == b->anon_vma) &&
	       a->pgoff + ((a->end - a->start) >> mm->m->geo.page_shift) == b->pgoff;
}

/*
 * Both have an anon_vma and they differ: the two cannot both join the VMA
 * between them (is_mergeable_anon_vma of prev and next).
 */
static bool anon_vmas_differ(const struct vma *a, const struct vma *b)
{
	return a->anon_vma && b->anon_vma && a->anon_vma != b->anon_vma;
}

/* The VMA after idx joins it (the array's side of a merge; the counting is commit_merge's). */
static void merge_next(struct ptsim_mm *mm, size_t idx)
{
	struct vma *a = &mm->vmas[idx], *b = &mm->vmas[idx + 1];

	a->end = b->end;
	if (!a->anon_vma) {
		a->anon_vma = b->anon_vma;
		a->avc = b->avc;
	}
	vma_put_shmem(mm->m, b);	/* the merged-away VMA's fput */
	memmove(b, b + 1, (mm->nr_vmas - idx - 2) * sizeof(*b));
	mm->nr_vmas--;
}

/*
 * The work of one merge of the VMAs [first, first + n] into the one at
 * first (vma_merge_existing_range -> commit_merge -> vma_complete, v6.12):
 * every VMA involved write-locked; the kept one takes a removed one's
 * anon_vma when it has none (dup_anon_vma: anon_vma_clone); the anon_vma
 * locked around the change; one store of the kept VMA's new range; each
 * removed VMA's chain unlinked (anon_vma_merge) and the VMA freed.
 */
static void commit_merge(struct ptsim_mm *mm, size_t first, size_t n)
{
	struct ptsim_machine *m = mm->m;
	struct vma *kept = &mm->vmas[first];
	uint64_t anon = kept->anon_vma;

	kernel_call(m, VMA_MERGE);
	for (size_t i = 0; i <= n; i++)
		vma_start_write(mm, &mm->vmas[first + i]);
	for (size_t i = 1; i <= n && !kept->anon_vma; i++) {
		if (mm->vmas[first + i].anon_vma) {
			anon_vma_clone(m, kept, &mm->vmas[first + i]);
			break;
		}
	}
	for (size_t i = 1; i <= n && !anon; i++)
		anon = mm->vmas[first + i].anon_vma;
	if (anon)
		anon_vma_lock_write(m, anon);
	vma_iter_store(mm, kept, true);
	for (size_t i = 1; i <= n; i++) {
		unlink_anon_vmas(m, &mm->vmas[first + i]);
		vm_area_free(m, &mm->vmas[first + i]);
	}
}

/*
 * Merge idx with its neighbours where possible, in one merge as
 * vma_merge_existing_range does (prev, the VMA and next become prev);
 * returns the index of the merged VMA.
 */
size_t vma_merge_around(struct ptsim_mm *mm, size_t idx)
{
	bool next = idx + 1 < mm->nr_vmas && can_merge(mm, &mm->vmas[idx], &mm->vmas[idx + 1]);
	bool prev = idx > 0 && can_merge(mm, &mm->vmas[idx - 1], &mm->vmas[idx]);

	/* prev and next must also be compatible with each other: else only next joins */
	if (next && prev && anon_vmas_differ(&mm->vmas[idx - 1], &mm->vmas[idx + 1]))
		prev = false;
	if (!next && !prev)
		return idx;
	commit_merge(mm, prev ? idx - 1 : idx, (size_t)prev + (size_t)next);
	if (next)
		merge_next(mm, idx);
	if (prev) {
		merge_next(mm, idx - 1);
		idx--;
	}
	return idx;
}

/*
 * vma_merge_new_range (v6.12 mm/vma.c, from __mmap_region; vma_merge before
 * v6.12 did the same work): the new mapping at *idx, in the array but with
 * no vm_area_struct yet, is taken by prev and/or next instead, which
 * vma_expand stretches over it: the VMAs kept and removed write-locked,
 * prev given next's anon_vma when it has none (dup_anon_vma), the anon_vma
 * locked around the change, one store of the stretched range; a next that
 * prev absorbs is unlinked from its anon_vma and freed. True, with *idx the
 * VMA that now covers the range, when it merged; false (nothing counted)
 * when the caller must allocate the new VMA.
 */
bool vma_merge_new_range(struct ptsim_mm *mm, size_t *idx)
{
	struct ptsim_machine *m = mm->m;
	size_t i = *idx;
	bool next = i + 1 < mm->nr_vmas && can_merge(mm, &mm->vmas[i], &mm->vmas[i + 1]);
	bool prev = i > 0 && can_merge(mm, &mm->vmas[i - 1], &mm->vmas[i]);
	struct vma *kept;
	uint64_t anon;

	/* prev and next must also be compatible with each other: else only prev takes it */
	if (next && prev && anon_vmas_differ(&mm->vmas[i - 1], &mm->vmas[i + 1]))
		next = false;
	if (!next && !prev)
		return false;
	kept = prev ? &mm->vmas[i - 1] : &mm->vmas[i + 1];
	kernel_call(m, VMA_MERGE_NEW);
	vma_start_write(mm, kept);
	if (prev && next) {
		vma_start_write(mm, &mm->vmas[i + 1]);
		if (!kept->anon_vma && mm->vmas[i + 1].anon_vma) {
			anon_vma_clone(m, kept, &mm->vmas[i + 1]);
			kept->anon_vma = mm->vmas[i + 1].anon_vma;	/* dup_anon_vma hands it over */
		}
	}
	anon = kept->anon_vma;
	if (anon)
		anon_vma_lock_write(m, anon);
	/* the new range's own slab id goes back unused: it never had a vm_area_struct */
	kobj_slab_free(&m->vma_slab, mm->vmas[i].obj);
	mm->vmas[i].obj = 0;
	if (prev) {
		kept->end = next ? mm->vmas[i + 1].end : mm->vmas[i].end;
	} else {
		kept->start = mm->vmas[i].start;
		kept->pgoff = mm->vmas[i].pgoff;
	}
	vma_iter_store(mm, kept, true);
	if (prev && next) {
		unlink_anon_vmas(m, &mm->vmas[i + 1]);
		vm_area_free(m, &mm->vmas[i + 1]);
		vma_remove(mm, i + 1);
	}
	vma_remove(mm, i);
	*idx = prev ? i - 1 : i;
	return true;
}

/* Would modify change v? (what vma_modify_flags compares before it splits anything) */
static bool vma_would_change(const struct vma *v, void (*modify)(struct vma *v, const void *arg),
			     const void *arg)
{
	struct vma want = *v;

	modify(&want, arg);
	return want.flags != v->flags || want.uffd != v->uffd || want.uffd_wp != v->uffd_wp ||
	       want.uffd_missing != v->uffd_missing ||
	       want.uffd_features != v->uffd_features || want.page_prot != v->page_prot;
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
		vma_start_write(mm, &mm->vmas[idx]);	/* before vm_flags_reset */
		modify(&mm->vmas[idx], arg);
		idx = vma_merge_around(mm, idx);
		a = mm->vmas[idx].end;
	}
	spare_tables_free(mm, &spare);
	return 0;
}
