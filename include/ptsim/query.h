/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_QUERY_H
#define PTSIM_QUERY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <ptsim/export.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ptsim_mm;

/*
 * Queries an mm developer reaches for: what /proc/PID/pagemap with
 * /proc/kpageflags and /proc/kpagecount, and /proc/PID/smaps, would report
 * for the model (fs/proc/task_mmu.c, fs/proc/page.c, v6.12). They count
 * nothing and never change the model, as ptsim_translate.
 */

enum ptsim_page_state {
	PTSIM_PAGE_NONE,	/* nothing mapped at the address (pagemap: no PM_PRESENT, no PM_SWAP) */
	PTSIM_PAGE_PRESENT,	/* PM_PRESENT: a page, or a PROT_NONE-style present-invalid entry */
	PTSIM_PAGE_SWAP,	/* PM_SWAP: a swap entry */
};

/* One page, as pagemap and kpageflags/kpagecount describe it. */
struct ptsim_page_info {
	uint64_t va;		/* the page's address (page aligned) */
	uint64_t pfn;		/* present: the page frame mapped at va (PM_PFRAME) */
	uint64_t swap_offset;	/* swap: the slot (PM_SWAP's offset) */
	uint64_t refcount;	/* folio_ref_count (kpagecount), see ptsim_folio_info */
	uint32_t state;		/* enum ptsim_page_state */
	uint32_t level;		/* present: level of the leaf entry (3 a PTE, 2 a PMD block) */
	uint32_t swap_type;	/* swap: the device (always 0: the model has one) */
	uint32_t order;		/* present: the folio's order (kpageflags' KPF_THP for order > 0) */
	int32_t mapcount;	/* present: the folio's mapcount (PTE + PMD mappings, every mm) */
	uint32_t pins;		/* present: FOLL_PIN pins of the folio */
	uint32_t gets;		/* present: FOLL_GET references of the folio */
	uint32_t reserved32;
	/*
	 * present: PageAnonExclusive of the page; swap: the entry's
	 * PTE_SWP_EXCLUSIVE (what a swap-in may map writable).
	 */
	bool exclusive;
	/*
	 * PM_MMAP_EXCLUSIVE: the page is mapped once. A small folio: mapcount
	 * 1; a large anonymous folio: no other mm maps any of its pages (the
	 * model keeps no per-page mapcount: v6.15's CONFIG_NO_PAGE_MAPCOUNT
	 * rule, folio_maybe_mapped_shared); a large file folio: mapcount 1.
	 */
	bool mmap_exclusive;
	bool anon;		/* an anonymous folio (pagemap: no PM_FILE) */
	bool zero_page;		/* the shared zero page (no folio: order, counts 0) */
	bool soft_dirty;	/* PM_SOFT_DIRTY: soft-dirty is not modelled, always false */
	bool write, dirty, young;	/* the entry's pte_write, pte_dirty, pte_young */
	/* Room for later fields (zero): the struct keeps its size across versions. */
	uint64_t reserved[4];
};

/* The page at va (any address of it). -EINVAL for a bad argument; nothing mapped is PTSIM_PAGE_NONE. */
PTSIM_API int ptsim_pagemap(const struct ptsim_mm *mm, uint64_t va, struct ptsim_page_info *out);

/* A callback of the range walks: non-zero stops the walk, which returns it. */
typedef int (*ptsim_page_fn)(const struct ptsim_page_info *page, void *arg);

/*
 * Every present or swapped page of [start, start+len), in address order
 * (the pages of a PMD block one by one): fn(page, arg) for each. Empty
 * tables are skipped whole, so the walk costs what is mapped in the range,
 * not its length. start and len are widened to pages. -EINVAL for a bad
 * argument or a range past the address space.
 */
PTSIM_API int ptsim_pagemap_range(const struct ptsim_mm *mm, uint64_t start, uint64_t len,
				  ptsim_page_fn fn, void *arg);

/* One VMA, as /proc/PID/maps and smaps (smap_gather_stats) report it. */
struct ptsim_vma_info {
	uint64_t start, end;
	uint64_t pgoff;		/* in pages */
	uint64_t rss;		/* Rss: bytes of present pages with a struct page (not the zero page) */
	uint64_t anonymous;	/* Anonymous: bytes of those that are anonymous */
	uint64_t anon_huge;	/* AnonHugePages: bytes of PMD-mapped anonymous THPs */
	uint64_t swap;		/* Swap: bytes of swap entries */
	uint32_t prot;		/* PTSIM_PROT_*: maps' r, w, x */
	int32_t fd;		/* a file mapping's open file (ptsim_mmap_file), -1 for anonymous */
	bool shared;		/* maps' s (VM_SHARED), else p */
	bool anon;		/* anonymous memory: private anonymous or shmem (no file of the user's) */
	bool shmem;		/* shared anonymous: a shmem object */
	bool anon_vma;		/* an anon_vma is attached (an anonymous fault or fork happened) */
	bool locked;		/* VM_LOCKED (mlock) */
	bool locked_onfault;	/* VM_LOCKONFAULT (mlock2 MLOCK_ONFAULT, mlockall MCL_ONFAULT) */
	bool uffd;		/* registered with userfaultfd */
	bool hugepage;		/* VM_HUGEPAGE (MADV_HUGEPAGE); VM_NOHUGEPAGE is nohugepage */
	bool nohugepage;
	bool dontcopy;		/* VM_DONTCOPY (MADV_DONTFORK) */
	bool wipeonfork;	/* VM_WIPEONFORK */
	/* Room for later fields (zero): the struct keeps its size across versions. */
	uint64_t reserved[4];
};

typedef int (*ptsim_vma_fn)(const struct ptsim_vma_info *vma, void *arg);

/*
 * Every VMA of mm in address order: fn(vma, arg) for each; non-zero from fn
 * stops the walk, which returns it. The smaps sums cost what is mapped.
 * -EINVAL for a bad argument.
 */
PTSIM_API int ptsim_vma_foreach(const struct ptsim_mm *mm, ptsim_vma_fn fn, void *arg);

/*
 * Print the pages of [start, start+len) that are mapped or swapped, one line
 * each (consecutive pages of one folio with the same state on one line),
 * and the VMA list, as the scenario operations pagemap and vmas do
 * (doc/scenario.md gives the formats).
 */
PTSIM_API int ptsim_pagemap_print(const struct ptsim_mm *mm, uint64_t start, uint64_t len,
				  FILE *out);
PTSIM_API int ptsim_vmas_print(const struct ptsim_mm *mm, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
