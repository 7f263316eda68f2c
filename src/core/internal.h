/* SPDX-License-Identifier: MIT */
/* Core model structures shared by src/ and arch/arm64/. Not installed. */
#ifndef PTSIM_INTERNAL_H
#define PTSIM_INTERNAL_H

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
#define MIN(a, b)		((a) < (b) ? (a) : (b))
#define MAX(a, b)		((a) > (b) ? (a) : (b))

/* ---- CPU description (arch/arm64/hw/cpus.c) ---- */
struct tlb_geometry {
	unsigned int entries;
	unsigned int ways;	/* entries == ways: fully associative */
};

struct cpu_desc {
	enum ptsim_cpu id;
	const char *name;
	const char *model;	/* what the profile stands for */
	double freq_ghz;
	struct tlb_geometry l1d, l1i, l2;
	bool coalesce_cont;	/* a contiguous run or block is cached as one entry */
	const char *source;	/* where the description comes from */
	bool tlbirange;		/* FEAT_TLBIRANGE */
	bool bbml2_noabort;	/* on Linux's BBML2-noabort allow-list */
	unsigned int bbm_level;	/* ID_AA64MMFR2_EL1.BBM */
	bool hafdbs;		/* hardware AF and dirty management */
	unsigned int asid_bits;
};

const struct cpu_desc *cpu_desc_get(enum ptsim_cpu id);

/* ---- physical memory: buddy allocator (src/mm/page_alloc.c) ---- */
struct physmem {
	uint64_t base_pfn;
	uint64_t nr_pages;
	unsigned int max_order;
	uint64_t carve_next;		/* PFNs from here to the end were never handed out */
	uint64_t nr_free;		/* pages free, carved or not */
	struct u64map free_heads;	/* head PFN of a free block -> its order */
	uint64_t *free_list[32];	/* stacks of head PFNs per order (entries may be stale) */
	size_t free_len[32], free_cap[32];
};

/* ---- folios (src/mm/folio.c), stored sparsely by section ---- */
enum folio_flags {
	FOLIO_ANON = 1u << 0,
	FOLIO_LOCKED = 1u << 1,
	FOLIO_UPTODATE = 1u << 2,
	FOLIO_READAHEAD = 1u << 3,
	FOLIO_WORKINGSET = 1u << 4,
	FOLIO_MLOCKED = 1u << 5,
	FOLIO_LAZYFREE = 1u << 6,	/* MADV_FREE'd anonymous memory: PG_swapbacked clear */
};

/*
 * One 16-byte record per page frame, as struct page in the kernel's vmemmap:
 * an order-0 folio is its page's record; a large folio is its head page's
 * record, and each tail page's record says how far back its head is. What
 * only a few folios need (lock contention) lives in a side map.
 */
struct folio {
	uint64_t index : 40;	/* page offset in mapping; a tail's: pages back to its head */
	uint64_t order : 6;
	uint64_t flags : 8;	/* enum folio_flags */
	uint64_t live : 1;	/* allocated (a head or a tail) */
	uint64_t tail : 1;
	uint64_t anon_exclusive : 1;	/* this page's PageAnonExclusive */
	uint64_t pinned : 1;	/* folio_maybe_dma_pinned */
	uint64_t contended : 1;	/* has an entry in the lock-contention map */
	uint64_t inv_mismatch : 1;	/* the invariant checker's mark */
	uint64_t : 4;
	uint32_t mapping;	/* anon_vma id or FILE_MAPPING(file); 0 = none */
	int32_t mapcount;	/* PTE mappings + PMD mappings */
};

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
	int fd;			/* open file of a file mapping, -1 for anonymous */
	uint32_t shmem;		/* shared anonymous: its shmem object's file number + 1; 0 = none */
};

struct ptsim_mm {
	struct ptsim_machine *m;
	bool owns_machine;	/* made by ptsim_mm_clone */
	bool kernel;		/* init_mm-like: not a user mm for contpte */
	unsigned int asid;
	unsigned int users;		/* mm_users: the threads sharing the mm */
	uint64_t asid_generation;	/* the allocator generation asid belongs to */
	struct pt_table *pgd;
	struct vma *vmas;	/* sorted by start, non-overlapping */
	size_t nr_vmas, cap_vmas;
	uint64_t pgtable_bytes;
	bool tlb_flush_pending;	/* inc_tlb_flush_pending by tlb_gather_mmu */
	bool uffd_mmap_changing;	/* userfaultfd ctx->mmap_changing */
	uint64_t next_swap_offset;
	/* mm->tlb_flush_batched: reclaim unmapped entries here with a deferred flush */
	bool tlb_flush_batched;
	struct kernel_map *kmap;	/* the kernel mm's linear-map state (arch/arm64/mm/mmu.c) */
	uint64_t aslr_state;		/* the mm's ASLR random stream (xorshift), 0 = off */
	uint64_t mmap_base;		/* top-down search start, 0 until first needed */
	/* [gapless_base, gapless_end) is covered by VMAs without a gap; 0: not known */
	uint64_t gapless_base, gapless_end;
	bool booting;			/* table pages come from memblock */
	uint64_t boot_pgtable_bytes;
};

struct kernel_map;
void kernel_map_free(struct kernel_map *k);
struct kernel_map *kernel_map_copy(const struct kernel_map *k);

/* ---- undo log: a failed public operation leaves the model unchanged ---- */
enum undo_kind { UNDO_TABLE, UNDO_FOLIO };

struct undo_entry {
	enum undo_kind kind;
	struct ptsim_mm *mm;
	void *ptr;		/* table or folio */
	struct pt_table *parent;
	unsigned int parent_idx;
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

/* Break-before-make state (arch/arm64/hw/bbm.c): entries written invalid and not yet flushed. */
struct bbm_state {
	struct u64map broken;		/* key (asid, level, VA) -> old descriptor, bit 0 = TLBI seen */
	uint64_t per_level[PTSIM_MAX_LEVELS];
	uint64_t *pending;		/* keys whose TLBI waits for the completing DSB */
	size_t nr_pending, cap_pending;
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

struct ptsim_machine {
	struct ptsim_machine_config cfg;
	struct ptsim_geometry geo;
	const struct cpu_desc *cpu;
	bool features[PTSIM_FEAT__COUNT];
	struct physmem phys;
	struct folio_store folios;
	struct page_pool table_pages;	/* host memory of the table pages */
	struct ptsim_stats op;		/* the public operation in progress / last one */
	uint64_t op_touched[2];		/* events op counted: only these need zeroing and summing */
	struct ptsim_stats total;
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
	uint64_t zero_pfn;		/* the shared zero page, 0 until first used */
	uint64_t thp_orders;		/* anonymous fault orders enabled (bit n: order n) */
	/*
	 * The page whose struct page vm_normal_page (or a fold) read last: a
	 * one-line model of the data cache, so a second look at the same
	 * struct page is a hot load, not a cold lookup. ~0: none.
	 */
	uint64_t hot_page_pfn;
	unsigned int tlbi_since_dsb;	/* TLBIs issued since the last DSB ISH */
	/* The hardware model: per-CPU TLBs and the break-before-make checker. */
	struct tlb_model *tlb;
	struct bbm_state bbm;
	struct file_obj *files;
	size_t nr_files;
	struct open_file *opens;
	size_t nr_opens;
	/* An observer of every TLBI (tests use it); NULL when unused. */
	void (*tlbi_observer)(struct ptsim_machine *m, const struct tlbi_op *op);
};

/* Hardware-model lifecycle (arch/arm64/hw/tlb.c, bbm.c) */
int hw_init(struct ptsim_machine *m);
void hw_free(struct ptsim_machine *m);
int hw_copy(struct ptsim_machine *dst, const struct ptsim_machine *src);

/* features.c */
int features_from_preset(const char *preset, bool features[PTSIM_FEAT__COUNT]);

/* ---- counting ---- */
_Static_assert(PTSIM_EV__COUNT <= PTSIM_EV_CAPACITY && PTSIM_EV_CAPACITY <= 128,
	       "op_touched and struct ptsim_stats hold every event");

static inline void count(struct ptsim_machine *m, enum ptsim_event ev, uint64_t n)
{
	m->op.ev[ev] += n;
	m->op_touched[ev >> 6] |= UINT64_C(1) << (ev & 63);
	for (unsigned int i = 0; i < m->fn_depth; i++)
		m->fn_op[m->fn_stack[i]].ev[ev] += n;
}

_Static_assert(PTSIM_FN__COUNT <= 32, "fn_touched has a bit per function");

/* Attribute the events until fn_exit to fn (and to the functions already entered). */
static inline void fn_enter(struct ptsim_machine *m, enum ptsim_func fn)
{
	if (m->fn_depth < sizeof(m->fn_stack) / sizeof(m->fn_stack[0])) {
		m->fn_stack[m->fn_depth++] = fn;
		m->fn_touched |= 1u << fn;
	} else {
		m->fn_overflow++;
	}
}

static inline void fn_exit(struct ptsim_machine *m)
{
	if (m->fn_overflow)
		m->fn_overflow--;
	else
		m->fn_depth--;
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
/* Start recording allocations; undo_commit forgets them, undo_rollback frees them. */
void undo_start(struct ptsim_machine *m);
int undo_record(struct ptsim_machine *m, const struct undo_entry *e);
void undo_commit(struct ptsim_machine *m);
void undo_rollback(struct ptsim_machine *m);

/* mm/page_alloc.c */
int physmem_init(struct physmem *pm, uint64_t base_pfn, uint64_t nr_pages, unsigned int max_order);
void physmem_free_all(struct physmem *pm);
int physmem_copy(struct physmem *dst, const struct physmem *src);
int physmem_alloc(struct physmem *pm, unsigned int order, uint64_t *pfn);
void physmem_free(struct physmem *pm, uint64_t pfn, unsigned int order);

/* folio.c */
int folio_store_init(struct folio_store *fs, uint64_t base_pfn, uint64_t nr_pages,
		     uint64_t *host_bytes);
void folio_store_free(struct folio_store *fs);
int folio_store_copy(struct folio_store *dst, const struct folio_store *src);
struct folio *pfn_folio(const struct ptsim_machine *m, uint64_t pfn);
/* Allocates memory and metadata (counts FOLIO_ALLOC); records undo. */
int folio_alloc(struct ptsim_machine *m, unsigned int order, unsigned int flags,
		struct folio **out);
void folio_free(struct ptsim_machine *m, struct folio *folio);
/* The last mapping's reference went: free f unless a pin still holds one (folio_put). */
void folio_put(struct ptsim_machine *m, struct folio *f);
static inline uint64_t folio_nr_pages(const struct folio *f)
{
	return UINT64_C(1) << f->order;
}
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
static inline void anon_vma_prepare(struct ptsim_machine *m, struct vma *v)
{
	if (!v->anon_vma)
		v->anon_vma = m->next_anon_vma++;
}
/* Host bytes a folio's records can take at most (whole host pages of them). */
static inline uint64_t folio_host_bytes(unsigned int order)
{
	return (UINT64_C(1) << order) * sizeof(struct folio);
}
int folio_set_lock_contention(struct ptsim_machine *m, struct folio *f, unsigned int attempts);
bool folio_lock_contended(struct ptsim_machine *m, struct folio *f);
/* Split f into order-0 folios in place (its tail records become folios). */
void folio_split_records(struct ptsim_machine *m, struct folio *f);
bool folio_page_anon_exclusive(const struct folio *f, uint64_t page_idx);
void folio_set_page_anon_exclusive(struct folio *f, uint64_t page_idx, bool excl);

/* memory.c */
struct page_ref {
	struct folio *folio;	/* NULL: no normal page */
	uint64_t idx;		/* page index inside the folio */
};
struct page_ref vm_normal_page(struct ptsim_mm *mm, pte_t pte);
/* handle_mm_fault: one fault at va, counted in the operation in progress. */
int handle_mm_fault(struct ptsim_mm *mm, uint64_t va, enum ptsim_access_kind kind);
/* The fault at va of v with no VMA permission check (the caller made it: gup's check_vma_flags). */
int __handle_mm_fault(struct ptsim_mm *mm, struct vma *v, uint64_t va, bool write);

/* gup.c */
/*
 * __mm_populate(start, end - start, ignore_errors 0): fault in and follow
 * every page of the range, VMA by VMA, stopping at the first error
 * (-EFAULT for a PROT_NONE VMA or a failed fault, -ENOMEM).
 */
int __mm_populate(struct ptsim_mm *mm, uint64_t start, uint64_t end);
/* Whether the zero-page tables __mm_populate of the range needs fit host_memory_limit. */
bool mm_populate_fits_host(const struct ptsim_mm *mm, uint64_t start, uint64_t end);

/* mm/pgtable-generic.c: software table walk and allocation */

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
/* Uncounted lookup of the leaf mapping va: returns the table and sets *level. */
struct pt_table *pt_lookup_leaf(const struct ptsim_mm *mm, uint64_t va, unsigned int *idx);
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
int mm_copy_into(struct ptsim_machine *m, const struct ptsim_mm *src, struct ptsim_mm **out);
bool range_is_free(const struct ptsim_mm *mm, uint64_t start, uint64_t end);
/* First fit for an anonymous mapping of len bytes (see ptsim_mmap). */
int get_unmapped_area(struct ptsim_mm *mm, uint64_t len, uint64_t *out);
int vma_insert(struct ptsim_mm *mm, const struct vma *v);
struct vma *find_vma(const struct ptsim_mm *mm, uint64_t addr);

/* vma.c */
int vma_reserve(struct ptsim_mm *mm, size_t extra);
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
/*
 * folio_remove_rmap_ptes (mm/rmap.c): nr fewer mappings of f, counted; a
 * mapcount below zero is an invariant diagnostic. Freeing is the caller's.
 */
void folio_remove_rmap_ptes(struct ptsim_mm *mm, struct folio *f, unsigned int nr);
/* flush_tlb_batched_pending (mm/rmap.c): flush_tlb_mm when reclaim deferred a flush on mm. */
void flush_tlb_batched_pending(struct ptsim_mm *mm);
/* PTE mappings of f's pages in mm (anonymous folios, found through their index). */
uint64_t folio_mappings_in(struct ptsim_mm *mm, const struct folio *f);
/* folio_put after a split: the first page goes too if nobody maps it. */
void folio_put_unmapped(struct ptsim_mm *mm, struct folio *f);
pte_t vm_get_page_prot(unsigned int vm_flags);

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
