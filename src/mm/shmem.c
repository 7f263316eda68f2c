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
#include "primitives.h"

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
		int err = file_table_add(m, &i);

		if (err)
			return err;
	}
	n = &m->files[i];
	memset(n, 0, sizeof(*n));
	n->size = size;	/* shmem_kernel_file_setup("dev/zero", size) */
	n->shmem = true;
	u64map_init(&n->cache);
	u64map_charge_to(&n->cache, &m->host_bytes);
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
		if (folio_mapcount(m, fo))
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

/* A cache slot shmem_reserve holds for a folio not yet in it: no PFN (pfn_folio is NULL). */
#define SHMEM_SLOT_RESERVED UINT64_MAX

/*
 * What can fail in shmem_get_folio_gfp(SGP_CACHE), done before the fault
 * changes anything (before fault-around maps a page): past i_size is SIGBUS
 * (the object does not grow with an mremap); a page the object does not hold
 * gets its cache slot and an order-0 folio now (shmem_alloc_and_add_folio:
 * shmem_enabled "never" allows no larger one), in *spare; NULL when the
 * page is cached. The folio is recorded for undo, and the slot reads as a
 * miss until shmem_get_folio fills it.
 */
enum fault_result shmem_reserve(struct ptsim_mm *mm, const struct vma *v, uint64_t pgoff,
				struct folio **spare)
{
	struct ptsim_machine *m = mm->m;
	struct file_obj *f = &m->files[v->shmem - 1];

	*spare = NULL;
	if (pgoff >= (f->size + m->geo.page_size - 1) >> m->geo.page_shift)
		return FAULT_SIGBUS;
	if (u64map_get(&f->cache, pgoff, NULL))
		return FAULT_DONE;
	if (u64map_put(&f->cache, pgoff, SHMEM_SLOT_RESERVED))
		return FAULT_OOM;
	if (folio_alloc(m, 0, 0, spare)) {
		u64map_del(&f->cache, pgoff);
		return FAULT_OOM;
	}
	return FAULT_DONE;
}

/*
 * shmem_alloc_and_add_folio (v6.12 mm/shmem.c, out of line) for the order-0
 * folio f made at pgoff (its allocation is shmem_reserve's): charged to the
 * memcg, put in the page cache by shmem_add_to_page_cache (a reference, the
 * slot checked with xas_find_conflict and stored with xas_store under the
 * mapping's lock, NR_FILE_PAGES and NR_SHMEM), the inode's blocks and
 * counts updated, and the folio onto the LRU (folio_add_lru).
 */
static void shmem_alloc_and_add_folio(struct ptsim_machine *m, struct folio *f)
{
	kernel_call(m, SHMEM_ALLOC_AND_ADD_FOLIO);
	mem_cgroup_charge(m, 1);
	kernel_call(m, SHMEM_ADD_TO_PAGE_CACHE);
	folio_ref_add(m, f);
	kernel_call(m, XAS_FIND_CONFLICT);
	xas_store(m, 1);
	__lruvec_stat_mod_folio(m);	/* shmem_update_stats: NR_FILE_PAGES */
	__lruvec_stat_mod_folio(m);	/* and NR_SHMEM */
	kernel_call(m, SHMEM_INODE_ACCT_BLOCKS);
	kernel_call(m, SHMEM_RECALC_INODE);
	folio_add_lru(m, folio_pfn(m, f), false);
}

/*
 * shmem_get_folio_gfp(SGP_CACHE) after shmem_reserve: the page-cache lookup
 * (filemap_get_entry); a hit is referenced (its folio_try_get), locked
 * (folio_lock: a trylock, a wait when held) and tested uptodate; on a miss
 * the spare folio, locked as it is made (__folio_set_locked, a plain
 * store), is added at pgoff and cleared (clear_highpage,
 * folio_mark_uptodate). Either way the folio comes back locked, for the
 * fault to unlock. Cannot fail.
 */
struct folio *shmem_get_folio(struct ptsim_mm *mm, const struct vma *v, uint64_t pgoff,
			      struct folio *spare)
{
	struct ptsim_machine *m = mm->m;
	unsigned int file = v->shmem - 1;
	struct folio *fo = filemap_lookup(m, file, pgoff);
	bool existed;

	if (fo) {
		filemap_get_folio_locked(m, fo);
		folio_test_uptodate(m, fo);
		return fo;
	}
	if (!spare)
		return NULL;
	spare->flags |= FOLIO_LOCKED;	/* __folio_set_locked */
	spare->mapping = FILE_MAPPING(file);
	spare->index = pgoff;
	u64map_set(&m->files[file].cache, pgoff, folio_pfn(m, spare), &existed);	/* in place */
	shmem_alloc_and_add_folio(m, spare);
	folio_zero_user(m, 1);
	kernel_call(m, FLUSH_DCACHE_FOLIO);
	__folio_mark_uptodate(m, spare);	/* folio_mark_uptodate */
	return spare;
}

void shmem_uncache(struct ptsim_machine *m, const struct vma *v, uint64_t pgoff)
{
	u64map_del(&m->files[v->shmem - 1].cache, pgoff);
}
