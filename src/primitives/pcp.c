// SPDX-License-Identifier: MIT
/*
 * This CPU's per-CPU page lists (v6.12 mm/page_alloc.c, struct
 * per_cpu_pages): how many pages they hold, when an allocation finds its
 * list empty and refills it from the buddy lists (rmqueue_bulk), and when a
 * free passes the drain mark and hands pages back (free_pcppages_bulk).
 * The model keeps the lists' counts, not their pages: a block the lists
 * hand out is the one the buddy allocator (src/mm/page_alloc.c) gives, so
 * the physical pages a workload gets are what they were without the lists.
 *
 * Two regimes, by release: v6.7's "mm: PCP high auto-tuning" series
 * (H. Ying; 51a755c56dc0 "mm: tune PCP high automatically" and the commits
 * around it, PTSIM_FEAT_PCP_HIGH_AUTO) lets the drain mark float between
 * high_min and high_max, scales refills by alloc_factor and drains by the
 * consecutive-free count; before it, the mark is fixed and only drains
 * scale (free_factor). The zone stays above its high watermark (neither
 * ZONE_BELOW_HIGH nor ZONE_RECLAIM_ACTIVE is set), vmstat's once-a-second
 * decay_pcp_high never runs (the model has no clock), and the cache-size
 * flag PCPF_FREE_HIGH_BATCH is clear.
 */
#include "pcp.h"
#include "primitives.h"

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

/* pindex_to_order (v6.12 mm/page_alloc.c) */
static unsigned int pindex_to_order(const struct ptsim_machine *m, unsigned int pindex)
{
	if (pindex == MIGRATE_PCPTYPES * (PAGE_ALLOC_COSTLY_ORDER + 1))
		return m->geo.pmd_order;
	return pindex / MIGRATE_PCPTYPES;
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
	const unsigned int pageblock_order = MIN(m->geo.pmd_order, m->phys.max_order);
	uint64_t min_kib = isqrt((managed << kib_shift) * 16), recommended, min;

	min_kib = MIN(MAX(min_kib, UINT64_C(128)), UINT64_C(262144));
	recommended = (UINT64_C(1) << pageblock_order) * (2 + MIGRATE_PCPTYPES * MIGRATE_PCPTYPES);
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

/* zone_highsize (v6.12 mm/page_alloc.c): pages the lists may hold, split over the node's CPUs */
static int zone_highsize(const struct ptsim_machine *m, int batch, uint64_t total_pages)
{
	uint64_t high = total_pages / m->cfg.nr_cpus;

	return (int)MAX(high, (uint64_t)batch << 2);
}

/*
 * zone_set_pageset_high_and_batch (v6.12 mm/page_alloc.c): the batch and
 * the marks from the zone's size, at boot and whenever the kernel's
 * release changes; the lists keep their pages (pageset_update). Before
 * v6.7 the mark is the low-watermark share itself.
 */
void zone_set_pageset_high_and_batch(struct ptsim_machine *m)
{
	struct pcp_lists *pcp = &m->pcp;

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
 * rmqueue_bulk (v6.12 mm/page_alloc.c, inline in __rmqueue_pcplist) for
 * count blocks of order: zone->lock once, and per block __rmqueue's take
 * off a buddy free list with account_freepages' call and the add to this
 * CPU's list. The buddy's splits (expand) are counted where the model's
 * buddy allocator makes them.
 */
static void rmqueue_bulk(struct ptsim_machine *m, unsigned int order, int count)
{
	prim_count(m, PRIM_ZONE_LOCK, 1);
	prim_count(m, PRIM_DEL_PAGE_FROM_FREE_LIST, (uint64_t)count);
	for (int i = 0; i < count; i++)
		kernel_call(m, ACCOUNT_FREEPAGES);
	prim_count(m, PRIM_PCP_LIST_ADD, (uint64_t)count);
	m->pcp.blocks[order_to_pindex(m, order)] += (uint64_t)count;
	m->pcp.count += count << order;
}

/* nr_pcp_alloc (v6.12 mm/page_alloc.c): the blocks a refill takes */
static int nr_pcp_alloc(struct ptsim_machine *m, unsigned int order)
{
	struct pcp_lists *pcp = &m->pcp;
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
 * refills its list when it is empty, and takes a block of order off it.
 */
void rmqueue_pcplist(struct ptsim_machine *m, unsigned int order)
{
	struct pcp_lists *pcp = &m->pcp;
	unsigned int pindex = order_to_pindex(m, order);

	if (auto_tuned(m))
		pcp->free_count >>= 1;
	else
		pcp->free_factor >>= 1;
	if (!pcp->blocks[pindex])
		rmqueue_bulk(m, order, nr_pcp_alloc(m, order));
	pcp->blocks[pindex]--;
	pcp->count -= 1 << order;
}

/*
 * free_pcppages_bulk (v6.12 mm/page_alloc.c) of count pages: zone->lock
 * once, then the lists round-robin from pindex, each block's unlink and
 * __free_one_page with its add to a buddy free list (the block's
 * migratetype, get_pfnblock_flags_mask, is inline here). The buddy's merges
 * are counted where the model's buddy allocator makes them.
 */
static void free_pcppages_bulk(struct ptsim_machine *m, int count, unsigned int pindex)
{
	struct pcp_lists *pcp = &m->pcp;

	count = MIN(pcp->count, count);
	kernel_call(m, FREE_PCPPAGES_BULK);
	prim_count(m, PRIM_ZONE_LOCK, 1);
	pindex = pindex ? pindex - 1 : PCP_LISTS - 1;
	while (count > 0) {
		unsigned int order;

		do
			pindex = pindex + 1 == PCP_LISTS ? 0 : pindex + 1;
		while (!pcp->blocks[pindex]);
		order = pindex_to_order(m, pindex);
		do {
			__free_one_page(m);
			prim_count(m, PRIM_PCP_LIST_DEL, 1);
			prim_count(m, PRIM_ADD_TO_FREE_LIST, 1);
			pcp->blocks[pindex]--;
			count -= 1 << order;
			pcp->count -= 1 << order;
		} while (count > 0 && pcp->blocks[pindex]);
	}
}

/* nr_pcp_free (v6.12 mm/page_alloc.c; v6.6's with free_factor): the pages a drain frees */
static int nr_pcp_free(struct ptsim_machine *m, int high, bool free_high)
{
	struct pcp_lists *pcp = &m->pcp;
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
	struct pcp_lists *pcp = &m->pcp;
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
 * auto-tuning): a block of order onto this CPU's list; a high-order block
 * freed right after another (free_high) or a count past the mark drains.
 */
void free_unref_page_commit(struct ptsim_machine *m, unsigned int order)
{
	struct pcp_lists *pcp = &m->pcp;
	unsigned int pindex = order_to_pindex(m, order);
	bool free_high = false;
	int high;

	pcp->blocks[pindex]++;
	pcp->count += 1 << order;
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
