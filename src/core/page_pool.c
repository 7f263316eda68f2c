// SPDX-License-Identifier: MIT
#include "page_pool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * Chunks start at one page and double up to 2 MiB, so a machine that maps
 * little costs little (a test may create thousands of machines). Each is an
 * anonymous mapping the host backs as its pages are first used, so what the
 * pool holds resident is what its tables use: a table is charged to the
 * machine's host memory as it is taken, and a chunk made ready ahead of use
 * (or a huge page backing all of one) would be resident memory nobody was
 * charged for (issue 32).
 */
#define MAX_CHUNK_BYTES	((size_t)2 << 20)

void page_pool_init(struct page_pool *p, size_t page)
{
	memset(p, 0, sizeof(*p));
	p->page = page;
	p->host_page = (size_t)sysconf(_SC_PAGESIZE);
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

/* size bytes of zeroed host memory aligned to align (a power of two), backed as touched. */
static void *lazy_chunk(size_t size, size_t align)
{
	size_t host_page = (size_t)sysconf(_SC_PAGESIZE);
	size_t pad = align > host_page ? align : 0;
	char *raw = mmap(NULL, size + pad, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *chunk;
	size_t head;

	if (raw == MAP_FAILED)
		return NULL;
	chunk = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
	head = (size_t)(chunk - raw);
	if (head)
		munmap(raw, head);
	if (pad - head)
		munmap(chunk + size, pad - head);
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
	chunk = lazy_chunk(size, p->page);	/* zeroed by the host */
	if (!chunk)
		return -1;
	p->chunks[p->nr_chunks++] = chunk;
	p->cur = chunk;
	p->left = size;
	return 0;
}

/*
 * A freed table is uncharged, so its page must not stay resident: the pool
 * gives free pages back to the host (MADV_DONTNEED; they read as zeroes
 * until reused), all but the KEEP_RESIDENT most recently freed, which the
 * next tables reuse at no syscall. It does so once twice that many are
 * resident, sorted, so that the tables of one zapped range go back in one
 * call per run of adjacent pages instead of one each.
 */
#define KEEP_RESIDENT	32

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

/*
 * Give back the host pages wholly inside [start, start + len): with pages
 * smaller than the host's (a 4K granule on a 16K or 64K host), a host page
 * goes back once all its table pages are free in the same batch; one only
 * partly free stays resident (uncharged, as the few pages a chunk smaller
 * than a host page leaves).
 */
static void release_run(const struct page_pool *p, char *start, size_t len)
{
	uintptr_t lo = ((uintptr_t)start + p->host_page - 1) & ~(uintptr_t)(p->host_page - 1);
	uintptr_t hi = ((uintptr_t)start + len) & ~(uintptr_t)(p->host_page - 1);

	if (lo < hi)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

static void release_free(struct page_pool *p)
{
	size_t end = p->nr_free - KEEP_RESIDENT, run;

	qsort(&p->free[p->nr_released], end - p->nr_released, sizeof(*p->free), cmp_ptr);
	for (size_t i = p->nr_released; i < end; i += run) {
		char *start = p->free[i];

		for (run = 1; i + run < end && (char *)p->free[i + run] == start + run * p->page; run++)
			;
		release_run(p, start, run * p->page);
	}
	p->nr_released = end;
}

/*
 * A fresh page's first touch is a write, one per host page. A table is often
 * read before it is written (a walk finds it empty); a first read maps the
 * host's shared zero page, and the write after it replaces that mapping,
 * which the host does with a TLB flush of every CPU the process ran on (an
 * IPI each: costly in a virtual machine). Written first, the page is
 * allocated once, already zeroed, and never flushed.
 */
static void touch_for_write(const struct page_pool *p, void *page)
{
	for (size_t off = 0; off < p->page; off += p->host_page)
		((volatile char *)page)[off] = 0;
}

/* A zeroed page: fresh from a chunk (zeroed when the chunk was made) or reused and cleared. */
void *page_pool_get(struct page_pool *p)
{
	void *page;

	if (p->nr_free) {
		page = p->free[--p->nr_free];
		p->nr_released = p->nr_released > p->nr_free ? p->nr_free : p->nr_released;
		memset(page, 0, p->page);
		return page;
	}
	if (p->left < p->page && new_chunk(p))
		return NULL;
	page = p->cur;
	p->cur += p->page;
	p->left -= p->page;
	touch_for_write(p, page);
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
	if (p->nr_free - p->nr_released > 2 * KEEP_RESIDENT)
		release_free(p);
}

size_t page_pool_resident_free_bytes(const struct page_pool *p)
{
	return (p->nr_free - p->nr_released) * p->page;
}

void page_pool_destroy(struct page_pool *p)
{
	for (size_t i = 0; i < p->nr_chunks; i++)
		munmap(p->chunks[i], p->page * chunk_pages(p, i));
	free(p->chunks);
	free(p->free);
	memset(p, 0, sizeof(*p));
}
