// SPDX-License-Identifier: MIT
#include "page_pool.h"

#include <stdlib.h>
#include <string.h>

/*
 * Chunks start at one page and double up to 2^MAX_CHUNK_SHIFT pages, so a machine
 * that maps little costs little (a test may create thousands of machines),
 * while a large map still gets big chunks with little malloc overhead.
 */
#define MAX_CHUNK_SHIFT 6	/* 64 pages */

void page_pool_init(struct page_pool *p, size_t page)
{
	memset(p, 0, sizeof(*p));
	p->page = page;
}

static int new_chunk(struct page_pool *p)
{
	size_t pages = (size_t)1 << (p->nr_chunks < MAX_CHUNK_SHIFT ? p->nr_chunks : MAX_CHUNK_SHIFT);
	size_t size = p->page * pages;
	void *chunk;

	if (p->nr_chunks == p->cap_chunks) {
		size_t cap = p->cap_chunks ? 2 * p->cap_chunks : 16;
		void **n = realloc(p->chunks, cap * sizeof(*n));

		if (!n)
			return -1;
		p->chunks = n;
		p->cap_chunks = cap;
	}
	chunk = aligned_alloc(p->page, size);
	if (!chunk)
		return -1;
	p->chunks[p->nr_chunks++] = chunk;
	p->cur = chunk;
	p->left = size;
	return 0;
}

void *page_pool_get(struct page_pool *p)
{
	void *page;

	if (p->nr_free)
		return p->free[--p->nr_free];
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
	for (size_t i = 0; i < p->nr_chunks; i++)
		free(p->chunks[i]);
	free(p->chunks);
	free(p->free);
	memset(p, 0, sizeof(*p));
}
