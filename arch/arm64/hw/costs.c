// SPDX-License-Identifier: MIT
/*
 * CPU cost profiles: nanoseconds per event. Each event belongs to one cost
 * class with a structural multiplier (how many of the class one event is);
 * each CPU has one constant per class with its source. Sources are
 * doc/cpu-profiles.md sections (published facts and labelled ESTIMATEs) or
 * "fitted on ROW" for the few constants fitted on a reproduce row.
 * Algorithms never read this file; only ptsim_predict() does.
 */
#include "core.h"

/* Where each source string points: a section of this page in the repository. */
#define DOC "doc/cpu-profiles.md "

#include <math.h>
#include <string.h>

enum cost_class {
	C_FREE,		/* bookkeeping counters whose work other events carry */
	C_PTE_LOAD,	/* a plain load of a descriptor (L1-resident, streaming) */
	C_PTE_STORE,	/* a plain store of a descriptor */
	C_ATOMIC,	/* SWP / CAS on an L1-resident line */
	C_TLBI,		/* issuing a lone broadcast TLBI */
	C_TLBI_EXTRA,	/* the stall of each further TLBI issued back to back */
	C_DSB_TLBI,	/* DSB ISH completing broadcast TLB maintenance */
	C_DSB_LIGHT,	/* DSB ISHST (no maintenance outstanding) */
	C_ISB,
	C_CALL,		/* a kernel helper call: call, prologue, a few branches */
	C_FOLIO_LOOKUP,	/* vm_normal_page/vm_normal_folio: the call and its struct page reads */
	C_BIT_TEST,	/* a flag or bit test, an inline helper */
	/*
	 * the exception's entry and return and handle_mm_fault's walk to the
	 * entry (do_page_fault -> __handle_mm_fault): since issue 26 the
	 * per-VMA lock, the PGFAULT accounting, the memcg charge, the LRU add
	 * and the mm counters are counted apart (RWSEM, VM_STAT,
	 * MEMCG_CHARGE, LRU_ADD, HELPER_CALL: about 50-60 ns a fault on these
	 * profiles), and so are zeroing, allocation and the PTE work. The
	 * per-CPU constants are the §10.4 whole-fault ESTIMATEs, kept: what is
	 * now counted apart lies inside their spread (issue 28 reprices them).
	 */
	C_FAULT,
	C_ZERO_KIB,	/* zeroing 1 KiB of a freshly allocated page */
	C_USER_WRITE_KIB, /* user memset of 1 KiB (cold destination) */
	C_USER_READ_KIB,  /* user read of 1 KiB */
	C_TLB_L2_HIT,	/* extra latency of an L1 TLB miss that hits the L2 TLB */
	/*
	 * the walker's fixed cost: upper levels in the walk cache, the last
	 * read an L1 hit; where that read hits is the data-cache model's
	 * (dcache_walk_load, priced by the l2/llc/dram_extra classes)
	 */
	C_WALK,
	C_ALLOC,	/* a page-allocator fast-path allocation */
	C_SLAB,		/* a slab allocator fast-path allocation or free (kmem_cache_alloc/free) */
	C_SYSCALL,	/* system call entry and exit */
	C_IO_REQUEST,	/* one read submission through its completion (not the transfer) */
	C_IO_KIB,	/* transferring 1 KiB from storage */
	C_EXEC_CALL,	/* calling a cold stub: an instruction line from memory, the RET */
	/*
	 * The data-cache model's levels (arch/arm64/hw/dcache.c): what a load
	 * or atomic costs beyond an L1 hit, which the event's own class
	 * already carries. An L1 hit and a prefetched line cost nothing more.
	 */
	C_L2_EXTRA,	/* L2 load-to-use minus L1's */
	C_LLC_EXTRA,	/* last-level cache load-to-use minus L1's */
	C_DRAM_EXTRA,	/* memory load-to-use minus L1's */
	C__COUNT
};

static const char *const class_names[C__COUNT] = {
	[C_FREE] = "free", [C_PTE_LOAD] = "pte_load", [C_PTE_STORE] = "pte_store",
	[C_ATOMIC] = "atomic", [C_TLBI] = "tlbi", [C_TLBI_EXTRA] = "tlbi_extra", [C_DSB_TLBI] = "dsb_tlbi",
	[C_DSB_LIGHT] = "dsb_light", [C_ISB] = "isb", [C_CALL] = "call", [C_FOLIO_LOOKUP] = "folio_lookup",
	[C_BIT_TEST] = "bit_test",
	[C_FAULT] = "fault", [C_ZERO_KIB] = "zero_kib", [C_USER_WRITE_KIB] = "user_write_kib",
	[C_USER_READ_KIB] = "user_read_kib", [C_TLB_L2_HIT] = "tlb_l2_hit", [C_WALK] = "walk",
	[C_ALLOC] = "alloc", [C_SLAB] = "slab", [C_SYSCALL] = "syscall",
	[C_IO_REQUEST] = "io_request", [C_IO_KIB] = "io_kib", [C_EXEC_CALL] = "exec_call",
	[C_L2_EXTRA] = "l2_extra", [C_LLC_EXTRA] = "llc_extra", [C_DRAM_EXTRA] = "dram_extra",
};

/* How each event is costed: its class, and how many of that class it is. */
static const struct {
	enum cost_class klass;
	double times;
	bool per_kib;	/* times the page size in KiB */
} event_class[PTSIM_EV__COUNT] = {
	[PTSIM_EV_PTE_READ] = { C_PTE_LOAD, 1, false },
	[PTSIM_EV_PTE_WRITE] = { C_PTE_STORE, 1, false },
	[PTSIM_EV_PTE_XCHG] = { C_ATOMIC, 1, false },
	[PTSIM_EV_PTE_CAS] = { C_ATOMIC, 1, false },
	[PTSIM_EV_PMD_READ] = { C_PTE_LOAD, 1, false },
	[PTSIM_EV_PMD_WRITE] = { C_PTE_STORE, 1, false },
	[PTSIM_EV_PMD_XCHG] = { C_ATOMIC, 1, false },
	[PTSIM_EV_PUD_READ] = { C_PTE_LOAD, 1, false },
	[PTSIM_EV_PUD_WRITE] = { C_PTE_STORE, 1, false },
	[PTSIM_EV_TLBI_VA] = { C_TLBI, 1, false },
	[PTSIM_EV_TLBI_VAA] = { C_TLBI, 1, false },
	[PTSIM_EV_TLBI_RANGE] = { C_TLBI, 1, false },
	[PTSIM_EV_TLBI_RANGE_VAA] = { C_TLBI, 1, false },
	[PTSIM_EV_TLBI_ASID] = { C_TLBI, 1, false },
	[PTSIM_EV_TLBI_ALL] = { C_TLBI, 1, false },
	[PTSIM_EV_TLBI_LOCAL_ALL] = { C_TLBI, 1, false },
	[PTSIM_EV_TLBI_BACK_TO_BACK] = { C_TLBI_EXTRA, 1, false },
	[PTSIM_EV_DSB_ISHST] = { C_DSB_LIGHT, 1, false },
	[PTSIM_EV_DSB_ISH] = { C_DSB_TLBI, 1, false },
	[PTSIM_EV_ISB] = { C_ISB, 1, false },
	/*
	 * Inline in v6.12 (arch/arm64/include/asm/tlbflush.h, mmu_notifier.h):
	 * __flush_tlb_range's rounding and limit test, flush_tlb_mm's ASID
	 * load, the mm_has_notifiers tests (no call without notifiers; the
	 * range start's might_sleep call is a COND_RESCHED).
	 */
	[PTSIM_EV_FLUSH_TLB_RANGE] = { C_BIT_TEST, 2, false },
	[PTSIM_EV_FLUSH_TLB_MM] = { C_BIT_TEST, 1, false },
	[PTSIM_EV_NOTIFIER_SECONDARY_TLBS] = { C_BIT_TEST, 1, false },
	[PTSIM_EV_MMU_NOTIFIER_RANGE] = { C_BIT_TEST, 2, false },	/* start's and end's tests */
	[PTSIM_EV_TABLE_ALLOC] = { C_ALLOC, 1, false },
	[PTSIM_EV_TABLE_FREE] = { C_ALLOC, 0.5, false },
	/*
	 * A folio from the page allocator, the plain work around its calls
	 * (v6.12 mm/page_alloc.c): the page's list_del off a per-CPU or buddy
	 * list (4), the list's count, and post_alloc_hook's and
	 * prep_new_page's stores (->private, the refcount, the pfmemalloc
	 * flag); its calls, the lock, the counts and a large folio's
	 * prep_compound_page are events of their own
	 */
	[PTSIM_EV_FOLIO_ALLOC] = { C_PTE_STORE, 8, false },
	/*
	 * A folio back to the page allocator, the plain work around its calls
	 * (v6.12 mm/page_alloc.c): free_pages_prepare's stores to the head
	 * page (->mapping, the flags checked at preparation, the last cpupid:
	 * 3) and the page's way onto a free list, free_unref_page_commit's
	 * list_add (4) and the pcp's count, free_count and alloc_factor (3),
	 * or __free_one_page's add_to_free_list and set_buddy_order, as many;
	 * its calls, the lock and the PGFREE count are events of their own
	 */
	[PTSIM_EV_FOLIO_FREE] = { C_PTE_STORE, 10, false },
	/* vm_normal_page's call; its struct page load is priced by the data cache */
	[PTSIM_EV_FOLIO_LOOKUP] = { C_FOLIO_LOOKUP, 1, false },
	[PTSIM_EV_FOLIO_TEST] = { C_BIT_TEST, 1, false },
	[PTSIM_EV_ANON_EXCL_TEST] = { C_BIT_TEST, 1, false },
	[PTSIM_EV_PTL_LOCK] = { C_ATOMIC, 2, false },	/* lock and unlock */
	[PTSIM_EV_LAZY_MMU] = { C_BIT_TEST, 2, false },	/* thread flag set and clear */
	[PTSIM_EV_PMD_ITER] = { C_BIT_TEST, 2, false },	/* pmd_addr_end, the checks; no call */
	/* v6.12 asm/pgtable.h: ptep_get, set_ptes, __set_ptes are inline; their calls are apart */
	[PTSIM_EV_PTEP_GET] = { C_BIT_TEST, 1, false },	/* the cont-bit test */
	[PTSIM_EV_CONTPTE_GATHER] = { C_CALL, 1, false },	/* the contpte_ptep_get call */
	[PTSIM_EV_SET_PTES] = { C_BIT_TEST, 2, false },	/* nr test, unfold/fold tests */
	[PTSIM_EV_SET_PTES_CHUNK] = { C_BIT_TEST, 2, false },	/* __sync_cache_and_tags's tests */
	[PTSIM_EV_CONTPTE_CONVERT] = { C_CALL, 1, false },	/* static, two callers: a call */
	[PTSIM_EV_CONTPTE_FOLD] = { C_FREE, 0, false },
	[PTSIM_EV_CONTPTE_UNFOLD] = { C_CALL, 1, false },	/* the __contpte_try_unfold call */
	[PTSIM_EV_FOLD_ATTEMPT] = { C_CALL, 1, false },
	[PTSIM_EV_TLB_GATHER_ADD] = { C_BIT_TEST, 2, false },	/* min/max of the range */
	[PTSIM_EV_PTE_MODIFY] = { C_BIT_TEST, 2, false },	/* inline mask and or */
	[PTSIM_EV_PTE_BATCH] = { C_BIT_TEST, 2, false },	/* inline (mm/internal.h): the set-up */
	[PTSIM_EV_PROT_COMMIT] = { C_CALL, 1, false },
	[PTSIM_EV_CAN_CHANGE_WRITABLE] = { C_CALL, 1, false },
	[PTSIM_EV_PTE_LOOP] = { C_BIT_TEST, 2, false },
	[PTSIM_EV_FAULT] = { C_FAULT, 1, false },
	[PTSIM_EV_PAGE_ZERO] = { C_ZERO_KIB, 1, true },
	[PTSIM_EV_HUGE_PMD_SPLIT] = { C_CALL, 4, false },
	/* the calls: their slab, maple-tree, lock and anon_vma work is counted apart */
	[PTSIM_EV_VMA_SPLIT] = { C_CALL, 1, false },
	[PTSIM_EV_VMA_MERGE] = { C_CALL, 1, false },
	[PTSIM_EV_SYSCALL] = { C_SYSCALL, 1, false },
	[PTSIM_EV_MEM_ACCESS] = { C_FREE, 0, false },	/* the bytes are costed per page */
	[PTSIM_EV_TLB_L1_HIT] = { C_FREE, 0, false },	/* hidden in the load pipeline */
	[PTSIM_EV_TLB_L2_HIT] = { C_TLB_L2_HIT, 1, false },
	[PTSIM_EV_TLB_WALK] = { C_WALK, 1, false },
	/* inside C_WALK; the last read's level is priced by the data-cache model */
	[PTSIM_EV_WALK_READ] = { C_FREE, 0, false },
	[PTSIM_EV_HW_AF_UPDATE] = { C_ATOMIC, 1, false },
	[PTSIM_EV_HW_DIRTY_UPDATE] = { C_ATOMIC, 1, false },
	[PTSIM_EV_ACCESS_FAULT] = { C_FREE, 0, false },	/* handling is costed where it happens */
	[PTSIM_EV_TLB_CONFLICT] = { C_FREE, 0, false },
	[PTSIM_EV_USER_PAGE_WRITE] = { C_USER_WRITE_KIB, 1, true },
	[PTSIM_EV_USER_PAGE_READ] = { C_USER_READ_KIB, 1, true },
	[PTSIM_EV_FOLIO_TRYLOCK] = { C_ATOMIC, 1, false },
	[PTSIM_EV_FOLIO_LOCK_WAIT] = { C_SYSCALL, 2, false },	/* sleep and wake-up */
	[PTSIM_EV_FOLIO_UNLOCK] = { C_ATOMIC, 1, false },
	[PTSIM_EV_FOLIO_GET] = { C_ATOMIC, 1, false },
	[PTSIM_EV_FOLIO_PUT] = { C_ATOMIC, 1, false },
	[PTSIM_EV_ANON_VMA_LOCK] = { C_ATOMIC, 2, false },	/* rwsem trylock and unlock */
	[PTSIM_EV_ANON_VMA_REF] = { C_ATOMIC, 2, false },	/* get and put */
	[PTSIM_EV_RMAP_MOVE] = { C_CALL, 1, false },
	[PTSIM_EV_PTE_MAP] = { C_CALL, 2, false },		/* map (RCU enter) and unmap */
	[PTSIM_EV_COND_RESCHED] = { C_CALL, 1, false },
	/*
	 * split_huge_page_to_list_to_order's own work (v6.12 mm/huge_memory.c):
	 * its call and those of can_split_folio, unmap_folio, __split_huge_page
	 * and remap_page (static, out of line in the build); the per-page work
	 * of the unmap, the tails and the remap is counted as its primitives
	 */
	[PTSIM_EV_FOLIO_SPLIT] = { C_CALL, 5, false },
	[PTSIM_EV_SWAP_LOOKUP] = { C_CALL, 2, false },
	[PTSIM_EV_PAGE_CACHE_LOOKUP] = { C_CALL, 2, false },	/* xarray walk */
	[PTSIM_EV_MAJOR_FAULT] = { C_FREE, 0, false },	/* costed by its I/O and retry */
	[PTSIM_EV_FAULT_RETRY] = { C_FAULT, 1, false },	/* the fault is taken again */
	[PTSIM_EV_IO_REQUEST] = { C_IO_REQUEST, 1, false },
	[PTSIM_EV_IO_KIB] = { C_IO_KIB, 1, false },
	[PTSIM_EV_MAP_PAGES] = { C_BIT_TEST, 2, false },	/* PageHWPoison, workingset */
	[PTSIM_EV_EXEC_CALL] = { C_EXEC_CALL, 1, false },
	[PTSIM_EV_TLB_BATCH_SLOT] = { C_BIT_TEST, 2, false },	/* store the page, bump nr */
	[PTSIM_EV_TLB_BATCH_ALLOC] = { C_ALLOC, 1, false },	/* __get_free_page(GFP_NOWAIT) */
	[PTSIM_EV_TLB_FLUSH_MMU] = { C_CALL, 2, false },	/* free_pages_and_swap_cache, call_rcu */
	[PTSIM_EV_RMAP_REMOVE] = { C_CALL, 1, false },	/* the call; its atomics and stats apart */
	[PTSIM_EV_RMAP_DUP] = { C_BIT_TEST, 2, false },	/* inline: the pin and large tests */
	[PTSIM_EV_PAGE_COPY] = { C_ZERO_KIB, 2, true },	/* copy: a load and a store stream */
	[PTSIM_EV_MLOCK_FOLIO] = { C_CALL, 2, false },	/* per-CPU batch add, LRU work */
	[PTSIM_EV_HELPER_CALL] = { C_CALL, 1, false },
	[PTSIM_EV_SLAB_ALLOC] = { C_SLAB, 1, false },
	[PTSIM_EV_SLAB_FREE] = { C_SLAB, 1, false },
	/* a 256-byte maple node: four cache lines written, its parent's slot updated */
	[PTSIM_EV_MAPLE_NODE_WRITE] = { C_CALL, 2, false },
	[PTSIM_EV_RWSEM] = { C_ATOMIC, 2, false },	/* the acquire and the release */
	[PTSIM_EV_VM_STAT] = { C_BIT_TEST, 2, false },	/* a this_cpu add or a plain add */
	/*
	 * the call of __mem_cgroup_charge or mem_cgroup_swapin_charge_folio;
	 * since 0.3 its callees (get_mem_cgroup_from_mm, try_charge_memcg,
	 * mem_cgroup_commit_charge), the per-CPU stock and the css references
	 * are counted apart (before, four calls' worth stood for all of it)
	 */
	[PTSIM_EV_MEMCG_CHARGE] = { C_CALL, 1, false },
	/*
	 * a call of folio_add_lru_vma or folio_add_lru; the per-CPU lru_add
	 * batch and its moves are counted apart (since 0.3; before, two calls'
	 * worth stood for all of it)
	 */
	[PTSIM_EV_LRU_ADD] = { C_CALL, 1, false },
	[PTSIM_EV_RMAP_ADD] = { C_CALL, 1, false },	/* the call; its atomics and stats apart */
	[PTSIM_EV_MAPCOUNT_ATOMIC] = { C_ATOMIC, 1, false },	/* LDADD/LDADDAL on a struct page */
	[PTSIM_EV_MAPCOUNT_SET] = { C_PTE_STORE, 1, false },	/* one plain store */
	[PTSIM_EV_PAGE_FLAG_ATOMIC] = { C_ATOMIC, 1, false },	/* set_bit/clear_bit: LDSET/LDCLR */
	/* the call and the node and memcg per-CPU counter updates: two calls' worth */
	[PTSIM_EV_LRUVEC_STAT] = { C_CALL, 2, false },
	/*
	 * The raw API's barriers and local TLBIs (no kernel path issues them).
	 * DSB SY waits for all a DSB ISH does, over a wider domain: priced as
	 * one, since no measurement separating them was found. DSB NSH waits
	 * for no other CPU (no DVM sync): the light DSB's ESTIMATE. A local
	 * TLBI: a lone TLBI's issue cost, as TLBI VMALLE1 is priced.
	 */
	[PTSIM_EV_DSB_SY] = { C_DSB_TLBI, 1, false },
	[PTSIM_EV_DSB_NSH] = { C_DSB_LIGHT, 1, false },
	[PTSIM_EV_TLBI_LOCAL] = { C_TLBI, 1, false },
	[PTSIM_EV_DCACHE_L1_HIT] = { C_FREE, 0, false },	/* inside the load's own class */
	[PTSIM_EV_DCACHE_PREFETCH_HIT] = { C_FREE, 0, false },	/* the stream hid the latency */
	[PTSIM_EV_DCACHE_L2_HIT] = { C_L2_EXTRA, 1, false },
	[PTSIM_EV_DCACHE_LLC_HIT] = { C_LLC_EXTRA, 1, false },
	[PTSIM_EV_DCACHE_DRAM] = { C_DRAM_EXTRA, 1, false },
	/*
	 * A kernel object's line (doc/cpu-profiles.md §11.7): the same extra
	 * latency beyond the L1 hit its own event (the rwsem, the counter
	 * update, the slab allocation, ...) already prices.
	 */
	[PTSIM_EV_DCACHE_OBJ_L1_HIT] = { C_FREE, 0, false },
	[PTSIM_EV_DCACHE_OBJ_PREFETCH_HIT] = { C_FREE, 0, false },
	[PTSIM_EV_DCACHE_OBJ_L2_HIT] = { C_L2_EXTRA, 1, false },
	[PTSIM_EV_DCACHE_OBJ_LLC_HIT] = { C_LLC_EXTRA, 1, false },
	[PTSIM_EV_DCACHE_OBJ_DRAM] = { C_DRAM_EXTRA, 1, false },
	/* an instruction line beyond the L1I (§11.8): the unified levels' extra latency */
	[PTSIM_EV_ICACHE_L2_HIT] = { C_L2_EXTRA, 1, false },
	[PTSIM_EV_ICACHE_LLC_HIT] = { C_LLC_EXTRA, 1, false },
	[PTSIM_EV_ICACHE_DRAM] = { C_DRAM_EXTRA, 1, false },
	/*
	 * free_tail_page_prepare (v6.12 mm/page_alloc.c, inline, check_pages
	 * off): page->mapping and compound_head cleared, and the flags' AT_PREP
	 * bits cleared by free_pages_prepare: three plain stores to the tail's
	 * struct page, whose flags load the data-cache model prices
	 */
	[PTSIM_EV_FREE_TAIL_PAGE] = { C_PTE_STORE, 3, false },
	/*
	 * folio_batch_move_lru (v6.12 mm/swap.c): spin_lock_irqsave and
	 * unlock_irqrestore of the lruvec's lru_lock, once per batch (the
	 * folios of one lruvec): an acquire and a release, as a rwsem's
	 */
	[PTSIM_EV_LRU_LOCK] = { C_ATOMIC, 2, false },
	/*
	 * each folio's move_fn through the batch's function pointer (an
	 * indirect call: lru_lazyfree for MADV_FREE) doing lruvec_del_folio and
	 * lruvec_add_folio (a list unlink and link, each with its
	 * update_lru_size call) and the event counts: two calls' worth, as
	 * LRU_ADD; the folio's struct page line is the data-cache model's
	 */
	[PTSIM_EV_LRU_MOVE] = { C_CALL, 2, false },
	/*
	 * __split_huge_page_tail (v6.12 mm/huge_memory.c, inline): the tail's
	 * flags, ->mapping, ->index, compound_head and _refcount (unfrozen),
	 * its memcg_data (split_page_memcg's loop) and lru_add_page_tail's
	 * list_add_tail (four pointers): ten plain stores to struct page lines
	 * the data-cache model prices; SetPageLRU and the cpupid exchange are
	 * atomics counted apart
	 */
	[PTSIM_EV_SPLIT_PAGE_TAIL] = { C_PTE_STORE, 10, false },
	/*
	 * page_counter_cancel's atomic_long_sub_return, or one turn of
	 * page_counter_try_charge's loop (its atomic_long_add_return): a
	 * fully ordered atomic, as mm/page_counter.o's LDADDAL shows
	 */
	[PTSIM_EV_PAGE_COUNTER] = { C_ATOMIC, 1, false },
	/*
	 * prep_compound_tail (v6.12 mm/internal.h, inline): ->mapping,
	 * compound_head and ->private, three plain stores to a struct page line
	 * the data-cache model prices; prep_compound_head's folio fields
	 * (order, three mapcounts and the pin count as atomic_set, the deferred
	 * list) are counted as one more such page
	 */
	[PTSIM_EV_COMPOUND_PAGE] = { C_PTE_STORE, 3, false },
	/*
	 * pcp_spin_trylock and pcp_spin_unlock (v6.12 mm/page_alloc.c), or
	 * free_one_page's spin_lock_irqsave and spin_unlock_irqrestore of
	 * zone->lock: an acquire and a release, as a table lock's
	 */
	[PTSIM_EV_PAGE_ALLOC_LOCK] = { C_ATOMIC, 2, false },
	/*
	 * list_add or list_del of a free block (v6.12 include/linux/list.h,
	 * inline in mm/page_alloc.c): four pointer stores (the node's two and
	 * its neighbours', or the neighbours' two and the poison values), and
	 * the count or order beside it (area->nr_free or set_buddy_order's
	 * PageBuddy and order, pcp->count): five plain stores
	 */
	[PTSIM_EV_FREE_LIST_OP] = { C_PTE_STORE, 5, false },
	/*
	 * DMB ISH, ISHLD or ISHST (arch/arm64/include/asm/barrier.h's
	 * __smp_mb, __smp_rmb, __smp_wmb): a DMB orders the accesses around
	 * it and, unlike a DSB, does not wait for their completion (Arm ARM
	 * B2.3.12), so it costs at most what a DSB ISHST with nothing
	 * outstanding costs: that price (an ESTIMATE, an upper bound; no
	 * measurement of either for these CPUs was found)
	 */
	[PTSIM_EV_DMB] = { C_DSB_LIGHT, 1, false },
};

enum unit { NS, CYCLES, GBPS };

/*
 * A constant, its source and its relative uncertainty with the reason
 * (doc/cpu-profiles.md §12). A constant given without one takes the rule
 * of §12 in constant_uncertainty(): an ESTIMATE +-30 %, a published or
 * derived figure +-15 %.
 */
struct constant {
	enum unit unit;
	double value;
	const char *source;
	const char *fitted_on;
	double uncertainty;
	const char *uncertainty_source;
};

#define NSEC(v, src)		{ NS, (v), (src), NULL, 0, NULL }
#define CYC(v, src)		{ CYCLES, (v), (src), NULL, 0, NULL }
#define BW(v, src)		{ GBPS, (v), (src), NULL, 0, NULL }
/* a measured or derived constant with its own spread (relative) and where the spread comes from */
#define SPREAD_NS(v, unc, why, src)	{ NS, (v), (src), NULL, (unc), (why) }
#define SPREAD_BW(v, unc, why, src)	{ GBPS, (v), (src), NULL, (unc), (why) }
/* fitted: the uncertainty is the fit's leave-one-out spread (ptsim-bench fit) */
#define FITTED_NS(v, row, unc, why)	{ NS, (v), "fitted on " row, row, (unc), (why) }
#define FITTED_BW(v, row, unc, why)	{ GBPS, (v), "fitted on " row, row, (unc), (why) }

/* Shared ESTIMATEs: no measurement of these was found for any of the CPUs. */
#define EST_STORE	CYC(2, "ESTIMATE: one store, 2 cycles")
#define EST_DSB_LIGHT	CYC(10, "ESTIMATE: DSB ISHST with no maintenance outstanding, 10 cycles")
#define EST_ISB		CYC(20, "ESTIMATE: pipeline refill, 20 cycles")
#define EST_CALL	CYC(20, "ESTIMATE: kernel helper call, 20 cycles")
#define EST_BIT		CYC(2, "ESTIMATE: inline bit test, 2 cycles")
#define EST_ALLOC	NSEC(100, "ESTIMATE: page allocator fast path, 100 ns")
#define EST_SLAB	NSEC(25, "ESTIMATE: kmem_cache_alloc/free fast path (SLUB): a this_cpu_cmpxchg " \
			     "of the per-CPU freelist and a few loads, ~20-30 ns")
#define EST_SYSCALL	NSEC(200, DOC "§10.4: exception round trip 0.1-0.3 us (ESTIMATE)")
#define EST_IO_REQ	NSEC(20000, "ESTIMATE: NVMe read submission to completion, ~20 us")
#define EST_IO_KIB	BW(7, "ESTIMATE: PCIe Gen4 NVMe sequential read, ~7 GB/s")
#define EST_EXEC_CALL	CYC(15, DOC "§11.8: the branch and RET around an L1I miss (the front "	\
			    "end's refill, ESTIMATE); the line's level is the cache model's")
#define L1_LOAD		CYC(4, DOC "§1: L1D load-to-use 3 cycles (M1 measured) + loop, 4 cycles")
#define EST_LOOKUP	CYC(20, "ESTIMATE: the vm_normal_page call, 20 cycles as a helper call; its " \
			    "struct page load is the data cache's (" DOC "§11)")

static const struct constant profiles[PTSIM_CPU__COUNT][C__COUNT] = {
	[PTSIM_CPU_APPLE_M3] = {
		[C_PTE_LOAD] = L1_LOAD,
		[C_PTE_STORE] = EST_STORE,
		[C_ATOMIC] = CYC(22, DOC "§9.4: LDADDAL 21.99 / CASAL 21.06 cyc on M1 Firestorm "
				 "(ocxtal); SWP assumed equal"),
		[C_TLBI] = NSEC(18, DOC "§9.2/§10.3: a lone TLBI is ~5% of a single-page flush "
				"(SD888 measured); 5% of the M3 ~0.35 us flush"),
		[C_TLBI_EXTRA] = NSEC(150, DOC "§10.3: M3 broadcast TLBI per extra op ~150 ns (ESTIMATE)"),
		[C_DSB_TLBI] = FITTED_NS(315.1, "mprotect.m3.t1_over_t3_before", 1.37,
					 "the joint fit's leave-one-out spread, 137 % (ptsim-bench fit)"),
		[C_DSB_LIGHT] = EST_DSB_LIGHT,
		[C_ISB] = EST_ISB,
		[C_CALL] = EST_CALL,
		[C_FOLIO_LOOKUP] = EST_LOOKUP,
		[C_BIT_TEST] = EST_BIT,
		[C_FAULT] = NSEC(950, DOC "§10.4: ~1 us per 4K anonymous fault on M3 incl. zeroing, "
				 "minus the zeroing at 80 GB/s, 51 ns (ESTIMATE)"),
		[C_ZERO_KIB] = SPREAD_BW(80, 0.20, "the derivation's range, 64-96 GB/s",
					 DOC "§10.5: clear_page's DC ZVA is a full-line store stream "
					 "to the same memory as the memset's: the memset's derivation "
					 "(M1 measured, M3 derived), 64-96 GB/s"),
		[C_USER_WRITE_KIB] = SPREAD_BW(80, 0.20, "the derivation's range, 64-96 GB/s",
					DOC "§10.5: one M1 P-core streams stores to a 1 GB buffer at "
					"59.48 GiB/s = 63.9 GB/s (volatile-membench RESULTS_M1.md, measured), "
					"94 % of its LPDDR4X peak; the M3's LPDDR5 peak is 1.5x: 64-96 GB/s "
					"(derived)"),
		[C_USER_READ_KIB] = BW(100, DOC "§8/§10.5: one P-core draws most of 100 GB/s (ESTIMATE)"),
		[C_TLB_L2_HIT] = CYC(6, DOC "§1: L1 miss / L2 hit +6 cycles (M1 measured)"),
		[C_WALK] = CYC(39, DOC "§10.2: walk +26 cycles with caches hit, +50% nested in a VM"),
		[C_ALLOC] = EST_ALLOC,
		[C_SLAB] = EST_SLAB,
		[C_SYSCALL] = EST_SYSCALL,
		[C_IO_REQUEST] = EST_IO_REQ,
		[C_IO_KIB] = EST_IO_KIB,
		[C_EXEC_CALL] = EST_EXEC_CALL,
		[C_L2_EXTRA] = CYC(15, DOC "§11.2: L2 ~18 cycles load-to-use (M1 P-core measured), "
				   "minus L1's 3"),
		[C_LLC_EXTRA] = NSEC(25, DOC "§11.2: SLC ~30 ns (M1 measured, ESTIMATE for M3), minus L1"),
		[C_DRAM_EXTRA] = NSEC(100, DOC "§11.2: LPDDR5 ~100 ns (M1 measured ~97 ns; ESTIMATE for M3)"),
	},
	[PTSIM_CPU_NEOVERSE_V2] = {
		[C_PTE_LOAD] = L1_LOAD,
		[C_PTE_STORE] = EST_STORE,
		[C_ATOMIC] = CYC(13, DOC "§9.4: LDADDAL 13 cyc on N1/V1/X1 (ocxtal); V2 assumed equal"),
		[C_TLBI] = NSEC(60, DOC "§9.2/§10.3: lone TLBI ~5% of the ~1.0-1.5 us Grace flush"),
		[C_TLBI_EXTRA] = NSEC(450, DOC "§10.3: Grace TLBI per extra op ~400-500 ns (ESTIMATE)"),
		[C_DSB_TLBI] = NSEC(900, DOC "§10.3: Grace DSB ISH after TLBI ~800-1000 ns (ESTIMATE)"),
		[C_DSB_LIGHT] = EST_DSB_LIGHT,
		[C_ISB] = EST_ISB,
		[C_CALL] = EST_CALL,
		[C_FOLIO_LOOKUP] = EST_LOOKUP,
		[C_BIT_TEST] = EST_BIT,
		[C_FAULT] = NSEC(1000, DOC "§10.4: 0.8-1.5 us per anonymous fault on server cores "
				  "(ESTIMATE)"),
		[C_ZERO_KIB] = BW(32, DOC "§10.5: Grace V2 zeroing ~25-40 GB/s (ESTIMATE)"),
		[C_USER_WRITE_KIB] = BW(32, DOC "§10.5: as zeroing (ESTIMATE)"),
		[C_USER_READ_KIB] = BW(50, DOC "§10.5: per-core DRAM ~50 GB/s theoretical (ESTIMATE)"),
		[C_TLB_L2_HIT] = CYC(6, DOC "§8: V2 L2 TLB hit +5-6 cycles"),
		[C_WALK] = CYC(22, DOC "§10.2: V-class walk +20-25 cycles (ESTIMATE), as V1; the "
			       "leaf's level from the data-cache model (§11.4)"),
		[C_ALLOC] = EST_ALLOC,
		[C_SLAB] = EST_SLAB,
		[C_SYSCALL] = EST_SYSCALL,
		[C_IO_REQUEST] = EST_IO_REQ,
		[C_IO_KIB] = EST_IO_KIB,
		[C_EXEC_CALL] = EST_EXEC_CALL,
		[C_L2_EXTRA] = CYC(7, DOC "§11.2: L2 ~11 cycles (Arm V2 TRM class), minus L1's 4"),
		[C_LLC_EXTRA] = NSEC(30, DOC "§11.2: Grace SCF L3 ~30-35 ns (ESTIMATE), minus L1"),
		[C_DRAM_EXTRA] = NSEC(115, DOC "§11.2: Grace LPDDR5X ~115-125 ns (ESTIMATE)"),
	},
	[PTSIM_CPU_AMPEREONE] = {
		[C_PTE_LOAD] = L1_LOAD,
		[C_PTE_STORE] = EST_STORE,
		[C_ATOMIC] = CYC(15, DOC "§10.4: AmpereOne atomics ~15 cycles (ESTIMATE)"),
		[C_TLBI] = NSEC(90, DOC "§9.2/§10.3: lone TLBI ~5% of the ~1.5-2.0 us AmpereOne flush"),
		[C_TLBI_EXTRA] = NSEC(600, DOC "§10.3: AmpereOne TLBI per extra op ~500-700 ns "
				      "(ESTIMATE)"),
		[C_DSB_TLBI] = NSEC(1250, DOC "§10.3: AmpereOne DSB ISH ~1000-1500 ns (ESTIMATE)"),
		[C_DSB_LIGHT] = EST_DSB_LIGHT,
		[C_ISB] = EST_ISB,
		[C_CALL] = EST_CALL,
		[C_FOLIO_LOOKUP] = EST_LOOKUP,
		[C_BIT_TEST] = EST_BIT,
		[C_FAULT] = NSEC(1000, DOC "§10.4: server cores 0.8-1.5 us (ESTIMATE)"),
		[C_ZERO_KIB] = BW(25, DOC "§10.5: AmpereOne ~20-30 GB/s (ESTIMATE)"),
		[C_USER_WRITE_KIB] = BW(25, DOC "§10.5: as zeroing (ESTIMATE)"),
		[C_USER_READ_KIB] = BW(40, "ESTIMATE: reads 1.6x the write bandwidth"),
		[C_TLB_L2_HIT] = CYC(6, DOC "§10.1: scaled from N1/V1 (ESTIMATE)"),
		[C_WALK] = CYC(22, DOC "§10.2: +20-25 cycles (ESTIMATE)"),
		[C_ALLOC] = EST_ALLOC,
		[C_SLAB] = EST_SLAB,
		[C_SYSCALL] = EST_SYSCALL,
		[C_IO_REQUEST] = EST_IO_REQ,
		[C_IO_KIB] = EST_IO_KIB,
		[C_EXEC_CALL] = EST_EXEC_CALL,
		[C_L2_EXTRA] = CYC(8, DOC "§11.2: L2 ~12 cycles (ESTIMATE, 2 MiB), minus L1's 4"),
		[C_LLC_EXTRA] = NSEC(35, DOC "§11.2: SLC ~35-40 ns (ESTIMATE, mesh like Altra's)"),
		[C_DRAM_EXTRA] = NSEC(115, DOC "§11.2: DDR5 ~110-125 ns (ESTIMATE)"),
	},
	[PTSIM_CPU_NEOVERSE_N1] = {
		[C_PTE_LOAD] = L1_LOAD,
		[C_PTE_STORE] = EST_STORE,
		[C_ATOMIC] = CYC(13, DOC "§9.4: LDADDAL 12.98 cyc on Altra N1 (ocxtal)"),
		[C_TLBI] = NSEC(70, DOC "§9.2/§10.3: lone TLBI ~5% of the ~1.0-1.5 us Altra flush"),
		[C_TLBI_EXTRA] = SPREAD_NS(70, 0.50, "ESTIMATE: between the SD888's posted 15 ns and "
					     "Kunpeng 920's unpipelined 465 ns (" DOC "§9.3)",
					     DOC "§9.3: N1 is an A76-family core like the SD888's A78/X1, "
					     "whose TLBIs before one DSB are posted (§9.2): a further TLBI "
					     "costs its issue, as the lone one (derived; ESTIMATE)"),
		[C_DSB_TLBI] = NSEC(900, DOC "§10.3: Altra DSB ISH ~800-1000 ns (ESTIMATE)"),
		[C_DSB_LIGHT] = EST_DSB_LIGHT,
		[C_ISB] = EST_ISB,
		[C_CALL] = EST_CALL,
		[C_FOLIO_LOOKUP] = EST_LOOKUP,
		[C_BIT_TEST] = EST_BIT,
		[C_FAULT] = NSEC(1000, DOC "§10.4: server cores 0.8-1.5 us (ESTIMATE)"),
		[C_ZERO_KIB] = BW(22, DOC "§10.5: Altra ~20-25 GB/s (ESTIMATE)"),
		[C_USER_WRITE_KIB] = BW(22, DOC "§10.5: as zeroing (ESTIMATE)"),
		[C_USER_READ_KIB] = BW(35, "ESTIMATE: reads 1.6x the write bandwidth"),
		[C_TLB_L2_HIT] = CYC(3, DOC "§8: N1 L2 TLB hit +3 cycles"),
		[C_WALK] = CYC(20, DOC "§10.2: N1 walk +20 cycles (ESTIMATE)"),
		[C_ALLOC] = EST_ALLOC,
		[C_SLAB] = EST_SLAB,
		[C_SYSCALL] = EST_SYSCALL,
		[C_IO_REQUEST] = EST_IO_REQ,
		[C_IO_KIB] = EST_IO_KIB,
		[C_EXEC_CALL] = EST_EXEC_CALL,
		[C_L2_EXTRA] = CYC(7, DOC "§11.2: L2 9-11 cycles (Arm N1 TRM), minus L1's 4"),
		[C_LLC_EXTRA] = NSEC(30, DOC "§11.2: Altra SLC over the CMN-600 mesh ~30-35 ns (ESTIMATE)"),
		[C_DRAM_EXTRA] = NSEC(105, DOC "§11.2: Altra DDR4-3200 ~100-110 ns (ESTIMATE)"),
	},
	[PTSIM_CPU_NEOVERSE_V1] = {
		[C_PTE_LOAD] = L1_LOAD,
		[C_PTE_STORE] = EST_STORE,
		[C_ATOMIC] = CYC(13, DOC "§9.4: LDADDAL 13.00 cyc on Graviton3 V1 (ocxtal)"),
		[C_TLBI] = NSEC(60, DOC "§9.2/§10.3: lone TLBI ~5% of the ~1.0-1.3 us Graviton3 flush"),
		[C_TLBI_EXTRA] = NSEC(400, DOC "§10.3: Graviton3 TLBI per extra op ~400 ns (ESTIMATE)"),
		[C_DSB_TLBI] = NSEC(800, DOC "§10.3: Graviton3 DSB ISH ~700-900 ns (ESTIMATE)"),
		[C_DSB_LIGHT] = EST_DSB_LIGHT,
		[C_ISB] = EST_ISB,
		[C_CALL] = EST_CALL,
		[C_FOLIO_LOOKUP] = EST_LOOKUP,
		[C_BIT_TEST] = EST_BIT,
		[C_FAULT] = NSEC(1000, DOC "§10.4: server cores 0.8-1.5 us (ESTIMATE)"),
		[C_ZERO_KIB] = BW(30, DOC "§10.5: Graviton3 ~25-35 GB/s (ESTIMATE)"),
		[C_USER_WRITE_KIB] = BW(30, DOC "§10.5: as zeroing (ESTIMATE)"),
		[C_USER_READ_KIB] = BW(48, "ESTIMATE: reads 1.6x the write bandwidth"),
		[C_TLB_L2_HIT] = CYC(6, DOC "§10.1: V1 L2 hit +6 cycles (ESTIMATE from V2)"),
		[C_WALK] = CYC(22, DOC "§10.2: V-class walk +20-25 cycles (ESTIMATE)"),
		[C_ALLOC] = EST_ALLOC,
		[C_SLAB] = EST_SLAB,
		[C_SYSCALL] = EST_SYSCALL,
		[C_IO_REQUEST] = EST_IO_REQ,
		[C_IO_KIB] = EST_IO_KIB,
		[C_EXEC_CALL] = EST_EXEC_CALL,
		[C_L2_EXTRA] = CYC(7, DOC "§11.2: L2 ~11 cycles (Arm V1 TRM class), minus L1's 4"),
		[C_LLC_EXTRA] = NSEC(30, DOC "§11.2: Graviton3 L3 ~30-35 ns (ESTIMATE)"),
		[C_DRAM_EXTRA] = NSEC(115, DOC "§11.2: Graviton3 DDR5 ~110-125 ns (ESTIMATE)"),
	},
	[PTSIM_CPU_NEOVERSE_V3] = {
		[C_PTE_LOAD] = L1_LOAD,
		[C_PTE_STORE] = EST_STORE,
		[C_ATOMIC] = CYC(13, DOC "§9.4: 13 cycles on Arm V/X cores (ocxtal); V3 assumed equal"),
		[C_TLBI] = NSEC(60, "ESTIMATE: as Grace V2 (" DOC "§10.3)"),
		[C_TLBI_EXTRA] = NSEC(450, "ESTIMATE: as Grace V2 (" DOC "§10.3)"),
		[C_DSB_TLBI] = NSEC(900, "ESTIMATE: as Grace V2 (" DOC "§10.3)"),
		[C_DSB_LIGHT] = EST_DSB_LIGHT,
		[C_ISB] = EST_ISB,
		[C_CALL] = EST_CALL,
		[C_FOLIO_LOOKUP] = EST_LOOKUP,
		[C_BIT_TEST] = EST_BIT,
		[C_FAULT] = NSEC(1000, DOC "§10.4: server cores 0.8-1.5 us (ESTIMATE)"),
		[C_ZERO_KIB] = BW(30, "ESTIMATE: as Graviton3 (" DOC "§10.5)"),
		[C_USER_WRITE_KIB] = BW(30, "ESTIMATE: as zeroing"),
		[C_USER_READ_KIB] = BW(48, "ESTIMATE: reads 1.6x the write bandwidth"),
		[C_TLB_L2_HIT] = CYC(6, DOC "§8: V3 L2 hit +6 cycles"),
		[C_WALK] = CYC(22, DOC "§10.2: V-class walk +20-25 cycles (ESTIMATE)"),
		[C_ALLOC] = EST_ALLOC,
		[C_SLAB] = EST_SLAB,
		[C_SYSCALL] = EST_SYSCALL,
		[C_IO_REQUEST] = EST_IO_REQ,
		[C_IO_KIB] = EST_IO_KIB,
		[C_EXEC_CALL] = EST_EXEC_CALL,
		[C_L2_EXTRA] = CYC(8, DOC "§11.2: L2 ~12 cycles (2 MiB; ESTIMATE from V2), minus L1's 4"),
		[C_LLC_EXTRA] = NSEC(30, "ESTIMATE: as Grace V2 (" DOC "§11.2)"),
		[C_DRAM_EXTRA] = NSEC(115, "ESTIMATE: as Grace V2 (" DOC "§11.2)"),
	},
	[PTSIM_CPU_ANDROID_X1] = {
		[C_PTE_LOAD] = L1_LOAD,
		[C_PTE_STORE] = EST_STORE,
		[C_ATOMIC] = CYC(13, DOC "§9.4: LDADDAL 13 cyc on X1 (SD 8cx Gen 3, ocxtal)"),
		[C_TLBI] = NSEC(15, DOC "§9.2: a lone TLBI is ~5% of the 310 ns SD888 "
				"ptep_clear_flush (measured)"),
		[C_TLBI_EXTRA] = NSEC(15, DOC "§9.2: batching the reclaim flush saved ~348 ns a page on "
				      "the SD888, the whole ~310 ns single flush: TLBIs before one DSB "
				      "are posted, each costs its issue, as a lone one (derived)"),
		[C_DSB_TLBI] = NSEC(290, DOC "§9.2: DSB ~95% of a 748-cycle ptep_clear_flush on "
				 "SD888 A78, ~290 ns"),
		[C_DSB_LIGHT] = EST_DSB_LIGHT,
		[C_ISB] = EST_ISB,
		[C_CALL] = EST_CALL,
		[C_FOLIO_LOOKUP] = EST_LOOKUP,
		[C_BIT_TEST] = EST_BIT,
		[C_FAULT] = NSEC(1500, DOC "§10.4: 2-4 us on phone mid cores; a big core less "
				  "(ESTIMATE)"),
		[C_ZERO_KIB] = BW(25, DOC "§10.5: X1 ~20-30 GB/s (ESTIMATE)"),
		[C_USER_WRITE_KIB] = BW(25, DOC "§10.5: as zeroing (ESTIMATE)"),
		[C_USER_READ_KIB] = BW(40, "ESTIMATE: reads 1.6x the write bandwidth"),
		[C_TLB_L2_HIT] = CYC(6, "ESTIMATE: as V1 (" DOC "§10.1, X-series share the V1 front end)"),
		[C_WALK] = CYC(20, DOC "§10.2: A76-class walk +20 cycles (ESTIMATE)"),
		[C_ALLOC] = EST_ALLOC,
		[C_SLAB] = EST_SLAB,
		[C_SYSCALL] = EST_SYSCALL,
		[C_IO_REQUEST] = EST_IO_REQ,
		[C_IO_KIB] = EST_IO_KIB,
		[C_EXEC_CALL] = EST_EXEC_CALL,
		[C_L2_EXTRA] = CYC(7, DOC "§11.2: L2 ~11 cycles (Arm X1 TRM class), minus L1's 4"),
		[C_LLC_EXTRA] = NSEC(15, DOC "§11.2: DSU L3 ~15-20 ns (phone SoCs, AnandTech; ESTIMATE)"),
		[C_DRAM_EXTRA] = NSEC(130, DOC "§11.2: Tensor-class LPDDR5 ~130-150 ns, worse than SD888's "
				       "(AnandTech Tensor review; ESTIMATE)"),
	},
};

/*
 * Bench-only what-if scales (cost_class_scale): 0 is 1. ptsim-bench fit
 * solves the fitted constants with them and reproduce --detail moves each
 * price by its uncertainty; the library itself never sets them.
 */
static double class_scale[PTSIM_CPU__COUNT][C__COUNT];

int cost_class_scale(enum ptsim_cpu cpu, const char *klass, double factor)
{
	VALIDATE((unsigned int)cpu < PTSIM_CPU__COUNT && klass && factor > 0 && isfinite(factor));
	for (unsigned int k = 0; k < C__COUNT; k++) {
		if (!strcmp(class_names[k], klass)) {
			class_scale[cpu][k] = factor;
			return 0;
		}
	}
	return -EINVAL;
}

void cost_class_scale_reset(void)
{
	memset(class_scale, 0, sizeof(class_scale));
}

/* doc/cpu-profiles.md §12: the rule for a constant given without its own uncertainty */
static void constant_uncertainty(const struct constant *c, double *unc, const char **why)
{
	if (c->uncertainty > 0) {
		*unc = c->uncertainty;
		*why = c->uncertainty_source;
	} else if (strstr(c->source, "ESTIMATE")) {
		*unc = 0.30;
		*why = "an ESTIMATE: +-30 % (" DOC "§12)";
	} else {
		*unc = 0.15;
		*why = "a published figure, or derived from one on a sibling core: +-15 % (" DOC "§12)";
	}
}

static double class_ns(const struct cpu_desc *cpu, const struct constant *c)
{
	switch (c->unit) {
	case CYCLES:
		return c->value / cpu->freq_ghz;
	case GBPS:
		return 1024.0 / c->value;	/* ns per KiB */
	default:
		return c->value;
	}
}

int ptsim_cost_get(enum ptsim_cpu cpu, enum ptsim_granule granule, enum ptsim_event ev,
		   struct ptsim_cost *out)
{
	const struct cpu_desc *d = cpu_desc_get(cpu);
	struct ptsim_geometry g;
	const struct constant *c;
	double times;

	VALIDATE(d && out && (unsigned int)ev < PTSIM_EV__COUNT);
	VALIDATE(ptsim_geometry_get(granule, 48, &g) == 0);
	memset(out, 0, sizeof(*out));
	c = &profiles[cpu][event_class[ev].klass];
	times = event_class[ev].times;
	if (event_class[ev].per_kib)
		times *= (double)(g.page_size / 1024);
	out->klass = class_names[event_class[ev].klass];
	out->multiplier = times;
	out->ns = event_class[ev].klass == C_FREE ? 0 : times * class_ns(d, c);
	out->source = event_class[ev].klass == C_FREE ? "carried by other events" : c->source;
	out->fitted_on = c->fitted_on;
	if (class_scale[cpu][event_class[ev].klass] > 0)
		out->ns *= class_scale[cpu][event_class[ev].klass];
	if (event_class[ev].klass == C_FREE)
		out->uncertainty_source = "carried by other events";
	else
		constant_uncertainty(c, &out->uncertainty, &out->uncertainty_source);
	return 0;
}

int ptsim_predict(enum ptsim_cpu cpu, enum ptsim_granule granule, const struct ptsim_stats *stats,
		  struct ptsim_prediction *out)
{
	VALIDATE(stats && out);
	memset(out, 0, sizeof(*out));
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		struct ptsim_cost c;
		int err = ptsim_cost_get(cpu, granule, (enum ptsim_event)e, &c);

		if (err)
			return err;
		out->event_ns[e] = c.ns * (double)stats->ev[e];
		out->total_ns += out->event_ns[e];
	}
	return 0;
}

int ptsim_machine_predict(const struct ptsim_machine *m, const struct ptsim_stats *stats,
			  struct ptsim_prediction *out)
{
	VALIDATE(m && stats && out);
	return ptsim_predict(m->cpu->id, (enum ptsim_granule)m->geo.page_shift, stats, out);
}
