// SPDX-License-Identifier: MIT
/*
 * Physical memory: a buddy allocator handing out naturally aligned blocks of
 * any order up to max_order (models mm/page_alloc.c at the level the
 * algorithms see it). Memory is carved lazily from the top of the unused
 * region, so a 256 GiB machine costs nothing until it is used.
 */
#include "internal.h"
#include "host_array.h"
#include "prng.h"

#include <stdlib.h>
#include <string.h>

int physmem_init(struct physmem *pm, uint64_t base_pfn, uint64_t nr_pages, unsigned int max_order,
		 uint64_t *host_bytes)
{
	memset(pm, 0, sizeof(*pm));
	pm->host_bytes = host_bytes;
	if (max_order >= 32)
		return -EINVAL;
	pm->base_pfn = base_pfn;
	pm->nr_pages = nr_pages;
	pm->max_order = max_order;
	pm->carve_next = base_pfn;
	pm->nr_free = nr_pages;
	u64map_init(&pm->free_heads);
	return 0;
}

void physmem_free_all(struct physmem *pm)
{
	for (unsigned int i = 0; i < PCP_LISTS; i++)
		host_array_free(pm->pcp.lists[i].pfn, pm->pcp.lists[i].cap * sizeof(uint64_t));
	for (unsigned int o = 0; o < 32; o++)
		free(pm->free_list[o]);
	u64map_free(&pm->free_heads);
	memset(pm, 0, sizeof(*pm));
}

int physmem_copy(struct physmem *dst, const struct physmem *src, uint64_t *host_bytes)
{
	*dst = *src;
	dst->host_bytes = host_bytes;
	memset(dst->free_list, 0, sizeof(dst->free_list));
	for (unsigned int i = 0; i < PCP_LISTS; i++)
		dst->pcp.lists[i].pfn = NULL;
	if (u64map_copy(&dst->free_heads, &src->free_heads))
		goto fail;
	for (unsigned int i = 0; i < PCP_LISTS; i++) {
		const struct pcp_list *l = &src->pcp.lists[i];

		if (!l->cap)
			continue;
		dst->pcp.lists[i].pfn = host_array_alloc(l->cap * sizeof(uint64_t));
		if (!dst->pcp.lists[i].pfn)
			goto fail;
		memcpy(dst->pcp.lists[i].pfn, l->pfn, l->cap * sizeof(uint64_t));
	}
	for (unsigned int o = 0; o < 32; o++) {
		if (!src->free_cap[o])
			continue;
		dst->free_list[o] = malloc(src->free_cap[o] * sizeof(uint64_t));
		if (!dst->free_list[o])
			goto fail;
		memcpy(dst->free_list[o], src->free_list[o], src->free_len[o] * sizeof(uint64_t));
	}
	return 0;
fail:
	physmem_free_all(dst);
	return -ENOMEM;
}

uint64_t physmem_host_bytes(const struct physmem *pm)
{
	uint64_t bytes = u64map_host_bytes(&pm->free_heads);

	for (unsigned int o = 0; o < 32; o++)
		bytes += pm->free_cap[o] * sizeof(uint64_t);
	for (unsigned int i = 0; i < PCP_LISTS; i++)
		bytes += pm->pcp.lists[i].cap * sizeof(uint64_t);
	return bytes;
}

/*
 * A per-CPU list's ring, twice as large: the blocks that wrapped round to
 * its start move up behind the old end, so the ring reads on from first.
 * Host-mapped (host_array.h): a ring a long free grew is given back whole.
 */
static int pcp_list_grow(struct physmem *pm, struct pcp_list *l)
{
	size_t cap = l->cap ? l->cap * 2 : 64;
	uint64_t *n = host_array_resize(l->pfn, l->cap * sizeof(uint64_t), cap * sizeof(uint64_t));

	if (!n)
		return -ENOMEM;
	if (l->first + l->len > l->cap)
		memcpy(n + l->cap, n, (l->first + l->len - l->cap) * sizeof(uint64_t));
	*pm->host_bytes += (cap - l->cap) * sizeof(uint64_t);
	l->pfn = n;
	l->cap = cap;
	return 0;
}

int pcp_list_add(struct physmem *pm, unsigned int pindex, unsigned int order, uint64_t pfn,
		 bool last)
{
	struct pcp_list *l = &pm->pcp.lists[pindex];

	if (l->len == l->cap && pcp_list_grow(pm, l))
		return -ENOMEM;
	if (last) {
		l->pfn[(l->first + l->len) % l->cap] = pfn;
	} else {
		l->first = (l->first + l->cap - 1) % l->cap;
		l->pfn[l->first] = pfn;
	}
	l->len++;
	pm->pcp.list_order[pindex] = order;
	pm->pcp.count += 1 << order;
	return 0;
}

uint64_t pcp_list_take(struct physmem *pm, unsigned int pindex, bool last)
{
	struct pcp_list *l = &pm->pcp.lists[pindex];
	uint64_t pfn;

	if (last) {
		pfn = l->pfn[(l->first + l->len - 1) % l->cap];
	} else {
		pfn = l->pfn[l->first];
		l->first = (l->first + 1) % l->cap;
	}
	l->len--;
	pm->pcp.count -= 1 << pm->pcp.list_order[pindex];
	return pfn;
}

/*
 * drain_all_pages (v6.12 mm/page_alloc.c) as the allocator's slow path
 * calls it before it gives up: every block on the per-CPU lists back to
 * the buddy lists. Not counted: a path the modelled workloads reach only
 * when the machine's memory runs out.
 */
static void drain_all_pages(struct physmem *pm)
{
	for (unsigned int i = 0; i < PCP_LISTS; i++) {
		struct pcp_list *l = &pm->pcp.lists[i];

		while (l->len)
			physmem_free(pm, pcp_list_take(pm, i, true), pm->pcp.list_order[i]);
	}
}

/* The lists and map grow as a fragmenting workload needs: charged, never refused. */
static int push_free(struct physmem *pm, uint64_t pfn, unsigned int order)
{
	uint64_t map_bytes = u64map_host_bytes(&pm->free_heads);
	int err;

	if (pm->free_len[order] == pm->free_cap[order]) {
		size_t cap = pm->free_cap[order] ? pm->free_cap[order] * 2 : 16;
		uint64_t *n = realloc(pm->free_list[order], cap * sizeof(uint64_t));

		if (!n)
			return -ENOMEM;
		*pm->host_bytes += (cap - pm->free_cap[order]) * sizeof(uint64_t);
		pm->free_list[order] = n;
		pm->free_cap[order] = cap;
	}
	err = u64map_put(&pm->free_heads, pfn, order);
	*pm->host_bytes += u64map_host_bytes(&pm->free_heads) - map_bytes;
	if (err)
		return -ENOMEM;
	pm->free_list[order][pm->free_len[order]++] = pfn;
	return 0;
}

/* Pop a live free block of exactly this order (stale stack entries are skipped). */
static bool pop_free(struct physmem *pm, unsigned int order, uint64_t *pfn)
{
	while (pm->free_len[order]) {
		uint64_t p = pm->free_list[order][--pm->free_len[order]];
		uint64_t o;

		if (u64map_get(&pm->free_heads, p, &o) && o == order) {
			u64map_del(&pm->free_heads, p);
			*pfn = p;
			return true;
		}
	}
	return false;
}

/*
 * The k-th block of the shuffle: a keyed permutation of [0, shuffle_nr), a
 * four-round Feistel network over the smallest even number of bits that
 * holds shuffle_nr, walked until it lands inside (each step is a bijection,
 * so the walk visits every index once; under four steps on average).
 */
static uint64_t shuffle_index(const struct physmem *pm, uint64_t k)
{
	unsigned int half = 1;
	uint64_t mask;

	while ((UINT64_C(1) << (2 * half)) < pm->shuffle_nr)
		half++;
	mask = (UINT64_C(1) << half) - 1;
	do {
		uint64_t l = k >> half, r = k & mask;

		for (unsigned int round = 0; round < 4; round++) {
			uint64_t f = prng_seed(pm->shuffle_key ^ (r << 2) ^ round) & mask;
			uint64_t t = r;

			r = l ^ f;
			l = t;
		}
		k = l << half | r;
	} while (k >= pm->shuffle_nr);
	return k;
}

/* The shuffle's next max-order block onto the free lists (carve's, under PTSIM_PHYS_SHUFFLED). */
static int carve_shuffled(struct physmem *pm)
{
	uint64_t i = shuffle_index(pm, pm->shuffle_taken);

	if (push_free(pm, pm->shuffle_first + (i << pm->max_order), pm->max_order))
		return -ENOMEM;
	if (++pm->shuffle_taken == pm->shuffle_nr)
		pm->carve_next = pm->shuffle_first + (pm->shuffle_nr << pm->max_order);
	return 0;
}

/*
 * Hand the next naturally aligned block of the uncarved region to the free
 * lists; the shuffled stretch's blocks in their shuffled order.
 */
static int carve(struct physmem *pm)
{
	uint64_t end = pm->base_pfn + pm->nr_pages;
	unsigned int order = pm->max_order;

	if (pm->carve_next == pm->shuffle_first && pm->shuffle_taken < pm->shuffle_nr)
		return carve_shuffled(pm);
	if (pm->carve_next >= end)
		return -ENOMEM;
	while (order && (!IS_ALIGNED64(pm->carve_next, UINT64_C(1) << order) ||
			 pm->carve_next + (UINT64_C(1) << order) > end))
		order--;
	if (push_free(pm, pm->carve_next, order))
		return -ENOMEM;
	pm->carve_next += UINT64_C(1) << order;
	return 0;
}

/*
 * PTSIM_PHYS_FRAGMENTED: break the largest free block (carving one when none
 * is free) into single pages on the order-0 list, in a random order
 * (Fisher-Yates over the pages just pushed; pop_free takes from the end).
 */
static int scatter_block(struct physmem *pm)
{
	unsigned int o;
	uint64_t p, n, i;
	size_t first;

	for (;;) {
		for (o = pm->max_order; o > 0; o--)
			if (pop_free(pm, o, &p))
				goto found;
		if (carve(pm))
			return -ENOMEM;
		if (pop_free(pm, 0, &p)) {	/* carving left only a single page */
			o = 0;
			goto found;
		}
	}
found:
	n = UINT64_C(1) << o;
	first = pm->free_len[0];
	for (i = 0; i < n; i++) {
		if (push_free(pm, p + i, 0)) {
			pm->nr_free -= n - i;	/* bookkeeping failed: leak, never corrupt */
			return -ENOMEM;
		}
	}
	for (size_t k = pm->free_len[0] - 1; k > first; k--) {
		size_t j = first + (size_t)(prng_next(&pm->rng) % (k - first + 1));
		uint64_t t = pm->free_list[0][k];

		pm->free_list[0][k] = pm->free_list[0][j];
		pm->free_list[0][j] = t;
	}
	return 0;
}

/* An order-0 page of a fragmented machine: the next of the scattered list. */
static int alloc_scattered_page(struct physmem *pm, uint64_t *pfn)
{
	uint64_t p;
	int err;

	while (!pop_free(pm, 0, &p)) {
		err = scatter_block(pm);
		if (err)
			return err;
	}
	pm->nr_free--;
	*pfn = p;
	return 0;
}

int physmem_alloc(struct physmem *pm, unsigned int order, uint64_t *pfn, unsigned int *from_order)
{
	unsigned int o;
	uint64_t p;

	if (order > pm->max_order)
		return -EINVAL;
	if (from_order)
		*from_order = order;
	if (!order && pm->fragmented) {
		if (!alloc_scattered_page(pm, pfn))
			return 0;
		drain_all_pages(pm);
		return alloc_scattered_page(pm, pfn);
	}
	for (bool drained = false;;) {
		for (o = order; o <= pm->max_order; o++)
			if (pop_free(pm, o, &p))
				goto found;
		if (carve(pm)) {
			if (drained || !pm->pcp.count)
				return -ENOMEM;
			drain_all_pages(pm);
			drained = true;
		}
	}
found:
	if (from_order)
		*from_order = o;
	/* split down, returning the upper halves (buddies) to the free lists */
	while (o > order) {
		o--;
		if (push_free(pm, p + (UINT64_C(1) << o), o)) {
			pm->nr_free -= UINT64_C(1) << (o + 1);
			physmem_free(pm, p, o + 1);
			return -ENOMEM;
		}
	}
	pm->nr_free -= UINT64_C(1) << order;
	*pfn = p;
	return 0;
}

unsigned int physmem_free(struct physmem *pm, uint64_t pfn, unsigned int order)
{
	unsigned int merges = 0;

	pm->nr_free += UINT64_C(1) << order;
	/* merge with free buddies while they exist */
	for (; order < pm->max_order; merges++) {
		uint64_t buddy = pfn ^ (UINT64_C(1) << order);
		uint64_t o;

		if (!u64map_get(&pm->free_heads, buddy, &o) || o != order)
			break;
		u64map_del(&pm->free_heads, buddy);
		pfn = MIN(pfn, buddy);
		order++;
	}
	if (push_free(pm, pfn, order)) {
		pm->nr_free -= UINT64_C(1) << order;	/* bookkeeping failed: leak, never corrupt */
		return merges;
	}
	/*
	 * __free_one_page under page_alloc.shuffle: a block of SHUFFLE_ORDER
	 * (MAX_PAGE_ORDER) goes to the list's tail or head at random
	 * (shuffle_pick_tail); the tail is the stack's bottom, taken last
	 */
	if (pm->shuffled && order >= pm->max_order && (prng_next(&pm->rng) & 1)) {
		uint64_t *l = pm->free_list[order];

		memmove(l + 1, l, (pm->free_len[order] - 1) * sizeof(*l));
		l[0] = pfn;
	}
	return merges;
}

/*
 * PTSIM_PHYS_SHUFFLED: shuffle_zone (v6.12 mm/shuffle.c) at boot swaps each
 * free block of SHUFFLE_ORDER (MAX_PAGE_ORDER) with a random one, so the
 * free list hands out the uncarved memory's max-order blocks in a random
 * order. A shuffle under way is kept (its blocks are not all carved yet).
 */
static void physmem_shuffle(struct physmem *pm)
{
	const uint64_t block = UINT64_C(1) << pm->max_order;
	uint64_t first = ALIGN_UP64(pm->carve_next, block);
	uint64_t last = ALIGN_DOWN64(pm->base_pfn + pm->nr_pages, block);

	if (pm->shuffle_taken < pm->shuffle_nr)
		return;
	pm->shuffle_first = first;
	pm->shuffle_nr = last > first ? (last - first) / block : 0;
	pm->shuffle_taken = 0;
	pm->shuffle_key = prng_next(&pm->rng);
}

int ptsim_machine_set_phys_order(struct ptsim_machine *m, enum ptsim_phys_order order,
				 uint64_t seed)
{
	VALIDATE(m && (order == PTSIM_PHYS_SEQUENTIAL || order == PTSIM_PHYS_FRAGMENTED ||
		       order == PTSIM_PHYS_SHUFFLED));
	REFUSE_IN_HANDLER(m);
	m->phys.fragmented = order == PTSIM_PHYS_FRAGMENTED;
	m->phys.shuffled = order == PTSIM_PHYS_SHUFFLED;
	m->phys.rng = prng_seed(seed);
	if (m->phys.shuffled)
		physmem_shuffle(&m->phys);
	return 0;
}
