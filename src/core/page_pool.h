/* SPDX-License-Identifier: MIT */
/*
 * Page-aligned, page-sized host memory for table pages, carved from large
 * chunks: aligned_alloc(PAGE, PAGE) per table would cost up to a second page
 * of padding each (a 256 GiB PTE-mapped map has 131,328 of them).
 */
#ifndef PTSIM_PAGE_POOL_H
#define PTSIM_PAGE_POOL_H

#include <stddef.h>

struct page_pool {
	size_t page;
	size_t host_page;	/* the host's page size (sysconf), what MADV_DONTNEED gives back */
	void **chunks;
	size_t nr_chunks, cap_chunks;
	char *cur;
	size_t left;
	void **free;
	size_t nr_free, cap_free;
	/*
	 * free[0 .. nr_released) went back to the host, or (a page smaller than
	 * the host's) stay resident because the rest of their host page was not
	 * free with them
	 */
	size_t nr_released;
};

void page_pool_init(struct page_pool *p, size_t page);
/* A page-aligned, zeroed page; NULL when the host has no memory. */
void *page_pool_get(struct page_pool *p);
void page_pool_put(struct page_pool *p, void *page);
/* Bytes of the free pages the pool keeps resident (not yet given back to the host). */
size_t page_pool_resident_free_bytes(const struct page_pool *p);
void page_pool_destroy(struct page_pool *p);

#endif
