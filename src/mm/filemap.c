// SPDX-License-Identifier: MIT
/*
 * Files, the page cache and the file fault path (models mm/filemap.c:
 * filemap_fault, do_sync_mmap_readahead, do_async_mmap_readahead,
 * filemap_map_pages; see doc/exec-folios.md).
 */
#include "filemap.h"
#include "asm/pgtable.h"
#include "primitives.h"

#include <stdlib.h>
#include <string.h>

#define MMAP_LOTSAMISS	100
#define VM_READAHEAD_BYTES (128 * 1024)

int file_table_add(struct ptsim_machine *m, size_t *out)
{
	struct file_obj *n;

	if (m->nr_files >= ANON_VMA_MAX)
		return -ENOMEM;	/* file numbers fit folio->mapping */
	n = realloc(m->files, (m->nr_files + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	m->files = n;
	m->host_bytes += sizeof(*n);	/* bookkeeping: charged, never refused */
	memset(&n[m->nr_files], 0, sizeof(*n));
	u64map_init(&n[m->nr_files].cache);
	u64map_charge_to(&n[m->nr_files].cache, &m->host_bytes);
	*out = m->nr_files++;
	return 0;
}

int ptsim_file_create(struct ptsim_machine *m, uint64_t size, unsigned int max_order,
		      unsigned int *file)
{
	size_t i;
	int err;

	VALIDATE(m && file && size && size < (UINT64_C(1) << 48));
	REFUSE_IN_HANDLER(m);
	/* MAX_PAGECACHE_ORDER = min(MAX_XAS_ORDER 11, HPAGE_PMD_ORDER) */
	VALIDATE(max_order <= MIN(11u, m->geo.pmd_order));
	err = file_table_add(m, &i);
	if (err)
		return err;
	m->files[i].size = size;
	m->files[i].max_order = max_order;
	*file = (unsigned int)i;
	return 0;
}

int ptsim_file_open(struct ptsim_machine *m, unsigned int file, unsigned int *fd)
{
	struct open_file *n;

	VALIDATE(m && fd && file < m->nr_files && !m->files[file].shmem);
	REFUSE_IN_HANDLER(m);
	n = realloc(m->opens, (m->nr_opens + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	m->opens = n;
	m->host_bytes += sizeof(*n);
	memset(&n[m->nr_opens], 0, sizeof(*n));
	n[m->nr_opens].file = file;
	/* VM_READAHEAD_PAGES: 32 / 8 / 2 pages */
	n[m->nr_opens].ra.ra_pages = (unsigned int)(VM_READAHEAD_BYTES >> m->geo.page_shift);
	*fd = (unsigned int)m->nr_opens++;
	return 0;
}

int ptsim_file_ra(const struct ptsim_machine *m, unsigned int fd, struct ptsim_ra_state *out)
{
	const struct file_ra_state *ra;

	VALIDATE(m && out && fd < m->nr_opens);
	memset(out, 0, sizeof(*out));
	ra = &m->opens[fd].ra;
	out->start = ra->start;
	out->size = ra->size;
	out->async_size = ra->async_size;
	out->ra_pages = ra->ra_pages;
	out->order = ra->order;
	out->mmap_miss = ra->mmap_miss;
	return 0;
}

struct folio *filemap_lookup(struct ptsim_machine *m, unsigned int file, uint64_t index)
{
	uint64_t pfn;

	filemap_get_entry(m, file, index);
	if (!u64map_get(&m->files[file].cache, index, &pfn))
		return NULL;
	return pfn_folio(m, pfn);
}

int ptsim_file_cached(const struct ptsim_machine *m, unsigned int file, uint64_t index,
		      unsigned int *order)
{
	uint64_t pfn;
	const struct folio *f;

	VALIDATE(m && order && file < m->nr_files && !m->files[file].shmem);
	if (!u64map_get(&m->files[file].cache, index, &pfn) || !(f = pfn_folio(m, pfn)))
		return -ENOENT;
	*order = f->order;
	return 0;
}

int files_copy(struct ptsim_machine *dst, const struct ptsim_machine *src)
{
	dst->files = NULL;
	dst->opens = NULL;
	dst->nr_files = dst->nr_opens = 0;
	if (src->nr_files) {
		dst->files = calloc(src->nr_files, sizeof(*dst->files));
		if (!dst->files)
			return -ENOMEM;
		for (size_t i = 0; i < src->nr_files; i++) {
			dst->files[i] = src->files[i];
			if (u64map_copy(&dst->files[i].cache, &src->files[i].cache)) {
				dst->nr_files = i;
				return -ENOMEM;
			}
			u64map_charge_to(&dst->files[i].cache, &dst->host_bytes);
		}
		dst->nr_files = src->nr_files;
	}
	if (src->nr_opens) {
		dst->opens = malloc(src->nr_opens * sizeof(*dst->opens));
		if (!dst->opens)
			return -ENOMEM;
		memcpy(dst->opens, src->opens, src->nr_opens * sizeof(*dst->opens));
		dst->nr_opens = src->nr_opens;
	}
	return 0;
}

void files_free(struct ptsim_machine *m)
{
	for (size_t i = 0; i < m->nr_files; i++)
		u64map_free(&m->files[i].cache);
	free(m->files);
	free(m->opens);
	m->files = NULL;
	m->opens = NULL;
	m->nr_files = m->nr_opens = 0;
}

/* exec_folio_order(): 64K before the series (4 / 2 / 0), ilog2(CONT_PTES) with patch 1. */
unsigned int exec_folio_order(const struct ptsim_machine *m)
{
	const struct ptsim_geometry *g = &m->geo;

	if (feature(m, PTSIM_FEAT_EXEC_CONTPTE_ORDER))
		return (unsigned int)__builtin_ctz(g->cont_ptes);
	return 16 - g->page_shift;
}

/* fault_around_pages: fault_around_bytes (64K) / PAGE_SIZE, at least 1. */
unsigned int fault_around_pages(const struct ptsim_geometry *g)
{
	return MAX(1u, (unsigned int)(65536 >> g->page_shift));
}

static bool mmap_miss_applies(const struct ptsim_machine *m, const struct vma *v)
{
	/* patch 2 (v1): exec faults neither increment nor are throttled */
	return !(v->flags & VM_SEQ_READ) &&
	       !((v->flags & VM_EXEC) && feature(m, PTSIM_FEAT_EXEC_MMAP_MISS_BYPASS));
}

/* do_sync_mmap_readahead */
static void do_sync_mmap_readahead(struct ptsim_mm *mm, struct vma *v, uint64_t pgoff)
{
	struct ptsim_machine *m = mm->m;
	struct open_file *of = &m->opens[v->fd];
	struct file_ra_state *ra = &of->ra;
	const struct ptsim_geometry *g = &m->geo;
	uint64_t vma_start = v->pgoff, vma_end = v->pgoff + ((v->end - v->start) >> g->page_shift);
	/* force_thp_readahead: never on 64K, where HPAGE_PMD_ORDER exceeds MAX_PAGECACHE_ORDER (11) */
	bool force = (v->flags & VM_HUGEPAGE) && g->pmd_order <= 11;

	if (!force) {
		if ((v->flags & VM_RAND_READ) && !(v->flags & VM_EXEC))
			return;
		if (!ra->ra_pages)
			return;
		if (v->flags & VM_SEQ_READ) {
			ra->start = pgoff;
			ra->size = ra->ra_pages;
			ra->async_size = ra->ra_pages / 4;
			ra->order = 0;
			page_cache_ra_order(m, of->file, ra);
			return;
		}
	}
	if (mmap_miss_applies(m, v)) {
		if (ra->mmap_miss < MMAP_LOTSAMISS * 10)
			ra->mmap_miss++;
		if (ra->mmap_miss > MMAP_LOTSAMISS)
			return;	/* throttled: the fault reads one folio itself */
	}
	if (force) {
		uint64_t nr = UINT64_C(1) << g->pmd_order;

		ra->start = ALIGN_DOWN64(pgoff, nr);
		ra->size = (v->flags & VM_RAND_READ) ? nr : 2 * nr;
		ra->async_size = nr;
		ra->order = g->pmd_order;
	} else if (v->flags & VM_EXEC) {
		unsigned int o = exec_folio_order(m);
		uint64_t n = UINT64_C(1) << o;

		ra->start = MAX(ALIGN_DOWN64(pgoff, n), vma_start);
		ra->size = MIN(ALIGN_UP64(ra->start + ra->ra_pages, n), vma_end) - ra->start;
		ra->async_size = 0;
		ra->order = o;
	} else {
		/* read-around */
		ra->start = pgoff > ra->ra_pages / 2 ? pgoff - ra->ra_pages / 2 : 0;
		ra->size = ra->ra_pages;
		ra->async_size = ra->ra_pages / 4;
		ra->order = 0;
	}
	page_cache_ra_order(m, of->file, ra);
}

/* The mmap_miss decrement of a cache hit (do_async_mmap_readahead, filemap_map_pages). */
static void mmap_miss_decrement(struct ptsim_machine *m, struct file_ra_state *ra, uint64_t by,
				bool readahead_hit)
{
	if (feature(m, PTSIM_FEAT_MMAP_MISS_RA_HITS_ONLY) && !readahead_hit)
		return;
	ra->mmap_miss = ra->mmap_miss > by ? ra->mmap_miss - (unsigned int)by : 0;
}

/* do_async_mmap_readahead */
static void do_async_mmap_readahead(struct ptsim_mm *mm, struct vma *v, struct folio *f,
				    uint64_t pgoff)
{
	struct ptsim_machine *m = mm->m;
	struct open_file *of = &m->opens[v->fd];
	struct file_ra_state *ra = &of->ra;

	if ((v->flags & VM_RAND_READ) || !ra->ra_pages)
		return;
	mmap_miss_decrement(m, ra, 1, f->flags & FOLIO_READAHEAD);
	if (f->flags & FOLIO_READAHEAD) {
		/* page_cache_async_ra: the next window, order ramped by 2 */
		f->flags &= ~FOLIO_READAHEAD;
		ra->start = pgoff + 1 > ra->start + ra->size ? pgoff + 1 : ra->start + ra->size;
		ra->size = ra->ra_pages;
		ra->async_size = ra->ra_pages;
		ra->order += 2;
		page_cache_ra_order(m, of->file, ra);
	}
}

/*
 * filemap_fault: a first-try hit runs the async readahead (and its mmap_miss
 * decrement); a miss runs the sync readahead, reads the folio and returns
 * VM_FAULT_RETRY, and the retried fault (FAULT_FLAG_TRIED) finds it. A hit
 * returns the folio referenced (filemap_get_entry's folio_try_get), locked
 * (lock_folio_maybe_drop_mmap: a trylock, or a wait when it is held) and
 * tested uptodate under the lock (VM_FAULT_LOCKED): the caller unlocks it.
 */
enum fault_result filemap_fault(struct ptsim_mm *mm, struct vma *v, uint64_t pgoff, bool tried,
				struct folio **out)
{
	struct ptsim_machine *m = mm->m;
	struct open_file *of = &m->opens[v->fd];
	struct file_obj *f = &m->files[of->file];
	struct folio *fo;

	if (pgoff >= (f->size + m->geo.page_size - 1) >> m->geo.page_shift)
		return FAULT_SIGBUS;
	fo = filemap_lookup(m, of->file, pgoff);
	if (fo) {
		if (!tried)
			do_async_mmap_readahead(mm, v, fo, pgoff);
		filemap_get_folio_locked(m, fo);
		folio_test_uptodate(m, fo);
		*out = fo;
		return FAULT_DONE;
	}
	count_vm_event_pgmajfault(m);
	do_sync_mmap_readahead(mm, v, pgoff);
	if (!filemap_lookup(m, of->file, pgoff)) {
		/* __filemap_get_folio(FGP_CREAT): a min-order folio, read on its own */
		struct file_ra_state one = { .start = pgoff, .size = 1 };

		page_cache_ra_order(m, of->file, &one);
		if (!filemap_lookup(m, of->file, pgoff))
			return FAULT_OOM;
	}
	/* the folio lock was dropped for the I/O (fpin): VM_FAULT_RETRY */
	return FAULT_RETRY;
}

bool folio_maps_whole(const struct ptsim_mm *mm, const struct vma *v, const struct folio *fo)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	const struct file_obj *f = &mm->m->files[vma_file_nr(mm->m, v)];
	uint64_t nr = folio_nr_pages(fo), start;

	if (fo->index < v->pgoff || fo->index + nr > v->pgoff + ((v->end - v->start) >> g->page_shift))
		return false;	/* folio_within_vma */
	if (fo->index + nr > (f->size + g->page_size - 1) >> g->page_shift)
		return false;	/* past i_size: never mapped whole */
	start = v->start + ((fo->index - v->pgoff) << g->page_shift);
	return ALIGN_DOWN64(start, g->pmd_size) ==
	       ALIGN_DOWN64(start + (nr << g->page_shift) - 1, g->pmd_size);
}

/*
 * next_uptodate_folio (v6.12 mm/filemap.c) for the cached folio fo the walk
 * found: a locked folio is passed over at its first test; else a reference
 * is taken (folio_try_get), and given back for a folio not uptodate or under
 * readahead, or one whose lock is refused; else the folio is locked and
 * tested uptodate again. True: fo is to be mapped, locked and referenced.
 */
static bool next_uptodate_folio(struct ptsim_machine *m, struct folio *fo)
{
	if (folio_test_locked(m, fo))
		return false;
	folio_try_get(m, fo);
	if (!folio_test_uptodate(m, fo) || folio_test_readahead(m, fo) || !folio_trylock(m, fo)) {
		folio_put_ref(m, fo);
		return false;
	}
	folio_test_uptodate(m, fo);	/* under the lock */
	return true;
}

/*
 * filemap_map_pages: map every uptodate, unlocked, non-PG_readahead cached page
 * of [start_pgoff, end_pgoff] whose PTE is none, one set_ptes per run of one
 * folio; the examined non-workingset pages are subtracted from mmap_miss.
 * With "faultaround_whole_folio" (v6.18) a large folio that lies inside the
 * VMA and one PTE table is mapped whole, beyond the window. A shmem
 * object's file has an mmap_miss too, but no shmem fault reads it: the
 * model keeps none. The walk visits each cached folio once (xas_next_entry
 * passes a large folio's other slots by); each one mapped is unlocked and
 * its reference dropped after its pages.
 */
void filemap_map_pages(struct ptsim_mm *mm, struct vma *v, uint64_t addr, pte_t *ptep,
		       uint64_t start_pgoff, uint64_t end_pgoff)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	unsigned int file = vma_file_nr(m, v);
	uint64_t examined = 0, rss = 0;

	for (uint64_t pg = start_pgoff; pg <= end_pgoff;) {
		struct folio *fo = filemap_lookup(m, file, pg);
		uint64_t run = 0, first;

		if (!fo) {
			pg++;
			continue;
		}
		if (!next_uptodate_folio(m, fo)) {
			pg = fo->index + folio_nr_pages(fo);
			continue;
		}
		/* the pages of this folio inside the window, or all of them */
		uint64_t fend = MIN(fo->index + folio_nr_pages(fo) - 1, end_pgoff);

		if (fo->order && feature(m, PTSIM_FEAT_FAULTAROUND_WHOLE_FOLIO) &&
		    folio_maps_whole(mm, v, fo)) {
			pg = fo->index;
			fend = fo->index + folio_nr_pages(fo) - 1;
		}
		first = pg;

		for (; pg <= fend; pg++) {
			pte_t *p = ptep + (int64_t)(pg - start_pgoff);	/* may precede the window */
			bool none;

			/* filemap_map_folio_range: the page's tests, then ptep_get of its PTE */
			filemap_map_folio_range(m);
			none = pte_none(ptep_get(mm, p));

			if (!(fo->flags & FOLIO_WORKINGSET))
				examined++;
			if (none) {
				if (!run)
					first = pg;
				run++;
				/* v6.12 maps an order-0 folio without the loop (filemap_map_order0_folio) */
				if (fo->order)
					count_loop_path(m, PTSIM_LOOP_FILEMAP_MAP_FOLIO_RANGE_BATCH);
			}
			if ((!none || pg == fend) && run) {
				uint64_t ra = addr + ((first - start_pgoff) << g->page_shift);
				pte_t pte = pfn_pte(g, folio_pfn(mm->m, fo) + (first - fo->index), v->page_prot);

				set_ptes(mm, ra, ptep + (int64_t)(first - start_pgoff), pte_mkyoung(pte),
					 (unsigned int)run);
				/* set_pte_range (a call: mm/memory.c), then folio_ref_add */
				kernel_call(m, SET_PTE_RANGE);
				folio_ref_add(m, fo);
				rss += run;
				folio_add_file_rmap_ptes(mm, fo, first - fo->index,
							 (unsigned int)run);	/* set_pte_range */
				run = 0;
			}
		}
		folio_unlock(m, fo);
		folio_put_ref(m, fo);
	}
	/* v6.12 adds what it mapped to the mm's file (or shmem) counter once, after the loop */
	if (rss)
		add_mm_counter(mm, v->shmem ? MM_SHMEMPAGES : MM_FILEPAGES);
	if (!v->shmem)
		mmap_miss_decrement(m, &m->opens[v->fd].ra, examined, false);
}
