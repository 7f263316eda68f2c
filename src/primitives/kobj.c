// SPDX-License-Identifier: MIT
/*
 * The kernel objects' synthetic slab addresses and the lines the primitives
 * feed to the data-cache model for them (kobj.h; doc/cpu-profiles.md §11.7).
 * Nothing here counts a kernel event: only the cache's level events follow.
 */
#include "kobj.h"
#include "primitives.h"

#include <string.h>

#define LINE	64

uint32_t kobj_slab_alloc(struct kobj_slab *s)
{
	if (s->nr_free)
		return s->free[--s->nr_free];
	return ++s->next;
}

/* The freed id goes on top; when the stack is full its oldest entry is forgotten. */
void kobj_slab_free(struct kobj_slab *s, uint32_t id)
{
	if (!id)
		return;
	if (s->nr_free == KOBJ_SLAB_REUSE) {
		memmove(&s->free[0], &s->free[1], (KOBJ_SLAB_REUSE - 1) * sizeof(s->free[0]));
		s->nr_free--;
	}
	s->free[s->nr_free++] = id;
}

static uint64_t mm_byte(const struct ptsim_mm *mm, unsigned int off)
{
	return (uint64_t)mm->obj * KOBJ_MM_STRIDE + off;
}

static uint64_t vma_byte(const struct vma *v, unsigned int off)
{
	return (uint64_t)v->obj * KOBJ_VMA_STRIDE + off;
}

void kobj_mm_load(struct ptsim_mm *mm, unsigned int off)
{
	kobj_load(mm->m, KOBJ_MM, mm_byte(mm, off));
}

void kobj_mm_store(struct ptsim_mm *mm, unsigned int off)
{
	kobj_store(mm->m, KOBJ_MM, mm_byte(mm, off));
}

void kobj_vma_load(struct ptsim_machine *m, const struct vma *v, unsigned int off)
{
	kobj_load(m, KOBJ_VMA, vma_byte(v, off));
}

void kobj_vma_store(struct ptsim_machine *m, const struct vma *v, unsigned int off)
{
	kobj_store(m, KOBJ_VMA, vma_byte(v, off));
}

/* The lines a 176-byte object at its slab address spans: three or four. */
void kobj_vma_store_all(struct ptsim_machine *m, const struct vma *v)
{
	const uint64_t first = vma_byte(v, 0);

	for (uint64_t b = first & ~(uint64_t)(LINE - 1); b < first + KOBJ_VMA_STRIDE; b += LINE)
		kobj_store(m, KOBJ_VMA, b);
}

void kobj_vma_load_all(struct ptsim_machine *m, const struct vma *v)
{
	const uint64_t first = vma_byte(v, 0);

	for (uint64_t b = first & ~(uint64_t)(LINE - 1); b < first + KOBJ_VMA_STRIDE; b += LINE)
		kobj_load(m, KOBJ_VMA, b);
}

void kobj_rwsem(struct ptsim_machine *m, enum kobj_kind k, uint64_t byte)
{
	kobj_load(m, k, byte);	/* the acquire's atomic (down_read/down_write's cmpxchg) */
	kobj_load(m, k, byte);	/* the release's (up_read/up_write's atomic_long_add_return_release) */
}

size_t vma_tree_index(const struct ptsim_mm *mm, const struct vma *v)
{
	size_t lo = 0, hi = mm->nr_vmas;

	if (mm->nr_vmas && v >= mm->vmas && v < mm->vmas + mm->nr_vmas)
		return (size_t)(v - mm->vmas);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mm->vmas[mid].start < v->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * A VMA tree's nodes by level, as maple_tree_nodes counts them: the leaves
 * (2 * nr + 1 ranges, 16 a leaf), then each level above (10 children a
 * node). A node's synthetic id is its level's first plus its index in the
 * level; the mm's tree has a window of 2^24 nodes of its own, coloured (37
 * nodes per mm id, modulo 64 ids) so that every mm's root is not in one set.
 */
#define MAPLE_MM_WINDOW (UINT64_C(1) << 24)

static uint64_t maple_node_byte(const struct ptsim_mm *mm, uint64_t ordinal)
{
	const uint64_t colour = (mm->obj % 64) * 37;

	return ((uint64_t)mm->obj * MAPLE_MM_WINDOW + colour + ordinal) * KOBJ_MAPLE_NODE_STRIDE;
}

/* The pivot lines up to the one of pivot pos, then the slot line of pos. */
static void maple_node_walk(struct ptsim_machine *m, uint64_t node, unsigned int pos,
			    unsigned int slot_off)
{
	const unsigned int pivot_line = (MAPLE_PIVOT + 8 * pos) / LINE;

	for (unsigned int l = 0; l <= pivot_line; l++)
		kobj_load(m, KOBJ_MAPLE_NODE, node + l * LINE);
	kobj_load(m, KOBJ_MAPLE_NODE, node + (slot_off + 8 * pos) / LINE * LINE);
}

void kobj_maple_walk(struct ptsim_mm *mm, size_t idx, bool write)
{
	struct ptsim_machine *m = mm->m;
	uint64_t level_nodes[8], level_first[8];
	uint64_t pos = 2 * (uint64_t)idx + 1;	/* the VMA's range: after the gap before it */
	unsigned int levels = 0;
	uint64_t n = (2 * (uint64_t)mm->nr_vmas + 1 + 15) / 16, first = 0;

	for (;;) {
		level_nodes[levels] = n;
		level_first[levels] = first;
		levels++;
		first += n;
		if (n <= 1 || levels == 8)
			break;
		n = (n + 9) / 10;
	}
	/* from the root down: each level's node and position from the leaf's */
	for (unsigned int l = levels; l-- > 0;) {
		uint64_t index = pos / 16, slot = pos % 16;
		unsigned int slot_off = MAPLE_LEAF_SLOT;

		for (unsigned int up = 0; up < l; up++) {
			slot = index % 10;
			index /= 10;
			slot_off = MAPLE_NODE_SLOT;
		}
		index = MIN(index, level_nodes[l] - 1);
		maple_node_walk(m, maple_node_byte(mm, level_first[l] + index), (unsigned int)slot,
				slot_off);
	}
	if (write) {	/* the leaf's slot and its pivot rewritten */
		const uint64_t leaf = maple_node_byte(mm, MIN(pos / 16, level_nodes[0] - 1));

		kobj_store(m, KOBJ_MAPLE_NODE, leaf + (MAPLE_LEAF_SLOT + 8 * (pos % 16)) / LINE * LINE);
		kobj_store(m, KOBJ_MAPLE_NODE, leaf + (MAPLE_PIVOT + 8 * (pos % 16)) / LINE * LINE);
	}
}

void kobj_maple_tree_all(struct ptsim_mm *mm, size_t nr_vmas, bool store)
{
	const uint64_t nodes = maple_tree_nodes(nr_vmas);

	for (uint64_t i = 0; i < nodes; i++)
		for (unsigned int l = 0; l < KOBJ_MAPLE_NODE_STRIDE / LINE; l++) {
			const uint64_t b = maple_node_byte(mm, i) + l * LINE;

			if (store)
				kobj_store(mm->m, KOBJ_MAPLE_NODE, b);
			else
				kobj_load(mm->m, KOBJ_MAPLE_NODE, b);
		}
}

/*
 * The xarray's height for a file of eof pages: none (the head holds the
 * only entry) for one page, else one level per 6 bits of the last index
 * (XA_CHUNK_SHIFT). A node's synthetic id: the file's window of 2^28
 * nodes, a level's 2^24 of them, the index's bits above the level.
 */
void kobj_xa_load(struct ptsim_machine *m, unsigned int file, uint64_t index)
{
	const uint64_t pages = (m->files[file].size + m->geo.page_size - 1) >> m->geo.page_shift;
	const uint64_t window = (((uint64_t)file << 28) + (file % 64) * 37) * KOBJ_XA_NODE_STRIDE;
	unsigned int height = 0;

	kobj_load(m, KOBJ_MAPPING, (uint64_t)file * KOBJ_MAPPING_STRIDE + MAPPING_XA_HEAD);
	for (uint64_t last = pages > 1 ? pages - 1 : 0; last; last >>= XA_CHUNK_SHIFT)
		height++;
	for (unsigned int l = height; l-- > 0;) {
		const uint64_t shift = (uint64_t)XA_CHUNK_SHIFT * (l + 1);
		const uint64_t id = ((uint64_t)l << 24) + ((shift < 64 ? index >> shift : 0) & ((UINT64_C(1) << 24) - 1));
		const uint64_t node = window + id * KOBJ_XA_NODE_STRIDE;
		const unsigned int slot = (unsigned int)(index >> (XA_CHUNK_SHIFT * l)) & 63;

		kobj_load(m, KOBJ_XA_NODE, node);	/* xas_descend: node->shift */
		kobj_load(m, KOBJ_XA_NODE, node + (XA_NODE_SLOTS + 8 * slot) / LINE * LINE);
	}
}
