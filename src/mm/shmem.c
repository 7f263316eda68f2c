// SPDX-License-Identifier: MIT
/*
 * Shared anonymous memory (models mm/shmem.c: shmem_zero_setup,
 * shmem_fault, shmem_get_folio_gfp, shmem_evict_inode). MAP_SHARED |
 * MAP_ANONYMOUS gives the VMA a shmem object of the mapping's size, kept in
 * the machine's file table; every VMA mapping it (in the parent, in forked
 * children, the pieces of a split, the new place of an mremap) holds a
 * reference, and the object and its pages go with the last one. Faults find
 * or allocate an order-0 page in the object's page cache (shmem_enabled is
 * "never" by default: no shmem THP); there is no readahead and no I/O.
 * See doc/mm-lifecycle.md.
 */
#include "filemap.h"

#include <stdlib.h>
#include <string.h>

int shmem_zero_setup(struct ptsim_machine *m, uint64_t size, uint32_t *shmem)
{
	struct file_obj *n;
	size_t i;

	/* a dead object's slot is taken first: the table grows with the live objects only */
	for (i = 0; i < m->nr_files && !m->files[i].dead; i++)
		;
	if (i == m->nr_files) {
		if (m->nr_files >= ANON_VMA_MAX)
			return -ENOMEM;	/* file numbers fit folio->mapping */
		n = realloc(m->files, (m->nr_files + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		m->files = n;
		m->nr_files++;
	}
	n = &m->files[i];
	memset(n, 0, sizeof(*n));
	n->size = size;	/* shmem_kernel_file_setup("dev/zero", size) */
	n->shmem = true;
	u64map_init(&n->cache);
	*shmem = (uint32_t)i + 1;
	return 0;
}

/*
 * shmem_evict_inode -> shmem_truncate_range: every page of the object is
 * freed (nobody maps it any more) and the slot is dead.
 */
void shmem_evict(struct ptsim_machine *m, unsigned int file)
{
	struct file_obj *f = &m->files[file];

	for (size_t i = 0; i < f->cache.cap; i++) {
		struct folio *fo;

		if (!f->cache.keys[i])
			continue;
		fo = pfn_folio(m, f->cache.vals[i]);
		if (!fo || fo->index != f->cache.keys[i] - 1)
			continue;	/* a large folio is freed from its first index */
		if (fo->mapcount)
			diag_report(m, PTSIM_DIAG_INVARIANT, folio_pfn(m, fo), -1, 0, 0,
				    "shmem page still mapped when its object goes");
		folio_free(m, fo);
	}
	u64map_free(&f->cache);
	f->refs = 0;
	f->dead = true;
}

void vma_get_shmem(struct ptsim_machine *m, const struct vma *v)
{
	if (v->shmem)
		m->files[v->shmem - 1].refs++;	/* get_file(vm_file) */
}

void vma_put_shmem(struct ptsim_machine *m, const struct vma *v)
{
	struct file_obj *f;

	if (!v->shmem)
		return;
	f = &m->files[v->shmem - 1];
	if (!f->refs) {
		diag_report(m, PTSIM_DIAG_INVARIANT, v->start, -1, 0, 0,
			    "shmem object put more often than it was taken");
		return;
	}
	if (!--f->refs)	/* fput(vm_file): the last reference */
		shmem_evict(m, v->shmem - 1);
}

bool folio_is_shmem(const struct ptsim_machine *m, const struct folio *f)
{
	return !(f->flags & FOLIO_ANON) && (f->mapping & FILE_MAPPING(0)) &&
	       m->files[f->mapping & ~FILE_MAPPING(0)].shmem;
}

/*
 * shmem_get_folio_gfp(SGP_CACHE) for the fault at pgoff: past i_size is
 * SIGBUS (the object does not grow with an mremap); a page-cache hit is
 * returned; a miss allocates an order-0 folio, adds it to the object's page
 * cache and clears it (clear_highpage, folio_mark_uptodate). The folio is
 * recorded for undo; *added says it is new in the cache, for the caller to
 * take out again when its fault fails later (shmem_uncache).
 */
enum fault_result shmem_get_folio(struct ptsim_mm *mm, const struct vma *v, uint64_t pgoff,
				  struct folio **out, bool *added)
{
	struct ptsim_machine *m = mm->m;
	unsigned int file = v->shmem - 1;
	struct file_obj *f = &m->files[file];
	struct folio *fo;

	*added = false;
	if (pgoff >= (f->size + m->geo.page_size - 1) >> m->geo.page_shift)
		return FAULT_SIGBUS;
	fo = filemap_lookup(m, file, pgoff);	/* filemap_get_entry */
	if (fo) {
		*out = fo;
		return FAULT_DONE;
	}
	/* shmem_alloc_and_add_folio, order 0: shmem_allowable_huge_orders is 0 */
	if (folio_alloc(m, 0, FOLIO_UPTODATE, &fo))
		return FAULT_OOM;
	fo->mapping = FILE_MAPPING(file);
	fo->index = pgoff;
	if (u64map_put(&f->cache, pgoff, folio_pfn(m, fo)))
		return FAULT_OOM;	/* the undo log frees the folio */
	count(m, PTSIM_EV_PAGE_ZERO, 1);
	*added = true;
	*out = fo;
	return FAULT_DONE;
}

void shmem_uncache(struct ptsim_machine *m, const struct folio *fo)
{
	u64map_del(&m->files[fo->mapping & ~FILE_MAPPING(0)].cache, fo->index);
}
