/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_STATS_H
#define PTSIM_STATS_H

#include <stdint.h>
#include <ptsim/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Primitive events. Every public operation counts what it does in these
 * units; a CPU cost profile turns the counts into time.
 */
enum ptsim_event {
	PTSIM_EV_PTE_READ,		/* __ptep_get: plain load of one L3 descriptor */
	PTSIM_EV_PTE_WRITE,		/* __set_pte_nosync: plain store of one L3 descriptor */
	PTSIM_EV_PTE_XCHG,		/* __ptep_get_and_clear: atomic exchange with 0 */
	PTSIM_EV_PTE_CAS,		/* compare-and-swap of one L3 descriptor (wrprotect) */
	PTSIM_EV_PMD_READ,		/* load of one L2 descriptor */
	PTSIM_EV_PMD_WRITE,		/* store of one L2 descriptor */
	PTSIM_EV_PMD_XCHG,		/* atomic exchange or compare-and-swap of one L2 descriptor */
	PTSIM_EV_PUD_READ,		/* load of one L1 (or higher) descriptor */
	PTSIM_EV_PUD_WRITE,		/* store of one L1 (or higher) descriptor */
	PTSIM_EV_TLBI_VA,		/* TLBI VALE1IS / VAE1IS: one page by VA and ASID */
	PTSIM_EV_TLBI_VAA,		/* TLBI VAALE1IS / VAAE1IS: one page, all ASIDs */
	PTSIM_EV_TLBI_RANGE,		/* TLBI RVALE1IS / RVAE1IS (FEAT_TLBIRANGE) */
	PTSIM_EV_TLBI_RANGE_VAA,	/* TLBI RVAALE1IS / RVAAE1IS (FEAT_TLBIRANGE) */
	PTSIM_EV_TLBI_ASID,		/* TLBI ASIDE1IS */
	PTSIM_EV_TLBI_ALL,		/* TLBI VMALLE1IS */
	PTSIM_EV_TLBI_LOCAL_ALL,	/* TLBI VMALLE1 (local, a parked secondary) */
	PTSIM_EV_TLBI_BACK_TO_BACK,	/* TLBIs issued after another with no DSB between */
	PTSIM_EV_DSB_ISHST,		/* DSB ISHST before TLB maintenance */
	PTSIM_EV_DSB_ISH,		/* DSB ISH completing TLB maintenance */
	PTSIM_EV_ISB,			/* ISB */
	PTSIM_EV_FLUSH_TLB_RANGE,	/* __flush_tlb_range (inline) runs that issued ops */
	PTSIM_EV_FLUSH_TLB_MM,		/* flush_tlb_mm (inline) runs (incl. range fallback) */
	PTSIM_EV_NOTIFIER_SECONDARY_TLBS, /* mmu_notifier_arch_invalidate_secondary_tlbs tests */
	PTSIM_EV_MMU_NOTIFIER_RANGE,	/* mmu_notifier_invalidate_range_start/end pairs (inline) */
	PTSIM_EV_TABLE_ALLOC,		/* page-table page allocated */
	PTSIM_EV_TABLE_FREE,		/* page-table page freed */
	PTSIM_EV_FOLIO_ALLOC,		/* folio allocated */
	PTSIM_EV_FOLIO_FREE,		/* folio freed */
	PTSIM_EV_FOLIO_LOOKUP,		/* vm_normal_page / page_folio */
	PTSIM_EV_FOLIO_TEST,		/* folio_test_large / folio_test_anon and similar */
	PTSIM_EV_ANON_EXCL_TEST,	/* PageAnonExclusive test */
	PTSIM_EV_PTL_LOCK,		/* page-table lock taken (and released) */
	PTSIM_EV_LAZY_MMU,		/* arch_enter/leave_lazy_mmu_mode pairs */
	PTSIM_EV_PMD_ITER,		/* PMD loop turns (pmd_addr_end, the PMD checks) */
	PTSIM_EV_PTEP_GET,		/* ptep_get runs (the inline contpte-aware wrapper) */
	PTSIM_EV_CONTPTE_GATHER,	/* contpte_ptep_get calls and their gathers */
	PTSIM_EV_SET_PTES,		/* set_ptes runs (inline; contpte_set_ptes is a call) */
	PTSIM_EV_SET_PTES_CHUNK,	/* __set_ptes runs (chunks, __sync_cache_and_tags) */
	PTSIM_EV_CONTPTE_CONVERT,	/* contpte_convert calls */
	PTSIM_EV_CONTPTE_FOLD,		/* successful folds */
	PTSIM_EV_CONTPTE_UNFOLD,	/* unfolds (__contpte_try_unfold calls) */
	PTSIM_EV_FOLD_ATTEMPT,		/* __contpte_try_fold entered */
	PTSIM_EV_TLB_GATHER_ADD,	/* tlb_flush_pte_range / pmd range bookkeeping */
	PTSIM_EV_PTE_MODIFY,		/* pte_modify of one (batch head) entry */
	PTSIM_EV_PTE_BATCH,		/* PTE batches formed (folio_pte_batch) */
	PTSIM_EV_PROT_COMMIT,		/* ptep_modify_prot_commit / prot_commit_flush_ptes */
	PTSIM_EV_CAN_CHANGE_WRITABLE,	/* can_change_pte_writable / maybe_change_pte_writable */
	PTSIM_EV_PTE_LOOP,		/* per-position loop iterations of a PTE walker */
	PTSIM_EV_FAULT,			/* page faults taken */
	PTSIM_EV_PAGE_ZERO,		/* pages zeroed by an anonymous fault */
	PTSIM_EV_HUGE_PMD_SPLIT,	/* __split_huge_pmd */
	PTSIM_EV_VMA_SPLIT,		/* VMA splits */
	PTSIM_EV_VMA_MERGE,		/* VMA merges */
	PTSIM_EV_SYSCALL,		/* system calls entered */
	PTSIM_EV_MEM_ACCESS,		/* memory accesses through the TLB model */
	PTSIM_EV_TLB_L1_HIT,		/* L1 dTLB/iTLB hits */
	PTSIM_EV_TLB_L2_HIT,		/* L1 misses that hit the unified L2 TLB */
	PTSIM_EV_TLB_WALK,		/* L2 misses: hardware table walks */
	PTSIM_EV_WALK_READ,		/* descriptors read by hardware walks */
	PTSIM_EV_HW_AF_UPDATE,		/* hardware Access Flag updates (FEAT_HAFDBS) */
	PTSIM_EV_HW_DIRTY_UPDATE,	/* hardware dirty-state updates (DBM) */
	PTSIM_EV_ACCESS_FAULT,		/* accesses that faulted (translation, AF, permission, conflict) */
	PTSIM_EV_TLB_CONFLICT,		/* lookups that matched more than one entry */
	PTSIM_EV_USER_PAGE_WRITE,	/* pages written by a memset-like touch */
	PTSIM_EV_USER_PAGE_READ,	/* pages read by a memchr-like touch */
	PTSIM_EV_FOLIO_TRYLOCK,		/* folio_trylock attempts */
	PTSIM_EV_FOLIO_LOCK_WAIT,	/* blocking folio_lock after a failed trylock */
	PTSIM_EV_FOLIO_UNLOCK,		/* folio_unlock */
	PTSIM_EV_FOLIO_GET,		/* folio reference taken */
	PTSIM_EV_FOLIO_PUT,		/* folio reference dropped */
	PTSIM_EV_ANON_VMA_LOCK,		/* anon_vma write lock taken (and released) */
	PTSIM_EV_ANON_VMA_REF,		/* anon_vma reference taken (and dropped) */
	PTSIM_EV_RMAP_MOVE,		/* folio_move_anon_rmap + index update */
	PTSIM_EV_PTE_MAP,		/* pte_offset_map (RCU enter) and pte_unmap pairs */
	PTSIM_EV_COND_RESCHED,		/* cond_resched / might_sleep calls (dynamic_*_resched) */
	PTSIM_EV_FOLIO_SPLIT,		/* large folio split to order 0 */
	PTSIM_EV_SWAP_LOOKUP,		/* swap device get and swap-cache lookup */
	PTSIM_EV_PAGE_CACHE_LOOKUP,	/* filemap_get_folio and friends */
	PTSIM_EV_MAJOR_FAULT,		/* page-cache misses in filemap_fault */
	PTSIM_EV_FAULT_RETRY,		/* VM_FAULT_RETRY: the fault is taken again */
	PTSIM_EV_IO_REQUEST,		/* read I/O submissions (read_pages) */
	PTSIM_EV_IO_KIB,		/* KiB read from storage */
	PTSIM_EV_MAP_PAGES,		/* pages filemap_map_pages examines (fault-around): their tests */
	PTSIM_EV_EXEC_CALL,		/* calls into a stub (cold instruction line) */
	PTSIM_EV_TLB_BATCH_SLOT,	/* mmu_gather page-batch slots used (encoded_pages[]) */
	PTSIM_EV_TLB_BATCH_ALLOC,	/* mmu_gather page batches allocated (tlb_next_batch) */
	PTSIM_EV_TLB_FLUSH_MMU,		/* tlb_flush_mmu_free passes: batched pages and tables freed */
	PTSIM_EV_RMAP_REMOVE,		/* folio_remove_rmap_pte(s)/_pmd calls */
	PTSIM_EV_RMAP_DUP,		/* __folio_try_dup_anon_rmap / __folio_dup_file_rmap entries (fork) */
	PTSIM_EV_PAGE_COPY,		/* pages copied (COW, pinned pages at fork) */
	PTSIM_EV_MLOCK_FOLIO,		/* mlock_folio / munlock_folio calls */
	PTSIM_EV_HELPER_CALL,		/* other out-of-line kernel helpers (anon_vma get/lock/...) */
	PTSIM_EV_SLAB_ALLOC,		/* kmem_cache_alloc: a VMA, its lock, an anon_vma, an avc, a maple node */
	PTSIM_EV_SLAB_FREE,		/* kmem_cache_free of one of those */
	PTSIM_EV_MAPLE_NODE_WRITE,	/* maple-tree nodes written by a store, a dup or a rewrite */
	PTSIM_EV_RWSEM,			/* rw_semaphore taken and released (mmap_lock, a VMA's lock) */
	PTSIM_EV_VM_STAT,		/* per-CPU or per-mm counter update (vm_stat_account, mm counters) */
	PTSIM_EV_MEMCG_CHARGE,		/* mem_cgroup_charge / mem_cgroup_swapin_charge_folio */
	PTSIM_EV_LRU_ADD,		/* a call of folio_add_lru_vma or folio_add_lru */
	PTSIM_EV_RMAP_ADD,		/* folio_add_new_anon_rmap / folio_add_{anon,file}_rmap_* calls */
	PTSIM_EV_MAPCOUNT_ATOMIC,	/* atomic RMW of a page's _mapcount or a folio's mapcounts */
	PTSIM_EV_MAPCOUNT_SET,		/* plain store of a mapcount field (atomic_set, MM_ID slots) */
	PTSIM_EV_PAGE_FLAG_ATOMIC,	/* an atomic bit op on a page's flags or the swap zeromap (set/clear_bit) */
	PTSIM_EV_LRUVEC_STAT,		/* __lruvec_stat_mod_folio calls (NR_*_MAPPED, NR_ANON_THPS) */
	PTSIM_EV_DSB_SY,		/* DSB SY (the raw API; no modelled kernel path issues one) */
	PTSIM_EV_DSB_NSH,		/* DSB NSH (the raw API) */
	PTSIM_EV_TLBI_LOCAL,		/* a TLBI by VA, range or ASID without the IS suffix (the raw API) */
	/*
	 * The data-cache model's verdict on each load or atomic of a
	 * descriptor or a struct page: the level it hit. Not kernel work: the
	 * events above count that; these only price it (arch/arm64/hw/dcache.c).
	 */
	PTSIM_EV_DCACHE_L1_HIT,		/* found in the L1 data cache */
	PTSIM_EV_DCACHE_PREFETCH_HIT,	/* in the L1 because a trained stream prefetched it */
	PTSIM_EV_DCACHE_L2_HIT,		/* missed the L1, hit the core's L2 */
	PTSIM_EV_DCACHE_LLC_HIT,	/* missed the L2, hit the last-level cache */
	PTSIM_EV_DCACHE_DRAM,		/* missed every cache: from memory */
	/*
	 * The same verdicts for the kernel's own objects' lines: the mm_struct,
	 * VMAs and their locks, anon_vmas and their chains, maple and xarray
	 * nodes, a file's address_space (doc/cpu-profiles.md §11.7). Priced as
	 * the five above; kept apart so the table and struct page lines'
	 * verdicts read as before.
	 */
	PTSIM_EV_DCACHE_OBJ_L1_HIT,	/* a kernel object's line found in the L1 */
	PTSIM_EV_DCACHE_OBJ_PREFETCH_HIT,	/* ... prefetched into the L1 by a trained stream */
	PTSIM_EV_DCACHE_OBJ_L2_HIT,	/* ... missed the L1, hit the L2 */
	PTSIM_EV_DCACHE_OBJ_LLC_HIT,	/* ... missed the L2, hit the last-level cache */
	PTSIM_EV_DCACHE_OBJ_DRAM,	/* ... missed every cache */
	/*
	 * An instruction fetch that missed the L1 instruction cache (the
	 * program's ptsim_exec_call): the level of the unified L2 or last-level
	 * cache it hit (doc/cpu-profiles.md §11.8).
	 */
	PTSIM_EV_ICACHE_L2_HIT,		/* the instruction line was in the L2 */
	PTSIM_EV_ICACHE_LLC_HIT,	/* ... in the last-level cache */
	PTSIM_EV_ICACHE_DRAM,		/* ... from memory */
	/*
	 * free_pages_prepare's work on one tail page of a large folio being
	 * freed (free_tail_page_prepare: ->mapping and compound_head cleared,
	 * the flags checked at preparation cleared). Since 0.3.
	 */
	PTSIM_EV_FREE_TAIL_PAGE,
	/*
	 * A per-CPU LRU folio batch moved (folio_batch_move_lru): the lruvec's
	 * lru_lock taken and released once for the batch (lru_lock), and each
	 * folio moved between the LRU lists under it (lru_move). Since 0.3.
	 */
	PTSIM_EV_LRU_LOCK,
	PTSIM_EV_LRU_MOVE,
	/* __split_huge_page_tail: a tail page's struct page made a folio's (since 0.3) */
	PTSIM_EV_SPLIT_PAGE_TAIL,
	/*
	 * One level of a memory cgroup's hierarchy charged or uncharged: the
	 * atomic_long_add_return or atomic_long_sub_return on its page
	 * counter's usage (mm/page_counter.c). Since 0.3.
	 */
	PTSIM_EV_PAGE_COUNTER,
	/*
	 * One struct page of a new large folio made compound by
	 * prep_compound_page (a split to an order above 0): a tail's mapping,
	 * compound_head and private, or the head's folio fields. Since 0.3.
	 */
	PTSIM_EV_COMPOUND_PAGE,
	/*
	 * A page allocator spinlock taken and released around freed pages:
	 * the per-CPU lists' (pcp_spin_trylock, once per free_unref_folios
	 * batch or per folio freed alone) or the zone's (free_one_page, for
	 * an order the per-CPU lists do not take). Since 0.3.
	 */
	PTSIM_EV_PAGE_ALLOC_LOCK,
	/*
	 * A free block linked onto or unlinked from one of the page
	 * allocator's lists beyond a folio's own allocation and free (those
	 * are folio_alloc's and folio_free's): a block a per-CPU list's refill
	 * (rmqueue_bulk) or drain (free_pcppages_bulk) moves counts one off
	 * its list and one onto the other; a buddy split (expand) links a
	 * half, a merge (__free_one_page) unlinks the buddy. Since 0.3.
	 */
	PTSIM_EV_FREE_LIST_OP,
	/*
	 * A data memory barrier with no TLB maintenance behind it: the
	 * kernel's smp_mb and smp_mb__after_atomic (DMB ISH), smp_rmb (DMB
	 * ISHLD) and smp_wmb (DMB ISHST), as __folio_mark_uptodate,
	 * __split_huge_page_tail, a new table's populate (pmd_install) and
	 * the GUP-fast handshakes of try_to_unmap_one and
	 * __folio_try_share_anon_rmap issue them. Since 0.3.
	 */
	PTSIM_EV_DMB,
	PTSIM_EV__COUNT
};

/*
 * Room for events later versions add: the arrays indexed by event are this
 * long, so a new event changes neither the size nor the layout of the structs
 * a caller allocates. Entries from PTSIM_EV__COUNT on are zero. 128 until
 * 0.3, whose 129th event (PTSIM_EV_DMB) made it 256.
 */
#define PTSIM_EV_CAPACITY 256

struct ptsim_stats {
	uint64_t ev[PTSIM_EV_CAPACITY];
};

/* Short stable name of an event ("pte_read", "tlbi_range", ...), or NULL. */
PTSIM_API const char *ptsim_event_name(enum ptsim_event ev);

/*
 * Add src's counts to dst, event by event: the counts of several operations
 * or several machines summed. -EINVAL for a NULL argument, -EOVERFLOW when a
 * sum would wrap; dst is then unchanged. dst and src may be the same.
 */
PTSIM_API int ptsim_stats_add(struct ptsim_stats *dst, const struct ptsim_stats *src);

/*
 * out = after - before, event by event: the work between two snapshots of
 * ptsim_total_stats, or what a change added to an operation's counts.
 * -EINVAL for a NULL argument, -ERANGE when some event of before exceeds the
 * same event of after (the snapshots are in the wrong order, or of different
 * machines); out is then unchanged. out may be after or before.
 */
PTSIM_API int ptsim_stats_diff(struct ptsim_stats *out, const struct ptsim_stats *after,
			       const struct ptsim_stats *before);

#ifdef __cplusplus
}
#endif

#endif
