// SPDX-License-Identifier: MIT
/*
 * ptsim_predict_overlap: the loop prices composed with the per-event prices
 * (doc/overlap.md). A priced loop path's turns cost its price; the events
 * its instructions hold drop out of the sum; what the pipeline model cannot
 * see is composed by interval analysis (Karkhanis and Smith, ISCA 2004;
 * Eyerman et al., TOCS 2009): serialising work in series, misses beyond the
 * L1 overlapping up to what the reorder window holds, the rest in series at
 * its own price.
 */
#include "core.h"
#include "loop_prices.h"

#include <string.h>

/*
 * One event a path's instructions hold, how many of it each turn counts,
 * and whether it is the contpte work (cont): ptep_get's cont-bit test, the
 * cont checks' loads in set_ptes and ptep_get_and_clear, set_ptes's own
 * tests. A kernel built without CONFIG_ARM64_CONTPTE neither runs those nor
 * does the model count them there: its paths (the *_nocontpte twins, priced
 * from objects built without it) hold the rest.
 */
struct covered {
	enum ptsim_event ev;
	unsigned int per_turn;
	bool cont;
};

#define COVER_MAX 12
#define CONT true

/*
 * What each priced path's own instructions hold, in the model's events: the
 * inline work of one turn (arch/arm64/hw/loop-prices.json's blocks). The
 * out-of-line calls (their bodies are not in the price: a bl is one
 * cycle), the atomics (llvm-mca 19 has no data for LSE SWP/CAS/STADD), the
 * misses and the barriers are not held and keep their own prices. Indexed
 * by the contpte paths; a twin uses its contpte path's row (its own is empty).
 */
static const struct covered cover[PTSIM_LOOP__COUNT][COVER_MAX] = {
	/*
	 * v6.12 change_pte_range: ptep_get's load and cont test, pte_modify,
	 * the gather's range; ptep_modify_prot_start/commit (and
	 * can_change_pte_writable) are calls
	 */
	[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTEP_GET, 1, CONT },
		{ PTSIM_EV_PTE_MODIFY, 1 }, { PTSIM_EV_TLB_GATHER_ADD, 1 },
	},
	[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_WRITABLE] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTEP_GET, 1, CONT },
		{ PTSIM_EV_PTE_MODIFY, 1 }, { PTSIM_EV_TLB_GATHER_ADD, 1 },
	},
	/* zap_pte_range: the load of a none entry and its test */
	[PTSIM_LOOP_ZAP_PTE_RANGE_NONE] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTEP_GET, 1, CONT },
	},
	/*
	 * an order-0 folio: ptep_get, clear_full_ptes's (or
	 * get_and_clear_full_ptes's) inline cont check and its load, the
	 * folio's large and anon tests, tlb_remove_tlb_entries; vm_normal_page,
	 * folio_remove_rmap_ptes and __tlb_remove_folio_pages are calls
	 */
	[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTE_READ, 1, CONT },
		{ PTSIM_EV_PTEP_GET, 1, CONT }, { PTSIM_EV_FOLIO_TEST, 2 }, { PTSIM_EV_TLB_GATHER_ADD, 1 },
	},
	/* a large folio's batch: folio_pte_batch and contpte_clear_full_ptes are calls */
	[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON_BATCH] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTEP_GET, 1, CONT },
		{ PTSIM_EV_FOLIO_TEST, 2 }, { PTSIM_EV_TLB_GATHER_ADD, 1 },
	},
	[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_FILE] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTE_READ, 1, CONT },
		{ PTSIM_EV_PTEP_GET, 1, CONT }, { PTSIM_EV_FOLIO_TEST, 2 }, { PTSIM_EV_TLB_GATHER_ADD, 1 },
	},
	/* copy_pte_range: the load of a none entry and its test */
	[PTSIM_LOOP_COPY_PTE_RANGE_NONE] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTEP_GET, 1, CONT },
	},
	/*
	 * an order-0 folio: ptep_get, folio_test_large, the inline
	 * __folio_try_dup_anon_rmap's tests, the child's set_ptes (its cont
	 * check's load and tests, __set_ptes's store); vm_normal_page is a call,
	 * folio_get and the mapcount increment are atomics, and the priced path
	 * does not write-protect (its CAS and load stay with the events)
	 */
	[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTE_READ, 1, CONT },
		{ PTSIM_EV_PTEP_GET, 1, CONT }, { PTSIM_EV_FOLIO_TEST, 1 }, { PTSIM_EV_ANON_EXCL_TEST, 1 },
		{ PTSIM_EV_RMAP_DUP, 1 }, { PTSIM_EV_PTE_WRITE, 1 }, { PTSIM_EV_SET_PTES, 1, CONT },
		{ PTSIM_EV_SET_PTES_CHUNK, 1 },
	},
	/* a large folio's batch: folio_pte_batch and contpte_set_ptes are calls */
	[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON_BATCH] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTEP_GET, 1, CONT },
		{ PTSIM_EV_FOLIO_TEST, 1 }, { PTSIM_EV_ANON_EXCL_TEST, 1 }, { PTSIM_EV_RMAP_DUP, 1 },
	},
	[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_FILE] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTE_READ, 1, CONT },
		{ PTSIM_EV_PTEP_GET, 1, CONT }, { PTSIM_EV_FOLIO_TEST, 1 }, { PTSIM_EV_RMAP_DUP, 1 },
		{ PTSIM_EV_PTE_WRITE, 1 }, { PTSIM_EV_SET_PTES, 1, CONT }, { PTSIM_EV_SET_PTES_CHUNK, 1 },
	},
	/* folio_pte_batch: the next entry's load and cont test */
	[PTSIM_LOOP_FOLIO_PTE_BATCH_MATCH] = {
		{ PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTEP_GET, 1, CONT },
	},
	/* move_ptes: a none entry */
	[PTSIM_LOOP_MOVE_PTES_NONE] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTEP_GET, 1, CONT },
	},
	/*
	 * a present entry: ptep_get, the inline ptep_get_and_clear's cont
	 * check, set_pte_at's cont check and store (the SWP is an atomic)
	 */
	[PTSIM_LOOP_MOVE_PTES_PRESENT] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTE_READ, 2, CONT },
		{ PTSIM_EV_PTEP_GET, 1, CONT }, { PTSIM_EV_PTE_WRITE, 1 }, { PTSIM_EV_SET_PTES, 1, CONT },
		{ PTSIM_EV_SET_PTES_CHUNK, 1 },
	},
	/* mlock_pte_range: ptep_get, folio_test_large; vm_normal_folio and (mun)mlock_folio are calls */
	[PTSIM_LOOP_MLOCK_PTE_RANGE_MLOCK] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTEP_GET, 1, CONT },
		{ PTSIM_EV_FOLIO_TEST, 1 },
	},
	[PTSIM_LOOP_MLOCK_PTE_RANGE_MUNLOCK] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTEP_GET, 1, CONT },
		{ PTSIM_EV_FOLIO_TEST, 1 },
	},
	/* contpte_ptep_get: one entry's load and its young and dirty tests */
	[PTSIM_LOOP_CONTPTE_PTEP_GET_CLEAN] = { { PTSIM_EV_PTE_READ, 1 } },
	[PTSIM_LOOP_CONTPTE_PTEP_GET_DIRTY] = { { PTSIM_EV_PTE_READ, 1 } },
	/*
	 * (move_pages, one page, holds no event: mm_find_pmd, mm_alloc_pmd (the
	 * model's walks) and move_pages_pte are calls, and its own PMD loads
	 * and tests the model does not count)
	 */
	/*
	 * move_pages_pte's body: the notifier range's two tests, the two PMD
	 * sanity checks, five inline ptep_gets (both entries, the source again
	 * under its lock, both again in move_present_pte), set_pte_at's cont
	 * check and store, two folio tests; the PTE maps, the spinlocks,
	 * vm_normal_folio, the anon_vma helpers, ptep_clear_flush,
	 * folio_move_anon_rmap and folio_unlock are calls, the folio lock and
	 * references atomics
	 */
	[PTSIM_LOOP_MOVE_PAGES_PTE_PRESENT] = {
		{ PTSIM_EV_MMU_NOTIFIER_RANGE, 1 }, { PTSIM_EV_PMD_READ, 2 }, { PTSIM_EV_PTE_READ, 5 },
		{ PTSIM_EV_PTE_READ, 1, CONT }, { PTSIM_EV_PTEP_GET, 5, CONT }, { PTSIM_EV_PTE_WRITE, 1 },
		{ PTSIM_EV_SET_PTES, 1, CONT }, { PTSIM_EV_SET_PTES_CHUNK, 1 }, { PTSIM_EV_FOLIO_TEST, 2 },
	},
	/*
	 * madvise's walks, an order-0 folio: ptep_get, folio_test_large;
	 * vm_normal_folio is a call. COLD of a young entry: clear_young_dirty_ptes
	 * inline (its cont check's load, __ptep_get; the CAS is an atomic) and
	 * tlb_remove_tlb_entries; folio_deactivate is a call. PAGEOUT:
	 * folio_isolate_lru is a call. FREE: the same clear with both bits is a
	 * plain store; folio_mark_lazyfree is a call
	 */
	[PTSIM_LOOP_MADVISE_COLD_YOUNG] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 2 }, { PTSIM_EV_PTE_READ, 1, CONT },
		{ PTSIM_EV_PTEP_GET, 1, CONT }, { PTSIM_EV_FOLIO_TEST, 1 }, { PTSIM_EV_TLB_GATHER_ADD, 1 },
	},
	[PTSIM_LOOP_MADVISE_PAGEOUT] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTEP_GET, 1, CONT },
		{ PTSIM_EV_FOLIO_TEST, 1 },
	},
	[PTSIM_LOOP_MADVISE_FREE_YOUNG_DIRTY] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 2 }, { PTSIM_EV_PTE_READ, 1, CONT },
		{ PTSIM_EV_PTEP_GET, 1, CONT }, { PTSIM_EV_PTE_WRITE, 1 }, { PTSIM_EV_FOLIO_TEST, 1 },
		{ PTSIM_EV_TLB_GATHER_ADD, 1 },
	},
	/* __clear_young_dirty_ptes: the entry's load, and its store (both bits) or CAS (young) */
	[PTSIM_LOOP_CLEAR_YOUNG_DIRTY_PTES_YOUNG_AND_DIRTY] = {
		{ PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTE_WRITE, 1 },
	},
	[PTSIM_LOOP_CLEAR_YOUNG_DIRTY_PTES_YOUNG] = { { PTSIM_EV_PTE_READ, 1 } },
	/* contpte_ptep_test_and_clear_young: the entry's load (its CAS is apart) */
	[PTSIM_LOOP_CONTPTE_PTEP_TEST_AND_CLEAR_YOUNG_ENTRY] = { { PTSIM_EV_PTE_READ, 1 } },
	/* filemap_map_folio_range: the page's tests, ptep_get of its entry and its cont test */
	[PTSIM_LOOP_FILEMAP_MAP_FOLIO_RANGE_BATCH] = {
		{ PTSIM_EV_MAP_PAGES, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTEP_GET, 1, CONT },
	},
	/*
	 * ptep_modify_prot_start's body: the call, ptep_get_and_clear's load for
	 * the unfold test (contpte); the exchange is an atomic, apart
	 */
	[PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY] = {
		{ PTSIM_EV_HELPER_CALL, 1 }, { PTSIM_EV_PTE_READ, 1, CONT },
	},
	/*
	 * ptep_modify_prot_commit's body: the call, set_ptes's tests and its load
	 * for the unfold test (contpte), __set_ptes's run and store
	 */
	[PTSIM_LOOP_PTEP_MODIFY_PROT_COMMIT_ENTRY] = {
		{ PTSIM_EV_PROT_COMMIT, 1 }, { PTSIM_EV_SET_PTES, 1, CONT },
		{ PTSIM_EV_PTE_READ, 1, CONT }, { PTSIM_EV_SET_PTES_CHUNK, 1 },
		{ PTSIM_EV_PTE_WRITE, 1 },
	},
	/*
	 * vm_normal_page's body: the call and its tests (the struct page load of
	 * the caller's page_folio is the data cache's)
	 */
	[PTSIM_LOOP_VM_NORMAL_PAGE_NORMAL] = {
		{ PTSIM_EV_FOLIO_LOOKUP, 1 },
	},
	/*
	 * v6.17's batched change_pte_range, one turn (a batch of one, or a large
	 * folio's): ptep_get's load and cont test, pte_modify, the gather's
	 * range; vm_normal_page, mprotect_folio_pte_batch and
	 * modify_prot_start/commit_ptes are calls. Made writable, also
	 * folio_test_anon and the first page's PageAnonExclusive
	 */
	[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTEP_GET, 1, CONT },
		{ PTSIM_EV_PTE_MODIFY, 1 }, { PTSIM_EV_TLB_GATHER_ADD, 1 },
	},
	[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_WRITABLE] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTEP_GET, 1, CONT },
		{ PTSIM_EV_PTE_MODIFY, 1 }, { PTSIM_EV_FOLIO_TEST, 1 },
		{ PTSIM_EV_ANON_EXCL_TEST, 1 }, { PTSIM_EV_TLB_GATHER_ADD, 1 },
	},
	[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTEP_GET, 1, CONT },
		{ PTSIM_EV_PTE_MODIFY, 1 }, { PTSIM_EV_TLB_GATHER_ADD, 1 },
	},
	[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE_WRITABLE] = {
		{ PTSIM_EV_PTE_LOOP, 1 }, { PTSIM_EV_PTE_READ, 1 }, { PTSIM_EV_PTEP_GET, 1, CONT },
		{ PTSIM_EV_PTE_MODIFY, 1 }, { PTSIM_EV_FOLIO_TEST, 1 },
		{ PTSIM_EV_ANON_EXCL_TEST, 1 }, { PTSIM_EV_TLB_GATHER_ADD, 1 },
	},
	/* one further page's PageAnonExclusive */
	[PTSIM_LOOP_PAGE_ANON_EXCLUSIVE_SUB_BATCH_MATCH] = {
		{ PTSIM_EV_ANON_EXCL_TEST, 1 },
	},
	/* folio_test_large */
	[PTSIM_LOOP_MPROTECT_FOLIO_PTE_BATCH_ORDER0] = {
		{ PTSIM_EV_FOLIO_TEST, 1 },
	},
	/*
	 * The LRU batch's bodies: each the call it is (its folio_get, PG_lru and
	 * flag atomics are atomics, apart; lru_lazyfree's seven calls are calls);
	 * folio_batch_move_lru's turn holds none of the model's events (the
	 * move_fn call is lru_lazyfree's)
	 */
	[PTSIM_LOOP_FOLIO_MARK_LAZYFREE_ADD] = {
		{ PTSIM_EV_HELPER_CALL, 1 },
	},
	[PTSIM_LOOP_FOLIO_BATCH_ADD_AND_MOVE_ADD] = {
		{ PTSIM_EV_HELPER_CALL, 1 },
	},
	[PTSIM_LOOP_LRU_LAZYFREE_MOVE] = {
		{ PTSIM_EV_LRU_MOVE, 1 },
	},
	/*
	 * A split's tail: the body holds __split_huge_page_tail's stores (the
	 * split_page_tail event); the folio_xchg_last_cpupid call and SetPageLRU
	 * (an atomic) are apart
	 */
	[PTSIM_LOOP_SPLIT_HUGE_PAGE_TAIL_ANON] = {
		{ PTSIM_EV_SPLIT_PAGE_TAIL, 1 },
	},
	/*
	 * can_change_pte_writable's body: the call it is, PageAnon (the
	 * folio_test_anon event) and PageAnonExclusive; vm_normal_page is a call
	 * (its body a path of its own)
	 */
	[PTSIM_LOOP_CAN_CHANGE_PTE_WRITABLE_ANON_EXCLUSIVE] = {
		{ PTSIM_EV_CAN_CHANGE_WRITABLE, 1 }, { PTSIM_EV_FOLIO_TEST, 1 },
		{ PTSIM_EV_ANON_EXCL_TEST, 1 },
	},
	/* xas_store's body: the call it is (xas_create and the callback are calls apart) */
	[PTSIM_LOOP_XAS_STORE_SLOT] = { { PTSIM_EV_HELPER_CALL, 1 } },
};

/*
 * The LSE atomics on each priced path's instructions (the "atomics" of its
 * loop price: llvm-mca prices a stand-in for each, a load or a NOP) and the
 * events of the model's that count them, per turn, at their own prices.
 * Indexed by the contpte paths; a twin has its contpte path's atomics.
 */
#define ATOMICS_MAX 4

static const struct covered apart[PTSIM_LOOP__COUNT][ATOMICS_MAX] = {
	/* ptep_get_and_clear_full's exchange (SWP, patched in from LL/SC) */
	[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON] = { { PTSIM_EV_PTE_XCHG, 1 } },
	[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_FILE] = { { PTSIM_EV_PTE_XCHG, 1 } },
	/* folio_get's page_ref_inc and the dup's atomic_inc of _mapcount (STADD each) */
	[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON] = {
		{ PTSIM_EV_FOLIO_GET, 1 }, { PTSIM_EV_MAPCOUNT_ATOMIC, 1 },
	},
	[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON_BATCH] = {
		{ PTSIM_EV_FOLIO_GET, 1 }, { PTSIM_EV_MAPCOUNT_ATOMIC, 1 },
	},
	[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_FILE] = {
		{ PTSIM_EV_FOLIO_GET, 1 }, { PTSIM_EV_MAPCOUNT_ATOMIC, 1 },
	},
	/* ptep_get_and_clear's exchange */
	[PTSIM_LOOP_MOVE_PTES_PRESENT] = { { PTSIM_EV_PTE_XCHG, 1 } },
	/* ptep_test_and_clear_young's CAS, folio_clear_referenced's STCLR */
	[PTSIM_LOOP_MADVISE_COLD_YOUNG] = { { PTSIM_EV_PTE_CAS, 1 }, { PTSIM_EV_PAGE_FLAG_ATOMIC, 1 } },
	[PTSIM_LOOP_MADVISE_PAGEOUT] = { { PTSIM_EV_PAGE_FLAG_ATOMIC, 1 } },
	[PTSIM_LOOP_CLEAR_YOUNG_DIRTY_PTES_YOUNG] = { { PTSIM_EV_PTE_CAS, 1 } },
	[PTSIM_LOOP_CONTPTE_PTEP_TEST_AND_CLEAR_YOUNG_ENTRY] = { { PTSIM_EV_PTE_CAS, 1 } },
	/*
	 * folio_trylock's LDSETA, folio_get's STADD, put_anon_vma's and
	 * folio_put's LDADDAL (the anon_vma_ref event is its get and put)
	 */
	[PTSIM_LOOP_MOVE_PAGES_PTE_PRESENT] = {
		{ PTSIM_EV_FOLIO_TRYLOCK, 1 }, { PTSIM_EV_FOLIO_GET, 1 },
		{ PTSIM_EV_ANON_VMA_REF, 1 }, { PTSIM_EV_FOLIO_PUT, 1 },
	},
	[PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY] = { { PTSIM_EV_PTE_XCHG, 1 } },
	/* folio_get */
	[PTSIM_LOOP_FOLIO_BATCH_ADD_AND_MOVE_ADD] = { { PTSIM_EV_FOLIO_GET, 1 } },
	/* folio_test_clear_lru's LDCLRAL, folio_set_lru's STSET */
	[PTSIM_LOOP_FOLIO_BATCH_MOVE_LRU_SAME_LRUVEC] = { { PTSIM_EV_PAGE_FLAG_ATOMIC, 2 } },
	/* PG_active, PG_referenced and PG_swapbacked cleared */
	[PTSIM_LOOP_LRU_LAZYFREE_MOVE] = { { PTSIM_EV_PAGE_FLAG_ATOMIC, 3 } },
	/* lru_add_page_tail's SetPageLRU */
	[PTSIM_LOOP_SPLIT_HUGE_PAGE_TAIL_ANON] = { { PTSIM_EV_PAGE_FLAG_ATOMIC, 1 } },
};

int loop_path_atomics(enum ptsim_loop path, unsigned int k, enum ptsim_event *ev,
		      unsigned int *per_turn)
{
	enum ptsim_loop base;

	VALIDATE((unsigned int)path < PTSIM_LOOP__COUNT && ev && per_turn);
	base = loop_path_contpte(path);
	if (k >= ATOMICS_MAX || !apart[base][k].per_turn)
		return -ENOENT;
	*ev = apart[base][k].ev;
	*per_turn = apart[base][k].per_turn;
	return 0;
}

/*
 * Calls priced by their callee's body: an event that counts the calls of
 * one out-of-line kernel function (a primitive of its own) needs no turns of
 * its own; each call left after the paths took theirs costs the body's
 * price (a loop price with no head: entry to return), and the events the
 * body's instructions hold drop out as a path's do. The body is priced on
 * one path; a call that takes another is priced as it (each entry says
 * which). Calls do not widen the misses' overlap: the window counts turns.
 */
struct priced_call {
	enum ptsim_event ev;
	const char *function, *variant;
	struct covered held[COVER_MAX];	/* besides ev, per call */
};

static const struct priced_call priced_calls[] = {
	/* folio_move_anon_rmap (v6.12 mm/rmap.c): ->mapping's store, no event of the model's */
	{ PTSIM_EV_RMAP_MOVE, "folio_move_anon_rmap", "move", { { 0 } } },
};

#define NR_PRICED_CALLS (sizeof(priced_calls) / sizeof(priced_calls[0]))

int priced_call(unsigned int k, enum ptsim_event *ev, const char **function,
		const char **variant)
{
	VALIDATE(ev && function && variant);
	if (k >= NR_PRICED_CALLS)
		return -ENOENT;
	*ev = priced_calls[k].ev;
	*function = priced_calls[k].function;
	*variant = priced_calls[k].variant;
	return 0;
}

int priced_call_cover(unsigned int call, unsigned int k, enum ptsim_event *ev,
		      unsigned int *per_call)
{
	VALIDATE(call < NR_PRICED_CALLS && ev && per_call);
	if (k >= COVER_MAX || !priced_calls[call].held[k].per_turn)
		return -ENOENT;
	*ev = priced_calls[call].held[k].ev;
	*per_call = priced_calls[call].held[k].per_turn;
	return 0;
}

/*
 * The k-th event path holds. A path priced from objects without contpte
 * holds its twin's but the contpte work.
 */
int loop_path_cover(enum ptsim_loop path, unsigned int k, enum ptsim_event *ev,
		    unsigned int *per_turn)
{
	enum ptsim_loop base;
	bool contpte;

	VALIDATE((unsigned int)path < PTSIM_LOOP__COUNT && ev && per_turn);
	base = loop_path_contpte(path);
	contpte = base == path;
	for (unsigned int i = 0; i < COVER_MAX && cover[base][i].per_turn; i++) {
		if (cover[base][i].cont && !contpte)
			continue;
		if (k--)
			continue;
		*ev = cover[base][i].ev;
		*per_turn = cover[base][i].per_turn;
		return 0;
	}
	return -ENOENT;
}

/* How an event the paths do not hold is composed. */
enum part { PART_REST, PART_SERIAL, PART_MISS };

/*
 * Serialising work: barriers and TLB maintenance (a TLBI's issue and, at
 * the DSB, its completion), exception entry and return, sleeps. drains:
 * it also empties the reorder window, so misses on either side of it do
 * not overlap (a DSB waits for every outstanding access; an exception or
 * an ISB refetches).
 */
static enum part event_part(enum ptsim_event ev, bool *drains)
{
	*drains = false;
	switch (ev) {
	case PTSIM_EV_DSB_ISHST:
	case PTSIM_EV_DSB_ISH:
	case PTSIM_EV_DSB_SY:
	case PTSIM_EV_DSB_NSH:
	case PTSIM_EV_ISB:
	case PTSIM_EV_FAULT:
	case PTSIM_EV_FAULT_RETRY:
	case PTSIM_EV_SYSCALL:
	case PTSIM_EV_FOLIO_LOCK_WAIT:
	case PTSIM_EV_IO_REQUEST:
		*drains = true;
		return PART_SERIAL;
	case PTSIM_EV_TLBI_VA:
	case PTSIM_EV_TLBI_VAA:
	case PTSIM_EV_TLBI_RANGE:
	case PTSIM_EV_TLBI_RANGE_VAA:
	case PTSIM_EV_TLBI_ASID:
	case PTSIM_EV_TLBI_ALL:
	case PTSIM_EV_TLBI_LOCAL_ALL:
	case PTSIM_EV_TLBI_LOCAL:
	case PTSIM_EV_TLBI_BACK_TO_BACK:
	/*
	 * a DMB orders without waiting for completion (Arm ARM B2.3.12): in
	 * series, but the misses on either side of it may still overlap
	 */
	case PTSIM_EV_DMB:
		return PART_SERIAL;
	case PTSIM_EV_DCACHE_L2_HIT:
	case PTSIM_EV_DCACHE_LLC_HIT:
	case PTSIM_EV_DCACHE_DRAM:
	case PTSIM_EV_DCACHE_OBJ_L2_HIT:
	case PTSIM_EV_DCACHE_OBJ_LLC_HIT:
	case PTSIM_EV_DCACHE_OBJ_DRAM:
		return PART_MISS;
	default:
		return PART_REST;
	}
}

/* The price of one turn of path on cpu: NULL when not found. */
static const struct loop_price_row *path_price(const char *cpu, enum ptsim_loop path)
{
	const char *fn, *variant;

	if (ptsim_loop_name(path, &fn, &variant))
		return NULL;
	return loop_price_row_of(cpu, fn, variant);
}

/* Held events' counts out of left: n times per each, never below zero. */
static void drop_held(uint64_t *left, enum ptsim_event ev, uint64_t n, unsigned int per)
{
	uint64_t held = n * per;

	left[ev] -= held < left[ev] ? held : left[ev];
}

/* The reorder window the loop prices of cpu were priced with (0: none known). */
static int cpu_window(const char *cpu)
{
	for (unsigned int i = 0; i < loop_window_nr_rows; i++)
		if (!strcmp(loop_window_rows[i].cpu, cpu))
			return loop_window_rows[i].rob;
	return 0;
}

int ptsim_predict_overlap(enum ptsim_cpu cpu, enum ptsim_granule granule,
			  const struct ptsim_stats *stats, const struct ptsim_loop_stats *loops,
			  struct ptsim_overlap_prediction *out)
{
	const struct cpu_desc *d = cpu_desc_get(cpu);
	struct ptsim_overlap_prediction p;
	uint64_t left[PTSIM_EV__COUNT];
	double turns = 0, instructions = 0, misses = 0, drains = 0, miss_ns = 0;
	struct ptsim_cost c;

	VALIDATE(d && stats && loops && out);
	VALIDATE(ptsim_cost_get(cpu, granule, PTSIM_EV_PTE_READ, &c) == 0);
	memset(&p, 0, sizeof(p));
	memcpy(left, stats->ev, sizeof(left));
	for (unsigned int path = 0; path < PTSIM_LOOP__COUNT; path++) {
		const struct loop_price_row *r = path_price(d->name, (enum ptsim_loop)path);
		uint64_t n = loops->iter[path];

		if (!n || !r)
			continue;
		p.loop_path_ns[path] = (double)n * r->cycles / d->freq_ghz;
		p.loop_ns += p.loop_path_ns[path];
		turns += (double)n;
		instructions += (double)n * r->instructions;
		for (unsigned int k = 0; ; k++) {
			enum ptsim_event ev;
			unsigned int per_turn;

			if (loop_path_cover((enum ptsim_loop)path, k, &ev, &per_turn))
				break;
			drop_held(left, ev, n, per_turn);
		}
	}
	/* the calls priced by their bodies: each left a body's price, in the rest */
	for (unsigned int i = 0; i < NR_PRICED_CALLS; i++) {
		const struct priced_call *pc = &priced_calls[i];
		const struct loop_price_row *r = loop_price_row_of(d->name, pc->function, pc->variant);
		uint64_t n = left[pc->ev];

		if (!n || !r)
			continue;
		p.event_ns[pc->ev] = (double)n * r->cycles / d->freq_ghz;
		p.rest_ns += p.event_ns[pc->ev];
		left[pc->ev] = 0;
		for (unsigned int k = 0; k < COVER_MAX && pc->held[k].per_turn; k++)
			drop_held(left, pc->held[k].ev, n, pc->held[k].per_turn);
	}
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		bool drain;
		enum part part = event_part((enum ptsim_event)e, &drain);
		double ns;

		if (!left[e])
			continue;
		ptsim_cost_get(cpu, granule, (enum ptsim_event)e, &c);
		ns = c.ns * (double)left[e];
		p.event_ns[e] = ns;
		if (drain)
			drains += (double)left[e];
		if (part == PART_SERIAL) {
			p.serial_ns += ns;
		} else if (part == PART_MISS) {
			miss_ns += ns;
			misses += (double)left[e];
		} else {
			p.rest_ns += ns;
		}
	}
	/*
	 * Misses overlap as far as the reorder window holds turns of the
	 * priced loops (window / instructions a turn) and as far as there are
	 * misses between two drains to overlap: without a priced loop nothing
	 * says they are independent, and they stay in series.
	 */
	p.overlap = 1;
	if (turns > 0 && cpu_window(d->name) > 0) {
		double window = cpu_window(d->name) / (instructions / turns);
		double between = misses / (drains + 1);

		p.overlap = between < window ? between : window;
		if (p.overlap < 1)
			p.overlap = 1;
	}
	p.miss_ns = miss_ns / p.overlap;
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		bool drain;

		if (event_part((enum ptsim_event)e, &drain) == PART_MISS)
			p.event_ns[e] /= p.overlap;
	}
	p.total_ns = p.loop_ns + p.serial_ns + p.miss_ns + p.rest_ns;
	*out = p;
	return 0;
}
