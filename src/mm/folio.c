// SPDX-License-Identifier: MIT
/*
 * Folios: naturally aligned groups of pages, described by one record per page
 * frame (as struct page in the vmemmap), found from any PFN in O(1).
 */
#include "internal.h"
#include "pcp.h"
#include "primitives.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * The store reserves one record per page frame of the machine; the host
 * backs a chunk of records when one of them is first used. A chunk is the
 * fewest whole host pages that hold whole records (three 4 KiB pages of
 * 1024 12-byte records): it is charged while it holds a live record, and
 * handed back (and uncharged) when its last one goes.
 */
int folio_store_init(struct folio_store *fs, uint64_t base_pfn, uint64_t nr_pages,
		     uint64_t *host_bytes)
{
	long host_page = sysconf(_SC_PAGESIZE);
	size_t chunks, pages_per_chunk = 1;
	void *map;

	memset(fs, 0, sizeof(*fs));
	u64map_init(&fs->lock_contention);
	u64map_init(&fs->gup);
	u64map_init(&fs->mapcount);
	u64map_init(&fs->zero_filled);
	/* the side maps are the machine's bookkeeping: charged as they grow */
	u64map_charge_to(&fs->lock_contention, host_bytes);
	u64map_charge_to(&fs->gup, host_bytes);
	u64map_charge_to(&fs->mapcount, host_bytes);
	u64map_charge_to(&fs->zero_filled, host_bytes);
	if (host_page < (long)sizeof(struct folio) || nr_pages > SIZE_MAX / sizeof(struct folio))
		return -ENOMEM;
	fs->base_pfn = base_pfn;
	fs->nr_pages = nr_pages;
	while ((size_t)host_page * pages_per_chunk % sizeof(struct folio))
		pages_per_chunk++;
	fs->chunk_records = (size_t)host_page * pages_per_chunk / sizeof(struct folio);
	fs->map_bytes = (size_t)nr_pages * sizeof(struct folio);
	chunks = (size_t)folio_store_chunks(fs);
	map = mmap(NULL, fs->map_bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	fs->chunk_live = calloc(chunks ? chunks : 1, sizeof(*fs->chunk_live));
	if (map == MAP_FAILED || !fs->chunk_live) {
		if (map != MAP_FAILED)
			munmap(map, fs->map_bytes);
		free(fs->chunk_live);
		fs->chunk_live = NULL;
		return -ENOMEM;
	}
	/*
	 * charged a host page at a time, so backed a host page at a time: a
	 * huge page would bring 2 MiB of records in for the first one
	 */
	madvise(map, fs->map_bytes, MADV_NOHUGEPAGE);
	fs->map = map;
	*host_bytes += chunks * sizeof(*fs->chunk_live);
	return 0;
}

void folio_store_free(struct folio_store *fs)
{
	if (fs->map)
		munmap(fs->map, fs->map_bytes);
	free(fs->chunk_live);
	u64map_free(&fs->lock_contention);
	u64map_free(&fs->gup);
	u64map_free(&fs->mapcount);
	u64map_free(&fs->zero_filled);
	memset(fs, 0, sizeof(*fs));
}

int folio_store_copy(struct folio_store *dst, const struct folio_store *src, uint64_t *host_bytes)
{
	uint64_t ignored = 0;
	size_t chunk_bytes = src->chunk_records * sizeof(struct folio);
	int err = folio_store_init(dst, src->base_pfn, src->nr_pages, &ignored);

	if (err)
		return err;
	if (u64map_copy(&dst->lock_contention, &src->lock_contention) ||
	    u64map_copy(&dst->gup, &src->gup) || u64map_copy(&dst->mapcount, &src->mapcount) ||
	    u64map_copy(&dst->zero_filled, &src->zero_filled)) {
		folio_store_free(dst);
		return -ENOMEM;
	}
	/* the copies' bytes came with the copied machine's total */
	u64map_charge_to(&dst->lock_contention, host_bytes);
	u64map_charge_to(&dst->gup, host_bytes);
	u64map_charge_to(&dst->mapcount, host_bytes);
	u64map_charge_to(&dst->zero_filled, host_bytes);
	dst->nr_folios = src->nr_folios;
	for (uint64_t r = 0; r < src->nr_pages; r += src->chunk_records) {
		size_t c = (size_t)(r / src->chunk_records);

		dst->chunk_live[c] = src->chunk_live[c];
		if (src->chunk_live[c])
			memcpy(&dst->map[r], &src->map[r],
			       MIN(chunk_bytes, src->map_bytes - (size_t)r * sizeof(struct folio)));
	}
	return 0;
}

/* Host pages of records that nr records from rel on would newly bring live. */
static uint64_t chunks_to_charge(const struct folio_store *fs, uint64_t rel, uint64_t nr)
{
	uint64_t n = 0;

	for (uint64_t c = rel / fs->chunk_records; c <= (rel + nr - 1) / fs->chunk_records; c++)
		n += !fs->chunk_live[c];
	return n;
}

/* Records rel .. rel+nr-1 come live (+1) or go (-1); their host pages are charged accordingly. */
static void chunks_account(struct ptsim_machine *m, uint64_t rel, uint64_t nr, int dir)
{
	struct folio_store *fs = &m->folios;
	uint64_t chunk_bytes = fs->chunk_records * sizeof(struct folio);

	for (uint64_t r = rel; r < rel + nr;) {
		size_t c = (size_t)(r / fs->chunk_records);
		uint64_t end = MIN(rel + nr, (uint64_t)(c + 1) * fs->chunk_records);
		uint32_t n = (uint32_t)(end - r);

		if (dir > 0) {
			if (!fs->chunk_live[c])
				m->host_bytes += chunk_bytes;
			fs->chunk_live[c] += n;
		} else {
			fs->chunk_live[c] -= n;
			if (!fs->chunk_live[c]) {
				/* the last live record went: the host page goes back, and reads as zeroes */
				madvise(&fs->map[(uint64_t)c * fs->chunk_records],
					MIN((size_t)chunk_bytes,
					    fs->map_bytes - (size_t)c * (size_t)chunk_bytes),
					MADV_DONTNEED);
				host_uncharge(m, chunk_bytes);
			}
		}
		r = end;
	}
}

/* The slow paths of folio_mapcount / _set / _add (src/mm/internal.h): the side map. */
int folio_mapcount_wide(const struct ptsim_machine *m, const struct folio *f)
{
	uint64_t v = 0;

	u64map_get(&m->folios.mapcount, folio_pfn(m, f), &v);
	return (int)(uint32_t)v;
}

/* The side map's growth is bookkeeping: charged (u64map_charge_to), never refused. */
static void mapcount_map_set(struct ptsim_machine *m, uint64_t pfn, int v)
{
	bool existed;

	if (u64map_set(&m->folios.mapcount, pfn, (uint32_t)v, &existed)) {
		/* the host has no memory left for one entry: no count can be kept */
		fprintf(stderr, "libptsim: out of host memory for a folio's mapcount\n");
		abort();
	}
}

/*
 * An order-0 folio's mapcount outside the record's range: kept in the side
 * map while it is; back in the record (the entry deleted, its table kept)
 * once it fits again.
 */
void folio_mapcount_set_wide(struct ptsim_machine *m, struct folio *f, int v)
{
	uint64_t pfn = folio_pfn(m, f);

	if (v >= 0 && v <= (int)FOLIO_MAPCOUNT_INLINE_MAX) {
		u64map_del(&m->folios.mapcount, pfn);
		f->mapcount_small = (unsigned int)v & 31u;
		return;
	}
	mapcount_map_set(m, pfn, v);
	f->mapcount_small = FOLIO_MAPCOUNT_WIDE;
}

int folio_mapcount_add_wide(struct ptsim_machine *m, struct folio *f, int delta)
{
	int v = (int)((uint32_t)folio_mapcount(m, f) + (uint32_t)delta);

	folio_mapcount_set_wide(m, f, v);
	return v;
}

bool folio_mapcount_add_in_place(struct ptsim_machine *m, struct folio *f, int delta)
{
	const int n = (int)FOLIO_MAPCOUNT_INLINE_MAX + 1;
	int v;

	if (f->order || f->mapcount_small == FOLIO_MAPCOUNT_WIDE) {
		uint64_t pfn = folio_pfn(m, f), old = 0;
		bool existed;

		if (f->order) {
			f[1].mapping += (uint32_t)delta;
			return false;
		}
		u64map_get(&m->folios.mapcount, pfn, &old);
		/* the key exists: updated in place, never grown */
		u64map_set(&m->folios.mapcount, pfn, (uint32_t)old + (uint32_t)delta, &existed);
		return false;
	}
	v = (int)f->mapcount_small + delta;
	f->mapcount_small = (unsigned int)((v % n + n) % n) & 31u;
	return v < 0;
}

int folio_alloc(struct ptsim_machine *m, unsigned int order, unsigned int flags,
		struct folio **out)
{
	struct folio_store *fs = &m->folios;
	uint64_t pfn, rel, nr = UINT64_C(1) << order;
	struct undo_entry e = { .kind = UNDO_FOLIO };
	struct folio *f;
	int err;

	if (alloc_should_fail(m))
		return -ENOMEM;
	err = rmqueue(m, order, &pfn);
	if (err)
		return err;
	rel = pfn - fs->base_pfn;
	f = &fs->map[rel];
	e.ptr = f;
	if (chunks_to_charge(fs, rel, nr) * fs->chunk_records * sizeof(struct folio) > host_room(m) ||
	    undo_record(m, &e)) {
		rmqueue_undo(m, pfn, order);
		return -ENOMEM;
	}
	chunks_account(m, rel, nr, +1);
	*f = (struct folio){ .order = order, .flags = flags, .live = 1,
			     .mapcount_small = order ? FOLIO_MAPCOUNT_WIDE : 0 };
	for (uint64_t i = 1; i < nr; i++)
		f[i] = (struct folio){ .index = i, .live = 1, .tail = 1 };
	fs->nr_folios++;
	__alloc_pages(m, pfn, order);
	*out = f;
	return 0;
}

void folio_free(struct ptsim_machine *m, struct folio *f)
{
	struct folio_store *fs = &m->folios;
	uint64_t pfn = folio_pfn(m, f), nr = folio_nr_pages(f);
	unsigned int order = f->order;
	bool alone = !m->free_batched, destroyed = false;

	/*
	 * before v6.9 ("large_folio_batch_free") a large folio that lost its
	 * last reference in a batch is freed alone: destroy_large_folio, its
	 * own mem_cgroup_uncharge (release_pages' __folio_put_large, or
	 * shrink_folio_list's free_it)
	 */
	if (order && !alone && !feature(m, PTSIM_FEAT_LARGE_FOLIO_BATCH_FREE)) {
		kernel_call(m, DESTROY_LARGE_FOLIO);
		alone = destroyed = true;
	}

	if (f->contended)
		u64map_del(&fs->lock_contention, pfn);
	if (f->gup_refs)
		u64map_del(&fs->gup, pfn);
	if (fs->zero_filled.len)
		u64map_del(&fs->zero_filled, pfn);
	if (!order && f->mapcount_small == FOLIO_MAPCOUNT_WIDE)
		folio_mapcount_set_wide(m, f, 0);
	/*
	 * a queued large folio leaves the deferred split queue as it is freed
	 * (folio_undo_large_rmappable, v6.12 folio_unqueue_deferred_split,
	 * after an inline list_empty test): a call and the queue's spinlock
	 */
	if (f->flags & FOLIO_DEFERRED_SPLIT) {
		kernel_call(m, FOLIO_UNDO_LARGE_RMAPPABLE);
		split_queue_lock(m);
	}
	/*
	 * an anonymous folio was charged to the memcg when it was made
	 * (mem_cgroup_charge): uncharge_folio here; a folio freed alone pays
	 * __folio_put's mem_cgroup_uncharge, one of a folio_batch shares the
	 * batch's uncharge_batch (mem_cgroup_uncharge_folios)
	 */
	if (f->flags & FOLIO_ANON) {
		if (alone)
			kernel_call(m, MEM_CGROUP_UNCHARGE);
		uncharge_folio(m);
		if (alone)
			uncharge_batch(m);
	}
	memset(f, 0, nr * sizeof(*f));
	free_the_page(m, pfn, order);
	fs->nr_folios--;
	free_folio_pages(m, pfn, order, alone, destroyed);
	chunks_account(m, pfn - fs->base_pfn, nr, -1);
}

/*
 * __folio_put (v6.12 mm/swap.c) of a folio whose last reference a caller
 * outside a batch dropped: the call, then page_cache_release, which tests
 * PG_lru and, for a folio on the LRU, takes it off under the lruvec lock it
 * takes for itself (folio_lruvec_relock_irqsave, then the unlock); the
 * deferred split queue, mem_cgroup_uncharge and free_unref_page are
 * folio_free's. A batch (zap's gather, reclaim) counts its own.
 */
static void __folio_put(struct ptsim_machine *m, struct folio *f, bool added)
{
	uint64_t pfn = folio_pfn(m, f);

	kernel_call(m, FOLIO_PUT_SLOW);
	if (!added)
		prim_count(m, PRIM_FOLIO_TEST_LRU_STATE, 1);	/* PG_lru: never set */
	if (added && folio_test_lru(m, pfn)) {
		kernel_call(m, FOLIO_LRUVEC_LOCK);
		page_cache_release_lru(m, 1);
	}
	folio_free(m, f);
}

/*
 * folio_put for the reference a mapping held: the folio is freed when no
 * reference is left. A FOLL_PIN pin and a FOLL_GET reference each hold one
 * (try_grab_folio), so such a folio stays allocated, unmapped, until
 * unpin_user_page or put_page drops the last of them.
 */
void folio_put(struct ptsim_machine *m, struct folio *f)
{
	if (f->gup_refs)
		return;
	if (m->free_batched)
		folio_free(m, f);
	else
		__folio_put(m, f, true);
}

void folio_put_new(struct ptsim_machine *m, struct folio *f)
{
	__folio_put(m, f, false);
}

void folio_gup_counts(const struct ptsim_machine *m, const struct folio *f, uint32_t *pins,
		      uint32_t *gets)
{
	uint64_t v = 0;

	if (f->gup_refs)
		u64map_get(&m->folios.gup, folio_pfn(m, f), &v);
	*pins = (uint32_t)(v >> 32);
	*gets = (uint32_t)v;
}

int folio_gup_set(struct ptsim_machine *m, struct folio *f, uint32_t pins, uint32_t gets)
{
	uint64_t pfn = folio_pfn(m, f);
	bool existed;

	if (!pins && !gets) {
		if (f->gup_refs)
			u64map_del(&m->folios.gup, pfn);
	} else if (u64map_set(&m->folios.gup, pfn, (uint64_t)pins << 32 | gets, &existed)) {
		return -ENOMEM;
	}
	f->gup_refs = pins || gets;
	f->pinned = pins > 0;	/* folio_maybe_dma_pinned */
	return 0;
}

/*
 * folio_ref_count as the kernel keeps it: a reference per page mapping (PTE
 * or PMD), the page cache's one per page of a file or shmem folio, one per
 * FOLL_GET reference, and per FOLL_PIN pin GUP_PIN_COUNTING_BIAS on a small
 * folio or one on a large folio, whose pins are counted in _pincount
 * (v6.12 try_grab_folio). References the model does not keep (the swap
 * cache, LRU batches, a caller's transient folio_get) are not in it.
 */
uint64_t folio_ref_count(const struct ptsim_machine *m, const struct folio *f)
{
	uint32_t pins, gets;
	int mapcount = folio_mapcount(m, f);
	uint64_t refs = (uint64_t)(mapcount > 0 ? mapcount : 0);

	if (!(f->flags & FOLIO_ANON) && f->mapping)
		refs += folio_nr_pages(f);	/* __filemap_add_folio: the page cache's */

	folio_gup_counts(m, f, &pins, &gets);
	return refs + gets + (uint64_t)pins * (f->order ? 1 : GUP_PIN_COUNTING_BIAS);
}

bool folio_page_anon_exclusive(const struct folio *f, uint64_t idx)
{
	return f[idx].anon_exclusive;
}

void folio_set_page_anon_exclusive(struct folio *f, uint64_t idx, bool excl)
{
	f[idx].anon_exclusive = excl;
}

/*
 * The split itself, on the records: every tail becomes an order-0 folio with
 * the head's state, its own index and its own exclusivity; mapcounts are the
 * caller's.
 */
void folio_split_records_to_order(struct ptsim_machine *m, struct folio *f, unsigned int new_order)
{
	uint64_t nr = folio_nr_pages(f), step = UINT64_C(1) << new_order;

	/* a split moves no data: the new folios of a zero-filled one hold zeros too */
	if (folio_zero_filled(m, f))
		for (uint64_t i = step; i < nr; i += step)
			folio_mark_zero_filled(m, &f[i]);

	for (uint64_t i = 1; i < nr; i++) {
		struct folio *p = &f[i];

		if (i % step) {
			/* a tail of the new folio: pages back to its head */
			*p = (struct folio){ .index = i % step, .live = 1, .tail = 1,
					     .anon_exclusive = p->anon_exclusive };
			continue;
		}
		*p = (struct folio){
			.index = f->index + i, .order = new_order,
			.flags = f->flags & ~(FOLIO_LOCKED | FOLIO_DEFERRED_SPLIT), .live = 1,
			.anon_exclusive = p->anon_exclusive, .mapping = f->mapping,
			.mapcount_small = new_order ? FOLIO_MAPCOUNT_WIDE : 0,
		};
	}
	f->order = new_order;
	if (!new_order)
		f->mapcount_small = 0;	/* the caller sets every new folio's mapcount */
	f->flags &= ~FOLIO_DEFERRED_SPLIT;	/* the split takes it off the queue */
	m->folios.nr_folios += nr / step - 1;
}

void folio_split_records(struct ptsim_machine *m, struct folio *f)
{
	folio_split_records_to_order(m, f, 0);
}

/* The next `attempts` trylocks of f fail (another holder); 0 clears it. */
int folio_set_lock_contention(struct ptsim_machine *m, struct folio *f, unsigned int attempts)
{
	uint64_t pfn = folio_pfn(m, f);
	bool existed;

	if (!attempts) {
		if (f->contended)
			u64map_del(&m->folios.lock_contention, pfn);
		f->contended = 0;
		return 0;
	}
	if (u64map_set(&m->folios.lock_contention, pfn, attempts, &existed))
		return -ENOMEM;
	f->contended = 1;
	return 0;
}

/* A trylock meets the contention: true when it fails, using up one of the failing attempts. */
bool folio_lock_contended(struct ptsim_machine *m, struct folio *f)
{
	uint64_t pfn = folio_pfn(m, f), left = 0;
	bool existed;

	if (!f->contended || !u64map_get(&m->folios.lock_contention, pfn, &left))
		return false;
	if (left > 1)
		u64map_set(&m->folios.lock_contention, pfn, left - 1, &existed);	/* in place */
	else
		folio_set_lock_contention(m, f, 0);
	return true;
}

/* The folio mapped at va, and the page's index inside it. */
static struct folio *folio_at(const struct ptsim_mm *mm, uint64_t va, uint64_t *idx)
{
	struct ptsim_translation tr;
	uint64_t pfn;
	struct folio *f;

	if (ptsim_translate(mm, va, &tr))
		return NULL;
	pfn = tr.pa >> mm->m->geo.page_shift;
	f = pfn_folio(mm->m, pfn);
	if (f && idx)
		*idx = pfn - folio_pfn(mm->m, f);
	return f;
}

/*
 * A state setter, not get_user_pages: with pinned, the folio holds at least
 * one FOLL_PIN pin (one is added when it has none, as try_grab_folio adds
 * it: a reference, and folio_maybe_dma_pinned from then on), taken without
 * GUP's walk, fault or unshare and counting nothing; without, every pin it
 * holds is dropped (gup_put_folio for each). The folio is mapped at va, so
 * releasing leaves it mapped and allocated. ptsim_pin_user_pages is the
 * kernel's path.
 */
int ptsim_folio_set_pinned(struct ptsim_mm *mm, uint64_t va, bool pinned)
{
	uint32_t pins, gets;
	struct folio *f;

	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	f = folio_at(mm, va, NULL);
	if (!f)
		return -ENOENT;
	folio_gup_counts(mm->m, f, &pins, &gets);
	if (pinned == (pins > 0))
		return 0;
	return folio_gup_set(mm->m, f, pinned ? 1 : 0, gets);
}

/*
 * Drop one FOLL_PIN pin (unpin_user_page) or one FOLL_GET reference
 * (put_page) of the folio holding pa: gup_put_folio / folio_put drop the
 * reference, and an anonymous folio nobody maps any more is freed (a file
 * folio stays in the page cache).
 */
static int gup_put(struct ptsim_machine *m, uint64_t pa, bool pin)
{
	uint32_t pins, gets;
	struct folio *f;

	VALIDATE(m);
	REFUSE_IN_HANDLER(m);
	f = pfn_folio(m, pa >> m->geo.page_shift);
	if (!f && !pin && m->zero_pfn && pa >> m->geo.page_shift == m->zero_pfn) {
		/* put_page of the zero page: one FOLL_GET reference fewer, nothing freed */
		if (!m->zero_page_gets)
			return -EINVAL;
		op_begin(m);
		m->zero_page_gets--;
		op_end(m, 0);
		return 0;
	}
	if (!f)
		return -ENOENT;
	folio_gup_counts(m, f, &pins, &gets);
	if (!(pin ? pins : gets))
		return -EINVAL;
	op_begin(m);
	/* lowering a count only deletes or rewrites the entry in place: it cannot fail */
	folio_gup_set(m, f, pins - pin, gets - !pin);
	if (!f->gup_refs && !folio_mapcount(m, f) && (f->flags & FOLIO_ANON))
		folio_put(m, f);
	op_end(m, 0);
	return 0;
}

int ptsim_unpin_user_page(struct ptsim_machine *m, uint64_t pa)
{
	return gup_put(m, pa, true);
}

int ptsim_put_page(struct ptsim_machine *m, uint64_t pa)
{
	return gup_put(m, pa, false);
}

int ptsim_folio_set_exclusive(struct ptsim_mm *mm, uint64_t va, bool exclusive)
{
	uint64_t idx = 0;
	struct folio *f;

	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	f = folio_at(mm, va, &idx);
	if (!f)
		return -ENOENT;
	folio_set_page_anon_exclusive(f, idx, exclusive);
	return 0;
}

int ptsim_folio_contend_lock(struct ptsim_mm *mm, uint64_t va, unsigned int attempts)
{
	struct folio *f;

	VALIDATE(mm && !mm->kernel && attempts <= PTSIM_MAX_LOCK_CONTENTION);
	REFUSE_IN_HANDLER(mm->m);
	f = folio_at(mm, va, NULL);
	if (!f)
		return -ENOENT;
	return folio_set_lock_contention(mm->m, f, attempts);
}
