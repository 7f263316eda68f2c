// SPDX-License-Identifier: MIT
#include "host_array.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Below this, malloc's heap is the better home: small frees are reused, not kept idle. */
#define MAPPED_BYTES	((size_t)64 << 10)

void *host_array_alloc(size_t bytes)
{
	void *p;

	if (bytes < MAPPED_BYTES)
		return malloc(bytes ? bytes : 1);
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void *host_array_zalloc(size_t bytes)
{
	if (bytes < MAPPED_BYTES)
		return calloc(1, bytes ? bytes : 1);
	return host_array_alloc(bytes);	/* anonymous mappings start zeroed */
}

void *host_array_resize(void *p, size_t old_bytes, size_t new_bytes)
{
	void *n;

	if (old_bytes >= MAPPED_BYTES && new_bytes >= MAPPED_BYTES) {
		n = mremap(p, old_bytes, new_bytes, MREMAP_MAYMOVE);
		return n == MAP_FAILED ? NULL : n;
	}
	if (old_bytes < MAPPED_BYTES && new_bytes < MAPPED_BYTES)
		return realloc(p, new_bytes ? new_bytes : 1);
	n = host_array_alloc(new_bytes);
	if (!n)
		return NULL;
	memcpy(n, p, old_bytes < new_bytes ? old_bytes : new_bytes);
	host_array_free(p, old_bytes);
	return n;
}

void host_array_free(void *p, size_t bytes)
{
	if (!p)
		return;
	if (bytes < MAPPED_BYTES)
		free(p);
	else
		munmap(p, bytes);
}
