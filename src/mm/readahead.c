// SPDX-License-Identifier: MIT
/*
 * Readahead into the page cache (models mm/readahead.c: page_cache_ra_order,
 * do_page_cache_ra, read_pages; see doc/exec-folios.md).
 */
#include "filemap.h"
#include "primitives.h"

/* ra_alloc_folio: a folio of `order` at index in the cache, PG_readahead on the mark. */
static int ra_alloc_folio(struct ptsim_machine *m, struct file_obj *f, unsigned int file,
			  uint64_t index, unsigned int order, uint64_t mark)
{
	struct folio *fo;
	int err = folio_alloc(m, order, FOLIO_UPTODATE, &fo);

	if (err)
		return err;
	fo->mapping = FILE_MAPPING(file);
	fo->index = index;
	if (index == ALIGN_DOWN64(mark, UINT64_C(1) << order))
		fo->flags |= FOLIO_READAHEAD;
	for (uint64_t i = 0; i < folio_nr_pages(fo); i++) {
		err = u64map_put(&f->cache, index + i, folio_pfn(m, fo));
		if (err) {
			while (i--)
				u64map_del(&f->cache, index + i);
			folio_free(m, fo);
			return err;
		}
	}
	return 0;
}

/* read_pages: one I/O per contiguous run of new folios. */
static void read_pages(struct ptsim_machine *m, uint64_t pages)
{
	if (!pages)
		return;
	submit_bio(m, pages << (m->geo.page_shift - 10));
}

static unsigned int ilog2_u64(uint64_t x)
{
	return 63u - (unsigned int)__builtin_clzll(x);
}

/*
 * page_cache_ra_order: folios of the preferred order, reduced by index
 * alignment and the window's end (EOF). Pages already cached end the run
 * (their I/O is not repeated). Allocation failure stops the large-order loop.
 */
void page_cache_ra_order(struct ptsim_machine *m, unsigned int file, struct file_ra_state *ra)
{
	struct file_obj *f = &m->files[file];
	uint64_t eof = (f->size + m->geo.page_size - 1) >> m->geo.page_shift;
	uint64_t limit, mark, index, run = 0;
	unsigned int new_order;

	if (!ra->size || ra->start >= eof)
		return;
	limit = MIN(eof - 1, ra->start + ra->size - 1);
	mark = ra->start + ra->size - ra->async_size;
	new_order = MIN(MIN(ra->order, f->max_order), ilog2_u64(ra->size));
	ra->order = new_order;
	for (index = ra->start; index <= limit;) {
		unsigned int order = new_order;

		filemap_get_entry(m, file, index);
		if (u64map_get(&f->cache, index, NULL)) {
			read_pages(m, run);
			run = 0;
			index++;
			continue;
		}
		if (index & ((UINT64_C(1) << order) - 1))
			order = (unsigned int)__builtin_ctzll(index);
		while (order && index + (UINT64_C(1) << order) - 1 > limit)
			order--;
		/* a present page inside the folio would collide: shrink until it does not */
		while (order) {
			bool clash = false;

			for (uint64_t i = 1; i < (UINT64_C(1) << order) && !clash; i++)
				clash = u64map_get(&f->cache, index + i, NULL);
			if (!clash)
				break;
			order--;
		}
		if (ra_alloc_folio(m, f, file, index, order, mark))
			break;
		run += UINT64_C(1) << order;
		index += UINT64_C(1) << order;
	}
	read_pages(m, run);
}
