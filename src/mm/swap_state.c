// SPDX-License-Identifier: MIT
/*
 * The swap cache as v6.12 mm/swap_state.c keeps it for a folio reclaim
 * swaps out (add_to_swap, add_to_swap_cache) and for one that leaves it
 * (delete_from_swap_cache). The model keeps no xarray for it: what it
 * counts is the kernel's work per folio and per page (one xas_store call a
 * page), and PG_swapcache on the folio.
 */
#include "vmscan.h"
#include "primitives.h"

/*
 * add_to_swap_cache (v6.12): under the swap cache's xa_lock_irq, a
 * reference per page (one folio_ref_add), PG_swapcache set, each page's
 * slot stored, the counters.
 */
static void add_to_swap_cache(struct ptsim_machine *m, struct folio *f)
{
	kernel_call(m, ADD_TO_SWAP_CACHE);
	folio_ref_add(m, f);
	folio_flag_atomic(m, PRIM_FOLIO_SET_SWAPCACHE, f);
	f->flags |= FOLIO_SWAPCACHE;
	swap_cache_slots(m, f);
}

/*
 * folio_mark_dirty (v6.12 mm/page-writeback.c) of a swap-cache folio:
 * folio_mapping finds the swap cache, whose ->dirty_folio (noop_dirty_folio)
 * sets PG_dirty.
 */
void folio_mark_dirty(struct ptsim_machine *m, const struct folio *f)
{
	kernel_call(m, FOLIO_MARK_DIRTY);
	kernel_call(m, FOLIO_MAPPING);
	kernel_call(m, NOOP_DIRTY_FOLIO);
	folio_flag_atomic(m, PRIM_FOLIO_TEST_SET_DIRTY, f);
}

/*
 * add_to_swap (v6.12), called by shrink_folio_list for a swap-backed folio
 * not yet in the swap cache: a slot per page (folio_alloc_swap, whole for
 * a large folio: THP_SWAP), the folio into the swap cache, then marked
 * dirty so that pageout writes it.
 */
void add_to_swap(struct ptsim_machine *m, struct folio *f)
{
	kernel_call(m, ADD_TO_SWAP);
	folio_alloc_swap(m);
	add_to_swap_cache(m, f);
	folio_mark_dirty(m, f);
}

/*
 * delete_from_swap_cache (v6.12): under the lock, __delete_from_swap_cache;
 * then the slots' SWAP_HAS_CACHE dropped (put_swap_folio) and the swap
 * cache's references (one folio_ref_sub).
 */
void delete_from_swap_cache(struct ptsim_machine *m, struct folio *f)
{
	kernel_call(m, DELETE_FROM_SWAP_CACHE_CALL);
	__delete_from_swap_cache(m, f);
	kernel_call(m, PUT_SWAP_FOLIO);
	folio_put_ref(m, f);
}
