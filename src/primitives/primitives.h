/* SPDX-License-Identifier: MIT */
/*
 * The counted primitives: the kernel's own small helpers (locks, the mmu
 * notifier, lazy MMU mode, folio references, flags and locks, rmap updates,
 * loop steps), each one function with the kernel's name that counts what the
 * kernel executes there. The kernel code of src/mm, src/fs and arch/arm64/mm
 * calls these and never counts by hand (tests/check-primitives.sh fails
 * when it does), so a new path is counted right by construction. The
 * architecture's own primitives (descriptor accessors, TLBI, DSB, ISB) live
 * in arch/arm64/primitives/ with their headers in arch/arm64/include/asm/.
 *
 * Every primitive has an entry in PTSIM_PRIMITIVES below: its kernel name,
 * where the kernel defines it, and whether the kernel of the modelled
 * versions (v6.8 .. v6.19) compiles it inline or as an out-of-line call
 * (pricing charges a call only where the kernel makes one). doc/primitives.md
 * explains how to add one.
 */
#ifndef PTSIM_PRIMITIVES_H
#define PTSIM_PRIMITIVES_H

#include "internal.h"
#include "kobj.h"

/* How the kernel compiles a primitive: inline in its caller, or an out-of-line call. */
enum prim_linkage { PRIM_INLINE, PRIM_CALL };

/* A primitive that counts several events: its function says which. */
#define PRIM_EVENTS PTSIM_EV__COUNT

/*
 * X(id, kernel name, linkage, the event it counts, where the kernel defines
 * it). A primitive the kernel compiles inline around an out-of-line slow path
 * is PRIM_INLINE, and the note names the slow path. The entries that count
 * one event are counted with prim_count(m, PRIM_id, n), or through the named
 * inline functions below; the others are only ever counted by their function.
 */
#define PTSIM_PRIMITIVES(X)									\
	PTSIM_PRIMITIVES_LOCKS(X)								\
	PTSIM_PRIMITIVES_FOLIO(X)								\
	PTSIM_PRIMITIVES_BATCH(X)								\
	PTSIM_PRIMITIVES_SWAP(X)								\
	PTSIM_PRIMITIVES_SWAPOUT(X)								\
	PTSIM_PRIMITIVES_LOOPS(X)								\
	PTSIM_PRIMITIVES_CALLS(X)								\
	PTSIM_PRIMITIVES_GATHER(X)								\
	PTSIM_PRIMITIVES_MEMORY(X)								\
	PTSIM_PRIMITIVES_VMA(X)									\
	PTSIM_PRIMITIVES_FAULT(X)								\
	PTSIM_PRIMITIVES_ARCH(X)

/* Page-table maps and locks, the anon_vma lock, the notifier, lazy MMU mode. */
#define PTSIM_PRIMITIVES_LOCKS(X)								\
	X(PTE_OFFSET_MAP_LOCK, "pte_offset_map_lock", PRIM_CALL, PRIM_EVENTS,			\
	  "mm/pgtable-generic.c: __pte_offset_map_lock (maps the PTE table, takes its lock)")	\
	X(PTE_OFFSET_MAP_NOLOCK, "pte_offset_map_nolock", PRIM_CALL, PTSIM_EV_PTE_MAP,		\
	  "mm/pgtable-generic.c: maps the PTE table, finds its lock, takes none")		\
	X(PTE_OFFSET_MAP, "pte_offset_map", PRIM_CALL, PTSIM_EV_PTE_MAP,			\
	  "include/linux/pgtable.h -> __pte_offset_map (mm/pgtable-generic.c)")		\
	X(PTL_SPIN_LOCK, "spin_lock", PRIM_INLINE, PTSIM_EV_PTL_LOCK,				\
	  "include/linux/spinlock.h: a page-table lock taken apart from the map")		\
	X(PMD_LOCK, "pmd_lock", PRIM_INLINE, PTSIM_EV_PTL_LOCK, "include/linux/mm.h")		\
	X(DOUBLE_PT_LOCK, "double_pt_lock", PRIM_CALL, PTSIM_EV_PTL_LOCK,			\
	  "mm/userfaultfd.c: one lock when both PTEs share a table, else two")		\
	X(ANON_VMA_LOCK_WRITE, "anon_vma_lock_write", PRIM_INLINE, PTSIM_EV_ANON_VMA_LOCK,	\
	  "include/linux/rmap.h: down_write of the root anon_vma's rwsem")			\
	X(ANON_VMA_LOCK_READ, "anon_vma_lock_read", PRIM_INLINE, PTSIM_EV_ANON_VMA_LOCK,	\
	  "include/linux/rmap.h: down_read of the root anon_vma's rwsem (rmap_walk)")		\
	X(MMU_NOTIFIER_RANGE_START, "mmu_notifier_invalidate_range_start", PRIM_INLINE,	\
	  PRIM_EVENTS,										\
	  "include/linux/mmu_notifier.h: tests mm_has_notifiers (no call without notifiers); "	\
	  "its might_sleep calls dynamic_might_resched (PREEMPT_DYNAMIC)")			\
	X(LAZY_MMU_MODE, "arch_enter_lazy_mmu_mode", PRIM_INLINE, PTSIM_EV_LAZY_MMU,		\
	  "arch/arm64/include/asm/pgtable.h (the generic no-op before arm64 had one)")	\
	X(COND_RESCHED, "cond_resched", PRIM_CALL, PTSIM_EV_COND_RESCHED,			\
	  "kernel/sched/core.c: dynamic_cond_resched (arm64 PREEMPT_DYNAMIC, a static key)")	\
	X(MIGHT_RESCHED, "might_sleep", PRIM_CALL, PTSIM_EV_COND_RESCHED,			\
	  "include/linux/kernel.h: might_resched is dynamic_might_resched (kernel/sched/core.c)") \
	X(LRU_ADD_DRAIN, "lru_add_drain", PRIM_CALL, PTSIM_EV_COND_RESCHED,			\
	  "mm/swap.c (priced as one call, the cond_resched class; the batches it moves apart)") \
	X(FOLIO_MARK_LAZYFREE, "folio_mark_lazyfree", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/swap.c: MADV_FREE's folio tests, then into the lru_lazyfree batch")		\
	X(FOLIO_BATCH_ADD_AND_MOVE, "__folio_batch_add_and_move", PRIM_CALL, PTSIM_EV_HELPER_CALL, \
	  "mm/swap.c: a folio into a per-CPU LRU batch (static, out of line in the v6.12 build)") \
	X(FOLIO_LRUVEC_RELOCK, "folio_lruvec_relock_irqsave", PRIM_INLINE, PTSIM_EV_LRU_LOCK,	\
	  "include/linux/memcontrol.h: the lruvec's lru_lock for a batch (and its unlock)")	\
	X(LRU_MOVE_FN, "lru_lazyfree", PRIM_CALL, PTSIM_EV_LRU_MOVE,				\
	  "mm/swap.c: a batch's move_fn, per folio, through the batch's function pointer")	\
	X(LRU_MOVE_CALLEES, "update_lru_size", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "include/linux/mm_inline.h: lruvec_del_folio's and lruvec_add_folio's LRU size "	\
	  "updates (__mod_lruvec_state, __mod_zone_page_state, mem_cgroup_update_lru_size "	\
	  "each), and __count_memcg_events for a folio moved between lists")		\
	X(LRU_ADD_FN, "lru_add", PRIM_CALL, PTSIM_EV_LRU_MOVE,					\
	  "mm/swap.c: the lru_add batch's move_fn, per folio, through the batch's function pointer") \
	X(FOLIO_EVICTABLE_CALLS, "folio_evictable", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "include/linux/mm_inline.h (inline in lru_add): __rcu_read_lock, folio_mapping, "	\
	  "__rcu_read_unlock, calls in the build")						\
	X(FOLIO_TEST_CLEAR_UNEVICTABLE, "folio_test_clear_unevictable", PRIM_INLINE,		\
	  PTSIM_EV_PAGE_FLAG_ATOMIC, "include/linux/page-flags.h: lru_add's LDCLRAL")	\
	X(FOLIO_DEACTIVATE, "folio_deactivate", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/swap.c: an active folio into the lru_deactivate batch (MADV_COLD)")		\
	X(FOLIO_ISOLATE_LRU, "folio_isolate_lru", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/vmscan.c: a folio taken off its LRU list, under the lruvec's lock, for reclaim") \
	X(FOLIO_PUTBACK_LRU, "folio_putback_lru", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/vmscan.c: an isolated folio back to the LRU (folio_add_lru, folio_put)")	\
	X(FOLIO_ADD_LRU, "folio_add_lru", PRIM_CALL, PTSIM_EV_LRU_ADD,				\
	  "mm/swap.c: a folio into the per-CPU lru_add batch")				\
	X(FOLIO_TEST_CLEAR_LRU, "folio_test_clear_lru", PRIM_INLINE, PTSIM_EV_PAGE_FLAG_ATOMIC, \
	  "include/linux/page-flags.h: test_and_clear_bit(PG_lru)")				\
	X(FOLIO_CLEAR_ACTIVE, "folio_clear_active", PRIM_INLINE, PTSIM_EV_PAGE_FLAG_ATOMIC,	\
	  "include/linux/page-flags.h: clear_bit(PG_active)")				\
	X(FOLIO_SET_LRU, "folio_set_lru", PRIM_INLINE, PTSIM_EV_PAGE_FLAG_ATOMIC,		\
	  "include/linux/page-flags.h: set_bit(PG_lru)")					\
	X(MUTEX_LOCK, "mutex_lock", PRIM_CALL, PTSIM_EV_PTL_LOCK,				\
	  "kernel/locking/mutex.c (arm64's pgtable_split_lock; counted as a table lock)")	\
	X(SPLIT_QUEUE_LOCK, "spin_lock_irqsave(&ds_queue->split_queue_lock)", PRIM_INLINE,	\
	  PTSIM_EV_PTL_LOCK,									\
	  "mm/huge_memory.c: the deferred split queue's spinlock (counted as a table lock)")

/* Folio references, flags and locks. */
#define PTSIM_PRIMITIVES_FOLIO(X)								\
	X(PAGE_FOLIO, "page_folio", PRIM_INLINE, PRIM_EVENTS,					\
	  "include/linux/page-flags.h: the load of page->compound_head")			\
	X(ALLOC_PAGES, "__alloc_pages_noprof", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/page_alloc.c: a folio of any order from the page allocator")			\
	X(GET_PAGE_FROM_FREELIST, "get_page_from_freelist", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/page_alloc.c (static, out of line): the zone walk, rmqueue inline")		\
	X(RMQUEUE_PCPLIST, "__rmqueue_pcplist", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/page_alloc.c (static, out of line): a page off this CPU's list")		\
	X(TAKE_PAGE_OFF_LIST, "take_page_off_list", PRIM_INLINE, PTSIM_EV_FOLIO_ALLOC,	\
	  "mm/page_alloc.c: the page's list_del, the list's count, its new state")	\
	X(COUNT_PGALLOC, "__count_zid_vm_events(PGALLOC)", PRIM_INLINE, PTSIM_EV_VM_STAT,	\
	  "mm/page_alloc.c: the PGALLOC count, and zone_statistics' NUMA_HIT and NUMA_LOCAL")	\
	X(PREP_NEW_PAGE, "prep_new_page", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/page_alloc.c (static, out of line): a new folio's pages prepared")		\
	X(POST_ALLOC_HOOK, "post_alloc_hook", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/page_alloc.c: ->private cleared, the refcount set, the hooks")		\
	X(FREE_UNREF_PAGE, "free_unref_page", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/page_alloc.c: a folio freed alone to the per-CPU lists (__folio_put)")	\
	X(FREE_PAGES_OK, "__free_pages_ok", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/page_alloc.c (static, out of line): a folio freed alone to the buddy lists")	\
	X(FREE_PAGES_PREPARE, "free_pages_prepare", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/page_alloc.c: a freed folio's struct pages checked and cleared")		\
	X(FREE_PAGE_ONTO_LIST, "free_page_onto_list", PRIM_INLINE, PTSIM_EV_FOLIO_FREE,	\
	  "mm/page_alloc.c: the head's prepare stores and its list_add onto a free list")	\
	X(GET_PFNBLOCK_FLAGS_MASK, "get_pfnblock_flags_mask", PRIM_CALL, PTSIM_EV_HELPER_CALL, \
	  "mm/page_alloc.c: the pageblock's migratetype (get_pfnblock_migratetype)")	\
	X(FREE_UNREF_PAGE_COMMIT, "free_unref_page_commit", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/page_alloc.c (static, out of line): the page onto a per-CPU list")		\
	X(FREE_ONE_PAGE, "free_one_page", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/page_alloc.c (static, out of line): an order the per-CPU lists do not take, "	\
	  "to the buddy lists under zone->lock (split_large_buddy inline)")		\
	X(__FREE_ONE_PAGE, "__free_one_page", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/page_alloc.c (static, out of line): the buddy merge and the free-list add")	\
	X(ACCOUNT_FREEPAGES, "__mod_zone_page_state", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/vmstat.c: account_freepages' NR_FREE_PAGES update (inline in mm/page_alloc.c), "	\
	  "in __free_one_page and in a refill's __rmqueue_smallest")			\
	X(PCP_SPIN_TRYLOCK, "pcp_spin_trylock", PRIM_INLINE, PTSIM_EV_PAGE_ALLOC_LOCK,		\
	  "mm/page_alloc.c: the per-CPU lists' lock, tried, and its unlock")		\
	X(ZONE_LOCK, "spin_lock_irqsave(&zone->lock)", PRIM_INLINE, PTSIM_EV_PAGE_ALLOC_LOCK,	\
	  "mm/page_alloc.c: the zone lock and its unlock (free_one_page, rmqueue_bulk, "	\
	  "free_pcppages_bulk)")								\
	X(FREE_PCPPAGES_BULK, "free_pcppages_bulk", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/page_alloc.c (static, out of line): this CPU's lists drained to the buddy lists") \
	X(PCP_LIST_ADD, "list_add_tail(&page->pcp_list)", PRIM_INLINE, PTSIM_EV_FREE_LIST_OP,	\
	  "mm/page_alloc.c: rmqueue_bulk's add of a block to this CPU's list")		\
	X(PCP_LIST_DEL, "list_del(&page->pcp_list)", PRIM_INLINE, PTSIM_EV_FREE_LIST_OP,	\
	  "mm/page_alloc.c: free_pcppages_bulk's unlink of a block from this CPU's list")	\
	X(ADD_TO_FREE_LIST, "__add_to_free_list", PRIM_INLINE, PTSIM_EV_FREE_LIST_OP,		\
	  "mm/page_alloc.c: a block onto a buddy free area, set_buddy_order beside it "	\
	  "(__free_one_page after a drain)")							\
	X(DEL_PAGE_FROM_FREE_LIST, "__del_page_from_free_list", PRIM_INLINE,			\
	  PTSIM_EV_FREE_LIST_OP,								\
	  "mm/page_alloc.c: a block off a buddy free area, its order cleared "		\
	  "(__rmqueue_smallest in a refill)")							\
	X(COUNT_PGFREE, "__count_vm_events(PGFREE)", PRIM_INLINE, PTSIM_EV_VM_STAT,		\
	  "mm/page_alloc.c: the per-CPU PGFREE event count (raw_cpu_add)")			\
	X(FREE_TAIL_PAGE_PREPARE, "free_tail_page_prepare", PRIM_INLINE, PTSIM_EV_FREE_TAIL_PAGE,	\
	  "mm/page_alloc.c: free_pages_prepare's loop over a large folio's tail pages")	\
	X(FOLIO_ZERO_USER, "folio_zero_user", PRIM_CALL, PTSIM_EV_PAGE_ZERO,			\
	  "mm/memory.c: clear_user_highpage per page (clear_page)")				\
	X(FOLIO_ZERO_RANGE, "folio_zero_range", PRIM_INLINE, PTSIM_EV_PAGE_ZERO,		\
	  "include/linux/highmem.h: a page zeroed by its kmap and memset (swap-in of a zeromap page)") \
	X(COPY_USER_HIGHPAGE, "copy_user_highpage", PRIM_CALL, PTSIM_EV_PAGE_COPY,		\
	  "include/linux/highmem.h -> copy_page: a COW copy")					\
	X(COPY_FROM_USER, "copy_from_user", PRIM_CALL, PTSIM_EV_PAGE_COPY,			\
	  "arch/arm64/lib/copy_from_user.S: __arch_copy_from_user of one page (UFFDIO_COPY)")	\
	X(FOLIO_TRY_DUP_ANON_RMAP, "__folio_try_dup_anon_rmap", PRIM_INLINE, PTSIM_EV_RMAP_DUP,	\
	  "include/linux/rmap.h: always inline; its entry's tests (the per-page work apart)")	\
	X(FOLIO_DUP_FILE_RMAP, "__folio_dup_file_rmap", PRIM_INLINE, PTSIM_EV_RMAP_DUP,		\
	  "include/linux/rmap.h: always inline; its entry's tests (the per-page work apart)")	\
	X(PAGE_MAPCOUNT_ATOMIC, "atomic_*(&page->_mapcount)", PRIM_INLINE,			\
	  PTSIM_EV_MAPCOUNT_ATOMIC,								\
	  "include/linux/rmap.h, mm/rmap.c: one page's (or an order-0 folio's) _mapcount: "	\
	  "atomic_inc (dup), atomic_inc_and_test (add), atomic_add_negative (remove), "	\
	  "_entire_mapcount likewise for a PMD")						\
	X(NR_PAGES_MAPPED_ATOMIC, "atomic_{add,sub}_return_relaxed(&folio->_nr_pages_mapped)",	\
	  PRIM_INLINE, PTSIM_EV_MAPCOUNT_ATOMIC,						\
	  "mm/rmap.c: __folio_add_rmap / __folio_remove_rmap when pages became (un)mapped")	\
	X(FOLIO_LARGE_MAPCOUNT, "folio_{add,sub}_large_mapcount", PRIM_INLINE, PRIM_EVENTS,	\
	  "include/linux/rmap.h (v6.11: one atomic; v6.15 CONFIG_MM_ID: the bit lock's "	\
	  "atomic and plain stores of the count, the MM slot and the unlock)")		\
	X(MAPCOUNT_SET, "atomic_set(&page->_mapcount)", PRIM_INLINE, PTSIM_EV_MAPCOUNT_SET,	\
	  "mm/rmap.c: folio_add_new_anon_rmap initialises a new folio's mapcounts")		\
	X(SET_PAGE_ANON_EXCLUSIVE, "SetPageAnonExclusive", PRIM_INLINE, PTSIM_EV_PAGE_FLAG_ATOMIC, \
	  "include/linux/page-flags.h: set_bit of PG_anon_exclusive")			\
	X(CLEAR_PAGE_ANON_EXCLUSIVE, "ClearPageAnonExclusive", PRIM_INLINE,			\
	  PTSIM_EV_PAGE_FLAG_ATOMIC,								\
	  "include/linux/page-flags.h: clear_bit of PG_anon_exclusive")			\
	X(LRUVEC_STAT_MOD_FOLIO, "__lruvec_stat_mod_folio", PRIM_CALL, PTSIM_EV_LRUVEC_STAT,	\
	  "mm/memcontrol.c: __folio_mod_stat's NR_{ANON,FILE}_MAPPED / NR_ANON_THPS update")	\
	X(FOLIO_GET, "folio_get", PRIM_INLINE, PTSIM_EV_FOLIO_GET,				\
	  "include/linux/mm.h: an atomic increment")						\
	X(FOLIO_REF_ADD, "folio_ref_add", PRIM_INLINE, PTSIM_EV_FOLIO_GET,			\
	  "include/linux/page_ref.h: one atomic add")						\
	X(FOLIO_PUT, "folio_put", PRIM_INLINE, PTSIM_EV_FOLIO_PUT,				\
	  "include/linux/mm.h: __folio_put (mm/swap.c) frees at zero")			\
	X(FOLIO_TEST_LARGE, "folio_test_large", PRIM_INLINE, PTSIM_EV_FOLIO_TEST,		\
	  "include/linux/page-flags.h")							\
	X(FOLIO_TEST_SWAPCACHE, "folio_test_swapcache", PRIM_INLINE, PTSIM_EV_FOLIO_TEST,	\
	  "include/linux/page-flags.h: free_swap_cache's test (inline in free_pages_and_swap_cache)") \
	X(FOLIO_TEST_LRU_STATE, "folio_test_{unevictable,lru,active}", PRIM_INLINE,		\
	  PTSIM_EV_FOLIO_TEST, "include/linux/page-flags.h: an LRU flag's test")		\
	X(FOLIO_CLEAR_LRU_FLAGS, "__folio_clear_lru_flags", PRIM_INLINE, PTSIM_EV_FOLIO_TEST,	\
	  "include/linux/mm_inline.h: PG_lru, PG_active, PG_unevictable cleared in place "	\
	  "(non-atomic), one flag update each")						\
	X(FOLIO_TEST_ANON, "folio_test_anon", PRIM_INLINE, PTSIM_EV_FOLIO_TEST,		\
	  "include/linux/page-flags.h")							\
	X(FOLIO_TEST_PAGECACHE_STATE, "folio_test_{locked,uptodate,readahead}", PRIM_INLINE,	\
	  PTSIM_EV_FOLIO_TEST, "include/linux/page-flags.h: a page-cache folio's flag test "	\
	  "(folio_test_uptodate's smp_rmb apart)")						\
	X(FOLIO_TRY_GET, "folio_try_get", PRIM_INLINE, PTSIM_EV_FOLIO_GET,			\
	  "include/linux/page_ref.h: folio_ref_try_add's atomic add unless zero")		\
	X(FOLIO_TEST_KSM, "folio_test_ksm", PRIM_INLINE, PTSIM_EV_FOLIO_TEST,			\
	  "include/linux/page-flags.h: folio->mapping's KSM tag (the model has no KSM)")	\
	X(PAGE_ANON_EXCLUSIVE, "PageAnonExclusive", PRIM_INLINE, PTSIM_EV_ANON_EXCL_TEST,	\
	  "include/linux/page-flags.h: a test of the page's own flags")			\
	X(FOLIO_TRYLOCK, "folio_trylock", PRIM_INLINE, PTSIM_EV_FOLIO_TRYLOCK,			\
	  "include/linux/pagemap.h")								\
	X(FOLIO_LOCK, "folio_lock", PRIM_INLINE, PTSIM_EV_FOLIO_LOCK_WAIT,			\
	  "include/linux/pagemap.h: after a failed trylock, __folio_lock (mm/filemap.c) sleeps") \
	X(FOLIO_UNLOCK, "folio_unlock", PRIM_CALL, PTSIM_EV_FOLIO_UNLOCK, "mm/filemap.c")

/* folio_pte_batch (src/primitives/pte_batch.c). */
#define PTSIM_PRIMITIVES_BATCH(X)								\
	X(FOLIO_PTE_BATCH, "folio_pte_batch_flags", PRIM_INLINE, PTSIM_EV_PTE_BATCH,		\
	  "mm/internal.h: static inline (v6.12's folio_pte_batch); its entries are read "	\
	  "with ptep_get")									\
	X(FOLIO_PTE_BATCH_CALL, "folio_pte_batch", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/util.c (v6.17): the out-of-line entry of the callers without flags")

/* The swap cache and swap map. */
#define PTSIM_PRIMITIVES_SWAP(X)								\
	X(FREE_SWAP_AND_CACHE, "free_swap_and_cache_nr", PRIM_CALL, PTSIM_EV_SWAP_LOOKUP,	\
	  "mm/swapfile.c: a zapped swap entry's slot freed")					\
	X(SWAP_DUPLICATE, "swap_duplicate", PRIM_CALL, PTSIM_EV_SWAP_LOOKUP,			\
	  "mm/swapfile.c: one more reference to a swap slot (fork, an unmap to swap)")	\
	X(SWAP_CACHE_GET_FOLIO, "swap_cache_get_folio", PRIM_CALL, PTSIM_EV_SWAP_LOOKUP,	\
	  "mm/swap_state.c: a swap entry's folio looked up in the swap cache")		\
	X(FOLIO_ALLOC_SWAP, "folio_alloc_swap", PRIM_CALL, PTSIM_EV_SWAP_LOOKUP,		\
	  "mm/swapfile.c: add_to_swap's slots, one per page")					\
	X(DELETE_FROM_SWAP_CACHE, "__delete_from_swap_cache", PRIM_CALL, PTSIM_EV_SWAP_LOOKUP,	\
	  "mm/swap_state.c: __remove_mapping takes a written folio out of the swap cache")	\
	X(FREE_SWAP_CACHE, "free_swap_cache", PRIM_CALL, PRIM_EVENTS,				\
	  "mm/swap_state.c: the call and its folio_test_swapcache (the model has no swap cache)")

/*
 * Swap-out as v6.12 shrink_folio_list makes it for a swap-backed anonymous
 * folio (mm/swap_state.c, mm/page_io.c, mm/page-writeback.c, mm/filemap.c;
 * linkage from v6.12's clang-19 objects): into the swap cache, written,
 * out of the swap cache. The swap cache's xa_lock is priced with the call
 * that takes it (a SWAP_LOOKUP: the call and its lock).
 */
#define PTSIM_PRIMITIVES_SWAPOUT(X)								\
	X(ADD_TO_SWAP, "add_to_swap", PRIM_CALL, PTSIM_EV_HELPER_CALL,				\
	  "mm/swap_state.c: a folio's swap slots and its place in the swap cache")		\
	X(ADD_TO_SWAP_CACHE, "add_to_swap_cache", PRIM_CALL, PTSIM_EV_SWAP_LOOKUP,		\
	  "mm/swap_state.c: the call, xas_create_range and the swap cache's xa_lock_irq")	\
	X(XAS_STORE, "xas_store", PRIM_CALL, PTSIM_EV_HELPER_CALL,				\
	  "lib/xarray.c: one slot of the swap cache filled or emptied (a call per page), or "	\
	  "a shmem folio's (its body a priced path of its own)")				\
	X(XAS_CREATE, "xas_create", PRIM_CALL, PTSIM_EV_HELPER_CALL,				\
	  "lib/xarray.c: static, out of line: xas_store's walk to the slot's node")		\
	X(WORKINGSET_UPDATE_NODE, "workingset_update_node", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/workingset.c: the swap cache's xa_update callback, through update_node's pointer") \
	X(MOD_NODE_PAGE_STATE, "__mod_node_page_state", PRIM_CALL, PTSIM_EV_VM_STAT,		\
	  "mm/vmstat.c: a node counter (NR_FILE_PAGES of the swap cache; the irq-safe "	\
	  "mod_node_page_state and mod_zone_page_state likewise)")				\
	X(FOLIO_SET_SWAPCACHE, "folio_set_swapcache", PRIM_INLINE, PTSIM_EV_PAGE_FLAG_ATOMIC,	\
	  "include/linux/page-flags.h: set_bit(PG_swapcache)")				\
	X(FOLIO_CLEAR_SWAPCACHE, "folio_clear_swapcache", PRIM_INLINE,				\
	  PTSIM_EV_PAGE_FLAG_ATOMIC, "include/linux/page-flags.h: clear_bit(PG_swapcache)")	\
	X(FOLIO_MAPPING, "folio_mapping", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/util.c: the swap cache's address_space of a swap-cache folio")			\
	X(FOLIO_MARK_DIRTY, "folio_mark_dirty", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/page-writeback.c: ->dirty_folio through folio_mapping")			\
	X(NOOP_DIRTY_FOLIO, "noop_dirty_folio", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/page-writeback.c: the swap cache's ->dirty_folio (swap_aops)")			\
	X(FOLIO_TEST_SET_DIRTY, "folio_test_set_dirty", PRIM_INLINE, PTSIM_EV_PAGE_FLAG_ATOMIC, \
	  "include/linux/page-flags.h: test_and_set_bit(PG_dirty)")				\
	X(FOLIO_CLEAR_DIRTY_FOR_IO, "folio_clear_dirty_for_io", PRIM_CALL, PTSIM_EV_HELPER_CALL, \
	  "mm/page-writeback.c: pageout's; the swap cache does no dirty accounting "	\
	  "(inode_to_bdi: no BDI_CAP_WRITEBACK)")						\
	X(INODE_TO_BDI, "inode_to_bdi", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/backing-dev.c: mapping_can_writeback's test")					\
	X(FOLIO_TEST_CLEAR_DIRTY, "folio_test_clear_dirty", PRIM_INLINE,			\
	  PTSIM_EV_PAGE_FLAG_ATOMIC, "include/linux/page-flags.h: test_and_clear_bit(PG_dirty)") \
	X(FOLIO_SET_RECLAIM, "folio_set_reclaim", PRIM_INLINE, PTSIM_EV_PAGE_FLAG_ATOMIC,	\
	  "include/linux/page-flags.h: set_bit(PG_reclaim) before ->writepage")		\
	X(FOLIO_CLEAR_RECLAIM, "folio_clear_reclaim", PRIM_INLINE, PTSIM_EV_PAGE_FLAG_ATOMIC,	\
	  "include/linux/page-flags.h: clear_bit(PG_reclaim)")				\
	X(SWAP_WRITEPAGE, "swap_writepage", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/page_io.c: pageout's ->writepage of the swap cache (pageout is inline in "	\
	  "shrink_folio_list)")									\
	X(FOLIO_FREE_SWAP, "folio_free_swap", PRIM_CALL, PTSIM_EV_SWAP_LOOKUP,			\
	  "mm/swapfile.c: false while the entries that replaced the PTEs count the slots")	\
	X(ARCH_PREPARE_TO_SWAP, "arch_prepare_to_swap", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "arch/arm64/mm/mteswap.c: nothing to save without MTE tags")			\
	X(SWP_SWAP_INFO, "swp_swap_info", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/swapfile.c: the swap device of the folio's entry")				\
	X(__SWAP_WRITEPAGE, "__swap_writepage", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/page_io.c: swap_writepage_bdev_sync inline (SWP_SYNCHRONOUS_IO)")		\
	X(BIO_INIT, "bio_init", PRIM_CALL, PTSIM_EV_HELPER_CALL,				\
	  "block/bio.c: the bio on swap_writepage_bdev_sync's stack")			\
	X(SWAP_FOLIO_SECTOR, "swap_folio_sector", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/page_io.c: the device sector of the folio's first slot")			\
	X(BIO_ADD_FOLIO_NOFAIL, "bio_add_folio_nofail", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "block/bio.c: the folio as the bio's one segment")					\
	X(BIO_ASSOCIATE_BLKG, "bio_associate_blkg_from_css", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "block/blk-cgroup.c: the bio charged to the folio's cgroup (cgroup_e_css too)")	\
	X(COUNT_SWPOUT_VM_EVENT, "count_swpout_vm_event", PRIM_INLINE, PTSIM_EV_VM_STAT,	\
	  "mm/page_io.c (inline in __swap_writepage): PSWPOUT and the memcg's event, two")	\
	X(FOLIO_START_WRITEBACK, "__folio_start_writeback", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/page-writeback.c: the swap cache keeps no writeback tags")			\
	X(FOLIO_TEST_SET_WRITEBACK, "folio_test_set_writeback", PRIM_INLINE,			\
	  PTSIM_EV_PAGE_FLAG_ATOMIC, "include/linux/page-flags.h: test_and_set_bit(PG_writeback)") \
	X(END_SWAP_BIO_WRITE, "__end_swap_bio_write", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/page_io.c: the synchronous write's completion")				\
	X(FOLIO_END_WRITEBACK, "folio_end_writeback", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/filemap.c: PG_reclaim, a reference held across __folio_end_writeback")		\
	X(FOLIO_ROTATE_RECLAIMABLE, "folio_rotate_reclaimable", PRIM_CALL, PTSIM_EV_HELPER_CALL, \
	  "mm/swap.c: returns at once for a folio reclaim has isolated (not on an LRU)")	\
	X(__FOLIO_END_WRITEBACK, "__folio_end_writeback", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/page-writeback.c: PG_writeback cleared, NR_WRITEBACK, NR_ZONE_WRITE_PENDING, "	\
	  "NR_WRITTEN")										\
	X(FOLIO_TEST_CLEAR_WRITEBACK, "folio_xor_flags_has_waiters", PRIM_INLINE,		\
	  PTSIM_EV_PAGE_FLAG_ATOMIC, "include/linux/page-flags.h: PG_writeback cleared")	\
	X(REMOVE_MAPPING, "__remove_mapping", PRIM_CALL, PTSIM_EV_SWAP_LOOKUP,			\
	  "mm/vmscan.c: the call and the swap cache's xa_lock_irq")				\
	X(MEM_CGROUP_SWAPOUT, "mem_cgroup_swapout", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/memcontrol.c: the folio's charge moved to its swap entries")			\
	X(WORKINGSET_EVICTION, "workingset_eviction", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/workingset.c: the shadow entry left in the swap cache")				\
	X(PUT_SWAP_FOLIO, "put_swap_folio", PRIM_CALL, PTSIM_EV_SWAP_LOOKUP,			\
	  "mm/swapfile.c: the slots' SWAP_HAS_CACHE dropped under the cluster lock")		\
	X(DELETE_FROM_SWAP_CACHE_CALL, "delete_from_swap_cache", PRIM_CALL,			\
	  PTSIM_EV_SWAP_LOOKUP, "mm/swap_state.c: the call and the swap cache's xa_lock_irq")	\
	X(FOLIO_TEST_WRITEBACK, "folio_test_writeback", PRIM_INLINE, PTSIM_EV_FOLIO_TEST,	\
	  "include/linux/page-flags.h: PG_writeback tested")					\
	X(FOLIO_TEST_DIRTY, "folio_test_dirty", PRIM_INLINE, PTSIM_EV_FOLIO_TEST,		\
	  "include/linux/page-flags.h: PG_dirty tested")					\
	X(SWAP_ZEROMAP_BIT, "set_bit(sis->zeromap)", PRIM_INLINE, PTSIM_EV_PAGE_FLAG_ATOMIC,	\
	  "mm/page_io.c: a page's zeromap bit set or cleared (swap_zeromap_folio_set/_clear, "	\
	  "inline in swap_writepage)")							\
	X(GET_OBJ_CGROUP_FROM_FOLIO, "get_obj_cgroup_from_folio", PRIM_CALL,			\
	  PTSIM_EV_HELPER_CALL, "mm/memcontrol.c: swap_zeromap_folio_set's memcg, for SWPOUT_ZERO") \
	X(COUNT_MEMCG_EVENTS, "__count_memcg_events", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/memcontrol.c: a memcg's event counter (count_objcg_events' SWPOUT_ZERO)")	\
	X(RCU_READ_LOCK, "__rcu_read_lock", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "kernel/rcu/tree_plugin.h: PREEMPT_RCU's read-side lock, a call (its unlock too)")	\
	X(COUNT_VM_EVENTS, "count_vm_events", PRIM_INLINE, PTSIM_EV_VM_STAT,			\
	  "include/linux/vmstat.h: a per-CPU event counter (SWPOUT_ZERO)")			\
	X(IS_PAGE_CACHE_FREEABLE, "is_page_cache_freeable", PRIM_INLINE, PTSIM_EV_FOLIO_TEST,	\
	  "mm/vmscan.c: pageout's test of the refcount against the folio's pages")		\
	X(FOLIO_SET_DIRTY, "folio_set_dirty", PRIM_INLINE, PTSIM_EV_PAGE_FLAG_ATOMIC,		\
	  "include/linux/page-flags.h: set_bit(PG_dirty), folio_free_swap's")

/* Loop steps: what one turn of a page-table loop costs beyond the primitives it calls. */
#define PTSIM_PRIMITIVES_LOOPS(X)								\
	X(PTE_LOOP_STEP, "pte loop step", PRIM_INLINE, PTSIM_EV_PTE_LOOP,			\
	  "one turn of a PTE loop: do { } while (pte++, addr += PAGE_SIZE, addr != end)")	\
	X(PMD_LOOP_STEP, "pmd loop step", PRIM_INLINE, PTSIM_EV_PMD_ITER,			\
	  "one turn of a PMD loop: pmd_addr_end and the PMD checks (a cond_resched is apart)")

/*
 * Calls of out-of-line kernel functions the model counts at their entry
 * (the function's own work is counted by the primitives it calls).
 */
#define PTSIM_PRIMITIVES_CALLS(X)								\
	X(CONTPTE_CONVERT, "contpte_convert", PRIM_CALL, PTSIM_EV_CONTPTE_CONVERT,		\
	  "arch/arm64/mm/contpte.c")								\
	X(CONTPTE_TRY_FOLD, "__contpte_try_fold", PRIM_CALL, PTSIM_EV_FOLD_ATTEMPT,		\
	  "arch/arm64/mm/contpte.c (contpte_try_fold, inline, calls it)")			\
	X(CONTPTE_FOLD, "contpte_convert (fold)", PRIM_CALL, PTSIM_EV_CONTPTE_FOLD,		\
	  "arch/arm64/mm/contpte.c: a fold that passed its checks")				\
	X(CONTPTE_TRY_UNFOLD, "__contpte_try_unfold", PRIM_CALL, PTSIM_EV_CONTPTE_UNFOLD,	\
	  "arch/arm64/mm/contpte.c (contpte_try_unfold, inline, calls it; it calls "		\
	  "contpte_convert)")									\
	X(CONTPTE_SET_PTES, "contpte_set_ptes", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "arch/arm64/mm/contpte.c (set_ptes, inline, calls it for nr > 1)")			\
	X(CONTPTE_GET_AND_CLEAR_FULL_PTES, "contpte_get_and_clear_full_ptes", PRIM_CALL,	\
	  PTSIM_EV_HELPER_CALL,									\
	  "arch/arm64/mm/contpte.c (get_and_clear_full_ptes, inline, calls it for nr > 1)")	\
	X(CONTPTE_CLEAR_FULL_PTES, "contpte_clear_full_ptes", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "arch/arm64/mm/contpte.c (clear_full_ptes, inline, calls it for nr > 1)")		\
	X(CONTPTE_PTEP_CLEAR_FLUSH_YOUNG, "contpte_ptep_clear_flush_young", PRIM_CALL,	\
	  PTSIM_EV_HELPER_CALL,								\
	  "arch/arm64/mm/contpte.c: AF cleared in a whole block, its TLBIs if any was young") \
	X(PMDP_CLEAR_FLUSH_YOUNG, "pmdp_clear_flush_young", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/pgtable-generic.c: a PMD leaf's AF cleared, its TLB entries if it was young")	\
	X(CONTPTE_WRPROTECT_PTES, "contpte_wrprotect_ptes", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "arch/arm64/mm/contpte.c (wrprotect_ptes, inline, calls it for nr > 1)")		\
	X(CONTPTE_CLEAR_YOUNG_DIRTY_PTES, "contpte_clear_young_dirty_ptes", PRIM_CALL,		\
	  PTSIM_EV_HELPER_CALL,									\
	  "arch/arm64/mm/contpte.c (clear_young_dirty_ptes, inline, calls it unless one "	\
	  "non-cont entry)")									\
	X(CONTPTE_PTEP_SET_ACCESS_FLAGS, "contpte_ptep_set_access_flags", PRIM_CALL,		\
	  PTSIM_EV_HELPER_CALL,									\
	  "arch/arm64/mm/contpte.c (ptep_set_access_flags, inline, calls it for a cont entry)")	\
	X(CONTPTE_PTEP_GET, "contpte_ptep_get", PRIM_CALL, PTSIM_EV_CONTPTE_GATHER,		\
	  "arch/arm64/mm/contpte.c (ptep_get, inline, calls it for a cont entry)")		\
	X(CAN_CHANGE_PTE_WRITABLE, "can_change_pte_writable", PRIM_CALL,			\
	  PTSIM_EV_CAN_CHANGE_WRITABLE,							\
	  "mm/mprotect.c: a global function (v6.16); v6.17's batched path calls the static "	\
	  "can_change_shared_pte_writable / maybe_change_pte_writable inline instead")		\
	X(MODIFY_PROT_COMMIT_PTES, "modify_prot_commit_ptes", PRIM_CALL, PTSIM_EV_PROT_COMMIT,	\
	  "arch/arm64/mm/mmu.c (v6.17; set_ptes), called by mm/mprotect.c's __always_inline "	\
	  "prot_commit_flush_ptes")								\
	X(PTEP_MODIFY_PROT_COMMIT, "ptep_modify_prot_commit", PRIM_CALL, PTSIM_EV_PROT_COMMIT,	\
	  "arch/arm64/mm/mmu.c (before v6.17's batched commit): set_pte_at")			\
	X(MODIFY_PROT_START_PTES, "modify_prot_start_ptes", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "arch/arm64/mm/mmu.c (v6.17): get_and_clear_ptes")					\
	X(PTEP_MODIFY_PROT_START, "ptep_modify_prot_start", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "arch/arm64/mm/mmu.c (before v6.17): the erratum 2645198 test, ptep_get_and_clear")	\
	X(SYSCALL, "el0_svc", PRIM_CALL, PTSIM_EV_SYSCALL,					\
	  "arch/arm64/kernel/entry-common.c: a system call's entry and return")		\
	X(DO_PAGE_FAULT, "do_page_fault", PRIM_CALL, PTSIM_EV_FAULT,				\
	  "arch/arm64/mm/fault.c: the abort's entry, do_page_fault, handle_mm_fault, return")	\
	X(FAULT_RETRY, "do_page_fault (VM_FAULT_RETRY)", PRIM_CALL, PTSIM_EV_FAULT_RETRY,	\
	  "arch/arm64/mm/fault.c: the fault taken again after the mmap lock was dropped")	\
	X(VM_NORMAL_PAGE, "vm_normal_page", PRIM_CALL, PTSIM_EV_FOLIO_LOOKUP,			\
	  "mm/memory.c (with the page_folio load of the struct page it finds)")		\
	X(SPLIT_HUGE_PMD, "__split_huge_pmd", PRIM_CALL, PTSIM_EV_HUGE_PMD_SPLIT,		\
	  "mm/huge_memory.c")									\
	X(SPLIT_FOLIO, "split_folio", PRIM_CALL, PTSIM_EV_FOLIO_SPLIT,				\
	  "mm/huge_memory.c: split_huge_page_to_list_to_order")				\
	X(SPLIT_HUGE_PAGE_TAIL, "__split_huge_page_tail", PRIM_INLINE, PTSIM_EV_SPLIT_PAGE_TAIL, \
	  "mm/huge_memory.c: a tail page made a folio of its own (inline in __split_huge_page)") \
	X(FOLIO_XCHG_LAST_CPUPID, "folio_xchg_last_cpupid", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/mmzone.c: the NUMA-balancing cpupid moved into a page's flags")		\
	X(PAGE_FLAGS_CMPXCHG, "try_cmpxchg(&folio->flags)", PRIM_INLINE, PTSIM_EV_PAGE_FLAG_ATOMIC, \
	  "mm/mmzone.c: folio_xchg_last_cpupid's compare-and-swap of the flags word")	\
	X(SPLIT_PAGE_MEMCG, "split_page_memcg", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/memcontrol.c: the new folios charged to the memcg of the split one")		\
	X(FOLIO_REF_FREEZE, "folio_ref_freeze", PRIM_INLINE, PTSIM_EV_FOLIO_PUT,		\
	  "include/linux/page_ref.h: the refcount swapped to 0 if it holds the expected count") \
	X(FOLIO_LRUVEC_LOCK, "folio_lruvec_lock", PRIM_CALL, PTSIM_EV_LRU_LOCK,		\
	  "mm/memcontrol.c: the folio's lruvec's lru_lock (_irq likewise; and its unlock)")	\
	X(REMOVE_MIGRATION_PTES, "remove_migration_ptes", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/migrate.c: a folio's migration entries back to present ones (rmap walk)")	\
	X(PAGES_IDENTICAL, "pages_identical", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "include/linux/mm.h: memcmp_pages against the zero page (mm/util.c)")		\
	X(FREE_PAGE_AND_SWAP_CACHE, "free_page_and_swap_cache", PRIM_CALL, PTSIM_EV_HELPER_CALL, \
	  "mm/swap_state.c: the split's reference on a new folio dropped (folio_put)")	\
	X(TRY_TO_UNMAP_FLUSH, "try_to_unmap_flush", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/rmap.c: the deferred TLBIs completed (arch_tlbbatch_flush)")			\
	X(TRY_TO_UNMAP_FLUSH_DIRTY, "try_to_unmap_flush_dirty", PRIM_CALL, PTSIM_EV_HELPER_CALL, \
	  "mm/rmap.c: the deferred TLBIs completed if a writable entry was unmapped")	\
	X(TRY_TO_MIGRATE, "try_to_migrate", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/rmap.c: a folio's mappings replaced by migration entries (rmap walk)")	\
	X(FOLIO_REFERENCED, "folio_referenced", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/rmap.c: reclaim's count of a folio's young mappings (rmap walk)")		\
	X(FOLIO_LOCK_ANON_VMA_READ, "folio_lock_anon_vma_read", PRIM_CALL, PTSIM_EV_HELPER_CALL, \
	  "mm/rmap.c: folio_referenced's rwc->anon_lock (the anon_vma's rwsem, tried)")	\
	X(INVALID_VMA, "rwc->invalid_vma", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/rmap.c: the walk's per-VMA filter through its pointer "			\
	  "(invalid_folio_referenced_vma)")							\
	X(PAGE_VMA_MAPPED_WALK, "page_vma_mapped_walk", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/page_vma_mapped.c: the next entry of a folio mapped in a VMA (one call per entry, "	\
	  "one that finds no more)")								\
	X(CHECK_PTE, "check_pte", PRIM_CALL, PTSIM_EV_HELPER_CALL,				\
	  "mm/page_vma_mapped.c (static, out of line): whether a present entry maps the folio") \
	X(MAP_PTE, "map_pte", PRIM_CALL, PTSIM_EV_HELPER_CALL,					\
	  "mm/page_vma_mapped.c (static, out of line): the walk's PTE table mapped and locked") \
	X(FOLIO_CLEAR_SWAPBACKED, "folio_clear_swapbacked", PRIM_INLINE,			\
	  PTSIM_EV_PAGE_FLAG_ATOMIC, "include/linux/page-flags.h: clear_bit(PG_swapbacked)")	\
	X(FOLIO_CLEAR_REFERENCED, "folio_clear_referenced", PRIM_INLINE,			\
	  PTSIM_EV_PAGE_FLAG_ATOMIC, "include/linux/page-flags.h: clear_bit(PG_referenced)")	\
	X(FOLIO_SET_REFERENCED, "folio_set_referenced", PRIM_INLINE, PTSIM_EV_PAGE_FLAG_ATOMIC, \
	  "include/linux/page-flags.h: set_bit(PG_referenced)")				\
	X(FOLIO_TEST_CLEAR_REFERENCED, "folio_test_clear_referenced", PRIM_INLINE,		\
	  PTSIM_EV_PAGE_FLAG_ATOMIC, "include/linux/page-flags.h: test_and_clear_bit(PG_referenced)") \
	X(MMU_NOTIFIER_CLEAR_FLUSH_YOUNG, "mmu_notifier_clear_flush_young", PRIM_INLINE,	\
	  PTSIM_EV_NOTIFIER_SECONDARY_TLBS,							\
	  "include/linux/mmu_notifier.h: its mm_has_notifiers test (no call without notifiers)") \
	X(TRY_TO_UNMAP, "try_to_unmap", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/rmap.c: a folio's mappings removed through an rmap walk")			\
	X(RMAP_WALK_ANON, "rmap_walk_anon", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/rmap.c: the VMAs of a folio's anon_vma visited (static, out of line)")		\
	X(ANON_VMA_INTERVAL_TREE_ITER, "anon_vma_interval_tree_iter_first", PRIM_CALL,	\
	  PTSIM_EV_HELPER_CALL,								\
	  "mm/interval_tree.c: the walk's first VMA, and each next one (_iter_next)")	\
	X(RMAP_ONE, "rwc->rmap_one", PRIM_CALL, PTSIM_EV_HELPER_CALL,				\
	  "mm/rmap.c: the walk's per-VMA work through its pointer (try_to_unmap_one, ...)") \
	X(RMAP_DONE, "rwc->done", PRIM_CALL, PTSIM_EV_HELPER_CALL,				\
	  "mm/rmap.c: the walk's stop test through its pointer (folio_not_mapped)")	\
	X(FOLIOS_PUT_REFS, "folios_put_refs", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/swap.c: a folio_batch's references dropped, the folios that lose their last freed") \
	X(MEM_CGROUP_UNCHARGE_FOLIOS, "mem_cgroup_uncharge_folios", PRIM_CALL,		\
	  PTSIM_EV_HELPER_CALL, "mm/memcontrol.c: a batch of freed folios uncharged")	\
	X(FREE_UNREF_FOLIOS, "free_unref_folios", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/page_alloc.c: a batch of folios back to the per-CPU page lists")		\
	X(RELEASE_PAGES, "release_pages", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/swap.c before v6.9: up to 512 gathered entries' references dropped, the "	\
	  "folios that lose their last freed")						\
	X(MEM_CGROUP_UNCHARGE_LIST, "__mem_cgroup_uncharge_list", PRIM_CALL,			\
	  PTSIM_EV_HELPER_CALL, "mm/memcontrol.c before v6.9: a list of freed order-0 folios uncharged") \
	X(FREE_UNREF_PAGE_LIST, "free_unref_page_list", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/page_alloc.c before v6.9: a list of order-0 pages back to the per-CPU lists")	\
	X(FOLIO_PUT_SLOW, "__folio_put", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/swap.c: a folio's last reference dropped outside a batch (page_cache_release, "	\
	  "the memcg uncharge, free_unref_page)")						\
	X(DESTROY_LARGE_FOLIO, "destroy_large_folio", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/page_alloc.c before v6.9: a large folio freed alone (mem_cgroup_uncharge, "	\
	  "free_the_page)")									\
	X(MLOCK_FOLIO, "mlock_folio", PRIM_CALL, PTSIM_EV_MLOCK_FOLIO,				\
	  "mm/mlock.c (munlock_folio likewise): the per-CPU batch and the LRU work")		\
	X(FOLIO_REMOVE_RMAP_PTES, "folio_remove_rmap_ptes", PRIM_CALL, PTSIM_EV_RMAP_REMOVE,	\
	  "mm/rmap.c (folio_remove_rmap_pte, folio_remove_rmap_pmd likewise)")		\
	X(DEFERRED_SPLIT_FOLIO, "deferred_split_folio", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/huge_memory.c: queues a large anonymous folio for a split under memory pressure") \
	X(FOLIO_UNDO_LARGE_RMAPPABLE, "folio_undo_large_rmappable", PRIM_CALL,			\
	  PTSIM_EV_HELPER_CALL,								\
	  "mm/huge_memory.c: a queued folio leaves the queue as it is freed "			\
	  "(v6.12: folio_unqueue_deferred_split)")						\
	X(FOLIO_ADD_NEW_ANON_RMAP, "folio_add_new_anon_rmap", PRIM_CALL, PTSIM_EV_RMAP_ADD,	\
	  "mm/rmap.c: a new anonymous folio's first mappings")				\
	X(FOLIO_ADD_ANON_RMAP_PTES, "folio_add_anon_rmap_ptes", PRIM_CALL, PTSIM_EV_RMAP_ADD,	\
	  "mm/rmap.c (folio_add_anon_rmap_pte likewise)")					\
	X(FOLIO_ADD_FILE_RMAP_PTES, "folio_add_file_rmap_ptes", PRIM_CALL, PTSIM_EV_RMAP_ADD,	\
	  "mm/rmap.c (folio_add_file_rmap_pte likewise)")					\
	X(FOLIO_MOVE_ANON_RMAP, "folio_move_anon_rmap", PRIM_CALL, PTSIM_EV_RMAP_MOVE,		\
	  "mm/rmap.c")										\
	X(FOLIO_GET_ANON_VMA, "folio_get_anon_vma", PRIM_CALL, PRIM_EVENTS,			\
	  "mm/rmap.c: an RCU section, two folio_mapped tests, the anon_vma reference")	\
	X(ANON_VMA_TRYLOCK_WRITE, "anon_vma_trylock_write", PRIM_CALL, PRIM_EVENTS,		\
	  "include/linux/rmap.h: down_write_trylock, an out-of-line call")			\
	X(ANON_VMA_UNLOCK_WRITE, "anon_vma_unlock_write", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "include/linux/rmap.h: up_write, an out-of-line call")				\
	X(PUT_ANON_VMA, "put_anon_vma", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/rmap.c: the reference folio_get_anon_vma took")

/* Memory: page-table pages, the page cache, I/O, VMAs. */
#define PTSIM_PRIMITIVES_MEMORY(X)								\
	X(PAGETABLE_ALLOC, "pagetable_alloc", PRIM_CALL, PTSIM_EV_TABLE_ALLOC,			\
	  "include/linux/mm.h: a page-table page from the page allocator (pte_alloc_one, ...)") \
	X(PAGETABLE_FREE, "pagetable_free", PRIM_CALL, PTSIM_EV_TABLE_FREE,			\
	  "include/linux/mm.h: a page-table page back to the page allocator")		\
	X(FILEMAP_GET_ENTRY, "filemap_get_entry", PRIM_CALL, PTSIM_EV_PAGE_CACHE_LOOKUP,	\
	  "mm/filemap.c: an xarray walk of the page cache")					\
	X(SHMEM_ALLOC_AND_ADD_FOLIO, "shmem_alloc_and_add_folio", PRIM_CALL,			\
	  PTSIM_EV_HELPER_CALL, "mm/shmem.c: static, out of line: a new folio charged, into "	\
	  "the page cache and onto the LRU")							\
	X(SHMEM_ADD_TO_PAGE_CACHE, "shmem_add_to_page_cache", PRIM_CALL,			\
	  PTSIM_EV_PAGE_CACHE_LOOKUP, "mm/shmem.c: static, out of line: the call and the "	\
	  "mapping's xa_lock_irq (its xas_store and stats apart)")				\
	X(XAS_FIND_CONFLICT, "xas_find_conflict", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "lib/xarray.c: shmem_add_to_page_cache's check of the slot")			\
	X(SHMEM_INODE_ACCT_BLOCKS, "shmem_inode_acct_blocks", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/shmem.c: static, out of line: the blocks charged to the inode")		\
	X(SHMEM_RECALC_INODE, "shmem_recalc_inode", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/shmem.c: static, out of line: the inode's page counts under info->lock")	\
	X(FLUSH_DCACHE_FOLIO, "flush_dcache_folio", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "arch/arm64/mm/flush.c: after a cleared page (PG_dcache_clean cleared)")		\
	X(FILEMAP_REMOVE_FOLIO, "__filemap_remove_folio", PRIM_CALL, PTSIM_EV_PAGE_CACHE_LOOKUP, \
	  "mm/filemap.c: a folio's pages out of the page cache")				\
	X(FILEMAP_MAP_FOLIO_RANGE, "filemap_map_folio_range", PRIM_INLINE, PTSIM_EV_MAP_PAGES,	\
	  "mm/filemap.c: static, inlined into filemap_map_pages (filemap_map_order0_folio "	\
	  "likewise): per page examined, the PageHWPoison and workingset tests")		\
	X(SET_PTE_RANGE, "set_pte_range", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/memory.c: a global function, called from mm/filemap.c once per run of a "	\
	  "folio's pages: its set_ptes and rmap add are counted apart")			\
	X(PGMAJFAULT, "count_vm_event(PGMAJFAULT)", PRIM_INLINE, PTSIM_EV_MAJOR_FAULT,		\
	  "include/linux/vmstat.h: a major fault (its I/O and retry are counted apart)")	\
	X(SUBMIT_BIO, "submit_bio", PRIM_CALL, PRIM_EVENTS,					\
	  "block/blk-core.c: one I/O request and its bytes")					\
	X(SPLIT_VMA, "__split_vma", PRIM_CALL, PTSIM_EV_VMA_SPLIT, "mm/vma.c")			\
	X(VMA_MERGE, "vma_merge_existing_range", PRIM_CALL, PTSIM_EV_VMA_MERGE,		\
	  "mm/vma.c (v6.12; vma_merge before it)")						\
	X(VMA_MERGE_NEW, "vma_merge_new_range", PRIM_CALL, PTSIM_EV_VMA_MERGE,			\
	  "mm/vma.c (v6.12; vma_merge before it): a new mapping taken by its neighbours")

/*
 * The VMA machinery (v6.12: mm/vma.c, mm/mmap.c, kernel/fork.c, mm/rmap.c,
 * lib/maple_tree.c): VMA structures, the maple tree of VMAs, mmap_lock and
 * the per-VMA locks, anon_vma set-up and the accounting.
 */
#define PTSIM_PRIMITIVES_VMA(X)									\
	X(MMAP_WRITE_LOCK, "mmap_write_lock", PRIM_CALL, PTSIM_EV_RWSEM,			\
	  "include/linux/mmap_lock.h: down_write of mm->mmap_lock (kernel/locking/rwsem.c) "	\
	  "and its release, which ends the hold's VMA write locks (vma_end_write_all)")		\
	X(MMAP_READ_LOCK, "mmap_read_lock", PRIM_CALL, PTSIM_EV_RWSEM,				\
	  "include/linux/mmap_lock.h: down_read of mm->mmap_lock and its release")		\
	X(VMA_START_WRITE, "vma_start_write", PRIM_INLINE, PTSIM_EV_RWSEM,			\
	  "include/linux/mm.h: down_write/up_write of the VMA's lock, once per mmap_lock hold "	\
	  "(vm_lock_seq == mm_lock_seq: nothing)")						\
	X(VM_AREA_ALLOC, "vm_area_alloc", PRIM_CALL, PRIM_EVENTS,				\
	  "kernel/fork.c: the vm_area_struct and its vma_lock (vma_lock_alloc), two slab "	\
	  "allocations (v6.4 .. v6.14)")							\
	X(VM_AREA_DUP, "vm_area_dup", PRIM_CALL, PRIM_EVENTS,					\
	  "kernel/fork.c: as vm_area_alloc, the copy of the original included")		\
	X(VM_AREA_FREE, "vm_area_free", PRIM_CALL, PRIM_EVENTS,				\
	  "kernel/fork.c: call_rcu; __vm_area_free frees the vma_lock and the vm_area_struct")	\
	X(VMA_ITER_STORE, "vma_iter_store", PRIM_CALL, PRIM_EVENTS,				\
	  "mm/vma.h: vma_iter_prealloc (mas_preallocate) and mas_store_prealloc "		\
	  "(lib/maple_tree.c): the nodes the store writes")					\
	X(MT_DUP, "__mt_dup", PRIM_CALL, PRIM_EVENTS,						\
	  "lib/maple_tree.c: dup_mmap copies the parent's VMA tree, every node")		\
	X(MT_DESTROY, "__mt_destroy", PRIM_CALL, PTSIM_EV_SLAB_FREE,				\
	  "lib/maple_tree.c: exit_mmap frees every node of the VMA tree")			\
	X(ANON_VMA_PREPARE, "__anon_vma_prepare", PRIM_CALL, PRIM_EVENTS,			\
	  "mm/rmap.c: an anon_vma_chain and an anon_vma from their slabs, the anon_vma lock, "	\
	  "mm->page_table_lock")								\
	X(ANON_VMA_CLONE, "anon_vma_clone", PRIM_CALL, PRIM_EVENTS,				\
	  "mm/rmap.c: one anon_vma_chain per chain entry of the source, under the root lock")	\
	X(ANON_VMA_FORK, "anon_vma_fork", PRIM_CALL, PRIM_EVENTS,				\
	  "mm/rmap.c: anon_vma_clone, then the child's own anon_vma and its chain entry")	\
	X(UNLINK_ANON_VMAS, "unlink_anon_vmas", PRIM_CALL, PRIM_EVENTS,			\
	  "mm/rmap.c: every chain entry off its interval tree and freed, under the root lock")	\
	X(VM_STAT_ACCOUNT, "vm_stat_account", PRIM_CALL, PTSIM_EV_VM_STAT,			\
	  "mm/mmap.c: total_vm and the data/exec/stack page counts")				\
	X(SECURITY_VM_ENOUGH_MEMORY, "security_vm_enough_memory_mm", PRIM_CALL, PRIM_EVENTS,	\
	  "security/security.c -> __vm_enough_memory (mm/util.c): the commit charge "		\
	  "(percpu_counter_add of vm_committed_as) of a VM_ACCOUNT mapping")			\
	X(VM_UNACCT_MEMORY, "vm_unacct_memory", PRIM_INLINE, PTSIM_EV_VM_STAT,			\
	  "include/linux/mman.h: the commit charge given back (percpu_counter_add)")		\
	X(VM_UNMAPPED_AREA, "vm_unmapped_area", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/mmap.c: unmapped_area(_topdown), mas_empty_area(_rev) over the tree's gaps")

/*
 * A fault's fixed work beyond the exception (v6.12 arch/arm64/mm/fault.c
 * do_page_fault, mm/memory.c): the per-VMA lock, the accounting, the memcg
 * charge and the LRU add of a new folio, the mm counters.
 */
#define PTSIM_PRIMITIVES_FAULT(X)								\
	X(LOCK_VMA_UNDER_RCU, "lock_vma_under_rcu", PRIM_CALL, PRIM_EVENTS,			\
	  "mm/memory.c: mas_walk of the VMA tree under RCU, vma_start_read (down_read_trylock "	\
	  "of the VMA's lock); vma_end_read after the fault")					\
	X(MM_ACCOUNT_FAULT, "mm_account_fault", PRIM_INLINE, PTSIM_EV_VM_STAT,			\
	  "mm/memory.c: count_vm_event(PGFAULT) and count_memcg_event_mm(PGFAULT); min_flt is "	\
	  "a task field, perf_sw_event a static-key nop with no perf event")			\
	X(MEM_CGROUP_CHARGE, "mem_cgroup_charge", PRIM_CALL, PTSIM_EV_MEMCG_CHARGE,		\
	  "include/linux/memcontrol.h -> __mem_cgroup_charge (mm/memcontrol.c): charge_memcg")	\
	X(MEM_CGROUP_SWAPIN_CHARGE, "mem_cgroup_swapin_charge_folio", PRIM_CALL,		\
	  PTSIM_EV_MEMCG_CHARGE, "mm/memcontrol.c: the charge of a folio read from swap")	\
	X(PREP_COMPOUND_PAGE, "prep_compound_page", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/page_alloc.c: a new large folio's head and tails made compound (a split's)")	\
	X(PREP_COMPOUND_TAIL, "prep_compound_tail", PRIM_INLINE, PTSIM_EV_COMPOUND_PAGE,	\
	  "mm/internal.h: a tail page's mapping, compound_head and private stored")		\
	X(PREP_COMPOUND_HEAD, "prep_compound_head", PRIM_INLINE, PTSIM_EV_COMPOUND_PAGE,	\
	  "mm/internal.h: the new folio's order, mapcounts, pin count and deferred list")	\
	X(FOLIO_SET_LARGE_RMAPPABLE, "folio_set_large_rmappable", PRIM_INLINE,		\
	  PTSIM_EV_PAGE_FLAG_ATOMIC, "include/linux/page-flags.h: set_bit on the folio's "	\
	  "second flags word")									\
	X(GET_MEM_CGROUP_FROM_MM, "get_mem_cgroup_from_mm", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/memcontrol.c: the mm's memcg, with a css reference (css_tryget)")		\
	X(TRY_CHARGE_MEMCG, "try_charge_memcg", PRIM_CALL, PTSIM_EV_HELPER_CALL,		\
	  "mm/memcontrol.c: the pages from this CPU's stock, or the page counters")		\
	X(CONSUME_STOCK, "consume_stock", PRIM_INLINE, PTSIM_EV_VM_STAT,			\
	  "mm/memcontrol.c (inline in try_charge_memcg): the per-CPU stock's page count "	\
	  "taken down under local_lock_irqsave")						\
	X(PAGE_COUNTER_TRY_CHARGE, "page_counter_try_charge", PRIM_CALL,			\
	  PTSIM_EV_HELPER_CALL, "mm/page_counter.c: each level up to the root charged")	\
	X(REFILL_STOCK, "__refill_stock", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/memcontrol.c: what a batch charged beyond the folio into this CPU's stock")	\
	X(MEM_CGROUP_COMMIT_CHARGE, "mem_cgroup_commit_charge", PRIM_CALL,			\
	  PTSIM_EV_HELPER_CALL, "mm/memcontrol.c: css_get and folio->memcg_data set")	\
	X(UNCHARGE_FOLIO, "uncharge_folio", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/memcontrol.c (static, out of line): memcg_data read and cleared, css_put")	\
	X(UNCHARGE_BATCH, "uncharge_batch", PRIM_CALL, PTSIM_EV_HELPER_CALL,			\
	  "mm/memcontrol.c (static, out of line): the gathered pages off the page counters")	\
	X(MEM_CGROUP_UNCHARGE, "__mem_cgroup_uncharge", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/memcontrol.c: one folio freed alone uncharged (__folio_put)")			\
	X(PAGE_COUNTER_UNCHARGE, "page_counter_uncharge", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/page_counter.c: page_counter_cancel for each level up to the root")		\
	X(PAGE_COUNTER_CANCEL, "page_counter_cancel", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "mm/page_counter.c: one level's usage taken down")					\
	X(PAGE_COUNTER_ATOMIC, "atomic_long_add_return", PRIM_INLINE, PTSIM_EV_PAGE_COUNTER,	\
	  "mm/page_counter.c: a level's usage changed (atomic_long_sub_return on uncharge)")	\
	X(CSS_GET, "css_get", PRIM_INLINE, PTSIM_EV_VM_STAT,					\
	  "include/linux/cgroup_refcnt.h: percpu_ref_get's this_cpu add (css_tryget too)")	\
	X(CSS_PUT, "css_put", PRIM_INLINE, PTSIM_EV_VM_STAT,					\
	  "include/linux/cgroup_refcnt.h: percpu_ref_put's this_cpu sub")			\
	X(FOLIO_ADD_LRU_VMA, "folio_add_lru_vma", PRIM_CALL, PTSIM_EV_LRU_ADD,			\
	  "mm/swap.c: folio_add_lru into the per-CPU batch (folio_add_lru likewise)")		\
	X(ADD_MM_COUNTER, "add_mm_counter", PRIM_INLINE, PTSIM_EV_VM_STAT,			\
	  "include/linux/mm.h: percpu_counter_add of mm->rss_stat[member] (inc/dec_mm_counter "	\
	  "likewise)")

/*
 * The arm64 primitives (arch/arm64/primitives/), registered for their
 * linkage; their own functions count them (v6.12 arch/arm64/include/asm/).
 */
#define PTSIM_PRIMITIVES_ARCH(X)								\
	X(__PTEP_GET, "__ptep_get", PRIM_INLINE, PTSIM_EV_PTE_READ,				\
	  "arch/arm64/include/asm/pgtable.h: READ_ONCE of the entry")				\
	X(PTEP_GET, "ptep_get", PRIM_INLINE, PTSIM_EV_PTEP_GET,					\
	  "arch/arm64/include/asm/pgtable.h: static inline, the cont-bit test after the load; "	\
	  "only a cont entry calls contpte_ptep_get")						\
	X(__SET_PTES, "__set_ptes", PRIM_INLINE, PTSIM_EV_SET_PTES_CHUNK,			\
	  "arch/arm64/include/asm/pgtable.h: static inline; __sync_cache_and_tags's tests, "	\
	  "nr stores")										\
	X(SET_PTES, "set_ptes", PRIM_INLINE, PTSIM_EV_SET_PTES,					\
	  "arch/arm64/include/asm/pgtable.h: static __always_inline; for nr == 1 the inline "	\
	  "unfold and fold tests, for nr > 1 the contpte_set_ptes call")			\
	X(__PTEP_SET_ACCESS_FLAGS, "__ptep_set_access_flags", PRIM_CALL, PTSIM_EV_HELPER_CALL,	\
	  "arch/arm64/mm/fault.c: the call; its cmpxchg loop is one atomic (cmpxchg_desc)")	\
	X(__TLBI, "__tlbi", PRIM_INLINE, PRIM_EVENTS,						\
	  "arch/arm64/include/asm/tlbflush.h: one TLBI instruction (twice with REPEAT_TLBI)")	\
	X(DSB_ISH, "dsb(ish)", PRIM_INLINE, PTSIM_EV_DSB_ISH,					\
	  "arch/arm64/include/asm/barrier.h")							\
	X(DSB_SY, "dsb(sy)", PRIM_INLINE, PTSIM_EV_DSB_SY,					\
	  "arch/arm64/include/asm/barrier.h (the raw API's; no modelled path issues one)")	\
	X(DSB_NSH, "dsb(nsh)", PRIM_INLINE, PTSIM_EV_DSB_NSH,					\
	  "arch/arm64/include/asm/barrier.h (the raw API's, as local_flush_tlb_all uses)")	\
	X(SMP_MB, "smp_mb", PRIM_INLINE, PTSIM_EV_DMB,						\
	  "arch/arm64/include/asm/barrier.h: __smp_mb is dmb(ish); smp_mb__after_atomic is "	\
	  "include/asm-generic/barrier.h's, the same (arm64 defines none of its own)")		\
	X(SMP_RMB, "smp_rmb", PRIM_INLINE, PTSIM_EV_DMB,					\
	  "arch/arm64/include/asm/barrier.h: __smp_rmb is dmb(ishld)")				\
	X(SMP_WMB, "smp_wmb", PRIM_INLINE, PTSIM_EV_DMB,					\
	  "arch/arm64/include/asm/barrier.h: __smp_wmb is dmb(ishst)")				\
	X(__TLBI_LOCAL, "__tlbi (no IS suffix)", PRIM_INLINE, PTSIM_EV_TLBI_LOCAL,		\
	  "arch/arm64/include/asm/tlbflush.h: a TLBI reaching only this CPU (the raw API's)")	\
	X(__FLUSH_TLB_RANGE, "__flush_tlb_range", PRIM_INLINE, PTSIM_EV_FLUSH_TLB_RANGE,	\
	  "arch/arm64/include/asm/tlbflush.h: static inline (flush_tlb_range too): the range "	\
	  "rounding and the limit test")							\
	X(FLUSH_TLB_MM, "flush_tlb_mm", PRIM_INLINE, PTSIM_EV_FLUSH_TLB_MM,			\
	  "arch/arm64/include/asm/tlbflush.h: static inline: the ASID load")			\
	X(MMU_NOTIFIER_ARCH_INVALIDATE_SECONDARY_TLBS,						\
	  "mmu_notifier_arch_invalidate_secondary_tlbs", PRIM_INLINE,				\
	  PTSIM_EV_NOTIFIER_SECONDARY_TLBS,							\
	  "include/linux/mmu_notifier.h: the mm_has_notifiers test; no call without notifiers")

/* The mmu_gather's bookkeeping (include/asm-generic/tlb.h, mm/mmu_gather.c). */
#define PTSIM_PRIMITIVES_GATHER(X)								\
	X(TLB_ADJUST_RANGE, "__tlb_adjust_range", PRIM_INLINE, PTSIM_EV_TLB_GATHER_ADD,	\
	  "include/asm-generic/tlb.h: min/max of the gathered range")				\
	X(TLB_BATCH_PAGE_ALLOC, "__get_free_page", PRIM_CALL, PTSIM_EV_TLB_BATCH_ALLOC,	\
	  "mm/mmu_gather.c: tlb_next_batch's and tlb_remove_table's batch page (GFP_NOWAIT)") \
	X(TLB_BATCH_ADD, "__tlb_remove_folio_pages_size", PRIM_CALL, PTSIM_EV_TLB_BATCH_SLOT,	\
	  "mm/mmu_gather.c: one slot per page, two for a run of a large folio")		\
	X(TLB_FLUSH_MMU_FREE, "tlb_flush_mmu_free", PRIM_CALL, PTSIM_EV_TLB_FLUSH_MMU,		\
	  "mm/mmu_gather.c: free_pages_and_swap_cache, the table batch's call_rcu")

enum prim {
#define PRIM_ENUM(id, name, linkage, event, where) PRIM_##id,
	PTSIM_PRIMITIVES(PRIM_ENUM)
#undef PRIM_ENUM
	PRIM__COUNT
};

struct prim_info {
	const char *name;		/* the kernel's name */
	enum prim_linkage linkage;
	enum ptsim_event event;		/* what prim_count counts; PRIM_EVENTS: several */
	const char *where;		/* where the kernel defines it */
};

/* The registry entry of primitive p (NULL past PRIM__COUNT). */
const struct prim_info *prim_info(enum prim p);

/* The event primitive p counts (PRIM_EVENTS for those that count several). */
static inline enum ptsim_event prim_event(enum prim p)
{
	static const enum ptsim_event event[] = {
#define PRIM_EVENT(id, name, linkage, ev, where) [PRIM_##id] = ev,
		PTSIM_PRIMITIVES(PRIM_EVENT)
#undef PRIM_EVENT
	};

	return event[p];
}

/*
 * n executions of primitive p (one that counts one event). Only the
 * primitives themselves call it; kernel code calls them by name.
 */
static inline void prim_count(struct ptsim_machine *m, enum prim p, uint64_t n)
{
	count(m, prim_event(p), n);
}

/* Each primitive's linkage as a constant, for kernel_call's compile-time check. */
enum {
#define PRIM_LINKAGE(id, name, linkage, event, where) PRIM_LINKAGE_##id = linkage,
	PTSIM_PRIMITIVES(PRIM_LINKAGE)
#undef PRIM_LINKAGE
};

/*
 * kernel_call(m, ID): a call of the out-of-line kernel function registered as
 * ID, counted at its entry (the function's own work is counted by the
 * primitives it calls). The build fails when the registry says the kernel
 * inlines it.
 */
#define kernel_call(m, id) do {								\
		_Static_assert((int)PRIM_LINKAGE_##id == (int)PRIM_CALL, #id " is inline");		\
		prim_count((m), PRIM_##id, 1);							\
	} while (0)

/* ---- page-table maps and locks ---- */

/* pte_offset_map_lock: the PTE table mapped (kmap, RCU) and its lock taken. */
static inline void pte_offset_map_lock(struct ptsim_machine *m)
{
	count(m, PTSIM_EV_PTE_MAP, 1);
	count(m, PTSIM_EV_PTL_LOCK, 1);
}

/* pte_offset_map_nolock: the PTE table mapped, its lock found, not taken. */
static inline void pte_offset_map_nolock(struct ptsim_machine *m)
{
	prim_count(m, PRIM_PTE_OFFSET_MAP_NOLOCK, 1);
}

/* pte_offset_map: the PTE table mapped without its lock (a lockless walk). */
static inline void pte_offset_map(struct ptsim_machine *m)
{
	prim_count(m, PRIM_PTE_OFFSET_MAP, 1);
}

/* spin_lock of a page-table lock taken apart from the map (or spin_lock_nested). */
static inline void ptl_spin_lock(struct ptsim_machine *m)
{
	prim_count(m, PRIM_PTL_SPIN_LOCK, 1);
}

/* pmd_lock: the lock of a PMD table (split PMD locks: the table page's own). */
static inline void pmd_lock(struct ptsim_machine *m)
{
	prim_count(m, PRIM_PMD_LOCK, 1);
}

/* double_pt_lock (mm/userfaultfd.c): one lock when both tables are the same, else two. */
static inline void double_pt_lock(struct ptsim_machine *m, bool same_table)
{
	prim_count(m, PRIM_DOUBLE_PT_LOCK, same_table ? 1 : 2);
}

/*
 * The atomics on an anon_vma's rwsem (its root's: the model's anon_vma is
 * its own root), in the object's line with the root pointer read first.
 */
static inline void anon_vma_rwsem(struct ptsim_machine *m, uint64_t anon_vma)
{
	kobj_rwsem(m, KOBJ_ANON_VMA, anon_vma * KOBJ_ANON_VMA_STRIDE + ANON_VMA_RWSEM);
}

/* anon_vma_lock_write: anon_vma's rwsem, for writing (take_rmap_locks, mremap). */
static inline void anon_vma_lock_write(struct ptsim_machine *m, uint64_t anon_vma)
{
	prim_count(m, PRIM_ANON_VMA_LOCK_WRITE, 1);
	anon_vma_rwsem(m, anon_vma);
}

/* anon_vma_lock_read: anon_vma's rwsem, for reading (rmap_walk_anon). */
static inline void anon_vma_lock_read(struct ptsim_machine *m, uint64_t anon_vma)
{
	prim_count(m, PRIM_ANON_VMA_LOCK_READ, 1);
	anon_vma_rwsem(m, anon_vma);
}

/* ---- the mmu notifier and lazy MMU mode ---- */

/*
 * mmu_notifier_invalidate_range_start and its _end: one notifier range. Both
 * are inline and call out only when the mm has notifiers, which no model mm
 * has: the range's two mm_has_notifiers tests (MMU_NOTIFIER_RANGE), and the
 * start's might_sleep, which on arm64's PREEMPT_DYNAMIC kernels is a call of
 * dynamic_might_resched (v6.12 include/linux/kernel.h, counted as a
 * COND_RESCHED).
 */
static inline void mmu_notifier_invalidate_range_start(struct ptsim_machine *m)
{
	count(m, PTSIM_EV_MMU_NOTIFIER_RANGE, 1);
	prim_count(m, PRIM_MIGHT_RESCHED, 1);
}

/* arch_enter_lazy_mmu_mode: a PTE loop batches its barriers until the leave. */
static inline void arch_enter_lazy_mmu_mode(struct ptsim_machine *m)
{
	prim_count(m, PRIM_LAZY_MMU_MODE, 1);
}

/* cond_resched: n voluntary preemption points (each a dynamic_cond_resched call). */
static inline void cond_resched(struct ptsim_machine *m, uint64_t n)
{
	prim_count(m, PRIM_COND_RESCHED, n);
}

/* spin_lock_irqsave of the deferred split queue's lock (and its unlock). */
static inline void split_queue_lock(struct ptsim_machine *m)
{
	prim_count(m, PRIM_SPLIT_QUEUE_LOCK, 1);
}

/* mutex_lock of a sleeping lock the model counts as a table lock (pgtable_split_lock). */
static inline void mutex_lock(struct ptsim_machine *m)
{
	prim_count(m, PRIM_MUTEX_LOCK, 1);
}

/* ---- folio references, flags and locks ---- */

/*
 * page_folio of pfn's struct page: a lookup (FOLIO_LOOKUP), or a test
 * (FOLIO_TEST) when that struct page is the one vm_normal_page read last
 * (m->hot_page_pfn). The load of page->compound_head is priced by the
 * data-cache model, by the level it hits. NULL for a frame with no folio.
 */
static inline struct folio *page_folio(struct ptsim_machine *m, uint64_t pfn)
{
	count(m, pfn == m->hot_page_pfn ? PTSIM_EV_FOLIO_TEST : PTSIM_EV_FOLIO_LOOKUP, 1);
	dcache_page_load(m, pfn);
	m->hot_page_pfn = pfn;
	return pfn_folio(m, pfn);
}

/*
 * Where the struct page fields the primitives below touch live (v6.12
 * include/linux/mm_types.h, struct folio): flags, _mapcount and _refcount
 * in each page's own struct page (a folio's in its head); _large_mapcount,
 * _entire_mapcount, _nr_pages_mapped and _pincount in the folio's second
 * struct page (page[1]). An atomic is a load for the data-cache model
 * (dcache_page_load), a plain store allocates the line (dcache_page_store).
 */
#define FOLIO_PAGE1	1	/* the index of the struct page holding the large-folio fields */

/* folio_get: one more reference (an atomic increment of the head's refcount); f NULL: uncached. */
static inline void folio_get(struct ptsim_machine *m, const struct folio *f)
{
	prim_count(m, PRIM_FOLIO_GET, 1);
	if (f)
		dcache_page_load(m, folio_pfn(m, f));
}

/* folio_ref_add: nr more references at once (one atomic add of the head's refcount); f NULL: uncached. */
static inline void folio_ref_add(struct ptsim_machine *m, const struct folio *f)
{
	prim_count(m, PRIM_FOLIO_REF_ADD, 1);
	if (f)
		dcache_page_load(m, folio_pfn(m, f));
}

/* atomic_add(refs, &folio->_pincount) of a large folio's FOLL_PIN (try_grab_folio): page[1]. */
static inline void folio_pincount_add(struct ptsim_machine *m, const struct folio *f)
{
	prim_count(m, PRIM_FOLIO_REF_ADD, 1);
	dcache_page_load(m, folio_pfn(m, f) + FOLIO_PAGE1);
}

/* folio_put of a reference that is not the last: the atomic decrement (folio_put frees). */
static inline void folio_put_ref(struct ptsim_machine *m, const struct folio *f)
{
	prim_count(m, PRIM_FOLIO_PUT, 1);
	if (f)
		dcache_page_load(m, folio_pfn(m, f));
}

/* folio_test_large: the folio's order is above 0 (a test of the head's flags). */
static inline bool folio_test_large(struct ptsim_machine *m, const struct folio *f)
{
	prim_count(m, PRIM_FOLIO_TEST_LARGE, 1);
	return f && f->order;
}

/* folio_test_locked: PG_locked of the folio's head. */
static inline bool folio_test_locked(struct ptsim_machine *m, const struct folio *f)
{
	prim_count(m, PRIM_FOLIO_TEST_PAGECACHE_STATE, 1);
	return f->flags & FOLIO_LOCKED;
}

/* folio_test_readahead: PG_readahead, the async readahead's mark. */
static inline bool folio_test_readahead(struct ptsim_machine *m, const struct folio *f)
{
	prim_count(m, PRIM_FOLIO_TEST_PAGECACHE_STATE, 1);
	return f->flags & FOLIO_READAHEAD;
}

/* folio_try_get: a reference unless the refcount is zero (the model's cached folios never are). */
static inline void folio_try_get(struct ptsim_machine *m, const struct folio *f)
{
	prim_count(m, PRIM_FOLIO_TRY_GET, 1);
	dcache_page_load(m, folio_pfn(m, f));
}

/* folio_test_anon: the folio is anonymous (a test of folio->mapping's low bit). */
static inline bool folio_test_anon(struct ptsim_machine *m, const struct folio *f)
{
	prim_count(m, PRIM_FOLIO_TEST_ANON, 1);
	return f && (f->flags & FOLIO_ANON);
}

/* PageAnonExclusive of page idx of f. */
static inline bool PageAnonExclusive(struct ptsim_machine *m, const struct folio *f,
				     uint64_t idx)
{
	prim_count(m, PRIM_PAGE_ANON_EXCLUSIVE, 1);
	return folio_page_anon_exclusive(f, idx);
}

/* folio_trylock: false when the lock is held (a contended folio, see ptsim_folio_contend_lock). */
static inline bool folio_trylock(struct ptsim_machine *m, struct folio *f)
{
	prim_count(m, PRIM_FOLIO_TRYLOCK, 1);
	dcache_page_load(m, folio_pfn(m, f));	/* test_and_set_bit_lock(PG_locked) */
	if (folio_lock_contended(m, f))
		return false;
	f->flags |= FOLIO_LOCKED;
	return true;
}

/* folio_lock after a failed trylock (__folio_lock): sleep until the holder lets go. */
static inline void folio_lock(struct ptsim_machine *m, struct folio *f)
{
	prim_count(m, PRIM_FOLIO_LOCK, 1);
	folio_set_lock_contention(m, f, 0);	/* clearing cannot fail */
	f->flags |= FOLIO_LOCKED;
}

/*
 * A page-cache folio a fault found, referenced and locked (v6.12
 * filemap_fault's filemap_get_folio and lock_folio_maybe_drop_mmap,
 * shmem_get_folio_gfp's filemap_get_entry and folio_lock): the lookup's
 * folio_try_get, then the trylock, and the wait when the lock is held.
 */
static inline void filemap_get_folio_locked(struct ptsim_machine *m, struct folio *f)
{
	folio_try_get(m, f);
	if (!folio_trylock(m, f))
		folio_lock(m, f);
}

static inline void folio_unlock(struct ptsim_machine *m, struct folio *f)
{
	prim_count(m, PRIM_FOLIO_UNLOCK, 1);
	dcache_page_load(m, folio_pfn(m, f));	/* clear_bit_unlock_is_negative_byte(PG_locked) */
	f->flags &= ~FOLIO_LOCKED;
}

/* free_swap_and_cache_nr of one entry: its swap slot freed. */
static inline void free_swap_and_cache_nr(struct ptsim_machine *m)
{
	prim_count(m, PRIM_FREE_SWAP_AND_CACHE, 1);
}

/* swap_duplicate: one more reference to a swap slot. */
static inline void swap_duplicate(struct ptsim_machine *m)
{
	prim_count(m, PRIM_SWAP_DUPLICATE, 1);
}

/* __tlb_adjust_range: the gather's range grows to cover [addr, addr + size). */
static inline void __tlb_adjust_range(struct ptsim_machine *m)
{
	prim_count(m, PRIM_TLB_ADJUST_RANGE, 1);
}

/* __get_free_page(GFP_NOWAIT) for one more mmu_gather batch page. */
static inline void tlb_batch_page_alloc(struct ptsim_machine *m)
{
	prim_count(m, PRIM_TLB_BATCH_PAGE_ALLOC, 1);
}

/* The slots __tlb_remove_folio_pages_size fills: 1 for a page, 2 for a run. */
static inline void tlb_batch_add(struct ptsim_machine *m, unsigned int slots)
{
	prim_count(m, PRIM_TLB_BATCH_ADD, slots);
}

/* tlb_flush_mmu_free: the gathered pages and tables go. */
static inline void tlb_flush_mmu_free(struct ptsim_machine *m)
{
	prim_count(m, PRIM_TLB_FLUSH_MMU_FREE, 1);
}

/* pagetable_alloc: a page-table page from the page allocator. */
static inline void pagetable_alloc(struct ptsim_machine *m)
{
	prim_count(m, PRIM_PAGETABLE_ALLOC, 1);
}

/* pagetable_free: a page-table page back to the page allocator. */
static inline void pagetable_free(struct ptsim_machine *m)
{
	prim_count(m, PRIM_PAGETABLE_FREE, 1);
}

/* filemap_get_entry: one page-cache lookup of file's index (an xarray walk, kobj_xa_load). */
static inline void filemap_get_entry(struct ptsim_machine *m, unsigned int file, uint64_t index)
{
	prim_count(m, PRIM_FILEMAP_GET_ENTRY, 1);
	kobj_xa_load(m, file, index);
}

/* submit_bio: one I/O request of kib KiB. */
static inline void submit_bio(struct ptsim_machine *m, uint64_t kib)
{
	count(m, PTSIM_EV_IO_REQUEST, 1);
	count(m, PTSIM_EV_IO_KIB, kib);
}

/*
 * folio_batch_move_lru (v6.12 mm/swap.c): every folio of this CPU's batch b
 * moved to its list under the lruvec's lock, taken once (the model has one
 * lruvec: no memcg or node boundary between the folios), its PG_lru cleared
 * and set around the move; then folios_put drops the batch's references.
 */
static inline void folio_batch_move_lru(struct ptsim_machine *m, enum lru_batch b)
{
	unsigned int nr = m->lru_batch_nr[b];

	if (!nr)
		return;
	prim_count(m, PRIM_FOLIO_LRUVEC_RELOCK, 1);
	for (unsigned int i = 0; i < nr; i++) {
		dcache_page_load(m, m->lru_batch[b][i] & ~LRU_BATCH_LARGE);
		if (b == LRU_BATCH_ADD) {
			/* lru_add: no PG_lru to clear; the unevictable test, lruvec_add_folio */
			kernel_call(m, LRU_ADD_FN);
			prim_count(m, PRIM_FOLIO_TEST_CLEAR_UNEVICTABLE, 1);
			prim_count(m, PRIM_FOLIO_EVICTABLE_CALLS, 3);
			prim_count(m, PRIM_LRU_MOVE_CALLEES, 3);
			prim_count(m, PRIM_FOLIO_SET_LRU, 1);
			continue;
		}
		prim_count(m, PRIM_FOLIO_TEST_CLEAR_LRU, 1);
		/* a turn after the first finds the lock held (the loop prices' path) */
		if (i)
			count_loop_path(m, PTSIM_LOOP_FOLIO_BATCH_MOVE_LRU_SAME_LRUVEC);
		kernel_call(m, LRU_MOVE_FN);
		prim_count(m, PRIM_LRU_MOVE_CALLEES, 7);
		/* lru_lazyfree's PG_active, PG_referenced, PG_swapbacked clears (clear_bit) */
		prim_count(m, PRIM_FOLIO_CLEAR_ACTIVE, 1);
		prim_count(m, PRIM_FOLIO_CLEAR_REFERENCED, 1);
		prim_count(m, PRIM_FOLIO_CLEAR_SWAPBACKED, 1);
		if (!(m->lru_batch[b][i] & LRU_BATCH_LARGE))
			count_loop_path(m, PTSIM_LOOP_LRU_LAZYFREE_MOVE);
		prim_count(m, PRIM_FOLIO_SET_LRU, 1);
	}
	prim_count(m, PRIM_FOLIO_PUT, nr);	/* folios_put */
	m->lru_batch_nr[b] = 0;
}

/*
 * __folio_batch_add_and_move (v6.12 mm/swap.c): a reference on the folio at
 * pfn, the folio into this CPU's batch b, the batch moved when that filled
 * it (PAGEVEC_SIZE) or, from "lru_cache_small_only", at once for a large
 * folio (folio_may_be_lru_cached).
 */
static inline void folio_batch_add_and_move(struct ptsim_machine *m, uint64_t pfn, bool large,
					    enum lru_batch b)
{
	kernel_call(m, FOLIO_BATCH_ADD_AND_MOVE);
	prim_count(m, PRIM_FOLIO_GET, 1);
	m->lru_batch[b][m->lru_batch_nr[b]++] = pfn | (large ? LRU_BATCH_LARGE : 0);
	if (m->lru_batch_nr[b] == PAGEVEC_SIZE ||
	    (large && m->features[PTSIM_FEAT_LRU_CACHE_SMALL_ONLY]))
		folio_batch_move_lru(m, b);
	else
		count_loop_path(m, PTSIM_LOOP_FOLIO_BATCH_ADD_AND_MOVE_ADD);
}

/*
 * folio_clear_referenced: MADV_COLD's and MADV_PAGEOUT's clear_bit of
 * PG_referenced on each folio they age (an LSE STCLR, which the walk's loop
 * price leaves to this event); folio_test_clear_young beside it is empty
 * without CONFIG_PAGE_IDLE_FLAG.
 */
static inline void folio_clear_referenced(struct ptsim_machine *m)
{
	prim_count(m, PRIM_FOLIO_CLEAR_REFERENCED, 1);
}

/*
 * folio_deactivate (v6.12 mm/swap.c, out of line): its tests of
 * PG_unevictable, PG_lru and PG_active; only an active folio joins the
 * lru_deactivate batch, and the model's folios are never active (nothing
 * promotes them: no reclaim scan marks them referenced twice), so the
 * call returns there.
 */
static inline void folio_deactivate(struct ptsim_machine *m)
{
	kernel_call(m, FOLIO_DEACTIVATE);
	prim_count(m, PRIM_FOLIO_TEST_LRU_STATE, 3);
}

/*
 * folio_isolate_lru (v6.12 mm/vmscan.c, out of line) of the folio at pfn:
 * PG_lru tested and cleared (an LDCLRAL on its struct page line), a
 * reference, then under the lruvec's lock lruvec_del_folio with its three
 * LRU size updates (__mod_lruvec_state, __mod_zone_page_state,
 * mem_cgroup_update_lru_size, all calls in the build).
 */
static inline void folio_isolate_lru_counts(struct ptsim_machine *m, uint64_t pfn)
{
	kernel_call(m, FOLIO_ISOLATE_LRU);
	prim_count(m, PRIM_FOLIO_TEST_CLEAR_LRU, 1);
	dcache_page_load(m, pfn);
	prim_count(m, PRIM_FOLIO_GET, 1);
	kernel_call(m, FOLIO_LRUVEC_LOCK);
	prim_count(m, PRIM_LRU_MOVE_CALLEES, 3);
}

/* folio_add_lru (v6.12 mm/swap.c): its call, then the folio at pfn into this CPU's lru_add batch. */
static inline void folio_add_lru(struct ptsim_machine *m, uint64_t pfn, bool large)
{
	kernel_call(m, FOLIO_ADD_LRU);
	folio_batch_add_and_move(m, pfn, large, LRU_BATCH_ADD);
}

/*
 * folio_putback_lru (v6.12 mm/vmscan.c): the folio at pfn into the lru_add
 * batch, the isolation's reference dropped.
 */
static inline void folio_putback_lru(struct ptsim_machine *m, uint64_t pfn, bool large)
{
	kernel_call(m, FOLIO_PUTBACK_LRU);
	folio_add_lru(m, pfn, large);
	prim_count(m, PRIM_FOLIO_PUT, 1);
}

/*
 * page_vma_mapped_walk (v6.12 mm/page_vma_mapped.c, out of line) over a
 * folio's PTEs in one VMA, as its callers loop on it: the first call maps
 * the table and takes its lock (map_pte, static, out of line: its
 * pte_offset_map_nolock and spin_lock), each entry it returns is checked
 * (check_pte, static, out of line; the caller reads the entry for it), and
 * each next call returns the next entry or, past the last, drops the lock
 * and the map and returns false; a caller that stops at its last entry
 * (page_vma_mapped_walk_done) makes no such last call.
 */
static inline void pvmw_first(struct ptsim_machine *m)
{
	kernel_call(m, PAGE_VMA_MAPPED_WALK);
	kernel_call(m, MAP_PTE);
	pte_offset_map_nolock(m);
	ptl_spin_lock(m);
}

/* page_vma_mapped_walk's check of the entry it returns (check_pte) */
static inline void pvmw_check(struct ptsim_machine *m)
{
	kernel_call(m, CHECK_PTE);
}

/* page_vma_mapped_walk's next call: the next entry, or none (the walk's end) */
static inline void pvmw_next(struct ptsim_machine *m)
{
	kernel_call(m, PAGE_VMA_MAPPED_WALK);
}

/*
 * The callbacks a struct rmap_walk_control sets besides rmap_one (v6.12
 * mm/rmap.c): anon_lock (folio_lock_anon_vma_read), invalid_vma, done.
 */
struct rmap_walk_callbacks {
	bool anon_lock, invalid_vma, done;
};

/*
 * rmap_walk_anon (v6.12 mm/rmap.c, static) over a folio mapped in nr_vmas
 * VMAs of its anon_vma, as rwc sets it up: rwc->anon_lock when set (a call
 * through the pointer), the interval tree's first VMA and each next, and per
 * VMA rwc->invalid_vma, rmap_one and done through their pointers when set.
 * The anon_vma lock itself is counted by the caller.
 */
static inline void rmap_walk_anon_calls(struct ptsim_machine *m, unsigned int nr_vmas,
					const struct rmap_walk_callbacks *rwc)
{
	kernel_call(m, RMAP_WALK_ANON);
	if (rwc->anon_lock)
		kernel_call(m, FOLIO_LOCK_ANON_VMA_READ);
	prim_count(m, PRIM_ANON_VMA_INTERVAL_TREE_ITER, 1 + nr_vmas);
	if (rwc->invalid_vma)
		prim_count(m, PRIM_INVALID_VMA, nr_vmas);
	prim_count(m, PRIM_RMAP_ONE, nr_vmas);
	if (rwc->done)
		prim_count(m, PRIM_RMAP_DONE, nr_vmas);
}

/*
 * folio_test_lru (include/linux/page-flags.h) of the folio at pfn: PG_lru,
 * which a folio gets only when its lru_add batch moves it; the model keeps
 * every other folio on the LRU (reclaim's isolation is undone before it
 * returns).
 */
static inline bool folio_test_lru(struct ptsim_machine *m, uint64_t pfn)
{
	prim_count(m, PRIM_FOLIO_TEST_LRU_STATE, 1);
	for (unsigned int i = 0; i < m->lru_batch_nr[LRU_BATCH_ADD]; i++)
		if ((m->lru_batch[LRU_BATCH_ADD][i] & ~LRU_BATCH_LARGE) == pfn)
			return false;
	return true;
}

/*
 * __page_cache_release (v6.12 mm/swap.c, inline) of a folio whose PG_lru
 * test found it on the LRU: lruvec_del_folio (its three LRU size calls) and
 * __folio_clear_lru_flags (PG_lru, PG_active and PG_unevictable cleared in
 * place after a test of the last two). The lruvec lock is the caller's: a
 * batch takes it once, page_cache_release its own.
 */
static inline void page_cache_release_lru(struct ptsim_machine *m, uint64_t nr)
{
	prim_count(m, PRIM_LRU_MOVE_CALLEES, 3 * nr);
	prim_count(m, PRIM_FOLIO_CLEAR_LRU_FLAGS, 3 * nr);
}

/* lru_add_drain (mm/swap.c): the call, then this CPU's batches moved (lru_add_drain_cpu). */
static inline void lru_add_drain(struct ptsim_machine *m)
{
	prim_count(m, PRIM_LRU_ADD_DRAIN, 1);
	for (unsigned int b = 0; b < LRU_BATCHES; b++)
		folio_batch_move_lru(m, (enum lru_batch)b);
}

/* folio_alloc_swap (add_to_swap): swap slots for a folio. */
static inline void folio_alloc_swap(struct ptsim_machine *m)
{
	prim_count(m, PRIM_FOLIO_ALLOC_SWAP, 1);
}

/* swap_cache_get_folio: a swap entry looked up in the swap cache. */
static inline void swap_cache_get_folio(struct ptsim_machine *m)
{
	prim_count(m, PRIM_SWAP_CACHE_GET_FOLIO, 1);
}

/*
 * free_swap_cache (v6.12 mm/swap_state.c), called by wp_page_copy for the
 * old folio: an out-of-line call whose folio_test_swapcache is false here
 * (the model keeps no folio in a swap cache), so it returns at once.
 */
static inline void free_swap_cache(struct ptsim_machine *m)
{
	count(m, PTSIM_EV_HELPER_CALL, 1);
	count(m, PTSIM_EV_FOLIO_TEST, 1);
}

/*
 * is_folio_zero_filled (v6.12 mm/page_io.c, inline in swap_writepage) over
 * nr pages that hold only zeros: each page's last word, then every word
 * before it, one turn of the priced loop each (the last-word test outside
 * the loop is not counted); the pages stream through the data caches.
 */
static inline void is_folio_zero_filled_scan(struct ptsim_machine *m, uint64_t nr)
{
	count_loop_paths(m, PTSIM_LOOP_IS_FOLIO_ZERO_FILLED_ZERO_WORD,
			 nr * (m->geo.page_size / sizeof(uint64_t) - 1));
	dcache_user_stream(m, nr << m->geo.page_shift);
}

/*
 * count_vm_events and count_objcg_events of a zeromap event (v6.12
 * swap_zeromap_folio_set's SWPOUT_ZERO, swap_read_folio_zeromap's
 * SWPIN_ZERO): the folio's obj_cgroup (get_obj_cgroup_from_folio), the
 * CPU's counter, the memcg's under the RCU lock (__count_memcg_events).
 */
static inline void count_zeromap_events(struct ptsim_machine *m)
{
	kernel_call(m, GET_OBJ_CGROUP_FROM_FOLIO);
	prim_count(m, PRIM_COUNT_VM_EVENTS, 1);
	prim_count(m, PRIM_RCU_READ_LOCK, 2);
	kernel_call(m, COUNT_MEMCG_EVENTS);
}

/*
 * An atomic bit operation on the flags of f's head page (set_bit,
 * clear_bit, test_and_set_bit...): primitive p, and its struct page line.
 */
static inline void folio_flag_atomic(struct ptsim_machine *m, enum prim p, const struct folio *f)
{
	prim_count(m, p, 1);
	dcache_page_load(m, folio_pfn(m, f));
}

/*
 * n xas_store calls (lib/xarray.c, out of line), each storing an entry into
 * an existing node's slot: its body a priced path, and its xas_create call
 */
static inline void xas_store(struct ptsim_machine *m, uint64_t n)
{
	prim_count(m, PRIM_XAS_STORE, n);
	count_loop_paths(m, PTSIM_LOOP_XAS_STORE_SLOT, n);
	prim_count(m, PRIM_XAS_CREATE, n);
}

/*
 * The swap cache's slots of f's pages, one xas_store call a page (v6.12
 * add_to_swap_cache and __delete_from_swap_cache; the inline xas_next
 * between them calls __xas_next only where a node ends): its body a priced
 * path, its xas_create and the swap cache's workingset_update_node callback
 * calls; then the node's NR_FILE_PAGES and the lruvec's NR_SWAPCACHE.
 */
static inline void swap_cache_slots(struct ptsim_machine *m, const struct folio *f)
{
	xas_store(m, folio_nr_pages(f));
	prim_count(m, PRIM_WORKINGSET_UPDATE_NODE, folio_nr_pages(f));
	prim_count(m, PRIM_MOD_NODE_PAGE_STATE, 1);
	prim_count(m, PRIM_LRUVEC_STAT_MOD_FOLIO, 1);
}

/*
 * __delete_from_swap_cache (v6.12 mm/swap_state.c): each page's slot
 * emptied (a shadow entry or NULL stored), PG_swapcache cleared, the
 * counters. The caller holds the swap cache's lock.
 */
static inline void __delete_from_swap_cache(struct ptsim_machine *m, struct folio *f)
{
	kernel_call(m, DELETE_FROM_SWAP_CACHE);
	swap_cache_slots(m, f);
	folio_flag_atomic(m, PRIM_FOLIO_CLEAR_SWAPCACHE, f);
	f->flags &= ~FOLIO_SWAPCACHE;
}



/*
 * free_pages_prepare (inside the free) of an order-`order` folio at pfn:
 * each tail page's free_tail_page_prepare and flags update, a
 * read-modify-write of its struct page's line.
 */
static inline void free_tail_pages_prepare(struct ptsim_machine *m, uint64_t pfn,
					   unsigned int order)
{
	const uint64_t nr = UINT64_C(1) << order;

	prim_count(m, PRIM_FREE_TAIL_PAGE_PREPARE, nr - 1);
	for (uint64_t i = 1; i < nr; i++)
		dcache_page_load(m, pfn + i);
}

/*
 * __free_one_page (v6.12 mm/page_alloc.c, out of line): its call and, inside
 * it, account_freepages' call; its merges are the buddy allocator's. The
 * block's way onto a free area is its caller's to count.
 */
static inline void __free_one_page(struct ptsim_machine *m)
{
	kernel_call(m, __FREE_ONE_PAGE);
	kernel_call(m, ACCOUNT_FREEPAGES);
}

/* PAGE_ALLOC_COSTLY_ORDER (include/linux/mmzone.h) */
#define PAGE_ALLOC_COSTLY_ORDER 3

/* pcp_allowed_order (v6.12 mm/page_alloc.c): the orders the per-CPU lists take */
static inline bool pcp_allowed_order(const struct ptsim_machine *m, unsigned int order)
{
	return order <= PAGE_ALLOC_COSTLY_ORDER || order == m->geo.pmd_order;
}

/*
 * A folio of 1 << order pages at pfn back to the page allocator (v6.12
 * mm/page_alloc.c, the model's folio_free): free_pages_prepare (a call; the
 * head's stores counted with the list_add as FOLIO_FREE, each tail's
 * free_tail_page_prepare); then an order the per-CPU lists take gets its
 * pageblock's migratetype (get_pfnblock_flags_mask) and is put on a list by
 * free_unref_page_commit (a call, the PGFREE count) under the pcp lock, which
 * a folio freed alone takes for itself (free_unref_page) and a batch once
 * (free_unref_folios and free_unref_page_list count theirs); any other order
 * goes to the buddy lists (free_one_page: zone->lock, __free_one_page,
 * PGFREE; alone through __free_pages_ok, which v6.12's free_unref_page
 * calls, and v6.8's destroy_large_folio (destroyed) through free_the_page
 * instead of free_unref_page). The lists' drains and the buddy's merges
 * are src/mm/pcp.c's to count.
 */
static inline void free_folio_pages(struct ptsim_machine *m, uint64_t pfn, unsigned int order,
				    bool alone, bool destroyed)
{
	bool pcp = pcp_allowed_order(m, order);

	if (alone && (pcp || !destroyed))
		kernel_call(m, FREE_UNREF_PAGE);
	if (alone && !pcp)
		kernel_call(m, FREE_PAGES_OK);
	kernel_call(m, FREE_PAGES_PREPARE);
	prim_count(m, PRIM_FREE_PAGE_ONTO_LIST, 1);
	free_tail_pages_prepare(m, pfn, order);
	prim_count(m, PRIM_COUNT_PGFREE, 1);
	if (!pcp) {
		kernel_call(m, FREE_ONE_PAGE);
		prim_count(m, PRIM_ZONE_LOCK, 1);
		__free_one_page(m);
		return;
	}
	kernel_call(m, GET_PFNBLOCK_FLAGS_MASK);
	if (alone)
		prim_count(m, PRIM_PCP_SPIN_TRYLOCK, 1);
	kernel_call(m, FREE_UNREF_PAGE_COMMIT);
}

/* the pcp lock a batch of freed folios takes once (free_unref_folios, free_unref_page_list) */
static inline void free_batch_pcp_lock(struct ptsim_machine *m)
{
	prim_count(m, PRIM_PCP_SPIN_TRYLOCK, 1);
}

/* smp_mb (arch/arm64/include/asm/barrier.h): DMB ISH */
static inline void smp_mb(struct ptsim_machine *m)
{
	prim_count(m, PRIM_SMP_MB, 1);
}

/* smp_mb__after_atomic (include/asm-generic/barrier.h): smp_mb on arm64 */
static inline void smp_mb__after_atomic(struct ptsim_machine *m)
{
	smp_mb(m);
}

/* smp_rmb (arch/arm64/include/asm/barrier.h): DMB ISHLD */
static inline void smp_rmb(struct ptsim_machine *m)
{
	prim_count(m, PRIM_SMP_RMB, 1);
}

/* smp_wmb (arch/arm64/include/asm/barrier.h): DMB ISHST */
static inline void smp_wmb(struct ptsim_machine *m)
{
	prim_count(m, PRIM_SMP_WMB, 1);
}

/*
 * __folio_mark_uptodate and folio_mark_uptodate (v6.12
 * include/linux/page-flags.h): the smp_wmb that makes the folio's contents
 * visible before PG_uptodate, then the bit (a plain or an atomic set: the
 * model keeps the flag only)
 */
static inline void __folio_mark_uptodate(struct ptsim_machine *m, struct folio *f)
{
	smp_wmb(m);
	f->flags |= FOLIO_UPTODATE;
}

/*
 * folio_test_uptodate (v6.12 include/linux/page-flags.h): the bit, and when
 * it is set the smp_rmb that pairs with folio_mark_uptodate's smp_wmb
 */
static inline bool folio_test_uptodate(struct ptsim_machine *m, const struct folio *f)
{
	bool set = f->flags & FOLIO_UPTODATE;

	prim_count(m, PRIM_FOLIO_TEST_PAGECACHE_STATE, 1);
	if (set)
		smp_rmb(m);
	return set;
}

/*
 * __split_huge_page_tail (v6.12 mm/huge_memory.c, inline in
 * __split_huge_page) for the tail page at pfn: its struct page line
 * written (flags, mapping, index, compound_head, refcount, the lru link),
 * the cpupid moved over (folio_xchg_last_cpupid, a call with a cmpxchg) and
 * PG_lru set (lru_add_page_tail). A split to order 0 records the loop's
 * priced turn (its machine code holds the stores).
 */
static inline void split_huge_page_tail(struct ptsim_machine *m, uint64_t pfn, bool order0)
{
	prim_count(m, PRIM_SPLIT_HUGE_PAGE_TAIL, 1);
	dcache_page_load(m, pfn);
	smp_wmb(m);	/* the flags visible before the page stops being a tail */
	kernel_call(m, FOLIO_XCHG_LAST_CPUPID);
	prim_count(m, PRIM_PAGE_FLAGS_CMPXCHG, 1);	/* its try_cmpxchg on the flags */
	prim_count(m, PRIM_FOLIO_SET_LRU, 1);	/* SetPageLRU */
	if (order0)
		count_loop_path(m, PTSIM_LOOP_SPLIT_HUGE_PAGE_TAIL_ANON);	/* the priced turn */
}

/*
 * prep_compound_page (v6.12 mm/page_alloc.c, a call from
 * __split_huge_page_tail when it splits to an order above 0) for the new
 * folio of 1 << order pages at pfn: each tail page's prep_compound_tail,
 * its struct page line through the data-cache model, then
 * prep_compound_head's fields; folio_set_large_rmappable after it.
 */
static inline void prep_compound_page(struct ptsim_machine *m, uint64_t pfn, unsigned int order)
{
	const uint64_t nr = UINT64_C(1) << order;

	kernel_call(m, PREP_COMPOUND_PAGE);
	prim_count(m, PRIM_PREP_COMPOUND_TAIL, nr - 1);
	for (uint64_t i = 1; i < nr; i++)
		dcache_page_load(m, pfn + i);
	prim_count(m, PRIM_PREP_COMPOUND_HEAD, 1);
	prim_count(m, PRIM_FOLIO_SET_LARGE_RMAPPABLE, 1);
}

/*
 * __alloc_pages_noprof (v6.12 mm/page_alloc.c; the model's folio_alloc) of
 * a folio of 1 << order pages at pfn: get_page_from_freelist (a call) takes
 * it from this CPU's list for an order pcp_allowed_order admits
 * (__rmqueue_pcplist, a call, under the pcp lock) or from the buddy lists
 * under zone->lock (rmqueue_buddy, inline); TAKE_PAGE_OFF_LIST is the plain
 * work (the list_del, the list's count, the page's new state); the PGALLOC
 * and NUMA counts; prep_new_page (a call) runs post_alloc_hook (a call) and
 * for a large folio prep_compound_page (its tails through the data-cache
 * model) and folio_set_large_rmappable. The lists' refills and the buddy's
 * splits are src/mm/pcp.c's to count.
 */
static inline void __alloc_pages(struct ptsim_machine *m, uint64_t pfn, unsigned int order)
{
	kernel_call(m, ALLOC_PAGES);
	kernel_call(m, GET_PAGE_FROM_FREELIST);
	if (pcp_allowed_order(m, order)) {
		prim_count(m, PRIM_PCP_SPIN_TRYLOCK, 1);
		kernel_call(m, RMQUEUE_PCPLIST);
	} else {
		prim_count(m, PRIM_ZONE_LOCK, 1);
	}
	prim_count(m, PRIM_TAKE_PAGE_OFF_LIST, 1);
	prim_count(m, PRIM_COUNT_PGALLOC, 3);
	kernel_call(m, PREP_NEW_PAGE);
	kernel_call(m, POST_ALLOC_HOOK);
	if (order)
		prep_compound_page(m, pfn, order);
}

/* folio_zero_user: nr pages cleared. */
static inline void folio_zero_user(struct ptsim_machine *m, uint64_t nr)
{
	prim_count(m, PRIM_FOLIO_ZERO_USER, nr);
	dcache_page_clear(m, nr << m->geo.page_shift);	/* clear_page's DC ZVA */
}

/* folio_zero_range: nr pages of a folio zeroed (swap_read_folio's for a zeromap page). */
static inline void folio_zero_range(struct ptsim_machine *m, uint64_t nr)
{
	prim_count(m, PRIM_FOLIO_ZERO_RANGE, nr);
	dcache_page_clear(m, nr << m->geo.page_shift);
}

/* copy_user_highpage: one page copied (a COW break). */
static inline void copy_user_highpage(struct ptsim_machine *m)
{
	prim_count(m, PRIM_COPY_USER_HIGHPAGE, 1);
	dcache_page_copy(m, m->geo.page_size);	/* copy_page */
}

/* copy_from_user: one page read from user memory into a kernel page (mfill_atomic_pte_copy). */
static inline void copy_from_user(struct ptsim_machine *m)
{
	prim_count(m, PRIM_COPY_FROM_USER, 1);
	dcache_page_copy(m, m->geo.page_size);	/* __arch_copy_from_user's loads and stores */
}

/* __folio_try_dup_anon_rmap's entry: folio_needs_cow_for_dma and folio_test_large. */
static inline void __folio_try_dup_anon_rmap_enter(struct ptsim_machine *m)
{
	prim_count(m, PRIM_FOLIO_TRY_DUP_ANON_RMAP, 1);
}

/* __folio_dup_file_rmap's entry: folio_test_large. */
static inline void __folio_dup_file_rmap_enter(struct ptsim_machine *m)
{
	prim_count(m, PRIM_FOLIO_DUP_FILE_RMAP, 1);
}

/* ---- mapcounts and exclusivity (include/linux/rmap.h, mm/rmap.c) ---- */

/* nr atomics on the _mapcount of f's pages idx.. idx + nr - 1 (an order-0 folio's: idx 0). */
static inline void page_mapcount_atomic(struct ptsim_machine *m, const struct folio *f,
					uint64_t idx, uint64_t nr)
{
	const uint64_t pfn = folio_pfn(m, f) + idx;

	prim_count(m, PRIM_PAGE_MAPCOUNT_ATOMIC, nr);
	for (uint64_t i = 0; i < nr; i++)
		dcache_page_load(m, pfn + i);
}

/* The atomic on a large folio's _entire_mapcount (a PMD mapping), in its page[1]. */
static inline void entire_mapcount_atomic(struct ptsim_machine *m, const struct folio *f)
{
	prim_count(m, PRIM_PAGE_MAPCOUNT_ATOMIC, 1);
	dcache_page_load(m, folio_pfn(m, f) + FOLIO_PAGE1);
}

/* n atomic updates of a large folio's _nr_pages_mapped, in its page[1]. */
static inline void nr_pages_mapped_atomics(struct ptsim_machine *m, const struct folio *f,
					   uint64_t n)
{
	prim_count(m, PRIM_NR_PAGES_MAPPED_ATOMIC, n);
	for (uint64_t i = 0; i < n; i++)
		dcache_page_load(m, folio_pfn(m, f) + FOLIO_PAGE1);
}

static inline void nr_pages_mapped_atomic(struct ptsim_machine *m, const struct folio *f)
{
	nr_pages_mapped_atomics(m, f, 1);
}

/*
 * The _nr_pages_mapped updates of a PTE batch of nr pages that all became
 * mapped (unmapped): one atomic for the batch from v6.12
 * ("nr_pages_mapped_batch"), one per page before.
 */
static inline void nr_pages_mapped_batch(struct ptsim_machine *m, const struct folio *f,
					 unsigned int nr)
{
	nr_pages_mapped_atomics(m, f, feature(m, PTSIM_FEAT_NR_PAGES_MAPPED_BATCH) ? 1 : nr);
}

/* One plain store initialising a mapcount field (atomic_set) in f's struct page idx. */
static inline void mapcount_set(struct ptsim_machine *m, const struct folio *f, uint64_t idx)
{
	prim_count(m, PRIM_MAPCOUNT_SET, 1);
	dcache_page_store(m, folio_pfn(m, f) + idx);
}

/*
 * folio_add_large_mapcount / folio_sub_large_mapcount of a large folio
 * (none before v6.11, "large_mapcount"): one atomic_add/atomic_sub; from
 * v6.15 ("mm_id_mapcount", CONFIG_MM_ID) the bit_spin_lock's atomic, then
 * plain stores of _large_mapcount and this MM's slot, and the unlocking
 * store (__bit_spin_unlock). folio_set_large_mapcount (a new folio) is the
 * store alone, plus the slot's id and count with CONFIG_MM_ID.
 */
static inline void folio_mod_large_mapcount(struct ptsim_machine *m, const struct folio *f,
					    bool set)
{
	const uint64_t page1 = folio_pfn(m, f) + FOLIO_PAGE1;

	if (!feature(m, PTSIM_FEAT_LARGE_MAPCOUNT))
		return;
	if (set) {
		count(m, PTSIM_EV_MAPCOUNT_SET, feature(m, PTSIM_FEAT_MM_ID_MAPCOUNT) ? 3 : 1);
		dcache_page_store(m, page1);
		return;
	}
	dcache_page_load(m, page1);	/* the atomic; CONFIG_MM_ID's stores follow in its line */
	if (feature(m, PTSIM_FEAT_MM_ID_MAPCOUNT)) {
		count(m, PTSIM_EV_MAPCOUNT_ATOMIC, 1);
		count(m, PTSIM_EV_MAPCOUNT_SET, 3);
	} else {
		count(m, PTSIM_EV_MAPCOUNT_ATOMIC, 1);
	}
}

/* SetPageAnonExclusive of page idx of f (set_bit). */
static inline void SetPageAnonExclusive(struct ptsim_machine *m, struct folio *f, uint64_t idx)
{
	prim_count(m, PRIM_SET_PAGE_ANON_EXCLUSIVE, 1);
	dcache_page_load(m, folio_pfn(m, f) + idx);
	folio_set_page_anon_exclusive(f, idx, true);
}

/* ClearPageAnonExclusive of page idx of f (clear_bit). */
static inline void ClearPageAnonExclusive(struct ptsim_machine *m, struct folio *f, uint64_t idx)
{
	prim_count(m, PRIM_CLEAR_PAGE_ANON_EXCLUSIVE, 1);
	dcache_page_load(m, folio_pfn(m, f) + idx);
	folio_set_page_anon_exclusive(f, idx, false);
}

/*
 * __folio_try_share_anon_rmap (v6.12 include/linux/rmap.h, inline) for nr
 * exclusive pages of f from idx, as folio_try_share_anon_rmap_pte (nr 1)
 * and _ptes call it: with GUP-fast (arm64 has it) an smp_mb pairs with
 * try_grab_folio_fast's, the marks are cleared, then smp_mb__after_atomic
 * pairs with gup_must_unshare's smp_rmb. The model keeps no DMA pins
 * here, so the share never fails.
 */
static inline void folio_try_share_anon_rmap_ptes(struct ptsim_machine *m, struct folio *f,
						  uint64_t idx, uint64_t nr)
{
	smp_mb(m);
	for (uint64_t i = 0; i < nr; i++)
		ClearPageAnonExclusive(m, f, idx + i);
	smp_mb__after_atomic(m);
}

/* __lruvec_stat_mod_folio: one NR_*_MAPPED or NR_ANON_THPS update. */
static inline void __lruvec_stat_mod_folio(struct ptsim_machine *m)
{
	prim_count(m, PRIM_LRUVEC_STAT_MOD_FOLIO, 1);
}

/* __filemap_remove_folio: a folio's pages leave the page cache. */
static inline void __filemap_remove_folio(struct ptsim_machine *m)
{
	prim_count(m, PRIM_FILEMAP_REMOVE_FOLIO, 1);
}

/*
 * filemap_map_folio_range (v6.12 mm/filemap.c, static and inlined): the
 * tests of one page it examines, PageHWPoison and folio_test_workingset
 * (its ptep_get is counted by the caller).
 */
static inline void filemap_map_folio_range(struct ptsim_machine *m)
{
	prim_count(m, PRIM_FILEMAP_MAP_FOLIO_RANGE, 1);
}

/* count_vm_event(PGMAJFAULT): the fault needed I/O. */
static inline void count_vm_event_pgmajfault(struct ptsim_machine *m)
{
	prim_count(m, PRIM_PGMAJFAULT, 1);
}

/* folio_get_anon_vma: an RCU section, two folio_mapped tests, the anon_vma reference. */
static inline void folio_get_anon_vma(struct ptsim_machine *m)
{
	count(m, PTSIM_EV_HELPER_CALL, 1);
	count(m, PTSIM_EV_FOLIO_TEST, 2);
	count(m, PTSIM_EV_ANON_VMA_REF, 1);
}

/* anon_vma_trylock_write: the call and the rwsem's atomics. */
static inline void anon_vma_trylock_write(struct ptsim_machine *m)
{
	count(m, PTSIM_EV_HELPER_CALL, 1);
	count(m, PTSIM_EV_ANON_VMA_LOCK, 1);
}

/* anon_vma_unlock_write: the call (its atomic is priced with the lock). */
static inline void anon_vma_unlock_write(struct ptsim_machine *m)
{
	prim_count(m, PRIM_ANON_VMA_UNLOCK_WRITE, 1);
}

/* put_anon_vma: the call (its atomic is priced with the reference). */
static inline void put_anon_vma(struct ptsim_machine *m)
{
	prim_count(m, PRIM_PUT_ANON_VMA, 1);
}

/* el0_svc: a system call's entry and return around the mm work. */
static inline void syscall_enter(struct ptsim_machine *m)
{
	prim_count(m, PRIM_SYSCALL, 1);
}

/* ---- the VMA machinery (v6.12) ---- */

/*
 * mmap_write_lock .. mmap_write_unlock: one hold of mm->mmap_lock for
 * writing. The kernel's unlock bumps mm->mm_lock_seq (vma_end_write_all);
 * the model gives each hold a new sequence as it starts, which is the same
 * to vma_start_write.
 */
static inline void mmap_write_lock(struct ptsim_mm *mm)
{
	prim_count(mm->m, PRIM_MMAP_WRITE_LOCK, 1);
	mm->mm_lock_seq++;
	kobj_rwsem(mm->m, KOBJ_MM, (uint64_t)mm->obj * KOBJ_MM_STRIDE + MM_MMAP_LOCK);
	kobj_mm_load(mm, MM_LOCK_SEQ);	/* vma_end_write_all: the release-store of mm_lock_seq + 1 */
}

/* mmap_read_lock .. mmap_read_unlock: the atomics on mm->mmap_lock. */
static inline void mmap_read_lock(struct ptsim_mm *mm)
{
	prim_count(mm->m, PRIM_MMAP_READ_LOCK, 1);
	kobj_rwsem(mm->m, KOBJ_MM, (uint64_t)mm->obj * KOBJ_MM_STRIDE + MM_MMAP_LOCK);
}

/*
 * vma_start_write: v's lock taken and released once per mmap_lock hold.
 * __is_vma_write_locked reads v->vm_lock_seq and mm->mm_lock_seq first;
 * taking it is down_write and up_write on the vma_lock and the store of
 * vm_lock_seq between them.
 */
static inline void vma_start_write(struct ptsim_mm *mm, struct vma *v)
{
	kobj_vma_load(mm->m, v, VMA_VM_LOCK_SEQ);
	kobj_mm_load(mm, MM_LOCK_SEQ);
	if (v->vm_lock_seq == mm->mm_lock_seq)
		return;
	prim_count(mm->m, PRIM_VMA_START_WRITE, 1);
	v->vm_lock_seq = mm->mm_lock_seq;
	kobj_vma_load(mm->m, v, VMA_VM_LOCK);	/* the vm_lock pointer */
	kobj_rwsem(mm->m, KOBJ_VMA_LOCK, (uint64_t)v->obj * KOBJ_VMA_LOCK_STRIDE);
	kobj_vma_store(mm->m, v, VMA_VM_LOCK_SEQ);
}

/*
 * A vm_area_struct and its vma_lock from their slabs: SLUB's allocation
 * loads the object's free pointer (in its middle for these caches), vma_init
 * and init_rwsem write the new objects.
 */
static inline void vm_area_objects_new(struct ptsim_machine *m, const struct vma *v)
{
	kobj_vma_load(m, v, VMA_FREEPTR);
	kobj_load(m, KOBJ_VMA_LOCK, (uint64_t)v->obj * KOBJ_VMA_LOCK_STRIDE + 16);
	kobj_vma_store_all(m, v);
	kobj_store(m, KOBJ_VMA_LOCK, (uint64_t)v->obj * KOBJ_VMA_LOCK_STRIDE);
}

/* The objects back to their slabs: SLUB stores each one's free pointer; v's id is free again. */
static inline void vm_area_objects_free(struct ptsim_machine *m, struct vma *v)
{
	kobj_vma_store(m, v, VMA_FREEPTR);
	kobj_store(m, KOBJ_VMA_LOCK, (uint64_t)v->obj * KOBJ_VMA_LOCK_STRIDE + 16);
	kobj_slab_free(&m->vma_slab, v->obj);
	v->obj = 0;
}

/*
 * vm_area_alloc: a vm_area_struct and its vma_lock (v6.4 .. v6.14: two slab
 * caches) for v, which vma_insert gave its slab id.
 */
static inline void vm_area_alloc(struct ptsim_machine *m, const struct vma *v)
{
	count(m, PTSIM_EV_SLAB_ALLOC, 2);
	vm_area_objects_new(m, v);
}

/*
 * vm_area_dup: as vm_area_alloc, and copy (a copy of orig) gets a slab id of
 * its own; the copy's vma_lock is new, so it is not write-locked. The
 * memcpy reads every line of orig.
 */
static inline void vm_area_dup(struct ptsim_machine *m, const struct vma *orig, struct vma *copy)
{
	count(m, PTSIM_EV_SLAB_ALLOC, 2);
	copy->vm_lock_seq = 0;
	copy->obj = kobj_slab_alloc(&m->vma_slab);
	vm_area_objects_new(m, copy);
	kobj_vma_load_all(m, orig);
}

/* vm_area_free: call_rcu (writes vm_rcu over vm_start), then both objects back to their slabs. */
static inline void vm_area_free(struct ptsim_machine *m, struct vma *v)
{
	count(m, PTSIM_EV_HELPER_CALL, 1);
	count(m, PTSIM_EV_SLAB_FREE, 2);
	kobj_vma_store(m, v, VMA_VM_START);
	vm_area_objects_free(m, v);
}

/* __vm_area_free: both objects back to their slabs at once (exit_mmap's unreachable VMAs). */
static inline void __vm_area_free(struct ptsim_machine *m, struct vma *v)
{
	count(m, PTSIM_EV_SLAB_FREE, 2);
	vm_area_objects_free(m, v);
}

/*
 * vma_iter_store (mas_store_prealloc after vma_iter_prealloc) in the VMA
 * tree, which is in RCU mode (MM_MT_FLAGS). A store over exactly the range
 * an entry already has (mas_wr_store_type: wr_exact_fit) rewrites that slot
 * in place: one node written, nothing allocated. A store that moves or adds
 * a boundary inside a leaf is a wr_node_store, which in RCU mode
 * (mas_prealloc_calc: 1) writes a new copy of the leaf from one
 * preallocated node and frees the old one after a grace period
 * (ma_free_rcu). Not modelled: a leaf that overflows (wr_split_store: about
 * one store in eight into a 16-slot leaf writes two leaves and the parent)
 * or empties (wr_rebalance), and a store spanning leaves.
 */
static inline void maple_store_counts(struct ptsim_machine *m, bool new_bounds)
{
	count(m, PTSIM_EV_MAPLE_NODE_WRITE, 1);
	if (new_bounds) {
		count(m, PTSIM_EV_SLAB_ALLOC, 1);
		count(m, PTSIM_EV_SLAB_FREE, 1);
	}
}

/* The store into mm's tree at v's position: the walk down to its leaf, then the store's counts. */
static inline void vma_iter_store(struct ptsim_mm *mm, const struct vma *v, bool new_bounds)
{
	kobj_maple_walk(mm, vma_tree_index(mm, v), true);
	maple_store_counts(mm->m, new_bounds);
}

/*
 * mas_store_gfp into munmap's detach tree (vms_gather_munmap_vmas), counted
 * as vma_iter_store; its one leaf is not placed in the data cache.
 */
static inline void mas_store_gfp(struct ptsim_machine *m, bool new_leaf)
{
	maple_store_counts(m, new_leaf);
}

/*
 * The nodes of a VMA tree holding nr_vmas VMAs: 2 * nr_vmas + 1 ranges
 * (the VMAs and the gaps around them) in full 16-slot leaves
 * (MAPLE_RANGE64_SLOTS), under full 10-slot internal nodes
 * (MAPLE_ARANGE64_SLOTS). A real tree is less full: this is a lower bound.
 */
static inline uint64_t maple_tree_nodes(size_t nr_vmas)
{
	uint64_t level = (2 * (uint64_t)nr_vmas + 1 + 15) / 16, nodes = level;

	while (level > 1) {
		level = (level + 9) / 10;
		nodes += level;
	}
	return nodes;
}

/* __mt_dup: every node of src's tree allocated and copied for dst (its lines read, the copy's written). */
static inline void __mt_dup(struct ptsim_mm *src, struct ptsim_mm *dst, size_t nr_vmas)
{
	count(src->m, PTSIM_EV_SLAB_ALLOC, maple_tree_nodes(nr_vmas));
	count(src->m, PTSIM_EV_MAPLE_NODE_WRITE, maple_tree_nodes(nr_vmas));
	kobj_maple_tree_all(src, nr_vmas, false);
	kobj_maple_tree_all(dst, nr_vmas, true);
}

/* __mt_destroy: the tree's nodes freed. */
static inline void __mt_destroy(struct ptsim_machine *m, uint64_t nodes)
{
	prim_count(m, PRIM_MT_DESTROY, nodes);
}

/* The anon_vma_chain entries of v (a VMA given an anon_vma some other way has one). */
static inline uint32_t vma_avcs(const struct vma *v)
{
	return v->anon_vma ? MAX(v->avc, 1u) : 0;
}

/*
 * anon_vma_prepare: a VMA's first anonymous folio gives it an anon_vma id.
 * Callers check anon_vma_available before they change anything: the ids
 * fit 31 bits, and none left is -ENOMEM. A new anon_vma is
 * __anon_vma_prepare's work (find_mergeable_anon_vma finding none):
 * an anon_vma_chain and an anon_vma allocated, the anon_vma locked and
 * mm->page_table_lock taken to link them.
 */
static inline void anon_vma_prepare(struct ptsim_machine *m, struct vma *v)
{
	if (v->anon_vma)
		return;
	v->anon_vma = m->next_anon_vma++;
	v->avc = 1;
	count(m, PTSIM_EV_SLAB_ALLOC, 2);
	count(m, PTSIM_EV_ANON_VMA_LOCK, 1);
	count(m, PTSIM_EV_PTL_LOCK, 1);
	/* anon_vma_alloc's stores (root, refcount, counts, parent), the chain entry's, the lock */
	kobj_store(m, KOBJ_ANON_VMA, v->anon_vma * KOBJ_ANON_VMA_STRIDE);
	kobj_store(m, KOBJ_AVC, (uint64_t)v->obj * KOBJ_AVC_STRIDE);
	anon_vma_rwsem(m, v->anon_vma);
	kobj_vma_store(m, v, VMA_ANON_VMA);
}

/* anon_vma_clone (a split, copy_vma, a merge's dup_anon_vma): dst gets src's chain. */
static inline void anon_vma_clone(struct ptsim_machine *m, struct vma *dst, const struct vma *src)
{
	uint32_t n = vma_avcs(src);

	dst->avc = n;
	if (!n)
		return;
	count(m, PTSIM_EV_SLAB_ALLOC, n);
	count(m, PTSIM_EV_ANON_VMA_LOCK, 1);
	/* the root's lock, the first new chain entry (at dst's id; the others are not placed) */
	anon_vma_rwsem(m, src->anon_vma);
	kobj_store(m, KOBJ_AVC, (uint64_t)dst->obj * KOBJ_AVC_STRIDE);
}

/* anon_vma_fork: the parent's chain cloned, then the child's own anon_vma and its entry. */
static inline void anon_vma_fork(struct ptsim_machine *m, struct vma *child,
				 const struct vma *parent)
{
	uint32_t n = vma_avcs(parent);

	if (!n)
		return;
	anon_vma_clone(m, child, parent);
	count(m, PTSIM_EV_SLAB_ALLOC, 2);
	count(m, PTSIM_EV_ANON_VMA_LOCK, 1);
	child->avc = n + 1;
}

/*
 * unlink_anon_vmas: v's chain entries freed. The anon_vmas they pointed at
 * are freed with their last reference (put_anon_vma), which the model does
 * not track.
 */
static inline void unlink_anon_vmas(struct ptsim_machine *m, const struct vma *v)
{
	uint32_t n = vma_avcs(v);

	if (!n)
		return;
	count(m, PTSIM_EV_SLAB_FREE, n);
	count(m, PTSIM_EV_ANON_VMA_LOCK, 1);
	anon_vma_rwsem(m, v->anon_vma);
	kobj_load(m, KOBJ_AVC, (uint64_t)v->obj * KOBJ_AVC_STRIDE);	/* the chain walk */
}

/*
 * vm_stat_account: the mm's total_vm and its data/exec/stack counts, each
 * read and written (WRITE_ONCE of READ_ONCE + npages): total_vm's line and
 * the one data_vm, exec_vm and stack_vm share.
 */
static inline void vm_stat_account(struct ptsim_mm *mm)
{
	prim_count(mm->m, PRIM_VM_STAT_ACCOUNT, 1);
	kobj_mm_load(mm, MM_TOTAL_VM);
	kobj_mm_load(mm, MM_DATA_VM);
}

/* accountable_mapping (mm/mmap.c): a private writable mapping is VM_ACCOUNT. */
static inline bool accountable_mapping(const struct vma *v)
{
	return (v->flags & (VM_SHARED | VM_WRITE)) == VM_WRITE;
}

/* security_vm_enough_memory_mm: the call and the commit charge. */
static inline void security_vm_enough_memory_mm(struct ptsim_machine *m)
{
	count(m, PTSIM_EV_HELPER_CALL, 1);
	count(m, PTSIM_EV_VM_STAT, 1);
}

/* vm_unacct_memory: the commit charge given back. */
static inline void vm_unacct_memory(struct ptsim_machine *m)
{
	prim_count(m, PRIM_VM_UNACCT_MEMORY, 1);
}

/* vm_unmapped_area: the gap search over the VMA tree. */
static inline void vm_unmapped_area(struct ptsim_machine *m)
{
	prim_count(m, PRIM_VM_UNMAPPED_AREA, 1);
}

/* ---- a fault's fixed work (v6.12) ---- */

/*
 * lock_vma_under_rcu: the call, its mas_walk to v, and v's read lock taken
 * and released (vma_start_read: vm_lock_seq against mm->mm_lock_seq,
 * down_read_trylock of the vma_lock; the range check; vma_end_read).
 * v may be NULL: the walk found nothing.
 */
static inline void lock_vma_under_rcu(struct ptsim_mm *mm, const struct vma *v)
{
	struct ptsim_machine *m = mm->m;

	count(m, PTSIM_EV_HELPER_CALL, 1);
	count(m, PTSIM_EV_RWSEM, 1);
	if (!v)
		return;	/* no VMA there (uffd_mfill_lock's -ENOENT): not placed */
	kobj_maple_walk(mm, vma_tree_index(mm, v), false);
	kobj_vma_load(m, v, VMA_VM_LOCK_SEQ);
	kobj_mm_load(mm, MM_LOCK_SEQ);
	kobj_vma_load(m, v, VMA_VM_LOCK);
	kobj_rwsem(m, KOBJ_VMA_LOCK, (uint64_t)v->obj * KOBJ_VMA_LOCK_STRIDE);
	kobj_vma_load(m, v, VMA_VM_START);
}

/* mm_account_fault: count_vm_event(PGFAULT) and count_memcg_event_mm(PGFAULT). */
static inline void mm_account_fault(struct ptsim_machine *m)
{
	prim_count(m, PRIM_MM_ACCOUNT_FAULT, 2);
}

/*
 * The memory cgroup the model's processes run in: a cgroup two levels
 * below the root (a systemd service: system.slice/NAME.service), so that a
 * charge or an uncharge that reaches the page counters walks three levels,
 * the root's included (page_counter_try_charge, page_counter_uncharge).
 * cgroup v2; CONFIG_MEMCG_V1 off, as the priced objects' defconfig has it.
 */
#define MEMCG_LEVELS 3
#define MEMCG_CHARGE_BATCH 64	/* include/linux/memcontrol.h: the per-CPU stock's batch */

/*
 * try_charge_memcg (v6.12 mm/memcontrol.c) for nr pages: consume_stock
 * takes them from this CPU's stock when it holds enough (and nr is at most
 * a batch); otherwise page_counter_try_charge charges a batch (or nr, if
 * larger) at every level and __refill_stock keeps the rest in the stock.
 * The limits are never reached: no reclaim, no high-limit work.
 */
static inline void try_charge_memcg(struct ptsim_machine *m, uint64_t nr)
{
	uint64_t batch = nr > MEMCG_CHARGE_BATCH ? nr : MEMCG_CHARGE_BATCH;

	kernel_call(m, TRY_CHARGE_MEMCG);
	if (nr <= MEMCG_CHARGE_BATCH) {
		prim_count(m, PRIM_CONSUME_STOCK, 1);
		if (m->memcg_stock >= nr) {
			m->memcg_stock -= (unsigned int)nr;
			return;
		}
	}
	kernel_call(m, PAGE_COUNTER_TRY_CHARGE);
	prim_count(m, PRIM_PAGE_COUNTER_ATOMIC, MEMCG_LEVELS);
	if (batch > nr) {
		kernel_call(m, REFILL_STOCK);
		/* drain_stock gives back a stock grown past a batch */
		m->memcg_stock += (unsigned int)(batch - nr);
		if (m->memcg_stock > MEMCG_CHARGE_BATCH)
			m->memcg_stock = 0;
	}
}

/* charge_memcg (inline in its callers): try_charge_memcg, then mem_cgroup_commit_charge. */
static inline void charge_memcg(struct ptsim_machine *m, uint64_t nr)
{
	try_charge_memcg(m, nr);
	kernel_call(m, MEM_CGROUP_COMMIT_CHARGE);
	prim_count(m, PRIM_CSS_GET, 1);
}

/*
 * mem_cgroup_charge -> __mem_cgroup_charge (v6.12 mm/memcontrol.c): a new
 * folio of nr pages charged to the mm's memcg (get_mem_cgroup_from_mm's
 * reference dropped after), as mm/memcontrol.o's calls show.
 */
static inline void mem_cgroup_charge(struct ptsim_machine *m, uint64_t nr)
{
	kernel_call(m, MEM_CGROUP_CHARGE);
	kernel_call(m, GET_MEM_CGROUP_FROM_MM);
	prim_count(m, PRIM_CSS_GET, 1);	/* css_tryget */
	charge_memcg(m, nr);
	prim_count(m, PRIM_CSS_PUT, 1);
}

/*
 * mem_cgroup_swapin_charge_folio: a folio read from swap charged to the
 * memcg its swap entry records (css_tryget_online), as mem_cgroup_charge.
 */
static inline void mem_cgroup_swapin_charge_folio(struct ptsim_machine *m, uint64_t nr)
{
	kernel_call(m, MEM_CGROUP_SWAPIN_CHARGE);
	prim_count(m, PRIM_CSS_GET, 1);	/* css_tryget_online */
	charge_memcg(m, nr);
	prim_count(m, PRIM_CSS_PUT, 1);
}

/*
 * uncharge_folio (v6.12 mm/memcontrol.c, out of line) for one freed
 * anonymous folio: its memcg_data read and cleared, the reference it held
 * dropped (css_put); the pages are added to the gather.
 */
static inline void uncharge_folio(struct ptsim_machine *m)
{
	kernel_call(m, UNCHARGE_FOLIO);
	prim_count(m, PRIM_CSS_PUT, 1);
}

/*
 * uncharge_batch: the gathered pages off the page counters
 * (page_counter_uncharge: page_counter_cancel at every level) and the
 * gather's reference on the memcg (uncharge_folio's css_get) dropped.
 */
static inline void uncharge_batch(struct ptsim_machine *m)
{
	prim_count(m, PRIM_CSS_GET, 1);	/* uncharge_folio's, for the gather */
	kernel_call(m, UNCHARGE_BATCH);
	kernel_call(m, PAGE_COUNTER_UNCHARGE);
	prim_count(m, PRIM_PAGE_COUNTER_CANCEL, MEMCG_LEVELS);
	prim_count(m, PRIM_PAGE_COUNTER_ATOMIC, MEMCG_LEVELS);
	prim_count(m, PRIM_CSS_PUT, 1);
}

/*
 * folio_add_lru_vma (v6.12 mm/swap.c) of the folio at pfn: its call and
 * folio_add_lru's (an LRU_ADD event each), then the folio into this CPU's
 * lru_add batch (folio_batch_add_and_move), moved when it fills or, from
 * "lru_cache_small_only", at once for a large folio. An mlocked VMA's
 * folio would go to mlock_new_folio instead (not modelled).
 */
static inline void folio_add_lru_vma(struct ptsim_machine *m, uint64_t pfn, bool large)
{
	prim_count(m, PRIM_FOLIO_ADD_LRU_VMA, 1);
	folio_add_lru(m, pfn, large);
}

/* The mm counters of v6.12 include/linux/mm_types_task.h, in rss_stat's order. */
enum mm_counter { MM_FILEPAGES, MM_ANONPAGES, MM_SWAPENTS, MM_SHMEMPAGES };

/*
 * add_mm_counter (inc_mm_counter, dec_mm_counter): one mm counter update.
 * percpu_counter_add reads the counter's per-CPU pointer from
 * mm->rss_stat[member] and adds to this CPU's s32 (this_cpu_add); the
 * batch's spill into the shared count is not modelled.
 */
static inline void add_mm_counter(struct ptsim_mm *mm, enum mm_counter member)
{
	prim_count(mm->m, PRIM_ADD_MM_COUNTER, 1);
	kobj_mm_load(mm, MM_RSS_STAT + MM_RSS_STAT_SIZE * member + MM_RSS_COUNTERS);
	kobj_load(mm->m, KOBJ_PERCPU_RSS, (uint64_t)mm->obj * KOBJ_PERCPU_RSS_STRIDE + 4 * member);
}

/* ---- loop steps ---- */

/* One turn of a PTE loop (zap, change_pte_range, copy, move, madvise, mlock walks). */
static inline void pte_loop_step(struct ptsim_machine *m)
{
	prim_count(m, PRIM_PTE_LOOP_STEP, 1);
}

/* One turn of a PMD loop: pmd_addr_end, the PMD checks and its cond_resched. */
static inline void pmd_loop_step(struct ptsim_machine *m)
{
	prim_count(m, PRIM_PMD_LOOP_STEP, 1);
}

#endif
