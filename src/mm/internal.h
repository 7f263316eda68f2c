/* SPDX-License-Identifier: MIT */
/*
 * The mm layer's internal functions (src/mm, src/fs), over the core (core.h).
 * The kernel code of src/mm, src/fs and arch/arm64/mm includes it; the
 * hardware model (arch/arm64/hw) does not. Not installed.
 */
#ifndef PTSIM_INTERNAL_H
#define PTSIM_INTERNAL_H

#include "core.h"

/* mm/page_alloc.c */
int physmem_init(struct physmem *pm, uint64_t base_pfn, uint64_t nr_pages, unsigned int max_order,
		 uint64_t *host_bytes);
void physmem_free_all(struct physmem *pm);
int physmem_copy(struct physmem *dst, const struct physmem *src, uint64_t *host_bytes);
/*
 * A naturally aligned free block of 1 << order pages; *from_order (if not
 * NULL): the order of the free block it was split from (order itself when
 * none was split). Out of free blocks, the per-CPU lists are drained back
 * first (drain_all_pages on the kernel's slow path, not counted).
 */
int physmem_alloc(struct physmem *pm, unsigned int order, uint64_t *pfn, unsigned int *from_order);
/* The block back to the buddy lists, merged with its free buddies: how many merges. */
unsigned int physmem_free(struct physmem *pm, uint64_t pfn, unsigned int order);
/*
 * This CPU's per-CPU list pindex (of blocks of order, from the first use):
 * a block added first (list_add) or last (list_add_tail), 0 or -ENOMEM when
 * the list's bookkeeping cannot grow; and the first or last block taken
 * off (the list must not be empty).
 */
int pcp_list_add(struct physmem *pm, unsigned int pindex, unsigned int order, uint64_t pfn,
		 bool last);
uint64_t pcp_list_take(struct physmem *pm, unsigned int pindex, bool last);

/* folio.c */
int folio_store_init(struct folio_store *fs, uint64_t base_pfn, uint64_t nr_pages,
		     uint64_t *host_bytes);
void folio_store_free(struct folio_store *fs);
/* A copy of src; its side maps' growth is charged to host_bytes (the copy's machine). */
int folio_store_copy(struct folio_store *dst, const struct folio_store *src, uint64_t *host_bytes);
/* Allocates memory and metadata (counts FOLIO_ALLOC); records undo. */
int folio_alloc(struct ptsim_machine *m, unsigned int order, unsigned int flags,
		struct folio **out);
void folio_free(struct ptsim_machine *m, struct folio *folio);

/* What an undoable step allocated, freed as if it never existed (src/mm/undo.c). */
void undo_rollback(struct ptsim_machine *m);

/* The end of an undoable step: undo_rollback when it failed (err), else undo_commit. */
static inline void undo_end(struct ptsim_machine *m, int err)
{
	if (err)
		undo_rollback(m);
	else
		undo_commit(m);
}
/*
 * The last mapping's reference went: free f unless a pin or FOLL_GET
 * reference holds one (folio_put; outside a batch __folio_put, which takes a
 * folio on the LRU off it first).
 */
void folio_put(struct ptsim_machine *m, struct folio *f);
/* folio_put of a folio its fault allocated and never added to the LRU (PG_lru clear). */
void folio_put_new(struct ptsim_machine *m, struct folio *f);
/* include/linux/mm.h: what a FOLL_PIN pin adds to a small folio's refcount */
#define GUP_PIN_COUNTING_BIAS 1024u
/* The FOLL_PIN pins (_pincount) and FOLL_GET references GUP holds on f. */
void folio_gup_counts(const struct ptsim_machine *m, const struct folio *f, uint32_t *pins,
		      uint32_t *gets);
/* Set them (pinned follows the pins); -ENOMEM when a new entry cannot be recorded. */
int folio_gup_set(struct ptsim_machine *m, struct folio *f, uint32_t pins, uint32_t gets);
/* folio_ref_count of the references the model keeps (folio.c says which). */
uint64_t folio_ref_count(const struct ptsim_machine *m, const struct folio *f);
static inline uint64_t folio_nr_pages(const struct folio *f)
{
	return UINT64_C(1) << f->order;
}

/* folio_test_swapcache: an anonymous folio in the swap cache (the flag test is not counted). */
static inline bool folio_test_swapcache(const struct folio *f)
{
	return (f->flags & (FOLIO_ANON | FOLIO_SWAPCACHE)) == (FOLIO_ANON | FOLIO_SWAPCACHE);
}
/*
 * The folio's mapcount, PTE + PMD mappings of its pages, as folio_mapcount
 * (include/linux/mm.h) reads it: a large folio keeps it in its first tail
 * record, as v6.11+ keep _large_mapcount in page[1] (its head's
 * mapcount_small reads FOLIO_MAPCOUNT_WIDE); an order-0 folio in its
 * record's mapcount_small, or (more than FOLIO_MAPCOUNT_INLINE_MAX mappings,
 * or below zero after an unmap bug) in the store's side map. The range is
 * the kernel's atomic_t, as the int32_t field it replaces. Every mapcount
 * goes through these, whichever path changes it.
 */
int folio_mapcount_wide(const struct ptsim_machine *m, const struct folio *f);
void folio_mapcount_set_wide(struct ptsim_machine *m, struct folio *f, int v);
int folio_mapcount_add_wide(struct ptsim_machine *m, struct folio *f, int delta);

static inline int folio_mapcount(const struct ptsim_machine *m, const struct folio *f)
{
	if (f->mapcount_small != FOLIO_MAPCOUNT_WIDE)
		return (int)f->mapcount_small;
	if (f->order)
		return (int32_t)f[1].mapping;
	return folio_mapcount_wide(m, f);
}

static inline void folio_mapcount_set(struct ptsim_machine *m, struct folio *f, int v)
{
	if (f->mapcount_small != FOLIO_MAPCOUNT_WIDE && (unsigned int)v <= FOLIO_MAPCOUNT_INLINE_MAX)
		f->mapcount_small = (unsigned int)v & 31u;
	else if (f->order)
		f[1].mapping = (uint32_t)v;
	else
		folio_mapcount_set_wide(m, f, v);
}

/* Add delta (negative: take away) and return the new mapcount; it wraps as atomic_add. */
static inline int folio_mapcount_add(struct ptsim_machine *m, struct folio *f, int delta)
{
	unsigned int small = f->mapcount_small, v = small + (unsigned int)delta;

	if (small != FOLIO_MAPCOUNT_WIDE && v <= FOLIO_MAPCOUNT_INLINE_MAX) {
		f->mapcount_small = v & 31u;
		return (int)v;
	}
	if (f->order) {
		uint32_t large = f[1].mapping + (uint32_t)delta;

		f[1].mapping = large;
		return (int32_t)large;
	}
	return folio_mapcount_add_wide(m, f, delta);
}

/*
 * The invariant checker's ±1, which allocates nothing: a large or wide count
 * changes in place; a count in the record wraps modulo 31 (its values
 * 0..30), so taking mappings away and adding them back restores it, and
 * true is returned when taking one away wrapped (more mappings than count).
 */
bool folio_mapcount_add_in_place(struct ptsim_machine *m, struct folio *f, int delta);

/* Host pages of records the store spans (each with a live count in chunk_live). */
static inline uint64_t folio_store_chunks(const struct folio_store *fs)
{
	return (fs->nr_pages + fs->chunk_records - 1) / fs->chunk_records;
}
/* folio_pfn: the record's place in the store is its page frame (the vmemmap's arithmetic). */
static inline uint64_t folio_pfn(const struct ptsim_machine *m, const struct folio *f)
{
	return m->folios.base_pfn + (uint64_t)(f - m->folios.map);
}
/*
 * anon_vma_prepare: a VMA's first anonymous folio gives it an anon_vma id.
 * Callers check anon_vma_available before they change anything: the ids
 * fit 31 bits, and none left is -ENOMEM.
 */
static inline int anon_vma_available(const struct ptsim_machine *m, const struct vma *v)
{
	return v->anon_vma || m->next_anon_vma <= ANON_VMA_MAX ? 0 : -ENOMEM;
}
/* anon_vma_prepare itself (counted) is a primitive: src/primitives/primitives.h. */
/* Host bytes a folio's records can take at most (whole host pages of them). */
static inline uint64_t folio_host_bytes(unsigned int order)
{
	return (UINT64_C(1) << order) * sizeof(struct folio);
}
int folio_set_lock_contention(struct ptsim_machine *m, struct folio *f, unsigned int attempts);
bool folio_lock_contended(struct ptsim_machine *m, struct folio *f);
/* Split f into order-0 folios in place (its tail records become folios). */
void folio_split_records(struct ptsim_machine *m, struct folio *f);
/* The same into folios of new_order (below f's order): every 2^new_order-th record a head. */
void folio_split_records_to_order(struct ptsim_machine *m, struct folio *f, unsigned int new_order);
bool folio_page_anon_exclusive(const struct folio *f, uint64_t page_idx);
void folio_set_page_anon_exclusive(struct folio *f, uint64_t page_idx, bool excl);

/* is_cow_mapping (include/linux/mm.h): private, and may be written. */
static inline bool is_cow_mapping(unsigned int flags)
{
	return (flags & (VM_SHARED | VM_MAYWRITE)) == VM_MAYWRITE;
}

/* memory.c */
struct page_ref {
	struct folio *folio;	/* NULL: no normal page */
	uint64_t idx;		/* page index inside the folio */
};
struct page_ref vm_normal_page(struct ptsim_mm *mm, pte_t pte);
/* handle_mm_fault: one fault at va, counted in the operation in progress. */
int handle_mm_fault(struct ptsim_mm *mm, uint64_t va, enum ptsim_access_kind kind);
/* memory.c helpers UFFDIO_COPY / UFFDIO_ZEROPAGE share with the anonymous fault */
/* mk_pte of an anonymous page of v, young; dirty and writable for a write where VM_WRITE. */
pte_t anon_fault_pte(const struct ptsim_geometry *g, const struct vma *v, uint64_t pfn, bool write);
/*
 * A new anonymous folio's state for v at addr (uptodate, mapping, index;
 * mlocked in a VM_LOCKED VMA).
 */
void folio_init_anon(struct ptsim_machine *m, struct folio *f, const struct vma *v, uint64_t addr);
/* The shared zero page's PFN, allocated on first use (-ENOMEM). */
int zero_pfn(struct ptsim_machine *m, uint64_t *pfn);

/* The fault at va of v with no VMA permission check (the caller made it: gup's check_vma_flags). */
int __handle_mm_fault(struct ptsim_mm *mm, struct vma *v, uint64_t va, bool write);
/* handle_mm_fault with FAULT_FLAG_UNSHARE: GUP's unshare fault (memory.c). */
int handle_mm_fault_unshare(struct ptsim_mm *mm, struct vma *v, uint64_t va);

/* gup.c */
/*
 * __mm_populate(start, end - start, ignore_errors): fault in and follow
 * every page of the VMAs the range meets (not VM_LOCKONFAULT ones), VMA by
 * VMA; without ignore_errors it stops at the first error (-EFAULT for a
 * PROT_NONE VMA or a failed fault, -ENOMEM), with it it goes on at the
 * next VMA and returns 0.
 */
int __mm_populate(struct ptsim_mm *mm, uint64_t start, uint64_t end, bool ignore_errors);
/* Whether the zero-page tables __mm_populate of the range needs fit host_memory_limit. */
bool mm_populate_fits_host(const struct ptsim_mm *mm, uint64_t start, uint64_t end,
			   bool ignore_errors);
/*
 * madvise_populate for MADV_POPULATE_READ / _WRITE over [start, end): 0, or
 * -ENOMEM (a hole, no memory), -EINVAL (a VMA the access may not make),
 * -EFAULT (SIGBUS/SIGSEGV); what was faulted in before an error stays.
 */
int madvise_populate(struct ptsim_mm *mm, uint64_t start, uint64_t end, bool write);
/* The same bound for MADV_POPULATE_READ (write false) or _WRITE. */
bool madvise_populate_fits_host(const struct ptsim_mm *mm, uint64_t start, uint64_t end, bool write);

/* mm/pgtable-generic.c: software table walk and allocation */
/* Allocate a table page at level (counts TABLE_ALLOC, accounts bytes). */
int pt_table_alloc(struct ptsim_mm *mm, int level, struct pt_table **out);
void pt_table_free(struct ptsim_mm *mm, struct pt_table *t);
/*
 * Set aside nr[level_slot(level)] tables per level so the operation's later
 * pt_table_alloc calls cannot fail; they are counted (TABLE_ALLOC, the mm's
 * bytes) only when taken. pt_unreserve gives back what was not taken.
 */
int pt_reserve(struct ptsim_machine *m, const size_t nr[PTSIM_MAX_LEVELS]);
void pt_unreserve(struct ptsim_machine *m);
/* Free a whole subtree and the folios mapped by it. */
void pt_free_tree(struct ptsim_mm *mm, struct pt_table *t);
int pt_copy_tree(struct ptsim_mm *dst, const struct pt_table *src, struct pt_table **out);
/* Free a copied tree without touching memory accounting. */
void pt_delete_copy(struct ptsim_machine *m, struct pt_table *t);
/*
 * Find the table at `level` covering va; with alloc, create missing tables
 * (counting descriptor writes for the new table entries). Returns NULL when a
 * table is missing (or a block leaf sits above it) and !alloc, or on -ENOMEM.
 */
struct pt_table *pt_walk_table(struct ptsim_mm *mm, uint64_t va, int level, bool alloc,
			       int *err);
/*
 * Whether the valid leaf d at level is an encoding the hardware walk faults
 * on (a level-3 descriptor with bits[1:0] = 0b01, a block at a level without
 * blocks): the queries then report nothing mapped, as the walk finds.
 */
bool leaf_encoding_reserved(const struct ptsim_geometry *g, int level, pte_t d);
/*
 * What the program's pages hold (src/mm/user_data.c): whether f is known to
 * hold only zeros, mark it so, and forget the marks of the folios under a
 * range the program wrote to (nothing to do while no folio is marked).
 */
bool folio_zero_filled(const struct ptsim_machine *m, const struct folio *f);
void folio_mark_zero_filled(struct ptsim_machine *m, const struct folio *f);
void user_data_written(struct ptsim_mm *mm, uint64_t start, uint64_t len);
/* Uncounted lookup of the leaf mapping va: returns the table and sets *level. */
struct pt_table *pt_lookup_leaf(const struct ptsim_mm *mm, uint64_t va, unsigned int *idx);
/*
 * pmdp_clear_flush_young (mm/pgtable-generic.c): a PMD leaf's AF cleared,
 * its TLB entries invalidated when it was young; true when it was.
 */
bool pmdp_clear_flush_young(struct ptsim_mm *mm, uint64_t addr, pte_t *pmdp);
/*
 * The first address of [va, end) whose lookup finds a non-empty entry, or end:
 * an empty entry above the last level is skipped whole, so a walk over a huge
 * range costs what is mapped in it. Uncounted.
 */
uint64_t pt_next_used(const struct ptsim_mm *mm, uint64_t va, uint64_t end);
/* Like pt_next_used, but stops at the PMD level: a PTE table, even an empty one, counts. */
uint64_t pt_next_pmd_used(const struct ptsim_mm *mm, uint64_t va, uint64_t end);
/* Uncounted: the table at `level` covering va, or NULL. */
struct pt_table *pt_find_table(const struct ptsim_mm *mm, uint64_t va, int level);
/* ptep_clear_flush: get-and-clear, then flush_tlb_page if the old entry was accessible. */
pte_t ptep_clear_flush(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep);
/* Does the entry map the shared zero page? */
bool is_zero_pte(const struct ptsim_mm *mm, pte_t pte);

/* machine.c / mm.c */
int machine_add_mm(struct ptsim_machine *m, struct ptsim_mm *mm);
/* A new empty user mm on m (its PGD, one user, listed in the machine); no ASID yet. */
int mm_alloc(struct ptsim_machine *m, struct ptsim_mm **out);
void machine_remove_mm(struct ptsim_machine *m, struct ptsim_mm *mm);
void mm_free_contents(struct ptsim_mm *mm);
/* An mm that does not own its machine taken off it and freed (counts nothing). */
void mm_destroy(struct ptsim_mm *mm);
/* The address space live for an ASID, as the hardware model asks it (m->as_of_asid). */
bool mm_as_of_asid(const struct ptsim_machine *m, unsigned int asid, bool global,
		   struct hw_as *out);
int mm_copy_into(struct ptsim_machine *m, const struct ptsim_mm *src, struct ptsim_mm **out);
bool range_is_free(const struct ptsim_mm *mm, uint64_t start, uint64_t end);
/* First fit for an anonymous mapping of len bytes (see ptsim_mmap). */
int get_unmapped_area(struct ptsim_mm *mm, uint64_t len, uint64_t *out);
int vma_insert(struct ptsim_mm *mm, const struct vma *v);
/*
 * __mmap_region's counted work for the new VMA at idx: charge, merge or
 * vm_area_alloc and store, counts. Returns the index of the VMA that covers it.
 */
size_t mmap_region_account(struct ptsim_mm *mm, size_t idx);
struct vma *find_vma(const struct ptsim_mm *mm, uint64_t addr);
struct vma *find_vma_intersection(const struct ptsim_mm *mm, uint64_t start, uint64_t end);
/* Where the VMAs from start stop covering [start, end) without a hole (end: no hole; start: none there). */
uint64_t covered_end(const struct ptsim_mm *mm, uint64_t start, uint64_t end);

/* vma.c */
int vma_reserve(struct ptsim_mm *mm, size_t extra);
/* The VMA array's capacity becomes cap: its host memory charged (never refused) or given back. */
void vmas_charge(struct ptsim_mm *mm, size_t cap);
size_t vma_index(const struct ptsim_mm *mm, const struct vma *v);
void vma_split(struct ptsim_mm *mm, size_t idx, uint64_t addr);
/* Drop the VMA at idx from the array (its pages and tables are the caller's business). */
void vma_remove(struct ptsim_mm *mm, size_t idx);
/*
 * vma_modify_flags: apply `modify` to every VMA of [start, end), splitting at
 * the edges and merging afterwards; see vma.c.
 */
int vma_modify(struct ptsim_mm *mm, uint64_t start, uint64_t end,
	       void (*modify)(struct vma *v, const void *arg), const void *arg);
size_t vma_merge_around(struct ptsim_mm *mm, size_t idx);
/* vma_merge_new_range: a new mapping at *idx taken by its neighbours (true), or not. */
bool vma_merge_new_range(struct ptsim_mm *mm, size_t *idx);

/*
 * shmem.c: a new shmem object of size bytes for a MAP_SHARED|MAP_ANONYMOUS
 * mapping (*shmem: its file number + 1, with no reference yet). Every VMA
 * that names it holds one reference (vma_insert, vma_split and fork take
 * one, vma_remove, a merge and the mm's teardown drop one); the last one
 * frees its pages (shmem_evict).
 */
int shmem_zero_setup(struct ptsim_machine *m, uint64_t size, uint32_t *shmem);
void shmem_evict(struct ptsim_machine *m, unsigned int file);
void vma_get_shmem(struct ptsim_machine *m, const struct vma *v);
void vma_put_shmem(struct ptsim_machine *m, const struct vma *v);

/* huge_memory.c: split a PMD leaf with a PTE table the caller allocated */
struct pt_table;
void __split_huge_pmd_locked(struct ptsim_mm *mm, struct pt_table *pmd_table, uint64_t haddr,
			     struct pt_table *pte_table);
bool pmd_is_leaf(const struct pt_table *t, unsigned int idx);
/* A PMD leaf maps addr and addr is not PMD aligned: a boundary at addr cuts the THP. */
bool thp_cut_at(const struct ptsim_mm *mm, uint64_t addr);
/*
 * PTE tables allocated up front for the THPs a range's two edges cut, so an
 * operation can split them without failing half-way.
 */
struct spare_tables {
	struct pt_table *t[4];	/* two per range: mremap joins two ranges' sets */
	unsigned int n;
};
int spare_tables_alloc(struct ptsim_mm *mm, struct spare_tables *spare, uint64_t start,
		       uint64_t end);
/* Give back the tables no split used. */
void spare_tables_free(struct ptsim_mm *mm, struct spare_tables *spare);
/* Split the PMD THP at haddr with a spare table; false (and a diagnostic) when none is left. */
bool split_huge_pmd_spare(struct ptsim_mm *mm, struct pt_table *pmd_table, uint64_t haddr,
			  struct spare_tables *spare);
/* split_huge_pmd_address: split the PMD THP cut at addr with a spare table. */
void split_huge_pmd_address(struct ptsim_mm *mm, uint64_t addr, struct spare_tables *spare);
int split_folio(struct ptsim_mm *mm, struct folio *f);
/* split_folio_to_order: the same, into folios of new_order (below f's order). */
int split_folio_to_order(struct ptsim_mm *mm, struct folio *f, unsigned int new_order);
/*
 * folio_remove_rmap_ptes (mm/rmap.c): nr fewer mappings of f, with the
 * per-page and per-folio mapcount work counted; a mapcount below zero is an
 * invariant diagnostic. Freeing is the caller's.
 */
void folio_remove_rmap_ptes(struct ptsim_mm *mm, struct folio *f, uint64_t idx, unsigned int nr);
/* folio_remove_rmap_pmd: one PMD mapping fewer; ptes_stay when a split just PTE-mapped it. */
void folio_remove_rmap_pmd(struct ptsim_mm *mm, struct folio *f, bool ptes_stay);
/* folio_add_file_rmap_ptes: nr more PTE mappings of a file folio, from its page idx. */
void folio_add_file_rmap_ptes(struct ptsim_mm *mm, struct folio *f, uint64_t idx, unsigned int nr);
/*
 * folio_add_anon_rmap_ptes: nr more PTE mappings of pages idx.. of an
 * anonymous folio, exclusive (RMAP_EXCLUSIVE) or not; pmd_mapped when a PMD
 * still maps it (a split).
 */
void folio_add_anon_rmap_ptes(struct ptsim_mm *mm, struct folio *f, uint64_t idx,
			      unsigned int nr, bool exclusive, bool pmd_mapped);
/*
 * folio_add_new_anon_rmap: the first mappings of a new anonymous folio, all
 * its pages by PTEs, or one PMD (pmd); sets the mapcount and exclusivity.
 */
void folio_add_new_anon_rmap(struct ptsim_mm *mm, struct folio *f, bool exclusive, bool pmd);
/* flush_tlb_batched_pending (mm/rmap.c): flush_tlb_mm when reclaim deferred a flush on mm. */
void flush_tlb_batched_pending(struct ptsim_mm *mm);
/* PTE mappings of f's pages in mm (anonymous folios, found through their index). */
uint64_t folio_mappings_in(struct ptsim_mm *mm, const struct folio *f);
/* folio_put after a split: the first page goes too if nobody maps it. */
void folio_put_unmapped(struct ptsim_mm *mm, struct folio *f);
pte_t vm_get_page_prot(unsigned int vm_flags);

/*
 * mprotect.c: uffd_wp_range (mm/userfaultfd.c) over [start, end) of v,
 * which must be registered in WP mode; a THP the range cuts is split with a
 * spare table. 0 or -ENOMEM (a table for the markers; what was done stays).
 */
int uffd_wp_range(struct ptsim_mm *mm, const struct vma *v, uint64_t start, uint64_t end,
		  bool enable_wp, struct spare_tables *spare);
/* userfaultfd_wp_async (fs/userfaultfd.c): the registering context has UFFD_FEATURE_WP_ASYNC. */
static inline bool userfaultfd_wp_async(const struct vma *v)
{
	return v->uffd_features & UFFD_CTX_WP_ASYNC;
}

#endif
