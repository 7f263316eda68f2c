/* SPDX-License-Identifier: MIT */
/*
 * The core: the model's data (machine, physical memory, folio records, tables,
 * VMAs, files: DESIGN principle 1, the model is data) and the simulator's own
 * machinery (counting, attribution, diagnostics, allocation with fault
 * injection and undo). Every layer includes it; it includes no layer above.
 * The mm layer's functions are declared in src/mm/internal.h. Not installed.
 */
#ifndef PTSIM_CORE_H
#define PTSIM_CORE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ptsim/ptsim.h>
#include "u64map.h"
#include "page_pool.h"

typedef uint64_t pte_t;	/* one descriptor, at any level */

/*
 * Translation-table levels as the Arm ARM numbers them: the last level (PTE)
 * is 3; a 4K or 16K granule at 52 bits has a level -1 above P4D.
 */
#define PTE_LEVEL	3
#define PMD_LEVEL	2
#define PUD_LEVEL	1
#define P4D_LEVEL	0

#define ALIGN_DOWN64(x, a)	((x) & ~((uint64_t)(a) - 1))
#define ALIGN_UP64(x, a)	(((x) + (uint64_t)(a) - 1) & ~((uint64_t)(a) - 1))
#define IS_ALIGNED64(x, a)	(((x) & ((uint64_t)(a) - 1)) == 0)
/*
 * The invariant checker's table scans: no libFuzzer comparison tracing
 * (-Dfuzz=enabled). The fuzz harness checks every table after every call, and
 * the tracing of those scans made inputs take seconds; their comparisons steer
 * nothing the fuzzer could use.
 */
#if defined(__clang__)
#define NO_FUZZ_TRACE __attribute__((no_sanitize("coverage")))
#else
#define NO_FUZZ_TRACE
#endif
#define MIN(a, b)		((a) < (b) ? (a) : (b))
#define MAX(a, b)		((a) > (b) ? (a) : (b))

/* ---- CPU description (arch/arm64/hw/cpus.c) ---- */
struct tlb_geometry {
	unsigned int entries;
	unsigned int ways;	/* entries == ways: fully associative */
};

/* One data-cache level: its size and associativity (64-byte lines). */
struct dcache_geometry {
	unsigned int kib;
	unsigned int ways;
};

struct cpu_desc {
	enum ptsim_cpu id;
	const char *name;
	const char *model;	/* what the profile stands for */
	double freq_ghz;
	struct tlb_geometry l1d, l1i, l2;
	/* the data caches the core sees: L1D, its L2, the last-level cache (arch/arm64/hw/dcache.c) */
	struct dcache_geometry dl1, dl2, llc;
	const char *cache_source;
	bool coalesce_cont;	/* a contiguous run or block is cached as one entry */
	const char *source;	/* where the description comes from */
	bool tlbirange;		/* FEAT_TLBIRANGE */
	bool bbml2_noabort;	/* on Linux's BBML2-noabort allow-list */
	unsigned int bbm_level;	/* ID_AA64MMFR2_EL1.BBM */
	bool hafdbs;		/* hardware AF and dirty management */
	unsigned int asid_bits;
};

const struct cpu_desc *cpu_desc_get(enum ptsim_cpu id);

/*
 * What-if prices for ptsim-bench (arch/arm64/hw/costs.c): every event of
 * cost class klass on cpu costs factor times its profile price until
 * cost_class_scale_reset(). ptsim-bench fit solves the fitted constants
 * with it and reproduce --detail moves each price by its uncertainty. Not
 * exported, not thread-safe; -EINVAL for an unknown CPU or class or a
 * factor that is not finite and positive.
 */
int cost_class_scale(enum ptsim_cpu cpu, const char *klass, double factor);
void cost_class_scale_reset(void);

/* ---- physical memory: buddy allocator (src/mm/page_alloc.c) ---- */
/*
 * NR_PCP_LISTS (v6.12 include/linux/mmzone.h, with THP): a list per
 * migratetype the lists keep (unmovable, movable, reclaimable) and order up
 * to PAGE_ALLOC_COSTLY_ORDER, then one for the PMD order.
 */
#define PCP_LISTS	13

/* One per-CPU list: the head PFNs of its blocks, first to last (a ring). */
struct pcp_list {
	uint64_t *pfn;
	size_t cap, first, len;
};

/*
 * struct per_cpu_pages (v6.12 include/linux/mmzone.h) of this CPU for the
 * machine's one zone: the pages on the lists, the drain mark and its
 * bounds, the batch, the scaling factors, the consecutive-free count, and
 * the lists (order_to_pindex), each block on one by its head PFN.
 */
struct pcp_lists {
	int count;			/* pages on all the lists */
	int high, high_min, high_max;	/* v6.6: high_min == high_max == high */
	int batch;
	unsigned int alloc_factor;	/* v6.7 on: refills scale up while only allocating */
	unsigned int free_factor;	/* before v6.7: drains scale up while only freeing */
	int free_count;			/* v6.7 on: pages freed since allocations last halved it */
	bool prev_free_high_order;	/* PCPF_PREV_FREE_HIGH_ORDER */
	struct pcp_list lists[PCP_LISTS];
	unsigned int list_order[PCP_LISTS];	/* the order of each list's blocks */
};

struct physmem {
	uint64_t base_pfn;
	uint64_t nr_pages;
	unsigned int max_order;
	uint64_t carve_next;		/* PFNs from here to the end were never handed out */
	uint64_t nr_free;		/* pages free, carved or not */
	struct u64map free_heads;	/* head PFN of a free block -> its order */
	uint64_t *free_list[32];	/* stacks of head PFNs per order (entries may be stale) */
	size_t free_len[32], free_cap[32];
	uint64_t *host_bytes;		/* the machine's: charged the lists' and map's growth */
	bool fragmented;		/* PTSIM_PHYS_FRAGMENTED: order-0 pages from scattered frames */
	bool shuffled;			/* PTSIM_PHYS_SHUFFLED: a freed max-order block to either end */
	uint64_t rng;			/* its generator's state (prng.h) */
	/*
	 * PTSIM_PHYS_SHUFFLED's boot-time shuffle: the shuffle_nr max-order
	 * blocks from shuffle_first are carved in a random order (block
	 * shuffle_index(k) k-th), shuffle_taken of them so far
	 */
	uint64_t shuffle_first, shuffle_nr, shuffle_taken, shuffle_key;
	/* this CPU's per-CPU lists (src/mm/pcp.c): pages free to the zone, not to the buddy */
	struct pcp_lists pcp;
};

/* The per-CPU LRU folio batches the model keeps (mm/swap.c's cpu_fbatches). */
enum lru_batch {
	LRU_BATCH_ADD,		/* lru_add: folios new to the LRU (faults, putbacks) */
	LRU_BATCH_LAZYFREE,	/* lru_lazyfree: folios MADV_FREE made lazily freeable */
	LRU_BATCHES
};

#define PAGEVEC_SIZE 31		/* include/linux/pagevec.h: a folio_batch's capacity */
/* marks a batch entry's PFN as a large folio's (PFNs stay far below bit 63) */
#define LRU_BATCH_LARGE (UINT64_C(1) << 63)

/* ---- folios (src/mm/folio.c), stored sparsely by section ---- */
enum folio_flags {
	FOLIO_ANON = 1u << 0,
	FOLIO_LOCKED = 1u << 1,
	FOLIO_UPTODATE = 1u << 2,
	FOLIO_READAHEAD = 1u << 3,
	FOLIO_WORKINGSET = 1u << 4,
	FOLIO_MLOCKED = 1u << 5,
	FOLIO_LAZYFREE = 1u << 6,	/* MADV_FREE'd anonymous memory: PG_swapbacked clear */
	FOLIO_DEFERRED_SPLIT = 1u << 7,	/* on its node's deferred split queue (_deferred_list) */
	/*
	 * An anonymous folio in the swap cache (PG_swapcache). It shares its
	 * bit with FOLIO_READAHEAD, which only page-cache folios carry, as the
	 * kernel's PG_swapcache shares PG_owner_priv_1: test it with
	 * folio_test_swapcache.
	 */
	FOLIO_SWAPCACHE = FOLIO_READAHEAD,
};

/*
 * One 12-byte record per page frame, as struct page in the kernel's vmemmap:
 * an order-0 folio is its page's record; a large folio is its head page's
 * record, and each tail page's record says how far back its head is. What
 * only a few folios need (lock contention, GUP references, the mapcount of
 * an order-0 folio mapped more than FOLIO_MAPCOUNT_INLINE_MAX times or
 * below zero) lives in side maps. Read and change a mapcount with
 * folio_mapcount / folio_mapcount_set / folio_mapcount_add
 * (src/mm/internal.h), never through the fields.
 */
#define FOLIO_MAPCOUNT_INLINE_MAX 30u
#define FOLIO_MAPCOUNT_WIDE (FOLIO_MAPCOUNT_INLINE_MAX + 1)	/* mapcount_small: see the side map */
#define FOLIO_MAX_ORDER 15u	/* order's width; MAX_PAGE_ORDER is at most 13 (64K granule) */
struct folio {
	uint64_t index : 40;	/* page offset in mapping; a tail's: pages back to its head */
	uint64_t order : 4;
	uint64_t flags : 8;	/* enum folio_flags */
	uint64_t live : 1;	/* allocated (a head or a tail) */
	uint64_t tail : 1;
	uint64_t anon_exclusive : 1;	/* this page's PageAnonExclusive */
	uint64_t pinned : 1;	/* folio_maybe_dma_pinned */
	uint64_t contended : 1;	/* has an entry in the lock-contention map */
	uint64_t inv_mismatch : 1;	/* the invariant checker's mark */
	uint64_t gup_refs : 1;	/* has an entry in the GUP map: pins or FOLL_GET references */
	/* an order-0 folio's mapcount (PTE + PMD mappings), or FOLIO_MAPCOUNT_WIDE (a large folio's too) */
	uint64_t mapcount_small : 5;
	/*
	 * anon_vma id or FILE_MAPPING(file); 0 = none. In a large folio's first
	 * tail: the folio's mapcount as an int32_t (PTE + PMD mappings), where
	 * the kernel keeps _large_mapcount (v6.11+, in page[1] of the folio)
	 */
	uint32_t mapping;
} __attribute__((packed, aligned(4)));

/* anon_vma ids (and file numbers) must fit folio->mapping beside the file tag */
#define ANON_VMA_MAX ((UINT64_C(1) << 31) - 1)

/*
 * The records of every page frame: one host mapping reserved up front and
 * filled on first touch. Host memory is charged (and given back) per host
 * page of records, as the live records in it come and go.
 */
struct folio_store {
	uint64_t base_pfn;
	uint64_t nr_pages;
	struct folio *map;		/* record of page frame base_pfn + i */
	size_t map_bytes;
	size_t chunk_records;		/* records per host page */
	uint32_t *chunk_live;		/* live records per host page of records */
	uint64_t nr_folios;
	struct u64map lock_contention;	/* head PFN -> trylocks that will still fail */
	struct u64map gup;		/* head PFN -> FOLL_PIN pins << 32 | FOLL_GET references */
	struct u64map mapcount;		/* PFN of an order-0 folio -> its mapcount (as uint32_t) */
	/* head PFN -> 1: an anonymous folio whose pages hold only zeros (src/mm/user_data.c) */
	struct u64map zero_filled;
};

/* ---- page tables (src/mm/pgtable-generic.c) ---- */
struct pt_table {
	pte_t *desc;			/* the table page: hardware layout */
	struct pt_table **next;		/* child table per entry (not at level 3) */
	uint64_t pfn;			/* where the table page lives */
	int level;
	unsigned int entries;
};

/* ---- VMAs (src/mm/mm.c) ---- */
#define VM_READ		0x1u
#define VM_WRITE	0x2u
#define VM_EXEC		0x4u
#define VM_SHARED	0x8u
#define VM_MAYREAD	0x10u
#define VM_MAYWRITE	0x20u
#define VM_MAYEXEC	0x40u
#define VM_ANON		0x100u	/* model flag: anonymous mapping */
#define VM_SEQ_READ	0x200u
#define VM_RAND_READ	0x400u
#define VM_HUGEPAGE	0x800u
#define VM_NOHUGEPAGE	0x1000u
#define VM_DONTCOPY	0x2000u	/* MADV_DONTFORK: fork skips the VMA */
#define VM_WIPEONFORK	0x4000u	/* MADV_WIPEONFORK: the child gets it empty */
#define VM_LOCKED	0x8000u
#define VM_LOCKONFAULT	0x10000u	/* mlock2(MLOCK_ONFAULT): lock pages as they fault */
#define VM_LOCKED_MASK	(VM_LOCKED | VM_LOCKONFAULT)
/* The uffd context features a VMA's registration carries (fs/userfaultfd.c ctx->features) */
#define UFFD_CTX_WP_UNPOPULATED	0x1u	/* UFFD_FEATURE_WP_UNPOPULATED */
#define UFFD_CTX_WP_ASYNC	0x2u	/* UFFD_FEATURE_WP_ASYNC */
#define UFFD_CTX_WP_HUGETLBFS_SHMEM	0x4u	/* UFFD_FEATURE_WP_HUGETLBFS_SHMEM */
/* mmap_min_addr: CONFIG_DEFAULT_MMAP_MIN_ADDR's default; a fixed mapping below it is -EPERM */
#define DEFAULT_MMAP_MIN_ADDR	UINT64_C(4096)

/* ---- files and the page cache (src/mm/filemap.c) ---- */
struct file_ra_state {
	uint64_t start, size, async_size;	/* pages */
	unsigned int ra_pages, order, mmap_miss;
};

struct file_obj {
	uint64_t size;			/* bytes */
	unsigned int max_order;		/* mapping_max_folio_order */
	struct u64map cache;		/* page index -> head PFN of the folio holding it */
	/*
	 * A shmem object (shmem_zero_setup for MAP_SHARED|MAP_ANONYMOUS), not a
	 * file the user made: refs counts the VMAs, in every mm, that map it
	 * (vm_file's references); the last one to go frees its pages and
	 * leaves the slot dead, for the next object to take.
	 */
	bool shmem, dead;
	uint64_t refs;
};

struct open_file {
	unsigned int file;
	struct file_ra_state ra;	/* f_ra: one per open file description */
};

struct vma {
	uint64_t start, end;
	unsigned int flags;
	pte_t page_prot;	/* vm_page_prot */
	uint64_t anon_vma;	/* id, 0 until the first anonymous fault */
	uint64_t pgoff;
	bool uffd;		/* registered with the mm's userfaultfd context */
	bool uffd_wp;		/* VM_UFFD_WP: registered in UFFDIO_REGISTER_MODE_WP */
	bool uffd_missing;	/* VM_UFFD_MISSING: registered in UFFDIO_REGISTER_MODE_MISSING */
	/* the registering context's UFFD_FEATURE_WP_* (UFFD_CTX_*): userfaultfd_wp_async etc. */
	uint8_t uffd_features;
	int fd;			/* open file of a file mapping, -1 for anonymous */
	uint32_t shmem;		/* shared anonymous: its shmem object's file number + 1; 0 = none */
	uint32_t avc;		/* anon_vma_chain entries (1 once prepared; a fork's child has more) */
	uint64_t vm_lock_seq;	/* the mm_lock_seq of the mmap_lock hold that write-locked it; 0 never */
	uint32_t obj;		/* its vm_area_struct's slab id (src/primitives/kobj.h); 0 until inserted */
};

struct ptsim_mm {
	struct ptsim_machine *m;
	bool owns_machine;	/* made by ptsim_mm_clone */
	bool kernel;		/* init_mm-like: not a user mm for contpte */
	/*
	 * A bare address space of the raw architectural API (src/core/raw.c):
	 * tables and an ASID, never a VMA or a folio; its leaves are not folio
	 * mappings, so the invariant checker counts none of them.
	 */
	bool raw;
	unsigned int asid;
	unsigned int users;		/* mm_users: the threads sharing the mm */
	uint64_t asid_generation;	/* the allocator generation asid belongs to */
	struct pt_table *pgd;
	struct vma *vmas;	/* sorted by start, non-overlapping */
	size_t nr_vmas, cap_vmas;
	uint64_t pgtable_bytes;
	bool tlb_flush_pending;	/* inc_tlb_flush_pending by tlb_gather_mmu */
	bool uffd_mmap_changing;	/* userfaultfd ctx->mmap_changing */
	/* a hole part-way: change what precedes it, then -ENOMEM (ptsim_mm_set_kernel_errors) */
	bool kernel_errors;
	uint64_t next_swap_offset;
	/*
	 * The swap offsets whose pages swap-out kept as zeromap bits (v6.12,
	 * "swap_zeromap"): a swap-in fills them with zeros and reads nothing.
	 * Offsets are never reused within an mm, so an entry outlives its slot
	 * harmlessly; fork copies the map with the entries.
	 */
	struct u64map zero_swap;
	/* mm->tlb_flush_batched: reclaim unmapped entries here with a deferred flush */
	bool tlb_flush_batched;
	struct kernel_map *kmap;	/* the kernel mm's linear-map state (arch/arm64/mm/mmu.c) */
	uint64_t aslr_state;		/* the mm's ASLR random stream (xorshift), 0 = off */
	uint64_t mmap_base;		/* top-down search start, 0 until first needed */
	/* [gapless_base, gapless_end) is covered by VMAs without a gap; 0: not known */
	uint64_t gapless_base, gapless_end;
	uint64_t mm_lock_seq;		/* one per mmap_write_lock hold (vma_start_write compares it) */
	bool booting;			/* table pages come from memblock */
	uint64_t boot_pgtable_bytes;
	/* mm->def_flags: VM_LOCKED / VM_LOCKONFAULT every new VMA gets (mlockall MCL_FUTURE) */
	unsigned int def_flags;
	uint32_t obj;			/* its mm_struct's slab id (src/primitives/kobj.h) */
};

struct kernel_map;
void kernel_map_free(struct kernel_map *k);
struct kernel_map *kernel_map_copy(const struct kernel_map *k);
/* Does a user mm of m map a valid contiguous PTE? (src/mm/mm.c; for the arm64_contpte switch) */
bool machine_maps_user_cont(const struct ptsim_machine *m);

/* ---- undo log: a failed public operation leaves the model unchanged ---- */
enum undo_kind { UNDO_TABLE, UNDO_FOLIO };

struct undo_entry {
	enum undo_kind kind;
	unsigned int parent_idx;	/* beside kind: 32 bytes an entry, not 40 */
	struct ptsim_mm *mm;
	void *ptr;		/* table or folio */
	struct pt_table *parent;
};

/* ---- diagnostics (src/core/diag.c) ---- */
struct diag_state {
	ptsim_diag_handler handler;
	void *arg;
	unsigned int in_handler;	/* the handler is running */
	uint64_t count[PTSIM_DIAG__COUNT];
};

struct tlbi_op;
struct tlb_model;

/*
 * One CPU's side of the break-before-make state: what waits for that CPU's
 * own DSB. Breaks it wrote that no DSB of it has made visible to table walks
 * yet (ranges of consecutive keys), and the keys its TLBIs covered.
 */
struct bbm_cpu {
	uint64_t *unseen_key;		/* first key of each range */
	uint32_t *unseen_nr;		/* keys in it */
	size_t nr_unseen, cap_unseen;
	uint64_t *pending;		/* keys whose TLBI waits for this CPU's completing DSB */
	size_t nr_pending, cap_pending;
};

/* Break-before-make state (arch/arm64/hw/bbm.c): entries written invalid and not yet flushed. */
struct bbm_state {
	struct u64map broken;		/* key (asid, level, VA) -> old descriptor, bit 0 = TLBI seen */
	uint64_t per_level[PTSIM_MAX_LEVELS];
	struct bbm_cpu *cpus;		/* one per CPU */
	unsigned int nr_cpus;
	uint64_t *host_bytes;		/* the machine's: charged the per-CPU arrays' growth */
	/* the store being checked: its old and new output addresses hold the same bytes (RWHZWS) */
	bool same_contents;
	/*
	 * The most recent breaks of consecutive entries, kept out of the map as
	 * a run: a batch cleared and then written back (get_and_clear_full_ptes,
	 * then set_ptes) never hashes. Entry i is key run_key0 + i, present when
	 * bit i of run_present is set (run_count of them). A TLBI or a break
	 * elsewhere spills it. 512: a PTE table's worth on 4K.
	 */
#define BBM_RUN 512
	unsigned int run_n, run_count;
	uint64_t run_key0;
	uint64_t run_present[BBM_RUN / 64];
	uint64_t run_val[BBM_RUN];	/* TLBI_SEEN once a TLBI covered it (a DSB drops it) */
};

/*
 * A kernel slab's ids for the data-cache model's synthetic addresses
 * (src/primitives/kobj.h): the next never-used one, and the last
 * KOBJ_SLAB_REUSE freed, reused last-freed-first.
 */
#define KOBJ_SLAB_REUSE 32
struct kobj_slab {
	uint32_t next, nr_free;
	uint32_t free[KOBJ_SLAB_REUSE];
};

#define MACHINE_MAX_CPUS	256	/* ptsim_machine_config.nr_cpus at most */

struct hw_as;

/* The words of op_touched: a bit per event the stats hold. */
#define OP_TOUCHED_WORDS (PTSIM_EV_CAPACITY / 64)

struct ptsim_machine {
	struct ptsim_machine_config cfg;
	struct ptsim_geometry geo;
	const struct cpu_desc *cpu;
	/* what cpu points at when the config overrides the BBM level or noabort */
	struct cpu_desc cpu_override;
	bool features[PTSIM_FEAT__COUNT];
	struct physmem phys;
	struct folio_store folios;
	struct page_pool table_pages;	/* host memory of the table pages */
	struct ptsim_stats op;		/* the public operation in progress / last one */
	uint64_t op_touched[OP_TOUCHED_WORDS];	/* events op counted: only these need zeroing and summing */
	struct ptsim_stats total;
	/* iterations per kernel loop path (enum ptsim_loop), as op and total */
	struct ptsim_loop_stats loop_op, loop_total;
	uint64_t loop_touched[2];	/* paths loop_op counted */
	/* inclusive attribution to modelled kernel functions (enum ptsim_func) */
	struct ptsim_stats fn_op[PTSIM_FN__COUNT];
	struct ptsim_stats fn_total[PTSIM_FN__COUNT];
	unsigned int fn_stack[8];
	unsigned int fn_depth;
	unsigned int fn_overflow;	/* entries beyond the stack's depth */
	uint32_t fn_touched;		/* functions with counts in fn_op */
	unsigned int op_depth;
	bool op_partial;		/* the operation keeps what it did even if it fails */
	struct diag_state diag;
	uint64_t host_bytes;		/* host memory charged (table pages, folio metadata) */
	/* tables set aside by pt_reserve, per level: pt_table_alloc takes these first */
	struct pt_table **reserve[PTSIM_MAX_LEVELS];
	size_t nr_reserve[PTSIM_MAX_LEVELS];
	uint64_t alloc_count;
	uint64_t fail_at;		/* alloc_count value that fails; 0 = never */
	struct undo_entry *undo;
	size_t undo_len, undo_cap;
	bool undo_active;
	struct ptsim_mm **mms;
	size_t nr_mms, cap_mms;
	/* the ASID allocator (arch/arm64/mm/context.c) */
	uint64_t asid_map[(1u << 16) / 64];	/* ASIDs taken in this generation */
	uint64_t asid_generation;
	unsigned int asid_cur;			/* where the search for a free ASID starts */
	uint64_t next_anon_vma;
	struct kobj_slab vma_slab, mm_slab;	/* vm_area_struct and mm_struct ids */
	/* table pages freed by operations that count nothing (op_end_uncounted: ptsim_mm_destroy) */
	uint64_t uncounted_table_frees;
	uint64_t zero_pfn;		/* the shared zero page, 0 until first used */
	uint64_t zero_page_gets;	/* FOLL_GET references on it (try_grab_folio), for put_page */
	uint64_t thp_orders;		/* anonymous fault orders enabled (bit n: order n) */
	/*
	 * The page whose struct page vm_normal_page (or a fold) read last:
	 * page_folio of it counts a test, not a lookup. Its price is the data
	 * cache's (dcache below), which finds that struct page in the L1.
	 * ~0: none.
	 */
	uint64_t hot_page_pfn;
	/*
	 * This CPU's LRU folio batches (mm/swap.c's cpu_fbatches): the PFNs of
	 * the folios each holds (a large folio's marked LRU_BATCH_LARGE) until
	 * it fills or lru_add_drain moves them
	 * (folio_batch_add_and_move, src/primitives/primitives.h). Cache state
	 * like the data caches': a failed operation's undo leaves it.
	 */
	uint64_t lru_batch[LRU_BATCHES][PAGEVEC_SIZE];
	unsigned int lru_batch_nr[LRU_BATCHES];
	/*
	 * This CPU's memcg charge stock (memcg_stock.nr_pages, for the one
	 * memcg the model's processes run in): pages charged ahead to the page
	 * counters (try_charge_memcg, src/primitives/primitives.h). Cache
	 * state like the LRU batches'.
	 */
	unsigned int memcg_stock;
	/*
	 * Set while a folio_batch frees folios (the gather's, reclaim's): their
	 * uncharge shares the batch's uncharge_batch (src/mm/folio.c).
	 */
	bool free_batched;
	/*
	 * Per CPU: broadcast TLBIs it issued that no DSB ISH/SY of its own has
	 * completed yet (tlbflush.c prices a further one as back to back).
	 */
	unsigned int broadcast_tlbis_pending[MACHINE_MAX_CPUS];
	/*
	 * The CPU executing the software store, TLBI or barrier in progress: 0
	 * for the modelled kernel paths, the caller's CPU for the raw API.
	 */
	unsigned int exec_cpu;
	/* The hardware model: per-CPU TLBs and the break-before-make checker. */
	struct tlb_model *tlb;
	struct dcache *dcache;		/* the data caches (arch/arm64/hw/dcache.c) */
	struct bbm_state bbm;
	struct file_obj *files;
	size_t nr_files;
	struct open_file *opens;
	size_t nr_opens;
	/* An observer of every TLBI (tests use it); NULL when unused. */
	void (*tlbi_observer)(struct ptsim_machine *m, const struct tlbi_op *op);
	/*
	 * The address space live for an ASID, as the layer that owns address
	 * spaces tells the hardware model (src/machine/machine.c installs
	 * src/mm/mm.c's mm_as_of_asid; hw_as_of_asid in arch/arm64/hw/hw.h asks
	 * it). NULL: none.
	 */
	bool (*as_of_asid)(const struct ptsim_machine *m, unsigned int asid, bool global,
			   struct hw_as *out);
	/*
	 * Run as each public operation begins, when set: the data-cache
	 * model's emptying of a cold machine (ptsim_machine_set_caches,
	 * PTSIM_CACHES_COLD, installs it). NULL: nothing.
	 */
	void (*op_begin_hook)(struct ptsim_machine *m);
};

/* Hardware-model lifecycle (arch/arm64/hw/tlb.c, bbm.c) */
int hw_init(struct ptsim_machine *m);
void hw_free(struct ptsim_machine *m);
int hw_copy(struct ptsim_machine *dst, const struct ptsim_machine *src);

/*
 * The data-cache model (arch/arm64/hw/dcache.c): decides prices only. A
 * load or atomic of nr descriptors from desc (host pointers into a table
 * page), a store of them (allocates, not priced), a load of pfn's struct
 * page; each priced access counts the PTSIM_EV_DCACHE_* level it hit. The
 * table pages register their host page and PFN while they exist.
 */
int dcache_init(struct ptsim_machine *m);
void dcache_free(struct ptsim_machine *m);
int dcache_copy(struct ptsim_machine *dst, const struct ptsim_machine *src);
uint64_t dcache_host_bytes(const struct ptsim_machine *m);
/* Unmap the levels destroyed machines left for the next ones: the bytes released. */
uint64_t dcache_spare_release(void);
int dcache_table_add(struct ptsim_machine *m, const void *host, uint64_t pfn);
void dcache_table_del(struct ptsim_machine *m, const void *host);
void dcache_desc_load(struct ptsim_machine *m, const void *desc, unsigned int nr);
void dcache_desc_store(struct ptsim_machine *m, const void *desc, unsigned int nr);
void dcache_page_load(struct ptsim_machine *m, uint64_t pfn);
void dcache_page_store(struct ptsim_machine *m, uint64_t pfn);
/* n hardware walks ending at the descriptor desc: the walker's read of its line */
void dcache_walk_load(struct ptsim_machine *m, const void *desc, uint64_t n);
/* The kernel cleared (clear_page) or copied (copy_page) bytes of pages: streamed, not priced. */
void dcache_page_clear(struct ptsim_machine *m, uint64_t bytes);
void dcache_page_copy(struct ptsim_machine *m, uint64_t bytes);
/* The program streamed bytes of its own memory through the caches (ptsim_touch). */
void dcache_user_stream(struct ptsim_machine *m, uint64_t bytes);
/*
 * A kernel object's line at the synthetic address addr (src/primitives/kobj.h
 * forms it): a load or atomic (priced by the level it hits) or a plain store
 * (allocates in the L1, not priced), as for descriptors and struct pages.
 */
void dcache_kobj_load(struct ptsim_machine *m, uint64_t addr);
void dcache_kobj_store(struct ptsim_machine *m, uint64_t addr);
/* An instruction fetch of pa's line that missed the L1I: the L2 and the last level (§11.8). */
void dcache_ifetch(struct ptsim_machine *m, uint64_t pa);

/* features.c */
int features_from_preset(const char *preset, bool features[PTSIM_FEAT__COUNT]);

/* ---- counting ---- */
_Static_assert(PTSIM_EV__COUNT <= PTSIM_EV_CAPACITY && PTSIM_EV_CAPACITY <= 64 * OP_TOUCHED_WORDS,
	       "op_touched and struct ptsim_stats hold every event");

/*
 * count: n more of ev in the operation in progress. The functions entered
 * (fn_enter) get their share when they exit: fn_enter takes the op's counts
 * so far off the function's, fn_exit adds the op's counts then, so a count
 * costs the same however deep the walk is (the per-PTE loops count a score
 * of events per entry).
 */
static inline void count(struct ptsim_machine *m, enum ptsim_event ev, uint64_t n)
{
	m->op.ev[ev] += n;
	m->op_touched[ev >> 6] |= UINT64_C(1) << (ev & 63);
}

_Static_assert(PTSIM_LOOP__COUNT <= PTSIM_LOOP_CAPACITY && PTSIM_LOOP_CAPACITY <= 128,
	       "loop_touched has a bit per loop path");

/*
 * count_loop_path(s): one (n) more turn(s) of a kernel loop that took the
 * path loop (the model's bookkeeping for the loop prices; no event).
 */
/*
 * A path's twin priced from objects built without CONFIG_ARM64_CONTPTE
 * (PTSIM_LOOP__COUNT when it has none), and the path a twin stands for (a
 * path of the contpte build is itself): src/core/ptsim.c.
 */
enum ptsim_loop loop_path_nocontpte(enum ptsim_loop path);
enum ptsim_loop loop_path_contpte(enum ptsim_loop path);

static inline void count_loop_paths(struct ptsim_machine *m, enum ptsim_loop loop, uint64_t n)
{
	/* a kernel without contpte runs the loops compiled without it */
	if (!m->features[PTSIM_FEAT_ARM64_CONTPTE]) {
		loop = loop_path_nocontpte(loop);
		if (loop == PTSIM_LOOP__COUNT)
			return;	/* no price: its events alone */
	}
	m->loop_op.iter[loop] += n;
	m->loop_touched[loop >> 6] |= UINT64_C(1) << (loop & 63);
}

static inline void count_loop_path(struct ptsim_machine *m, enum ptsim_loop loop)
{
	count_loop_paths(m, loop, 1);
}

_Static_assert(PTSIM_FN__COUNT <= 32, "fn_touched has a bit per function");

/*
 * fn_op[fn] += sign * op, over the events op has counted so far (the others
 * are zero in op): the two halves of fn_enter/fn_exit's attribution, exact
 * in unsigned arithmetic however the halves nest.
 */
static inline void fn_attribute(struct ptsim_machine *m, unsigned int fn, bool add)
{
	for (unsigned int w = 0; w < OP_TOUCHED_WORDS; w++)
		for (uint64_t t = m->op_touched[w]; t; t &= t - 1) {
			unsigned int e = w * 64 + (unsigned int)__builtin_ctzll(t);

			if (add)
				m->fn_op[fn].ev[e] += m->op.ev[e];
			else
				m->fn_op[fn].ev[e] -= m->op.ev[e];
		}
}

/* Attribute the events until fn_exit to fn (and to the functions already entered). */
static inline void fn_enter(struct ptsim_machine *m, enum ptsim_func fn)
{
	if (m->fn_depth < sizeof(m->fn_stack) / sizeof(m->fn_stack[0])) {
		m->fn_stack[m->fn_depth++] = fn;
		m->fn_touched |= 1u << fn;
		fn_attribute(m, fn, false);
	} else {
		m->fn_overflow++;
	}
}

static inline void fn_exit(struct ptsim_machine *m)
{
	if (m->fn_overflow)
		m->fn_overflow--;
	else
		fn_attribute(m, m->fn_stack[--m->fn_depth], true);
}

/*
 * Bracket every public operation: op_begin zeroes the per-op counts; op_end
 * adds them to the totals unless the operation failed (err != 0), in which
 * case they stay visible only through ptsim_last_stats. A path that keeps a
 * partial result on failure, as the kernel does (do_huge_pmd_wp_page's split
 * before a copy that runs out of memory), calls op_keep_partial: then a
 * failure's counts reach the totals too.
 */
void op_begin(struct ptsim_machine *m);
void op_end(struct ptsim_machine *m, int err);
/*
 * End an operation whose work is not the model's to count (ptsim_mm_destroy
 * freeing the simulator's copy of an mm): what it counted is dropped, its
 * stats read zero and the totals do not move.
 */
void op_end_uncounted(struct ptsim_machine *m);

static inline void op_keep_partial(struct ptsim_machine *m)
{
	m->op_partial = true;
}

static inline bool feature(const struct ptsim_machine *m, enum ptsim_feature f)
{
	return m->features[f];
}

/* ---- allocation with fault injection and undo (src/core/machine.c) ---- */
bool alloc_should_fail(struct ptsim_machine *m);
/* Host bytes the model may still spend under cfg.host_memory_limit (UINT64_MAX: no limit). */
static inline uint64_t host_room(const struct ptsim_machine *m)
{
	uint64_t limit = m->cfg.host_memory_limit;

	return !limit ? UINT64_MAX : limit - MIN(m->host_bytes, limit);
}
/* Host memory the model spends: -ENOMEM past cfg.host_memory_limit, nothing charged then. */
int host_charge(struct ptsim_machine *m, uint64_t bytes);
void host_uncharge(struct ptsim_machine *m, uint64_t bytes);
/* Host bytes of the BBM checker's state (arch/arm64/hw/bbm.c): per-CPU records and arrays, its map. */
uint64_t bbm_host_bytes(const struct bbm_state *b);
/* Host bytes of the TLB model's arrays (arch/arm64/hw/tlb.c), fixed at hw_init. */
uint64_t hw_host_bytes(const struct ptsim_machine *m);
/* Host bytes of the page allocator's free lists and head map (src/mm/page_alloc.c). */
uint64_t physmem_host_bytes(const struct physmem *pm);
/* Host bytes of a map's tables. */
/*
 * The folio whose record holds page frame pfn (its head's), or NULL for a
 * frame no folio holds: a read of core's folio records, which the arm64
 * accessors' out-of-line half (contpte.c) needs as much as mm does.
 */
static inline struct folio *pfn_folio(const struct ptsim_machine *m, uint64_t pfn)
{
	const struct folio_store *fs = &m->folios;
	struct folio *f;

	if (pfn < fs->base_pfn || pfn - fs->base_pfn >= fs->nr_pages)
		return NULL;
	f = &fs->map[pfn - fs->base_pfn];
	if (!f->live)
		return NULL;
	return f->tail ? f - f->index : f;	/* compound_head */
}

static inline uint64_t u64map_host_bytes(const struct u64map *map)
{
	return (uint64_t)map->cap * 2 * sizeof(uint64_t);
}
/* The undo log at its resting size, charged to the machine (src/machine/machine.c builds it). */
int undo_init(struct ptsim_machine *m);
/* Start recording allocations; undo_commit forgets them, undo_rollback frees them. */
void undo_start(struct ptsim_machine *m);
int undo_record(struct ptsim_machine *m, const struct undo_entry *e);
/*
 * Room for n entries made before an operation that knows how many it will
 * record (a populate): grown once to fit, not doubled past it.
 */
int undo_reserve(struct ptsim_machine *m, size_t n);
void undo_commit(struct ptsim_machine *m);
/*
 * The log back to its resting size (undo_commit, and src/mm/undo.c's
 * undo_rollback, which frees what the entries name: mm's objects).
 */
void undo_shrink(struct ptsim_machine *m);

/* ---- table geometry ---- */

/* A level's slot in the per-level arrays (ptsim_geometry's, reserves): level + 1. */
static inline unsigned int level_slot(int level)
{
	return (unsigned int)(level + 1);
}
/* Bytes of VA one entry at level maps. */
static inline uint64_t pt_level_size(const struct ptsim_geometry *g, int level)
{
	return UINT64_C(1) << g->level_shift[level_slot(level)];
}
/* The index of va's entry in its table at level (pgd_index .. pte_index). */
static inline unsigned int pt_index(const struct ptsim_geometry *g, int level, uint64_t va)
{
	return (unsigned int)((va >> g->level_shift[level_slot(level)]) & (g->level_entries[level_slot(level)] - 1));
}
/* Host bytes of one table: the page, its bookkeeping and, above the last level, child pointers. */
static inline uint64_t table_host_bytes(const struct ptsim_geometry *g, int level)
{
	return sizeof(struct pt_table) + g->page_size +
	       (level < PTE_LEVEL ? g->level_entries[level_slot(level)] * sizeof(struct pt_table *) : 0);
}
/* diag.c */
void diag_report(struct ptsim_machine *m, enum ptsim_diag_kind kind, uint64_t va, int level,
		 uint64_t old_desc, uint64_t new_desc, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

#define VALIDATE(cond) do { if (!(cond)) return -EINVAL; } while (0)
/*
 * A diagnostic handler runs in the middle of an operation, with the model
 * half-changed: calls that change the model (or report diagnostics) refuse
 * to run from it, with -EBUSY. Queries are fine.
 */
#define REFUSE_IN_HANDLER(m) do { if ((m)->diag.in_handler) return -EBUSY; } while (0)

#endif
