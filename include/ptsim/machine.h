/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_MACHINE_H
#define PTSIM_MACHINE_H

#include <stdbool.h>
#include <stdint.h>
#include <ptsim/export.h>
#include <ptsim/stats.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ptsim_machine;

/* Translation granule, given as PAGE_SHIFT. */
enum ptsim_granule {
	PTSIM_GRANULE_4K = 12,
	PTSIM_GRANULE_16K = 14,
	PTSIM_GRANULE_64K = 16,
};

#define PTSIM_MAX_LEVELS 5	/* levels -1..3 (4K granule with 52-bit VA) */

/* Geometry of one granule and VA width, computed as pgtable-hwdef.h does. */
struct ptsim_geometry {
	unsigned int page_shift;
	uint64_t page_size;
	unsigned int va_bits;
	unsigned int levels;		/* ARM64_HW_PGTABLE_LEVELS(va_bits) */
	int start_level;		/* 4 - levels: 0 for 4 levels, -1 for 5 */
	unsigned int bits_per_level;	/* PAGE_SHIFT - 3 */
	unsigned int ptrs_per_table;	/* PTRS_PER_PTE */
	/* Indexed by level + 1 (level -1 .. 3); zero for levels not in use. */
	unsigned int level_shift[PTSIM_MAX_LEVELS];
	unsigned int level_entries[PTSIM_MAX_LEVELS];	/* top level may be smaller */
	bool level_block[PTSIM_MAX_LEVELS];		/* Linux maps blocks here */
	unsigned int cont_ptes;		/* CONT_PTES */
	uint64_t cont_pte_size;
	unsigned int cont_pmds;		/* CONT_PMDS */
	uint64_t cont_pmd_size;
	uint64_t pmd_size;		/* PMD_SIZE (L2 entry) */
	uint64_t pud_size;		/* PUD_SIZE (L1 entry) */
	unsigned int pmd_order;		/* HPAGE_PMD_ORDER */
	unsigned int max_dvm_ops;	/* MAX_DVM_OPS = PTRS_PER_PTE */
	uint64_t max_tlbi_range_pages;	/* MAX_TLBI_RANGE_PAGES = 32 << 16 */
	bool lpa2;			/* 52-bit VA on 4K/16K uses FEAT_LPA2 */
	/* Room for later fields (zero): the struct keeps its size across versions. */
	uint64_t reserved[4];
};

/* Fill *out for a granule and VA width Linux supports; -EINVAL otherwise. */
PTSIM_API int ptsim_geometry_get(enum ptsim_granule granule, unsigned int va_bits,
				 struct ptsim_geometry *out);

/* Simulated CPU models (descriptions in arch/arm64/hw/cpus.c; sources in doc/cpu-profiles.md). */
enum ptsim_cpu {
	PTSIM_CPU_APPLE_M3,
	PTSIM_CPU_NEOVERSE_V2,		/* NVIDIA Grace */
	PTSIM_CPU_AMPEREONE,
	PTSIM_CPU_NEOVERSE_N1,		/* Ampere Altra */
	PTSIM_CPU_NEOVERSE_V1,		/* AWS Graviton3 */
	PTSIM_CPU_NEOVERSE_V3,		/* and Cortex-X4: BBML2-noabort allow-listed */
	PTSIM_CPU_ANDROID_X1,		/* Android phone big core (Cortex-X1 / A76 class) */
	PTSIM_CPU__COUNT
};

/*
 * A CPU profile's short name ("apple-m3", "neoverse-v2", ...) and back;
 * ptsim_cpu_name returns NULL and ptsim_cpu_lookup -EINVAL for unknown ones.
 */
PTSIM_API const char *ptsim_cpu_name(enum ptsim_cpu cpu);
PTSIM_API int ptsim_cpu_lookup(const char *name, enum ptsim_cpu *out);

struct ptsim_cpu_info {
	const char *name, *model, *source;
	double freq_ghz;
	unsigned int l1d_entries, l1d_ways, l1i_entries, l1i_ways, l2_entries, l2_ways;
	bool coalesce_cont;	/* contiguous runs and blocks cached as one entry */
	bool tlbirange, bbml2_noabort, hafdbs;
	unsigned int bbm_level, asid_bits;
	/*
	 * The data caches the cost model simulates (64-byte lines): L1D, L2
	 * and last-level cache, size in KiB and ways ([0] L1D, [1] L2, [2]
	 * LLC), and where they come from. Took the place of reserved fields:
	 * the struct keeps its size.
	 */
	uint32_t dcache_kib[3], dcache_ways[3];
	const char *cache_source;
};

/*
 * What the model knows of a CPU: TLB and data-cache geometry, BBM level,
 * features, where they come from.
 */
PTSIM_API int ptsim_cpu_info(enum ptsim_cpu cpu, struct ptsim_cpu_info *out);

/*
 * Named kernel features: each optimisation the specs describe, switchable per
 * machine (a machine is one kernel build). Presets name combinations.
 */
enum ptsim_feature {
	PTSIM_FEAT_MPROTECT_PTE_BATCHING,	/* "mm: optimize mprotect() by PTE batching" (v6.17) */
	PTSIM_FEAT_CONTPTE_GET_EARLY_EXIT,	/* early-exit contpte_ptep_get (v6.17) */
	PTSIM_FEAT_CONTPTE_BBML2_ELISION,	/* contpte_convert skips TLBI on BBML2-noabort (v6.17) */
	PTSIM_FEAT_UFFD_MOVE_BATCHING,		/* "userfaultfd: opportunistic TLB-flush batching ..." */
	PTSIM_FEAT_LINEAR_MAP_BLOCKS,		/* block linear map under rodata=full with BBML2 (v6.18) */
	/* "arm64/mm: contpte-sized exec folios for 16K and 64K pages" (Usama Arif, v1, 2026) */
	PTSIM_FEAT_EXEC_CONTPTE_ORDER,		/* 1/4: exec_folio_order = ilog2(CONT_PTES) */
	PTSIM_FEAT_EXEC_MMAP_MISS_BYPASS,	/* 2/4: VM_EXEC readahead bypasses mmap_miss */
	PTSIM_FEAT_ELF_CONTPTE_ALIGN,		/* 3/4: ET_DYN load_bias aligned for large segments */
	PTSIM_FEAT_UNMAPPED_AREA_CONTPTE,	/* 4/4: thp_get_unmapped_area falls back to the exec order */
	/*
	 * Behaviour switch, never set by presets: mmap_miss decrements only on
	 * PG_readahead hits (the series text) instead of on every first-try hit
	 * (the code the spec read).
	 */
	PTSIM_FEAT_MMAP_MISS_RA_HITS_ONLY,
	/*
	 * Not a merged series but a behaviour switch: clear move_pages()'s err
	 * after a successful batch (off = the sticky -EAGAIN of the merged code).
	 * Never set by presets.
	 */
	PTSIM_FEAT_UFFD_MOVE_ERR_RESET,
	/*
	 * The v6.9 PTE-batching series under contpte (doc/mm-lifecycle.md). They
	 * predate the series above, so "baseline" has them; presets "v6.6" and
	 * "v6.8" have none of them, "v6.9-midpoint" only the two core-mm ones.
	 */
	PTSIM_FEAT_FORK_PTE_BATCHING,		/* "mm/memory: optimize fork() with PTE-mapped THP" */
	PTSIM_FEAT_ZAP_PTE_BATCHING,		/* "mm/memory: optimize unmap/zap with PTE-mapped THP" */
	PTSIM_FEAT_CONTPTE_WRPROTECT_HELPER,	/* arm64 wrprotect_ptes() batch API */
	PTSIM_FEAT_CONTPTE_CLEAR_HELPERS,	/* arm64 [get_and_]clear_full_ptes() batch APIs */
	PTSIM_FEAT_PTE_BATCH_HINT,		/* pte_batch_hint(): skip the rest of a cont block */
	PTSIM_FEAT_CONTPTE_AUTOFOLD,		/* "arm64/mm: automatically fold contpte mappings" */
	PTSIM_FEAT_MADV_FREE_PTE_BATCHING,	/* "mm/madvise: optimize lazyfreeing with mTHP" (v6.10) */
	PTSIM_FEAT_CONTPTE_CLEAR_YOUNG_DIRTY,	/* arm64 clear_young_dirty_ptes() override (v6.10) */
	PTSIM_FEAT_MREMAP_PTE_BATCHING,		/* "Optimize mremap() for large folios" (v6.17) */
	PTSIM_FEAT_MREMAP_BATCH_RESPECT_WRITE,	/* "mm/mremap: honour writable bit ..." (v6.18) */
	PTSIM_FEAT_FINISH_FAULT_WHOLE_FOLIO,	/* "mm/fault: try to map the entire file folio ..." (v6.18) */
	PTSIM_FEAT_FAULTAROUND_WHOLE_FOLIO,	/* "mm/filemap: map entire large folio faultaround" (v6.18) */
	PTSIM_FEAT_ARM64_PTE_NEEDS_FLUSH,	/* "arm64/mm: Elide TLB flush in certain pte ..." (v6.19) */
	/* "arm64: mm: Handle invalid large leaf mappings correctly" (2026) */
	PTSIM_FEAT_LINEAR_MAP_INVALID_LEAF_FIX,
	/*
	 * "mm: support batched unmap for lazyfree large folios during
	 * reclamation" (v6.15), in the form of its v6.16 fix (also in 6.15.y)
	 */
	PTSIM_FEAT_LAZYFREE_UNMAP_BATCHING,
	/*
	 * CONFIG_ARM64_CONTPTE (v6.9, "arm64/mm: wire up PTE_CONT for user
	 * mappings"): the contpte layer between core mm and the arm64 PTE
	 * helpers. Off: the kernel built without it, or before it (v6.8):
	 * ptep_get, set_ptes, ... are the plain __ptep_get, __set_ptes, ...;
	 * no user PTE is ever contiguous, nothing folds, unfolds or gathers, and
	 * the contpte_* features and pte_batch_hint do nothing. The kernel
	 * linear map keeps its contiguous entries. Switching it off fails with
	 * -EBUSY while a user mm of the machine maps a contiguous entry.
	 */
	PTSIM_FEAT_ARM64_CONTPTE,
	/*
	 * "mm: track mapcount of large folios in single value" (v6.11): every
	 * rmap change of a large folio also updates folio->_large_mapcount.
	 */
	PTSIM_FEAT_LARGE_MAPCOUNT,
	/*
	 * "mm/rmap: basic MM owner tracking for large folios (!hugetlb)" (v6.15;
	 * CONFIG_MM_ID, selected by CONFIG_TRANSPARENT_HUGEPAGE): that update
	 * runs under the folio's large-mapcount bit lock and keeps two per-MM
	 * mapcount slots. The per-page mapcounts stay: the model follows the
	 * default config (CONFIG_NO_PAGE_MAPCOUNT, EXPERIMENTAL, defaults off).
	 */
	PTSIM_FEAT_MM_ID_MAPCOUNT,
	/*
	 * "mm/rmap: do not add fully unmapped large folio to deferred split
	 * list" (v6.10): only a partly mapped anonymous large folio is queued
	 * for a deferred split; before it every unmap that left a page of one
	 * unmapped called deferred_split_folio, and the first queued it.
	 */
	PTSIM_FEAT_DEFERRED_SPLIT_PARTIAL,
	/*
	 * "userfaultfd: use per-vma locks in userfaultfd operations" (v6.9):
	 * UFFDIO_MOVE finds dst then src by uffd_move_lock, a missing VMA is
	 * -ENOENT (-EINVAL before).
	 */
	PTSIM_FEAT_UFFD_PER_VMA_LOCK,
	/*
	 * "mm: Copy-on-Write (COW) reuse support for PTE-mapped THP" (v6.15): a
	 * write fault may reuse a page of a large anonymous folio mapped only
	 * by this mm, more than one page of it mapped, no pin (off: copied).
	 */
	PTSIM_FEAT_WP_REUSE_LARGE_ANON_FOLIO,
	/*
	 * "mm: folio_pte_batch() improvements" (D. Hildenbrand, v6.17):
	 * folio_pte_batch() becomes an out-of-line function in mm/util.c
	 * around the inline folio_pte_batch_flags(), and the callers that
	 * pass no flags (zap, mlock, lazyfree unmap, mremap before its v6.18
	 * fix) call it: one call per batch (before: inline, no call).
	 */
	PTSIM_FEAT_FOLIO_PTE_BATCH_CALL,
	/*
	 * "mm/madvise: don't perform madvise VMA walk for
	 * MADV_POPULATE_(READ|WRITE)" (D. Hildenbrand, v6.10): madvise_populate
	 * runs over the whole range and stops with -ENOMEM at the first hole
	 * (off: madvise_walk_vmas skips holes, populates every VMA, then
	 * returns -ENOMEM).
	 */
	PTSIM_FEAT_MADV_POPULATE_NO_VMA_WALK,
	/*
	 * "mm: thp: split huge page to any lower order pages" and "mm:
	 * huge_memory: enable debugfs to split huge pages to any order" (Zi Yan,
	 * v6.10): split_huge_page_to_list_to_order splits a THP to any lower
	 * order but 1 for anonymous memory (off: to order 0 only).
	 */
	PTSIM_FEAT_SPLIT_TO_ORDER,
	/*
	 * "mm/mremap: permit mremap() move of multiple VMAs" (L. Stoakes, v6.17,
	 * with its fix "mm/mremap: catch invalid multi VMA moves earlier"): a
	 * move that keeps the size (MREMAP_FIXED, old_len == new_len) may span
	 * several VMAs and the holes between them (remap_move): VMA by VMA, the
	 * gaps kept. A uffd-armed VMA cannot take part (vma_multi_allowed):
	 * first of several, -EFAULT and nothing moves; a later one, -EFAULT
	 * after the VMAs before it moved. Off: such a move is -EFAULT.
	 */
	PTSIM_FEAT_MREMAP_MULTI_VMA,
	PTSIM_FEAT_ZAP_SKIP_NONE_PTES,	/* "mm: zap_pte_range: skip all consecutive none ptes" (v6.14) */
	/*
	 * "arm64/mm: Add uffd write-protect support" (Ryan Roberts, 5b32510af77b,
	 * v6.10): arm64 selects HAVE_ARCH_USERFAULTFD_WP, so UFFDIO_REGISTER_MODE_WP,
	 * UFFD_FEATURE_WP_ASYNC / _WP_UNPOPULATED and UFFDIO_WRITEPROTECT work
	 * (doc/uffd-wp.md). Off: the mode and the features are -EINVAL.
	 */
	PTSIM_FEAT_UFFD_WP,
	/*
	 * "fs/proc/task_mmu: implement IOCTL to get and optionally clear info
	 * about PTEs" (M. U. Anjum, v6.7): the PAGEMAP_SCAN ioctl of
	 * /proc/PID/pagemap. Off (v6.6): the ioctl is -ENOTTY.
	 */
	PTSIM_FEAT_PAGEMAP_SCAN,
	/*
	 * "mm/rmap: minimize folio->_nr_pages_mapped updates when batching PTE
	 * (un)mapping" (D. Hildenbrand, posted 2024-08-07,
	 * 20240807115515.1640951-1-david@redhat.com, v6.12): a batch of a large
	 * folio's entries updates _nr_pages_mapped with one atomic. Off (v6.9 to
	 * v6.11): one atomic per page that became mapped or unmapped.
	 */
	PTSIM_FEAT_NR_PAGES_MAPPED_BATCH,
	/*
	 * "mm: folio_may_be_lru_cached() unless folio_test_large()" (H. Dickins,
	 * mm-hotfixes of September 2025, v6.17 by its date; backported to the
	 * stable 6.12.y and later): a large folio is not held in a per-CPU LRU
	 * batch but moved at once. Off: it waits in the batch as an order-0
	 * folio does. Since 0.3.
	 */
	PTSIM_FEAT_LRU_CACHE_SMALL_ONLY,
	/*
	 * "mm: huge_memory: batch tlb flush when splitting a pte-mapped THP"
	 * (3027c6f8eb9d, B. Wang, v6.8): unmap_folio passes TTU_BATCH_FLUSH, so
	 * a split clears each PTE with its TLBI deferred and completes them all
	 * with one DSB (try_to_unmap_flush). Off: ptep_clear_flush per page, a
	 * TLBI and a DSB each. Since 0.3.
	 */
	PTSIM_FEAT_SPLIT_BATCH_FLUSH,
	/*
	 * "mm: remap unused subpages to shared zeropage when splitting isolated
	 * thp" (b1f202060afe, Y. Zhao and U. Arif, v6.12): remap_page asks of
	 * each page of an anonymous folio split to order 0 whether it holds
	 * only zeros (pages_identical) before it maps the page again. The model
	 * holds no page contents: every page is taken to hold data, so the
	 * check costs its call and maps nothing to the zero page. Since 0.3.
	 */
	PTSIM_FEAT_SPLIT_ZEROPAGE_REMAP,
	/*
	 * "mm: allow non-hugetlb large folios to be batch processed"
	 * (f77171d241e3, M. Wilcox, v6.9; the series "Rearrange batched folio
	 * freeing", 99fbb6bfc16f .. 4907e80b76af): a large folio that loses its
	 * last reference in a batch (the gather's folios_put_refs, reclaim's
	 * free_folios) is freed with the batch: one lruvec lock, one
	 * uncharge_batch, free_unref_folios, PAGEVEC_SIZE folios at a time.
	 * Off (v6.8 and before): release_pages takes a gather batch at a time
	 * (up to 512 entries) and frees each large folio alone
	 * (__folio_put_large: its own lruvec lock, then destroy_large_folio:
	 * mem_cgroup_uncharge, free_unref_page), the order-0 ones together
	 * (mem_cgroup_uncharge_list, free_unref_page_list); shrink_folio_list
	 * frees its large folios alone too and the others once, at its end.
	 * Since 0.3.
	 */
	PTSIM_FEAT_LARGE_FOLIO_BATCH_FREE,
	/*
	 * "mm: madvise: pageout: ignore references rather than clearing young"
	 * (2864f3d0f583, B. Song, v6.9): MADV_PAGEOUT leaves the entries' AF
	 * alone and reclaim_pages skips the reference check. Off (v6.8 and
	 * before): the walk clears a young entry's AF first (as MADV_COLD
	 * does; a PMD leaf through pmdp_invalidate), then shrink_folio_list's
	 * folio_check_references runs folio_referenced, an rmap walk that
	 * clears each mapping entry's AF again (a compare-and-swap each). Since 0.3.
	 */
	PTSIM_FEAT_PAGEOUT_IGNORE_REFERENCES,
	/*
	 * The "mm: PCP high auto-tuning" series (H. Ying, v6.7; 51a755c56dc0
	 * "mm: tune PCP high automatically"): the per-CPU page lists' drain
	 * mark floats between a low-watermark share and an eighth of the zone
	 * per CPU, refills grow while a CPU only allocates (alloc_factor) and
	 * drains follow the pages freed in a row (free_count). Off (v6.6): a
	 * fixed mark, refills of one batch, drains doubled while only freeing
	 * (free_factor). Since 0.3.
	 */
	PTSIM_FEAT_PCP_HIGH_AUTO,
	/*
	 * "mm: store zero pages to be swapped out in a bitmap" (U. Arif, v6.12,
	 * 0ca0c24e3211): swap_writepage checks the folio for zeros first; a
	 * zero-filled one is marked in the swap device's zeromap, a bit per
	 * page, and not written; any other clears its pages' bits. Off: every
	 * folio is written. Since 0.3.
	 */
	PTSIM_FEAT_SWAP_ZEROMAP,
	/*
	 * "Optimize anonymous large folio unmapping" (D. Jain, v4 of 26 May
	 * 2026, posted, not merged): reclaim's try_to_unmap_one clears a
	 * swap-backed anonymous large folio's entries in one batch, as the
	 * lazyfree ones (no contpte unfold, one deferred range flush), and per
	 * run of pages of equal PageAnonExclusive duplicates their swap slots
	 * at once, clears the runs' exclusive marks and writes their swap
	 * entries; the mm's counters and references move once per batch. Off:
	 * one entry at a time. Since 0.3.
	 */
	PTSIM_FEAT_ANON_UNMAP_BATCHING,
	PTSIM_FEAT__COUNT
};

/*
 * A kernel feature's name ("mprotect_pte_batching", ...) and back;
 * NULL / -EINVAL for unknown ones.
 */
PTSIM_API const char *ptsim_feature_name(enum ptsim_feature feat);
PTSIM_API int ptsim_feature_lookup(const char *name, enum ptsim_feature *out);

struct ptsim_machine_config {
	enum ptsim_granule granule;
	unsigned int va_bits;
	uint64_t phys_base;		/* granule aligned */
	uint64_t phys_size;		/* granule multiple */
	unsigned int nr_cpus;
	enum ptsim_cpu cpu;
	bool kpti;			/* arm64_kernel_unmapped_at_el0(): every user TLBI twice */
	bool repeat_tlbi;		/* ARM64_WORKAROUND_REPEAT_TLBI: TLBI; DSB ISH; TLBI */
	const char *preset;		/* a preset of ptsim_feature_preset; NULL: "baseline" */
	/*
	 * Host memory the model may spend, as ptsim_machine_host_bytes counts
	 * it, in bytes; 0: no limit. What grows with the simulated memory in use
	 * (table pages; folio records, 12 bytes per page frame, charged per
	 * chunk of host pages of records in use (three 4 KiB pages); an operation's undo log and pending faults
	 * while it runs) is refused past it: the call fails with -ENOMEM and
	 * changes nothing. The machine's fixed part is charged at creation.
	 */
	uint64_t host_memory_limit;
	/*
	 * The CPU's break-before-make support, overridden to check a sequence
	 * at every level (the raw API, doc/raw-sequences.md): bbm_level 0 keeps
	 * the CPU description's ID_AA64MMFR2_EL1.BBM, 1..3 make it level 0..2;
	 * bbml2_noabort 0 keeps the CPU's place on Linux's BBML2-noabort
	 * allow-list, 1 takes it off, 2 puts it on. Other values: -EINVAL.
	 */
	uint32_t bbm_level;
	uint32_t bbml2_noabort;
	/* Room for later fields: must be zero (ptsim_machine_config_init sees to it). */
	uint64_t reserved[7];
};

/* Defaults: 4K, 48-bit VA, 4 GiB at 0x80000000, 1 CPU, Apple M3, baseline, no host limit. */
PTSIM_API void ptsim_machine_config_init(struct ptsim_machine_config *cfg);

/*
 * A new machine for cfg in *out. phys_size must be at least one PMD (2 MiB
 * with 4K pages), phys_base and phys_size multiples of the granule, the
 * physical range below 2^48, nr_cpus 1..256. -EINVAL for a bad config,
 * -ENOMEM when host memory runs out. The caller owns the machine and frees it
 * with ptsim_machine_destroy.
 */
PTSIM_API int ptsim_machine_create(const struct ptsim_machine_config *cfg,
				   struct ptsim_machine **out);
/*
 * Free m and everything in it: every mm created on it (their pointers become
 * invalid), files, folios and tables. NULL is ignored; from a diagnostic
 * handler the call does nothing.
 */
PTSIM_API void ptsim_machine_destroy(struct ptsim_machine *m);
/*
 * Host bytes the machine holds (see host_memory_limit): table pages, folio
 * records, the machine and its TLB arrays, the undo log, the page
 * allocator's lists, the VMA arrays; within a few per cent of the resident
 * memory the machine adds to the process.
 */
PTSIM_API int ptsim_machine_host_bytes(const struct ptsim_machine *m, uint64_t *out);
/*
 * Give back to the host what destroyed machines left for the next ones: a
 * destroyed machine's data-cache tag arrays are kept (up to 64 MiB of them)
 * for the next machine of the same CPU, so that a process making many
 * machines does not map and fault them in again, as malloc keeps freed
 * memory. Returns the bytes of mappings released. No machine is touched;
 * callable from any thread. Since 0.3.
 */
PTSIM_API uint64_t ptsim_host_memory_trim(void);

/*
 * Where the page allocator takes page frames from (the machine's state
 * before a workload; doc/workloads.md §uffd, "The machine before the moves",
 * is a replay that sets it).
 */
enum ptsim_phys_order {
	/*
	 * Freshly booted: blocks are carved from the top of the unused memory
	 * and split in halves, so consecutive order-0 allocations get
	 * neighbouring page frames (and neighbouring struct pages). The default.
	 */
	PTSIM_PHYS_SEQUENTIAL,
	/*
	 * After uptime: the order-0 free list holds scattered page frames.
	 * When it runs dry, the largest free block is broken into single pages
	 * put on the list in a random order (the machine's generator, seeded
	 * by ptsim_machine_set_phys_order), so consecutive order-0 allocations
	 * land on unrelated page frames of that block (4 MiB of 4K pages); a
	 * freed page merges with free buddies as the buddy allocator's
	 * __free_one_page does. Larger folios are still naturally aligned
	 * blocks.
	 */
	PTSIM_PHYS_FRAGMENTED,
	/*
	 * A boot with page_alloc.shuffle=1 (CONFIG_SHUFFLE_PAGE_ALLOCATOR):
	 * shuffle_zone (mm/shuffle.c) put the free max-order blocks (4 MiB of
	 * 4K pages: SHUFFLE_ORDER is MAX_PAGE_ORDER) in a random order, so the
	 * memory not yet handed out comes in such blocks in a random order,
	 * each split in halves as a fresh machine's are; a freed max-order
	 * block goes to either end of its free list at random
	 * (shuffle_pick_tail). The shuffle is made when this order is set,
	 * over the memory never handed out, and holds until those blocks are
	 * all handed out, whatever order is set later. Since 0.3.
	 */
	PTSIM_PHYS_SHUFFLED,
};

/*
 * The order page frames are handed out in from now on (what is allocated
 * stays where it is), with seed for PTSIM_PHYS_FRAGMENTED's and
 * PTSIM_PHYS_SHUFFLED's order (any value; the same seed gives the same
 * frames). 0, or -EINVAL for a NULL
 * machine or an unknown order, -EBUSY from a diagnostic handler (nothing
 * changes either way).
 */
PTSIM_API int ptsim_machine_set_phys_order(struct ptsim_machine *m, enum ptsim_phys_order order,
					   uint64_t seed);
/*
 * What the data-cache model holds when a public operation starts: the
 * machine's state between calls, that is what else the process and the
 * kernel touched in between (doc/cpu-profiles.md §11.9).
 */
enum ptsim_cache_state {
	/* The caches keep what the earlier operations left in them. The default. */
	PTSIM_CACHES_WARM,
	/*
	 * Each public operation starts with every level of the data caches
	 * empty and the prefetchers untrained, as after other work evicted
	 * all the kernel had touched: each descriptor, struct page and kernel
	 * object line an operation reads comes from memory the first time.
	 */
	PTSIM_CACHES_COLD,
};

/*
 * The caches' state at the start of each public operation from now on.
 * 0, or -EINVAL for a NULL machine or an unknown state, -EBUSY from a
 * diagnostic handler (nothing changes either way). Since 0.3.
 */
PTSIM_API int ptsim_machine_set_caches(struct ptsim_machine *m, enum ptsim_cache_state state);

/* Deep copy: memory, folios, every mm and its tables, features, totals. */
PTSIM_API int ptsim_machine_clone(const struct ptsim_machine *m, struct ptsim_machine **out);
/* The granule geometry of m: page size, levels, block and contiguous sizes. */
PTSIM_API int ptsim_machine_geometry(const struct ptsim_machine *m, struct ptsim_geometry *out);

/*
 * Switch one kernel feature of m on or off, read it, or apply a preset.
 * Presets: "baseline" (v6.16: the kernel before the series the reproduce rows
 * measure), "patched" (every modelled change), a release "v6.6", "v6.8" ...
 * "v6.19" (every merged feature up to it; "v6.6" and "v6.8" have no contpte,
 * CONFIG_ARM64_CONTPTE came with v6.9), and "v6.9-midpoint" (v6.9's core-mm
 * fork and zap batching over the plain arm64 PTE helpers: v6.9 built with
 * CONFIG_ARM64_CONTPTE=n, as the v6.9 merge window was after the core-mm
 * batching and before contpte was wired up). Behaviour switches are never set
 * by a preset. -EINVAL for another name. Features are machine-wide, as a
 * kernel's are. -EBUSY, and nothing changes, when the switch or the preset
 * would turn "arm64_contpte" off while a user mm of m maps a contiguous entry.
 */
PTSIM_API int ptsim_feature_set(struct ptsim_machine *m, enum ptsim_feature feat, bool on);
PTSIM_API int ptsim_feature_get(const struct ptsim_machine *m, enum ptsim_feature feat,
				bool *on);
PTSIM_API int ptsim_feature_preset(struct ptsim_machine *m, const char *preset);

/*
 * The presets, for listing them: the i-th preset's name (i from 0: "baseline",
 * "patched", "v6.6", ...), NULL for i past the last. Every name it returns is
 * one ptsim_feature_preset and ptsim_machine_config.preset accept.
 */
PTSIM_API const char *ptsim_preset_name(unsigned int i);

/* A posted series no release has: the release of "patched". */
#define PTSIM_RELEASE_UNMERGED 99990u

/*
 * The kernel release whose merged features preset turns on, in *out as
 * major * 1000 + minor * 10 (v6.17: 6170; "baseline": 6160), 6085 for
 * "v6.9-midpoint" (part way through the v6.9 merge window) and
 * PTSIM_RELEASE_UNMERGED for "patched". -EINVAL for another name or NULL.
 */
PTSIM_API int ptsim_preset_release(const char *preset, unsigned int *out);

/*
 * The folio orders anonymous faults may use (the transparent_hugepage
 * "hugepages-<size>/enabled" knobs): bit n allows order n; orders below the
 * PMD order are mTHP (do_anonymous_page maps the highest that fits and is
 * empty, with one set_ptes), the PMD order a PMD THP. 0 (the default): every
 * fault maps one page. Bits at or above PTSIM's PMD order + 1 are -EINVAL.
 */
PTSIM_API int ptsim_set_thp_orders(struct ptsim_machine *m, uint64_t orders);

/* Counts of the last public operation, and totals since creation. */
PTSIM_API int ptsim_last_stats(const struct ptsim_machine *m, struct ptsim_stats *out);
PTSIM_API int ptsim_total_stats(const struct ptsim_machine *m, struct ptsim_stats *out);

/*
 * Fault injection: make the n-th allocation (page-table page or folio) from
 * now fail with -ENOMEM; n = 0 turns it off. Used by tests and the fuzzer.
 */
PTSIM_API int ptsim_fail_nth_alloc(struct ptsim_machine *m, uint64_t n);
/* Allocations made since creation (for sweeping fault injection). */
PTSIM_API int ptsim_alloc_count(const struct ptsim_machine *m, uint64_t *out);

/*
 * Physical memory still free, in bytes: the buddy allocator's and this
 * CPU's per-CPU page lists' (pages a free put there and no allocation took
 * yet).
 */
PTSIM_API int ptsim_phys_free_bytes(const struct ptsim_machine *m, uint64_t *out);

#ifdef __cplusplus
}
#endif

#endif
