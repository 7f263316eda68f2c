/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_FILE_H
#define PTSIM_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <ptsim/export.h>
#include <ptsim/tlb.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ptsim_machine;
struct ptsim_mm;

/* A file of `size` bytes whose filesystem allows folios up to max_order (0: none). */
PTSIM_API int ptsim_file_create(struct ptsim_machine *m, uint64_t size, unsigned int max_order,
				unsigned int *file);
/*
 * An open file description: its own file_ra_state (ra_pages = 128K / PAGE_SIZE).
 * -EINVAL for a file number that is not one ptsim_file_create returned (a
 * shared anonymous mapping's shmem object has one too).
 */
PTSIM_API int ptsim_file_open(struct ptsim_machine *m, unsigned int file, unsigned int *fd);

struct ptsim_ra_state {
	uint64_t start, size, async_size;
	unsigned int ra_pages, order, mmap_miss;
	/* Room for later fields (zero): the struct keeps its size across versions. */
	uint64_t reserved[4];
};
/* The readahead state (file_ra_state) of open file fd. -EINVAL for an unknown fd. */
PTSIM_API int ptsim_file_ra(const struct ptsim_machine *m, unsigned int fd, struct ptsim_ra_state *out);
/*
 * Pages of the file in the page cache, and the order of the folio holding
 * page `index`: -ENOENT when none does; -EINVAL as ptsim_file_open.
 */
PTSIM_API int ptsim_file_cached(const struct ptsim_machine *m, unsigned int file, uint64_t index,
				unsigned int *order);

#define PTSIM_MADV_NORMAL	0
#define PTSIM_MADV_RANDOM	1
#define PTSIM_MADV_SEQUENTIAL	2
#define PTSIM_MADV_DONTNEED	4
#define PTSIM_MADV_FREE		8
#define PTSIM_MADV_DONTFORK	10
#define PTSIM_MADV_DOFORK	11
#define PTSIM_MADV_HUGEPAGE	14
#define PTSIM_MADV_NOHUGEPAGE	15
#define PTSIM_MADV_WIPEONFORK	18
#define PTSIM_MADV_KEEPONFORK	19
#define PTSIM_MADV_COLD		20
#define PTSIM_MADV_PAGEOUT	21
#define PTSIM_MADV_POPULATE_READ	22
#define PTSIM_MADV_POPULATE_WRITE	23

/*
 * mmap of an open file at page offset `pgoff` (bytes / PAGE_SIZE); len is
 * rounded up to whole pages (do_mmap's PAGE_ALIGN). addr 0: the kernel picks
 * the address (top-down from the mm's mmap_base, through
 * thp_get_unmapped_area; randomised when ASLR is on).
 */
PTSIM_API int ptsim_mmap_file(struct ptsim_mm *mm, uint64_t addr, uint64_t len, unsigned int prot,
			      unsigned int fd, uint64_t pgoff, uint64_t *out_addr);
/*
 * madvise. Flag-only advice (NORMAL, RANDOM, SEQUENTIAL, HUGEPAGE,
 * NOHUGEPAGE, DONTFORK, DOFORK, WIPEONFORK, KEEPONFORK): the VMAs of
 * [start, start+len) that change are split at the range's edges (a PMD THP
 * an edge cuts is split first) and merged with their neighbours afterwards;
 * VMAs that would not change are left alone; no entry is touched.
 * DONTNEED zaps the range as munmap does but keeps the VMAs and tables.
 * FREE (private anonymous only) makes young or dirty entries old and clean
 * and COLD makes young ones old, per folio batch with
 * "madv_free_pte_batching" (a large folio the range cuts is split first).
 * PAGEOUT reclaims the folios only this mm maps: anonymous ones go to swap
 * (a swap entry per page; the model's swap device never fills), lazyfree
 * ones (FREE'd, not written since) and clean file ones are dropped, with
 * reclaim's deferred TLB flush (doc/mm-lifecycle.md); shmem pages (shared
 * anonymous memory) are kept, mapped: their swap-out is not modelled.
 * POPULATE_READ / POPULATE_WRITE (madvise_populate, v6.12 mm/madvise.c)
 * fault the range in as get_user_pages with FOLL_TOUCH (and FOLL_WRITE)
 * does, without FOLL_FORCE: present pages (writable ones for WRITE) are
 * followed, others faulted (WRITE breaks COW and replaces the zero page;
 * READ maps the zero page in anonymous memory). They follow the kernel, not
 * the unchanged-on-error rule: what was faulted in before an error stays
 * (counted in the totals), and the error is -ENOMEM for a hole (from v6.10,
 * "madv_populate_no_vma_walk", at the first one; before, after populating
 * every VMA of the range) or when memory runs out, -EINVAL for a VMA the
 * access needs a permission of (READ without PROT_READ, WRITE without
 * PROT_WRITE, PROT_NONE), -EFAULT for a fault past the end of a file or
 * shmem object. Only a populate whose zero-page tables alone would pass
 * host_memory_limit fails (-ENOMEM) before it changes anything. VM_LOCKED
 * VMAs are populated too. WRITE in a private file mapping gives every page
 * its private anonymous copy, as a write fault there does (ptsim_fault).
 * As do_madvise: start must be page aligned and len is rounded up to pages;
 * an empty range (len 0) succeeds doing nothing but the syscall, once the
 * advice is known. -ENOMEM for a hole in the range (changing nothing; with
 * ptsim_mm_set_kernel_errors on, after the advice was applied to every VMA
 * of the range, as madvise_walk_vmas does), -EINVAL for unknown
 * advice, an unaligned start, a length that wraps when rounded up, or advice
 * the VMA does not allow (WIPEONFORK/FREE on shared or file memory; DONTNEED,
 * FREE, COLD, PAGEOUT on locked VMAs).
 */
PTSIM_API int ptsim_madvise(struct ptsim_mm *mm, uint64_t start, uint64_t len, int advice);

/* ASLR on (seed != 0, the random stream of the mm) or off (seed 0). */
PTSIM_API int ptsim_mm_set_aslr(struct ptsim_mm *mm, uint64_t seed);

/*
 * handle_mm_fault for a fault at va: file mappings (always MAP_PRIVATE) read
 * through fault-around, filemap_fault (readahead, I/O, the VM_FAULT_RETRY
 * round) and finish_fault, which maps the page-cache page read-only; a write
 * copies it (v6.12 do_cow_fault for an empty entry, do_wp_page's
 * wp_page_copy for a mapped page-cache page): a private anonymous page,
 * exclusive, writable and dirty, while the page-cache page stays cached and
 * mapped wherever else it was. From then on the page is anonymous memory of
 * the VMA: fork shares it (the VMA now has an anon_vma), MADV_DONTNEED drops
 * it (the next read maps the page cache again), MADV_PAGEOUT swaps it out;
 * anonymous ones through do_anonymous_page, do_swap_page for a swapped-out
 * page (read back; a write fault maps it writable, at once when the entry
 * was exclusive, else through do_wp_page in the same fault), and a
 * write to the shared zero page gets its own zeroed page (wp_page_copy).
 * Shared anonymous ones through do_read_fault (fault-around over the shmem
 * object's pages) or do_shared_fault, and shmem_fault, which finds or
 * allocates the object's page: never the zero page, no readahead or I/O.
 * Returns 0; -EFAULT for SIGSEGV/SIGBUS (a shmem fault past the object's
 * size); -ENOMEM when memory runs out (an anonymous or shared anonymous fault
 * then leaves the model as it was, except that a write to a PMD THP another
 * mm maps keeps the split of its PMD when the page's copy fails, as
 * do_huge_pmd_wp_page does; a file fault keeps what it read into the page
 * cache; what is kept is counted in the totals); -EAGAIN for a write to a
 * uffd-wp protected entry of a VMA registered in WP mode without WP_ASYNC
 * (handle_userfault would hand it to the reader, which the model does not
 * run; nothing changes; with WP_ASYNC the fault resolves it, and a uffd-wp
 * marker takes a second fault: doc/uffd-wp.md); -EINVAL for bad arguments or
 * the kernel mm; -EBUSY from a diagnostic handler.
 */
PTSIM_API int ptsim_fault(struct ptsim_mm *mm, uint64_t va, enum ptsim_access_kind kind);

/* Call a stub at va: an instruction fetch through the iTLB, faulting it in when needed. */
PTSIM_API int ptsim_exec_call(struct ptsim_mm *mm, unsigned int cpu, uint64_t va);

/* An ELF PT_LOAD program header. */
struct ptsim_elf_phdr {
	uint64_t p_offset, p_vaddr, p_filesz, p_memsz, p_align;
	unsigned int p_flags;	/* PF_X 1, PF_W 2, PF_R 4 */
};

/*
 * load_elf_binary for an ET_DYN (PIE) main executable: load_bias =
 * ELF_ET_DYN_BASE + arch_mmap_rnd(), masked to the maximum alignment of the
 * PT_LOADs, then each segment mapped from fd. -EEXIST when a segment's
 * range is taken or two segments overlap, -EINVAL when one passes the
 * address space, -ENOMEM: all found before anything is mapped, so a failure
 * changes nothing.
 */
PTSIM_API int ptsim_elf_load(struct ptsim_mm *mm, unsigned int fd, const struct ptsim_elf_phdr *ph,
			     unsigned int nr, uint64_t *load_bias);

#ifdef __cplusplus
}
#endif

#endif
