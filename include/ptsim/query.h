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
	/*
	 * nothing mapped at the address (pagemap: no PM_PRESENT, no PM_SWAP),
	 * or a leaf the hardware walk faults on (a reserved encoding, raw mms)
	 */
	PTSIM_PAGE_NONE,
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
	/*
	 * PM_UFFD_WP: a present entry's pte_uffd_wp, a swap entry's
	 * PTE_SWP_UFFD_WP, or a uffd-wp PTE marker. A marker is reported as
	 * pagemap reports it (v6.12 pte_to_pagemap_entry): PTSIM_PAGE_SWAP
	 * with swap_type 31 (SWP_PTE_MARKER) and swap_offset 1
	 * (PTE_MARKER_UFFD_WP); no swap slot, not in smaps' Swap.
	 */
	bool uffd_wp;
	uint8_t reserved8[7];
	/* Room for later fields (zero): the struct keeps its size across versions. */
	uint64_t reserved[3];
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

/* PAGEMAP_SCAN (v6.12 include/uapi/linux/fs.h): the page categories and flags, the kernel's values. */
#define PTSIM_PAGE_IS_WPALLOWED		(1u << 0)	/* the VMA is uffd-wp async with markers */
#define PTSIM_PAGE_IS_WRITTEN		(1u << 1)	/* not uffd-wp protected */
#define PTSIM_PAGE_IS_FILE		(1u << 2)
#define PTSIM_PAGE_IS_PRESENT		(1u << 3)
#define PTSIM_PAGE_IS_SWAPPED		(1u << 4)
#define PTSIM_PAGE_IS_PFNZERO		(1u << 5)
#define PTSIM_PAGE_IS_HUGE		(1u << 6)
#define PTSIM_PAGE_IS_SOFT_DIRTY	(1u << 7)	/* never set: arm64 has no soft-dirty */
#define PTSIM_PM_SCAN_WP_MATCHING	(1u << 0)	/* write-protect the pages matched */
#define PTSIM_PM_SCAN_CHECK_WPASYNC	(1u << 1)	/* -EPERM at a VMA not uffd-wp async */

/* struct page_region: [start, end) with its categories (masked by return_mask). */
struct ptsim_page_region {
	uint64_t start, end;
	uint64_t categories;
};

/* struct pm_scan_arg, less its size and with the output array as a pointer. */
struct ptsim_pm_scan_arg {
	uint64_t start, end;		/* the range; start page aligned, end rounded up */
	struct ptsim_page_region *vec;	/* the output regions (NULL with vec_len 0) */
	uint64_t vec_len;
	uint64_t flags;			/* PTSIM_PM_SCAN_* */
	uint64_t max_pages;		/* at most this many pages reported; 0: no limit */
	uint64_t category_inverted;	/* categories that match when clear */
	uint64_t category_mask;		/* all of these must match */
	uint64_t category_anyof_mask;	/* one of these must match (if any is given) */
	uint64_t return_mask;		/* the categories reported */
	uint64_t walk_end;		/* out: where the walk stopped (end when it did not) */
};

/*
 * The PAGEMAP_SCAN ioctl of /proc/PID/pagemap (v6.12 fs/proc/task_mmu.c
 * do_pagemap_scan, pagemap_scan_*): walk [start, end), report runs of pages
 * whose categories match as regions in vec (adjacent pages with the same
 * reported categories are one region), and with PM_SCAN_WP_MATCHING
 * write-protect what matched and is written (uffd-wp bits, markers in none
 * entries, the TLB flush per table; a THP matched in part is split). Only
 * VMAs registered uffd-wp with WP_ASYNC are WPALLOWED; with WP_MATCHING the
 * others are skipped, with CHECK_WPASYNC the scan stops at one with -EPERM.
 * Returns the number of regions written, or -EINVAL (unknown flags or
 * categories, start not page aligned, vec NULL with vec_len), -EFAULT (end
 * below start or past the address space), -ENOTTY (preset without
 * "pagemap_scan": before v6.7), -EPERM, -ENOMEM (a table for a split or the
 * markers; what was done stays). Counted as the kernel's walk counts: the
 * system call, mmap_read_lock per round, ptep_get per entry, and the
 * write-protect through the primitives change_protection uses. arg->walk_end
 * is written back as the kernel does.
 */
PTSIM_API int64_t ptsim_pagemap_scan(struct ptsim_mm *mm, struct ptsim_pm_scan_arg *arg);

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
	bool uffd_wp;		/* VM_UFFD_WP: registered in UFFDIO_REGISTER_MODE_WP */
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
