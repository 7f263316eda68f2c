/* SPDX-License-Identifier: MIT */
/* The page cache and the file fault path, shared by filemap.c, readahead.c and memory.c. */
#ifndef PTSIM_FILEMAP_H
#define PTSIM_FILEMAP_H

#include "internal.h"

/* folio->mapping of a page-cache folio: a tag plus the file number. */
#define FILE_MAPPING(file)	((UINT32_C(1) << 31) | (uint32_t)(file))

enum fault_result {
	FAULT_DONE,
	FAULT_RETRY,	/* VM_FAULT_RETRY: the lock was dropped for I/O */
	FAULT_SIGBUS,
	FAULT_OOM,
};

/* The file (or shmem object) a file-backed VMA maps: vm_file's inode. */
static inline unsigned int vma_file_nr(const struct ptsim_machine *m, const struct vma *v)
{
	return v->shmem ? v->shmem - 1 : m->opens[v->fd].file;
}

void page_cache_ra_order(struct ptsim_machine *m, unsigned int file, struct file_ra_state *ra);
struct folio *filemap_lookup(struct ptsim_machine *m, unsigned int file, uint64_t index);
unsigned int exec_folio_order(const struct ptsim_machine *m);
unsigned int fault_around_pages(const struct ptsim_geometry *g);
enum fault_result filemap_fault(struct ptsim_mm *mm, struct vma *v, uint64_t pgoff, bool tried,
				struct folio **out);
/*
 * May a fault map large folio fo of v whole (v6.18)? It must lie inside the
 * VMA and one PTE table, and not past i_size.
 */
bool folio_maps_whole(const struct ptsim_mm *mm, const struct vma *v, const struct folio *fo);
void filemap_map_pages(struct ptsim_mm *mm, struct vma *v, uint64_t addr, pte_t *ptep,
		       uint64_t start_pgoff, uint64_t end_pgoff);
/* A page of a shmem object (shmem.c), not of a user's file. */
bool folio_is_shmem(const struct ptsim_machine *m, const struct folio *f);
/*
 * shmem_get_folio_gfp(SGP_CACHE) for a fault of v at pgoff, in two steps
 * (shmem.c): shmem_reserve does what can fail (SIGBUS past the object,
 * -ENOMEM) and sets aside a folio for a missing page; shmem_get_folio then
 * looks the page up, adding the spare on a miss, and cannot fail.
 */
enum fault_result shmem_reserve(struct ptsim_mm *mm, const struct vma *v, uint64_t pgoff,
				struct folio **spare);
struct folio *shmem_get_folio(struct ptsim_mm *mm, const struct vma *v, uint64_t pgoff,
			      struct folio *spare);
/* Empty the cache slot of pgoff again (a populate that fails after reserving it). */
void shmem_uncache(struct ptsim_machine *m, const struct vma *v, uint64_t pgoff);
int files_copy(struct ptsim_machine *dst, const struct ptsim_machine *src);
/* One more, zeroed, slot at the end of the machine's file table; its index in *out. */
int file_table_add(struct ptsim_machine *m, size_t *out);
void files_free(struct ptsim_machine *m);

#endif
