// SPDX-License-Identifier: MIT
#include "page_pool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/*
 * Chunks start at one page and double up to 2 MiB, so a machine that maps
 * little costs little (a test may create thousands of machines), while a
 * large map gets 2 MiB chunks: aligned and marked MADV_HUGEPAGE, so the host
 * backs each with one huge page instead of faulting in 512 small ones.
 */
#define MAX_CHUNK_BYTES	((size_t)2 << 20)

void page_pool_init(struct page_pool *p, size_t page)
{
	memset(p, 0, sizeof(*p));
	p->page = page;
}

/* Pages in the n-th chunk: 2^n, up to 2 MiB worth. */
static size_t chunk_pages(const struct page_pool *p, size_t n)
{
	size_t max_pages = MAX_CHUNK_BYTES > p->page ? MAX_CHUNK_BYTES / p->page : 1;
	size_t pages = 1;

	while (n-- && pages < max_pages)
		pages *= 2;
	return pages;
}

/* A 2 MiB-aligned, zeroed 2 MiB of host memory, backed by a huge page where the host allows. */
static void *huge_chunk(void)
{
	size_t len = 2 * MAX_CHUNK_BYTES;
	char *raw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *chunk;
	size_t head;

	if (raw == MAP_FAILED)
		return NULL;
	chunk = (char *)(((uintptr_t)raw + MAX_CHUNK_BYTES - 1) & ~(uintptr_t)(MAX_CHUNK_BYTES - 1));
	head = (size_t)(chunk - raw);
	if (head)
		munmap(raw, head);
	munmap(chunk + MAX_CHUNK_BYTES, len - head - MAX_CHUNK_BYTES);
	madvise(chunk, MAX_CHUNK_BYTES, MADV_HUGEPAGE);	/* a hint: failure costs only speed */
	return chunk;
}

static int new_chunk(struct page_pool *p)
{
	size_t size = p->page * chunk_pages(p, p->nr_chunks);
	void *chunk;

	if (p->nr_chunks == p->cap_chunks) {
		size_t cap = p->cap_chunks ? 2 * p->cap_chunks : 16;
		void **n = realloc(p->chunks, cap * sizeof(*n));

		if (!n)
			return -1;
		p->chunks = n;
		p->cap_chunks = cap;
	}
	if (size == MAX_CHUNK_BYTES) {
		chunk = huge_chunk();	/* zeroed by the host */
	} else {
		chunk = aligned_alloc(p->page, size);
		if (chunk)
			memset(chunk, 0, size);
	}
	if (!chunk)
		return -1;
	p->chunks[p->nr_chunks++] = chunk;
	p->cur = chunk;
	p->left = size;
	return 0;
}

/* A zeroed page: fresh from a chunk (zeroed when the chunk was made) or reused and cleared. */
void *page_pool_get(struct page_pool *p)
{
	void *page;

	if (p->nr_free) {
		page = p->free[--p->nr_free];
		memset(page, 0, p->page);
		return page;
	}
	if (p->left < p->page && new_chunk(p))
		return NULL;
	page = p->cur;
	p->cur += p->page;
	p->left -= p->page;
	return page;
}

void page_pool_put(struct page_pool *p, void *page)
{
	if (p->nr_free == p->cap_free) {
		size_t cap = p->cap_free ? 2 * p->cap_free : 64;
		void **n = realloc(p->free, cap * sizeof(*n));

		if (!n)
			return;	/* the page stays in its chunk until the pool goes */
		p->free = n;
		p->cap_free = cap;
	}
	p->free[p->nr_free++] = page;
}

void page_pool_destroy(struct page_pool *p)
{
	for (size_t i = 0; i < p->nr_chunks; i++) {
		if (p->page * chunk_pages(p, i) == MAX_CHUNK_BYTES)
			munmap(p->chunks[i], MAX_CHUNK_BYTES);	/* a huge_chunk */
		else
			free(p->chunks[i]);
	}
	free(p->chunks);
	free(p->free);
	memset(p, 0, sizeof(*p));
}
