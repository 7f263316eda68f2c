// SPDX-License-Identifier: MIT
/*
 * The page allocator's side of a folio (v6.12 mm/page_alloc.c): this CPU's
 * per-CPU page lists (struct per_cpu_pages) for the orders they take, the
 * buddy lists for the others. A block on a list is a page frame the
 * buddy allocator (page_alloc.c) no longer holds: an allocation takes the
 * list's first block, the one freed last (list_add), so a page freed is the
 * next one handed out; a list that runs empty is refilled from the buddy
 * lists (rmqueue_bulk), and a free that takes the lists past their drain
 * mark hands the oldest blocks back (free_pcppages_bulk), where they merge
 * with their free buddies. The buddy's splits and merges are counted as
 * the kernel makes them, with the struct page of each block and buddy they
 * read or write through the data-cache model.
 *
 * Two regimes, by release: v6.7's "mm: PCP high auto-tuning" series
 * (H. Ying; 51a755c56dc0 "mm: tune PCP high automatically" and the commits
 * around it, PTSIM_FEAT_PCP_HIGH_AUTO) lets the drain mark float between
 * high_min and high_max, scales refills by alloc_factor and drains by the
 * consecutive-free count; before it, the mark is fixed and only drains
 * scale (free_factor). The zone stays above its high watermark (neither
 * ZONE_BELOW_HIGH nor ZONE_RECLAIM_ACTIVE is set), vmstat's once-a-second
 * decay_pcp_high never runs (the model has no clock), and the cache-size
 * flag PCPF_FREE_HIGH_BATCH is clear. Page-table pages bypass the lists
 * (their allocation and free are table_alloc's and table_free's).
 */
#include "pcp.h"
#include "primitives.h"

#include <limits.h>

/* CONFIG_PCP_BATCH_SCALE_MAX (mm/Kconfig, v6.7 on), its default */
#define PCP_BATCH_SCALE_MAX 5
/* MIN_PERCPU_PAGELIST_HIGH_FRACTION (v6.12 mm/page_alloc.c) */
#define MIN_PERCPU_PAGELIST_HIGH_FRACTION 8
/* MIGRATE_PCPTYPES and the movable type's index (include/linux/mmzone.h) */
#define MIGRATE_PCPTYPES 3
#define MIGRATE_MOVABLE 1

/* clamp (include/linux/minmax.h) */
static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static bool auto_tuned(const struct ptsim_machine *m)
{
	return m->features[PTSIM_FEAT_PCP_HIGH_AUTO];
}

/* order_to_pindex (v6.12 mm/page_alloc.c) for a movable block */
static unsigned int order_to_pindex(const struct ptsim_machine *m, unsigned int order)
{
	if (order > PAGE_ALLOC_COSTLY_ORDER && order == m->geo.pmd_order)
		return MIGRATE_PCPTYPES * (PAGE_ALLOC_COSTLY_ORDER + 1);
	return MIGRATE_PCPTYPES * order + MIGRATE_MOVABLE;
}

/* pageblock_order (include/linux/pageblock-flags.h): the PMD order, within MAX_PAGE_ORDER */
static unsigned int pageblock_order(const struct ptsim_machine *m)
{
	return MIN(m->geo.pmd_order, m->phys.max_order);
}

static uint64_t isqrt(uint64_t x)
{
	uint64_t r = 0;

	for (uint64_t bit = UINT64_C(1) << 62; bit; bit >>= 2) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	return r;
}

/*
 * low_wmark_pages of the one zone, as boot leaves it: min_free_kbytes from
 * calculate_min_free_kbytes (the square root of 16 x the memory in KiB,
 * within 128 KiB .. 256 MiB), raised by khugepaged's
 * set_recommended_min_free_kbytes (THP is on in defconfig: eleven pageblocks,
 * at most a twentieth of memory); then __setup_per_zone_wmarks: min plus
 * the larger of a quarter of min and watermark_scale_factor's 0.1 % of the
 * zone. The zone's managed pages are taken as all of the machine's memory.
 */
static uint64_t low_wmark_pages(const struct ptsim_machine *m)
{
	const uint64_t managed = m->phys.nr_pages;
	const unsigned int kib_shift = m->geo.page_shift - 10;
	uint64_t min_kib = isqrt((managed << kib_shift) * 16), recommended, min;

	min_kib = MIN(MAX(min_kib, UINT64_C(128)), UINT64_C(262144));
	recommended = (UINT64_C(1) << pageblock_order(m)) * (2 + MIGRATE_PCPTYPES * MIGRATE_PCPTYPES);
	recommended = MIN(recommended, managed / 20) << kib_shift;
	min_kib = MAX(min_kib, recommended);
	min = min_kib >> kib_shift;
	return min + MAX(min / 4, managed * 10 / 10000);
}

/* zone_batchsize (v6.12 mm/page_alloc.c): about 0.1 % of the zone or 1 MiB, as 2^n - 1 pages */
static int zone_batchsize(const struct ptsim_machine *m)
{
	uint64_t batch = MIN(m->phys.nr_pages >> 10, (UINT64_C(1) << 20) >> m->geo.page_shift) / 4;

	if (batch < 1)
		batch = 1;
	batch += batch / 2;
	while (batch & (batch - 1))
		batch &= batch - 1;	/* rounddown_pow_of_two */
	return (int)batch - 1;
}

/*
 * zone_highsize (v6.12 mm/page_alloc.c): pages the lists may hold, split
 * over the node's CPUs (kept within the int the kernel's count is, with
 * room for a refill on top: a 256 TiB machine's eighth is not)
 */
static int zone_highsize(const struct ptsim_machine *m, int batch, uint64_t total_pages)
{
	uint64_t high = total_pages / m->cfg.nr_cpus;

	return (int)MIN(MAX(high, (uint64_t)batch << 2), (uint64_t)INT_MAX / 4);
}

/*
 * zone_set_pageset_high_and_batch (v6.12 mm/page_alloc.c): the batch and
 * the marks from the zone's size, at boot and whenever the kernel's
 * release changes; the lists keep their pages (pageset_update). Before
 * v6.7 the mark is the low-watermark share itself.
 */
void zone_set_pageset_high_and_batch(struct ptsim_machine *m)
{
	struct pcp_lists *pcp = &m->phys.pcp;

	pcp->batch = MAX(1, zone_batchsize(m));
	pcp->high_min = zone_highsize(m, pcp->batch, low_wmark_pages(m));
	pcp->high_max = pcp->high_min;
	if (auto_tuned(m))
		pcp->high_max = zone_highsize(m, pcp->batch,
					      m->phys.nr_pages / MIN_PERCPU_PAGELIST_HIGH_FRACTION);
	else
		pcp->high = pcp->high_min;
}

/*
 * expand (v6.12 mm/page_alloc.c, inline in __rmqueue_smallest): the block
 * at pfn, split from one of order high down to low, leaves its upper
 * halves on the buddy lists, each one's struct page written
 * (set_buddy_order) and linked.
 */
static void expand(struct ptsim_machine *m, uint64_t pfn, unsigned int low, unsigned int high)
{
	while (high > low) {
		high--;
		prim_count(m, PRIM_ADD_TO_FREE_LIST, 1);
		dcache_page_load(m, pfn + (UINT64_C(1) << high));
	}
}

/*
 * __free_one_page's merges (v6.12 mm/page_alloc.c) for the block of order
 * at pfn that merged merges times: each buddy's struct page read
 * (find_buddy_page_pfn, page_is_buddy) and the buddy unlinked, from the
 * pageblock order on its migratetype read too (a get_pfnblock_flags_mask
 * call); then the next buddy read, which is not free (below the top order).
 */
static void count_merges(struct ptsim_machine *m, uint64_t pfn, unsigned int order,
			 unsigned int merges)
{
	const unsigned int block_order = pageblock_order(m);

	for (unsigned int i = 0; i < merges; i++, order++) {
		uint64_t buddy = pfn ^ (UINT64_C(1) << order);

		dcache_page_load(m, buddy);
		if (order >= block_order)
			kernel_call(m, GET_PFNBLOCK_FLAGS_MASK);
		prim_count(m, PRIM_DEL_PAGE_FROM_FREE_LIST, 1);
		pfn &= buddy;
	}
	if (order < m->phys.max_order)
		dcache_page_load(m, pfn ^ (UINT64_C(1) << order));
}

/* A block the buddy allocator took back (physmem_free), its merges counted. */
static void buddy_free(struct ptsim_machine *m, uint64_t pfn, unsigned int order)
{
	count_merges(m, pfn, order, physmem_free(&m->phys, pfn, order));
}

/*
 * __rmqueue_smallest (v6.12 mm/page_alloc.c, inline): a block of order off
 * the buddy lists, split from a larger one as needed, account_freepages'
 * call. The block's own unlink is its caller's to count.
 */
static int rmqueue_smallest(struct ptsim_machine *m, unsigned int order, uint64_t *pfn)
{
	unsigned int from;
	int err = physmem_alloc(&m->phys, order, pfn, &from);

	if (err)
		return err;
	expand(m, *pfn, order, from);
	kernel_call(m, ACCOUNT_FREEPAGES);
	return 0;
}

/*
 * rmqueue_bulk (v6.12 mm/page_alloc.c, inline in __rmqueue_pcplist): count
 * blocks of order onto this CPU's list pindex, in the order the buddy
 * allocator hands them out: zone->lock once, per block __rmqueue's take
 * off a buddy list (its struct page, its unlink) and the add to the list's
 * tail. Fewer when the buddy lists run out.
 */
static void rmqueue_bulk(struct ptsim_machine *m, unsigned int order, unsigned int pindex,
			 int count)
{
	prim_count(m, PRIM_ZONE_LOCK, 1);
	for (int i = 0; i < count; i++) {
		uint64_t pfn;

		if (rmqueue_smallest(m, order, &pfn))
			break;
		dcache_page_load(m, pfn);
		prim_count(m, PRIM_DEL_PAGE_FROM_FREE_LIST, 1);
		prim_count(m, PRIM_PCP_LIST_ADD, 1);
		if (pcp_list_add(&m->phys, pindex, order, pfn, true)) {
			physmem_free(&m->phys, pfn, order);	/* bookkeeping failed: back, uncounted */
			break;
		}
	}
}

/* nr_pcp_alloc (v6.12 mm/page_alloc.c): the blocks a refill takes */
static int nr_pcp_alloc(struct ptsim_machine *m, unsigned int order)
{
	struct pcp_lists *pcp = &m->phys.pcp;
	int batch, max_nr_alloc;

	if (!auto_tuned(m))	/* v6.6 __rmqueue_pcplist: the batch, scaled by order */
		return pcp->batch > 1 ? MAX(pcp->batch >> order, 2) : pcp->batch;
	pcp->high = clamp(pcp->high, pcp->high_min, pcp->high_max);
	if (pcp->high < pcp->batch)
		return 1;
	batch = order ? pcp->batch : pcp->batch << pcp->alloc_factor;
	if (pcp->high_min != pcp->high_max)
		pcp->high = MIN(pcp->high + batch, pcp->high_max);
	if (!order) {
		max_nr_alloc = MAX(pcp->high - pcp->count - pcp->batch, pcp->batch);
		if (batch <= max_nr_alloc && pcp->alloc_factor < PCP_BATCH_SCALE_MAX)
			pcp->alloc_factor++;
		batch = MIN(batch, max_nr_alloc);
	}
	if (batch > 1)
		batch = MAX(batch >> order, 2);
	return batch;
}

/*
 * rmqueue_pcplist and __rmqueue_pcplist (v6.12 mm/page_alloc.c): an
 * allocation halves the consecutive-free count (free_factor before v6.7),
 * refills its list when it is empty, and takes the list's first block.
 */
static int rmqueue_pcplist(struct ptsim_machine *m, unsigned int order, uint64_t *pfn)
{
	struct pcp_lists *pcp = &m->phys.pcp;
	unsigned int pindex = order_to_pindex(m, order);

	if (auto_tuned(m))
		pcp->free_count >>= 1;
	else
		pcp->free_factor >>= 1;
	if (!pcp->lists[pindex].len)
		rmqueue_bulk(m, order, pindex, nr_pcp_alloc(m, order));
	if (!pcp->lists[pindex].len)
		return -ENOMEM;
	*pfn = pcp_list_take(&m->phys, pindex, false);
	return 0;
}

int rmqueue(struct ptsim_machine *m, unsigned int order, uint64_t *pfn)
{
	if (pcp_allowed_order(m, order))
		return rmqueue_pcplist(m, order, pfn);
	return rmqueue_smallest(m, order, pfn);	/* rmqueue_buddy */
}

void rmqueue_undo(struct ptsim_machine *m, uint64_t pfn, unsigned int order)
{
	if (!pcp_allowed_order(m, order) ||
	    pcp_list_add(&m->phys, order_to_pindex(m, order), order, pfn, false))
		physmem_free(&m->phys, pfn, order);
}

/*
 * free_pcppages_bulk (v6.12 mm/page_alloc.c) of count pages: zone->lock
 * once, then the lists round-robin from pindex, each list's last blocks
 * (the oldest) unlinked and given to __free_one_page, which merges them
 * with their free buddies and links the result onto a buddy list (the
 * block's migratetype, get_pfnblock_flags_mask, is inline here).
 */
static void free_pcppages_bulk(struct ptsim_machine *m, int count, unsigned int pindex)
{
	struct pcp_lists *pcp = &m->phys.pcp;

	count = MIN(pcp->count, count);
	kernel_call(m, FREE_PCPPAGES_BULK);
	prim_count(m, PRIM_ZONE_LOCK, 1);
	pindex = pindex ? pindex - 1 : PCP_LISTS - 1;
	while (count > 0) {
		unsigned int order;

		do
			pindex = pindex + 1 == PCP_LISTS ? 0 : pindex + 1;
		while (!pcp->lists[pindex].len);
		order = pcp->list_order[pindex];
		do {
			uint64_t pfn = pcp_list_take(&m->phys, pindex, true);

			dcache_page_load(m, pfn);
			prim_count(m, PRIM_PCP_LIST_DEL, 1);
			__free_one_page(m);
			buddy_free(m, pfn, order);
			prim_count(m, PRIM_ADD_TO_FREE_LIST, 1);
			count -= 1 << order;
		} while (count > 0 && pcp->lists[pindex].len);
	}
}

/* nr_pcp_free (v6.12 mm/page_alloc.c; v6.6's with free_factor): the pages a drain frees */
static int nr_pcp_free(struct ptsim_machine *m, int high, bool free_high)
{
	struct pcp_lists *pcp = &m->phys.pcp;
	int batch = pcp->batch, max_nr_free;

	if (free_high)
		return auto_tuned(m) ? MIN(pcp->count, batch << PCP_BATCH_SCALE_MAX) : pcp->count;
	if (high < batch)
		return 1;
	max_nr_free = high - batch;
	if (auto_tuned(m))
		return clamp(pcp->free_count, batch, max_nr_free);
	batch <<= pcp->free_factor;
	if (batch < max_nr_free)
		pcp->free_factor++;
	return clamp(batch, pcp->batch, max_nr_free);
}

/* nr_pcp_high (v6.12 mm/page_alloc.c; v6.6's fixed mark): the count that starts a drain */
static int nr_pcp_high(struct ptsim_machine *m, bool free_high)
{
	struct pcp_lists *pcp = &m->phys.pcp;
	int high;

	if (!auto_tuned(m))
		return free_high ? 0 : pcp->high;
	high = pcp->high = clamp(pcp->high, pcp->high_min, pcp->high_max);
	if (!high)
		return 0;
	if (free_high) {
		pcp->high = MAX(high - (pcp->batch << PCP_BATCH_SCALE_MAX), pcp->high_min);
		return 0;
	}
	if (pcp->high_min != pcp->high_max && pcp->count >= high) {
		int need_high = pcp->free_count + pcp->batch;

		if (pcp->high < need_high)
			pcp->high = clamp(need_high, pcp->high_min, pcp->high_max);
	}
	return high;
}

/*
 * free_unref_page_commit (v6.12 mm/page_alloc.c; v6.6's before the
 * auto-tuning): the block of order at pfn first on this CPU's list; a
 * high-order block freed right after another (free_high) or a count past
 * the mark drains.
 */
static void free_unref_page_commit(struct ptsim_machine *m, uint64_t pfn, unsigned int order)
{
	struct pcp_lists *pcp = &m->phys.pcp;
	unsigned int pindex = order_to_pindex(m, order);
	bool free_high = false;
	int high;

	if (pcp_list_add(&m->phys, pindex, order, pfn, false)) {
		buddy_free(m, pfn, order);	/* bookkeeping failed: to the buddy */
		return;
	}
	if (!auto_tuned(m)) {
		free_high = pcp->free_factor && order && order <= PAGE_ALLOC_COSTLY_ORDER;
	} else {
		pcp->alloc_factor >>= 1;
		if (order && order <= PAGE_ALLOC_COSTLY_ORDER) {
			free_high = pcp->free_count >= pcp->batch && pcp->prev_free_high_order;
			pcp->prev_free_high_order = true;
		} else {
			pcp->prev_free_high_order = false;
		}
		if (pcp->free_count < pcp->batch << PCP_BATCH_SCALE_MAX)
			pcp->free_count += 1 << order;
	}
	high = nr_pcp_high(m, free_high);
	if (pcp->count >= high)
		free_pcppages_bulk(m, nr_pcp_free(m, high, free_high), pindex);
}

void free_the_page(struct ptsim_machine *m, uint64_t pfn, unsigned int order)
{
	if (pcp_allowed_order(m, order))
		free_unref_page_commit(m, pfn, order);
	else
		buddy_free(m, pfn, order);	/* free_one_page's __free_one_page */
}
