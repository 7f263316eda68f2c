/* SPDX-License-Identifier: MIT */
/*
 * The kernel's own objects through the data-cache model (doc/cpu-profiles.md
 * §11.7): the mm_struct, each vm_area_struct and its vma_lock, anon_vmas and
 * their anon_vma_chain entries, the VMA tree's maple nodes, a file's
 * address_space and its page-cache xarray nodes, and an mm's per-CPU RSS
 * counters. Each kind has a synthetic slab region of its own (from
 * KOBJ_BASE, clear of the table pages and the vmemmap), its objects packed at
 * their v6.12 arm64 slab stride, so object n's field at offset f is at
 * base + n * stride + f and falls in the line the kernel's would.
 *
 * Layouts follow v6.12 include/linux/mm_types.h, rmap.h, maple_tree.h,
 * xarray.h and fs.h for arm64 defconfig (NUMA, NUMA_BALANCING, SWAP, MEMCG,
 * SCHED_MM_CID, PER_VMA_LOCK, RWSEM_SPIN_ON_OWNER, HOTPLUG_CPU; no lock
 * debugging) plus CONFIG_USERFAULTFD, which the model's userfaultfd paths
 * need; the offsets are derived by hand, pahole-style (§11.7 lists them).
 *
 * Ids: a VMA's (and its vma_lock's) and an mm's come from a per-machine slab
 * whose freed ids are reused last-freed-first (KOBJ_SLAB_REUSE of them are
 * remembered, as a slab's per-CPU freelist would hand them back); an
 * anon_vma's is the model's anon_vma id, its first anon_vma_chain entry is
 * at its VMA's id, a file's address_space at its file number.
 */
#ifndef PTSIM_KOBJ_H
#define PTSIM_KOBJ_H

#include "internal.h"

enum kobj_kind {
	KOBJ_MM,		/* struct mm_struct */
	KOBJ_VMA,		/* struct vm_area_struct */
	KOBJ_VMA_LOCK,		/* struct vma_lock (v6.4 .. v6.14: a slab of its own) */
	KOBJ_ANON_VMA,		/* struct anon_vma */
	KOBJ_AVC,		/* struct anon_vma_chain */
	KOBJ_MAPLE_NODE,	/* struct maple_node of a VMA tree */
	KOBJ_XA_NODE,		/* struct xa_node of a page cache */
	KOBJ_MAPPING,		/* struct address_space (a file's inode->i_data) */
	KOBJ_PERCPU_RSS,	/* CPU 0's s32 counters of an mm's rss_stat */
};

#define KOBJ_BASE		(UINT64_C(1) << 58)
#define KOBJ_REGION_SHIFT	52

/*
 * Strides. mm_struct: sizeof plus cpumask_size and mm_cid_size, HWCACHE
 * aligned (v6.12 mm_cache_init); the fields the model touches end at byte
 * 952, the rest is estimated: 1,280. vm_area_struct: 176 (KMEM_CACHE, 8-byte
 * alignment). vma_lock: a bare rw_semaphore, 40. anon_vma: 96, its SLUB free
 * pointer after the object (a constructor and SLAB_TYPESAFE_BY_RCU): 104.
 * anon_vma_chain: 64. maple_node: 256, aligned to its size. xa_node: 576.
 * address_space: one per inode; 1,024 a file (an ext4 inode's size, rounded).
 * The per-CPU RSS counters: 4 x s32 an mm (__percpu_counter_init_many).
 */
#define KOBJ_MM_STRIDE		1280
#define KOBJ_VMA_STRIDE		176
#define KOBJ_VMA_LOCK_STRIDE	40
#define KOBJ_ANON_VMA_STRIDE	104
#define KOBJ_AVC_STRIDE		64
#define KOBJ_MAPLE_NODE_STRIDE	256
#define KOBJ_XA_NODE_STRIDE	576
#define KOBJ_MAPPING_STRIDE	1024
#define KOBJ_PERCPU_RSS_STRIDE	16

/* struct mm_struct (v6.12, §11.7.1) */
#define MM_PGD			104
#define MM_PAGE_TABLE_LOCK	148
#define MM_MMAP_LOCK		152	/* its count word */
#define MM_LOCK_SEQ		208
#define MM_TOTAL_VM		240
#define MM_DATA_VM		264	/* exec_vm 272, stack_vm 280: one line */
#define MM_RSS_STAT		792	/* percpu_counter[NR_MM_COUNTERS], 40 bytes each */
#define MM_RSS_COUNTERS		32	/* a percpu_counter's counters pointer */
#define MM_RSS_STAT_SIZE	40

/* struct vm_area_struct (v6.12, §11.7.2) */
#define VMA_VM_START		0	/* vm_start, vm_end, vm_mm, vm_page_prot, vm_flags */
#define VMA_VM_FLAGS		32
#define VMA_VM_LOCK_SEQ		44
#define VMA_VM_LOCK		48
#define VMA_FREEPTR		88	/* SLUB's free pointer: ALIGN_DOWN(176 / 2, 8) */
#define VMA_ANON_VMA		104
#define VMA_VM_PGOFF		120

/* struct anon_vma (v6.12): root at 0, the rwsem's count at 8 */
#define ANON_VMA_RWSEM		8

/* struct address_space (v6.12): host, then i_pages (xa_lock, xa_flags, xa_head at 16) */
#define MAPPING_XA_HEAD		16

/* struct maple_range_64 / maple_arange_64 (v6.12): parent, pivots from 8; slots */
#define MAPLE_PIVOT		8
#define MAPLE_LEAF_SLOT		128	/* maple_range_64: 15 pivots, then 16 slots */
#define MAPLE_NODE_SLOT		80	/* maple_arange_64: 9 pivots, then 10 slots */

/* struct xa_node (v6.12): shift, offset, count, nr_values, parent, array, a list_head, slots */
#define XA_NODE_SLOTS		32
#define XA_CHUNK_SHIFT		6

struct ptsim_mm;
struct vma;

/*
 * Each region starts 105 lines after the last one's alignment would put it
 * (a colour): real slabs' pages lie anywhere, and regions all starting at a
 * multiple of the L1's way size would crowd their first objects into one set.
 */
#define KOBJ_COLOUR_LINES	105

static inline uint64_t kobj_addr(enum kobj_kind k, uint64_t byte)
{
	return KOBJ_BASE + ((uint64_t)k << KOBJ_REGION_SHIFT) + (uint64_t)k * KOBJ_COLOUR_LINES * 64 +
	       byte;
}

static inline void kobj_load(struct ptsim_machine *m, enum kobj_kind k, uint64_t byte)
{
	dcache_kobj_load(m, kobj_addr(k, byte));
}

static inline void kobj_store(struct ptsim_machine *m, enum kobj_kind k, uint64_t byte)
{
	dcache_kobj_store(m, kobj_addr(k, byte));
}

/* A new id from a slab, the last freed first; ids start at 1. */
uint32_t kobj_slab_alloc(struct kobj_slab *s);
void kobj_slab_free(struct kobj_slab *s, uint32_t id);

/* The mm's and the VMA's fields (their ids are given at mm_alloc and vma_insert / vm_area_dup). */
void kobj_mm_load(struct ptsim_mm *mm, unsigned int off);
void kobj_mm_store(struct ptsim_mm *mm, unsigned int off);
void kobj_vma_load(struct ptsim_machine *m, const struct vma *v, unsigned int off);
void kobj_vma_store(struct ptsim_machine *m, const struct vma *v, unsigned int off);
/* Every line of a VMA's object: stored (a new one written) or loaded (a copy's source read). */
void kobj_vma_store_all(struct ptsim_machine *m, const struct vma *v);
void kobj_vma_load_all(struct ptsim_machine *m, const struct vma *v);
/* An rwsem's atomics on its count word: the acquire and the release (both loads: RMW). */
void kobj_rwsem(struct ptsim_machine *m, enum kobj_kind k, uint64_t byte);

/* v's index in mm's sorted VMAs: its slot if it is one of them, else where its start would go. */
size_t vma_tree_index(const struct ptsim_mm *mm, const struct vma *v);

/*
 * The walk of an mm's VMA tree to the VMA at index idx of its sorted list
 * (mas_walk / mas_wr_walk), by §11.7.4's rule: the tree is as
 * maple_tree_nodes lays it out, one node per level from the root down; in
 * each, the pivot lines up to the position's and its slot's line are loaded.
 * write: the leaf's slot and pivot lines are then stored (the store).
 */
void kobj_maple_walk(struct ptsim_mm *mm, size_t idx, bool write);
/* Every node of the mm's VMA tree: its four lines loaded (a dup's source) or stored (its copy). */
void kobj_maple_tree_all(struct ptsim_mm *mm, size_t nr_vmas, bool store);
/* filemap_get_entry's xas_load of file's index (§11.7.5): the mapping's head, a node per level. */
void kobj_xa_load(struct ptsim_machine *m, unsigned int file, uint64_t index);

#endif
