// SPDX-License-Identifier: MIT
/*
 * Writing a swap-cache folio to the swap device (models swap_writepage,
 * __swap_writepage and __end_swap_bio_write of v6.12 mm/page_io.c, with
 * __folio_start_writeback and folio_end_writeback). The model's swap device
 * is synchronous (SWP_SYNCHRONOUS_IO, as zram): swap_writepage_bdev_sync
 * waits for the write (submit_bio_wait), so the folio's writeback has ended
 * when the call returns and reclaim frees it in the same pass.
 */
#include "vmscan.h"
#include "primitives.h"

/*
 * __folio_start_writeback (v6.12 mm/page-writeback.c) of a swap-cache
 * folio: its mapping keeps no writeback tags (init_swap_address_space), so
 * PG_writeback set and the lruvec's NR_WRITEBACK and the zone's
 * NR_ZONE_WRITE_PENDING.
 */
static void folio_start_writeback(struct ptsim_machine *m, const struct folio *f)
{
	kernel_call(m, FOLIO_START_WRITEBACK);
	kernel_call(m, FOLIO_MAPPING);
	folio_flag_atomic(m, PRIM_FOLIO_TEST_SET_WRITEBACK, f);
	prim_count(m, PRIM_LRUVEC_STAT_MOD_FOLIO, 1);
	prim_count(m, PRIM_MOD_NODE_PAGE_STATE, 1);	/* mod_zone_page_state */
}

/*
 * folio_end_writeback (v6.12 mm/filemap.c): PG_reclaim, set by pageout,
 * cleared and folio_rotate_reclaimable called (it returns: the folio is
 * off the LRU); a reference held across __folio_end_writeback, which
 * clears PG_writeback and updates NR_WRITEBACK, NR_ZONE_WRITE_PENDING and
 * NR_WRITTEN; no waiter to wake.
 */
static void folio_end_writeback(struct ptsim_machine *m, const struct folio *f)
{
	kernel_call(m, FOLIO_END_WRITEBACK);
	folio_flag_atomic(m, PRIM_FOLIO_CLEAR_RECLAIM, f);
	kernel_call(m, FOLIO_ROTATE_RECLAIMABLE);
	folio_get(m, f);
	kernel_call(m, __FOLIO_END_WRITEBACK);
	kernel_call(m, FOLIO_MAPPING);
	folio_flag_atomic(m, PRIM_FOLIO_TEST_CLEAR_WRITEBACK, f);
	prim_count(m, PRIM_LRUVEC_STAT_MOD_FOLIO, 1);
	prim_count(m, PRIM_MOD_NODE_PAGE_STATE, 2);	/* mod_zone_page_state, mod_node_page_state */
	folio_put_ref(m, f);
}

/*
 * __swap_writepage (v6.12) on a SWP_SYNCHRONOUS_IO device: its
 * swap_writepage_bdev_sync (inline) builds a one-segment bio on the stack,
 * counts PSWPOUT, starts writeback, unlocks the folio, waits for the write,
 * and ends writeback (__end_swap_bio_write).
 */
static void __swap_writepage(struct ptsim_machine *m, struct folio *f)
{
	kernel_call(m, __SWAP_WRITEPAGE);
	kernel_call(m, SWP_SWAP_INFO);
	kernel_call(m, BIO_INIT);
	kernel_call(m, SWAP_FOLIO_SECTOR);
	kernel_call(m, BIO_ADD_FOLIO_NOFAIL);
	kernel_call(m, BIO_ASSOCIATE_BLKG);
	prim_count(m, PRIM_COUNT_SWPOUT_VM_EVENT, 2);
	folio_start_writeback(m, f);
	folio_unlock(m, f);
	submit_bio(m, folio_nr_pages(f) << (m->geo.page_shift - 10));	/* submit_bio_wait */
	kernel_call(m, END_SWAP_BIO_WRITE);
	folio_end_writeback(m, f);
}

/*
 * swap_writepage (v6.12), pageout's ->writepage for a swap-cache folio:
 * folio_free_swap finds the slots still counted by the swap entries that
 * replaced the PTEs (it keeps the folio in the swap cache),
 * arch_prepare_to_swap has no MTE tags to save, since v6.12 the zero test
 * and the zeromap ("swap_zeromap"), and the folio is written. A folio that
 * holds only zeros (ptsim_set_zero_filled) goes to the zeromap instead, from
 * v6.12, and nothing is written: false. The folio is unlocked when it
 * returns.
 */
bool swap_writepage(struct ptsim_machine *m, struct folio *f)
{
	kernel_call(m, SWAP_WRITEPAGE);
	kernel_call(m, FOLIO_FREE_SWAP);
	kernel_call(m, ARCH_PREPARE_TO_SWAP);
	if (feature(m, PTSIM_FEAT_SWAP_ZEROMAP) && folio_zero_filled(m, f)) {
		/*
		 * every page read through; swap_zeromap_folio_set: the memcg's
		 * obj_cgroup, the device, a zeromap bit per page, SWPOUT_ZERO
		 * (the CPU's, then the memcg's under RCU); the folio unlocked,
		 * nothing written
		 */
		is_folio_zero_filled_scan(m, folio_nr_pages(f));
		kernel_call(m, SWP_SWAP_INFO);
		prim_count(m, PRIM_SWAP_ZEROMAP_BIT, folio_nr_pages(f));
		count_zeromap_events(m);
		folio_unlock(m, f);
		return false;
	}
	if (feature(m, PTSIM_FEAT_SWAP_ZEROMAP)) {
		/*
		 * is_folio_zero_filled reads the first page's last word, which
		 * holds data (a load, not counted); swap_zeromap_folio_clear
		 * clears each page's zeromap bit
		 */
		kernel_call(m, SWP_SWAP_INFO);
		prim_count(m, PRIM_SWAP_ZEROMAP_BIT, folio_nr_pages(f));
	}
	__swap_writepage(m, f);
	return true;
}
